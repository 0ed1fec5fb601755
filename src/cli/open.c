/* open.c: what several commands open the same way from their options: an index for reading as the
 * reader identity, a session on the registry, the index file's folder. Messages go to stderr; the
 * caller closes what it was given. */
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* === Index files, readers and the registry === */

/* Makes the folder that will hold the index file. */
int make_db_folder(const char *cmd, const char *db)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", db);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "hyrax %s: cannot create %s: %s\n", cmd, dir, strerror(errno));
        return 1;
    }
    return 0;
}

/* hx_index_open for reading with the command's identity (NULL: none) applied: the one way the
 * read commands open an index. */
int open_reader(hx_index **ix, const char *db, const hx_model *model, const hx_identity *id, hx_error *err)
{
    int rc = hx_index_open(ix, db, HX_INDEX_READ, model, NULL, err);
    return rc || !id ? rc : hx_index_set_identity(*ix, id, err);
}

/* A session on the registry the options name (--registry, else $HYRAX_REGISTRY, else libpq's
 * defaults; --registry-timeout to connect), as the identity id (NULL: none), reading files under
 * root (NULL: none), embedding with --model: registry init and publish. */
int registry_session(const cli_args *a, const hx_identity *id, const char *root, hx_session **s, hx_error *err)
{
    const char *url = opt_str(a, "--registry");
    hx_session_config cfg = {.db = DEFAULT_DB, .root = root, .no_user_tier = true, .registry = url && *url ? url : NULL,
                             .registry_defaults = true,
                             .registry_timeout_ms = (int)opt_long(a, "--registry-timeout", 0), .identity = id,
                             .weights = a->cmd->bit == CMD_PUBLISH ? opt_str(a, "--model") : NULL};
    return hx_session_open(s, &cfg, err);
}
