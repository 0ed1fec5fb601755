/* fuzz_html.c: libFuzzer target for the HTML extractor (src/formats/html.c) and the extraction
 * builder it writes through (doctype.c): the html row's extractor on the bytes, whatever they
 * hold, must give text that is valid UTF-8 without NUL within the growth bound, blocks inside the
 * text in order and heading indexes inside the table, or fail with HX_EFORMAT (a NUL byte, an
 * unsupported charset) or HX_ERANGE and a message; then the whole of ingest (detection by content,
 * describing) on the same bytes named f.html. Never a crash, a read past the input or a leak.
 * Corpus: fuzz/corpus/html/. */
#include "fuzz_extract.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *s = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!s)
        return 0;
    memcpy(s, data, size);
    fuzz_check_extract("html", s, size);
    hx_error err = {0};
    hxi_doc_source d;
    if (!hxi_ingest_from_bytes("f.html", s, size, NULL, 0, &d, &err)) {
        fuzz_check_text(d.text, d.text_len);
        if (!d.title)
            abort();
        hxi_doc_source_clear(&d);
    } else if (!err.message[0]) {
        abort();
    }
    free(s);
    return 0;
}
