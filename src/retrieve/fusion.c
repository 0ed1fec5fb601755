/* fusion.c: rank fusion as specified in fusion.h. Pure computation on arrays the caller owns;
 * knows nothing of indexes or documents. */
#include "fusion.h"

#include <math.h>

static void minmax(const hxi_hit *h, size_t n, float *lo, float *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (h[i].score < *lo)
            *lo = h[i].score;
        if (h[i].score > *hi)
            *hi = h[i].score;
    }
}

/* Min-max normalised score; a list whose scores are all equal maps to 1. */
static float normalise(float s, float lo, float hi)
{
    return hi > lo ? (s - lo) / (hi - lo) : 1.0f;
}

/* True when a ranks before b: higher score, then the caller's tie-break, then lower id. */
static int before(const hxi_fused *a, const hxi_fused *b, hxi_tiebreak_fn tiebreak, void *ctx)
{
    if (a->score != b->score)
        return a->score > b->score;
    int t = tiebreak ? tiebreak(a->id, b->id, ctx) : 0;
    return t ? t < 0 : a->id < b->id;
}

/* Insertion sort: the lists hold at most 2 x 4 x k entries, and it needs no global context. */
static void sort_fused(hxi_fused *v, size_t n, hxi_tiebreak_fn tiebreak, void *ctx)
{
    for (size_t i = 1; i < n; i++) {
        hxi_fused x = v[i];
        size_t j = i;
        while (j > 0 && before(&x, &v[j - 1], tiebreak, ctx)) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static const hxi_calibration cal_vector = HX_CALIBRATION_VECTOR, cal_keyword = HX_CALIBRATION_KEYWORD,
                            cal_hybrid = HX_CALIBRATION_HYBRID;

/* sigmoid(b + wc * c * cosine + wx * x * kw_norm + HX_NAME_WEIGHT * name - HX_REPEAT_WEIGHT *
 * repeat) of calibration k, a feature of weight 0 left out (a NaN cosine in keyword mode); 0 for NaN */
static float logistic(const hxi_calibration *k, double wc, double wx, float cosine, float kw_norm, float name,
                      float repeat)
{
    double z = k->b + (wc != 0 ? wc * k->c * cosine : 0) + (wx != 0 ? wx * k->x * kw_norm : 0) +
               (double)HX_NAME_WEIGHT * name - (double)HX_REPEAT_WEIGHT * repeat;
    double p = 1.0 / (1.0 + exp(-z));
    return isnan(p) ? 0.0f : (float)p;
}

float hxi_relevance_named(hx_search_mode mode, float cosine, float kw_norm, float name, float repeat)
{
    const hxi_calibration *k = mode == HX_MODE_VECTOR ? &cal_vector : mode == HX_MODE_KEYWORD ? &cal_keyword : &cal_hybrid;
    return logistic(k, mode != HX_MODE_KEYWORD, mode != HX_MODE_VECTOR, cosine, kw_norm, name, repeat);
}

float hxi_relevance(hx_search_mode mode, float cosine, float kw_norm)
{
    return hxi_relevance_named(mode, cosine, kw_norm, 0, 0);
}

float hxi_rank_score(const hxi_fusion *f, float cosine, float kw_norm, float name, float repeat)
{
    double mean = ((double)f->vector_weight + f->text_weight) / 2;
    return logistic(&cal_hybrid, f->vector_weight / mean, f->text_weight / mean, cosine, kw_norm, name, repeat);
}

int hx_fusion_check_weights(float vector_weight, float text_weight, hx_error *err)
{
    if (!isfinite(vector_weight) || !isfinite(text_weight) || vector_weight < 0 || text_weight < 0 ||
        !isfinite(vector_weight + text_weight) || vector_weight + text_weight <= 0)
        return hx_error_set(err, HX_EINVAL, -1,
                            "fusion weights must be finite numbers >= 0, not both 0 (got %g and %g)",
                            (double)vector_weight, (double)text_weight);
    return 0;
}

int hxi_fuse(const hxi_fusion *f, const hxi_hit *vec, size_t na, const hxi_hit *kw, size_t nb,
             hxi_tiebreak_fn tiebreak, void *ctx, hxi_fused *out, size_t *n_out, hx_error *err)
{
    if (f->kind == HX_FUSE_RRF && f->rrf_k <= 0)
        return hx_error_set(err, HX_EINVAL, -1, "RRF k must be positive, got %d", f->rrf_k);
    int rc = hx_fusion_check_weights(f->vector_weight, f->text_weight, err);
    if (rc)
        return rc;
    float vlo, vhi, klo, khi;
    minmax(vec, na, &vlo, &vhi);
    minmax(kw, nb, &klo, &khi);
    size_t n = 0;
    for (size_t i = 0; i < na; i++) {
        out[n] = (hxi_fused){vec[i].id, 0, vec[i].score, NAN, (uint32_t)i + 1, 0, 0, NAN, 1, 0};
        n++;
    }
    for (size_t i = 0; i < nb; i++) {
        size_t j = 0;
        while (j < na && out[j].id != kw[i].id)   /* lists are 4 x k long: a scan is cheap */
            j++;
        if (j == na)
            out[n++] = (hxi_fused){kw[i].id, 0, NAN, kw[i].score, 0, (uint32_t)i + 1, 0, NAN, 1, 0};
        else {
            out[j].keyword_score = kw[i].score;
            out[j].keyword_rank = (uint32_t)i + 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        hxi_fused *r = &out[i];
        if (f->kind == HX_FUSE_RRF) {
            r->score = (r->vector_rank ? f->vector_weight / (float)(f->rrf_k + (int)r->vector_rank) : 0) +
                       (r->keyword_rank ? f->text_weight / (float)(f->rrf_k + (int)r->keyword_rank) : 0);
        } else {
            float wsum = f->vector_weight + f->text_weight;
            r->score = ((r->vector_rank ? f->vector_weight * normalise(r->vector_score, vlo, vhi) : 0) +
                        (r->keyword_rank ? f->text_weight * normalise(r->keyword_score, klo, khi) : 0)) / wsum;
        }
    }
    sort_fused(out, n, tiebreak, ctx);
    *n_out = n;
    return 0;
}
