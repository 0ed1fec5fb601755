/* kernels_int8.c: the plain-C int8 reference kernels (kernels.h "int8": u8 inputs with a zero
 * point, s8 weights), the int8 weight packing every table shares, and the choice of the int8 table
 * in use. Favour clarity here: every SIMD int8 kernel (x86/kernels_int8_*.c, arm/kernels_int8_neon.c)
 * is checked against these by tests/test_kernels.c. */
#include "kernels.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

/* x * inv rounded to nearest even (as cvtps2dq does) and clamped to [-qmax, qmax]; NaN gives -qmax. */
static long quantize_one(float x, float inv, long qmax)
{
    const float q = (float)qmax, r = hxi_round_even(x * inv);
    return (long)(r >= -q ? (r <= q ? r : q) : -q);
}

static void quantize_scalar(int rows, int K, const float *x, int ldx, const float *xinv, void *q,
                            int ldq, float *scale, int32_t *zero)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * ldx;
        uint8_t *qr = (uint8_t *)q + (size_t)r * ldq;
        float lo = 0, hi = 0;
        for (int k = 0; k < K; k++) {
            const float y = xinv ? xr[k] * xinv[k] : xr[k];
            lo = y < lo ? y : lo;   /* NaN compares false: passed over */
            hi = y > hi ? y : hi;
        }
        float inv;
        hxi_i8_row_range(lo, hi, &inv, &scale[r], &zero[r]);
        for (int k = 0; k < hxi_i8_row_len(K); k++) {
            const long v = k < K ? quantize_one(xinv ? xr[k] * xinv[k] : xr[k], inv, 255) + zero[r] : 0;
            qr[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

static void gemm_scalar(int M, int n0, int n1, int K, const void *Aq, int lda, const float *ascale,
                        const int32_t *azero, const int8_t *Bp, const int32_t *wsum, const float *wscale,
                        const float *bias, float *C, int ldc)
{
    for (int i = 0; i < M; i++) {
        const uint8_t *a = (const uint8_t *)Aq + (size_t)i * lda;
        for (int j = n0; j < n1; j++) {
            const int8_t *panel = hxi_i8_panel(Bp, j, K);
            int32_t s = 0;
            for (int k = 0; k < K; k++)
                s += (int32_t)a[k] * panel[(size_t)(k / 4) * 4 * HX_I8_NR + 4 * (j % HX_I8_NR) + k % 4];
            s -= azero[i] * wsum[j];
            C[(size_t)i * ldc + j] = (float)s * (ascale[i] * wscale[j]) + (bias ? bias[j] : 0.0f);
        }
    }
}

const hxi_kernels_i8 hxi_kernels_i8_scalar = {
    .name = "scalar",
    .in_bytes = 1,
    .quantize = quantize_scalar,
    .gemm = gemm_scalar,
};

/* === Packing (shared by every table) === */

size_t hxi_pack_i8_size(int N, int K)
{
    return (size_t)((N + HX_I8_NR - 1) / HX_I8_NR) * HX_I8_NR * (size_t)hxi_i8_row_len(K);
}

void hxi_pack_weights_i8(const hxi_kernels *kern, const uint16_t *W, int N, int K, const float *xs,
                         float *row, int8_t *out, float *wscale, int32_t *wsum)
{
    const size_t panel_bytes = (size_t)hxi_i8_row_len(K) * HX_I8_NR;
    memset(out, 0, hxi_pack_i8_size(N, K));
    for (int n = 0; n < N; n++) {
        kern->f16_to_f32(W + (size_t)n * K, row, (size_t)K);
        float max = 0;
        for (int k = 0; k < K; k++) {
            if (xs)
                row[k] *= xs[k];
            if (fabsf(row[k]) > max)   /* NaN is passed over, as fmaxf would, without its call */
                max = fabsf(row[k]);
        }
        const float inv = max > 0 ? 127.0f / max : 0;
        wscale[n] = max > 0 ? max / 127.0f : 0;
        int8_t *dst = out + (size_t)(n / HX_I8_NR) * panel_bytes + 4 * (n % HX_I8_NR);
        int32_t sum = 0;
        for (int k = 0; k < K; k++) {
            const int8_t v = (int8_t)quantize_one(row[k], inv, 127);
            dst[(size_t)(k / 4) * 4 * HX_I8_NR + k % 4] = v;
            sum += v;
        }
        wsum[n] = sum;
    }
}

/* === The table in use === */

const char *hxi_i8_isa_name(enum hxi_i8_isa isa)
{
    switch (isa) {
    case HX_I8_AVX2: return "avx2";
    case HX_I8_AVXVNNI: return "avxvnni";
    case HX_I8_AVX512VNNI: return "avx512vnni";
    case HX_I8_AMX: return "amx";
    case HX_I8_NEON: return "neon";
    default: return "scalar";
    }
}

/* The table for isa if this build has it and `limit` (an ISA level) allows it, else NULL. */
static const hxi_kernels_i8 *table_for(enum hxi_i8_isa isa, enum hxi_isa limit)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
    (void)limit;   /* scalar's is the only int8 table on this architecture */
#endif
    switch (isa) {
    case HX_I8_SCALAR: return &hxi_kernels_i8_scalar;
#if defined(__x86_64__)
    case HX_I8_AVX2: return limit >= HX_ISA_AVX2 ? &hxi_kernels_i8_avx2 : NULL;
    case HX_I8_AVXVNNI:
        return limit >= HX_ISA_AVX2 && hxi_cpu_has_avxvnni() ? &hxi_kernels_i8_avxvnni : NULL;
    case HX_I8_AVX512VNNI:
        return limit >= HX_ISA_AVX512 && hxi_cpu_has_avx512vnni() ? &hxi_kernels_i8_avx512vnni : NULL;
    case HX_I8_AMX:   /* its tails run on the AVX512-VNNI table */
        return limit >= HX_ISA_AVX512 && hxi_cpu_has_avx512vnni() && hxi_cpu_has_amx_int8() ? &hxi_kernels_i8_amx : NULL;
#elif defined(__aarch64__)
    case HX_I8_NEON: return limit >= HX_ISA_NEON ? &hxi_kernels_i8_neon : NULL;
#endif
    default: return NULL;
    }
}

static const hxi_kernels_i8 *selected;
static pthread_once_t select_once = PTHREAD_ONCE_INIT;

static void select_table(void)
{
    int isa = HX_I8_COUNT - 1;
    while (!table_for((enum hxi_i8_isa)isa, hxi_cpu_isa()))
        isa--;   /* HX_I8_SCALAR always answers */
    selected = table_for((enum hxi_i8_isa)isa, hxi_cpu_isa());
}

const hxi_kernels_i8 *hxi_kernels_i8_get(void)
{
    pthread_once(&select_once, select_table);
    return selected;
}

const hxi_kernels_i8 *hxi_kernels_i8_for(enum hxi_i8_isa isa)
{
    return table_for(isa, hxi_cpu_best_isa());
}
