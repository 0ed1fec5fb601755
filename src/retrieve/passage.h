/* passage.h: search results -> passages, what get_context cites: the chunks of one document (of one
 * tier: hx_result.tier, the same static name) whose byte ranges touch or overlap, merged into one range of that document's text. Knows nothing of
 * token budgets or JSON (mcp_tools.c does both). Relies on what the index checks at load (view_load.c): a
 * result's body (text, text_len) is exactly its document's bytes [byte_start, byte_end). */
#ifndef HX_PASSAGE_H
#define HX_PASSAGE_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_passage {
    const hx_result *first;      /* the best-ranked chunk, for document fields; borrowed from the results */
    uint32_t start, end;         /* byte range in the document */
    uint32_t line_start, line_end;
    float relevance;             /* the best chunk's score */
    char *text;                  /* owned: the document's bytes [start, end), NUL-terminated */
    uint32_t *chunk_ids;         /* owned: the merged chunks, in rank order, then those added by
                                    hxi_passage_extend */
    size_t n_chunks;
    size_t n_ranked;             /* chunk_ids[0 .. n_ranked) came from the results */
} hxi_passage;

typedef struct hxi_passages {
    hxi_passage *v;               /* owned: free with hxi_passages_free; in rank order of their best chunk */
    size_t n;
} hxi_passages;

/* Groups res->v (in rank order) into passages. The passages borrow from `res` until it is freed.
 * Returns 0 or HX_ENOMEM. */
int hxi_passages_build(const hx_results *res, hxi_passages *out, hx_error *err);
void hxi_passages_free(hxi_passages *p);

/* Merges chunk r (of p's document, touching or overlapping p's range: a neighbour) into p: its
 * text and lines grow to cover it and its id is appended to chunk_ids after the ranked ones.
 * Returns 0 or HX_ENOMEM (p unchanged). */
int hxi_passage_extend(hxi_passage *p, const hx_result *r, hx_error *err);

#endif
