/* cmd_tokenize.c: `hyrax tokenize`, the token ids of stdin's lines as the model sees them: its
 * help text and run function (its options are rows of options.c). */
#include "cli.h"

#include <stdlib.h>

/* === tokenize === */

const char tokenize_about[] =
    "Reads UTF-8 text from stdin, one input per line (any length), and prints for each line one\n"
    "JSON array of the model's token ids: [CLS] word pieces [SEP] (<s> ... </s> for mpnet),\n"
    "truncated as the model sees them, to its longest input (256 ids for all-MiniLM-L6-v2, 384\n"
    "for all-mpnet-base-v2). Invalid UTF-8 bytes are ignored.\n";

int cmd_tokenize(const cli_args *a)
{
    hx_error err = {0};
    hx_model *model = NULL;
    hx_model_opts mo = {opt_str(a, "--model"), HX_PRECISION_FP32};
    if (hx_model_open_opts(&model, &mo, &err)) {
        fprintf(stderr, "hyrax tokenize: %s\n", err.message);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    const size_t max = (size_t)hx_model_max_tokens(model);
    int32_t *ids = malloc(max * sizeof *ids);
    if (!ids) {
        fprintf(stderr, "hyrax tokenize: out of memory\n");
        hx_model_close(model);
        return 1;
    }
    while (rc == 0 && (len = getline(&line, &cap, stdin)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            len--;
        rc = put_numbers(ids, NULL, hx_model_input_ids(model, line, (size_t)len, ids, max));
    }
    free(ids);
    free(line);
    hx_model_close(model);
    if (rc || fflush(stdout) || ferror(stdin)) {
        fprintf(stderr, "hyrax tokenize: %s failed\n", ferror(stdin) ? "reading stdin" : "writing stdout");
        return 1;
    }
    return 0;
}
