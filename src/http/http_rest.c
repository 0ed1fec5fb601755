/* http_rest.c: the REST routes of `hyrax serve --http` (GET and POST /search, GET /health,
 * GET /stats, GET /metrics), answered through the request thread's session. Spec: `hyrax help http`. */
#include "http_internal.h"
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === REST === */

/* The REST routes answer through a session of their request thread (hyrax.h "Session"), opened
 * once the model has loaded, on the model the MCP server loaded; it never writes. */
static int rest_session(http_server *h, mcp_session *v, hx_session **ses, hx_error *err)
{
    if (*ses)
        return 0;
    int rc = mcp_session_model(v, err);
    if (rc)
        return rc;
    const hxi_mcp_config *cfg = h->cfg;
    hx_session_config sc = {.db = cfg->db, .root = cfg->root, .user_db = cfg->user_db, .no_user_tier = !cfg->user_db,
                            .registry = cfg->registry, .registry_timeout_ms = cfg->registry_timeout_ms,
                            .identity = cfg->identity, .model = v->model, .read_only = true};
    return hx_session_open(ses, &sc, err);
}

/* /search's arguments: POST's JSON body, or GET's query string (q, k, mode, group_by, min_score,
 * max_bytes, cursor), both checked by this table and the answer budget's (max_bytes, cursor). */
static const mcp_arg rest_search_args[] = {
    {"query", MCP_STRING, .required = true, AT_LEAST(1), .description = "Search query text."},
    {"q", .alias_of = "query"},
    {"mode", MCP_STRING, .choices = hx_mode_names, .def = "hybrid",
     .description = "hybrid (default), vector (also semantic) or keyword."},
    {"search_type", .alias_of = "mode"},
    {"top_k", MCP_INTEGER, RANGE(1, 50), .def = "5", .description = "Results: documents, or chunks with group_by chunk."},
    {"k", .alias_of = "top_k"},
    {"group_by", MCP_STRING, .choices = hx_group_names, .def = "document"},
    {"min_score", MCP_NUMBER, RANGE(0, 1), .description = "Minimum relevance 0..1; default hyrax's floor."},
    {"filters", MCP_FILTERS, AT_MOST(32), .description = "Metadata filters, e.g. {\"sig_name\": \"sig-auth\"}."},
    {.name = NULL},
};

/* The value of a hex digit, or -1. */
static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) of a query string percent-decoded ('+' is a space) into out (room for n + 1); its length,
 * or -1 for a bad escape. */
static long url_decode(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int hi = i + 2 < n ? hex_value(s[i + 1]) : -1, lo = i + 2 < n ? hex_value(s[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return -1;
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = s[i] == '+' ? ' ' : s[i];
        }
    }
    out[o] = 0;
    return (long)o;
}

/* GET /search's query string as the JSON object of POST's body into w: each parameter a string,
 * k, top_k and min_score numbers when they read as one. 0, or -1 with msg set. */
static int query_args(const hxi_http_request *req, hxi_json_writer *w, char *msg, size_t cap)
{
    const char *q = memchr(req->target, '?', req->target_len);
    const char *end = req->target + req->target_len;
    char *buf = hx_malloc(req->target_len + 1);
    if (!buf)
        return snprintf(msg, cap, "out of memory"), -1;
    hxi_json_write_obj_begin(w);
    for (const char *p = q ? q + 1 : end; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end, *eq = memchr(p, '=', (size_t)(stop - p));
        const char *vs = eq ? eq + 1 : stop;
        long kl = url_decode(p, (size_t)((eq ? eq : stop) - p), buf);
        bool numeric = kl > 0 && (!strcmp(buf, "k") || !strcmp(buf, "top_k") || !strcmp(buf, "min_score") ||
                                  !strcmp(buf, "max_bytes"));
        if (kl > 0)
            hxi_json_write_keyn(w, buf, (size_t)kl);
        long vl = kl > 0 ? url_decode(vs, (size_t)(stop - vs), buf) : kl;
        if (vl < 0) {
            free(buf);
            return snprintf(msg, cap, "the query string has a bad %%-escape"), -1;
        }
        if (kl > 0 && numeric && vl > 0 && strspn(buf, "0123456789.eE-") == (size_t)vl)
            hxi_json_write_number_text(w, buf, (size_t)vl);
        else if (kl > 0)
            hxi_json_write_str(w, buf, (size_t)vl);
        p = stop + 1;
    }
    hxi_json_write_obj_end(w);
    free(buf);
    return 0;
}

/* POST /search (a JSON body) and GET /search?q=&k=&mode=: the answer is `hyrax search --json`'s
 * object (present.h hxi_present_search_tiers), the result objects MCP's search gives, within
 * max_bytes as MCP's answers are (mcp_budget_fit: results left out from the end, omitted and
 * next_cursor; a cursor of another query is a 400). */
void route_search(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r)
{
    hxi_json_doc *doc = NULL, *own = NULL;
    hx_filter_set fs = {0};
    mcp_budget b = {.max_bytes = INT64_MAX};
    char msg[1024];
    hx_error err = {0};
    double t0 = mono_s();
    hxi_json_writer qw;
    hxi_json_writer_init(&qw);
    const char *body = req->body ? req->body : "";
    size_t body_len = req->body_len;
    if (!strcmp(req->method, "GET")) {
        if (query_args(req, &qw, msg, sizeof msg) || hxi_json_writer_finish(&qw, &err)) {
            reply_error(r, 400, err.message[0] ? err.message : msg);
            hxi_json_writer_free(&qw);
            return;
        }
        body = qw.buf;
        body_len = qw.len;
    }
    if (hxi_json_parse(&doc, body, body_len, NULL, &err)) {
        snprintf(msg, sizeof msg, "the body must be a JSON object: %s", err.message);
        reply_error(r, 400, msg);
        hxi_json_doc_free(doc);
        hxi_json_writer_free(&qw);
        return;
    }
    mcp_args a = {rest_search_args, hxi_json_doc_root(doc)};
    bool object = hxi_json_type_of(a.args) == HX_JSON_OBJECT;
    int budget_rc = object ? mcp_budget_take(mcp_budget_cursor_args, a.args, &own, &b, &err) : 0;
    if (own)
        a.args = hxi_json_doc_root(own);   /* the arguments less max_bytes and cursor */
    if (budget_rc || mcp_args_validate(rest_search_args, a.args, &err)) {
        reply_error(r, 400, err.message);
    } else if (rest_session(h, v, ses, &err)) {
        reply_error(r, 503, err.message);
    } else if (mcp_arg_filters(&a, "filters", &fs, &err)) {
        reply_error(r, 400, err.message);
    } else {
        const char *query = mcp_arg_str(&a, "query");
        double min_score = mcp_arg_num(&a, "min_score");
        hx_session_query q;
        hx_session_query_init(&q, query);
        hx_mode_parse(mcp_arg_str(&a, "mode"), &q.opts.mode);   /* the table checked the names */
        hx_group_parse(mcp_arg_str(&a, "group_by"), &q.opts.group);
        q.opts.k = (uint32_t)mcp_arg_int(&a, "top_k");
        q.opts.snippets = 1;
        q.opts.filters = fs.v;
        q.opts.n_filters = fs.n;
        if (!isnan(min_score))
            q.opts.min_score = (float)min_score;
        hx_session_answer ans;
        int rc = hx_session_search(*ses, &q, &ans, &err);
        if (rc) {
            reply_error(r, rc == HX_ENOTFOUND ? 503 : 400, err.message);
        } else {
            hxi_json_writer w;
            hxi_tier_status st[3];
            size_t ns = hxi_present_answer_tiers(&ans, st);
            hxi_json_writer_init(&w);
            hxi_present_search_tiers(&w, query, q.opts.mode, &ans.results, &ans.taken, st, ns);
            static const mcp_page page = {"results", NULL, false, true};
            if (hxi_json_writer_finish(&w, &err) || mcp_budget_fit(&page, &w, &b, &err))
                reply_error(r, 400, err.message);
            else
                reply_json(r, 200, &w);
            hxi_json_writer_free(&w);
            hx_stats_note_query(h->mcp.stats, query);
            hx_session_answer_free(&ans);
        }
        /* counted as the search tool over HTTP, as it always was (metrics.h, stats.h) */
        double s = mono_s() - t0;
        hxi_metrics_observe(h->metrics, HX_METRIC_TOOL, "search", "http", NULL, s);
        hx_stats_note_latency(h->mcp.stats, "search", "http", s * 1e3);
    }
    hx_filter_set_free(&fs);
    hxi_json_doc_free(doc);
    hxi_json_doc_free(own);
    hxi_json_writer_free(&qw);
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
void route_health(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st = {0};
    hx_error err = {0};
    bool ready = mcp_model_ready(v), have = ready && index_stats(h, v, ses, &st, &err);
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_kv_cstr(&w, "status", !ready ? "starting" : have ? "healthy" : "no_index");
    hxi_json_kv_uint(&w, "indexed_documents", st.documents);
    hxi_json_kv_uint(&w, "indexed_chunks", st.live_chunks);
    hxi_json_kv_bool(&w, "model_loaded", ready);
    hxi_json_write_key(&w, "activity");   /* hx_stats: latency, hot queries, updates and lag that last */
    hxi_json_write_obj_begin(&w);
    hx_activity act;
    if (!hx_stats_activity(h->mcp.stats, h->mcp.cfg->db, h->mcp.cfg->identity, &act, NULL))
        hxi_present_activity(&w, &act);
    hx_activity_free(&act);
    hxi_json_write_obj_end(&w);
    hxi_json_write_obj_end(&w);
    reply_json(r, 200, &w);
    hxi_json_writer_free(&w);
}

/* GET /stats: seed 002's StatsResponse (total_keps is the document count). 503 until the index
 * can be read. */
void route_stats(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r)
{
    (void)req;
    hx_index_stats st;
    hx_error err = {.message = "the index cannot be read"};
    if (mcp_session_model(v, &err) || !index_stats(h, v, ses, &st, &err)) {
        reply_error(r, 503, err.message);
        return;
    }
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_kv_uint(&w, "total_keps", st.documents);
    hxi_json_kv_uint(&w, "total_documents", st.documents);
    hxi_json_kv_uint(&w, "total_chunks", st.live_chunks);
    hxi_json_kv_uint(&w, "total_vectors", st.live_chunks);
    hxi_json_kv_cstr(&w, "embedding_model", st.model);
    hxi_json_kv_int(&w, "embedding_dimension", st.dim);
    hxi_json_write_key(&w, "search_modes");
    hxi_json_write_json(&w, "[\"vector\",\"keyword\",\"hybrid\"]", 29);
    hxi_json_kv_cstr(&w, "fusion_algorithm", "Reciprocal Rank Fusion (RRF)");
    hxi_json_kv_uint(&w, "generation", st.generation);
    hxi_json_kv_uint(&w, "file_bytes", st.file_bytes);
    hxi_json_write_obj_end(&w);
    reply_json(r, 200, &w);
    hxi_json_writer_free(&w);
}

/* GET /metrics: the histograms, then gauges of the index, the model and the connections. */
void route_metrics(http_server *h, mcp_session *v, hx_session **ses, const hxi_http_request *req, reply *r)
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
    int rc = hxi_metrics_write(h->metrics, &r->body, &r->len, &r->cap);
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
            rc = hxi_metrics_gauge(&r->body, &r->len, &r->cap, g[i].name, g[i].help, g[i].value);
    char *lasting = NULL;   /* what outlives this process: hx_stats, kept beside the index */
    size_t lasting_len = 0;
    if (!rc && !(rc = hx_stats_prometheus_text(h->mcp.stats, h->mcp.cfg->db, h->mcp.cfg->identity, &lasting,
                                               &lasting_len, NULL)))
        rc = hxi_metrics_append(&r->body, &r->len, &r->cap, lasting, lasting_len);
    free(lasting);
    if (rc) {
        reply_error(r, 500, "out of memory writing the metrics");
        return;
    }
    r->status = 200;
    r->type = "text/plain; version=0.0.4; charset=utf-8";
}

