/* mcp_internal.h: state shared by the MCP protocol loop (mcp.c) and the tools (mcp_tools.c).
 * Threads: the main thread reads messages and answers reads with its own index reader and
 * encoder; one worker thread runs write tools (reindex, add_document, delete_document) in order
 * with its own writer handle, so queries keep being answered from the last commit meanwhile.
 * `lock` guards the job queue and the statistics; `out_lock` the output descriptor (a write to a
 * peer that reads slowly never holds up the queue). */
#ifndef HX_MCP_INTERNAL_H
#define HX_MCP_INTERNAL_H

#include "json.h"
#include "mcp.h"
#include "mcp_args.h"
#include "stats.h"
#include "watch.h"

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
enum {
    MCP_ERR_NOT_INITIALIZED = -32000,   /* a request other than initialize or ping came first */
    MCP_ERR_BUSY = -32003,              /* write queue full; error.data.retry_after_ms says when */
};
#define MCP_FAILURES 64           /* recent rejected files kept for document_status */
#define MCP_TOOL_COUNT 21

typedef struct mcp_job {
    int tool;                     /* index into the tool table */
    char *id;                     /* owned: exact JSON text of the request id */
    size_t id_len;
    char *args;                   /* owned: JSON text of the arguments object */
    size_t args_len;
    bool cancelled;               /* notifications/cancelled arrived: send no response */
    struct mcp_job *next;
} mcp_job;

typedef struct mcp_server {
    const hx_mcp_config *cfg;
    int out_fd;
    pthread_mutex_t lock;
    pthread_mutex_t out_lock;     /* one message at a time on out_fd */
    bool initialized;             /* initialize answered; main thread only */
    pthread_cond_t wake;          /* job queued, model loaded, or stopping */

    /* model: loaded by a thread at start so initialize is answered at once */
    hx_model *model;              /* owned; NULL until loaded */
    bool model_done;
    char model_error[320];
    hx_encoder *reader_enc;       /* owned; main thread only */

    hx_index *reader;             /* owned; main thread only; NULL until an index exists */
    hx_read_taken read_taken;     /* main thread only: the commit the reader was last pointed at */

    /* write jobs, run in order by the worker */
    mcp_job *queue_head, *queue_tail;
    mcp_job *running;
    bool stopping;                /* end of input: finish the queue, then stop */
    bool stopping_now;            /* stop_fd fired: abandon the queue and cancel the running job */
    size_t queued_jobs, queued_bytes;   /* waiting jobs and their argument bytes */
    hx_encoder *writer_enc;       /* owned; worker thread only */
    uint64_t jobs_done;           /* finished without error */
    uint64_t jobs_failed;         /* finished with isError, or cancelled queued or running */
    uint64_t jobs_busy;           /* refused with MCP_ERR_BUSY (the queue was full) */
    double job_ms;                /* moving average of a write job's time, for the retry hint */

    /* statistics for index_health */
    /* latency, hot queries and index updates that last (stats.h); `transport` names this server's
     * in them ("stdio"); the watcher of --watch (watch.h), NULL without it */
    hx_stats *stats;              /* owned */
    const char *transport;
    hx_watch *watch;              /* owned */
    pthread_mutex_t write_lock;   /* held by the worker while a job runs and by the watcher's batches */
    struct { char *path; char *reason; int64_t at_ns; } failures[MCP_FAILURES];
    size_t n_failures, next_failure;
    int64_t started_ns;
    char protocol[16];
} mcp_server;

/* A tool: its name, its argument table (the inputSchema and the checks), its output schema and
 * what runs it: its own run, or its family's (a seed's name for a hyrax tool, such as seed 003's
 * semantic_search for search). */
typedef struct mcp_tool {
    const char *name;
    const char *description;
    const mcp_arg *args;          /* mcp_args.h; checked before run is called */
    const char *output_schema;    /* JSON text */
    bool writes;                  /* runs on the worker thread; refused with --read-only */
    /* Writes the structured result into w and returns 0, or returns non-zero after setting
     * *message (a sentence a person can act on) for an isError result. args passed the table. */
    int (*run)(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *message, size_t cap);
    /* NULL, or the name of the tool that runs this one: a call's arguments are translated by
     * this tool's table (mcp_args_translate), checked by the family's and run by its run. */
    const char *family;
} mcp_tool;

extern const mcp_tool hx_mcp_tools[MCP_TOOL_COUNT];

/* mcp.c: helpers the tools use */
int mcp_wait_model(mcp_server *s, char *message, size_t cap);   /* 0 when the model is ready */
int mcp_open_reader(mcp_server *s, char *message, size_t cap);  /* 0 with s->reader at the head */

/* Point-in-time reads (README "Point-in-time reads"). Every query tool puts MCP_ARG_READ_CONTEXT
 * in its table, opens the reader with mcp_open_reader_for (instead of mcp_open_reader) and ends
 * its answer with mcp_write_read_context. A tool with no read_context reads the head, the default
 * of every tool. */
extern const mcp_arg mcp_read_context_args[];
#define MCP_ARG_READ_CONTEXT                                                                                  \
    {"read_context", MCP_OBJECT, .props = mcp_read_context_args,                                              \
     .description = "Which state of the index to read (seed 001 5.2); default the head (the last commit). "   \
                    "The answer's read_context says which commit answered."}
/* 0 with s->reader pointed at the commit the arguments' read_context selects (and s->read_taken
 * saying which), or -1 with a message saying what is kept when there is no such commit. */
int mcp_open_reader_for(mcp_server *s, const mcp_args *a, char *message, size_t cap);
/* "read_context": {selector, baseline_id, as_of, generation, committed_at} of s->read_taken. */
void mcp_write_read_context(hx_json_writer *w, const mcp_server *s);
/* Its JSON Schema, a member of an outputSchema's properties. */
#define MCP_READ_CONTEXT_SCHEMA                                                                               \
    "\"read_context\":{\"type\":\"object\",\"properties\":{\"selector\":{\"type\":\"string\",\"enum\":[\"head\","       \
    "\"published\",\"baseline_id\",\"as_of\"]},\"baseline_id\":{\"type\":[\"string\",\"null\"]},\"as_of\":{\"type\":"      \
    "[\"string\",\"null\"]},\"generation\":{\"type\":\"integer\"},\"committed_at\":{\"type\":\"string\"}},\"required\":"    \
    "[\"selector\",\"baseline_id\",\"as_of\",\"generation\",\"committed_at\"]}"
void mcp_note_query(mcp_server *s, const char *query);
void mcp_note_failure(mcp_server *s, const char *path, const char *reason);
bool mcp_path_pending(mcp_server *s, const char *path);
void mcp_write_health_jobs(mcp_server *s, hx_json_writer *w);
void mcp_write_failures(mcp_server *s, hx_json_writer *w);
bool mcp_failure_for(mcp_server *s, const char *path, char *reason, size_t cap);
bool mcp_should_stop(mcp_server *s);   /* the server stops, or the running job was cancelled */

/* === Conversation memory (mcp_memory.c) === */
/* The reader identity of this server (hx_mcp_config tenant, user; "" when unset). */
void mcp_identity(const mcp_server *s, const char **tenant, const char **user);
extern const mcp_arg mcp_record_turn_args[], mcp_get_session_args[], mcp_search_history_args[], mcp_list_sessions_args[];
extern const char mcp_record_turn_out[], mcp_get_session_out[], mcp_search_history_out[], mcp_list_sessions_out[];
int mcp_tool_record_turn(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap);
int mcp_tool_get_session(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap);
int mcp_tool_search_history(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap);
int mcp_tool_list_sessions(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap);

#endif
