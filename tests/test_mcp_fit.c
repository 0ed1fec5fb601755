/* test_mcp_fit.c: what `hyrax serve` ($HYRAX_BIN, default ./hyrax) costs an agent, over pipes: the
 * default tools/list (the core tools, at most 12,288 bytes), --tools naming more, a tool not
 * listed not served, and every answer within max_bytes on a corpus of long chunks, next_cursor
 * giving the rest in order (`hyrax help mcp`). */
#include "check.h"
#include "serve_client.h"
#include "json.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX], db[PATH_MAX + 32];

/* Sends a request and returns its parsed answer (caller frees), waiting up to timeout_ms. */
static hxi_json_doc *call(server *s, const char *line, int timeout_ms)
{
    send_line(s, line);
    char *out = read_line(s, timeout_ms);
    hxi_json_doc *doc = NULL;
    CHECK(out && hxi_json_parse(&doc, out, strlen(out), NULL, NULL) == 0, "an answer to %.120s: %.200s", line,
          out ? out : "-");
    free(out);
    return doc;
}

static const hxi_json_val *tool(server *s, hxi_json_doc **doc, int id, const char *name, const char *args)
{
    char line[4096];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}", id, name, args);
    *doc = call(s, line, 60000);
    const hxi_json_val *r = *doc ? get(hxi_json_doc_root(*doc), "result") : NULL;
    CHECK(r != NULL, "%s: a result", name);
    return r;
}

static bool is_error(const hxi_json_val *r)
{
    return hxi_json_bool(get(r, "isError")) == 1;
}

static void initialize(server *s)
{
    hxi_json_doc *d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                             "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", 60000);
    CHECK(d && get(hxi_json_doc_root(d), "result.protocolVersion"), "initialize answered");
    hxi_json_doc_free(d);
    send_line(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* Ends the server (end of input) and returns its wait status. */
static int stop(server *s)
{
    int status = 0;
    close(s->in);
    waitpid(s->pid, &status, 0);
    close(s->out);
    free(s->buf);
    return status;
}

/* serve --tools: the default lists the core tools in at most 12 KB, an agent's cost before its
 * first call, and does not serve a tool it does not list; a list adds tools by name; an unknown
 * name stops the server at start. */
static void test_tool_sets(void)
{
    server s;
    const char *plain[] = {"--db", db, "--root", root, "--read-only", NULL};
    CHECK(start_serve_as_is(&s, plain) == 0, "serve starts without --tools");
    initialize(&s);
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
    char *line = read_line(&s, 60000);
    size_t bytes = line ? strlen(line) : 0;
    CHECK(line && bytes <= 12288, "default tools/list is %zu bytes, at most 12,288", bytes);
    hxi_json_doc *d = NULL;
    CHECK(line && hxi_json_parse(&d, line, bytes, NULL, NULL) == 0, "tools/list is JSON");
    free(line);
    const hxi_json_val *tools = d ? get(hxi_json_doc_root(d), "result.tools") : NULL;
    static const char *const core[] = {"search", "get_context", "find_similar", "list_documents", "get_document",
                                       "document_status", "reindex", "index_health"};
    CHECK(tools && hxi_json_len(tools) == 8, "the core set: 8 tools, got %zu", tools ? hxi_json_len(tools) : 0);
    for (size_t i = 0; tools && i < hxi_json_len(tools) && i < 8; i++) {
        const hxi_json_val *t = hxi_json_arr_get(tools, i);
        const char *n = hxi_json_str(get(t, "name"), NULL);
        CHECK(n && !strcmp(n, core[i]), "core tool %zu is %s", i, core[i]);
        CHECK(get(t, "inputSchema.properties.max_bytes") != NULL, "%s takes max_bytes", core[i]);
        CHECK(!get(t, "outputSchema"), "%s: no outputSchema in the short list", core[i]);
    }
    hxi_json_doc_free(d);
    d = call(&s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"semantic_search\","
                 "\"arguments\":{\"query\":\"bread\"}}}", 60000);
    const char *m = d ? hxi_json_str(get(hxi_json_doc_root(d), "error.message"), NULL) : NULL;
    CHECK(m && strstr(m, "--tools all"), "a tool not listed is not served, and the error names --tools: %s", m ? m : "-");
    hxi_json_doc_free(d);
    stop(&s);

    const char *some[] = {"--db", db, "--root", root, "--read-only", "--tools", "core,audit_log,semantic_search", NULL};
    CHECK(start_serve_as_is(&s, some) == 0, "serve --tools core,audit_log,semantic_search");
    initialize(&s);
    d = call(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}", 60000);
    tools = d ? get(hxi_json_doc_root(d), "result.tools") : NULL;
    CHECK(tools && hxi_json_len(tools) == 10, "core and two named: 10 tools");
    hxi_json_doc_free(d);
    const hxi_json_val *r = tool(&s, &d, 10, "semantic_search", "{\"query\":\"bread\"}");
    CHECK(r && !is_error(r), "a tool named in --tools is served");
    hxi_json_doc_free(d);
    stop(&s);

    const char *bad[] = {"--db", db, "--root", root, "--read-only", "--tools", "core,nosuch", NULL};
    CHECK(start_serve_as_is(&s, bad) == 0, "serve --tools core,nosuch forks");
    int status = stop(&s);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0, "an unknown tool name in --tools stops the server");
}

/* The answer's JSON (the text content, which structuredContent repeats) of a tool result. */
static const char *answer_text(const hxi_json_val *r, size_t *len)
{
    return hxi_json_str(get(hxi_json_arr_get(get(r, "content"), 0), "text"), len);
}

/* get_context pages its passages as search pages its results: over max_bytes the last sources are
 * left out with their blocks of the context, and next_cursor gives the rest; each page's context
 * is its sources' blocks of the whole context (each source's bytes long, one newline between). */
static void test_context_pages(server *s)
{
    size_t len = 0;
    hxi_json_doc *d = NULL;
    const char *q = "\"query\":\"harvest ledger\",\"mode\":\"keyword\",\"min_score\":0,\"max_tokens\":60000,"
                    "\"max_passages\":50,\"include_relationships\":false";
    char a[1024];
    snprintf(a, sizeof a, "{%s,\"max_bytes\":1048576}", q);
    const hxi_json_val *r = tool(s, &d, 200, "get_context", a);
    hxi_json_doc *big = d;
    const hxi_json_val *all = r ? get(r, "structuredContent.sources") : NULL;
    size_t n_all = all ? hxi_json_len(all) : 0, whole_len = 0, at = 0;
    const char *whole = r ? hxi_json_str(get(r, "structuredContent.context"), &whole_len) : NULL;
    for (size_t i = 0; i < n_all; i++) {
        int64_t b = 0;
        hxi_json_num_int64(get(hxi_json_arr_get(all, i), "bytes"), &b, NULL);
        at += (size_t)b + (i + 1 < n_all);
    }
    CHECK(whole && n_all > 10 && at == whole_len && answer_text(r, &len) && len > 32768,
          "the whole context: %zu sources whose blocks make its %zu bytes (%zu), %zu bytes of answer", n_all,
          whole_len, at, len);
    char *rebuilt = calloc(1, whole_len + 1);
    size_t got = 0, pages = 0, rebuilt_len = 0;
    char cursor[80] = "";
    bool same = true;
    for (int id = 210; rebuilt && pages < 60; id++, pages++) {
        snprintf(a, sizeof a, "{%s,\"max_bytes\":16384%s%s%s}", q, cursor[0] ? ",\"cursor\":\"" : "", cursor,
                 cursor[0] ? "\"" : "");
        r = tool(s, &d, id, "get_context", a);
        const char *t = r ? answer_text(r, &len) : NULL;
        CHECK(t && !is_error(r) && len <= 16384, "context page %zu: %zu bytes <= 16384 (%.200s)", pages, len,
              t ? t : "-");
        const hxi_json_val *src = r ? get(r, "structuredContent.sources") : NULL;
        for (size_t i = 0; src && i < hxi_json_len(src); i++, got++)
            same &= got < n_all && hxi_json_equal(hxi_json_arr_get(src, i), hxi_json_arr_get(all, got));
        size_t cl = 0;
        const char *c = r ? hxi_json_str(get(r, "structuredContent.context"), &cl) : NULL;
        if (c && rebuilt_len + cl <= whole_len) {
            memcpy(rebuilt + rebuilt_len, c, cl);
            rebuilt_len += cl;
            if (rebuilt_len < whole_len)
                rebuilt[rebuilt_len++] = '\n';
        } else {
            same = false;
        }
        const char *next = r ? hxi_json_str(get(r, "structuredContent.next_cursor"), NULL) : NULL;
        snprintf(cursor, sizeof cursor, "%s", next ? next : "");
        hxi_json_doc_free(d);
        if (!next || !r)
            break;
    }
    CHECK(got == n_all && same && pages > 2 && rebuilt && rebuilt_len == whole_len && !memcmp(rebuilt, whole, whole_len),
          "the cursor gives every source once in order, and the pages' contexts joined are the whole: %zu of %zu in "
          "%zu pages", got, n_all, pages + 1);
    free(rebuilt);
    hxi_json_doc_free(big);
    r = tool(s, &d, 290, "getContext", "{\"query\":\"harvest ledger\",\"max_tokens\":60000,\"max_bytes\":4096}");
    CHECK(r && !is_error(r) && answer_text(r, &len) && len <= 4096 && get(r, "structuredContent.next_cursor"),
          "getContext pages too: %zu bytes", len);
    hxi_json_doc_free(d);
}

/* Every answer fits max_bytes (default 32768): on a corpus of long chunks, results are left out
 * whole from the end, and following next_cursor gives the rest, in order, once each. */
static void test_budget(void)
{
    const char *dir = root, *bdb = db;
    static char text[8192];
    for (int f = 0; f < 24; f++) {
        size_t n = (size_t)snprintf(text, sizeof text, "# Note %d\n\n", f);
        for (int p = 0; p < 3; p++) {
            n += (size_t)snprintf(text + n, sizeof text - n, "## Part %d\n\n", p);
            for (int w = 0; w < 120 && n < sizeof text - 64; w++)   /* words that differ in letters, so no */
                n += (size_t)snprintf(text + n, sizeof text - n, "granary%c%c ledger%c%c%c harvest ",  /* chunk */
                                      'a' + f % 26, 'a' + p, 'a' + w / 26 % 26, 'a' + w % 26, 'a' + f % 26);   /* repeats */
            n += (size_t)snprintf(text + n, sizeof text - n, "\n\n");
        }
        char rel[32];
        snprintf(rel, sizeof rel, "notes/n%02d.md", f);
        check_put(dir, rel, text);
    }
    server s;
    const char *args[] = {"--db", bdb, "--root", dir, "--threads", "1", NULL};
    CHECK(start_serve(&s, args) == 0, "serve starts");
    initialize(&s);
    /* embedding the corpus takes minutes under the sanitizers on a busy machine */
    hxi_json_doc *d = call(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                              "\"reindex\",\"arguments\":{}}}", 900000);
    const hxi_json_val *r = d ? get(hxi_json_doc_root(d), "result") : NULL;
    CHECK(r && !is_error(r), "the corpus is indexed");
    hxi_json_doc_free(d);

    size_t len = 0;
    r = tool(&s, &d, 2, "search", "{\"query\":\"harvest\",\"mode\":\"keyword\",\"group_by\":\"chunk\",\"top_k\":50,"
                                  "\"min_score\":0,\"max_bytes\":1048576}");
    const hxi_json_val *all = r ? get(r, "structuredContent.results") : NULL;
    size_t n_all = all ? hxi_json_len(all) : 0;
    int64_t want[50];
    for (size_t i = 0; i < n_all && i < 50; i++)
        hxi_json_num_int64(get(hxi_json_arr_get(all, i), "chunk_id"), &want[i], NULL);
    CHECK(n_all == 50 && answer_text(r, &len) && len > 32768, "50 long chunks: %zu bytes unbudgeted", len);
    hxi_json_doc *big = d;

    r = tool(&s, &d, 3, "search", "{\"query\":\"harvest\",\"mode\":\"keyword\",\"group_by\":\"chunk\",\"top_k\":50,"
                                  "\"min_score\":0}");
    CHECK(r && !is_error(r) && answer_text(r, &len) && len <= 32768, "the default budget: %zu bytes <= 32768", len);
    CHECK(r && get(r, "structuredContent.next_cursor") && get(r, "structuredContent.omitted"), "next_cursor and omitted");
    hxi_json_doc_free(d);

    size_t got = 0, pages = 0;
    char cursor[80] = "";
    bool same = true;
    for (int id = 10; pages < 60; id++, pages++) {
        char a[512];
        snprintf(a, sizeof a, "{\"query\":\"harvest\",\"group_by\":\"chunk\",\"min_score\":0,\"mode\":\"keyword\","
                              "\"top_k\":50,\"max_bytes\":4096%s%s%s}", cursor[0] ? ",\"cursor\":\"" : "", cursor,
                 cursor[0] ? "\"" : "");
        r = tool(&s, &d, id, "search", a);
        const char *t = r ? answer_text(r, &len) : NULL;
        CHECK(t && !is_error(r) && len <= 4096, "page %zu: %zu bytes <= 4096 (%.200s)", pages, len, t ? t : "-");
        hxi_json_doc *page = NULL;
        CHECK(t && hxi_json_parse(&page, t, len, NULL, NULL) == 0, "page %zu: whole JSON", pages);
        const hxi_json_val *res = r ? get(r, "structuredContent.results") : NULL;
        for (size_t i = 0; res && i < hxi_json_len(res); i++, got++) {
            int64_t id64 = -1;
            hxi_json_num_int64(get(hxi_json_arr_get(res, i), "chunk_id"), &id64, NULL);
            same &= got < n_all && id64 == want[got];
        }
        hxi_json_doc_free(page);
        const char *next = r ? hxi_json_str(get(r, "structuredContent.next_cursor"), NULL) : NULL;
        snprintf(cursor, sizeof cursor, "%s", next ? next : "");
        hxi_json_doc_free(d);
        if (!next || !r)
            break;
    }
    CHECK(got == n_all && same && pages > 5, "the cursor gives all %zu results once each in order: %zu in %zu pages",
          n_all, got, pages + 1);
    hxi_json_doc_free(big);

    r = tool(&s, &d, 90, "search", "{\"query\":\"granary\",\"mode\":\"keyword\",\"cursor\":\"1.00000000\"}");
    CHECK(r && is_error(r), "a cursor of another call is refused");
    hxi_json_doc_free(d);
    r = tool(&s, &d, 91, "get_document", "{\"path\":\"notes/n03.md\",\"max_bytes\":1024}");
    CHECK(r && !is_error(r) && answer_text(r, &len) && len <= 1024 && get(r, "structuredContent.next_cursor"),
          "get_document pages its chunks: %zu bytes", len);
    hxi_json_doc_free(d);
    r = tool(&s, &d, 92, "list_documents", "{\"limit\":24,\"max_bytes\":2048}");
    const char *next = r ? hxi_json_str(get(r, "structuredContent.next_cursor"), NULL) : NULL;
    const hxi_json_val *docs = r ? get(r, "structuredContent.documents") : NULL;
    size_t first = docs ? hxi_json_len(docs) : 0;
    char want_next[16];
    snprintf(want_next, sizeof want_next, "o%zu", first);
    CHECK(first > 0 && first < 24 && next && !strcmp(next, want_next) && answer_text(r, &len) && len <= 2048,
          "list_documents over its budget continues with its own cursor: %s after %zu", next ? next : "-", first);
    hxi_json_doc_free(d);
    test_context_pages(&s);
    stop(&s);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_mcpfit_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s/.hyrax/i.hyx", root);
    test_budget();       /* indexes the corpus the tool sets are listed on */
    test_tool_sets();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_mcp_fit");
}
