/* wire.c: the encoder and bounded decoder declared in wire.h. Never reads outside [p, end). */
#include "wire.h"
#include "alloc.h"
#include "bytes.h"

#include <stdlib.h>
#include <string.h>

void hx_buf_free(hx_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void hx_buf_bytes(hx_buf *b, const void *p, size_t n)
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

void hx_buf_u32(hx_buf *b, uint32_t v)
{
    uint8_t t[4];
    hxf_put32(t, v);
    hx_buf_bytes(b, t, 4);
}

void hx_buf_u64(hx_buf *b, uint64_t v)
{
    uint8_t t[8];
    hxf_put64(t, v);
    hx_buf_bytes(b, t, 8);
}

void hx_buf_str(hx_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > UINT32_MAX) {
        b->failed = true;
        return;
    }
    hx_buf_u32(b, (uint32_t)n);
    hx_buf_bytes(b, s, n);
}

const uint8_t *hx_rd_bytes(hx_rd *r, size_t n)
{
    if (r->failed || (size_t)(r->end - r->p) < n) {
        r->failed = true;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

uint32_t hx_rd_u32(hx_rd *r)
{
    const uint8_t *p = hx_rd_bytes(r, 4);
    return p ? hxf_le32(p) : 0;
}

uint64_t hx_rd_u64(hx_rd *r)
{
    const uint8_t *p = hx_rd_bytes(r, 8);
    return p ? hxf_le64(p) : 0;
}

bool hx_rd_str(hx_rd *r, const char **s, uint32_t *len, uint32_t max)
{
    uint32_t n = hx_rd_u32(r);
    if (n > max)
        r->failed = true;
    const uint8_t *p = hx_rd_bytes(r, n);
    *s = (const char *)p;
    *len = p ? n : 0;
    return p != NULL;
}
