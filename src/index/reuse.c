/* reuse.c: never embedding the same text twice. Each chunk's embedding key is a hash of what the
 * encoder is given (the chunk's text from its embed_offset, chunker.h) and of who embeds it (the
 * model's name, weights hash, precision and int8 recipe: hxi_model_recipe); segments keep the keys
 * of their vectors (the embed_keys section, ix.h). Before a write embeds its new chunks, the chunks
 * whose key the index already holds (a moved, renamed or copied document; the unchanged units of a
 * changed one) take the stored vector instead, and a text the write holds twice is embedded once.
 * No key is shared across models, precisions or int8 recipes, so nothing is reused across them; a
 * writer with a reader identity reuses only what that identity may read. */
#include "alloc.h"
#include "ix.h"
#include "model.h"
#include "sha256.h"

#include <stdlib.h>
#include <string.h>

void ix_embed_key(const hx_model *m, const char *text, size_t len, uint8_t key[IX_EMBED_KEY])
{
    /* the number changes with any change to the encoder that moves the vectors of the same weights
     * at the same precision: keys of older vectors then match nothing, and they are not reused */
    static const char tag[] = "hyrax embedding key 1";
    char recipe[HXI_RECIPE_MAX];
    hxi_model_recipe(m, recipe, sizeof recipe);
    const char *who[4] = {hx_model_name(m), hx_model_hash(m), hx_precision_name(hx_model_precision(m)), recipe};
    hxi_sha256 s;
    uint8_t digest[32];
    hxi_sha256_init(&s);
    hxi_sha256_update(&s, tag, sizeof tag);   /* each part with its NUL: no two inputs run together */
    for (int i = 0; i < 4; i++)   /* an empty recipe adds nothing: the keys of indexes before recipes */
        if (i < 3 || *who[i])
            hxi_sha256_update(&s, who[i], strlen(who[i]) + 1);
    hxi_sha256_update(&s, text, len);
    hxi_sha256_final(&s, digest);
    memcpy(key, digest, IX_EMBED_KEY);
}

/* The slot of key in an open-addressing table of mask + 1 slots holding pending chunk numbers + 1
 * (0: empty): where it is, or the empty slot where it goes. Keys are hashes already. */
static size_t *slot_of(size_t *tab, size_t mask, const uint8_t *keys, const uint8_t *key)
{
    uint64_t h;
    memcpy(&h, key, sizeof h);
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask)
        if (!tab[i] || !memcmp(keys + (tab[i] - 1) * IX_EMBED_KEY, key, IX_EMBED_KEY))
            return &tab[i];
}

int ix_reuse_plan(const ix_view *v, const uint8_t *keys, size_t n, uint32_t dim, float *vecs, int64_t *from,
                  hx_error *err)
{
    size_t slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    size_t *tab = hx_calloc(slots, sizeof *tab);
    if (!tab)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory planning %zu embeddings", n);
    for (size_t i = 0; i < n; i++) {
        size_t *at = slot_of(tab, slots - 1, keys, keys + i * IX_EMBED_KEY);
        from[i] = *at ? (int64_t)(*at - 1) : IX_EMBED;   /* the same text earlier in this write */
        if (!*at)
            *at = i + 1;
    }
    for (size_t s = 0; s < v->n_segs; s++) {   /* deleted chunks too: their vectors are still there */
        const ix_segment *seg = &v->segs[s];
        for (uint32_t c = 0; seg->keys && c < seg->n; c++) {
            uint32_t id = seg->base + c;
            if (v->restricted && !(v->visible_chunks && (v->visible_chunks[id / 8] >> (id % 8) & 1)))
                continue;   /* a count of reused chunks must not tell of text this writer may not read */
            size_t *at = slot_of(tab, slots - 1, keys, seg->keys->data + (size_t)c * IX_EMBED_KEY);
            if (!*at || from[*at - 1] == IX_REUSED)
                continue;
            from[*at - 1] = IX_REUSED;
            memcpy(vecs + (*at - 1) * dim, ix_chunk_vector(seg, id), sizeof *vecs * dim);
        }
    }
    free(tab);
    return 0;
}
