/* hnsw_build.c: the HNSW builder (hnsw.h): levels from the seed, the id map, growth, insertion in
 * deterministic rounds run as jobs of the process pool (pool.h), tombstones, and a builder copied
 * from a view.
 * Must not touch vector storage in index files or the kernel table: the dot product is the caller's.
 * Spec: hnsw.h; algorithm after hnswlib's hnswalg.h and faiss's level-ordered insertion. */
#include "hnsw_internal.h"
#include "alloc.h"
#include "pool.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* === Builder === */

static void sync_graph(hxi_hnsw *h)
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
static uint32_t level_for(const hxi_hnsw *h, uint32_t i)
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

static uint32_t map_find(const hxi_hnsw *h, uint32_t id)
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
static int map_reserve(hxi_hnsw *h, uint32_t need)
{
    uint64_t want = 16;
    while (want < 2 * (uint64_t)need)
        want *= 2;
    if (want <= h->map_cap)
        return 0;
    if (want > UINT32_MAX)
        return HX_ERANGE;
    uint32_t *m = hx_malloc(want * sizeof *m);
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
static void map_remove(hxi_hnsw *h, uint32_t node)
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

static int builder_alloc(hxi_hnsw **out, uint32_t dim, uint32_t M, uint32_t M0, uint32_t efc,
                         uint64_t seed, hxi_hnsw_dot_fn dot, hx_error *err)
{
    hxi_hnsw *h = hx_calloc(1, sizeof *h);
    if (!h)
        return hx_error_set(err, HX_ENOMEM, -1, "hnsw: out of memory");
    h->g.dim = dim;
    h->g.M = M;
    h->g.M0 = M0;
    h->g.efc = efc;
    h->g.seed = seed;
    h->g.entry = NONE;
    h->g.dot = dot;
    h->level_mult = 1.0 / log((double)M);
    hn_pool_init(&h->pool);
    *out = h;
    return 0;
}

int hxi_hnsw_new(hxi_hnsw **out, const hxi_hnsw_params *p, hx_error *err)
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
    if (!p->dot)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: dot product needed");
    return builder_alloc(out, p->dim, M, 2 * M, efc, p->seed, p->dot, err);
}

void hxi_hnsw_free(hxi_hnsw *h)
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
    hn_pool_destroy(&h->pool);
    free(h);
}

uint32_t hxi_hnsw_count(const hxi_hnsw *h) { return h->g.n; }
uint32_t hxi_hnsw_live_count(const hxi_hnsw *h) { return h->g.n - h->g.n_deleted; }
const float *hxi_hnsw_vectors(const hxi_hnsw *h) { return h->vecs; }

/* Grows *p from old_n to exactly new_n elements of elem bytes, zeroing the new ones. The parallel
 * arrays of reserve() share one capacity, so hx_grow's own capacity does not fit them. */
static int grow(void **p, size_t elem, uint64_t old_n, uint64_t new_n)
{
    size_t bytes = new_n > SIZE_MAX ? SIZE_MAX : hxi_mul_size((size_t)new_n, elem);
    void *q = bytes == SIZE_MAX ? NULL : hx_realloc(*p, bytes ? bytes : 1);
    if (!q)
        return HX_ENOMEM;
    size_t old_bytes = (size_t)old_n * elem;   /* old_n <= new_n: no overflow */
    memset((char *)q + old_bytes, 0, bytes - old_bytes);
    *p = q;
    return 0;
}

/* Room for n_nodes nodes and n_upper upper-link u32s. */
static int reserve(hxi_hnsw *h, uint32_t n_nodes, uint32_t n_upper)
{
    int rc = 0;
    if (n_nodes > h->cap) {
        uint64_t c = h->cap ? h->cap : 64;
        while (c < n_nodes)
            c *= 2;
        if (c > NONE)
            c = NONE;
        uint64_t s0 = 1 + (uint64_t)h->g.M0, old = h->cap;
        if ((rc = grow((void **)&h->vecs, hxi_mul_size(sizeof(float), h->g.dim), old, c)) ||
            (rc = grow((void **)&h->labels, 4, old, c)) ||
            (rc = grow((void **)&h->upper_off, 4, old, c)) ||
            (rc = grow((void **)&h->level0, hxi_mul_size(4, s0), old, c)) ||
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
static void connect(const hn_graph *g, hn_scratch *s, uint32_t nb, uint32_t node, uint32_t l)
{
    uint32_t max = l ? g->M : g->M0;
    uint32_t *ln = (uint32_t *)hn_links_of(g, nb, l);
    uint32_t cnt = ln[0];
    if (cnt < max) {
        ln[1 + cnt] = node;
        ln[0] = cnt + 1;
        return;
    }
    const float *base = hn_vec_of(g, nb);
    hn_cand *c = s->prune;
    size_t n = 0;
    for (uint32_t j = 1; j <= cnt; j++)
        c[n++] = (hn_cand){hn_sim(g, base, ln[j]), ln[j]};
    c[n++] = (hn_cand){hn_sim(g, base, node), node};
    for (size_t i = 1; i < n; i++) {
        hn_cand x = c[i];
        size_t j = i;
        while (j > 0 && hn_before(x, c[j - 1])) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
    size_t kept = hn_select_neighbors(g, c, n, max);
    for (size_t j = 0; j < kept; j++)
        ln[1 + j] = c[j].id;
    for (size_t j = kept; j < max; j++)
        ln[1 + j] = 0;
    ln[0] = (uint32_t)kept;
}

/* One batch being linked, shared by the threads of hxi_hnsw_add_batch. */
typedef struct rounds {
    hxi_hnsw *h;
    uint32_t *order;           /* owned: the batch's nodes in insertion order */
    uint32_t *pos;             /* owned: pos[node - batch_first] = its place in order */
    uint32_t batch_first, n;   /* the batch: nodes batch_first .. batch_first + n - 1 */
    uint32_t first, end;       /* the current round: order[first .. end - 1] */
    uint32_t ep, top;          /* entry point and top level when the round began (ep NONE: empty) */
    uint32_t *chosen;          /* per round node k, at chosen_off[k] + l * (1 + M): [count, ids] */
    uint32_t chosen_off[MAX_ROUND];
    uint32_t n_threads;        /* link tasks: task t owns the lists of nodes with node % n == t */
    hn_scratch **scratch;      /* [pool threads], one per worker */
    atomic_int rc;
} rounds;

/* Sets up the round after the current one; false when the batch is done. Run by one thread. */
static bool next_round(rounds *r)
{
    hn_graph *g = &r->h->g;
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
static int choose(const rounds *r, hn_scratch *s, uint32_t p)
{
    const hn_graph *g = &r->h->g;
    uint32_t i = r->order[p];
    const float *q = hn_vec_of(g, i);
    uint32_t level = g->levels[i], visited = 0, cur = r->ep;
    if (cur != NONE)
        cur = hn_greedy(g, q, cur, r->top, level, &visited);
    for (uint32_t l = level;; l--) {
        hn_heap *top = &s->top;
        top->n = 0;
        if (cur != NONE && l <= r->top) {
            int rc = hn_search_layer(g, s, q, cur, l, g->efc, NULL, &visited);
            if (rc)
                return rc;
        } else if (hx_grow((void **)&top->a, &top->cap, (size_t)g->efc + 1, sizeof *top->a, NULL)) {
            return HX_ENOMEM;
        }
        for (uint32_t e = r->first; e < p; e++) {   /* the round's earlier nodes, as if linked */
            uint32_t j = r->order[e];
            if (g->levels[j] < l)
                continue;
            hn_cand x = {hn_sim(g, q, j), j};
            if (top->n < g->efc || hn_before(x, top->a[0])) {
                hn_heap_push(top, x);
                if (top->n > g->efc)
                    hn_heap_pop(top);
            }
        }
        size_t n = hn_heap_drain_sorted(top, s->sorted);
        for (size_t j = 0; j < n; j++)
            if (linked(r, s->sorted[j].id)) {   /* the next level starts from the best linked node */
                cur = s->sorted[j].id;
                break;
            }
        size_t kept = hn_select_neighbors(g, s->sorted, n, g->M);
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
static void link_round(const rounds *r, hn_scratch *s, uint32_t t)
{
    const hn_graph *g = &r->h->g;
    uint32_t n = r->n_threads;
    for (uint32_t p = r->first; p < r->end; p++) {
        uint32_t i = r->order[p];
        if (i % n != t)
            continue;
        for (uint32_t l = 0; l <= g->levels[i]; l++) {
            const uint32_t *src = chosen_at(r, p, l);
            uint32_t *own = (uint32_t *)hn_links_of(g, i, l), slots = l ? g->M : g->M0;
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

/* Pool tasks: choose for the round's node `task`, or link the lists that task `task` owns. Any
 * worker may run any task; its scratch is the worker's. */
static void choose_task(void *ctx, int task, int worker)
{
    rounds *r = ctx;
    int rc = atomic_load(&r->rc) ? 0 : choose(r, r->scratch[worker], r->first + (uint32_t)task);
    if (rc)
        atomic_store(&r->rc, rc);
}

static void link_task(void *ctx, int task, int worker)
{
    rounds *r = ctx;
    link_round(r, r->scratch[worker], (uint32_t)task);
}

/* Fills r->order (levels from the top down, each level shuffled with the graph's seed) and r->pos. */
static void insertion_order(rounds *r)
{
    const hn_graph *g = &r->h->g;
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

/* Links r's batch on `pool` (NULL: this thread alone): rounds of choose (nodes handed out one at a
 * time), then link, then the next round set up here. The graph does not depend on the pool. */
static int run_rounds(rounds *r, hxi_pool *pool)
{
    insertion_order(r);
    const int workers = hxi_pool_threads(pool);
    for (int w = 0; w < workers; w++) {
        hn_scratch *s = r->scratch[w] = hn_pool_get(&r->h->pool, r->h->g.n);
        if (!s || hx_grow((void **)&s->sorted, &s->sorted_cap, (size_t)r->h->g.efc + 1, sizeof *s->sorted,
                          NULL))
            atomic_store(&r->rc, HX_ENOMEM);
    }
    while (!atomic_load(&r->rc) && next_round(r)) {
        hxi_pool_run(pool, (int)(r->end - r->first), choose_task, r);
        if (!atomic_load(&r->rc))
            hxi_pool_run(pool, (int)r->n_threads, link_task, r);
    }
    for (int w = 0; w < workers; w++)
        if (r->scratch[w])
            hn_pool_put(&r->h->pool, r->scratch[w]);
    return atomic_load(&r->rc);
}

static int link_batch(hxi_hnsw *h, uint32_t first, uint32_t end, int n_threads)
{
    uint32_t want = n_threads < 1 ? 1 : n_threads > HX_POOL_SHARED_MAX ? HX_POOL_SHARED_MAX : (uint32_t)n_threads;
    if (want > end - first)
        want = end - first;
    hxi_pool *pool = want > 1 ? hxi_pool_shared() : NULL;
    if ((uint32_t)hxi_pool_threads(pool) < want)
        want = (uint32_t)hxi_pool_threads(pool);
    hn_scratch *scratch[HX_POOL_SHARED_MAX] = {0};
    rounds r = {.h = h, .batch_first = first, .n = end - first, .n_threads = want, .scratch = scratch};
    atomic_init(&r.rc, 0);
    r.chosen = hx_malloc((size_t)MAX_ROUND * (HX_HNSW_MAX_LEVEL + 1) * (1 + h->g.M) * sizeof *r.chosen);
    r.order = hx_malloc(sizeof *r.order * r.n);
    r.pos = hx_malloc(sizeof *r.pos * r.n);
    int rc = r.chosen && r.order && r.pos ? run_rounds(&r, pool) : HX_ENOMEM;
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

int hxi_hnsw_add_batch(hxi_hnsw *h, const uint32_t *ids, const float *vecs, size_t n, int n_threads,
                       hx_error *err)
{
    if (!h || (n && (!ids || !vecs)))
        return hx_error_set(err, HX_EINVAL, -1, "hnsw add: builder, ids and vectors needed");
    if (n == 0)
        return 0;
    hn_graph *g = &h->g;
    if (n > (size_t)(NONE - 1 - g->n))
        return hx_error_set(err, HX_ERANGE, -1, "hnsw add: more than %u nodes", NONE - 1);
    uint32_t first = g->n, end = (uint32_t)(first + n);

    /* Refuse live or repeated ids before changing anything. */
    uint32_t *sorted = hx_malloc(n * sizeof *sorted);
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

int hxi_hnsw_add(hxi_hnsw *h, uint32_t id, const float *vec, hx_error *err)
{
    return hxi_hnsw_add_batch(h, &id, vec, 1, 1, err);
}

int hxi_hnsw_delete(hxi_hnsw *h, uint32_t id, hx_error *err)
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

int hxi_hnsw_search(const hxi_hnsw *h, const hxi_hnsw_query *q, hxi_hnsw_hit *out, uint32_t *n_out,
                    hxi_hnsw_search_info *info, hx_error *err)
{
    if (!h)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: builder needed");
    return hn_graph_search(&h->g, (hn_pool *)&h->pool, q, out, n_out, info, err);
}

/* === Builder from a view === */

int hxi_hnsw_from_view(hxi_hnsw **out, const hxi_hnsw_view *v, hx_error *err)
{
    if (!out || !v)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: output and view needed");
    *out = NULL;
    const hn_graph *s = &v->g;
    hxi_hnsw *h;
    int rc = builder_alloc(&h, s->dim, s->M, s->M0, s->efc, s->seed, s->dot, err);
    if (rc)
        return rc;
    if ((rc = reserve(h, s->n, s->U)) || (rc = map_reserve(h, s->n - s->n_deleted))) {
        hxi_hnsw_free(h);
        return hx_error_set(err, rc, -1, "hnsw: cannot copy %u nodes", s->n);
    }
    size_t n = s->n;
    hn_copy(h->vecs, s->vecs, n * s->dim * sizeof(float));
    hn_copy(h->labels, s->labels, 4 * n);
    hn_copy(h->upper_off, s->upper_off, 4 * n);
    hn_copy(h->level0, s->level0, 4 * n * (1 + (size_t)s->M0));
    hn_copy(h->upper, s->upper, 4 * (size_t)s->U);
    hn_copy(h->levels, s->levels, n);
    hn_copy(h->deleted, s->deleted, n);
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
            hxi_hnsw_free(h);
            return hx_error_set(err, HX_EFORMAT, -1, "hnsw: id %u appears twice among live nodes", id);
        }
        map_insert_raw(h->map, h->map_cap - 1, h->labels, i);
    }
    *out = h;
    return 0;
}
