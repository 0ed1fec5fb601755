/* view_load.c: reading one commit of an index file into a view (ix.h): the root record (its
 * encoding too, so one file holds its layout), document table, tombstones and segments, checked
 * before anything reads them, and what the handle's identity may see. Opening the file is
 * index.c's, reading a loaded view view.c's, writing index_write.c's. */
#include "bytes.h"
#include "alloc.h"
#include "kernels.h"
#include "ix.h"
#include "ingest.h"
#include "trust.h"
#include "wire.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Root record === */

int ix_encode_root(const hx_index *ix, uint32_t next_doc, uint32_t next_chunk, hxi_store_ref docs,
                   hxi_store_ref tomb, const hxi_store_ref *segs, size_t n_segs, hxi_store_ref audit,
                   uint8_t **out, size_t *len, hx_error *err)
{
    hxi_buf b = {0};
    uint8_t ref[HX_STORE_REF_SIZE];
    hxi_buf_bytes(&b, IX_MAGIC, 8);
    hxi_buf_u32(&b, IX_VERSION);
    hxi_buf_u32(&b, ix->dim);
    hxi_buf_str(&b, ix->model_name);
    hxi_buf_str(&b, hxi_analyzer_name(IX_ANALYZER));
    hxi_buf_str(&b, hx_precision_name(ix->precision));
    hxi_buf_str(&b, ix->root);
    hxi_buf_u32(&b, next_doc);
    hxi_buf_u32(&b, next_chunk);
    hxi_store_ref_put(ref, docs);
    hxi_buf_bytes(&b, ref, sizeof ref);
    hxi_store_ref_put(ref, tomb);
    hxi_buf_bytes(&b, ref, sizeof ref);
    hxi_buf_u32(&b, (uint32_t)n_segs);
    for (size_t i = 0; i < n_segs; i++) {
        hxi_store_ref_put(ref, segs[i]);
        hxi_buf_bytes(&b, ref, sizeof ref);
    }
    hxi_store_ref_put(ref, audit);
    hxi_buf_bytes(&b, ref, sizeof ref);
    char writer[IX_WRITER_MAX];
    snprintf(writer, sizeof writer, "hyrax %s", hx_version());
    hxi_buf_str(&b, writer);
    hxi_buf_str(&b, ix->model ? hx_model_hash(ix->model) : ix->model_hash);
    if (b.failed) {
        hxi_buf_free(&b);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory encoding the index root");
    }
    *out = b.data;
    *len = b.len;
    return 0;
}

/* === Strings === */

/* Copies of table strings, NUL-terminated, in one allocation sized up front. */
typedef struct {
    char *base;
    size_t used, cap;
} string_pool;

static const char *pool_add(string_pool *p, const char *s, uint32_t n)
{
    char *d = p->base + p->used;
    memcpy(d, s, n);
    d[n] = 0;
    p->used += (size_t)n + 1;
    return d;
}

/* === Document table === */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int compare_path(const void *a, const void *b)
{
    return strcmp(((const ix_doc *)a)->info.path, ((const ix_doc *)b)->info.path);
}

static int load_docs(hx_index *ix, const uint8_t *blob, size_t len, hx_error *err)
{
    ix_view *v = &ix->v;
    hxi_rd r = hxi_rd_init(blob, len);
    const uint8_t *magic = hxi_rd_bytes(&r, 8);
    uint32_t n = hxi_rd_u32(&r);
    if (!magic || (memcmp(magic, IX_DOCS_MAGIC, 8) && memcmp(magic, IX_DOCS_MAGIC_V3, 8) &&
                   memcmp(magic, IX_DOCS_MAGIC_V2, 8) && memcmp(magic, IX_DOCS_MAGIC_V1, 8)) || !hxi_rd_ok(&r))
        return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset, "document table has a bad header");
    bool v4 = !memcmp(magic, IX_DOCS_MAGIC, 8);           /* trust per document */
    bool v2 = memcmp(magic, IX_DOCS_MAGIC_V1, 8) != 0;   /* kind per document and the deleted list */
    bool v3 = v4 || !memcmp(magic, IX_DOCS_MAGIC_V3, 8);  /* the folder_meta list */
    int n_str = v4 ? 8 : 5;                               /* path .. sha256, then tenant .. signer */
    if (n > len / 40)   /* each record takes at least 40 bytes */
        return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset, "document table claims %u documents", n);
    /* first pass: sizes, so strings and metadata get one allocation each */
    hxi_rd scan = r;
    size_t total_meta = 0, total_str = 0;
    uint32_t n_deleted = 0;
    const char *s;
    uint32_t l;
    for (uint32_t i = 0; i < n && hxi_rd_ok(&scan); i++) {
        hxi_rd_bytes(&scan, 4 * 3 + 8 * 4 + (v2 ? 4 : 0));
        for (int k = 0; k < n_str; k++) {
            hxi_rd_str(&scan, &s, &l, IX_STR_MAX);
            total_str += l + 1;
        }
        if (v4)
            hxi_rd_u32(&scan);   /* visibility */
        uint32_t m = hxi_rd_u32(&scan);
        if (m > IX_META_MAX)
            scan.failed = true;
        total_meta += m;
        for (uint32_t k = 0; k < 2 * m && hxi_rd_ok(&scan); k++) {
            hxi_rd_str(&scan, &s, &l, IX_STR_MAX);
            total_str += l + 1;
        }
    }
    if (v2) {
        n_deleted = hxi_rd_u32(&scan);
        if (n_deleted > (size_t)(scan.end - scan.p) / 4)   /* each entry takes at least 4 bytes */
            scan.failed = true;
        for (uint32_t k = 0; k < n_deleted && hxi_rd_ok(&scan); k++) {
            hxi_rd_str(&scan, &s, &l, IX_STR_MAX);
            total_str += l + 1;
        }
    }
    uint32_t n_fm = v3 ? hxi_rd_u32(&scan) : 0;
    if (n_fm > IX_FOLDER_META_MAX)
        scan.failed = true;
    for (uint32_t k = 0; k < n_fm && hxi_rd_ok(&scan); k++) {
        hxi_rd_str(&scan, &s, &l, IX_STR_MAX);
        total_str += l + 1;
    }
    if (!hxi_rd_ok(&scan))
        return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset, "document table is truncated or corrupt");
    v->docs = hx_calloc(n ? n : 1, sizeof *v->docs);
    v->by_id = hx_malloc(sizeof *v->by_id * (n ? n : 1));
    v->meta = hx_calloc(total_meta ? total_meta : 1, sizeof *v->meta);
    v->strings = hx_malloc(total_str ? total_str : 1);
    v->deleted = hx_malloc(sizeof *v->deleted * (n_deleted ? n_deleted : 1));
    v->folder_meta = hx_malloc(sizeof *v->folder_meta * IX_FOLDER_META_MAX);
    if (!v->docs || !v->by_id || !v->meta || !v->strings || !v->deleted || !v->folder_meta)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory loading %u documents", n);
    string_pool pool = {v->strings, 0, total_str};
    size_t meta_used = 0;
    for (uint32_t i = 0; i < n; i++) {
        hx_doc_info *d = &v->docs[i].info;
        d->id = hxi_rd_u32(&r);
        d->first_chunk = hxi_rd_u32(&r);
        d->n_chunks = hxi_rd_u32(&r);
        d->size = hxi_rd_u64(&r);
        d->tokens = hxi_rd_u64(&r);
        d->mtime_ns = (int64_t)hxi_rd_u64(&r);
        d->indexed_ns = (int64_t)hxi_rd_u64(&r);
        uint32_t kind = v2 ? hxi_rd_u32(&r) : HX_DOC_FILE;
        if (kind != HX_DOC_FILE && kind != HX_DOC_STORED)
            return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset, "document %u has unknown kind %u",
                                d->id, kind);
        d->kind = (hx_doc_kind)kind;
        d->trust = (hx_doc_trust){.tenant = "", .owner = "", .signer = "", .visibility = HX_VIS_PUBLIC};
        const char **fields[8] = {&d->path, &d->title, &d->type, &d->encoding, &d->sha256,
                                  &d->trust.tenant, &d->trust.owner, &d->trust.signer};
        for (int k = 0; k < n_str; k++) {
            hxi_rd_str(&r, &s, &l, IX_STR_MAX);
            *fields[k] = pool_add(&pool, s ? s : "", l);
        }
        uint32_t vis = v4 ? hxi_rd_u32(&r) : HX_VIS_PUBLIC;
        if (vis > HX_VIS_PRIVATE)
            return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset,
                                "document %u has unknown visibility %u", d->id, vis);
        d->trust.visibility = (hx_visibility)vis;
        char why[160];
        if (ix_trust_check(&d->trust, why, sizeof why))
            return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset, "document %u is corrupt: %s", d->id, why);
        uint32_t m = hxi_rd_u32(&r);
        hx_kv *kv = v->meta + meta_used;
        for (uint32_t k = 0; k < m; k++) {
            hxi_rd_str(&r, &s, &l, IX_STR_MAX);
            kv[k].key = (char *)pool_add(&pool, s ? s : "", l);
            hxi_rd_str(&r, &s, &l, IX_STR_MAX);
            kv[k].value = (char *)pool_add(&pool, s ? s : "", l);
        }
        d->meta = kv;
        d->n_meta = m;
        meta_used += m;
        if ((uint64_t)d->first_chunk + d->n_chunks > v->next_chunk || d->id >= v->next_doc)
            return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset,
                                "document %u refers to chunks or ids past the end of the index", d->id);
    }
    if (v2)
        hxi_rd_u32(&r);   /* n_deleted, read in the first pass */
    for (uint32_t k = 0; k < n_deleted; k++) {
        hxi_rd_str(&r, &s, &l, IX_STR_MAX);
        v->deleted[k] = pool_add(&pool, s ? s : "", l);
        if (k && strcmp(v->deleted[k - 1], v->deleted[k]) >= 0)   /* binary search needs the order */
            return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset,
                                "the list of deleted files is out of order");
    }
    v->n_deleted = n_deleted;
    if (v3) {
        hxi_rd_u32(&r);   /* n_fm, read in the first pass */
        for (uint32_t k = 0; k < n_fm; k++) {
            hxi_rd_str(&r, &s, &l, IX_STR_MAX);
            v->folder_meta[k] = pool_add(&pool, s ? s : "", l);
            if (!ix_folder_meta_name_ok(v->folder_meta[k]) || strlen(v->folder_meta[k]) != l)
                return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset,
                                    "the folder metadata list holds a name that is not a file name");
        }
        v->n_folder_meta = n_fm;
    } else {
        ix_folder_meta_default(v);
    }
    v->n_docs = n;
    qsort(v->docs, n, sizeof *v->docs, compare_path);
    uint64_t *keys = hx_malloc(sizeof *keys * (n ? n : 1));   /* id << 32 | position, sorted */
    if (!keys)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory loading %u documents", n);
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (uint64_t)v->docs[i].info.id << 32 | i;
    qsort(keys, n, sizeof *keys, compare_u64);
    for (uint32_t i = 0; i < n; i++)
        v->by_id[i] = (uint32_t)keys[i];
    free(keys);
    for (uint32_t i = 1; i < n; i++) {
        if (!strcmp(v->docs[i - 1].info.path, v->docs[i].info.path) ||
            v->docs[v->by_id[i - 1]].info.id == v->docs[v->by_id[i]].info.id)
            return hx_error_set(err, HX_EFORMAT, (int64_t)v->docs_ref.offset,
                                "document table repeats a path or an id");
    }
    return ix_inherit_meta(v, err);
}

/* === Segments === */

/* The segment's line prints (ix.h "lines_at", boiler.c), checked: offsets ascend to the
 * number of lines, each print is not 0 and a chunk's lines hold no more letters than its body. */
static int load_line_prints(ix_segment *s, hx_error *err)
{
    const uint32_t d_at[4] = {s->n + 1, 2, 0, 0}, d_lines[4] = {0, 3, 0, 0};
    int rc;
    if ((rc = hxf_expect(&s->file, "lines_at", HXF_U32, 2, d_at, &s->lines_at, err)) ||
        (rc = hxf_expect(&s->file, "line_prints", HXF_U32, 2, d_lines, &s->line_prints, err)))
        return rc;
    const uint8_t *at = s->lines_at->data, *lp = s->line_prints->data;
    uint32_t m = s->line_prints->dims[0], prev = 0;
    bool ok = true;
    for (uint32_t i = 0; ok && i < s->n; i++) {
        uint32_t a = hxf_le32(at + 8 * (size_t)i), b = hxf_le32(at + 8 * (size_t)i + 8);
        uint64_t sum = 0;
        if (a != prev || b < a || b > m) {
            ok = false;
            break;
        }
        for (uint32_t j = a; j < b; j++) {
            uint32_t k = hxf_le32(lp + 12 * (size_t)j + 8);
            if (!hxf_le64(lp + 12 * (size_t)j) || !k)
                sum = UINT64_MAX;
            else
                sum += k;
        }
        ok = sum <= hxf_le32(at + 8 * (size_t)i + 4);
        prev = b;
    }
    if (!ok || prev != m || hxf_le32(at + 8 * (size_t)s->n) != m)
        return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment line prints are corrupt");
    return 0;
}

static int load_segment(hx_index *ix, ix_segment *s, hx_error *err)
{
    const uint8_t *blob;
    int rc = hxi_store_blob(ix->store, s->ref, &blob, err);
    if (rc)
        return rc;
    if ((rc = hxf_parse_verified(blob, (size_t)s->ref.length, HXF_KIND_SEGMENT, &s->file, err)))
        return rc;
    const hxf_section *info;
    const uint32_t four[4] = {4, 0, 0, 0};
    if ((rc = hxf_expect(&s->file, "info", HXF_U32, 1, four, &info, err)))
        return rc;
    s->base = hxf_le32(info->data);
    s->n = hxf_le32(info->data + 4);
    if (hxf_le32(info->data + 8) != ix->dim || (uint64_t)s->base + s->n > ix->v.next_chunk)
        return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment at %llu does not fit the index",
                            (unsigned long long)s->ref.offset);
    uint32_t n = s->n, n1 = n + 1;
    const uint32_t d_chunks[4] = {n, IX_CHUNK_FIELDS, 0, 0}, d_off[4] = {n1, 0, 0, 0},
                   d_vec[4] = {n, ix->dim, 0, 0};
    if ((rc = hxf_expect(&s->file, "chunks", HXF_U32, 2, d_chunks, &s->chunks, err)) ||
        (rc = hxf_expect(&s->file, "text_off", HXF_U32, 1, d_off, &s->text_off, err)) ||
        (rc = hxf_expect(&s->file, "text", HXF_RAW, 0, NULL, &s->text, err)) ||
        (rc = hxf_expect(&s->file, "head_off", HXF_U32, 1, d_off, &s->head_off, err)) ||
        (rc = hxf_expect(&s->file, "heads", HXF_RAW, 0, NULL, &s->heads, err)))
        return rc;
    if (n && (rc = hxf_expect(&s->file, "vectors", HXF_F32, 2, d_vec, &s->vectors, err)))
        return rc;
    if (n && hxf_find(&s->file, "lines_at") && (rc = load_line_prints(s, err)))
        return rc;
    const uint32_t d_keys[4] = {n, IX_EMBED_KEY, 0, 0};
    if (n && hxf_find(&s->file, "embed_keys") &&
        (rc = hxf_expect(&s->file, "embed_keys", HXF_U8, 2, d_keys, &s->keys, err)))
        return rc;
    if ((rc = ix_unit_meta_load(s, err)))
        return rc;
    /* offsets must be non-decreasing and inside their blobs: checked once here */
    const hxf_section *offs[2] = {s->text_off, s->head_off}, *data[2] = {s->text, s->heads};
    for (int k = 0; k < 2; k++) {
        uint32_t prev = 0;
        for (uint32_t i = 0; i <= n; i++) {
            uint32_t o = hxf_le32(offs[k]->data + 4 * (size_t)i);
            if (o < prev || o > data[k]->length || (k == 1 && i > 0 && (o == prev || data[k]->data[o - 1])))
                return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment text offsets are corrupt");
            prev = o;
        }
    }
    /* chunk rows: the body (text past the header) is exactly the document's bytes
     * [byte start, byte end), so whoever copies a body into a buffer sized from the range
     * (get_context's passages) stays inside it; lines are 1-based and ordered */
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *row = s->chunks->data + (size_t)i * IX_CHUNK_FIELDS * 4;
        uint32_t tl = hxf_le32(s->text_off->data + 4 * ((size_t)i + 1)) - hxf_le32(s->text_off->data + 4 * (size_t)i);
        uint32_t body = hxf_le32(row + 4 * IX_F_BODY), bs = hxf_le32(row + 4 * IX_F_BYTE_START),
                 be = hxf_le32(row + 4 * IX_F_BYTE_END), ls = hxf_le32(row + 4 * IX_F_LINE_START),
                 le = hxf_le32(row + 4 * IX_F_LINE_END);
        const char *why = body > tl                         ? "its body offset is past its text"
                          : bs > be || be - bs != tl - body ? "its byte range is not the length of its body"
                          : ls == 0 || ls > le              ? "its line range is empty or not 1-based"
                          : hxf_le32(row + 4 * IX_F_DOC) >= ix->v.next_doc ? "its document id is past the end"
                                                                           : NULL;
        if (why)
            return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment chunk %u is corrupt: %s",
                                s->base + i, why);
    }
    if (!n)
        return 0;
    const hxf_section *bm, *hn;
    if ((rc = hxf_expect(&s->file, "bm25", HXF_RAW, 0, NULL, &bm, err)) ||
        (rc = hxf_expect(&s->file, "hnsw", HXF_RAW, 0, NULL, &hn, err)))
        return rc;
    rc = hxi_bm25_reader_open(&s->bm25, bm->data, (size_t)bm->length, err);
    if (rc == HX_EVERSION && s->bm25.version >= 1 && s->bm25.version < HX_BM25_VERSION) {
        /* an older keyword format (1: no header field): readers refuse, the writer rebuilds */
        if (!ix->writer && !ix->precision_only)
            return hx_error_set(err, HX_EVERSION, (int64_t)s->ref.offset,
                                "the index %s holds keyword segments of format %u and this build reads format %u: "
                                IX_REINDEX_HINT, ix->path ? ix->path : "", s->bm25.version, HX_BM25_VERSION);
        ix->stale_keywords = true;
        memset(&s->bm25, 0, sizeof s->bm25);
        rc = 0;
    }
    if (rc || (rc = hxi_hnsw_view_open(&s->hnsw, hn->data, (size_t)hn->length, (const float *)s->vectors->data,
                                (size_t)n * ix->dim, hxi_kernels_get()->dot, err)))
        return rc;
    if (s->bm25.analyzer != ix->analyzer && !ix->stale_keywords)
        return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment keywords analyzed as \"%s\", the index says \"%s\"",
                            hxi_analyzer_name(s->bm25.analyzer), hxi_analyzer_name(ix->analyzer));
    if (hxi_hnsw_view_count(s->hnsw) != n)
        return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment graph and vectors disagree");
    /* both sides must answer with this segment's chunk ids, base .. base + n - 1, and nothing else
     * (BM25 doc ids are ascending, checked by the reader) */
    const uint8_t *bm25_ids = s->bm25.arr[0];
    if (!ix->stale_keywords &&   /* stale keywords are rebuilt before anything searches them */
        (s->bm25.n_docs != n || hxf_le32(bm25_ids) != s->base || hxf_le32(bm25_ids + 4 * ((size_t)n - 1)) != s->base + n - 1))
        return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment BM25 ids are not its chunk ids");
    for (uint32_t i = 0; i < n; i++)
        if (hxi_hnsw_view_label(s->hnsw, i) != s->base + i)
            return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset, "segment graph node %u is not chunk %u", i,
                                s->base + i);
    return 0;
}

/* === View === */

void ix_view_free(ix_view *v)
{
    for (size_t i = 0; i < v->n_segs; i++) {
        hxi_hnsw_view_close(v->segs[i].hnsw);
        ix_unit_meta_free(&v->segs[i]);
        hxf_view_free(&v->segs[i].file);
    }
    free(v->segs);
    free(v->docs);
    free(v->by_id);
    free(v->meta);
    free(v->merged);
    free(v->deleted);
    free(v->folder_meta);
    free(v->strings);
    free(v->tomb);
    free(v->visible);
    free(v->visible_chunks);
    free(v->repeated);
    free(v->line_at);
    free(v->line_rep);
    free(v->defs);
    free(v->def_slot);
    memset(v, 0, sizeof *v);
}

/* Documents and live chunks must match one to one: a document's chunks are live, name it, and
 * are numbered 0.. in order, with bodies inside its decoded text (at most HX_INGEST_MAX_GROWTH
 * times its bytes on disk); every live chunk lies in the range of the document it names. */
static int check_ownership(const ix_view *v, hx_error *err)
{
    for (size_t i = 0; i < v->n_docs; i++) {
        const hx_doc_info *d = &v->docs[i].info;
        for (uint32_t c = d->first_chunk; c < d->first_chunk + d->n_chunks; c++) {
            const ix_segment *s = ix_segment_of(v, c);
            if (!s || ix_is_deleted(v, c) || ix_chunk_field(s, c, IX_F_DOC) != d->id ||
                ix_chunk_field(s, c, IX_F_INDEX) != c - d->first_chunk ||
                (d->size <= UINT32_MAX && ix_chunk_field(s, c, IX_F_BYTE_END) > d->size * HX_INGEST_MAX_GROWTH))
                return hx_error_set(err, HX_EFORMAT, -1, "document %s and its chunk %u disagree", d->path, c);
        }
    }
    for (size_t i = 0; i < v->n_segs; i++) {
        const ix_segment *s = &v->segs[i];
        for (uint32_t c = s->base; c < s->base + s->n; c++) {
            if (ix_is_deleted(v, c))
                continue;
            const ix_doc *d = ix_doc_by_id(v, ix_chunk_field(s, c, IX_F_DOC));
            if (!d || c < d->info.first_chunk || c - d->info.first_chunk >= d->info.n_chunks)
                return hx_error_set(err, HX_EFORMAT, (int64_t)s->ref.offset,
                                    "live chunk %u belongs to no document", c);
        }
    }
    return 0;
}

int ix_root_decode(const uint8_t *root, size_t len, ix_root *out, hx_error *err)
{
    memset(out, 0, sizeof *out);
    hxi_rd r = hxi_rd_init(root, len);
    const uint8_t *magic = hxi_rd_bytes(&r, 8);
    if (!magic || memcmp(magic, IX_MAGIC, 8))
        return hx_error_set(err, HX_EFORMAT, -1, "the index root record has a bad magic");
    out->version = hxi_rd_u32(&r);
    if (hxi_rd_ok(&r) && (out->version < 1 || out->version > IX_VERSION))
        return hx_error_set(err, HX_EVERSION, -1, "index layout version %u is not supported (this build reads %u)",
                            out->version, IX_VERSION);
    out->dim = hxi_rd_u32(&r);
    out->analyzer = "exact";   /* layout 1 had no analyzer field: exact only */
    out->analyzer_len = 5;
    out->precision = "fp32";   /* layouts 1 and 2 had no precision field: fp32 */
    out->precision_len = 4;
    out->writer = "";          /* commits before 0.2.0 name no writer */
    out->model_hash = "";      /* nor did commits before the model hash */
    hxi_rd_str(&r, &out->model, &out->model_len, IX_MODEL_NAME_MAX - 1);
    if (out->version >= 2)
        hxi_rd_str(&r, &out->analyzer, &out->analyzer_len, 64);
    if (out->version >= 3)
        hxi_rd_str(&r, &out->precision, &out->precision_len, 16);
    hxi_rd_str(&r, &out->root, &out->root_len, PATH_MAX);
    out->next_doc = hxi_rd_u32(&r);
    out->next_chunk = hxi_rd_u32(&r);
    out->docs_at = (size_t)(r.p - root);
    hxi_rd_bytes(&r, 2 * HX_STORE_REF_SIZE);   /* docs and tombstones */
    out->n_segs = hxi_rd_u32(&r);
    out->segs_at = (size_t)(r.p - root);
    if (!hxi_rd_ok(&r) || out->n_segs > (size_t)(r.end - r.p) / HX_STORE_REF_SIZE || out->dim == 0 ||
        out->dim > 4096)
        return hx_error_set(err, HX_EFORMAT, -1, "the index root record is corrupt");
    if (out->version >= 4) {
        hxi_rd_bytes(&r, (size_t)out->n_segs * HX_STORE_REF_SIZE);
        out->audit_at = (size_t)(r.p - root);
        if (!hxi_rd_bytes(&r, HX_STORE_REF_SIZE))
            return hx_error_set(err, HX_EFORMAT, -1, "the index root record is corrupt (no audit reference)");
        if (r.p < r.end) {
            hxi_rd_str(&r, &out->writer, &out->writer_len, IX_WRITER_MAX - 1);
            if (!hxi_rd_ok(&r))
                return hx_error_set(err, HX_EFORMAT, -1, "the index root record is corrupt (writer field)");
        }
        if (r.p < r.end) {
            hxi_rd_str(&r, &out->model_hash, &out->model_hash_len, IX_MODEL_HASH_MAX - 1);
            if (!hxi_rd_ok(&r))
                return hx_error_set(err, HX_EFORMAT, -1, "the index root record is corrupt (model_hash field)");
        }
    }
    return 0;
}

int ix_view_load(hx_index *ix, hx_error *err)
{
    ix_view *v = &ix->v;
    const uint8_t *root;
    size_t len;
    memset(v, 0, sizeof *v);
    if (ix->at.generation) {
        int rc = hxi_store_root_at(ix->store, ix->at.generation, &root, &len, err);
        if (rc)
            return rc;
    } else {
        hxi_store_root(ix->store, &root, &len);
    }
    if (len == 0) {   /* generation 0: an index being created */
        v->tomb = hx_calloc(1, 1);
        return v->tomb ? 0 : hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    ix_root rt;
    int rc = ix_root_decode(root, len, &rt, err);
    if (rc)
        return rc;
    char prec_name[17];
    snprintf(prec_name, sizeof prec_name, "%.*s", (int)rt.precision_len, rt.precision);
    if (hx_precision_parse(prec_name, &ix->precision, NULL))
        return hx_error_set(err, HX_EFORMAT, -1, "the index's vectors have precision \"%s\", which this build does "
                            "not know", prec_name);
    if (ix->model && hx_model_precision(ix->model) != ix->precision)
        return hx_error_set(err, HX_EINVAL, -1, "the index %s holds %s vectors and the model is %s: queries must be "
                            "embedded as the index was (to change its precision, index into a new file)",
                            ix->path ? ix->path : "", prec_name, hx_precision_name(hx_model_precision(ix->model)));
    const char *want = hxi_analyzer_name(IX_ANALYZER), *ascii = hxi_analyzer_name(HX_ANALYZER_ENGLISH_ASCII);
    ix->analyzer = IX_ANALYZER;
    ix->stale_keywords = rt.version == 1 || rt.analyzer_len != strlen(want) || memcmp(rt.analyzer, want, rt.analyzer_len);
    if (ix->stale_keywords && !ix->writer && rt.version != 1 && rt.analyzer_len == strlen(ascii) &&
        !memcmp(rt.analyzer, ascii, rt.analyzer_len)) {
        ix->analyzer = HX_ANALYZER_ENGLISH_ASCII;   /* from before Unicode words: read with its own analysis */
        ix->stale_keywords = false;
    }
    if (ix->stale_keywords && !ix->writer && !ix->precision_only)
        return hx_error_set(err, HX_EVERSION, -1,
                            "the index %s was built with keyword analyzer \"%.*s\" and this build analyzes keywords "
                            "as \"%s\": " IX_REINDEX_HINT,
                            ix->path ? ix->path : "", (int)rt.analyzer_len, rt.analyzer, want);
    v->next_doc = rt.next_doc;
    v->next_chunk = rt.next_chunk;
    v->docs_ref = hxi_store_ref_get(root + rt.docs_at);
    v->tomb_ref = hxi_store_ref_get(root + rt.docs_at + HX_STORE_REF_SIZE);
    if (rt.audit_at)
        v->audit_ref = hxi_store_ref_get(root + rt.audit_at);
    uint32_t n_segs = rt.n_segs;
    ix->dim = rt.dim;
    memcpy(ix->model_name, rt.model, rt.model_len);
    ix->model_name[rt.model_len] = 0;
    memcpy(ix->made_by, rt.writer, rt.writer_len);
    ix->made_by[rt.writer_len] = 0;
    memcpy(ix->model_hash, rt.model_hash, rt.model_hash_len);
    ix->model_hash[rt.model_hash_len] = 0;
    if (!ix->root) {
        if (!(ix->root = hx_malloc(rt.root_len + 1)))
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        memcpy(ix->root, rt.root, rt.root_len);
        ix->root[rt.root_len] = 0;
    }
    if (ix->model && (strcmp(hx_model_name(ix->model), ix->model_name) || (uint32_t)hx_model_dim(ix->model) != rt.dim))
        return hx_error_set(err, HX_EFORMAT, -1, "the index was built with model %s (%u dimensions), not %s: "
                            "use --model %s", ix->model_name, rt.dim, hx_model_name(ix->model),
                            hx_model_alias(ix->model_name) ? hx_model_alias(ix->model_name) : ix->model_name);
    if (ix->model && ix->model_hash[0] && strcmp(hx_model_hash(ix->model), ix->model_hash))
        return hx_error_set(err, HX_EFORMAT, -1, "the index was built with model %s weights of hash %s, but the "
                            "loaded %s weights have hash %s (re-converted or altered): use the weights it was "
                            "built with, or reindex into a new file", ix->model_name, ix->model_hash,
                            hx_model_name(ix->model), hx_model_hash(ix->model));
    v->segs = hx_calloc(n_segs ? n_segs : 1, sizeof *v->segs);
    if (!v->segs)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (uint32_t i = 0; i < n_segs; i++)
        v->segs[i].ref = hxi_store_ref_get(root + rt.segs_at + (size_t)i * HX_STORE_REF_SIZE);

    const uint8_t *blob;
    rc = hxi_store_blob(ix->store, v->tomb_ref, &blob, err);
    if (rc)
        return rc;
    size_t tomb_bytes = ((size_t)v->next_chunk + 7) / 8;
    if (v->tomb_ref.length != tomb_bytes)
        return hx_error_set(err, HX_EFORMAT, (int64_t)v->tomb_ref.offset, "tombstone bitmap has the wrong size");
    if (!(v->tomb = hx_malloc(tomb_bytes ? tomb_bytes : 1)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    memcpy(v->tomb, blob, tomb_bytes);
    for (size_t i = 0; i < tomb_bytes; i++)
        v->n_tomb += (uint64_t)__builtin_popcount(v->tomb[i]);

    if ((rc = hxi_store_blob(ix->store, v->docs_ref, &blob, err)) ||
        (rc = load_docs(ix, blob, (size_t)v->docs_ref.length, err)))
        return rc;
    for (uint32_t i = 0; i < n_segs; i++) {
        v->n_segs = i + 1;   /* so a failure frees what was opened */
        if ((rc = load_segment(ix, &v->segs[i], err)))
            return rc;
        if (i && v->segs[i].base < v->segs[i - 1].base + v->segs[i - 1].n)
            return hx_error_set(err, HX_EFORMAT, (int64_t)v->segs[i].ref.offset, "segments overlap");
        if (v->n_tomb && v->segs[i].n) {   /* BM25 statistics over live chunks, once per commit */
            hxi_bm25_segment live = {.reader = &v->segs[i].bm25, .is_deleted = ix_bm25_deleted, .deleted_ctx = v};
            hxi_bm25_count_live(&live);
            v->segs[i].bm25_live_docs = live.live_docs;
            v->segs[i].bm25_live_len = live.live_len;
        }
    }
    if ((rc = check_ownership(v, err)) || (rc = ix_view_repeats(v, err)) || (rc = ix_view_definitions(v, err)))
        return rc;
    return ix_view_visibility(ix, err);
}

/* === Identity === */

int ix_view_visibility(hx_index *ix, hx_error *err)
{
    ix_view *v = &ix->v;
    free(v->visible);
    free(v->visible_chunks);
    v->visible = NULL;
    v->visible_chunks = NULL;
    v->n_visible = 0;
    v->n_visible_chunks = 0;
    v->restricted = ix->has_identity;
    if (!v->restricted)
        return 0;
    v->visible = hx_malloc(sizeof *v->visible * (v->n_docs ? v->n_docs : 1));
    v->visible_chunks = hx_calloc((size_t)v->next_chunk / 8 + 1, 1);
    if (!v->visible || !v->visible_chunks || !ix->identity.tenant || !ix->identity.user) {   /* fail closed */
        free(v->visible_chunks);
        v->visible_chunks = NULL;
        for (size_t i = 0; i < v->n_docs; i++)
            v->docs[i].hidden = true;
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    for (size_t i = 0; i < v->n_docs; i++) {
        const hx_doc_info *d = &v->docs[i].info;
        v->docs[i].hidden = !hx_doc_visible(d, &ix->identity);
        if (v->docs[i].hidden)
            continue;
        v->visible[v->n_visible++] = (uint32_t)i;
        for (uint32_t c = d->first_chunk; c < d->first_chunk + d->n_chunks; c++)
            v->visible_chunks[c / 8] |= (uint8_t)(1u << (c % 8));
        v->n_visible_chunks += d->n_chunks;
    }
    return 0;
}
