/* test_race.c: issue 9 item 6 through the public API. A child process swaps a file inside the
 * root, in a loop, between a regular file, a symlink to a file outside the root and a FIFO, while
 * the parent indexes the root again and again. The file the walk saw must be read without
 * following the symlink and without blocking on the FIFO: the outside text is never searchable,
 * every update returns, and the swaps that landed between walk and read are reported as
 * rejections. An alarm turns a hang into a failure. */
#include "check.h"
#include "hyrax.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE
#define MIN_ROUNDS 50        /* at least this many updates ... */
#define MIN_REFUSED 3        /* ... and until this many reads met a swapped-in symlink or FIFO */
#define SECONDS 60           /* but no longer than this */
#define HANG_SECONDS 180

static char root[PATH_MAX], outside[PATH_MAX];

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_race: an update hung (a FIFO was opened for reading and waited on)\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
}

/* The child: replaces root/race.md atomically (rename) by each of the three kinds in turn. */
static void swap_forever(void)
{
    char target[2 * PATH_MAX], tmp[2 * PATH_MAX], secret[2 * PATH_MAX];
    snprintf(target, sizeof target, "%s/race.md", root);
    snprintf(tmp, sizeof tmp, "%s/swap.tmp", outside);   /* same file system, outside the root */
    snprintf(secret, sizeof secret, "%s/secret.md", outside);
    for (unsigned i = 0;; i++) {
        unlink(tmp);
        if (i % 3 == 0)
            check_put(outside, "swap.tmp", "# Garden\n\nTomatoes need sun and water.\n");
        else if (i % 3 == 1 && symlink(secret, tmp) != 0)
            continue;
        else if (i % 3 == 2 && mkfifo(tmp, 0644) != 0)
            continue;
        rename(tmp, target);
    }
}

int main(void)
{
    hx_error err = {0};
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *ix = NULL;
    char t1[] = "/tmp/hxi_race_XXXXXX", t2[] = "/tmp/hxi_race_out_XXXXXX", db[PATH_MAX + 16];
    CHECK(mkdtemp(t1) && realpath(t1, root) && mkdtemp(t2) && realpath(t2, outside), "temp folders");
    snprintf(db, sizeof db, "%s.hyx", root);
    check_put(outside, "secret.md", "# Secret\n\nThe zebracorn password is outside the root.\n");
    check_put(root, "plain.md", "# Plain\n\nAn ordinary note about bicycles.\n");
    check_put(root, "race.md", "# Garden\n\nTomatoes need sun and water.\n");
    if (hx_model_open(&model, WEIGHTS, &err) || hx_encoder_new(&enc, model, 1, &err) ||
        hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err)) {
        CHECK(0, "setup: %s", err.message);
        return check_report("test_race");
    }
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        swap_forever();
    }
    signal(SIGALRM, on_alarm);
    alarm(HANG_SECONDS);
    const char *paths[] = {root};
    hx_update_opts o = {0};
    o.encoder = enc;
    o.reindex = 1;   /* read race.md on every round */
    int rounds = 0, leaked = 0, refused = 0, failed = 0;
    time_t t0 = time(NULL);
    for (; (rounds < MIN_ROUNDS || refused < MIN_REFUSED) && time(NULL) - t0 < SECONDS; rounds++) {
        hx_update_report rep;
        if (hx_index_update(ix, paths, 1, &o, &rep, &err) != 0) {
            failed++;
            fprintf(stderr, "update failed: %s\n", err.message);
            continue;
        }
        for (size_t i = 0; i < rep.n_rejected; i++)
            refused += strstr(rep.rejected[i].reason, "symbolic link") || strstr(rep.rejected[i].reason, "FIFO");
        hx_update_report_clear(&rep);
        hx_search_opts so;
        hx_search_opts_default(&so);
        so.mode = HX_MODE_KEYWORD;
        hx_results r = {0};
        if (hx_index_search(ix, enc, "zebracorn", 9, &so, &r, &err) == 0)
            leaked += r.n > 0;
        hx_results_free(&r);
    }
    alarm(0);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CHECK(failed == 0, "%d of %d updates failed", failed, rounds);
    CHECK(leaked == 0, "text from outside the root was searchable after %d of %d updates", leaked, rounds);
    CHECK(refused > 0, "the swap landed between walk and read at least once in %d updates (else the race was not tested)",
          rounds);
    fprintf(stderr, "test_race: %d updates, %d reads refused a swapped-in symlink or FIFO\n", rounds, refused);
    hx_index_close(ix);
    hx_encoder_free(enc);
    hx_model_close(model);
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", root, outside, db);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_race");
}
