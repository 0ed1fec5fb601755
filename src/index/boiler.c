/* boiler.c: which chunks of a view are boilerplate (README "Scores"): text that many documents
 * repeat verbatim or nearly (a template's instructions, a licence header), recognised from the
 * chunk bodies' fingerprints, made when a segment is written (index_write.c) and counted when a
 * view is loaded, so both searches can rank it down (search.c). Reads the view's segments; writes
 * only v->repeated.
 *
 * A chunk body's fingerprint is a 64-bit FNV-1a hash of its letters alone, ASCII ones lowercased
 * (digits, punctuation, markup and spacing left out, so renumbered, reflowed or re-marked copies of
 * one text agree); a body of fewer than REPEAT_MIN_LETTERS letters has none. A chunk is
 * boilerplate when its fingerprint occurs in REPEAT_MIN_DOCS or more documents of the view. */
#include "alloc.h"
#include "bytes.h"
#include "index_internal.h"

#include <stdlib.h>
#include <string.h>

#define REPEAT_MIN_LETTERS 40
#define REPEAT_MIN_DOCS 5

uint64_t ix_fingerprint(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c + 32);
        else if (!(c >= 'a' && c <= 'z') && c < 0x80)
            continue;
        h = (h ^ c) * 1099511628211u;
        k++;
    }
    return k < REPEAT_MIN_LETTERS || !h ? 0 : h;
}

typedef struct {
    uint64_t fp;     /* 0: empty slot */
    uint32_t doc;    /* the last document counted */
    uint32_t docs;   /* documents holding it */
} repeat_slot;

static repeat_slot *slot_of(repeat_slot *tab, size_t mask, uint64_t fp)
{
    size_t h = (size_t)(fp ^ (fp >> 29)) & mask;
    while (tab[h].fp && tab[h].fp != fp)
        h = (h + 1) & mask;
    return &tab[h];
}

int ix_view_repeats(ix_view *v, hx_error *err)
{
    size_t n = v->next_chunk, slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    uint64_t *fps = hx_calloc(n ? n : 1, sizeof *fps);
    repeat_slot *tab = hx_calloc(slots, sizeof *tab);
    v->repeated = hx_calloc(n / 8 + 1, 1);
    int rc = 0;
    if (!fps || !tab || !v->repeated) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto done;
    }
    for (size_t si = 0; si < v->n_segs; si++) {
        const ix_segment *s = &v->segs[si];
        for (uint32_t id = s->base; id < s->base + s->n; id++) {
            if (ix_is_deleted(v, id))
                continue;
            uint64_t fp;
            if (s->fps) {   /* written by the index */
                const uint8_t *p = s->fps->data + (size_t)(id - s->base) * 8;
                fp = hxf_le64(p);
            } else {        /* a segment written before fingerprints: from its text */
                size_t tlen;
                const char *text = ix_chunk_text(s, id, &tlen);
                uint32_t body = ix_chunk_field(s, id, IX_F_BODY);
                fp = ix_fingerprint(text + body, tlen - body);
            }
            if (!fp)
                continue;
            fps[id] = fp;
            uint32_t doc = ix_chunk_field(s, id, IX_F_DOC);
            repeat_slot *e = slot_of(tab, slots - 1, fp);
            if (!e->fp)
                *e = (repeat_slot){fp, doc, 1};
            else if (e->doc != doc) {   /* a document's chunks are consecutive: this counts each once */
                e->doc = doc;
                e->docs++;
            }
        }
    }
    for (size_t id = 0; id < n; id++)
        if (fps[id] && slot_of(tab, slots - 1, fps[id])->docs >= REPEAT_MIN_DOCS)
            v->repeated[id / 8] |= (uint8_t)(1u << (id % 8));
done:
    free(fps);
    free(tab);
    return rc;
}
