/* cmd_embed.c: `hyrax embed`, the embeddings of stdin's lines, printed batch by batch as they
 * are done: its help text and run function (its options are rows of options.c). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* === embed === */

#define EMBED_BATCH 64          /* lines per forward pass */
#define EMBED_READ (1 << 20)    /* bytes asked of each read(2) */

const char embed_about[] =
    "Reads UTF-8 text from stdin, one input per line, and prints for each line one JSON array of\n"
    "floats: the L2-normalised embedding, as many floats as the model has dimensions, inputs past\n"
    "its word-piece limit truncated as sentence-transformers does ('hyrax models' lists both for\n"
    "each model). Lines are embedded in batches of up to 64 as they arrive, and each batch is\n"
    "printed as soon as it is done.\n";

/* Embeds and prints n lines, then flushes stdout so output streams batch by batch. */
static int embed_batch(hx_encoder *enc, const char **texts, const size_t *lens, size_t n, float *out,
                       int dim)
{
    hx_error err = {0};
    if (n == 0)
        return 0;
    if (hx_encoder_embed(enc, texts, lens, n, out, &err)) {
        fprintf(stderr, "hyrax embed: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (put_numbers(NULL, out + i * (size_t)dim, (size_t)dim))
            return -1;
    return fflush(stdout) ? -1 : 0;
}

int cmd_embed(const cli_args *a)
{
    int threads = (int)opt_long(a, "--threads", 0), rc;
    hx_precision precision = HX_PRECISION_FP32;
    if (precision_opt(a, &precision))
        return 2;
    hx_error err = {0};
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_model_opts mo = {opt_str(a, "--model"), precision};
    if (hx_model_open_opts(&model, &mo, &err) ||
        hx_encoder_new(&enc, model, threads, &err)) {
        fprintf(stderr, "hyrax embed: %s\n", err.message);
        hx_model_close(model);
        return 1;
    }
    const int dim = hx_model_dim(model);
    float *out = hx_malloc((size_t)EMBED_BATCH * (size_t)dim * sizeof *out);
    size_t cap = 2 * EMBED_READ, len = 0;
    char *buf = hx_malloc(cap);
    const char *texts[EMBED_BATCH];
    size_t lens[EMBED_BATCH];
    int eof = 0;
    rc = out && buf ? 0 : 1;
    if (rc)
        fputs("hyrax embed: out of memory\n", stderr);
    while (!rc && !eof) {
        if (cap - len < EMBED_READ) {   /* a line longer than the buffer: grow it */
            char *grown = cap <= ((size_t)1 << 40) ? hx_realloc(buf, cap * 2) : NULL;
            if (!grown) {
                fputs("hyrax embed: out of memory for a long line\n", stderr);
                rc = 1;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t k = read(0, buf + len, EMBED_READ);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            fprintf(stderr, "hyrax embed: reading stdin: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        eof = k == 0;
        len += (size_t)k;
        /* Every complete line (and at end of input a last unterminated one) goes out now. */
        size_t start = 0, n = 0;
        for (size_t i = 0; i < len && !rc; i++) {
            if (buf[i] != '\n' && !(eof && i + 1 == len))
                continue;
            size_t end = buf[i] == '\n' ? i : i + 1;
            texts[n] = buf + start;
            lens[n++] = end - start;
            start = i + 1;
            if (n == EMBED_BATCH) {
                rc = embed_batch(enc, texts, lens, n, out, dim);
                n = 0;
            }
        }
        if (!rc)
            rc = embed_batch(enc, texts, lens, n, out, dim);
        memmove(buf, buf + start, len - start);
        len -= start;
    }
    if (rc < 0)
        fprintf(stderr, "hyrax embed: writing stdout: %s\n", strerror(errno));
    free(buf);
    free(out);
    hx_encoder_free(enc);
    hx_model_close(model);
    return rc ? 1 : 0;
}
