/* hnsw.h: the HNSW vector index (hnswlib's algorithm): an in-memory builder, a zero-copy view of
 * the serialized graph (read-only map), and one search shared by both. Owns the graph format below;
 * does not own the vectors' storage in index files (the caller stores them, in node order).
 * Spec: ../shared/DESIGN.md (data flow) and the format table in this comment.
 *
 * Similarity is the inner product of L2-normalised float vectors (cosine). Every vector carries a
 * uint32 id (the chunk id); nodes are numbered 0..count-1 in the order they were added, and that is
 * the order of the vector array the view is given.
 *
 * Serialized graph (hxi_hnsw_serialize; all integers little-endian, arrays start at offsets that are
 * multiples of 64 from the start of the blob, gaps are zero). The blob ends with the last array.
 *   Header, 64 bytes:
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXHNSW\r\n"
 *        8    4 format version, currently 1; other versions are refused by name
 *       12    4 dim, vector dimension (1..65536)
 *       16    4 n, node count
 *       20    4 M, link slots per node on levels >= 1 (2..256)
 *       24    4 M0, link slots per node on level 0 (M..512)
 *       28    4 ef_construction, used when adding to a loaded graph (1..65536)
 *       32    4 max_level, highest node level (0..HX_HNSW_MAX_LEVEL; 0 when n == 0)
 *       36    4 entry, node index of the entry point (a node of level max_level; 0xFFFFFFFF iff n == 0)
 *       40    4 U, length of the upper-links array in u32s
 *       44    4 n_deleted, number of tombstoned nodes
 *       48    8 seed of the level generator
 *       56    8 reserved, zero
 *   Arrays, in this order, each at the next multiple of 64 after the previous one:
 *   SIZE             DESCRIPTION
 *   4 * n            labels: u32 id of each node (search does not need them unique;
 *                    hxi_hnsw_from_view refuses repeated ids among live nodes)
 *   4 * n            upper_off: where node i's upper links start in the upper array, in u32s;
 *                    equals the sum over j < i of levels[j] * (1 + M)
 *   4 * n * (1 + M0) level0: per node, a u32 count (<= M0) then M0 u32 node indexes (< n, not i);
 *                    slots past count are zero
 *   4 * U            upper: per node i, for each level l in 1..levels[i], a u32 count (<= M) then M
 *                    u32 node indexes of nodes whose level is >= l (not i); slots past count are zero
 *   n                levels: u8 top level of each node (<= max_level)
 *   n                deleted: u8, 1 for a tombstoned node, else 0
 * The view checks every field and every link when it opens (O(n * M0)); the container that holds
 * the blob (hxfile.h) carries its checksum. Deleted nodes are traversed but never returned.
 *
 * Threads: a builder is used by one caller at a time; hxi_hnsw_add_batch spreads the insertions
 * over its own pthreads, in rounds whose outcome does not depend on thread timing (hnsw_build.c).
 * The same vectors, ids, parameters and seed give a byte-identical serialized graph on a given
 * machine (the dot product passed in sets the rounding) whatever the number of threads. A view (and
 * a builder not being modified) may be searched from any number of threads at once.
 * Code: graph search in hnsw.c, builder in hnsw_build.c, this format and the view in hnsw_view.c,
 * what they share in hnsw_internal.h. */
#ifndef HX_HNSW_H
#define HX_HNSW_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HX_HNSW_MAGIC "HXHNSW\r\n"
#define HX_HNSW_VERSION 1
#define HX_HNSW_HEADER_SIZE 64
#define HX_HNSW_MAX_LEVEL 16
#define HX_HNSW_DEFAULT_M 16
#define HX_HNSW_DEFAULT_EF_CONSTRUCTION 200
#define HX_HNSW_DEFAULT_EF 64
#define HX_HNSW_EXACT_BELOW 2000          /* indexes with fewer live nodes are searched exactly */
#define HX_HNSW_FILTER_EXACT_FRACTION 0.1f /* filters passing fewer nodes than this use an exact scan */

/* Inner product of two vectors of n floats. The index never picks one itself: callers pass the
 * kernel table's, hxi_kernels_get()->dot (cpu.h), and its rounding is the graph's. */
typedef float (*hxi_hnsw_dot_fn)(const float *a, const float *b, size_t n);

typedef struct hxi_hnsw_params {
    uint32_t dim;             /* vector dimension, required */
    hxi_hnsw_dot_fn dot;       /* inner product, required */
    uint32_t M;               /* links per node on levels >= 1, 2*M on level 0; 0 = 16 */
    uint32_t ef_construction; /* candidate list size while building, <= 65536; 0 = 200 */
    uint64_t seed;            /* level generator seed: level of node i is a function of (seed, i) */
} hxi_hnsw_params;

/* Filter: true when the node with this id may be returned. Called during the search, from the
 * searching thread, possibly more than once per id. */
typedef bool (*hxi_hnsw_filter_fn)(uint32_t id, void *ctx);

typedef struct hxi_hnsw_query {
    const float *vector;         /* dim floats, L2-normalised; borrowed for the call */
    uint32_t k;                  /* results wanted, >= 1 */
    uint32_t ef;                 /* candidate list size; 0 = 64; raised to k when smaller */
    hxi_hnsw_filter_fn filter;    /* NULL = every live node is allowed */
    void *filter_ctx;            /* passed to filter */
    float filter_fraction;       /* expected share of nodes passing the filter, in (0, 1];
                                  * 0 = estimate it by sampling up to 256 nodes */
    uint32_t exact_below;        /* fewer live nodes than this: exact scan; 0 = HX_HNSW_EXACT_BELOW */
    bool exact;                  /* force an exact scan */
} hxi_hnsw_query;

typedef struct hxi_hnsw_hit {
    uint32_t id;
    float score;                 /* inner product with the query */
} hxi_hnsw_hit;

/* What a search did (optional output). */
typedef struct hxi_hnsw_search_info {
    bool exact;                  /* answered by an exact scan (small index, selective filter,
                                  * or a graph search that found fewer than k allowed nodes) */
    uint32_t visited;            /* nodes whose similarity was computed */
} hxi_hnsw_search_info;

/* === Builder === */

typedef struct hxi_hnsw hxi_hnsw;

/* New empty builder. Caller frees with hxi_hnsw_free. */
int hxi_hnsw_new(hxi_hnsw **out, const hxi_hnsw_params *p, hx_error *err);
void hxi_hnsw_free(hxi_hnsw *h);

/* Adds one vector (copied) with id `id`; an id that is live already is refused (HX_EINVAL). */
int hxi_hnsw_add(hxi_hnsw *h, uint32_t id, const float *vec, hx_error *err);

/* Adds n vectors vecs[n * dim] (copied) with ids[n], using n_threads threads (0 or 1 = the
 * calling thread only). Nodes get indexes count..count+n-1 in input order whatever the threads.
 * Ids are checked (live or repeated ids are refused) before anything is added. */
int hxi_hnsw_add_batch(hxi_hnsw *h, const uint32_t *ids, const float *vecs, size_t n, int n_threads,
                       hx_error *err);

/* Tombstones the live node with this id (HX_ENOTFOUND if none). */
int hxi_hnsw_delete(hxi_hnsw *h, uint32_t id, hx_error *err);

uint32_t hxi_hnsw_count(const hxi_hnsw *h);        /* nodes, tombstoned ones included */
uint32_t hxi_hnsw_live_count(const hxi_hnsw *h);   /* nodes not tombstoned */
/* The vectors in node order, count * dim floats; borrowed until the next add or hxi_hnsw_free. */
const float *hxi_hnsw_vectors(const hxi_hnsw *h);

/* Top-k of the query: out[k] receives *n_out <= k hits, score descending then id ascending. */
int hxi_hnsw_search(const hxi_hnsw *h, const hxi_hnsw_query *q, hxi_hnsw_hit *out, uint32_t *n_out,
                    hxi_hnsw_search_info *info, hx_error *err);

/* Writes the serialized graph (format above) into buf[cap] and its size into *len. With buf NULL,
 * only *len is set; cap smaller than the size is HX_ERANGE. */
int hxi_hnsw_serialize(const hxi_hnsw *h, uint8_t *buf, size_t cap, size_t *len, hx_error *err);

/* === View of a serialized graph === */

typedef struct hxi_hnsw_view hxi_hnsw_view;

/* Validates the blob base[len] (4-byte aligned, e.g. a section of a read-only map) and opens a view
 * on it without copying. `vectors` holds n_floats floats, at least n * dim, in node order. Both
 * are borrowed until hxi_hnsw_view_close. `dot` (required) scores the searches, as in
 * hxi_hnsw_params. Corrupt bytes give HX_EFORMAT / HX_ETRUNCATED / HX_EVERSION / HX_ERANGE with the
 * offending byte offset in err. */
int hxi_hnsw_view_open(hxi_hnsw_view **out, const uint8_t *base, size_t len, const float *vectors,
                       size_t n_floats, hxi_hnsw_dot_fn dot, hx_error *err);
void hxi_hnsw_view_close(hxi_hnsw_view *v);
uint32_t hxi_hnsw_view_count(const hxi_hnsw_view *v);
uint32_t hxi_hnsw_view_dim(const hxi_hnsw_view *v);
uint32_t hxi_hnsw_view_label(const hxi_hnsw_view *v, uint32_t node);   /* id of node < count */

/* Same contract as hxi_hnsw_search. */
int hxi_hnsw_view_search(const hxi_hnsw_view *v, const hxi_hnsw_query *q, hxi_hnsw_hit *out,
                         uint32_t *n_out, hxi_hnsw_search_info *info, hx_error *err);

/* New builder holding a copy of the view's graph and vectors, to add to and serialize again
 * (incremental indexing). Parameters, seed and dot product come from the view. Caller frees with
 * hxi_hnsw_free; the view may be closed afterwards. Repeated live ids are refused (HX_EFORMAT). */
int hxi_hnsw_from_view(hxi_hnsw **out, const hxi_hnsw_view *v, hx_error *err);

#endif
