/* md5.h: MD5 (RFC 1321), only for what formats require of it (the PDF standard security handler's
 * keys); never for integrity or identity, where hyrax uses SHA-256. Streaming or one-shot. */
#ifndef HX_MD5_H
#define HX_MD5_H

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_md5 {
    uint32_t h[4];
    uint64_t length;      /* bytes hashed so far */
    uint8_t block[64];
    size_t used;          /* bytes waiting in block */
} hxi_md5;

void hxi_md5_init(hxi_md5 *s);
void hxi_md5_update(hxi_md5 *s, const void *data, size_t len);
void hxi_md5_final(hxi_md5 *s, uint8_t digest[16]);
void hxi_md5_digest(const void *data, size_t len, uint8_t digest[16]);

#endif
