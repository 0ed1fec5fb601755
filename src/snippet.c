/* snippet.c: keyword snippets: the best window of a document's text for a parsed query, with
 * matched terms marked **like this** and "…" where the text was cut. Reads the query through
 * hx_bm25_query_highlight only and never touches an index. Spec: hx_snippet_make in bm25.h. */
#include "analyzer.h"
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
    if (o->len + n + 1 > o->cap) {
        size_t c = o->cap ? o->cap : 256;
        while (c < o->len + n + 1)
            c *= 2;
        char *q = realloc(o->p, c);
        if (!q)
            return HX_ENOMEM;
        o->p = q;
        o->cap = c;
    }
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
        int ok = hx_utf8_next(text, to, &pos, &cp);
        if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v') {
            if (!in_space && put(o, " ", 1))
                return HX_ENOMEM;
            in_space = 1;
        } else {
            char enc[4];
            int k = ok ? (int)(pos - at) : hx_utf8_put(0xFFFD, enc);
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

int hx_snippet_make(const char *text, size_t len, const hx_bm25_query *q, size_t target, char **out,
                    size_t *out_len, hx_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (target == 0)
        target = HX_SNIPPET_DEFAULT;
    hx_analysis an = {0};
    outbuf o = {0};
    match *m = NULL;
    uint32_t *count = NULL;
    hlterm *hls = NULL;
    an.config = hx_bm25_query_analyzer(q);  /* stemmed terms in the text meet the query's */
    int rc = hx_analyzer_run(&an, text, len, err);
    if (rc)
        goto fail;
    size_t n_hl = 0;
    {
        const char *h;
        size_t hl;
        int pre;
        while (hx_bm25_query_highlight(q, n_hl, &h, &hl, &pre) == 0)
            n_hl++;
    }
    m = malloc((an.n_terms ? an.n_terms : 1) * sizeof *m);
    count = calloc(n_hl ? n_hl : 1, sizeof *count);
    hls = malloc((n_hl ? n_hl : 1) * sizeof *hls);
    if (!m || !count || !hls)
        goto nomem;
    for (size_t i = 0; i < n_hl; i++)
        hx_bm25_query_highlight(q, i, &hls[i].text, &hls[i].len, &hls[i].prefix);
    size_t n_m = 0;
    for (size_t i = 0; i < an.n_terms && n_hl; i++) {
        int64_t w = which(hls, n_hl, hx_analyzer_term(&an, i), an.terms[i].text_len);
        if (w >= 0) {
            m[n_m].start = an.terms[i].start;
            m[n_m].end = an.terms[i].end;
            m[n_m++].hl = (uint32_t)w;
        }
    }
    /* Sliding window over matches: most distinct terms, then most matches, then earliest. */
    size_t best = 0, best_distinct = 0, best_total = 0, j = 0, distinct = 0;
    for (size_t i = 0; i < n_m; i++) {
        while (j < n_m && m[j].end <= (size_t)m[i].start + target) {
            distinct += count[m[j].hl]++ == 0;
            j++;
        }
        if (j > i && (distinct > best_distinct || (distinct == best_distinct && j - i > best_total))) {
            best = i;
            best_distinct = distinct;
            best_total = j - i;
        }
        if (j > i)
            distinct -= --count[m[i].hl] == 0;
        else
            j = i + 1;
    }
    /* Window bounds on token boundaries. */
    size_t from = 0, to;
    if (best_total) {
        size_t last_end = m[best].end;
        for (size_t k = best; k < best + best_total; k++)
            if (m[k].end > last_end)
                last_end = m[k].end;
        size_t span = last_end - m[best].start;
        size_t lead = span < target ? (target - span) / 3 : 0;
        size_t want = m[best].start > lead ? m[best].start - lead : 0;
        from = m[best].start;
        for (size_t k = 0; k < an.n_terms; k++) {
            if (an.terms[k].start >= want && an.terms[k].start <= from) {
                from = an.terms[k].start;
                break;
            }
        }
        if (want == 0)
            from = 0;
    }
    to = from;
    for (size_t k = 0; k < an.n_terms; k++)
        if (an.terms[k].start >= from && an.terms[k].end <= from + target && an.terms[k].end > to)
            to = an.terms[k].end;
    if (to == from) {
        /* No whole token fits: cut at a code point boundary. */
        size_t p = from;
        while (p < len && p - from < target) {
            size_t prev = p;
            uint32_t cp;
            hx_utf8_next(text, len, &p, &cp);
            if (p - from > target) {
                p = prev;
                break;
            }
        }
        to = p;
    }
    /* Keep punctuation that closes the last word (a full stop, a bracket) when it fits. */
    while (to < len) {
        size_t p = to;
        uint32_t cp;
        hx_utf8_next(text, len, &p, &cp);
        unsigned c = hx_unicode_class(cp);
        if (p - from > target || (c & (HX_UC_SPACE | HX_UC_LETTER | HX_UC_NUMBER | HX_UC_MARK | HX_UC_CONTROL)))
            break;
        to = p;
    }
    /* Merge overlapping match spans inside the window (a whole and its parts). */
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
    hx_analyzer_free(&an);
    return rc;
}
