/* crc32c_armcrc.c: CRC32C with the ARMv8 CRC32 extension (crc32cx, crc32cb), the aarch64 fast
 * path of hxf_crc32c. Compiled with -march=armv8-a+crc only; called only after cpu.c has seen
 * HWCAP_CRC32 (platform.c). The lane driver it shares with crc32c_sse42.c is crc32c_lanes.h. */
#include <arm_acle.h>

#define CRC_STEP64(c, v) __crc32cd((uint32_t)(c), v)
#define CRC_STEP8(c, b) __crc32cb(c, b)
#include "crc32c_lanes.h"

uint32_t hxi_crc32c_armcrc(uint32_t crc, const void *data, size_t len)
{
    return crc32c_lanes(crc, data, len);
}
