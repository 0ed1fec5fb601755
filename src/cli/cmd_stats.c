/* cmd_stats.c: `hyrax stats`, the index's counts and sizes and what every process did with it
 * (the lasting statistics beside the index file): its help text and run function. */
#include "cli.h"
#include "json.h"
#include "present.h"

#include <time.h>

const char stats_about[] =
    "Prints counts, sizes, the last commit and the model, and what every process did with the index\n"
    "(kept beside it, across restarts): latency per tool, hot queries of the last day, updates, rejected\n"
    "files and index lag. With --tenant, the hot queries are that identity's own and the last update's\n"
    "error is left out; without it, every identity's queries are shown.\n";

/* The lasting statistics as text lines. */
static void print_activity(const hx_activity *act)
{
    for (size_t i = 0; i < act->n_latency; i++) {
        const hx_tool_latency *t = &act->latency[i];
        if (!t->transport)
            printf("latency     %s: %.0f calls, p50 %.1f ms, p95 %.1f ms\n", t->tool, (double)t->latency.count,
                   t->latency.p50_ms, t->latency.p95_ms);
    }
    for (size_t i = 0; i < act->n_top; i++) {
        fputs(i ? "            " : "hot queries ", stdout);
        put_text(stdout, act->top[i].query, 120, true);
        printf(" (%.0f)\n", (double)act->top[i].count);
    }
    printf("updates     %.0f: %.0f files added, %.0f updated, %.0f removed, %.0f rejected; %.0f failed\n",
           (double)act->updates, (double)act->files_added, (double)act->files_updated, (double)act->files_removed,
           (double)act->files_rejected, (double)act->update_failures);
    if (act->lag.count)
        printf("index lag   p50 %.0f ms, p95 %.0f ms (%.0f updates measured)\n", act->lag.p50_ms, act->lag.p95_ms,
               (double)act->lag.count);
    if (act->last_error)
        put_line(stdout, "last error  ", act->last_error);
}

/* Reads the index's state through the session and prints its statistics; the exit status. Runs
 * under guarded(): the root and the damage are read from the index file while printing. */
static int run_stats(void *arg)
{
    const db_job *j = arg;
    hx_session *s = NULL;
    hx_error err = {0};
    hx_session_info info;
    int rc = read_session(j->db, j->identity, &s, &err);
    if (!rc && !(rc = hx_session_status(s, &info, &err)) && !info.project.present)
        rc = (err = info.project.error).code;
    if (rc) {
        if (rc == HX_ECHANGED)
            fprintf(stderr, "hyrax stats: %s; run it again\n", HX_FAULT_MESSAGE);   /* as guarded() says it */
        else
            fprintf(stderr, "hyrax stats: %s\n", err.message);
        hx_session_close(s);
        return 1;
    }
    const hx_index_stats *st = &info.project.stats;
    if (*info.project.damage)
        fprintf(stderr, "hyrax stats: warning: %s: %s (see 'hyrax verify')\n", j->db, info.project.damage);
    hx_activity act;   /* the lasting statistics */
    int act_rc = hx_session_activity(s, &act, &err);
    if (act_rc)
        fprintf(stderr, "hyrax stats: warning: %s\n", err.message);
    if (j->json) {
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_json_write_obj_begin(&w);
        hxi_present_stats_members(&w, st, info.project.root);
        hxi_json_kv_cstr(&w, "precision", hx_precision_name(info.precision));
        hxi_json_write_key(&w, "activity");
        if (act_rc) {
            hxi_json_write_null(&w);
        } else {
            hxi_json_write_obj_begin(&w);
            hxi_present_activity(&w, &act);
            hxi_json_write_obj_end(&w);
        }
        hxi_json_write_obj_end(&w);
        if (!hxi_json_writer_finish(&w, &err))
            printf("%s\n", w.buf);
        hxi_json_writer_free(&w);
    } else {
        time_t t = (time_t)(st->committed_ns / 1000000000);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
        fputs("index       ", stdout);
        put_text(stdout, j->db, SIZE_MAX, false);
        fputs("\nroot        ", stdout);
        put_text(stdout, info.project.root, SIZE_MAX, false);
        printf("\ndocuments   %llu\nchunks      %llu (%llu stored, %llu deleted)\n"
               "tokens      %llu\nsegments    %llu\nfile size   %.1f MiB\ngeneration  %llu, committed %s%s%s\n"
               "model       %s (%d dimensions), %s vectors\nmodel hash  %s\n",
               (unsigned long long)st->documents, (unsigned long long)st->live_chunks,
               (unsigned long long)st->chunks, (unsigned long long)st->tombstones, (unsigned long long)st->tokens,
               (unsigned long long)st->segments, (double)st->file_bytes / 1048576.0,
               (unsigned long long)st->generation, when, *st->writer ? " by " : "", st->writer, st->model, st->dim, hx_precision_name(info.precision),
               *st->model_hash ? st->model_hash : "(not recorded)");
        if (!act_rc)
            print_activity(&act);
    }
    hx_activity_free(&act);
    hx_session_close(s);
    return 0;
}

int cmd_stats(const cli_args *a)
{
    hx_identity id;
    db_job job = {db_opt(a), opt_str(a, "--json") != NULL, NULL};
    return identity_opt(a, "stats", &id, &job.identity) ? 2 : guarded("stats", run_stats, &job);
}
