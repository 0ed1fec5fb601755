/* kernels_int8_avxvnni.c: the AVX-VNNI int8 table hx_kernels_i8_avxvnni (VEX vpdpbusd on ymm;
 * interface and packed layout in kernels.h "int8", reference in kernels_int8.c, tests in
 * tests/test_kernels.c). vpdpbusd multiplies unsigned by signed bytes, so activations go in as
 * aq + 128 (aq xor 0x80) and 128 * wsum[j] comes off the sums. Built with -mavx2 -mfma -mf16c
 * -mavxvnni only; kernels_int8.c hands it out only when the CPU has AVX-VNNI. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>
#include <string.h>

#define HX_INLINE static inline __attribute__((always_inline))

#define MR 4    /* tile rows: 8 accumulators + 2 weight vectors + activation and offset in 16 ymm */

HX_INLINE __m256i lanes_below(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* One tile: rows x one panel (HX_I8_NR = 16 columns, cols of them stored) over all of K. */
HX_INLINE void gemm_tile(int rows, int cols, int G, const int8_t *a, int lda, const float *ascale,
                         const int8_t *b, const int32_t *wsum, const float *wscale, const float *bias,
                         float *c, int ldc)
{
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00;
    for (int g = 0; g < G; g++) {
        const int8_t *bg = b + (size_t)g * 4 * HX_I8_NR;
        __m256i w0 = _mm256_loadu_si256((const __m256i *)bg);
        __m256i w1 = _mm256_loadu_si256((const __m256i *)(bg + 32));
        __m256i x;
        int32_t a4;
#define ROW(r)                                                          \
        if (rows > r) {                                                 \
            memcpy(&a4, a + (size_t)(r) * lda + 4 * g, 4);              \
            x = _mm256_xor_si256(_mm256_set1_epi32(a4), flip);          \
            c##r##0 = _mm256_dpbusd_avx_epi32(c##r##0, x, w0);          \
            c##r##1 = _mm256_dpbusd_avx_epi32(c##r##1, x, w1);          \
        }
        ROW(0) ROW(1) ROW(2) ROW(3)
#undef ROW
    }
    const __m256i m0 = lanes_below(cols), m1 = lanes_below(cols - 8);
    const int full = cols == HX_I8_NR;
    const __m256i o0 = _mm256_slli_epi32(full ? _mm256_loadu_si256((const __m256i *)wsum)
                                              : _mm256_maskload_epi32((const int *)wsum, m0), 7);
    const __m256i o1 = _mm256_slli_epi32(full ? _mm256_loadu_si256((const __m256i *)(wsum + 8))
                                              : _mm256_maskload_epi32((const int *)(wsum + 8), m1), 7);
    const __m256 ws0 = full ? _mm256_loadu_ps(wscale) : _mm256_maskload_ps(wscale, m0);
    const __m256 ws1 = full ? _mm256_loadu_ps(wscale + 8) : _mm256_maskload_ps(wscale + 8, m1);
    const __m256 b0 = !bias ? _mm256_setzero_ps() : full ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, m0);
    const __m256 b1 = !bias ? _mm256_setzero_ps() : full ? _mm256_loadu_ps(bias + 8) : _mm256_maskload_ps(bias + 8, m1);
#define STORE(r)                                                                                   \
    if (rows > r) {                                                                                \
        const __m256 as = _mm256_set1_ps(ascale[r]);                                               \
        __m256 v0 = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(c##r##0, o0)), \
                                                _mm256_mul_ps(as, ws0)), b0);                      \
        __m256 v1 = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(c##r##1, o1)), \
                                                _mm256_mul_ps(as, ws1)), b1);                      \
        float *cr = c + (size_t)(r) * ldc;                                                         \
        if (full) {                                                                                \
            _mm256_storeu_ps(cr, v0);                                                              \
            _mm256_storeu_ps(cr + 8, v1);                                                          \
        } else {                                                                                   \
            _mm256_maskstore_ps(cr, m0, v0);                                                       \
            _mm256_maskstore_ps(cr + 8, m1, v1);                                                   \
        }                                                                                          \
    }
    STORE(0) STORE(1) STORE(2) STORE(3)
#undef STORE
}

static void gemm_avxvnni(int M, int n0, int n1, int K, const int8_t *Aq, int lda, const float *ascale,
                         const int8_t *Bp, const int32_t *wsum, const float *wscale, const float *bias,
                         float *C, int ldc)
{
    const int G = hx_i8_row_bytes(K) / 4;
    for (int j = n0; j < n1; j += HX_I8_NR) {   /* one panel's weights (16 x K bytes) stay in L1 */
        const int cols = n1 - j < HX_I8_NR ? n1 - j : HX_I8_NR;
        const int8_t *b = Bp + (size_t)(j / HX_I8_NR) * G * 4 * HX_I8_NR;
        const float *bj = bias ? bias + j : NULL;
        int i = 0;
        for (; i + MR <= M; i += MR)
            gemm_tile(MR, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wsum + j, wscale + j, bj,
                      C + (size_t)i * ldc + j, ldc);
        if (M - i >= 2) {
            gemm_tile(2, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wsum + j, wscale + j, bj,
                      C + (size_t)i * ldc + j, ldc);
            i += 2;
        }
        if (M - i >= 1)
            gemm_tile(1, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wsum + j, wscale + j, bj,
                      C + (size_t)i * ldc + j, ldc);
    }
}

const hx_kernels_i8 hx_kernels_i8_avxvnni = {
    .name = "avxvnni",
    .quantize = hx_quantize_i8_avx2,
    .gemm = gemm_avxvnni,
};
