/* index.c: an index handle: opening an index file (the view of its newest commit, view_load.c),
 * closing and refreshing it, the reader's identity, document lookups, stats and verify. Formats
 * are specified in ix.h. Writing lives in index_write.c and searching in search.c. */
#include "alloc.h"
#include "fsafe.h"
#include "ix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Open and close === */

/* hx_index_open; precision_only: a reader that wants the root record's facts alone (the
 * precision), which an index whose keywords a writer has yet to rebuild still tells. */
static int open_index(hx_index **out, const char *path, unsigned flags, const hx_model *model, const char *root,
                      bool precision_only, hx_error *err)
{
    *out = NULL;
    hx_index *ix = hx_calloc(1, sizeof *ix);
    if (!ix || !(ix->path = hx_strdup(path))) {
        free(ix);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    ix->model = model;
    ix->writer = flags & HX_INDEX_WRITE;
    ix->precision_only = precision_only;
    unsigned sflags = (flags & HX_INDEX_WRITE ? HX_STORE_WRITE : HX_STORE_READ) |
                      (flags & HX_INDEX_CREATE ? HX_STORE_CREATE : 0) |
                      (flags & HX_INDEX_RECOVER ? HX_STORE_RECOVER : 0);
    int rc = hxi_store_open(&ix->store, path, sflags, err);
    if (rc == HX_ENOTFOUND && !(flags & HX_INDEX_CREATE))
        hx_error_set(err, rc, -1, "no index at %s (run 'hyrax index' first)", path);
    if (!rc && hxi_store_generation(ix->store) == 0) {
        if (!(flags & HX_INDEX_CREATE) || !root || !model) {
            rc = hx_error_set(err, HX_ENOTFOUND, -1, "%s holds an empty index (run 'hyrax index' first)", path);
        } else {
            /* a new index: record the root and the model in a first, empty commit */
            snprintf(ix->model_name, sizeof ix->model_name, "%s", hx_model_name(model));
            ix->dim = (uint32_t)hx_model_dim(model);
            ix->precision = hx_model_precision(model);
            if (!(ix->root = hx_strdup(root)))
                rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
            hxi_store_ref refs[2];
            uint8_t zero = 0;
            uint8_t *rec = NULL;
            size_t len = 0;
            if (!rc)
                rc = hxi_store_append(ix->store, IX_DOCS_MAGIC_V2 "\0\0\0\0\0\0\0\0", 16, &refs[0],
                                      err);   /* version 2: no documents, the default folder_meta */
            if (!rc)
                rc = hxi_store_append(ix->store, &zero, 0, &refs[1], err);
            if (!rc)
                rc = ix_encode_root(ix, 0, 0, refs[0], refs[1], NULL, 0, (hxi_store_ref){0}, &rec, &len, err);
            if (!rc)
                rc = hxi_store_commit(ix->store, rec, len, NULL, err);
            free(rec);
        }
    }
    if (!rc)
        rc = ix_view_load(ix, err);
    bool unprinted = false;   /* a segment written before line prints (boiler.c) */
    for (size_t i = 0; !rc && i < ix->v.n_segs; i++)
        unprinted |= ix->v.segs[i].n && !ix->v.segs[i].lines_at;
    if (!rc && (ix->stale_keywords || unprinted) && ix->writer)
        rc = hx_index_compact(ix, err);  /* rebuilds every segment: keywords with IX_ANALYZER, line prints */
    if (rc) {
        hx_index_close(ix);
        return rc;
    }
    *out = ix;
    return 0;
}

void hx_index_close(hx_index *ix)
{
    if (!ix)
        return;
    ix_view_free(&ix->v);
    hxi_store_close(ix->store);
    free(ix->path);
    free(ix->root);
    free((char *)ix->identity.tenant);
    free((char *)ix->identity.user);
    free(ix);
}

int hx_index_refresh(hx_index *ix, hx_error *err)
{
    int rc = hxi_store_refresh(ix->store, err);
    if (rc < 0 || (rc == 0 && !ix->at.generation))
        return rc;
    ix_view_free(&ix->v);   /* new commits, or a view pinned by a read context: back to the head */
    ix->at = (hx_commit_info){0};
    rc = ix_view_load(ix, err);
    return rc ? rc : 1;
}

const char *hx_index_root(const hx_index *ix)
{
    return ix->root;
}

const char *hx_index_damage(const hx_index *ix)
{
    return hxi_store_damage(ix->store);
}

/* === Identity === */

int hx_index_set_identity(hx_index *ix, const hx_identity *id, hx_error *err)
{
    if (ix->has_identity)
        return hx_error_set(err, HX_EPERM, -1, "the reader identity of an index handle is set once");
    int rc = hx_identity_check(id, err);
    if (rc)
        return rc;
    ix->has_identity = true;   /* restricted from here on, also when a copy fails (then it sees nothing) */
    ix->identity = (hx_identity){hx_strdup(id->tenant), hx_strdup(id->user ? id->user : "")};
    return ix_view_visibility(ix, err);
}

/* === Documents === */

size_t hx_index_doc_count(const hx_index *ix)
{
    return ix->has_identity ? ix->v.n_visible : ix->v.n_docs;
}

int hx_index_doc_at(const hx_index *ix, size_t i, hx_doc_info *out)
{
    if (i >= hx_index_doc_count(ix))
        return HX_ENOTFOUND;
    *out = ix->v.docs[ix->has_identity ? ix->v.visible[i] : i].info;
    return 0;
}

int hx_index_doc_by_id(const hx_index *ix, uint32_t id, hx_doc_info *out)
{
    const ix_doc *d = ix_doc_by_id(&ix->v, id);
    if (!d || d->hidden)
        return HX_ENOTFOUND;
    *out = d->info;
    return 0;
}

int hx_index_doc_by_path(const hx_index *ix, const char *path, hx_doc_info *out)
{
    const ix_doc *d = ix_doc_by_path(&ix->v, path);
    if (!d || d->hidden)
        return HX_ENOTFOUND;
    *out = d->info;
    return 0;
}

int hx_index_doc_text(hx_index *ix, const hx_doc_info *d, size_t max, char **text, size_t *len, hx_error *err)
{
    *text = NULL;
    *len = 0;
    if (d->kind == HX_DOC_FILE)
        return hxi_fs_read_under(hx_index_root(ix), d->path, max, text, len, NULL, err);
    size_t cap = 0;
    for (uint32_t c = d->first_chunk; c < d->first_chunk + d->n_chunks; c++) {
        hx_result r;
        if (hx_index_chunk(ix, c, &r, NULL))
            continue;
        if (hx_grow((void **)text, &cap, *len + r.text_len + 2, 1, NULL)) {
            free(*text);
            *text = NULL;
            *len = 0;
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        }
        memcpy(*text + *len, r.text, r.text_len);
        *len += r.text_len;
        (*text)[(*len)++] = '\n';
        (*text)[*len] = 0;
    }
    return 0;
}

/* === Stats and verify === */

int hx_index_stats_get(hx_index *ix, hx_index_stats *st, hx_error *err)
{
    memset(st, 0, sizeof *st);
    const ix_view *v = &ix->v;
    st->documents = hx_index_doc_count(ix);
    st->segments = v->n_segs;
    st->tombstones = v->n_tomb;
    for (size_t i = 0; i < v->n_segs; i++)
        st->chunks += v->segs[i].n;
    st->live_chunks = st->chunks >= v->n_tomb ? st->chunks - v->n_tomb : 0;
    if (ix->has_identity)   /* what the reader sees: its documents' chunks, as if alone */
        st->chunks = st->live_chunks = v->n_visible_chunks;
    for (size_t i = 0; i < v->n_docs; i++)
        st->tokens += v->docs[i].hidden ? 0 : v->docs[i].info.tokens;
    st->generation = ix->at.generation ? ix->at.generation : hxi_store_generation(ix->store);
    st->committed_ns = ix->at.generation ? ix->at.committed_ns : hxi_store_timestamp(ix->store);
    snprintf(st->model, sizeof st->model, "%s", ix->model_name);
    snprintf(st->writer, sizeof st->writer, "%s", ix->made_by);
    snprintf(st->model_hash, sizeof st->model_hash, "%s", ix->model_hash);
    st->dim = (int)ix->dim;
    st->precision = ix->precision;
    struct stat sb;
    if (stat(ix->path, &sb) != 0)
        return hx_error_set(err, HX_EIO, -1, "cannot stat %s", ix->path);
    st->file_bytes = (uint64_t)sb.st_size;
    return 0;
}

int hx_index_open(hx_index **out, const char *path, unsigned flags, const hx_model *model,
                  const char *root, hx_error *err)
{
    return open_index(out, path, flags, model, root, false, err);
}

int hx_index_precision(const char *path, hx_precision *out, hx_error *err)
{
    hx_index *ix = NULL;
    int rc = open_index(&ix, path, HX_INDEX_READ, NULL, NULL, true, err);
    if (!rc)
        *out = ix->precision;
    hx_index_close(ix);
    return rc;
}

int hx_index_verify(hx_index *ix, hx_error *err)
{
    int rc = hxi_store_verify(ix->store, err);
    for (size_t i = 0; !rc && i < ix->v.n_segs; i++) {
        const ix_segment *s = &ix->v.segs[i];
        if (s->n)
            rc = hxi_bm25_reader_check(&s->bm25, err);
        for (uint32_t c = 0; !rc && c < s->n; c++) {
            const float *vec = ix_chunk_vector(s, s->base + c);
            double norm = 0;
            for (uint32_t d = 0; d < ix->dim; d++)
                norm += (double)vec[d] * vec[d];
            if (!(fabs(norm - 1.0) < 1e-3))
                rc = hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "vector of chunk %u is not normalised",
                                  s->base + c);
        }
    }
    return rc;
}
