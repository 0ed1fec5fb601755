/* unicode.c: UTF-8 decoding and the per-code-point Unicode lookups of unicode.h (classes, BERT
 * fold, simple lowercase, scripts, ICU folding). Owns no state; the tables live in the generated
 * unicode_tables.h (tools/gen_unicode.py) and unicode_words.h (tools/lucene_golden), whose
 * generators document where each one comes from. */
#include "unicode.h"

#include "unicode_tables.h"
#include "unicode_words.h"

_Static_assert(HX_UW_FOLD_MAX == HX_UNICODE_FOLD_MAX, "regenerate unicode_words.h or update unicode.h");

/* === UTF-8 === */

int hxi_utf8_next(const char *s, size_t len, size_t *pos, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s + *pos;
    size_t left = len - *pos;
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        *pos += 1;
        return 1;
    }
    uint32_t v, min;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2; v = c & 0x1F; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3; v = c & 0x0F; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4; v = c & 0x07; min = 0x10000;
    } else {
        goto bad;
    }
    if (left < n)
        goto bad;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            goto bad;
        v = v << 6 | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        goto bad;
    *cp = v;
    *pos += n;
    return 1;
bad:
    *cp = 0xFFFD;
    *pos += 1;
    return 0;
}

int hxi_utf8_put(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* === Lookups === */

#define HX_UT_LOOKUP(name, cp)                                                               \
    hxi_ut_##name##_stage2[(size_t)hxi_ut_##name##_stage1[(cp) >> HX_UT_##name##_SHIFT_]      \
                              << HX_UT_##name##_SHIFT_ |                                     \
                          ((cp) & ((1u << HX_UT_##name##_SHIFT_) - 1))]
#define HX_UT_class_SHIFT_ HX_UT_CLASS_SHIFT
#define HX_UT_fold_SHIFT_ HX_UT_FOLD_SHIFT
#define HX_UT_lower_SHIFT_ HX_UT_LOWER_SHIFT

unsigned hxi_unicode_class(uint32_t cp)
{
    if (cp >= 0x110000)
        return HX_UC_CONTROL;
    return HX_UT_LOOKUP(class, cp);
}

int hxi_unicode_bert_fold(uint32_t cp, uint32_t out[4])
{
    if (cp >= 0x110000) {
        out[0] = cp;
        return 1;
    }
    unsigned idx = HX_UT_LOOKUP(fold, cp);
    if (idx == HX_UT_FOLD_HANGUL) {
        uint32_t s = cp - 0xAC00;
        out[0] = 0x1100 + s / 588;
        out[1] = 0x1161 + s % 588 / 28;
        if (s % 28 == 0)
            return 2;
        out[2] = 0x11A7 + s % 28;
        return 3;
    }
    const int32_t *row = hxi_ut_fold_map[idx];
    if (row[0] == 1) {
        out[0] = (uint32_t)((int32_t)cp + row[1]);
        return 1;
    }
    for (int i = 0; i < row[0]; i++)
        out[i] = (uint32_t)row[1 + i];
    return row[0];
}

uint32_t hxi_unicode_lower(uint32_t cp)
{
    if (cp >= 0x110000)
        return cp;
    return (uint32_t)((int32_t)cp + hxi_ut_lower_delta[HX_UT_LOOKUP(lower, cp)]);
}

unsigned hxi_unicode_script(uint32_t cp)
{
    if (cp < 0x80)
        return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z' ? HX_US_LATIN : HX_US_OTHER;
    size_t lo = 0, hi = sizeof hxi_uw_class / sizeof hxi_uw_class[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp > hxi_uw_class[mid].last)
            lo = mid + 1;
        else if (cp < hxi_uw_class[mid].first)
            hi = mid;
        else
            return hxi_uw_class[mid].cls;
    }
    return HX_US_OTHER;
}

int hxi_unicode_fold(uint32_t cp, uint32_t *out)
{
    if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')) {   /* the common case: not in the table */
        out[0] = cp;
        return 1;
    }
    size_t lo = 0, hi = sizeof hxi_uw_fold / sizeof hxi_uw_fold[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hxi_uw_fold[mid].cp < cp) {
            lo = mid + 1;
        } else if (hxi_uw_fold[mid].cp > cp) {
            hi = mid;
        } else {
            const hxi_uw_fold_entry *e = &hxi_uw_fold[mid];
            for (int i = 0; i < e->len; i++)
                out[i] = hxi_uw_fold_pool[e->off + i];
            return e->len;
        }
    }
    out[0] = cp;
    return 1;
}
