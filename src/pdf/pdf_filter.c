/* pdf_filter.c: PDF stream filters (ISO 32000-2 7.4): FlateDecode (src/base/inflate.c) with PNG
 * predictors, LZWDecode, ASCIIHexDecode, ASCII85Decode, RunLengthDecode; image-only filters (DCT,
 * JPX, CCITT, JBIG2) are reported as not read. Every decoded stream is bounded by PDF_MAX_STREAM
 * and the document's remaining budget (pdf.h), so a decompression bomb stops with an error. */
#include "pdf.h"

#include "alloc.h"
#include "inflate.h"

#include <stdlib.h>
#include <string.h>

static int put(uint8_t **o, size_t *n, size_t *cap, size_t limit, uint8_t c, hx_error *err)
{
    if (*n >= limit)
        return hx_error_set(err, HX_ERANGE, -1, "PDF: a stream decodes to more than %zu bytes", limit);
    if (*n == *cap && hx_grow((void **)o, cap, *n + 1, 1, err))
        return HX_ENOMEM;
    (*o)[(*n)++] = c;
    return 0;
}

static int ahx(const uint8_t *s, size_t n, uint8_t **o, size_t *on, size_t limit, hx_error *err)
{
    size_t cap = 0;
    int hi = -1;
    for (size_t i = 0; i < n && s[i] != '>'; i++) {
        int v = pdf_hexval(s[i]);
        if (v < 0)
            continue;
        if (hi < 0)
            hi = v;
        else if (put(o, on, &cap, limit, (uint8_t)(hi << 4 | v), err))
            return err->code;
        else
            hi = -1;
    }
    return hi >= 0 ? put(o, on, &cap, limit, (uint8_t)(hi << 4), err) : 0;
}

static int a85(const uint8_t *s, size_t n, uint8_t **o, size_t *on, size_t limit, hx_error *err)
{
    size_t cap = 0;
    uint32_t v = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '~')
            break;
        if (c == 'z' && k == 0) {
            for (int j = 0; j < 4; j++)
                if (put(o, on, &cap, limit, 0, err))
                    return err->code;
            continue;
        }
        if (c < '!' || c > 'u')
            continue;
        v = v * 85 + (uint32_t)(c - '!');
        if (++k == 5) {
            for (int j = 3; j >= 0; j--)
                if (put(o, on, &cap, limit, (uint8_t)(v >> (8 * j)), err))
                    return err->code;
            v = 0;
            k = 0;
        }
    }
    if (k > 1) {   /* a final partial group: pad with 'u' and keep k-1 bytes */
        for (int j = k; j < 5; j++)
            v = v * 85 + 84;
        for (int j = 0; j < k - 1; j++)
            if (put(o, on, &cap, limit, (uint8_t)(v >> (8 * (3 - j))), err))
                return err->code;
    }
    return 0;
}

static int runlength(const uint8_t *s, size_t n, uint8_t **o, size_t *on, size_t limit, hx_error *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < n;) {
        uint8_t l = s[i++];
        if (l == 128)
            break;
        if (l < 128) {
            for (size_t j = 0; j <= l && i < n; j++)
                if (put(o, on, &cap, limit, s[i++], err))
                    return err->code;
        } else if (i < n) {
            for (int j = 0; j < 257 - l; j++)
                if (put(o, on, &cap, limit, s[i], err))
                    return err->code;
            i++;
        }
    }
    return 0;
}

/* LZW as in TIFF and PDF 7.4.4: 9-12 bit codes, 256 clears, 257 ends; early change by default. */
static int lzw(const uint8_t *s, size_t n, int early, uint8_t **o, size_t *on, size_t limit, hx_error *err)
{
    enum { MAXC = 4096 };
    uint16_t *prefix = hx_malloc(MAXC * sizeof *prefix);
    uint8_t *suffix = hx_malloc(MAXC), *first = hx_malloc(MAXC), *stack = hx_malloc(MAXC);
    size_t cap = 0;
    int rc = 0;
    if (!prefix || !suffix || !first || !stack) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto out;
    }
    for (int i = 0; i < 256; i++)
        suffix[i] = first[i] = (uint8_t)i;
    int next = 258, width = 9, prev = -1;
    uint32_t bits = 0;
    int nbits = 0;
    for (size_t i = 0; i < n || nbits >= width;) {
        while (nbits < width && i < n) {
            bits = bits << 8 | s[i++];
            nbits += 8;
        }
        if (nbits < width)
            break;
        int code = (int)(bits >> (nbits - width)) & ((1 << width) - 1);
        nbits -= width;
        if (code == 256) {
            next = 258;
            width = 9;
            prev = -1;
            continue;
        }
        if (code == 257)
            break;
        int cur = code;
        if (prev < 0) {
            if (code > 255)
                break;
            if ((rc = put(o, on, &cap, limit, (uint8_t)code, err)))
                goto out;
            prev = code;
            continue;
        }
        if (code > next || (code == next && next >= MAXC))
            break;   /* corrupt: keep what was decoded */
        int sp = 0;
        uint8_t fc;
        if (code == next) {
            fc = first[prev];
            stack[sp++] = fc;
            cur = prev;
        }
        while (cur > 255 && sp < MAXC - 1) {
            stack[sp++] = suffix[cur];
            cur = prefix[cur];
        }
        stack[sp++] = (uint8_t)cur;
        fc = (uint8_t)cur;
        while (sp)
            if ((rc = put(o, on, &cap, limit, stack[--sp], err)))
                goto out;
        if (next < MAXC) {
            prefix[next] = (uint16_t)prev;
            suffix[next] = fc;
            first[next] = first[prev];
            next++;
        }
        if (next + early >= (1 << width) && width < 12)
            width++;
        prev = code;
    }
out:
    free(prefix);
    free(suffix);
    free(first);
    free(stack);
    return rc;
}

/* PNG predictors (7.4.4.4) on rows of `columns` samples; TIFF predictor 2 is left as it is. */
static void unpredict(pdf_doc *d, pdf_obj *parms, uint8_t *buf, size_t *len)
{
    double pred = 1, colors = 1, bpc = 8, columns = 1;
    pdf_num(pdf_get(d, parms, "Predictor"), &pred);
    if (pred < 10)
        return;
    pdf_num(pdf_get(d, parms, "Colors"), &colors);
    pdf_num(pdf_get(d, parms, "BitsPerComponent"), &bpc);
    pdf_num(pdf_get(d, parms, "Columns"), &columns);
    if (colors < 1 || colors > 32 || bpc < 1 || bpc > 16 || columns < 1 || columns > 1e6)
        return;
    size_t bpp = (size_t)(colors * bpc + 7) / 8, row = ((size_t)colors * (size_t)bpc * (size_t)columns + 7) / 8;
    size_t out = 0;
    uint8_t *prev = buf;   /* the previous decoded row (written before this one, so never overwritten) */
    for (size_t i = 0; i + 1 + row <= *len; i += row + 1) {
        uint8_t type = buf[i];
        uint8_t *cur = buf + out;
        memmove(cur, buf + i + 1, row);
        for (size_t k = 0; k < row; k++) {
            int a = k >= bpp ? cur[k - bpp] : 0, b = out ? prev[k] : 0, c = out && k >= bpp ? prev[k - bpp] : 0;
            int v = cur[k];
            switch (type) {
            case 1: v += a; break;
            case 2: v += b; break;
            case 3: v += (a + b) / 2; break;
            case 4: {
                int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
                v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
                break;
            }
            default: break;
            }
            cur[k] = (uint8_t)v;
        }
        prev = cur;
        out += row;
    }
    *len = out;
}

int pdf_stream_data(pdf_doc *d, pdf_obj *st, uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    pdf_obj *filt = pdf_get(d, st, "Filter"), *parms = pdf_get(d, st, "DecodeParms");
    if (!parms)
        parms = pdf_get(d, st, "DP");
    if (d->err->code)
        return d->err->code;
    size_t nf = filt && filt->kind == PDF_ARRAY ? filt->u.a.n : filt ? 1 : 0;
    if (st->u.st.len > d->budget)   /* the same stream read over and over counts each time */
        return hx_error_set(d->err, HX_ERANGE, -1, "PDF: streams decode to more than %zu MiB in all",
                            (size_t)(d->budget >> 20));
    d->budget -= st->u.st.len;
    uint8_t *cur = hx_malloc(st->u.st.len + 1);
    if (!cur)
        return hx_error_set(d->err, HX_ENOMEM, -1, "out of memory");
    memcpy(cur, d->buf + st->u.st.off, st->u.st.len);
    size_t n = st->u.st.len;
    if (d->keylen && !d->plain_streams && !pdf_is_name(pdf_get(d, st, "Type"), "XRef"))
        n = pdf_crypt(d, st->u.st.num, st->u.st.gen, cur, n);
    for (size_t i = 0; i < nf && i < 8; i++) {
        pdf_obj *f = filt->kind == PDF_ARRAY ? pdf_resolve(d, &filt->u.a.v[i]) : filt;
        pdf_obj *p = parms && parms->kind == PDF_ARRAY ? (i < parms->u.a.n ? pdf_resolve(d, &parms->u.a.v[i]) : NULL)
                                                       : parms;
        if (!f || f->kind != PDF_NAME) {
            free(cur);
            return d->err->code ? d->err->code : hx_error_set(d->err, HX_ENOTFOUND, -1, "PDF: a filter is not a name");
        }
        const char *name = (const char *)f->u.s.p;
        size_t limit = d->budget < PDF_MAX_STREAM ? d->budget : PDF_MAX_STREAM;
        uint8_t *o = NULL;
        size_t on = 0;
        int rc = 0;
        if (!strcmp(name, "FlateDecode") || !strcmp(name, "Fl")) {
            hx_error e2 = {0};
            rc = hxi_inflate(cur, n, HX_INFLATE_ZLIB | HX_INFLATE_PARTIAL, limit, n * 4, &o, &on, NULL, &e2);
            if (rc && !o && rc != HX_ERANGE)   /* some writers leave out the zlib header */
                rc = hxi_inflate(cur, n, HX_INFLATE_RAW | HX_INFLATE_PARTIAL, limit, n * 4, &o, &on, NULL, &e2);
            if (rc == HX_ERANGE) {
                free(o);
                free(cur);
                return hx_error_set(d->err, HX_ERANGE, -1, "PDF: a stream inflates to more than %zu bytes", limit);
            }
            rc = 0;   /* a corrupt stream keeps what decoded before the damage */
            if (o)
                unpredict(d, p, o, &on);
        } else if (!strcmp(name, "LZWDecode") || !strcmp(name, "LZW")) {
            double early = 1;
            pdf_num(pdf_get(d, p, "EarlyChange"), &early);
            rc = lzw(cur, n, early != 0, &o, &on, limit, d->err);
            if (!rc && o)
                unpredict(d, p, o, &on);
        } else if (!strcmp(name, "ASCIIHexDecode") || !strcmp(name, "AHx")) {
            rc = ahx(cur, n, &o, &on, limit, d->err);
        } else if (!strcmp(name, "ASCII85Decode") || !strcmp(name, "A85")) {
            rc = a85(cur, n, &o, &on, limit, d->err);
        } else if (!strcmp(name, "RunLengthDecode") || !strcmp(name, "RL")) {
            rc = runlength(cur, n, &o, &on, limit, d->err);
        } else {
            free(cur);
            return hx_error_set(d->err, HX_ENOTFOUND, -1, "PDF: filter %s is not read", name);
        }
        free(cur);
        if (rc) {
            free(o);
            return rc;
        }
        cur = o ? o : hx_malloc(1);
        n = on;
        if (!cur)
            return hx_error_set(d->err, HX_ENOMEM, -1, "out of memory");
        d->budget -= n <= d->budget ? n : d->budget;
    }
    *out = cur;
    *out_len = n;
    return 0;
}

