/* test_sig.c: minisign and OpenSSH signature files (src/crypto/sig.h) made by the real minisign and
 * ssh-keygen (tests/data/sig/, written by tools/gen_sig_fixtures.sh): good ones verify and name the
 * signer as the tools do; changed documents, changed trusted comments, untrusted keys, other
 * namespaces, RSA keys and malformed files are refused with the reason. When minisign and
 * ssh-keygen are installed (CI installs them) fresh keys and signatures are made and verified too;
 * `hyrax verify FILE` ($HYRAX_BIN) prints the signer or the reason. */
#include "alloc.h"
#include "check.h"
#include "sig.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR "tests/data/sig/"

static char *load(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, DIR "%s", name);
    char *b = check_read_file(path, len);
    CHECK(b != NULL, "read %s", path);
    if (!b) {
        *len = 0;
        return calloc(1, 1);
    }
    return b;
}

/* Verifies fixture doc against fixture sig; returns the code, result in *res. */
static int verify(const hx_trust *t, const char *doc, const char *sig, hx_sig_result *res)
{
    size_t dl, sl;
    char *d = load(doc, &dl), *s = load(sig, &sl);
    int rc = hx_sig_verify(t, d, dl, s, sl, res, NULL);
    free(d);
    free(s);
    return rc;
}

static hx_trust *trust_from(const char *minisign_pub, const char *allowed)
{
    hx_trust *t = NULL;
    size_t len;
    CHECK(hxi_trust_new(&t, NULL) == 0, "hxi_trust_new");
    if (minisign_pub) {
        char *k = load(minisign_pub, &len);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(minisign_pub, "."), minisign_pub);
        CHECK(hxi_trust_add_minisign(t, k, len, name, NULL) == 0, "add %s", minisign_pub);
        free(k);
    }
    if (allowed) {
        hx_error err = {0};
        CHECK(hxi_trust_add_allowed_signers(t, allowed, strlen(allowed), "allowed", &err) == 0,
              "allowed_signers: %s", err.message);
    }
    return t;
}

/* The key id minisign printed into the public key's comment ("minisign public key ID"). */
static void pub_id(const char *pub, char id[17])
{
    size_t len;
    char *k = load(pub, &len);
    char *p = strstr(k, "public key ");
    snprintf(id, 17, "%s", p ? p + 11 : "?");
    free(k);
}

static void test_minisign(void)
{
    hx_trust *t = trust_from("alice.pub", NULL);
    hx_sig_result r;
    char alice[17], mallory[17];
    pub_id("alice.pub", alice);
    pub_id("mallory.pub", mallory);

    CHECK(verify(t, "doc.md", "doc.md.minisig", &r) == 0, "prehashed signature: %s", r.reason);
    CHECK(r.format == HX_SIG_MINISIGN && !strcmp(r.key_id, alice) && !strcmp(r.signer, "alice"),
          "signer %s key %s, want alice key %s", r.signer, r.key_id, alice);
    CHECK(!strcmp(r.comment, "alice signed doc.md") && r.reason[0] == 0, "trusted comment %s", r.comment);
    CHECK(verify(t, "doc.md", "doc_legacy.md.minisig", &r) == 0, "legacy signature: %s", r.reason);
    CHECK(!strcmp(r.comment, "legacy"), "legacy comment %s", r.comment);

    CHECK(verify(t, "doc_tampered.md", "doc.md.minisig", &r) == HX_EPERM && strstr(r.reason, alice) &&
          strstr(r.reason, "does not match"), "changed document: %s", r.reason);
    CHECK(verify(t, "doc_tampered.md", "doc_legacy.md.minisig", &r) == HX_EPERM, "changed document, legacy");
    CHECK(verify(t, "doc.md", "doc_comment.md.minisig", &r) == HX_EPERM && strstr(r.reason, "trusted comment"),
          "changed trusted comment: %s", r.reason);
    CHECK(verify(t, "doc.md", "doc_mallory.md.minisig", &r) == HX_ENOTFOUND && !strcmp(r.signer, mallory) &&
          strstr(r.reason, "not trusted"), "untrusted key %s: %s", mallory, r.reason);
    hx_trust_free(t);

    /* Another trusted key does not help: mallory's key only. */
    t = trust_from("mallory.pub", NULL);
    CHECK(verify(t, "doc.md", "doc.md.minisig", &r) == HX_ENOTFOUND, "alice's signature, mallory trusted");
    CHECK(verify(t, "doc.md", "doc_mallory.md.minisig", &r) == 0 && !strcmp(r.signer, "mallory"),
          "mallory's signature, mallory trusted: %s", r.reason);
    hx_trust_free(t);

    /* Malformed: each line broken in turn, wrong decoded lengths, bad base64, extra text. */
    t = trust_from("alice.pub", NULL);
    size_t len;
    char *good = load("doc.md.minisig", &len);
    const char *doc = "# Signed note\n";
    static const char *const broken[] = {
        "",
        "untrusted comment: x\n",
        "untrusted comment: x\nRUTv0Z8nb8tOxTnP\ntrusted comment: t\nAAAA\n",
        "trusted comment: x\nRUTv\ntrusted comment: t\nAAAA\n",
        "untrusted comment: x\nRUTv0Z8nb8tOxTnPzRqDFIWcIhHfElCN52ey3ad9ZGvuq4NfRFOPSBhumvJAm4AQshiRGGnb1QdGCUOhPanBNGzrq/AOw5mZVw==\ntrusted comment: t\nAAAA\n",
        "untrusted comment: x\nR!Tv0Z8nb8tOxTnPzRqDFIWcIhHfElCN52ey3ad9ZGvuq4NfRFOPSBhumvJAm4AQshiRGGnb1QdGCUOhPanBNGzrq/AOw5mZVwY=\ntrusted comment: t\nAAAA\n",
        "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n",
        "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n",
        "hello\n",
    };
    hx_error err = {0};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        int rc = hx_sig_verify(t, doc, strlen(doc), broken[i], strlen(broken[i]), &r, &err);
        CHECK(rc == HX_EFORMAT && err.code == HX_EFORMAT && r.reason[0], "broken %zu: %d %s", i, rc, r.reason);
    }
    char *extra = malloc(len + 8);
    memcpy(extra, good, len);
    memcpy(extra + len, "more\n", 6);
    CHECK(hx_sig_verify(t, doc, strlen(doc), extra, len + 5, &r, NULL) == HX_EFORMAT, "text after the signature");
    /* Every truncation of a good file is refused or (cut only in the final newline) still verifies. */
    size_t dl;
    char *d = load("doc.md", &dl);
    for (size_t cut = 0; cut < len; cut++) {
        int rc = hx_sig_verify(t, d, dl, good, cut, &r, NULL);
        CHECK(rc == HX_EFORMAT || (cut == len - 1 && rc == 0), "cut at %zu: %d", cut, rc);
    }
    char *huge = calloc(1, HX_SIG_MAX_FILE + 1);
    memcpy(huge, good, len);
    CHECK(hx_sig_verify(t, d, dl, huge, HX_SIG_MAX_FILE + 1, &r, NULL) == HX_ERANGE, "oversized file");
    free(huge);
    free(d);
    free(extra);
    free(good);

    /* Public keys: not base64, wrong length, wrong algorithm, trailing text. */
    static const char *const badkeys[] = {
        "", "untrusted comment: k\n", "RWTv0Z8nb8tOxcw3odB8OnM0OAkJWxrShOnCRH6KY6bM+zJHHjniGk8\n",
        "RWTv0Z8nb8tOxcw3odB8OnM0OAkJWxrShOnCRH6KY6bM+zJHHjniGk8dAA==\n",
        "RVTv0Z8nb8tOxcw3odB8OnM0OAkJWxrShOnCRH6KY6bM+zJHHjniGk8d\n",
        "RWTv0Z8nb8tOxcw3odB8OnM0OAkJWxrShOnCRH6KY6bM+zJHHjniGk8d\nmore\n"};
    for (size_t i = 0; i < sizeof badkeys / sizeof badkeys[0]; i++)
        CHECK(hxi_trust_add_minisign(t, badkeys[i], strlen(badkeys[i]), "k", NULL) == HX_EFORMAT, "bad key %zu", i);
    CHECK(hxi_trust_count(t) == 1, "bad keys add nothing");
    /* A second key under alice's key id (same id bytes, another key) is refused by name. */
    char clash[] = "RWTv0Z8nb8tOxcw3odB8OnM0OAkJWxrShOnCRH6KY6bM+zJHHjniGk8e\n";
    hx_error e2 = {0};
    CHECK(hxi_trust_add_minisign(t, clash, strlen(clash), "eve", &e2) == HX_EFORMAT &&
          strstr(e2.message, "already names another trusted key (alice)"), "key id clash: %s", e2.message);
    size_t al;
    char *again = load("alice.pub", &al);
    CHECK(hxi_trust_add_minisign(t, again, al, "alice2", NULL) == 0, "the same key twice is fine");
    free(again);
    hx_trust_free(t);
}

static void test_ssh(void)
{
    size_t len;
    char *allowed = load("allowed_signers", &len);
    char *fp = load("alice_ssh.fp", &len);
    fp[strcspn(fp, "\n")] = 0;
    hx_trust *t = trust_from(NULL, allowed);
    CHECK(hxi_trust_count(t) == 2, "allowed_signers: 2 ed25519 keys (the RSA line skipped), got %zu",
          hxi_trust_count(t));
    hx_sig_result r;
    CHECK(verify(t, "doc.md", "doc.md.sig", &r) == 0, "ssh sha512: %s", r.reason);
    CHECK(r.format == HX_SIG_SSH && !strcmp(r.signer, "alice@example.com") && !strcmp(r.key_id, fp),
          "ssh signer %s key %s, want %s", r.signer, r.key_id, fp);
    CHECK(verify(t, "doc.md", "doc_sha256.md.sig", &r) == 0, "ssh sha256: %s", r.reason);
    CHECK(verify(t, "doc_tampered.md", "doc.md.sig", &r) == HX_EPERM &&
          strstr(r.reason, "alice@example.com") && strstr(r.reason, "does not match"), "changed: %s", r.reason);
    CHECK(verify(t, "doc_tampered.md", "doc_sha256.md.sig", &r) == HX_EPERM, "changed, sha256");
    CHECK(verify(t, "doc.md", "doc_git.md.sig", &r) == HX_EPERM && strstr(r.reason, "namespace"),
          "namespace git: %s", r.reason);
    CHECK(verify(t, "doc.md", "doc_bob.md.sig", &r) == HX_EPERM && !strcmp(r.signer, "bob@example.com") &&
          strstr(r.reason, "not allowed"), "bob only for git: %s", r.reason);
    CHECK(verify(t, "doc.md", "doc_rsa.md.sig", &r) == HX_EFORMAT && strstr(r.reason, "ssh-rsa is not supported"),
          "rsa: %s", r.reason);
    CHECK(verify(t, "doc.md", "doc.md.minisig", &r) == HX_ENOTFOUND, "minisign file, no minisign keys");
    /* An empty document given as NULL: refused, not undefined (make asan). */
    static const char *const sigs[] = {"doc.md.sig", "doc_sha256.md.sig"};
    for (int i = 0; i < 2; i++) {
        size_t sl;
        char *sg = load(sigs[i], &sl);
        CHECK(hx_sig_verify(t, NULL, 0, sg, sl, &r, NULL) == HX_EPERM, "NULL document, %s", sigs[i]);
        free(sg);
    }
    hx_trust_free(t);

    /* Wrong key: only bob (for every namespace) is trusted. */
    char *bob = strstr(allowed, "bob@example.com");
    char line[300];
    snprintf(line, sizeof line, "bob@example.com %.*s\n", (int)strcspn(strstr(bob, "ssh-ed25519"), "\n"),
             strstr(bob, "ssh-ed25519"));
    t = trust_from(NULL, line);
    CHECK(verify(t, "doc.md", "doc.md.sig", &r) == HX_ENOTFOUND && !strcmp(r.key_id, fp) &&
          strstr(r.reason, fp), "alice untrusted: %s", r.reason);
    CHECK(verify(t, "doc.md", "doc_bob.md.sig", &r) == 0 && !strcmp(r.signer, "bob@example.com"),
          "bob trusted for all namespaces: %s", r.reason);
    hx_trust_free(t);

    /* Namespace patterns (ssh-keygen's match_pattern_list): * and ?, ! excludes. */
    const char *key = strstr(allowed, "ssh-ed25519");
    int klen = (int)strcspn(key, "\n");
    static const struct { const char *ns; int ok; } pats[] = {
        {"hy*", 1}, {"git,hyra?", 1}, {"*,!hyrax", 0}, {"hyraxx", 0}, {"h*x", 1}, {"", 0}};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        snprintf(line, sizeof line, "\"alice@example.com\" namespaces=\"%s\" %.*s\n", pats[i].ns, klen, key);
        t = trust_from(NULL, line);
        int rc = verify(t, "doc.md", "doc.md.sig", &r);
        CHECK(pats[i].ok ? rc == 0 && !strcmp(r.signer, "alice@example.com") : rc == HX_EPERM,
              "namespaces=\"%s\": %d %s", pats[i].ns, rc, r.reason);
        hx_trust_free(t);
    }

    /* allowed_signers lines hyrax refuses as a whole file (the repeated namespaces= too, as
     * ssh-keygen -Y verify does: 'multiple "namespaces" clauses'). */
    const char *badlines[] = {"alice cert-authority %.*s\n", "alice valid-after=\"20200101\" %.*s\n",
                              "alice namespaces=\"git\",namespaces=\"hyrax\" %.*s\n",   /* ssh-keygen: "bad options" */
                              "alice %.*sx\n", "alice\n", "\"alice %.*s\n", "alice ssh-ed25519 AAAA\n",
                              "alice ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIIK7tE63zxwhsnaIexJMy3MqH69/sBQxyn41ZrFUFoZv\n"};
    for (size_t i = 0; i < sizeof badlines / sizeof badlines[0]; i++) {
        snprintf(line, sizeof line, badlines[i], klen, key);
        hx_trust *b = NULL;
        hx_error err = {0};
        hxi_trust_new(&b, NULL);
        CHECK(hxi_trust_add_allowed_signers(b, line, strlen(line), "f", &err) == HX_EPARSE &&
              strstr(err.message, "f:1"), "bad line %zu: %s", i, err.message);
        /* After a good line, the bad one still fails the whole file and adds nothing. */
        char two[700];
        snprintf(two, sizeof two, "ok %.*s\n%s", klen, key, line);
        CHECK(hxi_trust_add_allowed_signers(b, two, strlen(two), "f", &err) == HX_EPARSE &&
              strstr(err.message, "f:2") && hxi_trust_count(b) == 0, "bad line %zu second: %s", i, err.message);
        hx_trust_free(b);
    }
    free(allowed);
    free(fp);
}

/* hx_trust_load: ROOT/.hyrax/trusted/ *.pub and ROOT/.hyrax/allowed_signers, no symlinks. */
static void test_load(void)
{
    char root[] = "/tmp/hxi_sig_XXXXXX";
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    hx_trust *t = NULL;
    CHECK(hx_trust_load(&t, root, NULL) == 0 && hxi_trust_count(t) == 0, "no files: empty store");
    hx_trust_free(t);
    size_t len;
    char *k = load("alice.pub", &len), *a = load("allowed_signers", &len);
    check_put(root, ".hyrax/trusted/alice.pub", k);
    check_put(root, ".hyrax/trusted/notes.txt", "not a key");
    check_put(root, ".hyrax/allowed_signers", a);
    hx_error err = {0};
    CHECK(hx_trust_load(&t, root, &err) == 0 && hxi_trust_count(t) == 3, "loaded: %s", err.message);
    hx_sig_result r;
    CHECK(verify(t, "doc.md", "doc.md.minisig", &r) == 0 && !strcmp(r.signer, "alice"),
          "minisign via the project store, signer named by the file: %s", r.signer);
    CHECK(verify(t, "doc.md", "doc.md.sig", &r) == 0, "ssh via the project store");
    hx_trust_free(t);
    check_put(root, ".hyrax/trusted/zz.pub", "garbage\n");
    CHECK(hx_trust_load(&t, root, &err) == HX_EFORMAT && strstr(err.message, "zz.pub"),
          "a bad key file fails the load: %s", err.message);
    char p[512], target[512];
    snprintf(p, sizeof p, "%s/.hyrax/trusted/zz.pub", root);
    unlink(p);
    snprintf(p, sizeof p, "%s/.hyrax/allowed_signers", root);
    snprintf(target, sizeof target, "%s/elsewhere", root);
    rename(p, target);
    CHECK(symlink(target, p) == 0, "symlink");
    CHECK(hx_trust_load(&t, root, &err) == HX_EPERM, "symlinked allowed_signers refused: %s", err.message);
    free(k);
    free(a);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Fresh keys and signatures from the installed tools, when there are any. */
static void test_fresh(void)
{
    char root[] = "/tmp/hxi_sigf_XXXXXX";
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    char cmd[2048], *out = NULL;
    check_put(root, "doc.txt", "fresh document\nsecond line\n");
    if (check_run("command -v minisign", &out) == 0) {
        free(out);
        snprintf(cmd, sizeof cmd, "cd %s && minisign -G -W -p k.pub -s k.key >/dev/null && "
                 "minisign -S -s k.key -m doc.txt >/dev/null && minisign -S -l -s k.key -m doc.txt -x legacy.minisig >/dev/null",
                 root);
        CHECK(check_run(cmd, &out) == 0, "minisign signs");
        free(out);
        hx_trust *t = NULL;
        CHECK(hx_trust_load(&t, root, NULL) == 0, "empty project store");
        size_t kl, dl, sl, ll;
        char p[600];
        snprintf(p, sizeof p, "%s/k.pub", root);
        char *key = check_read_file(p, &kl);
        snprintf(p, sizeof p, "%s/doc.txt", root);
        char *doc = check_read_file(p, &dl);
        snprintf(p, sizeof p, "%s/doc.txt.minisig", root);
        char *sig = check_read_file(p, &sl);
        snprintf(p, sizeof p, "%s/legacy.minisig", root);
        char *leg = check_read_file(p, &ll);
        hx_sig_result r;
        if (key && doc && sig && leg) {
            CHECK(hx_sig_verify(t, doc, dl, sig, sl, &r, NULL) == HX_ENOTFOUND, "fresh: untrusted");
            CHECK(hxi_trust_add_minisign(t, key, kl, "k", NULL) == 0, "fresh key");
            CHECK(hx_sig_verify(t, doc, dl, sig, sl, &r, NULL) == 0 && !strcmp(r.signer, "k"),
                  "fresh minisign: %s", r.reason);
            CHECK(hx_sig_verify(t, doc, dl, leg, ll, &r, NULL) == 0, "fresh legacy minisign: %s", r.reason);
            doc[0] ^= 1;
            CHECK(hx_sig_verify(t, doc, dl, sig, sl, &r, NULL) == HX_EPERM, "fresh minisign, changed");
        }
        free(key), free(doc), free(sig), free(leg);
        hx_trust_free(t);
    } else {
        free(out);
        printf("test_sig: minisign not installed, fresh minisign signatures skipped\n");
    }
    out = NULL;
    if (check_run("command -v ssh-keygen", &out) == 0) {
        free(out);
        snprintf(cmd, sizeof cmd, "cd %s && ssh-keygen -q -t ed25519 -N '' -C dev@example.com -f id && "
                 "ssh-keygen -q -Y sign -n hyrax -f id doc.txt && mkdir -p .hyrax && "
                 "printf 'dev@example.com namespaces=\"hyrax\" %%s\\n' \"$(cut -d' ' -f1,2 id.pub)\" > .hyrax/allowed_signers",
                 root);
        CHECK(check_run(cmd, &out) == 0, "ssh-keygen signs");
        free(out);
        hx_trust *t = NULL;
        hx_error err = {0};
        CHECK(hx_trust_load(&t, root, &err) == 0 && hxi_trust_count(t) == 1, "fresh store: %s", err.message);
        size_t dl, sl;
        char p[600];
        snprintf(p, sizeof p, "%s/doc.txt", root);
        char *doc = check_read_file(p, &dl);
        snprintf(p, sizeof p, "%s/doc.txt.sig", root);
        char *sig = check_read_file(p, &sl);
        hx_sig_result r;
        if (doc && sig) {
            CHECK(hx_sig_verify(t, doc, dl, sig, sl, &r, NULL) == 0 && !strcmp(r.signer, "dev@example.com"),
                  "fresh ssh: %s", r.reason);
            doc[dl - 1] = '!';
            CHECK(hx_sig_verify(t, doc, dl, sig, sl, &r, NULL) == HX_EPERM, "fresh ssh, changed");
        }
        free(doc), free(sig);
        hx_trust_free(t);
    } else {
        free(out);
        printf("test_sig: ssh-keygen not installed, fresh SSH signatures skipped\n");
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Out of memory (STYLE habit 16): loading a project's trust store and verifying both formats,
 * with each allocation failing in turn, fails with HX_ENOMEM and frees what it took (make asan's
 * LeakSanitizer), and succeeds again afterwards. */
static int oom_run(const char *root)
{
    hx_trust *t = NULL;
    int rc = hx_trust_load(&t, root, NULL);
    if (rc)
        return rc;
    size_t dl, ml, sl;
    char *d = load("doc.md", &dl), *m = load("doc.md.minisig", &ml), *s = load("doc.md.sig", &sl);
    rc = hx_sig_verify(t, d, dl, m, ml, NULL, NULL);
    if (!rc)
        rc = hx_sig_verify(t, d, dl, s, sl, NULL, NULL);
    free(d), free(m), free(s);
    hx_trust_free(t);
    return rc;
}

static void test_oom(void)
{
    char root[] = "/tmp/hxi_sigo_XXXXXX";
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    size_t len;
    char *k = load("alice.pub", &len), *a = load("allowed_signers", &len);
    check_put(root, ".hyrax/trusted/alice.pub", k);
    check_put(root, ".hyrax/allowed_signers", a);
    free(k), free(a);
    hxi_alloc_fail_at(0, 0);
    CHECK(oom_run(root) == 0, "baseline");
    unsigned long count = hxi_alloc_fail_at(0, 0);
    CHECK(count >= 5, "allocations counted: %lu", count);
    for (unsigned long n = 1; n <= count; n++) {
        hxi_alloc_fail_at(n, 0);
        int rc = oom_run(root);
        hxi_alloc_fail_at(0, 0);
        CHECK(rc == HX_ENOMEM, "allocation %lu of %lu failing: %d", n, count, rc);
        CHECK(oom_run(root) == 0, "after allocation %lu failed", n);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0, "cleanup");
}

/* `hyrax verify FILE...` in a project whose .hyrax/ trusts alice (minisign) and allowed_signers. */
static void test_cli(void)
{
    const char *bin = getenv("HYRAX_BIN");
    if (!bin) {
        printf("test_sig: HYRAX_BIN not set, hyrax verify FILE skipped\n");
        return;
    }
    char root[] = "/tmp/hxi_sigc_XXXXXX";
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    static const char *const copies[][2] = {
        {"alice.pub", ".hyrax/trusted/alice.pub"}, {"allowed_signers", ".hyrax/allowed_signers"},
        {"doc.md", "a.md"}, {"doc.md.minisig", "a.md.minisig"}, {"doc.md", "b.md"},
        {"doc.md.sig", "b.md.sig"}, {"doc_tampered.md", "c.md"}, {"doc.md.minisig", "c.md.minisig"},
        {"doc.md", "d.md"}};
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
        size_t len;
        char *b = load(copies[i][0], &len);
        check_put_bytes(root, copies[i][1], b, len);
        free(b);
    }
    char cmd[PATH_MAX + 200], *out = NULL;
    char abs_bin[PATH_MAX];
    CHECK(realpath(bin, abs_bin) != NULL, "HYRAX_BIN %s", bin);
    snprintf(cmd, sizeof cmd, "cd %s && %s verify a.md b.md 2>&1", root, abs_bin);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "a.md: ok, signed by alice (minisign, key ") &&
          strstr(out, "b.md: ok, signed by alice@example.com (ssh, key SHA256:"), "verify good: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && %s verify a.md c.md d.md 2>&1", root, abs_bin);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "c.md: rejected: minisign: signature by alice") &&
          strstr(out, "d.md: not signed"), "verify bad: %s", out);
    free(out);
    /* special files are never waited on or read without end: a FIFO as the signature, /dev/zero
     * as the document (timeout: a hang fails instead of stopping the suite) */
    snprintf(cmd, sizeof cmd, "cd %s && cp a.md e.md && mkfifo e.md.minisig && ln -s /dev/zero f.md && "
             "timeout 20 %s verify e.md f.md 2>&1", root, abs_bin);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "e.md: cannot read its signature e.md.minisig: not a regular file") &&
          strstr(out, "f.md: cannot read: not a regular file"), "verify special files: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    CHECK(!strcmp(hx_sig_suffix(0), ".minisig") && !strcmp(hx_sig_suffix(1), ".sig") && !hx_sig_suffix(2),
          "signature file suffixes");
    test_minisign();
    test_ssh();
    test_load();
    test_fresh();
    test_oom();
    test_cli();
    return check_report("test_sig");
}
