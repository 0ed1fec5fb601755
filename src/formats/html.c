/* html.c: the HTML and XHTML row of the table of document types: charset, markup to text, title,
 * heading paths and metadata, through the extraction builder (doctype.h). Spec: the WHATWG HTML
 * standard, reduced to what text extraction needs (a tokenizer, not a tree builder):
 *   - charset: a BOM (UTF-8, UTF-16), else <meta charset>, <meta http-equiv content="...;
 *     charset=">, or an XML declaration's encoding in the first 1024 bytes; UTF-8 and the
 *     labels WHATWG maps to windows-1252 (latin1, iso-8859-1, us-ascii, ...) are read, any other
 *     is refused; none declared: UTF-8 when the bytes are valid UTF-8, else windows-1252
 *   - tags, comments, doctype and processing instructions removed; CDATA sections kept as text
 *   - script and style (raw text) and template, nav, noscript (with everything inside) dropped
 *   - title -> the title (unless it only repeats the file's name: then the first h1); h1..h6 ->
 *     heading paths; p, div, li, tr and the other block elements
 *     -> blocks; table cells separated by " | "; pre kept verbatim (a first newline dropped)
 *   - character references: every named one of HTML5 (html_entities.h, generated), decimal and
 *     hex, with the standard's replacements (0, surrogates, past U+10FFFF -> U+FFFD; 0x80..0x9F
 *     -> windows-1252)
 *   - <meta name=description|keywords|author content=...> and <html lang> -> metadata
 * Time linear in the input; no recursion, no tree: nesting is counted only for dropped elements. */
#include "doctype.h"
#include "alloc.h"
#include "html_entities.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PRESCAN 1024            /* bytes searched for a charset declaration */
#define NAME_MAX_LEN 15         /* tag and attribute names kept (longer ones never match) */
#define MAX_ATTRS 64            /* attributes read per tag; more are skipped */

/* === Text helpers === */

typedef struct {
    char *s;
    size_t n, cap;
} buf;

static int buf_put(buf *b, const char *s, size_t n)
{
    if (hx_grow((void **)&b->s, &b->cap, b->n + n + 1, 1, NULL))
        return HX_ENOMEM;
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
    return 0;
}

static int buf_cp(buf *b, uint32_t cp)
{
    char u[4];
    return buf_put(b, u, (size_t)hxi_utf8_put(cp, u));
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
    return is_alpha(c) || (c >= '0' && c <= '9');
}

/* windows-1252's 0x80..0x9F (WHATWG index; undefined bytes map to the C1 control of that value). */
static const uint16_t cp1252[32] = {
    0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039, 0x152, 0x8D, 0x17D, 0x8F,
    0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161, 0x203A, 0x153, 0x9D, 0x17E, 0x178,
};

/* Case-insensitive search for needle (lowercase) in s[from..n); n when absent. */
static size_t find_ci(const char *s, size_t n, size_t from, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = from; i + k <= n; i++) {
        if ((s[i] | 0x20) != needle[0])
            continue;
        if (!strncasecmp(s + i, needle, k))
            return i;
    }
    return n;
}

/* === Character references === */

static int entity_cmp(const char *s, size_t k, const char *name)
{
    size_t nl = strlen(name);
    int c = memcmp(s, name, k < nl ? k : nl);
    return c ? c : (k > nl) - (k < nl);
}

static const html_entity *entity_find(const char *s, size_t k)
{
    size_t lo = 0, hi = HTML_ENTITY_COUNT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = entity_cmp(s, k, html_entities[mid].name);
        if (!c)
            return &html_entities[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* Decodes the reference at s[0..n) (s[0] == '&') into out; returns the bytes it used, 0 when it
 * is not a reference (then '&' is text). */
static size_t decode_ref(const char *s, size_t n, buf *out, int *rc)
{
    size_t i = 1;
    if (i < n && s[i] == '#') {
        bool hex = i + 1 < n && (s[i + 1] | 0x20) == 'x';
        i += 1 + hex;
        size_t start = i;
        uint32_t v = 0;
        for (; i < n; i++) {
            char c = s[i];
            int d = c >= '0' && c <= '9' ? c - '0' : hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
            if (d < 0)
                break;
            v = v > 0x10FFFF ? v : v * (hex ? 16 : 10) + (uint32_t)d;
        }
        if (i == start)
            return 0;
        if (i < n && s[i] == ';')
            i++;
        if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
            v = 0xFFFD;
        else if (v >= 0x80 && v < 0xA0)
            v = cp1252[v - 0x80];
        *rc = buf_cp(out, v);
        return i;
    }
    size_t k = 0;
    while (1 + k < n && k < HTML_ENTITY_MAX_NAME && is_alnum(s[1 + k]))
        k++;
    if (!k)
        return 0;
    const html_entity *e = NULL;
    size_t used = 0;
    if (1 + k < n && s[1 + k] == ';' && (e = entity_find(s + 1, k + 1)))
        used = k + 2;
    for (size_t m = k; !e && m >= 2; m--)   /* the legacy names, matched without ';' */
        if ((e = entity_find(s + 1, m)))
            used = m + 1;
    if (!e)
        return 0;
    *rc = buf_cp(out, e->cp[0]);
    if (!*rc && e->cp[1])
        *rc = buf_cp(out, e->cp[1]);
    return used;
}

/* s[0..n) with references decoded, appended to out. */
static int unescape(const char *s, size_t n, buf *out)
{
    size_t run = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        const char *amp = memchr(s + i, '&', n - i);
        if (!amp)
            break;
        i = (size_t)(amp - s);
        if ((rc = buf_put(out, s + run, i - run)))
            break;
        size_t k = decode_ref(s + i, n - i, out, &rc);
        if (!k) {
            rc = buf_put(out, "&", 1);
            k = 1;
        }
        i += k;
        run = i;
    }
    return rc ? rc : buf_put(out, s + run, n - run);
}

/* === Charset === */

static bool label_is(const char *v, size_t n, const char *const *labels)
{
    for (; *labels; labels++)
        if (strlen(*labels) == n && !strncasecmp(v, *labels, n))
            return true;
    return false;
}

/* The charset a document declares in its first PRESCAN bytes: the value after "charset" in a
 * meta tag, or after "encoding" in an XML declaration; *n 0 when none. */
static const char *declared_charset(const char *s, size_t len, size_t *n)
{
    size_t lim = len < PRESCAN ? len : PRESCAN;
    *n = 0;
    const char *key = NULL;
    size_t at = lim;
    if (lim >= 5 && !strncmp(s, "<?xml", 5)) {
        size_t end = find_ci(s, lim, 0, "?>");
        size_t e = find_ci(s, end, 0, "encoding");
        if (e < end) {
            at = e + 8;
            key = "encoding";
        }
    }
    for (size_t m = 0; !key && (m = find_ci(s, lim, m, "<meta")) < lim; m += 5) {
        size_t end = m;
        while (end < lim && s[end] != '>')
            end++;
        size_t c = find_ci(s, end, m, "charset");
        if (c < end) {
            at = c + 7;
            key = "charset";
        }
    }
    if (!key)
        return NULL;
    while (at < lim && is_space(s[at]))
        at++;
    if (at >= lim || s[at] != '=')
        return NULL;
    at++;
    while (at < lim && (is_space(s[at]) || s[at] == '"' || s[at] == '\''))
        at++;
    size_t v = at;
    while (at < lim && (is_alnum(s[at]) || s[at] == '-' || s[at] == '_' || s[at] == ':' || s[at] == '.'))
        at++;
    *n = at - v;
    return s + v;
}

/* The document's bytes as UTF-8 (*out, caller frees), *enc the charset read. */
static int decode(const uint8_t *raw, size_t len, hxi_extract *x, char **out, size_t *out_len, hx_error *err)
{
    static const char *const utf8[] = {"utf-8", "utf8", "unicode-1-1-utf-8", NULL};
    static const char *const w1252[] = {
        "windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "latin1",
        "latin-1", "l1", "ascii", "us-ascii", "iso-ir-100", "csisolatin1", "ansi_x3.4-1968", "cp819", "ibm819", NULL,
    };
    bool bom16 = len >= 2 && ((raw[0] == 0xFF && raw[1] == 0xFE) || (raw[0] == 0xFE && raw[1] == 0xFF));
    bool bom8 = len >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF;
    if (bom16)
        return hxi_doc_decode(raw, len, out, out_len, &x->encoding, err);
    const uint8_t *nul = memchr(raw, 0, len);
    if (nul)
        return hx_error_set(err, HX_EFORMAT, nul - raw, "binary file (NUL at byte %zu)", (size_t)(nul - raw));
    size_t cn, skip = bom8 ? 3 : 0;
    const char *cs = bom8 ? NULL : declared_charset((const char *)raw, len, &cn);
    bool latin = false;
    if (cs && label_is(cs, cn, w1252)) {
        latin = true;
    } else if (cs && !label_is(cs, cn, utf8)) {
        return hx_error_set(err, HX_EFORMAT, -1, "charset %.*s is not supported (UTF-8, UTF-16 and "
                            "windows-1252/Latin-1 are)", (int)(cn > 40 ? 40 : cn), cs);
    } else if (!cs && !bom8) {
        size_t pos = 0;
        uint32_t cp;
        while (pos < len && hxi_utf8_next((const char *)raw, len, &pos, &cp))
            ;
        if (pos < len) {
            latin = true;
            int rc = hxi_x_warn(x, err, "no charset declared and the bytes are not UTF-8: read as windows-1252");
            if (rc)
                return rc;
        }
    }
    if (!latin) {
        x->encoding = bom8 ? "utf-8-bom" : "utf-8";
        if (!(*out = hx_strndup((const char *)raw + skip, len - skip)))
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory decoding HTML");
        *out_len = len - skip;
        return 0;
    }
    x->encoding = "windows-1252";
    buf b = {0};
    if (len > SIZE_MAX / 3 - 1 || hx_grow((void **)&b.s, &b.cap, len * 3 + 1, 1, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory decoding HTML");
    for (size_t i = 0; i < len; i++)
        b.n += (size_t)hxi_utf8_put(raw[i] >= 0x80 && raw[i] < 0xA0 ? cp1252[raw[i] - 0x80] : raw[i], b.s + b.n);
    b.s[b.n] = 0;
    *out = b.s;
    *out_len = b.n;
    return 0;
}

/* === Tokenizer and elements === */

enum { CAP_NONE, CAP_TITLE, CAP_HEADING };

typedef struct {
    hxi_extract *x;
    hx_error *err;
    const char *s;
    size_t n, pos;
    uint32_t line;             /* line of s[line_pos], 1-based */
    size_t line_pos;
    char skip_name[NAME_MAX_LEN + 1];   /* the dropped element we are inside, "" none */
    int skip;                  /* its nesting */
    int pre;                   /* open pre elements */
    bool pre_start;            /* right after <pre>: a newline here is dropped */
    int cap, level;            /* capturing a title or a heading of `level` */
    uint32_t cap_first, cap_last;   /* source lines of the captured text */
    buf capbuf, tmp;
    int cells;                 /* cells seen in the current table row */
    int rc;
} html;

typedef struct {
    const char *name, *value;  /* value raw (references not decoded) */
    size_t name_len, value_len;
} attr;

static uint32_t line_at(html *h, size_t off)
{
    for (const char *p; h->line_pos < off && (p = memchr(h->s + h->line_pos, '\n', off - h->line_pos));) {
        h->line++;
        h->line_pos = (size_t)(p - h->s) + 1;
    }
    if (h->line_pos < off)
        h->line_pos = off;
    return h->line;
}

/* Text s[start..end) of the document; raw: no references to decode (CDATA). */
static void text(html *h, size_t start, size_t end, bool raw)
{
    if (h->rc || h->skip || start >= end)
        return;
    if (h->pre_start && h->pre) {
        if (h->s[start] == '\r')
            start++;
        if (start < end && h->s[start] == '\n')
            start++;
    }
    h->pre_start = false;
    if (start >= end)
        return;
    uint32_t first = line_at(h, start), last = line_at(h, end - 1);
    buf *to = h->cap ? &h->capbuf : &h->tmp;
    if (!h->cap)
        h->tmp.n = 0;
    else if (!h->capbuf.n)
        h->cap_first = first;
    h->cap_last = last;
    if ((h->rc = raw ? buf_put(to, h->s + start, end - start) : unescape(h->s + start, end - start, to))) {
        h->rc = hx_error_set(h->err, HX_ENOMEM, -1, "out of memory extracting HTML");
        return;
    }
    if (h->cap)
        return;
    hxi_x_source(h->x, first, last);
    h->rc = h->pre ? hxi_x_text(h->x, h->tmp.s, h->tmp.n, h->err) : hxi_x_words(h->x, h->tmp.s, h->tmp.n, h->err);
}

static bool name_is(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list))
            return true;
    return false;
}

static const char *const blocks[] = {
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "legend",
    "li", "main", "menu", "ol", "p", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
    "option", "head", "html", NULL,
};
static const char *const dropped[] = {"template", "nav", "noscript", NULL};

static void block(html *h, hxi_block_kind kind)
{
    if (!h->rc && !h->skip && !h->cap)
        h->rc = hxi_x_block(h->x, kind, h->err);
}

/* The captured <title>, unless it only repeats the file's name (pandoc's <title>README</title>
 * for README.html): then the first h1 is the title. */
static int title_of(html *h)
{
    return hxi_x_title_unless_file(h->x, h->capbuf.s ? h->capbuf.s : "", h->capbuf.n, h->err);
}

static void end_capture(html *h)
{
    if (h->rc || !h->cap)
        return;
    hxi_extract *x = h->x;
    if (h->cap == CAP_TITLE)
        h->rc = title_of(h);
    else {
        hxi_x_source(x, h->cap_first, h->cap_last);
        h->rc = hxi_x_heading(x, h->level, h->capbuf.s ? h->capbuf.s : "", h->capbuf.n, h->err);
    }
    h->cap = CAP_NONE;
    h->capbuf.n = 0;
}

static const attr *attr_get(const attr *a, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (a[i].name_len == strlen(name) && !strncasecmp(a[i].name, name, a[i].name_len))
            return &a[i];
    return NULL;
}

/* <meta name=description|keywords|author content=...>: metadata (keywords one entry each). */
static void meta(html *h, const attr *a, int n)
{
    const attr *name = attr_get(a, n, "name"), *content = attr_get(a, n, "content");
    if (!name || !content || h->skip)
        return;
    const char *key = NULL;
    static const char *const keys[] = {"description", "keywords", "author"};
    for (int i = 0; i < 3; i++)
        if (name->value_len == strlen(keys[i]) && !strncasecmp(name->value, keys[i], name->value_len))
            key = keys[i];
    if (!key)
        return;
    h->tmp.n = 0;
    if (unescape(content->value, content->value_len, &h->tmp)) {
        h->rc = hx_error_set(h->err, HX_ENOMEM, -1, "out of memory extracting HTML");
        return;
    }
    const char *v = h->tmp.s ? h->tmp.s : "";
    for (size_t at = 0, end; !h->rc && at <= h->tmp.n; at = end + 1) {
        end = at;
        while (end < h->tmp.n && !(key[0] == 'k' && v[end] == ','))
            end++;
        h->rc = hxi_x_meta(h->x, key, v + at, end - at, h->err);
    }
}

static void start_tag(html *h, const char *name, const attr *a, int n_attrs, bool self_closing)
{
    if (h->skip) {
        h->skip += !strcmp(name, h->skip_name) && !self_closing;
        return;
    }
    if (name_is(name, dropped)) {
        if (!self_closing) {
            strcpy(h->skip_name, name);
            h->skip = 1;
        }
        return;
    }
    if (name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && !name[2]) {
        end_capture(h);
        block(h, HX_BLOCK_PROSE);
        h->cap = CAP_HEADING;
        h->level = name[1] - '0';
        h->capbuf.n = 0;
    } else if (!strcmp(name, "title")) {
        if (!h->cap) {
            h->cap = CAP_TITLE;
            h->capbuf.n = 0;
        }
    } else if (!strcmp(name, "pre") || !strcmp(name, "listing") || !strcmp(name, "xmp")) {
        block(h, HX_BLOCK_VERBATIM);
        h->pre++;
        h->pre_start = true;
    } else if (!strcmp(name, "td") || !strcmp(name, "th")) {
        if (h->cells++ && !h->rc && !h->cap)
            h->rc = hxi_x_words(h->x, " | ", 3, h->err);
    } else if (!strcmp(name, "br")) {
        if (!h->rc && !h->cap)
            h->rc = h->pre ? hxi_x_text(h->x, "\n", 1, h->err) : hxi_x_words(h->x, " ", 1, h->err);
    } else if (!strcmp(name, "meta")) {
        meta(h, a, n_attrs);
    } else if (!strcmp(name, "html")) {
        const attr *lang = attr_get(a, n_attrs, "lang");
        if (!lang)
            lang = attr_get(a, n_attrs, "xml:lang");
        if (lang && !h->rc)
            h->rc = hxi_x_meta(h->x, "language", lang->value, lang->value_len, h->err);
    } else if (name_is(name, blocks)) {
        block(h, h->pre ? HX_BLOCK_VERBATIM : HX_BLOCK_PROSE);
        if (!strcmp(name, "tr"))
            h->cells = 0;
    }
}

static void end_tag(html *h, const char *name)
{
    if (h->skip) {
        if (!strcmp(name, h->skip_name))
            h->skip--;
        if (!h->skip)
            h->skip_name[0] = 0;
        return;
    }
    if (name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && !name[2]) {
        if (h->cap == CAP_HEADING)
            end_capture(h);
    } else if (!strcmp(name, "title")) {
        if (h->cap == CAP_TITLE)
            end_capture(h);
    } else if (!strcmp(name, "pre") || !strcmp(name, "listing") || !strcmp(name, "xmp")) {
        if (h->pre)
            h->pre--;
        block(h, HX_BLOCK_PROSE);
    } else if (name_is(name, blocks)) {
        block(h, h->pre ? HX_BLOCK_VERBATIM : HX_BLOCK_PROSE);
    }
}

/* Reads a name at s[*i] (letters, digits and -_:.) into out, lowercased and cut. */
static void read_name(const char *s, size_t n, size_t *i, char out[NAME_MAX_LEN + 1], bool tag)
{
    size_t k = 0;
    while (*i < n && !is_space(s[*i]) && s[*i] != '>' && s[*i] != '/' && (tag || s[*i] != '=')) {
        if (k < NAME_MAX_LEN)
            out[k++] = (char)((s[*i] >= 'A' && s[*i] <= 'Z') ? s[*i] | 0x20 : s[*i]);
        (*i)++;
    }
    out[k] = 0;
}

/* The tag at s[h->pos] == '<' and what follows it; returns false when '<' is text. */
static bool tag(html *h)
{
    const char *s = h->s;
    size_t n = h->n, i = h->pos + 1;
    if (i >= n)
        return false;
    if (n - i >= 3 && !memcmp(s + i, "!--", 3)) {
        size_t end = find_ci(s, n, i + 3, "-->");
        h->pos = end < n ? end + 3 : n;
        return true;
    }
    if (n - i >= 8 && !memcmp(s + i, "![CDATA[", 8)) {
        size_t end = find_ci(s, n, i + 8, "]]>");
        text(h, i + 8, end, true);
        h->pos = end < n ? end + 3 : n;
        return true;
    }
    if (s[i] == '!' || s[i] == '?') {
        const char *gt = memchr(s + i, '>', n - i);
        h->pos = gt ? (size_t)(gt - s) + 1 : n;
        return true;
    }
    bool end = s[i] == '/';
    if (end)
        i++;
    if (i >= n || !is_alpha(s[i]))
        return false;
    char name[NAME_MAX_LEN + 1];
    read_name(s, n, &i, name, true);
    attr a[MAX_ATTRS];
    int na = 0;
    bool self_closing = false;
    while (i < n && s[i] != '>') {   /* attributes */
        if (is_space(s[i]) || s[i] == '/') {
            self_closing = s[i] == '/';
            i++;
            continue;
        }
        self_closing = false;
        size_t ns = i;
        char an[NAME_MAX_LEN + 1];
        read_name(s, n, &i, an, false);
        if (i == ns)
            i++;   /* a stray '=' */
        attr cur = {s + ns, "", i - ns, 0};
        size_t j = i;
        while (j < n && is_space(s[j]))
            j++;
        if (j < n && s[j] == '=' && i > ns) {
            j++;
            while (j < n && is_space(s[j]))
                j++;
            if (j < n && (s[j] == '"' || s[j] == '\'')) {
                const char *q = memchr(s + j + 1, s[j], n - j - 1);
                size_t qe = q ? (size_t)(q - s) : n;
                cur.value = s + j + 1;
                cur.value_len = qe - j - 1;
                j = qe < n ? qe + 1 : n;
            } else {
                size_t vs = j;
                while (j < n && !is_space(s[j]) && s[j] != '>')
                    j++;
                cur.value = s + vs;
                cur.value_len = j - vs;
            }
            i = j;
        }
        if (na < MAX_ATTRS && i > ns)
            a[na++] = cur;
    }
    h->pos = i < n ? i + 1 : n;
    if (end) {
        end_tag(h, name);
        return true;
    }
    start_tag(h, name, a, na, self_closing);
    if (!strcmp(name, "script") || !strcmp(name, "style")) {   /* raw text: dropped to its end tag */
        char close[NAME_MAX_LEN + 3] = "</";
        strcat(close, name);
        h->pos = find_ci(s, n, h->pos, close);
    }
    return true;
}

static int extract_html(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    char *s;
    size_t n;
    int rc = decode(raw, len, x, &s, &n, err);
    if (rc)
        return rc;
    html h = {.x = x, .err = err, .s = s, .n = n, .line = 1};
    size_t run = 0;
    while (h.pos < n && !h.rc) {
        const char *lt = memchr(s + h.pos, '<', n - h.pos);
        size_t at = lt ? (size_t)(lt - s) : n;
        h.pos = at;
        if (at == n)
            break;
        text(&h, run, at, false);
        if (!tag(&h))
            h.pos = at + 1;   /* '<' as text: the run goes on */
        else
            run = h.pos;
    }
    text(&h, run, n, false);
    if (h.cap == CAP_HEADING || h.cap == CAP_TITLE)
        end_capture(&h);
    rc = h.rc ? h.rc : hxi_x_finish(x, err);
    free(h.capbuf.s);
    free(h.tmp.s);
    free(s);
    return rc;
}

/* An HTML document by its start: after a BOM, white space, an XML declaration and comments,
 * "<!DOCTYPE html" or "<html". */
static bool sniff_html(const uint8_t *raw, size_t len)
{
    const char *s = (const char *)raw;
    size_t i = len >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF ? 3 : 0, lim = len < 4096 ? len : 4096;
    for (int round = 0; round < 8 && i < lim; round++) {
        while (i < lim && is_space(s[i]))
            i++;
        if (lim - i >= 4 && (!memcmp(s + i, "<?xml", lim - i < 5 ? lim - i : 5) || !memcmp(s + i, "<!--", 4))) {
            const char *close = s[i + 1] == '?' ? "?>" : "-->";
            size_t end = find_ci(s, lim, i + 2, close);
            if (end == lim)
                return false;
            i = end + strlen(close);
            continue;
        }
        if (lim - i >= 14 && !strncasecmp(s + i, "<!doctype html", 14))
            return true;
        return lim - i >= 6 && !strncasecmp(s + i, "<html", 5) && (is_space(s[i + 5]) || s[i + 5] == '>');
    }
    return false;
}

static const char *const html_exts[] = {"html", "htm", "xhtml", "xht", NULL};

const hxi_doctype hxi_doctype_html = {
    .name = "html", .exts = html_exts, .sniff = sniff_html, .extract = extract_html, .chunk = HX_CHUNK_BLOCKS,
};
