/* kernels_int8_avx512vnni.c: the AVX512-VNNI int8 table hxi_kernels_i8_avx512vnni: the VNNI gemm of
 * gemm_vnni.h on zmm (EVEX vpdpbusd; a vector is a whole packed panel of 16 columns) and the AVX2
 * quantize. Interface and layout in kernels.h "int8", reference in kernels_int8.c, tests in
 * tests/test_kernels.c. Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni;
 * kernels_int8.c hands it out only when the CPU has them. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>

#include "x86_simd.h"
#include <string.h>

typedef __m512i vi;
typedef __m512 vf;

#define VN 16
#define MR 12   /* 24 accumulators + 2 weight vectors + 1 input in the 32 zmm */
#define VSTEP(G) ((size_t)(G) * 4 * HX_I8_NR)   /* the next panel */

#define vi_zero() _mm512_setzero_si512()
#define vi_load(p) _mm512_loadu_si512((const void *)(p))
#define vi_bcast4(a4) _mm512_set1_epi32(a4)
#define DPBUSD(acc, x, w) ((acc) = _mm512_dpbusd_epi32(acc, x, w))
#define vi_load_n(p, n) _mm512_maskz_loadu_epi32(hxi_zmm_lanes(n), p)
#define vf_load_n(p, n) _mm512_maskz_loadu_ps(hxi_zmm_lanes(n), p)
#define vf_store_n(p, n, v) _mm512_mask_storeu_ps(p, hxi_zmm_lanes(n), v)
#define vi_set1 _mm512_set1_epi32
#define vi_sub _mm512_sub_epi32
#define vi_mullo _mm512_mullo_epi32
#define vi_to_vf _mm512_cvtepi32_ps
#define vf_zero _mm512_setzero_ps
#define vf_set1 _mm512_set1_ps
#define vf_mul _mm512_mul_ps
#define vf_add _mm512_add_ps

#include "gemm_vnni.h"

const hxi_kernels_i8 hxi_kernels_i8_avx512vnni = {
    .name = "avx512vnni",
    .in_bytes = 1,
    .quantize = hxi_quantize_u8_avx2,
    .gemm = gemm_vnni,
};
