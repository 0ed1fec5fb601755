/* mcp_tools.c: the MCP tools of `hyrax serve` (names fixed in DESIGN.md) as one table: name,
 * description, argument table (mcp_args.h: a table makes the tool's inputSchema and the checks
 * every call passes before the tool runs), output schema, handler; and what the tool families
 * (mcp_tool_*.c) share. Read tools run on the main thread with its reader; write tools run on the
 * worker thread with a writer opened per job (mcp_state.h). A bad argument is a tool error
 * (isError) whose message says what to change. */
#include "mcp_tools.h"
#include "present.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The clean root-relative name of a client's path argument `in` (hyrax.h hx_fs_target, the one
 * rule) in out, or NULL with err set when it is refused (absolute outside root, '..', too long). */
const char *mcp_clean_name(const char *root, const char *key, const char *in, char out[HX_RELPATH_MAX], hx_error *err)
{
    hx_error e = {0};
    if (hx_fs_target(root, in, HX_TARGET_NAME, out, HX_RELPATH_MAX, &e))
        return mcp_error_wrap(err, &e, "argument '%s': ", key), NULL;
    return out;
}

/* A document named by doc_id or path (exactly one), through the session. */
int mcp_session_doc(mcp_session *s, const mcp_args *a, const hx_read_context *at, bool chunks, hx_session_doc *d,
                    hx_error *err)
{
    const hxi_json_val *idv = mcp_arg_value(a, "doc_id");
    const char *path = mcp_arg_str(a, "path");
    if (!idv == !path)
        return hx_error_set(err, HX_EINVAL, -1, "give exactly one of 'doc_id' (a number from list_documents or "
                                                "search) or 'path'");
    int64_t id = idv ? mcp_arg_int(a, "doc_id") : -1;
    int rc = mcp_session_open(s, err);
    if (rc || !(rc = hx_session_get(s->ses, id, path, at, chunks, d, err)))
        return rc;
    if (rc == HX_ENOTFOUND && !strncmp(err->message, "no document", 11))   /* the tools' words */
        return idv ? hx_error_set(err, HX_EINVAL, -1, "no document with doc_id %lld in the index", (long long)id)
                   : (err->code = HX_EINVAL);
    if (path && rc != HX_ENOTFOUND && rc != HX_ENOMEM && rc != HX_EIO) {   /* the name itself */
        if (strstr(err->message, "names the indexed root"))
            return hx_error_set(err, HX_EINVAL, -1, "'path' names the indexed root, not a document");
        hx_error inner = *err;
        return mcp_error_wrap(err, &inner, "argument 'path': ");
    }
    return mcp_session_error(s, rc, at, err);
}


/* === Shared pieces of results === */

void mcp_write_time(hxi_json_writer *w, const char *key, int64_t ns)
{
    char buf[64];
    hx_time_format(ns, buf, sizeof buf);
    hxi_json_kv_cstr(w, key, buf);
}

/* The tools that take `filters` run as fn with them parsed (hx_filter_parse_json_text), freed after the call. */
int mcp_with_filters(mcp_filtered_tool fn, const mcp_arg *table, mcp_session *s, const hxi_json_val *args,
                        hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {table, args};
    hx_filter_set fs = {0};
    hx_error e = {0};
    int rc = mcp_arg_filters(&a, "filters", &fs, &e) ? hx_error_set(err, MCP_CODE(e), -1, "%s", e.message)
                                                       : fn(s, args, &fs, w, err);
    hx_filter_set_free(&fs);
    return rc;
}

const mcp_arg mcp_date_range_args[] = {
    {"from", MCP_STRING, .description = "ISO-8601 date or time, inclusive."},
    {"to", MCP_STRING, .description = "ISO-8601 date or time, inclusive."},
    {"key", MCP_STRING, .description = "The date it applies to: a metadata key; default indexed_at."},
    {.name = NULL},
};
const mcp_arg mcp_seed_filters[] = {SEED_FILTER_ROWS, {.name = NULL}};

/* Opens the writer for one job. */
int mcp_write_error(const mcp_session *s, int rc, const char *what, hx_error *err)
{
    if (rc == HX_EBUSY)
        return hx_error_set(err, HX_EINVAL, -1, "another process is writing to %s (e.g. 'hyrax index'); try again when "
                                                "it is done",
                            s->cfg->db);
    if (!what || !strncmp(err->message, "cannot open ", 12))
        return rc;
    hx_error inner = *err;
    return mcp_error_wrap(err, &inner, "%s", what);
}

int mcp_path_error(hx_error *err)
{
    const char *colon = strstr(err->message, ": ");
    if (!colon)
        return MCP_CODE(*err);
    hx_error inner = *err;
    memmove(inner.message, colon + 2, strlen(colon + 2) + 1);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(colon - err->message), err->message);
    return mcp_error_wrap(err, &inner, "argument '%s': ", key);
}

int mcp_job_progress(void *ctx, size_t done, size_t total, const char *path)
{
    return mcp_progress(((mcp_session *)ctx)->server, done, total, path);
}

void mcp_write_report(hxi_json_writer *w, const hx_update_report *r)
{
    hxi_json_kv_uint(w, "added", r->added);
    hxi_json_kv_uint(w, "updated", r->updated);
    hxi_json_kv_uint(w, "unchanged", r->unchanged);
    hxi_json_kv_uint(w, "removed", r->removed);
    hxi_json_kv_uint(w, "kept_out", r->kept_out);
    hxi_present_rejected(w, r->rejected, r->n_rejected);
    hxi_json_kv_uint(w, "chunks_added", r->chunks_added);
    hxi_json_kv_uint(w, "chunks_removed", r->chunks_removed);
    hxi_json_kv_uint(w, "chunks_embedded", r->chunks_embedded);
    hxi_json_kv_uint(w, "chunks_reused", r->chunks_reused);
    hxi_json_kv_double(w, "seconds", r->seconds);
}

/* "searchable": the commit that holds the change, visible to every search from now on, and a
 * "warning" when something after that commit failed (the change itself is committed). */
void mcp_write_committed(hxi_json_writer *w, const hx_session_write *out)
{
    if (out->report.warning[0])
        hxi_json_kv_cstr(w, "warning", out->report.warning);
    hxi_json_kv_uint(w, "generation", out->commit.generation);
    hxi_json_kv_bool(w, "searchable", 1);
    mcp_write_time(w, "searchable_at", out->commit.committed_ns);
}

/* === Output rows several tools share (mcp_tools.h) === */

const mcp_field mcp_metadata_value = {NULL, MCP_JSON_STRING | MCP_JSON_ARRAY, MCP_ITEMS(MCP_JSON_STRING)};

static const mcp_field rejected_fields[] = {
    {"path", .type = MCP_JSON_STRING},
    {"reason", .type = MCP_JSON_STRING},
    {.name = NULL},
};
const mcp_field mcp_rejected_item = {NULL, MCP_JSON_OBJECT, .props = rejected_fields};

/* === The table === */

/* The core tools (listed by default) have short descriptions: an agent reads them all before its
 * first call; the the help topic mcp says the rest. */
const mcp_tool mcp_tools[] = {
    {"search", "Search the indexed documents (hybrid, semantic or keyword) with metadata filters: ranked "
               "results with snippets and citations.",
     mcp_search_args, &mcp_search_out, false, mcp_tool_search, NULL, .page = "results", .core = true},
    {"get_context", "One context block for a question within max_tokens: the most relevant passages, each "
                    "with a source header.",
     mcp_get_context_args, &mcp_get_context_out, false, mcp_tool_get_context, NULL, .page = "sources",
     .page_text = "context", .core = true},
    {"find_similar", "Passages most similar to a document, a chunk or a text.", mcp_find_similar_args,
     &mcp_find_similar_out, false, mcp_tool_find_similar, NULL, .page = "results", .core = true},
    {"list_documents", "List indexed documents with filters, sorting and paging.", mcp_list_documents_args,
     &mcp_list_documents_out, false, mcp_tool_list_documents, NULL, .page = "documents", .core = true},
    {"get_document", "A document's metadata, content hash and chunks.", mcp_get_document_args,
     &mcp_get_document_out, false, mcp_tool_get_document, NULL, .page = "chunks", .core = true},
    {"document_status", "Whether a document is indexed, pending or failed (with the reason).",
     mcp_document_status_args, &mcp_document_status_out, false, mcp_tool_document_status, NULL, .core = true},
    {"add_document", "Index one file under the root now (path), or store text as a document (content + name, "
                     "with metadata). A stored document has no file behind it: it is addressed by its name, never "
                     "compared with the disk (reindex keeps it as it is) and removed only by delete_document; "
                     "storing under a stored document's name replaces it, under an indexed file's name is "
                     "refused. add_document with path also brings back a file removed by delete_document. "
                     "Answers once the document is searchable.",
     mcp_add_document_args, &mcp_add_document_out, true, mcp_tool_add_document, NULL, .page = "rejected"},
    {"delete_document", "Remove exactly one document, by doc_id or path; a folder, the root or an unknown name is "
                        "refused with the reason. The file itself is not touched, and the deletion is remembered: "
                        "reindex leaves the file out until add_document with its path indexes it again. A "
                        "stored document's text is gone for good.",
     mcp_delete_document_args, &mcp_delete_document_out, true, mcp_tool_delete_document, NULL, .page = NULL},
    {"reindex", "Bring the index up to date with the files under the root (or some paths); answers once the "
                "changes are searchable.",
     mcp_reindex_args, &mcp_reindex_out, true, mcp_tool_reindex, NULL, .page = "rejected", .core = true},
    {"index_health", "Index counts, pending and failed work, last commit, model, top queries and latency.",
     mcp_index_health_args, &mcp_index_health_out, false, mcp_tool_index_health, NULL, .core = true},
    {"create_baseline", "Name the current state of the index (a baseline; nothing is copied), so query tools can "
                        "read it later with read_context {selector: baseline_id, baseline_id: name}, also after "
                        "compaction. The name published is what read_context {selector: published} reads.",
     mcp_create_baseline_args, &mcp_create_baseline_out, true, mcp_tool_create_baseline, NULL, .page = NULL},
    {"audit_log", "Documents the validation gate refused to index (hyrax help policy): "
                  "time, path, content hash, rule and reason, newest last; kept in the index file, the newest "
                  "10,000.",
     mcp_audit_log_args, &mcp_audit_log_out, false, mcp_tool_audit_log, NULL, .page = "entries"},
    {"semantic_search", "Meaning-based retrieval under the name other document-search servers use: search in "
                        "semantic mode, chunk by chunk, with limit, doc_filter and a similarity threshold.",
     mcp_semantic_search_args, &mcp_search_out, false, NULL, "search", .page = "results"},
    {"full_text_search", "Keyword retrieval (BM25) with filters under the name other document-search servers "
                         "use; matching documents with a snippet around the hits. search in keyword mode.",
     mcp_full_text_search_args, &mcp_search_out, false, NULL, "search", .page = "results"},
    {"hybrid_search", "Semantic and keyword scores, each normalised to 0..1, combined with semantic_weight "
                      "and text_weight; one result per document. search in hybrid mode with weighted fusion.",
     mcp_hybrid_search_args, &mcp_search_out, false, NULL, "search", .page = "results"},
    {"document_details", "A document's metadata, hash and chunks: get_document under another name.",
     mcp_document_details_args, &mcp_get_document_out, false, NULL, "get_document", .page = "chunks"},
    {"semanticSearch", "Passages related to a natural-language query, with top_k, min_score and filters: "
                       "search in semantic mode, in camelCase.",
     mcp_semanticSearch_args, &mcp_search_out, false, NULL, "search", .page = "results"},
    {"getContext", "Assembled context for answering a question, within max_tokens: get_context in camelCase.",
     mcp_getContext_args, &mcp_get_context_out, false, NULL, "get_context", .page = "sources",
     .page_text = "context"},
    {"publish", "Publish signed files under the root to the team's registry (PostgreSQL + pgvector) as this "
                "server's tenant: embedded here, one transaction per batch; unchanged files are skipped and the "
                "tenant's documents whose files are gone are removed. Search them with search {source: registry}.",
     mcp_publish_args, &mcp_publish_out, true, mcp_tool_publish, NULL, .page = "rejected"},
    /* conversation memory (mcp_memory.c) */
    {"record_turn", "Conversation memory: store one turn of a session (user message, agent response, "
                    "retrieved document ids, search method, relevance). Answers once the turn is durable. Turns "
                    "belong to this server's tenant and user; the oldest are dropped past the retention limits.",
     mcp_record_turn_args, &mcp_record_turn_out, true, mcp_tool_record_turn, NULL, .page = NULL},
    {"get_session", "The turns of one session, in order.", mcp_get_session_args, &mcp_get_session_out, false,
     mcp_tool_get_session, NULL, .page = "turns"},
    {"search_history", "Past turns related to a query: hybrid (semantic over the turns' embeddings fused with "
                       "keyword BM25), semantic or keyword; optionally within one session.",
     mcp_search_history_args, &mcp_search_history_out, false, mcp_tool_search_history, NULL,
     .page = "results"},
    {"list_sessions", "The sessions of the conversation memory, newest first, with their turn counts.",
     mcp_list_sessions_args, &mcp_list_sessions_out, false, mcp_tool_list_sessions, NULL,
     .page = "sessions"},
    {.name = NULL},
};

/* === Tool calls === */

#define TOOLS_TTL_MS 3600000   /* tools/list is fixed for the life of the binary */

/* Counted in the lasting statistics (stats.h): latency per tool and transport, hot queries. */
static void note_latency(mcp_session *s, int tool, double ms)
{
    mcp_server *server = s->server;
    const char *transport = s->transport ? s->transport : server->transport;
    hxi_metrics_observe(server->metrics, HX_METRIC_TOOL, mcp_tools[tool].name, transport, NULL, ms / 1e3);
    hx_stats_note_latency(server->stats, mcp_tools[tool].name, transport, ms);
}

/* Result of a tool call: the structured JSON (sw) also given as text, or an isError message. */
typedef struct {
    const hxi_json_writer *structured;
    const char *error;
    bool modern;
} tool_outcome;

static int write_tool_result(void *ctx, hxi_json_writer *w, hx_error *err)
{
    const tool_outcome *o = ctx;
    (void)err;
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "content");
    hxi_json_write_arr_begin(w);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "type", "text");
    hxi_json_write_key(w, "text");
    if (o->error)
        hxi_json_write_cstr(w, o->error);
    else
        hxi_json_write_str(w, o->structured->buf, o->structured->len);
    hxi_json_write_obj_end(w);
    hxi_json_write_arr_end(w);
    if (!o->error) {
        hxi_json_write_key(w, "structuredContent");
        hxi_json_write_json(w, o->structured->buf, o->structured->len);
    }
    hxi_json_kv_bool(w, "isError", o->error != NULL);
    mcp_write_result_tail(w, o->modern, -1);
    hxi_json_write_obj_end(w);
    return 0;
}

/* Runs a tool under a fault guard (hyrax.h): an index file truncated or overwritten while the tool
 * reads it gives a tool error, and the reader is closed so the next call opens the file afresh.
 * Write tools run unguarded: their writer holds the lock and is not abandoned halfway. */
static int run_guarded(mcp_session *s, int t, const hxi_json_val *args, hxi_json_writer *sw, hx_error *err)
{
    hx_fault_guard g;
    if (!HX_FAULT_GUARD(g)) {
        hx_index_close(s->reader);
        s->reader = NULL;
        hx_error_set(err, HX_EINVAL, -1, "%s; it is reopened on the next call", HX_FAULT_MESSAGE);
        return MCP_CODE(*err);
    }
    int rc = mcp_tools[t].run(s, args, sw, err);
    hx_fault_leave(&g);
    return rc;
}

/* The index of the tool called name (len bytes), or -1 when there is none. */
static int tool_index(const char *name, size_t len)
{
    for (int t = 0; mcp_tools[t].name; t++)
        if (strlen(mcp_tools[t].name) == len && !memcmp(mcp_tools[t].name, name, len))
            return t;
    return -1;
}

/* The tool that runs tool t on *args: t itself, or its family with *args translated into the
 * family's arguments (*doc holds them; caller frees). -1 with err set when the translated
 * arguments fail the family's checks. */
static int runner_of(int t, const hxi_json_val **args, hxi_json_doc **doc, hx_error *err)
{
    const char *family = mcp_tools[t].family;
    if (!family)
        return t;
    int f = tool_index(family, strlen(family));
    hxi_json_writer w;
    hx_error e = {0};
    hxi_json_writer_init(&w);
    mcp_args_translate(mcp_tools[t].args, *args, &w);
    if (f < 0 || f == t)
        f = hx_error_set(err, HX_EINVAL, -1, "%s names no other tool to run it (%s)", mcp_tools[t].name, family);
    else if (hxi_json_writer_finish(&w, &e) || hxi_json_parse(doc, w.buf, w.len, NULL, &e))
        f = mcp_error_wrap(err, &e, "cannot pass the arguments on to %s: ", family);
    else if (mcp_args_validate(mcp_tools[f].args, hxi_json_doc_root(*doc), err))
        f = -1;
    else
        *args = hxi_json_doc_root(*doc);
    hxi_json_writer_free(&w);
    return f;
}

/* === Answer budget (`hyrax help mcp`) ===
 * Every answer's JSON (structuredContent; the text content repeats it; REST's body) is at most
 * max_bytes, about max_bytes / 4 tokens. Over it, the items of the answer's page member are left
 * out whole from the end (and their blocks of its page text), "omitted" counts them and
 * "next_cursor" continues: the same call with cursor set to it answers the items after the ones
 * given. The rows below are every tool's besides its own table, checked apart and never passed to
 * the tool. */

#define BUDGET_ROW                                                                                          \
    {"max_bytes", MCP_INTEGER, RANGE(1024, 1 << 20), .def = "32768",                                      \
     .description = "Answer budget in bytes of JSON (about 4 a token)."}
const mcp_arg mcp_budget_args[] = {BUDGET_ROW, {.name = NULL}};
const mcp_arg mcp_budget_cursor_args[] = {
    BUDGET_ROW,
    {"cursor", MCP_STRING, RANGE(1, 64),
     .description = "A next_cursor. The other arguments must be those of the call that gave it."},
    {.name = NULL},
};

/* Whether tool t's own table has a `cursor` (list_documents pages itself: its answer's offset plus
 * the items given is where its own cursor, "o<offset>", continues). */
static bool pages_itself(int t)
{
    for (const mcp_arg *r = mcp_tools[t].args; r->name; r++)
        if (!strcmp(r->name, "cursor"))
            return true;
    return false;
}

/* How tool t's answer is paged. */
static mcp_page page_of(int t)
{
    return (mcp_page){mcp_tools[t].page, mcp_tools[t].page_text, pages_itself(t), !mcp_tools[t].writes};
}

/* The budget rows tool t takes besides its table: a cursor where a call can be repeated to go on. */
static const mcp_arg *budget_table(int t)
{
    mcp_page p = page_of(t);
    return p.member && p.repeatable && !p.own_cursor ? mcp_budget_cursor_args : mcp_budget_args;
}

/* FNV-1a of n bytes, continuing h. */
static uint32_t fnv1a(uint32_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

int mcp_budget_take(const mcp_arg *extra, const hxi_json_val *args, hxi_json_doc **rest, mcp_budget *b, hx_error *err)
{
    hxi_json_writer own, mine, one;
    hxi_json_writer_init(&own);
    hxi_json_writer_init(&mine);
    hxi_json_writer_init(&one);
    hxi_json_write_obj_begin(&own);
    hxi_json_write_obj_begin(&mine);
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    bool any = false;
    b->args_hash = 0;
    hxi_json_iter_init(&it, args);
    while (hxi_json_iter_next(&it, &k, &v)) {
        size_t klen;
        const char *key = hxi_json_str(k, &klen);
        bool is_budget = false;
        for (const mcp_arg *r = extra; r->name; r++)
            is_budget |= strlen(r->name) == klen && !memcmp(r->name, key, klen);
        hxi_json_writer *to = is_budget ? &mine : &own;
        any |= is_budget;
        hxi_json_write_keyn(to, key, klen);
        hxi_json_write_val(to, v);
        if (!is_budget) {   /* sum of the members' hashes: the same whatever their order */
            hxi_json_writer_reset(&one);
            hxi_json_write_val(&one, v);
            b->args_hash += fnv1a(fnv1a(2166136261u, key, klen + 1), one.buf, one.len);
        }
    }
    hxi_json_write_obj_end(&own);
    hxi_json_write_obj_end(&mine);
    hxi_json_doc *bdoc = NULL;
    hx_error e = {0};
    int rc = 0;
    *rest = NULL;
    if (any && (hxi_json_writer_finish(&own, &e) || hxi_json_parse(rest, own.buf, own.len, NULL, &e) ||
                hxi_json_writer_finish(&mine, &e) || hxi_json_parse(&bdoc, mine.buf, mine.len, NULL, &e)))
        rc = hx_error_set(err, MCP_CODE(e), -1, "%s", e.message);
    else if (any && mcp_args_validate(extra, hxi_json_doc_root(bdoc), err))
        rc = HX_EINVAL;
    mcp_args a = {extra, bdoc ? hxi_json_doc_root(bdoc) : NULL};
    b->max_bytes = bdoc ? mcp_arg_int(&a, "max_bytes") : 0;
    if (!b->max_bytes)
        b->max_bytes = strtoll(extra[0].def, NULL, 10);
    const char *cursor = bdoc && !rc ? mcp_arg_str(&a, "cursor") : NULL;
    b->skip = 0;
    if (cursor) {
        char *end;
        unsigned long long skip = strtoull(cursor, &end, 10);
        if (end == cursor || *end != '.' || strtoul(end + 1, NULL, 16) != b->args_hash || strlen(end + 1) != 8)
            rc = hx_error_set(err, HX_EINVAL, -1, "cursor: give the next_cursor of the previous answer, with the "
                                                  "same other arguments as that call");
        b->skip = (size_t)skip;
    }
    hxi_json_doc_free(bdoc);
    hxi_json_writer_free(&own);
    hxi_json_writer_free(&mine);
    hxi_json_writer_free(&one);
    return rc;
}

/* Item i's block length in the page text: its "bytes". */
static size_t block_bytes(const hxi_json_val *item)
{
    int64_t n = 0;
    hxi_json_num_int64(hxi_json_obj_get(item, "bytes"), &n, NULL);
    return n > 0 ? (size_t)n : 0;
}

/* The page text `text` for items [skip, skip + keep) of page (n items): their blocks, and what
 * follows the last block when no item is left out after them. */
static void write_page_text(hxi_json_writer *out, const hxi_json_val *text, const hxi_json_val *page, size_t n,
                            size_t skip, size_t keep)
{
    size_t len, at = 0, from = SIZE_MAX, to = SIZE_MAX;
    const char *s = hxi_json_str(text, &len);
    hxi_json_iter items;
    const hxi_json_val *item;
    hxi_json_iter_init(&items, page);
    for (size_t i = 0; hxi_json_iter_next(&items, NULL, &item); i++) {
        if (i == skip)
            from = at;
        if (i == skip + keep && i < n)
            to = at ? at - 1 : 0;   /* before the '\n' between two blocks */
        at += block_bytes(item) + 1;
    }
    from = from < len ? from : len;
    to = to < len ? to : len;
    hxi_json_write_str(out, s + from, to > from ? to - from : 0);
}

/* The answer root with items [skip, skip + keep) of its page array (n items) into out, and, when
 * some are left, "omitted" and "next_cursor" (none for a write: it is not repeated). */
static void write_page(hxi_json_writer *out, const hxi_json_val *root, const mcp_page *p, const hxi_json_val *page,
                       size_t n, size_t keep, const mcp_budget *b)
{
    size_t left = n - b->skip - keep;
    hxi_json_writer_reset(out);
    hxi_json_write_obj_begin(out);
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    hxi_json_iter_init(&it, root);
    while (hxi_json_iter_next(&it, &k, &v)) {
        size_t klen;
        const char *key = hxi_json_str(k, &klen);
        if (left && ((klen == 11 && !memcmp(key, "next_cursor", 11)) || (klen == 7 && !memcmp(key, "omitted", 7))))
            continue;
        hxi_json_write_keyn(out, key, klen);
        if (p->text && hxi_json_type_of(v) == HX_JSON_STRING && !strcmp(key, p->text)) {
            write_page_text(out, v, page, n, b->skip, keep);
            continue;
        }
        if (v != page) {
            hxi_json_write_val(out, v);
            continue;
        }
        hxi_json_iter items;
        const hxi_json_val *item;
        hxi_json_iter_init(&items, page);
        hxi_json_write_arr_begin(out);
        for (size_t i = 0; i < b->skip + keep && hxi_json_iter_next(&items, NULL, &item); i++)
            if (i >= b->skip)
                hxi_json_write_val(out, item);
        hxi_json_write_arr_end(out);
    }
    if (left) {
        hxi_json_kv_uint(out, "omitted", left);
        char next[48] = "";
        int64_t offset = 0;
        if (p->own_cursor) {
            hxi_json_num_int64(hxi_json_obj_get(root, "offset"), &offset, NULL);
            snprintf(next, sizeof next, "o%lld", (long long)offset + (long long)keep);
        } else if (p->repeatable) {
            snprintf(next, sizeof next, "%zu.%08x", b->skip + keep, (unsigned)b->args_hash);
        }
        if (next[0])
            hxi_json_kv_cstr(out, "next_cursor", next);
    }
    hxi_json_write_obj_end(out);
}

int mcp_budget_fit(const mcp_page *p, hxi_json_writer *sw, const mcp_budget *b, hx_error *err)
{
    if ((int64_t)sw->len <= b->max_bytes && !b->skip)
        return 0;
    hxi_json_doc *doc = NULL;
    hx_error e = {0};
    if (hxi_json_parse(&doc, sw->buf, sw->len, NULL, &e))
        return hx_error_set(err, MCP_CODE(e), -1, "internal error reading the answer: %s", e.message);
    const hxi_json_val *root = hxi_json_doc_root(doc);
    const hxi_json_val *page = p->member ? hxi_json_obj_get(root, p->member) : NULL;
    size_t n = hxi_json_type_of(page) == HX_JSON_ARRAY ? hxi_json_len(page) : 0;
    int rc = 0;
    if (b->skip > n) {
        rc = hx_error_set(err, HX_EINVAL, -1, "cursor: the answer has %zu %s now; give the next_cursor of the "
                                              "previous answer, with the same other arguments", n, p->member);
        goto done;
    }
    hxi_json_writer out, one;
    hxi_json_writer_init(&out);
    hxi_json_writer_init(&one);
    size_t keep = n - b->skip;
    for (;;) {
        write_page(&out, root, p, page, n, keep, b);
        int64_t over = (int64_t)out.len - b->max_bytes;
        if (over <= 0 && (keep || n == b->skip))
            break;
        if (!keep) {   /* not even the first item fits */
            write_page(&out, root, p, page, n, n > b->skip ? 1 : 0, b);
            rc = hx_error_set(err, HX_EINVAL, -1, "the answer needs %zu bytes%s, over max_bytes %lld: call again "
                                                  "with max_bytes of at least %zu%s", out.len,
                              n > b->skip ? " for its first item" : "", (long long)b->max_bytes, out.len,
                              n > b->skip ? "" : ", or ask for less");
            break;
        }
        while (keep && over > 0) {   /* the items from the end whose bytes (and blocks) cover the excess */
            const hxi_json_val *item = hxi_json_arr_get(page, b->skip + keep - 1);
            hxi_json_writer_reset(&one);
            hxi_json_write_val(&one, item);
            over -= (int64_t)(one.len + 1 + (p->text ? block_bytes(item) : 0));
            keep--;
        }
    }
    if (!rc) {
        hxi_json_writer_reset(sw);
        hxi_json_write_json(sw, out.buf, out.len);
    }
    hxi_json_writer_free(&out);
    hxi_json_writer_free(&one);
done:
    hxi_json_doc_free(doc);
    return rc;
}

/* Runs tool t on args and leaves the JSON-RPC response for `id` in out; returns the tool's
 * result: 0, or non-zero for an isError answer. */
int mcp_run_tool(mcp_session *s, int t, const hxi_json_val *args, const char *id, size_t id_len, bool modern,
                    hxi_json_writer *out)
{
    double t0 = mcp_mono_ms();
    hxi_json_writer sw;
    hx_error err = {0};
    hxi_json_doc *translated = NULL, *own = NULL;
    mcp_budget b;
    mcp_page p = page_of(t);
    hxi_json_writer_init(&sw);
    int r = mcp_budget_take(budget_table(t), args, &own, &b, &err) ? -1 : 0;
    if (own)
        args = hxi_json_doc_root(own);
    r = r < 0 || mcp_args_validate(mcp_tools[t].args, args, &err) ? -1 : runner_of(t, &args, &translated, &err);
    int rc = r < 0 ? MCP_CODE(err)
             : mcp_tools[r].writes ? mcp_tools[r].run(s, args, &sw, &err)
                                   : run_guarded(s, r, args, &sw, &err);
    hxi_json_doc_free(translated);
    hxi_json_doc_free(own);
    hx_error e = {0};
    if (!rc && hxi_json_writer_finish(&sw, &e))
        rc = hx_error_set(&err, MCP_CODE(e), -1, "internal error building the result: %s", e.message);
    if (!rc)
        rc = mcp_budget_fit(&p, &sw, &b, &err);
    tool_outcome o = {&sw, rc ? err.message : NULL, modern};
    hxi_json_writer_reset(out);
    if (hxi_rpc_write_result_fn(out, id, id_len, write_tool_result, &o, &e))
        hxi_rpc_write_error(out, id, id_len, HX_RPC_INTERNAL_ERROR, e.message, NULL, 0, NULL);
    hxi_json_writer_free(&sw);
    note_latency(s, t, mcp_mono_ms() - t0);
    return rc;
}

/* === Which tools a server serves (serve --tools) === */

int mcp_tools_select(const char *spec, uint64_t *listed, bool *all, hx_error *err)
{
    *listed = 0;
    *all = false;
    const char *p = spec ? spec : "core";
    for (;;) {
        size_t len = strcspn(p, ",");
        bool core = len == 4 && !memcmp(p, "core", 4), every = len == 3 && !memcmp(p, "all", 3);
        int t = core || every ? -1 : tool_index(p, len);
        if (!core && !every && t < 0)
            return hx_error_set(err, HX_EINVAL, -1, "--tools: '%.*s' is not a tool; give core, all, or a comma "
                                                    "list of tool names (hyrax help mcp lists them)",
                                (int)(len > 64 ? 64 : len), p);
        *all |= every;
        for (int u = 0; mcp_tools[u].name; u++)
            if (every || (core && mcp_tools[u].core) || u == t)
                *listed |= (uint64_t)1 << u;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* tools/list: the tools served, in the table's order, so two lists compare equal byte for byte.
 * Short (the default, `hyrax help mcp`): brief argument schemas and no outputSchema (optional in
 * MCP; the answer is the same); --tools all lists both in full. */
int mcp_write_tools_list(void *ctx, hxi_json_writer *w, hx_error *err)
{
    (void)err;
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "tools");
    hxi_json_write_arr_begin(w);
    const mcp_server *server = ((const mcp_session *)ctx)->server;
    for (int t = 0; mcp_tools[t].name; t++) {
        const mcp_tool *tool = &mcp_tools[t];
        if (!(server->listed >> t & 1))
            continue;
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "name", tool->name);
        hxi_json_kv_cstr(w, "description", tool->description);
        hxi_json_write_key(w, "inputSchema");
        mcp_args_schema(w, tool->args, budget_table(t), !server->full_schemas);
        if (server->full_schemas) {
            hxi_json_write_key(w, "outputSchema");
            mcp_output_schema(w, tool->output);
        }
        hxi_json_write_key(w, "annotations");
        hxi_json_write_obj_begin(w);
        hxi_json_kv_bool(w, "readOnlyHint", !tool->writes);
        hxi_json_kv_bool(w, "openWorldHint", 0);
        hxi_json_write_obj_end(w);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    mcp_write_result_tail(w, ((const mcp_session *)ctx)->modern, TOOLS_TTL_MS);
    hxi_json_write_obj_end(w);
    return 0;
}

void mcp_tools_call(mcp_session *s, const hxi_rpc_msg *msg, mcp_sink *sink, hxi_json_writer *out, bool *deferred)
{
    size_t name_len;
    const char *name = hxi_json_str(hxi_json_obj_get(msg->params, "name"), &name_len);
    const hxi_json_val *args = hxi_json_obj_get(msg->params, "arguments");
    if (!name) {
        hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                            "tools/call needs params.name, the name of a tool from tools/list", NULL, 0, NULL);
        return;
    }
    if (args && hxi_json_type_of(args) != HX_JSON_OBJECT) {
        hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                            "tools/call params.arguments must be an object", NULL, 0, NULL);
        return;
    }
    int t = tool_index(name, name_len);
    if (t < 0 || !(s->server->listed >> t & 1)) {
        char m[300];
        int shown = (int)(name_len > 64 ? 64 : name_len);
        if (t < 0)
            snprintf(m, sizeof m, "Unknown tool: %.*s (tools/list names the tools)", shown, name);
        else
            snprintf(m, sizeof m, "Unknown tool: %.*s: this server does not serve it; 'hyrax serve --tools all' "
                                  "(or --tools core,%.*s) does", shown, name, shown, name);
        hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS, m, NULL, 0, NULL);
        return;
    }
    if (mcp_tools[t].writes && s->cfg->read_only) {
        hxi_json_writer empty;
        hxi_json_writer_init(&empty);
        char m[200];
        snprintf(m, sizeof m, "%s changes the index, and this server runs with --read-only: restart it without "
                              "--read-only to allow changes", mcp_tools[t].name);
        tool_outcome o = {&empty, m, s->modern};
        hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_tool_result, &o, NULL);
        hxi_json_writer_free(&empty);
        return;
    }
    if (mcp_tools[t].writes) {
        *deferred = mcp_enqueue(s, t, mcp_tools[t].name, mcp_run_tool, msg, args, sink, out);
        return;
    }
    hxi_json_doc *empty_doc = NULL;
    if (!args) {
        hxi_json_parse(&empty_doc, "{}", 2, NULL, NULL);
        args = hxi_json_doc_root(empty_doc);
    }
    mcp_run_tool(s, t, args, msg->id_json, msg->id_len, s->modern, out);
    hxi_json_doc_free(empty_doc);
}
