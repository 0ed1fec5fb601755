/* bm25_bench.c: keyword search throughput of hyrax's BM25 index on one thread. Reads every .md and
 * .yaml file under a folder as one document, builds one segment, then runs a query file (one query
 * a line) repeatedly for top-k. Touches only src/bm25.h's API; peers run in bench/bm25_peers.py.
 * Usage: bench/bm25_bench [DIR] [QUERIES] [K] [SECONDS] [CHUNK] [--stdin]; CHUNK > 0 cuts each file
 * into documents of about CHUNK bytes at whitespace (chunker-like). Prints key=value lines (qps from
 * wall time, cpu_qps from this process's CPU time, steadier on a loaded machine). Without --stdin it
 * times one pass of SECONDS per mode (maxscore, exhaustive); with it, after the build it reads one
 * mode a line and answers each with one pass, so that bm25_peers.py can interleave the engines. */
#include "bm25.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct docs {
    char **path;  /* owned */
    size_t n, cap;
} docs;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static void walk(docs *d, const char *dir)
{
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (name[0] != '.' && stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                walk(d, path);
            } else if (ends_with(name, ".md") || ends_with(name, ".yaml")) {
                if (d->n == d->cap) {
                    d->cap = d->cap ? d->cap * 2 : 256;
                    d->path = realloc(d->path, d->cap * sizeof *d->path);
                }
                d->path[d->n++] = strdup(path);
            }
        }
        free(ents[i]);
    }
    free(ents);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        *len = (size_t)n;
    }
    return b;
}

/* The queries and what one timed pass needs. */
typedef struct bench {
    hxi_bm25_segment seg;
    hxi_bm25_query **qs;
    size_t nq, k;
    double seconds;
    hxi_bm25_hit *hits;
} bench;

/* Runs every query repeatedly for b->seconds in one mode and prints the pass's line. */
static int pass(const bench *b, int exhaustive)
{
    hxi_bm25_params p;
    hxi_bm25_params_default(&p);
    p.exhaustive = exhaustive;
    hx_error err;
    size_t runs = 0, total_hits = 0;
    double start = now(), cpu_start = cpu_now(), el;
    double checksum = 0;
    do {
        for (size_t i = 0; i < b->nq; i++) {
            size_t n;
            if (hxi_bm25_search(&b->seg, 1, b->qs[i], &p, b->k, b->hits, &n, &err)) {
                fprintf(stderr, "search: %s\n", err.message);
                return 1;
            }
            total_hits += n;
            if (n)
                checksum += b->hits[0].score;
        }
        runs++;
        el = now() - start;
    } while (el < b->seconds);
    double cpu = cpu_now() - cpu_start, n = (double)(runs * b->nq);
    printf("bm25_bench engine=hyrax mode=%s queries=%zu k=%zu runs=%zu qps=%.1f cpu_qps=%.1f mean_us=%.1f "
           "hits_per_query=%.2f top1_sum=%.4f\n",
           exhaustive ? "exhaustive" : "maxscore", b->nq, b->k, runs, n / el, n / cpu, el * 1e6 / n,
           (double)total_hits / n, checksum / (double)runs);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    int from_stdin = argc > 1 && !strcmp(argv[argc - 1], "--stdin");
    argc -= from_stdin;
    const char *dir = argc > 1 ? argv[1] : "/work/shared/corpora/keps";
    const char *qfile = argc > 2 ? argv[2] : "bench/bm25_queries.txt";
    size_t k = argc > 3 ? (size_t)atoi(argv[3]) : 10;
    double seconds = argc > 4 ? atof(argv[4]) : 3.0;
    size_t chunk = argc > 5 ? (size_t)atol(argv[5]) : 0;
    uint32_t next_id = 0;
    hx_error err;
    docs d = {0};
    walk(&d, dir);
    hxi_bm25_builder *b;
    if (hxi_bm25_builder_new(&b, HX_ANALYZER_EXACT, &err))
        return 1;
    size_t bytes = 0;
    double t0 = now();
    for (size_t i = 0; i < d.n; i++) {
        size_t len;
        char *text = slurp(d.path[i], &len);
        if (!text)
            continue;
        bytes += len;
        for (size_t at = 0; at < len || (at == 0 && len == 0);) {
            size_t end = chunk && len - at > chunk ? at + chunk : len;
            while (end < len && text[end] != ' ' && text[end] != '\n')
                end++;
            if (hxi_bm25_builder_add(b, next_id++, text + at, end - at, &err)) {
                fprintf(stderr, "add %s: %s\n", d.path[i], err.message);
                return 1;
            }
            if (end == len)
                break;
            at = end;
        }
        free(text);
    }
    uint8_t *blob;
    size_t blob_len;
    if (hxi_bm25_builder_finish(b, &blob, &blob_len, &err)) {
        fprintf(stderr, "finish: %s\n", err.message);
        return 1;
    }
    double t_build = now() - t0;
    hxi_bm25_builder_free(b);
    hxi_bm25_reader r;
    if (hxi_bm25_reader_open(&r, blob, blob_len, &err)) {
        fprintf(stderr, "open: %s\n", err.message);
        return 1;
    }
    printf("bm25_bench files=%zu docs=%u chunk=%zu bytes=%zu terms=%u index_bytes=%zu build_s=%.3f\n", d.n,
           r.n_docs, chunk, bytes, r.n_terms, blob_len, t_build);

    size_t qlen;
    char *qtext = slurp(qfile, &qlen);
    if (!qtext) {
        fprintf(stderr, "cannot read %s\n", qfile);
        return 1;
    }
    hxi_bm25_query *qs[4096];
    size_t nq = 0;
    for (char *line = qtext; *line && nq < 4096;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (n && hxi_bm25_query_parse(&qs[nq], HX_ANALYZER_EXACT, line, n, &err) == 0)
            nq++;
        line += n + (nl != NULL);
    }
    bench run = {{.reader = &r}, qs, nq, k, seconds, malloc(k * sizeof *run.hits)};
    fflush(stdout);
    if (from_stdin) {   /* one pass per line "maxscore" or "exhaustive", until end of input */
        char line[64];
        while (fgets(line, sizeof line, stdin))
            if (pass(&run, !strncmp(line, "exhaustive", 10)))
                return 1;
    } else if (pass(&run, 0) || pass(&run, 1)) {
        return 1;
    }
    for (size_t i = 0; i < nq; i++)
        hxi_bm25_query_free(qs[i]);
    free(run.hits);
    free(qtext);
    free(blob);
    for (size_t i = 0; i < d.n; i++)
        free(d.path[i]);
    free(d.path);
    return 0;
}
