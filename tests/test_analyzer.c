/* test_analyzer.c: the BM25 analyzer rules of src/analyzer.h (identifiers whole and in parts,
 * positions, offsets, length cap, Unicode lowercasing, invalid UTF-8). Touches nothing else. */
#include "analyzer.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Renders an analysis as "term@pos term@pos ..." into out. */
static void render(const hxi_analysis *a, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < a->n_terms && n + 1 < cap; i++) {
        int w = snprintf(out + n, cap - n, "%s%.*s@%u", i ? " " : "", (int)a->terms[i].text_len,
                         hxi_analyzer_term(a, i), a->terms[i].pos);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

static void expect(hxi_analysis *a, const char *text, const char *want)
{
    char got[2048];
    int rc = hxi_analyzer_run(a, text, strlen(text), NULL);
    CHECK(rc == 0, "analyze '%s' rc=%d", text, rc);
    render(a, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "analyze '%s':\n   got  '%s'\n   want '%s'", text, got, want);
}

/* A one-word 20 MB text (issue 9: a one-word 50 MB file peaked at 1.1 GB while indexing, 16
 * bytes per code point of the word): analyzed in a child whose peak RSS must stay under the text
 * plus a generous 64 MB. Memory, not time, is measured. */
static void test_long_word_memory(void)
{
    enum { LEN = 20 << 20 };
    char *text = malloc(LEN);
    CHECK(text != NULL, "allocate the word");
    if (!text)
        return;
    memset(text, 'a', LEN);
    for (size_t i = 0; i < LEN; i += 4096)
        text[i] = 'A';   /* camelCase breaks: leaves of 4096 letters */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct rusage before, after;
        getrusage(RUSAGE_SELF, &before);
        hxi_analysis a = {0};
        int rc = hxi_analyzer_run(&a, text, LEN, NULL);
        getrusage(RUSAGE_SELF, &after);
        long grew_kb = after.ru_maxrss - before.ru_maxrss;
        int ok = rc == 0 && a.n_terms > 0 && grew_kb < 64 * 1024;
        if (!ok)
            fprintf(stderr, "analyzing a %d-byte word: rc %d, %zu terms, peak RSS grew by %ld kB\n", LEN, rc,
                    a.n_terms, grew_kb);
        hxi_analyzer_free(&a);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a 20 MB word is analyzed in bounded memory (status %d)",
          status);
    free(text);
}

/* English analysis: each leaf followed by its stem (mark ~), none for stop words and possessive
 * s's; the exact terms and positions are those of the exact configuration. */
static void english(void)
{
    hxi_analysis a = {0};
    a.config = HX_ANALYZER_ENGLISH;
    expect(&a, "The Nodes are running", "the@0 nodes@1 ~node@1 are@2 running@3 ~run@3");
    CHECK(a.doc_len == 2 && a.n_positions == 4, "doc_len %u positions %u", a.doc_len, a.n_positions);
    expect(&a, "kube-scheduler", "kube-scheduler@0 kube@0 ~kube@0 scheduler@1 ~schedul@1");
    expect(&a, "restartPolicy", "restartpolicy@0 restart@0 ~restart@0 policy@1 ~polici@1");
    expect(&a, "the user's pods", "the@0 user@1 ~user@1 s@2 pods@3 ~pod@3");
    expect(&a, "the user\xe2\x80\x99s pods", "the@0 user@1 ~user@1 s@2 pods@3 ~pod@3");
    expect(&a, "users' s 's x", "users@0 ~user@0 s@1 ~s@1 s@2 ~s@2 x@3 ~x@3");
    expect(&a, "Information science? Give definitions where possible.",
           "information@0 ~inform@0 science@1 ~scienc@1 give@2 ~give@2 definitions@3 ~definit@3 "
           "where@4 ~where@4 possible@5 ~possibl@5");
    /* Every stop word of Lucene's list, and a word that only looks like one. */
    expect(&a, "a an and are as at be but by for if in into is it no not of on or such that the "
               "their then there these they this to was will with",
           "a@0 an@1 and@2 are@3 as@4 at@5 be@6 but@7 by@8 for@9 if@10 in@11 into@12 is@13 it@14 "
           "no@15 not@16 of@17 on@18 or@19 such@20 that@21 the@22 their@23 then@24 there@25 "
           "these@26 they@27 this@28 to@29 was@30 will@31 with@32");
    CHECK(a.doc_len == 0, "stop words count no length: %u", a.doc_len);
    CHECK(!hxi_analyzer_is_stop("those", 5) && hxi_analyzer_is_stop("with", 4), "stop list");
    /* A 64-byte leaf: its stemmed term is cut to the cap. */
    char longw[80];
    memset(longw, 'q', 64);
    CHECK(hxi_analyzer_run(&a, longw, 64, NULL) == 0, "run long");
    CHECK(a.n_terms == 2 && a.terms[1].text_len == HX_ANALYZER_MAX_TERM, "long stem %u",
          a.n_terms == 2 ? a.terms[1].text_len : 0);
    /* stem_first: only words that start with a byte of the set are stemmed; the others keep their
     * folding, which starts with the same byte as their stem would. */
    uint8_t set[32] = {0};
    set['r' / 8] |= (uint8_t)(1u << ('r' % 8));
    a.stem_first = set;
    expect(&a, "The Nodes are running Pr\xc3\xa9" "chauffez", "the@0 nodes@1 ~nodes@1 are@2 running@3 ~run@3 "
           "pr\xc3\xa9" "chauffez@4 ~prechauffez@4");
    set['p' / 8] |= (uint8_t)(1u << ('p' % 8));
    expect(&a, "Pr\xc3\xa9" "chauffez policies", "pr\xc3\xa9" "chauffez@0 ~prechauffez@0 policies@1 ~polici@1");
    a.stem_first = NULL;
    CHECK(!strcmp(hxi_analyzer_name(HX_ANALYZER_ENGLISH), "unicode") && !strcmp(hxi_analyzer_name(HX_ANALYZER_ENGLISH_ASCII), "english") &&
              !strcmp(hxi_analyzer_name(HX_ANALYZER_EXACT), "exact") && !hxi_analyzer_name(7),
          "names");
    hxi_analyzer_free(&a);
}

/* A CJK run longer than HX_ANALYZER_MAX_COMPOUND keeps its bigrams across the cut: n characters
 * give n - 1 bigrams at consecutive positions, each the pair of characters at its position, and a
 * Southeast Asian run cut there goes on with its pairs too. */
static void long_runs(void)
{
    enum { N = HX_ANALYZER_MAX_COMPOUND * 2 + 37 };
    static char text[N * 3];
    for (size_t i = 0; i < N; i++) {   /* U+4E00 + i % 64: distinct neighbours */
        uint32_t cp = 0x4E00 + (uint32_t)(i % 64);
        text[3 * i] = (char)(0xE0 | cp >> 12);
        text[3 * i + 1] = (char)(0x80 | (cp >> 6 & 0x3F));
        text[3 * i + 2] = (char)(0x80 | (cp & 0x3F));
    }
    hxi_analysis a = {0};
    CHECK(hxi_analyzer_run(&a, text, sizeof text, NULL) == 0, "long CJK run");
    CHECK(a.n_terms == N - 1 && a.n_positions == N - 1, "%zu terms, %u positions for %d characters", a.n_terms,
          a.n_positions, N);
    size_t bad = 0;
    for (size_t i = 0; i < a.n_terms; i++)
        bad += a.terms[i].pos != i || a.terms[i].text_len != 6 ||
               memcmp(hxi_analyzer_term(&a, i), text + 3 * i, 6) || a.terms[i].start != 3 * i;
    CHECK(bad == 0, "%zu bigrams out of place", bad);
    hxi_analyzer_free(&a);
}

int main(void)
{
    test_long_word_memory();
    long_runs();
    /* Scripts (the Lucene goldens of test_words.c cover real text; these are the joins). */
    {
        hxi_analysis s = {0};
        expect(&s, "2024\xeb\x85\x84 3\xec\x9b\x94", "2024\xeb\x85\x84@0 3\xec\x9b\x94@1");   /* 2024년 3월 */
        /* 日本 then 한국Korea: Hangul before a Latin word joins it, the Han before it stays bigrams */
        expect(&s, "\xe6\x97\xa5\xe6\x9c\xac\xed\x95\x9c\xea\xb5\xad" "Korea",
               "\xe6\x97\xa5\xe6\x9c\xac@0 \xed\x95\x9c\xea\xb5\xadkorea@1");
        expect(&s, "\xe9\x87\x8f", "\xe9\x87\x8f@0");   /* a lone ideograph is its own term */
        expect(&s, "\xe0\xb8\x81", "");                     /* a lone Thai letter is none */
        /* Before Unicode words (indexes that say "english"): a CJK run is one word, Hangul letters
         * are lowercase (a camelCase break before Korea), nothing is folded. */
        s.config = HX_ANALYZER_ENGLISH_ASCII;
        expect(&s, "\xe9\x87\x8f\xe5\xad\x90 \xed\x95\x9c\xea\xb5\xad" "Korea \xc3\xa9t\xc3\xa9",
               "\xe9\x87\x8f\xe5\xad\x90@0 ~\xe9\x87\x8f\xe5\xad\x90@0 \xed\x95\x9c\xea\xb5\xadkorea@1 "
               "\xed\x95\x9c\xea\xb5\xad@1 ~\xed\x95\x9c\xea\xb5\xad@1 korea@2 ~korea@2 \xc3\xa9t\xc3\xa9@3 ~\xc3\xa9t\xc3\xa9@3");
        hxi_analyzer_free(&s);
    }
    hxi_analysis a = {0};
    expect(&a, "", "");
    expect(&a, "  ,;! ", "");
    expect(&a, "Hello, World", "hello@0 world@1");
    expect(&a, "sig-api-machinery", "sig-api-machinery@0 sig@0 api@1 machinery@2");
    expect(&a, "the kube-scheduler runs", "the@0 kube-scheduler@1 kube@1 scheduler@2 runs@3");
    expect(&a, "memory.high", "memory.high@0 memory@0 high@1");
    expect(&a, "restartPolicy", "restartpolicy@0 restart@0 policy@1");
    expect(&a, "HTTP2Server", "http2server@0 http2@0 server@1");
    expect(&a, "HTTPServer", "httpserver@0 http@0 server@1");
    expect(&a, "snake_case_name", "snake_case_name@0 snake@0 case@1 name@2");
    expect(&a, "v1.2.3", "v1.2.3@0 v1@0 2@1 3@2");
    expect(&a, "pkg/kubelet/cm", "pkg/kubelet/cm@0 pkg@0 kubelet@1 cm@2");
    expect(&a, "kube-apiServer", "kube-apiserver@0 kube@0 apiserver@1 api@1 server@2");
    expect(&a, "k8s ipv6", "k8s@0 ipv6@1");
    /* Joiners only between word characters, one at a time. */
    expect(&a, "end. Next", "end@0 next@1");
    expect(&a, "a--b", "a@0 b@1");
    expect(&a, "foo::bar", "foo@0 bar@1");
    expect(&a, "-lead trail-", "lead@0 trail@1");
    expect(&a, "http://x.io/p", "http@0 x.io/p@1 x@1 io@2 p@3");
    expect(&a, "a+b=c", "a@0 b@1 c@2");
    /* Unicode: lowercasing, marks attached to letters, invalid bytes separate words. */
    expect(&a, "CAF\xc3\x89 na\xc3\xafve", "caf\xc3\xa9@0 na\xc3\xafve@1");
    expect(&a, "e\xcc\x81t\xc3\xa9", "e\xcc\x81t\xc3\xa9@0");
    expect(&a, "ab\xff" "cd", "ab@0 cd@1");
    expect(&a, "\xcc\x81x", "x@0");
    expect(&a, "\xce\x94\xce\xb5\xce\xbb\xcf\x84\xce\xb1", "\xce\xb4\xce\xb5\xce\xbb\xcf\x84\xce\xb1@0");

    /* Byte offsets point at the original text. */
    const char *t = "see restartPolicy";
    CHECK(hxi_analyzer_run(&a, t, strlen(t), NULL) == 0, "run");
    CHECK(a.n_terms == 4 && a.terms[1].start == 4 && a.terms[1].end == 17, "whole offsets");
    CHECK(a.terms[2].start == 4 && a.terms[2].end == 11, "leaf offsets %u %u", a.terms[2].start,
          a.terms[2].end);
    CHECK(a.terms[3].start == 11 && a.terms[3].end == 17, "leaf offsets");
    CHECK(a.terms[1].kind == HX_TERM_WHOLE && a.terms[2].kind == HX_TERM_LEAF, "kinds");
    CHECK(a.n_positions == 3, "positions %u", a.n_positions);

    /* Length cap: long leaves are cut at 64 bytes, long wholes are dropped. */
    char longw[200];
    memset(longw, 'x', 100);
    longw[100] = 0;
    CHECK(hxi_analyzer_run(&a, longw, strlen(longw), NULL) == 0, "run long");
    CHECK(a.n_terms == 1 && a.terms[0].text_len == HX_ANALYZER_MAX_TERM, "cut leaf %zu", a.n_terms);
    memset(longw, 'y', 40);
    longw[40] = '-';
    memset(longw + 41, 'z', 40);
    longw[81] = 0;
    CHECK(hxi_analyzer_run(&a, longw, strlen(longw), NULL) == 0, "run long compound");
    CHECK(a.n_terms == 2 && a.terms[0].text_len == 40 && a.terms[1].pos == 1, "dropped whole %zu",
          a.n_terms);
    /* A cut never splits a UTF-8 sequence: 40 two-byte letters = 80 bytes -> 32 letters. */
    char greek[100];
    for (int i = 0; i < 40; i++) {
        greek[2 * i] = (char)0xce;
        greek[2 * i + 1] = (char)0xb1;
    }
    CHECK(hxi_analyzer_run(&a, greek, 80, NULL) == 0, "run greek");
    CHECK(a.n_terms == 1 && a.terms[0].text_len == 64, "greek cut %u", a.terms[0].text_len);

    /* Random bytes: never crash, offsets in range, terms non-empty. */
    srand(7);
    char rnd[512];
    for (int round = 0; round < 2000; round++) {
        size_t n = (size_t)(rand() % 512);
        for (size_t i = 0; i < n; i++) {
            int r = rand() % 8;
            rnd[i] = r < 3 ? (char)('a' + rand() % 26) : r < 4 ? (char)('A' + rand() % 26)
                   : r < 6 ? "-_./: \"*+"[rand() % 9] : (char)rand();
        }
        int rc = hxi_analyzer_run(&a, rnd, n, NULL);
        CHECK(rc == 0, "random rc %d", rc);
        for (size_t i = 0; i < a.n_terms; i++) {
            const hxi_term *tm = &a.terms[i];
            if (!(tm->text_len >= 1 && tm->text_len <= 64 && tm->start < tm->end && tm->end <= n &&
                  tm->pos < a.n_positions)) {
                CHECK(0, "bad term %zu in round %d", i, round);
                break;
            }
        }
    }
    /* The random rounds again with English analysis: stemmed terms within the cap too. */
    hxi_analyzer_free(&a);
    a.config = HX_ANALYZER_ENGLISH;
    for (int round = 0; round < 2000; round++) {
        size_t n = (size_t)(rand() % 512);
        for (size_t i = 0; i < n; i++) {
            int r = rand() % 8;
            rnd[i] = r < 3 ? (char)('a' + rand() % 26) : r < 4 ? (char)('A' + rand() % 26)
                   : r < 6 ? "-_./: '\"*+"[rand() % 10] : (char)rand();
        }
        CHECK(hxi_analyzer_run(&a, rnd, n, NULL) == 0, "random english");
        for (size_t i = 0; i < a.n_terms; i++) {
            const hxi_term *tm = &a.terms[i];
            if (!(tm->text_len >= 1 && tm->text_len <= 64 && tm->end <= n && tm->pos < a.n_positions)) {
                CHECK(0, "bad english term %zu in round %d", i, round);
                break;
            }
        }
    }
    hxi_analyzer_free(&a);
    english();
    return check_report("test_analyzer");
}
