/* mcp_tools.h: what the MCP tool families share: the tool table (mcp_tools.c), the argument rows
 * several tables use, the helpers of mcp_tools.c, and each family's argument tables, output schemas
 * and handlers (mcp_tool_search.c, mcp_tool_docs.c, mcp_tool_admin.c, mcp_tool_memory.c), named
 * mcp_<tool>_args, mcp_<tool>_out and mcp_tool_<tool>. */
#ifndef HX_MCP_TOOLS_H
#define HX_MCP_TOOLS_H

#include "mcp_state.h"

/* === The table (mcp_tools.c) === */

/* A tool: its name, its argument table (the inputSchema and the checks), its output schema and
 * what runs it: its own run, or its family's (a seed's name for a hyrax tool, such as seed 003's
 * semantic_search for search). */
typedef struct mcp_tool {
    const char *name;
    const char *description;
    const mcp_arg *args;          /* mcp_args.h; checked before run is called */
    const mcp_field *output;      /* mcp_output.h: the outputSchema */
    bool writes;                  /* runs on the worker thread; refused with --read-only */
    /* Writes the structured result into w and returns 0, or returns an HX_E* code with err's
     * message (a sentence a person can act on) for an isError result. args passed the table. */
    int (*run)(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err);
    /* NULL, or the name of the tool that runs this one: a call's arguments are translated by
     * this tool's table (mcp_args_translate), checked by the family's and run by its run. */
    const char *family;
    /* The answer's member (an array) whose items an answer over its budget leaves out from the
     * end (`hyrax help mcp`); NULL: none, such an answer is refused with the size it needs. */
    const char *page;
    /* NULL, or the answer's string member made of one block per page item, in order, each item's
     * "bytes" long, separated by one '\n' (get_context's context): an answer that leaves items out
     * leaves their blocks out too. */
    const char *page_text;
    /* Listed by default (hyrax serve --tools core); the rest are listed with --tools all or by name. */
    bool core;
} mcp_tool;

/* The tools in tools/list order; a row with name NULL ends it. */
extern const mcp_tool mcp_tools[];

/* === Argument and output rows several tables share === */

#define MAX_TOP_K 50
#define MAX_FILTERS 32
#define MAX_PATHS 256
#define MAX_EXCLUDES 64

#define FILTERS_DOC                                                                                           \
    "Metadata filters, all must match. {\"owning-sig\": \"sig-auth\"} equality (numbers as numbers); "        \
    "{\"tags\": [\"a\", \"b\"]} any of (a document list matches when any item does); {\"creation-date\": "    \
    "{\"from\": \"2020-01-01\", \"to\": \"2021-12-31\"}} a date or number range (also gte, gt, lte, lt); "    \
    "{\"date_range\": {\"from\": ..., \"to\": ...}} on indexed_at, or on {\"key\": \"a-date-key\"}. Keys: "   \
    "metadata (front matter, YAML, the folder's kep.yaml and README front matter; _ and - alike; sig_name = " \
    "owning-sig, kep_id and kep_number = kep-number) or derived: path (glob, ** spans folders), type, ext, "  \
    "dir, folder (any folder name of the path), indexed_at, mtime."
#define ARG_DOC_ID(what) {"doc_id", MCP_INTEGER, RANGE(0, UINT32_MAX), .description = what}
#define ARG_DOC_PATH(what) {"path", MCP_STRING, .description = what}

/* Who signed a document (hxi_present_signer): in results, citations, context sources and documents. */
#define MCP_OUT_SIGNER                                                                                        \
    {"signer", MCP_JSON_STRING | MCP_JSON_NULL,                                                               \
     .description = "the key id (minisign) or principal (SSH) whose signature the validation gate verified "  \
                    "before indexing the document; null: unsigned"}
/* A document's metadata (hxi_present_meta): each key's value, or values. */
extern const mcp_field mcp_metadata_value;
#define MCP_OUT_METADATA {"metadata", MCP_JSON_OBJECT, .values = &mcp_metadata_value}
/* What an update did (mcp_write_report) and when it is searchable (mcp_write_committed). */
extern const mcp_field mcp_rejected_item;
#define MCP_OUT_REPORT_ROWS                                                                                   \
    {"added", .type = MCP_JSON_INTEGER},                                                                      \
    {"updated", .type = MCP_JSON_INTEGER},                                                                    \
    {"unchanged", .type = MCP_JSON_INTEGER},                                                                  \
    {"removed", .type = MCP_JSON_INTEGER},                                                                    \
    {"kept_out", MCP_JSON_INTEGER,                                                                            \
     .description = "files left out because they were deleted with delete_document"},                         \
    {"rejected", MCP_JSON_ARRAY, .items = &mcp_rejected_item},                                                \
    {"chunks_added", .type = MCP_JSON_INTEGER},                                                               \
    {"chunks_removed", .type = MCP_JSON_INTEGER},                                                             \
    {"chunks_embedded", MCP_JSON_INTEGER, .description = "of chunks_added, those the model embedded"},        \
    {"chunks_reused", MCP_JSON_INTEGER,                                                                       \
     .description = "of chunks_added, those given the vector the index held for the same text and model"},    \
    {"seconds", .type = MCP_JSON_NUMBER}
#define MCP_OUT_SEARCHABLE_ROWS                                                                               \
    {"generation", .type = MCP_JSON_INTEGER},                                                                 \
    {"searchable", .type = MCP_JSON_BOOLEAN},                                                                 \
    {"searchable_at", .type = MCP_JSON_STRING},                                                               \
    {"warning", MCP_JSON_STRING,                                                                              \
     .description = "Present when the change is committed but something after it failed (compaction)."}

#define SEED_FILTER_ROWS                                                                                      \
    {"category", MCP_STRING, .description = "The category metadata."},                                        \
    {"tags", MCP_STRING_LIST, AT_MOST(MAX_FILTERS), .description = "Documents tagged with any of these."},    \
    {"date_range", MCP_OBJECT, .props = mcp_date_range_args, .description = "Dates from .. to, inclusive."}
#define SEED_FILTERS_DOC "category, tags and date_range (as document-store servers name them), and any other metadata key. " FILTERS_DOC

extern const mcp_arg mcp_date_range_args[], mcp_seed_filters[];

/* === Helpers (mcp_tools.c) === */

/* The tools that take `filters` run as fn with them parsed (hx_filter_parse_json_text), freed after the call. */
typedef int (*mcp_filtered_tool)(mcp_session *s, const hxi_json_val *args, const hx_filter_set *fs, hxi_json_writer *w,
                             hx_error *err);
int mcp_with_filters(mcp_filtered_tool fn, const mcp_arg *table, mcp_session *s, const hxi_json_val *args,
                     hxi_json_writer *w, hx_error *err);
/* The clean root-relative name of a client's path argument `in` (hyrax.h hx_fs_target, the one
 * rule) in out, or NULL with err set when it is refused (absolute outside root, '..', too long). */
const char *mcp_clean_name(const char *root, const char *key, const char *in, char out[HX_RELPATH_MAX], hx_error *err);
/* A document named by doc_id or path (exactly one), read through the connection's session
 * (hx_session_get at `at`, with its chunks when asked), its failures in the tools' words. *d: free
 * with hx_session_doc_free. */
int mcp_session_doc(mcp_session *s, const mcp_args *a, const hx_read_context *at, bool chunks, hx_session_doc *d,
                    hx_error *err);
void mcp_write_time(hxi_json_writer *w, const char *key, int64_t ns);
/* err, from a session write that returned rc, in the tools' words: another writer, or what the
 * write itself failed at led by `what` (NULL: as it is); the code. */
int mcp_write_error(const mcp_session *s, int rc, const char *what, hx_error *err);
/* err, whose message is "KEY: why" (a session write refusing the name given as KEY), as the
 * tools say it: "argument 'KEY': why"; the code. */
int mcp_path_error(hx_error *err);
/* hx_index_update's progress callback for a write job (ctx: its session). */
int mcp_job_progress(void *ctx, size_t done, size_t total, const char *path);
void mcp_write_report(hxi_json_writer *w, const hx_update_report *r);
/* "searchable": the commit that holds a session write's change (out->commit), visible to every
 * search from now on, and a "warning" when something after that commit failed (the change itself
 * is committed). */
void mcp_write_committed(hxi_json_writer *w, const hx_session_write *out);

/* === The families === */

#define MCP_TOOL_DECL(tool)                                                                                   \
    extern const mcp_arg mcp_##tool##_args[];                                                                 \
    extern const mcp_field mcp_##tool##_out;                                                                  \
    int mcp_tool_##tool(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
/* search, get_context, find_similar and the seeds' names for them (mcp_tool_search.c) */
MCP_TOOL_DECL(search);
MCP_TOOL_DECL(get_context);
MCP_TOOL_DECL(find_similar);
extern const mcp_arg mcp_semantic_search_args[], mcp_full_text_search_args[], mcp_hybrid_search_args[],
    mcp_semanticSearch_args[], mcp_getContext_args[];
/* the documents (mcp_tool_docs.c) */
MCP_TOOL_DECL(list_documents);
MCP_TOOL_DECL(get_document);
MCP_TOOL_DECL(document_status);
MCP_TOOL_DECL(add_document);
MCP_TOOL_DECL(delete_document);
extern const mcp_arg mcp_document_details_args[];
/* the index as a whole (mcp_tool_admin.c) */
MCP_TOOL_DECL(reindex);
MCP_TOOL_DECL(index_health);
MCP_TOOL_DECL(create_baseline);
MCP_TOOL_DECL(audit_log);
MCP_TOOL_DECL(publish);
/* conversation memory (mcp_tool_memory.c) */
MCP_TOOL_DECL(record_turn);
MCP_TOOL_DECL(get_session);
MCP_TOOL_DECL(search_history);
MCP_TOOL_DECL(list_sessions);

#endif
