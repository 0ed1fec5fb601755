/* markdown.c: the Markdown row's extractor: the text a reader of the rendered page sees, line for
 * line, so that a Markdown file is searched and embedded as its HTML, DOCX or PDF renderings are.
 * Spec: CommonMark 0.31 with GFM's strikethrough, reduced to what changes the words (the block
 * structure stays as written, for the chunker's heading sections and paragraphs):
 *   - inline links and images `[text](dest "title")`, `![alt](src)`, and reference ones
 *     `[text][label]`, `[text][]` -> their text (alt); link reference definition lines
 *     `[label]: dest "title"` -> nothing (the line stays, blank)
 *   - code spans -> their content, without the backticks (its white space as written)
 *   - emphasis, strong and strikethrough delimiters (`*`, `_`, `~`) -> removed where a run that can
 *     open (CommonMark's left-flanking rules; `_` not inside a word) has a run of the same
 *     character after it in its paragraph that can close, and the same for closers; other runs
 *     stay (a list bullet, `2 * 3`, `snake_case`)
 *   - autolinks `<https://x>` -> `https://x`; raw HTML tags and comments -> removed (an HTML
 *     comment block that never closes runs to the end, as CommonMark says)
 *   - backslash escapes of ASCII punctuation -> the character
 *   - bullet list markers (`*`, `-`, `+`) and task list boxes (`[ ]`, `[x]`) -> removed, as a
 *     rendered page draws them (an ordered list's `1.` is kept: its number is text)
 * What is kept as written: front matter, fenced code (a line starting, after spaces, with ``` or
 * ~~~ opens and closes a fence, as the chunker reads it), headings' `#`s, tables' `|`s, character references, indented code (read as text). Removing markup never removes a line
 * break, so line numbers are the file's. Time linear in the input: link tails (`(dest "title")`)
 * and tags are read at most MD_TAIL_MAX bytes far, code spans' closing runs are searched once per
 * run length. */
#include "markdown.h"
#include "alloc.h"
#include "yaml.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MD_TAIL_MAX 2048   /* bytes a link's `(dest "title")` or a raw HTML tag may span */
#define MD_TICKS_MAX 32    /* longer backtick runs are text */

/* A span of the paragraph's output that markup may remove: an emphasis run (removed when it pairs,
 * see above), or a bracket (removed when its link forms). */
typedef enum { D_EMPH, D_BRACKET, D_TEXT, D_DROP } dkind;
typedef struct {
    size_t at, len;      /* in the output */
    dkind kind;
    char c;              /* '*', '_', '~'; '[' or '!' for a bracket */
    bool open, close;    /* an emphasis run that can open / close */
} delim;

typedef struct {
    char *s;
    size_t n, cap;
    delim *d;
    size_t nd, capd;
    size_t *open;        /* indexes into d of the brackets not yet closed */
    size_t n_open, cap_open;
    bool oom;
} md;

static void put(md *m, const char *s, size_t n)
{
    if (m->oom || !n)
        return;
    if (hx_grow((void **)&m->s, &m->cap, m->n + n + 1, 1, NULL)) {
        m->oom = true;
        return;
    }
    memcpy(m->s + m->n, s, n);
    m->n += n;
}

/* The line breaks of s[0..n), whose other bytes are markup a reader does not see. */
static void put_breaks(md *m, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n')
            put(m, "\n", 1);
}

static delim *add_delim(md *m, dkind kind, char c, size_t len)
{
    if (m->oom || hx_grow((void **)&m->d, &m->capd, m->nd + 1, sizeof *m->d, NULL)) {
        m->oom = true;
        return NULL;
    }
    delim *d = &m->d[m->nd++];
    *d = (delim){.at = m->n, .len = len, .kind = kind, .c = c};
    return d;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_punct(char c)
{
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
    return is_alpha(c) || (c >= '0' && c <= '9');
}

/* === Inline parts that are read whole === */

/* The end of the backtick run of exactly k that closes a code span opened before p[i], or 0.
 * none[k] remembers a failed search: a later opener of that length has no closer either. */
static size_t code_close(const char *p, size_t n, size_t i, size_t k, bool *none)
{
    if (none[k])
        return 0;
    while (i < n) {
        if (p[i] != '`') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && p[j] == '`')
            j++;
        if (j - i == k)
            return j;
        i = j;
    }
    none[k] = true;
    return 0;
}

/* The end of a link destination and optional title `(dest "title")` starting at p[i] == '(', or
 * 0 when there is none (CommonMark 6.3, within MD_TAIL_MAX bytes). */
static size_t link_tail(const char *p, size_t n, size_t i)
{
    size_t end = n - i > MD_TAIL_MAX ? i + MD_TAIL_MAX : n, j = i + 1;
    while (j < end && is_space(p[j]))
        j++;
    if (j < end && p[j] == '<') {   /* <dest>: no line break, no unescaped < > */
        for (j++; j < end && p[j] != '>'; j++)
            if (p[j] == '\n' || p[j] == '<' || (p[j] == '\\' && ++j >= end))
                return 0;
        if (j++ >= end)
            return 0;
    } else {                         /* dest: no spaces or controls, parentheses balanced */
        int depth = 0;
        for (; j < end && !is_space(p[j]) && (unsigned char)p[j] > 0x1f; j++) {
            if (p[j] == '\\' && j + 1 < end && is_punct(p[j + 1]))
                j++;
            else if (p[j] == '(' && ++depth > 32)
                return 0;
            else if (p[j] == ')' && depth-- == 0)
                break;
        }
        if (depth > 0)
            return 0;
    }
    size_t k = j;
    while (k < end && is_space(p[k]))
        k++;
    if (k > j && k < end && (p[k] == '"' || p[k] == '\'' || p[k] == '(')) {   /* a title */
        char close = p[k] == '(' ? ')' : p[k];
        for (k++; k < end && p[k] != close; k++)
            if (p[k] == '\\')
                k++;
        if (k >= end)
            return 0;
        for (k++; k < end && is_space(p[k]); k++)
            ;
        j = k;
    } else {
        j = k;
    }
    return j < end && p[j] == ')' ? j + 1 : 0;
}

/* The end of a reference `[label]` or `[]` at p[i] == '[' (no brackets inside), or 0. */
static size_t link_ref(const char *p, size_t n, size_t i)
{
    size_t end = n - i > 1000 ? i + 1000 : n;
    for (size_t j = i + 1; j < end; j++) {
        if (p[j] == '\\')
            j++;
        else if (p[j] == '[')
            return 0;
        else if (p[j] == ']')
            return j + 1;
    }
    return 0;
}

/* The end of an autolink `<scheme:...>` or `<user@host>` at p[i] == '<', or 0. */
static size_t autolink(const char *p, size_t n, size_t i)
{
    size_t end = n - i > MD_TAIL_MAX ? i + MD_TAIL_MAX : n, j = i + 1;
    while (j < end && (is_alnum(p[j]) || p[j] == '+' || p[j] == '.' || p[j] == '-'))
        j++;
    bool uri = j - i - 1 >= 2 && j - i - 1 <= 32 && is_alpha(p[i + 1]) && j < end && p[j] == ':';
    for (j = i + 1; j < end && p[j] != '>'; j++)
        if (is_space(p[j]) || p[j] == '<' || (unsigned char)p[j] <= 0x1f)
            return 0;
    if (j >= end || j == i + 1)
        return 0;
    return uri || memchr(p + i + 1, '@', j - i - 1) ? j + 1 : 0;
}

/* The end of a raw HTML open or closing tag at p[i] == '<' (CommonMark 6.6, attributes read
 * loosely: quoted values may hold '>'), or 0. */
static size_t html_tag(const char *p, size_t n, size_t i)
{
    size_t end = n - i > MD_TAIL_MAX ? i + MD_TAIL_MAX : n, j = i + 1;
    bool closing = j < end && p[j] == '/';
    j += closing;
    if (j >= end || !is_alpha(p[j]))
        return 0;
    while (j < end && (is_alnum(p[j]) || p[j] == '-'))
        j++;
    if (j >= end || !(is_space(p[j]) || p[j] == '>' || (p[j] == '/' && !closing)))
        return 0;
    for (char quote = 0; j < end; j++) {
        if (quote)
            quote = p[j] == quote ? 0 : quote;
        else if ((p[j] == '"' || p[j] == '\'') && closing)
            return 0;   /* a closing tag has no attributes */
        else if (p[j] == '"' || p[j] == '\'')
            quote = p[j];
        else if (p[j] == '>')
            return j + 1;
        else if (p[j] == '<')
            return 0;
    }
    return 0;
}

/* === One paragraph === */

/* A run of c at p[i..j): records whether it can open or close emphasis (CommonMark 6.2). */
static void emphasis_run(md *m, const char *p, size_t n, size_t i, size_t j)
{
    char c = p[i], before = i ? p[i - 1] : '\n', after = j < n ? p[j] : '\n';
    bool left = !is_space(after) && (!is_punct(after) || is_space(before) || is_punct(before));
    bool right = !is_space(before) && (!is_punct(before) || is_space(after) || is_punct(after));
    delim *d = (c != '~' || j - i <= 2) ? add_delim(m, D_EMPH, c, j - i) : NULL;
    if (d) {
        d->open = c == '_' ? left && (!right || is_punct(before)) : left;
        d->close = c == '_' ? right && (!left || is_punct(after)) : right;
    }
    put(m, p + i, j - i);
}

/* At the start of a paragraph's line p[i..]: its indentation into the output, then past a bullet
 * list item's marker (`*`, `-`, `+` and a space) and a task list item's box (`[ ]`, `[x]`), which
 * a rendered page draws rather than spells. Where the line's text starts. */
static size_t line_start(md *m, const char *p, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && (p[j] == ' ' || p[j] == '\t'))
        j++;
    put(m, p + i, j - i);
    if (j + 1 < n && strchr("*-+", p[j]) && (p[j + 1] == ' ' || p[j + 1] == '\t')) {
        j += 2;
        if (j + 3 < n && p[j] == '[' && strchr(" xX", p[j + 1]) && p[j + 2] == ']' && p[j + 3] == ' ')
            j += 4;
    }
    return j;
}

/* Reads the inline markup of paragraph p[0..n) into the output (the brackets and emphasis runs
 * it may drop as delims, resolved by end_paragraph). */
static void inlines(md *m, const char *p, size_t n)
{
    bool none[MD_TICKS_MAX + 1] = {0};
    size_t comment_end = 0;   /* past the last "-->" of the paragraph, found once */
    for (size_t k = n; k >= 3 && !comment_end; k--)
        if (!memcmp(p + k - 3, "-->", 3))
            comment_end = k;
    size_t i = 0;
    while (i < n && !m->oom) {
        if (!i || p[i - 1] == '\n')
            i = line_start(m, p, n, i);
        if (i >= n)
            break;
        char c = p[i];
        size_t j = i + 1, e;
        if (c == '\\' && j < n && is_punct(p[j])) {
            put(m, p + j, 1);
            i = j + 1;
        } else if (c == '`') {
            while (j < n && p[j] == '`')
                j++;
            size_t k = j - i;
            if (k <= MD_TICKS_MAX && (e = code_close(p, n, j, k, none))) {
                put(m, p + j, e - k - j);
                i = e;
            } else {
                put(m, p + i, k);
                i = j;
            }
        } else if (c == '*' || c == '_' || c == '~') {
            while (j < n && p[j] == c)
                j++;
            emphasis_run(m, p, n, i, j);
            i = j;
        } else if (c == '[' || (c == '!' && j < n && p[j] == '[')) {
            if (!hx_grow((void **)&m->open, &m->cap_open, m->n_open + 1, sizeof *m->open, NULL))
                m->open[m->n_open++] = m->nd;
            else
                m->oom = true;
            add_delim(m, D_BRACKET, c, c == '!' ? 2 : 1);
            put(m, p + i, c == '!' ? 2 : 1);
            i += c == '!' ? 2 : 1;
        } else if (c == ']' && m->n_open) {
            e = j < n && p[j] == '(' ? link_tail(p, n, j) : j < n && p[j] == '[' ? link_ref(p, n, j) : 0;
            m->d[m->open[--m->n_open]].kind = e ? D_DROP : D_TEXT;
            if (e) {
                put_breaks(m, p + i, e - i);
                i = e;
            } else {
                put(m, "]", 1);
                i = j;
            }
        } else if (c == '<' && j + 2 < n && !memcmp(p + j, "!--", 3) && comment_end >= i + 7) {
            const char *end = memmem(p + i + 4, n - i - 4, "-->", 3);
            e = (size_t)(end - p) + 3;
            put_breaks(m, p + i, e - i);
            i = e;
        } else if (c == '<' && (e = autolink(p, n, i))) {
            put(m, p + j, e - 1 - j);
            i = e;
        } else if (c == '<' && (e = html_tag(p, n, i))) {
            put_breaks(m, p + i, e - i);
            i = e;
        } else {
            while (c != '\n' && j < n && !strchr("\\`*_~[]!<\n", p[j]))   /* a line's end: see line_start */
                j++;
            put(m, p + i, j - i);
            i = j;
        }
    }
}

/* Drops the markup the paragraph's delims say a reader does not see: formed links' brackets,
 * emphasis runs that pair (an opener with a closer of its character after it, and the reverse). */
static void end_paragraph(md *m)
{
    m->n_open = 0;
    if (m->oom || !m->nd) {
        m->nd = 0;
        return;
    }
    size_t last_close[3] = {0}, seen_open[3] = {0};   /* per '*', '_', '~': 1 + index */
    const char *chars = "*_~";
    for (size_t k = 0; k < m->nd; k++)
        if (m->d[k].kind == D_EMPH && m->d[k].close)
            last_close[strchr(chars, m->d[k].c) - chars] = k + 1;
    for (size_t k = 0; k < m->nd; k++) {
        delim *d = &m->d[k];
        if (d->kind != D_EMPH)
            continue;
        size_t c = (size_t)(strchr(chars, d->c) - chars);
        bool drop = (d->open && last_close[c] > k + 1) || (d->close && seen_open[c]);
        if (d->open)
            seen_open[c] = true;
        if (drop)
            d->kind = D_DROP;
    }
    size_t w = m->d[0].at, r = w;   /* compact the paragraph's output past the dropped spans */
    for (size_t k = 0; k < m->nd; k++) {
        if (m->d[k].kind != D_DROP)
            continue;
        memmove(m->s + w, m->s + r, m->d[k].at - r);
        w += m->d[k].at - r;
        r = m->d[k].at + m->d[k].len;
    }
    if (m->nd) {
        memmove(m->s + w, m->s + r, m->n - r);
        m->n = w + (m->n - r);
    }
    m->nd = 0;
}

/* === Lines === */

typedef struct {
    const char *s;
    size_t n;            /* without its '\n' */
    size_t indent;       /* leading spaces */
    bool blank;
} line;

static line line_at(const char *s, size_t n, size_t pos, size_t *next)
{
    const char *nl = memchr(s + pos, '\n', n - pos);
    line l = {.s = s + pos, .n = nl ? (size_t)(nl - (s + pos)) : n - pos};
    *next = pos + l.n + (nl != NULL);
    while (l.indent < l.n && l.s[l.indent] == ' ')
        l.indent++;
    size_t k = l.indent;
    while (k < l.n && is_space(l.s[k]))
        k++;
    l.blank = k == l.n;
    return l;
}

static bool is_fence(const line *l)
{
    return l->n - l->indent >= 3 && (!memcmp(l->s + l->indent, "```", 3) || !memcmp(l->s + l->indent, "~~~", 3));
}

/* A link reference definition on one line: `[label]: dest` with an optional title. */
static bool is_definition(const line *l)
{
    if (l->indent > 3 || l->indent >= l->n || l->s[l->indent] != '[')
        return false;
    size_t e = link_ref(l->s, l->n, l->indent);
    if (e < l->indent + 3 || e >= l->n || l->s[e] != ':')
        return false;
    size_t j = e + 1;
    while (j < l->n && is_space(l->s[j]))
        j++;
    if (j >= l->n)
        return false;
    while (j < l->n && !is_space(l->s[j]))
        j++;
    while (j < l->n && is_space(l->s[j]))
        j++;
    return j == l->n || l->s[j] == '"' || l->s[j] == '\'' || l->s[j] == '(';
}

/* The paragraph s[par..end) into the output. */
static void paragraph(md *m, const char *s, size_t par, size_t end)
{
    inlines(m, s + par, end - par);
    end_paragraph(m);
}

/* Past the "-->" that closes an HTML comment (searched from l->s[from]), with *open cleared; or
 * past the line and its line break (span bytes) when it does not close there, with *open set. */
static size_t comment_line(md *m, const line *l, size_t from, size_t span, bool *open)
{
    const char *close = memmem(l->s + from, l->n - from, "-->", 3);
    *open = !close;
    if (!close) {
        put_breaks(m, l->s, span);
        return span;
    }
    return (size_t)(close + 3 - l->s);
}

int hxi_markdown_text(const char *s, size_t n, char **out, size_t *out_len)
{
    md m = {0};
    size_t at, len, pos = 0, next, par = SIZE_MAX;
    if (hxi_yaml_front_matter(s, n, &at, &len, &pos) != 1)
        pos = 0;
    put(&m, s, pos);
    bool fenced = false, comment = false;
    while (pos < n && !m.oom) {
        line l = line_at(s, n, pos, &next);
        bool opens = !comment && !fenced && l.indent <= 3 && l.n - l.indent >= 4 &&
                     !memcmp(l.s + l.indent, "<!--", 4);
        bool fence = !comment && is_fence(&l), def = !comment && !fenced && par == SIZE_MAX && is_definition(&l);
        if (par != SIZE_MAX && (comment || fenced || l.blank || fence || opens || def)) {
            paragraph(&m, s, par, pos);
            par = SIZE_MAX;
        }
        if (comment || opens) {   /* an HTML comment block: nothing of it is seen */
            size_t rest = comment_line(&m, &l, opens ? l.indent + 4 : 0, next - pos, &comment);
            if (!comment) {       /* what follows "-->" on its line is text */
                size_t k = rest;
                while (k < l.n && is_space(l.s[k]))
                    k++;
                if (k < l.n)
                    par = pos + rest;
                else if (next > pos + l.n)
                    put(&m, "\n", 1);
            }
        } else if (fenced || l.blank || fence) {
            fenced ^= fence;
            put(&m, l.s, next - pos);
        } else if (def) {
            put_breaks(&m, l.s, next - pos);
        } else if (par == SIZE_MAX) {
            par = pos;
        }
        pos = next;
    }
    if (par != SIZE_MAX)
        paragraph(&m, s, par, n);
    free(m.d);
    free(m.open);
    if (m.oom) {
        free(m.s);
        return HX_ENOMEM;
    }
    if (!m.s && !(m.s = calloc(1, 1)))
        return HX_ENOMEM;
    m.s[m.n] = 0;
    *out = m.s;
    *out_len = m.n;
    return 0;
}

int hxi_markdown_extract(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    char *text, *seen;
    size_t n, seen_len;
    int rc = hxi_doc_decode(raw, len, &text, &n, &x->encoding, err);
    if (rc)
        return rc;
    rc = hxi_markdown_text(text, n, &seen, &seen_len);
    free(text);
    if (rc)
        return hx_error_set(err, rc, -1, "out of memory reading Markdown");
    if (!(rc = hxi_x_block(x, HX_BLOCK_VERBATIM, err)))
        rc = hxi_x_text(x, seen, seen_len, err);
    free(seen);
    return rc ? rc : hxi_x_finish(x, err);
}
