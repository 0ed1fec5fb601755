/* test_mcp.c: `hyrax serve` ($HYRAX_BIN, default ./hyrax) as a client sees it, over pipes: initialize with version
 * negotiation, tools/list with both schemas for every tool, every tool called with its
 * structuredContent checked, writes answered once searchable, --read-only, paths confined to
 * the root, a hostile run of more than 10,000 malformed messages (random bytes, truncated JSON,
 * wrong types, huge numbers, deep nesting, unknown methods, a 20 MB line) in which every request
 * gets its answer, nothing but JSON reaches stdout, and memory stays bounded; then EOF and SIGTERM
 * exits. */
#include "check.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[PATH_MAX], db[PATH_MAX + 16];

typedef struct {
    pid_t pid;
    int in, out;          /* we write to in, read from out */
    char *buf;            /* unread output */
    size_t len, cap;
} server;

static int start(server *s, int read_only)
{
    int to[2], from[2];
    if (pipe(to) || pipe(from))
        return -1;
    memset(s, 0, sizeof s[0]);
    s->pid = fork();
    if (s->pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[1]);
        close(from[0]);
        const char *bin = getenv("HYRAX_BIN") ? getenv("HYRAX_BIN") : "./hyrax";
        execl(bin, "hyrax", "serve", "--db", db, "--root", root, read_only ? "--read-only" : "--threads",
              read_only ? NULL : "1", (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    s->in = to[1];
    s->out = from[0];
    return 0;
}

static void send_raw(server *s, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(s->in, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        len -= (size_t)n;
    }
}

static void send_line(server *s, const char *line)
{
    send_raw(s, line, strlen(line));
    send_raw(s, "\n", 1);
}

/* Next output line (owned by the caller), or NULL after timeout_ms or at EOF. */
static char *read_line(server *s, int timeout_ms)
{
    for (;;) {
        char *nl = s->len ? memchr(s->buf, '\n', s->len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - s->buf);
            char *line = malloc(n + 1);
            memcpy(line, s->buf, n);
            line[n] = 0;
            memmove(s->buf, nl + 1, s->len - n - 1);
            s->len -= n + 1;
            return line;
        }
        struct pollfd p = {s->out, POLLIN, 0};
        if (poll(&p, 1, timeout_ms) <= 0)
            return NULL;
        if (s->cap - s->len < 65536) {
            s->cap = s->cap ? s->cap * 2 : 1 << 20;
            s->buf = realloc(s->buf, s->cap);
        }
        ssize_t n = read(s->out, s->buf + s->len, s->cap - s->len);
        if (n <= 0)
            return NULL;
        s->len += (size_t)n;
    }
}

/* Sends a request and returns its parsed response (caller frees), skipping nothing: the next
 * line must be the answer. */
static hx_json_doc *call(server *s, const char *line, int timeout_ms)
{
    send_line(s, line);
    char *out = read_line(s, timeout_ms);
    hx_json_doc *doc = NULL;
    CHECK(out != NULL, "no answer to %.120s", line);
    if (out)
        CHECK(hx_json_parse(&doc, out, strlen(out), NULL, NULL) == 0, "answer is JSON: %.200s", out);
    free(out);
    return doc;
}

static const hx_json_val *get(const hx_json_val *v, const char *path)
{
    char key[64];
    while (v && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        memcpy(key, path, n);
        key[n] = 0;
        v = hx_json_obj_get(v, key);
        path += n + (dot != NULL);
    }
    return v;
}

static const hx_json_val *tool(server *s, hx_json_doc **doc, int id, const char *name, const char *args)
{
    char line[4096];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
             id, name, args);
    *doc = call(s, line, 60000);
    const hx_json_val *r = *doc ? get(hx_json_doc_root(*doc), "result") : NULL;
    CHECK(r != NULL, "%s: a result", name);
    return r;
}

static bool is_error(const hx_json_val *r)
{
    return hx_json_bool(get(r, "isError")) == 1;
}

static long rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

static void test_lifecycle(server *s)
{
    hx_json_doc *d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", 60000);
    const char *v = d ? hx_json_str(get(hx_json_doc_root(d), "result.protocolVersion"), NULL) : NULL;
    CHECK(v && !strcmp(v, "2025-06-18"), "asked version kept: %s", v ? v : "-");
    CHECK(d && get(hx_json_doc_root(d), "result.capabilities.tools"), "tools capability");
    hx_json_doc_free(d);
    send_line(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":\"again\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}", 60000);
    v = d ? hx_json_str(get(hx_json_doc_root(d), "result.protocolVersion"), NULL) : NULL;
    CHECK(v && !strcmp(v, "2025-11-25"), "unknown version answered with the latest: %s", v ? v : "-");
    hx_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", 60000);
    CHECK(d && get(hx_json_doc_root(d), "result"), "ping");
    hx_json_doc_free(d);

    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}", 60000);
    const hx_json_val *tools = d ? get(hx_json_doc_root(d), "result.tools") : NULL;
    static const char *const names[] = {"search", "get_context", "find_similar", "list_documents", "get_document",
                                        "document_status", "add_document", "delete_document", "reindex", "index_health"};
    CHECK(tools && hx_json_len(tools) == 10, "ten tools");
    for (size_t i = 0; tools && i < 10; i++) {
        const hx_json_val *t = hx_json_arr_get(tools, i);
        const char *n = hx_json_str(get(t, "name"), NULL);
        CHECK(n && !strcmp(n, names[i]), "tool %zu is %s", i, names[i]);
        CHECK(hx_json_type_of(get(t, "inputSchema")) == HX_JSON_OBJECT, "%s inputSchema", names[i]);
        CHECK(hx_json_type_of(get(t, "outputSchema")) == HX_JSON_OBJECT, "%s outputSchema", names[i]);
        const char *type = hx_json_str(get(t, "outputSchema.type"), NULL);
        CHECK(type && !strcmp(type, "object"), "%s outputSchema is an object schema", names[i]);
    }
    hx_json_doc_free(d);
}

static void test_tools(server *s)
{
    hx_json_doc *d;
    const hx_json_val *r = tool(s, &d, 10, "reindex", "{}");
    CHECK(r && !is_error(r), "reindex");
    CHECK(hx_json_bool(get(r, "structuredContent.searchable")) == 1, "reindex says it is searchable");
    int64_t added = 0;
    hx_json_num_int64(get(r, "structuredContent.added"), &added, NULL);
    CHECK(added == 3, "reindex added 3, got %lld", (long long)added);
    hx_json_doc_free(d);

    r = tool(s, &d, 11, "search", "{\"query\":\"where are pods placed\",\"top_k\":2}");
    const hx_json_val *res = get(r, "structuredContent.results");
    CHECK(res && hx_json_len(res) >= 1, "search results");
    const hx_json_val *first = hx_json_arr_get(res, 0);
    const char *path = hx_json_str(get(first, "citation.path"), NULL);
    CHECK(path && !strcmp(path, "docs/sched.md"), "best answer: %s", path ? path : "-");
    CHECK(get(first, "citation.version") && get(first, "citation.line_start") && get(first, "snippet") &&
              get(first, "citation.chunk_id"),
          "citation fields");
    CHECK(hx_json_type_of(get(r, "content")) == HX_JSON_ARRAY, "text content too");
    hx_json_doc_free(d);

    r = tool(s, &d, 12, "search", "{\"query\":\"kube-scheduler\",\"mode\":\"keyword\",\"filters\":{\"path\":\"docs/**\"}}");
    CHECK(r && !is_error(r) && hx_json_len(get(r, "structuredContent.results")) == 1, "keyword + path filter");
    hx_json_doc_free(d);
    r = tool(s, &d, 13, "search", "{\"query\":\"x\",\"mode\":\"fuzzy\"}");
    CHECK(r && is_error(r), "bad mode is a tool error");
    hx_json_doc_free(d);
    r = tool(s, &d, 14, "search", "{\"query\":\"x\",\"top_k\":500}");
    CHECK(r && is_error(r), "top_k over 50 is a tool error");
    hx_json_doc_free(d);
    r = tool(s, &d, 15, "search", "{\"query\":\"bread\",\"fusion\":{\"method\":\"weighted\",\"semantic_weight\":0.8,\"text_weight\":0.2}}");
    CHECK(r && !is_error(r), "weighted fusion");
    hx_json_doc_free(d);

    r = tool(s, &d, 16, "get_context", "{\"query\":\"bread\",\"max_tokens\":200}");
    const char *ctx = hx_json_str(get(r, "structuredContent.context"), NULL);
    CHECK(ctx && strstr(ctx, "[1] docs/bread.md"), "context starts with the best source: %.80s", ctx ? ctx : "-");
    int64_t used = 0;
    hx_json_num_int64(get(r, "structuredContent.total_tokens"), &used, NULL);
    CHECK(used > 0 && used <= 200, "within budget: %lld", (long long)used);
    hx_json_doc_free(d);
    r = tool(s, &d, 17, "get_context", "{\"query\":\"bread\",\"max_tokens\":64}");
    CHECK(hx_json_bool(get(r, "structuredContent.truncated")) == 1, "small budget drops passages");
    hx_json_doc_free(d);

    r = tool(s, &d, 18, "find_similar", "{\"path\":\"docs/sched.md\",\"top_k\":3}");
    res = get(r, "structuredContent.results");
    CHECK(res && !is_error(r), "find_similar by path");
    for (size_t i = 0; res && i < hx_json_len(res); i++)
        CHECK(strcmp(hx_json_str(get(hx_json_arr_get(res, i), "citation.path"), NULL), "docs/sched.md"), "itself excluded");
    hx_json_doc_free(d);
    r = tool(s, &d, 19, "find_similar", "{\"text\":\"baking bread\"}");
    CHECK(r && !is_error(r), "find_similar by text");
    hx_json_doc_free(d);

    r = tool(s, &d, 20, "list_documents", "{\"sort_by\":\"size\",\"order\":\"desc\",\"limit\":2}");
    int64_t total = 0;
    hx_json_num_int64(get(r, "structuredContent.total"), &total, NULL);
    CHECK(total == 3 && hx_json_len(get(r, "structuredContent.documents")) == 2, "list: total 3, page of 2");
    hx_json_doc_free(d);
    r = tool(s, &d, 21, "get_document", "{\"path\":\"docs/bread.md\"}");
    CHECK(r && hx_json_len(get(r, "structuredContent.chunks")) == 1 && get(r, "structuredContent.hash"), "get_document");
    hx_json_doc_free(d);
    r = tool(s, &d, 22, "document_status", "{\"path\":\"docs/bread.md\"}");
    const char *st = hx_json_str(get(r, "structuredContent.status"), NULL);
    CHECK(st && !strcmp(st, "complete"), "status complete: %s", st ? st : "-");
    hx_json_doc_free(d);
    r = tool(s, &d, 23, "document_status", "{\"path\":\"blob.bin\"}");
    st = hx_json_str(get(r, "structuredContent.status"), NULL);
    CHECK(st && !strcmp(st, "failed") && hx_json_str(get(r, "structuredContent.last_error"), NULL),
          "a rejected binary file is failed with a reason: %s", st ? st : "-");
    hx_json_doc_free(d);

    r = tool(s, &d, 24, "add_document", "{\"content\":\"# Quota\\n\\nResource quotas cap namespace usage.\",\"name\":\"notes/quota.md\",\"metadata\":{\"team\":\"ops\"}}");
    CHECK(r && !is_error(r) && hx_json_bool(get(r, "structuredContent.searchable")) == 1, "add_document");
    hx_json_doc_free(d);
    r = tool(s, &d, 25, "search", "{\"query\":\"quotas\",\"mode\":\"keyword\",\"filters\":{\"team\":\"ops\"}}");
    CHECK(hx_json_len(get(r, "structuredContent.results")) == 1, "added document searchable right after");
    hx_json_doc_free(d);
    r = tool(s, &d, 26, "add_document", "{\"path\":\"../outside.md\"}");
    CHECK(r && is_error(r), "path outside the root refused");
    hx_json_doc_free(d);
    r = tool(s, &d, 27, "reindex", "{\"paths\":[\"/etc\"]}");
    CHECK(r && is_error(r), "absolute path refused");
    hx_json_doc_free(d);
    r = tool(s, &d, 28, "add_document", "{\"path\":\"escape.md\"}");
    CHECK(r && is_error(r), "symlink out of the root refused");
    hx_json_doc_free(d);
    r = tool(s, &d, 29, "delete_document", "{\"path\":\"notes/quota.md\"}");
    int64_t dc = 0;
    hx_json_num_int64(get(r, "structuredContent.deleted_chunks"), &dc, NULL);
    CHECK(dc == 1, "delete_document returns deleted_chunks: %lld", (long long)dc);
    hx_json_doc_free(d);
    r = tool(s, &d, 30, "index_health", "{}");
    CHECK(r && !is_error(r) && get(r, "structuredContent.latency.search.p50_ms"), "index_health has latency per tool");
    CHECK(hx_json_len(get(r, "structuredContent.top_queries")) > 0, "and top queries");
    hx_json_doc_free(d);
}

/* The text of a tool error (borrowed from the answer), or "" when there is none. */
static const char *error_text(const hx_json_val *r)
{
    const char *t = r ? hx_json_str(get(hx_json_arr_get(get(r, "content"), 0), "text"), NULL) : NULL;
    return t ? t : "";
}

/* Printable ASCII only: an error message built from a path must not carry stack bytes. */
static bool printable(const char *t)
{
    for (; *t; t++)
        if ((unsigned char)*t < 0x20 || (unsigned char)*t > 0x7E)
            return false;
    return true;
}

static const char *doc_status(server *s, int id, const char *path, hx_json_doc **d)
{
    char args[256];
    snprintf(args, sizeof args, "{\"path\":\"%s\"}", path);
    const char *st = hx_json_str(get(tool(s, d, id, "document_status", args), "structuredContent.status"), NULL);
    return st ? st : "-";
}

/* Document names from a client (issue 9): add_document with a path naming the root, outside it
 * or with '..' is a clear error and indexes nothing; names are cleaned by one rule, so a..b.md is
 * a name, ./x deletes x, ./ names no document and a name over 4 KiB is refused, not truncated. */
static void test_paths(server *s)
{
    hx_json_doc *d;
    const hx_json_val *r;
    check_put(root, "later.md", "# Later\n\nA file written after the last reindex.\n");
    static const char *const bad[][2] = {
        {"{\"path\":\".\"}", "root"}, {"{\"path\":\"\"}", "root"}, {"{\"path\":\"./\"}", "root"},
        {"{\"path\":\"/etc/passwd\"}", "outside"}, {"{\"path\":\"../x\"}", "'..'"},
        {"{\"path\":\"docs\"}", "folder"}, {"{\"content\":\"x\",\"name\":\"./\"}", "root"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = tool(s, &d, 60 + (int)i, "add_document", bad[i][0]);
        const char *t = error_text(r);
        CHECK(r && is_error(r) && strstr(t, bad[i][1]), "add_document %s: an error naming '%s': %.200s", bad[i][0],
              bad[i][1], t);
        CHECK(printable(t), "add_document %s: a clean message: %.200s", bad[i][0], t);
        hx_json_doc_free(d);
    }
    const char *st = doc_status(s, 70, "later.md", &d);
    CHECK(!strcmp(st, "not_found"), "no add_document above ran a reindex: later.md is %s", st);
    hx_json_doc_free(d);
    st = doc_status(s, 71, "docs/sched.md", &d);
    CHECK(!strcmp(st, "complete"), "nothing was removed either: docs/sched.md is %s", st);
    hx_json_doc_free(d);

    r = tool(s, &d, 72, "add_document", "{\"content\":\"# Dots\\n\\nA name with two dots inside.\",\"name\":\"notes/a..b.md\"}");
    CHECK(r && !is_error(r), "a..b.md is a legal name: %.200s", error_text(r));
    hx_json_doc_free(d);
    st = doc_status(s, 73, "./notes//a..b.md", &d);
    CHECK(!strcmp(st, "complete"), "found under its clean name: %s", st);
    hx_json_doc_free(d);
    r = tool(s, &d, 74, "delete_document", "{\"path\":\"./notes/a..b.md\"}");
    const char *p = hx_json_str(get(r, "structuredContent.path"), NULL);
    CHECK(r && !is_error(r) && p && !strcmp(p, "notes/a..b.md"), "./ prefix deletes the named document: %.200s",
          p ? p : error_text(r));
    hx_json_doc_free(d);
    r = tool(s, &d, 75, "delete_document", "{\"path\":\"./\"}");
    CHECK(r && is_error(r) && strstr(error_text(r), "names the indexed root"), "./ names no document: %.200s",
          error_text(r));
    hx_json_doc_free(d);

    char line[6000] = "{\"jsonrpc\":\"2.0\",\"id\":76,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_document\","
                      "\"arguments\":{\"path\":\"docs/sched.md";
    for (int i = 0; i < 45; i++)
        strcat(line, "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    strcat(line, "\"}}}");
    d = call(s, line, 60000);
    r = d ? get(hx_json_doc_root(d), "result") : NULL;
    CHECK(r && is_error(r) && strstr(error_text(r), "longer than"), "a name over 4 KiB is refused: %.200s", error_text(r));
    hx_json_doc_free(d);
    st = doc_status(s, 77, "docs/sched.md", &d);
    CHECK(!strcmp(st, "complete"), "its neighbour is still there: %s", st);
    hx_json_doc_free(d);
    r = tool(s, &d, 78, "reindex", "{\"paths\":[\"./docs/\"]}");
    CHECK(r && !is_error(r), "reindex of ./docs/: %.200s", error_text(r));
    hx_json_doc_free(d);
}

/* Appends one hostile message to buf; returns whether it is a request that must be answered
 * (with id `id`), sets *null_answer when the answer has a null id (bad JSON, bad request). */
static int hostile(char *buf, size_t cap, unsigned *seed, int id, int *null_answer)
{
    unsigned r = (*seed = *seed * 1103515245u + 12345u) >> 8;
    *null_answer = 0;
    switch (r % 10) {
    case 0: {   /* random bytes, no newline inside */
        size_t n = r % 200;
        for (size_t i = 0; i < n; i++) {
            unsigned c = (*seed = *seed * 1103515245u + 12345u) >> 16 & 0xFF;
            buf[i] = (char)(c == '\n' || c == '\r' || c == 0 ? 'x' : c);
        }
        buf[n] = 0;
        int blank = 1;
        for (size_t i = 0; i < n; i++)
            blank &= buf[i] == ' ' || buf[i] == '\t';
        *null_answer = !blank;
        return !blank;
    }
    case 1:
        snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"sea", id);
        *null_answer = 1;
        return 1;
    case 2:
        snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":42}}}", id);
        return 1;
    case 3:
        snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":\"x\",\"top_k\":1e308}}}", id);
        return 1;
    case 4: {
        int depth = 1000 + (int)(r % 5000);
        size_t k = 0;
        for (int i = 0; i < depth && k + 2 < cap; i++)
            buf[k++] = '[';
        buf[k] = 0;
        *null_answer = 1;
        return 1;
    }
    case 5:
        snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"no/such/method\"}", id);
        return 1;
    case 6:
        snprintf(buf, cap, "{\"jsonrpc\":\"1.0\",\"id\":%d,\"method\":\"ping\"}", id);
        *null_answer = 0;
        return 1;
    case 7:
        snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\",\"params\":{}}");
        return 0;
    case 8:
        snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", id);
        return 1;
    default:
        snprintf(buf, cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}", id);
        return 1;
    }
}

static void test_hostile(server *s)
{
    long before = rss_kb(s->pid);
    unsigned seed = 12345;
    char *buf = malloc(1 << 16);
    int sent = 0, answered = 0, wrong = 0, non_json = 0;
    for (int i = 0; i < 10500; i++) {
        int null_answer, want = hostile(buf, 1 << 16, &seed, 100000 + i, &null_answer);
        send_line(s, buf);
        sent++;
        if (!want)
            continue;
        char *line = read_line(s, 60000);
        if (!line) {
            wrong++;
            break;
        }
        hx_json_doc *doc = NULL;
        if (hx_json_parse(&doc, line, strlen(line), NULL, NULL)) {
            non_json++;
        } else {
            const hx_json_val *id = get(hx_json_doc_root(doc), "id");
            int64_t got = -1;
            int ok = null_answer ? hx_json_type_of(id) == HX_JSON_NULL
                                 : (hx_json_num_int64(id, &got, NULL) == 0 && got == 100000 + i) ||
                                       hx_json_type_of(id) == HX_JSON_NULL;
            if (!ok) {
                wrong++;
                if (wrong < 5)
                    fprintf(stderr, "message %d: unexpected answer %.200s\n", i, line);
            }
            answered++;
        }
        hx_json_doc_free(doc);
        free(line);
    }
    /* a 20 MB line: answered with an error, then the server goes on */
    size_t huge = 20u << 20;
    char *big = malloc(huge + 1);
    memset(big, 'a', huge);
    memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"x\":\"", 45);
    big[huge - 2] = '"';
    big[huge - 1] = '}';
    big[huge] = 0;
    send_line(s, big);
    free(big);
    char *line = read_line(s, 60000);
    CHECK(line && strstr(line, "-32600") && strstr(line, "\"id\":null"), "20 MB line answered with -32600: %.120s",
          line ? line : "-");
    free(line);
    hx_json_doc *d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":\"alive\",\"method\":\"ping\"}", 60000);
    CHECK(d && get(hx_json_doc_root(d), "result"), "still answering after the hostile run");
    hx_json_doc_free(d);
    long after = rss_kb(s->pid);
    CHECK(sent >= 10000 && wrong == 0 && non_json == 0, "%d sent, %d answered, %d wrong, %d not JSON", sent, answered,
          wrong, non_json);
    CHECK(before > 0 && after < before + 64 * 1024, "memory bounded: %ld kB before, %ld kB after", before, after);
    printf("hostile run: %d messages, %d answered, RSS %ld -> %ld kB\n", sent, answered, before, after);
    free(buf);
}

static int stop(server *s, int sig)
{
    int status = 0;
    if (sig)
        kill(s->pid, sig);
    close(s->in);
    waitpid(s->pid, &status, 0);
    close(s->out);
    free(s->buf);
    return status;
}

int main(void)
{
    char tmpl[] = "/tmp/hx_mcp_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s/.hyrax/i.hyx", root);
    check_put(root, "docs/sched.md", "# Scheduling\n\nThe kube-scheduler places pods onto nodes with enough resources.\n");
    check_put(root, "docs/bread.md", "# Bread\n\nBake sourdough bread at home with flour, water and a starter.\n");
    check_put(root, "notes.txt", "Meeting notes: review the storage design next week.\n");
    check_put(root, "blob.bin", "ELF");
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/blob.bin", root);
    FILE *f = fopen(path, "wb");
    fwrite("\x7f" "ELF\0\0\0", 1, 7, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/escape.md", root);
    CHECK(symlink("/etc/hostname", path) == 0, "symlink");
    snprintf(path, sizeof path, "%s/.hyrax", root);
    mkdir(path, 0755);

#if defined(__SANITIZE_ADDRESS__)
    /* ASan keeps freed memory in a quarantine (256 MB by default), which would be counted as the
     * server's own growth by the RSS bound below: keep it small for the server this test runs. */
    setenv("ASAN_OPTIONS", "quarantine_size_mb=8", 0);
#endif
    server s;
    if (start(&s, 0))
        return check_report("test_mcp");
    test_lifecycle(&s);
    test_tools(&s);
    test_paths(&s);
    test_hostile(&s);
    int status = stop(&s, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "end of input: clean exit (status %d)", status);

    if (!start(&s, 1)) {
        hx_json_doc *d;
        const hx_json_val *r = tool(&s, &d, 1, "add_document", "{\"content\":\"x\",\"name\":\"y.md\"}");
        CHECK(r && is_error(r) && strstr(hx_json_str(get(hx_json_arr_get(get(r, "content"), 0), "text"), NULL), "read-only"),
              "--read-only refuses writes");
        hx_json_doc_free(d);
        r = tool(&s, &d, 2, "search", "{\"query\":\"bread\"}");
        CHECK(r && !is_error(r), "--read-only still searches");
        hx_json_doc_free(d);
        status = stop(&s, SIGTERM);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "SIGTERM: clean exit (status %d)", status);
    }
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_mcp");
}
