/* pdf_outline.c: the document outline (bookmarks, ISO 32000-2 12.3.3) as the headings of the text:
 * reads the outline's titles and depths in order, and tells the page layout (pdf.c) which of its
 * lines are those headings. Knows no content stream and no font. Bounds: PDF_MAX_OUTLINE entries,
 * PDF_MAX_DEPTH levels, every item visited once (a loop of /Next or /First ends the walk). */
#include "pdf.h"

#include <string.h>

#define PDF_MAX_OUTLINE 16384   /* outline entries kept */
#define OUTLINE_WINDOW 8        /* entries a line is compared with: the next not met and a few after
                                   (an entry whose words the page does not spell is passed over) */
#define OUTLINE_KEY_MAX 200     /* bytes of an entry's key kept */
#define OUTLINE_LINES 3         /* lines one heading may wrap over */

/* Bytes of the UTF-8 white space at s[0..n) (U+00A0, U+2000..U+200B, U+202F, U+3000) or of a soft
 * hyphen (U+00AD): outlines and pages spell a space or a break differently; 0 for anything else. */
static size_t blank_at(const unsigned char *s, size_t n)
{
    if (n >= 2 && s[0] == 0xC2 && (s[1] == 0xA0 || s[1] == 0xAD))
        return 2;
    if (n >= 3 && s[0] == 0xE2 && s[1] == 0x80 && (s[2] <= 0x8B || s[2] == 0xAF))
        return 3;
    return n >= 3 && s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80 ? 3 : 0;
}

/* The words of s[0..n) as a comparison key into out[0..cap): ASCII letters lowercased and digits,
 * other bytes below 0x80 (spaces, punctuation) and Unicode spaces dropped, other UTF-8 kept; its
 * length. */
static size_t key_of(const char *s, size_t n, char *out, size_t cap)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < n && o < cap; i++) {
        size_t b = u[i] >= 0x80 ? blank_at(u + i, n - i) : 0;
        if (b)
            i += b - 1;
        else if ((u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'z') || u[i] >= 0x80)
            out[o++] = (char)u[i];
        else if (u[i] >= 'A' && u[i] <= 'Z')
            out[o++] = (char)(u[i] | 0x20);
    }
    return o;
}

/* The raw (unresolved) value of key in dictionary o; NULL when absent. */
static const pdf_obj *raw_get(const pdf_obj *o, const char *key)
{
    for (size_t i = 0; o && o->kind == PDF_DICT && i < o->u.d.n; i++)
        if (!strcmp(o->u.d.kv[i].key, key))
            return &o->u.d.kv[i].val;
    return NULL;
}

typedef struct outline_walk {
    pdf_doc *d;
    pdf_outline *o;
    uint8_t *seen;     /* outline items visited, by object number */
    size_t cap;
} outline_walk;

static int add_entry(outline_walk *w, const pdf_obj *title, int level)
{
    pdf_outline *o = w->o;
    char text[4 * OUTLINE_KEY_MAX], key[OUTLINE_KEY_MAX];
    size_t n = title && title->kind == PDF_STR ? pdf_text_string(title->u.s.p, title->u.s.n, text, sizeof text) : 0;
    size_t k = key_of(text, n, key, sizeof key);
    if (!k)
        return 0;
    if (o->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        pdf_heading *h = pdf_alloc(w->d, cap * sizeof *h);
        if (!h)
            return w->d->err->code;
        if (o->n)
            memcpy(h, o->h, o->n * sizeof *h);
        o->h = h;
        w->cap = cap;
    }
    char *kept = pdf_alloc(w->d, k + n);
    if (!kept)
        return w->d->err->code;
    memcpy(kept, key, k);
    memcpy(kept + k, text, n);
    o->h[o->n++] = (pdf_heading){.key = kept, .klen = k, .title = kept + k, .tlen = n, .level = level};
    return 0;
}

/* The items from *item along its /Next chain, each followed by its /First children one level
 * deeper (document order). */
static int walk_items(outline_walk *w, const pdf_obj *item, int level)
{
    if (level > PDF_MAX_DEPTH)
        return 0;
    while (item && item->kind == PDF_REF && w->o->n < PDF_MAX_OUTLINE) {
        if (item->u.ref.num >= w->d->nx || w->seen[item->u.ref.num])
            return 0;
        w->seen[item->u.ref.num] = 1;
        pdf_obj *node = pdf_resolve(w->d, (pdf_obj *)item);
        if (!node)
            return w->d->err->code;
        if (node->kind != PDF_DICT)
            return 0;
        pdf_obj *title = pdf_get(w->d, node, "Title");
        int rc = w->d->err->code ? w->d->err->code : add_entry(w, title, level);
        if (!rc)
            rc = walk_items(w, raw_get(node, "First"), level + 1);
        if (rc)
            return rc;
        item = raw_get(node, "Next");
    }
    return 0;
}

int pdf_outline_read(pdf_doc *d, pdf_obj *root, pdf_outline *o)
{
    memset(o, 0, sizeof *o);
    pdf_obj *top = root ? pdf_get(d, root, "Outlines") : NULL;
    if (!top || top->kind != PDF_DICT || !d->nx)
        return d->err->code;
    outline_walk w = {.d = d, .o = o, .seen = pdf_alloc(d, d->nx)};
    if (!w.seen)
        return d->err->code;
    return walk_items(&w, raw_get(top, "First"), 1);
}

/* Whether line key l[0..ln) spells entry e: the same words, or a section number and then them
 * ("1.2 Goals" for the entry "Goals"); *prefix when it spells their start (a heading that wraps). */
static bool spells(const char *l, size_t ln, const pdf_heading *e, bool *prefix)
{
    size_t digits = 0;
    while (digits < ln && l[digits] >= '0' && l[digits] <= '9')
        digits++;
    bool numbered = e->key[0] >= '0' && e->key[0] <= '9';
    *prefix = false;
    for (size_t skip = 0;; skip = digits) {
        size_t rest = ln - skip;
        if (rest == e->klen && !memcmp(l + skip, e->key, rest))
            return true;
        *prefix |= rest && rest < e->klen && !memcmp(l + skip, e->key, rest);
        if (skip == digits || numbered)
            return false;
    }
}

size_t pdf_outline_match(pdf_outline *o, const char *s, size_t n, size_t *entry)
{
    size_t end = o->next + OUTLINE_WINDOW < o->n ? o->next + OUTLINE_WINDOW : o->n;
    for (size_t j = o->next; j < end; j++) {
        char key[OUTLINE_KEY_MAX + 16];
        size_t kl = 0, at = 0;
        for (int line = 0; line < OUTLINE_LINES && at < n; line++) {
            const char *eol = memchr(s + at, '\n', n - at);
            size_t len = eol ? (size_t)(eol - s) - at : n - at;
            kl += key_of(s + at, len, key + kl, sizeof key - kl);
            at += len + (eol != NULL);
            bool prefix;
            if (!kl)
                break;
            if (spells(key, kl, &o->h[j], &prefix)) {
                *entry = j;
                o->next = j + 1;
                return at;
            }
            if (!prefix)
                break;
        }
    }
    return 0;
}
