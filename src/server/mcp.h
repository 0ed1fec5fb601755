/* mcp.h: `hyrax serve`, a Model Context Protocol server over JSON-lines stdio (DESIGN.md "MCP
 * server"). Speaks JSON-RPC 2.0 through rpc.h, one message per line; logs go to stderr only and
 * nothing but JSON ever reaches the output descriptor. */
#ifndef HX_MCP_H
#define HX_MCP_H

#include "hyrax.h"
#include "memory.h"

typedef struct hx_mcp_config {
    const char *db;            /* index file */
    const char *root;          /* root for a new index (absolute, resolved) */
    const char *weights;       /* weights file */
    int read_only;             /* refuse every write tool */
    int threads;               /* embedding threads for writes (0 = one per core) */
    int stop_fd;               /* readable when the server must stop (SIGTERM); -1 for none */
    /* Conversation memory (mcp_memory.c): the reader identity turns are stamped with and read back
     * by (NULL = ""; the tenant part sets it once at start), and the retention limits. */
    const char *tenant, *user;
    hx_memory_limits memory_limits;   /* zeros: memory.h's defaults */
    /* serve --watch (watch.h): follow the root and reindex what changes; watch_poll_ms > 0 polls
     * the tree that often instead of using inotify */
    int watch;
    int watch_poll_ms;
} hx_mcp_config;

/* Serves requests from in_fd, answering on out_fd, until end of input or stop_fd. Writes that
 * were requested before end of input are finished first; on stop_fd the server returns at
 * once (a write in progress is abandoned uncommitted, so the index keeps its last commit). */
int hx_mcp_serve(int in_fd, int out_fd, const hx_mcp_config *cfg, hx_error *err);

#endif
