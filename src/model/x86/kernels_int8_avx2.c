/* kernels_int8_avx2.c: the AVX2 int8 table hx_kernels_i8_avx2 (interface and packed layout in
 * kernels.h "int8", reference in kernels_int8.c, tests in tests/test_kernels.c). Products go
 * through vpmaddwd on sign-extended 16-bit values, which is exact: vpmaddubsw would saturate its
 * 16-bit pair sums (255 * 127 * 2 > 32767). Its quantize also serves the VNNI tables. Built with
 * -mavx2 -mfma -mf16c only; kernels_int8.c hands it out only when the CPU allows. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

#define HX_INLINE static inline __attribute__((always_inline))

/* === Quantize === */

HX_INLINE __m256i lanes_below(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

void hx_quantize_i8_avx2(int rows, int K, const float *x, int ldx, int8_t *q, int ldq, float *scale)
{
    const int Kp = hx_i8_row_bytes(K);
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * ldx;
        int8_t *qr = q + (size_t)r * ldq;
        __m256 vmax = _mm256_setzero_ps();
        int k = 0;
        for (; k + 8 <= K; k += 8)
            vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_loadu_ps(xr + k), absmask));
        if (k < K)
            vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_maskload_ps(xr + k, lanes_below(K - k)), absmask));
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        const float max = _mm_cvtss_f32(_mm_max_ss(m4, _mm_movehdup_ps(m4)));
        memset(qr, 0, (size_t)Kp);
        scale[r] = 0;
        if (!(max > 0))
            continue;
        const float inv = 127.0f / max;
        scale[r] = max / 127.0f;
        const __m256 vinv = _mm256_set1_ps(inv);
        for (k = 0; k + 16 <= K; k += 16) {
            __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(xr + k), vinv));
            __m256i i1 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(xr + k + 8), vinv));
            __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(i0, i1), 0xD8);   /* 16 x i16, in order */
            _mm_storeu_si128((__m128i *)(qr + k),
                             _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
        }
        for (; k < K; k++) {
            long v = lrintf(xr[k] * inv);
            qr[k] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
        }
    }
}

/* === GEMM === */

#define MR 6    /* tile rows: 12 accumulators + 2 weight vectors + 1 activation fit the 16 ymm */
#define TN 8    /* tile columns: half a packed panel */

/* One tile: rows x TN columns (cols of them stored) over all of K. Accumulator acc[r][h] holds,
 * for columns 4h..4h+3, two partial sums each (vpmaddwd pairs k, k+1 and k+2, k+3). `rows` is a
 * compile-time constant at every call. */
HX_INLINE void gemm_tile(int rows, int cols, int G, const int8_t *a, int lda, const float *ascale,
                         const int8_t *b, const float *wscale, const float *bias, float *c, int ldc)
{
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int g = 0; g < G; g++) {
        const int8_t *bg = b + (size_t)g * 4 * HX_I8_NR;
        __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)bg));
        __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(bg + 16)));
        __m256i x;
        int32_t a4;
#define ROW(r)                                                                  \
        if (rows > r) {                                                         \
            memcpy(&a4, a + (size_t)(r) * lda + 4 * g, 4);                      \
            x = _mm256_cvtepi8_epi16(_mm_set1_epi32(a4));                       \
            c##r##0 = _mm256_add_epi32(c##r##0, _mm256_madd_epi16(x, w0));      \
            c##r##1 = _mm256_add_epi32(c##r##1, _mm256_madd_epi16(x, w1));      \
        }
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
    }
    const __m256i m = lanes_below(cols);
    const __m256 ws = cols == TN ? _mm256_loadu_ps(wscale) : _mm256_maskload_ps(wscale, m);
    const __m256 bv = !bias ? _mm256_setzero_ps() : cols == TN ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, m);
#define STORE(r)                                                                                   \
    if (rows > r) {                                                                                \
        __m256i s = _mm256_permute4x64_epi64(_mm256_hadd_epi32(c##r##0, c##r##1), 0xD8);           \
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

static void gemm_avx2(int M, int n0, int n1, int K, const int8_t *Aq, int lda, const float *ascale,
                      const int8_t *Bp, const int32_t *wsum, const float *wscale, const float *bias,
                      float *C, int ldc)
{
    (void)wsum;
    const int G = hx_i8_row_bytes(K) / 4;
    for (int j = n0; j < n1; j += TN) {   /* a column tile's weights (TN x K bytes) stay in L1 */
        const int cols = n1 - j < TN ? n1 - j : TN;
        const int8_t *b = Bp + (size_t)(j / HX_I8_NR) * G * 4 * HX_I8_NR + 4 * (j % HX_I8_NR);
        const float *bj = bias ? bias + j : NULL;
        int i = 0;
        for (; i + MR <= M; i += MR)
            gemm_tile(MR, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wscale + j, bj, C + (size_t)i * ldc + j, ldc);
        if (M - i >= 4) {
            gemm_tile(4, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wscale + j, bj, C + (size_t)i * ldc + j, ldc);
            i += 4;
        }
        if (M - i >= 2) {
            gemm_tile(2, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wscale + j, bj, C + (size_t)i * ldc + j, ldc);
            i += 2;
        }
        if (M - i >= 1)
            gemm_tile(1, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wscale + j, bj, C + (size_t)i * ldc + j, ldc);
    }
}

const hx_kernels_i8 hx_kernels_i8_avx2 = {
    .name = "avx2",
    .quantize = hx_quantize_i8_avx2,
    .gemm = gemm_avx2,
};
