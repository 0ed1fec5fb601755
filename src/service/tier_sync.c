/* tier_sync.c: `hyrax sync --to user` (hyrax.h hx_tier_sync; `hyrax help tiers`; seed 000's flow
 * from a project up to the user tier): picks the project's documents under the names given,
 * re-reads each file from disk under the project root (fsafe.h, no symlink followed) and stores
 * it in the user index through hx_index_add_bytes, the write path every document takes, so the
 * checks of that path apply again. Reads the project index, writes only the user index. */
#include "alloc.h"
#include "fsafe.h"
#include "ingest.h"
#include "relpath.h"
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the document path is name itself or lies under the folder name ("" is the root). */
static bool covers(const char *name, const char *path)
{
    size_t n = strlen(name);
    return !n || (!strncmp(path, name, n) && (!path[n] || path[n] == '/'));
}

/* Appends "path: reason" to rep->rejected. */
static int add_rejected(hx_update_report *rep, const char *path, const char *reason, hx_error *err)
{
    return hxi_rejected_add(&rep->rejected, &rep->n_rejected, path, reason, true, err);
}

typedef struct {
    hx_progress_fn fn;
    void *ctx;
    size_t done, total;   /* chunks of the documents stored before the one at hand */
} sync_progress;

static int sync_progress_fn(void *ctx, size_t done, size_t total, const char *path)
{
    sync_progress *p = ctx;
    return p->fn ? p->fn(p->ctx, p->done + done, p->total + total, path) : 0;
}

/* Stores one project document in the user index unless the user index holds these bytes under
 * that name already. Failures of the document itself go to rep->rejected; the call fails only
 * for what stops the whole sync (memory, I/O of the user index, cancel). */
static int sync_one(hx_index *from, hx_index *to, const hx_doc_info *d, const char *base, hx_encoder *enc,
                    sync_progress *prog, hx_update_report *rep, hx_error *err)
{
    char name[HX_RELPATH_MAX], sha[65];
    if ((size_t)snprintf(name, sizeof name, "%s/%s", base, d->path) >= sizeof name)
        return add_rejected(rep, d->path, "its name in the user index is too long", err);
    if (d->kind == HX_DOC_STORED)
        return add_rejected(rep, d->path, "a stored document has no file to read again", err);
    if (d->trust.visibility != HX_VIS_PUBLIC)   /* its tenant would not travel with the bytes */
        return add_rejected(rep, d->path, "it is visible to its tenant or owner only, and the user tier has no "
                            "tenants: sync copies public documents", err);
    char *buf = NULL;
    size_t len = 0;
    hx_error ferr = {0};
    int rc = hxi_fs_read_under(hx_index_root(from), d->path, HX_MAX_FILE_BYTES, &buf, &len, NULL, &ferr);
    if (rc == HX_ENOMEM)
        return hx_error_set(err, rc, -1, "%s", ferr.message);
    if (rc)
        return add_rejected(rep, d->path, ferr.message, err);
    hxi_sha256_hex(buf, len, sha);
    hx_doc_info have;
    if (hx_index_doc_by_path(to, name, &have) == 0 && have.kind == HX_DOC_STORED && !strcmp(have.sha256, sha)) {
        rep->unchanged++;
        free(buf);
        return 0;
    }
    const hx_kv meta[] = {{(char *)HX_SYNC_META_ROOT, (char *)hx_index_root(from)},
                          {(char *)HX_SYNC_META_PATH, (char *)d->path},
                          {(char *)HX_SYNC_META_SHA256, sha}};
    hx_update_report one = {0};
    uint32_t id;
    rc = hx_index_add_bytes(to, name, buf, len, meta, sizeof meta / sizeof meta[0], enc, sync_progress_fn, prog, &id,
                            &one, &ferr);
    free(buf);
    if (rc == HX_ENOMEM || rc == HX_EIO || rc == HX_ECANCELED || rc == HX_EBUSY) {
        hx_update_report_clear(&one);
        return hx_error_set(err, rc, -1, "%s", ferr.message);
    }
    if (rc)
        rc = add_rejected(rep, d->path, ferr.message, err);
    rep->added += one.added;
    rep->updated += one.updated;
    rep->chunks_added += one.chunks_added;
    rep->chunks_removed += one.chunks_removed;
    rep->chunks_embedded += one.chunks_embedded;
    rep->chunks_reused += one.chunks_reused;
    prog->done += one.chunks_added;
    prog->total += one.chunks_added;
    if (one.generation)
        rep->generation = one.generation;
    if (one.warning[0])
        memcpy(rep->warning, one.warning, sizeof rep->warning);
    for (size_t i = 0; i < one.n_rejected && !rc; i++)
        rc = add_rejected(rep, d->path, one.rejected[i].reason, err);
    hx_update_report_clear(&one);
    return rc;
}

int hx_tier_sync(hx_index *from, hx_index *to, const char *const *names, size_t n, hx_encoder *enc,
                 hx_progress_fn progress, void *progress_ctx, hx_update_report *rep, hx_error *err)
{
    memset(rep, 0, sizeof *rep);
    char (*clean)[HX_RELPATH_MAX] = hx_calloc(n ? n : 1, sizeof *clean);
    if (!clean)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {   /* every name first: a bad one changes nothing */
        rc = hx_fs_target(hx_index_root(from), names[i], HX_TARGET_NAME, clean[i], sizeof clean[i], err);
        bool any = false;
        for (size_t d = 0; !rc && !any && d < hx_index_doc_count(from); d++) {
            hx_doc_info info;
            any = hx_index_doc_at(from, d, &info) == 0 && covers(clean[i], info.path);
        }
        if (!rc && !any)
            rc = hx_error_set(err, HX_ENOTFOUND, -1, "'%.200s' names no document of the project index (index it "
                              "first)", clean[i]);
    }
    const char *root = hx_index_root(from), *slash = strrchr(root, '/');
    const char *base = slash && slash[1] ? slash + 1 : "root";   /* the project's folder name */
    sync_progress prog = {progress, progress_ctx, 0, 0};
    for (size_t d = 0; !rc && d < hx_index_doc_count(from); d++) {
        hx_doc_info info;
        bool wanted = false;
        for (size_t i = 0; i < n && !wanted; i++)
            wanted = hx_index_doc_at(from, d, &info) == 0 && covers(clean[i], info.path);
        if (wanted)
            rc = sync_one(from, to, &info, base, enc, &prog, rep, err);
    }
    free(clean);
    if (rc == HX_ECANCELED)   /* each document committed on its own: those before the stop stay */
        rc = hx_error_set(err, rc, -1, "sync canceled: the %zu documents added or updated before it stay in the user "
                          "index; running the same command again syncs only the rest", rep->added + rep->updated);
    return rc;
}
