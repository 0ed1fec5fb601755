/* tiers_bench.c: the cost of a second tier (`hyrax help tiers`; issue 12: two tiers at most 1.3x one
 * tier's query time). Each query of a file is searched through hx_tiers_search over the project
 * index alone and over the project and user indexes, the two alternating which goes first, for
 * ROUNDS rounds after a warm-up, one thread, with the CLI's defaults (k 10, grouped by document,
 * relevance floor, snippets), in hybrid mode (the query embedded once either way) and in keyword
 * mode (no embedding: the search alone). hx_index_search on the project index is the one-index
 * baseline. CPU time is the process's. Prints one JSON line per mode and configuration, then the ratios.
 * usage: bench/tiers_bench PROJECT_DB USER_DB QUERIES [ROUNDS] */
#define BENCH_NAME "tiers_bench"
#include "bench_util.h"

#define WARMUP 20

enum { ONE_INDEX, ONE_TIER, TWO_TIERS, N_CONFIGS };
static const char *const config_names[] = {"index", "one_tier", "two_tiers"};

typedef struct {
    hx_index *project;
    hx_tier tiers[2];
    hx_encoder *enc;
    hx_search_opts o;
    size_t hits[N_CONFIGS], user_hits;
} bench;

/* One search in configuration c; adds its wall and thread CPU milliseconds. */
static void run(bench *b, int c, const char *q, double *wall, double *cpu)
{
    hx_results res;
    hx_error err;
    double c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_ms(CLOCK_MONOTONIC);
    int rc = c == ONE_INDEX ? hx_index_search(b->project, b->enc, q, strlen(q), &b->o, &res, &err)
                            : hx_tiers_search(b->tiers, c == ONE_TIER ? 1 : 2, b->enc, q, strlen(q), &b->o, &res, &err);
    *wall += clock_ms(CLOCK_MONOTONIC) - w0;
    *cpu += clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc)
        die(q, &err);
    b->hits[c] += res.n;
    for (size_t i = 0; c == TWO_TIERS && i < res.n; i++)
        b->user_hits += !strcmp(res.v[i].tier, HX_TIER_USER);
    hx_results_free(&res);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: tiers_bench PROJECT_DB USER_DB QUERIES [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 4 ? atoi(argv[4]) : 3;
    static char *queries[MAX_QUERIES];
    size_t nq = read_queries(argv[3], queries);
    hx_error err;
    hx_model_opts mo = {NULL, HX_PRECISION_FP32};
    if (hx_index_precision(argv[1], &mo.precision, &err))
        die(argv[1], &err);
    hx_model *model;
    bench b = {0};
    hx_index *user;
    if (hx_model_open_opts(&model, &mo, &err) || hx_encoder_new(&b.enc, model, 1, &err))
        die("model", &err);
    if (hx_index_open(&b.project, argv[1], HX_INDEX_READ, model, NULL, &err))
        die(argv[1], &err);
    if (hx_index_open(&user, argv[2], HX_INDEX_READ, model, NULL, &err))
        die(argv[2], &err);
    b.tiers[0] = (hx_tier){HX_TIER_PROJECT, b.project};
    b.tiers[1] = (hx_tier){HX_TIER_USER, user};
    hx_index_stats ps, us;
    if (hx_index_stats_get(b.project, &ps, &err) || hx_index_stats_get(user, &us, &err))
        die("stats", &err);
    printf("{\"bench\": \"tiers_setup\", \"project_chunks\": %llu, \"project_documents\": %llu, \"user_chunks\": %llu, "
           "\"user_documents\": %llu, \"precision\": \"%s\", \"queries\": %zu, \"rounds\": %d}\n",
           (unsigned long long)ps.live_chunks, (unsigned long long)ps.documents, (unsigned long long)us.live_chunks,
           (unsigned long long)us.documents, hx_precision_name(mo.precision), nq, rounds);

    static const hx_search_mode modes[] = {HX_MODE_HYBRID, HX_MODE_KEYWORD};
    static double wall[N_CONFIGS][MAX_QUERIES], cpu[N_CONFIGS][MAX_QUERIES];
    for (int m = 0; m < 2; m++) {
        hx_search_opts_default(&b.o);   /* the CLI's defaults */
        b.o.mode = modes[m];
        b.o.group = HX_GROUP_DOCUMENT;
        b.o.min_score = (float)HX_MIN_RELEVANCE;
        b.o.snippets = 1;
        double dummy_w = 0, dummy_c = 0;
        for (size_t i = 0; i < WARMUP && i < nq; i++)
            for (int c = 0; c < N_CONFIGS; c++)
                run(&b, c, queries[i], &dummy_w, &dummy_c);
        memset(wall, 0, sizeof wall);
        memset(cpu, 0, sizeof cpu);
        memset(b.hits, 0, sizeof b.hits);
        b.user_hits = 0;
        for (int r = 0; r < rounds; r++)
            for (size_t i = 0; i < nq; i++)
                for (int j = 0; j < N_CONFIGS; j++) {   /* the order turns with each query and round */
                    int c = (int)((j + i + (size_t)r) % N_CONFIGS);
                    run(&b, c, queries[i], &wall[c][i], &cpu[c][i]);
                }
        double mean_w[N_CONFIGS], mean_c[N_CONFIGS], p50_w[N_CONFIGS];
        for (int c = 0; c < N_CONFIGS; c++) {
            double sw = 0, sc = 0;
            for (size_t i = 0; i < nq; i++) {
                wall[c][i] /= rounds;
                cpu[c][i] /= rounds;
                sw += wall[c][i];
                sc += cpu[c][i];
            }
            mean_w[c] = sw / (double)nq;
            mean_c[c] = sc / (double)nq;
            qsort(wall[c], nq, sizeof wall[c][0], cmp_double);
            p50_w[c] = quantile(wall[c], nq, 0.5);
            printf("{\"bench\": \"tiers_query\", \"mode\": \"%s\", \"config\": \"%s\", \"mean_ms\": %.3f, "
                   "\"p50_ms\": %.3f, \"p95_ms\": %.3f, \"cpu_mean_ms\": %.3f, \"results_per_query\": %.2f}\n",
                   m ? "keyword" : "hybrid", config_names[c], mean_w[c], p50_w[c],
                   quantile(wall[c], nq, 0.95), mean_c[c], (double)b.hits[c] / (double)(nq * (size_t)rounds));
        }
        printf("{\"bench\": \"tiers_ratio\", \"mode\": \"%s\", \"two_over_one_mean\": %.3f, \"two_over_one_p50\": %.3f, "
               "\"two_over_one_cpu\": %.3f, \"one_tier_over_index\": %.3f, \"user_results_per_query\": %.2f, "
               "\"target\": 1.3}\n",
               m ? "keyword" : "hybrid", mean_w[TWO_TIERS] / mean_w[ONE_TIER], p50_w[TWO_TIERS] / p50_w[ONE_TIER],
               mean_c[TWO_TIERS] / mean_c[ONE_TIER], mean_w[ONE_TIER] / mean_w[ONE_INDEX],
               (double)b.user_hits / (double)(nq * (size_t)rounds));
    }
    hx_index_close(user);
    hx_index_close(b.project);
    hx_encoder_free(b.enc);
    hx_model_close(model);
    for (size_t i = 0; i < nq; i++)
        free(queries[i]);
    return 0;
}
