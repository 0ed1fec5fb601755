/* test_md5.c: src/crypto/md5.c against the test suite of RFC 1321 appendix A.5, one-shot and fed in
 * pieces across block boundaries. */
#include "check.h"

#include "md5.h"

static void hex(const uint8_t d[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int main(void)
{
    static const char *const v[][2] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        uint8_t d[16];
        char h[33];
        hxi_md5_digest(v[i][0], strlen(v[i][0]), d);
        hex(d, h);
        CHECK(!strcmp(h, v[i][1]), "md5(\"%s\") = %s, want %s", v[i][0], h, v[i][1]);
        hxi_md5 s;
        hxi_md5_init(&s);
        for (size_t k = 0; k < strlen(v[i][0]); k += 7)
            hxi_md5_update(&s, v[i][0] + k, strlen(v[i][0]) - k < 7 ? strlen(v[i][0]) - k : 7);
        hxi_md5_final(&s, d);
        hex(d, h);
        CHECK(!strcmp(h, v[i][1]), "md5 in pieces of \"%s\"", v[i][0]);
    }
    return check_report("md5");
}
