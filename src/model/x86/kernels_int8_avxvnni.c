/* kernels_int8_avxvnni.c: the AVX-VNNI int8 table hxi_kernels_i8_avxvnni: the VNNI gemm of
 * gemm_vnni.h on ymm (VEX vpdpbusd; a vector is half a packed panel, 8 columns) and the AVX2
 * quantize. Interface and layout in kernels.h "int8", reference in kernels_int8.c, tests in
 * tests/test_kernels.c. Built with -mavx2 -mfma -mf16c -mavxvnni only; kernels_int8.c hands it
 * out only when the CPU has AVX-VNNI. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>

#include "x86_simd.h"
#include <string.h>

typedef __m256i vi;
typedef __m256 vf;

#define VN 8
#define MR 6    /* 12 accumulators + 2 weight vectors + 1 input in the 16 ymm */
#define VSTEP(G) ((size_t)32)   /* the panel's second half */

#define vi_zero() _mm256_setzero_si256()
#define vi_load(p) _mm256_loadu_si256((const __m256i *)(p))
#define vi_bcast4(a4) _mm256_set1_epi32(a4)
/* vpdpbusd written as an in-place instruction: from the intrinsic, gcc 12 copies each accumulator
 * through a spare register and stores it to the stack every step. */
#define DPBUSD(acc, x, w) __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(x), "x"(w))
#define vi_load_n(p, n) _mm256_maskload_epi32(p, hxi_ymm_lanes(n))
#define vf_load_n(p, n) _mm256_maskload_ps(p, hxi_ymm_lanes(n))
#define vf_store_n(p, n, v) _mm256_maskstore_ps(p, hxi_ymm_lanes(n), v)
#define vi_set1 _mm256_set1_epi32
#define vi_sub _mm256_sub_epi32
#define vi_mullo _mm256_mullo_epi32
#define vi_to_vf _mm256_cvtepi32_ps
#define vf_zero _mm256_setzero_ps
#define vf_set1 _mm256_set1_ps
#define vf_mul _mm256_mul_ps
#define vf_add _mm256_add_ps

#include "gemm_vnni.h"

const hxi_kernels_i8 hxi_kernels_i8_avxvnni = {
    .name = "avxvnni",
    .in_bytes = 1,
    .quantize = hxi_quantize_u8_avx2,
    .gemm = gemm_vnni,
};
