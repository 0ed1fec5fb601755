/* crc32c_sse42.c: CRC32C with the SSE4.2 crc32 instruction, the fast path of hxf_crc32c.
 * Compiled with -msse4.2 only; called only after cpu.c has seen SSE4.2. Must equal
 * hxf_crc32c_soft bit for bit (tests/test_hxfile.c checks).
 * The instruction has a latency of three cycles and a throughput of one, so long inputs are
 * cut into blocks of three lanes that run interleaved and are joined with hxf_crc32c_mul. */
#include "crc32c.h"

#include <nmmintrin.h>
#include <string.h>

#define LANE 8192   /* bytes per lane: the joins cost two multiplications per 3 LANE bytes */

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

uint32_t hx_crc32c_sse42(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t c = ~crc;
    if (len >= 3 * LANE) {
        const uint32_t shift = hxf_crc32c_x8n(LANE);
        for (; len >= 3 * LANE; p += 3 * LANE, len -= 3 * LANE) {
            uint64_t c1 = 0, c2 = 0;
            for (size_t i = 0; i < LANE; i += 8) {
                c = _mm_crc32_u64(c, load64(p + i));
                c1 = _mm_crc32_u64(c1, load64(p + LANE + i));
                c2 = _mm_crc32_u64(c2, load64(p + 2 * LANE + i));
            }
            c = hxf_crc32c_mul(shift, hxf_crc32c_mul(shift, (uint32_t)c) ^ (uint32_t)c1) ^ (uint32_t)c2;
        }
    }
    for (; len >= 8; p += 8, len -= 8)
        c = _mm_crc32_u64(c, load64(p));
    uint32_t c32 = (uint32_t)c;
    while (len--)
        c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}
