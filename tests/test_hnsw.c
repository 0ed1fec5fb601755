/* test_hnsw.c: the HNSW index against brute force on clustered synthetic embeddings: recall with
 * 1 and 2 build threads, reproducible bytes, tombstones, filters, the serialized view (equal
 * results, corrupt bytes refused), incremental adds and the exact paths. Spec: src/hnsw.h. */
#include "check.h"
#include "kernels.h"
#include "hnsw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIM 384
#define K 10
#define DOT (hxi_kernels_get()->dot)   /* the index's dot product, as src/index*.c pass it */

/* === Data: a mixture of clusters, each spread along its own few directions (like sentence
 * embeddings, whose neighbourhoods have low intrinsic dimension), plus a little isotropic noise. */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = (*s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static float gauss(uint64_t *s)
{
    double u = ((double)(rng_next(s) >> 11) + 0.5) * 0x1p-53;
    double v = ((double)(rng_next(s) >> 11) + 0.5) * 0x1p-53;
    return (float)(sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
}

static void normalize(float *v)
{
    double n = 0;
    for (int i = 0; i < DIM; i++)
        n += (double)v[i] * v[i];
    float inv = (float)(1 / sqrt(n));
    for (int i = 0; i < DIM; i++)
        v[i] *= inv;
}

#define CLUSTERS 64
#define SUBDIM 32   /* directions of each cluster; a nearest neighbour has cosine ~0.55 */
#define SUB 0.25f    /* spread along them */
#define ISO 0.04f    /* isotropic noise per coordinate */

typedef struct mixture {
    float *centers;   /* CLUSTERS * DIM */
    float *basis;     /* CLUSTERS * SUBDIM * DIM */
    uint64_t rng;
} mixture;

static void mixture_init(mixture *m, uint64_t seed)
{
    m->rng = seed;
    m->centers = malloc(sizeof(float) * CLUSTERS * DIM);
    m->basis = malloc(sizeof(float) * CLUSTERS * SUBDIM * DIM);
    for (int c = 0; c < CLUSTERS; c++) {
        for (int i = 0; i < DIM; i++)
            m->centers[c * DIM + i] = gauss(&m->rng);
        normalize(m->centers + c * DIM);
        for (int j = 0; j < SUBDIM; j++) {
            float *b = m->basis + ((size_t)c * SUBDIM + j) * DIM;
            for (int i = 0; i < DIM; i++)
                b[i] = gauss(&m->rng);
            normalize(b);
        }
    }
}

static void mixture_sample(mixture *m, float *out, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        float *v = out + k * DIM;
        int c = (int)(rng_next(&m->rng) % CLUSTERS);
        for (int i = 0; i < DIM; i++)
            v[i] = m->centers[c * DIM + i] + ISO * gauss(&m->rng);
        for (int j = 0; j < SUBDIM; j++) {
            float a = SUB * gauss(&m->rng);
            const float *b = m->basis + ((size_t)c * SUBDIM + j) * DIM;
            for (int i = 0; i < DIM; i++)
                v[i] += a * b[i];
        }
        normalize(v);
    }
}

static void mixture_free(mixture *m)
{
    free(m->centers);
    free(m->basis);
}

/* === Brute force === */

static float dot(const float *a, const float *b)
{
    float s[8] = {0};
    for (int i = 0; i < DIM; i += 8)
        for (int j = 0; j < 8; j++)
            s[j] += a[i + j] * b[i + j];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

/* Same ids in the same order, scores equal up to the dot kernel's rounding. */
static bool same_hits(const hxi_hnsw_hit *a, uint32_t na, const hxi_hnsw_hit *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t j = 0; j < na; j++)
        if (a[j].id != b[j].id || fabsf(a[j].score - b[j].score) > 1e-5f)
            return false;
    return true;
}

typedef bool (*pred)(uint32_t id, void *ctx);

/* Top-k ids of q among vecs[n] with ids[n] passing `ok` (NULL = all), score desc then id asc. */
static uint32_t brute(const float *vecs, const uint32_t *ids, size_t n, const float *q, pred ok,
                      void *ctx, uint32_t k, hxi_hnsw_hit *out)
{
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (ok && !ok(ids[i], ctx))
            continue;
        hxi_hnsw_hit h = {ids[i], dot(q, vecs + i * DIM)};
        uint32_t j = m < k ? m++ : k;
        while (j > 0 && (out[j - 1].score < h.score || (out[j - 1].score == h.score && out[j - 1].id > h.id))) {
            if (j < k)
                out[j] = out[j - 1];
            j--;
        }
        if (j < k)
            out[j] = h;
    }
    return m;
}

static double overlap(const hxi_hnsw_hit *a, uint32_t na, const hxi_hnsw_hit *b, uint32_t nb)
{
    uint32_t hit = 0;
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++)
            if (a[i].id == b[j].id) {
                hit++;
                break;
            }
    return nb ? (double)hit / nb : 1.0;
}

/* === Fixtures === */

#define N_BASE 10000
#define N_QUERY 200

static float *base, *queries;
static uint32_t ids[N_BASE];

static hxi_hnsw *build(size_t n, int threads, uint64_t seed, uint32_t efc)
{
    hxi_hnsw_params p = {.dim = DIM, .dot = DOT, .seed = seed, .ef_construction = efc};
    hxi_hnsw *h = NULL;
    hx_error err = {0};
    int rc = hxi_hnsw_new(&h, &p, &err);
    CHECK(rc == 0, "new: %s", err.message);
    rc = hxi_hnsw_add_batch(h, ids, base, n, threads, &err);
    CHECK(rc == 0, "add_batch: %s", err.message);
    return h;
}

typedef int (*search_fn)(const void *ix, const hxi_hnsw_query *q, hxi_hnsw_hit *out, uint32_t *n,
                         hxi_hnsw_search_info *info, hx_error *err);

static int search_builder(const void *ix, const hxi_hnsw_query *q, hxi_hnsw_hit *out, uint32_t *n,
                          hxi_hnsw_search_info *info, hx_error *err)
{
    return hxi_hnsw_search(ix, q, out, n, info, err);
}

static int search_view(const void *ix, const hxi_hnsw_query *q, hxi_hnsw_hit *out, uint32_t *n,
                       hxi_hnsw_search_info *info, hx_error *err)
{
    return hxi_hnsw_view_search(ix, q, out, n, info, err);
}

/* Mean recall@K over the queries, with an optional filter, against brute force over the first
 * n_base vectors minus those `dead` marks. */
static double recall(search_fn fn, const void *ix, size_t n_base, pred ok, void *ctx,
                     const bool *dead, uint32_t ef)
{
    static hxi_hnsw_hit got[K], want[K];
    static float live_vecs[(size_t)N_BASE * DIM];
    static uint32_t live_ids[N_BASE];
    size_t n_live = 0;
    for (size_t i = 0; i < n_base; i++)
        if (!dead || !dead[i]) {
            memcpy(live_vecs + n_live * DIM, base + i * DIM, sizeof(float) * DIM);
            live_ids[n_live++] = ids[i];
        }
    double sum = 0;
    for (int qi = 0; qi < N_QUERY; qi++) {
        const float *q = queries + (size_t)qi * DIM;
        hxi_hnsw_query hq = {.vector = q, .k = K, .ef = ef, .filter = ok, .filter_ctx = ctx};
        uint32_t n = 0;
        hx_error err = {0};
        int rc = fn(ix, &hq, got, &n, NULL, &err);
        CHECK(rc == 0, "search: %s", err.message);
        uint32_t m = brute(live_vecs, live_ids, n_live, q, ok, ctx, K, want);
        sum += overlap(got, n, want, m);
    }
    return sum / N_QUERY;
}

/* === Tests === */

static void test_recall(const hxi_hnsw *h, int threads)
{
    double r = recall(search_builder, h, N_BASE, NULL, NULL, NULL, 0);
    printf("recall@%d, %d build thread(s), ef %d: %.4f\n", K, threads, HX_HNSW_DEFAULT_EF, r);
    CHECK(r >= 0.98, "recall %.4f below 0.98 (%d build threads)", r, threads);
    CHECK(hxi_hnsw_count(h) == N_BASE, "count %u", hxi_hnsw_count(h));
    r = recall(search_builder, h, N_BASE, NULL, NULL, NULL, 20);
    printf("recall@%d, %d build thread(s), ef 20: %.4f\n", K, threads, r);
    CHECK(r >= 0.95, "recall at ef 20 %.4f below 0.95 (%d build threads)", r, threads);
}

static uint8_t *serialize(const hxi_hnsw *h, size_t *len)
{
    hx_error err = {0};
    int rc = hxi_hnsw_serialize(h, NULL, 0, len, &err);
    CHECK(rc == 0, "serialize size: %s", err.message);
    uint8_t *buf = malloc(*len ? *len : 1);
    rc = hxi_hnsw_serialize(h, buf, *len, len, &err);
    CHECK(rc == 0, "serialize: %s", err.message);
    return buf;
}

/* The same seed gives the same bytes whatever the number of build threads; another seed does not. */
static void test_reproducible(void)
{
    enum { RUNS = 5 };
    static const int threads[RUNS] = {1, 1, 2, 3, 2};
    static const uint64_t seeds[RUNS] = {7, 7, 7, 7, 8};
    hxi_hnsw *h[RUNS];
    uint8_t *b[RUNS];
    size_t len[RUNS];
    for (int i = 0; i < RUNS; i++) {
        h[i] = build(3000, threads[i], seeds[i], 100);
        b[i] = serialize(h[i], &len[i]);
    }
    for (int i = 1; i < RUNS - 1; i++)
        CHECK(len[i] == len[0] && memcmp(b[i], b[0], len[0]) == 0,
              "seed 7: %d thread(s) gave other bytes than 1 thread", threads[i]);
    CHECK(len[RUNS - 1] != len[0] || memcmp(b[RUNS - 1], b[0], len[0]) != 0, "another seed gave the same graph");
    hx_error err = {0};
    CHECK(hxi_hnsw_serialize(h[0], b[0], len[0] - 1, &len[1], &err) == HX_ERANGE, "short buffer accepted");
    for (int i = 0; i < RUNS; i++) {
        free(b[i]);
        hxi_hnsw_free(h[i]);
    }
}

static void test_tombstones(hxi_hnsw *h)
{
    static bool dead[N_BASE];
    hx_error err = {0};
    for (uint32_t i = 0; i < N_BASE; i++)
        if (i % 10 == 3 || i % 97 == 0) {
            dead[i] = true;
            int rc = hxi_hnsw_delete(h, ids[i], &err);
            CHECK(rc == 0, "delete %u: %s", ids[i], err.message);
        }
    CHECK(hxi_hnsw_delete(h, ids[3], &err) == HX_ENOTFOUND, "deleting twice accepted");
    int returned_dead = 0;
    for (int qi = 0; qi < N_QUERY; qi++) {
        hxi_hnsw_hit got[50];
        uint32_t n;
        hxi_hnsw_query q = {.vector = queries + (size_t)qi * DIM, .k = 50, .ef = 100};
        CHECK(hxi_hnsw_search(h, &q, got, &n, NULL, &err) == 0, "search: %s", err.message);
        CHECK(n == 50, "only %u results", n);
        for (uint32_t j = 0; j < n; j++)
            returned_dead += dead[got[j].id - 1000000];
    }
    CHECK(returned_dead == 0, "%d deleted nodes returned", returned_dead);
    double r = recall(search_builder, h, N_BASE, NULL, NULL, dead, 0);
    printf("recall@%d with %.0f%% tombstoned: %.4f\n", K, 100.0 * (N_BASE - hxi_hnsw_live_count(h)) / N_BASE, r);
    CHECK(r >= 0.97, "recall with tombstones %.4f", r);
}

typedef struct modsel {
    uint32_t mod, rem;
} modsel;

static bool pass_mod(uint32_t id, void *ctx)
{
    const modsel *m = ctx;
    return id % m->mod == m->rem;
}

static void test_filters(search_fn fn, const void *ix, const bool *dead)
{
    /* selective filters: exactly the brute-force top-k of the allowed set */
    static float live_vecs[(size_t)N_BASE * DIM];
    static uint32_t live_ids[N_BASE];
    size_t n_live = 0;
    for (size_t i = 0; i < N_BASE; i++)
        if (!dead || !dead[i]) {
            memcpy(live_vecs + n_live * DIM, base + i * DIM, sizeof(float) * DIM);
            live_ids[n_live++] = ids[i];
        }
    modsel sel[] = {{100, 7}, {1000, 5}, {20, 1}, {4999, 0}};
    for (size_t f = 0; f < sizeof sel / sizeof sel[0]; f++) {
        int mismatches = 0, exact = 0;
        for (int qi = 0; qi < 50; qi++) {
            const float *q = queries + (size_t)qi * DIM;
            hxi_hnsw_hit got[K], want[K];
            uint32_t n = 0;
            hx_error err = {0};
            hxi_hnsw_search_info info;
            hxi_hnsw_query hq = {.vector = q, .k = K, .filter = pass_mod, .filter_ctx = &sel[f]};
            CHECK(fn(ix, &hq, got, &n, &info, &err) == 0, "search: %s", err.message);
            uint32_t m = brute(live_vecs, live_ids, n_live, q, pass_mod, &sel[f], K, want);
            exact += info.exact;
            mismatches += !same_hits(got, n, want, m);
        }
        CHECK(mismatches == 0, "filter id %% %u == %u: %d of 50 differ from brute force",
              sel[f].mod, sel[f].rem, mismatches);
        CHECK(exact == 50, "filter id %% %u: %d of 50 exact", sel[f].mod, exact);
    }
    /* broad filters: graph search, high recall */
    modsel broad[] = {{2, 0}, {3, 1}, {8, 5}};
    for (size_t f = 0; f < sizeof broad / sizeof broad[0]; f++) {
        double r = recall(fn, ix, N_BASE, pass_mod, &broad[f], dead, 0);
        printf("recall@%d, filter passing 1/%u: %.4f\n", K, broad[f].mod, r);
        CHECK(r >= 0.97, "filter id %% %u: recall %.4f", broad[f].mod, r);
    }
    /* a caller's fraction forces the exact path */
    hxi_hnsw_search_info info;
    hxi_hnsw_hit got[K];
    uint32_t n;
    hxi_hnsw_query hq = {.vector = queries, .k = K, .filter = pass_mod, .filter_ctx = &broad[0],
                        .filter_fraction = 0.01f};
    CHECK(fn(ix, &hq, got, &n, &info, NULL) == 0 && info.exact && n == K, "given fraction ignored");
}

static void test_view(hxi_hnsw *h, const bool *dead)
{
    size_t len;
    uint8_t *buf = serialize(h, &len);
    hxi_hnsw_view *v = NULL;
    hx_error err = {0};
    int rc = hxi_hnsw_view_open(&v, buf, len, hxi_hnsw_vectors(h), (size_t)N_BASE * DIM, DOT, &err);
    CHECK(rc == 0, "view open: %s", err.message);
    if (rc)
        return;
    CHECK(hxi_hnsw_view_count(v) == N_BASE && hxi_hnsw_view_dim(v) == DIM, "view count/dim");
    int differ = 0;
    for (int qi = 0; qi < N_QUERY; qi++) {
        hxi_hnsw_hit a[K], b[K];
        uint32_t na, nb;
        hxi_hnsw_query q = {.vector = queries + (size_t)qi * DIM, .k = K, .ef = 40 + qi % 50};
        CHECK(hxi_hnsw_search(h, &q, a, &na, NULL, &err) == 0, "search: %s", err.message);
        CHECK(hxi_hnsw_view_search(v, &q, b, &nb, NULL, &err) == 0, "view search: %s", err.message);
        differ += na != nb || memcmp(a, b, na * sizeof a[0]) != 0;
    }
    CHECK(differ == 0, "%d of %d queries differ between builder and view", differ, N_QUERY);
    test_filters(search_view, v, dead);

    /* fewer floats than n * dim */
    hxi_hnsw_view *w = NULL;
    CHECK(hxi_hnsw_view_open(&w, buf, len, hxi_hnsw_vectors(h), (size_t)N_BASE * DIM - 1, DOT, &err) ==
              HX_ERANGE, "short vector array accepted");

    /* incremental: copy, add, serialize, view again */
    hxi_hnsw *inc = NULL;
    rc = hxi_hnsw_from_view(&inc, v, &err);
    CHECK(rc == 0, "from_view: %s", err.message);
    hxi_hnsw_view_close(v);
    if (rc == 0) {
        static float more[100 * DIM];
        static uint32_t more_ids[100];
        mixture m;
        mixture_init(&m, 1234);
        mixture_sample(&m, more, 100);
        mixture_free(&m);
        for (uint32_t i = 0; i < 100; i++)
            more_ids[i] = 5000000 + i;
        CHECK(hxi_hnsw_add_batch(inc, ids + 1, more, 1, 1, &err) == HX_EINVAL, "live id added twice");
        CHECK(hxi_hnsw_add_batch(inc, more_ids, more, 100, 1, &err) == 0, "add: %s", err.message);
        CHECK(hxi_hnsw_add(inc, ids[3], more, &err) == 0, "re-adding a deleted id: %s", err.message);
        size_t l2;
        uint8_t *b2 = serialize(inc, &l2);
        hxi_hnsw_view *v2 = NULL;
        rc = hxi_hnsw_view_open(&v2, b2, l2, hxi_hnsw_vectors(inc), (size_t)hxi_hnsw_count(inc) * DIM, DOT, &err);
        CHECK(rc == 0, "view of the grown graph: %s", err.message);
        int found = 0;
        for (uint32_t i = 0; rc == 0 && i < 100; i++) {
            hxi_hnsw_hit got[1];
            uint32_t n;
            hxi_hnsw_query q = {.vector = more + (size_t)i * DIM, .k = 1};
            hxi_hnsw_view_search(v2, &q, got, &n, NULL, &err);
            found += n == 1 && got[0].id == more_ids[i];
        }
        CHECK(found >= 99, "only %d of 100 added vectors find themselves", found);
        hxi_hnsw_view_close(v2);
        free(b2);
        hxi_hnsw_free(inc);
    }
    free(buf);
}

/* Every structural field corrupted is refused; every truncation is refused; random damage never
 * crashes (the sanitizer build checks that). */
static void test_corrupt(void)
{
    hxi_hnsw *h = build(600, 1, 3, 40);
    hxi_hnsw_delete(h, ids[5], NULL);
    size_t len;
    uint8_t *good = serialize(h, &len);
    uint8_t *buf = malloc(len);
    const float *vecs = hxi_hnsw_vectors(h);
    size_t nf = (size_t)600 * DIM;
    hxi_hnsw_view *v = NULL;
    hx_error err = {0};
    CHECK(hxi_hnsw_view_open(&v, good, len, vecs, nf, DOT, &err) == 0, "good bytes refused: %s", err.message);
    hxi_hnsw_view_close(v);

    int accepted = 0;
    for (size_t cut = 0; cut < len; cut += cut < 256 ? 1 : 37) {
        memcpy(buf, good, cut);
        v = NULL;
        if (hxi_hnsw_view_open(&v, buf, cut, vecs, nf, DOT, &err) == 0) {
            accepted++;
            hxi_hnsw_view_close(v);
        }
    }
    CHECK(accepted == 0, "%d truncations accepted", accepted);
    memcpy(buf, good, len);
    CHECK(hxi_hnsw_view_open(&v, buf, len - 1, vecs, nf, DOT, &err) == HX_ETRUNCATED, "code %d", err.code);

    /* every header field but the seed; the high byte of each u32 */
    uint32_t n = hxi_hnsw_count(h);
    size_t uoff = 64 + ((4 * (size_t)n + 63) & ~(size_t)63);
    size_t strict[] = {0, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47, 56, 63};
    accepted = 0;
    for (size_t i = 0; i < sizeof strict / sizeof strict[0]; i++) {
        memcpy(buf, good, len);
        buf[strict[i]] ^= 0x80;
        if (hxi_hnsw_view_open(&v, buf, len, vecs, nf, DOT, &err) == 0) {
            accepted++;
            hxi_hnsw_view_close(v);
        }
    }
    memcpy(buf, good, len);
    buf[8] = 2;
    CHECK(hxi_hnsw_view_open(&v, buf, len, vecs, nf, DOT, &err) == HX_EVERSION && strstr(err.message, "2"),
          "version 2: %s", err.message);
    /* every u32 of upper_off, level0 and upper with its high byte set; levels, deleted, padding */
    for (size_t off = uoff; off < len; off += 4) {
        if (off + 3 >= len)
            break;
        memcpy(buf, good, len);
        buf[off + 3] |= 0x80;
        if (hxi_hnsw_view_open(&v, buf, len, vecs, nf, DOT, &err) == 0) {
            accepted++;
            hxi_hnsw_view_close(v);
        }
    }
    CHECK(accepted == 0, "%d damaged structural fields accepted", accepted);

    /* random damage: refused or harmless */
    uint64_t s = 99;
    int opened = 0;
    for (int t = 0; t < 3000; t++) {
        memcpy(buf, good, len);
        int flips = 1 + (int)(rng_next(&s) % 4);
        for (int f = 0; f < flips; f++)
            buf[rng_next(&s) % len] ^= (uint8_t)(1u << (rng_next(&s) % 8));
        if (hxi_hnsw_view_open(&v, buf, len, vecs, nf, DOT, &err) == 0) {
            opened++;
            hxi_hnsw_hit got[K];
            uint32_t k;
            hxi_hnsw_query q = {.vector = queries + (size_t)(t % N_QUERY) * DIM, .k = K, .exact_below = 1};
            CHECK(hxi_hnsw_view_search(v, &q, got, &k, NULL, &err) == 0, "search of damaged graph");
            hxi_hnsw_view_close(v);
        }
    }
    printf("random damage: %d of 3000 opened (labels and unchecked fields)\n", opened);
    free(buf);
    free(good);
    hxi_hnsw_free(h);
}

static void test_small_and_edges(void)
{
    hx_error err = {0};
    hxi_hnsw *h = NULL;
    hxi_hnsw_params bad = {.dim = 0, .dot = DOT};
    CHECK(hxi_hnsw_new(&h, &bad, &err) == HX_EINVAL, "dim 0 accepted");
    hxi_hnsw_params p = {.dim = DIM, .dot = DOT};
    CHECK(hxi_hnsw_new(&h, &p, &err) == 0, "new: %s", err.message);

    /* empty */
    hxi_hnsw_hit got[K];
    uint32_t n = 99;
    hxi_hnsw_query q = {.vector = queries, .k = K};
    CHECK(hxi_hnsw_search(h, &q, got, &n, NULL, &err) == 0 && n == 0, "empty search gave %u", n);
    size_t len;
    uint8_t *buf = serialize(h, &len);
    hxi_hnsw_view *v = NULL;
    CHECK(len == 64 && hxi_hnsw_view_open(&v, buf, len, NULL, 0, DOT, &err) == 0, "empty view: %s", err.message);
    CHECK(v && hxi_hnsw_view_search(v, &q, got, &n, NULL, &err) == 0 && n == 0, "empty view search");
    hxi_hnsw_view_close(v);
    free(buf);
    hxi_hnsw_query zero_k = {.vector = queries, .k = 0};
    CHECK(hxi_hnsw_search(h, &zero_k, got, &n, NULL, &err) == HX_EINVAL, "k 0 accepted");

    /* small index: exact, equal to brute force; duplicate vectors rank by id */
    CHECK(hxi_hnsw_add_batch(h, ids, base, 1500, 1, &err) == 0, "add: %s", err.message);
    CHECK(hxi_hnsw_add(h, 7, base, &err) == 0 && hxi_hnsw_add(h, 3, base, &err) == 0, "add twins");
    CHECK(hxi_hnsw_add(h, 7, base, &err) == HX_EINVAL, "live id 7 added twice");
    static uint32_t all_ids[1502];
    memcpy(all_ids, ids, sizeof(uint32_t) * 1500);
    all_ids[1500] = 7;
    all_ids[1501] = 3;
    int differ = 0;
    for (int qi = 0; qi < 20; qi++) {
        hxi_hnsw_hit want[K];
        hxi_hnsw_search_info info;
        q.vector = qi ? queries + (size_t)qi * DIM : base;
        CHECK(hxi_hnsw_search(h, &q, got, &n, &info, &err) == 0 && info.exact, "small index not exact");
        uint32_t m = brute(hxi_hnsw_vectors(h), all_ids, 1502, q.vector, NULL, NULL, K, want);
        differ += !same_hits(got, n, want, m);
    }
    CHECK(differ == 0, "%d exact searches differ from brute force", differ);
    q.vector = base;
    hxi_hnsw_search(h, &q, got, &n, NULL, &err);
    CHECK(n == K && got[0].id == 3 && got[1].id == 7 && got[2].id == ids[0], "ties: %u %u %u",
          got[0].id, got[1].id, got[2].id);
    /* the graph path on the same index also breaks ties by id */
    q.exact_below = 1;
    hxi_hnsw_search_info info;
    hxi_hnsw_search(h, &q, got, &n, &info, &err);
    CHECK(!info.exact && n == K && got[0].id == 3 && got[1].id == 7, "graph ties: %u %u", got[0].id,
          got[1].id);
    /* k and ef beyond the node count */
    static hxi_hnsw_hit many[5000];
    hxi_hnsw_query big = {.vector = base, .k = 5000, .ef = 4000000000u, .exact_below = 1};
    CHECK(hxi_hnsw_search(h, &big, many, &n, &info, &err) == 0 && n == 1502, "k 5000 gave %u", n);
    big.exact = true;
    CHECK(hxi_hnsw_search(h, &big, many, &n, &info, &err) == 0 && n == 1502, "exact k 5000 gave %u", n);
    hxi_hnsw_free(h);
}

/* Groups of near-duplicate vectors, 20 seeds: a graph built on two threads is accepted by the view
 * (an earlier lock-based build left stale links in unused slots here, and every one of 20 builds
 * was refused) and is byte-identical to the one-thread build. */
static void test_threaded_views(void)
{
    enum { GROUPS = 200, COPIES = 8, NV = GROUPS * COPIES };
    float *v = malloc(sizeof(float) * NV * DIM);
    uint32_t *vid = malloc(sizeof *vid * NV);
    uint64_t rs = 99;
    for (int g = 0; g < GROUPS; g++) {
        float proto[DIM];
        for (int d = 0; d < DIM; d++)
            proto[d] = gauss(&rs);
        for (int c = 0; c < COPIES; c++) {
            float *x = v + (size_t)(g * COPIES + c) * DIM;
            for (int d = 0; d < DIM; d++)
                x[d] = proto[d] + 0.01f * gauss(&rs);
            normalize(x);
            vid[g * COPIES + c] = (uint32_t)(g * COPIES + c);
        }
    }
    int refused = 0, differ = 0;
    for (uint64_t round = 0; round < 20; round++) {
        hxi_hnsw_params p = {.dim = DIM, .dot = DOT, .seed = round, .ef_construction = 40};
        hxi_hnsw *h = NULL, *one = NULL;
        hxi_hnsw_view *view = NULL;
        hx_error err = {0};
        size_t len = 0, len_one = 0;
        if (hxi_hnsw_new(&h, &p, &err) || hxi_hnsw_add_batch(h, vid, v, NV, 2, &err) ||
            hxi_hnsw_new(&one, &p, &err) || hxi_hnsw_add_batch(one, vid, v, NV, 1, &err) ||
            hxi_hnsw_serialize(h, NULL, 0, &len, &err) || hxi_hnsw_serialize(one, NULL, 0, &len_one, &err)) {
            CHECK(0, "threaded build: %s", err.message);
            hxi_hnsw_free(h);
            hxi_hnsw_free(one);
            break;
        }
        uint8_t *buf = malloc(len), *buf_one = malloc(len_one);
        hxi_hnsw_serialize(h, buf, len, &len, &err);
        hxi_hnsw_serialize(one, buf_one, len_one, &len_one, &err);
        if (hxi_hnsw_view_open(&view, buf, len, hxi_hnsw_vectors(h), (size_t)NV * DIM, DOT, &err))
            refused++;
        differ += len != len_one || memcmp(buf, buf_one, len) != 0;
        hxi_hnsw_view_close(view);
        free(buf);
        free(buf_one);
        hxi_hnsw_free(h);
        hxi_hnsw_free(one);
    }
    CHECK(refused == 0, "%d of 20 threaded builds serialized to a graph the view refuses", refused);
    CHECK(differ == 0, "%d of 20 two-thread builds differ from the one-thread build", differ);
    free(v);
    free(vid);
}

int main(void)
{
    base = malloc(sizeof(float) * N_BASE * DIM);
    queries = malloc(sizeof(float) * N_QUERY * DIM);
    mixture m;
    mixture_init(&m, 2026);
    mixture_sample(&m, base, N_BASE);
    mixture_sample(&m, queries, N_QUERY);
    mixture_free(&m);
    for (uint32_t i = 0; i < N_BASE; i++)
        ids[i] = 1000000 + i;

    test_small_and_edges();
    test_threaded_views();
    test_reproducible();
    test_corrupt();
    {
        static bool dead[N_BASE];
        hxi_hnsw *h = build(N_BASE, 1, 42, 0);
        test_recall(h, 1);
        hxi_hnsw_free(h);
        h = build(N_BASE, 2, 11, 0);
        test_recall(h, 2);
        test_filters(search_builder, h, NULL);
        test_tombstones(h);
        for (uint32_t i = 0; i < N_BASE; i++)
            dead[i] = i % 10 == 3 || i % 97 == 0;
        test_filters(search_builder, h, dead);
        test_view(h, dead);
        hxi_hnsw_free(h);
    }
    free(base);
    free(queries);
    return check_report("test_hnsw");
}
