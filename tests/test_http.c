/* test_http.c: `hyrax serve --http` (src/http/http.c, http_server.c) as a started server over raw
 * sockets (the fixture of http_client.h): limits, keep-alive, pipelining, chunked bodies,
 * 100-continue, Origin, seed 002's REST shapes, errors, /metrics, MCP Streamable HTTP in protocol
 * 2025-11-25 and 2026-07-28, and concurrent clients, all on one server whose /metrics counts what
 * the others asked. Host names, the token, --allow-host and the buffer bound: test_http_guard.c.
 * The request parser on its own: test_http_parser.c. */
#include "http_client.h"

#include <pthread.h>


static int searches_ok;   /* POST /search answered 200, counted to check /metrics */

/* POST /search for `word` in keyword mode: its total_results, -1 unless answered 200 (counted in
 * searches_ok); the response body into *body (owned, may be NULL). */
static int64_t keyword_total(int port, const char *word, char **body)
{
    char req[256];
    snprintf(req, sizeof req, "{\"query\":\"%s\",\"search_type\":\"keyword\"}", word);
    response resp;
    post(port, "/search", "", req, &resp);
    hxi_json_doc *d = json_of(&resp);
    int64_t total = resp.status == 200 ? int_of(at(d, "total_results")) : -1;
    searches_ok += resp.status == 200;
    hxi_json_doc_free(d);
    *body = resp.body;
    return total;
}

static void test_rest(int port)
{
    response resp;
    exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    hxi_json_doc *d = json_of(&resp);
    CHECK(resp.status == 200 && d, "health answers");
    CHECK(str_is(at(d, "status"), "healthy") || str_is(at(d, "status"), "starting"), "health status");
    CHECK(hxi_json_type_of(at(d, "model_loaded")) == HX_JSON_BOOL && hxi_json_type_of(at(d, "indexed_chunks")) ==
          HX_JSON_NUMBER, "seed 002 HealthResponse fields");
    CHECK(hxi_json_type_of(at(d, "activity.latency")) == HX_JSON_OBJECT &&
          hxi_json_type_of(at(d, "activity.index.lag")) == HX_JSON_OBJECT, "health carries the lasting activity");
    hxi_json_doc_free(d);
    free(resp.body);

    /* a search waits for the model; the fixture's facts: 3 documents, "zebras" in zoo.md only */
    post(port, "/search", "", "{\"query\": \"zebras\", \"search_type\": \"keyword\", \"top_k\": 3}", &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && d, "search: %d %.300s", resp.status, resp.body ? resp.body : "");
    searches_ok += resp.status == 200;
    CHECK(str_is(at(d, "query"), "zebras") && str_is(at(d, "mode"), "keyword") && str_is(at(d, "group"), "document"),
          "query, mode and group (documents by default)");
    CHECK(int_of(at(d, "total_results")) == 1 && hxi_json_len(at(d, "results")) == 1, "one document has zebras");
    CHECK(str_is(at(d, "results.0.path"), "zoo.md") && str_is(at(d, "results.0.citation.path"), "zoo.md"),
          "the zebra document");
    const char *snip = hxi_json_str(at(d, "results.0.snippet"), NULL);
    CHECK(hxi_json_type_of(at(d, "results.0.chunk_id")) == HX_JSON_NUMBER &&
          int_of(at(d, "results.0.chunk_id")) == int_of(at(d, "results.0.citation.chunk_id")) &&
          hxi_json_type_of(at(d, "results.0.doc_id")) == HX_JSON_NUMBER &&
          hxi_json_type_of(at(d, "results.0.rank")) == HX_JSON_NUMBER &&
          hxi_json_type_of(at(d, "results.0.score")) == HX_JSON_NUMBER &&
          hxi_json_type_of(at(d, "results.0.metadata")) == HX_JSON_OBJECT && snip && strstr(snip, "ebras") &&
          !at(d, "results.0.kep_id") && hxi_json_type_of(at(d, "search_time_ms")) == HX_JSON_NUMBER,
          "the result object of search --json and MCP: numbers as numbers, a snippet");
    hxi_json_doc *rest = d;
    char *rest_body = resp.body;
    /* the same search as GET, and as MCP's search: the same result objects */
    exchange(port, "GET /search?q=zebras&k=3&mode=keyword HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && d && hxi_json_equal(at(d, "results"), at(rest, "results")),
          "GET /search?q=&k=&mode= answers as POST: %d %.300s", resp.status, resp.body ? resp.body : "");
    hxi_json_doc_free(d);
    free(resp.body);
    post(port, "/mcp", "MCP-Protocol-Version: 2025-11-25\r\n",
         "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":"
         "\"zebras\",\"mode\":\"keyword\",\"top_k\":3}}}", &resp);
    d = json_of(&resp);
    CHECK(d && hxi_json_equal(at(d, "result.structuredContent.results"), at(rest, "results")),
          "MCP's search gives the same result objects: %.300s", resp.body ? resp.body : "");
    hxi_json_doc_free(d);
    free(resp.body);
    exchange(port, "GET /search?q=containers+units&min_score=0&group_by=chunk&k=%35 HTTP/1.1\r\nHost: localhost\r\n\r\n",
             &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && str_is(at(d, "query"), "containers units") && str_is(at(d, "group"), "chunk") &&
          str_is(at(d, "mode"), "hybrid"), "GET decodes + and %%XX: %d %.200s", resp.status, resp.body ? resp.body : "");
    hxi_json_doc_free(d);
    free(resp.body);
    d = rest;
    resp.body = rest_body;
    hxi_json_doc_free(d);
    free(resp.body);

    /* the answer budget of MCP's answers: max_bytes and a cursor, on GET and POST; results left out
     * whole from the end, the cursor giving the rest in order */
    exchange(port, "GET /search?q=containers+units&min_score=0&group_by=chunk&k=6&max_bytes=1048576 HTTP/1.1\r\n"
                   "Host: localhost\r\n\r\n", &resp);
    d = json_of(&resp);
    const hxi_json_val *full = at(d, "results");
    size_t n_full = full ? hxi_json_len(full) : 0, budget = resp.body_len * 2 / 3, given = 0, pages = 0;
    CHECK(resp.status == 200 && n_full >= 3 && !at(d, "next_cursor"), "a whole answer: %zu results in %zu bytes",
          n_full, resp.body_len);
    char cursor[80] = "", body[512];
    bool in_order = true;
    for (; pages < 10; pages++) {
        snprintf(body, sizeof body, "{\"query\":\"containers units\",\"min_score\":0,\"group_by\":\"chunk\",\"top_k\":6,"
                 "\"max_bytes\":%zu%s%s%s}", budget < 1024 ? 1024 : budget, *cursor ? ",\"cursor\":\"" : "", cursor,
                 *cursor ? "\"" : "");
        response page;
        post(port, "/search", "", body, &page);
        hxi_json_doc *pd = json_of(&page);
        const hxi_json_val *res = at(pd, "results");
        searches_ok += page.status == 200;
        CHECK(page.status == 200 && pd && page.body_len <= (budget < 1024 ? 1024 : budget),
              "page %zu within max_bytes: %d, %zu bytes", pages, page.status, page.body_len);
        for (size_t i = 0; res && i < hxi_json_len(res); i++, given++)
            in_order &= given < n_full && hxi_json_equal(hxi_json_arr_get(res, i), hxi_json_arr_get(full, given));
        const char *next = hxi_json_str(at(pd, "next_cursor"), NULL);
        CHECK(!next || int_of(at(pd, "omitted")) == (int64_t)(n_full - given), "omitted counts the rest");
        snprintf(cursor, sizeof cursor, "%s", next ? next : "");
        hxi_json_doc_free(pd);
        free(page.body);
        if (!next)
            break;
    }
    CHECK(given == n_full && in_order && pages >= 1, "the cursor gives every result once, in order: %zu of %zu in %zu "
          "pages", given, n_full, pages + 1);
    hxi_json_doc_free(d);
    free(resp.body);
    exchange(port, "GET /search?q=zebras&cursor=1.00000000 HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    CHECK(resp.status == 400 && resp.body && strstr(resp.body, "next_cursor"), "a cursor of another query: %d %.200s",
          resp.status, resp.body ? resp.body : "");
    free(resp.body);
    exchange(port, "GET /search?q=zebras&max_bytes=12 HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    CHECK(resp.status == 400, "max_bytes below 1024: %d", resp.status);
    free(resp.body);

    /* filters, seed 002's example key (sig_name = owning-sig): only pods.md has sig-node */
    post(port, "/search", "", "{\"query\": \"containers units\", \"min_score\": 0, \"filters\": {\"sig_name\": \"sig-node\"}}",
         &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && d, "filtered search %d", resp.status);
    searches_ok += resp.status == 200;
    size_t n = hxi_json_len(at(d, "results"));
    CHECK(n >= 1, "pods.md found");
    for (size_t i = 0; i < n; i++) {
        char path[48];
        snprintf(path, sizeof path, "results.%zu.path", i);
        CHECK(str_is(at(d, path), "pods.md"), "only sig-node documents");
    }
    CHECK(str_is(at(d, "mode"), "hybrid"), "hybrid by default");
    hxi_json_doc_free(d);
    free(resp.body);

    exchange(port, "GET /stats HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && int_of(at(d, "total_keps")) == 3 && int_of(at(d, "embedding_dimension")) == 384 &&
          int_of(at(d, "total_chunks")) >= 3 && hxi_json_len(at(d, "search_modes")) == 3, "stats %.200s",
          resp.body ? resp.body : "");
    hxi_json_doc_free(d);
    free(resp.body);

    /* errors: JSON bodies with the HTTP status */
    struct {
        const char *raw;
        int status;
    } errs[] = {
        {"POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\n{\"q\":", 400},
        {"POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}", 400},
        {"POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 26\r\n\r\n{\"query\":\"a\",\"top_k\":51}  ", 400},
        {"POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 35\r\n\r\n"
         "{\"query\":\"a\",\"search_type\":\"fuzzy\"}", 400},
        {"GET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n", 404},
        {"GET /search HTTP/1.1\r\nHost: localhost\r\n\r\n", 400},
        {"GET /search?q=a&k=x HTTP/1.1\r\nHost: localhost\r\n\r\n", 400},
        {"GET /search?q=%zz HTTP/1.1\r\nHost: localhost\r\n\r\n", 400},
        {"PUT /search HTTP/1.1\r\nHost: localhost\r\n\r\n", 405},
        {"DELETE /health HTTP/1.1\r\nHost: localhost\r\n\r\n", 405},
        {"GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n", 405},
        {"POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999\r\n\r\n", 413},
        {"GET / HTTP/1.1\r\n\r\n", 400},
        {"GET / HTTP/3.0\r\nHost: localhost\r\n\r\n", 505},
        {"GET /health HTTP/1.9\r\nHost: localhost\r\n\r\n", 505},
    };
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        exchange(port, errs[i].raw, &resp);
        d = json_of(&resp);
        CHECK(resp.status == errs[i].status && hxi_json_type_of(at(d, "detail")) == HX_JSON_STRING &&
              int_of(at(d, "status")) == errs[i].status, "error %zu: %d (want %d) %.200s", i, resp.status,
              errs[i].status, resp.body ? resp.body : "");
        if (errs[i].status == 405)
            CHECK(strstr(resp.head, "Allow: "), "405 names what is allowed");
        hxi_json_doc_free(d);
        free(resp.body);
    }
    /* 414 and 431 */
    char *raw = malloc(80000);
    snprintf(raw, 80000, "GET /%09000d HTTP/1.1\r\nHost: localhost\r\n\r\n", 0);
    exchange(port, raw, &resp);
    CHECK(resp.status == 414, "long target: %d", resp.status);
    free(resp.body);
    size_t len = (size_t)snprintf(raw, 80000, "GET /health HTTP/1.1\r\nHost: localhost\r\n");
    for (int i = 0; i < 65; i++)
        len += (size_t)snprintf(raw + len, 80000 - len, "X-H%d: %d\r\n", i, i);
    snprintf(raw + len, 80000 - len, "\r\n");
    exchange(port, raw, &resp);
    CHECK(resp.status == 431, "65 headers: %d", resp.status);
    free(resp.body);
    len = (size_t)snprintf(raw, 80000, "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ");
    memset(raw + len, 'a', 40000);
    snprintf(raw + len + 40000, 80000 - len - 40000, "\r\n\r\n");
    exchange(port, raw, &resp);
    CHECK(resp.status == 431, "40 KB header: %d", resp.status);
    free(resp.body);
    free(raw);

    /* Origin: a foreign page is refused, a loopback page served */
    exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\nOrigin: http://evil.example\r\n\r\n", &resp);
    CHECK(resp.status == 403, "foreign origin: %d", resp.status);
    free(resp.body);
    exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost.evil.example\r\n\r\n", &resp);
    CHECK(resp.status == 403, "look-alike origin: %d", resp.status);
    free(resp.body);
    exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\nOrigin: http://127.0.0.1:3000\r\n\r\n", &resp);
    CHECK(resp.status == 200, "loopback origin: %d", resp.status);
    free(resp.body);
    exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:80@evil.example\r\n\r\n",
             &resp);
    CHECK(resp.status == 403, "userinfo is no loopback origin: %d", resp.status);
    free(resp.body);
    exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\nOrigin: null\r\n\r\n", &resp);
    CHECK(resp.status == 403, "an opaque origin: %d", resp.status);
    free(resp.body);
}

/* Keep-alive, pipelining, chunked bodies, 100-continue, Connection: close, HTTP/1.0. */
static void test_connections(int port)
{
    reader *r = calloc(1, sizeof *r);
    response resp;
    r->fd = connect_to(port);
    /* three requests in one write: answered in order on the one connection */
    const char *three = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        "GET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        "POST /search HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "9\r\n{\"query\":\r\n9\r\n\"zebras\"}\r\n0\r\n\r\n";
    send_str(r->fd, three, strlen(three));
    read_response(r, &resp);
    CHECK(resp.status == 200 && strstr(resp.body, "indexed_chunks"), "pipelined 1: %d", resp.status);
    free(resp.body);
    read_response(r, &resp);
    CHECK(resp.status == 404, "pipelined 2: %d", resp.status);
    free(resp.body);
    read_response(r, &resp);
    CHECK(resp.status == 200 && strstr(resp.body, "\"query\":\"zebras\""), "pipelined 3, chunked: %d", resp.status);
    searches_ok += resp.status == 200;
    free(resp.body);
    /* still open: one more */
    send_cstr(r->fd, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
    read_response(r, &resp);
    CHECK(resp.status == 200, "kept alive: %d", resp.status);
    free(resp.body);
    /* Expect: 100-continue gets the interim response before the body is sent */
    const char *head = "POST /search HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 18\r\n\r\n";
    send_str(r->fd, head, strlen(head));
    read_response(r, &resp);
    CHECK(resp.status == 100, "100 Continue: %d", resp.status);
    free(resp.body);
    send_str(r->fd, "{\"query\":\"zebras\"}", 18);
    read_response(r, &resp);
    CHECK(resp.status == 200, "after 100 Continue: %d", resp.status);
    searches_ok += resp.status == 200;
    free(resp.body);
    /* Connection: close ends it after the answer */
    send_cstr(r->fd, "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    read_response(r, &resp);
    CHECK(resp.status == 200 && strstr(resp.head, "Connection: close"), "close: %d", resp.status);
    free(resp.body);
    CHECK(r->len == 0 && recv(r->fd, r->buf, 1, 0) == 0, "closed by the server");
    close(r->fd);
    /* HTTP/1.0 without keep-alive: closed too */
    memset(r, 0, sizeof *r);
    r->fd = connect_to(port);
    send_str(r->fd, "GET /health HTTP/1.0\r\n\r\n", 24);
    read_response(r, &resp);
    CHECK(resp.status == 200, "1.0: %d", resp.status);
    free(resp.body);
    CHECK(r->len == 0 && recv(r->fd, r->buf, 1, 0) == 0, "1.0 closed");
    close(r->fd);
    free(r);
}

/* A client that shuts its write side right after its requests (nc -N, one-shot scripts, some
 * proxies): every complete request is answered, the last with Connection: close, then EOF. Done 20
 * times each: the FIN comes with the request or just after it, as the scheduler has it. */
static void test_half_close(int port)
{
    const char *ping = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                       "Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    const char *one[] = {"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", ping};
    reader *r = calloc(1, sizeof *r);
    response resp;
    for (int k = 0; k < 2; k++) {
        int answered = 0, closed = 0;
        for (int i = 0; i < 20; i++) {
            memset(r, 0, sizeof *r);
            r->fd = connect_to(port);
            send_cstr(r->fd, one[k]);
            shutdown(r->fd, SHUT_WR);
            read_response(r, &resp);
            answered += resp.status == 200;
            closed += r->len == 0 && recv(r->fd, r->buf, 1, 0) == 0;
            free(resp.body);
            close(r->fd);
        }
        CHECK(answered == 20 && closed == 20, "%s then FIN: %d of 20 answered, %d closed after", k ? "POST /mcp ping"
              : "GET /health", answered, closed);
    }
    /* three complete requests and the start of a fourth, then FIN: three answers, a 400, EOF */
    memset(r, 0, sizeof *r);
    r->fd = connect_to(port);
    send_cstr(r->fd, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n");
    send_cstr(r->fd, ping);
    send_cstr(r->fd, "GET /hea");
    shutdown(r->fd, SHUT_WR);
    int want[] = {200, 404, 200, 400};
    for (int i = 0; i < 4; i++) {
        read_response(r, &resp);
        CHECK(resp.status == want[i], "pipelined then FIN, answer %d: %d (want %d)", i, resp.status, want[i]);
        if (i == 3)
            CHECK(strstr(resp.head, "Connection: close"), "the last says close");
        free(resp.body);
    }
    CHECK(r->len == 0 && recv(r->fd, r->buf, 1, 0) == 0, "then EOF");
    close(r->fd);
    free(r);
}

/* A body over the limit (16 MiB) is refused with 413 as soon as its head declares it, and the
 * client, still sending, gets to read that answer rather than a reset: 17 MiB declared and sent
 * whole (a client such as curl gives up at EPIPE or ECONNRESET, before it reads anything), then the
 * answer read. Chunked too (one chunk of 17 MiB). */
static void test_big_body(int port)
{
    size_t body = (size_t)17 << 20;
    char *raw = malloc(body + 256);
    for (int chunked = 0; chunked < 2; chunked++) {
#define BIG_HEAD "POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        int head = chunked ? snprintf(raw, 256, BIG_HEAD "Transfer-Encoding: chunked\r\n\r\n%zx\r\n", body)
                           : snprintf(raw, 256, BIG_HEAD "Content-Length: %zu\r\n\r\n", body);
#undef BIG_HEAD
        memset(raw + head, 'a', body);
        reader *r = calloc(1, sizeof *r);
        r->fd = connect_to(port);
        int sent = send_str(r->fd, raw, (size_t)head + body);
        int e = errno;
        response resp;
        read_response(r, &resp);
        CHECK(sent == 0, "17 MiB %s sent whole: %s", chunked ? "chunked" : "declared", sent ? strerror(e) : "");
        CHECK(resp.status == 413 && strstr(resp.head, "Connection: close"), "17 MiB %s: %d",
              chunked ? "chunked" : "declared", resp.status);
        free(resp.body);
        close(r->fd);
        free(r);
    }
    free(raw);
}

/* MCP Streamable HTTP: legacy (2025-11-25, no session) and 2026-07-28 requests. */
static void test_mcp_http(int port)
{
    response resp;
    hxi_json_doc *d;
    post(port, "/mcp", "Accept: application/json, text/event-stream\r\n",
         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
         "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && strstr(resp.head, "application/json") &&
          str_is(at(d, "result.protocolVersion"), "2025-11-25"), "initialize over HTTP: %d", resp.status);
    hxi_json_doc_free(d);
    free(resp.body);
    post(port, "/mcp", "MCP-Protocol-Version: 2025-11-25\r\n",
         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &resp);
    CHECK(resp.status == 202 && resp.body_len == 0, "notification: 202 %d", resp.status);
    free(resp.body);
    post(port, "/mcp", "MCP-Protocol-Version: 2025-11-25\r\n", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
         &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && hxi_json_len(at(d, "result.tools")) >= 10 && !at(d, "result.resultType"),
          "tools/list, no resultType before 2026");
    char *first = resp.body;
    post(port, "/mcp", "MCP-Protocol-Version: 2025-11-25\r\n", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
         &resp);
    CHECK(resp.body && first && !strcmp(first, resp.body), "tools/list is the same byte for byte");
    free(first);
    free(resp.body);
    hxi_json_doc_free(d);
    post(port, "/mcp", "MCP-Protocol-Version: 2025-11-25\r\n",
         "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":"
         "\"zebras\",\"mode\":\"keyword\"}}}", &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && hxi_json_bool(at(d, "result.isError")) == 0 &&
          str_is(at(d, "result.structuredContent.results.0.citation.path"), "zoo.md"), "tools/call search");
    hxi_json_doc_free(d);
    free(resp.body);

    /* 2026-07-28: no initialize, _meta envelope, headers that agree, resultType */
    const char *modern_hdr = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n";
    const char *modern = "{\"jsonrpc\":\"2.0\",\"id\":\"m1\",\"method\":\"tools/call\",\"params\":{\"name\":\"search\","
                         "\"arguments\":{\"query\":\"zebras\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                         "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    post(port, "/mcp", modern_hdr, modern, &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && str_is(at(d, "result.resultType"), "complete") &&
          hxi_json_type_of(hxi_json_obj_get(at(d, "result._meta"), "io.modelcontextprotocol/serverInfo")) == HX_JSON_OBJECT,
          "2026-07-28 tools/call: %.300s", resp.body ? resp.body : "");
    hxi_json_doc_free(d);
    free(resp.body);
    post(port, "/mcp", "MCP-Protocol-Version: 2025-11-25\r\nMcp-Method: tools/call\r\n", modern, &resp);
    d = json_of(&resp);
    CHECK(resp.status == 400 && int_of(at(d, "error.code")) == -32020, "header disagrees with the envelope: %d",
          resp.status);
    hxi_json_doc_free(d);
    free(resp.body);
    post(port, "/mcp", "MCP-Protocol-Version: 2026-07-28\r\n",
         "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
         "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
         &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && str_is(at(d, "result.supportedVersions.0"), "2026-07-28") &&
          hxi_json_type_of(at(d, "result.capabilities.tools")) == HX_JSON_OBJECT, "server/discover");
    hxi_json_doc_free(d);
    free(resp.body);
    post(port, "/mcp", "MCP-Protocol-Version: 1999-01-01\r\n", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}",
         &resp);
    CHECK(resp.status == 400, "unknown protocol version header: %d", resp.status);
    free(resp.body);
    post(port, "/mcp", "", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"no/such\"}", &resp);
    CHECK(resp.status == 404, "unknown method: %d", resp.status);
    free(resp.body);
    post(port, "/mcp", "", "{\"jsonrpc\":", &resp);
    d = json_of(&resp);
    CHECK(resp.status == 400 && int_of(at(d, "error.code")) == -32700, "parse error: %d", resp.status);
    hxi_json_doc_free(d);
    free(resp.body);
    exchange(port, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
             &resp);
    CHECK(resp.status == 415, "not JSON: %d", resp.status);
    free(resp.body);
    post(port, "/mcp", "Origin: https://attacker.example\r\n", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}",
         &resp);
    CHECK(resp.status == 403, "foreign Origin on /mcp: %d", resp.status);
    free(resp.body);

    /* a write tool streams its progress as server-sent events when asked, then its result */
    post(port, "/mcp", "Accept: application/json, text/event-stream\r\n",
         "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"reindex\",\"arguments\":{\"force\":"
         "true},\"_meta\":{\"progressToken\":\"tok-1\"}}}", &resp);
    CHECK(resp.status == 200 && strstr(resp.head, "text/event-stream"), "SSE for progress: %d", resp.status);
    CHECK(resp.body && strstr(resp.body, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\""
                                         ",\"params\":{\"progressToken\":\"tok-1\""), "progress events");
    const char *last = resp.body ? strstr(resp.body, "\"id\":8") : NULL;
    CHECK(last && strstr(last, "\"isError\":false"), "then the result: %.400s", resp.body ? resp.body : "");
    free(resp.body);
    /* and answers with plain JSON when no progress is asked */
    post(port, "/mcp", "Accept: application/json, text/event-stream\r\n",
         "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"reindex\",\"arguments\":{}}}", &resp);
    d = json_of(&resp);
    CHECK(resp.status == 200 && strstr(resp.head, "application/json") && hxi_json_bool(at(d, "result.isError")) == 0,
          "write tool, JSON answer: %d %.300s", resp.status, resp.body ? resp.body : "");
    hxi_json_doc_free(d);
    free(resp.body);
}

/* A new MCP session (initialize, protocol 2025-11-25): its Mcp-Session-Id into id (cap bytes), or "". */
static void open_session(int port, char *id, size_t cap)
{
    response resp;
    post(port, "/mcp", "",
         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
         "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", &resp);
    const char *h = strcasestr(resp.head, "\nMcp-Session-Id: ");
    if (!h && !strncasecmp(resp.head, "Mcp-Session-Id: ", 16))
        h = resp.head - 1;
    size_t n = h ? strcspn(h + 17, "\r\n") : 0;
    snprintf(id, cap, "%.*s", (int)(n < cap ? n : cap - 1), h ? h + 17 : "");
    free(resp.body);
}

/* Sends POST /mcp with a session on connection fd without waiting for the answer. */
static void send_mcp(int fd, const char *session, const char *body)
{
    size_t n = strlen(body) + 512;
    char *raw = malloc(n);
    snprintf(raw, n, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nMCP-Protocol-Version: "
             "2025-11-25\r\nMcp-Session-Id: %s\r\nContent-Length: %zu\r\n\r\n%s", session, strlen(body), body);
    send_str(fd, raw, strlen(raw));
    free(raw);
}

/* notifications/cancelled over HTTP, sent on another connection: it cancels the write job of its
 * own session with that request id (MCP 2025-11-25 "Cancellation": ids are unique within a
 * session), and no other: not one of another session with the same id, and nothing for a
 * cancellation without a session. */
/* Polls index_health (a read, answered beside the writes) for up to 60 s until a write job runs. */
static bool job_running(int port, const char *session)
{
    char hdr[256];
    snprintf(hdr, sizeof hdr, "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: %s\r\n", session);
    for (int tries = 0; tries < 600; tries++, usleep(100000)) {
        response resp;
        post(port, "/mcp", hdr, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"index_health\",\"arguments\":{}}}", &resp);
        hxi_json_doc *d = json_of(&resp);
        bool running = hxi_json_str(at(d, "result.structuredContent.running_job"), NULL) != NULL;
        hxi_json_doc_free(d);
        free(resp.body);
        if (running)
            return true;
    }
    return false;
}

#define FILLERS 17   /* writes besides test_cancel's two: more than the most request threads (16) */

static void test_cancel(int port)
{
    char s1[160], s2[160], hdr[256];
    open_session(port, s1, sizeof s1);
    open_session(port, s2, sizeof s2);
    CHECK(strlen(s1) == 32 && strspn(s1, "0123456789abcdef") == 32 && strlen(s2) == 32 && strcmp(s1, s2),
          "initialize opens a session: 128 random bits in hex, one per initialize (%s, %s)", s1, s2);
    /* a document far too big to embed before the cancellation arrives, even unsanitized on many
       cores (about 1,200 chunks: 19 batches); the job stops at its first batch boundary after it */
    size_t cap = 2 << 20, len = 0;
    char *big = malloc(cap);
    len += (size_t)snprintf(big, cap, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                            "\"add_document\",\"arguments\":{\"name\":\"big.md\",\"content\":\"# Quokkabig\\n\\n");
    for (int i = 0; i < 4000; i++)
        len += (size_t)snprintf(big + len, cap - len, "Paragraph %d of the quokkabig notes: the island's marsupials "
                                "forage at dusk, rest in the shade by day, and number %d in the survey of year %d."
                                "\\n\\n", i, i * 37 % 1000, 1900 + i % 120);
    snprintf(big + len, cap - len, "\"}}}");
    reader *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    a->fd = connect_to(port);
    b->fd = connect_to(port);
    /* a running job sees the cancellation after its batch of chunks (64), which takes minutes under
       ASan on a loaded machine: wait up to 10 minutes for these two answers */
    struct timeval tv = {600, 0};
    setsockopt(a->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(b->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    send_mcp(a->fd, s1, big);
    CHECK(job_running(port, s2), "the big write runs");
    send_mcp(b->fd, s2, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"add_document\","
                        "\"arguments\":{\"name\":\"small.md\",\"content\":\"# Small\\n\\nThe quokkasmall note.\"}}}");
    /* writes waiting behind the big one hold no request thread: with more of them than the server
       has request threads (4 to 16), a query is still answered while every write waits */
    reader *fillers = calloc(FILLERS, sizeof *fillers);
    for (int i = 0; i < FILLERS; i++) {
        char body[256];
        snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"add_document\",\"arguments\":{\"name\":\"filler-%d.md\",\"content\":\"# Filler\\n\\nThe "
                 "quokkafiller note %d.\"}}}", 10 + i, i, i);
        fillers[i].fd = connect_to(port);
        setsockopt(fillers[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        send_mcp(fillers[i].fd, s2, body);
    }
    usleep(300000);   /* every write read by the server */
    char *body;
    CHECK(keyword_total(port, "zebras", &body) == 1, "a query is answered while %d writes wait: %.200s", FILLERS + 2,
          body ? body : "");
    free(body);
    int answered = 0;
    for (int i = 0; i < FILLERS; i++) {
        struct pollfd pf = {fillers[i].fd, POLLIN, 0};
        answered += poll(&pf, 1, 0) > 0;
    }
    struct pollfd pab[2] = {{a->fd, POLLIN, 0}, {b->fd, POLLIN, 0}};
    CHECK(!answered && poll(pab, 2, 0) == 0, "... before any of them is answered (%d were)", answered);
    response resp;
    const char *cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5,"
                         "\"reason\":\"test\"}}";
    post(port, "/mcp", "MCP-Protocol-Version: 2025-11-25\r\n", cancel, &resp);
    CHECK(resp.status == 202, "a cancellation without a session: accepted (%d) and ignored", resp.status);
    free(resp.body);
    snprintf(hdr, sizeof hdr, "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: %0129d\r\n", 0);
    post(port, "/mcp", hdr, cancel, &resp);
    CHECK(resp.status == 400, "a session id of 129 characters: %d", resp.status);
    free(resp.body);
    snprintf(hdr, sizeof hdr, "MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: %s\r\n", s1);
    post(port, "/mcp", hdr, cancel, &resp);
    CHECK(resp.status == 202, "the cancellation of session 1's request 5: %d", resp.status);
    free(resp.body);
    /* a cancellation that comes before the server has read the request is ignored (as MCP says):
       sent again every half second until the answer comes */
    for (struct pollfd pa = {a->fd, POLLIN, 0}; poll(&pa, 1, 500) == 0;) {
        post(port, "/mcp", hdr, cancel, &resp);
        free(resp.body);
    }
    read_response(a, &resp);
    CHECK(resp.status == 503 && !strstr(resp.body ? resp.body : "", "jsonrpc"),
          "the cancelled request has no JSON-RPC answer: %d %.300s", resp.status, resp.body ? resp.body : "");
    free(resp.body);
    read_response(b, &resp);
    hxi_json_doc *d = json_of(&resp);
    CHECK(resp.status == 200 && hxi_json_bool(at(d, "result.isError")) == 0,
          "session 2's request 5 runs: %d %.300s", resp.status, resp.body ? resp.body : "");
    hxi_json_doc_free(d);
    free(resp.body);
    for (int i = 0, ok = 0; i < FILLERS; i++) {
        read_response(&fillers[i], &resp);
        d = json_of(&resp);
        ok += resp.status == 200 && hxi_json_bool(at(d, "result.isError")) == 0;
        hxi_json_doc_free(d);
        free(resp.body);
        close(fillers[i].fd);
        if (i == FILLERS - 1)
            CHECK(ok == FILLERS, "the waiting writes are answered afterwards (%d of %d)", ok, FILLERS);
    }
    free(fillers);
    CHECK(keyword_total(port, "quokkabig", &body) == 0, "nothing of the cancelled document: %.200s", body ? body : "");
    free(body);
    CHECK(keyword_total(port, "quokkasmall", &body) == 1, "the other session's document is there: %.200s",
          body ? body : "");
    free(body);
    close(a->fd);
    close(b->fd);
    free(a);
    free(b);
    free(big);
}

/* /metrics: Prometheus text with the counts this test made. */
static void test_metrics(int port)
{
    response resp;
    exchange(port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    CHECK(resp.status == 200 && strstr(resp.head, "text/plain; version=0.0.4"), "metrics: %d", resp.status);
    CHECK(strstr(resp.head, "Server: hyrax/" HX_VERSION_STRING) != NULL, "the Server header names the one "
          "version (hx_version): %s", resp.head);
    const char *b = resp.body ? resp.body : "";
    CHECK(strstr(b, "# TYPE hyrax_http_request_duration_seconds histogram\n"), "histogram type");
    char want[160];
    snprintf(want, sizeof want, "hyrax_http_requests_total{route=\"/search\",method=\"POST\",code=\"200\"} %d\n",
             searches_ok);
    CHECK(strstr(b, want), "%s in %.2000s", want, b);
    CHECK(strstr(b, "hyrax_http_request_duration_seconds_bucket{route=\"/search\",method=\"POST\",code=\"200\",le=\"+Inf\"}"),
          "+Inf bucket");
    CHECK(strstr(b, "hyrax_mcp_tool_duration_seconds_count{tool=\"search\",transport=\"http\"}"), "tool series");
    CHECK(strstr(b, "hyrax_mcp_tool_duration_seconds_count{tool=\"reindex\",transport=\"http\"} 2\n"), "two reindexes");
    CHECK(strstr(b, "\nhyrax_index_documents 21\n"), "documents gauge: the 3 files, test_cancel's small.md, fillers");
    CHECK(strstr(b, "\nhyrax_model_loaded 1\n"), "model gauge");
    CHECK(strstr(b, "hyrax_request_duration_seconds_count{tool=\"search\",transport=\"http\"}"),
          "the lasting statistics' series (stats.h) follow");
    free(resp.body);
}

/* 16 clients at once, each with its own kept-alive connection and its own queries. */
typedef struct {
    int port, id, ok;
} client_arg;

static void *client(void *p)
{
    client_arg *a = p;
    reader *r = calloc(1, sizeof *r);
    r->fd = connect_to(a->port);
    for (int i = 0; i < 6 && r->fd >= 0; i++) {
        char body[128], raw[512];
        int n = snprintf(body, sizeof body, "{\"query\":\"zebras %d-%d\",\"search_type\":\"%s\"}", a->id, i,
                         i % 2 ? "keyword" : "hybrid");
        snprintf(raw, sizeof raw, "POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n%s", n, body);
        send_str(r->fd, raw, strlen(raw));
        response resp;
        read_response(r, &resp);
        char q[64];
        snprintf(q, sizeof q, "\"query\":\"zebras %d-%d\"", a->id, i);
        a->ok += resp.status == 200 && resp.body && strstr(resp.body, q);
        free(resp.body);
    }
    if (r->fd >= 0)
        close(r->fd);
    free(r);
    return NULL;
}

static void test_concurrent(int port)
{
    pthread_t t[16];
    client_arg a[16];
    for (int i = 0; i < 16; i++) {
        a[i] = (client_arg){port, i, 0};
        pthread_create(&t[i], NULL, client, &a[i]);
    }
    int ok = 0;
    for (int i = 0; i < 16; i++) {
        pthread_join(t[i], NULL);
        ok += a[i].ok;
    }
    CHECK(ok == 16 * 6, "every answer to its own query: %d of 96", ok);
    searches_ok += ok;
}

/* Over max connections: the next one is answered 503 (default cap 256). */
static void test_connection_cap(int port)
{
    int fds[256], n = 0;
    for (; n < 256; n++)
        if ((fds[n] = connect_to(port)) < 0)
            break;
    usleep(300000);   /* the loop accepts them */
    response resp;
    exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    CHECK(n == 256 && resp.status == 503, "connection 257: %d (%d open)", resp.status, n);
    free(resp.body);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    health_until_ok(port, &resp);
    CHECK(resp.status == 200, "room again: %d", resp.status);
    free(resp.body);
}

/* A request that stops halfway gets 408 after the read timeout (10 s), run beside the other tests. */
static void *slow_client(void *p)
{
    int *port = p;
    reader *r = calloc(1, sizeof *r);
    response resp = {.status = -1};
    r->fd = connect_to(*port);
    if (r->fd >= 0) {
        send_cstr(r->fd, "POST /search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"query\":");
        read_response(r, &resp);
        close(r->fd);
    }
    free(r);
    free(resp.body);
    *port = resp.status;
    return NULL;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    char root[PATH_MAX], db[PATH_MAX + 16];
    http_fixture(root, db, sizeof db);
    http_srv s;
    if (srv_start(&s, root, db, NULL) == 0) {
        pthread_t slow;
        int slow_port = s.port;
        pthread_create(&slow, NULL, slow_client, &slow_port);
        test_rest(s.port);
        test_connections(s.port);
        test_half_close(s.port);
        test_big_body(s.port);
        test_mcp_http(s.port);
        test_cancel(s.port);
        test_concurrent(s.port);
        test_metrics(s.port);
        pthread_join(slow, NULL);
        CHECK(slow_port == 408, "half a request: 408 after the read timeout, got %d", slow_port);
        test_connection_cap(s.port);
        CHECK(srv_stop(&s) == 0, "stops cleanly on SIGTERM");
    } else {
        CHECK(0, "server started");
    }
    http_fixture_remove(root);
    return check_report("test_http");
}
