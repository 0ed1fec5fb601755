/* epub.c: the EPUB row of the table of document types (EPUB 3.3 and 2.0.1: OCF container, package
 * document), through the extraction builder (doctype.h) and office.h. META-INF/container.xml
 * names the package document; its Dublin Core metadata gives title, author, date, language,
 * description and subjects as keywords; its spine gives the chapters in reading order, each an
 * XHTML (or HTML) content document read by the HTML row's extractor (html.c), so headings,
 * lists, tables and entities are read as for any web page. Left out: the navigation document
 * when the spine does not list it, images, fonts, scripts, encrypted (DRM) content (refused). */
#include "office.h"

#include "alloc.h"

#include <stdlib.h>
#include <string.h>

extern const hxi_doctype hxi_doctype_html;

typedef struct {
    char (*ids)[128], (*hrefs)[512], (*types)[64];   /* manifest items */
    size_t n_items;
    char (*spine)[128];
    size_t n_spine;
    char opf[512];         /* the package document's path */
    bool has_opf;
} epub;

static int container_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    epub *e = ctx;
    if (!e->has_opf && hxi_office_is(name, len, "rootfile") && hxi_office_attr_str(a, n, "full-path", e->opf, sizeof e->opf))
        e->has_opf = true;
    return 0;
}

static int opf_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    epub *e = ctx;
    if (hxi_office_is(name, len, "item") && e->n_items < HX_OFFICE_MAX_PARTS) {
        char href[512];
        if (!hxi_office_attr_str(a, n, "id", e->ids[e->n_items], sizeof *e->ids) ||
            !hxi_office_attr_str(a, n, "href", href, sizeof href) ||
            !hxi_office_resolve(e->opf, href, e->hrefs[e->n_items], sizeof *e->hrefs))
            return 0;
        if (!hxi_office_attr_str(a, n, "media-type", e->types[e->n_items], sizeof *e->types))
            e->types[e->n_items][0] = 0;
        e->n_items++;
    } else if (hxi_office_is(name, len, "itemref") && e->n_spine < HX_OFFICE_MAX_PARTS) {
        if (hxi_office_attr_str(a, n, "idref", e->spine[e->n_spine], sizeof *e->spine))
            e->n_spine++;
    }
    return 0;
}

static int extract_epub(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    hxi_zip z;
    int rc = hxi_office_open(&z, raw, len, err);
    if (rc)
        return rc;
    epub *e = hx_calloc(1, sizeof *e);
    if (e) {
        e->ids = hx_malloc(HX_OFFICE_MAX_PARTS * sizeof *e->ids);
        e->hrefs = hx_malloc(HX_OFFICE_MAX_PARTS * sizeof *e->hrefs);
        e->types = hx_malloc(HX_OFFICE_MAX_PARTS * sizeof *e->types);
        e->spine = hx_malloc(HX_OFFICE_MAX_PARTS * sizeof *e->spine);
    }
    if (!e || !e->ids || !e->hrefs || !e->types || !e->spine)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for the EPUB manifest");
    if (!rc && hxi_zip_find(&z, "META-INF/encryption.xml"))
        rc = hx_error_set(err, HX_EFORMAT, -1, "EPUB with encrypted content (DRM) cannot be read");
    hxi_xml_handler ch = {e, container_start, NULL, NULL};
    if (!rc)
        rc = hxi_office_parse(&z, "META-INF/container.xml", &ch, err);
    if (!rc && !e->has_opf)
        rc = hx_error_set(err, HX_EFORMAT, -1, "EPUB container names no package document");
    if (!rc)
        rc = hxi_office_properties(&z, e->opf, x, err);
    hxi_xml_handler oh = {e, opf_start, NULL, NULL};
    if (!rc)
        rc = hxi_office_parse(&z, e->opf, &oh, err);
    for (size_t i = 0; !rc && i < e->n_spine; i++) {
        size_t k = 0;
        while (k < e->n_items && strcmp(e->ids[k], e->spine[i]))
            k++;
        if (k == e->n_items || !strstr(e->types[k], "html"))
            continue;
        char *doc;
        size_t n;
        rc = hxi_office_part(&z, e->hrefs[k], &doc, &n, err);
        if (rc == HX_ENOTFOUND) {
            rc = hxi_x_warn(x, err, "spine item %s is missing from the package", e->hrefs[k]);
            continue;
        }
        if (!rc)
            rc = hxi_doctype_html.extract((const uint8_t *)doc, n, x, err);
        free(doc);
    }
    if (!rc)
        rc = hxi_x_finish(x, err);
    if (e) {
        free(e->ids);
        free(e->hrefs);
        free(e->types);
        free(e->spine);
        free(e);
    }
    hxi_zip_close(&z);
    return rc;
}

static bool sniff_epub(const uint8_t *raw, size_t len)
{
    return hxi_office_sniff_mimetype(raw, len, "application/epub+zip");
}

static const char *const epub_exts[] = {"epub", NULL};

const hxi_doctype hxi_doctype_epub = {
    .name = "epub", .exts = epub_exts, .sniff = sniff_epub, .extract = extract_epub, .chunk = HX_CHUNK_BLOCKS,
    .binary = true,
};
