/* watch.c: the folder watcher (hyrax.h "Watching a root"): change notification or polling,
 * debouncing, and batches run through hx_index_update with a writer opened per batch (so `hyrax
 * index`, MCP writes and the watcher take turns on the one-writer lock). Owns the watcher thread and its health record; the
 * indexing rules (what is indexed, the gate, the commit) are hx_index_update's. */
#include "hyrax.h"
#include "platform.h"
#include "stats.h"
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WALK_DEPTH_MAX 64
#define BUSY_RETRY_MS 500

typedef struct {
    char *path;                      /* owned; root-relative */
    int64_t mtime_ns;
    int64_t size;
} file_stamp;

typedef struct {
    file_stamp *v;                   /* owned; sorted by path */
    size_t n, cap;
} snapshot;

struct hx_watch {
    char *db, *root;                 /* owned */
    char *db_dir;                    /* owned: the index file's folder, resolved */
    const char *db_name;             /* the index file's name, in db */
    hx_watch_config cfg;             /* strings point at the owned copies */
    pthread_t thread;
    int stop_pipe[2];
    _Atomic int stopping;            /* read by the progress callback */

    /* watcher thread only */
    int notify_fd;                   /* -1: polling */
    char **wd_path;                  /* owned; folder of each watch id, NULL when unused */
    size_t n_wd;
    snapshot snap;
    char **pending;                  /* owned; changed root-relative paths */
    size_t n_pending, cap_pending;
    bool pending_all;
    double first_ms, last_ms;        /* monotonic times of the batch's first and latest change */
    hx_encoder *enc;                 /* owned */

    pthread_mutex_t lock;
    hx_watch_health health;          /* under lock */
};

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* === What is not followed === */

/* The folders `hyrax index` skips (ingest.c) and the index's own files (hxi_store_owns_name: the
 * index, the files beside it -- memory, statistics -- and their temporary files). */
static bool ignored(const hx_watch *w, const char *rel)
{
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if ((n == 4 && !strncmp(p, ".git", 4)) || (n == 3 && (!strncmp(p, ".hg", 3))) ||
            (n == 4 && !strncmp(p, ".svn", 4)) || (n == 6 && !strncmp(p, ".hyrax", 6)))
            return true;
        p += n + (p[n] == '/');
    }
    char abs[2 * PATH_MAX];
    snprintf(abs, sizeof abs, "%s/%s", w->root, rel);
    char *slash = strrchr(abs, '/');
    *slash = 0;
    return !strcmp(abs, w->db_dir) && hxi_store_owns_name(w->db_name, slash + 1);
}

static int join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s%s%s", a, *a && *b ? "/" : "", b);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* === Pending paths === */

static void pending_add(hx_watch *w, const char *rel)
{
    double now = mono_ms();
    if (!w->n_pending && !w->pending_all)
        w->first_ms = now;
    w->last_ms = now;
    if (w->pending_all || ignored(w, rel))
        return;
    for (size_t i = 0; i < w->n_pending; i++)
        if (!strcmp(w->pending[i], rel))
            return;
    char *copy = NULL;
    if (w->n_pending >= HX_WATCH_MAX_PATHS || !*rel ||
        hx_grow((void **)&w->pending, &w->cap_pending, w->n_pending + 1, sizeof *w->pending, NULL) ||
        !(copy = hx_strdup(rel))) {
        w->pending_all = true;   /* too many, or no memory to list them: the whole root */
        return;
    }
    w->pending[w->n_pending++] = copy;
}

static void pending_clear(hx_watch *w)
{
    for (size_t i = 0; i < w->n_pending; i++)
        free(w->pending[i]);
    w->n_pending = 0;
    w->pending_all = false;
}

/* === Notification === */

static void add_watches(hx_watch *w, const char *rel, int depth);

static void set_wd(hx_watch *w, int wd, const char *rel)
{
    size_t need = (size_t)wd + 1;
    if (need > w->n_wd) {
        char **v = hx_realloc(w->wd_path, need * sizeof *v);
        if (!v)
            return;
        memset(v + w->n_wd, 0, (need - w->n_wd) * sizeof *v);
        w->wd_path = v;
        w->n_wd = need;
    }
    free(w->wd_path[wd]);
    w->wd_path[wd] = hx_strdup(rel);
}

/* Watch limit reached or no memory: fall back to polling for good. */
static void to_polling(hx_watch *w);

/* Watches rel and every folder under it. */
static void add_watches(hx_watch *w, const char *rel, int depth)
{
    char abs[2 * PATH_MAX];
    if (w->notify_fd < 0 || depth > WALK_DEPTH_MAX || join(abs, sizeof abs, w->root, rel))
        return;
    int wd = hxi_platform_notify_add(w->notify_fd, abs);
    if (wd == HX_ERANGE) {
        to_polling(w);
        return;
    }
    if (wd < 0)
        return;   /* gone already, or unreadable: `hyrax index` skips it too */
    set_wd(w, wd, rel);
    DIR *d = opendir(abs);
    struct dirent *e;
    while (d && w->notify_fd >= 0 && (e = readdir(d))) {
        char child[HX_RELPATH_MAX];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || join(child, sizeof child, rel, e->d_name) ||
            ignored(w, child) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
            continue;
        add_watches(w, child, depth + 1);
    }
    if (d)
        closedir(d);
}

static void on_event(void *ctx, int wd, const char *name, unsigned flags)
{
    hx_watch *w = ctx;
    if (flags & HX_NOTIFY_OVERFLOW) {
        pending_add(w, "");
        return;
    }
    if (wd < 0 || (size_t)wd >= w->n_wd || !w->wd_path[wd])
        return;
    char rel[HX_RELPATH_MAX];
    if (join(rel, sizeof rel, w->wd_path[wd], name))
        return;
    if (flags & HX_NOTIFY_GONE) {
        if (!*name) {   /* the folder itself went away: its documents go with it */
            pending_add(w, rel);
            free(w->wd_path[wd]);
            w->wd_path[wd] = NULL;
        }
        return;
    }
    if (ignored(w, rel))
        return;
    pending_add(w, rel);
    if (flags & HX_NOTIFY_DIR)
        add_watches(w, rel, 1);   /* a new folder: follow it (files made before the watch: its path is pending) */
}

/* === Polling === */

static void snapshot_free(snapshot *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].path);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int stamp_cmp(const void *a, const void *b)
{
    return strcmp(((const file_stamp *)a)->path, ((const file_stamp *)b)->path);
}

/* Every regular file under rel with its mtime and size; -1 when out of memory. */
static int walk(hx_watch *w, snapshot *s, const char *rel, int depth)
{
    char abs[2 * PATH_MAX];
    if (depth > WALK_DEPTH_MAX || join(abs, sizeof abs, w->root, rel))
        return 0;
    DIR *d = opendir(abs);
    struct dirent *e;
    int rc = 0;
    while (!rc && d && (e = readdir(d))) {
        char child[HX_RELPATH_MAX];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || join(child, sizeof child, rel, e->d_name) ||
            ignored(w, child) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
            continue;
        if (S_ISDIR(st.st_mode)) {
            rc = walk(w, s, child, depth + 1);
        } else if (S_ISREG(st.st_mode)) {
            char *p = NULL;
            if (hx_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, NULL) || !(p = hx_strdup(child)))
                rc = -1;
            else
                s->v[s->n++] = (file_stamp){p, hxi_platform_mtime_ns(&st), (int64_t)st.st_size};
        }
    }
    if (d)
        closedir(d);
    return rc;
}

/* Compares the tree with the last snapshot: every path added, removed or changed is pending. */
static void poll_tree(hx_watch *w)
{
    snapshot now = {0};
    if (walk(w, &now, "", 0)) {
        snapshot_free(&now);
        return;
    }
    qsort(now.v, now.n, sizeof *now.v, stamp_cmp);
    size_t i = 0, j = 0;
    while (i < w->snap.n || j < now.n) {
        int c = i == w->snap.n ? 1 : j == now.n ? -1 : strcmp(w->snap.v[i].path, now.v[j].path);
        if (c < 0)
            pending_add(w, w->snap.v[i++].path);
        else if (c > 0)
            pending_add(w, now.v[j++].path);
        else {
            if (w->snap.v[i].mtime_ns != now.v[j].mtime_ns || w->snap.v[i].size != now.v[j].size)
                pending_add(w, now.v[j].path);
            i++, j++;
        }
    }
    snapshot_free(&w->snap);
    w->snap = now;
}

static void to_polling(hx_watch *w)
{
    if (w->notify_fd >= 0)
        close(w->notify_fd);
    w->notify_fd = -1;
    for (size_t i = 0; i < w->n_wd; i++)
        free(w->wd_path[i]);
    free(w->wd_path);
    w->wd_path = NULL;
    w->n_wd = 0;
    pthread_mutex_lock(&w->lock);
    w->health.mode = "poll";
    pthread_mutex_unlock(&w->lock);
}

/* === Batches === */

static int batch_progress(void *ctx, size_t done, size_t total, const char *path)
{
    (void)done, (void)total, (void)path;
    return ((hx_watch *)ctx)->stopping;
}

/* The newest mtime among the pending paths that exist (files only), or 0. */
static int64_t oldest_change(hx_watch *w)
{
    int64_t oldest = 0;
    for (size_t i = 0; i < w->n_pending; i++) {
        char abs[2 * PATH_MAX];
        struct stat st;
        if (!join(abs, sizeof abs, w->root, w->pending[i]) && !lstat(abs, &st) && S_ISREG(st.st_mode)) {
            int64_t m = hxi_platform_mtime_ns(&st);
            if (!oldest || m < oldest)
                oldest = m;
        }
    }
    return oldest;
}

/* A path that no longer exists becomes its nearest existing folder (an update of a folder removes
 * the documents of files gone from it); then paths inside another pending folder are dropped. */
static void settle_pending(hx_watch *w)
{
    for (size_t i = 0; i < w->n_pending; i++) {
        char abs[2 * PATH_MAX];
        struct stat st;
        char *p = w->pending[i];
        while (*p && (join(abs, sizeof abs, w->root, p) || lstat(abs, &st))) {
            char *slash = strrchr(p, '/');
            if (slash)
                *slash = 0;
            else
                *p = 0;
        }
        if (!*p)
            w->pending_all = true;
    }
    size_t kept = 0;
    for (size_t i = 0; i < w->n_pending; i++) {
        bool inside = false;
        for (size_t j = 0; j < w->n_pending && !inside; j++) {
            size_t n = strlen(w->pending[j]);
            inside = j != i && ((!strncmp(w->pending[i], w->pending[j], n) && w->pending[i][n] == '/') ||
                                (!strcmp(w->pending[i], w->pending[j]) && j < i));
        }
        if (inside)
            free(w->pending[i]);
        else
            w->pending[kept++] = w->pending[i];
    }
    w->n_pending = kept;
}

/* Runs the pending batch. Returns 0 when it ran (committed, nothing to commit, or failed for good:
 * the paths are dropped and the error kept), 1 when the writer is busy (retry later). */
static int run_batch(hx_watch *w)
{
    hx_error err = {0};
    const hx_model *model = w->cfg.model ? w->cfg.model(w->cfg.model_ctx) : NULL;
    char error[512] = "";
    hx_update_report rep = {0};
    hx_index *ix = NULL;
    int64_t oldest = oldest_change(w);
    double t0 = mono_ms();
    settle_pending(w);
    if (!model)
        snprintf(error, sizeof error, "the model is not loaded");
    else if (!w->enc && hx_encoder_new(&w->enc, model, w->cfg.threads, &err))
        snprintf(error, sizeof error, "cannot start the encoder: %s", err.message);
    if (model && w->enc) {
        if (w->cfg.write_lock)
            w->cfg.write_lock(w->cfg.write_ctx, 1);
        if (hx_index_open(&ix, w->db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, w->root, &err)) {
            if (w->cfg.write_lock)
                w->cfg.write_lock(w->cfg.write_ctx, 0);
            if (err.code == HX_EBUSY)
                return 1;   /* another process writes: retry later */
            snprintf(error, sizeof error, "cannot open %s for writing: %s", w->db, err.message);
        } else {
            const char *all = "";
            const char *const *paths = w->pending_all ? &all : (const char *const *)w->pending;
            size_t n = w->pending_all ? 1 : w->n_pending;
            hx_update_opts o = {0};
            o.encoder = w->enc;
            o.progress = batch_progress;
            o.progress_ctx = w;
            if (hx_index_update(ix, paths, n, &o, &rep, &err))
                snprintf(error, sizeof error, "%s", err.message);
        }
    }
    hx_index_stats st = {0};
    if (ix) {
        hx_index_stats_get(ix, &st, NULL);
        hx_index_close(ix);
        if (w->cfg.write_lock)
            w->cfg.write_lock(w->cfg.write_ctx, 0);
    }
    double lag_ms = !error[0] && oldest && st.committed_ns > oldest ? (double)(st.committed_ns - oldest) / 1e6 : 0;
    pthread_mutex_lock(&w->lock);
    w->health.batches++;
    w->health.commits += !error[0] && (rep.added || rep.updated || rep.removed);
    w->health.have_last = true;
    w->health.last_at_ns = now_ns();
    w->health.last_paths = w->pending_all ? 0 : w->n_pending;
    w->health.last_added = rep.added;
    w->health.last_updated = rep.updated;
    w->health.last_removed = rep.removed;
    w->health.n_last_rejected = 0;
    for (size_t i = 0; i < rep.n_rejected && i < HX_WATCH_REJECTS_KEPT; i++, w->health.n_last_rejected++) {
        snprintf(w->health.last_rejected[i][0], sizeof w->health.last_rejected[i][0], "%s", rep.rejected[i].path);
        snprintf(w->health.last_rejected[i][1], sizeof w->health.last_rejected[i][1], "%s", rep.rejected[i].reason);
    }
    snprintf(w->health.last_error, sizeof w->health.last_error, "%s", error);
    w->health.last_generation = st.generation;
    w->health.last_seconds = (mono_ms() - t0) / 1e3;
    w->health.last_lag_ms = lag_ms;
    pthread_mutex_unlock(&w->lock);
    hx_stats_note_update(w->cfg.stats, &rep, error[0] ? error : NULL, lag_ms);
    hx_update_report_clear(&rep);
    return 0;
}

/* === The thread === */

static void *watch_main(void *arg)
{
    hx_watch *w = arg;
    w->notify_fd = w->cfg.force_poll ? -1 : hxi_platform_notify_open();
    add_watches(w, "", 0);
    if (w->notify_fd < 0 && walk(w, &w->snap, "", 0) == 0)
        qsort(w->snap.v, w->snap.n, sizeof *w->snap.v, stamp_cmp);
    pending_add(w, "");   /* first catch up with what changed while nobody watched */
    pthread_mutex_lock(&w->lock);
    w->health.mode = w->notify_fd >= 0 ? "inotify" : "poll";   /* following from here on */
    pthread_mutex_unlock(&w->lock);
    int debounce = w->cfg.debounce_ms > 0 ? w->cfg.debounce_ms : HX_WATCH_DEBOUNCE_MS;
    int poll_ms = w->cfg.poll_ms > 0 ? w->cfg.poll_ms : HX_WATCH_POLL_MS;
    double next_poll = mono_ms() + poll_ms, retry_at = 0;
    while (!w->stopping) {
        double now = mono_ms();
        bool have = w->n_pending || w->pending_all;
        double due = have ? (w->last_ms + debounce < w->first_ms + HX_WATCH_MAX_DELAY_MS ? w->last_ms + debounce
                                                                                       : w->first_ms + HX_WATCH_MAX_DELAY_MS)
                          : 0;
        if (have && retry_at > due)
            due = retry_at;
        double wake = w->notify_fd < 0 ? next_poll : have ? due : now + 60000;
        if (have && due < wake)
            wake = due;
        int timeout = wake > now ? (int)(wake - now) + 1 : 0;
        struct pollfd p[2] = {{w->stop_pipe[0], POLLIN, 0}, {w->notify_fd, POLLIN, 0}};
        int n = poll(p, w->notify_fd >= 0 ? 2 : 1, timeout);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && p[0].revents)
            break;
        if (w->notify_fd >= 0 && n > 0 && p[1].revents && hxi_platform_notify_read(w->notify_fd, on_event, w) < 0)
            to_polling(w);
        now = mono_ms();
        if (w->notify_fd < 0 && now >= next_poll) {
            if (!w->snap.v && !w->snap.n && walk(w, &w->snap, "", 0) == 0)   /* just fell back: take the tree */
                qsort(w->snap.v, w->snap.n, sizeof *w->snap.v, stamp_cmp);
            else
                poll_tree(w);
            next_poll = now + poll_ms;
        }
        pthread_mutex_lock(&w->lock);
        w->health.pending_paths = w->pending_all ? HX_WATCH_MAX_PATHS : w->n_pending;
        pthread_mutex_unlock(&w->lock);
        have = w->n_pending || w->pending_all;
        double quiet_due = w->last_ms + debounce, max_due = w->first_ms + HX_WATCH_MAX_DELAY_MS;
        if (have && (now >= quiet_due || now >= max_due) && now >= retry_at) {
            if (run_batch(w) == 1) {
                retry_at = now + BUSY_RETRY_MS;
            } else {
                pending_clear(w);
                retry_at = 0;
                pthread_mutex_lock(&w->lock);
                w->health.pending_paths = 0;
                pthread_mutex_unlock(&w->lock);
            }
        }
    }
    return NULL;
}

int hx_watch_start(hx_watch **out, const hx_watch_config *cfg, hx_error *err)
{
    *out = NULL;
    hx_watch *w = hx_calloc(1, sizeof *w);
    if (!w)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory starting the watcher");
    w->cfg = *cfg;
    w->notify_fd = -1;
    w->stop_pipe[0] = w->stop_pipe[1] = -1;
    w->health.mode = "starting";
    pthread_mutex_init(&w->lock, NULL);
    w->db = hx_strdup(cfg->db);
    hx_index *ix = NULL;   /* an existing index's root is the one to follow */
    if (!hx_index_open(&ix, cfg->db, HX_INDEX_READ, NULL, NULL, NULL))
        w->root = hx_strdup(hx_index_root(ix));
    else
        w->root = hx_strdup(cfg->root ? cfg->root : ".");
    w->health.root = w->root;
    hx_index_close(ix);
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(cfg->db, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - cfg->db) : 1, slash ? cfg->db : ".");
    w->db_dir = hx_strdup(realpath(*dir ? dir : "/", real) ? real : dir);
    if (!w->db || !w->root || !w->db_dir || pipe(w->stop_pipe)) {
        hx_watch_stop(w);
        return hx_error_set(err, HX_ENOMEM, -1, "cannot start the watcher");
    }
    w->db_name = strrchr(w->db, '/') ? strrchr(w->db, '/') + 1 : w->db;
    w->cfg.db = w->db;
    w->cfg.root = w->root;
    if (pthread_create(&w->thread, NULL, watch_main, w)) {
        w->thread = 0;
        close(w->stop_pipe[0]);
        close(w->stop_pipe[1]);
        w->stop_pipe[0] = w->stop_pipe[1] = -1;
        hx_watch_stop(w);
        return hx_error_set(err, HX_EIO, -1, "cannot start the watcher thread");
    }
    *out = w;
    return 0;
}

void hx_watch_stop(hx_watch *w)
{
    if (!w)
        return;
    if (w->stop_pipe[1] >= 0) {
        w->stopping = 1;
        char b = 1;
        ssize_t n = write(w->stop_pipe[1], &b, 1);
        (void)n;
        pthread_join(w->thread, NULL);
        close(w->stop_pipe[0]);
        close(w->stop_pipe[1]);
    }
    if (w->notify_fd >= 0)
        close(w->notify_fd);
    for (size_t i = 0; i < w->n_wd; i++)
        free(w->wd_path[i]);
    free(w->wd_path);
    snapshot_free(&w->snap);
    pending_clear(w);
    free(w->pending);
    hx_encoder_free(w->enc);
    pthread_mutex_destroy(&w->lock);
    free(w->db);
    free(w->root);
    free(w->db_dir);
    free(w);
}

void hx_watch_health_get(hx_watch *w, hx_watch_health *out)
{
    pthread_mutex_lock(&w->lock);
    *out = w->health;
    pthread_mutex_unlock(&w->lock);
}
