/* kernels_avx2.c: the AVX2 + FMA + F16C kernel table hx_kernels_avx2 (interface and packed-weight
 * layout in kernels.h, reference semantics in kernels_scalar.c, tests in tests/test_kernels.c).
 * Built with -mavx2 -mfma -mf16c only; cpu.c hands it out only when CPUID and XGETBV allow it. */
#include "kernels.h"

#include <immintrin.h>
#include <math.h>

#define HX_INLINE static inline __attribute__((always_inline))

/* === Vector math: erf and exp === */

/* erf on [0, 4) as eight degree-7 polynomials in t = |x| - centre, one per interval of width 0.5
 * (Chebyshev interpolation of erf at 8 nodes per interval, computed in 40-digit arithmetic; the
 * interpolation error is below 1.2e-9, so float rounding dominates). Row j holds the coefficient
 * of t^j for the eight intervals, so one vpermps picks every lane's coefficient. Past 4, erf
 * rounds to 1 in float. kernels_avx512.c holds the same table. */
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

HX_INLINE __m256 erf8(__m256 x)
{
    const __m256 signbit = _mm256_set1_ps(-0.0f);
    __m256 sign = _mm256_and_ps(x, signbit);
    __m256 ax = _mm256_min_ps(_mm256_andnot_ps(signbit, x), _mm256_set1_ps(3.9999998f));
    __m256i idx = _mm256_cvttps_epi32(_mm256_mul_ps(ax, _mm256_set1_ps(2.0f)));
    __m256 centre = _mm256_fmadd_ps(_mm256_cvtepi32_ps(idx), _mm256_set1_ps(0.5f), _mm256_set1_ps(0.25f));
    __m256 t = _mm256_sub_ps(ax, centre);
    __m256 p = _mm256_permutevar8x32_ps(_mm256_loadu_ps(erf_poly[7]), idx);
    for (int j = 6; j >= 0; j--)
        p = _mm256_fmadd_ps(p, t, _mm256_permutevar8x32_ps(_mm256_loadu_ps(erf_poly[j]), idx));
    return _mm256_or_ps(_mm256_min_ps(p, _mm256_set1_ps(1.0f)), sign);
}

/* GELU, erf form: 0.5 x (1 + erf(x / sqrt 2)), as in kernels_scalar.c. */
HX_INLINE __m256 gelu8(__m256 x)
{
    __m256 e = erf8(_mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f)));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

/* exp: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two for an exact reduction), Cephes' degree-5
 * minimax polynomial for e^r, then 2^n built in the exponent field. Inputs are clamped to
 * [-87.3, 88.3] so 2^n stays a normal float; below that the result is ~1e-38 instead of 0. */
HX_INLINE __m256 exp8(__m256 x)
{
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 y = _mm256_set1_ps(1.9875691500e-4f);
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.3981999507e-3f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073e-3f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(4.1665795894e-2f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.6666665459e-1f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(5.0000001201e-1f));
    y = _mm256_add_ps(_mm256_fmadd_ps(y, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

/* Lanes [0, n) set, for 0 <= n <= 8 (n outside that range saturates). */
HX_INLINE __m256i lanes_below(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

HX_INLINE float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

HX_INLINE float hmax8(__m256 v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* === GEMM === */

#define NR 16   /* panel width: two ymm per row of a tile */
#define MR 6    /* tile rows: 12 accumulators + 2 B vectors + 1 broadcast fit the 16 ymm */
#define KC 384  /* K block: a KC x NR sub-panel of B (24 KiB) stays in L1 across a row block */
#define MC 96   /* rows per row block: MC x KC of A (144 KiB) stays in L2 across the panels */

/* GELU in place over a stored tile, still in L1. Kept out of line so that the inlined tile
 * shapes stay small. */
static void gelu_tile(int rows, int cols, float *c, int ldc)
{
    for (int r = 0; r < rows; r++) {
        float *cr = c + (size_t)r * ldc;
        int j = 0;
        for (; j + 8 <= cols; j += 8)
            _mm256_storeu_ps(cr + j, gelu8(_mm256_loadu_ps(cr + j)));
        if (j < cols) {
            __m256i m = lanes_below(cols - j);
            _mm256_maskstore_ps(cr + j, m, gelu8(_mm256_maskload_ps(cr + j, m)));
        }
    }
}

/* One tile: C[0..rows)[0..cols) (+)= A[0..rows)[0..kc) * B sub-panel. The first K block starts
 * from the bias (or zero), later ones from C; the last one applies GELU when asked. Columns at or
 * past `cols` are computed from the zero padding but never loaded or stored. `rows` is a
 * compile-time constant at every call, so the row branches fold away. */
HX_INLINE void gemm_tile(int rows, int cols, int kc, const float *a, int lda, const float *b,
                         const float *bias, int first, int gelu, float *c, int ldc)
{
    const int full = cols == NR;
    const __m256i m0 = lanes_below(cols), m1 = lanes_below(cols - 8);
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    if (first) {
        __m256 b0 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
        if (bias && full) {
            b0 = _mm256_loadu_ps(bias);
            b1 = _mm256_loadu_ps(bias + 8);
        } else if (bias) {
            b0 = _mm256_maskload_ps(bias, m0);
            b1 = _mm256_maskload_ps(bias + 8, m1);
        }
        c00 = c10 = c20 = c30 = c40 = c50 = b0;
        c01 = c11 = c21 = c31 = c41 = c51 = b1;
    } else {
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
#define LOAD_C(r)                                                                       \
        if (rows > r) {                                                                 \
            const float *cr = c + (size_t)(r) * ldc;                                    \
            c##r##0 = full ? _mm256_loadu_ps(cr) : _mm256_maskload_ps(cr, m0);          \
            c##r##1 = full ? _mm256_loadu_ps(cr + 8) : _mm256_maskload_ps(cr + 8, m1);  \
        }
        LOAD_C(0) LOAD_C(1) LOAD_C(2) LOAD_C(3) LOAD_C(4) LOAD_C(5)
#undef LOAD_C
    }

    int k = 0;
    if (rows <= 2) {   /* too few chains to cover FMA latency: a second set takes the odd k */
        __m256 d00 = _mm256_setzero_ps(), d01 = d00, d10 = d00, d11 = d00;
        for (; k + 2 <= kc; k += 2) {
            const float *bk = b + (size_t)k * NR;
            __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8);
            __m256 b2 = _mm256_loadu_ps(bk + 16), b3 = _mm256_loadu_ps(bk + 24);   /* row k + 1 */
            __m256 x;
#define FMA_ROW2(r)                                                 \
            if (rows > r) {                                         \
                x = _mm256_broadcast_ss(a + (size_t)(r) * lda + k); \
                c##r##0 = _mm256_fmadd_ps(x, b0, c##r##0);          \
                c##r##1 = _mm256_fmadd_ps(x, b1, c##r##1);          \
                x = _mm256_broadcast_ss(a + (size_t)(r) * lda + k + 1); \
                d##r##0 = _mm256_fmadd_ps(x, b2, d##r##0);          \
                d##r##1 = _mm256_fmadd_ps(x, b3, d##r##1);          \
            }
            FMA_ROW2(0) FMA_ROW2(1)
#undef FMA_ROW2
        }
        c00 = _mm256_add_ps(c00, d00), c01 = _mm256_add_ps(c01, d01);
        c10 = _mm256_add_ps(c10, d10), c11 = _mm256_add_ps(c11, d11);
    }
    for (; k < kc; k++) {
        __m256 b0 = _mm256_loadu_ps(b + (size_t)k * NR), b1 = _mm256_loadu_ps(b + (size_t)k * NR + 8);
        __m256 x;
#define FMA_ROW(r)                                                  \
        if (rows > r) {                                             \
            x = _mm256_broadcast_ss(a + (size_t)(r) * lda + k);     \
            c##r##0 = _mm256_fmadd_ps(x, b0, c##r##0);              \
            c##r##1 = _mm256_fmadd_ps(x, b1, c##r##1);              \
        }
        FMA_ROW(0) FMA_ROW(1) FMA_ROW(2) FMA_ROW(3) FMA_ROW(4) FMA_ROW(5)
#undef FMA_ROW
    }

#define STORE_C(r)                                                                      \
    if (rows > r) {                                                                     \
        float *cr = c + (size_t)(r) * ldc;                                              \
        if (full) {                                                                     \
            _mm256_storeu_ps(cr, c##r##0);                                              \
            _mm256_storeu_ps(cr + 8, c##r##1);                                          \
        } else {                                                                        \
            _mm256_maskstore_ps(cr, m0, c##r##0);                                       \
            _mm256_maskstore_ps(cr + 8, m1, c##r##1);                                   \
        }                                                                               \
    }
    STORE_C(0) STORE_C(1) STORE_C(2) STORE_C(3) STORE_C(4) STORE_C(5)
#undef STORE_C
    if (gelu)
        gelu_tile(rows, cols, c, ldc);
}

static void gemm_avx2(int M, int n0, int n1, int K, const float *A, int lda, const float *Bp,
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

static float dot_avx2(const float *a, const float *b, size_t n)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
           s3 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
    }
    for (; i + 8 <= n; i += 8)
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    if (i < n) {
        __m256i m = lanes_below((int)(n - i));
        s1 = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), s1);
    }
    return hsum8(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
}

/* Scores of query q against the 8 key rows at k (ld apart): lane r = q . k[r]. */
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
        const __m256i m = lanes_below(hd - d);
#define MASKED_LOAD(p) _mm256_maskload_ps(p, m)
        __m256 qd = MASKED_LOAD(q + d);
        KEYS_FMA(MASKED_LOAD)
#undef MASKED_LOAD
    }
#undef KEYS_FMA
#undef KEY_FMA
    /* transpose-and-add: after two hadd levels each 128-bit half holds partial sums of 4 rows */
    __m256 t0 = _mm256_hadd_ps(_mm256_hadd_ps(s0, s1), _mm256_hadd_ps(s2, s3));
    __m256 t1 = _mm256_hadd_ps(_mm256_hadd_ps(s4, s5), _mm256_hadd_ps(s6, s7));
    return _mm256_add_ps(_mm256_permute2f128_ps(t0, t1, 0x20), _mm256_permute2f128_ps(t0, t1, 0x31));
}

/* out[0..w) = inv * sum_j p[j] v[j][0..w), w <= 32, rows of v ld apart. */
HX_INLINE void weighted_rows(int T, int w, const float *p, const float *v, int ld, float inv, float *out)
{
    __m256 o0 = _mm256_setzero_ps(), o1 = _mm256_setzero_ps(), o2 = _mm256_setzero_ps(),
           o3 = _mm256_setzero_ps();
    if (w == 32) {   /* even and odd j into separate sums: eight FMA chains cover the latency */
        __m256 e0 = _mm256_setzero_ps(), e1 = e0, e2 = e0, e3 = e0;
        int j = 0;
        for (; j + 2 <= T; j += 2) {
            __m256 pj = _mm256_broadcast_ss(p + j), pk = _mm256_broadcast_ss(p + j + 1);
            const float *vj = v + (size_t)j * ld, *vk = vj + ld;
            o0 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj), o0);
            o1 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj + 8), o1);
            o2 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj + 16), o2);
            o3 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj + 24), o3);
            e0 = _mm256_fmadd_ps(pk, _mm256_loadu_ps(vk), e0);
            e1 = _mm256_fmadd_ps(pk, _mm256_loadu_ps(vk + 8), e1);
            e2 = _mm256_fmadd_ps(pk, _mm256_loadu_ps(vk + 16), e2);
            e3 = _mm256_fmadd_ps(pk, _mm256_loadu_ps(vk + 24), e3);
        }
        if (j < T) {
            __m256 pj = _mm256_broadcast_ss(p + j);
            const float *vj = v + (size_t)j * ld;
            o0 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj), o0);
            o1 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj + 8), o1);
            o2 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj + 16), o2);
            o3 = _mm256_fmadd_ps(pj, _mm256_loadu_ps(vj + 24), o3);
        }
        o0 = _mm256_add_ps(o0, e0), o1 = _mm256_add_ps(o1, e1);
        o2 = _mm256_add_ps(o2, e2), o3 = _mm256_add_ps(o3, e3);
        __m256 s = _mm256_set1_ps(inv);
        _mm256_storeu_ps(out, _mm256_mul_ps(o0, s));
        _mm256_storeu_ps(out + 8, _mm256_mul_ps(o1, s));
        _mm256_storeu_ps(out + 16, _mm256_mul_ps(o2, s));
        _mm256_storeu_ps(out + 24, _mm256_mul_ps(o3, s));
        return;
    }
    for (int d = 0; d < w; d += 8) {   /* narrow heads: one vector at a time, the last masked */
        __m256i m = lanes_below(w - d);
        o0 = _mm256_setzero_ps();
        for (int j = 0; j < T; j++)
            o0 = _mm256_fmadd_ps(_mm256_broadcast_ss(p + j), _mm256_maskload_ps(v + (size_t)j * ld + d, m),
                                 o0);
        _mm256_maskstore_ps(out + d, m, _mm256_mul_ps(o0, _mm256_set1_ps(inv)));
    }
}

static void attention_avx2(int T, int hd, const float *q, const float *k, const float *v, int ld,
                           float *out, int ldo, float scale, float *scratch)
{
    const __m256 vscale = _mm256_set1_ps(scale);
    for (int i = 0; i < T; i++) {
        const float *qi = q + (size_t)i * ld;
        __m256 vmax = _mm256_set1_ps(-INFINITY);
        int j = 0;
        for (; j + 8 <= T; j += 8) {
            __m256 s = _mm256_mul_ps(vscale, dot8_rows(qi, k + (size_t)j * ld, ld, hd));
            _mm256_storeu_ps(scratch + j, s);
            vmax = _mm256_max_ps(vmax, s);
        }
        float max = hmax8(vmax);
        for (; j < T; j++) {
            scratch[j] = scale * dot_avx2(qi, k + (size_t)j * ld, (size_t)hd);
            if (scratch[j] > max)
                max = scratch[j];
        }

        const __m256 vm = _mm256_set1_ps(max);
        __m256 vsum = _mm256_setzero_ps();
        for (j = 0; j + 8 <= T; j += 8) {
            __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(scratch + j), vm));
            _mm256_storeu_ps(scratch + j, e);
            vsum = _mm256_add_ps(vsum, e);
        }
        if (j < T) {
            __m256i m = lanes_below(T - j);
            __m256 e = exp8(_mm256_sub_ps(_mm256_maskload_ps(scratch + j, m), vm));
            e = _mm256_and_ps(e, _mm256_castsi256_ps(m));
            _mm256_maskstore_ps(scratch + j, m, e);
            vsum = _mm256_add_ps(vsum, e);
        }
        const float inv = 1.0f / hsum8(vsum);

        float *o = out + (size_t)i * ldo;
        for (int d = 0; d < hd; d += 32)
            weighted_rows(T, hd - d < 32 ? hd - d : 32, scratch, v + d, ld, inv, o + d);
    }
}

/* === LayerNorm, f16 === */

static void add_layernorm_avx2(int rows, int dim, float *x, int ldx, const float *res, int ldr,
                               const float *w, const float *b, float eps)
{
    for (int r = 0; r < rows; r++) {
        float *xr = x + (size_t)r * ldx;
        const float *rr = res + (size_t)r * ldr;
        __m256 vs = _mm256_setzero_ps();
        int i = 0;
        for (; i + 8 <= dim; i += 8) {
            __m256 s = _mm256_add_ps(_mm256_loadu_ps(xr + i), _mm256_loadu_ps(rr + i));
            _mm256_storeu_ps(xr + i, s);
            vs = _mm256_add_ps(vs, s);
        }
        float sum = hsum8(vs);
        for (; i < dim; i++) {
            xr[i] += rr[i];
            sum += xr[i];
        }
        const float mean = sum / (float)dim;
        const __m256 vmean = _mm256_set1_ps(mean);
        __m256 vv = _mm256_setzero_ps();
        for (i = 0; i + 8 <= dim; i += 8) {
            __m256 d = _mm256_sub_ps(_mm256_loadu_ps(xr + i), vmean);
            vv = _mm256_fmadd_ps(d, d, vv);
        }
        float var = hsum8(vv);
        for (; i < dim; i++)
            var += (xr[i] - mean) * (xr[i] - mean);
        const float inv = 1.0f / sqrtf(var / (float)dim + eps);
        const __m256 vinv = _mm256_set1_ps(inv);
        for (i = 0; i + 8 <= dim; i += 8) {
            __m256 n = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i), vmean), vinv);
            _mm256_storeu_ps(xr + i, _mm256_fmadd_ps(n, _mm256_loadu_ps(w + i), _mm256_loadu_ps(b + i)));
        }
        for (; i < dim; i++)
            xr[i] = (xr[i] - mean) * inv * w[i] + b[i];
    }
}

static void f16_to_f32_avx2(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++)
        dst[i] = _cvtsh_ss(src[i]);
}

const hx_kernels hx_kernels_avx2 = {
    .name = "avx2",
    .nr = NR,
    .gemm = gemm_avx2,
    .attention = attention_avx2,
    .add_layernorm = add_layernorm_avx2,
    .f16_to_f32 = f16_to_f32_avx2,
    .dot = dot_avx2,
    .gelu = gelu_tile,
};
