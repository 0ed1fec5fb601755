/* json_write.c: the JSON writer of json.h (a growable buffer with sticky errors: values, strings
 * escaped to valid UTF-8, containers, members, copies of parsed values) and the layout of JSON
 * text for a person (hxi_json_pretty). The reader is json.c's. Spec: RFC 8259 and json.h. */
#include "json.h"
#include "alloc.h"
#include "json_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Writer === */

void hxi_json_writer_init(hxi_json_writer *w)
{
    memset(w, 0, sizeof *w);
}

void hxi_json_writer_free(hxi_json_writer *w)
{
    if (w) {
        free(w->buf);
        hxi_json_writer_init(w);
    }
}

void hxi_json_writer_reset(hxi_json_writer *w)
{
    char *buf = w->buf;
    size_t cap = w->cap;
    hxi_json_writer_init(w);
    w->buf = buf;
    w->cap = cap;
    if (buf)
        buf[0] = '\0';
}

int hxi_json_writer_finish(const hxi_json_writer *w, hx_error *err)
{
    if (w->status)
        return hx_error_set(err, w->status, (int64_t)w->len, "JSON writer failed: %s",
                            hx_strerror(w->status));
    if (w->depth || w->after_key || w->len == 0)
        return hx_error_set(err, HX_EINVAL, (int64_t)w->len, "JSON writer holds no complete value");
    return 0;
}

char *hxi_json_writer_take(hxi_json_writer *w, size_t *len)
{
    if (w->status)
        return NULL;
    char *buf = w->buf;
    if (!buf) {
        buf = hx_malloc(1);
        if (!buf) {
            w->status = HX_ENOMEM;
            return NULL;
        }
        buf[0] = '\0';
    }
    if (len)
        *len = w->len;
    hxi_json_writer_init(w);
    return buf;
}

static int fail(hxi_json_writer *w, int code)
{
    if (!w->status)
        w->status = code;
    return 0;
}

/* Makes room for n more bytes plus the NUL; 0 (and a sticky error) if it cannot. */
static int reserve(hxi_json_writer *w, size_t n)
{
    if (w->status)
        return 0;
    if (n > SIZE_MAX - 1 - w->len)
        return fail(w, HX_ENOMEM);
    if (hx_grow((void **)&w->buf, &w->cap, w->len + n + 1, 1, NULL))
        return fail(w, HX_ENOMEM);
    return 1;
}

static void put(hxi_json_writer *w, const char *s, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void putc1(hxi_json_writer *w, char c)
{
    put(w, &c, 1);
}

/* Checks that a value may come next and writes the comma before it; 0 if it may not. */
static int pre_value(hxi_json_writer *w)
{
    if (w->status)
        return 0;
    if (w->depth == 0 ? w->len > 0 : (w->stack[w->depth - 1] == 'o' && !w->after_key))
        return fail(w, HX_EINVAL);
    if (w->comma && !w->after_key)
        putc1(w, ',');
    w->after_key = 0;
    w->comma = 1;
    return !w->status;
}

static void put_str_body(hxi_json_writer *w, const char *s, size_t len)
{
    static const char hexd[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    putc1(w, '"');
    size_t i = 0;
    while (i < len && !w->status) {
        size_t run = i;
        while (run < len && u[run] >= 0x20 && u[run] < 0x7F && u[run] != '"' && u[run] != '\\')
            run++;
        if (run > i) {
            put(w, s + i, run - i);
            i = run;
            continue;
        }
        unsigned c = u[i];
        char esc[6] = {'\\', 'u', '0', '0', 0, 0};
        if (c < 0x80) {
            const char *short_esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                                  : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                                  : c == '\f' ? "\\f" : NULL;
            if (short_esc) {
                put(w, short_esc, 2);
            } else {
                esc[4] = hexd[c >> 4];
                esc[5] = hexd[c & 15];
                put(w, esc, 6);
            }
            i++;
            continue;
        }
        size_t k = hxi_json_utf8_seq(u + i, len - i);
        if (k == 0) {
            put(w, "\xEF\xBF\xBD", 3);
            i++;
        } else if (k == 2 && c == 0xC2 && u[i + 1] < 0xA0) {  /* C1 control U+0080..U+009F */
            esc[4] = hexd[u[i + 1] >> 4];
            esc[5] = hexd[u[i + 1] & 15];
            put(w, esc, 6);
            i += 2;
        } else if (k == 3 && c == 0xE2 && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9)) {
            put(w, u[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
            i += 3;
        } else {
            put(w, s + i, k);
            i += k;
        }
    }
    putc1(w, '"');
}

void hxi_json_write_null(hxi_json_writer *w)
{
    if (pre_value(w))
        put(w, "null", 4);
}

void hxi_json_write_bool(hxi_json_writer *w, int b)
{
    if (pre_value(w))
        put(w, b ? "true" : "false", b ? 4 : 5);
}

void hxi_json_write_int(hxi_json_writer *w, int64_t x)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)x);
    if (pre_value(w))
        put(w, tmp, (size_t)n);
}

void hxi_json_write_uint(hxi_json_writer *w, uint64_t x)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)x);
    if (pre_value(w))
        put(w, tmp, (size_t)n);
}

void hxi_json_write_double(hxi_json_writer *w, double x)
{
    if (!isfinite(x)) {
        hxi_json_write_null(w);
        return;
    }
    char tmp[32];
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    if (pre_value(w))
        put(w, tmp, (size_t)n);
}

void hxi_json_write_str(hxi_json_writer *w, const char *s, size_t len)
{
    if (!s && len) {
        fail(w, HX_EINVAL);
        return;
    }
    if (pre_value(w))
        put_str_body(w, s ? s : "", len);
}

void hxi_json_write_cstr(hxi_json_writer *w, const char *s)
{
    if (s)
        hxi_json_write_str(w, s, strlen(s));
    else
        hxi_json_write_null(w);
}

void hxi_json_write_number_text(hxi_json_writer *w, const char *s, size_t len)
{
    size_t end, bad;
    if (!s || hxi_json_number_scan(s, len, 0, &end, &bad) || end != len) {
        fail(w, HX_EINVAL);
        return;
    }
    if (pre_value(w))
        put(w, s, len);
}

void hxi_json_write_json(hxi_json_writer *w, const char *text, size_t len)
{
    if (w->status)
        return;
    hxi_json_doc *doc;
    if (hxi_json_parse(&doc, text, len, NULL, NULL)) {
        fail(w, HX_EINVAL);
        return;
    }
    size_t start = doc->vals[0].off;
    hxi_json_doc_free(doc);
    while (len > start && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n' ||
                           text[len - 1] == '\r'))
        len--;
    if (!pre_value(w) || !reserve(w, len - start))
        return;
    for (size_t i = start; i < len; i++) {
        char c = text[i];
        w->buf[w->len++] = c == '\n' || c == '\r' ? ' ' : c;
    }
    w->buf[w->len] = '\0';
}

static void begin_container(hxi_json_writer *w, unsigned char kind, char open)
{
    if (!pre_value(w))
        return;
    if (w->depth >= HX_JSON_WRITER_DEPTH) {
        fail(w, HX_EDEPTH);
        return;
    }
    putc1(w, open);
    w->stack[w->depth++] = kind;
    w->comma = 0;
}

void hxi_json_write_arr_begin(hxi_json_writer *w) { begin_container(w, 'a', '['); }
void hxi_json_write_obj_begin(hxi_json_writer *w) { begin_container(w, 'o', '{'); }

static void end_container(hxi_json_writer *w, unsigned char kind, char close)
{
    if (w->status)
        return;
    if (w->depth == 0 || w->stack[w->depth - 1] != kind || w->after_key) {
        fail(w, HX_EINVAL);
        return;
    }
    putc1(w, close);
    w->depth--;
    w->comma = 1;
}

void hxi_json_write_arr_end(hxi_json_writer *w) { end_container(w, 'a', ']'); }
void hxi_json_write_obj_end(hxi_json_writer *w) { end_container(w, 'o', '}'); }

void hxi_json_write_keyn(hxi_json_writer *w, const char *key, size_t len)
{
    if (w->status)
        return;
    if (w->depth == 0 || w->stack[w->depth - 1] != 'o' || w->after_key || (!key && len)) {
        fail(w, HX_EINVAL);
        return;
    }
    if (w->comma)
        putc1(w, ',');
    put_str_body(w, key ? key : "", len);
    putc1(w, ':');
    w->after_key = 1;
}

void hxi_json_write_key(hxi_json_writer *w, const char *key)
{
    hxi_json_write_keyn(w, key, key ? strlen(key) : 0);
}

/* The members: write_key, then the write of the value's type. */
#define JSON_KV(name, type)                                                   \
    void hxi_json_kv_##name(hxi_json_writer *w, const char *key, type value) \
    {                                                                         \
        hxi_json_write_key(w, key);                                           \
        hxi_json_write_##name(w, value);                                      \
    }
JSON_KV(cstr, const char *)
JSON_KV(uint, uint64_t)
JSON_KV(int, int64_t)
JSON_KV(double, double)
JSON_KV(bool, int)
#undef JSON_KV

void hxi_json_kv_strings(hxi_json_writer *w, const char *key, const char *const *list)
{
    hxi_json_write_key(w, key);
    hxi_json_write_arr_begin(w);
    for (; *list; list++)
        hxi_json_write_cstr(w, *list);
    hxi_json_write_arr_end(w);
}

/* Recursion depth is bounded by HX_JSON_WRITER_DEPTH: past it the writer has failed and every
 * nested call returns at once. */
void hxi_json_write_val(hxi_json_writer *w, const hxi_json_val *v)
{
    if (w->status)
        return;
    if (!v) {
        fail(w, HX_EINVAL);
        return;
    }
    hxi_json_iter it;
    const hxi_json_val *k, *x;
    switch (v->type) {
    case HX_JSON_NULL: hxi_json_write_null(w); return;
    case HX_JSON_BOOL: hxi_json_write_bool(w, (int)v->n); return;
    case HX_JSON_NUMBER:
        if (pre_value(w))
            put(w, v->s, v->n);
        return;
    case HX_JSON_STRING: hxi_json_write_str(w, v->s, v->n); return;
    case HX_JSON_ARRAY:
        hxi_json_write_arr_begin(w);
        hxi_json_iter_init(&it, v);
        while (hxi_json_iter_next(&it, NULL, &x))
            hxi_json_write_val(w, x);
        hxi_json_write_arr_end(w);
        return;
    default:
        hxi_json_write_obj_begin(w);
        hxi_json_iter_init(&it, v);
        while (hxi_json_iter_next(&it, &k, &x)) {
            hxi_json_write_keyn(w, k->s, k->n);
            hxi_json_write_val(w, x);
        }
        hxi_json_write_obj_end(w);
        return;
    }
}

/* === Layout === */

/* Appends n bytes to *out (cap, len); false when out of memory. */
static bool pretty_put(char **out, size_t *cap, size_t *len, const char *p, size_t n)
{
    if (hx_grow((void **)out, cap, *len + n + 1, 1, NULL))
        return false;
    memcpy(*out + *len, p, n);
    *len += n;
    (*out)[*len] = 0;
    return true;
}

/* A newline and depth copies of indent. */
static bool pretty_line(char **out, size_t *cap, size_t *len, const char *indent, int depth)
{
    bool ok = pretty_put(out, cap, len, "\n", 1);
    for (int d = 0; ok && d < depth; d++)
        ok = pretty_put(out, cap, len, indent, strlen(indent));
    return ok;
}

char *hxi_json_pretty(const char *s, size_t len, const char *indent, size_t *out_len)
{
    char *out = NULL;
    size_t cap = 0, n = 0;
    int depth = 0;
    bool ok = pretty_put(&out, &cap, &n, "", 0);
    for (size_t i = 0; ok && i < len; i++) {
        char c = s[i];
        if (c == '"') {   /* a string, escapes and all, as it is */
            size_t j = i + 1;
            while (j < len && s[j] != '"')
                j += s[j] == '\\' ? 2 : 1;
            ok = pretty_put(&out, &cap, &n, s + i, (j < len ? j + 1 : len) - i);
            i = j;
        } else if ((c == '{' || c == '[') && i + 1 < len && (s[i + 1] == '}' || s[i + 1] == ']')) {
            ok = pretty_put(&out, &cap, &n, s + i, 2);   /* {} and [] stay as they are */
            i++;
        } else if (c == '{' || c == '[') {
            ok = pretty_put(&out, &cap, &n, &c, 1) && pretty_line(&out, &cap, &n, indent, ++depth);
        } else if (c == '}' || c == ']') {
            ok = pretty_line(&out, &cap, &n, indent, --depth) && pretty_put(&out, &cap, &n, &c, 1);
        } else if (c == ',') {
            ok = pretty_put(&out, &cap, &n, ",", 1) && pretty_line(&out, &cap, &n, indent, depth);
        } else if (c == ':') {
            ok = pretty_put(&out, &cap, &n, ": ", 2);
        } else {
            ok = pretty_put(&out, &cap, &n, &c, 1);
        }
    }
    if (!ok) {
        free(out);
        return NULL;
    }
    *out_len = n;
    return out;
}
