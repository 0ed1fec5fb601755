/* fusion.h: merges a vector ranking and a keyword ranking into one. Reciprocal rank fusion
 * (score = sum of weight / (k + rank), ranks from 1, weights 1 and 1 by default: seed 002) or a
 * weighted sum of min-max normalised scores (seed 003). A chunk found by both sides appears once. Ties are broken by
 * the caller's comparator (hyrax uses path, then chunk index), so output order is deterministic. */
#ifndef HX_FUSION_H
#define HX_FUSION_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

#define HX_RRF_K 60
/* The default weights of the two sides (HX_VECTOR_WEIGHT, HX_TEXT_WEIGHT) and the one rule for
 * weights (hx_fusion_check_weights) are public: hyrax.h "Search". */

/* === Relevance: scores a threshold can use ===
 * A result's `score` is P(relevant | features), an absolute 0..1 relevance, from a logistic
 * (Platt) map of two features: c, the cosine of query and chunk, and x = BM25 / the query's score
 * bound (bm25.h hxi_bm25_params.bound: the sum of the query terms' idf, terms no chunk holds
 * included), in [0, 1). Unlike min-max or rank normalisation it does not rescale each query's
 * list, so an off-topic query scores low throughout and the floor drops it whole.
 *   vector:  p = sigmoid(v.c * c + v.b)
 *   keyword: p = sigmoid(k.x * x + k.b)
 *   hybrid:  p = sigmoid(h.c * c + h.x * x + h.b), with the cosine of every candidate (the keyword
 *            side's too) and x = 0 where the keyword side missed the chunk (its BM25 is below the
 *            side's last candidate's): one logistic regression on both features together
 * The constants are fitted on the Cranfield judgements (1,400 abstracts, 225 queries; a document
 * judged 1..4 counts as relevant) by bench/calibrate.py, which prints this table: run it again
 * after a change to the model, the analyzer or BM25, and paste its output here. Vector and keyword
 * mode rank by p (with the name match and repeat cut below); hybrid mode fuses those two rankings
 * (hyrax.h hx_fusion_method). */
typedef struct hxi_calibration {
    float c, x, b;   /* weights of cosine and normalised BM25, and the intercept */
} hxi_calibration;
/* fitted by bench/calibrate.py on Cranfield (225 judged queries, 45000 chunks) */
#define HX_CALIBRATION_VECTOR {9.9927f, 0, -7.8585f}
#define HX_CALIBRATION_KEYWORD {0, 9.2469f, -4.7305f}
#define HX_CALIBRATION_HYBRID {7.4328f, 5.2953f, -7.5058f}

/* The relevance of a candidate with cosine `cosine` (ignored in keyword mode) and normalised BM25
 * `kw_norm` (ignored in vector mode; 0 where the keyword side missed it), in [0, 1]. */
float hxi_relevance(hx_search_mode mode, float cosine, float kw_norm);

/* === The named document first ===
 * A search adds HX_NAME_WEIGHT x the candidate's name match (title.h: 1 when the query is, or holds
 * as a phrase, its document's title, file or folder name or its heading; their overlap otherwise)
 * to z in every mode, so the document a query names ranks first. Chosen on the KEP known items
 * (bench/kep_golden.py, whose queries are KEP titles); Cranfield has no names to match (its titles
 * are the first line of the text), and its queries barely move. */
#define HX_NAME_WEIGHT 4.0f
/* ... and subtracts HX_REPEAT_WEIGHT x its repeat cut from z, for a chunk that cannot answer on its
 * own text: the share of its body in lines that many documents repeat (boilerplate: a template's
 * instructions and questions, its table of contents; src/index/boiler.c), or a half for a body
 * that holds no more than its heading (a title alone), so it sinks below the chunks that say
 * something. */
#define HX_REPEAT_WEIGHT 10.0f

/* hxi_relevance with the name match `name` in [0, 1] and the repeat cut `repeat` in [0, 1]: the
 * chunk's boilerplate share, at least 0.5 for a chunk that holds only its title or heading
 * (search.c). */
float hxi_relevance_named(hx_search_mode mode, float cosine, float kw_norm, float name, float repeat);

/* The hybrid ranking score of HX_FUSION_RELEVANCE: the hybrid relevance with the cosine's and the
 * BM25's weights scaled by f's vector_weight and text_weight over their mean (the default 0.5 and
 * 0.5 leave hxi_relevance(HX_MODE_HYBRID, cosine, kw_norm) as it is). */
struct hxi_fusion;
float hxi_rank_score(const struct hxi_fusion *f, float cosine, float kw_norm, float name, float repeat);

typedef struct hxi_hit {
    uint32_t id;        /* chunk id */
    float score;        /* the side's own score (cosine, BM25) */
} hxi_hit;

typedef struct hxi_fused {
    uint32_t id;
    float score;                 /* fused score */
    float vector_score, keyword_score;   /* each side's raw score, NAN when the side missed it */
    uint32_t vector_rank, keyword_rank;  /* 1-based, 0 when the side missed it */
    float relevance, similarity;         /* set by the caller (search.c): hxi_relevance, cosine */
    float recency;                       /* set by the caller: the recency factor */
    float rank;                          /* set by the caller: what the list is sorted by (hyrax.h
                                            hx_result.score) */
} hxi_fused;

typedef enum { HX_FUSE_RRF, HX_FUSE_WEIGHTED } hxi_fusion_kind;

typedef struct hxi_fusion {
    hxi_fusion_kind kind;
    int rrf_k;                       /* RRF constant, > 0 (default HX_RRF_K) */
    float vector_weight, text_weight; /* per side, see hx_fusion_check_weights (RRF: 1 and 1 is plain RRF) */
} hxi_fusion;

/* Orders two chunk ids that tie on score; negative when a comes first. */
typedef int (*hxi_tiebreak_fn)(uint32_t a, uint32_t b, void *ctx);

/* Fuses `vec` (best first, na hits) and `kw` (best first, nb hits) into `out`, which holds
 * na + nb entries; *n_out gets the number of distinct chunks, sorted best first. Each input
 * list must not repeat an id. HX_EINVAL for k <= 0 (RRF) or weights hx_fusion_check_weights refuses. */
int hxi_fuse(const hxi_fusion *f, const hxi_hit *vec, size_t na, const hxi_hit *kw, size_t nb,
             hxi_tiebreak_fn tiebreak, void *ctx, hxi_fused *out, size_t *n_out, hx_error *err);

#endif
