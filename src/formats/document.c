/* document.c: the decoded document (hxi_doc_source, doctype.h): decoding a file's bytes to UTF-8
 * (hxi_doc_decode), its metadata pairs and its title. Shared by ingest, which fills documents from
 * files, and the types' describers (doctype_text.c), which read titles and metadata from the text.
 * Must not touch the file system. */
#include "doctype.h"
#include "alloc.h"
#include "unicode.h"
#include "yaml.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define META_KEY_MAX HX_YAML_KEY_MAX
#define META_VALUE_MAX 512

/* === Small helpers === */

/* Length of the longest prefix of s[0..n) that is at most `max` bytes and ends on a UTF-8
 * character boundary. */
static size_t utf8_clip(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

void hxi_doc_source_clear(hxi_doc_source *d)
{
    free(d->path);
    free(d->text);
    free(d->title);
    free(d->blocks);
    for (size_t i = 0; i < d->n_headings; i++)
        free(d->headings[i]);
    free(d->headings);
    hxi_kv_free(d->meta, d->n_meta);
    hxi_units_free(d->units, d->n_units);
    memset(d, 0, sizeof *d);
}

void hxi_doc_take_extract(hxi_doc_source *d, hxi_extract *x)
{
    d->text = x->text;
    d->text_len = x->len;
    d->encoding = x->encoding;
    x->text = NULL;
    bool units = x->n_units > 1 || (x->n_units == 1 && x->units[0].n_meta);
    if (!units && (!d->dt || d->dt->chunk != HX_CHUNK_BLOCKS))
        return;
    d->blocks = x->blocks;
    d->n_blocks = x->n_blocks;
    d->headings = x->headings;
    d->n_headings = x->n_headings;
    x->blocks = NULL;
    x->headings = NULL;
    x->n_headings = 0;
    if (!units)
        return;
    d->units = x->units;
    d->n_units = x->n_units;
    x->units = NULL;
    x->n_units = 0;
}

/* === Decoding === */

static bool valid_utf8(const uint8_t *s, size_t n)
{
    size_t pos = 0;
    uint32_t cp;
    while (pos < n)
        if (!hxi_utf8_next((const char *)s, n, &pos, &cp))
            return false;
    return true;
}

/* Decoded text never holds a NUL: it would end every C string made from it (chunk texts, the
 * tokenizer's input) and silently drop what follows. So one NUL anywhere makes a file binary. */
static int binary_at(size_t offset, hx_error *err)
{
    return hx_error_set(err, HX_EFORMAT, (int64_t)offset, "binary file (NUL at byte %zu)", offset);
}

/* UTF-16 with BOM to UTF-8; unpaired surrogates become U+FFFD. A U+0000 makes the file binary,
 * as a NUL byte does in the other encodings (see hxi_doc_decode). `base` is the offset of
 * raw[0] in the file, for the error. */
static int decode_utf16(const uint8_t *raw, size_t len, size_t base, bool big_endian, char **text,
                        size_t *out_len, hx_error *err)
{
    size_t units = len / 2;
    if (units > SIZE_MAX / 3 - 1)
        return hx_error_set(err, HX_ERANGE, -1, "file too large to decode");
    char *buf = hx_malloc(units * 3 + 1), *p = buf;   /* a unit yields at most 3 bytes; pairs 4 for 2 */
    if (!buf)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory decoding UTF-16");
    for (size_t i = 0; i < units; i++) {
        const uint8_t *u = raw + 2 * i;
        uint32_t c = big_endian ? (uint32_t)u[0] << 8 | u[1] : (uint32_t)u[1] << 8 | u[0];
        if (c == 0) {
            free(buf);
            return binary_at(base + 2 * i, err);
        }
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < units) {
            const uint8_t *v = u + 2;
            uint32_t lo = big_endian ? (uint32_t)v[0] << 8 | v[1] : (uint32_t)v[1] << 8 | v[0];
            if (lo >= 0xDC00 && lo < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                c = 0xFFFD;
            }
        } else if (c >= 0xD800 && c < 0xE000) {
            c = 0xFFFD;
        }
        p += hxi_utf8_put(c, p);
    }
    *p = 0;
    *text = buf;
    *out_len = (size_t)(p - buf);
    return 0;
}

int hxi_doc_decode(const uint8_t *raw, size_t len, char **text, size_t *text_len,
                   const char **encoding, hx_error *err)
{
    if (len >= 2 && ((raw[0] == 0xFF && raw[1] == 0xFE) || (raw[0] == 0xFE && raw[1] == 0xFF))) {
        bool be = raw[0] == 0xFE;
        *encoding = be ? "utf-16be" : "utf-16le";
        return decode_utf16(raw + 2, len - 2, 2, be, text, text_len, err);
    }
    const uint8_t *nul = memchr(raw, 0, len);
    if (nul)
        return binary_at((size_t)(nul - raw), err);
    size_t skip = len >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF ? 3 : 0;
    if (valid_utf8(raw + skip, len - skip)) {
        *encoding = skip ? "utf-8-bom" : "utf-8";
        if (!(*text = hx_strndup((const char *)raw + skip, len - skip)))
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        *text_len = len - skip;
        return 0;
    }
    if (len > SIZE_MAX / 2 - 1)
        return hx_error_set(err, HX_ERANGE, -1, "file too large to decode");
    char *buf = hx_malloc(len * 2 + 1), *p = buf;     /* Latin-1: each byte is U+0000..U+00FF */
    if (!buf)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory decoding Latin-1");
    for (size_t i = 0; i < len; i++)
        p += hxi_utf8_put(raw[i], p);
    *p = 0;
    *encoding = "latin-1";
    *text = buf;
    *text_len = (size_t)(p - buf);
    return 0;
}

/* === Metadata === */

int hxi_doc_meta_add(hxi_doc_source *d, size_t from, const char *key, size_t klen, const char *val, size_t vlen,
                     hx_error *err)
{
    for (size_t i = 0; i < from && i < d->n_meta; i++)
        if (strlen(d->meta[i].key) == klen && !memcmp(d->meta[i].key, key, klen))
            return 0;
    if (d->n_meta == HX_META_MAX || klen == 0 || klen > META_KEY_MAX)
        return 0;
    if (!d->meta && !(d->meta = hx_calloc(HX_META_MAX, sizeof *d->meta)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    vlen = utf8_clip(val, vlen, META_VALUE_MAX);
    hx_kv *kv = &d->meta[d->n_meta];
    kv->key = hx_strndup(key, klen);
    kv->value = hx_strndup(val, vlen);
    if (!kv->key || !kv->value) {
        free(kv->key);
        free(kv->value);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    d->n_meta++;
    return 0;
}

int hxi_doc_set_title(hxi_doc_source *d, const char *s, size_t n, hx_error *err)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    n = utf8_clip(s, n, HX_LABEL_MAX);
    free(d->title);
    if (!(d->title = hx_strndup(s, n)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    return 0;
}

int hxi_doc_title_from_lines(hxi_doc_source *d, size_t from, bool skip_comments, hx_error *err)
{
    const char *text = d->text;
    for (size_t pos = from, n = d->text_len; !d->title && pos < n;) {
        const char *nl = memchr(text + pos, '\n', n - pos);
        size_t l = nl ? (size_t)(nl - (text + pos)) : n - pos;
        size_t k = 0;
        while (k < l && (text[pos + k] == ' ' || text[pos + k] == '\t' || text[pos + k] == '\r'))
            k++;
        if (k < l && !(skip_comments && text[pos + k] == '#'))
            return hxi_doc_set_title(d, text + pos, l, err);
        pos += l + (nl != NULL);
    }
    return 0;
}
