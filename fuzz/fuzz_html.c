/* fuzz_html.c: libFuzzer target for the HTML extractor (src/ingest/html.c) through ingest's
 * document builder (detection, extraction, the builder's rules in doctype.c, describing): every
 * input either loads, with text that is valid UTF-8 without NUL, blocks inside the text in order
 * and heading indexes inside the table, or fails with HX_EFORMAT (a NUL byte, an unsupported
 * charset) or HX_ERANGE (growth bound) and a message; never a crash, a read past the input or a
 * leak. Corpus: fuzz/corpus/html/. */
#include "ingest.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *s = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!s)
        return 0;
    memcpy(s, data, size);
    hx_doc_source d;
    hx_error err = {0};
    int rc = hx_ingest_from_bytes("f.html", s, size, NULL, 0, &d, &err);
    if (rc) {
        if ((rc != HX_EFORMAT && rc != HX_ERANGE) || err.code != rc || !err.message[0])
            abort();
        free(s);
        return 0;
    }
    if (strcmp(d.type, "html") || !d.title || strlen(d.text) != d.text_len)
        abort();
    size_t pos = 0;
    uint32_t cp;
    while (pos < d.text_len)
        if (!hx_utf8_next(d.text, d.text_len, &pos, &cp))
            abort();
    for (size_t i = 0; i < d.n_blocks; i++)
        if (d.blocks[i].start > d.blocks[i].end || d.blocks[i].end > d.text_len || d.blocks[i].heading >= d.n_headings ||
            (i && d.blocks[i].start < d.blocks[i - 1].end))
            abort();
    hx_doc_source_clear(&d);
    free(s);
    return 0;
}
