/* hyrax.h: the one public header of hyrax, a local hybrid-search engine (MiniLM embeddings, HNSW,
 * BM25, reciprocal rank fusion, one crash-safe index file). Every public name is hx_<noun>_<verb>;
 * module internals live in src/<module>.h and are not part of this API. See ../shared/DESIGN.md.
 *
 * Conventions (STYLE.md): functions return 0 or a negative HX_E* code; details go into a
 * caller-supplied hx_error (which may be NULL). Ownership is stated at each declaration. */
#ifndef HYRAX_H
#define HYRAX_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* === Version and linkage === */

/* The version of this header; hx_version() gives the library's, which a program linked with the
 * shared library can compare (the major version is the soname's: libhyrax.so.MAJOR). */
#define HX_VERSION_MAJOR 0
#define HX_VERSION_MINOR 2
#define HX_VERSION_PATCH 0
#define HX_VERSION_STRING "0.2.0"
#define HX_VERSION_NUMBER (HX_VERSION_MAJOR * 1000000 + HX_VERSION_MINOR * 1000 + HX_VERSION_PATCH)

/* Marks the names of this header: the library is built with -fvisibility=hidden, so these are
 * the only names libhyrax.so exports (checked by tests/exports.sh). */
#if defined(HX_BUILDING_LIBRARY) && defined(__GNUC__)
#define HX_API __attribute__((visibility("default")))
#else
#define HX_API
#endif

/* HX_VERSION_STRING of the library the program runs with; a static string. */
HX_API const char *hx_version(void);

/* === Errors === */

/* Negative codes in a reserved range, in the manner of LMDB. hx_strerror names each one. */
enum {
    HX_OK = 0,
    HX_ENOMEM = -30001,     /* allocation failed */
    HX_EIO = -30002,        /* read, write, mmap, fsync or rename failed (errno in the message) */
    HX_EINVAL = -30003,     /* bad argument from the caller */
    HX_EFORMAT = -30004,    /* file or input is not in the expected format (bad magic, bad layout) */
    HX_EVERSION = -30005,   /* file format version this build does not know */
    HX_ECHECKSUM = -30006,  /* stored checksum does not match the data */
    HX_ETRUNCATED = -30007, /* file or input ends before its declared end */
    HX_ERANGE = -30008,     /* a value or size is outside what is allowed */
    HX_ENOTFOUND = -30009,  /* named thing does not exist */
    HX_EBUSY = -30010,      /* another writer holds the lock */
    HX_EPARSE = -30011,     /* syntax error in text input (JSON, query, front matter) */
    HX_EDEPTH = -30012,     /* nesting deeper than the parser allows */
    HX_EUTF8 = -30013,      /* invalid UTF-8 where valid UTF-8 is required */
    HX_ECANCELED = -30014,  /* operation stopped on request */
    HX_EPERM = -30015,      /* path or operation not allowed (outside root, read-only) */
    HX_ECHANGED = -30016,   /* an index file changed underneath a reader (truncated or overwritten
                               while it was read); a session reopens its readers on the next call */
};

/* Error details. `offset` is a byte position in the input or file, or -1 when none applies. */
typedef struct hx_error {
    int code;
    int64_t offset;
    char message[256];
} hx_error;

/* Static string naming `code`; never NULL. */
HX_API const char *hx_strerror(int code);

/* Fills `err` (if not NULL) with code, offset and a printf-style message; returns `code`, so
 * callers write `return hx_error_set(err, HX_EFORMAT, off, "...", ...);`. */
HX_API int hx_error_set(hx_error *err, int code, int64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* === Memory and machine === */

/* The library's allocator, which every allocation in hyrax and its surfaces goes through so a test
 * can fail the n-th one (as sqlite3_malloc). Memory is released with plain free(). */
HX_API void *hx_malloc(size_t size);
HX_API void *hx_calloc(size_t n, size_t size); /* NULL also when n * size overflows */
HX_API void *hx_realloc(void *p, size_t size); /* on failure p is untouched and still owned */
HX_API char *hx_strdup(const char *s);
HX_API char *hx_strndup(const char *s, size_t n);
/* Makes *p (an array of *cap elements of `elem` bytes, or NULL with *cap 0) hold at least `need`
 * elements, growing geometrically. Returns 0, or HX_ENOMEM (err filled when not NULL) when the
 * allocation fails or the size overflows; *p and *cap are unchanged then. */
HX_API int hx_grow(void **p, size_t *cap, size_t need, size_t elem, hx_error *err);

/* Online CPUs, at least 1: what "one per core" means wherever a thread count defaults to it. */
HX_API int hx_platform_cpus(void);
/* Absolute path of the running executable into buf (cap bytes): 0, or HX_ENOTFOUND when the
 * system does not tell (or the path does not fit). */
HX_API int hx_platform_exe_path(char *buf, size_t cap);

/* === Model and tokenizer === */

#define HX_EMBED_DIM_MAX 4096  /* the largest dimension of any model this build opens (hx_model_dim) */
#define HX_MAX_SEQ_TOKENS 256  /* sentence-transformers max_seq_length, [CLS] and [SEP] included */
#define HX_WEIGHTS_FILE "all-minilm-l6-v2.hxw"

/* The weights file, mapped read-only and validated (every checksum) at open; weights are
 * converted and packed for the selected kernels once, here, and the packed block is kept in a
 * cache file that later opens map instead (README "Models": $HYRAX_CACHE; they then check the
 * cache's checksum in place of the packed matrices'). Read-only afterwards, so one model may serve
 * many encoders. Caller frees with hx_model_close. */
typedef struct hx_model hx_model;
HX_API int hx_model_open(hx_model **out, const char *path, hx_error *err);
HX_API void hx_model_close(hx_model *m);
HX_API int hx_model_dim(const hx_model *m);                      /* embedding dimension (hx_model_info.dim) */
HX_API const char *hx_model_name(const hx_model *m);             /* "all-MiniLM-L6-v2"; borrowed */
/* The weights' digest, 64 hex digits: SHA-256 of the file's 64-byte header and its section table
 * (src/base/hxfile.h), which holds every section's shape and CRC32C, so a re-converted or altered
 * weights file differs; computed at open over a few KB, not the whole file. Borrowed. */
HX_API const char *hx_model_hash(const hx_model *m);
/* Word pieces of text[0..len) as the model's tokenizer (BERT uncased WordPiece) cuts them,
 * without [CLS] and [SEP]. Never fails; invalid UTF-8 reads as removed characters. */
HX_API size_t hx_model_count_tokens(const hx_model *m, const char *text, size_t len);
/* The longest input the model takes, in ids, [CLS] and [SEP] included: 256 for all-MiniLM-L6-v2
 * (HX_MAX_SEQ_TOKENS), 384 for all-mpnet-base-v2; at most 512. */
HX_API int hx_model_max_tokens(const hx_model *m);
/* The model's input ids for text: [CLS], the pieces truncated to max_ids - 2, [SEP] (ids holds
 * max_ids). Returns how many were written (0 when max_ids < 2). */
HX_API size_t hx_model_input_ids(const hx_model *m, const char *text, size_t len, int32_t *ids, size_t max_ids);

/* Numeric precision of the encoder. FP32 (the default) gives sentence-transformers' vectors (cosine
 * >= 0.9999). INT8 quantizes the Linear layers' weights per output channel at open and their
 * inputs per token at run time to unsigned 8 bits (src/model/kernels.h "int8"), with exact integer
 * dot products (VNNI and AMX where the CPU has them; the same vectors, bit for bit, on every CPU,
 * where FP32's may differ in their last bits): 2.3x as fast on
 * AVX512-VNNI, with vectors at cosine >= 0.995 to FP32's. An index records the precision its
 * vectors were made with, and queries must be embedded the same way (hx_index_open checks). */
typedef enum hx_precision { HX_PRECISION_FP32 = 0, HX_PRECISION_INT8 = 1 } hx_precision;
HX_API const char *hx_precision_name(hx_precision p);   /* "fp32", "int8"; static */
/* Parses "fp32" or "int8" into *out; HX_EINVAL with a message naming the choices otherwise. */
HX_API int hx_precision_parse(const char *s, hx_precision *out, hx_error *err);

typedef struct hx_model_opts {
    const char *path;          /* a model's name ("mpnet", "all-mpnet-base-v2": hx_model_find) or its
                                  weights file; NULL = as hx_model_open_default finds it */
    hx_precision precision;
} hx_model_opts;
/* Opens a model as hx_model_open / hx_model_open_default do, at o->precision (o NULL: defaults). */
HX_API int hx_model_open_opts(hx_model **out, const hx_model_opts *o, hx_error *err);
HX_API hx_precision hx_model_precision(const hx_model *m);

/* Finds the weights file: $HYRAX_WEIGHTS, else weights/HX_WEIGHTS_FILE beside the executable
 * or one folder above it, else share/hyrax/ one folder above it (`make install`), else
 * share/hyrax/ one folder above the shared library (an installed libhyrax.so), else
 * /usr/local/share/hyrax/ or /usr/share/hyrax/. Writes the path into buf. */
HX_API int hx_model_default_path(char *buf, size_t cap, hx_error *err);

/* === Models by name ===
 * hyrax knows these models (`hyrax models`): all-MiniLM-L6-v2 ("minilm", the default, 384
 * dimensions, committed in weights/ and linked in by `make static`) and all-mpnet-base-v2
 * ("mpnet", 768 dimensions, fetched by `make mpnet`). A weights file states its architecture,
 * dimension and tokenizer; an index records the model it was built with and refuses another. */
typedef struct hx_model_info {
    const char *alias;                 /* "minilm", "mpnet"; static */
    const char *name;                  /* "all-MiniLM-L6-v2" as hx_model_name says it; static */
    const char *file;                  /* its weights file's name; static */
    const char *about;                 /* what it is for; static */
    int dim;                           /* embedding dimension */
    bool built_in;                     /* linked into this binary (`make static`) */
    char path[4096];                   /* where its weights file is, "" when none is found */
} hx_model_info;
HX_API size_t hx_model_catalog_size(void);
/* Row i (< hx_model_catalog_size()) of the catalog into *out, with where it is installed. */
HX_API int hx_model_catalog(size_t i, hx_model_info *out);
/* The weights file of a model name (alias or name, any case) into buf: its file name beside
 * $HYRAX_WEIGHTS, else in the places hx_model_default_path searches ("(built in)" for the default
 * model of a static binary); anything else is taken as a file path and copied. HX_ENOTFOUND,
 * saying how to get it, for a known model that is not installed. */
HX_API int hx_model_find(const char *name_or_file, char *buf, size_t cap, hx_error *err);
/* The catalog's alias ("mpnet") of a model name ("all-mpnet-base-v2"), or NULL when unknown. */
HX_API const char *hx_model_alias(const char *name);

/* Opens the default model: $HYRAX_WEIGHTS when set, else the weights linked into the binary
 * (`make static`), else the file hx_model_default_path finds. Caller frees with hx_model_close. */
HX_API int hx_model_open_default(hx_model **out, hx_error *err);

/* An encoder: run state for batches (buffers allocated once) plus a pool of n_threads workers
 * (0 = one per core). Not thread-safe: one caller at a time per encoder. Caller frees with
 * hx_encoder_free; the model must outlive it. */
typedef struct hx_encoder hx_encoder;
HX_API int hx_encoder_new(hx_encoder **out, const hx_model *m, int n_threads, hx_error *err);
HX_API void hx_encoder_free(hx_encoder *e);
HX_API const hx_model *hx_encoder_model(const hx_encoder *e);   /* the model it runs; borrowed */

/* Embeds n texts into out[n * dim], L2-normalised, exactly as sentence-transformers would
 * (truncated to the model's maximum input: 256 word pieces for MiniLM, 384 for MPNet). Any batch
 * size; sorted by length internally. */
HX_API int hx_encoder_embed(hx_encoder *e, const char *const *texts, const size_t *lens, size_t n,
                            float *out, hx_error *err);

/* Same from token ids that already include the model's start and end tokens (lens[i] at most the
 * model's maximum input). */
HX_API int hx_encoder_embed_ids(hx_encoder *e, const int32_t *const *ids, const size_t *lens, size_t n,
                                float *out, hx_error *err);

/* === Index === */

/* One index file (DESIGN.md "One file format"): documents, chunks, vectors, BM25 postings and
 * HNSW graphs in segments, committed atomically. A handle is either a reader (any number, each
 * sees the last commit and picks up new ones with hx_index_refresh) or the one writer (advisory
 * lock; a second writer gets HX_EBUSY). A handle is used by one thread at a time.
 * Caller frees with hx_index_close. */
typedef struct hx_index hx_index;

/* HX_INDEX_RECOVER (with HX_INDEX_WRITE): open a damaged file anyway, keeping the newest commit
 * that can be proven and discarding what lies past it (`hyrax recover`). Without it a writer
 * refuses such a file rather than destroy bytes it cannot account for. */
enum { HX_INDEX_READ = 0, HX_INDEX_WRITE = 1, HX_INDEX_CREATE = 2, HX_INDEX_RECOVER = 4 };

typedef struct hx_kv {
    char *key;     /* owned by whatever holds the hx_kv */
    char *value;
} hx_kv;
#define HX_META_MAX 256   /* metadata entries kept per document (a list item is one entry) */

/* Opens path. `model` (borrowed; may be NULL for keyword-only readers) must be the model the
 * index was built with; its name, dimension and precision are checked against the index (a new
 * index records the model's precision; HX_EINVAL for a model at another precision, so open the
 * model at hx_index_precision's answer). `root` is the
 * indexed root (absolute, resolved): required with HX_INDEX_CREATE for a new file, ignored
 * otherwise (the root is recorded in the index). A reader (HX_INDEX_READ) never writes the file
 * (it may be read-only): it reads segments of an older layout as they are, or refuses with
 * HX_EVERSION and a hint to reindex those it cannot read; a writer's open upgrades them. */
HX_API int hx_index_open(hx_index **out, const char *path, unsigned flags, const hx_model *model,
                         const char *root, hx_error *err);
HX_API void hx_index_close(hx_index *ix);

/* The precision the index at path records for its vectors (a reader's open, then close):
 * HX_ENOTFOUND when there is no index there or it has no commit yet. */
HX_API int hx_index_precision(const char *path, hx_precision *out, hx_error *err);

/* Picks up commits made by the writer since open or the last refresh and returns a view pinned
 * by hx_index_read_at to the head: 1 when the view changed (pointers borrowed from the index are
 * then invalid), 0 when not, or a negative code. */
HX_API int hx_index_refresh(hx_index *ix, hx_error *err);

HX_API const char *hx_index_root(const hx_index *ix);    /* borrowed until close */

/* What opening (or the last refresh) found damaged in the file -- a meta slot, the newest commit
 * record, a truncation -- and which generation it took instead; "" when the file is sound. For a
 * writer: what it repaired at open. Borrowed until the next refresh or close. hx_index_verify
 * fails with this message while the damage is in the file. */
HX_API const char *hx_index_damage(const hx_index *ix);

typedef struct hx_index_stats {
    uint64_t documents, chunks, live_chunks, segments, tombstones, tokens;   /* with a reader identity
                                          (hx_index_set_identity), documents, chunks, live_chunks and
                                          tokens count what it sees; the others describe the file */
    uint64_t file_bytes, generation;   /* generation: the commit the view shows (hx_index_read_at) */
    int64_t committed_ns;              /* time of that commit, unix nanoseconds */
    char model[64];
    char model_hash[65];               /* hx_model_hash of the weights the commit was made with; ""
                                          for commits made before hyrax recorded it */
    char writer[64];                   /* "hyrax 0.2.0": the program that made the commit the view
                                          shows (hx_version); "" for commits made before 0.2.0 */
    int dim;
    hx_precision precision;            /* of the vectors; queries are embedded the same way */
} hx_index_stats;
HX_API int hx_index_stats_get(hx_index *ix, hx_index_stats *st, hx_error *err);

/* Checks every checksum of the index file and the consistency of its tables. */
HX_API int hx_index_verify(hx_index *ix, hx_error *err);

/* === Point-in-time reads (`hyrax help baselines`; seed 001 section 5.2) === */

/* Which commit a read sees: the head (the last commit, the default everywhere), the newest commit
 * named HX_PUBLISHED, the newest commit with a given name (a baseline), or the newest commit made
 * at or before a time. */
typedef enum { HX_READ_HEAD = 0, HX_READ_PUBLISHED = 1, HX_READ_BASELINE = 2, HX_READ_AS_OF = 3 } hx_read_selector;
HX_API extern const char *const hx_read_selector_names[];   /* "head", "published", "baseline_id", "as_of", NULL */
#define HX_PUBLISHED "published"
#define HX_BASELINE_NAME_MAX 64   /* bytes of a baseline name */

typedef struct hx_read_context {
    hx_read_selector selector;
    const char *baseline_id;           /* HX_READ_BASELINE: the name (borrowed) */
    int64_t as_of_ns;                  /* HX_READ_AS_OF: unix nanoseconds */
} hx_read_context;

/* One commit of an index file. */
typedef struct hx_commit_info {
    uint64_t generation;
    int64_t committed_ns;              /* unix nanoseconds */
    char name[HX_BASELINE_NAME_MAX + 1];   /* "" when unnamed */
} hx_commit_info;

/* What a read took: the selector asked for, the time asked (HX_READ_AS_OF, else 0) and the commit. */
typedef struct hx_read_taken {
    hx_read_selector selector;
    int64_t as_of_ns;
    hx_commit_info commit;
} hx_read_taken;

/* Picks up new commits (as hx_index_refresh) and points the reader's view at the commit `ctx`
 * selects (NULL = head); *taken (may be NULL) says which. Lookups, search and documents then
 * answer from that commit until the next call or refresh (a refresh returns to the head).
 * HX_ENOTFOUND with a message saying what is kept (the oldest commit and the baseline names) when
 * no kept commit matches: no commit named so, HX_PUBLISHED never named, or a time older than the
 * oldest kept commit. A writer reads only the head (HX_EPERM otherwise). On failure the view is
 * back at the head (or, when even that fails, the call's error stands and the handle needs a
 * refresh). The one function behind --as-of / --baseline and every MCP read_context. */
HX_API int hx_index_read_at(hx_index *ix, const hx_read_context *ctx, hx_read_taken *taken, hx_error *err);

/* Commits the current state under a name (a baseline; no data is copied): 1..HX_BASELINE_NAME_MAX
 * bytes of letters, digits and . _ : - (HX_EINVAL otherwise). Naming again moves the name: the
 * newest commit of a name is the one read. Writer handles only. *made (may be NULL) gets it. */
HX_API int hx_index_baseline(hx_index *ix, const char *name, hx_commit_info *made, hx_error *err);

/* The commits the file keeps, newest first (compaction keeps the newest of each name and the last
 * HX_KEEP_COMMITS commits). Caller frees *out with free(). */
#define HX_KEEP_COMMITS 8
HX_API int hx_index_history(hx_index *ix, hx_commit_info **out, size_t *n, hx_error *err);

/* Times as read contexts take them: ISO-8601 (2026-01-31, 2026-01-31T12:00, ...:05, ...:05.250,
 * with Z, +hh:mm or -hh:mm; no zone = UTC) or unix seconds (digits, optionally .fraction). */
HX_API int hx_time_parse(const char *s, int64_t *ns, hx_error *err);
/* 2026-01-31T12:00:05.250Z (millisecond precision) into buf (at least 32 bytes). */
HX_API void hx_time_format(int64_t ns, char *buf, size_t cap);

/* === Updating (writer handles) === */

/* Asked after each batch of chunks is embedded (done of total chunks so far, path the document
 * of the batch's last chunk) and once more just before the last commit (done == total, path
 * NULL). A non-zero return cancels the write: the call fails with HX_ECANCELED, the part being
 * embedded is not committed, and the index keeps its last commit (with the parts of this write
 * committed before, hx_update_opts.commit_chunks; the message says how many documents they hold). */
typedef int (*hx_progress_fn)(void *ctx, size_t done, size_t total, const char *path);

typedef struct hx_update_opts {
    const char *const *excludes;       /* globs on root-relative paths */
    size_t n_excludes;
    size_t max_file_bytes;             /* 0 = HX_MAX_FILE_BYTES */
    int reindex;                       /* rebuild every document under the paths */
    hx_encoder *encoder;               /* required: embeds new chunks */
    hx_progress_fn progress;           /* may be NULL */
    void *progress_ctx;
    /* The file names whose metadata the other documents of their folder inherit, first wins
     * (`hyrax help filters`); plain file names, at most 8. NULL keeps the index's list
     * (a new index: kep.yaml, README.md); n_folder_meta 0 with a non-NULL pointer turns
     * inheritance off. The list is kept in the index; a change commits even with no file changed. */
    const char *const *folder_meta;
    size_t n_folder_meta;
    /* A long write commits its new and changed documents in parts of about this many chunks (0 =
     * HX_COMMIT_CHUNKS; a document is never split, so one larger than that is a part of its own):
     * a run canceled or killed keeps the parts committed before, and the next run embeds only the
     * rest. Removals, touches and the audit log land with the first part. */
    size_t commit_chunks;
} hx_update_opts;
#define HX_COMMIT_CHUNKS 8192          /* about 1-3 minutes of embedding on two cores */
#define HX_MAX_FILE_BYTES (16u << 20)  /* files larger than this are rejected unless a write says */

typedef struct hx_rejected {
    char *path;                        /* owned */
    char *reason;                      /* owned */
} hx_rejected;

typedef struct hx_update_report {
    size_t added, updated, unchanged, removed;
    size_t kept_out;                   /* files skipped because they were deleted by request */
    hx_rejected *rejected;             /* owned: free with hx_update_report_clear */
    size_t n_rejected;
    size_t chunks_added, chunks_removed;   /* committed */
    size_t chunks_embedded, chunks_reused; /* of chunks_added: embedded by the model, and given a
                                          vector the index already held for the same text, model
                                          and precision (a moved, renamed or copied document, the
                                          unchanged parts of a changed one; README "Reuse") */
    size_t commits;                    /* commits this write made (parts, hx_update_opts.commit_chunks) */
    uint64_t generation;               /* the commit that made the changes searchable */
    double seconds;
    char warning[256];                 /* "" or what went wrong after the commit landed (the
                                          compaction that follows it); the change itself is
                                          committed and the call returns 0 */
} hx_update_report;
HX_API void hx_update_report_clear(hx_update_report *r);

/* Brings the file-backed documents under `paths` up to date and commits (once, or in parts for a
 * long write: hx_update_opts.commit_chunks): new files are
 * added, changed ones (content hash) re-chunked and re-embedded, unchanged ones skipped, and
 * indexed files under those paths that no longer exist removed. Each path is a root-relative name
 * ("" or "." is the whole root) or an absolute path inside the root; anything else fails with
 * HX_EPERM (src/fsafe.h hx_fs_target: the one confinement rule). Files are read without following
 * symlinks at read time (src/fsafe.h hxi_fs_open_under). Files that cannot be indexed (binary, too
 * large, unreadable, not a regular file, reached through a symlink at read time) and folders
 * nested too deep are listed in report->rejected. Every file read passes the validation gate
 * (`hyrax help policy`; the policy is ROOT/.hyrax/policy, and a malformed one
 * fails the call with HX_EPARSE): a file it refuses is listed in report->rejected with its rule,
 * recorded in the audit log (hx_index_audit) by this call's commit, and removed from the index if
 * an earlier version was indexed. With a policy, unchanged files are re-read and re-checked too.
 * Stored documents (HX_DOC_STORED) are never compared with the disk: they stay as they are, also
 * with o->reindex, and a file at a stored document's name is rejected with a reason saying so.
 * Files deleted by request (hx_index_remove) stay out and are counted in report->kept_out, unless
 * one of `paths` names that exact file: that lifts the deletion and indexes it again. */
HX_API int hx_index_update(hx_index *ix, const char *const *paths, size_t n_paths,
                           const hx_update_opts *o, hx_update_report *report, hx_error *err);

/* Stores a document from bytes under the root-relative name (cleaned as for hx_index_update; ""
 * and names outside the root are refused), with extra metadata, and commits; *doc_id gets its
 * id. The document is HX_DOC_STORED: it has no file behind it, no update compares it with the
 * disk, and only hx_index_remove takes it out. Storing under the name of a stored document
 * replaces it; under the name of a file-backed document fails with HX_EPERM (the file's document
 * is not overwritten). `progress` (may be NULL) is asked as for hx_index_update and can cancel. */
HX_API int hx_index_add_bytes(hx_index *ix, const char *name, const void *content, size_t len,
                              const hx_kv *meta, size_t n_meta, hx_encoder *enc, hx_progress_fn progress,
                              void *progress_ctx, uint32_t *doc_id, hx_update_report *report, hx_error *err);
/* hx_index_add_bytes with a detached signature over content: sig[0..sig_len) is the text of a
 * .minisig or SSHSIG .sig file (`hyrax help signatures`), verified by the validation gate against the
 * project's trust store before anything is embedded (sig may be NULL). Every document stored
 * passes the gate (`hyrax help policy`); one it rejects fails with HX_EINVAL
 * naming the rule, is recorded in the audit log (committed), and an earlier version of the
 * stored document of that name is removed. */
HX_API int hx_index_add_signed(hx_index *ix, const char *name, const void *content, size_t len, const char *sig,
                               size_t sig_len, const hx_kv *meta, size_t n_meta, hx_encoder *enc,
                               hx_progress_fn progress, void *progress_ctx, uint32_t *doc_id,
                               hx_update_report *report, hx_error *err);

/* Removes the named documents and commits once; all or nothing. Each name is cleaned by
 * hx_relpath_clean and must name exactly one document: HX_ENOTFOUND when it names nothing,
 * HX_EINVAL when it names the root or (without HX_REMOVE_FOLDERS) a folder of documents. With
 * HX_REMOVE_FOLDERS a folder name removes every document under it. A removed file-backed
 * document is remembered as deleted by request, so hx_index_update leaves its file out until that
 * file is indexed by name; report->removed counts documents, chunks_removed their chunks. */
enum { HX_REMOVE_EXACT = 0, HX_REMOVE_FOLDERS = 1 };
HX_API int hx_index_remove(hx_index *ix, const char *const *paths, size_t n_paths, unsigned flags,
                           hx_update_report *report, hx_error *err);

/* Rewrites the index into one segment without tombstones and renames it over the old file. */
HX_API int hx_index_compact(hx_index *ix, hx_error *err);

/* === Documents === */

/* Where a document's text comes from. A file-backed document mirrors a file under the root and
 * follows it on update; a stored document (add_document with content) has no file behind it and
 * is addressed by its name only. */
typedef enum { HX_DOC_FILE = 0, HX_DOC_STORED = 1 } hx_doc_kind;

/* Who may read a document (`hyrax help tenants`): everyone, the readers of its tenant,
 * or its owner alone. */
typedef enum { HX_VIS_PUBLIC = 0, HX_VIS_TENANT = 1, HX_VIS_PRIVATE = 2 } hx_visibility;

/* A document's trust attributes, decided once at ingest by the validation gate (from the project's
 * policy, the document's front matter or add_document's arguments, and its verified signature) and
 * stored with the document; readers are filtered by them, never by a tool argument. Strings are
 * borrowed like the other hx_doc_info strings; "" = none. */
typedef struct hx_doc_trust {
    const char *tenant;                /* the tenant the document belongs to */
    const char *owner;                 /* the user a private document belongs to */
    const char *signer;                /* key id (minisign) or principal (SSH) that signed it */
    hx_visibility visibility;
} hx_doc_trust;

typedef struct hx_doc_info {
    uint32_t id;
    hx_doc_kind kind;
    const char *path, *title, *type, *encoding;   /* borrowed from the index view */
    const char *sha256;                            /* hex content hash: the document's version */
    uint64_t size;
    int64_t mtime_ns, indexed_ns;
    uint32_t n_chunks, first_chunk;                /* chunk ids first_chunk .. + n_chunks - 1 */
    uint64_t tokens;
    const hx_kv *meta;
    size_t n_meta;
    hx_doc_trust trust;
} hx_doc_info;

/* === Document names === */

/* A document's name is its path relative to the indexed root. */
#define HX_RELPATH_MAX 4096   /* bytes of a clean name, its NUL included (PATH_MAX on Linux) */

/* Writes the canonical form of `in` into out (cap bytes): components joined by single '/', no
 * empty or "." components, no leading or trailing '/' ("./a//b/" -> "a/b"); "" names the root
 * itself ("", ".", "./"). Refused: an absolute path (HX_EPERM), a ".." component (HX_EPERM:
 * "a..b.md" is a legal name, "a/../b" is not), a result of HX_RELPATH_MAX bytes or more or a
 * component over 255 bytes (NAME_MAX) (HX_ERANGE), a result that does not fit in cap (HX_ERANGE).
 * Lexical only: it never touches the file system. The message quotes at most 200 bytes of the
 * name. */
HX_API int hx_relpath_clean(const char *in, char *out, size_t cap, hx_error *err);

/* How hx_fs_target reads a relative target. An absolute target is a path on disk either way. */
enum {
    HX_TARGET_NAME = 0,   /* relative to the indexed root: MCP arguments, the library API */
    HX_TARGET_CWD = 1     /* relative to the current folder: command-line arguments */
};

/* Writes the clean root-relative name of `target` into out (cap bytes; "" is the root itself).
 * A relative HX_TARGET_NAME goes through hx_relpath_clean and nothing else (no file system). A
 * path on disk (absolute, or relative with HX_TARGET_CWD) is made absolute, its parent folder is
 * resolved with realpath (the last component is not followed, so a symlink or a deleted file keeps
 * its own name), or lexically when the parent does not exist; it must then lie inside `root` (an
 * absolute, resolved folder path) or the call fails with HX_EPERM. Every message quotes at most
 * 200 bytes of the target. The one confinement rule for what a user or client typed. */
HX_API int hx_fs_target(const char *root, const char *target, int how, char *out, size_t cap, hx_error *err);

/* === Reader identity (`hyrax help tenants`) === */

/* Who reads: fixed when the process starts (`--tenant T [--user U]`), never by a tool argument.
 * tenant and user are 1..128 bytes without control characters; user may be NULL (none). */
typedef struct hx_identity {
    const char *tenant;
    const char *user;
} hx_identity;

/* The visibility rule, the one place it lives: a public document is seen by every reader, a
 * tenant document by readers of its tenant, a private one by its owner within its tenant.
 * id NULL (no identity: the local user of a local index) sees everything. */
HX_API bool hx_doc_visible(const hx_doc_info *d, const hx_identity *id);

/* Checks an identity: a tenant is required (HX_EINVAL names what is wrong). */
HX_API int hx_identity_check(const hx_identity *id, hx_error *err);

/* Gives the handle a reader identity (copied, checked by hx_identity_check), once: a second call fails with HX_EPERM, and no
 * call can take it away. From then on every read through the handle sees only the documents
 * hx_doc_visible allows, as if the others were not in the index: hx_index_doc_count / _at /
 * _by_id / _by_path, hx_index_chunk, the chunk and document vectors, both sides of every search
 * (applied inside BM25 and HNSW like a filter) and the counts of hx_index_stats_get. Survives
 * refresh and read contexts. HX_EINVAL for a missing tenant or a bad name; after HX_ENOMEM the
 * handle sees nothing (close it). */
HX_API int hx_index_set_identity(hx_index *ix, const hx_identity *id, hx_error *err);

/* Live documents the handle sees (all without an identity). */
HX_API size_t hx_index_doc_count(const hx_index *ix);
/* i-th live document in path order (0 <= i < count); borrowed until refresh or close. */
HX_API int hx_index_doc_at(const hx_index *ix, size_t i, hx_doc_info *out);
/* Document by id or by root-relative path; HX_ENOTFOUND when absent. */
HX_API int hx_index_doc_by_id(const hx_index *ix, uint32_t id, hx_doc_info *out);
HX_API int hx_index_doc_by_path(const hx_index *ix, const char *path, hx_doc_info *out);
/* A document's text into *text (NUL-terminated after *len bytes; caller frees): a file-backed
 * one's file under the root as it is now (no symbolic link followed; HX_ERANGE over max bytes,
 * HX_ENOTFOUND when gone, HX_EPERM for a link), a stored one's chunks in order, each followed by
 * a newline. */
HX_API int hx_index_doc_text(hx_index *ix, const hx_doc_info *d, size_t max, char **text, size_t *len, hx_error *err);

/* === Audit log (`hyrax help policy`) === */

/* Every document the validation gate rejects is recorded in the index file with the commit that
 * rejected it; the newest HX_AUDIT_MAX entries are kept, the oldest dropped. */
#define HX_AUDIT_MAX 10000
typedef struct hx_audit_entry {
    int64_t time_ns;                   /* when the rejecting write ran, ns since the epoch (UTC) */
    const char *path;                  /* root-relative name of the document */
    const char *sha256;                /* hex SHA-256 of its bytes; "" when they were not read */
    const char *rule;                  /* the gate's rule: size, binary, read, encoding, control,
                                          front-matter, yaml, json, xml, type, metadata, trust,
                                          deny, signature */
    const char *reason;
} hx_audit_entry;
typedef struct hx_audit_list {
    hx_audit_entry *entries;           /* owned, oldest first; strings point into `strings` */
    size_t n;
    char *strings;                     /* owned */
} hx_audit_list;
HX_API void hx_audit_list_free(hx_audit_list *l);
/* The audit log of the commit the index reads (the head, or the pinned commit of a point-in-time
 * read) into *out; caller frees with hx_audit_list_free. An index made before the log existed
 * has an empty one. A handle with a reader identity gets HX_EPERM: the log spans every tenant. */
HX_API int hx_index_audit(const hx_index *ix, hx_audit_list *out, hx_error *err);
/* Keeps, in place, the entries at or after since_ns (0: all) whose path matches path_glob (glob.h;
 * NULL: all), the newest `limit` of them (0: all), oldest first: what `hyrax audit` and the MCP
 * tool audit_log show. HX_EINVAL, l untouched, when the glob is past glob.h's limits (1,024
 * bytes, 64 '*'). */
HX_API int hx_audit_list_select(hx_audit_list *l, int64_t since_ns, const char *path_glob, size_t limit,
                                hx_error *err);

/* === Signatures (`hyrax help signatures`) === */

/* Detached signatures in the formats people already make: minisign (`minisign -S`: FILE.minisig)
 * and OpenSSH SSHSIG (`ssh-keygen -Y sign -n hyrax`: FILE.sig, trusted through an allowed_signers
 * file as git does); Ed25519 keys only. The validation gate checks them at ingest; these calls
 * check a file by hand (`hyrax verify FILE`). */
#define HX_SIG_MAX_FILE (64 * 1024)    /* bytes of a signature file at the most */

typedef enum hx_sig_format { HX_SIG_NONE = 0, HX_SIG_MINISIGN = 1, HX_SIG_SSH = 2 } hx_sig_format;
HX_API const char *hx_sig_format_name(hx_sig_format f);   /* "none", "minisign", "ssh"; static */

/* The signature file names looked for beside a document, in order: NAME + suffix(i) for i = 0, 1
 * (".minisig", ".sig"); NULL past the last. */
HX_API const char *hx_sig_suffix(int i);

/* Trusted keys: minisign public keys and allowed_signers lines with ssh-ed25519 keys. Read-only
 * once loaded (any number of threads may verify against it). Caller frees with hx_trust_free. */
typedef struct hx_trust hx_trust;
HX_API void hx_trust_free(hx_trust *t);

/* The project's trust store: every ROOT/.hyrax/trusted/NAME.pub (minisign keys, in name order) and
 * ROOT/.hyrax/allowed_signers, read confined to root without following symbolic links. Both are
 * optional: no files gives an empty store, which trusts nothing. HX_EPARSE names a malformed line. */
HX_API int hx_trust_load(hx_trust **out, const char *root, hx_error *err);

/* What hx_sig_verify found. Strings are NUL-terminated, truncated to fit, and are bytes from the
 * signature or trust files (print them escaped). */
typedef struct hx_sig_result {
    hx_sig_format format;   /* the signature file's format, HX_SIG_NONE when it was not recognised */
    char signer[256];       /* the trusted key's name: minisign: the name it was added under (an
                               untrusted key: its key id); ssh: the allowed_signers principals */
    char key_id[64];        /* minisign: key id, 16 hex digits as minisign prints it; ssh:
                               "SHA256:..." as ssh-keygen -l prints it; "" when unknown */
    char comment[256];      /* minisign: the trusted comment (covered by the signature) */
    char reason[256];       /* "" when it verified, else why not (the message also in err) */
} hx_sig_result;

/* Verifies the detached signature sig[0..sig_len) (a .minisig or armored SSHSIG file; the format
 * is recognised from its first line) over doc[0..doc_len) against t. Returns 0 when a trusted key
 * signed exactly these bytes; otherwise res->reason and err say why, naming the key:
 *   HX_EFORMAT   not a signature file hyrax reads, malformed, a key type other than Ed25519, an
 *                unknown hash, or a non-canonical signature or key
 *   HX_ERANGE    the signature file is over HX_SIG_MAX_FILE
 *   HX_ENOTFOUND the signing key is not in the trust store
 *   HX_EPERM     the signature does not match the document (changed after signing), the trusted
 *                comment was changed, or the namespace is not "hyrax" or not allowed
 * res may be NULL. */
HX_API int hx_sig_verify(const hx_trust *t, const void *doc, size_t doc_len, const void *sig, size_t sig_len,
                         hx_sig_result *res, hx_error *err);

/* === Search === */

typedef enum { HX_MODE_HYBRID = 0, HX_MODE_VECTOR = 1, HX_MODE_KEYWORD = 2 } hx_search_mode;

/* A filter on documents; filters are ANDed. src/retrieve/filter.h parses them from JSON (MCP) and from
 * `--filter` text, and says the rules: keys match metadata keys with '_' and '-' alike and ASCII
 * case ignored, seed 002's sig_name, kep_id and kep_number name owning-sig and kep-number, and the
 * derived keys path (a glob), type, ext, dir, folder, indexed_at and mtime come from the document.
 * A document value matches when any of its values (a list has several) does. A filter has one
 * form: `value` (equality; numbers compare as numbers), `any` (any of n_any values), or a range
 * (`lo` and/or `hi`, both numbers or both ISO-8601 dates). Strings are borrowed from whoever made
 * the filter. `(hx_filter){.key = k, .value = v}` is an equality filter. */
typedef struct hx_filter {
    const char *key, *value;
    const char *const *any;
    size_t n_any;
    const char *lo, *hi;               /* NULL: unbounded on that side */
    bool lo_strict, hi_strict;         /* > and < instead of >= and <= */
} hx_filter;

/* True when the document passes every filter. */
HX_API bool hx_doc_matches(const hx_doc_info *d, const hx_filter *filters, size_t n);
/* A chunk of a structured document (a code file's definition, a model's element) carries its
 * unit's metadata pairs (hx_result.chunk_meta). Searches keep a chunk when, filter by filter, its
 * unit's pairs or its document match. True when document d of ix passes every filter itself or
 * one of its chunks does so (what a document list keeps). */
HX_API bool hx_index_doc_matches(hx_index *ix, const hx_doc_info *d, const hx_filter *filters, size_t n);
/* The distinct keys of the unit pairs of the chunks ix's handle may read, at most max, into keys
 * (borrowed from the index view, valid until the handle's next refresh); their count. */
HX_API size_t hx_index_unit_keys(hx_index *ix, const char **keys, size_t max);

/* Filters plus the memory their strings live in, as a user or client writes them (the forms of
 * `hyrax help filters`). Zero-initialise; free with hx_filter_set_free. `v` is what
 * hx_search_opts.filters takes (o.filters = fs.v; o.n_filters = fs.n). */
typedef struct hx_filter_set {
    hx_filter *v;                 /* owned */
    size_t n, cap;
    char **owned;                 /* owned: every string and list the filters point into */
    size_t n_owned, cap_owned;
} hx_filter_set;
HX_API void hx_filter_set_free(hx_filter_set *fs);
/* Adds the filters of a JSON object given as text (MCP `filters`, seed 002's `filters`: key ->
 * value, [any of], {from, to} ranges, date_range) to fs; strings are copied. HX_EINVAL with a
 * message naming the key and what it must be (or the JSON error); fs keeps what it had. */
HX_API int hx_filter_parse_json_text(hx_filter_set *fs, const char *json, size_t len, hx_error *err);
/* Adds one filter written as `hyrax search --filter` takes it (`hyrax help filters`):
 * KEY=VALUE, KEY=A,B (any of them; \, is a comma), KEY>=X, KEY>X, KEY<=X, KEY<X or KEY=X..Y (a
 * range of numbers or ISO-8601 dates), path=GLOB. The strings are copied. HX_EINVAL with a message
 * naming what is wrong (fs keeps what it had). */
HX_API int hx_filter_parse_arg(hx_filter_set *fs, const char *text, hx_error *err);

/* How results are grouped. HX_GROUP_CHUNK: a list of chunks, best first. HX_GROUP_DOCUMENT
 * (Elasticsearch's field collapsing on the document): one result per document, its best chunk,
 * ranked by that chunk, with the document's other matching chunks in `more`; k counts documents,
 * and candidates are fetched deeper until k documents come back or the index has no more. */
typedef enum { HX_GROUP_CHUNK = 0, HX_GROUP_DOCUMENT = 1 } hx_group;
#define HX_GROUP_MORE_MAX 10           /* chunks kept in one result's `more` at the most */

/* How hybrid mode orders its candidates (the two sides' windows, merged), and so the `score` its
 * results show and are sorted by (`hyrax help search`):
 *   HX_FUSION_RELEVANCE  the relevance itself (fusion.h hxi_relevance: one calibrated logistic model of
 *                        the cosine and the normalised BM25, its two weights scaled by
 *                        vector_weight and text_weight); score == relevance
 *   HX_FUSION_RRF        reciprocal rank fusion, sum of weight / (rrf_k + rank), the ranks those each
 *                        mode alone gives (by its relevance, the name match and repeat cut included);
 *                        the default: it holds on Cranfield and CACM alike, the relevance order does not
 *   HX_FUSION_WEIGHTED   weighted sum of the sides' min-max normalised scores */
typedef enum { HX_FUSION_RELEVANCE, HX_FUSION_RRF, HX_FUSION_WEIGHTED } hx_fusion_method;

typedef struct hx_search_opts {
    hx_search_mode mode;
    uint32_t k;                        /* results wanted (documents when grouping); 0 = 10 */
    hx_group group;                    /* HX_GROUP_CHUNK by default; the surfaces choose */
    const hx_filter *filters;
    size_t n_filters;
    float min_score;                   /* results whose relevance (hx_result.relevance, 0..1 in
                                          every mode) is below are dropped; NAN = no floor (the
                                          default here; the CLI and MCP tools use
                                          HX_MIN_RELEVANCE) */
    int fusion;                        /* how hybrid mode ranks: hx_fusion_method */
    int rrf_k;                         /* 0 = 60 */
    float vector_weight, text_weight;  /* weight of each side, for RRF and weighted fusion alike;
                                          both 0 = the defaults, 0.5 and 0.5 */
    uint32_t ef;                       /* HNSW search breadth; 0 = default */
    int snippets;                      /* build marked-up snippets */
    int32_t exclude_chunk;             /* chunk id left out of the results, -1 = none */
    int32_t exclude_doc;               /* document id left out of the results, -1 = none */
    /* Recency (seed 000 "newer = higher"): with recency_key set, each candidate's ranking score is
       multiplied by 0.5^(age / recency_half_life_days), age = now - the document's date, so newer
       documents move up; `score` (relevance) and the floor are not changed. recency_key is a
       metadata key whose value is an ISO-8601 date or time, or "mtime" (the file's); a document
       without a readable date ages from its mtime. NULL = off (the default). Borrowed. */
    const char *recency_key;
    double recency_half_life_days;     /* > 0 when recency_key is set */
    uint32_t rank_window;              /* chunks each side (keyword, vector) hands to fusion, before
                                          grouping and the cut to k; 0 = HX_RANK_WINDOW, at most
                                          HX_RANK_WINDOW_MAX; a k above it widens it to k */
} hx_search_opts;
/* The rank window (Elasticsearch's rank_window_size): each side of a search ranks its best
 * HX_RANK_WINDOW chunks whatever k is and however results are grouped, so the first k results and
 * every score are the same for any larger k up to the window: k only cuts the list. A document-
 * grouped list holds the documents of the window's chunks, fewer than k when they are fewer. */
#define HX_RANK_WINDOW 100
#define HX_RANK_WINDOW_MAX 1000
HX_API void hx_search_opts_default(hx_search_opts *o);

/* The names a mode is accepted under, NULL-terminated: hybrid; semantic and vector; keyword,
 * full_text and text. hx_mode_parse reads one into *out: HX_EINVAL (out untouched) for any other. */
HX_API extern const char *const hx_mode_names[];
HX_API int hx_mode_parse(const char *s, hx_search_mode *out);
/* The grouping names, indexed by hx_group ("chunk", "document"), NULL-terminated. */
HX_API extern const char *const hx_group_names[];
HX_API int hx_group_parse(const char *s, hx_group *out);
/* The fusion names, indexed by hx_fusion_method ("relevance", "rrf", "weighted"), NULL-terminated;
 * hx_fusion_parse reads one into *out (an hx_fusion_method): HX_EINVAL (out untouched) otherwise. */
HX_API extern const char *const hx_fusion_names[];
HX_API int hx_fusion_parse(const char *s, int *out);


/* The relevance floor of `hyrax search` and the MCP query tools unless the caller gives one: it
 * drops results no likelier to be relevant than a document drawn at random from the calibration
 * set (Cranfield: 8.2 relevant of 1,400 documents per query, 0.0058; fusion.h), so an off-topic
 * query answers nothing instead of its nearest filler (about 0.0015-0.0026 over KEPs) while
 * paraphrased real matches stay (cosine 0.3 scores about 0.008; 0.02 lost known items of the
 * conformance suite in vector mode, bench/RESULTS-scores.md). */
#define HX_MIN_RELEVANCE 0.005
/* Default weights of the two sides, chosen on Cranfield only (bench/cranfield.py, RESULTS-index.md):
 * with English analysis and the title/heading field, equal weights give the best hybrid nDCG@10
 * (0.4193, above both single modes and the peer RRF of bm25s + sentence-transformers, 0.4186;
 * 0.7 / 0.3 gave 0.4123) and keep Recall@100 above both modes; on the KEP known-item queries
 * (bench/kep_golden.py) they are the only tried setting whose recall@5 is above both modes. */
#define HX_VECTOR_WEIGHT 0.5f
#define HX_TEXT_WEIGHT 0.5f
/* The one rule for fusion weights, for every surface (CLI --weights, MCP fusion.*_weight) and for
 * the fusion itself: each weight finite and >= 0, and their sum finite and > 0 (an infinite or NaN
 * weight, or two zeros, would make every fused score inf or NaN). HX_EINVAL with a sentence that
 * names the rule otherwise. */
HX_API int hx_fusion_check_weights(float vector_weight, float text_weight, hx_error *err);
#define HX_STRINGIFY_(x) #x
#define HX_STRINGIFY(x) HX_STRINGIFY_(x)   /* a number as text, for help texts and schema defaults */

typedef struct hx_result {
    uint32_t rank;                     /* 1-based */
    float score;                       /* what the list is sorted by (descending): the relevance in
                                          vector and keyword mode, the fused score in hybrid mode
                                          (hx_fusion_method), times the recency factor when asked */
    float relevance;                   /* in [0, 1]: the calibrated probability that the chunk is
                                          relevant to the query (fusion.h hxi_relevance), in every
                                          mode; what min_score compares with */
    float vector_score, keyword_score; /* side scores (cosine, BM25), NAN when that side missed it */
    float similarity;                  /* cosine of query and chunk, also where the vector side
                                          missed it; NAN in keyword mode (no query vector) */
    float fused;                       /* the hybrid ranking score (RRF or weighted), NAN in a
                                          single mode */
    float recency;                     /* the recency factor applied to the ranking, 1 when off */
    uint32_t chunk_id, doc_id, chunk_index, line_start, line_end, n_tokens;
    const char *unit;                  /* what line_start/line_end count: "page" for a paged
                                          document (PDF, PPTX, ODP: the pages or slides its text
                                          is on), "line" (source lines) otherwise; static */
    uint32_t byte_start, byte_end;     /* the body's byte range in the document */
    const char *path, *title, *heading, *doc_sha256;   /* borrowed from the index view */
    const char *signer;                /* the document's trust.signer: who signed the bytes it was
                                          indexed from (key id or principal); "" when unsigned */
    const char *text;                  /* chunk body (no contextual header), borrowed */
    size_t text_len;
    char *snippet;                     /* owned by the result set; NULL unless asked for */
    const hx_kv *meta;                 /* the document's metadata; borrowed */
    size_t n_meta;
    const hx_kv *chunk_meta;           /* the chunk's own pairs: those of the unit of a structured
                                          document it is text of (a code file's definition: symbol,
                                          lang; a model's element: element_id, layer), in order, a
                                          repeated key a list; NULL and 0 for other chunks and for
                                          chunks of index files written before units. Filters match
                                          them as document metadata; answers show them merged with
                                          meta, the chunk's pair winning on the same key; borrowed */
    size_t n_chunk_meta;
    struct hx_result *more;            /* HX_GROUP_DOCUMENT: the document's other matching chunks,
                                          best first (rank 0, no snippet), at most
                                          HX_GROUP_MORE_MAX; owned by the result set */
    size_t n_more;
    const char *tier;                  /* the tier that answered ("project", "user"; hx_tiers_search),
                                          NULL from a one-index search; borrowed from the hx_tier */
} hx_result;

typedef struct hx_results {
    hx_result *v;                      /* owned: free with hx_results_free */
    size_t n;
    hx_group group;                    /* the grouping that made the list */
    size_t total_candidates;           /* distinct chunks considered before the cut to k */
    double keyword_bound;              /* the query's BM25 score bound (keyword_score / bound is
                                          what relevance uses); 0 without a keyword side */
    double search_ms;
} hx_results;
HX_API void hx_results_free(hx_results *r);

/* Searches the last commit this handle sees. `enc` is needed for vector and hybrid modes. */
HX_API int hx_index_search(hx_index *ix, hx_encoder *enc, const char *query, size_t len,
                           const hx_search_opts *o, hx_results *out, hx_error *err);

/* hx_index_search with the query's vector already made: vec holds the index's dimension of floats,
 * hx_encoder_embed's vector of query by a model at the index's precision (the tiers embed a query
 * once for every index), or NULL in keyword mode (HX_EINVAL when another mode has none). */
HX_API int hx_index_search_embedded(hx_index *ix, const char *query, size_t len, const float *vec,
                                    const hx_search_opts *o, hx_results *out, hx_error *err);

/* Nearest chunks to a vector of the index's dimension (mode is ignored: vector search). With
 * o->exclude_chunk / o->exclude_doc the source of the vector leaves itself out. */
HX_API int hx_index_search_vector(hx_index *ix, const float *vec, const hx_search_opts *o,
                                  hx_results *out, hx_error *err);

/* A chunk's stored vector, and a document's (the normalised mean of its chunks' vectors), into
 * out[dim]. HX_ENOTFOUND for an unknown or deleted id. */
HX_API int hx_index_chunk_vector(hx_index *ix, uint32_t chunk_id, float *out, hx_error *err);
HX_API int hx_index_doc_vector(hx_index *ix, uint32_t doc_id, float *out, hx_error *err);

/* One chunk by id, as a result (score fields 0). */
HX_API int hx_index_chunk(hx_index *ix, uint32_t chunk_id, hx_result *out, hx_error *err);

/* === Tiers (`hyrax help tiers`) === */

/* One index of several searched as one, nearest first: the project index, then the user index
 * (the registry comes last: src/service/registry.h hxi_tiers_search_registry). Every index must have
 * been opened with the same model (one query vector serves them all) and positioned by its caller
 * (hx_index_read_at). */
typedef struct hx_tier {
    const char *name;                  /* HX_TIER_PROJECT, HX_TIER_USER: what each of its results
                                          says in hx_result.tier; borrowed */
    hx_index *ix;                      /* borrowed */
} hx_tier;
#define HX_TIER_PROJECT "project"
#define HX_TIER_USER "user"
#define HX_USER_DB_ENV "HYRAX_USER_DB"

/* Where the user index lives: $HYRAX_USER_DB, else $XDG_DATA_HOME/hyrax/user.hyx, else
 * $HOME/.local/share/hyrax/user.hyx (XDG's default); into buf. HX_ENOTFOUND when none of the
 * three is set, HX_ERANGE when the path does not fit. */
HX_API int hx_tier_user_path(char *buf, size_t cap, hx_error *err);

/* Opens the index at path as a reader for a tier after the first, with `model` (borrowed; NULL in
 * keyword mode) and the reader identity `id` (NULL: none; hx_index_set_identity): 0 with *out
 * set, or 0 with *out NULL and `why` saying so when the tier is not consulted: no index there
 * (missing or empty) or vectors at another precision than model's. */
HX_API int hx_tier_open(hx_index **out, const char *path, const hx_model *model, const hx_identity *id, char *why,
                        size_t cap, hx_error *err);

/* Points a tier after the first at the commit a read context given for the search selects: a time
 * (HX_READ_AS_OF) applies to every tier; a name (a baseline, HX_PUBLISHED) names a commit of the
 * first tier's index, so the others read their head. 0, or 0 with `why` set (why[0] != 0) when the
 * tier has no commit at that time and is not consulted. */
HX_API int hx_tier_read_at(hx_index *ix, const hx_read_context *ctx, hx_read_taken *taken, char *why, size_t cap,
                           hx_error *err);

/* Copies the project's documents named by names[0..n) (root-relative names or absolute paths inside
 * from's root, as for hx_index_update; a folder names the documents under it, "" all) up to the
 * user index `to` (a writer): each file is read again from disk under from's root and stored with
 * hx_index_add_bytes (the write path and its checks, so what they refuse now is rejected) under
 * the name "<project folder name>/<path>", with the metadata HX_SYNC_META_ROOT (the project root),
 * HX_SYNC_META_PATH (the path in the project) and HX_SYNC_META_SHA256 (the bytes' hash). A name
 * that the user index holds with the same bytes already is counted unchanged and costs nothing.
 * Documents that cannot be copied (stored ones have no file; unreadable, too large, refused by the
 * write path) go to rep->rejected and the others go on; HX_ENOTFOUND (nothing changed) when a name
 * covers no document of the project, HX_EPERM when it lies outside the project root. One commit
 * per document copied; `progress` (may be NULL) counts chunks over the whole sync and can cancel. */
#define HX_SYNC_META_ROOT "origin_root"
#define HX_SYNC_META_PATH "origin_path"
#define HX_SYNC_META_SHA256 "origin_sha256"
HX_API int hx_tier_sync(hx_index *from, hx_index *to, const char *const *names, size_t n, hx_encoder *enc,
                        hx_progress_fn progress, void *progress_ctx, hx_update_report *rep, hx_error *err);

/* Searches tiers[0..n) as one index. The query is embedded once (enc; NULL in keyword mode) and
 * each tier searched with the same options (mode, filters, k, grouping, min_score on each result's
 * own relevance), several tiers each to its whole rank window (HX_RANK_WINDOW), so k only cuts.
 * The lists are merged by each result's score (one scale: the same mode and fusion everywhere),
 * ties going to the nearer tier, then to the better rank. The same content in two tiers is one
 * entry, answered by the
 * nearer tier: with HX_GROUP_CHUNK the same document version (doc_sha256) and chunk byte range;
 * with HX_GROUP_DOCUMENT the same document version. Each result's tier says which tier answered;
 * ranks are renumbered, the first k kept. total_candidates sums the tiers'; keyword_bound is the
 * first tier's. Strings stay borrowed from each tier's index. */
HX_API int hx_tiers_search(const hx_tier *tiers, size_t n, hx_encoder *enc, const char *query, size_t len,
                           const hx_search_opts *o, hx_results *out, hx_error *err);

/* === Conversation memory (`hyrax help memory`) === */

/* An agent's conversations (sessions of turns: user message, agent response, the documents
 * retrieved, how), kept in a file beside the index (src/service/memory.h), each turn stamped with
 * the identity that recorded it; hx_session_record_turn and the calls after it read and write it. */
#define HX_MEMORY_PER_SESSION 1000   /* default: turns kept per session */
#define HX_MEMORY_TOTAL 20000        /* default: turns kept per identity */
#define HX_MEMORY_IDENTITIES 64      /* default: identities the file keeps turns of */
#define HX_MEMORY_MAX_DOCS 64        /* retrieved document ids per turn */
#define HX_MEMORY_MAX_ID 256         /* bytes of a session, tenant, user, method or document id */
#define HX_MEMORY_MAX_TEXT (256 << 10)   /* bytes of a user message or agent response */

/* Retention: recording a turn drops the oldest turns of its session beyond per_session, then the
 * oldest turns of its identity beyond total, never another identity's; a turn of a new identity
 * is refused (HX_ERANGE) while the file holds turns of `identities` others. */
typedef struct hx_memory_limits {
    uint32_t per_session, total, identities;   /* 0 = the defaults above; total is per identity */
} hx_memory_limits;

typedef struct hx_turn {
    uint64_t id;                     /* 1, 2, ... over the file's life */
    int64_t at_ns;                   /* when it was recorded, unix nanoseconds */
    uint32_t number;                 /* 1, 2, ... within its session */
    double relevance;                /* 0..1, or NAN: none */
    const char *session, *tenant, *user, *search_method;   /* "" when not given */
    const char *user_message, *agent_response;
    const char *const *docs;         /* ids or paths of the documents retrieved for the turn */
    size_t n_docs;
    const float *vec;                /* the exchange's embedding (hx_model_dim floats), or NULL */
} hx_turn;

/* The search methods a turn may name (hx_turn.search_method), NULL-terminated. */
HX_API extern const char *const hx_turn_methods[];

/* === Activity statistics (`hyrax help observability`) === */

/* What lasts across restarts: latency per tool and transport, hot queries, index updates and lag,
 * counted by each process into its own hx_stats and flushed into one file beside the index
 * ("<index stem>.stats.hyx"), where it adds to what other processes flushed. Thread-safe. */
typedef struct hx_stats hx_stats;
#define HX_STATS_FLUSH_MS 10000      /* serve flushes this often, and at exit */

/* Empty counts for the index at db, whose queries count as the identity id (the process's reader
 * identity, copied; NULL: none, the unscoped local reader). flush_ms > 0 starts a thread that
 * flushes every flush_ms; hx_stats_close flushes once more either way. */
HX_API int hx_stats_open(hx_stats **out, const char *db, const hx_identity *id, int flush_ms, hx_error *err);
/* Flushes (errors are dropped: statistics never fail a command) and frees; NULL is fine. */
HX_API void hx_stats_close(hx_stats *s);

/* Counting. tool and transport are short names ("search", "stdio" | "http" | "cli"). A query is
 * counted in the table of s's identity; counting never allocates. */
HX_API void hx_stats_note_latency(hx_stats *s, const char *tool, const char *transport, double ms);
HX_API void hx_stats_note_query(hx_stats *s, const char *query);
/* One index update: its report (NULL when it failed before one), the error (NULL: none) and the
 * lag in ms (0: unknown). */
HX_API void hx_stats_note_update(hx_stats *s, const hx_update_report *r, const char *error, double lag_ms);

/* The same counts in the Prometheus text exposition format (version 0.0.4) in *text (caller
 * frees; *len bytes). */
HX_API int hx_stats_prometheus_text(hx_stats *s, const char *db, const hx_identity *reader, char **text, size_t *len,
                                    hx_error *err);

/* === Watching a root (`hyrax help watch`) === */

/* A server that keeps itself current (`hyrax serve --watch`, and the HTTP server): one thread
 * follows the indexed root with the platform's change notification (inotify), or by polling the
 * tree where there is none or its watch limit is hit, gathers the changed paths until the root has
 * been quiet for a debounce interval, and brings just those paths up to date with hx_index_update
 * (the gate and the one commit of `hyrax index`). New folders are watched as they appear. */
#define HX_WATCH_DEBOUNCE_MS 300     /* quiet time before a batch runs */
#define HX_WATCH_MAX_DELAY_MS 5000   /* a batch runs at the latest this long after its first change */
#define HX_WATCH_POLL_MS 1000        /* polling fallback: how often the tree is compared */
#define HX_WATCH_MAX_PATHS 4096      /* more changed paths than this in one batch: the whole root */
#define HX_WATCH_REJECTS_KEPT 8      /* rejected files a health record names */

typedef struct hx_watch_config {
    const char *db;                  /* the index file (copied) */
    const char *root;                /* the root for a new index (copied); an existing index's own wins */
    /* The model to embed with: may block until it is loaded; NULL when it failed (the watcher then
     * records the error and keeps the changes pending). Called on the watcher's thread. */
    const hx_model *(*model)(void *ctx);
    void *model_ctx;
    int threads;                     /* embedding threads (0 = one per core) */
    int debounce_ms, poll_ms;        /* 0: the defaults above */
    int force_poll;                  /* poll even where notification works */
    hx_stats *stats;                 /* NULL, or where each batch is counted (borrowed; outlives the watcher) */
    /* NULL, or called with take 1 before a batch opens the index writer and 0 after it closes
     * it: the server's own writers (MCP write tools) and the watcher take turns in-process
     * instead of one of them meeting HX_EBUSY. */
    void (*write_lock)(void *ctx, int take);
    void *write_ctx;
} hx_watch_config;

/* A running watcher. Caller stops and frees it with hx_watch_stop. */
typedef struct hx_watch hx_watch;

/* Starts the watcher thread; 0, or HX_ENOMEM / HX_EIO (no thread). */
HX_API int hx_watch_start(hx_watch **out, const hx_watch_config *cfg, hx_error *err);

/* Stops the thread (a batch in progress is cancelled uncommitted) and frees w; NULL is fine. */
HX_API void hx_watch_stop(hx_watch *w);

/* What the watcher did (index_health's `watch`). */
typedef struct hx_watch_health {
    const char *mode;                  /* "starting" until it follows the root (its first batch then
                                          catches up with what changed while nobody watched), then
                                          "inotify" or "poll"; static */
    const char *root;                  /* the root it follows; borrowed until hx_watch_stop */
    uint64_t batches, commits;
    size_t pending_paths;              /* changed paths waiting for a batch */
    bool have_last;                    /* a batch ran: the last_* members describe the latest */
    int64_t last_at_ns;                /* when it ended */
    size_t last_paths;                 /* changed paths it took (0: the whole root) */
    size_t last_added, last_updated, last_removed;
    char last_rejected[HX_WATCH_REJECTS_KEPT][2][256];   /* path and reason of the files the gate rejected */
    size_t n_last_rejected;
    char last_error[512];              /* "" when it committed */
    uint64_t last_generation;          /* the index's generation after it */
    double last_seconds;               /* how long it took */
    double last_lag_ms;                /* the longest time from a changed file's mtime to its commit */
} hx_watch_health;

/* A copy of the watcher's health record, taken under its lock. */
HX_API void hx_watch_health_get(hx_watch *w, hx_watch_health *out);

/* === Session (`hyrax help library`) === */

/* The product's API: what `hyrax search`, the MCP tools and the REST routes do, as calls that
 * return C structs. A session is opened once with what the command line and `serve` are told (the
 * project index, the user index, the registry, the reader identity, the model) and owns what a
 * surface used to assemble itself: the project index's reader (and its writer for the length of a
 * write), the user index's reader, the encoders (one per precision, opened when a query first needs
 * one) and the registry connection. The rules of tiers live here only: a query is embedded at the
 * precision of the first tier it reads (the project index's, or the user index's when it is read
 * alone), a tier whose vectors are at another precision is not consulted, nor the registry (fp32)
 * under an int8 index; each answer says which tiers were read, at which commit, and why not.
 *
 * A session is used by one thread at a time (open one per thread; they may share a model).
 * Strings of an answer are borrowed from the session's index views: valid until the next call on
 * the session or until the answer is freed, whichever comes first. Every read call runs under a
 * fault guard (HX_FAULT_GUARD): an index file changed underneath gives HX_ECHANGED with
 * HX_FAULT_MESSAGE and the readers are reopened by the next call. */
typedef struct hx_session hx_session;

#define HX_REGISTRY_ENV "HYRAX_REGISTRY"     /* the registry URL when the caller names none */
#define HX_REGISTRY_TIMEOUT_MS 3000          /* a search's default wait for the registry */
#define HX_REGISTRY_CONNECT_TIMEOUT_MS 10000 /* publish's and init's default wait to connect */
#define HX_REGISTRY_SCHEMA_VERSION 5         /* the schema this build creates and reads */
#define HX_TIER_REGISTRY "registry"          /* the tier name of a registry result */

typedef struct hx_session_config {
    const char *db;                    /* the project index file; required */
    const char *root;                  /* the folder a new index covers (absolute); NULL: a write to a
                                          missing index fails (HX_ENOTFOUND). Ignored by the index
                                          once it exists (it records its root); the folder
                                          hx_session_publish reads, when given */
    const char *user_db;               /* the user index file; NULL: hx_tier_user_path's */
    bool no_user_tier;                 /* true: no user tier (its status says so) */
    const char *registry;              /* the registry's URL (`hyrax help registry`); NULL: $HYRAX_REGISTRY;
                                          "": none */
    bool registry_defaults;            /* registry NULL and $HYRAX_REGISTRY unset or empty: libpq's own
                                          defaults (the PG* variables, the service file) name the
                                          registry for the calls that address it alone (publish,
                                          registry init, a search of HX_SEARCH_REGISTRY), as `hyrax
                                          publish` takes them; a search of every tier consults only a
                                          registry named so. false: none */
    int registry_timeout_ms;           /* a query's wait for the registry (0: HX_REGISTRY_TIMEOUT_MS);
                                          connecting for a publish or an init (0:
                                          HX_REGISTRY_CONNECT_TIMEOUT_MS) */
    const hx_identity *identity;       /* the reader identity, copied and checked at open; fixed for
                                          the session's life. NULL: none (every document is seen) */
    const char *weights;               /* the weights file; NULL: as hx_model_open_default finds it */
    const hx_model *model;             /* borrowed, may be NULL: a model opened by the caller (one
                                          model for many sessions); every query and write then uses
                                          it, and a tier at another precision is not consulted */
    hx_precision precision;            /* of a new index's vectors */
    int threads;                       /* embedding threads for writes (0: one per core); queries use 1 */
    bool read_only;                    /* every write call fails with HX_EPERM */
    const char *stats_transport;       /* non-NULL: queries and updates are counted in the lasting
                                          statistics beside the index (src/service/stats.h) under this
                                          transport name ("cli"); NULL: not counted */
    hx_memory_limits memory;           /* conversation memory's retention; zeros: the defaults */
} hx_session_config;

/* Opens a session: checks the configuration (HX_EINVAL names what is wrong: no db, a bad
 * identity, a negative timeout, a relative root) and copies it; opens nothing else yet (no file
 * need exist). Caller frees *out with hx_session_close. */
HX_API int hx_session_open(hx_session **out, const hx_session_config *cfg, hx_error *err);
/* Closes every handle of the session and flushes its statistics; NULL is fine. */
HX_API void hx_session_close(hx_session *s);

/* Which tiers a query reads: all (the project index, the user index when there is one, and the
 * registry when one is named), one of the two indexes alone, or the registry alone. */
typedef enum {
    HX_SEARCH_ALL = 0, HX_SEARCH_PROJECT = 1, HX_SEARCH_USER = 2, HX_SEARCH_REGISTRY = 3
} hx_search_source;
/* The names of the sources, indexed by hx_search_source ("all", "project", "user", "registry"),
 * NULL-terminated; hx_search_source_parse reads one: HX_EINVAL (out untouched) for any other. */
HX_API extern const char *const hx_search_source_names[];
HX_API int hx_search_source_parse(const char *s, hx_search_source *out);

typedef struct hx_session_query {
    const char *query;                 /* non-empty, NUL-terminated; borrowed for the call */
    hx_search_opts opts;               /* mode, k, grouping, filters, floor, fusion, recency, snippets */
    hx_search_source source;
    hx_read_context at;                /* the commit to read; a time applies to every tier, a name (a
                                          baseline, HX_PUBLISHED) to the project index only */
} hx_session_query;
/* What `hyrax search` and the MCP search tool start from: hx_search_opts_default, then the
 * relevance floor HX_MIN_RELEVANCE, results grouped by document, snippets; every tier; the head. */
HX_API void hx_session_query_init(hx_session_query *q, const char *query);

/* A tier as a query saw it. */
typedef struct hx_tier_report {
    const char *name;                  /* HX_TIER_PROJECT, HX_TIER_USER or "registry"; static */
    const char *db;                    /* its index file; NULL for the registry; borrowed */
    bool searched;
    const char *reason;                /* NULL when searched, else why not; borrowed like the answer */
    uint64_t generation;               /* the commit read (0 for the registry) */
    size_t results;                    /* the answer's results this tier answered */
} hx_tier_report;

/* A registry result's own fields (source HX_SEARCH_REGISTRY alone). Borrowed from the answer. */
typedef struct hx_registry_fields {
    const char *tenant, *visibility, *signer, *published_at, *metadata_json;
} hx_registry_fields;

typedef struct hx_session_answer {
    hx_results results;                /* best first; each result's tier says which tier answered */
    hx_read_taken taken;               /* the effective read context: of the first tier read */
    hx_tier_report tiers[3];           /* every tier the source names, read or not */
    size_t n_tiers;
    const hx_registry_fields *registry;   /* source HX_SEARCH_REGISTRY: one per result; else NULL */
    void *keep;                        /* what the results borrow from the registry; private */
} hx_session_answer;
HX_API void hx_session_answer_free(hx_session_answer *a);
/* The commit that answered result r of a (its tier's generation; 0 for the registry's). */
HX_API uint64_t hx_session_answer_generation(const hx_session_answer *a, const hx_result *r);

/* Searches the tiers q->source names (`hyrax help tiers`) at q->at and counts the query (with
 * stats_transport). HX_EINVAL with a message for an empty query, bad weights, a baseline with the
 * user or the registry alone; HX_ENOTFOUND when the project index is read and there is none, or
 * no kept commit matches q->at. A tier that cannot be read otherwise (no user index, another
 * precision, an unreachable registry) is an answer saying so, not an error. *out: free with
 * hx_session_answer_free. */
HX_API int hx_session_search(hx_session *s, const hx_session_query *q, hx_session_answer *out, hx_error *err);

/* What find_similar starts from: exactly one of text, a chunk id or a document (id or path). */
typedef struct hx_similar_query {
    const char *text;                  /* NULL, or text to embed */
    int64_t chunk_id;                  /* -1: none; else that chunk's vector, the chunk left out */
    int64_t doc_id;                    /* -1: none; else the document's mean vector, it left out */
    const char *path;                  /* NULL, or the document by name (as hx_session_get) */
    hx_search_opts opts;               /* k, grouping, filters, floor (mode is ignored: vector) */
    hx_read_context at;
} hx_similar_query;
/* Nearest chunks of the project index to the text, chunk or document (vector search). The answer
 * has the project tier only. HX_EINVAL unless exactly one source is given, HX_ENOTFOUND for an
 * unknown chunk or document (or one without text). */
HX_API int hx_session_similar(hx_session *s, const hx_similar_query *q, hx_session_answer *out, hx_error *err);

/* A document of the project index, named by id (path NULL) or by path (a root-relative name or an
 * absolute path inside the root; id ignored). */
typedef struct hx_session_doc {
    hx_doc_info info;                  /* strings borrowed as an answer's */
    hx_result *chunks;                 /* owned: its chunks in order when asked (scores 0), else NULL */
    size_t n_chunks;
    hx_read_taken taken;               /* the commit read */
} hx_session_doc;
HX_API void hx_session_doc_free(hx_session_doc *d);
/* HX_ENOTFOUND (a message naming it) when no such document is seen; HX_EINVAL for a path that
 * names the root, HX_EPERM for one outside it. */
HX_API int hx_session_get(hx_session *s, int64_t id, const char *path, const hx_read_context *at, bool chunks,
                          hx_session_doc *out, hx_error *err);

/* list_documents' orders; path order is the index's own. */
typedef enum {
    HX_SORT_PATH = 0, HX_SORT_TITLE, HX_SORT_INDEXED, HX_SORT_SIZE, HX_SORT_CHUNKS, HX_SORT_CATEGORY
} hx_doc_sort;
/* Which documents a list keeps by content: all, those with chunks, those without (blank). */
typedef enum { HX_DOCS_ALL = 0, HX_DOCS_COMPLETE = 1, HX_DOCS_EMPTY = 2 } hx_doc_state;
typedef struct hx_list_opts {
    const hx_filter *filters;          /* hx_index_doc_matches; borrowed */
    size_t n_filters;
    hx_doc_state state;
    hx_doc_sort sort;                  /* ties keep path order; HX_SORT_CATEGORY puts documents
                                          without a category metadata value last */
    bool desc;
    size_t offset, limit;              /* the page; limit 0: all */
    hx_read_context at;
} hx_list_opts;
typedef struct hx_doc_list {
    hx_doc_info *docs;                 /* owned array (strings borrowed as an answer's): the page */
    size_t n;
    size_t total;                      /* documents matching, over every page */
    hx_read_taken taken;
} hx_doc_list;
HX_API void hx_doc_list_free(hx_doc_list *l);
HX_API int hx_session_list(hx_session *s, const hx_list_opts *o, hx_doc_list *out, hx_error *err);

/* The keys a filter can name over the project index as the reader sees it at `at` (NULL: the
 * head): the derived keys (path, type, ext, dir, folder, indexed_at, mtime) first, then every
 * metadata key its documents hold, then the keys of its chunks' unit pairs (hx_result.chunk_meta),
 * each spelling once (at most HX_FILTER_KEYS_MAX in all). What the command line's "did you mean"
 * offers for a filter key no document holds. Caller frees with hx_key_list_free. */
#define HX_FILTER_KEYS_MAX 4096
typedef struct hx_key_list {
    char **keys;                       /* owned, as each string */
    size_t n;
} hx_key_list;
HX_API void hx_key_list_free(hx_key_list *l);
HX_API int hx_session_filter_keys(hx_session *s, const hx_read_context *at, hx_key_list *out, hx_error *err);
/* Whether filter key `asked` names the document key `key` by the filter rule ('_' and '-' alike,
 * ASCII case ignored, the aliases of hx_filter). */
HX_API bool hx_filter_key_matches(const char *key, const char *asked);

/* An index as hx_session_status reports it. */
typedef struct hx_tier_state {
    const char *name;                  /* HX_TIER_PROJECT or HX_TIER_USER; static */
    const char *db;                    /* borrowed from the session; NULL when there is none */
    bool present;                      /* an index is there and was read; else reason says why not */
    char reason[320];
    hx_error error;                    /* not present: the error that kept it from being read (the
                                          project index's as hx_index_open said it); code 0 when there
                                          is no such tier */
    hx_index_stats stats;              /* present: its counts as the reader identity sees them */
    const char *root;                  /* present: the folder it covers (hx_index_root) */
    const char *damage;                /* present: hx_index_damage's sentence, "" when none */
} hx_tier_state;
typedef struct hx_session_info {
    hx_tier_state project, user;
    bool model_loaded;                 /* the session holds a model (borrowed or opened by a call) */
    char model[64];                    /* its name ("" when none) */
    int dim;
    hx_precision precision;            /* of query vectors: the project index's (a new index: the
                                          configured precision) */
    bool registry;                     /* a registry is named (it is not contacted here) */
    bool read_only;
    hx_identity identity;              /* the reader identity (strings borrowed from the session;
                                          tenant NULL: none) */
} hx_session_info;
/* The indexes' counts at their head, without loading a model or waiting: index_health, `hyrax
 * stats`, REST /health and /stats. A missing or unreadable index is reported, not an error;
 * errors are HX_ENOMEM, and HX_ECHANGED from the fault guard. The strings of a tier state are
 * borrowed from the session's readers until its next call. */
HX_API int hx_session_status(hx_session *s, hx_session_info *out, hx_error *err);

/* === Session: what the index's users did (`hyrax help observability`) === */

/* A series of calls (or of updates) measured: percentiles interpolate linearly inside the
 * histogram's buckets (as Prometheus' histogram_quantile). */
typedef struct hx_latency {
    uint64_t count;
    double mean_ms, p50_ms, p95_ms, p99_ms;
} hx_latency;
typedef struct hx_tool_latency {
    const char *tool;                  /* "search", "get_context", ...; borrowed from the activity */
    const char *transport;             /* "stdio", "http", "cli"; NULL: the tool over every transport */
    hx_latency latency;
} hx_tool_latency;
typedef struct hx_hot_query {
    const char *query;                 /* borrowed from the activity */
    uint64_t count;
} hx_hot_query;
typedef struct hx_activity {
    hx_tool_latency *latency;          /* each tool, in the order first counted: its entry over every
                                          transport, then one per transport */
    size_t n_latency;
    hx_hot_query *top;                 /* the most asked queries of the window, most first (at most
                                          10): the reader identity's own, or every identity's when
                                          the session has none */
    size_t n_top;
    uint64_t window_s;                 /* the hot queries' window (the last day) */
    uint64_t updates, files_added, files_updated, files_removed, files_rejected, update_failures;
    int64_t last_update_ns;            /* unix nanoseconds; 0: none yet */
    const char *last_error;            /* the last update's error; NULL: none, or a session with a
                                          reader identity (it may name any file of the index) */
    hx_latency lag;                    /* from a change on disk to searchable (serve --watch) */
    void *keep;                        /* what the strings point into; private */
} hx_activity;
HX_API void hx_activity_free(hx_activity *a);
/* The file's counts plus what s has not flushed yet (s may be NULL: the file only; db names the
 * index when s is NULL) as the reader `reader` sees them (NULL: the unscoped local reader, every
 * identity's hot queries; else its own only, and no last_error), as hx_session_activity gives
 * them. *out: free with hx_activity_free (also after a failure). */
HX_API int hx_stats_activity(hx_stats *s, const char *db, const hx_identity *reader, hx_activity *out,
                             hx_error *err);
/* What every process did with the project index, kept beside it across restarts (latency per
 * tool and transport, hot queries, updates, lag), plus what this session counted and has not
 * written yet. An index without statistics answers zeros. HX_EVERSION for a statistics file of
 * an unknown version. *out: free with hx_activity_free (also after a failure). */
HX_API int hx_session_activity(hx_session *s, hx_activity *out, hx_error *err);

/* === Session writes (the project index; HX_EPERM in a read-only session) === */

/* What a write did: the update report (owned: free with hx_session_write_clear) and the document
 * it concerned, when one (add, delete). */
typedef struct hx_session_write {
    hx_update_report report;
    uint32_t doc_id;
    hx_doc_kind kind;
    char path[4096];                   /* the document's clean root-relative name; "" when none */
    hx_commit_info commit;             /* the index's head after the write */
    hx_index_stats stats;              /* the index's counts after the write, as the writer saw them */
    char root[4096];                   /* the folder the index covers */
} hx_session_write;
HX_API void hx_session_write_clear(hx_session_write *w);

/* Progress and cancellation of every write: as hx_update_opts.progress. */
typedef struct hx_write_opts {
    hx_progress_fn progress;           /* may be NULL */
    void *progress_ctx;
    bool cwd_paths;                    /* the request's paths are paths on disk as a command line takes
                                          them: relative to the process's current folder (or absolute),
                                          inside the root; false: root-relative names (or absolute
                                          paths inside the root) */
} hx_write_opts;

/* A document to add: a file under the root (path), or bytes stored under a name (content, len,
 * name, metadata and an optional detached signature: hx_index_add_signed). */
typedef struct hx_add_doc {
    const char *path;                  /* a file (root-relative or absolute inside the root); or NULL */
    const char *name;                  /* with content: the root-relative name to store it under */
    const void *content;
    size_t len;
    const hx_kv *meta;
    size_t n_meta;
    const char *sig;                   /* NULL, or the text of a .minisig / SSHSIG .sig file */
    size_t sig_len;
} hx_add_doc;
/* Adds or updates one document and commits. HX_EINVAL for a request that is not one of the two
 * forms, a name of the root or a folder, or a document the validation gate rejects (the message
 * says why); HX_EPERM for a path outside the root. */
HX_API int hx_session_add(hx_session *s, const hx_add_doc *d, const hx_write_opts *wo, hx_session_write *out,
                          hx_error *err);
/* Removes one document named by id (path NULL) or by path and commits (hx_index_remove). */
HX_API int hx_session_delete(hx_session *s, int64_t id, const char *path, hx_session_write *out, hx_error *err);
/* Removes the documents paths[0..n) name and commits once, all or nothing (`hyrax rm`): a name of a
 * document removes exactly it, a folder every document under it. With wo->cwd_paths a path is one
 * on disk when a file or folder is there inside the root, else a root-relative name. HX_ENOTFOUND
 * for a path that names nothing, HX_EINVAL for the root; nothing is embedded, so no model is
 * loaded. A removed file stays out of later reindexes until it is named by its own path. */
HX_API int hx_session_delete_paths(hx_session *s, const char *const *paths, size_t n, const hx_write_opts *wo,
                                   hx_session_write *out, hx_error *err);

/* What a reindex brings up to date and how; zeros: the whole root, the defaults. */
typedef struct hx_reindex_opts {
    const char *const *paths;          /* files and folders under the root (hx_write_opts.cwd_paths
                                          says how they are written); n_paths 0: the whole root */
    size_t n_paths;
    const char *const *excludes;       /* globs on root-relative paths */
    size_t n_excludes;
    bool force;                        /* re-chunk and re-embed unchanged files too */
    size_t max_file_bytes;             /* larger files are rejected; 0: 16 MiB */
    const char *const *folder_meta;    /* as hx_update_opts.folder_meta: NULL keeps the index's list */
    size_t n_folder_meta;
    size_t commit_chunks;              /* commit in parts of about this many chunks; 0: HX_COMMIT_CHUNKS */
    bool compact;                      /* rewrite the index into one segment afterwards; when that fails
                                          the call fails with "compaction failed: ..." (the update is
                                          committed and *out says what it did) */
} hx_reindex_opts;
/* Brings the documents under o->paths up to date (hx_index_update); rejected files are in the
 * report. With wo->cwd_paths and no index yet, every path must exist and lie inside the root
 * (hx_session_config.root) before anything is created (HX_ENOTFOUND or the confinement's error,
 * the message ending "; no index created"), and the index file's folder is made. */
HX_API int hx_session_reindex(hx_session *s, const hx_reindex_opts *o, const hx_write_opts *wo, hx_session_write *out,
                              hx_error *err);
/* Copies the project's documents under paths[0..n) up to the user index (hx_tier_sync: `hyrax sync
 * --to user`); paths as wo->cwd_paths says, n 0: every document. The user index (its file:
 * hx_session_config.user_db, else hx_tier_user_path's) is made when missing, with its folders; its
 * root is its folder. *out gets the report and the user index's counts and root. HX_EINVAL when
 * the user index holds vectors at another precision than the project index's (one query vector
 * serves both), HX_ENOTFOUND without a project index or a user tier (the message says why). */
HX_API int hx_session_sync(hx_session *s, const char *const *paths, size_t n, const hx_write_opts *wo,
                           hx_session_write *out, hx_error *err);
/* Names the index's current state (hx_index_baseline); *made gets the commit. */
HX_API int hx_session_baseline(hx_session *s, const char *name, hx_commit_info *made, hx_error *err);

/* === Session: context for a question === */

/* What get_context answers: the passages of a search (chunks of one document that touch or
 * overlap merged into one), best first, each under a header "[n] path (lines a-b) title >
 * heading", as many as fit a token budget, counted with the model's tokenizer. */
#define HX_CONTEXT_CANDIDATES 50       /* chunks searched by default; the most passages a context holds */
#define HX_CONTEXT_TOKENS 4000         /* the default budget */
#define HX_CONTEXT_TOKENS_MIN 64
#define HX_CONTEXT_TOKENS_MAX 100000
#define HX_CONTEXT_PASSAGES 10         /* the default most passages */
#define HX_CONTEXT_RELATED 50          /* the most items relationships add to a context */

typedef struct hx_context_query {
    hx_session_query search;           /* query, mode, filters, floor, fusion, tiers (not the registry
                                          alone) and read context; k chunks are searched (0:
                                          HX_CONTEXT_CANDIDATES), grouped by chunk, without snippets */
    uint32_t max_tokens;               /* the budget; 0: HX_CONTEXT_TOKENS */
    uint32_t max_passages;             /* 0: HX_CONTEXT_PASSAGES; at most HX_CONTEXT_CANDIDATES */
    bool neighbours;                   /* add to each passage the chunk just before and just after it
                                          in its document when they are of the same section (same
                                          heading and unit) and in no passage yet; they count in the
                                          budget */
    bool relationships;                /* after the passages, add the items their chunks' rel_<verb>
                                          pairs name (`hyrax help filters`, "Relationships"): each item, found by its
                                          item_id in the same index (a unit of the same document first,
                                          else a document), once, as a passage of its own labelled with
                                          the relationship, while the budget lasts */
} hx_context_query;
/* What get_context starts from: hx_session_query_init's query (the floor HX_MIN_RELEVANCE, every
 * tier, the head) with k HX_CONTEXT_CANDIDATES, the default budget and passages, neighbours and
 * relationships. */
HX_API void hx_context_query_init(hx_context_query *q, const char *query);

/* A passage of the context. */
typedef struct hx_context_source {
    size_t label;                      /* the n of its "[n]" header: 1, 2, ... in the text's order */
    const hx_result *first;            /* its best-ranked chunk: the document's fields (doc_id, path,
                                          title, heading, doc_sha256, signer, tier); borrowed */
    uint32_t line_start, line_end;     /* of the whole passage */
    float relevance;                   /* its best chunk's score */
    size_t tokens;                     /* header and text */
    const uint32_t *chunk_ids;         /* the merged chunks the search found, in rank order, then the
                                          neighbours added; borrowed */
    size_t n_ranked, n_chunks;         /* chunk_ids[0..n_ranked) were found, the rest added */
    uint64_t generation;               /* the commit of its tier that answered */
    size_t bytes;                      /* of its block in hx_context.text: the header line, the passage
                                          and a '\n'; the blocks, in label order, are separated by
                                          one more '\n' */
    const char *relation;              /* NULL for a passage the search found; for an item added by
                                          relationships, the relationship in words ("is served by"),
                                          borrowed from the context */
    size_t related_to;                 /* then the label of the passage whose chunk names it */
} hx_context_source;

typedef struct hx_context {
    char *text;                        /* owned: the headers and passages, one blank line between */
    size_t len;
    hx_context_source *sources;        /* owned: in label order */
    size_t n_sources;
    size_t tokens;                     /* spent of the budget */
    uint32_t max_tokens;               /* the budget */
    size_t dropped;                    /* passages left out because they did not fit (a later, smaller
                                          one may have); > 0: the context is truncated */
    hx_session_answer answer;          /* the search: tiers read, the read context; its results are
                                          what `first` points at */
    void *keep;                        /* the passages; private */
} hx_context;
HX_API void hx_context_free(hx_context *c);
/* Searches as hx_session_search (counted as get_context) and assembles the context. HX_EINVAL for
 * what hx_session_search refuses, the registry alone, or a budget or passage count out of range.
 * *out: free with hx_context_free. */
HX_API int hx_session_context(hx_session *s, const hx_context_query *q, hx_context *out, hx_error *err);

/* === Session: conversation memory (`hyrax help memory`) === */

/* The memory file lies beside the project index (hx_session_config.db). Every turn is stamped with
 * the session's reader identity (none: tenant and user ""), and each call reads, and retention
 * removes, only the turns of that identity: a session never sees another identity's turns. */

/* Records one turn: from *t its session (1..HX_MEMORY_MAX_ID bytes), user_message (required),
 * agent_response (NULL: ""), docs (at most HX_MEMORY_MAX_DOCS), search_method (NULL or one of
 * hx_turn_methods) and relevance (0..1 or NAN); its other fields are ignored: the identity is the
 * session's, the embedding is made here, and id, number and time are assigned. Commits (durable on
 * return) and applies hx_session_config.memory. *out (may be NULL) gets the turn as recorded, its
 * strings borrowed from *t and the session. HX_EINVAL for a missing field or an unknown method,
 * HX_ERANGE for a relevance outside 0..1, a field too long or an identity past the limit,
 * HX_EPERM in a read-only session, HX_EBUSY while another process records. */
HX_API int hx_session_record_turn(hx_session *s, const hx_turn *t, hx_turn *out, hx_error *err);

/* How well a turn matched a search_history query. */
typedef struct hx_history_score {
    float score;                       /* fused by RRF (hybrid), else the one side's */
    float similarity;                  /* cosine with the query; NAN when the vector side did not rank it */
    float keyword_score;               /* BM25; NAN when the keyword side did not rank it */
} hx_history_score;

typedef struct hx_turn_list {
    hx_turn *turns;                    /* owned array; strings borrowed from the list */
    hx_history_score *scores;          /* hx_session_search_history: one per turn; else NULL */
    size_t n;
    void *keep;                        /* what the strings borrow from; private */
} hx_turn_list;
HX_API void hx_turn_list_free(hx_turn_list *l);

/* The turns of the conversation session_id, oldest first (none: n 0, not an error). */
HX_API int hx_session_get_session(hx_session *s, const char *session_id, hx_turn_list *out, hx_error *err);

#define HX_HISTORY_K 5                 /* turns a history search answers by default */
#define HX_HISTORY_K_MAX 50
typedef struct hx_history_query {
    const char *query;                 /* non-empty */
    hx_search_mode mode;               /* hybrid: cosine over the turns' embeddings and BM25 over their
                                          text, fused by RRF; or one side alone */
    uint32_t k;                        /* 0: HX_HISTORY_K; at most HX_HISTORY_K_MAX */
    const char *session_id;            /* NULL: every conversation; else that one only */
} hx_history_query;
/* The k turns best matching the query, best first, with their scores. */
HX_API int hx_session_search_history(hx_session *s, const hx_history_query *q, hx_turn_list *out, hx_error *err);

/* A conversation as list_sessions shows it. */
typedef struct hx_conversation {
    const char *session_id;            /* borrowed from the list */
    size_t turns;
    int64_t last_turn_ns;              /* when its newest turn was recorded */
} hx_conversation;
typedef struct hx_conversation_list {
    hx_conversation *v;                /* owned: newest conversation first */
    size_t n;
    void *keep;                        /* private */
} hx_conversation_list;
HX_API void hx_conversation_list_free(hx_conversation_list *l);
HX_API int hx_session_list_sessions(hx_session *s, hx_conversation_list *out, hx_error *err);

/* === Session: the registry (`hyrax help registry`) === */

/* Creates the registry's schema, or migrates an older one to HX_REGISTRY_SCHEMA_VERSION (`hyrax
 * registry init`), for the vectors of the session's model (hx_session_config.weights): a new
 * registry's vector column takes its dimension and the registry records its name; publishing or
 * searching with another model is then refused naming it (HX_EINVAL, as is init with another
 * model once one is recorded). Connected as the login role (the session's identity is not taken: the role that
 * runs it owns the tables) within hx_session_config.registry_timeout_ms (0:
 * HX_REGISTRY_CONNECT_TIMEOUT_MS). *before (may be NULL) gets the version found (0: none).
 * HX_EINVAL without a registry, HX_EPERM in a read-only session, HX_EVERSION for a registry newer
 * than this build; HX_EIO with libpq's message when it cannot be reached. */
HX_API int hx_session_registry_init(hx_session *s, int *before, hx_error *err);

#define HX_PUBLISH_BATCH 16            /* documents per transaction by default */

/* The visibilities a document may be published with, the default first; NULL-terminated. */
HX_API extern const char *const hx_publish_visibilities[];

typedef struct hx_publish_report {
    size_t published, unchanged, removed, chunks;
    hx_rejected *rejected;             /* owned: paths and reasons; free with hx_publish_report_clear */
    size_t n_rejected;
    double embed_s, store_s;           /* seconds spent embedding, and in the registry's transactions */
    size_t path_error;                 /* the call failed on paths[path_error - 1] (outside the root,
                                          too long, unresolvable); 0: on no path */
} hx_publish_report;
HX_API void hx_publish_report_clear(hx_publish_report *r);

typedef struct hx_publish_request {
    const char *const *paths;          /* files and folders under the root: root-relative, or absolute
                                          inside it; n_paths 0: the whole root */
    size_t n_paths;
    const char *visibility;            /* one of hx_publish_visibilities; NULL: "tenant" */
    bool allow_unsigned;               /* false: a file needs a valid signature (FILE.minisig or FILE.sig
                                          by a key of the root's trust store); a bad one is always refused */
    size_t batch;                      /* documents per transaction; 0: HX_PUBLISH_BATCH */
} hx_publish_request;

/* Publishes the files under the paths to the session's registry (hx_session_config.registry; a URL
 * of libpq's own defaults is "postgresql://") as the session's tenant and user: each read from the
 * root (hx_session_config.root, else the project index's), checked for its signature and by the
 * validation gate, chunked and embedded here at fp32 (the registry's vectors), in one transaction
 * per batch. A document the registry holds with the same content costs nothing; the tenant's
 * documents under a path whose file is gone are removed; files refused go to out->rejected and the
 * others go on. wo's progress (may be NULL) is asked after each committed batch (files done, files
 * in all, the last file) and once at the end (all, all, NULL); non-zero stops before the next batch
 * with HX_ECANCELED, and *out then says what the committed batches did. HX_EINVAL without a
 * registry, a root, or with an unknown visibility or a model at int8; HX_EPERM in a read-only
 * session or for a path outside the root. Caller clears *out with hx_publish_report_clear (also on
 * failure). The registry connection is opened for the call (hx_session_config.registry_timeout_ms
 * bounds connecting; 0: 10 s). */
HX_API int hx_session_publish(hx_session *s, const hx_publish_request *p, const hx_write_opts *wo,
                              hx_publish_report *out, hx_error *err);

/* === Index files changed underneath a reader === */

/* Index files are read through a memory map. A file truncated or overwritten in place while it is
 * read (a backup restored with cp) makes the read fault: SIGBUS, or SIGSEGV when rewritten bytes
 * lead a read astray. A guard turns such a fault into an error: the code between HX_FAULT_GUARD
 * and hx_fault_leave runs normally; when it faults and the application's SIGBUS / SIGSEGV handler
 * calls hx_fault_jump, control comes back to HX_FAULT_GUARD, which then yields false (the guard is
 * already left). Whatever the interrupted code had allocated is lost, and handles it was using
 * must be closed or refreshed, not trusted. Guards nest and are per thread. Only main.c installs
 * the handlers (STYLE.md); without them a fault kills the process as before.
 *
 *   hx_fault_guard g;
 *   if (HX_FAULT_GUARD(g)) { ...read the index...; hx_fault_leave(&g); } else { ...error... }
 *
 * Keep the guarded code in its own function, so no local of the caller is live across the jump.
 * sigjmp_buf is POSIX: a program compiled as strict ISO C (-std=c11 without _POSIX_C_SOURCE or
 * _DEFAULT_SOURCE) sees the rest of this header but not the guard. */
#if defined(_POSIX_C_SOURCE) || defined(_DEFAULT_SOURCE) || defined(_GNU_SOURCE) || !defined(__STRICT_ANSI__)
typedef struct hx_fault_guard {
    sigjmp_buf env;
    struct hx_fault_guard *outer;
} hx_fault_guard;
HX_API sigjmp_buf *hx_fault_enter(hx_fault_guard *g);
HX_API void hx_fault_leave(hx_fault_guard *g);
#define HX_FAULT_GUARD(g) (sigsetjmp(*hx_fault_enter(&(g)), 1) == 0)
/* From a SIGBUS or SIGSEGV handler: jumps back to this thread's innermost guard; returns only
 * when the thread is not inside one (the handler should then let the signal kill the process). */
HX_API void hx_fault_jump(void);
#endif
#define HX_FAULT_MESSAGE "the index file changed underneath this reader (truncated or overwritten while it was read)"

#ifdef __cplusplus
}
#endif
#endif
