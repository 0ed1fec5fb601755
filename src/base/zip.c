/* zip.c: the ZIP archive reader (contract and limits in zip.h). Parses the end records and the
 * central directory into entries, checks each local header against its entry, then decompresses
 * on demand. Must not read outside the archive, trust a declared size for an allocation it has
 * not bounded, or touch the file system. */
#include "zip.h"

#include "alloc.h"
#include "bytes.h"
#include "inflate.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define EOCD_SIG 0x06054b50u
#define EOCD64_SIG 0x06064b50u
#define LOCATOR_SIG 0x07064b50u
#define CENTRAL_SIG 0x02014b50u
#define LOCAL_SIG 0x04034b50u
#define EOCD_LEN 22
#define LOCATOR_LEN 20
#define EOCD64_LEN 56
#define CENTRAL_LEN 46
#define LOCAL_LEN 30
#define FLAG_ENCRYPTED 0x0001u
#define FLAG_DESCRIPTOR 0x0008u
#define RATIO_FLOOR (1u << 20)   /* entries up to this size are not held to the ratio */

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t hxi_crc32(uint32_t crc, const void *p, size_t len)
{
    static const uint32_t nibble[16] = {0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4,
                                        0x4DB26158, 0x5005713C, 0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C,
                                        0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C};
    const uint8_t *b = p;
    crc = ~crc;
    while (len--) {
        crc ^= *b++;
        crc = (crc >> 4) ^ nibble[crc & 15];
        crc = (crc >> 4) ^ nibble[crc & 15];
    }
    return ~crc;
}

typedef struct {
    uint64_t count, cd_size;
    uint64_t cd_at;            /* where the central directory starts in the data */
    uint64_t shift;            /* bytes prepended to the archive (a self-extractor): added to offsets */
} directory;

/* The end of central directory record (and the ZIP64 one when there is a locator). */
static int find_directory(const hxi_zip *z, directory *d, hx_error *err)
{
    const uint8_t *p = z->data;
    size_t n = z->size;
    if (n < EOCD_LEN)
        return hx_error_set(err, HX_EFORMAT, 0, "not a ZIP archive (%zu bytes)", n);
    size_t stop = n - EOCD_LEN > 0xffff ? n - EOCD_LEN - 0xffff : 0, e = n - EOCD_LEN + 1;
    for (;;) {
        if (e-- == stop)
            return hx_error_set(err, HX_EFORMAT, 0, "not a ZIP archive (no end of central directory record)");
        if (hxf_le32(p + e) == EOCD_SIG && e + EOCD_LEN + le16(p + e + 20) <= n)
            break;
    }
    if (le16(p + e + 4) || le16(p + e + 6))
        return hx_error_set(err, HX_EFORMAT, (int64_t)e, "multi-volume ZIP archives are not supported");
    d->count = le16(p + e + 10);
    d->cd_size = hxf_le32(p + e + 12);
    uint64_t cd_off = hxf_le32(p + e + 16);
    size_t end = e;   /* the record the central directory stands right before */
    if (e >= LOCATOR_LEN && hxf_le32(p + e - LOCATOR_LEN) == LOCATOR_SIG) {
        size_t l = e - LOCATOR_LEN;
        uint64_t at = hxf_le64(p + l + 8);
        if (hxf_le32(p + l + 4) || hxf_le32(p + l + 16) > 1)
            return hx_error_set(err, HX_EFORMAT, (int64_t)l, "multi-volume ZIP64 archives are not supported");
        /* The ZIP64 record stands right before the locator; its recorded offset may be shifted by
         * data prepended to the archive, as the other offsets are. */
        if (l < EOCD64_LEN || at > l)
            return hx_error_set(err, HX_EFORMAT, (int64_t)l, "ZIP64 end record outside the archive");
        size_t r = l - EOCD64_LEN;
        if (hxf_le32(p + r) != EOCD64_SIG)
            return hx_error_set(err, HX_EFORMAT, (int64_t)r, "ZIP64 locator points to no ZIP64 end record");
        d->count = hxf_le64(p + r + 32);
        d->cd_size = hxf_le64(p + r + 40);
        cd_off = hxf_le64(p + r + 48);
        end = r;
    }
    if (d->cd_size > end)
        return hx_error_set(err, HX_EFORMAT, (int64_t)e, "central directory larger than the archive");
    d->cd_at = end - d->cd_size;
    if (cd_off > d->cd_at)
        return hx_error_set(err, HX_EFORMAT, (int64_t)e, "central directory offset outside the archive");
    d->shift = d->cd_at - cd_off;
    if (d->count > z->limits.max_entries)
        return hx_error_set(err, HX_ERANGE, (int64_t)e, "ZIP archive lists %llu entries (limit %zu)",
                            (unsigned long long)d->count, z->limits.max_entries);
    if (d->count > d->cd_size / CENTRAL_LEN)
        return hx_error_set(err, HX_EFORMAT, (int64_t)e, "central directory too small for %llu entries",
                            (unsigned long long)d->count);
    return 0;
}

/* Applies the ZIP64 extended information field of extra[0..n) to the fields set to 0xFFFFFFFF. */
static int zip64_extra(const uint8_t *x, size_t n, uint64_t *usize, uint64_t *csize, uint64_t *offset, int64_t at,
                       hx_error *err)
{
    for (size_t i = 0; i + 4 <= n;) {
        size_t id = le16(x + i), len = le16(x + i + 2);
        if (len > n - i - 4)
            break;
        if (id == 1) {
            const uint8_t *f = x + i + 4, *fend = f + len;
            uint64_t *want[3] = {usize, csize, offset};
            for (int k = 0; k < 3; k++) {
                if (!want[k] || *want[k] != 0xffffffffu)
                    continue;
                if (fend - f < 8)
                    return hx_error_set(err, HX_EFORMAT, at, "ZIP64 extra field too short");
                *want[k] = hxf_le64(f);
                f += 8;
            }
            return 0;
        }
        i += 4 + len;
    }
    return 0;
}

static int by_data(const void *a, const void *b)
{
    const hxi_zip_entry *x = *(const hxi_zip_entry *const *)a, *y = *(const hxi_zip_entry *const *)b;
    return x->header_at < y->header_at ? -1 : x->header_at > y->header_at;
}

/* Local header of `e` at archive offset `off` (base already applied): checks, then e->data_at. */
static int local_header(hxi_zip *z, hxi_zip_entry *e, uint64_t off, uint64_t limit, hx_error *err)
{
    const uint8_t *p = z->data;
    if (off > limit || limit - off < LOCAL_LEN || hxf_le32(p + off) != LOCAL_SIG)
        return hx_error_set(err, HX_EFORMAT, (int64_t)off, "entry %s: no local header where the directory says",
                            e->name);
    const uint8_t *h = p + off;
    size_t nlen = le16(h + 26), xlen = le16(h + 28);
    if (limit - off - LOCAL_LEN < nlen + xlen)
        return hx_error_set(err, HX_EFORMAT, (int64_t)off, "entry %s: local header runs past the data", e->name);
    if (nlen != e->name_len || memcmp(h + LOCAL_LEN, e->name, nlen) || le16(h + 8) != e->method)
        return hx_error_set(err, HX_EFORMAT, (int64_t)off,
                            "entry %s: local header names another file or method than the directory", e->name);
    if (!(le16(h + 6) & FLAG_DESCRIPTOR)) {
        uint64_t cs = hxf_le32(h + 18), us = hxf_le32(h + 22);
        int rc = zip64_extra(h + LOCAL_LEN + nlen, xlen, &us, &cs, NULL, (int64_t)off, err);
        if (rc)
            return rc;
        if (hxf_le32(h + 14) != e->crc || cs != e->csize || us != e->usize)
            return hx_error_set(err, HX_EFORMAT, (int64_t)off,
                                "entry %s: local header's CRC or sizes differ from the directory's", e->name);
    }
    e->header_at = off;
    e->data_at = off + LOCAL_LEN + nlen + xlen;
    if (e->csize > limit - e->data_at)
        return hx_error_set(err, HX_EFORMAT, (int64_t)off, "entry %s: data runs past the archive", e->name);
    return 0;
}

static int read_directory(hxi_zip *z, const directory *d, hx_error *err)
{
    const uint8_t *p = z->data;
    uint64_t at = d->cd_at, end = d->cd_at + d->cd_size;
    size_t name_bytes = 0;
    /* First pass: bounds and names' total size. */
    for (uint64_t i = 0; i < d->count; i++) {
        if (end - at < CENTRAL_LEN || hxf_le32(p + at) != CENTRAL_SIG)
            return hx_error_set(err, HX_EFORMAT, (int64_t)at, "central directory entry %llu is damaged",
                                (unsigned long long)i);
        size_t nlen = le16(p + at + 28), xlen = le16(p + at + 30), clen = le16(p + at + 32);
        if (end - at - CENTRAL_LEN < nlen + xlen + clen)
            return hx_error_set(err, HX_EFORMAT, (int64_t)at, "central directory entry %llu runs past the directory",
                                (unsigned long long)i);
        if (nlen > z->limits.max_name)
            return hx_error_set(err, HX_ERANGE, (int64_t)at, "entry name of %zu bytes (limit %zu)", nlen,
                                z->limits.max_name);
        if (memchr(p + at + CENTRAL_LEN, 0, nlen))
            return hx_error_set(err, HX_EFORMAT, (int64_t)at, "entry name with a NUL byte");
        name_bytes += nlen + 1;
        at += CENTRAL_LEN + nlen + xlen + clen;
    }
    z->entries = hx_calloc(d->count ? d->count : 1, sizeof *z->entries);
    z->names = hx_malloc(name_bytes ? name_bytes : 1);
    hxi_zip_entry **order = hx_calloc(d->count ? d->count : 1, sizeof *order);
    int rc = 0;
    if (!z->entries || !z->names || !order)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for %llu ZIP entries", (unsigned long long)d->count);
    char *names = z->names;
    at = d->cd_at;
    for (uint64_t i = 0; !rc && i < d->count; i++) {
        const uint8_t *c = p + at;
        size_t nlen = le16(c + 28), xlen = le16(c + 30), clen = le16(c + 32);
        hxi_zip_entry *e = &z->entries[z->count++];
        memcpy(names, c + CENTRAL_LEN, nlen);
        names[nlen] = 0;
        e->name = names;
        e->name_len = nlen;
        names += nlen + 1;
        e->flags = le16(c + 8);
        e->method = le16(c + 10);
        e->crc = hxf_le32(c + 16);
        e->csize = hxf_le32(c + 20);
        e->usize = hxf_le32(c + 24);
        uint64_t off = hxf_le32(c + 42);
        rc = zip64_extra(c + CENTRAL_LEN + nlen, xlen, &e->usize, &e->csize, &off, (int64_t)at, err);
        if (!rc && le16(c + 34))
            rc = hx_error_set(err, HX_EFORMAT, (int64_t)at, "entry %s starts on another volume", e->name);
        if (!rc && off > d->cd_at - d->shift)
            rc = hx_error_set(err, HX_EFORMAT, (int64_t)at, "entry %s: local header offset outside the archive", e->name);
        if (!rc)
            rc = local_header(z, e, off + d->shift, d->cd_at, err);
        order[i] = e;
        at += CENTRAL_LEN + nlen + xlen + clen;
    }
    if (!rc) {
        qsort(order, z->count, sizeof *order, by_data);
        for (size_t i = 1; i < z->count && !rc; i++)
            if (order[i - 1]->data_at + order[i - 1]->csize > order[i]->header_at)
                rc = hx_error_set(err, HX_EFORMAT, (int64_t)order[i]->header_at,
                                  "entries %s and %s overlap (a ZIP bomb's trick)", order[i - 1]->name, order[i]->name);
    }
    free(order);
    return rc;
}

int hxi_zip_open(hxi_zip *z, const void *data, size_t size, const hxi_zip_limits *limits, hx_error *err)
{
    static const hxi_zip_limits defaults = HX_ZIP_LIMITS_DEFAULT;
    memset(z, 0, sizeof *z);
    z->data = data;
    z->size = size;
    z->limits = limits ? *limits : defaults;
    directory d = {0};
    int rc = find_directory(z, &d, err);
    if (!rc)
        rc = read_directory(z, &d, err);
    if (rc)
        hxi_zip_close(z);
    return rc;
}

void hxi_zip_close(hxi_zip *z)
{
    free(z->entries);
    free(z->names);
    memset(z, 0, sizeof *z);
}

const hxi_zip_entry *hxi_zip_find(const hxi_zip *z, const char *name)
{
    for (size_t i = 0; i < z->count; i++)
        if (!strcmp(z->entries[i].name, name))
            return &z->entries[i];
    return NULL;
}

int hxi_zip_read(hxi_zip *z, const hxi_zip_entry *e, uint8_t **out, size_t *len, hx_error *err)
{
    *out = NULL;
    *len = 0;
    int64_t at = (int64_t)e->data_at;
    if (e->flags & FLAG_ENCRYPTED)
        return hx_error_set(err, HX_EFORMAT, at, "entry %s is encrypted", e->name);
    if (e->method != 0 && e->method != 8)
        return hx_error_set(err, HX_EFORMAT, at, "entry %s uses compression method %u (only stored and deflate are read)",
                            e->name, e->method);
    if (e->usize > z->limits.max_entry)
        return hx_error_set(err, HX_ERANGE, at, "entry %s declares %llu bytes (limit %llu)", e->name,
                            (unsigned long long)e->usize, (unsigned long long)z->limits.max_entry);
    if (e->usize > z->limits.max_total - z->total)
        return hx_error_set(err, HX_ERANGE, at, "archive expands past %llu bytes in all (a ZIP bomb?)",
                            (unsigned long long)z->limits.max_total);
    if (e->usize > RATIO_FLOOR && e->usize / (e->csize ? e->csize : 1) > z->limits.max_ratio)
        return hx_error_set(err, HX_ERANGE, at, "entry %s expands %llu times (limit %u: a ZIP bomb?)", e->name,
                            (unsigned long long)(e->usize / (e->csize ? e->csize : 1)), z->limits.max_ratio);
    const uint8_t *src = z->data + e->data_at;
    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = 0;
    if (e->method == 0) {
        if (e->csize != e->usize)
            return hx_error_set(err, HX_EFORMAT, at, "stored entry %s has different sizes", e->name);
        buf = hx_malloc((size_t)e->usize + 1);
        if (!buf)
            return hx_error_set(err, HX_ENOMEM, at, "out of memory for entry %s", e->name);
        memcpy(buf, src, (size_t)e->usize);
        n = (size_t)e->usize;
    } else {
        rc = hxi_inflate(src, (size_t)e->csize, HX_INFLATE_RAW, (size_t)e->usize + 1, (size_t)e->usize + 1, &buf, &n,
                         NULL, err);
        if (rc == HX_ERANGE || (!rc && n != e->usize))
            rc = hx_error_set(err, HX_EFORMAT, at, "entry %s inflates to another size than declared", e->name);
        if (rc) {
            free(buf);
            return rc;
        }
    }
    if (hxi_crc32(0, buf, n) != e->crc) {
        free(buf);
        return hx_error_set(err, HX_EFORMAT, at, "entry %s: CRC-32 does not match its data", e->name);
    }
    buf[n] = 0;
    z->total += n;
    *out = buf;
    *len = n;
    return 0;
}
