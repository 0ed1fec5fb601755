/* watch.h: a server that keeps itself current (`hyrax serve --watch`, and the HTTP server): one
 * thread follows the indexed root with the platform's change notification (inotify; platform.h),
 * or by polling the tree where there is none or its watch limit is hit, gathers the changed
 * paths until the root has been quiet for a debounce interval, and brings just those paths up to
 * date with hx_index_update (the gate and the one commit of `hyrax index`). New folders are
 * watched as they appear. What it did is kept for index_health. Spec: README "Watching". */
#ifndef HX_WATCH_H
#define HX_WATCH_H

#include "hyrax.h"
#include "json.h"
#include "stats.h"

#define HX_WATCH_DEBOUNCE_MS 300     /* quiet time before a batch runs */
#define HX_WATCH_MAX_DELAY_MS 5000   /* a batch runs at the latest this long after its first change */
#define HX_WATCH_POLL_MS 1000        /* polling fallback: how often the tree is compared */
#define HX_WATCH_MAX_PATHS 4096      /* more changed paths than this in one batch: the whole root */

typedef struct hx_watch_config {
    const char *db;                  /* the index file (copied) */
    const char *root;                /* the root for a new index (copied); an existing index's own wins */
    /* The model to embed with: may block until it is loaded; NULL when it failed (the watcher then
     * records the error and keeps the changes pending). Called on the watcher's thread. */
    const hx_model *(*model)(void *ctx);
    void *model_ctx;
    int threads;                     /* embedding threads (0 = one per core) */
    int debounce_ms, poll_ms;        /* 0: the defaults above */
    int force_poll;                  /* poll even where notification works */
    hx_stats *stats;                 /* NULL, or where each batch is counted (borrowed; outlives the watcher) */
    /* NULL, or called with take 1 before a batch opens the index writer and 0 after it closes
     * it: the server's own writers (MCP write tools) and the watcher take turns in-process
     * instead of one of them meeting HX_EBUSY. */
    void (*write_lock)(void *ctx, int take);
    void *write_ctx;
} hx_watch_config;

/* A running watcher. Caller stops and frees it with hx_watch_stop. */
typedef struct hx_watch hx_watch;

/* Starts the watcher thread; 0, or HX_ENOMEM / HX_EIO (no thread). */
int hx_watch_start(hx_watch **out, const hx_watch_config *cfg, hx_error *err);

/* Stops the thread (a batch in progress is cancelled uncommitted) and frees w; NULL is fine. */
void hx_watch_stop(hx_watch *w);

/* What the watcher did, as one JSON object into w: {"mode": "starting" until it follows the root
 * (its first batch then catches up with what changed while nobody watched), then "inotify" | "poll",
 * "root", "batches", "commits", "pending_paths", "last_batch": null | {"at", "paths", "added",
 * "updated", "removed", "rejected": [{path, reason}], "error", "generation", "seconds",
 * "lag_ms"}}, lag_ms being the longest time from a changed file's mtime to its commit. `named`
 * false (a reader identity's view) leaves "rejected" empty and "error" null: they may name any
 * file of the root. */
void hx_watch_write_health(hx_watch *w, bool named, hx_json_writer *out);

#endif
