/* bench_util.h: what the C benchmarks that read a query file share: clocks, sorting and the
 * nearest-rank quantile of timings, dying with a message, and reading the query file. Header only
 * (static inline); define BENCH_NAME (the program's name, for messages) before including it.
 * Not part of the library: benchmarks only (bench/README.md). */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include "hyrax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench_util.h"
#endif

#define MAX_QUERIES 4096

/* Milliseconds on clock c (CLOCK_MONOTONIC for wall time, CLOCK_*_CPUTIME_ID for CPU time). */
static inline double clock_ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* qsort comparator for ascending doubles. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* q-quantile (0..1) of sorted v[n], nearest rank. */
static inline double quantile(const double *v, size_t n, double q)
{
    size_t i = (size_t)(q * (double)n + 0.999999);
    return v[i == 0 ? 0 : (i > n ? n : i) - 1];
}

/* Prints "BENCH_NAME: what: message" to stderr and exits 1. */
static inline void die(const char *what, const hx_error *err)
{
    fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, what, err->message);
    exit(1);
}

/* Reads up to MAX_QUERIES non-empty lines of path into q; returns the count, at least 1 (no file
 * or no query exits 1). Lines are owned by the caller (free each). */
static inline size_t read_queries(const char *path, char **q)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s\n", BENCH_NAME, path);
        exit(1);
    }
    char line[4096];
    size_t n = 0;
    while (n < MAX_QUERIES && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] && !(q[n++] = strdup(line))) {
            fprintf(stderr, "%s: out of memory\n", BENCH_NAME);
            exit(1);
        }
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "%s: no queries in %s\n", BENCH_NAME, path);
        exit(1);
    }
    return n;
}

#endif
