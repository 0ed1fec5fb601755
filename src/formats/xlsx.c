/* xlsx.c: the XLSX row of the table of document types (Office Open XML spreadsheets, ECMA-376
 * Part 1 section 18), through the extraction builder (doctype.h) and office.h. Sheets in workbook
 * order, each a section named by the sheet; each row a block with its non-empty cells separated
 * by " | ", cell by cell: shared strings, inline strings, formula results as cached, booleans as
 * TRUE/FALSE, numbers as stored (not in their display format); a row's number is its source
 * line (citations say `lines 12-20` for rows 12-20 of the sheet in the heading path);
 * docProps/core.xml gives the properties. Left out: formulas themselves, comments, charts, number formats, phonetic runs. */
#include "office.h"

#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SHEETS 1024

typedef struct {
    hxi_extract *x;
    hx_error *err;
    hxi_obuf strings;       /* shared strings, each NUL-terminated */
    size_t *starts;        /* where each shared string starts in `strings` */
    size_t n_strings, cap_strings;
    int in_si, in_t, in_v, skip;
    hxi_obuf cell;
    hxi_office_table row;   /* a sheet is one table: its open row */
    char type[16];         /* the open cell's t attribute */
    char (*names)[128], (*ids)[128];   /* sheets in workbook order */
    size_t n_sheets;
} xlsx;

/* === workbook.xml === */

static int book_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    xlsx *w = ctx;
    if (hxi_office_is(name, len, "sheet") && w->n_sheets < MAX_SHEETS &&
        hxi_office_attr_str(a, n, "id", w->ids[w->n_sheets], sizeof *w->ids)) {
        if (!hxi_office_attr_str(a, n, "name", w->names[w->n_sheets], sizeof *w->names))
            w->names[w->n_sheets][0] = 0;
        w->n_sheets++;
    }
    return 0;
}

/* === sharedStrings.xml === */

static int sst_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    xlsx *w = ctx;
    (void)a;
    (void)n;
    if (w->skip || hxi_office_is(name, len, "rPh")) {
        w->skip++;
    } else if (hxi_office_is(name, len, "si")) {
        if (hx_grow((void **)&w->starts, &w->cap_strings, w->n_strings + 1, sizeof *w->starts, w->err))
            return HX_ENOMEM;
        w->starts[w->n_strings++] = w->strings.len;
        w->in_si = 1;
    } else if (hxi_office_is(name, len, "t")) {
        w->in_t = 1;
    }
    return 0;
}

static int sst_end(void *ctx, const char *name, size_t len)
{
    xlsx *w = ctx;
    if (w->skip) {
        w->skip--;
    } else if (hxi_office_is(name, len, "si")) {
        w->in_si = 0;
        return hxi_obuf_put(&w->strings, "", 1, w->err);   /* the NUL ending the string */
    } else if (hxi_office_is(name, len, "t")) {
        w->in_t = 0;
    }
    return 0;
}

static int sst_text(void *ctx, const char *s, size_t len, int raw)
{
    xlsx *w = ctx;
    return w->in_si && w->in_t && !w->skip ? hxi_obuf_xml(&w->strings, s, len, raw, w->err) : 0;
}

/* === Sheets === */

static int sheet_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    xlsx *w = ctx;
    char r[16];
    if (hxi_office_is(name, len, "row")) {
        hxi_office_table_start(&w->row, HX_OFFICE_ROW);
        unsigned long at = hxi_office_attr_str(a, n, "r", r, sizeof r) ? strtoul(r, NULL, 10) : 0;
        if (at && at <= UINT32_MAX)   /* citations name the sheet's rows as lines */
            hxi_x_source(w->x, (uint32_t)at, (uint32_t)at);
    } else if (hxi_office_is(name, len, "c")) {
        w->cell.len = 0;
        if (!hxi_office_attr_str(a, n, "t", w->type, sizeof w->type))
            w->type[0] = 0;
    } else if (hxi_office_is(name, len, "v") || hxi_office_is(name, len, "t")) {
        w->in_v = 1;
    } else if (hxi_office_is(name, len, "rPh")) {
        w->skip++;
    }
    return 0;
}

/* The value of a cell, as a cell of the row (an empty one is left out). */
static int put_cell(xlsx *w, const char *s, size_t n)
{
    hxi_office_table_start(&w->row, HX_OFFICE_CELL);
    return hxi_office_table_para(&w->row, s, n, w->err);
}

static int sheet_end(void *ctx, const char *name, size_t len)
{
    xlsx *w = ctx;
    const char *v = w->cell.s ? w->cell.s : "";
    if (hxi_office_is(name, len, "rPh") && w->skip) {
        w->skip--;
    } else if (hxi_office_is(name, len, "v") || hxi_office_is(name, len, "t")) {
        w->in_v = 0;
    } else if (hxi_office_is(name, len, "c")) {
        if (!strcmp(w->type, "s")) {
            char *endp;
            unsigned long i = strtoul(v, &endp, 10);
            if (w->cell.len && !*endp && i < w->n_strings)
                return put_cell(w, w->strings.s + w->starts[i], strlen(w->strings.s + w->starts[i]));
            return 0;
        }
        if (!strcmp(w->type, "b") && w->cell.len)
            return put_cell(w, v[0] == '1' ? "TRUE" : "FALSE", v[0] == '1' ? 4 : 5);
        return put_cell(w, v, w->cell.len);
    } else if (hxi_office_is(name, len, "row")) {
        return hxi_office_table_end(&w->row, HX_OFFICE_ROW, w->x, w->err);
    }
    return 0;
}

static int sheet_text(void *ctx, const char *s, size_t len, int raw)
{
    xlsx *w = ctx;
    return w->in_v && !w->skip ? hxi_obuf_xml(&w->cell, s, len, raw, w->err) : 0;
}

static int extract_xlsx(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    hxi_office_ooxml pkg;
    int rc = hxi_office_ooxml_open(&pkg, raw, len, "xl/workbook.xml", x, err);
    if (rc)
        return rc;
    hxi_zip *z = &pkg.zip;
    xlsx w = {.x = x, .err = err, .row.depth = 1};
    w.names = hx_malloc(MAX_SHEETS * sizeof *w.names);
    w.ids = hx_malloc(MAX_SHEETS * sizeof *w.ids);
    if (!w.names || !w.ids)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for sheet names");
    hxi_xml_handler bh = {&w, book_start, NULL, NULL};
    if (!rc)
        rc = hxi_office_parse(z, pkg.main, &bh, err);
    const char *sst = hxi_office_rels_by_type(&pkg.rels, "/sharedStrings");
    hxi_xml_handler sh = {&w, sst_start, sst_end, sst_text};
    if (!rc && sst && hxi_zip_find(z, sst))
        rc = hxi_office_parse(z, sst, &sh, err);
    hxi_xml_handler h = {&w, sheet_start, sheet_end, sheet_text};
    for (size_t i = 0; !rc && i < w.n_sheets; i++) {
        const char *part = hxi_office_rels_target(&pkg.rels, w.ids[i], strlen(w.ids[i]));
        if (!part || !hxi_zip_find(z, part))
            continue;
        rc = hxi_x_heading(x, 1, w.names[i], strlen(w.names[i]), err);
        w.skip = 0;
        if (!rc)
            rc = hxi_office_parse(z, part, &h, err);
    }
    if (!rc)
        rc = hxi_x_finish(x, err);
    free(w.strings.s);
    free(w.starts);
    free(w.cell.s);
    free(w.row.row.s);
    free(w.names);
    free(w.ids);
    hxi_office_ooxml_close(&pkg);
    return rc;
}

static bool sniff_xlsx(const uint8_t *raw, size_t len)
{
    return hxi_office_sniff_part(raw, len, "xl/workbook.xml");
}

static const char *const xlsx_exts[] = {"xlsx", "xlsm", "xltx", NULL};

const hxi_doctype hxi_doctype_xlsx = {
    .name = "xlsx", .exts = xlsx_exts, .sniff = sniff_xlsx, .extract = extract_xlsx, .chunk = HX_CHUNK_BLOCKS,
    .binary = true,
};
