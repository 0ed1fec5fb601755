/* mcp_tools.c: the MCP tools of `hyrax serve` (names fixed in DESIGN.md), their output JSON
 * Schemas and one argument table per tool (mcp_args.h: a table makes the tool's inputSchema and
 * the checks every call passes before the tool runs), and the seeds' names for them (seed 003's
 * semantic_search, full_text_search, hybrid_search, document_details; seed 001's semanticSearch,
 * getContext): tables that translate into a hyrax tool's arguments, which that tool answers. Read tools run on the main thread with its
 * reader; write tools run on the worker thread with a writer opened per job (mcp_internal.h). A
 * bad argument is a tool error (isError) whose message says what to change. Shapes follow the
 * seeds: 003 (list/status/details/delete), 001 (get_context, citations, read_context), 002 (search
 * modes, filters, min_score, health). */
#include "fsafe.h"
#include "alloc.h"
#include "fusion.h"
#include "ingest.h"
#include "mcp_internal.h"
#include "passage.h"
#include "present.h"
#include "publish.h"
#include "registry.h"
#include "relpath.h"
#include "sig.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_TOP_K 50
#define MAX_FILTERS 32
#define MAX_PATHS 256
#define MAX_EXCLUDES 64
#define CONTEXT_CANDIDATES 50

/* === Arguments === */

/* Table rows that several tools share; each tool's table stands by the tool. */
#define FILTERS_DOC                                                                                          \
    "Metadata filters, all must match. {\"owning-sig\": \"sig-auth\"} equality (numbers as numbers); "        \
    "{\"tags\": [\"a\", \"b\"]} any of (a document list matches when any item does); {\"creation-date\": "   \
    "{\"from\": \"2020-01-01\", \"to\": \"2021-12-31\"}} a date or number range (also gte, gt, lte, lt); "     \
    "{\"date_range\": {\"from\": ..., \"to\": ...}} on indexed_at, or on {\"key\": \"a-date-key\"}. Keys: "  \
    "metadata (front matter, YAML, the folder's kep.yaml and README front matter; _ and - alike; sig_name = "  \
    "owning-sig, kep_id and kep_number = kep-number) or derived: path (glob, ** spans folders), type, ext, "   \
    "dir, folder (any folder name of the path), indexed_at, mtime."
#define ARG_FILTERS {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .description = FILTERS_DOC}
#define ARG_MODE                                                                                             \
    {"mode", MCP_STRING, .choices = hx_mode_names, .def = "hybrid",                                          \
     .description = "hybrid fuses semantic (embedding) and keyword (BM25) rankings; semantic (also vector) "  \
                    "finds meaning; keyword (also full_text, text) finds exact words and identifiers."}
#define ARG_TOP_K                                                                                            \
    {"top_k", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "5",                                                  \
     .description = "Results wanted: documents when group_by is document, chunks when it is chunk."}
#define ARG_LIMIT {"limit", .alias_of = "top_k", .description = "The same as top_k (seed 003's name)."}
#define ARG_GROUP_BY                                                                                         \
    {"group_by", MCP_STRING, .choices = hx_group_names, .def = "document",                                  \
     .description = "document: one result per document, its best chunk, ranked by it, with the document's "  \
                    "other matching chunks in `more` (top_k counts documents); chunk: every matching chunk " \
                    "on its own."}
#define MIN_SCORE_DOC                                                                                        \
    "Drop results whose score is below this. The score is a relevance in 0..1 in every mode: the estimated "   \
    "probability that the result is relevant (calibrated on judged queries), so 0.5 means 'more likely "       \
    "relevant than not'; 0 keeps every candidate."
/* Questions get the default floor; find_similar, which asks for neighbours, gets none. */
#define ARG_MIN_SCORE {"min_score", MCP_NUMBER, .def = HX_STRINGIFY(HX_MIN_RELEVANCE), .description = MIN_SCORE_DOC}
#define ARG_MIN_SCORE_NO_FLOOR {"min_score", MCP_NUMBER, .description = MIN_SCORE_DOC " No floor by default."}
#define ARG_THRESHOLD {"threshold", .alias_of = "min_score", .description = "The same as min_score (seed 003's name)."}
static const mcp_arg recency_args[] = {
    {"key", MCP_STRING, .required = true, AT_LEAST(1),
     .description = "metadata key holding an ISO-8601 date (e.g. last-updated), or mtime for the file's"},
    {"half_life_days", MCP_NUMBER, .required = true, .bounds = MCP_MIN, .min = 1e-6,
     .description = "age in days at which a result's ranking weight halves"},
    {.name = NULL},
};
#define ARG_RECENCY                                                                                          \
    {"recency", MCP_OBJECT, .props = recency_args,                                                           \
     .description = "Newer first (off by default): each result's ranking is multiplied by "                 \
                    "0.5^(age / half_life_days); a document without the key ages from its mtime. The "       \
                    "score (relevance) and min_score are not changed; each result's factor is `recency`."}
#define ARG_DOC_ID(what) {"doc_id", MCP_INTEGER, RANGE(0, UINT32_MAX), .description = what}
#define ARG_QUERY(what) {"query", MCP_STRING, .required = true, AT_LEAST(1), .description = what}
#define ARG_MAX_TOKENS                                                                                       \
    {"max_tokens", MCP_INTEGER, RANGE(64, 100000), .def = "4000",                                            \
     .description = "Budget for the assembled context, counted with the model's tokenizer."}
#define ARG_DOC_PATH(what) {"path", MCP_STRING, .description = what}

/* The clean root-relative name of a client's path argument `in` (fsafe.h hx_fs_target, the one
 * rule) in out, or NULL with msg set when it is refused (absolute outside root, '..', too long). */
static const char *arg_name(const char *root, const char *key, const char *in, char out[HX_RELPATH_MAX], char *msg,
                            size_t cap)
{
    hx_error err = {0};
    if (hx_fs_target(root, in, HX_TARGET_NAME, out, HX_RELPATH_MAX, &err))
        return snprintf(msg, cap, "argument '%s': %s", key, err.message), NULL;
    return out;
}

/* A document named by doc_id or path (exactly one). */
static int arg_doc(const mcp_args *a, hx_index *ix, hx_doc_info *d, char *msg, size_t cap)
{
    const hx_json_val *idv = mcp_arg_value(a, "doc_id");
    const char *path = mcp_arg_str(a, "path");
    if (!idv == !path)
        return snprintf(msg, cap, "give exactly one of 'doc_id' (a number from list_documents or search) or 'path'"), -1;
    if (idv) {
        int64_t id = mcp_arg_int(a, "doc_id");
        if (hx_index_doc_by_id(ix, (uint32_t)id, d))
            return snprintf(msg, cap, "no document with doc_id %lld in the index", (long long)id), -1;
        return 0;
    }
    char name[HX_RELPATH_MAX];
    if (!arg_name(hx_index_root(ix), "path", path, name, msg, cap))
        return -1;
    if (!*name)
        return snprintf(msg, cap, "'path' names the indexed root, not a document"), -1;
    if (hx_index_doc_by_path(ix, name, d))
        return snprintf(msg, cap, "no document with path '%.200s' in the index (paths are relative to the indexed root)",
                        name), -1;
    return 0;
}

/* A document's metadata value for key, or NULL. */
static const char *meta_value(const hx_kv *meta, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(meta[i].key, key))
            return meta[i].value;
    return NULL;
}

/* A document's status as list_documents and document_status give it. */
static const char *doc_status_word(const hx_doc_info *d)
{
    return d->n_chunks ? "complete" : "empty";   /* empty: indexed, but blank */
}

/* === Shared pieces of results === */

static void write_time(hx_json_writer *w, const char *key, int64_t ns)
{
    char buf[64];
    hx_time_format(ns, buf, sizeof buf);
    hx_json_write_key(w, key);
    hx_json_write_cstr(w, buf);
}

static void write_results(hx_json_writer *w, const mcp_server *s, const hx_results *res)
{
    hx_json_write_key(w, "group_by");
    hx_json_write_cstr(w, hx_group_names[res->group]);
    hx_json_write_key(w, "results");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < res->n; i++)
        hx_present_result(w, &res->v[i], res->group, mcp_result_generation(s, &res->v[i]));
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "total_results");
    hx_json_write_uint(w, res->n);
    hx_json_write_key(w, "search_time_ms");
    hx_json_write_double(w, res->search_ms);
}

/* The tools that take `filters` run as fn with them parsed (filter.h), freed after the call. */
typedef int (*filtered_tool)(mcp_server *s, const hx_json_val *args, const hx_filter_set *fs, hx_json_writer *w,
                             char *msg, size_t cap);
static int with_filters(filtered_tool fn, const mcp_arg *table, mcp_server *s, const hx_json_val *args,
                        hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {table, args};
    hx_filter_set fs = {0};
    hx_error err = {0};
    int rc = mcp_arg_filters(&a, "filters", &fs, &err) ? (snprintf(msg, cap, "%s", err.message), -1)
                                                       : fn(s, args, &fs, w, msg, cap);
    hx_filter_set_free(&fs);
    return rc;
}

/* Search options of search and find_similar, from their tables. */
static void search_opts(const mcp_args *a, hx_search_opts *o, const hx_filter_set *fs)
{
    hx_search_opts_default(o);
    o->snippets = 1;
    o->k = (uint32_t)mcp_arg_int(a, "top_k");
    o->filters = fs->v;
    o->n_filters = fs->n;
    o->min_score = (float)mcp_arg_num(a, "min_score");
    hx_group_parse(mcp_arg_str(a, "group_by"), &o->group);
}

/* The recency argument into o (left off when absent). */
static void recency_opts(const mcp_args *a, hx_search_opts *o)
{
    if (!mcp_arg_value(a, "recency"))
        return;
    mcp_args r = mcp_arg_object(a, "recency");
    o->recency_key = mcp_arg_str(&r, "key");
    o->recency_half_life_days = mcp_arg_num(&r, "half_life_days");
}

/* === search === */

static const char *const fusion_methods[] = {"rrf", "weighted", NULL};

static const mcp_arg fusion_args[] = {
    {"method", MCP_STRING, .choices = fusion_methods, .def = "rrf"},
    {"k", MCP_INTEGER, RANGE(1, 1000), .description = "RRF's k; default 60"},
    {"semantic_weight", MCP_NUMBER, AT_LEAST(0), .description = "weight of the semantic side (rrf or weighted); default 0.5"},
    {"text_weight", MCP_NUMBER, AT_LEAST(0), .description = "weight of the keyword side; default 0.5"},
    {.name = NULL},
};

static const mcp_arg search_args[] = {
    {"query", MCP_STRING, .required = true, AT_LEAST(1),
     .description = "Natural-language question, keywords or identifiers. Keyword syntax: \"exact phrase\", "
                    "-exclude, +require, prefix*."},
    ARG_MODE,
    {"search_type", .alias_of = "mode", .description = "The same as mode (seed 002's name)."},
    ARG_TOP_K,
    ARG_LIMIT,
    ARG_GROUP_BY,
    ARG_FILTERS,
    ARG_MIN_SCORE,
    ARG_THRESHOLD,
    ARG_RECENCY,
    {"fusion", MCP_OBJECT, .props = fusion_args},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

/* Who signed a document (hx_present_signer): in results, citations, context sources and documents. */
#define SIGNER_PROP                                                                                           \
    "\"signer\":{\"type\":[\"string\",\"null\"],\"description\":\"the key id (minisign) or principal (SSH) "     \
    "whose signature the validation gate verified before indexing the document; null: unsigned\"}"

#define RESULT_ITEM_SCHEMA                                                                                    \
    "{\"type\":\"object\",\"properties\":{"                                                                  \
    "\"rank\":{\"type\":\"integer\"},\"score\":{\"type\":\"number\",\"description\":\"relevance 0..1\"},"       \
    "\"similarity\":{\"type\":[\"number\",\"null\"],\"description\":\"cosine of query and chunk\"},"          \
    "\"vector_score\":{\"type\":[\"number\",\"null\"]},\"keyword_score\":{\"type\":[\"number\",\"null\"]},"  \
    "\"fused_score\":{\"type\":[\"number\",\"null\"]},\"recency\":{\"type\":\"number\"},"                  \
    "\"title\":{\"type\":\"string\"},\"heading\":{\"type\":\"string\"},\"text\":{\"type\":\"string\"},"      \
    "\"filename\":{\"type\":\"string\",\"description\":\"the document's root-relative path (seed 003)\"},"        \
    "\"chunk_index\":{\"type\":\"integer\"},"                                                                 \
    "\"snippet\":{\"type\":\"string\"},"                                                                     \
    "\"tier\":{\"type\":\"string\",\"description\":\"the tier that answered: project or user\"},"                     \
    "\"more\":{\"type\":\"array\",\"description\":\"group_by document: the document's other matching chunks, best first\",\"items\":{\"type\":\"object\",\"properties\":{\"score\":{\"type\":\"number\"},\"chunk_id\":{\"type\":\"integer\"},\"chunk_index\":{\"type\":\"integer\"},\"heading\":{\"type\":\"string\"},\"line_start\":{\"type\":\"integer\"},\"line_end\":{\"type\":\"integer\"}}}}," \
    "\"citation\":{\"type\":\"object\",\"properties\":{\"doc_id\":{\"type\":\"integer\"},\"path\":{\"type\":\"string\"},\"chunk_id\":{\"type\":\"integer\"},\"chunk_index\":{\"type\":\"integer\"},\"line_start\":{\"type\":\"integer\"},\"line_end\":{\"type\":\"integer\"},\"version\":{\"type\":\"string\"},\"generation\":{\"type\":\"integer\"}," SIGNER_PROP "},\"required\":[\"doc_id\",\"path\",\"chunk_id\",\"line_start\",\"line_end\",\"version\",\"generation\"]}," \
    SIGNER_PROP ","                                                                                      \
    "\"metadata\":{\"type\":\"object\",\"additionalProperties\":{\"type\":[\"string\",\"array\"],\"items\":{\"type\":\"string\"}}}"                       \
    "},\"required\":[\"rank\",\"score\",\"text\",\"snippet\",\"citation\"]}"

static const char search_out[] =
    "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"},\"mode\":{\"type\":\"string\"},"
    "\"group_by\":{\"type\":\"string\"},\"results\":{\"type\":\"array\",\"items\":" RESULT_ITEM_SCHEMA "},"
    "\"total_results\":{\"type\":\"integer\"},\"search_time_ms\":{\"type\":\"number\"}," MCP_READ_CONTEXT_SCHEMA
    "," MCP_TIERS_SCHEMA "},\"required\":[\"query\",\"mode\",\"results\",\"total_results\"]}";

/* How registry calls act (README "Registry"): as the reader identity's tenant and user, else as
 * the login; a query waits at most timeout_ms, publish only bounds the connection. */
static hx_registry_opts registry_opts(const mcp_server *s, int timeout_ms)
{
    const hx_identity *id = s->cfg->identity;
    return (hx_registry_opts){s->cfg->registry, id ? id->tenant : NULL, id ? id->user : NULL, timeout_ms,
                              timeout_ms ? 0 : HX_REGISTRY_CONNECT_TIMEOUT_MS};
}

/* search with source "registry" (issue 13): the query embedded here, the registry asked within
 * HX_REGISTRY_TIMEOUT_MS; a registry that cannot answer is an answer saying so, not an error.
 * read_context.as_of reads what was published by then (the registry has no baselines). */
static int registry_search(mcp_server *s, const mcp_args *a, const char *query, const hx_search_opts *o,
                           hx_json_writer *w, char *msg, size_t cap)
{
    hx_error err = {0};
    mcp_args rctx = mcp_arg_object(a, "read_context");   /* as_of: what was published by then */
    const char *as_of = mcp_arg_str(&rctx, "as_of");
    int64_t as_of_ns = 0;
    if (as_of && hx_time_parse(as_of, &as_of_ns, &err))
        return snprintf(msg, cap, "read_context.as_of: %s", err.message), -1;
    float vec[HX_EMBED_DIM];
    size_t len = strlen(query);
    bool use_vec = o->mode != HX_MODE_KEYWORD;
    if (use_vec && (mcp_wait_model(s, msg, cap) ||
                    (!s->reader_enc && hx_encoder_new(&s->reader_enc, s->model, 1, &err)) ||
                    hx_encoder_embed(s->reader_enc, &query, &len, 1, vec, &err)))
        return err.message[0] ? (snprintf(msg, cap, "%s", err.message), -1) : -1;
    hx_registry_opts ro =
        registry_opts(s, s->cfg->registry_timeout_ms > 0 ? s->cfg->registry_timeout_ms : HX_REGISTRY_TIMEOUT_MS);
    hx_registry_query q = {query, use_vec ? vec : NULL, o->mode, o->k, o->filters, o->n_filters, o->min_score, as_of_ns};
    hx_registry *r = NULL;
    hx_registry_results res = {0};
    int rc = hx_registry_connect(&r, &ro, &err);
    if (!rc)
        rc = hx_registry_search(r, &q, &res, &err);
    if (rc == HX_ENOMEM || rc == HX_EINVAL) {
        hx_registry_close(r);
        return snprintf(msg, cap, "%s", err.message), -1;
    }
    hx_present_registry_search(w, query, o->mode, &res, rc ? err.message : NULL);
    mcp_note_query(s, query);
    hx_registry_results_free(&res);
    hx_registry_close(r);
    return 0;
}

static int search_filtered(mcp_server *s, const hx_json_val *args, const hx_filter_set *fs, hx_json_writer *w,
                           char *msg, size_t cap)
{
    mcp_args a = {search_args, args}, fusion = mcp_arg_object(&a, "fusion");
    hx_search_opts o;
    const char *query = mcp_arg_str(&a, "query"), *method = mcp_arg_str(&fusion, "method");
    search_opts(&a, &o, fs);
    recency_opts(&a, &o);
    hx_mode_parse(mcp_arg_str(&a, "mode"), &o.mode);
    o.fusion = !strcmp(method, "weighted");
    o.rrf_k = (int)mcp_arg_int(&fusion, "k");
    double vw = mcp_arg_num(&fusion, "semantic_weight"), tw = mcp_arg_num(&fusion, "text_weight");
    o.vector_weight = isnan(vw) ? HX_VECTOR_WEIGHT : (float)vw;
    o.text_weight = isnan(tw) ? HX_TEXT_WEIGHT : (float)tw;
    hx_error werr = {0};
    if (hx_fusion_check_weights(o.vector_weight, o.text_weight, &werr))
        return snprintf(msg, cap, "%s", werr.message), -1;
    if (!strcmp(mcp_arg_str(&a, "source"), "registry"))
        return registry_search(s, &a, query, &o, w, msg, cap);
    hx_results res = {0};
    if (mcp_tiers_query(s, &a, query, &o, &res, msg, cap))
        return -1;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "query");
    hx_json_write_cstr(w, query);
    hx_json_write_key(w, "mode");
    hx_json_write_cstr(w, o.mode == HX_MODE_VECTOR ? "semantic" : hx_mode_name(o.mode));
    write_results(w, s, &res);
    mcp_write_tiers(w, s, &res);
    hx_json_write_obj_end(w);
    hx_results_free(&res);
    return 0;
}

/* === get_context === */

static const mcp_arg context_args[] = {
    ARG_QUERY(NULL),
    ARG_MAX_TOKENS,
    {"max_passages", MCP_INTEGER, RANGE(1, CONTEXT_CANDIDATES), .def = "10",
     .description = "At most this many passages (seed 003: 5 to 10 per query); fewer when the relevance "
                    "floor or the token budget ends the list first."},
    {"include_relationships", MCP_BOOLEAN, .def = "true",
     .description = "Add to each passage the chunks just before and after it in the same section (same "
                    "heading) of its document, so it reads in context; they count in the budget (seed 001)."},
    ARG_MIN_SCORE,
    ARG_FILTERS,
    ARG_MODE,
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

static const char context_out[] =
    "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"},\"context\":{\"type\":\"string\"},"
    "\"sources\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"index\":{\"type\":\"integer\",\"description\":\"the [n] label of the passage in context\"},\"doc_id\":{\"type\":\"integer\"},\"path\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},"
    "\"heading\":{\"type\":\"string\"},\"line_start\":{\"type\":\"integer\"},\"line_end\":{\"type\":\"integer\"},"
    "\"relevance\":{\"type\":\"number\"},\"tokens\":{\"type\":\"integer\"},\"chunk_ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
    "\"related_chunk_ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"description\":\"neighbouring chunks added by include_relationships\"},"
    "\"version\":{\"type\":\"string\"},\"generation\":{\"type\":\"integer\"}," SIGNER_PROP ",\"tier\":{\"type\":\"string\"}},\"required\":[\"index\",\"doc_id\",\"path\",\"line_start\",\"line_end\",\"relevance\",\"version\",\"generation\"]}},"
    "\"total_tokens\":{\"type\":\"integer\"},\"max_tokens\":{\"type\":\"integer\"},\"dropped\":{\"type\":\"integer\"},"
    "\"truncated\":{\"type\":\"boolean\"}," MCP_READ_CONTEXT_SCHEMA "," MCP_TIERS_SCHEMA
    "},\"required\":[\"context\",\"sources\",\"total_tokens\",\"max_tokens\",\"truncated\"]}";

/* True when chunk id (of the tier named `tier`) is in a passage of ps already. */
static bool in_passages(const hx_passages *ps, const char *tier, uint32_t id)
{
    for (size_t i = 0; i < ps->n; i++)
        for (size_t c = 0; ps->v[i].first->tier == tier && c < ps->v[i].n_chunks; c++)
            if (ps->v[i].chunk_ids[c] == id)
                return true;
    return false;
}

/* include_relationships: extends passage p by the chunk before its first and the one after its
 * last, when they are of the same document and section (heading) and in no passage yet. */
static int add_neighbours(hx_index *ix, hx_passages *ps, hx_passage *p, hx_error *err)
{
    hx_doc_info d;
    if (hx_index_doc_by_id(ix, p->first->doc_id, &d))
        return 0;
    uint32_t lo = p->chunk_ids[0], hi = lo;
    for (size_t c = 1; c < p->n_chunks; c++) {
        lo = p->chunk_ids[c] < lo ? p->chunk_ids[c] : lo;
        hi = p->chunk_ids[c] > hi ? p->chunk_ids[c] : hi;
    }
    const uint32_t edge[2] = {lo, hi}, next[2] = {lo - 1, hi + 1};
    for (int side = 0; side < 2; side++) {
        hx_result at, nb;
        if (next[side] < d.first_chunk || next[side] >= d.first_chunk + d.n_chunks ||
            in_passages(ps, p->first->tier, next[side]) ||
            hx_index_chunk(ix, edge[side], &at, NULL) || hx_index_chunk(ix, next[side], &nb, NULL) ||
            strcmp(at.heading, nb.heading))
            continue;
        int rc = hx_passage_extend(p, &nb, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* Appends "[label] path (lines a-b) title > heading\n" and the passage's text to *ctx; 0 or -1. */
static int context_append(char **ctx, size_t *len, size_t *cap, const char *header, size_t hl, const char *text,
                          size_t tl)
{
    size_t need = *len + hl + tl + 3;
    if (need > *cap) {
        char *c = hx_realloc(*ctx, need * 2);
        if (!c)
            return -1;
        *ctx = c;
        *cap = need * 2;
    }
    if (*len)
        (*ctx)[(*len)++] = '\n';
    memcpy(*ctx + *len, header, hl);
    memcpy(*ctx + *len + hl, text, tl);
    *len += hl + tl;
    (*ctx)[(*len)++] = '\n';
    return 0;
}

/* One of get_context's sources: the passage labelled [label] in the context, answered by the
 * commit `generation` of its tier. */
static void write_source(hx_json_writer *w, const hx_passage *p, size_t label, size_t tokens, uint64_t generation)
{
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "index");
    hx_json_write_uint(w, label);
    hx_json_write_key(w, "doc_id");
    hx_json_write_uint(w, p->first->doc_id);
    hx_json_write_key(w, "path");
    hx_json_write_cstr(w, p->first->path);
    hx_json_write_key(w, "title");
    hx_json_write_cstr(w, p->first->title);
    hx_json_write_key(w, "heading");
    hx_json_write_cstr(w, p->first->heading);
    hx_json_write_key(w, "line_start");
    hx_json_write_uint(w, p->line_start);
    hx_json_write_key(w, "line_end");
    hx_json_write_uint(w, p->line_end);
    hx_json_write_key(w, "relevance");
    hx_json_write_double(w, p->relevance);
    hx_json_write_key(w, "tokens");
    hx_json_write_uint(w, tokens);
    hx_json_write_key(w, "chunk_ids");
    hx_json_write_arr_begin(w);
    for (size_t c = 0; c < p->n_ranked; c++)
        hx_json_write_uint(w, p->chunk_ids[c]);
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "related_chunk_ids");
    hx_json_write_arr_begin(w);
    for (size_t c = p->n_ranked; c < p->n_chunks; c++)
        hx_json_write_uint(w, p->chunk_ids[c]);
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "version");
    hx_json_write_cstr(w, p->first->doc_sha256);
    hx_present_signer(w, p->first->signer);
    hx_json_write_key(w, "generation");
    hx_json_write_uint(w, generation);
    if (p->first->tier) {
        hx_json_write_key(w, "tier");
        hx_json_write_cstr(w, p->first->tier);
    }
    hx_json_write_obj_end(w);
}

/* Passages in rank order, each with its neighbours when asked, while they fit max_tokens, up to
 * max_passages; one that does not fit is dropped and the next tried. Labels [n] count the
 * passages kept, so the n-th passage in the text is sources[n - 1] with index n. */
static int context_filtered(mcp_server *s, const hx_json_val *args, const hx_filter_set *fs, hx_json_writer *w,
                            char *msg, size_t cap)
{
    mcp_args a = {context_args, args};
    hx_search_opts o;
    const char *query = mcp_arg_str(&a, "query");
    int64_t budget = mcp_arg_int(&a, "max_tokens"), max_passages = mcp_arg_int(&a, "max_passages");
    bool related = mcp_arg_bool(&a, "include_relationships");
    hx_search_opts_default(&o);
    o.k = CONTEXT_CANDIDATES;
    o.filters = fs->v;
    o.n_filters = fs->n;
    o.min_score = (float)mcp_arg_num(&a, "min_score");
    hx_mode_parse(mcp_arg_str(&a, "mode"), &o.mode);
    hx_results res = {0};
    if (mcp_tiers_query(s, &a, query, &o, &res, msg, cap))
        return -1;
    hx_passages ps;
    hx_error err = {0};
    if (hx_passages_build(&res, &ps, &err)) {
        hx_results_free(&res);
        return snprintf(msg, cap, "%s", err.message), -1;
    }
    size_t np = ps.n, n_kept = 0;
    int rc = 0;
    char *context = NULL;
    size_t context_len = 0, context_cap = 0, used = 0, dropped = 0;
    size_t *tokens = hx_calloc(np ? np : 1, sizeof *tokens);   /* 0 = not kept */
    for (size_t i = 0; i < np && !rc && tokens && n_kept < (size_t)max_passages; i++) {
        hx_passage *p = &ps.v[i];
        hx_index *tier_ix = mcp_tier_reader(s, p->first);   /* NULL: the registry's (no neighbours read) */
        if (related && tier_ix && (rc = add_neighbours(tier_ix, &ps, p, &err)))
            break;
        char header[600];
        const char *title = p->first->title, *heading = p->first->heading;
        size_t tl0 = strlen(title);
        if (!strncmp(heading, title, tl0) && (!heading[tl0] || !strncmp(heading + tl0, " > ", 3)))
            title = "";   /* the heading path starts with the title already */
        int hl = snprintf(header, sizeof header, "[%zu] %s (lines %u-%u) %s%s%s\n", n_kept + 1, p->first->path,
                          p->line_start, p->line_end, title, *title && *heading ? " > " : "", heading);
        if (hl < 0 || (size_t)hl >= sizeof header)
            hl = (int)strlen(header);
        size_t tl = strlen(p->text);
        size_t n_tok = hx_model_count_tokens(s->model, header, (size_t)hl) + hx_model_count_tokens(s->model, p->text, tl);
        if (used + n_tok > (size_t)budget) {   /* a lower-ranked passage that fits may still come */
            dropped++;
            continue;
        }
        if ((rc = context_append(&context, &context_len, &context_cap, header, (size_t)hl, p->text, tl)))
            break;
        used += n_tok;
        tokens[i] = n_tok;
        n_kept++;
    }
    if (!rc && tokens) {
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "query");
        hx_json_write_cstr(w, query);
        hx_json_write_key(w, "context");
        hx_json_write_str(w, context ? context : "", context_len);
        hx_json_write_key(w, "sources");
        hx_json_write_arr_begin(w);
        for (size_t i = 0, label = 0; i < np; i++)
            if (tokens[i])
                write_source(w, &ps.v[i], ++label, tokens[i], mcp_result_generation(s, ps.v[i].first));
        hx_json_write_arr_end(w);
        hx_json_write_key(w, "total_tokens");
        hx_json_write_uint(w, used);
        hx_json_write_key(w, "max_tokens");
        hx_json_write_int(w, budget);
        hx_json_write_key(w, "dropped");
        hx_json_write_uint(w, dropped);
        hx_json_write_key(w, "truncated");
        hx_json_write_bool(w, dropped > 0);
        mcp_write_tiers(w, s, &res);
        hx_json_write_obj_end(w);
    }
    if (rc || !tokens)
        snprintf(msg, cap, "out of memory assembling the context");
    hx_passages_free(&ps);
    free(tokens);
    free(context);
    hx_results_free(&res);
    return rc || !tokens ? -1 : 0;
}

/* === find_similar === */

static const mcp_arg similar_args[] = {
    ARG_DOC_ID("Find passages like this document (its mean embedding); the document itself is left out."),
    ARG_DOC_PATH("Same as doc_id, by root-relative path."),
    {"chunk_id", MCP_INTEGER, RANGE(0, UINT32_MAX), .description = "Find passages like this chunk; the chunk itself is left out."},
    {"text", MCP_STRING, AT_LEAST(1), .description = "Find passages like this text."},
    ARG_TOP_K,
    ARG_LIMIT,
    ARG_GROUP_BY,
    ARG_FILTERS,
    ARG_MIN_SCORE_NO_FLOOR,
    ARG_THRESHOLD,
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

static const char similar_out[] =
    "{\"type\":\"object\",\"properties\":{\"source\":{\"type\":\"string\"},"
    "\"group_by\":{\"type\":\"string\"},\"results\":{\"type\":\"array\",\"items\":" RESULT_ITEM_SCHEMA "},"
    "\"total_results\":{\"type\":\"integer\"},\"search_time_ms\":{\"type\":\"number\"}," MCP_READ_CONTEXT_SCHEMA
    "},\"required\":[\"source\",\"results\",\"total_results\"]}";

static int similar_filtered(mcp_server *s, const hx_json_val *args, const hx_filter_set *fs, hx_json_writer *w,
                            char *msg, size_t cap)
{
    mcp_args a = {similar_args, args};
    hx_search_opts o;
    search_opts(&a, &o, fs);
    const char *text = mcp_arg_str(&a, "text");
    bool by_chunk = mcp_arg_value(&a, "chunk_id") != NULL;
    bool by_doc = mcp_arg_value(&a, "doc_id") || mcp_arg_value(&a, "path");
    if ((!!text + by_chunk + by_doc) != 1)
        return snprintf(msg, cap, "give exactly one of 'text', 'chunk_id', or a document ('doc_id' or 'path')"), -1;
    int64_t chunk = mcp_arg_int(&a, "chunk_id");
    if (mcp_open_reader_for(s, &a, msg, cap))
        return -1;
    float vec[HX_EMBED_DIM];
    hx_error err = {0};
    char source[300];
    if (text) {
        size_t len = strlen(text);
        if (hx_encoder_embed(s->reader_enc, &text, &len, 1, vec, &err))
            return snprintf(msg, cap, "embedding the text failed: %s", err.message), -1;
        snprintf(source, sizeof source, "text");
    } else if (by_chunk) {
        if (hx_index_chunk_vector(s->reader, (uint32_t)chunk, vec, &err))
            return snprintf(msg, cap, "no chunk %lld in the index (chunk ids come from search results)", (long long)chunk), -1;
        o.exclude_chunk = (int32_t)chunk;
        snprintf(source, sizeof source, "chunk %lld", (long long)chunk);
    } else {
        hx_doc_info d;
        if (arg_doc(&a, s->reader, &d, msg, cap))
            return -1;
        if (hx_index_doc_vector(s->reader, d.id, vec, &err))
            return snprintf(msg, cap, "document %s has no text to compare", d.path), -1;
        o.exclude_doc = (int32_t)d.id;
        snprintf(source, sizeof source, "document %.250s", d.path);
    }
    hx_results res = {0};
    if (hx_index_search_vector(s->reader, vec, &o, &res, &err))
        return snprintf(msg, cap, "search failed: %s", err.message), -1;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "source");
    hx_json_write_cstr(w, source);
    write_results(w, s, &res);
    mcp_write_read_context(w, s);
    hx_json_write_obj_end(w);
    hx_results_free(&res);
    return 0;
}

/* === list_documents, get_document, document_status === */

#define DOC_SUMMARY_PROPS                                                                                     \
    "\"id\":{\"type\":\"integer\"},\"path\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},"          \
    "\"source\":{\"type\":\"string\",\"enum\":[\"file\",\"stored\"],\"description\":\"file: mirrors a file under the root; stored: text given to add_document, no file behind it\"}," \
    "\"type\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\"},\"hash\":{\"type\":\"string\"},"         \
    "\"version\":{\"type\":\"string\"},\"indexed_at\":{\"type\":\"string\"},\"modified_at\":{\"type\":\"string\"}," \
    "\"status\":{\"type\":\"string\"},\"chunks_count\":{\"type\":\"integer\"},\"total_tokens\":{\"type\":\"integer\"}," \
    "\"metadata\":{\"type\":\"object\",\"additionalProperties\":{\"type\":[\"string\",\"array\"],\"items\":{\"type\":\"string\"}}},"                      \
    SIGNER_PROP ","                                                                                      \
    "\"filename\":{\"type\":\"string\"},\"uploaded_at\":{\"type\":\"string\"},"                                 \
    "\"category\":{\"type\":[\"string\",\"null\"]},\"description\":{\"type\":[\"string\",\"null\"]},"           \
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"

/* Seed 003's names for a document (filename, uploaded_at) and its category, description and tags
 * metadata (null or [] when it has none; tags lists every value of the key). */
static void write_seed_doc_fields(hx_json_writer *w, const hx_doc_info *d)
{
    hx_json_write_key(w, "filename");
    hx_json_write_cstr(w, d->path);
    write_time(w, "uploaded_at", d->indexed_ns);
    hx_json_write_key(w, "category");
    hx_json_write_cstr(w, meta_value(d->meta, d->n_meta, "category"));
    hx_json_write_key(w, "description");
    hx_json_write_cstr(w, meta_value(d->meta, d->n_meta, "description"));
    hx_json_write_key(w, "tags");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, "tags"))
            hx_json_write_cstr(w, d->meta[i].value);
    hx_json_write_arr_end(w);
}

static void write_doc_summary(hx_json_writer *w, const hx_doc_info *d)
{
    hx_json_write_key(w, "id");
    hx_json_write_uint(w, d->id);
    hx_json_write_key(w, "path");
    hx_json_write_cstr(w, d->path);
    hx_json_write_key(w, "source");
    hx_json_write_cstr(w, hx_present_kind(d->kind));
    hx_json_write_key(w, "title");
    hx_json_write_cstr(w, d->title);
    hx_json_write_key(w, "type");
    hx_json_write_cstr(w, d->type);
    hx_json_write_key(w, "size");
    hx_json_write_uint(w, d->size);
    hx_json_write_key(w, "hash");
    hx_json_write_cstr(w, d->sha256);
    hx_json_write_key(w, "version");
    hx_json_write_cstr(w, d->sha256);
    write_time(w, "indexed_at", d->indexed_ns);
    write_time(w, "modified_at", d->mtime_ns);
    hx_json_write_key(w, "status");
    hx_json_write_cstr(w, doc_status_word(d));
    hx_json_write_key(w, "chunks_count");
    hx_json_write_uint(w, d->n_chunks);
    hx_json_write_key(w, "total_tokens");
    hx_json_write_uint(w, d->tokens);
    hx_json_write_key(w, "metadata");
    hx_present_meta(w, d->meta, d->n_meta);
    hx_present_signer(w, d->trust.signer);
    write_seed_doc_fields(w, d);
}

/* Sort keys, and seed 003's names: filename = path, uploaded_at = indexed_at, category (metadata). */
static const char *const list_sorts[] = {"path", "title", "indexed_at", "size", "chunks", "filename", "uploaded_at",
                                         "category", NULL};
static const char *const list_orders[] = {"asc", "desc", NULL};

/* seed 003's filters and doc_filter: these keys by name, any other metadata key as well */
static const mcp_arg date_range_args[] = {
    {"from", MCP_STRING, .description = "ISO-8601 date or time, inclusive."},
    {"to", MCP_STRING, .description = "ISO-8601 date or time, inclusive."},
    {"key", MCP_STRING, .description = "The date it applies to: a metadata key; default indexed_at."},
    {.name = NULL},
};
#define SEED_FILTER_ROWS                                                                                     \
    {"category", MCP_STRING, .description = "The category metadata."},                                      \
    {"tags", MCP_STRING_LIST, AT_MOST(MAX_FILTERS), .description = "Documents tagged with any of these."}, \
    {"date_range", MCP_OBJECT, .props = date_range_args, .description = "Dates from .. to, inclusive."}
static const mcp_arg seed_filters[] = {SEED_FILTER_ROWS, {.name = NULL}};
static const mcp_arg list_filters[] = {
    SEED_FILTER_ROWS,
    {"status", MCP_STRING,
     .description = "complete or empty: the document's status as listed; any other value: the status metadata."},
    {.name = NULL},
};
#define SEED_FILTERS_DOC "Seed 003's category, tags and date_range, and any other metadata key. " FILTERS_DOC

static const mcp_arg list_args[] = {
    {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = list_filters, .description = SEED_FILTERS_DOC},
    {"sort_by", MCP_STRING, .choices = list_sorts, .def = "path"},
    {"order", MCP_STRING, .choices = list_orders, .def = "asc"},
    {"limit", MCP_INTEGER, RANGE(1, 1000), .def = "20"},
    {"offset", MCP_INTEGER, RANGE(0, INT32_MAX), .def = "0"},
    {"cursor", MCP_STRING, RANGE(1, 32),
     .description = "The next_cursor of the previous answer: the page after it (instead of offset)."},
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

static const char list_out[] =
    "{\"type\":\"object\",\"properties\":{\"documents\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    DOC_SUMMARY_PROPS "},\"required\":[\"id\",\"path\",\"title\",\"hash\",\"chunks_count\"]}},"
    "\"total\":{\"type\":\"integer\"},\"limit\":{\"type\":\"integer\"},\"offset\":{\"type\":\"integer\"},"
    "\"next_cursor\":{\"type\":[\"string\",\"null\"],\"description\":\"give it as cursor for the next page; null on the last\"}," MCP_READ_CONTEXT_SCHEMA "},"
    "\"required\":[\"documents\",\"total\",\"limit\",\"offset\"]}";

typedef struct {
    hx_doc_info *docs;
    int key;     /* index into list_sorts */
    int desc;
} doc_sort;

static int doc_before(const hx_doc_info *a, const hx_doc_info *b, int key)
{
    const char *ca, *cb;
    switch (key) {
    case 1: return strcmp(a->title, b->title);
    case 2: case 6: return a->indexed_ns < b->indexed_ns ? -1 : a->indexed_ns > b->indexed_ns;
    case 3: return a->size < b->size ? -1 : a->size > b->size;
    case 4: return a->n_chunks < b->n_chunks ? -1 : a->n_chunks > b->n_chunks;
    case 7:   /* documents without a category after those with one */
        ca = meta_value(a->meta, a->n_meta, "category");
        cb = meta_value(b->meta, b->n_meta, "category");
        return ca && cb ? strcmp(ca, cb) : (ca == NULL) - (cb == NULL);
    default: return 0;   /* path and filename: the order documents come in */
    }
}


/* Stable merge sort by key, path breaking ties (documents come in path order). */
static void sort_docs(hx_doc_info *v, hx_doc_info *tmp, size_t n, int key, int desc)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_docs(v, tmp, h, key, desc);
    sort_docs(v + h, tmp, n - h, key, desc);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int c = doc_before(&v[j], &v[i], key);
        tmp[k++] = (desc ? c > 0 : c < 0) ? v[j++] : v[i++];
    }
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static int list_filtered(mcp_server *s, const hx_json_val *args, const hx_filter_set *fs, hx_json_writer *w,
                         char *msg, size_t cap)
{
    mcp_args a = {list_args, args};
    hx_filter filters[MAX_FILTERS];   /* fs without seed 003's status filter (borrowed entries) */
    size_t nf = 0;
    const char *status = NULL;        /* that filter: the status as listed */
    for (size_t i = 0; i < fs->n && i < MAX_FILTERS; i++) {
        const hx_filter *f = &fs->v[i];
        if (!strcmp(f->key, "status") && f->value && (!strcmp(f->value, "complete") || !strcmp(f->value, "empty")))
            status = f->value;
        else
            filters[nf++] = *f;
    }
    const char *sort_by = mcp_arg_str(&a, "sort_by");
    bool desc = !strcmp(mcp_arg_str(&a, "order"), "desc");
    int64_t limit = mcp_arg_int(&a, "limit"), offset = mcp_arg_int(&a, "offset");
    const char *cursor = mcp_arg_str(&a, "cursor");
    char *cend = NULL;
    if (cursor && (mcp_arg_value(&a, "offset") || cursor[0] != 'o' ||
                   (offset = strtoll(cursor + 1, &cend, 10), *cend || cend == cursor + 1 || offset < 0)))
        return snprintf(msg, cap, "cursor: give the next_cursor of the previous answer, and no offset with it"), -1;
    int key = 0;
    while (strcmp(sort_by, list_sorts[key]))
        key++;
    if (mcp_open_reader_for(s, &a, msg, cap))
        return -1;
    size_t n = hx_index_doc_count(s->reader), m = 0;
    hx_doc_info *docs = hx_malloc(sizeof *docs * (n ? n : 1)), *tmp = hx_malloc(sizeof *tmp * (n ? n : 1));
    if (!docs || !tmp) {
        free(docs);
        free(tmp);
        return snprintf(msg, cap, "out of memory listing documents"), -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!hx_index_doc_at(s->reader, i, &docs[m]) && hx_doc_matches(&docs[m], filters, nf) &&
            (!status || !strcmp(doc_status_word(&docs[m]), status)))
            m++;
    if (key && key != 5)
        sort_docs(docs, tmp, m, key, desc);
    else if (desc)
        for (size_t i = 0; i < m / 2; i++) {
            hx_doc_info t = docs[i];
            docs[i] = docs[m - 1 - i];
            docs[m - 1 - i] = t;
        }
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "documents");
    hx_json_write_arr_begin(w);
    for (size_t i = (size_t)offset; i < m && i < (size_t)(offset + limit); i++) {
        hx_json_write_obj_begin(w);
        write_doc_summary(w, &docs[i]);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "total");
    hx_json_write_uint(w, m);
    hx_json_write_key(w, "limit");
    hx_json_write_int(w, limit);
    hx_json_write_key(w, "offset");
    hx_json_write_int(w, offset);
    hx_json_write_key(w, "next_cursor");
    if ((size_t)(offset + limit) < m) {
        char next[32];
        snprintf(next, sizeof next, "o%lld", (long long)(offset + limit));
        hx_json_write_cstr(w, next);
    } else {
        hx_json_write_null(w);
    }
    mcp_write_read_context(w, s);
    hx_json_write_obj_end(w);
    free(docs);
    free(tmp);
    return 0;
}

static const mcp_arg get_args[] = {
    ARG_DOC_ID(NULL),
    ARG_DOC_PATH("root-relative path"),
    {"include_chunks", MCP_BOOLEAN, .def = "true"},
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

static const mcp_arg status_args[] = {
    ARG_DOC_ID(NULL),
    ARG_DOC_PATH("root-relative path"),
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

static const char get_out[] =
    "{\"type\":\"object\",\"properties\":{" DOC_SUMMARY_PROPS ",\"encoding\":{\"type\":\"string\"},"
    "\"chunks\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"chunk_id\":{\"type\":\"integer\"},"
    "\"index\":{\"type\":\"integer\"},\"heading\":{\"type\":\"string\"},\"line_start\":{\"type\":\"integer\"},"
    "\"line_end\":{\"type\":\"integer\"},\"tokens\":{\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},"
    "\"required\":[\"chunk_id\",\"index\",\"text\",\"tokens\"]}}," MCP_READ_CONTEXT_SCHEMA "},\"required\":[\"id\",\"path\",\"hash\",\"chunks_count\"]}";

static int tool_get_document(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {get_args, args};
    hx_doc_info d;
    bool chunks = mcp_arg_bool(&a, "include_chunks");
    if (mcp_open_reader_for(s, &a, msg, cap) || arg_doc(&a, s->reader, &d, msg, cap))
        return -1;
    hx_json_write_obj_begin(w);
    write_doc_summary(w, &d);
    hx_json_write_key(w, "encoding");
    hx_json_write_cstr(w, d.encoding);
    if (chunks) {
        hx_json_write_key(w, "chunks");
        hx_json_write_arr_begin(w);
        for (uint32_t c = d.first_chunk; c < d.first_chunk + d.n_chunks; c++) {
            hx_result r;
            if (hx_index_chunk(s->reader, c, &r, NULL))
                continue;
            hx_json_write_obj_begin(w);
            hx_json_write_key(w, "chunk_id");
            hx_json_write_uint(w, c);
            hx_json_write_key(w, "index");
            hx_json_write_uint(w, r.chunk_index);
            hx_json_write_key(w, "heading");
            hx_json_write_cstr(w, r.heading);
            hx_json_write_key(w, "line_start");
            hx_json_write_uint(w, r.line_start);
            hx_json_write_key(w, "line_end");
            hx_json_write_uint(w, r.line_end);
            hx_json_write_key(w, "tokens");
            hx_json_write_uint(w, r.n_tokens);
            hx_json_write_key(w, "text");
            hx_json_write_str(w, r.text, r.text_len);
            hx_json_write_obj_end(w);
        }
        hx_json_write_arr_end(w);
    }
    mcp_write_read_context(w, s);
    hx_json_write_obj_end(w);
    return 0;
}

static const char status_out[] =
    "{\"type\":\"object\",\"properties\":{\"found\":{\"type\":\"boolean\"},\"id\":{\"type\":[\"integer\",\"null\"]},"
    "\"path\":{\"type\":[\"string\",\"null\"]},\"filename\":{\"type\":[\"string\",\"null\"]},"
    "\"source\":{\"type\":[\"string\",\"null\"],\"enum\":[\"file\",\"stored\",null]},"
    "\"status\":{\"type\":\"string\",\"enum\":[\"complete\",\"empty\",\"pending\",\"failed\",\"not_found\"]},"
    "\"indexed_at\":{\"type\":[\"string\",\"null\"]},\"vectorized_at\":{\"type\":[\"string\",\"null\"]},"
    "\"chunks_count\":{\"type\":\"integer\"},\"last_error\":{\"type\":[\"string\",\"null\"]},"
    "\"embeddings\":{\"type\":\"object\",\"properties\":{\"model\":{\"type\":\"string\"},\"dimension\":{\"type\":\"integer\"},\"provider\":{\"type\":\"string\"}}}," MCP_READ_CONTEXT_SCHEMA "},"
    "\"required\":[\"found\",\"id\",\"path\",\"status\",\"chunks_count\",\"last_error\",\"embeddings\"]}";

static int tool_document_status(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {status_args, args};
    const char *path = mcp_arg_str(&a, "path");
    bool by_id = mcp_arg_value(&a, "doc_id") != NULL;
    if (!path == !by_id)
        return snprintf(msg, cap, "give exactly one of 'doc_id' or 'path'"), -1;
    int64_t id = mcp_arg_int(&a, "doc_id");
    hx_doc_info d;
    bool found = false, open = !mcp_open_reader_for(s, &a, msg, cap);
    char name[HX_RELPATH_MAX];
    if (!open && s->reader)
        return -1;   /* the index is there, but read_context selects no commit it keeps */
    if (!open && mcp_wait_model(s, msg, cap))
        return -1;   /* no model: nothing to report on; a missing index just means not indexed */
    if (path && !(path = arg_name(open ? hx_index_root(s->reader) : s->cfg->root, "path", path, name, msg, cap)))
        return -1;
    if (open)
        found = by_id ? !hx_index_doc_by_id(s->reader, (uint32_t)id, &d) : !hx_index_doc_by_path(s->reader, path, &d);
    /* an unknown doc_id answers as an unknown path does: not_found, echoing what was asked */
    const char *p = found ? d.path : path;
    char reason[512];
    bool failed = p && mcp_failure_for(s, p, reason, sizeof reason);
    /* "empty": indexed, but the document has no text at all (blank), so no chunk can match it */
    const char *status = p && mcp_path_pending(s, p) ? "pending"
                         : found                     ? doc_status_word(&d)
                         : failed                    ? "failed"
                                                     : "not_found";
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "found");
    hx_json_write_bool(w, found);
    hx_json_write_key(w, "id");
    if (found || by_id)
        hx_json_write_uint(w, found ? d.id : (uint64_t)id);
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "path");
    if (p)
        hx_json_write_cstr(w, p);
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "filename");
    if (p)
        hx_json_write_cstr(w, p);
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "source");
    if (found)
        hx_json_write_cstr(w, hx_present_kind(d.kind));
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "status");
    hx_json_write_cstr(w, status);
    if (found) {
        write_time(w, "indexed_at", d.indexed_ns);
        write_time(w, "vectorized_at", d.indexed_ns);
    } else {
        hx_json_write_key(w, "indexed_at");
        hx_json_write_null(w);
        hx_json_write_key(w, "vectorized_at");
        hx_json_write_null(w);
    }
    hx_json_write_key(w, "chunks_count");
    hx_json_write_uint(w, found ? d.n_chunks : 0);
    hx_json_write_key(w, "last_error");
    if (failed)
        hx_json_write_cstr(w, reason);
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "embeddings");
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "model");
    hx_json_write_cstr(w, hx_model_name(s->model));
    hx_json_write_key(w, "dimension");
    hx_json_write_int(w, hx_model_dim(s->model));
    hx_json_write_key(w, "provider");
    hx_json_write_cstr(w, "hyrax (local, in-process)");
    hx_json_write_obj_end(w);
    if (open)
        mcp_write_read_context(w, s);
    hx_json_write_obj_end(w);
    return 0;
}

/* === Writes: add_document, delete_document, reindex (worker thread) === */

/* Opens the writer for one job. */
static int open_writer(mcp_server *s, hx_index **ix, char *msg, size_t cap)
{
    hx_error err = {0};
    if (mcp_wait_model(s, msg, cap))
        return -1;
    if (!s->writer_enc && hx_encoder_new(&s->writer_enc, s->model, s->cfg->threads, &err))
        return snprintf(msg, cap, "cannot start the encoder: %s", err.message), -1;
    if (mcp_index_open(s, ix, HX_INDEX_WRITE | HX_INDEX_CREATE, s->cfg->root, &err)) {
        if (err.code == HX_EBUSY)
            snprintf(msg, cap, "another process is writing to %s (e.g. 'hyrax index'); try again when it is done",
                     s->cfg->db);
        else
            snprintf(msg, cap, "cannot open %s for writing: %s", s->cfg->db, err.message);
        return -1;
    }
    return 0;
}

static int job_progress(void *ctx, size_t done, size_t total, const char *path)
{
    return mcp_progress(ctx, done, total, path);
}

static void write_report(hx_json_writer *w, const hx_update_report *r)
{
    hx_json_write_key(w, "added");
    hx_json_write_uint(w, r->added);
    hx_json_write_key(w, "updated");
    hx_json_write_uint(w, r->updated);
    hx_json_write_key(w, "unchanged");
    hx_json_write_uint(w, r->unchanged);
    hx_json_write_key(w, "removed");
    hx_json_write_uint(w, r->removed);
    hx_json_write_key(w, "kept_out");
    hx_json_write_uint(w, r->kept_out);
    hx_present_rejected(w, r->rejected, r->n_rejected);
    hx_json_write_key(w, "chunks_added");
    hx_json_write_uint(w, r->chunks_added);
    hx_json_write_key(w, "chunks_removed");
    hx_json_write_uint(w, r->chunks_removed);
    hx_json_write_key(w, "seconds");
    hx_json_write_double(w, r->seconds);
}

/* "searchable": the commit that holds the change, visible to every search from now on, and a
 * "warning" when something after that commit failed (the change itself is committed). */
static void write_searchable(hx_json_writer *w, hx_index *ix, const hx_update_report *r)
{
    if (r->warning[0]) {
        hx_json_write_key(w, "warning");
        hx_json_write_cstr(w, r->warning);
    }
    hx_index_stats st;
    hx_index_stats_get(ix, &st, NULL);
    hx_json_write_key(w, "generation");
    hx_json_write_uint(w, st.generation);
    hx_json_write_key(w, "searchable");
    hx_json_write_bool(w, 1);
    write_time(w, "searchable_at", st.committed_ns);
}

#define WARNING_PROP "\"warning\":{\"type\":\"string\",\"description\":\"Present when the change is committed but something after it failed (compaction).\"}"
#define REPORT_PROPS                                                                                          \
    "\"added\":{\"type\":\"integer\"},\"updated\":{\"type\":\"integer\"},\"unchanged\":{\"type\":\"integer\"}," \
    "\"removed\":{\"type\":\"integer\"},\"kept_out\":{\"type\":\"integer\",\"description\":\"files left out because they were deleted with delete_document\"},\"rejected\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"reason\":{\"type\":\"string\"}}}}," \
    "\"chunks_added\":{\"type\":\"integer\"},\"chunks_removed\":{\"type\":\"integer\"},\"seconds\":{\"type\":\"number\"}," \
    "\"generation\":{\"type\":\"integer\"},\"searchable\":{\"type\":\"boolean\"},\"searchable_at\":{\"type\":\"string\"}," \
    WARNING_PROP

static const mcp_arg add_args[] = {
    {"path", MCP_STRING, .description = "A file under the indexed root to index now (root-relative)."},
    {"content", MCP_STRING, .description = "Text to store as a new document (with name)."},
    {"name", MCP_STRING,
     .description = "Root-relative name for content, e.g. notes/meeting.md (the extension picks the type)."},
    {"metadata", MCP_METADATA, AT_MOST(MAX_FILTERS),
     .description = "Metadata for content, usable in filters: strings, numbers, booleans, ISO-8601 dates "
                    "(as strings) or lists of them, e.g. {\"status\": \"draft\", \"tags\": [\"a\", \"b\"]}. "
                    "These keys win over the content's own front matter."},
    {"signature", MCP_STRING,
     .description = "For content: the text of a detached signature over it, a minisign .minisig or an OpenSSH "
                    "signature (ssh-keygen -Y sign -n hyrax), checked against the project's trust store before "
                    "the content is embedded; needed where the project's policy requires a signature."},
    {.name = NULL},
};

static const char add_out[] =
    "{\"type\":\"object\",\"properties\":{\"document\":{\"type\":\"object\",\"properties\":{" DOC_SUMMARY_PROPS "}},"
    "\"status\":{\"type\":\"string\"}," REPORT_PROPS "},\"required\":[\"document\",\"status\",\"generation\",\"searchable\"]}";

static int tool_add_document(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {add_args, args};
    const char *path = mcp_arg_str(&a, "path"), *content = mcp_arg_str(&a, "content");
    const char *name = mcp_arg_str(&a, "name");
    hx_kv kv[HX_META_MAX];
    size_t n_meta = mcp_arg_metadata(&a, "metadata", kv, HX_META_MAX);
    if (!path == !content)
        return snprintf(msg, cap, "give either 'path' (a file under the indexed root) or 'content' with 'name'"), -1;
    if (content && !name)
        return snprintf(msg, cap, "'content' needs a 'name', the root-relative name to store it under (e.g. notes/x.md)"), -1;
    if (path && (name || mcp_arg_value(&a, "metadata") || mcp_arg_value(&a, "signature")))
        return snprintf(msg, cap, "'name', 'metadata' and 'signature' go with 'content'; for 'path' the file's own "
                        "metadata and signature file are used"), -1;
    hx_index *ix = NULL;
    if (open_writer(s, &ix, msg, cap))
        return -1;
    hx_update_report rep = {0};
    hx_error err = {0};
    const char *root = hx_index_root(ix);
    char doc_path[HX_RELPATH_MAX], abs[2 * HX_RELPATH_MAX];
    struct stat st;
    int rc = arg_name(root, path ? "path" : "name", path ? path : name, doc_path, msg, cap) ? 0 : -1;
    if (!rc && !*doc_path)
        rc = (snprintf(msg, cap, "'%s' names the indexed root, not a document; %s", path ? "path" : "name",
                       path ? "add_document takes one file (reindex takes folders)" : "give a name such as notes/x.md"), -1);
    if (!rc && path) {
        snprintf(abs, sizeof abs, "%s/%s", root, doc_path);
        if (stat(abs, &st) == 0 && S_ISDIR(st.st_mode))
            rc = (snprintf(msg, cap, "'%.200s' is a folder; add_document takes one file (reindex takes folders)", doc_path), -1);
    }
    if (!rc && path) {
        const char *targets[] = {doc_path};
        hx_update_opts o = {.encoder = s->writer_enc, .progress = job_progress, .progress_ctx = s};
        if (hx_index_update(ix, targets, 1, &o, &rep, &err))
            rc = (snprintf(msg, cap, "indexing %.200s failed: %s", doc_path, err.message), -1);
        if (!rc && rep.n_rejected) {
            mcp_note_failure(s, rep.rejected[0].path, rep.rejected[0].reason);
            rc = (snprintf(msg, cap, "%.200s was not indexed: %s", doc_path, rep.rejected[0].reason), -1);
        }
    } else if (!rc) {
        uint32_t id;
        const char *sig = mcp_arg_str(&a, "signature");
        if (hx_index_add_signed(ix, doc_path, content, strlen(content), sig, sig ? strlen(sig) : 0, kv, n_meta,
                                s->writer_enc, job_progress, s, &id, &rep, &err))
            rc = (snprintf(msg, cap, "storing %.200s failed: %s", doc_path, err.message), -1);
    }
    hx_doc_info d;
    if (!rc && hx_index_doc_by_path(ix, doc_path, &d))
        rc = (snprintf(msg, cap, "%s is not a file hyrax can index (a folder? use reindex)", doc_path), -1);
    if (!rc) {
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "document");
        hx_json_write_obj_begin(w);
        write_doc_summary(w, &d);
        hx_json_write_obj_end(w);
        hx_json_write_key(w, "status");
        hx_json_write_cstr(w, rep.added ? "added" : rep.updated ? "updated" : "unchanged");
        write_report(w, &rep);
        write_searchable(w, ix, &rep);
        hx_json_write_obj_end(w);
    }
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    return rc;
}

static const char delete_out[] =
    "{\"type\":\"object\",\"properties\":{\"success\":{\"type\":\"boolean\"},\"doc_id\":{\"type\":\"integer\"},"
    "\"path\":{\"type\":\"string\"},\"source\":{\"type\":\"string\",\"enum\":[\"file\",\"stored\"]},"
    "\"deleted_chunks\":{\"type\":\"integer\"},"
    "\"remembered\":{\"type\":\"boolean\",\"description\":\"true for a file-backed document: reindex leaves its file out until add_document {path} names it\"},"
    "\"note\":{\"type\":\"string\"},\"generation\":{\"type\":\"integer\"},"
    "\"searchable\":{\"type\":\"boolean\"},\"searchable_at\":{\"type\":\"string\"}," WARNING_PROP "},"
    "\"required\":[\"success\",\"doc_id\",\"path\",\"source\",\"deleted_chunks\",\"remembered\"]}";

static const mcp_arg delete_args[] = {
    ARG_DOC_ID(NULL),
    ARG_DOC_PATH("root-relative path"),
    {"purge_index", MCP_BOOLEAN, .def = "true",
     .description = "Seed 003's flag; hyrax keeps one index, so the document leaves both searches either way."},
    {.name = NULL},
};

static int tool_delete_document(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {delete_args, args};
    const char *path = mcp_arg_str(&a, "path");
    bool by_id = mcp_arg_value(&a, "doc_id") != NULL;
    if (by_id == (path != NULL))
        return snprintf(msg, cap, "give exactly one of 'doc_id' (a number from list_documents or search) or 'path'"), -1;
    int64_t id = mcp_arg_int(&a, "doc_id");
    char name[HX_RELPATH_MAX];
    hx_index *ix = NULL;
    if (open_writer(s, &ix, msg, cap))
        return -1;
    hx_doc_info d = {0};   /* found by path, or else the removal below fails and says why */
    hx_update_report rep = {0};
    hx_error err = {0};
    int rc = 0;
    if (by_id && hx_index_doc_by_id(ix, (uint32_t)id, &d))
        rc = (snprintf(msg, cap, "no document with doc_id %lld in the index", (long long)id), -1);
    else if (by_id)
        snprintf(name, sizeof name, "%s", d.path);   /* d borrows the view the removal replaces */
    else if (!arg_name(hx_index_root(ix), "path", path, name, msg, cap))
        rc = -1;
    else
        hx_index_doc_by_path(ix, name, &d);
    hx_doc_kind kind = d.kind;
    uint32_t doc_id = d.id;
    const char *names[] = {name};
    if (!rc && hx_index_remove(ix, names, 1, HX_REMOVE_EXACT, &rep, &err))
        rc = (snprintf(msg, cap, "cannot delete: %s", err.message), -1);
    if (!rc) {
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "success");
        hx_json_write_bool(w, 1);
        hx_json_write_key(w, "doc_id");
        hx_json_write_uint(w, doc_id);
        hx_json_write_key(w, "path");
        hx_json_write_cstr(w, name);
        hx_json_write_key(w, "source");
        hx_json_write_cstr(w, hx_present_kind(kind));
        hx_json_write_key(w, "deleted_chunks");
        hx_json_write_uint(w, rep.chunks_removed);
        hx_json_write_key(w, "remembered");
        hx_json_write_bool(w, kind == HX_DOC_FILE);
        hx_json_write_key(w, "note");
        hx_json_write_cstr(w, kind == HX_DOC_FILE ? "the file itself is untouched; reindex leaves it out until "
                                                    "add_document {path} indexes it again"
                                                  : "the stored text is gone from the index");
        write_searchable(w, ix, &rep);
        hx_json_write_obj_end(w);
    }
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    return rc;
}

/* === create_baseline (worker thread) === */

static const mcp_arg baseline_args[] = {
    {"name", MCP_STRING, .required = true, RANGE(1, HX_BASELINE_NAME_MAX),
     .description = "Letters, digits, '.', '_', ':' or '-'. Naming again moves the name to the current state; "
                    "the name published is what read_context {selector: published} reads."},
    {.name = NULL},
};

static const char baseline_out[] =
    "{\"type\":\"object\",\"properties\":{\"success\":{\"type\":\"boolean\"},\"baseline_id\":{\"type\":\"string\"},"
    "\"generation\":{\"type\":\"integer\"},\"committed_at\":{\"type\":\"string\"}},"
    "\"required\":[\"success\",\"baseline_id\",\"generation\",\"committed_at\"]}";

static int tool_create_baseline(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {baseline_args, args};
    hx_index *ix = NULL;
    hx_commit_info made;
    hx_error err = {0};
    if (open_writer(s, &ix, msg, cap))
        return -1;
    int rc = hx_index_baseline(ix, mcp_arg_str(&a, "name"), &made, &err);
    hx_index_close(ix);
    if (rc)
        return snprintf(msg, cap, "cannot create the baseline: %s", err.message), -1;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "success");
    hx_json_write_bool(w, 1);
    hx_json_write_key(w, "baseline_id");
    hx_json_write_cstr(w, made.name);
    hx_json_write_key(w, "generation");
    hx_json_write_uint(w, made.generation);
    write_time(w, "committed_at", made.committed_ns);
    hx_json_write_obj_end(w);
    return 0;
}

static const mcp_arg reindex_args[] = {
    {"paths", MCP_STRING_LIST, AT_MOST(MAX_PATHS), .description = "Root-relative files or folders; default: the whole root."},
    {"force", MCP_BOOLEAN, .def = "false", .description = "Re-embed unchanged files too."},
    {"exclude", MCP_STRING_LIST, AT_MOST(MAX_EXCLUDES), .description = "Globs of root-relative paths to skip."},
    {.name = NULL},
};

static const char reindex_out[] = "{\"type\":\"object\",\"properties\":{" REPORT_PROPS "},"
                                  "\"required\":[\"added\",\"updated\",\"unchanged\",\"removed\",\"rejected\",\"seconds\",\"generation\",\"searchable\"]}";

static int tool_reindex(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {reindex_args, args};
    const char *rel[MAX_PATHS], *excl[MAX_EXCLUDES];
    size_t np = mcp_arg_list(&a, "paths", rel), ne = mcp_arg_list(&a, "exclude", excl);
    int force = mcp_arg_bool(&a, "force");
    hx_index *ix = NULL;
    if (open_writer(s, &ix, msg, cap))
        return -1;
    char (*names)[HX_RELPATH_MAX] = hx_malloc(sizeof *names * (np ? np : 1));
    const char **targets = hx_malloc(sizeof *targets * (np ? np : 1));
    int rc = names && targets ? 0 : (snprintf(msg, cap, "out of memory"), -1);
    if (!rc && !np) {
        targets[0] = "";   /* the whole root */
        np = 1;
    } else {
        for (size_t i = 0; i < np && !rc; i++)
            if (!(targets[i] = arg_name(hx_index_root(ix), "paths", rel[i], names[i], msg, cap)))
                rc = -1;
    }
    hx_update_report rep = {0};
    hx_error err = {0};
    hx_update_opts o = {.excludes = excl, .n_excludes = ne, .reindex = force, .encoder = s->writer_enc,
                        .progress = job_progress, .progress_ctx = s};
    if (!rc) {
        if (hx_index_update(ix, targets, np, &o, &rep, &err))
            rc = (snprintf(msg, cap, "reindex failed: %s", err.message), -1);
        hx_stats_note_update(s->stats, rc ? NULL : &rep, rc ? err.message : NULL, 0);
    }
    for (size_t i = 0; !rc && i < rep.n_rejected; i++)
        mcp_note_failure(s, rep.rejected[i].path, rep.rejected[i].reason);
    if (!rc) {
        hx_json_write_obj_begin(w);
        write_report(w, &rep);
        write_searchable(w, ix, &rep);
        hx_json_write_obj_end(w);
    }
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    free(names);
    free(targets);
    return rc;
}

/* === publish (the registry tier, issue 13) === */

static const mcp_arg publish_args[] = {
    {"paths", MCP_STRING_LIST, .required = true, AT_MOST(MAX_PATHS),
     .description = "Root-relative files or folders to publish to the registry."},
    {"visibility", MCP_STRING, .choices = hx_publish_visibilities, .def = "tenant",
     .description = "tenant: readable by the publishing tenant only; public: by every tenant; private: by this "
                    "server's user only (serve --tenant T --user U)."},
    {"allow_unsigned", MCP_BOOLEAN, .def = "false",
     .description = "Publish files without a signature file too (a bad signature is always refused)."},
    {.name = NULL},
};

static const char publish_out[] =
    "{\"type\":\"object\",\"properties\":{\"published\":{\"type\":\"integer\"},\"unchanged\":{\"type\":\"integer\"},"
    "\"removed\":{\"type\":\"integer\"},\"chunks\":{\"type\":\"integer\"},\"rejected\":{\"type\":\"array\"}},"
    "\"required\":[\"published\",\"unchanged\",\"removed\",\"rejected\"]}";

static int tool_publish(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {publish_args, args};
    const char *rel[MAX_PATHS];
    size_t np = mcp_arg_list(&a, "paths", rel);
    char (*names)[HX_RELPATH_MAX] = hx_malloc(sizeof *names * (np ? np : 1));
    const char **targets = hx_malloc(sizeof *targets * (np ? np : 1));
    hx_error err = {0};
    hx_trust *trust = NULL;
    hx_registry *r = NULL;
    hx_publish_report rep = {0};
    int rc = names && targets ? 0 : (snprintf(msg, cap, "out of memory"), -1);
    for (size_t i = 0; i < np && !rc; i++)
        if (!(targets[i] = arg_name(s->cfg->root, "paths", rel[i], names[i], msg, cap)))
            rc = -1;
    if (!rc && mcp_wait_model(s, msg, cap))
        rc = -1;
    if (!rc && !s->writer_enc && hx_encoder_new(&s->writer_enc, s->model, s->cfg->threads, &err))
        rc = (snprintf(msg, cap, "cannot start the encoder: %s", err.message), -1);
    hx_registry_opts ro = registry_opts(s, 0);
    if (!rc && (hx_trust_load(&trust, s->cfg->root, &err) || hx_registry_connect(&r, &ro, &err)))
        rc = (snprintf(msg, cap, "publish failed: %s", err.message), -1);
    hx_publish_opts po = {s->cfg->root, targets, np, trust, mcp_arg_bool(&a, "allow_unsigned"),
                          mcp_arg_str(&a, "visibility"), 0, job_progress, s};
    if (!rc && hx_publish(r, s->writer_enc, s->model, &po, &rep, &err))
        rc = (snprintf(msg, cap, "publish failed: %s", err.message), -1);
    if (!rc) {
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "published");
        hx_json_write_uint(w, rep.published);
        hx_json_write_key(w, "unchanged");
        hx_json_write_uint(w, rep.unchanged);
        hx_json_write_key(w, "removed");
        hx_json_write_uint(w, rep.removed);
        hx_json_write_key(w, "chunks");
        hx_json_write_uint(w, rep.chunks);
        hx_present_rejected(w, rep.rejected, rep.n_rejected);
        hx_json_write_obj_end(w);
    }
    hx_publish_report_clear(&rep);
    hx_registry_close(r);
    hx_trust_free(trust);
    free(names);
    free(targets);
    return rc;
}

/* === index_health === */

static const mcp_arg health_args[] = {{.name = NULL}};

static const char health_out[] =
    "{\"type\":\"object\",\"properties\":{\"status\":{\"type\":\"string\",\"enum\":[\"ok\",\"empty\",\"loading\",\"error\"]},"
    "\"message\":{\"type\":\"string\"},\"db\":{\"type\":\"string\"},\"root\":{\"type\":[\"string\",\"null\"]},"
    "\"documents\":{\"type\":\"integer\"},\"chunks\":{\"type\":\"integer\"},\"segments\":{\"type\":\"integer\"},"
    "\"tombstones\":{\"type\":\"integer\"},\"file_bytes\":{\"type\":\"integer\"},"
    "\"last_commit\":{\"type\":[\"object\",\"null\"],\"properties\":{\"generation\":{\"type\":\"integer\"},\"committed_at\":{\"type\":\"string\"}}},"
    "\"model\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"dimension\":{\"type\":\"integer\"},\"loaded\":{\"type\":\"boolean\"}}},"
    "\"pending_jobs\":{\"type\":\"integer\"},\"running_job\":{\"type\":[\"string\",\"null\"]},\"jobs_done\":{\"type\":\"integer\"},"
    "\"jobs_failed\":{\"type\":\"integer\"},\"jobs_busy\":{\"type\":\"integer\"},\"failures\":{\"type\":\"array\"},"
    "\"top_queries\":{\"type\":\"array\",\"description\":\"The 10 most frequent queries of the last top_queries_window_s seconds, "
    "from every process on this index (serve, hyrax search), kept across restarts; count is a space-saving estimate. "
    "Under serve --tenant, this identity's queries only.\"},"
    "\"top_queries_window_s\":{\"type\":\"integer\"},"
    "\"latency\":{\"type\":\"object\",\"description\":\"Per tool (and hyrax search): calls, mean/p50/p95/p99 ms, and the same per transport (stdio, http, cli); kept across restarts.\"},"
    "\"index\":{\"type\":\"object\",\"description\":\"Index updates kept across restarts: files added, updated, removed, rejected (gate or unreadable), failed updates, last error (null under serve --tenant), and lag (a changed file's mtime to its commit).\"},"
    "\"watch\":{\"type\":[\"object\",\"null\"],\"description\":\"serve --watch: mode (inotify or poll), batches, commits, pending paths and the last batch (its rejected files and error left out under serve --tenant); null when not watching.\"},"
    "\"stats_error\":{\"type\":\"string\"},\"uptime_s\":{\"type\":\"number\"},\"read_only\":{\"type\":\"boolean\"},"
    "\"protocol_version\":{\"type\":\"string\"}},"
    "\"required\":[\"status\",\"documents\",\"chunks\",\"pending_jobs\",\"latency\",\"model\"]}";

static int tool_index_health(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    (void)args;
    (void)msg;
    (void)cap;
    char why[1024] = "";
    int open_rc = mcp_open_reader(s, why, sizeof why);
    hx_index_stats st = {0};
    bool have = !open_rc && !hx_index_stats_get(s->reader, &st, NULL);
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "status");
    hx_json_write_cstr(w, have ? (st.documents ? "ok" : "empty") : s->model ? "empty" : "error");
    if (!have) {
        hx_json_write_key(w, "message");
        hx_json_write_cstr(w, why);
    }
    hx_json_write_key(w, "db");
    hx_json_write_cstr(w, s->cfg->db);
    hx_json_write_key(w, "root");
    hx_json_write_cstr(w, have ? hx_index_root(s->reader) : s->cfg->root);
    hx_json_write_key(w, "documents");
    hx_json_write_uint(w, st.documents);
    hx_json_write_key(w, "chunks");
    hx_json_write_uint(w, st.live_chunks);
    hx_json_write_key(w, "segments");
    hx_json_write_uint(w, st.segments);
    hx_json_write_key(w, "tombstones");
    hx_json_write_uint(w, st.tombstones);
    hx_json_write_key(w, "file_bytes");
    hx_json_write_uint(w, st.file_bytes);
    hx_json_write_key(w, "last_commit");
    if (have) {
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "generation");
        hx_json_write_uint(w, st.generation);
        write_time(w, "committed_at", st.committed_ns);
        hx_json_write_obj_end(w);
    } else {
        hx_json_write_null(w);
    }
    hx_json_write_key(w, "model");
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "name");
    hx_json_write_cstr(w, s->model ? hx_model_name(s->model) : "all-MiniLM-L6-v2");
    hx_json_write_key(w, "dimension");
    hx_json_write_int(w, s->model ? hx_model_dim(s->model) : HX_EMBED_DIM);
    hx_json_write_key(w, "loaded");
    hx_json_write_bool(w, s->model != NULL);
    hx_json_write_obj_end(w);
    mcp_write_health_jobs(s, w);
    hx_json_write_key(w, "failures");
    mcp_write_failures(s, w);
    hx_error serr = {0};
    if (hx_stats_write_json(s->stats, s->cfg->db, s->cfg->identity, w, &serr)) {   /* latency, top_queries, index */
        hx_json_write_key(w, "stats_error");
        hx_json_write_cstr(w, serr.message);
    }
    hx_json_write_key(w, "watch");
    if (s->watch)
        hx_watch_write_health(s->watch, !s->cfg->identity, w);   /* its paths: the unscoped reader's only */
    else
        hx_json_write_null(w);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    hx_json_write_key(w, "uptime_s");
    hx_json_write_double(w, (double)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - s->started_ns) / 1e9);
    hx_json_write_key(w, "read_only");
    hx_json_write_bool(w, s->cfg->read_only);
    hx_json_write_key(w, "protocol_version");
    hx_json_write_cstr(w, s->protocol);
    hx_json_write_obj_end(w);
    return 0;
}

static int tool_search(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    return with_filters(search_filtered, search_args, s, args, w, msg, cap);
}

static int tool_get_context(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    return with_filters(context_filtered, context_args, s, args, w, msg, cap);
}

static int tool_find_similar(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    return with_filters(similar_filtered, similar_args, s, args, w, msg, cap);
}

static int tool_list_documents(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    return with_filters(list_filtered, list_args, s, args, w, msg, cap);
}

/* === The seeds' tools ===
 * Other names for the tools above, as the seeds' agents call them: each table holds the seed's
 * arguments and says which argument of its family tool each fills (`as`) and what it always gives
 * (`fixed`); the family tool checks the result again and answers with its own output. read_context,
 * which every query tool takes, is one more row in each table, passed on under its own name. */

static const mcp_arg semantic_search_args[] = {
    ARG_QUERY("Natural language query."),
    {"limit", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "5", .as = "top_k", .description = "Number of results (chunks)."},
    {"doc_filter", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = seed_filters, .as = "filters",
     .description = SEED_FILTERS_DOC},
    /* the seed's default is 0.5, but on hyrax's calibrated 0..1 relevance that keeps only close
     * matches (a chunk at cosine 0.71 scores 0.31): the default is hyrax's floor */
    {"threshold", MCP_NUMBER, RANGE(0, 1), .def = HX_STRINGIFY(HX_MIN_RELEVANCE), .as = "min_score",
     .description = "Relevance threshold 0..1: results scoring below are left out (search's min_score, semantic "
                    "mode); default hyrax's floor, not the seed's 0.5."},
    {"mode", .fixed = "\"semantic\""},
    {"group_by", .fixed = "\"chunk\""},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

static const mcp_arg full_text_search_args[] = {
    ARG_QUERY("Full-text query: words, \"exact phrase\", -exclude, +require, prefix*."),
    {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = seed_filters, .description = SEED_FILTERS_DOC},
    {"limit", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "10", .as = "top_k", .description = "Number of documents."},
    {"mode", .fixed = "\"keyword\""},
    {"group_by", .fixed = "\"document\""},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

static const mcp_arg hybrid_search_args[] = {
    ARG_QUERY("Query string."),
    {"semantic_weight", MCP_NUMBER, RANGE(0, 1), .as = "fusion.semantic_weight",
     .description = "Weight of the semantic side's normalised score; default search's (0.5)."},
    {"text_weight", MCP_NUMBER, RANGE(0, 1), .as = "fusion.text_weight",
     .description = "Weight of the keyword side's normalised score; default search's (0.5)."},
    {"limit", MCP_INTEGER, RANGE(1, MAX_TOP_K), .as = "top_k", .description = "Combined results (documents); default search's."},
    {"mode", .fixed = "\"hybrid\""},
    {"method", .fixed = "\"weighted\"", .as = "fusion.method"},
    {"group_by", .fixed = "\"document\""},   /* seed 003: a document found by both sides comes once */
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

static const mcp_arg document_details_args[] = {
    ARG_DOC_ID("A document id from list_documents or search."),
    ARG_DOC_PATH("Or its root-relative path."),
    {"include_chunks", .fixed = "true"},
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

/* seed 001's filters name an architecture model's keys; here they are metadata keys like any other */
static const mcp_arg seed001_filters[] = {
    {"layer", MCP_STRING, .description = "strategy, business, application or technology in seed 001"},
    {"element_type", MCP_STRING, .description = "metadata key element_type"},
    {"capability", MCP_STRING, .description = "metadata key capability"},
    {.name = NULL},
};

static const mcp_arg semantic_search_001_args[] = {
    ARG_QUERY("Natural language query."),
    {"top_k", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "10", .description = "Number of results."},
    {"min_score", MCP_NUMBER, RANGE(0, 1), .def = HX_STRINGIFY(HX_MIN_RELEVANCE),
     .description = "Minimum relevance 0..1 (search's min_score); default hyrax's floor, not the seed's 0.5."},
    {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = seed001_filters, .description = FILTERS_DOC},
    /* read_context: issue 11 item 1 adds its shared row to every query table, this one included */
    {"mode", .fixed = "\"semantic\""},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

static const mcp_arg get_context_001_args[] = {
    ARG_QUERY(NULL),
    ARG_MAX_TOKENS,
    {"include_relationships", MCP_BOOLEAN, .def = "true", .description = "Also the neighbouring chunks of the same section."},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

/* === audit_log === */

static const mcp_arg audit_args[] = {
    {"limit", MCP_INTEGER, RANGE(1, HX_AUDIT_MAX), .def = "100", .description = "The newest entries to return."},
    {"since", MCP_STRING, .description = "Only entries at or after this time: ISO-8601 (2026-01-31T12:00:00Z) or unix seconds."},
    {"path", MCP_STRING, .description = "Only documents whose root-relative path matches this glob (** spans folders)."},
    {.name = NULL},
};

static const char audit_out[] =
    "{\"type\":\"object\",\"properties\":{\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"time\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},\"sha256\":{\"type\":\"string\"},"
    "\"rule\":{\"type\":\"string\"},\"reason\":{\"type\":\"string\"}}}},\"count\":{\"type\":\"integer\"}},"
    "\"required\":[\"entries\",\"count\"]}";

static int tool_audit_log(mcp_server *s, const hx_json_val *args, hx_json_writer *w, char *msg, size_t cap)
{
    mcp_args a = {audit_args, args};
    const char *since = mcp_arg_str(&a, "since");
    int64_t since_ns = 0;
    hx_error err = {0};
    if (since && hx_time_parse(since, &since_ns, &err))
        return snprintf(msg, cap, "'since': %s", err.message), -1;
    if (mcp_open_reader(s, msg, cap))
        return -1;
    hx_audit_list l;
    if (hx_index_audit(s->reader, &l, &err))
        return snprintf(msg, cap, "reading the audit log failed: %s", err.message), -1;
    if (hx_audit_list_select(&l, since_ns, mcp_arg_str(&a, "path"), (size_t)mcp_arg_int(&a, "limit"), &err)) {
        hx_audit_list_free(&l);
        return snprintf(msg, cap, "%s", err.message), -1;
    }
    hx_present_audit(w, &l);
    hx_audit_list_free(&l);
    return 0;
}

/* === The table === */

const mcp_tool hx_mcp_tools[MCP_TOOL_COUNT] = {
    {"search", "Search the indexed documents: hybrid (semantic + keyword), semantic, or keyword mode, with "
               "filters. Returns ranked passages with snippets and citations (path, line range, version).",
     search_args, search_out, false, tool_search, NULL},
    {"get_context", "Assemble one context block for a question within a token budget: the most relevant "
                    "passages with a source header each, adjacent passages merged, least relevant dropped to fit.",
     context_args, context_out, false, tool_get_context, NULL},
    {"find_similar", "Passages most similar to a document, a chunk, or a text (the source itself left out).",
     similar_args, similar_out, false, tool_find_similar, NULL},
    {"list_documents", "List indexed documents with filters, sorting and paging. Each has a source: file (it "
                       "mirrors a file under the root) or stored (text given to add_document).",
     list_args, list_out, false, tool_list_documents, NULL},
    {"get_document", "A document's metadata, content hash and chunks (index, text, token count).", get_args,
     get_out, false, tool_get_document, NULL},
    {"document_status", "Whether a document is indexed (complete, or empty: blank, no text to search), pending or "
                        "failed (with the reason), when, and with which model.", status_args,
     status_out, false, tool_document_status, NULL},
    {"add_document", "Index one file under the root now (path), or store text as a document (content + name, "
                     "with metadata). A stored document has no file behind it: it is addressed by its name, never "
                     "compared with the disk (reindex keeps it as it is) and removed only by delete_document; "
                     "storing under a stored document's name replaces it, under an indexed file's name is "
                     "refused. add_document with path also brings back a file removed by delete_document. "
                     "Answers once the document is searchable.",
     add_args, add_out, true, tool_add_document, NULL},
    {"delete_document", "Remove exactly one document, by doc_id or path; a folder, the root or an unknown name is "
                        "refused with the reason. The file itself is not touched, and the deletion is remembered: "
                        "reindex leaves the file out until add_document with its path indexes it again. A "
                        "stored document's text is gone for good.",
     delete_args, delete_out, true, tool_delete_document, NULL},
    {"reindex", "Bring the file-backed documents up to date with the files under the root (or some paths): new "
                "files added, changed ones re-embedded, deleted ones removed. Stored documents (add_document "
                "with content) are never touched; files removed by delete_document stay out (kept_out). "
                "Answers once the changes are searchable.",
     reindex_args, reindex_out, true, tool_reindex, NULL},
    {"index_health", "Counts, pending work (jobs done, failed or cancelled, refused as busy), failures, last "
                     "commit, file size, model, recent top queries and latency per tool.",
     health_args, health_out, false, tool_index_health, NULL},
    {"create_baseline", "Name the current state of the index (a baseline; nothing is copied), so query tools can "
                        "read it later with read_context {selector: baseline_id, baseline_id: name}, also after "
                        "compaction. The name published is what read_context {selector: published} reads.",
     baseline_args, baseline_out, true, tool_create_baseline, NULL},
    {"audit_log", "Documents the validation gate refused to index (README \"Validation gate and policy\"): "
                  "time, path, content hash, rule and reason, newest last; kept in the index file, the newest "
                  "10,000.",
     audit_args, audit_out, false, tool_audit_log, NULL},
    {"semantic_search", "Seed 003: meaning-based retrieval. search in semantic mode, chunk by chunk, with limit, "
                        "doc_filter and a similarity threshold (default 0.5).",
     semantic_search_args, search_out, false, NULL, "search"},
    {"full_text_search", "Seed 003: keyword retrieval (BM25) with filters; matching documents with a snippet around "
                         "the hits. search in keyword mode.",
     full_text_search_args, search_out, false, NULL, "search"},
    {"hybrid_search", "Seed 003: semantic and keyword scores, each normalised to 0..1, combined with semantic_weight "
                      "and text_weight; one result per document. search in hybrid mode with weighted fusion.",
     hybrid_search_args, search_out, false, NULL, "search"},
    {"document_details", "Seed 003: a document's metadata, hash and chunks. get_document under seed 003's name.",
     document_details_args, get_out, false, NULL, "get_document"},
    {"semanticSearch", "Seed 001: passages related to a natural-language query, with top_k, min_score and filters. "
                       "search in semantic mode.",
     semantic_search_001_args, search_out, false, NULL, "search"},
    {"getContext", "Seed 001: assembled context for answering a question, within max_tokens. get_context under "
                   "seed 001's name.",
     get_context_001_args, context_out, false, NULL, "get_context"},
    {"publish", "Publish signed files under the root to the team's registry (PostgreSQL + pgvector) as this "
                "server's tenant: embedded here, one transaction per batch; unchanged files are skipped and the "
                "tenant's documents whose files are gone are removed. Search them with search {source: registry}.",
     publish_args, publish_out, true, tool_publish, NULL},
    /* conversation memory (mcp_memory.c) */
    {"record_turn", "Seed 003's conversation memory: store one turn of a session (user message, agent response, "
                    "retrieved document ids, search method, relevance). Answers once the turn is durable. Turns "
                    "belong to this server's tenant and user; the oldest are dropped past the retention limits.",
     mcp_record_turn_args, mcp_record_turn_out, true, mcp_tool_record_turn, NULL},
    {"get_session", "The turns of one session, in order.", mcp_get_session_args, mcp_get_session_out, false,
     mcp_tool_get_session, NULL},
    {"search_history", "Past turns related to a query: hybrid (semantic over the turns' embeddings fused with "
                       "keyword BM25), semantic or keyword; optionally within one session.",
     mcp_search_history_args, mcp_search_history_out, false, mcp_tool_search_history, NULL},
    {"list_sessions", "The sessions of the conversation memory, newest first, with their turn counts.",
     mcp_list_sessions_args, mcp_list_sessions_out, false, mcp_tool_list_sessions, NULL},
};
