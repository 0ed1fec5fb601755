/* hnsw_view.c: the serialized HNSW graph (format table in hnsw.h): the writer, and the zero-copy
 * view that checks every field and link of untrusted bytes before a search may read them.
 * Must not touch vector storage in index files: the caller stores the vectors and passes them in. */
#include "hnsw_internal.h"
#include "alloc.h"

#include "bytes.h"

#include <stdlib.h>
#include <string.h>

/* === Serialization === */

typedef struct layout {
    uint64_t labels, upper_off, level0, upper, levels, deleted, total;
} layout;

static uint64_t align64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

static layout layout_for(uint32_t n, uint32_t M0, uint32_t U)
{
    layout L;
    L.labels = HX_HNSW_HEADER_SIZE;
    L.upper_off = align64(L.labels + 4 * (uint64_t)n);
    L.level0 = align64(L.upper_off + 4 * (uint64_t)n);
    L.upper = align64(L.level0 + 4 * (uint64_t)n * (1 + (uint64_t)M0));
    L.levels = align64(L.upper + 4 * (uint64_t)U);
    L.deleted = align64(L.levels + n);
    L.total = L.deleted + n;
    return L;
}

int hxi_hnsw_serialize(const hxi_hnsw *h, uint8_t *buf, size_t cap, size_t *len, hx_error *err)
{
    if (!h || !len)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw serialize: builder and length needed");
    const hn_graph *g = &h->g;
    layout L = layout_for(g->n, g->M0, g->U);
    if (L.total > SIZE_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "hnsw serialize: %llu bytes do not fit in memory",
                            (unsigned long long)L.total);
    *len = (size_t)L.total;
    if (!buf)
        return 0;
    if (cap < L.total)
        return hx_error_set(err, HX_ERANGE, -1, "hnsw serialize: buffer of %zu bytes, %llu needed",
                            cap, (unsigned long long)L.total);
    memset(buf, 0, (size_t)L.total);
    memcpy(buf, HX_HNSW_MAGIC, 8);
    uint32_t hdr[] = {HX_HNSW_VERSION, g->dim, g->n, g->M, g->M0, g->efc, g->max_level, g->entry,
                      g->U, g->n_deleted};
    for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++)
        hxf_put32(buf + 8 + 4 * i, hdr[i]);
    hxf_put64(buf + 48, g->seed);
    size_t n = g->n;
    hn_copy(buf + L.labels, g->labels, 4 * n);
    hn_copy(buf + L.upper_off, g->upper_off, 4 * n);
    hn_copy(buf + L.level0, g->level0, 4 * n * (1 + (size_t)g->M0));
    hn_copy(buf + L.upper, g->upper, 4 * (size_t)g->U);
    hn_copy(buf + L.levels, g->levels, n);
    hn_copy(buf + L.deleted, g->deleted, n);
    return 0;
}

/* === View === */

uint32_t hxi_hnsw_view_count(const hxi_hnsw_view *v) { return v->g.n; }
uint32_t hxi_hnsw_view_dim(const hxi_hnsw_view *v) { return v->g.dim; }
uint32_t hxi_hnsw_view_label(const hxi_hnsw_view *v, uint32_t node) { return v->g.labels[node]; }

static bool zero_bytes(const uint8_t *p, uint64_t from, uint64_t to, uint64_t *bad)
{
    for (uint64_t i = from; i < to; i++)
        if (p[i]) {
            *bad = i;
            return false;
        }
    return true;
}

/* Says what is wrong with a list that check_list refused. */
static int list_error(const hn_graph *g, const uint32_t *ln, uint32_t max, uint32_t self, uint32_t l,
                      uint64_t off, hx_error *err)
{
    if (ln[0] > max)
        return hx_error_set(err, HX_EFORMAT, (int64_t)off,
                            "hnsw: node %u has %u links on level %u, at most %u", self, ln[0], l, max);
    for (uint32_t j = 1; j <= max; j++) {
        uint32_t v = ln[j];
        int64_t at = (int64_t)(off + 4 * (uint64_t)j);
        if (j > ln[0]) {
            if (v)
                return hx_error_set(err, HX_EFORMAT, at, "hnsw: unused link slot of node %u is not zero", self);
            continue;
        }
        if (v >= g->n || v == self)
            return hx_error_set(err, HX_EFORMAT, at, "hnsw: node %u links to %u on level %u (n = %u)",
                                self, v, l, g->n);
        if (g->levels[v] < l)
            return hx_error_set(err, HX_EFORMAT, at, "hnsw: node %u links on level %u to node %u of level %u",
                                self, l, v, g->levels[v]);
    }
    return hx_error_set(err, HX_EFORMAT, (int64_t)off, "hnsw: list of node %u on level %u is corrupt", self, l);
}

/* Checks one list at byte offset `off`: count <= max, links < n, not self, level >= l, zero tail.
 * Every link of every node passes here at open, so the loops only accumulate (and vectorise);
 * list_error finds what failed. */
static int check_list(const hn_graph *g, const uint32_t *ln, uint32_t max, uint32_t self, uint32_t l,
                      uint64_t off, hx_error *err)
{
    uint32_t cnt = ln[0], bad = 0;
    if (cnt > max)
        return list_error(g, ln, max, self, l, off, err);
    for (uint32_t j = 1; j <= cnt; j++)
        bad |= (ln[j] >= g->n) | (ln[j] == self);
    for (uint32_t j = cnt + 1; j <= max; j++)
        bad |= ln[j];
    for (uint32_t j = 1; j <= cnt && l > 0 && !bad; j++)
        bad |= g->levels[ln[j]] < l;
    return bad ? list_error(g, ln, max, self, l, off, err) : 0;
}

static int validate(hn_graph *g, const uint8_t *b, size_t len, const float *vectors, size_t n_floats,
                    hx_error *err)
{
    if (len < HX_HNSW_HEADER_SIZE)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)len, "hnsw: %zu bytes, header needs %d",
                            len, HX_HNSW_HEADER_SIZE);
    if (memcmp(b, HX_HNSW_MAGIC, 8))
        return hx_error_set(err, HX_EFORMAT, 0, "hnsw: bad magic, not a serialized HNSW graph");
    uint32_t version = hxf_le32(b + 8);
    if (version != HX_HNSW_VERSION)
        return hx_error_set(err, HX_EVERSION, 8, "hnsw: format version %u, this build reads version %d",
                            version, HX_HNSW_VERSION);
    g->dim = hxf_le32(b + 12);
    g->n = hxf_le32(b + 16);
    g->M = hxf_le32(b + 20);
    g->M0 = hxf_le32(b + 24);
    g->efc = hxf_le32(b + 28);
    g->max_level = hxf_le32(b + 32);
    g->entry = hxf_le32(b + 36);
    g->U = hxf_le32(b + 40);
    g->n_deleted = hxf_le32(b + 44);
    g->seed = hxf_le64(b + 48);
    if (g->dim == 0 || g->dim > MAX_DIM)
        return hx_error_set(err, HX_EFORMAT, 12, "hnsw: dim %u outside 1..%u", g->dim, MAX_DIM);
    if (g->n == NONE)
        return hx_error_set(err, HX_EFORMAT, 16, "hnsw: node count %u too large", g->n);
    if (g->M < 2 || g->M > MAX_M)
        return hx_error_set(err, HX_EFORMAT, 20, "hnsw: M %u outside 2..%u", g->M, MAX_M);
    if (g->M0 < g->M || g->M0 > MAX_M0)
        return hx_error_set(err, HX_EFORMAT, 24, "hnsw: M0 %u outside %u..%u", g->M0, g->M, MAX_M0);
    if (g->efc == 0 || g->efc > MAX_EFC)
        return hx_error_set(err, HX_EFORMAT, 28, "hnsw: ef_construction %u outside 1..%u", g->efc,
                            MAX_EFC);
    if (g->max_level > HX_HNSW_MAX_LEVEL)
        return hx_error_set(err, HX_EFORMAT, 32, "hnsw: max level %u above %d", g->max_level,
                            HX_HNSW_MAX_LEVEL);
    if ((g->n == 0) != (g->entry == NONE) || (g->n && g->entry >= g->n))
        return hx_error_set(err, HX_EFORMAT, 36, "hnsw: entry point %u with %u nodes", g->entry, g->n);
    if (g->n_deleted > g->n)
        return hx_error_set(err, HX_EFORMAT, 44, "hnsw: %u deleted of %u nodes", g->n_deleted, g->n);
    uint64_t bad;
    if (!zero_bytes(b, 56, 64, &bad))
        return hx_error_set(err, HX_EFORMAT, (int64_t)bad, "hnsw: reserved header bytes not zero");

    layout L = layout_for(g->n, g->M0, g->U);
    if (len < L.total)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)len, "hnsw: %zu bytes, layout needs %llu",
                            len, (unsigned long long)L.total);
    if (len > L.total)
        return hx_error_set(err, HX_EFORMAT, (int64_t)L.total, "hnsw: %zu bytes, layout ends at %llu",
                            len, (unsigned long long)L.total);
    uint64_t ends[] = {L.labels + 4 * (uint64_t)g->n, L.upper_off,
                       L.upper_off + 4 * (uint64_t)g->n, L.level0,
                       L.level0 + 4 * (uint64_t)g->n * (1 + g->M0), L.upper,
                       L.upper + 4 * (uint64_t)g->U, L.levels,
                       L.levels + g->n, L.deleted};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i += 2)
        if (!zero_bytes(b, ends[i], ends[i + 1], &bad))
            return hx_error_set(err, HX_EFORMAT, (int64_t)bad, "hnsw: padding byte not zero");
    g->vecs = vectors;
    g->labels = (const uint32_t *)(const void *)(b + L.labels);
    g->upper_off = (const uint32_t *)(const void *)(b + L.upper_off);
    g->level0 = (const uint32_t *)(const void *)(b + L.level0);
    g->upper = (const uint32_t *)(const void *)(b + L.upper);
    g->levels = b + L.levels;
    g->deleted = b + L.deleted;

    uint32_t deleted = 0, top = 0;
    uint64_t off = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->levels[i] > g->max_level)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.levels + i), "hnsw: node %u has level %u "
                                "above the max level %u", i, g->levels[i], g->max_level);
        if (g->levels[i] > top)
            top = g->levels[i];
        if (g->deleted[i] > 1)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.deleted + i),
                                "hnsw: deleted flag of node %u is %u", i, g->deleted[i]);
        deleted += g->deleted[i];
        if (g->upper_off[i] != off)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.upper_off + 4 * (uint64_t)i),
                                "hnsw: node %u upper offset %u, expected %llu", i, g->upper_off[i],
                                (unsigned long long)off);
        off += (uint64_t)g->levels[i] * (1 + g->M);
        if (off > g->U)
            return hx_error_set(err, HX_EFORMAT, (int64_t)(L.upper_off + 4 * (uint64_t)i),
                                "hnsw: node %u upper links pass the array end %u", i, g->U);
    }
    if (off != g->U)
        return hx_error_set(err, HX_EFORMAT, 40, "hnsw: upper array holds %u u32s, nodes use %llu",
                            g->U, (unsigned long long)off);
    if (deleted != g->n_deleted)
        return hx_error_set(err, HX_EFORMAT, 44, "hnsw: header says %u deleted, flags say %u",
                            g->n_deleted, deleted);
    if (g->n && (top != g->max_level || g->levels[g->entry] != g->max_level))
        return hx_error_set(err, HX_EFORMAT, 32, "hnsw: max level %u, top node level %u, entry level %u",
                            g->max_level, top, g->levels[g->entry]);
    for (uint32_t i = 0; i < g->n; i++) {
        int rc = check_list(g, hn_links_of(g, i, 0), g->M0, i, 0,
                            L.level0 + 4 * (uint64_t)i * (1 + g->M0), err);
        for (uint32_t l = 1; rc == 0 && l <= g->levels[i]; l++)
            rc = check_list(g, hn_links_of(g, i, l), g->M, i, l,
                            L.upper + 4 * ((uint64_t)g->upper_off[i] + (uint64_t)(l - 1) * (1 + g->M)),
                            err);
        if (rc)
            return rc;
    }
    if (g->n && (uint64_t)n_floats / g->n < g->dim)
        return hx_error_set(err, HX_ERANGE, -1, "hnsw: %zu floats given, %u nodes of dim %u need more",
                            n_floats, g->n, g->dim);
    if (g->n && !vectors)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw: vectors needed");
    return 0;
}

int hxi_hnsw_view_open(hxi_hnsw_view **out, const uint8_t *base, size_t len, const float *vectors,
                       size_t n_floats, hxi_hnsw_dot_fn dot, hx_error *err)
{
    if (!out || (!base && len))
        return hx_error_set(err, HX_EINVAL, -1, "hnsw view: output and bytes needed");
    if (!dot)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw view: dot product needed");
    *out = NULL;
    if (((uintptr_t)base & 3) != 0)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw view: bytes must be 4-byte aligned");
    hn_graph g = {0};
    int rc = validate(&g, base ? base : (const uint8_t *)"", base ? len : 0, vectors, n_floats, err);
    if (rc)
        return rc;
    hxi_hnsw_view *v = hx_calloc(1, sizeof *v);
    if (!v)
        return hx_error_set(err, HX_ENOMEM, -1, "hnsw view: out of memory");
    g.dot = dot;
    v->g = g;
    hn_pool_init(&v->pool);
    *out = v;
    return 0;
}

void hxi_hnsw_view_close(hxi_hnsw_view *v)
{
    if (!v)
        return;
    hn_pool_destroy(&v->pool);
    free(v);
}

int hxi_hnsw_view_search(const hxi_hnsw_view *v, const hxi_hnsw_query *q, hxi_hnsw_hit *out,
                         uint32_t *n_out, hxi_hnsw_search_info *info, hx_error *err)
{
    if (!v)
        return hx_error_set(err, HX_EINVAL, -1, "hnsw search: view needed");
    return hn_graph_search(&v->g, (hn_pool *)&v->pool, q, out, n_out, info, err);
}
