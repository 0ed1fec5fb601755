/* crc32c_sse42.c: CRC32C with the SSE4.2 crc32 instruction, the x86-64 fast path of hxf_crc32c.
 * Compiled with -msse4.2 only; called only after cpu.c has seen SSE4.2. The lane driver it
 * shares with crc32c_armcrc.c is crc32c_lanes.h. */
#include <nmmintrin.h>

#define CRC_STEP64(c, v) _mm_crc32_u64(c, v)
#define CRC_STEP8(c, b) _mm_crc32_u8(c, b)
#include "crc32c_lanes.h"

uint32_t hxi_crc32c_sse42(uint32_t crc, const void *data, size_t len)
{
    return crc32c_lanes(crc, data, len);
}
