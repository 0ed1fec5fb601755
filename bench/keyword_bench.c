/* keyword_bench.c: keyword search time and answers over one index (public API, one thread, no
 * model): every query of a file searched in keyword mode (k results, snippets, as `hyrax search`
 * asks for them) once untimed, then ROUNDS timed passes; prints one JSON line with the p50, p95
 * and mean of wall and thread CPU time per query. With --dump FILE it writes each query's results
 * (path, chunk index, score, relevance and BM25 score as hex floats, snippet) so two builds'
 * answers can be compared byte for byte. Run it under `valgrind --tool=callgrind` with --rounds 1 for instruction
 * counts, which a loaded machine does not move.
 * usage: bench/keyword_bench DB QUERIES [--k K] [--rounds N] [--dump FILE] */
#define BENCH_NAME "keyword_bench"
#include "bench_util.h"

static void search(hx_index *ix, const char *query, uint32_t k, FILE *dump)
{
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = HX_MODE_KEYWORD;
    o.k = k;
    o.snippets = 1;
    hx_results res;
    hx_error err;
    if (hx_index_search(ix, NULL, query, strlen(query), &o, &res, &err))
        die(query, &err);
    for (size_t i = 0; dump && i < res.n; i++) {
        fprintf(dump, "%s\t%zu\t%s\t%u\t%a\t%a\t%a\t", query, i + 1, res.v[i].path, res.v[i].chunk_index,
                (double)res.v[i].score, (double)res.v[i].relevance, (double)res.v[i].keyword_score);
        for (const char *c = res.v[i].snippet ? res.v[i].snippet : ""; *c; c++)
            fputc(*c == '\n' || *c == '\t' ? ' ' : *c, dump);
        fputc('\n', dump);
    }
    hx_results_free(&res);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: keyword_bench DB QUERIES [--k K] [--rounds N] [--dump FILE]\n");
        return 2;
    }
    uint32_t k = 10;
    int rounds = 5;
    FILE *dump = NULL;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--k"))
            k = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--dump") && !(dump = fopen(argv[i + 1], "w"))) {
            fprintf(stderr, "keyword_bench: cannot write %s\n", argv[i + 1]);
            return 1;
        }
    }
    static char *queries[MAX_QUERIES];
    size_t nq = read_queries(argv[2], queries);
    hx_error err;
    hx_index *ix;
    if (hx_index_open(&ix, argv[1], HX_INDEX_READ, NULL, NULL, &err))
        die(argv[1], &err);
    for (size_t i = 0; i < nq; i++)   /* warm-up, and the answers */
        search(ix, queries[i], k, dump);
    if (dump)
        fclose(dump);
    size_t n = nq * (size_t)(rounds > 0 ? rounds : 0);
    double *wall = malloc(sizeof *wall * (n ? n : 1)), *cpu = malloc(sizeof *cpu * (n ? n : 1)), sum = 0;
    if (!wall || !cpu) {
        fprintf(stderr, "keyword_bench: out of memory\n");
        return 1;
    }
    for (size_t j = 0; j < n; j++) {
        double c = clock_ms(CLOCK_THREAD_CPUTIME_ID), w = clock_ms(CLOCK_MONOTONIC);
        search(ix, queries[j % nq], k, NULL);
        wall[j] = clock_ms(CLOCK_MONOTONIC) - w;
        cpu[j] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c;
        sum += wall[j];
    }
    if (n) {
        qsort(wall, n, sizeof *wall, cmp_double);
        qsort(cpu, n, sizeof *cpu, cmp_double);
        printf("{\"bench\": \"keyword\", \"queries\": %zu, \"rounds\": %d, \"k\": %u, \"p50_ms\": %.4f, "
               "\"p95_ms\": %.4f, \"mean_ms\": %.4f, \"cpu_p50_ms\": %.4f, \"cpu_p95_ms\": %.4f}\n",
               nq, rounds, k, quantile(wall, n, 0.5), quantile(wall, n, 0.95), sum / (double)n,
               quantile(cpu, n, 0.5), quantile(cpu, n, 0.95));
    }
    hx_index_close(ix);
    free(wall);
    free(cpu);
    for (size_t i = 0; i < nq; i++)
        free(queries[i]);
    return 0;
}
