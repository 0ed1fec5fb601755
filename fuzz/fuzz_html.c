/* fuzz_html.c: libFuzzer target for the HTML extractor (src/formats/html.c) and the extraction
 * builder it writes through (doctype.c): the html row's extractor on the bytes, whatever they
 * hold, must give text that is valid UTF-8 without NUL within the growth bound, blocks inside the
 * text in order and heading indexes inside the table, or fail with HX_EFORMAT (a NUL byte, an
 * unsupported charset) or HX_ERANGE and a message; then the whole of ingest (detection by content,
 * describing) on the same bytes named f.html. Never a crash, a read past the input or a leak.
 * Corpus: fuzz/corpus/html/. */
#include "ingest.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

static void check_text(const char *s, size_t n)
{
    size_t pos = 0;
    uint32_t cp;
    if (strlen(s) != n)
        abort();
    while (pos < n)
        if (!hxi_utf8_next(s, n, &pos, &cp))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *s = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!s)
        return 0;
    memcpy(s, data, size);
    hxi_extract x;
    hx_error err = {0};
    if (!hxi_extract_init(&x, size, &err)) {
        int rc = hxi_doctype_find("html", 4)->extract(s, size, &x, &err);
        if (rc && ((rc != HX_EFORMAT && rc != HX_ERANGE) || err.code != rc || !err.message[0]))
            abort();
        if (!rc) {
            check_text(x.text, x.len);
            if (x.len > size * HX_INGEST_MAX_GROWTH)
                abort();
            for (size_t i = 0; i < x.n_blocks; i++)
                if (x.blocks[i].start > x.blocks[i].end || x.blocks[i].end > x.len ||
                    x.blocks[i].heading >= x.n_headings || (i && x.blocks[i].start < x.blocks[i - 1].end))
                    abort();
        }
        hxi_extract_clear(&x);
    }
    hxi_doc_source d;
    memset(&err, 0, sizeof err);
    if (!hxi_ingest_from_bytes("f.html", s, size, NULL, 0, &d, &err)) {
        check_text(d.text, d.text_len);
        if (!d.title)
            abort();
        hxi_doc_source_clear(&d);
    } else if (!err.message[0]) {
        abort();
    }
    free(s);
    return 0;
}
