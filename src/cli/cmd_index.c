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
    "under PATH that are gone are removed. Prints what it added, updated, skipped and removed,\n"
    "then the documents per type. A file's type comes from its content, then its name: HTML is\n"
    "read as text without markup, scripts or navigation; Markdown, YAML, JSON, XML, code and\n"
    "plain text as written ('hyrax help formats').\n"
    "Stored documents (add_document with content) are kept as they are, --reindex included.\n"
    "Files removed with 'hyrax rm' or delete_document stay out unless PATH names that file.\n"
    "The first run records the indexed root: the PATH when it is a single folder, else the current\n"
    "folder; later runs take paths inside it. The first run refuses a PATH that does not exist or\n"
    "lies outside that root, and then creates nothing. Without PATH: the recorded root again.\n"
    "Without --db or $" HX_DB_ENV ", the index is the .hyrax/index.hyx found in the folder of a single\n"
    "folder PATH (else the current folder) or the nearest folder above it; none found, a new one\n"
    "is made there (ROOT/.hyrax/index.hyx), and the last line names it.\n"
    "Progress goes to stderr: a bar on a terminal, else a line every few seconds.\n"
    "A long run commits every 8,192 chunks or so, at a file boundary: Ctrl-C keeps what was\n"
    "committed (exit 130), and running the same command again embeds only the rest.\n"
    "A chunk whose exact text the index already holds for this model and precision (a moved,\n"
    "renamed or copied file, the unchanged sections of a changed one) is not embedded again: its\n"
    "vector is reused, and the line 'embedded N chunks, reused M' says how many of each.\n";

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

/* No PATH: the root the index records, into root (0), or 1 after the message. */
static int recorded_root(const char *db, char *root, size_t cap)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    if (hx_index_open(&ix, db, HX_INDEX_READ, NULL, NULL, &err)) {
        put_line(stderr, "hyrax index: ", err.message);
        fputs("hyrax index: give the PATH to index (the first run records it as the root)\n", stderr);
        return 1;
    }
    snprintf(root, cap, "%s", hx_index_root(ix));
    hx_index_close(ix);
    return 0;
}

/* "by type: html 3, markdown 12": the documents the index holds, per detected type (`hyrax help
 * formats`), in order of first appearance. */
static void print_types(hx_session *s)
{
    struct type_count { const char *name; size_t n; } t[32];
    size_t nt = 0, other = 0;
    hx_list_opts lo = {0};
    hx_doc_list l = {0};
    if (hx_session_list(s, &lo, &l, NULL))
        return;
    for (size_t i = 0; i < l.n; i++) {
        const hx_doc_info *d = &l.docs[i];
        size_t k = 0;
        while (k < nt && strcmp(t[k].name, d->type))
            k++;
        if (k == nt && nt < sizeof t / sizeof *t)
            t[nt++] = (struct type_count){d->type, 0};
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
    hx_doc_list_free(&l);
}

int cmd_index(const cli_args *a)
{
    const char *db = opt_str(a, "--db") || getenv(HX_DB_ENV) ? db_opt(a) : NULL;   /* else found below */
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
    char root[4096], again[4096];
    const char *again_path[1] = {again};
    const char *const *paths = a->operands;
    size_t n_paths = a->n_operands;
    struct stat st;
    bool discovered;
    if (!n_paths) {   /* the recorded root again */
        if (!db && (db = db_find(NULL, &discovered), !discovered)) {
            fputs("hyrax index: no " DEFAULT_DB " in this folder or a folder above it: give the PATH to index\n",
                  stderr);
            goto done;
        }
        if (recorded_root(db, again, sizeof again))
            goto done;
        paths = again_path;
        n_paths = 1;
    }
    const char *root_src = n_paths == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode) ? paths[0] : ".";
    if (!db)   /* the index of the folder indexed, or the one above it */
        db = db_find(strcmp(root_src, ".") ? root_src : NULL, &discovered);
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
    hx_reindex_opts o = {.paths = paths, .n_paths = n_paths, .excludes = excludes, .n_excludes = n_ex,
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
    if (rep->chunks_added)   /* reused: the index held a vector for the same text, model and precision */
        printf("embedded %zu %s, reused %zu\n", rep->chunks_embedded, plural(rep->chunks_embedded, "chunk", "chunks"),
               rep->chunks_reused);
    if (rep->kept_out)
        printf("%zu %s deleted by request %s out (index one by its own name to bring it back)\n", rep->kept_out,
               plural(rep->kept_out, "file", "files"), plural(rep->kept_out, "stays", "stay"));
    put_text(stdout, db, SIZE_MAX, false);
    printf(": %llu %s, %llu %s, generation %llu, root ", (unsigned long long)w.stats.documents,
           plural(w.stats.documents, "document", "documents"), (unsigned long long)w.stats.live_chunks,
           plural(w.stats.live_chunks, "chunk", "chunks"), (unsigned long long)w.stats.generation);
    put_text(stdout, w.root, SIZE_MAX, false);
    putchar('\n');
    print_types(s);
    rc = 0;
done:
    hx_session_write_clear(&w);
    hx_session_close(s);
    free(excludes);
    free(folder_meta);
    return rc;
}
