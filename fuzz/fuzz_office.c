/* fuzz_office.c: libFuzzer target for the extractors of ZIP-based documents (src/formats/docx.c,
 * xlsx.c, pptx.c, odf.c, epub.c over office.c, zip.c, inflate.c and xml.c). The first byte picks
 * the format; with its high bit set the rest is the XML of the format's main part (DOCX's
 * word/document.xml, ODF's content.xml), wrapped here in a stored ZIP entry so the mutations reach
 * the XML handlers past the CRC; else the rest is the package. Each call must give 0 or a code
 * with a message, text within the contract's bound and never crash, hang or read past the input.
 * The seeds are small documents made by pandoc and LibreOffice. Corpus: fuzz/corpus/office/. */
#include "bytes.h"
#include "doctype.h"
#include "zip.h"

#include <stdlib.h>
#include <string.h>

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
    const char *part = data[0] & 0x80 ? (data[0] % 7 == 0 ? "word/document.xml" : "content.xml") : NULL;
    size_t plen = part ? strlen(part) : 0, total = part ? 30 + plen + n + 46 + plen + 22 : n;
    uint8_t *in = malloc(total ? total : 1);   /* an exact-size buffer, so a read past the end is caught */
    if (!in)
        return 0;
    if (part) {   /* one stored entry: local header, data, central directory, end record */
        uint32_t crc = hxi_crc32(0, data + 1, n);
        uint8_t *p = memset(in, 0, total);
        hxf_put32(p, 0x04034b50u);
        hxf_put32(p + 14, crc);
        hxf_put32(p + 18, (uint32_t)n);
        hxf_put32(p + 22, (uint32_t)n);
        p[26] = (uint8_t)plen;
        memcpy(p + 30, part, plen);
        memcpy(p + 30 + plen, data + 1, n);
        uint8_t *c = p + 30 + plen + n;
        hxf_put32(c, 0x02014b50u);
        hxf_put32(c + 16, crc);
        hxf_put32(c + 20, (uint32_t)n);
        hxf_put32(c + 24, (uint32_t)n);
        c[28] = (uint8_t)plen;
        memcpy(c + 46, part, plen);
        uint8_t *e = c + 46 + plen;
        hxf_put32(e, 0x06054b50u);
        e[8] = e[10] = 1;
        hxf_put32(e + 12, (uint32_t)(46 + plen));
        hxf_put32(e + 16, (uint32_t)(30 + plen + n));
        n = total;
    } else {
        memcpy(in, data + 1, n);
    }
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
