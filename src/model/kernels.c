/* kernels.c: the kernel table in use, chosen once from the instruction set cpu.c detects (kernels.h).
 * Owns the selected table; the kernels themselves live in kernels_scalar.c and x86/. */
#include "kernels.h"

#include <pthread.h>

static const hx_kernels *selected;
static pthread_once_t select_once = PTHREAD_ONCE_INIT;

static const hx_kernels *table_for(enum hx_isa isa)
{
    switch (isa) {
    case HX_ISA_SCALAR: return &hx_kernels_scalar;
    case HX_ISA_AVX2: return &hx_kernels_avx2;
    case HX_ISA_AVX512: return &hx_kernels_avx512;
    default: return NULL;
    }
}

static void select_table(void)
{
    enum hx_isa isa = hx_cpu_isa();
    while (!table_for(isa))   /* a table not built into this binary: step down */
        isa = (enum hx_isa)(isa - 1);
    selected = table_for(isa);
}

const hx_kernels *hx_kernels_get(void)
{
    pthread_once(&select_once, select_table);
    return selected;
}

const hx_kernels *hx_kernels_for(enum hx_isa isa)
{
    return isa > hx_cpu_best_isa() ? NULL : table_for(isa);
}

size_t hx_attention_scratch(int T, int hd)
{
    /* kernels_simd.h: K^T [hd x Tp], scores [rows x Tp], row sums [rows], padded V [T x hdp] */
    size_t Tp = ((size_t)T + HX_KERNELS_MAX_NR - 1) / HX_KERNELS_MAX_NR * HX_KERNELS_MAX_NR;
    size_t hdp = ((size_t)hd + HX_KERNELS_MAX_NR - 1) / HX_KERNELS_MAX_NR * HX_KERNELS_MAX_NR;
    return (size_t)hd * Tp + HX_ATTENTION_ROWS * (Tp + 1) + (size_t)T * hdp;
}
