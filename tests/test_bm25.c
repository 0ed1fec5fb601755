/* test_bm25.c: the BM25 index of src/bm25.h: scores against the formula and against golden
 * fixtures from bm25s (tools/gen_golden_bm25.py), query syntax, segmentation independence,
 * tombstones, pruned top-k against exhaustive scoring, corrupt bytes, and snippets. */
#include "bm25.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct seg {
    uint8_t *blob;  /* owned */
    size_t len;
    hxi_bm25_reader r;
} seg;

/* The analyzer configuration build, run_query and expect_snippet use (test_english sets it). */
static uint32_t cfg = HX_ANALYZER_EXACT;

/* Builds a segment from the docs whose index i has pick[i] == which (pick NULL: all). A text's part
 * up to its first '|' is its header field, the rest its body. */
static int build(seg *s, const uint32_t *ids, char *const *texts, size_t n, const int *pick, int which)
{
    hxi_bm25_builder *b;
    hx_error err;
    memset(s, 0, sizeof *s);
    if (hxi_bm25_builder_new(&b, cfg, &err))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (pick && pick[i] != which)
            continue;
        const char *bar = strchr(texts[i], '|');
        if (hxi_bm25_builder_add_chunk(b, ids[i], texts[i], strlen(texts[i]), bar ? (size_t)(bar - texts[i]) + 1 : 0,
                                       &err)) {
            hxi_bm25_builder_free(b);
            return -1;
        }
    }
    int rc = hxi_bm25_builder_finish(b, &s->blob, &s->len, &err);
    hxi_bm25_builder_free(b);
    if (rc == 0)
        rc = hxi_bm25_reader_open(&s->r, s->blob, s->len, &err);
    if (rc == 0)
        rc = hxi_bm25_reader_check(&s->r, &err);
    if (rc)
        fprintf(stderr, "build: %s\n", err.message);
    return rc;
}

static size_t run_query(const seg *segs, size_t n_segs, const char *query, const hxi_bm25_params *p, size_t k,
                        hxi_bm25_hit *out, int *rc_out)
{
    hxi_bm25_segment ss[8];
    for (size_t i = 0; i < n_segs; i++)
        ss[i] = (hxi_bm25_segment){.reader = &segs[i].r};
    hxi_bm25_query *q;
    size_t n = 0;
    hx_error err;
    int rc = hxi_bm25_query_parse(&q, cfg, query, strlen(query), &err);
    if (rc == 0) {
        rc = hxi_bm25_search(ss, n_segs, q, p, k, out, &n, &err);
        hxi_bm25_query_free(q);
    }
    if (rc_out)
        *rc_out = rc;
    return n;
}

/* "id id id" of the hits, for readable failures. */
static const char *ids_of(const hxi_bm25_hit *h, size_t n)
{
    static char buf[1024];
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && at < sizeof buf - 16; i++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%u", i ? " " : "", h[i].doc_id);
    return buf;
}

static void expect_ids(const seg *s, const char *query, const char *want)
{
    hxi_bm25_hit h[32];
    int rc;
    size_t n = run_query(s, 1, query, NULL, 32, h, &rc);
    CHECK(rc == 0, "query '%s' rc %d", query, rc);
    /* compare as sorted id lists: ranking is checked elsewhere */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && h[j - 1].doc_id > h[j].doc_id; j--) {
            hxi_bm25_hit t = h[j];
            h[j] = h[j - 1];
            h[j - 1] = t;
        }
    const char *got = ids_of(h, n);
    CHECK(strcmp(got, want) == 0, "query '%s': got [%s] want [%s]", query, got, want);
}

/* === Formula on a tiny corpus === */

static void test_formula(void)
{
    uint32_t ids[] = {1, 2, 3};
    char *texts[] = {"a b c", "a a d", "b e"};
    seg s;
    CHECK(build(&s, ids, texts, 3, NULL, 0) == 0, "build tiny");
    hxi_bm25_hit h[4];
    size_t n = run_query(&s, 1, "a", NULL, 4, h, NULL);
    double N = 3, df = 2, avgdl = 8.0 / 3, idf = log(1 + (N - df + 0.5) / (df + 0.5));
    double s1 = idf * 1 / (1 + 1.2 * (0.25 + 0.75 * 3 / avgdl));
    double s2 = idf * 2 / (2 + 1.2 * (0.25 + 0.75 * 3 / avgdl));
    CHECK(n == 2 && h[0].doc_id == 2 && h[1].doc_id == 1, "tiny ranking [%s]", ids_of(h, n));
    CHECK(n == 2 && fabs(h[0].score - s2) < 1e-12 && fabs(h[1].score - s1) < 1e-12, "tiny scores %f %f",
          n ? h[0].score : 0, n > 1 ? h[1].score : 0);
    hxi_bm25_params p;
    hxi_bm25_params_default(&p);
    p.k1 = 2.0;
    p.b = 0.0;
    n = run_query(&s, 1, "a", &p, 4, h, NULL);
    CHECK(n == 2 && fabs(h[0].score - idf * 2 / (2 + 2.0)) < 1e-12, "k1/b params");
    p.b = 2;
    int rc;
    run_query(&s, 1, "a", &p, 4, h, &rc);
    CHECK(rc == HX_EINVAL, "b out of range rc %d", rc);
    CHECK(hxi_bm25_reader_find(&s.r, "e", 1) == 4 && hxi_bm25_reader_find(&s.r, "f", 1) == -1, "find");

    /* Header checks name what is wrong. */
    hxi_bm25_reader r;
    hx_error err;
    s.blob[8] = 9;
    CHECK(hxi_bm25_reader_open(&r, s.blob, s.len, &err) == HX_EVERSION && strstr(err.message, "version 9"),
          "version refused by name");
    s.blob[8] = 1;   /* the format before the header field */
    CHECK(hxi_bm25_reader_open(&r, s.blob, s.len, &err) == HX_EVERSION && r.version == 1 &&
              strstr(err.message, "version 1"), "format 1 refused, its version reported");
    s.blob[8] = HX_BM25_VERSION;
    s.blob[0] = 'X';
    CHECK(hxi_bm25_reader_open(&r, s.blob, s.len, &err) == HX_EFORMAT, "bad magic");
    s.blob[0] = 'H';
    CHECK(hxi_bm25_reader_open(&r, s.blob, s.len - 1, &err) == HX_ETRUNCATED, "truncated");
    CHECK(hxi_bm25_reader_open(&r, s.blob, 10, &err) == HX_ETRUNCATED, "tiny");
    free(s.blob);

    /* Empty index, empty documents, duplicate ids. */
    char *none[] = {"", "  ..  "};
    uint32_t two[] = {5, 6};
    CHECK(build(&s, two, none, 0, NULL, 0) == 0 && s.r.n_docs == 0 && s.r.n_terms == 0, "empty index");
    CHECK(run_query(&s, 1, "a", NULL, 4, h, &rc) == 0 && rc == 0, "search empty index");
    free(s.blob);
    CHECK(build(&s, two, none, 2, NULL, 0) == 0 && s.r.n_docs == 2 && s.r.total_len == 0, "empty docs");
    CHECK(run_query(&s, 1, "a", NULL, 4, h, &rc) == 0 && rc == 0, "search empty docs");
    free(s.blob);
    hxi_bm25_builder *b;
    uint8_t *blob;
    size_t len;
    CHECK(hxi_bm25_builder_new(&b, HX_ANALYZER_EXACT, NULL) == 0, "new");
    hxi_bm25_builder_add(b, 7, "x", 1, NULL);
    hxi_bm25_builder_add(b, 7, "y", 1, NULL);
    CHECK(hxi_bm25_builder_finish(b, &blob, &len, &err) == HX_EINVAL && strstr(err.message, "7"), "duplicate id");
    hxi_bm25_builder_free(b);
}

/* === Query syntax === */

static int even(void *ctx, uint32_t id)
{
    (void)ctx;
    return id % 2 == 0;
}

static void test_syntax(void)
{
    uint32_t ids[] = {10, 11, 12, 13, 14, 15};
    char *texts[] = {"the kube-scheduler assigns pods to nodes", "the scheduler framework plugins",
                     "sig-api-machinery owns the api server", "memory.high throttles memory usage",
                     "set restartPolicy to Always for pods", "nodes and pods and schedulers"};
    seg s;
    CHECK(build(&s, ids, texts, 6, NULL, 0) == 0, "build syntax corpus");
    expect_ids(&s, "pods", "10 14 15");
    expect_ids(&s, "PODS nodes", "10 14 15");
    expect_ids(&s, "\"assigns pods\"", "10");
    expect_ids(&s, "\"pods assigns\"", "");
    expect_ids(&s, "\"sig api machinery\"", "12");
    expect_ids(&s, "sig-api-machinery", "12");
    expect_ids(&s, "\"restart policy\"", "14");
    expect_ids(&s, "restartPolicy", "14");
    expect_ids(&s, "+pods -always", "10 15");
    expect_ids(&s, "+pods +nodes", "10 15");
    expect_ids(&s, "api +memory", "13");
    expect_ids(&s, "-pods", "");
    expect_ids(&s, "the -\"api server\"", "10 11");
    expect_ids(&s, "sched*", "10 11 15");
    expect_ids(&s, "kube-sched*", "10");
    expect_ids(&s, "memory.h*", "13");
    expect_ids(&s, "-sched* the", "12");
    expect_ids(&s, "\"unclosed phrase pods", "");
    expect_ids(&s, "\"assigns pods", "10");
    expect_ids(&s, "+ - \" ** - \"\" *", "");
    expect_ids(&s, "", "");
    expect_ids(&s, "+nothere pods", "");
    expect_ids(&s, "nothere", "");
    /* Phrase ranking: the phrase counts like one term with the summed idf. */
    hxi_bm25_hit h[8];
    size_t n = run_query(&s, 1, "\"kube scheduler\" plugins", NULL, 8, h, NULL);
    CHECK(n == 2 && h[0].score > 0 && h[1].score > 0, "phrase scores [%s]", ids_of(h, n));
    /* Filter inside the search. */
    hxi_bm25_params p;
    hxi_bm25_params_default(&p);
    hxi_bm25_query *q;
    hxi_bm25_segment ss = {.reader = &s.r};
    CHECK(hxi_bm25_query_parse(&q, HX_ANALYZER_EXACT, "pods", 4, NULL) == 0, "parse");
    size_t k = 1;
    p.allow = even;
    CHECK(hxi_bm25_search(&ss, 1, q, &p, k, h, &n, NULL) == 0 && n == 1 && h[0].doc_id % 2 == 0,
          "filter keeps recall: %u", n ? h[0].doc_id : 0);
    CHECK(hxi_bm25_query_clauses(q) == 1, "clauses");
    hxi_bm25_query_free(q);
    free(s.blob);
}

/* === Random corpus: segmentation, tombstones, pruning === */

static const char *VOCAB[] = {"pod", "node", "kubelet", "scheduler", "api", "server", "memory", "cpu",
                              "volume", "storage", "network", "policy", "container", "image", "runtime",
                              "cluster", "label", "selector", "service", "endpoint", "ingress",
                              "gateway", "quota", "limit", "request", "priority", "preemption",
                              "taint", "toleration", "affinity", "csi", "cni", "etcd", "lease",
                              "webhook", "crd", "controller", "operator", "metric", "log"};
#define NV (sizeof VOCAB / sizeof VOCAB[0])

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Zipf-ish word choice: low indices are common. */
static const char *word(void)
{
    uint32_t r = rnd() % 1000;
    size_t i = (size_t)(NV * (r * r) / 1000000.0);
    return VOCAB[i < NV ? i : NV - 1];
}

static char *random_doc(void)
{
    size_t n = 3 + rnd() % 60, at = 0, head = rnd() % 3 ? 0 : 1 + rnd() % 6;   /* header words */
    char *t = malloc((n + head) * 24 + 2);
    for (size_t i = 0; i < head; i++)
        at += (size_t)sprintf(t + at, "%s%s", word(), i + 1 < head ? " " : "|");
    for (size_t i = 0; i < n; i++) {
        const char *w = word();
        at += (size_t)sprintf(t + at, "%s%s", i ? (rnd() % 9 == 0 ? "-" : " ") : "", w);
    }
    t[at] = 0;
    return t;
}

static void random_query(char *q, size_t cap)
{
    size_t n = 1 + rnd() % 6, at = 0;
    q[0] = 0;
    for (size_t i = 0; i < n && at + 64 < cap; i++) {
        uint32_t r = rnd() % 20;
        const char *op = r == 0 ? "+" : r == 1 ? "-" : "";
        if (r == 2)
            at += (size_t)snprintf(q + at, cap - at, "\"%s %s\" ", word(), word());
        else if (r == 3)
            at += (size_t)snprintf(q + at, cap - at, "%.2s* ", word());
        else
            at += (size_t)snprintf(q + at, cap - at, "%s%s ", op, word());
    }
}

static int deleted_set(void *ctx, uint32_t id)
{
    const uint8_t *del = ctx;
    return del[id];
}

static int same_hits(const hxi_bm25_hit *a, size_t na, const hxi_bm25_hit *b, size_t nb, double tol)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        if (fabs(a[i].score - b[i].score) > tol)
            return 0;
        /* equal scores may come in either order only if they are within tol of each other */
        if (a[i].doc_id != b[i].doc_id && fabs(a[i].score - b[i].score) > 0)
            return 0;
    }
    return 1;
}

static void test_random(void)
{
    enum { ND = 700 };
    uint32_t ids[ND];
    char *texts[ND];
    int pick[ND];
    uint8_t del[ND * 3] = {0};
    int keep[ND];
    for (size_t i = 0; i < ND; i++) {
        ids[i] = (uint32_t)(i * 3 + rnd() % 3);  /* sparse, added in order */
        texts[i] = random_doc();
        pick[i] = (int)(rnd() % 3);
        del[ids[i]] = rnd() % 7 == 0;
        keep[i] = del[ids[i]] ? 1 : 0;
    }
    seg one, three[3], live;
    CHECK(build(&one, ids, texts, ND, NULL, 0) == 0, "build one");
    for (int g = 0; g < 3; g++)
        CHECK(build(&three[g], ids, texts, ND, pick, g) == 0, "build part %d", g);
    CHECK(build(&live, ids, texts, ND, keep, 0) == 0, "build live");

    hxi_bm25_hit a[64], b[64], c[64];
    int bad_seg = 0, bad_prune = 0, bad_del = 0, errors = 0;
    hxi_bm25_params ex;
    hxi_bm25_params_default(&ex);
    ex.exhaustive = 1;
    for (int round = 0; round < 600; round++) {
        char qs[512];
        random_query(qs, sizeof qs);
        size_t k = (size_t[]){1, 3, 10, 64}[round % 4];
        int rc1, rc2, rc3;
        hxi_bm25_params pr;
        hxi_bm25_params_default(&pr);
        ex.allow = pr.allow = round % 3 == 2 ? even : NULL;  /* filters inside both strategies */
        size_t na = run_query(&one, 1, qs, &pr, k, a, &rc1);
        size_t nb = run_query(three, 3, qs, &pr, k, b, &rc2);
        size_t nc = run_query(&one, 1, qs, &ex, k, c, &rc3);
        errors += rc1 || rc2 || rc3;
        if (!same_hits(a, na, b, nb, 1e-6)) {
            if (!bad_seg++)
                fprintf(stderr, "1 vs 3 segments differ on '%s': [%s] vs [%s]\n", qs, ids_of(a, na), ids_of(b, nb));
        }
        if (!same_hits(a, na, c, nc, 0)) {
            if (!bad_prune++)
                fprintf(stderr, "pruned vs exhaustive differ on '%s' k=%zu: [%s] vs [%s]\n", qs, k,
                        ids_of(a, na), ids_of(c, nc));
        }
        /* Tombstones in 3 segments == an index built from the live docs only. */
        hxi_bm25_segment ss[3];
        for (int g = 0; g < 3; g++) {
            ss[g].reader = &three[g].r;
            ss[g].is_deleted = deleted_set;
            ss[g].deleted_ctx = del;
            hxi_bm25_count_live(&ss[g]);
        }
        hxi_bm25_query *q;
        size_t nd = 0;
        if (hxi_bm25_query_parse(&q, HX_ANALYZER_EXACT, qs, strlen(qs), NULL) == 0) {
            errors += hxi_bm25_search(ss, 3, q, &pr, k, b, &nd, NULL) != 0;
            hxi_bm25_query_free(q);
        }
        size_t nl = run_query(&live, 1, qs, &pr, k, c, &rc1);
        /* (prefixes rank their expansions by stored df, tombstoned docs included, so over 128
         * expansions the picked terms may differ; the scoring itself must not) */
        if (!strchr(qs, '*') && !same_hits(b, nd, c, nl, 1e-6)) {
            if (!bad_del++)
                fprintf(stderr, "tombstones differ on '%s': [%s] vs [%s]\n", qs, ids_of(b, nd), ids_of(c, nl));
        }
    }
    CHECK(errors == 0, "%d searches failed", errors);
    CHECK(bad_seg == 0, "%d queries differ between 1 and 3 segments", bad_seg);
    CHECK(bad_prune == 0, "%d queries differ between pruned and exhaustive", bad_prune);
    CHECK(bad_del == 0, "%d queries differ with tombstones", bad_del);

    /* Corrupt bytes: errors, never a crash (run under the sanitizers). */
    uint8_t *copy = malloc(one.len);
    int opened = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, one.blob, one.len);
        int flips = 1 + (int)(rnd() % 4);
        for (int f = 0; f < flips; f++) {
            size_t at = round % 3 ? 64 + rnd() % 200 : rnd() % one.len;
            copy[at < one.len ? at : one.len - 1] ^= (uint8_t)(1 + rnd() % 255);
        }
        size_t len = round % 11 == 0 ? rnd() % one.len : one.len;
        hxi_bm25_reader r;
        if (hxi_bm25_reader_open(&r, copy, len, NULL) != 0)
            continue;
        opened++;
        hxi_bm25_reader_check(&r, NULL);
        hxi_bm25_segment ss = {.reader = &r};
        hxi_bm25_query *q;
        char qs[256];
        random_query(qs, sizeof qs);
        size_t n;
        if (hxi_bm25_query_parse(&q, HX_ANALYZER_EXACT, qs, strlen(qs), NULL) == 0) {
            hxi_bm25_search(&ss, 1, q, NULL, 10, a, &n, NULL);
            hxi_bm25_query_free(q);
        }
    }
    CHECK(opened > 0, "some corrupt copies should still open");
    free(copy);
    free(one.blob);
    free(live.blob);
    for (int g = 0; g < 3; g++)
        free(three[g].blob);
    for (size_t i = 0; i < ND; i++)
        free(texts[i]);
}

/* === Golden scores from bm25s === */

static void test_golden(void)
{
    size_t clen, qlen, glen;
    char *corpus = check_read_file("tests/data/bm25_cranfield.txt", &clen);
    char *queries = check_read_file("tests/golden/bm25_queries.txt", &qlen);
    char *golden = check_read_file("tests/golden/bm25_top20.txt", &glen);
    CHECK(corpus && queries && golden, "golden fixtures missing (run from the repo root)");
    if (!corpus || !queries || !golden)
        goto out;
    hxi_bm25_builder *b;
    CHECK(hxi_bm25_builder_new(&b, HX_ANALYZER_EXACT, NULL) == 0, "builder");
    int n_docs = 0;
    for (char *line = corpus; *line;) {
        char *nl = strchr(line, '\n');
        char *tab = strchr(line, '\t');
        if (!nl || !tab)
            break;
        CHECK(hxi_bm25_builder_add(b, (uint32_t)atoi(line), tab + 1, (size_t)(nl - tab - 1), NULL) == 0, "add");
        n_docs++;
        line = nl + 1;
    }
    seg s;
    memset(&s, 0, sizeof s);
    CHECK(hxi_bm25_builder_finish(b, &s.blob, &s.len, NULL) == 0, "finish");
    hxi_bm25_builder_free(b);
    CHECK(hxi_bm25_reader_open(&s.r, s.blob, s.len, NULL) == 0 && s.r.n_docs == (uint32_t)n_docs, "open");
    /* Queries: "qid<TAB>words". Golden: "qid rank doc score". */
    char *qtext[64] = {0};
    for (char *line = queries; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = 0;
        int qid = atoi(line);
        if (qid > 0 && qid < 64)
            qtext[qid] = strchr(line, '\t') + 1;
        line = nl + 1;
    }
    int rows = 0, mismatches = 0, rank_errors = 0;
    double worst = 0;
    hxi_bm25_hit h[20];
    size_t n = 0;
    int cur_q = -1;
    for (char *line = golden; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = 0;
        if (line[0] != '#') {
            int qid, rank;
            unsigned doc;
            double score;
            if (sscanf(line, "%d %d %u %lf", &qid, &rank, &doc, &score) == 4 && qid > 0 && qid < 64 &&
                qtext[qid] && rank >= 1 && rank <= 20) {
                if (qid != cur_q) {
                    n = run_query(&s, 1, qtext[qid], NULL, 20, h, NULL);
                    cur_q = qid;
                }
                rows++;
                if ((size_t)rank > n) {
                    mismatches++;
                } else {
                    const hxi_bm25_hit *x = &h[rank - 1];
                    double d = fabs(x->score - score);
                    if (d > worst)
                        worst = d;
                    if (d > 1e-4)
                        mismatches++;
                    /* same doc at this rank unless tied with its neighbour */
                    if (x->doc_id != doc && d > 1e-9)
                        rank_errors++;
                }
            }
        }
        line = nl + 1;
    }
    CHECK(rows >= 500, "golden rows %d", rows);
    CHECK(mismatches == 0, "%d golden scores off by more than 1e-4 (worst %g)", mismatches, worst);
    CHECK(rank_errors == 0, "%d golden ranks differ", rank_errors);
    printf("golden: %d rows, max |score - bm25s| = %.3g\n", rows, worst);
    free(s.blob);
out:
    free(corpus);
    free(queries);
    free(golden);
}

/* === Snippets === */

static void expect_snippet(const char *text, const char *query, size_t target, const char *want)
{
    hxi_bm25_query *q;
    char *out = NULL;
    size_t n;
    CHECK(hxi_bm25_query_parse(&q, cfg, query, strlen(query), NULL) == 0, "parse");
    CHECK(hxi_snippet_make(text, strlen(text), q, target, &out, &n, NULL) == 0, "snippet");
    CHECK(out && strcmp(out, want) == 0, "snippet for '%s':\n   got  '%s'\n   want '%s'", query, out ? out : "",
          want);
    free(out);
    hxi_bm25_query_free(q);
}

static void test_snippets(void)
{
    expect_snippet("The kube-scheduler assigns pods.", "scheduler", 0, "The kube-**scheduler** assigns pods.");
    expect_snippet("The kube-scheduler assigns pods.", "kube-scheduler", 0, "The **kube-scheduler** assigns pods.");
    expect_snippet("Set   restartPolicy\n to Always", "\"restart policy\" -always", 0, "Set **restartPolicy** to Always");
    expect_snippet("alpha beta gamma delta epsilon zeta eta theta", "eta", 20, "\xe2\x80\xa6" "zeta **eta** theta");
    expect_snippet("alpha beta gamma delta epsilon zeta eta theta", "nothing", 16, "alpha beta gamma\xe2\x80\xa6");
    expect_snippet("sched schedule scheduling", "sched*", 0, "**sched** **schedule** **scheduling**");
    /* Invalid UTF-8 comes out replaced; a window never splits a sequence. */
    expect_snippet("caf\xc3\xa9 \xff ok", "ok", 0, "caf\xc3\xa9 \xef\xbf\xbd **ok**");
    /* The densest window wins over the first match. */
    char text[2000];
    size_t at = 0;
    at += (size_t)sprintf(text + at, "pods ");
    for (int i = 0; i < 100; i++)
        at += (size_t)sprintf(text + at, "filler%d ", i);
    sprintf(text + at, "pods and nodes together");
    hxi_bm25_query *q;
    char *out;
    size_t n;
    CHECK(hxi_bm25_query_parse(&q, HX_ANALYZER_EXACT, "pods nodes", 10, NULL) == 0, "parse");
    CHECK(hxi_snippet_make(text, strlen(text), q, 0, &out, &n, NULL) == 0, "snippet");
    CHECK(strstr(out, "**pods** and **nodes** together") && n <= HX_SNIPPET_DEFAULT + 40 &&
              strncmp(out, "\xe2\x80\xa6", 3) == 0,
          "dense window: '%s'", out);
    free(out);
    hxi_bm25_query_free(q);

    /* Random texts and queries: valid UTF-8 out, window near the target, markers balanced. */
    char rtext[1500], rq[64];
    int bad_utf8 = 0, too_long = 0, unbalanced = 0;
    for (int round = 0; round < 1500; round++) {
        size_t tn = (size_t)(rnd() % sizeof rtext);
        for (size_t i = 0; i < tn; i++) {
            uint32_t r = rnd() % 10;
            rtext[i] = r < 6 ? (char)('a' + rnd() % 4) : r < 8 ? ' ' : r < 9 ? "-._/:*\"\n"[rnd() % 8] : (char)rnd();
        }
        size_t qn = 1 + rnd() % 12;
        for (size_t i = 0; i < qn; i++)
            rq[i] = "ab cd*\"+-"[rnd() % 10];
        size_t target = 1 + rnd() % 300;
        if (hxi_bm25_query_parse(&q, HX_ANALYZER_EXACT, rq, qn, NULL))
            continue;
        if (hxi_snippet_make(rtext, tn, q, target, &out, &n, NULL) == 0) {
            size_t plain = 0, stars = 0;
            for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char)out[i];
                if (ch == '*')
                    stars++;
                else
                    plain++;
            }
            /* valid UTF-8: re-decoding yields no replacement for invalid input */
            for (size_t i = 0; i < n;) {
                unsigned char ch = (unsigned char)out[i];
                size_t len = ch < 0x80 ? 1 : (ch >> 5) == 6 ? 2 : (ch >> 4) == 14 ? 3 : (ch >> 3) == 30 ? 4 : 0;
                if (!len || i + len > n) {
                    bad_utf8++;
                    break;
                }
                for (size_t j = 1; j < len; j++)
                    if (((unsigned char)out[i + j] >> 6) != 2)
                        bad_utf8++;
                i += len;
            }
            /* a window of `target` input bytes; invalid bytes may grow to 3, ellipses add 6 */
            too_long += plain > 3 * target + 6;
            unbalanced += stars % 4 != 0 && !memchr(rtext, '*', tn);
            free(out);
        }
        hxi_bm25_query_free(q);
    }
    CHECK(bad_utf8 == 0, "%d snippets with invalid UTF-8", bad_utf8);
    CHECK(too_long == 0, "%d snippets over the target", too_long);
    CHECK(unbalanced == 0, "%d snippets with unbalanced markers", unbalanced);
}

/* === English analysis and query term frequency === */

static double score_of(const seg *s, const char *query, uint32_t id)
{
    hxi_bm25_hit h[32];
    size_t n = run_query(s, 1, query, NULL, 32, h, NULL);
    for (size_t i = 0; i < n; i++)
        if (h[i].doc_id == id)
            return h[i].score;
    return 0;
}

static void test_english(void)
{
    uint32_t ids[] = {10, 11, 12, 13, 14, 15, 16};
    char *texts[] = {"the kube-scheduler assigns pods to nodes", "the scheduler framework plugins",
                     "sig-api-machinery owns the api server", "graceful node shutdown of the kubelet",
                     "set restartPolicy to Always for pods", "nodes and pods and schedulers",
                     "a node shutdown that is graceful; the user's policies"};
    cfg = HX_ANALYZER_ENGLISH;
    seg s;
    CHECK(build(&s, ids, texts, 7, NULL, 0) == 0, "build english corpus");
    CHECK(s.r.analyzer == HX_ANALYZER_ENGLISH, "the segment records its analyzer");
    /* Stemming widens plain words; stop words alone match nothing. */
    expect_ids(&s, "scheduling", "10 11 15");
    expect_ids(&s, "node", "10 13 15 16");
    expect_ids(&s, "policy", "14 16");
    expect_ids(&s, "user", "16");
    expect_ids(&s, "the", "");
    expect_ids(&s, "the and of", "");
    /* Identifiers, quoted words, phrases, prefixes and required words stay exact. */
    expect_ids(&s, "kube-scheduler", "10 11 15");
    expect_ids(&s, "+kube-scheduler", "10");
    expect_ids(&s, "\"scheduler\"", "10 11");
    expect_ids(&s, "+scheduler", "10 11");
    expect_ids(&s, "restartPolicy", "14 16");
    expect_ids(&s, "+restartPolicy", "14");
    expect_ids(&s, "\"graceful node shutdown\"", "13");
    expect_ids(&s, "\"node shutdown that is graceful\"", "16");
    expect_ids(&s, "sched*", "10 11 15");
    expect_ids(&s, "pods -schedulers", "10 14");
    expect_ids(&s, "sig-api-machinery", "12");
    /* The identifier ranks the document that has it exactly first. */
    hxi_bm25_hit h[8];
    size_t n = run_query(&s, 1, "kube-scheduler", NULL, 8, h, NULL);
    CHECK(n == 3 && h[0].doc_id == 10, "identifier first: [%s]", ids_of(h, n));
    /* A compound of hyphenated words scores through its leaves' stems, as Lucene's english analyzer
     * splits it: kube-scheduler scores exactly as kube scheduler. An identifier (joined by _ . / :
     * or split by case) scores as a whole too (WordDelimiterGraphFilter's preserved original):
     * restartPolicy scores higher where the text has the identifier, as its words where not. */
    double joined = score_of(&s, "kube-scheduler", 10), apart = score_of(&s, "kube scheduler", 10);
    CHECK(joined > 0 && fabs(joined - apart) < 1e-12 * joined, "compound %.17g vs words %.17g", joined, apart);
    joined = score_of(&s, "restartPolicy", 14);
    apart = score_of(&s, "restart policy", 14);
    CHECK(joined > apart && apart > 0, "identifier %.17g vs words %.17g", joined, apart);
    joined = score_of(&s, "restartPolicy", 16);
    apart = score_of(&s, "restart policy", 16);
    CHECK(joined > 0 && fabs(joined - apart) < 1e-12 * joined, "parts only: identifier %.17g vs words %.17g", joined,
          apart);
    /* Query term frequency: a word given twice weighs twice, as in Lucene and bm25s. */
    double once = score_of(&s, "policy", 14), twice = score_of(&s, "policy policies", 14);
    CHECK(once > 0 && fabs(twice - 2 * once) < 1e-12 * once, "qtf: %.17g vs 2 x %.17g", twice, once);
    once = score_of(&s, "shutdown", 13);
    twice = score_of(&s, "shutdown graceful shutdown", 13) - score_of(&s, "graceful", 13);
    CHECK(once > 0 && fabs(twice - 2 * once) < 1e-9 * once, "qtf in a longer query: %g vs %g", twice, once);
    /* A single letter is not a query word (bm25s's \w\w+), unless the query has nothing else:
     * "I" and "e.g." add nothing to caching, and a letter alone matches where it stands. */
    uint32_t lids[] = {20, 21, 22};
    char *ltexts[] = {"I think e.g. caching helps", "caching layers for caching", "plan e and plan g"};
    seg l;
    CHECK(build(&l, lids, ltexts, 3, NULL, 0) == 0, "build the letters corpus");
    once = score_of(&l, "caching", 20);
    CHECK(once > 0 && score_of(&l, "I want caching e.g.", 20) == once, "letters add nothing: %g vs %g",
          score_of(&l, "I want caching e.g.", 20), once);
    expect_ids(&l, "I want caching e.g.", "20 21");
    expect_ids(&l, "e", "20 22");
    expect_ids(&l, "\"e\" caching", "20 21 22");
    free(l.blob);
    /* Snippets bold stemmed matches, not stop words. */
    expect_snippet("The policies of the nodes", "the policy of nodes", 0,
                   "The **policies** of the **nodes**");
    expect_snippet("the kube-scheduler", "\"kube scheduler\"", 0, "the **kube**-**scheduler**");
    free(s.blob);
    cfg = HX_ANALYZER_EXACT;

    /* The exact configuration keeps counting a repeated word too. */
    CHECK(build(&s, ids, texts, 7, NULL, 0) == 0, "build exact corpus");
    once = score_of(&s, "pods", 14);
    twice = score_of(&s, "pods pods", 14);
    CHECK(once > 0 && fabs(twice - 2 * once) < 1e-12 * once, "exact qtf: %g vs %g", twice, once);
    CHECK(s.r.analyzer == HX_ANALYZER_EXACT, "exact segment");
    free(s.blob);
}

/* === The header field (bm25.h, Fields and Scoring) === */

static void test_fields(void)
{
    uint32_t ids[] = {1, 2, 3, 4, 5};
    char *texts[] = {"graceful node shutdown|the kubelet stops pods in order",
                     "graceful node shutdown|a graceful node shutdown waits for pods",
                     "pods|pods run on nodes",
                     "a much longer header of many words|pods run on nodes",
                     "kubelet|kubelet"};
    seg s;
    CHECK(build(&s, ids, texts, 5, NULL, 0) == 0, "build the fields corpus");
    /* a phrase matches the body only; words match either field */
    expect_ids(&s, "\"graceful node shutdown\"", "2");
    expect_ids(&s, "graceful", "1 2");
    expect_ids(&s, "+shutdown kubelet", "1 2");
    expect_ids(&s, "pods -graceful", "3 4");
    expect_ids(&s, "grace*", "1 2");
    expect_ids(&s, "\"much longer\"", "");
    /* the header is not in the length: the same body scores alike under headers of any length */
    hxi_bm25_hit h[8];
    size_t n = run_query(&s, 1, "run", NULL, 8, h, NULL);
    CHECK(n == 2 && h[0].score == h[1].score, "header length ignored: [%s]", ids_of(h, n));
    /* BM25F: idf of max(df body, df header), tf~ = tf body + w tf header B(d), one saturation */
    double N = 5, avgdl = (6 + 7 + 4 + 4 + 1) / N;   /* body lengths in leaves (exact analysis) */
    double B1 = 0.25 + 0.75 * 6 / avgdl, B2 = 0.25 + 0.75 * 7 / avgdl, B5 = 0.25 + 0.75 * 1 / avgdl;
    double idf_g = log(1 + (N - 2 + 0.5) / (2 + 0.5));   /* graceful: body 1 doc, header 2 docs */
    double t1 = 0 + 1.0 * 1 * B1;                        /* doc 1: header only */
    double t2 = 1 + 1.0 * 1 * B2;                        /* doc 2: both fields */
    n = run_query(&s, 1, "graceful", NULL, 8, h, NULL);
    CHECK(n == 2 && h[0].doc_id == 2 && fabs(h[0].score - idf_g * t2 / (t2 + 1.2 * B2)) < 1e-12 &&
              fabs(h[1].score - idf_g * t1 / (t1 + 1.2 * B1)) < 1e-12,
          "BM25F scores %.17g %.17g", n ? h[0].score : 0, n > 1 ? h[1].score : 0);
    double idf_k = log(1 + (N - 2 + 0.5) / (2 + 0.5));   /* kubelet: body 2 docs, header 1 */
    double t5 = 1 + 1.0 * 1 * B5;
    n = run_query(&s, 1, "kubelet", NULL, 8, h, NULL);
    CHECK(n == 2 && h[0].doc_id == 5 && fabs(h[0].score - idf_k * t5 / (t5 + 1.2 * B5)) < 1e-12,
          "a word in both fields saturates once: %.17g", n ? h[0].score : 0);
    /* head_weight 0: the header still matches, and adds nothing */
    hxi_bm25_params p;
    hxi_bm25_params_default(&p);
    p.head_weight = 0;
    n = run_query(&s, 1, "graceful", &p, 8, h, NULL);
    CHECK(n == 2 && h[0].doc_id == 2 && fabs(h[0].score - idf_g * 1 / (1 + 1.2 * B2)) < 1e-12 && h[1].score == 0,
          "head_weight 0: %.17g %.17g", n ? h[0].score : 0, n > 1 ? h[1].score : 0);
    free(s.blob);
}

int main(void)
{
    test_fields();
    test_formula();
    test_syntax();
    test_random();
    test_golden();
    test_snippets();
    test_english();
    return check_report("test_bm25");
}
