/* kernels_avx2.c: the AVX2 + FMA + F16C kernel table hxi_kernels_avx2: the vector vocabulary of
 * kernels_simd.h in AVX2 intrinsics (the kernels themselves are written once there) and the f16
 * conversion. Built with -mavx2 -mfma -mf16c only; cpu.c hands it out only when CPUID and XGETBV
 * allow it. Interface: kernels.h; tests: tests/test_kernels.c. */
#include <immintrin.h>

#include "x86_simd.h"

typedef __m256 vf;
typedef __m256i vi;

#define KS_VL 8
#define KS_MR 6     /* 12 accumulators + 2 B vectors + 1 broadcast fit the 16 ymm */
#define KS_KC 384   /* a KC x NR sub-panel of B (24 KiB) stays in L1 across a row block */
#define KS_MC 96    /* MC x KC of A (144 KiB) stays in L2 across the panels */
/* The first row tile of a panel reads its weights from memory (42 MB of them per forward pass, more
 * than L3 keeps), one 64-byte row of B per 6 cycles, faster than the prefetchers bring them in on
 * Zen 3; asking 96 rows (6 KiB, ~600 cycles) ahead cut 12-token batches' time by ~15 % in the
 * encoder (32 or 192 rows ahead gained less). Later tiles ask for lines already in L1. */
#define KS_PF 96

/* 2^n built in the exponent field (n integral in [-126, 127]). */
static inline __m256 exp2i8(__m256 y, __m256 n)
{
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

#define vf_zero() _mm256_setzero_ps()
#define vf_set1(x) _mm256_set1_ps(x)
#define vf_bcast(p) _mm256_broadcast_ss(p)
#define vf_load(p) _mm256_loadu_ps(p)
#define vf_store(p, v) _mm256_storeu_ps(p, v)
#define vf_load_n(p, n) _mm256_maskload_ps(p, hxi_ymm_lanes(n))
#define vf_store_n(p, n, v) _mm256_maskstore_ps(p, hxi_ymm_lanes(n), v)
#define vf_add _mm256_add_ps
#define vf_sub _mm256_sub_ps
#define vf_mul _mm256_mul_ps
#define vf_min _mm256_min_ps
#define vf_max _mm256_max_ps
#define vf_fma _mm256_fmadd_ps
#define vf_abs(x) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x)
#define vf_signbit(x) _mm256_and_ps(x, _mm256_set1_ps(-0.0f))
#define vf_or _mm256_or_ps
#define vf_hsum hxi_ymm_hsum
#define vf_hmax hxi_ymm_hmax
#define vf_trunc_vi _mm256_cvttps_epi32
#define vi_to_vf _mm256_cvtepi32_ps
#define vf_lut8(t, i) _mm256_permutevar8x32_ps(_mm256_loadu_ps(t), i)
#define vf_round(x) _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define vf_exp2i exp2i8

#include "kernels_simd.h"

static void f16_to_f32_avx2(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++)
        dst[i] = _cvtsh_ss(src[i]);
}

const hxi_kernels hxi_kernels_avx2 = {
    .name = "avx2",
    KS_TABLE_KERNELS,
    .f16_to_f32 = f16_to_f32_avx2,
};
