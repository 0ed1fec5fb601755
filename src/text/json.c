/* json.c: the strict JSON reader (text -> immutable DOM) and its accessors; the writer is
 * json_write.c's. Owns nothing outside src/text/json.h; knows nothing of JSON-RPC or MCP. Spec:
 * RFC 8259 and the choices listed at the top of json.h; tests/json/ holds one file per corner case.
 *
 * DOM layout: every value of a document sits in one array, in document order (yyjson's layout).
 * A container is followed by its subtree; `span` counts the values of a subtree, itself included,
 * so the next sibling of v is v + v->span. An object's subtree alternates key (a string value)
 * and member value. String and number texts live in one arena of len + 1 bytes: a string takes
 * at most its source length minus the two quotes plus a NUL, and a number its length plus a NUL,
 * which the byte after it (delimiter or end of input) pays for. */
#include "json.h"
#include "alloc.h"
#include "json_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === UTF-8 === */

/* Length (1..4) of the valid UTF-8 sequence at s[0..n), or 0 if it is invalid: a stray
 * continuation byte, C0/C1/F5..FF lead bytes, a truncated sequence, an overlong form (E0 80..9F,
 * F0 80..8F), an encoded surrogate (ED A0..BF) or a code point past U+10FFFF (F4 90..BF). */
size_t hxi_json_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    size_t k = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n < k)
        return 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return k;
}

static size_t utf8_put(unsigned long cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* === Numbers === */

static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Scans the RFC 8259 number starting at p[pos]: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
 * On success returns NULL and sets *end; else returns a message and sets *bad to the offending
 * offset. The byte after the number is not looked at. */
const char *hxi_json_number_scan(const char *p, size_t len, size_t pos, size_t *end, size_t *bad)
{
    if (pos < len && p[pos] == '-')
        pos++;
    if (pos >= len || !is_digit(p[pos])) {
        *bad = pos;
        return "expected a digit";
    }
    if (p[pos] == '0') {
        pos++;
        if (pos < len && is_digit(p[pos])) {
            *bad = pos;
            return "leading zeros are not allowed";
        }
    } else {
        while (pos < len && is_digit(p[pos]))
            pos++;
    }
    if (pos < len && p[pos] == '.') {
        pos++;
        if (pos >= len || !is_digit(p[pos])) {
            *bad = pos;
            return "expected a digit after the decimal point";
        }
        while (pos < len && is_digit(p[pos]))
            pos++;
    }
    if (pos < len && (p[pos] == 'e' || p[pos] == 'E')) {
        pos++;
        if (pos < len && (p[pos] == '+' || p[pos] == '-'))
            pos++;
        if (pos >= len || !is_digit(p[pos])) {
            *bad = pos;
            return "expected a digit in the exponent";
        }
        while (pos < len && is_digit(p[pos]))
            pos++;
    }
    *end = pos;
    return NULL;
}

/* === Parser === */

typedef struct parser {
    const char *p;        /* input, borrowed for the call */
    size_t len, pos;
    hxi_json_val *vals;    /* grows; indices, not pointers, are kept across pushes */
    size_t n, cap, max_values;
    char *arena;          /* the document's text arena */
    size_t arena_len;
    size_t *stack;        /* indices of open containers */
    size_t stack_cap;
    int depth, max_depth;
    const hxi_json_val **keys;  /* scratch for the duplicate-key check */
    size_t keys_cap;
    hx_error *err;
} parser;

static int perr(parser *ps, int code, size_t off, const char *msg)
{
    return hx_error_set(ps->err, code, (int64_t)off, "%s at byte %zu", msg, off);
}

static void skip_ws(parser *ps)
{
    while (ps->pos < ps->len) {
        char c = ps->p[ps->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        ps->pos++;
    }
}

/* Appends a value; its index is ps->n - 1 afterwards. `member` says whether it counts as an
 * element or member of the enclosing container (keys do not). */
static int push_val(parser *ps, int type, int member)
{
    if (ps->n >= ps->max_values)
        return perr(ps, HX_ERANGE, ps->pos, "too many values");
    if (hx_grow((void **)&ps->vals, &ps->cap, ps->n + 1, sizeof *ps->vals, NULL))
        return perr(ps, HX_ENOMEM, ps->pos, "out of memory");
    hxi_json_val *v = &ps->vals[ps->n++];
    memset(v, 0, sizeof *v);
    v->type = type;
    v->span = 1;
    v->off = ps->pos;
    if (member && ps->depth > 0)
        ps->vals[ps->stack[ps->depth - 1]].n++;
    return 0;
}

static int hex4(const char *p, unsigned long *out)
{
    unsigned long x = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        x = x * 16 + (unsigned long)d;
    }
    *out = x;
    return 0;
}

/* Parses the string at ps->pos (the opening quote) into the arena and pushes it. */
static int parse_string(parser *ps, int member)
{
    int rc = push_val(ps, HX_JSON_STRING, member);
    if (rc)
        return rc;
    size_t idx = ps->n - 1;
    const char *p = ps->p;
    size_t len = ps->len, pos = ps->pos + 1;
    char *out = ps->arena + ps->arena_len, *o = out;
    for (;;) {
        if (pos >= len)
            return perr(ps, HX_EPARSE, len, "unterminated string");
        size_t run = pos;
        while (run < len && (unsigned char)p[run] >= 0x20 && (unsigned char)p[run] < 0x80 &&
               p[run] != '"' && p[run] != '\\')
            run++;
        if (run > pos) {
            memcpy(o, p + pos, run - pos);
            o += run - pos;
            pos = run;
            continue;
        }
        unsigned char c = (unsigned char)p[pos];
        if (c == '"')
            break;
        if (c < 0x20)
            return perr(ps, HX_EPARSE, pos, "raw control character in string");
        if (c >= 0x80) {
            size_t k = hxi_json_utf8_seq((const unsigned char *)p + pos, len - pos);
            if (!k)
                return perr(ps, HX_EUTF8, pos, "invalid UTF-8 in string");
            memcpy(o, p + pos, k);
            o += k;
            pos += k;
            continue;
        }
        size_t esc = pos;  /* c is a backslash: the run above took every other byte */
        if (pos + 1 >= len)
            return perr(ps, HX_EPARSE, len, "unterminated string");
        char e = p[pos + 1];
        pos += 2;
        switch (e) {
        case '"': *o++ = '"'; continue;
        case '\\': *o++ = '\\'; continue;
        case '/': *o++ = '/'; continue;
        case 'b': *o++ = '\b'; continue;
        case 'f': *o++ = '\f'; continue;
        case 'n': *o++ = '\n'; continue;
        case 'r': *o++ = '\r'; continue;
        case 't': *o++ = '\t'; continue;
        case 'u': break;
        default: return perr(ps, HX_EPARSE, esc, "invalid escape sequence");
        }
        unsigned long cp, lo;
        if (len - pos < 4 || hex4(p + pos, &cp))
            return perr(ps, HX_EPARSE, esc, "\\u needs four hex digits");
        pos += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return perr(ps, HX_EUTF8, esc, "lone low surrogate escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (len - pos < 6 || p[pos] != '\\' || p[pos + 1] != 'u' || hex4(p + pos + 2, &lo) ||
                lo < 0xDC00 || lo > 0xDFFF)
                return perr(ps, HX_EUTF8, esc, "high surrogate escape without a low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            pos += 6;
        }
        o += utf8_put(cp, o);
    }
    *o = '\0';
    hxi_json_val *v = &ps->vals[idx];
    v->s = out;
    v->n = (size_t)(o - out);
    ps->arena_len += v->n + 1;
    ps->pos = pos + 1;
    return 0;
}

static int parse_number(parser *ps)
{
    size_t end, bad;
    const char *msg = hxi_json_number_scan(ps->p, ps->len, ps->pos, &end, &bad);
    if (msg)
        return perr(ps, HX_EPARSE, bad, msg);
    int rc = push_val(ps, HX_JSON_NUMBER, 1);
    if (rc)
        return rc;
    hxi_json_val *v = &ps->vals[ps->n - 1];
    v->n = end - ps->pos;
    v->s = ps->arena + ps->arena_len;
    memcpy(ps->arena + ps->arena_len, ps->p + ps->pos, v->n);
    ps->arena[ps->arena_len + v->n] = '\0';
    ps->arena_len += v->n + 1;
    ps->pos = end;
    return 0;
}

static int parse_literal(parser *ps, const char *word, int type, size_t b)
{
    size_t n = strlen(word);
    if (ps->len - ps->pos < n || memcmp(ps->p + ps->pos, word, n) != 0)
        return perr(ps, HX_EPARSE, ps->pos, "invalid literal");
    int rc = push_val(ps, type, 1);
    if (rc)
        return rc;
    ps->vals[ps->n - 1].n = b;
    ps->pos += n;
    return 0;
}

static int key_cmp(const void *a, const void *b)
{
    const hxi_json_val *x = *(const hxi_json_val *const *)a, *y = *(const hxi_json_val *const *)b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    int c = memcmp(x->s, y->s, x->n);
    if (c)
        return c;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int same_key(const hxi_json_val *x, const hxi_json_val *y)
{
    return x->n == y->n && memcmp(x->s, y->s, x->n) == 0;
}

/* Refuses an object with two equal member names; reports the second occurrence that comes
 * first in the text. Small objects are checked pairwise, large ones by sorting. */
static int check_dup_keys(parser *ps, size_t obj)
{
    size_t members = ps->vals[obj].n;
    if (members < 2)
        return 0;
    if (members > ps->keys_cap) {
        if (members > SIZE_MAX / sizeof *ps->keys)
            return perr(ps, HX_ENOMEM, ps->pos, "out of memory");
        const hxi_json_val **k = hx_realloc(ps->keys, members * sizeof *k);
        if (!k)
            return perr(ps, HX_ENOMEM, ps->pos, "out of memory");
        ps->keys = k;
        ps->keys_cap = members;
    }
    const hxi_json_val *v = &ps->vals[obj + 1];
    for (size_t i = 0; i < members; i++) {
        ps->keys[i] = v;
        v = v + 1 + v[1].span;
    }
    size_t dup = SIZE_MAX;
    if (members <= 16) {
        for (size_t j = 1; j < members && dup == SIZE_MAX; j++)
            for (size_t i = 0; i < j; i++)
                if (same_key(ps->keys[i], ps->keys[j])) {
                    dup = ps->keys[j]->off;
                    break;
                }
    } else {
        qsort(ps->keys, members, sizeof *ps->keys, key_cmp);
        for (size_t i = 1; i < members; i++)
            if (same_key(ps->keys[i - 1], ps->keys[i]) &&
                (i < 2 || !same_key(ps->keys[i - 2], ps->keys[i])) && ps->keys[i]->off < dup)
                dup = ps->keys[i]->off;
    }
    return dup == SIZE_MAX ? 0 : perr(ps, HX_EPARSE, dup, "duplicate member name");
}

static int open_container(parser *ps, int type)
{
    if (ps->depth >= ps->max_depth)
        return perr(ps, HX_EDEPTH, ps->pos, "nesting too deep");
    int rc = push_val(ps, type, 1);
    if (rc)
        return rc;
    if (hx_grow((void **)&ps->stack, &ps->stack_cap, (size_t)ps->depth + 1, sizeof *ps->stack, NULL))
        return perr(ps, HX_ENOMEM, ps->pos, "out of memory");
    ps->stack[ps->depth++] = ps->n - 1;
    ps->pos++;
    return 0;
}

static int close_container(parser *ps)
{
    size_t idx = ps->stack[--ps->depth];
    ps->vals[idx].span = ps->n - idx;
    ps->pos++;
    return ps->vals[idx].type == HX_JSON_OBJECT ? check_dup_keys(ps, idx) : 0;
}

/* Parses `"key" ws :` at ps->pos. */
static int parse_key(parser *ps)
{
    if (ps->pos >= ps->len || ps->p[ps->pos] != '"')
        return perr(ps, HX_EPARSE, ps->pos, "expected a member name (string)");
    int rc = parse_string(ps, 0);
    if (rc)
        return rc;
    skip_ws(ps);
    if (ps->pos >= ps->len || ps->p[ps->pos] != ':')
        return perr(ps, HX_EPARSE, ps->pos, "expected ':' after member name");
    ps->pos++;
    return 0;
}

static int parse_all(parser *ps)
{
    int rc;
    for (;;) {
        /* A value is expected at ps->pos (after whitespace). */
        skip_ws(ps);
        if (ps->pos >= ps->len)
            return perr(ps, HX_EPARSE, ps->len, "unexpected end of input, expected a value");
        switch (ps->p[ps->pos]) {
        case '{':
            if ((rc = open_container(ps, HX_JSON_OBJECT)))
                return rc;
            skip_ws(ps);
            if (ps->pos < ps->len && ps->p[ps->pos] == '}') {
                if ((rc = close_container(ps)))
                    return rc;
                break;
            }
            if ((rc = parse_key(ps)))
                return rc;
            continue;
        case '[':
            if ((rc = open_container(ps, HX_JSON_ARRAY)))
                return rc;
            skip_ws(ps);
            if (ps->pos < ps->len && ps->p[ps->pos] == ']') {
                if ((rc = close_container(ps)))
                    return rc;
                break;
            }
            continue;
        case '"': rc = parse_string(ps, 1); break;
        case 't': rc = parse_literal(ps, "true", HX_JSON_BOOL, 1); break;
        case 'f': rc = parse_literal(ps, "false", HX_JSON_BOOL, 0); break;
        case 'n': rc = parse_literal(ps, "null", HX_JSON_NULL, 0); break;
        case '-': case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9':
            rc = parse_number(ps);
            break;
        default:
            return perr(ps, HX_EPARSE, ps->pos, "unexpected character, expected a value");
        }
        if (rc)
            return rc;
        /* A value is complete: close containers or move to the next element. */
        for (;;) {
            if (ps->depth == 0) {
                skip_ws(ps);
                if (ps->pos < ps->len)
                    return perr(ps, HX_EPARSE, ps->pos, "unexpected data after the value");
                return 0;
            }
            skip_ws(ps);
            int is_obj = ps->vals[ps->stack[ps->depth - 1]].type == HX_JSON_OBJECT;
            char close = is_obj ? '}' : ']';
            if (ps->pos >= ps->len)
                return perr(ps, HX_EPARSE, ps->len,
                            is_obj ? "unexpected end of input, expected ',' or '}'"
                                   : "unexpected end of input, expected ',' or ']'");
            char c = ps->p[ps->pos];
            if (c == close) {
                if ((rc = close_container(ps)))
                    return rc;
                continue;
            }
            if (c != ',')
                return perr(ps, HX_EPARSE, ps->pos, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
            ps->pos++;
            if (is_obj) {
                skip_ws(ps);
                if ((rc = parse_key(ps)))
                    return rc;
            }
            break;
        }
    }
}

int hxi_json_parse(hxi_json_doc **out, const char *text, size_t len, const hxi_json_limits *lim,
                   hx_error *err)
{
    if (!out || (!text && len))
        return hx_error_set(err, HX_EINVAL, -1, "hxi_json_parse: NULL argument");
    *out = NULL;
    size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : HX_JSON_MAX_BYTES;
    if (len > max_bytes)
        return hx_error_set(err, HX_ERANGE, (int64_t)max_bytes,
                            "JSON text of %zu bytes exceeds the limit of %zu", len, max_bytes);
    if (len > SIZE_MAX - sizeof(hxi_json_doc) - 1)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    hxi_json_doc *doc = hx_malloc(sizeof *doc + len + 1);
    if (!doc)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    parser ps = {
        .p = text ? text : "",
        .len = len,
        .max_values = lim && lim->max_values ? lim->max_values : HX_JSON_MAX_VALUES,
        .arena = doc->text,
        .max_depth = lim && lim->max_depth > 0 ? lim->max_depth : HX_JSON_MAX_DEPTH,
        .err = err,
    };
    int rc = parse_all(&ps);
    free(ps.stack);
    free(ps.keys);
    if (rc) {
        free(ps.vals);
        free(doc);
        return rc;
    }
    doc->vals = ps.vals;
    doc->n_vals = ps.n;
    *out = doc;
    return 0;
}

void hxi_json_doc_free(hxi_json_doc *doc)
{
    if (doc) {
        free(doc->vals);
        free(doc);
    }
}

/* === Accessors === */

const hxi_json_val *hxi_json_doc_root(const hxi_json_doc *doc) { return doc ? doc->vals : NULL; }

int hxi_json_type_of(const hxi_json_val *v) { return v ? v->type : 0; }

int64_t hxi_json_offset(const hxi_json_val *v) { return v ? (int64_t)v->off : -1; }

size_t hxi_json_len(const hxi_json_val *v)
{
    return v && v->type != HX_JSON_BOOL && v->type != HX_JSON_NULL ? v->n : 0;
}

const char *hxi_json_str(const hxi_json_val *v, size_t *len)
{
    if (!v || v->type != HX_JSON_STRING)
        return NULL;
    if (len)
        *len = v->n;
    return v->s;
}

const char *hxi_json_num_text(const hxi_json_val *v, size_t *len)
{
    if (!v || v->type != HX_JSON_NUMBER)
        return NULL;
    if (len)
        *len = v->n;
    return v->s;
}

int hxi_json_bool(const hxi_json_val *v)
{
    return v && v->type == HX_JSON_BOOL ? (int)v->n : -1;
}

/* Exact: the value is digits x 10^exp; it is whole when no nonzero digit falls after the point. */
int hxi_json_num_int64(const hxi_json_val *v, int64_t *out, hx_error *err)
{
    if (!v || v->type != HX_JSON_NUMBER || !out)
        return hx_error_set(err, HX_EINVAL, -1, "not a number");
    const char *s = v->s;
    int neg = *s == '-';
    if (neg)
        s++;
    char digits[24];
    size_t nd = 0, lead = 1;
    long exp10 = 0;
    int overflow = 0;
    for (int frac = 0; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            frac = 1;
            continue;
        }
        if (frac)
            exp10--;
        if (lead && *s == '0')
            continue;
        lead = 0;
        if (nd < sizeof digits)
            digits[nd++] = *s;
        else if (*s != '0')
            overflow = 1;
        else
            exp10++;  /* a trailing zero beyond the buffer: keep the value, drop the digit */
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        int eneg = *s == '-';
        if (*s == '+' || *s == '-')
            s++;
        long e = 0;
        for (; *s; s++)
            if (e < 100000)
                e = e * 10 + (*s - '0');
        exp10 += eneg ? -e : e;
    }
    while (nd > 0 && digits[nd - 1] == '0') {
        nd--;
        exp10++;
    }
    if (nd == 0) {
        *out = 0;
        return 0;
    }
    if (exp10 < 0)
        return hx_error_set(err, HX_ERANGE, (int64_t)v->off, "%s is not a whole number", v->s);
    /* nd + exp10 <= 19 digits fit in uint64 (10^19 < 2^64). */
    if (overflow || (long)nd + exp10 > 19)
        goto range;
    uint64_t x = 0;
    for (size_t i = 0; i < nd; i++)
        x = x * 10 + (uint64_t)(digits[i] - '0');
    for (long i = 0; i < exp10; i++)
        x *= 10;
    if (x > (uint64_t)INT64_MAX + (uint64_t)neg)
        goto range;
    *out = !neg ? (int64_t)x : x > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)x;
    return 0;
range:
    return hx_error_set(err, HX_ERANGE, (int64_t)v->off, "%s is outside the 64-bit integer range",
                        v->s);
}

int hxi_json_num_double(const hxi_json_val *v, double *out, hx_error *err)
{
    if (!v || v->type != HX_JSON_NUMBER || !out)
        return hx_error_set(err, HX_EINVAL, -1, "not a number");
    double d = strtod(v->s, NULL);
    if (isinf(d))
        return hx_error_set(err, HX_ERANGE, (int64_t)v->off, "%s is beyond the double range",
                            v->s);
    *out = d;
    return 0;
}

const hxi_json_val *hxi_json_obj_getn(const hxi_json_val *obj, const char *key, size_t key_len)
{
    if (!obj || obj->type != HX_JSON_OBJECT || (!key && key_len))
        return NULL;
    const hxi_json_val *k = obj + 1;
    for (size_t i = 0; i < obj->n; i++) {
        if (k->n == key_len && memcmp(k->s, key, key_len) == 0)
            return k + 1;
        k = k + 1 + k[1].span;
    }
    return NULL;
}

const hxi_json_val *hxi_json_obj_get(const hxi_json_val *obj, const char *key)
{
    return key ? hxi_json_obj_getn(obj, key, strlen(key)) : NULL;
}

const hxi_json_val *hxi_json_arr_get(const hxi_json_val *arr, size_t i)
{
    if (!arr || arr->type != HX_JSON_ARRAY || i >= arr->n)
        return NULL;
    const hxi_json_val *v = arr + 1;
    while (i--)
        v += v->span;
    return v;
}

void hxi_json_iter_init(hxi_json_iter *it, const hxi_json_val *c)
{
    int container = c && (c->type == HX_JSON_ARRAY || c->type == HX_JSON_OBJECT);
    it->next = container ? c + 1 : NULL;
    it->left = container ? c->n : 0;
    it->is_object = container && c->type == HX_JSON_OBJECT;
}

int hxi_json_iter_next(hxi_json_iter *it, const hxi_json_val **key, const hxi_json_val **val)
{
    if (!it->left)
        return 0;
    it->left--;
    const hxi_json_val *k = NULL, *v = it->next;
    if (it->is_object) {
        k = v;
        v = v + 1;
    }
    it->next = v + v->span;
    if (key)
        *key = k;
    if (val)
        *val = v;
    return 1;
}

int hxi_json_equal(const hxi_json_val *a, const hxi_json_val *b)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type || a->n != b->n)
        return 0;
    switch (a->type) {
    case HX_JSON_NULL:
    case HX_JSON_BOOL:
        return 1;
    case HX_JSON_NUMBER:
    case HX_JSON_STRING:
        return memcmp(a->s, b->s, a->n) == 0;
    default:
        /* Same layout on both sides: compare the subtrees value by value. */
        if (a->span != b->span)
            return 0;
        for (size_t i = 1; i < a->span; i++) {
            const hxi_json_val *x = a + i, *y = b + i;
            if (x->type != y->type || x->n != y->n || x->span != y->span)
                return 0;
            if ((x->type == HX_JSON_STRING || x->type == HX_JSON_NUMBER) &&
                memcmp(x->s, y->s, x->n) != 0)
                return 0;
        }
        return 1;
    }
}
