/* aes.c: AES (FIPS 197 sections 5.1 and 5.3, the cipher and its inverse) and CBC; see aes.h. The S-box
 * is computed once from its definition (multiplicative inverse in GF(2^8) and the affine map of
 * section 5.1.1) rather than typed in. Tested against FIPS 197 appendix C (tests/test_aes.c). */
#include "aes.h"

#include <pthread.h>
#include <string.h>

static uint8_t sbox[256], inv[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static uint8_t rotl8(uint8_t x, int s)
{
    return (uint8_t)(x << s | x >> (8 - s));
}

static void make_sbox(void)
{
    uint8_t p = 1, q = 1;
    do {   /* p walks GF(2^8)* by 3, q by 3's inverse, so q = 1/p */
        p = (uint8_t)(p ^ (p << 1) ^ (p & 0x80 ? 0x1B : 0));
        q ^= (uint8_t)(q << 1);
        q ^= (uint8_t)(q << 2);
        q ^= (uint8_t)(q << 4);
        if (q & 0x80)
            q ^= 0x09;
        sbox[p] = (uint8_t)(q ^ rotl8(q, 1) ^ rotl8(q, 2) ^ rotl8(q, 3) ^ rotl8(q, 4) ^ 0x63);
    } while (p != 1);
    sbox[0] = 0x63;
    for (int i = 0; i < 256; i++)
        inv[sbox[i]] = (uint8_t)i;
}

static uint8_t xt(uint8_t x)
{
    return (uint8_t)(x << 1 ^ (x & 0x80 ? 0x1B : 0));
}

static uint8_t mul(uint8_t x, uint8_t y)
{
    uint8_t r = 0;
    for (; y; y >>= 1, x = xt(x))
        if (y & 1)
            r ^= x;
    return r;
}

int hxi_aes_init(hxi_aes *a, const uint8_t *key, size_t key_len)
{
    if (key_len != 16 && key_len != 32)
        return -1;
    pthread_once(&once, make_sbox);
    int nk = (int)key_len / 4, nr = nk + 6, total = 4 * (nr + 1);
    uint8_t w[60][4], rcon = 1;
    memcpy(w, key, key_len);
    for (int i = nk; i < total; i++) {
        uint8_t t[4];
        memcpy(t, w[i - 1], 4);
        if (i % nk == 0) {
            uint8_t t0 = t[0];
            t[0] = (uint8_t)(sbox[t[1]] ^ rcon);
            t[1] = sbox[t[2]];
            t[2] = sbox[t[3]];
            t[3] = sbox[t0];
            rcon = xt(rcon);
        } else if (nk > 6 && i % nk == 4) {
            for (int k = 0; k < 4; k++)
                t[k] = sbox[t[k]];
        }
        for (int k = 0; k < 4; k++)
            w[i][k] = w[i - nk][k] ^ t[k];
    }
    memcpy(a->rk, w, (size_t)total * 4);
    a->rounds = nr;
    return 0;
}

void hxi_aes_decrypt_block(const hxi_aes *a, const uint8_t in[16], uint8_t out[16])
{
    uint8_t s[16], t[16];
    for (int i = 0; i < 16; i++)
        s[i] = in[i] ^ a->rk[a->rounds][i];
    for (int r = a->rounds - 1; r >= 0; r--) {
        for (int c = 0; c < 4; c++)   /* InvShiftRows and InvSubBytes: row k moves right by k */
            for (int k = 0; k < 4; k++)
                t[4 * ((c + k) % 4) + k] = inv[s[4 * c + k]];
        for (int i = 0; i < 16; i++)
            t[i] ^= a->rk[r][i];
        if (r == 0) {
            memcpy(out, t, 16);
            return;
        }
        for (int c = 0; c < 4; c++) {   /* InvMixColumns */
            uint8_t *x = t + 4 * c;
            s[4 * c + 0] = mul(x[0], 14) ^ mul(x[1], 11) ^ mul(x[2], 13) ^ mul(x[3], 9);
            s[4 * c + 1] = mul(x[0], 9) ^ mul(x[1], 14) ^ mul(x[2], 11) ^ mul(x[3], 13);
            s[4 * c + 2] = mul(x[0], 13) ^ mul(x[1], 9) ^ mul(x[2], 14) ^ mul(x[3], 11);
            s[4 * c + 3] = mul(x[0], 11) ^ mul(x[1], 13) ^ mul(x[2], 9) ^ mul(x[3], 14);
        }
    }
}

void hxi_aes_cbc_decrypt(const hxi_aes *a, const uint8_t iv[16], uint8_t *buf, size_t n)
{
    uint8_t prev[16], cur[16];
    memcpy(prev, iv, 16);
    for (size_t i = 0; i + 16 <= n; i += 16) {
        memcpy(cur, buf + i, 16);
        hxi_aes_decrypt_block(a, cur, buf + i);
        for (int k = 0; k < 16; k++)
            buf[i + k] ^= prev[k];
        memcpy(prev, cur, 16);
    }
}

void hxi_aes_encrypt_block(const hxi_aes *a, const uint8_t in[16], uint8_t out[16])
{
    uint8_t s[16], t[16];
    for (int i = 0; i < 16; i++)
        s[i] = in[i] ^ a->rk[0][i];
    for (int r = 1; r <= a->rounds; r++) {
        for (int c = 0; c < 4; c++)   /* SubBytes and ShiftRows: row k moves left by k */
            for (int k = 0; k < 4; k++)
                t[4 * c + k] = sbox[s[4 * ((c + k) % 4) + k]];
        if (r < a->rounds)
            for (int c = 0; c < 4; c++) {   /* MixColumns */
                uint8_t *x = t + 4 * c, y[4];
                for (int k = 0; k < 4; k++)
                    y[k] = xt(x[k]) ^ xt(x[(k + 1) % 4]) ^ x[(k + 1) % 4] ^ x[(k + 2) % 4] ^ x[(k + 3) % 4];
                memcpy(x, y, 4);
            }
        for (int i = 0; i < 16; i++)
            s[i] = t[i] ^ a->rk[r][i];
    }
    memcpy(out, s, 16);
}

void hxi_aes_cbc_encrypt(const hxi_aes *a, const uint8_t iv[16], uint8_t *buf, size_t n)
{
    const uint8_t *prev = iv;
    for (size_t i = 0; i + 16 <= n; i += 16) {
        for (int k = 0; k < 16; k++)
            buf[i + k] ^= prev[k];
        hxi_aes_encrypt_block(a, buf + i, buf + i);
        prev = buf + i;
    }
}
