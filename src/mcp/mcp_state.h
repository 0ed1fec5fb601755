/* mcp_state.h: the state of the MCP server (mcp_state.c; mcp.c, mcp_jobs.c) and its tools (mcp_tools.c,
 * mcp_tool_*.c): an mcp_server shared by every connection, and an mcp_session per connection.
 * Threads: stdio's main thread (or each HTTP request thread) reads messages and answers reads in
 * its session, with its own index reader and encoder; one worker thread runs write tools
 * (reindex, add_document, delete_document) in order in the worker's session, with a writer
 * opened per job, so queries keep being answered from the last commit meanwhile. The server's
 * `lock` guards the job queue and the statistics; `out_lock` the output descriptor (a write to a
 * peer that reads slowly never holds up the queue). */
#ifndef HX_MCP_STATE_H
#define HX_MCP_STATE_H

#include "json.h"
#include "mcp.h"
#include "mcp_args.h"
#include "mcp_output.h"
#include "present.h"
#include "metrics.h"
#include "rpc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* Write jobs waiting behind the running one: at most this many, holding at most this many bytes
 * of arguments (an empty queue takes any message the line reader let through). Over either
 * bound a write is answered at once with MCP_ERR_BUSY and a retry hint, so 300 pipelined 1 MB
 * add_document calls cost 32 MiB, not 300 MB. */
#define MCP_QUEUE_MAX_JOBS 64
#define MCP_QUEUE_MAX_BYTES ((size_t)32 << 20)

/* hyrax's own JSON-RPC errors, in the range JSON-RPC leaves to servers (-32000..-32099). */
/* The code of a failure e describes, never 0 (HX_EINVAL when it names none): what a function of
 * the server returns after a callee filled e. */
#define MCP_CODE(e) ((e).code ? (e).code : HX_EINVAL)
/* err = the failure inner describes, its message led by the printf-style prefix fmt when both fit
 * in err's message, else inner's message alone (the one that says what to change); the code. */
int mcp_error_wrap(hx_error *err, const hx_error *inner, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

enum {
    MCP_ERR_NOT_INITIALIZED = -32000,   /* a request other than initialize or ping came first */
    MCP_ERR_BUSY = -32003,              /* write queue full; error.data.retry_after_ms says when */
};
#define MCP_FAILURES 64           /* recent rejected files kept for document_status */

struct mcp_session;
/* What a write job runs: tool `tool` on args, leaving the response for request id in out
 * (mcp_run_tool); 0 or the HX_E* code of an isError answer. */
typedef int (*mcp_job_run)(struct mcp_session *s, int tool, const hxi_json_val *args, const char *id, size_t id_len,
                           bool modern, hxi_json_writer *out);

typedef struct mcp_job {
    int tool;                     /* index into the tool table */
    const char *name;             /* borrowed from the tool table: the tool's name */
    mcp_job_run run;              /* what the worker runs */
    char *id;                     /* owned: exact JSON text of the request id */
    size_t id_len;
    char *args;                   /* owned: JSON text of the arguments object */
    size_t args_len;
    bool cancelled;               /* notifications/cancelled arrived: send no response */
    bool modern;                  /* asked in protocol 2026-07-28 (results carry resultType) */
    char *progress;               /* owned: JSON text of params._meta.progressToken; NULL for none */
    struct mcp_sink *sink;        /* borrowed: where the answer goes (HTTP); NULL: out_fd */
    struct mcp_job *next;
} mcp_job;

/* Where a write job's messages go when they do not go to out_fd: an HTTP request waiting for its
 * answer (http_server.c). The worker appends progress notifications and finally the response,
 * each one JSON text ending in '\n', and sets done; the waiting thread takes them with
 * mcp_sink_take. The waiting thread owns the sink and frees it only once done is set. */
#define MCP_SESSION_MAX 128       /* bytes of an Mcp-Session-Id (HTTP) */

typedef struct mcp_sink {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    char *buf;                    /* owned: messages not taken yet, each ending in '\n' */
    size_t len, cap;
    bool done;                    /* the response is in buf, or the job was dropped unanswered */
    const char *session;          /* borrowed: the request's Mcp-Session-Id, NULL for none; a
                                     notifications/cancelled names the jobs of its own session */
} mcp_sink;

void mcp_sink_init(mcp_sink *k);
void mcp_sink_free(mcp_sink *k);
/* Waits at most wait_ms for a message or for done, appends what is pending to *buf (hx_grow'n;
 * the caller's) and returns whether the job is done and everything taken. */
bool mcp_sink_take(mcp_sink *k, char **buf, size_t *len, size_t *cap, int wait_ms);

/* One connection's state: stdio's, an HTTP request thread's, or the worker's (write tools run in
 * it). Used by one thread at a time; what the connections share is its server's. */
typedef struct mcp_session {
    struct mcp_server *server;    /* borrowed: the shared state */
    const hxi_mcp_config *cfg;     /* the server's */
    const char *transport;        /* "stdio" or "http", for metrics; NULL: the server's */
    bool initialized;             /* initialize answered (stdio); HTTP requests stand alone */
    bool modern;                  /* the message being answered speaks 2026-07-28 */
    char protocol[16];            /* the version initialize chose */
    size_t resource_from;         /* resources/list: the page being written */

    hx_model *model;              /* borrowed from the server once loaded (mcp_session_model) */
    hx_encoder *enc;              /* owned; NULL until first needed */
    int enc_threads;              /* its threads: 1 for queries, the server's for the worker's writes */
    hx_index *reader;             /* owned; NULL until an index exists */
    hx_read_taken read_taken;     /* the commit the reader was last pointed at */

    hx_session *ses;              /* owned: the tools' session (mcp_session_open); NULL until first needed */
} mcp_session;

/* One `hyrax serve`: what its connections share. */
typedef struct mcp_server {
    const hxi_mcp_config *cfg;
    int out_fd;
    pthread_mutex_t lock;
    pthread_mutex_t out_lock;     /* one message at a time on out_fd */
    pthread_cond_t wake;          /* job queued, model loaded, or stopping */

    /* model: loaded by a thread at start so initialize is answered at once */
    hx_model *model;              /* owned; NULL until loaded */
    bool model_done;
    char model_error[320];

    /* write jobs, run in order by the worker in its own session */
    mcp_job *queue_head, *queue_tail;
    mcp_job *running;
    bool stopping;                /* end of input: finish the queue, then stop */
    bool stopping_now;            /* stop_fd fired: abandon the queue and cancel the running job */
    size_t queued_jobs, queued_bytes;   /* waiting jobs and their argument bytes */
    mcp_session worker;           /* worker thread only */
    uint64_t jobs_done;           /* finished without error */
    uint64_t jobs_failed;         /* finished with isError, or cancelled queued or running */
    uint64_t jobs_busy;           /* refused with MCP_ERR_BUSY (the queue was full) */
    double job_ms;                /* moving average of a write job's time, for the retry hint */

    /* statistics for index_health: latency, hot queries and index updates that last (hyrax.h hx_stats;
     * `transport` below names this server's in them); the watcher of --watch (hyrax.h hx_watch), NULL
     * without it */
    hx_stats *stats;              /* owned */
    hx_watch *watch;              /* owned */
    pthread_mutex_t write_lock;   /* held by the worker while a job runs and by the watcher's batches */
    struct { char *path; char *reason; int64_t at_ns; } failures[MCP_FAILURES];
    size_t n_failures, next_failure;
    int64_t started_ns;
    const char *transport;        /* "stdio" or "http" (http_server.c sets it after start) */
    uint64_t listed;              /* bit t: tool t is listed and served (cfg->tools) */
    bool full_schemas;            /* --tools all: full input and output schemas in tools/list */
    struct hxi_metrics *metrics;   /* borrowed; NULL: not kept (stdio) */
    pthread_t loader_thread, worker_thread;
} mcp_server;

/* mcp_state.c: helpers the tools use */
/* 0 with s->model once the loader is done, or an HX_E* code with err set when loading failed. */
int mcp_session_model(mcp_session *s, hx_error *err);
/* 0 with s->ses open (hyrax.h "Session") on the server's model once it has loaded, or an HX_E*
 * code with err set. Only the worker's session writes (and none in a read-only server). */
int mcp_session_open(mcp_session *s, hx_error *err);
/* err, from a session call that returned rc reading at `at` (NULL: the head), in the words the
 * tools have always used: a missing index, a read_context no kept commit matches; the code. */
int mcp_session_error(const mcp_session *s, int rc, const hx_read_context *at, hx_error *err);
/* 0 with s->reader at the head (and the model and encoder started), or an HX_E* code with err set. */
int mcp_session_reader(mcp_session *s, hx_error *err);

/* Point-in-time reads (`hyrax help baselines`). Every query tool puts MCP_ARG_READ_CONTEXT
 * in its table, opens the reader with mcp_open_reader_for (instead of mcp_session_reader) and ends
 * its answer with mcp_write_read_context. A tool with no read_context reads the head, the default
 * of every tool. */
extern const mcp_arg mcp_read_context_args[];
#define MCP_ARG_READ_CONTEXT                                                                                  \
    {"read_context", MCP_OBJECT, .props = mcp_read_context_args,                                              \
     .description = "Which state of the index to read; default the head (the last commit). "   \
                    "The answer's read_context says which commit answered."}
/* The arguments' read_context as a hx_read_context (strings borrowed from the arguments); 0, or
 * HX_EINVAL with err set when it is not a valid one. */
int mcp_read_context(const mcp_args *a, hx_read_context *out, hx_error *err);
/* 0 with s->reader pointed at the commit the arguments' read_context selects (and s->read_taken
 * saying which), or an HX_E* code with err saying what is kept when there is no such commit. */
int mcp_open_reader_for(mcp_session *s, const mcp_args *a, hx_error *err);
/* "read_context": {selector, baseline_id, as_of, generation, committed_at} of s->read_taken. */
void mcp_write_read_context(hxi_json_writer *w, const mcp_session *s);
/* Its shape, a row of an output description's fields (mcp_output.h). */
extern const mcp_field mcp_read_context_fields[];
#define MCP_OUT_READ_CONTEXT                                                                                  \
    {"read_context", MCP_JSON_OBJECT, .props = mcp_read_context_fields,                                       \
     MCP_REQUIRED("selector", "baseline_id", "as_of", "generation", "committed_at")}

void mcp_note_query(mcp_session *s, const char *query);
void mcp_note_failure(mcp_server *s, const char *path, const char *reason);
bool mcp_path_pending(mcp_server *s, const char *path);
void mcp_write_health_jobs(mcp_server *s, hxi_json_writer *w);
void mcp_write_failures(mcp_server *s, hxi_json_writer *w);
bool mcp_failure_for(mcp_server *s, const char *path, char *reason, size_t cap);
bool mcp_should_stop(mcp_server *s);   /* the server stops, or the running job was cancelled */
/* A write tool's progress: sends notifications/progress when its call asked for them (a
 * progressToken), and returns mcp_should_stop. */
int mcp_progress(mcp_server *s, size_t done, size_t total, const char *path);

/* The members a 2026-07-28 result ends with: resultType, _meta.serverInfo and, for a cacheable
 * result (ttl_ms >= 0: discovery and the lists), ttlMs and cacheScope "private". Nothing when
 * !modern. */
void mcp_write_result_tail(hxi_json_writer *w, bool modern, int64_t ttl_ms);
/* The serverInfo object (name, title, the one version) as one JSON value. */
void mcp_write_server_info(hxi_json_writer *w);
/* The model loader thread (arg: the mcp_server): loads the model at the index's precision, sets
 * model, model_done (and model_error) under lock and wakes waiters. */
void *mcp_load_model(void *arg);
/* hx_watch_config's hooks for `serve --watch` (ctx: the mcp_server): the server's write_lock
 * taken or released, and the model once the loader is done (NULL when loading failed). */
void mcp_watch_write_lock(void *ctx, int take);
const hx_model *mcp_watch_model(void *ctx);

/* === Between the server's files: mcp.c, mcp_state.c, mcp_jobs.c (the write queue), mcp_tools.c (tool calls) === */

int64_t mcp_now_ns(void);     /* wall clock */
double mcp_mono_ms(void);     /* monotonic clock */
/* Writes one reply line; errors are logged (the peer may be gone), except the stop that
 * interrupts a write the peer is not reading. Takes out_lock. */
void mcp_send_line(mcp_server *s, const hxi_json_writer *w);
/* Runs tool t on args in session s and leaves the JSON-RPC response for `id` in out; returns the
 * tool's result: 0, or an HX_E* code for an isError answer. */
int mcp_run_tool(mcp_session *s, int t, const hxi_json_val *args, const char *id, size_t id_len, bool modern,
                 hxi_json_writer *out);
/* The answer budget (mcp_tools.c, `hyrax help mcp`), the one rule for every tool answer and
 * every REST answer that can be large: how an answer is paged, the budget a call asked for, the
 * rows that ask (max_bytes; with cursor where a call can be repeated to go on). */
typedef struct mcp_page {
    const char *member;           /* the array whose items are left out from the end; NULL: none */
    const char *text;             /* NULL, or the string member made of the items' blocks (mcp_tool) */
    bool own_cursor;              /* the answer pages itself: next_cursor "o<offset + items given>" */
    bool repeatable;              /* a call can be repeated: next_cursor "<items given>.<args hash>" */
} mcp_page;
typedef struct mcp_budget {
    int64_t max_bytes;
    size_t skip;                  /* items of the page already given (the cursor) */
    uint32_t args_hash;           /* of the other arguments, in any order: a cursor names its call */
} mcp_budget;
extern const mcp_arg mcp_budget_args[], mcp_budget_cursor_args[];
/* Splits args into the call's own (*rest: caller frees; NULL when args has no budget member: use
 * args) and the budget's, checked against extra (one of the two tables above), into *b; 0 or
 * HX_EINVAL with err set (a cursor of another call). */
int mcp_budget_take(const mcp_arg *extra, const hxi_json_val *args, hxi_json_doc **rest, mcp_budget *b, hx_error *err);
/* Fits the answer in sw (a finished JSON object) to b as p pages it (a no-op for one that fits
 * from its first item); 0, or HX_EINVAL with err saying how large a budget it needs when not even
 * one item fits, or that the cursor is past the items there are now. */
int mcp_budget_fit(const mcp_page *p, hxi_json_writer *sw, const mcp_budget *b, hx_error *err);
/* The tools a --tools value names (NULL: core) as bits of the tool table in *listed, and whether
 * it asks for every tool (*all); 0, or HX_EINVAL with err naming the unknown word. */
int mcp_tools_select(const char *spec, uint64_t *listed, bool *all, hx_error *err);
/* tools/list's result (rpc.h hxi_rpc_write_result_fn; ctx: the session). */
int mcp_write_tools_list(void *ctx, hxi_json_writer *w, hx_error *err);
/* tools/call: answers in out, or queues a write job (*deferred: its answer goes to sink or out_fd). */
void mcp_tools_call(mcp_session *s, const hxi_rpc_msg *msg, mcp_sink *sink, hxi_json_writer *out, bool *deferred);
/* Queues a write job for the worker, which answers it with run (the queue knows no tool: the
 * caller names it) and returns true, or leaves the answer in out and returns false: busy over
 * the queue bounds, or out of memory. */
bool mcp_enqueue(mcp_session *s, int tool, const char *name, mcp_job_run run, const hxi_rpc_msg *msg,
                 const hxi_json_val *args, mcp_sink *sink, hxi_json_writer *out);
/* The worker thread (arg: the server), and a job's end: its sink told done, its memory freed. */
void *mcp_worker_main(void *arg);
void mcp_job_free(mcp_job *j);
/* notifications/cancelled (see mcp_jobs.c). */
void mcp_cancel_request(mcp_server *s, const hxi_json_val *params, const mcp_sink *sink);

/* mcp_resources.c: documents as resources (hyrax://doc/{path}); each writes the response. */
int mcp_resources_list(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out);
int mcp_resources_read(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out);
int mcp_resource_templates(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out);

/* === Serving over other transports (http_server.c) === */

/* Starts the model loader and the write worker of s; the caller stops them with mcp_server_stop
 * (now: abandon the queue and cancel the running job; else finish the queue first). */
int mcp_server_start(mcp_server *s, const hxi_mcp_config *cfg, int out_fd, hx_error *err);
void mcp_server_stop(mcp_server *s, bool now);
/* A session of server for one connection or thread (HTTP: "http"; every request stands alone, so
 * it needs no initialize); caller frees with mcp_session_free. */
void mcp_session_init(mcp_session *s, mcp_server *server, const char *transport);
void mcp_session_free(mcp_session *s);
/* Whether the model has loaded (without waiting); refreshes s->model. */
bool mcp_model_ready(mcp_session *s);
/* Answers one classified JSON-RPC message (hxi_rpc_msg_parse) in session s. Leaves the response
 * in out (empty for notifications and responses) and returns 0, or returns HX_RPC_DEFERRED when
 * a write job will answer through sink (which must stay until the sink says done). A
 * notifications/cancelled cancels the write job of sink's session with its requestId. */
int mcp_handle_msg(mcp_session *s, const hxi_rpc_msg *msg, mcp_sink *sink, hxi_json_writer *out);
/* Cancels the write job answering through sink: dropped when queued, told to stop when running
 * (HTTP: the client closed the connection). The sink then says done. */
void mcp_cancel_sink(mcp_server *s, mcp_sink *sink);

#endif
