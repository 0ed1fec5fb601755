/* gate.h: the validation gate (issue 12, seed 000 "validation-gated embedding"). Every document
 * passes it after it is decoded and before it is chunked or embedded, on every way in
 * (hx_index_update and hx_index_add_bytes); a document it rejects is never embedded or
 * searchable, and the writer records the reject in the audit log (audit.h). Owns the policy file
 * (its grammar and its bounded parser), the validators and the deny-pattern language; the
 * signature formats are sig.h's, the audit log audit.h's, and what a reject does to the index is
 * index_write.c's. The policy format is specified here and in `hyrax help policy`.
 *
 * Built-in validators (always on, with or without a policy):
 *   encoding    the file decodes (ingest.h) and, when it fell back to Latin-1, holds no valid
 *               multi-byte UTF-8 sequence (then it is malformed UTF-8, not Latin-1); a policy may
 *               narrow the encodings accepted
 *   control     no control characters in the decoded text but tab, LF, CR and form feed: no other
 *               C0 control, no DEL, no C1 control (U+0080..U+009F), no bidirectional override or
 *               isolate (U+202A..U+202E, U+2066..U+2069: "Trojan Source")
 *   the type's own rule, from its row in the table of document types (doctype.h): for markdown,
 *               front-matter (a "---" front matter is closed) and yaml (it passes hxi_yaml_check);
 *               yaml (alias and nesting limits); json (parses, depth 64); xml (well-formed, xml.h:
 *               no DTD subset, no entity expansion, bounded depth)
 * Read failures found before the gate runs (binary, over the size cap, unreadable) are recorded
 * under the rules "binary", "size" and "read".
 *
 * Policy file ROOT/.hyrax/policy (IX_POLICY_FILE; optional), read at the start of every write:
 *   # comment                        blank lines and '#' lines are skipped
 *   [GLOB]                           a section: its rules apply to documents whose root-relative
 *                                    path matches GLOB (glob.h; "**" for every document); rules
 *                                    before the first section apply to every document
 *   key = value                      one rule; keys:
 *     max_size = N[K|M]              largest document in bytes (K = 1024, M = 1048576)
 *     types = T, ...                 document types allowed: the names in the table of document
 *                                    types (doctype.h; `hyrax help formats`)
 *     encodings = E, ...             utf-8 (with or without BOM), utf-16, latin-1
 *     require = KEY[:TYPE], ...      metadata keys the document must carry (front matter, YAML
 *                                    keys or add_document metadata), TYPE one of text (default),
 *                                    number, date (YYYY-MM-DD, optionally a time after it), bool
 *     deny = PATTERN                 text the document must not contain (one per line, repeatable)
 *     signature = required | none    a detached signature (FILE.minisig or FILE.sig, sig.h) by a
 *                                    key in the project's trust store must cover the bytes
 *     signers = NAME, ...            which trusted keys may sign: a minisign key's name or key id,
 *                                    an SSH principal or key fingerprint (any signer when absent)
 *     tenant = T, owner = U          the document's tenant and owner
 *     visibility = public | tenant | private
 * Every section whose glob matches applies, in file order: deny and require add up, the other
 * keys are replaced by a later matching section. An unknown key, a malformed line or a value out
 * of range fails the whole policy (HX_EPARSE naming the line), and with it the write: a typo never
 * weakens the gate silently. Limits: IX_POLICY_MAX_BYTES, IX_POLICY_MAX_LINE, IX_POLICY_MAX_RULES.
 *
 * Deny patterns: matched case-insensitively (ASCII letters) against the decoded text after
 * zero-width characters and soft hyphens are dropped and each run of white space is read as one
 * space (a run holding a blank line ends a paragraph). In a pattern, white space matches any run
 * of white space within a paragraph and '*' matches any text within the paragraph, the white space
 * beside it included ("exfiltrate * secrets" matches "exfiltrate the secrets" and "exfiltrate
 * secrets"); nothing else is special. At most IX_DENY_MAX_STARS stars and IX_DENY_MAX_BYTES bytes; time linear in the text
 * for each pattern. */
#ifndef HX_GATE_H
#define HX_GATE_H

#include "hyrax.h"
#include "ingest.h"
#include "sig.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IX_POLICY_FILE ".hyrax/policy"
#define IX_POLICY_MAX_BYTES (256 * 1024)
#define IX_POLICY_MAX_LINE 4096
#define IX_POLICY_MAX_RULES 4096          /* sections, deny patterns and required keys together */
#define IX_DENY_MAX_BYTES 256
#define IX_DENY_MAX_STARS 8

/* A parsed policy. Immutable once parsed. Caller frees with ix_policy_free. */
typedef struct ix_policy ix_policy;
/* Parses text[0..len); origin names it in messages ("policy" when NULL). */
int ix_policy_parse(const char *text, size_t len, const char *origin, ix_policy **out, hx_error *err);
void ix_policy_free(ix_policy *p);

/* The gate of one write: the root's policy (none: the built-in validators alone) and trust store.
 * Caller frees with ix_gate_free. */
typedef struct ix_gate ix_gate;
int ix_gate_open(ix_gate **out, const char *root, hx_error *err);
/* A gate from parts (ix_gate_open reads them from the root): takes ownership of policy (may be
 * NULL) and trust, also on failure; signature files are read under root. */
int ix_gate_new(ix_gate **out, const char *root, ix_policy *policy, hx_trust *trust, hx_error *err);
void ix_gate_free(ix_gate *g);
/* Whether the root has a policy file (then every update re-reads and re-checks every file: a
 * changed policy or trust store applies at once). */
bool ix_gate_has_policy(const ix_gate *g);

/* What the gate decided about one document. */
typedef struct ix_verdict {
    const char *rule;          /* static rule name (see above; "deny", "metadata", "type",
                                  "signature", "trust" for policy rules); NULL: it passed */
    char reason[512];          /* why, naming the rule's value (the pattern, the key, the signer) */
    char signer[256];          /* passed with a signature: trust.signer (minisign: the key id;
                                  SSH: the principals); "" when unsigned */
    hx_doc_trust trust;        /* passed: the document's trust, its own keys (trust.h
                                  ix_trust_from_meta) under the policy's tenant, owner and
                                  visibility (the policy wins; a document whose own key says
                                  otherwise is refused by rule "trust"). Strings borrow doc's
                                  metadata or the gate's policy; signer is "" (the caller keeps
                                  a copy of `signer` and points trust.signer at it) */
} ix_verdict;

/* Runs every validator and the matching policy rules over doc (decoded by ingest; raw[0..raw_len)
 * are the bytes it came from). A signature, when the policy wants one, is sig[0..sig_len) when
 * sig is not NULL (add_document's argument), else read from root/PATH.minisig or root/PATH.sig.
 * Returns 0 with v->rule NULL (passed) or set (rejected); a negative code only when the check
 * itself failed (out of memory). */
int ix_gate_check(const ix_gate *g, const hxi_doc_source *doc, const uint8_t *raw, size_t raw_len,
                  const char *sig, size_t sig_len, ix_verdict *v, hx_error *err);

/* Whether a file is a signature or key file, which is never indexed as a document: *.minisig,
 * *.sig, *.pub and allowed_signers (by the last path component). */
bool ix_gate_is_signature_file(const char *path);

#endif
