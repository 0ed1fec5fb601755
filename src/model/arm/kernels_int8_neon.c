/* kernels_int8_neon.c: the AArch64 Advanced SIMD int8 table hxi_kernels_i8_neon (interface and
 * packed layout in kernels.h "int8", reference in kernels_int8.c, tests in tests/test_kernels.c).
 * Inputs are stored zero-extended to 16 bits (in_bytes 2) and weights sign-extended, and multiplied
 * into 32-bit sums by smlal (vmlal_lane_s16), which is exact. SDOT is not used: it multiplies signed bytes on both
 * sides, and this design's inputs are unsigned (USDOT needs the I8MM extension). Baseline AArch64,
 * so no extra flags; built for aarch64 only. */
#include "kernels.h"

#include <arm_neon.h>
#include <string.h>

#define HX_INLINE static inline __attribute__((always_inline))

#define MR 4   /* tile rows: 16 accumulators + 8 weight vectors + 4 inputs fit the 32 q registers */

/* Four values y = x * xinv (xinv NULL: x). */
HX_INLINE float32x4_t load_y(const float *x, const float *xinv)
{
    return xinv ? vmulq_f32(vld1q_f32(x), vld1q_f32(xinv)) : vld1q_f32(x);
}

/* round(y * inv) + z to nearest even, clamped to 0..255; NaN gives 0, as the reference does
 * (fcvtns turns NaN into 0, so it is caught before: a NaN product takes the lowest value). */
HX_INLINE uint16x4_t quantize4(float32x4_t y, float32x4_t inv, int32x4_t z)
{
    const float32x4_t p = vmulq_f32(y, inv);
    const uint32x4_t nan = vmvnq_u32(vceqq_f32(p, p));
    int32x4_t v = vaddq_s32(vcvtnq_s32_f32(p), z);
    v = vbslq_s32(nan, vdupq_n_s32(0), v);
    v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(0)), vdupq_n_s32(255));
    return vmovn_u32(vreinterpretq_u32_s32(v));
}

static void quantize_neon(int rows, int K, const float *x, int ldx, const float *xinv, void *q, int ldq,
                          float *scale, int32_t *zero)
{
    const int Kp = hxi_i8_row_len(K);
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * ldx;
        uint16_t *qr = (uint16_t *)q + (size_t)r * ldq;
        float32x4_t vlo = vdupq_n_f32(0), vhi = vlo;   /* fminnm/fmaxnm pass NaN over, as the reference does */
        int k = 0;
        for (; k + 4 <= K; k += 4) {
            const float32x4_t y = load_y(xr + k, xinv ? xinv + k : NULL);
            vlo = vminnmq_f32(vlo, y);
            vhi = vmaxnmq_f32(vhi, y);
        }
        float tail[4] = {0}, tinv[4] = {0};   /* the last 1..3 values, zero past K */
        memcpy(tail, xr + k, (size_t)(K - k) * sizeof *tail);
        if (xinv)
            memcpy(tinv, xinv + k, (size_t)(K - k) * sizeof *tinv);
        const float32x4_t ytail = load_y(tail, xinv ? tinv : NULL);
        vlo = vminnmq_f32(vlo, ytail);
        vhi = vmaxnmq_f32(vhi, ytail);
        float inv;
        hxi_i8_row_range(vminnmvq_f32(vlo), vmaxnmvq_f32(vhi), &inv, &scale[r], &zero[r]);
        const float32x4_t vinv = vdupq_n_f32(inv);
        const int32x4_t vz = vdupq_n_s32(zero[r]);
        for (k = 0; k + 4 <= K; k += 4)
            vst1_u16(qr + k, quantize4(load_y(xr + k, xinv ? xinv + k : NULL), vinv, vz));
        if (k < Kp) {   /* K not a multiple of 4: Kp = k + 4, and the values past K are 0 */
            vst1_u16(qr + k, quantize4(ytail, vinv, vz));
            for (int t = K; t < Kp; t++)
                qr[t] = 0;
        }
    }
}

/* One tile: rows x one panel (16 columns, cols of them stored) over all G groups of 4 k. Each group
 * is 64 bytes, column j's four k at 4j..4j+3: vld4q_s8 splits them into one vector per k, widened
 * to two int16x8 (columns 0..7, 8..15), and each row's four inputs multiply them lane by lane.
 * acc[r][h] holds columns 4h..4h+3. */
HX_INLINE void gemm_tile(int rows, int cols, int G, const uint16_t *a, int lda, const float *ascale,
                         const int32_t *azero, const int8_t *b, const int32_t *wsum, const float *wscale,
                         const float *bias, float *c, int ldc)
{
    int32x4_t acc[MR][4];
    rows = rows < MR ? rows : MR;   /* HX_ROW_TILES' never-taken larger tiles stay in bounds */
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
            const int16x4_t x = vreinterpret_s16_u16(vld1_u16(a + (size_t)r * lda + 4 * g));
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
    int32_t wz[HX_I8_NR] = {0};
    memcpy(ws, wscale, (size_t)cols * sizeof *ws);
    memcpy(wz, wsum, (size_t)cols * sizeof *wz);
    if (bias)
        memcpy(bv, bias, (size_t)cols * sizeof *bv);
    for (int r = 0; r < rows; r++) {
        float *cr = c + (size_t)r * ldc, *dst = cols == HX_I8_NR ? cr : out;
        const float32x4_t as = vdupq_n_f32(ascale[r]);
        const int32x4_t z = vdupq_n_s32(azero[r]);
        for (int h = 0; h < 4; h++) {
            const int32x4_t sum = vmlsq_s32(acc[r][h], z, vld1q_s32(wz + 4 * h));
            float32x4_t s = vmulq_f32(vcvtq_f32_s32(sum), vmulq_f32(as, vld1q_f32(ws + 4 * h)));
            vst1q_f32(dst + 4 * h, vaddq_f32(s, vld1q_f32(bv + 4 * h)));
        }
        if (dst == out)
            memcpy(cr, out, (size_t)cols * sizeof *cr);
    }
}

static void gemm_neon(int M, int n0, int n1, int K, const void *Aq, int lda, const float *ascale,
                      const int32_t *azero, const int8_t *Bp, const int32_t *wsum, const float *wscale,
                      const float *bias, float *C, int ldc)
{
    const int G = hxi_i8_row_len(K) / 4;
    for (int j = n0; j < n1; j += HX_I8_NR) {   /* a panel's weights (16 x K bytes) stay in L1 */
        const int cols = n1 - j < HX_I8_NR ? n1 - j : HX_I8_NR;
        const int8_t *b = hxi_i8_panel(Bp, j, K);
        const float *bj = bias ? bias + j : NULL;
        int i = 0;
        const uint16_t *A = Aq;
#define TILE(rows) gemm_tile(rows, cols, G, A + (size_t)i * lda, lda, ascale + i, azero + i, b, wsum + j, \
                             wscale + j, bj, C + (size_t)i * ldc + j, ldc)
        HX_ROW_TILES(i, M, MR, TILE);
#undef TILE
    }
}

const hxi_kernels_i8 hxi_kernels_i8_neon = {
    .name = "neon",
    .in_bytes = 2,
    .quantize = quantize_neon,
    .gemm = gemm_neon,
};
