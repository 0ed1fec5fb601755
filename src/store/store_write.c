/* store_write.c: the one writer of the index file specified in store.h: append blobs, commit a
 * generation (record, sync, then the meta slot: the single commit point), abort, and compaction
 * into a fresh file renamed over the old one. Opening, validation and reading are store.c's. */
#include "store_internal.h"
#include "alloc.h"
#include "bytes.h"
#include "crc32c.h"
#include "platform.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* === Writing === */

/* Records a failure as the transaction's sticky error (code and message) and, when err is not
 * NULL, reports it there too; returns code. Every failure of a write goes through here. */
static int stick(hxi_store *w, hx_error *err, int code, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int stick(hxi_store *w, hx_error *err, int code, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->error_msg, sizeof w->error_msg, fmt, ap);
    va_end(ap);
    w->error = code;
    return err ? hx_error_set(err, code, offset, "%s", w->error_msg) : code;
}

/* stick() for a failed system call: the message names the file and errno. */
static int fail(hxi_store *w, hx_error *err, int code, const char *what)
{
    return stick(w, err, code, -1, "%s %s: %s", what, w->path, strerror(errno));
}

static int writable(hxi_store *w, hx_error *err)
{
    if (!w->writer)
        return hx_error_set(err, HX_EPERM, -1, "%s is open read-only", w->path);
    if (w->error)
        return hx_error_set(err, w->error, -1, "earlier failure in this transaction: %s", w->error_msg);
    return 0;
}

int hxi_store_append(hxi_store *w, const void *data, size_t len, hxi_store_ref *ref, hx_error *err)
{
    int rc = writable(w, err);
    if (rc)
        return rc;
    uint64_t off = st_align_up(w->pos);
    if (off < w->pos || (uint64_t)len > (uint64_t)INT64_MAX - off)
        return stick(w, err, HX_ERANGE, (int64_t)off, "file would exceed the largest file size");
    if (w->n_blobs >= MAX_BLOBS_PER_COMMIT ||
        hx_grow((void **)&w->table, &w->cap_blobs, w->n_blobs + 1, TABLE_ENTRY, NULL))
        return stick(w, err, HX_ENOMEM, -1, "out of memory (or over %u blobs in one commit)", MAX_BLOBS_PER_COMMIT);
    if (len && st_pwrite_all(w->fd, data, len, off) != 0)
        return fail(w, err, HX_EIO, "cannot write to");
    ref->offset = off;
    ref->length = len;
    ref->crc32c = len ? st_blob_crc32c(data, len) : 0;
    uint8_t *e = w->table + w->n_blobs * TABLE_ENTRY;
    hxi_store_ref_put(e, *ref);
    hxf_put32(e + 20, 0);
    w->n_blobs++;
    w->pos = off + len;
    return 0;
}

/* Commits the transaction as generation `gen` at time `ts` (hxi_store_commit, hxi_store_commit_copy). */
static int commit_as(hxi_store *w, const void *root, size_t len, const char *name, uint64_t gen, int64_t ts,
                     hx_error *err)
{
    int rc = writable(w, err);
    if (rc)
        return rc;
    size_t name_len = name ? strlen(name) : 0;
    if (name_len > HX_STORE_NAME_MAX || (uint64_t)len > MAX_ROOT || (len && !root))
        return hx_error_set(err, HX_EINVAL, -1, "commit name over %d bytes or root over 1 TiB",
                            HX_STORE_NAME_MAX);
    uint64_t padded = ((uint64_t)len + 7) & ~(uint64_t)7;
    uint64_t rec_len = RECORD_HEAD + padded + (uint64_t)w->n_blobs * TABLE_ENTRY;
    uint64_t off = st_align_up(w->pos);
    if (rec_len > SIZE_MAX || rec_len > (uint64_t)INT64_MAX - off)
        return hx_error_set(err, HX_ERANGE, -1, "commit record too large");
    uint8_t *rec = hx_calloc(1, (size_t)rec_len);
    if (!rec)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for a %llu-byte commit record",
                            (unsigned long long)rec_len);
    meta m = {gen, ts, {off, rec_len, 0}, off + rec_len};
    memcpy(rec, st_record_magic, 8);
    hxf_put64(rec + 8, m.gen);
    hxf_put64(rec + 16, (uint64_t)m.ts);
    if (w->v.m.rec.offset) {
        hxi_store_ref_put(rec + 24, w->v.m.rec);
    }
    hxf_put32(rec + 44, (uint32_t)w->n_blobs);
    hxf_put64(rec + 48, (uint64_t)len);
    rec[56] = (uint8_t)name_len;
    if (name_len)
        memcpy(rec + 64, name, name_len);
    if (len)
        memcpy(rec + RECORD_HEAD, root, len);
    if (w->n_blobs)
        memcpy(rec + RECORD_HEAD + padded, w->table, w->n_blobs * TABLE_ENTRY);
    m.rec.crc32c = hxf_crc32c(0, rec, (size_t)rec_len);
    if (st_pwrite_all(w->fd, rec, (size_t)rec_len, off) != 0 || hxi_platform_datasync(w->fd) != 0) {
        rc = fail(w, err, HX_EIO, "cannot write the commit record to");
        free(rec);
        return rc;
    }
    free(rec);

    /* The single commit point: the slot not holding the current generation. */
    uint8_t slot[SLOT_SIZE];
    int target = 1 - w->v.slot;
    st_slot_encode(slot, &m);
    if (st_pwrite_all(w->fd, slot, SLOT_SIZE, (uint64_t)HX_STORE_PAGE * (uint64_t)(1 + target)) != 0 ||
        hxi_platform_datasync(w->fd) != 0) {
        w->fatal = true;
        return fail(w, err, HX_EIO, "cannot write the meta slot of");
    }
    view nv;
    rc = st_view_load(w->fd, &m, target, &nv, err);
    if (rc) {
        w->fatal = true;
        return stick(w, NULL, rc, -1, "generation %llu is committed but could not be mapped; reopen the file",
                     (unsigned long long)m.gen);
    }
    st_view_drop(&w->v);
    w->v = nv;
    w->pos = m.committed;
    w->n_blobs = 0;
    return 0;
}

int hxi_store_commit(hxi_store *w, const void *root, size_t len, const char *name, hx_error *err)
{
    if (w->v.m.gen == UINT64_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "%s has used up its generation numbers", w->path);
    uint64_t gen = w->v.m.gen + 1;
    return commit_as(w, root, len, name, gen < w->compact_head ? w->compact_head : gen, st_now_ns(), err);
}

int hxi_store_commit_copy(hxi_store *c, const void *root, size_t len, const hxi_store_info *as, hx_error *err)
{
    if (!c->compact_tmp || as->generation <= c->v.m.gen || as->generation >= c->compact_head)
        return hx_error_set(err, HX_EINVAL, -1, "a copied commit goes into a compaction file, oldest first, below "
                            "its head (generation %llu after %llu)", (unsigned long long)as->generation,
                            (unsigned long long)c->v.m.gen);
    return commit_as(c, root, len, as->name, as->generation, as->timestamp_ns, err);
}

int hxi_store_abort(hxi_store *w, hx_error *err)
{
    if (!w->writer)
        return hx_error_set(err, HX_EPERM, -1, "%s is open read-only", w->path);
    if (w->fatal)
        return hx_error_set(err, w->error, -1, "%s is unusable after a failed commit (%s); reopen it",
                            w->path, w->error_msg);
    if (ftruncate(w->fd, (off_t)w->v.m.committed) != 0)
        return fail(w, err, HX_EIO, "cannot truncate");
    w->pos = w->v.m.committed;
    w->n_blobs = 0;
    w->error = 0;
    return 0;
}

/* === Compaction === */

int hxi_store_compact_begin(hxi_store *w, hxi_store **out, hx_error *err)
{
    *out = NULL;
    int rc = writable(w, err);
    if (rc)
        return rc;
    if (w->pos != w->v.m.committed)
        return hx_error_set(err, HX_EINVAL, -1, "commit or abort the open transaction before compacting");
    char *tmp = st_compact_tmp_path(w->path);
    if (!tmp)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    if (unlink(tmp) != 0 && errno != ENOENT) {
        rc = hx_error_set(err, HX_EIO, -1, "cannot remove stale %s: %s", tmp, strerror(errno));
        goto err;
    }
    if (w->v.m.gen == UINT64_MAX) {
        rc = hx_error_set(err, HX_ERANGE, -1, "%s has used up its generation numbers", w->path);
        goto err;
    }
    rc = st_create_file(tmp, 0, err);
    if (rc == 0 && (rc = hxi_store_open(out, tmp, HX_STORE_WRITE, err)) != 0)
        unlink(tmp);
    if (rc == 0) {
        (*out)->compact_tmp = true;
        (*out)->compact_head = w->v.m.gen + 1;
    }
err:
    free(tmp);
    return rc;
}

int hxi_store_compact_finish(hxi_store **w, hxi_store *c, hx_error *err)
{
    if (!(*w)->writer || !c->writer || !c->compact_tmp || c->error || c->pos != c->v.m.committed ||
        c->v.m.gen != c->compact_head)
        return hx_error_set(err, HX_EINVAL, -1, "compaction file must be a writer whose head is committed, with no "
                            "open transaction");
    char *path = hx_strdup((*w)->path);
    if (!path)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    if (fsync(c->fd) != 0 || rename(c->path, path) != 0) {
        int rc = hx_error_set(err, HX_EIO, -1, "cannot move %s over %s: %s", c->path, path,
                              strerror(errno));
        free(path);
        return rc;
    }
    free(c->path);
    c->path = path;
    c->compact_tmp = false;
    hxi_store_close(*w);
    *w = c;
    /* Past the rename there is no going back, so this step cannot fail the call (store.h). */
    st_sync_dir_of(path, NULL);
    return 0;
}
