/* pool.h: a small fixed pthreads pool that runs "task i of n" jobs for the encoder (gemm column
 * panels, attention heads). Owns its threads only; knows nothing of models. The caller's thread
 * takes part, so a pool of 1 thread starts no thread at all. */
#ifndef HX_POOL_H
#define HX_POOL_H

#include "hyrax.h"

typedef struct hx_pool hx_pool;

/* fn(ctx, task, worker) runs once for each task in [0, n_tasks); `worker` in [0, n_threads) is
 * unique among concurrently running calls (index per-thread scratch with it). */
typedef void (*hx_pool_fn)(void *ctx, int task, int worker);

/* n_threads >= 1 (the caller's thread counts as one). Caller frees with hx_pool_free. */
int hx_pool_new(hx_pool **out, int n_threads, hx_error *err);
void hx_pool_free(hx_pool *p);
int hx_pool_threads(const hx_pool *p);

/* Runs all tasks and returns when every one has finished. One caller at a time per pool. */
void hx_pool_run(hx_pool *p, int n_tasks, hx_pool_fn fn, void *ctx);

#endif
