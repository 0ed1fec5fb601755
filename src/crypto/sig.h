/* sig.h: detached signatures in the formats people already make, verified against a trust store:
 * minisign (`minisign -S`: FILE.minisig, public keys `minisign.pub`) and OpenSSH SSHSIG
 * (`ssh-keygen -Y sign -n hyrax`: FILE.sig, trusted through an allowed_signers file as git does).
 * Ed25519 keys only. Owns parsing and policy of those formats; the arithmetic is ed25519.c, and
 * what to do with an unsigned or rejected document is the caller's (the gate's). Specs: minisign's
 * README ("Signature format"), OpenSSH PROTOCOL.sshsig, ssh-keygen(1) "ALLOWED SIGNERS". */
#ifndef HX_SIG_H
#define HX_SIG_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

/* The namespace an SSH signature must carry (`ssh-keygen -Y sign -n hyrax`). */
#define HX_SIG_NAMESPACE "hyrax"
/* Bounds on what is parsed: a signature file, a public key or allowed_signers file, a comment. */
#define HX_SIG_MAX_FILE (64 * 1024)
#define HX_SIG_MAX_TRUST_FILE (1024 * 1024)
#define HX_SIG_MAX_KEYS 10000

typedef enum hx_sig_format { HX_SIG_NONE = 0, HX_SIG_MINISIGN = 1, HX_SIG_SSH = 2 } hx_sig_format;
const char *hx_sig_format_name(hx_sig_format f);   /* "none", "minisign", "ssh"; static */

/* The signature file names looked for beside a document, in order: NAME + suffix(i) for i = 0, 1
 * (".minisig", ".sig"); NULL past the last. */
const char *hx_sig_suffix(int i);

/* Trusted keys: minisign public keys and allowed_signers lines with ssh-ed25519 keys. Built once,
 * then read-only (any number of threads may verify against it). Caller frees with hx_trust_free. */
typedef struct hx_trust hx_trust;
int hx_trust_new(hx_trust **out, hx_error *err);
void hx_trust_free(hx_trust *t);
size_t hx_trust_count(const hx_trust *t);

/* Adds the minisign public key in text[0..len): a minisign.pub file (an "untrusted comment:" line,
 * then the base64 line) or the base64 line alone. `name` (copied) is the signer's name in results
 * and messages (hx_trust_load uses the file name without .pub). HX_EFORMAT for anything else. */
int hx_trust_add_minisign(hx_trust *t, const char *text, size_t len, const char *name, hx_error *err);

/* Adds the lines of an allowed_signers file: `principals [options] keytype base64-key [comment]`,
 * '#' comments and blank lines skipped. Options: namespaces="p1,p2" (patterns with * and ?, ! to
 * exclude; the line trusts a key only for HX_SIG_NAMESPACE when it matches), cert-authority,
 * valid-after and valid-before (such lines are kept out: hyrax trusts plain keys for all time
 * only, so they fail closed). Lines with other key types are valid and skipped (such keys are
 * never trusted). A malformed line fails the whole file with HX_EPARSE naming origin:line. */
int hx_trust_add_allowed_signers(hx_trust *t, const char *text, size_t len, const char *origin,
                                 hx_error *err);

/* The project's trust store: every ROOT/.hyrax/trusted/NAME.pub (minisign keys, in name order) and
 * ROOT/.hyrax/allowed_signers, read confined to root without following symbolic links (fsafe.h).
 * Both are optional: no files gives an empty store, which trusts nothing. */
int hx_trust_load(hx_trust **out, const char *root, hx_error *err);

/* What hx_sig_verify found. Strings are NUL-terminated, truncated to fit, and are bytes from the
 * signature or trust files (print them escaped). */
typedef struct hx_sig_result {
    hx_sig_format format;   /* the signature file's format, HX_SIG_NONE when it was not recognised */
    char signer[256];       /* the trusted key's name: minisign: the name it was added under (an
                               untrusted key: its key id); ssh: the allowed_signers principals */
    char key_id[64];        /* minisign: key id, 16 hex digits as minisign prints it; ssh:
                               "SHA256:..." as ssh-keygen -l prints it; "" when unknown */
    char comment[256];      /* minisign: the trusted comment (covered by the signature) */
    char reason[256];       /* "" when it verified, else why not (the message also in err) */
} hx_sig_result;

/* Verifies the detached signature sig[0..sig_len) (a .minisig or armored SSHSIG file; the format
 * is recognised from its first line) over doc[0..doc_len) against t. Returns 0 when a trusted key
 * signed exactly these bytes; otherwise res->reason and err say why, naming the key:
 *   HX_EFORMAT   not a signature file hyrax reads, malformed, a key type other than Ed25519, an
 *                unknown hash, or a non-canonical signature or key
 *   HX_ERANGE    the signature file is over HX_SIG_MAX_FILE
 *   HX_ENOTFOUND the signing key is not in the trust store
 *   HX_EPERM     the signature does not match the document (changed after signing), the trusted
 *                comment was changed, or the namespace is not HX_SIG_NAMESPACE or not allowed
 * res may be NULL. */
int hx_sig_verify(const hx_trust *t, const void *doc, size_t doc_len, const void *sig, size_t sig_len,
                  hx_sig_result *res, hx_error *err);

#endif
