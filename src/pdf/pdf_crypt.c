/* pdf_crypt.c: the PDF standard security handler (ISO 32000-2 7.6.4) with RC4 (/V 1-2, /R 2-3)
 * and with crypt filters (/V 4, /R 4: /V2 = RC4, /AESV2 = AES-128-CBC), opened with the empty user
 * password, which is how most "protected" PDFs are shipped (they open without asking, and only
 * restrict printing or copying), and AES-256 (/V 5, /R 5-6, AESV3). Algorithm 2 computes the
 * file key, algorithms 4 and 5 check it against /U, algorithm 1 (1.A for AES) derives each
 * object's key; for AES-256, algorithm 2.A with the hash of 2.B checks /U and unwraps /UE into
 * the file key. Documents that need a typed password are refused with the reason. MD5, SHA-2 and
 * AES are src/base. */
#include "pdf.h"

#include "aes.h"
#include "md5.h"
#include "sha256.h"
#include "sha512.h"

#include <string.h>

static const uint8_t pad[32] = {
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
};

static void rc4(const uint8_t *key, size_t klen, uint8_t *s, size_t n)
{
    uint8_t S[256];
    for (int i = 0; i < 256; i++)
        S[i] = (uint8_t)i;
    for (int i = 0, j = 0; i < 256; i++) {
        j = (j + S[i] + key[(size_t)i % klen]) & 255;
        uint8_t t = S[i];
        S[i] = S[j];
        S[j] = t;
    }
    for (size_t k = 0, i = 0, j = 0; k < n; k++) {
        i = (i + 1) & 255;
        j = (j + S[i]) & 255;
        uint8_t t = S[i];
        S[i] = S[j];
        S[j] = t;
        s[k] ^= S[(S[i] + S[j]) & 255];
    }
}

/* Algorithm 2.B (R 6; R 5 is its first step alone) for the empty password: the hash of salt[0..8). */
static void hash_2b(int r, const uint8_t *salt, uint8_t out[32])
{
    uint8_t k[64], e[64 * 64];
    size_t klen = 32;
    hxi_sha256 h;
    hxi_sha256_init(&h);
    hxi_sha256_update(&h, salt, 8);
    hxi_sha256_final(&h, k);
    for (int i = 0; r == 6; i++) {
        size_t n = 64 * klen;   /* 64 copies of password (empty) + K */
        for (int j = 0; j < 64; j++)
            memcpy(e + (size_t)j * klen, k, klen);
        hxi_aes a;
        hxi_aes_init(&a, k, 16);
        hxi_aes_cbc_encrypt(&a, k + 16, e, n);
        unsigned sum = 0;
        for (int j = 0; j < 16; j++)
            sum += e[j];
        if (sum % 3 == 0) {
            hxi_sha256_init(&h);
            hxi_sha256_update(&h, e, n);
            hxi_sha256_final(&h, k);
            klen = 32;
        } else {
            hxi_sha512 h5;
            (sum % 3 == 1 ? hxi_sha384_init : hxi_sha512_init)(&h5);
            hxi_sha512_update(&h5, e, n);
            hxi_sha512_final(&h5, k);
            klen = sum % 3 == 1 ? 48 : 64;
        }
        if (i >= 63 && e[n - 1] <= i + 1 - 32)
            break;
    }
    memcpy(out, k, 32);
}

/* AES-256 (/V 5): /U's hash of its validation salt proves the empty password; /UE, decrypted with
 * the hash of the key salt, is the file key. */
static int open_aes256(pdf_doc *d, pdf_obj *enc, int r)
{
    pdf_obj *u = pdf_get(d, enc, "U"), *ue = pdf_get(d, enc, "UE");
    if (!u || u->kind != PDF_STR || u->u.s.n < 48 || !ue || ue->kind != PDF_STR || ue->u.s.n < 32)
        return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: damaged /Encrypt dictionary");
    uint8_t hash[32], iv[16] = {0};
    hash_2b(r, u->u.s.p + 32, hash);
    if (memcmp(hash, u->u.s.p, 32))
        return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: it needs a password to open");
    hash_2b(r, u->u.s.p + 40, hash);
    hxi_aes a;
    hxi_aes_init(&a, hash, 32);
    memcpy(d->key, ue->u.s.p, 32);
    hxi_aes_cbc_decrypt(&a, iv, d->key, 32);
    d->keylen = 32;
    d->aes = true;
    return 0;
}

int pdf_crypt_open(pdf_doc *d, pdf_obj *enc)
{
    double v = 0, r = 0, len = 40, p = 0;
    pdf_obj *filter = pdf_get(d, enc, "Filter"), *o = pdf_get(d, enc, "O"), *u = pdf_get(d, enc, "U");
    pdf_num(pdf_get(d, enc, "V"), &v);
    pdf_num(pdf_get(d, enc, "R"), &r);
    pdf_num(pdf_get(d, enc, "Length"), &len);
    pdf_num(pdf_get(d, enc, "P"), &p);
    if (!pdf_is_name(filter, "Standard"))
        return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: security handler %s is not supported",
                            filter && filter->kind == PDF_NAME ? (const char *)filter->u.s.p : "(none)");
    if (v == 4 && r == 4) {   /* crypt filters: the standard one names the cipher */
        pdf_obj *cf = pdf_get(d, pdf_get(d, enc, "CF"), "StdCF"), *cfm = pdf_get(d, cf, "CFM");
        pdf_obj *stmf = pdf_get(d, enc, "StmF"), *strf = pdf_get(d, enc, "StrF");
        if (!pdf_is_name(cfm, "V2") && !pdf_is_name(cfm, "AESV2"))
            return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: crypt filter %s is not supported",
                                cfm && cfm->kind == PDF_NAME ? (const char *)cfm->u.s.p : "(none)");
        d->aes = pdf_is_name(cfm, "AESV2");
        d->plain_streams = pdf_is_name(stmf, "Identity");
        d->plain_strings = pdf_is_name(strf, "Identity");
        len = 128;
        pdf_num(pdf_get(d, enc, "Length"), &len);
    } else if (v == 5 && (r == 5 || r == 6)) {
        pdf_obj *stmf = pdf_get(d, enc, "StmF"), *strf = pdf_get(d, enc, "StrF");
        d->plain_streams = pdf_is_name(stmf, "Identity");
        d->plain_strings = pdf_is_name(strf, "Identity");
        return open_aes256(d, enc, (int)r);
    } else if (v < 1 || v > 2 || r < 2 || r > 3) {
        return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: security handler /V %g /R %g is not supported", v,
                            r);
    }
    if (!o || o->kind != PDF_STR || o->u.s.n < 32 || !u || u->kind != PDF_STR || u->u.s.n < 32)
        return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: damaged /Encrypt dictionary");
    int n = r == 2 ? 5 : (int)len / 8;
    if (n < 5 || n > 16)
        return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: key length %g is not valid", len);
    pdf_obj *ids = pdf_get(d, d->trailer, "ID");
    pdf_obj *id = ids && ids->kind == PDF_ARRAY && ids->u.a.n ? pdf_resolve(d, &ids->u.a.v[0]) : NULL;
    /* algorithm 2: the file key from the empty password */
    uint8_t key[16], P[4];
    uint32_t pv = (uint32_t)(int32_t)p;
    for (int i = 0; i < 4; i++)
        P[i] = (uint8_t)(pv >> (8 * i));
    hxi_md5 m;
    hxi_md5_init(&m);
    hxi_md5_update(&m, pad, 32);
    hxi_md5_update(&m, o->u.s.p, 32);
    hxi_md5_update(&m, P, 4);
    if (id && id->kind == PDF_STR)
        hxi_md5_update(&m, id->u.s.p, id->u.s.n);
    pdf_obj *meta = pdf_get(d, enc, "EncryptMetadata");
    if (r >= 4 && meta && meta->kind == PDF_BOOL && !meta->u.b)
        hxi_md5_update(&m, "\xff\xff\xff\xff", 4);
    hxi_md5_final(&m, key);
    for (int i = 0; r >= 3 && i < 50; i++)
        hxi_md5_digest(key, (size_t)n, key);
    /* algorithms 4 (R 2) and 5 (R 3): the key must turn the padding into /U */
    uint8_t check[32];
    size_t clen = 32;
    if (r == 2) {
        memcpy(check, pad, 32);
        rc4(key, (size_t)n, check, 32);
    } else {
        hxi_md5_init(&m);
        hxi_md5_update(&m, pad, 32);
        if (id && id->kind == PDF_STR)
            hxi_md5_update(&m, id->u.s.p, id->u.s.n);
        hxi_md5_final(&m, check);
        for (int i = 0; i < 20; i++) {
            uint8_t k2[16];
            for (int j = 0; j < n; j++)
                k2[j] = (uint8_t)(key[j] ^ i);
            rc4(k2, (size_t)n, check, 16);
        }
        clen = 16;
    }
    if (memcmp(check, u->u.s.p, clen))
        return hx_error_set(d->err, HX_EFORMAT, -1, "encrypted PDF: it needs a password to open");
    memcpy(d->key, key, (size_t)n);
    d->keylen = n;
    return 0;
}

/* AES-CBC as PDF uses it: a 16-byte IV, then the data padded to whole blocks (PKCS #7). */
static size_t aes_cbc(const uint8_t *key, size_t klen, uint8_t *s, size_t n)
{
    if (n < 32 || n % 16)
        return 0;
    hxi_aes a;
    hxi_aes_init(&a, key, klen);
    hxi_aes_cbc_decrypt(&a, s, s + 16, n - 16);
    n -= 16;
    memmove(s, s + 16, n);
    uint8_t pad_len = s[n - 1];
    return pad_len >= 1 && pad_len <= 16 ? n - pad_len : n;
}

size_t pdf_crypt(const pdf_doc *d, uint32_t num, uint32_t gen, uint8_t *s, size_t n)
{
    if (d->keylen == 32)   /* AES-256: the file key itself */
        return aes_cbc(d->key, 32, s, n);
    uint8_t buf[25], k[16];   /* algorithm 1: the file key, the object number and generation */
    memcpy(buf, d->key, (size_t)d->keylen);
    for (int i = 0; i < 3; i++)
        buf[d->keylen + i] = (uint8_t)(num >> (8 * i));
    buf[d->keylen + 3] = (uint8_t)gen;
    buf[d->keylen + 4] = (uint8_t)(gen >> 8);
    if (d->aes)
        memcpy(buf + d->keylen + 5, "sAlT", 4);   /* algorithm 1.A */
    hxi_md5_digest(buf, (size_t)d->keylen + (d->aes ? 9 : 5), k);
    size_t klen = d->keylen + 5 < 16 ? (size_t)d->keylen + 5 : 16;
    if (!d->aes) {
        rc4(k, klen, s, n);
        return n;
    }
    return aes_cbc(k, 16, s, n);
}
