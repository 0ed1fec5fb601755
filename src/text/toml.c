/* toml.c: hxi_toml_set_table, one table of a TOML document edited as text: the scanner (strings,
 * multi-line strings, arrays, inline tables, comments, dotted and quoted keys) and the splice.
 * Owns nothing beyond toml.h; spec: TOML 1.0 (toml.io), reduced to telling headers, keys and
 * values apart. */
#include "toml.h"
#include "alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOML_KEY_MAX 512   /* bytes of a dotted key the scanner compares; longer ones are refused */

/* === The scanner === */

typedef struct {
    const char *text;
    size_t len;
    size_t i;          /* the next byte */
    char ml;           /* inside a multi-line string: '"' or '\''; else 0 */
    long depth;        /* arrays and inline tables open */
    size_t open_at;    /* where the open string, array or header began */
    const char *bad;   /* what is wrong, NULL while all is well */
} scan;

/* The end of the line at or after `from` (its '\n', or len). */
static size_t line_end(const scan *s, size_t from)
{
    const char *nl = from < s->len ? memchr(s->text + from, '\n', s->len - from) : NULL;
    return nl ? (size_t)(nl - s->text) : s->len;
}

/* Reads a value's bytes to the end of the line (a comment ends it early), following strings and
 * brackets; what is still open carries over to the next line. Leaves s->i at the next line. */
static void scan_value(scan *s)
{
    size_t end = line_end(s, s->i);
    const char *t = s->text;
    while (s->i < end && !s->bad) {
        char c = t[s->i];
        if (s->ml) {   /* to the closing triple quote; a basic one has escapes */
            if (c == '\\' && s->ml == '"') {
                s->i += 2;
                continue;
            }
            if (c == s->ml && s->i + 2 < end && t[s->i + 1] == c && t[s->i + 2] == c) {
                s->ml = 0;
                s->i += 3;
                while (s->i < end && t[s->i] == c)   /* up to two quotes of content end it */
                    s->i++;
                continue;
            }
            s->i++;
            continue;
        }
        if (c == '#')
            break;
        if (c == '"' || c == '\'') {
            s->open_at = s->i;
            if (s->i + 2 < end && t[s->i + 1] == c && t[s->i + 2] == c) {
                s->ml = c;
                s->i += 3;
                continue;
            }
            for (s->i++; s->i < end && t[s->i] != c; s->i++)
                if (c == '"' && t[s->i] == '\\')
                    s->i++;
            if (s->i >= end)
                s->bad = "a string that does not end on its line";
        } else if (c == '[' || c == '{') {
            if (!s->depth++)
                s->open_at = s->i;
        } else if ((c == ']' || c == '}') && --s->depth < 0) {
            s->open_at = s->i;
            s->bad = "a closing bracket that nothing opened";
        }
        s->i++;
    }
    s->i = end < s->len ? end + 1 : end;
}

static bool bare_char(char c)
{
    return c == '_' || c == '-' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* A dotted key at s->i (bare or quoted parts, blanks around the dots) as its parts joined by '.'
 * into out (TOML_KEY_MAX bytes), up to `stop` (']' for a header, '=' for a key), s->i left on it;
 * false when it is not one. Quoted parts are compared as written (escapes are not decoded). */
static bool read_key(scan *s, char stop, char *out)
{
    size_t o = 0, end = line_end(s, s->i);
    const char *t = s->text;
    for (;;) {
        while (s->i < end && (t[s->i] == ' ' || t[s->i] == '\t'))
            s->i++;
        if (s->i >= end)
            return false;
        char q = t[s->i];
        size_t from = s->i;
        if (q == '"' || q == '\'') {
            for (s->i++; s->i < end && t[s->i] != q; s->i++)
                if (q == '"' && t[s->i] == '\\')
                    s->i++;
            if (s->i >= end)
                return false;
            from++;
        } else {
            while (s->i < end && bare_char(t[s->i]))
                s->i++;
            if (s->i == from)
                return false;
        }
        size_t n = s->i - from;
        if (o + n + 2 > TOML_KEY_MAX)
            return false;
        memcpy(out + o, t + from, n);
        o += n;
        out[o] = 0;
        s->i += q == '"' || q == '\'';
        while (s->i < end && (t[s->i] == ' ' || t[s->i] == '\t'))
            s->i++;
        if (s->i < end && t[s->i] == stop)
            return true;
        if (s->i >= end || t[s->i] != '.')
            return false;
        out[o++] = '.';
        s->i++;
    }
}

/* Whether dotted key k is p or under p ("a.b" is under "a", "ab" is not). */
static bool under(const char *k, const char *p)
{
    size_t n = strlen(p);
    return !strncmp(k, p, n) && (!k[n] || k[n] == '.');
}

/* Whether key k is, or is under, one of keys. */
static bool listed(const char *k, const char *const *keys)
{
    for (size_t i = 0; keys && keys[i]; i++)
        if (under(k, keys[i]))
            return true;
    return false;
}

/* === The output === */

typedef struct {
    char *p;
    size_t len, cap;
    bool failed;
} out_buf;

static void put(out_buf *b, const char *s, size_t n)
{
    if (b->failed || !n)
        return;
    if (hx_grow((void **)&b->p, &b->cap, b->len + n + 1, 1, NULL)) {
        b->failed = true;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void put_table(out_buf *b, const char *name, const char *lines)
{
    put(b, "[", 1);
    put(b, name, strlen(name));
    put(b, "]\n", 2);
    put(b, lines, strlen(lines));
}

/* === The table === */

int hxi_toml_set_table(const char *text, size_t len, const char *name, const char *const *keys, const char *lines,
                       char **out, size_t *out_len, hx_error *err)
{
    scan s = {.text = text ? text : "", .len = text ? len : 0};
    char table[TOML_KEY_MAX] = "", key[TOML_KEY_MAX], full[2 * TOML_KEY_MAX];
    size_t mine = SIZE_MAX, mine_end = 0;   /* the table: its header line's start, and its section's end */
    bool in_mine = false, dropping = false;
    size_t *drop = NULL, n_drop = 0, cap_drop = 0;   /* spans [from, to) of the keys replaced */
    const char *other = NULL;                        /* the table in another form: how */
    size_t other_at = 0;
    int rc = 0;
    *out = NULL;
    while (s.i < s.len && !s.bad && !other) {
        size_t start = s.i;
        if (s.ml || s.depth) {   /* a value that goes on */
            scan_value(&s);
            if (dropping)
                drop[2 * n_drop - 1] = s.i;
            continue;
        }
        dropping = false;
        while (s.i < s.len && (s.text[s.i] == ' ' || s.text[s.i] == '\t' || s.text[s.i] == '\r'))
            s.i++;
        if (s.i >= s.len || s.text[s.i] == '\n' || s.text[s.i] == '#') {   /* blank, or a comment */
            size_t e = line_end(&s, s.i);
            s.i = e < s.len ? e + 1 : e;
            continue;
        }
        if (s.text[s.i] == '[') {
            bool array = s.i + 1 < s.len && s.text[s.i + 1] == '[';
            s.i += 1 + array;
            if (!read_key(&s, ']', table) || (array && (s.i + 1 >= s.len || s.text[s.i + 1] != ']'))) {
                s.open_at = start;
                s.bad = "a table header that does not close with ]";
                break;
            }
            s.i += 1 + array;
            if (in_mine)
                mine_end = start;
            in_mine = !array && !strcmp(table, name);
            if ((in_mine && mine != SIZE_MAX) || (array && !strcmp(table, name))) {
                other = array ? "an array of tables" : "a second table of that name";
                other_at = start;
                break;
            }
            if (in_mine)
                mine = start;
            while (s.i < s.len && (s.text[s.i] == ' ' || s.text[s.i] == '\t' || s.text[s.i] == '\r'))
                s.i++;
            if (s.i < s.len && s.text[s.i] != '\n' && s.text[s.i] != '#') {
                s.open_at = s.i;
                s.bad = "text after a table header";
                break;
            }
            s.i = line_end(&s, s.i) < s.len ? line_end(&s, s.i) + 1 : s.len;   /* its comment, if any */
            continue;
        }
        size_t key_at = s.i;
        if (!read_key(&s, '=', key)) {
            s.open_at = key_at;
            s.bad = "a line that is neither a [table] nor key = value";
            break;
        }
        snprintf(full, sizeof full, "%s%s%s", table, *table ? "." : "", key);
        if (in_mine && listed(key, keys)) {
            if (hx_grow((void **)&drop, &cap_drop, 2 * n_drop + 2, sizeof *drop, NULL)) {
                rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
                break;
            }
            drop[2 * n_drop] = start;
            n_drop++;
            dropping = true;
        } else if (!in_mine && !under(table, name) && under(full, name)) {
            other = "dotted keys or an inline table";   /* mcp_servers.hyrax = {...}, hyrax.command = ... */
            other_at = key_at;
            break;
        }
        s.i++;
        scan_value(&s);
        if (dropping)
            drop[2 * n_drop - 1] = s.i;
    }
    if (!rc && !s.bad && !other && (s.ml || s.depth))
        s.bad = s.ml ? "a multi-line string that does not end" : "an array or inline table that does not close";
    if (in_mine && !other && !s.bad)
        mine_end = s.len;
    if (rc) {
        /* err is set */
    } else if (s.bad) {
        rc = hx_error_set(err, HX_EPARSE, (int64_t)s.open_at, "%s", s.bad);
    } else if (other) {
        rc = hx_error_set(err, HX_EFORMAT, (int64_t)other_at, "[%s] is defined as %s here", name, other);
    } else {
        out_buf b = {0};
        if (mine != SIZE_MAX) {   /* what is before it, the table, the rest of its section, what follows */
            put(&b, s.text, mine);
            put_table(&b, name, lines);
            size_t from = line_end(&s, mine);
            from = from < s.len ? from + 1 : s.len;
            for (size_t d = 0; d <= n_drop; d++) {
                size_t to = d < n_drop ? drop[2 * d] : mine_end;
                put(&b, s.text + from, to - from);
                from = d < n_drop ? drop[2 * d + 1] : to;
            }
            put(&b, s.text + mine_end, s.len - mine_end);
        } else {   /* appended after a blank line */
            put(&b, s.text, s.len);
            if (s.len && s.text[s.len - 1] != '\n')
                put(&b, "\n", 1);
            if (s.len && (s.len < 2 || s.text[s.len - 1] != '\n' || s.text[s.len - 2] != '\n'))
                put(&b, "\n", 1);
            put_table(&b, name, lines);
        }
        if (b.failed) {
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
            free(b.p);
        } else if (b.len == s.len && !memcmp(b.p, s.text, s.len)) {
            free(b.p);   /* so already */
        } else {
            *out = b.p;
            *out_len = b.len;
        }
    }
    free(drop);
    return rc;
}
