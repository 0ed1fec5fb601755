/* test_tenant.c: tenants and visibility (README "Tenants and visibility"). A document's trust
 * attributes come from its own metadata (ix_trust_from_meta: every refusal checked by hand), are
 * stored in the document table (version 4) and kept by updates and compaction, and an index with
 * a version 3 table (tests/data/hxdocs03.hyx, made by hyrax at commit b368c26 from one
 * notes/harbor.md whose front matter says "tenant: acme", "visibility: private", "owner: alice")
 * still opens, its document public with no tenant. */
#include "check.h"
#include "trust.h"

#include "hyrax.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

static char root[PATH_MAX], db[PATH_MAX + 32];
static hx_model *model;
static hx_encoder *enc;

/* === Trust from metadata === */

/* ix_trust_from_meta over pairs given as "key", "value", ..., NULL; *why gets the reason. */
static int trust_of(hx_doc_trust *t, char *why, size_t cap, ...)
{
    hx_kv kv[8];
    size_t n = 0;
    va_list ap;
    va_start(ap, cap);
    for (const char *k; n < 8 && (k = va_arg(ap, const char *));) {
        kv[n].key = (char *)k;
        kv[n++].value = va_arg(ap, char *);
    }
    va_end(ap);
    why[0] = 0;
    return ix_trust_from_meta(kv, n, t, why, cap);
}

static void test_trust_rules(void)
{
    hx_doc_trust t;
    char why[256], long_name[IX_TRUST_VALUE_MAX + 2];
    CHECK(trust_of(&t, why, sizeof why, "title", "x", NULL) == 0 && t.visibility == HX_VIS_PUBLIC &&
              !strcmp(t.tenant, "") && !strcmp(t.owner, "") && !strcmp(t.signer, ""),
          "no keys: public, no tenant: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "tenant", "acme", NULL) == 0 && t.visibility == HX_VIS_PUBLIC &&
              !strcmp(t.tenant, "acme"), "a tenant alone stays public: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "tenant", "acme", "visibility", "tenant", NULL) == 0 &&
              t.visibility == HX_VIS_TENANT && !strcmp(t.tenant, "acme"), "tenant visibility: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "owner", "alice", "visibility", "private", "tenant", "acme", NULL) == 0 &&
              t.visibility == HX_VIS_PRIVATE && !strcmp(t.owner, "alice") && !strcmp(t.tenant, "acme"),
          "private: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "signer", "RWQ-forged", "tenant", "acme", NULL) == 0 && !strcmp(t.signer, ""),
          "signer is never taken from a document: %s", t.signer);
    CHECK(trust_of(&t, why, sizeof why, "visibility", "secret", NULL) == HX_EINVAL && strstr(why, "secret"),
          "unknown visibility: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "visibility", "Public", NULL) == HX_EINVAL, "visibility is lowercase: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "visibility", "private", "owner", "alice", NULL) == HX_EINVAL &&
              strstr(why, "tenant"), "private without a tenant: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "visibility", "private", "tenant", "acme", NULL) == HX_EINVAL &&
              strstr(why, "owner"), "private without an owner: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "visibility", "tenant", NULL) == HX_EINVAL && strstr(why, "tenant"),
          "tenant visibility without a tenant: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "tenant", "acme", "tenant", "globex", NULL) == HX_EINVAL &&
              strstr(why, "more than once"), "two tenants: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "tenant", "acme", "visibility", "tenant", "visibility", "tenant", NULL) ==
              HX_EINVAL, "two visibilities, even equal: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "Visibility", "private", NULL) == HX_EINVAL && strstr(why, "Visibility"),
          "a key in another case is refused, not read as public: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "tenant", "ac\nme", NULL) == HX_EINVAL && strstr(why, "control"),
          "control character: %s", why);
    CHECK(trust_of(&t, why, sizeof why, "owner", "al\x7fice", NULL) == HX_EINVAL, "DEL is a control character");
    CHECK(trust_of(&t, why, sizeof why, "tenant", "", NULL) == HX_EINVAL && strstr(why, "empty"), "empty: %s", why);
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[IX_TRUST_VALUE_MAX] = 0;   /* 128 bytes: the longest allowed */
    CHECK(trust_of(&t, why, sizeof why, "tenant", long_name, NULL) == 0, "128 bytes: %s", why);
    long_name[IX_TRUST_VALUE_MAX] = 'a';
    long_name[IX_TRUST_VALUE_MAX + 1] = 0;   /* 129 bytes */
    CHECK(trust_of(&t, why, sizeof why, "tenant", long_name, NULL) == HX_EINVAL && strstr(why, "128"),
          "129 bytes: %s", why);
}

/* === Storage === */

static hx_index *open_writer(void)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    CHECK(hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err) == 0, "open %s: %s", db,
          err.message);
    return ix;
}

static int update_root(hx_index *ix, hx_update_report *rep)
{
    const char *paths[] = {""};
    hx_update_opts o = {0};
    o.encoder = enc;
    hx_error err = {0};
    int rc = hx_index_update(ix, paths, 1, &o, rep, &err);
    CHECK(rc == 0, "update: %s", err.message);
    return rc;
}

/* Whether the document at path has exactly this trust. */
static bool has_trust(const hx_index *ix, const char *path, hx_visibility vis, const char *tenant, const char *owner)
{
    hx_doc_info d;
    if (hx_index_doc_by_path(ix, path, &d))
        return false;
    return d.trust.visibility == vis && !strcmp(d.trust.tenant, tenant) && !strcmp(d.trust.owner, owner) &&
           !strcmp(d.trust.signer, "");
}

static const char *reason_for(const hx_update_report *rep, const char *path)
{
    for (size_t i = 0; i < rep->n_rejected; i++)
        if (!strcmp(rep->rejected[i].path, path))
            return rep->rejected[i].reason;
    return NULL;
}

/* The four documents of the storage test, checked after every step that rewrites the table. */
static void check_stored_trust(const hx_index *ix, const char *when)
{
    CHECK(has_trust(ix, "pub.md", HX_VIS_PUBLIC, "", ""), "%s: pub.md public", when);
    CHECK(has_trust(ix, "team.md", HX_VIS_TENANT, "acme", ""), "%s: team.md tenant acme", when);
    CHECK(has_trust(ix, "mine.md", HX_VIS_PRIVATE, "acme", "alice"), "%s: mine.md private to alice", when);
    CHECK(has_trust(ix, "notes/stored.md", HX_VIS_PRIVATE, "globex", "bob"), "%s: stored note private to bob",
          when);
}

static void test_storage(void)
{
    check_put(root, "pub.md", "# Public\n\nLighthouse keepers trim the wick at dusk.\n");
    check_put(root, "team.md", "---\ntenant: acme\nvisibility: tenant\n---\n# Team\n\nLighthouse rota for acme.\n");
    check_put(root, "mine.md", "---\ntenant: acme\nvisibility: private\nowner: alice\nsigner: forged\n---\n"
                               "# Mine\n\nAlice keeps the lighthouse log.\n");
    check_put(root, "bad.md", "---\nvisibility: secret\n---\n# Bad\n\nLighthouse secrets.\n");
    hx_index *ix = open_writer();
    if (!ix)
        return;
    hx_update_report rep;
    hx_error err = {0};
    if (update_root(ix, &rep) == 0) {
        const char *why = reason_for(&rep, "bad.md");
        CHECK(rep.added == 3 && why && strstr(why, "secret"), "bad.md is rejected with its reason (added %zu): %s",
              rep.added, why ? why : "not rejected");
        CHECK(hx_index_doc_by_path(ix, "bad.md", &(hx_doc_info){0}) == HX_ENOTFOUND, "a rejected file is not indexed");
    }
    hx_update_report_clear(&rep);
    char k1[] = "tenant", v1[] = "globex", k2[] = "visibility", v2[] = "private", k3[] = "owner", v3[] = "bob";
    hx_kv meta[] = {{k1, v1}, {k2, v2}, {k3, v3}};
    const char *note = "# Stored\n\nBob's lighthouse notes.\n";
    uint32_t id = 0;
    CHECK(hx_index_add_bytes(ix, "notes/stored.md", note, strlen(note), meta, 3, enc, NULL, NULL, &id, &rep, &err) == 0,
          "add_bytes: %s", err.message);
    hx_update_report_clear(&rep);
    const char *bad_note = "---\nvisibility: tenant\n---\nno tenant\n";
    CHECK(hx_index_add_bytes(ix, "notes/bad.md", bad_note, strlen(bad_note), NULL, 0, enc, NULL, NULL, &id, &rep,
                             &err) == HX_EINVAL && strstr(err.message, "needs a tenant") &&
              rep.n_rejected == 1 && !strcmp(rep.rejected[0].path, "notes/bad.md"),
          "add_bytes refuses a bad visibility and lists it: %s", err.message);
    hx_update_report_clear(&rep);
    CHECK(hx_index_doc_by_path(ix, "notes/bad.md", &(hx_doc_info){0}) == HX_ENOTFOUND, "nothing stored");
    check_stored_trust(ix, "after the writes");

    hx_index *r = NULL;
    CHECK(hx_index_open(&r, db, HX_INDEX_READ, model, NULL, &err) == 0, "reader: %s", err.message);
    if (r) {
        check_stored_trust(r, "a reader of the file");
        hx_index_close(r);
    }
    /* an update that changes another file keeps the trust of the unchanged ones */
    check_put(root, "pub.md", "# Public\n\nLighthouse keepers trim the wick at dawn.\n");
    if (update_root(ix, &rep) == 0)
        CHECK(rep.updated == 1 && rep.unchanged == 2, "one changed: updated %zu unchanged %zu", rep.updated,
              rep.unchanged);
    hx_update_report_clear(&rep);
    check_stored_trust(ix, "after an update");
    /* a changed file whose metadata turns bad is taken out, not kept with its old trust */
    check_put(root, "team.md", "---\ntenant: acme\nvisibility: tenant\nvisibility: public\n---\n# Team\n\nRota.\n");
    if (update_root(ix, &rep) == 0)
        CHECK(reason_for(&rep, "team.md") && hx_index_doc_by_path(ix, "team.md", &(hx_doc_info){0}) == HX_ENOTFOUND,
              "team.md with two visibilities is rejected and removed");
    hx_update_report_clear(&rep);
    check_put(root, "team.md", "---\ntenant: acme\nvisibility: tenant\n---\n# Team\n\nLighthouse rota for acme.\n");
    update_root(ix, &rep);
    hx_update_report_clear(&rep);
    CHECK(hx_index_compact(ix, &err) == 0, "compact: %s", err.message);
    check_stored_trust(ix, "after compaction");
    hx_index_close(ix);
    CHECK(hx_index_open(&r, db, HX_INDEX_READ, model, NULL, &err) == 0, "reader: %s", err.message);
    if (r) {
        check_stored_trust(r, "a reader of the compacted file");
        CHECK(hx_index_verify(r, &err) == 0, "verify: %s", err.message);
        hx_index_close(r);
    }
}

/* The version 3 fixture opens; its document is public with no tenant although its metadata names
 * one (the table had no trust fields), and a writer keeps it so while it writes a version 4 table. */
static void test_v3_fixture(void)
{
    char copy[PATH_MAX + 32];
    snprintf(copy, sizeof copy, "%s.v3.hyx", root);
    CHECK(check_copy_file("tests/data/hxdocs03.hyx", copy) == 0, "copy the version 3 fixture");
    hx_index *ix = NULL;
    hx_error err = {0};
    CHECK(hx_index_open(&ix, copy, HX_INDEX_READ, model, NULL, &err) == 0, "open version 3: %s", err.message);
    if (ix) {
        hx_doc_info d = {0};
        CHECK(hx_index_doc_count(ix) == 1 && hx_index_doc_by_path(ix, "notes/harbor.md", &d) == 0 &&
                  has_trust(ix, "notes/harbor.md", HX_VIS_PUBLIC, "", ""),
              "the version 3 document reads as public with no tenant");
        bool meta_kept = false;
        for (size_t i = 0; i < d.n_meta; i++)
            meta_kept |= !strcmp(d.meta[i].key, "visibility") && !strcmp(d.meta[i].value, "private");
        CHECK(meta_kept, "its metadata is still there");
        hx_index_close(ix);
    }
    ix = NULL;
    CHECK(hx_index_open(&ix, copy, HX_INDEX_WRITE, model, NULL, &err) == 0, "writer on version 3: %s", err.message);
    if (ix) {
        hx_update_report rep;
        const char *text = "# New\n\nA new note.\n";
        uint32_t id;
        CHECK(hx_index_add_bytes(ix, "notes/new.md", text, strlen(text), NULL, 0, enc, NULL, NULL, &id, &rep, &err) == 0,
              "add to version 3: %s", err.message);
        hx_update_report_clear(&rep);
        hx_index_close(ix);
    }
    size_t len = 0;
    char *bytes = check_read_file(copy, &len);
    CHECK(bytes && memmem(bytes, len, "HXDOCS04", 8), "the writer wrote a version 4 table");
    free(bytes);
    ix = NULL;
    CHECK(hx_index_open(&ix, copy, HX_INDEX_READ, model, NULL, &err) == 0, "reopen: %s", err.message);
    if (ix) {
        CHECK(hx_index_doc_count(ix) == 2 && has_trust(ix, "notes/harbor.md", HX_VIS_PUBLIC, "", "") &&
                  has_trust(ix, "notes/new.md", HX_VIS_PUBLIC, "", ""),
              "the old document keeps its trust in the version 4 table");
        hx_index_close(ix);
    }
    unlink(copy);
}

int main(void)
{
    hx_error err = {0};
    char tmpl[] = "/tmp/hx_tenant_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    if (hx_model_open(&model, WEIGHTS, &err) || hx_encoder_new(&enc, model, 1, &err)) {
        CHECK(0, "model: %s", err.message);
        return check_report("test_tenant");
    }
    test_trust_rules();
    test_storage();
    test_v3_fixture();
    hx_encoder_free(enc);
    hx_model_close(model);
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, db);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_tenant");
}
