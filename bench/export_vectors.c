/* export_vectors.c: writes the chunk embeddings of a hyrax index as a raw float32 file, and the
 * document titles as text, so that bench/hnsw_peers.py can compare HNSW engines on real MiniLM
 * vectors (`hnsw_peers.py gen --index FILE`). Reads the index; writes only its two outputs.
 *
 * usage: export_vectors INDEX VECTORS.f32 TITLES.txt
 * VECTORS.f32: every live chunk's L2-normalised vector (dim float32 each), documents in path
 * order, chunks in order. TITLES.txt: one line per document with a title (newlines in a title
 * become spaces). Prints `vectors=N dim=D titles=T` on stdout. */
#include "hyrax.h"

#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, const hx_error *err)
{
    fprintf(stderr, "export_vectors: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: export_vectors INDEX VECTORS.f32 TITLES.txt\n");
        return 2;
    }
    hx_error err = {0};
    hx_index *ix = NULL;
    if (hx_index_open(&ix, argv[1], HX_INDEX_READ, NULL, NULL, &err))
        return fail(argv[1], &err);
    hx_index_stats st;
    if (hx_index_stats_get(ix, &st, &err))
        return fail(argv[1], &err);
    FILE *vf = fopen(argv[2], "wb"), *tf = fopen(argv[3], "w");
    float *vec = malloc(sizeof *vec * (size_t)st.dim);
    if (!vf || !tf || !vec) {
        perror("export_vectors");
        return 1;
    }
    size_t n_vectors = 0, n_titles = 0;
    for (size_t i = 0; i < hx_index_doc_count(ix); i++) {
        hx_doc_info d;
        if (hx_index_doc_at(ix, i, &d)) {
            fprintf(stderr, "export_vectors: cannot read document %zu\n", i);
            return 1;
        }
        if (d.title && d.title[0]) {
            for (const char *c = d.title; *c; c++)
                fputc(*c == '\n' || *c == '\r' ? ' ' : *c, tf);
            fputc('\n', tf);
            n_titles++;
        }
        for (uint32_t c = d.first_chunk; c < d.first_chunk + d.n_chunks; c++) {
            if (hx_index_chunk_vector(ix, c, vec, &err))
                return fail(d.path, &err);
            if (fwrite(vec, sizeof *vec, (size_t)st.dim, vf) != (size_t)st.dim) {
                perror(argv[2]);
                return 1;
            }
            n_vectors++;
        }
    }
    if (fclose(vf) || fclose(tf)) {
        perror("export_vectors");
        return 1;
    }
    printf("vectors=%zu dim=%d titles=%zu\n", n_vectors, st.dim, n_titles);
    free(vec);
    hx_index_close(ix);
    return 0;
}
