/* cmd_sync.c: `hyrax sync` (`hyrax help tiers`), project documents copied up to the user index: its
 * help text and run function. */
#include "cli.h"

#include <unistd.h>

/* === sync (`hyrax help tiers`) === */

const char sync_about[] =
    "Copies documents of the project index up to the user index: each file under PATH that the\n"
    "project index (--db) holds is read again from disk, checked as 'hyrax index' checks a file, and\n"
    "stored in the user index as <project folder name>/<path>, with the metadata origin_root,\n"
    "origin_path and origin_sha256. A document the user index holds with the same bytes is left\n"
    "as it is. The user index is $HYRAX_USER_DB, else $XDG_DATA_HOME/hyrax/user.hyx, else\n"
    "~/.local/share/hyrax/user.hyx; the first sync creates it (its root is its folder; it holds\n"
    "stored documents only). 'hyrax search' reads it with the project index.\n";

int cmd_sync(const cli_args *a)
{
    if (!opt_str(a, "--to")) {
        fputs("hyrax sync: give --to user (the tier to copy to)\n", stderr);
        return 2;
    }
    hx_session_config cfg = {.db = db_opt(a), .registry = "", .weights = opt_str(a, "--model"),
                             .threads = (int)opt_long(a, "--threads", 0)};
    hx_session *s = NULL;
    hx_session_write w = {0};
    hx_error err = {0};
    progress_state prog = {isatty(2), (size_t)-1, (double)opt_long(a, "--progress-every", 5), now_seconds(), 0, false,
                           "sync"};
    prog.last = prog.start;
    hx_write_opts wo = {index_progress, &prog, true};
    int rc = hx_session_open(&s, &cfg, &err);
    if (!rc) {
        catch_interrupts();
        rc = hx_session_sync(s, a->operands, a->n_operands, &wo, &w, &err);
    }
    if (rc == HX_ECANCELED && interrupted) {
        put_line(stderr, "hyrax sync: interrupted: ", err.message);
        rc = 130;
    } else if (rc) {
        put_line(stderr, "hyrax sync: ", err.message);
        rc = 1;
    } else {
        const hx_update_report *rep = &w.report;
        for (size_t i = 0; i < rep->n_rejected; i++)
            put_line(stderr, "hyrax sync: rejected ", rep->rejected[i].reason);
        if (rep->warning[0])
            put_line(stderr, "hyrax sync: warning: ", rep->warning);
        printf("added %zu, updated %zu, unchanged %zu, rejected %zu (+%zu/-%zu chunks) in %.2f s\n", rep->added,
               rep->updated, rep->unchanged, rep->n_rejected, rep->chunks_added, rep->chunks_removed,
               now_seconds() - prog.start);
        char user_db[4096] = "";   /* the session's user index: where hx_tier_user_path says */
        hx_tier_user_path(user_db, sizeof user_db, NULL);
        put_text(stdout, user_db, SIZE_MAX, false);
        printf(": %llu %s, %llu %s, generation %llu (user tier)\n", (unsigned long long)w.stats.documents,
               plural(w.stats.documents, "document", "documents"), (unsigned long long)w.stats.live_chunks,
               plural(w.stats.live_chunks, "chunk", "chunks"), (unsigned long long)w.stats.generation);
    }
    hx_session_write_clear(&w);
    hx_session_close(s);
    return rc;
}
