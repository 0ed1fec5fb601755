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
/* Default weights of the two sides, chosen on Cranfield only (bench/cranfield.py, RESULTS-index.md):
 * with English analysis and the title/heading field, equal weights give the best hybrid nDCG@10
 * (0.4193, above both single modes and the peer RRF of bm25s + sentence-transformers, 0.4186;
 * 0.7 / 0.3 gave 0.4123) and keep Recall@100 above both modes; on the KEP known-item queries
 * (bench/kep_golden.py) they are the only tried setting whose recall@5 is above both modes. */
#define HX_VECTOR_WEIGHT 0.5f
#define HX_TEXT_WEIGHT 0.5f

typedef struct hx_hit {
    uint32_t id;        /* chunk id */
    float score;        /* the side's own score (cosine, BM25) */
} hx_hit;

typedef struct hx_fused {
    uint32_t id;
    float score;                 /* fused score */
    float vector_score, keyword_score;   /* each side's raw score, NAN when the side missed it */
    uint32_t vector_rank, keyword_rank;  /* 1-based, 0 when the side missed it */
} hx_fused;

typedef enum { HX_FUSE_RRF, HX_FUSE_WEIGHTED } hx_fusion_kind;

typedef struct hx_fusion {
    hx_fusion_kind kind;
    int rrf_k;                       /* RRF constant, > 0 (default HX_RRF_K) */
    float vector_weight, text_weight; /* per side, see hx_fusion_check_weights (RRF: 1 and 1 is plain RRF) */
} hx_fusion;

/* The one rule for fusion weights, for every surface (CLI --weights, MCP fusion.*_weight) and for
 * hx_fuse itself: each weight finite and >= 0, and their sum finite and > 0 (an infinite or NaN
 * weight, or two zeros, would make every fused score inf or NaN). HX_EINVAL with a sentence that
 * names the rule otherwise. */
int hx_fusion_check_weights(float vector_weight, float text_weight, hx_error *err);

/* Orders two chunk ids that tie on score; negative when a comes first. */
typedef int (*hx_tiebreak_fn)(uint32_t a, uint32_t b, void *ctx);

/* Fuses `vec` (best first, na hits) and `kw` (best first, nb hits) into `out`, which holds
 * na + nb entries; *n_out gets the number of distinct chunks, sorted best first. Each input
 * list must not repeat an id. HX_EINVAL for k <= 0 (RRF) or weights hx_fusion_check_weights refuses. */
int hx_fuse(const hx_fusion *f, const hx_hit *vec, size_t na, const hx_hit *kw, size_t nb,
            hx_tiebreak_fn tiebreak, void *ctx, hx_fused *out, size_t *n_out, hx_error *err);

#endif
