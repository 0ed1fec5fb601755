/* hnsw_bench.c: builds hyrax's HNSW index over a raw float32 vector file and queries it at several
 * ef values; prints one `key=value` line per measurement for bench/hnsw_peers.py, which runs
 * hnswlib and faiss on the same files and prints the ratios. Touches nothing outside its outputs.
 *
 * usage: hnsw_bench --dir D [--dim 384] [--M 16] [--efc 200] [--threads 2] [--seed 1]
 *                   [--ef 10,16,...] [--k 10] [--reps 1] [--stdin]
 * D holds base.f32 (n x dim), query.f32 (nq x dim) and gt.u32 (nq x 100 true neighbour rows,
 * best first), as written by `hnsw_peers.py gen`. Queries run on one thread, one at a time; each
 * ef's pass over the queries runs --reps times and the fastest counts (load only slows a pass).
 * With --stdin, after the build it reads one ef per line and answers each with one pass, so that
 * bench/hnsw_peers.py can interleave the engines' passes. */
#include "kernels.h"
#include "hnsw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GT_DEPTH 100

/* Wall time, and CPU time of the whole process (all threads): on a shared machine the CPU time
 * is the steadier measure, so both are printed. */
static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* Reads a whole file; caller frees. */
static void *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "hnsw_bench: cannot open %s (run bench/hnsw_peers.py gen first)\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "hnsw_bench: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

typedef struct bench {
    const hxi_hnsw *h;
    const float *query;
    const uint32_t *gt;
    size_t nq;
    unsigned dim, k;
    hxi_hnsw_hit *hits;
} bench;

/* Every query at this ef, `reps` times; prints one line with the fastest pass. */
static int pass(bench *b, unsigned ef, unsigned reps)
{
    size_t found = 0, visited = 0;
    double secs = INFINITY, cpu_secs = INFINITY;
    hx_error err = {0};
    for (unsigned r = 0; r < reps; r++) {
        found = visited = 0;
        double t1 = now(), c1 = cpu();
        for (size_t qi = 0; qi < b->nq; qi++) {
            hxi_hnsw_query q = {.vector = b->query + qi * b->dim, .k = b->k, .ef = ef, .exact_below = 1};
            uint32_t got;
            hxi_hnsw_search_info info;
            if (hxi_hnsw_search(b->h, &q, b->hits, &got, &info, &err)) {
                fprintf(stderr, "hnsw_bench: %s\n", err.message);
                return 1;
            }
            visited += info.visited;
            const uint32_t *truth = b->gt + qi * GT_DEPTH;
            for (uint32_t j = 0; j < got; j++)
                for (unsigned t = 0; t < b->k; t++)
                    if (b->hits[j].id == truth[t]) {
                        found++;
                        break;
                    }
        }
        secs = fmin(secs, now() - t1);
        cpu_secs = fmin(cpu_secs, cpu() - c1);
    }
    printf("engine=hyrax ef=%u recall=%.4f qps=%.1f qps_cpu=%.1f dist_per_query=%.0f\n", ef,
           (double)found / (double)(b->nq * b->k), (double)b->nq / secs, (double)b->nq / cpu_secs,
           (double)visited / (double)b->nq);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *efs = "10,16,24,32,48,64,96,128,192,256";
    unsigned dim = 384, M = 16, efc = 200, threads = 2, k = 10, reps = 1;
    unsigned long long seed = 1;
    int from_stdin = 0;
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--stdin")) {
            from_stdin = 1;
            i--;
            continue;
        }
        if (!strcmp(a, "--dir")) dir = v;
        else if (!strcmp(a, "--dim")) dim = (unsigned)atoi(v);
        else if (!strcmp(a, "--M")) M = (unsigned)atoi(v);
        else if (!strcmp(a, "--efc")) efc = (unsigned)atoi(v);
        else if (!strcmp(a, "--threads")) threads = (unsigned)atoi(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--ef")) efs = v;
        else if (!strcmp(a, "--k")) k = (unsigned)atoi(v);
        else if (!strcmp(a, "--reps")) reps = (unsigned)atoi(v);
        else {
            fprintf(stderr, "hnsw_bench: unknown option %s\n", a);
            return 2;
        }
    }
    if (!dir || dim == 0 || k == 0 || k > GT_DEPTH || reps == 0) {
        fprintf(stderr, "usage: hnsw_bench --dir D [--dim 384] [--M 16] [--efc 200] [--threads 2] "
                        "[--seed 1] [--ef 10,16,...] [--k 10] [--reps 1] [--stdin]\n");
        return 2;
    }
    size_t lb, lq, lg;
    float *base = slurp(dir, "base.f32", &lb), *query = slurp(dir, "query.f32", &lq);
    uint32_t *gt = slurp(dir, "gt.u32", &lg);
    size_t n = lb / (4 * (size_t)dim), nq = lq / (4 * (size_t)dim);
    if (lg != nq * GT_DEPTH * 4) {
        fprintf(stderr, "hnsw_bench: gt.u32 has %zu bytes, %zu expected\n", lg, nq * GT_DEPTH * 4);
        return 2;
    }
    uint32_t *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++)
        ids[i] = (uint32_t)i;

    hx_error err = {0};
    hxi_hnsw *h = NULL;
    hxi_hnsw_params p = {.dim = dim, .dot = hxi_kernels_get()->dot, .M = M, .ef_construction = efc, .seed = seed};
    if (hxi_hnsw_new(&h, &p, &err)) {
        fprintf(stderr, "hnsw_bench: %s\n", err.message);
        return 1;
    }
    double t0 = now(), c0 = cpu();
    if (hxi_hnsw_add_batch(h, ids, base, n, (int)threads, &err)) {
        fprintf(stderr, "hnsw_bench: %s\n", err.message);
        return 1;
    }
    double build_s = now() - t0, build_cpu_s = cpu() - c0;
    size_t graph_bytes;
    hxi_hnsw_serialize(h, NULL, 0, &graph_bytes, &err);
    printf("engine=hyrax n=%zu dim=%u M=%u efc=%u threads=%u build_s=%.3f build_cpu_s=%.3f graph_bytes_per_vec=%.1f "
           "bytes_per_vec=%.1f\n", n, dim, M, efc, threads, build_s, build_cpu_s, (double)graph_bytes / (double)n,
           (double)graph_bytes / (double)n + 4.0 * dim);
    fflush(stdout);

    bench b = {h, query, gt, nq, dim, k, malloc(k * sizeof *b.hits)};
    if (from_stdin) {   /* one pass per line "EF", until end of input */
        char line[64];
        while (fgets(line, sizeof line, stdin))
            if (pass(&b, (unsigned)strtoul(line, NULL, 10), 1))
                return 1;
    }
    for (const char *e = efs; *e && !from_stdin;) {
        unsigned ef = (unsigned)strtoul(e, (char **)&e, 10);
        if (*e == ',')
            e++;
        if (ef == 0)
            break;
        if (pass(&b, ef, reps))
            return 1;
    }
    free(b.hits);
    hxi_hnsw_free(h);
    free(ids);
    free(base);
    free(query);
    free(gt);
    return 0;
}
