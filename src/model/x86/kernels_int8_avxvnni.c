/* kernels_int8_avxvnni.c: the AVX-VNNI int8 table hx_kernels_i8_avxvnni: the ymm gemm body of
 * gemm_i8_ymm.h with VEX vpdpwssd (multiply 16-bit pairs and accumulate, one instruction where
 * AVX2 needs two). Interface and layout in kernels.h "int8", reference in kernels_int8.c, tests in
 * tests/test_kernels.c. Built with -mavx2 -mfma -mf16c -mavxvnni only; kernels_int8.c hands it
 * out only when the CPU has AVX-VNNI. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>
#include <string.h>

/* vpdpwssd written as an in-place instruction: from _mm256_dpwssd_avx_epi32, gcc 12 copies each
 * accumulator through a spare register and stores it to the stack every step (the same failure
 * as AVX2's vpaddd, kernels_int8_avx2.c). */
#define I8_DOT(acc, x, w) __asm__("%{vex%} vpdpwssd %2, %1, %0" : "+x"(acc) : "x"(x), "x"(w))
#include "gemm_i8_ymm.h"

const hx_kernels_i8 hx_kernels_i8_avxvnni = {
    .name = "avxvnni",
    .quantize = hx_quantize_i8_avx2,
    .gemm = gemm_i8_ymm,
};
