/* chunks_bench.c: writes the chunks hyrax would embed for a folder of documents, one per line, so that
 * bench/embed.py times hyrax and its peers on a real ingest's inputs (its "KEP ingest" row). Walks,
 * reads and chunks exactly as `hyrax index` does (src/index/ingest.h, chunker.h: every chunk is its
 * contextual header, a newline and its body); changes nothing on disk.
 *
 * usage: chunks_bench ROOT N [STRIDE] [WEIGHTS]
 * Takes every STRIDE-th file (default 60) of the walk's sorted list, all of its chunks, until N
 * chunks are out. Line breaks and tabs in a chunk become spaces (the tokenizers split on them
 * alike, so the token ids do not change). Prints `files=F chunks=C tokens=T` on stderr; T counts
 * model tokens, [CLS] and [SEP] included. */
#define BENCH_NAME "chunks_bench"
#include "bench_util.h"
#include "chunker.h"
#include "ingest.h"
#include "model.h"

#include <limits.h>

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: chunks_bench ROOT N [STRIDE] [WEIGHTS]\n");
        return 2;
    }
    const long want = atol(argv[2]), stride = argc > 3 ? atol(argv[3]) : 60;
    if (want < 1 || stride < 1) {
        fprintf(stderr, "chunks_bench: N and STRIDE must be positive\n");
        return 2;
    }
    hx_error err = {0};
    char root[PATH_MAX];
    if (!realpath(argv[1], root)) {
        perror(argv[1]);
        return 1;
    }
    hx_model *m;
    if ((argc > 4 ? hx_model_open(&m, argv[4], &err) : hx_model_open_default(&m, &err)) < 0)
        die("model", &err);
    hxi_file_list files = {0};
    const char *all = "";
    if (hxi_ingest_walk(root, &all, 1, NULL, 0, NULL, &files, &err) < 0)
        die(root, &err);
    long chunks = 0, tokens = 0, used = 0;
    for (size_t i = 0; i < files.n && chunks < want; i += (size_t)stride) {
        hxi_doc_source doc = {0};
        if (hxi_ingest_load(root, files.paths[i], hxi_file_list_real(&files, i), HX_MAX_FILE_BYTES, &doc,
                            &err) < 0) {
            fprintf(stderr, "chunks_bench: skipped %s: %s\n", files.paths[i], err.message);
            continue;
        }
        hxi_chunk *c;
        size_t n;
        if (hxi_chunk_document(hxi_model_tokenizer(m), doc.title, doc.type, doc.text, doc.text_len, NULL, &c, &n,
                               &err) < 0)
            die(files.paths[i], &err);
        used++;
        for (size_t j = 0; j < n && chunks < want; j++, chunks++) {
            for (char *p = c[j].text; *p; p++)
                if (*p == '\n' || *p == '\r' || *p == '\t')
                    *p = ' ';
            puts(c[j].text);
            tokens += c[j].n_tokens;
        }
        hxi_chunks_free(c, n);
        hxi_doc_source_clear(&doc);
    }
    fprintf(stderr, "files=%ld chunks=%ld tokens=%ld\n", used, chunks, tokens);
    hxi_file_list_clear(&files);
    hx_model_close(m);
    return 0;
}
