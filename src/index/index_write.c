/* index_write.c: how a change set becomes commits: segments, the document table, tombstones,
 * parts, and compaction (what to change is index_update.c's). Every change is one transaction:
 * new chunks land as a new segment, replaced and removed chunks are tombstoned, and a single store
 * commit makes it all visible (a long update is a series of such transactions, one per part of
 * about HX_COMMIT_CHUNKS chunks).
 * Formats are in ix.h; reading lives in view_load.c and view.c. */
#include "bytes.h"
#include "alloc.h"
#include "audit.h"
#include "chunker.h"
#include "kernels.h"
#include "model.h"
#include "fsafe.h"
#include "gate.h"
#include "ix.h"
#include "index_write.h"
#include "ingest.h"
#include "platform.h"
#include "relpath.h"
#include "sha256.h"
#include "wire.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EMBED_BATCH 64
#define HNSW_SEED 0x68797261u              /* "hyra": builds are reproducible */
#define COMPACT_SEGMENTS 32                /* compact when more segments than this ... */
#define COMPACT_TOMBSTONE_SHARE 0.3        /* ... or when this share of chunks is deleted */

/* === Segment building === */

typedef struct seg_chunk {
    uint32_t f[IX_CHUNK_FIELDS];           /* the row of the chunks section */
    const char *text, *heading;            /* borrowed */
    size_t text_len, heading_len;
    const hx_kv *meta;                     /* its unit's pairs (chunk_meta.c); borrowed */
    size_t n_meta;
    const uint8_t *key;                    /* its embedding key (reuse.c), NULL when unknown; borrowed */
} seg_chunk;

static int build_threads(void)
{
    int n = hx_platform_cpus();
    return n > 16 ? 16 : n;
}

/* The line prints of chunks c[0..n) (ix.h "lines_at", "line_prints"): lines_at (n + 1
 * rows of 2, the caller's) and *prints (*n_lines rows of 3; caller frees), little-endian. */
static int line_prints(const seg_chunk *c, size_t n, uint32_t *lines_at, uint32_t **prints, size_t *n_lines,
                       hx_error *err)
{
    size_t m = 0, cap = 0;
    uint32_t letters;
    for (size_t i = 0; i < n; i++) {
        size_t k = ix_line_prints(c[i].text + c[i].f[IX_F_BODY], c[i].text_len - c[i].f[IX_F_BODY], c[i].heading,
                                  c[i].heading_len, NULL, 0, &letters);
        cap = k > cap ? k : cap;
        m += k;
    }
    ix_line_print *one = hx_malloc(sizeof *one * (cap ? cap : 1));
    uint32_t *out = hx_malloc(sizeof *out * 3 * (m ? m : 1));
    if (!one || !out || m >= UINT32_MAX) {
        free(one);
        free(out);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory building a segment's line prints");
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = ix_line_prints(c[i].text + c[i].f[IX_F_BODY], c[i].text_len - c[i].f[IX_F_BODY], c[i].heading,
                                  c[i].heading_len, one, cap, &letters);
        hxf_put32((uint8_t *)&lines_at[2 * i], (uint32_t)at);
        hxf_put32((uint8_t *)&lines_at[2 * i + 1], letters);
        for (size_t j = 0; j < k; j++, at++) {
            hxf_put32((uint8_t *)&out[3 * at], (uint32_t)one[j].print);
            hxf_put32((uint8_t *)&out[3 * at + 1], (uint32_t)(one[j].print >> 32));
            hxf_put32((uint8_t *)&out[3 * at + 2], one[j].letters);
        }
    }
    hxf_put32((uint8_t *)&lines_at[2 * n], (uint32_t)at);
    hxf_put32((uint8_t *)&lines_at[2 * n + 1], 0);
    free(one);
    *prints = out;
    *n_lines = m;
    return 0;
}

/* Builds the segment image for chunks base .. base + n - 1 (vectors: n x dim, borrowed). */
static int build_segment(uint32_t base, const seg_chunk *c, size_t n, const float *vectors, uint32_t dim,
                         uint8_t **image, size_t *image_len, hx_error *err)
{
    int rc = 0;
    hxf_writer w;
    uint32_t *rows = NULL, *text_off = NULL, *head_off = NULL, *ids = NULL, *lines_at = NULL, *prints = NULL;
    char *text = NULL, *heads = NULL;
    uint8_t *keys = NULL;
    bool keyed = false;
    const hx_kv **meta = NULL;
    size_t *n_meta = NULL;
    uint8_t *bm25 = NULL, *graph = NULL;
    size_t bm25_len = 0, graph_len = 0, text_len = 0, heads_len = 0, n_lines = 0;
    hxi_bm25_builder *bb = NULL;
    hxi_hnsw *hn = NULL;
    if (n > UINT32_MAX - 1 - base)
        return hx_error_set(err, HX_ERANGE, -1, "too many chunks");
    for (size_t i = 0; i < n; i++) {
        text_len += c[i].text_len;
        heads_len += c[i].heading_len + 1;   /* stored NUL-terminated */
    }
    if (text_len >= UINT32_MAX || heads_len >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "segment text exceeds 4 GiB");
    rows = hx_malloc(sizeof *rows * IX_CHUNK_FIELDS * (n ? n : 1));
    text_off = hx_malloc(sizeof *text_off * (n + 1));
    head_off = hx_malloc(sizeof *head_off * (n + 1));
    ids = hx_malloc(sizeof *ids * (n ? n : 1));
    text = hx_malloc(text_len ? text_len : 1);
    heads = hx_malloc(heads_len ? heads_len : 1);
    lines_at = hx_malloc(sizeof *lines_at * 2 * (n + 1));
    meta = hx_malloc(sizeof *meta * (n ? n : 1));
    n_meta = hx_malloc(sizeof *n_meta * (n ? n : 1));
    keys = hx_calloc(n ? n : 1, IX_EMBED_KEY);
    if (!rows || !text_off || !head_off || !ids || !text || !heads || !lines_at || !meta || !n_meta || !keys) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory building a segment");
        goto done;
    }
    size_t to = 0, ho = 0;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < IX_CHUNK_FIELDS; k++)
            hxf_put32((uint8_t *)&rows[i * IX_CHUNK_FIELDS + (size_t)k], c[i].f[k]);
        hxf_put32((uint8_t *)&text_off[i], (uint32_t)to);
        hxf_put32((uint8_t *)&head_off[i], (uint32_t)ho);
        memcpy(text + to, c[i].text, c[i].text_len);
        memcpy(heads + ho, c[i].heading, c[i].heading_len);
        heads[ho + c[i].heading_len] = 0;
        to += c[i].text_len;
        ho += c[i].heading_len + 1;
        ids[i] = base + (uint32_t)i;
        meta[i] = c[i].meta;
        n_meta[i] = c[i].n_meta;
        if (c[i].key)
            memcpy(keys + i * IX_EMBED_KEY, c[i].key, IX_EMBED_KEY);
        keyed |= c[i].key != NULL;
    }
    hxf_put32((uint8_t *)&text_off[n], (uint32_t)to);
    hxf_put32((uint8_t *)&head_off[n], (uint32_t)ho);
    if (n) {
        if ((rc = hxi_bm25_builder_new(&bb, IX_ANALYZER, err)))
            goto done;
        for (size_t i = 0; i < n && !rc; i++)
            rc = hxi_bm25_builder_add_chunk(bb, base + (uint32_t)i, c[i].text, c[i].text_len, c[i].f[IX_F_BODY], err);
        if (!rc)
            rc = line_prints(c, n, lines_at, &prints, &n_lines, err);
        if (rc || (rc = hxi_bm25_builder_finish(bb, &bm25, &bm25_len, err)))
            goto done;
        hxi_hnsw_params hp = {.dim = dim, .dot = hxi_kernels_get()->dot, .seed = HNSW_SEED};
        if ((rc = hxi_hnsw_new(&hn, &hp, err)) ||
            (rc = hxi_hnsw_add_batch(hn, ids, vectors, n, build_threads(), err)) ||
            (rc = hxi_hnsw_serialize(hn, NULL, 0, &graph_len, err)))
            goto done;
        if (!(graph = hx_malloc(graph_len))) {
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory serializing the graph");
            goto done;
        }
        if ((rc = hxi_hnsw_serialize(hn, graph, graph_len, &graph_len, err)))
            goto done;
        /* read the graph back as view_load.c will: a graph that cannot be opened is never committed */
        hxi_hnsw_view *check = NULL;
        if ((rc = hxi_hnsw_view_open(&check, graph, graph_len, vectors, n * dim, hxi_kernels_get()->dot, err)))
            goto done;
        hxi_hnsw_view_close(check);
    }
    uint32_t info[4], d_info[4] = {4, 0, 0, 0}, d_rows[4] = {(uint32_t)n, IX_CHUNK_FIELDS, 0, 0},
             d_off[4] = {(uint32_t)n + 1, 0, 0, 0}, d_vec[4] = {(uint32_t)n, dim, 0, 0},
             d_at[4] = {(uint32_t)n + 1, 2, 0, 0}, d_lines[4] = {(uint32_t)n_lines, 3, 0, 0},
             d_keys[4] = {(uint32_t)n, IX_EMBED_KEY, 0, 0};
    hxf_put32((uint8_t *)&info[0], base);
    hxf_put32((uint8_t *)&info[1], (uint32_t)n);
    hxf_put32((uint8_t *)&info[2], dim);
    hxf_put32((uint8_t *)&info[3], 0);
    hxf_writer_begin(&w, HXF_KIND_SEGMENT);
    hxf_writer_add(&w, "info", HXF_U32, 1, d_info, info, sizeof info, err);
    hxf_writer_add(&w, "chunks", HXF_U32, 2, d_rows, rows, sizeof *rows * IX_CHUNK_FIELDS * n, err);
    hxf_writer_add(&w, "text_off", HXF_U32, 1, d_off, text_off, sizeof *text_off * (n + 1), err);
    hxf_writer_add(&w, "text", HXF_RAW, 0, NULL, text, text_len, err);
    hxf_writer_add(&w, "head_off", HXF_U32, 1, d_off, head_off, sizeof *head_off * (n + 1), err);
    hxf_writer_add(&w, "heads", HXF_RAW, 0, NULL, heads, heads_len, err);
    if (n) {
        hxf_writer_add(&w, "vectors", HXF_F32, 2, d_vec, vectors, sizeof *vectors * n * dim, err);
        hxf_writer_add(&w, "bm25", HXF_RAW, 0, NULL, bm25, bm25_len, err);
        hxf_writer_add(&w, "hnsw", HXF_RAW, 0, NULL, graph, graph_len, err);
        hxf_writer_add(&w, "lines_at", HXF_U32, 2, d_at, lines_at, sizeof *lines_at * 2 * (n + 1), err);
        hxf_writer_add(&w, "line_prints", HXF_U32, 2, d_lines, prints, sizeof *prints * 3 * n_lines, err);
        if (keyed)
            hxf_writer_add(&w, "embed_keys", HXF_U8, 2, d_keys, keys, (uint64_t)n * IX_EMBED_KEY, err);
    }
    if ((rc = ix_unit_meta_write(&w, meta, n_meta, n, err)))
        w.error = rc;   /* finish releases the writer and answers it */
    rc = hxf_writer_finish(&w, image, image_len, err);
done:
    hxi_bm25_builder_free(bb);
    hxi_hnsw_free(hn);
    free(rows);
    free(text_off);
    free(head_off);
    free(ids);
    free(lines_at);
    free(prints);
    free(meta);
    free(n_meta);
    free(keys);
    free(text);
    free(heads);
    free(bm25);
    free(graph);
    return rc;
}

/* === Change sets === */

void ix_change_set_free(change_set *cs)
{
    for (size_t i = 0; i < cs->n_add; i++) {
        hxi_doc_source_clear(&cs->add[i].src);
        hxi_chunks_free(cs->add[i].chunks, cs->add[i].n_chunks);
    }
    free(cs->add);
    free(cs->drop);
    free(cs->dropped);
    free(cs->touch);
    free(cs->remember);
    free(cs->lift);
    ix_audit_pending_free(&cs->audit);
    hx_audit_list_free(&cs->log);
    memset(cs, 0, sizeof *cs);
}

int ix_drop_doc(change_set *cs, uint32_t id, hx_error *err)
{
    int rc = hx_grow((void **)&cs->drop, &cs->cap_drop, cs->n_drop + 1, sizeof *cs->drop, err);
    if (rc)
        return rc;
    if (id / 8 >= cs->dropped_bytes) {
        size_t bytes = (size_t)id / 8 + 1 > 2 * cs->dropped_bytes ? (size_t)id / 8 + 1 : 2 * cs->dropped_bytes;
        uint8_t *b = hx_realloc(cs->dropped, bytes);
        if (!b)
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        memset(b + cs->dropped_bytes, 0, bytes - cs->dropped_bytes);
        cs->dropped = b;
        cs->dropped_bytes = bytes;
    }
    cs->dropped[id / 8] |= (uint8_t)(1u << (id % 8));
    cs->drop[cs->n_drop++] = id;
    return 0;
}

int ix_push_path(const char ***list, size_t *n, size_t *cap, const char *path, hx_error *err)
{
    int rc = hx_grow((void **)list, cap, *n + 1, sizeof **list, err);
    if (!rc)
        (*list)[(*n)++] = path;
    return rc;
}

int ix_queue_doc(hx_index *ix, change_set *cs, hxi_doc_source *src, const ix_verdict *vd, hx_doc_kind kind,
                 const ix_doc *old, hx_error *err)
{
    int rc = hx_grow((void **)&cs->add, &cs->cap_add, cs->n_add + 1, sizeof *cs->add, err);
    if (rc) {
        hxi_doc_source_clear(src);
        return rc;
    }
    pending_doc *p = &cs->add[cs->n_add];
    memset(p, 0, sizeof *p);
    p->src = *src;
    p->kind = kind;
    p->trust = vd->trust;
    snprintf(p->signer, sizeof p->signer, "%s", vd->signer);
    memset(src, 0, sizeof *src);
    cs->n_add++;
    const hxi_chunk_opts co = hxi_chunk_opts_for(ix->model);
    rc = hxi_chunk_source(hxi_model_tokenizer(ix->model), &p->src, &co, &p->chunks, &p->n_chunks, err);
    if (rc)
        return rc;
    if (old) {
        p->id = old->info.id;
        p->replaces = true;
        rc = ix_drop_doc(cs, old->info.id, err);
    }
    return rc;
}

bool ix_is_dropped(const change_set *cs, uint32_t id)
{
    return id / 8 < cs->dropped_bytes && (cs->dropped[id / 8] >> (id % 8) & 1);
}

/* === Commit === */

static void maybe_compact(hx_index *ix, hx_update_report *rep);

int64_t ix_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void encode_doc(hxi_buf *b, const hx_doc_info *d)
{
    hxi_buf_u32(b, d->id);
    hxi_buf_u32(b, d->first_chunk);
    hxi_buf_u32(b, d->n_chunks);
    hxi_buf_u64(b, d->size);
    hxi_buf_u64(b, d->tokens);
    hxi_buf_u64(b, (uint64_t)d->mtime_ns);
    hxi_buf_u64(b, (uint64_t)d->indexed_ns);
    hxi_buf_u32(b, (uint32_t)d->kind);
    hxi_buf_str(b, d->path);
    hxi_buf_str(b, d->title);
    hxi_buf_str(b, d->type);
    hxi_buf_str(b, d->encoding);
    hxi_buf_str(b, d->sha256);
    hxi_buf_str(b, d->trust.tenant);
    hxi_buf_str(b, d->trust.owner);
    hxi_buf_str(b, d->trust.signer);
    hxi_buf_u32(b, (uint32_t)d->trust.visibility);
    hxi_buf_u32(b, (uint32_t)d->n_meta);
    for (size_t k = 0; k < d->n_meta; k++) {
        hxi_buf_str(b, d->meta[k].key);
        hxi_buf_str(b, d->meta[k].value);
    }
}

static int compare_touch(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;   /* id is the first member */
    return x < y ? -1 : x > y;
}

static int compare_pending(const void *a, const void *b)
{
    return strcmp(((const pending_doc *)a)->src.path, ((const pending_doc *)b)->src.path);
}

/* Info of a pending document once its ids are assigned. */
static hx_doc_info pending_info(const pending_doc *p, uint32_t first_chunk, int64_t now)
{
    hx_doc_info d = {0};
    d.id = p->id;
    d.kind = p->kind;
    d.path = p->src.path;
    d.title = p->src.title;
    d.type = p->src.type;
    d.encoding = p->src.encoding;
    d.sha256 = p->src.sha256;
    d.size = p->src.size;
    d.mtime_ns = p->src.mtime_ns;
    d.indexed_ns = now;
    d.first_chunk = first_chunk;
    d.n_chunks = (uint32_t)p->n_chunks;
    for (size_t i = 0; i < p->n_chunks; i++)
        d.tokens += p->chunks[i].n_tokens;
    d.meta = p->src.meta;
    d.n_meta = p->src.n_meta;
    d.trust = p->trust;
    d.trust.signer = p->signer;
    return d;
}

static int compare_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool listed(const char *const *list, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], path))
            return true;
    return false;
}

/* The end of the document table: the deleted-by-request list after the change (the view's, less
 * lifted paths, plus remembered ones), sorted and without repeats. */
static int encode_deleted(const ix_view *v, const change_set *cs, hxi_buf *b)
{
    const char **all = hx_malloc(sizeof *all * (v->n_deleted + cs->n_remember + 1));
    if (!all)
        return HX_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < v->n_deleted; i++)
        if (!listed(cs->lift, cs->n_lift, v->deleted[i]))
            all[n++] = v->deleted[i];
    for (size_t i = 0; i < cs->n_remember; i++)
        all[n++] = cs->remember[i];
    qsort(all, n, sizeof *all, compare_str);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || strcmp(all[m - 1], all[i]))
            all[m++] = all[i];
    hxi_buf_u32(b, (uint32_t)m);
    for (size_t i = 0; i < m; i++)
        hxi_buf_str(b, all[i]);
    free(all);
    return b->failed ? HX_ENOMEM : 0;
}

/* The folder_meta list closing the document table: the change's, or the view's. */
static int encode_folder_meta(const ix_view *v, const change_set *cs, hxi_buf *b)
{
    const char *const *names = cs->folder_meta ? cs->folder_meta : v->folder_meta;
    size_t n = cs->folder_meta ? cs->n_folder_meta : v->n_folder_meta;
    hxi_buf_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        hxi_buf_str(b, names[i]);
    return b->failed ? HX_ENOMEM : 0;
}

/* The document table after the change: kept documents (with new mtimes) and pending ones,
 * merged in path order, then the deleted-by-request list. `first` gives each pending document's
 * first chunk id. */
static int encode_docs(const hx_index *ix, const change_set *cs, const uint32_t *first, int64_t now,
                       hxi_buf *b)
{
    const ix_view *v = &ix->v;
    size_t kept = 0;
    for (size_t i = 0; i < v->n_docs; i++)
        kept += !ix_is_dropped(cs, v->docs[i].info.id);
    hxi_buf_bytes(b, IX_DOCS_MAGIC, 8);
    hxi_buf_u32(b, (uint32_t)(kept + cs->n_add));
    size_t i = 0, j = 0;
    while (i < v->n_docs || j < cs->n_add) {
        if (i < v->n_docs && ix_is_dropped(cs, v->docs[i].info.id)) {
            i++;
            continue;
        }
        bool take_old = j == cs->n_add ||
                        (i < v->n_docs && strcmp(v->docs[i].info.path, cs->add[j].src.path) < 0);
        if (take_old) {
            hx_doc_info d = v->docs[i].info;
            d.meta = v->docs[i].own;   /* inherited pairs are derived at load, never written */
            d.n_meta = v->docs[i++].n_own;
            size_t lo = 0, hi = cs->n_touch;   /* touches are sorted by id */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cs->touch[mid].id < d.id)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < cs->n_touch && cs->touch[lo].id == d.id)
                d.mtime_ns = cs->touch[lo].mtime_ns;
            encode_doc(b, &d);
        } else {
            hx_doc_info d = pending_info(&cs->add[j], first[j], now);
            encode_doc(b, &d);
            j++;
        }
    }
    int rc = encode_deleted(v, cs, b);
    return rc ? rc : encode_folder_meta(v, cs, b);
}

static int canceled(hx_error *err)
{
    return hx_error_set(err, HX_ECANCELED, -1, "indexing canceled; the index keeps its last commit");
}

/* The message of a write canceled after some of its parts committed: what the index kept. */
static int canceled_after(size_t docs_kept, size_t docs, const hx_update_report *rep, hx_error *err)
{
    return hx_error_set(err, HX_ECANCELED, -1, "indexing canceled: %zu of %zu new or changed documents (%zu chunks) "
                        "were committed in %zu commits and stay; running the same command again embeds only the rest",
                        docs_kept, docs, rep->chunks_added, rep->commits);
}

/* The progress of a whole write across its parts: chunks embedded before the part at hand, and
 * the write's total, so the callback sees one count from 0 to total. */
typedef struct write_progress {
    hx_progress_fn fn;                 /* may be NULL */
    void *ctx;
    size_t before, total;
} write_progress;

/* Fills vecs (n_chunks x dim) for the pending chunks, whose embedding keys it writes to keys
 * (n_chunks x IX_EMBED_KEY): vectors the index already holds under a chunk's key are reused
 * (reuse.c), a text this write holds twice is embedded once, the rest is embedded EMBED_BATCH at a
 * time, asking the progress callback after each batch, so a cancel stops the write within one
 * batch, not one document. Counts both kinds into rep. */
static int embed_pending(hx_index *ix, change_set *cs, hx_encoder *enc, float *vecs, uint8_t *keys,
                         size_t n_chunks, const write_progress *pg, hx_update_report *rep, hx_error *err)
{
    const hx_model *m = hxi_encoder_model(enc);
    int64_t *from = hx_malloc(sizeof *from * n_chunks);
    float *out = hx_malloc(sizeof *out * ix->dim * EMBED_BATCH);   /* one batch's vectors */
    if (!from || !out) {
        free(from);
        free(out);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for %zu chunks", n_chunks);
    }
    for (size_t d = 0, r = 0; d < cs->n_add; d++)
        for (size_t c = 0; c < cs->add[d].n_chunks; c++, r++)
            ix_embed_key(m, cs->add[d].chunks[c].text, strlen(cs->add[d].chunks[c].text), keys + r * IX_EMBED_KEY);
    int rc = ix_reuse_plan(&ix->v, keys, n_chunks, ix->dim, vecs, from, err);
    const char *texts[EMBED_BATCH];
    size_t lens[EMBED_BATCH], at[EMBED_BATCH], n = 0, embedded = 0;
    for (size_t d = 0, r = 0; !rc && d < cs->n_add; d++) {
        for (size_t c = 0; !rc && c < cs->add[d].n_chunks; c++, r++) {
            if (from[r] == IX_EMBED) {
                texts[n] = cs->add[d].chunks[c].text;
                lens[n] = strlen(texts[n]);
                at[n++] = r;
            }
            if (n < EMBED_BATCH && r + 1 < n_chunks)
                continue;
            if (n && !(rc = hx_encoder_embed(enc, texts, lens, n, out, err)))
                for (size_t k = 0; k < n; k++)
                    memcpy(vecs + at[k] * ix->dim, out + k * ix->dim, sizeof *vecs * ix->dim);
            embedded += n;
            bool asked = n > 0;
            n = 0;
            if (!rc && asked && pg->fn && pg->fn(pg->ctx, pg->before + r + 1, pg->total, cs->add[d].src.path))
                rc = canceled(err);
        }
    }
    for (size_t r = 0; !rc && r < n_chunks; r++)   /* a text held twice: its first copy's vector */
        if (from[r] >= 0)
            memcpy(vecs + r * ix->dim, vecs + (size_t)from[r] * ix->dim, sizeof *vecs * ix->dim);
    free(from);
    free(out);
    if (!rc) {
        rep->chunks_embedded += embedded;
        rep->chunks_reused += n_chunks - embedded;
    }
    return rc;
}

/* The new segment's rows, chunk by chunk of the queued documents in order; first[i] is the chunk
 * id of document i's first chunk. Rows borrow the chunks' text. */
static void fill_rows(const change_set *cs, uint32_t base, seg_chunk *rows, uint32_t *first)
{
    size_t r = 0;
    for (size_t i = 0; i < cs->n_add; i++) {
        first[i] = base + (uint32_t)r;
        for (size_t c = 0; c < cs->add[i].n_chunks; c++, r++) {
            const hxi_chunk *ch = &cs->add[i].chunks[c];
            seg_chunk *s = &rows[r];
            s->f[IX_F_DOC] = cs->add[i].id;
            s->f[IX_F_INDEX] = ch->index;
            s->f[IX_F_BYTE_START] = ch->byte_start;
            s->f[IX_F_BYTE_END] = ch->byte_end;
            s->f[IX_F_LINE_START] = ch->line_start;
            s->f[IX_F_LINE_END] = ch->line_end;
            s->f[IX_F_TOKENS] = ch->n_tokens;
            s->f[IX_F_BODY] = ch->body_offset;
            s->text = ch->text;
            s->text_len = strlen(ch->text);
            s->heading = ch->heading;
            s->heading_len = strlen(ch->heading);
            const hxi_doc_source *src = &cs->add[i].src;
            s->meta = ch->unit < src->n_units ? src->units[ch->unit].meta : NULL;
            s->n_meta = ch->unit < src->n_units ? src->units[ch->unit].n_meta : 0;
        }
    }
}

/* The tombstone bitmap of the next commit (tomb_bytes bytes, *out owned by the caller): the
 * current one plus every chunk of the dropped documents, which rep->chunks_removed counts. */
static int tombstones_after(const ix_view *v, const change_set *cs, size_t tomb_bytes, uint8_t **out,
                            hx_update_report *rep, hx_error *err)
{
    uint8_t *tomb = hx_calloc(tomb_bytes ? tomb_bytes : 1, 1);
    if (!tomb)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    memcpy(tomb, v->tomb, ((size_t)v->next_chunk + 7) / 8);
    for (size_t i = 0; i < v->n_docs; i++) {
        const hx_doc_info *d = &v->docs[i].info;
        if (!ix_is_dropped(cs, d->id))
            continue;
        for (uint32_t c = d->first_chunk; c < d->first_chunk + d->n_chunks; c++)
            tomb[c / 8] |= (uint8_t)(1u << (c % 8));
        rep->chunks_removed += d->n_chunks;
    }
    *out = tomb;
    return 0;
}

/* Commits one change set: its documents' chunks as one new segment, tombstones for the dropped
 * documents, the document table and the root record, then one store commit. `last` says whether
 * it is the write's last commit, after which the index may be compacted. */
static int commit_part(hx_index *ix, change_set *cs, hx_encoder *enc, const write_progress *pg, bool last,
                       hx_update_report *rep, hx_error *err)
{
    const ix_view *v = &ix->v;
    int rc = 0;
    size_t n_chunks = 0;
    float *vecs = NULL;
    uint8_t *keys = NULL;
    seg_chunk *rows = NULL;
    uint32_t *first = NULL;
    uint8_t *image = NULL, *tomb = NULL, *root = NULL;
    size_t image_len = 0, root_len = 0;
    hxi_buf docs = {0};
    hxi_store_ref *segs = NULL;
    bool committed = false;
    uint32_t next_doc = v->next_doc, base = v->next_chunk;
    for (size_t i = 0; i < cs->n_add; i++) {
        if (!cs->add[i].replaces)
            cs->add[i].id = next_doc++;
        n_chunks += cs->add[i].n_chunks;
    }
    if (n_chunks > UINT32_MAX - 1 - base || next_doc < v->next_doc)
        return hx_error_set(err, HX_ERANGE, -1, "the index is full: compact it");
    if (n_chunks && !enc)
        return hx_error_set(err, HX_EINVAL, -1, "an encoder is needed to add documents");
    first = hx_malloc(sizeof *first * (cs->n_add ? cs->n_add : 1));
    rows = hx_malloc(sizeof *rows * (n_chunks ? n_chunks : 1));
    vecs = hx_malloc(sizeof *vecs * ix->dim * (n_chunks ? n_chunks : 1));
    segs = hx_malloc(sizeof *segs * (v->n_segs + 1));
    keys = hx_malloc((n_chunks ? n_chunks : 1) * IX_EMBED_KEY);
    if (!first || !rows || !vecs || !segs || !keys) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for %zu chunks", n_chunks);
        goto done;
    }
    fill_rows(cs, base, rows, first);
    if (n_chunks && (rc = embed_pending(ix, cs, enc, vecs, keys, n_chunks, pg, rep, err)))
        goto done;
    for (size_t r = 0; r < n_chunks; r++)
        rows[r].key = keys + r * IX_EMBED_KEY;
    uint32_t next_chunk = base + (uint32_t)n_chunks;
    size_t tomb_bytes = ((size_t)next_chunk + 7) / 8;
    if ((rc = tombstones_after(v, cs, tomb_bytes, &tomb, rep, err)))
        goto done;
    int64_t now = ix_now_ns();
    if ((rc = encode_docs(ix, cs, first, now, &docs))) {
        rc = hx_error_set(err, rc, -1, "out of memory encoding the document table");
        goto done;
    }
    for (size_t i = 0; i < v->n_segs; i++)
        segs[i] = v->segs[i].ref;
    size_t n_segs = v->n_segs;
    hxi_store_ref docs_ref, tomb_ref, audit_ref = v->audit_ref;
    if (cs->audit.n) {   /* the rejects of this write land with it */
        uint8_t *log = NULL;
        size_t log_len = 0;
        if ((rc = ix_audit_encode(&cs->log, &cs->audit, &log, &log_len, err)))
            goto done;
        rc = hxi_store_append(ix->store, log, log_len, &audit_ref, err);
        free(log);
        if (rc)
            goto done;
    }
    if (n_chunks) {
        if ((rc = build_segment(base, rows, n_chunks, vecs, ix->dim, &image, &image_len, err)) ||
            (rc = hxi_store_append(ix->store, image, image_len, &segs[n_segs], err)))
            goto done;
        n_segs++;
    }
    if ((rc = hxi_store_append(ix->store, docs.data, docs.len, &docs_ref, err)) ||
        (rc = hxi_store_append(ix->store, tomb, tomb_bytes, &tomb_ref, err)) ||
        (rc = ix_encode_root(ix, next_doc, next_chunk, docs_ref, tomb_ref, segs, n_segs, audit_ref, &root, &root_len,
                             err)))
        goto done;
    if (last && pg->fn && pg->fn(pg->ctx, pg->total, pg->total, NULL)) {   /* the last chance to stop uncommitted */
        rc = canceled(err);
        goto done;
    }
    if ((rc = hxi_store_commit(ix->store, root, root_len, NULL, err)))
        goto done;
    committed = true;
    rep->chunks_added += n_chunks;
    rep->commits++;
    rep->generation = hxi_store_generation(ix->store);
    ix_view_free(&ix->v);
    if (!(rc = ix_view_load(ix, err)) && last)
        maybe_compact(ix, rep);
done:
    if (rc && !committed)
        hxi_store_abort(ix->store, NULL);
    free(first);
    free(rows);
    free(vecs);
    free(keys);
    free(segs);
    free(image);
    free(tomb);
    free(root);
    hxi_buf_free(&docs);
    return rc;
}

/* The documents add[lo..hi) of a write whose first part starts at add[0]: a change set that
 * borrows cs's documents, with a dropped set of its own (the documents these replace, and for the
 * first part every other drop too), and for the first part alone the rest of the change (touches,
 * the deleted-by-request list, folder metadata, the audit log). Free with free(part->dropped). */
static int part_of(const change_set *cs, size_t lo, size_t hi, change_set *part, hx_error *err)
{
    *part = (change_set){.add = cs->n_add ? cs->add + lo : NULL, .n_add = hi - lo};
    if (!lo) {
        part->touch = cs->touch;
        part->n_touch = cs->n_touch;
        part->remember = cs->remember;
        part->n_remember = cs->n_remember;
        part->lift = cs->lift;
        part->n_lift = cs->n_lift;
        part->folder_meta = cs->folder_meta;
        part->n_folder_meta = cs->n_folder_meta;
        part->audit = cs->audit;
        part->log = cs->log;
        part->log_read = cs->log_read;
    }
    size_t bytes = cs->dropped_bytes ? cs->dropped_bytes : 1;
    if (!(part->dropped = hx_calloc(bytes, 1)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    part->dropped_bytes = bytes;
    if (!lo) {
        if (cs->dropped_bytes)   /* a new index has no bitmap yet (cs->dropped NULL) */
            memcpy(part->dropped, cs->dropped, cs->dropped_bytes);
        for (size_t i = hi; i < cs->n_add; i++)   /* replaced by a later part: kept until then */
            if (cs->add[i].replaces)
                part->dropped[cs->add[i].id / 8] &= (uint8_t)~(1u << (cs->add[i].id % 8));
    } else {
        for (size_t i = lo; i < hi; i++)
            if (cs->add[i].replaces)
                part->dropped[cs->add[i].id / 8] |= (uint8_t)(1u << (cs->add[i].id % 8));
    }
    return 0;
}

int ix_commit_changes(hx_index *ix, change_set *cs, hx_encoder *enc, size_t part_chunks,
                      hx_progress_fn progress, void *ctx, hx_update_report *rep, hx_error *err)
{
    if (!cs->n_add && !cs->n_drop && !cs->n_touch && !cs->n_remember && !cs->n_lift && !cs->folder_meta &&
        !cs->audit.n)
        return 0;   /* nothing changed: no commit */
    if (cs->n_add > 1)   /* qsort's array must not be NULL, even when empty */
        qsort(cs->add, cs->n_add, sizeof *cs->add, compare_pending);
    if (cs->n_touch > 1)
        qsort(cs->touch, cs->n_touch, sizeof *cs->touch, compare_touch);
    if (!part_chunks)
        part_chunks = HX_COMMIT_CHUNKS;
    write_progress pg = {progress, ctx, 0, 0};
    for (size_t i = 0; i < cs->n_add; i++)
        pg.total += cs->add[i].n_chunks;
    size_t lo = 0;
    int rc = 0;
    do {
        size_t hi = lo, n = 0;
        while (hi < cs->n_add && (hi == lo || n + cs->add[hi].n_chunks <= part_chunks))
            n += cs->add[hi++].n_chunks;
        change_set part;
        if ((rc = part_of(cs, lo, hi, &part, err)))
            break;
        rc = commit_part(ix, &part, enc, &pg, hi == cs->n_add, rep, err);
        free(part.dropped);
        if (rc == HX_ECANCELED && lo)
            rc = canceled_after(lo, cs->n_add, rep, err);
        if (rc)
            break;
        pg.before += n;
        lo = hi;
    } while (lo < cs->n_add);
    return rc;
}

/* === Compaction === */

/* Compaction rewrites the head into one segment without tombstones and keeps, before it, these
 * commits of the chain (`hyrax help baselines`): the last HX_KEEP_COMMITS, and the newest
 * commit of each name (baselines, "published"; an older commit of a name is found by no name).
 * A kept commit is copied with its generation, time and name, its root byte for byte but for the
 * references, and its blobs byte for byte (a blob shared by several commits once), so a read of
 * it answers exactly as before. The compacted file thus holds the head plus the distinct blobs of
 * at most HX_KEEP_COMMITS + (number of names) commits. */
static bool kept(const hxi_store_info *h, size_t i)
{
    if (i < HX_KEEP_COMMITS)
        return true;
    for (size_t j = 0; j < i && h[i].name[0]; j++)
        if (!strcmp(h[j].name, h[i].name))
            return false;
    return h[i].name[0] != 0;
}

typedef struct moved_blob {
    hxi_store_ref from, to;
} moved_blob;

typedef struct blob_map {
    moved_blob *v;             /* owned */
    size_t n, cap;
} blob_map;

/* Points the reference at `at`, in a root being copied, at the blob's copy in c; copies the blob
 * from w the first time it is seen. */
static int move_blob(hxi_store *w, hxi_store *c, blob_map *m, uint8_t *at, hx_error *err)
{
    hxi_store_ref from = hxi_store_ref_get(at), to;
    for (size_t i = 0; i < m->n; i++) {
        const hxi_store_ref *f = &m->v[i].from;
        if (f->offset == from.offset && f->length == from.length && f->crc32c == from.crc32c) {
            hxi_store_ref_put(at, m->v[i].to);
            return 0;
        }
    }
    const uint8_t *data;
    int rc;
    if ((rc = hxi_store_blob(w, from, &data, err)) || (rc = hxi_store_append(c, data, (size_t)from.length, &to, err)))
        return rc;
    if (hx_grow((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory compacting");
    m->v[m->n++] = (moved_blob){from, to};
    hxi_store_ref_put(at, to);
    return 0;
}

/* Copies the kept commits of ix's chain into c, oldest first; m gathers the blobs copied. */
static int copy_kept(hx_index *ix, hxi_store *c, blob_map *mp, hx_error *err)
{
    hxi_store_info *h;
    size_t n;
    int rc = hxi_store_history(ix->store, &h, &n, err);
    if (rc)
        return rc;
    blob_map m = *mp;
    uint8_t *copy = NULL;
    for (size_t k = n; k-- > 0 && !rc;) {
        const uint8_t *root;
        size_t len;
        ix_root rt;
        if (!kept(h, k))
            continue;
        if ((rc = hxi_store_root_at(ix->store, h[k].generation, &root, &len, err)) ||
            (rc = ix_root_decode(root, len, &rt, err)))
            break;
        free(copy);
        if (!(copy = hx_malloc(len))) {
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory compacting");
            break;
        }
        memcpy(copy, root, len);
        for (size_t i = 0; i < 2 && !rc; i++)   /* docs, tombstones */
            rc = move_blob(ix->store, c, &m, copy + rt.docs_at + i * HX_STORE_REF_SIZE, err);
        for (size_t i = 0; i < rt.n_segs && !rc; i++)
            rc = move_blob(ix->store, c, &m, copy + rt.segs_at + i * HX_STORE_REF_SIZE, err);
        if (!rc && rt.audit_at && hxi_store_ref_get(copy + rt.audit_at).length)
            rc = move_blob(ix->store, c, &m, copy + rt.audit_at, err);
        if (!rc)
            rc = hxi_store_commit_copy(c, copy, len, &h[k], err);
    }
    free(copy);
    *mp = m;
    free(h);
    return rc;
}

int hx_index_compact(hx_index *ix, hx_error *err)
{
    if (!ix->writer)
        return hx_error_set(err, HX_EPERM, -1, "the index is open read-only");
    const ix_view *v = &ix->v;
    size_t n = 0;
    for (size_t i = 0; i < v->n_docs; i++)
        n += v->docs[i].info.n_chunks;
    seg_chunk *rows = hx_malloc(sizeof *rows * (n ? n : 1));
    float *vecs = hx_malloc(sizeof *vecs * ix->dim * (n ? n : 1));
    uint32_t *first = hx_malloc(sizeof *first * (v->n_docs ? v->n_docs : 1));
    uint8_t *image = NULL, *tomb = NULL, *root = NULL;
    size_t image_len = 0, root_len = 0;
    hxi_buf docs = {0};
    hxi_store *c = NULL;
    blob_map moved = {0};
    uint8_t audit[HX_STORE_REF_SIZE];   /* the head's audit log, carried over (audit.h) */
    hxi_store_ref_put(audit, v->audit_ref);
    int rc = 0;
    if (!rows || !vecs || !first || !(tomb = hx_calloc((n + 7) / 8 + 1, 1))) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory compacting");
        goto done;
    }
    /* live chunks renumbered 0 .. n - 1 in document path order */
    size_t r = 0;
    hxi_buf_bytes(&docs, IX_DOCS_MAGIC, 8);
    hxi_buf_u32(&docs, (uint32_t)v->n_docs);
    for (size_t i = 0; i < v->n_docs; i++) {
        hx_doc_info d = v->docs[i].info;
        d.meta = v->docs[i].own;
        d.n_meta = v->docs[i].n_own;
        first[i] = (uint32_t)r;
        for (uint32_t k = 0; k < d.n_chunks; k++, r++) {
            uint32_t id = d.first_chunk + k;
            const ix_segment *s = ix_segment_of(v, id);
            for (int f = 0; f < IX_CHUNK_FIELDS; f++)
                rows[r].f[f] = ix_chunk_field(s, id, f);
            rows[r].text = ix_chunk_text(s, id, &rows[r].text_len);
            rows[r].heading = ix_chunk_heading(s, id, &rows[r].heading_len);
            rows[r].meta = ix_chunk_meta(s, id, &rows[r].n_meta);
            rows[r].key = s->keys ? s->keys->data + (size_t)(id - s->base) * IX_EMBED_KEY : NULL;
            memcpy(vecs + r * ix->dim, ix_chunk_vector(s, id), sizeof *vecs * ix->dim);
        }
        d.first_chunk = first[i];
        encode_doc(&docs, &d);
    }
    change_set unchanged = {0};
    if (encode_deleted(v, &unchanged, &docs) || encode_folder_meta(v, &unchanged, &docs)) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory compacting");
        goto done;
    }
    hxi_store_ref refs[3];
    size_t n_segs = n ? 1 : 0;
    if ((rc = build_segment(0, rows, n, vecs, ix->dim, &image, &image_len, err)) ||
        (rc = hxi_store_compact_begin(ix->store, &c, err)) || (rc = copy_kept(ix, c, &moved, err)) ||
        (v->audit_ref.length && (rc = move_blob(ix->store, c, &moved, audit, err))))
        goto done;
    if ((n_segs && (rc = hxi_store_append(c, image, image_len, &refs[2], err))) ||
        (rc = hxi_store_append(c, docs.data, docs.len, &refs[0], err)) ||
        (rc = hxi_store_append(c, tomb, (n + 7) / 8, &refs[1], err)) ||
        (rc = ix_encode_root(ix, v->next_doc, (uint32_t)n, refs[0], refs[1], &refs[2], n_segs, hxi_store_ref_get(audit),
                             &root, &root_len, err)) ||
        (rc = hxi_store_commit(c, root, root_len, NULL, err)) ||
        (rc = hxi_store_compact_finish(&ix->store, c, err)))
        goto done;
    c = NULL;
    ix_view_free(&ix->v);
    rc = ix_view_load(ix, err);
done:
    hxi_store_close(c);
    free(moved.v);
    free(rows);
    free(vecs);
    free(first);
    free(image);
    free(tomb);
    free(root);
    hxi_buf_free(&docs);
    return rc;
}

/* Compacts when segments pile up or deleted chunks take too much room. Runs after a commit has
 * landed, so a failure (a full disk) cannot undo the change: it becomes rep->warning, and the
 * index stays as committed (hx_index_compact leaves no temporary file behind). */
static void maybe_compact(hx_index *ix, hx_update_report *rep)
{
    uint64_t chunks = 0;
    for (size_t i = 0; i < ix->v.n_segs; i++)
        chunks += ix->v.segs[i].n;
    hx_error cerr = {0};
    if ((ix->v.n_segs > COMPACT_SEGMENTS ||
         (chunks && (double)ix->v.n_tomb > COMPACT_TOMBSTONE_SHARE * (double)chunks)) &&
        hx_index_compact(ix, &cerr))
        snprintf(rep->warning, sizeof rep->warning,
                 "the change is committed (generation %llu) but compacting afterwards failed: %.160s",
                 (unsigned long long)rep->generation, cerr.message);
}
