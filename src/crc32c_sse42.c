/* crc32c_sse42.c: CRC32C with the SSE4.2 crc32 instruction, the fast path of hxf_crc32c.
 * Compiled with -msse4.2 only; called only after cpu.c has seen SSE4.2. Must equal
 * hxf_crc32c_soft bit for bit (tests/test_hxfile.c checks). */
#include "cpu.h"

#include <nmmintrin.h>
#include <string.h>

uint32_t hx_crc32c_sse42(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t c = ~crc;
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        len -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (len--)
        c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}
