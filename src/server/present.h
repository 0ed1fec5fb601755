/* present.h: JSON pieces of hyrax's answers. The CLI's `search --json` and `stats --json` are
 * rendered whole here (DESIGN.md "Command line" gives the search shape); the MCP tools build their
 * own result and document objects (citation, ISO times) from the shared pieces: mode names, side
 * scores, metadata and document kind. Writes into an hx_json_writer; never prints. */
#ifndef HX_PRESENT_H
#define HX_PRESENT_H

#include "hyrax.h"
#include "json.h"

const char *hx_mode_name(hx_search_mode m);              /* "hybrid", "vector", "keyword" */
/* Every name a mode is accepted under (NULL-terminated): hybrid, semantic = vector, keyword =
 * full_text = text. hx_mode_parse reads one; HX_EINVAL for any other. */
extern const char *const hx_mode_names[];
int hx_mode_parse(const char *s, hx_search_mode *out);
/* The grouping names, indexed by hx_group ("chunk", "document"; NULL-terminated). */
extern const char *const hx_group_names[];
int hx_group_parse(const char *s, hx_group *out);

/* "key": score, or "key": null when the side that scores it missed the chunk (NAN). */
void hx_present_score(hx_json_writer *w, const char *key, float s);
/* "rank", "score", "vector_score", "keyword_score" of a result: how every surface ranks one. */
void hx_present_rank(hx_json_writer *w, const hx_result *r);
/* "path", "reason" of a rejected or failed document, inside an object the caller opens. */
void hx_present_reason(hx_json_writer *w, const char *path, const char *reason);

/* {"key": "value", "list": ["a", "b"], ...} of a document's metadata: a key with several values
 * (a list, hyrax.h hx_doc_info) is an array of them, in order. */
void hx_present_meta(hx_json_writer *w, const hx_kv *meta, size_t n);

/* One result object: rank, score, side scores, chunk_id, doc_id, path, title, heading,
 * chunk_index, line_start, line_end, text, snippet (when built), metadata, version (hash), and
 * when grouped by document its "more". */
void hx_present_result(hx_json_writer *w, const hx_result *r, hx_group group);
/* "more": [{"score","chunk_id","chunk_index","heading","line_start","line_end"}, ...]: the other
 * matching chunks of a result's document, best first (every surface writes them so). */
void hx_present_more(hx_json_writer *w, const hx_result *r);

/* The search answer: {"query","mode","group","results":[...],"total_results","search_time_ms"}. */
void hx_present_search(hx_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r);

/* "file" or "stored": the "source" of a document in every answer that describes one. */
const char *hx_present_kind(hx_doc_kind k);

/* The index statistics object. */
void hx_present_stats(hx_json_writer *w, const hx_index_stats *st, const char *root);

#endif
