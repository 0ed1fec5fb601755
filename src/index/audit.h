/* audit.h: the audit log of the validation gate, kept in the index file. Owns its blob format
 * and its bound; the gate (gate.h) decides, the writer (index_write.c) records each reject with
 * the commit that rejected it, and compaction carries the blob over.
 *
 * Audit blob, referenced by the root record (layout 4 on, ix.h); entries oldest first:
 *   FIELD            ENCODING     DESCRIPTION
 *   magic            8 bytes      "HXAUDIT1"
 *   count            u32          entries (<= HX_AUDIT_MAX), then per entry:
 *     time_ns        u64          when the write that rejected it ran (ns since the epoch, UTC)
 *     path           str          root-relative name of the document
 *     sha256         str          hex SHA-256 of the bytes rejected ("" when they were not read:
 *                                 a file over the size cap, or one that could not be opened)
 *     rule           str          the rule that rejected it (gate.h)
 *     reason         str          why, in words
 * (str = u32 length + bytes, at most AUDIT_STR_MAX.) A write appends its rejects and drops the
 * oldest entries past HX_AUDIT_MAX. A reject that repeats the newest entry of its path (same
 * bytes, same rule) is not recorded again, so re-indexing an unchanged tree adds nothing. */
#ifndef HX_AUDIT_H
#define HX_AUDIT_H

#include "hyrax.h"
#include "store.h"

#define IX_AUDIT_MAGIC "HXAUDIT1"

/* Rejects gathered by one write, not yet committed. Strings owned. */
typedef struct ix_audit_pending {
    hx_audit_entry *v;         /* owned; each string owned */
    size_t n, cap;
} ix_audit_pending;
void ix_audit_pending_free(ix_audit_pending *p);

/* Decodes the audit blob at ref of s into out (caller frees with hx_audit_list_free); a zero-length
 * ref gives an empty list. HX_EFORMAT for a corrupt blob. */
int ix_audit_read(hxi_store *s, hxi_store_ref ref, hx_audit_list *out, hx_error *err);

/* Queues a reject unless `log` (the committed entries, may be NULL) already ends its path's
 * history with the same hash and rule. */
int ix_audit_add(ix_audit_pending *p, const hx_audit_list *log, int64_t time_ns, const char *path,
                 const char *sha256, const char *rule, const char *reason, hx_error *err);

/* Encodes the committed entries `log` followed by the pending ones, the oldest dropped past
 * HX_AUDIT_MAX, into *out (caller frees with hxi_buf_free). */
int ix_audit_encode(const hx_audit_list *log, const ix_audit_pending *p, uint8_t **out, size_t *len,
                    hx_error *err);

#endif
