/* export_vectors.c: writes the chunk embeddings of a hyrax index as a raw float32 file, and the
 * document titles as text, so that bench/hnsw_peers.py can compare HNSW engines on real MiniLM
 * vectors (`hnsw_peers.py gen --index FILE`); with a fourth argument also every chunk's text and
 * document, so that bench/seed002_stack.py builds seed 002's store from the very chunks and
 * vectors of the index (`seed002_stack.py --from-export`, for bench/http_bench.py). Reads the
 * index; writes only its outputs.
 *
 * usage: export_vectors INDEX VECTORS.f32 TITLES.txt [CHUNKS.jsonl]
 * VECTORS.f32: every live chunk's L2-normalised vector (dim float32 each), documents in path
 * order, chunks in order. TITLES.txt: one line per document with a title (newlines in a title
 * become spaces). CHUNKS.jsonl: one JSON object per vector, in the same order:
 * {"path", "title", "chunk_index", "size", "text"} (size: the document's bytes). Prints
 * `vectors=N dim=D titles=T` on stdout. */
#include "hyrax.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, const hx_error *err)
{
    fprintf(stderr, "export_vectors: %s: %s\n", what, err->message);
    return 1;
}

/* One line of CHUNKS.jsonl for chunk c of document d. */
static int write_chunk(FILE *f, hx_index *ix, const hx_doc_info *d, uint32_t c, hxi_json_writer *w, hx_error *err)
{
    hx_result r;
    if (hx_index_chunk(ix, c, &r, err))
        return -1;
    hxi_json_writer_reset(w);
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "path");
    hxi_json_write_cstr(w, d->path);
    hxi_json_write_key(w, "title");
    hxi_json_write_cstr(w, d->title ? d->title : "");
    hxi_json_write_key(w, "chunk_index");
    hxi_json_write_uint(w, r.chunk_index);
    hxi_json_write_key(w, "size");
    hxi_json_write_uint(w, d->size);
    hxi_json_write_key(w, "text");
    hxi_json_write_str(w, r.text, r.text_len);
    hxi_json_write_obj_end(w);
    if (hxi_json_writer_finish(w, err))
        return -1;
    return fwrite(w->buf, 1, w->len, f) == w->len && fputc('\n', f) != EOF ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: export_vectors INDEX VECTORS.f32 TITLES.txt [CHUNKS.jsonl]\n");
        return 2;
    }
    hx_error err = {0};
    hx_index *ix = NULL;
    if (hx_index_open(&ix, argv[1], HX_INDEX_READ, NULL, NULL, &err))
        return fail(argv[1], &err);
    hx_index_stats st;
    if (hx_index_stats_get(ix, &st, &err))
        return fail(argv[1], &err);
    FILE *vf = fopen(argv[2], "wb"), *tf = fopen(argv[3], "w"), *cf = argc == 5 ? fopen(argv[4], "w") : NULL;
    float *vec = malloc(sizeof *vec * (size_t)st.dim);
    if (!vf || !tf || !vec || (argc == 5 && !cf)) {
        perror("export_vectors");
        return 1;
    }
    hxi_json_writer w;
    hxi_json_writer_init(&w);
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
            if (cf && write_chunk(cf, ix, &d, c, &w, &err))
                return fail(d.path, &err);
            n_vectors++;
        }
    }
    if (fclose(vf) || fclose(tf) || (cf && fclose(cf))) {
        perror("export_vectors");
        return 1;
    }
    printf("vectors=%zu dim=%d titles=%zu\n", n_vectors, st.dim, n_titles);
    hxi_json_writer_free(&w);
    free(vec);
    hx_index_close(ix);
    return 0;
}
