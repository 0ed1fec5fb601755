/* ix.h: the index layer's in-memory view of one commit and its on-disk records,
 * shared by the folder's files: view.c (reading a view), view_load.c (a commit into a view),
 * index.c (the handle: open, documents, verify), index_write.c (update, remove, compact) and
 * search.c. Everything here lives on top of store.h (the file and its commits), hxfile.h
 * (segments are container images stored as blobs), bm25.h and hnsw.h.
 *
 * Root bytes of a commit (the store's opaque root), encoded with wire.h:
 *   FIELD            ENCODING     DESCRIPTION
 *   magic            8 bytes      "HXINDEX1"
 *   version          u32          IX_VERSION; others are refused by name, but for 1, which is the
 *                                 same without the analyzer and precision fields (its keywords are
 *                                 "exact"), 2, the same without precision (fp32), and 3, the same
 *                                 without the audit ref (an empty audit log)
 *   dim              u32          embedding dimension of the model
 *   model            str          model name (e.g. "all-MiniLM-L6-v2")
 *   analyzer         str          keyword analyzer configuration, hxi_analyzer_name(IX_ANALYZER)
 *                                 ("english"). A reader refuses an index made with another (or
 *                                 layout 1) with a message to reindex; a writer opening one
 *                                 compacts it at once, which rebuilds every BM25 segment from
 *                                 the stored chunk texts (no re-embedding, stored documents kept)
 *   precision        str          hx_precision_name of the vectors' precision ("fp32", "int8"):
 *                                 queries are embedded the same way; a model at another precision
 *                                 is refused at open, and so is a change (a new index is needed)
 *   root             str          absolute path of the indexed root
 *   next_doc         u32          next document id to hand out
 *   next_chunk       u32          next chunk id to hand out (chunk ids are global)
 *   docs             ref          document table blob
 *   tombstones       ref          bitmap blob, one bit per chunk id < next_chunk, 1 = deleted
 *   n_segments       u32          then n_segments refs to segment blobs
 *   audit            ref          the audit log blob (audit.h); length 0: empty (layout 4 on)
 *   writer           str          "hyrax VERSION" (hx_version) of the program that made the commit;
 *                                 written from 0.2.0 on and read when present: a commit of an
 *                                 older program ends at the audit ref (readers ignore what follows
 *                                 it, so this field needs no new layout version)
 *   model_hash       str          hx_model_hash (64 hex digits: SHA-256 of the weights file's header
 *                                 and section table) of the model the commit was made with, the
 *                                 same compatible way after writer; "" when absent (older
 *                                 commits). A model of the same name with another hash is refused
 *                                 (re-converted or altered weights); an absent hash refuses none
 * (str = u32 length + bytes; ref = HX_STORE_REF_SIZE bytes, hxi_store_ref_put.)
 *
 * Document table blob, version 4 (written):
 *   FIELD            ENCODING     DESCRIPTION
 *   magic            8 bytes      "HXDOCS04"
 *   count            u32          documents, then per document, in path order:
 *     id             u32
 *     first_chunk    u32          chunk ids first_chunk .. first_chunk + n_chunks - 1
 *     n_chunks       u32
 *     size           u64          bytes of the file or of the stored content
 *     tokens         u64
 *     mtime_ns       u64          file mtime; for a stored document, when it was stored
 *     indexed_ns     u64
 *     kind           u32          hx_doc_kind: 0 = file-backed, 1 = stored; others are refused
 *     path ... sha256 5 x str     root-relative path (the document's name), title, type,
 *                                 encoding, content hash (hex)
 *     tenant ... signer 3 x str   hx_doc_trust: tenant, owner, signer ("" = none)
 *     visibility     u32          hx_visibility: 0 = public, 1 = tenant, 2 = private; others
 *                                 are refused
 *     n_meta         u32          then n_meta x (str key, str value): the document's own
 *                                 metadata (inherited pairs are derived at load, folder_meta.c);
 *                                 a key given several times is a list, its values in order
 *   n_deleted        u32          then n_deleted x str: root-relative paths of files deleted by
 *                                 request, strictly increasing (bytewise); update leaves them out
 *   n_folder_meta    u32          then n_folder_meta (<= IX_FOLDER_META_MAX) x str: the file names
 *                                 whose metadata the other documents of their folder inherit, in
 *                                 order of precedence (folder_meta.c; each a plain file name)
 * Version 3 ("HXDOCS03", still read, never written): the same without the trust fields (every
 * document public, no tenant, unsigned, whatever its metadata says, until
 * it changes or hyrax index --reindex reads it again).
 * Version 2 ("HXDOCS02", still read, never written): the same without the folder_meta list
 * (IX_FOLDER_META applies), with every key once (older hyrax kept no lists). Version 1 ("HXDOCS01", still read, never
 * written): the same without kind (every document is file-backed) and without the deleted list
 * (empty). Readers of version 2 refuse version 3, which keeps them from showing a list as
 * repeated keys.
 *
 * Segment blob: an hxfile image of kind HXF_KIND_SEGMENT holding chunks base .. base + n - 1:
 *   SECTION    DTYPE  SHAPE     DESCRIPTION
 *   info       u32    [4]       base chunk id, n, dim, reserved 0
 *   chunks     u32    [n, 8]    doc id, chunk index, byte start, byte end, line start, line end,
 *                               tokens, body offset (within the chunk text)
 *   text_off   u32    [n + 1]   chunk i's text is text[text_off[i] .. text_off[i + 1])
 *   text       raw              chunk texts: contextual header, "\n", body
 *   head_off   u32    [n + 1]   same for heading paths
 *   heads      raw              heading paths, each followed by a NUL
 *   vectors    f32    [n, dim]  L2-normalised embeddings, chunk order
 *   bm25       raw              hxi_bm25 segment over chunk texts, doc id = chunk id (if n > 0),
 *                               the contextual header its header field, the body its body;
 *                               analyzed with IX_ANALYZER (its header says so; checked at open);
 *                               an older BM25 format is refused to readers with a message to
 *                               reindex and rebuilt by the writer, as another analyzer is,
 *                               except "english" (before Unicode words): readers search it with
 *                               that analysis, the writer rebuilds it
 *   hnsw       raw              hxi_hnsw graph over vectors, node i = chunk base + i (if n > 0)
 *   lines_at   u32    [n + 1, 2] chunk i's line prints are line_prints[lines_at[i][0] ..
 *                               lines_at[i + 1][0]); lines_at[i][1] is its body's letters (boiler.c
 *                               ix_line_prints), row n is (m, 0)
 *   line_prints u32   [m, 3]    each printed line of the bodies, in order: its print's low and
 *                               high 32 bits (never 0) and its letters (>= 1, their sum within its
 *                               chunk's). Both absent from segments written before them, whose
 *                               prints readers compute from their text (compaction writes them);
 *                               older segments may hold a "fingerprints" section (a whole body's
 *                               print), which readers ignore
 *   unit_off   u32    [n + 1]   chunk i's unit pairs (doctype.h "units": a code file's definition,
 *                               a model's element) are unit_meta[unit_off[i] .. unit_off[i + 1])
 *   unit_meta  raw              the pairs, each key NUL value NUL, in the unit's order (a repeated
 *                               key is a list); keys 1..HX_YAML_KEY_MAX bytes, at most HX_META_MAX
 *                               pairs a chunk. Both sections are absent from a segment none of
 *                               whose chunks has pairs, and from segments written before units:
 *                               their chunks have none (no new layout version; chunk_meta.c)
 *   embed_keys u8     [n, 16]   each chunk's embedding key (reuse.c): the first 16 bytes of the
 *                               SHA-256 of "hyrax embedding key 1", the model's name, weights hash
 *                               and precision name (each with its NUL) and the chunk's text;
 *                               16 zero bytes: unknown. A later write reuses the vector of a chunk
 *                               whose key it would embed. Absent from segments written before it,
 *                               whose vectors are never reused (compaction carries keys over)
 *
 * ix_view_load checks every range and id before anything reads them, so search and the tools
 * trust them: offsets ascend within their sections (each heading ends with its NUL); a chunk's
 * body offset is within its text and its body is exactly byte end - byte start long (byte start
 * <= byte end <= HX_INGEST_MAX_GROWTH x its document's size); lines are 1-based with start <= end;
 * BM25 doc ids and graph node labels are the segment's chunk ids; segments do not overlap; a
 * document's chunks are live, name it and are numbered 0.. in order; every live chunk lies in
 * the chunk range of the document it names.
 */
#ifndef HX_INDEX_INTERNAL_H
#define HX_INDEX_INTERNAL_H

#include "analyzer.h"
#include "bm25.h"
#include "hnsw.h"
#include "hxfile.h"
#include "hyrax.h"
#include "store.h"

#include <stdbool.h>

#define IX_MAGIC "HXINDEX1"
#define IX_DOCS_MAGIC "HXDOCS04"     /* written; IX_DOCS_MAGIC_V3, _V2 and _V1 are read too */
#define IX_DOCS_MAGIC_V3 "HXDOCS03"
#define IX_DOCS_MAGIC_V2 "HXDOCS02"
#define IX_DOCS_MAGIC_V1 "HXDOCS01"
#define IX_VERSION 4
#define IX_ANALYZER HX_ANALYZER_ENGLISH  /* the keyword analysis of every index this build writes */
/* How a refusal of stale keywords (another analyzer, an older BM25 format) ends. */
#define IX_REINDEX_HINT \
    "reindex it (run hyrax index; the first write rebuilds its keyword index in place, stored documents included)"

#define IX_CHUNK_FIELDS 8
#define IX_STR_MAX (1u << 24)       /* longest string the tables accept */
#define IX_META_MAX 1024            /* most metadata pairs one document may carry */

#define IX_MODEL_NAME_MAX 64      /* model name bytes + NUL */
#define IX_WRITER_MAX 64          /* writer field bytes + NUL */
#define IX_MODEL_HASH_MAX 65      /* model_hash field bytes + NUL */

/* A root record decoded by ix_root_decode: strings point into the root (not NUL-terminated); the
 * references stay where they are, at byte offsets into the root, so compaction can rewrite them
 * in a copy and leave every other byte as it was. */
typedef struct ix_root {
    uint32_t version, dim, next_doc, next_chunk, n_segs;
    const char *model, *analyzer, *precision, *root, *writer;   /* writer: "" before 0.2.0 */
    const char *model_hash;    /* "" in a commit without it */
    uint32_t model_len, analyzer_len, precision_len, root_len, writer_len, model_hash_len;
    size_t docs_at;            /* the docs ref, then the tombstones ref */
    size_t segs_at;            /* n_segs refs */
    size_t audit_at;           /* the audit ref; 0 for layouts before 4, which have none */
} ix_root;

typedef struct ix_doc {
    hx_doc_info info;          /* strings point into the view's arena or the docs blob copy;
                                  info.meta is own + inherited (folder_meta.c) */
    const hx_kv *own;          /* the document's own pairs, as stored: what a writer writes back */
    size_t n_own;
    bool hidden;               /* the handle's identity may not read it (hx_doc_visible) */
} ix_doc;

typedef struct ix_segment {
    hxi_store_ref ref;
    hxf_view file;             /* sections borrow the store map */
    uint32_t base, n;
    const hxf_section *chunks, *text_off, *text, *head_off, *heads, *vectors;
    const hxf_section *lines_at, *line_prints;   /* the bodies' line prints; NULL in a segment
                                                    written before them */
    const hxf_section *keys;   /* the embedding keys; NULL in a segment written before them */
    hx_kv *unit_kv;            /* owned: the chunks' unit pairs, strings in the map (chunk_meta.c);
                                  NULL when the segment has none */
    uint32_t *unit_kv_at;      /* owned: chunk i's pairs are unit_kv[unit_kv_at[i] .. unit_kv_at[i + 1]) */
    hxi_bm25_reader bm25;       /* valid when n > 0 */
    uint64_t bm25_live_docs;   /* with tombstones: live chunks and their BM25 length */
    uint64_t bm25_live_len;
    hxi_hnsw_view *hnsw;        /* owned; NULL when n == 0 */
} ix_segment;

/* Everything read from one commit; rebuilt on refresh. */
/* A definition a declaration may answer for (ix_definition_of): a function or method chunk. */
typedef struct ix_def {
    const char *symbol;        /* borrowed from its segment's unit pairs */
    uint32_t doc;              /* its document's position in the view's docs */
    uint32_t chunk;
} ix_def;

typedef struct ix_view {
    uint32_t next_doc, next_chunk;
    hxi_store_ref docs_ref, tomb_ref;
    hxi_store_ref audit_ref;    /* the audit log blob; length 0: none (audit.h) */
    ix_doc *docs;              /* owned; sorted by path */
    size_t n_docs;
    uint32_t *by_id;           /* owned; indexes into docs, sorted by doc id */
    hx_kv *meta;               /* owned; all documents' metadata pairs */
    hx_kv *merged;             /* owned; each document's own and inherited pairs (strings in meta's) */
    const char **deleted;      /* owned array; strings in `strings`: files deleted by request, sorted */
    size_t n_deleted;
    const char **folder_meta;  /* owned array (IX_FOLDER_META_MAX); strings in `strings` or static */
    size_t n_folder_meta;
    char *strings;             /* owned; NUL-terminated copies of every table string */
    ix_segment *segs;          /* owned */
    size_t n_segs;
    uint8_t *tomb;             /* owned; (next_chunk + 7) / 8 bytes */
    uint64_t n_tomb;
    /* What the handle's identity may read (ix_view_visibility); all NULL / 0 without one. When
     * restricted and visible_chunks is NULL (out of memory), nothing may be read. */
    bool restricted;
    uint32_t *visible;         /* owned; positions in docs of the documents it sees, path order */
    size_t n_visible;
    uint8_t *visible_chunks;   /* owned; (next_chunk + 7) / 8 + 1 bytes, 1 = a chunk of such a document */
    uint64_t n_visible_chunks;
    uint8_t *repeated;         /* owned; next_chunk bytes: each chunk's boilerplate share x 255 (boiler.c) */
    size_t *line_at;           /* owned; next_chunk + 1: chunk id's printed lines are the view's
                                  lines line_at[id] .. line_at[id + 1] - 1, in order */
    uint8_t *line_rep;         /* owned; one bit a printed line of the view: 1 = boilerplate */
    ix_def *defs;              /* owned; n_defs: the function and method chunks of the C family's
                                  documents (ix_view_definitions), by symbol, then document, then chunk */
    size_t n_defs;
    uint32_t *def_slot;        /* owned; def_cap (a power of two) slots: 1 + a symbol's first place
                                  in defs, 0 = empty */
    size_t def_cap;
} ix_view;

/* Sets v->defs and v->def_slot, the view's table of definitions by symbol (chunk_meta.c); 0 or HX_ENOMEM. */
int ix_view_definitions(ix_view *v, hx_error *err);

/* Sets v->repeated, each chunk's boilerplate share (boiler.c); 0 or HX_ENOMEM. */
int ix_view_repeats(ix_view *v, hx_error *err);

/* One printed line of a chunk body (boiler.c). */
typedef struct ix_line_print {
    uint64_t print;            /* never 0 */
    uint32_t letters;
} ix_line_print;
/* The prints of body[0..len)'s printed lines (boiler.c: enough letters, not the title that the
 * heading path heading[0..hl) ends with), the first cap of them into out (NULL when cap is 0);
 * returns how many it has, and the body's letters in *letters. */
size_t ix_line_prints(const char *body, size_t len, const char *heading, size_t hl, ix_line_print *out, size_t cap,
                      uint32_t *letters);

/* A word of a query, lowercased (its bytes borrowed). */
typedef struct ix_word {
    const char *s;
    size_t n;
} ix_word;
/* The repeat cut of chunk id (boiler.c) for a query whose words are w[0..n_w) (the first 64 count):
 * of those found where a word of its body starts, the share found only in its boilerplate lines;
 * with none found, or no words, 1 for a chunk nearly all boilerplate, else 0. */
float ix_repeat_cut(const ix_view *v, uint32_t id, const ix_word *w, size_t n_w);

struct hx_index {
    hxi_store *store;
    bool writer;
    const hx_model *model;     /* borrowed; may be NULL */
    char *path;                /* owned: the index file */
    char *root;                /* owned: the indexed root */
    char model_name[IX_MODEL_NAME_MAX];
    char made_by[IX_WRITER_MAX]; /* the view's commit's writer field, "" when it has none */
    char model_hash[IX_MODEL_HASH_MAX]; /* the view's commit's model_hash, "" when it has none */
    uint32_t dim;
    hx_precision precision;    /* of the vectors (the root's precision field) */
    uint32_t analyzer;         /* keyword analysis of the open commit: IX_ANALYZER, or for a reader of an
                                  index from before Unicode words HX_ANALYZER_ENGLISH_ASCII */
    bool precision_only;       /* opened by hx_index_precision: stale keywords are no refusal */
    bool stale_keywords;       /* the commit's keywords were made with another analyzer or an
                                  older BM25 format (writer only: hx_index_open compacts before
                                  anything else runs) */
    hx_commit_info at;         /* the commit a read context pinned the view to (hx_index_read_at);
                                  generation 0: the view follows the head */
    bool has_identity;         /* hx_index_set_identity was called: every read is filtered */
    hx_identity identity;      /* its strings owned (user "" when none); NULL when the copy failed
                                  (the handle then sees nothing) */
    ix_view v;
};

/* Folder metadata: the documents of a folder inherit the metadata pairs of the folder's files
 * (file-backed documents, never stored ones) named in the view's folder_meta list (the document
 * table's; IX_FOLDER_META for an index that has none), in that order, under keys they do not
 * have themselves (own keys win; the first file wins over the second). Derived at view load
 * (folder_meta.c), never stored per document: re-indexing a changed kep.yaml changes what its
 * folder's documents carry, and removing it takes that away. hx_update_opts.folder_meta changes
 * the list. */
#define IX_FOLDER_META "kep.yaml", "README.md"
#define IX_FOLDER_META_MAX 8
/* Fills info.meta of every document of v (own + inherited) and ix_doc.own; after load. */
int ix_inherit_meta(ix_view *v, hx_error *err);
/* The default list into v->folder_meta (room for IX_FOLDER_META_MAX). */
void ix_folder_meta_default(ix_view *v);
/* Whether name can be a folder metadata file: a plain file name (no '/', not "." or "..", at
 * most HX_RELPATH_NAME_MAX bytes, not empty). */
bool ix_folder_meta_name_ok(const char *name);

/* view_load.c */
/* Decodes and bounds-checks a root record (the layout above); HX_EFORMAT / HX_EVERSION. */
int ix_root_decode(const uint8_t *root, size_t len, ix_root *out, hx_error *err);
/* Loads the view of the head, or of ix->at when a read context pinned one. */
int ix_view_load(hx_index *ix, hx_error *err);
void ix_view_free(ix_view *v);
/* Marks the documents of ix's view that its identity may not read and fills the view's visible
 * lists; nothing without an identity. Called by ix_view_load and hx_index_set_identity. */
int ix_view_visibility(hx_index *ix, hx_error *err);

/* view.c */
const ix_segment *ix_segment_of(const ix_view *v, uint32_t chunk_id);
const ix_doc *ix_doc_by_id(const ix_view *v, uint32_t id);
const ix_doc *ix_doc_by_path(const ix_view *v, const char *path);
/* Whether s is among the n strings of v, sorted bytewise (strcmp). */
bool ix_sorted_has(const char *const *v, size_t n, const char *s);
bool ix_deleted_by_request(const ix_view *v, const char *path);   /* path is in v->deleted */
static inline bool ix_is_deleted(const ix_view *v, uint32_t chunk_id)
{
    return chunk_id >= v->next_chunk || (v->tomb[chunk_id / 8] >> (chunk_id % 8) & 1);
}
/* ix_is_deleted as an hxi_bm25_pred over a const ix_view *. */
int ix_bm25_deleted(void *view, uint32_t chunk_id);
uint32_t ix_chunk_field(const ix_segment *s, uint32_t chunk_id, int field);
/* Chunk text (header + "\n" + body, not NUL-terminated) and heading path (NUL-terminated);
 * borrowed from the map. */
const char *ix_chunk_text(const ix_segment *s, uint32_t chunk_id, size_t *len);
const char *ix_chunk_heading(const ix_segment *s, uint32_t chunk_id, size_t *len);
const float *ix_chunk_vector(const ix_segment *s, uint32_t chunk_id);

/* reuse.c: vectors reused by their embedding keys (the embed_keys section above). */
#define IX_EMBED_KEY 16
/* The key of text[0..len) embedded by model m. */
void ix_embed_key(const hx_model *m, const char *text, size_t len, uint8_t key[IX_EMBED_KEY]);
enum { IX_EMBED = -1, IX_REUSED = -2 };
/* Plans the embedding of n pending chunks with keys[i * IX_EMBED_KEY]: from[i] = IX_REUSED when
 * vecs[i * dim] was filled from a chunk of view v with that key (one the handle's identity may
 * read, when it has one), j < i when pending chunk j has
 * the same key (copy its vector once made), IX_EMBED when it must be embedded. */
int ix_reuse_plan(const ix_view *v, const uint8_t *keys, size_t n, uint32_t dim, float *vecs, int64_t *from,
                  hx_error *err);

/* chunk_meta.c: chunks' unit pairs (the unit_off and unit_meta sections above). */
/* Reads and checks a loaded segment's pairs into s->unit_kv (nothing when it has none). */
int ix_unit_meta_load(ix_segment *s, hx_error *err);
void ix_unit_meta_free(ix_segment *s);
/* The pairs of chunk chunk_id of segment s (*n 0 and NULL when it has none); borrowed from the view. */
const hx_kv *ix_chunk_meta(const ix_segment *s, uint32_t chunk_id, size_t *n);
/* Appends the two sections for chunks' pairs (meta[i], n_meta[i] of chunk i, n chunks) to an
 * open segment writer; nothing when no chunk has pairs. */
int ix_unit_meta_write(hxf_writer *w, const hx_kv *const *meta, const size_t *n_meta, size_t n, hx_error *err);
/* Whether chunk c's unit is a declaration with a symbol (code.h HXI_DEF_DECLARATION). */
bool ix_chunk_declares(const ix_view *v, uint32_t c);
/* Where chunk decl, when its unit is a declaration (code.h HXI_DEF_DECLARATION: a C or C++
 * prototype), finds its definition: the first chunk `allowed` accepts of a unit of the same
 * `symbol` and kind function or method (never a `struct stat`), in a document of the C family
 * (hxi_code_lang_declares), the declaration's own document first, then a file of its name's stem
 * (ed25519.h, ed25519.c), else the only document that defines it. UINT32_MAX: none, or not a
 * declaration. */
uint32_t ix_definition_of(const ix_view *v, uint32_t decl, bool (*allowed)(uint32_t id, void *ctx), void *ctx);

/* The root record for the writer to commit. */
int ix_encode_root(const hx_index *ix, uint32_t next_doc, uint32_t next_chunk, hxi_store_ref docs,
                   hxi_store_ref tomb, const hxi_store_ref *segs, size_t n_segs, hxi_store_ref audit,
                   uint8_t **out, size_t *len, hx_error *err);

enum { IX_F_DOC, IX_F_INDEX, IX_F_BYTE_START, IX_F_BYTE_END, IX_F_LINE_START, IX_F_LINE_END,
       IX_F_TOKENS, IX_F_BODY };

#endif
