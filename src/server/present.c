/* present.c: JSON renderings of results, search answers and statistics (spec in present.h). Float
 * scores are written as doubles; a side that missed a chunk is written as null. */
#include "present.h"

#include <math.h>
#include <string.h>

const char *hx_mode_name(hx_search_mode m)
{
    return m == HX_MODE_VECTOR ? "vector" : m == HX_MODE_KEYWORD ? "keyword" : "hybrid";
}

void hx_present_meta(hx_json_writer *w, const hx_kv *meta, size_t n)
{
    hx_json_write_obj_begin(w);
    for (size_t i = 0; i < n; i++) {
        size_t count = 0;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(meta[j].key, meta[i].key);
        for (size_t j = i; j < n && !seen; j++)
            count += !strcmp(meta[j].key, meta[i].key);
        if (seen)
            continue;   /* written with its first value */
        hx_json_write_key(w, meta[i].key);
        if (count == 1) {
            hx_json_write_cstr(w, meta[i].value);
            continue;
        }
        hx_json_write_arr_begin(w);
        for (size_t j = i; j < n; j++)
            if (!strcmp(meta[j].key, meta[i].key))
                hx_json_write_cstr(w, meta[j].value);
        hx_json_write_arr_end(w);
    }
    hx_json_write_obj_end(w);
}

void hx_present_score(hx_json_writer *w, const char *key, float s)
{
    hx_json_write_key(w, key);
    if (isnan(s))
        hx_json_write_null(w);
    else
        hx_json_write_double(w, (double)s);
}

void hx_present_rank(hx_json_writer *w, const hx_result *r)
{
    hx_json_write_key(w, "rank");
    hx_json_write_uint(w, r->rank);
    hx_present_score(w, "score", r->score);
    hx_present_score(w, "relevance", r->relevance);
    hx_present_score(w, "similarity", r->similarity);
    hx_present_score(w, "vector_score", r->vector_score);
    hx_present_score(w, "keyword_score", r->keyword_score);
    hx_present_score(w, "fused_score", r->fused);
    if (r->recency != 1) {
        hx_json_write_key(w, "recency");
        hx_json_write_double(w, (double)r->recency);
    }
}

void hx_present_reason(hx_json_writer *w, const char *path, const char *reason)
{
    hx_json_write_key(w, "path");
    hx_json_write_cstr(w, path);
    hx_json_write_key(w, "reason");
    hx_json_write_cstr(w, reason);
}

void hx_present_rejected(hx_json_writer *w, const hx_rejected *v, size_t n)
{
    hx_json_write_key(w, "rejected");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        hx_json_write_obj_begin(w);
        hx_present_reason(w, v[i].path, v[i].reason);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
}

void hx_present_audit(hx_json_writer *w, const hx_audit_list *l)
{
    char when[40];
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "entries");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        const hx_audit_entry *e = &l->entries[i];
        hx_time_format(e->time_ns, when, sizeof when);
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "time");
        hx_json_write_cstr(w, when);
        hx_json_write_key(w, "path");
        hx_json_write_cstr(w, e->path);
        hx_json_write_key(w, "sha256");
        hx_json_write_cstr(w, e->sha256);
        hx_json_write_key(w, "rule");
        hx_json_write_cstr(w, e->rule);
        hx_json_write_key(w, "reason");
        hx_json_write_cstr(w, e->reason);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "count");
    hx_json_write_uint(w, l->n);
    hx_json_write_obj_end(w);
}

void hx_present_signer(hx_json_writer *w, const char *signer)
{
    hx_json_write_key(w, "signer");
    if (signer && *signer)
        hx_json_write_cstr(w, signer);
    else
        hx_json_write_null(w);
}

void hx_present_citation(hx_json_writer *w, const hx_result *r, uint64_t generation)
{
    hx_json_write_key(w, "citation");
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "doc_id");
    hx_json_write_uint(w, r->doc_id);
    hx_json_write_key(w, "path");
    hx_json_write_cstr(w, r->path);
    hx_json_write_key(w, "chunk_id");
    hx_json_write_uint(w, r->chunk_id);
    hx_json_write_key(w, "chunk_index");
    hx_json_write_uint(w, r->chunk_index);
    hx_json_write_key(w, "line_start");
    hx_json_write_uint(w, r->line_start);
    hx_json_write_key(w, "line_end");
    hx_json_write_uint(w, r->line_end);
    hx_json_write_key(w, "version");
    hx_json_write_cstr(w, r->doc_sha256);
    hx_json_write_key(w, "generation");
    hx_json_write_uint(w, generation);
    hx_present_signer(w, r->signer);
    if (r->tier) {
        hx_json_write_key(w, "tier");
        hx_json_write_cstr(w, r->tier);
    }
    hx_json_write_obj_end(w);
}

void hx_present_result(hx_json_writer *w, const hx_result *r, hx_group group, uint64_t generation)
{
    hx_present_result_open(w, r, group, generation);
    hx_json_write_obj_end(w);
}

void hx_present_result_open(hx_json_writer *w, const hx_result *r, hx_group group, uint64_t generation)
{
    hx_json_write_obj_begin(w);
    hx_present_rank(w, r);
    hx_json_write_key(w, "chunk_id");
    hx_json_write_uint(w, r->chunk_id);
    hx_json_write_key(w, "doc_id");
    hx_json_write_uint(w, r->doc_id);
    hx_json_write_key(w, "path");
    hx_json_write_cstr(w, r->path);
    hx_json_write_key(w, "filename");   /* seed 003's name for the path */
    hx_json_write_cstr(w, r->path);
    hx_json_write_key(w, "title");
    hx_json_write_cstr(w, r->title);
    hx_json_write_key(w, "heading");
    hx_json_write_cstr(w, r->heading);
    hx_json_write_key(w, "chunk_index");
    hx_json_write_uint(w, r->chunk_index);
    hx_json_write_key(w, "line_start");
    hx_json_write_uint(w, r->line_start);
    hx_json_write_key(w, "line_end");
    hx_json_write_uint(w, r->line_end);
    hx_json_write_key(w, "text");
    hx_json_write_str(w, r->text, r->text_len);
    hx_json_write_key(w, "snippet");
    hx_json_write_cstr(w, r->snippet ? r->snippet : "");
    hx_present_citation(w, r, generation);
    hx_json_write_key(w, "metadata");
    hx_present_meta(w, r->meta, r->n_meta);
    hx_json_write_key(w, "version");
    hx_json_write_cstr(w, r->doc_sha256);
    hx_present_signer(w, r->signer);
    if (r->tier) {
        hx_json_write_key(w, "tier");
        hx_json_write_cstr(w, r->tier);
    }
    if (group == HX_GROUP_DOCUMENT)
        hx_present_more(w, r);
}

void hx_present_more(hx_json_writer *w, const hx_result *r)
{
    hx_json_write_key(w, "more");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < r->n_more; i++) {
        const hx_result *m = &r->more[i];
        hx_json_write_obj_begin(w);
        hx_present_score(w, "score", m->score);
        hx_json_write_key(w, "chunk_id");
        hx_json_write_uint(w, m->chunk_id);
        hx_json_write_key(w, "chunk_index");
        hx_json_write_uint(w, m->chunk_index);
        hx_json_write_key(w, "heading");
        hx_json_write_cstr(w, m->heading);
        hx_json_write_key(w, "line_start");
        hx_json_write_uint(w, m->line_start);
        hx_json_write_key(w, "line_end");
        hx_json_write_uint(w, m->line_end);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
}

void hx_present_read_context(hx_json_writer *w, const hx_read_taken *t)
{
    char when[40];
    hx_json_write_key(w, "read_context");
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "selector");
    hx_json_write_cstr(w, hx_read_selector_names[t->selector]);
    hx_json_write_key(w, "baseline_id");
    if (t->commit.name[0])
        hx_json_write_cstr(w, t->commit.name);
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "as_of");
    if (t->selector == HX_READ_AS_OF) {
        hx_time_format(t->as_of_ns, when, sizeof when);
        hx_json_write_cstr(w, when);
    } else {
        hx_json_write_null(w);
    }
    hx_json_write_key(w, "generation");
    hx_json_write_uint(w, t->commit.generation);
    hx_json_write_key(w, "committed_at");
    hx_time_format(t->commit.committed_ns, when, sizeof when);
    hx_json_write_cstr(w, when);
    hx_json_write_obj_end(w);
}

size_t hx_present_answer_tiers(const hx_session_answer *ans, hx_tier_status st[3])
{
    size_t n = ans->n_tiers < 3 ? ans->n_tiers : 3;
    for (size_t i = 0; i < n; i++) {
        const hx_tier_report *t = &ans->tiers[i];
        bool registry = !strcmp(t->name, HX_TIER_REGISTRY);
        st[i] = (hx_tier_status){t->name, registry ? NULL : t->db ? t->db : "", t->reason, t->generation};
    }
    return n;
}

void hx_present_tiers(hx_json_writer *w, const hx_tier_status *tiers, size_t n, const hx_results *r)
{
    hx_json_write_key(w, "tiers");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "tier");
        hx_json_write_cstr(w, tiers[i].name);
        bool registry = !strcmp(tiers[i].name, HX_TIER_REGISTRY);   /* no file, no generation */
        if (!registry) {
            hx_json_write_key(w, "db");
            hx_json_write_cstr(w, tiers[i].db);
        }
        hx_json_write_key(w, "searched");
        hx_json_write_bool(w, !tiers[i].absent);
        if (registry) {
            hx_json_write_key(w, "consulted");
            hx_json_write_bool(w, !tiers[i].absent);
        }
        if (tiers[i].absent) {
            hx_json_write_key(w, "reason");
            hx_json_write_cstr(w, tiers[i].absent);
        } else {
            size_t count = 0;
            for (size_t j = 0; j < r->n; j++)
                count += r->v[j].tier && !strcmp(r->v[j].tier, tiers[i].name);
            hx_json_write_key(w, "results");
            hx_json_write_uint(w, count);
            if (!registry) {
                hx_json_write_key(w, "generation");
                hx_json_write_uint(w, tiers[i].generation);
            }
        }
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
}

uint64_t hx_present_tier_generation(const hx_tier_status *tiers, size_t n, const hx_result *r, uint64_t def)
{
    for (size_t i = 0; r->tier && i < n; i++)
        if (!tiers[i].absent && !strcmp(tiers[i].name, r->tier))
            return tiers[i].generation;
    return def;
}

void hx_present_search_tiers(hx_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r,
                             const hx_read_taken *t, const hx_tier_status *tiers, size_t n_tiers)
{
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "query");
    hx_json_write_cstr(w, query);
    hx_json_write_key(w, "mode");
    hx_json_write_cstr(w, hx_mode_name(mode));
    hx_json_write_key(w, "group");
    hx_json_write_cstr(w, hx_group_names[r->group]);
    hx_json_write_key(w, "results");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < r->n; i++)
        hx_present_result(w, &r->v[i], r->group, hx_present_tier_generation(tiers, n_tiers, &r->v[i], t->commit.generation));
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "total_results");
    hx_json_write_uint(w, r->n);
    hx_json_write_key(w, "keyword_bound");
    hx_json_write_double(w, r->keyword_bound);
    hx_json_write_key(w, "search_time_ms");
    hx_json_write_double(w, r->search_ms);
    hx_present_read_context(w, t);
    if (tiers)
        hx_present_tiers(w, tiers, n_tiers, r);
    hx_json_write_obj_end(w);
}

const char *hx_present_kind(hx_doc_kind k)
{
    return k == HX_DOC_STORED ? "stored" : "file";
}

void hx_present_stats_members(hx_json_writer *w, const hx_index_stats *st, const char *root)
{
    hx_json_write_key(w, "root");
    hx_json_write_cstr(w, root);
    hx_json_write_key(w, "documents");
    hx_json_write_uint(w, st->documents);
    hx_json_write_key(w, "chunks");
    hx_json_write_uint(w, st->live_chunks);
    hx_json_write_key(w, "stored_chunks");
    hx_json_write_uint(w, st->chunks);
    hx_json_write_key(w, "tombstones");
    hx_json_write_uint(w, st->tombstones);
    hx_json_write_key(w, "segments");
    hx_json_write_uint(w, st->segments);
    hx_json_write_key(w, "tokens");
    hx_json_write_uint(w, st->tokens);
    hx_json_write_key(w, "file_bytes");
    hx_json_write_uint(w, st->file_bytes);
    hx_json_write_key(w, "generation");
    hx_json_write_uint(w, st->generation);
    hx_json_write_key(w, "committed_ns");
    hx_json_write_int(w, st->committed_ns);
    hx_json_write_key(w, "model");
    hx_json_write_cstr(w, st->model);
    hx_json_write_key(w, "writer");   /* "hyrax VERSION" of the commit shown, "" before 0.2.0 */
    hx_json_write_cstr(w, st->writer);
    hx_json_write_key(w, "dimension");
    hx_json_write_int(w, st->dim);
}

void hx_present_registry_search(hx_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r,
                                const hx_registry_fields *fields, const char *not_consulted)
{
    size_t n = r ? r->n : 0;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "query");
    hx_json_write_cstr(w, query);
    hx_json_write_key(w, "mode");
    hx_json_write_cstr(w, hx_mode_name(mode));
    hx_json_write_key(w, "source");
    hx_json_write_cstr(w, "registry");
    hx_json_write_key(w, "registry");
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "consulted");
    hx_json_write_bool(w, !not_consulted);
    if (not_consulted) {
        hx_json_write_key(w, "reason");
        hx_json_write_cstr(w, not_consulted);
    }
    hx_json_write_obj_end(w);
    hx_json_write_key(w, "results");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        const hx_registry_fields *e = &fields[i];
        hx_result x = r->v[i];   /* tier as every result writes it */
        x.tier = "registry";
        hx_present_result_open(w, &x, HX_GROUP_CHUNK, 0);
        hx_json_write_key(w, "tenant");
        hx_json_write_cstr(w, e->tenant);
        hx_json_write_key(w, "visibility");
        hx_json_write_cstr(w, e->visibility);
        hx_json_write_key(w, "published_at");
        hx_json_write_cstr(w, e->published_at);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "total_results");
    hx_json_write_uint(w, n);
    hx_json_write_obj_end(w);
}

/* === Lasting statistics === */

static void present_latency(hx_json_writer *w, const hx_latency *l, const char *count_key)
{
    hx_json_write_key(w, count_key);
    hx_json_write_uint(w, l->count);
    hx_json_write_key(w, "mean_ms");
    hx_json_write_double(w, l->mean_ms);
    hx_json_write_key(w, "p50_ms");
    hx_json_write_double(w, l->p50_ms);
    hx_json_write_key(w, "p95_ms");
    hx_json_write_double(w, l->p95_ms);
    hx_json_write_key(w, "p99_ms");
    hx_json_write_double(w, l->p99_ms);
}

void hx_present_activity(hx_json_writer *w, const hx_activity *a)
{
    hx_json_write_key(w, "latency");
    hx_json_write_obj_begin(w);
    for (size_t i = 0; i < a->n_latency; i++) {
        const hx_tool_latency *t = &a->latency[i];
        if (t->transport)
            continue;
        hx_json_write_key(w, t->tool);
        hx_json_write_obj_begin(w);
        present_latency(w, &t->latency, "calls");
        hx_json_write_key(w, "transports");
        hx_json_write_obj_begin(w);
        for (size_t j = i + 1; j < a->n_latency && a->latency[j].transport; j++) {
            hx_json_write_key(w, a->latency[j].transport);
            hx_json_write_obj_begin(w);
            present_latency(w, &a->latency[j].latency, "calls");
            hx_json_write_obj_end(w);
        }
        hx_json_write_obj_end(w);
        hx_json_write_obj_end(w);
    }
    hx_json_write_obj_end(w);
    hx_json_write_key(w, "top_queries");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < a->n_top; i++) {
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "query");
        hx_json_write_cstr(w, a->top[i].query);
        hx_json_write_key(w, "count");
        hx_json_write_uint(w, a->top[i].count);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "top_queries_window_s");
    hx_json_write_uint(w, a->window_s);
    hx_json_write_key(w, "index");
    hx_json_write_obj_begin(w);
    const char *keys[] = {"updates", "files_added", "files_updated", "files_removed", "files_rejected", "update_failures"};
    const uint64_t vals[] = {a->updates, a->files_added, a->files_updated, a->files_removed, a->files_rejected,
                             a->update_failures};
    for (int i = 0; i < 6; i++) {
        hx_json_write_key(w, keys[i]);
        hx_json_write_uint(w, vals[i]);
    }
    hx_json_write_key(w, "last_update_at");
    if (a->last_update_ns) {
        char when[64];
        hx_time_format(a->last_update_ns, when, sizeof when);
        hx_json_write_cstr(w, when);
    } else {
        hx_json_write_null(w);
    }
    hx_json_write_key(w, "last_error");
    hx_json_write_cstr(w, a->last_error);
    hx_json_write_key(w, "lag");
    hx_json_write_obj_begin(w);
    present_latency(w, &a->lag, "count");
    hx_json_write_obj_end(w);
    hx_json_write_obj_end(w);
}
