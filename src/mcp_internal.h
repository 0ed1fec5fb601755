/* mcp_internal.h: state shared by the MCP protocol loop (mcp.c) and the tools (mcp_tools.c).
 * Threads: the main thread reads messages and answers reads with its own index reader and
 * encoder; one worker thread runs write tools (reindex, add_document, delete_document) in order
 * with its own writer handle, so queries keep being answered from the last commit meanwhile.
 * `lock` guards the output descriptor, the job queue and the statistics. */
#ifndef HX_MCP_INTERNAL_H
#define HX_MCP_INTERNAL_H

#include "json.h"
#include "mcp.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define MCP_LATENCY_WINDOW 1024   /* latencies kept per tool for p50/p95 */
#define MCP_TOP_QUERIES 256       /* distinct queries counted for index_health */
#define MCP_FAILURES 64           /* recent rejected files kept for document_status */
#define MCP_TOOL_COUNT 10

typedef struct mcp_job {
    int tool;                     /* index into the tool table */
    char *id;                     /* owned: exact JSON text of the request id */
    size_t id_len;
    char *args;                   /* owned: JSON text of the arguments object */
    size_t args_len;
    bool cancelled;               /* notifications/cancelled arrived: send no response */
    struct mcp_job *next;
} mcp_job;

typedef struct mcp_latency {
    float ms[MCP_LATENCY_WINDOW];
    uint64_t count;
} mcp_latency;

typedef struct mcp_server {
    const hx_mcp_config *cfg;
    int out_fd;
    pthread_mutex_t lock;
    pthread_cond_t wake;          /* job queued, model loaded, or stopping */

    /* model: loaded by a thread at start so initialize is answered at once */
    hx_model *model;              /* owned; NULL until loaded */
    bool model_done;
    char model_error[320];
    hx_encoder *reader_enc;       /* owned; main thread only */

    hx_index *reader;             /* owned; main thread only; NULL until an index exists */

    /* write jobs, run in order by the worker */
    mcp_job *queue_head, *queue_tail;
    mcp_job *running;
    bool stopping;                /* end of input: finish the queue, then stop */
    bool stopping_now;            /* stop_fd fired: abandon the queue and cancel the running job */
    hx_encoder *writer_enc;       /* owned; worker thread only */
    uint64_t jobs_done, jobs_failed;

    /* statistics for index_health */
    mcp_latency latency[MCP_TOOL_COUNT];
    struct { char *query; uint32_t count; } queries[MCP_TOP_QUERIES];
    size_t n_queries;
    struct { char *path; char *reason; int64_t at_ns; } failures[MCP_FAILURES];
    size_t n_failures, next_failure;
    int64_t started_ns;
    char protocol[16];
} mcp_server;

/* A tool: its name, its JSON schemas and what runs it. */
typedef struct mcp_tool {
    const char *name;
    const char *description;
    const char *input_schema;     /* JSON text */
    const char *output_schema;    /* JSON text */
    bool writes;                  /* runs on the worker thread; refused with --read-only */
    /* Writes the structured result into w and returns 0, or returns non-zero after setting
     * *message (a sentence a person can act on) for an isError result. */
    int (*run)(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *message, size_t cap);
} mcp_tool;

extern const mcp_tool hx_mcp_tools[MCP_TOOL_COUNT];

/* mcp.c: helpers the tools use */
int mcp_wait_model(mcp_server *s, char *message, size_t cap);   /* 0 when the model is ready */
int mcp_open_reader(mcp_server *s, char *message, size_t cap);  /* 0 with s->reader current */
void mcp_note_query(mcp_server *s, const char *query);
void mcp_note_failure(mcp_server *s, const char *path, const char *reason);
bool mcp_path_pending(mcp_server *s, const char *path);
void mcp_write_health_jobs(mcp_server *s, hx_json_writer *w);
void mcp_write_latency(mcp_server *s, hx_json_writer *w);
void mcp_write_top_queries(mcp_server *s, hx_json_writer *w);
void mcp_write_failures(mcp_server *s, hx_json_writer *w);
bool mcp_failure_for(mcp_server *s, const char *path, char *reason, size_t cap);
bool mcp_should_stop(mcp_server *s);                             /* stopping_now, under the lock */

#endif
