/* session_docs.c: hx_session_get, hx_session_list and hx_session_filter_keys (hyrax.h "Session"):
 * one document of the project index with its chunks, pages of its documents filtered and sorted,
 * and the keys a filter can name, at a read context; what get_document, document_status and
 * list_documents answer from. */
#include "session_internal.h"

#include "alloc.h"
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Get === */

typedef struct {
    int64_t id;
    const char *path;
    const hx_read_context *at;
    bool chunks;
    hx_session_doc *out;
} get_call;

static int get_run(hx_session *s, void *arg, hx_error *err)
{
    get_call *c = arg;
    int rc = session_project(s, c->at, err);
    if (!rc)
        rc = session_doc(s->project, c->id, c->path, &c->out->info, err);
    if (rc)
        return rc;
    c->out->taken = s->project_taken;
    const hx_doc_info *d = &c->out->info;
    if (!c->chunks || !d->n_chunks)
        return 0;
    if (!(c->out->chunks = hx_calloc(d->n_chunks, sizeof *c->out->chunks)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (uint32_t i = 0; i < d->n_chunks; i++)
        if (!hx_index_chunk(s->project, d->first_chunk + i, &c->out->chunks[c->out->n_chunks], NULL))
            c->out->n_chunks++;
    return 0;
}

void hx_session_doc_free(hx_session_doc *d)
{
    if (!d)
        return;
    free(d->chunks);
    memset(d, 0, sizeof *d);
}

int hx_session_get(hx_session *s, int64_t id, const char *path, const hx_read_context *at, bool chunks,
                   hx_session_doc *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && out, __func__, "a session and an answer", err);
    if (rc)
        return rc;
    if (!path && id < 0)
        return hx_error_set(err, HX_EINVAL, -1, "give a document id or a path");
    get_call c = {id, path, at, chunks, out};
    rc = session_guarded(s, get_run, &c, err);
    if (rc)
        hx_session_doc_free(out);
    return rc;
}

/* === List === */

static const char *meta_value(const hx_doc_info *d, const char *key)
{
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key))
            return d->meta[i].value;
    return NULL;
}

static int doc_before(const hx_doc_info *a, const hx_doc_info *b, hx_doc_sort key)
{
    const char *ca, *cb;
    switch (key) {
    case HX_SORT_TITLE: return strcmp(a->title, b->title);
    case HX_SORT_INDEXED: return a->indexed_ns < b->indexed_ns ? -1 : a->indexed_ns > b->indexed_ns;
    case HX_SORT_SIZE: return a->size < b->size ? -1 : a->size > b->size;
    case HX_SORT_CHUNKS: return a->n_chunks < b->n_chunks ? -1 : a->n_chunks > b->n_chunks;
    case HX_SORT_CATEGORY:   /* documents without a category after those with one */
        ca = meta_value(a, "category");
        cb = meta_value(b, "category");
        return ca && cb ? strcmp(ca, cb) : (ca == NULL) - (cb == NULL);
    default: return 0;   /* path: the order documents come in */
    }
}

/* Stable merge sort by key, path order breaking ties. */
static void sort_docs(hx_doc_info *v, hx_doc_info *tmp, size_t n, hx_doc_sort key, bool desc)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_docs(v, tmp, h, key, desc);
    sort_docs(v + h, tmp, n - h, key, desc);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int c = doc_before(&v[j], &v[i], key);
        tmp[k++] = (desc ? c > 0 : c < 0) ? v[j++] : v[i++];
    }
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

typedef struct {
    const hx_list_opts *o;
    hx_doc_list *out;
} list_call;

static int list_run(hx_session *s, void *arg, hx_error *err)
{
    list_call *c = arg;
    const hx_list_opts *o = c->o;
    int rc = session_project(s, &o->at, err);
    if (rc)
        return rc;
    size_t n = hx_index_doc_count(s->project), m = 0;
    hx_doc_info *docs = hx_malloc(sizeof *docs * (n ? n : 1)), *tmp = hx_malloc(sizeof *tmp * (n ? n : 1));
    if (!docs || !tmp) {
        free(docs);
        free(tmp);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory listing documents");
    }
    for (size_t i = 0; i < n; i++)
        if (!hx_index_doc_at(s->project, i, &docs[m]) && hx_index_doc_matches(s->project, &docs[m], o->filters, o->n_filters) &&
            (o->state == HX_DOCS_ALL || (o->state == HX_DOCS_COMPLETE) == (docs[m].n_chunks > 0)))
            m++;
    if (o->sort != HX_SORT_PATH)
        sort_docs(docs, tmp, m, o->sort, o->desc);
    else if (o->desc)
        for (size_t i = 0; i < m / 2; i++) {
            hx_doc_info t = docs[i];
            docs[i] = docs[m - 1 - i];
            docs[m - 1 - i] = t;
        }
    free(tmp);
    size_t from = o->offset < m ? o->offset : m, count = m - from;
    if (o->limit && count > o->limit)
        count = o->limit;
    memmove(docs, docs + from, count * sizeof *docs);
    c->out->docs = docs;
    c->out->n = count;
    c->out->total = m;
    c->out->taken = s->project_taken;
    return 0;
}

void hx_doc_list_free(hx_doc_list *l)
{
    if (!l)
        return;
    free(l->docs);
    memset(l, 0, sizeof *l);
}

int hx_session_list(hx_session *s, const hx_list_opts *o, hx_doc_list *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && o && out, __func__, "a session, options and an answer", err);
    if (rc)
        return rc;
    if ((unsigned)o->sort > HX_SORT_CATEGORY || (unsigned)o->state > HX_DOCS_EMPTY)
        return hx_error_set(err, HX_EINVAL, -1, "unknown sort key or document state");
    if (o->n_filters && !o->filters)
        return hx_error_set(err, HX_EINVAL, -1, "n_filters is %zu and filters is NULL", o->n_filters);
    list_call c = {o, out};
    rc = session_guarded(s, list_run, &c, err);
    if (rc)
        hx_doc_list_free(out);
    return rc;
}

/* === Filter keys === */

void hx_key_list_free(hx_key_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->keys[i]);
    free(l->keys);
    memset(l, 0, sizeof *l);
}

/* Appends a copy of key unless the list has that spelling or is full; 0 or HX_ENOMEM. */
static int key_add(hx_key_list *l, const char *key, hx_error *err)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->keys[i], key))
            return 0;
    if (l->n == HX_FILTER_KEYS_MAX)
        return 0;
    if (!(l->keys[l->n] = hx_strdup(key)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory listing the filter keys");
    l->n++;
    return 0;
}

int hx_session_filter_keys(hx_session *s, const hx_read_context *at, hx_key_list *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && out, __func__, "a session and an answer", err);
    if (rc)
        return rc;
    hx_list_opts o = {0};
    if (at)
        o.at = *at;
    hx_doc_list l;
    rc = hx_session_list(s, &o, &l, err);
    if (rc)
        return rc;
    if (!(out->keys = hx_calloc(HX_FILTER_KEYS_MAX, sizeof *out->keys)))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory listing the filter keys");
    for (size_t i = 0; !rc && hxi_filter_derived_keys[i]; i++)
        rc = key_add(out, hxi_filter_derived_keys[i], err);
    for (size_t d = 0; !rc && d < l.n; d++)
        for (size_t k = 0; !rc && k < l.docs[d].n_meta; k++)
            rc = key_add(out, l.docs[d].meta[k].key, err);
    const char **unit = rc ? NULL : hx_malloc(sizeof *unit * HX_FILTER_KEYS_MAX);
    if (!rc && !unit)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory listing the filter keys");
    size_t n_unit = unit ? hx_index_unit_keys(s->project, unit, HX_FILTER_KEYS_MAX) : 0;
    for (size_t k = 0; !rc && k < n_unit; k++)   /* the chunks' unit pairs (code symbols, model elements) */
        rc = key_add(out, unit[k], err);
    free(unit);
    hx_doc_list_free(&l);
    if (rc)
        hx_key_list_free(out);
    return rc;
}
