/* fuzz_tokenizer.c: arbitrary bytes into hxi_tokenize, hxi_tokenize_head and hxi_tokenize_for_model.
 * Checks the invariants that hold for any input (counts agree across caps, ids in range, spans
 * inside the input and ordered, [CLS]/[SEP] framing and truncation) and traps on a violation. The
 * vocabulary is loaded once from weights/all-minilm-l6-v2.hxw, relative to the repository root (run
 * from there: `make test` replays fuzz/corpus/tokenizer; see the Makefile for libFuzzer runs). */
#include "hxfile.h"
#include "tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WEIGHTS_PATH "weights/" HX_WEIGHTS_FILE

static hxi_tokenizer *load(void)
{
    hx_error err = {0};
    hxf_map map;
    hxf_view v;
    hxi_tokenizer *t = NULL;
    if (hxf_map_open(&map, WEIGHTS_PATH, &err) == 0) {
        if (hxf_parse(map.addr, map.size, HXF_KIND_WEIGHTS, &v, &err) == 0) {
            const hxf_section *s = hxf_find(&v, "vocab");
            if (!s)
                hx_error_set(&err, HX_ENOTFOUND, -1, "no vocab section");
            else
                hxi_tokenizer_new(&t, (const char *)s->data, s->length, &err);
            hxf_view_free(&v);
        }
        hxf_map_close(&map);
    }
    if (!t) {
        fprintf(stderr, "fuzz_tokenizer: %s: %s (run from the repository root)\n", WEIGHTS_PATH,
                err.message);
        abort();
    }
    return t;
}

#define REQUIRE(c)              \
    do {                        \
        if (!(c))               \
            __builtin_trap();   \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hxi_tokenizer *t;
    if (!t)
        t = load();
    const char *text = (const char *)data;
    size_t vocab = hxi_tokenizer_vocab_size(t);

    size_t n = hxi_tokenize(t, text, size, NULL, NULL, 0);
    int32_t *ids = malloc((n + 1) * sizeof *ids);
    uint32_t *spans = malloc((n + 1) * 2 * sizeof *spans);
    REQUIRE(ids && spans);
    REQUIRE(hxi_tokenize(t, text, size, ids, spans, n) == n);
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        REQUIRE(ids[i] >= 0 && (size_t)ids[i] < vocab);
        REQUIRE(spans[2 * i] < spans[2 * i + 1] && spans[2 * i + 1] <= size);
        REQUIRE(spans[2 * i] >= prev);
        prev = spans[2 * i];
    }
    /* A smaller cap writes a prefix of the same ids and still returns the full count. */
    size_t cap = size ? data[0] % 8 : 0;
    int32_t small[8];
    REQUIRE(hxi_tokenize(t, text, size, small, NULL, cap) == n);
    REQUIRE(!memcmp(small, ids, (cap < n ? cap : n) * sizeof *ids));
    /* hxi_tokenize_head stops once cap pieces are known: the same first ids, the total below cap. */
    size_t head = hxi_tokenize_head(t, text, size, small, NULL, cap);
    REQUIRE(head <= n && (head >= cap || head == n));
    REQUIRE(!memcmp(small, ids, (cap < n ? cap : n) * sizeof *ids));

    int32_t model[HX_MAX_SEQ_TOKENS];
    size_t max = size > 1 ? 2 + data[1] % (HX_MAX_SEQ_TOKENS - 1) : HX_MAX_SEQ_TOKENS;
    size_t k = hxi_tokenize_for_model(t, text, size, model, max);
    REQUIRE(k == (n + 2 < max ? n + 2 : max));
    REQUIRE(model[0] == hxi_tokenizer_cls(t) && model[k - 1] == hxi_tokenizer_sep(t));
    REQUIRE(!memcmp(model + 1, ids, (k - 2) * sizeof *ids));
    free(ids);
    free(spans);
    return 0;
}
