/* mcp_jobs.c: the write jobs of `hyrax serve`: the bounded queue and its worker thread, which runs
 * write tools in order; the sinks an HTTP request waits on; cancellation; progress notifications;
 * and what index_health and document_status say of them (pending paths, recent failures).
 * Locking in mcp_state.h. */
#include "mcp_state.h"
#include "present.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool mcp_should_stop(mcp_server *s)
{
    pthread_mutex_lock(&s->lock);
    bool stop = s->stopping_now || (s->running && s->running->cancelled);
    pthread_mutex_unlock(&s->lock);
    return stop;
}

/* === Failures and pending paths (document_status, index_health) === */

void mcp_note_failure(mcp_server *s, const char *path, const char *reason)
{
    pthread_mutex_lock(&s->lock);
    size_t i = s->next_failure;
    free(s->failures[i].path);
    free(s->failures[i].reason);
    s->failures[i].path = hx_strdup(path);
    s->failures[i].reason = hx_strdup(reason);
    s->failures[i].at_ns = mcp_now_ns();
    s->next_failure = (i + 1) % MCP_FAILURES;
    if (s->n_failures < MCP_FAILURES)
        s->n_failures++;
    pthread_mutex_unlock(&s->lock);
}

bool mcp_failure_for(mcp_server *s, const char *path, char *reason, size_t cap)
{
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
 * compared in their clean form (hx_relpath_clean), as the tools will use them. */
static bool job_touches(const mcp_job *j, const char *path)
{
    hxi_json_doc *doc = NULL;
    bool hit = false;
    char clean[HX_RELPATH_MAX];
    if (hxi_json_parse(&doc, j->args, j->args_len, NULL, NULL))
        return false;
    const hxi_json_val *a = hxi_json_doc_root(doc);
    const char *keys[] = {"path", "name"};
    for (int k = 0; k < 2 && !hit; k++) {
        const char *v = hxi_json_str(hxi_json_obj_get(a, keys[k]), NULL);
        hit = v && !hx_relpath_clean(v, clean, sizeof clean, NULL) && !strcmp(clean, path);
    }
    if (!hit && !strcmp(j->name, "reindex")) {
        const hxi_json_val *paths = hxi_json_obj_get(a, "paths");
        if (!paths || !hxi_json_len(paths))
            hit = true;   /* everything */
        for (size_t i = 0; !hit && paths && i < hxi_json_len(paths); i++) {
            const char *p = hxi_json_str(hxi_json_arr_get(paths, i), NULL);
            size_t n = p && !hx_relpath_clean(p, clean, sizeof clean, NULL) ? strlen(clean) : SIZE_MAX;
            hit = n != SIZE_MAX && (!n || (!strncmp(path, clean, n) && (path[n] == 0 || path[n] == '/')));
        }
    }
    hxi_json_doc_free(doc);
    return hit;
}

bool mcp_path_pending(mcp_server *s, const char *path)
{
    bool hit = false;
    pthread_mutex_lock(&s->lock);
    if (s->running)
        hit = job_touches(s->running, path);
    for (const mcp_job *j = s->queue_head; j && !hit; j = j->next)
        hit = job_touches(j, path);
    pthread_mutex_unlock(&s->lock);
    return hit;
}

void mcp_write_health_jobs(mcp_server *s, hxi_json_writer *w)
{
    pthread_mutex_lock(&s->lock);
    hxi_json_kv_uint(w, "pending_jobs", s->queued_jobs);
    hxi_json_write_key(w, "running_job");
    if (s->running)
        hxi_json_write_cstr(w, s->running->name);
    else
        hxi_json_write_null(w);
    hxi_json_kv_uint(w, "jobs_done", s->jobs_done);
    hxi_json_kv_uint(w, "jobs_failed", s->jobs_failed);
    hxi_json_kv_uint(w, "jobs_busy", s->jobs_busy);
    pthread_mutex_unlock(&s->lock);
}

void mcp_write_failures(mcp_server *s, hxi_json_writer *w)
{
    pthread_mutex_lock(&s->lock);
    hxi_json_write_arr_begin(w);
    for (size_t k = 0; k < s->n_failures; k++) {
        size_t i = (s->next_failure + MCP_FAILURES - 1 - k) % MCP_FAILURES;
        hxi_json_write_obj_begin(w);
        hxi_present_reason(w, s->failures[i].path, s->failures[i].reason);
        hxi_json_kv_int(w, "at_ns", s->failures[i].at_ns);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    pthread_mutex_unlock(&s->lock);
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
static void sink_put(mcp_sink *k, const hxi_json_writer *msg, bool done)
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
static void job_send(mcp_server *s, mcp_job *j, const hxi_json_writer *w, bool done)
{
    mcp_sink *k = j->sink;
    if (k && done)
        j->sink = NULL;
    if (k)
        sink_put(k, w, done);
    else if (w)
        mcp_send_line(s, w);
}

void mcp_job_free(mcp_job *j)
{
    if (j->sink)
        sink_put(j->sink, NULL, true);   /* dropped unanswered (an answer let the sink go) */
    free(j->progress);
    free(j->id);
    free(j->args);
    free(j);
}

void *mcp_worker_main(void *arg)
{
    mcp_server *s = arg;
    hxi_json_writer out;
    hxi_json_writer_init(&out);
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

        double t0 = mcp_mono_ms();
        hxi_json_doc *doc = NULL;
        hx_error err = {0};
        int rc = -1;
        if (hxi_json_parse(&doc, j->args, j->args_len, NULL, &err) == 0) {
            pthread_mutex_lock(&s->write_lock);   /* the watcher's batches wait meanwhile */
            rc = j->run(&s->worker, j->tool, hxi_json_doc_root(doc), j->id, j->id_len, j->modern, &out);
            pthread_mutex_unlock(&s->write_lock);
            hxi_json_doc_free(doc);
        } else {
            hxi_rpc_write_error(&out, j->id, j->id_len, HX_RPC_INTERNAL_ERROR, "arguments lost", NULL, 0, NULL);
        }
        double ms = mcp_mono_ms() - t0;
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
        mcp_job_free(j);
    }
    hxi_json_writer_free(&out);
    return NULL;
}

/* Answers a write that finds the queue full: MCP_ERR_BUSY, with the queue's size and a retry
 * hint of about one job's time (a finished job makes room; 1 s before any job has finished),
 * 100 ms to 60 s. Under the lock. */
static void write_busy(mcp_server *s, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    double wait = s->job_ms > 0 ? (s->job_ms > 100 ? s->job_ms : 100) : 1000;
    uint64_t retry_ms = wait < 60000 ? (uint64_t)wait : 60000;
    char m[256], data[160];
    snprintf(m, sizeof m, "hyrax is busy: %zu writes (%.1f MB) are waiting, as many as it queues (%d writes or %zu MB); "
             "retry in about %.1f s (error.data.retry_after_ms)", s->queued_jobs, (double)s->queued_bytes / 1048576.0,
             MCP_QUEUE_MAX_JOBS, MCP_QUEUE_MAX_BYTES >> 20, (double)retry_ms / 1000.0);
    snprintf(data, sizeof data, "{\"retry_after_ms\":%llu,\"pending_jobs\":%zu,\"pending_bytes\":%zu}",
             (unsigned long long)retry_ms, s->queued_jobs, s->queued_bytes);
    hxi_rpc_write_error(out, msg->id_json, msg->id_len, MCP_ERR_BUSY, m, data, strlen(data), NULL);
    s->jobs_busy++;
}

/* Queues a write job for the worker and returns true (the worker answers it), or leaves the
 * answer in out and returns false: busy over the queue bounds, or out of memory. */
bool mcp_enqueue(mcp_session *session, int tool, const char *name, mcp_job_run run, const hxi_rpc_msg *msg,
                 const hxi_json_val *args, mcp_sink *sink, hxi_json_writer *out)
{
    mcp_server *s = session->server;
    bool modern = session->modern;
    hx_error err = {0};
    mcp_job *j = hx_calloc(1, sizeof *j);
    hxi_json_writer aw;
    hxi_json_writer_init(&aw);
    if (args)
        hxi_json_write_val(&aw, args);
    else {
        hxi_json_write_obj_begin(&aw);
        hxi_json_write_obj_end(&aw);
    }
    if (!j || hxi_json_writer_finish(&aw, &err) || !(j->id = hx_malloc(msg->id_len + 1))) {
        free(j);
        hxi_json_writer_free(&aw);
        hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR, "out of memory queueing a write",
                            NULL, 0, NULL);
        return false;
    }
    memcpy(j->id, msg->id_json, msg->id_len);
    j->id[msg->id_len] = 0;
    j->id_len = msg->id_len;
    j->args = hxi_json_writer_take(&aw, &j->args_len);
    j->tool = tool;
    j->name = name;
    j->run = run;
    j->modern = modern;
    const hxi_json_val *token = hxi_json_obj_get(hxi_json_obj_get(msg->params, "_meta"), "progressToken");
    if (token && (hxi_json_type_of(token) == HX_JSON_STRING || hxi_json_type_of(token) == HX_JSON_NUMBER)) {
        hxi_json_writer tw;
        hxi_json_writer_init(&tw);
        hxi_json_write_val(&tw, token);
        j->progress = hxi_json_writer_take(&tw, NULL);   /* NULL (no progress) when out of memory */
        hxi_json_writer_free(&tw);
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
        mcp_job_free(j);
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
        mcp_job_free(j);
    }
    if (s->running && job_named(s->running, k))
        s->running->cancelled = true;
    pthread_mutex_unlock(&s->lock);
}

/* notifications/cancelled: on stdio (sink NULL) it names a request of this client; over HTTP
 * (sink: the notification's request) one of the same Mcp-Session-Id, and without a session it is
 * ignored, since request ids are unique only within a session (a 2026-07-28 client cancels by
 * closing the request's stream: mcp_cancel_sink). */
void mcp_cancel_request(mcp_server *s, const hxi_json_val *params, const mcp_sink *sink)
{
    const hxi_json_val *rid = hxi_json_obj_get(params, "requestId");
    if (!rid || (sink && !sink->session))
        return;
    hxi_json_writer idw;
    hxi_json_writer_init(&idw);
    hxi_json_write_val(&idw, rid);
    if (!hxi_json_writer_finish(&idw, NULL))
        cancel_jobs(s, &(job_key){.session = sink ? sink->session : NULL, .id = idw.buf, .id_len = idw.len});
    hxi_json_writer_free(&idw);
}

void mcp_cancel_sink(mcp_server *s, mcp_sink *sink)
{
    cancel_jobs(s, &(job_key){.sink = sink});
}

/* === Progress === */

int mcp_progress(mcp_server *s, size_t done, size_t total, const char *path)
{
    (void)path;
    pthread_mutex_lock(&s->lock);
    mcp_job *j = s->running;
    char *token = j && j->progress && !j->cancelled ? hx_strdup(j->progress) : NULL;
    mcp_sink *sink = j ? j->sink : NULL;
    pthread_mutex_unlock(&s->lock);
    if (token) {   /* only the worker changes s->running, and it is the caller: j stays valid */
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_json_write_obj_begin(&w);
        hxi_json_kv_cstr(&w, "jsonrpc", "2.0");
        hxi_json_kv_cstr(&w, "method", "notifications/progress");
        hxi_json_write_key(&w, "params");
        hxi_json_write_obj_begin(&w);
        hxi_json_write_key(&w, "progressToken");
        hxi_json_write_json(&w, token, strlen(token));
        hxi_json_kv_uint(&w, "progress", done);
        hxi_json_kv_uint(&w, "total", total);
        hxi_json_write_obj_end(&w);
        hxi_json_write_obj_end(&w);
        if (!hxi_json_writer_finish(&w, NULL)) {
            if (sink)
                sink_put(sink, &w, false);
            else
                mcp_send_line(s, &w);
        }
        hxi_json_writer_free(&w);
        free(token);
    }
    return mcp_should_stop(s);
}

