/* model.c: opens a weights file (layout in tools/convert_weights.py, container in hxfile.h),
 * validates its config and every tensor shape, builds the tokenizer and packs the matrices for
 * the kernel table. Must not run the forward pass (encoder.c) or print. */
#include "model.h"
#include "alloc.h"
#include "bytes.h"
#include "kernels.h"
#include "platform.h"
#include "pool.h"
#include "sha256.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* === Config === */

static int check_range(const char *what, uint32_t v, uint32_t lo, uint32_t hi, hx_error *err)
{
    if (v < lo || v > hi)
        return hx_error_set(err, HX_ERANGE, -1, "weights config: %s is %u, allowed %u..%u", what, v,
                            lo, hi);
    return 0;
}

static int read_config(hx_model *m, hx_error *err)
{
    const hxf_section *s;
    const uint32_t edims[4] = {1, 0, 0, 0};
    uint32_t cdims[4] = {HX_MODEL_CONFIG_LEN, 0, 0, 0};
    const hxf_section *found = hxf_find(&m->view, "config");
    if (found && found->rank == 1 && found->dims[0] == HX_MODEL_CONFIG_LEN_EXT)
        cdims[0] = HX_MODEL_CONFIG_LEN_EXT;
    int rc = hxf_expect(&m->view, "config", HXF_U32, 1, cdims, &s, err);
    if (rc)
        return rc;
    uint32_t c[HX_MODEL_CONFIG_LEN_EXT] = {0};
    for (uint32_t i = 0; i < cdims[0]; i++)
        c[i] = hxf_le32(s->data + 4 * i);
    if ((rc = check_range("vocab size", c[0], 1, HX_MODEL_MAX_VOCAB, err)) ||
        (rc = check_range("hidden size", c[1], 1, HX_MODEL_MAX_HIDDEN, err)) ||
        (rc = check_range("layer count", c[2], 1, HX_MODEL_MAX_LAYERS, err)) ||
        (rc = check_range("head count", c[3], 1, HX_MODEL_MAX_HEADS, err)) ||
        (rc = check_range("ffn size", c[4], 1, HX_MODEL_MAX_FFN, err)) ||
        (rc = check_range("max positions", c[5], 1, HX_MODEL_MAX_POS, err)) ||
        (rc = check_range("type vocab size", c[6], 1, HX_MODEL_MAX_TYPES, err)) ||
        (rc = check_range("max_seq_len", c[7], 2, HX_MODEL_MAX_SEQ, err)) ||
        (rc = check_range("architecture", c[11], HX_ARCH_BERT, HX_ARCH_MPNET, err)) ||
        (rc = check_range("position offset", c[12], 0, HX_MODEL_MAX_POS, err)) ||
        (rc = check_range("relative buckets", c[13], 0, HX_MODEL_MAX_BUCKETS, err)) ||
        (rc = check_range("relative max distance", c[14], 0, HX_MODEL_MAX_POS, err)))
        return rc;
    if (c[1] % c[3])
        return hx_error_set(err, HX_EFORMAT, -1, "weights config: hidden size %u is not a multiple of "
                            "the head count %u", c[1], c[3]);
    if (c[7] + c[12] > c[5])
        return hx_error_set(err, HX_EFORMAT, -1, "weights config: max_seq_len %u from position %u "
                            "exceeds the %u position embeddings", c[7], c[12], c[5]);
    if (c[8] != 1 || c[9] != 1 || c[10] != 1)
        return hx_error_set(err, HX_EFORMAT, -1, "weights config: activation %u, pooling %u, "
                            "normalize %u; this build supports only 1 (GELU erf, mean, L2)",
                            c[8], c[9], c[10]);
    /* MPNet's relative attention: an even bucket count with 2+ exact distances on each side, and
     * a max distance past them; BERT has none. */
    if (c[11] == HX_ARCH_MPNET ? c[13] < 8 || c[13] % 2 || c[14] <= c[13] / 4 : c[13] != 0)
        return hx_error_set(err, HX_EFORMAT, -1, "weights config: %u relative buckets, max distance "
                            "%u do not fit architecture %u", c[13], c[14], c[11]);
    if (c[15])
        return hx_error_set(err, HX_EFORMAT, -1, "weights config: reserved entry 15 is %u, not 0", c[15]);
    if ((rc = hxf_expect(&m->view, "ln_eps", HXF_F32, 1, edims, &s, err)))
        return rc;
    float eps;
    memcpy(&eps, s->data, sizeof eps);
    if (!(eps > 0.0f && eps < 1.0f))
        return hx_error_set(err, HX_ERANGE, -1, "weights config: LayerNorm epsilon %g is not in (0, 1)",
                            (double)eps);
    m->cfg = (hxi_model_config){(int)c[0], (int)c[1], (int)c[2], (int)c[3], (int)c[4], (int)c[5],
                               (int)c[6], (int)c[7], eps, (int)c[11], (int)c[12], (int)c[13], (int)c[14]};
    return 0;
}

/* === Tensors === */

static int get_vec(const hx_model *m, const char *name, int n, const float **out, hx_error *err)
{
    const hxf_section *s;
    const uint32_t dims[4] = {(uint32_t)n, 0, 0, 0};
    int rc = hxf_expect(&m->view, name, HXF_F32, 1, dims, &s, err);
    if (!rc)
        *out = (const float *)(const void *)s->data;
    return rc;
}

static int get_mat(const hx_model *m, const char *name, int rows, int cols, const uint16_t **out,
                   const hxf_section **sec, hx_error *err)
{
    const hxf_section *s;
    const uint32_t dims[4] = {(uint32_t)rows, (uint32_t)cols, 0, 0};
    int rc = hxf_expect(&m->view, name, HXF_F16, 2, dims, &s, err);
    if (!rc)
        *out = (const uint16_t *)(const void *)s->data;
    if (!rc && sec)
        *sec = s;
    return rc;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* Anonymous memory for the packed weights, 2 MB aligned and marked for transparent huge pages:
 * tens of MB are written once at open, and huge pages save thousands of page faults there. */
static uint8_t *packed_alloc(size_t bytes, size_t *mapped)
{
    size_t len = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uint8_t *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    size_t head = (HUGE_PAGE - (uintptr_t)p % HUGE_PAGE) % HUGE_PAGE;
    if (head)
        munmap(p, head);
    munmap(p + head + len, HUGE_PAGE - head);
    hxi_platform_huge_pages(p + head, len);
    *mapped = len;
    return p + head;
}

/* Bytes reserved for a size, rounded up to keep every packed array 64-byte aligned. */
static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

/* The LayerNorm whose output a Linear layer reads, if any: an int8 model smooths such an input
 * (smooth_input). */
enum ln_input {
    LN_NONE,
    LN_PREV_LN2,   /* the previous layer's second LayerNorm (the embeddings' before layer 0) */
    LN_THIS_LN1,   /* this layer's first LayerNorm */
};

/* The Linear layers of a layer, in the order of pack jobs: name, bias, N and K in units of the
 * hidden size (-1: the FFN size), the LayerNorm it reads, and its parts at int8 (hxi_qlinear: QKV's
 * query, key and value rows each get their own smoothing, which a shared one cannot match: min
 * cosine 0.99597 against 0.99359 in simulation, bench/RESULTS.md). Every Linear layer runs in
 * int8 in an int8 model. */
static const struct {
    const char *w, *b;
    int n, k;
    enum ln_input ln;
    int parts;
} linears[4] = {
    {"qkv_w", "qkv_b", 3, 1, LN_PREV_LN2, 3},
    {"o_w", "o_b", 1, 1, LN_NONE, 1},
    {"ffn1_w", "ffn1_b", -1, 1, LN_THIS_LN1, 1},
    {"ffn2_w", "ffn2_b", 1, -1, LN_NONE, 1},
};

/* The int8 recipe of each architecture (enum hxi_arch), measured against sentence-transformers on
 * the golden texts (tests/test_encoder*.c; bench/RESULTS-mpnet.md "int8 per architecture"): `fine_last` runs
 * the Linear layers of the last fine_last layers fine (hxi_qlinear.fine: about 16-bit inputs, twice
 * the integer work); `balance` > 0 also smooths every layer's input channels by
 * (mean_k c_k / c_k)^balance, c_k the largest weight of column k (after the LayerNorm smoothing),
 * which evens out the weights' columns for their 8-bit rows at the cost of wider inputs. MiniLM:
 * plain (min cosine 0.9965). MPNet, min cosine over the 357 golden texts (AVX512-VNNI; AVX2, before
 * every table gave the same bits): plain 0.9885; every layer fine 0.9920, with balance 0.2 0.99840
 * (0.99840) at twice the integer work; balance 0.2 and fine in the last 2 layers only 0.99770
 * (0.99668), 1.7x faster than every layer fine, and 0.99751 on every table since. The error comes from the last layers: fine in layers 6-11 alone gives 0.99834, in 0-5 alone
 * 0.9794, in layer 11 alone 0.9808, in layer 10 alone 0.9971 (every third text); balance only where
 * fine, 0.9886. */
static const struct {
    int fine_last;
    float balance;
} int8_recipe[] = {
    [HX_ARCH_BERT] = {0, 0.0f},
    [HX_ARCH_MPNET] = {2, 0.2f},
};

/* Bump with any other change to the int8 design that moves an int8 model's vectors (smoothing,
 * quantization, the fine layers' second pass): hxi_model_recipe then names a new recipe, and
 * vectors embedded with the old one are not reused (index reuse.c). */
#define INT8_RECIPE_VERSION 1

void hxi_model_recipe(const hx_model *m, char *buf, size_t cap)
{
    const int fine = int8_recipe[m->cfg.arch].fine_last;
    const float balance = int8_recipe[m->cfg.arch].balance;
    if (m->precision != HX_PRECISION_INT8 || (fine == 0 && balance == 0 && INT8_RECIPE_VERSION == 1))
        snprintf(buf, cap, "%s", "");   /* fp32, or the plain recipe every int8 index had before */
    else
        snprintf(buf, cap, "int8 recipe %d: last %d layers fine, balance %.9g", INT8_RECIPE_VERSION, fine,
                 (double)balance);
}

/* One matrix to convert and pack (task i < n_jobs; task n_jobs builds the tokenizer): into float
 * panels (dst) or int8 ones (q, part by part). */
typedef struct pack_job {
    const uint16_t *W;           /* [N x K] fp16 in the map */
    const hxf_section *sec;      /* its section, checksummed only when packed (packed_sections) */
    int N, K;
    int lin;                     /* index in linears[] */
    int parts;                   /* int8 parts, or 0: float */
    uint8_t *dst;                /* in m->packed: hxi_pack_size(N, K, nr) floats, or the int8 parts */
    const float *ln_w, *ln_b;    /* [K] the LayerNorm whose output the layer reads, or NULL */
} pack_job;

/* Where the pieces of int8 part p of Linear layer `lin` [n x K a part] lie from base (part_bytes
 * each): packed weights, scales, sums and, when smoothed, 1 / smoothing (else NULL). */
typedef struct part_layout {
    int8_t *w;
    float *wscale;
    int32_t *wsum;
    float *xinv;
} part_layout;

typedef struct pack_ctx {
    hx_model *m;
    pack_job *jobs;              /* [n_jobs] */
    int n_jobs;
    float *rows;                 /* [threads x 3 row_len] scratch */
    int row_len;
    const hxf_section *vocab;
    const hxf_section *spec;     /* "tokenizer" section, or NULL: BERT's */
    int tok_rc;
    hx_error tok_err;
} pack_ctx;

/* Whether Linear layer i's input is smoothed in m at int8: when it reads a LayerNorm, or the
 * architecture balances every layer's columns. */
static int smoothed(const hx_model *m, int i)
{
    return linears[i].ln != LN_NONE || int8_recipe[m->cfg.arch].balance > 0;
}

/* Bytes of one int8 part [n x K]: packed weights, scales, sums and, when smoothed, 1 / smoothing. */
static size_t part_bytes(const hx_model *m, int i, int n, int K)
{
    return align64(hxi_pack_i8_size(n, K)) + 2 * align64((size_t)n * 4) + (smoothed(m, i) ? align64((size_t)K * 4) : 0);
}

static part_layout part_at(const hx_model *m, int lin, int n, int K, uint8_t *base, int p)
{
    uint8_t *w = base + (size_t)p * part_bytes(m, lin, n, K), *at = w + align64(hxi_pack_i8_size(n, K));
    return (part_layout){(int8_t *)w, (float *)(void *)at, (int32_t *)(void *)(at + align64((size_t)n * 4)),
                         smoothed(m, lin) ? (float *)(void *)(at + 2 * align64((size_t)n * 4)) : NULL};
}

/* int8 smoothing of a layer that reads a LayerNorm's output x_k = beta_k + gamma_k n_k (SmoothQuant
 * with alpha 1/2, without calibration texts): xs_k = sqrt(r_k / w_k), where r_k = |beta_k| +
 * SMOOTH_SPREAD |gamma_k| estimates the channel's range and w_k = max_n |W[n][k]| its weights'
 * range, so that the two share the channel's outliers. Chosen on bench/int8_quality.py's
 * simulation (bench/RESULTS.md, "u8 inputs"): min cosine 0.99597 over the golden texts against
 * 0.99190 unsmoothed (hyrax itself: 0.99650 against 0.99292), spread 2..8 within 1e-4 of each
 * other; calibrated maxima gave 0.99689 but need texts and a weights section. The attention
 * output's and FFN down's inputs stay unsmoothed (MiniLM): the same kind of estimate lost cosine
 * there. An architecture with a balance (int8_recipe) smooths every layer's input, multiplying xs_k
 * by (mean_k c_k / c_k)^balance, c_k = w_k xs_k (1 for a layer without a LayerNorm before it).
 * Writes xs and xinv (K floats each); wmax: K floats of scratch. */
#define SMOOTH_SPREAD 4.0f
#define SMOOTH_FLOOR 1e-5f

static void smooth_input(const hx_model *m, const pack_job *j, const uint16_t *W, int N, float *row, float *xs,
                         float *xinv, float *wmax)
{
    const int K = j->K;
    const float balance = int8_recipe[m->cfg.arch].balance;
    for (int k = 0; k < K; k++)
        wmax[k] = 0;
    for (int n = 0; n < N; n++) {
        m->kern->f16_to_f32(W + (size_t)n * K, row, (size_t)K);
        for (int k = 0; k < K; k++)
            wmax[k] = fabsf(row[k]) > wmax[k] ? fabsf(row[k]) : wmax[k];
    }
    double mean = 0;   /* of the columns' largest weights after the LayerNorm smoothing (balance) */
    for (int k = 0; k < K; k++) {
        float s = 1.0f;
        if (j->ln_w) {
            const float r = fabsf(j->ln_b[k]) + SMOOTH_SPREAD * fabsf(j->ln_w[k]);
            s = sqrtf((r > SMOOTH_FLOOR ? r : SMOOTH_FLOOR) / (wmax[k] > SMOOTH_FLOOR ? wmax[k] : SMOOTH_FLOOR));
        }
        xs[k] = s >= SMOOTH_FLOOR && s <= 1.0f / SMOOTH_FLOOR ? s : 1.0f;   /* out of range or NaN: none */
        wmax[k] *= xs[k];
        mean += wmax[k];
    }
    mean /= K;
    for (int k = 0; k < K; k++) {
        if (balance > 0 && wmax[k] > SMOOTH_FLOOR) {
            const float s = xs[k] * powf((float)mean / wmax[k], balance);
            xs[k] = s >= SMOOTH_FLOOR && s <= 1.0f / SMOOTH_FLOOR ? s : xs[k];
        }
        xinv[k] = 1.0f / xs[k];
    }
}

static void pack_task(void *arg, int task, int worker)
{
    pack_ctx *p = arg;
    if (task == p->n_jobs) {
        p->tok_rc = hxi_tokenizer_new_spec(&p->m->tok, (const char *)p->vocab->data,
                                           (size_t)p->vocab->length,
                                           p->spec ? (const char *)p->spec->data : NULL,
                                           p->spec ? (size_t)p->spec->length : 0, &p->tok_err);
        return;
    }
    const pack_job *j = &p->jobs[task];
    float *row = p->rows + (size_t)worker * 3 * p->row_len, *xs = row + p->row_len, *wmax = xs + p->row_len;
    if (!j->parts) {
        hxi_pack_weights_f16(p->m->kern, j->W, j->N, j->K, row, (float *)(void *)j->dst);
        return;
    }
    const int n = j->N / j->parts;
    for (int i = 0; i < j->parts; i++) {
        const part_layout q = part_at(p->m, j->lin, n, j->K, j->dst, i);
        const uint16_t *W = j->W + (size_t)i * n * j->K;
        if (q.xinv)
            smooth_input(p->m, j, W, n, row, xs, q.xinv, wmax);
        hxi_pack_weights_i8(p->m->kern, W, n, j->K, q.xinv ? xs : NULL, row, q.w, q.wscale, q.wsum);
    }
}

/* Parts of Linear layer i [N x K] at int8 in m: 0 when it runs in float. */
static int int8_parts(const hx_model *m, int i, int N, int K)
{
    const int parts = linears[i].parts;
    return m->precision == HX_PRECISION_INT8 && K <= HX_I8_MAX_K && N % parts == 0 ? parts : 0;
}

/* Bytes of m->packed that one Linear layer [N x K] takes at the model's precision. */
static size_t linear_bytes(const hx_model *m, int i, int N, int K)
{
    const int parts = int8_parts(m, i, N, K);
    if (parts)
        return (size_t)parts * part_bytes(m, i, N / parts, K);
    return align64(hxi_pack_size(N, K, m->kern->nr) * sizeof(float));
}

/* Checks every layer tensor, then converts and packs the matrices while the tokenizer is built,
 * on several threads when the model is big enough for that to pay. */
static int load_layers(hx_model *m, const hxf_section *vocab, hx_error *err)
{
    const hxi_model_config *c = &m->cfg;
    const int H = c->hidden, F = c->ffn;
    size_t per_layer = 0;
    for (int i = 0; i < 4; i++)
        per_layer += linear_bytes(m, i, linears[i].n < 0 ? F : linears[i].n * H, linears[i].k < 0 ? F : H);
    size_t total = per_layer * (size_t)c->layers;   /* bounded by the caps: < 2^42 bytes */
    int threads = 1;
    if (total >= ((size_t)1 << 22)) {
        int cpus = hx_platform_cpus();
        threads = cpus > 8 ? 8 : cpus;
    }
    pack_ctx p = {m, NULL, 4 * c->layers, NULL, H > F ? H : F, vocab, hxf_find(&m->view, "tokenizer"), 0, {0}};
    if (p.spec && p.spec->dtype != HXF_RAW)
        return hx_error_set(err, HX_EFORMAT, -1, "section 'tokenizer' is not raw bytes");
    m->layers = hx_calloc((size_t)c->layers, sizeof *m->layers);
    const bool cached = m->cached && !hxi_pack_cache_map(m, total, &m->packed, &m->packed_map, &m->packed_map_len);
    if (!cached)
        m->packed = packed_alloc(total, &m->packed_len);
    p.jobs = hx_calloc((size_t)p.n_jobs, sizeof *p.jobs);
    p.rows = hx_malloc((size_t)threads * 3 * (size_t)p.row_len * sizeof(float));
    int rc = 0;
    if (!m->layers || !m->packed || !p.jobs || !p.rows)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory packing %zu MB of weights", total >> 20);
    uint8_t *dst = m->packed;
    for (int l = 0; l < c->layers && !rc; l++) {
        hxi_layer *L = &m->layers[l];
        const float **packed[4] = {&L->qkv_w, &L->o_w, &L->ffn1_w, &L->ffn2_w};
        const float **bias[4] = {&L->qkv_b, &L->o_b, &L->ffn1_b, &L->ffn2_b};
        hxi_qlinear *qlin[4] = {&L->qkv_q, &L->o_q, &L->ffn1_q, &L->ffn2_q};
        char name[HXF_NAME_MAX + 1];
        for (int i = 0; i < 4 && !rc; i++) {
            pack_job *j = &p.jobs[4 * l + i];
            j->N = linears[i].n < 0 ? F : linears[i].n * H;
            j->K = linears[i].k < 0 ? F : H;
            snprintf(name, sizeof name, "L%d.%s", l, linears[i].w);
            if ((rc = get_mat(m, name, j->N, j->K, &j->W, &j->sec, err)))
                break;
            snprintf(name, sizeof name, "L%d.%s", l, linears[i].b);
            if ((rc = get_vec(m, name, j->N, bias[i], err)))
                break;
            j->lin = i;
            j->parts = int8_parts(m, i, j->N, j->K);
            const size_t values = (size_t)j->parts * (size_t)hxi_i8_row_len(j->K);
            m->i8_row_values = values > m->i8_row_values ? values : m->i8_row_values;
            qlin[i]->fine = j->parts && l >= c->layers - int8_recipe[c->arch].fine_last;
            if (qlin[i]->fine && values > m->i8_fine_values)
                m->i8_fine_values = values;
            j->dst = dst;
            qlin[i]->parts = j->parts;
            for (int q = 0; q < j->parts; q++) {
                const part_layout pl = part_at(m, i, j->N / j->parts, j->K, dst, q);
                qlin[i]->part[q] = (hxi_qmat){pl.w, pl.wscale, pl.wsum, pl.xinv};
            }
            if (!j->parts)
                *packed[i] = (float *)(void *)dst;
            dst += linear_bytes(m, i, j->N, j->K);
        }
        const struct {
            const char *name;
            const float **p;
        } vecs[4] = {{"ln1_w", &L->ln1_w}, {"ln1_b", &L->ln1_b}, {"ln2_w", &L->ln2_w}, {"ln2_b", &L->ln2_b}};
        for (int i = 0; i < 4 && !rc; i++) {
            snprintf(name, sizeof name, "L%d.%s", l, vecs[i].name);
            rc = get_vec(m, name, H, vecs[i].p, err);
        }
        for (int i = 0; i < 4 && !rc; i++) {
            pack_job *j = &p.jobs[4 * l + i];
            if (linears[i].ln == LN_THIS_LN1)
                j->ln_w = L->ln1_w, j->ln_b = L->ln1_b;
            else if (linears[i].ln == LN_PREV_LN2)
                j->ln_w = l ? m->layers[l - 1].ln2_w : m->emb_ln_w, j->ln_b = l ? m->layers[l - 1].ln2_b : m->emb_ln_b;
        }
    }
    for (int t = 0; !rc && !cached && t < p.n_jobs; t++)   /* the matrices, read only when packing */
        rc = hxf_section_check(p.jobs[t].sec, err);
    hxi_pool *pool = NULL;
    if (!rc && !cached && threads > 1 && hxi_pool_new(&pool, threads, NULL) != 0)
        threads = 1;   /* no threads to be had: pack on this one */
    if (!rc && cached) {   /* the packed block is mapped: only the tokenizer to build */
        pack_task(&p, p.n_jobs, 0);
    } else if (!rc) {
        if (pool)
            hxi_pool_run(pool, p.n_jobs + 1, pack_task, &p);
        else
            for (int t = 0; t <= p.n_jobs; t++)
                pack_task(&p, t, 0);
    }
    if (!rc && (rc = p.tok_rc) != 0 && err)
        *err = p.tok_err;
    hxi_pool_free(pool);
    if (!rc && !cached) {
        mprotect(m->packed, m->packed_len, PROT_READ);   /* read-only from here on */
        if (m->cached)
            hxi_pack_cache_store(m, m->packed, total);
    }
    free(p.jobs);
    free(p.rows);
    if (!rc && hxi_tokenizer_vocab_size(m->tok) != (size_t)c->vocab)
        rc = hx_error_set(err, HX_EFORMAT, -1, "section 'vocab' has %zu tokens, config says %d",
                          hxi_tokenizer_vocab_size(m->tok), c->vocab);
    return rc;
}

int hxi_model_rel_bucket(int d, int buckets, int max_dist)
{
    /* HF: n = -d; half the buckets for n < 0; exact below max_exact, then logarithmic up to
     * max_dist, in float32 as torch computes it (a tensor divided by a scalar is multiplied by
     * the scalar's float reciprocal). */
    const int half = buckets / 2, max_exact = half / 2, n = d > 0 ? d : -d;
    const int ret = d > 0 ? half : 0;
    if (n < max_exact)
        return ret + n;
    const float inv_log = 1.0f / (float)log((double)max_dist / max_exact);
    const float scaled = logf((float)n * (1.0f / (float)max_exact)) * inv_log * (float)(half - max_exact);
    const int large = max_exact + (int)scaled;
    return ret + (large < half - 1 ? large : half - 1);
}

/* The relative attention bias [buckets x heads] spread into m->rel per head and distance. */
static int load_rel_bias(hx_model *m, hx_error *err)
{
    const hxi_model_config *c = &m->cfg;
    const hxf_section *s;
    const uint32_t dims[4] = {(uint32_t)c->rel_buckets, (uint32_t)c->heads, 0, 0};
    int rc = hxf_expect(&m->view, "rel_bias", HXF_F32, 2, dims, &s, err);
    if (rc)
        return rc;
    const size_t span = 2 * (size_t)c->max_seq - 1;
    m->rel = hx_malloc((size_t)c->heads * span * sizeof *m->rel);
    if (!m->rel)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for the relative attention bias");
    for (int d = -(c->max_seq - 1); d < c->max_seq; d++) {
        const int b = hxi_model_rel_bucket(d, c->rel_buckets, c->rel_max_dist);
        for (int h = 0; h < c->heads; h++) {
            float v;
            memcpy(&v, s->data + 4 * ((size_t)b * c->heads + h), sizeof v);
            m->rel[(size_t)h * span + (size_t)(d + c->max_seq - 1)] = v;
        }
    }
    return 0;
}

static int load_embeddings(hx_model *m, hx_error *err)
{
    const hxi_model_config *c = &m->cfg;
    const int H = c->hidden;
    const uint16_t *pos, *type;
    int rc;
    if ((rc = get_mat(m, "word_emb", c->vocab, H, &m->word_emb, NULL, err)) ||
        (rc = get_mat(m, "pos_emb", c->max_pos, H, &pos, NULL, err)) ||
        (rc = get_mat(m, "type_emb", c->type_vocab, H, &type, NULL, err)) ||
        (rc = get_vec(m, "emb_ln_w", H, &m->emb_ln_w, err)) ||
        (rc = get_vec(m, "emb_ln_b", H, &m->emb_ln_b, err)))
        return rc;
    /* With a position offset (MPNet, as RoBERTa), a pad token in the text takes the padding
     * position offset - 1 and the others count from offset: row 0 is the padding position. */
    const int rows = c->max_seq + (c->pos_offset > 0), first = c->pos_offset - (c->pos_offset > 0);
    m->pos_type = hx_malloc((size_t)rows * (size_t)H * sizeof(float));
    float *t0 = hx_malloc((size_t)H * sizeof *t0);
    if (!m->pos_type || !t0) {
        free(t0);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for position embeddings");
    }
    m->kern->f16_to_f32(type, t0, (size_t)H);   /* token type 0: sentence-transformers' only one */
    for (int t = 0; t < rows; t++) {
        float *dst = m->pos_type + (size_t)t * H;
        m->kern->f16_to_f32(pos + (size_t)(t + first) * H, dst, (size_t)H);
        for (int i = 0; i < H; i++)
            dst[i] += t0[i];
    }
    free(t0);
    return c->rel_buckets ? load_rel_bias(m, err) : 0;
}

/* Checks the name and vocab sections; the tokenizer is built in load_layers. */
static int load_text(hx_model *m, const hxf_section **vocab, hx_error *err)
{
    const hxf_section *s = hxf_find(&m->view, "name");
    if (!s)
        return hx_error_set(err, HX_ENOTFOUND, -1, "section 'name' is missing");
    if (s->dtype != HXF_RAW || s->length == 0 || s->length >= sizeof m->name)
        return hx_error_set(err, HX_EFORMAT, -1, "section 'name' is not 1..%zu raw bytes",
                            sizeof m->name - 1);
    for (uint64_t i = 0; i < s->length; i++)
        if (s->data[i] < 0x20 || s->data[i] > 0x7e)
            return hx_error_set(err, HX_EFORMAT, -1, "section 'name' is not printable ASCII");
    memcpy(m->name, s->data, (size_t)s->length);
    m->name[s->length] = 0;
    s = hxf_find(&m->view, "vocab");
    if (!s)
        return hx_error_set(err, HX_ENOTFOUND, -1, "section 'vocab' is missing");
    if (s->dtype != HXF_RAW)
        return hx_error_set(err, HX_EFORMAT, -1, "section 'vocab' is not raw bytes");
    *vocab = s;
    return 0;
}

/* === Open and close === */

/* hx_model_hash: SHA-256 of the 64-byte header and the section table (n x 64 bytes). The table
 * holds every section's name, shape, place and CRC32C, so any change to the weights changes it,
 * without reading 100s of MB at each open (hxf_parse has checked the CRCs against the data). */
static void model_digest(hx_model *m)
{
    const uint8_t *b = m->view.base;
    hxi_sha256 s;
    uint8_t d[32];
    hxi_sha256_init(&s);
    hxi_sha256_update(&s, b, HXF_HEADER_SIZE);
    hxi_sha256_update(&s, b + hxf_le64(b + 16), (size_t)m->view.n_sections * HXF_ENTRY_SIZE);
    hxi_sha256_final(&s, d);
    for (int i = 0; i < 32; i++)
        snprintf(m->hash + 2 * i, 3, "%02x", d[i]);
}

/* Whether section s holds a Linear layer's matrix ("L<n>.<linears[i].w>"): load_layers checks
 * those only when it packs them, not when the packed-weights cache stands in for them. */
static bool packed_section(const hxf_section *s)
{
    const char *dot = strchr(s->name, '.');
    for (int i = 0; dot && s->name[0] == 'L' && i < 4; i++)
        if (!strcmp(dot + 1, linears[i].w))
            return true;
    return false;
}

static int model_load(hx_model *m, const uint8_t *buf, size_t size, hx_error *err)
{
    const hxf_section *vocab = NULL;
    int rc = hxf_parse_verified(buf, size, HXF_KIND_WEIGHTS, &m->view, err);
    for (uint32_t i = 0; !rc && i < m->view.n_sections; i++)   /* the rest: load_layers */
        if (!packed_section(&m->view.sections[i]))
            rc = hxf_section_check(&m->view.sections[i], err);
    if (!rc)
        model_digest(m);   /* the packed-weights cache is keyed by it */
    if (!rc)
        rc = read_config(m, err);
    if (!rc)
        rc = load_text(m, &vocab, err);
    if (!rc)
        rc = load_embeddings(m, err);
    if (!rc)
        rc = load_layers(m, vocab, err);
    return rc;
}

/* A new model at `precision` for kern; caller frees with hx_model_close. */
static int model_new(hx_model **out, const hxi_kernels *kern, hx_precision precision, hx_error *err)
{
    *out = NULL;
    if (precision != HX_PRECISION_FP32 && precision != HX_PRECISION_INT8)
        return hx_error_set(err, HX_EINVAL, -1, "precision %d is neither fp32 nor int8", (int)precision);
    hx_model *m = hx_calloc(1, sizeof *m);
    if (!m)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory opening the model");
    m->kern = kern;
    m->k8 = precision == HX_PRECISION_INT8 ? hxi_kernels_i8_get() : NULL;   /* AMX is asked for only then */
    m->precision = precision;
    *out = m;
    return 0;
}

/* hxi_model_open_buffer_at, with the packed-weights cache when `cache`. */
static int open_buffer(hx_model **out, const uint8_t *buf, size_t size, const hxi_kernels *kern, hx_precision precision,
                       bool cache, hx_error *err)
{
    *out = NULL;
    if (!buf || !kern)
        return hx_error_set(err, HX_EINVAL, -1, "no weights buffer or kernel table");
    if ((uintptr_t)buf % 16)
        return hx_error_set(err, HX_EINVAL, -1, "weights buffer is not 16-byte aligned");
    hx_model *m;
    int rc = model_new(&m, kern, precision, err);
    if (!rc)
        m->cached = cache;
    if (!rc && (rc = model_load(m, buf, size, err)) != 0)
        hx_model_close(m);
    else if (!rc)
        *out = m;
    return rc;
}

int hxi_model_open_buffer_at(hx_model **out, const uint8_t *buf, size_t size, const hxi_kernels *kern,
                             hx_precision precision, hx_error *err)
{
    return open_buffer(out, buf, size, kern, precision, false, err);
}

int hxi_model_open_buffer(hx_model **out, const uint8_t *buf, size_t size, const hxi_kernels *kern,
                          hx_error *err)
{
    return hxi_model_open_buffer_at(out, buf, size, kern, HX_PRECISION_FP32, err);
}

static int open_path(hx_model **out, const char *path, const hxi_kernels *kern, hx_precision precision,
                     hx_error *err)
{
    *out = NULL;
    if (!path || !kern)
        return hx_error_set(err, HX_EINVAL, -1, "no weights path or kernel table");
    hx_model *m;
    int rc = model_new(&m, kern, precision, err);
    if (rc)
        return rc;
    m->cached = kern == hxi_kernels_get();   /* not a table a test forces */
    rc = hxf_map_open(&m->map, path, err);
    if (!rc)
        rc = model_load(m, m->map.addr, m->map.size, err);
    if (rc) {
        if (err && err->code == rc && !strstr(err->message, path)) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%.100s: %.150s", path, err->message);
            memcpy(err->message, msg, sizeof msg);
        }
        hx_model_close(m);
        return rc;
    }
    *out = m;
    return 0;
}

int hxi_model_open_with(hx_model **out, const char *path, const hxi_kernels *kern, hx_precision precision,
                        hx_error *err)
{
    return open_path(out, path, kern, precision, err);
}

int hx_model_open(hx_model **out, const char *path, hx_error *err)
{
    return open_path(out, path, hxi_kernels_get(), HX_PRECISION_FP32, err);
}

void hx_model_close(hx_model *m)
{
    if (!m)
        return;
    if (m->tok)
        hxi_tokenizer_free(m->tok);
    if (m->packed_map)
        munmap(m->packed_map, m->packed_map_len);
    else if (m->packed)
        munmap(m->packed, m->packed_len);
    free(m->layers);
    free(m->pos_type);
    free(m->rel);
    hxf_view_free(&m->view);
    hxf_map_close(&m->map);
    free(m);
}

int hx_model_max_tokens(const hx_model *m)
{
    return m->cfg.max_seq;
}

int hx_model_dim(const hx_model *m)
{
    return m->cfg.hidden;
}

const char *hx_model_name(const hx_model *m)
{
    return m->name;
}

const char *hx_model_hash(const hx_model *m)
{
    return m->hash;
}

const hxi_tokenizer *hxi_model_tokenizer(const hx_model *m)
{
    return m->tok;
}

size_t hx_model_count_tokens(const hx_model *m, const char *text, size_t len)
{
    return hxi_tokenize(m->tok, text, len, NULL, NULL, 0);
}

size_t hx_model_input_ids(const hx_model *m, const char *text, size_t len, int32_t *ids, size_t max_ids)
{
    return hxi_tokenize_for_model(m->tok, text, len, ids, max_ids);
}

/* === Open by name or file (names and places: catalog.c) === */

int hx_model_open_opts(hx_model **out, const hx_model_opts *o, hx_error *err)
{
    const hx_precision precision = o ? o->precision : HX_PRECISION_FP32;
    const uint8_t *blob;
    size_t blob_len;
    char path[4096];
    *out = NULL;
    int rc = hxi_model_locate(o ? o->path : NULL, path, sizeof path, &blob, &blob_len, err);
    if (rc)
        return rc;
    if (blob)
        return open_buffer(out, blob, blob_len, hxi_kernels_get(), precision, true, err);
    return open_path(out, path, hxi_kernels_get(), precision, err);
}

int hx_model_open_default(hx_model **out, hx_error *err)
{
    return hx_model_open_opts(out, NULL, err);
}

hx_precision hx_model_precision(const hx_model *m)
{
    return m->precision;
}

const char *hx_precision_name(hx_precision p)
{
    return p == HX_PRECISION_INT8 ? "int8" : "fp32";
}

int hx_precision_parse(const char *s, hx_precision *out, hx_error *err)
{
    for (int p = HX_PRECISION_FP32; p <= HX_PRECISION_INT8; p++)
        if (s && !strcmp(s, hx_precision_name((hx_precision)p))) {
            *out = (hx_precision)p;
            return 0;
        }
    return hx_error_set(err, HX_EINVAL, -1, "precision '%.40s' is not one of fp32, int8", s ? s : "");
}
