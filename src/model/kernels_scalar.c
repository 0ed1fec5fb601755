/* kernels_scalar.c: the plain-C reference kernels (kernels.h) and the ISA-independent weight
 * packing. Favour clarity over speed here (every SIMD kernel is checked against these), except in
 * the table's dot, which the vector index scores with. */
#include "kernels.h"

#include <math.h>
#include <string.h>

float hxi_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, mant = h & 0x3FF, bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | mant << 13;             /* inf or nan */
    } else if (exp) {
        bits = sign | (exp + 112) << 23 | mant << 13;       /* normal: rebias 15 -> 127 */
    } else if (mant) {
        int e = -1;                                         /* subnormal: normalise */
        do {
            e++;
            mant <<= 1;
        } while (!(mant & 0x400));
        bits = sign | (uint32_t)(112 - e) << 23 | (mant & 0x3FF) << 13;
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static void f16_to_f32_scalar(const uint16_t *src, float *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = hxi_half_to_float(src[i]);
}

static float gelu_erf(float x)
{
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

static void gemm_scalar(int M, int n0, int n1, int K, const float *A, int lda, const float *Bp,
                        const float *bias, float *C, int ldc, int gelu)
{
    const int nr = hxi_kernels_scalar.nr;
    for (int i = 0; i < M; i++) {
        const float *a = A + (size_t)i * lda;
        for (int j = n0; j < n1; j++) {
            const float *panel = Bp + (size_t)(j / nr) * nr * K;
            float s = 0;
            for (int k = 0; k < K; k++)
                s += a[k] * panel[(size_t)k * nr + j % nr];
            if (bias)
                s += bias[j];
            C[(size_t)i * ldc + j] = gelu ? gelu_erf(s) : s;
        }
    }
}

static float dot_scalar(const float *a, const float *b, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* The table's dot, which the vector index scores with (hnsw.h): eight independent sums, which
 * compilers vectorise, where dot_scalar's single running sum cannot be. */
static float dot_lanes(const float *a, const float *b, size_t n)
{
    float s[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            s[j] += a[i + j] * b[i + j];
    for (; i < n; i++)
        s[0] += a[i] * b[i];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

static void attention_scalar(int T, int hd, const float *q, const float *k, const float *v, int ld,
                             float *out, int ldo, float scale, const float *rel, float *scratch)
{
    for (int i = 0; i < T; i++) {
        const float *qi = q + (size_t)i * ld;
        float max = -INFINITY;
        for (int j = 0; j < T; j++) {
            scratch[j] = scale * dot_scalar(qi, k + (size_t)j * ld, (size_t)hd) + (rel ? rel[j - i] : 0.0f);
            if (scratch[j] > max)
                max = scratch[j];
        }
        float sum = 0;
        for (int j = 0; j < T; j++) {
            scratch[j] = expf(scratch[j] - max);
            sum += scratch[j];
        }
        float *o = out + (size_t)i * ldo;
        for (int d = 0; d < hd; d++)
            o[d] = 0;
        for (int j = 0; j < T; j++) {
            float p = scratch[j] / sum;
            const float *vj = v + (size_t)j * ld;
            for (int d = 0; d < hd; d++)
                o[d] += p * vj[d];
        }
    }
}

static void add_layernorm_scalar(int rows, int dim, float *x, int ldx, const float *res, int ldr,
                                 const float *w, const float *b, float eps)
{
    for (int r = 0; r < rows; r++) {
        float *xr = x + (size_t)r * ldx;
        const float *rr = res + (size_t)r * ldr;
        float mean = 0, var = 0;
        for (int i = 0; i < dim; i++) {
            xr[i] += rr[i];
            mean += xr[i];
        }
        mean /= (float)dim;
        for (int i = 0; i < dim; i++)
            var += (xr[i] - mean) * (xr[i] - mean);
        float inv = 1.0f / sqrtf(var / (float)dim + eps);
        for (int i = 0; i < dim; i++)
            xr[i] = (xr[i] - mean) * inv * w[i] + b[i];
    }
}

static void gelu_scalar(int rows, int cols, float *c, int ldc)
{
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++)
            c[(size_t)r * ldc + j] = gelu_erf(c[(size_t)r * ldc + j]);
}

const hxi_kernels hxi_kernels_scalar = {
    .name = "scalar",
    .nr = 8,
    .gemm = gemm_scalar,
    .attention = attention_scalar,
    .add_layernorm = add_layernorm_scalar,
    .f16_to_f32 = f16_to_f32_scalar,
    .dot = dot_lanes,
    .gelu = gelu_scalar,
};

/* === Packing (shared by every table) === */

size_t hxi_pack_size(int N, int K, int nr)
{
    return (size_t)((N + nr - 1) / nr) * (size_t)nr * (size_t)K;
}

void hxi_pack_weights_f16(const hxi_kernels *kern, const uint16_t *W, int N, int K, float *row, float *out)
{
    const int nr = kern->nr;
    memset(out, 0, hxi_pack_size(N, K, nr) * sizeof *out);
    for (int n = 0; n < N; n++) {
        kern->f16_to_f32(W + (size_t)n * K, row, (size_t)K);
        float *panel = out + (size_t)(n / nr) * nr * K;
        for (int k = 0; k < K; k++)
            panel[(size_t)k * nr + n % nr] = row[k];
    }
}
