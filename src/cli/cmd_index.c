/* cmd_index.c: `hyrax index`, files and folders into the index (incremental), with progress on
 * stderr and Ctrl-C keeping what was committed: its help text and run function. */
#include "cli.h"
#include "alloc.h"
#include "fsafe.h"
#include "relpath.h"
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* === index === */

const char index_about[] =
    "Indexes the files under each PATH into one index file, or brings it up to date: new files are\n"
    "added, changed ones re-embedded, unchanged ones skipped (content hash), and indexed files\n"
    "under PATH that are gone are removed. Prints what it added, updated, skipped and removed,\n"
    "then the documents per type. A file's type comes from its content, then its name: HTML is\n"
    "read as text without markup, scripts or navigation; Markdown, YAML, JSON, XML, code and\n"
    "plain text as written (README \"Document types\").\n"
    "Stored documents (add_document with content) are kept as they are, --reindex included.\n"
    "Files removed with 'hyrax rm' or delete_document stay out unless PATH names that file.\n"
    "The first run records the indexed root: the PATH when it is a single folder, else the current\n"
    "folder; later runs take paths inside it. The first run refuses a PATH that does not exist or\n"
    "lies outside that root, and then creates nothing.\n"
    "Progress goes to stderr: a bar on a terminal, else a line every few seconds.\n"
    "A long run commits every 8,192 chunks or so, at a file boundary: Ctrl-C keeps what was\n"
    "committed (exit 130), and running the same command again embeds only the rest.\n";

/* For the first run (no index yet): every PATH must exist and lie inside the root about to be
 * recorded, checked before anything is created; 0, or 1 after the message. */
static int check_first_paths(const char *root, const char *const *paths, size_t n)
{
    char name[HX_RELPATH_MAX];
    struct stat st;
    hx_error err = {0};
    for (size_t i = 0; i < n; i++) {
        if (lstat(paths[i], &st) != 0) {
            fputs("hyrax index: ", stderr);
            put_text(stderr, paths[i], SIZE_MAX, false);
            fprintf(stderr, ": %s; no index created\n", strerror(errno));
            return 1;
        }
        if (hx_fs_target(root, paths[i], HX_TARGET_CWD, name, sizeof name, &err)) {
            fputs("hyrax index: ", stderr);
            put_text(stderr, err.message, SIZE_MAX, false);
            fputs("; no index created (the first run records the indexed root: the PATH when it is a single "
                  "folder, else the current folder)\n", stderr);
            return 1;
        }
    }
    return 0;
}

/* "by type: html 3, markdown 12": the documents the index holds, per detected type (README
 * "Document types"), in order of first appearance. */
static void print_types(const hx_index *ix)
{
    struct type_count { const char *name; size_t n; } t[32];
    size_t nt = 0, other = 0, n = hx_index_doc_count(ix);
    for (size_t i = 0; i < n; i++) {
        hx_doc_info d;
        if (hx_index_doc_at(ix, i, &d))
            continue;
        size_t k = 0;
        while (k < nt && strcmp(t[k].name, d.type))
            k++;
        if (k == nt && nt < sizeof t / sizeof *t)
            t[nt++] = (struct type_count){d.type, 0};
        if (k < nt)
            t[k].n++;
        else
            other++;
    }
    for (size_t k = 0; k < nt; k++)
        printf("%s%s %zu", k ? ", " : "by type: ", t[k].name, t[k].n);
    if (other)
        printf(", other %zu", other);
    if (nt)
        putchar('\n');
}

int cmd_index(const cli_args *a)
{
    const char *db = db_opt(a);
    const char **excludes = hx_calloc(a->n + 1, sizeof *excludes);
    const char **folder_meta = hx_calloc(a->n + 1, sizeof *folder_meta);   /* --folder-meta NAMEs */
    const char **paths = hx_calloc(a->n_operands, sizeof *paths);
    size_t n_ex = 0, n_fm = 0, n_paths = a->n_operands, pos = 0;
    int threads = (int)opt_long(a, "--threads", 0), rc = 1;
    hx_precision precision = HX_PRECISION_FP32, recorded;
    const char *precision_flag = opt_str(a, "--precision");
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *ix = NULL;
    hx_update_report rep = {0};
    hx_error err = {0};
    char (*names)[HX_RELPATH_MAX] = NULL;
    if (!excludes || !folder_meta || !paths) {
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
    memcpy(paths, a->operands, n_paths * sizeof *paths);
    char root[4096];
    struct stat st;
    const char *root_src = n_paths == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode) ? paths[0] : ".";
    if (!realpath(root_src, root)) {
        fprintf(stderr, "hyrax index: cannot resolve %s: %s\n", root_src, strerror(errno));
        goto done;
    }
    int found = hx_index_precision(db, &recorded, &err);
    if (found == HX_ENOTFOUND && check_first_paths(root, paths, n_paths))
        goto done;
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
    if (make_db_folder("index", db) || open_encoder(a, threads, precision, &model, &enc))
        goto done;
    if (hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err)) {
        fprintf(stderr, "hyrax index: %s\n", err.message);
        goto done;
    }
    if (!(names = hx_calloc(n_paths, sizeof *names))) {
        fprintf(stderr, "hyrax index: out of memory\n");
        goto done;
    }
    for (size_t i = 0; i < n_paths; i++) {
        if (hx_fs_target(hx_index_root(ix), paths[i], HX_TARGET_CWD, names[i], sizeof names[i], &err)) {
            put_line(stderr, "hyrax index: ", err.message);
            goto done;
        }
        paths[i] = names[i];
    }
    progress_state prog = {isatty(2), (size_t)-1, (double)opt_long(a, "--progress-every", 5), now_seconds(), 0, false,
                           "index"};
    prog.last = prog.start;
    hx_update_opts o = {.excludes = excludes, .n_excludes = n_ex, .max_file_bytes = (size_t)opt_long(a, "--max-size", 0),
                        .reindex = opt_str(a, "--reindex") != NULL, .encoder = enc, .progress = index_progress,
                        .progress_ctx = &prog, .folder_meta = opt_str(a, "--folder-meta") ? folder_meta : NULL,
                        .n_folder_meta = n_fm, .commit_chunks = (size_t)opt_long(a, "--commit-every", 0)};
    catch_interrupts();
    int update_rc = hx_index_update(ix, paths, n_paths, &o, &rep, &err);
    hx_stats *counted = NULL;   /* the lasting statistics; never fails the command */
    if (!hx_stats_open(&counted, db, NULL, 0, NULL))
        hx_stats_note_update(counted, update_rc ? NULL : &rep, update_rc ? err.message : NULL, 0);
    hx_stats_close(counted);
    if (update_rc == HX_ECANCELED && interrupted) {
        if (prog.tty)
            fputc('\n', stderr);   /* past the progress bar */
        put_line(stderr, "hyrax index: interrupted: ", err.message);
        rc = 130;
        goto done;
    }
    if (update_rc) {
        put_line(stderr, "hyrax index: ", err.message);
        goto done;
    }
    for (size_t i = 0; i < rep.n_rejected; i++)
        put_line(stderr, "hyrax index: rejected ", rep.rejected[i].reason);
    if (rep.warning[0])
        put_line(stderr, "hyrax index: warning: ", rep.warning);
    if (opt_str(a, "--compact") && hx_index_compact(ix, &err)) {
        fprintf(stderr, "hyrax index: compaction failed: %s\n", err.message);
        goto done;
    }
    hx_index_stats stats;
    if (hx_index_stats_get(ix, &stats, &err)) {
        fprintf(stderr, "hyrax index: %s\n", err.message);
        goto done;
    }
    printf("added %zu, updated %zu, unchanged %zu, removed %zu, rejected %zu (+%zu/-%zu chunks) in %.2f s\n",
           rep.added, rep.updated, rep.unchanged, rep.removed, rep.n_rejected, rep.chunks_added,
           rep.chunks_removed, rep.seconds);
    if (rep.kept_out)
        printf("%zu files deleted by request stay out (index one by its own name to bring it back)\n",
               rep.kept_out);
    put_text(stdout, db, SIZE_MAX, false);
    printf(": %llu documents, %llu chunks, generation %llu, root ", (unsigned long long)stats.documents,
           (unsigned long long)stats.live_chunks, (unsigned long long)stats.generation);
    put_text(stdout, hx_index_root(ix), SIZE_MAX, false);
    putchar('\n');
    print_types(ix);
    rc = 0;
done:
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    hx_encoder_free(enc);
    hx_model_close(model);
    free(excludes);
    free(paths);
    free(folder_meta);
    free(names);
    return rc;
}
