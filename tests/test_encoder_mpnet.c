/* test_encoder_mpnet.c: the MPNet architecture (all-mpnet-base-v2) against the reference
 * implementation, on tests/golden/mpnet_* (written by tools/gen_golden_mpnet.py from
 * sentence-transformers, HF tokenizers and HF MPNetEncoder; layouts documented there):
 * relative position buckets, the tokenizer spec, the catalog, the tiny synthetic MPNet and the
 * packed-weights cache always;
 * with weights/all-mpnet-base-v2.hxw present (`make mpnet`),
 * our tokenizer's ids, fp32 embeddings at cosine >= 0.99999 from the golden ids and through our
 * tokenizer, 1 versus 2 threads, the scalar kernel table on short texts, the int8 model at
 * cosine >= MIN_COSINE_INT8 on every text, and its vectors the same bit for bit with every pair of
 * kernel tables (the tiny MPNet's always; under an emulator, HX_EMULATED, only those). Without the weights those parts are skipped, saying so. */
#include "bytes.h"
#include "check.h"
#include "crc32c.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEIGHTS "weights/all-mpnet-base-v2.hxw"
#define GOLDEN "tests/golden/"
#define DIM 768
#define MAX_SEQ 384
#define MIN_COSINE 0.99999
/* MPNet's int8 recipe (model.c int8_recipe: balanced columns, the last two layers fine) gives min
 * cosine 0.99751, mean 0.99903 over these texts on every table (int8_tables_agree); MiniLM's
 * design gave 0.9885 / 0.99847. */
#define MIN_COSINE_INT8 0.995
#define SCALAR_SUBSET 12
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

typedef struct golden {
    size_t n;
    char **texts;       /* [n], NUL-terminated, into text_buf */
    size_t *text_lens;  /* [n] */
    int32_t **ids;      /* [n], owned */
    size_t *lens;       /* [n] */
    float *vecs;        /* [n x DIM] */
    char *text_buf;
} golden;

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int load_golden(golden *g)
{
    size_t size;
    memset(g, 0, sizeof *g);
    uint8_t *v = (uint8_t *)check_read_file(GOLDEN "mpnet_vectors.f32", &size);
    if (!v || size < 8 || le32(v + 4) != DIM) {
        free(v);
        return -1;
    }
    g->n = le32(v);
    if (size != 8 + g->n * DIM * 4) {
        free(v);
        return -1;
    }
    g->vecs = malloc(g->n * DIM * sizeof(float));
    memcpy(g->vecs, v + 8, g->n * DIM * sizeof(float));
    free(v);
    uint8_t *b = (uint8_t *)check_read_file(GOLDEN "mpnet_ids.bin", &size);
    if (!b || size < 4 || le32(b) != g->n) {
        free(b);
        return -1;
    }
    g->ids = calloc(g->n, sizeof *g->ids);
    g->lens = calloc(g->n, sizeof *g->lens);
    size_t off = 4;
    for (size_t i = 0; i < g->n; i++) {
        if (off + 4 > size)
            break;
        g->lens[i] = le32(b + off);
        off += 4;
        if (g->lens[i] > (size - off) / 4 || g->lens[i] > MAX_SEQ)
            break;
        g->ids[i] = malloc(g->lens[i] * sizeof(int32_t) + 1);
        for (size_t t = 0; t < g->lens[i]; t++)
            g->ids[i][t] = (int32_t)le32(b + off + 4 * t);
        off += 4 * g->lens[i];
    }
    free(b);
    if (off != size)
        return -1;
    g->text_buf = check_read_file(GOLDEN "mpnet_texts.txt", &size);
    if (!g->text_buf)
        return -1;
    g->texts = calloc(g->n, sizeof *g->texts);
    g->text_lens = calloc(g->n, sizeof *g->text_lens);
    char *p = g->text_buf;
    for (size_t i = 0; i < g->n; i++) {
        char *nl = strchr(p, '\n');
        if (!nl)
            return -1;
        *nl = 0;
        g->texts[i] = p;
        g->text_lens[i] = (size_t)(nl - p);
        p = nl + 1;
    }
    return 0;
}

static void free_golden(golden *g)
{
    for (size_t i = 0; g->ids && i < g->n; i++)
        free(g->ids[i]);
    free(g->ids);
    free(g->lens);
    free(g->vecs);
    free(g->texts);
    free(g->text_lens);
    free(g->text_buf);
}

/* Keeps texts 0, k, 2k, ... of g (k >= 1), in order. */
static void keep_every(golden *g, size_t k)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (i % k) {
            free(g->ids[i]);
            continue;
        }
        g->ids[n] = g->ids[i];
        g->lens[n] = g->lens[i];
        g->texts[n] = g->texts[i];
        g->text_lens[n] = g->text_lens[i];
        memmove(g->vecs + n * DIM, g->vecs + i * DIM, DIM * sizeof(float));
        n++;
    }
    g->n = n;
}

static double cosine(const float *a, const float *b)
{
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < DIM; i++) {
        ab += (double)a[i] * b[i];
        aa += (double)a[i] * a[i];
        bb += (double)b[i] * b[i];
    }
    return ab / (sqrt(aa) * sqrt(bb) + 1e-30);
}

/* out[i] against the reference vector of text idx[i] (idx NULL: i) for i < n; returns the number
 * under min_cosine. */
static int compare(const golden *g, const float *out, const size_t *idx, size_t n, const char *what,
                   double min_cosine)
{
    double min_cos = 1, sum = 0;
    size_t worst = 0;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t t = idx ? idx[i] : i;
        double c = cosine(out + i * DIM, g->vecs + t * DIM);
        sum += c;
        if (c < min_cos)
            min_cos = c, worst = t;
        if (!(c >= min_cosine) && bad++ < 5)
            fprintf(stderr, "%s: text %zu cosine %.7f: %.80s\n", what, t, c, g->texts[t]);
    }
    printf("%s: %zu texts, min cosine %.7f (text %zu), mean %.7f\n", what, n, min_cos, worst,
           sum / (double)(n ? n : 1));
    return bad;
}

/* (Not an fmax reduction: Debian's aarch64 gcc 12 fails vectorising one, an internal error.) */
static double max_abs_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        const double d = fabs((double)a[i] - b[i]);
        m = d > m ? d : m;
    }
    return m;
}

/* The int8 model at `path` gives the same vectors byte for byte with every float table this machine
 * runs (the float steps around the integer gemm: kernels.h "Identical in every table") paired with
 * every int8 table it runs, on sequences ids[0..n) embedded on 2 threads. The scalar pair comes
 * first and is the reference; a pair with a scalar table embeds the first scalar_n sequences only
 * (they are slow), the others all n and the first of them becomes the reference for the rest. */
static void int8_tables_agree(const char *path, const int32_t *const *ids, const size_t *lens, size_t n,
                              size_t scalar_n, int dim, const char *what)
{
    hx_error err = {0};
    const size_t row = (size_t)dim * sizeof(float);
    float *ref = calloc(n, row), *out = calloc(n, row);
    int pairs = 0, same = 0;
    size_t ref_n = 0;
    for (int fi = HX_ISA_SCALAR; fi < HX_ISA_COUNT; fi++) {
        const hxi_kernels *kt = hxi_kernels_for((enum hxi_isa)fi);
        hx_model *m = NULL;
        if (!kt)
            continue;
        CHECK(hxi_model_open_with(&m, path, kt, HX_PRECISION_INT8, &err) == 0, "%s: open int8 with %s: %s", what,
              kt->name, err.message);
        for (int ii = HX_I8_SCALAR; m && ii < HX_I8_COUNT; ii++) {
            const hxi_kernels_i8 *k8 = hxi_kernels_i8_for((enum hxi_i8_isa)ii);
            hx_encoder *e = NULL;
            if (!k8)
                continue;
            m->k8 = k8;
            const size_t k = fi == HX_ISA_SCALAR || ii == HX_I8_SCALAR ? (scalar_n < n ? scalar_n : n) : n;
            CHECK(hx_encoder_new(&e, m, 2, &err) == 0 && hx_encoder_embed_ids(e, ids, lens, k, out, &err) == 0,
                  "%s: %s + int8 %s: %s", what, kt->name, k8->name, err.message);
            hx_encoder_free(e);
            const size_t c = k < ref_n ? k : ref_n;
            if (ref_n) {
                pairs++;
                if (!memcmp(out, ref, c * row))
                    same++;
                else
                    fprintf(stderr, "%s: float %s + int8 %s differs from the reference (max %.3g)\n", what,
                            kt->name, k8->name, max_abs_diff(out, ref, c * (size_t)dim));
            }
            if (k > ref_n) {
                memcpy(ref, out, k * row);
                ref_n = k;
            }
        }
        hx_model_close(m);
    }
    printf("%s: %d table pairs give the scalar pair's int8 vectors byte for byte, of %d\n", what, same, pairs);
    CHECK(same == pairs, "%s: %d of %d table pairs give the int8 vectors byte for byte", what, same,
          pairs);
    free(ref);
    free(out);
}

/* hxi_model_rel_bucket against HF's relative_position_bucket for every distance of 384 tokens. */
static void test_buckets(void)
{
    size_t size;
    char *buf = check_read_file(GOLDEN "mpnet_buckets.txt", &size);
    CHECK(buf != NULL, "read " GOLDEN "mpnet_buckets.txt");
    if (!buf)
        return;
    int n = 0, bad = 0, d, b;
    for (char *p = buf; sscanf(p, "%d %d", &d, &b) == 2; n++) {
        int got = hxi_model_rel_bucket(d, 32, 128);
        if (got != b && bad++ < 5)
            fprintf(stderr, "distance %d: bucket %d, HF %d\n", d, got, b);
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    CHECK(n == 2 * MAX_SEQ - 1 && bad == 0, "%d of %d relative positions get HF's bucket", n - bad, n);
    free(buf);
}

/* Our tokenizer (from the weights' vocab and tokenizer sections) against HF's ids on every text. */
static void test_tokenizer(const golden *g, const hx_model *m)
{
    const hxi_tokenizer *tok = hxi_model_tokenizer(m);
    CHECK(hxi_tokenizer_cls(tok) == 0 && hxi_tokenizer_pad(tok) == 1 && hxi_tokenizer_sep(tok) == 2 &&
          hxi_tokenizer_unk(tok) == 104, "MPNet's <s> <pad> </s> [UNK] are 0 1 2 104");
    int32_t ids[MAX_SEQ];
    size_t same = 0;
    for (size_t i = 0; i < g->n; i++) {
        size_t k = hx_model_input_ids(m, g->texts[i], g->text_lens[i], ids, MAX_SEQ);
        if (k == g->lens[i] && !memcmp(ids, g->ids[i], k * sizeof *ids))
            same++;
        else if (i - same < 5)
            fprintf(stderr, "text %zu: our ids differ from HF's: %.80s\n", i, g->texts[i]);
    }
    printf("our tokenizer: %zu of %zu texts have HF's ids\n", same, g->n);
    CHECK(same == g->n, "every text tokenizes as HF's (%zu of %zu)", same, g->n);
}

static void test_fp32(const golden *g, hx_model *m)
{
    hx_error err = {0};
    hx_encoder *e1 = NULL, *e2 = NULL;
    float *out = calloc(g->n * DIM, sizeof(float)), *out2 = calloc(g->n * DIM, sizeof(float));
    CHECK(hx_encoder_new(&e1, m, 1, &err) == 0 && hx_encoder_new(&e2, m, 2, &err) == 0, "encoders: %s",
          err.message);
    if (!e1 || !e2)
        goto done;
    CHECK(hx_encoder_embed_ids(e1, (const int32_t *const *)g->ids, g->lens, g->n, out, &err) == 0,
          "embed_ids: %s", err.message);
    CHECK(compare(g, out, NULL, g->n, "fp32, golden ids", MIN_COSINE) == 0, "every text reaches cosine %g",
          MIN_COSINE);
    CHECK(hx_encoder_embed(e2, (const char *const *)g->texts, g->text_lens, g->n, out2, &err) == 0,
          "embed texts: %s", err.message);
    CHECK(compare(g, out2, NULL, g->n, "fp32, our tokenizer, 2 threads", MIN_COSINE) == 0,
          "every text reaches cosine %g through our tokenizer", MIN_COSINE);
    float one[DIM];
    double worst = 0;
    for (size_t i = 0; i < g->n; i += 25) {
        const int32_t *ids = g->ids[i];
        CHECK(hx_encoder_embed_ids(e2, &ids, &g->lens[i], 1, one, &err) == 0, "single: %s", err.message);
        const double d = max_abs_diff(one, out + i * DIM, DIM);
        worst = d > worst ? d : worst;
    }
    CHECK(worst <= 1e-6, "batched on 1 thread and single on 2 agree within 1e-6 (%.2e)", worst);
    int32_t bad[3] = {0, 30527, 2};
    const int32_t *badp = bad;
    size_t badlen = 3, toolong = MAX_SEQ + 1;
    CHECK(hx_encoder_embed_ids(e1, &badp, &badlen, 1, one, &err) == HX_ERANGE, "id past the vocabulary refused");
    CHECK(hx_encoder_embed_ids(e1, &badp, &toolong, 1, one, &err) == HX_ERANGE, "385 tokens refused");
done:
    free(out);
    free(out2);
    hx_encoder_free(e1);
    hx_encoder_free(e2);
}

static void test_scalar(const golden *g)
{
    hx_error err = {0};
    hx_model *m = NULL;
    hx_encoder *e = NULL;
    CHECK(hxi_model_open_with(&m, WEIGHTS, &hxi_kernels_scalar, HX_PRECISION_FP32, &err) == 0, "open scalar: %s", err.message);
    const int32_t *ids[SCALAR_SUBSET];
    size_t lens[SCALAR_SUBSET], idx[SCALAR_SUBSET], n = 0;
    for (size_t i = 0; i < g->n && n < SCALAR_SUBSET; i++)
        if (g->lens[i] <= 12)   /* short texts only: the scalar table is slow */
            ids[n] = g->ids[i], lens[n] = g->lens[i], idx[n++] = i;
    float *out = calloc(n * DIM, sizeof(float));
    if (m && hx_encoder_new(&e, m, 1, &err) == 0) {
        CHECK(hx_encoder_embed_ids(e, ids, lens, n, out, &err) == 0, "scalar embed: %s", err.message);
        CHECK(compare(g, out, idx, n, "fp32, scalar kernels", MIN_COSINE) == 0, "scalar table reaches %g",
              MIN_COSINE);
    }
    free(out);
    hx_encoder_free(e);
    hx_model_close(m);
}

static void test_int8(const golden *g)
{
    hx_error err = {0};
    hx_model *m = NULL;
    hx_encoder *e = NULL;
    hx_model_opts o = {WEIGHTS, HX_PRECISION_INT8};
    CHECK(hx_model_open_opts(&m, &o, &err) == 0, "open int8: %s", err.message);
    float *out = calloc(g->n * DIM, sizeof(float));
    if (m && hx_encoder_new(&e, m, 2, &err) == 0) {
        printf("int8 kernels: %s\n", m->k8->name);
        CHECK(hx_encoder_embed_ids(e, (const int32_t *const *)g->ids, g->lens, g->n, out, &err) == 0,
              "int8 embed_ids: %s", err.message);
        CHECK(compare(g, out, NULL, g->n, "int8, golden ids", MIN_COSINE_INT8) == 0,
              "every text reaches cosine %g at int8", MIN_COSINE_INT8);
    }
    free(out);
    hx_encoder_free(e);
    hx_model_close(m);
}

/* int8_tables_agree on all-mpnet-base-v2: the scalar pairs on a few short texts, every SIMD pair on
 * every sixth golden text as well (lengths up to 384 tokens). */
#define TABLES_SCALAR 4
static void test_int8_tables(const golden *g)
{
    const int32_t **ids = calloc(g->n + TABLES_SCALAR, sizeof *ids);
    size_t *lens = calloc(g->n + TABLES_SCALAR, sizeof *lens), n = 0;
    for (size_t i = 0; i < g->n && n < TABLES_SCALAR; i++)
        if (g->lens[i] >= 9 && g->lens[i] <= 40)
            ids[n] = g->ids[i], lens[n++] = g->lens[i];
    for (size_t i = 0; i < g->n; i += 6)
        ids[n] = g->ids[i], lens[n++] = g->lens[i];
    int8_tables_agree(WEIGHTS, ids, lens, n, TABLES_SCALAR, DIM, "all-mpnet-base-v2");
    free(ids);
    free(lens);
}

/* The tokenizer spec (tokenizer.h) on a tiny vocabulary: roles and added tokens as stated, and
 * every malformed spec refused. */
static void test_spec(void)
{
    static const char vocab[] = "<s>\n<pad>\n</s>\n[UNK]\nhello\n<mask>\n";
    static const char spec[] = "wordpiece-lower\n<s> </s> [UNK] <pad>\n<s> <pad> </s> [UNK] <mask>\n";
    hx_error err = {0};
    hxi_tokenizer *t = NULL;
    CHECK(hxi_tokenizer_new_spec(&t, vocab, sizeof vocab - 1, spec, sizeof spec - 1, &err) == 0, "spec: %s",
          err.message);
    if (t) {
        CHECK(hxi_tokenizer_cls(t) == 0 && hxi_tokenizer_sep(t) == 2 && hxi_tokenizer_unk(t) == 3 &&
              hxi_tokenizer_pad(t) == 1, "roles from the spec's second line");
        int32_t ids[8];
        const char text[] = "Hello<mask>hello world";
        size_t n = hxi_tokenize_for_model(t, text, sizeof text - 1, ids, 8);
        CHECK(n == 6 && ids[0] == 0 && ids[1] == 4 && ids[2] == 5 && ids[3] == 4 && ids[4] == 3 && ids[5] == 2,
              "<s> hello <mask> hello [UNK] </s>: %zu ids", n);
        hxi_tokenizer_free(t);
    }
    static const struct {
        const char *spec;
        int rc;
        const char *what;
    } bad[] = {
        {"bpe\n<s> </s> [UNK] <pad>\n", HX_EFORMAT, "an unknown kind"},
        {"wordpiece-lower <s>\n<s> </s> [UNK] <pad>\n", HX_EFORMAT, "text after the kind"},
        {"wordpiece-lower\n<s> </s> [UNK]\n", HX_EFORMAT, "three roles"},
        {"wordpiece-lower\n<s> </s> [UNK] <pad> <mask>\n", HX_EFORMAT, "five roles"},
        {"wordpiece-lower\n<s> </s> [CLS] <pad>\n", HX_EFORMAT, "a role the vocabulary lacks"},
        {"wordpiece-lower\n<s> </s> [UNK] <pad>\na b c d e f g h i\n", HX_ERANGE, "nine added tokens"},
        {"wordpiece-lower\n<s> </s> [UNK] <pad>\n<aaaaaaaaaaaaaaaaaaaaaaaaa>\n", HX_EFORMAT, "a 27-byte token"},
        {"wordpiece-lower\n<s> </s> [UNK] <pad>\n<s>\nmore\n", HX_EFORMAT, "a fourth line"},
        {"wordpiece-lower\n<s> </s> [UNK] <pad>\n<s>\x01\n", HX_EFORMAT, "a control byte"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        t = NULL;
        int rc = hxi_tokenizer_new_spec(&t, vocab, sizeof vocab - 1, bad[i].spec, strlen(bad[i].spec), &err);
        CHECK(rc == bad[i].rc && !t, "%s refused (%d): %s", bad[i].what, rc, err.message);
        hxi_tokenizer_free(t);
    }
}

/* The catalog: names, aliases, and a known model that is not installed said so. */
static void test_catalog(void)
{
    hx_model_info info;
    CHECK(hx_model_catalog_size() == 2, "two models known");
    CHECK(hx_model_catalog(0, &info) == 0 && !strcmp(info.alias, "minilm") && info.dim == 384, "row 0 is minilm");
    CHECK(hx_model_catalog(1, &info) == 0 && !strcmp(info.name, "all-mpnet-base-v2") && info.dim == DIM,
          "row 1 is mpnet");
    CHECK(hx_model_catalog(2, &info) == HX_EINVAL, "no row 2");
    CHECK(hx_model_alias("ALL-MPNET-BASE-V2") && !strcmp(hx_model_alias("ALL-MPNET-BASE-V2"), "mpnet"), "alias");
    CHECK(hx_model_alias("all-MiniLM-L6-v2") && !strcmp(hx_model_alias("all-MiniLM-L6-v2"), "minilm"), "alias");
    CHECK(hx_model_alias("bert-base") == NULL, "unknown name");
    char path[4096];
    hx_error err = {0};
    CHECK(hx_model_find("some/dir/x.hxw", path, sizeof path, &err) == 0 && !strcmp(path, "some/dir/x.hxw"),
          "a file path is taken as it is");
    const char *env = getenv("HYRAX_WEIGHTS");
    char *saved = env ? strdup(env) : NULL;
    setenv("HYRAX_WEIGHTS", "/nonexistent-hyrax-dir/all-minilm-l6-v2.hxw", 1);
    CHECK(hx_model_find("mpnet", path, sizeof path, &err) == HX_ENOTFOUND && strstr(err.message, "make mpnet"),
          "mpnet not installed: %s", err.message);
    char cwd[2048];
    if (access(WEIGHTS, R_OK) == 0 && getcwd(cwd, sizeof cwd)) {
        char w[4096];
        snprintf(w, sizeof w, "%s/weights/all-minilm-l6-v2.hxw", cwd);
        setenv("HYRAX_WEIGHTS", w, 1);
        CHECK(hx_model_find("mpnet", path, sizeof path, &err) == 0 && strstr(path, "weights/all-mpnet-base-v2.hxw"),
              "mpnet found beside $HYRAX_WEIGHTS: %s", path);
    }
    if (saved)
        setenv("HYRAX_WEIGHTS", saved, 1);
    else
        unsetenv("HYRAX_WEIGHTS");
    free(saved);
}

/* The tiny MPNet that tools/convert_weights.py --synthetic writes (fuzz/corpus/weights): the writer
 * and this reader agree on the layout, and the scalar and SIMD tables give the same unit vector, at
 * fp32 and at int8 (fine layers). */
static void test_tiny(void)
{
    hx_error err = {0};
    hx_model *m = NULL, *ms = NULL;
    const char *path = "fuzz/corpus/weights/tiny_mpnet.hxw";
    CHECK(hx_model_open(&m, path, &err) == 0, "%s: %s", path, err.message);
    CHECK(hxi_model_open_with(&ms, path, &hxi_kernels_scalar, HX_PRECISION_FP32, &err) == 0, "%s scalar: %s", path, err.message);
    if (!m || !ms) {
        hx_model_close(m);
        hx_model_close(ms);
        return;
    }
    const hxi_tokenizer *t = hxi_model_tokenizer(m);
    CHECK(!strcmp(hx_model_name(m), "tiny-mpnet") && hx_model_dim(m) == 8, "tiny-mpnet, 8 dimensions");
    CHECK(hxi_tokenizer_cls(t) == 0 && hxi_tokenizer_pad(t) == 1 && hxi_tokenizer_sep(t) == 2 && hxi_tokenizer_unk(t) == 6,
          "roles from its tokenizer section");
    hx_encoder *e = NULL, *es = NULL;
    const char *text = "the hyrax search engine <pad> and a <mask>";
    float v[8], vs[8];
    CHECK(hx_encoder_new(&e, m, 2, &err) == 0 && hx_encoder_new(&es, ms, 1, &err) == 0, "encoders: %s", err.message);
    if (e && es) {
        CHECK(hx_encoder_embed(e, &text, NULL, 1, v, &err) == 0 && hx_encoder_embed(es, &text, NULL, 1, vs, &err) == 0,
              "embed: %s", err.message);
        double norm = 0;
        for (int i = 0; i < 8; i++)
            norm += (double)v[i] * v[i];
        CHECK(fabs(norm - 1) < 1e-5 && max_abs_diff(v, vs, 8) < 1e-5, "unit vector, scalar agrees (%.2e)",
              max_abs_diff(v, vs, 8));
    }
    /* int8: MPNet's recipe runs the last two layers' Linear layers fine (model.c int8_recipe), so every
       one of this two-layer model's, and smooths every input; the scalar int8 table
       (the packing is every table's) gives the selected table's vector */
    hx_model *mq = NULL, *mqs = NULL;
    hx_encoder *eq = NULL, *eqs = NULL;
    hx_model_opts o = {path, HX_PRECISION_INT8};
    float vq[8], vqs[8];
    CHECK(hx_model_open_opts(&mq, &o, &err) == 0 && hx_model_open_opts(&mqs, &o, &err) == 0, "int8: %s", err.message);
    if (mq && mqs) {
        mqs->k8 = &hxi_kernels_i8_scalar;
        CHECK(mq->layers[0].qkv_q.fine && mq->layers[0].o_q.fine && mq->layers[0].ffn1_q.fine && mq->layers[0].ffn2_q.fine &&
                  mq->layers[0].o_q.part[0].xinv,
              "every Linear layer fine and smoothed");
        CHECK(hx_encoder_new(&eq, mq, 2, &err) == 0 && hx_encoder_new(&eqs, mqs, 1, &err) == 0 &&
                  hx_encoder_embed(eq, &text, NULL, 1, vq, &err) == 0 && hx_encoder_embed(eqs, &text, NULL, 1, vqs, &err) == 0,
              "int8 embed: %s", err.message);
        double dot = 0;
        for (int i = 0; i < 8; i++)
            dot += (double)vq[i] * v[i];
        CHECK(dot > 0.999 && max_abs_diff(vq, vqs, 8) < 1e-5, "int8 within cosine 0.999 of fp32 (%.6f), scalar int8 agrees "
              "(%.2e)", dot, max_abs_diff(vq, vqs, 8));
    }
    /* every table pair gives the same int8 vectors, on 2 to 12 tokens (its longest) */
    int32_t tiny_ids[11][12];
    const int32_t *tiny_p[11];
    size_t tiny_lens[11];
    for (int i = 0; i < 11; i++) {
        tiny_lens[i] = hx_model_input_ids(m, text, strlen(text), tiny_ids[i], (size_t)i + 2);
        tiny_p[i] = tiny_ids[i];
    }
    int8_tables_agree(path, tiny_p, tiny_lens, 11, 11, 8, "tiny MPNet");
    hx_encoder_free(eq);
    hx_encoder_free(eqs);
    hx_model_close(mq);
    hx_model_close(mqs);
    hx_encoder_free(e);
    hx_encoder_free(es);
    hx_model_close(m);
    hx_model_close(ms);
}

/* The packed-weights cache (pack_cache.c) in a folder of its own, on the tiny MPNet at fp32 and
 * int8: the first open packs and writes the file, the next maps it (checking its block and stamping
 * it) and gives the same vector bit for bit; a stamped file whose packed block was altered is
 * ignored (packed again) and replaced. */
static hx_model *cache_open(const char *path, hx_precision p, float v[8], int want_mapped, const char *what)
{
    hx_error err = {0};
    hx_model *m = NULL;
    hx_encoder *e = NULL;
    hx_model_opts o = {path, p};
    const char *text = "the hyrax search engine";
    CHECK(hx_model_open_opts(&m, &o, &err) == 0 && hx_encoder_new(&e, m, 1, &err) == 0 &&
              hx_encoder_embed(e, &text, NULL, 1, v, &err) == 0,
          "%s: %s", what, err.message);
    CHECK(m && (m->packed_map != NULL) == want_mapped, "%s: %s", what, want_mapped ? "mapped" : "packed");
    hx_encoder_free(e);
    return m;
}

/* The second open checked the block and stamped the file (pack_cache.c "Stamp"): the stamp names
 * this file's inode and size, so the alteration that follows, which moves its ctime, is caught. */
static void stamp_check(const char *file)
{
    char ok[600];
    unsigned char s[64];
    struct stat st;
    snprintf(ok, sizeof ok, "%s.ok", file);
    FILE *f = fopen(ok, "rb");
    const size_t n = f ? fread(s, 1, sizeof s, f) : 0;
    if (f)
        fclose(f);
    CHECK(n == 56 && !memcmp(s, "HXPKOK01", 8) && !stat(file, &st) && hxf_le64(s + 16) == (uint64_t)st.st_ino &&
              hxf_le64(s + 24) == (uint64_t)st.st_size && hxf_le32(s + 52) == hxf_crc32c(0, s, 52),
          "stamp %s: %zu bytes for the file's inode and size", ok, n);
}

static void test_cache(void)
{
    const char *path = "fuzz/corpus/weights/tiny_mpnet.hxw";
    char dir[] = "/tmp/hx_cache_XXXXXX", file[512] = "", *was = getenv("HYRAX_CACHE");
    char saved[512];
    snprintf(saved, sizeof saved, "%s", was ? was : "");
    CHECK(mkdtemp(dir) != NULL, "cache folder");
    setenv("HYRAX_CACHE", dir, 1);
    for (int p = HX_PRECISION_FP32; p <= HX_PRECISION_INT8; p++) {
        float v1[8], v2[8], v3[8];
        hx_model_close(cache_open(path, (hx_precision)p, v1, 0, "first open"));
        hx_model *m = cache_open(path, (hx_precision)p, v2, 1, "second open");
        CHECK(!memcmp(v1, v2, sizeof v1), "%s: the cached block gives the same vector", hx_precision_name((hx_precision)p));
        snprintf(file, sizeof file, "%s/%.16s-%s-%s.hxp", dir, m ? hx_model_hash(m) : "", m ? m->kern->name : "",
                 m && m->k8 ? m->k8->name : "fp32");
        size_t len = m ? m->packed_map_len : 0;
        hx_model_close(m);
        stamp_check(file);
        FILE *f = fopen(file, "r+b");
        CHECK(f && len > 4096 && !fseek(f, 4096 + (long)(len - 4096) / 2, SEEK_SET) && fputc(0x5a, f) != EOF, "alter %s",
              file);
        if (f)
            fclose(f);
        hx_model_close(cache_open(path, (hx_precision)p, v3, 0, "altered file"));
        CHECK(!memcmp(v1, v3, sizeof v1), "an altered file is packed again, to the same vector");
        hx_model_close(cache_open(path, (hx_precision)p, v3, 1, "replaced file"));
    }
    if (*saved)
        setenv("HYRAX_CACHE", saved, 1);
    else
        unsetenv("HYRAX_CACHE");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "remove %s", dir);
}

int main(void)
{
    golden g;
    test_buckets();
    test_spec();
    test_catalog();
    test_tiny();
    test_cache();
    CHECK(load_golden(&g) == 0 && g.n >= 300, "golden fixtures load: %zu texts", g.n);
    /* HX_GOLDEN_STRIDE=k keeps every k-th text (emulators, tests/run.sh); a sanitizer build keeps
     * every 4th, as a 110M-parameter model runs ~20x slower there. */
    const char *stride = getenv("HX_GOLDEN_STRIDE");
    size_t k = stride && atoi(stride) > 1 ? (size_t)atoi(stride) : SANITIZED ? 4 : 1;
    if (k > 1 && g.n >= 300) {
        keep_every(&g, k);
        printf("every %zu-th golden text: %zu texts\n", k, g.n);
    }
    if (access(WEIGHTS, R_OK) != 0) {
        printf("SKIP: %s is absent (make mpnet fetches it): tokenizer and embedding checks skipped\n",
               WEIGHTS);
    } else if (getenv("HX_EMULATED")) {   /* tests/run.sh under an emulator: the tiny MPNet checked the tables */
        printf("SKIP: emulated: %s is left to native runs\n", WEIGHTS);
    } else {
        hx_error err = {0};
        hx_model *m = NULL;
        CHECK(hx_model_open(&m, WEIGHTS, &err) == 0, "open: %s", err.message);
        if (m) {
            printf("kernels: %s\n", m->kern->name);
            CHECK(hx_model_dim(m) == DIM, "dim %d", hx_model_dim(m));
            CHECK(!strcmp(hx_model_name(m), "all-mpnet-base-v2"), "name %s", hx_model_name(m));
            test_tokenizer(&g, m);
            test_fp32(&g, m);
        }
        hx_model_close(m);
        test_scalar(&g);
        test_int8(&g);
        test_int8_tables(&g);
    }
    free_golden(&g);
    return check_report("test_encoder_mpnet");
}
