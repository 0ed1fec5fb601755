/* view.c: reading a loaded view (ix.h): a chunk's segment, fields, text, heading and vector,
 * documents by id and by path, deletions. Never allocates and never writes; loading a commit
 * into a view is view_load.c's, opening the file index.c's. */
#include "bytes.h"
#include "ix.h"

#include <string.h>

/* === Chunks === */

const ix_segment *ix_segment_of(const ix_view *v, uint32_t chunk_id)
{
    size_t lo = 0, hi = v->n_segs;
    while (lo < hi) {   /* segments are in base order */
        size_t mid = (lo + hi) / 2;
        if (v->segs[mid].base + v->segs[mid].n <= chunk_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < v->n_segs && chunk_id >= v->segs[lo].base && chunk_id < v->segs[lo].base + v->segs[lo].n)
        return &v->segs[lo];
    return NULL;
}

uint32_t ix_chunk_field(const ix_segment *s, uint32_t chunk_id, int field)
{
    return hxf_le32(s->chunks->data + ((size_t)(chunk_id - s->base) * IX_CHUNK_FIELDS + (size_t)field) * 4);
}

static const char *slice(const hxf_section *off, const hxf_section *data, uint32_t i, size_t *len)
{
    uint32_t a = hxf_le32(off->data + 4 * (size_t)i), b = hxf_le32(off->data + 4 * ((size_t)i + 1));
    *len = b - a;
    return (const char *)data->data + a;
}

const char *ix_chunk_text(const ix_segment *s, uint32_t chunk_id, size_t *len)
{
    return slice(s->text_off, s->text, chunk_id - s->base, len);
}

const char *ix_chunk_heading(const ix_segment *s, uint32_t chunk_id, size_t *len)
{
    const char *h = slice(s->head_off, s->heads, chunk_id - s->base, len);
    (*len)--;   /* stored with its NUL, checked at load */
    return h;
}

const float *ix_chunk_vector(const ix_segment *s, uint32_t chunk_id)
{
    return (const float *)s->vectors->data + (size_t)(chunk_id - s->base) * s->vectors->dims[1];
}

int ix_bm25_deleted(void *view, uint32_t chunk_id)
{
    return ix_is_deleted(view, chunk_id);
}

/* === Documents === */

const ix_doc *ix_doc_by_id(const ix_view *v, uint32_t id)
{
    size_t lo = 0, hi = v->n_docs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint32_t mid_id = v->docs[v->by_id[mid]].info.id;
        if (mid_id == id)
            return &v->docs[v->by_id[mid]];
        if (mid_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const ix_doc *ix_doc_by_path(const ix_view *v, const char *path)
{
    size_t lo = 0, hi = v->n_docs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(v->docs[mid].info.path, path);
        if (!c)
            return &v->docs[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool ix_sorted_has(const char *const *v, size_t n, const char *s)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(v[mid], s);
        if (!c)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

bool ix_deleted_by_request(const ix_view *v, const char *path)
{
    return ix_sorted_has((const char *const *)v->deleted, v->n_deleted, path);
}
