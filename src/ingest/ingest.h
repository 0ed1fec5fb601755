/* ingest.h: from paths on disk to decoded documents with metadata. Walks folders (skipping VCS
 * folders, the index's own .hyrax folder and the index file itself, honouring --exclude globs,
 * never following a symlink out of the root, leaving signature and key files out: gate.h
 * ix_gate_is_signature_file), reads each file under a size cap through
 * hxi_fs_open_under (fsafe.h: no symlink is followed at read time, only regular files), rejects
 * binary files and decodes the rest (doctype.h hxi_doc_decode), and builds the document
 * (doctype.h hxi_doc_source) through its type's row (doctype.h: detection, extraction, describing):
 * text, title, blocks and metadata (a list is one entry per item), plus word_count for every
 * document. Knows nothing of chunks or indexes. */
#ifndef HX_INGEST_H
#define HX_INGEST_H

#include "doctype.h"
#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

#define HX_WALK_MAX_DEPTH 64   /* folders below a target; deeper ones are rejected, not entered */

/* Appends {path, reason} (both copied; with `named` the reason reads "<path>: <reason>") to the
 * array *v of *n rejected documents, growing it by one (rejections are rare). 0, or HX_ENOMEM
 * with nothing added. The one way the index layer lists a rejected document. */
int hxi_rejected_add(hx_rejected **v, size_t *n, const char *path, const char *reason, bool named, hx_error *err);
/* Frees the n rejected documents of v and the array. */
void hxi_rejected_free(hx_rejected *v, size_t n);

/* A walk's result: relative paths of candidate files, sorted bytewise, deduplicated, and the
 * folders and files it had to leave out, each with a reason. */
typedef struct hxi_file_list {
    char **paths;          /* owned, each owned; the bytes after a path's NUL hold its real path */
    size_t n, cap;
    hx_rejected *rejected; /* owned: paths and reasons owned */
    size_t n_rejected;
} hxi_file_list;
void hxi_file_list_clear(hxi_file_list *l);

/* The real path of entry i: the root-relative path, free of symlinks when the walk saw it, that
 * reaches the same file as paths[i] (they differ when the walk followed a symlink inside the
 * root). Borrowed from the list. */
const char *hxi_file_list_real(const hxi_file_list *l, size_t i);

/* Collects the files under `targets` (clean root-relative names, see fsafe.h hx_fs_target; ""
 * is the root), inside `root` (an absolute, resolved folder path). Paths matching any of
 * `excludes` (globs on the root-relative path, see glob.h) are skipped, as are .git, .hg, .svn
 * and .hyrax folders and, when `index_file` (may be NULL) lies under the root, that file (by
 * device and inode) and the temporary files beside it (store.h hxi_store_owns_name). Symlinks are
 * followed only when they resolve inside root; folder cycles are cut. Folders deeper than
 * HX_WALK_MAX_DEPTH, paths longer than PATH_MAX and a target that is neither a regular file nor
 * a folder go to out->rejected (other special files are passed over). A target that does not
 * exist fails with HX_ENOTFOUND, one that resolves outside the root with HX_EPERM, an exclude
 * past glob.h's limits with HX_EINVAL. */
int hxi_ingest_walk(const char *root, const char *const *targets, size_t n_targets,
                    const char *const *excludes, size_t n_excludes, const char *index_file,
                    hxi_file_list *out, hx_error *err);

/* Reads the file `read_path` (a root-relative name; NULL means rel_path) under root with
 * hxi_fs_open_under, so no symlink is followed and only a regular file is read, and fills `doc`
 * as the document rel_path (hxi_file_list gives both). Fails with HX_ERANGE for a file over
 * max_bytes, HX_EFORMAT for a binary or non-regular file, HX_EPERM for a symlink on the way,
 * HX_EIO/HX_ENOTFOUND when it cannot be read. */
int hxi_ingest_load(const char *root, const char *rel_path, const char *read_path, size_t max_bytes,
                    hxi_doc_source *doc, hx_error *err);

/* The reading half of hxi_ingest_load: the file's bytes into *raw (caller frees; *len bytes) and
 * its mtime, with the same confinement and the same errors but the decoding ones. */
int hxi_ingest_read(const char *root, const char *rel_path, const char *read_path, size_t max_bytes,
                    uint8_t **raw, size_t *len, int64_t *mtime_ns, hx_error *err);

/* Builds a document from bytes in memory (add_document with content): same decoding, type by
 * content then the name (hxi_doctype_detect), metadata from the content plus `extra` pairs (copied,
 * and winning over the content's). An extractor's refusal fails with its code (HX_EFORMAT) and
 * reason. */
int hxi_ingest_from_bytes(const char *name, const void *bytes, size_t len, const hx_kv *extra,
                          size_t n_extra, hxi_doc_source *doc, hx_error *err);

#endif
