/* fuzz_hnsw.c: feeds untrusted bytes to hxi_hnsw_view_open (the serialized graph of src/hnsw.h).
 * Whatever it accepts must search without fault (graph and exact paths, with a filter), copy into a
 * builder, take one more vector and serialize to bytes that open again; anything else aborts. */
#include "kernels.h"
#include "hnsw.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FLOATS (1u << 16)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool odd_ids(uint32_t id, void *ctx)
{
    (void)ctx;
    return id & 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy: 4-byte aligned, as a mapped section would be. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    size_t n_floats = 0;
    if (size >= 64) {
        uint64_t need = (uint64_t)le32(buf + 12) * le32(buf + 16);
        n_floats = need < MAX_FLOATS ? (size_t)need : MAX_FLOATS;
    }
    float *vecs = malloc((n_floats + 1) * sizeof *vecs);
    if (!vecs) {
        free(buf);
        return 0;
    }
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < n_floats; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        vecs[i] = (float)(int32_t)x * 0x1p-31f;
    }
    hxi_hnsw_view *v = NULL;
    hx_error err;
    if (hxi_hnsw_view_open(&v, buf, size, vecs, n_floats, hxi_kernels_get()->dot, &err) == 0) {
        uint32_t dim = hxi_hnsw_view_dim(v);
        hxi_hnsw_hit hits[8];
        uint32_t n;
        hxi_hnsw_query q = {.vector = vecs, .k = 8, .ef = 16, .exact_below = 1};
        if (hxi_hnsw_view_search(v, &q, hits, &n, NULL, &err) != 0)
            abort();
        q.filter = odd_ids;
        q.filter_fraction = 0.5f;
        if (hxi_hnsw_view_search(v, &q, hits, &n, NULL, &err) != 0)
            abort();
        q.exact = true;
        if (hxi_hnsw_view_search(v, &q, hits, &n, NULL, &err) != 0)
            abort();
        hxi_hnsw *h = NULL;
        if (hxi_hnsw_from_view(&h, v, &err) == 0) {
            if (hxi_hnsw_count(h) > 0 && hxi_hnsw_count(h) < 4096 && dim <= 1024 &&
                hxi_hnsw_add(h, 0xFFFFFFF0u, vecs, &err) != 0 && err.code != HX_EINVAL)
                abort();
            size_t len;
            if (hxi_hnsw_serialize(h, NULL, 0, &len, &err) != 0)
                abort();
            uint8_t *out = malloc(len);
            hxi_hnsw_view *w = NULL;
            size_t nf = (size_t)hxi_hnsw_count(h) * dim;
            if (!out || hxi_hnsw_serialize(h, out, len, &len, &err) != 0 ||
                hxi_hnsw_view_open(&w, out, len, hxi_hnsw_vectors(h), nf, hxi_kernels_get()->dot, &err) != 0)
                abort();
            hxi_hnsw_view_close(w);
            free(out);
            hxi_hnsw_free(h);
        } else if (err.code != HX_EFORMAT && err.code != HX_ENOMEM) {
            abort();
        }
        hxi_hnsw_view_close(v);
    }
    free(vecs);
    free(buf);
    return 0;
}
