/* index_write.h: what index_write.c (change sets made into commits: segments, documents,
 * tombstones, parts, compaction) offers index_update.c (which decides the changes: files from the
 * file system, documents from bytes, removals). Private to src/index. */
#ifndef HX_INDEX_WRITE_H
#define HX_INDEX_WRITE_H

#include "audit.h"
#include "chunker.h"
#include "gate.h"
#include "ix.h"
#include "ingest.h"

typedef struct pending_doc {
    hxi_doc_source src;        /* owned */
    char signer[256];         /* the gate's verified signer, "" when unsigned: trust.signer */
    hxi_chunk *chunks;         /* owned */
    size_t n_chunks;
    uint32_t id;              /* kept from the document it replaces, else assigned at commit */
    bool replaces;
    hx_doc_kind kind;
    hx_doc_trust trust;       /* strings borrow src.meta's values, the gate's policy or are static;
                                 signer is the pending document's own (pending_info) */
} pending_doc;

typedef struct change_set {
    pending_doc *add;
    size_t n_add, cap_add;
    uint32_t *drop;           /* ids of indexed documents to remove or replace */
    size_t n_drop, cap_drop;
    uint8_t *dropped;         /* bitmap over document ids, the same set as drop */
    size_t dropped_bytes;
    struct { uint32_t id; int64_t mtime_ns; } *touch;   /* unchanged content, new mtime */
    size_t n_touch, cap_touch;
    const char **remember;    /* paths to add to the deleted-by-request list; borrowed from the view */
    size_t n_remember, cap_remember;
    const char **lift;        /* paths to take off it; borrowed from the caller's file list */
    size_t n_lift, cap_lift;
    const char *const *folder_meta;   /* a new folder metadata list (borrowed), or NULL: the view's */
    size_t n_folder_meta;
    ix_audit_pending audit;   /* the write's rejects, committed with it (audit.h) */
    hx_audit_list log;        /* the committed audit log, read at the first reject */
    bool log_read;
} change_set;

void ix_change_set_free(change_set *cs);
/* Marks indexed document `id` as removed (or replaced) by the change. */
int ix_drop_doc(change_set *cs, uint32_t id, hx_error *err);
/* Appends a borrowed path to a list of the change set. */
int ix_push_path(const char ***list, size_t *n, size_t *cap, const char *path, hx_error *err);
/* Chunks `src` (taking ownership of it) and queues it as a document of `kind` with the trust the
 * gate decided (vd: its strings borrow src's metadata, the gate's policy or, for the signer, the
 * pending document's copy), replacing `old` when not NULL. */
int ix_queue_doc(hx_index *ix, change_set *cs, hxi_doc_source *src, const ix_verdict *vd, hx_doc_kind kind,
                 const ix_doc *old, hx_error *err);
bool ix_is_dropped(const change_set *cs, uint32_t id);
/* Commits a change set, its new documents in parts of about `part_chunks` chunks (a document is
 * never split: one larger than that is a part of its own), so a long write that is canceled or
 * killed keeps every part committed before; the next run finds those documents unchanged. */
int ix_commit_changes(hx_index *ix, change_set *cs, hx_encoder *enc, size_t part_chunks,
                      hx_progress_fn progress, void *ctx, hx_update_report *rep, hx_error *err);
int64_t ix_now_ns(void);   /* wall-clock time, ns since the epoch */

#endif
