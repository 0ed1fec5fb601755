/* main.c: the hyrax command line (DESIGN.md "Command line"). The only file that prints to
 * stdout, calls exit() or installs signal handlers; each command parses its flags and calls the
 * library. */
#include "fsafe.h"
#include "alloc.h"
#include "filter.h"
#include "hyrax.h"
#include "fusion.h"
#include "mcp.h"
#include "present.h"
#include "relpath.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "usage: hyrax COMMAND [OPTIONS]\n"
    "\n"
    "  tokenize            stdin lines -> one JSON array of token ids per line\n"
    "  embed               stdin lines -> one JSON array of 384 floats per line\n"
    "  index PATH...       index files and folders (incremental) into .hyrax/index.hyx\n"
    "  search QUERY        hybrid, vector or keyword search over the index\n"
    "  stats               counts, sizes, last commit and model of the index\n"
    "  verify              check every checksum of the index\n"
    "  rm PATH...          remove documents from the index\n"
    "  recover             make a damaged index writable again, keeping its newest provable commit\n"
    "  serve               MCP server (JSON-RPC 2.0 over stdio) for AI agents\n"
    "\n"
    "Run 'hyrax COMMAND --help' for the options of a command.\n";

/* === tokenize === */

static const char tokenize_usage[] =
    "usage: hyrax tokenize < LINES\n"
    "\n"
    "Reads UTF-8 text from stdin, one input per line (any length), and prints for each line one\n"
    "JSON array of all-MiniLM-L6-v2 token ids: [CLS] word pieces [SEP], truncated to 256 ids as\n"
    "the model sees them. Invalid UTF-8 bytes are ignored. The weights file is found as for embed\n"
    "($HYRAX_WEIGHTS, else weights/" HX_WEIGHTS_FILE " beside the executable).\n";

/* Prints ids as one JSON array line; returns 0 or -1 on a write error. */
static int tokenize_print(const int32_t *ids, size_t n)
{
    char buf[HX_MAX_SEQ_TOKENS * 12 + 4];
    size_t w = 0;
    buf[w++] = '[';
    for (size_t i = 0; i < n; i++)
        w += (size_t)snprintf(buf + w, sizeof buf - w, i ? ",%d" : "%d", (int)ids[i]);
    buf[w++] = ']';
    buf[w++] = '\n';
    return fwrite(buf, 1, w, stdout) == w ? 0 : -1;
}

static int cmd_tokenize(int argc, char **argv)
{
    if (argc > 1) {
        int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
        if (!help)
            fprintf(stderr, "hyrax tokenize: unexpected argument '%s'\n", argv[1]);
        fputs(tokenize_usage, help ? stdout : stderr);
        return help ? 0 : 2;
    }
    hx_error err = {0};
    hx_model *model = NULL;
    if (hx_model_open_default(&model, &err)) {
        fprintf(stderr, "hyrax tokenize: %s\n", err.message);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    int32_t ids[HX_MAX_SEQ_TOKENS];
    while (rc == 0 && (len = getline(&line, &cap, stdin)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            len--;
        size_t n = hx_model_input_ids(model, line, (size_t)len, ids, HX_MAX_SEQ_TOKENS);
        rc = tokenize_print(ids, n);
    }
    free(line);
    hx_model_close(model);
    if (rc || fflush(stdout) || ferror(stdin)) {
        fprintf(stderr, "hyrax tokenize: %s failed\n", ferror(stdin) ? "reading stdin" : "writing stdout");
        return 1;
    }
    return 0;
}

/* === embed === */

#define EMBED_BATCH 64          /* lines per forward pass */
#define EMBED_READ (1 << 20)    /* bytes asked of each read(2) */

/* Parses a --precision value; prints the problem and returns 1 when bad. */
static int precision_arg(const char *cmd, const char *s, hx_precision *out)
{
    hx_error err = {0};
    if (hx_precision_parse(s, out, &err)) {
        fprintf(stderr, "hyrax %s: --precision: %s\n", cmd, err.message);
        return 1;
    }
    return 0;
}

static const char embed_usage[] =
    "usage: hyrax embed [--threads N] [--weights PATH] [--precision fp32|int8] < LINES\n"
    "\n"
    "Reads UTF-8 text from stdin, one input per line, and prints for each line one JSON array of\n"
    "384 floats: the L2-normalised all-MiniLM-L6-v2 embedding (inputs past 256 word pieces are\n"
    "truncated, as sentence-transformers does). Lines are embedded in batches of up to 64 as they\n"
    "arrive, and each batch is printed as soon as it is done.\n"
    "\n"
    "  --threads N     worker threads (default 0 = one per core)\n"
    "  --weights PATH  weights file (default $HYRAX_WEIGHTS, else weights/" HX_WEIGHTS_FILE "\n"
    "                  beside the executable or one folder above it)\n"
    "  --precision P   fp32 (default: sentence-transformers' vectors) or int8 (about twice as\n"
    "                  fast, cosine >= 0.995 to fp32's)\n";

/* Prints one vector as a JSON array line; returns 0 or -1 on a write error. */
static int embed_print(const float *v, int dim)
{
    char buf[HX_EMBED_DIM * 18 + 4];
    size_t w = 0;
    buf[w++] = '[';
    for (int i = 0; i < dim && i < HX_EMBED_DIM; i++)
        w += (size_t)snprintf(buf + w, sizeof buf - w, i ? ",%.9g" : "%.9g", (double)v[i]);
    buf[w++] = ']';
    buf[w++] = '\n';
    return fwrite(buf, 1, w, stdout) == w ? 0 : -1;
}

/* Embeds and prints n lines, then flushes stdout so output streams batch by batch. */
static int embed_batch(hx_encoder *enc, const char **texts, const size_t *lens, size_t n, float *out,
                       int dim)
{
    hx_error err = {0};
    if (n == 0)
        return 0;
    if (hx_encoder_embed(enc, texts, lens, n, out, &err)) {
        fprintf(stderr, "hyrax embed: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (embed_print(out + i * (size_t)dim, dim))
            return -1;
    return fflush(stdout) ? -1 : 0;
}

/* Parses the flags; returns -1 to go on, else the exit status. */
static int embed_args(int argc, char **argv, int *threads, const char **weights, hx_precision *precision)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(embed_usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--precision") && i + 1 < argc) {
            if (precision_arg("embed", argv[++i], precision))
                return 2;
            continue;
        }
        if ((!strcmp(argv[i], "--threads") || !strcmp(argv[i], "--weights")) && i + 1 < argc) {
            if (argv[i][2] == 'w') {
                *weights = argv[++i];
                continue;
            }
            char *end;
            errno = 0;
            long t = strtol(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || t < 0 || t > 256) {
                fprintf(stderr, "hyrax embed: --threads wants a number from 0 to 256, not '%s'\n", argv[i]);
                return 2;
            }
            *threads = (int)t;
            continue;
        }
        fprintf(stderr, "hyrax embed: unexpected argument '%s'\n%s", argv[i], embed_usage);
        return 2;
    }
    return -1;
}

static int cmd_embed(int argc, char **argv)
{
    int threads = 0;
    const char *weights = NULL;
    hx_precision precision = HX_PRECISION_FP32;
    int rc = embed_args(argc, argv, &threads, &weights, &precision);
    if (rc >= 0)
        return rc;
    hx_error err = {0};
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_model_opts mo = {weights, precision};
    if (hx_model_open_opts(&model, &mo, &err) ||
        hx_encoder_new(&enc, model, threads, &err)) {
        fprintf(stderr, "hyrax embed: %s\n", err.message);
        hx_model_close(model);
        return 1;
    }
    const int dim = hx_model_dim(model);
    float *out = hx_malloc((size_t)EMBED_BATCH * (size_t)dim * sizeof *out);
    size_t cap = 2 * EMBED_READ, len = 0;
    char *buf = hx_malloc(cap);
    const char *texts[EMBED_BATCH];
    size_t lens[EMBED_BATCH];
    int eof = 0;
    rc = out && buf ? 0 : 1;
    if (rc)
        fputs("hyrax embed: out of memory\n", stderr);
    while (!rc && !eof) {
        if (cap - len < EMBED_READ) {   /* a line longer than the buffer: grow it */
            char *grown = cap <= ((size_t)1 << 40) ? hx_realloc(buf, cap * 2) : NULL;
            if (!grown) {
                fputs("hyrax embed: out of memory for a long line\n", stderr);
                rc = 1;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t k = read(0, buf + len, EMBED_READ);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            fprintf(stderr, "hyrax embed: reading stdin: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        eof = k == 0;
        len += (size_t)k;
        /* Every complete line (and at end of input a last unterminated one) goes out now. */
        size_t start = 0, n = 0;
        for (size_t i = 0; i < len && !rc; i++) {
            if (buf[i] != '\n' && !(eof && i + 1 == len))
                continue;
            size_t end = buf[i] == '\n' ? i : i + 1;
            texts[n] = buf + start;
            lens[n++] = end - start;
            start = i + 1;
            if (n == EMBED_BATCH) {
                rc = embed_batch(enc, texts, lens, n, out, dim);
                n = 0;
            }
        }
        if (!rc)
            rc = embed_batch(enc, texts, lens, n, out, dim);
        memmove(buf, buf + start, len - start);
        len -= start;
    }
    if (rc < 0)
        fprintf(stderr, "hyrax embed: writing stdout: %s\n", strerror(errno));
    free(buf);
    free(out);
    hx_encoder_free(enc);
    hx_model_close(model);
    return rc ? 1 : 0;
}

/* === Reading an index that changes underneath (hyrax.h) === */

static struct sigaction fault_before[2];   /* SIGBUS, SIGSEGV actions before ours */

/* SIGBUS / SIGSEGV: back to the guard around the read that faulted. Outside a guard the action
 * from before is put back and the returning fault meets it (death, or a sanitizer's report). */
static void on_fault(int sig)
{
    hx_fault_jump();
    sigaction(sig, &fault_before[sig == SIGSEGV], NULL);
}

/* Runs fn(arg) -- which opens an index, reads it and prints -- so that an index file truncated or
 * overwritten meanwhile gives exit status 1 and a message instead of death by a signal. What fn
 * had open is abandoned: the process is about to exit. */
static int guarded(const char *cmd, int (*fn)(void *), void *arg)
{
    hx_fault_guard g;
    if (!HX_FAULT_GUARD(g)) {
        fflush(stdout);
        fprintf(stderr, "hyrax %s: %s; run it again\n", cmd, HX_FAULT_MESSAGE);
        return 1;
    }
    int rc = fn(arg);
    hx_fault_leave(&g);
    return rc;
}

/* === Index commands: shared options === */

#define DEFAULT_DB ".hyrax/index.hyx"

/* Parses a number flag value within [lo, hi]; prints the problem and returns -1 when bad. */
static long number_arg(const char *cmd, const char *flag, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) {
        fprintf(stderr, "hyrax %s: %s wants a number from %ld to %ld, not '%s'\n", cmd, flag, lo, hi, s);
        return -1;
    }
    return v;
}

/* Opens the model (found as for embed) at `precision` and an encoder. */
static int open_encoder(const char *cmd, int threads, hx_precision precision, hx_model **model, hx_encoder **enc)
{
    hx_error err = {0};
    hx_model_opts mo = {NULL, precision};
    *model = NULL;
    *enc = NULL;
    if (hx_model_open_opts(model, &mo, &err) ||
        hx_encoder_new(enc, *model, threads, &err)) {
        fprintf(stderr, "hyrax %s: %s\n", cmd, err.message);
        hx_model_close(*model);
        *model = NULL;
        return 1;
    }
    return 0;
}

/* === Printing text from files and users === */

/* Writes at most max bytes of s to f with control characters escaped, so a file name, title or
 * message can never start a new output line or drive the terminal: bytes below 0x20, DEL and the
 * C1 controls (UTF-8 C2 80..C2 9F) become \n, \r, \t or \xHH, and a backslash is doubled so the
 * output reads back unambiguously. With fold_lines (snippets of document text) a line break
 * becomes a space, and tabs and backslashes stay as they are. The one way the command line
 * prints paths and the messages that quote them. */
static void put_text(FILE *f, const char *s, size_t max, bool fold_lines)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < max && p[i]; i++) {
        unsigned c = p[i];
        if (fold_lines && (c == '\n' || c == '\r' || c == '\t'))
            fputc(c == '\t' ? '\t' : ' ', f);
        else if (c == '\n' || c == '\r' || c == '\t')
            fprintf(f, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20 || c == 0x7F)
            fprintf(f, "\\x%02x", c);
        else if (c == 0xC2 && i + 1 < max && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F)
            fprintf(f, "\\xc2\\x%02x", p[++i]);
        else if (c == '\\' && !fold_lines)
            fputs("\\\\", f);
        else
            fputc((int)c, f);
    }
}

/* prefix, then text escaped by put_text, then a newline. */
static void put_line(FILE *f, const char *prefix, const char *text)
{
    fputs(prefix, f);
    put_text(f, text, SIZE_MAX, false);
    fputc('\n', f);
}

/* === index === */

static const char index_usage[] =
    "usage: hyrax index [--db FILE] [--reindex] [--exclude GLOB]... [--max-size BYTES]\n"
    "                   [--threads N] [--compact] [--precision fp32|int8] [--folder-meta NAME]...\n"
    "                   PATH...\n"
    "\n"
    "Indexes the files under each PATH into one index file, or brings it up to date: new files are\n"
    "added, changed ones re-embedded, unchanged ones skipped (content hash), and indexed files\n"
    "under PATH that are gone are removed. Prints what it added, updated, skipped and removed.\n"
    "Stored documents (add_document with content) are kept as they are, --reindex included.\n"
    "Files removed with 'hyrax rm' or delete_document stay out unless PATH names that file.\n"
    "The first run records the indexed root: the PATH when it is a single folder, else the current\n"
    "folder; later runs take paths inside it.\n"
    "\n"
    "  --db FILE         index file (default " DEFAULT_DB ")\n"
    "  --reindex         re-chunk and re-embed every file under PATH\n"
    "  --exclude GLOB    skip root-relative paths matching GLOB (repeatable; ** spans folders)\n"
    "  --max-size BYTES  reject files larger than this (default 16 MiB)\n"
    "  --threads N       embedding threads (default 0 = one per core)\n"
    "  --compact         rewrite the index into one segment afterwards\n"    "  --folder-meta NAME  the other documents of a folder inherit the metadata of its file NAME\n"
    "                    (repeatable, first wins; own keys win over inherited ones). The index\n"
    "                    keeps the list; a new one takes kep.yaml, README.md; '' turns it off\n"
    "  --precision P     how a new index embeds: fp32 (default, sentence-transformers' vectors)\n"
    "                    or int8 (about twice as fast, cosine >= 0.995 to fp32's). The index\n"
    "                    records it and search embeds queries the same way; an existing index\n"
    "                    keeps its own (changing it needs a new index file)\n";

typedef struct {
    int tty;
    size_t last_pct;
} progress_state;

static int index_progress(void *ctx, size_t done, size_t total, const char *path)
{
    progress_state *p = ctx;
    if (!p->tty || !total || !path)   /* path NULL: the call before the commit, nothing new */
        return 0;
    size_t pct = done * 100 / total;
    if (pct == p->last_pct && done != total)
        return 0;
    p->last_pct = pct;
    int bar = (int)(pct * 30 / 100);
    fprintf(stderr, "\r[%-30.*s] %3zu%% %zu/%zu chunks ", bar, "==============================", pct, done, total);
    put_text(stderr, path, 40, false);
    fputs("\033[K", stderr);
    if (done == total)
        fputc('\n', stderr);
    return 0;
}

/* Makes the folder that will hold the index file. */
static int make_db_folder(const char *db)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", db);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "hyrax index: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    return 0;
}

static int cmd_index(int argc, char **argv)
{
    const char *db = DEFAULT_DB;
    const char **excludes = hx_calloc((size_t)argc, sizeof *excludes);
    const char **paths = hx_calloc((size_t)argc, sizeof *paths);
    const char **folder_meta = hx_calloc((size_t)argc, sizeof *folder_meta);
    size_t n_ex = 0, n_paths = 0, n_fm = 0;
    bool set_fm = false;
    long threads = 0, max_size = 0;
    int reindex = 0, compact = 0, rc = 2;
    hx_precision precision = HX_PRECISION_FP32, recorded;
    const char *precision_flag = NULL;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *ix = NULL;
    hx_update_report rep = {0};
    hx_error err = {0};
    char (*names)[HX_RELPATH_MAX] = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(index_usage, stdout);
            rc = 0;
            goto done;
        } else if (!strcmp(a, "--db") && has_value) {
            db = argv[++i];
        } else if (!strcmp(a, "--exclude") && has_value) {
            excludes[n_ex++] = argv[++i];
        } else if (!strcmp(a, "--folder-meta") && has_value) {
            set_fm = true;
            if (*argv[++i])
                folder_meta[n_fm++] = argv[i];
        } else if (!strcmp(a, "--threads") && has_value) {
            if ((threads = number_arg("index", a, argv[++i], 0, 256)) < 0)
                goto done;
        } else if (!strcmp(a, "--max-size") && has_value) {
            if ((max_size = number_arg("index", a, argv[++i], 1, 1L << 40)) < 0)
                goto done;
        } else if (!strcmp(a, "--precision") && has_value) {
            precision_flag = argv[++i];
            if (precision_arg("index", precision_flag, &precision))
                goto done;
        } else if (!strcmp(a, "--reindex")) {
            reindex = 1;
        } else if (!strcmp(a, "--compact")) {
            compact = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "hyrax index: unknown option '%s'\n%s", a, index_usage);
            goto done;
        } else {
            paths[n_paths++] = a;
        }
    }
    if (!n_paths) {
        fprintf(stderr, "hyrax index: give at least one PATH\n%s", index_usage);
        goto done;
    }
    rc = 1;
    char root[4096];
    struct stat st;
    const char *root_src = n_paths == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode) ? paths[0] : ".";
    if (!realpath(root_src, root)) {
        fprintf(stderr, "hyrax index: cannot resolve %s: %s\n", root_src, strerror(errno));
        goto done;
    }
    if (hx_index_precision(db, &recorded, &err) == 0) {   /* an existing index keeps its precision */
        if (precision_flag && recorded != precision) {
            fputs("hyrax index: ", stderr);
            put_text(stderr, db, SIZE_MAX, false);
            fprintf(stderr, " holds %s vectors; --precision %s needs a new index: reindex into another "
                    "--db file (or remove this one first)\n", hx_precision_name(recorded), precision_flag);
            goto done;
        }
        precision = recorded;
    }
    if (make_db_folder(db) || open_encoder("index", (int)threads, precision, &model, &enc))
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
    progress_state prog = {isatty(2), (size_t)-1};
    hx_update_opts o = {excludes, n_ex, (size_t)max_size, reindex, enc, index_progress, &prog,
                        set_fm ? folder_meta : NULL, n_fm};
    if (hx_index_update(ix, paths, n_paths, &o, &rep, &err)) {
        put_line(stderr, "hyrax index: ", err.message);
        goto done;
    }
    for (size_t i = 0; i < rep.n_rejected; i++)
        put_line(stderr, "hyrax index: rejected ", rep.rejected[i].reason);
    if (rep.warning[0])
        put_line(stderr, "hyrax index: warning: ", rep.warning);
    if (compact && hx_index_compact(ix, &err)) {
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

/* === search === */

static const char search_usage[] =
    "usage: hyrax search [--db FILE] [--mode hybrid|vector|keyword] [-k N] [--group document|chunk]\n"
    "                    [--filter KEY=VALUE]... [--min-score X] [--fusion rrf|weighted] [--weights V,T]\n"
    "                    [--ef N] [--json] QUERY...\n"
    "\n"
    "Searches the index and prints the best documents (or chunks), best first.\n"
    "\n"
    "  --mode M            hybrid (default: vector and keyword fused), vector, or keyword\n"
    "  -k N                results to print (default 10, at most 1000)\n"
    "  --group G           document (default): one result per document, its best chunk, with its\n"
    "                      other matching chunks as `more`, and k counts documents; chunk: every\n"
    "                      matching chunk on its own (the same document may come several times)\n"
    "  --filter KEY=VALUE  a metadata value (numbers compare as numbers); KEY=A,B any of them;\n"
    "                      KEY>=X, KEY>X, KEY<=X, KEY<X, KEY=X..Y a number or ISO-8601 date range\n"
    "                      (a date-only upper bound takes its whole day); repeatable (AND). Keys:\n"
    "                      metadata (front matter, YAML, the folder's kep.yaml and README front\n"
    "                      matter; _ and - alike; sig_name = owning-sig, kep_id = kep-number) or\n"
    "                      path=GLOB (** spans folders), type, ext, dir, folder, indexed_at, mtime\n"
    "  --min-score X       drop results scoring below X; the scale depends on the mode: vector is\n"
    "                      cosine (-1..1), keyword is BM25 (0..unbounded), hybrid RRF is the sum of\n"
    "                      weight/(60+rank) (at most 1/61 = 0.0164 with the default weights),\n"
    "                      hybrid weighted is 0..1\n"
    "  --fusion F          rrf (default, k = 60) or weighted (min-max normalised scores)\n"
    "  --weights V,T       weights of the vector and keyword sides, for either fusion (0.5,0.5);\n"
    "                      each finite and >= 0, not both 0\n"
    "  --ef N              HNSW search breadth (default 64)\n"
    "  --json              print one JSON object (query, mode, group, results, total_results,\n"
    "                      search_time_ms)\n"
    "\n"
    "Keyword syntax: \"exact phrase\", -exclude, +require, prefix*.\n";

static int print_results_text(const hx_results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const hx_result *x = &r->v[i];
        size_t tl = strlen(x->title);
        bool heading_has_title = !strncmp(x->heading, x->title, tl) && (!x->heading[tl] || x->heading[tl] == ' ');
        const char *title = heading_has_title ? "" : x->title;
        printf("%u. ", x->rank);
        put_text(stdout, x->path, SIZE_MAX, false);
        printf(":%u-%u  (score %.4f)\n   ", x->line_start, x->line_end, (double)x->score);
        put_text(stdout, title, SIZE_MAX, false);
        fputs(*title && *x->heading ? " > " : "", stdout);
        put_text(stdout, x->heading, SIZE_MAX, false);
        fputs("\n   ", stdout);
        put_text(stdout, x->snippet ? x->snippet : "", SIZE_MAX, true);
        putchar('\n');
        for (size_t m = 0; m < x->n_more; m++)
            printf("%s%u-%u%s", m ? ", " : "   also lines ", x->more[m].line_start, x->more[m].line_end,
                   m + 1 == x->n_more ? "\n" : "");
    }
    printf("%zu results in %.1f ms\n", r->n, r->search_ms);
    return 0;
}

typedef struct {
    const char *db;
    hx_model *model;       /* borrowed; NULL for keyword mode */
    hx_encoder *enc;       /* borrowed */
    const char *query;
    size_t qlen;
    const hx_search_opts *o;
    int json;
} search_job;

/* Opens the index, searches and prints; the exit status. Runs under guarded(). */
static int run_search(void *arg)
{
    const search_job *j = arg;
    hx_index *ix = NULL;
    hx_results res = {0};
    hx_error err = {0};
    int rc = 1;
    if (hx_index_open(&ix, j->db, HX_INDEX_READ, j->model, NULL, &err) ||
        hx_index_search(ix, j->enc, j->query, j->qlen, j->o, &res, &err)) {
        fprintf(stderr, "hyrax search: %s\n", err.message);
        goto done;
    }
    if (j->json) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_present_search(&w, j->query, j->o->mode, &res);
        if (hx_json_writer_finish(&w, &err)) {
            fprintf(stderr, "hyrax search: %s\n", err.message);
            hx_json_writer_free(&w);
            goto done;
        }
        fwrite(w.buf, 1, w.len, stdout);
        putchar('\n');
        hx_json_writer_free(&w);
    } else {
        print_results_text(&res);
    }
    rc = fflush(stdout) ? 1 : 0;
done:
    hx_results_free(&res);
    hx_index_close(ix);
    return rc;
}

typedef struct {
    const char *db;
    hx_precision precision;
} precision_job;

/* The index's precision into j->precision; the exit status (1 with a message when there is no
 * index; any other failure is left to the open that follows). Runs under guarded(). */
static int read_precision(void *arg)
{
    precision_job *j = arg;
    hx_error err = {0};
    if (hx_index_precision(j->db, &j->precision, &err) == HX_ENOTFOUND) {
        fprintf(stderr, "hyrax search: %s\n", err.message);
        return 1;
    }
    return 0;
}

static int cmd_search(int argc, char **argv)
{
    const char *db = DEFAULT_DB;
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.snippets = 1;
    o.group = HX_GROUP_DOCUMENT;
    hx_filter_set filters = {0};
    char *query = NULL;
    size_t qlen = 0;
    int json = 0, rc = 2;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(search_usage, stdout);
            rc = 0;
            goto done;
        } else if (!strcmp(a, "--db") && has_value) {
            db = argv[++i];
        } else if (!strcmp(a, "--mode") && has_value) {
            if (hx_mode_parse(argv[++i], &o.mode)) {
                fprintf(stderr, "hyrax search: --mode is hybrid, vector or keyword, not '%s'\n", argv[i]);
                goto done;
            }
        } else if ((!strcmp(a, "-k") || !strcmp(a, "--top-k")) && has_value) {
            if ((n = number_arg("search", a, argv[++i], 1, 1000)) < 0)
                goto done;
            o.k = (uint32_t)n;
        } else if (!strcmp(a, "--group") && has_value) {
            if (hx_group_parse(argv[++i], &o.group)) {
                fprintf(stderr, "hyrax search: --group is document or chunk, not '%s'\n", argv[i]);
                goto done;
            }
        } else if (!strcmp(a, "--ef") && has_value) {
            if ((n = number_arg("search", a, argv[++i], 1, 100000)) < 0)
                goto done;
            o.ef = (uint32_t)n;
        } else if (!strcmp(a, "--filter") && has_value) {
            hx_error err = {0};
            if (hx_filter_parse_arg(&filters, argv[++i], &err)) {
                fprintf(stderr, "hyrax search: --filter: %s\n", err.message);
                goto done;
            }
        } else if (!strcmp(a, "--min-score") && has_value) {
            char *end;
            o.min_score = strtof(argv[++i], &end);
            if (*end || end == argv[i] || isnan(o.min_score)) {
                fprintf(stderr, "hyrax search: --min-score wants a number, not '%s'\n", argv[i]);
                goto done;
            }
        } else if (!strcmp(a, "--fusion") && has_value) {
            const char *f = argv[++i];
            if (strcmp(f, "rrf") && strcmp(f, "weighted")) {
                fprintf(stderr, "hyrax search: --fusion is rrf or weighted, not '%s'\n", f);
                goto done;
            }
            o.fusion = !strcmp(f, "weighted");
        } else if (!strcmp(a, "--weights") && has_value) {
            char *comma, *end;
            o.vector_weight = strtof(argv[++i], &comma);
            if (comma == argv[i] || *comma != ',' ||
                (o.text_weight = strtof(comma + 1, &end), end == comma + 1 || *end)) {
                fprintf(stderr, "hyrax search: --weights wants V,T (two numbers), not '%s'\n", argv[i]);
                goto done;
            }
            hx_error werr = {0};
            if (hx_fusion_check_weights(o.vector_weight, o.text_weight, &werr)) {
                fprintf(stderr, "hyrax search: --weights %s: %s\n", argv[i], werr.message);
                goto done;
            }
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9') && strcmp(a, "--")) {
            fprintf(stderr, "hyrax search: unknown option '%s'\n%s", a, search_usage);
            goto done;
        } else {
            size_t l = strlen(a);   /* the words of the query, joined by spaces */
            char *q = hx_realloc(query, qlen + l + 2);
            if (!q)
                goto done;
            query = q;
            if (qlen)
                query[qlen++] = ' ';
            memcpy(query + qlen, a, l + 1);
            qlen += l;
        }
    }
    if (!query) {
        fprintf(stderr, "hyrax search: give a QUERY\n%s", search_usage);
        goto done;
    }
    o.filters = filters.v;
    o.n_filters = filters.n;
    rc = 1;
    precision_job pj = {db, HX_PRECISION_FP32};   /* queries are embedded as the index's vectors were */
    if (o.mode != HX_MODE_KEYWORD && guarded("search", read_precision, &pj))
        goto done;
    if (o.mode != HX_MODE_KEYWORD && open_encoder("search", 1, pj.precision, &model, &enc))
        goto done;
    search_job job = {db, model, enc, query, qlen, &o, json};
    rc = guarded("search", run_search, &job);
done:
    hx_encoder_free(enc);
    hx_model_close(model);
    hx_filter_set_free(&filters);
    free(query);
    return rc;
}

/* === stats, verify, rm === */

/* Parses --db (and --json when json is not NULL); collects other arguments into rest. */
static int db_args(const char *cmd, const char *usage_text, int argc, char **argv, const char **db, int *json,
                   const char **rest, size_t *n_rest)
{
    *db = DEFAULT_DB;
    if (n_rest)
        *n_rest = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--db") && i + 1 < argc) {
            *db = argv[++i];
        } else if (json && !strcmp(argv[i], "--json")) {
            *json = 1;
        } else if (rest && !(argv[i][0] == '-' && argv[i][1])) {
            rest[(*n_rest)++] = argv[i];
        } else {
            fprintf(stderr, "hyrax %s: unexpected argument '%s'\n%s", cmd, argv[i], usage_text);
            return 2;
        }
    }
    return -1;
}

static const char stats_usage[] =
    "usage: hyrax stats [--db FILE] [--json]\n\nPrints counts, sizes, the last commit and the model.\n";

typedef struct {
    const char *db;
    int json;
} db_job;

/* Opens the index and prints its statistics; the exit status. Runs under guarded(). */
static int run_stats(void *arg)
{
    const db_job *j = arg;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    if (hx_index_open(&ix, j->db, HX_INDEX_READ, NULL, NULL, &err) || hx_index_stats_get(ix, &st, &err)) {
        fprintf(stderr, "hyrax stats: %s\n", err.message);
        hx_index_close(ix);
        return 1;
    }
    if (*hx_index_damage(ix))
        fprintf(stderr, "hyrax stats: warning: %s: %s (see 'hyrax verify')\n", j->db, hx_index_damage(ix));
    if (j->json) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_present_stats(&w, &st, hx_index_root(ix));
        if (!hx_json_writer_finish(&w, &err))
            printf("%s\n", w.buf);
        hx_json_writer_free(&w);
    } else {
        time_t t = (time_t)(st.committed_ns / 1000000000);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
        fputs("index       ", stdout);
        put_text(stdout, j->db, SIZE_MAX, false);
        fputs("\nroot        ", stdout);
        put_text(stdout, hx_index_root(ix), SIZE_MAX, false);
        printf("\ndocuments   %llu\nchunks      %llu (%llu stored, %llu deleted)\n"
               "tokens      %llu\nsegments    %llu\nfile size   %.1f MiB\ngeneration  %llu, committed %s\n"
               "model       %s (%d dimensions)\n",
               (unsigned long long)st.documents, (unsigned long long)st.live_chunks,
               (unsigned long long)st.chunks, (unsigned long long)st.tombstones, (unsigned long long)st.tokens,
               (unsigned long long)st.segments, (double)st.file_bytes / 1048576.0,
               (unsigned long long)st.generation, when, st.model, st.dim);
    }
    hx_index_close(ix);
    return 0;
}

static int cmd_stats(int argc, char **argv)
{
    db_job job = {NULL, 0};
    int rc = db_args("stats", stats_usage, argc, argv, &job.db, &job.json, NULL, NULL);
    return rc >= 0 ? rc : guarded("stats", run_stats, &job);
}

static const char verify_usage[] =
    "usage: hyrax verify [--db FILE]\n\nChecks every checksum and table of the index; exit 1 on damage.\n";

/* Opens the index and checks it; the exit status. Runs under guarded(). */
static int run_verify(void *arg)
{
    const db_job *j = arg;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    if (hx_index_open(&ix, j->db, HX_INDEX_READ, NULL, NULL, &err) || hx_index_verify(ix, &err) ||
        hx_index_stats_get(ix, &st, &err)) {
        if (err.offset >= 0)
            fprintf(stderr, "hyrax verify: %s: %s (at byte %lld)\n", j->db, err.message, (long long)err.offset);
        else
            fprintf(stderr, "hyrax verify: %s: %s\n", j->db, err.message);
        hx_index_close(ix);
        return 1;
    }
    put_text(stdout, j->db, SIZE_MAX, false);
    printf(": ok, generation %llu, %llu documents, %llu chunks, every checksum verified\n",
           (unsigned long long)st.generation, (unsigned long long)st.documents,
           (unsigned long long)st.live_chunks);
    hx_index_close(ix);
    return 0;
}

static int cmd_verify(int argc, char **argv)
{
    db_job job = {NULL, 0};
    int rc = db_args("verify", verify_usage, argc, argv, &job.db, NULL, NULL, NULL);
    return rc >= 0 ? rc : guarded("verify", run_verify, &job);
}

static const char recover_usage[] =
    "usage: hyrax recover [--db FILE]\n\n"
    "Makes a damaged index writable again. Readers already use the newest commit that can be proven\n"
    "(a commit whose meta slot is damaged is recovered from its commit record); writers refuse a\n"
    "file whose damage they cannot settle without destroying bytes past that commit. recover keeps\n"
    "that commit, rewrites the damaged meta slot and discards the bytes past it. A sound file is\n"
    "left as it is.\n";

static int cmd_recover(int argc, char **argv)
{
    const char *db;
    int rc = db_args("recover", recover_usage, argc, argv, &db, NULL, NULL, NULL);
    if (rc >= 0)
        return rc;
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
        printf("%s: found: %s\n%s: recovered: generation %llu, %llu documents\n", db, hx_index_damage(ix), db,
               (unsigned long long)st.generation, (unsigned long long)st.documents);
    else
        printf("%s: sound, nothing to recover (generation %llu, %llu documents)\n", db,
               (unsigned long long)st.generation, (unsigned long long)st.documents);
    hx_index_close(ix);
    return 0;
}

static const char rm_usage[] =
    "usage: hyrax rm [--db FILE] PATH...\n\n"
    "Removes documents from the index: a PATH that names a document removes exactly it, a folder\n"
    "removes every document under it; a PATH that names nothing (or the root) is an error and\n"
    "nothing is removed. PATH is relative to the indexed root, or a path on disk inside it. The\n"
    "files themselves are not touched, and 'hyrax index' leaves removed files out until a file is\n"
    "indexed again by its own name ('hyrax index docs/a.md'). Stored documents (add_document with\n"
    "content) are gone for good.\n";

static int cmd_rm(int argc, char **argv)
{
    const char *db;
    const char **paths = hx_calloc((size_t)argc, sizeof *paths);
    char (*rel)[HX_RELPATH_MAX] = hx_calloc((size_t)argc, sizeof *rel);
    size_t n = 0;
    int rc = paths && rel ? db_args("rm", rm_usage, argc, argv, &db, NULL, paths, &n) : 1;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_update_report rep = {0};
    if (rc >= 0)
        goto done;
    rc = 1;
    if (!n) {
        fprintf(stderr, "hyrax rm: give at least one PATH\n%s", rm_usage);
        rc = 2;
        goto done;
    }
    if (hx_index_open(&ix, db, HX_INDEX_WRITE, NULL, NULL, &err)) {
        fprintf(stderr, "hyrax rm: %s\n", err.message);
        goto done;
    }
    const char *root = hx_index_root(ix);
    for (size_t i = 0; i < n; i++) {
        /* a path on disk (relative to the current folder) when one exists there inside the root,
         * else a root-relative name */
        struct stat st;
        int how = paths[i][0] == '/' || lstat(paths[i], &st) == 0 ? HX_TARGET_CWD : HX_TARGET_NAME;
        int trc = hx_fs_target(root, paths[i], how, rel[i], sizeof rel[i], &err);
        if (trc == HX_EPERM && how == HX_TARGET_CWD && paths[i][0] != '/')
            trc = hx_fs_target(root, paths[i], HX_TARGET_NAME, rel[i], sizeof rel[i], &err);
        if (!trc && !rel[i][0])
            trc = hx_error_set(&err, HX_EINVAL, -1, "'%.200s' names the indexed root, not a document", paths[i]);
        if (trc) {
            put_line(stderr, "hyrax rm: ", err.message);
            goto done;
        }
        paths[i] = rel[i];
    }
    if (hx_index_remove(ix, paths, n, HX_REMOVE_FOLDERS, &rep, &err)) {
        fprintf(stderr, "hyrax rm: %s\n", err.message);
        goto done;
    }
    printf("removed %zu documents (%zu chunks)\n", rep.removed, rep.chunks_removed);
    if (rep.warning[0])
        fprintf(stderr, "hyrax rm: warning: %s\n", rep.warning);
    rc = 0;
done:
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    free(paths);
    free(rel);
    return rc;
}

/* === serve === */

static const char serve_usage[] =
    "usage: hyrax serve [--db FILE] [--root DIR] [--read-only] [--threads N] [--weights PATH]\n"
    "\n"
    "Runs a Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one message per line; logs\n"
    "on stderr). Tools: search, get_context, find_similar, list_documents, get_document,\n"
    "document_status, add_document, delete_document, reindex, index_health.\n"
    "\n"
    "  --db FILE       index file (default " DEFAULT_DB ")\n"
    "  --root DIR      indexed root when the index does not exist yet (default: the current folder)\n"
    "  --read-only     refuse add_document, delete_document and reindex\n"
    "  --threads N     embedding threads for writes (default 0 = one per core)\n"
    "  --weights PATH  weights file (default as for embed)\n";

static int stop_pipe[2] = {-1, -1};

/* SIGTERM / SIGINT: tell the server through a pipe (write(2) is async-signal-safe). */
static void on_stop_signal(int sig)
{
    (void)sig;
    char b = 1;
    ssize_t n = write(stop_pipe[1], &b, 1);
    (void)n;
}

static int cmd_serve(int argc, char **argv)
{
    hx_mcp_config cfg = {DEFAULT_DB, NULL, NULL, 0, 0, -1};
    const char *root_arg = ".";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(serve_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--db") && has_value) {
            cfg.db = argv[++i];
        } else if (!strcmp(a, "--root") && has_value) {
            root_arg = argv[++i];
        } else if (!strcmp(a, "--weights") && has_value) {
            cfg.weights = argv[++i];
        } else if (!strcmp(a, "--read-only")) {
            cfg.read_only = 1;
        } else if (!strcmp(a, "--threads") && has_value) {
            long t = number_arg("serve", a, argv[++i], 0, 256);
            if (t < 0)
                return 2;
            cfg.threads = (int)t;
        } else {
            fprintf(stderr, "hyrax serve: unexpected argument '%s'\n%s", a, serve_usage);
            return 2;
        }
    }
    char root[4096];
    if (!realpath(root_arg, root)) {
        fprintf(stderr, "hyrax serve: cannot resolve --root %s: %s\n", root_arg, strerror(errno));
        return 1;
    }
    cfg.root = root;
    if (!cfg.read_only && make_db_folder(cfg.db))
        return 1;
    if (pipe(stop_pipe) != 0) {
        fprintf(stderr, "hyrax serve: pipe: %s\n", strerror(errno));
        return 1;
    }
    cfg.stop_fd = stop_pipe[0];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);   /* a client that goes away gives EPIPE, not death */
    hx_error err = {0};
    int rc = hx_mcp_serve(0, 1, &cfg, &err);
    if (rc)
        fprintf(stderr, "hyrax serve: %s\n", err.message);
    close(stop_pipe[0]);
    close(stop_pipe[1]);
    return rc ? 1 : 0;
}

/* === Dispatch === */

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"tokenize", cmd_tokenize},
    {"embed", cmd_embed},
    {"index", cmd_index},
    {"search", cmd_search},
    {"stats", cmd_stats},
    {"verify", cmd_verify},
    {"rm", cmd_rm},
    {"recover", cmd_recover},
    {"serve", cmd_serve},
};

int main(int argc, char **argv)
{
    struct sigaction fault;
    memset(&fault, 0, sizeof fault);
    fault.sa_handler = on_fault;
    sigemptyset(&fault.sa_mask);
    sigaction(SIGBUS, &fault, &fault_before[0]);
    sigaction(SIGSEGV, &fault, &fault_before[1]);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "hyrax: unknown command '%s'\n%s", argv[1], usage);
    return 2;
}
