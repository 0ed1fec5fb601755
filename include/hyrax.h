/* hyrax.h: the one public header of hyrax, a local hybrid-search engine (MiniLM embeddings, HNSW,
 * BM25, reciprocal rank fusion, one crash-safe index file). Every public name is hx_<noun>_<verb>;
 * module internals live in src/<module>.h and are not part of this API. See ../shared/DESIGN.md.
 *
 * Conventions (STYLE.md): functions return 0 or a negative HX_E* code; details go into a
 * caller-supplied hx_error (which may be NULL). Ownership is stated at each declaration. */
#ifndef HYRAX_H
#define HYRAX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
};

/* Error details. `offset` is a byte position in the input or file, or -1 when none applies. */
typedef struct hx_error {
    int code;
    int64_t offset;
    char message[256];
} hx_error;

/* Static string naming `code`; never NULL. */
const char *hx_strerror(int code);

/* Fills `err` (if not NULL) with code, offset and a printf-style message; returns `code`, so
 * callers write `return hx_error_set(err, HX_EFORMAT, off, "...", ...);`. */
int hx_error_set(hx_error *err, int code, int64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* === Model and tokenizer === */

#define HX_EMBED_DIM 384       /* output dimension of all-MiniLM-L6-v2 */
#define HX_MAX_SEQ_TOKENS 256  /* sentence-transformers max_seq_length, [CLS] and [SEP] included */

#ifdef __cplusplus
}
#endif
#endif
