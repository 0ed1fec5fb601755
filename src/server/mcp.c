/* mcp.c: the MCP lifecycle and message loop of `hyrax serve`: initialize with version
 * negotiation (every request but ping before it is refused), ping, tools/list, tools/call,
 * notifications/cancelled; the bounded write queue and its worker; the model loader; statistics
 * for index_health. Tools themselves live in mcp_tools.c. Only JSON reaches out_fd, one message
 * per line, written whole under out_lock and abandoned when stop_fd fires. Spec: DESIGN.md "MCP
 * server" and the MCP specification (2024-11-05 .. 2025-11-25). */
#include "mcp_internal.h"
#include "present.h"
#include "alloc.h"
#include "relpath.h"
#include "rpc.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const protocol_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
/* Protocol 2026-07-28: no initialize; each request names its version and the client's capabilities
 * in params._meta under these keys, and every result says resultType and the server. */
#define MODERN_VERSION "2026-07-28"
#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER_INFO "io.modelcontextprotocol/serverInfo"
#define MCP_ERR_UNSUPPORTED_VERSION (-32022)
#define TOOLS_TTL_MS 3600000   /* tools/list is fixed for the life of the binary */
static const char server_info[] = "{\"name\":\"hyrax\",\"title\":\"hyrax local hybrid search\",\"version\":\""
                                  HX_VERSION_STRING "\"}";
static const char capabilities[] = "{\"tools\":{\"listChanged\":false},\"resources\":{\"listChanged\":false}}";

/* The server whose shared state (lock, queue, statistics, model) a view uses: s itself outside
 * HTTP. */
static mcp_server *home_of(mcp_server *s)
{
    return s->home ? s->home : s;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Writes one reply line; errors are logged (the peer may be gone), except the stop that
 * interrupts a write the peer is not reading. Takes out_lock. */
static void send_line(mcp_server *s, const hx_json_writer *w)
{
    if (!w->len)
        return;
    hx_error err = {0};
    pthread_mutex_lock(&s->out_lock);
    int rc = hx_rpc_write_line(s->out_fd, s->cfg->stop_fd, w->buf, w->len, &err);
    pthread_mutex_unlock(&s->out_lock);
    if (rc && rc != HX_ECANCELED)
        fprintf(stderr, "hyrax serve: %s\n", err.message);
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

static void *load_model(void *arg)
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

int mcp_wait_model(mcp_server *s, char *message, size_t cap)
{
    mcp_server *h = home_of(s);
    pthread_mutex_lock(&h->lock);
    while (!h->model_done)
        pthread_cond_wait(&h->wake, &h->lock);
    s->model = h->model;
    int ok = s->model != NULL;
    if (!ok)
        snprintf(message, cap, "%s", h->model_error);
    pthread_mutex_unlock(&h->lock);
    return ok ? 0 : -1;
}

int mcp_index_open(mcp_server *s, hx_index **ix, unsigned flags, const char *root, hx_error *err)
{
    int rc = hx_index_open(ix, s->cfg->db, flags, s->model, root, err);
    if (!rc && s->cfg->identity && (rc = hx_index_set_identity(*ix, s->cfg->identity, err))) {
        hx_index_close(*ix);
        *ix = NULL;
    }
    return rc;
}

bool mcp_model_ready(mcp_server *s)
{
    mcp_server *h = home_of(s);
    pthread_mutex_lock(&h->lock);
    s->model = h->model;
    pthread_mutex_unlock(&h->lock);
    return s->model != NULL;
}

static void watch_write_lock(void *ctx, int take)
{
    mcp_server *s = ctx;
    if (take)
        pthread_mutex_lock(&s->write_lock);
    else
        pthread_mutex_unlock(&s->write_lock);
}

/* The watcher's model: waits for the loader; NULL when loading failed. */
static const hx_model *watch_model(void *ctx)
{
    mcp_server *s = ctx;
    char message[320];
    return mcp_wait_model(s, message, sizeof message) ? NULL : s->model;
}

/* Opens (or refreshes) the reader and points it at the commit ctx selects (NULL = head). */
static int open_reader_at(mcp_server *s, const hx_read_context *ctx, char *message, size_t cap)
{
    hx_error err = {0};
    if (mcp_wait_model(s, message, cap))
        return -1;
    if (!s->reader_enc && hx_encoder_new(&s->reader_enc, s->model, 1, &err)) {
        snprintf(message, cap, "cannot start the encoder: %s", err.message);
        return -1;
    }
    if (s->reader) {
        if (hx_index_read_at(s->reader, ctx, &s->read_taken, &err) == 0)
            return 0;
        if (err.code == HX_ENOTFOUND || err.code == HX_EINVAL)   /* no such commit: the reader is fine */
            return snprintf(message, cap, "read_context: %s", err.message), -1;
        hx_index_close(s->reader);   /* replaced (compaction) or damaged: open afresh */
        s->reader = NULL;
    }
    if (mcp_index_open(s, &s->reader, HX_INDEX_READ, NULL, &err)) {
        if (err.code == HX_ENOTFOUND)
            snprintf(message, cap, "there is no index at %s yet: call the reindex tool (or run 'hyrax index') first",
                     s->cfg->db);
        else
            snprintf(message, cap, "cannot open the index %s: %s", s->cfg->db, err.message);
        s->reader = NULL;
        return -1;
    }
    if (hx_index_read_at(s->reader, ctx, &s->read_taken, &err))
        return snprintf(message, cap, "read_context: %s", err.message), -1;
    return 0;
}

int mcp_open_reader(mcp_server *s, char *message, size_t cap)
{
    return open_reader_at(s, NULL, message, cap);
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

int mcp_read_context(const mcp_args *a, hx_read_context *out, char *message, size_t cap)
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
        return snprintf(message, cap, "read_context: give baseline_id with selector baseline_id, as_of with "
                        "selector as_of, and neither with head or published"), -1;
    if (ctx.selector == HX_READ_BASELINE && !name)
        return snprintf(message, cap, "read_context: selector baseline_id needs 'baseline_id' (a baseline's "
                        "name)"), -1;
    hx_error err = {0};
    if (ctx.selector == HX_READ_AS_OF &&
        (!as_of ? hx_error_set(&err, HX_EINVAL, -1, "selector as_of needs 'as_of' (a time)")
                : hx_time_parse(as_of, &ctx.as_of_ns, &err)))
        return snprintf(message, cap, "read_context: %s", err.message), -1;
    *out = ctx;
    return 0;
}

int mcp_open_reader_for(mcp_server *s, const mcp_args *a, char *message, size_t cap)
{
    hx_read_context ctx;
    return mcp_read_context(a, &ctx, message, cap) ? -1 : open_reader_at(s, &ctx, message, cap);
}

void mcp_write_read_context(hx_json_writer *w, const mcp_server *s)
{
    hx_present_read_context(w, &s->read_taken);
}

bool mcp_should_stop(mcp_server *s)
{
    s = home_of(s);
    pthread_mutex_lock(&s->lock);
    bool stop = s->stopping_now || (s->running && s->running->cancelled);
    pthread_mutex_unlock(&s->lock);
    return stop;
}

/* === Statistics === */

/* Counted in the lasting statistics (stats.h): latency per tool and transport, hot queries. */
static void note_latency(mcp_server *s, int tool, double ms)
{
    const char *transport = s->transport;
    s = home_of(s);
    hx_metrics_observe(s->metrics, HX_METRIC_TOOL, hx_mcp_tools[tool].name, transport, NULL, ms / 1e3);
    hx_stats_note_latency(s->stats, hx_mcp_tools[tool].name, transport, ms);
}

void mcp_note_query(mcp_server *s, const char *query)
{
    hx_stats_note_query(home_of(s)->stats, query);
}

void mcp_note_failure(mcp_server *s, const char *path, const char *reason)
{
    pthread_mutex_lock(&s->lock);
    size_t i = s->next_failure;
    free(s->failures[i].path);
    free(s->failures[i].reason);
    s->failures[i].path = hx_strdup(path);
    s->failures[i].reason = hx_strdup(reason);
    s->failures[i].at_ns = now_ns();
    s->next_failure = (i + 1) % MCP_FAILURES;
    if (s->n_failures < MCP_FAILURES)
        s->n_failures++;
    pthread_mutex_unlock(&s->lock);
}

bool mcp_failure_for(mcp_server *s, const char *path, char *reason, size_t cap)
{
    s = home_of(s);
    bool found = false;
    pthread_mutex_lock(&s->lock);
    for (size_t k = 0; k < s->n_failures && !found; k++) {
        size_t i = (s->next_failure + MCP_FAILURES - 1 - k) % MCP_FAILURES;   /* newest first */
        if (s->failures[i].path && !strcmp(s->failures[i].path, path)) {
            snprintf(reason, cap, "%s", s->failures[i].reason ? s->failures[i].reason : "");
            found = true;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

/* A queued or running job names this path, a clean root-relative name (add_document path/name,
 * delete_document path, or a reindex of the path or a folder above it). The job's names are
 * compared in their clean form (relpath.h), as the tools will use them. */
static bool job_touches(const mcp_job *j, const char *path)
{
    hx_json_doc *doc = NULL;
    bool hit = false;
    char clean[HX_RELPATH_MAX];
    if (hx_json_parse(&doc, j->args, j->args_len, NULL, NULL))
        return false;
    const hx_json_val *a = hx_json_doc_root(doc);
    const char *keys[] = {"path", "name"};
    for (int k = 0; k < 2 && !hit; k++) {
        const char *v = hx_json_str(hx_json_obj_get(a, keys[k]), NULL);
        hit = v && !hx_relpath_clean(v, clean, sizeof clean, NULL) && !strcmp(clean, path);
    }
    if (!hit && !strcmp(hx_mcp_tools[j->tool].name, "reindex")) {
        const hx_json_val *paths = hx_json_obj_get(a, "paths");
        if (!paths || !hx_json_len(paths))
            hit = true;   /* everything */
        for (size_t i = 0; !hit && paths && i < hx_json_len(paths); i++) {
            const char *p = hx_json_str(hx_json_arr_get(paths, i), NULL);
            size_t n = p && !hx_relpath_clean(p, clean, sizeof clean, NULL) ? strlen(clean) : SIZE_MAX;
            hit = n != SIZE_MAX && (!n || (!strncmp(path, clean, n) && (path[n] == 0 || path[n] == '/')));
        }
    }
    hx_json_doc_free(doc);
    return hit;
}

bool mcp_path_pending(mcp_server *s, const char *path)
{
    s = home_of(s);
    bool hit = false;
    pthread_mutex_lock(&s->lock);
    if (s->running)
        hit = job_touches(s->running, path);
    for (const mcp_job *j = s->queue_head; j && !hit; j = j->next)
        hit = job_touches(j, path);
    pthread_mutex_unlock(&s->lock);
    return hit;
}

void mcp_write_health_jobs(mcp_server *s, hx_json_writer *w)
{
    s = home_of(s);
    pthread_mutex_lock(&s->lock);
    hx_json_write_key(w, "pending_jobs");
    hx_json_write_uint(w, s->queued_jobs);
    hx_json_write_key(w, "running_job");
    if (s->running)
        hx_json_write_cstr(w, hx_mcp_tools[s->running->tool].name);
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "jobs_done");
    hx_json_write_uint(w, s->jobs_done);
    hx_json_write_key(w, "jobs_failed");
    hx_json_write_uint(w, s->jobs_failed);
    hx_json_write_key(w, "jobs_busy");
    hx_json_write_uint(w, s->jobs_busy);
    pthread_mutex_unlock(&s->lock);
}

void mcp_write_failures(mcp_server *s, hx_json_writer *w)
{
    s = home_of(s);
    pthread_mutex_lock(&s->lock);
    hx_json_write_arr_begin(w);
    for (size_t k = 0; k < s->n_failures; k++) {
        size_t i = (s->next_failure + MCP_FAILURES - 1 - k) % MCP_FAILURES;
        hx_json_write_obj_begin(w);
        hx_present_reason(w, s->failures[i].path, s->failures[i].reason);
        hx_json_write_key(w, "at_ns");
        hx_json_write_int(w, s->failures[i].at_ns);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    pthread_mutex_unlock(&s->lock);
}

/* === Tool calls === */

/* Result of a tool call: the structured JSON (sw) also given as text, or an isError message. */
typedef struct {
    const hx_json_writer *structured;
    const char *error;
    bool modern;
} tool_outcome;

void mcp_write_result_tail(hx_json_writer *w, bool modern, int64_t ttl_ms)
{
    if (!modern)
        return;
    hx_json_write_key(w, "resultType");
    hx_json_write_cstr(w, "complete");
    if (ttl_ms >= 0) {
        hx_json_write_key(w, "ttlMs");
        hx_json_write_int(w, ttl_ms);
        hx_json_write_key(w, "cacheScope");
        hx_json_write_cstr(w, "private");
    }
    hx_json_write_key(w, "_meta");
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, META_SERVER_INFO);
    hx_json_write_json(w, server_info, sizeof server_info - 1);
    hx_json_write_obj_end(w);
}

static int write_tool_result(void *ctx, hx_json_writer *w, hx_error *err)
{
    const tool_outcome *o = ctx;
    (void)err;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "content");
    hx_json_write_arr_begin(w);
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "type");
    hx_json_write_cstr(w, "text");
    hx_json_write_key(w, "text");
    if (o->error)
        hx_json_write_cstr(w, o->error);
    else
        hx_json_write_str(w, o->structured->buf, o->structured->len);
    hx_json_write_obj_end(w);
    hx_json_write_arr_end(w);
    if (!o->error) {
        hx_json_write_key(w, "structuredContent");
        hx_json_write_json(w, o->structured->buf, o->structured->len);
    }
    hx_json_write_key(w, "isError");
    hx_json_write_bool(w, o->error != NULL);
    mcp_write_result_tail(w, o->modern, -1);
    hx_json_write_obj_end(w);
    return 0;
}

/* Runs a tool under a fault guard (hyrax.h): an index file truncated or overwritten while the tool
 * reads it gives a tool error, and the reader is closed so the next call opens the file afresh.
 * Write tools run unguarded: their writer holds the lock and is not abandoned halfway. */
static int run_guarded(mcp_server *s, int t, const hx_json_val *args, hx_json_writer *sw, char *message,
                       size_t cap)
{
    hx_fault_guard g;
    if (!HX_FAULT_GUARD(g)) {
        hx_index_close(s->reader);
        s->reader = NULL;
        hx_index_close(s->user_reader);   /* tiers: the user index's reader likewise */
        s->user_reader = NULL;
        snprintf(message, cap, "%s; it is reopened on the next call", HX_FAULT_MESSAGE);
        return -1;
    }
    int rc = hx_mcp_tools[t].run(s, args, sw, message, cap);
    hx_fault_leave(&g);
    return rc;
}

/* The index of the tool called name (len bytes), or MCP_TOOL_COUNT when there is none. */
static int tool_index(const char *name, size_t len)
{
    int t = 0;
    while (t < MCP_TOOL_COUNT && (strlen(hx_mcp_tools[t].name) != len || memcmp(hx_mcp_tools[t].name, name, len)))
        t++;
    return t;
}

/* The tool that runs tool t on *args: t itself, or its family with *args translated into the
 * family's arguments (*doc holds them; caller frees). -1 with message set when the translated
 * arguments fail the family's checks. */
static int runner_of(int t, const hx_json_val **args, hx_json_doc **doc, char *message, size_t cap)
{
    const char *family = hx_mcp_tools[t].family;
    if (!family)
        return t;
    int f = tool_index(family, strlen(family));
    hx_json_writer w;
    hx_error err = {0};
    hx_json_writer_init(&w);
    mcp_args_translate(hx_mcp_tools[t].args, *args, &w);
    if (f == MCP_TOOL_COUNT || f == t)
        f = (snprintf(message, cap, "%s names no other tool to run it (%s)", hx_mcp_tools[t].name, family), -1);
    else if (hx_json_writer_finish(&w, &err) || hx_json_parse(doc, w.buf, w.len, NULL, &err))
        f = (snprintf(message, cap, "cannot pass the arguments on to %s: %s", family, err.message), -1);
    else if (mcp_args_check(hx_mcp_tools[f].args, hx_json_doc_root(*doc), message, cap))
        f = -1;
    else
        *args = hx_json_doc_root(*doc);
    hx_json_writer_free(&w);
    return f;
}

/* Runs tool t on args and leaves the JSON-RPC response for `id` in out; returns the tool's
 * result: 0, or non-zero for an isError answer. */
static int run_tool(mcp_server *s, int t, const hx_json_val *args, const char *id, size_t id_len, bool modern,
                    hx_json_writer *out)
{
    double t0 = mono_ms();
    hx_json_writer sw;
    char message[1024] = "";
    hx_error err = {0};
    hx_json_doc *translated = NULL;
    hx_json_writer_init(&sw);
    int r = mcp_args_check(hx_mcp_tools[t].args, args, message, sizeof message)
                ? -1 : runner_of(t, &args, &translated, message, sizeof message);
    int rc = r < 0 ? -1
             : hx_mcp_tools[r].writes ? hx_mcp_tools[r].run(s, args, &sw, message, sizeof message)
                                      : run_guarded(s, r, args, &sw, message, sizeof message);
    hx_json_doc_free(translated);
    if (!rc && hx_json_writer_finish(&sw, &err)) {
        snprintf(message, sizeof message, "internal error building the result: %s", err.message);
        rc = -1;
    }
    tool_outcome o = {&sw, rc ? message : NULL, modern};
    hx_json_writer_reset(out);
    if (hx_rpc_write_result_fn(out, id, id_len, write_tool_result, &o, &err))
        hx_rpc_write_error(out, id, id_len, HX_RPC_INTERNAL_ERROR, err.message, NULL, 0, NULL);
    hx_json_writer_free(&sw);
    note_latency(s, t, mono_ms() - t0);
    return rc;
}

/* === Worker === */

/* === Sinks === */

void mcp_sink_init(mcp_sink *k)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->cv, NULL);
}

void mcp_sink_free(mcp_sink *k)
{
    free(k->buf);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->lock);
}

/* Appends one message (when msg holds one) and a newline; with done, the job is over. A message
 * that finds no memory is lost (the waiting request then ends without it). */
static void sink_put(mcp_sink *k, const hx_json_writer *msg, bool done)
{
    pthread_mutex_lock(&k->lock);
    if (msg && msg->len && !hx_grow((void **)&k->buf, &k->cap, k->len + msg->len + 1, 1, NULL)) {
        memcpy(k->buf + k->len, msg->buf, msg->len);
        k->len += msg->len;
        k->buf[k->len++] = '\n';
    }
    k->done = k->done || done;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->lock);
}

bool mcp_sink_take(mcp_sink *k, char **buf, size_t *len, size_t *cap, int wait_ms)
{
    pthread_mutex_lock(&k->lock);
    if (!k->done && !k->len) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += wait_ms / 1000;
        until.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&k->cv, &k->lock, &until);
    }
    if (k->len && !hx_grow((void **)buf, cap, *len + k->len, 1, NULL)) {
        memcpy(*buf + *len, k->buf, k->len);
        *len += k->len;
        k->len = 0;
    }
    bool done = k->done && !k->len;
    pthread_mutex_unlock(&k->lock);
    return done;
}

/* Sends a message of a job: to its sink, or to out_fd. With done (the answer) the sink is let go
 * at once: its owner may free it as soon as it sees done, so nothing may touch it after. */
static void job_send(mcp_server *s, mcp_job *j, const hx_json_writer *w, bool done)
{
    mcp_sink *k = j->sink;
    if (k && done)
        j->sink = NULL;
    if (k)
        sink_put(k, w, done);
    else if (w)
        send_line(s, w);
}

static void job_free(mcp_job *j)
{
    if (j->sink)
        sink_put(j->sink, NULL, true);   /* dropped unanswered (an answer let the sink go) */
    free(j->progress);
    free(j->id);
    free(j->args);
    free(j);
}

static void *worker_main(void *arg)
{
    mcp_server *s = arg;
    hx_json_writer out;
    hx_json_writer_init(&out);
    for (;;) {
        pthread_mutex_lock(&s->lock);
        while (!s->queue_head && !s->stopping)
            pthread_cond_wait(&s->wake, &s->lock);
        mcp_job *j = s->queue_head;
        if (!j || s->stopping_now) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        s->queue_head = j->next;
        if (!s->queue_head)
            s->queue_tail = NULL;
        s->queued_jobs--;
        s->queued_bytes -= j->args_len;
        s->running = j;
        pthread_mutex_unlock(&s->lock);

        double t0 = mono_ms();
        hx_json_doc *doc = NULL;
        hx_error err = {0};
        int rc = -1;
        if (hx_json_parse(&doc, j->args, j->args_len, NULL, &err) == 0) {
            pthread_mutex_lock(&s->write_lock);   /* the watcher's batches wait meanwhile */
            rc = run_tool(s, j->tool, hx_json_doc_root(doc), j->id, j->id_len, j->modern, &out);
            pthread_mutex_unlock(&s->write_lock);
            hx_json_doc_free(doc);
        } else {
            hx_rpc_write_error(&out, j->id, j->id_len, HX_RPC_INTERNAL_ERROR, "arguments lost", NULL, 0, NULL);
        }
        double ms = mono_ms() - t0;
        pthread_mutex_lock(&s->lock);
        bool cancelled = j->cancelled;
        s->running = NULL;
        if (rc)
            s->jobs_failed++;   /* an error, or cancelled in time (HX_ECANCELED, nothing committed) */
        else
            s->jobs_done++;     /* committed, answered unless cancelled too late to stop */
        s->job_ms = s->job_ms > 0 ? 0.8 * s->job_ms + 0.2 * ms : ms;
        pthread_mutex_unlock(&s->lock);
        if (!cancelled)
            job_send(s, j, &out, true);
        job_free(j);
    }
    hx_json_writer_free(&out);
    return NULL;
}

/* Answers a write that finds the queue full: MCP_ERR_BUSY, with the queue's size and a retry
 * hint of about one job's time (a finished job makes room; 1 s before any job has finished),
 * 100 ms to 60 s. Under the lock. */
static void write_busy(mcp_server *s, const hx_rpc_msg *msg, hx_json_writer *out)
{
    double wait = s->job_ms > 0 ? (s->job_ms > 100 ? s->job_ms : 100) : 1000;
    uint64_t retry_ms = wait < 60000 ? (uint64_t)wait : 60000;
    char m[256], data[160];
    snprintf(m, sizeof m, "hyrax is busy: %zu writes (%.1f MB) are waiting, as many as it queues (%d writes or %zu MB); "
             "retry in about %.1f s (error.data.retry_after_ms)", s->queued_jobs, (double)s->queued_bytes / 1048576.0,
             MCP_QUEUE_MAX_JOBS, MCP_QUEUE_MAX_BYTES >> 20, (double)retry_ms / 1000.0);
    snprintf(data, sizeof data, "{\"retry_after_ms\":%llu,\"pending_jobs\":%zu,\"pending_bytes\":%zu}",
             (unsigned long long)retry_ms, s->queued_jobs, s->queued_bytes);
    hx_rpc_write_error(out, msg->id_json, msg->id_len, MCP_ERR_BUSY, m, data, strlen(data), NULL);
    s->jobs_busy++;
}

/* Queues a write job for the worker and returns true (the worker answers it), or leaves the
 * answer in out and returns false: busy over the queue bounds, or out of memory. */
static bool enqueue(mcp_server *s, int tool, const hx_rpc_msg *msg, const hx_json_val *args, mcp_sink *sink,
                    hx_json_writer *out)
{
    bool modern = s->modern;
    s = home_of(s);
    hx_error err = {0};
    mcp_job *j = hx_calloc(1, sizeof *j);
    hx_json_writer aw;
    hx_json_writer_init(&aw);
    if (args)
        hx_json_write_val(&aw, args);
    else {
        hx_json_write_obj_begin(&aw);
        hx_json_write_obj_end(&aw);
    }
    if (!j || hx_json_writer_finish(&aw, &err) || !(j->id = hx_malloc(msg->id_len + 1))) {
        free(j);
        hx_json_writer_free(&aw);
        hx_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR, "out of memory queueing a write",
                           NULL, 0, NULL);
        return false;
    }
    memcpy(j->id, msg->id_json, msg->id_len);
    j->id[msg->id_len] = 0;
    j->id_len = msg->id_len;
    j->args = hx_json_writer_take(&aw, &j->args_len);
    j->tool = tool;
    j->modern = modern;
    const hx_json_val *token = hx_json_obj_get(hx_json_obj_get(msg->params, "_meta"), "progressToken");
    if (token && (hx_json_type_of(token) == HX_JSON_STRING || hx_json_type_of(token) == HX_JSON_NUMBER)) {
        hx_json_writer tw;
        hx_json_writer_init(&tw);
        hx_json_write_val(&tw, token);
        j->progress = hx_json_writer_take(&tw, NULL);   /* NULL (no progress) when out of memory */
        hx_json_writer_free(&tw);
    }
    pthread_mutex_lock(&s->lock);
    bool full = s->queued_jobs >= MCP_QUEUE_MAX_JOBS ||
                (s->queued_jobs && s->queued_bytes + j->args_len > MCP_QUEUE_MAX_BYTES);
    if (full) {
        write_busy(s, msg, out);
    } else {
        if (s->queue_tail)
            s->queue_tail->next = j;
        else
            s->queue_head = j;
        s->queue_tail = j;
        s->queued_jobs++;
        s->queued_bytes += j->args_len;
        pthread_cond_broadcast(&s->wake);
    }
    if (!full)
        j->sink = sink;
    pthread_mutex_unlock(&s->lock);
    if (full)
        job_free(j);
    return !full;
}

/* Which write jobs a cancellation names: those answering through sink; else those of the
 * session (HTTP, Mcp-Session-Id) or, with session NULL, those of stdio (no sink) whose request id
 * is id (JSON text). */
typedef struct job_key {
    const mcp_sink *sink;
    const char *session;
    const char *id;
    size_t id_len;
} job_key;

static bool job_named(const mcp_job *j, const job_key *k)
{
    if (k->sink)
        return j->sink == k->sink;
    if (k->session ? !j->sink || !j->sink->session || strcmp(j->sink->session, k->session) : j->sink != NULL)
        return false;
    return j->id_len == k->id_len && !memcmp(j->id, k->id, k->id_len);
}

/* Cancels the jobs k names: a queued one is dropped (a failed job; its sink, if any, says done);
 * the running one is told to stop (at its next progress check, uncommitted: a failed job, unless
 * it committed first) and is not answered. */
static void cancel_jobs(mcp_server *s, const job_key *k)
{
    s = home_of(s);
    pthread_mutex_lock(&s->lock);
    mcp_job **pp = &s->queue_head, *prev = NULL;
    while (*pp) {
        mcp_job *j = *pp;
        if (!job_named(j, k)) {
            prev = j;
            pp = &j->next;
            continue;
        }
        *pp = j->next;
        if (s->queue_tail == j)
            s->queue_tail = prev;
        s->queued_jobs--;
        s->queued_bytes -= j->args_len;
        s->jobs_failed++;
        job_free(j);
    }
    if (s->running && job_named(s->running, k))
        s->running->cancelled = true;
    pthread_mutex_unlock(&s->lock);
}

/* notifications/cancelled: on stdio (sink NULL) it names a request of this client; over HTTP
 * (sink: the notification's request) one of the same Mcp-Session-Id, and without a session it is
 * ignored, since request ids are unique only within a session (a 2026-07-28 client cancels by
 * closing the request's stream: mcp_cancel_sink). */
static void cancel_request(mcp_server *s, const hx_json_val *params, const mcp_sink *sink)
{
    const hx_json_val *rid = hx_json_obj_get(params, "requestId");
    if (!rid || (sink && !sink->session))
        return;
    hx_json_writer idw;
    hx_json_writer_init(&idw);
    hx_json_write_val(&idw, rid);
    if (!hx_json_writer_finish(&idw, NULL))
        cancel_jobs(s, &(job_key){.session = sink ? sink->session : NULL, .id = idw.buf, .id_len = idw.len});
    hx_json_writer_free(&idw);
}

void mcp_cancel_sink(mcp_server *s, mcp_sink *sink)
{
    cancel_jobs(s, &(job_key){.sink = sink});
}

/* === Methods === */

static const char instructions[] =
    "hyrax searches a local folder of documents. Use search for ranked passages with "
    "citations, get_context for a ready-to-use context block within a token budget, "
    "find_similar for related passages, and the document tools to list, inspect, add, "
    "delete or reindex documents. Paths are relative to the indexed root.";

static int write_initialize(void *ctx, hx_json_writer *w, hx_error *err)
{
    const mcp_server *s = ctx;
    (void)err;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "protocolVersion");
    hx_json_write_cstr(w, s->protocol);
    hx_json_write_key(w, "capabilities");
    hx_json_write_json(w, capabilities, sizeof capabilities - 1);
    hx_json_write_key(w, "serverInfo");
    hx_json_write_json(w, server_info, sizeof server_info - 1);
    hx_json_write_key(w, "instructions");
    hx_json_write_cstr(w, instructions);
    hx_json_write_obj_end(w);
    return 0;
}

static int initialize(mcp_server *s, const hx_rpc_msg *msg, hx_json_writer *out)
{
    const char *asked = hx_json_str(hx_json_obj_get(msg->params, "protocolVersion"), NULL);
    const char *chosen = protocol_versions[0];
    for (size_t i = 0; asked && i < sizeof protocol_versions / sizeof *protocol_versions; i++)
        if (!strcmp(asked, protocol_versions[i]))
            chosen = protocol_versions[i];
    snprintf(s->protocol, sizeof s->protocol, "%s", chosen);
    s->initialized = true;
    return hx_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_initialize, s, NULL);
}

/* server/discover (2026-07-28): the versions a per-request client may name, capabilities and
 * instructions. Answered in every protocol version and before initialize. */
static int write_discover(void *ctx, hx_json_writer *w, hx_error *err)
{
    (void)ctx;
    (void)err;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "supportedVersions");
    hx_json_write_arr_begin(w);
    hx_json_write_cstr(w, MODERN_VERSION);
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "capabilities");
    hx_json_write_json(w, capabilities, sizeof capabilities - 1);
    hx_json_write_key(w, "serverInfo");
    hx_json_write_json(w, server_info, sizeof server_info - 1);
    hx_json_write_key(w, "instructions");
    hx_json_write_cstr(w, instructions);
    mcp_write_result_tail(w, true, 0);
    hx_json_write_obj_end(w);
    return 0;
}

/* An empty result ({} or, in 2026-07-28, its tail alone). */
static int write_empty(void *ctx, hx_json_writer *w, hx_error *err)
{
    (void)err;
    hx_json_write_obj_begin(w);
    mcp_write_result_tail(w, ((const mcp_server *)ctx)->modern, -1);
    hx_json_write_obj_end(w);
    return 0;
}

/* tools/list: always the table's order, so two lists compare equal byte for byte. */
static int write_tools_list(void *ctx, hx_json_writer *w, hx_error *err)
{
    (void)err;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "tools");
    hx_json_write_arr_begin(w);
    for (int t = 0; t < MCP_TOOL_COUNT; t++) {
        const mcp_tool *tool = &hx_mcp_tools[t];
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "name");
        hx_json_write_cstr(w, tool->name);
        hx_json_write_key(w, "description");
        hx_json_write_cstr(w, tool->description);
        hx_json_write_key(w, "inputSchema");
        mcp_args_schema(w, tool->args);
        hx_json_write_key(w, "outputSchema");
        hx_json_write_json(w, tool->output_schema, strlen(tool->output_schema));
        hx_json_write_key(w, "annotations");
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "readOnlyHint");
        hx_json_write_bool(w, !tool->writes);
        hx_json_write_key(w, "openWorldHint");
        hx_json_write_bool(w, 0);
        hx_json_write_obj_end(w);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    mcp_write_result_tail(w, ((const mcp_server *)ctx)->modern, TOOLS_TTL_MS);
    hx_json_write_obj_end(w);
    return 0;
}

static void tools_call(mcp_server *s, const hx_rpc_msg *msg, mcp_sink *sink, hx_json_writer *out, bool *deferred)
{
    size_t name_len;
    const char *name = hx_json_str(hx_json_obj_get(msg->params, "name"), &name_len);
    const hx_json_val *args = hx_json_obj_get(msg->params, "arguments");
    if (!name) {
        hx_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                           "tools/call needs params.name, the name of a tool from tools/list", NULL, 0, NULL);
        return;
    }
    if (args && hx_json_type_of(args) != HX_JSON_OBJECT) {
        hx_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                           "tools/call params.arguments must be an object", NULL, 0, NULL);
        return;
    }
    int t = tool_index(name, name_len);
    if (t == MCP_TOOL_COUNT) {
        char m[160];
        snprintf(m, sizeof m, "Unknown tool: %.*s (tools/list names the tools)", (int)(name_len > 64 ? 64 : name_len), name);
        hx_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS, m, NULL, 0, NULL);
        return;
    }
    if (hx_mcp_tools[t].writes && s->cfg->read_only) {
        hx_json_writer empty;
        hx_json_writer_init(&empty);
        char m[200];
        snprintf(m, sizeof m, "%s changes the index, and this server runs with --read-only: restart it without "
                              "--read-only to allow changes", hx_mcp_tools[t].name);
        tool_outcome o = {&empty, m, s->modern};
        hx_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_tool_result, &o, NULL);
        hx_json_writer_free(&empty);
        return;
    }
    if (hx_mcp_tools[t].writes) {
        *deferred = enqueue(s, t, msg, args, sink, out);
        return;
    }
    hx_json_doc *empty_doc = NULL;
    if (!args) {
        hx_json_parse(&empty_doc, "{}", 2, NULL, NULL);
        args = hx_json_doc_root(empty_doc);
    }
    run_tool(s, t, args, msg->id_json, msg->id_len, s->modern, out);
    hx_json_doc_free(empty_doc);
}

/* Sets s->modern from params._meta: a request that names protocol 2026-07-28 there (with the
 * client's capabilities, which that version requires) needs no initialize, and its result says
 * resultType. 0, or -1 with the JSON-RPC error for a named version hyrax does not speak. */
static int read_envelope(mcp_server *s, const hx_rpc_msg *msg, hx_json_writer *out)
{
    const hx_json_val *meta = hx_json_obj_get(msg->params, "_meta");
    const hx_json_val *v = hx_json_obj_get(meta, META_VERSION);
    s->modern = false;
    if (!v)
        return 0;
    size_t n;
    const char *version = hx_json_str(v, &n);
    if (!version || !hx_json_obj_get(meta, META_CAPABILITIES)) {
        hx_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                           "params._meta must carry " META_VERSION " (a string) and " META_CAPABILITIES, NULL, 0,
                           NULL);
        return -1;
    }
    if (n != strlen(MODERN_VERSION) || memcmp(version, MODERN_VERSION, n)) {
        hx_json_writer d;
        hx_json_writer_init(&d);
        hx_json_write_obj_begin(&d);
        hx_json_write_key(&d, "supported");
        hx_json_write_json(&d, "[\"" MODERN_VERSION "\"]", sizeof MODERN_VERSION + 3);
        hx_json_write_key(&d, "requested");
        hx_json_write_str(&d, version, n);
        hx_json_write_obj_end(&d);
        hx_rpc_write_error(out, msg->id_json, msg->id_len, MCP_ERR_UNSUPPORTED_VERSION,
                           "Unsupported protocol version (initialize offers 2024-11-05 to 2025-11-25)", d.buf, d.len,
                           NULL);
        hx_json_writer_free(&d);
        return -1;
    }
    s->modern = true;
    return 0;
}

/* One message: lifecycle, discovery, tools/list, tools/call, cancellation. sink: where a write
 * job answers, and whose session a cancellation names (NULL: stdio, out_fd). */
static int handle_msg(mcp_server *s, const hx_rpc_msg *msg, mcp_sink *sink, hx_json_writer *out)
{
    if (msg->kind == HX_RPC_NOTIFICATION) {
        if (!strcmp(msg->method, "notifications/cancelled") && msg->params)
            cancel_request(s, msg->params, sink);
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
        return hx_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_discover, s, NULL);
    if (!strcmp(msg->method, "ping"))
        return hx_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_empty, s, NULL);
    if (!s->initialized && !s->modern) {
        snprintf(m, sizeof m, "Server not initialized: send initialize before %.64s (only ping and server/discover "
                 "may come first), or name protocol " MODERN_VERSION " in params._meta", msg->method);
        return hx_rpc_write_error(out, msg->id_json, msg->id_len, MCP_ERR_NOT_INITIALIZED, m, NULL, 0, NULL);
    }
    if (!strcmp(msg->method, "tools/list"))
        return hx_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_tools_list, s, NULL);
    if (!strcmp(msg->method, "tools/call")) {
        bool deferred = false;
        tools_call(s, msg, sink, out, &deferred);
        return deferred ? HX_RPC_DEFERRED : 0;
    }
    if (!strcmp(msg->method, "resources/list"))
        return mcp_resources_list(s, msg, out);
    if (!strcmp(msg->method, "resources/read"))
        return mcp_resources_read(s, msg, out);
    if (!strcmp(msg->method, "resources/templates/list"))
        return mcp_resource_templates(s, msg, out);
    snprintf(m, sizeof m, "Method not found: %.64s", msg->method);
    return hx_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_METHOD_NOT_FOUND, m, NULL, 0, NULL);
}

/* The JSON-RPC handler of the stdio loop (rpc.h). */
static int handle(void *ctx, const hx_rpc_msg *msg, hx_json_writer *out)
{
    return handle_msg(ctx, msg, NULL, out);
}

int mcp_handle_msg(mcp_server *s, const hx_rpc_msg *msg, mcp_sink *sink, hx_json_writer *out)
{
    hx_json_writer_reset(out);
    int rc = handle_msg(s, msg, sink, out);
    if (rc != HX_RPC_DEFERRED && msg->kind == HX_RPC_REQUEST && (rc || hx_json_writer_finish(out, NULL)))
        hx_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR, "internal error", NULL, 0, NULL);
    return rc == HX_RPC_DEFERRED ? rc : 0;
}

int mcp_call_read_tool(mcp_server *s, const char *name, const char *args, size_t args_len, hx_json_writer *out,
                       char *message, size_t cap)
{
    int t = tool_index(name, strlen(name));
    hx_json_doc *doc = NULL, *translated = NULL;
    hx_error err = {0};
    if (t == MCP_TOOL_COUNT || hx_mcp_tools[t].writes)
        return snprintf(message, cap, "no read tool called %s", name), -1;
    if (hx_json_parse(&doc, args, args_len, NULL, &err))
        return snprintf(message, cap, "arguments: %s", err.message), -1;
    double t0 = mono_ms();
    const hx_json_val *a = hx_json_doc_root(doc);
    hx_json_writer_reset(out);
    int r = mcp_args_check(hx_mcp_tools[t].args, a, message, cap) ? -1 : runner_of(t, &a, &translated, message, cap);
    int rc = r < 0 ? -1 : run_guarded(s, r, a, out, message, cap);
    if (!rc && hx_json_writer_finish(out, &err))
        rc = (snprintf(message, cap, "internal error building the result: %s", err.message), -1);
    hx_json_doc_free(translated);
    hx_json_doc_free(doc);
    note_latency(s, t, mono_ms() - t0);
    return rc;
}

/* === Progress === */

int mcp_progress(mcp_server *s, size_t done, size_t total, const char *path)
{
    (void)path;
    s = home_of(s);
    pthread_mutex_lock(&s->lock);
    mcp_job *j = s->running;
    char *token = j && j->progress && !j->cancelled ? hx_strdup(j->progress) : NULL;
    mcp_sink *sink = j ? j->sink : NULL;
    pthread_mutex_unlock(&s->lock);
    if (token) {   /* only the worker changes s->running, and it is the caller: j stays valid */
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_json_write_obj_begin(&w);
        hx_json_write_key(&w, "jsonrpc");
        hx_json_write_cstr(&w, "2.0");
        hx_json_write_key(&w, "method");
        hx_json_write_cstr(&w, "notifications/progress");
        hx_json_write_key(&w, "params");
        hx_json_write_obj_begin(&w);
        hx_json_write_key(&w, "progressToken");
        hx_json_write_json(&w, token, strlen(token));
        hx_json_write_key(&w, "progress");
        hx_json_write_uint(&w, done);
        hx_json_write_key(&w, "total");
        hx_json_write_uint(&w, total);
        hx_json_write_obj_end(&w);
        hx_json_write_obj_end(&w);
        if (!hx_json_writer_finish(&w, NULL)) {
            if (sink)
                sink_put(sink, &w, false);
            else
                send_line(s, &w);
        }
        hx_json_writer_free(&w);
        free(token);
    }
    return mcp_should_stop(s);
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

int mcp_server_start(mcp_server *s, const hx_mcp_config *cfg, int out_fd, hx_error *err)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->out_fd = out_fd;
    s->started_ns = now_ns();
    s->transport = "stdio";
    snprintf(s->protocol, sizeof s->protocol, "%s", protocol_versions[0]);
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->out_lock, NULL);
    pthread_mutex_init(&s->write_lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    if (hx_stats_open(&s->stats, cfg->db, cfg->identity, HX_STATS_FLUSH_MS, err))
        return err->code;
    if (pthread_create(&s->loader_thread, NULL, load_model, s)) {
        hx_stats_close(s->stats);
        return hx_error_set(err, HX_ENOMEM, -1, "cannot start the model loader thread");
    }
    if (pthread_create(&s->worker_thread, NULL, worker_main, s)) {
        pthread_join(s->loader_thread, NULL);
        hx_stats_close(s->stats);
        return hx_error_set(err, HX_ENOMEM, -1, "cannot start the worker thread");
    }
    if (cfg->watch) {
        hx_watch_config wc = {.db = cfg->db, .root = cfg->root, .model = watch_model, .model_ctx = s,
                              .threads = cfg->threads, .poll_ms = cfg->watch_poll_ms,
                              .force_poll = cfg->watch_poll_ms > 0, .stats = s->stats,
                              .write_lock = watch_write_lock, .write_ctx = s};
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
        job_free(j);
    }
    hx_index_close(s->reader);
    hx_index_close(s->user_reader);
    mcp_tiers_free(s);
    hx_encoder_free(s->reader_enc);
    hx_encoder_free(s->writer_enc);
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

void mcp_view_init(mcp_server *view, mcp_server *home, const char *transport)
{
    memset(view, 0, sizeof *view);
    view->home = home;
    view->cfg = home->cfg;
    view->out_fd = -1;
    view->started_ns = home->started_ns;
    view->initialized = true;   /* stateless: every request stands alone */
    view->transport = transport;
    snprintf(view->protocol, sizeof view->protocol, "%s", protocol_versions[0]);
}

void mcp_view_free(mcp_server *view)
{
    hx_index_close(view->reader);
    hx_index_close(view->user_reader);
    mcp_tiers_free(view);
    hx_encoder_free(view->reader_enc);
    view->reader = NULL;
    view->user_reader = NULL;
    view->reader_enc = NULL;
}

int hx_mcp_serve(int in_fd, int out_fd, const hx_mcp_config *cfg, hx_error *err)
{
    mcp_server s;
    int rc = mcp_server_start(&s, cfg, out_fd, err);
    if (rc)
        return rc;
    hx_rpc_reader r;
    hx_json_writer out;
    hx_json_writer_init(&out);
    rc = hx_rpc_reader_init(&r, in_fd, 0, err);
    bool now = false;
    while (!rc) {
        if (!keep_going(in_fd, cfg->stop_fd, r.start == r.len)) {
            now = true;
            break;
        }
        const char *line;
        size_t len;
        hx_error rerr = {0};
        int rr = hx_rpc_reader_next(&r, &line, &len, &rerr);
        if (rr == HX_ERANGE) {
            char m[128];
            snprintf(m, sizeof m, "message of %lld bytes is longer than the %zu-byte limit", (long long)rerr.offset,
                     r.max_line);
            hx_json_writer_reset(&out);
            hx_rpc_write_error(&out, NULL, 0, HX_RPC_INVALID_REQUEST, m, NULL, 0, NULL);
            send_line(&s, &out);
            continue;
        }
        if (rr) {
            fprintf(stderr, "hyrax serve: %s\n", rerr.message);
            break;
        }
        if (!line)
            break;   /* end of input */
        hx_rpc_dispatch(line, len, NULL, handle, &s, &out, NULL);
        send_line(&s, &out);
    }
    mcp_server_stop(&s, now);
    hx_rpc_reader_free(&r);
    hx_json_writer_free(&out);
    return rc;
}
