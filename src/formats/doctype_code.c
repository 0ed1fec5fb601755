/* doctype_code.c: the code row of the table of document types: source files read by their
 * definitions (code.h finds them). Each top-level definition (function, class, struct, impl, ...)
 * and each member of a class-like one is a unit of its own (hxi_x_unit) with its doc comment,
 * `symbol` and `kind` metadata and the enclosing names as its heading path (`upload.py >
 * UploadVerifier > verify`); code between definitions is a unit under the file name. Blank lines
 * split a unit into blocks, so a long definition is cut at them, then at lines. The document gets
 * `lang`, and the file name (or a Python module's docstring) as its title. A language without a
 * row in code_lang.c is cut at blank lines only. The builder is doctype.c's. */
#include "doctype.h"
#include "alloc.h"
#include "code.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    hxi_extract *x;
    const char *text;
    const hxi_code_defs *defs;
    const int32_t *own;           /* per line (1-based): the innermost definition holding it, -1: none */
    const uint8_t *marks;         /* per line: HXI_LINE_* (code.h) */
    const uint32_t *starts;       /* per line: its first byte; starts[n_lines + 1] = text length + 1 */
    uint32_t n_lines, len;
    const char *base;             /* the file's name, the first heading */
} emitter;

static bool blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\f' && s[i] != '\v')
            return false;
    return true;
}

static size_t line_len(const emitter *e, uint32_t line)
{
    return e->starts[line + 1] - 1 - e->starts[line];
}

/* Whether lines from `line` on that belong to `owner` hold only closing punctuation or comments
 * (a class's last '}' after its last method, a comment between two methods): they stay with the
 * unit before them. */
static bool closing_only(const emitter *e, uint32_t line, int32_t owner)
{
    for (; line <= e->n_lines; line++) {
        const char *s = e->text + e->starts[line];
        size_t n = line_len(e, line);
        if (blank_line(s, n))
            continue;
        if (e->own[line] != owner)
            return true;
        if (e->marks[line] == HXI_LINE_COMMENT)
            continue;
        for (size_t i = 0; i < n; i++)
            if (!strchr(" \t\r});]", s[i]) || !s[i])
                return false;
    }
    return true;
}

/* The heading path of definition d: the file, its enclosing definitions, d (and the type a method
 * is defined on outside its body). */
static int open_path(emitter *e, int32_t d, int level, hx_error *err)
{
    const hxi_code_def *v = e->defs->v;
    if (d < 0)
        return hxi_x_section(e->x, level, e->base, strlen(e->base), err);
    int rc = open_path(e, v[d].parent, level, err);
    int at = level + v[d].depth;
    if (!rc && v[d].owner_len)
        rc = hxi_x_section(e->x, at++, e->text + v[d].owner, v[d].owner_len, err);
    return rc ? rc : hxi_x_section(e->x, at, e->text + v[d].name, v[d].name_len, err);
}

static int start_unit(emitter *e, int32_t d, bool first, hx_error *err)
{
    int rc = first && d < 0 ? 0 : hxi_x_unit(e->x, err);
    if (!rc && d >= 0) {
        const hxi_code_def *v = &e->defs->v[d];
        const char *kind = hxi_def_kind_name(v->kind);
        rc = hxi_x_unit_meta(e->x, "symbol", e->text + v->name, v->name_len, err);
        if (!rc)
            rc = hxi_x_unit_meta(e->x, "kind", kind, strlen(kind), err);
    }
    return rc ? rc : open_path(e, d, 1, err);
}

static int emit(emitter *e, hx_error *err)
{
    int32_t cur = -2;
    bool in_block = false;
    int rc = 0;
    for (uint32_t line = 1; line <= e->n_lines && !rc; line++) {
        const char *s = e->text + e->starts[line];
        size_t n = line_len(e, line);
        if (blank_line(s, n)) {
            if (in_block)
                rc = hxi_x_block(e->x, HX_BLOCK_VERBATIM, err);
            in_block = false;
            continue;
        }
        int32_t o = e->own[line];
        if (o != cur && !(cur != -2 && closing_only(e, line, o))) {
            if ((rc = start_unit(e, o, cur == -2, err)))
                break;
            cur = o;
            in_block = false;
        }
        if (!in_block && (rc = hxi_x_block(e->x, HX_BLOCK_VERBATIM, err)))
            break;
        in_block = true;
        hxi_x_source(e->x, line, line);
        rc = hxi_x_text(e->x, s, n + (e->starts[line + 1] - 1 < e->len), err);   /* with its newline */
    }
    return rc;
}

/* Where a definition's unit starts: its header, or the comment lines right above it. */
static uint32_t doc_start(const hxi_code_def *d, const uint8_t *marks)
{
    uint32_t l = d->head_line;
    while (l > 1 && marks[l - 1] == HXI_LINE_COMMENT)
        l--;
    return l;
}

/* The title from a module docstring: its first non-blank line. */
static int doc_title(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    while (n) {
        const char *nl = memchr(s, '\n', n);
        size_t k = nl ? (size_t)(nl - s) : n;
        if (!blank_line(s, k))
            return hxi_x_title(x, s, k, err);
        s += k + (nl != NULL);
        n -= k + (nl != NULL);
    }
    return 0;
}

static int extract_code(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    char *text;
    size_t n;
    int rc = hxi_doc_decode(raw, len, &text, &n, &x->encoding, err);
    if (rc)
        return rc;
    if (n >= UINT32_MAX - 2) {
        free(text);
        return hx_error_set(err, HX_ERANGE, -1, "source file too large to read by definitions");
    }
    const hxi_code_lang *l = hxi_code_lang_of(x->name, text, n);
    uint32_t n_lines = 1;
    for (size_t i = 0; i < n; i++)
        n_lines += text[i] == '\n';
    if (n && text[n - 1] == '\n')
        n_lines--;
    uint8_t *marks = hx_calloc((size_t)n_lines + 2, 1);
    int32_t *own = hx_malloc(sizeof *own * ((size_t)n_lines + 2));
    uint32_t *starts = hx_malloc(sizeof *starts * ((size_t)n_lines + 2));
    hxi_code_defs defs = {0};
    if (!marks || !own || !starts) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory reading definitions");
        goto out;
    }
    uint32_t k = 1;
    starts[k++] = 0;
    for (size_t i = 0; i < n && k <= n_lines; i++)
        if (text[i] == '\n')
            starts[k++] = (uint32_t)i + 1;
    starts[n_lines + 1] = (uint32_t)n + !(n && text[n - 1] == '\n');   /* one past the last line's newline */
    if ((rc = hxi_code_definitions(l, text, n, marks, (size_t)n_lines + 2, &defs, err)))
        goto out;
    for (uint32_t i = 0; i <= n_lines + 1; i++)
        own[i] = -1;
    for (size_t d = 0; d < defs.n; d++) {
        uint32_t last = defs.v[d].last_line < n_lines ? defs.v[d].last_line : n_lines;
        for (uint32_t i = doc_start(&defs.v[d], marks); i <= last; i++)
            own[i] = (int32_t)d;
    }
    const char *slash = x->name ? strrchr(x->name, '/') : NULL;
    emitter e = {x, text, &defs, own, marks, starts, n_lines, (uint32_t)n,
                 slash ? slash + 1 : x->name && *x->name ? x->name : l ? l->name : "code"};
    rc = hxi_x_section(x, 1, e.base, strlen(e.base), err);
    if (!rc && defs.doc_len)
        rc = doc_title(x, text + defs.doc, defs.doc_len, err);
    if (!rc && l)
        rc = hxi_x_meta(x, "lang", l->name, strlen(l->name), err);
    if (!rc && n)
        rc = emit(&e, err);
    if (!rc)
        rc = hxi_x_finish(x, err);
out:
    free(defs.v);
    free(marks);
    free(own);
    free(starts);
    free(text);
    return rc;
}

/* Content detection: a `#!` line naming an interpreter the table knows. */
static bool sniff_code(const uint8_t *raw, size_t len)
{
    return hxi_code_shebang(raw, len);
}

static const char *const code_exts[] = {
    "c", "h", "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "py", "pyi", "pyw", "go", "rs",
    "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "java", "sh", "bash", "zsh", "ksh",
    "kt", "scala", "rb", "php", "cs", "swift", "pl", "lua", "sql", "proto", "toml", "ini", "cfg", "mk", "cmake",
    "r", "m", "ex", "exs", "erl", "hs", "ml", "vim", NULL,
};
static const char *const code_names[] = {"Makefile", "Dockerfile", NULL};

const hxi_doctype hxi_doctype_code = {
    .name = "code", .exts = code_exts, .names = code_names, .sniff = sniff_code, .extract = extract_code,
    .chunk = HX_CHUNK_BLOCKS,
};
