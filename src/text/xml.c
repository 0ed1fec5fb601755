/* xml.c: the XML well-formedness check and event reader (spec and limits in xml.h). A cursor over
 * the input and a fixed stack of open element names (offsets into the input); must not allocate or
 * expand anything. */
#include "xml.h"

#include "unicode.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t n, i;
    hx_error *err;
    size_t open_at[HX_XML_MAX_DEPTH], open_len[HX_XML_MAX_DEPTH];
    int depth;
    const hxi_xml_handler *h;   /* NULL: check only */
} xr;

static int fail(xr *x, const char *what)
{
    return hx_error_set(x->err, HX_EPARSE, (int64_t)x->i, "XML is not well-formed at byte %zu: %s", x->i, what);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static bool starts(const xr *x, const char *lit)
{
    size_t k = strlen(lit);
    return x->n - x->i >= k && !memcmp(x->s + x->i, lit, k);
}

static void skip_space(xr *x)
{
    while (x->i < x->n && is_space(x->s[x->i]))
        x->i++;
}

/* A name at the cursor; its length, 0 when there is none. */
static size_t name(xr *x)
{
    size_t a = x->i;
    if (x->i >= x->n || !name_start((unsigned char)x->s[x->i]))
        return 0;
    while (x->i < x->n && name_char((unsigned char)x->s[x->i]))
        x->i++;
    return x->i - a;
}

/* Moves past the first `end` at or after the cursor; false when there is none. */
static bool past(xr *x, const char *end)
{
    size_t k = strlen(end);
    for (; x->i + k <= x->n; x->i++)
        if (!memcmp(x->s + x->i, end, k)) {
            x->i += k;
            return true;
        }
    x->i = x->n;
    return false;
}

/* A reference after '&' (the cursor is on '&'). */
static int reference(xr *x)
{
    static const char *const predefined[] = {"lt", "gt", "amp", "apos", "quot"};
    size_t a = ++x->i;
    if (x->i < x->n && x->s[x->i] == '#') {
        x->i++;
        bool hex = x->i < x->n && x->s[x->i] == 'x';
        x->i += hex;
        unsigned long cp = 0;
        size_t digits = 0;
        for (; x->i < x->n && x->s[x->i] != ';'; x->i++, digits++) {
            char c = x->s[x->i];
            int d = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                   : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0 || digits >= 8)
                return fail(x, "bad character reference");
            cp = cp * (hex ? 16 : 10) + (unsigned long)d;
        }
        if (x->i >= x->n || !digits)
            return fail(x, "unterminated character reference");
        x->i++;
        bool ok = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                  (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
        return ok ? 0 : fail(x, "character reference to a code point XML does not allow");
    }
    size_t k = name(x);
    if (!k || x->i >= x->n || x->s[x->i] != ';')
        return fail(x, "'&' that does not start a reference");
    for (size_t p = 0; p < sizeof predefined / sizeof *predefined; p++)
        if (strlen(predefined[p]) == k && !memcmp(x->s + a, predefined[p], k)) {
            x->i++;
            return 0;
        }
    x->i = a - 1;
    return fail(x, "reference to an undefined entity (entities are never declared or expanded)");
}

static int comment(xr *x)
{
    x->i += 4;   /* "<!--" */
    for (; x->i + 1 < x->n; x->i++)
        if (x->s[x->i] == '-' && x->s[x->i + 1] == '-') {
            if (x->i + 2 < x->n && x->s[x->i + 2] == '>') {
                x->i += 3;
                return 0;
            }
            return fail(x, "\"--\" inside a comment");
        }
    return fail(x, "unterminated comment");
}

static int pi(xr *x)
{
    x->i += 2;
    if (!name(x))
        return fail(x, "processing instruction without a target");
    return past(x, "?>") ? 0 : fail(x, "unterminated processing instruction");
}

static int doctype(xr *x)
{
    x->i += 9;   /* "<!DOCTYPE" */
    for (char q = 0; x->i < x->n; x->i++) {
        char c = x->s[x->i];
        if (q) {
            q = c == q ? 0 : q;
        } else if (c == '"' || c == '\'') {
            q = c;
        } else if (c == '[') {
            return fail(x, "a DOCTYPE with an internal subset (entity declarations are refused)");
        } else if (c == '>') {
            x->i++;
            return 0;
        }
    }
    return fail(x, "unterminated DOCTYPE");
}

/* A start or empty-element tag; the cursor is on '<'. */
static int start_tag(xr *x)
{
    size_t attr_at[HX_XML_MAX_ATTRS], attr_len[HX_XML_MAX_ATTRS], n_attr = 0;
    hxi_xml_attr attrs[HX_XML_MAX_ATTRS];
    x->i++;
    size_t at = x->i, len = name(x);
    if (!len)
        return fail(x, "'<' not followed by a name");
    for (;;) {
        size_t before = x->i;
        skip_space(x);
        if (x->i >= x->n)
            return fail(x, "unterminated tag");
        if (x->s[x->i] == '>' || starts(x, "/>")) {
            bool empty = x->s[x->i] == '/';
            x->i += empty ? 2 : 1;
            if (x->h) {
                for (size_t k = 0; k < n_attr; k++) {
                    attrs[k].name = x->s + attr_at[k];
                    attrs[k].name_len = attr_len[k];
                }
                int rc = x->h->start ? x->h->start(x->h->ctx, x->s + at, len, attrs, n_attr) : 0;
                if (!rc && empty && x->h->end)
                    rc = x->h->end(x->h->ctx, x->s + at, len);
                if (rc)
                    return rc;
            }
            if (empty)
                return 0;
            if (x->depth == HX_XML_MAX_DEPTH)
                return hx_error_set(x->err, HX_EDEPTH, (int64_t)x->i, "XML nests deeper than %d elements",
                                    HX_XML_MAX_DEPTH);
            x->open_at[x->depth] = at;
            x->open_len[x->depth++] = len;
            return 0;
        }
        if (x->i == before)
            return fail(x, "attributes must be separated by white space");
        size_t a = x->i, alen = name(x);
        if (!alen)
            return fail(x, "bad attribute name");
        for (size_t k = 0; k < n_attr; k++)
            if (attr_len[k] == alen && !memcmp(x->s + attr_at[k], x->s + a, alen))
                return fail(x, "attribute given twice");
        if (n_attr == HX_XML_MAX_ATTRS)
            return fail(x, "too many attributes");
        attr_at[n_attr] = a;
        attr_len[n_attr++] = alen;
        skip_space(x);
        if (x->i >= x->n || x->s[x->i] != '=')
            return fail(x, "attribute without '='");
        x->i++;
        skip_space(x);
        if (x->i >= x->n || (x->s[x->i] != '"' && x->s[x->i] != '\''))
            return fail(x, "attribute value not quoted");
        char q = x->s[x->i++];
        attrs[n_attr - 1].value = x->s + x->i;
        for (;;) {
            if (x->i >= x->n)
                return fail(x, "unterminated attribute value");
            char c = x->s[x->i];
            if (c == q) {
                attrs[n_attr - 1].value_len = (size_t)(x->s + x->i - attrs[n_attr - 1].value);
                x->i++;
                break;
            }
            if (c == '<')
                return fail(x, "'<' in an attribute value");
            int rc = c == '&' ? reference(x) : (x->i++, 0);
            if (rc)
                return rc;
        }
    }
}

static int end_tag(xr *x)
{
    x->i += 2;
    size_t at = x->i, len = name(x);
    if (!len)
        return fail(x, "end tag without a name");
    if (!x->depth)
        return fail(x, "end tag with no element open");
    x->depth--;
    if (len != x->open_len[x->depth] || memcmp(x->s + at, x->s + x->open_at[x->depth], len)) {
        x->i = at;
        return fail(x, "end tag does not match the open element");
    }
    skip_space(x);
    if (x->i >= x->n || x->s[x->i] != '>')
        return fail(x, "unterminated end tag");
    x->i++;
    return x->h && x->h->end ? x->h->end(x->h->ctx, x->s + at, len) : 0;
}

/* Hands text s[from..to) (references not yet decoded unless `raw`) to the handler. */
static int text(xr *x, size_t from, size_t to, bool raw)
{
    return x->h && x->h->text && to > from ? x->h->text(x->h->ctx, x->s + from, to - from, raw) : 0;
}

int hxi_xml_check(const char *s, size_t n, hx_error *err)
{
    return hxi_xml_parse(s, n, NULL, err);
}

int hxi_xml_parse(const char *s, size_t n, const hxi_xml_handler *h, hx_error *err)
{
    xr x = {.s = s, .n = n, .err = err, .h = h};
    bool root_done = false, in_root = false;
    int rc = 0;
    size_t run = 0;   /* start of the text not yet handed over */
    while (!rc && x.i < n) {
        char c = s[x.i];
        if (c == '<' && in_root && (rc = text(&x, run, x.i, false)))
            return rc;
        if (c == '<') {
            if (starts(&x, "<!--")) {
                rc = comment(&x);
            } else if (starts(&x, "<?")) {
                rc = pi(&x);
            } else if (starts(&x, "<![CDATA[")) {
                if (!in_root)
                    return fail(&x, "CDATA outside the root element");
                x.i += 9;
                size_t from = x.i;
                rc = past(&x, "]]>") ? text(&x, from, x.i - 3, true) : fail(&x, "unterminated CDATA section");
            } else if (starts(&x, "<!DOCTYPE")) {
                rc = in_root || root_done ? fail(&x, "DOCTYPE after the root element started") : doctype(&x);
            } else if (starts(&x, "</")) {
                rc = end_tag(&x);
                in_root = x.depth > 0;
                root_done = root_done || !in_root;
            } else {
                if (root_done)
                    return fail(&x, "a second root element");
                rc = start_tag(&x);
                in_root = x.depth > 0;
                root_done = !in_root;
            }
            run = x.i;
        } else if (!in_root) {
            if (!is_space(c))
                return fail(&x, "text outside the root element");
            x.i++;
        } else if (c == '&') {
            rc = reference(&x);
        } else if (c == ']' && starts(&x, "]]>")) {
            return fail(&x, "\"]]>\" in text");
        } else {
            x.i++;
        }
    }
    if (rc)
        return rc;
    if (in_root)
        return fail(&x, "the root element is not closed");
    return root_done ? 0 : fail(&x, "no root element");
}

size_t hxi_xml_decode(const char *s, size_t n, char *out)
{
    static const struct {
        const char *name;
        char c;
    } predefined[] = {{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"apos;", '\''}, {"quot;", '"'}};
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '&') {
            out[o++] = s[i++];
            continue;
        }
        const char *semi = memchr(s + i, ';', n - i);
        size_t end = semi ? (size_t)(semi - s) + 1 : n;
        if (i + 1 < n && s[i + 1] == '#') {
            bool hex = i + 2 < n && s[i + 2] == 'x';
            uint32_t cp = (uint32_t)strtoul(s + i + 2 + hex, NULL, hex ? 16 : 10);
            o += (size_t)hxi_utf8_put(cp, out + o);
        } else {
            for (size_t p = 0; p < sizeof predefined / sizeof *predefined; p++)
                if (end - i - 1 == strlen(predefined[p].name) && !memcmp(s + i + 1, predefined[p].name, end - i - 1))
                    out[o++] = predefined[p].c;
        }
        i = end;
    }
    return o;
}
