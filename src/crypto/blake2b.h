/* blake2b.h: BLAKE2b (RFC 7693), unkeyed, any digest length 1..64; minisign's prehashed signatures
 * ("ED") sign BLAKE2b-512 of the file. Streaming or one-shot; no state beyond the caller's struct. */
#ifndef HX_BLAKE2B_H
#define HX_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_blake2b {
    uint64_t h[8];
    uint64_t t[2];        /* bytes compressed so far, 128-bit counter */
    uint8_t block[128];
    size_t used;          /* bytes waiting in block (a full block waits until more data comes) */
    size_t outlen;
} hxi_blake2b;

/* outlen 1..64 (other values are clamped into that range). */
void hxi_blake2b_init(hxi_blake2b *s, size_t outlen);
void hxi_blake2b_update(hxi_blake2b *s, const void *data, size_t len);
void hxi_blake2b_final(hxi_blake2b *s, uint8_t *digest);   /* writes outlen bytes */
/* One-shot BLAKE2b-512 of data[0..len). */
void hxi_blake2b512(const void *data, size_t len, uint8_t digest[64]);

#endif
