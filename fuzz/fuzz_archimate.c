/* fuzz_archimate.c: libFuzzer target for the ArchiMate reader (src/formats/archimate.c over xml.c):
 * the bytes are detected as a file named model.xml (the row's sniff) and then read by the
 * "archimate" row's extractor whatever they are. Each call must give 0 or a code with a message,
 * text within the contract's bound and never crash, hang or read past the input. The seeds are
 * tests/data/archimate's models (Archisurance cut to its elements, relationships and property
 * definitions). Corpus: fuzz/corpus/archimate/. */
#include "doctype.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const hxi_doctype *t = hxi_doctype_find("archimate", 9);
    uint8_t *in = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!t || !in)
        abort();
    memcpy(in, data, size);
    if (!hxi_doctype_detect("model.xml", in, size))
        abort();
    hxi_extract x;
    hx_error err = {0};
    int rc = hxi_extract_init(&x, size, &err);
    if (!rc)
        rc = t->extract(in, size, &x, &err);
    if (rc ? err.code != rc || !err.message[0] : x.len > x.limit || strlen(x.text) != x.len)
        abort();
    hxi_extract_clear(&x);
    free(in);
    return 0;
}
