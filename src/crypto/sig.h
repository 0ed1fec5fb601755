/* sig.h: detached signatures in the formats people already make, verified against a trust store:
 * minisign (`minisign -S`: FILE.minisig, public keys `minisign.pub`) and OpenSSH SSHSIG
 * (`ssh-keygen -Y sign -n hyrax`: FILE.sig, trusted through an allowed_signers file as git does).
 * Ed25519 keys only. Owns parsing and policy of those formats; the arithmetic is ed25519.c, and
 * what to do with an unsigned or rejected document is the caller's (the gate's). Specs: minisign's
 * `hyrax help signatures`, OpenSSH PROTOCOL.sshsig, ssh-keygen(1) "ALLOWED SIGNERS". */
#ifndef HX_SIG_H
#define HX_SIG_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

/* The namespace an SSH signature must carry (`ssh-keygen -Y sign -n hyrax`). */
#define HX_SIG_NAMESPACE "hyrax"
/* Bounds on what is parsed: a public key or allowed_signers file, a comment (a signature file:
 * HX_SIG_MAX_FILE, hyrax.h). */
#define HX_SIG_MAX_TRUST_FILE (1024 * 1024)
#define HX_SIG_MAX_KEYS 10000

/* The formats, hx_sig_format_name, hx_sig_suffix, the trust store's type (hx_trust), hx_trust_load,
 * hx_trust_free, hx_sig_result and hx_sig_verify are public: hyrax.h "Signatures". */

/* An empty trust store, to add keys to; the keys it holds. */
int hxi_trust_new(hx_trust **out, hx_error *err);
size_t hxi_trust_count(const hx_trust *t);

/* Adds the minisign public key in text[0..len): a minisign.pub file (an "untrusted comment:" line,
 * then the base64 line) or the base64 line alone. `name` (copied) is the signer's name in results
 * and messages (hx_trust_load uses the file name without .pub). HX_EFORMAT for anything else. */
int hxi_trust_add_minisign(hx_trust *t, const char *text, size_t len, const char *name, hx_error *err);

/* Adds the lines of an allowed_signers file: `principals [options] keytype base64-key [comment]`,
 * '#' comments and blank lines skipped. Options: namespaces="p1,p2" (patterns with * and ?, ! to
 * exclude; the line trusts a key only for HX_SIG_NAMESPACE when it matches), cert-authority,
 * valid-after and valid-before (such lines are kept out: hyrax trusts plain keys for all time
 * only, so they fail closed). Lines with other key types are valid and skipped (such keys are
 * never trusted). A malformed line fails the whole file with HX_EPARSE naming origin:line. */
int hxi_trust_add_allowed_signers(hx_trust *t, const char *text, size_t len, const char *origin,
                                  hx_error *err);


#endif
