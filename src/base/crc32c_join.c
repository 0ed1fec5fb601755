/* crc32c_join.c: the polynomial arithmetic that joins CRC32Cs of consecutive parts (crc32c.h):
 * multiplication modulo the CRC32C polynomial, x^(8n), and combine. Used by the hardware lanes
 * (crc32c_lanes.h) and the threaded CRC (crc32c.c); reads no data. As zlib's crc32_combine. */
#include "crc32c.h"

/* As zlib's multmodp. */
uint32_t hxf_crc32c_mul(uint32_t a, uint32_t b)
{
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0)
                return p;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ 0x82F63B78u : b >> 1;
    }
}

uint32_t hxf_crc32c_x8n(uint64_t len)
{
    uint32_t result = 1u << 31, power = 1u << 30;   /* x^0; x^1, squared along the bits of 8 len */
    for (uint64_t bits = len * 8; bits; bits >>= 1) {
        if (bits & 1)
            result = hxf_crc32c_mul(power, result);
        power = hxf_crc32c_mul(power, power);
    }
    return result;
}

uint32_t hxf_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    return hxf_crc32c_mul(hxf_crc32c_x8n(len_b), crc_a) ^ crc_b;
}
