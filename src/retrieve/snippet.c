/* snippet.c: keyword snippets: the best window of a document's text for a parsed query, with
 * matched terms marked **like this** and "…" where the text was cut. Reads the query through
 * hxi_bm25_query_highlight only and never touches an index. Spec: hxi_snippet_make in bm25.h. */
#include "analyzer.h"
#include "alloc.h"
#include "bm25.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

typedef struct match {
    uint32_t start, end;  /* byte range in the text */
    uint32_t hl;          /* index of the highlight term it matched */
} match;

typedef struct outbuf {
    char *p;  /* owned until handed to the caller */
    size_t len, cap;
} outbuf;

static int put(outbuf *o, const char *s, size_t n)
{
    if (hx_grow((void **)&o->p, &o->cap, o->len + n + 1, 1, NULL))
        return HX_ENOMEM;
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = 0;
    return 0;
}

/* The query's highlight terms, fetched once. */
typedef struct hlterm {
    const char *text;  /* borrowed from the query */
    size_t len;
    int prefix;
} hlterm;

/* Index of the highlight term matching term bytes t[0..n), or -1. */
static int64_t which(const hlterm *hl, size_t n_hl, const char *t, size_t n)
{
    for (size_t i = 0; i < n_hl; i++) {
        if (hl[i].len == n ? memcmp(hl[i].text, t, n) == 0
                           : (hl[i].prefix && hl[i].len < n && memcmp(hl[i].text, t, hl[i].len) == 0))
            return (int64_t)i;
    }
    return -1;
}

/* Copies text[from, to) with whitespace runs as one space, invalid UTF-8 as U+FFFD, and the
 * merged match spans (sorted, disjoint, within range) wrapped in **. */
static int emit_window(outbuf *o, const char *text, size_t from, size_t to, const match *spans, size_t n_spans)
{
    size_t si = 0, pos = from;
    int in_space = 0;
    while (pos < to) {
        if (si < n_spans && pos == spans[si].start && put(o, "**", 2))
            return HX_ENOMEM;
        uint32_t cp;
        size_t at = pos;
        int ok = hxi_utf8_next(text, to, &pos, &cp);
        if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v') {
            if (!in_space && put(o, " ", 1))
                return HX_ENOMEM;
            in_space = 1;
        } else {
            char enc[4];
            int k = ok ? (int)(pos - at) : hxi_utf8_put(0xFFFD, enc);
            if (put(o, ok ? text + at : enc, (size_t)k))
                return HX_ENOMEM;
            in_space = 0;
        }
        if (si < n_spans && pos >= spans[si].end) {
            if (put(o, "**", 2))
                return HX_ENOMEM;
            si++;
        }
    }
    return 0;
}

/* === Steps of hxi_snippet_make === */

/* The query's highlight terms, in query order: *out is malloc'ed (never NULL on success, caller
 * frees with free) and borrows the term bytes from q. */
static int load_highlights(const hxi_bm25_query *q, hlterm **out, size_t *n_out)
{
    size_t n = 0;
    const char *h;
    size_t hl;
    int pre;
    while (hxi_bm25_query_highlight(q, n, &h, &hl, &pre) == 0)
        n++;
    hlterm *hls = hx_malloc((n ? n : 1) * sizeof *hls);
    if (!hls)
        return HX_ENOMEM;
    for (size_t i = 0; i < n; i++)
        hxi_bm25_query_highlight(q, i, &hls[i].text, &hls[i].len, &hls[i].prefix);
    *out = hls;
    *n_out = n;
    return 0;
}

/* Is the lowercased word w[0..n) a stop word for highlighting? PostgreSQL's english.stop (the
 * Snowball list, 127 words), wider than the scoring list (hxi_analyzer_is_stop, Lucene's 33): a
 * reader sees "do" or "from" in bold as noise even where they score. */
static int is_display_stop(const char *w, size_t n)
{
    /* by length, each list one string of n-letter words, so a word is compared with its own length only */
    static const char *const stop[11] = {
        NULL,
        "iast",
        "memyweheitamisbedoaniforasofatbytoupinonnoso",
        "ouryouhimhissheheritswhoarewashashaddidtheandbutforoutoffwhyhowallanyfewnornot"
        "owntoocandonnow",
        "oursyourherstheythemwhatwhomthisthatwerebeenhavedoeswithintofromdownoverthenonce"
        "herewhenbotheachmoremostsomesuchonlysamethanverywilljust",
        "yourstheirwhichthesethosebeingdoinguntilwhileaboutafterabovebelowunderagainthere"
        "whereother",
        "myselfitselftheirshavingduringbeforeshould",
        "himselfherselfbecauseagainstbetweenthroughfurther",
        "yourself",
        "ourselves",
        "yourselvesthemselves",
    };
    if (n == 0 || n > 10)
        return 0;
    for (const char *p = stop[n]; *p; p += n)
        if (!memcmp(p, w, n))
            return 1;
    return 0;
}

/* Writes the analyzed terms that match a highlight term into m (room for an->n_terms), in text
 * order; returns how many. A leaf that is a stop word (is_display_stop) is never marked, nor its
 * stemmed term (which follows it, analyzer.h). */
static size_t find_matches(const hxi_analysis *an, const hlterm *hls, size_t n_hl, match *m)
{
    size_t n_m = 0;
    for (size_t i = 0; i < an->n_terms && n_hl; i++) {
        const hxi_term *t = &an->terms[i];
        const hxi_term *leaf = t->kind == HX_TERM_STEM ? t - 1 : t;
        if ((leaf->kind == HX_TERM_LEAF) && is_display_stop(hxi_analyzer_term(an, (size_t)(leaf - an->terms)), leaf->text_len))
            continue;
        int64_t w = which(hls, n_hl, hxi_analyzer_term(an, i), an->terms[i].text_len);
        if (w >= 0) {
            m[n_m].start = an->terms[i].start;
            m[n_m].end = an->terms[i].end;
            m[n_m++].hl = (uint32_t)w;
        }
    }
    return n_m;
}

/* Sliding window over the matches, each run ending within target bytes of its first match: most
 * distinct terms, then most matches, then earliest. count holds one zeroed counter per highlight
 * term. Sets *best to the run's first match and returns its length (0: no match at all). */
static size_t best_run(const match *m, size_t n_m, uint32_t *count, size_t target, size_t *best)
{
    size_t best_distinct = 0, best_total = 0, j = 0, distinct = 0;
    *best = 0;
    for (size_t i = 0; i < n_m; i++) {
        while (j < n_m && m[j].end <= (size_t)m[i].start + target) {
            distinct += count[m[j].hl]++ == 0;
            j++;
        }
        if (j > i && (distinct > best_distinct || (distinct == best_distinct && j - i > best_total))) {
            *best = i;
            best_distinct = distinct;
            best_total = j - i;
        }
        if (j > i)
            distinct -= --count[m[i].hl] == 0;
        else
            j = i + 1;
    }
    return best_total;
}

/* Where the window starts: on a token boundary before the run m[best, best + n_run), leaving a
 * third of the room the run does not use in front of it (0 when that reaches the text's start). */
static size_t window_start(const hxi_analysis *an, const match *m, size_t best, size_t n_run, size_t target)
{
    size_t last_end = m[best].end;
    for (size_t k = best; k < best + n_run; k++)
        if (m[k].end > last_end)
            last_end = m[k].end;
    size_t span = last_end - m[best].start;
    size_t lead = span < target ? (target - span) / 3 : 0;
    size_t want = m[best].start > lead ? m[best].start - lead : 0;
    if (want == 0)
        return 0;
    size_t from = m[best].start;
    for (size_t k = 0; k < an->n_terms; k++) {
        if (an->terms[k].start >= want && an->terms[k].start <= from) {
            from = an->terms[k].start;
            break;
        }
    }
    return from;
}

/* Where the window ends: after the last whole token within target bytes of from, or at a code
 * point boundary when no whole token fits; then punctuation that closes the last word (a full
 * stop, a bracket) while it fits. */
static size_t window_end(const hxi_analysis *an, const char *text, size_t len, size_t from, size_t target)
{
    size_t to = from;
    for (size_t k = 0; k < an->n_terms; k++)
        if (an->terms[k].start >= from && an->terms[k].end <= from + target && an->terms[k].end > to)
            to = an->terms[k].end;
    if (to == from) {
        size_t p = from;
        while (p < len && p - from < target) {
            size_t prev = p;
            uint32_t cp;
            hxi_utf8_next(text, len, &p, &cp);
            if (p - from > target) {
                p = prev;
                break;
            }
        }
        to = p;
    }
    while (to < len) {
        size_t p = to;
        uint32_t cp;
        hxi_utf8_next(text, len, &p, &cp);
        unsigned c = hxi_unicode_class(cp);
        if (p - from > target || (c & (HX_UC_SPACE | HX_UC_LETTER | HX_UC_NUMBER | HX_UC_MARK | HX_UC_CONTROL)))
            break;
        to = p;
    }
    return to;
}

/* Keeps the matches inside [from, to) and merges overlapping ones (a whole and its parts) in
 * place; returns how many spans remain, sorted and disjoint. */
static size_t merge_spans(match *m, size_t n_m, size_t from, size_t to)
{
    size_t n_s = 0;
    for (size_t k = 0; k < n_m; k++) {
        if (m[k].start < from || m[k].end > to)
            continue;
        if (n_s && m[k].start <= m[n_s - 1].end) {
            if (m[k].end > m[n_s - 1].end)
                m[n_s - 1].end = m[k].end;
            continue;
        }
        m[n_s++] = m[k];
    }
    return n_s;
}

/* === hxi_snippet_make === */

int hxi_snippet_make(const char *text, size_t len, const hxi_bm25_query *q, size_t target, char **out,
                     size_t *out_len, hx_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (target == 0)
        target = HX_SNIPPET_DEFAULT;
    hxi_analysis an = {0};
    outbuf o = {0};
    match *m = NULL;
    uint32_t *count = NULL;
    hlterm *hls = NULL;
    size_t n_hl = 0;
    uint8_t first[32] = {0};
    an.config = hxi_bm25_query_analyzer(q);  /* stemmed terms in the text meet the query's */
    if (load_highlights(q, &hls, &n_hl))
        goto nomem;
    for (size_t i = 0; i < n_hl; i++)   /* a word no stemmed highlight starts like needs no stem */
        if (hls[i].len > 1 && hls[i].text[0] == HX_STEM_MARK)
            first[(unsigned char)hls[i].text[1] / 8] |= (uint8_t)(1u << ((unsigned char)hls[i].text[1] % 8));
    an.stem_first = first;
    int rc = hxi_analyzer_run(&an, text, len, err);
    if (rc)
        goto fail;
    m = hx_malloc((an.n_terms ? an.n_terms : 1) * sizeof *m);
    count = hx_calloc(n_hl ? n_hl : 1, sizeof *count);
    if (!m || !count)
        goto nomem;
    size_t n_m = find_matches(&an, hls, n_hl, m);
    size_t best, n_run = best_run(m, n_m, count, target, &best);
    size_t from = n_run ? window_start(&an, m, best, n_run, target) : 0;
    size_t to = window_end(&an, text, len, from, target);
    size_t n_s = merge_spans(m, n_m, from, to);
    if ((from > 0 && put(&o, "\xe2\x80\xa6", 3)) || emit_window(&o, text, from, to, m, n_s) ||
        (to < len && put(&o, "\xe2\x80\xa6", 3)) || put(&o, "", 0))
        goto nomem;
    *out = o.p;
    *out_len = o.len;
    o.p = NULL;
    rc = 0;
    goto done;
nomem:
    rc = hx_error_set(err, HX_ENOMEM, -1, "snippet: out of memory");
fail:
    free(o.p);
done:
    free(m);
    free(count);
    free(hls);
    hxi_analyzer_free(&an);
    return rc;
}
