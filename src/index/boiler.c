/* boiler.c: how much of each chunk of a view is boilerplate (`hyrax help search`): lines that many
 * documents repeat verbatim (a template's instructions and questions, a table of contents copied
 * from the template, a licence header), recognised from the chunk bodies' line prints, made when a
 * segment is written (index_write.c) and counted when a view is loaded, so both searches can rank
 * a chunk down by the share of its text that is boilerplate (search.c). Reads the view's segments;
 * writes only v->repeated. Layout of the sections: ix.h "lines_at", "line_prints", "line_paras".
 *
 * A line's print is a 64-bit FNV-1a hash of its letters alone, ASCII ones lowercased (digits,
 * punctuation, markup, a Markdown link's destination and spacing left out, so renumbered, re-marked
 * or re-indented copies of one line agree, and a table of contents' entry agrees with the heading
 * it links to; bytes past ASCII count as letters). A line of fewer than LINE_MIN_LETTERS letters is
 * not printed, nor is a body's first line that says the chunk's own heading (the section's title,
 * which the section answers, though every proposal asks it). The letters of short lines count as
 * the chunk's own; the title's count for neither side. In prose (Markdown, text: ix_prose_type) a
 * printed line also has its paragraph's print, the same hash over the letters of its run of
 * non-blank lines (two or more; the title ends one), so a template's paragraph wrapped at other
 * places still agrees with the template; YAML and code are not joined (a key's lines there are
 * records, not a paragraph re-wrapped). A line is boilerplate when its print, or its paragraph's,
 * occurs in REPEAT_MIN_DOCS or more documents of the view, and a chunk's boilerplate share is the part of
 * its body's letters in such lines, counted only in documents that say something else too (a
 * printed line no other four documents repeat): a template inside a proposal is boilerplate, while
 * a file copied whole into five folders (the template itself) is a copy, whose repeats the search's
 * duplicate-body rule folds into one answer.
 *
 * The cut a keyword search gives a chunk is the query's: of the query's words found in the body
 * (where a body word starts), the share found only in boilerplate lines. A chunk that answers a
 * query with a template's question and its own answer keeps what its own lines say; one whose own
 * lines hold none of the query's words is cut as boilerplate whole. Where no word tells (the
 * vector side, whose cosine says nothing of which lines matched, or words found only in the
 * heading), a chunk is cut whole when at least WHOLE_SHARE of its letters are boilerplate (a
 * template's section left as the template wrote it, under its own heading) and not at all
 * otherwise. */
#include "alloc.h"
#include "bytes.h"
#include "chunker.h"
#include "doctype.h"
#include "ix.h"

#include <stdlib.h>
#include <string.h>

#define LINE_MIN_LETTERS 8
#define REPEAT_MIN_DOCS 5
#define WHOLE_SHARE 0.9f

#define FNV_BASIS 1469598103934665603u

/* Scans the line of s[0..n) that starts at *i, leaving *i past its newline: its letters, and their
 * print in *print (the rules above), which continues *para's print with them when para is not NULL. */
static uint32_t scan_line(const char *s, size_t n, size_t *i, uint64_t *print, uint64_t *para)
{
    uint64_t h = FNV_BASIS, hp = para ? *para : 0;
    uint32_t k = 0;
    size_t j = *i;
    for (; j < n && s[j] != '\n'; j++) {
        if (s[j] == ']' && j + 1 < n && s[j + 1] == '(') {   /* a Markdown link's destination is not text */
            while (j + 1 < n && s[j + 1] != '\n' && s[j] != ')')
                j++;
            continue;
        }
        unsigned char c = (unsigned char)s[j];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c + 32);
        else if (!(c >= 'a' && c <= 'z') && c < 0x80)
            continue;
        h = (h ^ c) * 1099511628211u;
        hp = (hp ^ c) * 1099511628211u;
        k++;
    }
    *i = j + 1;
    *print = h;
    if (para)
        *para = hp;
    return k;
}

/* The print of a heading path's last part (its own title): a body's first line with this print
 * is its section's title, not boilerplate, whatever other documents repeat it. */
static uint64_t title_print(const char *heading, size_t hl)
{
    const char *last = hxi_heading_last(heading, hl);
    size_t i = 0;
    uint64_t h;
    scan_line(last, hl - (size_t)(last - heading), &i, &h, NULL);
    return h;
}

/* Is the line of letters k and raw print h, the line'th of its body, printed? */
static bool printed(uint32_t k, uint64_t h, size_t line, uint64_t title)
{
    return k >= LINE_MIN_LETTERS && h && !(line == 0 && h == title);
}

/* Is s[0..n) a blank line (spaces, tabs, a CR): the end of a paragraph? */
static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/* Gives printed lines out[from .. m) (those that fit in cap) the print of their paragraph of
 * `lines` lines, para: one of two lines or more, else none (0: a line's own print says it). */
static void close_paragraph(ix_line_print *out, size_t cap, size_t from, size_t m, size_t lines, uint64_t para)
{
    for (size_t j = from; j < m && j < cap; j++)
        out[j].para = lines >= 2 && para ? para : 0;
}

size_t ix_line_prints(const char *s, size_t n, const char *heading, size_t hl, bool prose, ix_line_print *out,
                      size_t cap, uint32_t *letters)
{
    size_t m = 0, from = 0, lines = 0;   /* the open paragraph: its first printed line, its lines */
    uint32_t all = 0;
    uint64_t title = title_print(heading, hl), para = FNV_BASIS;
    for (size_t i = 0, line = 0; i < n; line++) {
        size_t start = i;
        uint64_t h;
        uint32_t k = scan_line(s, n, &i, &h, &para);
        bool own_title = line == 0 && h == title;
        if (own_title || blank(s + start, (i > n ? n : i - 1) - start)) {
            close_paragraph(out, cap, from, m, prose ? lines : 0, para);
            para = FNV_BASIS;
            from = m;
            lines = 0;
            if (own_title)
                continue;   /* the section's title: neither its own text nor boilerplate */
        } else
            lines++;
        all += k;
        if (printed(k, h, line, title)) {
            if (m < cap)
                out[m] = (ix_line_print){h, 0, k};
            m++;
        }
    }
    close_paragraph(out, cap, from, m, prose ? lines : 0, para);
    *letters = all;
    return m;
}

bool ix_prose_type(const char *type)
{
    const hxi_doctype *dt = type ? hxi_doctype_find(type, strlen(type)) : NULL;
    return dt && (dt->chunk == HX_CHUNK_PROSE || dt->chunk == HX_CHUNK_MARKDOWN);
}

/* === Counting over a view === */

typedef struct repeat_slot {
    uint64_t print;  /* 0: empty slot */
    uint32_t doc;    /* the last document counted */
    uint32_t docs;   /* documents holding it */
} repeat_slot;

static repeat_slot *slot_of(repeat_slot *tab, size_t mask, uint64_t print)
{
    size_t h = (size_t)(print ^ (print >> 29)) & mask;
    while (tab[h].print && tab[h].print != print)
        h = (h + 1) & mask;
    return &tab[h];
}

/* Counts print (a line's or a paragraph's) once more for document doc, unless doc counted it last:
 * a document's chunks are consecutive ids, so this counts each document once. */
static void count(repeat_slot *tab, size_t mask, uint64_t print, uint32_t doc)
{
    repeat_slot *e = slot_of(tab, mask, print);
    if (!e->print)
        *e = (repeat_slot){print, doc, 1};
    else if (e->doc != doc) {
        e->doc = doc;
        e->docs++;
    }
}

/* Is the line boilerplate: its own print, or its paragraph's, in REPEAT_MIN_DOCS documents or more? */
static bool repeated(repeat_slot *tab, size_t mask, const ix_line_print *l)
{
    return slot_of(tab, mask, l->print)->docs >= REPEAT_MIN_DOCS ||
           (l->para && slot_of(tab, mask, l->para)->docs >= REPEAT_MIN_DOCS);
}

/* Every live chunk's line prints, in chunk id order: chunk id's are lines[at[id] .. at[id + 1]),
 * its body's letters letters[id]. */
typedef struct view_lines {
    ix_line_print *lines;   /* owned */
    size_t n, cap;
    size_t *at;             /* owned; next_chunk + 1 */
    uint32_t *letters;      /* owned; next_chunk */
    uint32_t *docs;         /* owned; next_chunk: each live chunk's document, UINT32_MAX for none */
} view_lines;

static int reserve(view_lines *vl, size_t more)
{
    void *p = vl->lines;
    int rc = hx_grow(&p, &vl->cap, vl->n + more, sizeof *vl->lines, NULL);
    vl->lines = p;
    return rc;
}

/* The first row of a line_paras section (ix.h) that does not end before the segment's line j. */
static size_t first_paragraph(const hxf_section *paras, uint32_t j)
{
    size_t lo = 0, hi = paras->dims[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const uint8_t *row = paras->data + 16 * mid;
        if ((uint64_t)hxf_le32(row) + hxf_le32(row + 4) <= j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Appends chunk id of segment s: from its line_prints section (and line_paras, when it has
 * them), or from its text in a segment written before them (lines alone, as it was searched). */
static int add_chunk(view_lines *vl, const ix_segment *s, uint32_t id)
{
    uint32_t i = id - s->base;
    if (s->lines_at) {
        uint32_t a = hxf_le32(s->lines_at->data + 8 * (size_t)i), b = hxf_le32(s->lines_at->data + 8 * (size_t)i + 8);
        if (reserve(vl, b - a))
            return HX_ENOMEM;
        size_t r = s->line_paras ? first_paragraph(s->line_paras, a) : 0;
        for (uint32_t j = a; j < b; j++) {
            const uint8_t *p = s->line_prints->data + 12 * (size_t)j, *row = NULL;
            for (; s->line_paras && r < s->line_paras->dims[0]; r++) {
                row = s->line_paras->data + 16 * r;
                if ((uint64_t)hxf_le32(row) + hxf_le32(row + 4) > j)
                    break;   /* the first row that does not end before line j */
            }
            bool in = row && r < s->line_paras->dims[0] && hxf_le32(row) <= j;
            vl->lines[vl->n++] = (ix_line_print){hxf_le64(p), in ? hxf_le64(row + 8) : 0, hxf_le32(p + 8)};
        }
        vl->letters[id] = hxf_le32(s->lines_at->data + 8 * (size_t)i + 4);
        return 0;
    }
    size_t tlen, hl;
    const char *text = ix_chunk_text(s, id, &tlen), *h = ix_chunk_heading(s, id, &hl);
    uint32_t body = ix_chunk_field(s, id, IX_F_BODY);
    size_t m = ix_line_prints(text + body, tlen - body, h, hl, false, NULL, 0, &vl->letters[id]);
    if (reserve(vl, m))
        return HX_ENOMEM;
    vl->n += ix_line_prints(text + body, tlen - body, h, hl, false, vl->lines + vl->n, m, &vl->letters[id]);
    return 0;
}

int ix_view_repeats(ix_view *v, hx_error *err)
{
    size_t n = v->next_chunk, slots = 16;
    view_lines vl = {0};
    repeat_slot *tab = NULL;
    int rc = 0;
    vl.at = hx_calloc(n + 1, sizeof *vl.at);
    vl.letters = hx_calloc(n ? n : 1, sizeof *vl.letters);
    vl.docs = hx_malloc(sizeof *vl.docs * (n ? n : 1));
    v->repeated = hx_calloc(n ? n : 1, 1);
    if (!vl.at || !vl.letters || !vl.docs || !v->repeated)
        goto oom;
    for (size_t id = 0; id < n; id++)
        vl.docs[id] = UINT32_MAX;   /* deleted or in no segment */
    for (size_t id = 0; id < n; id++) {
        vl.at[id] = vl.n;
        const ix_segment *s = ix_segment_of(v, (uint32_t)id);
        if (!s || ix_is_deleted(v, (uint32_t)id))
            continue;
        vl.docs[id] = ix_chunk_field(s, (uint32_t)id, IX_F_DOC);
        if (add_chunk(&vl, s, (uint32_t)id))
            goto oom;
    }
    vl.at[n] = vl.n;
    while (slots < 4 * vl.n)   /* a line's print and its paragraph's */
        slots *= 2;
    if (!(tab = hx_calloc(slots, sizeof *tab)) || !(v->line_rep = hx_calloc(vl.n / 8 + 1, 1)))
        goto oom;
    for (size_t id = 0; id < n; id++)
        for (size_t j = vl.at[id]; j < vl.at[id + 1]; j++) {
            count(tab, slots - 1, vl.lines[j].print, vl.docs[id]);
            if (vl.lines[j].para)
                count(tab, slots - 1, vl.lines[j].para, vl.docs[id]);
        }
    /* a document's chunks are consecutive ids: per document, boilerplate only where it has its own text */
    for (size_t a = 0, b; a < n; a = b) {
        bool own = false;
        for (b = a; b < n && vl.docs[b] == vl.docs[a]; b++)
            for (size_t j = vl.at[b]; j < vl.at[b + 1] && !own; j++)
                own = !repeated(tab, slots - 1, &vl.lines[j]);
        for (size_t id = a; own && id < b; id++) {
            uint64_t rep = 0;
            for (size_t j = vl.at[id]; j < vl.at[id + 1]; j++)
                if (repeated(tab, slots - 1, &vl.lines[j])) {
                    rep += vl.lines[j].letters;
                    v->line_rep[j / 8] |= (uint8_t)(1u << (j % 8));
                }
            uint32_t all = vl.letters[id];
            v->repeated[id] = (uint8_t)(!all ? 0 : rep >= all ? 255 : (rep * 255 + all / 2) / all);
        }
    }
    v->line_at = vl.at;
    vl.at = NULL;
    goto done;
oom:
    rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
done:
    free(vl.lines);
    free(vl.at);
    free(vl.letters);
    free(vl.docs);
    free(tab);
    return rc;
}

/* === The cut for a query === */

static bool alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/* The words of w[0..n_w) that a word of line[0..n) starts with (ASCII letters compared lowercased),
 * as bits, leaving out those of `skip`. */
static uint64_t words_in(const char *line, size_t n, const ix_word *w, size_t n_w, uint64_t skip)
{
    uint64_t found = 0;
    for (size_t i = 0; i < n; i++) {
        if (!alnum((unsigned char)line[i]) || (i && alnum((unsigned char)line[i - 1])))
            continue;   /* not where a word starts */
        unsigned char c0 = (unsigned char)line[i];
        c0 = (unsigned char)(c0 >= 'A' && c0 <= 'Z' ? c0 + 32 : c0);
        for (size_t t = 0; t < n_w; t++) {
            if ((skip | found) >> t & 1 || (unsigned char)w[t].s[0] != c0 || i + w[t].n > n)
                continue;
            size_t j = 1;
            while (j < w[t].n) {
                unsigned char c = (unsigned char)line[i + j];
                if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (unsigned char)w[t].s[j])
                    break;
                j++;
            }
            if (j == w[t].n)
                found |= 1ull << t;
        }
    }
    return found;
}

float ix_repeat_cut(const ix_view *v, uint32_t id, const ix_word *w, size_t n_w)
{
    float share = v->repeated ? v->repeated[id] / 255.0f : 0.0f, cut = share >= WHOLE_SHARE ? 1.0f : 0.0f;
    if (share == 0.0f || share == 1.0f || !n_w || !v->line_at)
        return cut;
    if (n_w > 64)
        n_w = 64;
    const ix_segment *s = ix_segment_of(v, id);
    size_t len, hl, at = v->line_at[id];
    const char *text = ix_chunk_text(s, id, &len), *heading = ix_chunk_heading(s, id, &hl);
    uint32_t body = ix_chunk_field(s, id, IX_F_BODY);
    uint64_t own = 0, rep = 0, title = title_print(heading, hl);
    for (size_t i = body, line = 0; i < len; line++) {
        size_t start = i;
        uint64_t print;
        uint32_t k = scan_line(text, len, &i, &print, NULL);
        bool p = printed(k, print, line, title);
        bool boiler = p && at < v->line_at[id + 1] && (v->line_rep[at / 8] >> (at % 8) & 1);
        at += p;
        size_t end = i > len ? len : i;
        uint64_t *found = boiler ? &rep : &own;
        *found |= words_in(text + start, end - start, w, n_w, *found);
    }
    int any = __builtin_popcountll(own | rep);
    return any ? (float)__builtin_popcountll(rep & ~own) / (float)any : cut;
}
