/* wire.h: little-endian encoding of the index layer's own records (root, document table) into a
 * growable buffer, and a bounded cursor to read them back. Reading past the end sets a sticky
 * failure flag instead of touching memory: check hx_rd_ok() once after a group of reads. */
#ifndef HX_WIRE_H
#define HX_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hx_buf {
    uint8_t *data;      /* owned; free with hx_buf_free */
    size_t len, cap;
    bool failed;        /* an allocation failed: the content is incomplete */
} hx_buf;

void hx_buf_free(hx_buf *b);
void hx_buf_bytes(hx_buf *b, const void *p, size_t n);
void hx_buf_u32(hx_buf *b, uint32_t v);
void hx_buf_u64(hx_buf *b, uint64_t v);
void hx_buf_str(hx_buf *b, const char *s);        /* u32 length + bytes */

typedef struct hx_rd {
    const uint8_t *p, *end;
    bool failed;
} hx_rd;

static inline hx_rd hx_rd_init(const void *p, size_t n)
{
    return (hx_rd){(const uint8_t *)p, (const uint8_t *)p + n, false};
}
static inline bool hx_rd_ok(const hx_rd *r) { return !r->failed; }
const uint8_t *hx_rd_bytes(hx_rd *r, size_t n);   /* NULL (and failed) when fewer remain */
uint32_t hx_rd_u32(hx_rd *r);
uint64_t hx_rd_u64(hx_rd *r);
/* A length-prefixed string: *s points into the input (not NUL-terminated), at most max bytes. */
bool hx_rd_str(hx_rd *r, const char **s, uint32_t *len, uint32_t max);

#endif
