/* cmd_index.c: `hyrax index`, files and folders into the index (incremental), with progress on
 * stderr and Ctrl-C keeping what was committed: its help text and run function. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* === index === */

const char index_about[] =
    "Indexes the files under each PATH into one index file, or brings it up to date: new files are\n"
    "added, changed ones re-embedded, unchanged ones skipped (content hash), and indexed files\n"
    "under PATH that are gone are removed. Prints what it added, updated, skipped and removed.\n"
    "Stored documents (add_document with content) are kept as they are, --reindex included.\n"
    "Files removed with 'hyrax rm' or delete_document stay out unless PATH names that file.\n"
    "The first run records the indexed root: the PATH when it is a single folder, else the current\n"
    "folder; later runs take paths inside it. The first run refuses a PATH that does not exist or\n"
    "lies outside that root, and then creates nothing.\n"
    "Progress goes to stderr: a bar on a terminal, else a line every few seconds.\n"
    "A long run commits every 8,192 chunks or so, at a file boundary: Ctrl-C keeps what was\n"
    "committed (exit 130), and running the same command again embeds only the rest.\n";

/* The message of a first run refused for a path outside the root says what the first run records
 * ("; no index created" ends the library's message for a path it refused before creating anything;
 * HX_ENOTFOUND is a path that does not exist). */
static void say_error(const hx_error *err, bool first)
{
    const char *msg = err->message;
    static const char tail[] = "; no index created";
    size_t n = strlen(msg), t = sizeof tail - 1;
    fputs("hyrax index: ", stderr);
    put_text(stderr, msg, SIZE_MAX, false);
    if (first && err->code != HX_ENOTFOUND && n >= t && !strcmp(msg + n - t, tail))
        fputs(" (the first run records the indexed root: the PATH when it is a single folder, else the current "
              "folder)", stderr);
    fputc('\n', stderr);
}

int cmd_index(const cli_args *a)
{
    const char *db = db_opt(a);
    const char **excludes = hx_calloc(a->n + 1, sizeof *excludes);
    const char **folder_meta = hx_calloc(a->n + 1, sizeof *folder_meta);   /* --folder-meta NAMEs */
    size_t n_ex = 0, n_fm = 0, pos = 0;
    int rc = 1;
    hx_precision precision = HX_PRECISION_FP32, recorded;
    const char *precision_flag = opt_str(a, "--precision");
    hx_session *s = NULL;
    hx_session_write w = {0};
    hx_error err = {0};
    if (!excludes || !folder_meta) {
        fputs("hyrax index: out of memory\n", stderr);
        goto done;
    }
    if (precision_opt(a, &precision)) {
        rc = 2;
        goto done;
    }
    while ((excludes[n_ex] = opt_next(a, "--exclude", &pos)))
        n_ex++;
    const char *fm;
    for (pos = 0; (fm = opt_next(a, "--folder-meta", &pos));)
        if (*fm)   /* '' alone: no folder passes metadata on */
            folder_meta[n_fm++] = fm;
    char root[4096];
    struct stat st;
    const char *root_src = a->n_operands == 1 && stat(a->operands[0], &st) == 0 && S_ISDIR(st.st_mode) ? a->operands[0]
                                                                                                      : ".";
    if (!realpath(root_src, root)) {
        fprintf(stderr, "hyrax index: cannot resolve %s: %s\n", root_src, strerror(errno));
        goto done;
    }
    int found = hx_index_precision(db, &recorded, &err);
    if (found == 0) {   /* an existing index keeps its precision */
        if (precision_flag && recorded != precision) {
            fputs("hyrax index: ", stderr);
            put_text(stderr, db, SIZE_MAX, false);
            fprintf(stderr, " holds %s vectors; --precision %s needs a new index: reindex into another "
                    "--db file (or remove this one first)\n", hx_precision_name(recorded), precision_flag);
            goto done;
        }
        precision = recorded;
    }
    hx_session_config cfg = {.db = db, .root = root, .no_user_tier = true, .registry = "",
                             .weights = opt_str(a, "--model"), .precision = precision,
                             .threads = (int)opt_long(a, "--threads", 0), .stats_transport = "cli"};
    if (hx_session_open(&s, &cfg, &err)) {
        put_line(stderr, "hyrax index: ", err.message);
        goto done;
    }
    progress_state prog = {isatty(2), (size_t)-1, (double)opt_long(a, "--progress-every", 5), now_seconds(), 0, false,
                           "index"};
    prog.last = prog.start;
    hx_reindex_opts o = {.paths = a->operands, .n_paths = a->n_operands, .excludes = excludes, .n_excludes = n_ex,
                         .force = opt_str(a, "--reindex") != NULL, .max_file_bytes = (size_t)opt_long(a, "--max-size", 0),
                         .folder_meta = opt_str(a, "--folder-meta") ? folder_meta : NULL, .n_folder_meta = n_fm,
                         .commit_chunks = (size_t)opt_long(a, "--commit-every", 0),
                         .compact = opt_str(a, "--compact") != NULL};
    hx_write_opts wo = {index_progress, &prog, true};
    catch_interrupts();
    int update_rc = hx_session_reindex(s, &o, &wo, &w, &err);
    if (update_rc == HX_ECANCELED && interrupted) {
        if (prog.tty)
            fputc('\n', stderr);   /* past the progress bar */
        put_line(stderr, "hyrax index: interrupted: ", err.message);
        rc = 130;
        goto done;
    }
    bool compaction = update_rc && !strncmp(err.message, "compaction failed: ", 19);   /* the update stands */
    if (update_rc && !compaction) {
        say_error(&err, found == HX_ENOTFOUND);
        goto done;
    }
    const hx_update_report *rep = &w.report;
    for (size_t i = 0; i < rep->n_rejected; i++)
        put_line(stderr, "hyrax index: rejected ", rep->rejected[i].reason);
    if (rep->warning[0])
        put_line(stderr, "hyrax index: warning: ", rep->warning);
    if (compaction) {
        fprintf(stderr, "hyrax index: %s\n", err.message);
        goto done;
    }
    printf("added %zu, updated %zu, unchanged %zu, removed %zu, rejected %zu (+%zu/-%zu chunks) in %.2f s\n",
           rep->added, rep->updated, rep->unchanged, rep->removed, rep->n_rejected, rep->chunks_added,
           rep->chunks_removed, rep->seconds);
    if (rep->kept_out)
        printf("%zu files deleted by request stay out (index one by its own name to bring it back)\n",
               rep->kept_out);
    put_text(stdout, db, SIZE_MAX, false);
    printf(": %llu documents, %llu chunks, generation %llu, root ", (unsigned long long)w.stats.documents,
           (unsigned long long)w.stats.live_chunks, (unsigned long long)w.stats.generation);
    put_text(stdout, w.root, SIZE_MAX, false);
    putchar('\n');
    rc = 0;
done:
    hx_session_write_clear(&w);
    hx_session_close(s);
    free(excludes);
    free(folder_meta);
    return rc;
}
