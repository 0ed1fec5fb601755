/* sha512.h: SHA-512 (FIPS 180-4), the hash inside Ed25519 (RFC 8032) and SSHSIG's default message
 * hash; and SHA-384 (the same with its own initial value, cut to 48 bytes) for the PDF AES-256
 * security handler. Streaming or one-shot; owns no state beyond the caller's struct. Spec: FIPS 180-4 6.4. */
#ifndef HX_SHA512_H
#define HX_SHA512_H

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_sha512 {
    uint64_t h[8];
    uint64_t length;      /* bytes hashed so far (messages over 2^61 bytes are not supported) */
    uint8_t block[128];
    size_t used;          /* bytes waiting in block */
} hxi_sha512;

void hxi_sha512_init(hxi_sha512 *s);
/* Starts SHA-384 instead: update and final as for SHA-512; the digest is final's first 48 bytes. */
void hxi_sha384_init(hxi_sha512 *s);
void hxi_sha512_update(hxi_sha512 *s, const void *data, size_t len);
void hxi_sha512_final(hxi_sha512 *s, uint8_t digest[64]);
/* One-shot digest of data[0..len). */
void hxi_sha512_digest(const void *data, size_t len, uint8_t digest[64]);

#endif
