/* crc32c_lanes.h: the body of a hardware CRC32C, written once for every instruction set and
 * included by each ISA file under its own flags (crc32c_sse42.c, crc32c_armcrc.c). The includer
 * defines CRC_STEP64(c, v) (uint64_t register c advanced over the 8 little-endian bytes of v) and
 * CRC_STEP8(c, b) (uint32_t register c over one byte), then calls crc32c_lanes.
 * The instructions have a latency of about three cycles and a throughput of one, so long inputs
 * are cut into blocks of three lanes that run interleaved and are joined with hxf_crc32c_mul.
 * Must equal hxf_crc32c_soft bit for bit (tests/test_hxfile.c checks). */
#ifndef HX_CRC32C_LANES_H
#define HX_CRC32C_LANES_H

#include "bytes.h"
#include "crc32c.h"

#define CRC_LANE 8192   /* bytes per lane: the joins cost two multiplications per 3 LANE bytes */

static inline uint32_t crc32c_lanes(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t c = ~crc;
    if (len >= 3 * CRC_LANE) {
        const uint32_t shift = hxf_crc32c_x8n(CRC_LANE);
        for (; len >= 3 * CRC_LANE; p += 3 * CRC_LANE, len -= 3 * CRC_LANE) {
            uint64_t c1 = 0, c2 = 0;
            for (size_t i = 0; i < CRC_LANE; i += 8) {
                c = CRC_STEP64(c, hxf_le64(p + i));
                c1 = CRC_STEP64(c1, hxf_le64(p + CRC_LANE + i));
                c2 = CRC_STEP64(c2, hxf_le64(p + 2 * CRC_LANE + i));
            }
            c = hxf_crc32c_mul(shift, hxf_crc32c_mul(shift, (uint32_t)c) ^ (uint32_t)c1) ^ (uint32_t)c2;
        }
    }
    for (; len >= 8; p += 8, len -= 8)
        c = CRC_STEP64(c, hxf_le64(p));
    uint32_t c32 = (uint32_t)c;
    while (len--)
        c32 = CRC_STEP8(c32, *p++);
    return ~c32;
}

#endif
