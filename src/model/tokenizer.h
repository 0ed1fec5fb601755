/* tokenizer.h: the uncased WordPiece tokenizer of all-MiniLM-L6-v2 (BERT) and all-mpnet-base-v2
 * (MPNet), token ids identical to HF tokenizers' (BertNormalizer + BertPreTokenizer + WordPiece). The vocabulary comes from the weights file's "vocab" section
 * (vocab.txt bytes verbatim: one token per line, id = line number, a trailing '\r' dropped).
 * Implemented in wordpiece.c, whose top comment gives the pipeline; tests/test_tokenizer.c checks
 * it against HF on tests/data/token_corpus.txt.
 *
 * Input is UTF-8 of any length and content. Defined behaviour for every byte string:
 *  - Invalid UTF-8 (bad lead byte, stray continuation byte, truncated, overlong or surrogate
 *    sequence, > U+10FFFF) consumes one byte at a time, each reading as U+FFFD, which BERT
 *    clean-up removes like NUL and control characters. The ids are therefore those of the text
 *    with the invalid bytes deleted (letters on both sides of one join into one word).
 *  - As in HF, the added tokens (BERT: [PAD] [UNK] [CLS] [SEP] [MASK]; MPNet: <s> <pad> </s>
 *    <unk> [UNK] <mask>) are matched in the raw text (exact case, contiguous bytes) and give their
 *    ids; "[cls]" is ordinary text. (HF matches MPNet's <unk> after lower-casing, so "<UNK>" is
 *    id 3 there and word pieces here.)
 *
 * A tokenizer spec (the weights file's "tokenizer" section, tools/convert_weights.py) is three
 * ASCII lines: the kind ("wordpiece-lower", the only one), the tokens that open, close, stand for
 * an unknown word and pad a sequence, and the added tokens (at most 8, each under 24 bytes,
 * starting with an ASCII byte), space-separated. */
#ifndef HX_TOKENIZER_H
#define HX_TOKENIZER_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_tokenizer hxi_tokenizer;

/* Builds a tokenizer from vocab bytes (copied; the caller keeps ownership of `vocab`).
 * Caller frees the result with hxi_tokenizer_free. */
int hxi_tokenizer_new(hxi_tokenizer **out, const char *vocab, size_t len, hx_error *err);
/* Same with a tokenizer spec (above; NULL: BERT's, "wordpiece-lower", "[CLS] [SEP] [UNK] [PAD]",
 * "[PAD] [UNK] [CLS] [SEP] [MASK]"); spec is read, not kept. */
int hxi_tokenizer_new_spec(hxi_tokenizer **out, const char *vocab, size_t len, const char *spec,
                           size_t spec_len, hx_error *err);
void hxi_tokenizer_free(hxi_tokenizer *t);

int32_t hxi_tokenizer_cls(const hxi_tokenizer *t);   /* id of [CLS] (MPNet: <s>) */
int32_t hxi_tokenizer_sep(const hxi_tokenizer *t);   /* id of [SEP] (MPNet: </s>) */
int32_t hxi_tokenizer_unk(const hxi_tokenizer *t);   /* id of [UNK] */
int32_t hxi_tokenizer_pad(const hxi_tokenizer *t);   /* id of [PAD] (MPNet: <pad>) */
size_t hxi_tokenizer_vocab_size(const hxi_tokenizer *t);
const char *hxi_tokenizer_token(const hxi_tokenizer *t, int32_t id, size_t *len);  /* borrowed */

/* Word pieces of text[0..len) WITHOUT [CLS]/[SEP]. Writes at most `cap` ids (and, if `spans` is
 * not NULL, for each id the byte range [spans[2i], spans[2i+1]) of the source word it came
 * from: every piece of a word, or its [UNK], carries the whole word's range, from the first to
 * the last source character that contributed to it; ranges are non-empty and their starts never
 * decrease) and returns the total number of pieces the whole text has, which may exceed `cap`
 * (so cap 0 counts tokens; ids and spans may then be NULL). Never fails, never allocates:
 * invalid UTF-8 bytes are read as U+FFFD, which BERT clean-up removes (see above). Spans are
 * 32-bit: texts over 4 GiB need splitting. Thread-safe: the tokenizer is read-only after
 * creation. */
size_t hxi_tokenize(const hxi_tokenizer *t, const char *text, size_t len, int32_t *ids,
                    uint32_t *spans, size_t cap);

/* As hxi_tokenize, but stops reading at the first word boundary once `cap` pieces are known:
 * returns the pieces read, which is the total when that is below cap and at least cap otherwise
 * (ids and spans get the first cap). Costs time linear in the bytes read, not in len, so cutting
 * a long text into parts of cap pieces (chunker.c) stays linear however long the text is. */
size_t hxi_tokenize_head(const hxi_tokenizer *t, const char *text, size_t len, int32_t *ids,
                         uint32_t *spans, size_t cap);

/* Model input: [CLS] + pieces truncated to max_tokens - 2 + [SEP] (MPNet: <s> ... </s>). ids holds max_tokens;
 * returns the number written (>= 2; 0 and nothing written when max_tokens < 2). Stops reading
 * the text once enough pieces are known, so a huge text costs no more than its first words. */
size_t hxi_tokenize_for_model(const hxi_tokenizer *t, const char *text, size_t len, int32_t *ids,
                              size_t max_tokens);

#endif
