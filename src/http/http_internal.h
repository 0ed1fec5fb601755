/* http_internal.h: what the files of `hyrax serve --http` share (http_server.c: connections, checks,
 * routing and the loop; http_reply.c: the answers; http_rest.c: the REST routes; http_mcp.c: POST
 * /mcp). Not for other surfaces. */
#ifndef HX_HTTP_INTERNAL_H
#define HX_HTTP_INTERNAL_H

#include "http_server.h"
#include "http.h"
#include "mcp_state.h"

#include <netinet/in.h>
#include <stdint.h>
#include <time.h>

static inline int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline double mono_s(void)
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
    hxi_http_request req;      /* the request a thread answers (borrows from in) */
    size_t used;              /* its bytes */
    struct conn *next;        /* work or done queue */
} conn;

typedef struct http_server {
    const hxi_mcp_config *cfg;
    hxi_http_config hc;
    hxi_http_limits lim;
    size_t max_buffer;        /* bytes a connection may hold unparsed */
    size_t buffered;          /* bytes of every connection's buffer (their capacity); loop thread only */
    mcp_server mcp;
    hxi_metrics *metrics;
    int listen_fd, wake[2];
    conn **conns;             /* owned, n_conns of them */
    size_t n_conns;
    pthread_mutex_t lock;     /* the queues and stopping */
    pthread_cond_t cv;
    conn *work_head, *work_tail, *done_head;
    int awaiters;             /* awaiter threads running (at most the write jobs queued and running) */
    bool stopping;
} http_server;

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

/* http_reply.c: whether the server stops; all of buf on fd (-1 when the client is gone); bytes,
 * a finished JSON writer or a {"detail", "status"} error as r's body (r owns it); r on fd. */
bool stopping(http_server *h);
int send_all(int fd, const char *buf, size_t len);
int reply_put(reply *r, const char *data, size_t n);
void reply_json(reply *r, int status, hxi_json_writer *w);
void reply_error(reply *r, int status, const char *detail);
int reply_send(int fd, const reply *r, bool keep_alive);

/* http_rest.c: the REST routes, answered in r through the request thread's session *ses (opened on
 * first use, closed by the request thread). */
void route_search(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r);
void route_health(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r);
void route_stats(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r);
void route_metrics(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r);

/* http_mcp.c: a write job's answer awaited into r (or streamed); POST /mcp answered in r, or
 * *later set (owned by the awaiter then) when a write job was queued. */
void await_job(http_server *h, const conn *c, mcp_sink *sink, bool stream, reply *r);
void route_mcp(http_server *h, mcp_session *v, conn *c, double t0, reply *r, pending **later);

#endif
