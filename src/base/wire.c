/* wire.c: the encoder and bounded decoder declared in wire.h. Never reads outside [p, end). */
#include "wire.h"
#include "alloc.h"
#include "bytes.h"

#include <stdlib.h>
#include <string.h>

void hxi_buf_free(hxi_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void hxi_buf_bytes(hxi_buf *b, const void *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (n > SIZE_MAX - b->len || hx_grow((void **)&b->data, &b->cap, b->len + n, 1, NULL)) {
        b->failed = true;
        return;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void hxi_buf_u32(hxi_buf *b, uint32_t v)
{
    uint8_t t[4];
    hxf_put32(t, v);
    hxi_buf_bytes(b, t, 4);
}

void hxi_buf_u64(hxi_buf *b, uint64_t v)
{
    uint8_t t[8];
    hxf_put64(t, v);
    hxi_buf_bytes(b, t, 8);
}

void hxi_buf_str(hxi_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > UINT32_MAX) {
        b->failed = true;
        return;
    }
    hxi_buf_u32(b, (uint32_t)n);
    hxi_buf_bytes(b, s, n);
}

const uint8_t *hxi_rd_bytes(hxi_rd *r, size_t n)
{
    if (r->failed || (size_t)(r->end - r->p) < n) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

uint32_t hxi_rd_u32(hxi_rd *r)
{
    const uint8_t *p = hxi_rd_bytes(r, 4);
    return p ? hxf_le32(p) : 0;
}

uint64_t hxi_rd_u64(hxi_rd *r)
{
    const uint8_t *p = hxi_rd_bytes(r, 8);
    return p ? hxf_le64(p) : 0;
}

bool hxi_rd_str(hxi_rd *r, const char **s, uint32_t *len, uint32_t max)
{
    uint32_t n = hxi_rd_u32(r);
    if (n > max)
        r->failed = true;
    const uint8_t *p = hxi_rd_bytes(r, n);
    *s = (const char *)p;
    *len = p ? n : 0;
    return p != NULL;
}
