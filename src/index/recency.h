/* recency.h: "newer = higher" (seed 000): a document's date, read from a metadata value as
 * ISO-8601 or from its file's mtime, and the half-life decay that search.c multiplies into the
 * ranking (hyrax.h hx_search_opts.recency_key). Reads metadata strings only, so it works whether
 * the value was stored as text or as a typed date rendered in ISO-8601. */
#ifndef HX_RECENCY_H
#define HX_RECENCY_H

#include "hyrax.h"

#include <stdint.h>

/* Parses an ISO-8601 date or time into seconds since 1970-01-01 UTC: YYYY, YYYY-MM, YYYY-MM-DD,
 * then optionally T or a space, hh:mm[:ss[.fraction]], and Z or +hh:mm / -hh:mm / +hhmm (no zone:
 * UTC). Surrounding quotes and blanks are ignored. 0, or HX_EPARSE for anything else (months 1..12,
 * days within the month, hours < 24, minutes and seconds < 60 (60 allowed for a leap second)). */
int hx_iso8601_parse(const char *s, int64_t *unix_s);

/* The date of document d for recency: the ISO-8601 value of metadata `key` ("mtime": the file's
 * mtime); a document without such a value, or with one that does not parse, has its mtime. */
int64_t hx_recency_date(const hx_doc_info *d, const char *key);

/* 0.5^(age / half_life) with age = now_s - date_s in days, clamped at 0 for dates in the future:
 * 1 for a document dated now, 0.5 one half-life ago. half_life_days > 0. */
double hx_recency_factor(int64_t date_s, int64_t now_s, double half_life_days);

#endif
