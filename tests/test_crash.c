/* test_crash.c: the indexer killed with SIGKILL at random moments, 240 trials spread over a first
 * build and three incremental updates (add, change, remove; the removal also triggers automatic
 * compaction). A reference run records the content fingerprint of every state; after each kill
 * the file must open, pass verify, and hold exactly the content before the update or after it,
 * never anything in between. */
#include "check.h"
#include "hyrax.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE
#define STATES 4
#define TRIALS 240

static hx_model *model;
static char base[PATH_MAX / 4];

/* The files of each state: the first build, then an addition, a change and a removal. */
static const char *const state_files[STATES][4][2] = {
    {{"a.md", "# Alpha\n\nThe scheduler assigns pods to nodes. It weighs resource requests.\n"},
     {"b.md", "# Beta\n\nVolumes keep data when containers restart.\n"},
     {"c.yaml", "title: Gamma\nstatus: implemented\nsummary: network policies select peers.\n"}},
    {{"a.md", "# Alpha\n\nThe scheduler assigns pods to nodes. It weighs resource requests.\n"},
     {"b.md", "# Beta\n\nVolumes keep data when containers restart.\n"},
     {"c.yaml", "title: Gamma\nstatus: implemented\nsummary: network policies select peers.\n"},
     {"d.md", "# Delta\n\nService accounts get bound tokens.\n"}},
    {{"a.md", "# Alpha\n\nThe scheduler now also considers topology spread constraints.\n"},
     {"b.md", "# Beta\n\nVolumes keep data when containers restart.\n"},
     {"c.yaml", "title: Gamma\nstatus: implemented\nsummary: network policies select peers.\n"},
     {"d.md", "# Delta\n\nService accounts get bound tokens.\n"}},
    {{"a.md", "# Alpha\n\nThe scheduler now also considers topology spread constraints.\n"},
     {"d.md", "# Delta\n\nService accounts get bound tokens.\n"}},
};

static void write_state(const char *dir, int state)
{
    char cmd[PATH_MAX + 32], path[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/docs'", dir);
    CHECK(system(cmd) == 0, "clear");
    snprintf(path, sizeof path, "%s/docs", dir);
    mkdir(path, 0755);
    for (int i = 0; i < 4 && state_files[state][i][0]; i++) {
        snprintf(path, sizeof path, "%s/docs/%s", dir, state_files[state][i][0]);
        FILE *f = fopen(path, "w");
        fputs(state_files[state][i][1], f);
        fclose(f);
    }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

/* Fingerprint of everything a reader sees: documents, chunk texts and vectors. */
static uint64_t fingerprint(hx_index *ix)
{
    uint64_t h = 1469598103934665603u;
    float vec[HX_EMBED_DIM_MAX] = {0};   /* past the model's dimension: zeros in every hash */
    for (size_t i = 0; i < hx_index_doc_count(ix); i++) {
        hx_doc_info d;
        hx_index_doc_at(ix, i, &d);
        h = fnv(h, d.path, strlen(d.path) + 1);
        h = fnv(h, d.sha256, strlen(d.sha256));
        for (uint32_t c = d.first_chunk; c < d.first_chunk + d.n_chunks; c++) {
            hx_result r;
            if (hx_index_chunk(ix, c, &r, NULL) || hx_index_chunk_vector(ix, c, vec, NULL))
                return 0;
            h = fnv(h, r.text, r.text_len);
            h = fnv(h, vec, sizeof vec);
        }
    }
    return h;
}

static int update(const char *db, const char *root)
{
    hx_index *ix = NULL;
    hx_encoder *enc = NULL;
    hx_update_report rep;
    hx_error err = {0};
    const char *paths[] = {root};
    int rc = hx_encoder_new(&enc, model, 1, &err);
    if (!rc)
        rc = hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err);
    if (!rc) {
        hx_update_opts o = {0};
        o.encoder = enc;
        rc = hx_index_update(ix, paths, 1, &o, &rep, &err);
        hx_update_report_clear(&rep);
    }
    if (rc)
        fprintf(stderr, "update: %s\n", err.message);
    hx_index_close(ix);
    hx_encoder_free(enc);
    return rc;
}

int main(void)
{
    hx_error err = {0};
    char tmpl[] = "/tmp/hxi_crash_XXXXXX";
    char resolved[PATH_MAX];
    if (!mkdtemp(tmpl) || !realpath(tmpl, resolved) || strlen(resolved) >= sizeof base ||
        hx_model_open(&model, WEIGHTS, &err)) {
        CHECK(0, "setup: %s", err.message);
        return check_report("test_crash");
    }
    strcpy(base, resolved);
    /* reference run: fingerprint and generation after each state, and a copy of each file */
    char ref_root[PATH_MAX / 2], ref_db[PATH_MAX / 2], snap[STATES][PATH_MAX / 2];
    uint64_t fp[STATES + 1] = {0}, gen[STATES + 1] = {0};
    double took[STATES];
    snprintf(ref_root, sizeof ref_root, "%s/ref", base);
    snprintf(ref_db, sizeof ref_db, "%s/ref.hyx", base);
    mkdir(ref_root, 0755);
    for (int s = 0; s < STATES; s++) {
        write_state(ref_root, s);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK(update(ref_db, ref_root) == 0, "reference update %d", s);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        took[s] = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        hx_index *ix = NULL;
        hx_index_stats st;
        CHECK(hx_index_open(&ix, ref_db, HX_INDEX_READ, model, NULL, &err) == 0, "reference open");
        if (ix) {
            hx_index_stats_get(ix, &st, NULL);
            fp[s + 1] = fingerprint(ix);
            gen[s + 1] = st.generation;
            hx_index_close(ix);
        }
        snprintf(snap[s], sizeof snap[s], "%s/ref.%d.hyx", base, s);
        CHECK(check_copy_file(ref_db, snap[s]) == 0, "snapshot");
    }
    /* trials run in the reference root (the index records its root), on a copy of the file */
    const char *root = ref_root;
    char db[PATH_MAX / 2];
    snprintf(db, sizeof db, "%s/trial.hyx", base);
    srand(20261121);
    int before = 0, after = 0, absent = 0;
    for (int t = 0; t < TRIALS; t++) {
        int s = t % STATES;   /* state 0: first build from nothing; others: update of state s - 1 */
        unlink(db);
        if (s > 0)
            CHECK(check_copy_file(snap[s - 1], db) == 0, "start from state %d", s - 1);
        write_state(root, s);
        useconds_t delay = (useconds_t)(rand() % (int)(took[s] * 1.3e6 + 1000));
        pid_t pid = fork();
        if (pid == 0)
            _exit(update(db, root) ? 1 : 0);
        usleep(delay);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        hx_index *ix = NULL;
        int rc = hx_index_open(&ix, db, HX_INDEX_READ, model, NULL, &err);
        if (rc == HX_ENOTFOUND && s == 0) {
            absent++;   /* killed before the file was created: nothing was committed */
            continue;
        }
        CHECK(rc == 0, "trial %d (state %d, %u us): opens: %s", t, s, delay, err.message);
        if (rc)
            continue;
        CHECK(hx_index_verify(ix, &err) == 0, "trial %d: verify: %s", t, err.message);
        hx_index_stats st;
        hx_index_stats_get(ix, &st, NULL);
        uint64_t f = fingerprint(ix);
        /* an update may commit twice (changes, then an automatic compaction of the same content) */
        if (f == fp[s + 1] && st.generation > gen[s] && st.generation <= gen[s + 1])
            after++;
        else if (st.generation == gen[s] && f == fp[s])
            before++;
        else
            CHECK(st.generation <= 1 && s == 0 && hx_index_doc_count(ix) == 0,
                  "trial %d (state %d): generation %llu holds neither commit", t, s, (unsigned long long)st.generation);
        hx_index_close(ix);
    }
    printf("crash trials: %d, last commit kept %d, update committed %d, no file yet %d\n", TRIALS, before, after,
           absent);
    CHECK(before > 0 && after > 0, "kills landed both before and after the commit");
    hx_model_close(model);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_crash");
}
