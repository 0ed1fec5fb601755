/* cpu.h: instruction-set detection (x86-64: CPUID + XGETBV; aarch64: NEON is baseline, the rest
 * from the kernel through platform.h), once, then read only. HYRAX_ISA=scalar|avx2|avx512|neon
 * forces an instruction set this machine has, normally a lower one; a name it lacks is ignored.
 * The kernel table an ISA selects is in the model layer (kernels.h). Mutable globals in hyrax:
 * this detection (and the AMX grant) and kernels.c's table (written once under pthread_once), crc32c.c's lookup table
 * (likewise), the allocation hook's counters (alloc.c, tests only) and main.c's signal pipe. */
#ifndef HX_CPU_H
#define HX_CPU_H

#include <stdbool.h>

/* Instruction sets with a kernel table. Each architecture has its own chain above scalar
 * (x86-64: avx2 < avx512; aarch64: neon); "best" is the top of this machine's chain. */
enum hxi_isa { HX_ISA_SCALAR = 0, HX_ISA_AVX2 = 1, HX_ISA_AVX512 = 2, HX_ISA_NEON = 3, HX_ISA_COUNT = 4 };

/* Best ISA this machine supports (ignores HYRAX_ISA). */
enum hxi_isa hxi_cpu_best_isa(void);
/* ISA in use: the best one, or the one HYRAX_ISA names if this machine supports it. */
enum hxi_isa hxi_cpu_isa(void);
/* Whether this machine can run code built for `isa` (scalar: always). */
bool hxi_cpu_supports(enum hxi_isa isa);
const char *hxi_isa_name(enum hxi_isa isa);
/* Hardware CRC32C: SSE4.2 on x86-64, the ARMv8 CRC32 extension on aarch64. */
bool hxi_cpu_has_crc32c(void);
/* Whether the machine has AVX512-VNNI (and AVX-512) or AVX-VNNI (and AVX2): the int8 dot products
 * of model/kernels.h, which applies HYRAX_ISA's limit (ignored here, as in hxi_cpu_best_isa).
 * HYRAX_VNNI=0 says no to both. */
bool hxi_cpu_has_avx512vnni(void);
bool hxi_cpu_has_avxvnni(void);
/* Whether the machine has AMX-TILE and AMX-INT8, their register state is on, and the kernel lets
 * this process use them (asked once, at the first call: platform.h; only a caller about to use
 * them asks, since the grant enlarges every signal frame of the process). HYRAX_AMX=0 says no. */
bool hxi_cpu_has_amx_int8(void);

#endif
