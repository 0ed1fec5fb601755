/* doc_extract_bench.c: extracts documents through the table of document types (src/formats/doctype.h)
 * as ingest does, for the agreement and speed benchmarks (bench/office_agreement.py). Usage:
 *   bench/doc_extract_bench OUTDIR FILE...
 * writes OUTDIR/<file name>.txt (the text, blocks separated by blank lines) and prints one line a
 * file: `name type bytes seconds ok|error-message`, best of 3 runs. Not part of the library. */
#define BENCH_NAME "doc_extract_bench"
#include "bench_util.h"

#include "doctype.h"

#include <sys/stat.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: doc_extract_bench OUTDIR FILE...\n");
        return 2;
    }
    mkdir(argv[1], 0755);
    for (int i = 2; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            printf("%s - 0 0 cannot open\n", argv[i]);
            continue;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *raw = malloc(n > 0 ? (size_t)n : 1);
        if (!raw || fread(raw, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        fclose(f);
        const hxi_doctype *t = hxi_doctype_detect(argv[i], raw, (size_t)n);
        double best = 1e30;
        hxi_extract x = {0};
        hx_error err = {0};
        int rc = 0;
        for (int r = 0; r < 3; r++) {
            hxi_extract_clear(&x);
            double t0 = clock_ms(CLOCK_MONOTONIC);
            rc = hxi_extract_init(&x, (size_t)n, &err);
            if (!rc)
                rc = t->extract(raw, (size_t)n, &x, &err);
            double ms = clock_ms(CLOCK_MONOTONIC) - t0;
            best = ms < best ? ms : best;
        }
        const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.txt", argv[1], base);
        FILE *o = fopen(path, "wb");
        if (o) {
            if (!rc)
                fwrite(x.text, 1, x.len, o);
            fclose(o);
        }
        printf("%s %s %ld %.6f %s\n", base, t->name, n, best / 1e3, rc ? err.message : "ok");
        hxi_extract_clear(&x);
        free(raw);
    }
    return 0;
}
