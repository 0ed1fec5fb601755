/* open.c: what several commands open the same way from their options: an index for reading as the
 * reader identity, a session on the registry, the read commands' session, the index file's folder.
 * Messages go to stderr; the caller closes what it was given. */
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
                             .weights = opt_str(a, "--model")};
    return hx_session_open(s, &cfg, err);
}

/* A read-only session on the project index db as the identity id (NULL: none), without the user
 * tier or a registry: the one way the read commands (ls, show, history, stats) open the index. */
int read_session(const char *db, const hx_identity *id, hx_session **s, hx_error *err)
{
    hx_session_config cfg = {.db = db, .no_user_tier = true, .registry = "", .identity = id, .read_only = true};
    return hx_session_open(s, &cfg, err);
}

/* read_session on the index the options name (db_opt) as their --tenant/--user identity: 0, else
 * the exit status (2: a bad identity, 1: the index does not open) after the message. */
int command_session(const cli_args *a, const char *cmd, hx_session **s)
{
    hx_identity id;
    const hx_identity *identity;
    if (identity_opt(a, cmd, &id, &identity))
        return 2;
    hx_error err = {0};
    if (read_session(db_opt(a), identity, s, &err)) {
        fprintf(stderr, "hyrax %s: ", cmd);
        put_line(stderr, "", err.message);
        return 1;
    }
    return 0;
}

/* Runs fn(session_job) under guarded() with the command's session (command_session); the exit
 * status. */
int guarded_session(const cli_args *a, const char *cmd, int (*fn)(void *))
{
    hx_session *s = NULL;
    int rc = command_session(a, cmd, &s);
    if (rc)
        return rc;
    session_job j = {a, s};
    rc = guarded(cmd, fn, &j);
    hx_session_close(s);
    return rc;
}
