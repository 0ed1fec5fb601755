/* fuzz_extract.h: what the fuzz targets of document types check of an extraction (the contract in
 * src/formats/doctype.h): text valid UTF-8 without NUL within the growth bound, blocks inside the
 * text in order with heading indexes inside the table, or a failure with HX_EFORMAT or HX_ERANGE
 * and a message. Included by each target; aborts where the contract is broken. */
#ifndef HX_FUZZ_EXTRACT_H
#define HX_FUZZ_EXTRACT_H

#include "ingest.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

static inline void fuzz_check_text(const char *s, size_t n)
{
    size_t pos = 0;
    uint32_t cp;
    if (strlen(s) != n)
        abort();
    while (pos < n)
        if (!hxi_utf8_next(s, n, &pos, &cp))
            abort();
}

/* Runs the extractor of the row named `type` on s[0..size) and checks what it gives. */
static inline void fuzz_check_extract(const char *type, const uint8_t *s, size_t size)
{
    hxi_extract x;
    hx_error err = {0};
    if (hxi_extract_init(&x, size, &err))
        return;
    int rc = hxi_doctype_find(type, strlen(type))->extract(s, size, &x, &err);
    if (rc && ((rc != HX_EFORMAT && rc != HX_ERANGE) || err.code != rc || !err.message[0]))
        abort();
    if (!rc) {
        fuzz_check_text(x.text, x.len);
        if (x.len > size * HX_INGEST_MAX_GROWTH)
            abort();
        for (size_t i = 0; i < x.n_blocks; i++)
            if (x.blocks[i].start > x.blocks[i].end || x.blocks[i].end > x.len || x.blocks[i].heading >= x.n_headings ||
                (i && x.blocks[i].start < x.blocks[i - 1].end))
                abort();
    }
    hxi_extract_clear(&x);
}

#endif
