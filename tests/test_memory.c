/* test_memory.c: conversation memory (src/service/memory.h, the MCP tools record_turn, get_session,
 * search_history, list_sessions and `hyrax history`): turns come back in order after reopening;
 * retention drops the oldest turns of a session and then of its identity (tenant, user), so one
 * identity's flood never removes another's turns, and a new identity past the limit is refused;
 * each identity sees only its own turns; search_history's semantic ranking equals a brute-force cosine
 * ranking computed here, and keyword search finds the one turn holding a word; a process killed
 * at random moments while recording keeps every turn it acknowledged; the MCP tools and the
 * command line show what was recorded; the file records the model of its vectors and refuses
 * another's. */
#include "check.h"
#include "serve_client.h"
#include "bytes.h"
#include "json.h"
#include "memory.h"
#include "store.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[PATH_MAX];
static const char *vec_model;   /* the model of the vectors record() passes, and their dimension */
static int vec_dim;

static void path_in(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static int record(hxi_memory *m, const char *session, const char *tenant, const char *user, const char *msg,
                  const char *resp, const float *vec, const hx_memory_limits *lim, hx_turn *out)
{
    hx_turn t = {0};
    t.session = session;
    t.tenant = tenant;
    t.user = user;
    t.user_message = msg;
    t.agent_response = resp;
    t.relevance = NAN;
    t.vec = vec;
    hx_error err = {0};
    int rc = hxi_memory_record(m, &t, vec ? vec_model : NULL, vec ? vec_dim : 0, lim, out, &err);
    CHECK(rc == 0, "record %s/%s: %s", session, msg, err.message);
    return rc;
}

/* === Reopen, order, fields === */

static void test_reopen(void)
{
    char path[PATH_MAX + 32];
    path_in(path, sizeof path, "a.memory.hyx");
    hxi_memory *m = NULL;
    hx_error err = {0};
    CHECK(hxi_memory_open(&m, path, HX_STORE_READ, &err) == HX_ENOTFOUND, "a missing file reads as not found");
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) == 0, "create: %s", err.message);
    if (!m)
        return;
    const char *docs[] = {"kep-1.md", "kep-2.md"};
    hx_turn t = {0}, out;
    t.session = "s1";
    t.user_message = "first question";
    t.agent_response = "first answer";
    t.search_method = "hybrid";
    t.relevance = 0.75;
    t.docs = docs;
    t.n_docs = 2;
    CHECK(hxi_memory_record(m, &t, NULL, 0, NULL, &out, &err) == 0, "record: %s", err.message);
    CHECK(out.number == 1 && out.id == 1, "first turn is number 1, id 1 (got %u, %llu)", out.number,
          (unsigned long long)out.id);
    record(m, "s2", "", "", "other session", "x", NULL, NULL, &out);
    CHECK(out.number == 1, "a new session starts at 1 (got %u)", out.number);
    record(m, "s1", "", "", "second question", "second answer", NULL, NULL, &out);
    CHECK(out.number == 2 && out.id == 3, "second turn of s1 is number 2, id 3 (got %u, %llu)", out.number,
          (unsigned long long)out.id);
    hxi_memory_close(m);

    m = NULL;
    CHECK(hxi_memory_open(&m, path, HX_STORE_READ, &err) == 0, "reopen: %s", err.message);
    if (!m)
        return;
    CHECK(hxi_memory_count(m) == 3, "3 turns kept (got %zu)", hxi_memory_count(m));
    const hx_turn *a = hxi_memory_turn(m, 0), *c = hxi_memory_turn(m, 2);
    CHECK(a && !strcmp(a->session, "s1") && !strcmp(a->user_message, "first question") &&
              !strcmp(a->agent_response, "first answer") && !strcmp(a->search_method, "hybrid") &&
              a->relevance == 0.75 && a->n_docs == 2 && !strcmp(a->docs[1], "kep-2.md") && a->vec == NULL,
          "first turn read back whole");
    CHECK(c && !strcmp(c->user_message, "second question") && c->number == 2 && isnan(c->relevance),
          "third turn read back whole");
    CHECK(a && c && a->at_ns <= c->at_ns, "times in order");
    hxi_memory_close(m);

    /* the file is a store file whose chain verifies */
    hxi_store *st = NULL;
    CHECK(hxi_store_open(&st, path, HX_STORE_READ, &err) == 0 && hxi_store_verify(st, &err) == 0 &&
              hxi_store_generation(st) == 3,
          "one commit per turn, every checksum holds: %s", err.message);
    hxi_store_close(st);

    char mp[64];
    CHECK(hxi_memory_path(".hyrax/index.hyx", mp, sizeof mp, &err) == 0 && !strcmp(mp, ".hyrax/index.memory.hyx"),
          "memory file beside the index: %s", mp);
    /* a walk of the index's folder (hyrax index, serve --watch) leaves it and its temporary files out */
    CHECK(hxi_store_owns_name("index.hyx", "index.memory.hyx") && hxi_store_owns_name("index.hyx", "index.stats.hyx") &&
              hxi_store_owns_name("index.hyx", "index.memory.hyx.compact.tmp") &&
              hxi_store_owns_name("index.hyx", "index.memory.hyx.new-12-34"),
          "the files beside the index belong to it");
    CHECK(!hxi_store_owns_name("index.hyx", "index.md") && !hxi_store_owns_name("index.hyx", "index.a.b.hyx") &&
              !hxi_store_owns_name("index.hyx", "index..hyx") && !hxi_store_owns_name("index.hyx", "indexes.memory.hyx"),
          "other files do not");
}

/* === Retention === */

static void test_retention(void)
{
    char path[PATH_MAX + 32];
    path_in(path, sizeof path, "r.memory.hyx");
    hxi_memory *m = NULL;
    hx_error err = {0};
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) == 0, "create: %s", err.message);
    if (!m)
        return;
    hx_memory_limits lim = {.per_session = 3, .total = 5};
    char msg[32];
    for (int i = 1; i <= 4; i++) {
        snprintf(msg, sizeof msg, "a%d", i);
        record(m, "A", "", "", msg, "", NULL, &lim, NULL);
    }
    /* per session 3: a1 dropped */
    CHECK(hxi_memory_count(m) == 3 && !strcmp(hxi_memory_turn(m, 0)->user_message, "a2"),
          "session A keeps its newest 3 turns (count %zu)", hxi_memory_count(m));
    for (int i = 1; i <= 3; i++) {
        snprintf(msg, sizeof msg, "b%d", i);
        record(m, "B", "", "", msg, "", NULL, &lim, NULL);
    }
    /* 6 turns > total 5: the oldest of the file (a2) dropped */
    hxi_memory_close(m);
    m = NULL;
    CHECK(hxi_memory_open(&m, path, HX_STORE_READ, &err) == 0, "reopen: %s", err.message);
    if (!m)
        return;
    const char *want[] = {"a3", "a4", "b1", "b2", "b3"};
    CHECK(hxi_memory_count(m) == 5, "5 turns kept in all (got %zu)", hxi_memory_count(m));
    for (size_t i = 0; i < 5 && i < hxi_memory_count(m); i++)
        CHECK(!strcmp(hxi_memory_turn(m, i)->user_message, want[i]), "turn %zu is %s (got %s)", i, want[i],
              hxi_memory_turn(m, i)->user_message);
    CHECK(hxi_memory_count(m) == 5 && hxi_memory_turn(m, 1)->number == 4, "numbers go on past dropped turns");
    hxi_memory_close(m);
}

/* === Identities === */

/* Turns of (tenant, user) kept in m. */
static size_t count_of(const hxi_memory *m, const char *tenant, const char *user)
{
    size_t n = 0;
    for (size_t i = 0; i < hxi_memory_count(m); i++)
        n += hxi_memory_visible(hxi_memory_turn(m, i), tenant, user);
    return n;
}

/* One identity recording far past the limit removes only its own oldest turns; a fourth identity
 * is refused while three keep turns, and the file is left as it was. */
static void test_flood(void)
{
    char path[PATH_MAX + 32], msg[32];
    path_in(path, sizeof path, "f.memory.hyx");
    hxi_memory *m = NULL;
    hx_error err = {0};
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) == 0, "create: %s", err.message);
    if (!m)
        return;
    hx_memory_limits lim = {.total = 5, .identities = 3};
    for (int i = 1; i <= 5; i++) {
        snprintf(msg, sizeof msg, "bob %d", i);
        record(m, "diary", "globex", "bob", msg, "", NULL, &lim, NULL);
    }
    for (int i = 1; i <= 40; i++) {
        char session[8];
        snprintf(msg, sizeof msg, "acme %d", i);
        snprintf(session, sizeof session, "s%d", i % 4);
        record(m, session, "acme", NULL, msg, "", NULL, &lim, NULL);
    }
    CHECK(count_of(m, "globex", "bob") == 5, "acme's 40 turns leave bob's 5 (bob has %zu)",
          count_of(m, "globex", "bob"));
    CHECK(count_of(m, "acme", "") == 5 && hxi_memory_count(m) == 10, "acme keeps its newest 5 (%zu of %zu)",
          count_of(m, "acme", ""), hxi_memory_count(m));
    record(m, "local", NULL, NULL, "no identity", "", NULL, &lim, NULL);
    hx_turn t = {0};
    t.session = "x";
    t.tenant = "initech";
    t.user_message = "a fourth identity";
    t.relevance = NAN;
    CHECK(hxi_memory_record(m, &t, NULL, 0, &lim, NULL, &err) == HX_ERANGE && strstr(err.message, "3 identities"),
          "a fourth identity is refused with the reason (%s)", err.message);
    record(m, "s1", "acme", NULL, "acme 41", "", NULL, &lim, NULL);
    hxi_memory_close(m);
    m = NULL;
    CHECK(hxi_memory_open(&m, path, HX_STORE_READ, &err) == 0, "reopen: %s", err.message);
    if (!m)
        return;
    CHECK(hxi_memory_count(m) == 11 && count_of(m, "initech", "") == 0, "the refused turn was not written (%zu turns)",
          hxi_memory_count(m));
    size_t seen = 0;
    for (size_t i = 0; i < hxi_memory_count(m); i++) {
        const hx_turn *bt = hxi_memory_turn(m, i);
        if (hxi_memory_visible(bt, "globex", "bob")) {
            snprintf(msg, sizeof msg, "bob %zu", ++seen);
            CHECK(!strcmp(bt->user_message, msg) && bt->number == seen, "bob's turn %zu is there, in order", seen);
        }
    }
    CHECK(seen == 5 && count_of(m, "acme", "") == 5 && !strcmp(hxi_memory_turn(m, 10)->user_message, "acme 41"),
          "after reopening: bob 5, acme its newest 5");
    hxi_memory_close(m);
}

static void test_tenants(void)
{
    char path[PATH_MAX + 32];
    path_in(path, sizeof path, "t.memory.hyx");
    hxi_memory *m = NULL;
    hx_error err = {0};
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) == 0, "create: %s", err.message);
    if (!m)
        return;
    record(m, "s", "acme", "ann", "acme secret budget", "", NULL, NULL, NULL);
    record(m, "s", "beta", "bob", "beta secret budget", "", NULL, NULL, NULL);
    record(m, "s", "acme", "al", "acme other user budget", "", NULL, NULL, NULL);
    hx_turn out;
    record(m, "s", "acme", "ann", "second budget", "", NULL, NULL, &out);
    CHECK(out.number == 2, "turn numbers count per identity's session (got %u)", out.number);
    hxi_memory_hit *hits = NULL;
    size_t n = 0;
    CHECK(hxi_memory_search(m, HX_MODE_KEYWORD, "budget", NULL, NULL, 0, "acme", "ann", NULL, 10, &hits, &n, &err) == 0,
          "search: %s", err.message);
    CHECK(n == 2, "acme/ann finds its 2 turns only (got %zu)", n);
    for (size_t i = 0; i < n; i++) {
        const hx_turn *t = hxi_memory_turn(m, hits[i].turn);
        CHECK(!strcmp(t->tenant, "acme") && !strcmp(t->user, "ann"), "hit %zu belongs to acme/ann", i);
    }
    free(hits);
    CHECK(hxi_memory_search(m, HX_MODE_KEYWORD, "budget", NULL, NULL, 0, "", "", NULL, 10, &hits, &n, &err) == 0 && n == 0,
          "no identity sees none of them (got %zu)", n);
    free(hits);
    hxi_memory_close(m);
}

/* === Search against brute force === */

static const char *const turn_text[][2] = {
    {"How do I bake sourdough bread at home?", "Feed the starter, mix, fold and proof overnight."},
    {"What does the Kubernetes scheduler do?", "It assigns pending pods to nodes that fit them."},
    {"Which wine goes with grilled salmon?", "A dry white such as Sauvignon Blanc or a light Pinot Noir."},
    {"How can I speed up my PostgreSQL queries?", "Add an index on the filtered columns and check EXPLAIN."},
    {"What is the capital of Australia?", "Canberra, not Sydney."},
    {"How do transformers use attention?", "Each token weighs every other token by scaled dot products."},
    {"Best way to learn to swim as an adult?", "Start with floating and breathing drills in shallow water."},
    {"How do I rotate TLS certificates?", "Issue new ones before expiry and reload the server."},
};
#define N_TURNS (sizeof turn_text / sizeof turn_text[0])

static const char *const queries[] = {
    "baking bread with a starter",
    "pod placement in a cluster",
    "database performance tuning",
    "neural network self-attention",
    "renewing certificates for HTTPS",
    "swimming lessons",
};
static const size_t about[] = {0, 1, 3, 5, 7, 6};   /* the turn each query was written for */

static void test_search(hx_encoder *enc, const hx_model *model)
{
    vec_model = hx_model_name(model);
    vec_dim = hx_model_dim(model);
    char path[PATH_MAX + 32];
    path_in(path, sizeof path, "s.memory.hyx");
    hxi_memory *m = NULL;
    hx_error err = {0};
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) == 0, "create: %s", err.message);
    if (!m)
        return;
    static float vec[N_TURNS][HX_EMBED_DIM_MAX];
    for (size_t i = 0; i < N_TURNS; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s\n%s", turn_text[i][0], turn_text[i][1]);
        const char *tx = text;
        size_t len = strlen(text);
        CHECK(hx_encoder_embed(enc, &tx, &len, 1, vec[i], &err) == 0, "embed: %s", err.message);
        record(m, i % 2 ? "odd" : "even", "", "", turn_text[i][0], turn_text[i][1], vec[i], NULL, NULL);
    }
    for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
        float qv[HX_EMBED_DIM_MAX];
        const char *tx = queries[q];
        size_t len = strlen(tx);
        CHECK(hx_encoder_embed(enc, &tx, &len, 1, qv, &err) == 0, "embed: %s", err.message);
        /* brute force: every cosine, ranked */
        double cos[N_TURNS];
        size_t order[N_TURNS];
        for (size_t i = 0; i < N_TURNS; i++) {
            cos[i] = 0;
            for (int d = 0; d < vec_dim; d++)
                cos[i] += (double)vec[i][d] * qv[d];
            order[i] = i;
        }
        for (size_t i = 1; i < N_TURNS; i++)
            for (size_t j = i; j > 0 && cos[order[j]] > cos[order[j - 1]]; j--) {
                size_t x = order[j];
                order[j] = order[j - 1];
                order[j - 1] = x;
            }
        hxi_memory_hit *hits = NULL;
        size_t n = 0;
        CHECK(hxi_memory_search(m, HX_MODE_VECTOR, queries[q], qv, vec_model, vec_dim, "", "", NULL, N_TURNS, &hits, &n, &err) == 0,
              "search: %s", err.message);
        CHECK(n == N_TURNS, "semantic search ranks every turn (got %zu)", n);
        for (size_t i = 0; i < n; i++)
            CHECK(hits[i].turn == order[i] && fabs(hits[i].cosine - cos[order[i]]) < 1e-5,
                  "query '%s' rank %zu: turn %zu (cos %.5f), brute force turn %zu (cos %.5f)", queries[q], i,
                  hits[i].turn, hits[i].cosine, order[i], cos[order[i]]);
        /* the turn each query was written for wins by brute force: a fact of the texts above */
        CHECK(order[0] == about[q], "query '%s' is about turn %zu (brute force: %zu)", queries[q], about[q], order[0]);
        free(hits);
        /* hybrid's best is the semantic winner here too (it also shares a keyword or ranks first) */
        CHECK(hxi_memory_search(m, HX_MODE_HYBRID, queries[q], qv, vec_model, vec_dim, "", "", NULL, 3, &hits, &n, &err) == 0 && n >= 1 &&
                  hits[0].turn == order[0],
              "hybrid query '%s' finds turn %zu first (got %zu)", queries[q], order[0], n ? hits[0].turn : 99);
        free(hits);
        /* session scope */
        CHECK(hxi_memory_search(m, HX_MODE_VECTOR, queries[q], qv, vec_model, vec_dim, "", "", "odd", N_TURNS, &hits, &n, &err) == 0 &&
                  n == N_TURNS / 2,
              "session 'odd' holds half the turns (got %zu)", n);
        for (size_t i = 0; i < n; i++)
            CHECK(hits[i].turn % 2 == 1, "only odd turns in session odd");
        free(hits);
    }
    /* keyword: "Canberra" occurs in turn 4 only, "token" in turn 5 only (twice) */
    hxi_memory_hit *hits = NULL;
    size_t n = 0;
    CHECK(hxi_memory_search(m, HX_MODE_KEYWORD, "canberra", NULL, NULL, 0, "", "", NULL, 5, &hits, &n, &err) == 0 && n == 1 &&
              hits[0].turn == 4,
          "keyword 'canberra' finds turn 4 alone (got %zu)", n);
    free(hits);
    CHECK(hxi_memory_search(m, HX_MODE_KEYWORD, "tokens", NULL, NULL, 0, "", "", NULL, 5, &hits, &n, &err) == 0 && n == 1 &&
              hits[0].turn == 5,
          "keyword 'tokens' (stemmed) finds turn 5 alone (got %zu)", n);
    free(hits);
    hxi_memory_close(m);
}

/* === The model of the vectors === */

/* The file records the model of its vectors (name and dimension) and refuses another; a file from
 * before models were recorded (root dimension 0, no name) takes its dimension from its turns and
 * records the first model of that dimension that writes to it. */
static void test_models(void)
{
    char path[PATH_MAX + 32];
    path_in(path, sizeof path, "m.memory.hyx");
    hxi_memory *m = NULL;
    hx_error err = {0};
    const float v4[4] = {1, 0, 0, 0}, v8[8] = {0, 1};
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) == 0, "create: %s", err.message);
    if (!m)
        return;
    CHECK(hxi_memory_check_model(m, "any-model", 8, &err) == 0, "an empty file takes any model");
    vec_model = "model-a";
    vec_dim = 4;
    record(m, "s", "", "", "about pods", "scheduling", v4, NULL, NULL);
    hxi_memory_close(m);
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE, &err) == 0, "reopen: %s", err.message);
    if (!m)
        return;
    hx_turn t = {.session = "s", .user_message = "more", .relevance = NAN, .vec = v8};
    CHECK(hxi_memory_record(m, &t, "model-b", 8, NULL, NULL, &err) == HX_EINVAL && strstr(err.message, "model-a") &&
              strstr(err.message, "model-b"),
          "a turn of another model is refused naming the file's: %s", err.message);
    t.vec = v4;
    CHECK(hxi_memory_record(m, &t, "model-b", 4, NULL, NULL, &err) == HX_EINVAL && strstr(err.message, "model-a"),
          "so is one of the same dimension: %s", err.message);
    hxi_memory_hit *hits = NULL;
    size_t n = 0;
    CHECK(hxi_memory_search(m, HX_MODE_HYBRID, "pods", v8, "model-b", 8, "", "", NULL, 5, &hits, &n, &err) == HX_EINVAL &&
              strstr(err.message, "model-a") && !hits,
          "a query of another model is refused: %s", err.message);
    CHECK(hxi_memory_search(m, HX_MODE_KEYWORD, "pods", NULL, NULL, 0, "", "", NULL, 5, &hits, &n, &err) == 0 && n == 1,
          "keyword search needs no model: %s", err.message);
    free(hits);
    CHECK(hxi_memory_search(m, HX_MODE_VECTOR, "pods", v4, "model-a", 4, "", "", NULL, 5, &hits, &n, &err) == 0 &&
              n == 1 && fabsf(hits[0].cosine - 1.0f) < 1e-6f,
          "its own model searches: %s", err.message);
    free(hits);
    /* the file as hyrax wrote it before models were recorded: the root's dimension 0, no name */
    hxi_memory_close(m);
    hxi_store *w = NULL;
    const uint8_t *root;
    size_t len = 0;
    uint8_t old[24 + HX_STORE_REF_SIZE];
    CHECK(hxi_store_open(&w, path, HX_STORE_WRITE, &err) == 0, "the store: %s", err.message);
    if (w)
        hxi_store_root(w, &root, &len);
    CHECK(len == sizeof old + 4 + strlen("model-a") && !memcmp(root + sizeof old + 4, "model-a", 7),
          "the root records the model after the turn (%zu bytes)", len);
    if (len > sizeof old) {
        memcpy(old, root, sizeof old);
        hxf_put32(old + 20, 0);
        CHECK(hxi_store_commit(w, old, sizeof old, NULL, &err) == 0, "an old root: %s", err.message);
    }
    hxi_store_close(w);
    CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE, &err) == 0, "an old file opens: %s", err.message);
    if (!m)
        return;
    CHECK(hxi_memory_check_model(m, "model-b", 8, &err) == HX_EINVAL && strstr(err.message, "4 dimensions"),
          "its turns' dimension decides: %s", err.message);
    CHECK(hxi_memory_record(m, &t, "model-b", 4, NULL, NULL, &err) == 0, "a model of that dimension records: %s",
          err.message);
    hxi_memory_close(m);
    CHECK(hxi_memory_open(&m, path, HX_STORE_READ, &err) == 0 && m, "reopen: %s", err.message);
    CHECK(m && hxi_memory_check_model(m, "model-a", 4, &err) == HX_EINVAL && strstr(err.message, "model-b"),
          "and is the file's model from then on: %s", err.message);
    hxi_memory_close(m);
}

/* === Crash safety === */

/* A child records turns and reports each acknowledged id on a pipe; it is killed at a random
 * moment, mid-write or between writes. Every id it acknowledged must be in the file, which a
 * new writer opens without recovery, and each killed writer may leave at most one turn it did
 * not acknowledge (a round whose writer acknowledged nothing, as a slow start under a sanitizer
 * can make it, adds its one to the previous rounds'). */
static void test_crash(void)
{
    char path[PATH_MAX + 32];
    path_in(path, sizeof path, "c.memory.hyx");
    srand((unsigned)time(NULL));
    uint64_t last_acked = 0;
    int unacked = 0;   /* killed writers since the last acknowledged turn, this round's included */
    for (int round = 0; round < 6; round++) {
        int fds[2];
        if (pipe(fds))
            return;
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            hxi_memory *m = NULL;
            if (hxi_memory_open(&m, path, HX_STORE_WRITE | HX_STORE_CREATE, NULL))
                _exit(2);
            static char resp[3000];
            memset(resp, 'r', sizeof resp - 1);
            for (;;) {
                hx_turn t = {0}, out;
                t.session = "crash";
                t.user_message = "a question that will be asked again and again";
                t.agent_response = resp;
                t.relevance = NAN;
                if (hxi_memory_record(m, &t, NULL, 0, NULL, &out, NULL))
                    _exit(3);
                if (write(fds[1], &out.id, sizeof out.id) != sizeof out.id)
                    _exit(4);
            }
        }
        close(fds[1]);
        struct timespec ts = {0, (long)(20 + rand() % 200) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        uint64_t id, acked_before = last_acked;
        while (read(fds[0], &id, sizeof id) == sizeof id)
            last_acked = id;
        close(fds[0]);
        unacked = last_acked == acked_before ? unacked + 1 : 1;
        CHECK(WIFSIGNALED(status), "round %d: the writer was killed (status %d)", round, status);
        hxi_memory *m = NULL;
        hx_error err = {0};
        CHECK(hxi_memory_open(&m, path, HX_STORE_WRITE, &err) == 0, "round %d: reopen after kill: %s", round,
              err.message);
        if (!m)
            return;
        bool found = false;
        for (size_t i = 0; i < hxi_memory_count(m) && !found; i++)
            found = hxi_memory_turn(m, i)->id == last_acked;
        CHECK(last_acked > 0 && found, "round %d: last acknowledged turn %llu is kept", round,
              (unsigned long long)last_acked);
        uint64_t newest = hxi_memory_count(m) ? hxi_memory_turn(m, hxi_memory_count(m) - 1)->id : 0;
        CHECK(newest >= last_acked && newest <= last_acked + (uint64_t)unacked,
              "round %d: nothing but the acknowledged turns and at most one more per killed writer since "
              "(newest %llu, acked %llu, writers %d)", round, (unsigned long long)newest,
              (unsigned long long)last_acked, unacked);
        hxi_memory_close(m);
    }
}

/* === MCP tools and the command line === */

static const hxi_json_val *call(server *s, hxi_json_doc **doc, const char *name, const char *args)
{
    static int id = 10;
    char line[8192];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}", id++,
             name, args);
    send_line(s, line);
    char *out = read_line(s, 120000);
    *doc = NULL;
    CHECK(out && hxi_json_parse(doc, out, strlen(out), NULL, NULL) == 0, "%s answers JSON: %.300s", name,
          out ? out : "-");
    free(out);
    const hxi_json_val *r = *doc ? get(hxi_json_doc_root(*doc), "result") : NULL;
    CHECK(r && !hxi_json_bool(get(r, "isError")), "%s succeeds: %.300s", name,
          r ? hxi_json_str(hxi_json_arr_get(get(r, "content"), 0) ? get(hxi_json_arr_get(get(r, "content"), 0), "text") : NULL, NULL) : "-");
    return r ? get(r, "structuredContent") : NULL;
}

static void test_mcp(void)
{
    char db[PATH_MAX + 32], out_path[PATH_MAX + 32];
    path_in(db, sizeof db, "idx.hyx");
    server s;
    if (start_in(&s, dir, db, 0))
        return;
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                  "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    free(read_line(&s, 60000));
    send_line(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    hxi_json_doc *doc;
    for (size_t i = 0; i < 3; i++) {
        char args[1024];
        snprintf(args, sizeof args,
                 "{\"session_id\":\"chat-1\",\"user_message\":\"%s\",\"agent_response\":\"%s\",\"retrieved_docs\":[\"d%zu.md\"],"
                 "\"search_method\":\"hybrid\",\"relevance_score\":0.5}",
                 turn_text[i][0], turn_text[i][1], i);
        const hxi_json_val *r = call(&s, &doc, "record_turn", args);
        int64_t num = 0;
        hxi_json_num_int64(get(r, "turn_number"), &num, NULL);
        CHECK(num == (int64_t)i + 1, "record_turn %zu answers turn_number %zu (got %lld)", i, i + 1, (long long)num);
        hxi_json_doc_free(doc);
    }
    const hxi_json_val *r = call(&s, &doc, "get_session", "{\"session_id\":\"chat-1\"}");
    const hxi_json_val *turns = get(r, "turns");
    CHECK(hxi_json_len(turns) == 3, "get_session lists 3 turns (got %zu)", hxi_json_len(turns));
    for (size_t i = 0; i < hxi_json_len(turns); i++) {
        const char *um = hxi_json_str(get(hxi_json_arr_get(turns, i), "user_message"), NULL);
        CHECK(um && !strcmp(um, turn_text[i][0]), "turn %zu in order", i);
    }
    hxi_json_doc_free(doc);
    r = call(&s, &doc, "search_history", "{\"query\":\"pod placement in a cluster\",\"mode\":\"semantic\",\"top_k\":1}");
    const char *best = hxi_json_str(get(hxi_json_arr_get(get(r, "results"), 0), "user_message"), NULL);
    CHECK(best && !strcmp(best, turn_text[1][0]), "search_history finds the scheduler turn (got %s)", best ? best : "-");
    hxi_json_doc_free(doc);
    r = call(&s, &doc, "list_sessions", "{}");
    int64_t nt = 0;
    hxi_json_num_int64(get(hxi_json_arr_get(get(r, "sessions"), 0), "turns"), &nt, NULL);
    CHECK(hxi_json_len(get(r, "sessions")) == 1 && nt == 3, "list_sessions: one session of 3 turns");
    hxi_json_doc_free(doc);
    close(s.in);
    int status;
    waitpid(s.pid, &status, 0);
    close(s.out);
    free(s.buf);

    /* the command line reads the same file; another identity sees nothing */
    char cmd[3 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" history --db '%s' chat-1", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "#3") && strstr(out, "doc:   d2.md"), "history prints the turns: %s",
          out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" history --db '%s' --tenant other --json chat-1 2>/dev/null", db);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "\"total\":0"), "another tenant sees no turn (exit 1): %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" history --db '%s'", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "chat-1  3 turns"), "history lists the session: %s", out);
    free(out);
    path_in(out_path, sizeof out_path, "idx.memory.hyx");
    struct stat sb;
    CHECK(stat(out_path, &sb) == 0, "the memory file lies beside the index");
}

/* Starts serve on db as (tenant, user), with --memory-total when given, and initializes it. */
static int start_as(server *s, const char *db, const char *tenant, const char *user, const char *memory_total)
{
    const char *args[12] = {"--db", db, "--root", dir, "--threads", "1", "--tenant", tenant};
    int n = 8;
    if (user) {
        args[n++] = "--user";
        args[n++] = user;
    }
    if (memory_total) {
        args[n++] = "--memory-total";
        args[n++] = memory_total;
    }
    if (start_serve(s, args))
        return -1;
    send_line(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                 "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    free(read_line(s, 60000));
    return 0;
}

static void stop(server *s)
{
    close(s->in);
    int status;
    waitpid(s->pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "serve exits cleanly");
    close(s->out);
    free(s->buf);
}

/* Through serve, as a user would: globex/bob records 5 turns, acme records past its
 * --memory-total, and bob's session still lists its 5 turns (MCP and `hyrax history`). */
static void test_mcp_flood(void)
{
    char db[PATH_MAX + 32], args[256];
    path_in(db, sizeof db, "flood.hyx");
    server s;
    hxi_json_doc *doc;
    if (start_as(&s, db, "globex", "bob", NULL))
        return;
    for (int i = 1; i <= 5; i++) {
        snprintf(args, sizeof args, "{\"session_id\":\"diary\",\"user_message\":\"bob entry %d\"}", i);
        call(&s, &doc, "record_turn", args);
        hxi_json_doc_free(doc);
    }
    stop(&s);
    if (start_as(&s, db, "acme", NULL, "3"))
        return;
    for (int i = 1; i <= 6; i++) {
        snprintf(args, sizeof args, "{\"session_id\":\"diary\",\"user_message\":\"acme entry %d\"}", i);
        call(&s, &doc, "record_turn", args);
        hxi_json_doc_free(doc);
    }
    const hxi_json_val *r = call(&s, &doc, "get_session", "{\"session_id\":\"diary\"}");
    CHECK(hxi_json_len(get(r, "turns")) == 3, "acme keeps its newest 3 (got %zu)", hxi_json_len(get(r, "turns")));
    hxi_json_doc_free(doc);
    stop(&s);
    if (start_as(&s, db, "globex", "bob", NULL))
        return;
    r = call(&s, &doc, "get_session", "{\"session_id\":\"diary\"}");
    CHECK(hxi_json_len(get(r, "turns")) == 5, "bob's 5 acknowledged turns outlive acme's flood (got %zu)",
          hxi_json_len(get(r, "turns")));
    hxi_json_doc_free(doc);
    stop(&s);
    char cmd[3 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" history --db '%s' --tenant globex --user bob --json diary", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"total\":5") && strstr(out, "bob entry 1"),
          "hyrax history shows bob's 5 turns: %.300s", out);
    free(out);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_memory_XXXXXX";
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    test_reopen();
    test_retention();
    test_flood();
    test_tenants();
    test_crash();
    test_models();
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_error err = {0};
    CHECK(hx_model_open_default(&model, &err) == 0 && hx_encoder_new(&enc, model, 1, &err) == 0, "model: %s",
          err.message);
    if (enc)
        test_search(enc, model);
    hx_encoder_free(enc);
    hx_model_close(model);
    test_mcp();
    test_mcp_flood();
    char cmd[PATH_MAX + 16], *out;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    check_run(cmd, &out);
    free(out);
    return check_report("test_memory");
}
