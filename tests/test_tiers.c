/* test_tiers.c: a project index and a user index searched as one (`hyrax help tiers`; hyrax.h
 * hx_tiers_search, hx_tier_sync). Through $HYRAX_BIN: `hyrax sync --to user` round trip (origin
 * metadata checked against sha256sum and realpath, unchanged bytes left alone, changed bytes
 * updated, a path outside the project refused), the user index found at $HYRAX_USER_DB, then
 * $XDG_DATA_HOME/hyrax/user.hyx, then $HOME/.local/share/hyrax/user.hyx, a missing user index
 * reported in the answer's tiers (not an error), one at another precision not searched, `--source` each way, every result labelled with
 * its tier, content in both tiers answered once by the project, and a time read_context older than
 * the user index. Through `hyrax serve`: the `source` argument of search and of a seed's search
 * tool, with tiers in the answer. Through the library: the fused order of hx_tiers_search against a brute-force
 * reciprocal rank fusion of each tier's own hx_index_search list, in chunk and document grouping. */
#include "check.h"
#include "hyrax.h"
#include "json.h"
#include "serve_client.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX], proj[PATH_MAX + 16], other[PATH_MAX + 16], user_db[PATH_MAX + 32];

/* A shell command (formatted) with the test's environment; stdout into *out (caller frees). */
static int sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sh(char **out, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return check_run(cmd, out);
}

/* `hyrax search --json` in the project with HYRAX_USER_DB set; the parsed answer or NULL. */
static hxi_json_doc *search(const char *flags, const char *query)
{
    char *out;
    hxi_json_doc *d = NULL;
    int rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" search --json --min-score 0 %s -- '%s'", proj,
                user_db, flags, query);
    CHECK(rc == 0 && hxi_json_parse(&d, out, strlen(out), NULL, NULL) == 0, "search %s %s: %.300s", flags, query, out);
    free(out);
    return d;
}

static const hxi_json_val *results(const hxi_json_doc *d)
{
    return hxi_json_obj_get(hxi_json_doc_root(d), "results");
}

static const char *field(const hxi_json_val *o, const char *key)
{
    const char *s = hxi_json_str(hxi_json_obj_get(o, key), NULL);
    return s ? s : "";
}

/* How many results have this path and tier. */
static size_t count(const hxi_json_doc *d, const char *path, const char *tier)
{
    size_t n = 0;
    for (size_t i = 0; i < hxi_json_len(results(d)); i++) {
        const hxi_json_val *r = hxi_json_arr_get(results(d), i);
        n += !strcmp(field(r, "path"), path) && !strcmp(field(r, "tier"), tier);
    }
    return n;
}

/* The tiers member of the answer for `tier`, or NULL. */
static const hxi_json_val *tier_of(const hxi_json_doc *d, const char *tier)
{
    const hxi_json_val *ts = hxi_json_obj_get(hxi_json_doc_root(d), "tiers");
    for (size_t i = 0; i < hxi_json_len(ts); i++)
        if (!strcmp(field(hxi_json_arr_get(ts, i), "tier"), tier))
            return hxi_json_arr_get(ts, i);
    return NULL;
}

/* === Command line === */

static void test_missing_user(void)
{
    hxi_json_doc *d = search("", "scheduler places pods");
    const hxi_json_val *u = tier_of(d, "user"), *p = tier_of(d, "project");
    CHECK(u && hxi_json_bool(hxi_json_obj_get(u, "searched")) == 0 && strstr(field(u, "reason"), "no index"),
          "a missing user index is reported, not searched");
    CHECK(p && hxi_json_bool(hxi_json_obj_get(p, "searched")) == 1, "the project tier is searched");
    CHECK(hxi_json_len(results(d)) >= 1 && count(d, "shared.md", "project") == 1, "project results labelled project");
    hxi_json_doc_free(d);
}

/* sha256sum's hash of a file into hex[65]. */
static void sha256sum(const char *path, char hex[65])
{
    char *out;
    sh(&out, "sha256sum '%s'", path);
    snprintf(hex, 65, "%.64s", out);
    free(out);
}

static void test_sync(void)
{
    char *out, path[2 * PATH_MAX], want[65];
    int rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user shared.md 2>&1", proj, user_db);
    CHECK(rc == 0 && strstr(out, "added 1, updated 0, unchanged 0, rejected 0"), "first sync adds: %s", out);
    free(out);
    CHECK(access(user_db, R_OK) == 0, "the first sync creates the user index at $HYRAX_USER_DB");
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user --db '%s/.hyrax/index.hyx' '%s' 2>&1",
            proj, user_db, other, other);
    CHECK(rc == 0 && strstr(out, "added 2,"), "a second project's folder synced: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user shared.md 2>&1", proj, user_db);
    CHECK(rc == 0 && strstr(out, "added 0, updated 0, unchanged 1, rejected 0 (+0/-0 chunks)"),
          "the same bytes again: unchanged, nothing embedded: %s", out);
    free(out);

    hxi_json_doc *d = search("--source user", "scheduler places pods");
    const hxi_json_val *r = NULL;
    for (size_t i = 0; i < hxi_json_len(results(d)); i++)
        if (!strcmp(field(hxi_json_arr_get(results(d), i), "path"), "proj/shared.md"))
            r = hxi_json_arr_get(results(d), i);
    snprintf(path, sizeof path, "%s/shared.md", proj);
    sha256sum(path, want);
    const hxi_json_val *m = hxi_json_obj_get(r, "metadata");
    CHECK(r && !strcmp(field(r, "tier"), "user"), "stored in the user tier as <project folder>/<path>");
    CHECK(!strcmp(field(m, "origin_root"), proj) && !strcmp(field(m, "origin_path"), "shared.md") &&
          !strcmp(field(m, "origin_sha256"), want) && !strcmp(field(r, "version"), want),
          "origin metadata: root %s, path %s, hash %s (sha256sum %s)", field(m, "origin_root"),
          field(m, "origin_path"), field(m, "origin_sha256"), want);
    hxi_json_doc_free(d);

    /* changed bytes on disk are read again: updated */
    check_put(proj, "notes/changed.md", "# Draining\n\nDrain a node before maintenance so its pods move elsewhere.\n");
    sh(&out, "cd '%s' && \"$HYRAX_BIN\" index . 2>&1", proj);
    free(out);
    sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user notes 2>&1", proj, user_db);
    free(out);
    check_put(proj, "notes/changed.md", "# Draining\n\nCordon, then drain a node before maintenance.\n");
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user notes/changed.md 2>&1", proj, user_db);
    CHECK(rc == 0 && strstr(out, "added 0, updated 1, unchanged 0"), "changed bytes: updated: %s", out);
    free(out);

    /* a path outside the project, and a name the project does not hold, are refused; nothing changes */
    check_put(dir, "outside.md", "# Outside\n\nNot part of the project.\n");
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user '%s/outside.md' 2>&1", proj, user_db, dir);
    CHECK(rc != 0 && strstr(out, "outside"), "a path outside the project is refused: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user ../outside.md 2>&1", proj, user_db);
    CHECK(rc != 0 && strstr(out, "outside"), "../ out of the project is refused: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user shared.md nothing-here.md 2>&1", proj,
            user_db);
    CHECK(rc != 0 && strstr(out, "nothing-here.md"), "a name with no project document is refused: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync shared.md 2>&1", proj, user_db);
    CHECK(rc == 2 && strstr(out, "--to user"), "sync without --to is refused: %s", out);
    free(out);
    d = search("--source user --mode keyword", "outside project");
    CHECK(d && count(d, "proj/outside.md", "user") == 0, "nothing outside was copied");
    hxi_json_doc_free(d);
}

static void test_sources(void)
{
    /* content in both tiers comes once, from the project */
    hxi_json_doc *d = search("--group chunk -k 20", "scheduler places pods on nodes");
    CHECK(count(d, "shared.md", "project") == 1 && count(d, "proj/shared.md", "user") == 0,
          "the same content in both tiers: once, the project's (%zu, %zu)", count(d, "shared.md", "project"),
          count(d, "proj/shared.md", "user"));
    hxi_json_doc_free(d);
    d = search("--group document -k 20", "scheduler places pods on nodes");
    CHECK(count(d, "shared.md", "project") == 1 && count(d, "proj/shared.md", "user") == 0,
          "grouped by document: once, the project's");
    hxi_json_doc_free(d);

    /* labels: each result says its tier, in the result and in its citation */
    d = search("-k 20", "priority classes preempt pods");
    CHECK(count(d, "other/priority.md", "user") == 1, "user-only content comes from the user tier");
    CHECK(count(d, "shared.md", "project") <= 1, "project content labelled project");
    bool cited = hxi_json_len(results(d)) > 0;
    for (size_t i = 0; i < hxi_json_len(results(d)); i++) {
        const hxi_json_val *r = hxi_json_arr_get(results(d), i);
        cited = cited && !strcmp(field(hxi_json_obj_get(r, "citation"), "tier"), field(r, "tier")) && *field(r, "tier");
    }
    CHECK(cited, "every result's citation names its tier");
    const hxi_json_val *u = tier_of(d, "user");
    CHECK(u && hxi_json_bool(hxi_json_obj_get(u, "searched")) == 1, "the user tier is searched when it exists");
    hxi_json_doc_free(d);

    /* --source project: the user tier is not read; --source user: only it */
    d = search("--source project -k 20", "priority classes preempt pods");
    CHECK(count(d, "other/priority.md", "user") == 0 && !tier_of(d, "user"), "--source project reads no user tier");
    for (size_t i = 0; i < hxi_json_len(results(d)); i++)
        CHECK(!strcmp(field(hxi_json_arr_get(results(d), i), "tier"), "project"), "--source project: project only");
    hxi_json_doc_free(d);
    d = search("--source user -k 20", "scheduler places pods on nodes");
    CHECK(!tier_of(d, "project") && count(d, "proj/shared.md", "user") == 1, "--source user reads the user tier only");
    for (size_t i = 0; i < hxi_json_len(results(d)); i++)
        CHECK(!strcmp(field(hxi_json_arr_get(results(d), i), "tier"), "user"), "--source user: user only");
    hxi_json_doc_free(d);

    /* text output: the tier after the score */
    char *out;
    sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" search --min-score 0 -k 20 priority classes preempt", proj,
       user_db);
    CHECK(strstr(out, "1. ") && strstr(out, "other/priority.md:") && strstr(out, ", user)"), "text labels: %s", out);
    free(out);
    int rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" search --source nowhere pods 2>&1", proj, user_db);
    CHECK(rc == 2 && strstr(out, "all, project, user or registry"), "--source names its choices: %s", out);
    free(out);

}

static void test_as_of(void)
{
    /* a user index made after a time the project index had a commit: as of that time it had nothing */
    char *out, db2[PATH_MAX + 32], flags[100];
    snprintf(db2, sizeof db2, "%s/late.hyx", dir);
    sleep(1);   /* whole seconds: the project's commit lies before t, the user index's after it */
    snprintf(flags, sizeof flags, "--as-of %lld -k 20", (long long)time(NULL));
    sleep(1);
    sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user shared.md 2>&1", proj, db2);
    free(out);
    int rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" search --json --min-score 0 %s scheduler", proj, db2,
                flags);
    CHECK(rc == 0 && strstr(out, "\"searched\":false") && strstr(out, "no commit at or before"),
          "as_of older than the user index: not consulted: %.600s", out);
    free(out);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" search --source user --baseline x scheduler 2>&1", proj,
            db2);
    CHECK(rc != 0 && strstr(out, "--baseline"), "a baseline names a project commit: refused with --source user: %s", out);
    free(out);
}

/* A user index at another precision than the project's: not searched (one query vector serves
 * both), and sync refuses to write into it. */
static void test_precision(void)
{
    char *out, db8[PATH_MAX + 32];
    snprintf(db8, sizeof db8, "%s/int8.hyx", dir);
    int rc = sh(&out, "cd '%s' && \"$HYRAX_BIN\" index --precision int8 --db '%s' . 2>&1", other, db8);
    CHECK(rc == 0, "an int8 index: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" search --json --min-score 0 priority", proj, db8);
    hxi_json_doc *d = NULL;
    CHECK(rc == 0 && hxi_json_parse(&d, out, strlen(out), NULL, NULL) == 0, "search: %.300s", out);
    free(out);
    const hxi_json_val *u = d ? tier_of(d, "user") : NULL;
    size_t total = 0;
    CHECK(u && hxi_json_bool(hxi_json_obj_get(u, "searched")) == 0 && strstr(field(u, "reason"), "holds int8 vectors"),
          "a user index at int8 beside an fp32 project is not searched: %s", u ? field(u, "reason") : "-");
    for (size_t i = 0; d && i < hxi_json_len(results(d)); i++)
        total += !strcmp(field(hxi_json_arr_get(results(d), i), "tier"), "user");
    CHECK(d && hxi_json_len(results(d)) > 0 && total == 0, "only project results");
    hxi_json_doc_free(d);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s' \"$HYRAX_BIN\" sync --to user shared.md 2>&1", proj, db8);
    CHECK(rc != 0 && strstr(out, "precision"), "sync into it is refused: %s", out);
    free(out);
}

static void test_user_path(void)
{
    char *out, want[2 * PATH_MAX];
    int rc = sh(&out, "cd '%s' && unset HYRAX_USER_DB; XDG_DATA_HOME='%s/xdg' \"$HYRAX_BIN\" sync --to user shared.md "
                "2>&1", proj, dir);
    snprintf(want, sizeof want, "%s/xdg/hyrax/user.hyx", dir);
    CHECK(rc == 0 && access(want, R_OK) == 0, "$XDG_DATA_HOME/hyrax/user.hyx: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && unset HYRAX_USER_DB XDG_DATA_HOME; HOME='%s/home' \"$HYRAX_BIN\" sync --to user shared.md "
            "2>&1", proj, dir);
    snprintf(want, sizeof want, "%s/home/.local/share/hyrax/user.hyx", dir);
    CHECK(rc == 0 && access(want, R_OK) == 0, "$HOME/.local/share/hyrax/user.hyx: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && HYRAX_USER_DB='%s/env.hyx' XDG_DATA_HOME='%s/xdg2' \"$HYRAX_BIN\" sync --to user "
            "shared.md 2>&1", proj, dir, dir);
    snprintf(want, sizeof want, "%s/env.hyx", dir);
    CHECK(rc == 0 && access(want, R_OK) == 0, "$HYRAX_USER_DB comes first: %s", out);
    snprintf(want, sizeof want, "%s/xdg2", dir);
    CHECK(access(want, F_OK) != 0, "and then $XDG_DATA_HOME is not used");
    free(out);
}

/* === MCP === */

/* tools/call name args on s; the parsed answer's result (borrowed from *doc, caller frees). */
static const hxi_json_val *tool(server *s, hxi_json_doc **doc, const char *name, const char *args)
{
    static int id = 10;
    char line[2048];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}", id++, name, args);
    send_line(s, line);
    char *out = read_line(s, 60000);
    *doc = NULL;
    CHECK(out && hxi_json_parse(doc, out, strlen(out), NULL, NULL) == 0, "%s: JSON answer: %.200s", name, out ? out : "-");
    free(out);
    return *doc ? get(hxi_json_doc_root(*doc), "result") : NULL;
}

/* How many results of a tool answer come from `tier`, and how many in all into *total. */
static size_t tool_tier_count(const hxi_json_val *r, const char *tier, size_t *total)
{
    const hxi_json_val *rs = get(r, "structuredContent.results");
    size_t n = 0;
    *total = hxi_json_len(rs);
    for (size_t i = 0; i < *total; i++)
        n += !strcmp(field(hxi_json_arr_get(rs, i), "tier"), tier);
    return n;
}

static void test_mcp(void)
{
    server s;
    char pdb[PATH_MAX + 48];
    snprintf(pdb, sizeof pdb, "%s/.hyrax/index.hyx", proj);
    setenv("HYRAX_USER_DB", user_db, 1);
    CHECK(start_in(&s, proj, pdb, 1) == 0, "serve");
    unsetenv("HYRAX_USER_DB");
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                  "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    free(read_line(&s, 60000));
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    hxi_json_doc *d;
    size_t total;
    const hxi_json_val *r = tool(&s, &d, "search", "{\"query\":\"priority classes preempt pods\",\"top_k\":20,\"min_score\":0}");
    CHECK(tool_tier_count(r, "user", &total) >= 1 && tool_tier_count(r, "project", &total) >= 1,
          "search reads both tiers by default");
    const hxi_json_val *ts = get(r, "structuredContent.tiers");
    CHECK(hxi_json_len(ts) == 2 && hxi_json_bool(get(hxi_json_arr_get(ts, 1), "searched")) == 1, "tiers in the answer");
    hxi_json_doc_free(d);
    r = tool(&s, &d, "search", "{\"query\":\"priority classes preempt pods\",\"top_k\":20,\"min_score\":0,\"source\":\"project\"}");
    CHECK(tool_tier_count(r, "project", &total) == total && total > 0, "source project: project results only");
    hxi_json_doc_free(d);
    r = tool(&s, &d, "search", "{\"query\":\"scheduler places pods\",\"top_k\":20,\"min_score\":0,\"source\":\"user\"}");
    CHECK(tool_tier_count(r, "user", &total) == total && total > 0, "source user: user results only");
    hxi_json_doc_free(d);
    r = tool(&s, &d, "semantic_search", "{\"query\":\"scheduler places pods\",\"threshold\":0,\"source\":\"user\"}");
    CHECK(tool_tier_count(r, "user", &total) == total && total > 0, "a seed's search tool takes source too");
    hxi_json_doc_free(d);
    /* get_context: passages from both tiers, each source naming its tier; neighbours from its own index */
    r = tool(&s, &d, "get_context", "{\"query\":\"priority classes preempt pods\",\"min_score\":0}");
    const hxi_json_val *src = get(r, "structuredContent.sources");
    size_t user_src = 0, proj_src = 0;
    for (size_t i = 0; i < hxi_json_len(src); i++) {
        const hxi_json_val *x = hxi_json_arr_get(src, i);
        user_src += !strcmp(field(x, "tier"), "user") && !strcmp(field(x, "path"), "other/priority.md");
        proj_src += !strcmp(field(x, "tier"), "project");
    }
    CHECK(user_src == 1 && proj_src >= 1 && strstr(field(get(r, "structuredContent"), "context"), "Priority classes"),
          "get_context reads both tiers: %zu user, %zu project sources", user_src, proj_src);
    hxi_json_doc_free(d);
    r = tool(&s, &d, "get_context", "{\"query\":\"priority classes preempt pods\",\"min_score\":0,\"source\":\"project\"}");
    src = get(r, "structuredContent.sources");
    user_src = 0;
    for (size_t i = 0; i < hxi_json_len(src); i++)
        user_src += !strcmp(field(hxi_json_arr_get(src, i), "tier"), "user");
    CHECK(hxi_json_len(src) >= 1 && user_src == 0, "get_context source project: no user passages");
    hxi_json_doc_free(d);
    r = tool(&s, &d, "search", "{\"query\":\"pods\",\"source\":\"team\"}");
    CHECK(hxi_json_bool(get(r, "isError")) == 1, "an unknown source is refused");
    hxi_json_doc_free(d);
    close(s.in);
    int status;
    waitpid(s.pid, &status, 0);
    close(s.out);
    free(s.buf);
}

/* === Library: the fused order against brute force === */

typedef struct {
    const hx_result *r;
    size_t tier;
    double score;
} bf_entry;

/* The tiers' lists merged by score, written out plainly: the same content (the document's hash,
 * and in chunk grouping the byte range) once, the nearer tier's result kept; best score first,
 * then the nearer tier, then the better rank. */
static size_t brute_force(hx_results *lists, size_t n, hx_group g, bf_entry *out)
{
    size_t ne = 0;
    for (size_t t = 0; t < n; t++)
        for (size_t i = 0; i < lists[t].n; i++) {
            const hx_result *r = &lists[t].v[i];
            size_t j;
            for (j = 0; j < ne; j++)
                if (out[j].tier != t && !strcmp(out[j].r->doc_sha256, r->doc_sha256) &&
                    (g == HX_GROUP_DOCUMENT || (out[j].r->byte_start == r->byte_start && out[j].r->byte_end == r->byte_end)))
                    break;
            if (j == ne)
                out[ne++] = (bf_entry){r, t, r->score};
        }
    for (size_t i = 1; i < ne; i++)   /* insertion sort */
        for (size_t j = i; j > 0; j--) {
            bf_entry a = out[j - 1], b = out[j];
            bool swap = b.score > a.score || (b.score == a.score && (b.tier < a.tier || (b.tier == a.tier && b.r->rank < a.r->rank)));
            if (!swap)
                break;
            out[j - 1] = b;
            out[j] = a;
        }
    return ne;
}

static void test_fusion(void)
{
    hx_model *m = NULL;
    hx_encoder *enc = NULL;
    hx_index *pi = NULL, *ui = NULL;
    hx_error err = {0};
    char pdb[PATH_MAX + 48];
    snprintf(pdb, sizeof pdb, "%s/.hyrax/index.hyx", proj);
    if (hx_model_open_default(&m, &err) || hx_encoder_new(&enc, m, 1, &err) ||
        hx_index_open(&pi, pdb, HX_INDEX_READ, m, NULL, &err) || hx_index_open(&ui, user_db, HX_INDEX_READ, m, NULL, &err)) {
        CHECK(0, "open: %s", err.message);
        goto done;
    }
    const hx_tier tiers[2] = {{HX_TIER_PROJECT, pi}, {HX_TIER_USER, ui}};
    const char *queries[] = {"pods on nodes", "priority preemption of pods", "storage volumes and claims"};
    const hx_search_mode modes[] = {HX_MODE_HYBRID, HX_MODE_VECTOR, HX_MODE_KEYWORD};
    size_t compared = 0, both = 0;
    for (int g = 0; g < 2; g++)
        for (size_t q = 0; q < 3; q++)
            for (size_t mo = 0; mo < 3; mo++) {
                hx_search_opts o;
                hx_search_opts_default(&o);
                o.k = 6;
                o.group = g ? HX_GROUP_DOCUMENT : HX_GROUP_CHUNK;
                o.mode = modes[mo];
                o.min_score = 0;
                hx_results lists[2] = {{0}}, fused = {0};
                bf_entry want[2 * HX_RANK_WINDOW];
                size_t len = strlen(queries[q]);
                hx_search_opts whole = o;   /* each tier's whole rank window, as several tiers are merged */
                whole.k = HX_RANK_WINDOW;
                if (hx_index_search(pi, enc, queries[q], len, &whole, &lists[0], &err) ||
                    hx_index_search(ui, enc, queries[q], len, &whole, &lists[1], &err) ||
                    hx_tiers_search(tiers, 2, enc, queries[q], len, &o, &fused, &err)) {
                    CHECK(0, "search: %s", err.message);
                    continue;
                }
                size_t nw = brute_force(lists, 2, o.group, want);
                size_t expect = nw < o.k ? nw : o.k;
                CHECK(fused.n == expect, "%s: %zu fused results, brute force %zu", queries[q], fused.n, expect);
                for (size_t i = 0; i < fused.n && i < expect; i++) {
                    const hx_result *a = &fused.v[i], *b = want[i].r;
                    CHECK(a->rank == i + 1 && !strcmp(a->tier, tiers[want[i].tier].name) && !strcmp(a->path, b->path) &&
                              a->chunk_index == b->chunk_index && a->score == b->score,
                          "%s group %d mode %zu rank %zu: %s %s#%u, brute force %s %s#%u", queries[q], g, mo, i + 1,
                          a->tier, a->path, a->chunk_index, tiers[want[i].tier].name, b->path, b->chunk_index);
                    compared++;
                    both += want[i].tier == 1;
                }
                hx_results_free(&lists[0]);
                hx_results_free(&lists[1]);
                hx_results_free(&fused);
            }
    CHECK(compared >= 60 && both >= 10, "fusion compared on %zu results, %zu from the user tier", compared, both);
    /* one tier: the same list as the index alone, labelled */
    hx_search_opts o;
    hx_search_opts_default(&o);
    hx_results one = {0}, alone = {0};
    if (!hx_tiers_search(tiers, 1, enc, "pods", 4, &o, &one, &err) && !hx_index_search(pi, enc, "pods", 4, &o, &alone, &err)) {
        bool same = one.n == alone.n && one.n > 0;
        for (size_t i = 0; same && i < one.n; i++)
            same = one.v[i].chunk_id == alone.v[i].chunk_id && !strcmp(one.v[i].tier, "project") && !alone.v[i].tier;
        CHECK(same, "one tier gives the index's own list (%zu, %zu)", one.n, alone.n);
    }
    hx_results_free(&one);
    hx_results_free(&alone);
    CHECK(hx_index_search_embedded(pi, "pods", 4, NULL, &o, &one, &err) == HX_EINVAL, "hybrid needs the vector");
    CHECK(hx_tiers_search(tiers, 0, enc, "pods", 4, &o, &one, &err) == HX_EINVAL, "no tier");
done:
    hx_index_close(pi);
    hx_index_close(ui);
    hx_encoder_free(enc);
    hx_model_close(m);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_tiers_XXXXXX", *out;
    char bin[PATH_MAX];   /* absolute: the commands run in the projects' folders */
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(realpath(getenv("HYRAX_BIN"), bin) && setenv("HYRAX_BIN", bin, 1) == 0, "$HYRAX_BIN");
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(proj, sizeof proj, "%s/proj", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    snprintf(user_db, sizeof user_db, "%s/user/user.hyx", dir);
    check_put(dir, "proj/shared.md", "# Scheduling\n\nThe scheduler places pods on nodes that have room for their "
              "resource requests.\n");
    check_put(dir, "proj/eviction.md", "# Eviction\n\nThe kubelet evicts pods when a node runs out of memory or disk; "
              "pods with the lowest priority go first.\n");
    check_put(dir, "proj/volumes.md", "# Volumes\n\nPersistent volume claims bind pods to storage volumes that outlive "
              "them.\n");
    check_put(dir, "proj/taints.md", "# Taints\n\nTaints on nodes repel pods unless the pods tolerate them.\n");
    check_put(dir, "other/priority.md", "# Priority\n\nPriority classes decide which pods are preempted when nodes are "
              "full.\n");
    check_put(dir, "other/storage.md", "# Storage classes\n\nStorage classes describe how volumes are provisioned for "
              "claims from pods.\n");
    int rc = sh(&out, "cd '%s' && \"$HYRAX_BIN\" index . 2>&1", proj);
    CHECK(rc == 0, "index the project: %s", out);
    free(out);
    rc = sh(&out, "cd '%s' && \"$HYRAX_BIN\" index . 2>&1", other);
    CHECK(rc == 0, "index the other project: %s", out);
    free(out);
    test_missing_user();
    test_as_of();
    test_sync();
    test_sources();
    test_user_path();
    test_precision();
    test_mcp();
    test_fusion();
    sh(&out, "rm -rf '%s'", dir);
    free(out);
    return check_report("test_tiers");
}
