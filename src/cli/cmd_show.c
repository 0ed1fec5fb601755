/* cmd_show.c: `hyrax show PATH`, one document of the index -- its metadata, its chunks and how to
 * cite it -- through the session (hx_session_get, as get_document reads it): its help text and
 * run function. */
#include "cli.h"

#include <string.h>

const char show_about[] =
    "Prints one document of the index: path, title, type, size, times, version (SHA-256 of its\n"
    "bytes), trust, its metadata (the keys --filter takes), the citation an answer gives for it, and\n"
    "its chunks (id, lines or, for a PDF, PPTX or ODP, pages, heading, and the metadata of the unit\n"
    "it is text of: a code definition's, a model element's); --text adds each chunk's text. PATH\n"
    "is root-relative or a path on disk inside the indexed root. A PATH the index does not hold is\n"
    "an error (exit 1).\n";

/* A label in the first 12 columns. */
static void label(const char *l)
{
    printf("%-12s", l);
}

/* The text of a chunk, each of its lines indented, escaped. */
static void put_body(const char *text, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t n = 0;
        while (i + n < len && text[i + n] != '\n')
            n++;
        fputs("    ", stdout);
        put_text(stdout, text + i, n, true);
        putchar('\n');
        i += n + 1;
    }
}

/* Reads and prints under guarded(): the strings are read from the index file while printing. */
static int run_show(void *arg)
{
    const session_job *j = arg;
    hx_session_doc d;
    hx_error err = {0};
    if (hx_session_get(j->s, -1, j->a->operands[0], NULL, true, &d, &err)) {
        put_line(stderr, "hyrax show: ", err.message);
        return 1;
    }
    static const char *const vis[] = {"public", "tenant", "private"};
    const hx_doc_info *x = &d.info;
    char indexed[40], mtime[40];
    hx_time_format(x->indexed_ns, indexed, sizeof indexed);
    hx_time_format(x->mtime_ns, mtime, sizeof mtime);
    label("path");
    term_style(stdout, "1;35");
    put_text(stdout, x->path, SIZE_MAX, false);
    term_style(stdout, NULL);
    putchar('\n');
    label("title");
    put_line(stdout, "", x->title);
    label("type");
    printf("%s%s (%s)\n", x->type, x->kind == HX_DOC_STORED ? ", stored" : "", x->encoding);
    label("size");
    printf("%llu %s, %llu %s\n", (unsigned long long)x->size, plural(x->size, "byte", "bytes"),
           (unsigned long long)x->tokens, plural(x->tokens, "token", "tokens"));
    label("indexed");
    printf("%s\n", indexed);
    label("modified");
    printf("%s\n", mtime);
    label("version");
    printf("sha256 %s\n", x->sha256);
    label("trust");
    printf("%s", (unsigned)x->trust.visibility < 3 ? vis[x->trust.visibility] : "?");
    if (*x->trust.tenant) {
        fputs(", tenant ", stdout);
        put_text(stdout, x->trust.tenant, 200, false);
    }
    if (*x->trust.owner) {
        fputs(", owner ", stdout);
        put_text(stdout, x->trust.owner, 200, false);
    }
    if (*x->trust.signer) {
        fputs(", signed by ", stdout);
        put_text(stdout, x->trust.signer, 200, false);
    }
    putchar('\n');
    for (size_t i = 0; i < x->n_meta; i++) {
        label(i ? "" : "metadata");
        put_text(stdout, x->meta[i].key, 200, false);
        fputs(": ", stdout);
        put_text(stdout, x->meta[i].value, 400, true);
        putchar('\n');
    }
    label("citation");
    put_text(stdout, x->path, SIZE_MAX, false);
    bool paged = d.n_chunks && d.chunks[0].unit && !strcmp(d.chunks[0].unit, "page");
    if (d.n_chunks)
        printf("%s%u-%u", paged ? ": page " : ":", d.chunks[0].line_start, d.chunks[d.n_chunks - 1].line_end);
    printf(" (doc %u, version %.12s, generation %llu)\n", x->id, x->sha256,
           (unsigned long long)d.taken.commit.generation);
    label("chunks");
    printf("%zu\n", d.n_chunks);
    for (size_t i = 0; i < d.n_chunks; i++) {
        const hx_result *c = &d.chunks[i];
        printf("  #%u  %s %u-%u%s", c->chunk_id, paged ? "pages" : "lines", c->line_start, c->line_end, *c->heading ? "  " : "");
        put_text(stdout, c->heading, 200, true);
        putchar('\n');
        for (size_t k = 0; k < c->n_chunk_meta; k++) {   /* its unit's pairs (a definition's, an element's) */
            fputs("      ", stdout);
            put_text(stdout, c->chunk_meta[k].key, 200, false);
            fputs(": ", stdout);
            put_text(stdout, c->chunk_meta[k].value, 400, true);
            putchar('\n');
        }
        if (opt_str(j->a, "--text"))
            put_body(c->text, c->text_len);
    }
    hx_session_doc_free(&d);
    return fflush(stdout) ? 1 : 0;
}

int cmd_show(const cli_args *a)
{
    term_setup(a);
    return guarded_session(a, "show", run_show);
}
