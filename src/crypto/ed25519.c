/* ed25519.c: Ed25519 verification, RFC 8032 section 5.1 (edwards25519, a = -1, cofactorless check
 * [S]B - [k]A == R on the encodings, as libsodium and ref10 do; like libsodium it also refuses
 * public keys and R of small order). Field elements are 5 limbs of 51
 * bits multiplied through unsigned __int128 (gcc and clang on 64-bit targets); points are extended
 * coordinates (ref10's p2/p3/p1p1/cached forms). Nothing here is secret, so nothing needs to be
 * constant-time; every input is bounds- and canonicity-checked before use. */
#include "ed25519.h"

#include "bytes.h"
#include "sha512.h"

#include <string.h>

#if !defined(__SIZEOF_INT128__)
#error "ed25519.c needs unsigned __int128 (a 64-bit gcc or clang target)"
#endif

typedef unsigned __int128 u128;

/* === Field GF(2^255 - 19) === */

/* h = sum v[i] * 2^(51 i); limbs stay below 2^54 between operations (the bound mul relies on). */
typedef struct fe { uint64_t v[5]; } fe;

#define MASK51 ((uint64_t)0x7ffffffffffff)

static void fe_frombytes(fe *h, const uint8_t s[32])   /* ignores bit 255 */
{
    h->v[0] = hxf_le64(s) & MASK51;
    h->v[1] = (hxf_le64(s + 6) >> 3) & MASK51;
    h->v[2] = (hxf_le64(s + 12) >> 6) & MASK51;
    h->v[3] = (hxf_le64(s + 19) >> 1) & MASK51;
    h->v[4] = (hxf_le64(s + 24) >> 12) & MASK51;
}

static void fe_carry(fe *h)
{
    uint64_t c;
    c = h->v[0] >> 51; h->v[0] &= MASK51; h->v[1] += c;
    c = h->v[1] >> 51; h->v[1] &= MASK51; h->v[2] += c;
    c = h->v[2] >> 51; h->v[2] &= MASK51; h->v[3] += c;
    c = h->v[3] >> 51; h->v[3] &= MASK51; h->v[4] += c;
    c = h->v[4] >> 51; h->v[4] &= MASK51; h->v[0] += 19 * c;
    c = h->v[0] >> 51; h->v[0] &= MASK51; h->v[1] += c;
}

/* The unique representative in [0, p), little-endian. */
static void fe_tobytes(uint8_t s[32], const fe *f)
{
    fe h = *f;
    fe_carry(&h);
    fe_carry(&h);
    /* Now h < 2^255 + 2^13 or so; q = 1 exactly when h >= p. */
    uint64_t q = (h.v[0] + 19) >> 51;
    q = (h.v[1] + q) >> 51;
    q = (h.v[2] + q) >> 51;
    q = (h.v[3] + q) >> 51;
    q = (h.v[4] + q) >> 51;
    h.v[0] += 19 * q;
    uint64_t c;
    c = h.v[0] >> 51; h.v[0] &= MASK51; h.v[1] += c;
    c = h.v[1] >> 51; h.v[1] &= MASK51; h.v[2] += c;
    c = h.v[2] >> 51; h.v[2] &= MASK51; h.v[3] += c;
    c = h.v[3] >> 51; h.v[3] &= MASK51; h.v[4] += c;
    h.v[4] &= MASK51;   /* drops 2^255, i.e. subtracts p together with the 19 added above */
    hxf_put64(s, h.v[0] | h.v[1] << 51);
    hxf_put64(s + 8, h.v[1] >> 13 | h.v[2] << 38);
    hxf_put64(s + 16, h.v[2] >> 26 | h.v[3] << 25);
    hxf_put64(s + 24, h.v[3] >> 39 | h.v[4] << 12);
}

static void fe_set(fe *h, uint64_t x) { memset(h, 0, sizeof *h); h->v[0] = x; }

static void fe_add(fe *h, const fe *a, const fe *b)
{
    for (int i = 0; i < 5; i++)
        h->v[i] = a->v[i] + b->v[i];
}

/* a - b as a + 4p - b (4p's limbs exceed any b below 2^53), then carried. */
static void fe_sub(fe *h, const fe *a, const fe *b)
{
    h->v[0] = a->v[0] + 0x1fffffffffffb4 - b->v[0];
    for (int i = 1; i < 5; i++)
        h->v[i] = a->v[i] + 0x1ffffffffffffc - b->v[i];
    fe_carry(h);
}

static void fe_neg(fe *h, const fe *a)
{
    fe z;
    fe_set(&z, 0);
    fe_sub(h, &z, a);
}

/* h = the 5 x 128-bit column sums t0..t4 carried into 51-bit limbs, the carry out of the top limb
 * folded back times 19 (2^255 = 19 mod p); shared by fe_mul and fe_sq. */
static void fe_reduce_wide(fe *h, u128 t0, u128 t1, u128 t2, u128 t3, u128 t4)
{
    t1 += t0 >> 51;
    t2 += t1 >> 51;
    t3 += t2 >> 51;
    t4 += t3 >> 51;
    u128 r0 = ((uint64_t)t0 & MASK51) + (t4 >> 51) * 19;
    h->v[1] = ((uint64_t)t1 & MASK51) + (uint64_t)(r0 >> 51);
    h->v[0] = (uint64_t)r0 & MASK51;
    h->v[2] = (uint64_t)t2 & MASK51;
    h->v[3] = (uint64_t)t3 & MASK51;
    h->v[4] = (uint64_t)t4 & MASK51;
}

static void fe_mul(fe *h, const fe *f, const fe *g)
{
    const uint64_t *a = f->v, *b = g->v;
    uint64_t b1 = 19 * b[1], b2 = 19 * b[2], b3 = 19 * b[3], b4 = 19 * b[4];
    u128 t0 = (u128)a[0] * b[0] + (u128)a[1] * b4 + (u128)a[2] * b3 + (u128)a[3] * b2 + (u128)a[4] * b1;
    u128 t1 = (u128)a[0] * b[1] + (u128)a[1] * b[0] + (u128)a[2] * b4 + (u128)a[3] * b3 + (u128)a[4] * b2;
    u128 t2 = (u128)a[0] * b[2] + (u128)a[1] * b[1] + (u128)a[2] * b[0] + (u128)a[3] * b4 + (u128)a[4] * b3;
    u128 t3 = (u128)a[0] * b[3] + (u128)a[1] * b[2] + (u128)a[2] * b[1] + (u128)a[3] * b[0] + (u128)a[4] * b4;
    u128 t4 = (u128)a[0] * b[4] + (u128)a[1] * b[3] + (u128)a[2] * b[2] + (u128)a[3] * b[1] + (u128)a[4] * b[0];
    fe_reduce_wide(h, t0, t1, t2, t3, t4);
}

static void fe_sq(fe *h, const fe *f)
{
    const uint64_t *a = f->v;
    uint64_t d0 = 2 * a[0], d1 = 2 * a[1], d2 = 2 * a[2];
    uint64_t a3_19 = 19 * a[3], a4_19 = 19 * a[4];
    u128 t0 = (u128)a[0] * a[0] + (u128)d1 * a4_19 + (u128)d2 * a3_19;
    u128 t1 = (u128)d0 * a[1] + (u128)d2 * a4_19 + (u128)a[3] * a3_19;
    u128 t2 = (u128)d0 * a[2] + (u128)a[1] * a[1] + (u128)(2 * a[3]) * a4_19;
    u128 t3 = (u128)d0 * a[3] + (u128)d1 * a[2] + (u128)a[4] * a4_19;
    u128 t4 = (u128)d0 * a[4] + (u128)d1 * a[3] + (u128)a[2] * a[2];
    fe_reduce_wide(h, t0, t1, t2, t3, t4);
}

static void fe_sqn(fe *h, const fe *f, int n)
{
    fe_sq(h, f);
    while (--n > 0)
        fe_sq(h, h);
}

/* z^(2^250 - 1) and z^11 (shared start of inversion and square root, ref10's chain). */
static void fe_pow250(fe *out, fe *z11, const fe *z)
{
    fe t0, t1, t2;
    fe_sq(&t0, z);              /* 2 */
    fe_sqn(&t1, &t0, 2);        /* 8 */
    fe_mul(&t1, z, &t1);        /* 9 */
    fe_mul(z11, &t0, &t1);      /* 11 */
    fe_sq(&t0, z11);            /* 22 */
    fe_mul(&t0, &t1, &t0);      /* 2^5 - 1 */
    fe_sqn(&t1, &t0, 5);
    fe_mul(&t0, &t1, &t0);      /* 2^10 - 1 */
    fe_sqn(&t1, &t0, 10);
    fe_mul(&t1, &t1, &t0);      /* 2^20 - 1 */
    fe_sqn(&t2, &t1, 20);
    fe_mul(&t1, &t2, &t1);      /* 2^40 - 1 */
    fe_sqn(&t1, &t1, 10);
    fe_mul(&t0, &t1, &t0);      /* 2^50 - 1 */
    fe_sqn(&t1, &t0, 50);
    fe_mul(&t1, &t1, &t0);      /* 2^100 - 1 */
    fe_sqn(&t2, &t1, 100);
    fe_mul(&t1, &t2, &t1);      /* 2^200 - 1 */
    fe_sqn(&t1, &t1, 50);
    fe_mul(out, &t1, &t0);      /* 2^250 - 1 */
}

static void fe_invert(fe *out, const fe *z)   /* z^(p - 2) = z^(2^255 - 21) */
{
    fe t, z11;
    fe_pow250(&t, &z11, z);
    fe_sqn(&t, &t, 5);
    fe_mul(out, &t, &z11);
}

static void fe_pow22523(fe *out, const fe *z)   /* z^((p - 5) / 8) = z^(2^252 - 3) */
{
    fe t, z11;
    fe_pow250(&t, &z11, z);
    fe_sqn(&t, &t, 2);
    fe_mul(out, &t, z);
}

static int fe_iszero(const fe *f)
{
    uint8_t s[32], zero[32] = {0};
    fe_tobytes(s, f);
    return memcmp(s, zero, 32) == 0;
}

static int fe_isneg(const fe *f)
{
    uint8_t s[32];
    fe_tobytes(s, f);
    return s[0] & 1;
}

/* === Curve constants (checked against their definitions in tests/test_ed25519.c) === */

/* d = -121665 / 121666 */
static const uint8_t D_BYTES[32] = {
    0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75, 0xab, 0xd8, 0x41, 0x41, 0x4d, 0x0a, 0x70, 0x00,
    0x98, 0xe8, 0x79, 0x77, 0x79, 0x40, 0xc7, 0x8c, 0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52};
/* sqrt(-1) = 2^((p - 1) / 4) */
static const uint8_t SQRTM1_BYTES[32] = {
    0xb0, 0xa0, 0x0e, 0x4a, 0x27, 0x1b, 0xee, 0xc4, 0x78, 0xe4, 0x2f, 0xad, 0x06, 0x18, 0x43, 0x2f,
    0xa7, 0xd7, 0xfb, 0x3d, 0x99, 0x00, 0x4d, 0x2b, 0x0b, 0xdf, 0xc1, 0x4f, 0x80, 0x24, 0x83, 0x2b};
/* The base point B: y = 4/5, x positive (even). */
static const uint8_t B_BYTES[32] = {
    0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
    0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66};
/* L = 2^252 + 27742317777372353535851937790883648493, the order of B. */
static const uint8_t L_BYTES[32] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};

/* === Group === */

typedef struct { fe X, Y, Z; } ge_p2;                 /* x = X/Z, y = Y/Z */
typedef struct { fe X, Y, Z, T; } ge_p3;              /* ... and XY = ZT */
typedef struct { fe X, Y, Z, T; } ge_p1p1;            /* x = X/Z, y = Y/T */
typedef struct { fe YplusX, YminusX, Z, T2d; } ge_cached;

static void p1p1_to_p2(ge_p2 *r, const ge_p1p1 *p)
{
    fe_mul(&r->X, &p->X, &p->T);
    fe_mul(&r->Y, &p->Y, &p->Z);
    fe_mul(&r->Z, &p->Z, &p->T);
}

static void p1p1_to_p3(ge_p3 *r, const ge_p1p1 *p)
{
    fe_mul(&r->X, &p->X, &p->T);
    fe_mul(&r->Y, &p->Y, &p->Z);
    fe_mul(&r->Z, &p->Z, &p->T);
    fe_mul(&r->T, &p->X, &p->Y);
}

static void p3_to_cached(ge_cached *r, const ge_p3 *p, const fe *d2)
{
    fe_add(&r->YplusX, &p->Y, &p->X);
    fe_sub(&r->YminusX, &p->Y, &p->X);
    r->Z = p->Z;
    fe_mul(&r->T2d, &p->T, d2);
}

/* r = 2p (dbl-2008-hwcd with a = -1). */
static void p2_dbl(ge_p1p1 *r, const ge_p2 *p)
{
    fe t0;
    fe_sq(&r->X, &p->X);            /* A = X^2 */
    fe_sq(&r->Z, &p->Y);            /* B = Y^2 */
    fe_sq(&r->T, &p->Z);
    fe_add(&r->T, &r->T, &r->T);    /* C = 2 Z^2 */
    fe_add(&r->Y, &p->X, &p->Y);
    fe_sq(&t0, &r->Y);              /* (X + Y)^2 */
    fe_add(&r->Y, &r->Z, &r->X);    /* B + A */
    fe_sub(&r->Z, &r->Z, &r->X);    /* B - A */
    fe_sub(&r->X, &t0, &r->Y);      /* (X + Y)^2 - A - B */
    fe_sub(&r->T, &r->T, &r->Z);    /* C - (B - A) */
}

static void p3_dbl(ge_p1p1 *r, const ge_p3 *p)
{
    ge_p2 q = {p->X, p->Y, p->Z};
    p2_dbl(r, &q);
}

/* r = p + q (add-2008-hwcd-3), or p - q with `sub`. */
static void ge_add(ge_p1p1 *r, const ge_p3 *p, const ge_cached *q, int sub)
{
    fe t0;
    fe_add(&r->X, &p->Y, &p->X);
    fe_sub(&r->Y, &p->Y, &p->X);
    fe_mul(&r->Z, &r->X, sub ? &q->YminusX : &q->YplusX);
    fe_mul(&r->Y, &r->Y, sub ? &q->YplusX : &q->YminusX);
    fe_mul(&r->T, &q->T2d, &p->T);
    fe_mul(&r->X, &p->Z, &q->Z);
    fe_add(&t0, &r->X, &r->X);
    fe_sub(&r->X, &r->Z, &r->Y);
    fe_add(&r->Y, &r->Z, &r->Y);
    if (sub) {
        fe_sub(&r->Z, &t0, &r->T);
        fe_add(&r->T, &t0, &r->T);
    } else {
        fe_add(&r->Z, &t0, &r->T);
        fe_sub(&r->T, &t0, &r->T);
    }
}

static void p2_tobytes(uint8_t s[32], const ge_p2 *p)
{
    fe recip, x, y;
    fe_invert(&recip, &p->Z);
    fe_mul(&x, &p->X, &recip);
    fe_mul(&y, &p->Y, &recip);
    fe_tobytes(s, &y);
    s[31] ^= (uint8_t)(fe_isneg(&x) << 7);
}

/* RFC 8032 5.1.3: decodes s into a point. Refuses y >= p, a y with no x on the curve, and x = 0
 * with the sign bit set. Returns 0 or -1. */
static int p3_frombytes(ge_p3 *h, const uint8_t s[32])
{
    fe u, v, v3, vxx, check, d;
    uint8_t canon[32];
    fe_frombytes(&h->Y, s);
    fe_tobytes(canon, &h->Y);
    canon[31] |= s[31] & 0x80;
    if (memcmp(canon, s, 32) != 0)
        return -1;                               /* y is not reduced mod p */
    fe_frombytes(&d, D_BYTES);
    fe_set(&h->Z, 1);
    fe_sq(&u, &h->Y);
    fe_mul(&v, &u, &d);
    fe_sub(&u, &u, &h->Z);                       /* u = y^2 - 1 */
    fe_add(&v, &v, &h->Z);                       /* v = d y^2 + 1 */
    fe_sq(&v3, &v);
    fe_mul(&v3, &v3, &v);                        /* v^3 */
    fe_sq(&h->X, &v3);
    fe_mul(&h->X, &h->X, &v);
    fe_mul(&h->X, &h->X, &u);                    /* u v^7 */
    fe_pow22523(&h->X, &h->X);                   /* (u v^7)^((p - 5) / 8) */
    fe_mul(&h->X, &h->X, &v3);
    fe_mul(&h->X, &h->X, &u);                    /* x = u v^3 (u v^7)^((p - 5) / 8) */
    fe_sq(&vxx, &h->X);
    fe_mul(&vxx, &vxx, &v);
    fe_sub(&check, &vxx, &u);
    if (!fe_iszero(&check)) {
        fe_add(&check, &vxx, &u);
        if (!fe_iszero(&check))
            return -1;                           /* no square root: not on the curve */
        fe sqrtm1;
        fe_frombytes(&sqrtm1, SQRTM1_BYTES);
        fe_mul(&h->X, &h->X, &sqrtm1);
    }
    int sign = s[31] >> 7;
    if (fe_iszero(&h->X) && sign)
        return -1;
    if (fe_isneg(&h->X) != sign)
        fe_neg(&h->X, &h->X);
    fe_mul(&h->T, &h->X, &h->Y);
    return 0;
}

/* 1 when [8]p is the identity: p lies in the torsion subgroup of order 1, 2, 4 or 8. Such an A
 * lets one (R, S) verify for many messages under the cofactorless check, so libsodium refuses
 * small-order keys and R, and so does hyrax. */
static int p3_small_order(const ge_p3 *p)
{
    ge_p1p1 t;
    ge_p2 q = {p->X, p->Y, p->Z};
    for (int i = 0; i < 3; i++) {
        p2_dbl(&t, &q);
        p1p1_to_p2(&q, &t);
    }
    return fe_iszero(&q.X);
}

/* === Scalars === */

/* a little-endian 256-bit integer compared with L: 1 when a >= L. */
static int sc_ge_l(const uint8_t a[32])
{
    for (int i = 31; i >= 0; i--)
        if (a[i] != L_BYTES[i])
            return a[i] > L_BYTES[i];
    return 1;
}

/* floor(x / 256) for any sign (right shifts of negatives are implementation-defined). */
static int64_t floor256(int64_t x) { return x >= 0 ? x / 256 : -((255 - x) / 256); }

/* r = x mod L for a 512-bit x (64 little-endian bytes): schoolbook reduction over base-256 digits,
 * folding each top byte down with 2^252 = -(L - 2^252) mod L. */
static void sc_reduce(uint8_t r[32], const uint8_t in[64])
{
    int64_t x[64], carry;
    for (int i = 0; i < 64; i++)
        x[i] = in[i];
    for (int i = 63; i >= 32; i--) {
        carry = 0;
        int j;
        for (j = i - 32; j < i - 12; j++) {
            x[j] += carry - 16 * x[i] * L_BYTES[j - (i - 32)];
            carry = floor256(x[j] + 128);
            x[j] -= carry * 256;
        }
        x[j] += carry;
        x[i] = 0;
    }
    carry = 0;
    for (int j = 0; j < 32; j++) {
        x[j] += carry - floor256(x[31] * 16) * L_BYTES[j];
        carry = floor256(x[j]);
        x[j] -= carry * 256;
    }
    for (int j = 0; j < 32; j++)
        x[j] -= carry * L_BYTES[j];
    for (int i = 0; i < 32; i++) {
        if (i < 31)
            x[i + 1] += floor256(x[i]);
        r[i] = (uint8_t)(x[i] & 255);
    }
}

/* Signed sliding-window digits of a 256-bit scalar: r[i] odd in [-15, 15] or 0 (ref10's slide). */
static void slide(int8_t r[256], const uint8_t a[32])
{
    for (int i = 0; i < 256; i++)
        r[i] = (int8_t)(1 & (a[i >> 3] >> (i & 7)));
    for (int i = 0; i < 256; i++) {
        if (!r[i])
            continue;
        for (int b = 1; b <= 6 && i + b < 256; b++) {
            if (!r[i + b])
                continue;
            int up = r[i + b] * (1 << b);
            if (r[i] + up <= 15) {
                r[i] = (int8_t)(r[i] + up);
                r[i + b] = 0;
            } else if (r[i] - up >= -15) {
                r[i] = (int8_t)(r[i] - up);
                for (int k = i + b; k < 256; k++) {
                    if (!r[k]) {
                        r[k] = 1;
                        break;
                    }
                    r[k] = 0;
                }
            } else {
                break;
            }
        }
    }
}

/* The odd multiples P, 3P, ..., 15P in cached form. */
static void odd_multiples(ge_cached out[8], const ge_p3 *p, const fe *d2)
{
    ge_p1p1 t;
    ge_p3 p2, u;
    p3_to_cached(&out[0], p, d2);
    p3_dbl(&t, p);
    p1p1_to_p3(&p2, &t);
    for (int i = 1; i < 8; i++) {
        ge_add(&t, &p2, &out[i - 1], 0);
        p1p1_to_p3(&u, &t);
        p3_to_cached(&out[i], &u, d2);
    }
}

/* r = a A + b B, variable time (both scalars are public). */
static void double_scalarmult(ge_p2 *r, const uint8_t a[32], const ge_p3 *A, const uint8_t b[32],
                              const ge_p3 *B, const fe *d2)
{
    int8_t as[256], bs[256];
    ge_cached Ai[8], Bi[8];
    ge_p1p1 t;
    ge_p3 u;
    slide(as, a);
    slide(bs, b);
    odd_multiples(Ai, A, d2);
    odd_multiples(Bi, B, d2);
    fe_set(&r->X, 0);
    fe_set(&r->Y, 1);
    fe_set(&r->Z, 1);
    int i = 255;
    while (i >= 0 && !as[i] && !bs[i])
        i--;
    for (; i >= 0; i--) {
        p2_dbl(&t, r);
        if (as[i]) {
            p1p1_to_p3(&u, &t);
            ge_add(&t, &u, &Ai[(as[i] > 0 ? as[i] : -as[i]) / 2], as[i] < 0);
        }
        if (bs[i]) {
            p1p1_to_p3(&u, &t);
            ge_add(&t, &u, &Bi[(bs[i] > 0 ? bs[i] : -bs[i]) / 2], bs[i] < 0);
        }
        p1p1_to_p2(r, &t);
    }
}

/* === Verification === */

int hxi_ed25519_verify(const uint8_t sig[64], const uint8_t *msg, size_t len, const uint8_t pk[32],
                       hx_error *err)
{
    ge_p3 A, B, R;
    if (sc_ge_l(sig + 32))
        return hx_error_set(err, HX_EFORMAT, 32, "ed25519: signature scalar S is not below L");
    if (p3_frombytes(&A, pk) != 0)
        return hx_error_set(err, HX_EFORMAT, -1, "ed25519: public key is not a canonical curve point");
    if (p3_small_order(&A))
        return hx_error_set(err, HX_EFORMAT, -1, "ed25519: public key has small order");
    if (p3_frombytes(&R, sig) != 0)
        return hx_error_set(err, HX_EFORMAT, 0, "ed25519: signature point R is not a canonical curve point");
    if (p3_small_order(&R))
        return hx_error_set(err, HX_EFORMAT, 0, "ed25519: signature point R has small order");
    p3_frombytes(&B, B_BYTES);

    uint8_t h[64], k[32], check[32];
    hxi_sha512 s;
    hxi_sha512_init(&s);
    hxi_sha512_update(&s, sig, 32);
    hxi_sha512_update(&s, pk, 32);
    hxi_sha512_update(&s, msg, len);
    hxi_sha512_final(&s, h);
    sc_reduce(k, h);

    fe d2;
    fe_frombytes(&d2, D_BYTES);
    fe_add(&d2, &d2, &d2);
    fe_neg(&A.X, &A.X);
    fe_neg(&A.T, &A.T);                          /* -A */
    ge_p2 Rc;
    double_scalarmult(&Rc, k, &A, sig + 32, &B, &d2);
    p2_tobytes(check, &Rc);
    if (memcmp(check, sig, 32) != 0)
        return hx_error_set(err, HX_EPERM, -1, "ed25519: signature does not verify");
    return 0;
}
