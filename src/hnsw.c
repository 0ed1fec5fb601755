/* hnsw.c: the HNSW index (hnsw.h): builder, insertion in deterministic rounds on several threads,
 * neighbour heuristic, search with tombstones and filters, exact fallback, serialization and the
 * validating zero-copy view.
 * Must not touch vector storage in index files or the kernels (it only calls the dot kernel).
 * Spec: the format table in hnsw.h; algorithm after hnswlib's hnswalg.h (Malkov & Yashunin). */
#include "hnsw.h"

#include "cpu.h"
#include "hxfile.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hnsw.c reads its arrays in place and needs a little-endian target"
#endif

#define NONE 0xFFFFFFFFu
#define FILTER_SAMPLES 256u
#define MAX_DIM 65536u
#define MAX_M 256u
#define MAX_M0 512u
#define MAX_EFC 65536u

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

typedef float (*dot_fn)(const float *a, const float *b, size_t n);

/* === Graph: the arrays the search reads, shared by builder and view === */

typedef struct graph {
    uint32_t dim, n, M, M0, efc, max_level, entry, n_deleted, U;
    uint64_t seed;
    const float *vecs;         /* n * dim; builder-owned or borrowed by the view */
    const uint32_t *labels;    /* n */
    const uint32_t *upper_off; /* n */
    const uint32_t *level0;    /* n * (1 + M0) */
    const uint32_t *upper;     /* U */
    const uint8_t *levels;     /* n */
    const uint8_t *deleted;    /* n */
    dot_fn dot;
} graph;

static inline const uint32_t *links_of(const graph *g, uint32_t i, uint32_t l)
{
    if (l == 0)
        return g->level0 + (size_t)i * (1 + g->M0);
    return g->upper + g->upper_off[i] + (size_t)(l - 1) * (1 + g->M);
}

static inline const float *vec_of(const graph *g, uint32_t i)
{
    return g->vecs + (size_t)i * g->dim;
}

/* Prefetches a vector past its first cache line (search_layer prefetches that one early); the
 * hardware prefetcher alone stops at page boundaries and starts late on a random vector. */
static inline void prefetch_rest(const float *v, uint32_t dim)
{
    const char *p = (const char *)v;
    for (size_t b = 64; b < (size_t)dim * sizeof *v; b += 64)
        PREFETCH(p + b);
}

/* Inner product with NaN mapped to -inf, so that every comparison below is a total order. */
static inline float sim(const graph *g, const float *q, uint32_t i)
{
    float s = g->dot(q, vec_of(g, i), g->dim);
    return s == s ? s : -INFINITY;
}

/* Portable dot product with eight independent sums, which compilers vectorise; used when the kernel
 * table in use is the scalar reference, whose single running sum cannot be vectorised. */
static float dot_unrolled(const float *a, const float *b, size_t n)
{
    float s[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            s[j] += a[i + j] * b[i + j];
    for (; i < n; i++)
        s[0] += a[i] * b[i];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

static dot_fn pick_dot(void)
{
    return hx_cpu_isa() == HX_ISA_SCALAR ? dot_unrolled : hx_kernels_get()->dot;
}

/* === Heaps of (score, id) === */

typedef struct cand {
    float s;
    uint32_t id;
} cand;

/* a ranks before b: higher score, then lower id. */
static inline bool before(cand a, cand b)
{
    return a.s > b.s || (a.s == b.s && a.id < b.id);
}

/* Binary heap; `max` puts the best candidate on top, otherwise the worst. */
typedef struct heap {
    cand *a;   /* owned by the scratch that holds the heap */
    size_t n, cap;
    bool max;
} heap;

static inline bool heap_above(const heap *h, cand x, cand y)
{
    return h->max ? before(x, y) : before(y, x);
}

static int heap_reserve(heap *h, size_t need)
{
    if (need <= h->cap)
        return 0;
    size_t cap = h->cap ? h->cap : 64;
    while (cap < need)
        cap *= 2;
    cand *a = realloc(h->a, cap * sizeof *a);
    if (!a)
        return HX_ENOMEM;
    h->a = a;
    h->cap = cap;
    return 0;
}

static int heap_push(heap *h, cand c)
{
    if (h->n == h->cap && heap_reserve(h, h->n + 1))
        return HX_ENOMEM;
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_above(h, c, h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = c;
    return 0;
}

static cand heap_pop(heap *h)
{
    cand top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && heap_above(h, h->a[c + 1], h->a[c]))
            c++;
        if (!heap_above(h, h->a[c], last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

/* Empties a worst-on-top heap into out[h->n], best first. */
static size_t heap_drain_sorted(heap *h, cand *out)
{
    size_t n = h->n;
    while (h->n)
        out[h->n - 1] = heap_pop(h);
    return n;
}

/* === Scratch: visited tags and buffers, pooled for concurrent searches === */

typedef struct scratch {
    uint32_t *tags;            /* owned; tag_cap entries; node visited iff tags[i] == gen */
    uint32_t tag_cap, gen;
    heap cands, top;
    cand *sorted;              /* owned; sorted_cap entries */
    size_t sorted_cap;
    cand *prune;               /* owned; MAX_M0 + 1 entries: a full list being pruned */
    uint32_t *fresh;           /* owned; MAX_M0 entries: unvisited neighbours */
    struct scratch *next;
} scratch;

typedef struct pool {
    pthread_mutex_t mu;
    scratch *free;             /* owned list */
} pool;

static void scratch_free(scratch *s)
{
    if (!s)
        return;
    free(s->tags);
    free(s->cands.a);
    free(s->top.a);
    free(s->sorted);
    free(s->prune);
    free(s->fresh);
    free(s);
}

/* A scratch whose tags cover n nodes; caller returns it with pool_put. */
static scratch *pool_get(pool *p, uint32_t n)
{
    pthread_mutex_lock(&p->mu);
    scratch *s = p->free;
    if (s)
        p->free = s->next;
    pthread_mutex_unlock(&p->mu);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        s->cands.max = true;
        s->fresh = malloc(MAX_M0 * sizeof *s->fresh);
        s->prune = malloc((MAX_M0 + 1) * sizeof *s->prune);
        if (!s->fresh || !s->prune) {
            scratch_free(s);
            return NULL;
        }
    }
    if (s->tag_cap < n) {
        uint32_t *t = calloc(n, sizeof *t);
        if (!t) {
            scratch_free(s);
            return NULL;
        }
        free(s->tags);
        s->tags = t;
        s->tag_cap = n;
        s->gen = 0;
    }
    return s;
}

/* Starts a new visited set. */
static void next_gen(scratch *s)
{
    if (++s->gen == 0) {
        memset(s->tags, 0, (size_t)s->tag_cap * sizeof *s->tags);
        s->gen = 1;
    }
}

static void pool_put(pool *p, scratch *s)
{
    pthread_mutex_lock(&p->mu);
    s->next = p->free;
    p->free = s;
    pthread_mutex_unlock(&p->mu);
}

static void pool_init(pool *p)
{
    pthread_mutex_init(&p->mu, NULL);
    p->free = NULL;
}

static void pool_destroy(pool *p)
{
    while (p->free) {
        scratch *s = p->free;
        p->free = s->next;
        scratch_free(s);
    }
    pthread_mutex_destroy(&p->mu);
}

static int sorted_reserve(scratch *s, size_t n)
{
    if (n <= s->sorted_cap)
        return 0;
    cand *a = realloc(s->sorted, n * sizeof *a);
    if (!a)
        return HX_ENOMEM;
    s->sorted = a;
    s->sorted_cap = n;
    return 0;
}

/* === Layer search === */

typedef struct allow {
    hx_hnsw_filter_fn fn;      /* NULL: everything passes */
    void *ctx;
    bool skip_deleted;
} allow;

static inline bool allowed(const graph *g, const allow *a, uint32_t i)
{
    if (!a)
        return true;
    if (a->skip_deleted && g->deleted[i])
        return false;
    return !a->fn || a->fn(g->labels[i], a->ctx);
}

/* Greedy walk from `cur` down to level `stop` + 1; returns the closest node found. */
static uint32_t greedy(const graph *g, const float *q, uint32_t cur, uint32_t top_level, uint32_t stop,
                       uint32_t *visited)
{
    float cur_s = sim(g, q, cur);
    ++*visited;
    for (uint32_t l = top_level; l > stop; l--) {
        bool changed = true;
        while (changed) {
            changed = false;
            const uint32_t *ln = links_of(g, cur, l);
            uint32_t cnt = ln[0];
            for (uint32_t j = 1; j <= cnt; j++) {
                float v = sim(g, q, ln[j]);
                ++*visited;
                if (v > cur_s) {
                    cur_s = v;
                    cur = ln[j];
                    changed = true;
                }
            }
        }
    }
    return cur;
}

/* hnswlib's searchBaseLayer: best-first search of level l from ep keeping the ef best allowed
 * nodes in s->top (worst on top). Nodes that are not allowed are traversed but not kept. */
static int search_layer(const graph *g, scratch *s, const float *q, uint32_t ep, uint32_t l, uint32_t ef,
                        const allow *al, uint32_t *visited)
{
    heap *cands = &s->cands, *top = &s->top;
    cands->n = top->n = 0;
    next_gen(s);
    if (heap_reserve(top, (size_t)ef + 1))
        return HX_ENOMEM;
    cand e = {sim(g, q, ep), ep};
    ++*visited;
    s->tags[ep] = s->gen;
    if (allowed(g, al, ep))
        heap_push(top, e);
    if (heap_push(cands, e))
        return HX_ENOMEM;
    while (cands->n) {
        cand c = cands->a[0];
        if (top->n == ef && c.s < top->a[0].s)
            break;
        heap_pop(cands);
        const uint32_t *ln = links_of(g, c.id, l);
        uint32_t cnt = ln[0], nf = 0;
        for (uint32_t j = 1; j <= cnt; j++) {
            uint32_t v = ln[j];
            if (s->tags[v] == s->gen)
                continue;
            s->tags[v] = s->gen;
            PREFETCH(vec_of(g, v));
            s->fresh[nf++] = v;
        }
        for (uint32_t j = 0; j < nf; j++) {
            uint32_t v = s->fresh[j];
            if (j + 1 < nf)   /* the rest of the next vector (24 lines at 384 dims) while this one scores */
                prefetch_rest(vec_of(g, s->fresh[j + 1]), g->dim);
            cand x = {sim(g, q, v), v};
            ++*visited;
            if (top->n < ef || x.s > top->a[0].s) {
                if (heap_push(cands, x))
                    return HX_ENOMEM;
                if (allowed(g, al, v)) {
                    heap_push(top, x);
                    if (top->n > ef)
                        heap_pop(top);
                }
            }
        }
    }
    return 0;
}

/* hnswlib's getNeighborsByHeuristic2: from c[n] (best first, scores against the base vector) keep
 * a candidate only if it is closer to the base than to every one kept so far; at most m. */
static size_t select_neighbors(const graph *g, cand *c, size_t n, size_t m)
{
    if (n <= m)
        return n;
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < m; i++) {
        const float *v = vec_of(g, c[i].id);
        bool good = true;
        for (size_t j = 0; j < kept && good; j++) {
            float d = g->dot(v, vec_of(g, c[j].id), g->dim);
            if (d > c[i].s)
                good = false;
        }
        if (good)
            c[kept++] = c[i];
    }
    return kept;
}

/* === Search shared by builder and view === */

static int exact_scan(const graph *g, scratch *s, const float *q, uint32_t k, const allow *al,
                      uint32_t *visited)
{
    heap *top = &s->top;
    top->n = 0;
    if (heap_reserve(top, (size_t)k + 1))
        return HX_ENOMEM;
    for (uint32_t i = 0; i < g->n; i++) {
        if (!allowed(g, al, i))
            continue;
        cand x = {sim(g, q, i), g->labels[i]};   /* ids are labels here: ties break on them */
        ++*visited;
        if (top->n < k || before(x, top->a[0])) {
            heap_push(top, x);
            if (top->n > k)
                heap_pop(top);
        }
    }
    return 0;
}

/* Share of nodes that are live and pass the filter: given, or sampled evenly over the nodes. */
static float pass_fraction(const graph *g, const hx_hnsw_query *q, const allow *al)
{
    float live = (float)(g->n - g->n_deleted) / (float)g->n;
    if (!q->filter)
        return live;
    if (q->filter_fraction > 0)
        return q->filter_fraction * live;
    uint32_t samples = g->n < FILTER_SAMPLES ? g->n : FILTER_SAMPLES, pass = 0;
    for (uint32_t j = 0; j < samples; j++)
        pass += allowed(g, al, (uint32_t)((uint64_t)j * g->n / samples));
    return (float)pass / (float)samples;
}

static int graph_search(const graph *g, pool *pl, const hx_hnsw_query *q, hx_hnsw_hit *out,
                        uint32_t *n_out, hx_hnsw_search_info *info, hx_error *err)
{
    if (!q || !q->vector || q->k == 0 || !out || !n_out)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: query vector, k >= 1 and outputs needed");
    if (q->filter_fraction < 0 || q->filter_fraction > 1)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: filter_fraction %g outside [0, 1]",
                            (double)q->filter_fraction);
    *n_out = 0;
    hx_hnsw_search_info local = {false, 0};
    if (g->n == 0) {
        if (info)
            *info = local;
        return 0;
    }
    uint32_t k = q->k < g->n ? q->k : g->n;   /* neither k nor ef need exceed the node count */
    uint32_t ef = q->ef ? q->ef : HX_HNSW_DEFAULT_EF;
    if (ef > g->n)
        ef = g->n;
    if (ef < k)
        ef = k;
    uint32_t exact_below = q->exact_below ? q->exact_below : HX_HNSW_EXACT_BELOW;
    allow al = {q->filter, q->filter_ctx, true};
    scratch *s = pool_get(pl, g->n);
    if (!s)
        return hx_error_set(err, HX_ENOMEM, -1, "hnsw search: out of memory");
    int rc = 0;
    bool exact = q->exact || g->n - g->n_deleted < exact_below ||
                 pass_fraction(g, q, &al) < HX_HNSW_FILTER_EXACT_FRACTION;
    if (!exact) {
        uint32_t ep = greedy(g, q->vector, g->entry, g->max_level, 0, &local.visited);
        rc = search_layer(g, s, q->vector, ep, 0, ef, &al, &local.visited);
        if (rc == 0 && s->top.n < k)
            exact = true;   /* the allowed nodes the graph reached are too few: scan them all */
    }
    if (rc == 0 && exact)
        rc = exact_scan(g, s, q->vector, k, &al, &local.visited);
    if (rc == 0)
        rc = sorted_reserve(s, s->top.n);
    if (rc) {
        pool_put(pl, s);
        return hx_error_set(err, rc, -1, "hnsw search: out of memory");
    }
    size_t n = heap_drain_sorted(&s->top, s->sorted);
    if (!exact) {
        /* The graph search keeps node indexes and breaks ties on them; ties must rank by id. */
        for (size_t i = 0; i < n; i++)
            s->sorted[i].id = g->labels[s->sorted[i].id];
        for (size_t i = 1; i < n; i++) {
            cand x = s->sorted[i];
            size_t j = i;
            while (j > 0 && before(x, s->sorted[j - 1])) {
                s->sorted[j] = s->sorted[j - 1];
                j--;
            }
            s->sorted[j] = x;
        }
    }
    if (n > k)
        n = k;
    for (size_t i = 0; i < n; i++) {
        out[i].id = s->sorted[i].id;
        out[i].score = s->sorted[i].s;
    }
    *n_out = (uint32_t)n;
    local.exact = exact;
    if (info)
        *info = local;
    pool_put(pl, s);
    return 0;
}

/* === Builder === */

struct hx_hnsw {
    graph g;                   /* const view of the arrays below */
    uint32_t cap;              /* nodes the arrays hold */
    uint32_t cap_upper;        /* u32s `upper` holds */
    float *vecs;               /* owned, cap * dim */
    uint32_t *labels, *upper_off, *level0, *upper;  /* owned */
    uint8_t *levels, *deleted;                      /* owned */
    uint32_t *map;             /* owned: open-addressing id -> node of live nodes, map_cap slots */
    uint32_t map_cap;
    double level_mult;
    pool pool;
};

static void sync_graph(hx_hnsw *h)
{
    h->g.vecs = h->vecs;
    h->g.labels = h->labels;
    h->g.upper_off = h->upper_off;
    h->g.level0 = h->level0;
    h->g.upper = h->upper;
    h->g.levels = h->levels;
    h->g.deleted = h->deleted;
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* hnswlib's getRandomLevel, with the uniform draw a function of (seed, node index). */
static uint32_t level_for(const hx_hnsw *h, uint32_t i)
{
    uint64_t x = splitmix64(h->g.seed ^ splitmix64(i));
    double u = ((double)(x >> 11) + 0.5) * 0x1p-53;
    double l = -log(u) * h->level_mult;
    return l >= HX_HNSW_MAX_LEVEL ? HX_HNSW_MAX_LEVEL : (uint32_t)l;
}

/* --- id map --- */

static inline uint32_t map_slot(uint32_t id, uint32_t mask)
{
    uint32_t x = id;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x & mask;
}

static uint32_t map_find(const hx_hnsw *h, uint32_t id)
{
    if (!h->map_cap)
        return NONE;
    uint32_t mask = h->map_cap - 1;
    for (uint32_t i = map_slot(id, mask);; i = (i + 1) & mask) {
        uint32_t node = h->map[i];
        if (node == NONE || h->labels[node] == id)
            return node;
    }
}

static void map_insert_raw(uint32_t *map, uint32_t mask, const uint32_t *labels, uint32_t node)
{
    uint32_t i = map_slot(labels[node], mask);
    while (map[i] != NONE)
        i = (i + 1) & mask;
    map[i] = node;
}

/* Room for `need` live ids at load factor <= 1/2. */
static int map_reserve(hx_hnsw *h, uint32_t need)
{
    uint64_t want = 16;
    while (want < 2 * (uint64_t)need)
        want *= 2;
    if (want <= h->map_cap)
        return 0;
    if (want > UINT32_MAX)
        return HX_ERANGE;
    uint32_t *m = malloc(want * sizeof *m);
    if (!m)
        return HX_ENOMEM;
    memset(m, 0xFF, want * sizeof *m);
    for (uint32_t i = 0; i < h->map_cap; i++)
        if (h->map[i] != NONE)
            map_insert_raw(m, (uint32_t)want - 1, h->labels, h->map[i]);
    free(h->map);
    h->map = m;
    h->map_cap = (uint32_t)want;
    return 0;
}

/* Removes `node` (linear probing with backward shift, no tombstones). */
static void map_remove(hx_hnsw *h, uint32_t node)
{
    uint32_t mask = h->map_cap - 1, i = map_slot(h->labels[node], mask);
    while (h->map[i] != node)
        i = (i + 1) & mask;
    for (uint32_t j = (i + 1) & mask; h->map[j] != NONE; j = (j + 1) & mask) {
        uint32_t home = map_slot(h->labels[h->map[j]], mask);
        /* move j into the hole at i unless its home lies cyclically in (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            h->map[i] = h->map[j];
            i = j;
        }
    }
    h->map[i] = NONE;
}

/* --- lifecycle --- */

static int builder_alloc(hx_hnsw **out, uint32_t dim, uint32_t M, uint32_t M0, uint32_t efc,
                         uint64_t seed, hx_error *err)
{
    hx_hnsw *h = calloc(1, sizeof *h);
    if (!h)
        return hx_error_set(err, HX_ENOMEM, -1, "hnsw: out of memory");
    h->g.dim = dim;
    h->g.M = M;
    h->g.M0 = M0;
    h->g.efc = efc;
    h->g.seed = seed;
    h->g.entry = NONE;
    h->g.dot = pick_dot();
    h->level_mult = 1.0 / log((double)M);
    pool_init(&h->pool);
    *out = h;
    return 0;
}

int hx_hnsw_new(hx_hnsw **out, const hx_hnsw_params *p, hx_error *err)
{
    if (!out || !p)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: output and params needed");
    *out = NULL;
    uint32_t M = p->M ? p->M : HX_HNSW_DEFAULT_M;
    uint32_t efc = p->ef_construction ? p->ef_construction : HX_HNSW_DEFAULT_EF_CONSTRUCTION;
    if (p->dim == 0 || p->dim > MAX_DIM)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: dim %u outside 1..%u", p->dim, MAX_DIM);
    if (M < 2 || M > MAX_M)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: M %u outside 2..%u", M, MAX_M);
    if (efc > MAX_EFC)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: ef_construction %u above %u", efc, MAX_EFC);
    return builder_alloc(out, p->dim, M, 2 * M, efc, p->seed, err);
}

void hx_hnsw_free(hx_hnsw *h)
{
    if (!h)
        return;
    free(h->vecs);
    free(h->labels);
    free(h->upper_off);
    free(h->level0);
    free(h->upper);
    free(h->levels);
    free(h->deleted);
    free(h->map);
    pool_destroy(&h->pool);
    free(h);
}

uint32_t hx_hnsw_count(const hx_hnsw *h) { return h->g.n; }
uint32_t hx_hnsw_live_count(const hx_hnsw *h) { return h->g.n - h->g.n_deleted; }
const float *hx_hnsw_vectors(const hx_hnsw *h) { return h->vecs; }

static int grow(void **p, size_t elem, uint64_t old_n, uint64_t new_n)
{
    if ((uint64_t)SIZE_MAX / elem < new_n)
        return HX_ENOMEM;
    void *q = realloc(*p, new_n ? (size_t)new_n * elem : 1);
    if (!q)
        return HX_ENOMEM;
    memset((char *)q + old_n * elem, 0, (size_t)(new_n - old_n) * elem);
    *p = q;
    return 0;
}

/* Room for n_nodes nodes and n_upper upper-link u32s. */
static int reserve(hx_hnsw *h, uint32_t n_nodes, uint32_t n_upper)
{
    int rc = 0;
    if (n_nodes > h->cap) {
        uint64_t c = h->cap ? h->cap : 64;
        while (c < n_nodes)
            c *= 2;
        if (c > NONE)
            c = NONE;
        uint64_t s0 = 1 + (uint64_t)h->g.M0, old = h->cap;
        if ((rc = grow((void **)&h->vecs, sizeof(float) * h->g.dim, old, c)) ||
            (rc = grow((void **)&h->labels, 4, old, c)) ||
            (rc = grow((void **)&h->upper_off, 4, old, c)) ||
            (rc = grow((void **)&h->level0, 4 * s0, old, c)) ||
            (rc = grow((void **)&h->levels, 1, old, c)) ||
            (rc = grow((void **)&h->deleted, 1, old, c))) {
            sync_graph(h);
            return rc;
        }
        h->cap = (uint32_t)c;
    }
    if (n_upper > h->cap_upper) {
        uint64_t c = h->cap_upper ? h->cap_upper : 1024;
        while (c < n_upper)
            c *= 2;
        if (c > UINT32_MAX)
            c = UINT32_MAX;
        if ((rc = grow((void **)&h->upper, 4, h->cap_upper, c)) == 0)
            h->cap_upper = (uint32_t)c;
    }
    sync_graph(h);
    return rc;
}

/* --- insertion, in rounds ---
 *
 * A batch is linked in an insertion order that puts higher levels first and shuffles each level
 * (seeded), as faiss does: the upper layers are complete before the bulk arrives, and input that
 * comes in runs of similar vectors (consecutive chunks of one document) does not build a graph
 * along those runs. The order is cut into rounds. Within a round each node chooses its neighbours
 * (hnswlib's addPoint search and heuristic) against the graph as it stood when the round began,
 * plus the round's earlier nodes compared directly, so it sees every node before it as a
 * one-by-one insertion would. Then every node gets its own lists and is linked back into its
 * neighbours' lists, each list edited by one thread, in insertion order. Nothing depends on which
 * thread did what: the graph is the same for any number of threads. Rounds grow with the graph (at
 * most 1/ROUND_DIV of the nodes already linked, at most MAX_ROUND). */

#define MAX_ROUND 256u
#define ROUND_DIV 8u

/* Adds `node` to the list of `nb` at level l, pruning with the heuristic when it is full. */
static void connect(const graph *g, scratch *s, uint32_t nb, uint32_t node, uint32_t l)
{
    uint32_t max = l ? g->M : g->M0;
    uint32_t *ln = (uint32_t *)links_of(g, nb, l);
    uint32_t cnt = ln[0];
    if (cnt < max) {
        ln[1 + cnt] = node;
        ln[0] = cnt + 1;
        return;
    }
    const float *base = vec_of(g, nb);
    cand *c = s->prune;
    size_t n = 0;
    for (uint32_t j = 1; j <= cnt; j++)
        c[n++] = (cand){sim(g, base, ln[j]), ln[j]};
    c[n++] = (cand){sim(g, base, node), node};
    for (size_t i = 1; i < n; i++) {
        cand x = c[i];
        size_t j = i;
        while (j > 0 && before(x, c[j - 1])) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
    size_t kept = select_neighbors(g, c, n, max);
    for (size_t j = 0; j < kept; j++)
        ln[1 + j] = c[j].id;
    for (size_t j = kept; j < max; j++)
        ln[1 + j] = 0;
    ln[0] = (uint32_t)kept;
}

/* A barrier whose party count may be lowered until its first use, for when fewer threads than
 * asked for could be started. */
typedef struct barrier {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned parties, arrived, generation;
} barrier;

static void barrier_wait(barrier *b)
{
    pthread_mutex_lock(&b->mu);
    unsigned gen = b->generation;
    if (++b->arrived == b->parties) {
        b->arrived = 0;
        b->generation++;
        pthread_cond_broadcast(&b->cv);
    } else {
        while (gen == b->generation)
            pthread_cond_wait(&b->cv, &b->mu);
    }
    pthread_mutex_unlock(&b->mu);
}

/* One batch being linked, shared by the threads of hx_hnsw_add_batch. */
typedef struct rounds {
    hx_hnsw *h;
    uint32_t *order;           /* owned: the batch's nodes in insertion order */
    uint32_t *pos;             /* owned: pos[node - batch_first] = its place in order */
    uint32_t batch_first, n;   /* the batch: nodes batch_first .. batch_first + n - 1 */
    uint32_t first, end;       /* the current round: order[first .. end - 1] */
    uint32_t ep, top;          /* entry point and top level when the round began (ep NONE: empty) */
    uint32_t *chosen;          /* per round node k, at chosen_off[k] + l * (1 + M): [count, ids] */
    uint32_t chosen_off[MAX_ROUND];
    uint32_t n_threads;
    barrier barrier;
    atomic_uint next;          /* next node to choose for */
    atomic_int rc;
} rounds;

/* Sets up the round after the current one; false when the batch is done. Run by one thread. */
static bool next_round(rounds *r)
{
    graph *g = &r->h->g;
    if (atomic_load(&r->rc))
        return false;
    for (uint32_t p = r->first; p < r->end; p++) {   /* as one-by-one: a higher node becomes entry */
        uint32_t i = r->order[p];
        if (g->entry == NONE || g->levels[i] > g->max_level) {
            g->entry = i;
            g->max_level = g->levels[i];
        }
    }
    if (r->end == r->n)
        return false;
    uint32_t size = (r->batch_first + r->end) / ROUND_DIV;
    size = size < 1 ? 1 : size > MAX_ROUND ? MAX_ROUND : size;
    r->first = r->end;
    r->end = r->n - r->first < size ? r->n : r->first + size;
    r->ep = g->entry;
    r->top = g->max_level;
    uint32_t off = 0;
    for (uint32_t p = r->first; p < r->end; p++) {
        r->chosen_off[p - r->first] = off;
        off += (g->levels[r->order[p]] + 1u) * (1 + g->M);
    }
    atomic_store(&r->next, r->first);
    return true;
}

/* The chosen list, [count, ids], of the node at place p of the order (in this round), level l. */
static uint32_t *chosen_at(const rounds *r, uint32_t p, uint32_t l)
{
    return r->chosen + r->chosen_off[p - r->first] + (size_t)l * (1 + r->h->g.M);
}

/* Whether `node` was linked before the current round. */
static bool linked(const rounds *r, uint32_t node)
{
    return node < r->batch_first || r->pos[node - r->batch_first] < r->first;
}

/* The neighbours at each of its levels of the node at place p of the order, into r->chosen. Reads
 * only lists of nodes linked before the round (which no thread writes during this phase) and
 * vectors. */
static int choose(const rounds *r, scratch *s, uint32_t p)
{
    const graph *g = &r->h->g;
    uint32_t i = r->order[p];
    const float *q = vec_of(g, i);
    uint32_t level = g->levels[i], visited = 0, cur = r->ep;
    if (cur != NONE)
        cur = greedy(g, q, cur, r->top, level, &visited);
    for (uint32_t l = level;; l--) {
        heap *top = &s->top;
        top->n = 0;
        if (cur != NONE && l <= r->top) {
            int rc = search_layer(g, s, q, cur, l, g->efc, NULL, &visited);
            if (rc)
                return rc;
        } else if (heap_reserve(top, (size_t)g->efc + 1)) {
            return HX_ENOMEM;
        }
        for (uint32_t e = r->first; e < p; e++) {   /* the round's earlier nodes, as if linked */
            uint32_t j = r->order[e];
            if (g->levels[j] < l)
                continue;
            cand x = {sim(g, q, j), j};
            if (top->n < g->efc || before(x, top->a[0])) {
                heap_push(top, x);
                if (top->n > g->efc)
                    heap_pop(top);
            }
        }
        size_t n = heap_drain_sorted(top, s->sorted);
        for (size_t j = 0; j < n; j++)
            if (linked(r, s->sorted[j].id)) {   /* the next level starts from the best linked node */
                cur = s->sorted[j].id;
                break;
            }
        size_t kept = select_neighbors(g, s->sorted, n, g->M);
        uint32_t *out = chosen_at(r, p, l);
        out[0] = (uint32_t)kept;
        for (size_t j = 0; j < kept; j++)
            out[1 + j] = s->sorted[j].id;
        if (l == 0)
            return 0;
    }
}

/* Thread `t` of n: writes the chosen lists of the round's nodes it owns (node % n == t), then links
 * each round node, in insertion order, into the lists it owns. */
static void link_round(const rounds *r, scratch *s, uint32_t t)
{
    const graph *g = &r->h->g;
    uint32_t n = r->n_threads;
    for (uint32_t p = r->first; p < r->end; p++) {
        uint32_t i = r->order[p];
        if (i % n != t)
            continue;
        for (uint32_t l = 0; l <= g->levels[i]; l++) {
            const uint32_t *src = chosen_at(r, p, l);
            uint32_t *own = (uint32_t *)links_of(g, i, l), slots = l ? g->M : g->M0;
            memcpy(own, src, ((size_t)src[0] + 1) * sizeof *own);
            memset(own + 1 + src[0], 0, (size_t)(slots - src[0]) * sizeof *own);
        }
    }
    for (uint32_t p = r->first; p < r->end; p++) {
        uint32_t i = r->order[p];
        for (uint32_t l = 0; l <= g->levels[i]; l++) {
            const uint32_t *src = chosen_at(r, p, l);
            for (uint32_t j = 1; j <= src[0]; j++)
                if (src[j] % n == t)
                    connect(g, s, src[j], i, l);
        }
    }
}

/* The body of every thread: rounds of choose (nodes handed out one at a time), barrier, link,
 * barrier, and thread 0 alone sets up the next round between two barriers. */
typedef struct worker_arg {
    rounds *r;
    uint32_t t;
} worker_arg;

static void *round_worker(void *arg)
{
    rounds *r = ((worker_arg *)arg)->r;
    uint32_t t = ((worker_arg *)arg)->t;
    scratch *s = pool_get(&r->h->pool, r->h->g.n);
    if (!s || sorted_reserve(s, (size_t)r->h->g.efc + 1))
        atomic_store(&r->rc, HX_ENOMEM);
    for (;;) {
        barrier_wait(&r->barrier);   /* round set up (or the batch over) */
        if (r->first == r->end)
            break;
        for (uint32_t p; !atomic_load(&r->rc) && (p = atomic_fetch_add(&r->next, 1)) < r->end;) {
            int rc = choose(r, s, p);
            if (rc)
                atomic_store(&r->rc, rc);
        }
        barrier_wait(&r->barrier);
        if (!atomic_load(&r->rc))
            link_round(r, s, t);
        barrier_wait(&r->barrier);
        if (t == 0 && !next_round(r))
            r->first = r->end;   /* tells every thread, after the next barrier, to stop */
    }
    if (s)
        pool_put(&r->h->pool, s);
    return NULL;
}

/* Fills r->order (levels from the top down, each level shuffled with the graph's seed) and r->pos. */
static void insertion_order(rounds *r)
{
    const graph *g = &r->h->g;
    uint32_t count[HX_HNSW_MAX_LEVEL + 2] = {0};
    for (uint32_t k = 0; k < r->n; k++)
        count[HX_HNSW_MAX_LEVEL - g->levels[r->batch_first + k] + 1]++;
    for (uint32_t l = 1; l <= HX_HNSW_MAX_LEVEL + 1; l++)
        count[l] += count[l - 1];   /* count[x]: where the x-th level from the top starts */
    for (uint32_t k = 0; k < r->n; k++)
        r->order[count[HX_HNSW_MAX_LEVEL - g->levels[r->batch_first + k]]++] = r->batch_first + k;
    uint64_t x = g->seed ^ 0x5348554646u;   /* "SHUFF" */
    for (uint32_t lo = 0, hi; lo < r->n; lo = hi) {
        uint32_t level = g->levels[r->order[lo]];
        for (hi = lo + 1; hi < r->n && g->levels[r->order[hi]] == level; hi++)
            ;
        for (uint32_t k = hi - 1; k > lo; k--) {   /* Fisher-Yates over order[lo .. hi) */
            x = splitmix64(x);
            uint32_t j = lo + (uint32_t)(x % (k - lo + 1));
            uint32_t t = r->order[k];
            r->order[k] = r->order[j];
            r->order[j] = t;
        }
    }
    for (uint32_t p = 0; p < r->n; p++)
        r->pos[r->order[p] - r->batch_first] = p;
}

/* Links r's batch on up to `want` threads (the caller's included); the batch's error or 0. */
static int run_rounds(rounds *r, uint32_t want)
{
    insertion_order(r);
    pthread_mutex_init(&r->barrier.mu, NULL);
    pthread_cond_init(&r->barrier.cv, NULL);
    r->barrier.parties = want;
    if (!next_round(r))
        r->first = r->end;
    pthread_t th[64];
    worker_arg args[64];
    uint32_t started = 1;
    for (; started < want; started++) {
        args[started] = (worker_arg){r, started};
        if (pthread_create(&th[started], NULL, round_worker, &args[started]))
            break;
    }
    /* Fewer threads than asked for: the started ones wait at the first barrier, which cannot
     * open before this thread reaches it, so the count can still shrink (the graph is the same). */
    pthread_mutex_lock(&r->barrier.mu);
    r->barrier.parties = started;
    r->n_threads = started;
    pthread_mutex_unlock(&r->barrier.mu);
    args[0] = (worker_arg){r, 0};
    round_worker(&args[0]);
    for (uint32_t i = 1; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_cond_destroy(&r->barrier.cv);
    pthread_mutex_destroy(&r->barrier.mu);
    return atomic_load(&r->rc);
}

static int link_batch(hx_hnsw *h, uint32_t first, uint32_t end, int n_threads)
{
    uint32_t want = n_threads < 1 ? 1 : n_threads > 64 ? 64 : (uint32_t)n_threads;
    if (want > end - first)
        want = end - first;
    rounds r = {.h = h, .batch_first = first, .n = end - first, .n_threads = want};
    atomic_init(&r.next, 0);
    atomic_init(&r.rc, 0);
    r.chosen = malloc((size_t)MAX_ROUND * (HX_HNSW_MAX_LEVEL + 1) * (1 + h->g.M) * sizeof *r.chosen);
    r.order = malloc(sizeof *r.order * r.n);
    r.pos = malloc(sizeof *r.pos * r.n);
    int rc = r.chosen && r.order && r.pos ? run_rounds(&r, want) : HX_ENOMEM;
    free(r.chosen);
    free(r.order);
    free(r.pos);
    return rc;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int hx_hnsw_add_batch(hx_hnsw *h, const uint32_t *ids, const float *vecs, size_t n, int n_threads,
                      hx_error *err)
{
    if (!h || (n && (!ids || !vecs)))
        return hx_error_set(err, HX_EINVAL, -1, "hnsw add: builder, ids and vectors needed");
    if (n == 0)
        return 0;
    graph *g = &h->g;
    if (n > (size_t)(NONE - 1 - g->n))
        return hx_error_set(err, HX_ERANGE, -1, "hnsw add: more than %u nodes", NONE - 1);
    uint32_t first = g->n, end = (uint32_t)(first + n);

    /* Refuse live or repeated ids before changing anything. */
    uint32_t *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return hx_error_set(err, HX_ENOMEM, -1, "hnsw add: out of memory");
    memcpy(sorted, ids, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_u32);
    for (size_t i = 0; i < n; i++) {
        if ((i && sorted[i] == sorted[i - 1]) || map_find(h, sorted[i]) != NONE) {
            uint32_t id = sorted[i];
            free(sorted);
            return hx_error_set(err, HX_EINVAL, -1, "hnsw add: id %u is already in the index", id);
        }
    }
    free(sorted);

    /* Levels decide where each node's upper lists go. */
    uint64_t U = g->U;
    for (uint32_t i = first; i < end; i++)
        U += (uint64_t)level_for(h, i) * (1 + g->M);
    if (U > UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "hnsw add: upper links exceed 2^32 entries");
    int rc = reserve(h, end, (uint32_t)U);
    if (rc == 0)
        rc = map_reserve(h, g->n - g->n_deleted + (uint32_t)n);
    if (rc)
        return hx_error_set(err, rc, -1, "hnsw add: cannot hold %u nodes", end);
    for (uint32_t i = first; i < end; i++) {
        size_t k = i - first;
        memcpy(h->vecs + (size_t)i * g->dim, vecs + k * g->dim, (size_t)g->dim * sizeof(float));
        h->labels[i] = ids[k];
        h->levels[i] = (uint8_t)level_for(h, i);
        h->upper_off[i] = g->U;
        g->U += h->levels[i] * (1 + g->M);
        map_insert_raw(h->map, h->map_cap - 1, h->labels, i);
    }
    g->n = end;
    if ((rc = link_batch(h, first, end, n_threads)))
        return hx_error_set(err, rc, -1, "hnsw add: out of memory while linking (nodes kept, "
                            "some may be unlinked)");
    return 0;
}

int hx_hnsw_add(hx_hnsw *h, uint32_t id, const float *vec, hx_error *err)
{
    return hx_hnsw_add_batch(h, &id, vec, 1, 1, err);
}

int hx_hnsw_delete(hx_hnsw *h, uint32_t id, hx_error *err)
{
    if (!h)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw delete: builder needed");
    uint32_t node = map_find(h, id);
    if (node == NONE)
        return hx_error_set(err, HX_ENOTFOUND, -1, "hnsw delete: no live node has id %u", id);
    map_remove(h, node);
    h->deleted[node] = 1;
    h->g.n_deleted++;
    return 0;
}

int hx_hnsw_search(const hx_hnsw *h, const hx_hnsw_query *q, hx_hnsw_hit *out, uint32_t *n_out,
                   hx_hnsw_search_info *info, hx_error *err)
{
    if (!h)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: builder needed");
    return graph_search(&h->g, (pool *)&h->pool, q, out, n_out, info, err);
}

/* === Serialization === */

/* memcpy that accepts the NULL arrays of an empty builder. */
static void copy(void *dst, const void *src, size_t n)
{
    if (n)
        memcpy(dst, src, n);
}

typedef struct layout {
    uint64_t labels, upper_off, level0, upper, levels, deleted, total;
} layout;

static uint64_t align64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

static layout layout_for(uint32_t n, uint32_t M0, uint32_t U)
{
    layout L;
    L.labels = HX_HNSW_HEADER_SIZE;
    L.upper_off = align64(L.labels + 4 * (uint64_t)n);
    L.level0 = align64(L.upper_off + 4 * (uint64_t)n);
    L.upper = align64(L.level0 + 4 * (uint64_t)n * (1 + (uint64_t)M0));
    L.levels = align64(L.upper + 4 * (uint64_t)U);
    L.deleted = align64(L.levels + n);
    L.total = L.deleted + n;
    return L;
}

int hx_hnsw_serialize(const hx_hnsw *h, uint8_t *buf, size_t cap, size_t *len, hx_error *err)
{
    if (!h || !len)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw serialize: builder and length needed");
    const graph *g = &h->g;
    layout L = layout_for(g->n, g->M0, g->U);
    if (L.total > SIZE_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "hnsw serialize: %llu bytes do not fit in memory",
                            (unsigned long long)L.total);
    *len = (size_t)L.total;
    if (!buf)
        return 0;
    if (cap < L.total)
        return hx_error_set(err, HX_ERANGE, -1, "hnsw serialize: buffer of %zu bytes, %llu needed",
                            cap, (unsigned long long)L.total);
    memset(buf, 0, (size_t)L.total);
    memcpy(buf, HX_HNSW_MAGIC, 8);
    uint32_t hdr[] = {HX_HNSW_VERSION, g->dim, g->n, g->M, g->M0, g->efc, g->max_level, g->entry,
                      g->U, g->n_deleted};
    for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++)
        hxf_put32(buf + 8 + 4 * i, hdr[i]);
    hxf_put64(buf + 48, g->seed);
    size_t n = g->n;
    copy(buf + L.labels, g->labels, 4 * n);
    copy(buf + L.upper_off, g->upper_off, 4 * n);
    copy(buf + L.level0, g->level0, 4 * n * (1 + (size_t)g->M0));
    copy(buf + L.upper, g->upper, 4 * (size_t)g->U);
    copy(buf + L.levels, g->levels, n);
    copy(buf + L.deleted, g->deleted, n);
    return 0;
}

/* === View === */

struct hx_hnsw_view {
    graph g;                   /* arrays borrowed from the blob and the caller's vectors */
    pool pool;
};

uint32_t hx_hnsw_view_count(const hx_hnsw_view *v) { return v->g.n; }
uint32_t hx_hnsw_view_dim(const hx_hnsw_view *v) { return v->g.dim; }
uint32_t hx_hnsw_view_label(const hx_hnsw_view *v, uint32_t node) { return v->g.labels[node]; }

static bool zero_bytes(const uint8_t *p, uint64_t from, uint64_t to, uint64_t *bad)
{
    for (uint64_t i = from; i < to; i++)
        if (p[i]) {
            *bad = i;
            return false;
        }
    return true;
}

/* Says what is wrong with a list that check_list refused. */
static int list_error(const graph *g, const uint32_t *ln, uint32_t max, uint32_t self, uint32_t l,
                      uint64_t off, hx_error *err)
{
    if (ln[0] > max)
        return hx_error_set(err, HX_EFORMAT, (int64_t)off,
                            "hnsw: node %u has %u links on level %u, at most %u", self, ln[0], l, max);
    for (uint32_t j = 1; j <= max; j++) {
        uint32_t v = ln[j];
        int64_t at = (int64_t)(off + 4 * (uint64_t)j);
        if (j > ln[0]) {
            if (v)
                return hx_error_set(err, HX_EFORMAT, at, "hnsw: unused link slot of node %u is not zero", self);
            continue;
        }
        if (v >= g->n || v == self)
            return hx_error_set(err, HX_EFORMAT, at, "hnsw: node %u links to %u on level %u (n = %u)",
                                self, v, l, g->n);
        if (g->levels[v] < l)
            return hx_error_set(err, HX_EFORMAT, at, "hnsw: node %u links on level %u to node %u of level %u",
                                self, l, v, g->levels[v]);
    }
    return hx_error_set(err, HX_EFORMAT, (int64_t)off, "hnsw: list of node %u on level %u is corrupt", self, l);
}

/* Checks one list at byte offset `off`: count <= max, links < n, not self, level >= l, zero tail.
 * Every link of every node passes here at open, so the loops only accumulate (and vectorise);
 * list_error finds what failed. */
static int check_list(const graph *g, const uint32_t *ln, uint32_t max, uint32_t self, uint32_t l,
                      uint64_t off, hx_error *err)
{
    uint32_t cnt = ln[0], bad = 0;
    if (cnt > max)
        return list_error(g, ln, max, self, l, off, err);
    for (uint32_t j = 1; j <= cnt; j++)
        bad |= (ln[j] >= g->n) | (ln[j] == self);
    for (uint32_t j = cnt + 1; j <= max; j++)
        bad |= ln[j];
    for (uint32_t j = 1; j <= cnt && l > 0 && !bad; j++)
        bad |= g->levels[ln[j]] < l;
    return bad ? list_error(g, ln, max, self, l, off, err) : 0;
}

static int validate(graph *g, const uint8_t *b, size_t len, const float *vectors, size_t n_floats,
                    hx_error *err)
{
    if (len < HX_HNSW_HEADER_SIZE)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)len, "hnsw: %zu bytes, header needs %d",
                            len, HX_HNSW_HEADER_SIZE);
    if (memcmp(b, HX_HNSW_MAGIC, 8))
        return hx_error_set(err, HX_EFORMAT, 0, "hnsw: bad magic, not a serialized HNSW graph");
    uint32_t version = hxf_le32(b + 8);
    if (version != HX_HNSW_VERSION)
        return hx_error_set(err, HX_EVERSION, 8, "hnsw: format version %u, this build reads version %d",
                            version, HX_HNSW_VERSION);
    g->dim = hxf_le32(b + 12);
    g->n = hxf_le32(b + 16);
    g->M = hxf_le32(b + 20);
    g->M0 = hxf_le32(b + 24);
    g->efc = hxf_le32(b + 28);
    g->max_level = hxf_le32(b + 32);
    g->entry = hxf_le32(b + 36);
    g->U = hxf_le32(b + 40);
    g->n_deleted = hxf_le32(b + 44);
    g->seed = hxf_le64(b + 48);
    if (g->dim == 0 || g->dim > MAX_DIM)
        return hx_error_set(err, HX_EFORMAT, 12, "hnsw: dim %u outside 1..%u", g->dim, MAX_DIM);
    if (g->n == NONE)
        return hx_error_set(err, HX_EFORMAT, 16, "hnsw: node count %u too large", g->n);
    if (g->M < 2 || g->M > MAX_M)
        return hx_error_set(err, HX_EFORMAT, 20, "hnsw: M %u outside 2..%u", g->M, MAX_M);
    if (g->M0 < g->M || g->M0 > MAX_M0)
        return hx_error_set(err, HX_EFORMAT, 24, "hnsw: M0 %u outside %u..%u", g->M0, g->M, MAX_M0);
    if (g->efc == 0 || g->efc > MAX_EFC)
        return hx_error_set(err, HX_EFORMAT, 28, "hnsw: ef_construction %u outside 1..%u", g->efc,
                            MAX_EFC);
    if (g->max_level > HX_HNSW_MAX_LEVEL)
        return hx_error_set(err, HX_EFORMAT, 32, "hnsw: max level %u above %d", g->max_level,
                            HX_HNSW_MAX_LEVEL);
    if ((g->n == 0) != (g->entry == NONE) || (g->n && g->entry >= g->n))
        return hx_error_set(err, HX_EFORMAT, 36, "hnsw: entry point %u with %u nodes", g->entry, g->n);
    if (g->n_deleted > g->n)
        return hx_error_set(err, HX_EFORMAT, 44, "hnsw: %u deleted of %u nodes", g->n_deleted, g->n);
    uint64_t bad;
    if (!zero_bytes(b, 56, 64, &bad))
        return hx_error_set(err, HX_EFORMAT, (int64_t)bad, "hnsw: reserved header bytes not zero");

    layout L = layout_for(g->n, g->M0, g->U);
    if (len < L.total)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)len, "hnsw: %zu bytes, layout needs %llu",
                            len, (unsigned long long)L.total);
    if (len > L.total)
        return hx_error_set(err, HX_EFORMAT, (int64_t)L.total, "hnsw: %zu bytes, layout ends at %llu",
                            len, (unsigned long long)L.total);
    uint64_t ends[] = {L.labels + 4 * (uint64_t)g->n, L.upper_off,
                       L.upper_off + 4 * (uint64_t)g->n, L.level0,
                       L.level0 + 4 * (uint64_t)g->n * (1 + g->M0), L.upper,
                       L.upper + 4 * (uint64_t)g->U, L.levels,
                       L.levels + g->n, L.deleted};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i += 2)
        if (!zero_bytes(b, ends[i], ends[i + 1], &bad))
            return hx_error_set(err, HX_EFORMAT, (int64_t)bad, "hnsw: padding byte not zero");
    g->vecs = vectors;
    g->labels = (const uint32_t *)(const void *)(b + L.labels);
    g->upper_off = (const uint32_t *)(const void *)(b + L.upper_off);
    g->level0 = (const uint32_t *)(const void *)(b + L.level0);
    g->upper = (const uint32_t *)(const void *)(b + L.upper);
    g->levels = b + L.levels;
    g->deleted = b + L.deleted;

    uint32_t deleted = 0, top = 0;
    uint64_t off = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->levels[i] > g->max_level)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.levels + i), "hnsw: node %u has level %u "
                                "above the max level %u", i, g->levels[i], g->max_level);
        if (g->levels[i] > top)
            top = g->levels[i];
        if (g->deleted[i] > 1)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.deleted + i),
                                "hnsw: deleted flag of node %u is %u", i, g->deleted[i]);
        deleted += g->deleted[i];
        if (g->upper_off[i] != off)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.upper_off + 4 * (uint64_t)i),
                                "hnsw: node %u upper offset %u, expected %llu", i, g->upper_off[i],
                                (unsigned long long)off);
        off += (uint64_t)g->levels[i] * (1 + g->M);
        if (off > g->U)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.upper_off + 4 * (uint64_t)i),
                                "hnsw: node %u upper links pass the array end %u", i, g->U);
    }
    if (off != g->U)
        return hx_error_set(err, HX_EFORMAT, 40, "hnsw: upper array holds %u u32s, nodes use %llu",
                            g->U, (unsigned long long)off);
    if (deleted != g->n_deleted)
        return hx_error_set(err, HX_EFORMAT, 44, "hnsw: header says %u deleted, flags say %u",
                            g->n_deleted, deleted);
    if (g->n && (top != g->max_level || g->levels[g->entry] != g->max_level))
        return hx_error_set(err, HX_EFORMAT, 32, "hnsw: max level %u, top node level %u, entry level %u",
                            g->max_level, top, g->levels[g->entry]);
    for (uint32_t i = 0; i < g->n; i++) {
        int rc = check_list(g, links_of(g, i, 0), g->M0, i, 0,
                            L.level0 + 4 * (uint64_t)i * (1 + g->M0), err);
        for (uint32_t l = 1; rc == 0 && l <= g->levels[i]; l++)
            rc = check_list(g, links_of(g, i, l), g->M, i, l,
                            L.upper + 4 * ((uint64_t)g->upper_off[i] + (uint64_t)(l - 1) * (1 + g->M)),
                            err);
        if (rc)
            return rc;
    }
    if (g->n && (uint64_t)n_floats / g->n < g->dim)
        return hx_error_set(err, HX_ERANGE, -1, "hnsw: %zu floats given, %u nodes of dim %u need more",
                            n_floats, g->n, g->dim);
    if (g->n && !vectors)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: vectors needed");
    return 0;
}

int hx_hnsw_view_open(hx_hnsw_view **out, const uint8_t *base, size_t len, const float *vectors,
                      size_t n_floats, hx_error *err)
{
    if (!out || (!base && len))
        return hx_error_set(err, HX_EINVAL, -1, "hnsw view: output and bytes needed");
    *out = NULL;
    if (((uintptr_t)base & 3) != 0)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw view: bytes must be 4-byte aligned");
    graph g = {0};
    int rc = validate(&g, base ? base : (const uint8_t *)"", base ? len : 0, vectors, n_floats, err);
    if (rc)
        return rc;
    hx_hnsw_view *v = calloc(1, sizeof *v);
    if (!v)
        return hx_error_set(err, HX_ENOMEM, -1, "hnsw view: out of memory");
    g.dot = pick_dot();
    v->g = g;
    pool_init(&v->pool);
    *out = v;
    return 0;
}

void hx_hnsw_view_close(hx_hnsw_view *v)
{
    if (!v)
        return;
    pool_destroy(&v->pool);
    free(v);
}

int hx_hnsw_view_search(const hx_hnsw_view *v, const hx_hnsw_query *q, hx_hnsw_hit *out,
                        uint32_t *n_out, hx_hnsw_search_info *info, hx_error *err)
{
    if (!v)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: view needed");
    return graph_search(&v->g, (pool *)&v->pool, q, out, n_out, info, err);
}

int hx_hnsw_from_view(hx_hnsw **out, const hx_hnsw_view *v, hx_error *err)
{
    if (!out || !v)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: output and view needed");
    *out = NULL;
    const graph *s = &v->g;
    hx_hnsw *h;
    int rc = builder_alloc(&h, s->dim, s->M, s->M0, s->efc, s->seed, err);
    if (rc)
        return rc;
    if ((rc = reserve(h, s->n, s->U)) || (rc = map_reserve(h, s->n - s->n_deleted))) {
        hx_hnsw_free(h);
        return hx_error_set(err, rc, -1, "hnsw: cannot copy %u nodes", s->n);
    }
    size_t n = s->n;
    copy(h->vecs, s->vecs, n * s->dim * sizeof(float));
    copy(h->labels, s->labels, 4 * n);
    copy(h->upper_off, s->upper_off, 4 * n);
    copy(h->level0, s->level0, 4 * n * (1 + (size_t)s->M0));
    copy(h->upper, s->upper, 4 * (size_t)s->U);
    copy(h->levels, s->levels, n);
    copy(h->deleted, s->deleted, n);
    h->g.n = s->n;
    h->g.U = s->U;
    h->g.n_deleted = s->n_deleted;
    h->g.entry = s->entry;
    h->g.max_level = s->max_level;
    for (uint32_t i = 0; i < s->n; i++) {
        if (h->deleted[i])
            continue;
        if (map_find(h, h->labels[i]) != NONE) {
            uint32_t id = h->labels[i];
            hx_hnsw_free(h);
            return hx_error_set(err, HX_EFORMAT, -1, "hnsw: id %u appears twice among live nodes", id);
        }
        map_insert_raw(h->map, h->map_cap - 1, h->labels, i);
    }
    *out = h;
    return 0;
}
