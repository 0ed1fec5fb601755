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

enum { CK_JOIN = 1, CK_UPPER = 2, CK_LOWER = 3, CK_DIGIT = 4, CK_MARK = 5, CK_ALPHA = 6 };

/* What the compound being assembled is: words with identifiers (the rules of analyzer.h), a CJK
 * run (bigrams) or a Southeast Asian run (n-grams at one position). */
enum { RUN_NONE = 0, RUN_WORD, RUN_CJK, RUN_SEA };

static int is_joiner(uint32_t cp)
{
    return cp == '-' || cp == '_' || cp == '.' || cp == '/' || cp == ':';
}

/* 0 for a non-word character, else the CK_* kind of a word character (scripts: Hangul letters are
 * uncased, as in every configuration but HX_ANALYZER_ENGLISH_ASCII). */
static int word_kind(uint32_t cp, uint32_t *lower, int scripts)
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
    unsigned c = hxi_unicode_class(cp);
    if (c & HX_UC_LETTER) {
        *lower = hxi_unicode_lower(cp);
        if (*lower != cp)
            return CK_UPPER;
        return scripts && hxi_unicode_script(cp) == HX_US_HANGUL ? CK_ALPHA : CK_LOWER;
    }
    if (c & HX_UC_NUMBER)
        return CK_DIGIT;
    if (c & HX_UC_MARK)
        return CK_MARK;
    return 0;
}

/* Appends the lowercased code points cps[from..to) (joiners included as themselves) as one term.
 * Leaves longer than the cap are cut at a code point boundary; other kinds are dropped. */
static int emit(hxi_analysis *a, const cpinfo *cps, size_t from, size_t to, uint32_t pos, uint32_t kind)
{
    char tmp[HX_ANALYZER_MAX_TERM];
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        char enc[4];
        int k = hxi_utf8_put(cps[i].lower, enc);
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
    hxi_term *t = &a->terms[a->n_terms++];
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

const char *hxi_analyzer_name(uint32_t config)
{
    static const char *const names[] = {"exact", "english", "unicode"};
    return config < sizeof names / sizeof names[0] ? names[config] : NULL;
}

int hxi_analyzer_is_stop(const char *w, size_t n)
{
    /* Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, in order. */
    static const char *const stop[] = {
        "a",    "an",   "and",  "are",   "as",   "at",    "be",    "but",  "by",
        "for",  "if",   "in",   "into",  "is",   "it",    "no",    "not",  "of",
        "on",   "or",   "such", "that",  "the",  "their", "then",  "there", "these",
        "they", "this", "to",   "was",   "will", "with"};
    if (n == 0 || n > 5)
        return 0;
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++)
        if (stop[i][0] == w[0] && strlen(stop[i]) == n && memcmp(stop[i], w, n) == 0)
            return 1;
    return 0;
}

/* ICU-folds the lowercased term w[0..n) into out (room HX_ANALYZER_MAX_TERM bytes), cut at a code
 * point boundary within the cap; returns the length. *latin: every letter of it is Latin script. */
static size_t fold_term(const char *w, size_t n, char *out, int *latin)
{
    size_t len = 0, pos = 0;
    *latin = 1;
    while (len < n && (unsigned char)w[len] < 0x80)   /* ASCII leaves hold only a-z 0-9: fold to themselves */
        len++;
    if (len == n) {
        memcpy(out, w, n);
        return n;
    }
    len = 0;
    while (pos < n) {
        uint32_t cp, f[HX_UNICODE_FOLD_MAX];
        hxi_utf8_next(w, n, &pos, &cp);
        int k = hxi_unicode_fold(cp, f);
        for (int i = 0; i < k; i++) {
            char enc[4];
            int b = hxi_utf8_put(f[i], enc);
            if (len + (size_t)b > HX_ANALYZER_MAX_TERM)
                return len;
            if (f[i] >= 0x80 && (hxi_unicode_class(f[i]) & HX_UC_LETTER) && hxi_unicode_script(f[i]) != HX_US_LATIN)
                *latin = 0;
            memcpy(out + len, enc, (size_t)b);
            len += (size_t)b;
        }
    }
    return len;
}

/* Appends the analysed term of the leaf just emitted (the last term): its ICU folding, stemmed
 * when all its letters are Latin; none for a stop word or a leaf that folds to nothing. */
static int emit_stem(hxi_analysis *a)
{
    hxi_term leaf = a->terms[a->n_terms - 1];
    const char *w = a->buf + leaf.text_off;
    char folded[HX_ANALYZER_MAX_TERM];
    int latin = 1;
    size_t fn = leaf.text_len;
    if (a->config == HX_ANALYZER_ENGLISH_ASCII)   /* before Unicode words: no folding, all stemmed */
        memcpy(folded, w, fn);
    else
        fn = fold_term(w, leaf.text_len, folded, &latin);
    if (fn == 0 || hxi_analyzer_is_stop(folded, fn))
        return 0;
    char tmp[1 + HX_ANALYZER_MAX_TERM];
    tmp[0] = HX_STEM_MARK;
    size_t n = fn;
    unsigned char first = (unsigned char)folded[0];
    if (latin && (!a->stem_first || (a->stem_first[first / 8] >> (first % 8) & 1)))
        n = hxi_stem_english(folded, fn, tmp + 1);
    else
        memcpy(tmp + 1, folded, fn);
    while (1 + n > HX_ANALYZER_MAX_TERM) {  /* mark + term within the cap: drop a code point */
        n--;
        while (n && ((unsigned char)tmp[1 + n] & 0xC0) == 0x80)
            n--;
    }
    if (hx_grow((void **)&a->terms, &a->cap_terms, a->n_terms + 1, sizeof *a->terms, NULL) ||
        hx_grow((void **)&a->buf, &a->buf_cap, a->buf_len + n + 1, 1, NULL))
        return HX_ENOMEM;
    memcpy(a->buf + a->buf_len, tmp, n + 1);
    hxi_term *t = &a->terms[a->n_terms++];
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
static int emit_compound(hxi_analysis *a, const cpinfo *cps, size_t n, int stem)
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

/* Emits a CJK or Southeast Asian run cps[0..n) as its overlapping character bigrams. CJK (sea 0):
 * one position each, a lone character as itself (Lucene's CJKBigramFilter); Southeast Asian (sea
 * 1): all at one position, a lone character not at all (NGramTokenFilter, 2..2). `carried`:
 * cps[0] ended the previous piece of a run cut at HX_ANALYZER_MAX_COMPOUND, so it is no unigram. */
static int emit_bigrams(hxi_analysis *a, const cpinfo *cps, size_t n, int stem, int sea, int carried)
{
    if (n == 1 && (carried || sea))
        return 0;
    uint32_t pos = a->n_positions;
    for (size_t i = 0; i + (n > 1) < n; i++) {
        size_t before = a->n_terms;
        int rc = emit(a, cps, i, i + 1 + (n > 1), sea ? pos : a->n_positions++, HX_TERM_LEAF);
        if (!rc && stem && a->n_terms > before)
            rc = emit_stem(a);
        if (rc)
            return rc;
    }
    if (sea)
        a->n_positions = pos + 1;
    return 0;
}

/* State of one analysis: the compound being assembled in a->scratch. */
typedef struct run_state {
    const char *text;
    size_t n;             /* code points in a->scratch */
    int type;             /* RUN_* */
    int english;
    int scripts;          /* CJK and Southeast Asian runs (all configurations but ENGLISH_ASCII) */
    int carried;          /* scratch[0] was carried over a cut (CJK and SEA runs) */
    size_t pending_join;  /* 1 + index of a joiner waiting for a word character, else 0 */
    size_t prev_end;      /* end of the last compound (0: none yet) */
} run_state;

/* Emits the compound in a->scratch (a pending joiner dropped) and starts an empty one; the s of
 * a possessive gets no analysed term. */
static int flush(hxi_analysis *a, run_state *r)
{
    if (r->pending_join)
        r->n--;
    size_t n = r->n;
    const cpinfo *cps = a->scratch;
    int rc = 0;
    if (n) {
        if (r->type == RUN_CJK || r->type == RUN_SEA)
            rc = emit_bigrams(a, cps, n, r->english, r->type == RUN_SEA, r->carried);
        else
            rc = emit_compound(a, cps, n, r->english && !possessive_s(r->text, cps, n, r->prev_end));
        r->prev_end = cps[n - 1].end;
    }
    r->n = 0;
    r->type = RUN_NONE;
    r->carried = 0;
    r->pending_join = 0;
    return rc;
}

/* Appends one code point to the compound. */
static int push(hxi_analysis *a, run_state *r, uint32_t lower, size_t start, size_t end, int kind)
{
    if (hx_grow(&a->scratch, &a->scratch_cap, r->n + 1, sizeof(cpinfo), NULL))
        return HX_ENOMEM;
    cpinfo *c = (cpinfo *)a->scratch + r->n++;
    c->lower = lower;
    c->start = (uint32_t)start;
    c->end = (uint32_t)end;
    c->kind = (uint8_t)kind;
    r->pending_join = kind == CK_JOIN ? r->n : 0;
    return 0;
}

/* Makes the compound of type `type` ready for a word character of that type: a compound of
 * another type is emitted first, except that Hangul letters ending a CJK run join a word that
 * follows them (UAX #29 keeps 15일에 and 한국Korea whole). */
static int switch_run(hxi_analysis *a, run_state *r, int type)
{
    if (r->type == type || r->type == RUN_NONE) {
        r->type = type;
        return 0;
    }
    size_t keep = 0;
    cpinfo *cps = a->scratch;
    if (r->type == RUN_CJK && type == RUN_WORD)
        while (keep < r->n && cps[r->n - 1 - keep].kind == CK_ALPHA)
            keep++;
    size_t from = r->n - keep;
    r->n = from;
    int rc = flush(a, r);   /* leaves the scratch contents in place */
    memmove(cps, cps + from, keep * sizeof *cps);
    r->n = keep;
    r->type = type;
    return rc;
}

/* The run type a word character of kind `kind` starts or continues (marks: the current one). */
static int run_type(uint32_t cp, int kind, int current, int scripts)
{
    if (!scripts)
        return RUN_WORD;
    unsigned sc = cp < 0x80 ? HX_US_LATIN : hxi_unicode_script(cp);
    if (sc == HX_US_SEA)
        return RUN_SEA;
    if (sc == HX_US_CJK)
        return RUN_CJK;
    if (kind == CK_MARK)
        return current;
    if (kind == CK_ALPHA)   /* Hangul: a word's letter after one, else a CJK run */
        return current == RUN_WORD ? RUN_WORD : RUN_CJK;
    return RUN_WORD;
}

int hxi_analyzer_run(hxi_analysis *a, const char *text, size_t len, hx_error *err)
{
    a->n_terms = 0;
    a->buf_len = 0;
    a->n_positions = 0;
    a->doc_len = 0;
    run_state r = {.text = text, .english = a->config != HX_ANALYZER_EXACT,
                   .scripts = a->config != HX_ANALYZER_ENGLISH_ASCII};
    if (len >= UINT32_MAX)
        return hx_error_set(err, HX_ERANGE, -1, "analyzer: text of %zu bytes is over 4 GiB", len);
    size_t pos = 0;
    int rc = 0;
    while (pos < len && !rc) {
        if (r.n == HX_ANALYZER_MAX_COMPOUND) {   /* cut here, so any run costs bounded memory */
            int type = r.type;
            cpinfo last = ((cpinfo *)a->scratch)[r.n - 1];
            if ((rc = flush(a, &r)))
                break;
            if (type == RUN_CJK || type == RUN_SEA) {   /* the next piece starts where this one ended */
                *(cpinfo *)a->scratch = last;
                r.n = 1;
                r.type = type;
                r.carried = 1;
            }
        }
        size_t start = pos;
        uint32_t cp, lower;
        hxi_utf8_next(text, len, &pos, &cp);
        int kind = word_kind(cp, &lower, r.scripts);
        int prev_word = r.n && !r.pending_join;
        if (kind == CK_MARK && !prev_word && (!r.scripts || cp < 0x80 || hxi_unicode_script(cp) != HX_US_SEA))
            kind = 0;  /* a mark with nothing to attach to separates words */
        if (kind) {
            int type = run_type(cp, kind, r.type, r.scripts);
            if (r.pending_join && type != RUN_WORD && (rc = flush(a, &r)))
                break;
            if (!(rc = switch_run(a, &r, type)))
                rc = push(a, &r, lower, start, pos, kind);
            continue;
        }
        if (prev_word && r.type == RUN_WORD && is_joiner(cp)) {
            /* Tentatively part of the compound; dropped by flush unless a word character follows. */
            rc = push(a, &r, cp, start, pos, CK_JOIN);
            continue;
        }
        rc = flush(a, &r);
    }
    if (!rc)
        rc = flush(a, &r);
    if (rc)
        return hx_error_set(err, HX_ENOMEM, -1, "analyzer: out of memory");
    if (!r.english)
        a->doc_len = a->n_positions;
    return 0;
}

void hxi_analyzer_free(hxi_analysis *a)
{
    free(a->terms);
    free(a->buf);
    free(a->scratch);
    memset(a, 0, sizeof *a);
}
