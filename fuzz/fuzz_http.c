/* fuzz_http.c: libFuzzer target for the HTTP/1.1 request parser (src/http/http.c). The first
 * byte picks the limits (small ones reach the 414/431/413 paths); the rest is a byte stream parsed
 * as pipelined requests, one after another. Checked for every request: consumed bytes lie within
 * the input, the target and every header lie within the bytes consumed, the body is within
 * max_body, every shorter prefix of a complete request is "need more bytes" (never an error and
 * never a different request), and every refusal carries a 4xx/5xx status. The Host and Origin values
 * of each request also go through hxi_http_host_parse and hxi_http_origin_parse: an accepted host lies
 * within its value, holds no userinfo, path or space, and is followed by nothing or a port 0 to
 * 65535. Corpus: fuzz/corpus/http/. */
#include "http.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_within(const char *p, size_t n, const char *lo, size_t len)
{
    if (n && (p < lo || p + n > lo + len))
        abort();
}

/* The authority parsed from [v, v+n) (skip: the scheme's bytes) obeys http.h's rules. */
static void check_authority(const char *v, size_t n, size_t skip, const hxi_http_authority *a)
{
    check_within(a->host, a->host_len, v, n);
    if (!a->host_len || a->host != v + skip || a->port < -1 || a->port > 65535)
        abort();
    for (size_t i = 0; i < a->host_len; i++)
        if (a->host[i] == '@' || a->host[i] == '/' || a->host[i] == ' ' || (a->host[i] == ':' && a->host[0] != '['))
            abort();
    size_t rest = n - skip - a->host_len;
    if (rest && (a->host[a->host_len] != ':' || (a->port < 0 && rest != 1)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    hxi_http_limits lim = {0};
    if (data[0] & 1)
        lim = (hxi_http_limits){.max_line = 64, .max_head = 256, .max_headers = 4, .max_body = 100};
    data++;
    size--;
    const char *buf = (const char *)data;
    size_t at = 0;
    for (int requests = 0; at < size && requests < 64; requests++) {
        hxi_http_request req;
        size_t used = 0;
        int status = 0;
        hx_error err = {0};
        int rc = hxi_http_parse(buf + at, size - at, &lim, &req, &used, &status, &err);
        if (rc == HX_ETRUNCATED) {
            hxi_http_request_free(&req);
            break;
        }
        if (rc) {
            if (status < 400 || status > 599 || !err.message[0])
                abort();
            hxi_http_request_free(&req);
            break;
        }
        hxi_http_limits l = hxi_http_limits_fill(&lim);
        if (!used || used > size - at || req.body_len > l.max_body || req.n_headers > l.max_headers ||
            (req.body_len && (!req.body || req.body[req.body_len])) || !req.method[0] || req.minor > 1)
            abort();
        check_within(req.target, req.target_len, buf + at, used);
        for (size_t i = 0; i < req.n_headers; i++) {
            check_within(req.headers[i].name, req.headers[i].name_len, buf + at, used);
            check_within(req.headers[i].value, req.headers[i].value_len, buf + at, used);
        }
        size_t n;
        hxi_http_authority a;
        const char *v = hxi_http_header_get(&req, "host", &n);
        if (v && !hxi_http_host_parse(v, n, &a))
            check_authority(v, n, 0, &a);
        if ((v = hxi_http_header_get(&req, "origin", &n)) && !hxi_http_origin_parse(v, n, &a))
            check_authority(v, n, v[4] == 's' || v[4] == 'S' ? 8 : 7, &a);
        size_t cuts[2] = {used - 1, used / 2};
        for (int c = 0; c < 2; c++) {
            hxi_http_request part;
            size_t pu = 0;
            int ps = 0;
            if (hxi_http_parse(buf + at, cuts[c], &lim, &part, &pu, &ps, NULL) != HX_ETRUNCATED)
                abort();
            hxi_http_request_free(&part);
        }
        hxi_http_request_free(&req);
        at += used;
    }
    return 0;
}
