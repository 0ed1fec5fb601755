/* fuzz_zip.c: libFuzzer target for the ZIP reader (src/base/zip.c): opens the input as an archive
 * under small limits and reads every entry. Each call must answer 0 or a code with a message and
 * an offset inside the input, never crash, read past the input or read more than the limits
 * allow. Corpus: fuzz/corpus/zip/. */
#include "zip.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *in = malloc(size ? size : 1);   /* an exact-size copy, so a read past the end is caught */
    if (!in)
        return 0;
    memcpy(in, data, size);
    hxi_zip_limits lim = {64, 256, 1 << 20, 4 << 20, 200};
    hxi_zip z;
    hx_error err = {0};
    int rc = hxi_zip_open(&z, in, size, &lim, &err);
    if (rc && (err.code != rc || !err.message[0] || err.offset < -1 || err.offset > (int64_t)size))
        abort();
    uint64_t total = 0;
    for (size_t i = 0; !rc && i < z.count; i++) {
        uint8_t *out = NULL;
        size_t len = 0;
        memset(&err, 0, sizeof err);
        int r = hxi_zip_read(&z, &z.entries[i], &out, &len, &err);
        if (r ? err.code != r || !err.message[0] || out : !out || len != z.entries[i].usize || out[len])
            abort();
        total += len;
        free(out);
    }
    if (total > lim.max_total)
        abort();
    if (!rc)
        hxi_zip_close(&z);
    free(in);
    return 0;
}
