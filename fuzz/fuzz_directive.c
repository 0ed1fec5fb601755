/* fuzz_directive.c: libFuzzer target for Kiwi directives (src/formats/directive.c, kiwi.c): the
 * directive row's extractor on the bytes, whatever they hold, must give text that is valid UTF-8
 * without NUL within the growth bound, blocks inside the text in order with heading indexes inside
 * the table, or fail with a code and a message; then the whole of ingest on the same bytes named
 * .ai/directives/f.md (detection with its folder, front matter, the item type, a script's header
 * rules through the folder's siblings) and the row's gate check, which either passes or names a
 * rule and a reason. Never a crash, a read past the input or a leak. Corpus: fuzz/corpus/directive/. */
#include "fuzz_extract.h"

#include <stdlib.h>
#include <string.h>

static void check_doc(const char *name, const uint8_t *s, size_t size)
{
    hxi_doc_source d;
    hx_error err = {0};
    if (hxi_ingest_from_bytes(name, s, size, NULL, 0, &d, &err)) {
        if (!err.message[0])
            abort();
        return;
    }
    fuzz_check_text(d.text, d.text_len);
    for (size_t i = 0; i < d.n_blocks; i++)
        if (d.blocks[i].end > d.text_len || d.blocks[i].heading >= d.n_headings)
            abort();
    const char *rule = NULL;
    char why[512] = "";
    if (d.dt->check && (d.dt->check(&d, &rule, why, sizeof why, &err) || (rule && !why[0])))
        abort();
    hxi_doc_source_clear(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *s = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!s)
        return 0;
    memcpy(s, data, size);
    fuzz_check_extract("directive", s, size);
    check_doc(".ai/directives/f.md", s, size);
    check_doc(".ai/scripts/f.py", s, size);
    free(s);
    return 0;
}
