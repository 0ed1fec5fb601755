/* fuzz_code.c: libFuzzer target for the code lexers and definition finders (src/formats/code.h)
 * and the code row's extractor (doctype_code.c). The first byte picks a language of the table
 * (or none: a file without a known extension), the rest is the source. The definitions must lie
 * inside the text with parents before children and depths within the cap; the extraction must
 * give blocks inside the text, in order, with heading and unit indexes inside their tables, or
 * fail with a message. Never a crash, a hang, a read past the input or a leak.
 * Corpus: fuzz/corpus/code/. */
#include "code.h"
#include "ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_defs(const hxi_code_lang *l, const char *s, size_t n)
{
    size_t lines = 2;
    for (size_t i = 0; i < n; i++)
        lines += s[i] == '\n';
    uint8_t *marks = calloc(lines, 1);
    hxi_code_defs defs;
    hx_error err = {0};
    if (!marks)
        return;
    if (!hxi_code_definitions(l, s, n, marks, lines, &defs, &err)) {
        for (size_t i = 0; i < defs.n; i++) {
            const hxi_code_def *d = &defs.v[i];
            if ((size_t)d->name + d->name_len > n || (size_t)d->owner + d->owner_len > n || d->parent >= (int32_t)i ||
                d->depth < 1 || d->depth > HXI_CODE_MAX_DEPTH || d->first_line < 1 || d->last_line > lines ||
                d->head_line > d->first_line || (d->parent >= 0 && defs.v[d->parent].depth + 1 != d->depth))
                abort();
        }
        free(defs.v);
    } else if (!err.message[0]) {
        abort();
    }
    free(marks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    size_t n_langs = 0;
    while (hxi_code_lang_at(n_langs))
        n_langs++;
    const hxi_code_lang *l = hxi_code_lang_at(data[0] % (n_langs + 1));
    char name[32];
    snprintf(name, sizeof name, "src/f.%s", l ? l->exts[0] : "txt");
    char *s = malloc(size);   /* an exact-size copy of the source, so a read past the end is caught */
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    if (!memchr(s, 0, size - 1))   /* the finders read decoded text: NUL-free */
        check_defs(l, s, size - 1);
    hxi_doc_source d;
    hx_error err = {0};
    if (!hxi_ingest_from_bytes(name, s, size - 1, NULL, 0, &d, &err)) {
        if (strlen(d.text) != d.text_len || !d.title || d.text_len > (size - 1) * HX_INGEST_MAX_GROWTH + 8)
            abort();
        for (size_t i = 0; i < d.n_blocks; i++)
            if (d.blocks[i].start > d.blocks[i].end || d.blocks[i].end > d.text_len ||
                d.blocks[i].heading >= d.n_headings || (d.n_units && d.blocks[i].unit >= d.n_units) ||
                (i && d.blocks[i].start < d.blocks[i - 1].end))
                abort();
        hxi_doc_source_clear(&d);
    } else if (!err.message[0]) {
        abort();
    }
    free(s);
    return 0;
}
