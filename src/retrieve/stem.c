/* stem.c: the Snowball English (Porter2) stemmer. Owns the algorithm only; reads and writes the
 * caller's buffers and nothing else. Spec: snowballstem.org/algorithms/english/stemmer.html
 * (english.sbl, Snowball 3.1); the step names and the suffix tables below follow english.sbl so
 * the two can be read side by side. Words are handled as code points, as the reference does. */
#include "stem.h"
#include "unicode.h"

#include <string.h>

/* The word being stemmed: code points, its length, and the regions R1 = [p1, n), R2 = [p2, n). */
typedef struct word {
    uint32_t c[HX_STEM_MAX];
    size_t n, p1, p2;
} word;

/* One entry of a suffix table: the suffix, its length, and what to do when it is the longest match.
 * Tables are written with A(), which counts the length once, at compile time. */
typedef struct among {
    const char *s;
    size_t len;
    int code;
} among;
#define A(s, code) {s, sizeof s - 1, code}

/* Vowels are a e i o u y; 'Y' (a y that is a consonant, set by the prelude) is not. */
static int is_v(uint32_t c)
{
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

/* The v_WXY grouping of short syllables: vowels plus w, x and Y. */
static int is_v_wxy(uint32_t c)
{
    return is_v(c) || c == 'w' || c == 'x' || c == 'Y';
}

/* Does w[0..end) end with the ASCII string s[0..k)? Compared from its last letter, which most
 * entries of a table already fail on. */
static int ends_with(const word *w, size_t end, const char *s, size_t k)
{
    if (k > end)
        return 0;
    for (size_t i = k; i-- > 0;)
        if (w->c[end - k + i] != (uint32_t)(unsigned char)s[i])
            return 0;
    return 1;
}

static int ends_at(const word *w, size_t end, const char *s)
{
    return ends_with(w, end, s, strlen(s));
}

/* The longest entry of t (count m) that w[0..end) ends with: its index, or -1. */
static int find_among_b(const word *w, size_t end, const among *t, size_t m)
{
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < m; i++) {
        if ((best < 0 || t[i].len > best_len) && ends_with(w, end, t[i].s, t[i].len)) {
            best = (int)i;
            best_len = t[i].len;
        }
    }
    return best;
}

/* Replaces w[from..n) by the ASCII string s (never longer than what it replaces, but for the
 * one-letter insertions of Step 1b, which follow a deletion of two letters or more). */
static void replace_tail(word *w, size_t from, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i < k; i++)
        w->c[from + i] = (uint32_t)(unsigned char)s[i];
    w->n = from + k;
}

static int has_vowel(const word *w, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (is_v(w->c[i]))
            return 1;
    return 0;
}

/* shortv: w[0..end) ends in a short syllable. */
static int shortv(const word *w, size_t end)
{
    const uint32_t *c = w->c;
    if (end >= 3 && !is_v_wxy(c[end - 1]) && is_v(c[end - 2]) && !is_v(c[end - 3]))
        return 1;
    if (end == 2 && !is_v(c[1]) && is_v(c[0]))
        return 1;
    return ends_at(w, end, "past");
}

/* === Prelude and regions === */

/* Drops a leading apostrophe and marks consonant y's as 'Y'; returns whether any was marked. */
static int prelude(word *w)
{
    if (w->n && w->c[0] == '\'') {
        memmove(w->c, w->c + 1, (w->n - 1) * sizeof w->c[0]);
        w->n--;
    }
    int y_found = 0;
    if (w->n && w->c[0] == 'y') {
        w->c[0] = 'Y';
        y_found = 1;
    }
    for (size_t i = 1; i < w->n; i++) {
        if (w->c[i] == 'y' && is_v(w->c[i - 1])) {
            w->c[i] = 'Y';
            y_found = 1;
        }
    }
    return y_found;
}

/* After the first non-vowel that follows a vowel, starting at from; n when there is none. */
static size_t region_after(const word *w, size_t from)
{
    size_t i = from;
    while (i < w->n && !is_v(w->c[i]))
        i++;
    if (i >= w->n)
        return w->n;
    i++;
    while (i < w->n && is_v(w->c[i]))
        i++;
    if (i >= w->n)
        return w->n;
    return i + 1;
}

static void mark_regions(word *w)
{
    static const char *const prefixes[] = {"arsen", "commun", "emerg", "gener", "inter",
                                           "later", "organ", "past", "univers"};
    w->p1 = w->p2 = w->n;
    size_t p1 = 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        if (!w->n || w->c[0] != (uint32_t)(unsigned char)prefixes[i][0])
            continue;
        size_t k = strlen(prefixes[i]);
        size_t j = 0;
        while (j < k && j < w->n && w->c[j] == (uint32_t)(unsigned char)prefixes[i][j])
            j++;
        if (j == k)
            p1 = k;
    }
    if (!p1) {
        p1 = region_after(w, 0);
        if (p1 >= w->n)
            return;
    }
    w->p1 = p1;
    w->p2 = region_after(w, p1);
}

/* === Steps === */

static void step_1a(word *w)
{
    static const among apos[] = {A("'", 1), A("'s'", 1), A("'s", 1)};
    int a = find_among_b(w, w->n, apos, 3);
    if (a >= 0)
        w->n -= apos[a].len;
    static const among t[] = {A("ied", 2), A("s", 3), A("ies", 2), A("sses", 1), A("ss", 0), A("us", 0)};
    int i = find_among_b(w, w->n, t, sizeof t / sizeof t[0]);
    if (i < 0)
        return;
    size_t s = w->n - t[i].len;
    switch (t[i].code) {
    case 1:
        replace_tail(w, s, "ss");
        break;
    case 2:
        replace_tail(w, s, s >= 2 ? "i" : "ie");
        break;
    case 3:
        /* Delete the s if a vowel comes before the letter that precedes it. */
        if (s >= 1 && has_vowel(w, 0, s - 1))
            w->n = s;
        break;
    }
}

/* Step 1b's ending for the general case: after -ed, -edly, -ing, -ingly are deleted. */
static void step_1b_tidy(word *w)
{
    static const among t[] = {A("bb", 2), A("dd", 2), A("ff", 2), A("gg", 2), A("bl", 1), A("mm", 2),
                              A("nn", 2), A("pp", 2), A("rr", 2), A("at", 1), A("tt", 2), A("iz", 1)};
    int i = find_among_b(w, w->n, t, sizeof t / sizeof t[0]);
    int code = i < 0 ? 3 : t[i].code;
    if (code == 1) {
        w->c[w->n++] = 'e';
    } else if (code == 2) {
        uint32_t first = w->c[0];
        if (!(w->n == 3 && (first == 'a' || first == 'e' || first == 'o')))
            w->n--;
    } else if (w->n == w->p1 && shortv(w, w->n)) {
        w->c[w->n++] = 'e';
    }
}

static void step_1b(word *w)
{
    static const among t[] = {A("ed", 2), A("eed", 1), A("ing", 3), A("edly", 2), A("eedly", 1),
                              A("ingly", 2)};
    int i = find_among_b(w, w->n, t, sizeof t / sizeof t[0]);
    if (i < 0)
        return;
    size_t s = w->n - t[i].len;
    if (t[i].code == 1) {
        static const among pre[] = {A("succ", 1), A("proc", 1), A("exc", 1)};
        if (s >= w->p1) {
            int p = find_among_b(w, s, pre, 3);
            if (!(p >= 0 && pre[p].len == s))
                replace_tail(w, s, "ee");
        }
        return;
    }
    if (t[i].code == 3) {
        static const among pre[] = {A("even", 2), A("cann", 2), A("inn", 2), A("earr", 2),
                                    A("herr", 2), A("out", 2),  A("y", 1)};
        int p = find_among_b(w, s, pre, sizeof pre / sizeof pre[0]);
        if (p >= 0 && pre[p].code == 1 && s == 2 && !is_v(w->c[0])) {
            replace_tail(w, s - 1, "ie");  /* dying -> die */
            return;
        }
        if (p >= 0 && pre[p].code == 2 && pre[p].len == s)
            return;  /* inning, outing, ... stay */
    }
    if (!has_vowel(w, 0, s))
        return;
    w->n = s;
    step_1b_tidy(w);
}

static void step_1c(word *w)
{
    size_t n = w->n;
    if (n >= 3 && (w->c[n - 1] == 'y' || w->c[n - 1] == 'Y') && !is_v(w->c[n - 2]))
        w->c[n - 1] = 'i';
}

static void step_2(word *w)
{
    static const among t[] = {
        A("anci", 3),     A("enci", 2),   A("ogi", 14),     A("li", 16),      A("bli", 12),
        A("abli", 4),     A("alli", 8),   A("fulli", 9),    A("lessli", 15),  A("ousli", 10),
        A("entli", 5),    A("aliti", 8),  A("biliti", 12),  A("iviti", 11),   A("tional", 1),
        A("ational", 7),  A("alism", 8),  A("ation", 7),    A("ization", 6),  A("izer", 6),
        A("ator", 7),     A("iveness", 11), A("fulness", 9), A("ousness", 10), A("ogist", 13)};
    static const char *const to[] = {NULL,  "tion", "ence", "ance", "able", "ent", "ize", "ate",
                                     "al",  "ful",  "ous",  "ive",  "ble",  "og",  "og",  "less"};
    int i = find_among_b(w, w->n, t, sizeof t / sizeof t[0]);
    if (i < 0)
        return;
    size_t s = w->n - t[i].len;
    if (s < w->p1)
        return;
    int code = t[i].code;
    if (code == 14 && !(s >= 1 && w->c[s - 1] == 'l'))
        return;
    if (code == 16) {
        static const char valid_li[] = "cdeghkmnrt";
        if (s >= 1 && w->c[s - 1] < 128 && w->c[s - 1] && strchr(valid_li, (int)w->c[s - 1]))
            w->n = s;
        return;
    }
    replace_tail(w, s, to[code]);
}

static void step_3(word *w)
{
    static const among t[] = {A("icate", 4), A("ative", 6), A("alize", 3),   A("iciti", 4), A("ical", 4),
                              A("tional", 1), A("ational", 2), A("ful", 5), A("ness", 5)};
    static const char *const to[] = {NULL, "tion", "ate", "al", "ic", "", ""};
    int i = find_among_b(w, w->n, t, sizeof t / sizeof t[0]);
    if (i < 0)
        return;
    size_t s = w->n - t[i].len;
    if (s < w->p1 || (t[i].code == 6 && s < w->p2))
        return;
    replace_tail(w, s, to[t[i].code]);
}

static void step_4(word *w)
{
    static const among t[] = {A("ic", 1),  A("ance", 1), A("ence", 1), A("able", 1), A("ible", 1),
                              A("ate", 1), A("ive", 1),  A("ize", 1),  A("iti", 1),  A("al", 1),
                              A("ism", 1), A("ion", 2),  A("er", 1),   A("ous", 1),  A("ant", 1),
                              A("ent", 1), A("ment", 1), A("ement", 1)};
    int i = find_among_b(w, w->n, t, sizeof t / sizeof t[0]);
    if (i < 0)
        return;
    size_t s = w->n - t[i].len;
    if (s < w->p2)
        return;
    if (t[i].code == 2 && !(s >= 1 && (w->c[s - 1] == 's' || w->c[s - 1] == 't')))
        return;
    w->n = s;
}

static void step_5(word *w)
{
    if (!w->n)
        return;
    size_t s = w->n - 1;
    uint32_t last = w->c[s];
    if (last == 'e') {
        if (s >= w->p2 || (s >= w->p1 && !shortv(w, s)))
            w->n = s;
    } else if (last == 'l') {
        if (s >= w->p2 && s >= 1 && w->c[s - 1] == 'l')
            w->n = s;
    }
}

/* === Entry === */

/* Whole words with a fixed stem (exception1 of english.sbl); NULL stem means "unchanged". */
static const char *exception1(const word *w)
{
    static const struct { const char *word, *stem; } t[] = {
        {"andes", NULL},  {"atlas", NULL},   {"bias", NULL},   {"cosmos", NULL}, {"early", "earli"},
        {"gently", "gentl"}, {"howe", NULL}, {"idly", "idl"},  {"news", NULL},   {"only", "onli"},
        {"singly", "singl"}, {"skies", "sky"}, {"skis", "ski"}, {"sky", NULL},   {"ugly", "ugli"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (w->n >= 3 && w->n <= 6 && w->c[0] == (uint32_t)(unsigned char)t[i].word[0] && strlen(t[i].word) == w->n &&
            ends_at(w, w->n, t[i].word))
            return t[i].stem ? t[i].stem : t[i].word;
    return NULL;
}

size_t hxi_stem_english(const char *in, size_t len, char *out)
{
    word w;
    size_t pos = 0;
    w.n = 0;
    if (len > HX_STEM_MAX)
        goto unchanged;
    while (pos < len) {
        uint32_t cp = (unsigned char)in[pos];
        if (cp < 0x80)
            pos++;
        else if (!hxi_utf8_next(in, len, &pos, &cp))
            goto unchanged;  /* not UTF-8: the stem would not round-trip */
        w.c[w.n++] = cp;
    }
    const char *fixed = exception1(&w);
    if (fixed) {
        size_t k = strlen(fixed);
        memmove(out, fixed, k);
        return k;
    }
    if (w.n < 3)
        goto unchanged;
    int y_found = prelude(&w);
    mark_regions(&w);
    step_1a(&w);
    step_1b(&w);
    step_1c(&w);
    step_2(&w);
    step_3(&w);
    step_4(&w);
    step_5(&w);
    size_t k = 0;
    for (size_t i = 0; i < w.n; i++) {
        uint32_t c = w.c[i];
        if (y_found && c == 'Y')
            c = 'y';
        if (c < 0x80) {
            out[k++] = (char)c;
            continue;
        }
        char enc[4];
        int m = hxi_utf8_put(c, enc);
        memcpy(out + k, enc, (size_t)m);
        k += (size_t)m;
    }
    return k;
unchanged:
    memmove(out, in, len);
    return len;
}
