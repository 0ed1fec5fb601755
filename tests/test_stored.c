/* test_stored.c: stored and file-backed documents and exact deletes, as users meet them through
 * $HYRAX_BIN (./hyrax): `hyrax serve` over pipes and the command line on one index. A stored
 * document (add_document with content) survives reindex, reindex with force, `hyrax index ROOT`,
 * `--reindex` and `--compact`, and a file that appears at its name; a deleted file stays out of
 * every reindex until it is indexed by name; delete_document removes exactly the named document
 * or says why not; `hyrax rm` removes a folder explicitly and fails on a name that matches
 * nothing; and an index written with the version 1 document table and exact keywords
 * (tests/data/hxdocs01.hyx, made by hyrax at commit 3b32014) is refused to readers with a message to
 * reindex, and its first write rebuilds its keywords in place with every document kept. */
#include "check.h"
#include "serve_client.h"
#include "json.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX], db[PATH_MAX + 32];

/* === The command line === */

/* `hyrax ARGS` on the test index (ARGS formatted); stdout into *out (caller frees). */
static int hyrax(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int hyrax(char **out, const char *fmt, ...)
{
    char args[16384], cmd[20000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" %s 2>/dev/null", args);
    return check_run(cmd, out);
}

/* Whether a keyword search on the command line finds `path`. */
static bool cli_finds(const char *index, const char *query, const char *path)
{
    char *out, want[PATH_MAX + 16];
    hyrax(&out, "search --db '%s' --mode keyword --json %s", index, query);
    snprintf(want, sizeof want, "\"path\":\"%s\"", path);
    bool found = strstr(out, want) != NULL;
    free(out);
    return found;
}

/* === The MCP server === */

static int start(server *s, const char *index)
{
    return start_in(s, root, index, 0);
}

static bool is_error(const hxi_json_val *r)
{
    return hxi_json_bool(get(r, "isError")) == 1;
}

/* The text of a tool's answer (its error message when isError); "" when absent. */
static const char *text_of(const hxi_json_val *r)
{
    const char *t = hxi_json_str(get(hxi_json_arr_get(get(r, "content"), 0), "text"), NULL);
    return t ? t : "";
}

static const char *str_at(const hxi_json_val *r, const char *path)
{
    const char *t = hxi_json_str(get(r, path), NULL);
    return t ? t : "-";
}

static int64_t int_at(const hxi_json_val *r, const char *path)
{
    int64_t x = -1;
    hxi_json_num_int64(get(r, path), &x, NULL);
    return x;
}

/* Whether a keyword search through the server finds `path`. */
static bool mcp_finds(server *s, const char *query, const char *path)
{
    char args[512];
    hxi_json_doc *d;
    snprintf(args, sizeof args, "{\"query\":\"%s\",\"mode\":\"keyword\",\"top_k\":50}", query);
    const hxi_json_val *res = get(serve_tool(s, &d, "search", args), "structuredContent.results");
    bool found = false;
    for (size_t i = 0; res && i < hxi_json_len(res); i++)
        found |= !strcmp(str_at(hxi_json_arr_get(res, i), "citation.path"), path);
    hxi_json_doc_free(d);
    return found;
}

/* doc_id of `path` from get_document, -1 when it is not indexed. */
static int64_t doc_id_of(server *s, const char *path)
{
    char args[PATH_MAX + 64];
    hxi_json_doc *d;
    snprintf(args, sizeof args, "{\"path\":\"%s\",\"include_chunks\":false}", path);
    const hxi_json_val *r = serve_tool(s, &d, "get_document", args);
    int64_t id = is_error(r) ? -1 : int_at(r, "structuredContent.id");
    hxi_json_doc_free(d);
    return id;
}

static int stop(server *s)
{
    int status = 0;
    close(s->in);
    waitpid(s->pid, &status, 0);
    close(s->out);
    free(s->buf);
    return status;
}

static void initialize(server *s)
{
    hxi_json_doc *d;
    CHECK(get(serve_request(s, &d, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                                 "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"),
              "result") != NULL,
          "initialize");
    hxi_json_doc_free(d);
    const char *note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    send_raw(s, note, strlen(note));
}

/* === Stored documents === */

#define STORED "{\"content\":\"# Pantry\\n\\nQuince marmalade keeps for a year in the cellar.\",\"name\":\"notes/pantry.md\"}"

static void test_stored_mcp(server *s)
{
    hxi_json_doc *d;
    const hxi_json_val *r = serve_tool(s, &d, "reindex", "{}");
    CHECK(!is_error(r) && int_at(r, "structuredContent.added") == 5, "first reindex adds 5: %s", text_of(r));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "add_document", STORED);
    CHECK(!is_error(r) && !strcmp(str_at(r, "structuredContent.document.source"), "stored"),
          "add_document content is stored: %s", text_of(r));
    hxi_json_doc_free(d);

    r = serve_tool(s, &d, "reindex", "{}");
    CHECK(!is_error(r) && int_at(r, "structuredContent.removed") == 0, "reindex removes no stored document: %s",
          text_of(r));
    hxi_json_doc_free(d);
    CHECK(mcp_finds(s, "marmalade", "notes/pantry.md"), "stored text searchable after reindex");
    r = serve_tool(s, &d, "reindex", "{\"force\":true}");
    CHECK(!is_error(r) && int_at(r, "structuredContent.removed") == 0, "reindex with force removes nothing: %s",
          text_of(r));
    hxi_json_doc_free(d);
    CHECK(mcp_finds(s, "marmalade", "notes/pantry.md"), "stored text searchable after reindex with force");
    r = serve_tool(s, &d, "reindex", "{\"paths\":[\"notes\"]}");
    CHECK(!is_error(r) && int_at(r, "structuredContent.removed") == 0, "reindex of its folder removes nothing");
    hxi_json_doc_free(d);
    CHECK(mcp_finds(s, "marmalade", "notes/pantry.md"), "stored text searchable after reindex of its folder");

    r = serve_tool(s, &d, "list_documents", "{\"limit\":100}");
    const hxi_json_val *docs = get(r, "structuredContent.documents");
    size_t stored = 0, files = 0;
    for (size_t i = 0; docs && i < hxi_json_len(docs); i++) {
        const hxi_json_val *doc = hxi_json_arr_get(docs, i);
        bool is_pantry = !strcmp(str_at(doc, "path"), "notes/pantry.md");
        stored += is_pantry && !strcmp(str_at(doc, "source"), "stored");
        files += !is_pantry && !strcmp(str_at(doc, "source"), "file");
    }
    CHECK(stored == 1 && files == 5, "list_documents: source stored for the stored one (%zu), file for 5 (%zu)",
          stored, files);
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "document_status", "{\"path\":\"./notes//pantry.md\"}");
    CHECK(!strcmp(str_at(r, "structuredContent.status"), "complete") &&
              !strcmp(str_at(r, "structuredContent.source"), "stored"),
          "document_status by an unclean name: %s %s", str_at(r, "structuredContent.status"),
          str_at(r, "structuredContent.source"));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "get_document", "{\"path\":\"x.md\"}");
    CHECK(!strcmp(str_at(r, "structuredContent.source"), "file"), "get_document: a file's source is file");
    hxi_json_doc_free(d);

    /* the name of a file-backed document is not free for stored text */
    r = serve_tool(s, &d, "add_document", "{\"content\":\"replaced\",\"name\":\"./x.md\"}");
    CHECK(is_error(r) && strstr(text_of(r), "file"), "content under a file's name refused: %s", text_of(r));
    hxi_json_doc_free(d);
    CHECK(mcp_finds(s, "xylophone", "x.md"), "the file's document is intact");

    /* a file that appears at a stored document's name is left out, with a reason */
    check_put(root, "notes/pantry.md", "Wombat burrows are cube shaped.\n");
    r = serve_tool(s, &d, "reindex", "{}");
    const hxi_json_val *rej = get(r, "structuredContent.rejected");
    CHECK(!is_error(r) && rej && hxi_json_len(rej) == 1 &&
              !strcmp(str_at(hxi_json_arr_get(rej, 0), "path"), "notes/pantry.md") &&
              strstr(str_at(hxi_json_arr_get(rej, 0), "reason"), "stored"),
          "a file at a stored name is rejected with a reason: %s", text_of(r));
    hxi_json_doc_free(d);
    CHECK(mcp_finds(s, "marmalade", "notes/pantry.md") && !mcp_finds(s, "wombat", "notes/pantry.md"),
          "the stored text is kept, the file left out");
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/notes/pantry.md", root);
    unlink(path);
}

static void test_stored_cli(void)
{
    char *out;
    CHECK(hyrax(&out, "index --db '%s' '%s'", db, root) == 0 && strstr(out, "removed 0"), "hyrax index ROOT: %s",
          out);
    free(out);
    CHECK(cli_finds(db, "marmalade", "notes/pantry.md"), "stored text searchable after hyrax index ROOT");
    CHECK(hyrax(&out, "index --db '%s' --reindex '%s'", db, root) == 0 && strstr(out, "removed 0"),
          "hyrax index --reindex ROOT: %s", out);
    free(out);
    CHECK(cli_finds(db, "marmalade", "notes/pantry.md"), "stored text searchable after --reindex");
    CHECK(hyrax(&out, "index --db '%s' --compact '%s'", db, root) == 0 && strstr(out, "removed 0"),
          "hyrax index --compact ROOT: %s", out);
    free(out);
    CHECK(cli_finds(db, "marmalade", "notes/pantry.md"), "stored text searchable after compaction");
    CHECK(hyrax(&out, "verify --db '%s'", db) == 0, "verify after compaction: %s", out);
    free(out);
}

/* === Deletes === */

static void test_delete_mcp(server *s)
{
    hxi_json_doc *d;
    int64_t x_id = doc_id_of(s, "x.md");
    const hxi_json_val *r = serve_tool(s, &d, "delete_document", "{\"path\":\"docs\"}");
    CHECK(is_error(r) && strstr(text_of(r), "folder"), "a folder name is refused: %s", text_of(r));
    hxi_json_doc_free(d);
    CHECK(doc_id_of(s, "docs/a.md") >= 0 && doc_id_of(s, "docs/b.md") >= 0, "and nothing under it is deleted");
    r = serve_tool(s, &d, "delete_document", "{\"path\":\"./\"}");
    CHECK(is_error(r) && strstr(text_of(r), "root"), "the root is refused: %s", text_of(r));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "delete_document", "{\"path\":\"\"}");
    CHECK(is_error(r) && strstr(text_of(r), "root"), "the empty name is refused: %s", text_of(r));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "delete_document", "{\"path\":\"nope.md\"}");
    CHECK(is_error(r) && strstr(text_of(r), "no document"), "an unknown name is refused: %s", text_of(r));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "delete_document", "{\"path\":\"docs/../x.md\"}");
    CHECK(is_error(r) && doc_id_of(s, "x.md") == x_id, "'..' is refused: %s", text_of(r));
    hxi_json_doc_free(d);

    r = serve_tool(s, &d, "delete_document", "{\"path\":\"./x.md\"}");
    CHECK(!is_error(r) && int_at(r, "structuredContent.doc_id") == x_id &&
              !strcmp(str_at(r, "structuredContent.path"), "x.md") && int_at(r, "structuredContent.deleted_chunks") == 1,
          "./x.md deletes x.md (doc_id %lld of %lld, %lld chunks): %s", (long long)int_at(r, "structuredContent.doc_id"),
          (long long)x_id, (long long)int_at(r, "structuredContent.deleted_chunks"), text_of(r));
    CHECK(hxi_json_bool(get(r, "structuredContent.remembered")) == 1, "a file's deletion is remembered");
    hxi_json_doc_free(d);
    CHECK(doc_id_of(s, "x.md") < 0 && doc_id_of(s, "docs/a.md") >= 0, "exactly x.md is gone");

    /* remembered: reindex leaves the file out until it is named */
    r = serve_tool(s, &d, "reindex", "{}");
    CHECK(!is_error(r) && int_at(r, "structuredContent.added") == 0 && int_at(r, "structuredContent.kept_out") == 1,
          "reindex does not bring x.md back (added %lld, kept_out %lld)", (long long)int_at(r, "structuredContent.added"),
          (long long)int_at(r, "structuredContent.kept_out"));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "reindex", "{\"force\":true}");
    hxi_json_doc_free(d);
    CHECK(!mcp_finds(s, "xylophone", "x.md"), "nor does reindex with force");
    r = serve_tool(s, &d, "add_document", "{\"path\":\"x.md\"}");
    CHECK(!is_error(r) && !strcmp(str_at(r, "structuredContent.status"), "added"),
          "add_document {path} brings it back: %s", text_of(r));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "reindex", "{}");
    hxi_json_doc_free(d);
    CHECK(mcp_finds(s, "xylophone", "x.md"), "and it stays back");

    /* a stored document is deleted for good, not remembered */
    r = serve_tool(s, &d, "add_document", "{\"content\":\"Ephemeral okapi note.\",\"name\":\"tmp/okapi.md\"}");
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "delete_document", "{\"path\":\"tmp/okapi.md\"}");
    CHECK(!is_error(r) && hxi_json_bool(get(r, "structuredContent.remembered")) == 0 &&
              !strcmp(str_at(r, "structuredContent.source"), "stored"),
          "deleting a stored document: %s", text_of(r));
    hxi_json_doc_free(d);
    CHECK(!mcp_finds(s, "okapi", "tmp/okapi.md"), "stored document gone");

    /* a name past 4 KiB is refused whole, never cut down to a neighbour's name */
    char *big = malloc(12000), *neighbour = malloc(4200);
    size_t n = 0;
    while (n + 201 < 4095) {   /* components of 200 bytes: "aaa.../aaa.../..." */
        memset(neighbour + n, 'a', 200);
        n += 200;
        neighbour[n++] = '/';
    }
    memset(neighbour + n, 'b', 4095 - n);   /* exactly 4095 bytes: the longest legal name */
    neighbour[4095] = 0;
    snprintf(big, 12000, "{\"content\":\"Long-named narwhal.\",\"name\":\"%s\"}", neighbour);
    r = serve_tool(s, &d, "add_document", big);
    CHECK(!is_error(r), "a 4095-byte name is legal: %s", text_of(r));
    hxi_json_doc_free(d);
    snprintf(big, 12000, "{\"path\":\"%scc\"}", neighbour);
    r = serve_tool(s, &d, "delete_document", big);
    CHECK(is_error(r) && strstr(text_of(r), "longer"), "a name over 4 KiB is refused: %s", text_of(r));
    hxi_json_doc_free(d);
    CHECK(mcp_finds(s, "narwhal", neighbour), "its neighbour survives");
    char cmd[20000], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" rm --db '%s' '%sxyz' 2>/dev/null", db, neighbour);
    CHECK(check_run(cmd, &out) != 0, "hyrax rm of a name over 4 KiB fails: %s", out);
    free(out);
    CHECK(mcp_finds(s, "narwhal", neighbour), "its neighbour survives hyrax rm");
    snprintf(big, 12000, "{\"path\":\"%s\"}", neighbour);
    r = serve_tool(s, &d, "delete_document", big);
    CHECK(!is_error(r), "the neighbour deleted by its own name: %s", text_of(r));
    hxi_json_doc_free(d);
    free(big);
    free(neighbour);
}

static void test_rm_cli(void)
{
    char *out;
    CHECK(hyrax(&out, "rm --db '%s' nothing/here.md", db) != 0 && !out[0], "rm of a name matching nothing fails: %s",
          out);
    free(out);
    CHECK(hyrax(&out, "rm --db '%s' ./", db) != 0, "rm of the root fails: %s", out);
    free(out);
    CHECK(hyrax(&out, "rm --db '%s' docs/a.md nothing.md", db) != 0, "rm fails whole when one name matches nothing");
    free(out);
    CHECK(cli_finds(db, "alpaca", "docs/a.md"), "so docs/a.md is still there");

    CHECK(hyrax(&out, "rm --db '%s' ./docs/a.md", db) == 0 && strstr(out, "removed 1 document ("), "rm one file: %s",
          out);
    free(out);
    CHECK(hyrax(&out, "index --db '%s' '%s'", db, root) == 0 && strstr(out, "added 0"),
          "hyrax index ROOT leaves a removed file out: %s", out);
    free(out);
    CHECK(!cli_finds(db, "alpaca", "docs/a.md"), "docs/a.md stays out");
    CHECK(hyrax(&out, "index --db '%s' '%s/docs/a.md'", db, root) == 0 && strstr(out, "added 1"),
          "hyrax index FILE brings it back: %s", out);
    free(out);
    CHECK(cli_finds(db, "alpaca", "docs/a.md"), "docs/a.md is back");

    CHECK(hyrax(&out, "rm --db '%s' docs", db) == 0 && strstr(out, "removed 2 documents"), "rm of a folder: %s", out);
    free(out);
    CHECK(!cli_finds(db, "alpaca", "docs/a.md") && !cli_finds(db, "bison", "docs/b.md") &&
              cli_finds(db, "dingo", "docs.md"),
          "removes what is under docs/ and not docs.md");
}

/* === Version 1 document tables === */

static void test_v1_fixture(void)
{
    char copy[PATH_MAX + 32], cmd[3 * PATH_MAX], *out;
    snprintf(copy, sizeof copy, "%s.v1.hyx", root);
    snprintf(cmd, sizeof cmd, "cp tests/data/hxdocs01.hyx '%s'", copy);
    CHECK(system(cmd) == 0, "copy the version 1 fixture");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" verify --db '%s' 2>&1", copy);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "reindex") && strstr(out, "\"exact\""),
          "a reader of the version 1 index is told to reindex: %s", out);
    free(out);
    server s;
    if (start(&s, copy))
        return;
    initialize(&s);
    hxi_json_doc *d;
    const hxi_json_val *r = serve_tool(&s, &d, "add_document", STORED);
    CHECK(!is_error(r), "a write to a version 1 index: %s", text_of(r));
    hxi_json_doc_free(d);
    r = serve_tool(&s, &d, "list_documents", "{}");
    const hxi_json_val *docs = get(r, "structuredContent.documents");
    CHECK(docs && hxi_json_len(docs) == 3, "the fixture's two documents and the stored one");
    size_t n_file = 0;
    for (size_t i = 0; docs && i < hxi_json_len(docs); i++)
        n_file += !strcmp(str_at(hxi_json_arr_get(docs, i), "source"), "file");
    CHECK(n_file == 2, "version 1 documents are file-backed: %zu", n_file);
    hxi_json_doc_free(d);
    CHECK(cli_finds(copy, "glacier", "notes/glacier.md") && cli_finds(copy, "lighthouse", "keeper.txt"),
          "the upgraded index is searchable");
    r = serve_tool(&s, &d, "delete_document", "{\"path\":\"keeper.txt\"}");
    CHECK(!is_error(r) && hxi_json_bool(get(r, "structuredContent.remembered")) == 1, "delete in it: %s", text_of(r));
    hxi_json_doc_free(d);
    stop(&s);
    CHECK(hyrax(&out, "verify --db '%s'", copy) == 0, "rewritten index verifies: %s", out);
    free(out);
    CHECK(cli_finds(copy, "glacier", "notes/glacier.md") && cli_finds(copy, "marmalade", "notes/pantry.md") &&
              !cli_finds(copy, "lighthouse", "keeper.txt"),
          "old and new documents after the rewrite");
    unlink(copy);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_stored_XXXXXX";
    setenv("HYRAX_BIN", "./hyrax", 0);   /* make test sets it; sanitizer builds have their own */
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    check_put(root, "docs/a.md", "# Alpha\n\nThe alpaca grazes on the high plateau.\n");
    check_put(root, "docs/b.md", "# Beta\n\nA bison herd crossed the river at dawn.\n");
    check_put(root, "docs.md", "# Docs\n\nThe dingo hunts alone at night.\n");
    check_put(root, "x.md", "# X\n\nA xylophone has wooden bars.\n");
    check_put(root, "notes/field.md", "# Field\n\nHeron tracks in the mud by the pond.\n");

    server s;
    if (start(&s, db))
        return check_report("test_stored");
    initialize(&s);
    test_stored_mcp(&s);
    test_stored_cli();
    test_delete_mcp(&s);
    int status = stop(&s);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server exits cleanly (status %d)", status);
    test_rm_cli();
    test_v1_fixture();

    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", root, root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_stored");
}
