/* cmd_rm.c: `hyrax rm`, documents removed from the index by path or folder: its help text and
 * run function. */
#include "cli.h"

const char rm_about[] =
    "Removes documents from the index: a PATH that names a document removes exactly it, a folder\n"
    "removes every document under it; a PATH that names nothing (or the root) is an error and\n"
    "nothing is removed. PATH is relative to the indexed root, or a path on disk inside it. The\n"
    "files themselves are not touched, and 'hyrax index' leaves removed files out until a file is\n"
    "indexed again by its own name ('hyrax index docs/a.md'). Stored documents (add_document with\n"
    "content) are gone for good.\n";

int cmd_rm(const cli_args *a)
{
    hx_session_config cfg = {.db = db_opt(a), .no_user_tier = true, .registry = ""};
    hx_session *s = NULL;
    hx_session_write w = {0};
    hx_error err = {0};
    hx_write_opts wo = {NULL, NULL, true};   /* a path on disk when one is there inside the root, else a name */
    int rc = hx_session_open(&s, &cfg, &err);
    if (!rc)
        rc = hx_session_delete_paths(s, a->operands, a->n_operands, &wo, &w, &err);
    if (rc) {
        put_line(stderr, "hyrax rm: ", err.message);
    } else {
        printf("removed %zu %s (%zu %s)\n", w.report.removed, plural(w.report.removed, "document", "documents"),
               w.report.chunks_removed, plural(w.report.chunks_removed, "chunk", "chunks"));
        if (w.report.warning[0])
            fprintf(stderr, "hyrax rm: warning: %s\n", w.report.warning);
    }
    hx_session_write_clear(&w);
    hx_session_close(s);
    return rc ? 1 : 0;
}
