/* cmd_audit.c: `hyrax audit`, the documents the validation gate rejected (`hyrax help
 * policy`): its help text and run function. */
#include "cli.h"
#include "json.h"
#include "present.h"


/* === Audit log === */

const char audit_about[] =
    "Lists the documents the validation gate refused to index, oldest first: when, path, content\n"
    "hash, rule and reason ('hyrax help policy'). The log is kept in the index\n"
    "file with the commit that rejected each document, survives compaction, and holds the newest\n"
    "10,000 entries.\n";

typedef struct {
    const char *db, *glob;
    int64_t since_ns;
    size_t limit;
    bool json;
} audit_job;

static int run_audit(void *arg)
{
    const audit_job *j = arg;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_audit_list l = {0};
    if (hx_index_open(&ix, j->db, HX_INDEX_READ, NULL, NULL, &err) || hx_index_audit(ix, &l, &err) ||
        hx_audit_list_select(&l, j->since_ns, j->glob, j->limit, &err)) {
        put_line(stderr, "hyrax audit: ", err.message);
        hx_audit_list_free(&l);
        hx_index_close(ix);
        return 1;
    }
    if (j->json) {
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_present_audit(&w, &l);
        if (!hxi_json_writer_finish(&w, &err))
            printf("%s\n", w.buf);
        hxi_json_writer_free(&w);
    } else {
        char when[40];
        for (size_t i = 0; i < l.n; i++) {
            const hx_audit_entry *e = &l.entries[i];
            hx_time_format(e->time_ns, when, sizeof when);
            printf("%s  %-12s ", when, e->rule);
            put_text(stdout, e->path, SIZE_MAX, false);
            printf("  %.12s\n    ", e->sha256[0] ? e->sha256 : "(not read)");
            put_text(stdout, e->reason, SIZE_MAX, false);
            fputc('\n', stdout);
        }
        printf("%zu entr%s\n", l.n, l.n == 1 ? "y" : "ies");
    }
    hx_audit_list_free(&l);
    hx_index_close(ix);
    return 0;
}

int cmd_audit(const cli_args *a)
{
    audit_job job = {db_opt(a), opt_str(a, "--path"), 0, (size_t)opt_long(a, "--limit", 0), opt_str(a, "--json") != NULL};
    const char *since = opt_str(a, "--since");
    hx_error err = {0};
    if (since && hx_time_parse(since, &job.since_ns, &err)) {
        put_line(stderr, "hyrax audit: --since: ", err.message);
        return 2;
    }
    return guarded("audit", run_audit, &job);
}
