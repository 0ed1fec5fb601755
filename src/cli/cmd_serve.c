/* cmd_serve.c: `hyrax serve`, the MCP server on stdio or HTTP (src/server): its help text and
 * run function, which turns the options into the server's configuration. */
#include "cli.h"
#include "http_server.h"
#include "mcp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* === serve === */

const char serve_about[] =
    "Runs a Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one message per line; logs\n"
    "on stderr), or with --http HOST:PORT an HTTP/1.1 server: REST (/search, /health, /stats),\n"
    "/metrics and MCP Streamable HTTP on /mcp. Tools listed by default (--tools core): search,\n"
    "get_context, find_similar, list_documents, get_document, document_status, reindex and\n"
    "index_health; --tools all adds add_document, delete_document, create_baseline, audit_log,\n"
    "publish, the conversation memory's record_turn, get_session, search_history and\n"
    "list_sessions, and other servers' names for the search tools (semantic_search, ...). Every\n"
    "answer fits max_bytes (default 32768, about 8,000 tokens): results past it are left out\n"
    "whole and next_cursor continues.\n"
    "--tenant T [--user U] fixes the reader identity for the server's life; --watch follows the root.\n";

/* serve --http: the address bound, once, on stderr (port 0 picked one). */
static void on_listen(void *ctx, const char *addr)
{
    (void)ctx;
    fprintf(stderr, "hyrax serve: listening on http://%s\n", addr);
}

/* The bearer token: the first line of path, without its line end; 0 or 1 after a message. */
static int read_token(const char *path, char *tok, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f || !fgets(tok, (int)cap, f)) {
        fprintf(stderr, "hyrax serve: cannot read --token-file %s: %s\n", path, f ? "it is empty" : strerror(errno));
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    tok[strcspn(tok, "\r\n")] = 0;
    if (strlen(tok) < 16) {
        fprintf(stderr, "hyrax serve: the token in %s is shorter than 16 characters\n", path);
        return 1;
    }
    return 0;
}

int cmd_serve(const cli_args *a)
{
    hxi_mcp_config cfg = {.weights = opt_str(a, "--model"), .read_only = opt_str(a, "--read-only") != NULL,
                         .threads = (int)opt_long(a, "--threads", 0), .stop_fd = -1};
    hx_identity id;
    if (identity_opt(a, "serve", &id, &cfg.identity))
        return 2;
    cfg.memory_limits.per_session = (uint32_t)opt_long(a, "--memory-per-session", 0);
    cfg.memory_limits.total = (uint32_t)opt_long(a, "--memory-total", 0);
    cfg.memory_limits.identities = (uint32_t)opt_long(a, "--memory-identities", 0);
    cfg.watch = opt_str(a, "--watch") != NULL || opt_str(a, "--watch-poll") != NULL;
    cfg.watch_poll_ms = (int)opt_long(a, "--watch-poll", 0);
    cfg.tools = opt_str(a, "--tools");
    const char *root_arg = opt_str(a, "--root") ? opt_str(a, "--root") : ".";
    char root[4096];
    if (!realpath(root_arg, root)) {
        fprintf(stderr, "hyrax serve: cannot resolve --root %s: %s\n", root_arg, strerror(errno));
        return 1;
    }
    cfg.root = root;
    cfg.db = db_opt_from(a, opt_str(a, "--root") ? root : NULL);   /* serve --root F: F's index */
    char user_db[4096];   /* the user tier, searched with the project (`hyrax help tiers`) */
    cfg.user_db = hx_tier_user_path(user_db, sizeof user_db, NULL) == 0 ? user_db : NULL;
    cfg.registry = opt_str(a, "--registry");
    cfg.registry_timeout_ms = (int)opt_long(a, "--registry-timeout", 0);
    if (!cfg.read_only && make_db_folder("serve", cfg.db))
        return 1;
    int stop_pipe[2];   /* SIGTERM and SIGINT write to [1], the server reads [0] */
    if (pipe(stop_pipe) != 0) {
        fprintf(stderr, "hyrax serve: pipe: %s\n", strerror(errno));
        return 1;
    }
    cfg.stop_fd = stop_pipe[0];
    catch_stop_signals(stop_pipe[1]);
    hx_error err = {0};
    char token[512];
    hxi_http_config http = {.listen = opt_str(a, "--http"), .on_listen = on_listen,
                           .max_buffered = (size_t)opt_long(a, "--http-buffer", 0) << 20};
    const char **allow = hx_calloc(a->n + 1, sizeof *allow);   /* borrowed from argv */
    for (size_t pos = 0; allow && (allow[http.n_allow_hosts] = opt_next(a, "--allow-host", &pos));)
        http.n_allow_hosts++;
    http.allow_hosts = allow;
    int rc = 0;
    if (!allow) {
        fprintf(stderr, "hyrax serve: out of memory\n");
        rc = -1;
    } else if ((opt_str(a, "--token-file") || http.n_allow_hosts) && !http.listen) {
        fprintf(stderr, "hyrax serve: %s goes with --http\n", http.n_allow_hosts ? "--allow-host" : "--token-file");
        rc = -1;
    } else if (opt_str(a, "--token-file") && read_token(opt_str(a, "--token-file"), token, sizeof token)) {
        rc = -1;
    } else {
        http.token = opt_str(a, "--token-file") ? token : NULL;
        rc = http.listen ? hxi_http_serve(&cfg, &http, &err) : hxi_mcp_serve(0, 1, &cfg, &err);
        if (rc)
            fprintf(stderr, "hyrax serve: %s\n", err.message);
    }
    free(allow);
    close(stop_pipe[0]);
    close(stop_pipe[1]);
    return rc ? 1 : 0;
}
