/* cmd_ls.c: `hyrax ls [GLOB]`, the documents of the index in path order, through the session
 * (hx_session_list, as list_documents reads them): its help text and run function. */
#include "cli.h"

#include <string.h>

const char ls_about[] =
    "Lists the documents of the index by root-relative path, in path order; with GLOB only those\n"
    "whose path matches it (** spans folders: 'docs/**/*.md'). --long adds each one's chunks, size,\n"
    "time indexed and title. A GLOB that matches no document is an error (exit 1).\n";

/* Lists and prints under guarded(): the strings are read from the index file while printing. */
static int run_ls(void *arg)
{
    const session_job *j = arg;
    const char *glob = j->a->n_operands ? j->a->operands[0] : NULL;
    hx_filter f = {.key = "path", .value = glob};
    hx_list_opts o = {.filters = glob ? &f : NULL, .n_filters = glob ? 1 : 0};
    hx_doc_list l;
    hx_error err = {0};
    if (hx_session_list(j->s, &o, &l, &err)) {
        put_line(stderr, "hyrax ls: ", err.message);
        return 1;
    }
    bool lng = opt_str(j->a, "--long") != NULL;
    for (size_t i = 0; i < l.n; i++) {
        const hx_doc_info *d = &l.docs[i];
        if (lng) {
            char when[40];
            hx_time_format(d->indexed_ns, when, sizeof when);
            printf("%5u %-6s %10llu  %.19s  ", d->n_chunks, plural(d->n_chunks, "chunk", "chunks"),
                   (unsigned long long)d->size, when);
        }
        term_style(stdout, "1;35");
        put_text(stdout, d->path, SIZE_MAX, false);
        term_style(stdout, NULL);
        if (lng && *d->title) {
            fputs("  ", stdout);
            put_text(stdout, d->title, 200, true);
        }
        putchar('\n');
    }
    int rc = fflush(stdout) ? 1 : 0;
    if (!l.n && glob) {
        fputs("hyrax ls: no document matches '", stderr);
        put_text(stderr, glob, 200, false);
        fputs("'\n", stderr);
        rc = 1;
    }
    hx_doc_list_free(&l);
    return rc;
}

int cmd_ls(const cli_args *a)
{
    term_setup(a);
    return guarded_session(a, "ls", run_ls);
}
