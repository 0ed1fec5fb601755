/* help.c: the help topics (src/cli/help/NAME.md, compiled in by src/cli/help/topics.awk) shown two
 * ways from the one Markdown source: as text on a terminal (`hyrax help NAME`) and as a man page
 * (`hyrax help --man NAME`, what `make install` writes). The Markdown is a small subset: a `# name:
 * summary` title line, `##`/`###` headings, paragraphs, `- ` items (continued by lines indented two
 * spaces), code indented four spaces or fenced, `| a | b |` tables, `code` and **bold**. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* === Topics === */

const help_topic *help_topic_find(const char *name)
{
    for (size_t i = 0; i < help_n_topics; i++)
        if (name ? !strcmp(help_topics[i].name, name) : !strcmp(help_topics[i].page, "hyrax"))
            return &help_topics[i];
    return NULL;
}

/* === Blocks: the Markdown cut into headings, paragraphs, items, code and tables === */

typedef enum { B_H2, B_H3, B_PARA, B_ITEM, B_CODE, B_ROW } block_kind;

/* One block. text: its text, lines joined by spaces (B_CODE: by '\n'; B_ROW: the row's cells, each
 * ended by '\0', n_cells of them). head: for B_ROW, the table's header cells the same way. */
typedef struct {
    block_kind kind;
    char *text;            /* owned by the walk; valid during the callback */
    size_t len, n_cells;
    const char *head;      /* B_ROW: the header row's cells */
    size_t n_head;
} block;

typedef void (*block_fn)(FILE *f, const block *b, void *ctx);

static const char *line_end(const char *p)
{
    const char *e = strchr(p, '\n');
    return e ? e : p + strlen(p);
}

static bool blank(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p == e;
}

static bool starts(const char *p, const char *e, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(e - p) >= n && !memcmp(p, s, n);
}

/* buf += s[0..n) (grows; exits on no memory: help is the whole of what this process does). */
static void add(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = realloc(*buf, *cap);
        if (!*buf) {
            fputs("hyrax help: out of memory\n", stderr);
            exit(1);
        }
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* The cells of a table line "| a | b |" into buf as "a\0b\0"; their count. "\|" stays in a cell. */
static size_t cells(const char *p, const char *e, char **buf, size_t *len, size_t *cap)
{
    size_t n = 0;
    *len = 0;
    p++;   /* the leading '|' */
    while (p < e) {
        const char *q = p;
        while (q < e && !(*q == '|' && q[-1] != '\\'))
            q++;
        if (q == e && blank(p, e))
            break;
        while (p < q && *p == ' ')
            p++;
        const char *r = q;
        while (r > p && r[-1] == ' ')
            r--;
        add(buf, len, cap, p, (size_t)(r - p));
        add(buf, len, cap, "", 1);   /* the '\0' that ends the cell */
        n++;
        p = q + 1;
    }
    return n;
}

/* Calls fn for every block of md after its title line. */
static void walk(const char *md, block_fn fn, FILE *f, void *ctx)
{
    char *buf = NULL, *head = NULL;
    size_t len = 0, cap = 0, hlen = 0, hcap = 0;
    const char *p = strchr(md, '\n');
    p = p ? p + 1 : md + strlen(md);
    while (*p) {
        const char *e = line_end(p);
        block b = {.kind = B_PARA};
        len = 0;
        if (blank(p, e)) {
            p = *e ? e + 1 : e;
            continue;
        }
        if (starts(p, e, "```")) {   /* fenced code, to the closing fence */
            b.kind = B_CODE;
            for (p = *e ? e + 1 : e; *p && !starts(p, line_end(p), "```"); p = *line_end(p) ? line_end(p) + 1 : line_end(p)) {
                add(&buf, &len, &cap, p, (size_t)(line_end(p) - p));
                add(&buf, &len, &cap, "\n", 1);
            }
            e = line_end(p);
        } else if (starts(p, e, "    ")) {   /* indented code: to a line indented less (blank ones inside kept) */
            b.kind = B_CODE;
            const char *last = p;
            for (const char *q = p; *q; q = *line_end(q) ? line_end(q) + 1 : line_end(q)) {
                const char *qe = line_end(q);
                if (!blank(q, qe) && !starts(q, qe, "    "))
                    break;
                if (!blank(q, qe))
                    last = q;
            }
            for (;; p = e + 1, e = line_end(p)) {
                if (!blank(p, e))
                    add(&buf, &len, &cap, p + 4, (size_t)(e - p - 4));
                add(&buf, &len, &cap, "\n", 1);
                if (p == last)
                    break;
            }
        } else if (starts(p, e, "### ") || starts(p, e, "## ")) {
            b.kind = p[2] == '#' ? B_H3 : B_H2;
            const char *t = p + (b.kind == B_H3 ? 4 : 3);
            add(&buf, &len, &cap, t, (size_t)(e - t));
        } else if (*p == '|') {   /* a table: a header row, a separator row, then rows */
            size_t nh = cells(p, e, &head, &hlen, &hcap);
            for (p = *e ? e + 1 : e, e = line_end(p); *p == '|'; p = *e ? e + 1 : e, e = line_end(p)) {
                if (strspn(p, "|-: ") >= (size_t)(e - p))
                    continue;   /* the separator */
                block r = {.kind = B_ROW, .head = head, .n_head = nh};
                r.n_cells = cells(p, e, &buf, &r.len, &cap);
                r.text = buf;
                fn(f, &r, ctx);
            }
            continue;
        } else {   /* a paragraph or an item: lines joined, to a blank line or another block */
            b.kind = starts(p, e, "- ") ? B_ITEM : B_PARA;
            const char *t = b.kind == B_ITEM ? p + 2 : p;
            add(&buf, &len, &cap, t, (size_t)(e - t));
            while (*e && e[1]) {
                const char *q = e + 1, *qe = line_end(q);
                if (blank(q, qe) || starts(q, qe, "- ") || starts(q, qe, "#") || *q == '|' || starts(q, qe, "```") ||
                    (b.kind == B_PARA && starts(q, qe, "    ")))
                    break;
                while (*q == ' ')
                    q++;
                add(&buf, &len, &cap, " ", 1);
                add(&buf, &len, &cap, q, (size_t)(qe - q));
                e = qe;
            }
        }
        b.text = buf;
        b.len = len;
        fn(f, &b, ctx);
        p = *e ? e + 1 : e;
    }
    free(buf);
    free(head);
}

/* === Inline text: `code`, **bold**, \| === */

/* The visible text of s[0..n) into out (marks: for each byte, whether it is code or bold), the
 * markers dropped, or kept (keep_code: backticks stay, for plain text). */
static size_t inline_plain(const char *s, size_t n, char *out, bool *marks, bool keep_code)
{
    size_t o = 0;
    bool code = false, bold = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '`') {
            code = !code;
            if (!keep_code)
                continue;
        } else if (!code && s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
            bold = !bold;
            i++;
            continue;
        } else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '|') {
            continue;
        }
        out[o] = s[i];
        marks[o++] = (code && s[i] != '`') || bold;
    }
    return o;
}

/* Cell i (> 0) of row b as the text shown under the row's first cell: "header: cell" when the
 * table has more than two columns, else the cell alone. Caller frees. */
static char *row_cell(const block *b, size_t i, const char *cell)
{
    const char *h = b->head;
    for (size_t k = 0; k < i && k < b->n_head; k++)
        h += strlen(h) + 1;
    bool named = b->n_head > 2 && i < b->n_head && *h;
    size_t n = (named ? strlen(h) + 2 : 0) + strlen(cell) + 1;
    char *s = malloc(n);
    if (!s) {
        fputs("hyrax help: out of memory\n", stderr);
        exit(1);
    }
    snprintf(s, n, "%s%s%s", named ? h : "", named ? ": " : "", cell);
    return s;
}

/* === Text on a terminal === */

typedef struct {
    int width;   /* columns to wrap at */
} text_ctx;

static int cols(const char *s, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* s[0..n) (Markdown inline text) wrapped to width, the first line at column `first` (already
 * written), the others after `indent` spaces; code and bold in bold when colour is on. */
static void put_wrapped(FILE *f, const char *s, size_t n, int first, int indent, int width)
{
    char *t = malloc(n + 1);
    bool *m = malloc((n + 1) * sizeof *m);
    if (!t || !m) {
        fputs("hyrax help: out of memory\n", stderr);
        exit(1);
    }
    bool styled = false, at_start = true;
    size_t len = inline_plain(s, n, t, m, !term_colored());
    int col = first;
    for (size_t i = 0; i < len;) {
        size_t w = i;
        while (w < len && t[w] != ' ')
            w++;
        int wc = cols(t + i, w - i);
        if (!at_start && col + 1 + wc > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (!at_start) {
            fputc(' ', f);
            col++;
        }
        for (size_t k = i; k < w; k++) {
            if (m[k] != styled) {
                term_style(f, m[k] ? "1" : NULL);
                styled = m[k];
            }
            fputc(t[k], f);
        }
        col += wc;
        at_start = false;
        for (i = w; i < len && t[i] == ' '; i++)
            ;
    }
    if (styled)
        term_style(f, NULL);
    fputc('\n', f);
    free(t);
    free(m);
}

static void text_block(FILE *f, const block *b, void *vctx)
{
    const text_ctx *c = vctx;
    switch (b->kind) {
    case B_H2:
    case B_H3:
        fputc('\n', f);
        term_style(f, "1");
        if (b->kind == B_H2)
            for (size_t i = 0; i < b->len; i++)
                fputc(b->text[i] >= 'a' && b->text[i] <= 'z' ? b->text[i] - 'a' + 'A' : b->text[i], f);
        else
            fprintf(f, "  %s", b->text);
        term_style(f, NULL);
        fputc('\n', f);
        break;
    case B_PARA:
        fputs("\n    ", f);
        put_wrapped(f, b->text, b->len, 4, 4, c->width);
        break;
    case B_ITEM:
        fputs("\n    - ", f);
        put_wrapped(f, b->text, b->len, 6, 6, c->width);
        break;
    case B_CODE:
        fputc('\n', f);
        for (const char *p = b->text; *p;) {
            const char *e = line_end(p);
            fprintf(f, "%s%.*s\n", e > p ? "        " : "", (int)(e - p), p);
            p = *e ? e + 1 : e;
        }
        break;
    case B_ROW: {   /* the first cell as a tag, the others under it: "header: cell" */
        const char *cell = b->text;
        fputs("\n    ", f);
        put_wrapped(f, cell, strlen(cell), 4, 8, c->width);
        for (size_t i = 1; i < b->n_cells; i++) {
            cell += strlen(cell) + 1;
            if (!*cell)
                continue;
            char *line = row_cell(b, i, cell);
            fputs("        ", f);
            put_wrapped(f, line, strlen(line), 8, 8, c->width);
            free(line);
        }
        break;
    }
    }
}

/* t as text on stdout's terminal (or plain, piped), wrapped to the terminal's width (at most 100). */
void help_put_text(FILE *f, const help_topic *t)
{
    int w = term_width();
    text_ctx c = {.width = w <= 0 || w > 100 ? 100 : w};
    term_style(f, "1");
    fprintf(f, "hyrax help %s", t->name);
    term_style(f, NULL);
    fprintf(f, ": %s\n", t->summary);
    walk(t->text, text_block, f, &c);
}

/* === Man pages === */

/* The character at s[*i] (of n bytes) as roff: \ and - escaped, non-ASCII as \[uXXXX] (so groff
 * needs no preconv); *i moves past it. */
static void roff_char(FILE *f, const char *s, size_t n, size_t *i)
{
    unsigned char ch = (unsigned char)s[*i];
    if (ch == '\\')
        fputs("\\e", f);
    else if (ch == '-')
        fputs("\\-", f);
    else if (ch == '\n')
        fputs("\n\\&", f);
    else if (ch < 0x80)
        fputc(ch, f);
    else {
        int extra = ch >= 0xF0 ? 3 : ch >= 0xE0 ? 2 : ch >= 0xC0 ? 1 : 0;
        unsigned long cp = ch & (0x3F >> extra);
        for (int k = 0; k < extra && *i + 1 < n; k++)
            cp = cp << 6 | ((unsigned char)s[++*i] & 0x3F);
        if (extra)
            fprintf(f, "\\[u%04lX]", cp);
        else
            fputc('?', f);
    }
    (*i)++;
}

/* s[0..n) (Markdown inline text) as roff text: `code` and **bold** in bold, every line starting
 * with \& so that none is taken for a request. */
static void roff_text(FILE *f, const char *s, size_t n)
{
    bool code = false, bold = false;
    fputs("\\&", f);
    for (size_t i = 0; i < n;) {
        if (s[i] == '`') {
            code = !code;
            fputs(code || bold ? "\\fB" : "\\fR", f);
            i++;
        } else if (!code && s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
            bold = !bold;
            fputs(code || bold ? "\\fB" : "\\fR", f);
            i += 2;
        } else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '|') {
            fputc('|', f);
            i += 2;
        } else {
            roff_char(f, s, n, &i);
        }
    }
    if (code || bold)
        fputs("\\fR", f);
    fputc('\n', f);
}

static void man_block(FILE *f, const block *b, void *ctx)
{
    (void)ctx;
    switch (b->kind) {
    case B_H2:
        fputs(".SH ", f);
        for (size_t i = 0; i < b->len; i++)
            fputc(b->text[i] >= 'a' && b->text[i] <= 'z' ? b->text[i] - 'a' + 'A' : b->text[i], f);
        fputc('\n', f);
        break;
    case B_H3:
        fputs(".SS ", f);
        roff_text(f, b->text, b->len);
        break;
    case B_PARA:
        fputs(".PP\n", f);
        roff_text(f, b->text, b->len);
        break;
    case B_ITEM:
        fputs(".IP \\(bu 2\n", f);
        roff_text(f, b->text, b->len);
        break;
    case B_CODE: {
        size_t n = b->len;
        while (n && b->text[n - 1] == '\n')
            n--;
        fputs(".PP\n.RS 4\n.nf\n\\&", f);
        for (size_t i = 0; i < n;)   /* verbatim: no inline markup */
            roff_char(f, b->text, n, &i);
        fputs("\n.fi\n.RE\n", f);
        break;
    }
    case B_ROW: {
        const char *cell = b->text;
        fputs(".TP\n", f);
        roff_text(f, cell, strlen(cell));
        for (size_t i = 1, first = 1; i < b->n_cells; i++) {
            cell += strlen(cell) + 1;
            if (!*cell)
                continue;
            char *line = row_cell(b, i, cell);
            if (!first)
                fputs(".br\n", f);
            roff_text(f, line, strlen(line));
            free(line);
            first = 0;
        }
        break;
    }
    }
}

/* s as roff lines in no-fill mode (a command's help as `hyrax CMD --help` prints it). */
static void roff_verbatim(FILE *f, const char *s, size_t n)
{
    while (n && s[n - 1] == '\n')
        n--;
    fputs(".nf\n\\&", f);
    for (size_t i = 0; i < n;)
        roff_char(f, s, n, &i);
    fputs("\n.fi\n", f);
}

/* A page's name ("hyrax-search") in roff, upper case for .TH. */
static void roff_page(FILE *f, const char *page, bool upper)
{
    for (const char *p = page; *p; p++)
        if (*p == '-')
            fputs("\\-", f);
        else
            fputc(upper && *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
}

/* What cli_cmd_help prints for c, as roff. */
static void roff_cmd_help(FILE *f, const cli_cmd *c)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m) {
        fputs("hyrax help: out of memory\n", stderr);
        exit(1);
    }
    cli_cmd_help(c, m);
    fclose(m);
    roff_verbatim(f, buf, n);
    free(buf);
}

/* The man page of t: hyrax(1) for the main topic, with every command's synopsis and options (from
 * the option table); else hyrax-NAME(1), led by the command's synopsis and options when a command
 * has the topic's name. */
void help_put_man(FILE *f, const help_topic *t)
{
    bool main_page = !strcmp(t->page, "hyrax");
    fputs(".TH ", f);
    roff_page(f, t->page, true);
    fprintf(f, " 1 \"\" \"hyrax %s\" \"hyrax manual\"\n.SH NAME\n", hx_version());
    char name[320];
    snprintf(name, sizeof name, "%s - %s", t->page, t->summary);
    roff_text(f, name, strlen(name));
    size_t nc;
    const cli_cmd *cmds = cli_commands(&nc), *c = cli_command(t->name);
    if (main_page) {
        fputs(".SH SYNOPSIS\n.B hyrax\n.I COMMAND\n[\\fIOPTIONS\\fR] [\\fIOPERANDS\\fR]\n.SH COMMANDS\n", f);
        for (size_t i = 0; i < nc; i++) {
            fputs(".PP\n", f);
            roff_cmd_help(f, &cmds[i]);
        }
    } else if (c) {
        fputs(".SH SYNOPSIS\n", f);
        roff_cmd_help(f, c);
    }
    walk(t->text, man_block, f, NULL);
    fputs(".SH SEE ALSO\n", f);
    bool first = true;
    for (size_t i = 0; i < help_n_topics; i++)
        if (&help_topics[i] != t) {
            fputs(first ? "\\fB" : ",\n\\fB", f);
            roff_page(f, help_topics[i].page, false);
            fputs("\\fR(1)", f);
            first = false;
        }
    fputc('\n', f);
}
