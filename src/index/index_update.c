/* index_update.c: deciding what changes: the incremental update from the file system (walk, gate,
 * touch, replace, folder metadata), documents from bytes (plain and signed) and removal by path
 * or folder. Each builds a change set and hands it to index_write.c, which commits it. */
#include "bytes.h"
#include "alloc.h"
#include "audit.h"
#include "chunker.h"
#include "kernels.h"
#include "model.h"
#include "fsafe.h"
#include "gate.h"
#include "ix.h"
#include "index_write.h"
#include "ingest.h"
#include "platform.h"
#include "relpath.h"
#include "sha256.h"
#include "wire.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* === Update from the file system === */

void hx_update_report_clear(hx_update_report *r)
{
    hxi_rejected_free(r->rejected, r->n_rejected);
    memset(r, 0, sizeof *r);
}

static int reject(hx_update_report *rep, const char *path, const char *reason, hx_error *err)
{
    return hxi_rejected_add(&rep->rejected, &rep->n_rejected, path, reason, false, err);
}

/* Records a document the gate, or the reading before it, rejected: in the report and in the
 * audit log this write commits. sha256 is "" when the bytes were not read; `gate` says the
 * gate's rule decided (the report then names the rule), else why is the reading's own message. */
static int gate_reject(hx_index *ix, change_set *cs, hx_update_report *rep, const char *path, const char *sha256,
                       const char *rule, const char *why, bool gate, hx_error *err)
{
    char line[1024];
    snprintf(line, sizeof line, "%.300s: refused by the validation gate (rule %s): %s", path, rule, why);
    int rc = reject(rep, path, gate ? line : why, err);
    if (!rc && !cs->log_read) {
        rc = ix_audit_read(ix->store, ix->v.audit_ref, &cs->log, err);
        cs->log_read = !rc;
    }
    return rc ? rc : ix_audit_add(&cs->audit, &cs->log, ix_now_ns(), path, sha256, rule, why, err);
}

static bool same_str(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* Whether a document keeps the trust the gate now gives its unchanged bytes; a changed policy
 * (tenant, owner, visibility) or signature rewrites the document. */
static bool same_trust(const hx_doc_trust *t, const ix_verdict *vd)
{
    return same_str(t->tenant, vd->trust.tenant) && same_str(t->owner, vd->trust.owner) &&
           same_str(t->signer, vd->signer) && t->visibility == vd->trust.visibility;
}

/* Reads, decodes and gates the file rel (read through `real`) into *src. Returns 0 with *passed
 * set when it may be queued; 0 with *passed false when it was rejected (recorded, and the
 * document `old` it would replace dropped: an index never keeps an older version of a document
 * whose current bytes fail); a negative code when the write must stop. */
static int load_gated(hx_index *ix, const ix_gate *gate, change_set *cs, const char *rel, const char *real,
                      size_t max_bytes, const ix_doc *old, hxi_doc_source *src, ix_verdict *vd, bool *passed,
                      hx_update_report *rep, hx_error *err)
{
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    int64_t mtime = 0;
    char sha[65] = "";
    hx_error load_err = {0};
    const char *rule = "read";
    *passed = false;
    memset(src, 0, sizeof *src);
    int lrc = hxi_ingest_read(ix->root, rel, real, max_bytes, &raw, &raw_len, &mtime, &load_err);
    if (lrc == HX_ERANGE)
        rule = "size";
    if (!lrc) {
        hxi_sha256_hex(raw, raw_len, sha);
        rule = "binary";
        if ((lrc = hxi_ingest_from_bytes(rel, raw, raw_len, NULL, 0, src, &load_err))) {
            char reason[sizeof load_err.message];
            memcpy(reason, load_err.message, sizeof reason);
            hx_error_set(&load_err, lrc, load_err.offset, "%s: %s", rel, reason);
        }
    }
    int rc = 0;
    if (lrc == HX_ENOMEM) {
        rc = hx_error_set(err, lrc, -1, "%s", load_err.message);
    } else if (lrc) {
        rc = gate_reject(ix, cs, rep, rel, sha, rule, load_err.message, false, err);
    } else {
        src->mtime_ns = mtime;
        if (!(rc = ix_gate_check(gate, src, raw, raw_len, NULL, 0, vd, err)) && vd->rule)
            rc = gate_reject(ix, cs, rep, rel, sha, vd->rule, vd->reason, true, err);
        *passed = !rc && !vd->rule;
        if (!*passed)
            hxi_doc_source_clear(src);
    }
    free(raw);
    if (!rc && !*passed && old)
        rc = ix_drop_doc(cs, old->info.id, err);
    return rc;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The start of every write: the clock for rep->seconds, an empty report, and a writer (with a
 * model when the write embeds). */
static int begin_write(hx_index *ix, bool embeds, struct timespec *t0, hx_update_report *rep, hx_error *err)
{
    clock_gettime(CLOCK_MONOTONIC, t0);
    memset(rep, 0, sizeof *rep);
    if (!ix->writer)
        return hx_error_set(err, HX_EPERM, -1, "the index is open read-only");
    if (embeds && !ix->model)
        return hx_error_set(err, HX_EINVAL, -1, "a model is needed to index documents");
    return 0;
}

static bool under(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    return n == 0 || (!strncmp(path, prefix, n) && (path[n] == 0 || path[n] == '/'));
}

/* Checks o's folder metadata list and puts it in cs when it differs from the view's. */
static int set_folder_meta(const ix_view *v, const hx_update_opts *o, change_set *cs, hx_error *err)
{
    if (o->n_folder_meta > IX_FOLDER_META_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "at most %d folder metadata files, not %zu", IX_FOLDER_META_MAX,
                            o->n_folder_meta);
    bool same = o->n_folder_meta == v->n_folder_meta;
    for (size_t i = 0; i < o->n_folder_meta; i++) {
        if (!ix_folder_meta_name_ok(o->folder_meta[i]))
            return hx_error_set(err, HX_EINVAL, -1, "folder metadata file '%.200s' is not a file name (no '/')",
                                o->folder_meta[i]);
        same = same && !strcmp(o->folder_meta[i], v->folder_meta[i]);
    }
    if (!same) {
        cs->folder_meta = o->folder_meta;
        cs->n_folder_meta = o->n_folder_meta;
    }
    return 0;
}

int hx_index_update(hx_index *ix, const char *const *paths, size_t n_paths,
                    const hx_update_opts *o, hx_update_report *rep, hx_error *err)
{
    struct timespec t0;
    int rc = begin_write(ix, true, &t0, rep, err);
    if (rc)
        return rc;
    size_t max_bytes = o->max_file_bytes ? o->max_file_bytes : HX_MAX_FILE_BYTES;
    hxi_file_list files = {0};
    change_set cs = {0};
    char (*targets)[HX_RELPATH_MAX] = hx_malloc(sizeof *targets * (n_paths ? n_paths : 1));
    const char **names = hx_malloc(sizeof *names * (n_paths ? n_paths : 1));
    rc = targets && names ? 0 : hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < n_paths && !rc; i++) {
        rc = hx_fs_target(ix->root, paths[i], HX_TARGET_NAME, targets[i], sizeof targets[i], err);
        names[i] = targets[i];
    }
    ix_gate *gate = NULL;
    if (!rc)
        rc = ix_gate_open(&gate, ix->root, err);
    if (!rc && o->folder_meta)
        rc = set_folder_meta(&ix->v, o, &cs, err);
    if (!rc)
        rc = hxi_ingest_walk(ix->root, names, n_paths, o->excludes, o->n_excludes, ix->path, &files, err);
    for (size_t i = 0; i < files.n_rejected && !rc; i++)
        rc = reject(rep, files.rejected[i].path, files.rejected[i].reason, err);
    for (size_t i = 0; i < files.n && !rc; i++) {
        const char *rel = files.paths[i], *real = hxi_file_list_real(&files, i);
        const ix_doc *old = ix_doc_by_path(&ix->v, rel);
        if (old && old->info.kind == HX_DOC_STORED) {   /* never compared with the disk */
            char why[PATH_MAX + 200];
            snprintf(why, sizeof why, "%s is the name of a stored document: the stored text is kept and the file "
                     "is left out (delete the stored document to index the file)", rel);
            rc = reject(rep, rel, why, err);
            continue;
        }
        if (ix_deleted_by_request(&ix->v, rel)) {   /* back only when this exact file is named */
            bool named = false;
            for (size_t t = 0; t < n_paths && !named; t++)
                named = !strcmp(targets[t], rel);
            if (!named) {
                rep->kept_out++;
                continue;
            }
            if ((rc = ix_push_path(&cs.lift, &cs.n_lift, &cs.cap_lift, rel, err)))
                break;
        }
        char abs[2 * PATH_MAX];
        struct stat st;
        snprintf(abs, sizeof abs, "%s/%s", ix->root, real);
        if (lstat(abs, &st) != 0)
            continue;   /* vanished since the walk */
        int64_t mtime = hxi_platform_mtime_ns(&st);
        if (old && !o->reindex && !ix_gate_has_policy(gate) && old->info.size == (uint64_t)st.st_size &&
            old->info.mtime_ns == mtime) {
            rep->unchanged++;
            continue;
        }
        hxi_doc_source src;
        ix_verdict vd;
        bool passed;
        if ((rc = load_gated(ix, gate, &cs, rel, real, max_bytes, old, &src, &vd, &passed, rep, err)) || !passed)
            continue;
        if (old && !o->reindex && !strcmp(old->info.sha256, src.sha256) && same_trust(&old->info.trust, &vd)) {
            hxi_doc_source_clear(&src);
            rep->unchanged++;
            if (old->info.mtime_ns == mtime)
                continue;   /* re-read for the gate (a policy), and nothing to write */
            if (!(rc = hx_grow((void **)&cs.touch, &cs.cap_touch, cs.n_touch + 1, sizeof *cs.touch, err))) {
                cs.touch[cs.n_touch].id = old->info.id;
                cs.touch[cs.n_touch++].mtime_ns = mtime;
            }
            continue;
        }
        if (old)
            rep->updated++;
        else
            rep->added++;
        rc = ix_queue_doc(ix, &cs, &src, &vd, HX_DOC_FILE, old, err);
    }
    /* indexed files under the targets that are gone (or now excluded or rejected); stored
     * documents have no file to miss */
    for (size_t i = 0; i < ix->v.n_docs && !rc; i++) {
        const hx_doc_info *d = &ix->v.docs[i].info;
        bool targeted = false;
        for (size_t t = 0; t < n_paths && !targeted; t++)
            targeted = under(d->path, targets[t]);
        if (targeted && d->kind == HX_DOC_FILE && !ix_sorted_has((const char *const *)files.paths, files.n, d->path) && !ix_is_dropped(&cs, d->id)) {
            rep->removed++;
            rc = ix_drop_doc(&cs, d->id, err);
        }
    }
    if (!rc)
        rc = ix_commit_changes(ix, &cs, o->encoder, o->commit_chunks, o->progress, o->progress_ctx, rep, err);
    ix_change_set_free(&cs);
    ix_gate_free(gate);
    hxi_file_list_clear(&files);
    free(targets);
    free(names);
    rep->seconds = seconds_since(&t0);
    return rc;
}

/* === Documents from bytes, removal === */

int hx_index_add_bytes(hx_index *ix, const char *name, const void *content, size_t len,
                       const hx_kv *meta, size_t n_meta, hx_encoder *enc, hx_progress_fn progress,
                       void *progress_ctx, uint32_t *doc_id, hx_update_report *rep, hx_error *err)
{
    return hx_index_add_signed(ix, name, content, len, NULL, 0, meta, n_meta, enc, progress, progress_ctx, doc_id,
                               rep, err);
}

int hx_index_add_signed(hx_index *ix, const char *name, const void *content, size_t len, const char *sig,
                        size_t sig_len, const hx_kv *meta, size_t n_meta, hx_encoder *enc, hx_progress_fn progress,
                        void *progress_ctx, uint32_t *doc_id, hx_update_report *rep, hx_error *err)
{
    struct timespec t0;
    int rc = begin_write(ix, true, &t0, rep, err);
    if (rc)
        return rc;
    char clean[HX_RELPATH_MAX];
    rc = hx_fs_target(ix->root, name, HX_TARGET_NAME, clean, sizeof clean, err);
    if (rc)
        return rc;
    if (!*clean)
        return hx_error_set(err, HX_EINVAL, -1, "'%.200s' names the indexed root, not a document: give a name "
                            "such as notes/x.md", name);
    if (ix_gate_is_signature_file(clean))
        return hx_error_set(err, HX_EINVAL, -1, "%.200s is the name of a signature or key file, which is never a "
                            "document (give the signature in the signature argument)", clean);
    const ix_doc *old = ix_doc_by_path(&ix->v, clean);
    if (old && old->hidden)   /* the reader's identity may not see it, so may not replace it either */
        return hx_error_set(err, HX_EPERM, -1, "the name %.200s is taken: store the text under another name", clean);
    if (old && old->info.kind == HX_DOC_FILE)
        return hx_error_set(err, HX_EPERM, -1, "%.200s is indexed from the file under the root; a stored document "
                            "cannot take its name (store the text under another name, or change the file and "
                            "index it)", clean);
    hxi_doc_source src;
    change_set cs = {0};
    ix_gate *gate = NULL;
    ix_verdict vd = {0};
    char sha[65];
    hxi_sha256_hex(content, len, sha);
    hx_error why = {0};
    int lrc = hxi_ingest_from_bytes(clean, content, len, meta, n_meta, &src, &why);
    if (lrc == HX_ENOMEM)
        return hx_error_set(err, lrc, -1, "%s", why.message);
    if ((rc = ix_gate_open(&gate, ix->root, err)))
        goto done;
    if (lrc)
        rc = gate_reject(ix, &cs, rep, clean, sha, "binary", why.message, false, err);
    else if (!(rc = ix_gate_check(gate, &src, content, len, sig, sig_len, &vd, err)) && vd.rule)
        rc = gate_reject(ix, &cs, rep, clean, sha, vd.rule, vd.reason, true, err);
    if (rc)
        goto done;
    if (lrc || vd.rule) {   /* recorded, and an older version of the document is not kept */
        if (!lrc)
            hxi_doc_source_clear(&src);
        if (old && !(rc = ix_drop_doc(&cs, old->info.id, err)))
            rep->removed++;
        if (!rc)
            rc = ix_commit_changes(ix, &cs, enc, 0, progress, progress_ctx, rep, err);
        if (!rc)
            rc = hx_error_set(err, HX_EINVAL, -1, "%.200s is not stored: %s%s", clean, rep->rejected[0].reason,
                              old ? " (its earlier version is removed)" : "");
        goto done;
    }
    /* a writer with an identity stores into its own tenant, and private documents as its own user */
    if (ix->has_identity && ((*vd.trust.tenant && strcmp(vd.trust.tenant, ix->identity.tenant)) ||
                             (vd.trust.visibility == HX_VIS_PRIVATE && strcmp(vd.trust.owner, ix->identity.user)))) {
        hxi_doc_source_clear(&src);
        rc = hx_error_set(err, HX_EPERM, -1, "%.200s: a writer of tenant '%.128s'%s%.128s can store documents of its own "
                          "tenant only, private ones as its own user", clean, ix->identity.tenant,
                          *ix->identity.user ? " and user " : "", ix->identity.user);
        goto done;
    }
    src.mtime_ns = ix_now_ns();
    if (old)
        rep->updated++;
    else
        rep->added++;
    rc = ix_queue_doc(ix, &cs, &src, &vd, HX_DOC_STORED, old, err);
    if (!rc)
        rc = ix_commit_changes(ix, &cs, enc, 0, progress, progress_ctx, rep, err);
    if (!rc) {
        const ix_doc *d = ix_doc_by_path(&ix->v, clean);
        *doc_id = d ? d->info.id : 0;
    }
done:
    if (rc && !lrc && !vd.rule && !gate)
        hxi_doc_source_clear(&src);
    ix_gate_free(gate);
    ix_change_set_free(&cs);
    rep->seconds = seconds_since(&t0);
    return rc;
}

/* The documents a cleaned, non-empty name covers, as [*lo, *hi) of the view's path-sorted table:
 * the document of that name (returns true), else those under the folder "name/", which sort
 * together (returns false; the range may be empty). */
static bool name_range(const ix_view *v, const char *name, size_t *lo, size_t *hi)
{
    const ix_doc *d = ix_doc_by_path(v, name);
    if (d) {
        *lo = (size_t)(d - v->docs);
        *hi = *lo + 1;
        return true;
    }
    size_t a = 0, b = v->n_docs, n = strlen(name);
    while (a < b) {   /* first path not below name + "/" */
        size_t mid = (a + b) / 2;
        const char *p = v->docs[mid].info.path;
        int c = strncmp(p, name, n);
        if (c < 0 || (c == 0 && (unsigned char)p[n] < '/'))
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    while (a < v->n_docs && !strncmp(v->docs[a].info.path, name, n) && v->docs[a].info.path[n] == '/')
        a++;
    *hi = a;
    return false;
}

int hx_index_remove(hx_index *ix, const char *const *paths, size_t n_paths, unsigned flags,
                    hx_update_report *rep, hx_error *err)
{
    struct timespec t0;
    int rc = begin_write(ix, false, &t0, rep, err);
    if (rc)
        return rc;
    const ix_view *v = &ix->v;
    change_set cs = {0};
    char clean[HX_RELPATH_MAX];
    for (size_t p = 0; p < n_paths && !rc; p++) {
        if ((rc = hx_relpath_clean(paths[p], clean, sizeof clean, err)))
            break;
        if (!*clean) {
            rc = hx_error_set(err, HX_EINVAL, -1, "'%.200s' names the indexed root, not a document", paths[p]);
            break;
        }
        size_t lo, hi;
        bool exact = name_range(v, clean, &lo, &hi);
        size_t seen = 0;   /* what the handle's identity sees of it: the others are not there for it */
        for (size_t i = lo; i < hi; i++)
            seen += !v->docs[i].hidden;
        if (!seen) {
            rc = hx_error_set(err, HX_ENOTFOUND, -1, "no document named %.200s in the index (names are relative to "
                              "the indexed root)", clean);
        } else if (!exact && !(flags & HX_REMOVE_FOLDERS)) {
            rc = hx_error_set(err, HX_EINVAL, -1, "%.200s is a folder of %zu documents, not a document: name each "
                              "document (hyrax rm removes folders)", clean, seen);
        }
        for (size_t i = lo; i < hi && !rc; i++) {
            const hx_doc_info *d = &v->docs[i].info;
            if (ix_is_dropped(&cs, d->id) || v->docs[i].hidden)
                continue;   /* named twice, or not the reader's to see */
            rep->removed++;
            rc = ix_drop_doc(&cs, d->id, err);
            if (!rc && d->kind == HX_DOC_FILE)   /* its file would come back on the next update */
                rc = ix_push_path(&cs.remember, &cs.n_remember, &cs.cap_remember, d->path, err);
        }
    }
    if (!rc)
        rc = ix_commit_changes(ix, &cs, NULL, 0, NULL, NULL, rep, err);
    ix_change_set_free(&cs);
    rep->seconds = seconds_since(&t0);
    return rc;
}
