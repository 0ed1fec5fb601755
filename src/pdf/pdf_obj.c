/* pdf_obj.c: PDF objects (ISO 32000-2 7.2-7.5): the lexer and value parser, indirect objects and
 * their streams (with /Length direct or indirect, and a scan for `endstream` when it is wrong),
 * classic cross-reference tables and xref streams (/W, /Index) along /Prev chains, object streams,
 * a rebuild of the cross-reference by scanning for `N G obj` when it is broken, and the stream
 * filters are pdf_filter.c. Knows nothing of pages, fonts or text (pdf.c, pdf_font.c). Bounds: pdf.h. */
#include "pdf.h"

#include "alloc.h"
#include "unicode.h"

#include <stdlib.h>
#include <string.h>

/* === Arena === */

struct pdf_chunk {
    pdf_chunk *next;
    size_t cap, used;
    max_align_t data[];
};

void *pdf_alloc(pdf_doc *d, size_t n)
{
    pdf_arena *a = d->use_scratch ? &d->scratch : &d->arena;
    n = (n + 15) & ~(size_t)15;
    if (n > a->limit || a->used > a->limit - n) {
        hx_error_set(d->err, HX_ERANGE, -1, "PDF needs more than %zu MiB of memory to read", a->limit >> 20);
        return NULL;
    }
    pdf_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > (64u << 10) ? n : (64u << 10);
        c = hx_malloc(sizeof *c + cap);
        if (!c) {
            hx_error_set(d->err, HX_ENOMEM, -1, "out of memory reading PDF");
            return NULL;
        }
        c->cap = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    a->used += n;
    return memset(p, 0, n);
}

static void arena_free(pdf_arena *a)
{
    while (a->head) {
        pdf_chunk *n = a->head->next;
        free(a->head);
        a->head = n;
    }
}

void pdf_scratch_reset(pdf_doc *d)
{
    pdf_arena *a = &d->scratch;
    while (a->head && a->head->next) {
        pdf_chunk *n = a->head->next;
        free(a->head);
        a->head = n;
    }
    if (a->head)
        a->head->used = 0;
    a->used = 0;
}

/* === Lexer === */

static bool is_ws(int c)
{
    return c == 0 || c == 9 || c == 10 || c == 12 || c == 13 || c == 32;
}

static bool is_delim(int c)
{
    return c == '(' || c == ')' || c == '<' || c == '>' || c == '[' || c == ']' || c == '{' || c == '}' ||
           c == '/' || c == '%';
}

static bool is_regular(int c)
{
    return !is_ws(c) && !is_delim(c);
}

void pdf_skip_ws(pdf_lex *lx)
{
    while (lx->p < lx->end) {
        if (is_ws(*lx->p))
            lx->p++;
        else if (*lx->p == '%')
            while (lx->p < lx->end && *lx->p != '\n' && *lx->p != '\r')
                lx->p++;
        else
            break;
    }
}

static int64_t lex_off(const pdf_lex *lx)
{
    return (int64_t)(lx->p - lx->base);
}

static pdf_obj *fail(pdf_lex *lx, int code, const char *what)
{
    hx_error_set(lx->doc->err, code, lex_off(lx), "PDF: %s", what);
    return NULL;
}

/* Whether the next token is the keyword kw (not a longer word). */
static bool at_keyword(const pdf_lex *lx, const char *kw)
{
    size_t n = strlen(kw);
    return (size_t)(lx->end - lx->p) >= n && !memcmp(lx->p, kw, n) &&
           (lx->p + n == lx->end || !is_regular(lx->p[n]));
}

int pdf_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static pdf_obj *new_obj(pdf_doc *d, pdf_kind k)
{
    pdf_obj *o = pdf_alloc(d, sizeof *o);
    if (o)
        o->kind = k;
    return o;
}

static pdf_obj *parse_literal(pdf_lex *lx)
{
    const uint8_t *s = ++lx->p;
    int nest = 1;
    while (lx->p < lx->end && nest) {   /* find the end first: the decoded text is no longer */
        if (*lx->p == '\\')
            lx->p++;
        else if (*lx->p == '(')
            nest++;
        else if (*lx->p == ')')
            nest--;
        lx->p++;
    }
    const uint8_t *e = nest ? lx->end : lx->p - 1;
    if (lx->p > lx->end)
        lx->p = lx->end;
    pdf_obj *o = new_obj(lx->doc, PDF_STR);
    uint8_t *out = o ? pdf_alloc(lx->doc, (size_t)(e - s) + 1) : NULL;
    if (!out)
        return NULL;
    size_t n = 0;
    for (const uint8_t *q = s; q < e; q++) {
        uint8_t c = *q;
        if (c == '\r') {   /* an end of line in a string is \n, whatever its bytes */
            if (q + 1 < e && q[1] == '\n')
                q++;
            out[n++] = '\n';
            continue;
        }
        if (c != '\\' || q + 1 >= e) {
            out[n++] = c;
            continue;
        }
        c = *++q;
        switch (c) {
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case '\r':
            if (q + 1 < e && q[1] == '\n')
                q++;
            break;
        case '\n': break;
        default:
            if (c >= '0' && c <= '7') {
                int v = c - '0';
                for (int k = 0; k < 2 && q + 1 < e && q[1] >= '0' && q[1] <= '7'; k++)
                    v = v * 8 + (*++q - '0');
                out[n++] = (uint8_t)v;
            } else {
                out[n++] = c;
            }
        }
    }
    o->u.s.p = out;
    o->u.s.n = n;
    return o;
}

static pdf_obj *parse_hex(pdf_lex *lx)
{
    const uint8_t *s = ++lx->p;
    while (lx->p < lx->end && *lx->p != '>')
        lx->p++;
    const uint8_t *e = lx->p;
    if (lx->p < lx->end)
        lx->p++;
    pdf_obj *o = new_obj(lx->doc, PDF_STR);
    uint8_t *out = o ? pdf_alloc(lx->doc, (size_t)(e - s) / 2 + 1) : NULL;
    if (!out)
        return NULL;
    size_t n = 0;
    int hi = -1;
    for (const uint8_t *q = s; q < e; q++) {
        int v = pdf_hexval(*q);
        if (v < 0)
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0)
        out[n++] = (uint8_t)(hi << 4);   /* an odd final digit is followed by 0 */
    o->u.s.p = out;
    o->u.s.n = n;
    return o;
}

static pdf_obj *parse_name(pdf_lex *lx)
{
    const uint8_t *s = ++lx->p;
    while (lx->p < lx->end && is_regular(*lx->p))
        lx->p++;
    pdf_obj *o = new_obj(lx->doc, PDF_NAME);
    char *out = o ? pdf_alloc(lx->doc, (size_t)(lx->p - s) + 1) : NULL;
    if (!out)
        return NULL;
    size_t n = 0;
    for (const uint8_t *q = s; q < lx->p; q++) {
        if (*q == '#' && q + 2 < lx->p && pdf_hexval(q[1]) >= 0 && pdf_hexval(q[2]) >= 0) {
            out[n++] = (char)(pdf_hexval(q[1]) << 4 | pdf_hexval(q[2]));
            q += 2;
        } else {
            out[n++] = (char)*q;
        }
    }
    o->u.s.p = (const uint8_t *)out;
    o->u.s.n = n;
    return o;
}

/* Reads an unsigned integer token at the lexer (no sign, no point); false when there is none. */
static bool lex_uint(pdf_lex *lx, uint64_t *v)
{
    const uint8_t *q = lx->p;
    uint64_t x = 0;
    while (q < lx->end && *q >= '0' && *q <= '9' && q - lx->p < 18)
        x = x * 10 + (uint64_t)(*q++ - '0');
    if (q == lx->p || (q < lx->end && is_regular(*q)))
        return false;
    lx->p = q;
    *v = x;
    return true;
}

static pdf_obj *parse_number(pdf_lex *lx)
{
    const uint8_t *s = lx->p;
    bool neg = false, real = false;
    while (lx->p < lx->end && (*lx->p == '+' || *lx->p == '-'))
        neg ^= *lx->p++ == '-';
    double v = 0, scale = 1;
    int64_t iv = 0;
    int digits = 0;
    for (; lx->p < lx->end && ((*lx->p >= '0' && *lx->p <= '9') || *lx->p == '.'); lx->p++) {
        if (*lx->p == '.') {
            real = true;
            continue;
        }
        int dg = *lx->p - '0';
        if (real) {
            scale /= 10;
            v += dg * scale;
        } else {
            v = v * 10 + dg;
            if (++digits <= 18)
                iv = iv * 10 + dg;
            else
                real = true;
        }
    }
    while (lx->p < lx->end && is_regular(*lx->p))   /* junk such as 1.2.3 or 12e5 ends the token */
        lx->p++;
    pdf_obj *o = new_obj(lx->doc, real ? PDF_REAL : PDF_INT);
    if (!o)
        return NULL;
    if (real)
        o->u.r = neg ? -v : v;
    else
        o->u.i = neg ? -iv : iv;
    if (!real && !neg && s[0] != '+' && iv <= UINT32_MAX) {   /* `N G R` is a reference */
        pdf_lex look = *lx;
        uint64_t gen;
        pdf_skip_ws(&look);
        if (lex_uint(&look, &gen) && gen <= 65535) {
            pdf_skip_ws(&look);
            if (at_keyword(&look, "R")) {
                o->kind = PDF_REF;
                o->u.ref.num = (uint32_t)iv;
                o->u.ref.gen = (uint32_t)gen;
                lx->p = look.p + 1;
            }
        }
    }
    return o;
}

pdf_obj *pdf_parse(pdf_lex *lx, int depth, bool *eof)
{
    pdf_doc *d = lx->doc;
    *eof = false;
    pdf_skip_ws(lx);
    if (lx->p >= lx->end) {
        *eof = true;
        return NULL;
    }
    if (depth > PDF_MAX_DEPTH)
        return fail(lx, HX_EDEPTH, "arrays and dictionaries nest deeper than 64");
    uint8_t c = *lx->p;
    if (c == '(')
        return parse_literal(lx);
    if (c == '/')
        return parse_name(lx);
    if (c == '<' && lx->p + 1 < lx->end && lx->p[1] == '<') {   /* dictionary */
        lx->p += 2;
        pdf_pair *kv = NULL;
        size_t n = 0, cap = 0;
        for (;;) {
            pdf_skip_ws(lx);
            if (lx->p >= lx->end)
                break;   /* cut short: keep what was read */
            if (*lx->p == '>') {
                lx->p += lx->p + 1 < lx->end && lx->p[1] == '>' ? 2 : 1;
                break;
            }
            bool e;
            pdf_obj *k = pdf_parse(lx, depth + 1, &e);
            if (!k && !e)
                goto dict_fail;
            if (!k || k->kind == PDF_KEYWORD)
                break;   /* a broken dictionary ends at the first keyword (endobj, stream) */
            if (k->kind != PDF_NAME)
                continue;
            pdf_obj *v = pdf_parse(lx, depth + 1, &e);
            if (!v && !e)
                goto dict_fail;
            if (!v)
                break;
            if (v->kind == PDF_KEYWORD) {
                lx->p -= v->u.s.n;
                break;
            }
            if (hx_grow((void **)&kv, &cap, n + 1, sizeof *kv, d->err))
                goto dict_fail;
            kv[n].key = (const char *)k->u.s.p;
            kv[n++].val = *v;
        }
        pdf_obj *o = new_obj(d, PDF_DICT);
        pdf_pair *keep = o && n ? pdf_alloc(d, n * sizeof *kv) : NULL;
        if (!o || (n && !keep))
            goto dict_fail;
        if (n)
            memcpy(keep, kv, n * sizeof *kv);
        free(kv);
        o->u.d.kv = keep;
        o->u.d.n = n;
        return o;
    dict_fail:
        free(kv);
        return NULL;
    }
    if (c == '<')
        return parse_hex(lx);
    if (c == '[') {
        lx->p++;
        pdf_obj *v = NULL;
        size_t n = 0, cap = 0;
        for (;;) {
            pdf_skip_ws(lx);
            if (lx->p >= lx->end)
                break;
            if (*lx->p == ']') {
                lx->p++;
                break;
            }
            bool e;
            pdf_obj *o = pdf_parse(lx, depth + 1, &e);
            if (!o && !e)
                goto arr_fail;
            if (!o)
                break;
            if (o->kind == PDF_KEYWORD) {
                if (o->u.s.n == 1 && strchr(")>}{", o->u.s.p[0]))
                    continue;   /* a stray delimiter inside an array is skipped */
                lx->p -= o->u.s.n;
                break;
            }
            if (hx_grow((void **)&v, &cap, n + 1, sizeof *v, d->err))
                goto arr_fail;
            v[n++] = *o;
        }
        pdf_obj *o = new_obj(d, PDF_ARRAY);
        pdf_obj *keep = o && n ? pdf_alloc(d, n * sizeof *v) : NULL;
        if (!o || (n && !keep))
            goto arr_fail;
        if (n)
            memcpy(keep, v, n * sizeof *v);
        free(v);
        o->u.a.v = keep;
        o->u.a.n = n;
        return o;
    arr_fail:
        free(v);
        return NULL;
    }
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')
        return parse_number(lx);
    /* a keyword (true, false, null, an operator) or a stray delimiter as a one-byte keyword */
    const uint8_t *s = lx->p;
    if (is_delim(c))
        lx->p++;
    else
        while (lx->p < lx->end && is_regular(*lx->p))
            lx->p++;
    size_t n = (size_t)(lx->p - s);
    if (n == 4 && !memcmp(s, "true", 4)) {
        pdf_obj *o = new_obj(d, PDF_BOOL);
        if (o)
            o->u.b = true;
        return o;
    }
    if (n == 5 && !memcmp(s, "false", 5))
        return new_obj(d, PDF_BOOL);
    if (n == 4 && !memcmp(s, "null", 4))
        return new_obj(d, PDF_NULL);
    pdf_obj *o = new_obj(d, PDF_KEYWORD);
    uint8_t *k = o ? pdf_alloc(d, n + 1) : NULL;
    if (!k)
        return NULL;
    memcpy(k, s, n);
    o->u.s.p = k;
    o->u.s.n = n;
    return o;
}

/* === Values === */

static pdf_obj null_obj = {.kind = PDF_NULL};

static pdf_obj *load_object(pdf_doc *d, uint32_t num);

pdf_obj *pdf_resolve(pdf_doc *d, pdf_obj *o)
{
    for (int hops = 0; o && o->kind == PDF_REF; hops++) {
        uint32_t num = o->u.ref.num;
        if (num >= d->nx || hops > PDF_MAX_RESOLVE)
            return &null_obj;
        pdf_xent *e = &d->x[num];
        if (e->obj) {
            o = e->obj;
            continue;
        }
        if (e->busy) {
            hx_error_set(d->err, HX_EFORMAT, -1, "PDF: reference loop at object %u", num);
            return NULL;
        }
        if (d->resolving >= PDF_MAX_RESOLVE) {
            hx_error_set(d->err, HX_EDEPTH, -1, "PDF: references nest deeper than %d", PDF_MAX_RESOLVE);
            return NULL;
        }
        e->busy = 1;
        d->resolving++;
        pdf_obj *v = load_object(d, num);
        d->resolving--;
        e->busy = 0;
        if (!v)
            return NULL;
        e->obj = v;
        o = v;
    }
    return o;
}

pdf_obj *pdf_get(pdf_doc *d, pdf_obj *o, const char *key)
{
    if (o && o->kind == PDF_STREAM)
        o = o->u.st.dict;
    if (!o || o->kind != PDF_DICT)
        return NULL;
    for (size_t i = 0; i < o->u.d.n; i++)
        if (!strcmp(o->u.d.kv[i].key, key)) {
            pdf_obj *v = pdf_resolve(d, &o->u.d.kv[i].val);
            return v && v->kind != PDF_NULL ? v : NULL;
        }
    return NULL;
}

bool pdf_is_name(const pdf_obj *o, const char *name)
{
    return o && o->kind == PDF_NAME && !strcmp((const char *)o->u.s.p, name);
}

bool pdf_num(const pdf_obj *o, double *v)
{
    if (o && o->kind == PDF_INT)
        *v = (double)o->u.i;
    else if (o && o->kind == PDF_REAL)
        *v = o->u.r;
    else
        return false;
    return true;
}

/* === Indirect objects and streams === */

static const uint8_t *find_bytes(const uint8_t *p, const uint8_t *end, const char *s)
{
    size_t n = strlen(s);
    while ((size_t)(end - p) >= n) {
        const uint8_t *q = memchr(p, s[0], (size_t)(end - p) - n + 1);
        if (!q)
            return NULL;
        if (!memcmp(q, s, n))
            return q;
        p = q + 1;
    }
    return NULL;
}

/* Decrypts the strings of an encrypted file's object in place (their bytes are arena copies). */
static void decrypt_strings(pdf_doc *d, pdf_obj *o, uint32_t num, uint32_t gen, int depth)
{
    if (depth > PDF_MAX_DEPTH)
        return;
    if (o->kind == PDF_STR)
        o->u.s.n = pdf_crypt(d, num, gen, (uint8_t *)o->u.s.p, o->u.s.n);
    else if (o->kind == PDF_ARRAY)
        for (size_t i = 0; i < o->u.a.n; i++)
            decrypt_strings(d, &o->u.a.v[i], num, gen, depth + 1);
    else if (o->kind == PDF_DICT)
        for (size_t i = 0; i < o->u.d.n; i++)
            decrypt_strings(d, &o->u.d.kv[i].val, num, gen, depth + 1);
}

/* Where the object at `off` must end: the next object's offset (objects do not overlap), so that
 * no object is read past its neighbour, which keeps reading every object linear in the file. */
static size_t window_end(const pdf_doc *d, size_t off)
{
    size_t lo = 0, hi = d->noffs;
    while (lo < hi) {   /* the first offset past off */
        size_t mid = (lo + hi) / 2;
        if (d->offs[mid] <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->noffs ? (size_t)d->offs[lo] : d->len;
}

/* Parses `num gen obj value [stream ... endstream]` at offset off of the file. */
static pdf_obj *parse_indirect(pdf_doc *d, size_t off, uint32_t want)
{
    const uint8_t *buf = d->buf;
    size_t len = window_end(d, off);
    pdf_lex lx = {buf + off, buf + len, buf, d};
    uint64_t num, gen;
    pdf_skip_ws(&lx);
    if (!lex_uint(&lx, &num) || (pdf_skip_ws(&lx), !lex_uint(&lx, &gen)) || (pdf_skip_ws(&lx), !at_keyword(&lx, "obj")) ||
        (want != UINT32_MAX && num != want))
        return &null_obj;   /* a wrong offset: the object is missing */
    lx.p += 3;
    bool eof;
    pdf_obj *v = pdf_parse(&lx, 0, &eof);
    if (!v)
        return eof ? &null_obj : NULL;
    if (v->kind == PDF_KEYWORD)
        return &null_obj;
    if (d->keylen && !d->plain_strings && num != d->encrypt_num)
        decrypt_strings(d, v, (uint32_t)num, (uint32_t)gen, 0);
    pdf_skip_ws(&lx);
    if (v->kind != PDF_DICT || !at_keyword(&lx, "stream"))
        return v;
    lx.p += 6;
    if (lx.p < lx.end && *lx.p == '\r')
        lx.p++;
    if (lx.p < lx.end && *lx.p == '\n')
        lx.p++;
    size_t start = (size_t)(lx.p - buf), slen = SIZE_MAX;
    double L;
    pdf_obj *lo = pdf_get(d, v, "Length");
    if (!lo && d->err->code)
        return NULL;
    if (pdf_num(lo, &L) && L >= 0 && L <= (double)(len - start)) {
        pdf_lex t = {buf + start + (size_t)L, buf + len, buf, d};
        pdf_skip_ws(&t);
        if (at_keyword(&t, "endstream"))
            slen = (size_t)L;
    }
    if (slen == SIZE_MAX) {   /* a wrong /Length: the data ends before `endstream` */
        const uint8_t *e = find_bytes(buf + start, buf + len, "endstream");
        size_t stop = e ? (size_t)(e - buf) : len;
        if (stop > start && buf[stop - 1] == '\n')
            stop--;
        if (stop > start && buf[stop - 1] == '\r')
            stop--;
        slen = stop - start;
    }
    pdf_obj *s = new_obj(d, PDF_STREAM);
    if (!s)
        return NULL;
    s->u.st.dict = v;
    s->u.st.off = start;
    s->u.st.len = slen;
    s->u.st.num = (uint32_t)num;
    s->u.st.gen = (uint32_t)gen;
    return s;
}

/* Reads object stream `snum` and caches every object it holds whose entry points into it. */
static int load_objstm(pdf_doc *d, uint32_t snum)
{
    pdf_obj ref = {.kind = PDF_REF, .u.ref = {snum, 0}};
    pdf_obj *st = pdf_resolve(d, &ref);
    if (!st)
        return -1;
    double n, first;
    if (st->kind != PDF_STREAM || !pdf_num(pdf_get(d, st, "N"), &n) || !pdf_num(pdf_get(d, st, "First"), &first) ||
        n < 0 || first < 0)
        return 0;
    uint8_t *data;
    size_t dlen;
    int rc = pdf_stream_data(d, st, &data, &dlen);
    if (rc == HX_ENOTFOUND)
        return d->err->code = 0;
    if (rc)
        return -1;
    /* the header's pairs; offsets must increase, and each object is read up to the next one */
    size_t cap = (size_t)n < dlen / 2 + 1 ? (size_t)n : dlen / 2 + 1, m = 0;
    uint64_t(*pairs)[2] = hx_malloc((cap ? cap : 1) * sizeof *pairs);
    if (!pairs) {
        free(data);
        return hx_error_set(d->err, HX_ENOMEM, -1, "out of memory");
    }
    pdf_lex lx = {data, data + dlen, data, d};
    while (m < cap && first < (double)dlen) {
        pdf_skip_ws(&lx);
        if (!lex_uint(&lx, &pairs[m][0]) || (pdf_skip_ws(&lx), !lex_uint(&lx, &pairs[m][1])))
            break;
        if (pairs[m][1] >= dlen - (size_t)first || (m && pairs[m][1] <= pairs[m - 1][1]))
            break;
        m++;
    }
    for (size_t k = 0; k < m; k++) {
        uint64_t num = pairs[k][0];
        if (num >= d->nx || d->x[num].type != 2 || d->x[num].off != snum || d->x[num].obj)
            continue;
        size_t stop = k + 1 < m ? (size_t)first + (size_t)pairs[k + 1][1] : dlen;
        pdf_lex v = {data + (size_t)first + pairs[k][1], data + stop, data, d};
        bool eof;
        pdf_obj *o = pdf_parse(&v, 0, &eof);
        if (!o && !eof) {
            free(pairs);
            free(data);
            return -1;
        }
        d->x[num].obj = o && o->kind != PDF_KEYWORD ? o : &null_obj;
    }
    free(pairs);
    free(data);
    return 0;
}

static pdf_obj *load_object(pdf_doc *d, uint32_t num)
{
    pdf_xent *e = &d->x[num];
    if (e->type == 1)
        return e->off < d->len ? parse_indirect(d, (size_t)e->off, num) : &null_obj;
    if (e->type == 2 && e->off < d->nx && e->off != num) {
        if (load_objstm(d, (uint32_t)e->off))
            return NULL;
        return e->obj ? e->obj : &null_obj;
    }
    return &null_obj;
}

/* === Cross-reference === */

static int xref_size(pdf_doc *d, uint64_t need)
{
    size_t cap = d->len + 1024 < PDF_MAX_OBJECTS ? d->len + 1024 : PDF_MAX_OBJECTS;
    if (need > cap)
        need = cap;
    if (need <= d->nx)
        return 0;
    pdf_xent *x = hx_realloc(d->x, need * sizeof *x);
    if (!x)
        return hx_error_set(d->err, HX_ENOMEM, -1, "out of memory");
    memset(x + d->nx, 0, (need - d->nx) * sizeof *x);
    d->x = x;
    d->nx = need;
    return 0;
}

/* Records an entry unless a newer section already gave one (sections are read newest first). */
static void xref_set(pdf_doc *d, uint64_t num, int type, uint64_t off, uint32_t idx, uint32_t gen)
{
    if (num >= d->nx || d->x[num].type)
        return;
    d->x[num].type = (uint8_t)(type ? type : 3);
    d->x[num].off = off;
    d->x[num].idx = idx;
    d->x[num].gen = gen;
}

static pdf_obj *read_xref_table(pdf_doc *d, pdf_lex *lx)
{
    lx->p += 4;
    for (;;) {
        uint64_t start, count;
        pdf_skip_ws(lx);
        if (at_keyword(lx, "trailer")) {
            lx->p += 7;
            bool eof;
            pdf_obj *t = pdf_parse(lx, 0, &eof);
            return t && t->kind == PDF_DICT ? t : NULL;
        }
        if (!lex_uint(lx, &start) || (pdf_skip_ws(lx), !lex_uint(lx, &count)))
            return NULL;
        if (count > (uint64_t)(lx->end - lx->p) / 18 + 1)
            return NULL;   /* more entries declared than the file holds */
        if (xref_size(d, start + count))
            return NULL;
        for (uint64_t k = 0; k < count; k++) {
            uint64_t off, gen;
            pdf_skip_ws(lx);
            if (!lex_uint(lx, &off) || (pdf_skip_ws(lx), !lex_uint(lx, &gen)))
                return NULL;
            pdf_skip_ws(lx);
            if (lx->p >= lx->end || (*lx->p != 'n' && *lx->p != 'f'))
                return NULL;
            xref_set(d, start + k, *lx->p == 'n' ? 1 : 0, off, 0, (uint32_t)gen);
            lx->p++;
        }
    }
}

static uint64_t field(const uint8_t *p, int w, uint64_t dflt)
{
    if (!w)
        return dflt;
    uint64_t v = 0;
    for (int i = 0; i < w; i++)
        v = v << 8 | p[i];
    return v;
}

static pdf_obj *read_xref_stream(pdf_doc *d, size_t off)
{
    pdf_obj *st = parse_indirect(d, off, UINT32_MAX);
    if (!st || st->kind != PDF_STREAM)
        return NULL;
    pdf_obj *w = pdf_get(d, st, "W"), *index = pdf_get(d, st, "Index");
    double size = 0;
    pdf_num(pdf_get(d, st, "Size"), &size);
    int ws[3];
    if (!w || w->kind != PDF_ARRAY || w->u.a.n < 3)
        return NULL;
    for (int i = 0; i < 3; i++) {
        double v;
        if (!pdf_num(&w->u.a.v[i], &v) || v < 0 || v > 8)
            return NULL;
        ws[i] = (int)v;
    }
    size_t rowlen = (size_t)(ws[0] + ws[1] + ws[2]);
    uint8_t *data;
    size_t n;
    if (!rowlen || pdf_stream_data(d, st, &data, &n))
        return NULL;
    size_t row = 0;
    size_t nsub = index && index->kind == PDF_ARRAY ? index->u.a.n / 2 : 1;
    for (size_t s = 0; s < nsub; s++) {
        double first = 0, count = size;
        if (index && index->kind == PDF_ARRAY) {
            pdf_num(&index->u.a.v[2 * s], &first);
            pdf_num(&index->u.a.v[2 * s + 1], &count);
        }
        if (first < 0 || count < 0 || count > (double)(n / rowlen - row) || first + count > PDF_MAX_OBJECTS)
            count = first >= 0 && first + (double)(n / rowlen - row) <= PDF_MAX_OBJECTS ? (double)(n / rowlen - row) : 0;
        if (xref_size(d, (uint64_t)(first + count))) {
            free(data);
            return NULL;
        }
        for (uint64_t k = 0; k < (uint64_t)count; k++, row++) {
            const uint8_t *p = data + row * rowlen;
            uint64_t type = field(p, ws[0], 1), a = field(p + ws[0], ws[1], 0), b = field(p + ws[0] + ws[1], ws[2], 0);
            if (type <= 2)
                xref_set(d, (uint64_t)first + k, (int)type, a, (uint32_t)b, type == 1 ? (uint32_t)b : 0);
        }
    }
    free(data);
    return st->u.st.dict;
}

/* Reads the cross-reference sections from `off` along /Prev; the newest trailer into d->trailer. */
static int read_xref(pdf_doc *d, size_t off)
{
    size_t seen[64];
    int nseen = 0;
    while (nseen < 64) {
        for (int i = 0; i < nseen; i++)
            if (seen[i] == off)
                return 0;   /* a /Prev loop ends the chain */
        seen[nseen++] = off;
        if (off >= d->len)
            return -1;
        pdf_lex lx = {d->buf + off, d->buf + d->len, d->buf, d};
        pdf_skip_ws(&lx);
        pdf_obj *t;
        if (at_keyword(&lx, "xref")) {
            t = read_xref_table(d, &lx);
            double stm;
            if (t && pdf_num(pdf_get(d, t, "XRefStm"), &stm) && stm >= 0 && stm < (double)d->len)
                read_xref_stream(d, (size_t)stm);   /* a hybrid file's hidden entries */
        } else {
            t = read_xref_stream(d, (size_t)(lx.p - d->buf));
        }
        if (d->err->code)
            return -1;
        if (!t)
            return -1;
        if (!d->trailer)
            d->trailer = t;
        double prev;
        if (!pdf_num(pdf_get(d, t, "Prev"), &prev) || prev < 0 || prev >= (double)d->len)
            return 0;
        off = (size_t)prev;
    }
    return 0;
}

/* Rebuilds the cross-reference from every `N G obj` in the file (the last one of a number wins)
 * and takes the last trailer with a /Root, or the catalog found among the objects. */
static int rebuild(pdf_doc *d)
{
    free(d->x);
    free(d->offs);
    d->x = NULL;
    d->offs = NULL;
    d->nx = d->noffs = 0;
    d->trailer = NULL;
    d->repaired = true;
    size_t capoffs = 0;
    const uint8_t *b = d->buf, *end = b + d->len;
    for (const uint8_t *p = b; (p = find_bytes(p, end, "obj")) != NULL; p += 3) {
        if (p + 3 < end && is_regular(p[3]))
            continue;
        const uint8_t *q = p;
        while (q > b && is_ws(q[-1]))
            q--;
        const uint8_t *g = q;
        while (g > b && g[-1] >= '0' && g[-1] <= '9')
            g--;
        if (g == q || g == b || !is_ws(g[-1]))
            continue;
        const uint8_t *r = g;
        while (r > b && is_ws(r[-1]))
            r--;
        const uint8_t *s = r;
        while (s > b && s[-1] >= '0' && s[-1] <= '9' && r - s < 10)
            s--;
        if (s == r || (s > b && is_regular(s[-1])))
            continue;
        uint64_t num = 0;
        for (const uint8_t *t = s; t < r; t++)
            num = num * 10 + (uint64_t)(*t - '0');
        if (xref_size(d, num + 1))
            return -1;
        if (num < d->nx) {
            d->x[num].type = 1;
            d->x[num].off = (uint64_t)(s - b);
        }
        if (hx_grow((void **)&d->offs, &capoffs, d->noffs + 1, sizeof *d->offs, d->err))
            return -1;
        d->offs[d->noffs++] = (uint64_t)(s - b);   /* found in file order: sorted */
    }
    for (const uint8_t *p = b, *next; (p = find_bytes(p, end, "trailer")) != NULL; p = next) {
        next = find_bytes(p + 7, end, "trailer");   /* each dictionary is read up to the next one */
        pdf_lex lx = {p + 7, next ? next : end, b, d};
        if (!next)
            next = end;
        bool eof;
        pdf_obj *t = pdf_parse(&lx, 0, &eof);
        if (!t && !eof)
            return -1;
        if (t && t->kind == PDF_DICT && pdf_get(d, t, "Root"))
            d->trailer = t;
        if (d->err->code)
            return -1;
    }
    /* objects held in object streams, and a catalog when no trailer names one */
    for (size_t i = 0; i < d->nx; i++) {
        if (d->x[i].type != 1)
            continue;
        pdf_obj *o = parse_indirect(d, (size_t)d->x[i].off, (uint32_t)i);
        if (!o)
            return -1;
        pdf_obj *type = pdf_get(d, o, "Type");
        if (!d->trailer && (pdf_is_name(type, "Catalog") || (pdf_is_name(type, "XRef") && pdf_get(d, o, "Root")))) {
            pdf_obj *t = new_obj(d, PDF_DICT);
            pdf_pair *kv = t ? pdf_alloc(d, sizeof *kv) : NULL;
            if (!kv)
                return -1;
            kv->key = "Root";
            kv->val = pdf_is_name(type, "Catalog") ? (pdf_obj){.kind = PDF_REF, .u.ref = {(uint32_t)i, 0}}
                                                     : *pdf_get(d, o, "Root");
            t->u.d.kv = kv;
            t->u.d.n = 1;
            d->trailer = t;
        }
        if (o->kind != PDF_STREAM || !pdf_is_name(type, "ObjStm"))
            continue;
        double n, first;
        uint8_t *data;
        size_t dlen;
        if (!pdf_num(pdf_get(d, o, "N"), &n) || !pdf_num(pdf_get(d, o, "First"), &first))
            continue;
        int rc = pdf_stream_data(d, o, &data, &dlen);
        if (rc == HX_ERANGE || rc == HX_ENOMEM)
            return -1;
        if (rc) {
            d->err->code = 0;
            continue;
        }
        pdf_lex lx = {data, data + dlen, data, d};
        for (uint32_t k = 0; k < (uint64_t)n && k < dlen; k++) {
            uint64_t num, off;
            pdf_skip_ws(&lx);
            if (!lex_uint(&lx, &num) || (pdf_skip_ws(&lx), !lex_uint(&lx, &off)))
                break;
            if (!xref_size(d, num + 1) && num < d->nx && !d->x[num].type)
                d->x[num] = (pdf_xent){.type = 2, .off = i, .idx = k};
        }
        free(data);
        if (d->err->code)
            return -1;
    }
    return d->trailer ? 0 : hx_error_set(d->err, HX_EFORMAT, -1, "PDF: no document catalog (not a PDF, or damaged)");
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The sorted offsets of the objects the cross-reference places in the file (window_end). */
static int collect_offsets(pdf_doc *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nx; i++)
        n += d->x[i].type == 1 && d->x[i].off < d->len;
    d->offs = hx_malloc((n ? n : 1) * sizeof *d->offs);
    if (!d->offs)
        return hx_error_set(d->err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < d->nx; i++)
        if (d->x[i].type == 1 && d->x[i].off < d->len)
            d->offs[d->noffs++] = d->x[i].off;
    qsort(d->offs, d->noffs, sizeof *d->offs, cmp_u64);
    return 0;
}

int pdf_open(pdf_doc *d, const uint8_t *buf, size_t len, hx_error *err)
{
    memset(d, 0, sizeof *d);
    err->code = 0;
    d->buf = buf;
    d->len = len;
    d->err = err;
    d->arena.limit = (size_t)64 << 20;
    d->arena.limit += len < SIZE_MAX / 32 ? len * 32 : 0;
    d->scratch.limit = d->arena.limit;
    /* one deflate layer expands at most 1032 times; a document decodes at most 1100 times its size */
    d->budget = len < ((size_t)248 << 20) / 1100 ? ((size_t)8 << 20) + len * 1100 : (size_t)256 << 20;
    size_t tail = len > 2048 ? len - 2048 : 0;
    const uint8_t *sx = NULL;
    for (const uint8_t *p = buf + tail; (p = find_bytes(p, buf + len, "startxref")) != NULL; p++)
        sx = p;
    int ok = -1;
    if (sx) {
        pdf_lex lx = {sx + 9, buf + len, buf, d};
        uint64_t off;
        pdf_skip_ws(&lx);
        if (lex_uint(&lx, &off))
            ok = read_xref(d, (size_t)off);
    }
    if (err->code == HX_ERANGE || err->code == HX_ENOMEM || err->code == HX_EDEPTH)
        return err->code;
    err->code = 0;
    if (!ok && d->trailer) {   /* the catalog must be there, else the table points astray */
        pdf_obj *root = pdf_get(d, d->trailer, "Root");
        if (!root || root->kind != PDF_DICT)
            ok = -1;
    }
    if (!ok && collect_offsets(d))
        return err->code;
    if (ok) {
        err->code = 0;
        if (rebuild(d))
            return err->code ? err->code : hx_error_set(err, HX_EFORMAT, -1, "PDF: damaged beyond repair");
        for (size_t i = 0; i < d->nx; i++)   /* values read while the table was half built */
            d->x[i].obj = NULL;
    }
    return 0;
}

void pdf_close(pdf_doc *d)
{
    arena_free(&d->arena);
    arena_free(&d->scratch);
    free(d->x);
    free(d->offs);
    memset(d, 0, sizeof *d);
}

/* === Text strings === */

/* PDFDocEncoding 0x80..0xA0 (ISO 32000-2 Annex D.3); the rest is Latin-1. */
static const uint16_t pdfdoc_80[33] = {
    0x2022, 0x2020, 0x2021, 0x2026, 0x2014, 0x2013, 0x0192, 0x2044, 0x2039, 0x203A, 0x2212,
    0x2030, 0x201E, 0x201C, 0x201D, 0x2018, 0x2019, 0x201A, 0x2122, 0xFB01, 0xFB02, 0x0141,
    0x0152, 0x0160, 0x0178, 0x017D, 0x0131, 0x0142, 0x0153, 0x0161, 0x017E, 0xFFFD, 0x20AC,
};

size_t pdf_text_string(const uint8_t *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    char u[4];
    if (n >= 2 && s[0] == 0xFE && s[1] == 0xFF) {
        for (size_t i = 2; i + 1 < n; i += 2) {
            uint32_t c = (uint32_t)s[i] << 8 | s[i + 1];
            if (c >= 0xD800 && c < 0xDC00 && i + 3 < n) {
                uint32_t lo = (uint32_t)s[i + 2] << 8 | s[i + 3];
                if (lo >= 0xDC00 && lo < 0xE000) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                    i += 2;
                }
            }
            int k = hxi_utf8_put(c, u);
            if (o + (size_t)k > cap)
                break;
            memcpy(out + o, u, (size_t)k);
            o += (size_t)k;
        }
        return o;
    }
    if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
        o = n - 3 < cap ? n - 3 : cap;
        memcpy(out, s + 3, o);
        return o;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t c = s[i] >= 0x80 && s[i] <= 0xA0 ? pdfdoc_80[s[i] - 0x80] : s[i];
        int k = hxi_utf8_put(c, u);
        if (o + (size_t)k > cap)
            break;
        memcpy(out + o, u, (size_t)k);
        o += (size_t)k;
    }
    return o;
}
