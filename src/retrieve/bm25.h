/* bm25.h: the BM25 inverted index of hyrax: builder, flat serialized form and reader over mapped
 * bytes (bm25.c), keyword query syntax and top-k search with MaxScore pruning across segments
 * (bm25_search.c), and snippets (snippet.c). Terms come from analyzer.h; the container that
 * stores the blob is the index's business (one blob per segment), not this module's.
 *
 * === Fields ===
 * A document has two fields: its body, and a header (hyrax puts a chunk's title and heading path
 * there, hxi_bm25_builder_add_chunk). Both are analyzed alike; a header term is stored as
 * HX_BM25_HEAD_MARK ('^', never part of an analyzed term) followed by the term, in the same
 * dictionary, with its own positions (numbered from 0 within the header). Only the body counts in
 * the document length, so a title repeated in every chunk of a long document inflates neither the
 * chunks' term counts nor their lengths. A word of a query matches a document when either field
 * holds it (+word, -word too); a phrase only where its words stand together in the body (a header
 * never makes a phrase match, whatever it holds).
 *
 * === Scoring ===
 * Lucene >= 8 BM25 (BM25Similarity without the (k1 + 1) factor), with exact document lengths (no
 * lossy one-byte norms), the two fields combined as BM25F (Robertson & Zaragoza) in the manner of
 * Lucene's CombinedFieldQuery: one saturation per term over a weighted sum of its field
 * frequencies, so a word in the title and the body is not scored twice:
 *     idf(t)   = ln(1 + (N - df + 0.5) / (df + 0.5)),  df = max(df body, df header)
 *     B(d)     = 1 - b + b * dl / avgdl                 (body length only; the header, a few
 *                                                        words, is not length-normalised: b = 0)
 *     tf~(t,d) = tf body + head_weight * tf header * B(d)
 *     s(t, d)  = idf(t) * tf~ / (tf~ + k1 * B(d))
 *     score(d) = sum over the query's scoring clauses of s(t, d)
 * (so tf~ / (tf~ + k1 B) = x / (x + 1) with x = tf body / (k1 B) + head_weight * tf header / k1:
 * each field's frequency over its own normalisation, summed before saturating.) Without a header
 * match this is plain BM25, bit for bit. k1 = 1.2, b = 0.75, head_weight = HX_BM25_HEAD_WEIGHT by
 * default. dl is the analyzer's doc_len of the body (analyzer.h: the leaf count, or with English
 * analysis the count of stemmed terms).
 * N, avgdl and df are taken over the live (not deleted) documents of ALL segments passed to
 * hxi_bm25_search, so scores do not depend on how documents are split into segments. A phrase scores
 * like a Lucene PhraseQuery on the body: the sum of its terms' idf times the tf formula with tf =
 * the number of times the phrase occurs in the body. A clause given n times in a query scores n
 * times (Lucene sums repeated clauses; "cost cost" weighs cost twice). Computation is in double
 * precision.
 *
 * === Serialized segment (one blob, all integers little-endian, built by hxi_bm25_builder_finish) ===
 * Header, 64 bytes at offset 0:
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXBM25\0\0"
 *        8    4 version, currently 2 (1 had no header field; refused, with its number, like any
 *                other: an index holding one is rebuilt, see ix.h)
 *       12    4 block size B of the skip table (128)
 *       16    4 n_docs
 *       20    4 n_terms
 *       24    8 total document length (sum of dl over all docs)
 *       32    8 blob size in bytes (a shorter buffer is truncated)
 *       40    4 analyzer configuration the terms were made with (HX_ANALYZER_*; 0 = exact)
 *       44   20 reserved, zero
 * Array directory, 8 entries of 16 bytes at offset 64: u64 offset (8-aligned, >= 192), u64 length.
 *   ENTRY ARRAY       ELEMENT   DESCRIPTION
 *       0 doc_ids     u32       external doc ids, strictly ascending; a doc's ordinal is its index
 *       1 doc_lens    u32       dl per doc ordinal
 *       2 term_offs   u32       n_terms + 1 offsets into term_bytes, ascending, first 0, last = len
 *       3 term_bytes  u8        term texts, strictly ascending in byte order (memcmp)
 *       4 term_info   32 bytes  per term, see below
 *       5 skips       24 bytes  one per block of B postings of each term, see below
 *       6 docs        u8        doc stream of each term, concatenated
 *       7 positions   u8        position stream of each term, concatenated
 * term_info entry, 32 bytes:
 *   OFFSET SIZE DESCRIPTION
 *        0    4 df (>= 1): number of postings
 *        4    4 max_tf over the postings    } impact bounds: every posting has tf <= max_tf and
 *        8    4 min_dl over the postings    } dl >= min_dl, so s(t,d) <= s(max_tf, min_dl)
 *       12    4 first skip entry; term t owns ceil(df / B) entries from there (= sum over earlier)
 *       16    8 start of the term's doc stream in docs (ends where the next term's starts)
 *       24    8 start of the term's position stream in positions (likewise)
 * skips entry, 24 bytes, for block j (postings j*B .. j*B+B-1) of a term:
 *        0    4 ordinal of the block's last doc
 *        4    4 byte offset of the block's first posting, relative to the term's doc stream
 *        8    8 byte offset of the block's first positions, relative to the term's position stream
 *       16    4 max tf in the block    } block-max impact bounds, as in term_info but per block
 *       20    4 min dl in the block    }
 * Doc stream: per posting, varint(gap) varint(tf): gap = ordinal - previous ordinal, where the
 *   previous ordinal of a term's first posting counts as -1 (so gaps are >= 1), tf >= 1.
 * Position stream: per posting, tf varints of position gaps (first absolute, then >= 1).
 * Varints: 7 bits per byte, low groups first, high bit = more; at most 5 bytes for 32 bits.
 * The reader checks the header and directory at open, the term table and skip table in full, and
 * every varint against the end of its stream while decoding, so corrupt bytes give HX_EFORMAT.
 *
 * === Keyword query syntax (hxi_bm25_query_parse; it never fails on garbage) ===
 *   word        analyzed like documents; every term it yields is an optional (OR) scoring clause,
 *               so kube-scheduler scores kube-scheduler, kube and scheduler. With English
 *               analysis the leaves score through their stemmed terms only (stop words not at
 *               all) and wholes and segments through the exact field: kube-scheduler scores
 *               kube-scheduler, ~kube and ~schedul. So no leaf counts in both fields; the
 *               whole (like a phrase) adds that the leaves stand joined. A leaf of one ASCII
 *               letter does not score (the I of "I am", e.g.), nor does a whole of such leaves,
 *               unless the query would have no scoring or required clause without them
 *   "word"      a quoted single word: its terms in the exact field only
 *   +word       the document must contain the word's first term (the whole compound, exact
 *               field); scores too
 *   -word       documents containing the word's first term (exact field) are dropped; no score
 *   "a b c"     phrase: the exact leaves of the text must occur at consecutive positions of the
 *               body (never through the header field); optional,
 *               +"..." required, -"..." excluded. A phrase of one leaf is a plain word. An unclosed
 *               quote runs to the end of the query. At most 32 leaves (the rest are ignored).
 *   pre*        prefix: the lowercased word characters before the '*' expand over the dictionaries
 *               of all segments (both fields) into the HX_BM25_MAX_EXPANSION (128) terms of highest total df
 *               (stored df, tombstoned docs included; ties by term bytes); each is an optional
 *               clause scored with its live df like any term; -pre* excludes every expansion;
 *               +pre* is treated as pre*. A '*' elsewhere separates words.
 * Operators apply only at the start of a word; a lone + or - is ignored; duplicate term clauses are
 * merged into one that scores as many times as it was given (a required clause wins over an
 * optional one on the same term). At most
 * HX_BM25_MAX_CLAUSES (256) clauses; further words are ignored; after prefix expansion at most 1024
 * terms and phrases take part (the rest are ignored). A query whose only clauses are exclusions
 * matches nothing.
 *
 * === Search ===
 * Document-at-a-time MaxScore per segment with one top-k heap shared by all segments: clauses are
 * ordered by their score bound (idf weight times the tf formula at the term's max_tf and min_dl);
 * the clauses whose bounds together cannot reach the current k-th score only get probed (with skip
 * blocks) for documents found by the others, and a candidate is dropped as soon as its partial
 * score plus the remaining bounds (per skip block: the block's max tf and min dl) falls below the
 * k-th score. Required clauses drive the candidate
 * stream (rarest first). Scores are summed in clause order, so pruned and exhaustive search (and
 * any segmentation) give bit-identical scores. With tombstones a search costs O(docs) for N/avgdl
 * plus O(df) per query term for live df (no tombstones: O(1) from the stored counts).
 */
#ifndef HX_BM25_H
#define HX_BM25_H

#include "analyzer.h"
#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

#define HX_BM25_MAGIC "HXBM25\0\0"
#define HX_BM25_VERSION 2
#define HX_BM25_HEAD_MARK '^'   /* first byte of a header-field term */
#define HX_BM25_HEAD_WEIGHT 1.0 /* default weight of a header occurrence against a body one */
#define HX_BM25_BLOCK 128
#define HX_BM25_MAX_EXPANSION 128
#define HX_BM25_MAX_CLAUSES 256
#define HX_BM25_MAX_PHRASE 32

/* === Builder === */

/* Accumulates documents in memory. Not thread-safe. Caller frees with hxi_bm25_builder_free. */
typedef struct hxi_bm25_builder hxi_bm25_builder;
/* analyzer: the HX_ANALYZER_* configuration documents are analyzed with (recorded in the blob). */
int hxi_bm25_builder_new(hxi_bm25_builder **out, uint32_t analyzer, hx_error *err);
void hxi_bm25_builder_free(hxi_bm25_builder *b);

/* Analyzes text[0..len) and adds it as doc_id (any order; a repeated id makes finish fail with
 * HX_EINVAL): text[0..body) is the document's header field, text[body..len) its body (body <= len;
 * 0: no header). A document with no terms still counts in N. Errors are sticky: later calls return
 * the first error. At most UINT32_MAX - 1 documents. */
int hxi_bm25_builder_add_chunk(hxi_bm25_builder *b, uint32_t doc_id, const char *text, size_t len, size_t body,
                               hx_error *err);

/* hxi_bm25_builder_add_chunk with no header: all of text[0..len) is body. */
int hxi_bm25_builder_add(hxi_bm25_builder *b, uint32_t doc_id, const char *text, size_t len, hx_error *err);

/* Serializes everything added so far into one blob (layout above). *out is malloc'ed; the caller
 * frees it with free(). The builder may be freed or added to afterwards. */
int hxi_bm25_builder_finish(hxi_bm25_builder *b, uint8_t **out, size_t *out_len, hx_error *err);

/* === Reader === */

/* A validated view of one serialized segment. Borrows `data`, which must stay mapped and
 * unchanged while the reader is used (it may be read-only and needs no alignment). Plain struct,
 * nothing to free. Safe for concurrent searches. */
typedef struct hxi_bm25_reader {
    const uint8_t *base;
    size_t size;
    uint32_t n_docs, n_terms;
    uint64_t total_len;
    uint32_t analyzer;       /* HX_ANALYZER_* of the header */
    uint32_t version;        /* format version of the header, set even when open refuses it */
    const uint8_t *arr[8];   /* the 8 arrays of the directory, in order */
    uint64_t arr_len[8];
} hxi_bm25_reader;

int hxi_bm25_reader_open(hxi_bm25_reader *r, const void *data, size_t len, hx_error *err);

/* Decodes every posting and position (full structural check, O(size)); 0 or HX_EFORMAT. */
int hxi_bm25_reader_check(const hxi_bm25_reader *r, hx_error *err);

/* Index of `term` in the dictionary, or -1. */
int64_t hxi_bm25_reader_find(const hxi_bm25_reader *r, const char *term, size_t len);

/* === Queries === */

typedef struct hxi_bm25_query hxi_bm25_query;  /* opaque; caller frees with hxi_bm25_query_free */

/* Parses text[0..len) with the syntax above, analyzing words with the HX_ANALYZER_* configuration
 * `analyzer` (that of the segments it will search). Fails only with HX_ENOMEM (or HX_ERANGE for
 * text of 4 GiB or more); an empty or all-garbage query parses to a query that matches nothing. */
int hxi_bm25_query_parse(hxi_bm25_query **out, uint32_t analyzer, const char *text, size_t len,
                         hx_error *err);

/* The analyzer configuration q was parsed with. */
uint32_t hxi_bm25_query_analyzer(const hxi_bm25_query *q);
void hxi_bm25_query_free(hxi_bm25_query *q);

/* Number of clauses after parsing (prefixes count once, before expansion). */
size_t hxi_bm25_query_clauses(const hxi_bm25_query *q);

/* The i-th term a snippet should highlight (terms of optional and required words, stemmed terms
 * included, phrase leaves and prefixes; not exclusions): *term borrowed until the query is freed, *is_prefix nonzero for a
 * prefix. Returns 0, or HX_ENOTFOUND when i is past the last one. */
int hxi_bm25_query_highlight(const hxi_bm25_query *q, size_t i, const char **term, size_t *len,
                             int *is_prefix);

/* === Search === */

/* A yes/no predicate over external doc ids; returns nonzero for yes. */
typedef int (*hxi_bm25_pred)(void *ctx, uint32_t doc_id);

typedef struct hxi_bm25_segment {
    const hxi_bm25_reader *reader;  /* borrowed for the call */
    hxi_bm25_pred is_deleted;       /* tombstones; NULL = no deleted docs in this segment */
    void *deleted_ctx;
    uint64_t live_docs, live_len;  /* with is_deleted: hxi_bm25_count_live's answer */
} hxi_bm25_segment;

/* Counts the documents of seg->reader that seg->is_deleted leaves live, and their total length,
 * into seg->live_docs and seg->live_len: O(documents), so callers do it once per set of
 * tombstones, not per query. */
void hxi_bm25_count_live(hxi_bm25_segment *seg);

typedef struct hxi_bm25_params {
    double k1, b;        /* BM25 parameters (1.2 and 0.75 in hxi_bm25_params_default) */
    double head_weight;  /* BM25F weight of the header field (HX_BM25_HEAD_WEIGHT), >= 0 */
    hxi_bm25_pred allow;  /* filter applied inside the search, before top-k; NULL = all */
    void *allow_ctx;
    int exhaustive;      /* nonzero: score every candidate (no pruning); for tests */
    double *bound;       /* out, may be NULL: the query's score bound, the sum of its scoring
                            clauses' idf weights (idf over the live documents; a term no document
                            holds counts with df 0), which a document's score nears as every tf
                            grows: what score / bound normalises by (fusion.h hxi_relevance) */
} hxi_bm25_params;

void hxi_bm25_params_default(hxi_bm25_params *p);

typedef struct hxi_bm25_hit {
    uint32_t doc_id;   /* external doc id */
    uint32_t segment;  /* index into the segs array */
    double score;
} hxi_bm25_hit;

/* Top-k live, allowed documents for q over segs[0..n_segs), best first: score descending, then
 * doc id ascending. Doc ids should be unique across segments. out has room for k hits; *n_out
 * gets the count. params NULL = defaults. HX_EFORMAT if a segment turns out to be corrupt. */
int hxi_bm25_search(const hxi_bm25_segment *segs, size_t n_segs, const hxi_bm25_query *q,
                    const hxi_bm25_params *params, size_t k, hxi_bm25_hit *out, size_t *n_out,
                    hx_error *err);

/* === Snippets (snippet.c) === */

#define HX_SNIPPET_DEFAULT 240  /* target window in bytes */

/* Best window of about `target` bytes (0 = HX_SNIPPET_DEFAULT; cut on word boundaries and never
 * inside a UTF-8 sequence) of text[0..len) for q: the window with the most distinct query terms,
 * then the most matches, then the earliest. Matched terms are wrapped in ** (Markdown bold), a
 * match inside a compound marks only the matched part; "…" (U+2026) stands where the text was cut.
 * Invalid UTF-8 in the window is replaced by U+FFFD so the result is valid UTF-8. With no match the
 * snippet is the start of the text. *out is malloc'ed, NUL-terminated; caller frees with free(). */
int hxi_snippet_make(const char *text, size_t len, const hxi_bm25_query *q, size_t target, char **out,
                     size_t *out_len, hx_error *err);

#endif
