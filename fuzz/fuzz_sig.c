/* fuzz_sig.c: libFuzzer target for signature files (src/crypto/sig.c, hx_sig_verify), verified over
 * a fixed document against a fixed trust store (tests/data/sig/'s alice minisign key and
 * allowed_signers lines), so the seeds in fuzz/corpus/sig/ (the real tools' files) reach every
 * check. The first input byte picks how the rest is read: 0, a signature file as it is; 1, a raw
 * SSHSIG blob, which the harness armors (so mutations reach the binary parser behind the base64);
 * 2, a raw minisign signature (74 bytes), global signature (64) and trusted comment, which the
 * harness writes out as a .minisig. Any bytes must give one of the documented codes with a reason,
 * and a success must name its signer and key. */
#include "sig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char DOC[] = "# Signed note\n\nThe kube-scheduler places pods on nodes.\n";
static const char KEY[] = "untrusted comment: alice\nRWTv0Z8nb8tOxcw3odB8OnM0OAkJWxrShOnCRH6KY6bM+zJHHjniGk8d\n";
static const char ALLOWED[] =
    "alice@example.com namespaces=\"hyrax,git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIK7tE63zxwhsnaIexJMy3MqH69/sBQxyn41ZrFUFoZv\n"
    "bob@example.com namespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINiRvBEtFsBYZL6WYbkbuwkXUAdj23l2gfBhdRQXlCb3\n";

static size_t b64(const uint8_t *in, size_t len, char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t w = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < len ? in[i + 2] : 0);
        out[o++] = a[w >> 18 & 63];
        out[o++] = a[w >> 12 & 63];
        out[o++] = i + 1 < len ? a[w >> 6 & 63] : '=';
        out[o++] = i + 2 < len ? a[w & 63] : '=';
    }
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hx_trust *t;
    if (!t && (hxi_trust_new(&t, NULL) || hxi_trust_add_minisign(t, KEY, strlen(KEY), "alice", NULL) ||
               hxi_trust_add_allowed_signers(t, ALLOWED, strlen(ALLOWED), "allowed", NULL)))
        abort();
    if (size < 1)
        return 0;
    const uint8_t *in = data + 1;
    size_t n = size - 1, len = 0;
    char *file = malloc(2 * n + 256);
    if (data[0] == 1) {
        len = (size_t)sprintf(file, "-----BEGIN SSH SIGNATURE-----\n");
        len += b64(in, n, file + len);
        len += (size_t)sprintf(file + len, "\n-----END SSH SIGNATURE-----\n");
    } else if (data[0] == 2 && n >= 138) {
        len = (size_t)sprintf(file, "untrusted comment: x\n");
        len += b64(in, 74, file + len);
        len += (size_t)sprintf(file + len, "\ntrusted comment: ");
        memcpy(file + len, in + 138, n - 138);
        len += n - 138;
        file[len++] = '\n';
        len += b64(in + 74, 64, file + len);
        file[len++] = '\n';
    } else {
        memcpy(file, in, n);
        len = n;
    }
    hx_sig_result r;
    hx_error err = {0};
    int rc = hx_sig_verify(t, DOC, strlen(DOC), file, len, &r, &err);
    free(file);
    if (rc == 0) {
        if (!r.signer[0] || !r.key_id[0] || r.reason[0] || r.format == HX_SIG_NONE)
            abort();
    } else if ((rc != HX_EFORMAT && rc != HX_ERANGE && rc != HX_ENOTFOUND && rc != HX_EPERM &&
                rc != HX_ENOMEM) || err.code != rc || !r.reason[0] || strcmp(r.reason, err.message)) {
        abort();
    }
    return 0;
}
