/* inflate_bench.c: decompression speed of hxi_inflate (src/base/inflate.c) on zlib streams, for
 * bench/inflate_peers.py, which runs Python's zlib and pigz on the same files in the same run.
 * Usage: bench/inflate_bench FILE.zz...  prints `name output_bytes seconds` per file, best of 5.
 * Not part of the library. */
#define BENCH_NAME "inflate_bench"
#include "bench_util.h"

#include "inflate.h"

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *in = malloc(n > 0 ? (size_t)n : 1);
        if (!in || fread(in, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        fclose(f);
        double best = 1e30;
        size_t out_len = 0;
        for (int r = 0; r < 5; r++) {
            uint8_t *out;
            hx_error err = {0};
            double t0 = clock_ms(CLOCK_MONOTONIC);
            int rc = hxi_inflate(in, (size_t)n, HX_INFLATE_ZLIB, (size_t)1 << 32, 0, &out, &out_len, NULL, &err);
            double ms = clock_ms(CLOCK_MONOTONIC) - t0;
            if (rc)
                die(argv[i], &err);
            free(out);
            best = ms < best ? ms : best;
        }
        printf("%s %zu %.6f\n", argv[i], out_len, best / 1e3);
        free(in);
    }
    return 0;
}
