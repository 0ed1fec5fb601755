/* office.c: the parts of ZIP-based document formats every such extractor shares (contract in
 * office.h): the package, XML parts, names, paragraphs and table rows, properties, relationships,
 * package paths, OOXML packages and list numbers' formats. Must not use an entry name as a file path or know any one
 * format's body. */
#include "office.h"

#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int hxi_obuf_put(hxi_obuf *b, const char *s, size_t n, hx_error *err)
{
    if (hx_grow((void **)&b->s, &b->cap, b->len + n + 1, 1, err))
        return HX_ENOMEM;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
    return 0;
}

int hxi_obuf_xml(hxi_obuf *b, const char *s, size_t n, int raw, hx_error *err)
{
    if (raw)
        return hxi_obuf_put(b, s, n, err);
    if (hx_grow((void **)&b->s, &b->cap, b->len + n + 1, 1, err))
        return HX_ENOMEM;
    b->len += hxi_xml_decode(s, n, b->s + b->len);
    b->s[b->len] = 0;
    return 0;
}

/* Rewrites err with `code`, keeping its message behind `prefix`. */
static int reword(hx_error *err, int code, const char *prefix)
{
    if (!err)
        return code;
    char msg[sizeof err->message];
    memcpy(msg, err->message, sizeof msg);
    return hx_error_set(err, code, err->offset, "%s%s", prefix, msg);
}

int hxi_office_open(hxi_zip *z, const uint8_t *raw, size_t len, hx_error *err)
{
    int rc = hxi_zip_open(z, raw, len, NULL, err);
    if (rc)
        return rc == HX_ENOMEM ? rc : reword(err, HX_EFORMAT, "");
    return 0;
}

int hxi_office_part(hxi_zip *z, const char *name, char **xml, size_t *len, hx_error *err)
{
    *xml = NULL;
    const hxi_zip_entry *e = hxi_zip_find(z, name);
    if (!e)
        return hx_error_set(err, HX_ENOTFOUND, -1, "the package has no part %s", name);
    uint8_t *out;
    int rc = hxi_zip_read(z, e, &out, len, err);
    if (rc)
        return rc == HX_ENOMEM || rc == HX_ERANGE ? rc : reword(err, HX_EFORMAT, "");
    if (*len >= 3 && out[0] == 0xEF && out[1] == 0xBB && out[2] == 0xBF) {
        memmove(out, out + 3, *len - 3 + 1);
        *len -= 3;
    }
    *xml = (char *)out;
    return 0;
}

int hxi_office_parse(hxi_zip *z, const char *name, const hxi_xml_handler *h, hx_error *err)
{
    char *xml;
    size_t len;
    int rc = hxi_office_part(z, name, &xml, &len, err);
    if (rc)
        return rc;
    rc = hxi_xml_parse(xml, len, h, err);
    if (rc == HX_EPARSE || rc == HX_EDEPTH) {
        char prefix[300];
        snprintf(prefix, sizeof prefix, "%s: ", name);
        rc = reword(err, HX_EFORMAT, prefix);
    }
    free(xml);
    return rc;
}

bool hxi_office_is(const char *name, size_t len, const char *local)
{
    const char *colon = memchr(name, ':', len);
    if (colon) {
        len -= (size_t)(colon + 1 - name);
        name = colon + 1;
    }
    return strlen(local) == len && !memcmp(name, local, len);
}

const hxi_xml_attr *hxi_office_attr(const hxi_xml_attr *a, size_t n, const char *local)
{
    for (size_t i = 0; i < n; i++)
        if (hxi_office_is(a[i].name, a[i].name_len, local))
            return &a[i];
    return NULL;
}

bool hxi_office_attr_str(const hxi_xml_attr *a, size_t n, const char *local, char *buf, size_t cap)
{
    const hxi_xml_attr *v = hxi_office_attr(a, n, local);
    if (!v || !cap)
        return false;
    char *tmp = hx_malloc(v->value_len + 1);
    if (!tmp)
        return false;
    size_t k = hxi_xml_decode(v->value, v->value_len, tmp);
    if (k >= cap)
        k = cap - 1;
    memcpy(buf, tmp, k);
    buf[k] = 0;
    free(tmp);
    return true;
}

/* === Paragraphs and tables === */

int hxi_office_prose(hxi_extract *x, const char *s, size_t n, hx_error *err)
{
    int rc = hxi_x_block(x, HX_BLOCK_PROSE, err);
    return rc ? rc : hxi_x_words(x, s, n, err);
}

void hxi_office_table_start(hxi_office_table *t, hxi_office_tpart part)
{
    if (part == HX_OFFICE_TABLE)
        t->depth++;
    else if (part == HX_OFFICE_ROW && t->depth == 1)
        t->row.len = 0;
    else if (part == HX_OFFICE_CELL && t->depth == 1)
        t->cell_at = t->row.len;
}

int hxi_office_table_end(hxi_office_table *t, hxi_office_tpart part, hxi_extract *x, hx_error *err)
{
    if (part == HX_OFFICE_TABLE && t->depth)
        t->depth--;
    else if (part == HX_OFFICE_ROW && t->depth == 1 && t->row.len)
        return hxi_office_prose(x, t->row.s, t->row.len, err);
    return 0;
}

int hxi_office_table_para(hxi_office_table *t, const char *s, size_t n, hx_error *err)
{
    if (!n)
        return 0;
    const char *sep = !t->row.len ? "" : t->row.len > t->cell_at ? " " : " | ";
    int rc = hxi_obuf_put(&t->row, sep, strlen(sep), err);
    return rc ? rc : hxi_obuf_put(&t->row, s, n, err);
}

/* === Properties === */

typedef struct {
    hxi_extract *x;
    hx_error *err;
    const char *key;   /* the metadata key of the open property element, or NULL */
    int depth, key_depth;
    hxi_obuf val;
} props;

static const struct {
    const char *local, *key;
} prop_keys[] = {
    {"title", "title"},           {"creator", "author"},      {"initial-creator", "author"},
    {"created", "date"},          {"creation-date", "date"},  {"date", "date"},
    {"modified", "modified"},     {"language", "language"},   {"description", "description"},
    {"subject", "keywords"},      {"keywords", "keywords"},   {"keyword", "keywords"},
    {"Pages", "page_count"},
};

/* A page count the writer recorded (app.xml's Pages, meta.xml's meta:page-count): digits only. */
static int page_count(props *p, const char *v, size_t n)
{
    if (!n || n > 9 || strspn(v, "0123456789") < n)
        return 0;
    return hxi_x_meta(p->x, "page_count", v, n, p->err);
}

static int props_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    props *p = ctx;
    char v[32];
    p->depth++;
    if (p->key || p->depth > 3)   /* properties are children of the root or of its metadata element */
        return 0;
    if (hxi_office_is(name, len, "document-statistic") && hxi_office_attr_str(a, n, "page-count", v, sizeof v))
        return page_count(p, v, strlen(v));
    for (size_t i = 0; i < sizeof prop_keys / sizeof *prop_keys; i++)
        if (hxi_office_is(name, len, prop_keys[i].local)) {
            p->key = prop_keys[i].key;
            p->key_depth = p->depth;
            p->val.len = 0;
        }
    return 0;
}

static int props_end(void *ctx, const char *name, size_t len)
{
    props *p = ctx;
    (void)name;
    (void)len;
    int rc = 0;
    if (p->key && p->depth == p->key_depth) {
        const char *v = p->val.s ? p->val.s : "";
        if (!strcmp(p->key, "title") && p->val.len)
            rc = hxi_x_title(p->x, v, p->val.len, p->err);
        if (!rc && !strcmp(p->key, "page_count")) {
            rc = page_count(p, v, p->val.len);
        } else if (!rc && !strcmp(p->key, "keywords")) {   /* "a, b; c" as several keywords */
            for (const char *s = v, *e; !rc && *s; s = *e ? e + 1 : e) {
                e = s + strcspn(s, ",;");
                rc = hxi_x_meta(p->x, "keywords", s, (size_t)(e - s), p->err);
            }
        } else if (!rc) {
            rc = hxi_x_meta(p->x, p->key, v, p->val.len, p->err);
        }
        p->key = NULL;
    }
    p->depth--;
    return rc;
}

static int props_text(void *ctx, const char *s, size_t len, int raw)
{
    props *p = ctx;
    return p->key ? hxi_obuf_xml(&p->val, s, len, raw, p->err) : 0;
}

int hxi_office_properties(hxi_zip *z, const char *name, hxi_extract *x, hx_error *err)
{
    if (!hxi_zip_find(z, name))
        return 0;
    props p = {.x = x, .err = err};
    hxi_xml_handler h = {&p, props_start, props_end, props_text};
    int rc = hxi_office_parse(z, name, &h, err);
    free(p.val.s);
    return rc;
}

/* === Package paths === */

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

bool hxi_office_resolve(const char *base, const char *href, char *out, size_t cap)
{
    size_t o = 0;
    if (href[0] != '/') {   /* start from base's folder */
        const char *slash = strrchr(base, '/');
        size_t k = slash ? (size_t)(slash - base) + 1 : 0;
        if (k >= cap)
            return false;
        memcpy(out, base, k);
        o = k;
    } else {
        href++;
    }
    size_t hl = strcspn(href, "#");
    for (size_t i = 0; i < hl;) {
        size_t seg = strcspn(href + i, "/");
        if (seg > hl - i)
            seg = hl - i;
        if (seg == 1 && href[i] == '.') {
            /* nothing */
        } else if (seg == 2 && href[i] == '.' && href[i + 1] == '.') {
            if (o > 0)
                o--;   /* drop the '/' ending the folder, then the folder */
            while (o > 0 && out[o - 1] != '/')
                o--;
        } else if (seg) {
            for (size_t k = 0; k < seg; k++) {
                char c = href[i + k];
                int h1, h2;
                if (c == '%' && k + 2 < seg && (h1 = hexval(href[i + k + 1])) >= 0 &&
                    (h2 = hexval(href[i + k + 2])) >= 0) {
                    c = (char)(h1 * 16 + h2);
                    k += 2;
                }
                if (o + 1 >= cap)
                    return false;
                out[o++] = c;
            }
            if (i + seg < hl) {
                if (o + 1 >= cap)
                    return false;
                out[o++] = '/';
            }
        }
        i += seg + 1;
    }
    out[o] = 0;
    return true;
}

/* === OOXML relationships === */

typedef struct {
    hxi_office_rels *r;
    const char *part;
    hx_error *err;
} rels_ctx;

static int rels_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    rels_ctx *c = ctx;
    char id[256], target[1024], type[256] = "", mode[32] = "", path[1024];
    if (!hxi_office_is(name, len, "Relationship") || !hxi_office_attr_str(a, n, "Id", id, sizeof id) ||
        !hxi_office_attr_str(a, n, "Target", target, sizeof target))
        return 0;
    hxi_office_attr_str(a, n, "Type", type, sizeof type);
    hxi_office_attr_str(a, n, "TargetMode", mode, sizeof mode);
    if (!strcmp(mode, "External") || !hxi_office_resolve(c->part, target, path, sizeof path))
        return 0;
    hxi_office_rels *r = c->r;
    if (r->n >= HX_OFFICE_MAX_PARTS)
        return 0;
    if (hx_grow((void **)&r->items, &r->cap, r->n + 1, sizeof *r->items, c->err))
        return HX_ENOMEM;
    hxi_office_rel *e = &r->items[r->n++];
    e->id = hx_strdup(id);
    e->target = hx_strdup(path);
    e->type = hx_strdup(type);
    if (!e->id || !e->target || !e->type)
        return hx_error_set(c->err, HX_ENOMEM, -1, "out of memory reading relationships");
    return 0;
}

int hxi_office_rels_read(hxi_zip *z, const char *part, hxi_office_rels *r, hx_error *err)
{
    memset(r, 0, sizeof *r);
    char name[1024];
    const char *slash = strrchr(part, '/');
    size_t folder = slash ? (size_t)(slash - part) + 1 : 0;
    if (snprintf(name, sizeof name, "%.*s_rels/%s.rels", (int)folder, part, part + folder) >= (int)sizeof name)
        return 0;
    if (!hxi_zip_find(z, name))
        return 0;
    rels_ctx c = {r, part, err};
    hxi_xml_handler h = {&c, rels_start, NULL, NULL};
    int rc = hxi_office_parse(z, name, &h, err);
    if (rc)
        hxi_office_rels_free(r);
    return rc;
}

const char *hxi_office_rels_target(const hxi_office_rels *r, const char *id, size_t len)
{
    for (size_t i = 0; i < r->n; i++)
        if (strlen(r->items[i].id) == len && !memcmp(r->items[i].id, id, len))
            return r->items[i].target;
    return NULL;
}

const char *hxi_office_rels_by_type(const hxi_office_rels *r, const char *type_suffix)
{
    size_t k = strlen(type_suffix);
    for (size_t i = 0; i < r->n; i++) {
        size_t t = strlen(r->items[i].type);
        if (t >= k && !strcasecmp(r->items[i].type + t - k, type_suffix))
            return r->items[i].target;
    }
    return NULL;
}

void hxi_office_rels_free(hxi_office_rels *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].id);
        free(r->items[i].target);
        free(r->items[i].type);
    }
    free(r->items);
    memset(r, 0, sizeof *r);
}

/* === OOXML packages === */

int hxi_office_ooxml_open(hxi_office_ooxml *p, const uint8_t *raw, size_t len, const char *main_default, hxi_extract *x,
                          hx_error *err)
{
    memset(p, 0, sizeof *p);
    p->main = main_default;
    int rc = hxi_office_open(&p->zip, raw, len, err);
    if (rc)
        return rc;
    if (!(rc = hxi_office_rels_read(&p->zip, "", &p->root, err))) {
        const char *t = hxi_office_rels_by_type(&p->root, "/officeDocument");
        p->main = t ? t : main_default;
        rc = hxi_office_properties(&p->zip, "docProps/core.xml", x, err);
        if (!rc)
            rc = hxi_office_properties(&p->zip, "docProps/app.xml", x, err);
    }
    if (!rc)
        rc = hxi_office_rels_read(&p->zip, p->main, &p->rels, err);
    if (rc)
        hxi_office_ooxml_close(p);
    return rc;
}

void hxi_office_ooxml_close(hxi_office_ooxml *p)
{
    hxi_office_rels_free(&p->root);
    hxi_office_rels_free(&p->rels);
    hxi_zip_close(&p->zip);
}

/* === Detection === */

bool hxi_office_sniff_mimetype(const uint8_t *raw, size_t len, const char *mimetype)
{
    size_t k = strlen(mimetype);
    if (len < 38 + k || memcmp(raw, "PK\3\4", 4) || raw[8] || raw[9] || raw[26] != 8 || raw[27])
        return false;
    size_t at = 30 + 8 + (size_t)(raw[28] | raw[29] << 8);
    return !memcmp(raw + 30, "mimetype", 8) && len - at >= k && !memcmp(raw + at, mimetype, k);
}

bool hxi_office_sniff_part(const uint8_t *raw, size_t len, const char *part)
{
    if (len < 4 || memcmp(raw, "PK\3\4", 4))
        return false;
    size_t tail = len < (256u << 10) ? len : 256u << 10;   /* the central directory's usual place */
    return memmem(raw + len - tail, tail, part, strlen(part)) != NULL;
}

void hxi_office_list_number(int v, char f, char *out, size_t cap)
{
    static const char *const ones[] = {"", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"};
    static const char *const tens[] = {"", "x", "xx", "xxx", "xl", "l", "lx", "lxx", "lxxx", "xc"};
    static const char *const hundreds[] = {"", "c", "cc", "ccc", "cd", "d", "dc", "dcc", "dccc", "cm"};
    if (!cap)
        return;
    out[0] = 0;
    if ((f == 'i' || f == 'I') && v > 0 && v < 4000) {
        size_t n = 0;
        for (int m = 0; m < v / 1000 && n + 1 < cap; m++)
            out[n++] = 'm';
        snprintf(out + n, cap - n, "%s%s%s", hundreds[v / 100 % 10], tens[v / 10 % 10], ones[v % 10]);
    } else if ((f == 'a' || f == 'A') && v > 0) {
        size_t reps = (size_t)(v - 1) / 26 + 1, n;   /* 27 is "aa", as Word and LibreOffice write it */
        for (n = 0; n < reps && n + 1 < cap && n < 16; n++)
            out[n] = (char)('a' + (v - 1) % 26);
        out[n] = 0;
    } else {
        snprintf(out, cap, f == '0' && v >= 0 && v < 10 ? "0%d" : "%d", v);
    }
    if (f == 'I' || f == 'A')
        for (char *p = out; *p; p++)
            *p = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
}
