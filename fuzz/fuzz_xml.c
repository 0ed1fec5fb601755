/* fuzz_xml.c: libFuzzer target for the XML well-formedness check (src/text/xml.c) and the YAML
 * structural check (src/text/yaml.c hxi_yaml_check), both fed the same bytes: each must answer 0
 * or a documented code with a message and an offset inside the input, never crash or read past
 * it. Corpus: fuzz/corpus/xml/. */
#include "xml.h"
#include "yaml.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!s)
        return 0;
    memcpy(s, data, size);
    hx_error err = {0};
    int rc = hxi_xml_check(s, size, &err);
    if (rc && ((rc != HX_EPARSE && rc != HX_EDEPTH) || err.code != rc || !err.message[0] || err.offset < 0 ||
               (size_t)err.offset > size))
        abort();
    memset(&err, 0, sizeof err);
    rc = hxi_yaml_check(s, size, &err);
    if (rc && ((rc != HX_EPARSE && rc != HX_EDEPTH && rc != HX_ERANGE) || err.code != rc || !err.message[0] ||
               err.offset < 0 || (size_t)err.offset > size))
        abort();
    free(s);
    return 0;
}
