/* test_stats.c: lasting observability (src/service/stats.h). Percentiles follow the histogram rule
 * stated in stats.h, checked against values worked out by hand; hot queries are a top-k over a
 * sliding window (an old favourite drops out, a new query still gets counted after 10,000
 * distinct ones); counts survive a restart and add up across processes flushing at once; the
 * Prometheus text follows the exposition format (cumulative buckets, +Inf equal to _count, label
 * escaping); `hyrax search` and `hyrax index` count too, `hyrax stats` and index_health show it,
 * and what serve counted is there after it exits. */
#include "check.h"
#include "serve_client.h"
#include "json.h"
#include "stats.h"
#include "wire.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX];

/* The JSON view of the statistics of db (s: plus its unflushed counts); caller frees. */
static hx_json_doc *view(hx_stats *s, const char *db)
{
    hx_json_writer w;
    hx_json_writer_init(&w);
    hx_json_write_obj_begin(&w);
    hx_error err = {0};
    CHECK(hx_stats_write_json(s, db, &w, &err) == 0, "stats json: %s", err.message);
    hx_json_write_obj_end(&w);
    hx_json_doc *d = NULL;
    CHECK(hx_json_parse(&d, w.buf, w.len, NULL, NULL) == 0, "stats json parses: %s", w.buf);
    hx_json_writer_free(&w);
    return d;
}

static double num(const hx_json_val *v)
{
    double x = NAN;
    hx_json_num_double(v, &x, NULL);
    return x;
}

static void test_percentiles(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/p.hyx", dir);
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, 0, NULL) == 0, "open");
    if (!s)
        return;
    for (int i = 1; i <= 100; i++)
        hx_stats_note_latency(s, "search", "stdio", i);
    hx_json_doc *d = view(s, db);
    const hx_json_val *t = get(hx_json_doc_root(d), "latency.search");
    /* bounds 0.25 * 2^i ms: 1..100 fill (0.5,1] 1, (1,2] 1, (2,4] 2, (4,8] 4, (8,16] 8, (16,32] 16,
     * (32,64] 32, (64,128] 36. Rank 50 lies 18 of 32 into (32,64]: 32 + 32 * 18/32 = 50. Rank 95
     * lies 31 of 36 into (64,128]: 64 + 64 * 31/36 = 119.11. Rank 99: 64 + 64 * 35/36 = 126.22. */
    CHECK(num(get(t, "calls")) == 100, "100 calls");
    CHECK(fabs(num(get(t, "p50_ms")) - 50.0) < 1e-9, "p50 = 50 ms (got %g)", num(get(t, "p50_ms")));
    CHECK(fabs(num(get(t, "p95_ms")) - (64 + 64.0 * 31 / 36)) < 1e-9, "p95 = 119.11 ms (got %g)", num(get(t, "p95_ms")));
    CHECK(fabs(num(get(t, "p99_ms")) - (64 + 64.0 * 35 / 36)) < 1e-9, "p99 = 126.22 ms (got %g)", num(get(t, "p99_ms")));
    CHECK(fabs(num(get(t, "mean_ms")) - 50.5) < 1e-9, "mean 50.5 ms");
    CHECK(num(get(t, "transports.stdio.calls")) == 100, "per transport too");
    hx_json_doc_free(d);
    hx_stats_close(s);
}

static const char *top_query(hx_json_doc *d, size_t i, double *count)
{
    const hx_json_val *e = hx_json_arr_get(get(hx_json_doc_root(d), "top_queries"), i);
    if (count)
        *count = num(get(e, "count"));
    return hx_json_str(get(e, "query"), NULL);
}

static void test_hot_queries(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/q.hyx", dir);
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, 0, NULL) == 0, "open");
    if (!s)
        return;
    int64_t now = (int64_t)time(NULL);
    for (int i = 0; i < 50; i++)
        hx_stats_note_query_at(s, "old favourite", now - 2 * 86400);   /* two days ago: outside the day */
    for (int i = 0; i < 10; i++)
        hx_stats_note_query_at(s, "an hour ago", now - 3600);
    for (int i = 0; i < 3; i++)
        hx_stats_note_query_at(s, "just now", now);
    hx_json_doc *d = view(s, db);
    double c0, c1;
    const char *q0 = top_query(d, 0, &c0), *q1 = top_query(d, 1, &c1);
    CHECK(q0 && !strcmp(q0, "an hour ago") && c0 == 10, "the window's most frequent leads (%s, %g)", q0 ? q0 : "-", c0);
    CHECK(q1 && !strcmp(q1, "just now") && c1 == 3, "then the next (%s, %g)", q1 ? q1 : "-", c1);
    CHECK(hx_json_len(get(hx_json_doc_root(d), "top_queries")) == 2, "a query of two days ago has left the window");
    hx_json_doc_free(d);

    /* 10,000 distinct queries in this hour, then one asked 20 times: it still gets counted and leads */
    for (int i = 0; i < 10000; i++) {
        char q[32];
        snprintf(q, sizeof q, "distinct %d", i);
        hx_stats_note_query_at(s, q, now);
    }
    for (int i = 0; i < 20; i++)
        hx_stats_note_query_at(s, "late favourite", now);
    d = view(s, db);
    q0 = top_query(d, 0, NULL);
    CHECK(q0 && !strcmp(q0, "late favourite"), "a query asked after 10,000 others leads (%s)", q0 ? q0 : "-");
    hx_json_doc_free(d);
    hx_stats_close(s);
}

/* Counts flushed by one process are there for the next; four processes flushing at once lose none. */
static void test_lasting(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/l.hyx", dir);
    for (int round = 0; round < 2; round++) {
        hx_stats *s = NULL;
        CHECK(hx_stats_open(&s, db, 0, NULL) == 0, "open");
        hx_stats_note_latency(s, "search", "cli", 5);
        hx_stats_note_query(s, "persisted");
        hx_stats_close(s);
    }
    hx_json_doc *d = view(NULL, db);
    CHECK(num(get(hx_json_doc_root(d), "latency.search.calls")) == 2, "two processes' calls add up");
    double c;
    const char *q = top_query(d, 0, &c);
    CHECK(q && !strcmp(q, "persisted") && c == 2, "and their queries");
    hx_json_doc_free(d);

    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            hx_stats *s = NULL;
            if (hx_stats_open(&s, db, 0, NULL))
                _exit(2);
            for (int i = 0; i < 25; i++) {
                hx_stats_note_latency(s, "search", "http", 1);
                if (hx_stats_flush(s, NULL))
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
    CHECK(num(get(hx_json_doc_root(d), "latency.search.transports.http.calls")) == 100,
          "4 processes x 25 flushes: 100 calls (got %g)", num(get(hx_json_doc_root(d), "latency.search.transports.http.calls")));
    hx_json_doc_free(d);

    /* a crash-safe store file: its chain verifies */
    char path[PATH_MAX + 64];
    CHECK(hx_stats_path(db, path, sizeof path, NULL) == 0 && strstr(path, "l.stats.hyx"), "file beside the index");
}

static void test_prometheus(void)
{
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/m.hyx", dir);
    hx_stats *s = NULL;
    CHECK(hx_stats_open(&s, db, 0, NULL) == 0, "open");
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
    hx_buf b = {0};
    hx_error err = {0};
    CHECK(hx_stats_prometheus(s, db, &b, &err) == 0, "prometheus: %s", err.message);
    hx_buf_bytes(&b, "", 1);
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
    hx_buf_free(&b);
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
    hx_json_doc *d = NULL;
    CHECK(hx_json_parse(&d, out, strlen(out), NULL, NULL) == 0, "stats --json parses: %s", out);
    const hx_json_val *a = d ? get(hx_json_doc_root(d), "activity") : NULL;
    CHECK(num(get(a, "latency.search.transports.cli.calls")) == 2, "two CLI searches counted: %s", out);
    CHECK(num(get(a, "index.files_added")) == 1 && num(get(a, "index.updates")) == 1, "the CLI index run counted");
    const char *q = hx_json_str(get(hx_json_arr_get(get(a, "top_queries"), 0), "query"), NULL);
    CHECK(q && !strcmp(q, "sourdough"), "the CLI query is hot");
    hx_json_doc_free(d);
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
            hx_json_doc *h = NULL;
            CHECK(line && hx_json_parse(&h, line, strlen(line), NULL, NULL) == 0, "index_health answers");
            const hx_json_val *r = h ? get(hx_json_doc_root(h), "result.structuredContent") : NULL;
            CHECK(num(get(r, "latency.search.transports.stdio.calls")) == 3,
                  "the first serve's 3 searches outlive it: %.300s", line ? line : "-");
            CHECK(num(get(r, "latency.search.transports.cli.calls")) == 2, "beside the CLI's 2");
            const char *top = hx_json_str(get(hx_json_arr_get(get(r, "top_queries"), 0), "query"), NULL);
            CHECK(top && !strcmp(top, "starter dough"), "the hot query is the serve's (asked 3 times)");
            hx_json_doc_free(h);
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

int main(void)
{
    char tmpl[] = "/tmp/hx_stats_XXXXXX";
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    test_percentiles();
    test_hot_queries();
    test_lasting();
    test_prometheus();
    test_cli_and_serve();
    char cmd[PATH_MAX + 16], *out;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    check_run(cmd, &out);
    free(out);
    return check_report("test_stats");
}
