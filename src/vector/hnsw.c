/* hnsw.c: the HNSW graph search (hnsw.h) shared by builder and view: candidate heaps, the pooled
 * visited tags, the greedy descent, the layer search, the neighbour heuristic, filters and
 * tombstones, the exact fallback. Builder in hnsw_build.c, format and view in hnsw_view.c.
 * Must not touch vector storage in index files or the kernel table: the dot product is the caller's.
 * Spec: hnsw.h; algorithm after hnswlib's hnswalg.h (Malkov & Yashunin). */
#include "hnsw_internal.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define FILTER_SAMPLES 256u

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* Prefetches a vector past its first cache line (hn_search_layer prefetches that one early); the
 * hardware prefetcher alone stops at page boundaries and starts late on a random vector. */
static inline void prefetch_rest(const float *v, uint32_t dim)
{
    const char *p = (const char *)v;
    for (size_t b = 64; b < (size_t)dim * sizeof *v; b += 64)
        PREFETCH(p + b);
}

/* === Heaps of (score, id) === */

static inline bool heap_above(const hn_heap *h, hn_cand x, hn_cand y)
{
    return h->max ? hn_before(x, y) : hn_before(y, x);
}

int hn_heap_push(hn_heap *h, hn_cand c)
{
    if (h->n == h->cap && hx_grow((void **)&h->a, &h->cap, h->n + 1, sizeof *h->a, NULL))
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

hn_cand hn_heap_pop(hn_heap *h)
{
    hn_cand top = h->a[0], last = h->a[--h->n];
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
size_t hn_heap_drain_sorted(hn_heap *h, hn_cand *out)
{
    size_t n = h->n;
    while (h->n)
        out[h->n - 1] = hn_heap_pop(h);
    return n;
}

/* === Scratch: visited tags and buffers, pooled for concurrent searches === */

static void scratch_free(hn_scratch *s)
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

/* A scratch whose tags cover n nodes; caller returns it with hn_pool_put. */
hn_scratch *hn_pool_get(hn_pool *p, uint32_t n)
{
    pthread_mutex_lock(&p->mu);
    hn_scratch *s = p->free;
    if (s)
        p->free = s->next;
    pthread_mutex_unlock(&p->mu);
    if (!s) {
        s = hx_calloc(1, sizeof *s);
        if (!s)
            return NULL;
        s->cands.max = true;
        s->fresh = hx_malloc(MAX_M0 * sizeof *s->fresh);
        s->prune = hx_malloc((MAX_M0 + 1) * sizeof *s->prune);
        if (!s->fresh || !s->prune) {
            scratch_free(s);
            return NULL;
        }
    }
    if (s->tag_cap < n) {
        uint32_t *t = hx_calloc(n, sizeof *t);
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
static void next_gen(hn_scratch *s)
{
    if (++s->gen == 0) {
        memset(s->tags, 0, (size_t)s->tag_cap * sizeof *s->tags);
        s->gen = 1;
    }
}

void hn_pool_put(hn_pool *p, hn_scratch *s)
{
    pthread_mutex_lock(&p->mu);
    s->next = p->free;
    p->free = s;
    pthread_mutex_unlock(&p->mu);
}

void hn_pool_init(hn_pool *p)
{
    pthread_mutex_init(&p->mu, NULL);
    p->free = NULL;
}

void hn_pool_destroy(hn_pool *p)
{
    while (p->free) {
        hn_scratch *s = p->free;
        p->free = s->next;
        scratch_free(s);
    }
    pthread_mutex_destroy(&p->mu);
}

/* === Layer search === */

struct hn_allow {
    hxi_hnsw_filter_fn fn;      /* NULL: everything passes */
    void *ctx;
    bool skip_deleted;
};

static inline bool allowed(const hn_graph *g, const hn_allow *a, uint32_t i)
{
    if (!a)
        return true;
    if (a->skip_deleted && g->deleted[i])
        return false;
    return !a->fn || a->fn(g->labels[i], a->ctx);
}

/* Greedy walk from `cur` down to level `stop` + 1; returns the closest node found. */
uint32_t hn_greedy(const hn_graph *g, const float *q, uint32_t cur, uint32_t top_level, uint32_t stop,
                   uint32_t *visited)
{
    float cur_s = hn_sim(g, q, cur);
    ++*visited;
    for (uint32_t l = top_level; l > stop; l--) {
        bool changed = true;
        while (changed) {
            changed = false;
            const uint32_t *ln = hn_links_of(g, cur, l);
            uint32_t cnt = ln[0];
            for (uint32_t j = 1; j <= cnt; j++) {
                float v = hn_sim(g, q, ln[j]);
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
int hn_search_layer(const hn_graph *g, hn_scratch *s, const float *q, uint32_t ep, uint32_t l, uint32_t ef,
                    const hn_allow *al, uint32_t *visited)
{
    hn_heap *cands = &s->cands, *top = &s->top;
    cands->n = top->n = 0;
    next_gen(s);
    if (hx_grow((void **)&top->a, &top->cap, (size_t)ef + 1, sizeof *top->a, NULL))
        return HX_ENOMEM;
    hn_cand e = {hn_sim(g, q, ep), ep};
    ++*visited;
    s->tags[ep] = s->gen;
    if (allowed(g, al, ep))
        hn_heap_push(top, e);
    if (hn_heap_push(cands, e))
        return HX_ENOMEM;
    while (cands->n) {
        hn_cand c = cands->a[0];
        if (top->n == ef && c.s < top->a[0].s)
            break;
        hn_heap_pop(cands);
        const uint32_t *ln = hn_links_of(g, c.id, l);
        uint32_t cnt = ln[0], nf = 0;
        for (uint32_t j = 1; j <= cnt; j++) {
            uint32_t v = ln[j];
            if (s->tags[v] == s->gen)
                continue;
            s->tags[v] = s->gen;
            PREFETCH(hn_vec_of(g, v));
            s->fresh[nf++] = v;
        }
        for (uint32_t j = 0; j < nf; j++) {
            uint32_t v = s->fresh[j];
            if (j + 1 < nf)   /* the rest of the next vector (24 lines at 384 dims) while this one scores */
                prefetch_rest(hn_vec_of(g, s->fresh[j + 1]), g->dim);
            hn_cand x = {hn_sim(g, q, v), v};
            ++*visited;
            if (top->n < ef || x.s > top->a[0].s) {
                if (hn_heap_push(cands, x))
                    return HX_ENOMEM;
                if (allowed(g, al, v)) {
                    hn_heap_push(top, x);
                    if (top->n > ef)
                        hn_heap_pop(top);
                }
            }
        }
    }
    return 0;
}

/* hnswlib's getNeighborsByHeuristic2: from c[n] (best first, scores against the base vector) keep
 * a candidate only if it is closer to the base than to every one kept so far; at most m. */
size_t hn_select_neighbors(const hn_graph *g, hn_cand *c, size_t n, size_t m)
{
    if (n <= m)
        return n;
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < m; i++) {
        const float *v = hn_vec_of(g, c[i].id);
        bool good = true;
        for (size_t j = 0; j < kept && good; j++) {
            float d = g->dot(v, hn_vec_of(g, c[j].id), g->dim);
            if (d > c[i].s)
                good = false;
        }
        if (good)
            c[kept++] = c[i];
    }
    return kept;
}

/* === Search shared by builder and view === */

static int exact_scan(const hn_graph *g, hn_scratch *s, const float *q, uint32_t k, const hn_allow *al,
                      uint32_t *visited)
{
    hn_heap *top = &s->top;
    top->n = 0;
    if (hx_grow((void **)&top->a, &top->cap, (size_t)k + 1, sizeof *top->a, NULL))
        return HX_ENOMEM;
    for (uint32_t i = 0; i < g->n; i++) {
        if (!allowed(g, al, i))
            continue;
        hn_cand x = {hn_sim(g, q, i), g->labels[i]};   /* ids are labels here: ties break on them */
        ++*visited;
        if (top->n < k || hn_before(x, top->a[0])) {
            hn_heap_push(top, x);
            if (top->n > k)
                hn_heap_pop(top);
        }
    }
    return 0;
}

/* Share of nodes that are live and pass the filter: given, or sampled evenly over the nodes. */
static float pass_fraction(const hn_graph *g, const hxi_hnsw_query *q, const hn_allow *al)
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

int hn_graph_search(const hn_graph *g, hn_pool *pl, const hxi_hnsw_query *q, hxi_hnsw_hit *out,
                    uint32_t *n_out, hxi_hnsw_search_info *info, hx_error *err)
{
    if (!q || !q->vector || q->k == 0 || !out || !n_out)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: query vector, k >= 1 and outputs needed");
    if (q->filter_fraction < 0 || q->filter_fraction > 1)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: filter_fraction %g outside [0, 1]",
                            (double)q->filter_fraction);
    *n_out = 0;
    hxi_hnsw_search_info local = {false, 0};
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
    hn_allow al = {q->filter, q->filter_ctx, true};
    hn_scratch *s = hn_pool_get(pl, g->n);
    if (!s)
        return hx_error_set(err, HX_ENOMEM, -1, "hnsw search: out of memory");
    int rc = 0;
    bool exact = q->exact || g->n - g->n_deleted < exact_below ||
                 pass_fraction(g, q, &al) < HX_HNSW_FILTER_EXACT_FRACTION;
    if (!exact) {
        uint32_t ep = hn_greedy(g, q->vector, g->entry, g->max_level, 0, &local.visited);
        rc = hn_search_layer(g, s, q->vector, ep, 0, ef, &al, &local.visited);
        if (rc == 0 && s->top.n < k)
            exact = true;   /* the allowed nodes the graph reached are too few: scan them all */
    }
    if (rc == 0 && exact)
        rc = exact_scan(g, s, q->vector, k, &al, &local.visited);
    if (rc == 0)
        rc = hx_grow((void **)&s->sorted, &s->sorted_cap, s->top.n, sizeof *s->sorted, NULL);
    if (rc) {
        hn_pool_put(pl, s);
        return hx_error_set(err, rc, -1, "hnsw search: out of memory");
    }
    size_t n = hn_heap_drain_sorted(&s->top, s->sorted);
    if (!exact) {
        /* The graph search keeps node indexes and breaks ties on them; ties must rank by id. */
        for (size_t i = 0; i < n; i++)
            s->sorted[i].id = g->labels[s->sorted[i].id];
        for (size_t i = 1; i < n; i++) {
            hn_cand x = s->sorted[i];
            size_t j = i;
            while (j > 0 && hn_before(x, s->sorted[j - 1])) {
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
    hn_pool_put(pl, s);
    return 0;
}
