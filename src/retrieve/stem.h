/* stem.h: the Snowball English ("Porter2") stemmer for the BM25 analyzer's stemmed field. Owns
 * only the algorithm; knows nothing of terms, indexes or queries. Spec:
 * https://snowballstem.org/algorithms/english/stemmer.html (english.sbl as of Snowball 3.1; the
 * golden fixture tests/golden/stem_english.txt comes from the reference, tools/gen_golden_stem.py).
 *
 * Input is one lowercased word in UTF-8; letters outside a-z, digits and other code points are
 * consonants to the algorithm, as in the reference, which works on code points, not bytes. */
#ifndef HX_STEM_H
#define HX_STEM_H

#include <stddef.h>

/* Longest word stemmed, in bytes; longer words are returned unchanged (the analyzer's terms are
 * at most 64 bytes). */
#define HX_STEM_MAX 64

/* Stems word[0..len) into out (room for len bytes; the stem is never longer than the word) and
 * returns the stem's length. word and out may be the same buffer. The stem of a word that does not
 * start with an apostrophe (an analyzer's leaf never does) starts with the word's first byte (only
 * suffixes change; tests/test_stem.c checks the reference's stems), which analyzer.h's stem_first
 * relies on. */
size_t hxi_stem_english(const char *word, size_t len, char *out);

#endif
