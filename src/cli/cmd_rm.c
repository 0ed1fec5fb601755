/* cmd_rm.c: `hyrax rm`, documents removed from the index by path or folder: its help text and
 * run function. */
#include "cli.h"
#include "alloc.h"
#include "fsafe.h"
#include "relpath.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char rm_about[] =
    "Removes documents from the index: a PATH that names a document removes exactly it, a folder\n"
    "removes every document under it; a PATH that names nothing (or the root) is an error and\n"
    "nothing is removed. PATH is relative to the indexed root, or a path on disk inside it. The\n"
    "files themselves are not touched, and 'hyrax index' leaves removed files out until a file is\n"
    "indexed again by its own name ('hyrax index docs/a.md'). Stored documents (add_document with\n"
    "content) are gone for good.\n";

int cmd_rm(const cli_args *a)
{
    const char *db = db_opt(a);
    size_t n = a->n_operands;
    const char **paths = hx_calloc(n, sizeof *paths);
    char (*rel)[HX_RELPATH_MAX] = hx_calloc(n, sizeof *rel);
    int rc = 1;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_update_report rep = {0};
    if (!paths || !rel) {
        fputs("hyrax rm: out of memory\n", stderr);
        goto done;
    }
    memcpy(paths, a->operands, n * sizeof *paths);
    if (hx_index_open(&ix, db, HX_INDEX_WRITE, NULL, NULL, &err)) {
        fprintf(stderr, "hyrax rm: %s\n", err.message);
        goto done;
    }
    const char *root = hx_index_root(ix);
    for (size_t i = 0; i < n; i++) {
        /* a path on disk (relative to the current folder) when one exists there inside the root,
         * else a root-relative name */
        struct stat st;
        int how = paths[i][0] == '/' || lstat(paths[i], &st) == 0 ? HX_TARGET_CWD : HX_TARGET_NAME;
        int trc = hx_fs_target(root, paths[i], how, rel[i], sizeof rel[i], &err);
        if (trc == HX_EPERM && how == HX_TARGET_CWD && paths[i][0] != '/')
            trc = hx_fs_target(root, paths[i], HX_TARGET_NAME, rel[i], sizeof rel[i], &err);
        if (!trc && !rel[i][0])
            trc = hx_error_set(&err, HX_EINVAL, -1, "'%.200s' names the indexed root, not a document", paths[i]);
        if (trc) {
            put_line(stderr, "hyrax rm: ", err.message);
            goto done;
        }
        paths[i] = rel[i];
    }
    if (hx_index_remove(ix, paths, n, HX_REMOVE_FOLDERS, &rep, &err)) {
        fprintf(stderr, "hyrax rm: %s\n", err.message);
        goto done;
    }
    printf("removed %zu %s (%zu %s)\n", rep.removed, plural(rep.removed, "document", "documents"), rep.chunks_removed,
           plural(rep.chunks_removed, "chunk", "chunks"));
    if (rep.warning[0])
        fprintf(stderr, "hyrax rm: warning: %s\n", rep.warning);
    rc = 0;
done:
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    free(paths);
    free(rel);
    return rc;
}
