/* test_stats.c: lasting observability (src/service/stats.h). Percentiles follow the histogram rule
 * stated in stats.h, checked against values worked out by hand; hot queries are a top-k over a
 * sliding window (an old favourite drops out, a new query still gets counted after 10,000
 * distinct ones); counts survive a restart and add up across processes flushing at once; the
 * Prometheus text follows the exposition format (cumulative buckets, +Inf equal to _count, label
 * escaping); `hyrax search` and `hyrax index` count too, `hyrax stats` and index_health show it,
 * and what serve counted is there after it exits. Hot queries are kept per reader identity: a
 * tenant's reader sees its own only (hyrax stats, index_health, /health, /metrics), the unscoped
 * local reader all; a version 1 file's queries (no identity) reach the unscoped reader only. */
#include "check.h"
#include "serve_client.h"
#include "bytes.h"
#include "json.h"
#include "present.h"
#include "stats.h"
#include "store.h"
#include "wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX];

/* The JSON view of the statistics of db (s: plus its unflushed counts) as `reader` sees them;
 * caller frees. */
static hxi_json_doc *view_as(hx_stats *s, const char *db, const hx_identity *reader)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    hx_error err = {0};
    hx_activity act;
    CHECK(hx_stats_activity(s, db, reader, &act, &err) == 0, "stats: %s", err.message);
    hxi_present_activity(&w, &act);
    hx_activity_free(&act);
    hxi_json_write_obj_end(&w);
    hxi_json_doc *d = NULL;
    CHECK(hxi_json_parse(&d, w.buf, w.len, NULL, NULL) == 0, "stats json parses: %s", w.buf);
    hxi_json_writer_free(&w);
    return d;
}

static hxi_json_doc *view(hx_stats *s, const char *db)
{
    return view_as(s, db, NULL);
}

static double num(const hxi_json_val *v)
{
    double x = NAN;
    hxi_json_num_double(v, &x, NULL);
    return x;
}

static void test_percentiles(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/p.hyx", dir);
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, NULL, 0, NULL) == 0, "open");
    if (!s)
        return;
    for (int i = 1; i <= 100; i++)
        hx_stats_note_latency(s, "search", "stdio", i);
    hxi_json_doc *d = view(s, db);
    const hxi_json_val *t = get(hxi_json_doc_root(d), "latency.search");
    /* bounds 0.25 * 2^i ms: 1..100 fill (0.5,1] 1, (1,2] 1, (2,4] 2, (4,8] 4, (8,16] 8, (16,32] 16,
     * (32,64] 32, (64,128] 36. Rank 50 lies 18 of 32 into (32,64]: 32 + 32 * 18/32 = 50. Rank 95
     * lies 31 of 36 into (64,128]: 64 + 64 * 31/36 = 119.11. Rank 99: 64 + 64 * 35/36 = 126.22. */
    CHECK(num(get(t, "calls")) == 100, "100 calls");
    CHECK(fabs(num(get(t, "p50_ms")) - 50.0) < 1e-9, "p50 = 50 ms (got %g)", num(get(t, "p50_ms")));
    CHECK(fabs(num(get(t, "p95_ms")) - (64 + 64.0 * 31 / 36)) < 1e-9, "p95 = 119.11 ms (got %g)", num(get(t, "p95_ms")));
    CHECK(fabs(num(get(t, "p99_ms")) - (64 + 64.0 * 35 / 36)) < 1e-9, "p99 = 126.22 ms (got %g)", num(get(t, "p99_ms")));
    CHECK(fabs(num(get(t, "mean_ms")) - 50.5) < 1e-9, "mean 50.5 ms");
    CHECK(num(get(t, "transports.stdio.calls")) == 100, "per transport too");
    hxi_json_doc_free(d);
    hx_stats_close(s);
}

static const char *top_query(hxi_json_doc *d, size_t i, double *count)
{
    const hxi_json_val *e = hxi_json_arr_get(get(hxi_json_doc_root(d), "top_queries"), i);
    if (count)
        *count = num(get(e, "count"));
    return hxi_json_str(get(e, "query"), NULL);
}

static void test_hot_queries(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/q.hyx", dir);
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, NULL, 0, NULL) == 0, "open");
    if (!s)
        return;
    int64_t now = (int64_t)time(NULL);
    for (int i = 0; i < 50; i++)
        hxi_stats_note_query_at(s, "old favourite", now - 2 * 86400);   /* two days ago: outside the day */
    for (int i = 0; i < 10; i++)
        hxi_stats_note_query_at(s, "an hour ago", now - 3600);
    for (int i = 0; i < 3; i++)
        hxi_stats_note_query_at(s, "just now", now);
    hxi_json_doc *d = view(s, db);
    double c0, c1;
    const char *q0 = top_query(d, 0, &c0), *q1 = top_query(d, 1, &c1);
    CHECK(q0 && !strcmp(q0, "an hour ago") && c0 == 10, "the window's most frequent leads (%s, %g)", q0 ? q0 : "-", c0);
    CHECK(q1 && !strcmp(q1, "just now") && c1 == 3, "then the next (%s, %g)", q1 ? q1 : "-", c1);
    CHECK(hxi_json_len(get(hxi_json_doc_root(d), "top_queries")) == 2, "a query of two days ago has left the window");
    hxi_json_doc_free(d);

    /* 10,000 distinct queries in this hour, then one asked 20 times: it still gets counted and leads */
    for (int i = 0; i < 10000; i++) {
        char q[32];
        snprintf(q, sizeof q, "distinct %d", i);
        hxi_stats_note_query_at(s, q, now);
    }
    for (int i = 0; i < 20; i++)
        hxi_stats_note_query_at(s, "late favourite", now);
    d = view(s, db);
    q0 = top_query(d, 0, NULL);
    CHECK(q0 && !strcmp(q0, "late favourite"), "a query asked after 10,000 others leads (%s)", q0 ? q0 : "-");
    hxi_json_doc_free(d);
    hx_stats_close(s);
}

/* Counts flushed by one process are there for the next; four processes flushing at once lose none. */
static void test_lasting(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/l.hyx", dir);
    for (int round = 0; round < 2; round++) {
        hx_stats *s = NULL;
        CHECK(hx_stats_open(&s, db, NULL, 0, NULL) == 0, "open");
        hx_stats_note_latency(s, "search", "cli", 5);
        hx_stats_note_query(s, "persisted");
        hx_stats_close(s);
    }
    hxi_json_doc *d = view(NULL, db);
    CHECK(num(get(hxi_json_doc_root(d), "latency.search.calls")) == 2, "two processes' calls add up");
    double c;
    const char *q = top_query(d, 0, &c);
    CHECK(q && !strcmp(q, "persisted") && c == 2, "and their queries");
    hxi_json_doc_free(d);

    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            hx_stats *s = NULL;
            if (hx_stats_open(&s, db, NULL, 0, NULL))
                _exit(2);
            for (int i = 0; i < 25; i++) {
                hx_stats_note_latency(s, "search", "http", 1);
                if (hxi_stats_flush(s, NULL))
                    _exit(3);
            }
            hx_stats_close(s);
            _exit(0);
        }
    }
    for (int k = 0; k < 4; k++) {
        int status;
        waitpid(kids[k], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "flushing process %d (status %d)", k, status);
    }
    d = view(NULL, db);
    CHECK(num(get(hxi_json_doc_root(d), "latency.search.transports.http.calls")) == 100,
          "4 processes x 25 flushes: 100 calls (got %g)", num(get(hxi_json_doc_root(d), "latency.search.transports.http.calls")));
    hxi_json_doc_free(d);

    /* a crash-safe store file: its chain verifies */
    char path[PATH_MAX + 64];
    CHECK(hxi_stats_path(db, path, sizeof path, NULL) == 0 && strstr(path, "l.stats.hyx"), "file beside the index");
}

static void test_prometheus(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/m.hyx", dir);
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, NULL, 0, NULL) == 0, "open");
    if (!s)
        return;
    hx_stats_note_latency(s, "search", "cli", 0.1);    /* le 0.00025 s */
    hx_stats_note_latency(s, "search", "cli", 3);      /* le 0.004 s */
    hx_stats_note_latency(s, "search", "cli", 1e9);    /* +Inf */
    hx_stats_note_query(s, "say \"hi\" \\ there\nnow");
    hx_update_report rep = {0};
    rep.added = 3;
    rep.removed = 1;
    hx_stats_note_update(s, &rep, NULL, 1500);
    hxi_buf b = {0};
    hx_error err = {0};
    CHECK(hxi_stats_prometheus(s, db, NULL, &b, &err) == 0, "prometheus: %s", err.message);
    hxi_buf_bytes(&b, "", 1);
    const char *t = (const char *)b.data;
    CHECK(strstr(t, "# TYPE hyrax_request_duration_seconds histogram\n"), "histogram type line");
    CHECK(strstr(t, "hyrax_request_duration_seconds_bucket{tool=\"search\",transport=\"cli\",le=\"0.00025\"} 1\n"),
          "first bucket holds 0.1 ms");
    CHECK(strstr(t, "hyrax_request_duration_seconds_bucket{tool=\"search\",transport=\"cli\",le=\"0.004\"} 2\n"),
          "buckets are cumulative: 3 ms is in le=0.004 with the one before");
    CHECK(strstr(t, "hyrax_request_duration_seconds_bucket{tool=\"search\",transport=\"cli\",le=\"+Inf\"} 3\n") &&
              strstr(t, "hyrax_request_duration_seconds_count{tool=\"search\",transport=\"cli\"} 3\n"),
          "+Inf equals _count");
    CHECK(strstr(t, "hyrax_hot_query_count{query=\"say \\\"hi\\\" \\\\ there\\nnow\"} 1\n"),
          "label values escape quote, backslash and newline");
    CHECK(strstr(t, "hyrax_index_files_total{change=\"added\"} 3\n") &&
              strstr(t, "hyrax_index_files_total{change=\"removed\"} 1\n"),
          "file counters");
    CHECK(strstr(t, "hyrax_index_lag_seconds_count 1\n") && strstr(t, "hyrax_index_lag_seconds_sum 1.5\n"),
          "lag histogram in seconds");
    /* every non-comment line is `name{labels} value` or `name value` */
    int bad = 0;
    for (const char *p = t; *p;) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        if (*p != '#') {
            const char *sp = nl;
            while (sp > p && sp[-1] != ' ')
                sp--;
            char *end;
            strtod(sp, &end);
            bad += end != nl || sp == p;
        }
        p = nl + 1;
    }
    CHECK(bad == 0, "%d malformed sample lines", bad);
    hxi_buf_free(&b);
    hx_stats_close(s);
}

/* The command line and serve count into the same file; `hyrax stats` and index_health show it. */
static void test_cli_and_serve(void)
{
    char root[PATH_MAX + 16], db[PATH_MAX + 32], cmd[4 * PATH_MAX], *out;
    snprintf(root, sizeof root, "%s/root", dir);
    snprintf(db, sizeof db, "%s/cli.hyx", dir);
    mkdir(root, 0755);
    check_put(root, "a.md", "# Bread\n\nSourdough bread needs a starter.\n");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db '%s' '%s' >/dev/null 2>&1", db, root);
    CHECK(check_run(cmd, &out) == 0, "index");
    free(out);
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' sourdough >/dev/null 2>&1", db);
        CHECK(check_run(cmd, &out) == 0, "search");
        free(out);
    }
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --json --db '%s'", db);
    CHECK(check_run(cmd, &out) == 0, "stats --json");
    hxi_json_doc *d = NULL;
    CHECK(hxi_json_parse(&d, out, strlen(out), NULL, NULL) == 0, "stats --json parses: %s", out);
    const hxi_json_val *a = d ? get(hxi_json_doc_root(d), "activity") : NULL;
    CHECK(num(get(a, "latency.search.transports.cli.calls")) == 2, "two CLI searches counted: %s", out);
    CHECK(num(get(a, "index.files_added")) == 1 && num(get(a, "index.updates")) == 1, "the CLI index run counted");
    const char *q = hxi_json_str(get(hxi_json_arr_get(get(a, "top_queries"), 0), "query"), NULL);
    CHECK(q && !strcmp(q, "sourdough"), "the CLI query is hot");
    hxi_json_doc_free(d);
    free(out);

    /* serve: three searches, exit; a second serve's index_health shows them with the CLI's */
    for (int round = 0; round < 2; round++) {
        server s;
        if (start_in(&s, root, db, 1))
            return;
        send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                      "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        free(read_line(&s, 60000));
        for (int i = 0; round == 0 && i < 3; i++) {
            send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"search\","
                          "\"arguments\":{\"query\":\"starter dough\"}}}");
            free(read_line(&s, 60000));
        }
        if (round == 1) {
            send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"index_health\","
                          "\"arguments\":{}}}");
            char *line = read_line(&s, 60000);
            hxi_json_doc *h = NULL;
            CHECK(line && hxi_json_parse(&h, line, strlen(line), NULL, NULL) == 0, "index_health answers");
            const hxi_json_val *r = h ? get(hxi_json_doc_root(h), "result.structuredContent") : NULL;
            CHECK(num(get(r, "latency.search.transports.stdio.calls")) == 3,
                  "the first serve's 3 searches outlive it: %.300s", line ? line : "-");
            CHECK(num(get(r, "latency.search.transports.cli.calls")) == 2, "beside the CLI's 2");
            const char *top = hxi_json_str(get(hxi_json_arr_get(get(r, "top_queries"), 0), "query"), NULL);
            CHECK(top && !strcmp(top, "starter dough"), "the hot query is the serve's (asked 3 times)");
            hxi_json_doc_free(h);
            free(line);
        }
        close(s.in);
        int status;
        waitpid(s.pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "serve exits cleanly");
        close(s.out);
        free(s.buf);
    }
}

/* === Reader identities === */

static const char secret[] = "bob private diary password hint narwhal";

/* The hot queries reader sees in db (s: plus unflushed), joined by '|' into buf. */
static const char *hot_as(hx_stats *s, const char *db, const hx_identity *reader, char *buf, size_t cap)
{
    hxi_json_doc *d = view_as(s, db, reader);
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; d && i < hxi_json_len(get(hxi_json_doc_root(d), "top_queries")); i++) {
        double c;
        const char *q = top_query(d, i, &c);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s=%g", i ? "|" : "", q ? q : "-", c);
        if (len >= cap)
            break;
    }
    hxi_json_doc_free(d);
    return buf;
}

/* Counts query as identity id (NULL: none) in a process of its own, flushed at close. */
static void ask_as(const char *db, const hx_identity *id, const char *query, int times)
{
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, id, 0, NULL) == 0, "open as %s", id ? id->tenant : "none");
    for (int i = 0; i < times; i++)
        hx_stats_note_query(s, query);
    hx_stats_close(s);
}

/* Each identity sees its own hot queries, the unscoped reader all of them; no reader identity
 * sees the last update's error (it may name any file); the Prometheus view likewise. */
static void test_identities(void)
{
    char db[PATH_MAX + 32], got[1024];
    snprintf(db, sizeof db, "%s/id.hyx", dir);
    const hx_identity bob = {"globex", "bob"}, globex = {"globex", NULL}, acme = {"acme", NULL};
    ask_as(db, &bob, secret, 2);
    ask_as(db, NULL, "acme roadmap", 1);
    hx_stats *s = NULL;   /* acme's, unflushed while the views below add it */
    CHECK(hx_stats_open(&s, db, &acme, 0, NULL) == 0, "open as acme");
    if (!s)
        return;
    hx_stats_note_query(s, "acme roadmap");
    hx_stats_note_update(s, NULL, "cannot read globex/bob-diary.md: Permission denied", 0);
    for (int round = 0; round < 2; round++) {   /* unflushed, then from the file */
        CHECK(!strcmp(hot_as(s, db, &acme, got, sizeof got), "acme roadmap=1"), "acme sees its own query only: %s",
              got);
        CHECK(!strcmp(hot_as(s, db, &bob, got, sizeof got), "bob private diary password hint narwhal=2"),
              "globex/bob sees its own: %s", got);
        CHECK(!strcmp(hot_as(s, db, &globex, got, sizeof got), ""), "globex without bob sees none of bob's: %s", got);
        CHECK(!strcmp(hot_as(s, db, NULL, got, sizeof got), "acme roadmap=2|bob private diary password hint narwhal=2"),
              "the unscoped reader sees all, counts added over identities: %s", got);
        hxi_json_doc *d = view_as(s, db, &acme);
        CHECK(d && hxi_json_type_of(get(hxi_json_doc_root(d), "index.last_error")) == HX_JSON_NULL &&
                  num(get(hxi_json_doc_root(d), "index.update_failures")) == 1,
              "a reader identity gets the failure count but not the error naming a file");
        hxi_json_doc_free(d);
        d = view(s, db);
        const char *e = hxi_json_str(get(hxi_json_doc_root(d), "index.last_error"), NULL);
        CHECK(e && strstr(e, "bob-diary.md"), "the unscoped reader gets the error");
        hxi_json_doc_free(d);
        hxi_buf b = {0};
        CHECK(hxi_stats_prometheus(s, db, &acme, &b, NULL) == 0, "prometheus as acme");
        hxi_buf_bytes(&b, "", 1);
        CHECK(!strstr((const char *)b.data, "narwhal") && strstr((const char *)b.data, "{query=\"acme roadmap\"} 1\n"),
              "/metrics as acme: its own query only");
        hxi_buf_free(&b);
        CHECK(hxi_stats_flush(s, NULL) == 0, "flush");
    }
    hx_stats_close(s);
    /* past HX_STATS_IDENTITIES identities (3 so far) newcomers are not counted, and no kept one
     * loses its queries */
    char tenants[HX_STATS_IDENTITIES][16];
    for (int i = 0; i < HX_STATS_IDENTITIES; i++) {
        snprintf(tenants[i], sizeof tenants[i], "t%d", i);
        const hx_identity t = {tenants[i], NULL};
        ask_as(db, &t, tenants[i], 1);
    }
    const hx_identity first = {"t0", NULL}, last_kept = {tenants[HX_STATS_IDENTITIES - 4], NULL},
                      refused = {tenants[HX_STATS_IDENTITIES - 3], NULL};
    char want[32];
    snprintf(want, sizeof want, "%s=1", tenants[HX_STATS_IDENTITIES - 4]);
    CHECK(!strcmp(hot_as(NULL, db, &bob, got, sizeof got), "bob private diary password hint narwhal=2"),
          "bob keeps his queries: %s", got);
    CHECK(!strcmp(hot_as(NULL, db, &first, got, sizeof got), "t0=1"), "a newcomer is counted: %s", got);
    CHECK(!strcmp(hot_as(NULL, db, &last_kept, got, sizeof got), want), "up to the %dth identity: %s",
          HX_STATS_IDENTITIES, got);
    CHECK(!strcmp(hot_as(NULL, db, &refused, got, sizeof got), ""), "the next is not: %s", got);
}

/* A version 1 file (written here by its layout in stats.h) is read; its query texts have no
 * identity and reach the unscoped reader only; the next flush writes version 2 and keeps them. */
static void test_version1(void)
{
    char db[PATH_MAX + 32], path[PATH_MAX + 64], got[1024];
    snprintf(db, sizeof db, "%s/v1.hyx", dir);
    CHECK(hxi_stats_path(db, path, sizeof path, NULL) == 0, "path");
    int64_t now = (int64_t)time(NULL);
    uint8_t root[512] = "HXSTATS1";
    size_t len = 72;
    hxf_put64(root + 8, 3);                         /* 3 updates */
    hxf_put32(root + 64, 0);                        /* no latency series */
    hxf_put32(root + 68, 1);                        /* one query bucket */
    hxf_put32(root + len, 0);                       /* no last error */
    len += 4 + 8 * (2 + HX_STATS_HIST);             /* an empty lag histogram */
    hxf_put64(root + len, (uint64_t)(now - now % HX_STATS_BUCKET_S));
    hxf_put32(root + len + 8, 1);                   /* one counter */
    hxf_put32(root + len + 12, (uint32_t)strlen(secret));
    memcpy(root + len + 16, secret, strlen(secret));
    len += 16 + strlen(secret);
    hxf_put64(root + len, 7);                       /* count 7, error 0 */
    len += 16;
    hxi_store *st = NULL;
    CHECK(hxi_store_open(&st, path, HX_STORE_WRITE | HX_STORE_CREATE, NULL) == 0 &&
              hxi_store_commit(st, root, len, NULL, NULL) == 0, "a version 1 file");
    hxi_store_close(st);
    const hx_identity acme = {"acme", NULL};
    char want[128];
    snprintf(want, sizeof want, "%s=7", secret);
    CHECK(!strcmp(hot_as(NULL, db, NULL, got, sizeof got), want), "the unscoped reader sees its query: %s", got);
    CHECK(!strcmp(hot_as(NULL, db, &acme, got, sizeof got), ""), "a tenant reader does not: %s", got);
    ask_as(db, &acme, "acme roadmap", 1);
    st = NULL;
    const uint8_t *r;
    size_t rlen = 0;
    CHECK(hxi_store_open(&st, path, HX_STORE_READ, NULL) == 0, "reopen");
    if (st)
        hxi_store_root(st, &r, &rlen);
    CHECK(rlen >= 8 && !memcmp(r, "HXSTATS2", 8), "the flush wrote version 2");
    hxi_store_close(st);
    snprintf(want, sizeof want, "%s=7|acme roadmap=1", secret);
    CHECK(!strcmp(hot_as(NULL, db, NULL, got, sizeof got), want), "both, to the unscoped reader: %s", got);
    CHECK(!strcmp(hot_as(NULL, db, &acme, got, sizeof got), "acme roadmap=1"), "acme's own to acme: %s", got);
    /* a version this build does not know is refused by name */
    memcpy(root, "HXSTATS9", 8);
    unlink(path);
    st = NULL;
    CHECK(hxi_store_open(&st, path, HX_STORE_WRITE | HX_STORE_CREATE, NULL) == 0 &&
              hxi_store_commit(st, root, len, NULL, NULL) == 0, "a version 9 file");
    hxi_store_close(st);
    hx_activity act;
    hx_error err = {0};
    CHECK(hx_stats_activity(NULL, db, NULL, &act, &err) == HX_EVERSION && strstr(err.message, "version 9"),
          "version 9 is refused by name: %s", err.message);
    hx_activity_free(&act);
}

/* GET path from `hyrax serve --http` at port; the whole answer (Connection: close), caller frees. */
static char *http_get(int port, const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char req[256], *buf = calloc(1, 1 << 20);
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", path);
    size_t len = 0;
    if (write(fd, req, (size_t)n) == n)
        for (ssize_t r; buf && len < (1 << 20) - 1 && (r = read(fd, buf + len, (1 << 20) - 1 - len)) > 0;)
            len += (size_t)r;
    close(fd);
    return buf;
}

/* What a new user would do: globex/bob searches with the command line; acme's `hyrax stats`,
 * `serve --tenant acme`'s index_health and its HTTP /health and /metrics must not show bob's
 * query, nor the watcher the name of a rejected file; the unscoped reader sees both. */
static void test_cli_tenants(void)
{
    char root[PATH_MAX + 16], db[PATH_MAX + 32], cmd[4 * PATH_MAX], *out;
    snprintf(root, sizeof root, "%s/troot", dir);
    snprintf(db, sizeof db, "%s/tenants.hyx", dir);
    mkdir(root, 0755);
    check_put(root, "diary.md",
              "---\ntenant: globex\nvisibility: private\nowner: bob\n---\n# Diary\n\nThe narwhal hint.\n");
    check_put(root, "globex-merger-plan.md", "---\nvisibility: secret\n---\n# Plan\n");   /* rejected */
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db '%s' '%s' >/dev/null 2>&1", db, root);
    CHECK(check_run(cmd, &out) == 0, "index");
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --tenant globex --user bob '%s' >/dev/null 2>&1", db,
             secret);
    CHECK(check_run(cmd, &out) == 0, "bob searches");
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db '%s' --tenant acme", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "latency") && !strstr(out, "narwhal"),
          "hyrax stats --tenant acme does not show bob's query: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db '%s' --tenant acme --json", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"top_queries\":[]") && !strstr(out, "narwhal"),
          "nor with --json: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db '%s' --tenant globex --user bob", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, secret), "bob sees his own: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db '%s'", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, secret), "the unscoped local reader sees it: %s", out);
    free(out);

    /* serve --watch, as acme and unscoped: index_health once the watcher's first batch is done */
    for (int as_acme = 1; as_acme >= 0; as_acme--) {
        server s;
        const char *args[] = {"--db", db, "--root", root, "--read-only", "--watch", as_acme ? "--tenant" : NULL, "acme",
                              NULL};
        if (start_serve(&s, args))
            return;
        send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                      "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                      "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        free(read_line(&s, 60000));
        send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"search\","
                      "\"arguments\":{\"query\":\"acme quarterly plan\"}}}");
        free(read_line(&s, 60000));
        char *line = NULL;
        for (int tries = 0; tries < 300 && !(line && strstr(line, "\"last_batch\":{")); tries++) {
            if (line)
                usleep(100000);
            free(line);
            send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                          "{\"name\":\"index_health\",\"arguments\":{}}}");
            line = read_line(&s, 60000);
        }
        if (as_acme) {
            CHECK(line && strstr(line, "\"top_queries\"") && !strstr(line, "narwhal") &&
                      strstr(line, "acme quarterly plan"),
                  "index_health under serve --tenant acme: acme's query, not bob's: %.600s", line ? line : "-");
            CHECK(line && strstr(line, "\"last_batch\":{") && !strstr(line, "merger-plan"),
                  "nor the watcher's rejected file of another tenant: %.900s", line ? line : "-");
        } else {
            CHECK(line && strstr(line, "narwhal") && strstr(line, "merger-plan"),
                  "the unscoped reader sees both: %.900s", line ? line : "-");
        }
        free(line);
        close(s.in);
        int status;
        waitpid(s.pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "serve exits cleanly");
        close(s.out);
        free(s.buf);
    }

    /* serve --http --tenant acme: /health's activity and /metrics */
    int errp[2];
    CHECK(pipe(errp) == 0, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        dup2(errp[1], 2);
        close(errp[0]);
        const char *bin = getenv("HYRAX_BIN") ? getenv("HYRAX_BIN") : "./hyrax";
        execl(bin, "hyrax", "serve", "--http", "127.0.0.1:0", "--db", db, "--root", root, "--read-only", "--tenant",
              "acme", (char *)NULL);
        _exit(127);
    }
    close(errp[1]);
    char buf[512];
    size_t len = 0;
    int port = 0;
    while (!port && len < sizeof buf - 1) {
        struct pollfd p = {errp[0], POLLIN, 0};
        ssize_t r = poll(&p, 1, 20000) > 0 ? read(errp[0], buf + len, sizeof buf - 1 - len) : -1;
        if (r <= 0)
            break;
        len += (size_t)r;
        buf[len] = 0;
        char *at = strstr(buf, "127.0.0.1:");
        if (at && strchr(at, '\n'))
            port = atoi(at + 10);
    }
    CHECK(port > 0, "serve --http listens: %s", len ? buf : "-");
    char *health = port ? http_get(port, "/health") : NULL, *metrics = port ? http_get(port, "/metrics") : NULL;
    CHECK(health && strstr(health, "\"top_queries\"") && !strstr(health, "narwhal"),
          "/health as acme does not show bob's query: %.600s", health ? health : "-");
    CHECK(metrics && strstr(metrics, "hyrax_hot_query_count") && !strstr(metrics, "narwhal") &&
              strstr(metrics, "{query=\"acme quarterly plan\"} 1"),
          "/metrics as acme: acme's query, not bob's");
    free(health);
    free(metrics);
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
    close(errp[0]);
}

/* The public Prometheus text (hx_stats_prometheus_text) is the writer's own bytes: strings with
 * quotes, escapes, control and line-separator characters and invalid UTF-8 survive unchanged. */
static void test_texts(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/t.hyx", dir);
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, NULL, 0, NULL) == 0, "open");
    if (!s)
        return;
    hx_stats_note_query(s, "caf\xc3\xa9 \"quoted\" \\ back\x01 \xe2\x80\xa8 sep \xff bad");
    hx_stats_note_latency(s, "search", "http", 1.234567);
    hx_stats_note_latency(s, "get_document", "stdio", 1e-7);
    hx_stats_note_update(s, NULL, "failed: \"x\"", 12.5);
    char *p = NULL;
    size_t pn = 0;
    hxi_buf b = {0};
    CHECK(hxi_stats_prometheus(s, db, NULL, &b, NULL) == 0, "prometheus");
    CHECK(hx_stats_prometheus_text(s, db, NULL, &p, &pn, NULL) == 0 && p, "prometheus text");
    CHECK(p && pn == b.len && pn > 0 && !memcmp(p, b.data, pn), "prometheus text is the writer's bytes");
    hxi_buf_free(&b);
    free(p);
    hx_stats_close(s);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_stats_XXXXXX";
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    test_percentiles();
    test_hot_queries();
    test_lasting();
    test_prometheus();
    test_texts();
    test_cli_and_serve();
    test_identities();
    test_version1();
    test_cli_tenants();
    char cmd[PATH_MAX + 16], *out;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    check_run(cmd, &out);
    free(out);
    return check_report("test_stats");
}
