/* kernels_scalar.c: the plain-C kernel table and the ISA-independent weight packing. Its gemm and
 * dot are plain loops (favour clarity there, except in the dot, which the vector index scores
 * with); its attention, LayerNorm and GELU are kernels_simd.h at one lane, fmaf for the fused
 * steps, so they give the SIMD tables' bits (kernels.h "The same bits in every table"). */
#include "kernels.h"

#include <math.h>
#include <string.h>

/* kernels_simd.h's vocabulary at one lane. */
typedef float vf;
typedef int32_t vi;

#define KS_VL 1
#define KS_MR 4
#define KS_KC 256
#define KS_MC 64

static inline float bits_or(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    x |= y;
    memcpy(&a, &x, sizeof a);
    return a;
}

#define vf_zero() 0.0f
#define vf_set1(x) (x)
#define vf_bcast(p) (*(p))
#define vf_load(p) (*(p))
#define vf_store(p, v) (*(p) = (v))
#define vf_load_n(p, n) ((n) >= 1 ? *(p) : 0.0f)
#define vf_store_n(p, n, v) ((n) >= 1 ? (void)(*(p) = (v)) : (void)0)
#define vf_add(a, b) ((a) + (b))
#define vf_sub(a, b) ((a) - (b))
#define vf_mul(a, b) ((a) * (b))
#define vf_min(a, b) ((a) < (b) ? (a) : (b))   /* as x86's minps and maxps */
#define vf_max(a, b) ((a) > (b) ? (a) : (b))
#define vf_fma fmaf
#define vf_abs fabsf
#define vf_signbit(x) copysignf(0.0f, x)   /* x with all but the sign bit cleared */
#define vf_or bits_or
#define vf_hsum(v) (v)
#define vf_hmax(v) (v)
#define vf_trunc_vi(x) ((int32_t)(x))
#define vi_to_vf(i) ((float)(i))
#define vf_lut8(t, i) ((t)[i])
#define vf_round hxi_round_even
#define vf_exp2i(y, n) ldexpf(y, (int)(n))

#include "kernels_simd.h"

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
            C[(size_t)i * ldc + j] = gelu ? ks_gelu(s) : s;
        }
    }
}

/* The table's dot, which the vector index scores with (hnsw.h): eight independent sums, which
 * compilers vectorise, where a single running sum cannot be. */
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

const hxi_kernels hxi_kernels_scalar = {
    .name = "scalar",
    .nr = 8,
    .gemm = gemm_scalar,
    .attention = ks_attention,
    .add_layernorm = ks_add_layernorm,
    .f16_to_f32 = f16_to_f32_scalar,
    .dot = dot_lanes,
    .gelu = ks_gelu_rows,
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
