/* test_session.c: the session API (hyrax.h "Session") on a corpus written here, whose answers are
 * known by construction: zebra.md alone speaks of zebras, volcano.md of lava, garden.md of basil;
 * team.md is acme's, mine.md alice's own within acme, globex.md globex's, all three mention a
 * lighthouse; the user index holds recipes.md alone (sourdough). Every call: search in each mode,
 * the project and user tiers (one at another precision not mixed in), read contexts (head,
 * baseline, as_of), identities (isolation of documents and hot queries; fixed at open), similar,
 * get, list, status, add, delete, reindex, baseline, writes refused in a read-only session, and the
 * error paths (HX_EINVAL with a message for bad arguments). */
#include "check.h"
#include "hyrax.h"

#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char root[PATH_MAX], proj[PATH_MAX + 16], userdir[PATH_MAX + 16], db[PATH_MAX + 32];
static char user_db[PATH_MAX + 32], user8_db[PATH_MAX + 32];
static hx_model *model;   /* fp32, shared by most sessions */

/* A session on the project index: shared model, no user tier unless user is given, no registry. */
static hx_session *open_session(const hx_identity *id, const char *user, bool read_only)
{
    hx_session_config c = {.db = db, .root = proj, .user_db = user, .no_user_tier = user == NULL, .registry = "",
                           .identity = id, .model = model, .read_only = read_only, .threads = 1};
    hx_session *s = NULL;
    hx_error err = {0};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open: %s", err.message);
    return s;
}

/* The paths a search answers, in order, joined by spaces (at most cap bytes); the number of results. */
static size_t search_paths(hx_session *s, const char *query, hx_search_mode mode, hx_search_source source,
                           const hx_read_context *at, char *paths, size_t cap, hx_session_answer *keep)
{
    hx_session_query q;
    hx_session_query_init(&q, query);
    q.opts.mode = mode;
    q.opts.min_score = 0;
    q.source = source;
    if (at)
        q.at = *at;
    hx_session_answer a;
    hx_error err = {0};
    int rc = hx_session_search(s, &q, &a, &err);
    CHECK(rc == 0, "search '%s': %s", query, err.message);
    paths[0] = 0;
    size_t len = 0;
    for (size_t i = 0; !rc && i < a.results.n; i++)
        len += (size_t)snprintf(paths + len, len < cap ? cap - len : 0, "%s%s", i ? " " : "", a.results.v[i].path);
    size_t n = rc ? 0 : a.results.n;
    if (keep)
        *keep = a;
    else
        hx_session_answer_free(&a);
    return n;
}

static bool first_is(const char *paths, const char *want)
{
    size_t n = strlen(want);
    return !strncmp(paths, want, n) && (paths[n] == ' ' || !paths[n]);
}

static void write_corpus(void)
{
    check_put(proj, "zebra.md", "# Zebras\n\nZebras graze on the savanna; their striped coats confuse lions.\n");
    check_put(proj, "volcano.md", "# Volcanoes\n\nLava erupts from the volcano crater as molten rock.\n");
    check_put(proj, "garden.md", "# Garden\n\nTomatoes and basil grow in the raised garden beds.\n");
    check_put(proj, "team.md", "---\ntenant: acme\nvisibility: tenant\n---\n# Team\n\nThe lighthouse rota for acme.\n");
    check_put(proj, "mine.md", "---\ntenant: acme\nvisibility: private\nowner: alice\n---\n# Mine\n\n"
                               "Alice keeps the lighthouse keys.\n");
    check_put(proj, "globex.md", "---\ntenant: globex\nvisibility: tenant\n---\n# Globex\n\n"
                                 "The lighthouse budget of globex.\n");
    check_put(userdir, "recipes.md", "# Recipes\n\nSourdough bread needs flour, water and a starter.\n");
}

/* === Writes, and a user index at each precision === */

static void test_writes(void)
{
    hx_session_config c = {.db = db, .root = proj, .no_user_tier = true, .registry = "", .threads = 1};
    hx_session *s = NULL;
    hx_error err = {0};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open with its own model: %s", err.message);
    hx_session_write w;
    CHECK(hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == 0, "reindex: %s", err.message);
    CHECK(w.report.added == 6 && w.report.n_rejected == 0 && w.commit.generation > 0, "6 documents added, %zu",
          w.report.added);
    hx_session_write_clear(&w);
    hx_commit_info made;
    CHECK(hx_session_baseline(s, "v1", &made, &err) == 0 && !strcmp(made.name, "v1"), "baseline: %s", err.message);
    const char *note = "# Quokkas\n\nQuokkas smile on Rottnest island.\n";
    hx_kv meta[] = {{(char *)"category", (char *)"animals"}};
    hx_add_doc d = {.name = "notes/quokka.md", .content = note, .len = strlen(note), .meta = meta, .n_meta = 1};
    CHECK(hx_session_add(s, &d, NULL, &w, &err) == 0 && w.report.added == 1 && !strcmp(w.path, "notes/quokka.md") &&
          w.kind == HX_DOC_STORED, "add stored: %s", err.message);
    hx_session_write_clear(&w);
    hx_add_doc folder = {.path = "empty"};
    CHECK(hx_session_add(s, &folder, NULL, &w, &err) == HX_EINVAL && strstr(err.message, "folder"),
          "a folder is not one document: %s", err.message);
    hx_add_doc both = {.path = "zebra.md", .name = "x.md", .content = "x", .len = 1};
    CHECK(hx_session_add(s, &both, NULL, &w, &err) == HX_EINVAL && err.message[0], "path and content: %s",
          err.message);
    hx_add_doc outside = {.name = "../escape.md", .content = "x", .len = 1};
    CHECK(hx_session_add(s, &outside, NULL, &w, &err) == HX_EPERM, "a name outside the root: %s", err.message);
    hx_session_close(s);

    c = (hx_session_config){.db = user_db, .root = userdir, .no_user_tier = true, .registry = "", .model = model};
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == 0 &&
          w.report.added == 1, "the user index: %s", err.message);
    hx_session_write_clear(&w);
    hx_session_close(s);
    c = (hx_session_config){.db = user8_db, .root = userdir, .no_user_tier = true, .registry = "",
                            .precision = HX_PRECISION_INT8, .threads = 1};
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == 0 &&
          w.report.added == 1, "an int8 user index: %s", err.message);
    hx_precision p = HX_PRECISION_FP32;
    CHECK(hx_index_precision(user8_db, &p, &err) == 0 && p == HX_PRECISION_INT8, "made at int8");
    hx_session_write_clear(&w);
    hx_session_close(s);

    s = open_session(NULL, NULL, true);   /* read-only: every write refused */
    CHECK(hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == HX_EPERM && strstr(err.message, "read-only"),
          "read-only reindex: %s", err.message);
    CHECK(hx_session_add(s, &d, NULL, &w, &err) == HX_EPERM, "read-only add");
    CHECK(hx_session_delete(s, -1, "zebra.md", &w, &err) == HX_EPERM, "read-only delete");
    CHECK(hx_session_baseline(s, "v2", &made, &err) == HX_EPERM, "read-only baseline");
    hx_session_close(s);
}

/* === Searching === */

static void test_search(void)
{
    hx_session *s = open_session(NULL, NULL, false);
    char paths[512];
    hx_session_answer a;
    CHECK(search_paths(s, "zebras", HX_MODE_KEYWORD, HX_SEARCH_PROJECT, NULL, paths, sizeof paths, &a) == 1 &&
          !strcmp(paths, "zebra.md"), "keyword: %s", paths);
    CHECK(a.n_tiers == 1 && a.tiers[0].searched && !strcmp(a.tiers[0].name, HX_TIER_PROJECT) && a.tiers[0].results == 1 &&
          a.tiers[0].generation == a.taken.commit.generation && a.taken.selector == HX_READ_HEAD,
          "the project tier reported");
    CHECK(hx_session_answer_generation(&a, &a.results.v[0]) == a.taken.commit.generation, "the result's commit");
    hx_session_answer_free(&a);
    search_paths(s, "striped animals grazing on grassland", HX_MODE_VECTOR, HX_SEARCH_PROJECT, NULL, paths,
                 sizeof paths, NULL);
    CHECK(first_is(paths, "zebra.md"), "vector: %s", paths);
    search_paths(s, "molten rock from a crater", HX_MODE_HYBRID, HX_SEARCH_PROJECT, NULL, paths, sizeof paths, NULL);
    CHECK(first_is(paths, "volcano.md"), "hybrid: %s", paths);
    CHECK(search_paths(s, "quokkas", HX_MODE_KEYWORD, HX_SEARCH_ALL, NULL, paths, sizeof paths, NULL) == 1 &&
          !strcmp(paths, "notes/quokka.md"), "the stored note at the head: %s", paths);

    /* read contexts: v1 was named before the note was added */
    hx_read_context v1 = {HX_READ_BASELINE, "v1", 0};
    CHECK(search_paths(s, "quokkas", HX_MODE_KEYWORD, HX_SEARCH_PROJECT, &v1, paths, sizeof paths, &a) == 0,
          "not in baseline v1: %s", paths);
    CHECK(a.taken.selector == HX_READ_BASELINE && !strcmp(a.taken.commit.name, "v1"), "the answer says v1");
    hx_session_answer_free(&a);
    hx_read_context old = {HX_READ_AS_OF, NULL, 1000000000};   /* 1970: before every commit */
    hx_session_query q;
    hx_session_query_init(&q, "zebras");
    q.source = HX_SEARCH_PROJECT;
    q.at = old;
    hx_error err = {0};
    CHECK(hx_session_search(s, &q, &a, &err) == HX_ENOTFOUND && err.message[0], "no commit that old: %s", err.message);
    hx_read_context now = {HX_READ_AS_OF, NULL, (int64_t)time(NULL) * 1000000000 + 1000000000};
    CHECK(search_paths(s, "quokkas", HX_MODE_KEYWORD, HX_SEARCH_PROJECT, &now, paths, sizeof paths, NULL) == 1,
          "as of now: the note");

    /* similar */
    hx_similar_query sq = {.chunk_id = -1, .doc_id = -1, .path = "zebra.md"};
    hx_search_opts_default(&sq.opts);
    CHECK(hx_session_similar(s, &sq, &a, &err) == 0 && a.results.n > 0, "similar by path: %s", err.message);
    for (size_t i = 0; i < a.results.n; i++)
        CHECK(strcmp(a.results.v[i].path, "zebra.md"), "the document leaves itself out");
    hx_session_answer_free(&a);
    sq = (hx_similar_query){.text = "lava and a crater", .chunk_id = -1, .doc_id = -1};
    hx_search_opts_default(&sq.opts);
    CHECK(hx_session_similar(s, &sq, &a, &err) == 0 && a.results.n && !strcmp(a.results.v[0].path, "volcano.md"),
          "similar by text: %s", err.message);
    hx_session_answer_free(&a);
    sq.path = "zebra.md";
    CHECK(hx_session_similar(s, &sq, &a, &err) == HX_EINVAL && strstr(err.message, "exactly one"), "two sources");
    hx_session_close(s);
}

static void test_tiers(void)
{
    hx_session *s = open_session(NULL, user_db, false);
    char paths[512];
    hx_session_answer a;
    search_paths(s, "sourdough bread", HX_MODE_HYBRID, HX_SEARCH_ALL, NULL, paths, sizeof paths, &a);
    const hx_result *recipe = NULL;   /* fused by reciprocal rank: the project's first ties and comes first */
    for (size_t i = 0; i < a.results.n; i++)
        if (!strcmp(a.results.v[i].path, "recipes.md"))
            recipe = &a.results.v[i];
    CHECK(recipe && !strcmp(recipe->tier, HX_TIER_USER) && recipe->rank <= 2, "all: the user's recipe: %s", paths);
    CHECK(a.n_tiers == 2 && a.tiers[1].searched && a.tiers[1].results == 1 && !strcmp(a.tiers[1].db, user_db) &&
          a.tiers[0].results == a.results.n - 1, "both tiers read, each result counted once");
    CHECK(recipe && hx_session_answer_generation(&a, recipe) == a.tiers[1].generation, "the user tier's commit");
    hx_session_answer_free(&a);
    search_paths(s, "sourdough", HX_MODE_KEYWORD, HX_SEARCH_PROJECT, NULL, paths, sizeof paths, &a);
    CHECK(a.results.n == 0 && a.n_tiers == 1, "project alone: %s", paths);
    hx_session_answer_free(&a);
    CHECK(search_paths(s, "sourdough", HX_MODE_VECTOR, HX_SEARCH_USER, NULL, paths, sizeof paths, &a) >= 1 &&
          first_is(paths, "recipes.md") && a.n_tiers == 1 && a.taken.commit.generation == a.tiers[0].generation,
          "user alone: %s", paths);
    hx_session_answer_free(&a);
    hx_session_query q;
    hx_session_query_init(&q, "sourdough");
    q.source = HX_SEARCH_USER;
    q.at = (hx_read_context){HX_READ_BASELINE, "v1", 0};
    hx_error err = {0};
    CHECK(hx_session_search(s, &q, &a, &err) == HX_EINVAL && strstr(err.message, "baseline"), "user + baseline: %s",
          err.message);
    hx_session_close(s);

    s = open_session(NULL, user8_db, false);   /* an int8 user index is not mixed into fp32 queries */
    search_paths(s, "sourdough bread", HX_MODE_HYBRID, HX_SEARCH_ALL, NULL, paths, sizeof paths, &a);
    CHECK(a.n_tiers == 2 && !a.tiers[1].searched && a.tiers[1].reason && strstr(a.tiers[1].reason, "int8") &&
          !strstr(paths, "recipes.md"), "int8 user tier not consulted: %s", a.tiers[1].reason ? a.tiers[1].reason : "");
    hx_session_answer_free(&a);
    hx_session_close(s);

    char missing[PATH_MAX + 32];
    snprintf(missing, sizeof missing, "%s/nobody.hyx", root);
    s = open_session(NULL, missing, false);
    search_paths(s, "zebras", HX_MODE_KEYWORD, HX_SEARCH_ALL, NULL, paths, sizeof paths, &a);
    CHECK(a.n_tiers == 2 && !a.tiers[1].searched && strstr(a.tiers[1].reason, "no index") && !strcmp(paths, "zebra.md"),
          "a missing user index is reported, not an error");
    hx_session_answer_free(&a);
    hx_session_close(s);
}

/* === Identities === */

static void test_identity(void)
{
    char tenant[16] = "acme";
    hx_identity acme = {tenant, NULL}, acme2 = {"acme", NULL}, alice = {"acme", "alice"}, globex = {"globex", NULL};
    hx_session *s = open_session(&acme, NULL, false);
    snprintf(tenant, sizeof tenant, "globex");   /* the caller's strings change: the session's identity does not */
    char paths[512];
    CHECK(search_paths(s, "lighthouse", HX_MODE_KEYWORD, HX_SEARCH_PROJECT, NULL, paths, sizeof paths, NULL) == 1 &&
          !strcmp(paths, "team.md"), "acme sees its tenant document only: %s", paths);
    hx_session_doc d;
    hx_error err = {0};
    CHECK(hx_session_get(s, -1, "mine.md", NULL, false, &d, &err) == HX_ENOTFOUND, "alice's own is hidden");
    CHECK(hx_session_get(s, -1, "globex.md", NULL, false, &d, &err) == HX_ENOTFOUND, "globex's is hidden");
    hx_list_opts lo = {0};
    hx_doc_list l;
    CHECK(hx_session_list(s, &lo, &l, &err) == 0 && l.total == 5, "acme lists 3 public, team.md, the note: %zu",
          l.total);
    hx_doc_list_free(&l);
    hx_session_info st;
    CHECK(hx_session_status(s, &st, &err) == 0 && st.project.present && st.project.stats.documents == 5 &&
          !strcmp(st.identity.tenant, "acme"), "status counts what acme sees");
    CHECK(st.project.root && !strcmp(st.project.root, proj) && st.project.damage && !*st.project.damage &&
          !st.project.error.code, "status names the root the index covers, and no damage");
    hx_session_close(s);

    s = open_session(&alice, NULL, false);
    search_paths(s, "lighthouse", HX_MODE_KEYWORD, HX_SEARCH_PROJECT, NULL, paths, sizeof paths, NULL);
    CHECK(strstr(paths, "team.md") && strstr(paths, "mine.md") && !strstr(paths, "globex.md"), "alice: %s", paths);
    hx_session_close(s);

    /* hot queries belong to their identity */
    hx_session_config c = {.db = db, .no_user_tier = true, .registry = "", .identity = &acme2, .model = model,
                           .stats_transport = "test"};
    hx_session_query q;
    hx_session_answer a;
    CHECK(hx_session_open(&s, &c, &err) == 0, "open");
    hx_session_query_init(&q, "acme secret plans");
    q.opts.mode = HX_MODE_KEYWORD;
    CHECK(hx_session_search(s, &q, &a, &err) == 0, "counted search: %s", err.message);
    hx_session_answer_free(&a);
    hx_session_close(s);   /* flushes the statistics */
    const hx_identity *who[] = {&globex, &acme2};
    for (int i = 0; i < 2; i++) {   /* hx_session_activity: each identity's own hot queries */
        c = (hx_session_config){.db = db, .no_user_tier = true, .registry = "", .identity = who[i], .read_only = true};
        hx_activity act;
        CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_activity(s, &act, &err) == 0, "activity: %s",
              err.message);
        bool seen = false;
        for (size_t k = 0; k < act.n_top; k++)
            seen |= !strcmp(act.top[k].query, "acme secret plans") && act.top[k].count == 1;
        CHECK(seen == (i == 1), "acme's query is in acme's hot queries only (%s)", who[i]->tenant);
        bool timed = false;
        for (size_t k = 0; k < act.n_latency; k++)
            timed |= !strcmp(act.latency[k].tool, "search") && act.latency[k].transport &&
                     !strcmp(act.latency[k].transport, "test") && act.latency[k].latency.count >= 1;
        CHECK(timed && act.window_s == 86400 && !act.last_error, "the search's latency under its transport, no error "
              "shown to a reader identity");
        hx_activity_free(&act);
        hx_session_close(s);
    }
}

/* === Documents === */

static void test_documents(void)
{
    hx_session *s = open_session(NULL, NULL, false);
    hx_session_doc d;
    hx_error err = {0};
    CHECK(hx_session_get(s, -1, "zebra.md", NULL, true, &d, &err) == 0 && d.n_chunks >= 1 &&
          !strcmp(d.info.path, "zebra.md"), "get zebra.md: %s", err.message);
    bool striped = false;
    for (size_t i = 0; i < d.n_chunks; i++)
        striped |= memmem(d.chunks[i].text, d.chunks[i].text_len, "striped", 7) != NULL;
    CHECK(striped, "its chunks hold its text");
    uint32_t id = d.info.id;
    hx_session_doc_free(&d);
    CHECK(hx_session_get(s, id, NULL, NULL, false, &d, &err) == 0 && !strcmp(d.info.path, "zebra.md") && !d.chunks,
          "get by id");
    CHECK(hx_session_get(s, -1, "../etc/passwd", NULL, false, &d, &err) == HX_EPERM, "outside the root: %s",
          err.message);
    CHECK(hx_session_get(s, -1, "", NULL, false, &d, &err) == HX_EINVAL, "the root is not a document");
    CHECK(hx_session_get(s, -1, NULL, NULL, false, &d, &err) == HX_EINVAL && err.message[0], "neither id nor path");
    CHECK(hx_session_get(s, 99999, NULL, NULL, false, &d, &err) == HX_ENOTFOUND, "unknown id");

    hx_list_opts lo = {.sort = HX_SORT_TITLE, .desc = true, .limit = 2, .offset = 1};
    hx_doc_list l;
    CHECK(hx_session_list(s, &lo, &l, &err) == 0 && l.total == 7 && l.n == 2, "a page of 7: %zu %zu", l.total, l.n);
    CHECK(l.n == 2 && !strcmp(l.docs[0].title, "Volcanoes") && !strcmp(l.docs[1].title, "Team"), "titles desc: %s %s",
          l.n ? l.docs[0].title : "", l.n > 1 ? l.docs[1].title : "");
    hx_doc_list_free(&l);
    hx_filter f = {.key = "category", .value = "animals"};
    lo = (hx_list_opts){.filters = &f, .n_filters = 1};
    CHECK(hx_session_list(s, &lo, &l, &err) == 0 && l.n == 1 && !strcmp(l.docs[0].path, "notes/quokka.md"),
          "filtered by metadata");
    hx_doc_list_free(&l);
    lo = (hx_list_opts){.sort = (hx_doc_sort)42};
    CHECK(hx_session_list(s, &lo, &l, &err) == HX_EINVAL, "a bad sort key");
    hx_key_list kl;   /* the filter keys: the derived ones, then the note's metadata key */
    CHECK(hx_session_filter_keys(s, NULL, &kl, &err) == 0 && kl.n >= 8 && !strcmp(kl.keys[0], "path") &&
          !strcmp(kl.keys[6], "mtime"), "filter keys: %s", err.message);
    bool category = false;
    for (size_t i = 7; i < kl.n; i++)
        category |= !strcmp(kl.keys[i], "category");
    CHECK(category && hx_filter_key_matches("category", "Category") && hx_filter_key_matches("owning-sig", "sig_name") &&
          !hx_filter_key_matches("category", "categroy"), "category is listed and matched by the filter rule");
    hx_key_list_free(&kl);

    hx_session_info st;
    CHECK(hx_session_status(s, &st, &err) == 0 && st.project.present && st.project.stats.documents == 7 &&
          !st.user.present && st.user.reason[0] && st.model_loaded && st.dim == 384 &&
          st.precision == HX_PRECISION_FP32, "status: %s", st.user.reason);

    hx_session_write w;
    CHECK(hx_session_delete(s, -1, "notes/quokka.md", &w, &err) == 0 && w.report.removed == 1 && w.kind == HX_DOC_STORED,
          "delete the note: %s", err.message);
    hx_session_write_clear(&w);
    char paths[256];
    CHECK(search_paths(s, "quokkas", HX_MODE_KEYWORD, HX_SEARCH_PROJECT, NULL, paths, sizeof paths, NULL) == 0,
          "gone after delete");
    CHECK(hx_session_delete(s, -1, "notes/quokka.md", &w, &err) == HX_ENOTFOUND, "twice: %s", err.message);
    hx_session_close(s);
}

/* === Context === */

/* long.md: one section (Rivers) of 60 lines, too long for one chunk (each holds at most the model's
 * 256 word pieces), whose last line alone mentions a platypus. */
static void write_long(void)
{
    char text[8192] = "# Rivers\n\n";
    size_t len = strlen(text);
    for (int i = 1; i <= 60; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "River %d flows past the old mill and the stone bridge.\n", i);
    snprintf(text + len, sizeof text - len, "A platypus swims where the last river ends.\n");
    check_put(proj, "long.md", text);
}

/* A context of query (keyword mode, no floor) into *c; its return code. */
static int context(hx_session *s, const char *query, uint32_t max_tokens, uint32_t max_passages, bool neighbours,
                   hx_context *c, hx_error *err)
{
    hx_context_query q;
    hx_context_query_init(&q, query);
    q.search.opts.mode = HX_MODE_KEYWORD;
    q.search.opts.min_score = 0;
    q.max_tokens = max_tokens;
    q.max_passages = max_passages;
    q.neighbours = neighbours;
    return hx_session_context(s, &q, c, err);
}

static void test_context(void)
{
    write_long();
    hx_session *s = open_session(NULL, NULL, false);
    hx_session_write w;
    hx_add_doc d = {.path = "long.md"};
    hx_error err = {0};
    CHECK(hx_session_add(s, &d, NULL, &w, &err) == 0, "add long.md: %s", err.message);
    hx_session_write_clear(&w);
    hx_session_doc doc;
    CHECK(hx_session_get(s, -1, "long.md", NULL, false, &doc, &err) == 0 && doc.info.n_chunks >= 2,
          "long.md spans several chunks: %u", doc.info.n_chunks);
    uint32_t last = doc.info.first_chunk + doc.info.n_chunks - 1;
    hx_session_doc_free(&doc);

    /* the platypus is in the last chunk alone; its neighbour before it is of the same section */
    hx_context c;
    CHECK(context(s, "platypus", 0, 0, false, &c, &err) == 0 && c.n_sources == 1 && c.dropped == 0,
          "one passage: %s", err.message);
    uint32_t alone_start = c.n_sources ? c.sources[0].line_start : 0;
    CHECK(c.n_sources == 1 && c.sources[0].n_chunks == 1 && c.sources[0].chunk_ids[0] == last &&
          c.sources[0].label == 1 && !strcmp(c.sources[0].first->path, "long.md") && c.sources[0].line_end == 63,
          "the last chunk, to the last line (63)");
    CHECK(!strncmp(c.text, "[1] long.md (lines ", 19) && strstr(c.text, ") Rivers\n") &&
          strstr(c.text, "A platypus swims") && c.len == strlen(c.text), "the header and the passage: %.120s", c.text);
    CHECK(c.max_tokens == HX_CONTEXT_TOKENS && c.tokens == c.sources[0].tokens && c.tokens > 0 &&
          c.tokens <= c.max_tokens, "the budget spent: %zu", c.tokens);
    CHECK(c.answer.n_tiers == 2 && c.sources[0].generation == c.answer.tiers[0].generation &&
          c.answer.taken.selector == HX_READ_HEAD, "the tiers and the read context");
    hx_context_free(&c);
    CHECK(context(s, "platypus", 0, 0, true, &c, &err) == 0 && c.n_sources == 1, "with neighbours: %s", err.message);
    CHECK(c.n_sources == 1 && c.sources[0].n_ranked == 1 && c.sources[0].n_chunks == 2 &&
          c.sources[0].chunk_ids[1] == last - 1 && c.sources[0].line_start < alone_start &&
          c.sources[0].line_end == 63, "the chunk before added: lines %u-%u", c.n_sources ? c.sources[0].line_start : 0,
          c.n_sources ? c.sources[0].line_end : 0);
    hx_context_free(&c);

    /* the budget: a passage that does not fit is dropped, not cut */
    CHECK(context(s, "platypus", HX_CONTEXT_TOKENS_MIN, 0, true, &c, &err) == 0 && c.n_sources == 0 &&
          c.dropped == 1 && c.len == 0 && c.tokens == 0 && !strcmp(c.text, ""), "too long for 64 tokens");
    hx_context_free(&c);
    CHECK(context(s, "lighthouse", 0, 2, true, &c, &err) == 0 && c.n_sources == 2 && c.sources[1].label == 2 &&
          strstr(c.text, "\n\n[2] ") && c.tokens == c.sources[0].tokens + c.sources[1].tokens,
          "two of the three lighthouse documents: %s", err.message);
    hx_context_free(&c);
    hx_session_close(s);

    /* a reader identity sees its own documents only; the user tier's passages are cited as such */
    hx_identity acme = {"acme", NULL};
    s = open_session(&acme, user_db, false);
    CHECK(context(s, "lighthouse", 0, 0, true, &c, &err) == 0 && c.n_sources == 1 &&
          !strcmp(c.sources[0].first->path, "team.md"), "acme's lighthouse: %s", err.message);
    hx_context_free(&c);
    CHECK(context(s, "sourdough", 0, 0, true, &c, &err) == 0 && c.n_sources == 1 &&
          !strcmp(c.sources[0].first->tier, HX_TIER_USER) && c.sources[0].generation == c.answer.tiers[1].generation,
          "the user's recipe: %s", err.message);
    hx_context_free(&c);

    CHECK(context(s, "lighthouse", 10, 0, true, &c, &err) == HX_EINVAL && strstr(err.message, "max_tokens"),
          "a budget under the least: %s", err.message);
    CHECK(context(s, "lighthouse", 0, HX_CONTEXT_CANDIDATES + 1, true, &c, &err) == HX_EINVAL, "too many passages");
    CHECK(context(s, "", 0, 0, true, &c, &err) == HX_EINVAL && strstr(err.message, "empty"), "an empty query");
    hx_context_query q;
    hx_context_query_init(&q, "lighthouse");
    q.search.source = HX_SEARCH_REGISTRY;
    CHECK(hx_session_context(s, &q, &c, &err) == HX_EINVAL && strstr(err.message, "registry"), "the registry alone");
    CHECK(hx_session_context(NULL, &q, &c, &err) == HX_EINVAL, "no session");
    hx_session_close(s);
}

/* === Conversation memory === */

/* Records a turn of conversation `conv`; its number (0 on failure). */
static uint32_t record(hx_session *s, const char *conv, const char *user_message, const char *response)
{
    hx_turn t = {.session = conv, .user_message = user_message, .agent_response = response, .relevance = NAN}, done;
    hx_error err = {0};
    CHECK(hx_session_record_turn(s, &t, &done, &err) == 0, "record in %s: %s", conv, err.message);
    return done.number;
}

/* The turns of conv as "number:user_message" joined by spaces. */
static size_t turns_of(hx_session *s, const char *conv, char *buf, size_t cap)
{
    hx_turn_list l;
    hx_error err = {0};
    CHECK(hx_session_get_session(s, conv, &l, &err) == 0, "get_session %s: %s", conv, err.message);
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < l.n; i++)
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%u:%s", i ? " " : "", l.turns[i].number,
                                l.turns[i].user_message);
    size_t n = l.n;
    hx_turn_list_free(&l);
    return n;
}

/* The first turn a history search answers ("" when none) into buf; the number of turns. */
static size_t history_first(hx_session *s, const char *query, hx_search_mode mode, const char *conv, char *buf,
                            size_t cap, hx_history_score *score)
{
    hx_history_query q = {query, mode, 0, conv};
    hx_turn_list l;
    hx_error err = {0};
    CHECK(hx_session_search_history(s, &q, &l, &err) == 0, "search_history '%s': %s", query, err.message);
    snprintf(buf, cap, "%s", l.n ? l.turns[0].user_message : "");
    if (l.n && score)
        *score = l.scores[0];
    size_t n = l.n;
    hx_turn_list_free(&l);
    return n;
}

static void test_memory(void)
{
    hx_session *s = open_session(NULL, NULL, false);
    const char *docs[] = {"zebra.md"};
    hx_turn t = {.session = "c1", .user_message = "How do zebras sleep?", .agent_response = "Standing up, in herds.",
                 .docs = docs, .n_docs = 1, .search_method = "hybrid", .relevance = 0.75, .tenant = "globex"};
    hx_turn done;
    hx_error err = {0};
    CHECK(hx_session_record_turn(s, &t, &done, &err) == 0 && done.id == 1 && done.number == 1 && done.at_ns > 0 &&
          !strcmp(done.tenant, "") && !strcmp(done.user_message, t.user_message), "the first turn: %s", err.message);
    CHECK(record(s, "c1", "What about volcanoes?", "Lava erupts from craters.") == 2, "the second of c1");
    CHECK(record(s, "c2", "Tell me about sourdough", "It needs a starter, flour and water.") == 1, "the first of c2");
    char buf[512];
    CHECK(turns_of(s, "c1", buf, sizeof buf) == 2 && !strcmp(buf, "1:How do zebras sleep? 2:What about volcanoes?"),
          "c1 in order: %s", buf);
    hx_turn_list l;
    CHECK(hx_session_get_session(s, "c1", &l, &err) == 0 && l.n == 2 && l.turns[0].n_docs == 1 &&
          !strcmp(l.turns[0].docs[0], "zebra.md") && !strcmp(l.turns[0].search_method, "hybrid") &&
          l.turns[0].relevance == 0.75 && !strcmp(l.turns[1].search_method, "") && isnan(l.turns[1].relevance) &&
          !strcmp(l.turns[1].agent_response, "Lava erupts from craters.") && !l.scores, "the fields kept");
    hx_turn_list_free(&l);
    CHECK(turns_of(s, "nosuch", buf, sizeof buf) == 0, "an unknown conversation has no turns");
    hx_conversation_list cl;
    CHECK(hx_session_list_sessions(s, &cl, &err) == 0 && cl.n == 2 && !strcmp(cl.v[0].session_id, "c2") &&
          cl.v[0].turns == 1 && !strcmp(cl.v[1].session_id, "c1") && cl.v[1].turns == 2 &&
          cl.v[0].last_turn_ns >= cl.v[1].last_turn_ns, "c2 is the newest: %s", err.message);
    hx_conversation_list_free(&cl);

    hx_history_score sc;
    CHECK(history_first(s, "volcanoes", HX_MODE_KEYWORD, NULL, buf, sizeof buf, &sc) == 1 &&
          !strcmp(buf, "What about volcanoes?") && isnan(sc.similarity) && sc.keyword_score > 0 &&
          sc.score == sc.keyword_score, "keyword: %s", buf);
    CHECK(history_first(s, "bread made with a starter", HX_MODE_VECTOR, NULL, buf, sizeof buf, &sc) == 3 &&
          !strcmp(buf, "Tell me about sourdough") && !isnan(sc.similarity) && isnan(sc.keyword_score),
          "vector: %s", buf);
    CHECK(history_first(s, "zebras", HX_MODE_HYBRID, NULL, buf, sizeof buf, NULL) >= 1 &&
          !strcmp(buf, "How do zebras sleep?"), "hybrid: %s", buf);
    CHECK(history_first(s, "zebras", HX_MODE_KEYWORD, "c2", buf, sizeof buf, NULL) == 0, "not within c2");
    hx_session_close(s);

    /* identities: the same conversation id is another conversation; nothing crosses */
    hx_identity acme = {"acme", NULL}, alice = {"acme", "alice"};
    s = open_session(&acme, NULL, false);
    CHECK(record(s, "c1", "Acme's secret plan", "Kept in the vault.") == 1, "acme's c1 starts at 1");
    CHECK(turns_of(s, "c1", buf, sizeof buf) == 1 && !strcmp(buf, "1:Acme's secret plan"), "acme's c1: %s", buf);
    CHECK(history_first(s, "zebras", HX_MODE_KEYWORD, NULL, buf, sizeof buf, NULL) == 0, "acme finds no zebras");
    CHECK(hx_session_list_sessions(s, &cl, &err) == 0 && cl.n == 1 && cl.v[0].turns == 1, "acme lists its own");
    hx_conversation_list_free(&cl);
    hx_session_close(s);
    s = open_session(&alice, NULL, false);
    CHECK(turns_of(s, "c1", buf, sizeof buf) == 0, "alice does not see her tenant's turns");
    hx_session_close(s);
    s = open_session(NULL, NULL, false);
    CHECK(turns_of(s, "c1", buf, sizeof buf) == 2 &&
              history_first(s, "secret", HX_MODE_KEYWORD, NULL, buf, sizeof buf, NULL) == 0,
          "no identity: acme's turn not among its own");
    hx_session_close(s);

    /* retention: 2 turns per conversation, 3 per identity, 4 identities; only globex's own go */
    hx_identity globex = {"globex", NULL}, initech = {"initech", NULL};
    hx_session_config c = {.db = db, .no_user_tier = true, .registry = "", .identity = &globex, .model = model,
                           .memory = {2, 3, 4}};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open with limits");
    record(s, "r", "one", "");
    record(s, "r", "two", "");
    CHECK(record(s, "r", "three", "") == 3 && turns_of(s, "r", buf, sizeof buf) == 2 && !strcmp(buf, "2:two 3:three"),
          "two kept per conversation: %s", buf);
    record(s, "r2", "four", "");
    record(s, "r2", "five", "");
    CHECK(turns_of(s, "r", buf, sizeof buf) == 1 && !strcmp(buf, "3:three"), "three kept per identity: %s", buf);
    hx_session_close(s);
    s = open_session(NULL, NULL, false);
    CHECK(turns_of(s, "c1", buf, sizeof buf) == 2 && turns_of(s, "c2", buf, sizeof buf) == 1,
          "another identity's turns are kept");
    hx_session_close(s);
    c.identity = &initech;
    c.memory = (hx_memory_limits){0, 0, 3};   /* "", acme and globex hold turns */
    CHECK(hx_session_open(&s, &c, &err) == 0, "open");
    t = (hx_turn){.session = "x", .user_message = "hello", .relevance = NAN};
    CHECK(hx_session_record_turn(s, &t, &done, &err) == HX_ERANGE && strstr(err.message, "identities"),
          "a fourth identity is refused: %s", err.message);
    hx_session_close(s);

    /* bad arguments */
    s = open_session(NULL, NULL, true);
    CHECK(hx_session_record_turn(s, &t, &done, &err) == HX_EPERM, "read-only: %s", err.message);
    CHECK(turns_of(s, "c1", buf, sizeof buf) == 2, "a read-only session reads");
    hx_session_close(s);
    s = open_session(NULL, NULL, false);
    hx_turn bad[] = {{.session = "", .user_message = "x", .relevance = NAN},
                     {.session = "x", .relevance = NAN},
                     {.session = "x", .user_message = "x", .search_method = "telepathy", .relevance = NAN},
                     {.session = "x", .user_message = "x", .n_docs = 1, .relevance = NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(hx_session_record_turn(s, &bad[i], &done, &err) == HX_EINVAL && err.message[0], "bad turn %zu: %s", i,
              err.message);
    t = (hx_turn){.session = "x", .user_message = "x", .relevance = 1.5};
    CHECK(hx_session_record_turn(s, &t, &done, &err) == HX_ERANGE, "relevance 1.5: %s", err.message);
    hx_history_query hq = {"zebras", HX_MODE_KEYWORD, HX_HISTORY_K_MAX + 1, NULL};
    CHECK(hx_session_search_history(s, &hq, &l, &err) == HX_EINVAL, "k too large");
    hq = (hx_history_query){"", HX_MODE_KEYWORD, 0, NULL};
    CHECK(hx_session_search_history(s, &hq, &l, &err) == HX_EINVAL && strstr(err.message, "empty"), "empty query");
    CHECK(hx_session_get_session(s, "", &l, &err) == HX_EINVAL, "an empty conversation id");
    CHECK(turns_of(s, "x", buf, sizeof buf) == 0, "nothing recorded by the refusals");
    hx_session_close(s);

    char missing[PATH_MAX + 32];   /* no memory file yet: empty answers */
    snprintf(missing, sizeof missing, "%s/fresh.hyx", root);
    c = (hx_session_config){.db = missing, .no_user_tier = true, .registry = "", .model = model};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open");
    CHECK(turns_of(s, "c1", buf, sizeof buf) == 0 && history_first(s, "zebras", HX_MODE_HYBRID, NULL, buf, sizeof buf,
                                                                    NULL) == 0, "no memory file: no turns");
    CHECK(hx_session_list_sessions(s, &cl, &err) == 0 && cl.n == 0, "no memory file: no conversations");
    hx_session_close(s);
}

/* === Publish: what is refused before the registry is asked (tests/test_registry.c publishes) === */

static void test_publish(void)
{
    const char *reg = "postgresql://nobody@/x?host=/nonexistent";
    hx_session_config c = {.db = db, .root = proj, .no_user_tier = true, .registry = reg, .model = model};
    hx_session *s = NULL;
    hx_error err = {0};
    hx_publish_report rep;
    const char *outside[] = {"../elsewhere"}, *none[] = {NULL};
    hx_publish_request p = {.paths = outside, .n_paths = 1, .allow_unsigned = true};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open");
    CHECK(hx_session_publish(s, &p, NULL, &rep, &err) == HX_EPERM && rep.published == 0, "a path outside the root: %s",
          err.message);
    p = (hx_publish_request){.visibility = "everyone"};
    CHECK(hx_session_publish(s, &p, NULL, &rep, &err) == HX_EINVAL && strstr(err.message, "visibility"),
          "an unknown visibility: %s", err.message);
    p = (hx_publish_request){.paths = none, .n_paths = 1};
    CHECK(hx_session_publish(s, &p, NULL, &rep, &err) == HX_EINVAL, "a NULL path");
    CHECK(hx_session_publish(s, NULL, NULL, &rep, &err) == HX_EINVAL, "no request");
    p = (hx_publish_request){.n_paths = 0};
    CHECK(hx_session_publish(s, &p, NULL, &rep, &err) != 0 && err.message[0], "no such registry: %s", err.message);
    hx_publish_report_clear(&rep);
    hx_session_close(s);

    c.registry = "";
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_publish(s, &p, NULL, &rep, &err) == HX_EINVAL &&
          strstr(err.message, "no registry"), "no registry named: %s", err.message);
    hx_session_close(s);
    c.registry = reg;
    c.read_only = true;
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_publish(s, &p, NULL, &rep, &err) == HX_EPERM,
          "read-only: %s", err.message);
    hx_session_close(s);
    char missing[PATH_MAX + 32];
    snprintf(missing, sizeof missing, "%s/none.hyx", root);
    c = (hx_session_config){.db = missing, .no_user_tier = true, .registry = reg, .model = model};
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_publish(s, &p, NULL, &rep, &err) == HX_EINVAL &&
          strstr(err.message, "root"), "no root and no index: %s", err.message);
    hx_session_close(s);

    hx_model *int8 = NULL;
    hx_model_opts mo = {NULL, HX_PRECISION_INT8};
    CHECK(hx_model_open_opts(&int8, &mo, &err) == 0, "the int8 model: %s", err.message);
    c = (hx_session_config){.db = db, .root = proj, .no_user_tier = true, .registry = reg, .model = int8};
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_publish(s, &p, NULL, &rep, &err) == HX_EINVAL &&
          strstr(err.message, "fp32"), "an int8 model: %s", err.message);
    hx_session_close(s);
    hx_model_close(int8);
}

/* === Bad arguments === */

static void test_errors(void)
{
    hx_session *s = NULL;
    hx_error err = {0};
    hx_session_config c = {0};
    CHECK(hx_session_open(&s, NULL, &err) == HX_EINVAL && strstr(err.message, "db"), "no config: %s", err.message);
    CHECK(hx_session_open(&s, &c, &err) == HX_EINVAL && !s, "no db");
    hx_identity bad = {NULL, "alice"};
    c = (hx_session_config){.db = db, .identity = &bad};
    CHECK(hx_session_open(&s, &c, &err) == HX_EINVAL && strstr(err.message, "tenant"), "a user without a tenant: %s",
          err.message);
    c = (hx_session_config){.db = db, .registry_timeout_ms = -1};
    CHECK(hx_session_open(&s, &c, &err) == HX_EINVAL, "a negative timeout");
    c = (hx_session_config){.db = db, .root = "relative/folder"};
    CHECK(hx_session_open(&s, &c, &err) == HX_EINVAL && strstr(err.message, "absolute"), "a relative root: %s",
          err.message);

    s = open_session(NULL, NULL, false);
    hx_session_query q;
    hx_session_answer a;
    hx_session_query_init(&q, "");
    CHECK(hx_session_search(s, &q, &a, &err) == HX_EINVAL && strstr(err.message, "empty"), "empty query");
    CHECK(hx_session_search(NULL, &q, &a, &err) == HX_EINVAL, "no session");
    hx_session_query_init(&q, "zebras");
    q.opts.vector_weight = -1;
    q.opts.text_weight = 1;
    CHECK(hx_session_search(s, &q, &a, &err) == HX_EINVAL && err.message[0], "bad weights: %s", err.message);
    hx_session_query_init(&q, "zebras");
    q.source = (hx_search_source)9;
    CHECK(hx_session_search(s, &q, &a, &err) == HX_EINVAL, "bad source");
    hx_session_query_init(&q, "zebras");
    q.at = (hx_read_context){HX_READ_BASELINE, "nosuch", 0};
    CHECK(hx_session_search(s, &q, &a, &err) == HX_ENOTFOUND && strstr(err.message, "nosuch"), "unknown baseline: %s",
          err.message);
    q.at = (hx_read_context){HX_READ_BASELINE, NULL, 0};
    CHECK(hx_session_search(s, &q, &a, &err) == HX_EINVAL, "a baseline without a name");
    hx_session_close(s);

    char missing[PATH_MAX + 32];
    snprintf(missing, sizeof missing, "%s/none.hyx", root);
    c = (hx_session_config){.db = missing, .no_user_tier = true, .registry = "", .model = model};
    CHECK(hx_session_open(&s, &c, &err) == 0, "a session needs no file");
    hx_session_query_init(&q, "zebras");
    CHECK(hx_session_search(s, &q, &a, &err) == HX_ENOTFOUND && strstr(err.message, "no index"), "no index: %s",
          err.message);
    hx_session_info st;
    CHECK(hx_session_status(s, &st, &err) == 0 && !st.project.present && strstr(st.project.reason, "no index"),
          "status of no index");
    CHECK(st.project.error.code == HX_ENOTFOUND && strstr(st.project.error.message, missing) &&
          !strstr(st.project.error.message, "cannot open"), "the reader's own words: %s", st.project.error.message);
    hx_session_write w;
    CHECK(hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == HX_ENOTFOUND && strstr(err.message, "root"),
          "no root to make one: %s", err.message);
    hx_session_close(s);
    hx_session_close(NULL);
}

/* The index file overwritten in place (as cp does) under a session that holds its reader. A cut
 * seen before the read starts is a plain error naming the file; a fault inside a read (the file cut
 * while it is mapped and read; not reproducible here without a race) is HX_ECHANGED with
 * HX_FAULT_MESSAGE, a code of its own. Either way the next call once the file is whole reads it
 * afresh; a file whose last commit is cut short is read at the commit before, and status says so
 * (the damage `hyrax stats` warns of). */
static void test_changed_underneath(void)
{
    CHECK(HX_ECHANGED != HX_EIO && !strcmp(hx_strerror(HX_ECHANGED), "changed underneath the reader"),
          "a code of its own, with its name");
    char copy[PATH_MAX + 48];
    snprintf(copy, sizeof copy, "%s/changing.hyx", root);
    size_t len = 0;
    char *bytes = check_read_file(db, &len);
    FILE *f = fopen(copy, "wb");
    CHECK(bytes && f && fwrite(bytes, 1, len, f) == len && fclose(f) == 0, "copy the index");
    hx_session_config c = {.db = copy, .no_user_tier = true, .registry = "", .model = model, .read_only = true};
    hx_session *s = NULL;
    hx_error err = {0};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open: %s", err.message);
    hx_session_query q;
    hx_session_answer a;
    hx_session_query_init(&q, "zebras");
    q.opts.mode = HX_MODE_KEYWORD;
    CHECK(hx_session_search(s, &q, &a, &err) == 0 && a.results.n, "search the whole file: %s", err.message);
    hx_session_answer_free(&a);
    hx_session_info st;
    CHECK(hx_session_status(s, &st, &err) == 0 && st.project.present && !*st.project.damage, "whole: no damage");
    int fd = open(copy, O_WRONLY);   /* the copy half done */
    CHECK(fd >= 0 && ftruncate(fd, 12288) == 0, "cut the file");
    int rc = hx_session_search(s, &q, &a, &err);
    CHECK(rc == HX_ETRUNCATED && strstr(err.message, "changing.hyx"), "a search of the cut file: %d %s", rc,
          err.message);
    if (!rc)
        hx_session_answer_free(&a);
    CHECK(bytes && fd >= 0 && pwrite(fd, bytes, len, 0) == (ssize_t)len && close(fd) == 0, "write it back");
    CHECK(hx_session_search(s, &q, &a, &err) == 0 && a.results.n, "the next search reads it afresh: %s", err.message);
    hx_session_answer_free(&a);
    CHECK(truncate(copy, (off_t)len - 1) == 0, "cut its last byte: the last commit is incomplete");
    CHECK(hx_session_status(s, &st, &err) == 0 && st.project.present && strstr(st.project.damage, "slot"),
          "the commit before it is read and the damage is said: %s",
          st.project.present ? st.project.damage : st.project.reason);
    hx_session_close(s);
    free(bytes);
}

/* === What the command line asks: names, filters, reindex options, paths, removal, the registry === */

static void test_surface_calls(void)
{
    hx_search_mode m = HX_MODE_HYBRID;
    hx_group g = HX_GROUP_CHUNK;
    hx_search_source src = HX_SEARCH_ALL;
    CHECK(hx_mode_parse("semantic", &m) == 0 && m == HX_MODE_VECTOR && hx_mode_parse("full_text", &m) == 0 &&
          m == HX_MODE_KEYWORD, "mode aliases");
    CHECK(hx_mode_parse("fuzzy", &m) == HX_EINVAL && m == HX_MODE_KEYWORD, "an unknown mode, out untouched");
    CHECK(hx_group_parse("document", &g) == 0 && g == HX_GROUP_DOCUMENT && !strcmp(hx_group_names[HX_GROUP_CHUNK], "chunk"),
          "groups");
    CHECK(hx_search_source_parse("registry", &src) == 0 && src == HX_SEARCH_REGISTRY &&
          !strcmp(hx_search_source_names[HX_SEARCH_USER], "user") && hx_search_source_parse("all ", &src) == HX_EINVAL,
          "sources");
    hx_filter_set fs = {0};
    hx_error err = {0};
    CHECK(hx_filter_parse_arg(&fs, "type=markdown", &err) == 0 && hx_filter_parse_arg(&fs, "year>=2020", &err) == 0 &&
          fs.n == 2 && !strcmp(fs.v[0].key, "type") && !strcmp(fs.v[0].value, "markdown") && !strcmp(fs.v[1].lo, "2020") &&
          !fs.v[1].lo_strict && !fs.v[1].hi, "two filters parsed: %s", err.message);
    CHECK(hx_filter_parse_arg(&fs, "=x", &err) == HX_EINVAL && err.message[0] && fs.n == 2, "a filter without a key");
    hx_filter_set_free(&fs);
    CHECK(hx_fusion_check_weights(0.7f, 0.3f, &err) == 0 && hx_fusion_check_weights(0, 0, &err) == HX_EINVAL,
          "fusion weights");

    /* a first write with paths as a command line gives them: refused before anything is made */
    char dir[PATH_MAX + 16], newdb[PATH_MAX + 64], big[300], path[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/cli", root);
    snprintf(newdb, sizeof newdb, "%s/.hyrax/index.hyx", dir);
    memset(big, 'b', sizeof big - 1);
    big[sizeof big - 1] = 0;
    snprintf(path, sizeof path, "%s/sub", dir);
    CHECK(mkdir(dir, 0755) == 0 && mkdir(path, 0755) == 0, "folders");
    check_put(dir, "a.md", "# Alpha\n\nAardvarks dig at night.\n");
    check_put(dir, "big.md", big);
    check_put(dir, "sub/b.md", "# Beta\n\nBadgers sleep by day.\n");
    check_put(dir, "sub/c.md", "# Gamma\n\nCamels cross the dunes.\n");
    hx_session_config c = {.db = newdb, .root = dir, .no_user_tier = true, .registry = "", .model = model, .threads = 1};
    hx_session *s = NULL;
    hx_session_write w;
    hx_write_opts cwd = {NULL, NULL, true};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open: %s", err.message);
    snprintf(path, sizeof path, "%s/missing.md", dir);
    const char *missing[] = {path}, *outside[] = {proj}, *all[] = {dir};
    CHECK(hx_session_reindex(s, &(hx_reindex_opts){.paths = missing, .n_paths = 1}, &cwd, &w, &err) == HX_ENOTFOUND &&
          strstr(err.message, "missing.md") && strstr(err.message, "; no index created"), "a missing path: %s",
          err.message);
    CHECK(hx_session_reindex(s, &(hx_reindex_opts){.paths = outside, .n_paths = 1}, &cwd, &w, &err) == HX_EPERM &&
          strstr(err.message, "outside the indexed root") && strstr(err.message, "; no index created"),
          "a path outside the root: %s", err.message);
    snprintf(path, sizeof path, "%s/.hyrax", dir);
    CHECK(access(path, F_OK) != 0, "nothing was created");
    /* the options of `hyrax index`: a size limit, compaction, and the counts after the write */
    hx_reindex_opts o = {.paths = all, .n_paths = 1, .max_file_bytes = 100, .commit_chunks = 1, .compact = true};
    CHECK(hx_session_reindex(s, &o, &cwd, &w, &err) == 0, "reindex: %s", err.message);
    CHECK(w.report.added == 3 && w.report.n_rejected == 1 && strstr(w.report.rejected[0].reason, "big.md") &&
          w.report.commits == 3, "3 added in 3 commits, big.md rejected: %zu, %zu, %zu", w.report.added,
          w.report.n_rejected, w.report.commits);
    CHECK(w.stats.documents == 3 && w.stats.live_chunks == 3 && w.stats.segments == 1 && w.stats.tombstones == 0 &&
          !strcmp(w.root, dir), "compacted: %llu documents, %llu segments, root %s",
          (unsigned long long)w.stats.documents, (unsigned long long)w.stats.segments, w.root);
    hx_session_write_clear(&w);
    hx_session_close(s);

    /* removal by folder, as `hyrax rm` does it: no model is loaded */
    c.model = NULL;
    c.weights = "/nonexistent/weights.hxw";   /* a removal that loaded a model would fail */
    CHECK(hx_session_open(&s, &c, &err) == 0, "open without a model: %s", err.message);
    const char *dot[] = {"."}, *nothing[] = {"nothing.md"}, *sub[] = {"sub"};
    CHECK(hx_session_delete_paths(s, dot, 1, &cwd, &w, &err) == HX_EINVAL && strstr(err.message, "indexed root"),
          "the root is refused: %s", err.message);
    CHECK(hx_session_delete_paths(s, nothing, 1, NULL, &w, &err) == HX_ENOTFOUND, "a name of nothing: %s", err.message);
    CHECK(hx_session_delete_paths(s, sub, 1, NULL, &w, &err) == 0 && w.report.removed == 2 &&
          w.report.chunks_removed == 2 && w.stats.documents == 1, "a folder's 2 documents removed: %s", err.message);
    hx_session_write_clear(&w);
    hx_session_info info;
    CHECK(hx_session_status(s, &info, &err) == 0 && !info.model_loaded && info.project.stats.documents == 1,
          "no model was loaded; 1 document left");
    CHECK(hx_session_registry_init(s, NULL, &err) == HX_EINVAL && strstr(err.message, "no registry"),
          "init without a registry: %s", err.message);
    hx_session_close(s);

    /* sync: the project's documents copied up to a user index made on the way, at the same precision */
    char up[PATH_MAX + 128], updir[PATH_MAX + 64];
    snprintf(updir, sizeof updir, "%s/up/more", root);
    snprintf(up, sizeof up, "%s/user.hyx", updir);
    c = (hx_session_config){.db = newdb, .user_db = up, .registry = "", .model = model, .threads = 1};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open: %s", err.message);
    CHECK(hx_session_sync(s, NULL, 0, NULL, &w, &err) == 0 && w.report.added == 1 && w.stats.documents == 1 &&
          !strcmp(w.root, updir), "a.md copied up: %s (%zu, root %s)", err.message, w.report.added, w.root);
    hx_session_write_clear(&w);
    const char *a_md[] = {"a.md"};
    CHECK(hx_session_sync(s, a_md, 1, NULL, &w, &err) == 0 && w.report.unchanged == 1 && w.report.added == 0,
          "the same bytes again: unchanged (%s)", err.message);
    hx_session_write_clear(&w);
    const char *gone[] = {"sub"};
    CHECK(hx_session_sync(s, gone, 1, NULL, &w, &err) == HX_ENOTFOUND, "a folder of no document: %s", err.message);
    hx_session_write_clear(&w);
    CHECK(search_paths(s, "aardvarks", HX_MODE_KEYWORD, HX_SEARCH_USER, NULL, path, sizeof path, NULL) == 1 &&
          strstr(path, "a.md"), "the user tier answers with the copy: %s", path);
    hx_session_close(s);
    c.user_db = user8_db;
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_sync(s, NULL, 0, NULL, &w, &err) == HX_EINVAL &&
          strstr(err.message, "precisions must match"), "an int8 user index is refused: %s", err.message);
    hx_session_write_clear(&w);
    hx_session_close(s);

    /* the registry by libpq's defaults, when asked for */
    unsetenv("HYRAX_REGISTRY");
    c = (hx_session_config){.db = newdb, .no_user_tier = true, .registry_defaults = true, .read_only = true};
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_status(s, &info, &err) == 0 && info.registry,
          "libpq's defaults name a registry");
    CHECK(hx_session_registry_init(s, NULL, &err) == HX_EPERM, "a read-only session changes no registry");
    hx_session_answer ans;
    hx_session_query q;
    hx_session_query_init(&q, "aardvarks");
    q.opts.mode = HX_MODE_KEYWORD;
    CHECK(hx_session_search(s, &q, &ans, &err) == 0 && ans.n_tiers && !strcmp(ans.tiers[0].name, HX_TIER_PROJECT),
          "a search of every tier: %s", err.message);
    for (size_t i = 0; i < ans.n_tiers; i++)
        CHECK(strcmp(ans.tiers[i].name, HX_TIER_REGISTRY), "it asks no registry libpq's defaults name: %s",
              ans.tiers[i].reason ? ans.tiers[i].reason : "searched");
    hx_session_answer_free(&ans);
    q.source = HX_SEARCH_REGISTRY;
    CHECK(hx_session_search(s, &q, &ans, &err) == 0 && ans.n_tiers == 1 && !strcmp(ans.tiers[0].name, HX_TIER_REGISTRY) &&
              !(ans.tiers[0].reason && strstr(ans.tiers[0].reason, "no registry")),
          "the registry alone is asked there: %s", ans.n_tiers && ans.tiers[0].reason ? ans.tiers[0].reason : err.message);
    hx_session_answer_free(&ans);
    hx_session_close(s);
    c.registry_defaults = false;
    CHECK(hx_session_open(&s, &c, &err) == 0 && hx_session_status(s, &info, &err) == 0 && !info.registry,
          "without them no registry");
    hx_session_close(s);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_session_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(proj, sizeof proj, "%s/proj", root);
    snprintf(userdir, sizeof userdir, "%s/mine", root);
    snprintf(db, sizeof db, "%s/proj.hyx", root);
    snprintf(user_db, sizeof user_db, "%s/user.hyx", root);
    snprintf(user8_db, sizeof user8_db, "%s/user8.hyx", root);
    char empty[PATH_MAX + 32];
    snprintf(empty, sizeof empty, "%s/empty", proj);
    CHECK(mkdir(proj, 0755) == 0 && mkdir(userdir, 0755) == 0 && mkdir(empty, 0755) == 0, "folders");
    hx_error err = {0};
    CHECK(hx_model_open_default(&model, &err) == 0, "model: %s", err.message);
    if (model) {
        write_corpus();
        test_writes();
        test_search();
        test_tiers();
        test_identity();
        test_documents();
        test_context();
        test_memory();
        test_publish();
        test_errors();
        test_changed_underneath();
        test_surface_calls();
    }
    hx_model_close(model);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_session");
}
