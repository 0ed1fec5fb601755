/* test_reuse.c: the same text is never embedded twice (reuse.c). Counted through the public
 * report (hx_update_report.chunks_embedded / chunks_reused): a renamed file, a moved folder and a
 * copied file embed nothing; an edited document embeds only its changed chunk (one section of four,
 * each section one chunk by construction: no chunk crosses a heading); compaction keeps the keys.
 * A reused vector is the stored one bit for bit, and agrees with what a fresh index of the same
 * files embeds within the encoder's batch tolerance (1e-6, test_encoder: a text's vector may move
 * in its last bits with the texts batched beside it). Keys differ across precisions of one model
 * and across int8 recipes, so nothing is reused across them. What is embedded is the chunk's text,
 * less a header whose words its body already opens with (chunker.h): a title's section is embedded
 * as its body alone, a later section with its header (expected texts written by hand). */
#include "check.h"
#include "hyrax.h"
#include "ix.h"
#include "model.h"
#include "sha256.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

static hx_model *model;
static hx_encoder *enc;
static char root[PATH_MAX];

static const char doc_x[] =
    "# Quokka field notes\n\nQuokkas live on Rottnest Island and feed at night on grasses.\n\n"
    "## Diet\n\nThey eat leaves, stems and bark, and can go without water for weeks.\n\n"
    "## Breeding\n\nA female raises one joey a year in her pouch for six months.\n";
static const char doc_z[] =
    "# Tide tables\n\n## Spring tides\n\nSpring tides follow the new and the full moon.\n\n"
    "## Neap tides\n\nNeap tides come at the quarter moons, with the smallest range.\n\n"
    "## Tidal bores\n\nA bore is a wave that runs up a river against its current.\n";

/* Indexes the whole root; returns the report's counts as "embedded/reused". */
static void update(hx_index *ix, size_t *embedded, size_t *reused)
{
    const char *paths[] = {root};
    hx_update_opts o = {0};
    o.encoder = enc;
    hx_update_report rep;
    hx_error err = {0};
    CHECK(hx_index_update(ix, paths, 1, &o, &rep, &err) == 0, "update: %s", err.message);
    CHECK(rep.chunks_embedded + rep.chunks_reused == rep.chunks_added, "embedded %zu + reused %zu = added %zu",
          rep.chunks_embedded, rep.chunks_reused, rep.chunks_added);
    *embedded = rep.chunks_embedded;
    *reused = rep.chunks_reused;
    hx_update_report_clear(&rep);
}

static void path_of(char *out, size_t cap, const char *rel)
{
    snprintf(out, cap, "%s/%s", root, rel);
}

static void move(const char *from, const char *to)
{
    char a[PATH_MAX + 64], b[PATH_MAX + 64];
    path_of(a, sizeof a, from);
    path_of(b, sizeof b, to);
    CHECK(rename(a, b) == 0, "rename %s %s", from, to);
}

/* The number of chunks of the document at path, 0 when there is none. */
static uint32_t chunks_of(hx_index *ix, const char *path, hx_doc_info *info)
{
    for (size_t i = 0; i < hx_index_doc_count(ix); i++)
        if (!hx_index_doc_at(ix, i, info) && !strcmp(info->path, path))
            return info->n_chunks;
    return 0;
}

/* Every chunk vector of every document of a agrees with b's of the same path within 1e-6. */
static void same_vectors(hx_index *a, hx_index *b)
{
    size_t dim = (size_t)hx_model_dim(model), compared = 0, exact = 0;
    double worst = 0;
    float *va = malloc(sizeof *va * dim), *vb = malloc(sizeof *vb * dim);
    hx_error err = {0};
    for (size_t i = 0; i < hx_index_doc_count(a); i++) {
        hx_doc_info da, db;
        if (hx_index_doc_at(a, i, &da))
            continue;
        CHECK(chunks_of(b, da.path, &db) == da.n_chunks, "%s: %u chunks in both", da.path, da.n_chunks);
        for (uint32_t c = 0; c < da.n_chunks && c < db.n_chunks; c++) {
            CHECK(hx_index_chunk_vector(a, da.first_chunk + c, va, &err) == 0 &&
                      hx_index_chunk_vector(b, db.first_chunk + c, vb, &err) == 0,
                  "vectors: %s", err.message);
            for (size_t k = 0; k < dim; k++)
                worst = fabs((double)va[k] - vb[k]) > worst ? fabs((double)va[k] - vb[k]) : worst;
            exact += !memcmp(va, vb, sizeof *va * dim);
            compared++;
        }
    }
    CHECK(compared == 14, "compared %zu chunks", compared);
    printf("test_reuse: reused vs fresh: %zu of %zu bit-identical, max abs diff %.2e\n", exact, compared, worst);
    CHECK(worst <= 1e-6, "reused and fresh vectors agree within 1e-6 (%.2e)", worst);
    free(va);
    free(vb);
}

/* The stored vector of chunk c of the document at path is the encoder's vector of text (1e-6). */
static void embedded_as(hx_index *ix, const char *path, uint32_t c, const char *text)
{
    size_t dim = (size_t)hx_model_dim(model), len = strlen(text);
    float *got = malloc(sizeof *got * dim), *want = malloc(sizeof *want * dim);
    hx_doc_info info;
    hx_error err = {0};
    double worst = 0;
    CHECK(chunks_of(ix, path, &info) > c && hx_index_chunk_vector(ix, info.first_chunk + c, got, &err) == 0 &&
              hx_encoder_embed(enc, &text, &len, 1, want, &err) == 0,
          "%s chunk %u: %s", path, c, err.message);
    for (size_t k = 0; k < dim; k++)
        worst = fabs((double)got[k] - want[k]) > worst ? fabs((double)got[k] - want[k]) : worst;
    CHECK(worst <= 1e-6, "%s chunk %u is the vector of '%.40s' (max abs diff %.2e)", path, c, text, worst);
    free(got);
    free(want);
}

/* A key as reuse.c made it before keys held the int8 recipe: tag, name, weights hash, precision,
 * each with its NUL, then the text. */
static void key_before_recipes(const hx_model *m, const char *text, uint8_t key[IX_EMBED_KEY])
{
    static const char tag[] = "hyrax embedding key 1";
    const char *who[3] = {hx_model_name(m), hx_model_hash(m), hx_precision_name(hx_model_precision(m))};
    hxi_sha256 s;
    uint8_t digest[32];
    hxi_sha256_init(&s);
    hxi_sha256_update(&s, tag, sizeof tag);
    for (int i = 0; i < 3; i++)
        hxi_sha256_update(&s, who[i], strlen(who[i]) + 1);
    hxi_sha256_update(&s, text, strlen(text));
    hxi_sha256_final(&s, digest);
    memcpy(key, digest, IX_EMBED_KEY);
}

/* Keys hold the int8 recipe (hxi_model_recipe): an int8 MPNet's (last layers fine, balanced) is
 * not the key its vectors had under the plain recipe, so an index updated after the change embeds
 * them again; fp32 and the plain int8 recipe (MiniLM) keep the keys they had, and their vectors
 * are reused. */
static void test_recipe_keys(const hx_model *minilm_int8)
{
    const char *tiny = "fuzz/corpus/weights/tiny_mpnet.hxw";
    uint8_t k1[IX_EMBED_KEY], k2[IX_EMBED_KEY];
    char recipe[HXI_RECIPE_MAX];
    for (int p = HX_PRECISION_FP32; p <= HX_PRECISION_INT8; p++) {
        hx_model *m = NULL;
        hx_error err = {0};
        hx_model_opts mo = {tiny, (hx_precision)p};
        CHECK(hx_model_open_opts(&m, &mo, &err) == 0, "%s: %s", tiny, err.message);
        if (!m)
            continue;
        hxi_model_recipe(m, recipe, sizeof recipe);
        ix_embed_key(m, "same text", 9, k1);
        key_before_recipes(m, "same text", k2);
        if (p == HX_PRECISION_INT8)
            CHECK(*recipe && memcmp(k1, k2, IX_EMBED_KEY) != 0, "int8 MPNet: recipe '%s' in its keys", recipe);
        else
            CHECK(!*recipe && !memcmp(k1, k2, IX_EMBED_KEY), "fp32 MPNet: the keys it had");
        hx_model_close(m);
    }
    if (minilm_int8) {
        hxi_model_recipe(minilm_int8, recipe, sizeof recipe);
        ix_embed_key(minilm_int8, "same text", 9, k1);
        key_before_recipes(minilm_int8, "same text", k2);
        CHECK(!*recipe && !memcmp(k1, k2, IX_EMBED_KEY), "int8 MiniLM (plain recipe): the keys it had");
    }
    ix_embed_key(model, "same text", 9, k1);
    key_before_recipes(model, "same text", k2);
    CHECK(!memcmp(k1, k2, IX_EMBED_KEY), "fp32 MiniLM: the keys it had");
}

static void test_keys(void)
{
    hx_model *q = NULL;
    hx_error err = {0};
    hx_model_opts mo = {0};
    mo.path = WEIGHTS;
    mo.precision = HX_PRECISION_INT8;
    CHECK(hx_model_open_opts(&q, &mo, &err) == 0, "int8 model: %s", err.message);
    uint8_t k1[IX_EMBED_KEY], k2[IX_EMBED_KEY], k3[IX_EMBED_KEY];
    ix_embed_key(model, "same text", 9, k1);
    ix_embed_key(model, "same text ", 10, k2);
    CHECK(memcmp(k1, k2, IX_EMBED_KEY) != 0, "another text, another key");
    ix_embed_key(model, "same text", 9, k2);
    CHECK(!memcmp(k1, k2, IX_EMBED_KEY), "the same text and model, the same key");
    if (q) {
        ix_embed_key(q, "same text", 9, k3);
        CHECK(memcmp(k1, k3, IX_EMBED_KEY) != 0, "another precision, another key: nothing reused across them");
    }
    test_recipe_keys(q);
    if (q) {
        hx_model_close(q);
    }
}

int main(void)
{
    hx_error err = {0};
    if (hx_model_open(&model, WEIGHTS, &err) || hx_encoder_new(&enc, model, 1, &err)) {
        CHECK(0, "model: %s", err.message);
        return check_report("test_reuse");
    }
    test_keys();
    char tmpl[] = "/tmp/hxi_reuse_XXXXXX", db[PATH_MAX + 16], fresh[PATH_MAX + 16];
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    snprintf(fresh, sizeof fresh, "%s.fresh.hyx", root);
    check_put(root, "a/x.md", doc_x);
    check_put(root, "a/z.md", doc_z);
    hx_index *ix = NULL;
    CHECK(hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err) == 0, "open: %s", err.message);
    if (!ix)
        return check_report("test_reuse");
    size_t e, r;
    hx_doc_info info;
    update(ix, &e, &r);
    CHECK(e == 7 && r == 0, "first build: embedded %zu (want 3 + 4), reused %zu", e, r);
    CHECK(chunks_of(ix, "a/x.md", &info) == 3 && chunks_of(ix, "a/z.md", &info) == 4,
          "a chunk per section: x.md 3 (its title's section holds its first paragraph), z.md 4 (its title alone)");
    embedded_as(ix, "a/x.md", 0, "Quokka field notes\n\nQuokkas live on Rottnest Island and feed at night on grasses.");
    embedded_as(ix, "a/x.md", 1, "Quokka field notes > Diet\nDiet\n\nThey eat leaves, stems and bark, and can go "
                                 "without water for weeks.");
    embedded_as(ix, "a/z.md", 0, "Tide tables");
    size_t dim = (size_t)hx_model_dim(model);
    float *before = calloc(3 * dim, sizeof *before), *after = calloc(3 * dim, sizeof *after);
    for (uint32_t c = 0; c < 3 && chunks_of(ix, "a/x.md", &info); c++)
        CHECK(hx_index_chunk_vector(ix, info.first_chunk + c, before + c * dim, &err) == 0, "%s", err.message);
    move("a/x.md", "a/y.md");
    update(ix, &e, &r);
    CHECK(e == 0 && r == 3, "renamed file: embedded %zu, reused %zu", e, r);
    for (uint32_t c = 0; c < 3 && chunks_of(ix, "a/y.md", &info); c++)
        CHECK(hx_index_chunk_vector(ix, info.first_chunk + c, after + c * dim, &err) == 0, "%s", err.message);
    CHECK(!memcmp(before, after, sizeof *before * 3 * dim), "the renamed file's vectors are the stored ones, bit for bit");
    free(before);
    free(after);
    move("a", "b");
    update(ix, &e, &r);
    CHECK(e == 0 && r == 7, "moved folder: embedded %zu, reused %zu", e, r);
    check_put(root, "b/copy.md", doc_x);
    update(ix, &e, &r);
    CHECK(e == 0 && r == 3, "copied file: embedded %zu, reused %zu", e, r);
    char edited[sizeof doc_z + 16];
    snprintf(edited, sizeof edited, "%s", doc_z);
    char *at = strstr(edited, "smallest range");
    memcpy(at, "weakest pulls ", 14);   /* one word changed in one section */
    check_put(root, "b/z.md", edited);
    update(ix, &e, &r);
    CHECK(e == 1 && r == 3, "edited document: embedded %zu (its changed section), reused %zu", e, r);
    CHECK(hx_index_compact(ix, &err) == 0, "compact: %s", err.message);
    check_put(root, "c/again.md", doc_z);   /* the text before the edit: compaction dropped its old
                                                section, and kept the keys of the three others */
    update(ix, &e, &r);
    CHECK(e == 1 && r == 3, "after compaction: embedded %zu, reused %zu", e, r);
    hx_index *fx = NULL;
    CHECK(hx_index_open(&fx, fresh, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err) == 0, "fresh: %s",
          err.message);
    if (fx) {
        update(fx, &e, &r);
        CHECK(e == 8 && r == 6, "a fresh index embeds each distinct text once: embedded %zu, reused %zu", e, r);
        same_vectors(ix, fx);
        hx_index_close(fx);
    }
    hx_index_close(ix);
    unlink(db);
    unlink(fresh);
    hx_encoder_free(enc);
    hx_model_close(model);
    return check_report("test_reuse");
}
