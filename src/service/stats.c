/* stats.c: the counts of stats.h, their encoding in the statistics file, merging, flushing (a
 * background thread for serve) and the JSON and Prometheus views. Owns the root layout in
 * stats.h; nothing of the index file. */
#include "stats.h"

#include "alloc.h"
#include "bytes.h"
#include "prom.h"
#include "store.h"
#include "trust.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STATS_MAGIC "HXSTATS2"      /* "HXSTATS" and the format version; version 1 is read too */
#define STATS_HEAD 72
#define TOOL_MAX 47
#define TRANSPORT_MAX 15
#define ERROR_MAX 255
#define COMPACT_BYTES ((int64_t)1 << 20)
#define BUSY_TRIES 50
#define BUSY_SLEEP_MS 20

typedef struct {
    uint64_t count;
    double sum_ms;
    uint64_t b[HX_STATS_HIST];
} histogram;

typedef struct {
    char tool[TOOL_MAX + 1], transport[TRANSPORT_MAX + 1];
    histogram h;
} series;

typedef struct {
    char q[HX_STATS_QUERY_MAX + 1];
    uint64_t count, err;
} counter;

typedef struct {
    int64_t start_s;                 /* 0: unused */
    uint32_t n;
    counter c[HX_STATS_TOP];
} qbucket;

/* The hot queries of one identity ("" and "": none). */
typedef struct {
    char tenant[IX_TRUST_VALUE_MAX + 1], user[IX_TRUST_VALUE_MAX + 1];
    qbucket qb[HX_STATS_WINDOW];     /* slot (start_s / HX_STATS_BUCKET_S) % HX_STATS_WINDOW */
} qtable;

typedef struct {
    uint64_t updates, added, updated, removed, rejected, failures;
    int64_t last_update_ns;
    char last_error[ERROR_MAX + 1];
    histogram lag;
    series s[HX_STATS_SERIES];
    uint32_t n_series;
    qtable *qt[HX_STATS_IDENTITIES]; /* owned, n_qt of them (about 330 KiB each) */
    uint32_t n_qt;
} counts;

struct hx_stats {
    pthread_mutex_t lock;            /* guards delta */
    counts *delta;                   /* owned: counted since the last flush, with a table for id */
    char *path;                      /* owned: the statistics file */
    char tenant[IX_TRUST_VALUE_MAX + 1], user[IX_TRUST_VALUE_MAX + 1];   /* the identity queries count as */
    pthread_mutex_t flush_lock;      /* one flush at a time */
    pthread_t thread;
    bool threaded;
    int stop_pipe[2];
    int flush_ms;
};

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

/* The start of the window's oldest bucket, the window ending now. */
static int64_t window_start(void)
{
    int64_t now = now_s();
    return now - now % HX_STATS_BUCKET_S - (int64_t)(HX_STATS_WINDOW - 1) * HX_STATS_BUCKET_S;
}

static void counts_free(counts *c)
{
    for (uint32_t i = 0; c && i < c->n_qt; i++)
        free(c->qt[i]);
    free(c);
}

/* === Histograms === */

static double bound_ms(int i)
{
    return i < HX_STATS_HIST - 1 ? 0.25 * (double)(1u << i) : INFINITY;
}

static void hist_add(histogram *h, double ms)
{
    if (!(ms >= 0))
        ms = 0;
    int i = 0;
    while (i < HX_STATS_HIST - 1 && ms > bound_ms(i))
        i++;
    h->b[i]++;
    h->count++;
    h->sum_ms += ms;
}

static void hist_merge(histogram *into, const histogram *from)
{
    into->count += from->count;
    into->sum_ms += from->sum_ms;
    for (int i = 0; i < HX_STATS_HIST; i++)
        into->b[i] += from->b[i];
}

/* The q-quantile, interpolated linearly inside its bucket; the last finite bound for +Inf. */
static double hist_quantile(const histogram *h, double q)
{
    if (!h->count)
        return 0;
    double rank = q * (double)h->count, seen = 0;
    for (int i = 0; i < HX_STATS_HIST; i++) {
        if (seen + (double)h->b[i] >= rank && h->b[i]) {
            if (i == HX_STATS_HIST - 1)
                return bound_ms(HX_STATS_HIST - 2);
            double lo = i ? bound_ms(i - 1) : 0, hi = bound_ms(i);
            return lo + (hi - lo) * (rank - seen) / (double)h->b[i];
        }
        seen += (double)h->b[i];
    }
    return bound_ms(HX_STATS_HIST - 2);
}

/* === Counting === */

static series *series_of(counts *c, const char *tool, const char *transport)
{
    for (uint32_t i = 0; i < c->n_series; i++)
        if (!strcmp(c->s[i].tool, tool) && !strcmp(c->s[i].transport, transport))
            return &c->s[i];
    if (c->n_series == HX_STATS_SERIES || strlen(tool) > TOOL_MAX || strlen(transport) > TRANSPORT_MAX)
        return NULL;
    series *s = &c->s[c->n_series++];
    memset(s, 0, sizeof *s);
    snprintf(s->tool, sizeof s->tool, "%s", tool);
    snprintf(s->transport, sizeof s->transport, "%s", transport);
    return s;
}

/* True when the table has a bucket in the window starting at oldest. */
static bool table_live(const qtable *t, int64_t oldest)
{
    for (int k = 0; k < HX_STATS_WINDOW; k++)
        if (t->qb[k].start_s >= oldest)
            return true;
    return false;
}

/* The query table of the identity (tenant, user), or NULL. */
static qtable *table_find(const counts *c, const char *tenant, const char *user)
{
    for (uint32_t i = 0; i < c->n_qt; i++)
        if (!strcmp(c->qt[i]->tenant, tenant) && !strcmp(c->qt[i]->user, user))
            return c->qt[i];
    return NULL;
}

/* The query table of the identity (tenant, user) into *out: the one there, else a new one, or,
 * with HX_STATS_IDENTITIES kept, one that has no bucket left in the window, emptied; else NULL
 * (its queries are not counted: no identity's table makes room for another's). 0 or HX_ENOMEM. */
static int table_add(counts *c, const char *tenant, const char *user, qtable **out)
{
    if ((*out = table_find(c, tenant, user)))
        return 0;
    qtable *t = NULL;
    int64_t oldest = window_start();
    for (uint32_t i = 0; c->n_qt == HX_STATS_IDENTITIES && !t && i < c->n_qt; i++)
        if (!table_live(c->qt[i], oldest)) {
            t = c->qt[i];
            memset(t, 0, sizeof *t);
        }
    if (!t && c->n_qt == HX_STATS_IDENTITIES)
        return 0;
    if (!t) {
        if (!(t = hx_calloc(1, sizeof *t)))
            return HX_ENOMEM;
        c->qt[c->n_qt++] = t;
    }
    snprintf(t->tenant, sizeof t->tenant, "%s", tenant);
    snprintf(t->user, sizeof t->user, "%s", user);
    *out = t;
    return 0;
}

/* Empty counts; for s, holding s's identity's table, so that counting a query never allocates.
 * Caller frees with counts_free. NULL when out of memory. */
static counts *counts_new(const hx_stats *s)
{
    counts *c = hx_calloc(1, sizeof *c);
    qtable *t;
    if (c && s && (table_add(c, s->tenant, s->user, &t) || !t)) {
        counts_free(c);
        return NULL;
    }
    return c;
}

/* The bucket for time t, emptied when it held an older hour; NULL when t is older than what it holds. */
static qbucket *bucket_at(qtable *q, int64_t t)
{
    int64_t start = t - t % HX_STATS_BUCKET_S;
    qbucket *b = &q->qb[(start / HX_STATS_BUCKET_S) % HX_STATS_WINDOW];
    if (b->start_s > start)
        return NULL;
    if (b->start_s != start) {
        b->start_s = start;
        b->n = 0;
    }
    return b;
}

/* Space-saving: count q once in b with error err0 for a new counter. */
static void bucket_count(qbucket *b, const char *q, uint64_t add, uint64_t err0)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (!strcmp(b->c[i].q, q)) {
            b->c[i].count += add;
            b->c[i].err += err0;
            return;
        }
    counter *c;
    uint64_t base = 0;
    if (b->n < HX_STATS_TOP) {
        c = &b->c[b->n++];
    } else {
        c = &b->c[0];
        for (uint32_t i = 1; i < b->n; i++)
            if (b->c[i].count < c->count)
                c = &b->c[i];
        base = c->count;
    }
    snprintf(c->q, sizeof c->q, "%s", q);
    c->count = base + add;
    c->err = base + err0;
}

void hx_stats_note_latency(hx_stats *s, const char *tool, const char *transport, double ms)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    series *se = series_of(s->delta, tool, transport);
    if (se)
        hist_add(&se->h, ms);
    pthread_mutex_unlock(&s->lock);
}

void hx_stats_note_query(hx_stats *s, const char *query)
{
    hxi_stats_note_query_at(s, query, now_s());
}

void hxi_stats_note_query_at(hx_stats *s, const char *query, int64_t unix_s)
{
    if (!s || strlen(query) > HX_STATS_QUERY_MAX || unix_s <= 0)
        return;
    pthread_mutex_lock(&s->lock);
    qbucket *b = bucket_at(table_find(s->delta, s->tenant, s->user), unix_s);
    if (b)
        bucket_count(b, query, 1, 0);
    pthread_mutex_unlock(&s->lock);
}

void hx_stats_note_update(hx_stats *s, const hx_update_report *r, const char *error, double lag_ms)
{
    if (!s)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&s->lock);
    counts *c = s->delta;
    c->updates++;
    if (r) {
        c->added += r->added;
        c->updated += r->updated;
        c->removed += r->removed;
        c->rejected += r->n_rejected;
    }
    c->failures += error != NULL;
    c->last_update_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    snprintf(c->last_error, sizeof c->last_error, "%s", error ? error : "");
    if (lag_ms > 0)
        hist_add(&c->lag, lag_ms);
    pthread_mutex_unlock(&s->lock);
}

/* === Merging === */

static int counter_desc(const void *pa, const void *pb)
{
    const counter *a = pa, *b = pb;
    return a->count > b->count ? -1 : a->count < b->count ? 1 : strcmp(a->q, b->q);
}

/* Adds from's buckets to into's, bucket by bucket. */
static void merge_table(qtable *into, const qtable *from)
{
    for (int k = 0; k < HX_STATS_WINDOW; k++) {
        const qbucket *fb = &from->qb[k];
        if (!fb->start_s)
            continue;
        qbucket *b = bucket_at(into, fb->start_s);
        if (!b)
            continue;   /* older than the hour `into` holds in that slot */
        /* mergeable summaries: add per query, keep the HX_STATS_TOP largest */
        counter all[2 * HX_STATS_TOP];   /* 28 KiB */
        uint32_t n = b->n;
        memcpy(all, b->c, n * sizeof *all);
        for (uint32_t i = 0; i < fb->n; i++) {
            uint32_t j = 0;
            while (j < n && strcmp(all[j].q, fb->c[i].q))
                j++;
            if (j < n) {
                all[j].count += fb->c[i].count;
                all[j].err += fb->c[i].err;
            } else {
                all[n++] = fb->c[i];
            }
        }
        qsort(all, n, sizeof *all, counter_desc);
        b->n = n < HX_STATS_TOP ? n : HX_STATS_TOP;
        memcpy(b->c, all, b->n * sizeof *all);
    }
}

/* Adds from to into; 0 or HX_ENOMEM (into then holds part of from). */
static int merge(counts *into, const counts *from)
{
    into->updates += from->updates;
    into->added += from->added;
    into->updated += from->updated;
    into->removed += from->removed;
    into->rejected += from->rejected;
    into->failures += from->failures;
    if (from->last_update_ns > into->last_update_ns) {
        into->last_update_ns = from->last_update_ns;
        memcpy(into->last_error, from->last_error, sizeof into->last_error);
    }
    hist_merge(&into->lag, &from->lag);
    for (uint32_t i = 0; i < from->n_series; i++) {
        series *se = series_of(into, from->s[i].tool, from->s[i].transport);
        if (se)
            hist_merge(&se->h, &from->s[i].h);
    }
    for (uint32_t t = 0; t < from->n_qt; t++) {
        qtable *into_t;
        if (table_add(into, from->qt[t]->tenant, from->qt[t]->user, &into_t))
            return HX_ENOMEM;
        if (into_t)
            merge_table(into_t, from->qt[t]);
    }
    return 0;
}

/* === Encoding === */

static void put_hist(hxi_buf *b, const histogram *h)
{
    uint64_t bits;
    memcpy(&bits, &h->sum_ms, 8);
    hxi_buf_u64(b, h->count);
    hxi_buf_u64(b, bits);
    for (int i = 0; i < HX_STATS_HIST; i++)
        hxi_buf_u64(b, h->b[i]);
}

static void put_bucket(hxi_buf *b, const qbucket *q)
{
    hxi_buf_u64(b, (uint64_t)q->start_s);
    hxi_buf_u32(b, q->n);
    for (uint32_t i = 0; i < q->n; i++) {
        hxi_buf_str(b, q->c[i].q);
        hxi_buf_u64(b, q->c[i].count);
        hxi_buf_u64(b, q->c[i].err);
    }
}

static void encode(const counts *c, hxi_buf *b)
{
    uint8_t head[STATS_HEAD] = {0};
    memcpy(head, STATS_MAGIC, 8);
    const uint64_t v[] = {c->updates, c->added, c->updated, c->removed, c->rejected, c->failures,
                          (uint64_t)c->last_update_ns};
    for (int i = 0; i < 7; i++)
        hxf_put64(head + 8 + 8 * i, v[i]);
    int64_t oldest = window_start();
    uint32_t nt = 0;   /* tables with no bucket left in the window are not written */
    for (uint32_t t = 0; t < c->n_qt; t++)
        nt += table_live(c->qt[t], oldest);
    hxf_put32(head + 64, c->n_series);
    hxf_put32(head + 68, nt);
    hxi_buf_bytes(b, head, sizeof head);
    hxi_buf_str(b, c->last_error);
    put_hist(b, &c->lag);
    for (uint32_t i = 0; i < c->n_series; i++) {
        hxi_buf_str(b, c->s[i].tool);
        hxi_buf_str(b, c->s[i].transport);
        put_hist(b, &c->s[i].h);
    }
    for (uint32_t t = 0; t < c->n_qt; t++) {
        const qtable *qt = c->qt[t];
        if (!table_live(qt, oldest))
            continue;
        hxi_buf_str(b, qt->tenant);
        hxi_buf_str(b, qt->user);
        uint32_t nb = 0;
        for (int k = 0; k < HX_STATS_WINDOW; k++)
            nb += qt->qb[k].start_s >= oldest;
        hxi_buf_u32(b, nb);
        for (int k = 0; k < HX_STATS_WINDOW; k++)
            if (qt->qb[k].start_s >= oldest)
                put_bucket(b, &qt->qb[k]);
    }
}

static bool get_str(hxi_rd *r, char *out, uint32_t max)
{
    const char *s;
    uint32_t n;
    if (!hxi_rd_str(r, &s, &n, max) || memchr(s, 0, n))
        return false;
    memcpy(out, s, n);
    out[n] = 0;
    return true;
}

static void get_hist(hxi_rd *r, histogram *h)
{
    h->count = hxi_rd_u64(r);
    uint64_t bits = hxi_rd_u64(r);
    memcpy(&h->sum_ms, &bits, 8);
    for (int i = 0; i < HX_STATS_HIST; i++)
        h->b[i] = hxi_rd_u64(r);
}

/* b buckets into q (empty); false when malformed. */
static bool get_buckets(hxi_rd *r, qtable *q, uint32_t nb)
{
    for (uint32_t k = 0; k < nb; k++) {
        int64_t start = (int64_t)hxi_rd_u64(r);
        uint32_t n = hxi_rd_u32(r);
        if (!hxi_rd_ok(r) || start <= 0 || start % HX_STATS_BUCKET_S || n > HX_STATS_TOP)
            return false;
        qbucket *b = &q->qb[(start / HX_STATS_BUCKET_S) % HX_STATS_WINDOW];
        if (b->start_s)
            return false;   /* two buckets for one slot */
        b->start_s = start;
        b->n = n;
        for (uint32_t i = 0; i < n; i++) {
            if (!get_str(r, b->c[i].q, HX_STATS_QUERY_MAX))
                return false;
            b->c[i].count = hxi_rd_u64(r);
            b->c[i].err = hxi_rd_u64(r);
        }
    }
    return true;
}

/* The root into c (fresh from counts_new; on failure the caller frees what it holds). */
static int decode(const uint8_t *p, size_t len, counts *c, const char *path, hx_error *err)
{
    if (!len)
        return 0;
    if (len < STATS_HEAD || memcmp(p, STATS_MAGIC, 7) || p[7] < '0' || p[7] > '9')
        return hx_error_set(err, HX_EFORMAT, 0, "%s: not a statistics file (root magic)", path);
    bool v1 = p[7] == '1';   /* query buckets without identities */
    if (!v1 && p[7] != STATS_MAGIC[7])
        return hx_error_set(err, HX_EVERSION, 7, "%s: statistics file version %c is not one this build reads (1, 2)",
                            path, p[7]);
    uint64_t *v[] = {&c->updates, &c->added, &c->updated, &c->removed, &c->rejected, &c->failures};
    for (int i = 0; i < 6; i++)
        *v[i] = hxf_le64(p + 8 + 8 * i);
    c->last_update_ns = (int64_t)hxf_le64(p + 56);
    uint32_t ns = hxf_le32(p + 64), nt = hxf_le32(p + 68);   /* version 1: nt buckets of no identity */
    if (ns > HX_STATS_SERIES || nt > (v1 ? HX_STATS_WINDOW : HX_STATS_IDENTITIES))
        return hx_error_set(err, HX_EFORMAT, 64, "%s: %u series and %u query %s are more than allowed", path, ns, nt,
                            v1 ? "buckets" : "tables");
    hxi_rd r = hxi_rd_init(p + STATS_HEAD, len - STATS_HEAD);
    bool ok = get_str(&r, c->last_error, ERROR_MAX);
    get_hist(&r, &c->lag);
    for (uint32_t i = 0; ok && i < ns; i++) {
        ok = get_str(&r, c->s[i].tool, TOOL_MAX) && get_str(&r, c->s[i].transport, TRANSPORT_MAX);
        get_hist(&r, &c->s[i].h);
    }
    c->n_series = ns;
    uint32_t tables = v1 ? nt > 0 : nt;
    for (uint32_t t = 0; ok && t < tables; t++) {
        qtable *q = hx_calloc(1, sizeof *q);
        if (!q)
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory reading statistics");
        c->qt[c->n_qt++] = q;
        uint32_t nb = nt;
        if (!v1) {
            ok = get_str(&r, q->tenant, IX_TRUST_VALUE_MAX) && get_str(&r, q->user, IX_TRUST_VALUE_MAX);
            nb = hxi_rd_u32(&r);
            for (uint32_t i = 0; ok && i + 1 < c->n_qt; i++)
                ok = strcmp(c->qt[i]->tenant, q->tenant) || strcmp(c->qt[i]->user, q->user);   /* one per identity */
        }
        ok = ok && hxi_rd_ok(&r) && nb <= HX_STATS_WINDOW && get_buckets(&r, q, nb);
    }
    if (!ok || !hxi_rd_ok(&r) || r.p != r.end)
        return hx_error_set(err, HX_EFORMAT, 0, "%s: the statistics root is malformed", path);
    return 0;
}

/* === The file === */

int hxi_stats_path(const char *db, char *buf, size_t cap, hx_error *err)
{
    return hxi_store_beside(db, "stats", buf, cap, err);
}

/* The file's counts into c (fresh from counts_new; left empty when the file does not exist). */
static int load_file(const char *path, counts *c, hx_error *err)
{
    hxi_store *st = NULL;
    int rc = hxi_store_open(&st, path, HX_STORE_READ, err);
    if (rc == HX_ENOTFOUND)
        return 0;
    const uint8_t *root;
    size_t len;
    if (!rc) {
        hxi_store_root(st, &root, &len);
        rc = decode(root, len, c, path, err);
    }
    hxi_store_close(st);
    return rc;
}

/* Adds d to the file under its writer lock (waiting out another writer for about a second). */
static int add_to_file(const char *path, const counts *d, hx_error *err)
{
    hxi_store *st = NULL;
    int rc = HX_EBUSY;
    for (int i = 0; i < BUSY_TRIES && rc == HX_EBUSY; i++) {
        if (i) {
            struct timespec ts = {0, BUSY_SLEEP_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
        rc = hxi_store_open(&st, path, HX_STORE_WRITE | HX_STORE_CREATE, err);
    }
    if (rc)
        return rc;
    counts *c = counts_new(NULL);
    hxi_buf b = {0};
    const uint8_t *root;
    size_t len;
    hxi_store_root(st, &root, &len);
    rc = c ? decode(root, len, c, path, err) : HX_ENOMEM;
    if (!rc)
        rc = merge(c, d);
    if (rc == HX_ENOMEM)
        hx_error_set(err, HX_ENOMEM, -1, "out of memory flushing statistics");
    if (!rc) {
        encode(c, &b);
        rc = b.failed ? hx_error_set(err, HX_ENOMEM, -1, "out of memory flushing statistics")
                      : hxi_store_commit(st, b.data, b.len, NULL, err);
    }
    struct stat sb;
    if (!rc && !stat(path, &sb) && sb.st_size > COMPACT_BYTES) {
        hxi_store *cs = NULL;   /* a fresh file holding the new root only; failing keeps the larger one */
        hx_error cerr = {0};
        if (!hxi_store_compact_begin(st, &cs, &cerr) && !hxi_store_commit(cs, b.data, b.len, NULL, &cerr) &&
            !hxi_store_compact_finish(&st, cs, &cerr))
            cs = NULL;
        hxi_store_close(cs);
    }
    hxi_buf_free(&b);
    counts_free(c);
    hxi_store_close(st);
    return rc;
}

int hxi_stats_flush(hx_stats *s, hx_error *err)
{
    counts *d = counts_new(s);
    if (!d)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory flushing statistics");
    pthread_mutex_lock(&s->flush_lock);
    pthread_mutex_lock(&s->lock);
    counts *taken = s->delta;
    s->delta = d;
    pthread_mutex_unlock(&s->lock);
    int rc = add_to_file(s->path, taken, err);
    if (rc) {   /* keep the counts for the next flush */
        pthread_mutex_lock(&s->lock);
        merge(taken, s->delta);   /* allocates nothing: both hold the one table s counts into */
        counts *mid = s->delta;
        s->delta = taken;
        taken = mid;
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&s->flush_lock);
    counts_free(taken);
    return rc;
}

static void *flusher(void *arg)
{
    hx_stats *s = arg;
    for (;;) {
        struct pollfd p = {s->stop_pipe[0], POLLIN, 0};
        int n = poll(&p, 1, s->flush_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != 0)
            break;
        hxi_stats_flush(s, NULL);
    }
    return NULL;
}

int hx_stats_open(hx_stats **out, const char *db, const hx_identity *id, int flush_ms, hx_error *err)
{
    *out = NULL;
    char path[4096];
    int rc = hxi_stats_path(db, path, sizeof path, err);
    if (rc)
        return rc;
    const char *tenant = id && id->tenant ? id->tenant : "", *user = id && id->user ? id->user : "";
    if (strlen(tenant) > IX_TRUST_VALUE_MAX || strlen(user) > IX_TRUST_VALUE_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "a tenant or user name is at most %d bytes", IX_TRUST_VALUE_MAX);
    hx_stats *s = hx_calloc(1, sizeof *s);
    if (s) {
        snprintf(s->tenant, sizeof s->tenant, "%s", tenant);
        snprintf(s->user, sizeof s->user, "%s", user);
    }
    if (!s || !(s->delta = counts_new(s)) || !(s->path = hx_strdup(path))) {
        if (s)
            counts_free(s->delta);
        free(s);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory opening statistics");
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->flush_lock, NULL);
    s->stop_pipe[0] = s->stop_pipe[1] = -1;
    s->flush_ms = flush_ms;
    if (flush_ms > 0 && !pipe(s->stop_pipe))
        s->threaded = pthread_create(&s->thread, NULL, flusher, s) == 0;
    *out = s;
    return 0;
}

void hx_stats_close(hx_stats *s)
{
    if (!s)
        return;
    if (s->threaded) {
        char b = 1;
        ssize_t n = write(s->stop_pipe[1], &b, 1);
        (void)n;
        pthread_join(s->thread, NULL);
    }
    if (s->stop_pipe[0] >= 0) {
        close(s->stop_pipe[0]);
        close(s->stop_pipe[1]);
    }
    hxi_stats_flush(s, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->flush_lock);
    counts_free(s->delta);
    free(s->path);
    free(s);
}

/* The file's counts plus s's unflushed ones; caller frees. */
static int current(hx_stats *s, const char *db, counts **out, hx_error *err)
{
    char path[4096];
    *out = counts_new(NULL);
    if (!*out)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory reading statistics");
    int rc = s ? 0 : hxi_stats_path(db, path, sizeof path, err);
    if (!rc)
        rc = load_file(s ? s->path : path, *out, err);
    if (!rc && s) {
        pthread_mutex_lock(&s->lock);
        rc = merge(*out, s->delta);
        pthread_mutex_unlock(&s->lock);
        if (rc)
            hx_error_set(err, HX_ENOMEM, -1, "out of memory reading statistics");
    }
    if (rc) {
        counts_free(*out);
        *out = NULL;
    }
    return rc;
}

/* === Views === */

static int counter_text(const void *pa, const void *pb)
{
    return strcmp(((const counter *)pa)->q, ((const counter *)pb)->q);
}

/* The hot queries of the window ending now that `reader` sees (its own table; NULL: every table),
 * best first, into top (HX_STATS_TOP_SHOWN) and their count into *nt; 0 or HX_ENOMEM. */
static int top_queries(const counts *c, const hx_identity *reader, counter *top, size_t *nt, hx_error *err)
{
    *nt = 0;
    qtable *own = reader ? table_find(c, reader->tenant ? reader->tenant : "", reader->user ? reader->user : "") : NULL;
    qtable *const *seen = reader ? &own : c->qt;
    uint32_t n_seen = reader ? own != NULL : c->n_qt;
    if (!n_seen)
        return 0;
    counter *all = hx_malloc(sizeof *all * HX_STATS_WINDOW * HX_STATS_TOP * n_seen);
    if (!all)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory ranking hot queries");
    size_t n = 0;
    int64_t oldest = window_start();
    for (uint32_t t = 0; t < n_seen; t++)
        for (int k = 0; k < HX_STATS_WINDOW; k++)
            for (uint32_t i = 0; seen[t]->qb[k].start_s >= oldest && i < seen[t]->qb[k].n; i++)
                all[n++] = seen[t]->qb[k].c[i];
    qsort(all, n, sizeof *all, counter_text);   /* add up each query's counts over the window */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && !strcmp(all[m - 1].q, all[i].q)) {
            all[m - 1].count += all[i].count;
            all[m - 1].err += all[i].err;
        } else {
            all[m++] = all[i];
        }
    }
    qsort(all, m, sizeof *all, counter_desc);
    *nt = m < HX_STATS_TOP_SHOWN ? m : HX_STATS_TOP_SHOWN;
    memcpy(top, all, *nt * sizeof *top);
    free(all);
    return 0;
}

static hx_latency latency_of(const histogram *h)
{
    return (hx_latency){h->count, h->count ? h->sum_ms / (double)h->count : 0, hist_quantile(h, 0.50),
                        hist_quantile(h, 0.95), hist_quantile(h, 0.99)};
}

/* What an hx_activity's strings point into. */
typedef struct {
    series s[HX_STATS_SERIES];
    counter top[HX_STATS_TOP_SHOWN];
    char last_error[ERROR_MAX + 1];
    hx_tool_latency latency[2 * HX_STATS_SERIES];
    hx_hot_query hot[HX_STATS_TOP_SHOWN];
} activity_keep;

void hx_activity_free(hx_activity *a)
{
    if (!a)
        return;
    free(a->keep);
    memset(a, 0, sizeof *a);
}

int hx_stats_activity(hx_stats *s, const char *db, const hx_identity *reader, hx_activity *out, hx_error *err)
{
    memset(out, 0, sizeof *out);
    counts *c;
    int rc = current(s, db, &c, err);
    if (rc)
        return rc;
    activity_keep *k = hx_calloc(1, sizeof *k);
    size_t nt = 0;
    if (!k)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    else
        rc = top_queries(c, reader, k->top, &nt, err);
    if (rc) {
        free(k);
        counts_free(c);
        return rc;
    }
    memcpy(k->s, c->s, c->n_series * sizeof *k->s);
    size_t n = 0;
    for (uint32_t i = 0; i < c->n_series; i++) {
        bool first = true;   /* one entry per tool, at its first series, then its transports */
        for (uint32_t j = 0; j < i && first; j++)
            first = strcmp(c->s[j].tool, c->s[i].tool) != 0;
        if (!first)
            continue;
        histogram all = {0};
        for (uint32_t j = i; j < c->n_series; j++)
            if (!strcmp(c->s[j].tool, c->s[i].tool))
                hist_merge(&all, &c->s[j].h);
        k->latency[n++] = (hx_tool_latency){k->s[i].tool, NULL, latency_of(&all)};
        for (uint32_t j = i; j < c->n_series; j++)
            if (!strcmp(c->s[j].tool, c->s[i].tool))
                k->latency[n++] = (hx_tool_latency){k->s[j].tool, k->s[j].transport, latency_of(&c->s[j].h)};
    }
    for (size_t i = 0; i < nt; i++)
        k->hot[i] = (hx_hot_query){k->top[i].q, k->top[i].count};
    snprintf(k->last_error, sizeof k->last_error, "%s", c->last_error);
    *out = (hx_activity){k->latency, n, k->hot, nt, (uint64_t)HX_STATS_WINDOW * HX_STATS_BUCKET_S, c->updates, c->added,
                         c->updated, c->removed, c->rejected, c->failures, c->last_update_ns,
                         k->last_error[0] && !reader ? k->last_error : NULL,   /* it may name any file of the index */
                         latency_of(&c->lag), k};
    counts_free(c);
    return 0;
}

/* === Prometheus === */

static void prom_hist(hxi_buf *b, const char *name, const char *labels, const histogram *h)
{
    double le[HX_STATS_HIST - 1];
    for (int i = 0; i < HX_STATS_HIST - 1; i++)
        le[i] = bound_ms(i) / 1e3;
    hxi_prom_histogram(b, name, labels, le, HX_STATS_HIST - 1, h->b, h->sum_ms / 1e3, h->count);
}

int hxi_stats_prometheus(hx_stats *s, const char *db, const hx_identity *reader, hxi_buf *out, hx_error *err)
{
    counts *c;
    int rc = current(s, db, &c, err);
    if (rc)
        return rc;
    char l1[64], l2[32], labels[256];
    hxi_prom_family(out, "hyrax_request_duration_seconds", "histogram", "Time to answer a tool call or command.");
    for (uint32_t i = 0; i < c->n_series; i++) {
        snprintf(labels, sizeof labels, "tool=\"%s\",transport=\"%s\"", hxi_prom_label(c->s[i].tool, l1, sizeof l1),
                 hxi_prom_label(c->s[i].transport, l2, sizeof l2));
        prom_hist(out, "hyrax_request_duration_seconds", labels, &c->s[i].h);
    }
    hxi_prom_family(out, "hyrax_index_lag_seconds", "histogram",
                    "Time from a changed file's mtime to the commit that makes it searchable.");
    prom_hist(out, "hyrax_index_lag_seconds", "", &c->lag);
    hxi_prom_family(out, "hyrax_index_updates_total", "counter", "Index updates run (watch batches and hyrax index).");
    hxi_prom_printf(out, "hyrax_index_updates_total %llu\n", (unsigned long long)c->updates);
    hxi_prom_family(out, "hyrax_index_update_failures_total", "counter", "Index updates that failed (embedding, I/O).");
    hxi_prom_printf(out, "hyrax_index_update_failures_total %llu\n", (unsigned long long)c->failures);
    hxi_prom_family(out, "hyrax_index_files_total", "counter",
                    "Files by what an update did with them (rejected: by the gate or unreadable).");
    hxi_prom_printf(out, "hyrax_index_files_total{change=\"added\"} %llu\nhyrax_index_files_total{change=\"updated\"} %llu\n",
                    (unsigned long long)c->added, (unsigned long long)c->updated);
    hxi_prom_printf(out, "hyrax_index_files_total{change=\"removed\"} %llu\nhyrax_index_files_total{change=\"rejected\"} %llu\n",
                    (unsigned long long)c->removed, (unsigned long long)c->rejected);
    counter top[HX_STATS_TOP_SHOWN];
    size_t nt;
    if ((rc = top_queries(c, reader, top, &nt, err))) {
        counts_free(c);
        return rc;
    }
    char help[96];
    snprintf(help, sizeof help, "Estimated count of the most frequent queries of the last %d s.",
             HX_STATS_WINDOW * HX_STATS_BUCKET_S);
    hxi_prom_family(out, "hyrax_hot_query_count", "gauge", help);
    for (size_t i = 0; i < nt; i++) {
        char q[2 * HX_STATS_QUERY_MAX + 8];
        hxi_prom_printf(out, "hyrax_hot_query_count{query=\"%s\"} %llu\n", hxi_prom_label(top[i].q, q, sizeof q),
                        (unsigned long long)top[i].count);
    }
    counts_free(c);
    return out->failed ? hx_error_set(err, HX_ENOMEM, -1, "out of memory writing metrics") : 0;
}

int hx_stats_prometheus_text(hx_stats *s, const char *db, const hx_identity *reader, char **text, size_t *len,
                             hx_error *err)
{
    hxi_buf b = {0};
    int rc = hxi_stats_prometheus(s, db, reader, &b, err);
    if (!rc && b.failed)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory writing the statistics");
    if (rc) {
        hxi_buf_free(&b);
        return rc;
    }
    *text = (char *)b.data;
    *len = b.len;
    return 0;
}
