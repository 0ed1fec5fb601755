/* kernels_avx512.c: the AVX-512 (F, BW, VL, DQ) + FMA + F16C kernel table hx_kernels_avx512
 * (interface and packed-weight layout in kernels.h, reference semantics in kernels_scalar.c, tests
 * in tests/test_kernels.c). Built with its ISA's flags only; cpu.c hands it out only when allowed. */
#include "kernels.h"

#include <immintrin.h>
#include <math.h>

#define HX_INLINE static inline __attribute__((always_inline))

/* === Vector math: erf and exp === */

/* erf on [0, 4): the eight degree-7 interval polynomials of kernels_avx2.c (see there for how they
 * were made). Row j holds the coefficient of t^j per interval; vpermps picks each lane's. */
static const float erf_poly[8][8] = {
    {0.276326389f, 0.7111556334f, 0.9229001289f, 0.9866716711f, 0.9985372833f, 0.9998993781f, 0.9999956972f, 0.9999998863f},
    {1.060014129f, 0.6429310697f, 0.2365211223f, 0.05277499582f, 0.007142319065f, 0.0005862772558f, 2.918902234e-5f, 8.814314515e-7f},
    {-0.2650029543f, -0.4821981601f, -0.2956517449f, -0.0923562016f, -0.0160701569f, -0.00161226745f, -9.486933214e-5f, -3.306069537e-6f},
    {-0.3091706313f, 0.02678855698f, 0.1675358462f, 0.09015733924f, 0.02172453164f, 0.002760384241f, 0.0001958112717f, 7.969994704e-6f},
    {0.1269345213f, 0.1506756327f, -0.006132017046f, -0.0481055344f, -0.01908825667f, -0.003257709192f, -0.000286169474f, -1.378546888e-5f},
    {0.08004061905f, -0.05322369228f, -0.04718514627f, 0.006619999124f, 0.01065944706f, 0.002756164766f, 0.0003136722909f, 1.834072319e-5f},
    {-0.03934035577f, -0.02658287067f, 0.02059754525f, 0.009049599632f, -0.00277956135f, -0.001667863961f, -0.000273757964f, -2.069178432e-5f},
    {-0.01584315921f, 0.01794584586f, 0.003732251079f, -0.005947051133f, -0.0007159299336f, 0.0006369700027f, 0.0001731994452f, 1.70471955e-5f},
};

HX_INLINE __m512 erf16(__m512 x)
{
    const __m512 signbit = _mm512_set1_ps(-0.0f);
    __m512 sign = _mm512_and_ps(x, signbit);
    __m512 ax = _mm512_min_ps(_mm512_andnot_ps(signbit, x), _mm512_set1_ps(3.9999998f));
    __m512i idx = _mm512_cvttps_epi32(_mm512_mul_ps(ax, _mm512_set1_ps(2.0f)));
    __m512 centre = _mm512_fmadd_ps(_mm512_cvtepi32_ps(idx), _mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
    __m512 t = _mm512_sub_ps(ax, centre);
#define COEF(j) _mm512_permutexvar_ps(idx, _mm512_broadcast_f32x8(_mm256_loadu_ps(erf_poly[j])))
    __m512 p = COEF(7);
    for (int j = 6; j >= 0; j--)
        p = _mm512_fmadd_ps(p, t, COEF(j));
#undef COEF
    return _mm512_or_ps(_mm512_min_ps(p, _mm512_set1_ps(1.0f)), sign);
}

/* GELU, erf form: 0.5 x (1 + erf(x / sqrt 2)), as in kernels_scalar.c. */
HX_INLINE __m512 gelu16(__m512 x)
{
    __m512 e = erf16(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f)));
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

/* exp: the reduction and Cephes polynomial of kernels_avx2.c, scaled by 2^n with vscalefps. */
HX_INLINE __m512 exp16(__m512 x)
{
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.3f)), _mm512_set1_ps(88.3f));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 y = _mm512_set1_ps(1.9875691500e-4f);
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.3981999507e-3f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073e-3f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894e-2f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459e-1f));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201e-1f));
    y = _mm512_add_ps(_mm512_fmadd_ps(y, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(y, n);
}

/* Lanes [0, n) of a 16-lane mask, for any n (clamped to 0..16). */
HX_INLINE __mmask16 lanes_below(int n)
{
    return n <= 0 ? 0 : n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1);
}

/* Lanes [0, n) of an 8-lane int mask for the 256-bit paths, n clamped to 0..8. */
HX_INLINE __m256i lanes_below8(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* === GEMM === */

#define NR 32   /* panel width: two zmm per row of a tile */
#define MR 12   /* tile rows: 24 accumulators + 2 B vectors + 1 broadcast fit the 32 zmm */
#define KC 192  /* K block: a KC x NR sub-panel of B (24 KiB) stays in L1 across a row block */
#define MC 96   /* rows per row block: MC x KC of A (72 KiB) stays in L2 across the panels */

/* GELU in place over a stored tile, still in L1. Kept out of line so that the inlined tile shapes
 * stay small. */
static void gelu_tile(int rows, int cols, float *c, int ldc)
{
    for (int r = 0; r < rows; r++) {
        float *cr = c + (size_t)r * ldc;
        for (int j = 0; j < cols; j += 16) {
            __mmask16 m = lanes_below(cols - j);
            _mm512_mask_storeu_ps(cr + j, m, gelu16(_mm512_maskz_loadu_ps(m, cr + j)));
        }
    }
}

/* One tile: C[0..rows)[0..cols) (+)= A[0..rows)[0..kc) * B sub-panel; as in kernels_avx2.c the
 * first K block starts from the bias, later ones from C, the last applies GELU when asked, and
 * columns at or past `cols` are never loaded or stored. `rows` is a compile-time constant. */
HX_INLINE void gemm_tile(int rows, int cols, int kc, const float *a, int lda, const float *b,
                         const float *bias, int first, int gelu, float *c, int ldc)
{
    const __mmask16 m0 = lanes_below(cols), m1 = lanes_below(cols - 16);
    __m512 c0_0, c0_1, c1_0, c1_1, c2_0, c2_1, c3_0, c3_1, c4_0, c4_1, c5_0, c5_1, c6_0, c6_1,
           c7_0, c7_1, c8_0, c8_1, c9_0, c9_1, c10_0, c10_1, c11_0, c11_1;
    if (first) {
        __m512 b0 = _mm512_setzero_ps(), b1 = _mm512_setzero_ps();
        if (bias) {
            b0 = _mm512_maskz_loadu_ps(m0, bias);
            b1 = _mm512_maskz_loadu_ps(m1, bias + 16);
        }
        c0_0 = c1_0 = c2_0 = c3_0 = c4_0 = c5_0 = c6_0 = c7_0 = c8_0 = c9_0 = c10_0 = c11_0 = b0;
        c0_1 = c1_1 = c2_1 = c3_1 = c4_1 = c5_1 = c6_1 = c7_1 = c8_1 = c9_1 = c10_1 = c11_1 = b1;
    } else {
        c0_0 = c1_0 = c2_0 = c3_0 = c4_0 = c5_0 = c6_0 = c7_0 = c8_0 = c9_0 = c10_0 = c11_0 =
            c0_1 = c1_1 = c2_1 = c3_1 = c4_1 = c5_1 = c6_1 = c7_1 = c8_1 = c9_1 = c10_1 = c11_1 =
                _mm512_setzero_ps();
#define LOAD_C(r)                                                       \
        if (rows > r) {                                                 \
            const float *cr = c + (size_t)(r) * ldc;                    \
            c##r##_0 = _mm512_maskz_loadu_ps(m0, cr);                   \
            c##r##_1 = _mm512_maskz_loadu_ps(m1, cr + 16);              \
        }
        LOAD_C(0) LOAD_C(1) LOAD_C(2) LOAD_C(3) LOAD_C(4) LOAD_C(5)
        LOAD_C(6) LOAD_C(7) LOAD_C(8) LOAD_C(9) LOAD_C(10) LOAD_C(11)
#undef LOAD_C
    }

    int k = 0;
    if (rows <= 2) {   /* too few chains to cover FMA latency: a second set takes the odd k */
        __m512 d0_0 = _mm512_setzero_ps(), d0_1 = d0_0, d1_0 = d0_0, d1_1 = d0_0;
        for (; k + 2 <= kc; k += 2) {
            const float *bk = b + (size_t)k * NR;
            __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
            __m512 b2 = _mm512_loadu_ps(bk + 32), b3 = _mm512_loadu_ps(bk + 48);   /* row k + 1 */
            __m512 x;
#define FMA_ROW2(r)                                                 \
            if (rows > r) {                                         \
                x = _mm512_set1_ps(a[(size_t)(r) * lda + k]);       \
                c##r##_0 = _mm512_fmadd_ps(x, b0, c##r##_0);        \
                c##r##_1 = _mm512_fmadd_ps(x, b1, c##r##_1);        \
                x = _mm512_set1_ps(a[(size_t)(r) * lda + k + 1]);   \
                d##r##_0 = _mm512_fmadd_ps(x, b2, d##r##_0);        \
                d##r##_1 = _mm512_fmadd_ps(x, b3, d##r##_1);        \
            }
            FMA_ROW2(0) FMA_ROW2(1)
#undef FMA_ROW2
        }
        c0_0 = _mm512_add_ps(c0_0, d0_0), c0_1 = _mm512_add_ps(c0_1, d0_1);
        c1_0 = _mm512_add_ps(c1_0, d1_0), c1_1 = _mm512_add_ps(c1_1, d1_1);
    }
    for (; k < kc; k++) {
        __m512 b0 = _mm512_loadu_ps(b + (size_t)k * NR), b1 = _mm512_loadu_ps(b + (size_t)k * NR + 16);
        __m512 x;
#define FMA_ROW(r)                                              \
        if (rows > r) {                                         \
            x = _mm512_set1_ps(a[(size_t)(r) * lda + k]);       \
            c##r##_0 = _mm512_fmadd_ps(x, b0, c##r##_0);        \
            c##r##_1 = _mm512_fmadd_ps(x, b1, c##r##_1);        \
        }
        FMA_ROW(0) FMA_ROW(1) FMA_ROW(2) FMA_ROW(3) FMA_ROW(4) FMA_ROW(5)
        FMA_ROW(6) FMA_ROW(7) FMA_ROW(8) FMA_ROW(9) FMA_ROW(10) FMA_ROW(11)
#undef FMA_ROW
    }

#define STORE_C(r)                                                      \
    if (rows > r) {                                                     \
        float *cr = c + (size_t)(r) * ldc;                              \
        _mm512_mask_storeu_ps(cr, m0, c##r##_0);                        \
        _mm512_mask_storeu_ps(cr + 16, m1, c##r##_1);                   \
    }
    STORE_C(0) STORE_C(1) STORE_C(2) STORE_C(3) STORE_C(4) STORE_C(5)
    STORE_C(6) STORE_C(7) STORE_C(8) STORE_C(9) STORE_C(10) STORE_C(11)
#undef STORE_C
    if (gelu)
        gelu_tile(rows, cols, c, ldc);
}

static void gemm_avx512(int M, int n0, int n1, int K, const float *A, int lda, const float *Bp,
                        const float *bias, float *C, int ldc, int gelu)
{
    for (int i0 = 0; i0 < M; i0 += MC) {   /* row block outermost: its C stays in cache over K */
        const int i1 = M - i0 < MC ? M : i0 + MC;
        int k0 = 0;
        do {   /* runs once even for K = 0, so C still gets bias and GELU */
            const int kc = K - k0 < KC ? K - k0 : KC, first = k0 == 0, last = k0 + kc >= K;
            for (int j = n0; j < n1; j += NR) {
                const int cols = n1 - j < NR ? n1 - j : NR;
                const float *b = Bp + (size_t)(j / NR) * NR * K + (size_t)k0 * NR;
                const float *bj = bias ? bias + j : NULL;
                const int g = gelu && last;
                int i = i0;
                for (; i + MR <= i1; i += MR)
                    gemm_tile(MR, cols, kc, A + (size_t)i * lda + k0, lda, b, bj, first, g,
                              C + (size_t)i * ldc + j, ldc);
                /* the rows left over, as a sum of smaller tiles: fewer inlined shapes */
                if (i1 - i >= 8) {
                    gemm_tile(8, cols, kc, A + (size_t)i * lda + k0, lda, b, bj, first, g,
                              C + (size_t)i * ldc + j, ldc);
                    i += 8;
                }
                if (i1 - i >= 4) {
                    gemm_tile(4, cols, kc, A + (size_t)i * lda + k0, lda, b, bj, first, g,
                              C + (size_t)i * ldc + j, ldc);
                    i += 4;
                }
                if (i1 - i >= 2) {
                    gemm_tile(2, cols, kc, A + (size_t)i * lda + k0, lda, b, bj, first, g,
                              C + (size_t)i * ldc + j, ldc);
                    i += 2;
                }
                if (i1 - i >= 1) {
                    gemm_tile(1, cols, kc, A + (size_t)i * lda + k0, lda, b, bj, first, g,
                              C + (size_t)i * ldc + j, ldc);
                }
            }
            k0 += kc;
        } while (k0 < K);
    }
}

/* === Dot, attention === */

static float dot_avx512(const float *a, const float *b, size_t n)
{
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps(), s2 = _mm512_setzero_ps(),
           s3 = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
        s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
        s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(b + i + 32), s2);
        s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(b + i + 48), s3);
    }
    for (; i + 16 <= n; i += 16)
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    if (i < n) {
        __mmask16 m = lanes_below((int)(n - i));
        s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s1);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

/* Scores of query q against the 8 key rows at k (ld apart): lane r = q . k[r]. 256-bit, since a
 * 32-wide head is only two zmm and the 8-row transpose-and-add is cheapest on ymm. */
HX_INLINE __m256 dot8_rows(const float *q, const float *k, int ld, int hd)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    const float *k0 = k, *k1 = k0 + ld, *k2 = k1 + ld, *k3 = k2 + ld, *k4 = k3 + ld, *k5 = k4 + ld,
                *k6 = k5 + ld, *k7 = k6 + ld;
#define KEY_FMA(r, LOAD) s##r = _mm256_fmadd_ps(qd, LOAD(k##r + d), s##r);
#define KEYS_FMA(LOAD) KEY_FMA(0, LOAD) KEY_FMA(1, LOAD) KEY_FMA(2, LOAD) KEY_FMA(3, LOAD) \
                       KEY_FMA(4, LOAD) KEY_FMA(5, LOAD) KEY_FMA(6, LOAD) KEY_FMA(7, LOAD)
    int d = 0;
    for (; d + 8 <= hd; d += 8) {
        __m256 qd = _mm256_loadu_ps(q + d);
        KEYS_FMA(_mm256_loadu_ps)
    }
    if (d < hd) {
        const __m256i m = lanes_below8(hd - d);
#define MASKED_LOAD(p) _mm256_maskload_ps(p, m)
        __m256 qd = MASKED_LOAD(q + d);
        KEYS_FMA(MASKED_LOAD)
#undef MASKED_LOAD
    }
#undef KEYS_FMA
#undef KEY_FMA
    __m256 t0 = _mm256_hadd_ps(_mm256_hadd_ps(s0, s1), _mm256_hadd_ps(s2, s3));
    __m256 t1 = _mm256_hadd_ps(_mm256_hadd_ps(s4, s5), _mm256_hadd_ps(s6, s7));
    return _mm256_add_ps(_mm256_permute2f128_ps(t0, t1, 0x20), _mm256_permute2f128_ps(t0, t1, 0x31));
}

/* out[0..w) = inv * sum_j p[j] v[j][0..w), w <= 32, rows of v ld apart. */
HX_INLINE void weighted_rows(int T, int w, const float *p, const float *v, int ld, float inv, float *out)
{
    const __mmask16 m0 = lanes_below(w), m1 = lanes_below(w - 16);
    /* four phases of j into separate sums: eight FMA chains cover the latency */
    __m512 o0 = _mm512_setzero_ps(), o1 = o0, e0 = o0, e1 = o0, f0 = o0, f1 = o0, g0 = o0, g1 = o0;
    int j = 0;
#define ROW_FMA(acc0, acc1, jj, LOAD)                                                       \
    do {                                                                                    \
        __m512 pj = _mm512_set1_ps(p[jj]);                                                  \
        const float *vj = v + (size_t)(jj) * ld;                                            \
        acc0 = _mm512_fmadd_ps(pj, LOAD(m0, vj), acc0);                                     \
        acc1 = _mm512_fmadd_ps(pj, LOAD(m1, vj + 16), acc1);                                \
    } while (0)
#define FULL_LOAD(m, ptr) _mm512_loadu_ps(ptr)
    if (w == 32) {
        for (; j + 4 <= T; j += 4) {
            ROW_FMA(o0, o1, j, FULL_LOAD);
            ROW_FMA(e0, e1, j + 1, FULL_LOAD);
            ROW_FMA(f0, f1, j + 2, FULL_LOAD);
            ROW_FMA(g0, g1, j + 3, FULL_LOAD);
        }
        for (; j < T; j++)
            ROW_FMA(o0, o1, j, FULL_LOAD);
    } else {
        for (; j + 4 <= T; j += 4) {
            ROW_FMA(o0, o1, j, _mm512_maskz_loadu_ps);
            ROW_FMA(e0, e1, j + 1, _mm512_maskz_loadu_ps);
            ROW_FMA(f0, f1, j + 2, _mm512_maskz_loadu_ps);
            ROW_FMA(g0, g1, j + 3, _mm512_maskz_loadu_ps);
        }
        for (; j < T; j++)
            ROW_FMA(o0, o1, j, _mm512_maskz_loadu_ps);
    }
#undef FULL_LOAD
#undef ROW_FMA
    o0 = _mm512_add_ps(_mm512_add_ps(o0, e0), _mm512_add_ps(f0, g0));
    o1 = _mm512_add_ps(_mm512_add_ps(o1, e1), _mm512_add_ps(f1, g1));
    __m512 s = _mm512_set1_ps(inv);
    _mm512_mask_storeu_ps(out, m0, _mm512_mul_ps(o0, s));
    _mm512_mask_storeu_ps(out + 16, m1, _mm512_mul_ps(o1, s));
}

static void attention_avx512(int T, int hd, const float *q, const float *k, const float *v, int ld,
                             float *out, int ldo, float scale, float *scratch)
{
    const __m256 vscale = _mm256_set1_ps(scale);
    for (int i = 0; i < T; i++) {
        const float *qi = q + (size_t)i * ld;
        int j = 0;
        for (; j + 8 <= T; j += 8)
            _mm256_storeu_ps(scratch + j,
                             _mm256_mul_ps(vscale, dot8_rows(qi, k + (size_t)j * ld, ld, hd)));
        for (; j < T; j++)
            scratch[j] = scale * dot_avx512(qi, k + (size_t)j * ld, (size_t)hd);

        __m512 vmax = _mm512_set1_ps(-INFINITY);
        for (j = 0; j < T; j += 16) {
            __mmask16 m = lanes_below(T - j);
            vmax = _mm512_mask_max_ps(vmax, m, vmax, _mm512_maskz_loadu_ps(m, scratch + j));
        }
        const __m512 vm = _mm512_set1_ps(_mm512_reduce_max_ps(vmax));
        __m512 vsum = _mm512_setzero_ps();
        for (j = 0; j < T; j += 16) {
            __mmask16 m = lanes_below(T - j);
            __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, scratch + j), vm));
            e = _mm512_maskz_mov_ps(m, e);
            _mm512_mask_storeu_ps(scratch + j, m, e);
            vsum = _mm512_add_ps(vsum, e);
        }
        const float inv = 1.0f / _mm512_reduce_add_ps(vsum);

        float *o = out + (size_t)i * ldo;
        for (int d = 0; d < hd; d += 32)
            weighted_rows(T, hd - d < 32 ? hd - d : 32, scratch, v + d, ld, inv, o + d);
    }
}

/* === LayerNorm, f16 === */

static void add_layernorm_avx512(int rows, int dim, float *x, int ldx, const float *res, int ldr,
                                 const float *w, const float *b, float eps)
{
    for (int r = 0; r < rows; r++) {
        float *xr = x + (size_t)r * ldx;
        const float *rr = res + (size_t)r * ldr;
        __m512 vs = _mm512_setzero_ps();
        for (int i = 0; i < dim; i += 16) {
            __mmask16 m = lanes_below(dim - i);
            __m512 s = _mm512_add_ps(_mm512_maskz_loadu_ps(m, xr + i), _mm512_maskz_loadu_ps(m, rr + i));
            _mm512_mask_storeu_ps(xr + i, m, s);
            vs = _mm512_add_ps(vs, s);
        }
        const float mean = _mm512_reduce_add_ps(vs) / (float)dim;
        const __m512 vmean = _mm512_set1_ps(mean);
        __m512 vv = _mm512_setzero_ps();
        for (int i = 0; i < dim; i += 16) {
            __mmask16 m = lanes_below(dim - i);
            __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, xr + i), vmean);
            vv = _mm512_fmadd_ps(d, d, vv);
        }
        const float inv = 1.0f / sqrtf(_mm512_reduce_add_ps(vv) / (float)dim + eps);
        const __m512 vinv = _mm512_set1_ps(inv);
        for (int i = 0; i < dim; i += 16) {
            __mmask16 m = lanes_below(dim - i);
            __m512 n = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, xr + i), vmean), vinv);
            __m512 wi = _mm512_maskz_loadu_ps(m, w + i), bi = _mm512_maskz_loadu_ps(m, b + i);
            _mm512_mask_storeu_ps(xr + i, m, _mm512_fmadd_ps(n, wi, bi));
        }
    }
}

static void f16_to_f32_avx512(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(src + i))));
    if (i < n) {
        __mmask16 m = lanes_below((int)(n - i));
        _mm512_mask_storeu_ps(dst + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, src + i)));
    }
}

const hx_kernels hx_kernels_avx512 = {
    .name = "avx512",
    .nr = NR,
    .gemm = gemm_avx512,
    .attention = attention_avx512,
    .add_layernorm = add_layernorm_avx512,
    .f16_to_f32 = f16_to_f32_avx512,
    .dot = dot_avx512,
    .gelu = gelu_tile,
};
