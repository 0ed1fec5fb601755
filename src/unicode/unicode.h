/* unicode.h: UTF-8 decoding and the Unicode character classes hyrax needs (BERT normalisation for
 * the tokenizer, word boundaries, scripts and folding for the BM25 analyzer). Tables are generated
 * by tools/gen_unicode.py into unicode_tables.h and by tools/lucene_golden into unicode_words.h
 * (both committed); nothing here allocates. */
#ifndef HX_UNICODE_H
#define HX_UNICODE_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one code point at s[*pos] (len bytes in all, *pos < len) and advances *pos. Invalid
 * UTF-8 (bad lead byte, truncated or overlong sequence, surrogate, > U+10FFFF) consumes exactly
 * one byte and yields U+FFFD; the return value is 1 for a valid sequence, 0 for an invalid one. */
int hxi_utf8_next(const char *s, size_t len, size_t *pos, uint32_t *cp);

/* Encodes cp into out (4 bytes room); returns the byte count (1..4). */
int hxi_utf8_put(uint32_t cp, char *out);

/* Character class bits. SPACE, CONTROL, PUNCT and CJK follow HF tokenizers exactly (probed by
 * tools/gen_unicode.py), which uses its own Unicode versions: e.g. unassigned code points are
 * NOT control there (they are kept as ordinary characters), private use and Cf are. */
enum {
    HX_UC_SPACE = 1 << 0,     /* White_Space, plus \t \n \r */
    HX_UC_CONTROL = 1 << 1,   /* removed by BERT clean-up: Cc/Cf/Co of HF's tables (not \t \n \r),
                                 NUL, U+FFFD, surrogates; unassigned code points are not */
    HX_UC_PUNCT = 1 << 2,     /* BERT punctuation: Unicode P* (HF's tables) or ASCII punct/symbol */
    HX_UC_CJK = 1 << 3,       /* CJK ideograph padded with spaces by BERT */
    HX_UC_LETTER = 1 << 4,    /* L* */
    HX_UC_NUMBER = 1 << 5,    /* N* */
    HX_UC_MARK = 1 << 6,      /* M* (combining marks) */
};
unsigned hxi_unicode_class(uint32_t cp);

/* BERT uncased normalisation of one code point: NFD, drop Mn, lowercase. Writes up to 4 code
 * points to out and returns how many (0 when the character vanishes, e.g. a lone accent). */
int hxi_unicode_bert_fold(uint32_t cp, uint32_t out[4]);

/* Simple lowercase for the BM25 analyzer (one code point to one). */
uint32_t hxi_unicode_lower(uint32_t cp);

/* Script classes of the BM25 analyzer, as Lucene's StandardTokenizer types its tokens (table:
 * unicode_words.h, from ICU by tools/lucene_golden/LuceneGolden.java). */
enum {
    HX_US_OTHER = 0,
    HX_US_CJK = 1,     /* Han, Hiragana, Katakana (Word_Break): indexed as bigrams */
    HX_US_SEA = 2,     /* Line_Break Complex_Context (Thai, Lao, Khmer, Myanmar): character n-grams */
    HX_US_LATIN = 3,   /* Latin script: the only words that are stemmed */
    HX_US_HANGUL = 4,  /* Hangul letters: bigrams, unless a word joins them to digits or Latin */
};
unsigned hxi_unicode_script(uint32_t cp);

#define HX_UNICODE_FOLD_MAX 18  /* most code points one folds to */

/* ICU folding of one code point (UTR #30 as Lucene's ICUFoldingFilter: case, accents, width and
 * other compatibility forms): writes 0..HX_UNICODE_FOLD_MAX code points to out, returns how many
 * (0: the character is removed, e.g. a combining accent). */
int hxi_unicode_fold(uint32_t cp, uint32_t *out);

#endif
