/* kernels_simd.h: the body of every SIMD kernel table, written once over a small vocabulary of
 * vector operations (ggml's simd-mappings.h): erf/GELU and exp, the gemm tile and its cache-blocking
 * driver, attention as two matrix products around a softmax, LayerNorm and dot. Each ISA file
 * (x86/kernels_avx2.c, x86/kernels_avx512.c, arm/kernels_neon.c) defines the vocabulary below with its
 * intrinsics, includes this header under its own compiler flags, adds its f16 conversion and fills
 * its table with KS_TABLE_KERNELS; kernels_scalar.c defines it at one lane. Only such files include
 * it; it defines static functions only.
 * The scalar table is this header at one lane (kernels_scalar.c), so attention, LayerNorm and GELU
 * give the same bits in every table (kernels.h "The same bits in every table"): write every step
 * the same way, fused or not, for every lane count, and sum across a row with ks_row_sum.
 * Interface and packed layout: kernels.h.
 *
 * The vocabulary (every name must be defined before the #include):
 *   vf, vi                     a vector of KS_VL floats, of KS_VL int32
 *   KS_VL                      lanes per vector
 *   KS_MR                      gemm tile rows, 1..12; the tile is KS_MR x KS_NR (KS_NR = 2 KS_VL,
 *                              the panel width of the table); 2 KS_MR + 3 vectors must fit the
 *                              register file
 *   KS_KC, KS_MC               gemm cache blocking: K block, row block (multiple of KS_MR)
 *   KS_PF (optional)           gemm: the tile asks for the row of B this many k ahead (a table
 *                              whose weights stream from memory faster with it defines it)
 *   vf_zero() vf_set1(x) vf_bcast(const float *p)
 *   vf_load(p) vf_store(p, v)  unaligned
 *   vf_load_n(p, n), vf_store_n(p, n, v)   lanes [0, n) only, for any int n (clamped to
 *                              0..KS_VL); other lanes read as 0 and are never touched in memory
 *   vf_add vf_sub vf_mul vf_min vf_max, vf_fma(a, b, c) = a b + c (fused)
 *   vf_abs(x), vf_signbit(x) (x with all but the sign bit cleared), vf_or(a, b) (bitwise)
 *   vf_hsum(v), vf_hmax(v)     horizontal sum and max, to float; vf_hsum halves: lane l + lane
 *                              l + KS_VL/2, then l + KS_VL/4, ..., down to lane 0 + lane 1
 *   vf_trunc_vi(x)             float to int32 toward zero;  vi_to_vf(i)
 *   vf_lut8(t, i)              lane l = t[i_l], for a float t[8] and 0 <= i_l < 8
 *   vf_round(x)                to nearest integral value (ties to even)
 *   vf_exp2i(y, n)             y * 2^n for integral n in [-126, 127], n as a vf
 */
#ifndef HX_KERNELS_SIMD_H
#define HX_KERNELS_SIMD_H

#include "kernels.h"

#include <math.h>

#define KS_INLINE static inline __attribute__((always_inline))
#define KS_NR (2 * KS_VL)

/* === Vector math: erf, GELU, exp === */

/* erf on [0, 4) as eight degree-7 polynomials in t = |x| - centre, one per interval of width 0.5
 * (Chebyshev interpolation of erf at 8 nodes per interval, computed in 40-digit arithmetic; the
 * interpolation error is below 1.2e-9, so float rounding dominates). Row j holds the coefficient
 * of t^j for the eight intervals, so one table lookup picks every lane's coefficient. Past 4, erf
 * rounds to 1 in float. */
static const float ks_erf_poly[8][8] = {
    {0.276326389f, 0.7111556334f, 0.9229001289f, 0.9866716711f, 0.9985372833f, 0.9998993781f, 0.9999956972f, 0.9999998863f},
    {1.060014129f, 0.6429310697f, 0.2365211223f, 0.05277499582f, 0.007142319065f, 0.0005862772558f, 2.918902234e-5f, 8.814314515e-7f},
    {-0.2650029543f, -0.4821981601f, -0.2956517449f, -0.0923562016f, -0.0160701569f, -0.00161226745f, -9.486933214e-5f, -3.306069537e-6f},
    {-0.3091706313f, 0.02678855698f, 0.1675358462f, 0.09015733924f, 0.02172453164f, 0.002760384241f, 0.0001958112717f, 7.969994704e-6f},
    {0.1269345213f, 0.1506756327f, -0.006132017046f, -0.0481055344f, -0.01908825667f, -0.003257709192f, -0.000286169474f, -1.378546888e-5f},
    {0.08004061905f, -0.05322369228f, -0.04718514627f, 0.006619999124f, 0.01065944706f, 0.002756164766f, 0.0003136722909f, 1.834072319e-5f},
    {-0.03934035577f, -0.02658287067f, 0.02059754525f, 0.009049599632f, -0.00277956135f, -0.001667863961f, -0.000273757964f, -2.069178432e-5f},
    {-0.01584315921f, 0.01794584586f, 0.003732251079f, -0.005947051133f, -0.0007159299336f, 0.0006369700027f, 0.0001731994452f, 1.70471955e-5f},
};

KS_INLINE vf ks_erf(vf x)
{
    vf ax = vf_min(vf_abs(x), vf_set1(3.9999998f));
    vi idx = vf_trunc_vi(vf_mul(ax, vf_set1(2.0f)));
    vf t = vf_sub(ax, vf_fma(vi_to_vf(idx), vf_set1(0.5f), vf_set1(0.25f)));
    vf p = vf_lut8(ks_erf_poly[7], idx);
    for (int j = 6; j >= 0; j--)
        p = vf_fma(p, t, vf_lut8(ks_erf_poly[j], idx));
    return vf_or(vf_min(p, vf_set1(1.0f)), vf_signbit(x));
}

/* GELU, erf form: 0.5 x (1 + erf(x / sqrt 2)), as in kernels_scalar.c. */
KS_INLINE vf ks_gelu(vf x)
{
    vf e = ks_erf(vf_mul(x, vf_set1(0.70710678118654752f)));
    return vf_mul(vf_mul(vf_set1(0.5f), x), vf_add(vf_set1(1.0f), e));
}

/* exp: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two for an exact reduction), Cephes' degree-5
 * minimax polynomial for e^r, then scaled by 2^n. Inputs are clamped to [-87.3, 88.3] so 2^n stays
 * a normal float; below that the result is ~1e-38 instead of 0. */
KS_INLINE vf ks_exp(vf x)
{
    x = vf_min(vf_max(x, vf_set1(-87.3f)), vf_set1(88.3f));
    vf n = vf_round(vf_mul(x, vf_set1(1.44269504088896341f)));
    vf r = vf_fma(n, vf_set1(-0.693359375f), x);
    r = vf_fma(n, vf_set1(2.12194440e-4f), r);
    vf y = vf_set1(1.9875691500e-4f);
    y = vf_fma(y, r, vf_set1(1.3981999507e-3f));
    y = vf_fma(y, r, vf_set1(8.3334519073e-3f));
    y = vf_fma(y, r, vf_set1(4.1665795894e-2f));
    y = vf_fma(y, r, vf_set1(1.6666665459e-1f));
    y = vf_fma(y, r, vf_set1(5.0000001201e-1f));
    y = vf_add(vf_fma(y, vf_mul(r, r), r), vf_set1(1.0f));
    return vf_exp2i(y, n);
}

/* === GEMM === */

/* GELU in place over a stored tile, still in L1. Kept out of line so that the inlined tile shapes
 * stay small. */
static void ks_gelu_rows(int rows, int cols, float *c, int ldc)
{
    for (int r = 0; r < rows; r++) {
        float *cr = c + (size_t)r * ldc;
        int j = 0;
        for (; j + KS_VL <= cols; j += KS_VL)
            vf_store(cr + j, ks_gelu(vf_load(cr + j)));
        if (j < cols)
            vf_store_n(cr + j, cols - j, ks_gelu(vf_load_n(cr + j, cols - j)));
    }
}

/* One tile: C[0..rows)[0..cols) (+)= A[0..rows)[0..kc) * B[0..kc)[0..KS_NR), rows of B ldb apart.
 * The first K block starts from the bias (or zero), later ones from C; the last one applies GELU
 * when asked. Columns at or past `cols` are computed from B (which must be readable there) but
 * never loaded from or stored to C. `rows` is a compile-time constant at every call, so the row
 * branches fold away. With `pairs` a tile of one or two rows sums the odd k in chains of their own
 * (faster, but its bits then depend on which rows fall in such tiles: on KS_MR); without, every
 * element is one FMA chain in k order whatever the table. */
KS_INLINE void ks_tile(int rows, int cols, int kc, const float *a, int lda, const float *b, int ldb,
                       const float *bias, int first, int gelu, float *c, int ldc, int pairs)
{
    const int full = cols == KS_NR, c1 = cols - KS_VL;
    vf c0_0, c0_1, c1_0, c1_1, c2_0, c2_1, c3_0, c3_1, c4_0, c4_1, c5_0, c5_1, c6_0, c6_1,
       c7_0, c7_1, c8_0, c8_1, c9_0, c9_1, c10_0, c10_1, c11_0, c11_1;
    vf b0 = vf_zero(), b1 = vf_zero();
    if (first && bias) {
        b0 = full ? vf_load(bias) : vf_load_n(bias, cols);
        b1 = full ? vf_load(bias + KS_VL) : vf_load_n(bias + KS_VL, c1);
    }
#define KS_INIT_C(r)                                                                   \
    if (rows > r) {                                                                    \
        const float *cr = c + (size_t)(r) * ldc;                                       \
        c##r##_0 = first ? b0 : full ? vf_load(cr) : vf_load_n(cr, cols);              \
        c##r##_1 = first ? b1 : full ? vf_load(cr + KS_VL) : vf_load_n(cr + KS_VL, c1); \
    }
    KS_INIT_C(0) KS_INIT_C(1) KS_INIT_C(2) KS_INIT_C(3) KS_INIT_C(4) KS_INIT_C(5)
    KS_INIT_C(6) KS_INIT_C(7) KS_INIT_C(8) KS_INIT_C(9) KS_INIT_C(10) KS_INIT_C(11)
#undef KS_INIT_C

    int k = 0;
    if (rows <= 2 && pairs) {   /* too few chains to cover FMA latency: a second set takes the odd k */
        vf d0_0 = vf_zero(), d0_1 = d0_0, d1_0 = d0_0, d1_1 = d0_0;
        for (; k + 2 <= kc; k += 2) {
            const float *bk = b + (size_t)k * ldb;
            vf bk0 = vf_load(bk), bk1 = vf_load(bk + KS_VL);
            vf bn0 = vf_load(bk + ldb), bn1 = vf_load(bk + ldb + KS_VL);   /* row k + 1 */
            vf x;
#define KS_FMA_ROW2(r)                                              \
            if (rows > r) {                                         \
                x = vf_bcast(a + (size_t)(r) * lda + k);            \
                c##r##_0 = vf_fma(x, bk0, c##r##_0);                \
                c##r##_1 = vf_fma(x, bk1, c##r##_1);                \
                x = vf_bcast(a + (size_t)(r) * lda + k + 1);        \
                d##r##_0 = vf_fma(x, bn0, d##r##_0);                \
                d##r##_1 = vf_fma(x, bn1, d##r##_1);                \
            }
            KS_FMA_ROW2(0) KS_FMA_ROW2(1)
#undef KS_FMA_ROW2
        }
        if (rows > 0)
            c0_0 = vf_add(c0_0, d0_0), c0_1 = vf_add(c0_1, d0_1);
        if (rows > 1)
            c1_0 = vf_add(c1_0, d1_0), c1_1 = vf_add(c1_1, d1_1);
    }
    for (; k < kc; k++) {
        const float *bk = b + (size_t)k * ldb;
#ifdef KS_PF
        __builtin_prefetch(bk + KS_PF * ldb);
#endif
        vf bk0 = vf_load(bk), bk1 = vf_load(bk + KS_VL);
        vf x;
#define KS_FMA_ROW(r)                                               \
        if (rows > r) {                                             \
            x = vf_bcast(a + (size_t)(r) * lda + k);                \
            c##r##_0 = vf_fma(x, bk0, c##r##_0);                    \
            c##r##_1 = vf_fma(x, bk1, c##r##_1);                    \
        }
        KS_FMA_ROW(0) KS_FMA_ROW(1) KS_FMA_ROW(2) KS_FMA_ROW(3) KS_FMA_ROW(4) KS_FMA_ROW(5)
        KS_FMA_ROW(6) KS_FMA_ROW(7) KS_FMA_ROW(8) KS_FMA_ROW(9) KS_FMA_ROW(10) KS_FMA_ROW(11)
#undef KS_FMA_ROW
    }

#define KS_STORE_C(r)                                                                  \
    if (rows > r) {                                                                    \
        float *cr = c + (size_t)(r) * ldc;                                             \
        if (full) {                                                                    \
            vf_store(cr, c##r##_0);                                                    \
            vf_store(cr + KS_VL, c##r##_1);                                            \
        } else {                                                                       \
            vf_store_n(cr, cols, c##r##_0);                                            \
            vf_store_n(cr + KS_VL, c1, c##r##_1);                                      \
        }                                                                              \
    }
    KS_STORE_C(0) KS_STORE_C(1) KS_STORE_C(2) KS_STORE_C(3) KS_STORE_C(4) KS_STORE_C(5)
    KS_STORE_C(6) KS_STORE_C(7) KS_STORE_C(8) KS_STORE_C(9) KS_STORE_C(10) KS_STORE_C(11)
#undef KS_STORE_C
    if (gelu)
        ks_gelu_rows(rows, cols, c, ldc);
}

/* The tiles of rows [i, i1) at one column block (HX_ROW_TILES). */
KS_INLINE void ks_tile_rows(int i, int i1, int cols, int kc, const float *A, int lda, const float *b,
                            int ldb, const float *bias, int first, int gelu, float *C, int ldc, int pairs)
{
#define KS_TILE(R) ks_tile(R, cols, kc, A + (size_t)i * lda, lda, b, ldb, bias, first, gelu, \
                           C + (size_t)i * ldc, ldc, pairs)
    HX_ROW_TILES(i, i1, KS_MR, KS_TILE);
#undef KS_TILE
}

/* C[i][j] = sum_k A[i][k] B[k][j] + bias[j] for i < M, n0 <= j < n1 (n0 a multiple of KS_NR), GELU
 * when asked. B is read in column blocks of KS_NR: block j / KS_NR starts at B + (j / KS_NR) *
 * bstep, and its rows are ldb apart; every block must be readable for KS_NR columns. Packed
 * weights are bstep = KS_NR K, ldb = KS_NR; a row-major matrix is bstep = KS_NR, ldb = its stride.
 * `pairs`: ks_tile's. */
static void ks_gemm(int M, int n0, int n1, int K, const float *A, int lda, const float *B, size_t bstep,
                    int ldb, const float *bias, float *C, int ldc, int gelu, int pairs)
{
    /* K blocks keep a block of B in L1 for the row tiles after the first; up to KS_MR rows there
     * are few of those, and B is better read as one stream per panel (a short query reads every
     * weight once). */
    const int kc_max = M <= KS_MR ? K : KS_KC;
    for (int i0 = 0; i0 < M; i0 += KS_MC) {   /* row block outermost: its C stays in cache over K */
        const int i1 = M - i0 < KS_MC ? M : i0 + KS_MC;
        int k0 = 0;
        do {   /* runs once even for K = 0, so C still gets bias and GELU */
            const int kc = K - k0 < kc_max ? K - k0 : kc_max, first = k0 == 0, last = k0 + kc >= K;
            for (int j = n0; j < n1; j += KS_NR) {
                const int cols = n1 - j < KS_NR ? n1 - j : KS_NR;
                const float *b = B + (size_t)(j / KS_NR) * bstep + (size_t)k0 * ldb;
                ks_tile_rows(i0, i1, cols, kc, A + k0, lda, b, ldb, bias ? bias + j : NULL, first,
                             gelu && last, C + j, ldc, pairs);
            }
            k0 += kc;
        } while (k0 < K);
    }
}

/* The table's gemm (kernels.h): B packed in panels of KS_NR. (The scalar table has its own.) */
static __attribute__((unused)) void ks_gemm_packed(int M, int n0, int n1, int K, const float *A, int lda,
                                                   const float *Bp, const float *bias, float *C, int ldc, int gelu)
{
    ks_gemm(M, n0, n1, K, A, lda, Bp, (size_t)KS_NR * (size_t)K, KS_NR, bias, C, ldc, gelu, 1);
}

/* === Dot, LayerNorm === */

static __attribute__((unused)) float ks_dot(const float *a, const float *b, size_t n)   /* not scalar's */
{
    vf s0 = vf_zero(), s1 = vf_zero(), s2 = vf_zero(), s3 = vf_zero();
    size_t i = 0;
    for (; i + 4 * KS_VL <= n; i += 4 * KS_VL) {
        s0 = vf_fma(vf_load(a + i), vf_load(b + i), s0);
        s1 = vf_fma(vf_load(a + i + KS_VL), vf_load(b + i + KS_VL), s1);
        s2 = vf_fma(vf_load(a + i + 2 * KS_VL), vf_load(b + i + 2 * KS_VL), s2);
        s3 = vf_fma(vf_load(a + i + 3 * KS_VL), vf_load(b + i + 3 * KS_VL), s3);
    }
    for (; i + KS_VL <= n; i += KS_VL)
        s0 = vf_fma(vf_load(a + i), vf_load(b + i), s0);
    if (i < n) {
        int m = (int)(n - i);
        s1 = vf_fma(vf_load_n(a + i, m), vf_load_n(b + i, m), s1);
    }
    return vf_hsum(vf_add(vf_add(s0, s1), vf_add(s2, s3)));
}

static const float ks_ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};   /* KS_VL <= 16 */

/* Vectors per HX_SUM_LANES lanes. */
#define KS_SL (HX_SUM_LANES / KS_VL)

/* Sum of x[0..n) (squares = 0) or of (x[j] - mean)^2, each fused into its lane's sum (squares =
 * 1), in HX_SUM_LANES lanes halved to one (kernels.h "The same bits in every table"); lanes past n
 * add 0. */
KS_INLINE float ks_row_sum(const float *x, int n, float mean, int squares)
{
    vf acc[KS_SL];
    for (int t = 0; t < KS_SL; t++)
        acc[t] = vf_zero();
    const vf vmean = vf_set1(mean);
    for (int i = 0; i < n; i += HX_SUM_LANES)
        for (int t = 0; t < KS_SL; t++) {
            const int at = i + t * KS_VL, left = n - at;
            vf v = left >= KS_VL ? vf_load(x + at) : vf_load_n(x + at, left);
            if (squares) {
                v = vf_sub(v, left >= KS_VL ? vmean : vf_mul(vmean, vf_load_n(ks_ones, left)));
                acc[t] = vf_fma(v, v, acc[t]);
            } else {
                acc[t] = vf_add(acc[t], v);
            }
        }
    for (int w = KS_SL / 2; w >= 1; w /= 2)   /* lane l + lane l + w KS_VL, down to one vector */
        for (int t = 0; t < w; t++)
            acc[t] = vf_add(acc[t], acc[t + w]);
    return vf_hsum(acc[0]);
}

static void ks_add_layernorm(int rows, int dim, float *x, int ldx, const float *res, int ldr,
                             const float *w, const float *b, float eps)
{
    for (int r = 0; r < rows; r++) {
        float *xr = x + (size_t)r * ldx;
        const float *rr = res + (size_t)r * ldr;
        int i = 0;
        for (; i + KS_VL <= dim; i += KS_VL)
            vf_store(xr + i, vf_add(vf_load(xr + i), vf_load(rr + i)));
        if (i < dim)
            vf_store_n(xr + i, dim - i, vf_add(vf_load_n(xr + i, dim - i), vf_load_n(rr + i, dim - i)));
        const float mean = ks_row_sum(xr, dim, 0, 0) / (float)dim;
        const float var = ks_row_sum(xr, dim, mean, 1);
        const float inv = 1.0f / sqrtf(var / (float)dim + eps);
        const vf vmean = vf_set1(mean), vinv = vf_set1(inv);
        for (i = 0; i < dim; i += KS_VL) {
            const int n = dim - i;
            if (n >= KS_VL) {
                vf y = vf_mul(vf_sub(vf_load(xr + i), vmean), vinv);
                vf_store(xr + i, vf_fma(y, vf_load(w + i), vf_load(b + i)));
            } else {
                vf y = vf_mul(vf_sub(vf_load_n(xr + i, n), vmean), vinv);
                vf_store_n(xr + i, n, vf_fma(y, vf_load_n(w + i, n), vf_load_n(b + i, n)));
            }
        }
    }
}

/* === Attention === */

/* Row r of s (Tp scores, T of them real, Tp a multiple of KS_VL) becomes e^(scale s - max) in place,
 * max over the row's first T of scale s, and 0 past T; returns 1 / (sum of the row). The scaling is
 * fused into the exponent's argument (one pass finds the max, one writes), so the row is stored
 * once, whole vectors only (a masked store is slow on some cores, and short rows are mostly tail),
 * then summed (ks_row_sum, still in L1). */
static float ks_softmax_row(int T, int Tp, float *s, float scale)
{
    const vf vscale = vf_set1(scale);
    vf vmax = vf_set1(-INFINITY);
    int j = 0;
    for (; j + KS_VL <= T; j += KS_VL)
        vmax = vf_max(vmax, vf_mul(vf_load(s + j), vscale));
    float max = vf_hmax(vmax);
    for (; j < T; j++)
        max = s[j] * scale > max ? s[j] * scale : max;
    const vf vm = vf_set1(-max);
    for (j = 0; j < Tp; j += KS_VL) {
        vf e = ks_exp(vf_fma(vf_load(s + j), vscale, vm));
        if (j + KS_VL > T)   /* lanes at or past T: 0, kept out of the sum and of P V */
            e = vf_mul(e, vf_load_n(ks_ones, T - j));
        vf_store(s + j, e);
    }
    return 1.0f / ks_row_sum(s, T, 0, 0);
}

/* s[j] = scale * s[j] + rel[j] for j < T (a row of scores with its relative attention bias, rel
 * pointing at the bias of key 0); returns s. */
static float *ks_add_rel(int T, float *s, float scale, const float *rel)
{
    const vf vscale = vf_set1(scale);
    int j = 0;
    for (; j + KS_VL <= T; j += KS_VL)
        vf_store(s + j, vf_fma(vf_load(s + j), vscale, vf_load(rel + j)));
    if (j < T)   /* fused as the whole vectors are */
        vf_store_n(s + j, T - j, vf_fma(vf_load_n(s + j, T - j), vscale, vf_load_n(rel + j, T - j)));
    return s;
}

/* Up to this many rows of V are read in place by P V (when hd fills whole panels): so few rows at
 * a stride of ld floats stay in L1 whatever sets they map to, and a short sequence skips the copy. */
#define KS_V_IN_PLACE 32

/* One head of one sequence (kernels.h) as matrix products, a block of HX_ATTENTION_ROWS queries at
 * a time: S = Q K^T by the gemm tile against K transposed into scratch, over whole panels of keys
 * (the padding keys are zero, and softmax gives them weight 0), so every tile and softmax store is
 * a whole vector; softmax of each row of S; O = P V by the gemm tile reading a contiguous copy of
 * V (zero-padded to whole panels), each row of O scaled by its softmax 1 / sum. K and V are read
 * row by row: their rows lie ld floats apart (3 x hidden in the encoder), a stride that maps a
 * column walk onto a few L1 sets; a short sequence's V is read in place (KS_V_IN_PLACE). Scratch:
 * hxi_attention_scratch(T, hd). */
static void ks_attention(int T, int hd, const float *q, const float *k, const float *v, int ld,
                         float *out, int ldo, float scale, const float *rel, float *scratch)
{
    const int Tp = (T + KS_NR - 1) / KS_NR * KS_NR, hdp = (hd + KS_NR - 1) / KS_NR * KS_NR;
    const int copy_v = T > KS_V_IN_PLACE || hd != hdp;
    float *kt = scratch;                                   /* [hd x Tp]: K^T, zero past T */
    float *s = kt + (size_t)hd * Tp;                       /* [HX_ATTENTION_ROWS x Tp] scores */
    float *inv = s + (size_t)HX_ATTENTION_ROWS * Tp;       /* [HX_ATTENTION_ROWS] 1 / row sums */
    float *vb = inv + HX_ATTENTION_ROWS;                   /* [T x hdp]: V, zero past hd */
    /* The head's rows were written by the QKV gemm and have mostly left L2 since; asking for all
     * their lines at once overlaps the misses that the element-wise transposition would take one
     * row at a time (they were 3/4 of a 12-token head's time). */
    for (int j = 0; j < T && j < KS_V_IN_PLACE; j++)
        for (int d = 0; d < hd; d += 64 / (int)sizeof(float)) {
            __builtin_prefetch(q + (size_t)j * ld + d);
            __builtin_prefetch(k + (size_t)j * ld + d);
            __builtin_prefetch(v + (size_t)j * ld + d);
        }
    for (int j = 0; j < T; j++) {
        const float *kj = k + (size_t)j * ld, *vj = v + (size_t)j * ld;
        for (int d = 0; d < hd; d++)
            kt[(size_t)d * Tp + j] = kj[d];
        if (!copy_v)
            continue;
        float *vr = vb + (size_t)j * hdp;
        int d = 0;
        for (; d + KS_VL <= hd; d += KS_VL)
            vf_store(vr + d, vf_load(vj + d));
        for (; d < hdp; d += KS_VL)   /* lanes past hd load as 0 */
            vf_store(vr + d, d < hd ? vf_load_n(vj + d, hd - d) : vf_zero());
    }
    for (int d = 0; d < hd; d++)
        for (int j = T; j < Tp; j++)
            kt[(size_t)d * Tp + j] = 0;
    for (int i0 = 0; i0 < T; i0 += HX_ATTENTION_ROWS) {
        const int rows = T - i0 < HX_ATTENTION_ROWS ? T - i0 : HX_ATTENTION_ROWS;
        ks_gemm(rows, 0, Tp, hd, q + (size_t)i0 * ld, ld, kt, KS_NR, Tp, NULL, s, Tp, 0, 0);
        for (int r = 0; r < rows; r++)
            inv[r] = rel ? ks_softmax_row(T, Tp, ks_add_rel(T, s + (size_t)r * Tp, scale, rel - (i0 + r)), 1.0f)
                         : ks_softmax_row(T, Tp, s + (size_t)r * Tp, scale);
        float *o = out + (size_t)i0 * ldo;
        ks_gemm(rows, 0, hd, T, s, Tp, copy_v ? vb : v, KS_NR, copy_v ? hdp : ld, NULL, o, ldo, 0, 0);
        for (int r = 0; r < rows; r++) {
            float *orow = o + (size_t)r * ldo;
            const vf scale_r = vf_set1(inv[r]);
            int d = 0;
            for (; d + KS_VL <= hd; d += KS_VL)
                vf_store(orow + d, vf_mul(vf_load(orow + d), scale_r));
            if (d < hd)
                vf_store_n(orow + d, hd - d, vf_mul(vf_load_n(orow + d, hd - d), scale_r));
        }
    }
}

/* The table entries this header provides, for an ISA file's table initialiser. */
#define KS_TABLE_KERNELS                 \
    .nr = KS_NR,                         \
    .gemm = ks_gemm_packed,              \
    .attention = ks_attention,           \
    .add_layernorm = ks_add_layernorm,   \
    .dot = ks_dot,                       \
    .gelu = ks_gelu_rows

#endif
