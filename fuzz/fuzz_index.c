/* fuzz_index.c: the index layer's readers (root record, document table, tombstones, segment
 * images with their BM25 and HNSW parts, chunks' unit pairs and embedding keys) on hostile
 * bytes. The input is not a whole file: the store's checksums would stop nearly every mutation at
 * the door. Instead the input carries the blobs and the root fields, and the harness commits them
 * into a fresh store file, so the index-level parsers see the mutated bytes. Input layout (little-endian):
 *   u32 dim (taken modulo 4096, plus 1), u32 next_doc, u32 next_chunk, u32 docs length,
 *   u32 tombstones length, then the docs blob, the tombstone blob, and the rest is one segment
 *   (no segment when empty). tools/gen_fuzz_index_seeds.py cuts seeds from real index files. */
#include "bytes.h"
#include "ix.h"
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void exercise(hx_index *ix)
{
    hx_error err;
    hx_index_verify(ix, &err);
    hx_index_stats st;
    hx_index_stats_get(ix, &st, &err);
    for (size_t i = 0; i < hx_index_doc_count(ix); i++) {
        hx_doc_info d;
        hx_index_doc_at(ix, i, &d);
        hx_index_doc_by_path(ix, d.path, &d);
        for (uint32_t c = d.first_chunk; c < d.first_chunk + d.n_chunks && c < d.first_chunk + 64; c++) {
            hx_result r;
            size_t bytes = 0;
            if (!hx_index_chunk(ix, c, &r, &err))
                for (size_t k = 0; k < r.n_chunk_meta; k++)   /* a unit's pairs are read whole */
                    bytes += strlen(r.chunk_meta[k].key) + strlen(r.chunk_meta[k].value);
            (void)bytes;
        }
    }
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = HX_MODE_KEYWORD;
    o.snippets = 1;
    hx_results res;
    if (!hx_index_search(ix, NULL, "the pods \"node name\" -x sched*", 31, &o, &res, &err))
        hx_results_free(&res);
    hx_filter f = {.key = "path", .value = "**/*.md"};
    o.filters = &f;
    o.n_filters = 1;
    if (!hx_index_search(ix, NULL, "a", 1, &o, &res, &err))
        hx_results_free(&res);
    const char *keys[16];   /* chunks' unit pairs: the keys, and a filter that matches by them */
    size_t nk = hx_index_unit_keys(ix, keys, 16);
    hx_filter u = {.key = nk ? keys[0] : "symbol", .value = "verify_signature"};
    o.filters = &u;
    if (!hx_index_search(ix, NULL, "a", 1, &o, &res, &err))
        hx_results_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 20)
        return 0;
    uint32_t dim = hxf_le32(data) % 4096 + 1, next_doc = hxf_le32(data + 4), next_chunk = hxf_le32(data + 8);
    size_t docs_len = hxf_le32(data + 12), tomb_len = hxf_le32(data + 16);
    data += 20;
    size -= 20;
    if (docs_len > size || tomb_len > size - docs_len)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/hxi_fuzz_index_%d.hyx", (int)getpid());
    unlink(path);
    hxi_store *w = NULL;
    hx_error err;
    if (hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err))
        return 0;
    hxi_store_ref docs, tomb, seg;
    size_t seg_len = size - docs_len - tomb_len;
    hxi_buf root = {0};
    uint8_t ref[HX_STORE_REF_SIZE];
    int rc = hxi_store_append(w, data, docs_len, &docs, &err) ||
             hxi_store_append(w, data + docs_len, tomb_len, &tomb, &err) ||
             (seg_len && hxi_store_append(w, data + docs_len + tomb_len, seg_len, &seg, &err));
    if (!rc) {
        hxi_buf_bytes(&root, IX_MAGIC, 8);
        hxi_buf_u32(&root, IX_VERSION);
        hxi_buf_u32(&root, dim);
        hxi_buf_str(&root, "all-MiniLM-L6-v2");
        hxi_buf_str(&root, hxi_analyzer_name(IX_ANALYZER));
        hxi_buf_str(&root, hx_precision_name(HX_PRECISION_FP32));
        hxi_buf_str(&root, "/");
        hxi_buf_u32(&root, next_doc);
        hxi_buf_u32(&root, next_chunk);
        hxi_store_ref_put(ref, docs);
        hxi_buf_bytes(&root, ref, sizeof ref);
        hxi_store_ref_put(ref, tomb);
        hxi_buf_bytes(&root, ref, sizeof ref);
        hxi_buf_u32(&root, seg_len ? 1 : 0);
        if (seg_len) {
            hxi_store_ref_put(ref, seg);
            hxi_buf_bytes(&root, ref, sizeof ref);
        }
        hxi_store_ref_put(ref, (hxi_store_ref){0});   /* an empty audit log: layout 4 refuses a root without one */
        hxi_buf_bytes(&root, ref, sizeof ref);
        rc = root.failed || hxi_store_commit(w, root.data, root.len, NULL, &err);
    }
    hxi_buf_free(&root);
    hxi_store_close(w);
    hx_index *ix = NULL;
    if (!rc && hx_index_open(&ix, path, HX_INDEX_READ, NULL, NULL, &err) == 0) {
        exercise(ix);
        hx_index_close(ix);
    }
    unlink(path);
    return 0;
}
