/* pool.c: the thread pool of pool.h. Workers wait for a job by spinning a little on the job counter,
 * then sleep on a condition variable; they take tasks from a shared atomic counter; the calling
 * thread works too. Once every task is handed out the caller closes the job: it waits for the
 * workers that joined it (they hold tasks), never for one that has not started yet, which on an
 * oversubscribed machine may be waiting for a core for a whole time slice; that one finds the job
 * closed when it runs and leaves it untouched. Must not allocate or block except at creation, job
 * start and job end. */
#include "pool.h"
#include "alloc.h"
#include "platform.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POOL_MAX_THREADS 256
/* Polls of the job counter before a waiting thread sleeps: about 20-50 us, longer than the gap
 * between two steps of a short query's forward pass, far shorter than a scheduler tick. */
#define POOL_SPIN 2000
#define POOL_SPIN_HOT 200

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

/* One poll's pause: the first ones on the CPU, later ones give the core to any other runnable
 * thread (on a loaded machine the thread being waited for may be one of them). */
static void spin_pause(int i)
{
    if (i < POOL_SPIN_HOT)
        cpu_relax();
    else
        sched_yield();
}

struct hxi_pool {
    int n_threads;
    pid_t owner;                 /* the process whose threads these are: fork copies none */
    pthread_t *threads;          /* owned; n_threads - 1 workers */
    pthread_mutex_t mu;          /* guards the sleeps and wake-ups only */
    pthread_cond_t start, done;
    atomic_ulong generation;     /* bumped (under mu) for each job */
    atomic_ulong closed;         /* the last generation whose caller stopped admitting workers */
    atomic_int active;           /* workers inside a job (joined, or checking whether they may) */
    atomic_int stop;
    atomic_flag in_use;          /* held by the caller whose job the workers run */
    hxi_pool_fn fn;               /* the current job; written before generation is bumped */
    void *ctx;
    int n_tasks;
    atomic_int next;             /* next task to hand out */
    atomic_ulong jobs, short_jobs;
};

struct worker_arg {
    hxi_pool *pool;
    int id;
};

static void pool_work(hxi_pool *p, int worker)
{
    for (;;) {
        int t = atomic_fetch_add(&p->next, 1);
        if (t >= p->n_tasks)
            return;
        p->fn(p->ctx, t, worker);
    }
}

/* Waits until a new job (generation != seen) or stop; returns the generation seen. */
static unsigned long wait_job(hxi_pool *p, unsigned long seen)
{
    for (int i = 0; i < POOL_SPIN; i++) {
        unsigned long g = atomic_load(&p->generation);
        if (g != seen || atomic_load(&p->stop))
            return g;
        spin_pause(i);
    }
    pthread_mutex_lock(&p->mu);
    unsigned long g;
    while ((g = atomic_load(&p->generation)) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->start, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return g;
}

static void *pool_main(void *arg)
{
    struct worker_arg *a = arg;
    hxi_pool *p = a->pool;
    int id = a->id;
    free(a);
    unsigned long seen = 0;
    for (;;) {
        seen = wait_job(p, seen);
        if (atomic_load(&p->stop))
            break;
        /* Counted first, then the check: a caller that closed the job after this count waits for
           it; one that closed it before is seen here, and the job (fn, ctx) is not touched. */
        atomic_fetch_add(&p->active, 1);
        if (atomic_load(&p->closed) < seen)
            pool_work(p, id);
        if (atomic_fetch_sub(&p->active, 1) == 1) {   /* the last one out wakes a sleeping caller */
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
    return NULL;
}

int hxi_pool_new(hxi_pool **out, int n_threads, hx_error *err)
{
    *out = NULL;
    if (n_threads < 1 || n_threads > POOL_MAX_THREADS)
        return hx_error_set(err, HX_EINVAL, -1, "thread count %d is outside 1..%d", n_threads,
                            POOL_MAX_THREADS);
    hxi_pool *p = hx_calloc(1, sizeof *p);
    if (!p)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory creating the thread pool");
    p->threads = hx_calloc((size_t)n_threads, sizeof *p->threads);
    if (!p->threads) {
        free(p);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory creating the thread pool");
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->generation, 0);
    atomic_init(&p->closed, 0);
    atomic_init(&p->active, 0);
    atomic_init(&p->stop, 0);
    atomic_flag_clear(&p->in_use);
    atomic_init(&p->next, 0);
    atomic_init(&p->jobs, 0);
    atomic_init(&p->short_jobs, 0);
    p->owner = getpid();
    p->n_threads = 1;
    for (int i = 1; i < n_threads; i++) {
        struct worker_arg *a = hx_malloc(sizeof *a);
        if (!a) {
            hxi_pool_free(p);
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory creating the thread pool");
        }
        a->pool = p;
        a->id = i;
        if (pthread_create(&p->threads[i - 1], NULL, pool_main, a) != 0) {
            free(a);
            hxi_pool_free(p);
            return hx_error_set(err, HX_ENOMEM, -1, "cannot start thread %d of %d", i, n_threads);
        }
        p->n_threads++;
    }
    *out = p;
    return 0;
}

void hxi_pool_free(hxi_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_threads - 1 && getpid() == p->owner; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p);
}

int hxi_pool_threads(const hxi_pool *p)
{
    return p ? p->n_threads : 1;
}

hxi_pool_counts hxi_pool_get_counts(const hxi_pool *p)
{
    hxi_pool_counts c = {atomic_load(&p->jobs), atomic_load(&p->short_jobs)};
    return c;
}

void hxi_pool_run(hxi_pool *p, int n_tasks, hxi_pool_fn fn, void *ctx)
{
    if (n_tasks <= 0)
        return;
    if (p) {
        atomic_fetch_add(&p->jobs, 1);
        if (n_tasks < p->n_threads)
            atomic_fetch_add(&p->short_jobs, 1);
    }
    if (!p || p->n_threads == 1 || n_tasks == 1 || getpid() != p->owner ||
        atomic_flag_test_and_set(&p->in_use)) {
        for (int t = 0; t < n_tasks; t++)
            fn(ctx, t, 0);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store(&p->next, 0);
    pthread_mutex_lock(&p->mu);
    unsigned long g = atomic_fetch_add(&p->generation, 1) + 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    pool_work(p, 0);
    atomic_store(&p->closed, g);   /* every task is handed out: no worker joins from here on */
    for (int i = 0; i < POOL_SPIN && atomic_load(&p->active) > 0; i++)
        spin_pause(i);
    if (atomic_load(&p->active) > 0) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->active) > 0)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
    atomic_flag_clear(&p->in_use);
}

/* === The process pool === */

static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static hxi_pool *shared_pool;   /* owned by the process; never freed */
static atomic_int shared_ready;

hxi_pool *hxi_pool_shared(void)
{
    if (atomic_load(&shared_ready))
        return shared_pool;
    pthread_mutex_lock(&shared_mu);
    if (!shared_pool) {
        int n = hx_platform_cpus();
        int threads = n > HX_POOL_SHARED_MAX ? HX_POOL_SHARED_MAX : n;
        if (hxi_pool_new(&shared_pool, threads, NULL) == 0)
            atomic_store(&shared_ready, 1);
    }
    pthread_mutex_unlock(&shared_mu);
    return shared_pool;
}
