/* bm25_search.c: keyword queries (parser, syntax in bm25.h) and top-k search over several
 * segments with global statistics and MaxScore / block-max pruning. Reads postings only through
 * the cursors of bm25_internal.h; builds and validates nothing. Spec: bm25.h. */
#include "analyzer.h"
#include "alloc.h"
#include "bm25_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNITS 1024

/* === Queries === */

enum { OCC_SHOULD = 0, OCC_MUST = 1, OCC_NOT = 2 };
enum { CL_TERM = 0, CL_PHRASE = 1, CL_PREFIX = 2 };

typedef struct qclause {
    uint8_t occur, type;
    uint32_t first, n;    /* terms[first .. first + n) */
    uint32_t qtf;         /* times the clause was given (it scores that many times) */
} qclause;

typedef struct qterm {
    uint32_t off, len;    /* bytes in text */
} qterm;

struct hxi_bm25_query {
    qclause *cl;          /* owned */
    size_t n_cl, cap_cl;
    qterm *terms;         /* owned */
    size_t n_terms, cap_terms;
    char *text;           /* owned term bytes */
    size_t text_len, text_cap;
    uint32_t analyzer;    /* HX_ANALYZER_* the words were analyzed with */
    int letters;          /* single letters score (q_letter): a query of nothing else */
};

void hxi_bm25_query_free(hxi_bm25_query *q)
{
    if (!q)
        return;
    free(q->cl);
    free(q->terms);
    free(q->text);
    free(q);
}

size_t hxi_bm25_query_clauses(const hxi_bm25_query *q)
{
    return q->n_cl;
}

uint32_t hxi_bm25_query_analyzer(const hxi_bm25_query *q)
{
    return q->analyzer;
}

static const char *qterm_text(const hxi_bm25_query *q, uint32_t i)
{
    return q->text + q->terms[i].off;
}

static int q_add_term(hxi_bm25_query *q, const char *s, size_t n)
{
    if (hx_grow((void **)&q->terms, &q->cap_terms, q->n_terms + 1, sizeof *q->terms, NULL) ||
        hx_grow((void **)&q->text, &q->text_cap, q->text_len + n, 1, NULL))
        return HX_ENOMEM;
    memcpy(q->text + q->text_len, s, n);
    q->terms[q->n_terms].off = (uint32_t)q->text_len;
    q->terms[q->n_terms].len = (uint32_t)n;
    q->text_len += n;
    q->n_terms++;
    return 0;
}

/* Adds a one-term clause, or counts it again when an equal one exists (a required clause upgrades
 * an optional one). */
static int q_add_single(hxi_bm25_query *q, int occur, int type, const char *s, size_t n)
{
    for (size_t i = 0; i < q->n_cl; i++) {
        qclause *c = &q->cl[i];
        if (c->type != type || c->n != 1 || q->terms[c->first].len != n ||
            memcmp(qterm_text(q, c->first), s, n) != 0)
            continue;
        if ((c->occur == OCC_NOT) != (occur == OCC_NOT))
            continue;
        if (occur == OCC_MUST)
            c->occur = OCC_MUST;
        c->qtf++;
        return 0;
    }
    if (q->n_cl >= HX_BM25_MAX_CLAUSES)
        return 0;
    if (hx_grow((void **)&q->cl, &q->cap_cl, q->n_cl + 1, sizeof *q->cl, NULL) || q_add_term(q, s, n))
        return HX_ENOMEM;
    qclause *c = &q->cl[q->n_cl++];
    c->occur = (uint8_t)occur;
    c->type = (uint8_t)type;
    c->first = (uint32_t)(q->n_terms - 1);
    c->n = 1;
    c->qtf = 1;
    return 0;
}

/* Is term i a single ASCII letter (its analysed term: the mark and one letter)? With English
 * analysis such a leaf is not a query word (the I of "I am interested in", the e and g of "e.g.",
 * the s of "one's"), as the \w\w+ token pattern of bm25s and scikit-learn leaves it out, unless
 * the query holds nothing else. */
static int q_letter(const hxi_analysis *an, size_t i)
{
    const char *s = hxi_analyzer_term(an, i);
    size_t n = an->terms[i].text_len, k = an->terms[i].kind == HX_TERM_STEM;
    return n == k + 1 && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z'));
}

/* Is the whole compound an.terms[i] an identifier: joined by _ . / or :, or split by case
 * (parse_chunk_size, os.path.join, computeFibonacci, HTTPServer)? A compound of plain words joined
 * by hyphens (two-dimensional, kube-scheduler) is not, nor is one of single letters (e.g., i.e.)
 * where those do not score. */
static int q_identifier(const hxi_bm25_query *q, const hxi_analysis *an, size_t i)
{
    const hxi_term *w = &an->terms[i];
    const char *s = hxi_analyzer_term(an, i);
    size_t hyphens = 0, leaves = 0, words = 0;
    int joined = 0;
    for (uint32_t k = 0; k < w->text_len; k++) {
        joined |= s[k] == '_' || s[k] == '.' || s[k] == '/' || s[k] == ':';
        hyphens += s[k] == '-';
    }
    for (size_t j = i + 1; j < an->n_terms && an->terms[j].start < w->end; j++)
        if (an->terms[j].kind == HX_TERM_LEAF) {
            leaves++;
            words += q->letters || !q_letter(an, j);
        }
    return words && (joined || leaves > hyphens + 1);
}

/* Does term i of an optional word score? With English analysis an optional word scores through the
 * analysed terms of its leaves, as Lucene's english analyzer scores `three-dimensional` as `three`
 * and `dimension`, and an identifier also as a whole, as WordDelimiterGraphFilter's preserved
 * original: `computeFibonacci` ranks a text holding the identifier above one holding only its
 * parts. Exact (a quoted single word): only exact terms score. */
static int q_scores(const hxi_bm25_query *q, const hxi_analysis *an, size_t i, int exact)
{
    uint32_t kind = an->terms[i].kind;
    if (kind == HX_TERM_STEM)
        return !exact && (q->letters || !q_letter(an, i));
    if (exact || q->analyzer == HX_ANALYZER_EXACT)
        return 1;
    return kind == HX_TERM_WHOLE && q_identifier(q, an, i);
}

static int q_phrase(hxi_bm25_query *q, hxi_analysis *an, int occur, const char *s, size_t n);

/* Is the analysis a CJK run's bigrams: more than one leaf, each overlapping the one before and
 * one position after it? */
static int q_bigrams(const hxi_analysis *an)
{
    size_t leaves = 0;
    const hxi_term *prev = NULL;
    for (size_t i = 0; i < an->n_terms; i++) {
        const hxi_term *t = &an->terms[i];
        if (t->kind != HX_TERM_LEAF)
            continue;
        if (prev && (t->start >= prev->end || t->pos != prev->pos + 1))
            return 0;
        prev = t;
        leaves++;
    }
    return leaves > 1;
}

static int q_word(hxi_bm25_query *q, hxi_analysis *an, int occur, const char *s, size_t n, int exact)
{
    if (hxi_analyzer_run(an, s, n, NULL))
        return HX_ENOMEM;
    if (occur != OCC_SHOULD && q_bigrams(an))
        return q_phrase(q, an, occur, s, n);   /* +量子比特 requires all its bigrams in order */
    for (size_t i = 0; i < an->n_terms; i++) {
        if (occur == OCC_SHOULD && !q_scores(q, an, i, exact))
            continue;
        int rc = q_add_single(q, occur, CL_TERM, hxi_analyzer_term(an, i), an->terms[i].text_len);
        if (rc)
            return rc;
        if (occur != OCC_SHOULD)
            break;  /* +word and -word act on the whole compound only */
    }
    return 0;
}

static int q_phrase(hxi_bm25_query *q, hxi_analysis *an, int occur, const char *s, size_t n)
{
    if (hxi_analyzer_run(an, s, n, NULL))
        return HX_ENOMEM;
    size_t leaves = 0;
    for (size_t i = 0; i < an->n_terms; i++)
        leaves += an->terms[i].kind == HX_TERM_LEAF;
    if (leaves <= 1)
        return q_word(q, an, occur, s, n, 1);
    if (q->n_cl >= HX_BM25_MAX_CLAUSES)
        return 0;
    if (hx_grow((void **)&q->cl, &q->cap_cl, q->n_cl + 1, sizeof *q->cl, NULL))
        return HX_ENOMEM;
    size_t first = q->n_terms, k = 0;
    for (size_t i = 0; i < an->n_terms && k < HX_BM25_MAX_PHRASE; i++) {
        if (an->terms[i].kind != HX_TERM_LEAF)
            continue;
        if (q_add_term(q, hxi_analyzer_term(an, i), an->terms[i].text_len))
            return HX_ENOMEM;
        k++;
    }
    qclause *c = &q->cl[q->n_cl++];
    c->occur = (uint8_t)occur;
    c->type = CL_PHRASE;
    c->first = (uint32_t)first;
    c->n = (uint32_t)k;
    c->qtf = 1;
    return 0;
}

/* pre*: the first term of the text's last compound (the whole, or its only leaf) becomes the
 * prefix; compounds before it are plain words. */
static int q_prefix(hxi_bm25_query *q, hxi_analysis *an, int occur, const char *s, size_t n)
{
    if (hxi_analyzer_run(an, s, n, NULL))
        return HX_ENOMEM;
    size_t pick = 0;
    uint32_t max_end = 0;
    for (size_t i = 0; i < an->n_terms; i++) {
        if (an->terms[i].start >= max_end && an->terms[i].kind != HX_TERM_STEM)
            pick = i;  /* a new compound starts here */
        if (an->terms[i].end > max_end)
            max_end = an->terms[i].end;
    }
    if (an->n_terms == 0)
        return 0;
    int occ = occur == OCC_NOT ? OCC_NOT : OCC_SHOULD;
    for (size_t i = 0; i < pick; i++) {
        if (occ == OCC_SHOULD && !q_scores(q, an, i, 0))
            continue;
        int rc = q_add_single(q, occ, CL_TERM, hxi_analyzer_term(an, i), an->terms[i].text_len);
        if (rc)
            return rc;
    }
    return q_add_single(q, occ, CL_PREFIX, hxi_analyzer_term(an, pick), an->terms[pick].text_len);
}

/* Does q hold a clause that scores or requires? */
static int q_scoring(const hxi_bm25_query *q)
{
    for (size_t c = 0; c < q->n_cl; c++)
        if (q->cl[c].occur != OCC_NOT)
            return 1;
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int hxi_bm25_query_parse(hxi_bm25_query **out, uint32_t analyzer, const char *text, size_t len,
                         hx_error *err)
{
    *out = NULL;
    if (len >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "bm25: query of %zu bytes is too long", len);
    if (!hxi_analyzer_name(analyzer))
        return hx_error_set(err, HX_EINVAL, -1, "bm25: unknown analyzer configuration %u", analyzer);
    hxi_bm25_query *q = hx_calloc(1, sizeof *q);
    hxi_analysis an = {0};
    if (!q)
        return hx_error_set(err, HX_ENOMEM, -1, "bm25: out of memory");
    q->analyzer = an.config = analyzer;
    size_t i = 0;
    int rc = 0;
again:
    while (i < len && !rc && q->n_cl < HX_BM25_MAX_CLAUSES) {
        while (i < len && is_space(text[i]))
            i++;
        if (i >= len)
            break;
        int occur = OCC_SHOULD;
        if (text[i] == '+' || text[i] == '-') {
            occur = text[i] == '+' ? OCC_MUST : OCC_NOT;
            i++;
            if (i >= len || is_space(text[i]))
                continue;
        }
        if (text[i] == '"') {
            size_t j = i + 1;
            while (j < len && text[j] != '"')
                j++;
            rc = q_phrase(q, &an, occur, text + i + 1, j - i - 1);
            i = j < len ? j + 1 : j;
            continue;
        }
        size_t j = i;
        while (j < len && !is_space(text[j]) && text[j] != '"')
            j++;
        if (j - i >= 2 && text[j - 1] == '*') {
            size_t e = j;
            while (e > i && text[e - 1] == '*')
                e--;
            rc = q_prefix(q, &an, occur, text + i, e - i);
        } else {
            rc = q_word(q, &an, occur, text + i, j - i, 0);
        }
        i = j;
    }
    if (!rc && !q->letters && analyzer != HX_ANALYZER_EXACT && !q_scoring(q)) {
        q->letters = 1;   /* nothing but single letters: they are the query */
        q->n_cl = q->n_terms = q->text_len = 0;
        i = 0;
        goto again;
    }
    hxi_analyzer_free(&an);
    if (rc) {
        hxi_bm25_query_free(q);
        return hx_error_set(err, HX_ENOMEM, -1, "bm25: out of memory");
    }
    *out = q;
    return 0;
}

int hxi_bm25_query_highlight(const hxi_bm25_query *q, size_t i, const char **term, size_t *len, int *is_prefix)
{
    for (size_t c = 0; c < q->n_cl; c++) {
        const qclause *cl = &q->cl[c];
        if (cl->occur == OCC_NOT)
            continue;
        if (i < cl->n) {
            *term = qterm_text(q, cl->first + (uint32_t)i);
            *len = q->terms[cl->first + i].len;
            *is_prefix = cl->type == CL_PREFIX;
            return 0;
        }
        i -= cl->n;
    }
    return HX_ENOTFOUND;
}

/* === Search === */

/* One scoring or excluding unit of a resolved query: a term or a phrase. */
typedef struct unit {
    uint8_t occur, phrase;
    uint32_t n;          /* 1, or the phrase's leaf count */
    uint32_t nc;         /* cursors: a term's two (body, header), a phrase's n (body) */
    const char *text;    /* single term bytes (borrowed from the query or a reader); phrases: NULL */
    uint32_t len;
    uint32_t qfirst;     /* phrase: index of its first term in the query */
    double w;            /* sum of the idf of its terms */
    double ub;           /* bound on its score in the current segment */
    uint32_t block, hblock;  /* skip blocks (body, header) whose bound block_ub holds */
    double block_ub;
    uint32_t min_df;     /* smallest df of its terms in the current segment (leader choice) */
    uint32_t qtf;        /* times the query gives it: its weight is qtf times its idf sum */
    bm_cursor *c;        /* nc cursors into the search's pool, for the current segment */
    uint32_t doc, freq;  /* current doc ordinal (END_DOC when done) and body tf or phrase frequency */
    uint32_t hfreq;      /* header tf at doc (terms; 0 for phrases) */
} unit;

typedef struct search {
    const hxi_bm25_query *q;
    const hxi_bm25_params *p;
    unit *u;             /* owned, n_units */
    size_t n_units;
    bm_cursor *pool;        /* owned, one cursor per unit term */
    size_t n_cursors;
    int64_t *term_ids;   /* owned: per segment, per cursor, the term's index in the reader or -1 */
    size_t n_not;        /* exclusion units */
    uint32_t *pos[HX_BM25_MAX_PHRASE];  /* owned position buffers for phrase checks */
    size_t pos_cap[HX_BM25_MAX_PHRASE];
    uint32_t *ord;       /* owned scratch: unit indices */
    double *bound;       /* owned scratch: prefix / suffix sums of unit bounds */
    double *bound2;      /* owned scratch: the same with per-candidate (block-max) bounds */
    uint32_t *touched;   /* owned scratch: units matching the current candidate */
    double *contrib;     /* owned scratch, per unit */
    double k_base, k_per_len;  /* K(dl) = k_base + k_per_len * dl, Lucene's k1 (1 - b + b dl / avgdl) */
    double head_per_k;   /* head_weight / k1: a header occurrence weighs head_per_k * K body ones */
    hxi_bm25_hit *heap;   /* the caller's out array, used as a min-heap of the k best */
    size_t n_heap, k;
    uint32_t seg;
    int nomem;
} search;

/* The tf part of s(t, d) in bm25.h with body tf, header tf htf and K = k1 B(d): tf~ / (tf~ + K);
 * without a header match exactly tf / (tf + K). */
static double tf_norm(const search *s, double tf, double htf, double K)
{
    if (K <= 0)   /* k1 = 0, or b = 1 and an empty body: any match saturates */
        return tf > 0 || (htf > 0 && s->p->head_weight > 0) ? 1.0 : 0.0;
    double t = htf > 0 ? tf + htf * s->head_per_k * K : tf;
    return t / (t + K);
}

static double norm_k(const search *s, uint32_t dl)
{
    return s->k_base + s->k_per_len * (double)dl;
}

static double idf(double n, double df)
{
    return log(1.0 + (n - df + 0.5) / (df + 0.5));
}

/* Number of positions p of sub-cursor 0 with p + i among the positions of sub-cursor i for all i. */
static uint32_t phrase_freq(search *s, unit *u)
{
    int64_t cnt[HX_BM25_MAX_PHRASE];
    for (uint32_t i = 0; i < u->n; i++) {
        cnt[i] = bm_cur_positions(&u->c[i], &s->pos[i], &s->pos_cap[i]);
        if (cnt[i] == -2)
            s->nomem = 1;
        if (cnt[i] < 0)
            return 0;
    }
    size_t at[HX_BM25_MAX_PHRASE] = {0};
    uint32_t f = 0;
    for (int64_t j = 0; j < cnt[0]; j++) {
        uint64_t p0 = s->pos[0][j];
        uint32_t i = 1;
        for (; i < u->n; i++) {
            while ((int64_t)at[i] < cnt[i] && s->pos[i][at[i]] < p0 + i)
                at[i]++;
            if ((int64_t)at[i] >= cnt[i] || s->pos[i][at[i]] != p0 + i)
                break;
        }
        f += i == u->n;
    }
    return f;
}

/* Moves a phrase unit's cursors to the next doc (>= the current sub-cursor docs) with the phrase. */
static void phrase_align(search *s, unit *u)
{
    for (;;) {
        uint32_t d = 0;
        for (uint32_t i = 0; i < u->n; i++)
            if (u->c[i].doc > d)
                d = u->c[i].doc;
        if (d == END_DOC)
            break;
        int all = 1;
        for (uint32_t i = 0; i < u->n; i++) {
            bm_cur_advance(&u->c[i], d);
            if (u->c[i].doc != d)
                all = 0;
        }
        if (!all)
            continue;
        uint32_t f = phrase_freq(s, u);
        if (s->nomem)
            break;
        if (f) {
            u->doc = d;
            u->freq = f;
            return;
        }
        bm_cur_next(&u->c[0]);
    }
    u->doc = END_DOC;
}

/* Inline: the innermost loop of every search goes through it. */
static inline void unit_sync(search *s, unit *u)
{
    if (u->phrase) {
        phrase_align(s, u);
        return;
    }
    uint32_t b = u->c[0].doc, h = u->c[1].doc;
    u->doc = b < h ? b : h;
    u->freq = b == u->doc ? u->c[0].tf : 0;
    u->hfreq = h == u->doc ? u->c[1].tf : 0;
}

static void unit_next(search *s, unit *u)
{
    if (u->doc == END_DOC)
        return;
    if (u->phrase) {
        bm_cur_next(&u->c[0]);
    } else {
        if (u->c[0].doc == u->doc)
            bm_cur_next(&u->c[0]);
        if (u->c[1].doc == u->doc)
            bm_cur_next(&u->c[1]);
    }
    unit_sync(s, u);
}

static void unit_advance(search *s, unit *u, uint32_t target)
{
    if (u->doc >= target)
        return;
    bm_cur_advance(&u->c[0], target);
    if (!u->phrase)
        bm_cur_advance(&u->c[1], target);
    unit_sync(s, u);
}

/* --- top-k heap: h[0] is the worst kept hit --- */

static int hit_worse(const hxi_bm25_hit *a, const hxi_bm25_hit *b)
{
    return a->score < b->score || (a->score == b->score && a->doc_id > b->doc_id);
}

/* Puts h in place of the top of the heap a[n] and sifts it down. */
static void heap_sift_down(hxi_bm25_hit *a, size_t n, hxi_bm25_hit h)
{
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const hxi_bm25_hit *best = &h;
        if (l < n && hit_worse(&a[l], best)) {
            m = l;
            best = &a[l];
        }
        if (l + 1 < n && hit_worse(&a[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        a[i] = a[m];
        i = m;
    }
    a[i] = h;
}

static void heap_push(search *s, double score, uint32_t doc_id)
{
    hxi_bm25_hit h = {doc_id, s->seg, score};
    hxi_bm25_hit *a = s->heap;
    if (s->n_heap < s->k) {
        size_t i = s->n_heap++;
        while (i && hit_worse(&h, &a[(i - 1) / 2])) {
            a[i] = a[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        a[i] = h;
        return;
    }
    if (hit_worse(&a[0], &h))
        heap_sift_down(a, s->n_heap, h);
}

/* Orders the heap a[n_hits] (worst on top) best first, in place: repeatedly moves the worst kept hit
 * to the end. */
static void heap_sort_best_first(hxi_bm25_hit *a, size_t n_hits)
{
    for (size_t n = n_hits; n > 1; n--) {
        hxi_bm25_hit worst = a[0];
        heap_sift_down(a, n - 1, a[n - 1]);
        a[n - 1] = worst;
    }
}

/* Scores below this cannot enter the top k (with a margin for rounding: a bound is compared with
 * `thr` only after subtracting it, so pruning never drops a hit that exhaustive scoring keeps). */
static double threshold(const search *s)
{
    if (s->n_heap < s->k || s->p->exhaustive)
        return -INFINITY;
    double t = s->heap[0].score;
    return t - 1e-9 * (1.0 + fabs(t));
}

/* Deleted, filtered out or excluded? */
static int admissible(search *s, const hxi_bm25_segment *seg, uint32_t d)
{
    uint32_t ext = hxf_le32(seg->reader->arr[A_DOC_IDS] + 4 * (size_t)d);
    if (seg->is_deleted && seg->is_deleted(seg->deleted_ctx, ext))
        return 0;
    if (s->p->allow && !s->p->allow(s->p->allow_ctx, ext))
        return 0;
    for (size_t i = 0; i < s->n_units && s->n_not; i++) {
        unit *u = &s->u[i];
        if (u->occur != OCC_NOT)
            continue;
        unit_advance(s, u, d);
        if (u->doc == d)
            return 0;
    }
    return 1;
}

/* Adds unit ui's contribution at doc d (the unit is on d); clear_touched undoes it. */
static double take(search *s, uint32_t ui, double K, size_t *n_touched)
{
    double c = s->u[ui].w * tf_norm(s, s->u[ui].freq, s->u[ui].hfreq, K);
    s->contrib[ui] = c;
    s->touched[(*n_touched)++] = ui;
    return c;
}

/* Sums the contributions in unit order (untouched units hold 0), so every strategy and
 * segmentation gives the same rounding, and offers the doc to the heap. */
static void finish_doc(search *s, const hxi_bm25_segment *seg, uint32_t d)
{
    double score = 0;
    for (size_t i = 0; i < s->n_units; i++)
        score += s->contrib[i];
    heap_push(s, score, hxf_le32(seg->reader->arr[A_DOC_IDS] + 4 * (size_t)d));
}

static void clear_touched(search *s, size_t n_touched)
{
    for (size_t i = 0; i < n_touched; i++)
        s->contrib[s->touched[i]] = 0;
}

static int cmp_ub_asc(const void *a, const void *b, const search *s)
{
    double x = s->u[*(const uint32_t *)a].ub, y = s->u[*(const uint32_t *)b].ub;
    return x < y ? -1 : x > y;
}

/* Insertion sort of unit indices by ub (few units; avoids a qsort context). */
static void sort_by_ub(search *s, uint32_t *ord, size_t n, int desc)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t v = ord[i];
        size_t j = i;
        for (; j; j--) {
            int c = cmp_ub_asc(&ord[j - 1], &v, s);
            if (desc ? c >= 0 : c <= 0)
                break;
            ord[j] = ord[j - 1];
        }
        ord[j] = v;
    }
}

/* Bound on unit u's contribution at doc d: 0 when it cannot be on d, exact when it is, else the
 * bound of the skip blocks (body, header) that would hold d (phrases: the unit bound). */
static double bound_at(search *s, unit *u, uint32_t d, double K)
{
    if (u->doc > d)
        return 0;
    if (u->doc == d)
        return u->w * tf_norm(s, u->freq, u->hfreq, K);
    if (u->phrase)
        return u->ub;
    uint32_t tf = 0, htf = 0, min_dl = 0, unused, b = UINT32_MAX, hb = UINT32_MAX;
    if (u->c[0].doc <= d && bm_cur_block_bounds(&u->c[0], d, &tf, &min_dl))
        b = u->c[0].sblk;
    else
        tf = min_dl = 0;
    if (u->c[1].doc <= d && bm_cur_block_bounds(&u->c[1], d, &htf, &unused))
        hb = u->c[1].sblk;
    else
        htf = 0;
    if (!tf && !htf)
        return 0;
    if (b != u->block || hb != u->hblock) {
        u->block = b;
        u->hblock = hb;
        u->block_ub = u->w * tf_norm(s, tf, htf, norm_k(s, min_dl));
    }
    return u->block_ub;
}

/* MaxScore over optional units only. */
static void run_disjunction(search *s, const hxi_bm25_segment *seg)
{
    const hxi_bm25_reader *r = seg->reader;
    uint32_t *ord = s->ord;
    size_t m = 0;
    for (size_t i = 0; i < s->n_units; i++)
        if (s->u[i].occur == OCC_SHOULD && s->u[i].doc != END_DOC)
            ord[m++] = (uint32_t)i;
    sort_by_ub(s, ord, m, 0);
    double *cub = s->bound;
    for (size_t i = 0; i < m; i++)
        cub[i] = s->u[ord[i]].ub + (i ? cub[i - 1] : 0);
    size_t e = 0;
    double thr = threshold(s);
    while (e < m && cub[e] < thr)
        e++;
    while (!s->nomem) {
        uint32_t d = END_DOC;
        for (size_t i = e; i < m; i++)
            if (s->u[ord[i]].doc < d)
                d = s->u[ord[i]].doc;
        if (d == END_DOC)
            break;
        double K = norm_k(s, hxf_le32(r->arr[A_DOC_LENS] + 4 * (size_t)d));
        size_t nt = 0;
        double sc = 0;
        for (size_t i = e; i < m; i++)
            if (s->u[ord[i]].doc == d)
                sc += take(s, ord[i], K, &nt);
        int pruned = e && sc + cub[e - 1] < thr;   /* not even with every unit's bound */
        if (!pruned) {
            double *pb = s->bound2;  /* pb[i]: bound of non-essential units 0..i at d */
            for (size_t i = 0; i < e; i++)
                pb[i] = bound_at(s, &s->u[ord[i]], d, K) + (i ? pb[i - 1] : 0);
            for (size_t i = e; i-- > 0 && !pruned;) {
                pruned = sc + pb[i] < thr;
                unit *u = &s->u[ord[i]];
                if (!pruned && (unit_advance(s, u, d), u->doc == d))
                    sc += take(s, ord[i], K, &nt);
            }
        }
        if (!pruned && admissible(s, seg, d)) {
            finish_doc(s, seg, d);
            thr = threshold(s);
            while (e < m && cub[e] < thr)
                e++;
        }
        clear_touched(s, nt);
        for (size_t i = e; i < m; i++)
            if (s->u[ord[i]].doc == d)
                unit_next(s, &s->u[ord[i]]);
    }
}

/* Required units lead (the rarest drives); optional units are added while they can still matter. */
static void run_conjunction(search *s, const hxi_bm25_segment *seg)
{
    const hxi_bm25_reader *r = seg->reader;
    uint32_t *ord = s->ord;
    size_t nm = 0, ns = 0;
    double must_ub = 0;
    for (size_t i = 0; i < s->n_units; i++) {
        if (s->u[i].occur != OCC_MUST)
            continue;
        must_ub += s->u[i].ub;
        size_t j = nm++;
        for (; j && s->u[ord[j - 1]].min_df > s->u[i].min_df; j--)
            ord[j] = ord[j - 1];
        ord[j] = (uint32_t)i;
    }
    uint32_t *opt = ord + nm;
    for (size_t i = 0; i < s->n_units; i++)
        if (s->u[i].occur == OCC_SHOULD && s->u[i].doc != END_DOC)
            opt[ns++] = (uint32_t)i;
    sort_by_ub(s, opt, ns, 1);
    double *rem = s->bound;  /* rem[i] = sum of bounds of opt[i..] */
    rem[ns] = 0;
    for (size_t i = ns; i-- > 0;)
        rem[i] = rem[i + 1] + s->u[opt[i]].ub;
    unit *lead = &s->u[ord[0]];
    while (!s->nomem && lead->doc != END_DOC) {
        double thr = threshold(s);
        if (must_ub + rem[0] < thr)
            break;
        uint32_t d = lead->doc;
        int aligned = 1;
        for (size_t i = 1; i < nm && aligned; i++) {
            unit *u = &s->u[ord[i]];
            unit_advance(s, u, d);
            if (u->doc != d) {
                aligned = 0;
                if (u->doc == END_DOC)
                    return;
                unit_advance(s, lead, u->doc);
            }
        }
        if (!aligned)
            continue;
        double K = norm_k(s, hxf_le32(r->arr[A_DOC_LENS] + 4 * (size_t)d));
        size_t nt = 0;
        double sc = 0;
        for (size_t i = 0; i < nm; i++)
            sc += take(s, ord[i], K, &nt);
        int pruned = sc + rem[0] < thr;   /* not even with every optional unit's bound */
        if (!pruned) {
            double *rb = s->bound2;  /* rb[i]: bound of opt[i..] at d */
            rb[ns] = 0;
            for (size_t i = ns; i-- > 0;)
                rb[i] = rb[i + 1] + bound_at(s, &s->u[opt[i]], d, K);
            for (size_t i = 0; i < ns && !pruned; i++) {
                pruned = sc + rb[i] < thr;
                unit *u = &s->u[opt[i]];
                if (!pruned && (unit_advance(s, u, d), u->doc == d))
                    sc += take(s, opt[i], K, &nt);
            }
        }
        if (!pruned && admissible(s, seg, d))
            finish_doc(s, seg, d);
        clear_touched(s, nt);
        unit_next(s, lead);
    }
}

/* Opens the cursors of every unit on segment g; 0 if a required unit cannot match there. */
static int open_segment(search *s, const hxi_bm25_segment *seg, size_t g)
{
    const hxi_bm25_reader *r = seg->reader;
    bm_cursor *pool = s->pool;
    const int64_t *ids = s->term_ids + g * s->n_cursors;
    for (size_t i = 0; i < s->n_cursors; i++)
        bm_cur_empty(&pool[i]);
    for (size_t i = 0; i < s->n_units; i++) {
        unit *u = &s->u[i];
        u->c = pool;
        uint32_t max_tf = UINT32_MAX, min_dl = 0, min_df = UINT32_MAX, htf = 0;
        int present = 1;
        if (!u->phrase) {   /* a term: body and header cursors, either may match */
            int64_t tb = ids[pool - s->pool], th = ids[pool - s->pool + 1];
            const uint8_t *ib = tb >= 0 ? bm_term_info(r, (uint32_t)tb) : NULL;
            const uint8_t *ih = th >= 0 ? bm_term_info(r, (uint32_t)th) : NULL;
            if (ib)
                bm_cur_open(&u->c[0], r, (uint32_t)tb);
            if (ih)
                bm_cur_open(&u->c[1], r, (uint32_t)th);
            present = ib || ih;
            max_tf = ib ? hxf_le32(ib + 4) : 0;
            min_dl = ib ? hxf_le32(ib + 8) : 0;
            htf = ih ? hxf_le32(ih + 4) : 0;
            min_df = (ib ? hxf_le32(ib) : 0) + (ih ? hxf_le32(ih) : 0);
        }
        for (uint32_t j = 0; j < u->n && u->phrase; j++) {
            int64_t ti = ids[pool - s->pool + j];
            if (ti < 0) {
                present = 0;
                continue;
            }
            bm_cur_open(&u->c[j], r, (uint32_t)ti);
            const uint8_t *inf = bm_term_info(r, (uint32_t)ti);
            if (hxf_le32(inf + 4) < max_tf)
                max_tf = hxf_le32(inf + 4);
            if (hxf_le32(inf + 8) > min_dl)
                min_dl = hxf_le32(inf + 8);
            if (hxf_le32(inf) < min_df)
                min_df = hxf_le32(inf);
        }
        pool += u->nc;
        if (!present) {
            u->doc = END_DOC;
            u->ub = 0;
            u->min_df = 0;
            if (u->occur == OCC_MUST)
                return 0;
            continue;
        }
        u->min_df = min_df;
        u->ub = u->w * tf_norm(s, max_tf, htf, norm_k(s, min_dl));
        u->block = u->hblock = UINT32_MAX;
        u->doc = 0;
        unit_sync(s, u);
        if (u->doc == END_DOC && u->occur == OCC_MUST)
            return 0;
    }
    return 1;
}

void hxi_bm25_count_live(hxi_bm25_segment *seg)
{
    const hxi_bm25_reader *r = seg->reader;
    seg->live_docs = seg->live_len = 0;
    for (uint32_t d = 0; d < r->n_docs; d++) {
        if (seg->is_deleted && seg->is_deleted(seg->deleted_ctx, hxf_le32(r->arr[A_DOC_IDS] + 4 * (size_t)d)))
            continue;
        seg->live_docs++;
        seg->live_len += hxf_le32(r->arr[A_DOC_LENS] + 4 * (size_t)d);
    }
}

/* Live documents of segment seg holding term ti (-1: absent); all of them without tombstones. */
static uint64_t live_df(const hxi_bm25_segment *seg, int64_t ti)
{
    if (ti < 0)
        return 0;
    if (!seg->is_deleted)
        return hxf_le32(bm_term_info(seg->reader, (uint32_t)ti));
    bm_cursor c;
    uint64_t n = 0;
    for (bm_cur_open(&c, seg->reader, (uint32_t)ti); c.doc != END_DOC; bm_cur_next(&c))
        n += !seg->is_deleted(seg->deleted_ctx, hxf_le32(seg->reader->arr[A_DOC_IDS] + 4 * (size_t)c.doc));
    return n;
}

typedef struct expansion {
    const char *text;   /* borrowed from a reader */
    uint32_t len;
    uint64_t df;
} expansion;

static int cmp_exp_text(const void *a, const void *b)
{
    const expansion *x = a, *y = b;
    int c = memcmp(x->text, y->text, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len < y->len ? -1 : x->len > y->len);
}

static int cmp_exp_df(const void *a, const void *b)
{
    const expansion *x = a, *y = b;
    if (x->df != y->df)
        return x->df > y->df ? -1 : 1;
    return cmp_exp_text(a, b);
}

/* Adds a one-term unit given qtf times, or counts an equal one qtf more times; nothing once the
 * unit cap (MAX_UNITS) is reached. */
static void add_unit(search *s, int occur, const char *text, size_t len, uint32_t qtf)
{
    for (size_t i = 0; i < s->n_units; i++) {
        unit *u = &s->u[i];
        if (!u->phrase && u->len == len && memcmp(u->text, text, len) == 0 &&
            (u->occur == OCC_NOT) == (occur == OCC_NOT)) {
            if (occur == OCC_MUST)
                u->occur = OCC_MUST;
            u->qtf += qtf;
            return;
        }
    }
    if (s->n_units >= MAX_UNITS)
        return;
    unit *u = &s->u[s->n_units++];
    memset(u, 0, sizeof *u);
    u->occur = (uint8_t)occur;
    u->n = 1;
    u->nc = 2;
    u->text = text;
    u->len = (uint32_t)len;
    u->qtf = qtf;
}

/* Turns the query's clauses into units; prefixes expand over the segments' dictionaries. */
static int resolve(search *s, const hxi_bm25_segment *segs, size_t n_segs)
{
    const hxi_bm25_query *q = s->q;
    expansion *ex = NULL;
    size_t n_ex = 0, cap_ex = 0;
    for (size_t c = 0; c < q->n_cl; c++) {
        const qclause *cl = &q->cl[c];
        if (cl->type == CL_TERM) {
            add_unit(s, cl->occur, qterm_text(q, cl->first), q->terms[cl->first].len, cl->qtf);
        } else if (cl->type == CL_PHRASE) {
            if (s->n_units >= MAX_UNITS)
                continue;
            unit *u = &s->u[s->n_units++];
            memset(u, 0, sizeof *u);
            u->occur = cl->occur;
            u->phrase = 1;
            u->n = u->nc = cl->n;
            u->qfirst = cl->first;
            u->qtf = cl->qtf;
        } else {
            const char *pre = qterm_text(q, cl->first);
            size_t plen = q->terms[cl->first].len;
            char key[1 + HX_ANALYZER_MAX_TERM];   /* the prefix in the header field */
            key[0] = HX_BM25_HEAD_MARK;
            memcpy(key + 1, pre, plen);
            n_ex = 0;
            for (size_t g = 0; g < n_segs; g++) {
                const hxi_bm25_reader *r = segs[g].reader;
                for (int field = 0; field < 2; field++) {
                    const char *k = field ? key : pre;
                    size_t klen = plen + (size_t)field;
                    for (uint32_t t = bm_lower_bound(r, k, klen); t < r->n_terms; t++) {
                        const char *txt;
                        size_t n;
                        bm_term_text(r, t, &txt, &n);
                        if (n < klen || memcmp(txt, k, klen) != 0)
                            break;
                        if (hx_grow((void **)&ex, &cap_ex, n_ex + 1, sizeof *ex, NULL)) {
                            free(ex);
                            return HX_ENOMEM;
                        }
                        ex[n_ex].text = txt + field;   /* a header term without its mark */
                        ex[n_ex].len = (uint32_t)(n - (size_t)field);
                        ex[n_ex++].df = hxf_le32(bm_term_info(r, t));
                    }
                }
            }
            if (n_ex == 0)
                continue;
            qsort(ex, n_ex, sizeof *ex, cmp_exp_text);
            size_t w = 0;
            for (size_t i = 0; i < n_ex; i++) {
                if (w && cmp_exp_text(&ex[w - 1], &ex[i]) == 0)
                    ex[w - 1].df += ex[i].df;
                else
                    ex[w++] = ex[i];
            }
            qsort(ex, w, sizeof *ex, cmp_exp_df);
            for (size_t i = 0; i < w && i < HX_BM25_MAX_EXPANSION; i++)
                add_unit(s, cl->occur, ex[i].text, ex[i].len, cl->qtf);
        }
    }
    free(ex);
    return 0;
}

/* Looks up every unit term (in cursor order: a term in the body, then in the header; a phrase's
 * leaves in the body) in reader r: ids[c] is its index there, or -1. */
static void find_terms(const search *s, const hxi_bm25_reader *r, int64_t *ids)
{
    char head[1 + HX_ANALYZER_MAX_TERM];
    head[0] = HX_BM25_HEAD_MARK;
    for (size_t i = 0, c = 0; i < s->n_units; i++) {
        const unit *u = &s->u[i];
        if (!u->phrase) {
            ids[c++] = hxi_bm25_reader_find(r, u->text, u->len);
            memcpy(head + 1, u->text, u->len);
            ids[c++] = hxi_bm25_reader_find(r, head, (size_t)u->len + 1);
            continue;
        }
        for (uint32_t j = 0; j < u->n; j++, c++)
            ids[c] = hxi_bm25_reader_find(r, qterm_text(s->q, u->qfirst + j), s->q->terms[u->qfirst + j].len);
    }
}

/* --- the steps of hxi_bm25_search --- */

/* Sets BM25's length normalisation from the live documents of all segments; returns their count
 * (0: nothing to search, and the normalisation is left unset). */
static uint64_t set_length_norm(search *s, const hxi_bm25_segment *segs, size_t n_segs)
{
    uint64_t n_live = 0, total = 0;
    for (size_t g = 0; g < n_segs; g++) {
        n_live += segs[g].is_deleted ? segs[g].live_docs : segs[g].reader->n_docs;
        total += segs[g].is_deleted ? segs[g].live_len : segs[g].reader->total_len;
    }
    if (n_live == 0)
        return 0;
    double avgdl = total ? (double)total / (double)n_live : 1.0;
    s->k_base = s->p->k1 * (1.0 - s->p->b);
    s->k_per_len = s->p->k1 * s->p->b / avgdl;
    s->head_per_k = s->p->k1 > 0 ? s->p->head_weight / s->p->k1 : 0;
    return n_live;
}

/* Looks up the unit terms in every segment (s->term_ids) and weighs each scoring unit with the idf
 * of its terms over the n_live live documents. 0 or HX_ENOMEM. */
static int weigh_units(search *s, const hxi_bm25_segment *segs, size_t n_segs, uint64_t n_live)
{
    size_t n_cursors = s->n_cursors;
    if (!(s->term_ids = hx_malloc(n_segs * n_cursors * sizeof *s->term_ids)))
        return HX_ENOMEM;
    for (size_t g = 0; g < n_segs; g++)
        find_terms(s, segs[g].reader, s->term_ids + g * n_cursors);
    for (size_t i = 0, c = 0; i < s->n_units; c += s->u[i++].nc) {
        unit *u = &s->u[i];
        uint64_t max_df = 0;   /* a term's df: the larger of its fields' (CombinedFieldQuery) */
        for (uint32_t j = 0; j < u->nc && u->occur != OCC_NOT; j++) {
            uint64_t df = 0;
            for (size_t g = 0; g < n_segs; g++)
                df += live_df(&segs[g], s->term_ids[g * n_cursors + c + j]);
            if (u->phrase)
                u->w += idf((double)n_live, (double)df);
            else if (df > max_df)
                max_df = df;
        }
        if (!u->phrase && u->occur != OCC_NOT)
            u->w = idf((double)n_live, (double)max_df);
        u->w *= u->qtf;
    }
    return 0;
}

/* The cursors and the per-unit scratch of the segment runs. 0 or HX_ENOMEM. */
static int alloc_scratch(search *s)
{
    s->pool = hx_malloc(s->n_cursors * sizeof *s->pool);
    s->ord = hx_malloc((s->n_units + 1) * sizeof *s->ord);
    s->bound = hx_malloc((s->n_units + 1) * sizeof *s->bound);
    s->bound2 = hx_malloc((s->n_units + 1) * sizeof *s->bound2);
    s->touched = hx_malloc((s->n_units + 1) * sizeof *s->touched);
    s->contrib = hx_calloc(s->n_units + 1, sizeof *s->contrib);   /* finish_doc sums every unit */
    return s->pool && s->ord && s->bound && s->bound2 && s->touched && s->contrib ? 0 : HX_ENOMEM;
}

/* Searches the segments in turn into the top-k heap. 0, HX_ENOMEM, or HX_EFORMAT with err set
 * when a segment's postings are corrupt. */
static int search_segments(search *s, const hxi_bm25_segment *segs, size_t n_segs, size_t n_must,
                           hx_error *err)
{
    for (size_t g = 0; g < n_segs && !s->nomem; g++) {
        s->seg = (uint32_t)g;
        if (open_segment(s, &segs[g], g)) {
            if (n_must)
                run_conjunction(s, &segs[g]);
            else
                run_disjunction(s, &segs[g]);
        }
        for (size_t c = 0; c < s->n_cursors; c++)
            if (s->pool[c].bad)
                return hx_error_set(err, HX_EFORMAT, -1, "bm25: segment %zu has corrupt postings", g);
    }
    return s->nomem ? HX_ENOMEM : 0;
}

void hxi_bm25_params_default(hxi_bm25_params *p)
{
    memset(p, 0, sizeof *p);
    p->k1 = 1.2;
    p->b = 0.75;
    p->head_weight = HX_BM25_HEAD_WEIGHT;
}

int hxi_bm25_search(const hxi_bm25_segment *segs, size_t n_segs, const hxi_bm25_query *q,
                    const hxi_bm25_params *params, size_t k, hxi_bm25_hit *out, size_t *n_out, hx_error *err)
{
    *n_out = 0;
    hxi_bm25_params defaults;
    if (!params) {
        hxi_bm25_params_default(&defaults);
        params = &defaults;
    }
    if (!(params->k1 >= 0 && params->k1 < 1e6) || !(params->b >= 0 && params->b <= 1) ||
        !(params->head_weight >= 0 && params->head_weight < 1e6))
        return hx_error_set(err, HX_EINVAL, -1, "bm25: k1 and head_weight must be >= 0 and b within [0, 1]");
    if (params->bound)
        *params->bound = 0;
    if (k == 0 || q->n_cl == 0)
        return 0;
    search s;
    memset(&s, 0, sizeof s);
    s.q = q;
    s.p = params;
    s.heap = out;
    s.k = k;
    int rc = 0;
    s.u = hx_malloc(MAX_UNITS * sizeof *s.u);
    if (!s.u || resolve(&s, segs, n_segs))
        goto nomem;
    uint64_t n_live = set_length_norm(&s, segs, n_segs);
    if (n_live == 0)
        goto done;
    size_t n_must = 0, n_scoring = 0;
    for (size_t i = 0; i < s.n_units; i++) {
        s.n_cursors += s.u[i].nc;
        n_must += s.u[i].occur == OCC_MUST;
        n_scoring += s.u[i].occur != OCC_NOT;
        s.n_not += s.u[i].occur == OCC_NOT;
    }
    if (n_scoring == 0)
        goto done;
    if (weigh_units(&s, segs, n_segs, n_live) || alloc_scratch(&s))
        goto nomem;
    for (size_t i = 0; i < s.n_units && params->bound; i++)
        *params->bound += s.u[i].occur != OCC_NOT ? s.u[i].w : 0;
    if ((rc = search_segments(&s, segs, n_segs, n_must, err)) == HX_ENOMEM)
        goto nomem;
    if (rc == 0) {
        heap_sort_best_first(out, s.n_heap);
        *n_out = s.n_heap;
    }
    goto done;
nomem:
    rc = hx_error_set(err, HX_ENOMEM, -1, "bm25: out of memory");
done:
    free(s.u);
    free(s.term_ids);
    free(s.pool);
    free(s.ord);
    free(s.bound);
    free(s.bound2);
    free(s.touched);
    free(s.contrib);
    for (int i = 0; i < HX_BM25_MAX_PHRASE; i++)
        free(s.pos[i]);
    return rc;
}
