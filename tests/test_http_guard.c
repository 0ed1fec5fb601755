/* test_http_guard.c: who `hyrax serve --http` answers, each test on a server of its own (the
 * fixture of http_client.h): DNS rebinding (Host names other than the loopback ones and the
 * server's port are refused before any route runs), the token (required on every request when
 * given, and to bind a non-loopback address), --allow-host, and the bound on the bytes all
 * connections hold together. The routes, connections and MCP over HTTP: test_http.c. */
#include "http_client.h"

/* The status of a request (line: "GET /health") on a connection to ip with this Host value and
 * more header lines (each ending CR LF). */
static int with_host_and(const char *ip, int port, const char *line, const char *host, const char *more)
{
    char raw[768];
    response resp;
    snprintf(raw, sizeof raw, "%s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\n"
             "Content-Length: 0\r\n\r\n", line, host, more);
    exchange_at(ip, port, raw, &resp);
    CHECK(resp.status < 400 || !strstr(resp.body ? resp.body : "", "top_queries"), "a refusal carries no data");
    free(resp.body);
    return resp.status;
}

static int with_host(const char *ip, int port, const char *line, const char *host)
{
    return with_host_and(ip, port, line, host, "");
}

/* DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 sends same-origin
 * requests with no Origin header and Host: evil.example:PORT. Every route refuses them before it
 * runs (421); the loopback names with the server's port or none are served. */
static void test_hosts(int port)
{
    char host[64];
    const char *lines[] = {"GET /health", "GET /metrics", "GET /stats", "POST /mcp", "POST /search", "GET /nowhere"};
    snprintf(host, sizeof host, "evil.example:%d", port);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        CHECK(with_host("127.0.0.1", port, lines[i], host) == 421, "%s with Host %s", lines[i], host);
    const char *ok[] = {"localhost:%d", "127.0.0.1:%d", "[::1]:%d", "LocalHost:%d", "[0:0::1]:%d", "localhost"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        snprintf(host, sizeof host, ok[i], port);
        CHECK(with_host("127.0.0.1", port, "GET /health", host) == 200, "Host %s is served", host);
    }
    const char *misdirected[] = {"evil.example", "localhost:%d", "127.0.0.2:%d", "localhost.:%d", "127.1:%d"};
    for (size_t i = 0; i < sizeof misdirected / sizeof misdirected[0]; i++) {
        snprintf(host, sizeof host, misdirected[i], i == 1 ? (port == 65535 ? 1 : port + 1) : port);
        CHECK(with_host("127.0.0.1", port, "GET /health", host) == 421, "Host %s: 421", host);
    }
    snprintf(host, sizeof host, "localhost:%d@evil.example", port);
    CHECK(with_host("127.0.0.1", port, "GET /health", host) == 400, "Host with userinfo: 400");
}



/* The token: required on every request when given, and to bind a non-loopback address. */
static void test_token(const char *root, const char *db)
{
    char tokfile[PATH_MAX + 32], cmd[4 * PATH_MAX], *out = NULL;
    snprintf(tokfile, sizeof tokfile, "%s.tok", db);
    FILE *f = fopen(tokfile, "w");
    fputs("s3cret-token-0123456789\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s serve --http 0.0.0.0:0 --db %s --root %s 2>&1",
             getenv("HYRAX_BIN") ? getenv("HYRAX_BIN") : "./hyrax", db, root);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "--token-file"), "0.0.0.0 without a token is refused: %s", out);
    free(out);
    http_srv s;
    const char *extra[] = {"--token-file", tokfile, NULL};
    if (srv_start(&s, root, db, extra)) {
        CHECK(0, "server with a token started");
        return;
    }
    response resp;
    exchange(s.port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    CHECK(resp.status == 401 && strstr(resp.head, "WWW-Authenticate: Bearer"), "no token: %d", resp.status);
    free(resp.body);
    exchange(s.port, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer s3cret-token-012345678\r\n\r\n",
             &resp);
    CHECK(resp.status == 401, "a prefix of the token: %d", resp.status);
    free(resp.body);
    exchange(s.port, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer s3cret-token-0123456789x\r\n"
             "\r\n", &resp);
    CHECK(resp.status == 401, "the token and more: %d", resp.status);
    free(resp.body);
    exchange(s.port, "GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer s3cret-token-0123456789\r\n\r\n",
             &resp);
    CHECK(resp.status == 200, "the token: %d", resp.status);
    free(resp.body);
    post(s.port, "/mcp", "", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", &resp);
    CHECK(resp.status == 401, "MCP needs it too: %d", resp.status);
    free(resp.body);
    CHECK(srv_stop(&s) == 0, "stops cleanly on SIGTERM");
    unlink(tokfile);
}

/* Bound to every address (0.0.0.0, so with a token): the address a client connected to is a Host
 * served too (127.0.0.2 here, loopback's other addresses), as are the --allow-host names, in any
 * case, with no port or the server's, and pages on them as origins. A name given with a port is
 * refused at the start. */
static void test_allow_host(const char *root, const char *db)
{
    char tokfile[PATH_MAX + 32], cmd[4 * PATH_MAX], *out = NULL, host[64];
    snprintf(tokfile, sizeof tokfile, "%s.tok", db);
    FILE *f = fopen(tokfile, "w");
    fputs("s3cret-token-0123456789\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s serve --http 127.0.0.1:0 --allow-host search.example:80 --db %s --root %s 2>&1",
             getenv("HYRAX_BIN") ? getenv("HYRAX_BIN") : "./hyrax", db, root);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "--allow-host search.example:80"), "a name with a port: %s", out);
    free(out);
    http_srv s;
    const char *extra[] = {"--http", "0.0.0.0:0", "--token-file", tokfile, "--allow-host", "Search.Example",
                           "--allow-host", "[2001:db8::7]", NULL};
    if (srv_start(&s, root, db, extra)) {
        CHECK(0, "server on 0.0.0.0 started");
        unlink(tokfile);
        return;
    }
    const char *auth = "Authorization: Bearer s3cret-token-0123456789\r\n";
    struct {
        const char *ip, *host;
        int status;
    } cases[] = {
        {"127.0.0.1", "127.0.0.1:%d", 200}, {"127.0.0.1", "search.example:%d", 200},
        {"127.0.0.1", "SEARCH.EXAMPLE", 200}, {"127.0.0.1", "[2001:db8::7]:%d", 200},
        {"127.0.0.1", "other.example:%d", 421},
        {"127.0.0.2", "127.0.0.2:%d", 200}, {"127.0.0.2", "127.0.0.3:%d", 421}, {"127.0.0.1", "127.0.0.2:%d", 421},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(host, sizeof host, cases[i].host, s.port);
        int got = with_host_and(cases[i].ip, s.port, "GET /health", host, auth);
        CHECK(got == cases[i].status, "to %s, Host %s: %d (want %d)", cases[i].ip, host, got, cases[i].status);
    }
    CHECK(with_host("127.0.0.1", s.port, "GET /health", "evil.example") == 421, "a Host is checked before the token");
    char more[256];
    snprintf(more, sizeof more, "%sOrigin: https://search.example\r\n", auth);
    CHECK(with_host_and("127.0.0.1", s.port, "GET /health", "localhost", more) == 200,
          "a page on an --allow-host name");
    snprintf(more, sizeof more, "%sOrigin: http://other.example\r\n", auth);
    CHECK(with_host_and("127.0.0.1", s.port, "GET /health", "localhost", more) == 403, "a page elsewhere");
    CHECK(srv_stop(&s) == 0, "stops cleanly on SIGTERM");
    unlink(tokfile);
}

/* The bytes all connections hold together are bounded (--http-buffer 1: 1 MiB): a connection
 * holding 600,000 bytes of a request has a 1 MiB buffer (16 KiB doubled), so the next one cannot
 * get its first 16 KiB and is answered 503; once the big request is answered its buffer goes back
 * and a new connection is served (within 5 s). */
static void test_buffer_cap(const char *root, const char *db)
{
    http_srv s;
    const char *extra[] = {"--http-buffer", "1", NULL};
    if (srv_start(&s, root, db, extra)) {
        CHECK(0, "server with --http-buffer 1 started");
        return;
    }
    size_t body = 700000, first = 600000;
    char *raw = malloc(body + 256);
    int head = snprintf(raw, 256, "POST /nowhere HTTP/1.1\r\nHost: localhost\r\nContent-Length: %zu\r\n\r\n", body);
    memset(raw + head, 'x', body);
    reader *big = calloc(1, sizeof *big);
    big->fd = connect_to(s.port);
    send_str(big->fd, raw, (size_t)head + first);
    usleep(1000000);   /* read by the server (a request before that would hold the bytes it needs) */
    response resp;
    exchange(s.port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", &resp);
    CHECK(resp.status == 503 && strstr(resp.body ? resp.body : "", "request bytes"),
          "over the bytes held across connections: %d %s", resp.status, resp.body ? resp.body : "");
    free(resp.body);
    send_str(big->fd, raw + head + first, body - first);
    read_response(big, &resp);
    CHECK(resp.status == 404, "the big request is answered whole: %d", resp.status);
    free(resp.body);
    /* the loop takes the buffer back once the request thread hands the connection back, just
       after the answer went out: a new connection may come a moment before that */
    health_until_ok(s.port, &resp);
    CHECK(resp.status == 200, "its buffer went back: %d %s", resp.status, resp.body ? resp.body : "");
    free(resp.body);
    close(big->fd);
    free(big);
    free(raw);
    CHECK(srv_stop(&s) == 0, "stops cleanly on SIGTERM");
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    char root[PATH_MAX], db[PATH_MAX + 16];
    http_fixture(root, db, sizeof db);
    http_srv s;
    if (srv_start(&s, root, db, NULL) == 0) {
        test_hosts(s.port);
        CHECK(srv_stop(&s) == 0, "stops cleanly on SIGTERM");
    } else {
        CHECK(0, "server started");
    }
    test_token(root, db);
    test_allow_host(root, db);
    test_buffer_cap(root, db);
    http_fixture_remove(root);
    return check_report("test_http_guard");
}
