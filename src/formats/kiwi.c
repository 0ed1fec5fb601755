/* kiwi.c: Kiwi's item types as document metadata (spec in kiwi.h): the folder and front matter
 * rules and a script's metadata header. Must not know a directive's XML (directive.c) nor how a
 * script is chunked (its code row). */
#include "kiwi.h"
#include "yaml.h"

#include <stdbool.h>
#include <string.h>

/* === Item types === */

static const struct {
    const char *folder;        /* a folder directly under .ai */
    const char *type;
} folders[] = {
    {"directives", "directive"},
    {"scripts", "script"},
    {"tools", "script"},
    {"knowledge", "knowledge"},
};
#define N_FOLDERS (sizeof folders / sizeof *folders)

/* The item type a name says (one of the folders' types), or NULL. */
static const char *known_type(const char *s, size_t n)
{
    for (size_t i = 0; i < N_FOLDERS; i++)
        if (strlen(folders[i].type) == n && !memcmp(folders[i].type, s, n))
            return folders[i].type;
    return NULL;
}

/* The type of the first ".ai/<folder>/" in path, or NULL. */
static const char *folder_type(const char *path)
{
    for (const char *p = path; (p = strstr(p, ".ai/")); p += 4) {
        if (p != path && p[-1] != '/')
            continue;
        const char *f = p + 4, *slash = strchr(f, '/');
        for (size_t i = 0; slash && i < N_FOLDERS; i++)
            if ((size_t)(slash - f) == strlen(folders[i].folder) && !memcmp(f, folders[i].folder, (size_t)(slash - f)))
                return folders[i].type;
    }
    return NULL;
}

typedef struct {
    const char *type;
} fm_sink;

static int fm_pair(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted)
{
    fm_sink *f = ctx;
    (void)quoted;
    if (klen == 9 && !memcmp(key, "item_type", 9)) {
        f->type = known_type(val, vlen);
        return 1;   /* the first item_type decides */
    }
    return 0;
}

const char *hxi_kiwi_item_type(const char *path, const char *s, size_t n)
{
    size_t at, len, body;
    fm_sink f = {NULL};
    if (hxi_yaml_front_matter(s, n, &at, &len, &body) == 1)
        hxi_yaml_pairs(s + at, len, fm_pair, &f);
    return f.type ? f.type : folder_type(path);
}

/* === Describing === */

static const char *meta_get(const hxi_doc_source *d, const char *key)
{
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key))
            return d->meta[i].value;
    return NULL;
}

/* Kiwi's script header: module-level string constants, and the metadata key each gives. */
static const struct {
    const char *name, *key;
} header[] = {
    {"__version__", "version"},
    {"__tool_type__", "tool_type"},
    {"__executor_id__", "executor_id"},
    {"__category__", "category"},
    {"__tool_description__", "description"},
};
#define N_HEADER (sizeof header / sizeof *header)

/* line[0..n) as `NAME = "value"` (or 'value'; spaces optional, as Python and shell write it) of a
 * header name: its index, the value in *v, *vlen; -1 when it is not one. */
static int header_line(const char *line, size_t n, const char **v, size_t *vlen)
{
    for (size_t k = 0; k < N_HEADER; k++) {
        size_t nl = strlen(header[k].name), i = nl;
        if (n <= nl || memcmp(line, header[k].name, nl))
            continue;
        while (i < n && line[i] == ' ')
            i++;
        if (i >= n || line[i++] != '=')
            return -1;
        while (i < n && line[i] == ' ')
            i++;
        if (i >= n || (line[i] != '"' && line[i] != '\''))
            return -1;
        const char *close = memchr(line + i + 1, line[i], n - i - 1);
        if (!close)
            return -1;
        *v = line + i + 1;
        *vlen = (size_t)(close - *v);
        return (int)k;
    }
    return -1;
}

/* The line of s[0..end) at *pos: its first character after spaces and tabs in *first, its end
 * (without the newline) in *last; *pos moves past it. False at the end. */
static bool next_line(const char *s, size_t end, size_t *pos, size_t *first, size_t *last)
{
    if (*pos >= end)
        return false;
    size_t e = *pos;
    while (e < end && s[e] != '\n')
        e++;
    size_t i = *pos;
    while (i < e && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    *first = i;
    *last = e;
    *pos = e + 1;
    return true;
}

static bool starts_with(const char *s, size_t n, const char *lit)
{
    return n >= strlen(lit) && !memcmp(s, lit, strlen(lit));
}

/* The first paragraph of a Python module docstring (the file's first statement, after blank and
 * comment lines: a shebang, Kiwi's signature line), up to a blank line or a "Usage:", "Args:" or
 * "Dependencies:" line, as Kiwi reads a script's description: its span in *at, *len. */
static bool docstring(const char *s, size_t n, size_t *at, size_t *len)
{
    size_t pos = 0, i = n, e;
    while (next_line(s, n, &pos, &i, &e) && (i == e || s[i] == '#'))
        i = n;
    if (i + 3 > n || (memcmp(s + i, "\"\"\"", 3) && memcmp(s + i, "'''", 3)))
        return false;
    const char q[3] = {s[i], s[i], s[i]};
    size_t from = i + 3, end = from;
    while (end + 3 <= n && memcmp(s + end, q, 3))
        end++;
    if (end + 3 > n)
        return false;
    while (from < end && (s[from] == ' ' || s[from] == '\n' || s[from] == '\r' || s[from] == '\t'))
        from++;
    size_t stop = from;
    for (pos = from; next_line(s, end, &pos, &i, &e); stop = pos < end ? pos : end)
        if (i == e || starts_with(s + i, e - i, "Usage:") || starts_with(s + i, e - i, "Args:") ||
            starts_with(s + i, e - i, "Dependencies:"))
            break;
    *at = from;
    *len = stop - from;
    return stop > from;
}

static int describe_script(hxi_doc_source *d, hx_error *err)
{
    size_t from = d->n_meta;
    int rc = 0;
    bool described = false;
    for (size_t pos = 0; pos < d->text_len && !rc;) {
        const char *line = d->text + pos, *nl = memchr(line, '\n', d->text_len - pos);
        size_t l = nl ? (size_t)(nl - line) : d->text_len - pos;
        pos += l + 1;
        const char *v;
        size_t vlen;
        int k = header_line(line, l, &v, &vlen);
        if (k >= 0) {
            rc = hxi_doc_meta_add(d, from, header[k].key, strlen(header[k].key), v, vlen, err);
            described |= !strcmp(header[k].key, "description");
        }
    }
    size_t at, len;
    if (!rc && !described && docstring(d->text, d->text_len, &at, &len)) {
        char one[512];   /* the paragraph's lines as one, white space collapsed */
        size_t o = 0;
        for (size_t i = at; i < at + len && o < sizeof one - 1; i++) {
            char c = d->text[i] == '\n' || d->text[i] == '\r' || d->text[i] == '\t' ? ' ' : d->text[i];
            if (c != ' ' || (o && one[o - 1] != ' '))
                one[o++] = c;
        }
        while (o && one[o - 1] == ' ')
            o--;
        rc = hxi_doc_meta_add(d, from, "description", 11, one, o, err);
    }
    return rc;
}

int hxi_kiwi_describe(hxi_doc_source *d, hx_error *err)
{
    const char *type = meta_get(d, "item_type");
    int rc = 0;
    if (!type && (type = folder_type(d->path)))
        rc = hxi_doc_meta_add(d, d->n_meta, "item_type", 9, type, strlen(type), err);
    if (rc || !type)
        return rc;
    if (!strcmp(type, "script"))
        return describe_script(d, err);
    const char *zettel = meta_get(d, "zettel_id");   /* a knowledge entry's id, as relationships name it */
    if (!strcmp(type, "knowledge") && zettel && !meta_get(d, "item_id"))
        rc = hxi_doc_meta_add(d, d->n_meta, "item_id", 7, zettel, strlen(zettel), err);
    return rc;
}
