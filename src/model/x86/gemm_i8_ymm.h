/* gemm_i8_ymm.h: the ymm int8 gemm body (kernels.h "int8"), included by kernels_int8_avx2.c and
 * kernels_int8_avxvnni.c after they define I8_DOT(acc, x, w): acc += pairwise x * w products (16-bit
 * pairs into 32-bit lanes). Defines static gemm_i8_ymm. Needs <immintrin.h>, <string.h>. */

#define MR 6    /* tile rows: 12 accumulators + 2 weight vectors + 1 input fit the 16 ymm */
#define TN 8    /* tile columns: half a packed panel */
#define MC_BYTES (192 * 1024)   /* input rows per block: about 3/8 of a 512 KiB L2 */

static inline __attribute__((always_inline)) __m256i i8_lanes_below(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* One tile: rows x TN columns (cols of them stored) over all of K. acc[r][h] holds, for columns
 * 4h..4h+3, two partial sums each (pairs k, k+1 and k+2, k+3); weights are sign-extended from the
 * packed bytes. `rows` is a compile-time constant at every call. */
static inline __attribute__((always_inline)) void
gemm_i8_tile(int rows, int cols, int G, const int16_t *a, int lda, const float *ascale, const int8_t *b,
             const float *wscale, const float *bias, float *c, int ldc)
{
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
            c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int g = 0; g < G; g++) {
        const int8_t *bg = b + (size_t)g * 4 * HX_I8_NR;
        __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)bg));
        __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(bg + 16)));
        __m256i x;
        int64_t a4;
#define ROW(r)                                                  \
        if (rows > r) {                                         \
            memcpy(&a4, a + (size_t)(r) * lda + 4 * g, 8);      \
            x = _mm256_set1_epi64x(a4);                         \
            I8_DOT(c##r##0, x, w0);                             \
            I8_DOT(c##r##1, x, w1);                             \
        }
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
    }
    const __m256i m = i8_lanes_below(cols);
    const __m256 ws = cols == TN ? _mm256_loadu_ps(wscale) : _mm256_maskload_ps(wscale, m);
    const __m256 bv = !bias ? _mm256_setzero_ps() : cols == TN ? _mm256_loadu_ps(bias) : _mm256_maskload_ps(bias, m);
#define STORE(r)                                                                                   \
    if (rows > r) {                                                                                \
        __m256i s = _mm256_permute4x64_epi64(_mm256_hadd_epi32(c##r##0, c##r##1), 0xD8);           \
        __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s),                              \
                                               _mm256_mul_ps(_mm256_set1_ps(ascale[r]), ws)), bv); \
        float *cr = c + (size_t)(r) * ldc;                                                         \
        if (cols == TN)                                                                            \
            _mm256_storeu_ps(cr, v);                                                               \
        else                                                                                       \
            _mm256_maskstore_ps(cr, m, v);                                                         \
    }
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5)
#undef STORE
}

static void gemm_i8_ymm(int M, int n0, int n1, int K, const int16_t *Aq, int lda, const float *ascale,
                        const int8_t *Bp, const float *wscale, const float *bias, float *C, int ldc)
{
    const int G = hx_i8_row_len(K) / 4;
    /* Rows per block: their inputs (rows x lda int16) stay in L2 while every column tile passes
     * over them. Without it the K = 1536 layer's 240-row task (720 KiB of inputs) came from L3 for
     * each column tile (bench/gemm_bench: 135 against 150 GOP/s for the K = 384 layers). */
    int mc = MC_BYTES / (lda * (int)sizeof *Aq) / MR * MR;
    mc = mc < MR ? MR : mc;
    for (int i0 = 0; i0 < M; i0 += mc) {
        const int i1 = M - i0 < mc ? M : i0 + mc;
        for (int j = n0; j < n1; j += TN) {   /* a column tile's weights (TN x K bytes) stay in L1 */
            const int cols = n1 - j < TN ? n1 - j : TN;
            const int8_t *b = Bp + (size_t)(j / HX_I8_NR) * G * 4 * HX_I8_NR + 4 * (j % HX_I8_NR);
            const float *bj = bias ? bias + j : NULL;
            int i = i0;
#define TILE(rows) gemm_i8_tile(rows, cols, G, Aq + (size_t)i * lda, lda, ascale + i, b, wscale + j, bj, \
                                C + (size_t)i * ldc + j, ldc)
            for (; i + MR <= i1; i += MR)
                TILE(MR);
            /* the rows left over, as a sum of smaller tiles: fewer inlined shapes */
            if (i1 - i >= 4) {
                TILE(4);
                i += 4;
            }
            if (i1 - i >= 2) {
                TILE(2);
                i += 2;
            }
            if (i1 - i >= 1)
                TILE(1);
#undef TILE
        }
    }
}

#undef MR
#undef TN
#undef MC_BYTES
