/* odf.c: the ODT, ODP and ODS rows of the table of document types (OASIS OpenDocument 1.3: text,
 * presentations, spreadsheets share content.xml's vocabulary), through the extraction builder
 * (doctype.h) and office.h. text:h opens a section at its outline level; text:p and list items
 * are blocks; table rows are blocks with non-empty cells separated by " | "; each spreadsheet
 * table is a section named by the sheet; each presentation page is a page (its title frame a
 * heading) and its speaker notes are kept; footnotes and endnotes follow the body; comments
 * (office:annotation) are kept without their author and date lines; meta.xml gives title,
 * author, dates, language, description and keywords. Left out: tracked deletions, image
 * descriptions, headers, footers and styles; formulas give their cached values only. */
#include "office.h"

#include <stdlib.h>
#include <string.h>

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
    if (hxi_office_is(name, len, "p") || hxi_office_is(name, len, "h")) {
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
    hxi_xml_handler h = {&o, start, end, text};
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
};

const hxi_doctype hxi_doctype_ods = {
    .name = "ods", .exts = ods_exts, .sniff = sniff_ods, .extract = extract_ods, .chunk = HX_CHUNK_BLOCKS,
};

const hxi_doctype hxi_doctype_odp = {
    .name = "odp", .exts = odp_exts, .sniff = sniff_odp, .extract = extract_odp, .chunk = HX_CHUNK_BLOCKS,
    .unit = HX_UNIT_PAGE,
};
