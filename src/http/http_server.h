/* http_server.h: `hyrax serve --http ADDR`: the MCP server's tools, seed 002's REST routes and
 * Prometheus metrics over HTTP/1.1 (`hyrax help http`). The routes, limits and timeouts are
 * listed in http_server.c's opening comment; the framing rules in http.h. */
#ifndef HX_HTTP_SERVER_H
#define HX_HTTP_SERVER_H

#include "mcp.h"

typedef struct hxi_http_config {
    const char *listen;          /* "127.0.0.1:8000", "[::1]:8000", "0.0.0.0:8000"; port 0 picks one */
    const char *token;           /* bearer token every request must carry; NULL: none, and then only a
                                    loopback address may be bound */
    const char *const *allow_hosts;   /* more names a request's Host (and Origin) may give, besides
                                         localhost, 127.0.0.1, [::1] and the address connected to;
                                         borrowed for the server's life */
    size_t n_allow_hosts;
    int threads;                 /* request threads (0: one per core, 4 to 16) */
    int max_connections;         /* open connections (0: 256); one more is answered 503 and closed */
    int idle_timeout_ms;         /* a kept-alive connection with no request (0: 30 s) */
    int read_timeout_ms;         /* a request begun must arrive whole within this (0: 10 s); else 408 */
    size_t max_buffered;         /* request bytes all connections may hold together (0: 256 MiB); a
                                    read that needs more is answered 503 and its connection closed */
    /* Called once the socket listens, with the address bound ("127.0.0.1:8000"); NULL for none. */
    void (*on_listen)(void *ctx, const char *addr);
    void *ctx;
} hxi_http_config;

/* Serves until cfg->stop_fd is readable (required here). A write in progress is then abandoned
 * uncommitted, as in hxi_mcp_serve. 0, or an HX_E* code for a socket that cannot be bound or a
 * non-loopback address without a token (HX_EPERM). */
int hxi_http_serve(const hxi_mcp_config *cfg, const hxi_http_config *http, hx_error *err);

#endif
