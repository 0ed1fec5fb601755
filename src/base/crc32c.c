/* crc32c.c: the CRC32C of crc32c.h: table-driven reference, dispatch to the hardware lanes, and
 * the threaded variant (its parts run on the process pool, pool.h, and are joined by the
 * polynomial arithmetic of crc32c_join.c).
 * Must equal tools/convert_weights.py's crc32c bit for bit; tests/test_hxfile.c checks each path. */
#include "crc32c.h"

#include "bytes.h"
#include "cpu.h"
#include "pool.h"

#include <pthread.h>

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_init_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
}

/* Slicing-by-8 software CRC32C; the reference for the hardware lanes. */
uint32_t hxf_crc32c_soft(uint32_t crc, const uint8_t *p, size_t len)
{
    pthread_once(&crc_table_once, crc_init_table);
    crc = ~crc;
    while (len >= 8) {
        uint32_t lo = hxf_le32(p) ^ crc, hi = hxf_le32(p + 4);
        crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
              crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^
              crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
              crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xFF];
    return ~crc;
}

uint32_t hxf_crc32c(uint32_t crc, const void *data, size_t len)
{
#if defined(__x86_64__)   /* the lanes the Makefile builds for this architecture */
    if (hxi_cpu_has_crc32c())
        return hxi_crc32c_sse42(crc, data, len);
#elif defined(__aarch64__)
    if (hxi_cpu_has_crc32c())
        return hxi_crc32c_armcrc(crc, data, len);
#endif
    return hxf_crc32c_soft(crc, data, len);
}

#define CRC_THREAD_MIN ((size_t)4 << 20)   /* bytes worth a thread of their own */
#define CRC_MAX_THREADS 8

typedef struct crc_job {
    const uint8_t *data;
    size_t len, part;        /* parts are `part` bytes, the last one takes the rest */
    int n;
    uint32_t crc[CRC_MAX_THREADS];
} crc_job;

static size_t crc_part_len(const crc_job *j, int i)
{
    return i + 1 < j->n ? j->part : j->len - j->part * (size_t)i;
}

static void crc_task(void *ctx, int task, int worker)
{
    (void)worker;
    crc_job *j = ctx;
    j->crc[task] = hxf_crc32c(0, j->data + j->part * (size_t)task, crc_part_len(j, task));
}

uint32_t hxf_crc32c_threads(const void *data, size_t len, int threads)
{
    hxi_pool *pool = threads > 1 ? hxi_pool_shared() : NULL;
    size_t n = len / CRC_THREAD_MIN, most = (size_t)hxi_pool_threads(pool);   /* 1 without a pool */
    if (pool && (size_t)threads < most)
        most = (size_t)threads;
    if (n > most)
        n = most;
    if (n > CRC_MAX_THREADS)
        n = CRC_MAX_THREADS;
    if (n < 2)
        return hxf_crc32c(0, data, len);
    crc_job j = {data, len, len / n, (int)n, {0}};
    hxi_pool_run(pool, j.n, crc_task, &j);
    uint32_t crc = j.crc[0];
    for (int i = 1; i < j.n; i++)
        crc = hxf_crc32c_combine(crc, j.crc[i], crc_part_len(&j, i));
    return crc;
}
