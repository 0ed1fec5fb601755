/* present.h: JSON pieces of hyrax's answers. The CLI's `search --json` and `stats --json` are
 * rendered whole here (DESIGN.md "Command line" gives the search shape); a result object and its
 * citation are written here for the CLI and MCP alike; the MCP tools build their document objects
 * (ISO times) from the shared pieces: mode names, side scores, metadata and document kind. Writes
 * into an hxi_json_writer; never prints. */
#ifndef HX_PRESENT_H
#define HX_PRESENT_H

#include "hyrax.h"
#include "json.h"

const char *hxi_mode_name(hx_search_mode m);              /* "hybrid", "vector", "keyword" */
/* The names modes, groupings and sources are accepted under, and their parsers, are hyrax.h's. */

/* "key": score, or "key": null when the side that scores it missed the chunk (NAN). */
void hxi_present_score(hxi_json_writer *w, const char *key, float s);
/* "rank", "score" (what the list is sorted by), "relevance" (0..1), "similarity" (cosine),
 * "vector_score", "keyword_score" (BM25), "fused_score" (hybrid RRF or weighted score), and
 * "recency" when recency moved it: how every surface ranks one. */
void hxi_present_rank(hxi_json_writer *w, const hx_result *r);
/* "path", "reason" of a rejected or failed document, inside an object the caller opens. */
void hxi_present_reason(hxi_json_writer *w, const char *path, const char *reason);
/* "rejected": [{"path", "reason"}, ...] of an update's or a publish's rejected documents. */
void hxi_present_rejected(hxi_json_writer *w, const hx_rejected *v, size_t n);

/* {"entries": [{"time", "path", "sha256", "rule", "reason"}, ...], "count": n} of an audit log
 * (hyrax.h hx_audit_list), oldest first, times ISO-8601 UTC: `hyrax audit --json` and audit_log. */
void hxi_present_audit(hxi_json_writer *w, const hx_audit_list *l);


/* {"key": "value", "list": ["a", "b"], ...} of a document's metadata: a key with several values
 * (a list, hyrax.h hx_doc_info) is an array of them, in order. */
void hxi_present_meta(hxi_json_writer *w, const hx_kv *meta, size_t n);
/* The same object of a chunk's metadata: its unit's pairs (hx_result.chunk_meta) first, then the
 * document's under keys the unit does not have (the unit's pair wins): every surface's result
 * "metadata" and get_context's sources. */
void hxi_present_meta_merged(hxi_json_writer *w, const hx_kv *chunk, size_t n_chunk, const hx_kv *doc, size_t n_doc);

/* "signer": who signed the document (hyrax.h hx_doc_trust.signer), null when it is unsigned: in
 * every result, citation, context source and document object. */
void hxi_present_signer(hxi_json_writer *w, const char *signer);

/* "citation": {"doc_id","path","chunk_id","chunk_index","line_start","line_end","unit","version",
 * "generation","signer"}: where a result's text is, down to the document's content hash (version) and the
 * commit that answered (generation), so a read_context {selector: as_of} or a baseline replays it. */
void hxi_present_citation(hxi_json_writer *w, const hx_result *r, uint64_t generation);
/* One result object, the same in the CLI's `search --json` and every MCP answer that lists results:
 * rank, score, side scores, chunk_id, doc_id, path, title, heading, chunk_index, line_start,
 * line_end, text, snippet ("" when none was built), citation, metadata (the chunk's merged with its
 * document's, hxi_present_meta_merged), version (hash), "tier" when
 * the result has one (also in the citation), and when grouped by document its "more". The flat location keys are DESIGN.md's command-line contract;
 * the citation object is seed 001's, and holds the same values. */
void hxi_present_result(hxi_json_writer *w, const hx_result *r, hx_group group, uint64_t generation);
/* The same object left open, for a caller that adds its own fields (the registry tier's) and
 * closes it with hxi_json_write_obj_end. */
void hxi_present_result_open(hxi_json_writer *w, const hx_result *r, hx_group group, uint64_t generation);
/* "more": [{"score","chunk_id","chunk_index","heading","line_start","line_end"}, ...]: the other
 * matching chunks of a result's document, best first (every surface writes them so). */
void hxi_present_more(hxi_json_writer *w, const hx_result *r);

/* === Tiers (`hyrax help tiers`) === */
/* A tier as an answer reports it: searched (absent NULL) at a generation, or not consulted and why. */
typedef struct hxi_tier_status {
    const char *name;                  /* HX_TIER_PROJECT, HX_TIER_USER; borrowed */
    const char *db;                    /* its index file; borrowed */
    const char *absent;                /* NULL: searched; else why not (no user index yet); borrowed */
    uint64_t generation;               /* the commit searched */
} hxi_tier_status;
/* "tiers": [{"tier","db","searched", then "results" (of r's results, the tier's count) and
 * "generation", or "reason"}, ...]; each result's citation carries its own tier's generation. The
 * registry's entry (HX_TIER_REGISTRY) has no "db" nor "generation", and "consulted" (= searched). */
void hxi_present_tiers(hxi_json_writer *w, const hxi_tier_status *tiers, size_t n, const hx_results *r);
/* The tiers a session answer read (hyrax.h hx_session_answer) as the presenters take them, into
 * st (room for 3; strings borrowed from ans); their count. */
size_t hxi_present_answer_tiers(const hx_session_answer *ans, hxi_tier_status st[3]);
/* The commit that answered r: the generation of the tier r names among tiers[0..n), else def. */
uint64_t hxi_present_tier_generation(const hxi_tier_status *tiers, size_t n, const hx_result *r, uint64_t def);
/* The search answer: {"query","mode","group","results":[...],"total_results","keyword_bound",
 * "search_time_ms","read_context"} and, when tiers is not NULL, "tiers" after read_context;
 * keyword_bound is the query's BM25 score bound (fusion.h relevance), t the commit that answered. */
void hxi_present_search_tiers(hxi_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r,
                              const hx_read_taken *t, const hxi_tier_status *tiers, size_t n_tiers);

/* The answer of a registry search (hx_session_search with source HX_SEARCH_REGISTRY):
 * {"query","mode","source":"registry", "registry":{"consulted", "reason" when not},"results":[...],
 * "total_results"}, each result as hxi_present_result writes it plus "tier":"registry","tenant",
 * "visibility","signer", "published_at" (fields[i] of result i). r may be NULL (not consulted). */
void hxi_present_registry_search(hxi_json_writer *w, const char *query, hx_search_mode mode, const hx_results *r,
                                 const hx_registry_fields *fields, const char *not_consulted);

/* "read_context": {"selector", "baseline_id" (the name of the commit read, or null), "as_of" (the
 * time asked, or null), "generation", "committed_at"}: which commit answered (seed 001 5.2), in
 * every answer read from the index. */
void hxi_present_read_context(hxi_json_writer *w, const hx_read_taken *t);

/* "file" or "stored": the "source" of a document in every answer that describes one. */
const char *hxi_present_kind(hx_doc_kind k);

/* The lasting statistics' members (hyrax.h hx_activity), into an object the caller opens and closes:
 * "latency": {tool: {calls, mean_ms, p50_ms, p95_ms, p99_ms, transports: {transport: {...}}}},
 * "top_queries": [{query, count}], "top_queries_window_s", "index": {updates, files_added,
 * files_updated, files_removed, files_rejected, update_failures, last_update_at, last_error,
 * lag: {count, mean_ms, p50_ms, p95_ms, p99_ms}}: `hyrax stats --json`, index_health, /health. */
void hxi_present_activity(hxi_json_writer *w, const hx_activity *a);

/* The members of the index statistics object, into an object the caller opens and closes
 * (`hyrax stats --json` adds the lasting statistics to it). */
void hxi_present_stats_members(hxi_json_writer *w, const hx_index_stats *st, const char *root);

#endif
