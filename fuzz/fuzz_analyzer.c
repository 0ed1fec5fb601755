/* fuzz_analyzer.c: arbitrary bytes into the BM25 analyzer (src/retrieve/analyzer.h) in both
 * configurations. Checks what holds for any input and traps on a violation: term bytes are
 * 1..HX_ANALYZER_MAX_TERM bytes of valid UTF-8, byte ranges lie inside the input and in order,
 * positions are below n_positions and never go back, analysed terms carry the mark and follow
 * their leaf, the exact configuration gives the same leaves as the English one, and the document
 * lengths agree with the terms. Corpus: fuzz/corpus/analyzer/. */
#include "analyzer.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)              \
    do {                        \
        if (!(c))               \
            __builtin_trap();   \
    } while (0)

static int valid_utf8(const char *s, size_t n)
{
    size_t pos = 0;
    while (pos < n) {
        uint32_t cp;
        if (!hxi_utf8_next(s, n, &pos, &cp))
            return 0;
    }
    return 1;
}

static void check(const hxi_analysis *a, size_t len)
{
    uint32_t last_leaf_pos = 0;
    size_t n_stem = 0;
    for (size_t i = 0; i < a->n_terms; i++) {
        const hxi_term *t = &a->terms[i];
        const char *s = hxi_analyzer_term(a, i);
        REQUIRE(t->text_len >= 1 && t->text_len <= HX_ANALYZER_MAX_TERM);
        REQUIRE((size_t)t->text_off + t->text_len <= a->buf_len);
        REQUIRE(valid_utf8(s, t->text_len));
        REQUIRE(t->start < t->end && t->end <= len);
        REQUIRE(t->pos < a->n_positions);
        if (t->kind == HX_TERM_STEM) {
            REQUIRE(s[0] == HX_STEM_MARK && i > 0 && a->terms[i - 1].kind == HX_TERM_LEAF);
            REQUIRE(a->terms[i - 1].pos == t->pos);
            n_stem++;
        } else {
            REQUIRE(memchr(s, HX_STEM_MARK, t->text_len) == NULL);
        }
        if (t->kind == HX_TERM_LEAF) {
            REQUIRE(t->pos >= last_leaf_pos);
            last_leaf_pos = t->pos;
        }
    }
    if (a->config == HX_ANALYZER_ENGLISH)
        REQUIRE(a->doc_len == n_stem);
    else
        REQUIRE(a->doc_len == a->n_positions && n_stem == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hxi_analysis en, ex;
    en.config = HX_ANALYZER_ENGLISH;
    const char *text = (const char *)data;
    REQUIRE(hxi_analyzer_run(&en, text, size, NULL) == 0);
    check(&en, size);
    REQUIRE(hxi_analyzer_run(&ex, text, size, NULL) == 0);
    check(&ex, size);
    REQUIRE(ex.n_positions == en.n_positions);
    size_t j = 0;
    for (size_t i = 0; i < en.n_terms; i++) {
        if (en.terms[i].kind == HX_TERM_STEM)
            continue;
        REQUIRE(j < ex.n_terms && ex.terms[j].pos == en.terms[i].pos && ex.terms[j].kind == en.terms[i].kind &&
                ex.terms[j].text_len == en.terms[i].text_len &&
                !memcmp(hxi_analyzer_term(&ex, j), hxi_analyzer_term(&en, i), en.terms[i].text_len));
        j++;
    }
    REQUIRE(j == ex.n_terms);
    return 0;
}
