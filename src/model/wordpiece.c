/* wordpiece.c: the BERT uncased WordPiece tokenizer of tokenizer.h (HF BertNormalizer +
 * BertPreTokenizer + WordPiece, plus the special-token split of HF's AddedVocabulary). Owns the
 * vocabulary hash table; Unicode facts come from unicode.h only. Spec: DESIGN.md "Model" and
 * tools/gen_unicode.py; parity is checked against HF goldens by tests/test_tokenizer.c.
 *
 * Pipeline, one pass over the bytes, no allocation:
 *   1. The added tokens of the tokenizer spec (tokenizer.h; BERT's: "[PAD]" "[UNK]" "[CLS]"
 *      "[SEP]" "[MASK]") in the raw text are their ids (HF matches these added tokens before
 *      normalisation, case-sensitively).
 *   2. Each code point is decoded; an invalid UTF-8 byte reads as U+FFFD. CONTROL characters
 *      (incl. NUL and U+FFFD, hence every invalid byte) vanish; SPACE ends the current word;
 *      CJK ideographs become words of their own.
 *   3. The rest is folded (NFD, drop Mn, lowercase); each folded code point that is SPACE ends
 *      the word, one that is PUNCT becomes a word of its own, others extend the word.
 *   4. Each word of at most 100 code points is split greedily, longest match first, into
 *      vocabulary pieces ("##" on all but the first); a longer word or one with an unmatched
 *      rest is one [UNK]. */
#include "tokenizer.h"
#include "alloc.h"

#include "unicode.h"

#include <stdlib.h>
#include <string.h>

#define WP_MAX_WORD_CHARS 100                     /* HF max_input_chars_per_word */
#define WP_WORD_BYTES (WP_MAX_WORD_CHARS * 4)     /* UTF-8 of the longest word kept */
#define WP_MAX_VOCAB (1u << 24)
#define WP_MAX_SPECIAL 8                           /* added tokens a spec may name */
#define WP_SPECIAL_BYTES 24                       /* longest added token, in bytes, plus one */
#define WP_SPEC_MAX 512                           /* bytes of a tokenizer spec */

/* BERT uncased's spec (tokenizer.h): kind; [CLS] [SEP] [UNK] [PAD]; the added tokens. */
static const char wp_bert_spec[] = "wordpiece-lower\n[CLS] [SEP] [UNK] [PAD]\n[PAD] [UNK] [CLS] [SEP] [MASK]\n";

/* === Tokenizer === */

struct hxi_tokenizer {
    char *strings;        /* owned: every token, NUL-terminated, in id order */
    uint32_t *offs;       /* owned: offs[id] = start of token id in strings; n + 1 entries */
    size_t n;             /* vocabulary size */
    uint32_t *slot_id;    /* owned: hash table, id + 1 per slot (0 = empty); mask + 1 slots */
    uint32_t *slot_hash;  /* owned: full hash of the token in each slot */
    uint32_t mask;
    size_t max_len;       /* longest token in bytes: no longer candidate can match */
    int32_t cls, sep, unk, pad;
    int n_special;
    struct {
        char lit[WP_SPECIAL_BYTES];
        size_t len;
        int32_t id;       /* -1 when the vocabulary lacks it */
    } special[WP_MAX_SPECIAL];
    uint8_t special_lead[128];  /* 1: some added token starts with this ASCII byte */
    uint8_t ascii_class[128];
    uint8_t ascii_fold[128];  /* 0: the character vanishes */
};

static uint32_t wp_hash(uint32_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

#define WP_HASH_SEED 2166136261u

static size_t wp_len(const hxi_tokenizer *t, uint32_t id)
{
    return t->offs[id + 1] - t->offs[id] - 1;
}

/* Id of prefix + s[0..n) (prefix "##" when cont), whose hash is h, or -1. */
static int32_t wp_lookup_h(const hxi_tokenizer *t, const char *s, size_t n, int cont, uint32_t h)
{
    size_t full = n + (cont ? 2 : 0);
    for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
        uint32_t id1 = t->slot_id[i];
        if (!id1)
            return -1;
        if (t->slot_hash[i] != h || wp_len(t, id1 - 1) != full)
            continue;
        const char *tok = t->strings + t->offs[id1 - 1];
        if (cont && (tok[0] != '#' || tok[1] != '#'))
            continue;
        if (!memcmp(tok + (cont ? 2 : 0), s, n))
            return (int32_t)(id1 - 1);
    }
}

static int32_t wp_find(const hxi_tokenizer *t, const char *tok)
{
    size_t n = strlen(tok);
    return wp_lookup_h(t, tok, n, 0, wp_hash(WP_HASH_SEED, tok, n));
}

/* Next space- or line-separated word of spec[*at..end) into word (cap bytes with its NUL), stopping
 * at a line end; returns its length, 0 at the end of the line (which it then skips) or -1 when a
 * word does not fit. */
static int wp_spec_word(const char *spec, size_t end, size_t *at, char *word, size_t cap)
{
    while (*at < end && spec[*at] == ' ')
        (*at)++;
    if (*at < end && spec[*at] == '\n') {
        (*at)++;
        return 0;
    }
    size_t n = 0;
    for (; *at < end && spec[*at] != ' ' && spec[*at] != '\n'; (*at)++, n++) {
        if (n + 1 >= cap || (unsigned char)spec[*at] < 0x21 || (unsigned char)spec[*at] > 0x7e)
            return -1;
        word[n] = spec[*at];
    }
    word[n] = 0;
    return (int)n;
}

/* Reads the spec's roles and added tokens into t (after the vocabulary). */
static int wp_read_spec(hxi_tokenizer *t, const char *spec, size_t len, hx_error *err)
{
    char word[WP_SPECIAL_BYTES];
    size_t at = 0;
    if (len > WP_SPEC_MAX || wp_spec_word(spec, len, &at, word, sizeof word) <= 0 ||
        strcmp(word, "wordpiece-lower") || wp_spec_word(spec, len, &at, word, sizeof word) != 0)
        return hx_error_set(err, HX_EFORMAT, -1, "tokenizer spec: the only kind supported is "
                            "'wordpiece-lower', on a line of its own");
    int32_t *roles[4] = {&t->cls, &t->sep, &t->unk, &t->pad};
    char names[4][WP_SPECIAL_BYTES];
    for (int k = 0; k < 4; k++) {
        if (wp_spec_word(spec, len, &at, names[k], sizeof names[k]) <= 0)
            return hx_error_set(err, HX_EFORMAT, -1, "tokenizer spec: line 2 must name 4 tokens "
                                "(open, close, unknown, pad)");
        *roles[k] = wp_find(t, names[k]);
    }
    int w;
    if (wp_spec_word(spec, len, &at, word, sizeof word) != 0)
        return hx_error_set(err, HX_EFORMAT, -1, "tokenizer spec: line 2 has more than 4 tokens");
    while ((w = wp_spec_word(spec, len, &at, word, sizeof word)) > 0) {
        if (t->n_special == WP_MAX_SPECIAL)
            return hx_error_set(err, HX_ERANGE, -1, "tokenizer spec: more than %d added tokens",
                                WP_MAX_SPECIAL);
        memcpy(t->special[t->n_special].lit, word, (size_t)w + 1);
        t->special[t->n_special].len = (size_t)w;
        t->special[t->n_special].id = wp_find(t, word);
        t->special_lead[(unsigned char)word[0]] = 1;
        t->n_special++;
    }
    if (w < 0 || at < len)
        return hx_error_set(err, HX_EFORMAT, -1, "tokenizer spec: an added token is over %d bytes, "
                            "or text follows line 3", WP_SPECIAL_BYTES - 1);
    if (t->pad < 0 || t->unk < 0 || t->cls < 0 || t->sep < 0)
        return hx_error_set(err, HX_EFORMAT, -1, "vocabulary lacks one of %s %s %s %s", names[0],
                            names[1], names[2], names[3]);
    return 0;
}

int hxi_tokenizer_new(hxi_tokenizer **out, const char *vocab, size_t len, hx_error *err)
{
    return hxi_tokenizer_new_spec(out, vocab, len, NULL, 0, err);
}

int hxi_tokenizer_new_spec(hxi_tokenizer **out, const char *vocab, size_t len, const char *spec,
                           size_t spec_len, hx_error *err)
{
    *out = NULL;
    if (!spec) {
        spec = wp_bert_spec;
        spec_len = sizeof wp_bert_spec - 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += vocab[i] == '\n';
    if (len && vocab[len - 1] != '\n')
        n++;
    if (n == 0 || n > WP_MAX_VOCAB)
        return hx_error_set(err, HX_EFORMAT, -1, "vocabulary has %zu tokens (want 1..%u)", n,
                            WP_MAX_VOCAB);
    if (len > UINT32_MAX - n - 1)
        return hx_error_set(err, HX_ERANGE, -1, "vocabulary of %zu bytes is too large", len);
    hxi_tokenizer *t = hx_calloc(1, sizeof *t);
    if (!t)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for the tokenizer");
    uint32_t slots = 1;
    while (slots < 2 * n)
        slots <<= 1;
    t->n = n;
    t->mask = slots - 1;
    t->strings = hx_malloc(len + 1);
    t->offs = hx_malloc((n + 1) * sizeof *t->offs);
    t->slot_id = hx_calloc(slots, sizeof *t->slot_id);
    t->slot_hash = hx_malloc(slots * sizeof *t->slot_hash);
    if (!t->strings || !t->offs || !t->slot_id || !t->slot_hash) {
        hxi_tokenizer_free(t);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for a vocabulary of %zu tokens", n);
    }
    /* One token per line, id = line number; a trailing '\r' is dropped. */
    size_t w = 0, id = 0, start = 0;
    for (size_t i = 0; i <= len && id < n; i++) {
        if (i < len && vocab[i] != '\n')
            continue;
        size_t end = i;
        if (end > start && vocab[end - 1] == '\r')
            end--;
        t->offs[id++] = (uint32_t)w;
        memcpy(t->strings + w, vocab + start, end - start);
        w += end - start;
        t->strings[w++] = '\0';
        if (end - start > t->max_len)
            t->max_len = end - start;
        start = i + 1;
    }
    t->offs[n] = (uint32_t)w;
    /* Insert in id order; a duplicate token maps to its last id, as in HF. */
    for (uint32_t k = 0; k < n; k++) {
        const char *tok = t->strings + t->offs[k];
        size_t tl = wp_len(t, k);
        uint32_t h = wp_hash(WP_HASH_SEED, tok, tl);
        uint32_t i = h & t->mask;
        for (uint32_t o; (o = t->slot_id[i]); i = (i + 1) & t->mask)
            if (t->slot_hash[i] == h && wp_len(t, o - 1) == tl &&
                !memcmp(t->strings + t->offs[o - 1], tok, tl))
                break;
        t->slot_id[i] = k + 1;
        t->slot_hash[i] = h;
    }
    int rc = wp_read_spec(t, spec, spec_len, err);
    if (rc) {
        hxi_tokenizer_free(t);
        return rc;
    }
    for (uint32_t c = 0; c < 128; c++) {
        uint32_t f[4];
        t->ascii_class[c] = (uint8_t)hxi_unicode_class(c);
        t->ascii_fold[c] = hxi_unicode_bert_fold(c, f) == 1 && f[0] < 128 ? (uint8_t)f[0] : 0;
    }
    *out = t;
    return 0;
}

void hxi_tokenizer_free(hxi_tokenizer *t)
{
    if (!t)
        return;
    free(t->strings);
    free(t->offs);
    free(t->slot_id);
    free(t->slot_hash);
    free(t);
}

int32_t hxi_tokenizer_cls(const hxi_tokenizer *t) { return t->cls; }
int32_t hxi_tokenizer_sep(const hxi_tokenizer *t) { return t->sep; }
int32_t hxi_tokenizer_unk(const hxi_tokenizer *t) { return t->unk; }
int32_t hxi_tokenizer_pad(const hxi_tokenizer *t) { return t->pad; }
size_t hxi_tokenizer_vocab_size(const hxi_tokenizer *t) { return t->n; }

const char *hxi_tokenizer_token(const hxi_tokenizer *t, int32_t id, size_t *len)
{
    if (id < 0 || (size_t)id >= t->n)
        return NULL;
    if (len)
        *len = wp_len(t, (uint32_t)id);
    return t->strings + t->offs[id];
}

/* === Tokenizing === */

/* Run state of one call; lives on the caller's stack. */
typedef struct wp_run {
    const hxi_tokenizer *t;
    int32_t *ids;          /* borrowed: cap entries */
    uint32_t *spans;       /* borrowed: 2 * cap entries, or NULL */
    size_t cap, n;         /* n counts every piece, written or not */
    char word[WP_WORD_BYTES];
    size_t wbytes, wchars; /* wchars may exceed WP_MAX_WORD_CHARS; bytes stop there */
    size_t src_start, src_end;
} wp_run;

static void wp_emit(wp_run *r, int32_t id, size_t start, size_t end)
{
    if (r->n < r->cap) {
        r->ids[r->n] = id;
        if (r->spans) {
            r->spans[2 * r->n] = (uint32_t)start;
            r->spans[2 * r->n + 1] = (uint32_t)end;
        }
    }
    r->n++;
}

/* Splits the current word into pieces (or one [UNK]) and empties it. */
static void wp_flush(wp_run *r)
{
    if (!r->wchars)
        return;
    const hxi_tokenizer *t = r->t;
    size_t first = r->n, nb = r->wbytes, start = 0;
    if (r->wchars > WP_MAX_WORD_CHARS)
        goto unk;
    /* FNV-1a is computed prefix by prefix, so one pass gives the hash of every candidate. */
    uint32_t h[WP_WORD_BYTES + 1];
    const uint32_t seed_cont = wp_hash(WP_HASH_SEED, "##", 2);
    while (start < nb) {
        size_t end = nb - start > t->max_len ? start + t->max_len : nb;
        while (end < nb && (r->word[end] & 0xC0) == 0x80)
            end--;
        h[0] = start > 0 ? seed_cont : WP_HASH_SEED;
        for (size_t i = start; i < end; i++)
            h[i - start + 1] = wp_hash(h[i - start], r->word + i, 1);
        int32_t id = -1;
        while (end > start) {
            id = wp_lookup_h(t, r->word + start, end - start, start > 0, h[end - start]);
            if (id >= 0)
                break;
            do
                end--;
            while (end > start && (r->word[end] & 0xC0) == 0x80);
        }
        if (id < 0)
            goto unk;
        wp_emit(r, id, r->src_start, r->src_end);
        start = end;
    }
    r->wbytes = r->wchars = 0;
    return;
unk:
    r->n = first;
    wp_emit(r, t->unk, r->src_start, r->src_end);
    r->wbytes = r->wchars = 0;
}

/* Appends folded code point cp, which came from source bytes [at, end), to the current word. */
static void wp_append(wp_run *r, uint32_t cp, size_t at, size_t end)
{
    if (!r->wchars)
        r->src_start = at;
    r->src_end = end;
    if (++r->wchars <= WP_MAX_WORD_CHARS)
        r->wbytes += (size_t)hxi_utf8_put(cp, r->word + r->wbytes);
}

/* Length of the added token at s (s[0] leads one), storing its id; 0 if none. */
static size_t wp_special(const hxi_tokenizer *t, const char *s, size_t left, int32_t *id)
{
    for (int k = 0; k < t->n_special; k++) {
        size_t n = t->special[k].len;
        if (t->special[k].id >= 0 && n <= left && !memcmp(s, t->special[k].lit, n)) {
            *id = t->special[k].id;
            return n;
        }
    }
    return 0;
}

/* The pipeline of the file comment. With stop_at_cap, stops at the first word boundary once
 * cap pieces are known (the count returned is then a lower bound). */
static size_t wp_tokenize(const hxi_tokenizer *t, const char *text, size_t len, int32_t *ids,
                          uint32_t *spans, size_t cap, int stop_at_cap)
{
    wp_run r;
    r.t = t;
    r.ids = ids;
    r.spans = spans;
    r.cap = cap;
    r.n = r.wbytes = r.wchars = r.src_start = r.src_end = 0;
    size_t pos = 0;
    while (pos < len) {
        if (stop_at_cap && r.n >= cap && !r.wchars)
            break;
        size_t at = pos;
        unsigned char b = (unsigned char)text[pos];
        if (b < 0x80) {
            pos++;
            unsigned k = t->ascii_class[b];
            int32_t sid;
            size_t sl;
            if (t->special_lead[b] && (sl = wp_special(t, text + at, len - at, &sid))) {
                wp_flush(&r);
                wp_emit(&r, sid, at, at + sl);
                pos = at + sl;
            } else if (k & HX_UC_CONTROL) {
                continue;
            } else if (k & HX_UC_SPACE) {
                wp_flush(&r);
            } else if (k & HX_UC_PUNCT) {
                wp_flush(&r);
                wp_append(&r, t->ascii_fold[b], at, pos);
                wp_flush(&r);
            } else if (t->ascii_fold[b]) {
                wp_append(&r, t->ascii_fold[b], at, pos);
            }
            continue;
        }
        uint32_t cp, f[4];
        hxi_utf8_next(text, len, &pos, &cp);
        unsigned k = hxi_unicode_class(cp);
        if (k & HX_UC_CONTROL)
            continue;
        if (k & HX_UC_SPACE) {
            wp_flush(&r);
            continue;
        }
        if (k & HX_UC_CJK)
            wp_flush(&r);
        int nf = hxi_unicode_bert_fold(cp, f);
        for (int i = 0; i < nf; i++) {
            unsigned fk = f[i] < 128 ? t->ascii_class[f[i]] : hxi_unicode_class(f[i]);
            if (fk & HX_UC_SPACE) {
                wp_flush(&r);
            } else if (fk & HX_UC_PUNCT) {
                wp_flush(&r);
                wp_append(&r, f[i], at, pos);
                wp_flush(&r);
            } else {
                wp_append(&r, f[i], at, pos);
            }
        }
        if (k & HX_UC_CJK)
            wp_flush(&r);
    }
    wp_flush(&r);
    return r.n;
}

size_t hxi_tokenize(const hxi_tokenizer *t, const char *text, size_t len, int32_t *ids,
                    uint32_t *spans, size_t cap)
{
    return wp_tokenize(t, text, len, ids, spans, cap, 0);
}

size_t hxi_tokenize_head(const hxi_tokenizer *t, const char *text, size_t len, int32_t *ids,
                         uint32_t *spans, size_t cap)
{
    return wp_tokenize(t, text, len, ids, spans, cap, 1);
}

size_t hxi_tokenize_for_model(const hxi_tokenizer *t, const char *text, size_t len, int32_t *ids,
                              size_t max_tokens)
{
    if (max_tokens < 2)
        return 0;
    size_t n = wp_tokenize(t, text, len, ids + 1, NULL, max_tokens - 2, 1);
    if (n > max_tokens - 2)
        n = max_tokens - 2;
    ids[0] = t->cls;
    ids[n + 1] = t->sep;
    return n + 2;
}
