/* http_server.c: the loop of `hyrax serve --http` (http_server.h). One thread polls the listening
 * socket and every idle connection, reads, and parses requests (http.h); a complete request goes to
 * a fixed set of request threads, each answering through its own MCP view (mcp_internal.h: its own
 * index reader and encoder), so queries run side by side and never wait for the write worker: a
 * write tool's answer is awaited on a small thread of its own (an awaiter), which frees the request
 * thread at once. A connection is handled by one thread at a time and its next pipelined request is
 * parsed only once the answer is written, so answers keep the order of requests. Spec: README "HTTP
 * server", seed 002 (REST shapes), MCP Streamable HTTP (2025-06-18, 2025-11-25, 2026-07-28).
 *
 *   POST /search    seed 002: {query, search_type, top_k, min_score, filters} -> {results, ...}
 *                   (hx_session_search of the request thread's session)
 *   GET  /health    seed 002: {status, indexed_documents, indexed_chunks, model_loaded}, and activity
 *                   (stats.h: what lasts across restarts); never waits (hx_session_status)
 *   GET  /stats     seed 002: counts, model, dimension, search modes, fusion (hx_session_status)
 *   GET  /metrics   Prometheus text (metrics.h, then stats.h hx_stats_prometheus)
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
#include "http_server.h"
#include "http.h"
#include "alloc.h"
#include "mcp_internal.h"
#include "metrics.h"
#include "platform.h"
#include "rpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
#define WRITE_TIMEOUT_MS 10000   /* a client that reads nothing for this long loses its connection */
#define SSE_WAIT_MS 200          /* how often a waiting request checks that its client is still there */
#define AWAITER_STACK ((size_t)1 << 20)   /* an awaiter's stack: await_job and a reply, no encoder */
#define LINGER_MS 5000           /* a connection closing reads and drops what comes for at most this */
#define LINGER_BYTES ((size_t)64 << 20)   /* ... and at most this many bytes (a refused body and more) */
#define DRAIN_STEP 64            /* reads of 16 KiB a lingering connection gets per wake of the loop */

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* === Connections and the work queue === */

typedef struct conn {
    int fd;
    char *in;                 /* owned: bytes read and not yet consumed */
    size_t len, cap;
    bool busy;                /* a request thread holds it (the loop neither reads nor frees it) */
    bool closing;             /* close once back from the request thread */
    bool continue_sent;       /* 100 Continue sent for the request being read */
    bool eof;                 /* the client shut its write side: answer what is complete, then close */
    bool lingering;           /* answered and shut for writing: what comes is dropped until EOF */
    size_t drained;           /* bytes dropped while lingering */
    struct sockaddr_storage local;   /* the address and port the client connected to */
    int64_t active_ms;        /* last byte read or answer written; when lingering began */
    int64_t begun_ms;         /* first byte of the request being read; 0 when none */
    hx_http_request req;      /* the request a thread answers (borrows from in) */
    size_t used;              /* its bytes */
    struct conn *next;        /* work or done queue */
} conn;

typedef struct http_server {
    const hx_mcp_config *cfg;
    hx_http_config hc;
    hx_http_limits lim;
    size_t max_buffer;        /* bytes a connection may hold unparsed */
    size_t buffered;          /* bytes of every connection's buffer (their capacity); loop thread only */
    mcp_server mcp;
    hx_metrics *metrics;
    int listen_fd, wake[2];
    conn **conns;             /* owned, n_conns of them */
    size_t n_conns;
    pthread_mutex_t lock;     /* the queues and stopping */
    pthread_cond_t cv;
    conn *work_head, *work_tail, *done_head;
    int awaiters;             /* awaiter threads running (at most the write jobs queued and running) */
    bool stopping;
} http_server;

static void conn_close(http_server *h, size_t i)
{
    conn *c = h->conns[i];
    pthread_mutex_lock(&h->lock);
    h->conns[i] = h->conns[--h->n_conns];
    pthread_mutex_unlock(&h->lock);
    h->buffered -= c->cap;
    close(c->fd);
    hx_http_request_free(&c->req);
    free(c->in);
    free(c);
}

static bool stopping(http_server *h)
{
    pthread_mutex_lock(&h->lock);
    bool stop = h->stopping;
    pthread_mutex_unlock(&h->lock);
    return stop;
}

/* Writes all of buf to the non-blocking fd, waiting at most WRITE_TIMEOUT_MS for room each time. */
static int send_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {fd, POLLOUT, 0};
            if (poll(&p, 1, WRITE_TIMEOUT_MS) > 0 && !(p.revents & (POLLERR | POLLHUP)))
                continue;
        }
        return -1;
    }
    return 0;
}

/* === Responses === */

typedef struct reply {
    int status;
    const char *type;         /* Content-Type; NULL with no body */
    char *body;               /* owned */
    size_t len, cap;
    char extra[256];          /* more header lines, each ending CR LF */
    bool streamed;            /* already written to the socket (SSE) */
    bool close;               /* close the connection after it */
} reply;

static int reply_put(reply *r, const char *data, size_t n)
{
    if (hx_grow((void **)&r->body, &r->cap, r->len + n + 1, 1, NULL))
        return HX_ENOMEM;
    memcpy(r->body + r->len, data, n);
    r->len += n;
    return 0;
}

/* The finished JSON of w as the reply's body. */
static void reply_json(reply *r, int status, hx_json_writer *w)
{
    r->status = status;
    r->type = "application/json";
    r->len = 0;
    if (hx_json_writer_finish(w, NULL) || reply_put(r, w->buf, w->len)) {
        r->status = 500;
        r->len = 0;
        reply_put(r, "{\"detail\":\"out of memory\",\"status\":500}", 39);
    }
}

static void reply_error(reply *r, int status, const char *detail)
{
    hx_json_writer w;
    hx_json_writer_init(&w);
    hx_json_write_obj_begin(&w);
    hx_json_write_key(&w, "detail");
    hx_json_write_cstr(&w, detail);
    hx_json_write_key(&w, "status");
    hx_json_write_int(&w, status);
    hx_json_write_obj_end(&w);
    reply_json(r, status, &w);
    hx_json_writer_free(&w);
}

/* Head and body of r on fd; -1 when the client is gone. */
static int reply_send(int fd, const reply *r, bool keep_alive)
{
    char head[1024];
    size_t n = hx_http_head(head, sizeof head, r->status, r->type, r->len, keep_alive, r->extra);
    if (!n)
        return -1;
    if (r->len < 16384) {   /* one send for head and a small body */
        char *both = hx_malloc(n + r->len);
        if (both) {
            memcpy(both, head, n);
            if (r->len)
                memcpy(both + n, r->body, r->len);
            int rc = send_all(fd, both, n + r->len);
            free(both);
            return rc;
        }
    }
    return send_all(fd, head, n) || (r->len && send_all(fd, r->body, r->len)) ? -1 : 0;
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

static bool authorized(const http_server *h, const hx_http_request *req)
{
    if (!h->hc.token)
        return true;
    size_t n;
    const char *v = hx_http_header_get(req, "authorization", &n);
    if (!v || n < 7 || strncasecmp(v, "Bearer ", 7))
        return false;
    return token_ok(h->hc.token, v + 7, n - 7);
}

/* The IP address in a host as sent ("127.0.0.1", "[::1]") into ss (port 0); false for a name. */
static bool host_address(const hx_http_authority *a, struct sockaddr_storage *ss)
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
static bool host_known(const http_server *h, const conn *c, const hx_http_authority *a)
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
    const char *v = hx_http_header_get(&c->req, "host", &n);
    hx_http_authority a;
    if (!v)
        return 0;
    if (hx_http_host_parse(v, n, &a))
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
    const char *v = hx_http_header_get(&c->req, "origin", &n);
    hx_http_authority a;
    return !v || (!hx_http_origin_parse(v, n, &a) && host_known(h, c, &a));
}

/* Does the Accept header take this media type (or any)? A missing header takes everything. */
static bool accepts(const hx_http_request *req, const char *type)
{
    size_t n;
    const char *v = hx_http_header_get(req, "accept", &n);
    if (!v)
        return true;
    size_t t = strlen(type);
    for (size_t i = 0; i + 3 <= n; i++)
        if ((i + t <= n && !strncasecmp(v + i, type, t)) || !strncmp(v + i, "*/*", 3))
            return true;
    return false;
}

/* === REST (seed 002) === */

static const char *const rest_search_types[] = {"vector", "semantic", "keyword", "hybrid", NULL};

/* The REST routes answer through a session of their request thread (hyrax.h "Session"), opened
 * once the model has loaded, on the model the MCP server loaded; it never writes. */
static int rest_session(http_server *h, mcp_session *v, hx_session **ses, char *msg, size_t cap)
{
    if (*ses)
        return 0;
    if (mcp_wait_model(v, msg, cap))
        return -1;
    const hx_mcp_config *cfg = h->cfg;
    hx_session_config sc = {.db = cfg->db, .root = cfg->root, .user_db = cfg->user_db, .no_user_tier = !cfg->user_db,
                            .registry = cfg->registry, .registry_timeout_ms = cfg->registry_timeout_ms,
                            .identity = cfg->identity, .model = v->model, .read_only = true};
    hx_error err = {0};
    return hx_session_open(ses, &sc, &err) ? (snprintf(msg, cap, "%s", err.message), -1) : 0;
}

/* POST /search: seed 002's SearchRequest. The table checks it as the search tool's family would
 * (search_type is the tool's mode, results are chunks). */
static const mcp_arg rest_search_args[] = {
    {"query", MCP_STRING, .required = true, AT_LEAST(1), .description = "Search query text."},
    {"search_type", MCP_STRING, .choices = rest_search_types, .def = "hybrid", .as = "mode",
     .description = "vector (also semantic), keyword or hybrid."},
    {"top_k", MCP_INTEGER, RANGE(1, 50), .def = "5", .description = "Number of results (chunks)."},
    {"min_score", MCP_NUMBER, RANGE(0, 1),
     .description = "Minimum relevance 0..1; default hyrax's floor (search's min_score)."},
    {"filters", MCP_FILTERS, AT_MOST(32), .description = "Metadata filters, e.g. {\"sig_name\": \"sig-auth\"}."},
    {"group_by", .fixed = "\"chunk\""},
    {.name = NULL},
};

/* One search result in seed 002's SearchResultModel; generation: the commit that answered it. */
static void write_rest_result(hx_json_writer *w, const hx_result *r, uint64_t generation)
{
    char id[32];
    snprintf(id, sizeof id, "%u", r->chunk_id);
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "chunk_id");
    hx_json_write_cstr(w, id);
    hx_json_write_key(w, "kep_id");   /* seed 002's name for the document: its path here */
    hx_json_write_cstr(w, r->path);
    hx_json_write_key(w, "doc_id");
    hx_json_write_uint(w, r->doc_id);
    hx_json_write_key(w, "text");
    hx_json_write_str(w, r->text, r->text_len);
    hx_present_score(w, "score", r->score);
    hx_json_write_key(w, "metadata");
    hx_present_meta(w, r->meta, r->n_meta);
    hx_json_write_key(w, "chunk_index");
    hx_json_write_uint(w, r->chunk_index);
    hx_present_citation(w, r, generation);
    hx_json_write_obj_end(w);
}

/* The answer of a search that ran: {results, query, search_type, total_results, search_time_ms}. */
static void write_rest_search(hx_json_writer *w, const char *query, const char *search_type,
                              const hx_session_answer *a)
{
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "results");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < a->results.n; i++)
        write_rest_result(w, &a->results.v[i], hx_session_answer_generation(a, &a->results.v[i]));
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "query");
    hx_json_write_cstr(w, query);
    hx_json_write_key(w, "search_type");
    hx_json_write_cstr(w, search_type);
    hx_json_write_key(w, "total_results");
    hx_json_write_uint(w, a->results.n);
    hx_json_write_key(w, "search_time_ms");
    hx_json_write_double(w, a->results.search_ms);
    hx_json_write_obj_end(w);
}

static void route_search(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    hx_json_doc *doc = NULL;
    hx_filter_set fs = {0};
    char msg[1024];
    hx_error err = {0};
    double t0 = mono_s();
    if (hx_json_parse(&doc, req->body ? req->body : "", req->body_len, NULL, &err)) {
        snprintf(msg, sizeof msg, "the body must be a JSON object: %s", err.message);
        reply_error(r, 400, msg);
        hx_json_doc_free(doc);
        return;
    }
    mcp_args a = {rest_search_args, hx_json_doc_root(doc)};
    if (mcp_args_check(rest_search_args, a.args, msg, sizeof msg)) {
        reply_error(r, 400, msg);
    } else if (rest_session(h, v, ses, msg, sizeof msg)) {
        reply_error(r, 503, msg);
    } else if (mcp_arg_filters(&a, "filters", &fs, &err)) {
        reply_error(r, 400, err.message);
    } else {
        const char *query = mcp_arg_str(&a, "query"), *search_type = mcp_arg_str(&a, "search_type");
        double min_score = mcp_arg_num(&a, "min_score");
        hx_session_query q;
        hx_session_query_init(&q, query);
        hx_mode_parse(search_type, &q.opts.mode);   /* the table checked the name */
        q.opts.k = (uint32_t)mcp_arg_int(&a, "top_k");
        q.opts.group = HX_GROUP_CHUNK;
        q.opts.snippets = 0;   /* seed 002's results carry the chunk's text, no snippet */
        q.opts.filters = fs.v;
        q.opts.n_filters = fs.n;
        if (!isnan(min_score))
            q.opts.min_score = (float)min_score;
        hx_session_answer ans;
        int rc = hx_session_search(*ses, &q, &ans, &err);
        if (rc) {
            reply_error(r, rc == HX_ENOTFOUND ? 503 : 400, err.message);
        } else {
            hx_json_writer w;
            hx_json_writer_init(&w);
            write_rest_search(&w, query, search_type, &ans);
            reply_json(r, 200, &w);
            hx_json_writer_free(&w);
            hx_stats_note_query(h->mcp.stats, query);
            hx_session_answer_free(&ans);
        }
        /* counted as the search tool over HTTP, as it always was (metrics.h, stats.h) */
        double s = mono_s() - t0;
        hx_metrics_observe(h->metrics, HX_METRIC_TOOL, "search", "http", NULL, s);
        hx_stats_note_latency(h->mcp.stats, "search", "http", s * 1e3);
    }
    hx_filter_set_free(&fs);
    hx_json_doc_free(doc);
}

/* The project index's counts through the thread's session, when the model has loaded (never waits). */
static bool index_stats(http_server *h, mcp_session *v, hx_session **ses, hx_index_stats *st, char *msg, size_t cap)
{
    hx_session_info info;
    if (!mcp_model_ready(v) || rest_session(h, v, ses, msg, cap) || hx_session_status(*ses, &info, NULL))
        return false;
    if (!info.project.present)
        return snprintf(msg, cap, "%s", info.project.reason), false;
    *st = info.project.stats;
    return true;
}

/* GET /health: answers at once, also while the model loads (status "starting"). */
static void route_health(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st = {0};
    char msg[512];
    bool ready = mcp_model_ready(v), have = ready && index_stats(h, v, ses, &st, msg, sizeof msg);
    hx_json_writer w;
    hx_json_writer_init(&w);
    hx_json_write_obj_begin(&w);
    hx_json_write_key(&w, "status");
    hx_json_write_cstr(&w, !ready ? "starting" : have ? "healthy" : "no_index");
    hx_json_write_key(&w, "indexed_documents");
    hx_json_write_uint(&w, st.documents);
    hx_json_write_key(&w, "indexed_chunks");
    hx_json_write_uint(&w, st.live_chunks);
    hx_json_write_key(&w, "model_loaded");
    hx_json_write_bool(&w, ready);
    hx_json_write_key(&w, "activity");   /* stats.h: latency, hot queries, updates and lag that last */
    hx_json_write_obj_begin(&w);
    hx_activity act;
    if (!hx_stats_activity(h->mcp.stats, h->mcp.cfg->db, h->mcp.cfg->identity, &act, NULL))
        hx_present_activity(&w, &act);
    hx_activity_free(&act);
    hx_json_write_obj_end(&w);
    hx_json_write_obj_end(&w);
    reply_json(r, 200, &w);
    hx_json_writer_free(&w);
}

/* GET /stats: seed 002's StatsResponse (total_keps is the document count). 503 until the index
 * can be read. */
static void route_stats(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st;
    char msg[512] = "the index cannot be read";
    if (mcp_wait_model(v, msg, sizeof msg) || !index_stats(h, v, ses, &st, msg, sizeof msg)) {
        reply_error(r, 503, msg);
        return;
    }
    hx_json_writer w;
    hx_json_writer_init(&w);
    hx_json_write_obj_begin(&w);
    hx_json_write_key(&w, "total_keps");
    hx_json_write_uint(&w, st.documents);
    hx_json_write_key(&w, "total_documents");
    hx_json_write_uint(&w, st.documents);
    hx_json_write_key(&w, "total_chunks");
    hx_json_write_uint(&w, st.live_chunks);
    hx_json_write_key(&w, "total_vectors");
    hx_json_write_uint(&w, st.live_chunks);
    hx_json_write_key(&w, "embedding_model");
    hx_json_write_cstr(&w, st.model);
    hx_json_write_key(&w, "embedding_dimension");
    hx_json_write_int(&w, st.dim);
    hx_json_write_key(&w, "search_modes");
    hx_json_write_json(&w, "[\"vector\",\"keyword\",\"hybrid\"]", 29);
    hx_json_write_key(&w, "fusion_algorithm");
    hx_json_write_cstr(&w, "Reciprocal Rank Fusion (RRF)");
    hx_json_write_key(&w, "generation");
    hx_json_write_uint(&w, st.generation);
    hx_json_write_key(&w, "file_bytes");
    hx_json_write_uint(&w, st.file_bytes);
    hx_json_write_obj_end(&w);
    reply_json(r, 200, &w);
    hx_json_writer_free(&w);
}

/* GET /metrics: the histograms, then gauges of the index, the model and the connections. */
static void route_metrics(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st = {0};
    char msg[512];
    bool ready = mcp_model_ready(v), have = ready && index_stats(h, v, ses, &st, msg, sizeof msg);
    pthread_mutex_lock(&h->lock);
    size_t open = h->n_conns;
    pthread_mutex_unlock(&h->lock);
    pthread_mutex_lock(&h->mcp.lock);
    double pending = (double)h->mcp.queued_jobs + (h->mcp.running != NULL);
    pthread_mutex_unlock(&h->mcp.lock);
    int rc = hx_metrics_write(h->metrics, &r->body, &r->len, &r->cap);
    struct {
        const char *name, *help;
        double value;
    } g[] = {
        {"hyrax_model_loaded", "1 once the embedding model has loaded", ready},
        {"hyrax_index_documents", "Documents in the index head", (double)st.documents},
        {"hyrax_index_chunks", "Live chunks in the index head", (double)st.live_chunks},
        {"hyrax_index_file_bytes", "Size of the index file", (double)st.file_bytes},
        {"hyrax_index_generation", "Commit generation of the index head", (double)st.generation},
        {"hyrax_http_connections", "Open HTTP connections", (double)open},
        {"hyrax_write_jobs_pending", "Write jobs queued or running", pending},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0] && !rc; i++)
        if (have || i == 0 || i >= 5)
            rc = hx_metrics_gauge(&r->body, &r->len, &r->cap, g[i].name, g[i].help, g[i].value);
    hx_buf lasting = {0};   /* what outlives this process: stats.h, kept beside the index */
    if (!rc && !(rc = hx_stats_prometheus(h->mcp.stats, h->mcp.cfg->db, h->mcp.cfg->identity, &lasting, NULL)))
        rc = hx_metrics_append(&r->body, &r->len, &r->cap, (const char *)lasting.data, lasting.len);
    hx_buf_free(&lasting);
    if (rc) {
        reply_error(r, 500, "out of memory writing the metrics");
        return;
    }
    r->status = 200;
    r->type = "text/plain; version=0.0.4; charset=utf-8";
}

/* === MCP Streamable HTTP === */

static const char *const http_versions[] = {"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", NULL};

/* The HTTP status of a JSON-RPC answer: 400 for malformed requests and envelopes, 404 for an
 * unknown method, 200 otherwise (errors of a tool are results). */
static int rpc_status(const char *text, size_t len)
{
    hx_json_doc *doc = NULL;
    int64_t code = 0;
    if (!memmem(text, len, "\"error\"", 7) || hx_json_parse(&doc, text, len, NULL, NULL))
        return 200;
    hx_json_num_int64(hx_json_obj_get(hx_json_obj_get(hx_json_doc_root(doc), "error"), "code"), &code, NULL);
    hx_json_doc_free(doc);
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
static void await_job(http_server *h, const conn *c, mcp_sink *sink, bool stream, reply *r)
{
    char *buf = NULL;
    size_t len = 0, cap = 0, sent = 0;
    bool gone = false;
    if (stream) {
        char head[512];
        bool last = c->eof && c->used == c->len;
        size_t n = hx_http_head(head, sizeof head, 200, "text/event-stream", (size_t)-1, c->req.keep_alive && !last,
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
static int session_of(const hx_http_request *req, char out[MCP_SESSION_MAX + 1])
{
    size_t n;
    const char *v = hx_http_header_get(req, "mcp-session-id", &n);
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

/* A write job's answer to await on an awaiter thread: the request's sink (the job borrows it, and its
 * session, until the sink is done) and what the answer needs. Owned by the awaiter. */
typedef struct pending {
    http_server *h;
    conn *c;
    mcp_sink sink;
    char session[MCP_SESSION_MAX + 1];
    bool stream;                  /* the answer goes out as server-sent events */
    double t0;                    /* when the request was taken, for its duration in /metrics */
} pending;

/* Answers a POST /mcp in r, or, for a write tool whose job was queued, sets *later and leaves r. */
static void route_mcp(http_server *h, mcp_session *v, conn *c, double t0, reply *r, pending **later)
{
    const hx_http_request *req = &c->req;
    size_t n;
    const char *type = hx_http_header_get(req, "content-type", &n);
    if (!type || n < 16 || strncasecmp(type, "application/json", 16) || (n > 16 && type[16] != ';' && type[16] != ' ')) {
        reply_error(r, 415, "POST /mcp takes one JSON-RPC message with Content-Type: application/json");
        return;
    }
    if (!accepts(req, "application/json") && !accepts(req, "text/event-stream")) {
        reply_error(r, 406, "Accept must allow application/json or text/event-stream");
        return;
    }
    const char *pv = hx_http_header_get(req, "mcp-protocol-version", &n);
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
    hx_rpc_msg msg;
    hx_json_writer out;
    hx_json_writer_init(&out);
    if (hx_rpc_msg_parse(&msg, req->body ? req->body : "", req->body_len, NULL, NULL)) {
        reply_error(r, 500, "out of memory");
        return;
    }
    const hx_json_val *meta = hx_json_obj_get(msg.params, "_meta");
    size_t ev_len = 0, m_len = 0;
    const char *ev = hx_json_str(hx_json_obj_get(meta, "io.modelcontextprotocol/protocolVersion"), &ev_len);
    const char *mh = hx_http_header_get(req, "mcp-method", &m_len);
    if (msg.kind == HX_RPC_INVALID || msg.kind == HX_RPC_BATCH) {
        hx_rpc_write_error(&out, msg.id_json, msg.id_len, msg.code, msg.message, NULL, 0, NULL);
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
        hx_rpc_write_error(&out, msg.id_json, msg.id_len, -32020,
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
            p->stream = hx_json_obj_get(meta, "progressToken") && accepts(req, "text/event-stream");
        } else {
            reply_json(r, rpc_status(out.buf, out.len), &out);
            if (r->status == 200 && !strcmp(msg.method, "initialize") && !session[0])
                new_session(r);
            mcp_sink_free(&p->sink);
            free(p);
            *later = NULL;
        }
    }
    hx_json_writer_free(&out);
    hx_rpc_msg_free(&msg);
}

/* === Routing === */

typedef struct route {
    const char *path, *method;
    void (*run)(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r);
} route;

static const route routes[] = {
    {"/search", "POST", route_search}, {"/health", "GET", route_health}, {"/stats", "GET", route_stats},
    {"/metrics", "GET", route_metrics}, {"/mcp", "POST", NULL},   /* route_mcp: needs the connection */
};
#define N_ROUTES (sizeof routes / sizeof routes[0])

/* Counts the request in /metrics and writes r on c (unless it went out as a stream); false when
 * the connection must close. Frees r's body. */
static bool finish(http_server *h, conn *c, const char *route_path, reply *r, double t0)
{
    const hx_http_request *req = &c->req;
    bool keep = req->keep_alive && !r->close;
    bool last = c->eof && c->used == c->len;   /* the client sent all it will, and this is the end of it */
    char code[8];
    snprintf(code, sizeof code, "%d", r->status);
    /* counted before the answer leaves, so a client that has it sees it in /metrics */
    hx_metrics_observe(h->metrics, HX_METRIC_HTTP, route_path, req->method, code, mono_s() - t0);
    bool ok = r->streamed ? !r->close : reply_send(c->fd, r, keep && !last) == 0;
    free(r->body);
    return ok && keep;
}

/* Answers c's parsed request and writes the answer; false when the connection must close. A write
 * tool's request whose job was queued sets *later instead (an awaiter answers it). */
static bool answer(http_server *h, mcp_session *v, hx_session **ses, conn *c, pending **later)
{
    double t0 = mono_s();
    const hx_http_request *req = &c->req;
    size_t plen = req->target_len;
    const char *q = memchr(req->target, '?', plen);
    if (q)
        plen = (size_t)(q - req->target);
    const route *rt = NULL;
    for (size_t i = 0; i < N_ROUTES && !rt; i++)
        if (strlen(routes[i].path) == plen && !memcmp(routes[i].path, req->target, plen))
            rt = &routes[i];
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
        reply_error(&r, 404, "no such route: POST /search, GET /health, GET /stats, GET /metrics, POST /mcp");
    } else if (strcmp(req->method, rt->method)) {
        reply_error(&r, 405, "method not allowed on this route (see Allow)");
        snprintf(r.extra, sizeof r.extra, "Allow: %s\r\n", rt->method);
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
    hx_http_request_free(&c->req);
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
    int rc = hx_http_parse(c->in, c->len, &h->lim, &c->req, &c->used, &status, &err);
    if (rc == HX_ETRUNCATED) {
        if (c->req.head_done && c->req.expect_continue && !c->continue_sent && !c->eof) {
            c->continue_sent = true;
            send_all(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
        }
        hx_http_request_free(&c->req);
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
        hx_http_request_free(&c->req);
        hx_metrics_observe(h->metrics, HX_METRIC_HTTP, "other", "other", status == 413 ? "413" : status == 431 ? "431"
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
 * connections may hold together (hx_http_config max_buffered); NULL, or the refusal to send. */
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

int hx_http_serve(const hx_mcp_config *cfg, const hx_http_config *http, hx_error *err)
{
    if (cfg->stop_fd < 0)
        return hx_error_set(err, HX_EINVAL, -1, "the HTTP server needs a stop descriptor");
    for (size_t i = 0; i < http->n_allow_hosts; i++) {
        hx_http_authority a;
        const char *name = http->allow_hosts[i];
        if (hx_http_host_parse(name, strlen(name), &a) || a.host_len != strlen(name))
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
    h->lim = hx_http_limits_fill(NULL);
    h->max_buffer = h->lim.max_head + 2 * h->lim.max_body + 65536;   /* chunked framing costs bytes too */
    h->listen_fd = -1;
    h->wake[0] = h->wake[1] = -1;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cv, NULL);
    int rc = 0, n_threads = threads_wanted(http->threads), started = 0;
    pthread_t *threads = hx_calloc((size_t)n_threads, sizeof *threads);
    h->conns = hx_calloc((size_t)h->hc.max_connections, sizeof *h->conns);
    if (!threads || !h->conns || hx_metrics_new(&h->metrics, err))
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
    hx_metrics_free(h->metrics);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->lock);
    free(h->conns);
    free(threads);
    free(h);
    return rc;
}
