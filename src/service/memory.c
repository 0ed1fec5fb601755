/* memory.c: conversation memory on its own store file: turn and root encoding, retention,
 * compaction and brute-force hybrid search over the kept turns. Owns the layouts in memory.h and
 * nothing of the index file. Spec: memory.h, `hyrax help memory`. */
#include "memory.h"

#include "alloc.h"
#include "analyzer.h"
#include "bytes.h"
#include "fusion.h"
#include "store.h"
#include "wire.h"

#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define TURN_MAGIC "HXTURN01"
#define ROOT_MAGIC "HXMEMRT1"
#define ROOT_HEAD 24
#define TURN_HEAD 44
#define COMPACT_MIN_BYTES ((uint64_t)4 << 20)
#define QUERY_TERMS_MAX 32
#define BM25_K1 1.2f
#define BM25_B 0.75f

/* One kept turn: the public view and the one allocation its strings, ids and vector live in. */
typedef struct {
    hx_turn t;
    void *mem;                       /* owned */
    hxi_store_ref ref;
} turn_rec;

struct hxi_memory {
    hxi_store *st;                    /* owned */
    char *path;                      /* owned */
    turn_rec *v;                     /* owned; n kept turns, oldest first */
    size_t n, cap;
    uint64_t next_id;
    char model[HX_MEMORY_MODEL_MAX + 1];  /* the model its vectors come from; "": none recorded */
    uint32_t dim;                    /* their dimension; 0: no vector yet */
};

/* === Encoding === */

static void put_str(hxi_buf *b, const char *s)
{
    hxi_buf_str(b, s ? s : "");
}

static int encode_turn(const hx_turn *t, uint32_t dim, hxi_buf *b, hx_error *err)
{
    uint8_t head[TURN_HEAD];
    memcpy(head, TURN_MAGIC, 8);
    hxf_put64(head + 8, t->id);
    hxf_put64(head + 16, (uint64_t)t->at_ns);
    hxf_put32(head + 24, t->number);
    uint64_t bits;
    memcpy(&bits, &t->relevance, 8);
    hxf_put64(head + 28, bits);
    hxf_put32(head + 36, (uint32_t)t->n_docs);
    hxf_put32(head + 40, t->vec ? dim : 0);
    hxi_buf_bytes(b, head, sizeof head);
    const char *s[6] = {t->session, t->tenant, t->user, t->search_method, t->user_message, t->agent_response};
    for (int i = 0; i < 6; i++)
        put_str(b, s[i]);
    for (size_t i = 0; i < t->n_docs; i++)
        put_str(b, t->docs[i]);
    for (size_t i = 0; t->vec && i < dim; i++) {
        uint32_t x;
        memcpy(&x, &t->vec[i], 4);
        hxi_buf_u32(b, x);
    }
    return b->failed ? hx_error_set(err, HX_ENOMEM, -1, "out of memory encoding a turn") : 0;
}

/* Decodes a turn blob into r (its own allocation) and its vector's dimension into *dim_out (0: none);
 * HX_EFORMAT naming the offset on bad input. */
static int decode_turn(const uint8_t *p, size_t len, hxi_store_ref ref, turn_rec *r, uint32_t *dim_out, hx_error *err)
{
    hxi_rd rd = hxi_rd_init(p, len);
    const uint8_t *head = hxi_rd_bytes(&rd, TURN_HEAD);
    if (!head || memcmp(head, TURN_MAGIC, 8))
        return hx_error_set(err, HX_EFORMAT, (int64_t)ref.offset, "memory: turn at offset %llu has no turn magic",
                            (unsigned long long)ref.offset);
    uint32_t n_docs = hxf_le32(head + 36), dim = hxf_le32(head + 40);
    if (n_docs > HX_MEMORY_MAX_DOCS || dim > HX_EMBED_DIM_MAX)
        return hx_error_set(err, HX_EFORMAT, (int64_t)ref.offset,
                            "memory: turn at offset %llu declares %u document ids and dimension %u",
                            (unsigned long long)ref.offset, n_docs, dim);
    const char *s[6 + HX_MEMORY_MAX_DOCS];
    uint32_t sl[6 + HX_MEMORY_MAX_DOCS];
    size_t total = 0;
    for (uint32_t i = 0; i < 6 + n_docs; i++) {
        hxi_rd_str(&rd, &s[i], &sl[i], i >= 4 && i < 6 ? HX_MEMORY_MAX_TEXT : HX_MEMORY_MAX_ID);
        total += (size_t)sl[i] + 1;
    }
    const uint8_t *vec = hxi_rd_bytes(&rd, (size_t)dim * 4);
    if (!hxi_rd_ok(&rd) || rd.p != rd.end)
        return hx_error_set(err, HX_EFORMAT, (int64_t)ref.offset, "memory: turn at offset %llu is malformed",
                            (unsigned long long)ref.offset);
    /* one block: [vector][doc pointers][strings] */
    size_t vbytes = (size_t)dim * sizeof(float), pbytes = n_docs * sizeof(char *);
    char *mem = hx_malloc(vbytes + pbytes + total);
    if (!mem)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory loading conversation memory");
    float *v = (float *)(void *)mem;
    const char **docs = (const char **)(void *)(mem + vbytes);
    char *text = mem + vbytes + pbytes;
    for (uint32_t i = 0; i < dim; i++) {
        uint32_t x = hxf_le32(vec + 4 * i);
        memcpy(&v[i], &x, 4);
    }
    const char *out[6 + HX_MEMORY_MAX_DOCS];
    for (uint32_t i = 0; i < 6 + n_docs; i++) {
        memcpy(text, s[i], sl[i]);
        text[sl[i]] = 0;
        out[i] = text;
        text += sl[i] + 1;
    }
    for (uint32_t i = 0; i < n_docs; i++)
        docs[i] = out[6 + i];
    uint64_t bits = hxf_le64(head + 28);
    memset(r, 0, sizeof *r);
    memcpy(&r->t.relevance, &bits, 8);
    r->t.id = hxf_le64(head + 8);
    r->t.at_ns = (int64_t)hxf_le64(head + 16);
    r->t.number = hxf_le32(head + 24);
    r->t.session = out[0];
    r->t.tenant = out[1];
    r->t.user = out[2];
    r->t.search_method = out[3];
    r->t.user_message = out[4];
    r->t.agent_response = out[5];
    r->t.docs = docs;
    r->t.n_docs = n_docs;
    r->t.vec = dim ? v : NULL;
    r->mem = mem;
    r->ref = ref;
    *dim_out = dim;
    return 0;
}

/* The root listing v[i] for every i < n with keep[i] (keep NULL: all), `kept` of them, and the
 * model of their vectors (model "": none recorded). */
static void encode_root(const char *model, uint32_t dim, const turn_rec *v, size_t n, const bool *keep, size_t kept,
                        uint64_t next_id, hxi_buf *b)
{
    uint8_t head[ROOT_HEAD] = {0};
    memcpy(head, ROOT_MAGIC, 8);
    hxf_put64(head + 8, next_id);
    hxf_put32(head + 16, (uint32_t)kept);
    hxf_put32(head + 20, model[0] ? dim : 0);
    hxi_buf_bytes(b, head, sizeof head);
    for (size_t i = 0; i < n; i++) {
        if (keep && !keep[i])
            continue;
        uint8_t r[HX_STORE_REF_SIZE];
        hxi_store_ref_put(r, v[i].ref);
        hxi_buf_bytes(b, r, sizeof r);
    }
    if (model[0])
        hxi_buf_str(b, model);
}

/* === Open, load === */

static void drop_turns(hxi_memory *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].mem);
    m->n = 0;
}

static int load(hxi_memory *m, hx_error *err)
{
    drop_turns(m);
    m->next_id = 1;
    const uint8_t *root;
    size_t len;
    hxi_store_root(m->st, &root, &len);
    if (!len)
        return 0;
    if (len < ROOT_HEAD || memcmp(root, ROOT_MAGIC, 8))
        return hx_error_set(err, HX_EFORMAT, 0, "%s: not a conversation memory file (root magic)", m->path);
    uint32_t n = hxf_le32(root + 16);
    if ((len - ROOT_HEAD) / HX_STORE_REF_SIZE < n)
        return hx_error_set(err, HX_ETRUNCATED, 0, "%s: root lists %u turns but holds fewer", m->path, n);
    m->next_id = hxf_le64(root + 8);
    m->dim = hxf_le32(root + 20);
    if (m->dim) {   /* the model recorded after the references */
        const size_t at = ROOT_HEAD + (size_t)n * HX_STORE_REF_SIZE;
        hxi_rd rd = hxi_rd_init(root + at, len - at);
        const char *name;
        uint32_t name_len;
        if (!hxi_rd_str(&rd, &name, &name_len, HX_MEMORY_MODEL_MAX) || !name_len || m->dim > HX_EMBED_DIM_MAX)
            return hx_error_set(err, HX_EFORMAT, (int64_t)at, "%s: root records no valid model", m->path);
        memcpy(m->model, name, name_len);
        m->model[name_len] = 0;
    }
    if (hx_grow((void **)&m->v, &m->cap, n, sizeof *m->v, err))
        return HX_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        hxi_store_ref ref = hxi_store_ref_get(root + ROOT_HEAD + (size_t)i * HX_STORE_REF_SIZE);
        const uint8_t *p;
        uint32_t dim;
        int rc = hxi_store_blob(m->st, ref, &p, err);
        if (!rc)
            rc = decode_turn(p, (size_t)ref.length, ref, &m->v[m->n], &dim, err);
        if (!rc && dim && m->dim && dim != m->dim)
            rc = hx_error_set(err, HX_EFORMAT, (int64_t)ref.offset, "%s: a turn holds a vector of %u dimensions, "
                              "the file's model %u", m->path, dim, m->dim);
        if (rc)
            return rc;
        m->dim = dim ? dim : m->dim;   /* a file from before models were recorded: its turns say */
        m->n++;
    }
    return 0;
}

int hxi_memory_check_model(const hxi_memory *m, const char *model, int dim, hx_error *err)
{
    const char *alias = m->model[0] ? hx_model_alias(m->model) : NULL;
    if (m->model[0] && strcmp(m->model, model))
        return hx_error_set(err, HX_EINVAL, -1, "%s holds the vectors of model %s, not %s: use --model %s", m->path,
                            m->model, model, alias ? alias : m->model);
    if (m->dim && (uint32_t)dim != m->dim)
        return hx_error_set(err, HX_EINVAL, -1, "%s holds vectors of %u dimensions and model %s makes %d: use a model "
                            "of %u dimensions", m->path, m->dim, model, dim, m->dim);
    return 0;
}

int hxi_memory_path(const char *db, char *buf, size_t cap, hx_error *err)
{
    return hxi_store_beside(db, "memory", buf, cap, err);
}

int hxi_memory_open(hxi_memory **out, const char *path, unsigned store_flags, hx_error *err)
{
    *out = NULL;
    hxi_memory *m = hx_calloc(1, sizeof *m);
    if (!m || !(m->path = hx_strdup(path))) {
        free(m);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory opening %s", path);
    }
    int rc = hxi_store_open(&m->st, path, store_flags, err);
    if (!rc)
        rc = load(m, err);
    if (rc) {
        hxi_memory_close(m);
        return rc;
    }
    *out = m;
    return 0;
}

void hxi_memory_close(hxi_memory *m)
{
    if (!m)
        return;
    drop_turns(m);
    free(m->v);
    hxi_store_close(m->st);
    free(m->path);
    free(m);
}

size_t hxi_memory_count(const hxi_memory *m)
{
    return m->n;
}

const hx_turn *hxi_memory_turn(const hxi_memory *m, size_t i)
{
    return i < m->n ? &m->v[i].t : NULL;
}

int hxi_memory_visible(const hx_turn *t, const char *tenant, const char *user)
{
    return !strcmp(t->tenant, tenant ? tenant : "") && !strcmp(t->user, user ? user : "");
}

static bool same_identity(const hx_turn *a, const hx_turn *b)
{
    return !strcmp(a->tenant, b->tenant) && !strcmp(a->user, b->user);
}

static bool same_session(const hx_turn *a, const hx_turn *b)
{
    return !strcmp(a->session, b->session) && same_identity(a, b);
}

/* *full when t's identity has no turn kept and `cap` other identities have: its turn is refused
 * rather than taking room from theirs. 0 or HX_ENOMEM. */
static int identities_full(const hxi_memory *m, const hx_turn *t, uint32_t cap, bool *full, hx_error *err)
{
    *full = false;
    for (size_t i = 0; i < m->n; i++)
        if (same_identity(&m->v[i].t, t))
            return 0;
    size_t n_seen = 0, room = m->n < cap ? m->n : cap;
    const hx_turn **seen = hx_malloc(sizeof *seen * (room ? room : 1));   /* one turn of each identity */
    if (!seen)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory recording a turn");
    for (size_t i = 0; i < m->n && n_seen < cap; i++) {
        size_t j = 0;
        while (j < n_seen && !same_identity(seen[j], &m->v[i].t))
            j++;
        if (j == n_seen)
            seen[n_seen++] = &m->v[i].t;
    }
    free(seen);
    *full = n_seen >= cap;
    return 0;
}

/* === Recording === */

/* Rewrites the file with the kept turns only (store.h compaction), when it has grown past
 * three times their size. The commit before it is durable either way: a failure here only
 * leaves the file larger. */
static int maybe_compact(hxi_memory *m, hx_error *err)
{
    struct stat sb;
    uint64_t live = 0;
    for (size_t i = 0; i < m->n; i++)
        live += m->v[i].ref.length + HX_STORE_REF_SIZE;
    if (stat(m->path, &sb) || (uint64_t)sb.st_size < COMPACT_MIN_BYTES || (uint64_t)sb.st_size < 3 * live)
        return 0;
    hxi_store *c = NULL;
    int rc = hxi_store_compact_begin(m->st, &c, err);
    hxi_store_ref *moved = rc ? NULL : hx_malloc(sizeof *moved * (m->n ? m->n : 1));
    if (!rc && !moved)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory compacting %s", m->path);
    for (size_t i = 0; !rc && i < m->n; i++) {
        const uint8_t *p;
        rc = hxi_store_blob(m->st, m->v[i].ref, &p, err);
        if (!rc)
            rc = hxi_store_append(c, p, (size_t)m->v[i].ref.length, &moved[i], err);
    }
    hxi_buf root = {0};
    if (!rc) {
        hxi_store_ref *old = hx_malloc(sizeof *old * (m->n ? m->n : 1));
        if (!old)
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory compacting %s", m->path);
        for (size_t i = 0; !rc && i < m->n; i++) {
            old[i] = m->v[i].ref;
            m->v[i].ref = moved[i];
        }
        if (!rc) {
            encode_root(m->model, m->dim, m->v, m->n, NULL, m->n, m->next_id, &root);
            rc = root.failed ? hx_error_set(err, HX_ENOMEM, -1, "out of memory compacting %s", m->path)
                             : hxi_store_commit(c, root.data, root.len, NULL, err);
            if (!rc)
                rc = hxi_store_compact_finish(&m->st, c, err);
            if (!rc)
                c = NULL;
            for (size_t i = 0; rc && i < m->n; i++)
                m->v[i].ref = old[i];   /* still on the old file */
        }
        free(old);
    }
    hxi_buf_free(&root);
    free(moved);
    hxi_store_close(c);
    return rc;
}

int hxi_memory_record(hxi_memory *m, const hx_turn *t, const char *model, int dim, const hx_memory_limits *lim,
                      hx_turn *out, hx_error *err)
{
    if (t->vec && (!model || !*model || strlen(model) > HX_MEMORY_MODEL_MAX || dim < 1 || dim > HX_EMBED_DIM_MAX))
        return hx_error_set(err, HX_EINVAL, -1, "a turn's vector needs its model's name (1 to %d bytes) and dimension",
                            HX_MEMORY_MODEL_MAX);
    int rc = t->vec ? hxi_memory_check_model(m, model, dim, err) : 0;
    if (rc)
        return rc;
    const char *file_model = t->vec ? model : m->model;   /* what the file records from this commit */
    const uint32_t file_dim = t->vec ? (uint32_t)dim : m->dim;
    uint32_t per_session = lim && lim->per_session ? lim->per_session : HX_MEMORY_PER_SESSION;
    uint32_t total = lim && lim->total ? lim->total : HX_MEMORY_TOTAL;
    uint32_t identities = lim && lim->identities ? lim->identities : HX_MEMORY_IDENTITIES;
    if (t->n_docs > HX_MEMORY_MAX_DOCS)
        return hx_error_set(err, HX_ERANGE, -1, "a turn lists at most %d document ids", HX_MEMORY_MAX_DOCS);
    const char *ids[4] = {t->session, t->tenant, t->user, t->search_method};
    for (int i = 0; i < 4; i++)
        if (ids[i] && strlen(ids[i]) > HX_MEMORY_MAX_ID)
            return hx_error_set(err, HX_ERANGE, -1, "session, tenant, user and search method are at most %d bytes",
                                HX_MEMORY_MAX_ID);
    for (size_t i = 0; i < t->n_docs; i++)
        if (strlen(t->docs[i]) > HX_MEMORY_MAX_ID)
            return hx_error_set(err, HX_ERANGE, -1, "a document id is at most %d bytes", HX_MEMORY_MAX_ID);
    if ((t->user_message && strlen(t->user_message) > HX_MEMORY_MAX_TEXT) ||
        (t->agent_response && strlen(t->agent_response) > HX_MEMORY_MAX_TEXT))
        return hx_error_set(err, HX_ERANGE, -1, "user message and agent response are at most %d bytes each",
                            HX_MEMORY_MAX_TEXT);
    if (hx_grow((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v, err))
        return HX_ENOMEM;

    hx_turn nt = *t;
    const char *blank = "";
    nt.session = t->session ? t->session : blank;
    nt.tenant = t->tenant ? t->tenant : blank;
    nt.user = t->user ? t->user : blank;
    nt.search_method = t->search_method ? t->search_method : blank;
    nt.user_message = t->user_message ? t->user_message : blank;
    nt.agent_response = t->agent_response ? t->agent_response : blank;
    nt.id = m->next_id;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    nt.at_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    nt.number = 1;
    for (size_t i = m->n; i-- > 0;)
        if (same_session(&m->v[i].t, &nt)) {
            nt.number = m->v[i].t.number + 1;
            break;
        }
    bool full;
    rc = identities_full(m, &nt, identities, &full, err);
    if (!rc && full)
        rc = hx_error_set(err, HX_ERANGE, -1,
                          "conversation memory keeps the turns of %u identities, its limit "
                          "(serve --memory-identities); a turn of another identity is refused",
                          identities);
    if (rc)
        return rc;

    hxi_buf blob = {0}, root = {0};
    hxi_store_ref ref;
    rc = encode_turn(&nt, file_dim, &blob, err);
    if (!rc)
        rc = hxi_store_append(m->st, blob.data, blob.len, &ref, err);
    turn_rec rec;
    if (!rc)   /* the turn as it will be read back */
        rc = decode_turn(blob.data, blob.len, ref, &rec, &(uint32_t){0}, err);
    if (rc) {
        hxi_buf_free(&blob);
        hxi_store_abort(m->st, NULL);
        return rc;
    }
    m->v[m->n] = rec;
    size_t n = m->n + 1;
    /* retention: which turns stay */
    bool *keep = hx_malloc(n);
    if (!keep) {
        free(rec.mem);
        hxi_buf_free(&blob);
        hxi_store_abort(m->st, NULL);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory recording a turn");
    }
    size_t in_session = 0, in_identity = 0, kept = n;
    for (size_t i = 0; i < n; i++) {
        keep[i] = true;
        in_session += same_session(&m->v[i].t, &rec.t);
        in_identity += same_identity(&m->v[i].t, &rec.t);
    }
    for (size_t i = 0; i < n && in_session > per_session; i++)
        if (same_session(&m->v[i].t, &rec.t)) {
            keep[i] = false;
            in_session--;
            in_identity--;
            kept--;
        }
    for (size_t i = 0; i < n && in_identity > total; i++)   /* only ever this identity's own turns */
        if (keep[i] && same_identity(&m->v[i].t, &rec.t)) {
            keep[i] = false;
            in_identity--;
            kept--;
        }
    encode_root(file_model, file_dim, m->v, n, keep, kept, m->next_id + 1, &root);
    rc = root.failed ? hx_error_set(err, HX_ENOMEM, -1, "out of memory recording a turn")
                     : hxi_store_commit(m->st, root.data, root.len, NULL, err);
    hxi_buf_free(&root);
    hxi_buf_free(&blob);
    if (rc) {
        free(rec.mem);
        free(keep);
        hxi_store_abort(m->st, NULL);
        return rc;
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (keep[i])
            m->v[w++] = m->v[i];
        else
            free(m->v[i].mem);
    }
    m->n = w;
    m->next_id++;
    if (file_model != m->model)
        snprintf(m->model, sizeof m->model, "%s", file_model);
    m->dim = file_dim;
    free(keep);
    if (out)
        *out = m->v[m->n - 1].t;   /* the newest turn is always kept: both limits are at least 1 */
    /* compaction failing leaves a larger file and the turn committed */
    hx_error cerr = {0};
    maybe_compact(m, &cerr);
    return 0;
}

/* === Search === */

typedef struct {
    char term[HX_ANALYZER_MAX_TERM + 1];
    size_t df;
} qterm;

/* Distinct stemmed terms of the query (English analysis). */
static int query_terms(hxi_analysis *a, const char *query, qterm *q, size_t *nq, hx_error *err)
{
    *nq = 0;
    int rc = hxi_analyzer_run(a, query, strlen(query), err);
    for (size_t i = 0; !rc && i < a->n_terms && *nq < QUERY_TERMS_MAX; i++) {
        if (a->terms[i].kind != HX_TERM_STEM)
            continue;
        size_t len = a->terms[i].text_len;
        const char *s = hxi_analyzer_term(a, i);
        bool dup = false;
        for (size_t j = 0; j < *nq && !dup; j++)
            dup = strlen(q[j].term) == len && !memcmp(q[j].term, s, len);
        if (!dup) {
            memcpy(q[*nq].term, s, len);
            q[*nq].term[len] = 0;
            q[*nq].df = 0;
            (*nq)++;
        }
    }
    return rc;
}

static int hit_cmp(const void *pa, const void *pb)
{
    const hxi_hit *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->id < b->id ? 1 : a->id > b->id ? -1 : 0;   /* newer turn first */
}

static int tiebreak_newer(uint32_t a, uint32_t b, void *ctx)
{
    (void)ctx;
    return a > b ? -1 : a < b;
}

/* BM25 (k1 1.2, b 0.75, Lucene's idf) of the query's stemmed terms over the candidates' user
 * message and agent response; only candidates holding a term are ranked. */
static int keyword_side(const hxi_memory *m, const size_t *cand, size_t nc, const char *query, hxi_hit *out, size_t *nout,
                        hx_error *err)
{
    hxi_analysis a = {0};
    a.config = HX_ANALYZER_ENGLISH;
    qterm q[QUERY_TERMS_MAX];
    size_t nq = 0;
    *nout = 0;
    int rc = query_terms(&a, query, q, &nq, err);
    size_t cells;
    float *tf = NULL, *dl = NULL;
    if (!rc && nq && nc) {
        cells = hxi_mul_size(nc, nq);
        if (!(tf = hx_calloc(cells, sizeof *tf)) || !(dl = hx_calloc(nc, sizeof *dl)))
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory searching conversation memory");
    }
    double sum_dl = 0;
    char *text = NULL;
    size_t text_cap = 0;
    for (size_t c = 0; !rc && nq && c < nc; c++) {
        const hx_turn *t = &m->v[cand[c]].t;
        size_t lu = strlen(t->user_message), lr = strlen(t->agent_response);
        if ((rc = hx_grow((void **)&text, &text_cap, lu + lr + 2, 1, err)))
            break;
        memcpy(text, t->user_message, lu);
        text[lu] = '\n';
        memcpy(text + lu + 1, t->agent_response, lr);
        if ((rc = hxi_analyzer_run(&a, text, lu + 1 + lr, err)))
            break;
        dl[c] = (float)a.doc_len;
        sum_dl += a.doc_len;
        for (size_t i = 0; i < a.n_terms; i++) {
            if (a.terms[i].kind != HX_TERM_STEM)
                continue;
            for (size_t j = 0; j < nq; j++)
                if (strlen(q[j].term) == a.terms[i].text_len &&
                    !memcmp(q[j].term, hxi_analyzer_term(&a, i), a.terms[i].text_len)) {
                    q[j].df += tf[c * nq + j] == 0;
                    tf[c * nq + j] += 1;
                }
        }
    }
    if (!rc && nq && nc) {
        float avg = sum_dl > 0 ? (float)(sum_dl / (double)nc) : 1.0f;
        for (size_t c = 0; c < nc; c++) {
            float s = 0;
            for (size_t j = 0; j < nq; j++) {
                float f = tf[c * nq + j];
                if (!f)
                    continue;
                float idf = logf(1.0f + ((float)nc - (float)q[j].df + 0.5f) / ((float)q[j].df + 0.5f));
                s += idf * f * (BM25_K1 + 1) / (f + BM25_K1 * (1 - BM25_B + BM25_B * dl[c] / avg));
            }
            if (s > 0)
                out[(*nout)++] = (hxi_hit){(uint32_t)cand[c], s};
        }
        qsort(out, *nout, sizeof *out, hit_cmp);
    }
    free(text);
    free(tf);
    free(dl);
    hxi_analyzer_free(&a);
    return rc;
}

int hxi_memory_search(const hxi_memory *m, hx_search_mode mode, const char *query, const float *qvec,
                      const char *model, int dim, const char *tenant, const char *user, const char *session, size_t k,
                      hxi_memory_hit **hits, size_t *n, hx_error *err)
{
    *hits = NULL;
    *n = 0;
    if (mode != HX_MODE_KEYWORD && (!qvec || !model))
        return hx_error_set(err, HX_EINVAL, -1, "vector and hybrid memory search need the query's embedding and model");
    int rc = mode != HX_MODE_KEYWORD ? hxi_memory_check_model(m, model, dim, err) : 0;
    if (rc)
        return rc;
    size_t cap = m->n ? m->n : 1;
    size_t *cand = hx_malloc(sizeof *cand * cap);
    hxi_hit *vec = hx_malloc(sizeof *vec * cap), *kw = hx_malloc(sizeof *kw * cap);
    hxi_fused *fused = hx_malloc(sizeof *fused * 2 * cap);
    hxi_memory_hit *out = hx_malloc(sizeof *out * cap);
    rc = cand && vec && kw && fused && out ? 0 : hx_error_set(err, HX_ENOMEM, -1, "out of memory searching conversation memory");
    size_t nc = 0, nv = 0, nk = 0, nf = 0;
    for (size_t i = 0; !rc && i < m->n; i++) {
        const hx_turn *t = &m->v[i].t;
        if (hxi_memory_visible(t, tenant, user) && (!session || !strcmp(t->session, session)))
            cand[nc++] = i;
    }
    if (!rc && mode != HX_MODE_KEYWORD) {
        for (size_t c = 0; c < nc; c++) {
            const float *v = m->v[cand[c]].t.vec;
            if (!v)
                continue;
            double dot = 0;
            for (size_t d = 0; d < m->dim; d++)
                dot += (double)v[d] * qvec[d];
            vec[nv++] = (hxi_hit){(uint32_t)cand[c], (float)dot};
        }
        qsort(vec, nv, sizeof *vec, hit_cmp);
    }
    if (!rc && mode != HX_MODE_VECTOR)
        rc = keyword_side(m, cand, nc, query, kw, &nk, err);
    if (!rc && mode == HX_MODE_HYBRID) {
        hxi_fusion f = {HX_FUSE_RRF, HX_RRF_K, 1.0f, 1.0f};
        rc = hxi_fuse(&f, vec, nv, kw, nk, tiebreak_newer, NULL, fused, &nf, err);
    }
    if (!rc) {
        size_t total = mode == HX_MODE_HYBRID ? nf : mode == HX_MODE_VECTOR ? nv : nk;
        for (size_t i = 0; i < total && *n < k; i++) {
            hxi_memory_hit *h = &out[(*n)++];
            if (mode == HX_MODE_HYBRID) {
                *h = (hxi_memory_hit){fused[i].id, fused[i].score, fused[i].vector_score, fused[i].keyword_score};
            } else {
                const hxi_hit *s = mode == HX_MODE_VECTOR ? &vec[i] : &kw[i];
                *h = (hxi_memory_hit){s->id, s->score, mode == HX_MODE_VECTOR ? s->score : NAN,
                                     mode == HX_MODE_KEYWORD ? s->score : NAN};
            }
        }
        *hits = out;
        out = NULL;
    }
    free(cand);
    free(vec);
    free(kw);
    free(fused);
    free(out);
    return rc;
}
