/* hxfile.c: reader, writer and map of the container format specified in hxfile.h.
 * Treats every input byte as hostile: each offset and length is checked against the buffer
 * before use. Must not interpret section contents; that belongs to model.c and store code. */
#include "hxfile.h"
#include "alloc.h"

#include "bytes.h"
#include "crc32c.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* === Reader === */

static size_t dtype_size(uint32_t dtype)
{
    switch (dtype) {
    case HXF_RAW: case HXF_U8: return 1;
    case HXF_F16: return 2;
    case HXF_F32: case HXF_U32: case HXF_I32: return 4;
    case HXF_U64: return 8;
    default: return 0;
    }
}

static int parse_entry(const uint8_t *base, size_t size, const uint8_t *e, uint32_t index,
                       bool check_crc, hxf_section *s, hx_error *err)
{
    memcpy(s->name, e, HXF_NAME_MAX);
    s->name[HXF_NAME_MAX] = 0;
    if (!s->name[0])
        return hx_error_set(err, HX_EFORMAT, -1, "section %u has an empty name", index);
    for (const char *c = s->name; *c; c++)
        if (*c < 0x21 || *c > 0x7e)
            return hx_error_set(err, HX_EFORMAT, -1, "section %u has a non-ASCII name", index);
    s->dtype = hxf_le32(e + 20);
    s->rank = hxf_le32(e + 24);
    uint64_t off = hxf_le64(e + 44);
    s->length = hxf_le64(e + 52);
    size_t esize = dtype_size(s->dtype);
    if (!esize)
        return hx_error_set(err, HX_EFORMAT, -1, "section '%s' has unknown dtype %u", s->name, s->dtype);
    if (s->rank > 4)
        return hx_error_set(err, HX_EFORMAT, -1, "section '%s' has rank %u (max 4)", s->name, s->rank);
    uint64_t count = 1;
    for (uint32_t d = 0; d < 4; d++) {
        s->dims[d] = hxf_le32(e + 28 + 4 * d);
        if (d < s->rank) {
            if (s->dims[d] && count > UINT64_MAX / s->dims[d])
                return hx_error_set(err, HX_EFORMAT, -1, "section '%s' shape overflows", s->name);
            count *= s->dims[d];
        } else if (s->dims[d]) {
            return hx_error_set(err, HX_EFORMAT, -1, "section '%s' has dims beyond its rank", s->name);
        }
    }
    if (s->rank && (count > UINT64_MAX / esize || count * esize != s->length))
        return hx_error_set(err, HX_EFORMAT, -1, "section '%s' length %llu does not match its shape",
                            s->name, (unsigned long long)s->length);
    if (off % HXF_ALIGN || off < HXF_HEADER_SIZE)
        return hx_error_set(err, HX_EFORMAT, -1, "section '%s' offset %llu is not 64-aligned",
                            s->name, (unsigned long long)off);
    if (off > size || s->length > size - off)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)off, "section '%s' ends past the end of the file",
                            s->name);
    s->data = base + off;
    s->crc = hxf_le32(e + 60);
    return check_crc ? hxf_section_check(s, err) : 0;
}

int hxf_section_check(const hxf_section *s, hx_error *err)
{
    if (hxf_crc32c(0, s->data, s->length) != s->crc)
        return hx_error_set(err, HX_ECHECKSUM, -1, "section '%s' fails its checksum", s->name);
    return 0;
}

static int parse(const uint8_t *base, size_t size, uint32_t expect_kind, bool check_crc, hxf_view *out,
                 hx_error *err)
{
    memset(out, 0, sizeof *out);
    if (size < HXF_HEADER_SIZE)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)size, "file is %zu bytes, shorter than its header", size);
    if (memcmp(base, HXF_MAGIC, 8) != 0)
        return hx_error_set(err, HX_EFORMAT, 0, "not a hyrax file (bad magic)");
    if (hxf_crc32c(0, base, 60) != hxf_le32(base + 60))
        return hx_error_set(err, HX_ECHECKSUM, 60, "header fails its checksum");
    uint32_t version = hxf_le32(base + 8);
    if (version != HXF_VERSION)
        return hx_error_set(err, HX_EVERSION, 8, "format version %u is not supported (this build reads version %u)",
                            version, HXF_VERSION);
    uint32_t kind = hxf_le32(base + 12);
    if (expect_kind && kind != expect_kind)
        return hx_error_set(err, HX_EFORMAT, 12, "file kind is %u, expected %u", kind, expect_kind);
    uint64_t declared = hxf_le64(base + 32);
    if (declared > size)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)size, "file is truncated: %zu of %llu bytes",
                            size, (unsigned long long)declared);
    if (declared < size)
        return hx_error_set(err, HX_EFORMAT, (int64_t)declared, "file has %llu bytes after its declared end",
                            (unsigned long long)(size - declared));
    uint64_t table = hxf_le64(base + 16);
    uint32_t n = hxf_le32(base + 24);
    if (n > HXF_MAX_SECTIONS)
        return hx_error_set(err, HX_EFORMAT, 24, "section count %u exceeds %u", n, HXF_MAX_SECTIONS);
    if (table % HXF_ALIGN || table < HXF_HEADER_SIZE || table > size ||
        (uint64_t)n * HXF_ENTRY_SIZE > size - table)
        return hx_error_set(err, HX_EFORMAT, 16, "section table lies outside the file");
    if (hxf_crc32c(0, base + table, (size_t)n * HXF_ENTRY_SIZE) != hxf_le32(base + 28))
        return hx_error_set(err, HX_ECHECKSUM, (int64_t)table, "section table fails its checksum");

    hxf_section *secs = hx_calloc(n ? n : 1, sizeof *secs);
    if (!secs)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory reading %u sections", n);
    for (uint32_t i = 0; i < n; i++) {
        int rc = parse_entry(base, size, base + table + (size_t)i * HXF_ENTRY_SIZE, i, check_crc, &secs[i], err);
        if (rc) {
            free(secs);
            return rc;
        }
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(secs[j].name, secs[i].name)) {
                rc = hx_error_set(err, HX_EFORMAT, -1, "section '%s' appears twice", secs[i].name);
                free(secs);
                return rc;
            }
    }
    out->base = base;
    out->size = size;
    out->kind = kind;
    out->n_sections = n;
    out->sections = secs;
    return 0;
}

int hxf_parse(const uint8_t *base, size_t size, uint32_t expect_kind, hxf_view *out, hx_error *err)
{
    return parse(base, size, expect_kind, true, out, err);
}

int hxf_parse_verified(const uint8_t *base, size_t size, uint32_t expect_kind, hxf_view *out, hx_error *err)
{
    return parse(base, size, expect_kind, false, out, err);
}

void hxf_view_free(hxf_view *v)
{
    free(v->sections);
    v->sections = NULL;
    v->n_sections = 0;
}

const hxf_section *hxf_find(const hxf_view *v, const char *name)
{
    for (uint32_t i = 0; i < v->n_sections; i++)
        if (!strcmp(v->sections[i].name, name))
            return &v->sections[i];
    return NULL;
}

int hxf_expect(const hxf_view *v, const char *name, uint32_t dtype, uint32_t rank,
               const uint32_t dims[4], const hxf_section **out, hx_error *err)
{
    const hxf_section *s = hxf_find(v, name);
    if (!s)
        return hx_error_set(err, HX_ENOTFOUND, -1, "section '%s' is missing", name);
    if (s->dtype != dtype || s->rank != rank)
        return hx_error_set(err, HX_EFORMAT, -1, "section '%s' has dtype %u rank %u, expected dtype %u rank %u",
                            name, s->dtype, s->rank, dtype, rank);
    for (uint32_t d = 0; d < rank; d++)
        if (dims && dims[d] && dims[d] != s->dims[d])
            return hx_error_set(err, HX_EFORMAT, -1, "section '%s' dim %u is %u, expected %u",
                                name, d, s->dims[d], dims[d]);
    *out = s;
    return 0;
}

/* === Map === */

int hxf_map_open(hxf_map *m, const char *path, hx_error *err)
{
    m->addr = NULL;
    m->size = 0;
    /* non-blocking, so a FIFO is refused below rather than waited on; the map never reads the fd */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return hx_error_set(err, errno == ENOENT ? HX_ENOTFOUND : HX_EIO, -1, "cannot open %s: %s",
                            path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return hx_error_set(err, HX_EIO, -1, "cannot stat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return hx_error_set(err, HX_EFORMAT, -1, "%s is not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return hx_error_set(err, HX_ETRUNCATED, 0, "%s is empty", path);
    }
    void *addr = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (addr == MAP_FAILED)
        return hx_error_set(err, HX_EIO, -1, "cannot map %s: %s", path, strerror(e));
    m->addr = addr;
    m->size = (size_t)st.st_size;
    return 0;
}

void hxf_map_close(hxf_map *m)
{
    if (m->addr)
        munmap(m->addr, m->size);
    m->addr = NULL;
    m->size = 0;
}

/* === Writer === */

/* Appends zeros up to the next 64-byte boundary, then len bytes of data (data may be NULL for
 * zeros only). */
static int append_aligned(hxf_writer *w, const void *data, size_t len, hx_error *err)
{
    size_t start = (w->len + HXF_ALIGN - 1) / HXF_ALIGN * HXF_ALIGN;
    if (len > SIZE_MAX - start)
        return w->error = hx_error_set(err, HX_ERANGE, -1, "file image too large");
    int rc = hx_grow((void **)&w->data, &w->cap, start + len, 1, err);
    if (rc)
        return w->error = rc;
    memset(w->data + w->len, 0, start - w->len);
    if (len)
        memcpy(w->data + start, data, len);
    w->len = start + len;
    return 0;
}

void hxf_writer_begin(hxf_writer *w, uint32_t kind)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->len = HXF_HEADER_SIZE;   /* the header is filled in by finish */
}

int hxf_writer_add(hxf_writer *w, const char *name, uint32_t dtype, uint32_t rank,
                   const uint32_t dims[4], const void *data, uint64_t length, hx_error *err)
{
    if (w->error)
        return w->error;
    size_t nlen = strlen(name);
    if (!nlen || nlen > HXF_NAME_MAX || rank > 4 || !dtype_size(dtype) || length > SIZE_MAX)
        return w->error = hx_error_set(err, HX_EINVAL, -1, "bad section '%s'", name);
    if (w->n_sections == HXF_MAX_SECTIONS)
        return w->error = hx_error_set(err, HX_ERANGE, -1, "too many sections");
    if (w->n_sections == w->cap_sections) {
        uint32_t cap = w->cap_sections ? w->cap_sections * 2 : 16;
        uint8_t *t = hx_realloc(w->table, (size_t)cap * HXF_ENTRY_SIZE);
        if (!t)
            return w->error = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        w->table = t;
        w->cap_sections = cap;
    }
    int rc = append_aligned(w, data, (size_t)length, err);
    if (rc)
        return rc;
    uint8_t *e = w->table + (size_t)w->n_sections * HXF_ENTRY_SIZE;
    memset(e, 0, HXF_ENTRY_SIZE);
    memcpy(e, name, nlen);
    hxf_put32(e + 20, dtype);
    hxf_put32(e + 24, rank);
    for (uint32_t d = 0; d < rank; d++)
        hxf_put32(e + 28 + 4 * d, dims[d]);
    hxf_put64(e + 44, w->len - length);
    hxf_put64(e + 52, length);
    hxf_put32(e + 60, hxf_crc32c(0, w->data + w->len - length, (size_t)length));
    w->n_sections++;
    return 0;
}

int hxf_writer_finish(hxf_writer *w, uint8_t **out, size_t *len, hx_error *err)
{
    int rc = w->error;
    size_t tlen = (size_t)w->n_sections * HXF_ENTRY_SIZE;
    size_t table = 0;
    if (!rc && !(rc = append_aligned(w, NULL, 0, err))) {
        table = w->len;
        rc = append_aligned(w, w->table, tlen, err);
    }
    if (!rc) {
        uint8_t *h = w->data;
        memset(h, 0, HXF_HEADER_SIZE);
        memcpy(h, HXF_MAGIC, 8);
        hxf_put32(h + 8, HXF_VERSION);
        hxf_put32(h + 12, w->kind);
        hxf_put64(h + 16, table);
        hxf_put32(h + 24, w->n_sections);
        hxf_put32(h + 28, hxf_crc32c(0, w->table, tlen));
        hxf_put64(h + 32, w->len);
        hxf_put32(h + 60, hxf_crc32c(0, h, 60));
        *out = w->data;
        *len = w->len;
        w->data = NULL;
    }
    free(w->data);
    free(w->table);
    memset(w, 0, sizeof *w);
    return rc;
}
