/* session_write.c: the session's writes to the project index (hyrax.h "Session writes"): the writer
 * opened for one call with the session's identity and the index's precision (or the configured one
 * for a new index) and closed after it, so other processes may write between calls; names checked
 * by hx_fs_target (the one confinement rule), root-relative or as a command line gives them
 * (hx_write_opts.cwd_paths); the copy up to the user index (sync). The writing itself is
 * index_write.c's and tier_sync.c's. */
#include "session_internal.h"

#include "alloc.h"
#include "fsafe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void hx_session_write_clear(hx_session_write *w)
{
    if (!w)
        return;
    hx_update_report_clear(&w->report);
    memset(w, 0, sizeof *w);
}

/* Opens the writer and, when the write embeds, the writing encoder (cfg threads) at the index's
 * precision; a write that embeds nothing opens an existing index without a model. */
static int open_writer(hx_session *s, bool embeds, hx_index **ix, hx_encoder **enc, hx_error *err)
{
    if (s->read_only)
        return hx_error_set(err, HX_EPERM, -1, "the session is read-only: it makes no writes");
    hx_precision p = s->new_precision;
    hx_error perr = {0};
    int rc = hx_index_precision(s->db, &p, &perr);
    if (rc && rc != HX_ENOTFOUND)
        return hx_error_set(err, rc, -1, "cannot open %s for writing: %s", s->db, perr.message);
    if (rc && !s->root)
        return hx_error_set(err, HX_ENOTFOUND, -1, "there is no index at %s and the session names no root to make one",
                            s->db);
    const hx_model *m = NULL;
    if (embeds && (rc = session_writer_encoder(s, p, &m, enc, err)))
        return rc;
    hx_error oerr = {0};
    rc = hx_index_open(ix, s->db, embeds ? HX_INDEX_WRITE | HX_INDEX_CREATE : HX_INDEX_WRITE, m, s->root, &oerr);
    if (!rc && s->has_identity)
        rc = hx_index_set_identity(*ix, &s->identity, &oerr);
    if (rc) {
        hx_index_close(*ix);
        *ix = NULL;
        if (rc == HX_EBUSY)
            return hx_error_set(err, rc, -1, "another process is writing to %s; try again when it is done", s->db);
        return hx_error_set(err, rc, oerr.offset, "cannot open %s for writing: %s", s->db, oerr.message);
    }
    return 0;
}

/* The head and the counts after a write, and the writer closed. */
static void close_writer(hx_index *ix, hx_session_write *out)
{
    if (out && !hx_index_stats_get(ix, &out->stats, NULL)) {
        out->commit = (hx_commit_info){out->stats.generation, out->stats.committed_ns, ""};
        snprintf(out->root, sizeof out->root, "%s", hx_index_root(ix));
    }
    hx_index_close(ix);
}

/* The clean root-relative name of a path as a command line gives it (hx_write_opts.cwd_paths):
 * a path on disk relative to the current folder, or with loose, when nothing is there (or it lies
 * outside), a root-relative name. The message is hx_fs_target's own. */
static int cwd_name(const hx_index *ix, const char *in, bool loose, char *out, size_t cap, hx_error *err)
{
    struct stat st;
    int how = !loose || in[0] == '/' || lstat(in, &st) == 0 ? HX_TARGET_CWD : HX_TARGET_NAME;
    int rc = hx_fs_target(hx_index_root(ix), in, how, out, cap, err);
    if (rc == HX_EPERM && loose && how == HX_TARGET_CWD && in[0] != '/')
        rc = hx_fs_target(hx_index_root(ix), in, HX_TARGET_NAME, out, cap, err);
    return rc;
}

/* The clean root-relative name of a caller's path (root-relative, or absolute inside root). */
static int clean_name(const hx_index *ix, const char *what, const char *in, char *out, size_t cap, hx_error *err)
{
    hx_error ferr = {0};
    int rc = hx_fs_target(hx_index_root(ix), in, HX_TARGET_NAME, out, cap, &ferr);
    return rc ? hx_error_set(err, rc, -1, "%s: %s", what, ferr.message) : 0;
}

int hx_session_add(hx_session *s, const hx_add_doc *d, const hx_write_opts *wo, hx_session_write *out,
                   hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && d && out, __func__, "a session, a document and an answer", err);
    if (rc)
        return rc;
    if (!d->path == !d->content)
        return hx_error_set(err, HX_EINVAL, -1, "give either a path (a file under the indexed root) or content "
                            "with a name");
    if (d->content && (!d->name || !*d->name))
        return hx_error_set(err, HX_EINVAL, -1, "content needs a name, the root-relative name to store it under");
    if (d->path && (d->name || d->n_meta || d->sig))
        return hx_error_set(err, HX_EINVAL, -1, "a name, metadata and a signature go with content; for a path the "
                            "file's own metadata and signature file are used");
    if (d->n_meta && !d->meta)
        return hx_error_set(err, HX_EINVAL, -1, "n_meta is %zu and meta is NULL", d->n_meta);
    hx_index *ix = NULL;
    hx_encoder *enc = NULL;
    rc = open_writer(s, true, &ix, &enc, err);
    if (rc)
        return rc;
    hx_progress_fn progress = wo ? wo->progress : NULL;
    void *pctx = wo ? wo->progress_ctx : NULL;
    rc = clean_name(ix, d->path ? "path" : "name", d->path ? d->path : d->name, out->path, sizeof out->path, err);
    if (!rc && !out->path[0])
        rc = hx_error_set(err, HX_EINVAL, -1, "'%s' names the indexed root, not a document",
                          d->path ? d->path : d->name);
    if (!rc && d->path) {
        char abs[2 * 4096];
        struct stat st;
        snprintf(abs, sizeof abs, "%s/%s", hx_index_root(ix), out->path);
        if (stat(abs, &st) == 0 && S_ISDIR(st.st_mode))
            rc = hx_error_set(err, HX_EINVAL, -1, "'%.200s' is a folder; add takes one file (reindex takes folders)",
                              out->path);
    }
    if (!rc && d->path) {
        const char *targets[] = {out->path};
        hx_update_opts o = {.encoder = enc, .progress = progress, .progress_ctx = pctx};
        rc = hx_index_update(ix, targets, 1, &o, &out->report, err);
        if (!rc && out->report.n_rejected)
            rc = hx_error_set(err, HX_EINVAL, -1, "%.200s was not indexed: %s", out->path,
                              out->report.rejected[0].reason);
    } else if (!rc) {
        uint32_t id;
        rc = hx_index_add_signed(ix, out->path, d->content, d->len, d->sig, d->sig ? d->sig_len : 0, d->meta,
                                 d->n_meta, enc, progress, pctx, &id, &out->report, err);
    }
    hx_doc_info info;
    if (!rc && hx_index_doc_by_path(ix, out->path, &info))
        rc = hx_error_set(err, HX_EINVAL, -1, "%.200s is not a file hyrax can index", out->path);
    if (!rc) {
        out->doc_id = info.id;
        out->kind = info.kind;
    }
    close_writer(ix, out);
    return rc;
}

int hx_session_delete(hx_session *s, int64_t id, const char *path, hx_session_write *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && out, __func__, "a session and an answer", err);
    if (rc)
        return rc;
    if (!path && id < 0)
        return hx_error_set(err, HX_EINVAL, -1, "give a document id or a path");
    hx_index *ix = NULL;
    rc = open_writer(s, false, &ix, NULL, err);
    if (rc)
        return rc;
    hx_doc_info d = {0};   /* by path: found, or else the removal fails and says why */
    if (!path) {
        if (!(rc = session_doc(ix, id, NULL, &d, err)))
            snprintf(out->path, sizeof out->path, "%s", d.path);   /* d borrows the view the removal replaces */
    } else if (!(rc = clean_name(ix, "path", path, out->path, sizeof out->path, err))) {
        hx_index_doc_by_path(ix, out->path, &d);
    }
    out->doc_id = d.id;
    out->kind = d.kind;
    const char *names[] = {out->path};
    if (!rc)
        rc = hx_index_remove(ix, names, 1, HX_REMOVE_EXACT, &out->report, err);
    close_writer(ix, out);
    return rc;
}

int hx_session_delete_paths(hx_session *s, const char *const *paths, size_t n, const hx_write_opts *wo,
                            hx_session_write *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && out && n && paths, __func__, "a session, an answer and paths", err);
    if (rc)
        return rc;
    hx_index *ix = NULL;
    rc = open_writer(s, false, &ix, NULL, err);
    if (rc)
        return rc;
    char (*names)[4096] = hx_calloc(n, sizeof *names);
    const char **targets = hx_calloc(n, sizeof *targets);
    if (!names || !targets)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        rc = wo && wo->cwd_paths ? cwd_name(ix, paths[i], true, names[i], sizeof names[i], err)
                                 : clean_name(ix, "paths", paths[i], names[i], sizeof names[i], err);
        if (!rc && !names[i][0])
            rc = hx_error_set(err, HX_EINVAL, -1, "'%.200s' names the indexed root, not a document", paths[i]);
        targets[i] = names[i];
    }
    if (!rc)
        rc = hx_index_remove(ix, targets, n, HX_REMOVE_FOLDERS, &out->report, err);
    close_writer(ix, out);
    free(names);
    free(targets);
    return rc;
}

/* A first write with paths as a command line gives them (no index yet): every path must exist and
 * lie inside the root, checked before anything is created; then the index file's folder is made. */
static int first_write(hx_session *s, const hx_reindex_opts *o, hx_error *err)
{
    hx_precision p;
    if (s->read_only || !s->root || hx_index_precision(s->db, &p, NULL) != HX_ENOTFOUND)
        return 0;
    char name[4096];
    struct stat st;
    for (size_t i = 0; i < o->n_paths; i++) {
        hx_error ferr = {0};
        if (lstat(o->paths[i], &st) != 0)
            return hx_error_set(err, HX_ENOTFOUND, -1, "%.200s: %s; no index created", o->paths[i], strerror(errno));
        int rc = hx_fs_target(s->root, o->paths[i], HX_TARGET_CWD, name, sizeof name, &ferr);
        if (rc)
            return hx_error_set(err, rc, -1, "%s; no index created", ferr.message);
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", s->db);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return hx_error_set(err, HX_EIO, -1, "cannot create %.200s: %s", dir, strerror(errno));
    }
    return 0;
}

int hx_session_reindex(hx_session *s, const hx_reindex_opts *o, const hx_write_opts *wo, hx_session_write *out,
                       hx_error *err)
{
    int rc = session_enter(out, sizeof *out,
                           s && o && out && (!o->n_paths || o->paths) && (!o->n_excludes || o->excludes) &&
                               (!o->n_folder_meta || o->folder_meta),
                           __func__, "a session, options, an answer, and their lists", err);
    if (rc)
        return rc;
    bool cwd = wo && wo->cwd_paths;
    size_t n = o->n_paths;
    hx_index *ix = NULL;
    hx_encoder *enc;
    rc = cwd ? first_write(s, o, err) : 0;
    if (rc || (rc = open_writer(s, true, &ix, &enc, err)))
        return rc;
    char (*names)[4096] = n ? hx_calloc(n, sizeof *names) : NULL;
    const char **targets = hx_calloc(n ? n : 1, sizeof *targets);
    if ((n && !names) || !targets)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    else if (!n)
        targets[0] = "";   /* no path: the whole root */
    for (size_t i = 0; !rc && i < n; i++) {
        rc = cwd ? cwd_name(ix, o->paths[i], false, names[i], sizeof names[i], err)
                 : clean_name(ix, "paths", o->paths[i], names[i], sizeof names[i], err);
        targets[i] = names[i];
    }
    hx_update_opts uo = {.excludes = o->excludes, .n_excludes = o->n_excludes, .max_file_bytes = o->max_file_bytes,
                         .reindex = o->force, .encoder = enc, .progress = wo ? wo->progress : NULL,
                         .progress_ctx = wo ? wo->progress_ctx : NULL, .folder_meta = o->folder_meta,
                         .n_folder_meta = o->n_folder_meta, .commit_chunks = o->commit_chunks};
    if (!rc) {
        rc = hx_index_update(ix, targets, n ? n : 1, &uo, &out->report, err);
        hx_stats *st = session_stats(s);
        if (st)
            hx_stats_note_update(st, rc ? NULL : &out->report, rc ? err->message : NULL, 0);
    }
    hx_error cerr = {0};
    if (!rc && o->compact && hx_index_compact(ix, &cerr))
        rc = hx_error_set(err, cerr.code, cerr.offset, "compaction failed: %s", cerr.message);
    close_writer(ix, out);
    free(names);
    free(targets);
    return rc;
}

/* Makes the folders on the way to the file `path` (mkdir -p of its folder). */
static int make_parents(const char *path, hx_error *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return hx_error_set(err, HX_EIO, -1, "cannot create %.200s: %s", dir, strerror(errno));
        *p = '/';
    }
    return 0;
}

/* The user index opened for writing (made when missing, its root its folder) at precision p. */
static int open_user_writer(hx_session *s, const hx_model *m, hx_index **ix, hx_error *err)
{
    char user_root[4096], resolved[4096];
    char *slash = strrchr(s->user_db, '/');
    snprintf(user_root, sizeof user_root, "%.*s", slash ? (int)(slash - s->user_db) : 1, slash ? s->user_db : ".");
    int rc = make_parents(s->user_db, err);
    if (rc)
        return rc;
    if (!realpath(*user_root ? user_root : "/", resolved))
        return hx_error_set(err, HX_EIO, -1, "cannot resolve %.200s: %s", user_root, strerror(errno));
    return hx_index_open(ix, s->user_db, HX_INDEX_WRITE | HX_INDEX_CREATE, m, resolved, err);
}

int hx_session_sync(hx_session *s, const char *const *paths, size_t n, const hx_write_opts *wo,
                    hx_session_write *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && out && (!n || paths), __func__, "a session, an answer and its paths", err);
    if (rc)
        return rc;
    if (s->read_only)
        return hx_error_set(err, HX_EPERM, -1, "the session is read-only: it makes no writes");
    if (!s->user_db)
        return hx_error_set(err, HX_ENOTFOUND, -1, "%s", s->user_why);
    hx_precision p, theirs;
    rc = hx_index_precision(s->db, &p, err);
    if (rc)
        return rc;
    int found = hx_index_precision(s->user_db, &theirs, err);
    if (found && found != HX_ENOTFOUND)
        return found;
    if (!found && theirs != p)
        return hx_error_set(err, HX_EINVAL, -1, "the user index %.200s holds %s vectors and the project index %s: one "
                            "query vector serves both, so their precisions must match", s->user_db,
                            hx_precision_name(theirs), hx_precision_name(p));
    const hx_model *m;
    hx_encoder *enc;
    hx_index *proj = NULL, *user = NULL;
    if ((rc = session_writer_encoder(s, p, &m, &enc, err)) || (rc = hx_index_open(&proj, s->db, HX_INDEX_READ, m, NULL, err)))
        return rc;
    char (*names)[4096] = hx_calloc(n ? n : 1, sizeof *names);
    const char **targets = hx_calloc(n ? n : 1, sizeof *targets);
    if (!names || !targets)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    else if (!n)
        targets[0] = "";   /* no path: every document */
    for (size_t i = 0; !rc && i < n; i++) {
        rc = wo && wo->cwd_paths ? cwd_name(proj, paths[i], false, names[i], sizeof names[i], err)
                                 : clean_name(proj, "paths", paths[i], names[i], sizeof names[i], err);
        targets[i] = names[i];
    }
    if (!rc && !(rc = open_user_writer(s, m, &user, err)))
        rc = hx_tier_sync(proj, user, targets, n ? n : 1, enc, wo ? wo->progress : NULL, wo ? wo->progress_ctx : NULL,
                          &out->report, err);
    if (user)
        close_writer(user, out);
    if (s->user_ix) {   /* the user tier's reader picks up the copy on its next read */
        hx_index_close(s->user_ix);
        s->user_ix = NULL;
    }
    hx_index_close(proj);
    free(names);
    free(targets);
    return rc;
}

int hx_session_baseline(hx_session *s, const char *name, hx_commit_info *made, hx_error *err)
{
    if (!s || !name)
        return hx_error_set(err, HX_EINVAL, -1, "hx_session_baseline needs a session and a name");
    hx_index *ix = NULL;
    hx_encoder *enc;
    int rc = open_writer(s, true, &ix, &enc, err);
    if (rc)
        return rc;
    rc = hx_index_baseline(ix, name, made, err);
    hx_index_close(ix);
    return rc;
}
