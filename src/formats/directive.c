/* directive.c: the "directive" row: Kiwi directives (Kiwi's DIRECTIVE_AUTHORING.md): a Markdown
 * file holding an XML <directive> block in a ```xml code fence, or an XML file whose root is
 * <directive>. Owns finding the blocks, reading one with the project's XML reader (xml.h) into
 * searchable text (name, description, category, inputs, step names and descriptions, outputs,
 * then the Markdown around it) and metadata, and the gate rule that refuses a directive whose XML
 * is not well-formed, naming its line and column. Which files are items of which type is kiwi.c's;
 * README "Kiwi items" is the spec. */
#include "alloc.h"
#include "doctype.h"
#include "kiwi.h"
#include "unicode.h"
#include "xml.h"
#include "yaml.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROLOG_MAX 64    /* declarations and comments passed over before a <directive> root */
#define VERB_MAX 40      /* bytes of a relationship's verb (rel_<verb>) */

/* === Finding the blocks === */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool has(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && !memcmp(s, lit, k);
}

/* Whether s[0..n) opens, after white space, XML declarations, processing instructions and
 * comments, with a <directive> start tag. */
static bool opens_directive(const char *s, size_t n)
{
    size_t i = has(s, n, "\xEF\xBB\xBF") ? 3 : 0;
    for (int k = 0; k < PROLOG_MAX; k++) {
        while (i < n && is_space(s[i]))
            i++;
        const char *close = has(s + i, n - i, "<?")     ? memmem(s + i + 2, n - i - 2, "?>", 2)
                            : has(s + i, n - i, "<!--") ? memmem(s + i + 4, n - i - 4, "-->", 3)
                                                        : NULL;
        if (!close)
            break;
        i = (size_t)(close - s) + (s[i + 1] == '?' ? 2 : 3);
    }
    return has(s + i, n - i, "<directive") &&
           (n - i == 10 || is_space(s[i + 10]) || s[i + 10] == '>' || s[i + 10] == '/');
}

/* A fence line (CommonMark: up to three spaces, then three or more ` or ~) at line[0..n): its
 * character and length in *c, *len, and whether its info string is "xml". */
static bool fence_line(const char *line, size_t n, char *c, size_t *len, bool *xml)
{
    size_t i = 0;
    while (i < 3 && i < n && line[i] == ' ')
        i++;
    if (i >= n || (line[i] != '`' && line[i] != '~'))
        return false;
    size_t k = i;
    while (k < n && line[k] == line[i])
        k++;
    if (k - i < 3)
        return false;
    const char *info = line + k;
    size_t il = n - k;
    while (il && is_space(*info))
        info++, il--;
    while (il && is_space(info[il - 1]))
        il--;
    if (line[i] == '`' && memchr(info, '`', il))
        return false;
    *c = line[i];
    *len = k - i;
    *xml = il >= 3 && !strncasecmp(info, "xml", 3) && (il == 3 || is_space(info[3]));
    return true;
}

/* A line [*at, end) of s[0..n): its end (without the newline) and where the next one starts. */
static size_t line_end(const char *s, size_t n, size_t at, size_t *next)
{
    const char *nl = memchr(s + at, '\n', n - at);
    size_t e = nl ? (size_t)(nl - s) : n;
    *next = nl ? e + 1 : n;
    return e;
}

/* A fenced code block of Markdown. */
typedef struct fence {
    size_t from, to;           /* the whole fence, its lines included: [from, to) */
    size_t at, len;            /* its content */
    bool xml;                  /* info string "xml" */
} fence;

/* The fence that opens at line [at, e) of s[0..n), if that line opens one; an unclosed fence runs to
 * the end of the text (CommonMark). */
static bool fence_at(const char *s, size_t n, size_t at, size_t e, size_t next, fence *f)
{
    char c, c2;
    size_t len, len2;
    bool xml, info;
    if (!fence_line(s + at, e - at, &c, &len, &xml))
        return false;
    *f = (fence){at, n, next, n - next, xml};
    for (size_t p = next, q; p < n; p = q) {
        size_t le = line_end(s, n, p, &q);
        if (fence_line(s + p, le - p, &c2, &len2, &info) && c2 == c && len2 >= len) {
            size_t k = p;   /* a closing fence has no info string */
            while (k < le && (s[k] == ' ' || s[k] == c))
                k++;
            while (k < le && is_space(s[k]))
                k++;
            if (k == le) {
                f->len = p - next;
                f->to = q;
                break;
            }
        }
    }
    return true;
}

/* Where Markdown starts after its front matter (0 when it has none). */
static size_t body_start(const char *s, size_t n)
{
    size_t at, len, body;
    return hxi_yaml_front_matter(s, n, &at, &len, &body) == 1 ? body : 0;
}

/* The next directive block of s[0..n) from *pos (start it at 0): the whole text when it is XML
 * whose root is <directive>, else each ```xml fence of the Markdown (after its front matter) whose
 * content is. Its XML in b->at, b->len. */
static bool next_block(const char *s, size_t n, size_t *pos, fence *b)
{
    if (*pos == 0 && opens_directive(s, n)) {
        *b = (fence){0, n, 0, n, true};
        *pos = n;
        return true;
    }
    if (*pos == 0)
        *pos = body_start(s, n);
    for (size_t p = *pos, q; p < n; p = q) {
        size_t e = line_end(s, n, p, &q);
        if (!fence_at(s, n, p, e, q, b))
            continue;
        q = b->to;
        if (b->xml && opens_directive(s + b->at, b->len)) {
            *pos = q;
            return true;
        }
    }
    *pos = n;
    return false;
}

/* === Reading a directive === */

typedef enum {
    F_DESCRIPTION, F_CATEGORY, F_AUTHOR, F_REL, F_STEP, F_INPUT, F_OUTPUT, F_PERMISSION, N_KINDS
} field_kind;

/* A field of the directive: label and text are ranges of the reader's buffer. */
typedef struct field {
    field_kind kind;
    size_t label, label_len;   /* step or input name, output or relationship tag, permission */
    size_t text, text_len;     /* its words (description, input or output text) */
    uint32_t line;             /* where its element starts */
} field;

/* Where an element stands, so a start tag knows its parent. */
typedef enum {
    E_OTHER, E_ROOT, E_METADATA, E_PERMISSIONS, E_RELATIONSHIPS, E_PROCESS, E_STEP, E_INPUTS, E_OUTPUTS
} elem;

typedef struct reader {
    const char *xml;           /* the block; borrowed */
    uint32_t line0;            /* the line of xml[0] in the file */
    size_t counted;            /* xml[0..counted) holds line - line0 newlines */
    uint32_t line;
    elem stack[HX_XML_MAX_DEPTH + 1];
    int depth;
    int capture;               /* the depth of the element whose text goes to f[into]; 0: none */
    size_t into;
    int step;                  /* fields index + 1 of the open step; 0: none */
    char *buf;                 /* owned: labels and texts, decoded */
    size_t len, cap;
    field *f;                  /* owned */
    size_t n, cap_f;
    size_t name, name_len, version, version_len;   /* the root's attributes in buf (len 0: none) */
    bool oom;
} reader;

static uint32_t line_of(reader *r, const char *p)
{
    for (size_t at = (size_t)(p - r->xml); r->counted < at; r->counted++)
        r->line += r->xml[r->counted] == '\n';
    return r->line;
}

/* Appends s[0..n), decoded unless raw (CDATA); the bytes appended. */
static size_t put(reader *r, const char *s, size_t n, bool raw)
{
    if (hx_grow((void **)&r->buf, &r->cap, r->len + n + 1, 1, NULL)) {
        r->oom = true;
        return 0;
    }
    size_t k = raw ? (memcpy(r->buf + r->len, s, n), n) : hxi_xml_decode(s, n, r->buf + r->len);
    r->len += k;
    return k;
}

static const hxi_xml_attr *attr(const hxi_xml_attr *a, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].name_len == strlen(name) && !memcmp(a[i].name, name, a[i].name_len))
            return &a[i];
    return NULL;
}

/* Appends attribute `name` decoded (and a separator before it when buf already has label text). */
static void put_attr(reader *r, const hxi_xml_attr *a, size_t n, const char *name, const char *sep, size_t *len)
{
    const hxi_xml_attr *v = attr(a, n, name);
    if (!v || !v->value_len)
        return;
    if (*len)
        *len += put(r, sep, strlen(sep), true);
    *len += put(r, v->value, v->value_len, false);
}

static field *add_field(reader *r, field_kind kind, const char *at)
{
    if (hx_grow((void **)&r->f, &r->cap_f, r->n + 1, sizeof *r->f, NULL)) {
        r->oom = true;
        return NULL;
    }
    field *f = &r->f[r->n++];
    *f = (field){kind, r->len, 0, r->len, 0, line_of(r, at)};
    return f;
}

static bool named(const char *s, size_t n, const char *lit)
{
    return n == strlen(lit) && !memcmp(s, lit, n);
}

static int on_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t na)
{
    reader *r = ctx;
    elem parent = r->depth ? r->stack[r->depth - 1] : E_OTHER, me = E_OTHER;
    field *f = NULL;
    if (!r->depth) {
        me = E_ROOT;
        put_attr(r, a, na, "name", "", &r->name_len);
        r->name = r->len - r->name_len;
        put_attr(r, a, na, "version", "", &r->version_len);
        r->version = r->len - r->version_len;
    } else if (r->capture) {
        /* inside a field's element: its text only */
    } else if (parent == E_ROOT) {
        me = named(name, len, "metadata") ? E_METADATA : named(name, len, "process") ? E_PROCESS
           : named(name, len, "inputs")   ? E_INPUTS   : named(name, len, "outputs") ? E_OUTPUTS : E_OTHER;
    } else if (parent == E_METADATA) {
        me = named(name, len, "permissions")     ? E_PERMISSIONS
           : named(name, len, "relationships") ? E_RELATIONSHIPS
                                               : E_OTHER;
        int k = named(name, len, "description") ? F_DESCRIPTION : named(name, len, "category") ? F_CATEGORY
              : named(name, len, "author")      ? F_AUTHOR      : -1;
        if (k >= 0)
            f = add_field(r, (field_kind)k, name);
    } else if (parent == E_PERMISSIONS) {   /* <read resource="filesystem" path="**" />: "read filesystem **" */
        if ((f = add_field(r, F_PERMISSION, name))) {
            f->label_len = put(r, name, len, true);
            for (size_t i = 0; i < na; i++) {
                f->label_len += put(r, " ", 1, true);
                f->label_len += put(r, a[i].value, a[i].value_len, false);
            }
            f->text = r->len;
            f = NULL;   /* no text */
        }
    } else if (parent == E_RELATIONSHIPS) {
        if ((f = add_field(r, F_REL, name)))
            f->label_len = put(r, name, len, true);
    } else if (parent == E_PROCESS || parent == E_STEP) {
        if (named(name, len, "step")) {
            me = E_STEP;
            if ((f = add_field(r, F_STEP, name))) {
                put_attr(r, a, na, "name", "", &f->label_len);
                f->text = r->len;
                r->step = (int)r->n;
            }
            f = NULL;   /* its text is its <description>'s */
        } else if (parent == E_STEP && r->step && named(name, len, "description")) {
            r->f[r->step - 1].text = r->len;
            r->f[r->step - 1].text_len = 0;
            r->into = (size_t)r->step - 1;
            r->capture = r->depth + 1;
        }
    } else if (parent == E_INPUTS && named(name, len, "input")) {
        if ((f = add_field(r, F_INPUT, name))) {   /* "name (type, required)" */
            const hxi_xml_attr *req = attr(a, na, "required");
            put_attr(r, a, na, "name", "", &f->label_len);
            size_t bare = f->label_len;
            put_attr(r, a, na, "type", " (", &f->label_len);
            if (req && named(req->value, req->value_len, "true"))
                f->label_len += put(r, f->label_len > bare ? ", required" : " (required", 10, true);
            if (f->label_len > bare)
                f->label_len += put(r, ")", 1, true);
        }
    } else if (parent == E_OUTPUTS) {
        if ((f = add_field(r, F_OUTPUT, name)))
            f->label_len = put(r, name, len, true);
    }
    if (f) {
        f->text = r->len;
        r->into = r->n - 1;
        r->capture = r->depth + 1;
    }
    r->stack[r->depth++] = me;
    return r->oom ? HX_ENOMEM : 0;
}

static int on_end(void *ctx, const char *name, size_t len)
{
    reader *r = ctx;
    (void)name, (void)len;
    if (r->capture == r->depth)
        r->capture = 0;
    if (r->stack[--r->depth] == E_STEP)
        r->step = 0;
    return 0;
}

static int on_text(void *ctx, const char *s, size_t len, int raw)
{
    reader *r = ctx;
    if (!r->capture)
        return 0;
    r->f[r->into].text_len += put(r, s, len, raw != 0);
    return r->oom ? HX_ENOMEM : 0;
}

/* === Extraction === */

static uint32_t newlines(const char *s, size_t from, size_t to)
{
    uint32_t k = 0;
    for (size_t i = from; i < to; i++)
        k += s[i] == '\n';
    return k;
}

/* "Label name: words" as a prose block from the directive's line. */
static int put_field(hxi_extract *x, const reader *r, const char *label, const field *f, hx_error *err)
{
    hxi_x_source(x, f->line, f->line);
    int rc = hxi_x_block(x, HX_BLOCK_PROSE, err);
    if (!rc)
        rc = hxi_x_words(x, label, strlen(label), err);
    if (!rc && f->label_len && !(rc = hxi_x_words(x, " ", 1, err)))
        rc = hxi_x_words(x, r->buf + f->label, f->label_len, err);
    if (!rc && f->text_len && !(rc = hxi_x_words(x, ": ", 2, err)))
        rc = hxi_x_words(x, r->buf + f->text, f->text_len, err);
    return rc;
}

/* A relationship's metadata key: rel_ and its tag lower-cased, '-', '.' and ':' as '_'; false when
 * the tag has other characters. */
static bool rel_key(const char *tag, size_t n, char key[4 + VERB_MAX + 1])
{
    if (!n || n > VERB_MAX)
        return false;
    memcpy(key, "rel_", 4);
    for (size_t i = 0; i < n; i++) {
        char c = tag[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        else if (c == '-' || c == '.' || c == ':')
            c = '_';
        else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
        key[4 + i] = c;
    }
    key[4 + n] = 0;
    return true;
}

static int put_meta(hxi_extract *x, const reader *r, const field *f, hx_error *err)
{
    char key[4 + VERB_MAX + 1];
    switch (f->kind) {
    case F_DESCRIPTION:
        return hxi_x_meta(x, "description", r->buf + f->text, f->text_len, err);
    case F_CATEGORY:
        return hxi_x_meta(x, "category", r->buf + f->text, f->text_len, err);
    case F_AUTHOR:
        return hxi_x_meta(x, "author", r->buf + f->text, f->text_len, err);
    case F_PERMISSION:
        return hxi_x_meta(x, "permissions", r->buf + f->label, f->label_len, err);
    case F_REL:
        if (!rel_key(r->buf + f->label, f->label_len, key))
            return 0;
        return hxi_x_meta(x, key, r->buf + f->text, f->text_len, err);
    default:
        return 0;
    }
}

/* Markdown s[from..n) but [skip_from, skip_to) into x: ATX headings as headings, fences verbatim,
 * paragraphs as prose, each with its lines. */
static int put_markdown(hxi_extract *x, const char *s, size_t n, size_t from, size_t skip_from, size_t skip_to,
                        hx_error *err)
{
    uint32_t line = 1 + newlines(s, 0, from);
    int rc = hxi_x_block(x, HX_BLOCK_PROSE, err);
    for (size_t p = from, q, next; p < n && !rc; line += newlines(s, p, next), p = next) {
        size_t e = line_end(s, n, p, &q), h = 0;
        fence f;
        next = q;
        while (h < e - p && h < 7 && s[p + h] == '#')
            h++;
        if (p == skip_from) {
            next = skip_to;
            rc = hxi_x_block(x, HX_BLOCK_PROSE, err);
        } else if (fence_at(s, n, p, e, q, &f)) {
            next = f.to;
            hxi_x_source(x, line, line + newlines(s, f.from, f.to) - (s[f.to - 1] == '\n'));
            rc = hxi_x_block(x, HX_BLOCK_VERBATIM, err);
            if (!rc && !(rc = hxi_x_text(x, s + f.from, f.to - f.from, err)))
                rc = hxi_x_block(x, HX_BLOCK_PROSE, err);
        } else if (h >= 1 && h <= 6 && (p + h == e || s[p + h] == ' ' || s[p + h] == '\t')) {
            size_t end = e;
            while (end > p + h && (s[end - 1] == '#' || is_space(s[end - 1])))
                end--;
            hxi_x_source(x, line, line);
            rc = hxi_x_heading(x, (int)h, s + p + h, end - p - h, err);
        } else {
            size_t i = p;
            while (i < e && is_space(s[i]))
                i++;
            hxi_x_source(x, line, line);
            rc = i == e ? hxi_x_block(x, HX_BLOCK_PROSE, err) : hxi_x_text(x, s + p, q - p, err);
        }
    }
    return rc;
}

typedef struct {
    hxi_extract *x;
    size_t given;              /* x->meta[0..given): the directive's own pairs */
    hx_error *err;
} fm_sink;

/* A front matter pair whose key the directive did not give already. */
static int fm_pair(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted)
{
    fm_sink *f = ctx;
    char k[HX_YAML_KEY_MAX + 1];
    (void)quoted;
    if (klen > HX_YAML_KEY_MAX)
        return 0;
    memcpy(k, key, klen);
    k[klen] = 0;
    for (size_t i = 0; i < f->given; i++)
        if (!strcmp(f->x->meta[i].key, k))
            return 0;
    return hxi_x_meta(f->x, k, val, vlen, f->err);
}

static int put_front_matter(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    size_t at, len, body;
    fm_sink f = {x, x->n_meta, err};
    return hxi_yaml_front_matter(s, n, &at, &len, &body) == 1 ? hxi_yaml_pairs(s + at, len, fm_pair, &f) : 0;
}

/* The fields of block b of s[0..n) (well-formed), then the Markdown around it, into x. */
static int read_directive(hxi_extract *x, const char *s, size_t n, const fence *b, hx_error *err)
{
    reader r = {.xml = s + b->at, .line0 = 1 + newlines(s, 0, b->at)};
    r.line = r.line0;
    hxi_xml_handler h = {&r, on_start, on_end, on_text};
    hx_error perr = {0};
    int rc = hxi_xml_parse(s + b->at, b->len, &h, &perr);
    if (rc || r.oom) {   /* the caller checked the block: only memory can fail */
        rc = r.oom ? hx_error_set(err, HX_ENOMEM, -1, "out of memory reading a directive")
                   : hx_error_set(err, rc, perr.offset, "%s", perr.message);
        goto out;
    }
    field root = {F_STEP, 0, 0, r.name, r.name_len, r.line0};
    rc = hxi_x_title(x, r.buf ? r.buf + r.name : "", r.name_len, err);
    if (!rc)
        rc = put_field(x, &r, "Directive", &root, err);
    if (!rc)
        rc = hxi_x_meta(x, "item_type", "directive", 9, err);
    if (!rc)
        rc = hxi_x_meta(x, "item_id", r.buf ? r.buf + r.name : "", r.name_len, err);
    if (!rc)
        rc = hxi_x_meta(x, "name", r.buf ? r.buf + r.name : "", r.name_len, err);
    if (!rc)
        rc = hxi_x_meta(x, "version", r.buf ? r.buf + r.version : "", r.version_len, err);
    static const char *const labels[N_KINDS] = {   /* the kinds written as text */
        [F_DESCRIPTION] = "Description", [F_CATEGORY] = "Category", [F_STEP] = "Step", [F_INPUT] = "Input",
        [F_OUTPUT] = "Output",
    };
    for (size_t i = 0; i < r.n && !rc; i++)
        if (!(rc = put_meta(x, &r, &r.f[i], err)) && labels[r.f[i].kind])
            rc = put_field(x, &r, labels[r.f[i].kind], &r.f[i], err);
    if (!rc)
        rc = put_markdown(x, s, n, b->at == b->from ? n : body_start(s, n), b->from, b->to, err);   /* XML: none */
    if (!rc)
        rc = put_front_matter(x, s, n, err);
    if (!rc)
        rc = hxi_x_finish(x, err);
out:
    free(r.buf);
    free(r.f);
    return rc;
}

/* The file as it is, as text; then, when its directive blocks are all well-formed, the first one's
 * fields and the Markdown around it instead. A file whose block is malformed keeps its text as it
 * is, so the gate's check (below) finds the error where the file has it. */
static int extract_directive(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    char *text;
    size_t n;
    hxi_extract v;
    int rc = hxi_doc_decode(raw, len, &text, &n, &x->encoding, err);
    if (rc)
        return rc;
    if (!(rc = hxi_extract_init(&v, len, err))) {
        v.encoding = x->encoding;
        if (!(rc = hxi_x_block(&v, HX_BLOCK_VERBATIM, err)) && !(rc = hxi_x_text(&v, text, n, err)))
            rc = hxi_x_finish(&v, err);
    }
    free(text);
    fence b, first = {0};
    size_t pos = 0, found = 0;
    hx_error perr = {0};
    bool ok = true;
    while (!rc && ok && next_block(v.text, v.len, &pos, &b)) {
        if (!found++)
            first = b;
        ok = !hxi_xml_check(v.text + b.at, b.len, &perr);
    }
    if (!rc && found && ok)
        rc = read_directive(x, v.text, v.len, &first, err);
    if (!rc && (!found || !ok)) {
        hxi_extract_clear(x);
        *x = v;
        return 0;
    }
    hxi_extract_clear(&v);
    return rc;
}

/* === Gate rule === */

/* The first directive block of the text whose XML is not well-formed: rule "directive", with the
 * parser's reason at the line and column (in characters, 1-based) of the file where it stopped. */
static int check_directive(const hxi_doc_source *d, const char **rule, char *why, size_t why_len, hx_error *err)
{
    (void)err;
    fence b;
    size_t pos = 0;
    while (next_block(d->text, d->text_len, &pos, &b)) {
        hx_error perr = {0};
        if (!hxi_xml_check(d->text + b.at, b.len, &perr))
            continue;
        size_t rel = perr.offset < 0 ? 0 : (size_t)perr.offset < b.len ? (size_t)perr.offset : b.len;
        size_t off = b.at + rel, bol = off;
        while (bol > 0 && d->text[bol - 1] != '\n')
            bol--;
        uint32_t col = 1, cp;
        for (size_t i = bol; i < off; col++)
            hxi_utf8_next(d->text, off, &i, &cp);
        const char *what = perr.message, *colon = strstr(what, ": ");
        if (colon && has(what, strlen(what), "XML is not well-formed at byte"))
            what = colon + 2;   /* xml.c's offset, said here as a line and column */
        *rule = "directive";
        snprintf(why, why_len, "directive XML is not well-formed at line %u, column %u: %s",
                 1 + newlines(d->text, 0, off), col, what);
        return 0;
    }
    return 0;
}

/* === Row === */

/* An XML file whose root is <directive>; a Markdown file with a ```xml directive block that is a
 * directive item (kiwi.h: .ai/directives, or front matter item_type: directive). */
static bool sniff_directive(const char *path, const uint8_t *raw, size_t len)
{
    const char *s = (const char *)raw;
    if (opens_directive(s, len))
        return true;
    const char *type = hxi_kiwi_item_type(path, s, len);
    size_t pos = 0;
    fence b;
    return type && !strcmp(type, "directive") && next_block(s, len, &pos, &b);
}

const hxi_doctype hxi_doctype_directive = {
    .name = "directive", .sniff_path = sniff_directive, .extract = extract_directive, .chunk = HX_CHUNK_BLOCKS,
    .check = check_directive,
};
