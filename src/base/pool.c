/* pool.c: the encoder's thread pool (pool.h). Workers sleep on a condition variable between jobs
 * and take tasks from a shared atomic counter; the calling thread works too and waits for the
 * stragglers. Must not allocate or block except at creation, job start and job end. */
#include "pool.h"
#include "alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct hx_pool {
    int n_threads;
    pthread_t *threads;          /* owned; n_threads - 1 workers */
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    unsigned long generation;    /* bumped for each job; guarded by mu */
    int busy;                    /* workers still inside the current job; guarded by mu */
    int stop;                    /* guarded by mu */
    hx_pool_fn fn;
    void *ctx;
    int n_tasks;
    atomic_int next;             /* next task to hand out */
};

struct worker_arg {
    hx_pool *pool;
    int id;
};

static void pool_work(hx_pool *p, int worker)
{
    for (;;) {
        int t = atomic_fetch_add(&p->next, 1);
        if (t >= p->n_tasks)
            return;
        p->fn(p->ctx, t, worker);
    }
}

static void *pool_main(void *arg)
{
    struct worker_arg *a = arg;
    hx_pool *p = a->pool;
    int id = a->id;
    free(a);
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->start, &p->mu);
        if (p->stop)
            break;
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        pool_work(p, id);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int hx_pool_new(hx_pool **out, int n_threads, hx_error *err)
{
    *out = NULL;
    if (n_threads < 1 || n_threads > 256)
        return hx_error_set(err, HX_EINVAL, -1, "thread count %d is outside 1..256", n_threads);
    hx_pool *p = hx_calloc(1, sizeof *p);
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
    atomic_init(&p->next, 0);
    p->n_threads = 1;
    for (int i = 1; i < n_threads; i++) {
        struct worker_arg *a = hx_malloc(sizeof *a);
        if (!a) {
            hx_pool_free(p);
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory creating the thread pool");
        }
        a->pool = p;
        a->id = i;
        if (pthread_create(&p->threads[i - 1], NULL, pool_main, a) != 0) {
            free(a);
            hx_pool_free(p);
            return hx_error_set(err, HX_ENOMEM, -1, "cannot start thread %d of %d", i, n_threads);
        }
        p->n_threads++;
    }
    *out = p;
    return 0;
}

void hx_pool_free(hx_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_threads - 1; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p);
}

int hx_pool_threads(const hx_pool *p)
{
    return p->n_threads;
}

void hx_pool_run(hx_pool *p, int n_tasks, hx_pool_fn fn, void *ctx)
{
    if (n_tasks <= 0)
        return;
    if (p->n_threads == 1 || n_tasks == 1) {
        for (int t = 0; t < n_tasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store(&p->next, 0);
    p->busy = p->n_threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    pool_work(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
