/* test_sha512.c: SHA-512 against the FIPS 180-4 / NIST example vectors and BLAKE2b-512 against
 * RFC 7693 Appendix A, plus messages of 111..1000 bytes around the block boundaries whose digests
 * come from Python's hashlib (OpenSSL / the BLAKE2 reference code), one-shot and streamed. */
#include "blake2b.h"
#include "check.h"
#include "sha512.h"

#include <stdlib.h>
#include <string.h>

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_sha(const void *msg, size_t len, const char *want)
{
    uint8_t d[64];
    char h[129];
    hxi_sha512_digest(msg, len, d);
    hex(d, 64, h);
    CHECK(!strcmp(h, want), "sha512 of %zu bytes: %s", len, h);
    hxi_sha512 s;   /* streamed in pieces of 1, 2, 3, ... bytes */
    hxi_sha512_init(&s);
    for (size_t off = 0, step = 1; off < len; off += step, step = step % 131 + 1)
        hxi_sha512_update(&s, (const uint8_t *)msg + off, off + step > len ? len - off : step);
    hxi_sha512_final(&s, d);
    hex(d, 64, h);
    CHECK(!strcmp(h, want), "sha512 streamed, %zu bytes: %s", len, h);
}

static void check_b2(const void *msg, size_t len, const char *want)
{
    uint8_t d[64];
    char h[129];
    hxi_blake2b512(msg, len, d);
    hex(d, 64, h);
    CHECK(!strcmp(h, want), "blake2b-512 of %zu bytes: %s", len, h);
    hxi_blake2b s;
    hxi_blake2b_init(&s, 64);
    for (size_t off = 0, step = 1; off < len; off += step, step = step % 131 + 1)
        hxi_blake2b_update(&s, (const uint8_t *)msg + off, off + step > len ? len - off : step);
    hxi_blake2b_final(&s, d);
    hex(d, 64, h);
    CHECK(!strcmp(h, want), "blake2b-512 streamed, %zu bytes: %s", len, h);
}

int main(void)
{
    /* FIPS 180-4 examples (NIST CSRC "SHA512.pdf", "SHA2_Additional"). */
    check_sha("", 0, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
    check_sha("abc", 3, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha(m448, strlen(m448), "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                       "klmnopqrlmnopqrsmnopqrstnopqrstu";
    check_sha(m896, strlen(m896), "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");
    size_t n = 1000000;
    char *a = malloc(n);
    memset(a, 'a', n);
    check_sha(a, n, "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
    free(a);

    /* RFC 7693 Appendix A ("abc") and the empty message. */
    check_b2("abc", 3, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
    check_b2("", 0, "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce");

    /* Byte i is (7 i) mod 251; digests from hashlib.sha512 / hashlib.blake2b. */
    static const struct { size_t n; const char *sha, *b2; } pat[] = {
        {111, "5216d13709f87553bb90f2b3132e9288ab8a4b5da592ddf50e4318297b0063cf3796a6a5fd64ae324a260f0d52a49888912baa009d38bfb354be1d914af93439", "4fc575deb327c821abac87ad24707cb53b6582bb6c8553902248b60c032cdaca783e360cda302bcf750838757def3f3ec0e5223a92718896323562811c9f08a1"},
        {112, "d649bd41483483d5084f9e6fd7dc99cfd6652784e8b8c460446c7df8a42d10ccb7ef1d1cd98db5515ae852b18bb520653bb05f09ef06a3be70794275fd510136", "9f60ea99c0da3863be46e02dafc355b7e0b498dc7d5a5a3c229b358cb7b7c04175801e68c5f4db6bab1db7ab2205897e33867723a9d201d11fa17145a8465534"},
        {127, "5f7a1b38d6f68c860a848b423714bf00dbfa03caa8fcf8bb1655db4f8ae5aa5dc6c9bbb5b598ef994f61812e3cfa28080eca5f3618af5d10213ff898a836eac6", "ec2b4ebd83459a83ba49bdfaea2cf0df796dfa2ecd38c826ea407c6e6f655405b42d21eac642d131b866a14fce46de8adbf0341a35d79c3f0a54a54095330291"},
        {128, "605ace9e1ce61b88274cad94302e92eb00cf23718c85b0f22c7ede8f080f02baab0d21d6f123dcc04de19f0b83bf0ffb4962a575c03335e7772d938ed66adca4", "3c2d4866bfb0691d821b7c8ff0bca5550132168058d777cddf8674b896aa2c34a98f340aa52cab29464bdeb22e0a0c889ccc35456e1ea350ea157ff5b5ebc27d"},
        {129, "5474d0cb46dbfa325fc3245adcf3b6a173fcb7c255fbba729f08ede4959d17a313c1b68c81bf15b1aad1419bd95829dd86080144a9d2466fde82b47cccf4545f", "2298fdc7acc41f58a2833279c6e4439aef2fe12c161891cb6568163732d079f1090e994da16838874ba0adc784091deeda825bb8dc9a99b1c711579700d4c3bf"},
        {255, "ef119e813169b29f12ecb52d3d2ddb3ea7f805601a4a4cf0a3d4af9523ec0c1e6da4d2837e52aefe9c1dd15891bca73e56427de2014a4214989ccb2338a6acd9", "cbef65fb62b4d72781646534eefa7b2087ea7fb07d47eabbf16e5c8956e57cc8831654d96cf0898add8cab835f9f5f6f66018f6de31101e030d8cacf4f296338"},
        {256, "42e9ccb1a0f16df109d4866cc7bb21693cba81db28c415253e784f1ac2d7f0e7ec009830edc2a4881ff31fe27c429dfb5a01304353ac24e37c527149824628e4", "b0087fc9e88e473ae9da7b28e54f4840e3e60d322341ee6487df263f0f8a50c71d992ab6d6ea8f14957758fdf3a0008b48e2b7c8ec265b912c4e0d369709e96e"},
        {1000, "7e658e1b50b8375e8ffe4c26591de6ea5c387436a5169172ea07649fc85e7bc989471fad8307cb20b5bf2785bbfad2ef47945e5558c3be23aa8a08d7bae3e7d0", "b611add97bcaee5ccef087e5afe33b18a680ada1bc8fbd70da5664e54dec31b118fbca4ea5ab704f61802c952d74679bdd9b210b77740955c872c23504c9c5f9"},
    };
    uint8_t m[1000];
    for (size_t i = 0; i < sizeof m; i++)
        m[i] = (uint8_t)(i * 7 % 251);
    for (size_t i = 0; i < sizeof pat / sizeof pat[0]; i++) {
        check_sha(m, pat[i].n, pat[i].sha);
        check_b2(m, pat[i].n, pat[i].b2);
    }
    return check_report("test_sha512");
}
