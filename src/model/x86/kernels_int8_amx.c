/* kernels_int8_amx.c: the AMX-INT8 int8 table hxi_kernels_i8_amx (Intel Sapphire Rapids and later):
 * tdpbusd multiplies a 16-row x 64-byte tile of u8 inputs by a 16 x 64-byte tile of s8 weights into
 * 16 x 16 int32 sums, and the packed layout of kernels.h "int8" is already the B tile's (a panel's
 * 16 groups of 4 k for 16 columns are 16 rows of 64 bytes), so weights load straight from the
 * packed panels. Blocks of 32 rows x 32 columns use all eight tile registers (4 sums, 2 inputs,
 * 2 weights); rows past the last full 16 run with a second tile configuration of fewer rows. K not
 * a multiple of 64 (no model layer; tests' shapes) goes to the AVX512-VNNI gemm, which computes the
 * same sums. The epilogue is AVX-512. Interface in kernels.h, reference in kernels_int8.c, tests in
 * tests/test_kernels.c. Built with the AVX512-VNNI flags plus -mamx-tile -mamx-int8; kernels_int8.c
 * hands it out only when the CPU has AMX and the kernel let this process use it (cpu.c). */
#include "kernels.h"
#include "kernels_int8_x86.h"

#include <immintrin.h>

#include "x86_simd.h"
#include <string.h>

#define TR 16   /* tile rows */
#define KB 64   /* input bytes per tile row: 64 k */

/* LDTILECFG's 64-byte operand (palette 1). */
typedef struct tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} tile_config;

/* Tiles 0..3: sums of the block's (row tile, column panel) pairs 00, 01, 10, 11; 4, 5: inputs of
 * row tiles 0 and 1; 6, 7: weights of panels 0 and 1. Row tiles hold `rows` rows. */
static void configure(int rows)
{
    tile_config c;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (int t = 0; t < 8; t++) {
        c.colsb[t] = 64;
        c.rows[t] = (uint8_t)(t >= 6 ? TR : rows);
    }
    _tile_loadconfig(&c);
}

/* C[i][j] for `rows` rows and `cols` columns from the int32 sums s (16 columns per panel, rows 64
 * bytes apart), as kernels.h's gemm defines it. */
static void epilogue(int rows, int cols, const int32_t *s, const float *ascale, const int32_t *azero,
                     const int32_t *wsum, const float *wscale, const float *bias, float *c, int ldc)
{
    const __mmask16 m = hxi_zmm_lanes(cols);
    const __m512i wz = _mm512_maskz_loadu_epi32(m, wsum);
    const __m512 ws = _mm512_maskz_loadu_ps(m, wscale);
    const __m512 bv = bias ? _mm512_maskz_loadu_ps(m, bias) : _mm512_setzero_ps();
    for (int r = 0; r < rows; r++) {
        const __m512i v = _mm512_sub_epi32(_mm512_loadu_si512((const void *)(s + (size_t)r * 16)),
                                           _mm512_mullo_epi32(_mm512_set1_epi32(azero[r]), wz));
        _mm512_mask_storeu_ps(c + (size_t)r * ldc, m, _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(v),
                              _mm512_mul_ps(_mm512_set1_ps(ascale[r]), ws)), bv));
    }
}

/* One block: row tiles at a (two when `two_rows`, rows each) x panels at b (two when `two_cols`),
 * over KT tiles of K, then the epilogue of its cols columns. */
static void block(int rows, int two_rows, int two_cols, int cols, int KT, const uint8_t *a, int lda,
                  const float *ascale, const int32_t *azero, const int8_t *b, size_t panel_bytes,
                  const int32_t *wsum, const float *wscale, const float *bias, float *c, int ldc)
{
    int32_t s[4][TR * 16];
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int kt = 0; kt < KT; kt++) {
        const uint8_t *ak = a + (size_t)kt * KB;
        const int8_t *bk = b + (size_t)kt * TR * 4 * HX_I8_NR;
        _tile_loadd(4, ak, lda);
        _tile_loadd(6, bk, 4 * HX_I8_NR);
        _tile_dpbusd(0, 4, 6);
        if (two_cols) {
            _tile_loadd(7, bk + panel_bytes, 4 * HX_I8_NR);
            _tile_dpbusd(1, 4, 7);
        }
        if (two_rows) {
            _tile_loadd(5, ak + (size_t)TR * lda, lda);
            _tile_dpbusd(2, 5, 6);
            if (two_cols)
                _tile_dpbusd(3, 5, 7);
        }
    }
    _tile_stored(0, s[0], 64);
    if (two_cols)
        _tile_stored(1, s[1], 64);
    if (two_rows)
        _tile_stored(2, s[2], 64);
    if (two_rows && two_cols)
        _tile_stored(3, s[3], 64);
    for (int rt = 0; rt <= two_rows; rt++)
        for (int p = 0; p <= two_cols; p++) {
            const int n = cols - 16 * p < 16 ? cols - 16 * p : 16, r0 = rt * TR;
            epilogue(rows, n, s[2 * rt + p], ascale + r0, azero + r0, wsum + 16 * p, wscale + 16 * p,
                     bias ? bias + 16 * p : NULL, c + (size_t)r0 * ldc + 16 * p, ldc);
        }
}

/* Rows [i0, i1), all of them in row tiles of `rows` rows (two at a time when `pairs`), across the
 * columns [n0, n1). */
static void row_range(int i0, int i1, int rows, int n0, int n1, int KT, const uint8_t *Aq, int lda,
                      const float *ascale, const int32_t *azero, const int8_t *Bp, const int32_t *wsum,
                      const float *wscale, const float *bias, float *C, int ldc)
{
    const size_t panel_bytes = (size_t)KT * TR * 4 * HX_I8_NR;
    for (int i = i0; i < i1; i += 2 * rows) {
        const int two_rows = i + 2 * rows <= i1;
        for (int j = n0; j < n1; j += 32) {
            const int cols = n1 - j < 32 ? n1 - j : 32;
            block(rows, two_rows, cols > 16, cols, KT, Aq + (size_t)i * lda, lda, ascale + i, azero + i,
                  hxi_i8_panel(Bp, j, KT * KB), panel_bytes, wsum + j, wscale + j, bias ? bias + j : NULL,
                  C + (size_t)i * ldc + j, ldc);
        }
    }
}

static void gemm_amx(int M, int n0, int n1, int K, const void *Aq, int lda, const float *ascale,
                     const int32_t *azero, const int8_t *Bp, const int32_t *wsum, const float *wscale,
                     const float *bias, float *C, int ldc)
{
    const int Kp = hxi_i8_row_len(K);
    if (Kp % KB) {
        hxi_kernels_i8_avx512vnni.gemm(M, n0, n1, K, Aq, lda, ascale, azero, Bp, wsum, wscale, bias, C, ldc);
        return;
    }
    const uint8_t *A = Aq;
    const int full = M / TR * TR;
    if (full) {
        configure(TR);
        row_range(0, full, TR, n0, n1, Kp / KB, A, lda, ascale, azero, Bp, wsum, wscale, bias, C, ldc);
    }
    if (M > full) {
        configure(M - full);
        row_range(full, M, M - full, n0, n1, Kp / KB, A, lda, ascale, azero, Bp, wsum, wscale, bias, C, ldc);
    }
    _tile_release();
}

const hxi_kernels_i8 hxi_kernels_i8_amx = {
    .name = "amx",
    .in_bytes = 1,
    .quantize = hxi_quantize_u8_avx2,
    .gemm = gemm_amx,
};
