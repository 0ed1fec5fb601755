/* kernels_neon.c: the AArch64 Advanced SIMD (NEON) kernel table hxi_kernels_neon: the vector
 * vocabulary of kernels_simd.h in NEON intrinsics (the kernels themselves are written once there)
 * and the f16 conversion. NEON, FMA and fp16 conversion are baseline AArch64, so this file needs no
 * extra flags; the Makefile builds it for aarch64 targets only. Interface: kernels.h; tests:
 * tests/test_kernels.c (under qemu-user on x86 hosts). */
#include <arm_neon.h>
#include <string.h>

typedef float32x4_t vf;
typedef int32x4_t vi;

#define KS_VL 4
#define KS_MR 12    /* 24 accumulators + 2 B vectors + 1 broadcast fit the 32 q registers */
#define KS_KC 384   /* a KC x NR sub-panel of B (12 KiB) stays in L1 across a row block */
#define KS_MC 96    /* MC x KC of A (144 KiB) stays in L2 across the panels */

/* NEON has no masked loads and stores: lanes [0, n) go through a zeroed stack vector. */
static inline int lanes(int n)
{
    return n < 0 ? 0 : n > 4 ? 4 : n;
}

static inline float32x4_t load_n(const float *p, int n)
{
    float t[4] = {0};
    memcpy(t, p, (size_t)lanes(n) * sizeof *t);
    return vld1q_f32(t);
}

static inline void store_n(float *p, int n, float32x4_t v)
{
    float t[4];
    vst1q_f32(t, v);
    memcpy(p, t, (size_t)lanes(n) * sizeof *t);
}

/* t[i] per lane: the eight floats as two byte tables, one vqtbl2q_u8 (the NEON form of vpermps)
 * gathering bytes 4 i .. 4 i + 3 of each lane. */
static inline float32x4_t lut8(const float *t, int32x4_t i)
{
    const uint8x16x2_t tab = {{vreinterpretq_u8_f32(vld1q_f32(t)), vreinterpretq_u8_f32(vld1q_f32(t + 4))}};
    uint8x16_t bytes = vreinterpretq_u8_u32(vmulq_n_u32(vreinterpretq_u32_s32(i), 0x04040404u));
    bytes = vaddq_u8(bytes, vreinterpretq_u8_u32(vdupq_n_u32(0x03020100u)));
    return vreinterpretq_f32_u8(vqtbl2q_u8(tab, bytes));
}

/* y * 2^n, 2^n built in the exponent field (n integral in [-126, 127]). */
static inline float32x4_t exp2i4(float32x4_t y, float32x4_t n)
{
    int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23);
    return vmulq_f32(y, vreinterpretq_f32_s32(e));
}

/* Horizontal sum, halving as kernels_simd.h asks (lane l + lane l + 2, then 0 + 1; vaddvq_f32
 * adds neighbours first). */
static inline float hsum4(float32x4_t v)
{
    const float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(s, 0) + vget_lane_f32(s, 1);
}

#define vf_zero() vdupq_n_f32(0)
#define vf_set1(x) vdupq_n_f32(x)
#define vf_bcast(p) vld1q_dup_f32(p)
#define vf_load(p) vld1q_f32(p)
#define vf_store(p, v) vst1q_f32(p, v)
#define vf_load_n load_n
#define vf_store_n store_n
#define vf_add vaddq_f32
#define vf_sub vsubq_f32
#define vf_mul vmulq_f32
#define vf_min vminq_f32
#define vf_max vmaxq_f32
#define vf_fma(a, b, c) vfmaq_f32(c, a, b)
#define vf_abs vabsq_f32
#define vf_signbit(x) vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u)))
#define vf_or(a, b) vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)))
#define vf_hsum hsum4
#define vf_hmax vmaxvq_f32
#define vf_trunc_vi vcvtq_s32_f32
#define vi_to_vf vcvtq_f32_s32
#define vf_lut8 lut8
#define vf_round vrndnq_f32
#define vf_exp2i exp2i4

#include "kernels_simd.h"

static void f16_to_f32_neon(const uint16_t *src, float *dst, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(src + i));
        vst1q_f32(dst + i, vcvt_f32_f16(vget_low_f16(h)));
        vst1q_f32(dst + i + 4, vcvt_high_f32_f16(h));
    }
    for (; i + 4 <= n; i += 4)
        vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(src + i))));
    if (i < n) {   /* the last 1..3 through the same instruction, via a padded vector */
        uint16_t h[4] = {0};
        memcpy(h, src + i, (n - i) * sizeof *h);
        store_n(dst + i, (int)(n - i), vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h))));
    }
}

const hxi_kernels hxi_kernels_neon = {
    .name = "neon",
    KS_TABLE_KERNELS,
    .f16_to_f32 = f16_to_f32_neon,
};
