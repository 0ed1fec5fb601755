/* cmd_recover.c: `hyrax recover`, a damaged index made writable again, keeping its newest
 * provable commit: its help text and run function. */
#include "cli.h"

const char recover_about[] =
    "Makes a damaged index writable again. Readers already use the newest commit that can be proven\n"
    "(a commit whose meta slot is damaged is recovered from its commit record); writers refuse a\n"
    "file whose damage they cannot settle without destroying bytes past that commit. recover keeps\n"
    "that commit, rewrites the damaged meta slot and discards the bytes past it. A sound file is\n"
    "left as it is.\n";

int cmd_recover(const cli_args *a)
{
    const char *db = db_opt(a);
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    if (hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_RECOVER, NULL, NULL, &err) ||
        hx_index_stats_get(ix, &st, &err)) {
        fprintf(stderr, "hyrax recover: %s: %s\n", db, err.message);
        hx_index_close(ix);
        return 1;
    }
    if (*hx_index_damage(ix))
        printf("%s: found: %s\n%s: recovered: generation %llu, %llu %s\n", db, hx_index_damage(ix), db,
               (unsigned long long)st.generation, (unsigned long long)st.documents,
               plural(st.documents, "document", "documents"));
    else
        printf("%s: sound, nothing to recover (generation %llu, %llu %s)\n", db, (unsigned long long)st.generation,
               (unsigned long long)st.documents, plural(st.documents, "document", "documents"));
    hx_index_close(ix);
    return 0;
}
