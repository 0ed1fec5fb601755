/* chunk_meta.c: chunks' unit pairs (doctype.h "units"; the segment sections unit_off and unit_meta,
 * ix.h): writing them with a segment, reading and checking them at load, looking a
 * chunk's up, and the index-wide answers made of them (the unit keys a filter can name, whether a
 * document matches by its chunks' pairs, where a declaration's definition is). How a filter matches
 * pairs is filter.c's. */
#include "alloc.h"
#include "bytes.h"
#include "code.h"
#include "doctype.h"
#include "filter.h"
#include "ix.h"
#include "relpath.h"
#include "yaml.h"

#include <stdlib.h>
#include <string.h>

int ix_unit_meta_write(hxf_writer *w, const hx_kv *const *meta, const size_t *n_meta, size_t n, hx_error *err)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n_meta[i]; k++)
            bytes += strlen(meta[i][k].key) + strlen(meta[i][k].value) + 2;
    if (!bytes)
        return 0;
    if (bytes >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "segment unit metadata exceeds 4 GiB");
    uint32_t *off = hx_malloc(sizeof *off * (n + 1));
    char *data = hx_malloc(bytes);
    if (!off || !data) {
        free(off);
        free(data);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory building a segment");
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        hxf_put32((uint8_t *)&off[i], (uint32_t)at);
        for (size_t k = 0; k < n_meta[i]; k++) {
            size_t kl = strlen(meta[i][k].key) + 1, vl = strlen(meta[i][k].value) + 1;
            memcpy(data + at, meta[i][k].key, kl);
            memcpy(data + at + kl, meta[i][k].value, vl);
            at += kl + vl;
        }
    }
    hxf_put32((uint8_t *)&off[n], (uint32_t)at);
    const uint32_t d_off[4] = {(uint32_t)n + 1, 0, 0, 0};
    int rc = hxf_writer_add(w, "unit_off", HXF_U32, 1, d_off, off, sizeof *off * (n + 1), err);
    if (!rc)
        rc = hxf_writer_add(w, "unit_meta", HXF_RAW, 0, NULL, data, bytes, err);
    free(off);
    free(data);
    return rc;
}

void ix_unit_meta_free(ix_segment *s)
{
    free(s->unit_kv);
    free(s->unit_kv_at);
    s->unit_kv = NULL;
    s->unit_kv_at = NULL;
}

static int corrupt(const ix_segment *s, uint32_t i, const char *why, hx_error *err)
{
    return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment chunk %u's unit metadata is corrupt: %s",
                        s->base + i, why);
}

int ix_unit_meta_load(ix_segment *s, hx_error *err)
{
    const hxf_section *off = hxf_find(&s->file, "unit_off"), *data = hxf_find(&s->file, "unit_meta");
    if (!off && !data)
        return 0;
    const uint32_t d_off[4] = {s->n + 1, 0, 0, 0};
    int rc;
    if ((rc = hxf_expect(&s->file, "unit_off", HXF_U32, 1, d_off, &off, err)) ||
        (rc = hxf_expect(&s->file, "unit_meta", HXF_RAW, 0, NULL, &data, err)))
        return rc;
    /* every range is whole pairs: key NUL value NUL, the key 1..HX_YAML_KEY_MAX bytes */
    size_t pairs = 0;
    for (uint32_t i = 0, prev = 0; i <= s->n; i++) {
        uint32_t o = hxf_le32(off->data + 4 * (size_t)i);
        if (o < prev || o > data->length)
            return corrupt(s, i, "its offsets are out of order", err);
        if (i && o > prev && data->data[o - 1])
            return corrupt(s, i - 1, "it does not end a pair", err);
        size_t nuls = 0, here = 0;
        for (uint32_t b = prev, start = prev; i && b < o; b++) {
            if (data->data[b])
                continue;
            if (nuls++ % 2 == 0 && (b == start || b - start > HX_YAML_KEY_MAX))
                return corrupt(s, i - 1, "a key is empty or too long", err);
            here += nuls % 2 == 0;
            start = b + 1;
        }
        if (nuls % 2 || here > HX_META_MAX)
            return corrupt(s, i ? i - 1 : 0, nuls % 2 ? "a key has no value" : "too many pairs", err);
        pairs += here;
        prev = o;
    }
    s->unit_kv = hx_malloc(sizeof *s->unit_kv * (pairs ? pairs : 1));
    s->unit_kv_at = hx_malloc(sizeof *s->unit_kv_at * ((size_t)s->n + 1));
    if (!s->unit_kv || !s->unit_kv_at) {
        ix_unit_meta_free(s);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory loading unit metadata");
    }
    size_t k = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        s->unit_kv_at[i] = (uint32_t)k;
        char *p = (char *)data->data + hxf_le32(off->data + 4 * (size_t)i),
             *end = (char *)data->data + hxf_le32(off->data + 4 * ((size_t)i + 1));
        while (p < end) {
            char *value = p + strlen(p) + 1;
            s->unit_kv[k++] = (hx_kv){p, value};
            p = value + strlen(value) + 1;
        }
    }
    s->unit_kv_at[s->n] = (uint32_t)k;
    return 0;
}

const hx_kv *ix_chunk_meta(const ix_segment *s, uint32_t chunk_id, size_t *n)
{
    *n = 0;
    if (!s || !s->unit_kv)
        return NULL;
    uint32_t i = chunk_id - s->base;
    *n = s->unit_kv_at[i + 1] - s->unit_kv_at[i];
    return *n ? s->unit_kv + s->unit_kv_at[i] : NULL;
}

/* Whether the handle may read the chunk: live, and of a document its identity sees. */
static bool readable(const ix_view *v, uint32_t c)
{
    return !ix_is_deleted(v, c) && (!v->restricted || (v->visible_chunks && (v->visible_chunks[c / 8] >> (c % 8) & 1)));
}

size_t hx_index_unit_keys(hx_index *ix, const char **keys, size_t max)
{
    const ix_view *v = &ix->v;
    size_t n = 0;
    for (size_t i = 0; i < v->n_segs; i++) {
        const ix_segment *s = &v->segs[i];
        for (uint32_t c = 0; s->unit_kv && c < s->n && n < max; c++) {
            if (!readable(v, s->base + c))
                continue;
            for (uint32_t k = s->unit_kv_at[c]; k < s->unit_kv_at[c + 1] && n < max; k++) {
                size_t j = 0;
                while (j < n && strcmp(keys[j], s->unit_kv[k].key))
                    j++;
                if (j == n)
                    keys[n++] = s->unit_kv[k].key;
            }
        }
    }
    return n;
}

bool hx_index_doc_matches(hx_index *ix, const hx_doc_info *d, const hx_filter *filters, size_t n)
{
    if (hx_doc_matches(d, filters, n))
        return true;
    for (uint32_t c = d->first_chunk; c < d->first_chunk + d->n_chunks; c++) {
        size_t nm;
        const hx_kv *m = ix_chunk_meta(ix_segment_of(&ix->v, c), c, &nm);
        if (nm && hxi_chunk_matches(d, m, nm, filters, n))
            return true;
    }
    return false;
}

/* === Definitions of declarations === */

bool ix_chunk_declares(const ix_view *v, uint32_t c)
{
    size_t nm;
    const hx_kv *m = ix_chunk_meta(ix_segment_of(v, c), c, &nm);
    const char *kind = hxi_kv_get(m, nm, "kind");
    return kind && !strcmp(kind, hxi_def_kind_name(HXI_DEF_DECLARATION)) && hxi_kv_get(m, nm, "symbol");
}

/* A definition's slot in the view's table of symbols: FNV-1a of the symbol, probed linearly. */
static uint64_t symbol_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3u;
    return h;
}

/* The first of the view's definitions of symbol (its group runs while the symbol stays), or NULL. */
static const ix_def *symbol_group(const ix_view *v, const char *symbol)
{
    for (size_t i = symbol_hash(symbol) & (v->def_cap - 1); v->def_cap && v->def_slot[i];
         i = (i + 1) & (v->def_cap - 1))
        if (!strcmp(v->defs[v->def_slot[i] - 1].symbol, symbol))
            return &v->defs[v->def_slot[i] - 1];
    return NULL;
}

static int compare_def(const void *a, const void *b)
{
    const ix_def *x = a, *y = b;
    int c = strcmp(x->symbol, y->symbol);
    return c ? c : x->doc != y->doc ? (x->doc < y->doc ? -1 : 1) : (x->chunk > y->chunk) - (x->chunk < y->chunk);
}

int ix_view_definitions(ix_view *v, hx_error *err)
{
    size_t n = 0, groups = 0;
    for (int pass = 0; pass < 2; pass++) {   /* count, then fill */
        n = 0;
        for (size_t i = 0; i < v->n_docs; i++) {
            const hx_doc_info *d = &v->docs[i].info;
            if (!hxi_code_lang_declares(hxi_kv_get(d->meta, d->n_meta, "lang")))
                continue;
            for (uint32_t c = d->first_chunk; c < d->first_chunk + d->n_chunks; c++) {
                size_t nm;
                const hx_kv *cm = ix_chunk_meta(ix_segment_of(v, c), c, &nm);
                const char *ck = hxi_kv_get(cm, nm, "kind"), *cs = hxi_kv_get(cm, nm, "symbol");
                bool callable = ck && (!strcmp(ck, hxi_def_kind_name(HXI_DEF_FUNCTION)) ||
                                       !strcmp(ck, hxi_def_kind_name(HXI_DEF_METHOD)));   /* not `struct stat` */
                if (callable && cs && pass)
                    v->defs[n] = (ix_def){cs, (uint32_t)i, c};
                n += callable && cs;
            }
        }
        if (!n)
            return 0;
        if (!pass && !(v->defs = hx_malloc(sizeof *v->defs * n)))
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    qsort(v->defs, n, sizeof *v->defs, compare_def);
    v->n_defs = n;
    for (size_t i = 0; i < n; i++)
        groups += !i || strcmp(v->defs[i].symbol, v->defs[i - 1].symbol);
    for (v->def_cap = 16; v->def_cap < 2 * groups; v->def_cap *= 2)
        ;
    if (!(v->def_slot = hx_calloc(v->def_cap, sizeof *v->def_slot)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(v->defs[i].symbol, v->defs[i - 1].symbol))
            continue;
        size_t at = symbol_hash(v->defs[i].symbol) & (v->def_cap - 1);
        while (v->def_slot[at])
            at = (at + 1) & (v->def_cap - 1);
        v->def_slot[at] = (uint32_t)i + 1;
    }
    return 0;
}

uint32_t ix_definition_of(const ix_view *v, uint32_t decl, bool (*allowed)(uint32_t id, void *ctx), void *ctx)
{
    size_t nm;
    const hx_kv *m = ix_chunk_meta(ix_segment_of(v, decl), decl, &nm);
    const char *symbol = hxi_kv_get(m, nm, "symbol");
    const ix_doc *home = ix_doc_by_id(v, ix_chunk_field(ix_segment_of(v, decl), decl, IX_F_DOC));
    const ix_def *e = ix_chunk_declares(v, decl) && home ? symbol_group(v, symbol) : NULL;
    if (!e)
        return UINT32_MAX;
    const char *home_base, *base;
    size_t home_stem = hxi_path_stem(home->info.path, &home_base);
    uint32_t best = UINT32_MAX;
    int best_rank = -1, n_best = 0;   /* 2: the declaration's document, 1: a file of its stem, 0: another */
    for (const ix_def *end = v->defs + v->n_defs; e < end && !strcmp(e->symbol, symbol);) {
        const ix_def *doc = e;   /* this document's definitions of symbol, in chunk order */
        while (e < end && e->doc == doc->doc && !strcmp(e->symbol, symbol))
            e++;
        const ix_doc *d = &v->docs[doc->doc];
        if (d->hidden)
            continue;
        size_t st = hxi_path_stem(d->info.path, &base);
        int rank = d == home ? 2 : st == home_stem && !memcmp(base, home_base, st) ? 1 : 0;
        if (rank < best_rank)
            continue;
        while (doc < e && !allowed(doc->chunk, ctx))
            doc++;
        if (doc == e)
            continue;
        n_best = rank > best_rank ? 1 : n_best + 1;
        if (rank > best_rank)
            best = doc->chunk;   /* a document's first such chunk */
        best_rank = rank;
    }
    return best_rank > 0 || n_best == 1 ? best : UINT32_MAX;
}
