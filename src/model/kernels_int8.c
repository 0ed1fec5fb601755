/* kernels_int8.c: the plain-C int8 reference kernels (kernels.h "int8"), the int8 weight packing
 * every table shares, and the choice of the int8 table in use. Favour clarity here: every SIMD
 * int8 kernel (x86/kernels_int8_*.c) is checked against these by tests/test_kernels.c. */
#include "kernels.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

static void quantize_scalar(int rows, int K, const float *x, int ldx, int8_t *q, int ldq, float *scale)
{
    const int Kp = hx_i8_row_bytes(K);
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * ldx;
        int8_t *qr = q + (size_t)r * ldq;
        float max = 0;
        for (int k = 0; k < K; k++)
            max = fmaxf(max, fabsf(xr[k]));
        memset(qr, 0, (size_t)Kp);
        scale[r] = 0;
        if (!(max > 0))
            continue;
        const float inv = 127.0f / max;
        scale[r] = max / 127.0f;
        for (int k = 0; k < K; k++) {
            long v = lrintf(xr[k] * inv);   /* round to nearest even, as cvtps2dq does */
            qr[k] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
        }
    }
}

static void gemm_scalar(int M, int n0, int n1, int K, const int8_t *Aq, int lda, const float *ascale,
                        const int8_t *Bp, const int32_t *wsum, const float *wscale, const float *bias,
                        float *C, int ldc)
{
    (void)wsum;   /* signed products need no offset correction */
    const size_t panel_bytes = (size_t)hx_i8_row_bytes(K) * HX_I8_NR;
    for (int i = 0; i < M; i++) {
        const int8_t *a = Aq + (size_t)i * lda;
        for (int j = n0; j < n1; j++) {
            const int8_t *panel = Bp + (size_t)(j / HX_I8_NR) * panel_bytes;
            int32_t s = 0;
            for (int k = 0; k < K; k++)
                s += (int32_t)a[k] * panel[(size_t)(k / 4) * 4 * HX_I8_NR + 4 * (j % HX_I8_NR) + k % 4];
            C[(size_t)i * ldc + j] = (float)s * (ascale[i] * wscale[j]) + (bias ? bias[j] : 0.0f);
        }
    }
}

const hx_kernels_i8 hx_kernels_i8_scalar = {
    .name = "scalar",
    .quantize = quantize_scalar,
    .gemm = gemm_scalar,
};

/* === Packing (shared by every table) === */

size_t hx_pack_i8_size(int N, int K)
{
    return (size_t)((N + HX_I8_NR - 1) / HX_I8_NR) * HX_I8_NR * (size_t)hx_i8_row_bytes(K);
}

void hx_pack_weights_i8(const hx_kernels *kern, const hx_kernels_i8 *k8, const uint16_t *W, int N,
                        int K, float *row, int8_t *q, int8_t *out, int32_t *wsum, float *wscale)
{
    const size_t panel_bytes = (size_t)hx_i8_row_bytes(K) * HX_I8_NR;
    memset(out, 0, hx_pack_i8_size(N, K));
    for (int n = 0; n < N; n++) {
        kern->f16_to_f32(W + (size_t)n * K, row, (size_t)K);
        k8->quantize(1, K, row, K, q, hx_i8_row_bytes(K), &wscale[n]);
        int8_t *dst = out + (size_t)(n / HX_I8_NR) * panel_bytes + 4 * (n % HX_I8_NR);
        int32_t s = 0;
        for (int k = 0; k < K; k += 4) {
            memcpy(dst + (size_t)(k / 4) * 4 * HX_I8_NR, q + k, 4);   /* q is zero past K */
            s += q[k] + q[k + 1] + q[k + 2] + q[k + 3];
        }
        wsum[n] = s;
    }
}

/* === The table in use === */

const char *hx_i8_isa_name(enum hx_i8_isa isa)
{
    switch (isa) {
    case HX_I8_AVX2: return "avx2";
    case HX_I8_AVXVNNI: return "avxvnni";
    case HX_I8_AVX512VNNI: return "avx512vnni";
    default: return "scalar";
    }
}

/* The table for isa if this build has it and `limit` (an ISA level) allows it, else NULL. */
static const hx_kernels_i8 *table_for(enum hx_i8_isa isa, enum hx_isa limit)
{
    switch (isa) {
    case HX_I8_SCALAR: return &hx_kernels_i8_scalar;
#if defined(__x86_64__)
    case HX_I8_AVX2: return limit >= HX_ISA_AVX2 ? &hx_kernels_i8_avx2 : NULL;
    case HX_I8_AVXVNNI:
        return limit >= HX_ISA_AVX2 && hx_cpu_has_avxvnni() ? &hx_kernels_i8_avxvnni : NULL;
    case HX_I8_AVX512VNNI:
        return limit >= HX_ISA_AVX512 && hx_cpu_has_avx512vnni() ? &hx_kernels_i8_avx512vnni : NULL;
#endif
    default: return NULL;
    }
}

static const hx_kernels_i8 *selected;
static pthread_once_t select_once = PTHREAD_ONCE_INIT;

static void select_table(void)
{
    int isa = HX_I8_COUNT - 1;
    while (!table_for((enum hx_i8_isa)isa, hx_cpu_isa()))
        isa--;   /* HX_I8_SCALAR always answers */
    selected = table_for((enum hx_i8_isa)isa, hx_cpu_isa());
}

const hx_kernels_i8 *hx_kernels_i8_get(void)
{
    pthread_once(&select_once, select_table);
    return selected;
}

const hx_kernels_i8 *hx_kernels_i8_for(enum hx_i8_isa isa)
{
    return table_for(isa, hx_cpu_best_isa());
}
