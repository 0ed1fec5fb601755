/* folder_meta.c: metadata a document inherits from its folder (ix.h "Folder
 * metadata"). Runs on a loaded view: each document's own pairs (as stored) come first, then the
 * pairs of its folder's file-backed metadata documents (the view's folder_meta list, in order)
 * under keys it does not have yet. Inheritance happens when a view is read, never on disk, so a
 * changed kep.yaml changes its folder's documents at the commit that re-indexes it, with nothing
 * else rewritten. */
#include "ix.h"
#include "alloc.h"
#include "relpath.h"

#include <stdio.h>
#include <string.h>

void ix_folder_meta_default(ix_view *v)
{
    static const char *const names[] = {IX_FOLDER_META};
    v->n_folder_meta = sizeof names / sizeof names[0];
    for (size_t i = 0; i < v->n_folder_meta; i++)
        v->folder_meta[i] = names[i];
}

bool ix_folder_meta_name_ok(const char *name)
{
    size_t n = strlen(name);
    return n && n <= HX_RELPATH_NAME_MAX && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* The metadata documents of d's folder other than d itself, into out; their count. Only a
 * file-backed document passes metadata on: a stored one (add_document) named kep.yaml would
 * otherwise relabel every file of its folder. */
static size_t providers(const ix_view *v, const ix_doc *d, const ix_doc *out[IX_FOLDER_META_MAX])
{
    const char *slash = strrchr(d->info.path, '/');
    int dir = slash ? (int)(slash - d->info.path) : 0;
    size_t n = 0;
    char name[HX_RELPATH_MAX];
    for (size_t k = 0; k < v->n_folder_meta; k++) {
        int len = snprintf(name, sizeof name, "%.*s%s%s", dir, d->info.path, slash ? "/" : "", v->folder_meta[k]);
        const ix_doc *p = len > 0 && (size_t)len < sizeof name ? ix_doc_by_path(v, name) : NULL;
        if (p && p != d && p->info.kind == HX_DOC_FILE)
            out[n++] = p;
    }
    return n;
}

static bool has_key(const hx_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kv[i].key, key))
            return true;
    return false;
}

int ix_inherit_meta(ix_view *v, hx_error *err)
{
    size_t total = 0;
    const ix_doc *p[IX_FOLDER_META_MAX];
    for (size_t i = 0; i < v->n_docs; i++) {
        ix_doc *d = &v->docs[i];
        d->own = d->info.meta;
        d->n_own = d->info.n_meta;
    }
    for (size_t i = 0; i < v->n_docs; i++) {
        size_t n = providers(v, &v->docs[i], p);
        total += v->docs[i].n_own;
        for (size_t k = 0; k < n; k++)
            total += p[k]->n_own;
    }
    if (!(v->merged = hx_calloc(total ? total : 1, sizeof *v->merged)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory loading document metadata");
    size_t used = 0;
    for (size_t i = 0; i < v->n_docs; i++) {
        ix_doc *d = &v->docs[i];
        hx_kv *m = v->merged + used;
        size_t n = d->n_own, np = providers(v, d, p);
        memcpy(m, d->own, d->n_own * sizeof *m);
        for (size_t k = 0; k < np; k++) {
            size_t before = n;   /* keys present before this provider win over its */
            for (size_t j = 0; j < p[k]->n_own; j++)
                if (!has_key(m, before, p[k]->own[j].key))
                    m[n++] = p[k]->own[j];
        }
        d->info.meta = m;
        d->info.n_meta = n;
        used += n;
    }
    return 0;
}
