/* present.h: JSON pieces of hyrax's answers. The CLI's `search --json` and `stats --json` are
 * rendered whole here (DESIGN.md "Command line" gives the search shape); a result object and its
 * citation are written here for the CLI and MCP alike; the MCP tools build their document objects
 * (ISO times) from the shared pieces: mode names, side scores, metadata and document kind. Writes
 * into an hx_json_writer; never prints. */
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
/* "rank", "score" (relevance 0..1), "similarity" (cosine), "vector_score", "keyword_score" (BM25),
 * "fused_score" (hybrid ranking score), and "recency" when recency moved it: how every surface
 * ranks one. */
void hx_present_rank(hx_json_writer *w, const hx_result *r);
/* "path", "reason" of a rejected or failed document, inside an object the caller opens. */
void hx_present_reason(hx_json_writer *w, const char *path, const char *reason);

/* {"key": "value", "list": ["a", "b"], ...} of a document's metadata: a key with several values
 * (a list, hyrax.h hx_doc_info) is an array of them, in order. */
void hx_present_meta(hx_json_writer *w, const hx_kv *meta, size_t n);

/* "citation": {"doc_id","path","chunk_id","chunk_index","line_start","line_end","version",
 * "generation"}: where a result's text is, down to the document's content hash (version) and the
 * commit that answered (generation), so a read_context {selector: as_of} or a baseline replays it. */
void hx_present_citation(hx_json_writer *w, const hx_result *r, uint64_t generation);
/* One result object, the same in the CLI's `search --json` and every MCP answer that lists results:
 * rank, score, side scores, chunk_id, doc_id, path, title, heading, chunk_index, line_start,
 * line_end, text, snippet ("" when none was built), citation, metadata, version (hash), and when
 * grouped by document its "more". The flat location keys are DESIGN.md's command-line contract;
 * the citation object is seed 001's, and holds the same values. */
void hx_present_result(hx_json_writer *w, const hx_result *r, hx_group group, uint64_t generation);
/* "more": [{"score","chunk_id","chunk_index","heading","line_start","line_end"}, ...]: the other
 * matching chunks of a result's document, best first (every surface writes them so). */
void hx_present_more(hx_json_writer *w, const hx_result *r);

/* The search answer: {"query","mode","group","results":[...],"total_results","keyword_bound",
 * "search_time_ms","read_context"}; keyword_bound is the query's BM25 score bound (fusion.h
 * relevance), t the commit that answered. */
void hx_present_search(hx_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r,
                       const hx_read_taken *t);

/* "read_context": {"selector", "baseline_id" (the name of the commit read, or null), "as_of" (the
 * time asked, or null), "generation", "committed_at"}: which commit answered (seed 001 5.2), in
 * every answer read from the index. */
void hx_present_read_context(hx_json_writer *w, const hx_read_taken *t);

/* "file" or "stored": the "source" of a document in every answer that describes one. */
const char *hx_present_kind(hx_doc_kind k);

/* The index statistics object; _members writes its members only, into an object the caller
 * opens and closes (`hyrax stats --json` adds the lasting statistics to it). */
void hx_present_stats(hx_json_writer *w, const hx_index_stats *st, const char *root);
void hx_present_stats_members(hx_json_writer *w, const hx_index_stats *st, const char *root);

#endif
