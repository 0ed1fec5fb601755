/* bm25.c: the BM25 inverted index: in-memory builder, serialization, validating reader over mapped
 * bytes and postings cursors. Queries and search live in bm25_search.c; tokenizing in analyzer.c,
 * snippets in snippet.c; the container is hxfile.c's. Spec: the header comment of bm25.h. */
#include "analyzer.h"
#include "alloc.h"
#include "bm25_internal.h"

#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 64
#define DIR_ENTRIES 8
#define DATA_START (HEADER_SIZE + 16 * DIR_ENTRIES)

/* === Varints === */

typedef struct bytebuf {
    uint8_t *p;  /* owned */
    size_t len, cap;
} bytebuf;

static int put_varint(bytebuf *b, uint32_t v)
{
    if (hx_grow((void **)&b->p, &b->cap, b->len + 5, 1, NULL))
        return HX_ENOMEM;
    while (v >= 0x80) {
        b->p[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->len++] = (uint8_t)v;
    return 0;
}

/* Decodes one varint from [*p, end); -1 on truncation or a value over 32 bits. */
static int get_varint(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint32_t x = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (*p >= end)
            return -1;
        uint8_t c = *(*p)++;
        if (shift == 28 && c > 0x0f)
            return -1;
        x |= (uint32_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* === Builder === */

typedef struct bterm {
    uint32_t text_off, text_len;  /* bytes in the builder's arena */
    uint32_t *post;               /* owned; per doc: add index, tf, tf positions */
    size_t n_post, cap_post;
    size_t cur;                   /* offset of the last doc's entry in post */
    uint32_t last_add;            /* add index + 1 of the last doc with this term, 0 = none */
    uint32_t df;
} bterm;

struct hxi_bm25_builder {
    bterm *terms;                 /* owned */
    size_t n_terms, cap_terms;
    uint32_t *slots;              /* owned hash table of term index + 1; 0 = empty */
    size_t n_slots;
    char *arena;                  /* owned term bytes */
    size_t arena_len, arena_cap;
    uint32_t *doc_ids, *doc_lens; /* owned, in add order */
    size_t n_docs, cap_docs, cap_lens;
    hxi_analysis an;
    int error;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

int hxi_bm25_builder_new(hxi_bm25_builder **out, uint32_t analyzer, hx_error *err)
{
    if (!hxi_analyzer_name(analyzer))
        return hx_error_set(err, HX_EINVAL, -1, "bm25: unknown analyzer configuration %u", analyzer);
    *out = hx_calloc(1, sizeof **out);
    if (!*out)
        return hx_error_set(err, HX_ENOMEM, -1, "bm25: out of memory");
    (*out)->an.config = analyzer;
    return 0;
}

void hxi_bm25_builder_free(hxi_bm25_builder *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n_terms; i++)
        free(b->terms[i].post);
    free(b->terms);
    free(b->slots);
    free(b->arena);
    free(b->doc_ids);
    free(b->doc_lens);
    hxi_analyzer_free(&b->an);
    free(b);
}

static int rehash(hxi_bm25_builder *b)
{
    size_t n = b->n_slots ? b->n_slots * 2 : 1024;
    uint32_t *s = hx_calloc(n, sizeof *s);
    if (!s)
        return HX_ENOMEM;
    for (size_t i = 0; i < b->n_terms; i++) {
        const bterm *t = &b->terms[i];
        size_t h = (size_t)hash_bytes(b->arena + t->text_off, t->text_len) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = (uint32_t)(i + 1);
    }
    free(b->slots);
    b->slots = s;
    b->n_slots = n;
    return 0;
}

static int term_lookup(hxi_bm25_builder *b, const char *text, size_t len, bterm **out)
{
    if ((b->n_terms + 1) * 2 > b->n_slots && rehash(b))
        return HX_ENOMEM;
    size_t h = (size_t)hash_bytes(text, len) & (b->n_slots - 1);
    while (b->slots[h]) {
        bterm *t = &b->terms[b->slots[h] - 1];
        if (t->text_len == len && memcmp(b->arena + t->text_off, text, len) == 0) {
            *out = t;
            return 0;
        }
        h = (h + 1) & (b->n_slots - 1);
    }
    if (b->n_terms >= UINT32_MAX - 1 || b->arena_len + len > UINT32_MAX ||
        hx_grow((void **)&b->terms, &b->cap_terms, b->n_terms + 1, sizeof *b->terms, NULL) ||
        hx_grow((void **)&b->arena, &b->arena_cap, b->arena_len + len, 1, NULL))
        return HX_ENOMEM;
    bterm *t = &b->terms[b->n_terms++];
    memset(t, 0, sizeof *t);
    t->text_off = (uint32_t)b->arena_len;
    t->text_len = (uint32_t)len;
    memcpy(b->arena + b->arena_len, text, len);
    b->arena_len += len;
    b->slots[h] = (uint32_t)b->n_terms;
    *out = t;
    return 0;
}

/* Adds the terms of b->an to document add (its postings), each prefixed with `mark` (0: none). */
static int add_terms(hxi_bm25_builder *b, uint32_t add, char mark)
{
    char tmp[1 + HX_ANALYZER_MAX_TERM];
    tmp[0] = mark;
    for (size_t i = 0; i < b->an.n_terms; i++) {
        const hxi_term *tm = &b->an.terms[i];
        const char *txt = hxi_analyzer_term(&b->an, i);
        size_t n = tm->text_len;
        bterm *t;
        if (mark) {
            memcpy(tmp + 1, txt, n++);
            txt = tmp;
        }
        if (term_lookup(b, txt, n, &t))
            return HX_ENOMEM;
        if (t->last_add != add + 1) {
            if (hx_grow((void **)&t->post, &t->cap_post, t->n_post + 3, sizeof *t->post, NULL))
                return HX_ENOMEM;
            t->cur = t->n_post;
            t->post[t->n_post++] = add;
            t->post[t->n_post++] = 0;
            t->last_add = add + 1;
            t->df++;
        } else if (t->post[t->n_post - 1] >= tm->pos) {
            continue;  /* same term twice at one position: counted once */
        }
        if (hx_grow((void **)&t->post, &t->cap_post, t->n_post + 1, sizeof *t->post, NULL))
            return HX_ENOMEM;
        t->post[t->cur + 1]++;
        t->post[t->n_post++] = tm->pos;
    }
    return 0;
}

int hxi_bm25_builder_add_chunk(hxi_bm25_builder *b, uint32_t doc_id, const char *text, size_t len, size_t body,
                               hx_error *err)
{
    if (b->error)
        return hx_error_set(err, b->error, -1, "bm25: builder failed earlier");
    if (body > len)
        return hx_error_set(err, HX_EINVAL, -1, "bm25: body offset %zu past the text's %zu bytes", body, len);
    int rc = hxi_analyzer_run(&b->an, text + body, len - body, err);
    if (rc)
        return b->error = rc;
    if (b->n_docs >= UINT32_MAX - 1 ||
        hx_grow((void **)&b->doc_ids, &b->cap_docs, b->n_docs + 1, sizeof *b->doc_ids, NULL) ||
        hx_grow((void **)&b->doc_lens, &b->cap_lens, b->n_docs + 1, sizeof *b->doc_lens, NULL))
        goto nomem;
    uint32_t add = (uint32_t)b->n_docs, dl = b->an.doc_len;
    if (add_terms(b, add, 0))
        goto nomem;
    if (body) {
        if ((rc = hxi_analyzer_run(&b->an, text, body, err)))
            return b->error = rc;
        if (add_terms(b, add, HX_BM25_HEAD_MARK))
            goto nomem;
    }
    b->doc_ids[b->n_docs] = doc_id;
    b->doc_lens[b->n_docs] = dl;
    b->n_docs++;
    return 0;
nomem:
    b->error = HX_ENOMEM;
    return hx_error_set(err, HX_ENOMEM, -1, "bm25: out of memory");
}

int hxi_bm25_builder_add(hxi_bm25_builder *b, uint32_t doc_id, const char *text, size_t len, hx_error *err)
{
    return hxi_bm25_builder_add_chunk(b, doc_id, text, len, 0, err);
}

typedef struct pair32 {
    uint32_t key, val;
} pair32;

static int cmp_pair(const void *a, const void *b)
{
    const pair32 *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

typedef struct termref {
    const char *text;
    uint32_t len, idx;
} termref;

static int cmp_termref(const void *a, const void *b)
{
    const termref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* What hxi_bm25_builder_finish builds, step by step, before it lays out the blob. */
typedef struct finish_state {
    const hxi_bm25_builder *b;
    pair32 *order;                /* owned: (doc id, add index) by doc id */
    uint32_t *ord_of;             /* owned: add index -> ordinal */
    termref *refs;                /* owned: the terms in byte order */
    uint8_t *info;                /* owned: TERM_INFO_SIZE bytes per term, in refs order */
    bytebuf skips, docs, pos;     /* the three streams */
    uint32_t n_skips;
    pair32 *ents;                 /* owned: (ordinal, offset in post) of one term */
    size_t ents_cap;
    uint64_t total;               /* sum of the document lengths */
} finish_state;

static void finish_free(finish_state *f)
{
    free(f->order);
    free(f->ord_of);
    free(f->refs);
    free(f->info);
    free(f->ents);
    free(f->skips.p);
    free(f->docs.p);
    free(f->pos.p);
}

/* Ordinals: documents sorted by id, which must be unique. 0 or HX_EINVAL. */
static int order_docs(finish_state *f, hx_error *err)
{
    const hxi_bm25_builder *b = f->b;
    size_t nd = b->n_docs;
    for (size_t i = 0; i < nd; i++) {
        f->order[i].key = b->doc_ids[i];
        f->order[i].val = (uint32_t)i;
        f->total += b->doc_lens[i];
    }
    qsort(f->order, nd, sizeof *f->order, cmp_pair);
    for (size_t i = 0; i < nd; i++) {
        if (i && f->order[i].key == f->order[i - 1].key)
            return hx_error_set(err, HX_EINVAL, -1, "bm25: doc id %u added twice", f->order[i].key);
        f->ord_of[f->order[i].val] = (uint32_t)i;
    }
    return 0;
}

static void sort_terms(finish_state *f)
{
    const hxi_bm25_builder *b = f->b;
    for (size_t i = 0; i < b->n_terms; i++) {
        f->refs[i].text = b->arena + b->terms[i].text_off;
        f->refs[i].len = b->terms[i].text_len;
        f->refs[i].idx = (uint32_t)i;
    }
    qsort(f->refs, b->n_terms, sizeof *f->refs, cmp_termref);
}

/* The postings of t as f->ents[*n], by ordinal. 0 or HX_ENOMEM. */
static int term_entries(finish_state *f, const bterm *t, size_t *n)
{
    if (hx_grow((void **)&f->ents, &f->ents_cap, t->df, sizeof *f->ents, NULL))
        return HX_ENOMEM;
    pair32 *ents = f->ents;
    size_t k = 0, sorted = 1;
    for (size_t off = 0; off < t->n_post; off += 2 + t->post[off + 1]) {
        ents[k].key = f->ord_of[t->post[off]];
        ents[k].val = (uint32_t)off;
        if (k && ents[k].key < ents[k - 1].key)
            sorted = 0;
        k++;
    }
    if (!sorted)
        qsort(ents, k, sizeof *ents, cmp_pair);
    *n = k;
    return 0;
}

/* The skip entry of the block of t's postings that starts at entry j of n: last ordinal, stream
 * offsets from the term's start, block-max tf and min document length. 0 or HX_ENOMEM. */
static int put_skip(finish_state *f, const bterm *t, size_t j, size_t n, size_t doc_base, size_t pos_base)
{
    const pair32 *ents = f->ents;
    bytebuf *skips = &f->skips;
    uint32_t last = ents[j + HX_BM25_BLOCK - 1 < n ? j + HX_BM25_BLOCK - 1 : n - 1].key;
    if (f->docs.len - doc_base > UINT32_MAX ||
        hx_grow((void **)&skips->p, &skips->cap, skips->len + SKIP_SIZE, 1, NULL))
        return HX_ENOMEM;
    hxf_put32(skips->p + skips->len, last);
    hxf_put32(skips->p + skips->len + 4, (uint32_t)(f->docs.len - doc_base));
    hxf_put64(skips->p + skips->len + 8, f->pos.len - pos_base);
    uint32_t bmax = 0, bmin = UINT32_MAX;
    for (size_t x = j; x < n && x < j + HX_BM25_BLOCK; x++) {
        const uint32_t *ex = t->post + ents[x].val;
        bmax = ex[1] > bmax ? ex[1] : bmax;
        bmin = f->b->doc_lens[ex[0]] < bmin ? f->b->doc_lens[ex[0]] : bmin;
    }
    hxf_put32(skips->p + skips->len + 16, bmax);
    hxf_put32(skips->p + skips->len + 20, bmin);
    skips->len += SKIP_SIZE;
    f->n_skips++;
    return 0;
}

/* Term r (in byte order): its postings into the streams, a skip entry per block, its term info.
 * 0 or HX_ENOMEM. */
static int encode_term(finish_state *f, size_t r)
{
    const bterm *t = &f->b->terms[f->refs[r].idx];
    size_t n;
    if (term_entries(f, t, &n))
        return HX_ENOMEM;
    uint32_t max_tf = 0, min_dl = UINT32_MAX;
    uint8_t *ti = f->info + r * TERM_INFO_SIZE;
    hxf_put32(ti, (uint32_t)n);
    hxf_put32(ti + 12, f->n_skips);
    hxf_put64(ti + 16, f->docs.len);
    hxf_put64(ti + 24, f->pos.len);
    size_t doc_base = f->docs.len, pos_base = f->pos.len;
    int64_t prev = -1;
    for (size_t j = 0; j < n; j++) {
        const uint32_t *e = t->post + f->ents[j].val;
        uint32_t ord = f->ents[j].key, tf = e[1];
        if (j % HX_BM25_BLOCK == 0 && put_skip(f, t, j, n, doc_base, pos_base))
            return HX_ENOMEM;
        if (put_varint(&f->docs, (uint32_t)((int64_t)ord - prev)) || put_varint(&f->docs, tf))
            return HX_ENOMEM;
        prev = ord;
        uint32_t p_prev = 0;
        for (uint32_t k = 0; k < tf; k++) {
            if (put_varint(&f->pos, e[2 + k] - p_prev))
                return HX_ENOMEM;
            p_prev = e[2 + k];
        }
        if (tf > max_tf)
            max_tf = tf;
        if (f->b->doc_lens[e[0]] < min_dl)
            min_dl = f->b->doc_lens[e[0]];
    }
    hxf_put32(ti + 4, max_tf);
    hxf_put32(ti + 8, min_dl);
    return 0;
}

/* Lays out header, directory and arrays (bm25.h) in one blob; on success *out (caller frees with
 * free()) holds *out_len bytes. 0 or HX_ENOMEM. */
static int write_blob(const finish_state *f, uint8_t **out, size_t *out_len)
{
    const hxi_bm25_builder *b = f->b;
    size_t nd = b->n_docs, nt = b->n_terms;
    size_t term_bytes = 0;
    for (size_t i = 0; i < nt; i++)
        term_bytes += f->refs[i].len;
    uint64_t lens[DIR_ENTRIES] = {4 * (uint64_t)nd, 4 * (uint64_t)nd, 4 * ((uint64_t)nt + 1), term_bytes,
                                  (uint64_t)TERM_INFO_SIZE * nt, f->skips.len, f->docs.len, f->pos.len};
    uint64_t offs[DIR_ENTRIES], size = DATA_START;
    for (int i = 0; i < DIR_ENTRIES; i++) {
        offs[i] = size;
        size = align8((size_t)(size + lens[i]));
    }
    uint8_t *blob;
    if (size > SIZE_MAX || !(blob = hx_calloc(1, (size_t)size)))
        return HX_ENOMEM;
    memcpy(blob, HX_BM25_MAGIC, 8);
    hxf_put32(blob + 8, HX_BM25_VERSION);
    hxf_put32(blob + 12, HX_BM25_BLOCK);
    hxf_put32(blob + 16, (uint32_t)nd);
    hxf_put32(blob + 20, (uint32_t)nt);
    hxf_put64(blob + 24, f->total);
    hxf_put64(blob + 32, size);
    hxf_put32(blob + 40, b->an.config);
    for (int i = 0; i < DIR_ENTRIES; i++) {
        hxf_put64(blob + HEADER_SIZE + 16 * i, offs[i]);
        hxf_put64(blob + HEADER_SIZE + 16 * i + 8, lens[i]);
    }
    for (size_t i = 0; i < nd; i++) {
        hxf_put32(blob + offs[A_DOC_IDS] + 4 * i, f->order[i].key);
        hxf_put32(blob + offs[A_DOC_LENS] + 4 * i, b->doc_lens[f->order[i].val]);
    }
    uint32_t toff = 0;
    for (size_t i = 0; i < nt; i++) {
        hxf_put32(blob + offs[A_TERM_OFFS] + 4 * i, toff);
        memcpy(blob + offs[A_TERM_BYTES] + toff, f->refs[i].text, f->refs[i].len);
        toff += f->refs[i].len;
    }
    hxf_put32(blob + offs[A_TERM_OFFS] + 4 * nt, toff);
    if (nt)
        memcpy(blob + offs[A_TERM_INFO], f->info, nt * TERM_INFO_SIZE);
    if (f->skips.len)
        memcpy(blob + offs[A_SKIPS], f->skips.p, f->skips.len);
    if (f->docs.len)
        memcpy(blob + offs[A_DOCS], f->docs.p, f->docs.len);
    if (f->pos.len)
        memcpy(blob + offs[A_POS], f->pos.p, f->pos.len);
    *out = blob;
    *out_len = (size_t)size;
    return 0;
}

int hxi_bm25_builder_finish(hxi_bm25_builder *b, uint8_t **out, size_t *out_len, hx_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (b->error)
        return hx_error_set(err, b->error, -1, "bm25: builder failed earlier");
    size_t nd = b->n_docs, nt = b->n_terms;
    finish_state f = {.b = b};
    f.order = hx_malloc((nd ? nd : 1) * sizeof *f.order);
    f.ord_of = hx_malloc((nd ? nd : 1) * sizeof *f.ord_of);
    f.refs = hx_malloc((nt ? nt : 1) * sizeof *f.refs);
    f.info = hx_malloc((nt ? nt : 1) * TERM_INFO_SIZE);
    int rc = HX_ENOMEM;
    if (!f.order || !f.ord_of || !f.refs || !f.info)
        goto nomem;
    if ((rc = order_docs(&f, err)))
        goto done;   /* a repeated id; err says which */
    sort_terms(&f);
    for (size_t r = 0; r < nt; r++)
        if ((rc = encode_term(&f, r)))
            goto nomem;
    if ((rc = write_blob(&f, out, out_len)))
        goto nomem;
    goto done;
nomem:
    rc = hx_error_set(err, HX_ENOMEM, -1, "bm25: out of memory while serializing");
done:
    finish_free(&f);
    return rc;
}

/* === Reader === */

/* Byte ranges of term t's doc and position streams (validated monotone at open). */
static void term_streams(const hxi_bm25_reader *r, uint32_t t, uint64_t *d0, uint64_t *d1, uint64_t *p0,
                         uint64_t *p1)
{
    const uint8_t *ti = bm_term_info(r, t);
    *d0 = hxf_le64(ti + 16);
    *p0 = hxf_le64(ti + 24);
    *d1 = t + 1 < r->n_terms ? hxf_le64(ti + TERM_INFO_SIZE + 16) : r->arr_len[A_DOCS];
    *p1 = t + 1 < r->n_terms ? hxf_le64(ti + TERM_INFO_SIZE + 24) : r->arr_len[A_POS];
}

int hxi_bm25_reader_open(hxi_bm25_reader *r, const void *data, size_t len, hx_error *err)
{
    memset(r, 0, sizeof *r);
    const uint8_t *p = data;
    if (len < DATA_START)
        return hx_error_set(err, HX_ETRUNCATED, 0, "bm25: segment of %zu bytes is shorter than its header", len);
    if (memcmp(p, HX_BM25_MAGIC, 8) != 0)
        return hx_error_set(err, HX_EFORMAT, 0, "bm25: bad magic");
    uint32_t version = r->version = hxf_le32(p + 8);
    if (version != HX_BM25_VERSION)
        return hx_error_set(err, HX_EVERSION, 8, "bm25: segment format version %u, this build reads %u",
                            version, HX_BM25_VERSION);
    if (hxf_le32(p + 12) != HX_BM25_BLOCK)
        return hx_error_set(err, HX_EFORMAT, 12, "bm25: block size %u, expected %u", hxf_le32(p + 12),
                            HX_BM25_BLOCK);
    r->base = p;
    r->size = len;
    r->n_docs = hxf_le32(p + 16);
    r->n_terms = hxf_le32(p + 20);
    r->total_len = hxf_le64(p + 24);
    r->analyzer = hxf_le32(p + 40);
    if (!hxi_analyzer_name(r->analyzer))
        return hx_error_set(err, HX_EVERSION, 40, "bm25: unknown analyzer configuration %u", r->analyzer);
    uint64_t size = hxf_le64(p + 32);
    if (size > len)
        return hx_error_set(err, HX_ETRUNCATED, 32, "bm25: segment declares %llu bytes, buffer has %zu",
                            (unsigned long long)size, len);
    if (r->n_docs == UINT32_MAX || r->n_terms == UINT32_MAX)
        return hx_error_set(err, HX_EFORMAT, 16, "bm25: bad counts");
    uint64_t want[DIR_ENTRIES] = {4 * (uint64_t)r->n_docs, 4 * (uint64_t)r->n_docs, 4 * ((uint64_t)r->n_terms + 1),
                                  0, (uint64_t)TERM_INFO_SIZE * r->n_terms, 0, 0, 0};
    for (int i = 0; i < DIR_ENTRIES; i++) {
        uint64_t off = hxf_le64(p + HEADER_SIZE + 16 * i), n = hxf_le64(p + HEADER_SIZE + 16 * i + 8);
        int fixed = i != A_TERM_BYTES && i != A_SKIPS && i != A_DOCS && i != A_POS;
        if (off < DATA_START || off > size || n > size - off || (fixed && n != want[i]) ||
            (i == A_SKIPS && n % SKIP_SIZE))
            return hx_error_set(err, HX_EFORMAT, HEADER_SIZE + 16 * i, "bm25: array %d out of bounds", i);
        r->arr[i] = p + off;
        r->arr_len[i] = n;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->n_docs; i++) {
        if (i && hxf_le32(r->arr[A_DOC_IDS] + 4 * (size_t)i) <= hxf_le32(r->arr[A_DOC_IDS] + 4 * (size_t)i - 4))
            return hx_error_set(err, HX_EFORMAT, -1, "bm25: doc ids not ascending at %u", i);
        total += hxf_le32(r->arr[A_DOC_LENS] + 4 * (size_t)i);
    }
    if (total != r->total_len)
        return hx_error_set(err, HX_EFORMAT, 24, "bm25: total length does not match the doc lengths");
    if (hxf_le32(r->arr[A_TERM_OFFS]) != 0 ||
        hxf_le32(r->arr[A_TERM_OFFS] + 4 * (size_t)r->n_terms) != r->arr_len[A_TERM_BYTES])
        return hx_error_set(err, HX_EFORMAT, -1, "bm25: term offsets do not cover the term bytes");
    uint64_t n_skips = 0, prev_d = 0, prev_p = 0;
    for (uint32_t t = 0; t < r->n_terms; t++) {
        uint32_t a = hxf_le32(r->arr[A_TERM_OFFS] + 4 * (size_t)t);
        uint32_t e = hxf_le32(r->arr[A_TERM_OFFS] + 4 * (size_t)t + 4);
        if (e <= a || e > r->arr_len[A_TERM_BYTES])
            return hx_error_set(err, HX_EFORMAT, -1, "bm25: term %u has bad offsets", t);
        if (t) {
            const char *ps, *cs;
            size_t pn, cn;
            bm_term_text(r, t - 1, &ps, &pn);
            bm_term_text(r, t, &cs, &cn);
            int c = memcmp(ps, cs, pn < cn ? pn : cn);
            if (c > 0 || (c == 0 && pn >= cn))
                return hx_error_set(err, HX_EFORMAT, -1, "bm25: terms not sorted at %u", t);
        }
        const uint8_t *ti = bm_term_info(r, t);
        uint32_t df = hxf_le32(ti), max_tf = hxf_le32(ti + 4);
        uint64_t d0 = hxf_le64(ti + 16), p0 = hxf_le64(ti + 24);
        if (df == 0 || df > r->n_docs || max_tf == 0 || hxf_le32(ti + 12) != n_skips || d0 < prev_d ||
            p0 < prev_p || d0 > r->arr_len[A_DOCS] || p0 > r->arr_len[A_POS] || (t == 0 && (d0 || p0)))
            return hx_error_set(err, HX_EFORMAT, -1, "bm25: term %u has bad postings info", t);
        n_skips += (df + HX_BM25_BLOCK - 1) / HX_BM25_BLOCK;
        prev_d = d0;
        prev_p = p0;
    }
    if (n_skips * SKIP_SIZE != r->arr_len[A_SKIPS])
        return hx_error_set(err, HX_EFORMAT, -1, "bm25: skip table has the wrong size");
    return 0;
}

int64_t hxi_bm25_reader_find(const hxi_bm25_reader *r, const char *term, size_t len)
{
    uint32_t i = bm_lower_bound(r, term, len);
    const char *s;
    size_t n;
    if (i == r->n_terms)
        return -1;
    bm_term_text(r, i, &s, &n);
    return n == len && !memcmp(s, term, len) ? (int64_t)i : -1;
}

/* First term index whose text is >= key (lower bound). */
uint32_t bm_lower_bound(const hxi_bm25_reader *r, const char *key, size_t len)
{
    uint32_t lo = 0, hi = r->n_terms;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const char *s;
        size_t n;
        bm_term_text(r, mid, &s, &n);
        int c = memcmp(s, key, n < len ? n : len);
        if (c == 0)
            c = n < len ? -1 : n > len;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* === Postings cursors === */

void bm_cur_next_long(bm_cursor *c)
{
    uint32_t gap, tf;
    if (get_varint(&c->dp, c->dend, &gap) || get_varint(&c->dp, c->dend, &tf)) {
        c->bad = 1;
        c->doc = END_DOC;
        return;
    }
    bm_cur_step(c, gap, tf);
}

/* Opens a cursor on term t of r, positioned on its first posting. */
void bm_cur_open(bm_cursor *c, const hxi_bm25_reader *r, uint32_t t)
{
    uint64_t d0, d1, p0, p1;
    term_streams(r, t, &d0, &d1, &p0, &p1);
    memset(c, 0, sizeof *c);
    c->r = r;
    c->dstart = c->dp = r->arr[A_DOCS] + d0;
    c->dend = r->arr[A_DOCS] + d1;
    c->pstart = c->pp = r->arr[A_POS] + p0;
    c->pend = r->arr[A_POS] + p1;
    c->df = hxf_le32(bm_term_info(r, t));
    c->max_tf = hxf_le32(bm_term_info(r, t) + 4);
    c->skip_first = hxf_le32(bm_term_info(r, t) + 12);
    c->prev = -1;
    c->pos_read = 1;
    bm_cur_next(c);
}

void bm_cur_empty(bm_cursor *c)
{
    memset(c, 0, sizeof *c);
    c->doc = END_DOC;
}

/* Moves to the first posting with ordinal >= target, jumping over whole blocks with the skips. */
void bm_cur_advance(bm_cursor *c, uint32_t target)
{
    if (c->doc >= target)
        return;
    uint32_t nblocks = (c->df + HX_BM25_BLOCK - 1) / HX_BM25_BLOCK;
    uint32_t blk = (c->idx - 1) / HX_BM25_BLOCK;
    const uint8_t *sk = c->r->arr[A_SKIPS] + (size_t)c->skip_first * SKIP_SIZE;
    if (hxf_le32(sk + (size_t)blk * SKIP_SIZE) < target) {
        uint32_t j = blk + 1;
        while (j < nblocks && hxf_le32(sk + (size_t)j * SKIP_SIZE) < target)
            j++;
        if (j >= nblocks) {
            c->doc = END_DOC;
            return;
        }
        uint32_t drel = hxf_le32(sk + (size_t)j * SKIP_SIZE + 4);
        uint64_t prel = hxf_le64(sk + (size_t)j * SKIP_SIZE + 8);
        uint32_t prev_last = hxf_le32(sk + (size_t)(j - 1) * SKIP_SIZE);
        if (drel > (uint64_t)(c->dend - c->dstart) || prel > (uint64_t)(c->pend - c->pstart) ||
            prev_last >= c->r->n_docs) {
            c->bad = 1;
            c->doc = END_DOC;
            return;
        }
        c->dp = c->dstart + drel;
        c->pp = c->pstart + prel;
        c->pskip = 0;
        c->pos_read = 1;
        c->idx = j * HX_BM25_BLOCK;
        c->prev = prev_last;
        c->doc = 0;
        bm_cur_next(c);
    }
    while (c->doc < target)
        bm_cur_next(c);
}

/* Impact bounds (max tf, min dl) of the block that would hold ordinal d, without decoding;
 * 0 when no block can hold d (past the term's last doc). d must not precede the current doc. */
int bm_cur_block_bounds(bm_cursor *c, uint32_t d, uint32_t *max_tf, uint32_t *min_dl)
{
    if (c->doc == END_DOC)
        return 0;
    uint32_t nblocks = (c->df + HX_BM25_BLOCK - 1) / HX_BM25_BLOCK;
    uint32_t j = (c->idx - 1) / HX_BM25_BLOCK;
    const uint8_t *sk = c->r->arr[A_SKIPS] + (size_t)c->skip_first * SKIP_SIZE;
    if (c->sblk > j)
        j = c->sblk;
    while (j < nblocks && hxf_le32(sk + (size_t)j * SKIP_SIZE) < d)
        j++;
    c->sblk = j;
    if (j >= nblocks)
        return 0;
    *max_tf = hxf_le32(sk + (size_t)j * SKIP_SIZE + 16);
    *min_dl = hxf_le32(sk + (size_t)j * SKIP_SIZE + 20);
    return 1;
}

/* Reads the current doc's positions into *buf (grown as needed); returns the count or -1. */
int64_t bm_cur_positions(bm_cursor *c, uint32_t **buf, size_t *cap)
{
    if (c->pos_read) {
        c->bad = 1;  /* positions asked twice for one doc: a logic error, never expected */
        return -1;
    }
    for (; c->pskip; c->pskip--) {
        uint32_t v;
        if (get_varint(&c->pp, c->pend, &v))
            goto bad;
    }
    if (c->tf > (uint64_t)(c->pend - c->pp))
        goto bad;  /* each position takes at least one byte */
    if (hx_grow((void **)buf, cap, c->tf, sizeof **buf, NULL))
        return -2;
    uint64_t p = 0;
    for (uint32_t i = 0; i < c->tf; i++) {
        uint32_t g;
        if (get_varint(&c->pp, c->pend, &g) || (i && g == 0))
            goto bad;
        p += g;
        if (p > UINT32_MAX)
            goto bad;
        (*buf)[i] = (uint32_t)p;
    }
    c->pos_read = 1;
    return c->tf;
bad:
    c->bad = 1;
    return -1;
}

int hxi_bm25_reader_check(const hxi_bm25_reader *r, hx_error *err)
{
    uint32_t *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (uint32_t t = 0; t < r->n_terms && !rc; t++) {
        bm_cursor c;
        bm_cur_open(&c, r, t);
        uint32_t n = 0;
        uint32_t max_tf = hxf_le32(bm_term_info(r, t) + 4), min_dl = hxf_le32(bm_term_info(r, t) + 8);
        for (; c.doc != END_DOC; bm_cur_next(&c), n++) {
            const uint8_t *sk = r->arr[A_SKIPS] + ((size_t)c.skip_first + n / HX_BM25_BLOCK) * SKIP_SIZE;
            if ((n + 1) % HX_BM25_BLOCK == 0 || n + 1 == c.df) {
                if (hxf_le32(sk) != c.doc)
                    c.bad = 1;
            }
            uint32_t dl = hxf_le32(r->arr[A_DOC_LENS] + 4 * (size_t)c.doc);
            if (c.tf > max_tf || dl < min_dl || c.tf > hxf_le32(sk + 16) || dl < hxf_le32(sk + 20))
                c.bad = 1;
            int64_t k = bm_cur_positions(&c, &buf, &cap);
            if (k == -2) {
                rc = hx_error_set(err, HX_ENOMEM, -1, "bm25: out of memory");
                break;
            }
            if (c.bad)
                break;
            if ((n + 1) % HX_BM25_BLOCK == 0 && n + 1 < c.df &&
                (hxf_le32(sk + SKIP_SIZE + 4) != (uint64_t)(c.dp - c.dstart) ||
                 hxf_le64(sk + SKIP_SIZE + 8) != (uint64_t)(c.pp - c.pstart))) {
                c.bad = 1;
                break;
            }
        }
        if (!rc && (c.bad || n != c.df || c.dp != c.dend || c.pp != c.pend))
            rc = hx_error_set(err, HX_EFORMAT, -1, "bm25: postings of term %u are corrupt", t);
    }
    free(buf);
    return rc;
}
