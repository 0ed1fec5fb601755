/* pptx.c: the PPTX row of the table of document types (Office Open XML presentations, ECMA-376
 * Part 1 section 19), through the extraction builder (doctype.h) and office.h. Slides in
 * presentation order, each a page; a title placeholder's text is the slide's heading; other
 * shapes' paragraphs are blocks, table rows blocks with cells separated by " | "; the slide's
 * speaker notes follow it (without the slide image, number, header, footer and date
 * placeholders); docProps/core.xml gives the properties. Left out: slide masters and layouts
 * (their template text), images, charts, hidden-slide status. */
#include "office.h"

#include "alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    hxi_extract *x;
    hx_error *err;
    hxi_office_rels *pres_rels;
    const char **slides;   /* slide parts in presentation order (owned by the rels) */
    size_t n_slides;
    hxi_obuf para;
    hxi_office_table table;
    bool title;            /* the open shape is a title placeholder */
    int skip_shape;        /* depth of an open shape left out (notes' non-body placeholders) */
    int depth, shape_depth;
    bool in_t, notes;
} pptx;

static int pres_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    pptx *p = ctx;
    const hxi_xml_attr *id = hxi_office_attr(a, n, "id");
    if (!hxi_office_is(name, len, "sldId") || p->n_slides == HX_OFFICE_MAX_PARTS)
        return 0;
    for (size_t i = 0; i < n; i++)   /* r:id, not the numeric id */
        if (a[i].name_len > 3 && hxi_office_is(a[i].name, a[i].name_len, "id") && memchr(a[i].name, ':', a[i].name_len))
            id = &a[i];
    const char *t = id ? hxi_office_rels_target(p->pres_rels, id->value, id->value_len) : NULL;
    if (t)
        p->slides[p->n_slides++] = t;
    return 0;
}

static int slide_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    pptx *p = ctx;
    char v[32];
    p->depth++;
    if (hxi_office_is(name, len, "sp") || hxi_office_is(name, len, "graphicFrame")) {
        p->shape_depth = p->depth;
        p->title = false;
    } else if (hxi_office_is(name, len, "ph") && p->shape_depth) {
        bool typed = hxi_office_attr_str(a, n, "type", v, sizeof v);
        p->title = typed && (!strcmp(v, "title") || !strcmp(v, "ctrTitle"));
        if (p->notes && typed && strcmp(v, "body"))
            p->skip_shape = p->shape_depth;
    } else if (hxi_office_is(name, len, "p")) {
        p->para.len = 0;
    } else if (hxi_office_is(name, len, "t")) {
        p->in_t = true;
    } else if (hxi_office_is(name, len, "br")) {
        return hxi_obuf_put(&p->para, " ", 1, p->err);
    } else if (hxi_office_is(name, len, "tbl")) {
        hxi_office_table_start(&p->table, HX_OFFICE_TABLE);
    } else if (hxi_office_is(name, len, "tr")) {
        hxi_office_table_start(&p->table, HX_OFFICE_ROW);
    } else if (hxi_office_is(name, len, "tc")) {
        hxi_office_table_start(&p->table, HX_OFFICE_CELL);
    }
    return 0;
}

static int slide_end(void *ctx, const char *name, size_t len)
{
    pptx *p = ctx;
    int rc = 0;
    const char *s = p->para.s ? p->para.s : "";
    if (p->skip_shape) {
        if (p->depth == p->skip_shape)
            p->skip_shape = 0;
    } else if (hxi_office_is(name, len, "t")) {
        p->in_t = false;
    } else if (hxi_office_is(name, len, "p") && p->para.len) {
        if (p->table.depth)
            rc = hxi_office_table_para(&p->table, s, p->para.len, p->err);
        else if (p->title)
            rc = hxi_x_heading(p->x, 1, s, p->para.len, p->err);
        else
            rc = hxi_office_prose(p->x, s, p->para.len, p->err);
    } else if (hxi_office_is(name, len, "tr")) {
        rc = hxi_office_table_end(&p->table, HX_OFFICE_ROW, p->x, p->err);
    } else if (hxi_office_is(name, len, "tbl")) {
        hxi_office_table_end(&p->table, HX_OFFICE_TABLE, p->x, p->err);
    }
    if (p->depth == p->shape_depth)
        p->shape_depth = 0;
    p->depth--;
    return rc;
}

static int slide_text(void *ctx, const char *s, size_t len, int raw)
{
    pptx *p = ctx;
    return p->in_t && !p->skip_shape ? hxi_obuf_xml(&p->para, s, len, raw, p->err) : 0;
}

static int extract_pptx(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    hxi_office_ooxml pkg;
    int rc = hxi_office_ooxml_open(&pkg, raw, len, "ppt/presentation.xml", x, err);
    if (rc)
        return rc;
    hxi_zip *z = &pkg.zip;
    pptx p = {.x = x, .err = err, .pres_rels = &pkg.rels};
    if (!(p.slides = hx_calloc(HX_OFFICE_MAX_PARTS, sizeof *p.slides)))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for the slide list");
    hxi_xml_handler ph = {&p, pres_start, NULL, NULL};
    if (!rc)
        rc = hxi_office_parse(z, pkg.main, &ph, err);
    hxi_xml_handler h = {&p, slide_start, slide_end, slide_text};
    for (size_t i = 0; !rc && i < p.n_slides; i++) {
        if (!hxi_zip_find(z, p.slides[i]))
            continue;
        hxi_x_source(x, (uint32_t)i + 1, (uint32_t)i + 1);
        p.notes = false;
        p.depth = p.shape_depth = p.skip_shape = p.table.depth = 0;
        rc = hxi_office_parse(z, p.slides[i], &h, err);
        hxi_office_rels srels;
        if (!rc && !(rc = hxi_office_rels_read(z, p.slides[i], &srels, err))) {
            const char *notes = hxi_office_rels_by_type(&srels, "/notesSlide");
            p.notes = true;
            p.depth = p.shape_depth = p.skip_shape = p.table.depth = 0;
            if (notes && hxi_zip_find(z, notes))
                rc = hxi_office_parse(z, notes, &h, err);
            hxi_office_rels_free(&srels);
        }
    }
    if (!rc)
        rc = hxi_x_meta_uint(x, "page_count", p.n_slides, err);
    if (!rc)
        rc = hxi_x_finish(x, err);
    free(p.slides);
    free(p.para.s);
    free(p.table.row.s);
    hxi_office_ooxml_close(&pkg);
    return rc;
}

static bool sniff_pptx(const uint8_t *raw, size_t len)
{
    return hxi_office_sniff_part(raw, len, "ppt/presentation.xml");
}

static const char *const pptx_exts[] = {"pptx", "pptm", "potx", NULL};

const hxi_doctype hxi_doctype_pptx = {
    .name = "pptx", .exts = pptx_exts, .sniff = sniff_pptx, .extract = extract_pptx, .chunk = HX_CHUNK_BLOCKS,
    .unit = HX_UNIT_PAGE,
    .binary = true,
};
