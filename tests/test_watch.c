/* test_watch.c: `hyrax serve --watch` keeps the index current (hyrax.h "Watching a root"). Under a watched
 * root a created, modified and deleted file, and a file in a new nested folder, show in (or leave)
 * search results within a generous bound (polled, never timed); a burst of 200 file writes makes
 * a few commits, not 200; index_health reports the watcher and the lag; the polling fallback
 * (--watch-poll) does the same without inotify. */
#include "check.h"
#include "serve_client.h"
#include "json.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 60000   /* how long a change may take to show: generous, the machine is shared */

static char root[PATH_MAX], db[PATH_MAX + 32];

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int start_watch(server *s, const char *poll_ms)
{
    const char *args[] = {"--db", db, "--root", root, "--threads", "1", poll_ms ? "--watch-poll" : "--watch", poll_ms, NULL};
    if (start_serve(s, args))
        return -1;
    send_line(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                 "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    char *line = read_line(s, 60000);
    CHECK(line != NULL, "serve --watch starts");
    free(line);
    return line ? 0 : -1;
}

static const char *watch_mode(server *s, char *buf, size_t cap);

/* Waits until the watcher follows the root (index_health.watch.mode leaves "starting"). */
static void wait_following(server *s)
{
    char mode[32] = "";
    for (int waited = 0; waited < WAIT_MS && (!watch_mode(s, mode, sizeof mode) || !strcmp(mode, "starting"));
         waited += 50)
        sleep_ms(50);
    CHECK(strcmp(mode, "inotify") == 0 || strcmp(mode, "poll") == 0, "the watcher follows the root (%s)", mode);
}

static void stop_server(server *s)
{
    close(s->in);
    int status;
    waitpid(s->pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "serve exits cleanly (status %d)", status);
    close(s->out);
    free(s->buf);
}

/* Calls a tool; the parsed answer (caller frees) and its structuredContent in *out. */
static hxi_json_doc *call(server *s, const char *name, const char *args, const hxi_json_val **out)
{
    static int id = 10;
    char line[4096];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}", id++,
             name, args);
    send_line(s, line);
    char *ans = read_line(s, 60000);
    hxi_json_doc *doc = NULL;
    if (!ans || hxi_json_parse(&doc, ans, strlen(ans), NULL, NULL))
        doc = NULL;
    free(ans);
    *out = doc ? get(hxi_json_doc_root(doc), "result.structuredContent") : NULL;
    return doc;
}

/* How many documents a keyword search for `word` finds (-1 when the call failed). */
static int hits(server *s, const char *word)
{
    char args[256];
    snprintf(args, sizeof args, "{\"query\":\"%s\",\"mode\":\"keyword\",\"min_score\":0,\"top_k\":50,\"max_bytes\":1048576}", word);
    const hxi_json_val *r;
    hxi_json_doc *d = call(s, "search", args, &r);
    int n = r ? (int)hxi_json_len(get(r, "results")) : -1;
    hxi_json_doc_free(d);
    return n;
}

/* Polls until a search for `word` finds `want` documents (want 0: none); true when it did in time. */
static bool wait_hits(server *s, const char *word, int want)
{
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        int n = hits(s, word);
        if (want ? n >= want : n == 0)
            return true;
        sleep_ms(100);
    }
    return false;
}

static int64_t health_int(server *s, const char *path)
{
    const hxi_json_val *r;
    hxi_json_doc *d = call(s, "index_health", "{}", &r);
    int64_t v = -1;
    hxi_json_num_int64(get(r, path), &v, NULL);
    hxi_json_doc_free(d);
    return v;
}

static const char *watch_mode(server *s, char *buf, size_t cap)
{
    const hxi_json_val *r;
    hxi_json_doc *d = call(s, "index_health", "{}", &r);
    const char *m = hxi_json_str(get(r, "watch.mode"), NULL);
    if (m)
        snprintf(buf, cap, "%s", m);
    hxi_json_doc_free(d);
    return m ? buf : NULL;
}

static void test_changes(server *s, const char *how)
{
    check_put(root, "zebra.md", "# Zebra\n\nThe quagga was a plains zebra.\n");
    CHECK(wait_hits(s, "quagga", 1), "%s: a created file becomes searchable", how);
    check_put(root, "zebra.md", "# Zebra\n\nThe tarpan was a wild horse.\n");
    CHECK(wait_hits(s, "tarpan", 1), "%s: a modified file's new text becomes searchable", how);
    CHECK(wait_hits(s, "quagga", 0), "%s: and its old text leaves", how);
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/zebra.md", root);
    unlink(path);
    CHECK(wait_hits(s, "tarpan", 0), "%s: a deleted file leaves the results", how);
    check_put(root, "new/deeper/still/okapi.md", "# Okapi\n\nThe okapi browses in the Ituri forest.\n");
    CHECK(wait_hits(s, "ituri", 1), "%s: a file in new nested folders becomes searchable", how);
    sleep_ms(400);
    check_put(root, "new/deeper/still/later.md", "# Later\n\nA pangolin curls into a ball.\n");
    CHECK(wait_hits(s, "pangolin", 1), "%s: a file added later to a new folder is followed", how);
}

static void test_burst(server *s)
{
    int64_t commits0 = health_int(s, "watch.commits"), gen0 = health_int(s, "last_commit.generation");
    for (int i = 0; i < 200; i++) {
        char rel[64], text[128];
        snprintf(rel, sizeof rel, "burst/f%03d.md", i % 50);   /* 50 files, each written 4 times */
        snprintf(text, sizeof text, "# Burst\n\nburstword%d round %d\n", i % 50, i / 50);
        check_put(root, rel, text);
    }
    sleep_ms(350);   /* the batch is likely embedding now: an MCP write waits its turn instead of failing */
    const hxi_json_val *added;
    hxi_json_doc *ad = call(s, "add_document", "{\"name\":\"notes/x.md\",\"content\":\"# X\\n\\nA quokka smiles.\"}", &added);
    CHECK(added && hxi_json_bool(get(added, "searchable")), "add_document during a watch batch succeeds");
    hxi_json_doc_free(ad);
    CHECK(wait_hits(s, "round", 50), "the burst's 50 files become searchable");
    bool last = false;
    for (int waited = 0; waited < WAIT_MS && !last; waited += 100) {
        const hxi_json_val *r;
        hxi_json_doc *d = call(s, "search", "{\"query\":\"burstword49\",\"mode\":\"keyword\",\"min_score\":0}", &r);
        const char *text = hxi_json_str(get(hxi_json_arr_get(get(r, "results"), 0), "text"), NULL);
        last = text && strstr(text, "round 3");
        hxi_json_doc_free(d);
        if (!last)
            sleep_ms(100);
    }
    CHECK(last, "the last write of the burst is what is indexed");
    int64_t commits = health_int(s, "watch.commits") - commits0, gens = health_int(s, "last_commit.generation") - gen0;
    CHECK(commits >= 1 && commits <= 10, "200 writes make a few commits, not 200 (%lld)", (long long)commits);
    CHECK(gens >= 1 && gens <= 10, "and a few generations (%lld)", (long long)gens);
}

static void test_health(server *s, const char *mode)
{
    const hxi_json_val *r;
    hxi_json_doc *d = call(s, "index_health", "{}", &r);
    const char *m = hxi_json_str(get(r, "watch.mode"), NULL);
    CHECK(m && !strcmp(m, mode), "index_health says the watcher %s (got %s)", mode, m ? m : "-");
    CHECK(hxi_json_type_of(get(r, "watch.last_batch")) == HX_JSON_OBJECT, "and describes its last batch");
    int64_t lag_n = 0;
    hxi_json_num_int64(get(r, "index.lag.count"), &lag_n, NULL);
    double p50 = -1;
    hxi_json_num_double(get(r, "index.lag.p50_ms"), &p50, NULL);
    CHECK(lag_n >= 1 && p50 > 0, "index lag is measured (%lld batches, p50 %.1f ms)", (long long)lag_n, p50);
    hxi_json_doc_free(d);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_watch_XXXXXX";
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s/.hyrax/index.hyx", root);
    check_put(root, "start.md", "# Start\n\nThe aardvark digs at night.\n");
    char cmd[3 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db '%s' '%s' >/dev/null 2>&1", db, root);
    CHECK(check_run(cmd, &out) == 0, "index the root");
    free(out);

    server s;
    check_put(root, "offline.md", "# Offline\n\nThe dugong grazes on seagrass.\n");   /* while nobody watches */
    if (start_watch(&s, NULL) == 0) {
        wait_following(&s);
        CHECK(wait_hits(&s, "aardvark", 1), "the indexed file is found");
        CHECK(wait_hits(&s, "dugong", 1), "a file written before serve started is caught up with");
        test_changes(&s, "inotify");
        test_burst(&s);
        test_health(&s, "inotify");
        stop_server(&s);
    }
    /* the polling fallback, on the same index */
    if (start_watch(&s, "100") == 0) {
        wait_following(&s);
        check_put(root, "poll.md", "# Poll\n\nThe narwhal has one long tooth.\n");
        CHECK(wait_hits(&s, "narwhal", 1), "poll: a created file becomes searchable");
        char path[2 * PATH_MAX];
        snprintf(path, sizeof path, "%s/poll.md", root);
        unlink(path);
        CHECK(wait_hits(&s, "narwhal", 0), "poll: a deleted file leaves the results");
        check_put(root, "polled/deep/tapir.md", "# Tapir\n\nThe tapir has a short trunk.\n");
        CHECK(wait_hits(&s, "tapir", 1), "poll: a file in a new folder becomes searchable");
        test_health(&s, "poll");
        stop_server(&s);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    check_run(cmd, &out);
    free(out);
    return check_report("test_watch");
}
