/* mcp.h: `hyrax serve`, a Model Context Protocol server over JSON-lines stdio (DESIGN.md "MCP
 * server"). Speaks JSON-RPC 2.0 through rpc.h, one message per line; logs go to stderr only and
 * nothing but JSON ever reaches the output descriptor. */
#ifndef HX_MCP_H
#define HX_MCP_H

#include "hyrax.h"

typedef struct hxi_mcp_config {
    const char *db;            /* index file */
    const char *user_db;       /* the user tier's index file (hyrax.h hx_tier_user_path), NULL: none */
    const char *root;          /* root for a new index (absolute, resolved) */
    const char *weights;       /* weights file */
    int read_only;             /* refuse every write tool */
    int threads;               /* embedding threads for writes (0 = one per core) */
    int stop_fd;               /* readable when the server must stop (SIGTERM); -1 for none */
    const hx_identity *identity;   /* the reader's, fixed for the server's life (`hyrax help
                                      tenants`); NULL: none, every document is seen.
                                      Borrowed for the duration of hxi_mcp_serve */
    const char *registry;      /* the registry tier (`hyrax help registry`): its URL; NULL: $HYRAX_REGISTRY,
                                  else libpq's own variables for publish and search {source:
                                  registry} (hyrax.h hx_session_config.registry_defaults) */
    int registry_timeout_ms;   /* a query's wait for the registry; 0: HX_REGISTRY_TIMEOUT_MS */
    /* Conversation memory (mcp_tool_memory.c): turns are stamped with the reader identity and read back
     * by it; the retention limits. */
    hx_memory_limits memory_limits;   /* zeros: memory.h's defaults */
    /* serve --watch (hyrax.h hx_watch): follow the root and reindex what changes; watch_poll_ms > 0 polls
     * the tree that often instead of using inotify */
    int watch;
    int watch_poll_ms;
    /* serve --tools: the tools listed and served, "core" (NULL: the same), "all", or a comma list
     * of tool names and those two words (mcp_tools.c) */
    const char *tools;
} hxi_mcp_config;

/* Serves requests from in_fd, answering on out_fd, until end of input or stop_fd. Writes that
 * were requested before end of input are finished first; on stop_fd the server returns at
 * once (a write in progress is abandoned uncommitted, so the index keeps its last commit). */
int hxi_mcp_serve(int in_fd, int out_fd, const hxi_mcp_config *cfg, hx_error *err);

#endif
