/* cmd_stats.c: `hyrax stats`, the index's counts and sizes and what every process did with it
 * (the lasting statistics beside the index file): its help text and run function. */
#include "cli.h"
#include "json.h"
#include "present.h"
#include "stats.h"

#include <time.h>

const char stats_about[] =
    "Prints counts, sizes, the last commit and the model, and what every process did with the index\n"
    "(kept beside it, across restarts): latency per tool, hot queries of the last day, updates, rejected\n"
    "files and index lag. With --tenant, the hot queries are that identity's own and the last update's\n"
    "error is left out; without it, every identity's queries are shown.\n";

/* The lasting statistics (hx_stats_write_json's members in one object) as text lines. */
static void print_activity(const hx_json_writer *act)
{
    hx_json_doc *doc = NULL;
    if (hx_json_parse(&doc, act->buf, act->len, NULL, NULL))
        return;
    const hx_json_val *r = hx_json_doc_root(doc), *lat = hx_json_obj_get(r, "latency"), *k, *v;
    hx_json_iter it;
    hx_json_iter_init(&it, lat);
    while (hx_json_iter_next(&it, &k, &v)) {
        double calls = 0, p50 = 0, p95 = 0;
        hx_json_num_double(hx_json_obj_get(v, "calls"), &calls, NULL);
        hx_json_num_double(hx_json_obj_get(v, "p50_ms"), &p50, NULL);
        hx_json_num_double(hx_json_obj_get(v, "p95_ms"), &p95, NULL);
        printf("latency     %s: %.0f calls, p50 %.1f ms, p95 %.1f ms\n", hx_json_str(k, NULL), calls, p50, p95);
    }
    const hx_json_val *top = hx_json_obj_get(r, "top_queries");
    for (size_t i = 0; i < hx_json_len(top); i++) {
        double n = 0;
        hx_json_num_double(hx_json_obj_get(hx_json_arr_get(top, i), "count"), &n, NULL);
        fputs(i ? "            " : "hot queries ", stdout);
        put_text(stdout, hx_json_str(hx_json_obj_get(hx_json_arr_get(top, i), "query"), NULL), 120, true);
        printf(" (%.0f)\n", n);
    }
    const hx_json_val *ix = hx_json_obj_get(r, "index");
    double u[6] = {0}, lag_n = 0, lag50 = 0, lag95 = 0;
    const char *keys[] = {"updates", "files_added", "files_updated", "files_removed", "files_rejected", "update_failures"};
    for (int i = 0; i < 6; i++)
        hx_json_num_double(hx_json_obj_get(ix, keys[i]), &u[i], NULL);
    const hx_json_val *lag = hx_json_obj_get(ix, "lag");
    hx_json_num_double(hx_json_obj_get(lag, "count"), &lag_n, NULL);
    hx_json_num_double(hx_json_obj_get(lag, "p50_ms"), &lag50, NULL);
    hx_json_num_double(hx_json_obj_get(lag, "p95_ms"), &lag95, NULL);
    printf("updates     %.0f: %.0f files added, %.0f updated, %.0f removed, %.0f rejected; %.0f failed\n", u[0], u[1],
           u[2], u[3], u[4], u[5]);
    if (lag_n)
        printf("index lag   p50 %.0f ms, p95 %.0f ms (%.0f updates measured)\n", lag50, lag95, lag_n);
    const char *last_error = hx_json_str(hx_json_obj_get(ix, "last_error"), NULL);
    if (last_error)
        put_line(stdout, "last error  ", last_error);
    hx_json_doc_free(doc);
}


/* Reads the index's state through the session and prints its statistics; the exit status. Runs
 * under guarded(): the root and the damage are read from the index file while printing. */
static int run_stats(void *arg)
{
    const db_job *j = arg;
    hx_session_config cfg = {.db = j->db, .no_user_tier = true, .registry = "", .identity = j->identity,
                             .read_only = true};
    hx_session *s = NULL;
    hx_error err = {0};
    hx_session_info info;
    int rc = hx_session_open(&s, &cfg, &err);
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
    hx_json_writer act;   /* the lasting statistics (stats.h) */
    hx_json_writer_init(&act);
    hx_json_write_obj_begin(&act);
    int act_rc = hx_stats_write_json(NULL, j->db, j->identity, &act, &err);
    hx_json_write_obj_end(&act);
    if (act_rc)
        fprintf(stderr, "hyrax stats: warning: %s\n", err.message);
    if (j->json) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_json_write_obj_begin(&w);
        hx_present_stats_members(&w, st, info.project.root);
        hx_json_write_key(&w, "precision");
        hx_json_write_cstr(&w, hx_precision_name(info.precision));
        hx_json_write_key(&w, "activity");
        if (act_rc)
            hx_json_write_null(&w);
        else
            hx_json_write_json(&w, act.buf, act.len);
        hx_json_write_obj_end(&w);
        if (!hx_json_writer_finish(&w, &err))
            printf("%s\n", w.buf);
        hx_json_writer_free(&w);
    } else {
        time_t t = (time_t)(st->committed_ns / 1000000000);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
        fputs("index       ", stdout);
        put_text(stdout, j->db, SIZE_MAX, false);
        fputs("\nroot        ", stdout);
        put_text(stdout, info.project.root, SIZE_MAX, false);
        printf("\ndocuments   %llu\nchunks      %llu (%llu stored, %llu deleted)\n"
               "tokens      %llu\nsegments    %llu\nfile size   %.1f MiB\ngeneration  %llu, committed %s\n"
               "model       %s (%d dimensions), %s vectors\n",
               (unsigned long long)st->documents, (unsigned long long)st->live_chunks,
               (unsigned long long)st->chunks, (unsigned long long)st->tombstones, (unsigned long long)st->tokens,
               (unsigned long long)st->segments, (double)st->file_bytes / 1048576.0,
               (unsigned long long)st->generation, when, st->model, st->dim, hx_precision_name(info.precision));
        if (!act_rc)
            print_activity(&act);
    }
    hx_json_writer_free(&act);
    hx_session_close(s);
    return 0;
}

int cmd_stats(const cli_args *a)
{
    hx_identity id;
    db_job job = {db_opt(a), opt_str(a, "--json") != NULL, NULL};
    return identity_opt(a, "stats", &id, &job.identity) ? 2 : guarded("stats", run_stats, &job);
}
