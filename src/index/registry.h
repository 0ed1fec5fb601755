/* registry.h: the registry tier (issue 13): a PostgreSQL + pgvector database a team shares. hyrax
 * embeds locally and publishes documents there; searches ask it for vector (pgvector HNSW) and
 * keyword (tsvector, ts_rank_cd) candidates in one round trip. Tenants are PostgreSQL roles and
 * row-level security keeps them apart (the schema and its policies: the comment at the top of
 * registry.c, README "Registry"). Every value reaches SQL as a bound parameter. libpq is loaded
 * at run time (base/pq.h). */
#ifndef HX_REGISTRY_H
#define HX_REGISTRY_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HX_REGISTRY_ENV "HYRAX_REGISTRY"    /* the registry URL when --registry is not given */
#define HX_REGISTRY_SCHEMA_VERSION 1        /* the schema this build creates and reads */
#define HX_REGISTRY_TIMEOUT_MS 3000         /* a search's default wait for the registry */
#define HX_REGISTRY_KEYWORD_CANDIDATES 2000 /* chunks a search's keyword side ranks at most */

typedef struct hx_registry hx_registry;

typedef struct hx_registry_opts {
    const char *url;      /* a libpq connection URL or "key=value ..." string; NULL or "": the
                             $HYRAX_REGISTRY variable, else libpq's own defaults (PGHOST,
                             PGDATABASE, PGSERVICE and the service file ...); sslmode and the
                             other TLS settings are libpq's. Borrowed for the call. */
    const char *tenant;   /* the tenant to act as: a PostgreSQL role the login role may SET ROLE
                             to (it becomes current_user, which the row-level security policies
                             compare with); NULL: the login role itself. Borrowed. */
    int timeout_ms;       /* > 0: the most a connection attempt (libpq connect_timeout, whole
                             seconds rounded up, at least 2 as libpq counts) and each statement
                             (statement_timeout) may take; 0: no limit */
} hx_registry_opts;

/* Connects (loading libpq first: HX_ENOTFOUND naming it when it cannot be loaded), then sets the
 * tenant's role for the session. HX_EIO with libpq's message when the server cannot be reached
 * or refuses; HX_EPERM when the login role may not act as the tenant. *out: free with
 * hx_registry_close. */
int hx_registry_connect(hx_registry **out, const hx_registry_opts *o, hx_error *err);
void hx_registry_close(hx_registry *r);

/* Creates the schema, or migrates it to HX_REGISTRY_SCHEMA_VERSION, in one transaction under an
 * advisory lock. *before gets the version found (0: none). HX_EVERSION for a registry newer than
 * this build. Needs the rights to create the extension vector (or it already exists) and a schema. */
int hx_registry_init(hx_registry *r, int *before, hx_error *err);

/* === Publishing === */

typedef struct hx_registry_chunk {
    uint32_t ord, line_start, line_end;
    const char *heading;    /* heading path "A > B"; borrowed */
    const char *text;       /* the chunk as embedded; borrowed */
    const float *vec;       /* HX_EMBED_DIM floats; borrowed */
} hx_registry_chunk;

typedef struct hx_registry_doc {
    const char *path;           /* root-relative; borrowed, like every field */
    const char *title;
    const char *metadata_json;  /* a JSON object */
    const char *content_hash;   /* hex SHA-256 of the file's bytes */
    const char *signer;         /* the signing key's id; NULL: unsigned */
    const char *visibility;     /* "public" or "tenant" */
    const hx_registry_chunk *chunks;
    size_t n_chunks;
} hx_registry_doc;

/* The documents the acting tenant has in the registry: paths[i] has content hash hashes[i]. Both
 * arrays and their strings are owned by the caller: free with hx_registry_known_free. */
typedef struct hx_registry_known {
    char **paths, **hashes;
    size_t n;
} hx_registry_known;
int hx_registry_list(hx_registry *r, hx_registry_known *out, hx_error *err);
void hx_registry_known_free(hx_registry_known *k);
/* The index in k of path, or -1. */
long hx_registry_known_find(const hx_registry_known *k, const char *path);

/* In one transaction: replaces each of docs (by path, for the acting tenant) with its new
 * version and chunks, deletes the documents named by removed, and writes one audit row per
 * document. Nothing of the batch is visible until it commits; on any failure it is rolled back. */
int hx_registry_put(hx_registry *r, const hx_registry_doc *docs, size_t n_docs, const char *const *removed,
                    size_t n_removed, hx_error *err);

/* === Searching === */

typedef struct hx_registry_query {
    const char *text;            /* the query, NUL-terminated (keyword side: websearch_to_tsquery) */
    const float *vec;            /* the query embedding (HX_EMBED_DIM), NULL: keyword side only */
    hx_search_mode mode;
    uint32_t k;                  /* results wanted; each side fetches 4 x k candidates */
    const hx_filter *filters;    /* equality and any-of filters on metadata keys; others HX_EINVAL */
    size_t n_filters;
    float min_score;             /* NAN: no floor */
    int64_t as_of_ns;            /* read_context as_of: only documents published at or before
                                    (the registry keeps no older versions); 0: now */
} hx_registry_query;

/* A registry result's own fields, beside its hx_result. Strings borrowed from the result set. */
typedef struct hx_registry_extra {
    const char *tenant, *visibility, *signer, *published_at, *metadata_json;
} hx_registry_extra;

/* Results of a registry search, shaped like a local one: res.v[i] is result i (path, title,
 * heading, text, scores, metadata; chunk_id and doc_id are the registry's ids, cut to 32 bits),
 * extra[i] its registry fields. Free with hx_registry_results_free (never hx_results_free alone:
 * the metadata pairs are owned here). */
typedef struct hx_registry_results {
    hx_results res;
    hx_registry_extra *extra;
    hx_registry *owner;          /* the strings live in a libpq result of this connection's library */
    void *pg;                    /* that result */
} hx_registry_results;
void hx_registry_results_free(hx_registry_results *r);

/* Vector top-4k by pgvector and keyword top-4k by ts_rank_cd (English configuration, text search
 * query from websearch_to_tsquery) in one statement, fused by RRF (fusion.h), scored by
 * hx_relevance with ts_rank_cd normalised to [0, 1) as the keyword feature, cut to k. */
int hx_registry_search(hx_registry *r, const hx_registry_query *q, hx_registry_results *out, hx_error *err);

#endif
