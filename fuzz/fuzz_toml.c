/* fuzz_toml.c: libFuzzer target for hxi_toml_set_table (src/text/toml.c). Any bytes either are
 * refused with HX_EPARSE or HX_EFORMAT and an offset inside the input, or give a text that holds
 * the table's lines (or NULL: the input holds them already) and that a second call leaves as it
 * is: the edit is idempotent, as `hyrax install` run twice changes nothing. Corpus:
 * fuzz/corpus/toml/. */
#include "toml.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {"command", "args", NULL};
    static const char lines[] = "command = \"/usr/bin/hyrax\"\nargs = [\"serve\", \"--db\", \"/x/.hyrax/index.hyx\"]\n";
    char *out = NULL, *again = NULL;
    size_t n = 0, n2 = 0;
    hx_error err = {0};
    int rc = hxi_toml_set_table((const char *)data, size, "mcp_servers.hyrax", keys, lines, &out, &n, &err);
    if (rc) {
        if (out || err.code != rc || err.offset < 0 || (size_t)err.offset > size || (rc != HX_EPARSE && rc != HX_EFORMAT))
            abort();
        return 0;
    }
    const char *text = out ? out : (const char *)data;
    size_t len = out ? n : size;
    static const char head[] = "[mcp_servers.hyrax]\ncommand = \"/usr/bin/hyrax\"\n";
    if (out && !memmem(out, n, head, sizeof head - 1))
        abort();
    if (hxi_toml_set_table(text, len, "mcp_servers.hyrax", keys, lines, &again, &n2, &err) || again)
        abort();   /* what one call wrote, a second leaves as it is */
    free(out);
    return 0;
}
