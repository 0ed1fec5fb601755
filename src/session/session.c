/* session.c: an hx_session's life (hyrax.h "Session"): the configuration it copies at open, the
 * models and encoders it opens when a call first needs them, the readers of the project and user
 * indexes and how they are repositioned for a read context, the fault guard every read runs
 * under, hx_session_status and hx_session_activity. Searching is session_search.c's, documents session_docs.c's,
 * writes session_write.c's. */
#include "session_internal.h"

#include "alloc.h"
#include "fsafe.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Open and close === */

/* *dst = a copy of src (NULL stays NULL); false when out of memory. */
static bool copy(char **dst, const char *src)
{
    *dst = NULL;
    return !src || (*dst = hx_strdup(src)) != NULL;
}

int hx_session_open(hx_session **out, const hx_session_config *cfg, hx_error *err)
{
    *out = NULL;
    if (!cfg || !cfg->db || !*cfg->db)
        return hx_error_set(err, HX_EINVAL, -1, "a session needs the project index file (hx_session_config.db)");
    if (cfg->registry_timeout_ms < 0)
        return hx_error_set(err, HX_EINVAL, -1, "registry_timeout_ms must be 0 (the default) or more, not %d",
                            cfg->registry_timeout_ms);
    if (cfg->threads < 0)
        return hx_error_set(err, HX_EINVAL, -1, "threads must be 0 (one per core) or more, not %d", cfg->threads);
    if (cfg->root && cfg->root[0] != '/')
        return hx_error_set(err, HX_EINVAL, -1, "root must be an absolute path, not '%.200s'", cfg->root);
    if ((unsigned)cfg->precision > HX_PRECISION_INT8)
        return hx_error_set(err, HX_EINVAL, -1, "precision must be HX_PRECISION_FP32 or HX_PRECISION_INT8");
    if (cfg->identity && hx_identity_check(cfg->identity, err))
        return HX_EINVAL;
    hx_session *s = hx_calloc(1, sizeof *s);
    if (!s)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    const char *registry = cfg->registry ? cfg->registry : getenv(HX_REGISTRY_ENV);
    if (!cfg->registry && (!registry || !*registry) && cfg->registry_defaults)
        registry = "";   /* s->registry "": hxi_registry_connect's libpq defaults */
    else if (registry && !*registry)
        registry = NULL;
    bool ok = copy(&s->db, cfg->db) && copy(&s->root, cfg->root) && copy(&s->weights, cfg->weights) &&
              copy(&s->registry, registry) && copy(&s->transport, cfg->stats_transport);
    if (ok && cfg->identity)
        ok = copy(&s->tenant, cfg->identity->tenant) && copy(&s->user, cfg->identity->user);
    s->no_user_tier = cfg->no_user_tier;
    if (ok && cfg->no_user_tier) {
        snprintf(s->user_why, sizeof s->user_why, "no user tier in this session");
    } else if (ok && cfg->user_db) {
        ok = copy(&s->user_db, cfg->user_db);
    } else if (ok) {
        char path[4096];
        hx_error uerr = {0};
        if (hx_tier_user_path(path, sizeof path, &uerr))
            snprintf(s->user_why, sizeof s->user_why, "%s", uerr.message);
        else
            ok = copy(&s->user_db, path);
    }
    if (!ok) {
        hx_session_close(s);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    s->identity = (hx_identity){s->tenant, s->user};
    s->has_identity = cfg->identity != NULL;
    s->read_only = cfg->read_only;
    s->registry_timeout_ms = cfg->registry_timeout_ms ? cfg->registry_timeout_ms : HX_REGISTRY_TIMEOUT_MS;
    s->connect_timeout_ms = cfg->registry_timeout_ms ? cfg->registry_timeout_ms : HX_REGISTRY_CONNECT_TIMEOUT_MS;
    s->threads = cfg->threads;
    s->new_precision = cfg->precision;
    s->shared = cfg->model;
    s->memory_limits = cfg->memory;
    *out = s;
    return 0;
}

void hx_session_close(hx_session *s)
{
    if (!s)
        return;
    hx_index_close(s->project);
    hx_index_close(s->user_ix);
    hx_encoder_free(s->writer_enc);
    for (int p = 0; p < 2; p++) {
        hx_encoder_free(s->encoders[p]);
        hx_model_close(s->models[p]);
    }
    hx_stats_close(s->stats);
    free(s->db);
    free(s->root);
    free(s->user_db);
    free(s->registry);
    free(s->weights);
    free(s->tenant);
    free(s->user);
    free(s->transport);
    free(s);
}

/* === Models and encoders === */

int session_model(hx_session *s, hx_precision p, const hx_model **m, hx_error *err)
{
    if (s->shared)
        return *m = s->shared, 0;
    if (!s->models[p]) {
        hx_model_opts o = {s->weights, p};
        int rc = hx_model_open_opts(&s->models[p], &o, err);
        if (rc)
            return rc;
    }
    *m = s->models[p];
    return 0;
}

hx_precision session_query_precision(const hx_session *s, hx_precision p)
{
    return s->shared ? hx_model_precision(s->shared) : p;
}

int session_encoder(hx_session *s, hx_precision p, hx_encoder **enc, hx_error *err)
{
    p = session_query_precision(s, p);
    const hx_model *m;
    int rc = session_model(s, p, &m, err);
    if (!rc && !s->encoders[p])
        rc = hx_encoder_new(&s->encoders[p], m, 1, err);
    *enc = s->encoders[p];
    return rc;
}

int session_writer_encoder(hx_session *s, hx_precision p, const hx_model **m, hx_encoder **enc, hx_error *err)
{
    int rc = session_model(s, p, m, err);
    if (rc)
        return rc;
    if (s->writer_enc && s->writer_model != *m) {   /* made for the other precision */
        hx_encoder_free(s->writer_enc);
        s->writer_enc = NULL;
    }
    if (!s->writer_enc && (rc = hx_encoder_new(&s->writer_enc, *m, s->threads, err)))
        return rc;
    s->writer_model = *m;
    *enc = s->writer_enc;
    return 0;
}

/* === Readers === */

/* hx_index_open for reading with the session's identity applied: the one way the session opens an
 * index to read, so no handle reads past the identity. The vectors' precision into *p. */
static int open_tier(hx_session *s, const char *path, hx_index **ix, hx_precision *p, hx_error *err)
{
    hx_index_stats st;
    int rc = hx_index_open(ix, path, HX_INDEX_READ, NULL, NULL, err);
    if (!rc && s->has_identity)
        rc = hx_index_set_identity(*ix, &s->identity, err);
    if (!rc)
        rc = hx_index_stats_get(*ix, &st, err);
    if (rc) {
        hx_index_close(*ix);
        *ix = NULL;
        return rc;
    }
    *p = st.precision;
    return 0;
}

int session_project(hx_session *s, const hx_read_context *ctx, hx_error *err)
{
    if (s->project) {
        int rc = hx_index_read_at(s->project, ctx, &s->project_taken, err);
        if (rc == 0 || rc == HX_ENOTFOUND || rc == HX_EINVAL)   /* no such commit: the reader is fine */
            return rc;
        hx_index_close(s->project);   /* replaced (compaction) or damaged: open afresh */
        s->project = NULL;
    }
    hx_error oerr = {0};
    int rc = open_tier(s, s->db, &s->project, &s->project_precision, &oerr);
    s->project_open_err = oerr;
    if (rc == HX_ENOTFOUND)
        return hx_error_set(err, rc, -1, "there is no index at %s yet", s->db);
    if (rc)
        return hx_error_set(err, rc, oerr.offset, "cannot open the index %s: %s", s->db, oerr.message);
    return hx_index_read_at(s->project, ctx, &s->project_taken, err);
}

int session_user(hx_session *s, const hx_read_context *ctx, char *why, size_t cap, hx_error *err)
{
    if (!s->user_db)
        return snprintf(why, cap, "%s", s->user_why), 0;
    hx_error terr = {0};
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!s->user_ix) {
            int rc = open_tier(s, s->user_db, &s->user_ix, &s->user_precision, &terr);
            if (rc == HX_ENOTFOUND)   /* missing, or no commit yet */
                return snprintf(why, cap, "no index at %s", s->user_db), 0;
            if (rc)
                break;
        }
        if (!hx_tier_read_at(s->user_ix, ctx, &s->user_taken, why, cap, &terr))
            return 0;
        hx_index_close(s->user_ix);   /* replaced (compaction by a sync) or damaged: open afresh */
        s->user_ix = NULL;
    }
    return hx_error_set(err, terr.code ? terr.code : HX_EIO, -1, "cannot read the user index %s: %s", s->user_db,
                        terr.message);
}

int session_enter(void *out, size_t size, bool given, const char *call, const char *needs, hx_error *err)
{
    if (out)
        memset(out, 0, size);
    return given ? 0 : hx_error_set(err, HX_EINVAL, -1, "%s needs %s", call, needs);
}

int session_guarded(hx_session *s, int (*fn)(hx_session *s, void *arg, hx_error *err), void *arg, hx_error *err)
{
    hx_fault_guard g;
    if (!HX_FAULT_GUARD(g)) {
        hx_index_close(s->project);
        hx_index_close(s->user_ix);
        s->project = s->user_ix = NULL;
        return hx_error_set(err, HX_ECHANGED, -1, "%s; it is reopened on the next call", HX_FAULT_MESSAGE);
    }
    int rc = fn(s, arg, err);
    hx_fault_leave(&g);
    return rc;
}

hx_stats *session_stats(hx_session *s)
{
    if (s->transport && !s->stats && hx_stats_open(&s->stats, s->db, s->has_identity ? &s->identity : NULL, 0, NULL))
        s->stats = NULL;   /* statistics never fail a call */
    return s->stats;
}

int session_doc(hx_index *ix, int64_t id, const char *path, hx_doc_info *d, hx_error *err)
{
    if (!path) {
        if (id < 0 || id > UINT32_MAX || hx_index_doc_by_id(ix, (uint32_t)id, d))
            return hx_error_set(err, HX_ENOTFOUND, -1, "no document with id %lld in the index", (long long)id);
        return 0;
    }
    char name[4096];
    int rc = hx_fs_target(hx_index_root(ix), path, HX_TARGET_NAME, name, sizeof name, err);
    if (rc)
        return rc;
    if (!*name)
        return hx_error_set(err, HX_EINVAL, -1, "path '%.200s' names the indexed root, not a document", path);
    if (hx_index_doc_by_path(ix, name, d))
        return hx_error_set(err, HX_ENOTFOUND, -1,
                            "no document with path '%.200s' in the index (paths are relative to the indexed root)", name);
    return 0;
}

/* === Activity === */

int hx_session_activity(hx_session *s, hx_activity *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && out, __func__, "a session and an answer", err);
    if (rc)
        return rc;
    return hx_stats_activity(s->stats, s->db, s->has_identity ? &s->identity : NULL, out, err);
}

/* === Status === */

/* One tier's state: its index read at its head, or why not. */
static void tier_state(hx_session *s, hx_tier_state *t, bool project)
{
    hx_error err = {0};
    int rc;
    if (project) {
        t->db = s->db;
        rc = session_project(s, NULL, &err);
    } else {
        t->db = s->user_db;
        rc = session_user(s, NULL, t->reason, sizeof t->reason, &err);
        if (!rc && t->reason[0])
            return;
    }
    hx_index *ix = project ? s->project : s->user_ix;
    if (rc && project && !ix)
        t->error = s->project_open_err;   /* `hyrax stats` says it as the reader did */
    else if (!rc && (rc = hx_index_stats_get(ix, &t->stats, &err)) == 0) {
        t->root = hx_index_root(ix);
        t->damage = hx_index_damage(ix);
    }
    if (rc) {
        snprintf(t->reason, sizeof t->reason, "%s", err.message);
        if (!t->error.code)
            t->error = err;
    }
    t->present = rc == 0;
}

static int status_run(hx_session *s, void *arg, hx_error *err)
{
    (void)err;
    hx_session_info *out = arg;
    tier_state(s, &out->project, true);
    tier_state(s, &out->user, false);
    return 0;
}

int hx_session_status(hx_session *s, hx_session_info *out, hx_error *err)
{
    if (!s || !out)
        return hx_error_set(err, HX_EINVAL, -1, "hx_session_status needs a session and an answer");
    memset(out, 0, sizeof *out);
    out->project.name = HX_TIER_PROJECT;
    out->user.name = HX_TIER_USER;
    int rc = session_guarded(s, status_run, out, err);
    out->precision = out->project.present ? out->project.stats.precision : s->new_precision;
    const hx_model *m = s->shared ? s->shared : s->models[out->precision];
    out->model_loaded = m != NULL;
    snprintf(out->model, sizeof out->model, "%s", m ? hx_model_name(m) : "");
    out->dim = m ? hx_model_dim(m) : 0;
    if (s->shared)
        out->precision = hx_model_precision(s->shared);
    out->registry = s->registry != NULL;
    out->read_only = s->read_only;
    out->identity = s->has_identity ? s->identity : (hx_identity){NULL, NULL};
    return rc;
}
