/* cpu.h: instruction-set detection (CPUID + XGETBV, once, then read only). HYRAX_ISA=scalar|avx2|
 * avx512 forces a lower instruction set than the machine has (never a higher one). The kernel table
 * an ISA selects is in the model layer (kernels.h). Mutable globals in hyrax: this detection and
 * kernels.c's table (written once under pthread_once), crc32c.c's lookup table (likewise), the
 * allocation hook's counters (alloc.c, tests only) and main.c's signal pipe. */
#ifndef HX_CPU_H
#define HX_CPU_H

#include <stdbool.h>

enum hx_isa { HX_ISA_SCALAR = 0, HX_ISA_AVX2 = 1, HX_ISA_AVX512 = 2, HX_ISA_COUNT = 3 };

/* Best ISA this machine supports (ignores HYRAX_ISA). */
enum hx_isa hx_cpu_best_isa(void);
/* ISA in use: the best one, lowered by HYRAX_ISA if set. */
enum hx_isa hx_cpu_isa(void);
const char *hx_isa_name(enum hx_isa isa);
bool hx_cpu_has_crc32c(void);
/* Whether the machine has AVX512-VNNI (and AVX-512) or AVX-VNNI (and AVX2): the int8 dot products
 * of model/kernels.h, which applies HYRAX_ISA's limit (ignored here, as in hx_cpu_best_isa). */
bool hx_cpu_has_avx512vnni(void);
bool hx_cpu_has_avxvnni(void);

#endif
