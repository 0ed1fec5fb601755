/* title.c: the name-match signal as specified in title.h. Pure computation over the analyzer's
 * terms; the candidates and their names are the caller's (search.c). */
#include "title.h"

#include <stdbool.h>
#include <string.h>

/* Whether term i of a is a stemmed term of a word that is not all digits (a KEP's number, a
 * version). */
static int counts(const hxi_analysis *a, size_t i)
{
    const hxi_term *t = &a->terms[i];
    if (t->kind != HX_TERM_STEM)
        return 0;
    const char *s = hxi_analyzer_term(a, i);
    for (uint32_t j = 1; j < t->text_len; j++)   /* past the stem mark */
        if (s[j] < '0' || s[j] > '9')
            return 1;
    return 0;
}

/* The index of term s[0..n) among the query's, or -1. */
static int find(const hxi_title_query *tq, const char *s, size_t n)
{
    for (size_t i = 0; i < tq->n; i++)
        if (tq->len[i] == n && !memcmp(tq->text + tq->off[i], s, n))
            return (int)i;
    return -1;
}

int hxi_title_query_init(hxi_title_query *tq, const char *query, size_t len, hx_error *err)
{
    memset(tq, 0, sizeof *tq);
    tq->an.config = HX_ANALYZER_ENGLISH;
    int rc = hxi_analyzer_run(&tq->an, query, len, err);
    size_t used = 0;
    for (size_t i = 0; !rc && i < tq->an.n_terms && tq->n < HX_TITLE_MAX_TERMS; i++) {
        const char *s = hxi_analyzer_term(&tq->an, i);
        uint32_t n = tq->an.terms[i].text_len;
        if (!counts(&tq->an, i) || find(tq, s, n) >= 0)
            continue;
        memcpy(tq->text + used, s, n);
        unsigned char c = (unsigned char)s[1];   /* a counted term is a mark and at least one byte */
        tq->first[c / 8] |= (uint8_t)(1u << (c % 8));
        tq->off[tq->n] = (uint32_t)used;
        tq->len[tq->n++] = n;
        used += n;
    }
    tq->an.stem_first = tq->first;   /* a name word that starts otherwise is in no query term */
    return rc;
}

void hxi_title_query_free(hxi_title_query *tq)
{
    hxi_analyzer_free(&tq->an);
}

static float match_names(hxi_title_query *tq, const char *name, size_t len);

float hxi_title_match(hxi_title_query *tq, const char *name, size_t len)
{
    if (!tq->n || !len)
        return 0;
    if (len > HX_TITLE_MEMO_NAME)
        return match_names(tq, name, len);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    hxi_title_memo *e = &tq->memo[h % HX_TITLE_MEMO];
    if (e->len != len || memcmp(e->name, name, len)) {
        e->match = match_names(tq, name, len);
        e->len = (uint8_t)len;
        memcpy(e->name, name, len);
    }
    return e->match;
}

/* The match of name[0..len), computed. */
static float match_names(hxi_title_query *tq, const char *name, size_t len)
{
    hx_error err;
    if (hxi_analyzer_run(&tq->an, name, len, &err))
        return 0;
    int at[HX_TITLE_MAX_TERMS];   /* query index of each distinct name term, -1 when absent */
    size_t n = 0, m = 0;
    for (size_t i = 0; i < tq->an.n_terms && n < HX_TITLE_MAX_TERMS; i++) {
        if (!counts(&tq->an, i))
            continue;
        const char *s = hxi_analyzer_term(&tq->an, i);
        uint32_t tl = tq->an.terms[i].text_len;
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = counts(&tq->an, j) && tq->an.terms[j].text_len == tl && !memcmp(hxi_analyzer_term(&tq->an, j), s, tl);
        if (dup)
            continue;
        at[n] = find(tq, s, tl);
        m += at[n++] >= 0;
    }
    if (!n || !m)
        return 0;
    bool phrase = m == n;
    for (size_t i = 1; phrase && i < n; i++)
        phrase = at[i] == at[i - 1] + 1;
    return m < n ? 0.0f : (float)((double)n / (double)tq->n * (phrase ? 1.0 : 0.5));
}
