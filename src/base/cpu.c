/* cpu.c: detects the instruction sets once and applies HYRAX_ISA. Owns the detected features,
 * written once under pthread_once and only read after. x86-64 reads CPUID + XGETBV here (the same
 * on every system); what only the operating system can tell comes from platform.c. The kernel
 * table the ISA selects is the model layer's (model/kernels.c). */
#include "cpu.h"
#include "platform.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)   /* the architectures here are those the Makefile builds kernels for */
#include <cpuid.h>
#define HX_X86 1
#endif

static struct {
    enum hxi_isa best, active;
    unsigned supported;   /* bit i: this machine runs enum hxi_isa i */
    bool crc32c;
    bool avx512vnni, avxvnni;   /* VNNI forms of vpdpbusd, when their register state is on */
    bool amx_int8;              /* AMX-TILE + AMX-INT8 with their state on (not yet asked for) */
} cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

#ifdef HX_X86
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

/* Raises cpu.best along avx2 < avx512 as CPUID and the OS-enabled register state allow, and
 * notes the VNNI extensions the int8 tables use. */
static void detect_x86(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return;
    bool sse42 = c & (1u << 20), fma = c & (1u << 12), osxsave = c & (1u << 27);
    bool avx = c & (1u << 28), f16c = c & (1u << 29);
    cpu.crc32c = sse42;
    uint64_t xcr0 = osxsave ? read_xcr0() : 0;
    bool ymm_state = (xcr0 & 0x6) == 0x6;
    bool zmm_state = (xcr0 & 0xE6) == 0xE6;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return;
    bool avx2 = b & (1u << 5);
    bool avx512 = (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) && (b & (1u << 31));
    if (avx && avx2 && fma && f16c && ymm_state) {
        cpu.supported |= 1u << HX_ISA_AVX2;
        cpu.best = HX_ISA_AVX2;
        if (avx512 && zmm_state) {
            cpu.supported |= 1u << HX_ISA_AVX512;
            cpu.best = HX_ISA_AVX512;
        }
    }
    /* HYRAX_VNNI=0 leaves both VNNI forms (and so AMX's table) alone: int8 then runs as on a CPU
     * without them (comparisons: an AVX2 machine without VNNI is HYRAX_ISA=avx2 HYRAX_VNNI=0). */
    const char *vnni_env = getenv("HYRAX_VNNI");
    const bool vnni_off = vnni_env && !strcmp(vnni_env, "0");
    cpu.avx512vnni = cpu.best == HX_ISA_AVX512 && (c & (1u << 11)) && !vnni_off;
    /* AMX-TILE and AMX-INT8, with XTILECFG and XTILEDATA on; HYRAX_AMX=0 leaves AMX alone (for
     * comparisons, or a machine it slows). The kernel's permission is asked only when used. */
    const char *amx_env = getenv("HYRAX_AMX");
    cpu.amx_int8 = (d & (1u << 24)) && (d & (1u << 25)) && (xcr0 & 0x60000) == 0x60000 &&
                   !(amx_env && !strcmp(amx_env, "0"));
    if (cpu.best >= HX_ISA_AVX2 && a >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
        cpu.avxvnni = (a & (1u << 4)) && !vnni_off;
}
#endif

static void detect(void)
{
    cpu.best = HX_ISA_SCALAR;
    cpu.supported = 1u << HX_ISA_SCALAR;
#ifdef HX_X86
    detect_x86();
#elif defined(__aarch64__)
    /* Advanced SIMD (with FMA and fp16 conversion) is part of every AArch64 ABI. */
    cpu.supported |= 1u << HX_ISA_NEON;
    cpu.best = HX_ISA_NEON;
    cpu.crc32c = hxi_platform_arm_features() & HX_ARM_CRC32;
#endif
    cpu.active = cpu.best;
    const char *force = getenv("HYRAX_ISA");
    for (int i = 0; force && i < HX_ISA_COUNT; i++)
        if (!strcmp(force, hxi_isa_name((enum hxi_isa)i)) && (cpu.supported >> i & 1))
            cpu.active = (enum hxi_isa)i;
}

enum hxi_isa hxi_cpu_best_isa(void)
{
    pthread_once(&cpu_once, detect);
    return cpu.best;
}

enum hxi_isa hxi_cpu_isa(void)
{
    pthread_once(&cpu_once, detect);
    return cpu.active;
}

bool hxi_cpu_supports(enum hxi_isa isa)
{
    pthread_once(&cpu_once, detect);
    return isa >= 0 && isa < HX_ISA_COUNT && (cpu.supported >> isa & 1);
}

const char *hxi_isa_name(enum hxi_isa isa)
{
    switch (isa) {
    case HX_ISA_AVX2: return "avx2";
    case HX_ISA_AVX512: return "avx512";
    case HX_ISA_NEON: return "neon";
    default: return "scalar";
    }
}

bool hxi_cpu_has_avx512vnni(void)
{
    pthread_once(&cpu_once, detect);
    return cpu.avx512vnni;
}

bool hxi_cpu_has_avxvnni(void)
{
    pthread_once(&cpu_once, detect);
    return cpu.avxvnni;
}

static pthread_once_t amx_once = PTHREAD_ONCE_INIT;
static bool amx_granted;

static void ask_amx(void)
{
    amx_granted = hxi_platform_amx_permit();
}

bool hxi_cpu_has_amx_int8(void)
{
    pthread_once(&cpu_once, detect);
    if (cpu.amx_int8)
        pthread_once(&amx_once, ask_amx);
    return cpu.amx_int8 && amx_granted;
}

bool hxi_cpu_has_crc32c(void)
{
    pthread_once(&cpu_once, detect);
    return cpu.crc32c;
}
