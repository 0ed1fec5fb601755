/* http_server.c: the loop of `hyrax serve --http` (http_server.h). One thread polls the listening
 * socket and every idle connection, reads, and parses requests (http.h); a complete request goes to
 * a fixed set of request threads, each answering through its own MCP view (mcp_state.h: its own
 * index reader and encoder), so queries run side by side and never wait for the write worker: a
 * write tool's answer is awaited on a small thread of its own (an awaiter), which frees the request
 * thread at once. A connection is handled by one thread at a time and its next pipelined request is
 * parsed only once the answer is written, so answers keep the order of requests. This file owns the
 * connections, the checks every request passes, routing and the loop; writing an answer is
 * http_reply.c's, the REST routes http_rest.c's, POST /mcp http_mcp.c's. Spec: `hyrax help http`, seed 002 (REST shapes), MCP
 * Streamable HTTP (2025-06-18, 2025-11-25, 2026-07-28).
 *
 *   POST /search    seed 002: {query, search_type, top_k, min_score, filters} -> {results, ...}
 *                   (hx_session_search of the request thread's session)
 *   GET  /health    seed 002: {status, indexed_documents, indexed_chunks, model_loaded}, and activity
 *                   (stats.h: what lasts across restarts); never waits (hx_session_status)
 *   GET  /stats     seed 002: counts, model, dimension, search modes, fusion (hx_session_status)
 *   GET  /metrics   Prometheus text (metrics.h, then hyrax.h hx_stats_prometheus_text)
 *   POST /mcp       one JSON-RPC message; answered with application/json, or text/event-stream when
 *                   the client accepts it and asked a write tool for progress (progressToken)
 *
 * Every request, before any route runs: a Host naming this server (421: localhost, 127.0.0.1, [::1],
 * the address the client connected to or an --allow-host name, with no port or the server's, so a
 * page whose name was rebound to 127.0.0.1 reads nothing), a bearer token when one is configured
 * (401), an Origin header only from a page on such a host, any port (403: a web page elsewhere must
 * not drive a local server), a known route (404) and method (405 with Allow). Errors are {"detail":
 * text, "status": code}. A client that shuts its write side after its requests gets every complete
 * one answered, then the connection closes; a connection the server closes first (a refusal,
 * Connection: close) is shut for writing and what the client still sends is read and dropped, within
 * bounds, so that it can read the answer rather than a reset. */
#include "http_internal.h"
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MAX_CONNECTIONS 256
#define DEFAULT_IDLE_MS 30000
#define DEFAULT_READ_MS 10000
#define DEFAULT_MAX_BUFFERED ((size_t)256 << 20)
#define READ_STEP 16384          /* a connection's buffer starts at this and doubles */
#define KEEP_BUFFER 65536        /* an idle connection keeps a buffer up to this size */
#define AWAITER_STACK ((size_t)1 << 20)   /* an awaiter's stack: await_job and a reply, no encoder */
#define LINGER_MS 5000           /* a connection closing reads and drops what comes for at most this */
#define LINGER_BYTES ((size_t)64 << 20)   /* ... and at most this many bytes (a refused body and more) */
#define DRAIN_STEP 64            /* reads of 16 KiB a lingering connection gets per wake of the loop */


static void conn_close(http_server *h, size_t i)
{
    conn *c = h->conns[i];
    pthread_mutex_lock(&h->lock);
    h->conns[i] = h->conns[--h->n_conns];
    pthread_mutex_unlock(&h->lock);
    h->buffered -= c->cap;
    close(c->fd);
    hxi_http_request_free(&c->req);
    free(c->in);
    free(c);
}

/* A refusal from the loop thread (parse errors, over capacity): best effort, then the caller closes. */
static void refuse(int fd, int status, const char *detail)
{
    reply r = {0};
    reply_error(&r, status, detail);
    reply_send(fd, &r, false);
    free(r.body);
}

/* === Checks every request passes === */

/* Constant-time comparison of the bearer token: the time taken depends on the lengths only. */
static bool token_ok(const char *want, const char *got, size_t got_len)
{
    size_t want_len = strlen(want);
    unsigned char diff = (unsigned char)(want_len != got_len);
    for (size_t i = 0; i < want_len; i++)
        diff |= (unsigned char)(want[i] ^ (i < got_len ? got[i] : 0));
    return diff == 0;
}

static bool authorized(const http_server *h, const hxi_http_request *req)
{
    if (!h->hc.token)
        return true;
    size_t n;
    const char *v = hxi_http_header_get(req, "authorization", &n);
    if (!v || n < 7 || strncasecmp(v, "Bearer ", 7))
        return false;
    return token_ok(h->hc.token, v + 7, n - 7);
}

/* The IP address in a host as sent ("127.0.0.1", "[::1]") into ss (port 0); false for a name. */
static bool host_address(const hxi_http_authority *a, struct sockaddr_storage *ss)
{
    char text[INET6_ADDRSTRLEN];
    bool v6 = a->host[0] == '[';
    size_t n = v6 ? a->host_len - 2 : a->host_len;
    if (n >= sizeof text)
        return false;
    memcpy(text, a->host + v6, n);
    text[n] = 0;
    memset(ss, 0, sizeof *ss);
    ss->ss_family = v6 ? AF_INET6 : AF_INET;
    return inet_pton(ss->ss_family, text, v6 ? (void *)&((struct sockaddr_in6 *)ss)->sin6_addr
                                             : (void *)&((struct sockaddr_in *)ss)->sin_addr) == 1;
}

/* Are a and b the same IP address (an IPv4-mapped IPv6 one as its IPv4 one)? Ports aside. */
static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    const void *x[2];
    int fam[2];
    const struct sockaddr_storage *ab[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        const struct in6_addr *v6 = &((const struct sockaddr_in6 *)ab[i])->sin6_addr;
        fam[i] = ab[i]->ss_family;
        x[i] = fam[i] == AF_INET ? (const void *)&((const struct sockaddr_in *)ab[i])->sin_addr : (const void *)v6;
        if (fam[i] == AF_INET6 && IN6_IS_ADDR_V4MAPPED(v6)) {
            fam[i] = AF_INET;
            x[i] = v6->s6_addr + 12;
        }
    }
    return fam[0] == fam[1] && !memcmp(x[0], x[1], fam[0] == AF_INET ? 4 : 16);
}

/* Is this a host the server answers to (from Host or Origin)? localhost, 127.0.0.1, [::1], the
 * address c connected to, and the --allow-host names; names without regard to case. */
static bool host_known(const http_server *h, const conn *c, const hxi_http_authority *a)
{
    struct sockaddr_storage ss, loop;
    if (host_address(a, &ss)) {
        memset(&loop, 0, sizeof loop);
        loop.ss_family = ss.ss_family;
        if (ss.ss_family == AF_INET)
            ((struct sockaddr_in *)&loop)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        else
            ((struct sockaddr_in6 *)&loop)->sin6_addr = in6addr_loopback;
        if (same_address(&ss, &loop) || same_address(&ss, &c->local))
            return true;
    } else if (a->host_len == 9 && !strncasecmp(a->host, "localhost", 9)) {
        return true;
    }
    for (size_t i = 0; i < h->hc.n_allow_hosts; i++)
        if (strlen(h->hc.allow_hosts[i]) == a->host_len && !strncasecmp(h->hc.allow_hosts[i], a->host, a->host_len))
            return true;
    return false;
}

/* The Host header against DNS rebinding: 0 when it names this server, with no port or the one
 * connected to; else the status to refuse with (400 for a Host that is no host, 421). HTTP/1.1
 * needs one (the parser refuses it without); an HTTP/1.0 request may come without. */
static int host_status(const http_server *h, const conn *c)
{
    size_t n;
    const char *v = hxi_http_header_get(&c->req, "host", &n);
    hxi_http_authority a;
    if (!v)
        return 0;
    if (hxi_http_host_parse(v, n, &a))
        return 400;
    int port = ntohs(c->local.ss_family == AF_INET ? ((const struct sockaddr_in *)&c->local)->sin_port
                                                   : ((const struct sockaddr_in6 *)&c->local)->sin6_port);
    return host_known(h, c, &a) && (a.port < 0 || a.port == port) ? 0 : 421;
}

/* An Origin header, when sent, must be a page on a host the server answers to (host_known), any
 * port: scheme://host[:port] and nothing else, so userinfo (http://localhost:80@evil.example) is
 * refused. */
static bool origin_ok(const http_server *h, const conn *c)
{
    size_t n;
    const char *v = hxi_http_header_get(&c->req, "origin", &n);
    hxi_http_authority a;
    return !v || (!hxi_http_origin_parse(v, n, &a) && host_known(h, c, &a));
}


/* === Routing === */

typedef struct route {
    const char *path, *method;
    void (*run)(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r);
} route;

static const route routes[] = {
    {"/search", "POST", route_search}, {"/search", "GET", route_search}, {"/health", "GET", route_health},
    {"/stats", "GET", route_stats},
    {"/metrics", "GET", route_metrics}, {"/mcp", "POST", NULL},   /* route_mcp: needs the connection */
};
#define N_ROUTES (sizeof routes / sizeof routes[0])

/* Counts the request in /metrics and writes r on c (unless it went out as a stream); false when
 * the connection must close. Frees r's body. */
static bool finish(http_server *h, conn *c, const char *route_path, reply *r, double t0)
{
    const hxi_http_request *req = &c->req;
    bool keep = req->keep_alive && !r->close;
    bool last = c->eof && c->used == c->len;   /* the client sent all it will, and this is the end of it */
    char code[8];
    snprintf(code, sizeof code, "%d", r->status);
    /* counted before the answer leaves, so a client that has it sees it in /metrics */
    hxi_metrics_observe(h->metrics, HX_METRIC_HTTP, route_path, req->method, code, mono_s() - t0);
    bool ok = r->streamed ? !r->close : reply_send(c->fd, r, keep && !last) == 0;
    free(r->body);
    return ok && keep;
}

/* Answers c's parsed request and writes the answer; false when the connection must close. A write
 * tool's request whose job was queued sets *later instead (an awaiter answers it). */
static bool answer(http_server *h, mcp_session *v, hx_session **ses, conn *c, pending **later)
{
    double t0 = mono_s();
    const hxi_http_request *req = &c->req;
    size_t plen = req->target_len;
    const char *q = memchr(req->target, '?', plen);
    if (q)
        plen = (size_t)(q - req->target);
    const route *rt = NULL;   /* the route of the path and method, else the path's first */
    char allow[32] = "";
    for (size_t i = 0; i < N_ROUTES; i++)
        if (strlen(routes[i].path) == plen && !memcmp(routes[i].path, req->target, plen)) {
            if (!rt || (!strcmp(routes[i].method, req->method) && strcmp(rt->method, req->method)))
                rt = &routes[i];
            size_t used = strlen(allow);
            snprintf(allow + used, sizeof allow - used, "%s%s", used ? ", " : "", routes[i].method);
        }
    reply r = {0};
    int host = host_status(h, c);
    if (host) {
        reply_error(&r, host, host == 400 ? "the Host header must be a host name or address, then an optional port"
                                          : "this server answers to Host localhost, 127.0.0.1, [::1], the address "
                                            "connected to or an --allow-host name, with no port or its own");
    } else if (!authorized(h, req)) {
        reply_error(&r, 401, "this server needs Authorization: Bearer <token> (the --token-file it was given)");
        snprintf(r.extra, sizeof r.extra, "WWW-Authenticate: Bearer realm=\"hyrax\"\r\n");
    } else if (!origin_ok(h, c)) {
        reply_error(&r, 403, "requests from a web page are accepted only from a page on a host this server answers "
                             "to (localhost, 127.0.0.1, [::1], its address or an --allow-host name)");
    } else if (!rt) {
        reply_error(&r, 404, "no such route: GET or POST /search, GET /health, GET /stats, GET /metrics, POST /mcp");
    } else if (strcmp(req->method, rt->method)) {
        reply_error(&r, 405, "method not allowed on this route (see Allow)");
        snprintf(r.extra, sizeof r.extra, "Allow: %s\r\n", allow);
    } else if (rt->run) {
        rt->run(h, v, ses, req, &r);
    } else {
        route_mcp(h, v, c, t0, &r, later);
        if (*later)
            return false;
    }
    return finish(h, c, rt ? rt->path : "other", &r, t0);
}

/* Gives c back to the loop once its request is answered: the request's bytes consumed, the
 * connection to close or to read again. */
static void hand_back(http_server *h, conn *c, bool keep)
{
    hxi_http_request_free(&c->req);
    memmove(c->in, c->in + c->used, c->len - c->used);
    c->len -= c->used;
    c->closing = !keep;
    c->continue_sent = false;
    c->active_ms = mono_ms();
    c->begun_ms = c->len ? c->active_ms : 0;
    pthread_mutex_lock(&h->lock);
    c->next = h->done_head;
    h->done_head = c;
    pthread_mutex_unlock(&h->lock);
    char b = 1;
    ssize_t wr = write(h->wake[1], &b, 1);   /* a full pipe already wakes the loop */
    (void)wr;
}

/* An awaiter: waits for the write job's answer, writes it and gives the connection back. */
static void *awaiter(void *arg)
{
    pending *p = arg;
    http_server *h = p->h;
    reply r = {0};
    await_job(h, p->c, &p->sink, p->stream, &r);
    hand_back(h, p->c, finish(h, p->c, "/mcp", &r, p->t0));
    mcp_sink_free(&p->sink);
    free(p);
    pthread_mutex_lock(&h->lock);
    h->awaiters--;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Starts an awaiter for p (detached, a small stack: it holds no encoder); when no thread can be
 * started, awaits on the calling request thread, as a last resort. */
static void start_awaiter(http_server *h, pending *p)
{
    pthread_mutex_lock(&h->lock);
    h->awaiters++;
    pthread_mutex_unlock(&h->lock);
    pthread_attr_t attr;
    pthread_t t;
    bool started = !pthread_attr_init(&attr);
    if (started) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, AWAITER_STACK);
        started = !pthread_create(&t, &attr, awaiter, p);
        pthread_attr_destroy(&attr);
    }
    if (!started)
        awaiter(p);
}

static void *request_thread(void *arg)
{
    http_server *h = arg;
    mcp_session view;
    hx_session *ses = NULL;   /* the REST routes' (rest_session) */
    mcp_session_init(&view, &h->mcp, "http");
    for (;;) {
        pthread_mutex_lock(&h->lock);
        while (!h->work_head && !h->stopping)
            pthread_cond_wait(&h->cv, &h->lock);
        conn *c = h->work_head;
        if (!c) {
            pthread_mutex_unlock(&h->lock);
            break;
        }
        h->work_head = c->next;
        if (!h->work_head)
            h->work_tail = NULL;
        pthread_mutex_unlock(&h->lock);

        pending *later = NULL;
        bool keep = answer(h, &view, &ses, c, &later);
        if (later)
            start_awaiter(h, later);
        else
            hand_back(h, c, keep);
    }
    mcp_session_free(&view);
    hx_session_close(ses);
    return NULL;
}

/* === The loop === */

/* Reads and drops what lingering c has; closes it at the client's EOF, an error or past
 * LINGER_BYTES. At most DRAIN_STEP reads a call, so that one fast sender does not hold the loop. */
static void drain(http_server *h, size_t i)
{
    conn *c = h->conns[i];
    char scratch[16384];
    for (int k = 0; k < DRAIN_STEP; k++) {
        ssize_t n = recv(c->fd, scratch, sizeof scratch, 0);
        if (n > 0 && (c->drained += (size_t)n) <= LINGER_BYTES)
            continue;
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        conn_close(h, i);
        return;
    }
}

/* Closes c once its answer is out. Closing a socket with unread bytes resets the connection, and
 * the reset can reach the client before it has read the answer (a client still sending a refused
 * body loses the 413 so): unless the client has shut its side already, c is shut for writing (the
 * client reads the answer, then EOF) and lingers: what still comes is dropped until the client's
 * EOF, LINGER_BYTES or LINGER_MS (expire). */
static void close_after_answer(http_server *h, size_t i)
{
    conn *c = h->conns[i];
    if (c->eof) {
        conn_close(h, i);
        return;
    }
    shutdown(c->fd, SHUT_WR);
    h->buffered -= c->cap;
    free(c->in);
    c->in = NULL;
    c->len = c->cap = 0;
    c->lingering = true;
    c->active_ms = mono_ms();
    drain(h, i);
}

/* Parses what c holds: a complete request goes to the request threads; a broken one is refused
 * and c closed, as is c once the client has shut its side and every complete request is answered. */
static void take_request(http_server *h, size_t i)
{
    conn *c = h->conns[i];
    if (!c->len) {
        if (c->eof)
            conn_close(h, i);
        return;
    }
    int status = 0;
    hx_error err = {0};
    int rc = hxi_http_parse(c->in, c->len, &h->lim, &c->req, &c->used, &status, &err);
    if (rc == HX_ETRUNCATED) {
        if (c->req.head_done && c->req.expect_continue && !c->continue_sent && !c->eof) {
            c->continue_sent = true;
            send_all(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
        }
        hxi_http_request_free(&c->req);
        if (c->eof) {
            status = 400;
            snprintf(err.message, sizeof err.message, "the client ended its side before the request was complete");
        } else if (c->len <= h->max_buffer) {
            return;
        } else {
            status = 413;
            snprintf(err.message, sizeof err.message, "the request is larger than the server accepts");
        }
    }
    if (rc) {
        hxi_http_request_free(&c->req);
        hxi_metrics_observe(h->metrics, HX_METRIC_HTTP, "other", "other", status == 413 ? "413" : status == 431 ? "431"
                            : status == 414 ? "414" : status == 501 ? "501" : status == 505 ? "505" : "400", 0);
        refuse(c->fd, status, err.message);
        close_after_answer(h, i);
        return;
    }
    c->busy = true;
    c->next = NULL;
    pthread_mutex_lock(&h->lock);
    if (h->work_tail)
        h->work_tail->next = c;
    else
        h->work_head = c;
    h->work_tail = c;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->lock);
}

/* Room for more bytes in c's buffer: it doubles (READ_STEP at first), within the bytes all
 * connections may hold together (hxi_http_config max_buffered); NULL, or the refusal to send. */
static const char *grow_buffer(http_server *h, conn *c)
{
    size_t want = c->cap ? c->cap * 2 : READ_STEP;
    if (h->buffered - c->cap + want > h->hc.max_buffered)
        return "the server holds as many request bytes as it accepts across connections; retry later";
    void *p = hx_realloc(c->in, want);
    if (!p)
        return "out of memory";
    h->buffered += want - c->cap;
    c->in = p;
    c->cap = want;
    return NULL;
}

/* Reads what c has (to the client's EOF, which is kept: the requests before it are still
 * answered), then takes a request from it. */
static void read_conn(http_server *h, size_t i)
{
    conn *c = h->conns[i];
    if (c->lingering) {
        drain(h, i);
        return;
    }
    for (;;) {
        const char *full = c->cap - c->len < 4096 ? grow_buffer(h, c) : NULL;
        if (full) {
            refuse(c->fd, 503, full);
            close_after_answer(h, i);
            return;
        }
        ssize_t n = recv(c->fd, c->in + c->len, c->cap - c->len, 0);
        if (n > 0) {
            if (!c->len)
                c->begun_ms = mono_ms();
            c->len += (size_t)n;
            c->active_ms = mono_ms();
            if (c->len > h->max_buffer)
                break;
            continue;
        }
        if (n == 0) {
            c->eof = true;
            break;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        conn_close(h, i);   /* an error: nothing more will come, and no answer can go */
        return;
    }
    take_request(h, i);
}

static void accept_all(http_server *h)
{
    for (;;) {
        int fd = accept4(h->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = h->n_conns < (size_t)h->hc.max_connections ? hx_calloc(1, sizeof *c) : NULL;
        if (!c) {
            refuse(fd, 503, "the server has as many connections open as it accepts; retry later");
            close(fd);
            continue;
        }
        c->fd = fd;
        c->active_ms = mono_ms();
        socklen_t sl = sizeof c->local;
        getsockname(fd, (struct sockaddr *)&c->local, &sl);   /* for the Host check (host_known) */
        pthread_mutex_lock(&h->lock);
        h->conns[h->n_conns++] = c;
        pthread_mutex_unlock(&h->lock);
    }
}

/* Connections back from the request threads: closed, or read again (a pipelined request may be
 * waiting in the buffer already). */
static void take_done(http_server *h)
{
    char b[64];
    while (read(h->wake[0], b, sizeof b) > 0) {
    }
    pthread_mutex_lock(&h->lock);
    conn *d = h->done_head;
    h->done_head = NULL;
    pthread_mutex_unlock(&h->lock);
    while (d) {
        conn *next = d->next;
        size_t i = 0;
        while (i < h->n_conns && h->conns[i] != d)
            i++;
        d->busy = false;
        if (!d->closing && !d->len && d->cap > KEEP_BUFFER) {   /* a large request's buffer goes back */
            h->buffered -= d->cap;
            free(d->in);
            d->in = NULL;
            d->cap = 0;
        }
        if (d->closing)
            close_after_answer(h, i);
        else
            take_request(h, i);
        d = next;
    }
}

/* Idle and slow connections: closed after idle_timeout_ms with nothing pending, 408 after
 * read_timeout_ms with a request begun; a lingering one after LINGER_MS. */
static void expire(http_server *h, int64_t now)
{
    for (size_t i = h->n_conns; i-- > 0;) {
        conn *c = h->conns[i];
        if (c->busy)
            continue;
        if (c->lingering) {
            if (now - c->active_ms > LINGER_MS)
                conn_close(h, i);
        } else if (c->len && now - c->begun_ms > h->hc.read_timeout_ms) {
            refuse(c->fd, 408, "the request did not arrive in time");
            close_after_answer(h, i);
        } else if (!c->len && now - c->active_ms > h->hc.idle_timeout_ms) {
            conn_close(h, i);
        }
    }
}

static int serve_loop(http_server *h)
{
    struct pollfd *p = hx_calloc((size_t)h->hc.max_connections + 3, sizeof *p);
    if (!p)
        return HX_ENOMEM;
    for (;;) {
        size_t n = 0;
        p[n++] = (struct pollfd){h->cfg->stop_fd, POLLIN, 0};
        p[n++] = (struct pollfd){h->wake[0], POLLIN, 0};
        p[n++] = (struct pollfd){h->listen_fd, POLLIN, 0};
        for (size_t i = 0; i < h->n_conns; i++)
            if (!h->conns[i]->busy)
                p[n++] = (struct pollfd){h->conns[i]->fd, POLLIN, 0};
        int k = poll(p, n, 250);
        if (k < 0 && errno != EINTR)
            break;
        if (k > 0 && p[0].revents)
            break;
        /* connections first, by descriptor, since closing one moves another into its slot */
        for (size_t j = n; k > 0 && j-- > 3;) {
            if (!p[j].revents)
                continue;
            size_t i = 0;
            while (i < h->n_conns && h->conns[i]->fd != p[j].fd)
                i++;
            if (i < h->n_conns && !h->conns[i]->busy)
                read_conn(h, i);
        }
        if (k > 0 && p[1].revents)
            take_done(h);
        if (k > 0 && p[2].revents)
            accept_all(h);
        expire(h, mono_ms());
    }
    free(p);
    return 0;
}

/* === Start and stop === */

/* Binds host:port ("[v6]:port" too). Loopback needs no token; anything else does. */
static int bind_listen(http_server *h, hx_error *err)
{
    const char *spec = h->hc.listen;
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec)
        return hx_error_set(err, HX_EINVAL, -1, "--http takes HOST:PORT, e.g. 127.0.0.1:8000");
    char host[128];
    size_t hl = (size_t)(colon - spec);
    if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']')
        spec++, hl -= 2;
    if (hl >= sizeof host)
        return hx_error_set(err, HX_EINVAL, -1, "--http: the host is too long");
    memcpy(host, spec, hl);
    host[hl] = 0;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535 || end == colon + 1)
        return hx_error_set(err, HX_EINVAL, -1, "--http: the port must be 0 to 65535");
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    bool loopback;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (!strcmp(host, "localhost"))
        snprintf(host, sizeof host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        sl = sizeof *a4;
        loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        sl = sizeof *a6;
        loopback = IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
    } else {
        return hx_error_set(err, HX_EINVAL, -1, "--http: %s is not an IP address (or localhost)", host);
    }
    if (!loopback && !h->hc.token)
        return hx_error_set(err, HX_EPERM, -1, "--http %s is not a loopback address: give --token-file so every "
                            "request must carry the token", h->hc.listen);
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0)
        return hx_error_set(err, HX_EIO, -1, "socket: %s", strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 512)) {
        int e = errno;
        close(fd);
        return hx_error_set(err, HX_EIO, -1, "cannot listen on %s: %s", h->hc.listen, strerror(e));
    }
    h->listen_fd = fd;
    if (h->hc.on_listen) {
        char name[160], addr[INET6_ADDRSTRLEN];
        getsockname(fd, (struct sockaddr *)&ss, &sl);
        if (ss.ss_family == AF_INET)
            snprintf(name, sizeof name, "%s:%u", inet_ntop(AF_INET, &a4->sin_addr, addr, sizeof addr),
                     ntohs(a4->sin_port));
        else
            snprintf(name, sizeof name, "[%s]:%u", inet_ntop(AF_INET6, &a6->sin6_addr, addr, sizeof addr),
                     ntohs(a6->sin6_port));
        h->hc.on_listen(h->hc.ctx, name);
    }
    return 0;
}

static int threads_wanted(int asked)
{
    if (asked > 0)
        return asked;
    int n = hx_platform_cpus();   /* at least 4: a request waiting on a write job holds its thread */
    return n < 4 ? 4 : n > 16 ? 16 : n;
}

int hxi_http_serve(const hxi_mcp_config *cfg, const hxi_http_config *http, hx_error *err)
{
    if (cfg->stop_fd < 0)
        return hx_error_set(err, HX_EINVAL, -1, "the HTTP server needs a stop descriptor");
    for (size_t i = 0; i < http->n_allow_hosts; i++) {
        hxi_http_authority a;
        const char *name = http->allow_hosts[i];
        if (hxi_http_host_parse(name, strlen(name), &a) || a.host_len != strlen(name))
            return hx_error_set(err, HX_EINVAL, -1, "--allow-host %s: give a host name or address without a port "
                                "(search.example.com, 192.0.2.7, [2001:db8::7])", name);
    }
    http_server *h = hx_calloc(1, sizeof *h);
    if (!h)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    h->cfg = cfg;
    h->hc = *http;
    h->hc.max_connections = http->max_connections > 0 ? http->max_connections : DEFAULT_MAX_CONNECTIONS;
    h->hc.idle_timeout_ms = http->idle_timeout_ms > 0 ? http->idle_timeout_ms : DEFAULT_IDLE_MS;
    h->hc.read_timeout_ms = http->read_timeout_ms > 0 ? http->read_timeout_ms : DEFAULT_READ_MS;
    h->hc.max_buffered = http->max_buffered > 0 ? http->max_buffered : DEFAULT_MAX_BUFFERED;
    h->lim = hxi_http_limits_fill(NULL);
    h->max_buffer = h->lim.max_head + 2 * h->lim.max_body + 65536;   /* chunked framing costs bytes too */
    h->listen_fd = -1;
    h->wake[0] = h->wake[1] = -1;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cv, NULL);
    int rc = 0, n_threads = threads_wanted(http->threads), started = 0;
    pthread_t *threads = hx_calloc((size_t)n_threads, sizeof *threads);
    h->conns = hx_calloc((size_t)h->hc.max_connections, sizeof *h->conns);
    if (!threads || !h->conns || hxi_metrics_new(&h->metrics, err))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    else if (pipe2(h->wake, O_NONBLOCK | O_CLOEXEC))
        rc = hx_error_set(err, HX_EIO, -1, "pipe: %s", strerror(errno));
    else
        rc = bind_listen(h, err);
    bool mcp_started = false;
    if (!rc && !(rc = mcp_server_start(&h->mcp, cfg, -1, err))) {
        mcp_started = true;
        h->mcp.transport = "http";
        h->mcp.metrics = h->metrics;
    }
    while (!rc && started < n_threads)
        if (pthread_create(&threads[started], NULL, request_thread, h))
            rc = hx_error_set(err, HX_ENOMEM, -1, "cannot start a request thread");
        else
            started++;
    if (!rc)
        rc = serve_loop(h);
    if (mcp_started) {   /* stop the worker first: a request thread waiting on a job then returns */
        pthread_mutex_lock(&h->mcp.lock);
        h->mcp.stopping = h->mcp.stopping_now = true;
        if (h->mcp.running)
            h->mcp.running->cancelled = true;
        pthread_cond_broadcast(&h->mcp.wake);
        pthread_mutex_unlock(&h->mcp.lock);
    }
    pthread_mutex_lock(&h->lock);
    h->stopping = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->lock);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_lock(&h->lock);
    while (h->awaiters)   /* an awaiter cancels its job (stopping) and returns */
        pthread_cond_wait(&h->cv, &h->lock);
    pthread_mutex_unlock(&h->lock);
    if (mcp_started)
        mcp_server_stop(&h->mcp, true);
    while (h->n_conns)
        conn_close(h, h->n_conns - 1);
    if (h->listen_fd >= 0)
        close(h->listen_fd);
    for (int i = 0; i < 2; i++)
        if (h->wake[i] >= 0)
            close(h->wake[i]);
    hxi_metrics_free(h->metrics);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->lock);
    free(h->conns);
    free(threads);
    free(h);
    return rc;
}
