/* encoder.c: the BERT (MiniLM) and MPNet forward pass over unpadded batches (MPNet adds its
 * relative attention bias to the scores and starts positions at an offset: model.c), llama2.c style: buffers are
 * allocated once in hx_encoder_new and forward() never allocates. Must not read the weights file
 * (model.c) or implement kernels (kernels_*.c). Spec: include/hyrax.h "Model and tokenizer". */
#include "model.h"
#include "alloc.h"
#include "platform.h"
#include "pool.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define ENC_DEFAULT_ROWS 4096   /* tokens per forward pass; longer inputs go in several passes */
#define ENC_GEMM_ROW_BLOCK 240  /* rows per gemm task; divisible by every usual kernel tile height */
#define ENC_LN_ROW_BLOCK 64     /* rows per LayerNorm or embedding task, at most */
#define ENC_MAX_THREADS 256

struct hx_encoder {
    const hx_model *m;           /* borrowed; must outlive the encoder */
    const hxi_kernels *kern;      /* the model's table */
    hxi_pool *pool;               /* owned */
    int max_rows;                /* tokens per forward pass, >= cfg.max_seq */
    /* Run state, allocated once (R = max_rows, H = hidden, F = ffn, T = max_seq): */
    float *x;                    /* [R x H] hidden state */
    float *tmp;                  /* [R x H] attention context, then FFN output */
    float *big;                  /* [R x max(3H, F)] QKV, then attention output, then FFN hidden */
    float *scratch;              /* [threads x scratch_len] attention scratch */
    size_t scratch_len;          /* hxi_attention_scratch(T, hidden / heads) */
    uint8_t *qa;                 /* int8 models: a Linear layer's input quantized for each of its parts:
                                  * [parts x R x roundup(K, 4)] values of k8->in_bytes (i8_job), at most
                                  * R x m->i8_row_values */
    float *qs;                   /* int8 models: [HX_I8_MAX_PARTS x R] its per-row scales */
    int32_t *qz;                 /* int8 models: [HX_I8_MAX_PARTS x R] its per-row zero points */
    uint8_t *qa2;                /* fine int8 layers (hxi_qlinear.fine): the rounding error of qa's */
    float *qs2;                  /* rows, quantized as qa/qs/qz are, same layout */
    int32_t *qz2;
    float *fine;                 /* fine int8 layers: [R x max N] the second gemm's output, and before
                                  * it the rounding error of the rows being quantized */
    int32_t *tok_ids;            /* [R] word pieces of the texts being embedded */
    int32_t *row_tok, *row_pos;  /* [R] per row of x in the current batch: token id, position */
    const int32_t **seq_ids;     /* [R] per sequence of the batch: its ids (borrowed) */
    int *seq_len;                /* [R] its length */
    size_t *seq_out;             /* [R] its row in the caller's output */
    int *order;                  /* [R] batch position -> sequence, shortest first */
    int *row0;                   /* [R] batch position -> first row in x */
    int n_seq;                   /* sequences in the current batch */
    atomic_int *block_done;      /* [R / ENC_GEMM_ROW_BLOCK + 1] a gemm's tasks finished per row
                                  * block (row_step) */
    atomic_int *seq_done;        /* [R] heads finished per sequence of the batch (attention_task) */
    const hxi_qlinear *attn_q;   /* the int8 attention output layer whose input attention_task
                                  * quantizes, or NULL */
    int by_len[HX_MODEL_MAX_SEQ + 2];  /* counting-sort buckets */
};

/* === Setup === */

static int online_cpus(void)
{
    int n = hx_platform_cpus();
    return n > ENC_MAX_THREADS ? ENC_MAX_THREADS : n;
}

const hx_model *hx_encoder_model(const hx_encoder *e)
{
    return e->m;
}

void hx_encoder_free(hx_encoder *e)
{
    if (!e)
        return;
    hxi_pool_free(e->pool);
    free(e->x);
    free(e->tmp);
    free(e->big);
    free(e->scratch);
    free(e->qa);
    free(e->qs);
    free(e->qz);
    free(e->qa2);
    free(e->qs2);
    free(e->qz2);
    free(e->fine);
    free(e->tok_ids);
    free(e->row_tok);
    free(e->row_pos);
    free(e->seq_ids);
    free(e->seq_len);
    free(e->seq_out);
    free(e->order);
    free(e->row0);
    free(e->block_done);
    free(e->seq_done);
    free(e);
}

static void *alloc_floats(size_t rows, size_t cols)
{
    size_t bytes = rows * cols * sizeof(float);   /* bounded by the model caps */
    return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

int hxi_encoder_new_rows(hx_encoder **out, const hx_model *m, int n_threads, int max_rows,
                         hx_error *err)
{
    *out = NULL;
    if (!m)
        return hx_error_set(err, HX_EINVAL, -1, "no model");
    if (n_threads < 0 || n_threads > ENC_MAX_THREADS)
        return hx_error_set(err, HX_EINVAL, -1, "thread count %d is outside 0..%d", n_threads,
                            ENC_MAX_THREADS);
    const hxi_model_config *c = &m->cfg;
    if (max_rows == 0)
        max_rows = ENC_DEFAULT_ROWS;
    if (max_rows < c->max_seq || max_rows > (1 << 20))
        return hx_error_set(err, HX_EINVAL, -1, "batch of %d rows cannot hold %d tokens", max_rows,
                            c->max_seq);
    if (n_threads == 0)
        n_threads = online_cpus();
    hx_encoder *e = hx_calloc(1, sizeof *e);
    if (!e)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory creating the encoder");
    e->m = m;
    e->kern = m->kern;
    e->max_rows = max_rows;
    size_t R = (size_t)max_rows, H = (size_t)c->hidden, wide = 3 * H > (size_t)c->ffn ? 3 * H : (size_t)c->ffn;
    e->x = alloc_floats(R, H);
    e->tmp = alloc_floats(R, H);
    e->big = alloc_floats(R, wide);
    e->scratch_len = hxi_attention_scratch(c->max_seq, c->hidden / c->heads);
    e->scratch = alloc_floats((size_t)n_threads, e->scratch_len);
    e->tok_ids = hx_malloc(R * sizeof *e->tok_ids);
    e->row_tok = hx_malloc(R * sizeof *e->row_tok);
    e->row_pos = hx_malloc(R * sizeof *e->row_pos);
    e->seq_ids = hx_malloc(R * sizeof *e->seq_ids);
    e->seq_len = hx_malloc(R * sizeof *e->seq_len);
    e->seq_out = hx_malloc(R * sizeof *e->seq_out);
    e->order = hx_malloc(R * sizeof *e->order);
    e->row0 = hx_malloc(R * sizeof *e->row0);
    e->block_done = hx_malloc((R / ENC_GEMM_ROW_BLOCK + 1) * sizeof *e->block_done);
    e->seq_done = hx_malloc(R * sizeof *e->seq_done);
    if (m->i8_row_values) {   /* some Linear layer runs in int8 */
        e->qa = hx_malloc(R * m->i8_row_values * (size_t)m->k8->in_bytes);   /* bounded by the model caps */
        e->qs = hx_malloc(HX_I8_MAX_PARTS * R * sizeof *e->qs);
        e->qz = hx_malloc(HX_I8_MAX_PARTS * R * sizeof *e->qz);
    }
    if (m->i8_fine_values) {
        e->qa2 = hx_malloc(R * m->i8_fine_values * (size_t)m->k8->in_bytes);
        e->qs2 = hx_malloc(HX_I8_MAX_PARTS * R * sizeof *e->qs2);
        e->qz2 = hx_malloc(HX_I8_MAX_PARTS * R * sizeof *e->qz2);
        e->fine = alloc_floats(R, wide);
    }
    if (!e->x || !e->tmp || !e->big || !e->scratch || !e->tok_ids || !e->row_tok || !e->row_pos ||
        !e->seq_ids || !e->seq_len || !e->seq_out || !e->order || !e->row0 || !e->block_done || !e->seq_done ||
        (m->i8_row_values && (!e->qa || !e->qs || !e->qz)) ||
        (m->i8_fine_values && (!e->qa2 || !e->qs2 || !e->qz2 || !e->fine))) {
        hx_encoder_free(e);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for a batch of %d tokens", max_rows);
    }
    int rc = hxi_pool_new(&e->pool, n_threads, err);
    if (rc) {
        hx_encoder_free(e);
        return rc;
    }
    *out = e;
    return 0;
}

int hx_encoder_new(hx_encoder **out, const hx_model *m, int n_threads, hx_error *err)
{
    return hxi_encoder_new_rows(out, m, n_threads, 0, err);
}

const hxi_pool *hxi_encoder_pool(const hx_encoder *e)
{
    return e->pool;
}

const hx_model *hxi_encoder_model(const hx_encoder *e)
{
    return e->m;
}

/* === Parallel steps === */

/* A per-row step (LayerNorm, the next int8 layer's quantization) that runs on a gemm's output as
 * soon as every task of a row block has finished, in the task that finishes it: the rows are still
 * in cache, and the step costs no job of its own (no wait for every thread between the two). Rows
 * are independent, so the bits are those of a separate pass. linear() sets `tasks` and zeroes
 * e->block_done. */
typedef struct row_step {
    void (*fn)(const void *ctx, int r0, int rows);
    const void *ctx;
    atomic_int *done;   /* [row blocks] tasks finished */
    int tasks;          /* tasks per row block */
} row_step;

/* Task done on row block `block` (rows [r0, r0 + rows)): the last one runs the step. */
static void row_step_done(const row_step *s, int block, int r0, int rows)
{
    if (s && atomic_fetch_add(&s->done[block], 1) + 1 == s->tasks)
        s->fn(s->ctx, r0, rows);
}

typedef struct gemm_job {
    const hxi_kernels *kern;
    int M, N, K, lda, ldc, gelu;
    const float *A, *Bp, *bias;
    float *C;
    int n_chunks, cols_per_chunk;   /* column split, cols_per_chunk a multiple of nr */
    const row_step *after;          /* NULL: none */
} gemm_job;

static void gemm_task(void *ctx, int task, int worker)
{
    (void)worker;
    const gemm_job *g = ctx;
    int r0 = (task / g->n_chunks) * ENC_GEMM_ROW_BLOCK;
    int rows = g->M - r0 < ENC_GEMM_ROW_BLOCK ? g->M - r0 : ENC_GEMM_ROW_BLOCK;
    int n0 = (task % g->n_chunks) * g->cols_per_chunk;
    int n1 = n0 + g->cols_per_chunk < g->N ? n0 + g->cols_per_chunk : g->N;
    g->kern->gemm(rows, n0, n1, g->K, g->A + (size_t)r0 * g->lda, g->lda, g->Bp, g->bias,
                  g->C + (size_t)r0 * g->ldc, g->ldc, g->gelu);
    row_step_done(g->after, task / g->n_chunks, r0, rows);
}

/* Splits `panels` column panels into at most one chunk per thread, *per panels each; returns the
 * number of chunks. */
static int column_chunks(const hx_encoder *e, int panels, int *per)
{
    const int threads = hxi_pool_threads(e->pool);
    int chunks = panels < threads ? panels : threads;
    *per = (panels + chunks - 1) / chunks;
    return (panels + *per - 1) / *per;
}

/* Readies `after` (may be NULL) for a job of `tasks` tasks per row block over M rows. */
static const row_step *row_step_arm(hx_encoder *e, row_step *after, int M, int tasks)
{
    if (!after)
        return NULL;
    after->done = e->block_done;
    after->tasks = tasks;
    for (int b = 0; b * ENC_GEMM_ROW_BLOCK < M; b++)
        atomic_init(&e->block_done[b], 0);
    return after;
}

/* C[M x N] = A[M x K] W^T + bias (GELU if asked), split into tasks by rows and column panels, then
 * `after` on each row block (may be NULL). Row blocks are the same whatever the thread count, so
 * every thread count gives the same bits. */
static void gemm(hx_encoder *e, int M, int N, int K, const float *A, int lda, const float *Bp,
                 const float *bias, float *C, int ldc, int gelu, row_step *after)
{
    const int nr = e->kern->nr;
    int per, chunks = column_chunks(e, (N + nr - 1) / nr, &per);
    gemm_job g = {e->kern, M, N, K, lda, ldc, gelu, A, Bp, bias, C, chunks, per * nr,
                  row_step_arm(e, after, M, chunks)};
    int row_blocks = (M + ENC_GEMM_ROW_BLOCK - 1) / ENC_GEMM_ROW_BLOCK;
    hxi_pool_run(e->pool, row_blocks * chunks, gemm_task, &g);
}

/* int8 Linear layers: A quantized per row into qa/qs/qz, once per part of the layer (hxi_qlinear),
 * then integer gemm tasks split as gemm()'s within each part, with GELU applied to each task's
 * block after its gemm (kernels.h "int8"). Part p's quantized rows lie p * max_rows rows into
 * qa, qs and qz. */
typedef struct i8_job {
    const hx_encoder *e;
    int M, N, K, gelu;             /* N: all parts' columns */
    const float *A, *bias;
    const hxi_qlinear *q;
    float *C;
    int row_blocks, n_chunks, cols_per_chunk;   /* per part; cols_per_chunk a multiple of HX_I8_NR */
    const uint8_t *qa;             /* the quantized rows: e->qa, or e->qa2 for a fine layer's second
                                    * gemm, which writes into `fine` and adds that to C */
    const float *qs;
    const int32_t *qz;
    float *fine;                   /* NULL: the first gemm */
    const row_step *after;         /* NULL: none */
} i8_job;

/* Rows [r0, r0 + n) of x [. x dim] into qa/qs/qz for every part of the int8 layer q, when q is set. */
static void quantize_rows(const hx_encoder *e, const hxi_qlinear *q, int r0, int n, int dim, const float *x)
{
    if (!q)
        return;
    const hxi_kernels_i8 *k8 = e->m->k8;
    const size_t Kp = (size_t)hxi_i8_row_len(dim), R = (size_t)e->max_rows;
    for (int p = 0; p < q->parts; p++) {
        const size_t at = (p * R + (size_t)r0) * Kp * k8->in_bytes;
        const float *xinv = q->part[p].xinv;
        k8->quantize(n, dim, x + (size_t)r0 * dim, dim, xinv, e->qa + at, (int)Kp, e->qs + p * R + r0,
                     e->qz + p * R + r0);
        if (!q->fine)
            continue;
        /* the rows' rounding error, y - scale (q - zero) with y as quantize saw it, quantized again */
        float *err = e->fine + (size_t)r0 * dim;
        for (int r = 0; r < n; r++) {
            const float *xr = x + (size_t)(r0 + r) * dim, s = e->qs[p * R + r0 + r];
            const int32_t z = e->qz[p * R + r0 + r];
            const uint8_t *q8 = e->qa + at + (size_t)r * Kp * k8->in_bytes;
            const uint16_t *q16 = (const uint16_t *)(const void *)q8;
            for (int k = 0; k < dim; k++) {
                const int32_t v = k8->in_bytes == 1 ? q8[k] : q16[k];
                err[(size_t)r * dim + k] = (xinv ? xr[k] * xinv[k] : xr[k]) - s * (float)(v - z);
            }
        }
        k8->quantize(n, dim, err, dim, NULL, e->qa2 + at, (int)Kp, e->qs2 + p * R + r0, e->qz2 + p * R + r0);
    }
}

static void quantize_task(void *ctx, int task, int worker)
{
    (void)worker;
    const i8_job *g = ctx;
    const int r0 = task * ENC_GEMM_ROW_BLOCK;
    quantize_rows(g->e, g->q, r0, g->M - r0 < ENC_GEMM_ROW_BLOCK ? g->M - r0 : ENC_GEMM_ROW_BLOCK, g->K, g->A);
}

static void gemm_i8_task(void *ctx, int task, int worker)
{
    (void)worker;
    const i8_job *g = ctx;
    const hx_encoder *e = g->e;
    const int per_part = g->row_blocks * g->n_chunks, p = task / per_part, Np = g->N / g->q->parts;
    task %= per_part;
    const size_t Kp = (size_t)hxi_i8_row_len(g->K), q0 = (size_t)p * (size_t)e->max_rows;
    const int r0 = (task / g->n_chunks) * ENC_GEMM_ROW_BLOCK;
    const int rows = g->M - r0 < ENC_GEMM_ROW_BLOCK ? g->M - r0 : ENC_GEMM_ROW_BLOCK;
    const int n0 = (task % g->n_chunks) * g->cols_per_chunk;
    const int n1 = n0 + g->cols_per_chunk < Np ? n0 + g->cols_per_chunk : Np;
    const hxi_qmat *q = &g->q->part[p];
    float *C = g->C + (size_t)r0 * g->N + (size_t)p * Np;
    const hxi_kernels_i8 *k8 = e->m->k8;
    float *F = g->fine ? g->fine + (size_t)r0 * g->N + (size_t)p * Np : NULL;
    k8->gemm(rows, n0, n1, g->K, g->qa + (q0 + (size_t)r0) * Kp * k8->in_bytes, (int)Kp, g->qs + q0 + r0,
             g->qz + q0 + r0, q->w, q->wsum, q->wscale, F ? NULL : g->bias ? g->bias + (size_t)p * Np : NULL,
             F ? F : C, g->N);
    for (int i = 0; F && i < rows; i++)
        for (int j = n0; j < n1; j++)
            C[(size_t)i * g->N + j] += F[(size_t)i * g->N + j];
    if (g->gelu)
        e->kern->gelu(rows, n1 - n0, C + n0, g->N);
    row_step_done(g->after, task / g->n_chunks, r0, rows);
}

/* C[M x N] = A[M x K] W^T + bias (GELU if asked) for one Linear layer, in float (Wp, packed for
 * the table) or in int8 (q->parts > 0), then `after` on each row block of C (may be NULL). An int8
 * layer quantizes A into qa/qs/qz first, unless the step that wrote A did so already (`quantized`:
 * see quant_target). */
static void linear(hx_encoder *e, int M, int N, int K, const float *A, const float *Wp, const hxi_qlinear *q,
                   const float *bias, float *C, int gelu, int quantized, row_step *after)
{
    if (!q->parts) {
        gemm(e, M, N, K, A, K, Wp, bias, C, N, gelu, after);
        return;
    }
    int per, chunks = column_chunks(e, (N / q->parts + HX_I8_NR - 1) / HX_I8_NR, &per);
    int row_blocks = (M + ENC_GEMM_ROW_BLOCK - 1) / ENC_GEMM_ROW_BLOCK;
    const row_step *last = row_step_arm(e, after, M, q->parts * chunks);   /* on the last gemm */
    i8_job g = {e, M, N, K, q->fine ? 0 : gelu, A, bias, q, C, row_blocks, chunks, per * HX_I8_NR, e->qa, e->qs, e->qz,
                NULL, q->fine ? NULL : last};
    if (!quantized)
        hxi_pool_run(e->pool, row_blocks, quantize_task, &g);
    hxi_pool_run(e->pool, q->parts * row_blocks * chunks, gemm_i8_task, &g);
    if (q->fine) {   /* the second gemm, on the rounding error, added in (then GELU) */
        i8_job f = {e, M, N, K, gelu, A, bias, q, C, row_blocks, chunks, per * HX_I8_NR, e->qa2, e->qs2, e->qz2,
                    e->fine, last};
        hxi_pool_run(e->pool, q->parts * row_blocks * chunks, gemm_i8_task, &f);
    }
}

/* The Linear layer that reads a step's output when it runs in int8, else NULL: such a step
 * quantizes each row block it has just written into qa/qs/qz (kernels.h "int8": rows are quantized
 * independently, so this gives the bits a separate pass would) while the rows are still in cache,
 * and the Linear layer skips its own pass. */
static const hxi_qlinear *quant_target(const hxi_qlinear *next)
{
    return next && next->parts ? next : NULL;
}

/* Rows per task for a per-row step over `rows` rows: at most ENC_LN_ROW_BLOCK, and few enough that
 * every thread gets a block even for one short sequence. Rows are independent, so any split gives
 * the same bits. */
static int row_block(const hx_encoder *e, int rows)
{
    int threads = hxi_pool_threads(e->pool), per = (rows + threads - 1) / threads;
    return per < 1 ? 1 : per > ENC_LN_ROW_BLOCK ? ENC_LN_ROW_BLOCK : per;
}

/* Whether a step after the gemm of a Linear layer `cur` with input width K may quantize rows for
 * an int8 layer of input width K2 while the gemm's other row blocks still run: when `cur` reads no
 * quantized rows (float), when there is no other row block, or when the rows it writes lie where
 * those blocks read none (qa holds rows of roundup(K, 4) values: the same width, the same places). */
static int may_quantize_after(const hxi_qlinear *cur, int M, int K, int K2)
{
    return !cur->parts || M <= ENC_GEMM_ROW_BLOCK || hxi_i8_row_len(K) == hxi_i8_row_len(K2);
}

/* A row step's work on rows of x [. x dim]: x = LayerNorm(x + res) (when w is set), then their
 * quantization for the int8 layer `next` (when set). */
typedef struct rows_job {
    const hx_encoder *e;
    const hxi_qlinear *next;
    int dim;
    float *x;
    const float *res, *w, *b;
    float eps;
} rows_job;

static void rows_step(const void *ctx, int r0, int n)
{
    const rows_job *j = ctx;
    if (j->w)
        j->e->kern->add_layernorm(n, j->dim, j->x + (size_t)r0 * j->dim, j->dim, j->res + (size_t)r0 * j->dim,
                                  j->dim, j->w, j->b, j->eps);
    quantize_rows(j->e, j->next, r0, n, j->dim, j->x);
}

typedef struct embed_job {
    hx_encoder *e;
    int rows, block;
} embed_job;

/* Word + position + token type embeddings, then LayerNorm, for one block of rows of x. */
static void embed_task(void *ctx, int task, int worker)
{
    (void)worker;
    const embed_job *j = ctx;
    hx_encoder *e = j->e;
    const hx_model *m = e->m;
    const int H = m->cfg.hidden, r0 = task * j->block;
    const int r1 = j->rows - r0 < j->block ? j->rows : r0 + j->block;
    for (int r = r0; r < r1; r++) {
        float *x = e->x + (size_t)r * H;
        e->kern->f16_to_f32(m->word_emb + (size_t)e->row_tok[r] * H, x, (size_t)H);
        e->kern->add_layernorm(1, H, x, H, m->pos_type + (size_t)e->row_pos[r] * H, H, m->emb_ln_w,
                               m->emb_ln_b, m->cfg.eps);
    }
    quantize_rows(e, quant_target(&m->layers[0].qkv_q), r0, r1 - r0, H, e->x);
}

/* Self-attention of one (sequence, head) pair: big holds Q|K|V rows, the context goes to tmp (and,
 * when attn_q is set, once all heads are done, into qa/qs/qz for it). Tasks run longest sequence
 * first, so the threads finish together. */
static void attention_task(void *ctx, int task, int worker)
{
    hx_encoder *e = ctx;
    const hxi_model_config *c = &e->m->cfg;
    const int H = c->hidden, hd = H / c->heads, b = e->n_seq - 1 - task / c->heads, h = task % c->heads;
    const float *q = e->big + (size_t)e->row0[b] * 3 * H + (size_t)h * hd;
    const float *rel = e->m->rel ? e->m->rel + (size_t)h * (2 * (size_t)c->max_seq - 1) + (c->max_seq - 1) : NULL;
    const int T = e->seq_len[e->order[b]];
    e->kern->attention(T, hd, q, q + H, q + 2 * H, 3 * H, e->tmp + (size_t)e->row0[b] * H + (size_t)h * hd, H,
                       1.0f / sqrtf((float)hd), rel, e->scratch + (size_t)worker * e->scratch_len);
    /* The sequence's last head quantizes its rows for the int8 output layer (no job of its own). */
    if (e->attn_q && atomic_fetch_add(&e->seq_done[b], 1) + 1 == c->heads)
        quantize_rows(e, e->attn_q, e->row0[b], T, H, e->tmp);
}

/* === Forward === */

/* Embeds the n sequences in seq_ids/seq_len (total tokens <= max_rows) into out[seq_out * H]. */
static void forward(hx_encoder *e, int n, float *out)
{
    const hx_model *m = e->m;
    const hxi_model_config *c = &m->cfg;
    const int H = c->hidden, F = c->ffn;

    /* Counting sort by length, stable: similar lengths share attention work evenly. */
    memset(e->by_len, 0, sizeof e->by_len);
    for (int s = 0; s < n; s++)
        e->by_len[e->seq_len[s] + 1]++;
    for (int l = 1; l <= c->max_seq + 1; l++)
        e->by_len[l] += e->by_len[l - 1];
    for (int s = 0; s < n; s++)
        e->order[e->by_len[e->seq_len[s]]++] = s;
    int R = 0;
    e->n_seq = n;
    /* Position rows (model.c pos_type): the token's index, or with a position offset (MPNet, as
     * HF's create_position_ids_from_input_ids) row 0 for a pad token and the count of other
     * tokens so far for the rest. */
    const int32_t pad = c->pos_offset ? hxi_tokenizer_pad(m->tok) : -1;
    for (int b = 0; b < n; b++) {
        const int s = e->order[b];
        e->row0[b] = R;
        for (int t = 0, k = 0; t < e->seq_len[s]; t++, R++) {
            e->row_tok[R] = e->seq_ids[s][t];
            e->row_pos[R] = pad < 0 ? t : e->row_tok[R] == pad ? 0 : ++k;
        }
    }

    embed_job ej = {e, R, row_block(e, R)};
    hxi_pool_run(e->pool, (R + ej.block - 1) / ej.block, embed_task, &ej);   /* x [R x H] */
    for (int l = 0; l < c->layers; l++) {
        const hxi_layer *L = &m->layers[l];
        const hxi_qlinear *next_qkv = l + 1 < c->layers ? &m->layers[l + 1].qkv_q : NULL;
        /* Each Linear layer's input is quantized (int8) by the step that writes it where it can
         * (may_quantize_after), else by the layer itself; LayerNorm runs as a row step. */
        const int qkv_ready = l == 0 || may_quantize_after(&m->layers[l - 1].ffn2_q, R, F, H);
        linear(e, R, 3 * H, H, e->x, L->qkv_w, &L->qkv_q, L->qkv_b, e->big, 0,   /* big [R x 3H] */
               quant_target(&L->qkv_q) && qkv_ready, NULL);
        e->attn_q = quant_target(&L->o_q);
        for (int b = 0; e->attn_q && b < n; b++)
            atomic_init(&e->seq_done[b], 0);
        hxi_pool_run(e->pool, n * c->heads, attention_task, e);     /* tmp [R x H] */
        const int ffn1_ready = may_quantize_after(&L->o_q, R, H, H);
        rows_job ln1 = {e, ffn1_ready ? quant_target(&L->ffn1_q) : NULL, H, e->x, e->big, L->ln1_w, L->ln1_b, c->eps};
        row_step s1 = {rows_step, &ln1, NULL, 0};
        linear(e, R, H, H, e->tmp, L->o_w, &L->o_q, L->o_b, e->big, 0, e->attn_q != NULL, &s1);  /* big [R x H], */
                                                                    /* then x = LN(x + big) */
        const int ffn2_ready = may_quantize_after(&L->ffn1_q, R, H, F);
        rows_job q2 = {e, ffn2_ready ? quant_target(&L->ffn2_q) : NULL, F, e->big, NULL, NULL, NULL, 0};
        row_step s2 = {rows_step, &q2, NULL, 0};
        linear(e, R, F, H, e->x, L->ffn1_w, &L->ffn1_q, L->ffn1_b, e->big, 1,    /* big [R x F] */
               quant_target(&L->ffn1_q) && ffn1_ready, q2.next ? &s2 : NULL);
        rows_job ln2 = {e, may_quantize_after(&L->ffn2_q, R, F, H) ? quant_target(next_qkv) : NULL, H, e->x,
                        e->tmp, L->ln2_w, L->ln2_b, c->eps};
        row_step s3 = {rows_step, &ln2, NULL, 0};
        linear(e, R, H, F, e->big, L->ffn2_w, &L->ffn2_q, L->ffn2_b, e->tmp, 0,  /* tmp [R x H], */
               q2.next != NULL, &s3);                               /* then x = LN(x + tmp) */
    }

    /* Mean over each sequence's tokens, then L2 normalisation (eps as torch's F.normalize). */
    for (int b = 0; b < n; b++) {
        const int s = e->order[b], T = e->seq_len[s];
        float *o = out + e->seq_out[s] * (size_t)H;
        const float *x = e->x + (size_t)e->row0[b] * H;
        for (int i = 0; i < H; i++)
            o[i] = 0;
        for (int t = 0; t < T; t++)
            for (int i = 0; i < H; i++)
                o[i] += x[(size_t)t * H + i];
        float norm = 0;
        for (int i = 0; i < H; i++) {
            o[i] /= (float)T;
            norm += o[i] * o[i];
        }
        norm = sqrtf(norm);
        float inv = 1.0f / (norm > 1e-12f ? norm : 1e-12f);
        for (int i = 0; i < H; i++)
            o[i] *= inv;
    }
}

/* === Public entry points === */

int hx_encoder_embed_ids(hx_encoder *e, const int32_t *const *ids, const size_t *lens, size_t n,
                         float *out, hx_error *err)
{
    if (!e || (n && (!ids || !lens || !out)))
        return hx_error_set(err, HX_EINVAL, -1, "no encoder, ids, lengths or output");
    const hxi_model_config *c = &e->m->cfg;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] == 0 || !ids[i])
            return hx_error_set(err, HX_EINVAL, (int64_t)i, "sequence %zu is empty", i);
        if (lens[i] > (size_t)c->max_seq)
            return hx_error_set(err, HX_ERANGE, (int64_t)i, "sequence %zu has %zu tokens, more than %d",
                                i, lens[i], c->max_seq);
        for (size_t t = 0; t < lens[i]; t++)
            if (ids[i][t] < 0 || ids[i][t] >= c->vocab)
                return hx_error_set(err, HX_ERANGE, (int64_t)i, "sequence %zu: token id %d is outside "
                                    "the vocabulary of %d", i, (int)ids[i][t], c->vocab);
    }
    size_t i = 0;
    while (i < n) {
        int count = 0, rows = 0;
        while (i < n && rows + (int)lens[i] <= e->max_rows) {
            e->seq_ids[count] = ids[i];
            e->seq_len[count] = (int)lens[i];
            e->seq_out[count] = i;
            rows += (int)lens[i];
            count++;
            i++;
        }
        forward(e, count, out);
    }
    return 0;
}

int hx_encoder_embed(hx_encoder *e, const char *const *texts, const size_t *lens, size_t n,
                     float *out, hx_error *err)
{
    if (!e || (n && (!texts || !out)))
        return hx_error_set(err, HX_EINVAL, -1, "no encoder, texts or output");
    const hxi_tokenizer *tok = e->m->tok;
    const int T = e->m->cfg.max_seq;
    size_t i = 0;
    while (i < n) {
        int count = 0, rows = 0;
        while (i < n && rows + T <= e->max_rows) {
            if (!texts[i])
                return hx_error_set(err, HX_EINVAL, (int64_t)i, "text %zu is NULL", i);
            size_t len = lens ? lens[i] : strlen(texts[i]);
            int32_t *dst = e->tok_ids + rows;
            size_t k = hxi_tokenize_for_model(tok, texts[i], len, dst, (size_t)T);
            e->seq_ids[count] = dst;
            e->seq_len[count] = (int)k;
            e->seq_out[count] = i;
            rows += (int)k;
            count++;
            i++;
        }
        forward(e, count, out);
    }
    return 0;
}
