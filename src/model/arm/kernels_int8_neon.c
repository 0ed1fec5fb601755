/* kernels_int8_neon.c: the AArch64 Advanced SIMD int8 table hx_kernels_i8_neon (interface and
 * packed layout in kernels.h "int8", reference in kernels_int8.c, tests in tests/test_kernels.c).
 * Weights are sign-extended to 16 bits and multiplied into 32-bit sums by smlal (vmlal_lane_s16),
 * which is exact. SDOT is not used: it multiplies 8-bit values on both sides, and this design's
 * inputs are 13-bit (kernels.h). Baseline AArch64, so no extra flags; built for aarch64 only. */
#include "kernels.h"

#include <arm_neon.h>
#include <string.h>

#define HX_INLINE static inline __attribute__((always_inline))

#define MR 4   /* tile rows: 16 accumulators + 8 weight vectors + 4 inputs fit the 32 q registers */

/* q = round(x * inv) to nearest even, clamped to [-HX_I8_ACT_MAX, HX_I8_ACT_MAX], NaN to
 * -HX_I8_ACT_MAX, as the reference does: fmaxnm passes a NaN over for the bound. */
HX_INLINE int16x4_t quantize4(float32x4_t x, float32x4_t inv)
{
    const float32x4_t q = vdupq_n_f32(HX_I8_ACT_MAX);
    float32x4_t v = vminnmq_f32(vmaxnmq_f32(vmulq_f32(x, inv), vnegq_f32(q)), q);
    return vmovn_s32(vcvtnq_s32_f32(v));
}

static void quantize_neon(int rows, int K, const float *x, int ldx, int16_t *q, int ldq, float *scale)
{
    const int Kp = hx_i8_row_len(K);
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * ldx;
        int16_t *qr = q + (size_t)r * ldq;
        float32x4_t vmax = vdupq_n_f32(0);   /* fmaxnm passes NaN over, as the reference does */
        int k = 0;
        for (; k + 4 <= K; k += 4)
            vmax = vmaxnmq_f32(vmax, vabsq_f32(vld1q_f32(xr + k)));
        float tail[4] = {0};   /* the last 1..3 values, zero past K (which quantizes to 0) */
        memcpy(tail, xr + k, (size_t)(K - k) * sizeof *tail);
        vmax = vmaxnmq_f32(vmax, vabsq_f32(vld1q_f32(tail)));
        const float max = vmaxnmvq_f32(vmax), inv = max > 0 ? HX_I8_ACT_MAX / max : 0;
        scale[r] = max > 0 ? max / HX_I8_ACT_MAX : 0;
        const float32x4_t vinv = vdupq_n_f32(inv);
        for (k = 0; k + 4 <= K; k += 4)
            vst1_s16(qr + k, quantize4(vld1q_f32(xr + k), vinv));
        if (k < Kp)   /* K not a multiple of 4: Kp = k + 4 */
            vst1_s16(qr + k, quantize4(vld1q_f32(tail), vinv));
    }
}

/* One tile: rows x one panel (16 columns, cols of them stored) over all G groups of 4 k. Each group
 * is 64 bytes, column j's four k at 4j..4j+3: vld4q_s8 splits them into one vector per k, widened
 * to two int16x8 (columns 0..7, 8..15), and each row's four inputs multiply them lane by lane.
 * acc[r][h] holds columns 4h..4h+3. */
HX_INLINE void gemm_tile(int rows, int cols, int G, const int16_t *a, int lda, const float *ascale,
                         const int8_t *b, const float *wscale, const float *bias, float *c, int ldc)
{
    int32x4_t acc[MR][4];
#pragma GCC unroll 4
    for (int r = 0; r < rows; r++)
#pragma GCC unroll 4
        for (int h = 0; h < 4; h++)
            acc[r][h] = vdupq_n_s32(0);
    for (int g = 0; g < G; g++) {
        const int8x16x4_t w = vld4q_s8(b + (size_t)g * 4 * HX_I8_NR);
        int16x8_t lo[4], hi[4];
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) {
            lo[t] = vmovl_s8(vget_low_s8(w.val[t]));
            hi[t] = vmovl_high_s8(w.val[t]);
        }
#pragma GCC unroll 4
        for (int r = 0; r < rows; r++) {
            const int16x4_t x = vld1_s16(a + (size_t)r * lda + 4 * g);
#define K_STEP(t)                                                      \
            acc[r][0] = vmlal_lane_s16(acc[r][0], vget_low_s16(lo[t]), x, t);  \
            acc[r][1] = vmlal_high_lane_s16(acc[r][1], lo[t], x, t);           \
            acc[r][2] = vmlal_lane_s16(acc[r][2], vget_low_s16(hi[t]), x, t);  \
            acc[r][3] = vmlal_high_lane_s16(acc[r][3], hi[t], x, t);
            K_STEP(0) K_STEP(1) K_STEP(2) K_STEP(3)
#undef K_STEP
        }
    }
    /* a panel cut short by n1: scales and bias past it are not read, C past it not written */
    float ws[HX_I8_NR] = {0}, bv[HX_I8_NR] = {0}, out[HX_I8_NR];
    memcpy(ws, wscale, (size_t)cols * sizeof *ws);
    if (bias)
        memcpy(bv, bias, (size_t)cols * sizeof *bv);
    for (int r = 0; r < rows; r++) {
        float *cr = c + (size_t)r * ldc, *dst = cols == HX_I8_NR ? cr : out;
        const float32x4_t as = vdupq_n_f32(ascale[r]);
        for (int h = 0; h < 4; h++) {
            float32x4_t s = vmulq_f32(vcvtq_f32_s32(acc[r][h]), vmulq_f32(as, vld1q_f32(ws + 4 * h)));
            vst1q_f32(dst + 4 * h, vaddq_f32(s, vld1q_f32(bv + 4 * h)));
        }
        if (dst == out)
            memcpy(cr, out, (size_t)cols * sizeof *cr);
    }
}

static void gemm_neon(int M, int n0, int n1, int K, const int16_t *Aq, int lda, const float *ascale,
                      const int8_t *Bp, const float *wscale, const float *bias, float *C, int ldc)
{
    const int G = hx_i8_row_len(K) / 4;
    for (int j = n0; j < n1; j += HX_I8_NR) {   /* a panel's weights (16 x K bytes) stay in L1 */
        const int cols = n1 - j < HX_I8_NR ? n1 - j : HX_I8_NR;
        const int8_t *b = Bp + (size_t)(j / HX_I8_NR) * G * 4 * HX_I8_NR;
        const float *bj = bias ? bias + j : NULL;
        int i = 0;
#define TILE(rows) gemm_tile(rows, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wscale + j, bj, \
                             C + (size_t)i * ldc + j, ldc)
        for (; i + MR <= M; i += MR)
            TILE(MR);
        if (M - i >= 2) {   /* the rows left over, as 2 + 1: fewer inlined shapes */
            TILE(2);
            i += 2;
        }
        if (M - i >= 1)
            TILE(1);
#undef TILE
    }
}

const hx_kernels_i8 hx_kernels_i8_neon = {
    .name = "neon",
    .quantize = quantize_neon,
    .gemm = gemm_neon,
};
