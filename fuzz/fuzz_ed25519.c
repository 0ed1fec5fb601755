/* fuzz_ed25519.c: libFuzzer target for Ed25519 verification (src/crypto/ed25519.c) on hostile
 * encodings: input = signature[64] | public key[32] | message. Any bytes must verify or be refused
 * with HX_EFORMAT or HX_EPERM, never crash; flipping a message bit of a signature that verifies
 * must make it fail. Corpus: fuzz/corpus/ed25519/ (RFC 8032 and libsodium signatures). */
#include "ed25519.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 96)
        return 0;
    hx_error err = {0};
    int rc = hxi_ed25519_verify(data, data + 96, size - 96, data + 64, &err);
    if (rc && ((rc != HX_EFORMAT && rc != HX_EPERM) || err.code != rc))
        abort();
    if (rc == 0 && size > 96) {
        uint8_t *m = malloc(size - 96);
        memcpy(m, data + 96, size - 96);
        m[0] ^= 1;
        if (hxi_ed25519_verify(data, m, size - 96, data + 64, NULL) != HX_EPERM)
            abort();
        free(m);
    }
    return 0;
}
