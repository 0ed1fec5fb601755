/* http_mcp.c: POST /mcp of `hyrax serve --http`, MCP Streamable HTTP (2025-06-18, 2025-11-25,
 * 2026-07-28): one JSON-RPC message, answered as JSON or as server-sent events. */
#include "http_internal.h"
#include "rpc.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SSE_WAIT_MS 200          /* how often a waiting request checks that its client is still there */

/* Does the Accept header take this media type (or any)? A missing header takes everything. */
static bool accepts(const hxi_http_request *req, const char *type)
{
    size_t n;
    const char *v = hxi_http_header_get(req, "accept", &n);
    if (!v)
        return true;
    size_t t = strlen(type);
    for (size_t i = 0; i + 3 <= n; i++)
        if ((i + t <= n && !strncasecmp(v + i, type, t)) || !strncmp(v + i, "*/*", 3))
            return true;
    return false;
}


static const char *const http_versions[] = {"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", NULL};

/* The HTTP status of a JSON-RPC answer: 400 for malformed requests and envelopes, 404 for an
 * unknown method, 200 otherwise (errors of a tool are results). */
static int rpc_status(const char *text, size_t len)
{
    hxi_json_doc *doc = NULL;
    int64_t code = 0;
    if (!memmem(text, len, "\"error\"", 7) || hxi_json_parse(&doc, text, len, NULL, NULL))
        return 200;
    hxi_json_num_int64(hxi_json_obj_get(hxi_json_obj_get(hxi_json_doc_root(doc), "error"), "code"), &code, NULL);
    hxi_json_doc_free(doc);
    return code == HX_RPC_METHOD_NOT_FOUND ? 404
           : code == HX_RPC_PARSE_ERROR || code == HX_RPC_INVALID_REQUEST || code == HX_RPC_INVALID_PARAMS ||
                   code == -32020 || code == -32022
               ? 400
               : 200;
}

/* One chunk of a chunked body on fd (len 0: the last). */
static int send_chunk(int fd, const char *data, size_t len)
{
    char size[32];
    int n = snprintf(size, sizeof size, "%zx\r\n", len);
    return send_all(fd, size, (size_t)n) || (len && send_all(fd, data, len)) || send_all(fd, "\r\n", 2) ? -1 : 0;
}

/* Waits for a write job's answer in sink. With stream, each message goes out as a server-sent
 * event as it comes (progress, then the response); else the response alone ends up in r. A client
 * that hangs up cancels the job. */
void await_job(http_server *h, const conn *c, mcp_sink *sink, bool stream, reply *r)
{
    char *buf = NULL;
    size_t len = 0, cap = 0, sent = 0;
    bool gone = false;
    if (stream) {
        char head[512];
        bool last = c->eof && c->used == c->len;
        size_t n = hxi_http_head(head, sizeof head, 200, "text/event-stream", (size_t)-1, c->req.keep_alive && !last,
                                 "Cache-Control: no-cache\r\n");
        gone = !n || send_all(c->fd, head, n);
        r->streamed = true;
        r->status = 200;
    }
    for (;;) {
        bool done = mcp_sink_take(sink, &buf, &len, &cap, SSE_WAIT_MS);
        while (stream && !gone && sent < len) {   /* one event per message line */
            char *nl = memchr(buf + sent, '\n', len - sent);
            size_t m = (size_t)(nl - (buf + sent));
            char *ev = hx_malloc(m + 32);
            if (ev) {
                int k = snprintf(ev, 32, "event: message\ndata: ");
                memcpy(ev + k, buf + sent, m);
                memcpy(ev + k + m, "\n\n", 2);
                gone = send_chunk(c->fd, ev, (size_t)k + m + 2) != 0;
                free(ev);
            }
            sent += m + 1;
        }
        if (done)
            break;
        /* a hang-up cancels; a client that shut its write side with its request (eof) waits */
        struct pollfd p = {c->fd, c->eof ? 0 : POLLRDHUP, 0};
        if (!gone && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
            gone = true;
        if (gone || stopping(h))
            mcp_cancel_sink(&h->mcp, sink);
    }
    if (stream) {
        if (gone || send_chunk(c->fd, NULL, 0))
            r->close = true;
    } else if (len) {   /* the response is the last line */
        size_t end = len - 1, start = end;
        while (start > 0 && buf[start - 1] != '\n')
            start--;
        r->len = 0;
        r->status = rpc_status(buf + start, end - start);
        r->type = "application/json";
        reply_put(r, buf + start, end - start);
    } else {
        reply_error(r, 503, "the request was cancelled (notifications/cancelled, or the server stops) and has no "
                            "answer");
    }
    if (gone)
        r->close = true;
    free(buf);
}

/* The request's Mcp-Session-Id into out (NUL-terminated; "" when none); -1 when it is not 1 to
 * MCP_SESSION_MAX visible ASCII characters (MCP Streamable HTTP, "Session Management"). */
static int session_of(const hxi_http_request *req, char out[MCP_SESSION_MAX + 1])
{
    size_t n;
    const char *v = hxi_http_header_get(req, "mcp-session-id", &n);
    out[0] = 0;
    if (!v)
        return 0;
    if (!n || n > MCP_SESSION_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (v[i] < 0x21 || v[i] > 0x7e)
            return -1;
    memcpy(out, v, n);
    out[n] = 0;
    return 0;
}

/* A successful initialize opens a session: a random id (128 bits from /dev/urandom) in an
 * Mcp-Session-Id header, which the client sends with each later request. The server keeps no
 * table of them: a session only scopes request ids, so that notifications/cancelled names a job
 * of its own client. Without randomness the answer goes out without one (no cancellation by
 * notification then; closing the request's stream still cancels). */
static void new_session(reply *r)
{
    unsigned char b[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    bool ok = fd >= 0 && read(fd, b, sizeof b) == (ssize_t)sizeof b;
    if (fd >= 0)
        close(fd);
    if (!ok)
        return;
    size_t n = strlen(r->extra);
    n += (size_t)snprintf(r->extra + n, sizeof r->extra - n, "Mcp-Session-Id: ");
    for (size_t i = 0; i < sizeof b && n + 2 < sizeof r->extra; i++)
        n += (size_t)snprintf(r->extra + n, sizeof r->extra - n, "%02x", b[i]);
    snprintf(r->extra + n, sizeof r->extra - n, "\r\n");
}

/* Answers a POST /mcp in r, or, for a write tool whose job was queued, sets *later and leaves r. */
void route_mcp(http_server *h, mcp_session *v, conn *c, double t0, reply *r, pending **later)
{
    const hxi_http_request *req = &c->req;
    size_t n;
    const char *type = hxi_http_header_get(req, "content-type", &n);
    if (!type || n < 16 || strncasecmp(type, "application/json", 16) || (n > 16 && type[16] != ';' && type[16] != ' ')) {
        reply_error(r, 415, "POST /mcp takes one JSON-RPC message with Content-Type: application/json");
        return;
    }
    if (!accepts(req, "application/json") && !accepts(req, "text/event-stream")) {
        reply_error(r, 406, "Accept must allow application/json or text/event-stream");
        return;
    }
    const char *pv = hxi_http_header_get(req, "mcp-protocol-version", &n);
    size_t k = 0;
    while (pv && http_versions[k] && (strlen(http_versions[k]) != n || memcmp(http_versions[k], pv, n)))
        k++;
    if (pv && !http_versions[k]) {
        reply_error(r, 400, "unsupported MCP-Protocol-Version (2026-07-28, 2025-11-25, 2025-06-18 and 2025-03-26 "
                            "are served)");
        return;
    }
    char session[MCP_SESSION_MAX + 1];
    if (session_of(req, session)) {
        char m[96];
        snprintf(m, sizeof m, "Mcp-Session-Id must be 1 to %d visible ASCII characters", MCP_SESSION_MAX);
        reply_error(r, 400, m);
        return;
    }
    hxi_rpc_msg msg;
    hxi_json_writer out;
    hxi_json_writer_init(&out);
    if (hxi_rpc_msg_parse(&msg, req->body ? req->body : "", req->body_len, NULL, NULL)) {
        reply_error(r, 500, "out of memory");
        return;
    }
    const hxi_json_val *meta = hxi_json_obj_get(msg.params, "_meta");
    size_t ev_len = 0, m_len = 0;
    const char *ev = hxi_json_str(hxi_json_obj_get(meta, "io.modelcontextprotocol/protocolVersion"), &ev_len);
    const char *mh = hxi_http_header_get(req, "mcp-method", &m_len);
    if (msg.kind == HX_RPC_INVALID || msg.kind == HX_RPC_BATCH) {
        hxi_rpc_write_error(&out, msg.id_json, msg.id_len, msg.code, msg.message, NULL, 0, NULL);
        reply_json(r, 400, &out);
    } else if (msg.kind != HX_RPC_REQUEST) {
        mcp_sink sink;   /* notifications/cancelled names a job of this session */
        mcp_sink_init(&sink);
        sink.session = session[0] ? session : NULL;
        mcp_handle_msg(v, &msg, &sink, &out);
        mcp_sink_free(&sink);
        r->status = 202;   /* notifications and responses: accepted, nothing to answer */
    } else if (ev && (!pv || n != ev_len || memcmp(pv, ev, n) ||
                      (mh && (m_len != msg.method_len || memcmp(mh, msg.method, m_len))))) {
        hxi_rpc_write_error(&out, msg.id_json, msg.id_len, -32020,
                            "MCP-Protocol-Version (and Mcp-Method, when sent) must match the request's _meta "
                            "protocol version and method", NULL, 0, NULL);
        reply_json(r, 400, &out);
    } else if (!(*later = hx_calloc(1, sizeof **later))) {
        reply_error(r, 500, "out of memory");
    } else {
        pending *p = *later;
        *p = (pending){.h = h, .c = c, .t0 = t0};
        memcpy(p->session, session, sizeof p->session);
        mcp_sink_init(&p->sink);
        p->sink.session = p->session[0] ? p->session : NULL;
        if (mcp_handle_msg(v, &msg, &p->sink, &out) == HX_RPC_DEFERRED) {
            p->stream = hxi_json_obj_get(meta, "progressToken") && accepts(req, "text/event-stream");
        } else {
            reply_json(r, rpc_status(out.buf, out.len), &out);
            if (r->status == 200 && !strcmp(msg.method, "initialize") && !session[0])
                new_session(r);
            mcp_sink_free(&p->sink);
            free(p);
            *later = NULL;
        }
    }
    hxi_json_writer_free(&out);
    hxi_rpc_msg_free(&msg);
}