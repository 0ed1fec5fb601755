/* mcp_tool_search.c: the query tools of `hyrax serve`: search, get_context, find_similar, their
 * argument tables and output schemas, and the seeds' names for them (seed 003's semantic_search,
 * full_text_search, hybrid_search; seed 001's semanticSearch, getContext): tables that translate
 * into a hyrax tool's arguments, which that tool answers (mcp_args.h). Each tool parses its table,
 * calls the connection's session (hyrax.h "Session") and presents the answer; main thread.
 * Shapes follow the seeds: 001 (get_context, citations, read_context), 002 (search modes, filters,
 * min_score). */
#include "mcp_tools.h"
#include "present.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Tiers (`hyrax help tiers`) === */

/* The `source` argument of the query tools that search tiers: one row, as MCP_ARG_READ_CONTEXT. */
#define MCP_ARG_SOURCE                                                                                        \
    {"source", MCP_STRING, .choices = hx_search_source_names, .def = "all",                                          \
     .description = "Which tiers to search: all (the project index, the user index when it exists, and the "  \
                    "team's PostgreSQL registry when the server names one), project, user, or registry "      \
                    "alone (search tools only). An unreachable registry is not consulted (consulted false "   \
                    "in tiers, or registry.consulted alone) and the rest answers. Each result's tier says which " \
                    "answered; the answer's tiers say which were read. read_context's time applies to every " \
                    "tier, a baseline to the project only."}

/* The answer's "tiers" (hxi_present_tiers), a row of an output description's fields. */
static const mcp_field tier_fields[] = {
    {"tier", .type = MCP_JSON_STRING},
    {"db", .type = MCP_JSON_STRING},
    {"searched", .type = MCP_JSON_BOOLEAN},
    {"consulted", .type = MCP_JSON_BOOLEAN},
    {"results", .type = MCP_JSON_INTEGER},
    {"generation", .type = MCP_JSON_INTEGER},
    {"reason", .type = MCP_JSON_STRING},
    {.name = NULL},
};
static const mcp_field tier_item = {NULL, MCP_JSON_OBJECT, .props = tier_fields, MCP_REQUIRED("tier", "searched")};
#define MCP_OUT_TIERS {"tiers", MCP_JSON_ARRAY, .items = &tier_item}

/* "read_context" of the first tier the answer a read, then "tiers": every tier its source names. */
static void write_tiers(hxi_json_writer *w, const mcp_session *s, const hx_session_answer *a)
{
    hxi_tier_status t[3];
    size_t n = a->n_tiers < 3 ? a->n_tiers : 3;
    for (size_t i = 0; i < n; i++) {
        const hx_tier_report *r = &a->tiers[i];
        bool none = !strcmp(r->name, HX_TIER_USER) && !s->cfg->user_db;   /* the server names no user index */
        t[i] = (hxi_tier_status){r->name, r->db ? r->db : "",
                                none ? "no user index: set $" HX_USER_DB_ENV ", $XDG_DATA_HOME or $HOME" : r->reason,
                                r->generation};
    }
    hxi_present_read_context(w, &a->taken);
    hxi_present_tiers(w, t, n, &a->results);
}

/* === Arguments === */

#define ARG_FILTERS {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .description = FILTERS_DOC}
#define ARG_MODE                                                                                             \
    {"mode", MCP_STRING, .choices = hx_mode_names, .def = "hybrid",                                          \
     .description = "hybrid fuses semantic (embedding) and keyword (BM25) rankings; semantic (also vector) "  \
                    "finds meaning; keyword (also full_text, text) finds exact words and identifiers."}
#define ARG_TOP_K                                                                                            \
    {"top_k", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "5",                                                  \
     .description = "Results wanted: documents when group_by is document, chunks when it is chunk."}
#define ARG_LIMIT {"limit", .alias_of = "top_k", .description = "The same as top_k (document-store servers' name)."}
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
#define ARG_RANK_WINDOW                                                                                      \
    {"rank_window", MCP_INTEGER, RANGE(1, HX_RANK_WINDOW_MAX), .def = HX_STRINGIFY(HX_RANK_WINDOW),           \
     .description = "Chunks each side ranks before fusion and the cut to top_k. Each side (keyword, "       \
                    "semantic) ranks this many before grouping (a larger top_k widens it), so any top_k up " \
                    "to it gives the same first results with the same scores."}
#define ARG_THRESHOLD {"threshold", .alias_of = "min_score", .description = "The same as min_score (document-store servers' name)."}
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
#define ARG_QUERY(what) {"query", MCP_STRING, .required = true, AT_LEAST(1), .description = what}
#define ARG_MAX_TOKENS                                                                                       \
    {"max_tokens", MCP_INTEGER, RANGE(64, 100000), .def = "4000",                                            \
     .description = "Budget for the assembled context, counted with the model's tokenizer."}

/* The results of an answer a (res: a's, or results a holds), each with the commit that answered it. */
static void write_results(hxi_json_writer *w, const hx_results *res, const hx_session_answer *a)
{
    hxi_json_kv_cstr(w, "group_by", hx_group_names[res->group]);
    hxi_json_write_key(w, "results");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < res->n; i++)
        hxi_present_result(w, &res->v[i], res->group, hx_session_answer_generation(a, &res->v[i]));
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "total_results", res->n);
    hxi_json_kv_double(w, "search_time_ms", res->search_ms);
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
    o->rank_window = (uint32_t)mcp_arg_int(a, "rank_window");
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

static const mcp_arg fusion_args[] = {
    {"method", MCP_STRING, .choices = hx_fusion_names, .def = "rrf",
     .description = "how hybrid mode ranks: rrf (reciprocal rank fusion of the two modes' rankings; score is the "
                    "fused score, relevance beside it), relevance (by the calibrated relevance; score = relevance) "
                    "or weighted (min-max normalised scores); results are always in the order of their score"},
    {"k", MCP_INTEGER, RANGE(1, 1000), .description = "RRF's k; default 60"},
    {"semantic_weight", MCP_NUMBER, AT_LEAST(0), .description = "weight of the semantic side (rrf or weighted); default 0.5"},
    {"text_weight", MCP_NUMBER, AT_LEAST(0), .description = "weight of the keyword side; default 0.5"},
    {.name = NULL},
};

const mcp_arg mcp_search_args[] = {
    {"query", MCP_STRING, .required = true, AT_LEAST(1),
     .description = "Natural-language question, keywords or identifiers. Keyword syntax: \"exact phrase\", "
                    "-exclude, +require, prefix*."},
    ARG_MODE,
    {"search_type", .alias_of = "mode", .description = "The same as mode (the KEP server's name)."},
    ARG_TOP_K,
    ARG_LIMIT,
    ARG_GROUP_BY,
    ARG_FILTERS,
    ARG_MIN_SCORE,
    ARG_RANK_WINDOW,
    ARG_THRESHOLD,
    ARG_RECENCY,
    {"fusion", MCP_OBJECT, .props = fusion_args},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

/* A result of search and find_similar (hxi_present_result). */
static const mcp_field more_fields[] = {
    {"score", .type = MCP_JSON_NUMBER},
    {"chunk_id", .type = MCP_JSON_INTEGER},
    {"chunk_index", .type = MCP_JSON_INTEGER},
    {"heading", .type = MCP_JSON_STRING},
    {"line_start", .type = MCP_JSON_INTEGER},
    {"line_end", .type = MCP_JSON_INTEGER},
    {.name = NULL},
};
static const mcp_field citation_fields[] = {
    {"doc_id", .type = MCP_JSON_INTEGER},
    {"path", .type = MCP_JSON_STRING},
    {"chunk_id", .type = MCP_JSON_INTEGER},
    {"chunk_index", .type = MCP_JSON_INTEGER},
    {"line_start", .type = MCP_JSON_INTEGER},
    {"line_end", .type = MCP_JSON_INTEGER},
    {"unit", MCP_JSON_STRING, .description = "what line_start and line_end count: page (PDF, PPTX and ODP pages or slides) or line"},
    {"version", .type = MCP_JSON_STRING},
    {"generation", .type = MCP_JSON_INTEGER},
    MCP_OUT_SIGNER,
    {"item_id", MCP_JSON_STRING, .description = "the cited unit's item (an ArchiMate element)"},
    {"version_id", MCP_JSON_STRING, .description = "a hash of that unit's text"},
    {.name = NULL},
};
static const mcp_field result_fields[] = {
    {"rank", .type = MCP_JSON_INTEGER},
    {"score", MCP_JSON_NUMBER, .description = "what the results are sorted by: the relevance in semantic and keyword mode, the fused score in hybrid mode (fusion.method), times the recency factor"},
    {"relevance", MCP_JSON_NUMBER, .description = "relevance 0..1: the estimated probability that the result is relevant; what min_score compares"},
    {"similarity", MCP_JSON_NUMBER | MCP_JSON_NULL, .description = "cosine of query and chunk"},
    {"vector_score", .type = MCP_JSON_NUMBER | MCP_JSON_NULL},
    {"keyword_score", .type = MCP_JSON_NUMBER | MCP_JSON_NULL},
    {"fused_score", .type = MCP_JSON_NUMBER | MCP_JSON_NULL},
    {"recency", .type = MCP_JSON_NUMBER},
    {"title", .type = MCP_JSON_STRING},
    {"heading", .type = MCP_JSON_STRING},
    {"text", .type = MCP_JSON_STRING},
    {"filename", MCP_JSON_STRING, .description = "the document's root-relative path (document-store servers' name)"},
    {"chunk_index", .type = MCP_JSON_INTEGER},
    {"snippet", .type = MCP_JSON_STRING},
    {"tier", MCP_JSON_STRING, .description = "the tier that answered: project or user"},
    {"more", MCP_JSON_ARRAY, .description = "group_by document: the document's other matching chunks, best first",
     .items = &(const mcp_field){NULL, MCP_JSON_OBJECT, .props = more_fields}},
    {"citation", MCP_JSON_OBJECT, .props = citation_fields,
     MCP_REQUIRED("doc_id", "path", "chunk_id", "line_start", "line_end", "unit", "version", "generation")},
    MCP_OUT_SIGNER,
    MCP_OUT_METADATA,
    {"item_type", MCP_JSON_STRING, .description = "a Kiwi item's type (directive, script or knowledge), when its document has one; a filter key like any metadata"},
    {.name = NULL},
};
static const mcp_field result_item = {
    NULL, MCP_JSON_OBJECT, .props = result_fields, MCP_REQUIRED("rank", "score", "text", "snippet", "citation")};

static const mcp_field search_fields[] = {
    {"query", .type = MCP_JSON_STRING},
    {"mode", .type = MCP_JSON_STRING},
    {"group_by", .type = MCP_JSON_STRING},
    {"results", MCP_JSON_ARRAY, .items = &result_item},
    {"total_results", .type = MCP_JSON_INTEGER},
    {"search_time_ms", .type = MCP_JSON_NUMBER},
    MCP_OUT_READ_CONTEXT,
    MCP_OUT_TIERS,
    {.name = NULL},
};
const mcp_field mcp_search_out = {
    NULL, MCP_JSON_OBJECT, .props = search_fields, MCP_REQUIRED("query", "mode", "results", "total_results")};

static int search_filtered(mcp_session *s, const hxi_json_val *args, const hx_filter_set *fs, hxi_json_writer *w,
                           hx_error *err)
{
    mcp_args a = {mcp_search_args, args}, fusion = mcp_arg_object(&a, "fusion");
    hx_search_opts o;
    const char *query = mcp_arg_str(&a, "query"), *method = mcp_arg_str(&fusion, "method");
    search_opts(&a, &o, fs);
    recency_opts(&a, &o);
    hx_mode_parse(mcp_arg_str(&a, "mode"), &o.mode);
    hx_fusion_parse(method, &o.fusion);   /* the table checked the name */
    o.rrf_k = (int)mcp_arg_int(&fusion, "k");
    double vw = mcp_arg_num(&fusion, "semantic_weight"), tw = mcp_arg_num(&fusion, "text_weight");
    o.vector_weight = isnan(vw) ? HX_VECTOR_WEIGHT : (float)vw;
    o.text_weight = isnan(tw) ? HX_TEXT_WEIGHT : (float)tw;
    hx_error werr = {0};
    if (hx_fusion_check_weights(o.vector_weight, o.text_weight, &werr))
        return hx_error_set(err, HX_EINVAL, -1, "%s", werr.message);
    hx_session_query q = {.query = query, .opts = o};
    hx_search_source source = HX_SEARCH_ALL;
    hx_search_source_parse(mcp_arg_str(&a, "source"), &source);   /* the table checked the name */
    q.source = (hx_search_source)source;
    if (mcp_read_context(&a, &q.at, err))
        return MCP_CODE(*err);
    hx_session_answer ans;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_search(s->ses, &q, &ans, err)))
        return mcp_session_error(s, rc, &q.at, err);
    if (q.source == HX_SEARCH_REGISTRY) {   /* the registry alone: its own answer, as `hyrax search --json` */
        hxi_present_registry_search(w, query, o.mode, &ans.results, ans.registry, ans.tiers[0].reason);
    } else {
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "query", query);
        hxi_json_kv_cstr(w, "mode", o.mode == HX_MODE_VECTOR ? "semantic" : hxi_mode_name(o.mode));
        write_results(w, &ans.results, &ans);
        write_tiers(w, s, &ans);
        hxi_json_write_obj_end(w);
    }
    mcp_note_query(s, query);
    hx_session_answer_free(&ans);
    return 0;
}

/* === get_context === */

const mcp_arg mcp_get_context_args[] = {
    ARG_QUERY(NULL),
    ARG_MAX_TOKENS,
    {"max_passages", MCP_INTEGER, RANGE(1, HX_CONTEXT_CANDIDATES), .def = "10",
     .description = "At most this many passages (5 to 10 per query suits most agents); fewer when the relevance "
                    "floor or the token budget ends the list first."},
    {"include_relationships", MCP_BOOLEAN, .def = "true",
     .description = "Add to each passage the chunks just before and after it in the same section of its "
                    "document; then the items its relationships name (rel_ metadata), labelled. All count in "
                    "the budget."},
    ARG_MIN_SCORE,
    ARG_FILTERS,
    ARG_MODE,
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

static const mcp_field source_fields[] = {
    {"index", MCP_JSON_INTEGER, .description = "the [n] label of the passage in context"},
    {"doc_id", .type = MCP_JSON_INTEGER},
    {"path", .type = MCP_JSON_STRING},
    {"title", .type = MCP_JSON_STRING},
    {"heading", .type = MCP_JSON_STRING},
    {"line_start", .type = MCP_JSON_INTEGER},
    {"line_end", .type = MCP_JSON_INTEGER},
    {"relevance", .type = MCP_JSON_NUMBER},
    {"tokens", .type = MCP_JSON_INTEGER},
    {"bytes", MCP_JSON_INTEGER,
     .description = "of its block in context (header line and passage); blocks are separated by a newline"},
    {"chunk_ids", MCP_JSON_ARRAY, MCP_ITEMS(MCP_JSON_INTEGER)},
    {"related_chunk_ids", MCP_JSON_ARRAY, .description = "neighbouring chunks added by include_relationships",
     MCP_ITEMS(MCP_JSON_INTEGER)},
    {"version", .type = MCP_JSON_STRING},
    {"generation", .type = MCP_JSON_INTEGER},
    MCP_OUT_SIGNER,
    {"tier", .type = MCP_JSON_STRING},
    MCP_OUT_METADATA,
    {"relationship", MCP_JSON_STRING, .description = "added by include_relationships: how passage related_to names it"},
    {"related_to", .type = MCP_JSON_INTEGER},
    {.name = NULL},
};
static const mcp_field context_fields[] = {
    {"query", .type = MCP_JSON_STRING},
    {"context", .type = MCP_JSON_STRING},
    {"sources", MCP_JSON_ARRAY,
     .items = &(const mcp_field){NULL, MCP_JSON_OBJECT, .props = source_fields,
                                 MCP_REQUIRED("index", "doc_id", "path", "line_start", "line_end", "relevance",
                                              "version", "generation")}},
    {"total_tokens", .type = MCP_JSON_INTEGER},
    {"max_tokens", .type = MCP_JSON_INTEGER},
    {"dropped", .type = MCP_JSON_INTEGER},
    {"truncated", .type = MCP_JSON_BOOLEAN},
    MCP_OUT_READ_CONTEXT,
    MCP_OUT_TIERS,
    {.name = NULL},
};
const mcp_field mcp_get_context_out = {
    NULL, MCP_JSON_OBJECT, .props = context_fields,
    MCP_REQUIRED("context", "sources", "total_tokens", "max_tokens", "truncated")};

/* One of get_context's sources: the passage labelled [label] in the context (hx_context_source). */
static void write_source(hxi_json_writer *w, const hx_context_source *p)
{
    hxi_json_write_obj_begin(w);
    hxi_json_kv_uint(w, "index", p->label);
    hxi_json_kv_uint(w, "doc_id", p->first->doc_id);
    hxi_json_kv_cstr(w, "path", p->first->path);
    hxi_json_kv_cstr(w, "title", p->first->title);
    hxi_json_kv_cstr(w, "heading", p->first->heading);
    hxi_json_kv_uint(w, "line_start", p->line_start);
    hxi_json_kv_uint(w, "line_end", p->line_end);
    hxi_json_kv_double(w, "relevance", p->relevance);
    hxi_json_kv_uint(w, "tokens", p->tokens);
    hxi_json_kv_uint(w, "bytes", p->bytes);
    hxi_json_write_key(w, "chunk_ids");
    hxi_json_write_arr_begin(w);
    for (size_t c = 0; c < p->n_ranked; c++)
        hxi_json_write_uint(w, p->chunk_ids[c]);
    hxi_json_write_arr_end(w);
    hxi_json_write_key(w, "related_chunk_ids");
    hxi_json_write_arr_begin(w);
    for (size_t c = p->n_ranked; c < p->n_chunks; c++)
        hxi_json_write_uint(w, p->chunk_ids[c]);
    hxi_json_write_arr_end(w);
    hxi_json_kv_cstr(w, "version", p->first->doc_sha256);
    hxi_json_write_key(w, "metadata");
    hxi_present_meta_merged(w, p->first->chunk_meta, p->first->n_chunk_meta, p->first->meta, p->first->n_meta);
    hxi_present_signer(w, p->first->signer);
    hxi_json_kv_uint(w, "generation", p->generation);
    if (p->first->tier)
        hxi_json_kv_cstr(w, "tier", p->first->tier);
    if (p->relation) {
        hxi_json_kv_cstr(w, "relationship", p->relation);
        hxi_json_kv_uint(w, "related_to", p->related_to);
    }
    hxi_json_write_obj_end(w);
}

/* The session assembles the context (hx_session_context); this presents it. */
static int context_filtered(mcp_session *s, const hxi_json_val *args, const hx_filter_set *fs, hxi_json_writer *w,
                            hx_error *err)
{
    mcp_args a = {mcp_get_context_args, args};
    const char *query = mcp_arg_str(&a, "query");
    hx_context_query q;
    hx_context_query_init(&q, query);
    q.max_tokens = (uint32_t)mcp_arg_int(&a, "max_tokens");
    q.max_passages = (uint32_t)mcp_arg_int(&a, "max_passages");
    q.neighbours = q.relationships = mcp_arg_bool(&a, "include_relationships");
    q.search.opts.filters = fs->v;
    q.search.opts.n_filters = fs->n;
    q.search.opts.min_score = (float)mcp_arg_num(&a, "min_score");
    hx_mode_parse(mcp_arg_str(&a, "mode"), &q.search.opts.mode);
    hx_search_source source = HX_SEARCH_ALL;
    hx_search_source_parse(mcp_arg_str(&a, "source"), &source);   /* the table checked the name */
    q.search.source = (hx_search_source)source;
    if (mcp_read_context(&a, &q.search.at, err))
        return MCP_CODE(*err);
    if (source == HX_SEARCH_REGISTRY)   /* the search tools answer it */
        return hx_error_set(err, HX_EINVAL, -1, "source registry is searched by the search tools only");
    hx_context c;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_context(s->ses, &q, &c, err)))
        return mcp_session_error(s, rc, &q.search.at, err);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "query", query);
    hxi_json_write_key(w, "context");
    hxi_json_write_str(w, c.text ? c.text : "", c.len);
    hxi_json_write_key(w, "sources");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < c.n_sources; i++)
        write_source(w, &c.sources[i]);
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "total_tokens", c.tokens);
    hxi_json_kv_uint(w, "max_tokens", c.max_tokens);
    hxi_json_kv_uint(w, "dropped", c.dropped);
    hxi_json_kv_bool(w, "truncated", c.dropped > 0);
    write_tiers(w, s, &c.answer);
    hxi_json_write_obj_end(w);
    mcp_note_query(s, query);
    hx_context_free(&c);
    return 0;
}

/* === find_similar === */

const mcp_arg mcp_find_similar_args[] = {
    ARG_DOC_ID("Find passages like this document (its mean embedding); the document itself is left out."),
    ARG_DOC_PATH("Same as doc_id, by root-relative path."),
    {"chunk_id", MCP_INTEGER, RANGE(0, UINT32_MAX), .description = "Find passages like this chunk; the chunk itself is left out."},
    {"text", MCP_STRING, AT_LEAST(1), .description = "Find passages like this text."},
    ARG_TOP_K,
    ARG_LIMIT,
    ARG_GROUP_BY,
    ARG_RANK_WINDOW,
    ARG_FILTERS,
    ARG_MIN_SCORE_NO_FLOOR,
    ARG_THRESHOLD,
    MCP_ARG_READ_CONTEXT,
    {.name = NULL},
};

static const mcp_field similar_fields[] = {
    {"source", .type = MCP_JSON_STRING},
    {"group_by", .type = MCP_JSON_STRING},
    {"results", MCP_JSON_ARRAY, .items = &result_item},
    {"total_results", .type = MCP_JSON_INTEGER},
    {"search_time_ms", .type = MCP_JSON_NUMBER},
    MCP_OUT_READ_CONTEXT,
    {.name = NULL},
};
const mcp_field mcp_find_similar_out = {
    NULL, MCP_JSON_OBJECT, .props = similar_fields, MCP_REQUIRED("source", "results", "total_results")};

static int similar_filtered(mcp_session *s, const hxi_json_val *args, const hx_filter_set *fs, hxi_json_writer *w,
                            hx_error *err)
{
    mcp_args a = {mcp_find_similar_args, args};
    hx_similar_query q = {.text = mcp_arg_str(&a, "text"), .chunk_id = -1, .doc_id = -1};
    search_opts(&a, &q.opts, fs);
    bool by_chunk = mcp_arg_value(&a, "chunk_id") != NULL;
    bool by_doc = mcp_arg_value(&a, "doc_id") || mcp_arg_value(&a, "path");
    if ((!!q.text + by_chunk + by_doc) != 1)
        return hx_error_set(err, HX_EINVAL, -1, "give exactly one of 'text', 'chunk_id', or a document ('doc_id' or "
                                                "'path')");
    if (mcp_read_context(&a, &q.at, err))
        return MCP_CODE(*err);
    char source[300];
    if (q.text) {
        snprintf(source, sizeof source, "text");
    } else if (by_chunk) {
        q.chunk_id = mcp_arg_int(&a, "chunk_id");
        snprintf(source, sizeof source, "chunk %lld", (long long)q.chunk_id);
    } else {   /* the document named first, for its path in `source` and the tools' words when it is not there */
        hx_session_doc d;
        int rc = mcp_session_doc(s, &a, &q.at, false, &d, err);
        if (rc)
            return rc;
        q.doc_id = d.info.id;
        snprintf(source, sizeof source, "document %.250s", d.info.path);
        hx_session_doc_free(&d);
    }
    hx_session_answer ans;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_similar(s->ses, &q, &ans, err)))
        return rc == HX_ENOTFOUND && by_chunk ? (err->code = HX_EINVAL)   /* the tool's code for an unknown chunk */
                                              : mcp_session_error(s, rc, &q.at, err);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "source", source);
    write_results(w, &ans.results, &ans);
    hxi_present_read_context(w, &ans.taken);
    hxi_json_write_obj_end(w);
    hx_session_answer_free(&ans);
    return 0;
}

int mcp_tool_search(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    return mcp_with_filters(search_filtered, mcp_search_args, s, args, w, err);
}

int mcp_tool_get_context(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    return mcp_with_filters(context_filtered, mcp_get_context_args, s, args, w, err);
}

int mcp_tool_find_similar(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    return mcp_with_filters(similar_filtered, mcp_find_similar_args, s, args, w, err);
}

/* === The seeds' tools ===
 * Other names for the tools above, as the seeds' agents call them: each table holds the seed's
 * arguments and says which argument of its family tool each fills (`as`) and what it always gives
 * (`fixed`); the family tool checks the result again and answers with its own output. read_context,
 * which every query tool takes, is one more row in each table, passed on under its own name. */

const mcp_arg mcp_semantic_search_args[] = {
    ARG_QUERY("Natural language query."),
    {"limit", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "5", .as = "top_k", .description = "Number of results (chunks)."},
    {"doc_filter", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = mcp_seed_filters, .as = "filters",
     .description = SEED_FILTERS_DOC},
    /* the seed's default is 0.5, but on hyrax's calibrated 0..1 relevance that keeps only close
     * matches (a chunk at cosine 0.71 scores 0.31): the default is hyrax's floor */
    {"threshold", MCP_NUMBER, RANGE(0, 1), .def = HX_STRINGIFY(HX_MIN_RELEVANCE), .as = "min_score",
     .description = "Relevance threshold 0..1: results scoring below are left out (search's min_score, semantic "
                    "mode); default hyrax's floor, not that server's 0.5."},
    {"mode", .fixed = "\"semantic\""},
    {"group_by", .fixed = "\"chunk\""},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

const mcp_arg mcp_full_text_search_args[] = {
    ARG_QUERY("Full-text query: words, \"exact phrase\", -exclude, +require, prefix*."),
    {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = mcp_seed_filters, .description = SEED_FILTERS_DOC},
    {"limit", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "10", .as = "top_k", .description = "Number of documents."},
    {"mode", .fixed = "\"keyword\""},
    {"group_by", .fixed = "\"document\""},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

const mcp_arg mcp_hybrid_search_args[] = {
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

/* seed 001's filters name an architecture model's keys; here they are metadata keys like any other */
static const mcp_arg seed001_filters[] = {
    {"layer", MCP_STRING, .description = "strategy, business, application or technology (ArchiMate layers)"},
    {"element_type", MCP_STRING, .description = "metadata key element_type"},
    {"capability", MCP_STRING, .description = "metadata key capability"},
    {.name = NULL},
};

const mcp_arg mcp_semanticSearch_args[] = {
    ARG_QUERY("Natural language query."),
    {"top_k", MCP_INTEGER, RANGE(1, MAX_TOP_K), .def = "10", .description = "Number of results."},
    {"min_score", MCP_NUMBER, RANGE(0, 1), .def = HX_STRINGIFY(HX_MIN_RELEVANCE),
     .description = "Minimum relevance 0..1 (search's min_score); default hyrax's floor, not that server's 0.5."},
    {"filters", MCP_FILTERS, AT_MOST(MAX_FILTERS), .props = seed001_filters, .description = FILTERS_DOC},
    /* read_context: issue 11 item 1 adds its shared row to every query table, this one included */
    {"mode", .fixed = "\"semantic\""},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

const mcp_arg mcp_getContext_args[] = {
    ARG_QUERY(NULL),
    ARG_MAX_TOKENS,
    {"include_relationships", MCP_BOOLEAN, .def = "true",
     .description = "Also the neighbouring chunks of the same section and the items the passages' relationships name."},
    MCP_ARG_READ_CONTEXT,
    MCP_ARG_SOURCE,
    {.name = NULL},
};

