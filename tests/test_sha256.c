/* test_sha256.c: SHA-256 against the FIPS 180-4 / NIST example vectors, one-shot and streamed
 * in odd-sized pieces. */
#include "check.h"
#include "sha256.h"

#include <stdlib.h>
#include <string.h>

static void check_hex(const char *msg, size_t len, const char *want)
{
    char hex[65];
    hxi_sha256_hex(msg, len, hex);
    CHECK(!strcmp(hex, want), "sha256 of %zu bytes: %s", len, hex);
}

int main(void)
{
    check_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_hex(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                       "klmnopqrlmnopqrsmnopqrstnopqrstu";
    check_hex(m896, strlen(m896), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

    size_t n = 1000000;
    char *a = malloc(n);
    memset(a, 'a', n);
    check_hex(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    hxi_sha256 s;
    uint8_t d1[32], d2[32];
    hxi_sha256_init(&s);
    for (size_t off = 0, step = 1; off < n; off += step, step = step * 3 % 127 + 1)
        hxi_sha256_update(&s, a + off, off + step > n ? n - off : step);
    hxi_sha256_final(&s, d1);
    hxi_sha256_init(&s);
    hxi_sha256_update(&s, a, n);
    hxi_sha256_final(&s, d2);
    CHECK(!memcmp(d1, d2, 32), "streamed in odd pieces equals one-shot");
    free(a);
    return check_report("test_sha256");
}
