/* hnsw_internal.h: what hnsw.c (graph search), hnsw_build.c (builder, insertion rounds) and
 * hnsw_view.c (serialized format, validating view) share: the graph arrays, the candidate heaps, the
 * pooled search scratch, the layer search and the two handles. Private to the HNSW module (prefix
 * hn_); nothing outside src/hnsw*.c includes it. Spec: hnsw.h. */
#ifndef HX_HNSW_INTERNAL_H
#define HX_HNSW_INTERNAL_H

#include "hnsw.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hnsw*.c read their arrays in place and need a little-endian target"
#endif

#define NONE 0xFFFFFFFFu
#define MAX_DIM 65536u
#define MAX_M 256u
#define MAX_M0 512u
#define MAX_EFC 65536u

/* === Graph: the arrays the search reads, shared by builder and view === */

typedef struct hn_graph {
    uint32_t dim, n, M, M0, efc, max_level, entry, n_deleted, U;
    uint64_t seed;
    const float *vecs;         /* n * dim; builder-owned or borrowed by the view */
    const uint32_t *labels;    /* n */
    const uint32_t *upper_off; /* n */
    const uint32_t *level0;    /* n * (1 + M0) */
    const uint32_t *upper;     /* U */
    const uint8_t *levels;     /* n */
    const uint8_t *deleted;    /* n */
    hxi_hnsw_dot_fn dot;        /* the caller's, from hxi_hnsw_params or hxi_hnsw_view_open */
} hn_graph;

static inline const uint32_t *hn_links_of(const hn_graph *g, uint32_t i, uint32_t l)
{
    if (l == 0)
        return g->level0 + (size_t)i * (1 + g->M0);
    return g->upper + g->upper_off[i] + (size_t)(l - 1) * (1 + g->M);
}

static inline const float *hn_vec_of(const hn_graph *g, uint32_t i)
{
    return g->vecs + (size_t)i * g->dim;
}

/* Inner product with NaN mapped to -inf, so that every comparison below is a total order. */
static inline float hn_sim(const hn_graph *g, const float *q, uint32_t i)
{
    float s = g->dot(q, hn_vec_of(g, i), g->dim);
    return s == s ? s : -INFINITY;
}

/* === Heaps of (score, id) === */

typedef struct hn_cand {
    float s;
    uint32_t id;
} hn_cand;

/* a ranks before b: higher score, then lower id. */
static inline bool hn_before(hn_cand a, hn_cand b)
{
    return a.s > b.s || (a.s == b.s && a.id < b.id);
}

/* Binary heap; `max` puts the best candidate on top, otherwise the worst. */
typedef struct hn_heap {
    hn_cand *a;   /* owned by the scratch that holds the heap */
    size_t n, cap;
    bool max;
} hn_heap;

int hn_heap_push(hn_heap *h, hn_cand c);        /* 0 or HX_ENOMEM */
hn_cand hn_heap_pop(hn_heap *h);
/* Empties a worst-on-top heap into out[h->n], best first. */
size_t hn_heap_drain_sorted(hn_heap *h, hn_cand *out);

/* === Scratch: visited tags and buffers, pooled for concurrent searches === */

typedef struct hn_scratch {
    uint32_t *tags;            /* owned; tag_cap entries; node visited iff tags[i] == gen */
    uint32_t tag_cap, gen;
    hn_heap cands, top;
    hn_cand *sorted;           /* owned; sorted_cap entries */
    size_t sorted_cap;
    hn_cand *prune;            /* owned; MAX_M0 + 1 entries: a full list being pruned */
    uint32_t *fresh;           /* owned; MAX_M0 entries: unvisited neighbours */
    struct hn_scratch *next;
} hn_scratch;

typedef struct hn_pool {
    pthread_mutex_t mu;
    hn_scratch *free;          /* owned list */
} hn_pool;

/* A scratch whose tags cover n nodes, or NULL; caller returns it with hn_pool_put. */
hn_scratch *hn_pool_get(hn_pool *p, uint32_t n);
void hn_pool_put(hn_pool *p, hn_scratch *s);
void hn_pool_init(hn_pool *p);
void hn_pool_destroy(hn_pool *p);

/* === Layer search (hnsw.c) === */

/* Which nodes a search may keep (tombstones, the query's filter); NULL keeps every node. */
typedef struct hn_allow hn_allow;

/* Greedy walk from `cur` down to level `stop` + 1; returns the closest node found. */
uint32_t hn_greedy(const hn_graph *g, const float *q, uint32_t cur, uint32_t top_level, uint32_t stop,
                   uint32_t *visited);
/* Best-first search of level l from ep keeping the ef best allowed nodes in s->top (worst on top). */
int hn_search_layer(const hn_graph *g, hn_scratch *s, const float *q, uint32_t ep, uint32_t l, uint32_t ef,
                    const hn_allow *al, uint32_t *visited);
/* The neighbour heuristic: keeps at most m of c[n] (best first) in place; returns how many. */
size_t hn_select_neighbors(const hn_graph *g, hn_cand *c, size_t n, size_t m);
/* hxi_hnsw_search and hxi_hnsw_view_search over a graph and its scratch pool. */
int hn_graph_search(const hn_graph *g, hn_pool *pl, const hxi_hnsw_query *q, hxi_hnsw_hit *out,
                    uint32_t *n_out, hxi_hnsw_search_info *info, hx_error *err);

/* === The handles: builder (hnsw_build.c) and view (hnsw_view.c) === */

struct hxi_hnsw {
    hn_graph g;                /* const view of the arrays below */
    uint32_t cap;              /* nodes the arrays hold */
    uint32_t cap_upper;        /* u32s `upper` holds */
    float *vecs;               /* owned, cap * dim */
    uint32_t *labels, *upper_off, *level0, *upper;  /* owned */
    uint8_t *levels, *deleted;                      /* owned */
    uint32_t *map;             /* owned: open-addressing id -> node of live nodes, map_cap slots */
    uint32_t map_cap;
    double level_mult;
    hn_pool pool;
};

struct hxi_hnsw_view {
    hn_graph g;                /* arrays borrowed from the blob and the caller's vectors */
    hn_pool pool;
};

/* memcpy that accepts the NULL arrays of an empty builder. */
static inline void hn_copy(void *dst, const void *src, size_t n)
{
    if (n)
        memcpy(dst, src, n);
}

#endif
