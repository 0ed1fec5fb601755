/* test_kernels.c: every kernel of every SIMD table this machine can run (kernels_avx2.c,
 * kernels_avx512.c) and of a portable table built here from kernels_simd.h against the scalar
 * reference (kernels_scalar.c) with the named tolerances below, plus GELU and exp sweeps, all 65536
 * halfs, and HYRAX_ISA=scalar honoured (cpu.h). */
#include "check.h"
#include "kernels.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

static void test_gemm_shape(const hx_kernels *kt, int M, int N, int K, int n0, int n1, int bias_on,
                            int gelu, float *max_rel)
{
    const int lda = K + 3, ldc = N + 5;
    const hx_kernels *ref = &hx_kernels_scalar;
    uint16_t *W = malloc((size_t)N * K * sizeof *W);
    float *A = malloc((size_t)M * lda * sizeof *A), *bias = malloc((size_t)N * sizeof *bias);
    float *row = malloc((size_t)K * sizeof *row + sizeof *row);
    float *Bref = malloc(hx_pack_size(N, K, ref->nr) * sizeof *Bref + sizeof *Bref);
    float *Bt = malloc(hx_pack_size(N, K, kt->nr) * sizeof *Bt + sizeof *Bt);
    float *Cref = malloc((size_t)M * ldc * sizeof *Cref), *Ct = malloc((size_t)M * ldc * sizeof *Ct);
    for (size_t i = 0; i < (size_t)N * K; i++)
        W[i] = rand_half();
    fill(A, (size_t)M * lda, -1, 1);
    fill(bias, (size_t)N, -1, 1);
    hx_pack_weights_f16(ref, W, N, K, row, Bref);
    hx_pack_weights_f16(kt, W, N, K, row, Bt);
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
                mag += fabsf(A[(size_t)i * lda + k] * hx_half_to_float(W[(size_t)j * K + k]));
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

static void test_gemm(const hx_kernels *kt)
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
static void test_gelu_sweep(const hx_kernels *kt)
{
    const int M = 2000001, nr = kt->nr;
    uint16_t *W = malloc((size_t)nr * sizeof *W);
    float *x = malloc((size_t)M * sizeof *x), *c = malloc((size_t)M * sizeof *c);
    float *Bp = malloc(hx_pack_size(nr, 1, nr) * sizeof *Bp), row[1];
    for (int j = 0; j < nr; j++)
        W[j] = 0x3C00;   /* 1.0 */
    hx_pack_weights_f16(kt, W, nr, 1, row, Bp);
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

/* === Attention === */

/* exp through the softmax: scores {0, x} and values {0, 1} give e^x / (1 + e^x). */
static void test_exp_sweep(const hx_kernels *kt)
{
    float worst = 0, worst_x = 0, *scratch = malloc(hx_attention_scratch(2, 1) * sizeof *scratch);
    for (int i = 0; i <= 200000; i++) {
        float x = -87.0f * (float)i / 200000.0f;
        float q[2] = {1, 1}, k[2] = {0, x}, v[2] = {0, 1}, out[2];
        kt->attention(2, 1, q, k, v, 1, out, 1, 1.0f, scratch);
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

static void test_attention(const hx_kernels *kt)
{
    static const int Ts[] = {1, 2, 7, 8, 9, 16, 33, 100};
    static const int hds[] = {1, 5, 8, 16, 31, 32, 33, 64, 70};
    float worst = 0;
    for (size_t a = 0; a < sizeof Ts / sizeof *Ts; a++)
        for (size_t b = 0; b < sizeof hds / sizeof *hds; b++) {
            int T = Ts[a], hd = hds[b], ld = 3 * hd + 2, ldo = hd + 3;
            float *qkv = malloc((size_t)T * ld * sizeof *qkv);
            float *o1 = malloc((size_t)T * ldo * sizeof *o1), *o2 = malloc((size_t)T * ldo * sizeof *o2);
            float *scratch = malloc(hx_attention_scratch(T, hd) * sizeof *scratch);
            fill(qkv, (size_t)T * ld, -2, 2);
            for (size_t i = 0; i < (size_t)T * ldo; i++)
                o1[i] = o2[i] = SENTINEL;
            float scale = 1.0f / sqrtf((float)hd);
            hx_kernels_scalar.attention(T, hd, qkv, qkv + hd, qkv + 2 * hd, ld, o1, ldo, scale, scratch);
            kt->attention(T, hd, qkv, qkv + hd, qkv + 2 * hd, ld, o2, ldo, scale, scratch);
            int bad = 0;
            for (int i = 0; i < T && bad < 3; i++)
                for (int d = 0; d < ldo && bad < 3; d++) {
                    float got = o2[(size_t)i * ldo + d], want = o1[(size_t)i * ldo + d];
                    float err = fabsf(got - want);
                    if (d < hd && err > worst)
                        worst = err;
                    int ok = d < hd ? err <= TOL_ATTENTION_ABS : got == SENTINEL;
                    CHECK(ok, "%s attention T=%d hd=%d out[%d][%d]: %g vs %g", kt->name, T, hd, i, d, got,
                          want);
                    bad += !ok;
                }
            free(qkv), free(o1), free(o2), free(scratch);
        }
    printf("%s attention: max abs error %.3g\n", kt->name, (double)worst);
}

/* === LayerNorm, dot, f16 === */

static void test_layernorm(const hx_kernels *kt)
{
    static const int dims[] = {1, 5, 8, 16, 17, 31, 384, 385};
    float worst = 0;
    for (size_t a = 0; a < sizeof dims / sizeof *dims; a++) {
        int dim = dims[a], rows = 3, ldx = dim + 4, ldr = dim + 1;
        float *x1 = malloc((size_t)rows * ldx * sizeof *x1);
        float *x2 = malloc((size_t)rows * ldx * sizeof *x2);
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
        hx_kernels_scalar.add_layernorm(rows, dim, x1, ldx, res, ldr, w, b, 1e-12f);
        kt->add_layernorm(rows, dim, x2, ldx, res, ldr, w, b, 1e-12f);
        for (int r = 0; r < rows; r++)
            for (int i = 0; i < ldx; i++) {
                float got = x2[(size_t)r * ldx + i], want = x1[(size_t)r * ldx + i];
                float err = fabsf(got - want);
                if (i < dim && err > worst)
                    worst = err;
                CHECK(i < dim ? err <= TOL_LAYERNORM_ABS : got == SENTINEL,
                      "%s layernorm dim=%d x[%d][%d]: %g vs %g", kt->name, dim, r, i, got, want);
            }
        free(x1), free(x2), free(res), free(w), free(b);
    }
    printf("%s layernorm: max abs error %.3g\n", kt->name, (double)worst);
}

static void test_dot(const hx_kernels *kt)
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
        float got = kt->dot(a, b, n), want = hx_kernels_scalar.dot(a, b, n);
        CHECK(fabsf(got - want) <= TOL_DOT_REL * mag, "%s dot n=%zu: %g vs %g", kt->name, n, got, want);
    }
}

static int same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void test_f16(const hx_kernels *kt)
{
    uint16_t *h = malloc(65536 * sizeof *h);
    float *f = malloc(65536 * sizeof *f);
    for (int i = 0; i < 65536; i++)
        h[i] = (uint16_t)i;
    kt->f16_to_f32(h, f, 65536);
    int bad = 0;
    for (int i = 0; i < 65536 && bad < 5; i++) {
        int nan = (i & 0x7C00) == 0x7C00 && (i & 0x3FF);
        int ok = nan ? isnan(f[i]) : same_bits(f[i], hx_half_to_float((uint16_t)i));
        CHECK(ok, "%s f16 0x%04x -> %g, want %g", kt->name, i, f[i], hx_half_to_float((uint16_t)i));
        bad += !ok;
    }
    for (size_t n = 0; n <= 40; n++) {   /* tails and odd starts, and nothing written past n */
        float out[41];
        for (size_t i = 0; i <= n; i++)
            out[i] = SENTINEL;
        kt->f16_to_f32(h + 0x3C00 + n, out, n);
        for (size_t i = 0; i < n; i++)
            CHECK(same_bits(out[i], hx_half_to_float((uint16_t)(0x3C00 + n + i))), "%s f16 n=%zu [%zu]",
                  kt->name, n, i);
        CHECK(out[n] == SENTINEL, "%s f16 n=%zu wrote past the end", kt->name, n);
    }
    free(h), free(f);
}

/* === HYRAX_ISA === */

/* Child: reports through its exit status whether HYRAX_ISA=scalar took effect. */
static int isa_child(void)
{
    return hx_cpu_isa() == HX_ISA_SCALAR && hx_kernels_get() == &hx_kernels_scalar ? 0 : 1;
}

static void test_env_override(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0, "fork failed");
    if (pid == 0) {
        char *argv[] = {"test_kernels", "--isa-child", NULL};
        char *envp[] = {"HYRAX_ISA=scalar", NULL};
        execve("/proc/self/exe", argv, envp);
        _exit(127);
    }
    if (pid < 0)
        return;
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid failed");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "HYRAX_ISA=scalar not honoured (status %d)",
          status);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--isa-child"))
        return isa_child();
    test_env_override();
    CHECK(hx_kernels_get() != NULL, "no kernel table");
    static const enum hx_isa isas[] = {HX_ISA_AVX2, HX_ISA_AVX512};
    const hx_kernels portable = {.name = "portable4", KS_TABLE_KERNELS,
                                 .f16_to_f32 = hx_kernels_scalar.f16_to_f32};
    int tested = 0;
    for (size_t i = 0; i <= sizeof isas / sizeof *isas; i++) {
        const hx_kernels *kt = i < sizeof isas / sizeof *isas ? hx_kernels_for(isas[i]) : &portable;
        if (!kt) {
            printf("%s: not available on this machine, skipped\n", hx_isa_name(isas[i]));
            continue;
        }
        tested++;
        test_f16(kt);
        test_dot(kt);
        test_gemm(kt);
        test_gelu_sweep(kt);
        test_exp_sweep(kt);
        test_attention(kt);
        test_layernorm(kt);
    }
    printf("tables tested against scalar: %d\n", tested);
    return check_report("test_kernels");
}
