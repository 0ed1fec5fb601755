/* fuzz_json.c: libFuzzer target for the JSON reader and writer (src/json.c). Any bytes either
 * fail to parse with a JSON error code and an offset inside the input, or parse, write back as
 * one line, and re-parse to an equal document that writes back to the same bytes. Also writes
 * the raw bytes as a string, which must always give valid JSON. Corpus: fuzz/corpus/json/. */
#include "json.h"

#include <stdlib.h>
#include <string.h>

static void walk(const hxi_json_val *v)
{
    hxi_json_iter it;
    const hxi_json_val *k, *x;
    int64_t i;
    double d;
    switch (hxi_json_type_of(v)) {
    case HX_JSON_NUMBER:
        hxi_json_num_int64(v, &i, NULL);
        hxi_json_num_double(v, &d, NULL);
        break;
    case HX_JSON_ARRAY:
    case HX_JSON_OBJECT:
        hxi_json_iter_init(&it, v);
        while (hxi_json_iter_next(&it, &k, &x)) {
            if (k) {
                size_t n;
                const char *s = hxi_json_str(k, &n);
                if (!s || hxi_json_obj_getn(v, s, n) != x)
                    abort();  /* keys are unique, so lookup finds this very member */
            }
            walk(x);
        }
        if (hxi_json_type_of(v) == HX_JSON_ARRAY && hxi_json_len(v) > 0 &&
            !hxi_json_arr_get(v, hxi_json_len(v) - 1))
            abort();
        break;
    default:
        break;
    }
}

static char *write_doc(const hxi_json_doc *doc, size_t *len)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_val(&w, hxi_json_doc_root(doc));
    if (hxi_json_writer_finish(&w, NULL) != 0)
        abort();
    char *out = hxi_json_writer_take(&w, len);
    if (!out || memchr(out, '\n', *len) || memchr(out, '\r', *len))
        abort();
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    hxi_json_doc *doc = NULL;
    hx_error err = {0};
    int rc = hxi_json_parse(&doc, text, size, NULL, &err);
    if (rc) {
        if (doc || err.code != rc || err.offset < 0 || (size_t)err.offset > size ||
            (rc != HX_EPARSE && rc != HX_EUTF8 && rc != HX_EDEPTH && rc != HX_ERANGE))
            abort();
    } else {
        walk(hxi_json_doc_root(doc));
        size_t n1, n2;
        char *out1 = write_doc(doc, &n1);
        hxi_json_doc *doc2 = NULL;
        if (hxi_json_parse(&doc2, out1, n1, NULL, NULL) != 0 ||
            !hxi_json_equal(hxi_json_doc_root(doc), hxi_json_doc_root(doc2)))
            abort();
        char *out2 = write_doc(doc2, &n2);
        if (n1 != n2 || memcmp(out1, out2, n1) != 0)
            abort();
        free(out1);
        free(out2);
        hxi_json_doc_free(doc2);
        hxi_json_doc_free(doc);
    }

    /* Arbitrary bytes as a string value always give valid JSON; pure ASCII comes back intact. */
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_str(&w, text, size);
    if (hxi_json_writer_finish(&w, NULL) != 0)
        abort();
    hxi_json_doc *sdoc = NULL;
    if (hxi_json_parse(&sdoc, w.buf, w.len, NULL, NULL) != 0)
        abort();
    size_t n;
    const char *s = hxi_json_str(hxi_json_doc_root(sdoc), &n);
    int ascii = 1;
    for (size_t i = 0; i < size; i++)
        ascii &= data[i] < 0x80;
    if (!s || (ascii && (n != size || memcmp(s, text, size) != 0)))
        abort();
    hxi_json_doc_free(sdoc);
    hxi_json_writer_free(&w);
    return 0;
}
