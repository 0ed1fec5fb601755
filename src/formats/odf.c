/* odf.c: the ODT, ODP and ODS rows of the table of document types (OASIS OpenDocument 1.3: text,
 * presentations, spreadsheets share content.xml's vocabulary), through the extraction builder
 * (doctype.h) and office.h. text:h opens a section at its outline level; text:p and list items
 * are blocks; table rows are blocks with non-empty cells separated by " | "; each spreadsheet
 * table is a section named by the sheet; each presentation page is a page (its title frame a
 * heading) and its speaker notes are kept; footnotes and endnotes follow the body; comments
 * (office:annotation) are kept without their author and date lines; meta.xml gives title,
 * author, dates, language, description and keywords. A numbered list item's first paragraph opens
 * with its number as LibreOffice draws it: the list style (text:list-style, in content.xml's
 * automatic styles or styles.xml) of its list, or of the list it is nested in, gives per level the
 * format, prefix, suffix, start value and how many levels the label shows ("2.1."); the outermost
 * list counts, a new one restarts, an item's text:start-value restarts it; bullets give no label.
 * Left out: tracked deletions, image descriptions, headers, footers and other styles; formulas give
 * their cached values only. */
#include "office.h"

#include "alloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_LEVELS 10          /* ODF's list levels */
#define MAX_LIST_STYLES 1024    /* list styles read; more are ignored (their lists unnumbered) */
#define LABEL_MAX 64            /* bytes of a list label */

typedef struct {
    char format;                /* hxi_office_list_number's; 0: a bullet or an image, no label */
    char prefix[16], suffix[16];
    int start, display;         /* text:start-value, text:display-levels */
} list_level;

typedef struct {
    char name[64];
    list_level lvl[LIST_LEVELS];
} list_style;

typedef struct {
    hxi_extract *x;
    hx_error *err;
    bool sheets, pages;    /* ODS: tables are sections; ODP: pages are pages */
    hxi_obuf para, notes;
    hxi_office_table table;
    int level;             /* heading level of the open paragraph (text:h) */
    int pdepth;            /* paragraphs open */
    int skip;              /* elements open whose text is left out */
    int note;              /* note bodies open: text goes to `notes` */
    int title_frame;       /* depth of an open presentation title frame */
    int depth;
    uint32_t page;
    list_style *styles;    /* the list styles read so far */
    size_t n_styles, cap_styles;
    list_style *style_open;          /* the text:list-style being read */
    int lists;                       /* text:list elements open */
    size_t list_style_at[LIST_LEVELS];   /* 1 + the index in styles of each open list level's style;
                                            0: none (an index, as styles may grow) */
    int count[LIST_LEVELS];          /* the outermost list's counters (INT_MIN: not counted) */
    int item;                        /* the level (1-based) of an item whose label is due; 0 none */
} odf;

static bool skipped(const char *name, size_t len)
{
    static const char *const skip[] = {"tracked-changes", "note-citation", "creator", "date", "title", "desc",
                                       "sequence-decls", "forms", "automatic-styles", "font-face-decls"};
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (hxi_office_is(name, len, skip[i]))
            return true;
    return false;
}

/* === Lists === */

/* A start value as a counter holds it: INT_MIN is the counters' "not counted". */
static int start_value(const char *v)
{
    int s = atoi(v);
    return s == INT_MIN ? s + 1 : s;
}

/* Reads a list style's elements (in content.xml's automatic styles or styles.xml); whether the
 * element was one. */
static bool list_style_start(odf *o, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    char v[64];
    if (hxi_office_is(name, len, "list-style")) {
        o->style_open = NULL;
        if (o->n_styles < MAX_LIST_STYLES &&
            !hx_grow((void **)&o->styles, &o->cap_styles, o->n_styles + 1, sizeof *o->styles, NULL)) {
            o->style_open = &o->styles[o->n_styles++];
            memset(o->style_open, 0, sizeof *o->style_open);
            hxi_office_attr_str(a, n, "name", o->style_open->name, sizeof o->style_open->name);
        }
        return true;
    }
    bool number = hxi_office_is(name, len, "list-level-style-number");
    if (!o->style_open || !(number || hxi_office_is(name, len, "list-level-style-bullet") ||
                            hxi_office_is(name, len, "list-level-style-image")))
        return false;
    int level = hxi_office_attr_str(a, n, "level", v, sizeof v) ? atoi(v) : 0;
    if (level < 1 || level > LIST_LEVELS)
        return true;
    list_level *l = &o->style_open->lvl[level - 1];
    memset(l, 0, sizeof *l);
    l->start = hxi_office_attr_str(a, n, "start-value", v, sizeof v) ? start_value(v) : 1;
    l->display = hxi_office_attr_str(a, n, "display-levels", v, sizeof v) ? atoi(v) : 1;
    if (number && hxi_office_attr_str(a, n, "num-format", v, sizeof v) && v[0] && !v[1] && strchr("1aAiI", v[0]))
        l->format = v[0];
    if (number) {
        hxi_office_attr_str(a, n, "num-prefix", l->prefix, sizeof l->prefix);
        hxi_office_attr_str(a, n, "num-suffix", l->suffix, sizeof l->suffix);
    }
    return true;
}

/* 1 + the index of the list style named `name`; 0 when there is none. */
static size_t list_style_named(const odf *o, const char *name)
{
    for (size_t i = 0; i < o->n_styles; i++)
        if (!strcmp(o->styles[i].name, name))
            return i + 1;
    return 0;
}


/* A text:list, text:list-item or text:list-header opens; whether it was one of them. */
static bool list_start(odf *o, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    char v[64];
    if (hxi_office_is(name, len, "list")) {
        int l = o->lists++;
        if (l >= LIST_LEVELS)
            return true;
        if (!l)
            for (int k = 0; k < LIST_LEVELS; k++)
                o->count[k] = INT_MIN;
        size_t s = hxi_office_attr_str(a, n, "style-name", v, sizeof v) ? list_style_named(o, v) : 0;
        o->list_style_at[l] = s ? s : l ? o->list_style_at[l - 1] : 0;
        return true;
    }
    bool header = hxi_office_is(name, len, "list-header");
    if (!header && !hxi_office_is(name, len, "list-item"))
        return false;
    o->item = 0;
    int l = o->lists - 1;
    if (l < 0 || l >= LIST_LEVELS || header || !o->list_style_at[l])
        return true;
    const list_level *lv = &o->styles[o->list_style_at[l] - 1].lvl[l];
    if (hxi_office_attr_str(a, n, "start-value", v, sizeof v))
        o->count[l] = start_value(v);
    else
        o->count[l] = o->count[l] == INT_MIN || o->count[l] == INT_MAX ? lv->start : o->count[l] + 1;
    for (int k = l + 1; k < LIST_LEVELS; k++)
        o->count[k] = INT_MIN;
    o->item = l + 1;
    return true;
}

/* The due label of a list item ("2.1.", "b)") and a space, before its first paragraph's text. */
static int list_label(odf *o)
{
    int l = o->item - 1;
    o->item = 0;
    if (!o->list_style_at[l])
        return 0;
    const list_style *s = &o->styles[o->list_style_at[l] - 1];
    const list_level *lv = &s->lvl[l];
    if (!lv->format)
        return 0;
    char label[LABEL_MAX], one[24];
    size_t n = (size_t)snprintf(label, sizeof label, "%s", lv->prefix);
    int from = lv->display > 1 && lv->display <= l + 1 ? l + 1 - lv->display : l;
    for (int k = from; k <= l && n < sizeof label; k++) {
        int v = o->count[k] != INT_MIN ? o->count[k] : s->lvl[k].start;
        hxi_office_list_number(v, s->lvl[k].format ? s->lvl[k].format : '1', one, sizeof one);
        n += (size_t)snprintf(label + n, sizeof label - n, k < l ? "%s." : "%s", one);
    }
    if (n < sizeof label)
        n += (size_t)snprintf(label + n, sizeof label - n, "%s ", lv->suffix);
    n = n < sizeof label ? n : sizeof label - 1;
    return hxi_obuf_put(&o->para, label, n, o->err);
}

/* styles.xml: only its list styles are read. */
static int styles_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    list_style_start(ctx, name, len, a, n);
    return 0;
}

static int styles_end(void *ctx, const char *name, size_t len)
{
    odf *o = ctx;
    if (hxi_office_is(name, len, "list-style"))
        o->style_open = NULL;
    return 0;
}

/* === Body === */

static hxi_obuf *target(odf *o)
{
    return o->note ? &o->notes : &o->para;
}

static int start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    odf *o = ctx;
    char v[256];
    o->depth++;
    if (o->skip || (skipped(name, len) && o->depth > 2)) {
        o->skip++;
        return 0;
    }
    if (list_style_start(o, name, len, a, n) || list_start(o, name, len, a, n))
        return 0;
    if (hxi_office_is(name, len, "p") || hxi_office_is(name, len, "h")) {
        if (o->note)
            return 0;
        if (!o->pdepth++) {
            o->para.len = 0;
            o->level = 0;
            if (hxi_office_is(name, len, "h"))
                o->level = hxi_office_attr_str(a, n, "outline-level", v, sizeof v) ? atoi(v) : 1;
            if (o->title_frame)
                o->level = 1;
            if (o->item)
                return list_label(o);
        } else {
            return hxi_obuf_put(&o->para, " ", 1, o->err);
        }
    } else if (hxi_office_is(name, len, "s") || hxi_office_is(name, len, "tab") ||
               hxi_office_is(name, len, "line-break")) {
        return hxi_obuf_put(target(o), " ", 1, o->err);
    } else if (hxi_office_is(name, len, "note-body")) {
        o->note++;
    } else if (hxi_office_is(name, len, "table")) {
        hxi_office_table_start(&o->table, HX_OFFICE_TABLE);
        if (o->table.depth == 1 && o->sheets && hxi_office_attr_str(a, n, "name", v, sizeof v))
            return hxi_x_heading(o->x, 1, v, strlen(v), o->err);
    } else if (hxi_office_is(name, len, "table-row")) {
        hxi_office_table_start(&o->table, HX_OFFICE_ROW);
    } else if (hxi_office_is(name, len, "table-cell") || hxi_office_is(name, len, "covered-table-cell")) {
        hxi_office_table_start(&o->table, HX_OFFICE_CELL);
    } else if (hxi_office_is(name, len, "page") && o->pages) {
        o->page++;
        hxi_x_source(o->x, o->page, o->page);
    } else if (hxi_office_is(name, len, "frame") && o->pages && !o->title_frame &&
               hxi_office_attr_str(a, n, "class", v, sizeof v) && !strcmp(v, "title")) {
        o->title_frame = o->depth;
    }
    return 0;
}

static int flush_para(odf *o)
{
    const char *s = o->para.s ? o->para.s : "";
    size_t k = o->para.len;
    if (o->table.depth)
        return hxi_office_table_para(&o->table, s, k, o->err);
    if (o->level)
        return hxi_x_heading(o->x, o->level, s, k, o->err);
    return k ? hxi_office_prose(o->x, s, k, o->err) : 0;
}

static int end(void *ctx, const char *name, size_t len)
{
    odf *o = ctx;
    int rc = 0;
    if (o->title_frame == o->depth)
        o->title_frame = 0;
    o->depth--;
    if (o->skip) {
        o->skip--;
        return 0;
    }
    if (hxi_office_is(name, len, "list-style")) {
        o->style_open = NULL;
    } else if (hxi_office_is(name, len, "list")) {
        o->lists -= o->lists > 0;
        o->item = 0;
    } else if (hxi_office_is(name, len, "p") || hxi_office_is(name, len, "h")) {
        if (o->note)
            rc = hxi_obuf_put(&o->notes, "\n", 1, o->err);
        else if (o->pdepth && !--o->pdepth)
            rc = flush_para(o);
    } else if (hxi_office_is(name, len, "note-body") && o->note) {
        o->note--;
    } else if (hxi_office_is(name, len, "table-row")) {
        rc = hxi_office_table_end(&o->table, HX_OFFICE_ROW, o->x, o->err);
    } else if (hxi_office_is(name, len, "table")) {
        hxi_office_table_end(&o->table, HX_OFFICE_TABLE, o->x, o->err);
    }
    return rc;
}

static int text(void *ctx, const char *s, size_t len, int raw)
{
    odf *o = ctx;
    if (o->skip || (!o->pdepth && !o->note))
        return 0;
    return hxi_obuf_xml(target(o), s, len, raw, o->err);
}

static int extract_odf(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err, bool sheets, bool pages)
{
    hxi_zip z;
    int rc = hxi_office_open(&z, raw, len, err);
    if (rc)
        return rc;
    odf o = {.x = x, .err = err, .sheets = sheets, .pages = pages};
    rc = hxi_office_properties(&z, "meta.xml", x, err);
    hxi_xml_handler sh = {&o, styles_start, styles_end, NULL}, h = {&o, start, end, text};
    if (!rc && hxi_zip_find(&z, "styles.xml"))
        rc = hxi_office_parse(&z, "styles.xml", &sh, err);
    if (!rc)
        rc = hxi_office_parse(&z, "content.xml", &h, err);
    for (size_t i = 0; !rc && i < o.notes.len;) {   /* notes, one block a paragraph */
        size_t k = strcspn(o.notes.s + i, "\n");
        if (k)
            rc = hxi_office_prose(x, o.notes.s + i, k, err);
        i += k + 1;
    }
    bool counted = false;   /* meta.xml gave a page count; else a presentation counts its pages */
    for (size_t i = 0; i < x->n_meta && !counted; i++)
        counted = !strcmp(x->meta[i].key, "page_count");
    if (!rc && pages && !counted)
        rc = hxi_x_meta_uint(x, "page_count", o.page, err);
    if (!rc)
        rc = hxi_x_finish(x, err);
    free(o.para.s);
    free(o.table.row.s);
    free(o.notes.s);
    free(o.styles);
    hxi_zip_close(&z);
    return rc;
}

static int extract_odt(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    return extract_odf(raw, len, x, err, false, false);
}

static int extract_ods(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    return extract_odf(raw, len, x, err, true, false);
}

static int extract_odp(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    return extract_odf(raw, len, x, err, false, true);
}

static bool sniff_odt(const uint8_t *raw, size_t len)
{
    return hxi_office_sniff_mimetype(raw, len, "application/vnd.oasis.opendocument.text");
}

static bool sniff_ods(const uint8_t *raw, size_t len)
{
    return hxi_office_sniff_mimetype(raw, len, "application/vnd.oasis.opendocument.spreadsheet");
}

static bool sniff_odp(const uint8_t *raw, size_t len)
{
    return hxi_office_sniff_mimetype(raw, len, "application/vnd.oasis.opendocument.presentation");
}

static const char *const odt_exts[] = {"odt", "ott", NULL};
static const char *const ods_exts[] = {"ods", "ots", NULL};
static const char *const odp_exts[] = {"odp", "otp", NULL};

const hxi_doctype hxi_doctype_odt = {
    .name = "odt", .exts = odt_exts, .sniff = sniff_odt, .extract = extract_odt, .chunk = HX_CHUNK_BLOCKS,
    .binary = true,
};

const hxi_doctype hxi_doctype_ods = {
    .name = "ods", .exts = ods_exts, .sniff = sniff_ods, .extract = extract_ods, .chunk = HX_CHUNK_BLOCKS,
    .binary = true,
};

const hxi_doctype hxi_doctype_odp = {
    .name = "odp", .exts = odp_exts, .sniff = sniff_odp, .extract = extract_odp, .chunk = HX_CHUNK_BLOCKS,
    .unit = HX_UNIT_PAGE,
    .binary = true,
};
