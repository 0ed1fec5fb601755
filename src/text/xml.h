/* xml.h: a well-formedness check for XML 1.0 documents (the gate's validator for directive-like
 * files) and the same parser as an event reader (start tag, end tag, text) for the extractors of
 * office formats. Owns only reading XML safely: it builds no tree and expands nothing. Spec: XML 1.0 (5th ed.) section 2, reduced: one root element, matching tags, attribute
 * names unique per element and values quoted without '<', comments without "--", CDATA sections,
 * processing instructions, character references to valid code points, and the five predefined
 * entity references. A document type declaration is accepted only without an internal subset:
 * entity declarations (the "billion laughs" bomb and external entities) are refused, never
 * expanded, so any other named reference is undefined and refused. Limits: HX_XML_MAX_DEPTH open
 * elements, HX_XML_MAX_ATTRS attributes per element. Time linear in the input (attributes
 * quadratic in HX_XML_MAX_ATTRS at most); no allocation. */
#ifndef HX_XML_H
#define HX_XML_H

#include "hyrax.h"

#include <stddef.h>

#define HX_XML_MAX_DEPTH 256
#define HX_XML_MAX_ATTRS 64

/* 0 when s[0..n) is well-formed; else HX_EPARSE (HX_EDEPTH past the depth limit) with the reason
 * and byte offset in err. */
int hxi_xml_check(const char *s, size_t n, hx_error *err);

/* An attribute as written: value without its quotes, references not decoded (hxi_xml_decode). */
typedef struct hxi_xml_attr {
    const char *name, *value;   /* borrowed from the input */
    size_t name_len, value_len;
} hxi_xml_attr;

/* Events of hxi_xml_parse, in document order; all pointers borrow the input, for the call only.
 * An empty-element tag is a start and an end. `text` gets character data inside the root element
 * in runs (a run ends at markup), with references not yet decoded, or verbatim (`raw`) from a CDATA
 * section. A NULL callback means that event is not wanted. A handler returning non-zero stops the
 * parse with that code (it fills err itself). */
typedef struct hxi_xml_handler {
    void *ctx;
    int (*start)(void *ctx, const char *name, size_t len, const hxi_xml_attr *attrs, size_t n_attrs);
    int (*end)(void *ctx, const char *name, size_t len);
    int (*text)(void *ctx, const char *s, size_t len, int raw);
} hxi_xml_handler;

/* hxi_xml_check that hands each event to h as it is read (h NULL: check only). Events come before
 * the parse finds a later error, so a handler must not trust a document until this returns 0. */
int hxi_xml_parse(const char *s, size_t n, const hxi_xml_handler *h, hx_error *err);

/* Decodes the references in s[0..n) (text or an attribute value that hxi_xml_parse accepted) into
 * out, which has room for n bytes (decoding never lengthens); returns the decoded length. */
size_t hxi_xml_decode(const char *s, size_t n, char *out);

#endif
