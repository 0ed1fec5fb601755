/* test_words.c: the analyzer's words in every script against Lucene (tests/golden/analyzer_words.txt,
 * made by tools/lucene_golden/LuceneGolden.java: UAX #29 words, CJK bigrams, Southeast Asian
 * n-grams, ICU folding, Latin-only stemming, identifiers as WordDelimiterGraphFilter splits them),
 * and keyword search over notes in other languages. Touches only a temporary folder and index. */
#include "analyzer.h"
#include "check.h"
#include "hyrax.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

/* Undoes the fixture's escapes (\\ \t \n) in place. */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
}

/* Appends "term" or "term@pos" to out (cap bytes), a space before all but the first. */
static void put_term(char *out, size_t cap, const char *t, size_t n, long pos)
{
    size_t used = strlen(out);
    if (pos >= 0)
        snprintf(out + used, cap - used, "%s%.*s@%ld", used ? " " : "", (int)n, t, pos);
    else
        snprintf(out + used, cap - used, "%s%.*s", used ? " " : "", (int)n, t);
}

/* A text record: the leaves with positions must be Lucene's exact chain, the analysed terms
 * (without their mark) its analysed chain. */
static void check_text(hxi_analysis *a, const char *text, const char *exact, const char *analysed)
{
    static char got_exact[1 << 14], got_analysed[1 << 14];
    CHECK(hxi_analyzer_run(a, text, strlen(text), NULL) == 0, "analyze '%s'", text);
    got_exact[0] = got_analysed[0] = 0;
    for (size_t i = 0; i < a->n_terms; i++) {
        const hxi_term *t = &a->terms[i];
        if (t->kind == HX_TERM_LEAF)
            put_term(got_exact, sizeof got_exact, hxi_analyzer_term(a, i), t->text_len, t->pos);
        else if (t->kind == HX_TERM_STEM)
            put_term(got_analysed, sizeof got_analysed, hxi_analyzer_term(a, i) + 1, t->text_len - 1, -1);
    }
    CHECK(!strcmp(got_exact, exact), "exact field of '%s':\n   got  %s\n   want %s", text, got_exact, exact);
    CHECK(!strcmp(got_analysed, analysed), "analysed field of '%s':\n   got  %s\n   want %s", text, got_analysed,
          analysed);
}

/* Splits "t@p t@p ..." into terms (in place); returns how many (at most max). */
static size_t split_terms(char *s, char **terms, size_t max)
{
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, " ", &save); tok && n < max; tok = strtok_r(NULL, " ", &save)) {
        char *at = strrchr(tok, '@');
        if (at)
            *at = 0;
        terms[n++] = tok;
    }
    return n;
}

/* An identifier record. Lucene's WordDelimiterGraphFilter (preserve-original) gives the
 * identifier, then its parts; hyrax must give the same whole and leaves (its segments, which
 * Lucene has no counterpart for, are left out), except where hyrax splits finer: an uppercase run
 * before a capitalised word (HTTP|Server) and a digit before an uppercase letter (IPv6|Address)
 * start a leaf in hyrax and not in Lucene. There the leaves must refine Lucene's parts: the same
 * characters, every Lucene boundary kept. Returns 1 when hyrax refined the parts. */
static int check_ident(hxi_analysis *a, const char *ident, const char *parts)
{
    char want[1024], *lw[64], *hl[64];
    snprintf(want, sizeof want, "%s", parts);
    size_t nl = split_terms(want, lw, 64);
    CHECK(hxi_analyzer_run(a, ident, strlen(ident), NULL) == 0, "analyze '%s'", ident);
    char leaves[64][HX_ANALYZER_MAX_TERM + 1], whole[HX_ANALYZER_MAX_TERM + 1] = "";
    size_t nh = 0;
    for (size_t i = 0; i < a->n_terms && nh < 64; i++) {
        const hxi_term *t = &a->terms[i];
        if (t->kind == HX_TERM_WHOLE)
            snprintf(whole, sizeof whole, "%.*s", (int)t->text_len, hxi_analyzer_term(a, i));
        else if (t->kind == HX_TERM_LEAF)
            snprintf(leaves[nh++], sizeof leaves[0], "%.*s", (int)t->text_len, hxi_analyzer_term(a, i));
    }
    for (size_t i = 0; i < nh; i++)
        hl[i] = leaves[i];
    /* Lucene: one token when nothing splits, else the original and then the parts. */
    const char *lwhole = nl == 1 ? lw[0] : nl ? lw[0] : "";
    char **lparts = nl == 1 ? lw : lw + 1;
    size_t nlp = nl == 1 ? 1 : nl ? nl - 1 : 0;
    const char *hwhole = nh == 1 ? hl[0] : whole;
    CHECK(!strcmp(hwhole, lwhole), "identifier %s: whole '%s', Lucene '%s'", ident, hwhole, lwhole);
    if (nh == nlp) {
        for (size_t i = 0; i < nh; i++)
            CHECK(!strcmp(hl[i], lparts[i]), "identifier %s: part %zu '%s', Lucene '%s'", ident, i, hl[i], lparts[i]);
        return 0;
    }
    /* refinement: walk Lucene's parts, consuming whole hyrax leaves for each */
    size_t j = 0;
    for (size_t i = 0; i < nlp; i++) {
        char joined[256] = "";
        while (j < nh && strlen(joined) < strlen(lparts[i]))
            strncat(joined, hl[j++], sizeof joined - strlen(joined) - 1);
        CHECK(!strcmp(joined, lparts[i]), "identifier %s: leaves do not refine Lucene's part '%s' (got '%s')", ident,
              lparts[i], joined);
    }
    CHECK(j == nh && nh > nlp, "identifier %s: %zu leaves for Lucene's %zu parts", ident, nh, nlp);
    return 1;
}

static void test_golden(void)
{
    size_t len;
    char *text = check_read_file("tests/golden/analyzer_words.txt", &len);
    CHECK(text != NULL, "cannot read tests/golden/analyzer_words.txt");
    if (!text)
        return;
    hxi_analysis an = {0}, ex = {0};
    an.config = HX_ANALYZER_ENGLISH;
    size_t n_text = 0, n_ident = 0, n_refined = 0;
    char *input = NULL, *exact = NULL, *next;
    for (char *line = text; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab)
            continue;
        *tab = 0;
        char *val = tab + 1;
        unescape(val);
        if (!strcmp(line, "text") || !strcmp(line, "ident")) {
            input = val;
        } else if (!strcmp(line, "exact")) {
            exact = val;
        } else if (!strcmp(line, "analysed") && input && exact) {
            check_text(&an, input, exact, val);
            n_text++;
            input = exact = NULL;
        } else if (!strcmp(line, "parts") && input) {
            n_refined += (size_t)check_ident(&ex, input, val);
            n_ident++;
            input = NULL;
        }
    }
    CHECK(n_text >= 25 && n_ident >= 20, "golden records: %zu texts, %zu identifiers", n_text, n_ident);
    CHECK(n_refined > 0 && n_refined < n_ident / 2, "hyrax refines %zu of %zu identifiers", n_refined, n_ident);
    hxi_analyzer_free(&an);
    hxi_analyzer_free(&ex);
    free(text);
}

/* Top result's path for a keyword query ("" when none). */
static const char *top(hx_index *ix, hx_encoder *enc, const char *q, hx_results *r)
{
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = HX_MODE_KEYWORD;
    o.k = 5;
    hx_error err = {0};
    hx_results_free(r);
    CHECK(hx_index_search(ix, enc, q, strlen(q), &o, r, &err) == 0, "search '%s': %s", q, err.message);
    return r->n ? r->v[0].path : "";
}

/* Keyword search over notes in Chinese, French and German, and an identifier against its parts. */
static void test_search(void)
{
    char tmpl[] = "/tmp/hxi_words_XXXXXX", root[PATH_MAX], db[PATH_MAX + 16];
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    check_put(root, "zh/quantum.md", "# 量子计算\n\n量子比特是量子信息的基本单位。量子计算机使用量子比特进行计算。\n");
    check_put(root, "zh/tokyo.md", "# 东京\n\n东京是日本的首都，人口约1400万。比特币不是货币。\n");
    check_put(root, "zh/mechanics.md", "# 量子力学\n\n量子力学是物理学的分支。\n");
    check_put(root, "fr/tarte.md", "# Tarte aux pommes\n\nPréchauffez le four à 180 °C. Épluchez les pommes et "
                                   "coupez-les en quartiers.\n");
    check_put(root, "de/bruecke.md", "# Brückenbau\n\nGrößere Straßenbrücken führen über den Fluss; die "
                                     "Übergrößen kosten mehr.\n");
    check_put(root, "en/fib.md", "# Sequences\n\nTo compute the Fibonacci numbers, compute each number from the two "
                                 "before it; Fibonacci numbers compute quickly.\n");
    check_put(root, "en/code.md", "# Functions\n\nThe function computeFibonacci(n) returns the n-th number of the "
                                  "sequence and is slow for large n.\n");
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *ix = NULL;
    hx_error err = {0};
    if (hx_model_open(&model, WEIGHTS, &err) || hx_encoder_new(&enc, model, 1, &err) ||
        hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err)) {
        CHECK(0, "open: %s", err.message);
    } else {
        const char *paths[] = {root};
        hx_update_opts o = {0};
        o.encoder = enc;
        hx_update_report rep;
        CHECK(hx_index_update(ix, paths, 1, &o, &rep, &err) == 0 && rep.added == 7, "index: %s", err.message);
        hx_update_report_clear(&rep);
        static const struct {
            const char *q, *want;
        } cases[] = {
            {"量子比特", "zh/quantum.md"},          /* bigrams inside a run with no spaces */
            {"首都", "zh/tokyo.md"},
            {"prechauffez", "fr/tarte.md"},        /* accents folded */
            {"Préchauffez", "fr/tarte.md"},
            {"epluchez pommes", "fr/tarte.md"},
            {"Übergrößen", "de/bruecke.md"},
            {"strassenbrucken", "de/bruecke.md"},  /* ß -> ss, ü -> u */
            {"computeFibonacci", "en/code.md"},    /* the identifier itself above its parts */
            {"compute Fibonacci numbers", "en/fib.md"},
        };
        hx_results r = {0};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            CHECK(!strcmp(top(ix, enc, cases[i].q, &r), cases[i].want), "keyword '%s': top %s, want %s", cases[i].q,
                  r.n ? r.v[0].path : "-", cases[i].want);
        /* +word and -word act on a CJK word's bigrams in order, not on its first bigram (量子) */
        CHECK(!strcmp(top(ix, enc, "+量子比特", &r), "zh/quantum.md") && r.n == 1, "+量子比特: %zu results", r.n);
        CHECK(!strcmp(top(ix, enc, "量子 -量子比特", &r), "zh/mechanics.md") && r.n == 1, "-量子比特: %zu results", r.n);
        top(ix, enc, "量子比特", &r);
        CHECK(r.n == 3 && !strcmp(r.v[0].path, "zh/quantum.md") && r.v[1].score < r.v[0].score,
              "notes sharing one bigram (比特, 量子) rank below: %zu results", r.n);
        hx_results_free(&r);
    }
    hx_index_close(ix);
    hx_encoder_free(enc);
    hx_model_close(model);
    char cmd[3 * PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, db);
    CHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    test_golden();
    test_search();
    return check_report("test_words");
}
