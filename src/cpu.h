/* cpu.h: instruction-set detection (CPUID + XGETBV, once) and the kernel table it selects.
 * The selection is written once under pthread_once and only read after, as is crc32c.c's lookup
 * table; main.c's signal pipe is the only other mutable global. HYRAX_ISA=scalar|avx2|avx512
 * forces a lower instruction set than the machine has (never a higher one). */
#ifndef HX_CPU_H
#define HX_CPU_H

#include "kernels.h"

#include <stdbool.h>

enum hx_isa { HX_ISA_SCALAR = 0, HX_ISA_AVX2 = 1, HX_ISA_AVX512 = 2, HX_ISA_COUNT = 3 };

/* Best ISA this machine supports (ignores HYRAX_ISA). */
enum hx_isa hx_cpu_best_isa(void);
/* ISA in use: the best one, lowered by HYRAX_ISA if set. */
enum hx_isa hx_cpu_isa(void);
const char *hx_isa_name(enum hx_isa isa);
bool hx_cpu_has_crc32c(void);

/* Kernel table in use; selected on first call. Never NULL. */
const hx_kernels *hx_kernels_get(void);
/* Table for a given ISA, or NULL when this machine cannot run it (for tests and benchmarks). */
const hx_kernels *hx_kernels_for(enum hx_isa isa);

#endif
