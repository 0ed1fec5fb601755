/* kernels_int8_x86.h: what the x86 int8 tables share (kernels.h "int8"): the AVX2 quantize into
 * bytes of kernels_int8_avx2.c, which the VNNI tables use (every VNNI machine has AVX2). */
#ifndef HX_KERNELS_INT8_X86_H
#define HX_KERNELS_INT8_X86_H

#include <stdint.h>

void hxi_quantize_u8_avx2(int rows, int K, const float *x, int ldx, const float *xinv, void *q, int ldq,
                          float *scale, int32_t *zero);

#endif
