/* kernels_int8_avx512vnni.c: the AVX512-VNNI int8 table hx_kernels_i8_avx512vnni: EVEX vpdpwssd on
 * zmm, a whole packed panel (16 columns) per tile row. Interface and layout in kernels.h "int8",
 * reference in kernels_int8.c, tests in tests/test_kernels.c. Built with -mavx512f -mavx512bw
 * -mavx512vl -mavx512dq -mavx512vnni; kernels_int8.c hands it out only when the CPU has them. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>
#include <string.h>

#define HX_INLINE static inline __attribute__((always_inline))

#define MR 8    /* tile rows: 16 accumulators + 2 weight vectors + 1 input in 32 zmm */

/* One tile: rows x one panel (16 columns, cols of them stored) over all of K. acc[r][h] holds, for
 * columns 8h..8h+7, two partial sums each (pairs k, k+1 and k+2, k+3). */
HX_INLINE void gemm_tile(int rows, int cols, int G, const int16_t *a, int lda, const float *ascale,
                         const int8_t *b, const float *wscale, const float *bias, float *c, int ldc)
{
    __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,
            c70 = c00, c71 = c00;
    for (int g = 0; g < G; g++) {
        const int8_t *bg = b + (size_t)g * 4 * HX_I8_NR;
        __m512i w0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)bg));
        __m512i w1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(bg + 32)));
        __m512i x;
        int64_t a4;
#define ROW(r)                                                  \
        if (rows > r) {                                         \
            memcpy(&a4, a + (size_t)(r) * lda + 4 * g, 8);      \
            x = _mm512_set1_epi64(a4);                          \
            c##r##0 = _mm512_dpwssd_epi32(c##r##0, x, w0);      \
            c##r##1 = _mm512_dpwssd_epi32(c##r##1, x, w1);      \
        }
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5) ROW(6) ROW(7)
#undef ROW
    }
    /* lane 2j and 2j + 1 of the pair (acc0, acc1) are column j's two partial sums */
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __mmask16 m = cols >= HX_I8_NR ? 0xFFFF : (__mmask16)((1u << cols) - 1);
    const __m512 ws = _mm512_maskz_loadu_ps(m, wscale);
    const __m512 bv = bias ? _mm512_maskz_loadu_ps(m, bias) : _mm512_setzero_ps();
#define STORE(r)                                                                                   \
    if (rows > r) {                                                                                \
        __m512i s = _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##0, even, c##r##1),            \
                                     _mm512_permutex2var_epi32(c##r##0, odd, c##r##1));            \
        _mm512_mask_storeu_ps(c + (size_t)(r) * ldc, m, _mm512_add_ps(_mm512_mul_ps(               \
            _mm512_cvtepi32_ps(s), _mm512_mul_ps(_mm512_set1_ps(ascale[r]), ws)), bv));            \
    }
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
#undef STORE
}

static void gemm_avx512vnni(int M, int n0, int n1, int K, const int16_t *Aq, int lda,
                            const float *ascale, const int8_t *Bp, const float *wscale,
                            const float *bias, float *C, int ldc)
{
    const int G = hx_i8_row_len(K) / 4;
    for (int j = n0; j < n1; j += HX_I8_NR) {   /* one panel's weights (16 x K bytes) stay in L1 */
        const int cols = n1 - j < HX_I8_NR ? n1 - j : HX_I8_NR;
        const int8_t *b = Bp + (size_t)(j / HX_I8_NR) * G * 4 * HX_I8_NR;
        const float *bj = bias ? bias + j : NULL;
        int i = 0;
#define TILE(rows) gemm_tile(rows, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wscale + j, bj, \
                             C + (size_t)i * ldc + j, ldc)
        for (; i + MR <= M; i += MR)
            TILE(MR);
        if (M - i >= 4) {
            TILE(4);
            i += 4;
        }
        if (M - i >= 2) {
            TILE(2);
            i += 2;
        }
        if (M - i >= 1)
            TILE(1);
#undef TILE
    }
}

const hx_kernels_i8 hx_kernels_i8_avx512vnni = {
    .name = "avx512vnni",
    .quantize = hx_quantize_i8_avx2,
    .gemm = gemm_avx512vnni,
};
