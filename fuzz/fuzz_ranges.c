/* fuzz_ranges.c: the index's decoded fields on hostile values, with every checksum valid. The
 * harness holds a small valid index as plain fields (three documents, seven chunks, one of them
 * deleted), applies the input's edits to those fields, encodes them as view_load.c reads them (root,
 * document table, tombstones, one or two segments with their BM25 and HNSW parts) and commits
 * them into a fresh store file. fuzz_index.c mutates raw blob bytes; this target reaches the
 * ranges and ids behind them. If the index opens, every chunk must keep what view_load.c promises
 * (body length == byte range, 1-based ordered lines, its document's id and position), or the
 * harness aborts; then keyword and vector search, chunk lookups and get_context's passage merge
 * run over it.
 *
 * Input: a sequence of 6-byte edits {u8 op, u8 at, u32 value (little-endian)}; (op & 15) % 12 picks
 * the field (see apply), op >> 4 a sub-field, `at` the chunk or document. */
#include "hnsw.h"
#include "bm25.h"
#include "bytes.h"
#include "kernels.h"
#include "hxfile.h"
#include "ix.h"
#include "passage.h"
#include "wire.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIM 4
#define N_DOCS 3
#define N_CHUNKS 7
#define TEXT_MAX 160

typedef struct {
    uint32_t id, first, n;
    uint64_t size;
    const char *path, *text;
} fz_doc;

typedef struct {
    uint32_t f[IX_CHUNK_FIELDS];
    char text[TEXT_MAX];          /* header "\n" body */
    size_t text_len;
    const char *heading;
} fz_chunk;

typedef struct {
    uint32_t next_doc, next_chunk, base, split, bm25_shift, hnsw_shift;
    uint8_t tomb[1];
    fz_doc docs[N_DOCS];
    fz_chunk ch[N_CHUNKS];
    int64_t text_off[N_CHUNKS + 1], head_off[N_CHUNKS + 1];   /* -1: as laid out */
} fz_index;

/* The valid index: bodies are byte ranges of the documents' texts (overlapping in a.md, so
 * get_context merges them); chunk 6 belongs to a removed document 3 and is tombstoned. */
static void base_index(fz_index *x)
{
    static const char *const texts[N_DOCS] = {
        "# Alpha\n\nalpha beta gamma. delta epsilon zeta.\n\neta theta alpha.\n",
        "plain notes about beta and gamma rays\nsecond line\n",
        "title: Zeta\nowners:\n  - alpha\n",
    };
    static const char *const paths[N_DOCS] = {"a.md", "b.txt", "c.yaml"};
    static const struct { uint32_t doc, start, end; } ranges[N_CHUNKS] = {
        {0, 2, 36}, {0, 27, 46}, {0, 48, 65}, {1, 0, 38}, {1, 38, 49}, {2, 0, 30}, {3, 0, 5},
    };
    memset(x, 0, sizeof *x);
    x->next_doc = 4;
    x->next_chunk = N_CHUNKS;
    x->split = N_CHUNKS;
    x->tomb[0] = 1u << 6;
    for (int d = 0; d < N_DOCS; d++)
        x->docs[d] = (fz_doc){(uint32_t)d, 0, 0, strlen(texts[d]), paths[d], texts[d]};
    x->docs[0].n = 3;
    x->docs[1].first = 3;
    x->docs[1].n = 2;
    x->docs[2].first = 5;
    x->docs[2].n = 1;
    for (int c = 0; c < N_CHUNKS; c++) {
        uint32_t d = ranges[c].doc, s = ranges[c].start, e = ranges[c].end;
        const char *text = d < N_DOCS ? texts[d] : "gone away";
        fz_chunk *k = &x->ch[c];
        k->heading = d == 0 ? "Alpha" : "";
        int hl = snprintf(k->text, sizeof k->text, "%s\n", d < N_DOCS ? paths[d] : "gone");
        memcpy(k->text + hl, text + s, e - s);
        k->text_len = (size_t)hl + (e - s);
        uint32_t line = 1, last;
        for (uint32_t b = 0; b < s; b++)
            line += text[b] == '\n';
        last = line;
        for (uint32_t b = s; b + 1 < e; b++)
            last += text[b] == '\n';
        uint32_t f[IX_CHUNK_FIELDS] = {d, d < N_DOCS ? (uint32_t)c - x->docs[d].first : 0, s, e, line, last, 20,
                                       (uint32_t)hl};
        memcpy(k->f, f, sizeof f);
    }
    for (int i = 0; i <= N_CHUNKS; i++)
        x->text_off[i] = x->head_off[i] = -1;
}

static void apply(fz_index *x, uint8_t op, uint8_t at, uint32_t val)
{
    fz_chunk *c = &x->ch[at % N_CHUNKS];
    fz_doc *d = &x->docs[at % N_DOCS];
    unsigned sub = op / 16u;
    switch ((op & 15) % 12) {
    case 0: c->f[sub % IX_CHUNK_FIELDS] = val; break;
    case 1: c->f[sub % IX_CHUNK_FIELDS] += val; break;
    case 2:
        switch (sub % 4) {
        case 0: d->id = val; break;
        case 1: d->first = val; break;
        case 2: d->n = val; break;
        default: d->size = val; break;
        }
        break;
    case 3: x->next_doc = val; break;
    case 4: x->next_chunk = val; break;
    case 5: x->base = val; break;
    case 6: x->tomb[0] ^= (uint8_t)(1u << (at % 8)); break;
    case 7: x->text_off[at % (N_CHUNKS + 1)] = val; break;
    case 8: x->head_off[at % (N_CHUNKS + 1)] = val; break;
    case 9: c->text_len = val % (c->text_len + 1); break;          /* a shorter text */
    case 10: x->split = at % (N_CHUNKS + 1); break;                 /* two segments */
    default: *(sub & 1 ? &x->hnsw_shift : &x->bm25_shift) = val; break;   /* ids off the segment */
    }
}

static void vector_of(uint32_t i, float *v)
{
    for (int k = 0; k < DIM; k++)
        v[k] = 0.1f;
    v[i % DIM] = 1.0f;
    float n = 0;
    for (int k = 0; k < DIM; k++)
        n += v[k] * v[k];
    for (int k = 0; k < DIM; k++)
        v[k] /= __builtin_sqrtf(n);
}

/* Segment image of chunks [from, to), committed with base x->base + from. */
static int encode_segment(const fz_index *x, uint32_t from, uint32_t to, uint8_t **image, size_t *len)
{
    hx_error err;
    uint32_t n = to - from, base = x->base + from;
    uint8_t rows[N_CHUNKS * IX_CHUNK_FIELDS * 4], toff[(N_CHUNKS + 1) * 4], hoff[(N_CHUNKS + 1) * 4];
    char text[N_CHUNKS * TEXT_MAX], heads[N_CHUNKS * 8];
    float vecs[N_CHUNKS * DIM];
    uint32_t ids[N_CHUNKS], graph_ids[N_CHUNKS];
    size_t tl = 0, hl = 0;
    for (uint32_t i = 0; i <= n; i++) {
        hxf_put32(toff + 4 * i, x->text_off[from + i] >= 0 ? (uint32_t)x->text_off[from + i] : (uint32_t)tl);
        hxf_put32(hoff + 4 * i, x->head_off[from + i] >= 0 ? (uint32_t)x->head_off[from + i] : (uint32_t)hl);
        if (i == n)
            break;
        const fz_chunk *c = &x->ch[from + i];
        for (int f = 0; f < IX_CHUNK_FIELDS; f++)
            hxf_put32(rows + 4 * ((size_t)i * IX_CHUNK_FIELDS + (size_t)f), c->f[f]);
        memcpy(text + tl, c->text, c->text_len);
        tl += c->text_len;
        memcpy(heads + hl, c->heading, strlen(c->heading) + 1);
        hl += strlen(c->heading) + 1;
        vector_of(from + i, vecs + (size_t)i * DIM);
        ids[i] = base + i;
        graph_ids[i] = base + i + x->hnsw_shift;
    }
    uint8_t *bm25 = NULL, *graph = NULL;
    size_t bm25_len = 0, graph_len = 0;
    hxi_bm25_builder *bb = NULL;
    hxi_hnsw *hn = NULL;
    hxi_hnsw_params hp = {.dim = DIM, .dot = hxi_kernels_get()->dot, .seed = 1};
    int rc = 0;
    if (n) {
        rc = hxi_bm25_builder_new(&bb, IX_ANALYZER, &err);
        for (uint32_t i = 0; i < n && !rc; i++)
            rc = hxi_bm25_builder_add(bb, ids[i] + x->bm25_shift, x->ch[from + i].text, x->ch[from + i].text_len, &err);
        rc = rc || hxi_bm25_builder_finish(bb, &bm25, &bm25_len, &err) || hxi_hnsw_new(&hn, &hp, &err) ||
             hxi_hnsw_add_batch(hn, graph_ids, vecs, n, 1, &err) || hxi_hnsw_serialize(hn, NULL, 0, &graph_len, &err) ||
             !(graph = malloc(graph_len)) || hxi_hnsw_serialize(hn, graph, graph_len, &graph_len, &err);
    }
    if (!rc) {
        uint8_t info[16];
        hxf_put32(info, base);
        hxf_put32(info + 4, n);
        hxf_put32(info + 8, DIM);
        hxf_put32(info + 12, 0);
        const uint32_t d_info[4] = {4, 0, 0, 0}, d_rows[4] = {n, IX_CHUNK_FIELDS, 0, 0}, d_off[4] = {n + 1, 0, 0, 0},
                       d_vec[4] = {n, DIM, 0, 0};
        hxf_writer w;
        hxf_writer_begin(&w, HXF_KIND_SEGMENT);
        hxf_writer_add(&w, "info", HXF_U32, 1, d_info, info, sizeof info, &err);
        hxf_writer_add(&w, "chunks", HXF_U32, 2, d_rows, rows, (size_t)n * IX_CHUNK_FIELDS * 4, &err);
        hxf_writer_add(&w, "text_off", HXF_U32, 1, d_off, toff, 4 * ((size_t)n + 1), &err);
        hxf_writer_add(&w, "text", HXF_RAW, 0, NULL, text, tl, &err);
        hxf_writer_add(&w, "head_off", HXF_U32, 1, d_off, hoff, 4 * ((size_t)n + 1), &err);
        hxf_writer_add(&w, "heads", HXF_RAW, 0, NULL, heads, hl, &err);
        if (n) {
            hxf_writer_add(&w, "vectors", HXF_F32, 2, d_vec, vecs, sizeof *vecs * n * DIM, &err);
            hxf_writer_add(&w, "bm25", HXF_RAW, 0, NULL, bm25, bm25_len, &err);
            hxf_writer_add(&w, "hnsw", HXF_RAW, 0, NULL, graph, graph_len, &err);
        }
        rc = hxf_writer_finish(&w, image, len, &err);
    }
    hxi_bm25_builder_free(bb);
    hxi_hnsw_free(hn);
    free(bm25);
    free(graph);
    return rc;
}

static void encode_docs(const fz_index *x, hxi_buf *b)
{
    hxi_buf_bytes(b, IX_DOCS_MAGIC, 8);
    hxi_buf_u32(b, N_DOCS);
    for (int i = 0; i < N_DOCS; i++) {
        const fz_doc *d = &x->docs[i];
        hxi_buf_u32(b, d->id);
        hxi_buf_u32(b, d->first);
        hxi_buf_u32(b, d->n);
        hxi_buf_u64(b, d->size);
        hxi_buf_u64(b, 60);
        hxi_buf_u64(b, 0);
        hxi_buf_u64(b, 0);
        hxi_buf_u32(b, HX_DOC_FILE);
        hxi_buf_str(b, d->path);
        hxi_buf_str(b, d->path);
        hxi_buf_str(b, "text");
        hxi_buf_str(b, "utf-8");
        hxi_buf_str(b, "0000000000000000000000000000000000000000000000000000000000000000");
        hxi_buf_str(b, "");   /* tenant, owner, signer: none; visibility public */
        hxi_buf_str(b, "");
        hxi_buf_str(b, "");
        hxi_buf_u32(b, HX_VIS_PUBLIC);
        hxi_buf_u32(b, 0);
    }
    hxi_buf_u32(b, 0);   /* no files deleted by request */
    hxi_buf_u32(b, 1);   /* folder metadata files: one */
    hxi_buf_str(b, "kep.yaml");
}

/* Commits x into a fresh store at path; 0 when it was written. */
static int commit(const fz_index *x, const char *path)
{
    hx_error err;
    hxi_store *w = NULL;
    unlink(path);
    if (hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err))
        return -1;
    hxi_buf docs = {0}, root = {0};
    encode_docs(x, &docs);
    uint8_t tomb[4096] = {0};
    size_t tomb_len = ((size_t)x->next_chunk + 7) / 8;
    if (tomb_len > sizeof tomb)
        tomb_len = sizeof tomb;   /* a size view_load.c refuses, without a huge blob */
    tomb[0] = x->tomb[0];
    hxi_store_ref refs[4];
    bool two = x->split > 0 && x->split < N_CHUNKS;
    uint32_t bounds[3] = {0, two ? x->split : N_CHUNKS, N_CHUNKS}, n_segs = 0;
    int rc = docs.failed || hxi_store_append(w, docs.data, docs.len, &refs[0], &err) ||
             hxi_store_append(w, tomb, tomb_len, &refs[1], &err);
    for (int s = 0; s < 1 + two && !rc; s++) {
        uint8_t *image = NULL;
        size_t len = 0;
        rc = encode_segment(x, bounds[s], bounds[s + 1], &image, &len) ||
             hxi_store_append(w, image, len, &refs[2 + n_segs++], &err);
        free(image);
    }
    if (!rc) {
        uint8_t ref[HX_STORE_REF_SIZE];
        hxi_buf_bytes(&root, IX_MAGIC, 8);
        hxi_buf_u32(&root, IX_VERSION);
        hxi_buf_u32(&root, DIM);
        hxi_buf_str(&root, "fuzz-model");
        hxi_buf_str(&root, hxi_analyzer_name(IX_ANALYZER));
        hxi_buf_str(&root, hx_precision_name(HX_PRECISION_FP32));
        hxi_buf_str(&root, "/");
        hxi_buf_u32(&root, x->next_doc);
        hxi_buf_u32(&root, x->next_chunk);
        for (int i = 0; i < 2; i++) {
            hxi_store_ref_put(ref, refs[i]);
            hxi_buf_bytes(&root, ref, sizeof ref);
        }
        hxi_buf_u32(&root, n_segs);
        for (uint32_t i = 0; i < n_segs; i++) {
            hxi_store_ref_put(ref, refs[2 + i]);
            hxi_buf_bytes(&root, ref, sizeof ref);
        }
        hxi_store_ref_put(ref, (hxi_store_ref){0});   /* an empty audit log (layout 4) */
        hxi_buf_bytes(&root, ref, sizeof ref);
        rc = root.failed || hxi_store_commit(w, root.data, root.len, NULL, &err);
    }
    hxi_buf_free(&docs);
    hxi_buf_free(&root);
    hxi_store_close(w);
    return rc ? -1 : 0;
}

/* What view_load.c promises about every chunk of an index it opened. */
static void check_result(const hx_result *r, const char *where)
{
    if (r->byte_start > r->byte_end || r->text_len != (size_t)(r->byte_end - r->byte_start) ||
        r->line_start == 0 || r->line_start > r->line_end) {
        fprintf(stderr, "fuzz_ranges: %s: chunk %u opened with range [%u, %u), body %zu bytes, lines %u-%u\n", where,
                r->chunk_id, r->byte_start, r->byte_end, r->text_len, r->line_start, r->line_end);
        abort();
    }
}

/* Runs get_context's merge over res; returns how many chunks were merged into another's passage. */
static size_t passages_of(const hx_results *res)
{
    hxi_passages ps;
    hx_error err;
    for (size_t i = 0; i < res->n; i++)
        check_result(&res->v[i], "search result");
    if (hxi_passages_build(res, &ps, &err))
        return 0;
    for (size_t i = 0; i < ps.n; i++)
        if (strlen(ps.v[i].text) > ps.v[i].end - ps.v[i].start)
            abort();
    size_t merged = res->n - ps.n;
    hxi_passages_free(&ps);
    return merged;
}

/* Returns the number of search results and sets *merged to the chunks merged into passages. */
static size_t exercise(hx_index *ix, size_t *merged)
{
    size_t found = 0;
    *merged = 0;
    hx_error err;
    for (size_t i = 0; i < hx_index_doc_count(ix); i++) {
        hx_doc_info d;
        hx_index_doc_at(ix, i, &d);
        for (uint32_t c = d.first_chunk; c < d.first_chunk + d.n_chunks && c < d.first_chunk + 16; c++) {
            hx_result r;
            if (hx_index_chunk(ix, c, &r, &err)) {
                fprintf(stderr, "fuzz_ranges: chunk %u of document %u cannot be read: %s\n", c, d.id, err.message);
                abort();
            }
            check_result(&r, "document chunk");
            if (r.doc_id != d.id || r.chunk_index != c - d.first_chunk || r.byte_end > 2 * d.size) {
                fprintf(stderr, "fuzz_ranges: chunk %u of document %u (%llu bytes) says document %u, position %u, "
                        "bytes up to %u\n", c, d.id, (unsigned long long)d.size, r.doc_id, r.chunk_index, r.byte_end);
                abort();
            }
        }
        float v[DIM];
        hx_index_doc_vector(ix, d.id, v, &err);
    }
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = HX_MODE_KEYWORD;
    o.k = 50;
    o.snippets = 1;
    static const char *const queries[] = {"alpha", "beta gamma", "\"delta epsilon\"", "zeta* -rays", "owners"};
    hx_results res;
    for (size_t q = 0; q < sizeof queries / sizeof *queries; q++) {
        if (hx_index_search(ix, NULL, queries[q], strlen(queries[q]), &o, &res, &err))
            continue;
        found += res.n;
        *merged += passages_of(&res);
        hx_results_free(&res);
    }
    for (uint32_t i = 0; i < DIM; i++) {
        float v[DIM];
        vector_of(i, v);
        if (hx_index_search_vector(ix, v, &o, &res, &err))
            continue;
        found += res.n;
        *merged += passages_of(&res);
        hx_results_free(&res);
    }
    hx_index_verify(ix, &err);
    return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_index x;
    base_index(&x);
    for (size_t i = 0; i + 6 <= size && i < 6 * 16; i += 6)
        apply(&x, data[i], data[i + 1], hxf_le32(data + i + 2));
    char path[64];
    snprintf(path, sizeof path, "/tmp/hxi_fuzz_ranges_%d.hyx", (int)getpid());
    hx_index *ix = NULL;
    hx_error err;
    if (!commit(&x, path)) {
        int rc = hx_index_open(&ix, path, HX_INDEX_READ, NULL, NULL, &err);
        size_t found = 0, merged = 0;
        if (rc == 0) {
            found = exercise(ix, &merged);
            hx_index_close(ix);
        }
        if (size < 6 && (rc || found < 10 || merged == 0)) {   /* else the harness tests nothing */
            fprintf(stderr, "fuzz_ranges: the valid index: %s, %zu results, %zu merged\n", rc ? err.message : "opened",
                    found, merged);
            abort();
        }
    }
    unlink(path);
    return 0;
}
