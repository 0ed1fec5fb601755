/* kernels_int8_avx2.c: the AVX2 int8 table hx_kernels_i8_avx2 (interface and packed layout in
 * kernels.h "int8", reference in kernels_int8.c, tests in tests/test_kernels.c). Products go
 * through vpmaddwd on 16-bit inputs and sign-extended weights, which is exact (vpmaddubsw would
 * saturate its pair sums). Its quantize also serves the VNNI tables. Built with -mavx2 -mfma -mf16c
 * only; kernels_int8.c hands it out only when the CPU allows. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

/* The add is written as one in-place vpaddd: from _mm256_add_epi32, gcc 12 keeps only 3 of the 12
 * accumulators of gemm_i8_ymm.h's tile in registers (the rest are spilled and reloaded every step,
 * or moved back after each add), which halved this kernel's speed (bench/gemm_bench: 90 -> 150
 * GOP/s at M = 256 on Zen 3). */
#define I8_DOT(acc, x, w)                                                   \
    do {                                                                    \
        const __m256i prod_ = _mm256_madd_epi16(x, w);                      \
        __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(prod_));              \
    } while (0)
#include "gemm_i8_ymm.h"

void hx_quantize_i8_avx2(int rows, int K, const float *x, int ldx, int16_t *q, int ldq, float *scale)
{
    const int Kp = hx_i8_row_len(K);
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * ldx;
        int16_t *qr = q + (size_t)r * ldq;
        __m256 vmax = _mm256_setzero_ps();
        int k = 0;
        for (; k + 8 <= K; k += 8)
            vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_loadu_ps(xr + k), absmask));
        if (k < K)
            vmax = _mm256_max_ps(vmax, _mm256_and_ps(_mm256_maskload_ps(xr + k, i8_lanes_below(K - k)), absmask));
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        const float max = _mm_cvtss_f32(_mm_max_ss(m4, _mm_movehdup_ps(m4)));
        const float inv = max > 0 ? HX_I8_ACT_MAX / max : 0;
        scale[r] = max > 0 ? max / HX_I8_ACT_MAX : 0;
        const __m256 vinv = _mm256_set1_ps(inv);
        for (k = 0; k + 16 <= K; k += 16) {   /* |x * inv| <= HX_I8_ACT_MAX, so packs cannot clip */
            __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(xr + k), vinv));
            __m256i i1 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(xr + k + 8), vinv));
            _mm256_storeu_si256((__m256i *)(qr + k), _mm256_permute4x64_epi64(_mm256_packs_epi32(i0, i1), 0xD8));
        }
        for (; k < Kp; k++) {
            long v = k < K ? lrintf(xr[k] * inv) : 0;
            qr[k] = (int16_t)(v > HX_I8_ACT_MAX ? HX_I8_ACT_MAX : v < -HX_I8_ACT_MAX ? -HX_I8_ACT_MAX : v);
        }
    }
}

const hx_kernels_i8 hx_kernels_i8_avx2 = {
    .name = "avx2",
    .quantize = hx_quantize_i8_avx2,
    .gemm = gemm_i8_ymm,
};
