/* test_pool.c: the thread pool (pool.h): every task runs once, worker ids are unique among the
 * tasks running at the same time, also when most workers come to a job after it closed, a NULL
 * pool runs the job on the caller, concurrent callers of
 * one pool all finish (one gets the workers, the others run alone), jobs finish in a forked child,
 * the process pool is one pool,
 * and the library's compute that has no pool of its own (threaded CRC32C, the HNSW build) runs on
 * the process pool instead of starting threads of its own. */
#include "check.h"
#include "crc32c.h"
#include "hnsw.h"
#include "kernels.h"
#include "pool.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#define MAX_TASKS 1000

typedef struct job {
    atomic_int runs[MAX_TASKS];    /* times each task ran */
    atomic_int active[256];        /* tasks running now on each worker id */
    atomic_int clashes;            /* a worker id seen running two tasks at once */
    atomic_int bad_worker;
    int threads;
} job;

static void count_task(void *ctx, int task, int worker)
{
    job *j = ctx;
    if (worker < 0 || worker >= j->threads) {
        atomic_fetch_add(&j->bad_worker, 1);
        return;
    }
    if (atomic_fetch_add(&j->active[worker], 1) != 0)
        atomic_fetch_add(&j->clashes, 1);
    for (volatile int spin = 0; spin < 200; spin++)   /* long enough for tasks to overlap */
        ;
    atomic_fetch_add(&j->runs[task], 1);
    atomic_fetch_sub(&j->active[worker], 1);
}

/* Runs n tasks on p and checks each ran once on a valid, unshared worker id. */
static void run_and_check(hxi_pool *p, int n, const char *what)
{
    static job j;
    memset(&j, 0, sizeof j);
    j.threads = hxi_pool_threads(p);
    hxi_pool_run(p, n, count_task, &j);
    int wrong = 0;
    for (int t = 0; t < n; t++)
        wrong += atomic_load(&j.runs[t]) != 1;
    CHECK(wrong == 0, "%s: %d of %d tasks did not run exactly once", what, wrong, n);
    CHECK(atomic_load(&j.clashes) == 0, "%s: a worker id ran two tasks at once", what);
    CHECK(atomic_load(&j.bad_worker) == 0, "%s: worker id outside 0..%d", what, j.threads - 1);
}

static void test_run(void)
{
    static const int sizes[] = {0, 1, 2, 3, 7, 64, 999};
    for (int threads = 1; threads <= 4; threads++) {
        hxi_pool *p = NULL;
        hx_error err = {0};
        CHECK(hxi_pool_new(&p, threads, &err) == 0, "pool of %d: %s", threads, err.message);
        if (!p)
            continue;
        CHECK(hxi_pool_threads(p) == threads, "pool of %d has %d threads", threads, hxi_pool_threads(p));
        for (int rep = 0; rep < 50; rep++)   /* back to back: workers still spinning or asleep */
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                char what[64];
                snprintf(what, sizeof what, "pool of %d, %d tasks", threads, sizes[i]);
                run_and_check(p, sizes[i], what);
            }
        hxi_pool_counts c = hxi_pool_get_counts(p);
        /* 0 tasks is no job; 1, 2, 3 tasks are short on pools larger than that */
        unsigned long short_each = (unsigned long)((threads > 1) + (threads > 2) + (threads > 3));
        CHECK(c.jobs == 50 * 6, "pool of %d: %lu jobs counted, want 300", threads, c.jobs);
        CHECK(c.short_jobs == 50 * short_each, "pool of %d: %lu short jobs counted, want %lu", threads,
              c.short_jobs, 50 * short_each);
        hxi_pool_free(p);
    }
    run_and_check(NULL, 999, "NULL pool");
    CHECK(hxi_pool_threads(NULL) == 1, "a NULL pool has %d threads", hxi_pool_threads(NULL));
    hxi_pool *p = NULL;
    CHECK(hxi_pool_new(&p, 0, NULL) == HX_EINVAL && !p, "a pool of 0 threads was made");
}

/* Many tiny jobs on more threads than the machine has cores: most workers are not running when a
 * job starts, the caller closes the job without them, and they find it closed when they run. One
 * job's context is reused by the next, so a late worker that ran a task of a closed job would show
 * as a task run twice or a clash. */
static void test_late_workers(void)
{
    hxi_pool *p = NULL;
    CHECK(hxi_pool_new(&p, 8, NULL) == 0, "pool of 8");
    if (!p)
        return;
    for (int rep = 0; rep < 5000; rep++)
        run_and_check(p, 2 + rep % 3, "pool of 8, tiny jobs back to back");
    hxi_pool_free(p);
}

/* === Concurrent callers === */

typedef struct caller {
    hxi_pool *pool;
    int sum_ok;
} caller;

typedef struct sum_job {
    atomic_long sum;
} sum_job;

static void add_task(void *ctx, int task, int worker)
{
    (void)worker;
    atomic_fetch_add(&((sum_job *)ctx)->sum, task);
}

static void *caller_main(void *arg)
{
    caller *c = arg;
    c->sum_ok = 1;
    for (int rep = 0; rep < 200; rep++) {
        sum_job s;
        atomic_init(&s.sum, 0);
        hxi_pool_run(c->pool, 100, add_task, &s);
        c->sum_ok &= atomic_load(&s.sum) == 99 * 100 / 2;
    }
    return NULL;
}

static void test_concurrent_callers(void)
{
    hxi_pool *shared = hxi_pool_shared();
    CHECK(shared != NULL, "no process pool");
    CHECK(hxi_pool_shared() == shared, "the process pool changed between calls");
    if (!shared)
        return;
    CHECK(hxi_pool_threads(shared) >= 1 && hxi_pool_threads(shared) <= HX_POOL_SHARED_MAX,
          "process pool of %d threads", hxi_pool_threads(shared));
    pthread_t t[4];
    caller c[4];
    for (int i = 0; i < 4; i++) {
        c[i].pool = shared;
        CHECK(pthread_create(&t[i], NULL, caller_main, &c[i]) == 0, "caller thread %d", i);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(c[i].sum_ok, "caller %d of the shared pool got a wrong sum", i);
    }
}

/* A child forked while the pool's workers exist has none of them: its jobs must still finish. */
static void test_fork(void)
{
    hxi_pool *shared = hxi_pool_shared(), *own = NULL;
    CHECK(hxi_pool_new(&own, 2, NULL) == 0, "pool of 2");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork failed");
    if (pid == 0) {
        alarm(20);   /* a job waiting for workers that were never copied ends here */
        sum_job a, b;
        atomic_init(&a.sum, 0);
        atomic_init(&b.sum, 0);
        hxi_pool_run(shared, 100, add_task, &a);
        hxi_pool_run(own, 100, add_task, &b);
        hxi_pool_free(own);
        _exit(atomic_load(&a.sum) == 4950 && atomic_load(&b.sum) == 4950 ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "waitpid failed");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "jobs in a forked child did not finish "
          "(status %d)", status);
    hxi_pool_free(own);
}

/* === Users of the process pool === */

static void test_crc_uses_pool(void)
{
    hxi_pool *shared = hxi_pool_shared();
    if (!shared || hxi_pool_threads(shared) < 2) {
        printf("one CPU: threaded CRC runs on the caller, pool use not checked\n");
        return;
    }
    size_t len = (size_t)16 << 20;
    uint8_t *buf = malloc(len);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);
    unsigned long before = hxi_pool_get_counts(shared).jobs;
    uint32_t got = hxf_crc32c_threads(buf, len, 2);
    CHECK(got == hxf_crc32c_soft(0, buf, len), "threaded CRC differs from the reference");
    CHECK(hxi_pool_get_counts(shared).jobs == before + 1, "threaded CRC did not run as one job of the "
          "process pool (%lu jobs)", hxi_pool_get_counts(shared).jobs - before);
    free(buf);
}

static void test_hnsw_uses_pool(void)
{
    hxi_pool *shared = hxi_pool_shared();
    if (!shared || hxi_pool_threads(shared) < 2) {
        printf("one CPU: the HNSW build runs on the caller, pool use not checked\n");
        return;
    }
    enum { N = 300, D = 16 };
    static float vecs[N * D];
    static uint32_t ids[N];
    for (int i = 0; i < N; i++) {
        float norm = 0;
        for (int d = 0; d < D; d++) {
            vecs[i * D + d] = (float)((i * 7919 + d * 104729) % 1000) / 1000.0f - 0.5f;
            norm += vecs[i * D + d] * vecs[i * D + d];
        }
        for (int d = 0; d < D; d++)
            vecs[i * D + d] /= sqrtf(norm);
        ids[i] = (uint32_t)i + 1;
    }
    hxi_hnsw_params p = {.dim = D, .dot = hxi_kernels_scalar.dot, .seed = 7};
    hxi_hnsw *h = NULL;
    hx_error err = {0};
    CHECK(hxi_hnsw_new(&h, &p, &err) == 0, "hnsw new: %s", err.message);
    if (!h)
        return;
    unsigned long before = hxi_pool_get_counts(shared).jobs;
    CHECK(hxi_hnsw_add_batch(h, ids, vecs, N, 2, &err) == 0, "hnsw add: %s", err.message);
    CHECK(hxi_pool_get_counts(shared).jobs > before, "the HNSW build on 2 threads ran no job of the "
          "process pool");
    hxi_hnsw_free(h);
}

int main(void)
{
    test_run();
    test_late_workers();
    test_concurrent_callers();
    test_fork();
    test_crc_uses_pool();
    test_hnsw_uses_pool();
    return check_report("test_pool");
}
