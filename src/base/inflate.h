/* inflate.h: DEFLATE decompression (RFC 1951: stored, fixed and dynamic Huffman blocks) and the
 * zlib wrapper (RFC 1950: header check, Adler-32 trailer), for ZIP entries and PDF FlateDecode.
 * Owns only decompression of a buffer in memory; knows no container. Output is bounded by a
 * limit the caller gives (beyond it: HX_ERANGE, never a larger allocation); no recursion; time
 * linear in the output. Corrupt streams (bad block types, invalid or over-subscribed code
 * lengths, incomplete codes other than RFC 1951's single one-bit code, distances before the start
 * of the output, input cut short, a wrong Adler-32) fail with HX_EFORMAT or HX_ETRUNCATED and the
 * input byte offset. A preset dictionary (zlib FDICT) is refused. */
#ifndef HX_INFLATE_H
#define HX_INFLATE_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

enum {
    HX_INFLATE_RAW = 0,       /* a bare RFC 1951 stream (ZIP method 8) */
    HX_INFLATE_ZLIB = 1,      /* RFC 1950: 2-byte header, deflate data, Adler-32 (PDF FlateDecode) */
    HX_INFLATE_PARTIAL = 2,   /* on a corrupt or cut stream, *out keeps what was decoded before it */
};

/* Decompresses in[0..n) (flags: HX_INFLATE_RAW or _ZLIB, optionally | _PARTIAL) into a buffer it
 * allocates, of at most `limit` bytes; `hint` is the expected size (0: unknown), used for the
 * first allocation only. On success returns 0, *out (caller frees; never NULL, even when empty)
 * and *out_len, and *in_used (may be NULL) the input bytes the stream took, trailer included.
 * On failure returns the code with err filled; *out is NULL, except with HX_INFLATE_PARTIAL when
 * some output was decoded (caller frees it then too). Output past `limit` is HX_ERANGE. */
int hxi_inflate(const void *in, size_t n, int flags, size_t limit, size_t hint, uint8_t **out, size_t *out_len,
                size_t *in_used, hx_error *err);

/* Adler-32 of p[0..len) continuing from `adler` (start with 1). */
uint32_t hxi_adler32(uint32_t adler, const void *p, size_t len);

#endif
