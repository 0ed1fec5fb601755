/* ingest.h: from paths on disk to decoded documents with metadata. Walks folders (skipping VCS
 * folders and the index's own .hyrax folder, honouring --exclude globs, never following a
 * symlink out of the root), reads each file under a size cap, rejects binary files (a NUL byte
 * anywhere, or a U+0000 in UTF-16: decoded text never holds a NUL, so none of it is lost), decodes
 * UTF-8 (with or without BOM), UTF-16 with BOM, else Latin-1, and extracts title, type, front
 * matter and top-level YAML scalars. Knows nothing of chunks or indexes. */
#ifndef HX_INGEST_H
#define HX_INGEST_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

#define HX_INGEST_DEFAULT_MAX_BYTES (16u << 20)  /* files larger than this are rejected */
#define HX_META_MAX 64                           /* metadata entries kept per document */
#define HX_INGEST_MAX_GROWTH 2                   /* decoded text is at most this many times the
                                                    bytes it came from (Latin-1: 1 byte -> 2) */

typedef struct hx_doc_source {
    char *path;            /* relative to the root, '/'-separated; owned */
    char *text;            /* decoded UTF-8, NUL-terminated; owned */
    size_t text_len;
    char *title;           /* owned, never NULL */
    const char *type;      /* static: "markdown", "yaml", "json", "code" or "text" */
    const char *encoding;  /* static: "utf-8", "utf-8-bom", "utf-16le", "utf-16be" or "latin-1" */
    uint64_t size;         /* bytes on disk */
    int64_t mtime_ns;
    char sha256[65];       /* hex SHA-256 of the bytes on disk */
    hx_kv *meta;           /* owned array of n_meta entries */
    size_t n_meta;
} hx_doc_source;

/* Frees everything a document owns and zeroes it. */
void hx_doc_source_clear(hx_doc_source *d);

/* A walk's result: relative paths of candidate files, sorted bytewise, deduplicated. */
typedef struct hx_file_list {
    char **paths;          /* owned, each owned */
    size_t n, cap;
} hx_file_list;
void hx_file_list_clear(hx_file_list *l);

/* Collects the files under `targets` (files or folders, absolute or relative to the current
 * folder), each of which must lie inside `root` (an absolute, resolved folder path). Paths
 * matching any of `excludes` (globs on the root-relative path, see glob.h) are skipped, as are
 * .git, .hg, .svn and .hyrax folders. Symlinks are followed only when they resolve inside
 * root; folder cycles are cut. A target outside the root fails with HX_EPERM. */
int hx_ingest_walk(const char *root, const char *const *targets, size_t n_targets,
                   const char *const *excludes, size_t n_excludes, hx_file_list *out, hx_error *err);

/* Reads root/rel_path and fills `doc`. Fails with HX_ERANGE for a file over max_bytes,
 * HX_EFORMAT for a binary file, HX_EIO/HX_ENOTFOUND when it cannot be read. */
int hx_ingest_load(const char *root, const char *rel_path, size_t max_bytes, hx_doc_source *doc,
                   hx_error *err);

/* Builds a document from bytes in memory (add_document with content): same decoding, type by
 * the name's extension, metadata from the content plus `extra` pairs (copied). */
int hx_ingest_from_bytes(const char *name, const void *bytes, size_t len, const hx_kv *extra,
                         size_t n_extra, hx_doc_source *doc, hx_error *err);

/* Decodes raw file bytes to UTF-8 as described above; *text is owned by the caller (free).
 * A binary file fails with HX_EFORMAT, err->offset at its first NUL. */
int hx_ingest_decode(const uint8_t *raw, size_t len, char **text, size_t *text_len,
                     const char **encoding, hx_error *err);

#endif
