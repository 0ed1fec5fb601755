/* query_bench.c: hyrax side of bench/query_bench.py. Times model + index open and the first answer,
 * then each query of a file once per mode (hybrid, vector, keyword; embedding included), one thread,
 * printing JSON lines: engine "hyrax" through hx_index_search, engine "hyrax-session" through
 * hx_session_search (the project tier, the same options), the two paths taking turns query by query
 * so both see the same machine. usage: bench/query_bench DB QUERIES [K] */
#define BENCH_NAME "query_bench"
#include "bench_util.h"

#define WARMUP 20

static void search(hx_index *ix, hx_encoder *enc, const char *query, hx_search_mode mode, uint32_t k,
                   size_t *hits)
{
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = mode;
    o.k = k;
    hx_results res;
    hx_error err;
    if (hx_index_search(ix, enc, query, strlen(query), &o, &res, &err))
        die(query, &err);
    *hits += res.n;
    hx_results_free(&res);
}

/* The same query through a session: the project index alone, hx_index_search's default options. */
static void search_session(hx_session *ses, const char *query, hx_search_mode mode, uint32_t k, size_t *hits)
{
    hx_session_query q;
    hx_session_query_init(&q, query);
    hx_search_opts_default(&q.opts);
    q.opts.mode = mode;
    q.opts.k = k;
    q.source = HX_SEARCH_PROJECT;
    hx_session_answer a;
    hx_error err;
    if (hx_session_search(ses, &q, &a, &err))
        die(query, &err);
    *hits += a.results.n;
    hx_session_answer_free(&a);
}

static void report(const char *engine, const char *mode, size_t nq, uint32_t k, double *wall, double *cpu,
                   size_t hits)
{
    double sum = 0;
    for (size_t i = 0; i < nq; i++)
        sum += wall[i];
    qsort(wall, nq, sizeof *wall, cmp_double);
    qsort(cpu, nq, sizeof *cpu, cmp_double);
    printf("{\"bench\": \"query\", \"engine\": \"%s\", \"mode\": \"%s\", \"queries\": %zu, \"k\": %u, "
           "\"p50_ms\": %.3f, \"p99_ms\": %.3f, \"mean_ms\": %.3f, \"cpu_p50_ms\": %.3f, \"cpu_p99_ms\": %.3f, "
           "\"hits_per_query\": %.2f}\n",
           engine, mode, nq, k, quantile(wall, nq, 0.5), quantile(wall, nq, 0.99), sum / (double)nq,
           quantile(cpu, nq, 0.5), quantile(cpu, nq, 0.99), (double)hits / (double)nq);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: query_bench DB QUERIES [K]\n");
        return 2;
    }
    uint32_t k = argc > 3 ? (uint32_t)atoi(argv[3]) : 10;
    static char *queries[MAX_QUERIES];
    size_t nq = read_queries(argv[2], queries);

    hx_error err;
    hx_model *model;
    hx_encoder *enc;
    hx_index *ix;
    size_t hits = 0;
    double t0 = clock_ms(CLOCK_MONOTONIC);
    if (hx_model_open_default(&model, &err))
        die("model", &err);
    if (hx_encoder_new(&enc, model, 1, &err))
        die("encoder", &err);
    double t1 = clock_ms(CLOCK_MONOTONIC);
    if (hx_index_open(&ix, argv[1], HX_INDEX_READ, model, NULL, &err))
        die(argv[1], &err);
    double t2 = clock_ms(CLOCK_MONOTONIC);
    search(ix, enc, queries[0], HX_MODE_HYBRID, k, &hits);
    double t3 = clock_ms(CLOCK_MONOTONIC);
    printf("{\"bench\": \"open\", \"engine\": \"hyrax\", \"model_open_ms\": %.3f, \"index_open_ms\": %.3f, "
           "\"first_query_ms\": %.3f, \"open_to_first_answer_ms\": %.3f}\n",
           t1 - t0, t2 - t1, t3 - t2, t3 - t0);

    hx_session *ses;
    hx_session_config sc = {.db = argv[1], .no_user_tier = true, .registry = "", .model = model, .read_only = true};
    if (hx_session_open(&ses, &sc, &err))
        die("session", &err);
    static const char *names[] = {"hybrid", "vector", "keyword"};
    static double wall[2][MAX_QUERIES], cpu[2][MAX_QUERIES];
    for (int m = 0; m < 3; m++) {
        size_t sess_hits = 0;
        for (size_t i = 0; i < WARMUP && i < nq; i++) {
            search(ix, enc, queries[i], (hx_search_mode)m, k, &hits);
            search_session(ses, queries[i], (hx_search_mode)m, k, &sess_hits);
        }
        hits = sess_hits = 0;
        for (size_t i = 0; i < nq; i++) {
            for (int e = 0; e < 2; e++) {   /* the two paths take turns, starting with each in turn */
                int which = (int)(i + (size_t)e) % 2;
                double c = clock_ms(CLOCK_THREAD_CPUTIME_ID), w = clock_ms(CLOCK_MONOTONIC);
                if (which == 0)
                    search(ix, enc, queries[i], (hx_search_mode)m, k, &hits);
                else
                    search_session(ses, queries[i], (hx_search_mode)m, k, &sess_hits);
                wall[which][i] = clock_ms(CLOCK_MONOTONIC) - w;
                cpu[which][i] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c;
            }
        }
        report("hyrax", names[m], nq, k, wall[0], cpu[0], hits);
        report("hyrax-session", names[m], nq, k, wall[1], cpu[1], sess_hits);
    }
    hx_session_close(ses);
    hx_index_close(ix);
    hx_encoder_free(enc);
    hx_model_close(model);
    for (size_t i = 0; i < nq; i++)
        free(queries[i]);
    return 0;
}
