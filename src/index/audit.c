/* audit.c: the audit log's blob (spec in audit.h): decoding it for readers, appending a write's
 * rejects under the bound. Must not decide what is rejected (gate.c) or when it commits
 * (index_write.c). */
#include "audit.h"
#include "alloc.h"
#include "glob.h"
#include "ix.h"
#include "wire.h"

#include <stdlib.h>
#include <string.h>

#define AUDIT_STR_MAX 4096

void hx_audit_list_free(hx_audit_list *l)
{
    if (!l)
        return;
    free(l->entries);
    free(l->strings);
    memset(l, 0, sizeof *l);
}

void ix_audit_pending_free(ix_audit_pending *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free((char *)p->v[i].path);
        free((char *)p->v[i].sha256);
        free((char *)p->v[i].rule);
        free((char *)p->v[i].reason);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
}

int ix_audit_read(hxi_store *s, hxi_store_ref ref, hx_audit_list *out, hx_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ref.length)
        return 0;
    const uint8_t *blob;
    int rc = hxi_store_blob(s, ref, &blob, err);
    if (rc)
        return rc;
    hxi_rd r = hxi_rd_init(blob, (size_t)ref.length);
    const uint8_t *magic = hxi_rd_bytes(&r, 8);
    uint32_t n = hxi_rd_u32(&r);
    if (!magic || memcmp(magic, IX_AUDIT_MAGIC, 8) || !hxi_rd_ok(&r) || n > HX_AUDIT_MAX)
        return hx_error_set(err, HX_EFORMAT, (int64_t)ref.offset, "the audit log is corrupt (bad header)");
    /* every string fits in the blob, so the blob's length bounds their copies */
    out->entries = hx_calloc(n ? n : 1, sizeof *out->entries);
    out->strings = hx_malloc((size_t)ref.length + 4 * (size_t)n + 1);
    if (!out->entries || !out->strings) {
        hx_audit_list_free(out);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory reading the audit log");
    }
    char *p = out->strings;
    for (uint32_t i = 0; i < n; i++) {
        hx_audit_entry *e = &out->entries[i];
        const char **fields[4] = {&e->path, &e->sha256, &e->rule, &e->reason};
        e->time_ns = (int64_t)hxi_rd_u64(&r);
        for (int f = 0; f < 4; f++) {
            const char *s_;
            uint32_t len;
            if (!hxi_rd_str(&r, &s_, &len, AUDIT_STR_MAX))
                break;
            memcpy(p, s_, len);
            p[len] = 0;
            *fields[f] = p;
            p += len + 1;
        }
        if (!hxi_rd_ok(&r)) {
            hx_audit_list_free(out);
            return hx_error_set(err, HX_EFORMAT, (int64_t)ref.offset, "the audit log is corrupt (entry %u)", i);
        }
    }
    out->n = n;
    return 0;
}

/* A copy of s cut to what the log stores of a string. */
static char *clip_dup(const char *s)
{
    return hx_strndup(s, AUDIT_STR_MAX);
}

int ix_audit_add(ix_audit_pending *p, const hx_audit_list *log, int64_t time_ns, const char *path,
                 const char *sha256, const char *rule, const char *reason, hx_error *err)
{
    for (size_t i = log ? log->n : 0; i-- > 0;) {
        const hx_audit_entry *e = &log->entries[i];
        if (strcmp(e->path, path))
            continue;
        if (!strcmp(e->sha256, sha256) && !strcmp(e->rule, rule))
            return 0;   /* recorded already */
        break;
    }
    int rc = hx_grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v, err);
    if (rc)
        return rc;
    hx_audit_entry *e = &p->v[p->n];
    e->time_ns = time_ns;
    e->path = clip_dup(path);
    e->sha256 = clip_dup(sha256);
    e->rule = clip_dup(rule);
    e->reason = clip_dup(reason);
    if (!e->path || !e->sha256 || !e->rule || !e->reason) {
        free((char *)e->path);
        free((char *)e->sha256);
        free((char *)e->rule);
        free((char *)e->reason);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    p->n++;
    return 0;
}

static void put_entry(hxi_buf *b, const hx_audit_entry *e)
{
    hxi_buf_u64(b, (uint64_t)e->time_ns);
    hxi_buf_str(b, e->path);
    hxi_buf_str(b, e->sha256);
    hxi_buf_str(b, e->rule);
    hxi_buf_str(b, e->reason);
}

int ix_audit_encode(const hx_audit_list *log, const ix_audit_pending *p, uint8_t **out, size_t *len,
                    hx_error *err)
{
    size_t old = log ? log->n : 0, total = old + p->n, skip = total > HX_AUDIT_MAX ? total - HX_AUDIT_MAX : 0;
    hxi_buf b = {0};
    hxi_buf_bytes(&b, IX_AUDIT_MAGIC, 8);
    hxi_buf_u32(&b, (uint32_t)(total - skip));
    for (size_t i = skip; i < total; i++)
        put_entry(&b, i < old ? &log->entries[i] : &p->v[i - old]);
    if (b.failed) {
        hxi_buf_free(&b);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory encoding the audit log");
    }
    *out = b.data;
    *len = b.len;
    return 0;
}

int hx_index_audit(const hx_index *ix, hx_audit_list *out, hx_error *err)
{
    if (ix->has_identity)   /* its entries name refused documents of every tenant */
        return hx_error_set(err, HX_EPERM, -1, "the audit log names documents of every tenant: it is read without a "
                            "reader identity (no --tenant)");
    return ix_audit_read(ix->store, ix->v.audit_ref, out, err);
}

int hx_audit_list_select(hx_audit_list *l, int64_t since_ns, const char *path_glob, size_t limit, hx_error *err)
{
    int rc = path_glob ? hxi_glob_check(path_glob, "path", err) : 0;
    if (rc)
        return rc;
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        const hx_audit_entry *e = &l->entries[i];
        if (e->time_ns >= since_ns && (!path_glob || hxi_glob_match(path_glob, e->path)))
            l->entries[k++] = *e;
    }
    size_t skip = limit && k > limit ? k - limit : 0;
    if (skip)   /* never with an empty list, whose entries may be NULL */
        memmove(l->entries, l->entries + skip, (k - skip) * sizeof *l->entries);
    l->n = k - skip;
    return 0;
}
