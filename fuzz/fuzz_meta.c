/* fuzz_meta.c: libFuzzer target for metadata text: the YAML subset (yaml.h) and the filter parsers
 * (filter.h). Any bytes go through hxi_yaml_pairs, whose pairs must keep yaml.h's limits (a
 * non-empty key of at most HX_YAML_KEY_MAX bytes, a value of at most HX_YAML_VALUE_MAX), through
 * hx_filter_parse_arg (then matched against a document carrying the YAML's pairs) and, when they
 * parse as JSON, through hxi_filter_parse_json. Nothing may crash, leak or break a limit.
 * Corpus: fuzz/corpus/meta/. */
#include "filter.h"
#include "yaml.h"

#include <stdlib.h>
#include <string.h>

#define PAIRS 64

typedef struct {
    hx_kv kv[PAIRS];
    char text[PAIRS][2][HX_YAML_VALUE_MAX + 1];
    size_t n;
} sink;

static int pair(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted)
{
    sink *s = ctx;
    (void)quoted;
    if (klen == 0 || klen > HX_YAML_KEY_MAX || vlen > HX_YAML_VALUE_MAX || memchr(key, '\n', klen))
        abort();
    if (s->n < PAIRS) {
        memcpy(s->text[s->n][0], key, klen);
        s->text[s->n][0][klen] = 0;
        memcpy(s->text[s->n][1], val, vlen);
        s->text[s->n][1][vlen] = 0;
        s->kv[s->n] = (hx_kv){s->text[s->n][0], s->text[s->n][1]};
        s->n++;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sink s;
    s.n = 0;
    if (hxi_yaml_pairs((const char *)data, size, pair, &s))
        abort();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    hx_doc_info d = {.path = "a/b/c.md", .type = "markdown", .title = "", .meta = s.kv, .n_meta = s.n,
                     .mtime_ns = 1, .indexed_ns = 2};
    hx_filter_set fs = {0};
    hx_error err;
    if (strlen(text) == size && hx_filter_parse_arg(&fs, text, &err) == 0)
        hx_doc_matches(&d, fs.v, fs.n);
    hxi_json_doc *doc = NULL;
    if (hxi_json_parse(&doc, text, size, NULL, NULL) == 0) {
        if (hxi_filter_parse_json(&fs, hxi_json_doc_root(doc), &err) == 0)
            hx_doc_matches(&d, fs.v, fs.n);
        hxi_json_doc_free(doc);
    }
    for (size_t i = 0; i < s.n; i++) {
        double x;
        int64_t ns;
        bool day;
        hxi_meta_number(s.kv[i].value, &x);
        hxi_meta_date(s.kv[i].value, &ns, &day);
    }
    hx_filter_set_free(&fs);
    free(text);
    return 0;
}
