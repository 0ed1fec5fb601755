/* boiler.c: which chunks of a view are boilerplate (`hyrax help search`): text that many documents
 * repeat verbatim or nearly (a template's instructions, a licence header), recognised from the
 * chunk bodies' fingerprints, made when a segment is written (index_write.c) and counted when a
 * view is loaded, so both searches can rank it down (search.c). Reads the view's segments; writes
 * only v->repeated.
 *
 * A chunk body's fingerprint is a 64-bit FNV-1a hash of its letters alone, ASCII ones lowercased
 * (digits, punctuation, markup and spacing left out, so renumbered, reflowed or re-marked copies of
 * one text agree); a body of fewer than REPEAT_MIN_LETTERS letters has none. A chunk is
 * boilerplate when its fingerprint occurs in REPEAT_MIN_DOCS or more documents of the view and its
 * own document says something else too (a chunk no other document repeats): a template inside a
 * proposal is boilerplate, a file copied whole into five folders is a copy, whose repeats the
 * search's duplicate-body rule folds into one answer. */
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
    uint32_t *docs = hx_calloc(n ? n : 1, sizeof *docs);   /* each live chunk's document */
    repeat_slot *tab = hx_calloc(slots, sizeof *tab);
    v->repeated = hx_calloc(n / 8 + 1, 1);
    int rc = 0;
    if (!fps || !docs || !tab || !v->repeated) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto done;
    }
    for (size_t id = 0; id < n; id++)
        docs[id] = UINT32_MAX;   /* deleted or in no segment */
    for (size_t si = 0; si < v->n_segs; si++) {
        const ix_segment *s = &v->segs[si];
        for (uint32_t id = s->base; id < s->base + s->n; id++) {
            if (ix_is_deleted(v, id))
                continue;
            uint32_t doc = ix_chunk_field(s, id, IX_F_DOC);
            docs[id] = doc;
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
            repeat_slot *e = slot_of(tab, slots - 1, fp);
            if (!e->fp)
                *e = (repeat_slot){fp, doc, 1};
            else if (e->doc != doc) {   /* a document's chunks are consecutive: this counts each once */
                e->doc = doc;
                e->docs++;
            }
        }
    }
    /* a document's chunks are consecutive ids: per document, boilerplate only where it has its own text */
    for (size_t a = 0, b; a < n; a = b) {
        bool own = false;
        for (b = a; b < n && docs[b] == docs[a]; b++)
            if (fps[b] && slot_of(tab, slots - 1, fps[b])->docs < REPEAT_MIN_DOCS)
                own = true;
        for (size_t id = a; own && id < b; id++)
            if (fps[id] && slot_of(tab, slots - 1, fps[id])->docs >= REPEAT_MIN_DOCS)
                v->repeated[id / 8] |= (uint8_t)(1u << (id % 8));
    }
done:
    free(docs);
    free(fps);
    free(tab);
    return rc;
}
