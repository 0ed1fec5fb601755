/* embed_bench.c: the hyrax side of the embedding benchmark (bench/embed.py drives it and compares
 * with sentence-transformers and onnxruntime). Uses the public API (include/hyrax.h), plus
 * src/model/model.h for the tokenizer and src/base/cpu.h to name the kernels in use; changes no library
 * state. Spec: the embedding benchmark issue, bench/README.md. Prints JSON objects on stdout.
 *
 *   embed_bench throughput --texts F [--threads N] [--batch B] [--reps R] [--warmup W]
 *   embed_bench serve      [--threads N] [--batch B]     (stdin: "pass FILE" per timed pass)
 *   embed_bench latency    --texts F [--threads N] [--calls C] [--warmup W]
 *   embed_bench load       --texts F [--threads N]        (open + first embedding, one process)
 *   embed_bench embed      --texts F --out F.f32 [--threads N] [--batch B]
 *   embed_bench peak       [--threads N] [--reps R]       (fp32 FMA peak of this machine)
 * Common: --weights PATH (default: hx_model_default_path), --precision fp32|int8 (default fp32).
 * Texts: one per line, UTF-8. */
#include "hyrax.h"
#include "cpu.h"
#include "model.h"

#include <errno.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* === Options, clock, texts === */

typedef struct {
    const char *mode, *texts, *out, *weights;
    int threads, batch, reps, warmup, calls;
    hx_precision precision;
} opts;

typedef struct {
    char *buf;           /* whole file; lines are NUL-terminated in place. Owned. */
    const char **text;   /* [n] pointers into buf. Owned. */
    size_t *len;         /* [n] byte lengths. Owned. */
    size_t n;
} texts;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the whole process (every pool thread): what a pass costs, which a loaded shared
 * machine does not inflate as it does wall time. */
static double process_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the calling thread. */
static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A "Vm...:  N kB" line of /proc/self/status, or -1. VmHWM, not getrusage's ru_maxrss: that one
 * survives exec, so a child of a large process (the Python driver) would report the parent's. */
static long proc_status_kb(const char *field)
{
    char line[256];
    long kb = -1;
    size_t n = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':') {
            kb = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

static long rss_peak_kb(void)
{
    return proc_status_kb("VmHWM");
}

static long rss_now_kb(void)
{
    return proc_status_kb("VmRSS");
}

/* Prints "embed_bench: what: detail" and exits 1; detail is NULL for none. */
static void die(const char *what, const char *detail)
{
    fprintf(stderr, "embed_bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void usage(void)
{
    fprintf(stderr, "usage: embed_bench throughput|serve|latency|load|embed|peak --texts FILE "
                    "[--threads N] [--batch B] [--reps R] [--warmup W] [--calls C] [--out F] "
                    "[--weights PATH] [--precision fp32|int8]\n");
    exit(2);
}

static opts parse_opts(int argc, char **argv)
{
    opts o = {.threads = 1, .batch = 32, .reps = 5, .warmup = 1, .calls = 200};
    if (argc < 2)
        usage();
    o.mode = argv[1];
    for (int i = 2; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        const char *k = argv[i], *v = argv[++i];
        if (!strcmp(k, "--texts"))
            o.texts = v;
        else if (!strcmp(k, "--out"))
            o.out = v;
        else if (!strcmp(k, "--weights"))
            o.weights = v;
        else if (!strcmp(k, "--threads"))
            o.threads = atoi(v);
        else if (!strcmp(k, "--batch"))
            o.batch = atoi(v);
        else if (!strcmp(k, "--reps"))
            o.reps = atoi(v);
        else if (!strcmp(k, "--warmup"))
            o.warmup = atoi(v);
        else if (!strcmp(k, "--calls"))
            o.calls = atoi(v);
        else if (!strcmp(k, "--precision")) {
            hx_error err = {0};
            if (hx_precision_parse(v, &o.precision, &err))
                die("--precision", err.message);
        } else
            usage();
    }
    if (o.threads < 1 || o.batch < 1 || o.reps < 1 || o.warmup < 0 || o.calls < 1)
        usage();
    return o;
}

static texts read_texts(const char *path)
{
    texts t = {0};
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f)
        die(path ? path : "--texts is required", path ? strerror(errno) : NULL);
    size_t cap = 1 << 20, used = 0, got;
    t.buf = malloc(cap + 1);
    while (t.buf && (got = fread(t.buf + used, 1, cap - used, f)) > 0) {
        used += got;
        if (used == cap)
            t.buf = realloc(t.buf, (cap *= 2) + 1);
    }
    fclose(f);
    if (!t.buf)
        die("out of memory", NULL);
    t.buf[used] = '\0';
    size_t lines = 0;
    for (size_t i = 0; i < used; i++)
        lines += t.buf[i] == '\n';
    t.text = malloc((lines + 1) * sizeof *t.text);
    t.len = malloc((lines + 1) * sizeof *t.len);
    if (!t.text || !t.len)
        die("out of memory", NULL);
    for (char *p = t.buf, *end = t.buf + used; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *stop = nl ? nl : end;
        *stop = '\0';
        t.text[t.n] = p;
        t.len[t.n++] = (size_t)(stop - p);
        p = stop + 1;
    }
    if (t.n == 0)
        die(path, "no texts in file");
    return t;
}

static void free_texts(texts *t)
{
    free(t->buf);
    free(t->text);
    free(t->len);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of v[0..n), which it sorts. */
static double percentile(double *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = (size_t)(p / 100.0 * (double)n + 0.999999);
    return v[(k ? k : 1) - 1];
}

/* === Model === */

typedef struct {
    hx_model *m;
    hx_encoder *e;
    double open_s, encoder_s;
} engine;

static engine engine_open(const opts *o)
{
    engine g = {0};
    hx_error err = {0};
    char path[4096];
    const char *p = o->weights;
    double t0 = now_s();
    if (!p) {
        if (hx_model_default_path(path, sizeof path, &err) < 0)
            die("weights", err.message);
        p = path;
    }
    hx_model_opts mo = {p, o->precision};
    if (hx_model_open_opts(&g.m, &mo, &err) < 0)
        die("hx_model_open_opts", err.message);
    double t1 = now_s();
    if (hx_encoder_new(&g.e, g.m, o->threads, &err) < 0)
        die("hx_encoder_new", err.message);
    g.open_s = t1 - t0;
    g.encoder_s = now_s() - t1;
    return g;
}

static void engine_close(engine *g)
{
    hx_encoder_free(g->e);
    hx_model_close(g->m);
}

static void embed(engine *g, const texts *t, size_t i, size_t n, float *out)
{
    hx_error err = {0};
    if (hx_encoder_embed(g->e, t->text + i, t->len + i, n, out, &err) < 0)
        die("hx_encoder_embed", err.message);
}

/* Model input tokens of every text ([CLS] + pieces + [SEP], truncated at the model's longest input). */
static size_t count_tokens(const engine *g, const texts *t)
{
    const hxi_tokenizer *tok = hxi_model_tokenizer(g->m);
    const size_t max = (size_t)hx_model_max_tokens(g->m);
    size_t total = 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t pieces = hxi_tokenize(tok, t->text[i], t->len[i], NULL, NULL, 0);
        total += 2 + (pieces < max - 2 ? pieces : max - 2);
    }
    return total;
}

static void print_common(const opts *o, const engine *g)
{
    printf("\"engine\":\"hyrax\",\"mode\":\"%s\",\"threads\":%d,\"isa\":\"%s\",\"i8\":\"%s\",\"model\":\"%s\"",
           o->mode, o->threads, hxi_isa_name(hxi_cpu_isa()), hxi_kernels_i8_get()->name, hx_model_name(g->m));
}

/* === Modes === */

/* One pass over all texts in batches of `batch`; returns seconds, and the process's CPU seconds in
 * *cpu. */
static double timed_pass(engine *g, const texts *t, size_t batch, float *out, double *cpu)
{
    double t0 = now_s(), c0 = process_cpu_s();
    for (size_t i = 0; i < t->n; i += batch)
        embed(g, t, i, t->n - i < batch ? t->n - i : batch, out);
    *cpu = process_cpu_s() - c0;
    return now_s() - t0;
}

static void run_throughput(const opts *o)
{
    texts t = read_texts(o->texts);
    engine g = engine_open(o);
    float *out = malloc((size_t)o->batch * (size_t)hx_model_dim(g.m) * sizeof *out);
    double *secs = malloc((size_t)o->reps * sizeof *secs), *cpus = malloc((size_t)o->reps * sizeof *cpus);
    if (!out || !secs || !cpus)
        die("out of memory", NULL);
    for (int r = -o->warmup; r < o->reps; r++) {
        double cpu, s = timed_pass(&g, &t, (size_t)o->batch, out, &cpu);
        if (r >= 0)
            secs[r] = s, cpus[r] = cpu;
    }
    size_t tokens = count_tokens(&g, &t);
    double med = percentile(secs, (size_t)o->reps, 50), best = secs[0];
    printf("{");
    print_common(o, &g);
    printf(",\"batch\":%d,\"texts\":%zu,\"tokens\":%zu,\"reps\":%d,\"median_s\":%.6f,"
           "\"min_s\":%.6f,\"cpu_median_s\":%.6f,\"texts_per_s\":%.3f,\"tokens_per_s\":%.1f,"
           "\"rss_peak_kb\":%ld}\n", o->batch, t.n, tokens, o->reps, med, best,
           percentile(cpus, (size_t)o->reps, 50), (double)t.n / med, (double)tokens / med, rss_peak_kb());
    free(secs);
    free(cpus);
    free(out);
    engine_close(&g);
    free_texts(&t);
}

/* Keeps one model and thread pool and runs a command per stdin line, "pass FILE": one timed
 * pass over FILE's texts, printed as a JSON line. Lets the driver interleave the engines
 * repetition by repetition, so a burst of load on the machine hits all of them alike. */
static void run_serve(const opts *o)
{
    engine g = engine_open(o);
    float *out = malloc((size_t)o->batch * (size_t)hx_model_dim(g.m) * sizeof *out);
    char line[4096];
    if (!out)
        die("out of memory", NULL);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "pass ", 5)) {
            fprintf(stderr, "embed_bench: serve: unknown command '%s' (want: pass FILE)\n", line);
            exit(2);
        }
        texts t = read_texts(line + 5);
        double cpu, secs = timed_pass(&g, &t, (size_t)o->batch, out, &cpu);
        printf("{");
        print_common(o, &g);
        printf(",\"batch\":%d,\"texts\":%zu,\"tokens\":%zu,\"seconds\":%.6f,\"cpu_s\":%.6f,"
               "\"rss_peak_kb\":%ld}\n", o->batch, t.n, count_tokens(&g, &t), secs, cpu, rss_peak_kb());
        fflush(stdout);
        free_texts(&t);
    }
    free(out);
    engine_close(&g);
}

static void run_latency(const opts *o)
{
    texts t = read_texts(o->texts);
    engine g = engine_open(o);
    float out[HX_EMBED_DIM_MAX];
    /* ms: wall time per call; cpu: the calling thread's CPU time per call, which at 1 thread is the
     * whole call's work without the time a loaded machine kept it descheduled. */
    double *ms = malloc((size_t)o->calls * sizeof *ms), *cpu = malloc((size_t)o->calls * sizeof *cpu), sum = 0;
    if (!ms || !cpu)
        die("out of memory", NULL);
    for (int i = -o->warmup; i < o->calls; i++) {
        size_t k = (size_t)(i + o->warmup) % t.n;
        double t0 = now_s(), c0 = thread_cpu_s();
        embed(&g, &t, k, 1, out);
        if (i >= 0) {
            cpu[i] = (thread_cpu_s() - c0) * 1e3;
            sum += ms[i] = (now_s() - t0) * 1e3;
        }
    }
    double p50 = percentile(ms, (size_t)o->calls, 50), p99 = percentile(ms, (size_t)o->calls, 99);
    double cpu50 = percentile(cpu, (size_t)o->calls, 50);
    printf("{");
    print_common(o, &g);
    printf(",\"calls\":%d,\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"mean_ms\":%.4f,\"cpu_p50_ms\":%.4f,"
           "\"rss_peak_kb\":%ld}\n", o->calls, p50, p99, sum / o->calls, cpu50, rss_peak_kb());
    free(ms);
    free(cpu);
    engine_close(&g);
    free_texts(&t);
}

static void run_load(const opts *o)
{
    texts t = read_texts(o->texts);
    long rss0 = rss_now_kb();
    double t0 = now_s();
    engine g = engine_open(o);
    float out[HX_EMBED_DIM_MAX];
    double t1 = now_s();
    embed(&g, &t, 0, 1, out);
    double t2 = now_s();
    printf("{");
    print_common(o, &g);
    printf(",\"open_ms\":%.3f,\"encoder_new_ms\":%.3f,\"first_embed_ms\":%.3f,"
           "\"load_first_ms\":%.3f,\"rss_start_kb\":%ld,\"rss_kb\":%ld,\"rss_peak_kb\":%ld}\n",
           g.open_s * 1e3, g.encoder_s * 1e3, (t2 - t1) * 1e3, (t2 - t0) * 1e3, rss0,
           rss_now_kb(), rss_peak_kb());
    engine_close(&g);
    free_texts(&t);
}

static void run_embed(const opts *o)
{
    texts t = read_texts(o->texts);
    engine g = engine_open(o);
    const size_t dim = (size_t)hx_model_dim(g.m);
    float *out = malloc(t.n * dim * sizeof *out);
    FILE *f = o->out ? fopen(o->out, "wb") : NULL;
    if (!out || !f)
        die(o->out ? o->out : "--out is required", o->out ? strerror(errno) : NULL);
    for (size_t i = 0; i < t.n; i += (size_t)o->batch)
        embed(&g, &t, i, t.n - i < (size_t)o->batch ? t.n - i : (size_t)o->batch,
              out + i * dim);
    if (fwrite(out, sizeof *out, t.n * dim, f) != t.n * dim || fclose(f))
        die(o->out, strerror(errno));
    printf("{");
    print_common(o, &g);
    printf(",\"texts\":%zu,\"tokens\":%zu,\"out\":\"%s\"}\n", t.n, count_tokens(&g, &t), o->out);
    free(out);
    engine_close(&g);
    free_texts(&t);
}

/* === fp32 peak: independent FMA chains, enough to cover FMA latency x FMA ports === */

#define PEAK_ITERS 100000000L
#define PEAK_CHAINS 12
/* Twelve named accumulators so the compiler keeps each in a register (an array may spill). */
#define PEAK_BODY(FMA)                                                                          \
    do {                                                                                        \
        a0 = FMA(a0, m, c), a1 = FMA(a1, m, c), a2 = FMA(a2, m, c), a3 = FMA(a3, m, c);         \
        a4 = FMA(a4, m, c), a5 = FMA(a5, m, c), a6 = FMA(a6, m, c), a7 = FMA(a7, m, c);         \
        a8 = FMA(a8, m, c), a9 = FMA(a9, m, c), a10 = FMA(a10, m, c), a11 = FMA(a11, m, c);     \
    } while (0)

__attribute__((target("avx2,fma"))) static double fma_loop_avx2(long iters)
{
    __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
    __m256 a0 = _mm256_set1_ps(0), a1 = _mm256_set1_ps(1), a2 = _mm256_set1_ps(2),
           a3 = _mm256_set1_ps(3), a4 = _mm256_set1_ps(4), a5 = _mm256_set1_ps(5),
           a6 = _mm256_set1_ps(6), a7 = _mm256_set1_ps(7), a8 = _mm256_set1_ps(8),
           a9 = _mm256_set1_ps(9), a10 = _mm256_set1_ps(10), a11 = _mm256_set1_ps(11);
    for (long i = 0; i < iters; i++)
        PEAK_BODY(_mm256_fmadd_ps);
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float lanes[8];
    _mm256_storeu_ps(lanes, s);
    return (double)lanes[0];
}

__attribute__((target("avx512f"))) static double fma_loop_avx512(long iters)
{
    __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
    __m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2),
           a3 = _mm512_set1_ps(3), a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5),
           a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7), a8 = _mm512_set1_ps(8),
           a9 = _mm512_set1_ps(9), a10 = _mm512_set1_ps(10), a11 = _mm512_set1_ps(11);
    for (long i = 0; i < iters; i++)
        PEAK_BODY(_mm512_fmadd_ps);
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    return (double)_mm512_reduce_add_ps(s);
}

typedef struct {
    int lanes;          /* 16 for AVX-512, 8 for AVX2 */
    long iters;
    double sink;
} peak_job;

static void *peak_worker(void *arg)
{
    peak_job *j = arg;
    j->sink = j->lanes == 16 ? fma_loop_avx512(j->iters) : fma_loop_avx2(j->iters);
    return NULL;
}

static void run_peak(const opts *o)
{
    __builtin_cpu_init();
    int lanes = __builtin_cpu_supports("avx512f") ? 16 : 8;
    if (lanes == 8 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
        fprintf(stderr, "embed_bench: peak needs AVX2+FMA or AVX-512\n");
        exit(1);
    }
    pthread_t tid[64];
    peak_job job[64];
    int n = o->threads < 64 ? o->threads : 64;
    double best = 0;
    for (int r = -o->warmup; r < o->reps; r++) {
        double t0 = now_s();
        for (int i = 0; i < n; i++) {
            job[i] = (peak_job){.lanes = lanes, .iters = PEAK_ITERS};
            if (pthread_create(&tid[i], NULL, peak_worker, &job[i]))
                die("pthread_create", "failed");
        }
        for (int i = 0; i < n; i++)
            pthread_join(tid[i], NULL);
        double gflops = 2.0 * lanes * PEAK_CHAINS * (double)PEAK_ITERS * n / (now_s() - t0) / 1e9;
        if (r >= 0 && gflops > best)
            best = gflops;
    }
    printf("{\"engine\":\"fma_loop\",\"mode\":\"peak\",\"threads\":%d,\"isa\":\"%s\","
           "\"chains\":%d,\"reps\":%d,\"peak_gflops\":%.2f,\"sink\":%g}\n",
           n, lanes == 16 ? "avx512f" : "avx2+fma", PEAK_CHAINS, o->reps, best, job[0].sink);
}

int main(int argc, char **argv)
{
    opts o = parse_opts(argc, argv);
    if (!strcmp(o.mode, "throughput"))
        run_throughput(&o);
    else if (!strcmp(o.mode, "serve"))
        run_serve(&o);
    else if (!strcmp(o.mode, "latency"))
        run_latency(&o);
    else if (!strcmp(o.mode, "load"))
        run_load(&o);
    else if (!strcmp(o.mode, "embed"))
        run_embed(&o);
    else if (!strcmp(o.mode, "peak"))
        run_peak(&o);
    else
        usage();
    return 0;
}
