/* fuzz_bm25.c: libFuzzer target for the BM25 module (src/bm25.h): the segment reader and search
 * over untrusted bytes, and the query parser, search and snippets over untrusted query text.
 * The first input byte picks the mode: even = bytes are a serialized segment; odd = bytes after
 * the first are documents (lines) up to a NUL, then a query. Corpus: fuzz/corpus/bm25/. */
#include "bm25.h"

#include <stdlib.h>
#include <string.h>

static const char *QUERIES[] = {"pods", "+kube-scheduler nodes -api", "\"api server\" sched*", "a* b* c*"};

static void search_all(const hxi_bm25_reader *r, const char *qtext, size_t qlen)
{
    hxi_bm25_query *q;
    if (hxi_bm25_query_parse(&q, HX_ANALYZER_EXACT, qtext, qlen, NULL))
        return;
    hxi_bm25_segment seg = {.reader = r};
    hxi_bm25_hit hits[10];
    size_t n;
    hxi_bm25_params p;
    hxi_bm25_params_default(&p);
    hxi_bm25_search(&seg, 1, q, &p, 10, hits, &n, NULL);
    p.exhaustive = 1;
    hxi_bm25_search(&seg, 1, q, &p, 3, hits, &n, NULL);
    hxi_bm25_query_free(q);
}

static void fuzz_segment(const uint8_t *data, size_t size)
{
    hxi_bm25_reader r;
    if (hxi_bm25_reader_open(&r, data, size, NULL))
        return;
    hxi_bm25_reader_check(&r, NULL);
    for (size_t i = 0; i < sizeof QUERIES / sizeof QUERIES[0]; i++)
        search_all(&r, QUERIES[i], strlen(QUERIES[i]));
}

static void fuzz_text(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *nul = memchr(s, 0, size);
    size_t docs_len = nul ? (size_t)(nul - s) : 0;
    const char *qtext = nul ? nul + 1 : s;
    size_t qlen = size - (size_t)(qtext - s);
    if (docs_len == 0) {
        s = "the kube-scheduler assigns pods\nsig-api-machinery owns the api server\nrestartPolicy Always";
        docs_len = strlen(s);
    }
    hxi_bm25_builder *b;
    if (hxi_bm25_builder_new(&b, HX_ANALYZER_EXACT, NULL))
        return;
    uint32_t id = 0;
    for (size_t at = 0; at <= docs_len && id < 64;) {
        const char *nl = memchr(s + at, '\n', docs_len - at);
        size_t end = nl ? (size_t)(nl - s) : docs_len;
        hxi_bm25_builder_add(b, id * 7 % 64, s + at, end - at, NULL);
        id++;
        at = end + 1;
    }
    uint8_t *blob;
    size_t len;
    if (hxi_bm25_builder_finish(b, &blob, &len, NULL) == 0) {
        hxi_bm25_reader r;
        /* The builder's own output must always validate. */
        if (hxi_bm25_reader_open(&r, blob, len, NULL) || hxi_bm25_reader_check(&r, NULL))
            abort();
        search_all(&r, qtext, qlen);
        free(blob);
    }
    hxi_bm25_builder_free(b);
    hxi_bm25_query *q;
    if (hxi_bm25_query_parse(&q, HX_ANALYZER_EXACT, qtext, qlen, NULL) == 0) {
        char *out;
        size_t n;
        if (hxi_snippet_make(s, docs_len, q, 1 + qlen % 300, &out, &n, NULL) == 0)
            free(out);
        hxi_bm25_query_free(q);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 0)
        fuzz_segment(data + 1, size - 1);
    else
        fuzz_text(data + 1, size - 1);
    return 0;
}
