/* test_cli.c: the command-line contract of DESIGN.md, by running $HYRAX_BIN (./hyrax): index prints what it
 * did, search --json prints one object with the documented keys and root-relative paths, stats
 * and verify work, rm removes, and bad input (unknown flags, missing index, damaged file) exits
 * non-zero with a message on stderr and nothing on stdout; a damaged meta slot, a truncated file, a
 * FIFO and a file overwritten under searches (issue 9) end in an answer or an error, never in
 * lost documents, a hang or death by a signal; Ctrl-C during a long index keeps the parts committed. */
#include "check.h"
#include "json.h"
#include "serve_client.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[PATH_MAX], db[PATH_MAX + 32];

/* Paths at the command line (issue 9): a newline in a file name is printed escaped, an index
 * file inside the indexed root is not indexed (nor its temp files), a folder deeper than the
 * walk's limit is reported, and rm refuses the root and over-long names. */
static void test_paths(void)
{
    char tmpl[] = "/tmp/hxi_cli_paths_XXXXXX", dir[PATH_MAX], idx[PATH_MAX + 32], cmd[3 * PATH_MAX], *out;
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(idx, sizeof idx, "%s/idx.hyx", dir);
    char bin[PATH_MAX];   /* the commands below run in dir */
    CHECK(realpath(getenv("HYRAX_BIN"), bin) != NULL, "HYRAX_BIN resolves");
    setenv("HYRAX_BIN", bin, 1);
    check_put(dir, "line\nbreak.md", "# Odd name\n\nThe quokka smiles at the camera.\n");
    check_put(dir, "idx.hyx.compact.tmp", "stray compaction file");   /* a temp file of the index */
    char deep[3 * 70 + 16] = "";
    for (int i = 0; i < 70; i++)
        strcat(deep, "d/");
    strcat(deep, "deep.md");
    check_put(dir, deep, "# Deep\n\nA wombat lives far below.\n");

    for (int pass = 0; pass < 2; pass++) {   /* the second run finds the index file on disk */
        snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" index --db idx.hyx . 2>&1", dir);
        CHECK(check_run(cmd, &out) == 0, "index with --db inside the root: %s", out);
        CHECK(!strstr(out, "rejected idx.hyx"), "pass %d: the index file and its temp files are not indexed: %s", pass, out);
        CHECK(strstr(out, "rejected 1 ") != NULL, "pass %d: one rejection, the deep folder: %s", pass, out);
        CHECK(strstr(out, "hyrax index: rejected d/d/") && strstr(out, "levels deep"),
              "pass %d: the deep folder is reported with a reason: %s", pass, out);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword quokka", idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "1. line\\nbreak.md:"), "newline in a path escaped: %s", out);
    CHECK(!strstr(out, "line\nbreak"), "no raw newline in the path: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword wombat", idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "0 results"), "the deep file is not indexed: %s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" rm --db idx.hyx . 2>&1", dir);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "names the indexed root"), "rm . refused: %s", out);
    free(out);
    char name[5000 + PATH_MAX];
    snprintf(name, sizeof name, "%s/", dir);
    for (size_t n = strlen(name); n < 5000; n += 100)
        strcat(name, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/");
    char *long_cmd = malloc(strlen(cmd) + strlen(name) + 64);
    sprintf(long_cmd, "\"$HYRAX_BIN\" rm --db %s %s 2>&1", idx, name);
    CHECK(check_run(long_cmd, &out) != 0 && strstr(out, "longer than"), "rm of a name over 4 KiB refused: %.300s", out);
    free(out);
    free(long_cmd);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db %s --json", idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"documents\":1"), "nothing removed: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* The paths of a search --json answer's results, "|"-separated, into buf; how many results. */
static size_t result_paths(const char *json, char *buf, size_t cap, size_t *n_more_first)
{
    hxi_json_doc *doc = NULL;
    buf[0] = 0;
    *n_more_first = 0;
    if (hxi_json_parse(&doc, json, strlen(json), NULL, NULL))
        return 0;
    const hxi_json_val *res = hxi_json_obj_get(hxi_json_doc_root(doc), "results");
    for (size_t i = 0; i < hxi_json_len(res); i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s|", hxi_json_str(hxi_json_obj_get(hxi_json_arr_get(res, i), "path"), NULL));
    *n_more_first = hxi_json_len(hxi_json_obj_get(hxi_json_arr_get(res, 0), "more"));
    size_t n = hxi_json_len(res);
    hxi_json_doc_free(doc);
    return n;
}

/* Document-level answers (issue 10): a document with many matching chunks comes once, with its
 * other chunks as `more`, and -k counts documents even when all of the first 4 x k candidate
 * chunks are that one document's; --group chunk lists chunks as before. */
static void test_group(void)
{
    char tmpl[] = "/tmp/hxi_cli_group_XXXXXX", dir[PATH_MAX], idx[PATH_MAX + 32], cmd[3 * PATH_MAX], *out;
    char herd[4096] = "# Zebra herd\n\n", paths[1024];
    size_t more;
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(idx, sizeof idx, "%s/idx.hyx", dir);
    for (int i = 0; i < 12; i++)   /* twelve sections: twelve short chunks full of zebras */
        snprintf(herd + strlen(herd), sizeof herd - strlen(herd), "## Part %d\n\nZebra, zebra, zebra: the zebra herd.\n\n", i);
    check_put(dir, "docs/herd.md", herd);
    check_put(dir, "docs/gate.md", "# Gate\n\nOne zebra at the zoo gate, among the visitors and their bags.\n");
    check_put(dir, "docs/plain.md", "# Plain\n\nFar away on the plain a zebra was seen once by the rangers.\n");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s/docs 2>&1", idx, dir);
    CHECK(check_run(cmd, &out) == 0, "index: %s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json -k 3 zebra", idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"group\":\"document\""), "documents by default: %.200s", out);
    CHECK(result_paths(out, paths, sizeof paths, &more) == 3 && !strncmp(paths, "herd.md|", 8) &&
              strstr(paths, "gate.md|") && strstr(paths, "plain.md|") && more >= 3,
          "three documents, the herd first with its other chunks as more (%zu): %s", more, paths);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json -k 2 zebra", idx);
    CHECK(check_run(cmd, &out) == 0 && result_paths(out, paths, sizeof paths, &more) == 2 && !strncmp(paths, "herd.md|", 8) &&
              (!strcmp(paths + 8, "gate.md|") || !strcmp(paths + 8, "plain.md|")),
          "k 2: two documents though the first 8 candidates are all the herd's: %s", paths);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --json -k 3 zebra", idx);
    CHECK(check_run(cmd, &out) == 0 && result_paths(out, paths, sizeof paths, &more) == 3 && strstr(paths, "herd.md|") &&
              strstr(paths, "gate.md|") && strstr(paths, "plain.md|"),
          "hybrid: three documents: %s", paths);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json -k 3 --group chunk zebra", idx);
    CHECK(check_run(cmd, &out) == 0 && result_paths(out, paths, sizeof paths, &more) == 3 &&
              !strcmp(paths, "herd.md|herd.md|herd.md|") && !strstr(out, "\"more\""),
          "--group chunk: the herd's chunks: %s", paths);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword -k 3 zebra", idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "1. herd.md:") && strstr(out, ". gate.md:") &&
              strstr(out, ". plain.md:") && strstr(out, "also lines ") && strstr(out, "3 results"),
          "text output: one line per document, the herd's other chunks named: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --group page zebra 2>&1", idx);
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "--group is chunk or document"), "a bad --group: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Runs argv with stdout and stderr discarded; the raw wait status. */
static int run_status(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return status;
}

/* A child that restores `from` over `path` in place again and again, as cp does: truncate, then
 * write in 128 KiB pieces; a short pause after each step. Kill it to stop. */
static pid_t start_overwriter(const char *path, const char *from)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid)
        return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    size_t len;
    char *bytes = check_read_file(from, &len);
    for (;;) {
        int fd = open(path, O_WRONLY | O_TRUNC);
        usleep(500);
        for (size_t o = 0; bytes && fd >= 0 && o < len; o += 131072)
            if (write(fd, bytes + o, len - o < 131072 ? len - o : 131072) < 0)
                break;
        close(fd);
        usleep(500);
    }
}

static int copy(const char *from, const char *to)
{
    size_t len;
    char *b = check_read_file(from, &len);
    FILE *f = b ? fopen(to, "wb") : NULL;
    int rc = f && fwrite(b, 1, len, f) == len ? 0 : -1;
    if (f && fclose(f))
        rc = -1;
    free(b);
    return rc;
}

/* Issue 9 items 3, 9, 10: a damaged slot is not a torn write, an index overwritten under a
 * search gives an answer or an error (never death by a signal), a FIFO is refused at once. */
static void test_file_safety(void)
{
    char big_root[PATH_MAX + 16], big[PATH_MAX + 32], work[PATH_MAX + 32], cmd[4 * PATH_MAX], *out;
    snprintf(big_root, sizeof big_root, "%s.big", root);
    snprintf(big, sizeof big, "%s.big.hyx", root);
    snprintf(work, sizeof work, "%s.work.hyx", root);
    mkdir(big_root, 0755);
    for (int i = 0; i < 120; i++) {
        char p[2 * PATH_MAX];
        snprintf(p, sizeof p, "%s/n%03d.md", big_root, i);
        FILE *f = fopen(p, "w");
        if (f) {
            fprintf(f, "# Note %d\n\nPods, nodes and volumes, note %d of the scheduler series. %s\n", i, i,
                    "The kubelet restarts containers that exit; quotas cap what a namespace may request.");
            fclose(f);
        }
    }
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s >/dev/null 2>&1", big, big_root);
    CHECK(system(cmd) == 0, "index 120 notes");
    size_t len;
    unsigned char *b = (unsigned char *)check_read_file(big, &len);
    CHECK(b && len > 20000, "read the index");
    if (!b)
        return;

    /* a flipped bit in the newest meta slot: verify fails naming it, and no write loses a document */
    int newest = b[4096 + 8] > b[8192 + 8] ? 0 : 1;
    b[4096 * (1 + newest) + 20] ^= 0x10;
    FILE *f = fopen(work, "wb");
    CHECK(f && fwrite(b, 1, len, f) == len && fclose(f) == 0, "write the damaged copy");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" verify --db %s 2>&1", work);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "meta slot") && strstr(out, "generation 2 recovered"),
          "verify fails and names the slot: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" rm --db %s n000.md 2>&1 && \"$HYRAX_BIN\" verify --db %s", work, work);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "removed 1 document (") && strstr(out, "119 documents"),
          "a write keeps the 120 documents of the damaged commit: %s", out);
    free(out);
    b[4096 * (1 + newest) + 20] ^= 0x10;

    /* truncated past the newest commit: verify fails, writers refuse until 'hyrax recover' */
    f = fopen(work, "wb");
    CHECK(f && fwrite(b, 1, len - 64, f) == len - 64 && fclose(f) == 0, "write the truncated copy");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" verify --db %s 2>&1", work);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "fell back to generation 1"), "verify names the fallback: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" rm --db %s n000.md 2>&1", work);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "hyrax recover"), "rm refuses: %s", out);
    free(out);
    struct stat st;
    CHECK(stat(work, &st) == 0 && (size_t)st.st_size == len - 64, "the refused write kept every byte");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" recover --db %s && \"$HYRAX_BIN\" verify --db %s", work, work);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "recovered: generation 1") && strstr(out, ": ok"), "recover: %s", out);
    free(out);
    free(b);

    /* a FIFO as the index: refused at once (the timeout turns a hang into status 124) */
    unlink(work);
    CHECK(mkfifo(work, 0600) == 0, "mkfifo");
    const char *cmds[] = {"verify --db %s", "stats --db %s", "search --mode keyword --db %s pods", "rm --db %s x"};
    for (int i = 0; i < 4; i++) {
        char c[2 * PATH_MAX];
        snprintf(c, sizeof c, cmds[i], work);
        snprintf(cmd, sizeof cmd, "timeout 20 \"$HYRAX_BIN\" %s 2>&1", c);
        CHECK(check_run(cmd, &out) == 1 && strstr(out, "not a regular file"), "%s: %s", c, out);
        free(out);
    }
    unlink(work);

    /* the index overwritten in place under searches: each answers or fails, none dies */
    CHECK(copy(big, work) == 0, "copy");
    pid_t ow = start_overwriter(work, big);
    int died = 0, answered = 0;
    char *bin = getenv("HYRAX_BIN");
    for (int i = 0; i < 60; i++) {
        char *argv[] = {bin, "search", "--mode", "keyword", "--db", work, "kubelet", "quotas", NULL};
        int status = run_status(argv);
        died += WIFSIGNALED(status);
        answered += WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (WIFSIGNALED(status) && died == 1)
            CHECK(0, "search %d died by signal %d", i, WTERMSIG(status));
    }
    kill(ow, SIGKILL);
    waitpid(ow, NULL, 0);
    CHECK(died == 0, "%d of 60 searches died by a signal (%d answered)", died, answered);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", big_root, big, work);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Cosine of the first two JSON arrays of floats in s (hyrax embed's output lines). */
static double cosine_of_lines(const char *s)
{
    static double a[HX_EMBED_DIM_MAX], b[HX_EMBED_DIM_MAX];
    double ab = 0, aa = 0, bb = 0;
    const char *p = s;
    int dim[2] = {0, 0};
    for (int v = 0; v < 2; v++) {
        if (!(p = strchr(p, '[')))
            return -2;
        p++;
        for (int i = 0; i < HX_EMBED_DIM_MAX && *p != ']'; i++, dim[v]++) {
            char *end;
            (v ? b : a)[i] = strtod(p, &end);
            if (end == p)
                return -2;
            p = *end == ',' ? end + 1 : end;
        }
    }
    if (dim[0] != dim[1] || !dim[0])
        return -2;
    for (int i = 0; i < dim[0]; i++)
        ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
    return ab / sqrt(aa * bb);
}

/* --precision: an int8 index records it, keeps it, refuses another, and search embeds its queries
 * at int8 (an fp32 query model would be refused by the index); embed --precision int8 stays
 * within cosine 0.995 of fp32 and differs from it. */
static void test_precision(void)
{
    char cmd[3 * PATH_MAX], db8[PATH_MAX + 16], *out;
    snprintf(db8, sizeof db8, "%s.int8.hyx", root);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --precision int8 --db %s %s 2>&1", db8, root);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "added "), "index --precision int8: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --precision fp32 --db %s %s 2>&1", db8, root);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "holds int8 vectors") && strstr(out, "new index"),
          "changing the precision is refused: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s 2>&1", db8, root);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "added 0, updated 0,"), "no flag keeps int8: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode vector --json -k 1 where do pods run", db8);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"docs/sched.md\""), "int8 search: %.300s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "printf 'where do pods run\\n' | \"$HYRAX_BIN\" embed --precision int8; "
             "printf 'where do pods run\\n' | \"$HYRAX_BIN\" embed");
    CHECK(check_run(cmd, &out) == 0, "embed --precision int8: %.200s", out);
    double c = cosine_of_lines(out);
    CHECK(c >= 0.995 && c < 0.9999999, "int8 and fp32 query vectors: cosine %.7f", c);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" embed --precision int4 </dev/null 2>&1");
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "fp32, int8"), "embed --precision int4 refused: %s", out);
    free(out);
    unlink(db8);
}

/* === Issue 11 item 7: the command line users trip over === */

/* The "query" of a search --json answer into buf ("" when the answer is not one); 0 or -1. */
static int answer_query(const char *json, char *buf, size_t cap)
{
    hxi_json_doc *doc = NULL;
    buf[0] = 0;
    if (hxi_json_parse(&doc, json, strlen(json), NULL, NULL))
        return -1;
    const char *q = hxi_json_str(hxi_json_obj_get(hxi_json_doc_root(doc), "query"), NULL);
    snprintf(buf, cap, "%s", q ? q : "");
    hxi_json_doc_free(doc);
    return q ? 0 : -1;
}

/* One option table: "--" ends the options (a query word may then start with -), --name=VALUE
 * works, an unknown option is refused with the command's own options named, a missing value is
 * named, and --help lists what the table gives. Runs on idx, which holds docs/sched.md (about
 * the kube-scheduler and pods), docs/store.md (persistent volumes) and kep.yaml. */
static void test_options(const char *idx)
{
    char cmd[3 * PATH_MAX], q[256], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json -- pods", idx);
    CHECK(check_run(cmd, &out) == 0 && answer_query(out, q, sizeof q) == 0 && !strcmp(q, "pods"),
          "-- ends the options and is not query text: query '%s' in %.200s", q, out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode=keyword --json -- kube -volumes", idx);
    CHECK(check_run(cmd, &out) == 0 && answer_query(out, q, sizeof q) == 0 && !strcmp(q, "kube -volumes") &&
              strstr(out, "\"path\":\"docs/sched.md\"") && !strstr(out, "docs/store.md"),
          "after --, -volumes is the keyword syntax's exclusion; --mode=keyword is read: %.300s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json kube -volumes 2>&1", idx);
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "unknown option '-volumes'") && strstr(out, "-- ends the options"),
          "before --, -volumes is an unknown option, and the message says how to pass it: %s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --bogus pods 2>&1 >/dev/null", idx);
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "unknown option '--bogus'") && strstr(out, "search takes") &&
              strstr(out, "--db") && strstr(out, "-k/--top-k") && strstr(out, "--fusion-weights") && strstr(out, "--json"),
          "an unknown search option names search's options: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db %s --mode keyword 2>&1 >/dev/null", idx);
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "stats takes") && strstr(out, "--json") && !strstr(out, "--fusion"),
          "stats names its own options, not search's: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s pods -k 2>&1", idx);
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "--top-k needs a value (N)"), "a missing value is named: %s", out);
    free(out);
    CHECK(check_run("\"$HYRAX_BIN\" search --help", &out) == 0 && strstr(out, "-k, --top-k N") &&
              strstr(out, "--fusion-weights V,T") && strstr(out, "--model NAME|FILE") && strstr(out, "QUERY..."),
          "search --help is generated from the table: %s", out);
    free(out);
    CHECK(check_run("\"$HYRAX_BIN\" serve --help", &out) == 0 && strstr(out, "--tools SET") &&
              strstr(out, "core (default: the eight above") && strstr(out, "--tools all adds") && strstr(out, "max_bytes"),
          "serve --help: the tool sets and the answer budget: %s", out);
    free(out);
    CHECK(check_run("\"$HYRAX_BIN\" serve --tools core,nosuch </dev/null 2>&1", &out) == 1 &&
              strstr(out, "'nosuch' is not a tool"), "serve --tools with an unknown name: %s", out);
    free(out);
    CHECK(check_run("\"$HYRAX_BIN\" index -h", &out) == 0 && strstr(out, "--progress-every SECONDS") &&
              strstr(out, "--exclude GLOB]...") && strstr(out, "PATH..."),
          "index -h: %s", out);
    free(out);
}

/* --weights meant the fusion weights in search and the weights file in embed and serve; now
 * --fusion-weights and --model each mean one thing and --weights is refused with the new name. */
static void test_weights_flags(const char *idx)
{
    char cmd[3 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --weights 0.7,0.3 pods 2>&1", idx);
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "use --fusion-weights V,T"), "search --weights refused: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" embed --weights weights/all-minilm-l6-v2.hxw </dev/null 2>&1");
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "use --model FILE"), "embed --weights refused: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" serve --weights weights/all-minilm-l6-v2.hxw </dev/null 2>&1");
    CHECK(check_run(cmd, &out) == 2 && strstr(out, "use --model FILE"), "serve --weights refused: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --fusion-weights 1,0 --mode hybrid --json -k 1 pods", idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"docs/sched.md\""), "--fusion-weights: %.200s", out);
    free(out);
    CHECK(check_run("echo hello | \"$HYRAX_BIN\" embed --model weights/all-minilm-l6-v2.hxw", &out) == 0 &&
              out[0] == '[',
          "embed --model FILE: %.80s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --model /nonexistent/x.hxw pods 2>&1", idx);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "/nonexistent/x.hxw"), "search --model opens that file: %s", out);
    free(out);
}

/* A mistyped path in the first `hyrax index` used to create .hyrax/index.hyx rooted at the
 * current folder and then fail; now it fails first and creates nothing, and so does a path
 * outside the root the first run would record. */
static void test_first_index(void)
{
    char tmpl[] = "/tmp/hxi_cli_first_XXXXXX", dir[PATH_MAX], cmd[3 * PATH_MAX], hx[PATH_MAX + 16], *out;
    struct stat st;
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(hx, sizeof hx, "%s/.hyrax", dir);
    check_put(dir, "a.md", "# A\n\nThe aardvark digs.\n");
    check_put(dir, "b.md", "# B\n\nThe badger digs too.\n");
    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" index ./doesnotexist 2>&1", dir);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "doesnotexist") && strstr(out, "no index created"),
          "a missing first path is an error: %s", out);
    free(out);
    CHECK(stat(hx, &st) != 0, "nothing created for the missing path");
    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" index a.md ../elsewhere.md 2>&1", dir);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "no index created"), "a path outside the root: %s", out);
    free(out);
    CHECK(stat(hx, &st) != 0, "nothing created for the path outside");
    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" index a.md b.md 2>&1", dir);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "added 2,"), "two good paths: %s", out);
    free(out);
    /* an HTML page is indexed as text (no markup, no script) and the summary counts types */
    check_put(dir, "deploy.html", "<!DOCTYPE html><html><head><title>Deploy guide</title><script>var x=1;</script>"
                                  "</head><body><h1>Deploy</h1><p>Push to production with care.</p></body></html>\n");
    check_put(dir, "notes.txt", "<!DOCTYPE html>\n<p>Markup in a text file is read as HTML.</p>\n");
    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" index . 2>&1", dir);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "by type: markdown 2, html 2"), "types counted: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" search 'push to production' 2>&1", dir);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "deploy.html") && strstr(out, "Deploy guide") &&
              !strstr(out, "<") && !strstr(out, "var x"), "HTML as text: %s", out);
    free(out);
    /* a PDF (pages of bzip2's manual, made by pdfTeX) is indexed by its text layer */
    snprintf(cmd, sizeof cmd, "cp tests/data/pdf/bzip2-manual.pdf '%s/manual.pdf' && cd %s && \"$HYRAX_BIN\" index . 2>&1",
             dir, dir);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "pdf 1"), "PDF indexed: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" search 'Burrows-Wheeler block sorting compression' 2>&1", dir);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "manual.pdf") && strstr(out, "Huffman"), "PDF searched: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* The keys of an object, sorted, ","-joined into buf. */
static void key_set(const hxi_json_val *obj, char *buf, size_t cap)
{
    const char *keys[64];
    size_t n = 0;
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    hxi_json_iter_init(&it, obj);
    while (n < 64 && hxi_json_iter_next(&it, &k, &v))
        keys[n++] = hxi_json_str(k, NULL);
    for (size_t i = 1; i < n; i++)   /* insertion sort: a few keys */
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            const char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    buf[0] = 0;
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? "," : "", keys[i]);
}

/* A tools/call answer's structuredContent (NULL when the call failed); *doc owns it. */
static const hxi_json_val *mcp_call(server *s, hxi_json_doc **doc, int id, const char *name, const char *args)
{
    char line[4096], *out;
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}", id, name, args);
    send_line(s, line);
    *doc = NULL;
    out = read_line(s, 60000);
    if (!out || hxi_json_parse(doc, out, strlen(out), NULL, NULL)) {
        free(out);
        return NULL;
    }
    free(out);
    const hxi_json_val *r = get(hxi_json_doc_root(*doc), "result");
    return r && hxi_json_bool(get(r, "isError")) != 1 ? get(r, "structuredContent") : NULL;
}

/* Starts `hyrax serve` on idx and initializes it; 0 or -1. */
static int serve_on(server *s, const char *dir, const char *idx)
{
    if (start_in(s, dir, idx, 1))
        return -1;
    send_line(s, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                 "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    char *out = read_line(s, 60000);
    int ok = out && strstr(out, "protocolVersion");
    free(out);
    send_line(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return ok ? 0 : -1;
}

static void serve_stop(server *s)
{
    close(s->in);
    close(s->out);
    waitpid(s->pid, NULL, 0);
    free(s->buf);
}

/* The CLI's search --json and MCP's search write one result object: the same keys, and the same
 * citation (doc_id, path, chunk_id, chunk_index, lines, version) for the same query. Then
 * document_status answers an unknown doc_id as it answers an unknown path: found false, status
 * not_found, the same keys. */
static void test_citation_and_status(const char *dir, const char *idx)
{
    char cmd[3 * PATH_MAX], cli_keys[1024], mcp_keys[1024], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json -k 2 -- kube scheduler pods", idx);
    CHECK(check_run(cmd, &out) == 0, "cli search: %.200s", out);
    hxi_json_doc *cli = NULL, *mcp = NULL;
    CHECK(hxi_json_parse(&cli, out, strlen(out), NULL, NULL) == 0, "cli answer is JSON: %.200s", out);
    free(out);
    server s;
    CHECK(serve_on(&s, dir, idx) == 0, "serve starts");
    const hxi_json_val *m = mcp_call(&s, &mcp, 1, "search", "{\"query\":\"kube scheduler pods\",\"mode\":\"keyword\",\"top_k\":2}");
    const hxi_json_val *cr = cli ? hxi_json_obj_get(hxi_json_doc_root(cli), "results") : NULL;
    const hxi_json_val *mr = m ? hxi_json_obj_get(m, "results") : NULL;
    CHECK(hxi_json_len(cr) >= 1 && hxi_json_len(cr) == hxi_json_len(mr), "both answer: cli %zu, mcp %zu results",
          hxi_json_len(cr), hxi_json_len(mr));
    for (size_t i = 0; i < hxi_json_len(cr) && i < hxi_json_len(mr); i++) {
        const hxi_json_val *c = hxi_json_arr_get(cr, i), *x = hxi_json_arr_get(mr, i);
        key_set(c, cli_keys, sizeof cli_keys);
        key_set(x, mcp_keys, sizeof mcp_keys);
        CHECK(!strcmp(cli_keys, mcp_keys), "result %zu: one shape: cli {%s} mcp {%s}", i, cli_keys, mcp_keys);
        const hxi_json_val *cc = hxi_json_obj_get(c, "citation"), *mc = hxi_json_obj_get(x, "citation");
        key_set(cc, cli_keys, sizeof cli_keys);
        CHECK(cc && !strcmp(cli_keys, "chunk_id,chunk_index,doc_id,generation,line_end,line_start,path,signer,tier,unit,version") &&
                  hxi_json_equal(cc, mc),
              "result %zu: the same citation: {%s}", i, cli_keys);
        CHECK(hxi_json_equal(hxi_json_obj_get(cc, "path"), hxi_json_obj_get(c, "path")) &&
                  hxi_json_equal(hxi_json_obj_get(cc, "version"), hxi_json_obj_get(c, "version")),
              "result %zu: the citation holds the result's own path and version", i);
    }
    hxi_json_doc_free(cli);
    hxi_json_doc_free(mcp);

    hxi_json_doc *by_id = NULL, *by_path = NULL;
    const hxi_json_val *a = mcp_call(&s, &by_id, 2, "document_status", "{\"doc_id\":4000000}");
    const hxi_json_val *b = mcp_call(&s, &by_path, 3, "document_status", "{\"path\":\"no/such.md\"}");
    CHECK(a && b, "both answer rather than one failing: doc_id %s, path %s", a ? "answer" : "error", b ? "answer" : "error");
    if (a && b) {
        key_set(a, cli_keys, sizeof cli_keys);
        key_set(b, mcp_keys, sizeof mcp_keys);
        CHECK(!strcmp(cli_keys, mcp_keys), "the same keys: {%s} and {%s}", cli_keys, mcp_keys);
        const char *sa = hxi_json_str(get(a, "status"), NULL), *sb = hxi_json_str(get(b, "status"), NULL);
        CHECK(sa && sb && !strcmp(sa, "not_found") && !strcmp(sb, "not_found"), "not_found both: %s %s", sa, sb);
        CHECK(hxi_json_type_of(get(a, "found")) == HX_JSON_BOOL && !hxi_json_bool(get(a, "found")) &&
                  hxi_json_type_of(get(b, "found")) == HX_JSON_BOOL && !hxi_json_bool(get(b, "found")),
              "found false both");
        int64_t id = -1;
        CHECK(hxi_json_num_int64(get(a, "id"), &id, NULL) == 0 && id == 4000000 && hxi_json_type_of(get(a, "path")) == HX_JSON_NULL,
              "the doc_id asked is echoed, path null");
        const char *p = hxi_json_str(get(b, "path"), NULL);
        CHECK(p && !strcmp(p, "no/such.md") && hxi_json_type_of(get(b, "id")) == HX_JSON_NULL,
              "the path asked is echoed, id null");
    }
    hxi_json_doc_free(by_id);
    hxi_json_doc_free(by_path);
    serve_stop(&s);
}

/* When stderr is not a terminal, index prints a progress line counting chunks embedded every
 * --progress-every seconds (0: after every batch), the last one at all chunks. 130 sections of
 * a few words are 130 short chunks (one per section): more than two embedding batches. */
static void test_progress(void)
{
    char tmpl[] = "/tmp/hxi_cli_prog_XXXXXX", dir[PATH_MAX], cmd[3 * PATH_MAX], *out;
    static char doc[130 * 64];
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    doc[0] = 0;
    for (int i = 0; i < 130; i++)
        snprintf(doc + strlen(doc), sizeof doc - strlen(doc), "# Part %d\n\nOtter number %d swims.\n\n", i, i);
    check_put(dir, "otters.md", doc);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s/idx.hyx --progress-every 0 %s 2>&1", dir, dir);
    CHECK(check_run(cmd, &out) == 0, "index: %s", out);
    size_t lines = 0, done = 0, total = 0, last_done = 0, chunks = 0;
    bool rising = true;
    for (const char *p = out; (p = strstr(p, "hyrax index: embedded ")); p++) {
        if (sscanf(p, "hyrax index: embedded %zu/%zu chunks", &done, &total) != 2)
            break;
        rising = rising && done >= last_done && done <= total;
        last_done = done;
        lines++;
    }
    const char *sum = strstr(out, "(+");
    CHECK(sum && sscanf(sum, "(+%zu/", &chunks) == 1 && chunks == 130, "130 chunks, one per section: %s", out);
    CHECK(lines >= 3 && rising && done == total && total == chunks,
          "a line per batch, rising, the last at all %zu chunks: %zu lines, last %zu/%zu: %s", chunks, lines, done, total, out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Ctrl-C during a long index: the parts committed before stay (the process says so and exits 130),
 * and the same command run again embeds only the rest. The signal is sent once the third part's
 * progress line is out, so at least three one-document parts were committed, whatever the timing. */
static void test_interrupt(void)
{
    char tmpl[] = "/tmp/hxi_cli_int_XXXXXX", dir[PATH_MAX], idx[PATH_MAX + 16], cmd[3 * PATH_MAX], *out;
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(idx, sizeof idx, "%s/idx.hyx", dir);
    enum { DOCS = 150 };
    for (int d = 0; d < DOCS; d++) {
        char rel[32], text[512];
        size_t len = 0;
        for (int i = 0; i < 4; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "# Badger %d, part %d\n\nBadger %d digs %d.\n\n", d,
                                    i, d, i);
        snprintf(rel, sizeof rel, "docs/b%03d.md", d);
        check_put(dir, rel, text);
    }
    int errs[2];
    CHECK(pipe(errs) == 0, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        dup2(errs[1], 2);
        close(errs[0]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execl(getenv("HYRAX_BIN"), "hyrax", "index", "--db", idx, "--commit-every", "4", "--progress-every", "0",
              dir, (char *)NULL);
        _exit(127);
    }
    close(errs[1]);
    FILE *err = fdopen(errs[0], "r");
    char line[1024], said[4096] = "";
    int progress_lines = 0;
    while (err && fgets(line, sizeof line, err)) {
        if (strstr(line, "embedded") && ++progress_lines == 3)
            kill(pid, SIGINT);
        if (!strstr(line, "embedded") && strlen(said) + strlen(line) < sizeof said)
            strcat(said, line);
    }
    if (err)
        fclose(err);
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 130, "Ctrl-C: exit 130, got status %d: %s", status, said);
    size_t kept = 0, docs = 0;
    const char *msg = strstr(said, "hyrax index: interrupted: indexing canceled: ");
    CHECK(msg && sscanf(msg, "hyrax index: interrupted: indexing canceled: %zu of %zu", &kept, &docs) == 2 &&
              kept >= 3 && kept < DOCS && docs == DOCS,
          "it says what stayed (at least 3 of %d documents): %s", DOCS, said);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s 2>&1", idx, dir);
    CHECK(check_run(cmd, &out) == 0, "the next run: %s", out);
    size_t added = 0, unchanged = 0;
    const char *sum = strstr(out, "added ");
    CHECK(sum && sscanf(sum, "added %zu, updated 0, unchanged %zu", &added, &unchanged) == 2 && unchanged == kept &&
              added == DOCS - kept, "the next run embeds only the rest (%zu kept): %s", kept, out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" verify --db %s 2>&1", idx);
    CHECK(check_run(cmd, &out) == 0, "verify: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Cuts the search time out of a search's output (text: the last line, "N results in X ms"; JSON:
 * the search_time_ms member), the one part that differs between two runs of the same search. */
static void drop_timing(char *out)
{
    char *t = strstr(out, "\"search_time_ms\":");
    if (t) {
        char *end = t + strcspn(t, ",}");
        memmove(t, end + (*end == ','), strlen(end + (*end == ',')) + 1);
        return;
    }
    char *last = strstr(out, " results in ");
    while (last && strstr(last + 1, " results in "))
        last = strstr(last + 1, " results in ");
    while (last && last > out && last[-1] != '\n')
        last--;
    if (last)
        *last = 0;
}

/* Runs a search and keeps its output without the timing; caller frees. */
static char *search_out(const char *idx, const char *flags)
{
    char cmd[3 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --group chunk -k 5 %s zebra herd on the plain 2>&1", idx, flags);
    int rc = check_run(cmd, &out);
    CHECK(rc == 0, "search %s: %s", flags, out);
    drop_timing(out);
    return out;
}

/* Point-in-time reads at the command line (issue 11 item 1): a baseline answers with the same
 * bytes before and after compaction, with documents changed and removed in between and more
 * commits than HX_KEEP_COMMITS (8) after it, so the commits around it are dropped; --as-of a
 * time inside the baseline's commit reads it too until compaction drops what followed it, and
 * then says what is kept. Generations by hand: 1 creates the index, 2 indexes, 3 is the baseline. */
static void test_baselines(void)
{
    char tmpl[] = "/tmp/hxi_cli_pit_XXXXXX", dir[PATH_MAX], idx[PATH_MAX + 32], cmd[5 * PATH_MAX], *out;
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(idx, sizeof idx, "%s/idx.hyx", dir);
    check_put(dir, "docs/herd.md", "# Herd\n\nA zebra herd crosses the plain at dawn.\n");
    check_put(dir, "docs/gate.md", "# Gate\n\nOne zebra waits at the zoo gate.\n");
    check_put(dir, "docs/plain.md", "# Plain\n\nThe plain is wide; lions rest there.\n");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s/docs 2>&1 && \"$HYRAX_BIN\" baseline --db %s v1 2>&1", idx, dir,
             idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "baseline v1 = generation 3"), "baseline v1: %s", out);
    free(out);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);   /* after v1's commit, before the next one */
    char as_of[64];
    snprintf(as_of, sizeof as_of, "--as-of %lld.%09ld", (long long)now.tv_sec, now.tv_nsec);
    char *before = search_out(idx, "--baseline v1"), *before_json = search_out(idx, "--baseline v1 --json");
    CHECK(strstr(before, "as of generation 3, baseline v1") && strstr(before, "plain.md"), "read at v1: %s", before);
    CHECK(strstr(before_json, "\"read_context\":{\"selector\":\"baseline_id\",\"baseline_id\":\"v1\",\"as_of\":null,"
                              "\"generation\":3,"), "--json echoes the read context: %s", before_json);
    char *at = search_out(idx, as_of);
    CHECK(!strcmp(at, before), "--as-of a time after v1's commit reads v1: %s", at);
    free(at);

    check_put(dir, "docs/herd.md", "# Herd\n\nThe herd left; only dust remains on the road.\n");
    snprintf(cmd, sizeof cmd, "rm %s/docs/plain.md && \"$HYRAX_BIN\" index --db %s %s/docs >/dev/null 2>&1", dir, idx, dir);
    CHECK(check_run(cmd, &out) == 0, "change and remove");
    free(out);
    char *head = search_out(idx, "");
    CHECK(strcmp(head, before) && !strstr(head, "plain.md"), "the head has changed: %s", head);
    free(head);
    at = search_out(idx, as_of);
    CHECK(!strcmp(at, before), "--as-of still reads v1 after a change: %s", at);
    free(at);
    for (int i = 0; i < 9; i++) {   /* more commits than the retention window */
        char text[128];
        snprintf(text, sizeof text, "# Gate\n\nOne zebra waits at the zoo gate, visit %d.\n", i);
        check_put(dir, "docs/gate.md", text);
        snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s/docs >/dev/null 2>&1", idx, dir);
        CHECK(check_run(cmd, &out) == 0, "update %d", i);
        free(out);
    }
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" compact --db %s 2>&1 && \"$HYRAX_BIN\" verify --db %s 2>&1", idx, idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "compacted") && strstr(out, ": ok"), "compact, verify: %s", out);
    free(out);
    char *after = search_out(idx, "--baseline v1"), *after_json = search_out(idx, "--baseline v1 --json");
    CHECK(!strcmp(after, before), "v1 answers the same bytes after compaction:\n%s\n-- before --\n%s", after, before);
    CHECK(!strcmp(after_json, before_json), "and the same JSON:\n%s\n-- before --\n%s", after_json, before_json);
    free(after);
    free(after_json);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s %s zebra 2>&1", idx, as_of);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "is not kept") && strstr(out, "keeps generations") &&
          strstr(out, "baselines: v1"), "--as-of between dropped commits says what is kept: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" baselines --db %s 2>&1", idx);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "v1 ") && strstr(out, "generation 3,") && strstr(out, "kept: 10 commits"),
          "baselines: v1 and the last 8 commits and the head: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --baseline nope zebra 2>&1; \"$HYRAX_BIN\" baseline --db %s "
             "'a b' 2>&1; \"$HYRAX_BIN\" search --db %s --as-of yesterday zebra 2>&1", idx, idx, idx);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "no baseline named 'nope'") && strstr(out, "not 'a b'") &&
          strstr(out, "ISO-8601"), "bad names and times: %s", out);
    free(out);
    free(before);
    free(before_json);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Issue 28 item 2: a PDF's citation counts pages. The expected page is the one pdftotext's reference
 * text (tests/data/pdf/kep-libreoffice.txt, pages ended by form feeds) has the phrase on. */
static void test_pages(void)
{
    char tmpl[] = "/tmp/hxi_cli_pages_XXXXXX", dir[PATH_MAX], pdf[PATH_MAX + 32], cmd[3 * PATH_MAX], *out;
    const char *phrase = "conformance profiles";
    size_t len = 0;
    char *ref = check_read_file("tests/data/pdf/kep-libreoffice.txt", &len);
    const char *at = ref ? strstr(ref, phrase) : NULL;
    unsigned page = 1;
    for (const char *c = ref; at && c < at; c++)
        page += *c == '\f';
    CHECK(at && page > 1, "the phrase is past page 1 of the reference (page %u)", page);
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    snprintf(pdf, sizeof pdf, "%s/docs/kep.pdf", dir);
    check_put(dir, "docs/notes.md", "# Notes\n\nNothing about profiles of conformance here, only notes.\n");
    CHECK(check_copy_file("tests/data/pdf/kep-libreoffice.pdf", pdf) == 0, "copy the PDF");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s/idx.hyx %s/docs 2>&1", dir, dir);
    CHECK(check_run(cmd, &out) == 0, "index: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword --group chunk -k 1 '\"%s\"'", dir, phrase);
    unsigned first = 0, last = 0;
    const char *line = check_run(cmd, &out) == 0 ? strstr(out, "kep.pdf: page ") : NULL;
    CHECK(line && sscanf(line, "kep.pdf: page %u-%u", &first, &last) == 2 && first <= page && page <= last &&
              last - first <= 1,
          "text cites page %u (%u-%u): %s", page, first, last, out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword --group chunk --json -k 2 '\"%s\"'", dir, phrase);
    CHECK(check_run(cmd, &out) == 0, "search --json: %s", out);
    const char *cite = strstr(out, "\"citation\":");
    CHECK(cite && strstr(cite, "\"path\":\"kep.pdf\"") &&
              sscanf(strstr(cite, "\"line_start\":"), "\"line_start\":%u,\"line_end\":%u", &first, &last) == 2 &&
              first <= page && page <= last && last - first <= 1 && strstr(cite, "\"line_end\":") < strstr(cite, "\"unit\":\"page\""),
          "citation of page %u with unit page (%u-%u): %.400s", page, first, last, out);
    free(out);
    unsigned pages = 0;   /* pdftotext ends every page with a form feed */
    for (const char *c = ref; c && *c; c++)
        pages += *c == '\f';
    char want[64];
    snprintf(want, sizeof want, "kep.pdf: page 1-%u (", pages);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" show --db %s/idx.hyx kep.pdf", dir);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, want) && strstr(out, "  #0  pages 1-1"), "show cites %s: %s", want, out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s/idx.hyx --mode keyword --group chunk --json -k 1 rangers notes", dir);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"notes.md\"") && strstr(out, "\"unit\":\"line\"") &&
              !strstr(out, "\"unit\":\"page\""),
          "a Markdown citation counts lines: %.300s", out);
    free(out);
    free(ref);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_cli_XXXXXX", cmd[3 * PATH_MAX], *out;
    setenv("HYRAX_BIN", "./hyrax", 0);   /* make test sets it; sanitizer builds have their own */
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    check_put(root, "docs/sched.md", "---\nsig: sig-scheduling\n---\n# Scheduler\n\nThe kube-scheduler places pods onto nodes.\n");
    check_put(root, "docs/store.md", "# Storage\n\nPersistent volumes keep data.\n");
    check_put(root, "kep.yaml", "title: Memory QoS\nowning-sig: sig-node\n");

    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s 2>/dev/null", db, root);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "added 3, updated 0, unchanged 0, removed 0"), "index: %s", out);
    free(out);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "added 0, updated 0, unchanged 3, removed 0"), "re-index: %s", out);
    free(out);
    test_options(db);
    test_weights_flags(db);
    test_citation_and_status(root, db);
    test_pages();

    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --json -k 2 --min-score 0 where do pods run", db);
    CHECK(check_run(cmd, &out) == 0, "search --json exits 0");
    hxi_json_doc *doc = NULL;
    CHECK(hxi_json_parse(&doc, out, strlen(out), NULL, NULL) == 0, "one JSON object: %.200s", out);
    const hxi_json_val *r = doc ? hxi_json_doc_root(doc) : NULL;
    static const char *const top[] = {"query", "mode", "results", "total_results", "search_time_ms"};
    for (size_t i = 0; r && i < 5; i++)
        CHECK(hxi_json_obj_get(r, top[i]) != NULL, "key %s", top[i]);
    const char *q = r ? hxi_json_str(hxi_json_obj_get(r, "query"), NULL) : NULL;
    CHECK(q && !strcmp(q, "where do pods run"), "query words joined: %s", q ? q : "-");
    const hxi_json_val *res = r ? hxi_json_obj_get(r, "results") : NULL;
    CHECK(res && hxi_json_len(res) == 2, "k results");
    static const char *const keys[] = {"rank", "score", "chunk_id", "doc_id", "path", "title", "chunk_index", "text", "metadata"};
    for (size_t i = 0; res && i < hxi_json_len(res); i++)
        for (size_t k = 0; k < 9; k++)
            CHECK(hxi_json_obj_get(hxi_json_arr_get(res, i), keys[k]) != NULL, "result %zu has %s", i, keys[k]);
    const char *path = res ? hxi_json_str(hxi_json_obj_get(hxi_json_arr_get(res, 0), "path"), NULL) : NULL;
    CHECK(path && !strcmp(path, "docs/sched.md"), "root-relative path of the best chunk: %s", path ? path : "-");
    hxi_json_doc_free(doc);
    free(out);

    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --filter owning-sig=sig-node --json memory", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"kep.yaml\"") && !strstr(out, "docs/"), "filter: %.200s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --filter 'path=docs/**' nodes", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "docs/sched.md") && !strstr(out, "kep.yaml"), "text output: %.300s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db %s --json", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"documents\":3") && strstr(out, "all-MiniLM-L6-v2"), "stats: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" verify --db %s", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "ok"), "verify: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" rm --db %s docs/store.md", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "removed 1 document ("), "rm: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json volumes", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"total_results\":0"), "removed document gone: %.200s", out);
    free(out);

    /* no text is lost silently: a NUL past the first 8 KiB rejects the file with the offset on
     * stderr (it used to be accepted and cut at the NUL), and headings alone are searchable */
    char late[9000 + 16], late_path[2 * PATH_MAX];
    memset(late, 'a', sizeof late);
    late[9000] = 0;
    snprintf(late_path, sizeof late_path, "%s/late.txt", root);
    FILE *lf = fopen(late_path, "wb");
    CHECK(lf && fwrite(late, 1, sizeof late, lf) == sizeof late && fclose(lf) == 0, "write %s", late_path);
    check_put(root, "heads.md", "# Alpha\n## Zebra crossing\n");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" index --db %s %s 2>&1", db, root);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "rejected late.txt: binary file (NUL at byte 9000)") &&
              strstr(out, "rejected 1"),
          "late NUL rejected with its offset: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db %s --mode keyword --json zebra", db);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"heads.md\""), "headings are searchable: %.200s", out);
    free(out);

    /* errors: non-zero exit, message on stderr, nothing on stdout */
    const char *bad[] = {"\"$HYRAX_BIN\" search --db %s --mode fuzzy x", "\"$HYRAX_BIN\" search --db %s -k 0 x",
                         "\"$HYRAX_BIN\" search --db %s.missing x", "\"$HYRAX_BIN\" index --db %s --bogus x", "\"$HYRAX_BIN\" nope",
                         "\"$HYRAX_BIN\" search --db %s",
                         /* fusion weights: one rule with MCP (hx_fusion_check_weights), no inf/NaN scores */
                         "\"$HYRAX_BIN\" search --db %s --fusion-weights inf,1 pods",
                         "\"$HYRAX_BIN\" search --db %s --fusion-weights 0,0 pods",
                         "\"$HYRAX_BIN\" search --db %s --fusion weighted --fusion-weights 3e38,3e38 pods",
                         "\"$HYRAX_BIN\" search --db %s --fusion-weights nan,1 pods"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char c[2 * PATH_MAX];
        snprintf(c, sizeof c, bad[i], db);
        snprintf(cmd, sizeof cmd, "%s 2>/dev/null", c);
        int rc = check_run(cmd, &out);
        CHECK(rc != 0 && out[0] == 0, "'%s' exits %d with stdout '%.80s'", c, rc, out);
        free(out);
        snprintf(cmd, sizeof cmd, "%s 2>&1 >/dev/null", c);
        check_run(cmd, &out);
        CHECK(strstr(out, "hyrax") != NULL, "'%s' explains on stderr: %.120s", c, out);
        free(out);
    }
    test_file_safety();
    test_precision();
    FILE *f = fopen(db, "r+b");
    CHECK(f != NULL, "index file exists");
    if (f) {
        fseek(f, 4096 + 10, SEEK_SET);
        fputc(0x55, f);
        fseek(f, 8192 + 10, SEEK_SET);
        fputc(0x55, f);
        fclose(f);
    }
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" verify --db %s 2>&1", db);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "hyrax verify"), "both meta slots damaged: refused: %s", out);
    free(out);

    test_paths();
    test_group();
    test_first_index();
    test_progress();
    test_interrupt();
    test_baselines();

    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", root, root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_cli");
}
