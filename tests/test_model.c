/* test_model.c: the weights loader refuses every broken file with the right code and a message a
 * person can act on (missing, a folder or a FIFO, truncated, flipped bytes, wrong version or kind,
 * inconsistent config or shapes), and tiny synthetic models (written here with hxf_writer) load and embed. */
#include "bytes.h"
#include "check.h"
#include "kernels.h"
#include "crc32c.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

/* === Tiny synthetic models === */

static const char tiny_vocab[] =
    "[PAD]\n[unused0]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\na\nof\nand\nsearch\nengine\nhyrax\n##s\n"
    "##ing\n.\n,\n!\n?\nx\n";
#define TINY_VOCAB 20

typedef struct tiny {
    uint32_t config[HX_MODEL_CONFIG_LEN];
    float eps;
    uint32_t kind;
    const char *skip;     /* section left out, or NULL */
    const char *reshape;  /* section whose first dim is one too many, or NULL */
} tiny;

static tiny tiny_default(void)
{
    tiny t = {{TINY_VOCAB, 8, 1, 2, 16, 16, 2, 12, 1, 1, 1, 0}, 1e-12f, HXF_KIND_WEIGHTS, NULL, NULL};
    return t;
}

static uint32_t rng_state = 12345;

static float rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return ((float)(rng_state >> 8) / 16777216.0f - 0.5f);
}

/* IEEE binary16 of a small float (round toward zero is good enough for test weights). */
static uint16_t to_half(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    uint32_t sign = (b >> 16) & 0x8000;
    int exp = (int)((b >> 23) & 0xFF) - 127 + 15;
    if (exp <= 0)
        return (uint16_t)sign;
    return (uint16_t)(sign | (uint32_t)exp << 10 | ((b >> 13) & 0x3FF));
}

static void add(hxf_writer *w, const tiny *t, const char *name, uint32_t dtype, uint32_t rows,
                uint32_t cols, hx_error *err)
{
    if (t->skip && !strcmp(t->skip, name))
        return;
    if (t->reshape && !strcmp(t->reshape, name))
        rows++;
    uint32_t dims[4] = {rows, cols, 0, 0};
    size_t n = (size_t)rows * (cols ? cols : 1), esize = dtype == HXF_F16 ? 2 : 4;
    uint8_t *data = malloc(n * esize);
    for (size_t i = 0; i < n; i++) {
        float v = rnd();
        if (dtype == HXF_F16) {
            uint16_t h = to_half(v);
            memcpy(data + 2 * i, &h, 2);
        } else {
            if (strstr(name, "ln") && strstr(name, "_w"))
                v += 1.0f;
            memcpy(data + 4 * i, &v, 4);
        }
    }
    hxf_writer_add(w, name, dtype, cols ? 2 : 1, dims, data, n * esize, err);
    free(data);
}

/* Writes the tiny model described by t; returns a malloc'd copy of the file's bytes. */
static uint8_t *tiny_write(const tiny *t, size_t *size)
{
    hx_error err = {0};
    hxf_writer w;
    const uint32_t *c = t->config;
    uint32_t H = c[1], F = c[4];
    hxf_writer_begin(&w, t->kind);
    if (!t->skip || strcmp(t->skip, "name"))
        hxf_writer_add(&w, "name", HXF_RAW, 0, NULL, "tiny-bert", 9, &err);
    if (!t->skip || strcmp(t->skip, "vocab"))
        hxf_writer_add(&w, "vocab", HXF_RAW, 0, NULL, tiny_vocab, sizeof tiny_vocab - 1, &err);
    uint32_t cdims[4] = {HX_MODEL_CONFIG_LEN, 0, 0, 0}, edims[4] = {1, 0, 0, 0};
    uint8_t cbytes[4 * HX_MODEL_CONFIG_LEN];
    for (int i = 0; i < HX_MODEL_CONFIG_LEN; i++)
        hxf_put32(cbytes + 4 * i, c[i]);
    if (!t->skip || strcmp(t->skip, "config"))
        hxf_writer_add(&w, "config", HXF_U32, 1, cdims, cbytes, sizeof cbytes, &err);
    hxf_writer_add(&w, "ln_eps", HXF_F32, 1, edims, &t->eps, 4, &err);
    add(&w, t, "word_emb", HXF_F16, TINY_VOCAB, H, &err);
    add(&w, t, "pos_emb", HXF_F16, c[5], H, &err);
    add(&w, t, "type_emb", HXF_F16, c[6], H, &err);
    add(&w, t, "emb_ln_w", HXF_F32, H, 0, &err);
    add(&w, t, "emb_ln_b", HXF_F32, H, 0, &err);
    for (uint32_t l = 0; l < c[2] && l < 4; l++) {
        static const struct {
            const char *name;
            int dtype, rows, cols;   /* in units: 1 = H, 3 = 3H, -1 = F */
        } s[] = {{"qkv_w", HXF_F16, 3, 1}, {"qkv_b", HXF_F32, 3, 0}, {"o_w", HXF_F16, 1, 1},
                 {"o_b", HXF_F32, 1, 0}, {"ln1_w", HXF_F32, 1, 0}, {"ln1_b", HXF_F32, 1, 0},
                 {"ffn1_w", HXF_F16, -1, 1}, {"ffn1_b", HXF_F32, -1, 0}, {"ffn2_w", HXF_F16, 1, -1},
                 {"ffn2_b", HXF_F32, 1, 0}, {"ln2_w", HXF_F32, 1, 0}, {"ln2_b", HXF_F32, 1, 0}};
        for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
            char name[32];
            snprintf(name, sizeof name, "L%u.%s", l, s[i].name);
            uint32_t rows = s[i].rows < 0 ? F : (uint32_t)s[i].rows * H;
            uint32_t cols = s[i].cols < 0 ? F : (uint32_t)s[i].cols * H;
            add(&w, t, name, (uint32_t)s[i].dtype, rows, cols, &err);
        }
    }
    uint8_t *buf = NULL;
    CHECK(hxf_writer_finish(&w, &buf, size, &err) == 0, "write tiny model: %s", err.message);
    return buf;
}

/* Opens t's bytes; returns the code and leaves the message in err. */
static int tiny_open(const tiny *t, hx_error *err)
{
    size_t size;
    uint8_t *buf = tiny_write(t, &size);
    hx_model *m = NULL;
    int rc = hxi_model_open_buffer(&m, buf, size, hxi_kernels_get(), err);
    hx_model_close(m);
    free(buf);
    return rc;
}

/* === Tests === */

static void test_tiny_embeds(void)
{
    tiny t = tiny_default();
    size_t size;
    uint8_t *buf = tiny_write(&t, &size);
    hx_error err = {0};
    hx_model *m = NULL;
    CHECK(hxi_model_open_buffer(&m, buf, size, hxi_kernels_get(), &err) == 0, "tiny opens: %s", err.message);
    if (m) {
        CHECK(hx_model_dim(m) == 8, "tiny dim %d", hx_model_dim(m));
        CHECK(!strcmp(hx_model_name(m), "tiny-bert"), "tiny name %s", hx_model_name(m));
        hx_encoder *e = NULL;
        CHECK(hx_encoder_new(&e, m, 2, &err) == 0, "tiny encoder: %s", err.message);
        const char *texts[3] = {"the search engine", "hyrax searching!", ""};
        float out[3 * 8];
        CHECK(e && hx_encoder_embed(e, texts, NULL, 3, out, &err) == 0, "tiny embed: %s", err.message);
        for (int i = 0; i < 3; i++) {
            double norm = 0;
            for (int d = 0; d < 8; d++)
                norm += (double)out[i * 8 + d] * out[i * 8 + d];
            CHECK(fabs(norm - 1) < 1e-5, "tiny vector %d is unit length (%g)", i, norm);
        }
        int32_t ids[13] = {3, 6, 10, 11, 4};
        const int32_t *p = ids;
        size_t len = 13;
        CHECK(hx_encoder_embed_ids(e, &p, &len, 1, out, &err) == HX_ERANGE, "past max_seq_len refused");
        CHECK(strstr(err.message, "12") != NULL, "message names the limit: %s", err.message);
        hx_encoder_free(e);
        CHECK(hxi_encoder_new_rows(&e, m, 1, 5, &err) == HX_EINVAL, "batch smaller than max_seq refused");
    }
    hx_model_close(m);

    /* The scalar table packs with its own panel width and gives the same vectors. */
    hx_model *ms = NULL, *mf = NULL;
    hx_encoder *es = NULL, *ef = NULL;
    CHECK(hxi_model_open_buffer(&ms, buf, size, &hxi_kernels_scalar, &err) == 0, "scalar: %s", err.message);
    CHECK(hxi_model_open_buffer(&mf, buf, size, hxi_kernels_get(), &err) == 0, "fast: %s", err.message);
    if (ms && mf && !hx_encoder_new(&es, ms, 1, &err) && !hx_encoder_new(&ef, mf, 1, &err)) {
        int32_t ids[12] = {3, 6, 10, 11, 13, 12, 14, 7, 8, 19, 15, 4};
        const int32_t *p = ids;
        size_t len = 12;
        float a[8], b[8];
        CHECK(hx_encoder_embed_ids(es, &p, &len, 1, a, &err) == 0, "scalar embed: %s", err.message);
        CHECK(hx_encoder_embed_ids(ef, &p, &len, 1, b, &err) == 0, "fast embed: %s", err.message);
        double diff = 0;
        for (int d = 0; d < 8; d++)
            diff = fmax(diff, fabs((double)a[d] - b[d]));
        CHECK(diff < 1e-5, "scalar and %s tables agree on the tiny model (%g)", hxi_kernels_get()->name, diff);
    }
    hx_model *mu = NULL;
    CHECK(hxi_model_open_buffer(&mu, buf + 4, size - 4, hxi_kernels_get(), &err) == HX_EINVAL && !mu,
          "unaligned buffer refused");
    hx_encoder_free(es);
    hx_encoder_free(ef);
    hx_model_close(ms);
    hx_model_close(mf);
    free(buf);
}

static void expect(const tiny *t, int code, const char *needle, const char *what)
{
    hx_error err = {0};
    int rc = tiny_open(t, &err);
    CHECK(rc == code, "%s: code %d (%s), expected %d: %s", what, rc, hx_strerror(rc), code, err.message);
    CHECK(rc == 0 || strstr(err.message, needle) != NULL, "%s: message '%s' should mention '%s'", what,
          err.message, needle);
}

static void test_inconsistent(void)
{
    tiny t = tiny_default();
    expect(&t, 0, "", "valid tiny model");
    t = tiny_default(), t.config[3] = 3;
    expect(&t, HX_EFORMAT, "head count", "heads do not divide hidden");
    t = tiny_default(), t.config[7] = 17;
    expect(&t, HX_EFORMAT, "position embeddings", "max_seq_len beyond positions");
    t = tiny_default(), t.config[0] = 21;
    expect(&t, HX_EFORMAT, "word_emb", "vocab size disagrees with word_emb");
    t = tiny_default(), t.config[8] = 2;
    expect(&t, HX_EFORMAT, "activation", "unknown activation");
    t = tiny_default(), t.config[1] = 0;
    expect(&t, HX_ERANGE, "hidden size", "hidden size 0");
    t = tiny_default(), t.config[2] = 65;
    expect(&t, HX_ERANGE, "layer count", "65 layers");
    t = tiny_default(), t.config[2] = 2, t.skip = "L1.qkv_w";
    expect(&t, HX_ENOTFOUND, "L1.qkv_w", "second layer's QKV missing");
    t = tiny_default(), t.config[2] = 2;
    expect(&t, 0, "", "two layers");
    t = tiny_default(), t.eps = 0;
    expect(&t, HX_ERANGE, "epsilon", "epsilon 0");
    t = tiny_default(), t.eps = NAN;
    expect(&t, HX_ERANGE, "epsilon", "epsilon NaN");
    t = tiny_default(), t.skip = "L0.ffn2_b";
    expect(&t, HX_ENOTFOUND, "L0.ffn2_b", "missing bias");
    t = tiny_default(), t.skip = "config";
    expect(&t, HX_ENOTFOUND, "config", "missing config");
    t = tiny_default(), t.skip = "vocab";
    expect(&t, HX_ENOTFOUND, "vocab", "missing vocab");
    t = tiny_default(), t.skip = "name";
    expect(&t, HX_ENOTFOUND, "name", "missing name");
    t = tiny_default(), t.reshape = "L0.qkv_w";
    expect(&t, HX_EFORMAT, "L0.qkv_w", "wrong qkv shape");
    t = tiny_default(), t.reshape = "emb_ln_b";
    expect(&t, HX_EFORMAT, "emb_ln_b", "wrong LayerNorm shape");
    t = tiny_default(), t.kind = HXF_KIND_SEGMENT;
    expect(&t, HX_EFORMAT, "kind", "index segment instead of weights");
}

static void test_damage(void)
{
    tiny t = tiny_default();
    size_t size;
    uint8_t *buf = tiny_write(&t, &size);
    uint8_t *copy = malloc(size);
    hx_error err = {0};
    hx_model *m = NULL;

    int all_refused = 1;
    for (size_t n = 0; n < size; n += 7) {
        int rc = hxi_model_open_buffer(&m, buf, n, hxi_kernels_get(), &err);
        if (rc == 0) {
            hx_model_close(m);
            all_refused = 0;
        } else if (n >= 64 && rc != HX_ETRUNCATED) {
            all_refused = 0;
            fprintf(stderr, "truncated at %zu: code %d: %s\n", n, rc, err.message);
        }
    }
    CHECK(all_refused, "every truncation is refused as truncated");

    /* Flip one bit in every byte the checksums cover: header, table, section data. */
    hxf_view v;
    CHECK(hxf_parse(buf, size, 0, &v, &err) == 0, "parse: %s", err.message);
    uint64_t table = hxf_le64(buf + 16);
    int flips = 0, flips_refused = 0;
    for (size_t i = 0; i < size; i++) {
        int covered = i < 64 || i >= table;
        for (uint32_t s = 0; s < v.n_sections && !covered; s++)
            covered = i >= (size_t)(v.sections[s].data - buf) &&
                      i < (size_t)(v.sections[s].data - buf) + v.sections[s].length;
        if (!covered)
            continue;
        memcpy(copy, buf, size);
        copy[i] ^= (uint8_t)(1u << (i % 8));
        int rc = hxi_model_open_buffer(&m, copy, size, hxi_kernels_get(), &err);
        flips++;
        if (rc != 0)
            flips_refused++;
        else
            hx_model_close(m);
    }
    hxf_view_free(&v);
    CHECK(flips > 1000 && flips_refused == flips, "%d of %d flipped bits refused", flips_refused, flips);

    memcpy(copy, buf, size);
    hxf_put32(copy + 8, 2);
    hxf_put32(copy + 60, hxf_crc32c(0, copy, 60));
    int rc = hxi_model_open_buffer(&m, copy, size, hxi_kernels_get(), &err);
    CHECK(rc == HX_EVERSION && strstr(err.message, "version 2"), "version 2 refused: %d %s", rc, err.message);
    free(copy);
    free(buf);
}

static void test_files(void)
{
    hx_error err = {0};
    hx_model *m = NULL;
    int rc = hx_model_open(&m, "weights/no-such-file.hxw", &err);
    CHECK(rc == HX_ENOTFOUND && strstr(err.message, "no-such-file"), "missing file: %d %s", rc, err.message);
    rc = hx_model_open(&m, "weights", &err);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "not a regular file"), "folder: %d %s", rc, err.message);
    /* a FIFO is refused at once; SIGALRM's default action ends the test if the open waits for a
     * writer that never comes */
    char dir[] = "/tmp/hxi_model_XXXXXX", fifo[64];
    CHECK(mkdtemp(dir) != NULL, "temp folder");
    snprintf(fifo, sizeof fifo, "%s/fifo.hxw", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    alarm(10);
    rc = hx_model_open(&m, fifo, &err);
    alarm(0);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "not a regular file"), "FIFO: %d %s", rc, err.message);
    unlink(fifo);
    rmdir(dir);
    rc = hx_model_open(&m, "tests/check.h", &err);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "magic") && strstr(err.message, "tests/check.h"),
          "text file: %d %s", rc, err.message);

    /* The real file: truncations are refused without copying it. */
    hxf_map map;
    CHECK(hxf_map_open(&map, WEIGHTS, &err) == 0, "map: %s", err.message);
    if (map.addr) {
        const size_t cuts[] = {0, 1, 63, 64, 4096, map.size / 2, map.size - 64, map.size - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
            rc = hxi_model_open_buffer(&m, map.addr, cuts[i], hxi_kernels_get(), &err);
            CHECK(rc == HX_ETRUNCATED, "real file cut to %zu bytes: %d %s", cuts[i], rc, err.message);
        }
        rc = hxi_model_open_buffer(&m, map.addr, map.size, hxi_kernels_get(), &err);
        CHECK(rc == 0, "real file from a buffer: %s", err.message);
        hx_model_close(m);
        hxf_map_close(&map);
    }

    char path[4096];
    setenv("HYRAX_WEIGHTS", WEIGHTS, 1);
    CHECK(hx_model_default_path(path, sizeof path, &err) == 0 && !strcmp(path, WEIGHTS),
          "HYRAX_WEIGHTS is used: %s", path);
    CHECK(hx_model_default_path(path, 4, &err) == HX_ERANGE, "short buffer refused");
    unsetenv("HYRAX_WEIGHTS");
}

/* The seeds written by tools/convert_weights.py --synthetic load: the Python writer and this
 * reader agree on the layout. */
static void test_python_seeds(void)
{
    static const char *const seeds[] = {"tiny_h8_l1.hxw", "tiny_h8_l2.hxw", "tiny_h12_h3.hxw"};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "fuzz/corpus/weights/%s", seeds[i]);
        hx_error err = {0};
        hx_model *m = NULL;
        CHECK(hx_model_open(&m, path, &err) == 0, "%s: %s", path, err.message);
        CHECK(!m || !strcmp(hx_model_name(m), "tiny-bert"), "%s is tiny-bert", path);
        hx_model_close(m);
    }
}

int main(void)
{
    test_python_seeds();
    test_tiny_embeds();
    test_inconsistent();
    test_damage();
    test_files();
    return check_report("test_model");
}
