/* registry.h: the registry tier (issue 13): a PostgreSQL + pgvector database a team shares. hyrax
 * embeds locally and publishes documents there; searches ask it for vector (pgvector HNSW) and
 * keyword (tsvector, ts_rank_cd) candidates in one round trip. Tenants are PostgreSQL roles and
 * row-level security keeps them apart (the schema and its policies: the comment at the top of
 * registry.c, `hyrax help registry`). Every value reaches SQL as a bound parameter. libpq is loaded
 * at run time (base/pq.h). */
#ifndef HX_REGISTRY_H
#define HX_REGISTRY_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HX_REGISTRY_KEYWORD_CANDIDATES 2000 /* chunks a search's keyword side ranks at most */
#define HX_REGISTRY_MODEL_MAX 63             /* bytes of the model name hyrax.meta records */

typedef struct hxi_registry hxi_registry;

typedef struct hxi_registry_opts {
    const char *url;      /* a libpq connection URL or "key=value ..." string; NULL or "": the
                             $HYRAX_REGISTRY variable, else libpq's own defaults (PGHOST,
                             PGDATABASE, PGSERVICE and the service file ...); sslmode and the
                             other TLS settings are libpq's. Borrowed for the call. */
    const char *tenant;   /* the tenant to act for: a PostgreSQL role; without `user` the login
                             role SET ROLEs to it (it becomes current_user); NULL: the login role
                             itself. Borrowed. */
    const char *user;     /* the user to act as inside the tenant: a PostgreSQL role that is a
                             member of the tenant's role and that the login may SET ROLE to (it
                             becomes current_user: private documents are its own); NULL: none.
                             Needs tenant (HX_EINVAL), HX_EPERM when not a member. Borrowed. */
    int timeout_ms;       /* > 0: everything done through the handle -- connecting and every
                             statement -- ends within timeout_ms of this call (a search's
                             budget), and the server stops a statement past it too
                             (statement_timeout); 0: no limit */
    int connect_timeout_ms; /* > 0: connecting alone ends within it (publish, init); 0: no limit
                               but timeout_ms */
} hxi_registry_opts;

/* Connects (loading libpq first: HX_ENOTFOUND naming it when it cannot be loaded), then sets the
 * tenant's role for the session. HX_EIO with libpq's message when the server cannot be reached
 * or refuses; HX_EPERM when the login role may not act as the tenant. *out: free with
 * hxi_registry_close. */
int hxi_registry_connect(hxi_registry **out, const hxi_registry_opts *o, hx_error *err);
void hxi_registry_close(hxi_registry *r);

/* Creates the schema, or migrates it to version `to` (1..HX_REGISTRY_SCHEMA_VERSION; `hyrax
 * registry init` asks for HX_REGISTRY_SCHEMA_VERSION), in one transaction under an advisory lock.
 * A new registry's chunks hold vector(dim), the dimension of the model the publisher names; at
 * HX_REGISTRY_SCHEMA_VERSION hyrax.meta records that model ('model', 'dimension'): a registry
 * that records another is refused (HX_EINVAL naming it); one from before models were recorded
 * takes `model` when its column has dim dimensions, or holds no chunk yet (the column then
 * takes dim), else HX_EINVAL. *before gets the version found (0: none). HX_EVERSION for a
 * registry newer than this build; a registry at or past `to` with its model recorded is left as
 * it is. Needs the rights to create the extension vector (or it already exists) and a schema;
 * HX_EPERM when schema hyrax exists and another role than current_user owns it (that role could
 * replace what the registry runs). */
int hxi_registry_migrate(hxi_registry *r, int to, const char *model, int dim, int *before, hx_error *err);

/* The model whose vectors the registry holds: *name (borrowed until close; "" for a registry from
 * before models were recorded, which init names) and *dim (its column's dimension). Asked once
 * per handle. HX_ENOTFOUND saying to run init when there is no schema. */
int hxi_registry_model(hxi_registry *r, const char **name, int *dim, hx_error *err);

/* HX_EINVAL naming the registry's model (and its --model alias) when its vectors are not those of
 * `model` of `dim` dimensions: publishing and searching with another model are refused. */
int hxi_registry_check_model(hxi_registry *r, const char *model, int dim, hx_error *err);

/* === Publishing === */

typedef struct hxi_registry_chunk {
    uint32_t ord, line_start, line_end;
    uint32_t byte_start, byte_end;   /* the body's byte range in the document (chunker.h) */
    const char *heading;    /* heading path "A > B"; borrowed */
    const char *text;       /* the chunk as embedded; borrowed */
    const float *vec;       /* the model's dimension of floats (hxi_registry_put); borrowed */
    const char *metadata_json;   /* its unit's pairs as a JSON object (hx_result.chunk_meta); NULL:
                                    none; borrowed */
} hxi_registry_chunk;

typedef struct hxi_registry_doc {
    const char *path;           /* root-relative; borrowed, like every field */
    const char *title;
    const char *metadata_json;  /* a JSON object */
    const char *content_hash;   /* hex SHA-256 of the file's bytes */
    const char *signer;         /* the signing key's id; NULL: unsigned */
    const char *visibility;     /* "public", "tenant" or "private" (readable by the publishing
                                   user only: needs a handle with hxi_registry_opts.user) */
    const hxi_registry_chunk *chunks;
    size_t n_chunks;
    const char *type;           /* its row in the table of document types ("pdf", "code"): what its
                                   line numbers count (hx_result.unit); NULL: unknown */
} hxi_registry_doc;

/* The documents of the acting tenant this handle sees in the registry (a user's own private ones
 * included, other users' not): paths[i] has content hash hashes[i] ("" for one published before
 * schema version 5, which publishing sends again with its unit pairs). Both
 * arrays and their strings are owned by the caller: free with hxi_registry_known_free. */
typedef struct hxi_registry_known {
    char **paths, **hashes;
    size_t n;
} hxi_registry_known;
int hxi_registry_list(hxi_registry *r, hxi_registry_known *out, hx_error *err);
void hxi_registry_known_free(hxi_registry_known *k);
/* The index in k of path, or -1. */
long hxi_registry_known_find(const hxi_registry_known *k, const char *path);

/* Vectors of `model`, dim floats each, which must be the registry's (hxi_registry_check_model).
 * In one transaction: replaces each of docs (by path, for the acting tenant; a private one owned
 * by the acting user) with its new version and chunks, deletes the documents named by removed, and writes one audit row per
 * document. Nothing of the batch is visible until it commits; on any failure it is rolled back. */
int hxi_registry_put(hxi_registry *r, const char *model, int dim, const hxi_registry_doc *docs, size_t n_docs,
                     const char *const *removed, size_t n_removed, hx_error *err);

/* === Searching === */

typedef struct hxi_registry_query {
    const char *text;            /* the query, NUL-terminated (keyword side: websearch_to_tsquery) */
    const float *vec;            /* the query embedding, NULL: keyword side only */
    hx_search_mode mode;
    uint32_t k;                  /* results wanted */
    const hx_filter *filters;    /* equality and any-of filters on metadata keys; others HX_EINVAL */
    size_t n_filters;
    float min_score;             /* NAN: no floor */
    int64_t as_of_ns;            /* read_context as_of: only documents published at or before
                                    (the registry keeps no older versions); 0: now */
    uint32_t window;             /* candidates each side fetches, as hyrax.h HX_RANK_WINDOW (0: that),
                                    at least k */
    const char *model;           /* with vec: the model that embedded it, the registry's (else
                                    HX_EINVAL naming the registry's), and its dimension */
    int dim;
} hxi_registry_query;

/* A registry result's own fields, beside its hx_result (hyrax.h hx_registry_fields). Strings
 * borrowed from the result set. */
typedef hx_registry_fields hxi_registry_extra;

/* Results of a registry search, shaped like a local one: res.v[i] is result i (path, title,
 * heading, text -- the chunk's body over its byte range, as a local result's --, scores, metadata,
 * doc_sha256, signer -- "" when unsigned --; chunk_id and doc_id are the registry's ids, cut to 32
 * bits),
 * extra[i] its registry fields. Free with hxi_registry_results_free (never hx_results_free alone:
 * the metadata pairs are owned here). */
typedef struct hxi_registry_results {
    hx_results res;
    hxi_registry_extra *extra;
    hxi_registry *owner;          /* the strings live in a libpq result of this connection's library */
    void *pg;                    /* that result */
} hxi_registry_results;
void hxi_registry_results_free(hxi_registry_results *r);

/* Vector top-4k by pgvector and keyword top-4k by ts_rank_cd (English configuration, text search
 * query from websearch_to_tsquery) in one statement, fused by RRF (fusion.h), scored by
 * hxi_relevance with ts_rank_cd normalised to [0, 1) as the keyword feature, cut to k. */
int hxi_registry_search(hxi_registry *r, const hxi_registry_query *q, hxi_registry_results *out, hx_error *err);

/* === The registry fused with the local tiers (tiers.c; `hyrax help registry`) === */

/* The registry as the farthest tier of a search. The caller connects (hxi_registry_connect, with
 * the reader's tenant and a timeout) and keeps this alive until the answer is written: the fused
 * results borrow their strings and metadata from res. */
typedef struct hxi_registry_tier {
    hxi_registry *r;            /* borrowed; NULL: not consulted (why says so, else "no registry
                                  connection") */
    int64_t as_of_ns;          /* read_context as_of (hxi_registry_query.as_of_ns); 0: now */
    hxi_registry_results res;   /* out: the registry's own list; free with hxi_registry_results_free
                                  after the fused results are done with */
    char why[320];             /* in/out: "" when the registry answered; else why it was not
                                  consulted (set by the caller when it could not connect, or by
                                  the search when the registry failed or timed out) */
} hxi_registry_tier;

/* hx_tiers_search (hyrax.h) over tiers[0..n) and the registry after them: the query embedded once,
 * the registry asked by hxi_registry_search with that vector and o's mode, k, filters and min_score,
 * its list grouped by document as a local tier's is when o->group asks (its best chunk answers),
 * and fused with the local lists by the same reciprocal rank fusion, the same content (content
 * hash and chunk byte range, or the hash when grouped by document) answered by the nearer tier.
 * Its results say tier HX_TIER_REGISTRY. A registry that fails is not an error: reg->why says why
 * and the answer is the local tiers'. reg NULL: hx_tiers_search. */
int hxi_tiers_search_registry(const hx_tier *tiers, size_t n, hxi_registry_tier *reg, hx_encoder *enc,
                              const char *query, size_t len, const hx_search_opts *o, hx_results *out, hx_error *err);

#endif
