/* test_oom.c: the out-of-memory paths (STYLE habit 16). For each operation it counts the
 * allocations a successful run makes (hxi_alloc_fail_at(0, 0) returns the count), then runs it once
 * with each allocation failing in turn: the run must fail with HX_ENOMEM or, where the failed
 * allocation had a fallback, succeed with exactly the baseline result; the next run without
 * failures must succeed with the baseline result again. `make asan` runs this under
 * LeakSanitizer, so every failure path must also free what it took. Operations: JSON parse and
 * write, BM25 build + search + snippet, HNSW build + serialize + view + search, the store (create,
 * append, commit, refresh, history), chunking, the analyzer and tokenizer, and an index built once
 * with the model: open + keyword search + stats, hybrid search, and on a fresh copy each time
 * hx_index_add_bytes and a reindexing hx_index_update; two indexes searched as tiers, and a sync
 * from one up to a fresh copy of it; conversation memory (record, reopen, hybrid search) and the
 * lasting statistics (count, flush, JSON and Prometheus views); the server's metrics (histograms and
 * gauges as Prometheus text). */
#include "check.h"
#include "hyrax.h"
#include "alloc.h"
#include "analyzer.h"
#include "bm25.h"
#include "chunker.h"
#include "filter.h"
#include "hnsw.h"
#include "json.h"
#include "memory.h"
#include "metrics.h"
#include "present.h"
#include "stats.h"
#include "store.h"
#include "wire.h"
#include "model.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

static hx_model *model;
static hx_encoder *enc;
static char dir[PATH_MAX];

/* === Driver === */

/* An operation: 0 and a digest of its result, or a negative HX_E* code. */
typedef int (*op_fn)(uint64_t *digest);

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "", 1);
}

/* Runs op with allocation n failing for n = 1, 1 + stride, ... up to its allocation count.
 * `after` (may be NULL) checks what the failed run left behind. */
static void run_oom(const char *name, op_fn op, unsigned long stride, void (*after)(const char *name))
{
    uint64_t base = 0;
    hxi_alloc_fail_at(0, 0);
    int rc = op(&base);
    unsigned long count = hxi_alloc_fail_at(0, 0);
    CHECK(rc == 0, "%s: baseline run: %s", name, hx_strerror(rc));
    if (rc)
        return;
    unsigned long runs = 0, failed = 0, recovered = 0;
    clock_t t0 = clock();
    for (unsigned long n = 1; n <= count; n += stride) {
        uint64_t d = 0;
        hxi_alloc_fail_at(n, 0);
        rc = op(&d);
        hxi_alloc_fail_at(0, 0);
        runs++;
        if (rc == 0) {
            recovered++;
            CHECK(d == base, "%s: allocation %lu failed and the run succeeded with another result", name, n);
        } else {
            failed++;
            CHECK(rc == HX_ENOMEM, "%s: allocation %lu failed: got %s, want HX_ENOMEM", name, n, hx_strerror(rc));
        }
        if (after)
            after(name);
        d = 0;
        rc = op(&d);
        hxi_alloc_fail_at(0, 0);
        CHECK(rc == 0 && d == base, "%s: run after failing allocation %lu: %s", name, n, hx_strerror(rc));
    }
    printf("test_oom: %-22s %5lu allocations, %5lu runs (stride %lu): %lu failed, %lu fell back; %.1f s\n", name,
           count, runs, stride, failed, recovered, (double)(clock() - t0) / CLOCKS_PER_SEC);
}

/* === JSON === */

static const char json_text[] =
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"search\","
    "\"arguments\":{\"query\":\"caf\\u00e9 \\\"quoted\\\" \\ud83d\\ude00\",\"k\":10,\"min\":-1.5e3,"
    "\"filters\":[{\"key\":\"path\",\"value\":\"docs/**\"},{\"key\":\"type\",\"value\":\"markdown\"}],"
    "\"deep\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]],"
    "\"wide\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"j\":10,"
    "\"k\":11,\"l\":12,\"m\":13,\"n\":14,\"o\":15,\"p\":16,\"q\":17,\"r\":18,\"s\":19,\"t\":20},"
    "\"flags\":[true,false,null,0.25,12345678901234]}}}";

static int op_json(uint64_t *digest)
{
    hxi_json_doc *doc = NULL;
    hx_error err = {0};
    int rc = hxi_json_parse(&doc, json_text, sizeof json_text - 1, NULL, &err);
    if (rc && rc != HX_ENOMEM)
        fprintf(stderr, "json: %s\n", err.message);
    if (rc)
        return rc;
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_write_key(&w, "echo");
    hxi_json_write_val(&w, hxi_json_doc_root(doc));
    hxi_json_write_key(&w, "text");
    hxi_json_write_arr_begin(&w);
    for (int i = 0; i < 40; i++)
        hxi_json_write_cstr(&w, "a line long enough to make the writer grow its buffer more than once\n");
    hxi_json_write_arr_end(&w);
    hxi_json_write_key(&w, "n");
    hxi_json_write_double(&w, 0.1);
    hxi_json_write_obj_end(&w);
    hxi_json_doc_free(doc);
    rc = hxi_json_writer_finish(&w, &err);
    size_t len = 0;
    char *out = rc ? NULL : hxi_json_writer_take(&w, &len);
    hxi_json_writer_free(&w);
    if (out) {
        hxi_json_doc *back = NULL;   /* the output parses again */
        rc = hxi_json_parse(&back, out, len, NULL, &err);
        hxi_json_doc_free(back);
        *digest = fnv(14695981039346656037ull, out, len);
        free(out);
    }
    return rc;
}

/* === BM25 === */

static const char *const bm_docs[] = {
    "The kube-scheduler watches for newly created pods and selects a node for each of them.",
    "A PersistentVolume is a piece of storage in the cluster provisioned by an administrator.",
    "Bound service account tokens are audience-scoped credentials used by workloads.",
    "Network policies restrict which pods may talk to each other; egress and ingress rules.",
    "restartPolicy decides what the kubelet does when a container exits: Always, OnFailure, Never.",
    "Memory QoS uses cgroup v2 memory.high to throttle containers before the OOM killer acts.",
    "How to bake sourdough bread at home: feed the starter, mix flour and water, knead.",
    "The scheduler scores nodes; pods with affinity prefer nodes that run matching pods.",
};

static int op_bm25(uint64_t *digest)
{
    hx_error err = {0};
    hxi_bm25_builder *b = NULL;
    int rc = hxi_bm25_builder_new(&b, HX_ANALYZER_ENGLISH, &err);
    for (uint32_t round = 0; !rc && round < 8; round++)
        for (size_t i = 0; !rc && i < sizeof bm_docs / sizeof *bm_docs; i++)
            rc = hxi_bm25_builder_add(b, round * 100 + (uint32_t)i, bm_docs[i], strlen(bm_docs[i]), &err);
    uint8_t *blob = NULL;
    size_t len = 0;
    if (!rc)
        rc = hxi_bm25_builder_finish(b, &blob, &len, &err);
    hxi_bm25_builder_free(b);
    if (rc)
        return rc;
    uint64_t h = fnv(14695981039346656037ull, blob, len);
    hxi_bm25_reader r;
    rc = hxi_bm25_reader_open(&r, blob, len, &err);
    if (!rc)
        rc = hxi_bm25_reader_check(&r, &err);
    static const char *const queries[] = {"pods node", "\"service account\" tokens", "sched* -bread",
                                          "memory.high container*", "restart policy +kubelet"};
    for (size_t qi = 0; !rc && qi < sizeof queries / sizeof *queries; qi++) {
        hxi_bm25_query *q = NULL;
        rc = hxi_bm25_query_parse(&q, HX_ANALYZER_ENGLISH, queries[qi], strlen(queries[qi]), &err);
        if (rc)
            break;
        hxi_bm25_segment seg = {.reader = &r};
        hxi_bm25_hit hits[20];
        size_t n = 0;
        rc = hxi_bm25_search(&seg, 1, q, NULL, 20, hits, &n, &err);
        for (size_t i = 0; !rc && i < n; i++) {
            h = fnv(h, &hits[i].doc_id, sizeof hits[i].doc_id);
            h = fnv(h, &hits[i].score, sizeof hits[i].score);
        }
        for (size_t i = 0; !rc && i < n && i < 3; i++) {
            const char *text = bm_docs[hits[i].doc_id % 100];
            char *snip = NULL;
            size_t slen = 0;
            rc = hxi_snippet_make(text, strlen(text), q, 40, &snip, &slen, &err);
            h = fnv_str(h, snip);
            free(snip);
        }
        hxi_bm25_query_free(q);
    }
    free(blob);
    *digest = h;
    return rc;
}

/* === HNSW === */

static float dot(const float *a, const float *b, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

#define HN_DIM 8
#define HN_N 300

static float hn_vecs[HN_N * HN_DIM];
static uint32_t hn_ids[HN_N];

static void hn_data(void)
{
    uint64_t s = 42;
    for (size_t i = 0; i < HN_N; i++) {
        float norm = 0;
        for (size_t j = 0; j < HN_DIM; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            float x = (float)((s >> 40) & 0xFFFF) / 65536.0f - 0.5f;
            hn_vecs[i * HN_DIM + j] = x;
            norm += x * x;
        }
        for (size_t j = 0; j < HN_DIM; j++)
            hn_vecs[i * HN_DIM + j] /= sqrtf(norm);
        hn_ids[i] = (uint32_t)(1000 + 3 * i);
    }
}

static uint64_t hn_hash(uint64_t h, const hxi_hnsw_hit *hits, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        h = fnv(h, &hits[i].id, sizeof hits[i].id);
        h = fnv(h, &hits[i].score, sizeof hits[i].score);
    }
    return h;
}

static int op_hnsw(uint64_t *digest)
{
    hx_error err = {0};
    hxi_hnsw_params p = {.dim = HN_DIM, .dot = dot, .M = 4, .ef_construction = 24, .seed = 7};
    hxi_hnsw *h = NULL, *copy = NULL;
    hxi_hnsw_view *v = NULL;
    uint8_t *buf = NULL;
    int rc = hxi_hnsw_new(&h, &p, &err);
    if (!rc)
        rc = hxi_hnsw_add_batch(h, hn_ids, hn_vecs, HN_N - 10, 1, &err);
    for (size_t i = HN_N - 10; !rc && i < HN_N; i++)
        rc = hxi_hnsw_add(h, hn_ids[i], hn_vecs + i * HN_DIM, &err);
    if (!rc)
        rc = hxi_hnsw_delete(h, hn_ids[5], &err);
    uint64_t d = 14695981039346656037ull;
    hxi_hnsw_query q = {.vector = hn_vecs + 17 * HN_DIM, .k = 10, .ef = 32, .exact_below = 1};
    hxi_hnsw_hit hits[10];
    uint32_t n = 0;
    if (!rc)
        rc = hxi_hnsw_search(h, &q, hits, &n, NULL, &err);
    d = hn_hash(d, hits, rc ? 0 : n);
    size_t len = 0;
    if (!rc)
        rc = hxi_hnsw_serialize(h, NULL, 0, &len, &err);
    if (!rc && !(buf = malloc(len)))
        rc = HX_EIO;   /* the test's own memory: not an injected failure */
    if (!rc)
        rc = hxi_hnsw_serialize(h, buf, len, &len, &err);
    if (!rc) {
        d = fnv(d, buf, len);
        rc = hxi_hnsw_view_open(&v, buf, len, hxi_hnsw_vectors(h), (size_t)hxi_hnsw_count(h) * HN_DIM, dot, &err);
    }
    if (!rc)
        rc = hxi_hnsw_view_search(v, &q, hits, &n, NULL, &err);
    d = hn_hash(d, hits, rc ? 0 : n);
    hxi_hnsw_query qf = q;
    qf.exact = true;
    if (!rc)
        rc = hxi_hnsw_view_search(v, &qf, hits, &n, NULL, &err);
    d = hn_hash(d, hits, rc ? 0 : n);
    if (!rc)
        rc = hxi_hnsw_from_view(&copy, v, &err);
    float extra[HN_DIM] = {1};
    if (!rc)
        rc = hxi_hnsw_add(copy, 7, extra, &err);
    if (!rc)
        rc = hxi_hnsw_search(copy, &q, hits, &n, NULL, &err);
    d = hn_hash(d, hits, rc ? 0 : n);
    hxi_hnsw_free(copy);
    hxi_hnsw_view_close(v);
    free(buf);
    hxi_hnsw_free(h);
    *digest = d;
    return rc;
}

/* === Store === */

static char store_path[PATH_MAX + 32];

static int op_store(uint64_t *digest)
{
    hx_error err = {0};
    hxi_store *w = NULL, *r = NULL;
    unlink(store_path);
    uint64_t d = 14695981039346656037ull;
    int rc = hxi_store_open(&w, store_path, HX_STORE_WRITE | HX_STORE_CREATE, &err);
    hxi_store_ref ref[3];
    static const char blob[] = "a blob of bytes that lands on a 64-byte boundary";
    for (int i = 0; !rc && i < 3; i++)
        rc = hxi_store_append(w, blob, sizeof blob - (size_t)i, &ref[i], &err);
    if (!rc)
        rc = hxi_store_commit(w, "root-1", 6, "first", &err);
    hxi_store_close(w);
    w = NULL;
    if (!rc)
        rc = hxi_store_open(&w, store_path, HX_STORE_WRITE, &err);
    if (!rc)
        rc = hxi_store_open(&r, store_path, HX_STORE_READ, &err);
    if (!rc)
        rc = hxi_store_append(w, blob, 10, &ref[0], &err);
    if (!rc)
        rc = hxi_store_commit(w, "root-2", 6, NULL, &err);
    if (!rc) {
        rc = hxi_store_refresh(r, &err);
        rc = rc == 1 ? 0 : rc ? rc : HX_EINVAL;
    }
    const uint8_t *root = NULL, *data = NULL;
    size_t rlen = 0;
    if (!rc) {
        hxi_store_root(r, &root, &rlen);
        d = fnv(d, root, rlen);
        rc = hxi_store_blob(r, ref[0], &data, &err);
    }
    if (!rc) {
        d = fnv(d, data, (size_t)ref[0].length);
        rc = hxi_store_verify(r, &err);
    }
    hxi_store_info *hist = NULL;
    size_t nh = 0;
    if (!rc)
        rc = hxi_store_history(r, &hist, &nh, &err);
    for (size_t i = 0; !rc && i < nh; i++) {
        d = fnv(d, &hist[i].generation, sizeof hist[i].generation);
        d = fnv_str(d, hist[i].name);
    }
    free(hist);
    hxi_store_info named = {0};
    if (!rc)
        rc = hxi_store_find_name(r, "first", &named, &err);
    d = fnv(d, &named.generation, sizeof named.generation);
    hxi_store_close(r);
    hxi_store_close(w);
    *digest = d;
    return rc;
}

/* After a failed store run: the file, if there is one, opens and verifies. */
static void store_after(const char *name)
{
    hx_error err = {0};
    hxi_store *s = NULL;
    int rc = hxi_store_open(&s, store_path, HX_STORE_READ, &err);
    if (rc == HX_ENOTFOUND)
        return;
    CHECK(rc == 0 && hxi_store_verify(s, &err) == 0, "%s: the file verifies after a failed run: %s", name,
          err.message);
    hxi_store_close(s);
}

/* === Chunking and tokenizing === */

static char doc_text[8192];

static void make_doc(void)
{
    size_t n = (size_t)snprintf(doc_text, sizeof doc_text, "# Kube Scheduler\n\nThe scheduler places pods.\n\n");
    for (int s = 0; s < 6 && n < sizeof doc_text - 600; s++) {
        n += (size_t)snprintf(doc_text + n, sizeof doc_text - n, "## Section %d\n\n", s);
        for (int p = 0; p < 4; p++)
            n += (size_t)snprintf(doc_text + n, sizeof doc_text - n,
                                  "Paragraph %d of section %d: the kube-scheduler watches for newly created pods "
                                  "that have no node and selects one; restartPolicy and memory.high apply.\n\n",
                                  p, s);
    }
}

static int op_chunk(uint64_t *digest)
{
    hx_error err = {0};
    hxi_chunk *chunks = NULL;
    size_t n = 0;
    hxi_chunk_opts o = {.max_tokens = 64, .overlap_tokens = 8};
    int rc = hxi_chunk_document(hxi_model_tokenizer(model), "Scheduler", "markdown", doc_text, strlen(doc_text), &o,
                                &chunks, &n, &err);
    uint64_t d = 14695981039346656037ull;
    for (size_t i = 0; !rc && i < n; i++) {
        d = fnv_str(d, chunks[i].text);
        d = fnv_str(d, chunks[i].heading);
        d = fnv(d, &chunks[i].byte_start, sizeof chunks[i].byte_start);
    }
    if (!rc)
        hxi_chunks_free(chunks, n);
    *digest = d;
    return rc;
}

static int op_tokenize(uint64_t *digest)
{
    hx_error err = {0};
    hxi_analysis a = {0};
    uint64_t d = 14695981039346656037ull;
    int rc = hxi_analyzer_run(&a, doc_text, strlen(doc_text), &err);
    for (size_t i = 0; !rc && i < a.n_terms; i++) {
        d = fnv(d, a.buf + a.terms[i].text_off, a.terms[i].text_len);
        d = fnv(d, &a.terms[i].pos, sizeof a.terms[i].pos);
    }
    hxi_analyzer_free(&a);
    static const char vocab[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nkube\n-\nschedul\n##er\npods\n";
    hxi_tokenizer *t = NULL;
    if (!rc)
        rc = hxi_tokenizer_new(&t, vocab, sizeof vocab - 1, &err);
    if (!rc) {
        int32_t ids[16];
        size_t n = hxi_tokenize(t, "the kube-scheduler pods", 23, ids, NULL, 16);
        d = fnv(d, ids, (n < 16 ? n : 16) * sizeof *ids);
    }
    hxi_tokenizer_free(t);
    *digest = d;
    return rc;
}

/* === Index === */

static char root[PATH_MAX + 32], db[PATH_MAX + 32], db_copy[PATH_MAX + 32];

static int build_index(void)
{
    check_put(root, "docs/scheduler.md",
              "# Kube Scheduler\n\nThe kube-scheduler watches for newly created pods that have no node assigned "
              "and selects a node for each of them to run on.\n");
    check_put(root, "docs/storage.md",
              "# Persistent Volumes\n\nA PersistentVolume is a piece of storage in the cluster provisioned by an "
              "administrator. Claims bind pods to durable disks.\n");
    check_put(root, "config/kep.yaml", "title: Memory QoS\nowning-sig: sig-node\nsummary: Use cgroup v2 memory.high "
                                       "to throttle containers before the OOM killer acts.\n");
    check_put(root, "notes.txt", "How to bake sourdough bread at home: feed the starter, knead, bake.\n");
    hx_index *ix = NULL;
    hx_error err = {0};
    int rc = hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err);
    if (!rc) {
        const char *paths[] = {root};
        hx_update_opts o = {0};
        o.encoder = enc;
        hx_update_report rep;
        rc = hx_index_update(ix, paths, 1, &o, &rep, &err);
        CHECK(rc == 0 && rep.added == 4, "build the index: %s", err.message);
        hx_update_report_clear(&rep);
        hx_index_close(ix);
    }
    CHECK(rc == 0, "build the index: %s", err.message);
    return rc;
}

static int op_index_read(uint64_t *digest)
{
    hx_error err = {0};
    hx_index *ix = NULL;
    int rc = hx_index_open(&ix, db, HX_INDEX_READ, model, NULL, &err);
    if (rc)
        return rc;
    uint64_t d = 14695981039346656037ull;
    static const char *const queries[] = {"pods node", "memory.high", "\"persistent volume\" claims", "bake*"};
    for (size_t qi = 0; !rc && qi < sizeof queries / sizeof *queries; qi++) {
        hx_search_opts o;
        hx_search_opts_default(&o);
        o.mode = HX_MODE_KEYWORD;
        o.k = 5;
        o.snippets = 1;
        o.group = qi % 2 ? HX_GROUP_DOCUMENT : HX_GROUP_CHUNK;   /* grouping allocates too */
        hx_results res = {0};
        rc = hx_index_search(ix, NULL, queries[qi], strlen(queries[qi]), &o, &res, &err);
        for (size_t i = 0; !rc && i < res.n; i++) {
            d = fnv_str(d, res.v[i].path);
            d = fnv(d, &res.v[i].score, sizeof res.v[i].score);
            d = fnv_str(d, res.v[i].snippet);
            d = fnv(d, &res.v[i].n_more, sizeof res.v[i].n_more);
        }
        hx_results_free(&res);
    }
    hx_index_stats st;
    if (!rc)
        rc = hx_index_stats_get(ix, &st, &err);
    if (!rc) {
        d = fnv(d, &st.documents, sizeof st.documents);
        d = fnv(d, &st.chunks, sizeof st.chunks);
        d = fnv(d, &st.tokens, sizeof st.tokens);
        d = fnv_str(d, st.model);
    }
    hx_index_close(ix);
    *digest = d;
    return rc;
}

/* A writer on a fresh copy of the test index, so a failed write never touches the original. */
static int open_copy(hx_index **ix, hx_error *err)
{
    if (check_copy_file(db, db_copy)) {
        CHECK(0, "copy %s", db);
        return HX_EIO;
    }
    return hx_index_open(ix, db_copy, HX_INDEX_WRITE, model, NULL, err);
}

static int op_add_bytes(uint64_t *digest)
{
    hx_error err = {0};
    hx_index *ix = NULL;
    int rc = open_copy(&ix, &err);
    if (rc)
        return rc;
    static const char note[] = "# Stored note\n\nThe kubelet restarts containers according to restartPolicy.\n";
    hx_kv meta[] = {{"source", "test"}};
    uint32_t id = 0;
    hx_update_report rep = {0};
    rc = hx_index_add_bytes(ix, "notes/stored.md", note, sizeof note - 1, meta, 1, enc, NULL, NULL, &id, &rep, &err);
    if (!rc)
        *digest = fnv(fnv(14695981039346656037ull, &id, sizeof id), &rep.chunks_added, sizeof rep.chunks_added);
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    return rc;
}

static int op_hybrid(uint64_t *digest)
{
    hx_error err = {0};
    hx_index *ix = NULL;
    int rc = hx_index_open(&ix, db, HX_INDEX_READ, model, NULL, &err);
    if (rc)
        return rc;
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.k = 3;
    hx_results res = {0};
    rc = hx_index_search(ix, enc, "where do pods run", 17, &o, &res, &err);
    uint64_t d = 14695981039346656037ull;
    for (size_t i = 0; !rc && i < res.n; i++) {
        d = fnv_str(d, res.v[i].path);
        d = fnv(d, &res.v[i].score, sizeof res.v[i].score);
    }
    hx_results_free(&res);
    hx_index_close(ix);
    *digest = d;
    return rc;
}

/* Tiers: the index and the copy add_bytes left (one stored document more) searched as one. */
static int op_tiers(uint64_t *digest)
{
    hx_error err = {0};
    hx_index *a = NULL, *b = NULL;
    int rc = hx_index_open(&a, db, HX_INDEX_READ, model, NULL, &err);
    if (!rc)
        rc = hx_index_open(&b, db_copy, HX_INDEX_READ, model, NULL, &err);
    uint64_t d = 14695981039346656037ull;
    for (int g = 0; !rc && g < 2; g++) {
        const hx_tier tiers[2] = {{HX_TIER_PROJECT, a}, {HX_TIER_USER, b}};
        hx_search_opts o;
        hx_search_opts_default(&o);
        o.k = 5;
        o.snippets = 1;
        o.group = g ? HX_GROUP_DOCUMENT : HX_GROUP_CHUNK;
        hx_results res = {0};
        rc = hx_tiers_search(tiers, 2, enc, "kubelet restarts pods", 21, &o, &res, &err);
        for (size_t i = 0; !rc && i < res.n; i++) {
            d = fnv_str(fnv_str(d, res.v[i].path), res.v[i].tier);
            d = fnv(d, &res.v[i].score, sizeof res.v[i].score);
        }
        hx_results_free(&res);
    }
    hx_index_close(a);
    hx_index_close(b);
    *digest = d;
    return rc;
}

/* hyrax sync: the index's docs/ copied up into a fresh copy of it (two documents, two commits). */
static int op_sync(uint64_t *digest)
{
    hx_error err = {0};
    hx_index *from = NULL, *to = NULL;
    int rc = hx_index_open(&from, db, HX_INDEX_READ, model, NULL, &err);
    if (!rc)
        rc = open_copy(&to, &err);
    hx_update_report rep = {0};
    const char *names[] = {"docs"};
    if (!rc)
        rc = hx_tier_sync(from, to, names, 1, enc, NULL, NULL, &rep, &err);
    if (!rc)
        *digest = fnv(fnv(14695981039346656037ull, &rep.added, sizeof rep.added), &rep.n_rejected, sizeof rep.n_rejected);
    hx_update_report_clear(&rep);
    hx_index_close(to);
    hx_index_close(from);
    return rc;
}

/* Every file of the copy indexed again (walk, chunk, embed, commit). */
static int op_reindex(uint64_t *digest)
{
    hx_error err = {0};
    hx_index *ix = NULL;
    int rc = open_copy(&ix, &err);
    if (rc)
        return rc;
    const char *paths[] = {root};
    hx_update_opts o = {0};
    o.encoder = enc;
    o.reindex = 1;
    hx_update_report rep = {0};
    rc = hx_index_update(ix, paths, 1, &o, &rep, &err);
    if (!rc)
        *digest = fnv(fnv(14695981039346656037ull, &rep.updated, sizeof rep.updated), &rep.chunks_added,
                      sizeof rep.chunks_added);
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    return rc;
}

/* After a failed write: the copy opens and verifies (nothing half-committed). */
static void add_bytes_after(const char *name)
{
    hx_error err = {0};
    hx_index *ix = NULL;
    int rc = hx_index_open(&ix, db_copy, HX_INDEX_READ, model, NULL, &err);
    CHECK(rc == 0 && hx_index_verify(ix, &err) == 0, "%s: the copy verifies after a failed run: %s", name,
          err.message);
    hx_index_close(ix);
}

/* Filters from JSON (every form) and from the command line (a list and a range). */
static int op_filters(uint64_t *digest)
{
    static const char json[] = "{\"owning-sig\":\"sig-auth\",\"tags\":[\"a\",2,true],\"kep-number\":{\"gte\":1,"
                               "\"lt\":\"9\"},\"date_range\":{\"key\":\"created\",\"from\":\"2021-01-01\"}}";
    hxi_json_doc *doc = NULL;
    hx_filter_set fs = {0};
    int rc = hxi_json_parse(&doc, json, sizeof json - 1, NULL, NULL);
    if (!rc)
        rc = hxi_filter_parse_json(&fs, hxi_json_doc_root(doc), NULL);
    if (!rc)
        rc = hx_filter_parse_arg(&fs, "sig=a,b\\,c", NULL);
    if (!rc)
        rc = hx_filter_parse_arg(&fs, "created=2020-01-01..2021-01-01", NULL);
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; !rc && i < fs.n; i++) {
        h = fnv_str(fnv_str(fnv_str(fnv_str(h, fs.v[i].key), fs.v[i].value), fs.v[i].lo), fs.v[i].hi);
        for (size_t k = 0; k < fs.v[i].n_any; k++)
            h = fnv_str(h, fs.v[i].any[k]);
    }
    *digest = h;
    hx_filter_set_free(&fs);
    hxi_json_doc_free(doc);
    return rc;
}

/* === Conversation memory and statistics === */

static char memory_path[PATH_MAX + 32], stats_db[PATH_MAX + 32];

/* Records three turns in a fresh file, reopens it and runs a hybrid search. */
static int op_memory(uint64_t *digest)
{
    static const char *const msg[] = {"how do pods get scheduled", "bake sourdough bread", "rotate tls certificates"};
    enum { DIM = 8 };   /* a model of its own: the memory file records it */
    static float vec[3][DIM];
    for (int i = 0; i < 3; i++)
        for (int d = 0; d < DIM; d++)
            vec[i][d] = d == i ? 1.0f : 0.0f;
    unlink(memory_path);
    hxi_memory *m = NULL;
    hx_error err = {0};
    int rc = hxi_memory_open(&m, memory_path, HX_STORE_WRITE | HX_STORE_CREATE, &err);
    const char *docs[] = {"a.md"};
    for (int i = 0; !rc && i < 3; i++) {
        hx_turn t = {0};
        t.session = i == 1 ? "other" : "s";
        t.user_message = msg[i];
        t.agent_response = "an answer";
        t.docs = docs;
        t.n_docs = 1;
        t.relevance = NAN;
        t.vec = vec[i];
        rc = hxi_memory_record(m, &t, "oom-model", DIM, NULL, NULL, &err);
    }
    hxi_memory_close(m);
    m = NULL;
    if (!rc)
        rc = hxi_memory_open(&m, memory_path, HX_STORE_READ, &err);
    hxi_memory_hit *hits = NULL;
    size_t n = 0;
    if (!rc)
        rc = hxi_memory_search(m, HX_MODE_HYBRID, "scheduled pods", vec[0], "oom-model", DIM, "", "", NULL, 3, &hits, &n, &err);
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; !rc && i < hxi_memory_count(m); i++) {
        const hx_turn *t = hxi_memory_turn(m, i);
        h = fnv_str(fnv_str(fnv_str(h, t->session), t->user_message), t->docs[0]);
        h = fnv(h, &t->number, sizeof t->number);
    }
    for (size_t i = 0; !rc && i < n; i++)
        h = fnv(h, &hits[i].turn, sizeof hits[i].turn);
    *digest = h;
    free(hits);
    hxi_memory_close(m);
    return rc;
}

/* Counts into a fresh statistics file, flushes, and writes both views. */
static int op_stats(uint64_t *digest)
{
    char path[PATH_MAX + 64];
    hxi_stats_path(stats_db, path, sizeof path, NULL);
    unlink(path);
    hx_stats *s = NULL;
    hx_error err = {0};
    int rc = hx_stats_open(&s, stats_db, NULL, 0, &err);
    hx_update_report rep = {0};
    rep.added = 2;
    if (!rc) {
        hx_stats_note_latency(s, "search", "stdio", 3);
        hx_stats_note_query(s, "hot query");
        hx_stats_note_update(s, &rep, NULL, 250);
        rc = hxi_stats_flush(s, &err);
    }
    if (!rc)
        hx_stats_note_latency(s, "search", "cli", 7);   /* unflushed: the views add it */
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_buf b = {0};
    hxi_json_write_obj_begin(&w);
    hx_activity act = {0};
    if (!rc && !(rc = hx_stats_activity(s, stats_db, NULL, &act, &err)))
        hxi_present_activity(&w, &act);
    hx_activity_free(&act);
    hxi_json_write_obj_end(&w);
    if (!rc)
        rc = hxi_json_writer_finish(&w, &err);
    if (!rc)
        rc = hxi_stats_prometheus(s, stats_db, NULL, &b, &err);
    *digest = rc ? 0 : fnv(14695981039346656037ull, b.data, b.len);
    hxi_buf_free(&b);
    hxi_json_writer_free(&w);
    hx_stats_close(s);
    return rc;
}

/* === Server metrics === */

static int op_metrics(uint64_t *digest)
{
    hxi_metrics *m = NULL;
    int rc = hxi_metrics_new(&m, NULL);
    if (rc)
        return rc;
    for (int i = 0; i < 6; i++) {
        hxi_metrics_observe(m, HX_METRIC_HTTP, "/search", "POST", i % 2 ? "200" : "400", 0.0003 * (1 << (2 * i)));
        hxi_metrics_observe(m, HX_METRIC_TOOL, "search", "http", NULL, 0.001 * i);
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    rc = hxi_metrics_write(m, &buf, &len, &cap);
    if (!rc)
        rc = hxi_metrics_gauge(&buf, &len, &cap, "hyrax_up", "1 while serving", 1);
    if (!rc)
        rc = hxi_metrics_append(&buf, &len, &cap, "hyrax_x 2\n", 10);
    *digest = rc ? 0 : fnv(14695981039346656037ull, buf, len);
    free(buf);
    hxi_metrics_free(m);
    return rc;
}

int main(void)
{
    hx_error err = {0};
    char tmpl[] = "/tmp/hxi_oom_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(store_path, sizeof store_path, "%s/store.hxs", dir);
    snprintf(root, sizeof root, "%s/root", dir);
    snprintf(db, sizeof db, "%s/index.hyx", dir);
    snprintf(db_copy, sizeof db_copy, "%s/copy.hyx", dir);
    CHECK(mkdir(root, 0755) == 0, "mkdir %s", root);
    hn_data();
    make_doc();
    run_oom("json", op_json, 1, NULL);
    run_oom("bm25", op_bm25, 1, NULL);
    run_oom("hnsw", op_hnsw, 1, NULL);
    run_oom("store", op_store, 1, store_after);
    run_oom("tokenize", op_tokenize, 1, NULL);
    snprintf(memory_path, sizeof memory_path, "%s/memory.hyx", dir);
    snprintf(stats_db, sizeof stats_db, "%s/s.hyx", dir);
    run_oom("memory", op_memory, 1, NULL);
    run_oom("stats", op_stats, 1, NULL);
    run_oom("metrics", op_metrics, 1, NULL);
    const char *weights = getenv("HYRAX_WEIGHTS") ? getenv("HYRAX_WEIGHTS") : WEIGHTS;
    if (hx_model_open(&model, weights, &err) || hx_encoder_new(&enc, model, 1, &err)) {
        CHECK(0, "model: %s", err.message);
    } else {
        run_oom("chunk", op_chunk, 1, NULL);
        run_oom("filters", op_filters, 1, NULL);
        if (build_index() == 0) {
            run_oom("index open+search+stats", op_index_read, 1, NULL);
            run_oom("index add_bytes", op_add_bytes, 1, add_bytes_after);
            run_oom("index hybrid search", op_hybrid, 1, NULL);
            run_oom("tiers search", op_tiers, 5, NULL);   /* strides: slow under ASan, as below */
            run_oom("tiers sync", op_sync, 7, add_bytes_after);
            /* Every allocation takes ~0.4 s under ASan here (200 s in all), so every 29th. */
            run_oom("index update reindex", op_reindex, 29, add_bytes_after);
        }
    }
    hx_encoder_free(enc);
    hx_model_close(model);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_oom");
}
