/* registry_bench.c: the hyrax side of bench/registry_bench.py (issue 13). Reads queries (one per
 * line: a pgvector text vector, a tab, the keyword text) from a file, connects to the registry at
 * URL and runs each query through hxi_registry_search (one statement, RRF in hyrax) in MODE
 * (hybrid, vector or keyword), after `warm` untimed runs; prints one JSON line with the latency
 * percentiles and every query's latency in file order ("ms"). With "embed" it also times embedding
 * each query's text with the local encoder (what a search from a text pays before the registry is
 * asked); with "tenant=ROLE" it searches as that tenant (SET ROLE: row-level security applies), and
 * with "queries=N" it runs the first N queries only.
 *   registry_bench URL QUERIES_FILE K WARM MODE [embed] [tenant=ROLE] [queries=N] */
#include "hyrax.h"
#include "registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_QUERIES 10000

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *sorted, size_t n, double p)
{
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

/* Prints the JSON line for latencies t[0..n) (in query order; sorted in place afterwards). */
static void report(const char *what, const char *mode, double *t, size_t n)
{
    printf("{\"engine\":\"%s\",\"mode\":\"%s\",\"ms\":[", what, mode);
    for (size_t i = 0; i < n; i++)
        printf("%s%.3f", i ? "," : "", t[i]);
    qsort(t, n, sizeof *t, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += t[i];
    printf("],\"queries\":%zu,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"mean_ms\":%.3f}\n", n,
           pct(t, n, 0.5), pct(t, n, 0.9), pct(t, n, 0.99), t[n - 1], sum / (double)n);
}

int main(int argc, char **argv)
{
    hx_search_mode mode = HX_MODE_HYBRID;
    if (argc > 5 && !strcmp(argv[5], "vector"))
        mode = HX_MODE_VECTOR;
    else if (argc > 5 && !strcmp(argv[5], "keyword"))
        mode = HX_MODE_KEYWORD;
    else if (argc < 6 || strcmp(argv[5], "hybrid")) {
        fprintf(stderr, "usage: registry_bench URL QUERIES_FILE K WARM hybrid|vector|keyword [embed]\n");
        return 2;
    }
    int k = atoi(argv[3]), warm = atoi(argv[4]), embed = 0;
    const char *tenant = NULL;
    size_t max_queries = MAX_QUERIES;
    for (int i = 6; i < argc; i++) {
        if (!strcmp(argv[i], "embed"))
            embed = 1;
        else if (!strncmp(argv[i], "tenant=", 7))
            tenant = argv[i] + 7;
        else if (!strncmp(argv[i], "queries=", 8) && atoi(argv[i] + 8) > 0 && atoi(argv[i] + 8) < MAX_QUERIES)
            max_queries = (size_t)atoi(argv[i] + 8);
        else {
            fprintf(stderr, "registry_bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    FILE *f = fopen(argv[2], "r");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    enum { DIM = 384 };   /* the queries file's vectors: all-MiniLM-L6-v2's */
    static float vecs[MAX_QUERIES][DIM];
    static char texts[MAX_QUERIES][256];
    static double t[MAX_QUERIES];
    size_t n = 0;
    char *line = NULL;
    size_t cap = 0;
    while (n < max_queries && getline(&line, &cap, f) > 0) {
        char *tab = strchr(line, '\t'), *p = line + 1;
        if (!tab || line[0] != '[')
            continue;
        for (int j = 0; j < DIM; j++, p++)
            vecs[n][j] = strtof(p, &p);
        snprintf(texts[n], sizeof texts[n], "%.*s", (int)strcspn(tab + 1, "\n"), tab + 1);
        n++;
    }
    free(line);
    fclose(f);
    if (!n) {
        fprintf(stderr, "no queries in %s\n", argv[2]);
        return 1;
    }
    hx_error err = {0};
    hxi_registry *r = NULL;
    hxi_registry_opts ro = {.url = argv[1], .tenant = tenant};
    if (hxi_registry_connect(&r, &ro, &err)) {
        fprintf(stderr, "registry_bench: %s\n", err.message);
        return 1;
    }
    size_t total_results = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t runs = pass ? n : (size_t)warm < n ? (size_t)warm : n;
        for (size_t i = 0; i < runs; i++) {
            hxi_registry_query q = {texts[i], mode == HX_MODE_KEYWORD ? NULL : vecs[i], mode, (uint32_t)k, NULL, 0, NAN, 0, 0,
                                    "all-MiniLM-L6-v2", DIM};
            hxi_registry_results res;
            double t0 = now_ms();
            if (hxi_registry_search(r, &q, &res, &err)) {
                fprintf(stderr, "registry_bench: %s\n", err.message);
                hxi_registry_close(r);
                return 1;
            }
            if (pass) {
                t[i] = now_ms() - t0;
                total_results += res.res.n;
            }
            hxi_registry_results_free(&res);
        }
    }
    hxi_registry_close(r);
    report("hyrax hxi_registry_search", argv[5], t, n);
    fprintf(stderr, "registry_bench: %.1f results per query\n", (double)total_results / (double)n);
    if (embed) {
        hx_model *m = NULL;
        hx_encoder *enc = NULL;
        if (hx_model_open_default(&m, &err) || hx_encoder_new(&enc, m, 1, &err)) {
            fprintf(stderr, "registry_bench: %s\n", err.message);
            return 1;
        }
        float v[HX_EMBED_DIM_MAX];
        for (size_t i = 0; i < n; i++) {
            const char *s = texts[i];
            size_t len = strlen(s);
            double t0 = now_ms();
            if (hx_encoder_embed(enc, &s, &len, 1, v, &err))
                return 1;
            t[i] = now_ms() - t0;
        }
        report("hyrax query embedding (1 thread)", "embed", t, n);
        hx_encoder_free(enc);
        hx_model_close(m);
    }
    return 0;
}
