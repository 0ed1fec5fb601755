/* stats.h: observability that lasts (issue 14 item 6): latency histograms per tool and transport,
 * hot queries as a real top-k over a sliding window, index updates (files added, updated, removed,
 * rejected by the gate or as unreadable, failed updates) and index lag (a changed file's mtime to
 * the commit that makes it searchable). Every process (serve, the CLI) counts into its own
 * hx_stats and flushes what it counted into one file beside the index, "<index stem>.stats.hyx"
 * (store.h: the same crash-safe commit and one-writer lock), where it is added to what other
 * processes flushed; nothing is lost on restart. Shown by `hyrax stats`, index_health, and (at
 * merge) /health and /metrics through hx_stats_activity and hxi_stats_prometheus.
 *
 * Hot queries: each reader identity (tenant, user; hyrax.h hx_identity, as the process fixed it
 * at start) has a table of its own, and no identity (the unscoped local reader) one more. A table
 * is HX_STATS_WINDOW buckets of HX_STATS_BUCKET_S seconds each (the last day); each bucket is a
 * space-saving summary (Metwally et al. 2005) of HX_STATS_TOP counters: a query not counted yet
 * takes over the smallest counter of its own table (count = that count + 1, error = that
 * count). A bucket older than the window is dropped whole, so a query asked often an hour ago and
 * never since leaves the list within a day, and new queries always get counters. The top-k sums a
 * query's counts over the window's buckets: of the reader's own table when a reader identity is
 * given, of every table when none is (a query text's counts added up over identities). Summaries
 * of two processes merge table by table, adding counts per query and keeping the HX_STATS_TOP
 * largest (mergeable summaries). At most HX_STATS_IDENTITIES tables are kept: the queries of
 * another identity are not counted while that many have asked within the window (no table is
 * ever dropped for a newcomer); a table with no bucket left in the window is not written back.
 * Everything else (latency, index updates, lag) is one count for all identities; a reader
 * identity's views leave out the last update's error, which may name any file of the index.
 * Latency and lag histograms: upper bounds 0.25 ms * 2^i for i < HX_STATS_HIST - 1, then +Inf;
 * percentiles interpolate linearly inside the bucket (as Prometheus' histogram_quantile).
 *
 * The file's root (no blobs), little-endian:
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXSTATS2" (version 2)
 *        8    8 index updates (batches and `hyrax index` runs that reached hx_index_update)
 *       16    8 files added       24 8 files updated      32 8 files removed
 *       40    8 files rejected    48 8 failed updates     56 8 time of the last update, unix ns
 *       64    4 s, latency series (<= HX_STATS_SERIES)    68 4 t, query tables (<= HX_STATS_IDENTITIES)
 *       72    . the last update's error (u32 length + bytes, <= 255)
 *             . the lag histogram: count u64, sum of ms f64 bits u64, HX_STATS_HIST u64 buckets
 *             . s series: tool and transport (u32 length + bytes, <= 47 and <= 15), then a histogram
 *             . t query tables, one per identity: tenant and user (u32 length + bytes each,
 *               <= 128, trust.h; both empty: no identity; user empty: none), b u32
 *               (<= HX_STATS_WINDOW), then b buckets: start (unix seconds, u64), counter count n
 *               u32 (<= HX_STATS_TOP), then n counters: query (u32 length + bytes,
 *               <= HX_STATS_QUERY_MAX), count u64, error u64
 * Version 1 ("HXSTATS1", no identities) holds at offset 68 b, the number of buckets, and after the
 * series those b buckets alone; they are read as the table of no identity, so its query texts are
 * shown to the unscoped local reader only, and the next flush writes version 2. Other versions are
 * refused (HX_EVERSION). A commit that leaves the file over 1 MiB compacts it. */
#ifndef HX_STATS_H
#define HX_STATS_H

#include "hyrax.h"
#include "json.h"
#include "wire.h"

#include <stdint.h>

#define HX_STATS_HIST 24
#define HX_STATS_SERIES 64
#define HX_STATS_WINDOW 24
#define HX_STATS_BUCKET_S 3600
#define HX_STATS_TOP 64
#define HX_STATS_IDENTITIES 32       /* query tables kept: identities that asked within the window */
#define HX_STATS_QUERY_MAX 200       /* longer queries are not counted */
#define HX_STATS_TOP_SHOWN 10

/* hx_stats (counts of one process and, read from the file, of all) and the calls a surface makes
 * (open, close, counting, and the JSON and Prometheus texts) are public: hyrax.h "Activity
 * statistics". */

/* The statistics file of the index at db: "<db minus .hyx>.stats.hyx". HX_ERANGE when it does
 * not fit. */
int hxi_stats_path(const char *db, char *buf, size_t cap, hx_error *err);


/* Adds what s counted since the last flush to the file (created when missing) and clears it.
 * On failure the counts stay in s for the next flush. HX_EBUSY when another process held the
 * file for the whole of about a second. */
int hxi_stats_flush(hx_stats *s, hx_error *err);

/* A query asked at `unix_s` (seconds) instead of now (hx_stats_note_query): a client that reports
 * its own times. */
void hxi_stats_note_query_at(hx_stats *s, const char *query, int64_t unix_s);

/* hx_stats_activity (the counts as a struct) is public: hyrax.h. */

/* The same counts, as `reader` sees them, in the Prometheus text exposition format (version 0.0.4)
 * appended to out. */
int hxi_stats_prometheus(hx_stats *s, const char *db, const hx_identity *reader, hxi_buf *out, hx_error *err);

#endif
