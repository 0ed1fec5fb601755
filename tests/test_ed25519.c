/* test_ed25519.c: Ed25519 verification against RFC 8032 section 7.1 (TEST 1, 2, 3, 1024 and
 * SHA(abc)), 64 signatures made by libsodium (tests/data/sig/libsodium_vectors.txt, written by
 * tools/ed25519_vectors.py), and the refusals: S >= L, public keys and R that are not canonical
 * curve points, a changed message, a changed signature, another key. */
#include "check.h"
#include "ed25519.h"
#include "sha512.h"

#include <stdlib.h>
#include <string.h>

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
    size_t n = strlen(h) / 2;
    for (size_t i = 0; i < n && i < cap; i++)
        sscanf(h + 2 * i, "%2hhx", &out[i]);
    return n;
}

static int verify_hex(const char *pk_hex, const uint8_t *msg, size_t len, const char *sig_hex)
{
    uint8_t pk[32], sig[64];
    unhex(pk_hex, pk, 32);
    unhex(sig_hex, sig, 64);
    return hxi_ed25519_verify(sig, msg, len, pk, NULL);
}

static const char MSG1024[] =
"08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1"
    "e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d"
    "658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a"
    "7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e"
    "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10"
    "3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1"
    "85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2d17ba70eb6248e594e1a2297acbbb39d"
    "502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270"
    "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089b"
    "eccf80cfe2df16a2cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
    "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae0784504df543af8969b"
    "e3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7"
    "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988d"
    "cda6f3bfd15c4b4c4525004aa06eeff8ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df"
    "f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7"
    "984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4"
    "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac09"
    "43bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f"
    "b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f161"
    "0e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
    "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8ca"
    "c60c905c15fc910840b94c00a0b9d0";

/* L = 2^252 + 27742317777372353535851937790883648493, little-endian (RFC 8032 5.1). */
static const uint8_t L[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                              0xa2, 0xde, 0xf9, 0xde, 0x14, [31] = 0x10};

static void add_le(uint8_t *a, const uint8_t *b, size_t n)
{
    unsigned c = 0;
    for (size_t i = 0; i < n; i++) {
        c += (unsigned)a[i] + b[i];
        a[i] = (uint8_t)c;
        c >>= 8;
    }
}

int main(void)
{
    /* RFC 8032 7.1 */
    const char *pk1 = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
    const char *sig1 = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";
    CHECK(verify_hex(pk1, (const uint8_t *)"", 0, sig1) == 0, "TEST 1");
    const char *pk2 = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";
    const char *sig2 = "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00";
    uint8_t m2[1] = {0x72};
    CHECK(verify_hex(pk2, m2, 1, sig2) == 0, "TEST 2");
    const char *pk3 = "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025";
    const char *sig3 = "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a";
    uint8_t m3[2] = {0xaf, 0x82};
    CHECK(verify_hex(pk3, m3, 2, sig3) == 0, "TEST 3");
    uint8_t m1024[1023];
    CHECK(unhex(MSG1024, m1024, sizeof m1024) == 1023, "TEST 1024 message is 1023 bytes");
    CHECK(verify_hex("278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e", m1024, 1023,
                     "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03") == 0,
          "TEST 1024");
    uint8_t abc[64];
    hxi_sha512_digest("abc", 3, abc);
    CHECK(verify_hex("ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf", abc, 64,
                     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704") == 0,
          "TEST SHA(abc)");

    /* Changed message, changed signature, another key. */
    uint8_t m2x[1] = {0x73};
    CHECK(verify_hex(pk2, m2x, 1, sig2) == HX_EPERM, "TEST 2 with another message");
    CHECK(verify_hex(pk3, m2, 1, sig2) == HX_EPERM, "TEST 2 under TEST 3's key");
    m1024[512] ^= 1;
    CHECK(verify_hex("278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e", m1024, 1023,
                     "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03") == HX_EPERM,
          "TEST 1024 with one bit flipped");

    uint8_t pk[32], sig[64];
    unhex(pk1, pk, 32);
    for (int bit = 0; bit < 512; bit += 7) {
        unhex(sig1, sig, 64);
        sig[bit / 8] ^= (uint8_t)(1 << (bit % 8));
        CHECK(hxi_ed25519_verify(sig, NULL, 0, pk, NULL) != 0, "TEST 1, signature bit %d flipped", bit);
    }

    /* S >= L: S + L is the same scalar mod L, so a lax verifier would accept it (malleability). */
    hx_error err = {0};
    unhex(sig1, sig, 64);
    add_le(sig + 32, L, 32);
    CHECK(hxi_ed25519_verify(sig, NULL, 0, pk, &err) == HX_EFORMAT && strstr(err.message, "below L"),
          "S + L refused: %s", err.message);
    memcpy(sig + 32, L, 32);
    CHECK(hxi_ed25519_verify(sig, NULL, 0, pk, NULL) == HX_EFORMAT, "S = L refused");
    memset(sig + 32, 0xff, 32);
    CHECK(hxi_ed25519_verify(sig, NULL, 0, pk, NULL) == HX_EFORMAT, "S = 2^256 - 1 refused");

    /* Points: y = 2 has no x on the curve ((y^2 - 1) / (d y^2 + 1) is not a square mod p, checked
     * with Python integers); y = p and y = p + 1 are not reduced; y = 1 with the sign bit set is
     * x = 0 with a negative sign, which RFC 8032 5.1.3 step 4 refuses. */
    uint8_t bad[4][32] = {{2}, {0xed}, {0xee}, {1}};
    for (int i = 1; i <= 2; i++) {
        memset(bad[i] + 1, 0xff, 30);
        bad[i][31] = 0x7f;
    }
    bad[3][31] = 0x80;
    unhex(sig1, sig, 64);
    for (int i = 0; i < 4; i++) {
        CHECK(hxi_ed25519_verify(sig, NULL, 0, bad[i], &err) == HX_EFORMAT &&
              strstr(err.message, "public key"), "bad public key %d refused: %s", i, err.message);
        uint8_t s2[64];
        memcpy(s2, bad[i], 32);
        memcpy(s2 + 32, sig + 32, 32);
        CHECK(hxi_ed25519_verify(s2, NULL, 0, pk, &err) == HX_EFORMAT && strstr(err.message, "R "),
              "bad R %d refused: %s", i, err.message);
    }

    /* Small order (libsodium's ge25519_has_small_order): y = 0 is a point of order 4 (x^2 = -1),
     * y = 1 the identity, y = -1 the point of order 2. With A = (sqrt(-1), 0) the fuzzer found an
     * (R, S) that verified for two messages under the bare equation (fuzz/corpus/ed25519/). */
    uint8_t small[3][32] = {{0}, {1}, {0xec}};
    memset(small[2] + 1, 0xff, 30);
    small[2][31] = 0x7f;
    for (int i = 0; i < 3; i++) {
        CHECK(hxi_ed25519_verify(sig, NULL, 0, small[i], &err) == HX_EFORMAT && strstr(err.message, "small order"),
              "small-order public key %d refused: %s", i, err.message);
        uint8_t s2[64];
        memcpy(s2, small[i], 32);
        memcpy(s2 + 32, sig + 32, 32);
        CHECK(hxi_ed25519_verify(s2, NULL, 0, pk, &err) == HX_EFORMAT && strstr(err.message, "small order"),
              "small-order R %d refused: %s", i, err.message);
    }
    size_t clen;
    char *crash = check_read_file("fuzz/corpus/ed25519/small_order_key", &clen);
    CHECK(crash && clen > 96 && hxi_ed25519_verify((uint8_t *)crash, (uint8_t *)crash + 96, clen - 96,
                                                   (uint8_t *)crash + 64, NULL) == HX_EFORMAT,
          "the fuzzer's small-order key refused");
    free(crash);

    /* libsodium's signatures: each verifies, and fails with its last message byte changed. */
    size_t len;
    char *text = check_read_file("tests/data/sig/libsodium_vectors.txt", &len);
    CHECK(text != NULL, "tests/data/sig/libsodium_vectors.txt");
    int cases = 0;
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        char pkh[65], msgh[700], sigh[129];
        if (sscanf(line, "%64s %699s %128s", pkh, msgh, sigh) != 3)
            continue;
        uint8_t msg[350];
        size_t n = strcmp(msgh, "-") ? unhex(msgh, msg, sizeof msg) : 0;
        CHECK(verify_hex(pkh, msg, n, sigh) == 0, "libsodium case %d (%zu bytes)", cases, n);
        if (n) {
            msg[n - 1] ^= 0x80;
            CHECK(verify_hex(pkh, msg, n, sigh) == HX_EPERM, "libsodium case %d changed", cases);
        }
        cases++;
    }
    CHECK(cases == 64, "64 libsodium cases, got %d", cases);
    free(text);
    return check_report("test_ed25519");
}
