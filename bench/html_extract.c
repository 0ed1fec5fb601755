/* html_extract.c: extracts the text of HTML files as hyrax indexes them (ingest.h: detection,
 * html.c's extractor) for bench/html_bench.py, which compares it with tools/html_reference.py and
 * times both. Files are read first; only extraction is timed.
 *
 * usage: html_extract OUTDIR FILE...
 * Writes OUTDIR/<i>.txt (i from 0, in argument order): the title, a blank line, the text. Prints
 * `files=F bytes=B seconds=S failed=N` on stderr. */
#define BENCH_NAME "html_extract"
#include "bench_util.h"
#include "ingest.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: html_extract OUTDIR FILE...\n");
        return 2;
    }
    int n = argc - 2, failed = 0;
    uint8_t **raw = calloc((size_t)n, sizeof *raw);
    size_t *len = calloc((size_t)n, sizeof *len), bytes = 0;
    hxi_doc_source *docs = calloc((size_t)n, sizeof *docs);
    int *ok = calloc((size_t)n, sizeof *ok);
    if (!raw || !len || !docs || !ok)
        return 1;
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(argv[i + 2], "rb");
        if (!f || fseek(f, 0, SEEK_END) || (len[i] = (size_t)ftell(f), fseek(f, 0, SEEK_SET)) ||
            !(raw[i] = malloc(len[i] + 1)) || fread(raw[i], 1, len[i], f) != len[i]) {
            fprintf(stderr, "html_extract: cannot read %s\n", argv[i + 2]);
            return 1;
        }
        fclose(f);
        bytes += len[i];
    }
    double t0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < n; i++) {
        hx_error err = {0};
        ok[i] = hxi_ingest_from_bytes(argv[i + 2], raw[i], len[i], NULL, 0, &docs[i], &err) == 0;
        if (!ok[i]) {
            fprintf(stderr, "html_extract: %s: %s\n", argv[i + 2], err.message);
            failed++;
        }
    }
    double seconds = (clock_ms(CLOCK_PROCESS_CPUTIME_ID) - t0) / 1e3;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%d.txt", argv[1], i);
        FILE *f = fopen(path, "wb");
        if (!f)
            return 1;
        if (ok[i]) {
            fprintf(f, "%s\n\n", docs[i].title);
            fwrite(docs[i].text, 1, docs[i].text_len, f);
            hxi_doc_source_clear(&docs[i]);
        }
        fclose(f);
        free(raw[i]);
    }
    fprintf(stderr, "files=%d bytes=%zu seconds=%.6f failed=%d\n", n, bytes, seconds, failed);
    free(raw);
    free(len);
    free(docs);
    free(ok);
    return 0;
}
