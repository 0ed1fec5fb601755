/* pool.h: the one thread pool of the library's compute work: a fixed set of pthreads that runs "task
 * i of n" jobs (the encoder's gemm column panels, attention heads and row blocks; the HNSW build's
 * rounds; the checksum of large images). Owns its threads only; knows nothing of models or indexes.
 * The caller's thread takes part, so a pool of 1 thread starts no thread at all.
 * Long-lived service threads are not compute and do not belong here: the MCP server's model loader
 * and request worker (server/mcp.c) stay plain pthreads, since they block on I/O for their lifetime.
 *
 * Ownership: the encoder owns a pool of the size its caller asked for (hx_encoder_new); code that
 * has no pool of its own (HNSW build, checksums) borrows the process pool, hxi_pool_shared(). */
#ifndef HX_POOL_H
#define HX_POOL_H

#include "hyrax.h"

typedef struct hxi_pool hxi_pool;

/* fn(ctx, task, worker) runs once for each task in [0, n_tasks); `worker` in [0, n_threads) is
 * unique among concurrently running calls of one job (index per-thread scratch with it). */
typedef void (*hxi_pool_fn)(void *ctx, int task, int worker);

/* n_threads >= 1 (the caller's thread counts as one). Caller frees with hxi_pool_free. */
int hxi_pool_new(hxi_pool **out, int n_threads, hx_error *err);
void hxi_pool_free(hxi_pool *p);
/* Threads a job may run on: p's size, or 1 for a NULL pool. */
int hxi_pool_threads(const hxi_pool *p);

/* Runs all tasks and returns when every one has finished. p may be NULL: the caller runs them all.
 * Any number of callers may share a pool: while one job runs, another caller runs its own job
 * alone on its thread (workers 0 only), so nested and concurrent use never deadlocks. Between
 * jobs, workers spin briefly before they sleep, so the short jobs of one query's forward pass do
 * not each pay a wake-up; and a job waits only for the workers that took part in it, not for one
 * that had not started when the caller ran out of tasks (on a machine with more runnable threads
 * than cores, that one may not run for a whole time slice). Called from a task of the same pool's
 * job, it runs inline there. In a child process forked after the pool was made (fork copies no
 * workers), every job runs on the caller alone. */
void hxi_pool_run(hxi_pool *p, int n_tasks, hxi_pool_fn fn, void *ctx);

/* The process pool: one thread per online CPU (at most HX_POOL_SHARED_MAX), started on first use
 * and kept for the life of the process. NULL when it cannot be started (out of memory, no threads); callers then
 * pass NULL to hxi_pool_run, which runs the job on the calling thread. A later call tries again. */
#define HX_POOL_SHARED_MAX 64
hxi_pool *hxi_pool_shared(void);

/* Jobs run since the pool was made, and how many of them had fewer tasks than the pool has
 * threads (so at least one thread had nothing to do): the encoder's split is tested with these. */
typedef struct hxi_pool_counts {
    unsigned long jobs, short_jobs;
} hxi_pool_counts;
hxi_pool_counts hxi_pool_get_counts(const hxi_pool *p);

#endif
