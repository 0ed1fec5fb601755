/* test_tokenizer.c: hyrax's WordPiece ids equal HF tokenizers' on every line of
 * tests/data/token_corpus.txt (goldens in tests/golden/tokens.txt, from
 * tools/gen_golden_tokens.py), untruncated and truncated to 256; plus count-only mode, spans,
 * truncation limits and the documented handling of invalid UTF-8. */
#include "check.h"
#include "hxfile.h"
#include "tokenizer.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WEIGHTS_PATH "weights/" HX_WEIGHTS_FILE

/* The vocabulary the product uses: the "vocab" section of the weights file. */
static hxi_tokenizer *load_tokenizer(void)
{
    hx_error err = {0};
    hxi_tokenizer *t = NULL;
    hxf_map map;
    hxf_view v;
    CHECK(hxf_map_open(&map, WEIGHTS_PATH, &err) == 0, "%s", err.message);
    if (err.code)
        return NULL;
    CHECK(hxf_parse(map.addr, map.size, HXF_KIND_WEIGHTS, &v, &err) == 0, "%s", err.message);
    if (!err.code) {
        const hxf_section *s = hxf_find(&v, "vocab");
        CHECK(s != NULL, "%s has no vocab section", WEIGHTS_PATH);
        if (s)
            CHECK(hxi_tokenizer_new(&t, (const char *)s->data, s->length, &err) == 0, "%s", err.message);
        hxf_view_free(&v);
    }
    hxf_map_close(&map);
    return t;
}

/* Parses "<n> id id ..." (or "T <n> ...") into ids (cap entries); returns n or -1. */
static long parse_ids(const char *s, int32_t *ids, size_t cap)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (end == s || n < 0 || (size_t)n > cap)
        return -1;
    for (long i = 0; i < n; i++) {
        s = end;
        ids[i] = (int32_t)strtol(s, &end, 10);
        if (end == s)
            return -1;
    }
    return n;
}

static void print_ids(const char *what, const int32_t *ids, size_t n)
{
    fprintf(stderr, "  %s (%zu):", what, n);
    for (size_t i = 0; i < n && i < 40; i++)
        fprintf(stderr, " %d", ids[i]);
    fprintf(stderr, n > 40 ? " ...\n" : "\n");
}

/* Spans are inside the line, non-empty, in order, and a special token's span is its literal. */
static int spans_ok(const hxi_tokenizer *t, const char *line, size_t len, const int32_t *ids,
                    const uint32_t *spans, size_t n)
{
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = spans[2 * i], b = spans[2 * i + 1];
        if (a >= b || b > len || a < prev)
            return 0;
        prev = a;
        size_t tl;
        const char *tok = hxi_tokenizer_token(t, ids[i], &tl);
        if (tok && tl > 2 && tok[0] == '[' && tok[tl - 1] == ']' && ids[i] != hxi_tokenizer_unk(t) &&
            b - a == tl && memcmp(line + a, tok, tl) != 0)
            return 0;
    }
    return 1;
}

/* === Golden parity === */

static void test_golden(const hxi_tokenizer *t)
{
    size_t clen, glen;
    char *corpus = check_read_file("tests/data/token_corpus.txt", &clen);
    char *golden = check_read_file("tests/golden/tokens.txt", &glen);
    CHECK(corpus && golden, "cannot read the corpus or the golden file");
    if (!corpus || !golden) {
        free(corpus);
        free(golden);
        return;
    }
    size_t cap = 1 << 16;
    int32_t *want = malloc(cap * sizeof *want), *got = malloc(cap * sizeof *got);
    uint32_t *spans = malloc(2 * cap * sizeof *spans);
    int32_t model[HX_MAX_SEQ_TOKENS];
    size_t lines = 0, same = 0, trunc_same = 0, count_same = 0, span_good = 0, n_long = 0;
    int shown = 0;
    char *c = corpus, *cend = corpus + clen, *g = golden, *gnext;
    double secs = 0;
    for (; c < cend; c = memchr(c, '\n', (size_t)(cend - c)) + 1, lines++) {
        char *eol = memchr(c, '\n', (size_t)(cend - c));
        if (!eol)
            break;
        size_t len = (size_t)(eol - c);
        while (*g == '#')
            g = strchr(g, '\n') + 1;
        gnext = strchr(g, '\n');
        *gnext = '\0';
        long n = parse_ids(g, want, cap);
        g = gnext + 1;
        CHECK(n >= 2, "golden line %zu unreadable", lines + 1);
        if (n < 2)
            break;

        clock_t t0 = clock();
        size_t m = hxi_tokenize(t, c, len, got + 1, spans, cap - 2);
        secs += (double)(clock() - t0) / CLOCKS_PER_SEC;
        got[0] = hxi_tokenizer_cls(t);
        got[m + 1] = hxi_tokenizer_sep(t);
        if (m + 2 == (size_t)n && !memcmp(got, want, (size_t)n * sizeof *got)) {
            same++;
        } else if (shown++ < 3) {
            size_t i = 0;
            while (i < m + 2 && i < (size_t)n && got[i] == want[i])
                i++;
            fprintf(stderr, "line %zu differs at id %zu: \"%.*s\"\n", lines + 1, i,
                    (int)(len < 300 ? len : 300), c);
            print_ids("want", want + (i > 5 ? i - 5 : 0), (size_t)n - (i > 5 ? i - 5 : 0));
            print_ids("got ", got + (i > 5 ? i - 5 : 0), m + 2 - (i > 5 ? i - 5 : 0));
        }
        count_same += hxi_tokenize(t, c, len, NULL, NULL, 0) == m;
        span_good += spans_ok(t, c, len, got + 1, spans, m);

        if (*g == 'T') {
            gnext = strchr(g, '\n');
            *gnext = '\0';
            n = parse_ids(g + 1, want, cap);
            g = gnext + 1;
            n_long++;
        }
        size_t k = hxi_tokenize_for_model(t, c, len, model, HX_MAX_SEQ_TOKENS);
        trunc_same += k == (size_t)n && !memcmp(model, want, k * sizeof *model);
    }
    printf("test_tokenizer: %zu/%zu lines identical to HF tokenizers, %zu/%zu truncated to %d "
           "(%zu longer), %zu/%zu count-only, %zu/%zu spans sane; %.1f MB/s\n",
           same, lines, trunc_same, lines, HX_MAX_SEQ_TOKENS, n_long, count_same, lines, span_good,
           lines, secs > 0 ? (double)clen / secs / 1e6 : 0.0);
    CHECK(lines >= 5000, "only %zu corpus lines", lines);
    CHECK(same == lines, "%zu of %zu lines differ", lines - same, lines);
    CHECK(trunc_same == lines, "%zu of %zu truncated lines differ", lines - trunc_same, lines);
    CHECK(count_same == lines, "count-only mode differs on %zu lines", lines - count_same);
    CHECK(span_good == lines, "bad spans on %zu lines", lines - span_good);
    CHECK(n_long > 0, "no line over %d ids", HX_MAX_SEQ_TOKENS);
    free(want);
    free(got);
    free(spans);
    free(corpus);
    free(golden);
}

/* === Edge cases === */

static size_t tok(const hxi_tokenizer *t, const char *s, size_t len, int32_t *ids, size_t cap)
{
    return hxi_tokenize(t, s, len, ids, NULL, cap);
}

static void test_limits(const hxi_tokenizer *t)
{
    int32_t ids[300];
    size_t tl;
    const char *s = hxi_tokenizer_token(t, hxi_tokenizer_cls(t), &tl);
    CHECK(s && tl == 5 && !memcmp(s, "[CLS]", 5), "token of [CLS]");
    CHECK(hxi_tokenizer_cls(t) == 101 && hxi_tokenizer_sep(t) == 102 && hxi_tokenizer_unk(t) == 100 &&
          hxi_tokenizer_pad(t) == 0 && hxi_tokenizer_vocab_size(t) == 30522, "special ids");
    CHECK(hxi_tokenizer_token(t, -1, NULL) == NULL && hxi_tokenizer_token(t, 30522, NULL) == NULL,
          "token out of range");

    /* Empty text: [CLS] [SEP]. */
    CHECK(hxi_tokenize_for_model(t, "", 0, ids, 256) == 2 && ids[0] == 101 && ids[1] == 102, "empty");
    CHECK(tok(t, "", 0, ids, 10) == 0, "empty pieces");
    /* Truncation keeps [CLS] first and [SEP] last at every limit. */
    char text[2000];
    for (int i = 0; i < 400; i++)
        memcpy(text + 5 * i, "word ", 5);
    size_t full = tok(t, text, 2000, NULL, 0);
    CHECK(full == 400, "400 words give %zu pieces", full);
    for (size_t max = 2; max <= 300; max += 7) {
        size_t k = hxi_tokenize_for_model(t, text, 2000, ids, max);
        CHECK(k == max && ids[0] == 101 && ids[k - 1] == 102 &&
              (k == 2 || ids[1] == ids[k - 2]),
              "max_tokens %zu gives %zu", max, k);
    }
    CHECK(hxi_tokenize_for_model(t, text, 2000, ids, 1) == 0, "max_tokens 1 writes nothing");
    /* cap smaller than the count: writes cap, returns the full count. */
    ids[3] = -7;
    CHECK(tok(t, text, 2000, ids, 3) == 400 && ids[3] == -7, "cap respected");
    /* Words of 100 and 101 characters. */
    memset(text, 'a', 101);
    CHECK(tok(t, text, 100, ids, 10) > 1, "100 chars are split into pieces");
    CHECK(tok(t, text, 101, ids, 10) == 1 && ids[0] == 100, "101 chars are [UNK]");
}

/* Each invalid byte reads as U+FFFD, which clean-up removes: the ids equal those of the text with
 * the invalid bytes deleted (so the bytes around it may join into one word). */
static void test_invalid_utf8(const hxi_tokenizer *t)
{
    static const struct {
        const char *bad, *clean;
    } cases[] = {
        {"caf\xc3 ok", "caf ok"},
        {"ab\xff" "cd", "abcd"},
        {"\x80\x81\x82", ""},
        {"\xc0\xaf slash", " slash"},                       /* overlong '/' */
        {"x\xe0\x80\xaf" "y", "xy"},                        /* overlong, 3 bytes */
        {"sur\xed\xa0\x80rogate", "surrogate"},             /* U+D800 */
        {"big \xf4\x90\x80\x80 cp", "big  cp"},             /* > U+10FFFF */
        {"trunc \xe2\x82", "trunc "},
        {"\xf0\x9f\x98", ""},
        {"mix \xe2\x82\xac\xff euro", "mix \xe2\x82\xac euro"},
    };
    int32_t a[64], b[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t na = tok(t, cases[i].bad, strlen(cases[i].bad), a, 64);
        size_t nb = tok(t, cases[i].clean, strlen(cases[i].clean), b, 64);
        CHECK(na == nb && !memcmp(a, b, na * sizeof *a), "invalid UTF-8 case %zu", i);
    }
    /* Special-token literals are matched on the raw bytes, before invalid bytes vanish. */
    CHECK(tok(t, "[CLS\xff]", 6, a, 64) == 4 && a[0] == 1031 && a[3] == 1033, "[CLS<bad>]");
    CHECK(tok(t, "[CLS]\xff", 6, a, 64) == 1 && a[0] == 101, "[CLS]<bad>");
    /* Every byte value alone, and a long run of garbage, neither crash nor emit anything odd. */
    for (int c = 0; c < 256; c++) {
        char s[1] = {(char)c};
        size_t n = tok(t, s, 1, a, 64);
        CHECK(n <= 1, "byte %d gives %zu ids", c, n);
    }
    char junk[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        x = x * 1103515245u + 12345u;
        junk[i] = (char)(0x80 | (x >> 16 & 0x3F));
    }
    CHECK(tok(t, junk, sizeof junk, a, 64) == 0, "continuation bytes alone vanish");
}

/* Vocabulary parsing: one token per line, CR LF accepted, last duplicate wins, no final
 * newline needed; [PAD] [UNK] [CLS] [SEP] are required. */
static void test_vocab(void)
{
    static const char v[] = "[PAD]\r\n[UNK]\n[CLS]\n[SEP]\nab\n##c\nab\n##d";
    hxi_tokenizer *t = NULL;
    hx_error err = {0};
    CHECK(hxi_tokenizer_new(&t, v, sizeof v - 1, &err) == 0, "%s", err.message);
    if (!t)
        return;
    int32_t ids[8];
    size_t tl;
    CHECK(hxi_tokenizer_vocab_size(t) == 8 && hxi_tokenizer_pad(t) == 0, "size, [PAD] with CR LF");
    CHECK(hxi_tokenize(t, "abc abd ab[CLS]", 15, ids, NULL, 8) == 6 && ids[0] == 6 && ids[1] == 5 &&
              ids[2] == 6 && ids[3] == 7 && ids[4] == 6 && ids[5] == 2 && !strcmp(hxi_tokenizer_token(t, 7, &tl), "##d"),
          "pieces with a duplicate token");
    CHECK(hxi_tokenize(t, "abe x", 5, ids, NULL, 8) == 2 && ids[0] == 1 && ids[1] == 1, "unknown rest");
    hxi_tokenizer_free(t);
    CHECK(hxi_tokenizer_new(&t, "a\nb\n", 4, &err) == HX_EFORMAT && !t, "no special tokens");
    CHECK(hxi_tokenizer_new(&t, "", 0, &err) == HX_EFORMAT && !t, "empty vocabulary");
}

int main(void)
{
    test_vocab();
    hxi_tokenizer *t = load_tokenizer();
    if (t) {
        test_golden(t);
        test_limits(t);
        test_invalid_utf8(t);
    }
    hxi_tokenizer_free(t);
    return check_report("test_tokenizer");
}
