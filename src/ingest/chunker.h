/* chunker.h: splits a decoded document into chunks that each fit the model's input whole.
 * The type's row (doctype.h) picks the cut: Markdown by heading sections, then paragraphs, then
 * sentences; YAML by top-level keys; code at blank lines; plain text by paragraphs and sentences;
 * extracted formats (HTML) by their blocks under their heading paths. No text is lost: every non-blank byte lies
 * in some chunk's body, except Markdown markup (the #s of a heading line, whose words open its
 * section's body, and the --- lines around front matter, which is chunked as YAML).
 * Every chunk's text is a contextual header
 * (document title and heading path, as seed 001's contextual chunks; an extractor's unit named
 * by an identifier, a code definition, adds the identifier's words) plus a body that is one
 * contiguous byte range of the document, and counts at most max_tokens word pieces including
 * [CLS] and [SEP], so nothing is ever truncated at embedding time. Consecutive chunks of one
 * section overlap by whole sentences up to overlap_tokens. The model embeds the whole text, except
 * where the body already begins with the header's words (a plain-text file whose first line is its
 * title, a YAML file whose title is its first line): then it embeds the body alone, so the same
 * words are not read twice in a row; the keyword side still has the header (embed_offset). */
#ifndef HX_CHUNKER_H
#define HX_CHUNKER_H

#include "hyrax.h"
#include "tokenizer.h"

#include <stddef.h>
#include <stdint.h>

#define HX_CHUNK_DEFAULT_OVERLAP 32
#define HX_CHUNK_MIN_TOKENS 16   /* the smallest chunk budget */

typedef struct hxi_chunk_opts {
    int max_tokens;       /* model input budget incl. [CLS]/[SEP], at most HX_MODEL_MAX_SEQ;
                           * 0 = HX_MAX_SEQ_TOKENS */
    int overlap_tokens;   /* 0 = no overlap; negative = HX_CHUNK_DEFAULT_OVERLAP */
} hxi_chunk_opts;

/* The options an index chunks with for model m: its maximum input length (the weights file's, 256
 * for all-MiniLM-L6-v2, 384 for all-mpnet-base-v2) as the budget, so that a chunk fills what the
 * model reads, and the default overlap; a model that reads fewer than HX_CHUNK_MIN_TOKENS tokens
 * (the tests' tiny models) gets the smallest budget and reads each chunk's beginning. */
hxi_chunk_opts hxi_chunk_opts_for(const hx_model *m);
/* The last part of heading path h[0..hl) ("A > B" -> "B"; h itself when it has one part): a
 * section's own title, wherever a heading path is read. */
const char *hxi_heading_last(const char *h, size_t hl);

typedef struct hxi_chunk {
    uint32_t index;                  /* position in the document, from 0 */
    uint32_t byte_start, byte_end;   /* body range in the document text */
    uint32_t line_start, line_end;   /* 1-based, inclusive */
    uint32_t n_tokens;               /* word pieces of `text` incl. [CLS] and [SEP] */
    uint32_t body_offset;            /* where the body starts within `text` */
    uint32_t embed_offset;           /* where what the model embeds starts within `text`: 0, or
                                      * body_offset when the body begins with the header */
    uint32_t unit;                   /* the document's unit it is text of (doctype.h; 0: none) */
    char *heading;                   /* heading path "A > B", "" when none; owned */
    char *text;                      /* header + "\n" + body; what is embedded and indexed; owned */
} hxi_chunk;

/* Chunks text[0..len) (NUL-terminated UTF-8) of a document of the given type (a name in the
 * table of document types, doctype.h, whose row says how its text is cut) and title. *out is
 * owned by the caller: free with hxi_chunks_free. An empty or blank document yields zero chunks,
 * and only such a document. */
int hxi_chunk_document(const hxi_tokenizer *tok, const char *title, const char *type, const char *text,
                       size_t len, const hxi_chunk_opts *opts, hxi_chunk **out, size_t *n_out, hx_error *err);
/* Chunks a loaded document: as hxi_chunk_document, and for a type chunked by its extractor's blocks
 * (HX_CHUNK_BLOCKS, or any document whose extractor made units) a section per heading path and
 * unit, no chunk across a heading or a unit boundary (each chunk's `unit` says which), and
 * line_start/line_end the source lines (or pages, d->unit) of the blocks a chunk covers. */
struct hxi_doc_source;
int hxi_chunk_source(const hxi_tokenizer *tok, const struct hxi_doc_source *d, const hxi_chunk_opts *opts,
                     hxi_chunk **out, size_t *n_out, hx_error *err);
void hxi_chunks_free(hxi_chunk *chunks, size_t n);

#endif
