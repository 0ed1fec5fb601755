/* bytes.h: little-endian loads and stores on possibly unaligned bytes, the one way hyrax reads and
 * writes the integers of its file formats (hxfile.h, store.h, hnsw.h, bm25.h, the index records).
 * Header only; owns no state and knows no format. */
#ifndef HX_BYTES_H
#define HX_BYTES_H

#include <stdint.h>

static inline uint32_t hxf_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t hxf_le64(const uint8_t *p)
{
    return (uint64_t)hxf_le32(p) | (uint64_t)hxf_le32(p + 4) << 32;
}
static inline void hxf_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void hxf_put64(uint8_t *p, uint64_t v)
{
    hxf_put32(p, (uint32_t)v);
    hxf_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
