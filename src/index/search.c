/* search.c: answering queries over one index view: the keyword side (BM25 over every segment
 * with index-wide statistics), the vector side (HNSW per segment, merged), filters applied
 * inside both (with the reader identity's visibility, view_load.c ix_view_visibility), fusion, relevance (fusion.h hxi_relevance) and its floor, recency (recency.h),
 * duplicate removal, the deterministic tie-break (score, path, chunk index),
 * grouping by document (hyrax.h hx_group) and result assembly with snippets. Reads the view
 * built by view_load.c; never writes. */
#include "fusion.h"
#include "alloc.h"
#include "chunker.h"
#include "doctype.h"
#include "filter.h"
#include "ix.h"
#include "recency.h"
#include "relpath.h"
#include "title.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEFAULT_K 10
#define MAX_K 1000

void hx_search_opts_default(hx_search_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = HX_MODE_HYBRID;
    o->fusion = HX_FUSION_RRF;
    o->k = DEFAULT_K;
    o->min_score = NAN;
    o->exclude_chunk = -1;
    o->exclude_doc = -1;
}

void hx_results_free(hx_results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].snippet);
        free(r->v[i].more);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* === Filters === */

/* The chunks both sides may return: those of documents the handle's identity sees (the view's
 * visible_chunks) that pass the filters (a chunk by its document or its unit's pairs, filter.h)
 * and exclusions. */
typedef struct {
    const ix_view *v;
    const uint8_t *allowed;   /* NULL when every live chunk is allowed */
    uint8_t *owned;           /* allowed when built here, else NULL */
    uint64_t n_allowed;
} chunk_filter;

static int filter_build(chunk_filter *cf, const ix_view *v, const hx_search_opts *o, hx_error *err)
{
    cf->v = v;
    cf->allowed = v->visible_chunks;
    cf->owned = NULL;
    cf->n_allowed = v->n_visible_chunks;
    if (v->restricted && !v->visible_chunks)   /* ix_view_visibility ran out of memory */
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    if (!o->n_filters && o->exclude_doc < 0 && o->exclude_chunk < 0)
        return 0;
    if (!(cf->owned = hx_calloc(((size_t)v->next_chunk + 7) / 8 + 1, 1)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    cf->allowed = cf->owned;
    cf->n_allowed = 0;
    for (size_t i = 0; i < v->n_docs; i++) {
        const hx_doc_info *d = &v->docs[i].info;
        if (v->docs[i].hidden || (o->exclude_doc >= 0 && d->id == (uint32_t)o->exclude_doc))
            continue;
        bool whole = hx_doc_matches(d, o->filters, o->n_filters);
        const ix_segment *s0 = d->n_chunks ? ix_segment_of(v, d->first_chunk) : NULL;
        if (!whole && (!s0 || (!s0->unit_kv && s0 == ix_segment_of(v, d->first_chunk + d->n_chunks - 1))))
            continue;   /* no chunk of it has unit pairs */
        for (uint32_t c = d->first_chunk; c < d->first_chunk + d->n_chunks; c++) {
            size_t nm = 0;
            const hx_kv *m = whole ? NULL : ix_chunk_meta(ix_segment_of(v, c), c, &nm);
            if ((o->exclude_chunk >= 0 && c == (uint32_t)o->exclude_chunk) ||
                (!whole && (!nm || !hxi_chunk_matches(d, m, nm, o->filters, o->n_filters))))
                continue;
            cf->owned[c / 8] |= (uint8_t)(1u << (c % 8));
            cf->n_allowed++;
        }
    }
    return 0;
}

static int bm25_allowed(void *ctx, uint32_t id)
{
    const chunk_filter *cf = ctx;
    return id < cf->v->next_chunk && (cf->allowed[id / 8] >> (id % 8) & 1);
}

static bool hnsw_allowed(uint32_t id, void *ctx)
{
    const chunk_filter *cf = ctx;
    return !ix_is_deleted(cf->v, id) && (!cf->allowed || (cf->allowed[id / 8] >> (id % 8) & 1));
}

/* === The two sides === */

/* The keyword side's best n_cand hits into out; *bound gets the query's BM25 score bound. */
static int keyword_side(const ix_view *v, const hxi_bm25_query *q, chunk_filter *cf, size_t n_cand,
                        hxi_hit *out, size_t *n_out, double *bound, hx_error *err)
{
    *n_out = 0;
    hxi_bm25_segment *segs = hx_malloc(sizeof *segs * (v->n_segs ? v->n_segs : 1));
    hxi_bm25_hit *hits = hx_malloc(sizeof *hits * n_cand);
    int rc = 0;
    if (!segs || !hits) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto done;
    }
    size_t n_segs = 0;
    for (size_t i = 0; i < v->n_segs; i++) {
        if (!v->segs[i].n)
            continue;
        segs[n_segs].reader = &v->segs[i].bm25;
        segs[n_segs].is_deleted = v->n_tomb ? ix_bm25_deleted : NULL;
        segs[n_segs].deleted_ctx = (void *)v;
        segs[n_segs].live_docs = v->segs[i].bm25_live_docs;
        segs[n_segs].live_len = v->segs[i].bm25_live_len;
        n_segs++;
    }
    hxi_bm25_params p;
    hxi_bm25_params_default(&p);
    p.bound = bound;
    if (cf->allowed) {
        p.allow = bm25_allowed;
        p.allow_ctx = cf;
    }
    size_t n = 0;
    if ((rc = hxi_bm25_search(segs, n_segs, q, &p, n_cand, hits, &n, err)))
        goto done;
    for (size_t i = 0; i < n; i++)
        out[i] = (hxi_hit){hits[i].doc_id, (float)hits[i].score};
    *n_out = n;
done:
    free(segs);
    free(hits);
    return rc;
}

static int compare_hit(const void *pa, const void *pb)
{
    const hxi_hit *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int vector_side(const ix_view *v, const float *vec, chunk_filter *cf, uint32_t ef, size_t n_cand,
                       hxi_hit *out, size_t *n_out, hx_error *err)
{
    *n_out = 0;
    size_t live = 0;
    for (size_t i = 0; i < v->n_segs; i++)
        live += v->segs[i].n;
    live = live > v->n_tomb ? live - v->n_tomb : 0;
    float fraction = cf->allowed && live ? (float)cf->n_allowed / (float)live : 1.0f;
    if (fraction <= 0)
        return 0;
    hxi_hnsw_hit *hits = hx_malloc(sizeof *hits * n_cand);
    hxi_hit *all = hx_malloc(sizeof *all * n_cand * (v->n_segs ? v->n_segs : 1));
    int rc = 0;
    size_t n_all = 0;
    if (!hits || !all) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < v->n_segs && !rc; i++) {
        if (!v->segs[i].n)
            continue;
        hxi_hnsw_query q = {.vector = vec, .k = (uint32_t)n_cand, .ef = ef, .filter = hnsw_allowed,
                           .filter_ctx = cf, .filter_fraction = fraction > 1 ? 1 : fraction};
        uint32_t n = 0;
        if ((rc = hxi_hnsw_view_search(v->segs[i].hnsw, &q, hits, &n, NULL, err)))
            break;
        for (uint32_t h = 0; h < n; h++)
            all[n_all++] = (hxi_hit){hits[h].id, hits[h].score};
    }
    if (!rc) {
        qsort(all, n_all, sizeof *all, compare_hit);
        *n_out = n_all < n_cand ? n_all : n_cand;
        memcpy(out, all, sizeof *out * *n_out);
    }
done:
    free(hits);
    free(all);
    return rc;
}

/* === Results === */

static int by_path_then_index(uint32_t a, uint32_t b, void *ctx)
{
    const ix_view *v = ctx;
    const ix_segment *sa = ix_segment_of(v, a), *sb = ix_segment_of(v, b);
    const ix_doc *da = ix_doc_by_id(v, ix_chunk_field(sa, a, IX_F_DOC));
    const ix_doc *db = ix_doc_by_id(v, ix_chunk_field(sb, b, IX_F_DOC));
    int c = da && db ? strcmp(da->info.path, db->info.path) : 0;
    if (c)
        return c;
    uint32_t ia = ix_chunk_field(sa, a, IX_F_INDEX), ib = ix_chunk_field(sb, b, IX_F_INDEX);
    return ia < ib ? -1 : ia > ib;
}

static int fill_result(const ix_view *v, uint32_t chunk_id, hx_result *r)
{
    const ix_segment *s = ix_segment_of(v, chunk_id);
    if (!s || ix_is_deleted(v, chunk_id))
        return HX_ENOTFOUND;
    const ix_doc *d = ix_doc_by_id(v, ix_chunk_field(s, chunk_id, IX_F_DOC));
    if (!d || d->hidden)
        return HX_ENOTFOUND;
    size_t tlen, hlen;
    const char *text = ix_chunk_text(s, chunk_id, &tlen);
    uint32_t body = ix_chunk_field(s, chunk_id, IX_F_BODY);
    memset(r, 0, sizeof *r);
    r->chunk_id = chunk_id;
    r->doc_id = d->info.id;
    r->chunk_index = ix_chunk_field(s, chunk_id, IX_F_INDEX);
    r->line_start = ix_chunk_field(s, chunk_id, IX_F_LINE_START);
    r->line_end = ix_chunk_field(s, chunk_id, IX_F_LINE_END);
    r->unit = hxi_doctype_unit_name(d->info.type);
    r->n_tokens = ix_chunk_field(s, chunk_id, IX_F_TOKENS);
    r->byte_start = ix_chunk_field(s, chunk_id, IX_F_BYTE_START);
    r->byte_end = ix_chunk_field(s, chunk_id, IX_F_BYTE_END);
    r->path = d->info.path;
    r->title = d->info.title;
    r->doc_sha256 = d->info.sha256;
    r->signer = d->info.trust.signer ? d->info.trust.signer : "";
    r->heading = ix_chunk_heading(s, chunk_id, &hlen);
    r->text = text + body;
    r->text_len = tlen - body;
    r->meta = d->info.meta;
    r->n_meta = d->info.n_meta;
    r->chunk_meta = ix_chunk_meta(s, chunk_id, &r->n_chunk_meta);
    r->vector_score = r->keyword_score = r->similarity = r->fused = NAN;
    r->recency = 1;
    return 0;
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211u;
    return h;
}

/* The slot of doc in an open-addressing table (mask + 1 slots) of result indexes + 1 (0 = empty). */
static uint32_t *group_slot(uint32_t *tab, size_t mask, const hx_results *out, uint32_t doc)
{
    size_t h = (doc * 2654435761u) & mask;
    while (tab[h] && out->v[tab[h] - 1].doc_id != doc)
        h = (h + 1) & mask;
    return &tab[h];
}

/* Adds r to the `more` of its document's result. */
static int add_more(hx_result *head, const hx_result *r, hx_error *err)
{
    if (head->n_more == HX_GROUP_MORE_MAX)
        return 0;
    if (!head->more && !(head->more = hx_malloc(sizeof *head->more * HX_GROUP_MORE_MAX)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    head->more[head->n_more++] = *r;
    return 0;
}

/* Turns fused candidates into results: min_score floor, duplicate bodies dropped (the same
 * passage in two files), grouped by document when asked (every candidate is read, so `more`
 * holds all of a document's chunks among them), cut to k. Headings are not NUL-terminated in
 * the map, so result strings that come from chunk data carry lengths. */
static int assemble(const ix_view *v, const hxi_fused *f, size_t n, const hx_search_opts *o, uint32_t k,
                    bool hybrid, hx_results *out, hx_error *err)
{
    bool grouped = o->group == HX_GROUP_DOCUMENT;
    size_t slots = 1;
    while (grouped && slots < 2 * (size_t)k + 2)
        slots *= 2;
    uint64_t *seen = hx_malloc(sizeof *seen * (k + 1));
    uint32_t *groups = grouped ? hx_calloc(slots, sizeof *groups) : NULL;
    out->v = hx_calloc(k ? k : 1, sizeof *out->v);
    out->group = o->group;
    int rc = 0;
    if (!seen || (grouped && !groups) || !out->v) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (!isnan(o->min_score) && f[i].relevance < o->min_score)
            continue;   /* a fused or recency order is not by relevance: later ones may pass */
        if (!grouped && out->n == k)
            break;
        hx_result r;
        if (fill_result(v, f[i].id, &r))
            continue;
        r.score = f[i].rank;
        r.relevance = f[i].relevance;
        r.vector_score = f[i].vector_score;
        r.keyword_score = f[i].keyword_score;
        r.similarity = f[i].similarity;
        r.fused = hybrid ? f[i].score : NAN;
        r.recency = f[i].recency;
        uint32_t *slot = grouped ? group_slot(groups, slots - 1, out, r.doc_id) : NULL;
        if (slot && *slot) {
            rc = add_more(&out->v[*slot - 1], &r, err);
            continue;
        }
        if (out->n == k)
            continue;   /* grouped: later candidates may still belong to a listed document */
        uint64_t h = fnv1a(r.text, r.text_len);
        bool dup = false;
        for (size_t j = 0; j < out->n && !dup; j++)
            dup = seen[j] == h;
        if (dup)
            continue;
        seen[out->n] = h;
        r.rank = (uint32_t)out->n + 1;
        out->v[out->n++] = r;
        if (slot)
            *slot = (uint32_t)out->n;
    }
done:
    free(seen);
    free(groups);
    return rc;
}

/* Marked-up snippets for the results (not for `more`). */
static int add_snippets(hx_results *out, const hxi_bm25_query *q, hx_error *err)
{
    for (size_t i = 0; i < out->n; i++) {
        size_t sl;
        int rc = hxi_snippet_make(out->v[i].text, out->v[i].text_len, q, 0, &out->v[i].snippet, &sl, err);
        if (rc)
            return rc;
    }
    return 0;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* === Entry points === */

/* Cosine of vec and chunk id's stored vector. */
static float cosine(const ix_view *v, uint32_t dim, const float *vec, uint32_t id)
{
    const float *c = ix_chunk_vector(ix_segment_of(v, id), id);
    double dot = 0;
    for (uint32_t i = 0; i < dim; i++)
        dot += (double)vec[i] * c[i];
    return (float)dot;
}

/* The date of chunk id's document for recency. */
static int64_t chunk_date(const ix_view *v, uint32_t id, const char *key)
{
    const ix_doc *d = ix_doc_by_id(v, ix_chunk_field(ix_segment_of(v, id), id, IX_F_DOC));
    return d ? hxi_recency_date(&d->info, key) : 0;
}

/* A document's best name match (title.h), kept for its other chunks. */
typedef struct {
    uint32_t doc;
    float match;
} doc_match;

/* The match of a document's title (also without a leading label, a first word that ends in a
 * colon: "KEP-753: Sidecar Containers" names "Sidecar Containers"), the title its metadata gives
 * (front matter, or a folder's metadata file such as kep.yaml), its file name (without its
 * extension) and, for the document a folder opens with (README or index), the folder's name. A
 * folder's metadata file (a --folder-meta name other than README, such as kep.yaml) names nothing:
 * its title is its folder's, which the folder's README answers for. */
static float doc_names(hxi_title_query *tq, const ix_view *v, const ix_doc *d)
{
    const char *path = d->info.path, *file, *title = d->info.title;
    size_t stem = hxi_path_stem(path, &file);
    bool opens = (stem == 6 && !strncasecmp(file, "readme", 6)) || (stem == 5 && !strncasecmp(file, "index", 5));
    for (size_t i = 0; !opens && i < v->n_folder_meta; i++)
        if (!strcmp(file, v->folder_meta[i]))
            return 0;
    float m = hxi_title_match(tq, title, strlen(title)), f;
    const char *label = title + strcspn(title, " :");
    if (*label == ':' && label[1] == ' ' && (f = hxi_title_match(tq, label + 2, strlen(label + 2))) > m)
        m = f;
    const char *meta_title = hxi_kv_get(d->info.meta, d->info.n_meta, "title");
    if (meta_title && (f = hxi_title_match(tq, meta_title, strlen(meta_title))) > m)
        m = f;
    f = hxi_title_match(tq, file, stem);
    m = f > m ? f : m;
    if (opens && file > path + 1) {
        const char *end = file - 1, *start = end;
        while (start > path && start[-1] != '/')
            start--;
        f = hxi_title_match(tq, start, (size_t)(end - start));
        m = f > m ? f : m;
    }
    return m;
}

/* The name match of chunk id: its document's (kept in dm[0..*n_dm)) or HEADING_MATCH times its own
 * heading's (the last part of its heading path), the better: a document that a query names outranks
 * a section of another that has the name as its heading. */
#define HEADING_MATCH 0.5f
static float name_match(const ix_view *v, hxi_title_query *tq, uint32_t id, doc_match *dm, size_t *n_dm)
{
    const ix_segment *s = ix_segment_of(v, id);
    uint32_t doc = ix_chunk_field(s, id, IX_F_DOC);
    size_t i = 0;
    while (i < *n_dm && dm[i].doc != doc)
        i++;
    if (i == *n_dm) {
        const ix_doc *d = ix_doc_by_id(v, doc);
        dm[(*n_dm)++] = (doc_match){doc, d ? doc_names(tq, v, d) : 0};
    }
    size_t hl;
    const char *h = ix_chunk_heading(s, id, &hl), *last = hxi_heading_last(h, hl);
    float m = HEADING_MATCH * hxi_title_match(tq, last, hl - (size_t)(last - h));
    return m > dm[i].match ? m : dm[i].match;
}

/* s[0..n) with ASCII letters lowercased and every byte that is not a letter, a digit or non-ASCII
 * left out, into out (cap bytes at most); its length. */
static size_t plain(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            out[k++] = (char)(c + 32);
        else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80)
            out[k++] = (char)c;
    }
    return k;
}

/* The words of a keyword query that say whether a chunk's own lines answer it (boiler.c
 * ix_repeat_cut): its terms, stemmed ones without their mark, stop words left out. */
typedef struct query_words {
    ix_word w[64];
    size_t n;
} query_words;

static void query_words_of(const hxi_bm25_query *q, query_words *qw)
{
    const char *t;
    size_t len;
    int prefix;
    qw->n = 0;
    size_t cap = sizeof qw->w / sizeof *qw->w;
    for (size_t i = 0; qw->n < cap && hxi_bm25_query_highlight(q, i, &t, &len, &prefix) == 0; i++) {
        if (len && *t == HX_STEM_MARK) {
            t++;
            len--;
        } else if (hxi_analyzer_is_stop(t, len))
            continue;
        if (len)
            qw->w[qw->n++] = (ix_word){t, len};
    }
}

/* The repeat cut of chunk id (fusion.h HX_REPEAT_WEIGHT) for the keyword words qw (NULL: the
 * vector side): the share of its body, or of the query's words found in it, that is boilerplate
 * (boiler.c ix_repeat_cut), at least TITLE_ONLY_CUT for a chunk that, in a document of several
 * chunks, says no more than its heading path's last part or its document's title (below the chunks
 * that say something, still found when nothing else answers: a file of headings alone); the only
 * chunk of a one-line note is its answer, whatever its title. */
#define TITLE_ONLY_CUT 0.5f
static float repeats(const ix_view *v, uint32_t id, const query_words *qw)
{
    float share = ix_repeat_cut(v, id, qw ? qw->w : NULL, qw ? qw->n : 0);
    if (share >= TITLE_ONLY_CUT)
        return share;
    const ix_segment *s = ix_segment_of(v, id);
    const ix_doc *d = ix_doc_by_id(v, ix_chunk_field(s, id, IX_F_DOC));
    if (!d || d->info.n_chunks < 2)
        return share;
    size_t tlen, hl;
    const char *text = ix_chunk_text(s, id, &tlen), *h = ix_chunk_heading(s, id, &hl);
    const char *last = hxi_heading_last(h, hl);
    uint32_t body = ix_chunk_field(s, id, IX_F_BODY);
    if (tlen - body > 256)
        return share;
    char a[256], b[256];
    size_t na = plain(text + body, tlen - body, a, sizeof a), nb = plain(last, hl - (size_t)(last - h), b, sizeof b);
    if (!na || (na == nb && !memcmp(a, b, na)))
        return TITLE_ONLY_CUT;
    nb = plain(d->info.title, strlen(d->info.title), b, sizeof b);
    return na == nb && !memcmp(a, b, na) ? TITLE_ONLY_CUT : share;
}

/* Orders one side's hits (side: HX_MODE_VECTOR or HX_MODE_KEYWORD) as that side searched alone
 * ranks them, by its relevance with the name match and the repeat cut, ties in the side's own
 * order: the ranks reciprocal rank fusion takes. key: scratch of n floats. */
static void rank_side(hx_index *ix, hxi_title_query *tq, const query_words *qw, hx_search_mode side, double bound,
                      hxi_hit *h, size_t n, doc_match *dm, float *key)
{
    size_t n_dm = 0;
    for (size_t i = 0; i < n; i++) {
        float nm = tq ? name_match(&ix->v, tq, h[i].id, dm, &n_dm) : 0.0f;
        float rp = repeats(&ix->v, h[i].id, side == HX_MODE_KEYWORD ? qw : NULL);
        float x = side == HX_MODE_KEYWORD && bound > 0 ? (float)(h[i].score / bound) : 0.0f;
        key[i] = hxi_relevance_named(side, side == HX_MODE_VECTOR ? h[i].score : NAN, x, nm, rp);
    }
    for (size_t i = 1; i < n; i++) {   /* insertion sort, stable */
        hxi_hit x = h[i];
        float kx = key[i];
        size_t j = i;
        while (j > 0 && kx > key[j - 1]) {
            h[j] = h[j - 1];
            key[j] = key[j - 1];
            j--;
        }
        h[j] = x;
        key[j] = kx;
    }
}

/* Relevance and similarity of every candidate (fusion.h: x is BM25 over the query's bound, 0
 * where the keyword side missed; the name match when tq is given, dm its scratch of n entries),
 * the recency factor when asked, and the rank the list is sorted by: the relevance (in hybrid mode
 * under HX_FUSION_RELEVANCE with f's weights, hxi_rank_score) or the fused score, times the recency
 * factor. */
static void score_candidates(hx_index *ix, const float *vec, double bound, hxi_title_query *tq, const query_words *qw,
                             hx_search_mode mode, const hx_search_opts *o, const hxi_fusion *f, hxi_fused *c, size_t n,
                             doc_match *dm)
{
    int64_t now = (int64_t)time(NULL);
    bool fused = mode == HX_MODE_HYBRID && o->fusion != HX_FUSION_RELEVANCE;
    size_t n_dm = 0;
    for (size_t i = 0; i < n; i++) {
        float cs = !vec ? NAN : !isnan(c[i].vector_score) ? c[i].vector_score : cosine(&ix->v, ix->dim, vec, c[i].id);
        float x = !isnan(c[i].keyword_score) && bound > 0 ? (float)(c[i].keyword_score / bound) : 0.0f;
        float nm = tq ? name_match(&ix->v, tq, c[i].id, dm, &n_dm) : 0.0f;
        float rp = repeats(&ix->v, c[i].id, isnan(c[i].keyword_score) ? NULL : qw);
        c[i].similarity = cs;
        c[i].relevance = hxi_relevance_named(mode, cs, x, nm, rp);
        c[i].recency = o->recency_key ? (float)hxi_recency_factor(chunk_date(&ix->v, c[i].id, o->recency_key), now,
                                                                  o->recency_half_life_days)
                                      : 1.0f;
        float r = fused ? c[i].score : mode == HX_MODE_HYBRID ? hxi_rank_score(f, cs, x, nm, rp) : c[i].relevance;
        c[i].rank = o->recency_key ? r * c[i].recency : r;
    }
}

/* Orders candidates by their rank (hxi_fused.rank), ties by path then chunk index (insertion sort:
 * at most 2 x the rank window). */
static void sort_by_rank(const ix_view *v, hxi_fused *f, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        hxi_fused x = f[i];
        size_t j = i;
        while (j > 0 && (x.rank > f[j - 1].rank || (x.rank == f[j - 1].rank && by_path_then_index(x.id, f[j - 1].id, (void *)v) < 0))) {
            f[j] = f[j - 1];
            j--;
        }
        f[j] = x;
    }
}

/* A declaration answers for its definition: where a candidate is the chunk of a C or C++ prototype
 * (a unit of kind `declaration`, often the one with the doc comment), the first chunk of the
 * definition of its symbol that the search may answer (ix_definition_of) takes its place and its
 * scores, and the definition's own lower place is given up; a declaration whose definition ranks
 * above it already leaves the list. The prototype is not listed beside its definition (a filter
 * that excludes the definition, such as kind=declaration, lists it). At most DECLARATION_LOOKUPS
 * declarations are looked up per search (each in the view's table of definitions). The one
 * place of that rule; f[0..*n) sorted. */
#define DECLARATION_LOOKUPS 16
static void defer_declarations(const ix_view *v, chunk_filter *cf, hxi_fused *f, size_t *n)
{
    for (size_t i = 0, looked = 0; i < *n && looked < DECLARATION_LOOKUPS;) {
        bool declares = ix_chunk_declares(v, f[i].id);
        uint32_t def = declares ? ix_definition_of(v, f[i].id, hnsw_allowed, cf) : UINT32_MAX;
        looked += declares;
        if (def == UINT32_MAX) {
            i++;
            continue;
        }
        size_t j = 0;
        while (j < *n && f[j].id != def)
            j++;
        size_t gone = j < i ? i : j;   /* the declaration, or the definition's lower place */
        if (j > i)
            f[i++].id = def;
        if (gone < *n) {
            memmove(f + gone, f + gone + 1, sizeof *f * (*n - gone - 1));
            (*n)--;
        }
    }
}

/* One search with n_cand candidates per side (the rank window): vec may be NULL (keyword only), q
 * may be NULL (vector only). */
static int search_window(hx_index *ix, const float *vec, const hxi_bm25_query *q, hxi_title_query *tq,
                         const hx_search_opts *o, uint32_t k, size_t n_cand, hx_results *out, hx_error *err)
{
    const ix_view *v = &ix->v;
    hxi_hit *vh = hx_malloc(sizeof *vh * n_cand), *kh = hx_malloc(sizeof *kh * n_cand);
    hxi_fused *fused = hx_malloc(sizeof *fused * 2 * n_cand);
    doc_match *dm = tq ? hx_malloc(sizeof *dm * 2 * n_cand) : NULL;
    chunk_filter cf = {0};
    size_t nv = 0, nk = 0, nf = 0;
    double bound = 0;
    int rc = 0;
    if (!vh || !kh || !fused || (tq && !dm)) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto done;
    }
    if ((rc = filter_build(&cf, v, o, err)))
        goto done;
    bool vector_only = !q, keyword_only = !vec, hybrid = !vector_only && !keyword_only;
    hx_search_mode mode = vector_only ? HX_MODE_VECTOR : keyword_only ? HX_MODE_KEYWORD : HX_MODE_HYBRID;
    if (vec && (rc = vector_side(v, vec, &cf, o->ef, n_cand, vh, &nv, err)))
        goto done;
    if (q && (rc = keyword_side(v, q, &cf, n_cand, kh, &nk, &bound, err)))
        goto done;
    query_words qw = {.n = 0};
    if (q)
        query_words_of(q, &qw);
    hxi_fusion f = {o->fusion == HX_FUSION_WEIGHTED ? HX_FUSE_WEIGHTED : HX_FUSE_RRF, o->rrf_k ? o->rrf_k : HX_RRF_K,
                   HX_VECTOR_WEIGHT, HX_TEXT_WEIGHT};
    if (o->vector_weight > 0 || o->text_weight > 0) {
        f.vector_weight = o->vector_weight;
        f.text_weight = o->text_weight;
    }
    if (!hybrid) {
        /* a single side keeps its own order: cosine or BM25 */
        const hxi_hit *h = vector_only ? vh : kh;
        nf = vector_only ? nv : nk;
        for (size_t i = 0; i < nf; i++) {
            fused[i] = (hxi_fused){h[i].id, h[i].score, NAN, NAN, 0, 0, 0, NAN, 1, 0};
            if (vector_only) {
                fused[i].vector_score = h[i].score;
                fused[i].vector_rank = (uint32_t)i + 1;
            } else {
                fused[i].keyword_score = h[i].score;
                fused[i].keyword_rank = (uint32_t)i + 1;
            }
        }
    } else {
        if (f.kind == HX_FUSE_RRF && o->fusion == HX_FUSION_RRF) {   /* the ranks each mode alone gives */
            float *key = (float *)fused;   /* scratch: fused is not filled yet */
            rank_side(ix, tq, &qw, HX_MODE_VECTOR, bound, vh, nv, dm, key);
            rank_side(ix, tq, &qw, HX_MODE_KEYWORD, bound, kh, nk, dm, key);
        }
        if ((rc = hxi_fuse(&f, vh, nv, kh, nk, by_path_then_index, (void *)v, fused, &nf, err)))
            goto done;
    }
    score_candidates(ix, vec, bound, tq, &qw, mode, o, &f, fused, nf, dm);
    sort_by_rank(v, fused, nf);
    defer_declarations(v, &cf, fused, &nf);
    out->total_candidates = nf;
    out->keyword_bound = bound;
    rc = assemble(v, fused, nf, o, k, hybrid, out, err);
done:
    free(cf.owned);
    free(vh);
    free(kh);
    free(fused);
    free(dm);
    return rc;
}

/* Searches with the rank window (hyrax.h HX_RANK_WINDOW): the same candidates, hence the same
 * order and scores, for every k up to it. */
static int run_search(hx_index *ix, const float *vec, const hxi_bm25_query *q, hxi_title_query *tq,
                      const hx_search_opts *o, hx_results *out, hx_error *err)
{
    uint32_t k = o->k ? (o->k > MAX_K ? MAX_K : o->k) : DEFAULT_K;
    uint32_t w = o->rank_window ? o->rank_window : HX_RANK_WINDOW;
    if (w > HX_RANK_WINDOW_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "the rank window must be at most %u chunks, not %u",
                            (unsigned)HX_RANK_WINDOW_MAX, w);
    if (o->recency_key && !(o->recency_half_life_days > 0 && isfinite(o->recency_half_life_days)))
        return hx_error_set(err, HX_EINVAL, -1, "recency needs a half-life > 0 days, got %g", o->recency_half_life_days);
    return search_window(ix, vec, q, tq, o, k, w > k ? w : k, out, err);
}

int hx_index_search_embedded(hx_index *ix, const char *query, size_t len, const float *vec,
                             const hx_search_opts *o, hx_results *out, hx_error *err)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(out, 0, sizeof *out);
    hx_search_opts def;
    if (!o) {
        hx_search_opts_default(&def);
        o = &def;
    }
    if (o->mode != HX_MODE_KEYWORD && !vec)
        return hx_error_set(err, HX_EINVAL, -1, "vector and hybrid search need the query's vector");
    hxi_bm25_query *q = NULL;
    hxi_title_query *tq = hx_malloc(sizeof *tq);
    if (!tq)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    int rc = hxi_title_query_init(tq, query, len, err);
    if (!rc)
        rc = hxi_bm25_query_parse(&q, ix->analyzer, query, len, err);   /* also drives snippets */
    if (!rc)   /* vector mode searches without the keyword side; its snippets are marked alike */
        rc = run_search(ix, o->mode == HX_MODE_KEYWORD ? NULL : vec, o->mode == HX_MODE_VECTOR ? NULL : q, tq, o, out,
                        err);
    if (!rc && o->snippets)
        rc = add_snippets(out, q, err);
    hxi_bm25_query_free(q);
    hxi_title_query_free(tq);
    free(tq);
    if (rc)
        hx_results_free(out);
    else
        out->search_ms = ms_since(&t0);
    return rc;
}

int hx_index_search(hx_index *ix, hx_encoder *enc, const char *query, size_t len,
                    const hx_search_opts *o, hx_results *out, hx_error *err)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(out, 0, sizeof *out);
    float *vec = NULL;
    int rc = 0;
    if (!o || o->mode != HX_MODE_KEYWORD) {   /* the query's vector, then the search with it */
        if (!enc)
            return hx_error_set(err, HX_EINVAL, -1, "vector and hybrid search need the embedding model");
        if (!(vec = hx_malloc(sizeof *vec * ix->dim)))
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        rc = hx_encoder_embed(enc, &query, &len, 1, vec, err);
    }
    if (!rc && !(rc = hx_index_search_embedded(ix, query, len, vec, o, out, err)))
        out->search_ms = ms_since(&t0);   /* the embedding included */
    free(vec);
    return rc;
}

int hx_index_search_vector(hx_index *ix, const float *vec, const hx_search_opts *o, hx_results *out,
                           hx_error *err)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(out, 0, sizeof *out);
    int rc = run_search(ix, vec, NULL, NULL, o, out, err);
    if (rc)
        hx_results_free(out);
    else
        out->search_ms = ms_since(&t0);
    return rc;
}

int hx_index_chunk_vector(hx_index *ix, uint32_t chunk_id, float *out, hx_error *err)
{
    const ix_segment *s = ix_segment_of(&ix->v, chunk_id);
    const ix_doc *d = s && !ix_is_deleted(&ix->v, chunk_id) ? ix_doc_by_id(&ix->v, ix_chunk_field(s, chunk_id, IX_F_DOC))
                                                             : NULL;
    if (!d || d->hidden)
        return hx_error_set(err, HX_ENOTFOUND, -1, "no chunk %u in the index", chunk_id);
    memcpy(out, ix_chunk_vector(s, chunk_id), sizeof *out * ix->dim);
    return 0;
}

int hx_index_doc_vector(hx_index *ix, uint32_t doc_id, float *out, hx_error *err)
{
    const ix_doc *d = ix_doc_by_id(&ix->v, doc_id);
    if (!d || d->hidden || !d->info.n_chunks)
        return hx_error_set(err, HX_ENOTFOUND, -1, "no document %u with chunks in the index", doc_id);
    memset(out, 0, sizeof *out * ix->dim);
    for (uint32_t c = d->info.first_chunk; c < d->info.first_chunk + d->info.n_chunks; c++) {
        const float *v = ix_chunk_vector(ix_segment_of(&ix->v, c), c);
        for (uint32_t i = 0; i < ix->dim; i++)
            out[i] += v[i];
    }
    double norm = 0;
    for (uint32_t i = 0; i < ix->dim; i++)
        norm += (double)out[i] * out[i];
    float inv = norm > 0 ? (float)(1.0 / sqrt(norm)) : 0;
    for (uint32_t i = 0; i < ix->dim; i++)
        out[i] *= inv;
    return 0;
}

int hx_index_chunk(hx_index *ix, uint32_t chunk_id, hx_result *out, hx_error *err)
{
    if (fill_result(&ix->v, chunk_id, out))
        return hx_error_set(err, HX_ENOTFOUND, -1, "no chunk %u in the index", chunk_id);
    out->score = 0;
    return 0;
}
