/* present.c: JSON renderings of results, search answers and statistics (spec in present.h). Float
 * scores are written as doubles; a side that missed a chunk is written as null. */
#include "present.h"

#include <math.h>
#include <string.h>

const char *hxi_mode_name(hx_search_mode m)
{
    return m == HX_MODE_VECTOR ? "vector" : m == HX_MODE_KEYWORD ? "keyword" : "hybrid";
}

static bool has_key(const hx_kv *meta, size_t n, const char *key)
{
    for (size_t j = 0; j < n; j++)
        if (!strcmp(meta[j].key, key))
            return true;
    return false;
}

/* The members of meta[0..n) whose keys `over` does not hold, a repeated key as an array. */
static void write_pairs(hxi_json_writer *w, const hx_kv *meta, size_t n, const hx_kv *over, size_t n_over)
{
    for (size_t i = 0; i < n; i++) {
        if (has_key(meta, i, meta[i].key) || has_key(over, n_over, meta[i].key))
            continue;   /* written with its first value, or shadowed */
        size_t count = 0;
        for (size_t j = i; j < n; j++)
            count += !strcmp(meta[j].key, meta[i].key);
        hxi_json_write_key(w, meta[i].key);
        if (count == 1) {
            hxi_json_write_cstr(w, meta[i].value);
            continue;
        }
        hxi_json_write_arr_begin(w);
        for (size_t j = i; j < n; j++)
            if (!strcmp(meta[j].key, meta[i].key))
                hxi_json_write_cstr(w, meta[j].value);
        hxi_json_write_arr_end(w);
    }
}

void hxi_present_meta(hxi_json_writer *w, const hx_kv *meta, size_t n)
{
    hxi_present_meta_merged(w, NULL, 0, meta, n);
}

void hxi_present_meta_merged(hxi_json_writer *w, const hx_kv *chunk, size_t n_chunk, const hx_kv *doc, size_t n_doc)
{
    hxi_json_write_obj_begin(w);
    write_pairs(w, chunk, n_chunk, NULL, 0);
    write_pairs(w, doc, n_doc, chunk, n_chunk);
    hxi_json_write_obj_end(w);
}

void hxi_present_score(hxi_json_writer *w, const char *key, float s)
{
    hxi_json_write_key(w, key);
    if (isnan(s))
        hxi_json_write_null(w);
    else
        hxi_json_write_double(w, (double)s);
}

void hxi_present_rank(hxi_json_writer *w, const hx_result *r)
{
    hxi_json_kv_uint(w, "rank", r->rank);
    hxi_present_score(w, "score", r->score);
    hxi_present_score(w, "relevance", r->relevance);
    hxi_present_score(w, "similarity", r->similarity);
    hxi_present_score(w, "vector_score", r->vector_score);
    hxi_present_score(w, "keyword_score", r->keyword_score);
    hxi_present_score(w, "fused_score", r->fused);
    if (r->recency != 1)
        hxi_json_kv_double(w, "recency", (double)r->recency);
}

void hxi_present_reason(hxi_json_writer *w, const char *path, const char *reason)
{
    hxi_json_kv_cstr(w, "path", path);
    hxi_json_kv_cstr(w, "reason", reason);
}

void hxi_present_rejected(hxi_json_writer *w, const hx_rejected *v, size_t n)
{
    hxi_json_write_key(w, "rejected");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        hxi_json_write_obj_begin(w);
        hxi_present_reason(w, v[i].path, v[i].reason);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
}

void hxi_present_audit(hxi_json_writer *w, const hx_audit_list *l)
{
    char when[40];
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "entries");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        const hx_audit_entry *e = &l->entries[i];
        hx_time_format(e->time_ns, when, sizeof when);
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "time", when);
        hxi_json_kv_cstr(w, "path", e->path);
        hxi_json_kv_cstr(w, "sha256", e->sha256);
        hxi_json_kv_cstr(w, "rule", e->rule);
        hxi_json_kv_cstr(w, "reason", e->reason);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "count", l->n);
    hxi_json_write_obj_end(w);
}

void hxi_present_signer(hxi_json_writer *w, const char *signer)
{
    hxi_json_write_key(w, "signer");
    if (signer && *signer)
        hxi_json_write_cstr(w, signer);
    else
        hxi_json_write_null(w);
}

void hxi_present_citation(hxi_json_writer *w, const hx_result *r, uint64_t generation)
{
    hxi_json_write_key(w, "citation");
    hxi_json_write_obj_begin(w);
    hxi_json_kv_uint(w, "doc_id", r->doc_id);
    hxi_json_kv_cstr(w, "path", r->path);
    hxi_json_kv_uint(w, "chunk_id", r->chunk_id);
    hxi_json_kv_uint(w, "chunk_index", r->chunk_index);
    hxi_json_kv_uint(w, "line_start", r->line_start);
    hxi_json_kv_uint(w, "line_end", r->line_end);
    hxi_json_kv_cstr(w, "unit", r->unit ? r->unit : "line");
    hxi_json_kv_cstr(w, "version", r->doc_sha256);
    hxi_json_kv_uint(w, "generation", generation);
    hxi_present_signer(w, r->signer);
    if (r->tier)
        hxi_json_kv_cstr(w, "tier", r->tier);
    static const char *const item_keys[] = {"item_id", "version_id"};   /* the unit's item and its version */
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < r->n_chunk_meta; i++)
            if (!strcmp(r->chunk_meta[i].key, item_keys[k])) {
                hxi_json_kv_cstr(w, item_keys[k], r->chunk_meta[i].value);
                break;
            }
    hxi_json_write_obj_end(w);
}

void hxi_present_result(hxi_json_writer *w, const hx_result *r, hx_group group, uint64_t generation)
{
    hxi_present_result_open(w, r, group, generation);
    hxi_json_write_obj_end(w);
}

const char *hxi_present_item_type(const hx_result *r)
{
    for (size_t i = 0; i < r->n_chunk_meta; i++)
        if (!strcmp(r->chunk_meta[i].key, "item_type"))
            return r->chunk_meta[i].value;
    for (size_t i = 0; i < r->n_meta; i++)
        if (!strcmp(r->meta[i].key, "item_type"))
            return r->meta[i].value;
    return NULL;
}

void hxi_present_result_open(hxi_json_writer *w, const hx_result *r, hx_group group, uint64_t generation)
{
    hxi_json_write_obj_begin(w);
    hxi_present_rank(w, r);
    hxi_json_kv_uint(w, "chunk_id", r->chunk_id);
    hxi_json_kv_uint(w, "doc_id", r->doc_id);
    hxi_json_kv_cstr(w, "path", r->path);
    hxi_json_kv_cstr(w, "filename", r->path);   /* seed 003's name for the path */
    hxi_json_kv_cstr(w, "title", r->title);
    hxi_json_kv_cstr(w, "heading", r->heading);
    hxi_json_kv_uint(w, "chunk_index", r->chunk_index);
    hxi_json_kv_uint(w, "line_start", r->line_start);
    hxi_json_kv_uint(w, "line_end", r->line_end);
    hxi_json_write_key(w, "text");
    hxi_json_write_str(w, r->text, r->text_len);
    hxi_json_kv_cstr(w, "snippet", r->snippet ? r->snippet : "");
    hxi_present_citation(w, r, generation);
    hxi_json_write_key(w, "metadata");
    hxi_present_meta_merged(w, r->chunk_meta, r->n_chunk_meta, r->meta, r->n_meta);
    if (hxi_present_item_type(r))
        hxi_json_kv_cstr(w, "item_type", hxi_present_item_type(r));
    hxi_json_kv_cstr(w, "version", r->doc_sha256);
    hxi_present_signer(w, r->signer);
    if (r->tier)
        hxi_json_kv_cstr(w, "tier", r->tier);
    if (group == HX_GROUP_DOCUMENT)
        hxi_present_more(w, r);
}

void hxi_present_more(hxi_json_writer *w, const hx_result *r)
{
    hxi_json_write_key(w, "more");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < r->n_more; i++) {
        const hx_result *m = &r->more[i];
        hxi_json_write_obj_begin(w);
        hxi_present_score(w, "score", m->score);
        hxi_json_kv_uint(w, "chunk_id", m->chunk_id);
        hxi_json_kv_uint(w, "chunk_index", m->chunk_index);
        hxi_json_kv_cstr(w, "heading", m->heading);
        hxi_json_kv_uint(w, "line_start", m->line_start);
        hxi_json_kv_uint(w, "line_end", m->line_end);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
}

void hxi_present_read_context(hxi_json_writer *w, const hx_read_taken *t)
{
    char when[40];
    hxi_json_write_key(w, "read_context");
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "selector", hx_read_selector_names[t->selector]);
    hxi_json_write_key(w, "baseline_id");
    if (t->commit.name[0])
        hxi_json_write_cstr(w, t->commit.name);
    else
        hxi_json_write_null(w);
    hxi_json_write_key(w, "as_of");
    if (t->selector == HX_READ_AS_OF) {
        hx_time_format(t->as_of_ns, when, sizeof when);
        hxi_json_write_cstr(w, when);
    } else {
        hxi_json_write_null(w);
    }
    hxi_json_kv_uint(w, "generation", t->commit.generation);
    hxi_json_write_key(w, "committed_at");
    hx_time_format(t->commit.committed_ns, when, sizeof when);
    hxi_json_write_cstr(w, when);
    hxi_json_write_obj_end(w);
}

size_t hxi_present_answer_tiers(const hx_session_answer *ans, hxi_tier_status st[3])
{
    size_t n = ans->n_tiers < 3 ? ans->n_tiers : 3;
    for (size_t i = 0; i < n; i++) {
        const hx_tier_report *t = &ans->tiers[i];
        bool registry = !strcmp(t->name, HX_TIER_REGISTRY);
        st[i] = (hxi_tier_status){t->name, registry ? NULL : t->db ? t->db : "", t->reason, t->generation};
    }
    return n;
}

void hxi_present_tiers(hxi_json_writer *w, const hxi_tier_status *tiers, size_t n, const hx_results *r)
{
    hxi_json_write_key(w, "tiers");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "tier", tiers[i].name);
        bool registry = !strcmp(tiers[i].name, HX_TIER_REGISTRY);   /* no file, no generation */
        if (!registry)
            hxi_json_kv_cstr(w, "db", tiers[i].db);
        hxi_json_kv_bool(w, "searched", !tiers[i].absent);
        if (registry)
            hxi_json_kv_bool(w, "consulted", !tiers[i].absent);
        if (tiers[i].absent) {
            hxi_json_kv_cstr(w, "reason", tiers[i].absent);
        } else {
            size_t count = 0;
            for (size_t j = 0; j < r->n; j++)
                count += r->v[j].tier && !strcmp(r->v[j].tier, tiers[i].name);
            hxi_json_kv_uint(w, "results", count);
            if (!registry)
                hxi_json_kv_uint(w, "generation", tiers[i].generation);
        }
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
}

uint64_t hxi_present_tier_generation(const hxi_tier_status *tiers, size_t n, const hx_result *r, uint64_t def)
{
    for (size_t i = 0; r->tier && i < n; i++)
        if (!tiers[i].absent && !strcmp(tiers[i].name, r->tier))
            return tiers[i].generation;
    return def;
}

void hxi_present_search_tiers(hxi_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r,
                              const hx_read_taken *t, const hxi_tier_status *tiers, size_t n_tiers)
{
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "query", query);
    hxi_json_kv_cstr(w, "mode", hxi_mode_name(mode));
    hxi_json_kv_cstr(w, "group", hx_group_names[r->group]);
    hxi_json_write_key(w, "results");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < r->n; i++)
        hxi_present_result(w, &r->v[i], r->group, hxi_present_tier_generation(tiers, n_tiers, &r->v[i], t->commit.generation));
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "total_results", r->n);
    hxi_json_kv_double(w, "keyword_bound", r->keyword_bound);
    hxi_json_kv_double(w, "search_time_ms", r->search_ms);
    hxi_present_read_context(w, t);
    if (tiers)
        hxi_present_tiers(w, tiers, n_tiers, r);
    hxi_json_write_obj_end(w);
}

const char *hxi_present_kind(hx_doc_kind k)
{
    return k == HX_DOC_STORED ? "stored" : "file";
}

void hxi_present_stats_members(hxi_json_writer *w, const hx_index_stats *st, const char *root)
{
    hxi_json_kv_cstr(w, "root", root);
    hxi_json_kv_uint(w, "documents", st->documents);
    hxi_json_kv_uint(w, "chunks", st->live_chunks);
    hxi_json_kv_uint(w, "stored_chunks", st->chunks);
    hxi_json_kv_uint(w, "tombstones", st->tombstones);
    hxi_json_kv_uint(w, "segments", st->segments);
    hxi_json_kv_uint(w, "tokens", st->tokens);
    hxi_json_kv_uint(w, "file_bytes", st->file_bytes);
    hxi_json_kv_uint(w, "generation", st->generation);
    hxi_json_kv_int(w, "committed_ns", st->committed_ns);
    hxi_json_kv_cstr(w, "model", st->model);
    hxi_json_kv_cstr(w, "model_hash", st->model_hash);   /* hx_model_hash of the commit's model, "" when not recorded */
    hxi_json_kv_cstr(w, "writer", st->writer);   /* "hyrax VERSION" of the commit shown, "" before 0.2.0 */
    hxi_json_kv_int(w, "dimension", st->dim);
}

void hxi_present_registry_search(hxi_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r,
                                 const hx_registry_fields *fields, const char *not_consulted)
{
    size_t n = r ? r->n : 0;
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "query", query);
    hxi_json_kv_cstr(w, "mode", hxi_mode_name(mode));
    hxi_json_kv_cstr(w, "source", "registry");
    hxi_json_write_key(w, "registry");
    hxi_json_write_obj_begin(w);
    hxi_json_kv_bool(w, "consulted", !not_consulted);
    if (not_consulted)
        hxi_json_kv_cstr(w, "reason", not_consulted);
    hxi_json_write_obj_end(w);
    hxi_json_write_key(w, "results");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        const hx_registry_fields *e = &fields[i];
        hx_result x = r->v[i];   /* tier as every result writes it */
        x.tier = "registry";
        hxi_present_result_open(w, &x, HX_GROUP_CHUNK, 0);
        hxi_json_kv_cstr(w, "tenant", e->tenant);
        hxi_json_kv_cstr(w, "visibility", e->visibility);
        hxi_json_kv_cstr(w, "published_at", e->published_at);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "total_results", n);
    hxi_json_write_obj_end(w);
}

/* === Lasting statistics === */

static void present_latency(hxi_json_writer *w, const hx_latency *l, const char *count_key)
{
    hxi_json_kv_uint(w, count_key, l->count);
    hxi_json_kv_double(w, "mean_ms", l->mean_ms);
    hxi_json_kv_double(w, "p50_ms", l->p50_ms);
    hxi_json_kv_double(w, "p95_ms", l->p95_ms);
    hxi_json_kv_double(w, "p99_ms", l->p99_ms);
}

void hxi_present_activity(hxi_json_writer *w, const hx_activity *a)
{
    hxi_json_write_key(w, "latency");
    hxi_json_write_obj_begin(w);
    for (size_t i = 0; i < a->n_latency; i++) {
        const hx_tool_latency *t = &a->latency[i];
        if (t->transport)
            continue;
        hxi_json_write_key(w, t->tool);
        hxi_json_write_obj_begin(w);
        present_latency(w, &t->latency, "calls");
        hxi_json_write_key(w, "transports");
        hxi_json_write_obj_begin(w);
        for (size_t j = i + 1; j < a->n_latency && a->latency[j].transport; j++) {
            hxi_json_write_key(w, a->latency[j].transport);
            hxi_json_write_obj_begin(w);
            present_latency(w, &a->latency[j].latency, "calls");
            hxi_json_write_obj_end(w);
        }
        hxi_json_write_obj_end(w);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_obj_end(w);
    hxi_json_write_key(w, "top_queries");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < a->n_top; i++) {
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "query", a->top[i].query);
        hxi_json_kv_uint(w, "count", a->top[i].count);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "top_queries_window_s", a->window_s);
    hxi_json_write_key(w, "index");
    hxi_json_write_obj_begin(w);
    const char *keys[] = {"updates", "files_added", "files_updated", "files_removed", "files_rejected", "update_failures"};
    const uint64_t vals[] = {a->updates, a->files_added, a->files_updated, a->files_removed, a->files_rejected,
                             a->update_failures};
    for (int i = 0; i < 6; i++)
        hxi_json_kv_uint(w, keys[i], vals[i]);
    hxi_json_write_key(w, "last_update_at");
    if (a->last_update_ns) {
        char when[64];
        hx_time_format(a->last_update_ns, when, sizeof when);
        hxi_json_write_cstr(w, when);
    } else {
        hxi_json_write_null(w);
    }
    hxi_json_kv_cstr(w, "last_error", a->last_error);
    hxi_json_write_key(w, "lag");
    hxi_json_write_obj_begin(w);
    present_latency(w, &a->lag, "count");
    hxi_json_write_obj_end(w);
    hxi_json_write_obj_end(w);
}
