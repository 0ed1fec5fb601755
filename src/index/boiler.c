/* boiler.c: how much of each chunk of a view is boilerplate (`hyrax help search`): lines that many
 * documents repeat verbatim (a template's instructions and questions, a table of contents copied
 * from the template, a licence header), recognised from the chunk bodies' line prints, made when a
 * segment is written (index_write.c) and counted when a view is loaded, so both searches can rank
 * a chunk down by the share of its text that is boilerplate (search.c). Reads the view's segments;
 * writes only v->repeated. Layout of the sections: ix.h "lines_at", "line_prints".
 *
 * A line's print is a 64-bit FNV-1a hash of its letters alone, ASCII ones lowercased (digits,
 * punctuation, markup, a Markdown link's destination and spacing left out, so renumbered, re-marked
 * or re-indented copies of one line agree, and a table of contents' entry agrees with the heading
 * it links to; bytes past ASCII count as letters). A line of fewer than LINE_MIN_LETTERS letters is
 * not printed, nor is a body's first line that says the chunk's own heading (the section's title,
 * which the section answers, though every proposal asks it). The letters of short lines count as
 * the chunk's own; the title's count for neither side. A line is boilerplate when its print occurs
 * in REPEAT_MIN_DOCS or more documents of the view, and a chunk's boilerplate share is the part of
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
#include "ix.h"

#include <stdlib.h>
#include <string.h>

#define LINE_MIN_LETTERS 8
#define REPEAT_MIN_DOCS 5
#define WHOLE_SHARE 0.9f

/* Scans the line of s[0..n) that starts at *i, leaving *i past its newline: its letters, and their
 * print in *print (the rules above). */
static uint32_t scan_line(const char *s, size_t n, size_t *i, uint64_t *print)
{
    uint64_t h = 1469598103934665603u;
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
        k++;
    }
    *i = j + 1;
    *print = h;
    return k;
}

/* The print of a heading path's last part (its own title): a body's first line with this print
 * is its section's title, not boilerplate, whatever other documents repeat it. */
static uint64_t title_print(const char *heading, size_t hl)
{
    const char *last = hxi_heading_last(heading, hl);
    size_t i = 0;
    uint64_t h;
    scan_line(last, hl - (size_t)(last - heading), &i, &h);
    return h;
}

/* Is the line of letters k and raw print h, the line'th of its body, printed? */
static bool printed(uint32_t k, uint64_t h, size_t line, uint64_t title)
{
    return k >= LINE_MIN_LETTERS && h && !(line == 0 && h == title);
}

size_t ix_line_prints(const char *s, size_t n, const char *heading, size_t hl, ix_line_print *out, size_t cap,
                      uint32_t *letters)
{
    size_t m = 0;
    uint32_t all = 0;
    uint64_t title = title_print(heading, hl);
    for (size_t i = 0, line = 0; i < n; line++) {
        uint64_t h;
        uint32_t k = scan_line(s, n, &i, &h);
        if (line == 0 && h == title)
            continue;   /* the section's title: neither its own text nor boilerplate */
        all += k;
        if (printed(k, h, line, title)) {
            if (m < cap)
                out[m] = (ix_line_print){h, k};
            m++;
        }
    }
    *letters = all;
    return m;
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

/* Appends chunk id of segment s: from its line_prints section, or from its text in a segment
 * written before them. */
static int add_chunk(view_lines *vl, const ix_segment *s, uint32_t id)
{
    uint32_t i = id - s->base;
    if (s->lines_at) {
        uint32_t a = hxf_le32(s->lines_at->data + 8 * (size_t)i), b = hxf_le32(s->lines_at->data + 8 * (size_t)i + 8);
        if (reserve(vl, b - a))
            return HX_ENOMEM;
        for (uint32_t j = a; j < b; j++) {
            const uint8_t *p = s->line_prints->data + 12 * (size_t)j;
            vl->lines[vl->n++] = (ix_line_print){hxf_le64(p), hxf_le32(p + 8)};
        }
        vl->letters[id] = hxf_le32(s->lines_at->data + 8 * (size_t)i + 4);
        return 0;
    }
    size_t tlen, hl;
    const char *text = ix_chunk_text(s, id, &tlen), *h = ix_chunk_heading(s, id, &hl);
    uint32_t body = ix_chunk_field(s, id, IX_F_BODY);
    size_t m = ix_line_prints(text + body, tlen - body, h, hl, NULL, 0, &vl->letters[id]);
    if (reserve(vl, m))
        return HX_ENOMEM;
    vl->n += ix_line_prints(text + body, tlen - body, h, hl, vl->lines + vl->n, m, &vl->letters[id]);
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
    while (slots < 2 * vl.n)
        slots *= 2;
    if (!(tab = hx_calloc(slots, sizeof *tab)) || !(v->line_rep = hx_calloc(vl.n / 8 + 1, 1)))
        goto oom;
    for (size_t id = 0; id < n; id++)
        for (size_t j = vl.at[id]; j < vl.at[id + 1]; j++) {
            repeat_slot *e = slot_of(tab, slots - 1, vl.lines[j].print);
            if (!e->print)
                *e = (repeat_slot){vl.lines[j].print, vl.docs[id], 1};
            else if (e->doc != vl.docs[id]) {   /* a document's chunks are consecutive: this counts each once */
                e->doc = vl.docs[id];
                e->docs++;
            }
        }
    /* a document's chunks are consecutive ids: per document, boilerplate only where it has its own text */
    for (size_t a = 0, b; a < n; a = b) {
        bool own = false;
        for (b = a; b < n && vl.docs[b] == vl.docs[a]; b++)
            for (size_t j = vl.at[b]; j < vl.at[b + 1] && !own; j++)
                own = slot_of(tab, slots - 1, vl.lines[j].print)->docs < REPEAT_MIN_DOCS;
        for (size_t id = a; own && id < b; id++) {
            uint64_t rep = 0;
            for (size_t j = vl.at[id]; j < vl.at[id + 1]; j++)
                if (slot_of(tab, slots - 1, vl.lines[j].print)->docs >= REPEAT_MIN_DOCS) {
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
        uint32_t k = scan_line(text, len, &i, &print);
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
