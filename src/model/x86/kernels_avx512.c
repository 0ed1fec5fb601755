/* kernels_avx512.c: the AVX-512 (F, BW, VL, DQ) + FMA + F16C kernel table hxi_kernels_avx512: the
 * vector vocabulary of kernels_simd.h in AVX-512 intrinsics (the kernels themselves are written
 * once there) and the f16 conversion. Built with its ISA's flags only; cpu.c hands it out only when
 * allowed. Interface: kernels.h; tests: tests/test_kernels.c. */
#include <immintrin.h>

#include "x86_simd.h"

typedef __m512 vf;
typedef __m512i vi;

#define KS_VL 16
#define KS_MR 12    /* 24 accumulators + 2 B vectors + 1 broadcast fit the 32 zmm */
#define KS_KC 192   /* a KC x NR sub-panel of B (24 KiB) stays in L1 across a row block */
#define KS_MC 96    /* MC x KC of A (72 KiB) stays in L2 across the panels */

#define vf_zero() _mm512_setzero_ps()
#define vf_set1(x) _mm512_set1_ps(x)
#define vf_bcast(p) _mm512_set1_ps(*(p))
#define vf_load(p) _mm512_loadu_ps(p)
#define vf_store(p, v) _mm512_storeu_ps(p, v)
#define vf_load_n(p, n) _mm512_maskz_loadu_ps(hxi_zmm_lanes(n), p)
#define vf_store_n(p, n, v) _mm512_mask_storeu_ps(p, hxi_zmm_lanes(n), v)
#define vf_add _mm512_add_ps
#define vf_sub _mm512_sub_ps
#define vf_mul _mm512_mul_ps
#define vf_min _mm512_min_ps
#define vf_max _mm512_max_ps
#define vf_fma _mm512_fmadd_ps
#define vf_abs(x) _mm512_andnot_ps(_mm512_set1_ps(-0.0f), x)
#define vf_signbit(x) _mm512_and_ps(x, _mm512_set1_ps(-0.0f))
#define vf_or _mm512_or_ps
#define vf_hsum _mm512_reduce_add_ps
#define vf_hmax _mm512_reduce_max_ps
#define vf_trunc_vi _mm512_cvttps_epi32
#define vi_to_vf _mm512_cvtepi32_ps
#define vf_lut8(t, i) _mm512_permutexvar_ps(i, _mm512_broadcast_f32x8(_mm256_loadu_ps(t)))
#define vf_round(x) _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define vf_exp2i _mm512_scalef_ps

#include "kernels_simd.h"

static void f16_to_f32_avx512(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(src + i))));
    if (i < n) {
        __mmask16 m = hxi_zmm_lanes((int)(n - i));
        _mm512_mask_storeu_ps(dst + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, src + i)));
    }
}

const hxi_kernels hxi_kernels_avx512 = {
    .name = "avx512",
    KS_TABLE_KERNELS,
    .f16_to_f32 = f16_to_f32_avx512,
};
