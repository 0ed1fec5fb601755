/* kernels_neon.c: the AArch64 Advanced SIMD (NEON) kernel table hx_kernels_neon (interface and
 * packed-weight layout in kernels.h, reference semantics in kernels_scalar.c, tests in
 * tests/test_kernels.c). NEON, FMA and fp16 conversion are baseline AArch64, so this file needs
 * no extra flags; the Makefile builds it for aarch64 targets only. Float vectors are 4 wide and
 * there are 32 registers; partial tiles go through a small stack buffer, as NEON has no masked
 * loads. */
#include "erf_poly.h"
#include "kernels.h"

#include <arm_neon.h>
#include <math.h>
#include <string.h>

#define HX_INLINE static inline __attribute__((always_inline))

/* === Vector math: erf and exp === */

/* The erf table (erf_poly.h) as byte tables: row j's eight floats in two q registers, so one
 * vqtbl2q_u8 gathers each lane's coefficient (the NEON form of vpermps). */
typedef struct erf_rows {
    uint8x16x2_t row[8];
} erf_rows;

HX_INLINE erf_rows erf_rows_load(void)
{
    erf_rows t;
    for (int j = 0; j < 8; j++) {
        t.row[j].val[0] = vreinterpretq_u8_f32(vld1q_f32(hx_erf_poly[j]));
        t.row[j].val[1] = vreinterpretq_u8_f32(vld1q_f32(hx_erf_poly[j] + 4));
    }
    return t;
}

HX_INLINE float32x4_t erf4(const erf_rows *t, float32x4_t x)
{
    float32x4_t ax = vminq_f32(vabsq_f32(x), vdupq_n_f32(3.9999998f));
    int32x4_t idx = vcvtq_s32_f32(vmulq_n_f32(ax, 2.0f));   /* interval, truncated: 0..7 */
    float32x4_t centre = vfmaq_n_f32(vdupq_n_f32(0.25f), vcvtq_f32_s32(idx), 0.5f);
    float32x4_t t_ = vsubq_f32(ax, centre);
    /* byte indices of each lane's float: 4 idx + {0, 1, 2, 3} */
    uint8x16_t bytes = vreinterpretq_u8_u32(vmulq_n_u32(vreinterpretq_u32_s32(idx), 4 * 0x01010101u));
    bytes = vaddq_u8(bytes, vreinterpretq_u8_u32(vdupq_n_u32(0x03020100u)));
#define COEF(j) vreinterpretq_f32_u8(vqtbl2q_u8(t->row[j], bytes))
    float32x4_t p = COEF(7);
    for (int j = 6; j >= 0; j--)
        p = vfmaq_f32(COEF(j), p, t_);
#undef COEF
    p = vminq_f32(p, vdupq_n_f32(1.0f));
    uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u));
    return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(p), sign));
}

/* GELU, erf form: 0.5 x (1 + erf(x / sqrt 2)), as in kernels_scalar.c. */
HX_INLINE float32x4_t gelu4(const erf_rows *t, float32x4_t x)
{
    float32x4_t e = erf4(t, vmulq_n_f32(x, 0.70710678118654752f));
    return vmulq_f32(vmulq_n_f32(x, 0.5f), vaddq_f32(vdupq_n_f32(1.0f), e));
}

/* exp: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two for an exact reduction), Cephes' degree-5
 * minimax polynomial for e^r, then 2^n built in the exponent field. Inputs are clamped to
 * [-87.3, 88.3] so 2^n stays a normal float; below that the result is ~1e-38 instead of 0. */
HX_INLINE float32x4_t exp4(float32x4_t x)
{
    x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-87.3f)), vdupq_n_f32(88.3f));
    float32x4_t n = vrndnq_f32(vmulq_n_f32(x, 1.44269504088896341f));
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
    float32x4_t y = vdupq_n_f32(1.9875691500e-4f);
    y = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), y, r);
    y = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), y, r);
    y = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), y, r);
    y = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), y, r);
    y = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), y, r);
    y = vaddq_f32(vfmaq_f32(r, y, vmulq_f32(r, r)), vdupq_n_f32(1.0f));
    int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    return vmulq_f32(y, vreinterpretq_f32_s32(e));
}

/* === GEMM === */

#define NR 16   /* panel width: four q registers per row of a tile */
#define MR 5    /* tile rows: 20 accumulators + 4 B vectors + 5 A values fit the 32 registers (6 rows spill) */
#define KC 384  /* K block: a KC x NR sub-panel of B (24 KiB) stays in L1 across a row block */
#define MC 96   /* rows per row block: MC x KC of A (144 KiB) stays in L2 across the panels */

/* GELU in place over `rows` rows of NR floats (a tile, still in L1). */
static void gelu_tile(int rows, float *c, int ldc)
{
    const erf_rows t = erf_rows_load();
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < NR; j += 4)
            vst1q_f32(c + (size_t)r * ldc + j, gelu4(&t, vld1q_f32(c + (size_t)r * ldc + j)));
}

/* One full-width tile: C[0..rows)[0..NR) (+)= A[0..rows)[0..kc) * B sub-panel. The first K block
 * starts from the bias (NR floats, or NULL for zero), later ones from C. `rows` is a compile-time
 * constant at every call, so the unrolled row loops fold away and acc stays in registers. */
HX_INLINE void gemm_tile(int rows, int kc, const float *a, int lda, const float *b, const float *bias,
                         int first, float *c, int ldc)
{
    float32x4_t acc[MR][4];
#pragma GCC unroll 5
    for (int r = 0; r < rows; r++)
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++)
            acc[r][v] = !first ? vld1q_f32(c + (size_t)r * ldc + 4 * v)
                        : bias ? vld1q_f32(bias + 4 * v) : vdupq_n_f32(0);
    for (int k = 0; k < kc; k++) {
        const float *bk = b + (size_t)k * NR;
        float32x4_t b0 = vld1q_f32(bk), b1 = vld1q_f32(bk + 4), b2 = vld1q_f32(bk + 8),
                    b3 = vld1q_f32(bk + 12);
#pragma GCC unroll 5
        for (int r = 0; r < rows; r++) {
            float x = a[(size_t)r * lda + k];
            acc[r][0] = vfmaq_n_f32(acc[r][0], b0, x);
            acc[r][1] = vfmaq_n_f32(acc[r][1], b1, x);
            acc[r][2] = vfmaq_n_f32(acc[r][2], b2, x);
            acc[r][3] = vfmaq_n_f32(acc[r][3], b3, x);
        }
    }
#pragma GCC unroll 5
    for (int r = 0; r < rows; r++)
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++)
            vst1q_f32(c + (size_t)r * ldc + 4 * v, acc[r][v]);
}

/* Rows [i0, i1) of one column panel: tiles of MR rows, the rest as 4 + 2 + 1 (fewer inlined
 * shapes). c and bias (NULL: zero) are NR wide. */
static void gemm_rows(int i0, int i1, int kc, const float *A, int lda, const float *b,
                      const float *bias, int first, float *C, int ldc)
{
    int i = i0;
    for (; i + MR <= i1; i += MR)
        gemm_tile(MR, kc, A + (size_t)i * lda, lda, b, bias, first, C + (size_t)i * ldc, ldc);
    if (i1 - i >= 4) {
        gemm_tile(4, kc, A + (size_t)i * lda, lda, b, bias, first, C + (size_t)i * ldc, ldc);
        i += 4;
    }
    if (i1 - i >= 2) {
        gemm_tile(2, kc, A + (size_t)i * lda, lda, b, bias, first, C + (size_t)i * ldc, ldc);
        i += 2;
    }
    if (i1 - i >= 1)
        gemm_tile(1, kc, A + (size_t)i * lda, lda, b, bias, first, C + (size_t)i * ldc, ldc);
}

static void gemm_neon(int M, int n0, int n1, int K, const float *A, int lda, const float *Bp,
                      const float *bias, float *C, int ldc, int gelu)
{
    for (int i0 = 0; i0 < M; i0 += MC) {   /* row block outermost: its C stays in cache over K */
        const int i1 = M - i0 < MC ? M : i0 + MC;
        int k0 = 0;
        do {   /* runs once even for K = 0, so C still gets bias and GELU */
            const int kc = K - k0 < KC ? K - k0 : KC, first = k0 == 0, last = k0 + kc >= K;
            for (int j = n0; j < n1; j += NR) {
                const int cols = n1 - j < NR ? n1 - j : NR;
                const float *b = Bp + (size_t)(j / NR) * NR * K + (size_t)k0 * NR;
                const float *a = A + k0;
                if (cols == NR) {
                    gemm_rows(i0, i1, kc, a, lda, b, bias ? bias + j : NULL, first, C + j, ldc);
                    if (gelu && last)
                        gelu_tile(i1 - i0, C + (size_t)i0 * ldc + j, ldc);
                    continue;
                }
                /* a panel cut short by n1: computed full width (B is zero past N) into a buffer,
                 * MR rows at a time, and only `cols` columns copied to and from C */
                float bias_pad[NR] = {0}, tile[MR * NR] = {0};
                if (bias)
                    memcpy(bias_pad, bias + j, (size_t)cols * sizeof *bias);
                for (int i = i0; i < i1; i += MR) {
                    const int rows = i1 - i < MR ? i1 - i : MR;
                    float *c = C + (size_t)i * ldc + j;
                    for (int r = 0; r < rows && !first; r++)
                        memcpy(tile + r * NR, c + (size_t)r * ldc, (size_t)cols * sizeof *c);
                    gemm_rows(0, rows, kc, a + (size_t)i * lda, lda, b, bias ? bias_pad : NULL, first,
                              tile, NR);
                    if (gelu && last)
                        gelu_tile(rows, tile, NR);
                    for (int r = 0; r < rows; r++)
                        memcpy(c + (size_t)r * ldc, tile + r * NR, (size_t)cols * sizeof *c);
                }
            }
            k0 += kc;
        } while (k0 < K);
    }
}

/* === Dot, attention === */

static float dot_neon(const float *a, const float *b, size_t n)
{
    float32x4_t s0 = vdupq_n_f32(0), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
        s1 = vfmaq_f32(s1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
        s2 = vfmaq_f32(s2, vld1q_f32(a + i + 8), vld1q_f32(b + i + 8));
        s3 = vfmaq_f32(s3, vld1q_f32(a + i + 12), vld1q_f32(b + i + 12));
    }
    for (; i + 4 <= n; i += 4)
        s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
    float s = vaddvq_f32(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3)));
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Scores of query q against the 4 key rows at k (ld apart): lane r = q . k[r]. */
HX_INLINE float32x4_t dot4_rows(const float *q, const float *k, int ld, int hd)
{
    const float *k0 = k, *k1 = k0 + ld, *k2 = k1 + ld, *k3 = k2 + ld;
    float32x4_t s0 = vdupq_n_f32(0), s1 = s0, s2 = s0, s3 = s0;
    int d = 0;
    for (; d + 4 <= hd; d += 4) {
        float32x4_t qd = vld1q_f32(q + d);
        s0 = vfmaq_f32(s0, qd, vld1q_f32(k0 + d));
        s1 = vfmaq_f32(s1, qd, vld1q_f32(k1 + d));
        s2 = vfmaq_f32(s2, qd, vld1q_f32(k2 + d));
        s3 = vfmaq_f32(s3, qd, vld1q_f32(k3 + d));
    }
    /* pairwise adds transpose the four sums: lane r = sum of s_r's lanes */
    float32x4_t s = vpaddq_f32(vpaddq_f32(s0, s1), vpaddq_f32(s2, s3));
    if (d < hd) {
        float tail[4] = {0};
        for (; d < hd; d++) {
            tail[0] += q[d] * k0[d];
            tail[1] += q[d] * k1[d];
            tail[2] += q[d] * k2[d];
            tail[3] += q[d] * k3[d];
        }
        s = vaddq_f32(s, vld1q_f32(tail));
    }
    return s;
}

/* out[0..w) = inv * sum_j p[j] v[j][0..w), rows of v ld apart. */
static void weighted_rows(int T, int w, const float *p, const float *v, int ld, float inv, float *out)
{
    int d = 0;
    for (; d + 16 <= w; d += 16) {   /* even and odd j into separate sums: eight FMA chains */
        float32x4_t o0 = vdupq_n_f32(0), o1 = o0, o2 = o0, o3 = o0, e0 = o0, e1 = o0, e2 = o0, e3 = o0;
        int j = 0;
        for (; j + 2 <= T; j += 2) {
            const float *vj = v + (size_t)j * ld + d, *vk = vj + ld;
            o0 = vfmaq_n_f32(o0, vld1q_f32(vj), p[j]);
            o1 = vfmaq_n_f32(o1, vld1q_f32(vj + 4), p[j]);
            o2 = vfmaq_n_f32(o2, vld1q_f32(vj + 8), p[j]);
            o3 = vfmaq_n_f32(o3, vld1q_f32(vj + 12), p[j]);
            e0 = vfmaq_n_f32(e0, vld1q_f32(vk), p[j + 1]);
            e1 = vfmaq_n_f32(e1, vld1q_f32(vk + 4), p[j + 1]);
            e2 = vfmaq_n_f32(e2, vld1q_f32(vk + 8), p[j + 1]);
            e3 = vfmaq_n_f32(e3, vld1q_f32(vk + 12), p[j + 1]);
        }
        if (j < T) {
            const float *vj = v + (size_t)j * ld + d;
            o0 = vfmaq_n_f32(o0, vld1q_f32(vj), p[j]);
            o1 = vfmaq_n_f32(o1, vld1q_f32(vj + 4), p[j]);
            o2 = vfmaq_n_f32(o2, vld1q_f32(vj + 8), p[j]);
            o3 = vfmaq_n_f32(o3, vld1q_f32(vj + 12), p[j]);
        }
        vst1q_f32(out + d, vmulq_n_f32(vaddq_f32(o0, e0), inv));
        vst1q_f32(out + d + 4, vmulq_n_f32(vaddq_f32(o1, e1), inv));
        vst1q_f32(out + d + 8, vmulq_n_f32(vaddq_f32(o2, e2), inv));
        vst1q_f32(out + d + 12, vmulq_n_f32(vaddq_f32(o3, e3), inv));
    }
    for (; d + 4 <= w; d += 4) {
        float32x4_t o = vdupq_n_f32(0);
        for (int j = 0; j < T; j++)
            o = vfmaq_n_f32(o, vld1q_f32(v + (size_t)j * ld + d), p[j]);
        vst1q_f32(out + d, vmulq_n_f32(o, inv));
    }
    for (; d < w; d++) {
        float o = 0;
        for (int j = 0; j < T; j++)
            o += p[j] * v[(size_t)j * ld + d];
        out[d] = o * inv;
    }
}

static void attention_neon(int T, int hd, const float *q, const float *k, const float *v, int ld,
                           float *out, int ldo, float scale, float *scratch)
{
    for (int i = 0; i < T; i++) {
        const float *qi = q + (size_t)i * ld;
        float32x4_t vmax = vdupq_n_f32(-INFINITY);
        int j = 0;
        for (; j + 4 <= T; j += 4) {
            float32x4_t s = vmulq_n_f32(dot4_rows(qi, k + (size_t)j * ld, ld, hd), scale);
            vst1q_f32(scratch + j, s);
            vmax = vmaxq_f32(vmax, s);
        }
        float max = vmaxvq_f32(vmax);
        for (; j < T; j++) {
            scratch[j] = scale * dot_neon(qi, k + (size_t)j * ld, (size_t)hd);
            if (scratch[j] > max)
                max = scratch[j];
        }

        float32x4_t vsum = vdupq_n_f32(0);
        for (j = 0; j + 4 <= T; j += 4) {
            float32x4_t e = exp4(vsubq_f32(vld1q_f32(scratch + j), vdupq_n_f32(max)));
            vst1q_f32(scratch + j, e);
            vsum = vaddq_f32(vsum, e);
        }
        float sum = vaddvq_f32(vsum);
        if (j < T) {   /* the last 1..3 scores through the same exp, via a padded vector */
            float pad[4] = {0};
            memcpy(pad, scratch + j, (size_t)(T - j) * sizeof *pad);
            vst1q_f32(pad, exp4(vsubq_f32(vld1q_f32(pad), vdupq_n_f32(max))));
            for (int r = 0; j < T; j++, r++) {
                scratch[j] = pad[r];
                sum += pad[r];
            }
        }
        weighted_rows(T, hd, scratch, v, ld, 1.0f / sum, out + (size_t)i * ldo);
    }
}

/* === LayerNorm, f16 === */

static void add_layernorm_neon(int rows, int dim, float *x, int ldx, const float *res, int ldr,
                               const float *w, const float *b, float eps)
{
    for (int r = 0; r < rows; r++) {
        float *xr = x + (size_t)r * ldx;
        const float *rr = res + (size_t)r * ldr;
        float32x4_t vs = vdupq_n_f32(0);
        int i = 0;
        for (; i + 4 <= dim; i += 4) {
            float32x4_t s = vaddq_f32(vld1q_f32(xr + i), vld1q_f32(rr + i));
            vst1q_f32(xr + i, s);
            vs = vaddq_f32(vs, s);
        }
        float sum = vaddvq_f32(vs);
        for (; i < dim; i++) {
            xr[i] += rr[i];
            sum += xr[i];
        }
        const float mean = sum / (float)dim;
        const float32x4_t vmean = vdupq_n_f32(mean);
        float32x4_t vv = vdupq_n_f32(0);
        for (i = 0; i + 4 <= dim; i += 4) {
            float32x4_t d = vsubq_f32(vld1q_f32(xr + i), vmean);
            vv = vfmaq_f32(vv, d, d);
        }
        float var = vaddvq_f32(vv);
        for (; i < dim; i++)
            var += (xr[i] - mean) * (xr[i] - mean);
        const float inv = 1.0f / sqrtf(var / (float)dim + eps);
        for (i = 0; i + 4 <= dim; i += 4) {
            float32x4_t n = vmulq_n_f32(vsubq_f32(vld1q_f32(xr + i), vmean), inv);
            vst1q_f32(xr + i, vfmaq_f32(vld1q_f32(b + i), n, vld1q_f32(w + i)));
        }
        for (; i < dim; i++)
            xr[i] = (xr[i] - mean) * inv * w[i] + b[i];
    }
}

static void f16_to_f32_neon(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(src + i));
        vst1q_f32(dst + i, vcvt_f32_f16(vget_low_f16(h)));
        vst1q_f32(dst + i + 4, vcvt_high_f32_f16(h));
    }
    for (; i + 4 <= n; i += 4)
        vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(src + i))));
    if (i < n) {   /* the last 1..3 through the same instruction, via a padded vector */
        uint16_t h[4] = {0};
        float f[4];
        memcpy(h, src + i, (n - i) * sizeof *h);
        vst1q_f32(f, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h))));
        memcpy(dst + i, f, (n - i) * sizeof *f);
    }
}

const hx_kernels hx_kernels_neon = {
    .name = "neon",
    .nr = NR,
    .gemm = gemm_neon,
    .attention = attention_neon,
    .add_layernorm = add_layernorm_neon,
    .f16_to_f32 = f16_to_f32_neon,
    .dot = dot_neon,
};
