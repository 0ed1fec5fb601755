/* kernels_int8_x86.h: what the x86 int8 tables share across files (kernels.h "int8"): the AVX2
 * quantize of kernels_int8_avx2.c, which the VNNI tables use too (every VNNI machine has AVX2). */
#ifndef HX_KERNELS_INT8_X86_H
#define HX_KERNELS_INT8_X86_H

#include <stdint.h>

void hx_quantize_i8_avx2(int rows, int K, const float *x, int ldx, int8_t *q, int ldq, float *scale);

#endif
