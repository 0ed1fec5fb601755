/* fuzz_sig.c: libFuzzer target for signature files (src/base/sig.c, hx_sig_verify). The input is
 * a .minisig or armored SSHSIG file, verified over a fixed document against a fixed trust store
 * (tests/data/sig/'s alice minisign key and allowed_signers lines), so the seeds in
 * fuzz/corpus/sig/ (the real tools' files) reach every check. Any bytes must give one of the
 * documented codes with a reason, and a success must name its signer and key. */
#include "sig.h"

#include <stdlib.h>
#include <string.h>

static const char DOC[] = "# Signed note\n\nThe kube-scheduler places pods on nodes.\n";
static const char KEY[] = "untrusted comment: alice\nRWTv0Z8nb8tOxcw3odB8OnM0OAkJWxrShOnCRH6KY6bM+zJHHjniGk8d\n";
static const char ALLOWED[] =
    "alice@example.com namespaces=\"hyrax,git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIK7tE63zxwhsnaIexJMy3MqH69/sBQxyn41ZrFUFoZv\n"
    "bob@example.com namespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINiRvBEtFsBYZL6WYbkbuwkXUAdj23l2gfBhdRQXlCb3\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hx_trust *t;
    if (!t && (hx_trust_new(&t, NULL) || hx_trust_add_minisign(t, KEY, strlen(KEY), "key", NULL) ||
               hx_trust_add_allowed_signers(t, ALLOWED, strlen(ALLOWED), "allowed", NULL)))
        abort();
    hx_sig_result r;
    hx_error err = {0};
    int rc = hx_sig_verify(t, DOC, strlen(DOC), data, size, &r, &err);
    if (rc == 0) {
        if (!r.signer[0] || !r.key_id[0] || r.reason[0] || r.format == HX_SIG_NONE)
            abort();
    } else if ((rc != HX_EFORMAT && rc != HX_ERANGE && rc != HX_ENOTFOUND && rc != HX_EPERM &&
                rc != HX_ENOMEM) || err.code != rc || !r.reason[0] || strcmp(r.reason, err.message)) {
        abort();
    }
    return 0;
}
