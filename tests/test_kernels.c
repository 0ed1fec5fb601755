/* test_kernels.c: every kernel of every SIMD table this build has and this machine can run
 * (x86/kernels_avx2.c, x86/kernels_avx512.c, arm/kernels_neon.c) and of a portable table built
 * here from kernels_simd.h against the scalar table (kernels_scalar.c) with the named tolerances
 * below, except attention, LayerNorm and GELU: those against plain double-precision references
 * here with the tolerances, and against the scalar table bit for bit (kernels.h "The same bits in
 * every table"); plus GELU and exp sweeps, all 65536 halfs, and HYRAX_ISA=scalar honoured
 * (cpu.h). The int8 tables (kernels_int8*.c): the scalar reference against sums over unpacked
 * rows and its own definition, then every int8 table the machine has against it: the same
 * quantized values (in either input width), the same integer sums exactly, the epilogue bit for
 * bit, smoothing end to end (the VNNI and AMX ones are skipped where the CPU lacks them or
 * HYRAX_AMX=0; NEON's is tested on AArch64). */
#include "check.h"
#include "kernels.h"
#if defined(__x86_64__)
#include "kernels_int8_x86.h"
#endif

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* === A portable table from kernels_simd.h ===
 * The shared kernel body over a plain-C vocabulary of 4-lane vectors (GCC/Clang vector extensions),
 * as a new ISA file would define it with its intrinsics: it runs on any machine, so the shared body
 * is tested even where no SIMD table is, and its small cache blocks take the gemm driver through
 * several K and row blocks. */
typedef float vf __attribute__((vector_size(16)));
typedef int32_t vi __attribute__((vector_size(16)));
#define KS_VL 4
#define KS_MR 5
#define KS_KC 40
#define KS_MC 15
#define VEC_LANES(expr)                     \
    vf r_;                                  \
    for (int l = 0; l < KS_VL; l++)         \
        r_[l] = (expr);                     \
    return r_
static inline vf vf_set1(float x) { VEC_LANES(x); }
static inline vf vf_zero(void) { return vf_set1(0); }
static inline vf vf_bcast(const float *p) { return vf_set1(*p); }
static inline vf vf_load(const float *p) { VEC_LANES(p[l]); }
static inline void vf_store(float *p, vf v) { memcpy(p, &v, sizeof v); }
static inline vf vf_load_n(const float *p, int n) { VEC_LANES(l < n ? p[l] : 0); }
static inline void vf_store_n(float *p, int n, vf v)
{
    for (int l = 0; l < KS_VL && l < n; l++)
        p[l] = v[l];
}
#define vf_add(a, b) ((a) + (b))
#define vf_sub(a, b) ((a) - (b))
#define vf_mul(a, b) ((a) * (b))
static inline vf vf_min(vf a, vf b) { VEC_LANES(a[l] < b[l] ? a[l] : b[l]); }
static inline vf vf_max(vf a, vf b) { VEC_LANES(a[l] > b[l] ? a[l] : b[l]); }
static inline vf vf_fma(vf a, vf b, vf c) { VEC_LANES(fmaf(a[l], b[l], c[l])); }
static inline vf vf_abs(vf x) { VEC_LANES(fabsf(x[l])); }
static inline vf vf_signbit(vf x) { return (vf)((vi)x & INT_MIN); }
static inline vf vf_or(vf a, vf b) { return (vf)((vi)a | (vi)b); }
static inline float vf_hsum(vf v) { return (v[0] + v[2]) + (v[1] + v[3]); }
static inline float vf_hmax(vf v) { return fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])); }
#define vf_trunc_vi(x) __builtin_convertvector(x, vi)
#define vi_to_vf(i) __builtin_convertvector(i, vf)
static inline vf vf_lut8(const float *t, vi i) { VEC_LANES(t[i[l]]); }
static inline vf vf_round(vf x) { VEC_LANES(rintf(x[l])); }
static inline vf vf_exp2i(vf y, vf n) { VEC_LANES(ldexpf(y[l], (int)n[l])); }

#include "kernels_simd.h"

/* Relative to sum_k |a_k w_k| + |bias|: the rounding a K-term float sum in any order may show. */
#define TOL_GEMM_REL 1e-5f
/* GELU output vs 0.5 x (1 + erff(x / sqrt 2)) from libm, per unit of max(1, |x|). */
#define TOL_GELU_ABS 2e-7f
/* Softmax weight e^x / (1 + e^x) against double precision, relative (exp plus one add, one div). */
#define TOL_EXP_REL 6e-7f
/* Attention output (inputs in [-2, 2], so outputs are O(1)). */
#define TOL_ATTENTION_ABS 1e-5f
/* LayerNorm output (inputs in [-2, 2], weights in [-1, 1]). */
#define TOL_LAYERNORM_ABS 1e-5f
/* Dot product, relative to sum |a_i b_i|. */
#define TOL_DOT_REL 1e-5f

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static float frand(float lo, float hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (float)(rng_state >> 40) / (float)(1u << 24);
}

static void fill(float *p, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = frand(lo, hi);
}

/* A random half in +-[2^-3, 2^1): a plausible weight with every mantissa bit in play. */
static uint16_t rand_half(void)
{
    uint16_t sign = frand(0, 1) < 0.5f ? 0x8000 : 0;
    uint16_t exp = (uint16_t)(12 + (int)frand(0, 4));
    return (uint16_t)(sign | exp << 10 | ((uint16_t)frand(0, 1024) & 0x3FF));
}

static const float SENTINEL = 12345.0f;

/* === GEMM === */

static void test_gemm_shape(const hxi_kernels *kt, int M, int N, int K, int n0, int n1, int bias_on,
                            int gelu, float *max_rel)
{
    const int lda = K + 3, ldc = N + 5;
    const hxi_kernels *ref = &hxi_kernels_scalar;
    uint16_t *W = malloc((size_t)N * K * sizeof *W);
    float *A = malloc((size_t)M * lda * sizeof *A), *bias = malloc((size_t)N * sizeof *bias);
    float *row = malloc((size_t)K * sizeof *row + sizeof *row);
    float *Bref = malloc(hxi_pack_size(N, K, ref->nr) * sizeof *Bref + sizeof *Bref);
    float *Bt = malloc(hxi_pack_size(N, K, kt->nr) * sizeof *Bt + sizeof *Bt);
    float *Cref = malloc((size_t)M * ldc * sizeof *Cref), *Ct = malloc((size_t)M * ldc * sizeof *Ct);
    for (size_t i = 0; i < (size_t)N * K; i++)
        W[i] = rand_half();
    fill(A, (size_t)M * lda, -1, 1);
    fill(bias, (size_t)N, -1, 1);
    hxi_pack_weights_f16(ref, W, N, K, row, Bref);
    hxi_pack_weights_f16(kt, W, N, K, row, Bt);
    for (size_t i = 0; i < (size_t)M * ldc; i++)
        Cref[i] = Ct[i] = SENTINEL;
    const float *b = bias_on ? bias : NULL;
    ref->gemm(M, n0, n1, K, A, lda, Bref, b, Cref, ldc, gelu);
    kt->gemm(M, n0, n1, K, A, lda, Bt, b, Ct, ldc, gelu);
    int bad = 0;
    for (int i = 0; i < M && bad < 3; i++) {
        for (int j = 0; j < ldc && bad < 3; j++) {
            float got = Ct[(size_t)i * ldc + j], want = Cref[(size_t)i * ldc + j];
            if (j < n0 || j >= n1) {
                CHECK(got == SENTINEL, "%s gemm M=%d N=%d K=%d [%d,%d): wrote C[%d][%d]", kt->name, M,
                      N, K, n0, n1, i, j);
                bad += got != SENTINEL;
                continue;
            }
            float mag = b ? fabsf(b[j]) : 0;
            for (int k = 0; k < K; k++)
                mag += fabsf(A[(size_t)i * lda + k] * hxi_half_to_float(W[(size_t)j * K + k]));
            float err = fabsf(got - want);
            float tol = TOL_GEMM_REL * mag + (gelu ? TOL_GELU_ABS * fmaxf(1, fabsf(want)) : 0);
            if (mag > 0 && err / mag > *max_rel)
                *max_rel = err / mag;
            CHECK(err <= tol, "%s gemm M=%d N=%d K=%d [%d,%d) bias=%d gelu=%d C[%d][%d]: %g vs %g",
                  kt->name, M, N, K, n0, n1, bias_on, gelu, i, j, got, want);
            bad += !(err <= tol);
        }
    }
    free(W), free(A), free(bias), free(row), free(Bref), free(Bt), free(Cref), free(Ct);
}

static void test_gemm(const hxi_kernels *kt)
{
    static const int Ms[] = {1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13, 15, 25, 97, 130};
    static const int Ks[] = {1, 3, 64, 256, 257, 384, 600};
    static const int Ns[] = {1, 7, 16, 17, 33, 64, 100};
    float max_rel = 0;
    int shape = 0;
    for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
        for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++)
            for (size_t d = 0; d < sizeof Ns / sizeof *Ns; d++, shape++) {
                int M = Ms[a], K = Ks[c], N = Ns[d], nr = kt->nr;
                if ((long)M * K * N > 3000000)
                    continue;
                test_gemm_shape(kt, M, N, K, 0, N, shape % 2, shape % 3 == 0, &max_rel);
                if (N > nr)   /* a thread's slice: starts at a panel, ends inside one */
                    test_gemm_shape(kt, M, N, K, nr, N - 1 > nr ? N - 1 : N, 1, shape % 2, &max_rel);
                if (N > 2)    /* a slice ending before N */
                    test_gemm_shape(kt, M, N, K, 0, N / 2 + 1, shape % 2, 1, &max_rel);
            }
    test_gemm_shape(kt, 300, 2 * kt->nr + 5, 40, 0, 2 * kt->nr + 5, 1, 1, &max_rel);   /* > one row block */
    printf("%s gemm: max error %.3g of sum|a*w|\n", kt->name, (double)max_rel);
}

/* GELU through the gemm epilogue: K = 1, A = x, W = 1, no bias, so C = gelu(x), over [-10, 10]. */
static void test_gelu_sweep(const hxi_kernels *kt)
{
    const int M = 2000001, nr = kt->nr;
    uint16_t *W = malloc((size_t)nr * sizeof *W);
    float *x = malloc((size_t)M * sizeof *x), *c = malloc((size_t)M * sizeof *c);
    float *Bp = malloc(hxi_pack_size(nr, 1, nr) * sizeof *Bp), row[1];
    for (int j = 0; j < nr; j++)
        W[j] = 0x3C00;   /* 1.0 */
    hxi_pack_weights_f16(kt, W, nr, 1, row, Bp);
    for (int i = 0; i < M; i++)
        x[i] = -10.0f + 20.0f * (float)i / (float)(M - 1);
    kt->gemm(M, 0, 1, 1, x, 1, Bp, NULL, c, 1, 1);
    float worst = 0, worst_x = 0;
    for (int i = 0; i < M; i++) {
        float want = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
        float err = fabsf(c[i] - want) / fmaxf(1, fabsf(x[i]));
        if (!(err <= worst))
            worst = err, worst_x = x[i];
    }
    CHECK(worst <= TOL_GELU_ABS, "%s gelu: error %g at x=%g", kt->name, (double)worst, (double)worst_x);
    printf("%s gelu: max error %.3g (per max(1,|x|)) at x=%g over [-10, 10]\n", kt->name, (double)worst,
           (double)worst_x);
    free(W), free(x), free(c), free(Bp);
}

/* The table's own GELU entry, which the int8 path applies after its gemm (kernels.h): every table
 * has one, against erf in double and scalar's bits, over widths with vector tails, never past
 * `cols`. */
static void test_gelu_rows(const hxi_kernels *kt)
{
    static const int widths[] = {1, 3, 4, 5, 8, 15, 16, 17, 33, 384};
    CHECK(kt->gelu != NULL, "%s: no gelu entry", kt->name);
    if (!kt->gelu)
        return;
    float worst = 0;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
        const int rows = 3, cols = widths[w], ldc = cols + 3;
        float x0[3 * 387], x1[3 * 387], x2[3 * 387];
        fill(x1, (size_t)rows * ldc, -6, 6);
        for (int r = 0; r < rows; r++)
            for (int j = cols; j < ldc; j++)
                x1[r * ldc + j] = SENTINEL;
        memcpy(x0, x1, (size_t)rows * ldc * sizeof *x1);
        memcpy(x2, x1, (size_t)rows * ldc * sizeof *x1);
        hxi_kernels_scalar.gelu(rows, cols, x1, ldc);
        kt->gelu(rows, cols, x2, ldc);
        for (int i = 0; i < rows * ldc; i++) {
            const double x = x0[i], want = 0.5 * x * (1 + erf(x / sqrt(2.0)));
            float err = (float)(fabs(x2[i] - want) / fmax(1, fabs(want)));
            if (i % ldc < cols && err > worst)
                worst = err;
            CHECK(i % ldc < cols ? err <= TOL_GELU_ABS && !memcmp(&x2[i], &x1[i], sizeof *x1) : x2[i] == SENTINEL,
                  "%s gelu rows cols=%d [%d]: %g, scalar table %g, erf %g", kt->name, cols, i, (double)x2[i],
                  (double)x1[i], want);
        }
    }
    printf("%s gelu rows: max error %.3g (per max(1,|x|))\n", kt->name, (double)worst);
}

/* === Attention === */

/* exp through the softmax: scores {0, x} and values {0, 1} give e^x / (1 + e^x). */
static void test_exp_sweep(const hxi_kernels *kt)
{
    float worst = 0, worst_x = 0, *scratch = malloc(hxi_attention_scratch(2, 1) * sizeof *scratch);
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f * (float)i / 200000.0f;
        float q[2] = {1, 1}, k[2] = {0, x}, v[2] = {0, 1}, out[2];
        kt->attention(2, 1, q, k, v, 1, out, 1, 1.0f, NULL, scratch);
        double e = exp((double)x), want = e / (1.0 + e);
        float err = (float)(fabs(out[0] - want) / want);
        if (!(err <= worst))
            worst = err, worst_x = x;
    }
    CHECK(worst <= TOL_EXP_REL, "%s exp: relative error %g at x=%g", kt->name, (double)worst,
          (double)worst_x);
    printf("%s exp: max relative error %.3g at x=%g over [-87, 0]\n", kt->name, (double)worst,
           (double)worst_x);
    free(scratch);
}

/* Attention in double precision, straight from its definition (kernels.h). */
static void naive_attention(int T, int hd, const float *q, const float *k, const float *v, int ld, float *out,
                            int ldo, float scale, const float *rel)
{
    double *p = malloc((size_t)T * sizeof *p);
    for (int i = 0; i < T; i++) {
        double max = -INFINITY, sum = 0;
        for (int j = 0; j < T; j++) {
            double s = 0;
            for (int d = 0; d < hd; d++)
                s += (double)q[(size_t)i * ld + d] * k[(size_t)j * ld + d];
            p[j] = scale * s + (rel ? rel[j - i] : 0);
            max = fmax(max, p[j]);
        }
        for (int j = 0; j < T; j++)
            sum += p[j] = exp(p[j] - max);
        for (int d = 0; d < hd; d++) {
            double o = 0;
            for (int j = 0; j < T; j++)
                o += p[j] * v[(size_t)j * ld + d];
            out[(size_t)i * ldo + d] = (float)(o / sum);
        }
    }
    free(p);
}

static void test_attention(const hxi_kernels *kt)
{
    static const int Ts[] = {1, 2, 7, 8, 9, 16, 33, 100};
    static const int hds[] = {1, 5, 8, 16, 31, 32, 33, 64, 70};
    float worst = 0;
    for (int with_rel = 0; with_rel < 2; with_rel++)   /* without and with MPNet's relative bias */
    for (size_t a = 0; a < sizeof Ts / sizeof *Ts; a++)
        for (size_t b = 0; b < sizeof hds / sizeof *hds; b++) {
            int T = Ts[a], hd = hds[b], ld = 3 * hd + 2, ldo = hd + 3;
            float *rel = malloc((size_t)(2 * T - 1) * sizeof *rel);
            fill(rel, (size_t)(2 * T - 1), -2, 2);
            const float *relc = with_rel ? rel + T - 1 : NULL;   /* rel[d] for -T < d < T */
            float *qkv = malloc((size_t)T * ld * sizeof *qkv);
            float *o1 = malloc((size_t)T * ldo * sizeof *o1), *o2 = malloc((size_t)T * ldo * sizeof *o2);
            float *o0 = malloc((size_t)T * ldo * sizeof *o0);
            float *scratch = malloc(hxi_attention_scratch(T, hd) * sizeof *scratch);
            fill(qkv, (size_t)T * ld, -2, 2);
            for (size_t i = 0; i < (size_t)T * ldo; i++)
                o1[i] = o2[i] = SENTINEL;
            float scale = 1.0f / sqrtf((float)hd);
            hxi_kernels_scalar.attention(T, hd, qkv, qkv + hd, qkv + 2 * hd, ld, o1, ldo, scale, relc, scratch);
            kt->attention(T, hd, qkv, qkv + hd, qkv + 2 * hd, ld, o2, ldo, scale, relc, scratch);
            naive_attention(T, hd, qkv, qkv + hd, qkv + 2 * hd, ld, o0, ldo, scale, relc);
            int bad = 0;
            for (int i = 0; i < T && bad < 3; i++)
                for (int d = 0; d < ldo && bad < 3; d++) {
                    const size_t at = (size_t)i * ldo + d;
                    float got = o2[at], want = o0[at];
                    float err = fabsf(got - want);
                    if (d < hd && err > worst)
                        worst = err;
                    int ok = d < hd ? err <= TOL_ATTENTION_ABS && !memcmp(&got, &o1[at], sizeof got) : got == SENTINEL;
                    CHECK(ok, "%s attention T=%d hd=%d out[%d][%d]: %g, scalar table %g, double %g", kt->name, T,
                          hd, i, d, got, o1[at], want);
                    bad += !ok;
                }
            free(qkv), free(o0), free(o1), free(o2), free(scratch), free(rel);
        }
    printf("%s attention: max abs error %.3g\n", kt->name, (double)worst);
}

/* === LayerNorm, dot, f16 === */

/* x = LayerNorm(x + res) * w + b in double precision. */
static void naive_layernorm(int rows, int dim, float *x, int ldx, const float *res, int ldr, const float *w,
                            const float *b, double eps)
{
    for (int r = 0; r < rows; r++) {
        float *xr = x + (size_t)r * ldx;
        double mean = 0, var = 0;
        for (int i = 0; i < dim; i++)
            mean += (double)xr[i] + res[(size_t)r * ldr + i];
        mean /= dim;
        for (int i = 0; i < dim; i++) {
            const double d = (double)xr[i] + res[(size_t)r * ldr + i] - mean;
            var += d * d;
        }
        const double inv = 1 / sqrt(var / dim + eps);
        for (int i = 0; i < dim; i++)
            xr[i] = (float)(((double)xr[i] + res[(size_t)r * ldr + i] - mean) * inv * w[i] + b[i]);
    }
}

static void test_layernorm(const hxi_kernels *kt)
{
    static const int dims[] = {1, 5, 8, 16, 17, 31, 384, 385};
    float worst = 0;
    for (size_t a = 0; a < sizeof dims / sizeof *dims; a++) {
        int dim = dims[a], rows = 3, ldx = dim + 4, ldr = dim + 1;
        float *x1 = malloc((size_t)rows * ldx * sizeof *x1);
        float *x2 = malloc((size_t)rows * ldx * sizeof *x2), *x0 = malloc((size_t)rows * ldx * sizeof *x0);
        float *res = malloc((size_t)rows * ldr * sizeof *res);
        float *w = malloc((size_t)dim * sizeof *w), *b = malloc((size_t)dim * sizeof *b);
        fill(x1, (size_t)rows * ldx, -2, 2);
        fill(res, (size_t)rows * ldr, -2, 2);
        fill(w, (size_t)dim, -1, 1);
        fill(b, (size_t)dim, -1, 1);
        for (int r = 0; r < rows; r++)
            for (int i = dim; i < ldx; i++)
                x1[(size_t)r * ldx + i] = SENTINEL;
        memcpy(x2, x1, (size_t)rows * ldx * sizeof *x1);
        memcpy(x0, x1, (size_t)rows * ldx * sizeof *x1);
        hxi_kernels_scalar.add_layernorm(rows, dim, x1, ldx, res, ldr, w, b, 1e-12f);
        kt->add_layernorm(rows, dim, x2, ldx, res, ldr, w, b, 1e-12f);
        naive_layernorm(rows, dim, x0, ldx, res, ldr, w, b, 1e-12);
        for (int r = 0; r < rows; r++)
            for (int i = 0; i < ldx; i++) {
                const size_t at = (size_t)r * ldx + i;
                float got = x2[at], want = x0[at];
                float err = fabsf(got - want);
                if (i < dim && err > worst)
                    worst = err;
                CHECK(i < dim ? err <= TOL_LAYERNORM_ABS && !memcmp(&got, &x1[at], sizeof got) : got == SENTINEL,
                      "%s layernorm dim=%d x[%d][%d]: %g, scalar table %g, double %g", kt->name, dim, r, i, got,
                      x1[at], want);
            }
        free(x0), free(x1), free(x2), free(res), free(w), free(b);
    }
    printf("%s layernorm: max abs error %.3g\n", kt->name, (double)worst);
}

static void test_dot(const hxi_kernels *kt)
{
    static const size_t ns[] = {0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 100, 384, 1000};
    float a[1000], b[1000];
    fill(a, 1000, -1, 1);
    fill(b, 1000, -1, 1);
    for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
        size_t n = ns[t];
        float mag = 0;
        for (size_t i = 0; i < n; i++)
            mag += fabsf(a[i] * b[i]);
        float got = kt->dot(a, b, n), want = hxi_kernels_scalar.dot(a, b, n);
        CHECK(fabsf(got - want) <= TOL_DOT_REL * mag, "%s dot n=%zu: %g vs %g", kt->name, n, got, want);
    }
}

static int same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void test_f16(const hxi_kernels *kt)
{
    uint16_t *h = malloc(65536 * sizeof *h);
    float *f = malloc(65536 * sizeof *f);
    for (int i = 0; i < 65536; i++)
        h[i] = (uint16_t)i;
    kt->f16_to_f32(h, f, 65536);
    int bad = 0;
    for (int i = 0; i < 65536 && bad < 5; i++) {
        int nan = (i & 0x7C00) == 0x7C00 && (i & 0x3FF);
        int ok = nan ? isnan(f[i]) : same_bits(f[i], hxi_half_to_float((uint16_t)i));
        CHECK(ok, "%s f16 0x%04x -> %g, want %g", kt->name, i, f[i], hxi_half_to_float((uint16_t)i));
        bad += !ok;
    }
    for (size_t n = 0; n <= 40; n++) {   /* tails and odd starts, and nothing written past n */
        float out[41];
        for (size_t i = 0; i <= n; i++)
            out[i] = SENTINEL;
        kt->f16_to_f32(h + 0x3C00 + n, out, n);
        for (size_t i = 0; i < n; i++)
            CHECK(same_bits(out[i], hxi_half_to_float((uint16_t)(0x3C00 + n + i))), "%s f16 n=%zu [%zu]",
                  kt->name, n, i);
        CHECK(out[n] == SENTINEL, "%s f16 n=%zu wrote past the end", kt->name, n);
    }
    free(h), free(f);
}

/* === int8 === */

/* Value i of quantized inputs q as k8 stores them (kernels.h: in_bytes wide). */
static unsigned q_at(const hxi_kernels_i8 *k8, const void *q, size_t i)
{
    return k8->in_bytes == 2 ? ((const uint16_t *)q)[i] : ((const uint8_t *)q)[i];
}

/* The n quantized values q (bytes, as the reference stores them) in k8's width, in a new buffer. */
static void *as_table_input(const hxi_kernels_i8 *k8, const uint8_t *q, size_t n)
{
    void *out = malloc(n * (size_t)k8->in_bytes);
    for (size_t i = 0; i < n; i++) {
        if (k8->in_bytes == 2)
            ((uint16_t *)out)[i] = q[i];
        else
            ((uint8_t *)out)[i] = q[i];
    }
    return out;
}

/* Known roundings: a row spanning [-127.5, 127.5] gets scale 1 and zero point 128 (127.5 rounds to
 * even), so q is x rounded to nearest even plus 128; a row of one sign keeps 0 in its range; a zero
 * row; a NaN is passed over by the range and quantizes to 0; and the smoothing multiplies first. */
static void test_i8_quantize_known(const hxi_kernels_i8 *k8)
{
    const float x[10] = {127.5f, 2.5f, -3.5f, 0.5f, -0.5f, 1.49f, -127.5f, 3.5f, 0, NAN};
    const unsigned want[12] = {255, 130, 124, 128, 128, 129, 0, 132, 128, 0, 0, 0};
    uint16_t q[13];   /* room for 13 values of either width */
    float scale[2];
    int32_t zero[2];
    memset(q, 0x55, sizeof q);
    k8->quantize(1, 10, x, 10, NULL, q, 12, scale, zero);
    CHECK(scale[0] == 1.0f && zero[0] == 128, "%s quantize: scale %g zero %d, want 1 and 128", k8->name,
          (double)scale[0], zero[0]);
    for (int k = 0; k < 12; k++)
        CHECK(q_at(k8, q, (size_t)k) == want[k], "%s quantize: q[%d] = %u, want %u", k8->name, k,
              q_at(k8, q, (size_t)k), want[k]);
    CHECK(q_at(k8, q, 12) == (k8->in_bytes == 2 ? 0x5555u : 0x55u), "%s quantize wrote past the padded row", k8->name);

    const float pos[3] = {2.55f, 1.0f, 0.5f}, xinv[3] = {100, 100, 100};   /* y in [0, 255] */
    k8->quantize(1, 3, pos, 3, xinv, q, 4, scale, zero);
    CHECK(zero[0] == 0 && fabsf(scale[0] - 1.0f) < 1e-6f && q_at(k8, q, 0) == 255 && q_at(k8, q, 1) == 100 &&
          q_at(k8, q, 2) == 50 && q_at(k8, q, 3) == 0, "%s quantize, smoothed positive row: zero %d scale %g q %u %u "
          "%u %u", k8->name, zero[0], (double)scale[0], q_at(k8, q, 0), q_at(k8, q, 1), q_at(k8, q, 2), q_at(k8, q, 3));
    const float neg[2] = {-2.0f, -1.0f};   /* inv 127.5: -1 gives -127.5, rounded to even -128 */
    k8->quantize(1, 2, neg, 2, NULL, q, 4, scale, zero);
    CHECK(zero[0] == 255 && q_at(k8, q, 0) == 0 && q_at(k8, q, 1) == 127, "%s quantize, negative row: zero %d q %u %u",
          k8->name, zero[0], q_at(k8, q, 0), q_at(k8, q, 1));
    const float zrow[3] = {0, -0.0f, 0};
    k8->quantize(1, 3, zrow, 3, NULL, q, 4, scale, zero);
    CHECK(scale[0] == 0 && zero[0] == 0 && !q_at(k8, q, 0) && !q_at(k8, q, 1) && !q_at(k8, q, 2) && !q_at(k8, q, 3),
          "%s quantize: a zero row", k8->name);

    /* rows whose range gives no finite 255 / range: values too small, an infinity; all 0 (kernels.h) */
    float odd[3][20];
    for (int k = 0; k < 20; k++) {
        odd[0][k] = k % 2 ? 1e-38f : -2e-38f;
        odd[1][k] = (float)k - 7;
        odd[2][k] = (float)k - 7;
    }
    odd[1][5] = -INFINITY;
    odd[2][3] = NAN;   /* in the 16-wide loop of the SIMD tables: passed over, then 0 */
    uint16_t q3[3 * 20];
    float s3[3];
    int32_t z3[3];
    k8->quantize(3, 20, odd[0], 20, NULL, q3, 20, s3, z3);
    for (int r = 0; r < 2; r++) {
        unsigned nonzero = 0;
        for (int k = 0; k < 20; k++)
            nonzero += q_at(k8, q3, (size_t)r * 20 + k) != 0;
        CHECK(s3[r] == 0 && z3[r] == 0 && !nonzero, "%s quantize, degenerate row %d: scale %g zero %d, %u values "
              "not 0", k8->name, r, (double)s3[r], z3[r], nonzero);
    }
    CHECK(z3[2] == 94 && q_at(k8, q3, 2 * 20 + 3) == 0 && q_at(k8, q3, 2 * 20 + 19) == 255 &&
          q_at(k8, q3, 2 * 20 + 7) == 94, "%s quantize: a NaN at 3 of 20: zero %d, q %u %u %u", k8->name, z3[2],
          q_at(k8, q3, 2 * 20 + 3), q_at(k8, q3, 2 * 20 + 7), q_at(k8, q3, 2 * 20 + 19));
}

/* A table's quantize against the reference: same values, scales and zero points, padding zero,
 * nothing past it; with and without smoothing, rows of mixed and of one sign. */
static void test_i8_quantize(const hxi_kernels_i8 *k8)
{
    static const int Ks[] = {1, 3, 4, 5, 8, 15, 16, 17, 31, 33, 384, 385, 1536};
    for (size_t t = 0; t < sizeof Ks / sizeof *Ks; t++) {
        for (int smooth = 0; smooth < 2; smooth++) {
            const int K = Ks[t], rows = 6, ldx = K + 3, Kp = hxi_i8_row_len(K), ldq = Kp + 8;
            float *x = malloc((size_t)rows * ldx * sizeof *x), *xinv = malloc((size_t)K * sizeof *xinv);
            float s1[6], s2[6];
            int32_t z1[6], z2[6];
            uint8_t *q1 = malloc((size_t)rows * ldq), *q2 = malloc((size_t)rows * ldq * (size_t)k8->in_bytes);
            fill(x, (size_t)rows * ldx, -3, 3);
            fill(xinv, (size_t)K, 0.1f, 10);
            for (int k = 0; k < K; k++) {
                x[(size_t)3 * ldx + k] = 0;                              /* row 3 all zero */
                x[(size_t)4 * ldx + k] = fabsf(x[(size_t)4 * ldx + k]);  /* row 4 positive */
                x[(size_t)5 * ldx + k] = -fabsf(x[(size_t)5 * ldx + k]); /* row 5 negative */
            }
            memset(q1, 0x55, (size_t)rows * ldq);
            memset(q2, 0x55, (size_t)rows * ldq * (size_t)k8->in_bytes);
            const unsigned untouched = k8->in_bytes == 2 ? 0x5555u : 0x55u;
            const float *xi = smooth ? xinv : NULL;
            hxi_kernels_i8_scalar.quantize(rows, K, x, ldx, xi, q1, ldq, s1, z1);
            k8->quantize(rows, K, x, ldx, xi, q2, ldq, s2, z2);
            int differ = 0;
            for (int r = 0; r < rows; r++)
                for (int k = 0; k < Kp; k++)
                    differ += q1[(size_t)r * ldq + k] != q_at(k8, q2, (size_t)r * ldq + k);
            CHECK(!differ, "%s quantize K=%d smooth=%d: %d values differ from scalar", k8->name, K, smooth, differ);
            for (int r = 0; r < rows; r++) {
                CHECK(same_bits(s1[r], s2[r]) && z1[r] == z2[r], "%s quantize K=%d row %d: scale %g zero %d vs "
                      "%g %d", k8->name, K, r, (double)s2[r], z2[r], (double)s1[r], z1[r]);
                for (int k = Kp; k < ldq; k++)
                    CHECK(q_at(k8, q2, (size_t)r * ldq + k) == untouched, "%s quantize K=%d wrote past the row",
                          k8->name, K);
                for (int k = K; k < Kp; k++)
                    CHECK(q_at(k8, q2, (size_t)r * ldq + k) == 0, "%s quantize K=%d: padding not zero", k8->name, K);
            }
            if (k8 == &hxi_kernels_i8_scalar)   /* the reference against its definition (kernels.h) */
                for (int r = 0; r < rows; r++)
                    for (int k = 0; k < K; k++) {
                        const float y = smooth ? x[(size_t)r * ldx + k] * xinv[k] : x[(size_t)r * ldx + k];
                        const float back = s1[r] * (float)(q1[(size_t)r * ldq + k] - z1[r]);
                        CHECK(fabsf(back - y) <= 0.5f * s1[r] * 1.0001f + 1e-6f, "scalar quantize K=%d: row %d "
                              "value %d reads back as %g, was %g", K, r, k, (double)back, (double)y);
                    }
            free(x), free(xinv), free(q1), free(q2);
        }
    }
}

/* W [N x K] times xs rounded to int8 per row as hxi_pack_weights_i8 specifies (kernels.h): into Wq
 * [N x Kp], scales. */
static void quantize_weights(const uint16_t *W, const float *xs, int N, int K, int Kp, int8_t *Wq, float *wscale)
{
    for (int n = 0; n < N; n++) {
        float max = 0;
        for (int k = 0; k < K; k++)
            max = fmaxf(max, fabsf(hxi_half_to_float(W[(size_t)n * K + k]) * xs[k]));
        wscale[n] = max / 127.0f;
        for (int k = 0; k < Kp; k++)
            Wq[(size_t)n * Kp + k] = (int8_t)(k < K ? lrintf(hxi_half_to_float(W[(size_t)n * K + k]) * xs[k] *
                                                             (127.0f / max)) : 0);
    }
}

/* One shape: k8's gemm against the scalar one; for the scalar table itself, against int32 sums over
 * unpacked rows quantized here (which checks the packing, its sums and smoothing too). */
static void test_i8_gemm_shape(const hxi_kernels_i8 *k8, int M, int N, int K, int n0, int n1, int bias_on)
{
    const int Kp = hxi_i8_row_len(K), lda = Kp + 4, ldc = N + 5;
    const hxi_kernels_i8 *ref = &hxi_kernels_i8_scalar;
    uint16_t *W = malloc((size_t)N * K * sizeof *W);
    float *A = malloc((size_t)M * K * sizeof *A), *bias = malloc((size_t)N * sizeof *bias);
    float *row = malloc((size_t)K * sizeof *row), *ascale = malloc((size_t)M * sizeof *ascale);
    float *xs = malloc((size_t)K * sizeof *xs);
    float *wscale = malloc((size_t)N * sizeof *wscale), *wscale_ref = malloc((size_t)N * sizeof *wscale);
    int32_t *azero = malloc((size_t)M * sizeof *azero), *wsum = malloc((size_t)N * sizeof *wsum);
    uint8_t *Aq = malloc((size_t)M * lda);
    int8_t *Wq = malloc((size_t)N * Kp), *Bp = malloc(hxi_pack_i8_size(N, K));
    float *Cref = malloc((size_t)M * ldc * sizeof *Cref), *Ct = malloc((size_t)M * ldc * sizeof *Ct);
    for (size_t i = 0; i < (size_t)N * K; i++)
        W[i] = rand_half();
    fill(A, (size_t)M * K, -4, 4);
    for (int i = 1; i < M; i += 3)   /* some rows of one sign: zero points 0 and 255 */
        for (int k = 0; k < K; k++)
            A[(size_t)i * K + k] = i % 2 ? fabsf(A[(size_t)i * K + k]) : -fabsf(A[(size_t)i * K + k]);
    fill(bias, (size_t)N, -1, 1);
    fill(xs, (size_t)K, 0.25f, 4);
    ref->quantize(M, K, A, K, NULL, Aq, lda, ascale, azero);
    hxi_pack_weights_i8(&hxi_kernels_scalar, W, N, K, xs, row, Bp, wscale, wsum);
    quantize_weights(W, xs, N, K, Kp, Wq, wscale_ref);
    for (int n = 0; n < N && k8 == ref; n++) {
        int32_t sum = 0;
        for (int k = 0; k < K; k++)
            sum += Wq[(size_t)n * Kp + k];
        CHECK(same_bits(wscale[n], wscale_ref[n]) && wsum[n] == sum, "pack_i8 N=%d K=%d: scale or sum of row %d",
              N, K, n);
    }
    for (size_t i = 0; i < (size_t)M * ldc; i++)
        Cref[i] = Ct[i] = SENTINEL;
    const float *b = bias_on ? bias : NULL;
    void *Ak = as_table_input(k8, Aq, (size_t)M * lda);
    ref->gemm(M, n0, n1, K, Aq, lda, ascale, azero, Bp, wsum, wscale, b, Cref, ldc);
    int bad = 0;
    /* with unit scales and no bias, C is the integer sum converted once to float */
    float *ones = malloc((size_t)(M > N ? M : N) * sizeof *ones);
    for (int i = 0; i < (M > N ? M : N); i++)
        ones[i] = 1;
    k8->gemm(M, n0, n1, K, Ak, lda, ones, azero, Bp, wsum, ones, NULL, Ct, ldc);
    for (int i = 0; i < M && bad < 3; i++)
        for (int j = n0; j < n1 && bad < 3; j++) {
            int64_t s = 0;
            for (int k = 0; k < K; k++)
                s += ((int64_t)Aq[(size_t)i * lda + k] - azero[i]) * Wq[(size_t)j * Kp + k];
            CHECK(Ct[(size_t)i * ldc + j] == (float)s, "%s gemm_i8 M=%d N=%d K=%d: sum C[%d][%d] = %g, want %lld",
                  k8->name, M, N, K, i, j, (double)Ct[(size_t)i * ldc + j], (long long)s);
            bad += Ct[(size_t)i * ldc + j] != (float)s;
        }
    free(ones);
    for (size_t i = 0; i < (size_t)M * ldc; i++)
        Ct[i] = SENTINEL;
    k8->gemm(M, n0, n1, K, Ak, lda, ascale, azero, Bp, wsum, wscale, b, Ct, ldc);
    free(Ak);
    for (int i = 0; i < M && bad < 3; i++) {
        for (int j = 0; j < ldc && bad < 3; j++) {
            float got = Ct[(size_t)i * ldc + j], want = Cref[(size_t)i * ldc + j];
            if (j < n0 || j >= n1) {
                CHECK(got == SENTINEL, "%s gemm_i8 M=%d N=%d K=%d [%d,%d): wrote C[%d][%d]", k8->name, M,
                      N, K, n0, n1, i, j);
                bad += got != SENTINEL;
                continue;
            }
            int64_t s = 0;
            for (int k = 0; k < K; k++)
                s += ((int64_t)Aq[(size_t)i * lda + k] - azero[i]) * Wq[(size_t)j * Kp + k];
            float scaled = (float)s * (ascale[i] * wscale[j]), bj = b ? b[j] : 0;
            if (k8 == ref)   /* the reference is the exact sum, scaled */
                want = scaled + bj;
            const int same = !memcmp(&got, &want, sizeof got);   /* the same sums, the same epilogue */
            CHECK(same, "%s gemm_i8 M=%d N=%d K=%d [%d,%d) bias=%d C[%d][%d]: %g vs %g",
                  k8->name, M, N, K, n0, n1, bias_on, i, j, got, want);
            bad += !same;
        }
    }
    free(W), free(A), free(bias), free(row), free(ascale), free(xs), free(wscale), free(wscale_ref), free(azero);
    free(wsum), free(Aq), free(Wq), free(Bp), free(Cref), free(Ct);
}

static void test_i8_gemm(const hxi_kernels_i8 *k8)
{
    static const int Ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 16, 17, 25, 32, 97, 240};
    static const int Ks[] = {1, 3, 4, 5, 64, 257, 384, 1536, HX_I8_MAX_K};
    static const int Ns[] = {1, 7, 8, 9, 16, 17, 31, 32, 33, 48, 100};
    int shape = 0;
    for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
        for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++)
            for (size_t d = 0; d < sizeof Ns / sizeof *Ns; d++, shape++) {
                int M = Ms[a], K = Ks[c], N = Ns[d];
                if ((long)M * K * N > 2000000)
                    continue;
                test_i8_gemm_shape(k8, M, N, K, 0, N, shape % 2);
                if (N > HX_I8_NR)   /* a thread's slice: starts at a panel, ends inside one */
                    test_i8_gemm_shape(k8, M, N, K, HX_I8_NR, N - 1 > HX_I8_NR ? N - 1 : N, 1);
                if (N > 2)          /* a slice ending before N */
                    test_i8_gemm_shape(k8, M, N, K, 0, N / 2 + 1, shape % 2);
            }
    printf("%s gemm_i8: %d shapes\n", k8->name, shape);
}

/* The largest sums must not wrap: over K = HX_I8_MAX_K with every weight at 127, rows of one sign
 * give every input 255 (zero point 0: the sum is K 255 127) or 0 with zero point 255 (the
 * correction is -255 K 127), computed here in double. */
static void test_i8_extreme(const hxi_kernels_i8 *k8)
{
    const int K = HX_I8_MAX_K, M = 3, N = 17;
    float *A = malloc((size_t)M * K * sizeof *A), *row = malloc((size_t)K * sizeof *row);
    float ascale[3], wscale[17], C[3 * 17];
    int32_t azero[3], wsum[17];
    uint16_t *W = malloc((size_t)N * K * sizeof *W);
    void *Aq = malloc((size_t)M * K * (size_t)k8->in_bytes);
    int8_t *Bp = malloc(hxi_pack_i8_size(N, K));
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            A[(size_t)i * K + k] = i == 1 ? -1.0f : 1.0f;
    for (size_t i = 0; i < (size_t)N * K; i++)
        W[i] = 0x3C00;   /* 1.0 */
    k8->quantize(M, K, A, K, NULL, Aq, K, ascale, azero);
    CHECK(azero[0] == 0 && azero[1] == 255 && q_at(k8, Aq, 0) == 255 && q_at(k8, Aq, (size_t)K) == 0,
          "%s quantize of one-sign rows: zero points %d %d", k8->name, azero[0], azero[1]);
    hxi_pack_weights_i8(&hxi_kernels_scalar, W, N, K, NULL, row, Bp, wscale, wsum);
    k8->gemm(M, 0, N, K, Aq, K, ascale, azero, Bp, wsum, wscale, NULL, C, N);
    for (int i = 0; i < M * N; i++) {
        const double want = (i / N == 1 ? -1 : 1) * (double)K * 255 * 127 * (double)ascale[0] * (double)wscale[0];
        CHECK(fabs(C[i] - want) <= 1e-6 * fabs(want), "%s gemm_i8 at the largest sums: %g, want %g", k8->name,
              (double)C[i], want);
    }
    free(A), free(row), free(W), free(Aq), free(Bp);
}

/* Smoothing end to end: inputs quantized with xinv = 1 / xs and weights packed with xs give x W^T
 * within the two quantizations' rounding (half a step of each, per product), as if unsmoothed;
 * inputs with outlier channels, as the LayerNorm outputs smoothing is for. */
static void test_i8_smoothing(const hxi_kernels_i8 *k8)
{
    const int M = 7, N = 33, K = 384, Kp = hxi_i8_row_len(K);
    float *x = malloc((size_t)M * K * sizeof *x), *xs = malloc((size_t)K * sizeof *xs);
    float *xinv = malloc((size_t)K * sizeof *xinv);
    float *row = malloc((size_t)K * sizeof *row), ascale[7], wscale[33], C[7 * 33];
    uint16_t *W = malloc((size_t)N * K * sizeof *W);
    int32_t azero[7], wsum[33];
    void *Aq = malloc((size_t)M * Kp * (size_t)k8->in_bytes);
    int8_t *Bp = malloc(hxi_pack_i8_size(N, K));
    fill(x, (size_t)M * K, -3, 3);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k += 37)
            x[(size_t)i * K + k] *= 20;   /* outlier channels */
    for (int k = 0; k < K; k++) {
        xs[k] = k % 37 ? frand(0.5f, 2) : 8;
        xinv[k] = 1 / xs[k];
    }
    for (size_t i = 0; i < (size_t)N * K; i++)
        W[i] = rand_half();
    k8->quantize(M, K, x, K, xinv, Aq, Kp, ascale, azero);
    hxi_pack_weights_i8(&hxi_kernels_scalar, W, N, K, xs, row, Bp, wscale, wsum);
    k8->gemm(M, 0, N, K, Aq, Kp, ascale, azero, Bp, wsum, wscale, NULL, C, N);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = 0, bound = 0;
            for (int k = 0; k < K; k++) {
                const double w = hxi_half_to_float(W[(size_t)j * K + k]), y = (double)x[(size_t)i * K + k] * xinv[k];
                want += (double)x[(size_t)i * K + k] * w;
                bound += 0.5 * ascale[i] * fabs(w * xs[k]) + 0.5 * wscale[j] * fabs(y) + 0.25 * ascale[i] * wscale[j];
            }
            const double err = fabs(C[i * N + j] - want) / (bound * 1.001 + 1e-4);
            worst = err > worst ? err : worst;
        }
    CHECK(worst <= 1, "%s smoothing: an output is %.2f times its rounding bound from x W^T", k8->name, worst);
    free(x), free(xs), free(xinv), free(row), free(W), free(Aq), free(Bp);
}

static int test_int8(void)
{
    test_i8_extreme(&hxi_kernels_i8_scalar);
    test_i8_quantize_known(&hxi_kernels_i8_scalar);
    test_i8_quantize(&hxi_kernels_i8_scalar);
    test_i8_gemm(&hxi_kernels_i8_scalar);
    test_i8_smoothing(&hxi_kernels_i8_scalar);
#if defined(__x86_64__)
    /* the AVX2 quantize into bytes serves only the VNNI and AMX tables: test it wherever AVX2 runs */
    const hxi_kernels_i8 avx2_bytes = {.name = "avx2 bytes", .in_bytes = 1, .quantize = hxi_quantize_u8_avx2,
                                      .gemm = hxi_kernels_i8_scalar.gemm};
    if (hxi_kernels_for(HX_ISA_AVX2)) {
        test_i8_quantize_known(&avx2_bytes);
        test_i8_quantize(&avx2_bytes);
    }
#endif
    int tested = 0;
    for (int isa = HX_I8_AVX2; isa < HX_I8_COUNT; isa++) {
        const hxi_kernels_i8 *k8 = hxi_kernels_i8_for((enum hxi_i8_isa)isa);
        if (!k8) {
            printf("int8 %s: not available on this machine, skipped\n", hxi_i8_isa_name((enum hxi_i8_isa)isa));
            continue;
        }
        tested++;
        test_i8_quantize_known(k8);
        test_i8_quantize(k8);
        test_i8_gemm(k8);
        test_i8_extreme(k8);
        test_i8_smoothing(k8);
    }
    CHECK(hxi_kernels_i8_get() != NULL, "no int8 table");
    return tested;
}

/* === HYRAX_ISA and selection === */

/* HYRAX_ISA is read once, at the first detection: set before anything asks, it must select
 * scalar, while hxi_kernels_for still hands out every table the machine runs. */
static void test_env_override(void)
{
    setenv("HYRAX_ISA", "scalar", 1);
    CHECK(hxi_cpu_isa() == HX_ISA_SCALAR, "HYRAX_ISA=scalar: active ISA is %s", hxi_isa_name(hxi_cpu_isa()));
    CHECK(hxi_kernels_get() == &hxi_kernels_scalar, "HYRAX_ISA=scalar: table %s", hxi_kernels_get()->name);
    CHECK(hxi_kernels_i8_get() == &hxi_kernels_i8_scalar, "HYRAX_ISA=scalar: int8 table %s",
          hxi_kernels_i8_get()->name);
}

/* The best ISA of this machine has a table in this build; on AArch64 that is NEON, for float and
 * int8. */
static void test_selection(void)
{
    enum hxi_isa best = hxi_cpu_best_isa();
    CHECK(hxi_kernels_for(best) != NULL, "no table for this machine's best ISA %s", hxi_isa_name(best));
#if defined(__aarch64__)
    CHECK(best == HX_ISA_NEON && hxi_kernels_for(HX_ISA_NEON) == &hxi_kernels_neon,
          "aarch64: best ISA %s, want neon", hxi_isa_name(best));
    CHECK(hxi_kernels_i8_for(HX_I8_NEON) == &hxi_kernels_i8_neon, "aarch64: no NEON int8 table");
#endif
    for (int i = 0; i < HX_ISA_COUNT; i++) {
        const hxi_kernels *kt = hxi_kernels_for((enum hxi_isa)i);
        CHECK(!kt || !strcmp(kt->name, hxi_isa_name((enum hxi_isa)i)), "table for %s is named %s",
              hxi_isa_name((enum hxi_isa)i), kt ? kt->name : "");
    }
}

int main(void)
{
    test_env_override();
    test_selection();
    const hxi_kernels portable = {.name = "portable4", KS_TABLE_KERNELS,
                                 .f16_to_f32 = hxi_kernels_scalar.f16_to_f32};
    int tested = 0;
    for (int i = HX_ISA_SCALAR + 1; i <= HX_ISA_COUNT; i++) {
        const hxi_kernels *kt = i < HX_ISA_COUNT ? hxi_kernels_for((enum hxi_isa)i) : &portable;
        if (!kt) {
            printf("%s: not in this build or not on this machine, skipped\n", hxi_isa_name((enum hxi_isa)i));
            continue;
        }
        tested++;
        test_f16(kt);
        test_dot(kt);
        test_gemm(kt);
        test_gelu_sweep(kt);
        test_gelu_rows(kt);
        test_exp_sweep(kt);
        test_attention(kt);
        test_layernorm(kt);
    }
    printf("tables tested against scalar: %d\n", tested);
    printf("int8 tables tested against scalar: %d\n", test_int8());
    return check_report("test_kernels");
}
