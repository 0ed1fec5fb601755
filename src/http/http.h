/* http.h: HTTP/1.1 message framing for `hyrax serve --http` (RFC 9110, RFC 9112): a request parser
 * over a byte buffer with limits on every part, and response heads. No sockets here (the loop is
 * http_server.c) and no routes; the parser is what fuzz/fuzz_http.c drives. Choices where the RFCs
 * leave room, each refused with the status named, before any body byte is read:
 *
 *   - Head lines end in CR LF or a bare LF (RFC 9112 2.2); a bare CR anywhere in the head is 400.
 *     Empty lines before the request line are skipped (at most the request-line limit of them).
 *   - Request line: METHOD SP TARGET SP HTTP/1.0 or HTTP/1.1; one space each. Over max_line bytes:
 *     414. Any other version (HTTP/1.9, HTTP/2.0, HTTP/0.9): 505. A method outside tchar, a target
 *     with a control byte or a space: 400.
 *   - Header fields: name (tchar) ':' OWS value OWS. Whitespace before the colon and obsolete line
 *     folding are 400 (RFC 9112 5.1, 5.2); NUL and other controls but HTAB in a value are 400.
 *     More than max_headers fields, or more than max_head bytes from the request line to the empty
 *     line: 431.
 *   - Bodies: Content-Length (digits only; several, even equal, are 400) or Transfer-Encoding:
 *     chunked and nothing else (another coding: 501; both headers: 400, as RFC 9112 6.1 allows, so
 *     no request can be framed two ways). A body over max_body: 413, whether declared or chunked.
 *     Chunked framing is exactly RFC 9112 7.1's: each chunk-size line is hex digits and only
 *     well-formed chunk extensions (skipped; within max_line bytes), ending in CR LF; each chunk's
 *     data is followed by exactly CR LF; a bare LF or CR in the framing or the trailers is 400, as
 *     is anything else a strict reader would frame otherwise. Trailers count against the header
 *     limits and are dropped.
 *   - HTTP/1.1 needs exactly one Host (400 otherwise). Keep-alive is the default of 1.1 and off for
 *     1.0; `Connection: close` / `keep-alive` (a token list) says otherwise.
 *
 * A complete request is consumed whole and nothing after it is read, so pipelined requests are
 * parsed one after another from the same buffer. */
#ifndef HX_HTTP_H
#define HX_HTTP_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>

#define HX_HTTP_MAX_HEADERS 64

typedef struct hxi_http_limits {
    size_t max_line;      /* request line, and a chunk-size line (default 8 KiB) */
    size_t max_head;      /* request line + header lines + trailers (default 32 KiB) */
    size_t max_headers;   /* header fields (default and at most HX_HTTP_MAX_HEADERS) */
    size_t max_body;      /* decoded body (default 16 MiB) */
} hxi_http_limits;

/* limits with every 0 field set to its default. */
hxi_http_limits hxi_http_limits_fill(const hxi_http_limits *lim);

typedef struct hxi_http_header {
    const char *name, *value;   /* borrowed from the parsed buffer; not NUL-terminated */
    size_t name_len, value_len; /* value without the surrounding whitespace */
} hxi_http_header;

/* One request. Strings are borrowed from the buffer given to hxi_http_parse, except body, which
 * is owned (decoded, NUL-terminated; NULL when empty): caller frees with hxi_http_request_free. */
typedef struct hxi_http_request {
    char method[16];                  /* NUL-terminated */
    const char *target;               /* the request-target as sent */
    size_t target_len;
    int minor;                        /* HTTP/1.minor: 0 or 1 */
    hxi_http_header headers[HX_HTTP_MAX_HEADERS];
    size_t n_headers;
    char *body;
    size_t body_len;
    bool keep_alive;
    bool expect_continue;             /* Expect: 100-continue */
    bool head_done;                   /* the head is parsed (also when the body is still missing) */
} hxi_http_request;

/* Parses one request at the start of buf[0..len). Returns 0 with *req filled and *consumed its
 * size in bytes; HX_ETRUNCATED when more bytes are needed (req->head_done says whether the head
 * was complete: a 100-continue is due then); or another HX_E* code with *status set to the HTTP
 * status to answer before closing the connection (400, 413, 414, 431, 501, 505) and err saying
 * why. req is reset on entry and may be freed after any return. */
int hxi_http_parse(const char *buf, size_t len, const hxi_http_limits *lim, hxi_http_request *req,
                   size_t *consumed, int *status, hx_error *err);
void hxi_http_request_free(hxi_http_request *req);

/* The value of the first header called name (ASCII case-insensitive) and its length, or NULL. */
const char *hxi_http_header_get(const hxi_http_request *req, const char *name, size_t *len);

/* A Host value or an Origin's authority taken apart: the host as sent (an IP literal keeps its
 * brackets; borrowed from the value, not NUL-terminated) and the port, -1 when none is given. */
typedef struct hxi_http_authority {
    const char *host;
    size_t host_len;
    int port;
} hxi_http_authority;

/* A Host value (RFC 9110 7.2): uri-host [":" port] and nothing else: no userinfo, path or spaces;
 * the host a reg-name, an IPv4 address or a bracketed IPv6 address, the port 0 to 65535 in at most
 * 5 digits (empty is none). 0, or HX_EPARSE. */
int hxi_http_host_parse(const char *v, size_t n, hxi_http_authority *out);

/* An Origin value (RFC 6454 7): "http://" or "https://" (any case), then a Host value as above.
 * "null", another scheme, userinfo (http://localhost:80@evil.example) or a path is HX_EPARSE. */
int hxi_http_origin_parse(const char *v, size_t n, hxi_http_authority *out);

/* Status text of an HTTP status code ("Not Found"); "Unknown" for codes hyrax does not send. */
const char *hxi_http_reason(int status);

/* A response head into buf[0..cap): status line, Content-Type (when type is non-NULL),
 * Content-Length (body_len, or Transfer-Encoding: chunked when body_len is (size_t)-1), Connection
 * (keep-alive or close), then the lines of `extra` (each ending CR LF; may be NULL), then the
 * empty line. Returns its length, or 0 when it does not fit. */
size_t hxi_http_head(char *buf, size_t cap, int status, const char *type, size_t body_len, bool keep_alive,
                     const char *extra);

#endif
