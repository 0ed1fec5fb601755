/* crc32c.h: CRC32C (Castagnoli, reflected, polynomial 0x82F63B78), the checksum of every hyrax
 * file format: a portable slicing-by-8 reference, the hardware lanes (crc32c_sse42.c,
 * crc32c_armcrc.c, sharing crc32c_lanes.h), a threaded variant for large images, and the
 * polynomial arithmetic that joins partial CRCs.
 * Knows no file format; the formats say which bytes they checksum (hxfile.h, store.h). */
#ifndef HX_CRC32C_H
#define HX_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC32C continuing from `crc` (start with 0). Uses the hardware lanes when the CPU has them. */
uint32_t hxf_crc32c(uint32_t crc, const void *data, size_t len);
uint32_t hxf_crc32c_soft(uint32_t crc, const uint8_t *p, size_t len);  /* portable reference */
/* CRC32C of A followed by B, from crc_a = CRC32C(A), crc_b = CRC32C(B) and B's length. */
uint32_t hxf_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
/* hxf_crc32c(0, data, len) computed on up to `threads` threads of the process pool (hxi_pool_shared,
 * one part per 4 MiB at most); the caller's thread alone when the pool cannot be had or is busy. */
uint32_t hxf_crc32c_threads(const void *data, size_t len, int threads);
/* Arithmetic on CRC32C registers as polynomials mod P (bit-reflected: x^0 is the top bit). A raw
 * register advanced over `len` zero bytes is hxf_crc32c_mul(hxf_crc32c_x8n(len), register). */
uint32_t hxf_crc32c_mul(uint32_t a, uint32_t b);
uint32_t hxf_crc32c_x8n(uint64_t len);   /* x^(8 len) mod P */

/* The hardware lanes for hxf_crc32c, each built only for its architecture; call only when
 * hxi_cpu_has_crc32c(). */
uint32_t hxi_crc32c_sse42(uint32_t crc, const void *data, size_t len);    /* x86-64 SSE4.2 */
uint32_t hxi_crc32c_armcrc(uint32_t crc, const void *data, size_t len);   /* aarch64 CRC32 */

#endif
