/* model.h: internals shared by model.c (loading the weights file) and encoder.c (the forward
 * pass). Owns the in-memory model; the weights layout is specified in tools/convert_weights.py,
 * the container in hxfile.h. Not part of the public API (include/hyrax.h). */
#ifndef HX_MODEL_H
#define HX_MODEL_H

#include "hxfile.h"
#include "hyrax.h"
#include "kernels.h"
#include "pool.h"
#include "tokenizer.h"

#include <stdbool.h>
#include <stdint.h>

/* Limits on any weights file this build accepts (tiny synthetic models included). */
#define HX_MODEL_MAX_VOCAB (1 << 20)
#define HX_MODEL_MAX_HIDDEN HX_EMBED_DIM_MAX
#define HX_MODEL_MAX_HEADS 64
#define HX_MODEL_MAX_LAYERS 64
#define HX_MODEL_MAX_FFN 16384
#define HX_MODEL_MAX_POS 8192
#define HX_MODEL_MAX_TYPES 64
#define HX_MODEL_MAX_SEQ 512
#define HX_MODEL_CONFIG_LEN 12   /* u32 entries of a BERT "config" section */
#define HX_MODEL_CONFIG_LEN_EXT 16   /* ... of one with position offset and relative attention */
#define HX_MODEL_MAX_BUCKETS 256

/* Architectures (config entry 11). */
enum hxi_arch {
    HX_ARCH_BERT = 0,            /* all-MiniLM-L6-v2 */
    HX_ARCH_MPNET = 1,           /* all-mpnet-base-v2: relative attention bias, position offset */
};

typedef struct hxi_model_config {
    int vocab, hidden, layers, heads, ffn, max_pos, type_vocab, max_seq;
    float eps;                   /* LayerNorm epsilon */
    int arch;                    /* enum hxi_arch */
    int pos_offset;              /* position-embedding row of token 0 (MPNet: 2) */
    int rel_buckets, rel_max_dist;  /* relative attention (MPNet: 32, 128); 0: none */
} hxi_model_config;

/* Weights at int8 (kernels.h "int8") for some output channels of a Linear layer, in the model's
 * `packed` block. */
typedef struct hxi_qmat {
    const int8_t *w;             /* packed int8 [N x K] */
    const float *wscale;         /* [N] per output channel */
    const int32_t *wsum;         /* [N] sums of the packed weights */
    const float *xinv;           /* [K] 1 / the smoothing of each input channel, or NULL (model.c) */
} hxi_qmat;

/* A Linear layer at int8: its output channels in `parts` equal parts (QKV: query, key, value), each
 * with its own smoothing and so its own quantization of the input. parts = 0: it runs in float.
 * fine: the input's rounding error (each row's value less its 8-bit approximation) is quantized per
 * row too and multiplied by the same int8 weights in a second gemm added to the first, so the input
 * keeps about 16 bits at twice the integer work (model.c chooses the layers). */
#define HX_I8_MAX_PARTS 3
typedef struct hxi_qlinear {
    int parts;
    int fine;
    hxi_qmat part[HX_I8_MAX_PARTS];
} hxi_qlinear;

/* One encoder layer. Matrices are packed for the model's kernel table (owned by the model's
 * `packed` block); vectors point into the weights map. Each Linear layer has either its float
 * packing (*_w) or, in an int8 model, its int8 one (*_q); the other is NULL (0 parts). */
typedef struct hxi_layer {
    const float *qkv_w;          /* packed [3*hidden x hidden]: query, key, value rows */
    const float *qkv_b;          /* [3*hidden] */
    const float *o_w;            /* packed [hidden x hidden] */
    const float *o_b;            /* [hidden] */
    const float *ln1_w, *ln1_b;  /* [hidden] */
    const float *ffn1_w;         /* packed [ffn x hidden] */
    const float *ffn1_b;         /* [ffn] */
    const float *ffn2_w;         /* packed [hidden x ffn] */
    const float *ffn2_b;         /* [hidden] */
    const float *ln2_w, *ln2_b;  /* [hidden] */
    hxi_qlinear qkv_q, o_q, ffn1_q, ffn2_q;
} hxi_layer;

struct hx_model {
    hxf_map map;                 /* owned when opened from a path; empty for a borrowed buffer */
    hxf_view view;               /* sections point into the map or the borrowed buffer */
    const hxi_kernels *kern;      /* static table the weights are packed for */
    const hxi_kernels_i8 *k8;     /* static int8 table (hxi_kernels_i8_get()); NULL at fp32 */
    hx_precision precision;
    hxi_model_config cfg;
    size_t i8_row_values;        /* int8: quantized input values one row of the forward pass needs,
                                  * the most over Linear layers of parts x roundup(K, 4); else 0 */
    size_t i8_fine_values;       /* the same over the fine Linear layers (hxi_qlinear.fine); 0: none */
    const uint16_t *word_emb;    /* [vocab x hidden] fp16, in the map; rows converted on use */
    float *pos_type;             /* owned, [max_seq x hidden]: position + token type 0; with a
                                  * position offset [max_seq + 1 x hidden], row 0 the padding
                                  * position (encoder.c forward) */
    float *rel;                  /* owned, [heads x (2 max_seq - 1)]: relative attention bias of
                                  * key - query = d at [h][d + max_seq - 1], or NULL: none */
    const float *emb_ln_w, *emb_ln_b;  /* [hidden] */
    hxi_layer *layers;            /* owned, [layers] */
    uint8_t *packed;             /* owned (mmap, packed_len bytes), every packed matrix; or into */
    size_t packed_len;
    uint8_t *packed_map;         /* owned: the cache file mapped read-only (pack_cache.c), or NULL */
    size_t packed_map_len;
    bool cached;                 /* whether the packed-weights cache serves (models opened by path or
                                  * built in; not buffers from tests and fuzzers) */
    hxi_tokenizer *tok;           /* owned */
    char name[64];
    char hash[65];               /* hx_model_hash: SHA-256 hex of the header and section table */
};

/* Bucket of relative position d = key - query, as HF MPNetEncoder.relative_position_bucket
 * (bidirectional: half the buckets for keys after the query). */
int hxi_model_rel_bucket(int d, int buckets, int max_dist);

/* Where the model that name_or_file names lives (catalog.c): NULL = the default model; a name from
 * the catalog (hx_model_info's alias or name) = its weights file in the places hx_model_find
 * searches; else a file path. *blob is set (and path left empty) when the weights linked into the
 * binary serve (`make static`), else NULL and path holds the file. */
int hxi_model_locate(const char *name_or_file, char *path, size_t cap, const uint8_t **blob, size_t *blob_len,
                     hx_error *err);

/* The packed-weights cache (pack_cache.c): m's packed block of len bytes from its cache file,
 * mapped read-only (*packed into *map of *map_len bytes, unmapped by the caller): 0, or -1 when
 * there is none that checks out (off, missing, another build's, corrupt). */
int hxi_pack_cache_map(const hx_model *m, size_t len, uint8_t **packed, uint8_t **map, size_t *map_len);
/* Writes m's packed block (len bytes) to its cache file; best effort, silent. */
void hxi_pack_cache_store(const hx_model *m, const uint8_t *packed, size_t len);

/* The numeric recipe of m's precision beyond its name, weights and precision, into buf (cap >=
 * HXI_RECIPE_MAX): the int8 recipe of its architecture (model.c int8_recipe), or "" for fp32 and
 * for the plain int8 recipe (the one int8 models had before recipes). Embedding keys hold it
 * (index reuse.c), so vectors of another recipe are embedded again, not reused. */
#define HXI_RECIPE_MAX 96
void hxi_model_recipe(const hx_model *m, char *buf, size_t cap);

/* The model's tokenizer, for the index layer's chunker; borrowed until hx_model_close. */
const hxi_tokenizer *hxi_model_tokenizer(const hx_model *m);

/* Opens `path` at `precision` with the given kernel table (tests use the scalar one, and compare
 * tables); hx_model_open uses hxi_kernels_get(). An int8 model gets hxi_kernels_i8_get()'s table in
 * m->k8, which a test may replace before it creates an encoder. */
int hxi_model_open_with(hx_model **out, const char *path, const hxi_kernels *kern, hx_precision precision,
                        hx_error *err);

/* Same from a weights file in memory (fuzzing, tests); `buf` must be 16-byte aligned (as malloc
 * gives) and is borrowed: it must outlive the model. */
int hxi_model_open_buffer(hx_model **out, const uint8_t *buf, size_t size, const hxi_kernels *kern,
                          hx_error *err);
/* Same at a given precision. */
int hxi_model_open_buffer_at(hx_model **out, const uint8_t *buf, size_t size, const hxi_kernels *kern,
                             hx_precision precision, hx_error *err);

/* Encoder whose batches hold at most max_rows tokens (>= the model's max_seq); 0 = default. */
int hxi_encoder_new_rows(hx_encoder **out, const hx_model *m, int n_threads, int max_rows,
                         hx_error *err);

/* The encoder's own pool (borrowed until hx_encoder_free), for its job counts in tests. */
const hxi_pool *hxi_encoder_pool(const hx_encoder *e);
/* The model the encoder runs (borrowed): what its vectors are keyed by when reused (index reuse.c). */
const hx_model *hxi_encoder_model(const hx_encoder *e);

#endif
