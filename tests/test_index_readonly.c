/* test_index_readonly.c: opening an index for reading never writes it, as users meet it through
 * $HYRAX_BIN (./hyrax). An index whose segments a writer would upgrade (tests/data/hxdocs03.hyx,
 * made by hyrax at commit b368c26: its segment has no body fingerprints, which the first write
 * compacts in) is made read-only (file 0444 in a folder 0555) and read by search, stats, ls, show,
 * verify and the MCP search tool of `hyrax serve --read-only`: each answers from the old segment,
 * and the file's bytes and modification time are what they were. An index whose keywords a reader
 * cannot read (tests/data/bm25v1.hyx, keyword format 1) is refused with the reindex hint, also
 * unchanged. Upgrading is the writer's (index.c, open_index; tested in test_tenant, test_relevance). */
#include "check.h"
#include "json.h"
#include "serve_client.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX], ro[PATH_MAX + 8];   /* the temp folder; ro: a folder in it made read-only */

/* Runs `$HYRAX_BIN FMT...` (stderr joined); the exit status, its output in *out (caller frees). */
static int hyrax(char **out, const char *fmt, ...)
{
    char args[2 * PATH_MAX], cmd[3 * PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" %s 2>&1", args);
    return check_run(cmd, out);
}

/* The file's bytes (caller frees) and modification time, to compare after the reads. */
typedef struct {
    char *bytes;
    size_t len;
    struct timespec mtime;
} snapshot;

static snapshot take(const char *path)
{
    snapshot s = {0};
    struct stat st;
    s.bytes = check_read_file(path, &s.len);
    CHECK(s.bytes && stat(path, &st) == 0, "read %s", path);
    s.mtime = st.st_mtim;
    return s;
}

static void same(const snapshot *before, const char *path, const char *after_what)
{
    snapshot now = take(path);
    CHECK(now.bytes && now.len == before->len && !memcmp(now.bytes, before->bytes, now.len),
          "%s after %s: the same bytes (%zu, was %zu)", path, after_what, now.len, before->len);
    CHECK(now.mtime.tv_sec == before->mtime.tv_sec && now.mtime.tv_nsec == before->mtime.tv_nsec,
          "%s after %s: the same modification time", path, after_what);
    free(now.bytes);
}

/* `hyrax serve --read-only` answers the MCP search tool from the index. */
static void mcp_search(const char *db)
{
    server s;
    const char *args[] = {"--db", db, "--read-only", NULL};
    if (start_serve(&s, args))
        return;
    hxi_json_doc *doc = NULL;
    serve_request(&s, &doc, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                            "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    hxi_json_doc_free(doc);
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    const hxi_json_val *r = serve_tool(&s, &doc, "search", "{\"query\":\"harbor\",\"mode\":\"keyword\"}");
    const hxi_json_val *hits = get(r, "structuredContent.results");
    const hxi_json_val *path = hits && hxi_json_len(hits) ? get(hxi_json_arr_get(hits, 0), "path") : NULL;
    const char *first = path ? hxi_json_str(path, NULL) : NULL;
    CHECK(first && !strcmp(first, "notes/harbor.md"),
          "MCP search of the read-only index finds notes/harbor.md");
    hxi_json_doc_free(doc);
    close(s.in);
    close(s.out);
    waitpid(s.pid, NULL, 0);
    free(s.buf);
}

static void test_old_segments(void)
{
    char db[PATH_MAX + 32], *out;
    snprintf(db, sizeof db, "%s/v3.hyx", ro);
    CHECK(check_copy_file("tests/data/hxdocs03.hyx", db) == 0, "copy the version 3 fixture");
    CHECK(chmod(db, 0444) == 0 && chmod(ro, 0555) == 0, "make the index and its folder read-only");
    snapshot before = take(db);
    CHECK(hyrax(&out, "search --db '%s' --mode keyword harbor", db) == 0 && strstr(out, "notes/harbor.md"),
          "search of the read-only index: %s", out);
    free(out);
    same(&before, db, "search");
    CHECK(hyrax(&out, "stats --db '%s'", db) == 0 && strstr(out, "documents   1"), "stats: %s", out);
    free(out);
    CHECK(hyrax(&out, "ls --db '%s'", db) == 0 && strstr(out, "notes/harbor.md"), "ls: %s", out);
    free(out);
    CHECK(hyrax(&out, "show --db '%s' notes/harbor.md", db) == 0 && strstr(out, "Harbor pilots"), "show: %s", out);
    free(out);
    CHECK(hyrax(&out, "verify --db '%s'", db) == 0, "verify: %s", out);
    free(out);
    mcp_search(db);
    same(&before, db, "stats, ls, show, verify and MCP search");
    free(before.bytes);
}

static void test_unreadable_keywords(void)
{
    char db[PATH_MAX + 32], *out;
    snprintf(db, sizeof db, "%s/v1.hyx", dir);
    CHECK(check_copy_file("tests/data/bm25v1.hyx", db) == 0 && chmod(db, 0444) == 0, "copy the format 1 fixture");
    snapshot before = take(db);
    CHECK(hyrax(&out, "search --db '%s' --mode keyword pods", db) != 0 && strstr(out, "reindex") &&
              strstr(out, "format 1"),
          "a reader of format 1 keywords is told to reindex: %s", out);
    free(out);
    same(&before, db, "a refused search");
    free(before.bytes);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_readonly_XXXXXX", bin[PATH_MAX], cmd[PATH_MAX + 32];
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(realpath(getenv("HYRAX_BIN"), bin) != NULL, "HYRAX_BIN resolves");
    setenv("HYRAX_BIN", bin, 1);
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(ro, sizeof ro, "%s/ro", dir);
    CHECK(mkdir(ro, 0755) == 0, "make %s", ro);
    test_old_segments();
    test_unreadable_keywords();
    chmod(ro, 0755);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_index_readonly");
}
