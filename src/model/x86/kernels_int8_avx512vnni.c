/* kernels_int8_avx512vnni.c: the AVX512-VNNI int8 table hx_kernels_i8_avx512vnni (EVEX vpdpbusd on
 * zmm: one instruction is a whole packed group, 16 columns x 4 k; interface and layout in
 * kernels.h "int8", reference in kernels_int8.c, tests in tests/test_kernels.c). Activations go
 * in as aq + 128 (aq xor 0x80) and 128 * wsum[j] comes off the sums, as in the AVX-VNNI table.
 * Built with -mavx512f -mavx512bw -mavx512vl -mavx512vnni (+ AVX2 for the shared quantize, which
 * lives in kernels_int8_avx2.c); kernels_int8.c hands it out only when the CPU has AVX512-VNNI. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>
#include <string.h>

#define HX_INLINE static inline __attribute__((always_inline))

#define MR 8    /* tile rows x 2 panels: 16 accumulators + 2 weight vectors + activation in 32 zmm */

/* One tile: rows x two panels (32 columns, cols of them stored, cols > 16 only when a second panel
 * exists) over all of K. */
HX_INLINE void gemm_tile(int rows, int cols, int G, const int8_t *a, int lda, const float *ascale,
                         const int8_t *b0p, const int8_t *b1p, const int32_t *wsum,
                         const float *wscale, const float *bias, float *c, int ldc)
{
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const int two = cols > HX_I8_NR;
    __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00,
            c70 = c00, c71 = c00;
    for (int g = 0; g < G; g++) {
        __m512i w0 = _mm512_loadu_si512(b0p + (size_t)g * 4 * HX_I8_NR);
        __m512i w1 = two ? _mm512_loadu_si512(b1p + (size_t)g * 4 * HX_I8_NR) : _mm512_setzero_si512();
        __m512i x;
        int32_t a4;
#define ROW(r)                                                          \
        if (rows > r) {                                                 \
            memcpy(&a4, a + (size_t)(r) * lda + 4 * g, 4);              \
            x = _mm512_xor_si512(_mm512_set1_epi32(a4), flip);          \
            c##r##0 = _mm512_dpbusd_epi32(c##r##0, x, w0);              \
            c##r##1 = _mm512_dpbusd_epi32(c##r##1, x, w1);              \
        }
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5) ROW(6) ROW(7)
#undef ROW
    }
    const __mmask16 m0 = cols >= 16 ? 0xFFFF : (__mmask16)((1u << cols) - 1);
    const __mmask16 m1 = cols >= 32 ? 0xFFFF : cols <= 16 ? 0 : (__mmask16)((1u << (cols - 16)) - 1);
    const __m512i o0 = _mm512_slli_epi32(_mm512_maskz_loadu_epi32(m0, wsum), 7);
    const __m512i o1 = _mm512_slli_epi32(_mm512_maskz_loadu_epi32(m1, wsum + 16), 7);
    const __m512 ws0 = _mm512_maskz_loadu_ps(m0, wscale), ws1 = _mm512_maskz_loadu_ps(m1, wscale + 16);
    const __m512 b0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
    const __m512 b1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
#define STORE(r)                                                                                   \
    if (rows > r) {                                                                                \
        const __m512 as = _mm512_set1_ps(ascale[r]);                                               \
        float *cr = c + (size_t)(r) * ldc;                                                         \
        _mm512_mask_storeu_ps(cr, m0, _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(              \
            _mm512_sub_epi32(c##r##0, o0)), _mm512_mul_ps(as, ws0)), b0));                         \
        _mm512_mask_storeu_ps(cr + 16, m1, _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(         \
            _mm512_sub_epi32(c##r##1, o1)), _mm512_mul_ps(as, ws1)), b1));                         \
    }
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
#undef STORE
}

static void gemm_avx512vnni(int M, int n0, int n1, int K, const int8_t *Aq, int lda,
                            const float *ascale, const int8_t *Bp, const int32_t *wsum,
                            const float *wscale, const float *bias, float *C, int ldc)
{
    const int G = hx_i8_row_bytes(K) / 4;
    const size_t panel = (size_t)G * 4 * HX_I8_NR;
    for (int j = n0; j < n1; j += 2 * HX_I8_NR) {   /* two panels' weights (32 x K bytes) stay in L1 */
        const int cols = n1 - j < 2 * HX_I8_NR ? n1 - j : 2 * HX_I8_NR;
        const int8_t *b0 = Bp + (size_t)(j / HX_I8_NR) * panel, *b1 = b0 + panel;
        const float *bj = bias ? bias + j : NULL;
        int i = 0;
        for (; i + MR <= M; i += MR)
            gemm_tile(MR, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b0, b1, wsum + j, wscale + j,
                      bj, C + (size_t)i * ldc + j, ldc);
        if (M - i >= 4) {
            gemm_tile(4, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b0, b1, wsum + j, wscale + j,
                      bj, C + (size_t)i * ldc + j, ldc);
            i += 4;
        }
        if (M - i >= 2) {
            gemm_tile(2, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b0, b1, wsum + j, wscale + j,
                      bj, C + (size_t)i * ldc + j, ldc);
            i += 2;
        }
        if (M - i >= 1)
            gemm_tile(1, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b0, b1, wsum + j, wscale + j,
                      bj, C + (size_t)i * ldc + j, ldc);
    }
}

const hx_kernels_i8 hx_kernels_i8_avx512vnni = {
    .name = "avx512vnni",
    .quantize = hx_quantize_i8_avx2,
    .gemm = gemm_avx512vnni,
};
