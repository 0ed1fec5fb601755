/* title.h: the name-match signal of a search (`hyrax help search`): how far a query is, or contains, a
 * name a document goes by -- its title, its file or folder name, a chunk's heading -- so the
 * document a query names ranks first in every mode. Terms are the keyword side's stemmed terms
 * (analyzer.h, English: stop words and numbers do not count), so "Sidecar Containers" names the
 * folder 753-sidecar-containers and the title "KEP-753: Sidecar containers". Never reads an index.
 *
 * For a name with distinct terms N and a query with distinct terms Q (m of N's in Q):
 *   match = |N| / |Q|              when N's terms stand in the query in order, one after another
 *                                  (1: the query is the name; less: it holds the name as a phrase,
 *                                  the share of the query the name makes up), or
 *   match = |N| / |Q| / 2          when the query holds every term of the name, in another order
 *                                  or apart (half: no phrase, no proximity), else
 *   match = 0                      a name the query says only in part names nothing (a long title
 *                                  that shares a word with a question is not named by it)
 * and 0 for a name or a query without terms. Each candidate takes the best match of its names, so
 * the longest name the query says wins ("Seccomp by default" names 2413-seccomp-by-default, 1,
 * above 135-seccomp, 1/2). */
#ifndef HX_TITLE_H
#define HX_TITLE_H

#include "analyzer.h"
#include "hyrax.h"

#include <stddef.h>

#define HX_TITLE_MAX_TERMS 32   /* query terms that count; the rest are left out */
#define HX_TITLE_MEMO 64        /* names whose match a query remembers */
#define HX_TITLE_MEMO_NAME 48   /* longest name remembered, in bytes */

/* A remembered answer of hxi_title_match. */
typedef struct hxi_title_memo {
    uint8_t len;                             /* 0: empty */
    char name[HX_TITLE_MEMO_NAME];
    float match;
} hxi_title_memo;

typedef struct hxi_title_query {
    hxi_analysis an;                          /* scratch for names (owned) */
    size_t n;                                /* distinct query terms, in query order */
    uint32_t off[HX_TITLE_MAX_TERMS], len[HX_TITLE_MAX_TERMS];   /* into text */
    char text[HX_TITLE_MAX_TERMS * (HX_ANALYZER_MAX_TERM + 1)];
    uint8_t first[32];                       /* the bytes query terms start with (past the mark):
                                                names are analysed with it as stem_first */
    hxi_title_memo memo[HX_TITLE_MEMO];      /* answers for short names, which repeat (README,
                                                Summary, Motivation): direct-mapped by hash */
} hxi_title_query;

/* Analyzes the query; 0, HX_ENOMEM or HX_ERANGE. Free with hxi_title_query_free (also after an error).
 * The query is used where it was initialised, never copied (its analysis points into it). */
int hxi_title_query_init(hxi_title_query *tq, const char *query, size_t len, hx_error *err);
void hxi_title_query_free(hxi_title_query *tq);

/* The match of name[0..len) with the query, in [0, 1] (above); 0 when the name cannot be analyzed. */
float hxi_title_match(hxi_title_query *tq, const char *name, size_t len);

#endif
