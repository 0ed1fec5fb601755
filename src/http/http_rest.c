/* http_rest.c: seed 002's REST routes of `hyrax serve --http` (POST /search, GET /health, GET /stats,
 * GET /metrics), answered through the request thread's session. Spec: README "HTTP server". */
#include "http_internal.h"
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === REST (seed 002) === */

static const char *const rest_search_types[] = {"vector", "semantic", "keyword", "hybrid", NULL};

/* The REST routes answer through a session of their request thread (hyrax.h "Session"), opened
 * once the model has loaded, on the model the MCP server loaded; it never writes. */
static int rest_session(http_server *h, mcp_session *v, hx_session **ses, hx_error *err)
{
    if (*ses)
        return 0;
    int rc = mcp_session_model(v, err);
    if (rc)
        return rc;
    const hx_mcp_config *cfg = h->cfg;
    hx_session_config sc = {.db = cfg->db, .root = cfg->root, .user_db = cfg->user_db, .no_user_tier = !cfg->user_db,
                            .registry = cfg->registry, .registry_timeout_ms = cfg->registry_timeout_ms,
                            .identity = cfg->identity, .model = v->model, .read_only = true};
    return hx_session_open(ses, &sc, err);
}

/* POST /search: seed 002's SearchRequest. The table checks it as the search tool's family would
 * (search_type is the tool's mode, results are chunks). */
static const mcp_arg rest_search_args[] = {
    {"query", MCP_STRING, .required = true, AT_LEAST(1), .description = "Search query text."},
    {"search_type", MCP_STRING, .choices = rest_search_types, .def = "hybrid", .as = "mode",
     .description = "vector (also semantic), keyword or hybrid."},
    {"top_k", MCP_INTEGER, RANGE(1, 50), .def = "5", .description = "Number of results (chunks)."},
    {"min_score", MCP_NUMBER, RANGE(0, 1),
     .description = "Minimum relevance 0..1; default hyrax's floor (search's min_score)."},
    {"filters", MCP_FILTERS, AT_MOST(32), .description = "Metadata filters, e.g. {\"sig_name\": \"sig-auth\"}."},
    {"group_by", .fixed = "\"chunk\""},
    {.name = NULL},
};

/* One search result in seed 002's SearchResultModel; generation: the commit that answered it. */
static void write_rest_result(hx_json_writer *w, const hx_result *r, uint64_t generation)
{
    char id[32];
    snprintf(id, sizeof id, "%u", r->chunk_id);
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "chunk_id");
    hx_json_write_cstr(w, id);
    hx_json_write_key(w, "kep_id");   /* seed 002's name for the document: its path here */
    hx_json_write_cstr(w, r->path);
    hx_json_write_key(w, "doc_id");
    hx_json_write_uint(w, r->doc_id);
    hx_json_write_key(w, "text");
    hx_json_write_str(w, r->text, r->text_len);
    hx_present_score(w, "score", r->score);
    hx_json_write_key(w, "metadata");
    hx_present_meta(w, r->meta, r->n_meta);
    hx_json_write_key(w, "chunk_index");
    hx_json_write_uint(w, r->chunk_index);
    hx_present_citation(w, r, generation);
    hx_json_write_obj_end(w);
}

/* The answer of a search that ran: {results, query, search_type, total_results, search_time_ms}. */
static void write_rest_search(hx_json_writer *w, const char *query, const char *search_type,
                              const hx_session_answer *a)
{
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "results");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < a->results.n; i++)
        write_rest_result(w, &a->results.v[i], hx_session_answer_generation(a, &a->results.v[i]));
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "query");
    hx_json_write_cstr(w, query);
    hx_json_write_key(w, "search_type");
    hx_json_write_cstr(w, search_type);
    hx_json_write_key(w, "total_results");
    hx_json_write_uint(w, a->results.n);
    hx_json_write_key(w, "search_time_ms");
    hx_json_write_double(w, a->results.search_ms);
    hx_json_write_obj_end(w);
}

void route_search(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    hx_json_doc *doc = NULL;
    hx_filter_set fs = {0};
    char msg[1024];
    hx_error err = {0};
    double t0 = mono_s();
    if (hx_json_parse(&doc, req->body ? req->body : "", req->body_len, NULL, &err)) {
        snprintf(msg, sizeof msg, "the body must be a JSON object: %s", err.message);
        reply_error(r, 400, msg);
        hx_json_doc_free(doc);
        return;
    }
    mcp_args a = {rest_search_args, hx_json_doc_root(doc)};
    if (mcp_args_validate(rest_search_args, a.args, &err)) {
        reply_error(r, 400, err.message);
    } else if (rest_session(h, v, ses, &err)) {
        reply_error(r, 503, err.message);
    } else if (mcp_arg_filters(&a, "filters", &fs, &err)) {
        reply_error(r, 400, err.message);
    } else {
        const char *query = mcp_arg_str(&a, "query"), *search_type = mcp_arg_str(&a, "search_type");
        double min_score = mcp_arg_num(&a, "min_score");
        hx_session_query q;
        hx_session_query_init(&q, query);
        hx_mode_parse(search_type, &q.opts.mode);   /* the table checked the name */
        q.opts.k = (uint32_t)mcp_arg_int(&a, "top_k");
        q.opts.group = HX_GROUP_CHUNK;
        q.opts.snippets = 0;   /* seed 002's results carry the chunk's text, no snippet */
        q.opts.filters = fs.v;
        q.opts.n_filters = fs.n;
        if (!isnan(min_score))
            q.opts.min_score = (float)min_score;
        hx_session_answer ans;
        int rc = hx_session_search(*ses, &q, &ans, &err);
        if (rc) {
            reply_error(r, rc == HX_ENOTFOUND ? 503 : 400, err.message);
        } else {
            hx_json_writer w;
            hx_json_writer_init(&w);
            write_rest_search(&w, query, search_type, &ans);
            reply_json(r, 200, &w);
            hx_json_writer_free(&w);
            hx_stats_note_query(h->mcp.stats, query);
            hx_session_answer_free(&ans);
        }
        /* counted as the search tool over HTTP, as it always was (metrics.h, stats.h) */
        double s = mono_s() - t0;
        hx_metrics_observe(h->metrics, HX_METRIC_TOOL, "search", "http", NULL, s);
        hx_stats_note_latency(h->mcp.stats, "search", "http", s * 1e3);
    }
    hx_filter_set_free(&fs);
    hx_json_doc_free(doc);
}

/* The project index's counts through the thread's session, when the model has loaded (never waits). */
static bool index_stats(http_server *h, mcp_session *v, hx_session **ses, hx_index_stats *st, hx_error *err)
{
    hx_session_info info;
    if (!mcp_model_ready(v) || rest_session(h, v, ses, err) || hx_session_status(*ses, &info, NULL))
        return false;
    if (!info.project.present)
        return hx_error_set(err, HX_ENOTFOUND, -1, "%s", info.project.reason), false;
    *st = info.project.stats;
    return true;
}

/* GET /health: answers at once, also while the model loads (status "starting"). */
void route_health(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st = {0};
    hx_error err = {0};
    bool ready = mcp_model_ready(v), have = ready && index_stats(h, v, ses, &st, &err);
    hx_json_writer w;
    hx_json_writer_init(&w);
    hx_json_write_obj_begin(&w);
    hx_json_write_key(&w, "status");
    hx_json_write_cstr(&w, !ready ? "starting" : have ? "healthy" : "no_index");
    hx_json_write_key(&w, "indexed_documents");
    hx_json_write_uint(&w, st.documents);
    hx_json_write_key(&w, "indexed_chunks");
    hx_json_write_uint(&w, st.live_chunks);
    hx_json_write_key(&w, "model_loaded");
    hx_json_write_bool(&w, ready);
    hx_json_write_key(&w, "activity");   /* hx_stats: latency, hot queries, updates and lag that last */
    hx_json_write_obj_begin(&w);
    hx_activity act;
    if (!hx_stats_activity(h->mcp.stats, h->mcp.cfg->db, h->mcp.cfg->identity, &act, NULL))
        hx_present_activity(&w, &act);
    hx_activity_free(&act);
    hx_json_write_obj_end(&w);
    hx_json_write_obj_end(&w);
    reply_json(r, 200, &w);
    hx_json_writer_free(&w);
}

/* GET /stats: seed 002's StatsResponse (total_keps is the document count). 503 until the index
 * can be read. */
void route_stats(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st;
    hx_error err = {.message = "the index cannot be read"};
    if (mcp_session_model(v, &err) || !index_stats(h, v, ses, &st, &err)) {
        reply_error(r, 503, err.message);
        return;
    }
    hx_json_writer w;
    hx_json_writer_init(&w);
    hx_json_write_obj_begin(&w);
    hx_json_write_key(&w, "total_keps");
    hx_json_write_uint(&w, st.documents);
    hx_json_write_key(&w, "total_documents");
    hx_json_write_uint(&w, st.documents);
    hx_json_write_key(&w, "total_chunks");
    hx_json_write_uint(&w, st.live_chunks);
    hx_json_write_key(&w, "total_vectors");
    hx_json_write_uint(&w, st.live_chunks);
    hx_json_write_key(&w, "embedding_model");
    hx_json_write_cstr(&w, st.model);
    hx_json_write_key(&w, "embedding_dimension");
    hx_json_write_int(&w, st.dim);
    hx_json_write_key(&w, "search_modes");
    hx_json_write_json(&w, "[\"vector\",\"keyword\",\"hybrid\"]", 29);
    hx_json_write_key(&w, "fusion_algorithm");
    hx_json_write_cstr(&w, "Reciprocal Rank Fusion (RRF)");
    hx_json_write_key(&w, "generation");
    hx_json_write_uint(&w, st.generation);
    hx_json_write_key(&w, "file_bytes");
    hx_json_write_uint(&w, st.file_bytes);
    hx_json_write_obj_end(&w);
    reply_json(r, 200, &w);
    hx_json_writer_free(&w);
}

/* GET /metrics: the histograms, then gauges of the index, the model and the connections. */
void route_metrics(http_server *h, mcp_session *v, hx_session **ses, const hx_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st = {0};
    hx_error err = {0};
    bool ready = mcp_model_ready(v), have = ready && index_stats(h, v, ses, &st, &err);
    pthread_mutex_lock(&h->lock);
    size_t open = h->n_conns;
    pthread_mutex_unlock(&h->lock);
    pthread_mutex_lock(&h->mcp.lock);
    double jobs = (double)h->mcp.queued_jobs + (h->mcp.running != NULL);
    pthread_mutex_unlock(&h->mcp.lock);
    int rc = hx_metrics_write(h->metrics, &r->body, &r->len, &r->cap);
    struct {
        const char *name, *help;
        double value;
    } g[] = {
        {"hyrax_model_loaded", "1 once the embedding model has loaded", ready},
        {"hyrax_index_documents", "Documents in the index head", (double)st.documents},
        {"hyrax_index_chunks", "Live chunks in the index head", (double)st.live_chunks},
        {"hyrax_index_file_bytes", "Size of the index file", (double)st.file_bytes},
        {"hyrax_index_generation", "Commit generation of the index head", (double)st.generation},
        {"hyrax_http_connections", "Open HTTP connections", (double)open},
        {"hyrax_write_jobs_pending", "Write jobs queued or running", jobs},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0] && !rc; i++)
        if (have || i == 0 || i >= 5)
            rc = hx_metrics_gauge(&r->body, &r->len, &r->cap, g[i].name, g[i].help, g[i].value);
    char *lasting = NULL;   /* what outlives this process: hx_stats, kept beside the index */
    size_t lasting_len = 0;
    if (!rc && !(rc = hx_stats_prometheus_text(h->mcp.stats, h->mcp.cfg->db, h->mcp.cfg->identity, &lasting,
                                               &lasting_len, NULL)))
        rc = hx_metrics_append(&r->body, &r->len, &r->cap, lasting, lasting_len);
    free(lasting);
    if (rc) {
        reply_error(r, 500, "out of memory writing the metrics");
        return;
    }
    r->status = 200;
    r->type = "text/plain; version=0.0.4; charset=utf-8";
}

