/* kernels.c: the kernel table in use, chosen once from the instruction set cpu.c detects (kernels.h).
 * Owns the selected table and the list of tables this build has; the kernels themselves live in
 * kernels_scalar.c and the architecture folders (x86/, arm/) the Makefile builds for the target. */
#include "kernels.h"

#include <pthread.h>

static const hxi_kernels *selected;
static pthread_once_t select_once = PTHREAD_ONCE_INIT;

/* The table built into this binary for `isa`, or NULL (another architecture's). */
static const hxi_kernels *table_for(enum hxi_isa isa)
{
    switch (isa) {
    case HX_ISA_SCALAR: return &hxi_kernels_scalar;
#if defined(__x86_64__)
    case HX_ISA_AVX2: return &hxi_kernels_avx2;
    case HX_ISA_AVX512: return &hxi_kernels_avx512;
#elif defined(__aarch64__)
    case HX_ISA_NEON: return &hxi_kernels_neon;
#endif
    default: return NULL;
    }
}

static void select_table(void)
{
    selected = table_for(hxi_cpu_isa());   /* cpu.c reports only this architecture's ISAs */
}

const hxi_kernels *hxi_kernels_get(void)
{
    pthread_once(&select_once, select_table);
    return selected;
}

const hxi_kernels *hxi_kernels_for(enum hxi_isa isa)
{
    return hxi_cpu_supports(isa) ? table_for(isa) : NULL;
}

size_t hxi_attention_scratch(int T, int hd)
{
    /* kernels_simd.h: K^T [hd x Tp], scores [rows x Tp], row sums [rows], V copied [T x hdp] */
    size_t Tp = ((size_t)T + HX_KERNELS_MAX_NR - 1) / HX_KERNELS_MAX_NR * HX_KERNELS_MAX_NR;
    size_t hdp = ((size_t)hd + HX_KERNELS_MAX_NR - 1) / HX_KERNELS_MAX_NR * HX_KERNELS_MAX_NR;
    return (size_t)hd * Tp + HX_ATTENTION_ROWS * (Tp + 1) + (size_t)T * hdp;
}
