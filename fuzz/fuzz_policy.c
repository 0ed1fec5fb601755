/* fuzz_policy.c: libFuzzer target for the gate's policy parser and validators (src/ingest/gate.c):
 * the bytes before the first NUL are a policy file, the byte after it picks the document's name
 * (and so its type and validators: markdown, yaml, json, xml, text), the rest is the document.
 * Any policy must parse or be refused with a documented code and a message; any document must
 * get a verdict (a rule and a reason, or none) without a crash. Corpus: fuzz/corpus/policy/. */
#include "gate.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"d/x.md", "d/x.yaml", "d/x.json", "d/x.xml", "d/x.txt", "x.svg"};
    const uint8_t *nul = memchr(data, 0, size);
    size_t plen = nul ? (size_t)(nul - data) : size;
    ix_policy *p = NULL;
    hx_error err = {0};
    int rc = ix_policy_parse((const char *)data, plen, NULL, &p, &err);
    if (rc && rc != HX_EPARSE && rc != HX_ERANGE && rc != HX_ENOMEM)
        abort();
    if (rc && (err.code != rc || !err.message[0]))
        abort();
    if (rc || !nul || plen + 1 >= size) {
        ix_policy_free(p);
        return 0;
    }
    const uint8_t *doc = nul + 2;
    size_t dlen = size - plen - 2;
    hx_trust *t = NULL;
    ix_gate *g = NULL;
    hxi_doc_source d;
    if (hxi_trust_new(&t, NULL) || ix_gate_new(&g, "/nonexistent-fuzz-root", p, t, NULL))
        return 0;
    if (!hxi_ingest_from_bytes(names[nul[1] % 6], doc, dlen, NULL, 0, &d, NULL)) {
        ix_verdict v;
        rc = ix_gate_check(g, &d, doc, dlen, NULL, 0, &v, &err);
        if (rc && rc != HX_ENOMEM)
            abort();
        if (!rc && v.rule && !v.reason[0])
            abort();
        hxi_doc_source_clear(&d);
    }
    ix_gate_free(g);
    return 0;
}
