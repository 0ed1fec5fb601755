/* doctype.c: the table of document types, detection by content then name, and the extraction
 * builder every extractor writes through (spec in doctype.h). Owns the rules the contract states
 * once: control characters dropped, white space collapsed, blocks and heading paths, warnings.
 * Must not know any format's syntax: each extractor, describer and check lives in its row's file. */
#include "doctype.h"
#include "alloc.h"
#include "relpath.h"
#include "unicode.h"
#include "yaml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* === Builder === */

int hxi_extract_init(hxi_extract *x, size_t in_len, hx_error *err)
{
    memset(x, 0, sizeof *x);
    x->encoding = "utf-8";
    x->limit = in_len > SIZE_MAX / HX_INGEST_MAX_GROWTH - 1 ? SIZE_MAX - 1 : in_len * HX_INGEST_MAX_GROWTH;
    bool ok = !hx_grow((void **)&x->text, &x->cap, 256, 1, NULL) &&
              !hx_grow((void **)&x->headings, &x->cap_headings, 4, sizeof *x->headings, NULL) &&
              (x->headings[0] = hx_strdup("")) != NULL;
    if (ok)
        x->n_headings = 1;   /* counted at once, so that clearing frees it when what follows fails */
    if (!ok || hx_grow((void **)&x->units, &x->cap_units, 1, sizeof *x->units, NULL)) {
        hxi_extract_clear(x);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory extracting");
    }
    x->units[0] = (hxi_unit){0};
    x->n_units = 1;
    x->text[0] = 0;
    return 0;
}

void hxi_extract_clear(hxi_extract *x)
{
    free(x->text);
    free(x->title);
    free(x->blocks);
    for (size_t i = 0; i < x->n_headings; i++)
        free(x->headings[i]);
    free(x->headings);
    hxi_kv_free(x->meta, x->n_meta);
    hxi_units_free(x->units, x->n_units);
    memset(x, 0, sizeof *x);
}

void hxi_units_free(hxi_unit *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hxi_kv_free(u[i].meta, u[i].n_meta);
    free(u);
}

void hxi_kv_free(hx_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(kv[i].key);
        free(kv[i].value);
    }
    free(kv);
}

const char *hxi_kv_get(const hx_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kv[i].key, key))
            return kv[i].value;
    return NULL;
}

static int oom(hx_error *err)
{
    return hx_error_set(err, HX_ENOMEM, -1, "out of memory extracting");
}

static bool is_ws(uint32_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0xA0;
}

/* Controls the contract drops: C0 but tab, LF, CR, FF; and DEL (NUL never reaches text). */
static bool is_dropped(uint32_t c)
{
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7F;
}

static int put_bytes(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    if (x->len + n > x->limit)
        return hx_error_set(err, HX_ERANGE, -1, "extracted text grows past %d times the file", HX_INGEST_MAX_GROWTH);
    if (hx_grow((void **)&x->text, &x->cap, x->len + n + 1, 1, NULL))
        return oom(err);
    memcpy(x->text + x->len, s, n);
    x->len += n;
    x->text[x->len] = 0;
    return 0;
}

static hxi_block *cur(hxi_extract *x)
{
    return x->open ? &x->blocks[x->n_blocks - 1] : NULL;
}

/* Makes sure a block is open, separated from the text before it by a blank line. */
static int ensure_block(hxi_extract *x, hx_error *err)
{
    if (x->open)
        return 0;
    if (x->len) {
        size_t nl = 0;
        while (nl < 2 && nl < x->len && x->text[x->len - 1 - nl] == '\n')
            nl++;
        int rc = nl < 2 ? put_bytes(x, "\n\n", 2 - nl, err) : 0;
        if (rc)
            return rc;
    }
    if (x->n_blocks >= UINT32_MAX || x->len >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "document too large to extract");
    if (hx_grow((void **)&x->blocks, &x->cap_blocks, x->n_blocks + 1, sizeof *x->blocks, NULL))
        return oom(err);
    x->blocks[x->n_blocks++] = (hxi_block){(uint32_t)x->len, (uint32_t)x->len,
                                          x->depth ? x->path[x->depth - 1] : 0, 0, 0,
                                          (uint32_t)x->n_units - 1, x->next_kind};
    x->open = true;
    x->space = false;
    return 0;
}

/* Ends the open block: trailing white space trimmed (but in VERBATIM), an empty block forgotten. */
static void close_block(hxi_extract *x)
{
    hxi_block *b = cur(x);
    if (!b)
        return;
    while (b->kind != HX_BLOCK_VERBATIM && b->end > b->start && (unsigned char)x->text[b->end - 1] < 0x80 &&
           is_ws((unsigned char)x->text[b->end - 1]))   /* ASCII: a UTF-8 tail byte may be 0xA0 */
        b->end--;
    x->len = b->end;
    x->text[x->len] = 0;
    x->open = false;
    x->space = false;
    if (b->end == b->start)
        x->n_blocks--;
}

static void note_source(hxi_extract *x)
{
    hxi_block *b = cur(x);
    if (!b || !x->src_first)
        return;
    if (!b->src_first || x->src_first < b->src_first)
        b->src_first = x->src_first;
    if (x->src_last > b->src_last)
        b->src_last = x->src_last;
}

/* Writes s[0..n) into the open block (opening one); collapse: each run of white space is one
 * space between words. Valid characters are copied in runs. */
static int write_text(hxi_extract *x, const char *s, size_t n, bool collapse, hx_error *err)
{
    int rc = ensure_block(x, err);
    if (rc)
        return rc;
    hxi_block *b = cur(x);
    size_t pos = 0, run = 0;   /* s[run..pos) is still to be copied */
    char u[4];
    while (pos < n && !rc) {
        size_t at = pos;
        uint32_t cp = (unsigned char)s[pos];
        bool valid = true;
        if (cp < 0x80)
            pos++;
        else
            valid = hxi_utf8_next(s, n, &pos, &cp);
        bool ws = collapse && is_ws(cp);
        if (valid && !is_dropped(cp) && !ws) {
            if (collapse && x->space) {
                x->space = false;
                if (!(rc = put_bytes(x, s + run, at - run, err)))
                    rc = put_bytes(x, " ", 1, err);
                run = at;
            }
            continue;
        }
        if ((rc = put_bytes(x, s + run, at - run, err)))
            break;
        run = pos;
        if (!valid) {
            if (collapse && x->space && (rc = put_bytes(x, " ", 1, err)))
                break;
            x->space = false;
            rc = put_bytes(x, u, (size_t)hxi_utf8_put(0xFFFD, u), err);
        } else if (ws) {
            x->space = x->len > b->start;   /* never at a block's start */
        } else {
            x->dropped++;
        }
    }
    if (!rc && pos > run)
        rc = put_bytes(x, s + run, pos - run, err);
    b->end = (uint32_t)x->len;
    note_source(x);
    return rc;
}

int hxi_x_text(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    x->space = false;
    return write_text(x, s, n, false, err);
}

int hxi_x_words(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    return write_text(x, s, n, true, err);
}

int hxi_x_block(hxi_extract *x, hxi_block_kind kind, hx_error *err)
{
    (void)err;
    close_block(x);
    x->next_kind = kind;
    return 0;
}

/* s[0..n) with white space collapsed and controls dropped, cut at max bytes on a code point.
 * Caller frees; NULL when out of memory. */
static char *clean_copy(const char *s, size_t n, size_t max)
{
    size_t cap = n < max ? n : max;
    char *out = hx_malloc(cap + 1), *p = out;   /* every byte kept is at most one byte out, but U+FFFD */
    if (!out)
        return NULL;
    bool space = false;
    for (size_t pos = 0; pos < n;) {
        size_t at = pos;
        uint32_t cp;
        bool valid = hxi_utf8_next(s, n, &pos, &cp);
        if (is_dropped(cp))
            continue;
        if (is_ws(cp)) {
            space = p > out;
            continue;
        }
        char u[4];
        size_t k = valid ? pos - at : (size_t)hxi_utf8_put(0xFFFD, u);
        if ((size_t)(p - out) + space + k > cap)
            break;
        if (space)
            *p++ = ' ';
        space = false;
        memcpy(p, valid ? s + at : u, k);
        p += k;
    }
    *p = 0;
    return out;
}

/* Whether title t (as clean_copy makes it) only repeats the file's name, with or without its extension. */
static bool names_file(const hxi_extract *x, const char *t)
{
    if (!x->name)
        return false;
    const char *base;
    size_t tl = strlen(t), stem = hxi_path_stem(x->name, &base);
    return !strcasecmp(t, base) || (tl == stem && !strncasecmp(t, base, stem));
}

static int set_title(hxi_extract *x, const char *s, size_t n, bool unless_file, hx_error *err)
{
    if (x->title && !x->title_from_heading)
        return 0;
    char *t = clean_copy(s, n, HX_LABEL_MAX);
    if (!t)
        return oom(err);
    if (!*t || (unless_file && names_file(x, t))) {
        free(t);
        return 0;
    }
    free(x->title);
    x->title = t;
    x->title_from_heading = false;
    return 0;
}

int hxi_x_title(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    return set_title(x, s, n, false, err);
}

int hxi_x_title_unless_file(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    return set_title(x, s, n, true, err);
}

/* Opens a section under a heading of `level` whose words are s[0..n); write: its words are also
 * a HEADING block of the text. */
static int open_section(hxi_extract *x, int level, const char *s, size_t n, bool write, hx_error *err)
{
    level = level < 1 ? 1 : level > HX_X_MAX_DEPTH ? HX_X_MAX_DEPTH : level;
    char *words = clean_copy(s, n, HX_LABEL_MAX);
    if (!words)
        return oom(err);
    int rc = 0;
    if (!*words)
        goto out;
    while (x->depth > 0 && x->levels[x->depth - 1] >= level)
        x->depth--;
    const char *parent = x->depth ? x->headings[x->path[x->depth - 1]] : "";
    size_t pl = strlen(parent), wl = strlen(words);
    char *path = hx_malloc(pl + 3 + wl + 1);
    if (!path || hx_grow((void **)&x->headings, &x->cap_headings, x->n_headings + 1, sizeof *x->headings, NULL)) {
        free(path);
        rc = oom(err);
        goto out;
    }
    snprintf(path, pl + 3 + wl + 1, "%s%s%s", parent, pl ? " > " : "", words);
    x->headings[x->n_headings] = path;
    x->levels[x->depth] = level;
    x->path[x->depth++] = (uint32_t)x->n_headings++;
    if (!x->title && level == 1) {
        x->title = words;
        x->title_from_heading = true;
        words = NULL;
    }
    close_block(x);
    if (write) {
        x->next_kind = HX_BLOCK_HEADING;
        rc = write_text(x, s, n, true, err);
        close_block(x);
    }
    x->next_kind = HX_BLOCK_PROSE;
out:
    free(words);
    return rc;
}

int hxi_x_heading(hxi_extract *x, int level, const char *s, size_t n, hx_error *err)
{
    return open_section(x, level, s, n, true, err);
}

int hxi_x_section(hxi_extract *x, int level, const char *s, size_t n, hx_error *err)
{
    return open_section(x, level, s, n, false, err);
}

void hxi_x_source(hxi_extract *x, uint32_t first, uint32_t last)
{
    x->src_first = first;
    x->src_last = last < first ? first : last;
}

/* Appends key = value (white space collapsed, cut at a code point) to a list of pairs; an empty
 * value adds nothing. */
static int add_pair(hx_kv **kv, size_t *n, size_t *cap, const char *key, const char *value, size_t vlen,
                    hx_error *err)
{
    if (hx_grow((void **)kv, cap, *n + 1, sizeof **kv, NULL))
        return oom(err);
    char *v = clean_copy(value, vlen, 512), *k = v && *v ? hx_strdup(key) : NULL;
    if (!k) {
        bool empty = v && !*v;
        free(v);
        return empty ? 0 : oom(err);
    }
    (*kv)[(*n)++] = (hx_kv){k, v};
    return 0;
}

int hxi_x_meta(hxi_extract *x, const char *key, const char *value, size_t vlen, hx_error *err)
{
    return add_pair(&x->meta, &x->n_meta, &x->cap_meta, key, value, vlen, err);
}

int hxi_x_unit(hxi_extract *x, hx_error *err)
{
    close_block(x);
    if (x->n_units >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "too many units to extract");
    if (hx_grow((void **)&x->units, &x->cap_units, x->n_units + 1, sizeof *x->units, NULL))
        return oom(err);
    x->units[x->n_units++] = (hxi_unit){0};
    return 0;
}

int hxi_x_unit_meta(hxi_extract *x, const char *key, const char *value, size_t vlen, hx_error *err)
{
    hxi_unit *u = &x->units[x->n_units - 1];
    size_t klen = strlen(key);
    if (u->n_meta >= HX_META_MAX || klen == 0 || klen > HX_YAML_KEY_MAX)
        return 0;
    return add_pair(&u->meta, &u->n_meta, &u->cap_meta, key, value, vlen, err);
}

int hxi_x_meta_uint(hxi_extract *x, const char *key, uint64_t value, hx_error *err)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)value);
    return hxi_x_meta(x, key, buf, (size_t)n, err);
}

int hxi_x_warn(hxi_extract *x, hx_error *err, const char *fmt, ...)
{
    if (x->n_warnings++ >= HX_X_MAX_WARNINGS)
        return 0;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return hxi_x_meta(x, "warning", buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, err);
}

int hxi_x_finish(hxi_extract *x, hx_error *err)
{
    close_block(x);
    x->len = x->n_blocks ? x->blocks[x->n_blocks - 1].end : 0;   /* no separator after the last block */
    x->text[x->len] = 0;
    int rc = 0;
    if (x->dropped)
        rc = hxi_x_warn(x, err, "dropped %u control character%s", x->dropped, x->dropped == 1 ? "" : "s");
    if (!rc && x->n_warnings > HX_X_MAX_WARNINGS)
        rc = hxi_x_meta_uint(x, "warnings_not_shown", x->n_warnings - HX_X_MAX_WARNINGS, err);
    return rc;
}

/* === The table === */

extern const hxi_doctype hxi_doctype_markdown, hxi_doctype_yaml, hxi_doctype_json, hxi_doctype_xml,
    hxi_doctype_archimate, hxi_doctype_html, hxi_doctype_code, hxi_doctype_text, hxi_doctype_docx, hxi_doctype_xlsx, hxi_doctype_pptx, hxi_doctype_odt, hxi_doctype_ods,
    hxi_doctype_odp, hxi_doctype_epub, hxi_doctype_pdf, hxi_doctype_directive;

/* Detection order: magic is tried in this order over every row first, then names. */
static const hxi_doctype *const table[] = {
    &hxi_doctype_pdf, &hxi_doctype_docx, &hxi_doctype_xlsx, &hxi_doctype_pptx, &hxi_doctype_odt, &hxi_doctype_ods, &hxi_doctype_odp,
    &hxi_doctype_epub, &hxi_doctype_directive,
    &hxi_doctype_html, &hxi_doctype_archimate, &hxi_doctype_xml, &hxi_doctype_markdown, &hxi_doctype_yaml, &hxi_doctype_json,
    &hxi_doctype_code, &hxi_doctype_text,
};
#define N_TYPES (sizeof table / sizeof *table)

const hxi_doctype *hxi_doctype_at(size_t i)
{
    return i < N_TYPES ? table[i] : NULL;
}

size_t hxi_doctype_count(void)
{
    return N_TYPES;
}

const hxi_doctype *hxi_doctype_find(const char *name, size_t len)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (strlen(table[i]->name) == len && !memcmp(table[i]->name, name, len))
            return table[i];
    return NULL;
}

const char *hxi_doctype_unit_name(const char *name)
{
    const hxi_doctype *t = name ? hxi_doctype_find(name, strlen(name)) : NULL;
    return t && t->unit == HX_UNIT_PAGE ? "page" : "line";
}

static bool magic_match(const hxi_magic *m, const uint8_t *raw, size_t len)
{
    size_t at = m->offset;
    if (m->fold) {
        if (len >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF)
            at += 3;
        while (at < len && at < 1024 && is_ws(raw[at]))
            at++;
    }
    if (at > len || len - at < m->len)
        return false;
    return m->fold ? !strncasecmp((const char *)raw + at, m->bytes, m->len) : !memcmp(raw + at, m->bytes, m->len);
}

const hxi_doctype *hxi_doctype_detect(const char *path, const uint8_t *raw, size_t len)
{
    for (size_t i = 0; i < N_TYPES; i++) {
        for (int k = 0; k < HX_DOCTYPE_MAX_MAGIC && table[i]->magic[k].len; k++)
            if (magic_match(&table[i]->magic[k], raw, len))
                return table[i];
        if ((table[i]->sniff && table[i]->sniff(raw, len)) ||
            (table[i]->sniff_path && table[i]->sniff_path(path, raw, len)))
            return table[i];
    }
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    for (size_t i = 0; i < N_TYPES; i++) {
        for (const char *const *n = table[i]->names; n && *n; n++)
            if (!strcmp(base, *n))
                return table[i];
        for (const char *const *e = table[i]->exts; dot && e && *e; e++)
            if (!strcasecmp(dot + 1, *e))
                return table[i];
    }
    return &hxi_doctype_text;
}
