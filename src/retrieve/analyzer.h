/* analyzer.h: the BM25 analyzer, text -> terms with positions and byte offsets. Owns tokenisation
 * rules for keyword search only (the embedding model has its own tokenizer in wordpiece.c); uses
 * unicode.h for decoding, classes, scripts, lowercasing and folding. Spec: this comment.
 *
 * Rules, applied to UTF-8 text (invalid bytes decode to U+FFFD, which is not a word character).
 * They are Lucene's StandardTokenizer (UAX #29 words) followed by WordDelimiterGraphFilter, written
 * as one pass; tools/lucene_golden/LuceneGolden.java states them as a Lucene chain and
 * tests/test_words.c holds hyrax to its output on real text in many scripts.
 * - Word characters: code points whose hxi_unicode_class has HX_UC_LETTER, HX_UC_NUMBER or
 *   HX_UC_MARK. Everything else separates words (emoji and symbols are not indexed).
 * - Scripts (hxi_unicode_script): a run of Han, Hiragana and Katakana characters (and Hangul
 *   letters not joined to a word, below) is indexed as overlapping bigrams, one position each, a
 *   lone character as itself (Lucene's CJKBigramFilter); a run of Thai, Lao, Khmer, Myanmar or other
 *   Line_Break Complex_Context characters as its character bigrams, all at one position, a lone
 *   character not at all (NGramTokenFilter 2..2: no dictionary). Such runs never join other words.
 *   Hangul letters that touch digits or other letters form one word with them (UAX #29: 2024년,
 *   15일에, 한국Korea), and Hangul letters are uncased (no camelCase split after them).
 * - Joiners: the ASCII characters  -  _  .  /  :  join identifiers when they stand between two word
 *   characters (exactly one joiner; "a--b" and "a. b" are two words). A compound is a maximal run
 *   of word characters linked by joiners: sig-api-machinery, memory.high, v1.2.3, pkg/kubelet/cm,
 *   snake_case_name, foo::bar is NOT one compound (two joiners in a row).
 * - Segments: the joiner-free pieces of a compound. Leaves: each segment split at camelCase
 *   boundaries: before an uppercase letter preceded by a lowercase letter or digit (restart|Policy,
 *   2|Server), and before the last uppercase letter of an uppercase run followed by a lowercase
 *   letter (HTTP|Server). No split at letter/digit changes otherwise: HTTP2Server -> http2, server;
 *   k8s and ipv6 stay whole. Marks never start a leaf. (WordDelimiterGraphFilter makes the same
 *   splits except the two after an uppercase run or a digit, HTTP|Server and IPv6|Address: there
 *   hyrax's leaves are finer.)
 * - Emitted terms, all lowercased with hxi_unicode_lower, in this order per compound: the whole
 *   compound (if it has more than one leaf), then for each segment the segment (if it has more than
 *   one leaf and the compound has more than one segment) followed by its leaves.
 *   `sig-api-machinery` -> sig-api-machinery, sig, api, machinery; `restartPolicy` ->
 *   restartpolicy, restart, policy; `kube-apiServer` -> kube-apiserver, kube, apiserver, api, server.
 * - Positions: leaves take consecutive positions; a whole or segment takes the position of its first
 *   leaf. So "sig api machinery" as a phrase matches the text sig-api-machinery, and the document
 *   length used by BM25 is the number of leaves (positions), not the number of terms.
 * - Term length cap HX_ANALYZER_MAX_TERM (64) bytes after lowercasing: a leaf longer than that is
 *   cut to its longest prefix of whole code points within 64 bytes; a whole or a segment longer than
 *   that is not emitted (its leaves still are).
 * - The exact terms keep accents and compatibility forms (cafe and café are different exact terms);
 *   the analysed terms below fold them.
 * - A compound ends after HX_ANALYZER_MAX_COMPOUND code points (joiners included) and the text
 *   after it is analyzed afresh, so a word of any length (a 50 MB run of letters) takes bounded
 *   memory; only such runs, far past the term cap, are affected (a CJK or Southeast Asian run goes
 *   on with its bigrams across the cut).
 * The terms above form the exact field. Configurations (hxi_analysis.config; an index records its
 * own by hxi_analyzer_name and refuses another):
 * - HX_ANALYZER_EXACT: the exact field only; the BM25 document length is n_positions.
 * - HX_ANALYZER_ENGLISH ("unicode"): an analysed field beside the exact one, as Lucene's ICU
 *   folding and `english` analyzer. Right after each leaf comes its analysed term (kind
 *   HX_TERM_STEM): HX_STEM_MARK followed by the leaf's ICU folding (hxi_unicode_fold, UTR #30 as
 *   ICUFoldingFilter: Préchauffez -> prechauffez, Straße -> strasse, ＡＢＣ -> abc, です -> てす),
 *   then, when every letter of it is Latin script, its Snowball English stem (stem.h); same position
 *   and byte range; "~" never occurs in an exact term, so both fields share one dictionary. No
 *   analysed term for a stop word (Lucene's EnglishAnalyzer default set, hxi_analyzer_is_stop, after
 *   folding), a leaf that folds to nothing, or the s of a possessive (a leaf "s" right after an
 *   apostrophe, ' or U+2019, that follows a word: user's). The BM25 document length is the number
 *   of analysed terms, as Lucene counts the tokens of its stemmed field.
 */
#ifndef HX_ANALYZER_H
#define HX_ANALYZER_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

#define HX_ANALYZER_MAX_TERM 64
#define HX_ANALYZER_MAX_COMPOUND 1024   /* code points buffered per compound */

/* Term kinds. */
enum { HX_TERM_LEAF = 1, HX_TERM_SEGMENT = 2, HX_TERM_WHOLE = 4, HX_TERM_STEM = 8 };

/* Configurations; the numbers are stored in BM25 segments, so they never change meaning. 1
 * ("english") is the English analysis of builds before Unicode words, kept so that their indexes
 * are searched as they were made: the rules above without scripts (CJK and Southeast Asian runs
 * are words like any other, Hangul letters lowercase), no folding, every leaf stemmed. */
enum { HX_ANALYZER_EXACT = 0, HX_ANALYZER_ENGLISH_ASCII = 1, HX_ANALYZER_ENGLISH = 2 };
#define HX_STEM_MARK '~'

/* The name an index records for a configuration ("exact", "english", "unicode"); NULL for an
 * unknown one. */
const char *hxi_analyzer_name(uint32_t config);

/* Is the lowercased word w[0..n) an English stop word (Lucene's EnglishAnalyzer default set)? */
int hxi_analyzer_is_stop(const char *w, size_t n);

typedef struct hxi_term {
    uint32_t text_off;  /* offset of the lowercased term bytes in hxi_analysis.buf */
    uint32_t text_len;  /* 1..HX_ANALYZER_MAX_TERM (stemmed terms: mark included) */
    uint32_t pos;       /* position (leaf ordinal in the text) */
    uint32_t start;     /* byte range [start, end) of the term in the input text */
    uint32_t end;
    uint32_t kind;      /* HX_TERM_* */
} hxi_term;

/* Result of one analysis; reusable across calls (buffers grow and are kept). Zero-initialise
 * before first use (that is HX_ANALYZER_EXACT; set config after for another); free with
 * hxi_analyzer_free. */
typedef struct hxi_analysis {
    uint32_t config;     /* HX_ANALYZER_*, read by hxi_analyzer_run */
    uint32_t doc_len;    /* BM25 document length (see the configurations above) */
    hxi_term *terms;      /* owned; n_terms entries in emission order */
    size_t n_terms, cap_terms;
    char *buf;           /* owned; term bytes, not NUL-terminated */
    size_t buf_len, buf_cap;
    uint32_t n_positions;/* number of leaves = BM25 document length */
    void *scratch;       /* owned; per-compound work space */
    size_t scratch_cap;
    const uint8_t *stem_first; /* borrowed; NULL: every analysed term is stemmed. Else a set of 256
                            * bits: a leaf whose folding starts with a byte outside it keeps its
                            * folding unstemmed. A stem starts with its word's first byte (stem.h),
                            * so a caller that only compares analysed terms with terms that start
                            * (after the mark) with a byte of the set finds the same matches,
                            * without the stemmer's cost for the other words */
} hxi_analysis;

/* Analyzes text[0..len) into a (previous content replaced). Inputs of 4 GiB or more are refused
 * with HX_ERANGE (offsets are 32-bit). Returns 0, HX_ENOMEM or HX_ERANGE. */
int hxi_analyzer_run(hxi_analysis *a, const char *text, size_t len, hx_error *err);

/* Frees the buffers of a (not a itself) and zeroes it (config included). */
void hxi_analyzer_free(hxi_analysis *a);

/* Pointer to the bytes of term i (borrowed until the next run or free). */
static inline const char *hxi_analyzer_term(const hxi_analysis *a, size_t i)
{
    return a->buf + a->terms[i].text_off;
}

#endif
