/* filter.h: document filters (hyrax.h hx_filter): parsing them from JSON (MCP `filters`, seed
 * 003's `doc_filter`, seed 002's `filters`) and from the command line (`--filter`), typing
 * metadata values, and matching a document (hx_doc_matches) or a chunk (hxi_chunk_matches). The
 * one place these rules live: search.c applies them inside both searches, the tools and the CLI
 * only parse.
 *
 * Chunks. A chunk of a structured document carries its unit's pairs (doctype.h "units": a code
 * file's definition, a model's element). A chunk matches a filter when its unit's pairs match it
 * OR its document does (its metadata, or a derived key); all filters of a set are ANDed, so
 * `symbol=verify` and `lang=python` find the chunk of that function in Python files.
 *
 * Keys. A filter key matches a metadata key with '_' and '-' alike and ASCII case ignored
 * (kep_number = kep-number); recency's key (recency.h) matches by the same rule (hxi_meta_key_matches). Aliases (seed 002), matched beside the key as written: sig_name -> owning-sig; kep_id, kep_number ->
 * kep-number. Derived keys, taken from the document and winning over metadata of the same name:
 *   path        the root-relative path, matched as a glob (glob.h: `**` spans folders); each glob
 *               within glob.h's limits, a set's together at most HX_FILTER_GLOB_BYTES
 *   type        the document's type, a name in the table of document types (src/formats/doctype.c)
 *   ext         the file name's extension, lowercase, without the dot ("" when none)
 *   dir         the folder part of the path ("" at the root): "keps/sig-auth/1314-foo"
 *   folder      each folder name of the path, a list: "keps", "sig-auth", "1314-foo"
 *   indexed_at  when the document was indexed, a date
 *   mtime       the file's modification time (a stored document's: when it was stored), a date
 *
 * Values and types. Metadata values are text; a value is a number when all of it reads as a
 * decimal number (strtod, no hex, inf or nan) and a date when it is ISO-8601: YYYY-MM-DD,
 * optionally followed by T or a space, HH:MM[:SS[.fraction]] and Z or +HH:MM / -HH:MM / +HHMM (no
 * zone = UTC; ranges compare instants exactly in every year 0000..9999). This is
 * hyrax's one date rule: recency (recency.h) and read contexts (hx_time_parse) read dates with it.
 * Equality: the same text, or two numbers of equal value ("0034" = "34"). A range compares
 * numbers with numbers and dates with dates; a value of the other kind does not match. A
 * date-only bound covers its whole day: `to` / lte 2021-12-31 takes all of that day, `from` / gte
 * starts at its midnight, gt starts the next day, lt ends at its midnight. Equality on indexed_at
 * and mtime with a date-only value is that day.
 *
 * JSON (hxi_filter_parse_json): an object of key -> condition, all ANDed:
 *   "key": "text" | number | true/false        equality
 *   "key": ["a", "b", ...]                     any of (1..HX_FILTER_ANY_MAX strings or numbers)
 *   "key": {"from": x, "to": y}                range; also gte / gt / lte / lt (one lower and one
 *                                              upper bound at most, at least one bound)
 *   "date_range": {"from": x, "to": y}         range on indexed_at, or on {"key": "any-date-key"}
 * Command line (hx_filter_parse_arg): KEY=VALUE, KEY=A,B (any of; "\," is a literal comma),
 * KEY>=X, KEY>X, KEY<=X, KEY<X, KEY=X..Y (a range, either side may be empty). */
#ifndef HX_FILTER_H
#define HX_FILTER_H

#include "hyrax.h"
#include "json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HX_FILTER_MAX 64          /* filters in one set */
#define HX_FILTER_ANY_MAX 256     /* values in one any-of list */
#define HX_FILTER_GLOB_BYTES 4096 /* a set's path globs together; each one within glob.h's limits */

/* hx_filter_set, hx_filter_set_free, hx_filter_parse_arg and hx_filter_parse_json_text (the forms
 * above) are public: hyrax.h "Search". */

/* Adds the filters of a JSON object (the forms above) to fs; strings are copied, so obj may go
 * away. HX_EINVAL with a message naming the key and what it must be; fs keeps what it had. */
int hxi_filter_parse_json(hx_filter_set *fs, const hxi_json_val *obj, hx_error *err);

/* Whether a chunk whose unit has the pairs unit[0..n_unit) and whose document is d passes every
 * filter (the rule above). */
bool hxi_chunk_matches(const hx_doc_info *d, const hx_kv *unit, size_t n_unit, const hx_filter *filters, size_t n);

/* Typed reading of a metadata value: a number (true, *out set) or an ISO-8601 date. hxi_meta_time
 * gives the exact instant, *secs since 1970 UTC and *frac_ns in [0, 1e9), for any year 0000..9999;
 * hxi_meta_date gives *ns nanoseconds since 1970 UTC, INT64_MAX past 2262 and INT64_MIN before 1677
 * (compare with hxi_meta_time). *date_only when the text has no time of day. */
bool hxi_meta_number(const char *s, double *out);
bool hxi_meta_time(const char *s, int64_t *secs, int32_t *frac_ns, bool *date_only);
bool hxi_meta_date(const char *s, int64_t *ns, bool *date_only);

/* Whether metadata key meta_key is the key a filter or --recency asks for: '_' and '-' alike,
 * ASCII case ignored, and the aliases above (the key as written matches too). */
bool hxi_meta_key_matches(const char *meta_key, const char *asked);
/* The derived keys, in the order the comment above lists them, NULL-terminated. */
#define HX_FILTER_DERIVED 7
extern const char *const hxi_filter_derived_keys[HX_FILTER_DERIVED + 1];

#endif
