/* test_aes.c: src/crypto/aes.c against FIPS 197 appendix C (AES-128 and AES-256 single blocks) and
 * NIST SP 800-38A F.2.1/F.2.2 (CBC-AES128, two blocks); and SHA-384 (src/base/sha512.c) on FIPS
 * 180-4's "abc". */
#include "check.h"

#include "aes.h"
#include "sha512.h"

static void unhex(const char *h, uint8_t *out)
{
    for (size_t i = 0; h[2 * i]; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

int main(void)
{
    static const char *const v[][3] = {   /* key, ciphertext, plaintext */
        {"000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a", "00112233445566778899aabbccddeeff"},
        {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "8ea2b7ca516745bfeafc49904b496089",
         "00112233445566778899aabbccddeeff"},
    };
    for (size_t i = 0; i < 2; i++) {
        uint8_t key[32], ct[16], pt[16], out[16];
        unhex(v[i][0], key);
        unhex(v[i][1], ct);
        unhex(v[i][2], pt);
        hxi_aes a;
        CHECK(hxi_aes_init(&a, key, strlen(v[i][0]) / 2) == 0, "key %zu", i);
        hxi_aes_decrypt_block(&a, ct, out);
        CHECK(!memcmp(out, pt, 16), "FIPS 197 C.%zu", i ? (size_t)3 : (size_t)1);
        hxi_aes_encrypt_block(&a, pt, out);
        CHECK(!memcmp(out, ct, 16), "FIPS 197 C.%zu encryption", i ? (size_t)3 : (size_t)1);
    }
    uint8_t key[16], iv[16], buf[32], want[32];
    unhex("2b7e151628aed2a6abf7158809cf4f3c", key);
    unhex("000102030405060708090a0b0c0d0e0f", iv);
    unhex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2", buf);
    unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51", want);
    hxi_aes a;
    hxi_aes_init(&a, key, 16);
    hxi_aes_cbc_decrypt(&a, iv, buf, 32);
    CHECK(!memcmp(buf, want, 32), "SP 800-38A F.2.2");
    hxi_aes_cbc_encrypt(&a, iv, buf, 32);   /* F.2.1 is F.2.2 the other way */
    unhex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2", want);
    CHECK(!memcmp(buf, want, 32), "SP 800-38A F.2.1");
    hxi_sha512 h;   /* SHA-384 of "abc", FIPS 180-4's example (NIST's SHA-384 example values) */
    uint8_t d[64], d384[48];
    hxi_sha384_init(&h);
    hxi_sha512_update(&h, "abc", 3);
    hxi_sha512_final(&h, d);
    unhex("cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7", d384);
    CHECK(!memcmp(d, d384, 48), "SHA-384 abc");
    CHECK(hxi_aes_init(&a, key, 24) == -1, "AES-192 is not offered");
    return check_report("aes");
}
