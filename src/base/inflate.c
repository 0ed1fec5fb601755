/* inflate.c: RFC 1951 inflate and the RFC 1950 wrapper (contract in inflate.h). Table-driven
 * Huffman decoding in the manner of zlib's inflate_table: a primary table indexed by the next
 * LIT_BITS / DIST_BITS input bits, whose long codes point to subtables. A 64-bit bit buffer is
 * refilled once per symbol; input past the end reads as zero bits and is caught as truncation.
 * Must not recurse, allocate past the caller's limit, or read outside the input. */
#include "inflate.h"

#include "alloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define LIT_BITS 10          /* primary table bits for literal/length codes */
#define DIST_BITS 8          /* primary table bits for distance codes */
#define CLEN_BITS 7          /* code length codes are at most 7 bits: one level */
#define MAX_LEN 15
#define N_LIT 288
#define N_DIST 32
#define SUB 0x100u           /* entry flag: the entry points to a subtable */
/* A table entry: symbol (or subtable start) << 16 | SUB? | bits. Bits 0 means an invalid code. */
#define LIT_TABLE ((1u << LIT_BITS) + N_LIT * (1u << (MAX_LEN - LIT_BITS)))
#define DIST_TABLE ((1u << DIST_BITS) + N_DIST * (1u << (MAX_LEN - DIST_BITS)))

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t clen_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

typedef struct {
    const uint8_t *start, *in, *end;
    uint64_t bits;           /* unread bits, next bit lowest */
    unsigned nbits;          /* how many of `bits` count */
    unsigned pad;            /* zero bytes fed after the end of the input */
    uint8_t *out;            /* owned until handed to the caller */
    size_t pos, cap, limit;
    hx_error *err;
    uint32_t lit[LIT_TABLE];
    uint32_t dist[DIST_TABLE];
} inflater;

/* === Bits === */

static void refill(inflater *s)
{
    if (s->end - s->in >= 8) {   /* whole bytes up to 56+ bits; bits above nbits repeat the next input */
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = w << 8 | s->in[k];
        s->bits |= w << s->nbits;
        s->in += (63 - s->nbits) >> 3;
        s->nbits |= 56;
        return;
    }
    while (s->nbits <= 56) {
        if (s->in < s->end)
            s->bits |= (uint64_t)*s->in++ << s->nbits;
        else
            s->pad++;
        s->nbits += 8;
    }
}

static uint32_t take(inflater *s, unsigned n)   /* n <= nbits, n < 32 */
{
    uint32_t v = (uint32_t)(s->bits & ((1ull << n) - 1));
    s->bits >>= n;
    s->nbits -= n;
    return v;
}

/* Byte offset in the input of the next unread bit. */
static int64_t at(const inflater *s)
{
    int64_t unread = (int64_t)(s->nbits / 8) - (int64_t)s->pad;
    return (int64_t)(s->in - s->start) - unread;
}

static bool overrun(const inflater *s)
{
    return s->nbits < s->pad * 8u;
}

static int corrupt(inflater *s, const char *what)
{
    if (overrun(s))
        return hx_error_set(s->err, HX_ETRUNCATED, (int64_t)(s->end - s->start),
                            "deflate stream ends before its last block");
    return hx_error_set(s->err, HX_EFORMAT, at(s), "corrupt deflate stream: %s", what);
}

/* === Huffman tables === */

static unsigned reverse(unsigned code, unsigned len)
{
    unsigned r = 0;
    for (unsigned k = 0; k < len; k++, code >>= 1)
        r = r << 1 | (code & 1);
    return r;
}

/* Builds the decoding table for code lengths lens[0..n) with a primary table of `root` bits.
 * Complete codes only, except a code with no symbols at all and (for literal/length and distance
 * codes: `single_ok`) a single code of length 1, as zlib accepts; unused entries decode as
 * invalid. */
static int build(inflater *s, uint32_t *table, const uint8_t *lens, unsigned n, unsigned root, bool single_ok,
                 const char *what)
{
    unsigned count[MAX_LEN + 1] = {0}, offs[MAX_LEN + 2];
    uint16_t sorted[N_LIT];
    for (unsigned i = 0; i < n; i++)
        count[lens[i]]++;
    unsigned max = MAX_LEN;
    while (max > 0 && !count[max])
        max--;
    memset(table, 0, sizeof *table << root);
    if (!max)
        return 0;
    int left = 1;
    for (unsigned l = 1; l <= MAX_LEN; l++) {
        left = (left << 1) - (int)count[l];
        if (left < 0)
            return hx_error_set(s->err, HX_EFORMAT, at(s), "corrupt deflate stream: over-subscribed %s code", what);
    }
    if (left > 0 && (max != 1 || !single_ok))
        return hx_error_set(s->err, HX_EFORMAT, at(s), "corrupt deflate stream: incomplete %s code", what);
    offs[1] = 0;
    for (unsigned l = 1; l <= MAX_LEN; l++)
        offs[l + 1] = offs[l] + count[l];
    for (unsigned i = 0; i < n; i++)
        if (lens[i])
            sorted[offs[lens[i]]++] = (uint16_t)i;
    unsigned total = offs[MAX_LEN + 1], code = 0, len = lens[sorted[0]];
    unsigned next = 1u << root, sub_prefix = ~0u, sub_start = 0, sub_bits = 0;
    for (unsigned k = 0; k < total; k++) {
        unsigned sym = sorted[k], l = lens[sym];
        code <<= l - len;
        len = l;
        unsigned rev = reverse(code, len);
        if (len <= root) {
            for (unsigned i = rev; i < (1u << root); i += 1u << len)
                table[i] = sym << 16 | len;
        } else {
            unsigned prefix = rev & ((1u << root) - 1);
            if (prefix != sub_prefix) {   /* zlib's rule for the subtable size: enough for what is left */
                unsigned cur = len - root;
                int room = 1 << cur;
                while (cur + root < max) {
                    room -= (int)count[cur + root];
                    if (room <= 0)
                        break;
                    cur++;
                    room <<= 1;
                }
                sub_prefix = prefix;
                sub_start = next;
                sub_bits = cur;
                next += 1u << cur;
                memset(table + sub_start, 0, sizeof *table << cur);
                table[prefix] = sub_start << 16 | SUB | sub_bits;
            }
            for (unsigned i = rev >> root; i < (1u << sub_bits); i += 1u << (len - root))
                table[sub_start + i] = sym << 16 | (len - root);
        }
        count[len]--;
        code++;
    }
    return 0;
}

/* The next symbol by `table` (bits were refilled). */
static int decode(inflater *s, const uint32_t *table, unsigned root, unsigned *sym)
{
    uint32_t e = table[s->bits & ((1u << root) - 1)];
    if (e & SUB) {
        uint32_t sub = e >> 16, n = e & 0xff;
        take(s, root);
        e = table[sub + (s->bits & ((1u << n) - 1))];
    }
    if (!(e & 0xff))
        return corrupt(s, "invalid Huffman code");
    take(s, e & 0xff);
    *sym = e >> 16;
    return 0;
}

static int fixed_tables(inflater *s)
{
    uint8_t lens[N_LIT];
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    int rc = build(s, s->lit, lens, N_LIT, LIT_BITS, true, "literal/length");
    memset(lens, 5, N_DIST);
    return rc ? rc : build(s, s->dist, lens, N_DIST, DIST_BITS, true, "distance");
}

static int dynamic_tables(inflater *s)
{
    uint8_t lens[N_LIT + N_DIST], clens[19] = {0};
    uint32_t ctable[1u << CLEN_BITS];
    refill(s);
    unsigned nlit = take(s, 5) + 257, ndist = take(s, 5) + 1, nclen = take(s, 4) + 4;
    if (nlit > 286 || ndist > 30)
        return corrupt(s, "too many length or distance codes");
    for (unsigned i = 0; i < nclen; i++) {
        refill(s);
        clens[clen_order[i]] = (uint8_t)take(s, 3);
    }
    if (overrun(s))
        return corrupt(s, "");
    int rc = build(s, ctable, clens, 19, CLEN_BITS, false, "code length");
    if (rc)
        return rc;
    for (unsigned i = 0; i < nlit + ndist;) {
        unsigned sym;
        refill(s);
        if ((rc = decode(s, ctable, CLEN_BITS, &sym)))
            return rc;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        unsigned rep, val = 0;
        if (sym == 16) {
            if (!i)
                return corrupt(s, "repeat of a code length with no previous length");
            val = lens[i - 1];
            rep = 3 + take(s, 2);
        } else {
            rep = sym == 17 ? 3 + take(s, 3) : 11 + take(s, 7);
        }
        if (i + rep > nlit + ndist)
            return corrupt(s, "code lengths repeat past the last code");
        memset(lens + i, (int)val, rep);
        i += rep;
    }
    if (overrun(s))
        return corrupt(s, "");
    if (!lens[256])
        return corrupt(s, "no end-of-block code");
    rc = build(s, s->lit, lens, nlit, LIT_BITS, true, "literal/length");
    return rc ? rc : build(s, s->dist, lens + nlit, ndist, DIST_BITS, true, "distance");
}

/* === Output === */

/* Room for `need` more output bytes, within the limit. */
static int room(inflater *s, size_t need)
{
    if (need > s->limit - s->pos)
        return hx_error_set(s->err, HX_ERANGE, at(s), "inflated data exceeds the limit of %zu bytes", s->limit);
    if (need <= s->cap - s->pos)
        return 0;
    size_t cap = s->cap < 4096 ? 4096 : s->cap;
    while (cap - s->pos < need)
        cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
    if (cap > s->limit)
        cap = s->limit;
    uint8_t *p = hx_realloc(s->out, cap ? cap : 1);
    if (!p)
        return hx_error_set(s->err, HX_ENOMEM, at(s), "out of memory inflating %zu bytes", cap);
    s->out = p;
    s->cap = cap;
    return 0;
}

static int stored(inflater *s)
{
    take(s, s->nbits & 7);
    if (overrun(s))
        return corrupt(s, "");
    s->in -= s->nbits / 8 - s->pad;   /* hand the whole bytes still buffered back to the input */
    s->bits = 0;
    s->nbits = 0;
    s->pad = 0;
    if (s->end - s->in < 4)
        return hx_error_set(s->err, HX_ETRUNCATED, (int64_t)(s->end - s->start), "deflate stream ends in a stored block");
    unsigned len = s->in[0] | s->in[1] << 8, nlen = s->in[2] | s->in[3] << 8;
    if (len != (~nlen & 0xffff))
        return hx_error_set(s->err, HX_EFORMAT, (int64_t)(s->in - s->start),
                            "corrupt deflate stream: stored block length does not match its complement");
    s->in += 4;
    if ((size_t)(s->end - s->in) < len)
        return hx_error_set(s->err, HX_ETRUNCATED, (int64_t)(s->end - s->start), "deflate stream ends in a stored block");
    int rc = room(s, len);
    if (rc)
        return rc;
    memcpy(s->out + s->pos, s->in, len);
    s->pos += len;
    s->in += len;
    return 0;
}

static int huffman(inflater *s)
{
    for (;;) {
        unsigned sym;
        refill(s);
        int rc = decode(s, s->lit, LIT_BITS, &sym);
        if (rc)
            return rc;
        if (sym < 256) {
            if (s->pos == s->cap && (rc = room(s, 1)))
                return rc;
            s->out[s->pos++] = (uint8_t)sym;
        } else if (sym == 256) {
            return overrun(s) ? corrupt(s, "") : 0;
        } else {
            sym -= 257;
            if (sym >= 29)
                return corrupt(s, "invalid length code");
            size_t len = len_base[sym] + take(s, len_extra[sym]);
            unsigned dsym;
            if ((rc = decode(s, s->dist, DIST_BITS, &dsym)))
                return rc;
            if (dsym >= 30)
                return corrupt(s, "invalid distance code");
            size_t dist = dist_base[dsym] + take(s, dist_extra[dsym]);
            if (overrun(s))
                return corrupt(s, "");
            if (dist > s->pos)
                return corrupt(s, "distance too far back");
            if ((rc = room(s, len)))
                return rc;
            uint8_t *d = s->out + s->pos;
            const uint8_t *from = d - dist;
            if (dist >= 8 && s->cap - s->pos >= len + 8) {   /* 8 bytes at a time, overshoot in room */
                for (size_t k = 0; k < len; k += 8)
                    memcpy(d + k, from + k, 8);
            } else {
                for (size_t k = 0; k < len; k++)
                    d[k] = from[k];
            }
            s->pos += len;
        }
        if (overrun(s))
            return corrupt(s, "");
    }
}

/* === Streams === */

static int deflate_blocks(inflater *s)
{
    for (bool last = false; !last;) {
        refill(s);
        last = take(s, 1);
        unsigned type = take(s, 2);
        if (overrun(s))
            return corrupt(s, "");
        int rc = type == 0   ? stored(s)
                 : type == 1 ? fixed_tables(s)
                 : type == 2 ? dynamic_tables(s)
                             : corrupt(s, "reserved block type 3");
        if (!rc && type)
            rc = huffman(s);
        if (rc)
            return rc;
    }
    take(s, s->nbits & 7);
    s->in -= s->nbits / 8 - s->pad;   /* the whole bytes buffered past the stream's end */
    s->bits = 0;
    s->nbits = s->pad = 0;
    return 0;
}

uint32_t hxi_adler32(uint32_t adler, const void *p, size_t len)
{
    const uint8_t *b = p;
    uint32_t a = adler & 0xffff, c = adler >> 16;
    while (len) {
        size_t k = len < 5552 ? len : 5552;   /* the most bytes before c can overflow 32 bits */
        len -= k;
        while (k--) {
            a += *b++;
            c += a;
        }
        a %= 65521;
        c %= 65521;
    }
    return c << 16 | a;
}

static int zlib_header(inflater *s)
{
    if (s->end - s->in < 2)
        return hx_error_set(s->err, HX_ETRUNCATED, 0, "zlib stream shorter than its 2-byte header");
    unsigned cmf = s->in[0], flg = s->in[1];
    if ((cmf & 15) != 8 || (cmf >> 4) > 7)
        return hx_error_set(s->err, HX_EFORMAT, 0, "not a zlib deflate stream (method %u, window %u)", cmf & 15,
                            cmf >> 4);
    if ((cmf << 8 | flg) % 31)
        return hx_error_set(s->err, HX_EFORMAT, 1, "zlib header check bits are wrong");
    if (flg & 0x20)
        return hx_error_set(s->err, HX_EFORMAT, 1, "zlib stream needs a preset dictionary (not supported)");
    s->in += 2;
    return 0;
}

static int zlib_trailer(inflater *s)
{
    if (s->end - s->in < 4)
        return hx_error_set(s->err, HX_ETRUNCATED, (int64_t)(s->end - s->start), "zlib stream ends before its Adler-32");
    uint32_t want = (uint32_t)s->in[0] << 24 | (uint32_t)s->in[1] << 16 | (uint32_t)s->in[2] << 8 | s->in[3];
    if (hxi_adler32(1, s->out, s->pos) != want)
        return hx_error_set(s->err, HX_ECHECKSUM, (int64_t)(s->in - s->start), "zlib Adler-32 does not match the data");
    s->in += 4;
    return 0;
}

int hxi_inflate(const void *in, size_t n, int flags, size_t limit, size_t hint, uint8_t **out, size_t *out_len,
                size_t *in_used, hx_error *err)
{
    *out = NULL;
    *out_len = 0;
    inflater *s = hx_malloc(sizeof *s);
    if (!s)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for the inflate state");
    s->start = s->in = in;
    s->end = s->start + n;
    s->bits = 0;
    s->nbits = s->pad = 0;
    s->out = NULL;
    s->pos = s->cap = 0;
    s->limit = limit;
    s->err = err;
    int rc = room(s, hint && hint <= limit ? hint : limit < 4096 ? limit : 4096);
    bool zlib = flags & HX_INFLATE_ZLIB;
    if (!rc && zlib)
        rc = zlib_header(s);
    if (!rc)
        rc = deflate_blocks(s);
    if (!rc && zlib)
        rc = zlib_trailer(s);
    if (!rc || ((flags & HX_INFLATE_PARTIAL) && s->pos)) {
        if (!s->out && !(s->out = hx_malloc(1)))
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        *out = s->out;
        *out_len = s->out ? s->pos : 0;
    } else {
        free(s->out);
    }
    if (in_used)
        *in_used = (size_t)(s->in - s->start);
    free(s);
    return rc;
}
