/* docx.c: the DOCX row of the table of document types (Office Open XML word processing, ECMA-376
 * Part 1 section 17), through the extraction builder (doctype.h) and office.h's package helpers.
 * Reads the main document part named by the package relationships, then footnotes, endnotes and
 * comments; paragraphs in a heading style (styles.xml: a name "heading N" or "Title", or an
 * outline level; else style ids "HeadingN") open sections; table rows are blocks with their cells
 * separated by " | "; docProps/core.xml gives title, author, dates, language, keywords. Text of
 * deleted runs, field codes and the fallback copy of alternate content is left out; headers,
 * footers, text in images and embedded objects are not read. */
#include "office.h"

#include "alloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_STYLES 1024

typedef struct {
    char id[64];
    int level;             /* 1..9 heading level; 0 none */
} style;

typedef struct {
    hx_extract *x;
    hx_error *err;
    style *styles;
    size_t n_styles;
    hx_obuf para, row;
    int level;             /* heading level of the open paragraph */
    int pdepth;            /* paragraphs open (text boxes nest them) */
    int tbl;               /* tables open */
    size_t cell_at;        /* where the open cell's text starts in `row` */
    int skip;              /* elements open whose text is left out */
    bool in_t, in_ppr, note_skipped;
} docx;

static int level_of(const docx *d, const char *id)
{
    for (size_t i = 0; i < d->n_styles; i++)
        if (!strcmp(d->styles[i].id, id))
            return d->styles[i].level;
    if (!strncasecmp(id, "Heading", 7) && id[7] >= '1' && id[7] <= '9' && !id[8])
        return id[7] - '0';
    return !strcasecmp(id, "Title") ? 1 : 0;
}

/* === styles.xml === */

static int styles_start(void *ctx, const char *name, size_t len, const hx_xml_attr *a, size_t n)
{
    docx *d = ctx;
    char v[64];
    if (hx_office_is(name, len, "style")) {
        if (d->n_styles == MAX_STYLES || !hx_office_attr_str(a, n, "styleId", v, sizeof v))
            return 0;
        style *s = &d->styles[d->n_styles++];
        memcpy(s->id, v, sizeof v);
        s->level = 0;
    } else if (d->n_styles && hx_office_is(name, len, "name") && hx_office_attr_str(a, n, "val", v, sizeof v)) {
        style *s = &d->styles[d->n_styles - 1];
        if (!strncasecmp(v, "heading ", 8) && v[8] >= '1' && v[8] <= '9' && !v[9])
            s->level = v[8] - '0';
        else if (!strcasecmp(v, "Title"))
            s->level = 1;
    } else if (d->n_styles && hx_office_is(name, len, "outlineLvl") && hx_office_attr_str(a, n, "val", v, sizeof v)) {
        int lvl = atoi(v);
        if (lvl >= 0 && lvl < 9 && !d->styles[d->n_styles - 1].level)
            d->styles[d->n_styles - 1].level = lvl + 1;
    }
    return 0;
}

static int nop_end(void *ctx, const char *name, size_t len)
{
    (void)ctx;
    (void)name;
    (void)len;
    return 0;
}

static int nop_text(void *ctx, const char *s, size_t len, int raw)
{
    (void)ctx;
    (void)s;
    (void)len;
    (void)raw;
    return 0;
}

/* === Document, notes, comments === */

static int put(docx *d, const char *s, size_t n)
{
    return hx_obuf_put(&d->para, s, n, d->err);
}

static int body_start(void *ctx, const char *name, size_t len, const hx_xml_attr *a, size_t n)
{
    docx *d = ctx;
    char v[64];
    if (d->skip || hx_office_is(name, len, "Fallback") || hx_office_is(name, len, "del") ||
        hx_office_is(name, len, "instrText")) {
        d->skip++;
        return 0;
    }
    if (hx_office_is(name, len, "p")) {
        if (!d->pdepth++) {
            d->para.len = 0;
            d->level = 0;
        }
    } else if (hx_office_is(name, len, "pPr")) {
        d->in_ppr = true;
    } else if (hx_office_is(name, len, "pStyle") && hx_office_attr_str(a, n, "val", v, sizeof v)) {
        d->level = level_of(d, v);
    } else if (hx_office_is(name, len, "outlineLvl") && d->in_ppr && hx_office_attr_str(a, n, "val", v, sizeof v)) {
        int lvl = atoi(v);
        d->level = lvl >= 0 && lvl < 9 ? lvl + 1 : d->level;
    } else if (hx_office_is(name, len, "t")) {
        d->in_t = true;
    } else if (!d->in_ppr && (hx_office_is(name, len, "tab") || hx_office_is(name, len, "br") ||
                              hx_office_is(name, len, "cr"))) {
        return put(d, " ", 1);
    } else if (hx_office_is(name, len, "tbl")) {
        d->tbl++;
    } else if (hx_office_is(name, len, "tr") && d->tbl == 1) {
        d->row.len = 0;
    } else if (hx_office_is(name, len, "tc") && d->tbl == 1) {
        d->cell_at = d->row.len;
    } else if (hx_office_is(name, len, "footnote") || hx_office_is(name, len, "endnote")) {
        d->note_skipped = hx_office_attr_str(a, n, "type", v, sizeof v) && strcmp(v, "normal");
    }
    return 0;
}

static int body_end(void *ctx, const char *name, size_t len)
{
    docx *d = ctx;
    if (d->skip) {
        d->skip--;
        return 0;
    }
    int rc = 0;
    if (hx_office_is(name, len, "p") && d->pdepth && !--d->pdepth && !d->note_skipped) {
        const char *s = d->para.s ? d->para.s : "";
        if (d->tbl) {   /* a cell's paragraph: into the row */
            const char *sep = !d->para.len || !d->row.len ? "" : d->row.len > d->cell_at ? " " : " | ";
            rc = hx_obuf_put(&d->row, sep, strlen(sep), d->err);
            if (!rc)
                rc = hx_obuf_put(&d->row, s, d->para.len, d->err);
        } else if (d->level) {
            rc = hx_x_heading(d->x, d->level, s, d->para.len, d->err);
        } else if (d->para.len) {
            rc = hx_x_block(d->x, HX_BLOCK_PROSE, d->err);
            if (!rc)
                rc = hx_x_words(d->x, s, d->para.len, d->err);
        }
    } else if (hx_office_is(name, len, "pPr")) {
        d->in_ppr = false;
    } else if (hx_office_is(name, len, "t")) {
        d->in_t = false;
    } else if (hx_office_is(name, len, "tbl") && d->tbl) {
        d->tbl--;
    } else if (hx_office_is(name, len, "tr") && d->tbl == 1 && d->row.len) {
        rc = hx_x_block(d->x, HX_BLOCK_PROSE, d->err);
        if (!rc)
            rc = hx_x_words(d->x, d->row.s, d->row.len, d->err);
    } else if (hx_office_is(name, len, "footnote") || hx_office_is(name, len, "endnote")) {
        d->note_skipped = false;
    }
    return rc;
}

static int body_text(void *ctx, const char *s, size_t len, int raw)
{
    docx *d = ctx;
    return d->in_t && !d->skip ? hx_obuf_xml(&d->para, s, len, raw, d->err) : 0;
}

static int extract_docx(const uint8_t *raw, size_t len, hx_extract *x, hx_error *err)
{
    hx_zip z;
    int rc = hx_office_open(&z, raw, len, err);
    if (rc)
        return rc;
    docx d = {.x = x, .err = err};
    hx_office_rels root = {0}, rels = {0};
    const char *main_part = "word/document.xml";
    if (!(rc = hx_office_rels_read(&z, "", &root, err))) {
        const char *t = hx_office_rels_by_type(&root, "/officeDocument");
        main_part = t ? t : main_part;
        rc = hx_office_properties(&z, "docProps/core.xml", x, err);
    }
    if (!rc)
        rc = hx_office_rels_read(&z, main_part, &rels, err);
    const char *styles = hx_office_rels_by_type(&rels, "/styles");
    if (!rc && styles && hx_zip_find(&z, styles)) {
        if (!(d.styles = hx_calloc(MAX_STYLES, sizeof *d.styles)))
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for styles");
        hx_xml_handler sh = {&d, styles_start, nop_end, nop_text};
        if (!rc)
            rc = hx_office_parse(&z, styles, &sh, err);
    }
    hx_xml_handler h = {&d, body_start, body_end, body_text};
    if (!rc)
        rc = hx_office_parse(&z, main_part, &h, err);
    static const char *const extra[] = {"/footnotes", "/endnotes", "/comments"};
    for (size_t i = 0; !rc && i < sizeof extra / sizeof *extra; i++) {
        const char *part = hx_office_rels_by_type(&rels, extra[i]);
        if (part && hx_zip_find(&z, part)) {
            d.pdepth = d.tbl = d.skip = 0;
            rc = hx_office_parse(&z, part, &h, err);
        }
    }
    if (!rc)
        rc = hx_x_finish(x, err);
    hx_office_rels_free(&root);
    hx_office_rels_free(&rels);
    free(d.styles);
    free(d.para.s);
    free(d.row.s);
    hx_zip_close(&z);
    return rc;
}

static bool sniff_docx(const uint8_t *raw, size_t len)
{
    return hx_office_sniff_part(raw, len, "word/document.xml");
}

static const char *const docx_exts[] = {"docx", "docm", "dotx", NULL};

const hx_doctype hx_doctype_docx = {
    .name = "docx", .exts = docx_exts, .sniff = sniff_docx, .extract = extract_docx, .chunk = HX_CHUNK_BLOCKS,
};
