/* kernels_int8_x86.h: what the x86 int8 tables share (kernels.h "int8"): the AVX2 quantize of
 * kernels_int8_avx2.c, which the VNNI tables use too (every VNNI machine has AVX2), and the
 * AVX2 + VNNI gemm body, written once and included by kernels_int8_avx2.c (vpmaddwd + vpaddd) and
 * kernels_int8_avxvnni.c (vpdpwssd), each under its own flags with its own I8_DOT. */
#ifndef HX_KERNELS_INT8_X86_H
#define HX_KERNELS_INT8_X86_H

#include <stdint.h>

void hx_quantize_i8_avx2(int rows, int K, const float *x, int ldx, int16_t *q, int ldq, float *scale);

#endif
