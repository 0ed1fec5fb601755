/* mcp.c: the MCP lifecycle and message loop of `hyrax serve`: initialize with version
 * negotiation (every request but ping before it is refused), ping, server/discover, tools/list
 * and tools/call (mcp_tools.c), resources (mcp_resources.c), notifications/cancelled; starting and
 * stopping the server. The model loader, readers and read contexts are mcp_state.c's, write jobs
 * mcp_jobs.c's. Only
 * JSON reaches out_fd, one message per line, written whole under out_lock and abandoned when
 * stop_fd fires. Spec: DESIGN.md "MCP server" and the MCP specification (2024-11-05 .. 2025-11-25). */
#include "mcp_tools.h"
#include "present.h"
#include "rpc.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
/* Protocol 2026-07-28: no initialize; each request names its version and the client's capabilities
 * in params._meta under these keys, and every result says resultType and the server. */
#define MODERN_VERSION "2026-07-28"
#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define MCP_ERR_UNSUPPORTED_VERSION (-32022)
static const char capabilities[] = "{\"tools\":{\"listChanged\":false},\"resources\":{\"listChanged\":false}}";

/* === Methods === */

static const char instructions[] =
    "hyrax searches a local folder of documents. Use search for ranked passages with "
    "citations, get_context for a ready-to-use context block within a token budget, "
    "find_similar for related passages, and the document tools to list and inspect "
    "documents and keep the index up to date. Paths are relative to the indexed root. "
    "Answers fit max_bytes; next_cursor continues one that did not.";

/* What initialize and server/discover both tell: capabilities, serverInfo, instructions. */
static void write_server_card(hxi_json_writer *w)
{
    hxi_json_write_key(w, "capabilities");
    hxi_json_write_json(w, capabilities, sizeof capabilities - 1);
    hxi_json_write_key(w, "serverInfo");
    mcp_write_server_info(w);
    hxi_json_kv_cstr(w, "instructions", instructions);
}

static int write_initialize(void *ctx, hxi_json_writer *w, hx_error *err)
{
    const mcp_session *s = ctx;
    (void)err;
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "protocolVersion", s->protocol);
    write_server_card(w);
    hxi_json_write_obj_end(w);
    return 0;
}

static int initialize(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    const char *asked = hxi_json_str(hxi_json_obj_get(msg->params, "protocolVersion"), NULL);
    const char *chosen = protocol_versions[0];
    for (size_t i = 0; asked && i < sizeof protocol_versions / sizeof *protocol_versions; i++)
        if (!strcmp(asked, protocol_versions[i]))
            chosen = protocol_versions[i];
    snprintf(s->protocol, sizeof s->protocol, "%s", chosen);
    s->initialized = true;
    return hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_initialize, s, NULL);
}

/* server/discover (2026-07-28): the versions a per-request client may name, capabilities and
 * instructions. Answered in every protocol version and before initialize. */
static int write_discover(void *ctx, hxi_json_writer *w, hx_error *err)
{
    (void)ctx;
    (void)err;
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "supportedVersions");
    hxi_json_write_arr_begin(w);
    hxi_json_write_cstr(w, MODERN_VERSION);
    hxi_json_write_arr_end(w);
    write_server_card(w);
    mcp_write_result_tail(w, true, 0);
    hxi_json_write_obj_end(w);
    return 0;
}

/* An empty result ({} or, in 2026-07-28, its tail alone). */
static int write_empty(void *ctx, hxi_json_writer *w, hx_error *err)
{
    (void)err;
    hxi_json_write_obj_begin(w);
    mcp_write_result_tail(w, ((const mcp_session *)ctx)->modern, -1);
    hxi_json_write_obj_end(w);
    return 0;
}

/* Sets s->modern from params._meta: a request that names protocol 2026-07-28 there (with the
 * client's capabilities, which that version requires) needs no initialize, and its result says
 * resultType. 0, or -1 with the JSON-RPC error for a named version hyrax does not speak. */
static int read_envelope(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    const hxi_json_val *meta = hxi_json_obj_get(msg->params, "_meta");
    const hxi_json_val *v = hxi_json_obj_get(meta, META_VERSION);
    s->modern = false;
    if (!v)
        return 0;
    size_t n;
    const char *version = hxi_json_str(v, &n);
    if (!version || !hxi_json_obj_get(meta, META_CAPABILITIES)) {
        hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                            "params._meta must carry " META_VERSION " (a string) and " META_CAPABILITIES, NULL, 0,
                            NULL);
        return -1;
    }
    if (n != strlen(MODERN_VERSION) || memcmp(version, MODERN_VERSION, n)) {
        hxi_json_writer d;
        hxi_json_writer_init(&d);
        hxi_json_write_obj_begin(&d);
        hxi_json_write_key(&d, "supported");
        hxi_json_write_json(&d, "[\"" MODERN_VERSION "\"]", sizeof MODERN_VERSION + 3);
        hxi_json_write_key(&d, "requested");
        hxi_json_write_str(&d, version, n);
        hxi_json_write_obj_end(&d);
        hxi_rpc_write_error(out, msg->id_json, msg->id_len, MCP_ERR_UNSUPPORTED_VERSION,
                            "Unsupported protocol version (initialize offers 2024-11-05 to 2025-11-25)", d.buf, d.len,
                            NULL);
        hxi_json_writer_free(&d);
        return -1;
    }
    s->modern = true;
    return 0;
}

/* One message: lifecycle, discovery, tools/list, tools/call, cancellation. sink: where a write
 * job answers, and whose session a cancellation names (NULL: stdio, out_fd). */
static int handle_msg(mcp_session *s, const hxi_rpc_msg *msg, mcp_sink *sink, hxi_json_writer *out)
{
    if (msg->kind == HX_RPC_NOTIFICATION) {
        if (!strcmp(msg->method, "notifications/cancelled") && msg->params)
            mcp_cancel_request(s->server, msg->params, sink);
        return 0;   /* notifications/initialized and others need nothing */
    }
    if (msg->kind != HX_RPC_REQUEST)
        return 0;   /* responses to requests we never send */
    char m[256];
    if (read_envelope(s, msg, out))
        return 0;
    if (!strcmp(msg->method, "initialize"))
        return initialize(s, msg, out);
    if (!strcmp(msg->method, "server/discover"))
        return hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_discover, s, NULL);
    if (!strcmp(msg->method, "ping"))
        return hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_empty, s, NULL);
    if (!s->initialized && !s->modern) {
        snprintf(m, sizeof m, "Server not initialized: send initialize before %.64s (only ping and server/discover "
                 "may come first), or name protocol " MODERN_VERSION " in params._meta", msg->method);
        return hxi_rpc_write_error(out, msg->id_json, msg->id_len, MCP_ERR_NOT_INITIALIZED, m, NULL, 0, NULL);
    }
    if (!strcmp(msg->method, "tools/list"))
        return hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, mcp_write_tools_list, s, NULL);
    if (!strcmp(msg->method, "tools/call")) {
        bool deferred = false;
        mcp_tools_call(s, msg, sink, out, &deferred);
        return deferred ? HX_RPC_DEFERRED : 0;
    }
    if (!strcmp(msg->method, "resources/list"))
        return mcp_resources_list(s, msg, out);
    if (!strcmp(msg->method, "resources/read"))
        return mcp_resources_read(s, msg, out);
    if (!strcmp(msg->method, "resources/templates/list"))
        return mcp_resource_templates(s, msg, out);
    snprintf(m, sizeof m, "Method not found: %.64s", msg->method);
    return hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_METHOD_NOT_FOUND, m, NULL, 0, NULL);
}

/* The JSON-RPC handler of the stdio loop (rpc.h). */
static int handle(void *ctx, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    return handle_msg(ctx, msg, NULL, out);
}

int mcp_handle_msg(mcp_session *s, const hxi_rpc_msg *msg, mcp_sink *sink, hxi_json_writer *out)
{
    hxi_json_writer_reset(out);
    int rc = handle_msg(s, msg, sink, out);
    if (rc != HX_RPC_DEFERRED && msg->kind == HX_RPC_REQUEST && (rc || hxi_json_writer_finish(out, NULL)))
        hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR, "internal error", NULL, 0, NULL);
    return rc == HX_RPC_DEFERRED ? rc : 0;
}

/* === Serve === */

/* False once stop_fd has fired. Checked before every message, so a stop that interrupted a
 * write is not followed by the rest of a pipelined burst; with nothing buffered (`idle`) it also
 * waits for input. */
static bool keep_going(int in_fd, int stop_fd, bool idle)
{
    if (stop_fd < 0)
        return true;
    struct pollfd p[2] = {{stop_fd, POLLIN, 0}, {in_fd, POLLIN, 0}};
    for (;;) {
        int n = poll(p, idle ? 2 : 1, idle ? -1 : 0);
        if (n < 0 && errno == EINTR)
            continue;
        return !(n > 0 && p[0].revents);
    }
}

int mcp_server_start(mcp_server *s, const hxi_mcp_config *cfg, int out_fd, hx_error *err)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    if (mcp_tools_select(cfg->tools, &s->listed, &s->full_schemas, err))
        return err->code;
    s->out_fd = out_fd;
    s->started_ns = mcp_now_ns();
    s->transport = "stdio";
    mcp_session_init(&s->worker, s, NULL);
    s->worker.enc_threads = cfg->threads;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->out_lock, NULL);
    pthread_mutex_init(&s->write_lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    if (hx_stats_open(&s->stats, cfg->db, cfg->identity, HX_STATS_FLUSH_MS, err))
        return err->code;
    if (pthread_create(&s->loader_thread, NULL, mcp_load_model, s)) {
        hx_stats_close(s->stats);
        return hx_error_set(err, HX_ENOMEM, -1, "cannot start the model loader thread");
    }
    if (pthread_create(&s->worker_thread, NULL, mcp_worker_main, s)) {
        pthread_join(s->loader_thread, NULL);
        hx_stats_close(s->stats);
        return hx_error_set(err, HX_ENOMEM, -1, "cannot start the worker thread");
    }
    if (cfg->watch) {
        hx_watch_config wc = {.db = cfg->db, .root = cfg->root, .model = mcp_watch_model, .model_ctx = s,
                              .threads = cfg->threads, .poll_ms = cfg->watch_poll_ms,
                              .force_poll = cfg->watch_poll_ms > 0, .stats = s->stats,
                              .write_lock = mcp_watch_write_lock, .write_ctx = s};
        hx_error werr = {0};
        if (hx_watch_start(&s->watch, &wc, &werr))
            fprintf(stderr, "hyrax serve: not watching: %s\n", werr.message);
    }
    return 0;
}

void mcp_server_stop(mcp_server *s, bool now)
{
    hx_watch_stop(s->watch);
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    if (now) {
        s->stopping_now = true;
        if (s->running)
            s->running->cancelled = true;
    }
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->worker_thread, NULL);
    pthread_join(s->loader_thread, NULL);
    while (s->queue_head) {
        mcp_job *j = s->queue_head;
        s->queue_head = j->next;
        mcp_job_free(j);
    }
    mcp_session_free(&s->worker);
    hx_model_close(s->model);
    hx_stats_close(s->stats);
    for (size_t i = 0; i < MCP_FAILURES; i++) {
        free(s->failures[i].path);
        free(s->failures[i].reason);
    }
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->out_lock);
    pthread_mutex_destroy(&s->write_lock);
    pthread_mutex_destroy(&s->lock);
}

void mcp_session_init(mcp_session *s, mcp_server *server, const char *transport)
{
    memset(s, 0, sizeof *s);
    s->server = server;
    s->cfg = server->cfg;
    s->transport = transport;
    s->initialized = true;
    s->enc_threads = 1;
    snprintf(s->protocol, sizeof s->protocol, "%s", protocol_versions[0]);
}

void mcp_session_free(mcp_session *s)
{
    hx_index_close(s->reader);
    hx_encoder_free(s->enc);
    hx_session_close(s->ses);
    s->ses = NULL;
    s->reader = NULL;
    s->enc = NULL;
}

int hxi_mcp_serve(int in_fd, int out_fd, const hxi_mcp_config *cfg, hx_error *err)
{
    mcp_server s;
    mcp_session conn;   /* the client's: it starts with initialize */
    int rc = mcp_server_start(&s, cfg, out_fd, err);
    if (rc)
        return rc;
    mcp_session_init(&conn, &s, "stdio");
    conn.initialized = false;
    hxi_rpc_reader r;
    hxi_json_writer out;
    hxi_json_writer_init(&out);
    rc = hxi_rpc_reader_init(&r, in_fd, 0, err);
    bool now = false;
    while (!rc) {
        if (!keep_going(in_fd, cfg->stop_fd, r.start == r.len)) {
            now = true;
            break;
        }
        const char *line;
        size_t len;
        hx_error rerr = {0};
        int rr = hxi_rpc_reader_next(&r, &line, &len, &rerr);
        if (rr == HX_ERANGE) {
            char m[128];
            snprintf(m, sizeof m, "message of %lld bytes is longer than the %zu-byte limit", (long long)rerr.offset,
                     r.max_line);
            hxi_json_writer_reset(&out);
            hxi_rpc_write_error(&out, NULL, 0, HX_RPC_INVALID_REQUEST, m, NULL, 0, NULL);
            mcp_send_line(&s, &out);
            continue;
        }
        if (rr) {
            fprintf(stderr, "hyrax serve: %s\n", rerr.message);
            break;
        }
        if (!line)
            break;   /* end of input */
        hxi_rpc_dispatch(line, len, NULL, handle, &conn, &out, NULL);
        mcp_send_line(&s, &out);
    }
    mcp_session_free(&conn);
    mcp_server_stop(&s, now);
    hxi_rpc_reader_free(&r);
    hxi_json_writer_free(&out);
    return rc;
}
