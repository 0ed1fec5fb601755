/* kernels_int8_avx2.c: the AVX2 int8 table hxi_kernels_i8_avx2 (interface and packed layout in
 * kernels.h "int8", reference in kernels_int8.c, tests in tests/test_kernels.c). Products go
 * through vpmaddwd on inputs stored zero-extended to 16 bits (in_bytes 2: widening them in the
 * tile cost 28 % of its speed) and sign-extended weights, which is exact. vpmaddubsw (MLAS's u8 x
 * s8 on AVX2, 3 instructions per 32 products against 4 here) is not: a pair sum of u8 x s8
 * products needs 17 bits (2 x 255 x 127 = 64770) and saturates at 16, so it is exact only with
 * 7-bit inputs or weights, which would change every table's sums (and every int8 index's
 * vectors). Exact forms cost what they save: inputs split as 128 h + l (l x w pairs fit, 2 x 127 x
 * 127; h x w summed in int16) take 5 instructions per 32 products, nibble splits 4.5, and the sign
 * trick (|a - 128| times sign(a - 128) w, pairs within 2 x 128 x 127 = 32512, plus 128 wsum) needs
 * a vpsignb for every input and weight vector: 4, as now (bench/gemm_bench's bound lines measure
 * each form with every operand in a register: on AMD Zen 5 the exact one reaches 0.98x of this
 * vpmaddwd pair, the inexact MLAS one 1.13x). Its quantize, storing bytes, also serves
 * the VNNI tables. Built with -mavx2 -mfma -mf16c only; kernels_int8.c hands it out only when the
 * CPU allows. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>

#include "x86_simd.h"
#include <string.h>

#define MR 6    /* tile rows: 12 accumulators + 2 weight vectors + 1 input fit the 16 ymm */
#define TN 8    /* tile columns: half a packed panel */
#define MC_BYTES (192 * 1024)   /* input rows per block: about 3/8 of a 512 KiB L2 */
#define PF 96   /* weight groups (64-byte lines) ahead to prefetch: as KS_PF in x86/kernels_avx2.c */

/* y = x * xinv (xinv NULL: x) for 8 floats, lanes at or past n read as 0. */
static inline __attribute__((always_inline)) __m256 load_y(const float *x, const float *xinv, int n)
{
    const __m256i m = hxi_ymm_lanes(n);
    __m256 y = n >= 8 ? _mm256_loadu_ps(x) : _mm256_maskload_ps(x, m);
    if (xinv)
        y = _mm256_mul_ps(y, n >= 8 ? _mm256_loadu_ps(xinv) : _mm256_maskload_ps(xinv, m));
    return y;
}

/* Sixteen quantized values from y = x * xinv (lanes at or past n: 0): round(y * inv) + z, clamped
 * to 0..255 by the saturating packs (NaN converts to INT_MIN, which they clamp to 0). */
static inline __attribute__((always_inline)) __m128i quantize16(const float *x, const float *xinv, int n,
                                                                __m256 vinv, __m256i vz)
{
    __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(load_y(x, xinv, n), vinv));
    __m256i i1 = _mm256_cvtps_epi32(_mm256_mul_ps(load_y(x + 8, xinv ? xinv + 8 : NULL, n - 8), vinv));
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(_mm256_add_epi32(i0, vz), _mm256_add_epi32(i1, vz)), 0xD8);
    return _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

/* quantize (kernels.h) into bytes (wide = 0) or 16-bit values (wide = 1). */
static inline __attribute__((always_inline)) void quantize(int rows, int K, const float *x, int ldx,
                                                           const float *xinv, void *q, int ldq, float *scale,
                                                           int32_t *zero, int wide)
{
    const int Kp = hxi_i8_row_len(K);
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * ldx;
        uint8_t *qr = (uint8_t *)q + (size_t)r * ldq * (wide ? 2 : 1);
        __m256 vlo = _mm256_setzero_ps(), vhi = vlo;   /* lanes past K load as 0, which lo and hi hold */
        for (int k = 0; k < K; k += 8) {
            const __m256 y = load_y(xr + k, xinv ? xinv + k : NULL, K - k);
            vlo = _mm256_min_ps(y, vlo);   /* a NaN y gives the second operand: passed over */
            vhi = _mm256_max_ps(y, vhi);
        }
        float inv;
        hxi_i8_row_range(hxi_ymm_hmin(vlo), hxi_ymm_hmax(vhi), &inv, &scale[r], &zero[r]);
        const __m256 vinv = _mm256_set1_ps(inv);
        const __m256i vz = _mm256_set1_epi32(zero[r]);
        int k = 0;
        for (; k + 16 <= K; k += 16) {
            const __m128i b = quantize16(xr + k, xinv ? xinv + k : NULL, 16, vinv, vz);
            if (wide)
                _mm256_storeu_si256((__m256i *)(qr + 2 * k), _mm256_cvtepu8_epi16(b));
            else
                _mm_storeu_si128((__m128i *)(qr + k), b);
        }
        if (k < K) {   /* the row's last 1..15 values */
            uint16_t tail[16];
            const __m128i b = quantize16(xr + k, xinv ? xinv + k : NULL, K - k, vinv, vz);
            if (wide)
                _mm256_storeu_si256((__m256i *)tail, _mm256_cvtepu8_epi16(b));
            else
                _mm_storeu_si128((__m128i *)tail, b);
            memcpy(qr + k * (wide ? 2 : 1), tail, (size_t)(K - k) * (wide ? 2 : 1));
        }
        memset(qr + K * (wide ? 2 : 1), 0, (size_t)(Kp - K) * (wide ? 2 : 1));
    }
}

void hxi_quantize_u8_avx2(int rows, int K, const float *x, int ldx, const float *xinv, void *q, int ldq,
                          float *scale, int32_t *zero)
{
    quantize(rows, K, x, ldx, xinv, q, ldq, scale, zero, 0);
}

static void quantize_u16(int rows, int K, const float *x, int ldx, const float *xinv, void *q, int ldq,
                         float *scale, int32_t *zero)
{
    quantize(rows, K, x, ldx, xinv, q, ldq, scale, zero, 1);
}

/* One tile: rows x TN columns (cols of them stored) over all of K. acc[r][h] holds, for columns
 * 4h..4h+3, two partial sums each (pairs k, k+1 and k+2, k+3); weights are sign-extended from the
 * packed bytes. `rows` is a compile-time constant at every call. */
static inline __attribute__((always_inline)) void
gemm_tile(int rows, int cols, int G, const uint16_t *a, int lda, const float *ascale, const int32_t *azero,
          const int8_t *b, const int32_t *wsum, const float *wscale, const float *bias, float *c, int ldc)
{
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int g = 0; g < G; g++) {
        const int8_t *bg = b + (size_t)g * 4 * HX_I8_NR;
        __builtin_prefetch(bg + PF * 4 * HX_I8_NR);
        __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)bg));
        __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(bg + 16)));
        __m256i x;
        int64_t a4;
        /* The add is written as one in-place vpaddd: from _mm256_add_epi32, gcc 12 keeps only 3 of
         * the 12 accumulators in registers (the rest spilled and reloaded every step), which halved
         * this kernel's speed (bench/gemm_bench: 90 -> 150 GOP/s at M = 256 on Zen 3). */
#define DOT(acc, w)                                                         \
        do {                                                                \
            const __m256i prod_ = _mm256_madd_epi16(x, w);                  \
            __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(prod_));          \
        } while (0)
#define ROW(r)                                                  \
        if (rows > r) {                                         \
            memcpy(&a4, a + (size_t)(r) * lda + 4 * g, 8);      \
            x = _mm256_set1_epi64x(a4);                         \
            DOT(c##r##0, w0);                                   \
            DOT(c##r##1, w1);                                   \
        }
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
#undef DOT
    }
    const __m256i m = hxi_ymm_lanes(cols);
    const __m256 ws = cols == TN ? _mm256_loadu_ps(wscale) : _mm256_maskload_ps(wscale, m);
    const __m256i wz = cols == TN ? _mm256_loadu_si256((const __m256i *)wsum) : _mm256_maskload_epi32(wsum, m);
    const __m256 bv = !bias ? _mm256_setzero_ps() : cols == TN ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, m);
#define STORE(r)                                                                                   \
    if (rows > r) {                                                                                \
        __m256i s = _mm256_permute4x64_epi64(_mm256_hadd_epi32(c##r##0, c##r##1), 0xD8);           \
        s = _mm256_sub_epi32(s, _mm256_mullo_epi32(_mm256_set1_epi32(azero[r]), wz));              \
        __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s),                              \
                                               _mm256_mul_ps(_mm256_set1_ps(ascale[r]), ws)), bv); \
        float *cr = c + (size_t)(r) * ldc;                                                         \
        if (cols == TN)                                                                            \
            _mm256_storeu_ps(cr, v);                                                               \
        else                                                                                       \
            _mm256_maskstore_ps(cr, m, v);                                                         \
    }
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5)
#undef STORE
}

static void gemm_avx2(int M, int n0, int n1, int K, const void *Aq, int lda, const float *ascale,
                      const int32_t *azero, const int8_t *Bp, const int32_t *wsum, const float *wscale,
                      const float *bias, float *C, int ldc)
{
    const int G = hxi_i8_row_len(K) / 4;
    /* Rows per block: their inputs (rows x lda 16-bit values) stay in L2 while every column tile
     * passes over them. Without it the K = 1536 layer's 240-row task came from L3 for each column
     * tile (bench/gemm_bench: 135 against 150 GOP/s for the K = 384 layers on Zen 3). */
    int mc = MC_BYTES / (2 * lda) / MR * MR;
    mc = mc < MR ? MR : mc;
    for (int i0 = 0; i0 < M; i0 += mc) {
        const int i1 = M - i0 < mc ? M : i0 + mc;
        for (int j = n0; j < n1; j += TN) {   /* a column tile's weights (TN x K bytes) stay in L1 */
            const int cols = n1 - j < TN ? n1 - j : TN;
            const int8_t *b = hxi_i8_panel(Bp, j, K) + 4 * (j % HX_I8_NR);
            const float *bj = bias ? bias + j : NULL;
            const uint16_t *A = Aq;
            int i = i0;
#define TILE(rows) gemm_tile(rows, cols, G, A + (size_t)i * lda, lda, ascale + i, azero + i, b, wsum + j, wscale + j, \
                             bj, C + (size_t)i * ldc + j, ldc)
            HX_ROW_TILES(i, i1, MR, TILE);
#undef TILE
        }
    }
}

const hxi_kernels_i8 hxi_kernels_i8_avx2 = {
    .name = "avx2",
    .in_bytes = 2,
    .quantize = quantize_u16,
    .gemm = gemm_avx2,
};
