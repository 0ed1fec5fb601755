/* test_conformance.c: the golden-query conformance suite (issue 11, seed 001). Indexes the real KEP
 * subset in tests/data/conformance/keps with $HYRAX_BIN (./hyrax) and the real model, runs every
 * query of tests/data/conformance/queries.txt in keyword, vector and hybrid mode, and fails naming
 * the query, mode, expectation and the folders hyrax put first when one does not hold. The file's
 * header says where each truth comes from (kep.yaml titles, hand-written paraphrases, topics read
 * by hand) and how to change it deliberately; this file only reads it. */
#include "check.h"
#include "hyrax.h"
#include "json.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CORPUS  "tests/data/conformance/keps"
#define QUERIES "tests/data/conformance/queries.txt"
#define TOP     20    /* documents asked for; folder ranks beyond what they hold count as misses */
#define MAX_REL 32

static const char *const modes[3] = {"keyword", "vector", "hybrid"};

/* The KEP folders of one search, best first, each once (a README.md and the kep.yaml beside it
 * count as their folder), written into folders[]; how many. */
static size_t search_folders(const char *db, const char *mode, const char *query, char folders[TOP][256])
{
    char cmd[4096], *out, *q = cmd;
    q += snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --mode %s -k %d --json '", db, mode, TOP);
    for (const char *s = query; *s && q < cmd + sizeof cmd - 8; s++)   /* ' as '\'' for the shell */
        q += *s == '\'' ? (size_t)sprintf(q, "'\\''") : (size_t)sprintf(q, "%c", *s);
    strcpy(q, "'");
    int rc = check_run(cmd, &out);
    hxi_json_doc *d = NULL;
    size_t n = 0;
    if (rc != 0 || hxi_json_parse(&d, out, strlen(out), NULL, NULL) != 0) {
        CHECK(0, "%s search \"%s\" failed (exit %d): %.300s", mode, query, rc, out);
        free(out);
        return 0;
    }
    const hxi_json_val *rs = hxi_json_obj_get(hxi_json_doc_root(d), "results");
    for (size_t i = 0; i < hxi_json_len(rs) && n < TOP; i++) {
        const char *path = hxi_json_str(hxi_json_obj_get(hxi_json_arr_get(rs, i), "path"), NULL);
        const char *slash = path ? strrchr(path, '/') : NULL;
        size_t len = slash ? (size_t)(slash - path) : 0;
        if (!len || len >= 256)
            continue;
        int seen = 0;
        for (size_t j = 0; j < n && !seen; j++)
            seen = strlen(folders[j]) == len && memcmp(folders[j], path, len) == 0;
        if (!seen) {
            memcpy(folders[n], path, len);
            folders[n++][len] = 0;
        }
    }
    hxi_json_doc_free(d);
    free(out);
    return n;
}

/* The first k folders of a search as "a, b, c" into buf, for failure messages. */
static const char *top_list(char folders[TOP][256], size_t n, size_t k, char *buf, size_t cap)
{
    buf[0] = 0;
    for (size_t i = 0; i < n && i < k; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", folders[i]);
    }
    return buf;
}

/* The `title:` of a folder's kep.yaml, without quotes and outer spaces, into buf; 0 or -1. */
static int kep_title(const char *folder, char *buf, size_t cap)
{
    char path[PATH_MAX];
    size_t len;
    snprintf(path, sizeof path, "%s/%s/kep.yaml", CORPUS, folder);
    char *text = check_read_file(path, &len);
    char *t = text ? strstr(text, "\ntitle:") : NULL;
    if (!t && text && strncmp(text, "title:", 6) == 0)
        t = text - 1;
    if (!t) {
        free(text);
        return -1;
    }
    t += 7;
    char *end = strchr(t, '\n');
    end = end ? end : t + strlen(t);
    while (t < end && (*t == ' ' || *t == '"' || *t == '\''))
        t++;
    while (end > t && (end[-1] == ' ' || end[-1] == '"' || end[-1] == '\'' || end[-1] == '\r'))
        end--;
    snprintf(buf, cap, "%.*s", (int)(end - t), t);
    free(text);
    return 0;
}

/* One known-item query: the folder within the first k[m] folders of each mode. */
static void known_item(const char *db, int line, const char *kind, const char *folder, const int k[3],
                       const char *query)
{
    char folders[TOP][256], list[TOP * 260];
    for (int m = 0; m < 3; m++) {
        size_t n = search_folders(db, modes[m], query, folders), rank = 0;
        for (size_t i = 0; i < n && !rank; i++)
            rank = strcmp(folders[i], folder) == 0 ? i + 1 : 0;
        char got[32];
        if (rank)
            snprintf(got, sizeof got, "rank %zu", rank);
        else
            snprintf(got, sizeof got, "not in the first %zu folders", n);
        CHECK(rank >= 1 && rank <= (size_t)k[m], "queries.txt:%d %s \"%s\" (%s): expected %s within the top %d, got %s; top %d: %s",
              line, kind, query, modes[m], folder, k[m], got, k[m], top_list(folders, n, (size_t)k[m], list, sizeof list));
    }
}

/* One topic: at least need[m] of the first k folders of each mode among rel. */
static void topic(const char *db, int line, int k, const int need[3], const char *query, char rel[][256],
                  size_t n_rel)
{
    char folders[TOP][256], list[TOP * 260];
    CHECK(n_rel > 0 && k <= TOP, "queries.txt:%d topic \"%s\": %zu rel folders, k %d", line, query, n_rel, k);
    for (int m = 0; m < 3; m++) {
        size_t n = search_folders(db, modes[m], query, folders);
        int hits = 0;
        for (size_t i = 0; i < n && i < (size_t)k; i++)
            for (size_t r = 0; r < n_rel; r++)
                hits += strcmp(folders[i], rel[r]) == 0;
        CHECK(hits >= need[m], "queries.txt:%d topic \"%s\" (%s): expected at least %d relevant in the top %d, got %d; top %d: %s",
              line, query, modes[m], need[m], k, hits, k, top_list(folders, n, (size_t)k, list, sizeof list));
    }
}

/* === k only cuts the list; the list is in the order of its score === */

#define MAX_QUERIES 256
#define K_MAX 20

/* Whether results a and b are the same, every score bit for bit (NaN included), `more` too. */
static bool same_result(const hx_result *a, const hx_result *b)
{
    bool same = a->rank == b->rank && a->chunk_id == b->chunk_id && a->doc_id == b->doc_id && a->n_more == b->n_more &&
                !memcmp(&a->score, &b->score, sizeof a->score) && !memcmp(&a->relevance, &b->relevance, sizeof a->relevance) &&
                !memcmp(&a->fused, &b->fused, sizeof a->fused) &&
                !memcmp(&a->keyword_score, &b->keyword_score, sizeof a->keyword_score) &&
                !memcmp(&a->vector_score, &b->vector_score, sizeof a->vector_score) &&
                ((!a->tier && !b->tier) || (a->tier && b->tier && !strcmp(a->tier, b->tier)));
    for (size_t m = 0; same && m < a->n_more; m++)
        same = a->more[m].chunk_id == b->more[m].chunk_id && !memcmp(&a->more[m].score, &b->more[m].score, sizeof(float));
    return same;
}

/* Results in descending order of the score they show, each one's `more` below it; relevance in
 * [0, 1] and at least the floor. */
static void check_order(const hx_results *r, const char *what, const char *query)
{
    for (size_t i = 0; i < r->n; i++) {
        const hx_result *x = &r->v[i];
        CHECK(i == 0 || x->score <= r->v[i - 1].score, "%s \"%s\": rank %zu scores %g above rank %zu's %g", what, query,
              i + 1, (double)x->score, i, (double)r->v[i - 1].score);
        CHECK(x->relevance >= (float)HX_MIN_RELEVANCE && x->relevance <= 1, "%s \"%s\": rank %zu relevance %g", what,
              query, i + 1, (double)x->relevance);
        for (size_t m = 0; m < x->n_more; m++)
            CHECK(x->more[m].score <= x->score && (m == 0 || x->more[m].score <= x->more[m - 1].score),
                  "%s \"%s\": rank %zu's more[%zu] scores %g, the result %g", what, query, i + 1, m,
                  (double)x->more[m].score, (double)x->score);
    }
}

/* One query's list at k = K_MAX against the lists at k = 1 .. K_MAX - 1: each a prefix of it. */
typedef int (*search_fn)(void *ctx, const hx_search_opts *o, hx_results *out, hx_error *err);

static size_t check_prefixes(search_fn fn, void *ctx, hx_search_opts o, const char *what, const char *query)
{
    hx_results full = {0};
    hx_error err = {0};
    o.k = K_MAX;
    if (fn(ctx, &o, &full, &err)) {
        CHECK(0, "%s \"%s\": %s", what, query, err.message);
        return 0;
    }
    check_order(&full, what, query);
    for (uint32_t k = 1; k < K_MAX; k++) {
        hx_results part = {0};
        o.k = k;
        if (fn(ctx, &o, &part, &err)) {
            CHECK(0, "%s \"%s\" k %u: %s", what, query, k, err.message);
            continue;
        }
        bool same = part.n == (full.n < k ? full.n : k);
        for (size_t i = 0; same && i < part.n; i++)
            same = same_result(&part.v[i], &full.v[i]);
        CHECK(same, "%s \"%s\": the %zu results at k %u are not the first of the %zu at k %d", what, query, part.n, k,
              full.n, K_MAX);
        hx_results_free(&part);
    }
    size_t n = full.n;
    hx_results_free(&full);
    return n;
}

typedef struct {
    hx_index *ix;
    const hx_tier *tiers;
    hx_encoder *enc;
    const char *query;
    const float *vec;
} search_ctx;

static int one_index(void *ctx, const hx_search_opts *o, hx_results *out, hx_error *err)
{
    search_ctx *c = ctx;
    return hx_index_search_embedded(c->ix, c->query, strlen(c->query), o->mode == HX_MODE_KEYWORD ? NULL : c->vec, o,
                                    out, err);
}

static int two_tiers(void *ctx, const hx_search_opts *o, hx_results *out, hx_error *err)
{
    search_ctx *c = ctx;
    return hx_tiers_search(c->tiers, 2, c->enc, c->query, strlen(c->query), o, out, err);
}

/* Every query in every mode, grouped by document and by chunk, on the project index alone; every
 * fifth also with a user index that holds copies of some project documents and one of its own
 * (the tiers' merge). At the surfaces' floor, as they search. */
static void k_invariance(const char *db, const char *user_db, char **queries, size_t nq)
{
    hx_model *m = NULL;
    hx_encoder *enc = NULL;
    hx_index *pi = NULL, *ui = NULL;
    hx_error err = {0};
    float vec[HX_EMBED_DIM_MAX];
    if (hx_model_open_default(&m, &err) || hx_encoder_new(&enc, m, 1, &err) ||
        hx_index_open(&pi, db, HX_INDEX_READ, m, NULL, &err) || hx_index_open(&ui, user_db, HX_INDEX_READ, m, NULL, &err)) {
        CHECK(0, "open: %s", err.message);
        goto done;
    }
    const hx_tier tiers[2] = {{HX_TIER_PROJECT, pi}, {HX_TIER_USER, ui}};
    static const hx_search_mode modes_k[3] = {HX_MODE_KEYWORD, HX_MODE_VECTOR, HX_MODE_HYBRID};
    size_t lists = 0, listed = 0, user = 0;
    for (size_t q = 0; q < nq; q++) {
        size_t len = strlen(queries[q]);
        if (hx_encoder_embed(enc, (const char *const *)&queries[q], &len, 1, vec, &err)) {
            CHECK(0, "embed \"%s\": %s", queries[q], err.message);
            continue;
        }
        search_ctx c = {pi, tiers, enc, queries[q], vec};
        for (int mo = 0; mo < 3; mo++)
            for (int g = 0; g < 2; g++) {
                hx_search_opts o;
                hx_search_opts_default(&o);
                o.mode = modes_k[mo];
                o.group = g ? HX_GROUP_CHUNK : HX_GROUP_DOCUMENT;
                o.min_score = (float)HX_MIN_RELEVANCE;
                char what[64];
                snprintf(what, sizeof what, "%s %s", modes[mo], g ? "chunks" : "documents");
                listed += check_prefixes(one_index, &c, o, what, queries[q]);
                lists++;
                if (q % 5 || g)
                    continue;
                hx_results both = {0};
                o.k = K_MAX;
                if (!hx_tiers_search(tiers, 2, enc, queries[q], len, &o, &both, &err))
                    for (size_t i = 0; i < both.n; i++)
                        user += !strcmp(both.v[i].tier, HX_TIER_USER);
                hx_results_free(&both);
                strcat(what, ", two tiers");
                check_prefixes(two_tiers, &c, o, what, queries[q]);
            }
    }
    CHECK(lists >= 600 && listed >= 10 * lists && user >= 5,
          "%zu lists of %zu results in all, %zu results from the user tier", lists, listed, user);
done:
    hx_index_close(pi);
    hx_index_close(ui);
    hx_encoder_free(enc);
    hx_model_close(m);
}

/* Does the folder exist in the subset (a rel or doc line naming a folder that is not there could
 * never be met, or would be met by nothing)? */
static int folder_exists(const char *folder)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/README.md", CORPUS, folder);
    return access(path, R_OK) == 0;
}

/* Runs the pending topic, if any. */
static void flush_topic(const char *db, int *t_line, int t_k, const int t_need[3], const char *t_query,
                        char rel[][256], size_t *n_rel)
{
    if (*t_line)
        topic(db, *t_line, t_k, t_need, t_query, rel, *n_rel);
    *t_line = 0;
    *n_rel = 0;
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_conformance_XXXXXX", root[PATH_MAX], db[PATH_MAX + 16], cmd[3 * PATH_MAX], *out;
    char bin[PATH_MAX];
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(realpath(getenv("HYRAX_BIN"), bin) != NULL, "HYRAX_BIN resolves");
    setenv("HYRAX_BIN", bin, 1);   /* the index is made from inside its root */
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s/keps.hyx", root);
    snprintf(cmd, sizeof cmd, "cd " CORPUS " && \"$HYRAX_BIN\" index --db '%s' . 2>&1", db);
    CHECK(check_run(cmd, &out) == 0, "index " CORPUS ": %s", out);
    free(out);

    size_t len;
    char *text = check_read_file(QUERIES, &len);
    CHECK(text != NULL, "read " QUERIES);
    char folder[256] = "", t_query[1024] = "", rel[MAX_REL][256];
    int line = 0, t_line = 0, t_k = 0, t_need[3] = {0, 0, 0}, items = 0, topics = 0;
    size_t n_rel = 0, nq = 0;
    char *queries[MAX_QUERIES];
    for (char *s = text, *next; s && *s; s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = 0;
        line++;
        char kind[16], arg[1024];
        int k[4], used = 0;
        if (*s == '#' || *s == 0)
            continue;
        if (sscanf(s, "%15s %n", kind, &used) != 1)
            continue;
        if (strcmp(kind, "doc") == 0 || strcmp(kind, "rel") == 0) {
            CHECK(sscanf(s + used, "%255s", arg) == 1 && folder_exists(arg), "queries.txt:%d: no folder %s in " CORPUS,
                  line, s + used);
            if (kind[0] == 'd') {
                flush_topic(db, &t_line, t_k, t_need, t_query, rel, &n_rel);
                snprintf(folder, sizeof folder, "%.255s", arg);
            } else {
                CHECK(t_line && n_rel < MAX_REL, "queries.txt:%d: rel outside a topic or too many", line);
                if (t_line && n_rel < MAX_REL)
                    snprintf(rel[n_rel++], sizeof rel[0], "%.255s", arg);
            }
        } else if (strcmp(kind, "title") == 0 || strcmp(kind, "para") == 0) {
            flush_topic(db, &t_line, t_k, t_need, t_query, rel, &n_rel);
            int q = 0;
            CHECK(folder[0] && sscanf(s + used, "%d %d %d %n", &k[0], &k[1], &k[2], &q) == 3 && q > 0,
                  "queries.txt:%d: malformed: %s", line, s);
            if (!folder[0] || q <= 0)
                continue;
            const char *query = s + used + q;
            if (kind[0] == 't') {
                char title[1024];
                CHECK(kep_title(folder, title, sizeof title) == 0 && strcmp(title, query) == 0,
                      "queries.txt:%d: the title query \"%s\" is not %s/kep.yaml's title", line, query, folder);
            }
            known_item(db, line, kind, folder, k, query);
            if (nq < MAX_QUERIES)
                queries[nq++] = strdup(query);
            items++;
        } else if (strcmp(kind, "topic") == 0) {
            flush_topic(db, &t_line, t_k, t_need, t_query, rel, &n_rel);
            int q = 0;
            CHECK(sscanf(s + used, "%d %d %d %d %n", &k[0], &k[1], &k[2], &k[3], &q) == 4 && q > 0,
                  "queries.txt:%d: malformed: %s", line, s);
            if (q <= 0)
                continue;
            folder[0] = 0;
            t_line = line;
            t_k = k[0];
            memcpy(t_need, k + 1, sizeof t_need);
            snprintf(t_query, sizeof t_query, "%s", s + used + q);
            if (nq < MAX_QUERIES)
                queries[nq++] = strdup(t_query);
            topics++;
        } else {
            CHECK(0, "queries.txt:%d: unknown line: %s", line, s);
        }
    }
    flush_topic(db, &t_line, t_k, t_need, t_query, rel, &n_rel);
    free(text);
    CHECK(items >= 90 && topics >= 5, "queries.txt holds %d known-item queries and %d topics", items, topics);

    /* a user index: two KEPs as they are (the project answers for them), two changed, and a note */
    char user_db[PATH_MAX + 32], ucmd[5 * PATH_MAX + 1024];
    snprintf(user_db, sizeof user_db, "%s/user.hyx", root);
    snprintf(ucmd, sizeof ucmd,
             "mkdir -p '%s/user' && cd " CORPUS " && cp -r sig-node/753-sidecar-containers sig-apps/961-maxunavailable-for-statefulset "
             "sig-node/2400-node-swap sig-scheduling/624-scheduling-framework '%s/user/' && cd '%s/user' && "
             "printf '\\nNotes: swap and sidecars on our clusters.\\n' >> 2400-node-swap/README.md && "
             "printf '\\nNotes: what we tune in the scheduler.\\n' >> 624-scheduling-framework/README.md && "
             "printf '# Node notes\\n\\nOur nodes run sidecar containers and swap; the scheduler config is ours.\\n' > notes.md && "
             "\"$HYRAX_BIN\" index --db '%s' . 2>&1",
             root, root, root, user_db);
    CHECK(check_run(ucmd, &out) == 0, "the user index: %s", out);
    free(out);
    k_invariance(db, user_db, queries, nq);
    for (size_t i = 0; i < nq; i++)
        free(queries[i]);

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_conformance");
}
