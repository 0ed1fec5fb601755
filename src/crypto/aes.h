/* aes.h: AES (FIPS 197) with 128- and 256-bit keys and CBC (NIST SP 800-38A), only for what
 * formats require (the PDF standard security handler's AESV2 and AESV3 strings and streams, and
 * the encryption rounds inside its AES-256 password hash). No padding handling (the caller strips
 * PKCS #7). Not constant-time:
 * it decrypts documents the user already holds, it guards no secret. */
#ifndef HX_AES_H
#define HX_AES_H

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_aes {
    uint8_t rk[15][16];   /* round keys */
    int rounds;           /* 10 or 14 */
} hxi_aes;

/* key_len is 16 or 32 bytes; returns 0, or -1 for another length. */
int hxi_aes_init(hxi_aes *a, const uint8_t *key, size_t key_len);
void hxi_aes_decrypt_block(const hxi_aes *a, const uint8_t in[16], uint8_t out[16]);
void hxi_aes_encrypt_block(const hxi_aes *a, const uint8_t in[16], uint8_t out[16]);
/* CBC: encrypts n bytes (a multiple of 16) in place, chaining from iv. */
void hxi_aes_cbc_encrypt(const hxi_aes *a, const uint8_t iv[16], uint8_t *buf, size_t n);
/* CBC: decrypts n bytes (a multiple of 16) in place, chaining from iv. */
void hxi_aes_cbc_decrypt(const hxi_aes *a, const uint8_t iv[16], uint8_t *buf, size_t n);

#endif
