/* docx.c: the DOCX row of the table of document types (Office Open XML word processing, ECMA-376
 * Part 1 section 17), through the extraction builder (doctype.h) and office.h's package helpers.
 * Reads the main document part named by the package relationships, then footnotes, endnotes and
 * comments; paragraphs in a heading style (styles.xml: a name "heading N" or "Title", or an
 * outline level; else style ids "HeadingN") open sections; table rows are blocks with their cells
 * separated by " | "; a numbered paragraph opens with its list number as Word draws it (docx_num.c);
 * docProps/core.xml gives title, author, dates, language, keywords. Text of
 * deleted runs, field codes and the fallback copy of alternate content is left out; headers,
 * footers, text in images and embedded objects are not read. */
#include "docx_num.h"
#include "office.h"

#include "alloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_STYLES 1024

typedef struct {
    char id[64];
    int level;             /* 1..9 heading level; 0 none */
    long num_id;           /* the list its paragraphs are items of (0: none) */
    int ilvl;              /* and their level in it */
} style;

typedef struct {
    hxi_extract *x;
    hx_error *err;
    style *styles;
    size_t n_styles;
    hxi_docx_numbering *numbering;   /* NULL: the package has no numbering part */
    long num_id;           /* the open paragraph's list (0: none): its own numPr's, else its style's */
    int ilvl;              /* and its level there */
    bool own_num;          /* the paragraph's numPr named its list */
    hxi_obuf para;
    hxi_office_table table;
    int level;             /* heading level of the open paragraph */
    int pdepth;            /* paragraphs open (text boxes nest them) */
    int skip;              /* elements open whose text is left out */
    bool in_t, in_ppr, note_skipped;
} docx;

static const style *style_of(const docx *d, const char *id)
{
    for (size_t i = 0; i < d->n_styles; i++)
        if (!strcmp(d->styles[i].id, id))
            return &d->styles[i];
    return NULL;
}

static int level_of(const docx *d, const char *id)
{
    const style *s = style_of(d, id);
    if (s)
        return s->level;
    if (!strncasecmp(id, "Heading", 7) && id[7] >= '1' && id[7] <= '9' && !id[8])
        return id[7] - '0';
    return !strcasecmp(id, "Title") ? 1 : 0;
}

/* === styles.xml === */

static int styles_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    docx *d = ctx;
    char v[64];
    if (hxi_office_is(name, len, "style")) {
        if (d->n_styles == MAX_STYLES || !hxi_office_attr_str(a, n, "styleId", v, sizeof v))
            return 0;
        style *s = &d->styles[d->n_styles++];
        memcpy(s->id, v, sizeof v);
        s->level = s->ilvl = 0;
        s->num_id = 0;
    } else if (d->n_styles && hxi_office_is(name, len, "name") && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        style *s = &d->styles[d->n_styles - 1];
        if (!strncasecmp(v, "heading ", 8) && v[8] >= '1' && v[8] <= '9' && !v[9])
            s->level = v[8] - '0';
        else if (!strcasecmp(v, "Title"))
            s->level = 1;
    } else if (d->n_styles && hxi_office_is(name, len, "numId") && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        d->styles[d->n_styles - 1].num_id = atol(v);
    } else if (d->n_styles && hxi_office_is(name, len, "ilvl") && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        d->styles[d->n_styles - 1].ilvl = atoi(v);
    } else if (d->n_styles && hxi_office_is(name, len, "outlineLvl") && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        int lvl = atoi(v);
        if (lvl >= 0 && lvl < 9 && !d->styles[d->n_styles - 1].level)
            d->styles[d->n_styles - 1].level = lvl + 1;
    }
    return 0;
}

/* === Document, notes, comments === */

static int put(docx *d, const char *s, size_t n)
{
    return hxi_obuf_put(&d->para, s, n, d->err);
}

/* A numbered paragraph's label ("2.", "b)") and a space open its text, as the reader sees it. */
static int list_label(docx *d)
{
    char label[64];
    size_t n = d->num_id > 0 ? hxi_docx_numbering_next(d->numbering, d->num_id, d->ilvl, label, sizeof label - 1) : 0;
    if (!n)
        return 0;
    label[n++] = ' ';
    return put(d, label, n);
}

static int body_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    docx *d = ctx;
    char v[64];
    if (d->skip || hxi_office_is(name, len, "Fallback") || hxi_office_is(name, len, "del") ||
        hxi_office_is(name, len, "instrText") || hxi_office_is(name, len, "pPrChange")) {
        d->skip++;
        return 0;
    }
    if (hxi_office_is(name, len, "p")) {
        if (!d->pdepth++) {
            d->para.len = 0;
            d->level = 0;
            d->num_id = 0;
            d->ilvl = 0;
            d->own_num = false;
        }
    } else if (hxi_office_is(name, len, "pPr")) {
        d->in_ppr = true;
    } else if (hxi_office_is(name, len, "pStyle") && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        d->level = level_of(d, v);
        const style *s = style_of(d, v);
        if (s && s->num_id && !d->own_num) {
            d->num_id = s->num_id;
            d->ilvl = s->ilvl;
        }
    } else if (d->in_ppr && hxi_office_is(name, len, "numId") && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        d->num_id = atol(v);
        d->own_num = true;
    } else if (d->in_ppr && hxi_office_is(name, len, "ilvl") && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        d->ilvl = atoi(v);
    } else if (hxi_office_is(name, len, "outlineLvl") && d->in_ppr && hxi_office_attr_str(a, n, "val", v, sizeof v)) {
        int lvl = atoi(v);
        d->level = lvl >= 0 && lvl < 9 ? lvl + 1 : d->level;
    } else if (hxi_office_is(name, len, "t")) {
        d->in_t = true;
    } else if (!d->in_ppr && (hxi_office_is(name, len, "tab") || hxi_office_is(name, len, "br") ||
                              hxi_office_is(name, len, "cr"))) {
        return put(d, " ", 1);
    } else if (hxi_office_is(name, len, "tbl")) {
        hxi_office_table_start(&d->table, HX_OFFICE_TABLE);
    } else if (hxi_office_is(name, len, "tr")) {
        hxi_office_table_start(&d->table, HX_OFFICE_ROW);
    } else if (hxi_office_is(name, len, "tc")) {
        hxi_office_table_start(&d->table, HX_OFFICE_CELL);
    } else if (hxi_office_is(name, len, "footnote") || hxi_office_is(name, len, "endnote")) {
        d->note_skipped = hxi_office_attr_str(a, n, "type", v, sizeof v) && strcmp(v, "normal");
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
    if (hxi_office_is(name, len, "p") && d->pdepth && !--d->pdepth && !d->note_skipped) {
        const char *s = d->para.s ? d->para.s : "";
        if (d->table.depth)   /* a cell's paragraph: into the row */
            rc = hxi_office_table_para(&d->table, s, d->para.len, d->err);
        else if (d->level)
            rc = hxi_x_heading(d->x, d->level, s, d->para.len, d->err);
        else if (d->para.len)
            rc = hxi_office_prose(d->x, s, d->para.len, d->err);
    } else if (hxi_office_is(name, len, "pPr")) {
        d->in_ppr = false;
        if (d->pdepth == 1)
            rc = list_label(d);
    } else if (hxi_office_is(name, len, "t")) {
        d->in_t = false;
    } else if (hxi_office_is(name, len, "tbl")) {
        hxi_office_table_end(&d->table, HX_OFFICE_TABLE, d->x, d->err);
    } else if (hxi_office_is(name, len, "tr")) {
        rc = hxi_office_table_end(&d->table, HX_OFFICE_ROW, d->x, d->err);
    } else if (hxi_office_is(name, len, "footnote") || hxi_office_is(name, len, "endnote")) {
        d->note_skipped = false;
    }
    return rc;
}

static int body_text(void *ctx, const char *s, size_t len, int raw)
{
    docx *d = ctx;
    return d->in_t && !d->skip ? hxi_obuf_xml(&d->para, s, len, raw, d->err) : 0;
}

static int extract_docx(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    hxi_office_ooxml p;
    int rc = hxi_office_ooxml_open(&p, raw, len, "word/document.xml", x, err);
    if (rc)
        return rc;
    docx d = {.x = x, .err = err};
    const char *styles = hxi_office_rels_by_type(&p.rels, "/styles");
    if (styles && hxi_zip_find(&p.zip, styles)) {
        if (!(d.styles = hx_calloc(MAX_STYLES, sizeof *d.styles)))
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for styles");
        hxi_xml_handler sh = {&d, styles_start, NULL, NULL};
        if (!rc)
            rc = hxi_office_parse(&p.zip, styles, &sh, err);
    }
    const char *numbering = hxi_office_rels_by_type(&p.rels, "/numbering");
    if (!rc && numbering && hxi_zip_find(&p.zip, numbering))
        rc = hxi_docx_numbering_read(&p.zip, numbering, &d.numbering, err);
    hxi_xml_handler h = {&d, body_start, body_end, body_text};
    if (!rc)
        rc = hxi_office_parse(&p.zip, p.main, &h, err);
    static const char *const extra[] = {"/footnotes", "/endnotes", "/comments"};
    for (size_t i = 0; !rc && i < sizeof extra / sizeof *extra; i++) {
        const char *part = hxi_office_rels_by_type(&p.rels, extra[i]);
        if (part && hxi_zip_find(&p.zip, part)) {
            d.pdepth = d.table.depth = d.skip = 0;
            rc = hxi_office_parse(&p.zip, part, &h, err);
        }
    }
    if (!rc)
        rc = hxi_x_finish(x, err);
    free(d.styles);
    hxi_docx_numbering_free(d.numbering);
    free(d.para.s);
    free(d.table.row.s);
    hxi_office_ooxml_close(&p);
    return rc;
}

static bool sniff_docx(const uint8_t *raw, size_t len)
{
    return hxi_office_sniff_part(raw, len, "word/document.xml");
}

static const char *const docx_exts[] = {"docx", "docm", "dotx", NULL};

const hxi_doctype hxi_doctype_docx = {
    .name = "docx", .exts = docx_exts, .sniff = sniff_docx, .extract = extract_docx, .chunk = HX_CHUNK_BLOCKS,
    .binary = true,
};
