/* http.c: the HTTP/1.1 request parser and response heads of http.h. Reads only within buf[0..len)
 * and allocates only the decoded body (at most max_body bytes). The rules it applies, and the
 * status each refusal gets, are listed once in http.h. */
#include "http.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_MAX_LINE ((size_t)8 << 10)
#define DEFAULT_MAX_HEAD ((size_t)32 << 10)
#define DEFAULT_MAX_BODY ((size_t)16 << 20)

hxi_http_limits hxi_http_limits_fill(const hxi_http_limits *lim)
{
    hxi_http_limits l = lim ? *lim : (hxi_http_limits){0};
    if (!l.max_line)
        l.max_line = DEFAULT_MAX_LINE;
    if (!l.max_head)
        l.max_head = DEFAULT_MAX_HEAD;
    if (!l.max_headers || l.max_headers > HX_HTTP_MAX_HEADERS)
        l.max_headers = HX_HTTP_MAX_HEADERS;
    if (!l.max_body)
        l.max_body = DEFAULT_MAX_BODY;
    return l;
}

/* === Lines and tokens === */

/* RFC 9110 5.6.2 tchar. */
static bool is_tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static int hex_digit(unsigned char c)
{
    return c >= '0' && c <= '9' ? c - '0' : lower(c) >= 'a' && lower(c) <= 'f' ? lower(c) - 'a' + 10 : -1;
}

static bool ieq(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n != m)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
            return false;
    return true;
}

/* The line starting at buf[at]: returns 1 with [*start, *end) its content (no CR LF) and *next
 * the offset after it, 0 when no line end comes before len or max bytes, -1 for a bare CR (and,
 * with crlf, a bare LF: chunked framing ends its lines in CR LF only). A line longer than max
 * without an end is -2. */
static int next_line(const char *buf, size_t len, size_t at, size_t max, bool crlf, size_t *end, size_t *next)
{
    for (size_t i = at; i < len; i++) {
        if (i - at > max)
            return -2;
        if (buf[i] == '\n') {
            bool cr = i > at && buf[i - 1] == '\r';
            if (crlf && !cr)
                return -1;
            *end = cr ? i - 1 : i;
            *next = i + 1;
            return 1;
        }
        if (buf[i] == '\r' && i + 1 < len && buf[i + 1] != '\n')
            return -1;
    }
    return len - at > max ? -2 : 0;
}

typedef struct {
    int *status;
    hx_error *err;
} fail_to;

static int fail(fail_to f, int status, int code, size_t at, const char *why)
{
    *f.status = status;
    return hx_error_set(f.err, code, (int64_t)at, "%s", why);
}

/* === Head === */

static int parse_request_line(const char *buf, size_t start, size_t end, hxi_http_request *req, fail_to f)
{
    size_t i = start;
    while (i < end && is_tchar((unsigned char)buf[i]))
        i++;
    size_t mlen = i - start;
    if (!mlen || i >= end || buf[i] != ' ' || mlen >= sizeof req->method)
        return fail(f, 400, HX_EPARSE, i, "the request line must be METHOD SP TARGET SP HTTP/1.1");
    memcpy(req->method, buf + start, mlen);
    req->method[mlen] = 0;
    size_t t = ++i;
    while (i < end && (unsigned char)buf[i] > 0x20 && buf[i] != 0x7F)
        i++;
    if (i == t || i >= end || buf[i] != ' ')
        return fail(f, 400, HX_EPARSE, i, "the request target must be visible ASCII without spaces");
    req->target = buf + t;
    req->target_len = i - t;
    i++;
    if (end - i != 8 || memcmp(buf + i, "HTTP/", 5) || buf[i + 6] != '.' || buf[i + 5] < '0' || buf[i + 5] > '9' ||
        buf[i + 7] < '0' || buf[i + 7] > '9')
        return fail(f, 400, HX_EPARSE, i, "the request line must end in HTTP/1.0 or HTTP/1.1");
    if (buf[i + 5] != '1' || buf[i + 7] > '1')
        return fail(f, 505, HX_EVERSION, i, "only HTTP/1.0 and HTTP/1.1 are served");
    req->minor = buf[i + 7] == '0' ? 0 : 1;
    return 0;
}

/* One header line [start, end) into h. */
static int parse_field(const char *buf, size_t start, size_t end, hxi_http_header *h, fail_to f)
{
    if (buf[start] == ' ' || buf[start] == '\t')
        return fail(f, 400, HX_EPARSE, start, "obsolete line folding is not accepted");
    size_t i = start;
    while (i < end && is_tchar((unsigned char)buf[i]))
        i++;
    if (i == start || i >= end || buf[i] != ':')
        return fail(f, 400, HX_EPARSE, i, "a header field must be NAME: VALUE, with no space before the colon");
    h->name = buf + start;
    h->name_len = i - start;
    i++;
    while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
        i++;
    size_t e = end;
    while (e > i && (buf[e - 1] == ' ' || buf[e - 1] == '\t'))
        e--;
    for (size_t k = i; k < e; k++) {
        unsigned char c = (unsigned char)buf[k];
        if ((c < 0x20 && c != '\t') || c == 0x7F)
            return fail(f, 400, HX_EPARSE, k, "a header value holds a control character");
    }
    h->value = buf + i;
    h->value_len = e - i;
    return 0;
}

/* Header lines from *at up to the empty line; *at is left after it. n: fields kept so far (into
 * out, which may be NULL for trailers: counted against the limits, not kept, and their lines end
 * in CR LF only, as chunked framing's do). 0, HX_ETRUNCATED, or an error. */
static int parse_fields(const char *buf, size_t len, size_t head_start, size_t *at, const hxi_http_limits *l,
                        hxi_http_header *out, size_t *n, fail_to f)
{
    for (;;) {
        size_t end, next;
        int r = next_line(buf, len, *at, l->max_head, !out, &end, &next);
        if (r == -1)
            return fail(f, 400, HX_EPARSE, *at, out ? "a bare CR in the request head"
                                                    : "a bare CR or LF in the trailers: their lines end in CR LF");
        if (r == 0 && len - head_start <= l->max_head)
            return HX_ETRUNCATED;
        if (r <= 0 || next - head_start > l->max_head)
            return fail(f, 431, HX_ERANGE, *at, "the request head is larger than the server accepts");
        if (end == *at) {
            *at = next;
            return 0;
        }
        if (*n >= l->max_headers)
            return fail(f, 431, HX_ERANGE, *at, "the request has more header fields than the server accepts");
        hxi_http_header scratch, *h = out ? &out[*n] : &scratch;
        int rc = parse_field(buf, *at, end, h, f);
        if (rc)
            return rc;
        (*n)++;
        *at = next;
    }
}

/* Does the comma-separated token list [v, v+n) hold token (case-insensitive)? */
static bool has_token(const char *v, size_t n, const char *token)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e > s && ieq(v + s, e - s, token))
            return true;
    }
    return false;
}

const char *hxi_http_header_get(const hxi_http_request *req, const char *name, size_t *len)
{
    for (size_t i = 0; i < req->n_headers; i++)
        if (ieq(req->headers[i].name, req->headers[i].name_len, name)) {
            if (len)
                *len = req->headers[i].value_len;
            return req->headers[i].value;
        }
    return NULL;
}

static size_t header_count(const hxi_http_request *req, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < req->n_headers; i++)
        n += ieq(req->headers[i].name, req->headers[i].name_len, name);
    return n;
}

/* === Bodies === */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

static size_t skip_token(const char *s, size_t n, size_t i)
{
    while (i < n && is_tchar((unsigned char)s[i]))
        i++;
    return i;
}

/* Is [s, s+n) a chunk-ext (RFC 9112 7.1.1): *( BWS ";" BWS name [ BWS "=" BWS ( token /
 * quoted-string ) ] )? Anything else after the size is refused, so that no two readers can
 * disagree on where a chunk's data starts. */
static bool chunk_ext_ok(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        i = skip_ws(s, n, i);
        if (i >= n || s[i] != ';')
            return false;
        size_t t = skip_ws(s, n, i + 1);
        if ((i = skip_token(s, n, t)) == t)
            return false;
        size_t eq = skip_ws(s, n, i);
        if (eq >= n || s[eq] != '=')   /* no value */
            continue;
        t = skip_ws(s, n, eq + 1);
        if (t < n && s[t] == '"') {   /* quoted-string: qdtext or \ and one byte, no controls but HTAB */
            for (i = t + 1; i < n && s[i] != '"'; i++) {
                if (s[i] == '\\' && ++i >= n)
                    return false;
                unsigned char c = (unsigned char)s[i];
                if ((c < 0x20 && c != '\t') || c == 0x7F)
                    return false;
            }
            if (i++ >= n)
                return false;
        } else if ((i = skip_token(s, n, t)) == t) {
            return false;
        }
    }
    return true;
}

/* Walks the chunked body from at. With out NULL it only measures: 0 with *body_len and *done
 * (the offset after the trailers), HX_ETRUNCATED, or an error; with out it copies the data. Every
 * line of the framing ends in CR LF and each chunk's data is followed by exactly CR LF (RFC 9112
 * 7.1): a bare LF or CR there is 400, never data. */
static int walk_chunks(const char *buf, size_t len, size_t at, const hxi_http_limits *l, char *out,
                       size_t *body_len, size_t *done, fail_to f)
{
    size_t total = 0;
    for (;;) {
        size_t end, next;
        int r = next_line(buf, len, at, l->max_line, true, &end, &next);
        if (r == -1)
            return fail(f, 400, HX_EPARSE, at, "a bare CR or LF in a chunk-size line: it ends in CR LF");
        if (r == -2)
            return fail(f, 400, HX_ERANGE, at, "a chunk-size line is longer than the server accepts");
        if (r == 0)
            return HX_ETRUNCATED;
        uint64_t size = 0;
        size_t i = at;
        for (; i < end; i++) {
            unsigned char c = (unsigned char)buf[i];
            int d = hex_digit(c);
            if (d < 0)
                break;
            if (size > (UINT64_MAX >> 4))
                return fail(f, 413, HX_ERANGE, at, "a chunk is larger than the server accepts");
            size = size << 4 | (uint64_t)d;
        }
        if (i == at || !chunk_ext_ok(buf + i, end - i))
            return fail(f, 400, HX_EPARSE, at, "a chunk-size line must be hexadecimal digits, then only chunk "
                                               "extensions (;name=value)");
        if (size > l->max_body - total)
            return fail(f, 413, HX_ERANGE, at, "the request body is larger than the server accepts");
        at = next;
        if (size == 0) {
            size_t n = 0;
            int rc = parse_fields(buf, len, at, &at, l, NULL, &n, f);
            if (rc)
                return rc;
            *body_len = total;
            *done = at;
            return 0;
        }
        if (len - at < size)
            return HX_ETRUNCATED;
        if (out)
            memcpy(out + total, buf + at, (size_t)size);
        total += (size_t)size;
        at += (size_t)size;
        for (int k = 0; k < 2; k++, at++) {
            if (at >= len)
                return HX_ETRUNCATED;
            if (buf[at] != "\r\n"[k])
                return fail(f, 400, HX_EPARSE, at, "chunk data must be followed by exactly CR LF");
        }
    }
}

static int take_body(hxi_http_request *req, const char *src, size_t n, hx_error *err)
{
    if (!n)
        return 0;
    req->body = hx_malloc(n + 1);
    if (!req->body)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for a %zu-byte request body", n);
    if (src)
        memcpy(req->body, src, n);
    req->body[n] = 0;
    req->body_len = n;
    return 0;
}

/* === Request === */

int hxi_http_parse(const char *buf, size_t len, const hxi_http_limits *lim, hxi_http_request *req, size_t *consumed,
                   int *status, hx_error *err)
{
    hxi_http_limits l = hxi_http_limits_fill(lim);
    fail_to f = {status, err};
    memset(req, 0, sizeof *req);
    *consumed = 0;
    *status = 400;
    size_t at = 0;
    while (at < len && (buf[at] == '\n' || (buf[at] == '\r' && at + 1 < len && buf[at + 1] == '\n')))
        if ((at += buf[at] == '\r' ? 2 : 1) > l.max_line)
            return fail(f, 400, HX_EPARSE, at, "too many empty lines before the request line");
    size_t head = at, end, next;
    int r = next_line(buf, len, at, l.max_line, false, &end, &next);
    if (r == -1)
        return fail(f, 400, HX_EPARSE, at, "a bare CR in the request line");
    if (r == -2)
        return fail(f, 414, HX_ERANGE, at, "the request line is longer than the server accepts");
    if (r == 0)
        return HX_ETRUNCATED;
    int rc = parse_request_line(buf, at, end, req, f);
    if (rc)
        return rc;
    at = next;
    rc = parse_fields(buf, len, head, &at, &l, req->headers, &req->n_headers, f);
    if (rc)
        return rc;
    req->head_done = true;

    size_t n_host = header_count(req, "host"), n_cl = header_count(req, "content-length");
    size_t n_te = header_count(req, "transfer-encoding"), vlen = 0;
    if (req->minor == 1 && n_host != 1)
        return fail(f, 400, HX_EPARSE, head, "an HTTP/1.1 request needs exactly one Host header");
    if (n_cl > 1 || (n_cl && n_te))
        return fail(f, 400, HX_EPARSE, head, "a request body must be framed once: one Content-Length or chunked");
    const char *v = hxi_http_header_get(req, "connection", &vlen);
    req->keep_alive = req->minor == 1 ? !(v && has_token(v, vlen, "close")) : v && has_token(v, vlen, "keep-alive");
    v = hxi_http_header_get(req, "expect", &vlen);
    req->expect_continue = req->minor == 1 && v && ieq(v, vlen, "100-continue");

    if (n_te) {
        v = hxi_http_header_get(req, "transfer-encoding", &vlen);
        if (n_te > 1 || !ieq(v, vlen, "chunked"))
            return fail(f, 501, HX_EINVAL, head, "the only transfer coding accepted is chunked");
        if (req->minor == 0)
            return fail(f, 400, HX_EPARSE, head, "Transfer-Encoding is not defined for HTTP/1.0");
        size_t body_len = 0, done = 0;
        rc = walk_chunks(buf, len, at, &l, NULL, &body_len, &done, f);
        if (rc)
            return rc;
        if ((rc = take_body(req, NULL, body_len, err)))
            return *status = 500, rc;
        if (body_len)
            walk_chunks(buf, len, at, &l, req->body, &body_len, &done, f);
        *consumed = done;
        return 0;
    }
    uint64_t cl = 0;
    if (n_cl) {
        v = hxi_http_header_get(req, "content-length", &vlen);
        if (!vlen)
            return fail(f, 400, HX_EPARSE, head, "Content-Length must be a decimal number");
        for (size_t i = 0; i < vlen; i++) {
            if (v[i] < '0' || v[i] > '9')
                return fail(f, 400, HX_EPARSE, head, "Content-Length must be a decimal number");
            if (cl > l.max_body)
                break;
            cl = cl * 10 + (uint64_t)(v[i] - '0');
        }
        if (cl > l.max_body)
            return fail(f, 413, HX_ERANGE, head, "the request body is larger than the server accepts");
    }
    if (len - at < cl)
        return HX_ETRUNCATED;
    if ((rc = take_body(req, buf + at, (size_t)cl, err)))
        return *status = 500, rc;
    *consumed = at + (size_t)cl;
    return 0;
}

void hxi_http_request_free(hxi_http_request *req)
{
    free(req->body);
    req->body = NULL;
    req->body_len = 0;
}

/* === Authorities === */

/* RFC 3986 unreserved or sub-delims: a reg-name's bytes, besides %HH. */
static bool is_reg_name(unsigned char c)
{
    return (c >= '0' && c <= '9') || (lower(c) >= 'a' && lower(c) <= 'z') || (c && strchr("-._~!$&'()*+,;=", c));
}

int hxi_http_host_parse(const char *v, size_t n, hxi_http_authority *out)
{
    size_t i = 0;
    if (n && v[0] == '[') {   /* IP-literal: an IPv6 address; IPvFuture is not served */
        while (++i < n && v[i] != ']')
            if (hex_digit((unsigned char)v[i]) < 0 && v[i] != ':' && v[i] != '.')
                return HX_EPARSE;
        if (i >= n || i < 3)
            return HX_EPARSE;
        i++;
    } else {   /* reg-name or IPv4address: unreserved, pct-encoded, sub-delims */
        for (; i < n && v[i] != ':'; i++) {
            unsigned char c = (unsigned char)v[i];
            if (c == '%' && n - i > 2 && hex_digit((unsigned char)v[i + 1]) >= 0 &&
                hex_digit((unsigned char)v[i + 2]) >= 0)
                i += 2;
            else if (!is_reg_name(c))
                return HX_EPARSE;
        }
        if (!i)
            return HX_EPARSE;
    }
    out->host = v;
    out->host_len = i;
    out->port = -1;
    if (i == n)
        return 0;
    if (v[i] != ':' || n - i - 1 > 5)
        return HX_EPARSE;
    if (n - i == 1)   /* an empty port is no port (RFC 3986 3.2.3) */
        return 0;
    int port = 0;
    for (size_t k = i + 1; k < n; k++) {
        if (v[k] < '0' || v[k] > '9')
            return HX_EPARSE;
        port = port * 10 + (v[k] - '0');
    }
    if (port > 65535)
        return HX_EPARSE;
    out->port = port;
    return 0;
}

int hxi_http_origin_parse(const char *v, size_t n, hxi_http_authority *out)
{
    size_t skip = n >= 7 && !strncasecmp(v, "http://", 7) ? 7 : n >= 8 && !strncasecmp(v, "https://", 8) ? 8 : 0;
    return skip ? hxi_http_host_parse(v + skip, n - skip, out) : HX_EPARSE;
}

/* === Responses === */

const char *hxi_http_reason(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

size_t hxi_http_head(char *buf, size_t cap, int status, const char *type, size_t body_len, bool keep_alive,
                     const char *extra)
{
    char length[64];
    if (body_len == (size_t)-1)
        snprintf(length, sizeof length, "Transfer-Encoding: chunked\r\n");
    else
        snprintf(length, sizeof length, "Content-Length: %zu\r\n", body_len);
    int n = snprintf(buf, cap, "HTTP/1.1 %d %s\r\nServer: hyrax/%s\r\n%s%s%s%sConnection: %s\r\n%s\r\n", status,
                     hxi_http_reason(status), hx_version(), type ? "Content-Type: " : "", type ? type : "",
                     type ? "\r\n" : "", length, keep_alive ? "keep-alive" : "close", extra ? extra : "");
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}
