/* test_tenant.c: tenants and visibility (`hyrax help tenants`). A document's trust
 * attributes come from its own metadata (ix_trust_from_meta: every refusal checked by hand), are
 * stored in the document table (version 4) and kept by updates and compaction, and an index with
 * a version 3 table (tests/data/hxdocs03.hyx, made by hyrax at commit b368c26 from one
 * notes/harbor.md whose front matter says "tenant: acme", "visibility: private", "owner: alice")
 * still opens, its document public with no tenant.
 * The leak test: a corpus generated at test time from a printed seed (HX_TENANT_SEED overrides
 * it) spreads documents with a shared vocabulary over tenants, owners and visibilities, each with
 * a unique marker word; then, for every identity, LEAK_CALLS randomized library calls (search in
 * every mode with filters and grouping, vector search from chunk and document vectors, document
 * listing and lookup by id and path, chunks, vectors, stats) and MCP_CALLS randomized tool calls
 * through `hyrax serve --tenant T [--user U]` (every query and document tool, the seed tools,
 * index_health). Each returned document is checked against the rule as the test computes it from
 * what it generated; an MCP answer must not hold a hidden document's path or marker anywhere. */
#include "alloc.h"
#include "check.h"
#include "serve_client.h"
#include "trust.h"

#include "hyrax.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* A handle's identity: checked, set once, kept across refresh and read contexts, and applied to
 * the writes that name documents; the command line takes it as --tenant / --user. Runs on the
 * storage test's index: pub.md (public), team.md (acme), mine.md (acme, alice), notes/stored.md
 * (globex, bob). */
static void test_identity(void)
{
    hx_error err = {0};
    hx_index *r = NULL, *w = NULL;
    CHECK(hx_index_open(&r, db, HX_INDEX_READ, model, NULL, &err) == 0, "reader: %s", err.message);
    if (!r)
        return;
    CHECK(hx_index_set_identity(r, &(hx_identity){NULL, "bob"}, &err) == HX_EINVAL, "a user needs a tenant");
    CHECK(hx_index_set_identity(r, &(hx_identity){"glo\tbex", NULL}, &err) == HX_EINVAL && strstr(err.message, "control"),
          "a tenant with a control character: %s", err.message);
    CHECK(hx_index_doc_count(r) == 4, "a refused identity changes nothing");
    CHECK(hx_index_set_identity(r, &(hx_identity){"globex", "bob"}, &err) == 0, "identity: %s", err.message);
    CHECK(hx_index_doc_count(r) == 2 && hx_index_doc_by_path(r, "notes/stored.md", &(hx_doc_info){0}) == 0 &&
              hx_index_doc_by_path(r, "mine.md", &(hx_doc_info){0}) == HX_ENOTFOUND,
          "globex/bob sees pub.md and his stored note: %zu", hx_index_doc_count(r));
    hx_audit_list audit = {0};
    CHECK(hx_index_audit(r, &audit, &err) == HX_EPERM && strstr(err.message, "every tenant"),
          "the audit log, which names every tenant's refused documents, is not read with an identity");
    hx_audit_list_free(&audit);
    hx_commit_info made;
    CHECK(hx_index_open(&w, db, HX_INDEX_WRITE, model, NULL, &err) == 0 && hx_index_baseline(w, "before", &made, &err) == 0,
          "baseline: %s", err.message);
    if (w) {
        hx_update_report rep;
        const char *text = "# Globex plan\n\nLighthouse plan for globex.\n";
        char k1[] = "tenant", v1[] = "globex", k2[] = "visibility", v2[] = "tenant";
        hx_kv meta[] = {{k1, v1}, {k2, v2}};
        uint32_t id;
        CHECK(hx_index_add_bytes(w, "plan.md", text, strlen(text), meta, 2, enc, NULL, NULL, &id, &rep, &err) == 0,
              "add plan.md: %s", err.message);
        hx_update_report_clear(&rep);
        CHECK(hx_index_set_identity(w, &(hx_identity){"globex", "bob"}, &err) == 0, "writer identity: %s", err.message);
        const char *names[] = {"mine.md"};
        CHECK(hx_index_remove(w, names, 1, HX_REMOVE_EXACT, &rep, &err) == HX_ENOTFOUND,
              "a hidden document cannot be removed: %s", err.message);
        hx_update_report_clear(&rep);
        char k3[] = "owner", v3[] = "bob", v4[] = "private", v5[] = "acme";
        hx_kv own[] = {{k1, v1}, {k2, v4}, {k3, v3}}, other[] = {{k1, v5}, {k2, v2}}, alice[] = {{k1, v1}, {k2, v4}, {k3, k3}};
        CHECK(hx_index_add_bytes(w, "notes/stored.md", text, strlen(text), own, 3, enc, NULL, NULL, &id, &rep, &err) == 0,
              "bob replaces his own note: %s", err.message);
        hx_update_report_clear(&rep);
        /* the text of team.md's section, which only acme reads: reusing its vector would tell bob
         * (through chunks_reused) that another tenant holds this text */
        const char *rota = "# Team\n\nLighthouse rota for acme.\n";
        CHECK(hx_index_add_bytes(w, "notes/rota.md", rota, strlen(rota), own, 3, enc, NULL, NULL, &id, &rep, &err) == 0 &&
                  rep.chunks_embedded == 1 && rep.chunks_reused == 0,
              "a text only another tenant reads is embedded, not reused: %zu embedded, %zu reused (%s)",
              rep.chunks_embedded, rep.chunks_reused, err.message);
        hx_update_report_clear(&rep);
        CHECK(hx_index_add_bytes(w, "acme.md", text, strlen(text), other, 2, enc, NULL, NULL, &id, &rep, &err) == HX_EPERM,
              "a globex writer cannot store into acme: %s", err.message);
        hx_update_report_clear(&rep);
        CHECK(hx_index_add_bytes(w, "owner.md", text, strlen(text), alice, 3, enc, NULL, NULL, &id, &rep, &err) == HX_EPERM,
              "bob cannot store a private document of another owner: %s", err.message);
        hx_update_report_clear(&rep);
        CHECK(hx_index_add_bytes(w, "mine.md", text, strlen(text), NULL, 0, enc, NULL, NULL, &id, &rep, &err) == HX_EPERM,
              "a hidden document's name cannot be stored over: %s", err.message);
        hx_update_report_clear(&rep);
        hx_index_close(w);
    }
    CHECK(hx_index_refresh(r, &err) == 1 && hx_index_doc_count(r) == 4 &&
              hx_index_doc_by_path(r, "plan.md", &(hx_doc_info){0}) == 0 &&
              hx_index_doc_by_path(r, "notes/rota.md", &(hx_doc_info){0}) == 0 &&
              hx_index_doc_by_path(r, "team.md", &(hx_doc_info){0}) == HX_ENOTFOUND,
          "after refresh: the new globex documents, still not acme's: %zu", hx_index_doc_count(r));
    hx_read_taken taken;
    hx_read_context at = {HX_READ_BASELINE, "before", 0};
    CHECK(hx_index_read_at(r, &at, &taken, &err) == 0 && hx_index_doc_count(r) == 2 &&
              hx_index_doc_by_path(r, "mine.md", &(hx_doc_info){0}) == HX_ENOTFOUND,
          "an older commit is read with the same identity: %zu", hx_index_doc_count(r));
    CHECK(hx_index_set_identity(r, &(hx_identity){"acme", "alice"}, &err) == HX_EPERM, "set once: %s", err.message);
    hx_index_close(r);

    char cmd[2 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --mode keyword --json --tenant acme --user alice lighthouse",
             db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"mine.md\"") && strstr(out, "\"path\":\"team.md\"") &&
              !strstr(out, "plan.md") && !strstr(out, "stored.md"),
          "search --tenant acme --user alice: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --mode keyword --json --tenant acme lighthouse", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"team.md\"") && !strstr(out, "mine.md"),
          "search --tenant acme: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db '%s' --json --tenant umbrella", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"documents\":1"), "stats --tenant umbrella: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --user alice lighthouse 2>&1", db);
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "tenant"), "--user without --tenant: %s", out);
    free(out);
}

/* Out of memory while an identity is applied: the call fails and the handle sees nothing, never
 * everything (every allocation of hx_index_set_identity fails in turn). */
static void test_identity_oom(void)
{
    hx_error err = {0};
    hx_index *r = NULL;
    CHECK(hx_index_open(&r, db, HX_INDEX_READ, NULL, NULL, &err) == 0, "reader: %s", err.message);
    if (!r)
        return;
    hxi_alloc_fail_at(0, 0);
    CHECK(hx_index_set_identity(r, &(hx_identity){"acme", NULL}, &err) == 0, "identity: %s", err.message);
    unsigned long count = hxi_alloc_fail_at(0, 0);
    hx_index_close(r);
    for (unsigned long n = 1; n <= count; n++) {
        r = NULL;
        CHECK(hx_index_open(&r, db, HX_INDEX_READ, NULL, NULL, &err) == 0, "reader: %s", err.message);
        if (!r)
            return;
        hxi_alloc_fail_at(n, 0);
        int rc = hx_index_set_identity(r, &(hx_identity){"acme", NULL}, &err);
        hxi_alloc_fail_at(0, 0);
        hx_search_opts o;
        hx_search_opts_default(&o);
        o.mode = HX_MODE_KEYWORD;
        hx_results res = {0};
        int src = hx_index_search(r, NULL, "lighthouse", 10, &o, &res, &err);
        CHECK(rc == HX_ENOMEM || rc == 0, "allocation %lu: %d", n, rc);
        if (rc)
            CHECK(hx_index_doc_count(r) == 0 && hx_index_doc_by_path(r, "pub.md", &(hx_doc_info){0}) == HX_ENOTFOUND &&
                      (src != 0 || res.n == 0),
                  "allocation %lu failed: the handle sees nothing (%zu documents, %zu results)", n,
                  hx_index_doc_count(r), res.n);
        hx_results_free(&res);
        hx_index_close(r);
    }
    CHECK(count >= 2, "set_identity allocates: %lu", count);
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

/* === The leak test === */

#define N_DOCS 60
#define LEAK_CALLS 10000   /* library calls per identity */
#define MCP_CALLS 1000     /* tool calls per identity, through hyrax serve */

static const char *const tenants[] = {"acme", "globex", "initech"};
static const char *const users[] = {"alice", "bob", "carol"};
static const char *const topics[] = {"ops", "legal", "design", "sales"};
static const char *const vocab[] = {
    "lighthouse", "harbor", "pilot", "channel", "tide", "vessel", "cargo", "anchor", "beacon", "storm",
    "schedule", "budget", "contract", "review", "release", "incident", "rollout", "policy", "customer", "invoice",
    "network", "storage", "cluster", "latency", "backup", "migration", "quarterly", "roadmap", "audit", "training",
    "kernel", "memory"};
#define N_VOCAB (sizeof vocab / sizeof *vocab)

typedef struct {
    char path[16];            /* "doc017.md" */
    char marker[8];           /* a word no other document holds (ends in x: no stem of one is another) */
    const char *tenant;       /* "" = none */
    const char *owner;        /* "" = none */
    hx_visibility vis;
    const char *topic;
    bool stored;              /* add_document-style, else a file with front matter */
    uint32_t id;              /* assigned by the index (read back by path) */
} gen_doc;

typedef struct {
    const char *tenant, *user;   /* tenant NULL: no identity */
} reader;

/* no identity; a tenant alone; a user among others of that tenant; another tenant; a tenant that
 * owns nothing */
static const reader readers[] = {{NULL, NULL}, {"acme", NULL}, {"acme", "alice"}, {"globex", "bob"}, {"umbrella", "alice"}};
#define N_READERS (sizeof readers / sizeof *readers)

static gen_doc gdocs[N_DOCS];
static uint64_t rng_state;
static char leak_root[PATH_MAX + 8], leak_db[PATH_MAX + 32];
static uint32_t *chunk_doc;     /* chunk id -> index into gdocs, or UINT32_MAX (no chunk) */
static uint32_t n_chunk_ids;    /* chunk ids probed: every one the index has, and a few past */

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint32_t below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

/* The rule as this test states it (`hyrax help tenants`), from what it generated. */
static bool expect_visible(const gen_doc *d, const reader *r)
{
    if (!r->tenant || d->vis == HX_VIS_PUBLIC)
        return true;
    if (strcmp(d->tenant, r->tenant))
        return false;
    return d->vis == HX_VIS_TENANT || (r->user && !strcmp(d->owner, r->user));
}

static gen_doc *gen_by_path(const char *path)
{
    for (int i = 0; i < N_DOCS; i++)
        if (!strcmp(gdocs[i].path, path))
            return &gdocs[i];
    return NULL;
}

/* Generates the corpus: files with front matter and stored documents with metadata. */
static void generate(hx_index *ix)
{
    char *text = malloc(8192);
    for (int i = 0; i < N_DOCS; i++) {
        gen_doc *d = &gdocs[i];
        snprintf(d->path, sizeof d->path, "doc%03d.md", i);
        snprintf(d->marker, sizeof d->marker, "zq%c%c%cx", 'a' + i / 26 / 26 % 26, 'a' + i / 26 % 26, 'a' + i % 26);
        bool has_tenant = below(4) != 0;
        d->tenant = has_tenant ? tenants[below(3)] : "";
        d->vis = has_tenant ? (hx_visibility)below(3) : HX_VIS_PUBLIC;
        d->owner = d->vis == HX_VIS_PRIVATE ? users[below(3)] : "";
        d->topic = topics[below(4)];
        d->stored = below(4) == 0;
        size_t len = 0;
        if (!d->stored) {
            len += (size_t)snprintf(text + len, 8192 - len, "---\ntopic: %s\n", d->topic);
            if (*d->tenant)
                len += (size_t)snprintf(text + len, 8192 - len, "tenant: %s\n", d->tenant);
            if (d->vis != HX_VIS_PUBLIC || below(2))
                len += (size_t)snprintf(text + len, 8192 - len, "visibility: %s\n",
                                        d->vis == HX_VIS_PUBLIC ? "public" : d->vis == HX_VIS_TENANT ? "tenant" : "private");
            if (*d->owner)
                len += (size_t)snprintf(text + len, 8192 - len, "owner: %s\n", d->owner);
            len += (size_t)snprintf(text + len, 8192 - len, "---\n");
        }
        len += (size_t)snprintf(text + len, 8192 - len, "# Notes %s\n\n", d->marker);
        uint32_t words = 20 + below(300), at = below(words);
        for (uint32_t w = 0; w < words; w++)
            len += (size_t)snprintf(text + len, 8192 - len, "%s%s", w == at ? d->marker : vocab[below(N_VOCAB)],
                                    w % 12 == 11 ? ".\n" : " ");
        text[len] = 0;
        if (!d->stored) {
            check_put(leak_root, d->path, text);
            continue;
        }
        hx_kv kv[4];
        size_t n = 0;
        kv[n++] = (hx_kv){(char *)"topic", (char *)d->topic};
        if (*d->tenant)
            kv[n++] = (hx_kv){(char *)"tenant", (char *)d->tenant};
        kv[n++] = (hx_kv){(char *)"visibility",
                          (char *)(d->vis == HX_VIS_PUBLIC ? "public" : d->vis == HX_VIS_TENANT ? "tenant" : "private")};
        if (*d->owner)
            kv[n++] = (hx_kv){(char *)"owner", (char *)d->owner};
        hx_update_report rep;
        hx_error err = {0};
        uint32_t id;
        CHECK(hx_index_add_bytes(ix, d->path, text, len, kv, n, enc, NULL, NULL, &id, &rep, &err) == 0, "store %s: %s",
              d->path, err.message);
        hx_update_report_clear(&rep);
    }
    free(text);
    const char *paths[] = {""};
    hx_update_opts o = {0};
    o.encoder = enc;
    hx_update_report rep;
    hx_error err = {0};
    CHECK(hx_index_update(ix, paths, 1, &o, &rep, &err) == 0 && rep.n_rejected == 0, "index the corpus: %s",
          err.message);
    hx_update_report_clear(&rep);
}

/* Reads back ids and the chunk -> document map through a handle with no identity. */
static void map_ids(hx_index *all)
{
    CHECK(hx_index_doc_count(all) == N_DOCS, "every generated document is indexed: %zu", hx_index_doc_count(all));
    for (int i = 0; i < N_DOCS; i++) {
        hx_doc_info d;
        CHECK(hx_index_doc_by_path(all, gdocs[i].path, &d) == 0, "%s indexed", gdocs[i].path);
        gdocs[i].id = d.id;
    }
    hx_index_stats st;
    hx_error err = {0};
    CHECK(hx_index_stats_get(all, &st, &err) == 0, "stats: %s", err.message);
    n_chunk_ids = (uint32_t)st.chunks + 8;
    chunk_doc = malloc(sizeof *chunk_doc * n_chunk_ids);
    for (uint32_t c = 0; c < n_chunk_ids; c++) {
        hx_result r;
        chunk_doc[c] = UINT32_MAX;
        if (hx_index_chunk(all, c, &r, NULL) == 0)
            chunk_doc[c] = (uint32_t)(gen_by_path(r.path) - gdocs);
    }
}

typedef struct {
    uint64_t calls, results, hidden_probes, leaks;
} tally;

/* Counts a result: a leak when the reader may not see its document. */
static void see(tally *t, const reader *r, const char *path, const char *what)
{
    const gen_doc *d = gen_by_path(path);
    t->results++;
    if (!d || !expect_visible(d, r)) {
        t->leaks++;
        CHECK(0, "%s as %s/%s returned %s", what, r->tenant ? r->tenant : "-", r->user ? r->user : "-", path);
    }
}

static void see_results(tally *t, const reader *r, const hx_results *res, const char *what)
{
    for (size_t i = 0; i < res->n; i++) {
        see(t, r, res->v[i].path, what);
        for (size_t m = 0; m < res->v[i].n_more; m++)
            see(t, r, res->v[i].more[m].path, what);
    }
}

/* A query: one to three shared words, or (a quarter of the time) the marker of a random document,
 * which that document alone holds. *target gets that document, or NULL. */
static void random_query(char *q, size_t cap, const gen_doc **target)
{
    *target = NULL;
    if (below(4) == 0) {
        *target = &gdocs[below(N_DOCS)];
        snprintf(q, cap, "%s", (*target)->marker);
        return;
    }
    uint32_t n = 1 + below(3);
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)snprintf(q + len, cap - len, "%s%s", i ? " " : "", vocab[below(N_VOCAB)]);
}

static void random_opts(hx_search_opts *o, hx_filter *f)
{
    hx_search_opts_default(o);
    o->k = 1 + below(20);
    o->group = below(2) ? HX_GROUP_DOCUMENT : HX_GROUP_CHUNK;
    o->min_score = below(2) ? 0.0f : NAN;
    o->snippets = below(4) == 0;
    if (below(3) == 0) {
        *f = (hx_filter){.key = "topic", .value = topics[below(4)]};
        o->filters = f;
        o->n_filters = 1;
    }
}

/* One randomized library call as reader r through ix (its identity set), checked against the rule. */
static void library_call(hx_index *ix, hx_index *all, const reader *r, tally *t)
{
    hx_search_opts o;
    hx_filter f;
    hx_results res = {0};
    hx_error err = {0};
    char q[128];
    const gen_doc *target, *g = &gdocs[below(N_DOCS)];
    bool vis = expect_visible(g, r);
    uint32_t op = below(100);
    t->calls++;
    t->hidden_probes += !vis;
    if (op < 30) {   /* keyword search */
        random_query(q, sizeof q, &target);
        random_opts(&o, &f);
        o.mode = HX_MODE_KEYWORD;
        CHECK(hx_index_search(ix, enc, q, strlen(q), &o, &res, &err) == 0, "keyword search: %s", err.message);
        see_results(t, r, &res, "keyword search");
        if (target && !o.n_filters && isnan(o.min_score))   /* the marker's document, when it may be seen */
            CHECK((res.n > 0 && !strcmp(res.v[0].path, target->path)) == expect_visible(target, r),
                  "marker %s of %s found by %s/%s: %zu results", target->marker, target->path,
                  r->tenant ? r->tenant : "-", r->user ? r->user : "-", res.n);
    } else if (op < 36) {   /* hybrid or vector search: embeds the query */
        random_query(q, sizeof q, &target);
        random_opts(&o, &f);
        o.mode = below(2) ? HX_MODE_HYBRID : HX_MODE_VECTOR;
        CHECK(hx_index_search(ix, enc, q, strlen(q), &o, &res, &err) == 0, "search: %s", err.message);
        see_results(t, r, &res, o.mode == HX_MODE_HYBRID ? "hybrid search" : "vector search");
    } else if (op < 50) {   /* vector search from any chunk's vector (taken without an identity) */
        float vec[HX_EMBED_DIM_MAX];
        uint32_t c = below(n_chunk_ids);
        if (chunk_doc[c] == UINT32_MAX || hx_index_chunk_vector(all, c, vec, &err))
            return;
        random_opts(&o, &f);
        o.exclude_doc = below(2) ? (int32_t)g->id : -1;
        CHECK(hx_index_search_vector(ix, vec, &o, &res, &err) == 0, "vector search: %s", err.message);
        see_results(t, r, &res, "search from a vector");
    } else if (op < 58) {   /* lookup by id, as find_similar and get_document do */
        hx_doc_info d;
        int rc = hx_index_doc_by_id(ix, g->id, &d);
        CHECK((rc == 0) == vis && (rc != 0 || !strcmp(d.path, g->path)), "doc_by_id %u (%s)", g->id, g->path);
        if (!rc)
            see(t, r, d.path, "doc_by_id");
    } else if (op < 66) {   /* lookup by path */
        hx_doc_info d;
        int rc = hx_index_doc_by_path(ix, g->path, &d);
        CHECK((rc == 0) == vis, "doc_by_path %s", g->path);
        if (!rc)
            see(t, r, d.path, "doc_by_path");
    } else if (op < 72) {   /* listing */
        size_t want = 0;
        for (int i = 0; i < N_DOCS; i++)
            want += expect_visible(&gdocs[i], r);
        CHECK(hx_index_doc_count(ix) == want, "doc_count %zu, expected %zu", hx_index_doc_count(ix), want);
        size_t i = below((uint32_t)want + 2);
        hx_doc_info d;
        int rc = hx_index_doc_at(ix, i, &d);
        CHECK((rc == 0) == (i < want), "doc_at %zu of %zu", i, want);
        if (!rc)
            see(t, r, d.path, "doc_at");
    } else if (op < 82) {   /* a chunk by id, as get_context's neighbours */
        uint32_t c = below(n_chunk_ids);
        hx_result x;
        int rc = hx_index_chunk(ix, c, &x, NULL);
        bool want = chunk_doc[c] != UINT32_MAX && expect_visible(&gdocs[chunk_doc[c]], r);
        t->hidden_probes += chunk_doc[c] != UINT32_MAX && !want;
        CHECK((rc == 0) == want, "chunk %u", c);
        if (!rc)
            see(t, r, x.path, "chunk");
    } else if (op < 92) {   /* find_similar's sources: a chunk's or a document's vector */
        float vec[HX_EMBED_DIM_MAX];
        if (below(2)) {
            uint32_t c = below(n_chunk_ids);
            bool want = chunk_doc[c] != UINT32_MAX && expect_visible(&gdocs[chunk_doc[c]], r);
            CHECK((hx_index_chunk_vector(ix, c, vec, NULL) == 0) == want, "chunk_vector %u", c);
        } else {
            CHECK((hx_index_doc_vector(ix, g->id, vec, NULL) == 0) == vis, "doc_vector %s", g->path);
        }
    } else {   /* counts */
        hx_index_stats st;
        uint64_t docs = 0, chunks = 0;
        for (uint32_t c = 0; c < n_chunk_ids; c++)
            chunks += chunk_doc[c] != UINT32_MAX && expect_visible(&gdocs[chunk_doc[c]], r);
        for (int i = 0; i < N_DOCS; i++)
            docs += expect_visible(&gdocs[i], r);
        CHECK(hx_index_stats_get(ix, &st, &err) == 0 && st.documents == docs && st.live_chunks == chunks,
              "stats: %llu documents (expected %llu), %llu chunks (expected %llu)", (unsigned long long)st.documents,
              (unsigned long long)docs, (unsigned long long)st.live_chunks, (unsigned long long)chunks);
    }
    hx_results_free(&res);
}

/* --- through hyrax serve --- */

/* Starts `hyrax serve --read-only` on the leak index as reader r. */
static int start_as(server *s, const reader *r)
{
    const char *args[10] = {"--db", leak_db, "--root", leak_root, "--read-only"};
    int n = 5;
    if (r->tenant) {
        args[n++] = "--tenant";
        args[n++] = r->tenant;
    }
    if (r->user) {
        args[n++] = "--user";
        args[n++] = r->user;
    }
    args[n] = NULL;
    return start_serve(s, args);
}

/* One randomized tool call as reader r; the answer must name no document r may not see (its
 * path or its marker, unless the request itself holds that word), must find what r may see, and
 * must answer a hidden document as it answers one that does not exist. */
static void mcp_call(server *s, const reader *r, tally *t, int id)
{
    char args[512], line[1024], q[128];
    const gen_doc *target, *g = &gdocs[below(N_DOCS)];
    bool vis = expect_visible(g, r);
    const char *tool;
    int kind = -1;   /* 0: names g by path or id, 1: names chunk c; an error iff it is hidden (or absent) */
    uint32_t c = below(n_chunk_ids);
    bool chunk_vis = chunk_doc[c] != UINT32_MAX && expect_visible(&gdocs[chunk_doc[c]], r);
    uint32_t op = below(100);
    random_query(q, sizeof q, &target);
    if (op < 20) {
        static const char *const modes[] = {"hybrid", "semantic", "keyword"};
        tool = "search";
        snprintf(args, sizeof args, "{\"query\":\"%s\",\"mode\":\"%s\",\"top_k\":%u,\"group_by\":\"%s\",\"min_score\":0%s}",
                 q, modes[below(3)], 1 + below(20), below(2) ? "chunk" : "document",
                 below(3) ? "" : ",\"filters\":{\"topic\":\"ops\"}");
    } else if (op < 28) {
        tool = "get_context";
        snprintf(args, sizeof args, "{\"query\":\"%s\",\"max_tokens\":%u}", q, 200 + below(2000));
    } else if (op < 40) {
        tool = "find_similar";
        if (below(3) == 0) {
            kind = 1;
            snprintf(args, sizeof args, "{\"chunk_id\":%u,\"top_k\":%u}", c, 1 + below(20));
        } else {
            kind = 0;
            if (below(2))
                snprintf(args, sizeof args, "{\"doc_id\":%u,\"top_k\":%u}", g->id, 1 + below(20));
            else
                snprintf(args, sizeof args, "{\"path\":\"%s\",\"top_k\":%u}", g->path, 1 + below(20));
        }
    } else if (op < 48) {
        tool = "list_documents";
        snprintf(args, sizeof args, "{\"limit\":%u,\"offset\":%u%s}", 1 + below(100), below(40),
                 below(3) ? "" : ",\"filters\":{\"topic\":\"legal\"}");
    } else if (op < 60) {
        tool = below(2) ? "get_document" : "document_details";
        kind = 0;
        if (below(2))
            snprintf(args, sizeof args, "{\"doc_id\":%u}", g->id);
        else
            snprintf(args, sizeof args, "{\"path\":\"%s\"}", g->path);
    } else if (op < 68) {
        tool = "document_status";
        kind = 0;
        snprintf(args, sizeof args, "{\"path\":\"%s\"}", g->path);
    } else if (op < 76) {
        tool = "semantic_search";
        snprintf(args, sizeof args, "{\"query\":\"%s\",\"limit\":%u,\"threshold\":0}", q, 1 + below(20));
    } else if (op < 84) {
        tool = "full_text_search";
        snprintf(args, sizeof args, "{\"query\":\"%s\",\"limit\":%u}", q, 1 + below(20));
    } else if (op < 92) {
        tool = "hybrid_search";
        snprintf(args, sizeof args, "{\"query\":\"%s\",\"limit\":%u}", q, 1 + below(20));
    } else {
        tool = "index_health";
        snprintf(args, sizeof args, "{}");
    }
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}", id, tool, args);
    send_line(s, line);
    char *out = read_line(s, 60000);
    t->calls++;
    hxi_json_doc *doc = NULL;
    CHECK(out && hxi_json_parse(&doc, out, strlen(out), NULL, NULL) == 0, "%s answers JSON: %.200s", tool,
          out ? out : "(nothing)");
    const hxi_json_val *res = doc ? get(hxi_json_doc_root(doc), "result") : NULL;
    bool error = res && hxi_json_bool(get(res, "isError")) == 1;
    CHECK(res != NULL, "%s: a result: %.300s", tool, out ? out : "");
    if (!strcmp(tool, "document_status")) {   /* answers found: false, as for a name never indexed */
        t->hidden_probes += !vis;
        CHECK(!error && hxi_json_bool(get(res, "structuredContent.found")) == vis, "document_status %s as %s/%s: %.200s",
              g->path, r->tenant ? r->tenant : "-", r->user ? r->user : "-", out ? out : "");
    } else if (kind == 1) {
        t->hidden_probes += chunk_doc[c] != UINT32_MAX && !chunk_vis;
        const char *msg = hxi_json_str(get(hxi_json_arr_get(get(res, "content"), 0), "text"), NULL);
        CHECK(error == !chunk_vis && (!error || (msg && strstr(msg, "no chunk"))), "find_similar chunk %u: %.200s", c,
              msg ? msg : "");
    } else if (kind == 0) {
        t->hidden_probes += !vis;
        const char *msg = hxi_json_str(get(hxi_json_arr_get(get(res, "content"), 0), "text"), NULL);
        CHECK(error == !vis && (!error || (msg && strstr(msg, "no document with"))),
              "%s %s as %s/%s: error %d, visible %d: %.200s", tool, args, r->tenant ? r->tenant : "-",
              r->user ? r->user : "-", error, vis, msg ? msg : "");
    } else {
        CHECK(!error, "%s %s: %.300s", tool, args, out ? out : "");
    }
    bool health = !strcmp(tool, "index_health");
    if (health && res) {   /* its top_queries are this reader's own queries: the counts are checked instead */
        int64_t docs = -1, chunks = -1, want = 0, want_chunks = 0;
        for (int i = 0; i < N_DOCS; i++)
            want += expect_visible(&gdocs[i], r);
        for (uint32_t k = 0; k < n_chunk_ids; k++)
            want_chunks += chunk_doc[k] != UINT32_MAX && expect_visible(&gdocs[chunk_doc[k]], r);
        hxi_json_num_int64(get(res, "structuredContent.documents"), &docs, NULL);
        hxi_json_num_int64(get(res, "structuredContent.chunks"), &chunks, NULL);
        CHECK(docs == want && chunks == want_chunks, "index_health counts %lld documents and %lld chunks, expected "
              "%lld and %lld", (long long)docs, (long long)chunks, (long long)want, (long long)want_chunks);
    }
    for (int i = 0; out && !health && i < N_DOCS; i++) {
        const gen_doc *d = &gdocs[i];
        if (expect_visible(d, r))
            continue;
        bool path_leak = strstr(out, d->path) && !strstr(line, d->path);
        bool marker_leak = strstr(out, d->marker) && !strstr(line, d->marker);
        if (path_leak || marker_leak) {
            t->leaks++;
            CHECK(0, "%s %s as %s/%s names hidden %s: %.300s", tool, args, r->tenant ? r->tenant : "-",
                  r->user ? r->user : "-", d->path, out);
        }
    }
    for (int i = 0; out && i < N_DOCS; i++)
        t->results += strstr(out, gdocs[i].path) != NULL;
    hxi_json_doc_free(doc);
    free(out);
}

static void mcp_reader(const reader *r, tally *t)
{
    server s;
    if (start_as(&s, r) != 0) {
        CHECK(0, "start serve");
        return;
    }
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                  "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    char *init = read_line(&s, 60000);
    CHECK(init && strstr(init, "\"result\""), "initialize: %s", init ? init : "(nothing)");
    free(init);
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    for (int i = 0; i < MCP_CALLS; i++)
        mcp_call(&s, r, t, 10 + i);
    close(s.in);
    int status = 0;
    waitpid(s.pid, &status, 0);
    close(s.out);
    free(s.buf);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "serve exits cleanly");
}

static void test_leaks(void)
{
    const char *env = getenv("HX_TENANT_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : 20261123;
    rng_state = seed ? seed : 1;
    printf("test_tenant: leak test seed %llu (HX_TENANT_SEED=%llu repeats it)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    snprintf(leak_root, sizeof leak_root, "%s/leak", root);
    snprintf(leak_db, sizeof leak_db, "%s/leak.hyx", root);
    CHECK(mkdir(leak_root, 0755) == 0, "leak root");
    hx_index *ix = NULL;
    hx_error err = {0};
    CHECK(hx_index_open(&ix, leak_db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, leak_root, &err) == 0, "create: %s",
          err.message);
    if (!ix)
        return;
    generate(ix);
    hx_index_close(ix);
    hx_index *all = NULL;
    CHECK(hx_index_open(&all, leak_db, HX_INDEX_READ, model, NULL, &err) == 0, "open: %s", err.message);
    if (!all)
        return;
    map_ids(all);
    int per_vis[3] = {0, 0, 0};
    for (int i = 0; i < N_DOCS; i++)
        per_vis[gdocs[i].vis]++;
    printf("test_tenant: %d documents (%d public, %d tenant, %d private), %u chunk ids probed\n", N_DOCS, per_vis[0],
           per_vis[1], per_vis[2], n_chunk_ids);
    for (size_t k = 0; k < N_READERS; k++) {
        const reader *r = &readers[k];
        hx_index *rx = NULL;
        CHECK(hx_index_open(&rx, leak_db, HX_INDEX_READ, model, NULL, &err) == 0, "open: %s", err.message);
        hx_identity id = {r->tenant, r->user};
        if (!rx || (r->tenant && hx_index_set_identity(rx, &id, &err))) {
            CHECK(0, "identity: %s", err.message);
            hx_index_close(rx);
            continue;
        }
        if (r->tenant)
            CHECK(hx_index_set_identity(rx, &id, &err) == HX_EPERM, "the identity is set once");
        tally lib = {0}, mcp = {0};
        for (int i = 0; i < LEAK_CALLS; i++)
            library_call(rx, all, r, &lib);
        hx_index_close(rx);
        mcp_reader(r, &mcp);
        printf("test_tenant: reader %s/%s: library %llu calls, %llu results, %llu hidden probes, %llu leaks; "
               "MCP %llu calls, %llu documents named, %llu hidden probes, %llu leaks\n",
               r->tenant ? r->tenant : "(none)", r->user ? r->user : "-", (unsigned long long)lib.calls,
               (unsigned long long)lib.results, (unsigned long long)lib.hidden_probes, (unsigned long long)lib.leaks,
               (unsigned long long)mcp.calls, (unsigned long long)mcp.results, (unsigned long long)mcp.hidden_probes,
               (unsigned long long)mcp.leaks);
        CHECK(lib.leaks == 0 && mcp.leaks == 0, "no leaks");
    }
    hx_index_close(all);
    free(chunk_doc);
}

int main(void)
{
    setenv("HYRAX_BIN", "./hyrax", 0);
    hx_error err = {0};
    char tmpl[] = "/tmp/hxi_tenant_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    if (hx_model_open(&model, WEIGHTS, &err) || hx_encoder_new(&enc, model, 1, &err)) {
        CHECK(0, "model: %s", err.message);
        return check_report("test_tenant");
    }
    test_trust_rules();
    test_storage();
    test_identity();
    test_identity_oom();
    test_v3_fixture();
    test_leaks();
    hx_encoder_free(enc);
    hx_model_close(model);
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", root, root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_tenant");
}
