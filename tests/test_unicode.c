/* test_unicode.c: UTF-8 decoding (every code point round-trips; every kind of invalid sequence
 * consumes one byte and yields U+FFFD) and spot checks of the generated tables against facts of
 * the Unicode Character Database and of HF's BertNormalizer / BertPreTokenizer. Whole-table
 * parity with HF is covered by test_tokenizer's corpus, which holds per-code-point lines. */
#include "check.h"
#include "unicode.h"

#include <string.h>

static void test_utf8(void)
{
    char buf[4];
    int bad = 0;
    for (uint32_t cp = 0; cp < 0x110000; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        int n = hxi_utf8_put(cp, buf);
        size_t pos = 0;
        uint32_t got;
        if (hxi_utf8_next(buf, (size_t)n, &pos, &got) != 1 || got != cp || pos != (size_t)n)
            bad++;
    }
    CHECK(bad == 0, "%d code points do not round-trip", bad);

    static const struct {
        const char *s;
        size_t len;
    } invalid[] = {
        {"\x80", 1}, {"\xbf", 1}, {"\xc0\x80", 2}, {"\xc1\xbf", 2}, {"\xc2", 1}, {"\xc2\x41", 2},
        {"\xe0\x80\x80", 3}, {"\xe0\x9f\xbf", 3}, {"\xed\xa0\x80", 3}, {"\xed\xbf\xbf", 3},
        {"\xe2\x82", 2}, {"\xf0\x80\x80\x80", 4}, {"\xf0\x8f\xbf\xbf", 4}, {"\xf4\x90\x80\x80", 4},
        {"\xf5\x80\x80\x80", 4}, {"\xf8\x88\x80\x80\x80", 5}, {"\xfe", 1}, {"\xff", 1},
        {"\xf0\x9f\x98", 3},
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        size_t pos = 0;
        uint32_t cp = 0;
        int ok = hxi_utf8_next(invalid[i].s, invalid[i].len, &pos, &cp);
        CHECK(ok == 0 && cp == 0xFFFD && pos == 1, "invalid case %zu: ok %d cp %x pos %zu", i, ok,
              cp, pos);
    }
    size_t pos = 0;
    uint32_t cp;
    CHECK(hxi_utf8_next("\xf4\x8f\xbf\xbf", 4, &pos, &cp) == 1 && cp == 0x10FFFF && pos == 4, "max");
}

static int fold_is(uint32_t cp, int n, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t out[4] = {0, 0, 0, 0};
    int k = hxi_unicode_bert_fold(cp, out);
    return k == n && (n < 1 || out[0] == a) && (n < 2 || out[1] == b) && (n < 3 || out[2] == c);
}

static void test_tables(void)
{
    /* BERT fold: NFD, drop Mn, lowercase; no compatibility decomposition. */
    CHECK(fold_is('A', 1, 'a', 0, 0), "A");
    CHECK(fold_is('!', 1, '!', 0, 0), "!");
    CHECK(fold_is(0xC9, 1, 'e', 0, 0), "E acute");
    CHECK(fold_is(0x130, 1, 'i', 0, 0), "I dot above");
    CHECK(fold_is(0xDF, 1, 0xDF, 0, 0), "sharp s");
    CHECK(fold_is(0x1E9E, 1, 0xDF, 0, 0), "capital sharp s");
    CHECK(fold_is(0xFB01, 1, 0xFB01, 0, 0), "fi ligature (compatibility only)");
    CHECK(fold_is(0x301, 0, 0, 0, 0), "combining acute vanishes");
    CHECK(fold_is(0xD55C, 3, 0x1112, 0x1161, 0x11AB), "Hangul HAN");
    CHECK(fold_is(0xAC00, 2, 0x1100, 0x1161, 0), "Hangul GA");
    CHECK(fold_is(0x37E, 1, ';', 0, 0), "Greek question mark");
    CHECK(fold_is(0x212A, 1, 'k', 0, 0), "Kelvin");
    CHECK(fold_is(0x2126, 1, 0x3C9, 0, 0), "Ohm");
    CHECK(fold_is(0x3A3, 1, 0x3C3, 0, 0), "Sigma");
    CHECK(fold_is(0x1F82, 1, 0x3B1, 0, 0), "alpha with three marks");
    CHECK(fold_is(0xF900, 1, 0x8C48, 0, 0), "CJK compatibility ideograph");

    CHECK(hxi_unicode_class(' ') & HX_UC_SPACE, "space");
    CHECK((hxi_unicode_class('\t') & (HX_UC_SPACE | HX_UC_CONTROL)) == HX_UC_SPACE, "tab");
    CHECK((hxi_unicode_class('\r') & (HX_UC_SPACE | HX_UC_CONTROL)) == HX_UC_SPACE, "CR");
    CHECK(hxi_unicode_class(0x0B) & HX_UC_CONTROL, "VT is removed before whitespace mapping");
    CHECK(hxi_unicode_class(0) & HX_UC_CONTROL, "NUL");
    CHECK(hxi_unicode_class(0xFFFD) & HX_UC_CONTROL, "U+FFFD");
    CHECK(hxi_unicode_class(0x200B) & HX_UC_CONTROL, "zero width space (Cf)");
    CHECK(hxi_unicode_class(0xAD) & HX_UC_CONTROL, "soft hyphen (Cf)");
    CHECK(hxi_unicode_class(0xE000) & HX_UC_CONTROL, "private use (Co)");
    CHECK(hxi_unicode_class(0x110000) & HX_UC_CONTROL, "beyond Unicode");
    CHECK(hxi_unicode_class(0x3000) & HX_UC_SPACE, "ideographic space");
    CHECK(hxi_unicode_class(0xA0) & HX_UC_SPACE, "no-break space");
    CHECK(!(hxi_unicode_class(0x200B) & HX_UC_SPACE), "ZWSP is no White_Space");
    static const char ascii_punct[] = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    for (const char *p = ascii_punct; *p; p++)
        CHECK(hxi_unicode_class((uint32_t)*p) & HX_UC_PUNCT, "ASCII '%c' is punctuation", *p);
    CHECK(hxi_unicode_class(0xA7) & HX_UC_PUNCT, "section sign (Po)");
    CHECK(hxi_unicode_class(0x3001) & HX_UC_PUNCT, "ideographic comma");
    CHECK(!(hxi_unicode_class(0xB4) & HX_UC_PUNCT), "acute accent (Sk) is no punctuation");
    CHECK(!(hxi_unicode_class(0x20AC) & HX_UC_PUNCT), "euro sign (Sc) is no punctuation");
    CHECK(hxi_unicode_class(0x4E00) & HX_UC_CJK, "U+4E00");
    CHECK(hxi_unicode_class(0x20000) & HX_UC_CJK, "U+20000");
    CHECK(!(hxi_unicode_class(0x3042) & HX_UC_CJK), "hiragana is not padded");
    CHECK(!(hxi_unicode_class(0xAC00) & HX_UC_CJK), "Hangul is not padded");
    CHECK(hxi_unicode_class('a') & HX_UC_LETTER, "a");
    CHECK(hxi_unicode_class(0x4E00) & HX_UC_LETTER, "ideograph is Lo");
    CHECK(hxi_unicode_class(0x661) & HX_UC_NUMBER, "Arabic-Indic one");
    CHECK(hxi_unicode_class(0x301) & HX_UC_MARK, "combining acute");

    CHECK(hxi_unicode_lower('A') == 'a' && hxi_unicode_lower('a') == 'a' && hxi_unicode_lower('1') == '1',
          "ASCII lower");
    CHECK(hxi_unicode_lower(0x130) == 'i', "simple lowercase of I dot above");
    CHECK(hxi_unicode_lower(0x3A3) == 0x3C3 && hxi_unicode_lower(0x410) == 0x430, "Greek, Cyrillic");
    CHECK(hxi_unicode_lower(0x1E9E) == 0xDF && hxi_unicode_lower(0x212A) == 'k', "sharp s, Kelvin");
    CHECK(hxi_unicode_lower(0xC9) == 0xE9, "lower keeps accents");
    CHECK(hxi_unicode_lower(0x10400) == 0x10428, "Deseret");
}

int main(void)
{
    test_utf8();
    test_tables();
    return check_report("test_unicode");
}
