/* pdf.c: the PDF document type: walks the page tree (inherited /Resources, a visited set against
 * loops), runs each page's content streams through the text operators (BT/ET, Tf, Td/TD/Tm/T*,
 * Tc/Tw/Tz/TL/Ts, Tj/TJ/'/", q/Q, cm, Form XObjects through Do) and turns the glyphs' positions
 * into words and lines in content order: a space where the gap exceeds a fraction of the font
 * size, a new line where the baseline moves, a line-end hyphen joined. One block per page with its
 * page number (citations say `page 7`), split where a line spells an entry of the document outline
 * (pdf_outline.c): that line opens a section of the outline entry's depth, so chunks keep a heading
 * path; the document information dictionary into metadata.
 * Objects, filters and fonts are pdf_obj.c, pdf_filter.c and pdf_font.c (spec: ISO 32000-2). */
#include "doctype.h"
#include "pdf.h"

#include "alloc.h"
#include "unicode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PDF_MAX_GSTATE 64        /* q nesting kept (deeper q/Q pairs still balance) */
#define PDF_MAX_OPERANDS 64      /* operands kept before an operator */
#define PDF_SPACE_GAP 0.1        /* a gap wider than this many font sizes is a space */
#define PDF_LINE_SHIFT 0.5       /* a baseline moved by more than this many font sizes is a new line */
#define PDF_TOKENS(len) ((uint64_t)(len) * 8 + (16u << 10))   /* content tokens a file of len bytes may read */

typedef struct gstate {
    double ctm[6];
    pdf_font *font;
    double fs, tc, tw, th, tl, ts;
} gstate;

/* One page's text as it is laid out, and the interpreter's state. */
typedef struct page_run {
    pdf_doc *d;
    char *buf;                   /* the page's text; owned */
    size_t len, cap;
    gstate gs[PDF_MAX_GSTATE];
    int depth, over;             /* gs[depth] is current; q's past the stack */
    double tm[6], tlm[6];
    bool have_prev;
    double px, py, pend, psize;  /* the previous glyph: origin, end along the line, size */
    size_t pstart;               /* where the previous glyph's text starts in buf */
    uint32_t pmark;              /* the previous glyph is a spacing accent: its combining mark; else 0 */
    bool pletter;                /* the previous glyph is a letter */
    uint64_t ops_left;           /* tokens the document may still read (a bound on Form fan-out) */
    int forms;                   /* Form XObjects open */
    bool cut;                    /* stopped at the operator bound */
} page_run;

static void mat_mul(const double a[6], const double b[6], double out[6])   /* out = a x b */
{
    double r[6] = {
        a[0] * b[0] + a[1] * b[2],        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5],
    };
    memcpy(out, r, sizeof r);
}

static const double identity[6] = {1, 0, 0, 1, 0, 0};

/* === Layout === */

static int emit(page_run *r, const char *s, size_t n)
{
    if (r->len + n + 1 > r->cap && hx_grow((void **)&r->buf, &r->cap, r->len + n + 1, 1, r->d->err))
        return HX_ENOMEM;
    memcpy(r->buf + r->len, s, n);
    r->len += n;
    return 0;
}

static bool ends_blank(const page_run *r)
{
    return !r->len || r->buf[r->len - 1] == ' ' || r->buf[r->len - 1] == '\n';
}

static bool is_letter(char c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (unsigned char)c >= 0x80;
}

/* The combining mark (U+0300..U+0328) of a spacing accent TeX and others draw over a letter as a
 * glyph of its own (U+00A8 diaeresis, U+00B4 acute, ...), or 0. */
static uint32_t accent_mark(const char *u, size_t n)
{
    static const uint32_t pairs[][2] = {
        {0x0060, 0x0300}, {0x005E, 0x0302}, {0x007E, 0x0303}, {0x00A8, 0x0308}, {0x00AF, 0x0304}, {0x00B4, 0x0301},
        {0x00B8, 0x0327}, {0x02C6, 0x0302}, {0x02C7, 0x030C}, {0x02C9, 0x0304}, {0x02D8, 0x0306}, {0x02D9, 0x0307},
        {0x02DA, 0x030A}, {0x02DB, 0x0328}, {0x02DC, 0x0303}, {0x02DD, 0x030B},
    };
    size_t pos = 0;
    uint32_t cp;
    if (!hxi_utf8_next(u, n, &pos, &cp) || pos != n)
        return 0;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (pairs[i][0] == cp)
            return pairs[i][1];
    return 0;
}

/* Emits combining mark `mark` (2 bytes of UTF-8). */
static int emit_mark(page_run *r, uint32_t mark)
{
    char m[4];
    return emit(r, m, (size_t)hxi_utf8_put(mark, m));
}

/* Places one glyph's text u[0..n) at (x, y) with its advance and size, all in device space. A
 * spacing accent drawn over the letter before or after it (they overlap along the line) becomes
 * that letter's combining mark, so "Scho\u0308pf" reads as one word as pdftotext's "Schöpf" does. */
static int place(page_run *r, const char *u, size_t n, bool blank, double x, double y, double adv, double size)
{
    if (size <= 0)
        size = 1;
    uint32_t mark = blank ? 0 : accent_mark(u, n);
    bool letter = !blank && n && is_letter(u[0]) && !mark;
    if (r->have_prev && !blank && fabs(y - r->py) <= PDF_LINE_SHIFT * size && x < r->pend - 0.1 * size &&
        x > r->px - 0.5 * size) {
        if (mark && r->pletter) {   /* letter, then its accent drawn back over it */
            r->pmark = 0;
            r->pletter = false;
            return emit_mark(r, mark);
        }
        if (letter && r->pmark) {   /* accent, then the letter drawn under it */
            uint32_t pm = r->pmark;
            r->len = r->pstart;
            r->pstart = r->len;
            r->pmark = 0;
            r->pletter = false;
            r->pend = x + adv;
            r->px = x;
            int rc = emit(r, u, n);
            return rc ? rc : emit_mark(r, pm);
        }
    }
    if (r->have_prev) {
        double ref = size > r->psize ? size : r->psize;
        bool newline = fabs(y - r->py) > PDF_LINE_SHIFT * ref || x < r->px - ref;
        if (newline && !blank) {
            bool hyphen = r->len >= 2 && r->buf[r->len - 1] == '-' && is_letter(r->buf[r->len - 2]) && n &&
                          is_letter(u[0]);
            if (hyphen)
                r->len--;   /* a word broken at the line's end reads whole */
            else if (r->len && r->buf[r->len - 1] == ' ')
                r->buf[r->len - 1] = '\n';
            else if (r->len && emit(r, "\n", 1))
                return HX_ENOMEM;
        } else if (!blank && x - r->pend > PDF_SPACE_GAP * ref && !ends_blank(r) && emit(r, " ", 1)) {
            return HX_ENOMEM;
        }
    }
    r->have_prev = true;
    r->px = x;
    r->py = y;
    r->pend = x + adv;
    r->psize = size;
    r->pstart = r->len;
    r->pmark = mark;
    r->pletter = letter;
    if (blank)
        return ends_blank(r) ? 0 : emit(r, " ", 1);
    if (n == 3 && (unsigned char)u[0] == 0xEF && (unsigned char)u[1] == 0xAC && (unsigned char)u[2] <= 0x86) {
        static const char *const lig[] = {"ff", "fi", "fl", "ffi", "ffl", "st", "st"};   /* U+FB00..FB06 */
        const char *l = lig[(unsigned char)u[2] - 0x80];
        return emit(r, l, strlen(l));
    }
    return emit(r, u, n);
}

/* Shows string s with the current font, moving the text matrix along. */
static int show(page_run *r, const pdf_obj *s)
{
    gstate *g = &r->gs[r->depth];
    if (!g->font || s->kind != PDF_STR)
        return 0;
    for (size_t i = 0; i < s->u.s.n;) {
        char u[16];
        size_t ulen;
        double w;
        bool is_space;
        pdf_font_next(g->font, s->u.s.p, s->u.s.n, &i, u, &ulen, &w, &is_space);
        double m[6];
        mat_mul(r->tm, g->ctm, m);
        double tx = (w / 1000 * g->fs + g->tc + (is_space ? g->tw : 0)) * g->th;
        double px = m[4] + g->ts * m[2], py = m[5] + g->ts * m[3], len = hypot(m[0], m[1]);
        /* positions along the baseline's direction and across it, so rotated text (a landscape
         * table, a vertical label) reads in lines as upright text does */
        double cx = len > 0 ? m[0] / len : 1, cy = len > 0 ? m[1] / len : 0;
        double x = px * cx + py * cy, y = py * cx - px * cy;
        /* the glyph's own width, without character and word spacing (as pdftotext): a line set with
         * a large Tc that TJ offsets take back still shows its spaces */
        double size = fabs(g->fs) * hypot(m[2], m[3]), adv = w / 1000 * g->fs * g->th * len;
        bool blank = ulen == 1 && (u[0] == ' ' || u[0] == '\t' || u[0] == '\n' || u[0] == '\r');
        if ((ulen || is_space) && isfinite(x) && isfinite(y) && isfinite(adv) && isfinite(size)) {
            int rc = place(r, u, ulen, blank || (!ulen && is_space), x, y, adv, size);
            if (rc)
                return rc;
        }
        r->tm[4] += tx * r->tm[0];
        r->tm[5] += tx * r->tm[1];
    }
    return 0;
}

/* === Content streams === */

static int run_stream(page_run *r, pdf_obj *res, const uint8_t *data, size_t n);

static void next_line(page_run *r, double tx, double ty)
{
    double t[6] = {1, 0, 0, 1, tx, ty};
    mat_mul(t, r->tlm, r->tlm);
    memcpy(r->tm, r->tlm, sizeof r->tm);
}

static bool nums(pdf_obj **ops, int nops, int want, double *v)
{
    if (nops < want)
        return false;
    for (int i = 0; i < want; i++)
        if (!pdf_num(ops[nops - want + i], &v[i]))
            return false;
    return true;
}

static pdf_obj *resource(pdf_doc *d, pdf_obj *res, const char *cat, const pdf_obj *name)
{
    if (!name || name->kind != PDF_NAME)
        return NULL;
    return pdf_get(d, pdf_get(d, res, cat), (const char *)name->u.s.p);
}

static int draw_form(page_run *r, pdf_obj *res, pdf_obj *name)
{
    pdf_doc *d = r->d;
    pdf_obj *xo = resource(d, res, "XObject", name);
    if (!xo || xo->kind != PDF_STREAM || !pdf_is_name(pdf_get(d, xo, "Subtype"), "Form"))
        return d->err->code;
    if (r->forms >= PDF_MAX_FORMS)
        return 0;   /* deeper forms (or a form drawing itself) are left out */
    uint64_t cost = 64 + xo->u.st.len / 8;   /* a draw costs tokens too, so fan-out ends soon */
    if (r->ops_left < cost) {
        r->cut = true;
        r->ops_left = 0;
        return 0;
    }
    r->ops_left -= cost;
    uint8_t *data;
    size_t n;
    int rc = pdf_stream_data(d, xo, &data, &n);
    if (rc)
        return rc == HX_ENOTFOUND ? (d->err->code = 0) : rc;
    if (r->depth + 1 >= PDF_MAX_GSTATE) {
        free(data);
        return 0;
    }
    r->gs[r->depth + 1] = r->gs[r->depth];
    r->depth++;
    pdf_obj *m = pdf_get(d, xo, "Matrix");
    double mv[6];
    if (m && m->kind == PDF_ARRAY && m->u.a.n == 6) {
        bool ok = true;
        for (int i = 0; i < 6; i++)
            ok = ok && pdf_num(&m->u.a.v[i], &mv[i]);
        if (ok)
            mat_mul(mv, r->gs[r->depth].ctm, r->gs[r->depth].ctm);
    }
    pdf_obj *fres = pdf_get(d, xo, "Resources");
    double tm[6], tlm[6];
    memcpy(tm, r->tm, sizeof tm);
    memcpy(tlm, r->tlm, sizeof tlm);
    int saved = r->depth;
    r->forms++;
    rc = run_stream(r, fres && fres->kind == PDF_DICT ? fres : res, data, n);
    r->forms--;
    r->depth = saved - 1;
    memcpy(r->tm, tm, sizeof tm);
    memcpy(r->tlm, tlm, sizeof tlm);
    free(data);
    return rc;
}

/* Skips an inline image's data: from after `ID` to the `EI` that stands alone. */
static void skip_inline_image(pdf_lex *lx)
{
    if (lx->p < lx->end)
        lx->p++;
    for (; lx->p + 1 < lx->end; lx->p++)
        if (lx->p[0] == 'E' && lx->p[1] == 'I' && (lx->p == lx->base || lx->p[-1] <= ' ') &&
            (lx->p + 2 == lx->end || lx->p[2] <= ' ')) {
            lx->p += 2;
            return;
        }
    lx->p = lx->end;
}

#define OP(s) (kl == sizeof(s) - 1 && !memcmp(k, s, sizeof(s) - 1))

static int run_op(page_run *r, pdf_obj *res, const char *k, size_t kl, pdf_obj **ops, int nops)
{
    pdf_doc *d = r->d;
    gstate *g = &r->gs[r->depth];
    double v[6];
    if (OP("q")) {
        if (r->depth + 1 < PDF_MAX_GSTATE) {
            r->gs[r->depth + 1] = *g;
            r->depth++;
        } else {
            r->over++;
        }
    } else if (OP("Q")) {
        if (r->over)
            r->over--;
        else if (r->depth > 0)
            r->depth--;
    } else if (OP("cm")) {
        if (nums(ops, nops, 6, v))
            mat_mul(v, g->ctm, g->ctm);
    } else if (OP("BT")) {
        memcpy(r->tm, identity, sizeof r->tm);
        memcpy(r->tlm, identity, sizeof r->tlm);
    } else if (OP("Tf")) {
        if (nops >= 2 && pdf_num(ops[nops - 1], &v[0])) {
            g->fs = v[0];
            pdf_obj *fd = resource(d, res, "Font", ops[nops - 2]);
            g->font = fd && fd->kind == PDF_DICT ? pdf_font_load(d, fd) : NULL;
            if (!g->font && d->err->code)
                return d->err->code;
        }
    } else if (OP("Tc")) {
        if (nums(ops, nops, 1, v))
            g->tc = v[0];
    } else if (OP("Tw")) {
        if (nums(ops, nops, 1, v))
            g->tw = v[0];
    } else if (OP("Tz")) {
        if (nums(ops, nops, 1, v))
            g->th = v[0] / 100;
    } else if (OP("TL")) {
        if (nums(ops, nops, 1, v))
            g->tl = v[0];
    } else if (OP("Ts")) {
        if (nums(ops, nops, 1, v))
            g->ts = v[0];
    } else if (OP("Td") || OP("TD")) {
        if (nums(ops, nops, 2, v)) {
            if (k[1] == 'D')
                g->tl = -v[1];
            next_line(r, v[0], v[1]);
        }
    } else if (OP("Tm")) {
        if (nums(ops, nops, 6, v)) {
            memcpy(r->tm, v, sizeof r->tm);
            memcpy(r->tlm, v, sizeof r->tlm);
        }
    } else if (OP("T*")) {
        next_line(r, 0, -g->tl);
    } else if (OP("Tj")) {
        if (nops)
            return show(r, ops[nops - 1]);
    } else if (OP("'") || OP("\"")) {
        if (OP("\"") && nums(ops, nops - 1, 2, v)) {
            g->tw = v[0];
            g->tc = v[1];
        }
        next_line(r, 0, -g->tl);
        if (nops)
            return show(r, ops[nops - 1]);
    } else if (OP("TJ")) {
        pdf_obj *a = nops ? ops[nops - 1] : NULL;
        for (size_t i = 0; a && a->kind == PDF_ARRAY && i < a->u.a.n; i++) {
            pdf_obj *e = &a->u.a.v[i];
            if (pdf_num(e, &v[0])) {
                double tx = -v[0] / 1000 * g->fs * g->th;
                r->tm[4] += tx * r->tm[0];
                r->tm[5] += tx * r->tm[1];
            } else {
                int rc = show(r, e);
                if (rc)
                    return rc;
            }
        }
    } else if (OP("Do")) {
        if (nops)
            return draw_form(r, res, ops[nops - 1]);
    }
    return 0;
}

static int run_stream(page_run *r, pdf_obj *res, const uint8_t *data, size_t n)
{
    pdf_doc *d = r->d;
    pdf_lex lx = {data, data + n, data, d};
    pdf_obj *ops[PDF_MAX_OPERANDS];
    int nops = 0, rc = 0;
    for (;;) {
        bool eof;
        d->use_scratch = true;
        pdf_obj *o = pdf_parse(&lx, 0, &eof);
        d->use_scratch = false;
        if (!o) {
            if (eof)
                break;
            if (d->err->code != HX_EDEPTH && d->err->code != HX_ENOMEM && d->err->code != HX_ERANGE) {
                d->err->code = 0;   /* a syntax error ends the stream; the text so far stays */
                break;
            }
            return d->err->code;
        }
        if (!r->ops_left) {
            r->cut = true;
            break;
        }
        r->ops_left--;
        if (o->kind != PDF_KEYWORD) {
            if (nops < PDF_MAX_OPERANDS) {
                ops[nops++] = o;
            } else {   /* no operator takes this many: they are junk */
                nops = 0;
                pdf_scratch_reset(d);
            }
            continue;
        }
        const char *k = (const char *)o->u.s.p;
        size_t kl = o->u.s.n;
        if (OP("BI")) {
            while (lx.p < lx.end && !((lx.p[0] == 'I' && lx.p + 1 < lx.end && lx.p[1] == 'D') &&
                                      (lx.p == data || lx.p[-1] <= ' ')))
                lx.p++;
            lx.p += lx.p < lx.end ? 2 : 0;
            skip_inline_image(&lx);
        } else if ((rc = run_op(r, res, k, kl, ops, nops))) {
            break;
        }
        nops = 0;
        pdf_scratch_reset(d);   /* operands are done with; a Form's stream resets it too */
    }
    return rc;
}

/* === Pages === */

typedef struct walk {
    pdf_doc *d;
    hxi_extract *x;
    uint8_t *seen;               /* page-tree nodes visited, by object number */
    uint32_t pages, empty;
    uint64_t ops_left;
    pdf_outline outline;         /* the document's outline: which lines are headings */
    bool full, cut;
} walk;

/* One page's text s[0..n) into the extraction: a block of its own, lines that spell the next
 * outline entries as headings, the rest as prose. Entries passed over on the way to a heading (their
 * words are on no page: a part title drawn as an image, a chapter number on a line of its own)
 * still open their sections when they are above it, so the heading path follows the outline. */
static int page_blocks(walk *w, const char *s, size_t n, hx_error *err)
{
    pdf_outline *o = &w->outline;
    size_t start = 0;   /* s[start..i) is prose not yet written */
    int rc = hxi_x_block(w->x, HX_BLOCK_PROSE, err);
    for (size_t i = 0; !rc && i < n;) {
        size_t from = o->next, j = 0;
        size_t h = o->next < o->n ? pdf_outline_match(o, s + i, n - i, &j) : 0;
        if (!h) {
            const char *eol = memchr(s + i, '\n', n - i);
            i = eol ? (size_t)(eol - s) + 1 : n;
            continue;
        }
        if (i > start)
            rc = hxi_x_text(w->x, s + start, i - start, err);
        for (size_t k = from; !rc && k < j; k++)
            if (o->h[k].level < o->h[j].level)
                rc = hxi_x_section(w->x, o->h[k].level, o->h[k].title, o->h[k].tlen, err);
        if (!rc)
            rc = hxi_x_heading(w->x, o->h[j].level, s + i, h, err);
        start = i += h;
    }
    return !rc && start < n ? hxi_x_text(w->x, s + start, n - start, err) : rc;
}

static int page_text(walk *w, pdf_obj *page, pdf_obj *res, hx_error *err)
{
    pdf_doc *d = w->d;
    page_run *r = hx_calloc(1, sizeof *r);
    if (!r)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    r->d = d;
    r->ops_left = w->ops_left;
    r->gs[0] = (gstate){.th = 1};
    memcpy(r->gs[0].ctm, identity, sizeof identity);
    pdf_obj *c = pdf_get(d, page, "Contents");
    int rc = d->err->code;
    size_t nc = c && c->kind == PDF_ARRAY ? c->u.a.n : c ? 1 : 0;
    uint8_t *all = NULL;
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < nc && !rc; i++) {   /* an array of streams is one stream */
        pdf_obj *s = c->kind == PDF_ARRAY ? pdf_resolve(d, &c->u.a.v[i]) : c;
        if (!s) {
            rc = d->err->code;
            break;
        }
        uint8_t *data;
        size_t n;
        if (s->kind != PDF_STREAM)
            continue;
        if ((rc = pdf_stream_data(d, s, &data, &n))) {
            if (rc == HX_ENOTFOUND)
                rc = d->err->code = 0;
            continue;
        }
        if (!hx_grow((void **)&all, &cap, len + n + 1, 1, err)) {
            memcpy(all + len, data, n);
            len += n;
            all[len++] = '\n';
        } else {
            rc = HX_ENOMEM;
        }
        free(data);
    }
    if (!rc && len)
        rc = run_stream(r, res, all, len);
    free(all);
    w->ops_left = r->ops_left;
    w->cut |= r->cut;
    w->pages++;
    while (r->len && (r->buf[r->len - 1] == ' ' || r->buf[r->len - 1] == '\n'))
        r->len--;
    if (!rc && !r->len)
        w->empty++;
    if (!rc && r->len && !w->full) {
        /* more text than the contract allows (forms drawn many times): keep what fits; the text is
         * valid UTF-8 already, so hxi_x_text does not grow it */
        size_t room = w->x->limit > w->x->len + 4 ? w->x->limit - w->x->len - 4 : 0, n = r->len;
        if (n > room) {
            for (n = room; n && ((unsigned char)r->buf[n] & 0xC0) == 0x80;)
                n--;
            w->full = true;
        }
        hxi_x_source(w->x, w->pages, w->pages);
        rc = page_blocks(w, r->buf, n, err);
        if (!rc && w->full)
            rc = hxi_x_warn(w->x, err, "text cut at page %u: more than %d times the file's size", w->pages,
                            HX_INGEST_MAX_GROWTH);
    }
    free(r->buf);
    free(r);
    return rc;
}

static int walk_tree(walk *w, pdf_obj *ref, pdf_obj *res, int depth, hx_error *err)
{
    pdf_doc *d = w->d;
    if (depth > PDF_MAX_DEPTH)
        return hx_error_set(err, HX_EDEPTH, -1, "PDF: the page tree is deeper than %d", PDF_MAX_DEPTH);
    if (ref->kind == PDF_REF && ref->u.ref.num < d->nx) {
        if (w->seen[ref->u.ref.num])
            return 0;   /* a page or node met twice (a loop in the tree) is read once */
        w->seen[ref->u.ref.num] = 1;
    }
    pdf_obj *node = pdf_resolve(d, ref);
    if (!node)
        return d->err->code;
    if (node->kind != PDF_DICT)
        return 0;
    pdf_obj *own = pdf_get(d, node, "Resources");
    if (own && own->kind == PDF_DICT)
        res = own;
    pdf_obj *kids = pdf_get(d, node, "Kids");
    if (d->err->code)
        return d->err->code;
    if (!kids || kids->kind != PDF_ARRAY || pdf_is_name(pdf_get(d, node, "Type"), "Page"))
        return page_text(w, node, res, err);
    for (size_t i = 0; i < kids->u.a.n; i++) {
        int rc = walk_tree(w, &kids->u.a.v[i], res, depth + 1, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* === Metadata === */

static bool meta_has(const hxi_extract *x, const char *key)
{
    for (size_t i = 0; i < x->n_meta; i++)
        if (!strcmp(x->meta[i].key, key))
            return true;
    return false;
}

static int info_string(pdf_doc *d, hxi_extract *x, pdf_obj *info, const char *key, const char *meta, hx_error *err)
{
    pdf_obj *s = pdf_get(d, info, key);
    if (!s || s->kind != PDF_STR)
        return 0;
    char out[1024];
    size_t n = pdf_text_string(s->u.s.p, s->u.s.n, out, sizeof out);
    if (!strcmp(meta, "date") || !strcmp(meta, "modified")) {   /* D:YYYYMMDDHHmmSS -> YYYY-MM-DDThh:mm:ss */
        const char *p = out + (n >= 2 && out[0] == 'D' && out[1] == ':' ? 2 : 0);
        size_t digits = 0;
        while (p + digits < out + n && digits < 14 && p[digits] >= '0' && p[digits] <= '9')
            digits++;
        if (digits < 8)
            return 0;
        char iso[32];
        int k = digits >= 14 ? snprintf(iso, sizeof iso, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s", p, p + 4, p + 6, p + 8, p + 10, p + 12)
                             : snprintf(iso, sizeof iso, "%.4s-%.2s-%.2s", p, p + 4, p + 6);
        return hxi_x_meta(x, meta, iso, (size_t)k, err);
    }
    if (!strcmp(meta, "title"))
        return hxi_x_title(x, out, n, err) ? err->code : hxi_x_meta(x, meta, out, n, err);
    return hxi_x_meta(x, meta, out, n, err);
}

/* The first rdf:li of an XMP property (dc:title, dc:creator) as text, entities decoded. */
static size_t xmp_first(const char *x, size_t n, const char *prop, char *out, size_t cap)
{
    const char *p = memmem(x, n, prop, strlen(prop));
    const char *li = p ? memmem(p, n - (size_t)(p - x), "<rdf:li", 7) : NULL;
    const char *gt = li ? memchr(li, '>', n - (size_t)(li - x)) : NULL;
    const char *end = gt ? memmem(gt, n - (size_t)(gt - x), "</rdf:li>", 9) : NULL;
    size_t o = 0;
    for (const char *c = gt ? gt + 1 : NULL; c && c < end && o < cap; c++) {
        static const char *const ents[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
        size_t k = 0;
        while (k < 5 && strncmp(c, ents[k][0], strlen(ents[k][0])))
            k++;
        out[o++] = k < 5 ? ents[k][1][0] : *c;
        c += k < 5 ? strlen(ents[k][0]) - 1 : 0;
    }
    return o;
}

/* Title and author from the catalog's XMP metadata when the information dictionary gave none. */
static int xmp(pdf_doc *d, hxi_extract *x, pdf_obj *st, hx_error *err)
{
    uint8_t *data;
    size_t n;
    if (!st || st->kind != PDF_STREAM || (x->title && meta_has(x, "author")))
        return 0;
    int rc = pdf_stream_data(d, st, &data, &n);
    if (rc)
        return rc == HX_ERANGE || rc == HX_ENOMEM ? rc : (err->code = 0);
    char v[512];
    size_t k = xmp_first((const char *)data, n, "<dc:title", v, sizeof v);
    if (k && !x->title)
        rc = hxi_x_title(x, v, k, err) ? err->code : hxi_x_meta(x, "title", v, k, err);
    k = xmp_first((const char *)data, n, "<dc:creator", v, sizeof v);
    if (!rc && k && !meta_has(x, "author"))
        rc = hxi_x_meta(x, "author", v, k, err);
    free(data);
    return rc;
}

static int extract_pdf(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    pdf_doc d;
    int rc = pdf_open(&d, raw, len, err);
    walk w = {.d = &d, .x = x, .ops_left = PDF_TOKENS(len)};
    if (rc)
        goto out;
    pdf_obj *enc = pdf_get(&d, d.trailer, "Encrypt");
    if (enc) {
        for (size_t i = 0; i < d.trailer->u.d.n; i++)
            if (!strcmp(d.trailer->u.d.kv[i].key, "Encrypt") && d.trailer->u.d.kv[i].val.kind == PDF_REF)
                d.encrypt_num = d.trailer->u.d.kv[i].val.u.ref.num;
        if ((rc = pdf_crypt_open(&d, enc)))
            goto out;
        for (size_t i = 0; i < d.nx; i++)   /* objects read before the key was known are read again */
            d.x[i].obj = NULL;
    } else if (err->code) {
        rc = err->code;
        goto out;
    }
    pdf_obj *info = pdf_get(&d, d.trailer, "Info");
    if (info && ((rc = info_string(&d, x, info, "Title", "title", err)) ||
                 (rc = info_string(&d, x, info, "Author", "author", err)) ||
                 (rc = info_string(&d, x, info, "CreationDate", "date", err)) ||
                 (rc = info_string(&d, x, info, "ModDate", "modified", err))))
        goto out;
    pdf_obj *root = pdf_get(&d, d.trailer, "Root");
    if (root && (rc = xmp(&d, x, pdf_get(&d, root, "Metadata"), err)))
        goto out;
    if (root && (rc = pdf_outline_read(&d, root, &w.outline)))
        goto out;
    pdf_obj *pages = root ? pdf_get(&d, root, "Pages") : NULL;
    if (!pages) {
        rc = err->code ? err->code : hx_error_set(err, HX_EFORMAT, -1, "PDF: no page tree");
        goto out;
    }
    w.seen = hx_calloc(d.nx ? d.nx : 1, 1);
    if (!w.seen) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto out;
    }
    pdf_obj *top = pages;   /* the catalog's own entry, a reference, so the walk marks it seen */
    for (size_t i = 0; root->kind == PDF_DICT && i < root->u.d.n; i++)
        if (!strcmp(root->u.d.kv[i].key, "Pages"))
            top = &root->u.d.kv[i].val;
    if ((rc = walk_tree(&w, top, NULL, 0, err)))
        goto out;
    if ((rc = hxi_x_meta_uint(x, "page_count", w.pages, err)))
        goto out;
    if (w.empty)
        rc = hxi_x_warn(x, err, "no text layer: %u of %u pages", w.empty, w.pages);
    if (!rc && w.cut)
        rc = hxi_x_warn(x, err, "content streams cut after %llu tokens", (unsigned long long)PDF_TOKENS(len));
    if (!rc && d.repaired)
        rc = hxi_x_warn(x, err, "damaged cross-reference rebuilt by scanning the file");
out:
    free(w.seen);
    pdf_close(&d);
    return rc;
}

static bool sniff_pdf(const uint8_t *raw, size_t len)
{
    size_t n = len < 1024 ? len : 1024;   /* some writers put bytes before the header */
    for (size_t i = 0; i + 5 <= n; i++)
        if (raw[i] == '%' && !memcmp(raw + i, "%PDF-", 5))
            return true;
    return false;
}

static const char *const pdf_exts[] = {"pdf", NULL};

const hxi_doctype hxi_doctype_pdf = {
    .name = "pdf", .exts = pdf_exts, .magic = {{.offset = 0, .len = 5, .bytes = "%PDF-"}}, .sniff = sniff_pdf,
    .extract = extract_pdf, .chunk = HX_CHUNK_BLOCKS, .unit = HX_UNIT_PAGE,
    .binary = true,
};
