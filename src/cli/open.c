/* open.c: what several commands open the same way from their options: the model and an encoder,
 * an index for reading as the reader identity, the registry, the index file's folder. Messages
 * go to stderr; the caller closes what it was given. */
#include "cli.h"
#include "registry.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* === Index commands: the model === */

/* Opens the model (--model, else found as for embed) at `precision` and an encoder. */
int open_encoder(const cli_args *a, int threads, hx_precision precision, hx_model **model, hx_encoder **enc)
{
    hx_error err = {0};
    hx_model_opts mo = {opt_str(a, "--model"), precision};
    *model = NULL;
    *enc = NULL;
    if (hx_model_open_opts(model, &mo, &err) ||
        hx_encoder_new(enc, *model, threads, &err)) {
        fprintf(stderr, "hyrax %s: %s\n", a->cmd->name, err.message);
        hx_model_close(*model);
        *model = NULL;
        return 1;
    }
    return 0;
}

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

/* Connects to the registry the options name (as --tenant, for the commands that take it). */
int registry_open(const cli_args *a, int timeout_ms, hx_registry **r, hx_error *err)
{
    bool admin = a->cmd->bit == CMD_REGISTRY;
    hx_registry_opts ro = {opt_str(a, "--registry"), admin ? NULL : opt_str(a, "--tenant"),
                           admin ? NULL : opt_str(a, "--user"), timeout_ms,
                           (int)opt_long(a, "--registry-timeout", HX_REGISTRY_CONNECT_TIMEOUT_MS)};
    if (a->cmd->bit == CMD_SEARCH)   /* a search's timeout is its whole budget */
        ro.connect_timeout_ms = 0;
    return hx_registry_connect(r, &ro, err);
}
