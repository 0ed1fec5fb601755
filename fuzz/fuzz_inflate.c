/* fuzz_inflate.c: libFuzzer target for src/base/inflate.c. The first byte picks the wrapper (raw
 * or zlib) and partial output; the rest is the stream, inflated under a 1 MiB limit. Each call
 * must answer 0 or a documented code with a message and an offset inside the input, never crash,
 * read past the input or write past the limit. Corpus: fuzz/corpus/inflate/. */
#include "inflate.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    int flags = (data[0] & 1 ? HX_INFLATE_ZLIB : HX_INFLATE_RAW) | (data[0] & 2 ? HX_INFLATE_PARTIAL : 0);
    size_t n = size - 1, limit = data[0] & 4 ? 1000 : 1 << 20;
    uint8_t *in = malloc(n ? n : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!in)
        return 0;
    for (size_t i = 0; i < n; i++)
        in[i] = data[i + 1];
    uint8_t *out = NULL;
    size_t len = 0, used = 0;
    hx_error err = {0};
    int rc = hxi_inflate(in, n, flags, limit, 0, &out, &len, &used, &err);
    if (len > limit || used > n)
        abort();
    if (rc && (err.code != rc || !err.message[0] || err.offset < -1 || err.offset > (int64_t)n))
        abort();
    if (rc && rc != HX_EFORMAT && rc != HX_ETRUNCATED && rc != HX_ERANGE && rc != HX_ECHECKSUM && rc != HX_ENOMEM)
        abort();
    if (!rc && !out)
        abort();
    free(out);
    free(in);
    return 0;
}
