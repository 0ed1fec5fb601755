/* test_fusion.c: RRF and weighted fusion against scores worked out by hand from their formulas,
 * merging of chunks found by both sides, deterministic tie-breaks, and refused parameters. */
#include "check.h"
#include "fusion.h"

#include <math.h>
#include <string.h>

static int by_reverse_id(uint32_t a, uint32_t b, void *ctx)
{
    (void)ctx;
    return a > b ? -1 : a < b;
}

static void test_rrf(void)
{
    hxi_hit vec[] = {{10, 0.9f}, {20, 0.8f}, {30, 0.7f}};
    hxi_hit kw[] = {{30, 12.0f}, {40, 9.0f}};
    hxi_fused out[5];
    size_t n = 0;
    hxi_fusion f = {HX_FUSE_RRF, 60, 1, 1};
    hx_error err;
    CHECK(hxi_fuse(&f, vec, 3, kw, 2, NULL, NULL, out, &n, &err) == 0, "rrf: %s", err.message);
    CHECK(n == 4, "4 distinct chunks, got %zu", n);
    /* chunk 30: vector rank 3, keyword rank 1 -> 1/63 + 1/61, the best */
    CHECK(out[0].id == 30, "chunk in both lists first, got %u", out[0].id);
    CHECK(fabsf(out[0].score - (1.0f / 63 + 1.0f / 61)) < 1e-7f, "rrf score %g", out[0].score);
    CHECK(out[0].vector_rank == 3 && out[0].keyword_rank == 1, "ranks kept");
    CHECK(out[1].id == 10 && fabsf(out[1].score - 1.0f / 61) < 1e-7f, "then vector rank 1");
    /* 20 (vector rank 2) and 40 (keyword rank 2) tie at 1/62: lower id first by default */
    CHECK(out[2].id == 20 && out[3].id == 40, "tie broken by id: %u %u", out[2].id, out[3].id);
    CHECK(isnan(out[3].vector_score) && out[3].vector_rank == 0, "missing side marked");
    CHECK(hxi_fuse(&f, vec, 3, kw, 2, by_reverse_id, NULL, out, &n, &err) == 0, "rrf with tiebreak");
    CHECK(out[2].id == 40 && out[3].id == 20, "caller's tie-break decides ties");
    hxi_fusion weighted_rrf = {HX_FUSE_RRF, 60, 0.7f, 0.3f};
    CHECK(hxi_fuse(&weighted_rrf, vec, 3, kw, 2, NULL, NULL, out, &n, &err) == 0, "weighted rrf");
    /* chunk 30 still leads (0.7/63 + 0.3/61); at equal ranks the vector side now weighs more */
    CHECK(out[0].id == 30 && fabsf(out[0].score - (0.7f / 63 + 0.3f / 61)) < 1e-7f, "weights scale each side");
    CHECK(out[1].id == 10 && out[2].id == 20 && out[3].id == 40, "vector side outranks keyword side at equal rank");
}

static void test_weighted(void)
{
    hxi_hit vec[] = {{1, 0.9f}, {2, 0.5f}, {3, 0.1f}};
    hxi_hit kw[] = {{3, 20.0f}, {4, 10.0f}, {1, 0.0f}};
    hxi_fused out[6];
    size_t n = 0;
    hxi_fusion f = {HX_FUSE_WEIGHTED, 0, 0.7f, 0.3f};
    hx_error err;
    CHECK(hxi_fuse(&f, vec, 3, kw, 3, NULL, NULL, out, &n, &err) == 0, "weighted: %s", err.message);
    CHECK(n == 4, "4 chunks");
    /* normalised: vec 1->1, 2->0.5, 3->0; kw 3->1, 4->0.5, 1->0 */
    float want[5] = {0, 0.7f * 1 + 0.3f * 0, 0.7f * 0.5f, 0.7f * 0 + 0.3f * 1, 0.3f * 0.5f};
    for (size_t i = 0; i < n; i++)
        CHECK(fabsf(out[i].score - want[out[i].id]) < 1e-6f, "chunk %u score %g want %g", out[i].id,
              out[i].score, want[out[i].id]);
    CHECK(out[0].id == 1 && out[1].id == 2 && out[2].id == 3 && out[3].id == 4, "order by score");
    hxi_hit same[] = {{7, 0.5f}, {8, 0.5f}};
    CHECK(hxi_fuse(&f, same, 2, NULL, 0, NULL, NULL, out, &n, &err) == 0 && fabsf(out[0].score - 0.7f) < 1e-6f,
          "equal scores normalise to 1");
}

static void test_refused(void)
{
    hxi_fused out[1];
    size_t n;
    hx_error err;
    hxi_fusion bad_k = {HX_FUSE_RRF, 0, 1, 1};
    CHECK(hxi_fuse(&bad_k, NULL, 0, NULL, 0, NULL, NULL, out, &n, &err) == HX_EINVAL, "k = 0 refused");
    hxi_fusion zero = {HX_FUSE_WEIGHTED, 0, 0, 0};
    CHECK(hxi_fuse(&zero, NULL, 0, NULL, 0, NULL, NULL, out, &n, &err) == HX_EINVAL, "zero weights refused");
    hxi_fusion neg = {HX_FUSE_WEIGHTED, 0, -1, 2};
    CHECK(hxi_fuse(&neg, NULL, 0, NULL, 0, NULL, NULL, out, &n, &err) == HX_EINVAL, "negative weight refused");
    hxi_fusion nan_w = {HX_FUSE_WEIGHTED, 0, NAN, 1};
    CHECK(hxi_fuse(&nan_w, NULL, 0, NULL, 0, NULL, NULL, out, &n, &err) == HX_EINVAL, "NaN weight refused");
    hxi_fusion inf_w = {HX_FUSE_RRF, 60, INFINITY, 1};
    CHECK(hxi_fuse(&inf_w, NULL, 0, NULL, 0, NULL, NULL, out, &n, &err) == HX_EINVAL, "infinite weight refused");
    hxi_fusion huge = {HX_FUSE_WEIGHTED, 0, 3e38f, 3e38f};
    CHECK(hxi_fuse(&huge, NULL, 0, NULL, 0, NULL, NULL, out, &n, &err) == HX_EINVAL, "weights whose sum overflows refused");
    /* the rule itself, as the CLI and MCP call it */
    CHECK(hx_fusion_check_weights(0.7f, 0.3f, &err) == 0 && hx_fusion_check_weights(0, 1, &err) == 0,
          "finite weights >= 0 accepted");
    CHECK(hx_fusion_check_weights(0, 0, &err) == HX_EINVAL && strstr(err.message, "not both 0"), "zeros: %s",
          err.message);
    CHECK(hx_fusion_check_weights(-INFINITY, 1, &err) == HX_EINVAL, "-inf refused");
    CHECK(hx_fusion_check_weights(1, NAN, &err) == HX_EINVAL, "NaN refused");
}

int main(void)
{
    test_rrf();
    test_weighted();
    test_refused();
    return check_report("test_fusion");
}
