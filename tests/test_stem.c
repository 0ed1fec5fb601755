/* test_stem.c: the Snowball English stemmer (src/stem.h) against the reference's stems of the
 * Cranfield and KEP vocabulary (tests/golden/stem_english.txt, made by tools/gen_golden_stem.py);
 * every word must match, and every reference stem of a word that does not start with an
 * apostrophe starts with its word's first byte (what the analyzer's stem_first relies on). Also:
 * in-place use, words too long or not UTF-8 come back unchanged. */
#include "check.h"
#include "stem.h"

#include <string.h>

int main(void)
{
    size_t len;
    char *text = check_read_file("tests/golden/stem_english.txt", &len);
    CHECK(text != NULL, "cannot read tests/golden/stem_english.txt");
    size_t n_words = 0, n_wrong = 0, n_first = 0;
    for (char *line = text; text && *line;) {
        char *nl = strchr(line, '\n');
        size_t line_len = nl ? (size_t)(nl - line) : strlen(line);
        char *sp = memchr(line, ' ', line_len);
        CHECK(sp != NULL, "golden line without a space: %.*s", (int)line_len, line);
        if (!sp)
            break;
        size_t wlen = (size_t)(sp - line), slen = line_len - wlen - 1;
        char out[HX_STEM_MAX];
        size_t got = hxi_stem_english(line, wlen, out);
        n_words++;
        n_first += line[0] != '\'' && (!slen || sp[1] != line[0]);
        if (got != slen || memcmp(out, sp + 1, slen) != 0) {
            if (++n_wrong <= 20)
                CHECK(0, "stem(%.*s) = %.*s, want %.*s", (int)wlen, line, (int)got, out, (int)slen,
                      sp + 1);
        }
        line = nl ? nl + 1 : line + line_len;
    }
    CHECK(n_wrong == 0, "%zu of %zu golden stems differ", n_wrong, n_words);
    CHECK(n_words > 10000, "only %zu golden words", n_words);
    CHECK(n_first == 0, "%zu reference stems do not start with their word's first byte", n_first);
    free(text);

    char buf[HX_STEM_MAX + 8] = "generalizations";
    size_t k = hxi_stem_english(buf, strlen(buf), buf);
    CHECK(k == 7 && memcmp(buf, "general", 7) == 0, "in place: %.*s", (int)k, buf);

    char longw[HX_STEM_MAX + 8], out[HX_STEM_MAX + 8];
    memset(longw, 'a', sizeof longw);
    memcpy(longw + sizeof longw - 3, "ing", 3);
    k = hxi_stem_english(longw, sizeof longw, out);
    CHECK(k == sizeof longw && memcmp(out, longw, k) == 0, "a word over the cap is kept");
    k = hxi_stem_english("runs\xff", 5, out);
    CHECK(k == 5 && memcmp(out, "runs\xff", 5) == 0, "invalid UTF-8 is kept");
    return check_report("test_stem");
}
