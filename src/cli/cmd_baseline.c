/* cmd_baseline.c: `hyrax baseline NAME` names the current commit, `hyrax baselines` lists the
 * names and the commits kept: their help texts and run functions. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char baseline_about[] =
    "Names the current state of the index NAME (a commit; nothing is copied), so 'hyrax search\n"
    "--baseline NAME' and MCP read_context {selector: baseline_id, baseline_id: NAME} read it later,\n"
    "also after compaction. Naming again moves the name to the current state. NAME is 1 to 64\n"
    "letters, digits, '.', '_', ':' or '-'; the name published is what read_context\n"
    "{selector: published} reads.\n";

int cmd_baseline(const cli_args *a)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_commit_info made;
    int rc = 1;
    if (hx_index_open(&ix, db_opt(a), HX_INDEX_WRITE, NULL, NULL, &err) ||
        hx_index_baseline(ix, a->operands[0], &made, &err)) {
        put_line(stderr, "hyrax baseline: ", err.message);
    } else {
        char when[40];
        hx_time_format(made.committed_ns, when, sizeof when);
        printf("baseline %s = generation %llu, committed %s\n", made.name, (unsigned long long)made.generation,
               when);
        rc = 0;
    }
    hx_index_close(ix);
    return rc;
}

const char baselines_about[] =
    "Lists the baselines (the newest commit of each name, newest first) and the commits the index\n"
    "keeps, which 'hyrax search --as-of TIME' can read.\n";

int cmd_baselines(const cli_args *a)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_commit_info *h = NULL;
    size_t n = 0;
    char when[40];
    if (hx_index_open(&ix, db_opt(a), HX_INDEX_READ, NULL, NULL, &err) || hx_index_history(ix, &h, &n, &err) || !n) {
        put_line(stderr, "hyrax baselines: ", n ? err.message : "the index has no commits");
        hx_index_close(ix);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        bool newest = h[i].name[0] != 0;
        for (size_t j = 0; j < i && newest; j++)
            newest = strcmp(h[j].name, h[i].name) != 0;
        if (!newest)
            continue;
        hx_time_format(h[i].committed_ns, when, sizeof when);
        printf("%-24s generation %llu, committed %s\n", h[i].name, (unsigned long long)h[i].generation, when);
    }
    hx_time_format(h[n - 1].committed_ns, when, sizeof when);
    printf("kept: %zu %s, generations %llu to %llu, the oldest committed %s\n", n, plural(n, "commit", "commits"),
           (unsigned long long)h[n - 1].generation, (unsigned long long)h[0].generation, when);
    free(h);
    hx_index_close(ix);
    return 0;
}
