/* fuzz_office.c: libFuzzer target for the extractors of ZIP-based documents (src/ingest/docx.c,
 * xlsx.c, pptx.c, odf.c, epub.c over office.c, zip.c, inflate.c and xml.c). The first byte picks
 * the format, the rest is the package. Each call must give 0 or a code with a message, text
 * within the contract's bound and never crash, hang or read past the input. The seeds are small
 * documents made by pandoc and LibreOffice. Corpus: fuzz/corpus/office/. */
#include "doctype.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {"docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"};
    if (!size)
        return 0;
    const char *name = formats[data[0] % (sizeof formats / sizeof *formats)];
    const hx_doctype *t = hx_doctype_find(name, strlen(name));
    if (!t)
        abort();
    size_t n = size - 1;
    uint8_t *in = malloc(n ? n : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!in)
        return 0;
    memcpy(in, data + 1, n);
    hx_extract x;
    hx_error err = {0};
    int rc = hx_extract_init(&x, n, &err);
    if (!rc)
        rc = t->extract(in, n, &x, &err);
    if (rc ? err.code != rc || !err.message[0] : x.len > x.limit || strlen(x.text) != x.len)
        abort();
    hx_extract_clear(&x);
    free(in);
    return 0;
}
