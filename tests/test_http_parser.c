/* test_http_parser.c: the HTTP request parser of `hyrax serve --http` (src/http/http.c) on its
 * own, against the rules RFC 9112 states (each expected status is the RFC's or http.h's stated
 * choice), and the Host and Origin authority parsers. */
#include "check.h"
#include "http.h"

/* === The parser === */

static int parse(const char *text, hxi_http_request *req, size_t *used, int *status)
{
    hx_error err = {0};
    *status = 0;
    int rc = hxi_http_parse(text, strlen(text), NULL, req, used, status, &err);
    return rc;
}

/* The status a request is refused with (0 when it parses, -1 when it is incomplete). */
static int refusal(const char *text, const hxi_http_limits *lim)
{
    hxi_http_request req;
    size_t used;
    int status = 0;
    int rc = hxi_http_parse(text, strlen(text), lim, &req, &used, &status, NULL);
    hxi_http_request_free(&req);
    return rc == 0 ? 0 : rc == HX_ETRUNCATED ? -1 : status;
}

static void test_parser(void)
{
    hxi_http_request req;
    size_t used;
    int status;
    /* two pipelined requests: the first is consumed alone, to its last body byte */
    const char *two = "POST /search HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(parse(two, &req, &used, &status) == 0, "first request");
    CHECK(used == strlen(two) - strlen("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"), "consumed %zu", used);
    CHECK(!strcmp(req.method, "POST") && req.target_len == 7 && !memcmp(req.target, "/search", 7), "request line");
    CHECK(req.body_len == 5 && !memcmp(req.body, "hello", 5) && req.keep_alive && req.minor == 1, "body, keep-alive");
    hxi_http_request_free(&req);
    CHECK(parse(two + used, &req, &used, &status) == 0 && !strcmp(req.method, "GET") && !req.body_len, "second");
    hxi_http_request_free(&req);

    /* chunked: extensions skipped, hex sizes, trailers dropped (RFC 9112 7.1) */
    const char *ch = "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "5;name=value\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: yes\r\n\r\nNEXT";
    CHECK(parse(ch, &req, &used, &status) == 0, "chunked");
    CHECK(req.body_len == 15 && !memcmp(req.body, "hello, world!!!", 15), "chunked body %zu", req.body_len);
    CHECK(used == strlen(ch) - 4, "chunked consumed up to NEXT");
    hxi_http_request_free(&req);

    /* incomplete requests ask for more, at every cut */
    for (size_t cut = 0; cut < strlen(ch) - 4; cut += 7) {
        char part[512];
        memcpy(part, ch, cut);
        part[cut] = 0;
        CHECK(refusal(part, NULL) == -1, "cut at %zu", cut);
    }

    /* keep-alive: 1.1 by default unless close; 1.0 only with keep-alive (RFC 9112 9.3) */
    CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n", &req, &used, &status) == 0 && !req.keep_alive,
          "1.1 close");
    CHECK(parse("GET / HTTP/1.0\r\n\r\n", &req, &used, &status) == 0 && !req.keep_alive, "1.0 closes");
    CHECK(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &req, &used, &status) == 0 && req.keep_alive,
          "1.0 keep-alive");
    CHECK(parse("GET / HTTP/1.1\nHost: x\n\n", &req, &used, &status) == 0, "bare LF line ends");
    CHECK(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", &req, &used, &status) == 0, "empty lines first");
    hxi_http_request out;
    CHECK(parse("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", &out, &used,
                &status) == HX_ETRUNCATED && out.head_done && out.expect_continue, "100-continue awaits its body");
    hxi_http_request_free(&out);
    size_t vlen;
    CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nX-Pad:   spaced value \t\r\n\r\n", &req, &used, &status) == 0 &&
              hxi_http_header_get(&req, "x-pad", &vlen) && vlen == 12, "OWS trimmed, names case-insensitive");

    /* refusals, each with its status */
    CHECK(refusal("GET / HTTP/1.1\r\n\r\n", NULL) == 400, "no Host in 1.1");
    CHECK(refusal("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", NULL) == 400, "two Hosts");
    CHECK(refusal("GET / HTTP/2.0\r\nHost: x\r\n\r\n", NULL) == 505, "HTTP/2.0 on a 1.1 connection");
    CHECK(refusal("GET / HTTX/1.1\r\nHost: x\r\n\r\n", NULL) == 400, "not HTTP");
    CHECK(refusal("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", NULL) == 400, "two spaces");
    CHECK(refusal("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", NULL) == 400, "method not a token");
    CHECK(refusal("GET / HTTP/1.1\r\nHost : x\r\n\r\n", NULL) == 400, "space before the colon (RFC 9112 5.1)");
    CHECK(refusal("GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n", NULL) == 400, "obs-fold (RFC 9112 5.2)");
    CHECK(refusal("GET / HTTP/1.1\r\nHost: x\rY: 1\r\n\r\n", NULL) == 400, "bare CR");
    CHECK(refusal("GET / HTTP/1.1\r\nHost: x\r\nX: a\001b\r\n\r\n", NULL) == 400, "control byte in a value");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                  NULL) == 400, "Content-Length with chunked (RFC 9112 6.1)");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", NULL) == 400,
          "two Content-Lengths");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc", NULL) == 400, "signed length");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", NULL) == 501,
          "a coding other than chunked");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", NULL) == 400,
          "chunk size not hex");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX0\r\n\r\n", NULL) == 400,
          "chunk data not followed by CR LF");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n", NULL) == 413,
          "chunk size past 64 bits");

    CHECK(refusal("GET / HTTP/1.9\r\nHost: x\r\n\r\n", NULL) == 505, "HTTP/1.9: only 1.0 and 1.1 are served");

    /* chunked framing exactly as RFC 9112 7.1 writes it: a strict proxy would frame each of these
       otherwise (or refuse it), so it is refused */
#define CHUNKED "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    CHECK(refusal(CHUNKED "1b\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n", NULL) == 400,
          "0x1b declared, 26 bytes and CR LF sent: the CR is not data, a bare LF does not end the chunk");
    CHECK(refusal(CHUNKED "5\nhello\r\n0\r\n\r\n", NULL) == 400, "a chunk-size line ending in a bare LF");
    CHECK(refusal(CHUNKED "5\r\nhello\n0\r\n\r\n", NULL) == 400, "chunk data followed by a bare LF");
    CHECK(refusal(CHUNKED "5\r\nhello\r\n0\n\r\n", NULL) == 400, "the last chunk's line ending in a bare LF");
    CHECK(refusal(CHUNKED "5\r\nhello\r\n0\r\nX: 1\n\r\n", NULL) == 400, "a trailer ending in a bare LF");
    CHECK(refusal(CHUNKED "5\r\nhello\r\n0\r\n\n", NULL) == 400, "trailers ended by a bare LF");
    CHECK(refusal(CHUNKED "5 junk\r\nhello\r\n0\r\n\r\n", NULL) == 400, "bytes after the size that are no extension");
    CHECK(refusal(CHUNKED "5 \r\nhello\r\n0\r\n\r\n", NULL) == 400, "whitespace after the size, no extension");
    CHECK(refusal(CHUNKED "5;\r\nhello\r\n0\r\n\r\n", NULL) == 400, "an extension without a name");
    CHECK(refusal(CHUNKED "5;a=\"b\r\nhello\r\n0\r\n\r\n", NULL) == 400, "an unterminated quoted value");
    CHECK(refusal(CHUNKED "5;a=b c\r\nhello\r\n0\r\n\r\n", NULL) == 400, "a value followed by more");
    CHECK(refusal(CHUNKED "5 ; a = \"b\\\"c\" ;d\r\nhello\r\n0\r\n\r\n", NULL) == 0,
          "extensions with whitespace, a quoted value and a bare name (RFC 9112 7.1.1)");
#undef CHUNKED

    /* limits: small ones, reached exactly */
    hxi_http_limits lim = {.max_line = 32, .max_head = 128, .max_headers = 3, .max_body = 10};
    CHECK(refusal("GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\nHost: x\r\n\r\n", &lim) == 414, "line > 32");
    CHECK(refusal("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n", &lim) == 0, "3 headers fit");
    CHECK(refusal("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", &lim) == 431, "4 headers");
    char big[256];
    snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: x\r\nA: %0120d\r\n\r\n", 0);
    CHECK(refusal(big, &lim) == 431, "head > 128 bytes");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789", &lim) == 0, "10-byte body fits");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", &lim) == 413, "11 > 10, before the body");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", &lim) == 413,
          "length past 64 bits");
    CHECK(refusal("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n5\r\n", &lim) == 413,
          "chunks adding up past 10");
}

/* Host and Origin values taken apart: the port, -1 for none, -2 when refused; the host into out. */
static int authority(const char *v, bool origin, char *out, size_t cap)
{
    hxi_http_authority a;
    if ((origin ? hxi_http_origin_parse : hxi_http_host_parse)(v, strlen(v), &a))
        return -2;
    snprintf(out, cap, "%.*s", (int)a.host_len, a.host);
    return a.port;
}

static void test_authority(void)
{
    char h[64];
    CHECK(authority("localhost:8000", false, h, sizeof h) == 8000 && !strcmp(h, "localhost"), "name and port");
    CHECK(authority("[::1]:80", false, h, sizeof h) == 80 && !strcmp(h, "[::1]"), "IPv6 literal keeps its brackets");
    CHECK(authority("127.0.0.1", false, h, sizeof h) == -1 && !strcmp(h, "127.0.0.1"), "no port");
    CHECK(authority("localhost:", false, h, sizeof h) == -1, "an empty port is none (RFC 3986 3.2.3)");
    CHECK(authority("ex%41mple.org:0", false, h, sizeof h) == 0, "pct-encoded, port 0");
    const char *bad_hosts[] = {"", ":80", "a@localhost", "localhost:80@evil.example", "localhost/x", "ho st",
                               "[::1", "[]", "[::1]x", "[v1.x]", "host:65536", "host:000080", "host:8a", "a\tb"};
    for (size_t i = 0; i < sizeof bad_hosts / sizeof bad_hosts[0]; i++)
        CHECK(authority(bad_hosts[i], false, h, sizeof h) == -2, "Host %s refused", bad_hosts[i]);
    CHECK(authority("http://localhost:3000", true, h, sizeof h) == 3000 && !strcmp(h, "localhost"), "origin");
    CHECK(authority("HTTPS://[::1]", true, h, sizeof h) == -1 && !strcmp(h, "[::1]"), "scheme in any case");
    const char *bad_origins[] = {"null", "http://localhost:80@evil.example", "http://user@localhost",
                                 "http://localhost:3000/", "ftp://localhost", "http:/localhost", "localhost"};
    for (size_t i = 0; i < sizeof bad_origins / sizeof bad_origins[0]; i++)
        CHECK(authority(bad_origins[i], true, h, sizeof h) == -2, "Origin %s refused", bad_origins[i]);
}

int main(void)
{
    test_parser();
    test_authority();
    return check_report("test_http_parser");
}
