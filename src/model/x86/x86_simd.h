/* x86_simd.h: the small helpers every x86 kernel file shares, included after <immintrin.h> and
 * compiled under each file's own flags (all of them include AVX2): lane masks for partial vectors
 * and the horizontal reductions of a ymm. Static inline only; no kernel lives here. */
#ifndef HX_X86_SIMD_H
#define HX_X86_SIMD_H

/* Lanes [0, n) of 8, as a vector mask, for any n (saturates outside 0..8). */
static inline __m256i hxi_ymm_lanes(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Lanes [0, n) of 16, as an AVX-512 mask, for any n (clamped to 0..16). */
static inline __mmask16 hxi_zmm_lanes(int n)
{
    return n <= 0 ? 0 : n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1);
}

/* Horizontal sum, minimum and maximum of 8 floats (min and max: of the lanes' usual SSE semantics). */
#define HX_YMM_REDUCE(name, op)                                                         \
    static inline float name(__m256 v)                                                  \
    {                                                                                   \
        __m128 s = op##_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));     \
        s = op##_ps(s, _mm_movehl_ps(s, s));                                            \
        return _mm_cvtss_f32(op##_ss(s, _mm_movehdup_ps(s)));                           \
    }
HX_YMM_REDUCE(hxi_ymm_hsum, _mm_add)
HX_YMM_REDUCE(hxi_ymm_hmin, _mm_min)
HX_YMM_REDUCE(hxi_ymm_hmax, _mm_max)
#undef HX_YMM_REDUCE

#endif
