/* kernels.h: the numeric kernels of the forward pass, one table per instruction set
 * (kernels_scalar.c is the reference; the fast tables are written once in kernels_simd.h over a
 * vector vocabulary that each ISA file, x86/kernels_avx2.c, x86/kernels_avx512.c and
 * arm/kernels_neon.c, defines; each is built only for its architecture).
 * Kernels take raw pointers and sizes, never allocate, and never touch global state (the AMX int8
 * table loads, and releases, the calling thread's tile configuration).
 * Each kernel is tested against a plain reference with named tolerances, and every table's
 * attention, add_layernorm and gelu against the scalar table's bit for bit (tests/test_kernels.c).
 *
 * The same bits in every table: attention, add_layernorm and gelu give the same bits in every
 * table (scalar, AVX2, AVX-512, NEON), so an int8 model, whose Linear layers sum in integers
 * (below), gives every CPU the same vectors. The rule that makes them so (kernels_simd.h holds the
 * one implementation, and the scalar table is that header at one lane): every product sum is one
 * chain of fused multiply-adds in index order from 0 (attention's scores over the head width, its
 * output over the keys); every sum across a row (LayerNorm's mean and variance, softmax's
 * denominator) is taken in HX_SUM_LANES lanes, lane l adding elements l, l + 16, ... in order from
 * 0, then halved (lane l + lane l + 8, then + 4, + 2, + 1); exp and erf are the same polynomials;
 * every other step is the same operation, fused or not, on every lane, tails included. fp32 models
 * differ across tables in gemm only (their Linear layers): the scalar table rounds each product and
 * adds the bias last, and the SIMD tables' row tiles of one or two rows sum odd and even k apart,
 * so which rows do depends on the table's tile height. */
#ifndef HX_KERNELS_H
#define HX_KERNELS_H

#include "cpu.h"

#include <float.h>
#include <stddef.h>
#include <stdint.h>

/* The row tiles of every gemm driver: rows [i, i1) as full `mr`-row tiles, then the rows left
 * over as a sum of smaller power-of-two tiles (8, 4, 2, 1 where below mr), so only a few tile
 * shapes are inlined (mr <= 16 covers every leftover row). TILE(R) runs the R-row tile at row i (R
 * a constant); i advances. The branches for R >= mr are constant-false, but a tile must still
 * compile, and stay in bounds, for them. */
#define HX_ROW_TILES(i, i1, mr, TILE)             \
    do {                                          \
        for (; (i) + (mr) <= (i1); (i) += (mr))   \
            TILE(mr);                             \
        if ((mr) > 8 && (i1) - (i) >= 8) {        \
            TILE(8);                              \
            (i) += 8;                             \
        }                                         \
        if ((mr) > 4 && (i1) - (i) >= 4) {        \
            TILE(4);                              \
            (i) += 4;                             \
        }                                         \
        if ((mr) > 2 && (i1) - (i) >= 2) {        \
            TILE(2);                              \
            (i) += 2;                             \
        }                                         \
        if ((mr) > 1 && (i1) - (i) >= 1)          \
            TILE(1);                              \
    } while (0)

/* Packed weights: a Linear layer's W [N rows of K] is stored as ceil(N/nr) panels; panel p holds,
 * for each k in 0..K-1, the nr values W[p*nr + j][k] for j in 0..nr-1 (zero past N). */
typedef struct hxi_kernels {
    const char *name;
    int nr;   /* panel width of packed weights for this table's gemm */

    /* C[i][j] = sum_k A[i][k] * W[j][k] + bias[j] for i < M and n0 <= j < n1, then GELU (erf form)
     * when `gelu` is set. Bp is W packed with this table's nr; n0 is a multiple of nr; bias may be
     * NULL. Threads split the work by giving disjoint [n0, n1) ranges. */
    void (*gemm)(int M, int n0, int n1, int K, const float *A, int lda, const float *Bp,
                 const float *bias, float *C, int ldc, int gelu);

    /* One attention head of one sequence of T tokens, head width hd:
     * out[i] = sum_j softmax_j(scale * q[i].k[j] + rel[j - i]) v[j], rel NULL: no bias (BERT);
     * else rel[d] is the relative attention bias of key - query = d for |d| < T (MPNet). Rows of
     * q, k, v are `ld` floats apart, rows of out `ldo` apart. scratch holds
     * hxi_attention_scratch(T, hd) floats. No mask: sequences are unpadded. */
    void (*attention)(int T, int hd, const float *q, const float *k, const float *v, int ld,
                      float *out, int ldo, float scale, const float *rel, float *scratch);

    /* x[r] = LayerNorm(x[r] + res[r]) * w + b for each of `rows` rows of `dim` floats. */
    void (*add_layernorm)(int rows, int dim, float *x, int ldx, const float *res, int ldr,
                          const float *w, const float *b, float eps);

    /* IEEE binary16 to binary32, n values. */
    void (*f16_to_f32)(const uint16_t *src, float *dst, size_t n);

    float (*dot)(const float *a, const float *b, size_t n);

    /* GELU (erf form) in place over rows x cols floats, rows ldc apart, as gemm's epilogue does it
     * (the int8 path applies it after its gemm). */
    void (*gelu)(int rows, int cols, float *c, int ldc);
} hxi_kernels;

extern const hxi_kernels hxi_kernels_scalar;
extern const hxi_kernels hxi_kernels_avx2;     /* kernels_avx2.c: AVX2 + FMA + F16C */
extern const hxi_kernels hxi_kernels_avx512;   /* kernels_avx512.c: AVX-512 F/BW/VL/DQ + FMA + F16C */
extern const hxi_kernels hxi_kernels_neon;     /* arm/kernels_neon.c: AArch64 Advanced SIMD */

/* === int8 ===
 * Weights are quantized per output channel to int8 (symmetric: W[n][k] xs[k] ~ wscale[n] Wq[n][k],
 * Wq in [-127, 127]), after an optional smoothing xs[k] > 0 per input channel (SmoothQuant: it moves
 * the range of an input channel with outliers into the weights; NULL = all 1). A Linear layer's
 * input is quantized per row at run time to unsigned 8 bits with a zero point (asymmetric:
 * x[k] / xs[k] ~ ascale (aq[k] - azero), aq and azero in 0..255), so the products are u8 x s8: four
 * to a 32-bit lane in one VNNI instruction (vpdpbusd). Their sums are exact in int32 (K <=
 * HX_I8_MAX_K keeps every sum inside it) and only the final scaling is float. Every table computes
 * the same integer sums and the same epilogue (one product of the two scales, then a product and
 * a sum, unfused), so with the float tables' same bits (above) vectors do not depend on the
 * instruction set. These tables are chosen apart from the float ones (kernels_int8.c): VNNI comes and
 * goes independently of the float ISA level, and a platform with no int8 table of its own uses
 * scalar's. Which layers are smoothed, and by how much, is the model's choice (model.c).
 *
 * Packed weights: Wq [N x K] is stored as ceil(N/16) panels of Kp / 4 groups, Kp = roundup(K, 4);
 * group g of panel p holds, for j in 0..15 and t in 0..3, Wq[p*16 + j][4g + t] at byte 4j + t
 * (vpdpbusd's layout, and one row of an AMX B tile), zero past N and K; wsum[n] = sum_k Wq[n][k].
 * Inputs are rows of Kp values, 0 past K, each one byte, or two (the same value zero-extended) in a
 * table whose products need 16-bit operands (in_bytes: AVX2's vpmaddwd, NEON's smlal). */
#define HX_I8_NR 16         /* panel width of packed int8 weights */
#define HX_I8_MAX_K 4096    /* 4096 * 255 * 127 < 2^31; wider layers stay in float */

typedef struct hxi_kernels_i8 {
    const char *name;
    int in_bytes;   /* bytes per quantized input value: 1 (uint8_t) or 2 (uint16_t) */

    /* For each row r: y[k] = x[r][k] * xinv[k] (xinv NULL: y = x; xinv holds 1 / xs), lo = min(0,
     * min_k y[k]), hi = max(0, max_k y[k]) (NaN passed over), then inv, scale[r] and zero[r] as
     * hxi_i8_row_range gives them; q[r][k] = clamp(round(y[k] * inv) + zero[r], 0, 255) (NaN: 0),
     * rounding to nearest even, each product rounded to float on its own; q[r][K..roundup(K, 4)) =
     * 0. q holds in_bytes-wide values, rows ldq values apart. */
    void (*quantize)(int rows, int K, const float *x, int ldx, const float *xinv, void *q, int ldq,
                     float *scale, int32_t *zero);

    /* C[i][j] = (float)(sum_k Aq[i][k] Wq[j][k] - azero[i] wsum[j]) * (ascale[i] * wscale[j]) +
     * bias[j] for i < M and n0 <= j < n1 (n0 a multiple of HX_I8_NR; bias may be NULL; K <=
     * HX_I8_MAX_K). Aq rows hold roundup(K, 4) values, lda values apart, as quantize writes them; Bp
     * is packed as above. */
    void (*gemm)(int M, int n0, int n1, int K, const void *Aq, int lda, const float *ascale,
                 const int32_t *azero, const int8_t *Bp, const int32_t *wsum, const float *wscale,
                 const float *bias, float *C, int ldc);
} hxi_kernels_i8;

enum hxi_i8_isa { HX_I8_SCALAR, HX_I8_AVX2, HX_I8_AVXVNNI, HX_I8_AVX512VNNI, HX_I8_AMX, HX_I8_NEON, HX_I8_COUNT };

extern const hxi_kernels_i8 hxi_kernels_i8_scalar;      /* kernels_int8.c: the reference */
extern const hxi_kernels_i8 hxi_kernels_i8_avx2;        /* x86/kernels_int8_avx2.c: vpmaddwd */
extern const hxi_kernels_i8 hxi_kernels_i8_avxvnni;     /* x86/kernels_int8_avxvnni.c: VEX vpdpbusd */
extern const hxi_kernels_i8 hxi_kernels_i8_avx512vnni;  /* x86/kernels_int8_avx512vnni.c: vpdpbusd */
extern const hxi_kernels_i8 hxi_kernels_i8_amx;         /* x86/kernels_int8_amx.c: tdpbusd */
extern const hxi_kernels_i8 hxi_kernels_i8_neon;        /* arm/kernels_int8_neon.c: smlal */

/* The best int8 table this machine runs, within HYRAX_ISA's limit (VNNI forms need the float ISA
 * level they extend: avx2 for AVX-VNNI, avx512 for AVX512-VNNI and AMX; NEON's needs neon). Never
 * NULL. */
const hxi_kernels_i8 *hxi_kernels_i8_get(void);
/* The table for one int8 ISA, or NULL when this machine cannot run it. */
const hxi_kernels_i8 *hxi_kernels_i8_for(enum hxi_i8_isa isa);
const char *hxi_i8_isa_name(enum hxi_i8_isa isa);

/* Bytes of Wq [N x K] packed, and values in one input row. */
size_t hxi_pack_i8_size(int N, int K);
static inline int hxi_i8_row_len(int K) { return (K + 3) & ~3; }
/* The packed panel that holds column j of Wq [. x K]. */
static inline const int8_t *hxi_i8_panel(const int8_t *Bp, int j, int K)
{
    return Bp + (size_t)(j / HX_I8_NR) * HX_I8_NR * (size_t)hxi_i8_row_len(K);
}

/* v rounded to the nearest integral value, ties to even, for |v| < 2^22: 1.5 * 2^23 added and taken
 * away (in the default rounding mode), without a call to lrintf, which costs more than the rest of
 * the weight packing. */
static inline float hxi_round_even(float v)
{
    return (v + 12582912.0f) - 12582912.0f;
}

/* A row's quantization from its range lo <= 0 <= hi (kernels.h quantize; every table computes it
 * with this function): when hi - lo and 255 / (hi - lo) are finite and positive, *inv = 255 / (hi -
 * lo), *scale = (hi - lo) / 255 and *zero = round(-lo * inv) to nearest even, in 0..255; otherwise
 * (a zero row, a row of values too small for 255 / range, an infinity, a NaN range) all three are 0
 * and so is every q of the row. */
static inline void hxi_i8_row_range(float lo, float hi, float *inv, float *scale, int32_t *zero)
{
    const float d = hi - lo, i = d > 0 && d <= FLT_MAX ? 255.0f / d : 0;
    const int ok = i > 0 && i <= FLT_MAX;
    *inv = ok ? i : 0;
    *scale = ok ? d / 255.0f : 0;
    *zero = (int32_t)hxi_round_even(ok ? -lo * i : 0);
}
/* Quantizes fp16 weights W [N x K], column k multiplied by xs[k] (NULL: none), per row (wscale[n] =
 * max_k |W[n][k] xs[k]| / 127) into `out` (hxi_pack_i8_size bytes) and their sums into wsum[n].
 * `row` is scratch of K floats. */
void hxi_pack_weights_i8(const hxi_kernels *kern, const uint16_t *W, int N, int K, const float *xs,
                         float *row, int8_t *out, float *wscale, int32_t *wsum);

/* Kernel table in use (kernels.c): the one for hxi_cpu_isa(), selected on first call. Never NULL. */
const hxi_kernels *hxi_kernels_get(void);
/* Table for a given ISA, or NULL when this machine cannot run it or this build (another
 * architecture's) lacks it; for tests and benchmarks. */
const hxi_kernels *hxi_kernels_for(enum hxi_isa isa);

/* Lanes of a sum across a row ("The same bits in every table"). */
#define HX_SUM_LANES 16

/* Widest panel (nr) of any table, and the query rows the attention takes per block. */
#define HX_KERNELS_MAX_NR 64
#define HX_ATTENTION_ROWS 48
/* Floats of scratch any table's attention needs for T tokens of head width hd. */
size_t hxi_attention_scratch(int T, int hd);

/* Floats needed to hold W [N x K] packed with panel width nr. */
size_t hxi_pack_size(int N, int K, int nr);
/* Packs fp16 weights W [N x K] (row-major) into `out` (hxi_pack_size floats), converting with
 * `kern->f16_to_f32`. `row` is scratch of K floats. */
void hxi_pack_weights_f16(const hxi_kernels *kern, const uint16_t *W, int N, int K, float *row, float *out);

/* Portable binary16 -> binary32 for one value (used by the scalar table and tests). */
float hxi_half_to_float(uint16_t h);

#endif
