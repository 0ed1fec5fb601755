/* blake2b.c: BLAKE2b as specified in RFC 7693 (sections 2 and 3), unkeyed. Portable C. Used for
 * minisign's prehashed signatures (sig.c). */
#include "blake2b.h"

#include "bytes.h"

#include <string.h>

/* RFC 7693 2.6: the SHA-512 initial values. */
static const uint64_t IV[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
                               0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
                               0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};

/* RFC 7693 2.7: message word permutations; rounds 10 and 11 reuse rows 0 and 1. */
static const uint8_t SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

static uint64_t rotr(uint64_t x, int n) { return x >> n | x << (64 - n); }

#define G(a, b, c, d, x, y)                      \
    do {                                         \
        v[a] = v[a] + v[b] + (x);                \
        v[d] = rotr(v[d] ^ v[a], 32);            \
        v[c] = v[c] + v[d];                      \
        v[b] = rotr(v[b] ^ v[c], 24);            \
        v[a] = v[a] + v[b] + (y);                \
        v[d] = rotr(v[d] ^ v[a], 16);            \
        v[c] = v[c] + v[d];                      \
        v[b] = rotr(v[b] ^ v[c], 63);            \
    } while (0)

/* RFC 7693 3.2: F, with `last` set for the final block. */
static void compress(hxi_blake2b *s, const uint8_t *p, int last)
{
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++)
        m[i] = hxf_le64(p + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = IV[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last)
        v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *z = SIGMA[r % 10];
        G(0, 4, 8, 12, m[z[0]], m[z[1]]);
        G(1, 5, 9, 13, m[z[2]], m[z[3]]);
        G(2, 6, 10, 14, m[z[4]], m[z[5]]);
        G(3, 7, 11, 15, m[z[6]], m[z[7]]);
        G(0, 5, 10, 15, m[z[8]], m[z[9]]);
        G(1, 6, 11, 12, m[z[10]], m[z[11]]);
        G(2, 7, 8, 13, m[z[12]], m[z[13]]);
        G(3, 4, 9, 14, m[z[14]], m[z[15]]);
    }
    for (int i = 0; i < 8; i++)
        s->h[i] ^= v[i] ^ v[i + 8];
}

static void count(hxi_blake2b *s, size_t n)
{
    s->t[0] += n;
    if (s->t[0] < n)
        s->t[1]++;
}

void hxi_blake2b_init(hxi_blake2b *s, size_t outlen)
{
    outlen = outlen < 1 ? 1 : outlen > 64 ? 64 : outlen;
    memcpy(s->h, IV, sizeof IV);
    s->h[0] ^= 0x01010000 ^ (uint64_t)outlen;   /* depth 1, fanout 1, no key */
    s->t[0] = s->t[1] = 0;
    s->used = 0;
    s->outlen = outlen;
}

void hxi_blake2b_update(hxi_blake2b *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        if (s->used == 128) {   /* more data follows, so the waiting block is not the last */
            count(s, 128);
            compress(s, s->block, 0);
            s->used = 0;
        }
        size_t take = 128 - s->used < len ? 128 - s->used : len;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        len -= take;
    }
}

void hxi_blake2b_final(hxi_blake2b *s, uint8_t *digest)
{
    count(s, s->used);
    memset(s->block + s->used, 0, 128 - s->used);
    compress(s, s->block, 1);
    uint8_t full[64];
    for (int i = 0; i < 8; i++)
        hxf_put64(full + 8 * i, s->h[i]);
    memcpy(digest, full, s->outlen);
}

void hxi_blake2b512(const void *data, size_t len, uint8_t digest[64])
{
    hxi_blake2b s;
    hxi_blake2b_init(&s, 64);
    hxi_blake2b_update(&s, data, len);
    hxi_blake2b_final(&s, digest);
}
