/* sha256.h: SHA-256 (FIPS 180-4), for document content hashes. Streaming or one-shot. */
#ifndef HX_SHA256_H
#define HX_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_sha256 {
    uint32_t h[8];
    uint64_t length;      /* bytes hashed so far */
    uint8_t block[64];
    size_t used;          /* bytes waiting in block */
} hxi_sha256;

void hxi_sha256_init(hxi_sha256 *s);
void hxi_sha256_update(hxi_sha256 *s, const void *data, size_t len);
void hxi_sha256_final(hxi_sha256 *s, uint8_t digest[32]);
/* One-shot: writes 64 lowercase hex digits and a NUL into hex. */
void hxi_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
