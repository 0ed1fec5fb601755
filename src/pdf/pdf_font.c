/* pdf_font.c: PDF fonts as far as text extraction needs them (ISO 32000-2 9.6-9.10): codes to
 * Unicode through a ToUnicode CMap (codespace ranges, bfchar, bfrange with a string or an array;
 * `usecmap` is not followed, so CMaps cannot recurse), else for simple fonts through
 * StandardEncoding / WinAnsiEncoding / MacRomanEncoding with /Differences mapped by glyph name
 * (the Adobe Glyph List in pdf_glyphs.h, uniXXXX, uXXXX[XX]); glyph widths from /Widths, or /W and
 * /DW of a Type0 font's descendant. Knows no content stream (pdf.c). */
#include "pdf.h"
#include "pdf_glyphs.h"
#include "pdf_metrics.h"

#include "alloc.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

#define TU_MAX_RANGES 65536   /* ToUnicode entries kept per font */
#define TU_MAX_CPS 8          /* code points one code maps to */

typedef struct tu_range {
    uint32_t lo, hi;
    uint32_t off;             /* into pdf_font.pool */
    uint8_t n;                /* code points; the last one counts up along the range */
} tu_range;

typedef struct cs_range {
    uint32_t lo, hi;
    uint8_t nbytes;
} cs_range;

typedef struct cid_width {
    uint32_t lo, hi;
    float w;
} cid_width;

struct pdf_font {
    struct pdf_font *next;
    const pdf_obj *dict;      /* the key this font is cached under */
    bool type0;               /* codes are of the codespace's lengths (2 bytes by default) */
    cs_range cs[16];
    int ncs;
    uint16_t enc[256];        /* simple fonts: code -> Unicode (0: none) */
    tu_range *tu;             /* sorted by lo */
    size_t ntu;
    uint32_t *pool;
    float widths[256];        /* simple fonts: thousandths of text space */
    cid_width *cw;
    size_t ncw;
    float dw;                 /* Type0: default width */
    float wscale;             /* Type3: FontMatrix turns glyph space into thousandths */
};

/* === Glyph names === */

uint32_t pdf_glyph_unicode(const char *name)
{
    char base[64];
    size_t n = strcspn(name, ".");   /* a.sc is a */
    if (!n || n >= sizeof base)
        return 0;
    memcpy(base, name, n);
    base[n] = 0;
    size_t lo = 0, hi = PDF_GLYPH_COUNT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(pdf_glyphs[mid].name, base);
        if (!c)
            return pdf_glyphs[mid].cp;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const char *hex = !strncmp(base, "uni", 3) && n >= 7 ? base + 3 : base[0] == 'u' && n >= 5 && n <= 7 ? base + 1 : NULL;
    if (!hex)
        return 0;
    uint32_t v = 0;
    size_t digits = !strncmp(base, "uni", 3) ? 4 : n - 1;
    for (size_t i = 0; i < digits; i++) {
        int h = pdf_hexval((unsigned char)hex[i]);
        if (h < 0 || (hex[i] >= 'a' && hex[i] <= 'f'))
            return 0;   /* the forms take uppercase hex digits only */
        v = v << 4 | (uint32_t)h;
    }
    return v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF) ? v : 0;
}

/* === ToUnicode CMaps === */

static uint32_t code_of(const pdf_obj *s)
{
    uint32_t v = 0;
    for (size_t i = 0; i < s->u.s.n && i < 4; i++)
        v = v << 8 | s->u.s.p[i];
    return v;
}

/* Appends the UTF-16BE string s (or a glyph name) as code points to the pool; returns how many. */
static int utf16_cps(const pdf_obj *s, uint32_t out[TU_MAX_CPS])
{
    if (s->kind == PDF_NAME) {
        out[0] = pdf_glyph_unicode((const char *)s->u.s.p);
        return out[0] ? 1 : 0;
    }
    int n = 0;
    for (size_t i = 0; i + 1 < s->u.s.n && n < TU_MAX_CPS; i += 2) {
        uint32_t c = (uint32_t)s->u.s.p[i] << 8 | s->u.s.p[i + 1];
        if (c >= 0xD800 && c < 0xDC00 && i + 3 < s->u.s.n) {
            uint32_t lo = (uint32_t)s->u.s.p[i + 2] << 8 | s->u.s.p[i + 3];
            if (lo >= 0xDC00 && lo < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            }
        }
        out[n++] = c;
    }
    if (s->u.s.n == 1)   /* a one-byte destination some writers use */
        out[n++] = s->u.s.p[0];
    return n;
}

typedef struct tu_build {
    tu_range *r;
    size_t n, cap;
    uint32_t *pool;
    size_t npool, cappool;
} tu_build;

static int tu_add(pdf_doc *d, tu_build *b, uint32_t lo, uint32_t hi, const uint32_t *cps, int n)
{
    if (b->n >= TU_MAX_RANGES || n <= 0)
        return 0;
    if (hx_grow((void **)&b->r, &b->cap, b->n + 1, sizeof *b->r, d->err) ||
        hx_grow((void **)&b->pool, &b->cappool, b->npool + (size_t)n, sizeof *b->pool, d->err))
        return -1;
    b->r[b->n++] = (tu_range){lo, hi, (uint32_t)b->npool, (uint8_t)n};
    memcpy(b->pool + b->npool, cps, (size_t)n * sizeof *cps);
    b->npool += (size_t)n;
    return 0;
}

static int cmp_range(const void *a, const void *b)
{
    const tu_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Reads a ToUnicode CMap stream into f (codespace ranges too, which give a Type0 font's code
 * lengths). A damaged CMap keeps what was read before the damage. */
static int read_cmap(pdf_doc *d, pdf_font *f, pdf_obj *st)
{
    uint8_t *data;
    size_t n;
    int rc = pdf_stream_data(d, st, &data, &n);
    if (rc)
        return rc == HX_ERANGE || rc == HX_ENOMEM ? rc : (d->err->code = 0);
    tu_build b = {0};
    pdf_lex lx = {data, data + n, data, d};
    enum { NONE, CS, CHAR, RANGE } mode = NONE;
    pdf_obj *ops[3];
    int nops = 0;
    rc = 0;
    for (;;) {
        bool eof;
        pdf_obj *o = pdf_parse(&lx, 0, &eof);
        if (!o) {
            if (!eof)
                d->err->code = 0;   /* a syntax error ends the map */
            break;
        }
        if (o->kind == PDF_KEYWORD) {
            const char *k = (const char *)o->u.s.p;
            size_t kl = o->u.s.n;
            mode = kl == 19 && !memcmp(k, "begincodespacerange", 19) ? CS
                 : kl == 11 && !memcmp(k, "beginbfchar", 11)          ? CHAR
                 : kl == 12 && !memcmp(k, "beginbfrange", 12)         ? RANGE
                                                                      : NONE;
            nops = 0;
            continue;
        }
        if (mode == NONE)
            continue;
        ops[nops++] = o;
        uint32_t cps[TU_MAX_CPS];
        if (mode == CS && nops == 2) {
            if (ops[0]->kind == PDF_STR && ops[1]->kind == PDF_STR && f->ncs < 16 && ops[0]->u.s.n >= 1 &&
                ops[0]->u.s.n <= 4)
                f->cs[f->ncs++] = (cs_range){code_of(ops[0]), code_of(ops[1]), (uint8_t)ops[0]->u.s.n};
            nops = 0;
        } else if (mode == CHAR && nops == 2) {
            if (ops[0]->kind == PDF_STR && (ops[1]->kind == PDF_STR || ops[1]->kind == PDF_NAME)) {
                uint32_t c = code_of(ops[0]);
                if ((rc = tu_add(d, &b, c, c, cps, utf16_cps(ops[1], cps))))
                    break;
            }
            nops = 0;
        } else if (mode == RANGE && nops == 3) {
            if (ops[0]->kind == PDF_STR && ops[1]->kind == PDF_STR) {
                uint32_t lo = code_of(ops[0]), hi = code_of(ops[1]);
                if (hi >= lo && ops[2]->kind == PDF_STR) {
                    rc = tu_add(d, &b, lo, hi, cps, utf16_cps(ops[2], cps));
                } else if (hi >= lo && ops[2]->kind == PDF_ARRAY) {   /* one destination per code */
                    for (size_t i = 0; i < ops[2]->u.a.n && i <= hi - lo && !rc; i++)
                        if (ops[2]->u.a.v[i].kind == PDF_STR)
                            rc = tu_add(d, &b, lo + (uint32_t)i, lo + (uint32_t)i, cps, utf16_cps(&ops[2]->u.a.v[i], cps));
                }
                if (rc)
                    break;
            }
            nops = 0;
        }
    }
    free(data);
    if (!rc && b.n) {
        qsort(b.r, b.n, sizeof *b.r, cmp_range);
        f->tu = pdf_alloc(d, b.n * sizeof *b.r);
        f->pool = pdf_alloc(d, b.npool * sizeof *b.pool);
        if (!f->tu || !f->pool)
            rc = d->err->code;
        else {
            memcpy(f->tu, b.r, b.n * sizeof *b.r);
            memcpy(f->pool, b.pool, b.npool * sizeof *b.pool);
            f->ntu = b.n;
        }
    }
    free(b.r);
    free(b.pool);
    return rc;
}

static const tu_range *tu_find(const pdf_font *f, uint32_t code)
{
    size_t lo = 0, hi = f->ntu;
    while (lo < hi) {   /* the last range starting at or before code */
        size_t mid = (lo + hi) / 2;
        if (f->tu[mid].lo <= code)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0 && lo - i <= 8;)   /* overlapping ranges: look a few back */
        if (f->tu[i].hi >= code)
            return &f->tu[i];
    return NULL;
}

/* === Loading === */

static const uint16_t *named_encoding(const pdf_obj *name)
{
    if (pdf_is_name(name, "WinAnsiEncoding"))
        return pdf_enc_winansi;
    if (pdf_is_name(name, "MacRomanEncoding"))
        return pdf_enc_macroman;
    if (pdf_is_name(name, "StandardEncoding"))
        return pdf_enc_standard;
    return NULL;
}

/* The Unicode of glyph `name` at `code`; a name the glyph list does not know reads as the code
 * itself, as pdftotext does (TeX's `angbracketleft` at 0x68 is an `h` there too). */
static uint16_t by_name(const char *name, int code)
{
    uint32_t cp = pdf_glyph_unicode(name);
    if (!cp && code > 32 && code != 127)
        cp = (uint32_t)code;
    return cp <= 0xFFFF ? (uint16_t)cp : 0;
}

/* The encoding built into an embedded Type 1 font program: the `dup CODE /name put` lines of its
 * clear-text part (/Length1 bytes of /FontFile), which TeX's math and symbol fonts rely on. */
static int builtin_encoding(pdf_doc *d, pdf_font *f, pdf_obj *font)
{
    pdf_obj *ff = pdf_get(d, pdf_get(d, font, "FontDescriptor"), "FontFile");
    double clear;
    if (!ff || ff->kind != PDF_STREAM || !pdf_num(pdf_get(d, ff, "Length1"), &clear) || clear <= 0)
        return 0;
    uint8_t *data;
    size_t n;
    int rc = pdf_stream_data(d, ff, &data, &n);
    if (rc)
        return rc == HX_ERANGE || rc == HX_ENOMEM ? rc : (d->err->code = 0);
    if ((double)n > clear)
        n = (size_t)clear;
    const uint8_t *p = data, *end = data + n;
    while ((p = memmem(p, (size_t)(end - p), "dup ", 4)) != NULL) {
        p += 4;
        int code = 0, digits = 0;
        while (p < end && *p >= '0' && *p <= '9' && digits < 4) {
            code = code * 10 + (*p++ - '0');
            digits++;
        }
        if (!digits || code > 255 || end - p < 2 || p[0] != ' ' || p[1] != '/')
            continue;
        p += 2;
        char name[64];
        size_t k = 0;
        while (p < end && k < sizeof name - 1 && *p > ' ' && *p != '/' && *p != '[' && *p != '(')
            name[k++] = (char)*p++;
        name[k] = 0;
        f->enc[code] = by_name(name, code);
    }
    free(data);
    return 0;
}

static int simple_encoding(pdf_doc *d, pdf_font *f, pdf_obj *font)
{
    pdf_obj *enc = pdf_get(d, font, "Encoding");
    const uint16_t *base = named_encoding(enc);
    if (!base && enc && enc->kind == PDF_DICT)
        base = named_encoding(pdf_get(d, enc, "BaseEncoding"));
    memcpy(f->enc, base ? base : pdf_enc_standard, sizeof f->enc);
    int rc = base ? 0 : builtin_encoding(d, f, font);
    if (rc)
        return rc;
    pdf_obj *diff = enc && enc->kind == PDF_DICT ? pdf_get(d, enc, "Differences") : NULL;
    if (!diff || diff->kind != PDF_ARRAY)
        return 0;
    int64_t code = 0;
    for (size_t i = 0; i < diff->u.a.n; i++) {
        pdf_obj *v = &diff->u.a.v[i];
        if (v->kind == PDF_INT)
            code = v->u.i;
        else if (v->kind == PDF_NAME && code >= 0 && code < 256) {
            f->enc[code] = by_name((const char *)v->u.s.p, (int)code);
            code++;
        }
    }
    return 0;
}

/* Widths of a standard font named without /Widths: Courier's are all 600, Times' and Helvetica's
 * (and their look-alikes Arial and TimesNewRoman) come from pdf_metrics.h, others are guessed at
 * an average 500. */
static void standard_widths(pdf_font *f, const pdf_obj *base)
{
    const char *name = base && base->kind == PDF_NAME ? (const char *)base->u.s.p : "";
    if (strlen(name) > 7 && name[6] == '+')
        name += 7;   /* a subset's tag */
    bool bold = strstr(name, "Bold"), italic = strstr(name, "Italic") || strstr(name, "Oblique");
    int row = strstr(name, "Times") ? 0 : strstr(name, "Helvetica") || strstr(name, "Arial") ? 4 : -1;
    if (row >= 0)
        row += (bold ? 1 : 0) + (italic ? 2 : 0);
    for (int i = 0; i < 256; i++) {
        f->widths[i] = strstr(name, "Courier") ? 600 : 500;
        size_t lo = 0, hi = PDF_STD_GLYPHS;
        while (row >= 0 && f->enc[i] && lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (pdf_std_cps[mid] == f->enc[i]) {
                f->widths[i] = pdf_std_widths[row][mid];
                break;
            }
            if (pdf_std_cps[mid] < f->enc[i])
                lo = mid + 1;
            else
                hi = mid;
        }
    }
}

static void simple_widths(pdf_doc *d, pdf_font *f, pdf_obj *font)
{
    double first = 0, missing = 0;
    pdf_obj *w = pdf_get(d, font, "Widths");
    pdf_num(pdf_get(d, font, "FirstChar"), &first);
    pdf_num(pdf_get(d, pdf_get(d, font, "FontDescriptor"), "MissingWidth"), &missing);
    if (!w || w->kind != PDF_ARRAY) {
        standard_widths(f, pdf_get(d, font, "BaseFont"));
        return;
    }
    for (int i = 0; i < 256; i++) {
        double v = missing;
        if (i >= first && (size_t)(i - first) < w->u.a.n)
            pdf_num(pdf_resolve(d, &w->u.a.v[(size_t)(i - first)]), &v);
        f->widths[i] = (float)v;
    }
}

static int cmp_width(const void *a, const void *b)
{
    const cid_width *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cid_widths(pdf_doc *d, pdf_font *f, pdf_obj *desc)
{
    double dw = 1000;
    pdf_num(pdf_get(d, desc, "DW"), &dw);
    f->dw = (float)dw;
    pdf_obj *w = pdf_get(d, desc, "W");
    if (!w || w->kind != PDF_ARRAY)
        return 0;
    size_t cap = 1, n = 0;   /* one entry per code of a `c [w1 w2 ...]` list, one per `c1 c2 w` range */
    for (size_t i = 0; i < w->u.a.n; i++) {
        pdf_obj *v = pdf_resolve(d, &w->u.a.v[i]);
        if (!v)
            return d->err->code;
        cap += v->kind == PDF_ARRAY ? v->u.a.n : 1;
    }
    cid_width *cw = pdf_alloc(d, cap * sizeof *cw);
    if (!cw)
        return d->err->code;
    for (size_t i = 0; i + 1 < w->u.a.n;) {
        double c1, c2, v;
        pdf_obj *next = pdf_resolve(d, &w->u.a.v[i + 1]);
        if (!pdf_num(&w->u.a.v[i], &c1) || !(c1 >= 0 && c1 <= UINT32_MAX) || !next)   /* NaN too */
            break;
        if (next->kind == PDF_ARRAY) {   /* c [w1 w2 ...] */
            for (size_t k = 0; k < next->u.a.n && n < cap; k++)
                if (pdf_num(&next->u.a.v[k], &v))
                    cw[n++] = (cid_width){(uint32_t)c1 + (uint32_t)k, (uint32_t)c1 + (uint32_t)k, (float)v};
            i += 2;
        } else if (i + 2 < w->u.a.n && pdf_num(next, &c2) && pdf_num(&w->u.a.v[i + 2], &v)) {   /* c1 c2 w */
            if (c2 >= c1 && c2 <= UINT32_MAX && n < cap)
                cw[n++] = (cid_width){(uint32_t)c1, (uint32_t)c2, (float)v};
            i += 3;
        } else {
            break;
        }
    }
    qsort(cw, n, sizeof *cw, cmp_width);
    f->cw = cw;
    f->ncw = n;
    return 0;
}

pdf_font *pdf_font_load(pdf_doc *d, pdf_obj *font)
{
    for (pdf_font *f = d->fonts; f; f = f->next)
        if (f->dict == font)
            return f;
    pdf_font *f = pdf_alloc(d, sizeof *f);
    if (!f)
        return NULL;
    f->dict = font;
    f->wscale = 1;
    f->next = d->fonts;
    d->fonts = f;
    pdf_obj *sub = pdf_get(d, font, "Subtype");
    if (pdf_is_name(sub, "Type0")) {
        f->type0 = true;
        pdf_obj *desc = pdf_get(d, font, "DescendantFonts");
        if (desc && desc->kind == PDF_ARRAY && desc->u.a.n)
            desc = pdf_resolve(d, &desc->u.a.v[0]);
        if (desc && desc->kind == PDF_DICT && cid_widths(d, f, desc))
            return NULL;
        if (!desc || desc->kind != PDF_DICT)
            f->dw = 1000;
    } else {
        if (simple_encoding(d, f, font))
            return NULL;
        simple_widths(d, f, font);
        pdf_obj *fm = pdf_get(d, font, "FontMatrix");
        double a;
        if (pdf_is_name(sub, "Type3") && fm && fm->kind == PDF_ARRAY && fm->u.a.n == 6 && pdf_num(&fm->u.a.v[0], &a))
            f->wscale = (float)(a * 1000);
    }
    pdf_obj *tu = pdf_get(d, font, "ToUnicode");
    if (tu && tu->kind == PDF_STREAM && read_cmap(d, f, tu))
        return NULL;
    return d->err->code ? NULL : f;
}

/* === Decoding === */

void pdf_font_next(const pdf_font *f, const uint8_t *s, size_t n, size_t *i, char u[16], size_t *ulen, double *w,
                   bool *is_space)
{
    size_t len = 1;
    if (f->type0) {
        len = n - *i >= 2 ? 2 : 1;
        for (size_t l = 1; l <= 4 && l <= n - *i && f->ncs; l++) {
            uint32_t c = 0;
            for (size_t k = 0; k < l; k++)
                c = c << 8 | s[*i + k];
            bool hit = false;
            for (int k = 0; k < f->ncs && !hit; k++)
                hit = f->cs[k].nbytes == l && c >= f->cs[k].lo && c <= f->cs[k].hi;
            if (hit) {
                len = l;
                break;
            }
        }
    }
    uint32_t code = 0;
    for (size_t k = 0; k < len; k++)
        code = code << 8 | s[*i + k];
    *i += len;
    *is_space = len == 1 && code == 32;
    *ulen = 0;
    const tu_range *r = f->ntu ? tu_find(f, code) : NULL;
    if (r) {
        for (uint8_t k = 0; k < r->n; k++) {
            uint32_t cp = f->pool[r->off + k] + (k == r->n - 1 ? code - r->lo : 0);
            if (*ulen + 4 <= 16 && cp && (cp < 0xD800 || cp > 0xDFFF) && cp <= 0x10FFFF)
                *ulen += (size_t)hxi_utf8_put(cp, u + *ulen);
        }
    } else if (!f->type0 && f->enc[code & 255]) {
        *ulen = (size_t)hxi_utf8_put(f->enc[code & 255], u);
    }
    if (f->type0) {
        size_t lo = 0, hi = f->ncw;
        while (lo < hi) {   /* the last range starting at or before code */
            size_t mid = (lo + hi) / 2;
            if (f->cw[mid].lo <= code)
                lo = mid + 1;
            else
                hi = mid;
        }
        *w = lo && f->cw[lo - 1].hi >= code ? f->cw[lo - 1].w : f->dw;
    } else {
        *w = f->widths[code & 255] * f->wscale;
    }
}
