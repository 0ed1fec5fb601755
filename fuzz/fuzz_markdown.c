/* fuzz_markdown.c: libFuzzer target for the Markdown extractor (src/formats/markdown.c): whatever
 * the bytes, hxi_markdown_text must give at most as many bytes as it read and exactly as many line
 * breaks (citations are the file's lines), and finish in time linear in the input; then the whole of ingest on the same bytes named
 * f.md (decoding, the builder, the describer, front matter). Never a crash, a read past the input
 * or a leak. Corpus: fuzz/corpus/markdown/. */
#include "fuzz_extract.h"
#include "markdown.h"

#include <stdlib.h>
#include <string.h>

static size_t breaks(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!s)
        return 0;
    memcpy(s, data, size);
    char *out = NULL;
    size_t n = 0;
    if (!hxi_markdown_text(s, size, &out, &n)) {
        if (n > size || strlen(out) > n || breaks(out, n) != breaks(s, size))
            abort();
        free(out);
    }
    fuzz_check_extract("markdown", (const uint8_t *)s, size);
    hx_error err = {0};
    hxi_doc_source d;
    if (!hxi_ingest_from_bytes("f.md", s, size, NULL, 0, &d, &err)) {
        fuzz_check_text(d.text, d.text_len);
        hxi_doc_source_clear(&d);
    } else if (!err.message[0]) {
        abort();
    }
    free(s);
    return 0;
}
