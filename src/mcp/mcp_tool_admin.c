/* mcp_tool_admin.c: the tools of `hyrax serve` over the index as a whole: reindex,
 * create_baseline and publish (worker thread), index_health and audit_log (main thread), their
 * argument tables and output schemas. */
#include "mcp_tools.h"
#include "present.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* === create_baseline (worker thread) === */

const mcp_arg mcp_create_baseline_args[] = {
    {"name", MCP_STRING, .required = true, RANGE(1, HX_BASELINE_NAME_MAX),
     .description = "Letters, digits, '.', '_', ':' or '-'. Naming again moves the name to the current state; "
                    "the name published is what read_context {selector: published} reads."},
    {.name = NULL},
};

static const mcp_field baseline_fields[] = {
    {"success", .type = MCP_JSON_BOOLEAN},
    {"baseline_id", .type = MCP_JSON_STRING},
    {"generation", .type = MCP_JSON_INTEGER},
    {"committed_at", .type = MCP_JSON_STRING},
    {.name = NULL},
};
const mcp_field mcp_create_baseline_out = {
    NULL, MCP_JSON_OBJECT, .props = baseline_fields,
    MCP_REQUIRED("success", "baseline_id", "generation", "committed_at")};

int mcp_tool_create_baseline(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_create_baseline_args, args};
    hx_commit_info made;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_baseline(s->ses, mcp_arg_str(&a, "name"), &made, err)))
        return mcp_write_error(s, rc, "cannot create the baseline: ", err);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_bool(w, "success", 1);
    hxi_json_kv_cstr(w, "baseline_id", made.name);
    hxi_json_kv_uint(w, "generation", made.generation);
    mcp_write_time(w, "committed_at", made.committed_ns);
    hxi_json_write_obj_end(w);
    return 0;
}

const mcp_arg mcp_reindex_args[] = {
    {"paths", MCP_STRING_LIST, AT_MOST(MAX_PATHS), .description = "Root-relative files or folders; default: the whole root."},
    {"force", MCP_BOOLEAN, .def = "false", .description = "Re-embed unchanged files too."},
    {"exclude", MCP_STRING_LIST, AT_MOST(MAX_EXCLUDES), .description = "Globs of root-relative paths to skip."},
    {.name = NULL},
};

static const mcp_field reindex_fields[] = {MCP_OUT_REPORT_ROWS, MCP_OUT_SEARCHABLE_ROWS, {.name = NULL}};
const mcp_field mcp_reindex_out = {
    NULL, MCP_JSON_OBJECT, .props = reindex_fields,
    MCP_REQUIRED("added", "updated", "unchanged", "removed", "rejected", "seconds", "generation", "searchable")};

int mcp_tool_reindex(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_reindex_args, args};
    const char *rel[MAX_PATHS], *excl[MAX_EXCLUDES];
    size_t np = mcp_arg_list(&a, "paths", rel), ne = mcp_arg_list(&a, "exclude", excl);
    hx_write_opts wo = {mcp_job_progress, s, false};
    hx_session_write out = {0};
    int rc = mcp_session_open(s, err);
    if (rc)
        return rc;
    hx_reindex_opts ro = {.paths = rel, .n_paths = np, .excludes = excl, .n_excludes = ne,
                          .force = mcp_arg_bool(&a, "force")};
    rc = hx_session_reindex(s->ses, &ro, &wo, &out, err);
    bool named = rc && !strncmp(err->message, "paths: ", 7);   /* a path refused before the update */
    bool opened = !rc || (rc != HX_EBUSY && rc != HX_EPERM && strncmp(err->message, "cannot open ", 12));
    if (!named && opened)   /* the update ran: counted in the server's lasting statistics */
        hx_stats_note_update(s->server->stats, rc ? NULL : &out.report, rc ? err->message : NULL, 0);
    if (rc) {
        rc = named ? mcp_path_error(err) : mcp_write_error(s, rc, "reindex failed: ", err);
    } else {
        for (size_t i = 0; i < out.report.n_rejected; i++)
            mcp_note_failure(s->server, out.report.rejected[i].path, out.report.rejected[i].reason);
        hxi_json_write_obj_begin(w);
        mcp_write_report(w, &out.report);
        mcp_write_committed(w, &out);
        hxi_json_write_obj_end(w);
    }
    hx_session_write_clear(&out);
    return rc;
}

/* === publish (the registry tier, issue 13) === */

const mcp_arg mcp_publish_args[] = {
    {"paths", MCP_STRING_LIST, .required = true, AT_MOST(MAX_PATHS),
     .description = "Root-relative files or folders to publish to the registry."},
    {"visibility", MCP_STRING, .choices = hx_publish_visibilities, .def = "tenant",
     .description = "tenant: readable by the publishing tenant only; public: by every tenant; private: by this "
                    "server's user only (serve --tenant T --user U)."},
    {"allow_unsigned", MCP_BOOLEAN, .def = "false",
     .description = "Publish files without a signature file too (a bad signature is always refused)."},
    {.name = NULL},
};

static const mcp_field publish_fields[] = {
    {"published", .type = MCP_JSON_INTEGER},
    {"unchanged", .type = MCP_JSON_INTEGER},
    {"removed", .type = MCP_JSON_INTEGER},
    {"chunks", .type = MCP_JSON_INTEGER},
    {"rejected", .type = MCP_JSON_ARRAY},
    {.name = NULL},
};
const mcp_field mcp_publish_out = {
    NULL, MCP_JSON_OBJECT, .props = publish_fields, MCP_REQUIRED("published", "unchanged", "removed", "rejected")};

int mcp_tool_publish(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_publish_args, args};
    const char *paths[MAX_PATHS];
    hx_publish_request p = {paths, mcp_arg_list(&a, "paths", paths), mcp_arg_str(&a, "visibility"),
                            mcp_arg_bool(&a, "allow_unsigned"), 0};
    hx_write_opts wo = {mcp_job_progress, s, false};
    hx_publish_report rep = {0};
    int rc = mcp_session_open(s, err);
    if (!rc && (rc = hx_session_publish(s->ses, &p, &wo, &rep, err))) {
        hx_error e = *err;
        rc = rep.path_error ? mcp_path_error(err) : mcp_error_wrap(err, &e, "publish failed: ");
    }
    if (!rc) {
        hxi_json_write_obj_begin(w);
        hxi_json_kv_uint(w, "published", rep.published);
        hxi_json_kv_uint(w, "unchanged", rep.unchanged);
        hxi_json_kv_uint(w, "removed", rep.removed);
        hxi_json_kv_uint(w, "chunks", rep.chunks);
        hxi_present_rejected(w, rep.rejected, rep.n_rejected);
        hxi_json_write_obj_end(w);
    }
    hx_publish_report_clear(&rep);
    return rc;
}

/* === index_health === */

const mcp_arg mcp_index_health_args[] = {{.name = NULL}};

static const mcp_field commit_fields[] = {
    {"generation", .type = MCP_JSON_INTEGER},
    {"committed_at", .type = MCP_JSON_STRING},
    {.name = NULL},
};
static const mcp_field model_fields[] = {
    {"name", .type = MCP_JSON_STRING},
    {"dimension", .type = MCP_JSON_INTEGER},
    {"loaded", .type = MCP_JSON_BOOLEAN},
    {.name = NULL},
};
static const mcp_field health_fields[] = {
    {"status", MCP_JSON_STRING, MCP_CHOICES("ok", "empty", "loading", "error")},
    {"message", .type = MCP_JSON_STRING},
    {"db", .type = MCP_JSON_STRING},
    {"root", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"documents", .type = MCP_JSON_INTEGER},
    {"chunks", .type = MCP_JSON_INTEGER},
    {"segments", .type = MCP_JSON_INTEGER},
    {"tombstones", .type = MCP_JSON_INTEGER},
    {"file_bytes", .type = MCP_JSON_INTEGER},
    {"last_commit", MCP_JSON_OBJECT | MCP_JSON_NULL, .props = commit_fields},
    {"model", MCP_JSON_OBJECT, .props = model_fields},
    {"pending_jobs", .type = MCP_JSON_INTEGER},
    {"running_job", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"jobs_done", .type = MCP_JSON_INTEGER},
    {"jobs_failed", .type = MCP_JSON_INTEGER},
    {"jobs_busy", .type = MCP_JSON_INTEGER},
    {"failures", .type = MCP_JSON_ARRAY},
    {"top_queries", MCP_JSON_ARRAY,
     .description = "The 10 most frequent queries of the last top_queries_window_s seconds, from every process "
                    "on this index (serve, hyrax search), kept across restarts; count is a space-saving "
                    "estimate. Under serve --tenant, this identity's queries only."},
    {"top_queries_window_s", .type = MCP_JSON_INTEGER},
    {"latency", MCP_JSON_OBJECT,
     .description = "Per tool (and hyrax search): calls, mean/p50/p95/p99 ms, and the same per transport (stdio, "
                    "http, cli); kept across restarts."},
    {"index", MCP_JSON_OBJECT,
     .description = "Index updates kept across restarts: files added, updated, removed, rejected (gate or "
                    "unreadable), failed updates, last error (null under serve --tenant), and lag (a changed "
                    "file's mtime to its commit)."},
    {"watch", MCP_JSON_OBJECT | MCP_JSON_NULL,
     .description = "serve --watch: mode (inotify or poll), batches, commits, pending paths and the last batch "
                    "(its rejected files and error left out under serve --tenant); null when not watching."},
    {"stats_error", .type = MCP_JSON_STRING},
    {"uptime_s", .type = MCP_JSON_NUMBER},
    {"read_only", .type = MCP_JSON_BOOLEAN},
    {"protocol_version", .type = MCP_JSON_STRING},
    {.name = NULL},
};
const mcp_field mcp_index_health_out = {
    NULL, MCP_JSON_OBJECT, .props = health_fields,
    MCP_REQUIRED("status", "documents", "chunks", "pending_jobs", "latency", "model")};

/* The watcher's health record as {"mode", "root", "batches", "commits", "pending_paths",
 * "last_batch": null | {"at", "paths", "added", "updated", "removed", "rejected": [{path, reason}],
 * "error", "generation", "seconds", "lag_ms"}}. `named` false (a reader identity's view) leaves
 * "rejected" empty and "error" null: they may name any file of the root. */
static void write_watch(hxi_json_writer *out, hx_watch *watch, bool named)
{
    hx_watch_health h;
    char when[64];
    hx_watch_health_get(watch, &h);
    hxi_json_write_obj_begin(out);
    hxi_json_kv_cstr(out, "mode", h.mode);
    hxi_json_kv_cstr(out, "root", h.root);
    hxi_json_kv_uint(out, "batches", h.batches);
    hxi_json_kv_uint(out, "commits", h.commits);
    hxi_json_kv_uint(out, "pending_paths", h.pending_paths);
    hxi_json_write_key(out, "last_batch");
    if (!h.have_last) {
        hxi_json_write_null(out);
    } else {
        hxi_json_write_obj_begin(out);
        hx_time_format(h.last_at_ns, when, sizeof when);
        hxi_json_kv_cstr(out, "at", when);
        hxi_json_kv_uint(out, "paths", h.last_paths);
        hxi_json_kv_uint(out, "added", h.last_added);
        hxi_json_kv_uint(out, "updated", h.last_updated);
        hxi_json_kv_uint(out, "removed", h.last_removed);
        hxi_json_write_key(out, "rejected");
        hxi_json_write_arr_begin(out);
        for (size_t i = 0; named && i < h.n_last_rejected; i++) {
            hxi_json_write_obj_begin(out);
            hxi_json_kv_cstr(out, "path", h.last_rejected[i][0]);
            hxi_json_kv_cstr(out, "reason", h.last_rejected[i][1]);
            hxi_json_write_obj_end(out);
        }
        hxi_json_write_arr_end(out);
        hxi_json_write_key(out, "error");
        if (h.last_error[0] && named)
            hxi_json_write_cstr(out, h.last_error);
        else
            hxi_json_write_null(out);
        hxi_json_kv_uint(out, "generation", h.last_generation);
        hxi_json_kv_double(out, "seconds", h.last_seconds);
        hxi_json_kv_double(out, "lag_ms", h.last_lag_ms);
        hxi_json_write_obj_end(out);
    }
    hxi_json_write_obj_end(out);
}

int mcp_tool_index_health(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    (void)args;
    (void)err;
    hx_error why = {0};
    int open_rc = mcp_session_reader(s, &why);
    hx_index_stats st = {0};
    bool have = !open_rc && !hx_index_stats_get(s->reader, &st, NULL);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "status", have ? (st.documents ? "ok" : "empty") : s->model ? "empty" : "error");
    if (!have)
        hxi_json_kv_cstr(w, "message", why.message);
    hxi_json_kv_cstr(w, "db", s->cfg->db);
    hxi_json_kv_cstr(w, "root", have ? hx_index_root(s->reader) : s->cfg->root);
    hxi_json_kv_uint(w, "documents", st.documents);
    hxi_json_kv_uint(w, "chunks", st.live_chunks);
    hxi_json_kv_uint(w, "segments", st.segments);
    hxi_json_kv_uint(w, "tombstones", st.tombstones);
    hxi_json_kv_uint(w, "file_bytes", st.file_bytes);
    hxi_json_write_key(w, "last_commit");
    if (have) {
        hxi_json_write_obj_begin(w);
        hxi_json_kv_uint(w, "generation", st.generation);
        mcp_write_time(w, "committed_at", st.committed_ns);
        hxi_json_write_obj_end(w);
    } else {
        hxi_json_write_null(w);
    }
    hxi_json_write_key(w, "model");
    hxi_json_write_obj_begin(w);
    hx_model_info def;   /* not loaded yet: the index's model, else the default */
    hx_model_catalog(0, &def);
    const bool indexed = have && st.model[0] && st.dim > 0;
    hxi_json_kv_cstr(w, "name", s->model ? hx_model_name(s->model) : indexed ? st.model : def.name);
    hxi_json_kv_int(w, "dimension", s->model ? hx_model_dim(s->model) : indexed ? st.dim : def.dim);
    hxi_json_kv_bool(w, "loaded", s->model != NULL);
    hxi_json_write_obj_end(w);
    mcp_write_health_jobs(s->server, w);
    hxi_json_write_key(w, "failures");
    mcp_write_failures(s->server, w);
    hx_error serr = {0};
    hx_activity act;
    if (hx_stats_activity(s->server->stats, s->cfg->db, s->cfg->identity, &act, &serr)) {
        hxi_json_kv_cstr(w, "stats_error", serr.message);
    } else {
        hxi_present_activity(w, &act);   /* latency, top_queries, index */
    }
    hx_activity_free(&act);
    hxi_json_write_key(w, "watch");
    if (s->server->watch)
        write_watch(w, s->server->watch, !s->cfg->identity);   /* its paths: the unscoped reader's only */
    else
        hxi_json_write_null(w);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    hxi_json_kv_double(w, "uptime_s", (double)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - s->server->started_ns) / 1e9);
    hxi_json_kv_bool(w, "read_only", s->cfg->read_only);
    hxi_json_kv_cstr(w, "protocol_version", s->protocol);
    hxi_json_write_obj_end(w);
    return 0;
}

/* === audit_log === */

const mcp_arg mcp_audit_log_args[] = {
    {"limit", MCP_INTEGER, RANGE(1, HX_AUDIT_MAX), .def = "100", .description = "The newest entries to return."},
    {"since", MCP_STRING, .description = "Only entries at or after this time: ISO-8601 (2026-01-31T12:00:00Z) or unix seconds."},
    {"path", MCP_STRING, .description = "Only documents whose root-relative path matches this glob (** spans folders)."},
    {.name = NULL},
};

static const mcp_field audit_entry_fields[] = {
    {"time", .type = MCP_JSON_STRING},
    {"path", .type = MCP_JSON_STRING},
    {"sha256", .type = MCP_JSON_STRING},
    {"rule", .type = MCP_JSON_STRING},
    {"reason", .type = MCP_JSON_STRING},
    {.name = NULL},
};
static const mcp_field audit_fields[] = {
    {"entries", MCP_JSON_ARRAY, .items = &(const mcp_field){NULL, MCP_JSON_OBJECT, .props = audit_entry_fields}},
    {"count", .type = MCP_JSON_INTEGER},
    {.name = NULL},
};
const mcp_field mcp_audit_log_out = {NULL, MCP_JSON_OBJECT, .props = audit_fields, MCP_REQUIRED("entries", "count")};

int mcp_tool_audit_log(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_audit_log_args, args};
    const char *since = mcp_arg_str(&a, "since");
    int64_t since_ns = 0;
    hx_error e = {0};
    if (since && hx_time_parse(since, &since_ns, &e))
        return mcp_error_wrap(err, &e, "'since': ");
    if (mcp_session_reader(s, err))
        return MCP_CODE(*err);
    hx_audit_list l;
    if (hx_index_audit(s->reader, &l, &e))
        return mcp_error_wrap(err, &e, "reading the audit log failed: ");
    if (hx_audit_list_select(&l, since_ns, mcp_arg_str(&a, "path"), (size_t)mcp_arg_int(&a, "limit"), &e)) {
        hx_audit_list_free(&l);
        return hx_error_set(err, MCP_CODE(e), -1, "%s", e.message);
    }
    hxi_present_audit(w, &l);
    hx_audit_list_free(&l);
    return 0;
}

