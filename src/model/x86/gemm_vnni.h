/* gemm_vnni.h: the VNNI int8 gemm (kernels.h "int8"), written once over a small vocabulary and
 * included by x86/kernels_int8_avx512vnni.c (zmm: a vector is a whole packed panel, 16 columns) and
 * x86/kernels_int8_avxvnni.c (ymm: half a panel, 8 columns), each under its own flags. vpdpbusd
 * adds the four u8 x s8 products of each 32-bit lane into it, so a packed group (16 columns x 4 k)
 * is one zmm or two ymm of weights and each lane is one column's sum: no pair sums to combine.
 * Defines static gemm_vnni. Needs <immintrin.h> and <string.h>.
 *
 * The vocabulary (every name defined before the #include):
 *   vi, vf                  a vector of VN int32, of VN floats
 *   VN                      columns per vector (16 or 8)
 *   MR                      tile rows (a tile is MR x 2 vectors; 2 MR + 3 vectors fit the registers)
 *   VSTEP(G)                bytes from a tile's first vector of weights to its second, for G groups
 *   vi_zero() vi_load(p)    4 VN bytes of weights;  vi_bcast4(a4): the int32 a4 in every lane
 *   DPBUSD(acc, x, w)       acc += per lane, the four products of u8 bytes of x and s8 bytes of w
 *   vi_load_n(p, n) vf_load_n(p, n) vf_store_n(p, n, v)   lanes [0, n) only, n in 1..VN
 *   vi_set1 vi_sub vi_mullo vi_to_vf vf_zero vf_set1 vf_mul vf_add
 */

#define MC_BYTES (512 * 1024)   /* input rows per block: at most half of a 1 MiB L2 */

/* One tile: rows x nv vectors of columns (cols of them stored) over all G groups. `rows` and `nv`
 * are compile-time constants at every call, so the unused accumulators fold away. */
static inline __attribute__((always_inline)) void
vnni_tile(int rows, int nv, int cols, int G, const uint8_t *a, int lda, const float *ascale, const int32_t *azero,
          const int8_t *b, const int32_t *wsum, const float *wscale, const float *bias, float *c, int ldc)
{
    vi c0_0 = vi_zero(), c0_1 = c0_0, c1_0 = c0_0, c1_1 = c0_0, c2_0 = c0_0, c2_1 = c0_0, c3_0 = c0_0,
       c3_1 = c0_0, c4_0 = c0_0, c4_1 = c0_0, c5_0 = c0_0, c5_1 = c0_0, c6_0 = c0_0, c6_1 = c0_0,
       c7_0 = c0_0, c7_1 = c0_0, c8_0 = c0_0, c8_1 = c0_0, c9_0 = c0_0, c9_1 = c0_0, c10_0 = c0_0,
       c10_1 = c0_0, c11_0 = c0_0, c11_1 = c0_0;
    const size_t vstep = VSTEP(G);
    for (int g = 0; g < G; g++) {
        const int8_t *bg = b + (size_t)g * 4 * HX_I8_NR;
        const vi w0 = vi_load(bg), w1 = nv > 1 ? vi_load(bg + vstep) : w0;
        int32_t a4;
#define ROW(r)                                                  \
        if (rows > r) {                                         \
            memcpy(&a4, a + (size_t)(r) * lda + 4 * g, 4);      \
            const vi x = vi_bcast4(a4);                         \
            DPBUSD(c##r##_0, x, w0);                            \
            if (nv > 1)                                         \
                DPBUSD(c##r##_1, x, w1);                        \
        }
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5) ROW(6) ROW(7) ROW(8) ROW(9) ROW(10) ROW(11)
#undef ROW
    }
    for (int v = 0; v < nv; v++) {
        const int n = cols - v * VN < VN ? cols - v * VN : VN;
        const vi wz = vi_load_n(wsum + v * VN, n);
        const vf ws = vf_load_n(wscale + v * VN, n), bv = bias ? vf_load_n(bias + v * VN, n) : vf_zero();
#define STORE(r)                                                                                   \
        if (rows > r) {                                                                            \
            const vi s = vi_sub(v ? c##r##_1 : c##r##_0, vi_mullo(vi_set1(azero[r]), wz));         \
            vf_store_n(c + (size_t)(r) * ldc + v * VN, n,                                          \
                       vf_add(vf_mul(vi_to_vf(s), vf_mul(vf_set1(ascale[r]), ws)), bv));           \
        }
        STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7) STORE(8) STORE(9)
        STORE(10) STORE(11)
#undef STORE
    }
}

/* The tiles of rows [i, i1) at one column tile (HX_ROW_TILES). */
static inline __attribute__((always_inline)) void
vnni_rows(int i, int i1, int nv, int cols, int G, const uint8_t *Aq, int lda, const float *ascale,
          const int32_t *azero, const int8_t *b, const int32_t *wsum, const float *wscale, const float *bias,
          float *C, int ldc)
{
#define TILE(R) vnni_tile(R, nv, cols, G, Aq + (size_t)i * lda, lda, ascale + i, azero + i, b, wsum, wscale, \
                          bias, C + (size_t)i * ldc, ldc)
    HX_ROW_TILES(i, i1, MR, TILE);
#undef TILE
}

static void gemm_vnni(int M, int n0, int n1, int K, const void *Aq, int lda, const float *ascale,
                      const int32_t *azero, const int8_t *Bp, const int32_t *wsum, const float *wscale,
                      const float *bias, float *C, int ldc)
{
    const int G = hxi_i8_row_len(K) / 4;
    /* Rows per block: their inputs (rows x lda bytes) stay in L2 while every column tile passes
     * over them; a column tile's weights (2 VN x K bytes) stay in L1 across the block's rows. */
    int mc = MC_BYTES / lda / MR * MR;
    mc = mc < MR ? MR : mc;
    for (int i0 = 0; i0 < M; i0 += mc) {
        const int i1 = M - i0 < mc ? M : i0 + mc;
        for (int j = n0; j < n1; j += 2 * VN) {
            const int cols = n1 - j < 2 * VN ? n1 - j : 2 * VN;
            const int8_t *b = hxi_i8_panel(Bp, j, K) + 4 * (j % HX_I8_NR);
            const float *bj = bias ? bias + j : NULL;
            const uint8_t *A = Aq;
            if (cols > VN)
                vnni_rows(i0, i1, 2, cols, G, A, lda, ascale, azero, b, wsum + j, wscale + j, bj, C + j, ldc);
            else   /* the second vector would lie past n1, possibly past the packed weights */
                vnni_rows(i0, i1, 1, cols, G, A, lda, ascale, azero, b, wsum + j, wscale + j, bj, C + j, ldc);
        }
    }
}

#undef MC_BYTES
