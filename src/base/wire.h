/* wire.h: little-endian encoding of the index layer's own records (root, document table) into a
 * growable buffer, and a bounded cursor to read them back. Reading past the end sets a sticky
 * failure flag instead of touching memory: check hxi_rd_ok() once after a group of reads. */
#ifndef HX_WIRE_H
#define HX_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hxi_buf {
    uint8_t *data;      /* owned; free with hxi_buf_free */
    size_t len, cap;
    bool failed;        /* an allocation failed: the content is incomplete */
} hxi_buf;

void hxi_buf_free(hxi_buf *b);
void hxi_buf_bytes(hxi_buf *b, const void *p, size_t n);
void hxi_buf_u32(hxi_buf *b, uint32_t v);
void hxi_buf_u64(hxi_buf *b, uint64_t v);
void hxi_buf_str(hxi_buf *b, const char *s);        /* u32 length + bytes */

typedef struct hxi_rd {
    const uint8_t *p, *end;
    bool failed;
} hxi_rd;

static inline hxi_rd hxi_rd_init(const void *p, size_t n)
{
    return (hxi_rd){(const uint8_t *)p, (const uint8_t *)p + n, false};
}
static inline bool hxi_rd_ok(const hxi_rd *r) { return !r->failed; }
const uint8_t *hxi_rd_bytes(hxi_rd *r, size_t n);   /* NULL (and failed) when fewer remain */
uint32_t hxi_rd_u32(hxi_rd *r);
uint64_t hxi_rd_u64(hxi_rd *r);
/* A length-prefixed string: *s points into the input (not NUL-terminated), at most max bytes. */
bool hxi_rd_str(hxi_rd *r, const char **s, uint32_t *len, uint32_t max);

#endif
