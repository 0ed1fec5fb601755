/* recency.h: "newer = higher" (seed 000): a document's date, read from a metadata value as
 * ISO-8601 or from its file's mtime, and the half-life decay that search.c multiplies into the
 * ranking (hyrax.h hx_search_opts.recency_key). Reads metadata strings only, so it works whether
 * the value was stored as text or as a typed date rendered in ISO-8601. */
#ifndef HX_RECENCY_H
#define HX_RECENCY_H

#include "hyrax.h"

#include <stdint.h>

/* The date of document d for recency, in seconds since 1970 UTC: the first value of metadata `key`
 * (matched as filters match keys, filter.h hxi_meta_key_matches: creation_date finds creation-date)
 * that is an ISO-8601 date (filter.h hxi_meta_time: YYYY-MM-DD, optionally a time and zone), or
 * for "mtime" the file's mtime; a document without such a value has its mtime. */
int64_t hxi_recency_date(const hx_doc_info *d, const char *key);

/* 0.5^(age / half_life) with age = now_s - date_s in days, clamped at 0 for dates in the future:
 * 1 for a document dated now, 0.5 one half-life ago. half_life_days > 0. */
double hxi_recency_factor(int64_t date_s, int64_t now_s, double half_life_days);

#endif
