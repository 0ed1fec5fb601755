/* kernels_int8_avxvnni.c: the AVX-VNNI int8 table hx_kernels_i8_avxvnni: the ymm gemm body of
 * gemm_i8_ymm.h with VEX vpdpwssd (multiply 16-bit pairs and accumulate, one instruction where
 * AVX2 needs two). Interface and layout in kernels.h "int8", reference in kernels_int8.c, tests in
 * tests/test_kernels.c. Built with -mavx2 -mfma -mf16c -mavxvnni only; kernels_int8.c hands it
 * out only when the CPU has AVX-VNNI. */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>
#include <string.h>

#define I8_DOT(acc, x, w) (acc = _mm256_dpwssd_avx_epi32(acc, x, w))
#include "gemm_i8_ymm.h"

const hx_kernels_i8 hx_kernels_i8_avxvnni = {
    .name = "avxvnni",
    .quantize = hx_quantize_i8_avx2,
    .gemm = gemm_i8_ymm,
};
