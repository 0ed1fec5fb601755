/* bm25_internal.h: what bm25.c (builder, format, reader, postings cursors) shares with
 * bm25_search.c (query parser, search): array ids, record sizes and the postings cursor. Private to
 * the BM25 module (prefix bm_); nothing outside src/bm25*.c includes it. Spec: bm25.h. */
#ifndef HX_BM25_INTERNAL_H
#define HX_BM25_INTERNAL_H

#include "bm25.h"
#include "bytes.h"

#include <stddef.h>
#include <stdint.h>

#define TERM_INFO_SIZE 32
#define SKIP_SIZE 24
#define END_DOC UINT32_MAX

/* Arrays of the directory, in order. */
enum { A_DOC_IDS, A_DOC_LENS, A_TERM_OFFS, A_TERM_BYTES, A_TERM_INFO, A_SKIPS, A_DOCS, A_POS };

/* === Dictionary === */

static inline const uint8_t *bm_term_info(const hxi_bm25_reader *r, uint32_t t)
{
    return r->arr[A_TERM_INFO] + (size_t)t * TERM_INFO_SIZE;
}

static inline void bm_term_text(const hxi_bm25_reader *r, uint32_t t, const char **s, size_t *n)
{
    uint32_t a = hxf_le32(r->arr[A_TERM_OFFS] + 4 * (size_t)t);
    uint32_t e = hxf_le32(r->arr[A_TERM_OFFS] + 4 * (size_t)t + 4);
    *s = (const char *)r->arr[A_TERM_BYTES] + a;
    *n = e - a;
}


/* First term index whose text is >= key (lower bound). */
uint32_t bm_lower_bound(const hxi_bm25_reader *r, const char *key, size_t len);

/* === Postings cursors ===
 * A cursor walks one term's postings of one reader. Every read is bounded by the stream ends;
 * corrupt bytes set `bad` and end the cursor (doc = END_DOC), never read out of bounds. */
typedef struct bm_cursor {
    const hxi_bm25_reader *r;
    const uint8_t *dp, *dstart, *dend;  /* doc stream */
    const uint8_t *pp, *pstart, *pend;  /* position stream */
    uint64_t pskip;       /* position varints between pp and the current doc's positions */
    uint32_t df, idx;     /* postings decoded so far (current = idx - 1) */
    uint32_t max_tf;      /* from the term info; a larger tf is corrupt */
    uint32_t sblk;        /* block of the last block-bound lookup (never behind the cursor's) */
    uint32_t skip_first;
    int64_t prev;         /* ordinal of the previous posting, -1 at start */
    uint32_t doc;         /* current ordinal (END_DOC when done) */
    int pos_read;         /* positions of the current doc consumed */
    uint32_t tf;          /* of the current doc; not next to doc, which bm_cur_step stores apart: one
                           * load of both would wait for the stores (a forwarding stall in search) */
    int bad;              /* corrupt stream met */
} bm_cursor;


/* Opens a cursor on term t of r, positioned on its first posting; or an empty one (doc END_DOC). */
void bm_cur_open(bm_cursor *c, const hxi_bm25_reader *r, uint32_t t);
void bm_cur_empty(bm_cursor *c);

/* Puts the cursor on the posting `gap` ordinals past the current one, with term frequency tf; values
 * no valid stream holds mark it bad and end it. */
static inline void bm_cur_step(bm_cursor *c, uint32_t gap, uint32_t tf)
{
    if (gap == 0 || tf == 0 || tf > c->max_tf || c->prev + (int64_t)gap >= (int64_t)c->r->n_docs) {
        c->bad = 1;
        c->doc = END_DOC;
        return;
    }
    if (c->idx && !c->pos_read)
        c->pskip += c->tf;
    c->pos_read = 0;
    c->prev += gap;
    c->doc = (uint32_t)c->prev;
    c->tf = tf;
    c->idx++;
}

void bm_cur_next_long(bm_cursor *c);   /* bm_cur_next where a varint takes more than one byte */

/* Moves to the next posting (END_DOC after the last). Inline, the one-byte case here: it is the
 * innermost step of every search. */
static inline void bm_cur_next(bm_cursor *c)
{
    if (c->doc == END_DOC)
        return;
    if (c->idx >= c->df) {
        c->doc = END_DOC;
        return;
    }
    const uint8_t *p = c->dp;
    if (c->dend - p >= 2 && (p[0] | p[1]) < 0x80) {
        c->dp = p + 2;
        bm_cur_step(c, p[0], p[1]);
    } else {
        bm_cur_next_long(c);
    }
}

/* Moves to the first posting with ordinal >= target, jumping whole blocks with the skip table. */
void bm_cur_advance(bm_cursor *c, uint32_t target);
/* Block-max bounds (max tf, min dl) of the block that would hold ordinal d (d >= current doc),
 * without decoding; 0 when no block can. */
int bm_cur_block_bounds(bm_cursor *c, uint32_t d, uint32_t *max_tf, uint32_t *min_dl);
/* Positions of the current doc into *buf (grown); the count, -1 if corrupt, -2 out of memory. */
int64_t bm_cur_positions(bm_cursor *c, uint32_t **buf, size_t *cap);

#endif
