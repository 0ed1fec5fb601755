/* gemm_bench.c: single-thread GFLOP/s of each kernel table's gemm (kernels.h) on the model's
 * shapes, next to the fp32 FMA peak and the clock measured in the same run. Touches no library
 * state beyond reading the tables. Built by `make bench/gemm_bench`; one line per result:
 *   clock ghz=G
 *   peak isa=avx2 gflops=P flops_per_cycle=F
 *   gemm isa=avx2 M=256 N=1536 K=384 gelu=1 cold=0 gflops=X pct_peak=Y   (cold=1: weights from memory)
 *   attention isa=avx2 T=128 hd=32 gflops=X
 *   gemm_i8 isa=avx512vnni M=256 N=1536 K=384 gops=X   (quantize + integer gemm, int8 tables)
 *   i8_bound isa=avx2 gops=X ops_per_cycle=Y vs_fp32_peak=Z   (see below)
 *   bound isa=avx2 op=vpmaddubsw+vpmaddwd(inexact) gops=X vs_i8_bound=Y   (and its exact form)
 *   bound isa=avx512vnni op=vpdpbusd gops=X vs_fp32_peak=Y   (and avx512bf16 vdpbf16ps; see below)
 * pct_peak is of that ISA's pure-FMA peak (scalar: of the AVX2 one). Times are this thread's CPU
 * time, best single call over MIN_SECONDS, so a busy shared machine skews them less.
 * Usage: gemm_bench [M ...]   (default M = 1 12 64 256 1024 4096; scalar runs only M <= 64). */
#include "kernels.h"

#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIN_SECONDS 0.3   /* repeat each measurement at least this long and keep the best call */
#define PEAK_ITERS 1000000L
#define COLD_BYTES ((size_t)96 << 20)   /* weights cycled through by the `cold` gemm figures */   /* a few ms per run, so the best run is one the scheduler left alone */

/* This thread's CPU time: on a shared machine, time spent descheduled is not the kernel's. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* === Clock and peak === */

/* Eight dependent adds per iteration: one cycle each on any recent x86, so adds/second = Hz. */
static double measure_ghz(void)
{
    double best = 0, start = now();
    do {
        long n = 1000000, x = 0;
        double t = now();
        __asm__ volatile("1:\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                         "dec %1\n\tjnz 1b"
                         : "+r"(x), "+r"(n));
        double ghz = 8.0 * 1000000 / (now() - t) / 1e9;
        if (ghz > best)
            best = ghz;
    } while (now() - start < MIN_SECONDS);
    return best;
}

/* Ten independent FMA chains hide the 4-5 cycle latency on two pipes. Returns flops per call. */
#define PEAK_BODY(FMA)                                                                   \
    do {                                                                                 \
        a0 = FMA(a0, m, c); a1 = FMA(a1, m, c); a2 = FMA(a2, m, c); a3 = FMA(a3, m, c);  \
        a4 = FMA(a4, m, c); a5 = FMA(a5, m, c); a6 = FMA(a6, m, c); a7 = FMA(a7, m, c);  \
        a8 = FMA(a8, m, c); a9 = FMA(a9, m, c);                                          \
    } while (0)

__attribute__((target("avx2,fma"))) static double fma_peak_avx2(float *sink)
{
    __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
    /* distinct starting values, or the compiler merges the ten chains into one */
    __m256 a0 = _mm256_set1_ps(0), a1 = _mm256_set1_ps(1), a2 = _mm256_set1_ps(2), a3 = _mm256_set1_ps(3),
           a4 = _mm256_set1_ps(4), a5 = _mm256_set1_ps(5), a6 = _mm256_set1_ps(6), a7 = _mm256_set1_ps(7),
           a8 = _mm256_set1_ps(8), a9 = _mm256_set1_ps(9);
    for (long i = 0; i < PEAK_ITERS; i++)
        PEAK_BODY(_mm256_fmadd_ps);
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)),
                                           _mm256_add_ps(a8, a9)));
    *sink += _mm256_cvtss_f32(s);
    return 10.0 * 8 * 2 * PEAK_ITERS;
}

__attribute__((target("avx512f"))) static double fma_peak_avx512(float *sink)
{
    __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
    /* distinct starting values, or the compiler merges the ten chains into one */
    __m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2), a3 = _mm512_set1_ps(3),
           a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5), a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7),
           a8 = _mm512_set1_ps(8), a9 = _mm512_set1_ps(9);
    for (long i = 0; i < PEAK_ITERS; i++)
        PEAK_BODY(_mm512_fmadd_ps);
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)),
                                           _mm512_add_ps(a8, a9)));
    *sink += _mm512_reduce_add_ps(s);
    return 10.0 * 16 * 2 * PEAK_ITERS;
}

static double peak_gflops(enum hxi_isa isa, float *sink)
{
    double best = 0, start = now();
    do {
        double t = now();
        double flops = isa == HX_ISA_AVX512 ? fma_peak_avx512(sink) : fma_peak_avx2(sink);
        double g = flops / (now() - t) / 1e9;
        if (g > best)
            best = g;
    } while (now() - start < MIN_SECONDS);
    return best;
}

/* === GEMM === */

static void fill(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
}

/* Best GFLOP/s of single calls repeated for at least MIN_SECONDS. `cold`: each call reads other
 * weights, COLD_BYTES of them in turn, so they come from memory as in the forward pass (whose 42 MB
 * of float weights do not stay in cache from one layer to the same layer of the next batch). */
static double gemm_gflops(const hxi_kernels *kt, int M, int N, int K, int gelu, int cold)
{
    const size_t bn = hxi_pack_size(N, K, kt->nr), copies = cold ? COLD_BYTES / (bn * sizeof(float)) + 1 : 1;
    float *A = malloc((size_t)M * K * sizeof *A), *C = malloc((size_t)M * N * sizeof *C);
    float *Bp = malloc(copies * bn * sizeof *Bp), *bias = malloc((size_t)N * sizeof *bias);
    if (!A || !C || !Bp || !bias) {
        fprintf(stderr, "gemm_bench: out of memory\n");
        exit(1);
    }
    fill(A, (size_t)M * K);
    fill(Bp, copies * bn);
    fill(bias, (size_t)N);
    kt->gemm(M, 0, N, K, A, K, Bp, bias, C, N, gelu);   /* warm-up */
    double best = 1e30, start = now();
    size_t next = 0;
    do {
        const float *b = Bp + next * bn;
        next = (next + 1) % copies;
        double t = now();
        kt->gemm(M, 0, N, K, A, K, b, bias, C, N, gelu);
        t = now() - t;
        if (t < best)
            best = t;
    } while (now() - start < MIN_SECONDS);
    free(A), free(C), free(Bp), free(bias);
    return 2.0 * M * N * K / best / 1e9;
}

/* Best GOP/s (2 M N K integer multiply-adds) of one int8 table's quantize + gemm, as the encoder
 * calls them for one Linear layer. */
static double gemm_i8_gops(const hxi_kernels_i8 *k8, int M, int N, int K)
{
    const int Kp = hxi_i8_row_len(K);
    float *A = malloc((size_t)M * K * sizeof *A), *C = malloc((size_t)M * N * sizeof *C);
    float *ascale = malloc((size_t)M * sizeof *ascale), *wscale = malloc((size_t)N * sizeof *wscale);
    int32_t *azero = malloc((size_t)M * sizeof *azero), *wsum = calloc((size_t)N, sizeof *wsum);
    void *Aq = malloc((size_t)M * Kp * (size_t)k8->in_bytes);
    int8_t *Bp = malloc(hxi_pack_i8_size(N, K));
    if (!A || !C || !ascale || !wscale || !azero || !wsum || !Aq || !Bp) {
        fprintf(stderr, "gemm_bench: out of memory\n");
        exit(1);
    }
    fill(A, (size_t)M * K);
    fill(wscale, (size_t)N);
    for (size_t i = 0; i < hxi_pack_i8_size(N, K); i++)
        Bp[i] = (int8_t)((i * 2654435761u) % 255 - 127);
    double best = 1e30, start = now();
    do {
        double t = now();
        k8->quantize(M, K, A, K, NULL, Aq, Kp, ascale, azero);
        k8->gemm(M, 0, N, K, Aq, Kp, ascale, azero, Bp, wsum, wscale, NULL, C, N);
        t = now() - t;
        if (t < best)
            best = t;
    } while (now() - start < MIN_SECONDS);
    free(A), free(C), free(ascale), free(wscale), free(azero), free(wsum), free(Aq), free(Bp);
    return 2.0 * M * N * K / best / 1e9;
}

/* === The AVX2 int8 instruction bound (issue 15 item 1) ===
 * The AVX2 int8 tile (x86/kernels_int8_avx2.c) spends two vector instructions per 16 multiply-adds:
 * vpmaddwd, then vpaddd into the accumulator. This loop issues the same pair for a 6 x 16 tile with
 * every operand already in a register (no loads, broadcasts or epilogue), so its GOP/s is the most
 * any kernel built on that pair can reach on this core; its ratio to the FMA peak bounds what
 * exact int8 can gain over float in the Linear layers. Not a hyrax kernel. */
#define BOUND_ITERS 1000000L
#define BOUND_PAIR(acc)                                                                \
    __asm__ volatile("vpmaddwd %2, %1, %0" : "=x"(t) : "x"(x), "x"(w));                 \
    __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(t))

__attribute__((target("avx2"))) static double i8_bound_ops(int32_t *sink)
{
    __m256i x = _mm256_set1_epi16(3), w = _mm256_set1_epi16(5), t, c0 = _mm256_setzero_si256(),
            c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0, c8 = c0, c9 = c0, c10 = c0, c11 = c0;
    for (long i = 0; i < BOUND_ITERS; i++) {
        BOUND_PAIR(c0); BOUND_PAIR(c1); BOUND_PAIR(c2); BOUND_PAIR(c3); BOUND_PAIR(c4); BOUND_PAIR(c5);
        BOUND_PAIR(c6); BOUND_PAIR(c7); BOUND_PAIR(c8); BOUND_PAIR(c9); BOUND_PAIR(c10); BOUND_PAIR(c11);
    }
    __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)),
                                 _mm256_add_epi32(_mm256_add_epi32(c4, c5), _mm256_add_epi32(c6, c7)));
    s = _mm256_add_epi32(s, _mm256_add_epi32(_mm256_add_epi32(c8, c9), _mm256_add_epi32(c10, c11)));
    *sink += _mm256_extract_epi32(s, 0);
    return 12.0 * 16 * 2 * BOUND_ITERS;   /* 16 multiply-adds per vpmaddwd */
}
#undef BOUND_PAIR

/* The u8 x s8 form MLAS uses on AVX2: vpmaddubsw (pairs of u8 x s8 products summed to int16), vpmaddwd by
 * ones (to int32), vpaddd: three instructions per 32 multiply-adds, but a pair sum needs 17 bits
 * (2 x 255 x 127) and saturates at 16, so it is not exact on hyrax's 8-bit inputs. Its exact form
 * shifts inputs to a - 128 and moves their signs onto the weights (vpsignb per input and weight
 * vector: |a - 128| x +-w pairs stay within 2 x 128 x 127, and 128 x sum(w) is added back). These
 * bound what an AVX2 table built on either could reach, beside i8_bound_ops. Not hyrax kernels. */
#define UB_STEP(acc, sign)                                                                         \
    do {                                                                                           \
        if (sign)                                                                                  \
            __asm__ volatile("vpsignb %2, %1, %0" : "=x"(u) : "x"(w), "x"(x));                     \
        __asm__ volatile("vpmaddubsw %2, %1, %0" : "=x"(t) : "x"(x), "x"(sign ? u : w));          \
        __asm__ volatile("vpmaddwd %2, %1, %0" : "=x"(t) : "x"(t), "x"(ones));                     \
        __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(t));                                        \
    } while (0)
#define UB_BOUND(name, sign)                                                                       \
    __attribute__((target("avx2"))) static double name(int32_t *sink)                             \
    {                                                                                              \
        __m256i x = _mm256_set1_epi8(3), w = _mm256_set1_epi8(5), ones = _mm256_set1_epi16(1), t, u, \
                c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0,  \
                c7 = c0, c8 = c0, c9 = c0, c10 = c0, c11 = c0;                                     \
        (void)u;                                                                                   \
        for (long i = 0; i < BOUND_ITERS; i++) {                                                   \
            UB_STEP(c0, sign); UB_STEP(c1, sign); UB_STEP(c2, sign); UB_STEP(c3, sign);            \
            UB_STEP(c4, sign); UB_STEP(c5, sign); UB_STEP(c6, sign); UB_STEP(c7, sign);            \
            UB_STEP(c8, sign); UB_STEP(c9, sign); UB_STEP(c10, sign); UB_STEP(c11, sign);          \
        }                                                                                          \
        __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)), \
                                     _mm256_add_epi32(_mm256_add_epi32(c4, c5), _mm256_add_epi32(c6, c7))); \
        s = _mm256_add_epi32(s, _mm256_add_epi32(_mm256_add_epi32(c8, c9), _mm256_add_epi32(c10, c11))); \
        *sink += _mm256_extract_epi32(s, 0);                                                       \
        return 12.0 * 32 * 2 * BOUND_ITERS;   /* 32 multiply-adds per vpmaddubsw */                \
    }
UB_BOUND(maddubs_ops, 0)
UB_BOUND(maddubs_exact_ops, 1)
#undef UB_BOUND
#undef UB_STEP

/* === One-instruction bounds on zmm (issue 15 items 1 and 2) ===
 * Ten independent chains of one multiply-accumulate instruction with every operand in a register:
 * the most a gemm built on it can reach on this core. vpdpbusd (u8 x s8, 64 multiply-adds: the
 * VNNI int8 tables) and vdpbf16ps (bf16 pairs, 32: what a bf16 precision would compute with),
 * beside the FMA peak. Not hyrax kernels. */
#define ZMM_BOUND(name, isa, insn, macs)                                                            \
    __attribute__((target(isa))) static double name(int32_t *sink)                                  \
    {                                                                                               \
        __m512i x = _mm512_set1_epi32(0x01010101), w = x, a0 = _mm512_setzero_si512(), a1 = a0,       \
                a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0, a9 = a0;              \
        for (long i = 0; i < BOUND_ITERS; i++) {                                                    \
            __asm__(insn " %10, %11, %0\n\t" insn " %10, %11, %1\n\t" insn " %10, %11, %2\n\t"      \
                    insn " %10, %11, %3\n\t" insn " %10, %11, %4\n\t" insn " %10, %11, %5\n\t"        \
                    insn " %10, %11, %6\n\t" insn " %10, %11, %7\n\t" insn " %10, %11, %8\n\t"        \
                    insn " %10, %11, %9"                                                            \
                    : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7), \
                      "+v"(a8), "+v"(a9)                                                            \
                    : "v"(w), "v"(x));                                                              \
        }                                                                                           \
        __m512i s = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)), \
                                     _mm512_xor_si512(_mm512_xor_si512(a4, a5), _mm512_xor_si512(a6, a7))); \
        s = _mm512_xor_si512(s, _mm512_xor_si512(a8, a9));                                          \
        *sink += _mm512_reduce_add_epi32(s);                                                        \
        return 10.0 * (macs) * 2 * BOUND_ITERS;                                                     \
    }
ZMM_BOUND(vpdpbusd_ops, "avx512f,avx512vnni", "vpdpbusd", 64)
ZMM_BOUND(vdpbf16ps_ops, "avx512f,avx512bf16", "vdpbf16ps", 32)
#undef ZMM_BOUND

/* Best GOP/s of one of the bound loops above. */
static double bound_gops(double (*ops_fn)(int32_t *), int32_t *sink)
{
    double best = 0, start = now();
    do {
        double t = now();
        double ops = ops_fn(sink);
        double g = ops / (now() - t) / 1e9;
        if (g > best)
            best = g;
    } while (now() - start < MIN_SECONDS);
    return best;
}

/* === Attention === */

/* Best GFLOP/s (4 T^2 hd: scores and weighted sum) of one head over a packed q|k|v buffer. */
static double attention_gflops(const hxi_kernels *kt, int T, int hd)
{
    const int ld = 3 * hd;
    float *qkv = malloc((size_t)T * ld * sizeof *qkv), *out = malloc((size_t)T * hd * sizeof *out);
    float *scratch = malloc(hxi_attention_scratch(T, hd) * sizeof *scratch);
    if (!qkv || !out || !scratch) {
        fprintf(stderr, "gemm_bench: out of memory\n");
        exit(1);
    }
    fill(qkv, (size_t)T * ld);
    double best = 1e30, start = now();
    do {
        double t = now();
        kt->attention(T, hd, qkv, qkv + hd, qkv + 2 * hd, ld, out, hd, 0.17f, NULL, scratch);
        t = now() - t;
        if (t < best)
            best = t;
    } while (now() - start < MIN_SECONDS);
    free(qkv), free(out), free(scratch);
    return 4.0 * T * T * hd / best / 1e9;
}

int main(int argc, char **argv)
{
    static const int default_M[] = {1, 12, 64, 256, 1024, 4096};
    static const struct { int N, K, gelu; } shapes[] = {
        {1152, 384, 0},   /* QKV projection */
        {384, 384, 0},    /* attention output */
        {1536, 384, 1},   /* FFN up, GELU */
        {384, 1536, 0},   /* FFN down */
    };
    int nM = argc > 1 ? argc - 1 : (int)(sizeof default_M / sizeof *default_M);
    int *Ms = malloc((size_t)nM * sizeof *Ms);
    for (int i = 0; i < nM; i++)
        Ms[i] = argc > 1 ? atoi(argv[i + 1]) : default_M[i];

    float sink = 0;
    const double ghz = measure_ghz();
    printf("clock ghz=%.3f\n", ghz);
    double peak[HX_ISA_COUNT] = {0};
    for (int isa = HX_ISA_AVX2; isa < HX_ISA_COUNT; isa++) {
        if (!hxi_kernels_for((enum hxi_isa)isa))
            continue;
        peak[isa] = peak_gflops((enum hxi_isa)isa, &sink);
        printf("peak isa=%s gflops=%.2f flops_per_cycle=%.1f\n", hxi_isa_name((enum hxi_isa)isa), peak[isa],
               peak[isa] / ghz);
    }
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int i = 0; i < nM; i++)
            for (int isa = 0; isa < HX_ISA_COUNT; isa++) {
                const hxi_kernels *kt = hxi_kernels_for((enum hxi_isa)isa);
                if (!kt || (isa == HX_ISA_SCALAR && Ms[i] > 64) || Ms[i] < 1)
                    continue;
                const double ref = peak[isa] > 0 ? peak[isa] : peak[HX_ISA_AVX2];
                for (int cold = 0; cold < 2; cold++) {
                    double g = gemm_gflops(kt, Ms[i], shapes[s].N, shapes[s].K, shapes[s].gelu, cold);
                    printf("gemm isa=%s M=%d N=%d K=%d gelu=%d cold=%d gflops=%.2f pct_peak=%.1f\n", kt->name,
                           Ms[i], shapes[s].N, shapes[s].K, shapes[s].gelu, cold, g, ref > 0 ? 100.0 * g / ref : 0.0);
                    fflush(stdout);
                }
            }
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int i = 0; i < nM; i++)
            for (int isa = 0; isa < HX_I8_COUNT; isa++) {
                const hxi_kernels_i8 *k8 = hxi_kernels_i8_for((enum hxi_i8_isa)isa);
                if (!k8 || (isa == HX_I8_SCALAR && Ms[i] > 64) || Ms[i] < 1)
                    continue;
                printf("gemm_i8 isa=%s M=%d N=%d K=%d gops=%.2f\n", k8->name, Ms[i], shapes[s].N,
                       shapes[s].K, gemm_i8_gops(k8, Ms[i], shapes[s].N, shapes[s].K));
                fflush(stdout);
            }
    if (hxi_kernels_for(HX_ISA_AVX2)) {
        int32_t isink = 0;
        const double b = bound_gops(i8_bound_ops, &isink);
        printf("i8_bound isa=avx2 gops=%.2f ops_per_cycle=%.1f vs_fp32_peak=%.2f\n", b, b / ghz,
               b / peak[HX_ISA_AVX2]);
        const double u = bound_gops(maddubs_ops, &isink), ux = bound_gops(maddubs_exact_ops, &isink);
        printf("bound isa=avx2 op=vpmaddubsw+vpmaddwd(inexact) gops=%.2f vs_i8_bound=%.2f\n", u, u / b);
        printf("bound isa=avx2 op=vpsignb+vpmaddubsw+vpmaddwd(exact) gops=%.2f vs_i8_bound=%.2f\n", ux, ux / b);
        if (hxi_kernels_for(HX_ISA_AVX512) && __builtin_cpu_supports("avx512vnni")) {
            const double v = bound_gops(vpdpbusd_ops, &isink);
            printf("bound isa=avx512vnni op=vpdpbusd gops=%.2f vs_fp32_peak=%.2f\n", v, v / peak[HX_ISA_AVX512]);
        }
        if (hxi_kernels_for(HX_ISA_AVX512) && __builtin_cpu_supports("avx512bf16")) {
            const double v = bound_gops(vdpbf16ps_ops, &isink);
            printf("bound isa=avx512bf16 op=vdpbf16ps gflops=%.2f vs_fp32_peak=%.2f\n", v, v / peak[HX_ISA_AVX512]);
        }
        sink += (float)isink;
    }
    static const int Ts[] = {12, 128, 512};
    for (size_t t = 0; t < sizeof Ts / sizeof *Ts; t++)
        for (int isa = 0; isa < HX_ISA_COUNT; isa++) {
            const hxi_kernels *kt = hxi_kernels_for((enum hxi_isa)isa);
            if (kt)
                printf("attention isa=%s T=%d hd=32 gflops=%.2f\n", kt->name, Ts[t],
                       attention_gflops(kt, Ts[t], 32));
        }
    free(Ms);
    return sink == 12345.0f;   /* keeps the peak loops' results alive */
}
