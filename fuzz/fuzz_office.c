/* fuzz_office.c: libFuzzer target for the extractors of ZIP-based documents (src/formats/docx.c,
 * xlsx.c, pptx.c, odf.c, epub.c over office.c, zip.c, inflate.c and xml.c). The first byte picks
 * the format; with its high bit set the rest is the XML of the format's main part (DOCX's
 * word/document.xml, ODF's content.xml; a DOCX's word/numbering.xml, beside a fixed document of
 * numbered paragraphs, when the byte's 0x40 bit is set too), wrapped here in stored ZIP entries so
 * the mutations reach the XML handlers past the CRC; else the rest is the package. Each call must give 0 or a code
 * with a message, text within the contract's bound and never crash, hang or read past the input.
 * The seeds are small documents made by pandoc and LibreOffice. Corpus: fuzz/corpus/office/. */
#include "bytes.h"
#include "doctype.h"
#include "zip.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A ZIP archive of stored entries names[i] = data[i][0..lens[i]) in an exact-size buffer (caller
 * frees), or NULL. */
static uint8_t *stored_zip(const char *const *names, const uint8_t *const *data, const size_t *lens, size_t count,
                           size_t *total)
{
    size_t local = 0, central = 0;
    for (size_t i = 0; i < count; i++) {
        local += 30 + strlen(names[i]) + lens[i];
        central += 46 + strlen(names[i]);
    }
    *total = local + central + 22;
    uint8_t *p = calloc(1, *total), *c = p + local, *at = p;
    if (!p)
        return NULL;
    for (size_t i = 0; i < count; i++) {   /* local header and data, then its central entry */
        size_t nl = strlen(names[i]);
        uint32_t crc = hxi_crc32(0, data[i], lens[i]);
        hxf_put32(at, 0x04034b50u);
        hxf_put32(at + 14, crc);
        hxf_put32(at + 18, (uint32_t)lens[i]);
        hxf_put32(at + 22, (uint32_t)lens[i]);
        at[26] = (uint8_t)nl;
        memcpy(at + 30, names[i], nl);
        memcpy(at + 30 + nl, data[i], lens[i]);
        hxf_put32(c, 0x02014b50u);
        hxf_put32(c + 16, crc);
        hxf_put32(c + 20, (uint32_t)lens[i]);
        hxf_put32(c + 24, (uint32_t)lens[i]);
        c[28] = (uint8_t)nl;
        hxf_put32(c + 42, (uint32_t)(at - p));
        memcpy(c + 46, names[i], nl);
        at += 30 + nl + lens[i];
        c += 46 + nl;
    }
    hxf_put32(c, 0x06054b50u);
    c[8] = c[10] = (uint8_t)count;
    hxf_put32(c + 12, (uint32_t)central);
    hxf_put32(c + 16, (uint32_t)local);
    return p;
}

/* The fixed parts around a fuzzed word/numbering.xml: paragraphs of three lists at three levels. */
static const char numbered_rels[] =
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"r1\" "
    "Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering\" Target=\"numbering.xml\"/>"
    "</Relationships>";
static const char numbered_doc[] =
    "<w:document xmlns:w=\"w\"><w:body>"
    "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"1\"/></w:numPr></w:pPr><w:r><w:t>a</w:t></w:r></w:p>"
    "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"1\"/><w:numId w:val=\"1\"/></w:numPr></w:pPr><w:r><w:t>b</w:t></w:r></w:p>"
    "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"8\"/><w:numId w:val=\"2\"/></w:numPr></w:pPr><w:r><w:t>c</w:t></w:r></w:p>"
    "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"3\"/></w:numPr></w:pPr><w:r><w:t>d</w:t></w:r></w:p>"
    "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"2\"/><w:numId w:val=\"1\"/></w:numPr></w:pPr><w:r><w:t>e</w:t></w:r></w:p>"
    "</w:body></w:document>";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"};
    if (!size)
        return 0;
    const char *name = formats[data[0] % (sizeof formats / sizeof *formats)];
    const hxi_doctype *t = hxi_doctype_find(name, strlen(name));
    if (!t)
        abort();
    size_t n = size - 1;
    uint8_t *in;
    if (data[0] & 0x80) {   /* the XML of one part, in stored entries so mutations reach its handlers */
        bool docx = data[0] % 7 == 0, numbering = docx && (data[0] & 0x40);
        const char *names[] = {docx ? "word/document.xml" : "content.xml", "word/_rels/document.xml.rels",
                               "word/numbering.xml"};
        const uint8_t *parts[] = {numbering ? (const uint8_t *)numbered_doc : data + 1,
                                  (const uint8_t *)numbered_rels, data + 1};
        size_t lens[] = {numbering ? sizeof numbered_doc - 1 : n, sizeof numbered_rels - 1, n};
        in = stored_zip(names, parts, lens, numbering ? 3 : 1, &n);
    } else {
        in = malloc(n ? n : 1);   /* an exact-size buffer, so a read past the end is caught */
        if (in)
            memcpy(in, data + 1, n);
    }
    if (!in)
        return 0;
    hxi_extract x;
    hx_error err = {0};
    int rc = hxi_extract_init(&x, n, &err);
    if (!rc)
        rc = t->extract(in, n, &x, &err);
    if (rc ? err.code != rc || !err.message[0] : x.len > x.limit || strlen(x.text) != x.len)
        abort();
    hxi_extract_clear(&x);
    free(in);
    return 0;
}
