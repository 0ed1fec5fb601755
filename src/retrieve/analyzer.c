/* analyzer.c: the BM25 analyzer (text -> lowercased terms with positions and byte offsets).
 * Owns only the rules documented in analyzer.h; character data comes from unicode.h and nothing
 * here knows about indexes or queries. Spec: the header comment of analyzer.h. */
#include "analyzer.h"
#include "alloc.h"
#include "stem.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

/* One code point of the compound being assembled. */
typedef struct cpinfo {
    uint32_t lower;  /* lowercased code point */
    uint32_t start;  /* byte range in the input */
    uint32_t end;
    uint8_t kind;    /* CK_* */
} cpinfo;

enum { CK_JOIN = 1, CK_UPPER = 2, CK_LOWER = 3, CK_DIGIT = 4, CK_MARK = 5 };

static int is_joiner(uint32_t cp)
{
    return cp == '-' || cp == '_' || cp == '.' || cp == '/' || cp == ':';
}

/* 0 for a non-word character, else the CK_* kind of a word character. */
static int word_kind(uint32_t cp, uint32_t *lower)
{
    *lower = cp;
    if (cp < 0x80) {
        if (cp >= 'a' && cp <= 'z')
            return CK_LOWER;
        if (cp >= 'A' && cp <= 'Z') {
            *lower = cp + 32;
            return CK_UPPER;
        }
        if (cp >= '0' && cp <= '9')
            return CK_DIGIT;
        return 0;
    }
    unsigned c = hx_unicode_class(cp);
    if (c & HX_UC_LETTER) {
        *lower = hx_unicode_lower(cp);
        return *lower != cp ? CK_UPPER : CK_LOWER;
    }
    if (c & HX_UC_NUMBER)
        return CK_DIGIT;
    if (c & HX_UC_MARK)
        return CK_MARK;
    return 0;
}

/* Appends the lowercased code points cps[from..to) (joiners included as themselves) as one term.
 * Leaves longer than the cap are cut at a code point boundary; other kinds are dropped. */
static int emit(hx_analysis *a, const cpinfo *cps, size_t from, size_t to, uint32_t pos, uint32_t kind)
{
    char tmp[HX_ANALYZER_MAX_TERM];
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        char enc[4];
        int k = hx_utf8_put(cps[i].lower, enc);
        if (n + (size_t)k > HX_ANALYZER_MAX_TERM) {
            if (kind != HX_TERM_LEAF)
                return 0;
            break;
        }
        memcpy(tmp + n, enc, (size_t)k);
        n += (size_t)k;
    }
    if (n == 0)
        return 0;
    if (hx_grow((void **)&a->terms, &a->cap_terms, a->n_terms + 1, sizeof *a->terms, NULL) ||
        hx_grow((void **)&a->buf, &a->buf_cap, a->buf_len + n, 1, NULL))
        return HX_ENOMEM;
    memcpy(a->buf + a->buf_len, tmp, n);
    hx_term *t = &a->terms[a->n_terms++];
    t->text_off = (uint32_t)a->buf_len;
    t->text_len = (uint32_t)n;
    t->pos = pos;
    t->start = cps[from].start;
    t->end = cps[to - 1].end;
    t->kind = kind;
    a->buf_len += n;
    return 0;
}

/* === English: stop words and stemmed terms === */

const char *hx_analyzer_name(uint32_t config)
{
    return config == HX_ANALYZER_EXACT ? "exact" : config == HX_ANALYZER_ENGLISH ? "english" : NULL;
}

int hx_analyzer_is_stop(const char *w, size_t n)
{
    /* Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, in order. */
    static const char *const stop[] = {
        "a",    "an",   "and",  "are",   "as",   "at",    "be",    "but",  "by",
        "for",  "if",   "in",   "into",  "is",   "it",    "no",    "not",  "of",
        "on",   "or",   "such", "that",  "the",  "their", "then",  "there", "these",
        "they", "this", "to",   "was",   "will", "with"};
    if (n > 5)
        return 0;
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++)
        if (strlen(stop[i]) == n && memcmp(stop[i], w, n) == 0)
            return 1;
    return 0;
}

/* Appends the stemmed term of the leaf just emitted (the last term), unless it is a stop word. */
static int emit_stem(hx_analysis *a)
{
    hx_term leaf = a->terms[a->n_terms - 1];
    const char *w = a->buf + leaf.text_off;
    if (hx_analyzer_is_stop(w, leaf.text_len))
        return 0;
    char tmp[1 + HX_ANALYZER_MAX_TERM];
    tmp[0] = HX_STEM_MARK;
    size_t n = hx_stem_english(w, leaf.text_len, tmp + 1);
    while (1 + n > HX_ANALYZER_MAX_TERM) {  /* mark + stem within the cap: drop a code point */
        n--;
        while (n && ((unsigned char)tmp[1 + n] & 0xC0) == 0x80)
            n--;
    }
    if (hx_grow((void **)&a->terms, &a->cap_terms, a->n_terms + 1, sizeof *a->terms, NULL) ||
        hx_grow((void **)&a->buf, &a->buf_cap, a->buf_len + n + 1, 1, NULL))
        return HX_ENOMEM;
    memcpy(a->buf + a->buf_len, tmp, n + 1);
    hx_term *t = &a->terms[a->n_terms++];
    *t = leaf;
    t->text_off = (uint32_t)a->buf_len;
    t->text_len = (uint32_t)(n + 1);
    t->kind = HX_TERM_STEM;
    a->buf_len += n + 1;
    a->doc_len++;
    return 0;
}

/* Is the compound cps[0..n) the s of a possessive: "s" right after an apostrophe (' or U+2019)
 * that directly follows the previous compound, which ended at prev_end? */
static int possessive_s(const char *text, const cpinfo *cps, size_t n, size_t prev_end)
{
    if (n != 1 || cps[0].lower != 's' || prev_end == 0)
        return 0;
    size_t s = cps[0].start;
    if (s == prev_end + 1 && text[prev_end] == '\'')
        return 1;
    return s == prev_end + 3 && memcmp(text + prev_end, "\xe2\x80\x99", 3) == 0;
}

/* Is there a camelCase leaf boundary before cps[i] (within a segment starting at s, ending at e)? */
static int camel_break(const cpinfo *cps, size_t s, size_t e, size_t i)
{
    if (i == s || cps[i].kind != CK_UPPER)
        return 0;
    int prev = cps[i - 1].kind;
    if (prev == CK_LOWER || prev == CK_DIGIT)
        return 1;
    return prev == CK_UPPER && i + 1 < e && cps[i + 1].kind == CK_LOWER;
}

static size_t count_leaves(const cpinfo *cps, size_t s, size_t e)
{
    size_t n = 1;
    for (size_t i = s + 1; i < e; i++)
        n += (size_t)camel_break(cps, s, e, i);
    return n;
}

/* Emits the terms of one compound cps[0..n) (n >= 1, no leading or trailing joiner); stem: also
 * the stemmed term after each leaf. */
static int emit_compound(hx_analysis *a, const cpinfo *cps, size_t n, int stem)
{
    size_t n_segments = 1, n_leaves = 0;
    for (size_t i = 0; i < n; i++)
        n_segments += cps[i].kind == CK_JOIN;
    for (size_t s = 0; s < n;) {
        size_t e = s;
        while (e < n && cps[e].kind != CK_JOIN)
            e++;
        n_leaves += count_leaves(cps, s, e);
        s = e + 1;
    }
    uint32_t pos = a->n_positions;
    int rc;
    if (n_leaves > 1 && (rc = emit(a, cps, 0, n, pos, HX_TERM_WHOLE)))
        return rc;
    for (size_t s = 0; s < n;) {
        size_t e = s;
        while (e < n && cps[e].kind != CK_JOIN)
            e++;
        size_t leaves = count_leaves(cps, s, e);
        if (leaves > 1 && n_segments > 1 && (rc = emit(a, cps, s, e, pos, HX_TERM_SEGMENT)))
            return rc;
        size_t ls = s;
        for (size_t i = s + 1; i <= e; i++) {
            if (i == e || camel_break(cps, s, e, i)) {
                size_t before = a->n_terms;
                if ((rc = emit(a, cps, ls, i, pos++, HX_TERM_LEAF)))
                    return rc;
                if (stem && a->n_terms > before && (rc = emit_stem(a)))
                    return rc;
                ls = i;
            }
        }
        s = e + 1;
    }
    a->n_positions = pos;
    return 0;
}

/* Emits the compound of the n code points in a->scratch; the s of a possessive gets no stem. */
static int flush(hx_analysis *a, const char *text, size_t n, int english, size_t *prev_end)
{
    const cpinfo *cps = a->scratch;
    int stem = english && !possessive_s(text, cps, n, *prev_end);
    *prev_end = cps[n - 1].end;
    return emit_compound(a, cps, n, stem);
}

int hx_analyzer_run(hx_analysis *a, const char *text, size_t len, hx_error *err)
{
    a->n_terms = 0;
    a->buf_len = 0;
    a->n_positions = 0;
    a->doc_len = 0;
    int english = a->config == HX_ANALYZER_ENGLISH;
    size_t prev_end = 0;  /* end of the last compound (0: none yet) */
    if (len >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "analyzer: text of %zu bytes is over 4 GiB", len);
    size_t pos = 0, n = 0;
    int prev_word = 0;        /* the last code point was a word character */
    size_t pending_join = 0;  /* 1 + index of a joiner waiting for a word character, else 0 */
    while (pos < len) {
        if (n == HX_ANALYZER_MAX_COMPOUND) {   /* cut here, so any run costs bounded memory */
            if (pending_join)
                n--;
            if (flush(a, text, n, english, &prev_end))
                return hx_error_set(err, HX_ENOMEM, -1, "analyzer: out of memory");
            n = 0;
            prev_word = 0;
            pending_join = 0;
        }
        size_t start = pos;
        uint32_t cp, lower;
        hx_utf8_next(text, len, &pos, &cp);
        int kind = word_kind(cp, &lower);
        if (kind == CK_MARK && !prev_word)
            kind = 0;  /* a mark with nothing to attach to separates words */
        if (kind) {
            if (hx_grow(&a->scratch, &a->scratch_cap, n + 1, sizeof(cpinfo), NULL))
                return hx_error_set(err, HX_ENOMEM, -1, "analyzer: out of memory");
            cpinfo *c = (cpinfo *)a->scratch + n++;
            c->lower = lower;
            c->start = (uint32_t)start;
            c->end = (uint32_t)pos;
            c->kind = (uint8_t)kind;
            prev_word = 1;
            pending_join = 0;
            continue;
        }
        if (prev_word && is_joiner(cp)) {
            /* Tentatively part of the compound; dropped below unless a word character follows. */
            if (hx_grow(&a->scratch, &a->scratch_cap, n + 1, sizeof(cpinfo), NULL))
                return hx_error_set(err, HX_ENOMEM, -1, "analyzer: out of memory");
            cpinfo *c = (cpinfo *)a->scratch + n++;
            c->lower = cp;
            c->start = (uint32_t)start;
            c->end = (uint32_t)pos;
            c->kind = CK_JOIN;
            pending_join = n;
            prev_word = 0;
            continue;
        }
        if (pending_join)
            n--;  /* the joiner was not followed by a word character */
        if (n && flush(a, text, n, english, &prev_end))
            return hx_error_set(err, HX_ENOMEM, -1, "analyzer: out of memory");
        n = 0;
        prev_word = 0;
        pending_join = 0;
    }
    if (pending_join)
        n--;
    if (n && flush(a, text, n, english, &prev_end))
        return hx_error_set(err, HX_ENOMEM, -1, "analyzer: out of memory");
    if (!english)
        a->doc_len = a->n_positions;
    return 0;
}

void hx_analyzer_free(hx_analysis *a)
{
    free(a->terms);
    free(a->buf);
    free(a->scratch);
    memset(a, 0, sizeof *a);
}
