/* fuzz_trust.c: libFuzzer target for trust files (src/crypto/sig.c): the first byte picks a minisign
 * public key (even) or an allowed_signers file (odd), the rest is its text. Any bytes must be
 * added or refused with one of the documented codes and a message; a refused minisign key adds
 * nothing. Corpus: fuzz/corpus/trust/. */
#include "sig.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    hx_trust *t = NULL;
    if (hxi_trust_new(&t, NULL))
        return 0;
    hx_error err = {0};
    const char *text = (const char *)data + 1;
    int rc;
    if (data[0] % 2 == 0) {
        rc = hxi_trust_add_minisign(t, text, size - 1, "key", &err);
        if ((rc == 0) != (hxi_trust_count(t) == 1))
            abort();
        if (rc && rc != HX_EFORMAT && rc != HX_ERANGE && rc != HX_ENOMEM)
            abort();
    } else {
        rc = hxi_trust_add_allowed_signers(t, text, size - 1, "allowed", &err);
        if (rc && rc != HX_EPARSE && rc != HX_ERANGE && rc != HX_ENOMEM)
            abort();
    }
    if (rc && (err.code != rc || !err.message[0]))
        abort();
    hx_trust_free(t);
    return 0;
}
