/* trust.h: a document's trust attributes (hyrax.h hx_doc_trust) from its own metadata, the one
 * place the keys `tenant`, `visibility` and `owner` are read and checked (`hyrax help
 * tenants`); trust.c also holds the visibility rule, hyrax.h hx_doc_visible. The validation gate (policy, signatures) overlays its decisions on this result;
 * `signer` is never taken from a document. Storage is ix.h's document table. */
#ifndef HX_TRUST_H
#define HX_TRUST_H

#include "hyrax.h"

#include <stddef.h>

#define IX_TRUST_VALUE_MAX 128   /* bytes of a tenant or owner name */

/* Reads the trust attributes of a document from its own metadata pairs (front matter, YAML
 * top-level keys, add_document's metadata): `tenant`, `visibility` (public | tenant | private;
 * default public) and `owner`. out's strings borrow meta's values (or are static ""); signer is
 * always "". A document is refused (HX_EINVAL, the reason in why, cap bytes, for the rejected
 * list) when a key is given more than once or in another case ("Tenant"), a value is empty,
 * longer than IX_TRUST_VALUE_MAX bytes or holds a control character, the visibility is
 * unknown, visibility tenant has no tenant, or visibility private has no owner or no tenant. */
int ix_trust_from_meta(const hx_kv *meta, size_t n, hx_doc_trust *out, char *why, size_t cap);

/* A tenant, owner or user name (or a visibility value) under `key`: 1..IX_TRUST_VALUE_MAX bytes,
 * no control character; HX_EINVAL with the reason. */
int ix_trust_name_check(const char *key, const char *value, char *why, size_t cap);

/* The consistency rules alone (the last three above), for trust put together from several
 * sources (the gate's policy over the document's own keys): 0 or HX_EINVAL with the reason. */
int ix_trust_check(const hx_doc_trust *t, char *why, size_t cap);

#endif
