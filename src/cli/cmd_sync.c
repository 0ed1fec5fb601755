/* cmd_sync.c: `hyrax sync` (README "Tiers"), project documents copied up to the user index: its
 * help text and run function. */
#include "cli.h"
#include "alloc.h"
#include "fsafe.h"
#include "relpath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* === sync (README "Tiers") === */

const char sync_about[] =
    "Copies documents of the project index up to the user index: each file under PATH that the\n"
    "project index (--db) holds is read again from disk, checked as 'hyrax index' checks a file, and\n"
    "stored in the user index as <project folder name>/<path>, with the metadata origin_root,\n"
    "origin_path and origin_sha256. A document the user index holds with the same bytes is left\n"
    "as it is. The user index is $HYRAX_USER_DB, else $XDG_DATA_HOME/hyrax/user.hyx, else\n"
    "~/.local/share/hyrax/user.hyx; the first sync creates it (its root is its folder; it holds\n"
    "stored documents only). 'hyrax search' reads it with the project index.\n";

/* Makes the folders on the way to the file `path` (mkdir -p of its folder); 0, or 1 after the message. */
static int make_parents(const char *cmd, const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "hyrax %s: cannot create %s: %s\n", cmd, dir, strerror(errno));
            return 1;
        }
        *p = '/';
    }
    return 0;
}

int cmd_sync(const cli_args *a)
{
    const char *db = db_opt(a);
    char user_db[4096], user_root[4096];
    char (*names)[HX_RELPATH_MAX] = hx_calloc(a->n_operands, sizeof *names);
    const char **paths = hx_calloc(a->n_operands, sizeof *paths);
    hx_precision precision, theirs;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *proj = NULL, *user = NULL;
    hx_update_report rep = {0};
    hx_error err = {0};
    int rc = 1;
    if (!names || !paths) {
        fputs("hyrax sync: out of memory\n", stderr);
        goto done;
    }
    if (!opt_str(a, "--to")) {
        fputs("hyrax sync: give --to user (the tier to copy to)\n", stderr);
        rc = 2;
        goto done;
    }
    if (hx_tier_user_path(user_db, sizeof user_db, &err) || hx_index_precision(db, &precision, &err))
        goto fail;
    int found = hx_index_precision(user_db, &theirs, &err);
    if (found && found != HX_ENOTFOUND)
        goto fail;
    if (!found && theirs != precision) {
        fprintf(stderr, "hyrax sync: the user index %s holds %s vectors and the project index %s: one query vector "
                "serves both, so their precisions must match\n", user_db, hx_precision_name(theirs),
                hx_precision_name(precision));
        goto done;
    }
    if (open_encoder(a, (int)opt_long(a, "--threads", 0), precision, &model, &enc))
        goto done;
    if (hx_index_open(&proj, db, HX_INDEX_READ, model, NULL, &err))
        goto fail;
    for (size_t i = 0; i < a->n_operands; i++) {
        if (hx_fs_target(hx_index_root(proj), a->operands[i], HX_TARGET_CWD, names[i], sizeof names[i], &err))
            goto fail;
        paths[i] = names[i];
    }
    char *slash = strrchr(user_db, '/');
    snprintf(user_root, sizeof user_root, "%.*s", slash ? (int)(slash - user_db) : 1, slash ? user_db : ".");
    if (make_parents("sync", user_db))
        goto done;
    char resolved[4096];
    if (!realpath(*user_root ? user_root : "/", resolved)) {
        fprintf(stderr, "hyrax sync: cannot resolve %s: %s\n", user_root, strerror(errno));
        goto done;
    }
    if (hx_index_open(&user, user_db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, resolved, &err))
        goto fail;
    progress_state prog = {isatty(2), (size_t)-1, (double)opt_long(a, "--progress-every", 5), now_seconds(), 0, false,
                           "sync"};
    prog.last = prog.start;
    catch_interrupts();
    int sync_rc = hx_tier_sync(proj, user, paths, a->n_operands, enc, index_progress, &prog, &rep, &err);
    if (sync_rc == HX_ECANCELED && interrupted) {
        put_line(stderr, "hyrax sync: interrupted: ", err.message);
        rc = 130;
        goto done;
    }
    if (sync_rc)
        goto fail;
    for (size_t i = 0; i < rep.n_rejected; i++)
        put_line(stderr, "hyrax sync: rejected ", rep.rejected[i].reason);
    if (rep.warning[0])
        put_line(stderr, "hyrax sync: warning: ", rep.warning);
    hx_index_stats st;
    if (hx_index_stats_get(user, &st, &err))
        goto fail;
    printf("added %zu, updated %zu, unchanged %zu, rejected %zu (+%zu/-%zu chunks) in %.2f s\n", rep.added, rep.updated,
           rep.unchanged, rep.n_rejected, rep.chunks_added, rep.chunks_removed, now_seconds() - prog.start);
    put_text(stdout, user_db, SIZE_MAX, false);
    printf(": %llu %s, %llu %s, generation %llu (user tier)\n", (unsigned long long)st.documents,
           plural(st.documents, "document", "documents"), (unsigned long long)st.live_chunks,
           plural(st.live_chunks, "chunk", "chunks"), (unsigned long long)st.generation);
    rc = 0;
    goto done;
fail:
    put_line(stderr, "hyrax sync: ", err.message);
done:
    hx_update_report_clear(&rep);
    hx_index_close(user);
    hx_index_close(proj);
    hx_encoder_free(enc);
    hx_model_close(model);
    free(names);
    free(paths);
    return rc;
}
