/* doctype.h: the table of document types and the extraction contract every type fulfils. Owns
 * deciding what a file is (content first, then its name), the shape of what an extractor hands
 * to ingest, and the decoded document (hxi_doc_source, document.c) ingest builds from it; the
 * extractors themselves live one per file (doctype_text.c, html.c, ...), the chunker in
 * src/ingest/chunker.c, the gate's other validators in src/ingest/gate.c. `hyrax help formats`
 * lists what each type extracts; `hyrax help hacking` says how to add one.
 *
 * Adding a format is one new file plus one row: write `int my_extract(const uint8_t *raw, size_t
 * len, hxi_extract *x, hx_error *err)` against the builder below, then add a row to the table in
 * doctype.c naming it, its extensions and its magic bytes. Nothing else in ingest, the gate, the
 * policy's `types`, the index or the surfaces lists types.
 *
 * === The extraction contract ===
 * An extractor reads the file's bytes (the whole file, under ingest's size cap) and fills an
 * hxi_extract only through the hxi_x_* builder calls, which enforce the rules in one place:
 *   text      UTF-8, NUL-free. hxi_x_text takes UTF-8 (invalid sequences become U+FFFD) and drops
 *             harmless C0 controls (all of U+0001..U+001F but tab, LF, CR, FF; and DEL), counting
 *             them into one warning; characters that change what a reader sees (bidi overrides
 *             and isolates, C1 controls) are kept so the gate refuses the file with its reason.
 *   blocks    the text is a sequence of blocks (a paragraph, a heading, a list item, a table row,
 *             a `pre`); hxi_x_block ends the current one and starts the next of a kind. The chunker
 *             never joins text across a heading and splits a block only where its kind allows
 *             (HX_BLOCK_PROSE at sentences, HX_BLOCK_VERBATIM at lines). Blocks are separated in
 *             the text by a blank line, so a block-less reader of the text still sees them.
 *   headings  hxi_x_heading(level, words) opens a section: the heading path ("H1 > H2 > H3") of
 *             every later block until a heading of the same or a higher level; the heading's words
 *             are a block of their own. The first level-1 heading is the title unless hxi_x_title
 *             set one (an HTML <title>, a document property).
 *   source    hxi_x_source(first, last) says where the following text came from: 1-based lines of
 *             the source file (the row's unit HX_UNIT_LINE, the default), or pages (HX_UNIT_PAGE:
 *             a paged format's row, whose extractor also calls hxi_x_meta_uint("page_count")). Each block records
 *             the span of sources its text came from; a chunk's line_start/line_end are the first
 *             and last source of its blocks, so a citation says `lines 12-20` or `page 7`.
 *   metadata  hxi_x_meta(key, value) adds to the document's metadata (the same model as front
 *             matter: filters and policy `require` see them). Keys, when the format has them:
 *             title, author (repeatable), date (YYYY-MM-DD[Thh:mm:ss]), modified, language
 *             (BCP 47), description, keywords (repeatable), page_count. word_count and encoding
 *             are set by ingest for every type. A key given by add_document's arguments wins.
 *   units     a structured document (a code file's definitions, a model's elements) is a sequence
 *             of units: hxi_x_unit closes the open block and starts the next unit, and
 *             hxi_x_unit_meta adds key=value to the current unit's metadata (the rules of
 *             hxi_x_meta; keys of 1..HX_YAML_KEY_MAX bytes, at most HX_META_MAX pairs a unit, the rest
 *             dropped; a repeated key is a list). Text before the first hxi_x_unit is unit 0. The chunker never puts text of two
 *             units into one chunk (a long unit is still split by its blocks' kinds), and a chunk's
 *             metadata is its unit's pairs: filters match a chunk by them or by its document's.
 *             A document with units is chunked by its blocks whatever its row's chunk style.
 *   warnings  hxi_x_warn: something was left out or guessed (dropped controls, an unknown entity, a
 *             page without a text layer); the file is still indexed. Kept in metadata as
 *             "warning" entries (at most HX_X_MAX_WARNINGS, the rest counted in the last one).
 *   refusal   return HX_EFORMAT with err set ("charset shift_jis is not supported", "encrypted
 *             with a password"): the file is rejected with that reason, recorded under the rule
 *             "binary" (content hyrax cannot read), as a file with a NUL byte is.
 * Bounds: an extractor must stay within HX_INGEST_MAX_GROWTH times the input in text and finish in time
 * linear in the input (cap nesting depths; hxi_x_text refuses growth past the bound with HX_ERANGE).
 *
 * Ownership: everything an hxi_extract holds is owned by it until hxi_extract_clear; ingest moves
 * text, title, blocks, units and metadata into the hxi_doc_source. */
#ifndef HX_DOCTYPE_H
#define HX_DOCTYPE_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HX_INGEST_MAX_GROWTH 4   /* a document's text is at most this many times the bytes it came
                                    from (windows-1252 0x80 -> 3 bytes; U+FFFD for a bad byte); the
                                    index checks chunk ranges against it */
#define HX_LABEL_MAX 200         /* bytes kept of a title, or of one heading in a chunk's heading
                                    path (cut at a code point) */
#define HX_X_MAX_WARNINGS 8      /* warnings kept per document */
#define HX_X_MAX_DEPTH 6         /* heading levels */
#define HX_DOCTYPE_MAX_MAGIC 4   /* magic patterns per row */

typedef enum { HX_UNIT_LINE = 0, HX_UNIT_PAGE = 1 } hxi_source_unit;
typedef enum { HX_BLOCK_PROSE = 0, HX_BLOCK_VERBATIM = 1, HX_BLOCK_HEADING = 2 } hxi_block_kind;

typedef struct hxi_block {
    uint32_t start, end;       /* byte range of the block in the text, [start, end) */
    uint32_t heading;          /* index into hxi_extract.headings of its heading path */
    uint32_t src_first, src_last;   /* lines or pages it came from (1-based; 0: unknown) */
    uint32_t unit;             /* index into the units (hxi_extract.units) it belongs to */
    hxi_block_kind kind;
} hxi_block;

/* A unit's metadata (see "units" above). */
typedef struct hxi_unit {
    hx_kv *meta;               /* owned pairs, in order; a repeated key is a list */
    size_t n_meta, cap_meta;
} hxi_unit;

/* What an extractor produces. Fill it only through the hxi_x_* calls; read it freely. */
typedef struct hxi_extract {
    char *text;                /* UTF-8, NUL-terminated; owned */
    size_t len, cap;
    char *title;               /* owned; NULL: none found (ingest picks one) */
    hxi_block *blocks;          /* owned; n_blocks entries (0: one implicit block, the whole text) */
    size_t n_blocks, cap_blocks;
    char **headings;           /* owned heading paths "A > B"; headings[0] is "" */
    size_t n_headings, cap_headings;
    hx_kv *meta;               /* owned pairs, in order */
    size_t n_meta, cap_meta;
    hxi_unit *units;           /* owned; n_units >= 1 entries: units[0] holds the text before the
                                  first hxi_x_unit, the last is the current one */
    size_t n_units, cap_units;
    const char *encoding;      /* static: the charset the bytes were read as ("utf-8", "windows-1252") */
    const char *name;          /* the file's path, borrowed from whoever set it (ingest); NULL when
                                  unknown: for a type whose reading depends on it (code: the language
                                  by extension) */
    /* builder state */
    size_t limit;              /* text bytes allowed (HX_INGEST_MAX_GROWTH * input) */
    uint32_t src_first, src_last;
    uint32_t dropped;          /* control characters dropped */
    size_t n_warnings;
    int depth;                 /* open heading levels */
    uint32_t path[HX_X_MAX_DEPTH];    /* heading index per open level */
    int levels[HX_X_MAX_DEPTH];
    bool open;                 /* a block is open */
    bool space;                /* white space is pending between words (hxi_x_words) */
    bool title_from_heading;   /* title is the first level-1 heading: hxi_x_title replaces it */
    hxi_block_kind next_kind;   /* the kind of the block the next text opens */
} hxi_extract;

/* Starts an empty extraction of an input of in_len bytes. */
int hxi_extract_init(hxi_extract *x, size_t in_len, hx_error *err);
/* Frees everything x owns (also after a failed extraction) and zeroes it. */
void hxi_extract_clear(hxi_extract *x);
/* Frees n metadata pairs (each key and value) and the array that holds them. */
void hxi_kv_free(hx_kv *kv, size_t n);
/* The value of the first of n pairs whose key is key, or NULL. */
const char *hxi_kv_get(const hx_kv *kv, size_t n, const char *key);

/* Appends s[0..n) to the open block verbatim (a block of kind PROSE is opened when none is):
 * invalid UTF-8 becomes U+FFFD, harmless controls are dropped (see above). */
int hxi_x_text(hxi_extract *x, const char *s, size_t n, hx_error *err);
/* The same, with each run of white space read as one space and leading space dropped at a block's
 * start: for formats where white space is layout (HTML outside pre, XML text). */
int hxi_x_words(hxi_extract *x, const char *s, size_t n, hx_error *err);
/* Ends the open block (an empty one leaves nothing) and opens one of `kind`. */
int hxi_x_block(hxi_extract *x, hxi_block_kind kind, hx_error *err);
/* Opens a section under a heading of level 1..6 (deeper levels count as 6) whose words are
 * s[0..n) (white space collapsed); the words are a HEADING block. */
int hxi_x_heading(hxi_extract *x, int level, const char *s, size_t n, hx_error *err);
/* The same section without writing its words: for a label the text already holds (a code
 * definition's name, which its own line spells out). */
int hxi_x_section(hxi_extract *x, int level, const char *s, size_t n, hx_error *err);
/* The document's title (white space collapsed, cut at HX_LABEL_MAX bytes); the first call wins. */
int hxi_x_title(hxi_extract *x, const char *s, size_t n, hx_error *err);
/* hxi_x_title, except that a title that only repeats the file's name (x->name), with or without
 * its extension, is no title: "README" for README.html, what pandoc writes as an HTML page's
 * <title> when it knows none. For a format whose title field converters fill so. */
int hxi_x_title_unless_file(hxi_extract *x, const char *s, size_t n, hx_error *err);
/* Text written from now on came from lines (or pages) first..last of the source. */
void hxi_x_source(hxi_extract *x, uint32_t first, uint32_t last);
/* One metadata pair (value white space collapsed, cut at a code point; empty values are skipped). */
int hxi_x_meta(hxi_extract *x, const char *key, const char *value, size_t vlen, hx_error *err);
int hxi_x_meta_uint(hxi_extract *x, const char *key, uint64_t value, hx_error *err);
/* Closes the open block and starts a new unit: the chunker never puts text of two units into one
 * chunk (a long unit is still split by its blocks' kinds). Text before the first call is unit 0. */
int hxi_x_unit(hxi_extract *x, hx_error *err);
/* Adds key=value to the current unit's metadata (same rules as hxi_x_meta). */
int hxi_x_unit_meta(hxi_extract *x, const char *key, const char *value, size_t vlen, hx_error *err);
/* A warning (printf format), kept as metadata "warning". */
int hxi_x_warn(hxi_extract *x, hx_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Closes the open block and records the dropped-controls warning; extractors call it last. */
int hxi_x_finish(hxi_extract *x, hx_error *err);

/* === The table === */

struct hxi_doc_source;
typedef int (*hxi_extract_fn)(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err);
/* Title and metadata a type reads from its own text (Markdown front matter, YAML pairs), after
 * extraction; sets d->title when it finds one. */
typedef int (*hxi_describe_fn)(struct hxi_doc_source *d, hx_error *err);
/* A type's own gate validator: 0 with *rule NULL when it passes; with *rule (static) and why set
 * when it fails; a negative code when the check itself failed (out of memory). */
typedef int (*hxi_check_fn)(const struct hxi_doc_source *d, const char **rule, char *why, size_t why_len,
                            hx_error *err);

/* How the chunker cuts a type's text (chunker.h). */
typedef enum {
    HX_CHUNK_PROSE,            /* paragraphs, then sentences */
    HX_CHUNK_CODE,             /* blocks at blank lines, then lines */
    HX_CHUNK_MARKDOWN,         /* heading sections, then paragraphs, then sentences */
    HX_CHUNK_YAML,             /* top-level keys */
    HX_CHUNK_BLOCKS,           /* the extractor's blocks and heading paths */
} hxi_chunk_style;

typedef struct hxi_magic {
    uint16_t offset;           /* where the bytes must stand in the file */
    uint8_t len;
    bool fold;                 /* ASCII case-insensitive, after leading white space and a UTF-8 BOM */
    const char *bytes;
} hxi_magic;

typedef struct hxi_doctype {
    const char *name;          /* the type's name: documents' `type`, the policy's `types`, filters */
    const char *const *exts;   /* file name extensions (lowercase, no dot), NULL-terminated */
    const char *const *names;  /* whole file names (Makefile), NULL-terminated; may be NULL */
    hxi_magic magic[HX_DOCTYPE_MAX_MAGIC];   /* content signatures; len 0 ends the list */
    bool (*sniff)(const uint8_t *raw, size_t len);   /* content test beyond fixed bytes; may be NULL */
    bool (*sniff_path)(const char *path, const uint8_t *raw, size_t len);   /* the same for a type
                                   whose content counts only in some places (path root-relative):
                                   a Markdown directive; may be NULL */
    hxi_extract_fn extract;     /* bytes -> hxi_extract */
    hxi_describe_fn describe;   /* may be NULL */
    hxi_chunk_style chunk;
    hxi_check_fn check;         /* the type's gate rule; may be NULL */
    hxi_source_unit unit;       /* what its hxi_x_source numbers count: lines (0, the default) or
                                   pages; search reads it by the document's type (hx_result.unit) */
    bool binary;                /* a container or binary format: a reader gets only its extracted
                                   text; false: the file is text a reader also gets as written
                                   (MCP resources/read), so the gate's deny patterns match it too */
} hxi_doctype;

/* The table, in detection order, and its size. */
const hxi_doctype *hxi_doctype_at(size_t i);
size_t hxi_doctype_count(void);
/* The row named `name` (case-sensitive), or NULL. */
const hxi_doctype *hxi_doctype_find(const char *name, size_t len);
/* What the line numbers of a document of type `name` count, as hx_result.unit says it: "page"
 * for a row whose unit is HX_UNIT_PAGE, else "line" (also for NULL or an unknown name). Static. */
const char *hxi_doctype_unit_name(const char *name);
/* The type of a file: the first row whose magic, sniff or sniff_path matches raw[0..len) wins; else the row
 * of the file name's extension (or whole name); else "text". Never NULL. */
const hxi_doctype *hxi_doctype_detect(const char *path, const uint8_t *raw, size_t len);

/* === The document === */

/* A decoded document with its metadata: what ingest builds from a file through its type's row
 * (document.c has the calls below). */
typedef struct hxi_doc_source {
    char *path;            /* relative to the root, '/'-separated; owned */
    char *text;            /* decoded UTF-8, NUL-terminated; owned */
    size_t text_len;
    char *title;           /* owned, never NULL */
    const char *type;      /* static: its row's name */
    const hxi_doctype *dt;  /* static: its row in the table of document types */
    const char *encoding;  /* static: "utf-8", "utf-8-bom", "utf-16le", "utf-16be", "latin-1", or
                              the charset an extractor read ("windows-1252") */
    hxi_block *blocks;      /* owned: the extractor's blocks; n_blocks 0: none */
    size_t n_blocks;
    char **headings;       /* owned: heading paths the blocks point at */
    size_t n_headings;
    hxi_unit *units;        /* owned: the extractor's units (blocks' `unit` index them); n_units
                              0: none (the document is one unit without pairs) */
    size_t n_units;
    hxi_source_unit unit;   /* what blocks' src_first/src_last count: lines or pages */
    uint64_t size;         /* bytes on disk */
    int64_t mtime_ns;
    char sha256[65];       /* hex SHA-256 of the bytes on disk */
    hx_kv *meta;           /* owned array of n_meta entries */
    size_t n_meta;
} hxi_doc_source;

/* Frees everything a document owns and zeroes it. */
void hxi_doc_source_clear(hxi_doc_source *d);
/* Moves a finished extraction's text, encoding and (when d's row chunks by blocks or the
 * extractor made units) its blocks, heading paths and units into d; x keeps its title and
 * metadata for the describing that follows. */
void hxi_doc_take_extract(hxi_doc_source *d, hxi_extract *x);
/* Frees n units (each one's pairs) and the array that holds them. */
void hxi_units_free(hxi_unit *u, size_t n);

/* For describers: adds key = val to d's metadata. Within one source (the pairs from
 * index `from` on) a repeated key gathers its values (a list); a key an earlier source gave (tool
 * arguments before the content) keeps its values and this one is dropped. */
int hxi_doc_meta_add(hxi_doc_source *d, size_t from, const char *key, size_t klen, const char *val, size_t vlen,
                     hx_error *err);
/* Sets d's title to s[0..n) trimmed and cut at HX_LABEL_MAX bytes. */
int hxi_doc_set_title(hxi_doc_source *d, const char *s, size_t n, hx_error *err);
/* Sets d's title, when it has none, to the first non-blank line at or after byte `from` (with
 * skip_comments, lines starting with '#' do not count). */
int hxi_doc_title_from_lines(hxi_doc_source *d, size_t from, bool skip_comments, hx_error *err);

/* Decodes a file's bytes to UTF-8: UTF-8 (with or without BOM), UTF-16 with BOM (unpaired
 * surrogates become U+FFFD), else Latin-1; *encoding (static) names which. *text is owned by the
 * caller (free). A binary file (a NUL byte anywhere, or a U+0000 in UTF-16: decoded text never
 * holds a NUL, so none of it is lost) fails with HX_EFORMAT, err->offset at its first NUL. */
int hxi_doc_decode(const uint8_t *raw, size_t len, char **text, size_t *text_len,
                   const char **encoding, hx_error *err);

#endif
