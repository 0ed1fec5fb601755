/* cmd_compact.c: `hyrax compact`, the index rewritten into one segment, baselines and recent
 * commits kept: its help text and run function. */
#include "cli.h"

const char compact_about[] =
    "Rewrites the index into one segment without deleted chunks. Keeps every baseline (the newest\n"
    "commit of each name) and the last " HX_STRINGIFY(HX_KEEP_COMMITS)
    " commits, so searches of them answer as before.\n";

int cmd_compact(const cli_args *a)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    int rc = 1;
    if (hx_index_open(&ix, db_opt(a), HX_INDEX_WRITE, NULL, NULL, &err) || hx_index_compact(ix, &err) ||
        hx_index_stats_get(ix, &st, &err)) {
        put_line(stderr, "hyrax compact: ", err.message);
    } else {
        printf("compacted: generation %llu, %llu %s, %.1f MiB\n", (unsigned long long)st.generation,
               (unsigned long long)st.documents, plural(st.documents, "document", "documents"),
               (double)st.file_bytes / 1048576.0);
        rc = 0;
    }
    hx_index_close(ix);
    return rc;
}
