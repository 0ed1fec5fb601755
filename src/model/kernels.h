/* kernels.h: the numeric kernels of the forward pass, one table per instruction set
 * (kernels_scalar.c is the reference; the fast tables are written once in kernels_simd.h over a
 * vector vocabulary that each ISA file, x86/kernels_avx2.c and x86/kernels_avx512.c, defines).
 * Kernels take raw pointers and sizes, never allocate, and never touch global state.
 * Each SIMD kernel is tested against the scalar one with named tolerances (tests/test_kernels.c). */
#ifndef HX_KERNELS_H
#define HX_KERNELS_H

#include "cpu.h"

#include <stddef.h>
#include <stdint.h>

/* Packed weights: a Linear layer's W [N rows of K] is stored as ceil(N/nr) panels; panel p holds,
 * for each k in 0..K-1, the nr values W[p*nr + j][k] for j in 0..nr-1 (zero past N). */
typedef struct hx_kernels {
    const char *name;
    int nr;   /* panel width of packed weights for this table's gemm */

    /* C[i][j] = sum_k A[i][k] * W[j][k] + bias[j] for i < M and n0 <= j < n1, then GELU (erf form)
     * when `gelu` is set. Bp is W packed with this table's nr; n0 is a multiple of nr; bias may be
     * NULL. Threads split the work by giving disjoint [n0, n1) ranges. */
    void (*gemm)(int M, int n0, int n1, int K, const float *A, int lda, const float *Bp,
                 const float *bias, float *C, int ldc, int gelu);

    /* One attention head of one sequence of T tokens, head width hd:
     * out[i] = sum_j softmax_j(scale * q[i].k[j]) v[j]. Rows of q, k, v are `ld` floats apart,
     * rows of out `ldo` apart. scratch holds hx_attention_scratch(T, hd) floats. No mask:
     * sequences are unpadded. */
    void (*attention)(int T, int hd, const float *q, const float *k, const float *v, int ld,
                      float *out, int ldo, float scale, float *scratch);

    /* x[r] = LayerNorm(x[r] + res[r]) * w + b for each of `rows` rows of `dim` floats. */
    void (*add_layernorm)(int rows, int dim, float *x, int ldx, const float *res, int ldr,
                          const float *w, const float *b, float eps);

    /* IEEE binary16 to binary32, n values. */
    void (*f16_to_f32)(const uint16_t *src, float *dst, size_t n);

    float (*dot)(const float *a, const float *b, size_t n);
} hx_kernels;

extern const hx_kernels hx_kernels_scalar;
extern const hx_kernels hx_kernels_avx2;     /* kernels_avx2.c: AVX2 + FMA + F16C */
extern const hx_kernels hx_kernels_avx512;   /* kernels_avx512.c: AVX-512 F/BW/VL/DQ + FMA + F16C */

/* Kernel table in use (kernels.c): the one for hx_cpu_isa(), or the next lower one built into
 * this binary; selected on first call. Never NULL. */
const hx_kernels *hx_kernels_get(void);
/* Table for a given ISA, or NULL when this machine cannot run it (for tests and benchmarks). */
const hx_kernels *hx_kernels_for(enum hx_isa isa);

/* Widest panel (nr) of any table, and the query rows the SIMD attention takes per block. */
#define HX_KERNELS_MAX_NR 64
#define HX_ATTENTION_ROWS 48
/* Floats of scratch any table's attention needs for T tokens of head width hd. */
size_t hx_attention_scratch(int T, int hd);

/* Floats needed to hold W [N x K] packed with panel width nr. */
size_t hx_pack_size(int N, int K, int nr);
/* Packs fp16 weights W [N x K] (row-major) into `out` (hx_pack_size floats), converting with
 * `kern->f16_to_f32`. `row` is scratch of K floats. */
void hx_pack_weights_f16(const hx_kernels *kern, const uint16_t *W, int N, int K, float *row, float *out);

/* Portable binary16 -> binary32 for one value (used by the scalar table and tests). */
float hx_half_to_float(uint16_t h);

#endif
