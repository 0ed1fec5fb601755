/* mcp_state.c: what the MCP server's files share (mcp_state.h) below the message loop (mcp.c):
 * clocks, the output line, the model loader, each session's readers and read contexts, query
 * statistics and the tail of every result. It calls no tool, job or method; they call it.
 * Spec: DESIGN.md "MCP server". */
#include "mcp_state.h"
#include "present.h"
#include "rpc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define META_SERVER_INFO "io.modelcontextprotocol/serverInfo"
static const char server_info[] = "{\"name\":\"hyrax\",\"title\":\"hyrax local hybrid search\",\"version\":\""
                                  HX_VERSION_STRING "\"}";

int64_t mcp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double mcp_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Writes one reply line; errors are logged (the peer may be gone), except the stop that
 * interrupts a write the peer is not reading. Takes out_lock. */
void mcp_send_line(mcp_server *s, const hxi_json_writer *w)
{
    if (!w->len)
        return;
    hx_error err = {0};
    pthread_mutex_lock(&s->out_lock);
    int rc = hxi_rpc_write_line(s->out_fd, s->cfg->stop_fd, w->buf, w->len, &err);
    pthread_mutex_unlock(&s->out_lock);
    if (rc && rc != HX_ECANCELED)
        fprintf(stderr, "hyrax serve: %s\n", err.message);
}

int mcp_error_wrap(hx_error *err, const hx_error *inner, const char *fmt, ...)
{
    char prefix[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n + strlen(inner->message) >= sizeof err->message)
        prefix[0] = 0;
    return hx_error_set(err, MCP_CODE(*inner), -1, "%s%s", prefix, inner->message);
}

/* === Model loading === */

/* The precision the index at db records into *out (fp32 for a new one), under a fault guard
 * (hyrax.h): the file may be truncated or overwritten while this thread reads it, and then the
 * model is loaded at fp32 and the first tool call reports the damaged file. */
static void read_precision(const char *db, hx_precision *out)
{
    hx_fault_guard g;
    *out = HX_PRECISION_FP32;
    if (HX_FAULT_GUARD(g)) {
        hx_index_precision(db, out, NULL);
        hx_fault_leave(&g);
    }
}

void *mcp_load_model(void *arg)
{
    mcp_server *s = arg;
    hx_model *m = NULL;
    hx_error err = {0};
    hx_model_opts o = {s->cfg->weights, HX_PRECISION_FP32};
    read_precision(s->cfg->db, &o.precision);
    int rc = hx_model_open_opts(&m, &o, &err);
    pthread_mutex_lock(&s->lock);
    s->model = m;
    s->model_done = true;
    if (rc)
        snprintf(s->model_error, sizeof s->model_error, "the embedding model could not be loaded: %s", err.message);
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* The model once the loader is done: NULL, with err set, when loading failed. */
static hx_model *loaded_model(mcp_server *h, hx_error *err)
{
    pthread_mutex_lock(&h->lock);
    while (!h->model_done)
        pthread_cond_wait(&h->wake, &h->lock);
    hx_model *m = h->model;
    if (!m)
        hx_error_set(err, HX_EINVAL, -1, "%s", h->model_error);
    pthread_mutex_unlock(&h->lock);
    return m;
}

int mcp_session_model(mcp_session *s, hx_error *err)
{
    s->model = loaded_model(s->server, err);
    return s->model ? 0 : MCP_CODE(*err);
}

int mcp_session_open(mcp_session *s, hx_error *err)
{
    if (s->ses)
        return 0;
    if (mcp_session_model(s, err))
        return MCP_CODE(*err);
    const hxi_mcp_config *cfg = s->cfg;
    bool writes = s == &s->server->worker && !cfg->read_only;   /* write tools run on the worker only */
    hx_session_config sc = {.db = cfg->db, .root = cfg->root, .user_db = cfg->user_db, .no_user_tier = !cfg->user_db,
                            .registry = cfg->registry, .registry_defaults = true,
                            .registry_timeout_ms = cfg->registry_timeout_ms, .identity = cfg->identity,
                            .model = s->model, .threads = cfg->threads, .read_only = !writes,
                            .memory = cfg->memory_limits};
    return hx_session_open(&s->ses, &sc, err);
}

int mcp_session_error(const mcp_session *s, int rc, const hx_read_context *at, hx_error *err)
{
    if (rc == HX_ENOTFOUND && !strncmp(err->message, "there is no index", 17))
        return hx_error_set(err, HX_EINVAL, -1, "there is no index at %s yet: call the reindex tool (or run 'hyrax "
                                                "index') first",
                            s->cfg->db);
    bool missed = strstr(err->message, " kept") || !strncmp(err->message, "nothing is published", 20);
    if (rc == HX_ENOTFOUND && at && at->selector != HX_READ_HEAD && missed) {   /* no commit matches read_context */
        hx_error inner = *err;
        return mcp_error_wrap(err, &inner, "read_context: ");
    }
    return rc;
}

/* s->enc started (with s->enc_threads threads) when it was not yet: 0, or an HX_E* code. */
static int session_encoder(mcp_session *s, hx_error *err)
{
    return s->enc ? 0 : hx_encoder_new(&s->enc, s->model, s->enc_threads, err);
}

/* hx_index_open of the server's index with its reader identity applied: the one way the server
 * opens an index, so no handle reads past the identity. */
static int index_open(mcp_session *s, hx_index **ix, unsigned flags, const char *root, hx_error *err)
{
    int rc = hx_index_open(ix, s->cfg->db, flags, s->model, root, err);
    if (!rc && s->cfg->identity && (rc = hx_index_set_identity(*ix, s->cfg->identity, err))) {
        hx_index_close(*ix);
        *ix = NULL;
    }
    return rc;
}

bool mcp_model_ready(mcp_session *s)
{
    pthread_mutex_lock(&s->server->lock);
    s->model = s->server->model;
    pthread_mutex_unlock(&s->server->lock);
    return s->model != NULL;
}

void mcp_watch_write_lock(void *ctx, int take)
{
    mcp_server *s = ctx;
    if (take)
        pthread_mutex_lock(&s->write_lock);
    else
        pthread_mutex_unlock(&s->write_lock);
}

/* The watcher's model: waits for the loader; NULL when loading failed. */
const hx_model *mcp_watch_model(void *ctx)
{
    hx_error err = {0};
    return loaded_model(ctx, &err);
}

/* Opens (or refreshes) the reader and points it at the commit ctx selects (NULL = head). */
static int open_reader_at(mcp_session *s, const hx_read_context *ctx, hx_error *err)
{
    hx_error e = {0};
    if (mcp_session_model(s, err))
        return MCP_CODE(*err);
    if (session_encoder(s, &e)) {
        mcp_error_wrap(err, &e, "cannot start the encoder: ");
        return MCP_CODE(*err);
    }
    if (s->reader) {
        if (hx_index_read_at(s->reader, ctx, &s->read_taken, &e) == 0)
            return 0;
        if (e.code == HX_ENOTFOUND || e.code == HX_EINVAL)   /* no such commit: the reader is fine */
            return mcp_error_wrap(err, &e, "read_context: ");
        hx_index_close(s->reader);   /* replaced (compaction) or damaged: open afresh */
        s->reader = NULL;
    }
    if (index_open(s, &s->reader, HX_INDEX_READ, NULL, &e)) {
        if (e.code == HX_ENOTFOUND)
            hx_error_set(err, HX_EINVAL, -1, "there is no index at %s yet: call the reindex tool (or run 'hyrax "
                                             "index') first",
                     s->cfg->db);
        else
            mcp_error_wrap(err, &e, "cannot open the index %s: ", s->cfg->db);
        s->reader = NULL;
        return MCP_CODE(*err);
    }
    if (hx_index_read_at(s->reader, ctx, &s->read_taken, &e))
        return mcp_error_wrap(err, &e, "read_context: ");
    return 0;
}

int mcp_session_reader(mcp_session *s, hx_error *err)
{
    return open_reader_at(s, NULL, err);
}

/* === Read contexts === */

const mcp_arg mcp_read_context_args[] = {
    {"selector", MCP_STRING, .choices = hx_read_selector_names,
     .description = "head: the last commit (the default); published: the newest baseline named published; "
                    "baseline_id: the newest commit named baseline_id; as_of: the index as it was at as_of. "
                    "Left out, it follows from baseline_id or as_of when one is given."},
    {"baseline_id", MCP_STRING, RANGE(1, HX_BASELINE_NAME_MAX),
     .description = "A baseline's name (create_baseline, or 'hyrax baseline NAME')."},
    {"as_of", MCP_STRING, AT_LEAST(1),
     .description = "ISO-8601 time (2026-01-31T12:00:00Z; no zone = UTC) or unix seconds."},
    {.name = NULL},
};

const mcp_field mcp_read_context_fields[] = {
    {"selector", MCP_JSON_STRING, .choices = hx_read_selector_names},
    {"baseline_id", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"as_of", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"generation", .type = MCP_JSON_INTEGER},
    {"committed_at", .type = MCP_JSON_STRING},
    {.name = NULL},
};

int mcp_read_context(const mcp_args *a, hx_read_context *out, hx_error *err)
{
    mcp_args rc = mcp_arg_object(a, "read_context");
    const char *sel = mcp_arg_str(&rc, "selector"), *name = mcp_arg_str(&rc, "baseline_id");
    const char *as_of = mcp_arg_str(&rc, "as_of");
    hx_read_context ctx = {HX_READ_HEAD, name, 0};
    if (!sel)
        sel = name && as_of ? "both" : name ? "baseline_id" : as_of ? "as_of" : "head";
    while (hx_read_selector_names[ctx.selector] && strcmp(hx_read_selector_names[ctx.selector], sel))
        ctx.selector++;
    if (!hx_read_selector_names[ctx.selector] || (name && ctx.selector != HX_READ_BASELINE) ||
        (as_of && ctx.selector != HX_READ_AS_OF))
        return hx_error_set(err, HX_EINVAL, -1, "read_context: give baseline_id with selector baseline_id, as_of with "
                                                "selector as_of, and neither with head or published");
    if (ctx.selector == HX_READ_BASELINE && !name)
        return hx_error_set(err, HX_EINVAL, -1, "read_context: selector baseline_id needs 'baseline_id' (a baseline's "
                                                "name)");
    hx_error e = {0};
    if (ctx.selector == HX_READ_AS_OF &&
        (!as_of ? hx_error_set(&e, HX_EINVAL, -1, "selector as_of needs 'as_of' (a time)")
                : hx_time_parse(as_of, &ctx.as_of_ns, &e)))
        return mcp_error_wrap(err, &e, "read_context: ");
    *out = ctx;
    return 0;
}

int mcp_open_reader_for(mcp_session *s, const mcp_args *a, hx_error *err)
{
    hx_read_context ctx;
    return mcp_read_context(a, &ctx, err) ? MCP_CODE(*err) : open_reader_at(s, &ctx, err);
}

void mcp_write_read_context(hxi_json_writer *w, const mcp_session *s)
{
    hxi_present_read_context(w, &s->read_taken);
}

/* === Statistics === */

void mcp_note_query(mcp_session *s, const char *query)
{
    hx_stats_note_query(s->server->stats, query);
}

void mcp_write_result_tail(hxi_json_writer *w, bool modern, int64_t ttl_ms)
{
    if (!modern)
        return;
    hxi_json_kv_cstr(w, "resultType", "complete");
    if (ttl_ms >= 0) {
        hxi_json_kv_int(w, "ttlMs", ttl_ms);
        hxi_json_kv_cstr(w, "cacheScope", "private");
    }
    hxi_json_write_key(w, "_meta");
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, META_SERVER_INFO);
    hxi_json_write_json(w, server_info, sizeof server_info - 1);
    hxi_json_write_obj_end(w);
}

void mcp_write_server_info(hxi_json_writer *w)
{
    hxi_json_write_json(w, server_info, sizeof server_info - 1);
}
