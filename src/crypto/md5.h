/* md5.h: MD5 (RFC 1321), only for what formats require of it (the PDF standard security handler's
 * keys); never for integrity or identity, where hyrax uses SHA-256. Streaming or one-shot. */
#ifndef HX_MD5_H
#define HX_MD5_H

#include <stddef.h>
#include <stdint.h>

typedef struct hx_md5 {
    uint32_t h[4];
    uint64_t length;      /* bytes hashed so far */
    uint8_t block[64];
    size_t used;          /* bytes waiting in block */
} hx_md5;

void hx_md5_init(hx_md5 *s);
void hx_md5_update(hx_md5 *s, const void *data, size_t len);
void hx_md5_final(hx_md5 *s, uint8_t digest[16]);
void hx_md5_digest(const void *data, size_t len, uint8_t digest[16]);

#endif
