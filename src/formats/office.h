/* office.h: what the extractors of ZIP-based document formats share (docx.c, pptx.c, xlsx.c,
 * odf.c, epub.c): the archive under the document limits, parts read as XML events, names matched
 * by their local part (any namespace prefix), attribute values decoded, a text buffer for the runs
 * of a paragraph, Dublin Core style properties into metadata, and package paths (OOXML
 * relationships, EPUB hrefs) resolved as strings inside the archive, never as file paths.
 * Spec: ECMA-376 Part 2 (Open Packaging Conventions), OASIS ODF 1.3 Part 2 (packages), EPUB 3.3
 * (OCF). */
#ifndef HX_OFFICE_H
#define HX_OFFICE_H

#include "doctype.h"
#include "xml.h"
#include "zip.h"

#include <stdbool.h>

#define HX_OFFICE_MAX_PARTS 4096   /* slides, sheets or chapters read from one package */

/* A growing UTF-8 string; owned by whoever holds it, freed with free(b->s). */
typedef struct hxi_obuf {
    char *s;
    size_t len, cap;
} hxi_obuf;

int hxi_obuf_put(hxi_obuf *b, const char *s, size_t n, hx_error *err);
/* Appends XML text (references decoded unless raw). */
int hxi_obuf_xml(hxi_obuf *b, const char *s, size_t n, int raw, hx_error *err);

/* Opens the package raw[0..len) (borrowed) with hxi_zip's default limits. A file that is not a ZIP
 * archive is refused with HX_EFORMAT and the reason. The text stays within the contract's bound
 * (HX_INGEST_MAX_GROWTH times the package's bytes, which the index checks): a package whose text
 * grows past it is refused by the builder. */
int hxi_office_open(hxi_zip *z, const uint8_t *raw, size_t len, hx_error *err);

/* Reads the entry `name` as text (a UTF-8 BOM dropped): *xml NUL-terminated, caller frees.
 * HX_ENOTFOUND (err filled) when the archive has no such entry. */
int hxi_office_part(hxi_zip *z, const char *name, char **xml, size_t *len, hx_error *err);
/* hxi_office_part, then hxi_xml_parse with h; a malformed part is HX_EFORMAT naming the part. */
int hxi_office_parse(hxi_zip *z, const char *name, const hxi_xml_handler *h, hx_error *err);

/* Whether the element or attribute name[0..len) has the local part `local` (after any prefix). */
bool hxi_office_is(const char *name, size_t len, const char *local);
/* The attribute with local part `local`, or NULL. */
const hxi_xml_attr *hxi_office_attr(const hxi_xml_attr *a, size_t n, const char *local);
/* The decoded value of that attribute into buf (cut to cap - 1 bytes, NUL-terminated); false when
 * there is none. */
bool hxi_office_attr_str(const hxi_xml_attr *a, size_t n, const char *local, char *buf, size_t cap);

/* Adds s[0..n) as a paragraph of prose: a block of its own. */
int hxi_office_prose(hxi_extract *x, const char *s, size_t n, hx_error *err);

/* The rows of a document's tables, each a prose block with its cells' text separated by " | "
 * (paragraphs within one cell by " "). Only the outermost table has rows and cells: a nested
 * table's text joins the open cell. Zero-initialised; free with free(t->row.s). */
typedef struct hxi_office_table {
    hxi_obuf row;     /* the open row's text */
    int depth;       /* tables open */
    size_t cell_at;  /* where the open cell's text starts in row */
} hxi_office_table;
typedef enum { HX_OFFICE_TABLE, HX_OFFICE_ROW, HX_OFFICE_CELL } hxi_office_tpart;
/* A table, row or cell element opens. */
void hxi_office_table_start(hxi_office_table *t, hxi_office_tpart part);
/* One closes: the end of an outermost row adds the row to x (a row with no text adds nothing). */
int hxi_office_table_end(hxi_office_table *t, hxi_office_tpart part, hxi_extract *x, hx_error *err);
/* A paragraph of the open cell (an empty one adds nothing). */
int hxi_office_table_para(hxi_office_table *t, const char *s, size_t n, hx_error *err);

/* Reads the properties part `name` (docProps/core.xml, meta.xml, an EPUB package document) and
 * adds its Dublin Core and ODF properties to x's metadata: title (also x's title), creator and
 * initial-creator as author, created / date as date, modified, language, description, subject and
 * keywords as keywords; the page count the writer recorded (docProps/app.xml's Pages, meta.xml's
 * meta:page-count) as page_count. A missing part adds nothing. */
int hxi_office_properties(hxi_zip *z, const char *name, hxi_extract *x, hx_error *err);

/* List number v in a list format into out (NUL-terminated, cut to cap): '1' decimal, '0' decimal
 * with a leading zero below 10, 'a' / 'A' letters (27 is "aa", 28 "bb", as Word and LibreOffice
 * write them), 'i' / 'I' roman numbers (1..3999; others decimal). The one rule of DOCX and ODF list
 * labels. */
void hxi_office_list_number(int v, char format, char *out, size_t cap);

/* Resolves href (relative to the folder of the part `base`, or absolute from the package root
 * when it starts with '/') into out: "." and ".." segments folded (never above the root),
 * %XX decoded, a #fragment dropped. false when it does not fit in cap bytes. */
bool hxi_office_resolve(const char *base, const char *href, char *out, size_t cap);

/* The relationships of an OOXML part: reads the .rels part beside `part` (folder/_rels/file.rels)
 * and resolves each internal Target against `part`. Everything is owned by the hxi_office_rels;
 * free with hxi_office_rels_free. A missing .rels part is empty. */
typedef struct hxi_office_rel {
    char *id, *target, *type;
} hxi_office_rel;
typedef struct hxi_office_rels {
    hxi_office_rel *items;
    size_t n, cap;
} hxi_office_rels;
int hxi_office_rels_read(hxi_zip *z, const char *part, hxi_office_rels *r, hx_error *err);
/* The target of relationship id[0..len) (or, with type_suffix, of the first whose type ends so),
 * or NULL. */
const char *hxi_office_rels_target(const hxi_office_rels *r, const char *id, size_t len);
const char *hxi_office_rels_by_type(const hxi_office_rels *r, const char *type_suffix);
void hxi_office_rels_free(hxi_office_rels *r);

/* An OOXML package (DOCX, PPTX, XLSX) opened for reading: the archive, its package relationships
 * and the main part they name as the office document (else `main_default`) with that part's
 * relationships; docProps/core.xml's properties are added to x. On failure nothing is left open;
 * else close with hxi_office_ooxml_close. */
typedef struct hxi_office_ooxml {
    hxi_zip zip;
    hxi_office_rels root, rels;   /* the package's and the main part's relationships */
    const char *main;            /* the main part's name (borrowed from root or main_default) */
} hxi_office_ooxml;
int hxi_office_ooxml_open(hxi_office_ooxml *p, const uint8_t *raw, size_t len, const char *main_default, hxi_extract *x,
                          hx_error *err);
void hxi_office_ooxml_close(hxi_office_ooxml *p);

/* Detection. A package whose first entry is a stored "mimetype" file holding `mimetype` (ODF,
 * EPUB); a ZIP archive that names the part `part` in its last 256 KiB (OOXML's central
 * directory). */
bool hxi_office_sniff_mimetype(const uint8_t *raw, size_t len, const char *mimetype);
bool hxi_office_sniff_part(const uint8_t *raw, size_t len, const char *part);

#endif
