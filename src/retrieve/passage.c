/* passage.c: merging ranked chunks into passages (spec in passage.h). Owns only that; ranges come
 * from the index view, which has checked them at load, so every copy here stays in its buffer. */
#include "passage.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* Merges chunk r into p: p's text grows to cover [min start, max end); a gap between the two
 * (chunks that only touch never leave one) reads as spaces. */
static int merge(hxi_passage *p, const hx_result *r)
{
    uint32_t start = r->byte_start < p->start ? r->byte_start : p->start;
    uint32_t end = r->byte_end > p->end ? r->byte_end : p->end;
    char *t = hx_malloc((size_t)(end - start) + 1);
    uint32_t *ids = hx_realloc(p->chunk_ids, (p->n_chunks + 1) * sizeof *ids);
    if (ids)
        p->chunk_ids = ids;
    if (!t || !ids) {
        free(t);
        return HX_ENOMEM;
    }
    memset(t, ' ', end - start);
    if (p->text)
        memcpy(t + (p->start - start), p->text, p->end - p->start);
    memcpy(t + (r->byte_start - start), r->text, r->text_len);   /* text_len == byte_end - byte_start */
    t[end - start] = 0;
    free(p->text);
    p->text = t;
    p->start = start;
    p->end = end;
    if (r->line_start < p->line_start)
        p->line_start = r->line_start;
    if (r->line_end > p->line_end)
        p->line_end = r->line_end;
    p->chunk_ids[p->n_chunks++] = r->chunk_id;
    return 0;
}

int hxi_passages_build(const hx_results *res, hxi_passages *out, hx_error *err)
{
    out->n = 0;
    if (!(out->v = hx_calloc(res->n ? res->n : 1, sizeof *out->v)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory assembling passages");
    for (size_t i = 0; i < res->n; i++) {   /* in rank order: a passage's relevance is its best chunk's */
        const hx_result *r = &res->v[i];
        size_t j = 0;
        while (j < out->n && !(out->v[j].first->doc_id == r->doc_id && out->v[j].first->tier == r->tier &&
                               r->byte_start <= out->v[j].end && r->byte_end >= out->v[j].start))
            j++;
        if (j == out->n)
            out->v[out->n++] = (hxi_passage){r, r->byte_start, r->byte_start, r->line_start, r->line_end, r->score,
                                            NULL, NULL, 0, 0};
        if (merge(&out->v[j], r)) {
            hxi_passages_free(out);
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory assembling passages");
        }
        out->v[j].n_ranked++;
    }
    return 0;
}

int hxi_passage_extend(hxi_passage *p, const hx_result *r, hx_error *err)
{
    return merge(p, r) ? hx_error_set(err, HX_ENOMEM, -1, "out of memory assembling passages") : 0;
}

void hxi_passages_free(hxi_passages *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].text);
        free(p->v[i].chunk_ids);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
}
