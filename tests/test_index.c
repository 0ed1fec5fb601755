/* test_index.c: the index end to end on a small corpus written to /tmp: build, the three search
 * modes on questions whose answer document is known by construction, filters, keyword syntax,
 * incremental updates (added / updated / unchanged / removed), BM25 scores independent of
 * segmentation (incremental index vs a fresh build), compaction keeps answers, readers pick up
 * commits, one writer at a time, documents from bytes, removal, cancels heard after each embedding
 * batch and before the commit, a long write committed in parts (a cancel keeps the parts before),
 * damaged files refused, a compaction that fails on a full disk after its commit landed (a warning,
 * no stray file), an index made with another keyword analyzer refused with a message that says
 * to reindex, and the model hash each commit records (SHA-256 of the weights file's header and
 * section table, computed here from the file) checked at open: another hash of the same model
 * name is refused, none (an older commit, tests/data/hxdocs03.hyx) is not. */
#include "check.h"
#include "hyrax.h"
#include "bytes.h"
#include "hxfile.h"
#include "ix.h"
#include "sha256.h"
#include "wire.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

static char root[PATH_MAX], db[PATH_MAX + 32], db2[PATH_MAX + 32];
static hx_model *model;
static hx_encoder *enc;

static void write_corpus(void)
{
    check_put(root, "docs/scheduler.md",
        "---\nstatus: implementable\nsig: sig-scheduling\n---\n# Kube Scheduler\n\n"
        "The kube-scheduler watches for newly created pods that have no node assigned and selects a node "
        "for each of them to run on. Placement considers resource requests, affinity and taints.\n");
    check_put(root, "docs/storage.md",
        "# Persistent Volumes\n\nA PersistentVolume is a piece of storage in the cluster provisioned by an "
        "administrator or dynamically through a CSI driver. Claims bind pods to durable disks.\n");
    check_put(root, "docs/auth.md",
        "# Service Account Tokens\n\nBound service account tokens are audience-scoped and time-limited "
        "credentials that workloads use to authenticate to the API server.\n");
    check_put(root, "docs/network.md",
        "# Network Policies\n\nNetwork policies restrict which pods may talk to each other. Egress and ingress "
        "rules select peers by label.\n");
    check_put(root, "config/kep.yaml",
        "title: Memory QoS\nkep-number: 2570\nowning-sig: sig-node\nsummary: Use cgroup v2 memory.high to "
        "throttle containers before the OOM killer acts.\n");
    check_put(root, "notes.txt", "How to bake sourdough bread at home: feed the starter, mix flour and water, knead, "
                     "let the dough rise overnight and bake in a hot oven.\n");
    check_put(root, "code/main.go", "package main\n\n// restartPolicy decides what the kubelet does when a container exits.\n"
                        "func restartPolicy(exitCode int) string {\n\treturn \"Always\"\n}\n");
}

static hx_index *open_writer(const char *path)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    CHECK(hx_index_open(&ix, path, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err) == 0, "open %s: %s",
          path, err.message);
    return ix;
}

static void update_all(hx_index *ix, hx_update_report *rep, int reindex)
{
    const char *paths[] = {root};
    hx_update_opts o = {0};
    o.encoder = enc;
    o.reindex = reindex;
    hx_error err = {0};
    CHECK(hx_index_update(ix, paths, 1, &o, rep, &err) == 0, "update: %s", err.message);
}

/* Top result's path for a query, or "" when there is none. */
static const char *top(hx_index *ix, const char *q, hx_search_mode mode, const hx_filter *f, size_t nf,
                       hx_results *res)
{
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = mode;
    o.k = 5;
    o.filters = f;
    o.n_filters = nf;
    o.snippets = 1;
    hx_error err = {0};
    hx_results_free(res);
    CHECK(hx_index_search(ix, enc, q, strlen(q), &o, res, &err) == 0, "search '%s': %s", q, err.message);
    return res->n ? res->v[0].path : "";
}

static void test_search(hx_index *ix)
{
    hx_results r = {0};
    CHECK(!strcmp(top(ix, "kube-scheduler", HX_MODE_KEYWORD, NULL, 0, &r), "docs/scheduler.md"),
          "identifier found whole: %s", r.n ? r.v[0].path : "-");
    CHECK(!strcmp(top(ix, "memory.high", HX_MODE_KEYWORD, NULL, 0, &r), "config/kep.yaml"), "dotted identifier");
    CHECK(!strcmp(top(ix, "restart", HX_MODE_KEYWORD, NULL, 0, &r), "code/main.go"), "camelCase part found");
    CHECK(r.n && r.v[0].snippet && strstr(r.v[0].snippet, "**"), "snippet marks the match: %s",
          r.n && r.v[0].snippet ? r.v[0].snippet : "-");
    CHECK(!strcmp(top(ix, "\"network policies\"", HX_MODE_KEYWORD, NULL, 0, &r), "docs/network.md"), "phrase");
    top(ix, "pods -scheduler", HX_MODE_KEYWORD, NULL, 0, &r);
    for (size_t i = 0; i < r.n; i++)
        CHECK(strcmp(r.v[i].path, "docs/scheduler.md"), "-exclude drops the document");
    CHECK(!strcmp(top(ix, "how do I make bread at home", HX_MODE_VECTOR, NULL, 0, &r), "notes.txt"),
          "semantic match with no shared rare word: %s", r.n ? r.v[0].path : "-");
    CHECK(r.n && r.v[0].similarity > 0.3f && r.v[0].similarity <= 1.0001f && r.v[0].similarity == r.v[0].vector_score,
          "vector similarity is a cosine: %g", r.n ? (double)r.v[0].similarity : 0.0);
    CHECK(!strcmp(top(ix, "which component decides where workloads are placed", HX_MODE_VECTOR, NULL, 0, &r),
                  "docs/scheduler.md"),
          "semantic paraphrase: %s", r.n ? r.v[0].path : "-");
    CHECK(!strcmp(top(ix, "durable disk storage for pods", HX_MODE_HYBRID, NULL, 0, &r), "docs/storage.md"),
          "hybrid: %s", r.n ? r.v[0].path : "-");
    CHECK(r.n && r.v[0].fused <= 1.0f / 61 + 1e-6f, "hybrid RRF score scale (default weights sum to 1)");
    /* the heading's line opens the chunk: its words are text of the section */
    CHECK(r.n && !strcmp(r.v[0].heading, "Persistent Volumes") && r.v[0].line_start == 1, "citation fields: %s %u",
          r.n ? r.v[0].heading : "-", r.n ? r.v[0].line_start : 0);

    hx_filter docs_only = {.key = "path", .value = "docs/**"};
    top(ix, "bread", HX_MODE_HYBRID, &docs_only, 1, &r);
    for (size_t i = 0; i < r.n; i++)
        CHECK(!strncmp(r.v[i].path, "docs/", 5), "path filter: %s", r.v[i].path);
    hx_filter sig = {.key = "owning-sig", .value = "sig-node"};
    top(ix, "containers", HX_MODE_HYBRID, &sig, 1, &r);
    CHECK(r.n == 1 && !strcmp(r.v[0].path, "config/kep.yaml"), "metadata filter: %zu results", r.n);
    hx_filter fm = {.key = "status", .value = "implementable"};
    CHECK(!strcmp(top(ix, "nodes", HX_MODE_VECTOR, &fm, 1, &r), "docs/scheduler.md"),
          "front matter filter in vector mode: %zu results, first %s", r.n, r.n ? r.v[0].path : "-");
    for (size_t i = 0; i < r.n; i++)
        CHECK(!strcmp(r.v[i].path, "docs/scheduler.md"), "only the document with that front matter: %s", r.v[i].path);
    CHECK(!strcmp(top(ix, "implementable", HX_MODE_KEYWORD, NULL, 0, &r), "docs/scheduler.md"),
          "front matter is searchable text too: %zu results", r.n);

    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = HX_MODE_VECTOR;
    o.min_score = 0.99f;
    hx_error err;
    hx_results_free(&r);
    CHECK(hx_index_search(ix, enc, "bread", 5, &o, &r, &err) == 0 && r.n == 0, "min_score drops weak results");
    hx_results a = {0}, b = {0};
    top(ix, "pods nodes", HX_MODE_HYBRID, NULL, 0, &a);
    top(ix, "pods nodes", HX_MODE_HYBRID, NULL, 0, &b);
    CHECK(a.n == b.n, "deterministic count");
    for (size_t i = 0; i < a.n && i < b.n; i++)
        CHECK(a.v[i].chunk_id == b.v[i].chunk_id && a.v[i].score == b.v[i].score, "deterministic order");
    for (size_t i = 1; i < a.n; i++)
        CHECK(a.v[i - 1].score > a.v[i].score ||
                  (a.v[i - 1].score == a.v[i].score && strcmp(a.v[i - 1].path, a.v[i].path) <= 0),
              "sorted by score, then path");
    hx_results_free(&a);
    hx_results_free(&b);
    hx_results_free(&r);
}

/* Keyword scores of `q` by "path#chunk" in both indexes must agree. */
static void same_scores(hx_index *x, hx_index *y, const char *q)
{
    hx_results rx = {0}, ry = {0};
    top(x, q, HX_MODE_KEYWORD, NULL, 0, &rx);
    top(y, q, HX_MODE_KEYWORD, NULL, 0, &ry);
    CHECK(rx.n == ry.n && rx.n > 0, "'%s': %zu vs %zu results", q, rx.n, ry.n);
    for (size_t i = 0; i < rx.n && i < ry.n; i++)
        CHECK(!strcmp(rx.v[i].path, ry.v[i].path) && rx.v[i].chunk_index == ry.v[i].chunk_index &&
                  fabsf(rx.v[i].score - ry.v[i].score) < 1e-5f,
              "'%s' rank %zu: %s %g vs %s %g", q, i, rx.v[i].path, (double)rx.v[i].score, ry.v[i].path,
              (double)ry.v[i].score);
    hx_results_free(&rx);
    hx_results_free(&ry);
}

static void test_incremental(hx_index *ix, hx_index *reader)
{
    check_put(root, "docs/storage.md", "# Persistent Volumes\n\nVolume snapshots let you restore a PersistentVolume to an "
                           "earlier point in time.\n");
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/docs/network.md", root);
    CHECK(unlink(path) == 0, "remove a file");
    check_put(root, "docs/dns.md", "# Cluster DNS\n\nEvery service gets a DNS name that pods resolve.\n");
    hx_update_report rep;
    update_all(ix, &rep, 0);
    CHECK(rep.added == 1 && rep.updated == 1 && rep.removed == 1 && rep.unchanged == 5,
          "report: added %zu updated %zu removed %zu unchanged %zu", rep.added, rep.updated, rep.removed,
          rep.unchanged);
    hx_update_report_clear(&rep);
    update_all(ix, &rep, 0);
    CHECK(rep.added + rep.updated + rep.removed == 0 && rep.unchanged == 7, "second run changes nothing");
    hx_update_report_clear(&rep);

    hx_results r = {0};
    CHECK(!strcmp(top(ix, "snapshots", HX_MODE_KEYWORD, NULL, 0, &r), "docs/storage.md"), "new content found");
    top(ix, "\"network policies\"", HX_MODE_KEYWORD, NULL, 0, &r);
    CHECK(r.n == 0, "removed document gone");
    top(ix, "CSI driver", HX_MODE_KEYWORD, NULL, 0, &r);
    CHECK(r.n == 0, "old version gone");
    hx_results_free(&r);

    hx_error err = {0};
    hx_doc_info d;
    CHECK(hx_index_doc_by_path(reader, "docs/network.md", &d) == 0, "reader still sees its commit");
    CHECK(hx_index_refresh(reader, &err) == 1, "reader picks up the new commit: %s", err.message);
    CHECK(hx_index_doc_by_path(reader, "docs/network.md", &d) == HX_ENOTFOUND, "and sees the removal");
    CHECK(hx_index_doc_by_path(reader, "docs/dns.md", &d) == 0 && d.n_chunks == 1, "and the addition");

    /* the same files indexed from scratch score identically: statistics span all segments */
    hx_index *fresh = open_writer(db2);
    if (fresh) {
        update_all(fresh, &rep, 0);
        hx_update_report_clear(&rep);
        hx_index_stats s1, s2;
        hx_index_stats_get(ix, &s1, &err);
        hx_index_stats_get(fresh, &s2, &err);
        CHECK(s1.segments > 1 && s2.segments == 1, "segments: %llu vs %llu", (unsigned long long)s1.segments,
              (unsigned long long)s2.segments);
        CHECK(s1.live_chunks == s2.live_chunks && s1.documents == s2.documents, "same live content");
        same_scores(ix, fresh, "pods");
        same_scores(ix, fresh, "+the");
        same_scores(ix, fresh, "service dns name");
        hx_index_close(fresh);
    }
}

static void test_compact(hx_index *ix)
{
    hx_results before = {0}, after = {0};
    hx_error err = {0};
    char paths[5][256];
    uint32_t index[5];
    top(ix, "pods and nodes", HX_MODE_HYBRID, NULL, 0, &before);
    size_t n = before.n;
    for (size_t i = 0; i < n; i++) {   /* results borrow the view that compaction replaces */
        snprintf(paths[i], sizeof paths[i], "%s", before.v[i].path);
        index[i] = before.v[i].chunk_index;
    }
    hx_results_free(&before);
    CHECK(hx_index_compact(ix, &err) == 0, "compact: %s", err.message);
    hx_index_stats st;
    hx_index_stats_get(ix, &st, &err);
    CHECK(st.segments == 1 && st.tombstones == 0, "one segment, no tombstones");
    CHECK(!strcmp(st.writer, "hyrax " HX_VERSION_STRING), "the commit names its writer: '%s'", st.writer);
    CHECK(hx_index_verify(ix, &err) == 0, "verify after compaction: %s", err.message);
    top(ix, "pods and nodes", HX_MODE_HYBRID, NULL, 0, &after);
    CHECK(n == after.n, "same answers after compaction");
    for (size_t i = 0; i < n && i < after.n; i++)
        CHECK(!strcmp(paths[i], after.v[i].path) && index[i] == after.v[i].chunk_index, "rank %zu: %s vs %s", i,
              paths[i], after.v[i].path);
    hx_results_free(&after);
}

static void test_bytes_and_remove(hx_index *ix)
{
    hx_kv meta[] = {{"team", "storage"}};
    const char body[] = "# Quota\n\nResource quotas cap the total compute a namespace may request.\n";
    uint32_t id = 0;
    hx_update_report rep;
    hx_error err = {0};
    CHECK(hx_index_add_bytes(ix, "added/quota.md", body, sizeof body - 1, meta, 1, enc, NULL, NULL, &id, &rep, &err) == 0,
          "add bytes: %s", err.message);
    hx_update_report_clear(&rep);
    hx_filter team = {.key = "team", .value = "storage"};
    hx_results r = {0};
    CHECK(!strcmp(top(ix, "namespace quota", HX_MODE_HYBRID, &team, 1, &r), "added/quota.md"), "added doc found");
    CHECK(r.n && r.v[0].doc_id == id, "its id");
    CHECK(hx_index_add_bytes(ix, "../escape.md", body, 5, NULL, 0, enc, NULL, NULL, &id, &rep, &err) == HX_EPERM,
          "names with .. refused");
    const char *gone[] = {"added"};
    CHECK(hx_index_remove(ix, gone, 1, HX_REMOVE_FOLDERS, &rep, &err) == 0 && rep.removed == 1, "remove folder: %zu",
          rep.removed);
    hx_update_report_clear(&rep);
    top(ix, "namespace quota", HX_MODE_KEYWORD, NULL, 0, &r);
    for (size_t i = 0; i < r.n; i++)
        CHECK(strcmp(r.v[i].path, "added/quota.md"), "removed doc not returned");
    hx_results_free(&r);
}

/* What a progress callback saw, and the call at which it asks to stop (0: never; -1: the call
 * just before the commit, the one with no path). */
typedef struct {
    int calls, stop_at;
    size_t first_done, last_done, total;
    int saw_commit_call;
} cancel_probe;

static int probe_progress(void *ctx, size_t done, size_t total, const char *path)
{
    cancel_probe *p = ctx;
    if (++p->calls == 1)
        p->first_done = done;
    p->last_done = done;
    p->total = total;
    p->saw_commit_call |= path == NULL;
    return p->stop_at == p->calls || (p->stop_at < 0 && !path);
}

/* A cancel is heard after each embedding batch and once more just before the commit, so a
 * cancelled write of one many-chunk document stops after its first batch, and one that arrives
 * after the last batch (or a write that embeds nothing) still stops uncommitted. */
static void test_cancel(hx_index *ix)
{
    size_t cap = 200 * 64, len = 0;
    char *doc = malloc(cap);
    for (int i = 0; i < 200; i++)   /* a section is a chunk of its own: 200 small chunks */
        len += (size_t)snprintf(doc + len, cap - len, "## Part %d\n\nPart %d covers topic %d.\n\n", i, i, i);
    hx_index_stats before, after;
    hx_error err = {0};
    hx_update_report rep;
    hx_doc_info d;
    uint32_t id;
    hx_index_stats_get(ix, &before, &err);
    cancel_probe p = {0, 1, 0, 0, 0, 0};
    int rc = hx_index_add_bytes(ix, "cancel/many.md", doc, len, NULL, 0, enc, probe_progress, &p, &id, &rep, &err);
    CHECK(rc == HX_ECANCELED, "stop after the first batch: canceled, got %d", rc);
    hx_update_report_clear(&rep);
    CHECK(p.calls == 1 && p.first_done == 64 && p.total >= 200, "asked after the first batch of 64 chunks: %d calls, "
          "done %zu of %zu", p.calls, p.first_done, p.total);
    p = (cancel_probe){0, -1, 0, 0, 0, 0};
    rc = hx_index_add_bytes(ix, "cancel/many.md", doc, len, NULL, 0, enc, probe_progress, &p, &id, &rep, &err);
    CHECK(rc == HX_ECANCELED, "stop just before the commit: canceled, got %d", rc);
    hx_update_report_clear(&rep);
    CHECK(p.calls == (int)(p.total + 63) / 64 + 1 && p.last_done == p.total && p.saw_commit_call,
          "asked after each batch and before the commit: %d calls for %zu chunks", p.calls, p.total);
    hx_index_stats_get(ix, &after, &err);
    CHECK(after.generation == before.generation && after.documents == before.documents,
          "canceled writes commit nothing: generation %llu -> %llu", (unsigned long long)before.generation,
          (unsigned long long)after.generation);
    CHECK(hx_index_doc_by_path(ix, "cancel/many.md", &d) != 0, "the canceled document is not there");
    CHECK(hx_index_verify(ix, &err) == 0, "verify after canceled writes: %s", err.message);
    /* an update that embeds nothing (a removal) is asked once, before its commit */
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/notes.txt", root);
    CHECK(unlink(path) == 0, "remove notes.txt from the disk");
    const char *paths[] = {root};
    hx_update_opts o = {0};
    o.encoder = enc;
    o.progress = probe_progress;
    o.progress_ctx = &p;
    p = (cancel_probe){0, -1, 0, 0, 0, 0};
    CHECK(hx_index_update(ix, paths, 1, &o, &rep, &err) == HX_ECANCELED && p.calls == 1 && p.saw_commit_call,
          "a removal is canceled before its commit: %d calls, %s", p.calls, err.message);
    hx_update_report_clear(&rep);
    CHECK(hx_index_doc_by_path(ix, "notes.txt", &d) == 0, "the canceled removal kept notes.txt");
    hx_index_stats_get(ix, &after, &err);
    CHECK(after.generation == before.generation, "the canceled removal committed nothing");
    free(doc);
}

static void test_lock_and_damage(void)
{
    hx_index *holder = open_writer(db);
    pid_t pid = fork();
    if (pid == 0) {
        hx_index *ix = NULL;
        hx_error err;
        int rc = hx_index_open(&ix, db, HX_INDEX_WRITE, model, NULL, &err);
        if (rc != HX_EBUSY)
            fprintf(stderr, "second writer: %d %s\n", rc, err.message);
        _exit(rc == HX_EBUSY ? 0 : 1);
    }
    int status = 0;
    hx_error err;
    waitpid(pid, &status, 0);
    hx_index_close(holder);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a second writer gets HX_EBUSY");

    FILE *f = fopen(db, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *bytes = malloc((size_t)size);
    CHECK(fread(bytes, 1, (size_t)size, f) == (size_t)size, "read index");
    fclose(f);
    char bad[PATH_MAX + 64];
    snprintf(bad, sizeof bad, "%s.damaged", db);
    int refused = 0, tried = 0;
    for (long off = 13000; off < size; off += size / 23 + 1) {
        bytes[off] ^= 0x5A;
        f = fopen(bad, "wb");
        fwrite(bytes, 1, (size_t)size, f);
        fclose(f);
        bytes[off] ^= 0x5A;
        hx_index *dx = NULL;
        int rc = hx_index_open(&dx, bad, HX_INDEX_READ, model, NULL, &err);
        if (!rc)
            rc = hx_index_verify(dx, &err);
        hx_index_close(dx);
        tried++;
        refused += rc != 0;
    }
    /* a flip in a blob of an older commit or in padding is harmless; most land in live data */
    CHECK(refused > tried / 2, "damaged files refused: %d of %d", refused, tried);
    hx_index *cur = NULL;
    hx_index_stats now = {0};
    CHECK(hx_index_open(&cur, db, HX_INDEX_READ, model, NULL, &err) == 0 && hx_index_stats_get(cur, &now, &err) == 0,
          "current generation");
    hx_index_close(cur);
    f = fopen(bad, "wb");
    fwrite(bytes, 1, (size_t)size / 2, f);
    fclose(f);
    hx_index *ix = NULL;
    hx_index_stats st = {0};
    int rc = hx_index_open(&ix, bad, HX_INDEX_READ, model, NULL, &err);
    if (!rc)
        rc = hx_index_verify(ix, &err) || hx_index_stats_get(ix, &st, &err);
    hx_index_close(ix);
    CHECK(rc != 0 || st.generation < now.generation,
          "a file cut in half is refused or opens at an older, intact commit (generation %llu of %llu)",
          (unsigned long long)st.generation, (unsigned long long)now.generation);
    unlink(bad);
    free(bytes);
}

/* === A compaction that fails after its commit landed (issue 9, item 4) === */

/* In the child: `base` (40 documents) is copied into a folder where the removal's commit fits
 * but the compaction it triggers does not -- a 4 MiB tmpfs filled up to 16 KiB when the test may
 * mount one, else a directory squatting on "<db>.compact.tmp". The removal must report success
 * with a warning, the change must be committed, and no temporary file may be left. */
static void enospc_child(const char *base, const char *mnt)
{
    char file[2 * PATH_MAX], tmp[2 * PATH_MAX + 32], filler[2 * PATH_MAX + 64];
    bool tmpfs = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                 mount("tmpfs", mnt, "tmpfs", 0, "size=4m") == 0;
    snprintf(file, sizeof file, "%s/db.hyx", mnt);
    snprintf(tmp, sizeof tmp, "%s.compact.tmp", file);
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    CHECK(check_copy_file(base, file) == 0, "copy the index");
    hx_index *ix = NULL;
    hx_error err = {0};
    CHECK(hx_index_open(&ix, file, HX_INDEX_WRITE, model, NULL, &err) == 0, "writer: %s", err.message);
    if (!ix)
        _exit(1);
    struct statvfs vfs;
    if (tmpfs && statvfs(mnt, &vfs) == 0) {
        uint64_t free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize, fill = free_bytes - 16384;
        FILE *f = fopen(filler, "wb");
        static char zeros[4096];
        for (uint64_t w = 0; f && w < fill; w += sizeof zeros)
            fwrite(zeros, 1, sizeof zeros, f);
        CHECK(f && fclose(f) == 0, "fill the tmpfs");
    } else {
        printf("test_index: no tmpfs here; a directory at %s makes the compaction fail\n", tmp);
        CHECK(mkdir(tmp, 0755) == 0 && mkdir(filler, 0755) == 0, "squat");
        snprintf(filler, sizeof filler, "%s/x", tmp);
        CHECK(mkdir(filler, 0755) == 0, "squat inside");
    }
    char names[30][32];
    const char *paths[30];
    for (int i = 0; i < 30; i++) {
        snprintf(names[i], sizeof names[i], "bulk/%02d.md", i);
        paths[i] = names[i];
    }
    hx_update_report rep;
    CHECK(hx_index_remove(ix, paths, 30, HX_REMOVE_EXACT, &rep, &err) == 0, "a removal whose commit landed succeeds: %s", err.message);
    CHECK(rep.removed == 30 && strstr(rep.warning, "committed") && strstr(rep.warning, "compact"),
          "removed %zu, warning '%s'", rep.removed, rep.warning);
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    hx_index *r = NULL;
    CHECK(hx_index_open(&r, file, HX_INDEX_READ, model, NULL, &err) == 0 && hx_index_doc_count(r) == 10,
          "the removal is committed: %zu documents", r ? hx_index_doc_count(r) : 0);
    hx_index_close(r);
    struct stat st;
    if (tmpfs) {
        CHECK(stat(tmp, &st) != 0, "no %s left after the failed compaction", tmp);
        unlink(filler);
        FILE *f = fopen(tmp, "wb");   /* what a SIGKILL during compaction leaves */
        CHECK(f && fputs("stale", f) >= 0 && fclose(f) == 0, "stale compaction file");
        CHECK(hx_index_open(&ix, file, HX_INDEX_WRITE, model, NULL, &err) == 0 && stat(tmp, &st) != 0,
              "the writer removes a stale %s when it opens", tmp);
        CHECK(ix && hx_index_compact(ix, &err) == 0, "compaction with room: %s", err.message);
        hx_index_close(ix);
        umount(mnt);
    }
    _exit(check_failed ? 1 : 0);
}

static void test_compact_fails_after_commit(void)
{
    char base[PATH_MAX + 64], mnt[PATH_MAX + 64];
    snprintf(base, sizeof base, "%s.enospc.hyx", root);
    snprintf(mnt, sizeof mnt, "%s.enospc", root);
    hx_index *ix = open_writer(base);
    if (!ix)
        return;
    hx_error err = {0};
    for (int i = 0; i < 40; i++) {
        char name[32], body[256];
        snprintf(name, sizeof name, "bulk/%02d.md", i);
        int n = snprintf(body, sizeof body, "# Note %d\n\nBulk note number %d about quotas, pods and volumes.\n", i, i);
        uint32_t id;
        hx_update_report rep;
        CHECK(hx_index_add_bytes(ix, name, body, (size_t)n, NULL, 0, enc, NULL, NULL, &id, &rep, &err) == 0, "add: %s", err.message);
        hx_update_report_clear(&rep);
    }
    hx_index_close(ix);
    CHECK(mkdir(mnt, 0755) == 0, "mount point");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        enospc_child(base, mnt);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "compaction failure after a commit (in a child): %d", status);
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", base, mnt);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Opens an index whose root record is committed by hand, as another build would write it: layout
 * `version`, keyword analyzer `analyzer` (NULL: no field, as in layout 1), vector precision
 * `precision` (NULL: no field, as in layouts 1 and 2), no documents. With `named` the open must
 * fail with code `want` and a message naming it (and, for HX_EVERSION, saying to reindex); without,
 * it must succeed (so the refusals come from the analyzer or precision alone). `hash` (layout 4
 * on): a writer field and this model_hash follow the audit ref, and a refusal names it too. */
static void open_other(uint32_t version, const char *analyzer, const char *precision, const char *hash,
                       int want, const char *named)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s.other.hyx", root);
    unlink(path);
    hxi_store *w = NULL;
    hx_error err = {0};
    CHECK(hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) == 0, "store: %s", err.message);
    if (!w)
        return;
    static const uint8_t empty_docs[16] = {'H', 'X', 'D', 'O', 'C', 'S', '0', '2'};
    hxi_store_ref docs, tomb;
    uint8_t ref[HX_STORE_REF_SIZE], zero = 0;
    hxi_buf b = {0};
    CHECK(hxi_store_append(w, empty_docs, sizeof empty_docs, &docs, &err) == 0 &&
              hxi_store_append(w, &zero, 0, &tomb, &err) == 0, "append");
    hxi_buf_bytes(&b, IX_MAGIC, 8);
    hxi_buf_u32(&b, version);
    hxi_buf_u32(&b, (uint32_t)hx_model_dim(model));
    hxi_buf_str(&b, hx_model_name(model));
    if (analyzer)
        hxi_buf_str(&b, analyzer);
    if (precision)
        hxi_buf_str(&b, precision);
    hxi_buf_str(&b, root);
    hxi_buf_u32(&b, 0);
    hxi_buf_u32(&b, 0);
    hxi_store_ref_put(ref, docs);
    hxi_buf_bytes(&b, ref, sizeof ref);
    hxi_store_ref_put(ref, tomb);
    hxi_buf_bytes(&b, ref, sizeof ref);
    hxi_buf_u32(&b, 0);
    if (version >= 4) {   /* an empty audit log */
        hxi_store_ref_put(ref, (hxi_store_ref){0});
        hxi_buf_bytes(&b, ref, sizeof ref);
        if (hash) {
            hxi_buf_str(&b, "hyrax test");
            hxi_buf_str(&b, hash);
        }
    }
    CHECK(!b.failed && hxi_store_commit(w, b.data, b.len, NULL, &err) == 0, "commit: %s", err.message);
    hxi_buf_free(&b);
    hxi_store_close(w);
    hx_index *ix = NULL;
    int rc = hx_index_open(&ix, path, HX_INDEX_READ, model, NULL, &err);
    if (named)
        CHECK(rc == want && strstr(err.message, named) && (want != HX_EVERSION || strstr(err.message, "reindex")) &&
                  (!hash || strstr(err.message, hash)),
              "layout %u analyzer %s precision %s: rc %d, %s", version, analyzer ? analyzer : "-",
              precision ? precision : "-", rc, err.message);
    else
        CHECK(rc == 0, "layout %u analyzer %s precision %s: %s", version, analyzer ? analyzer : "-",
              precision ? precision : "-", err.message);
    hx_index_close(ix);
    unlink(path);
}

static void test_other_analyzer(void)
{
    const char *an = hxi_analyzer_name(IX_ANALYZER);
    open_other(IX_VERSION, an, "fp32", NULL, 0, NULL);
    open_other(IX_VERSION, "exact", "fp32", NULL, HX_EVERSION, "\"exact\"");
    open_other(IX_VERSION, "english", "fp32", NULL, 0, NULL);   /* before Unicode words: read with its own analysis */
    open_other(IX_VERSION, "klingon", "fp32", NULL, HX_EVERSION, "\"klingon\"");
    open_other(1, NULL, NULL, NULL, HX_EVERSION, "\"exact\"");
    /* precision: layout 2 had none (fp32 vectors); an fp32 model cannot query int8 vectors */
    open_other(2, an, NULL, NULL, 0, NULL);
    open_other(IX_VERSION, an, "int8", NULL, HX_EINVAL, "holds int8 vectors and the model is fp32");
    open_other(IX_VERSION, an, "int4", NULL, HX_EFORMAT, "\"int4\"");
    /* model hash: the loaded model's is accepted, another of the same model name refused naming
     * both, none (and an empty one) accepted */
    open_other(IX_VERSION, an, "fp32", hx_model_hash(model), 0, NULL);
    open_other(IX_VERSION, an, "fp32", "", 0, NULL);
    char other[65];
    snprintf(other, sizeof other, "%.63s%c", hx_model_hash(model), hx_model_hash(model)[63] == '0' ? '1' : '0');
    open_other(IX_VERSION, an, "fp32", other, HX_EFORMAT, hx_model_hash(model));
}

/* The weights file's digest computed here from its bytes: SHA-256 of the 64-byte header and the
 * section table (offset at header byte 16, count at 24, 64 bytes an entry; src/base/hxfile.h). */
static void weights_digest(char hex[65])
{
    size_t len = 0;
    char *f = check_read_file(WEIGHTS, &len);
    hex[0] = 0;
    CHECK(f && len >= HXF_HEADER_SIZE, "read %s", WEIGHTS);
    if (!f || len < HXF_HEADER_SIZE) {
        free(f);
        return;
    }
    const uint8_t *b = (const uint8_t *)f;
    uint64_t at = hxf_le64(b + 16), n = hxf_le32(b + 24) * (uint64_t)HXF_ENTRY_SIZE;
    CHECK(at <= len && n <= len - at, "section table inside the file");
    if (at <= len && n <= len - at) {
        uint8_t *buf = malloc(HXF_HEADER_SIZE + n);
        memcpy(buf, b, HXF_HEADER_SIZE);
        memcpy(buf + HXF_HEADER_SIZE, b + at, n);
        hxi_sha256_hex(buf, HXF_HEADER_SIZE + n, hex);
        free(buf);
    }
    free(f);
}

/* A fresh commit records the loaded model's hash; the version 3 fixture (made before the field)
 * reads "" and opens with the model, and its next commit records the hash. */
static void test_model_hash(hx_index *ix)
{
    char want[65];
    weights_digest(want);
    CHECK(strlen(want) == 64 && !strcmp(hx_model_hash(model), want), "hx_model_hash %s, the file's %s",
          hx_model_hash(model), want);
    hx_index_stats st;
    hx_error err = {0};
    CHECK(hx_index_stats_get(ix, &st, &err) == 0 && !strcmp(st.model_hash, want), "the commit records %s: '%s'",
          want, st.model_hash);
    char copy[PATH_MAX + 32];
    snprintf(copy, sizeof copy, "%s.v3.hyx", root);
    CHECK(check_copy_file("tests/data/hxdocs03.hyx", copy) == 0, "copy the version 3 fixture");
    hx_index *old = NULL;
    CHECK(hx_index_open(&old, copy, HX_INDEX_READ, model, NULL, &err) == 0, "open the fixture: %s", err.message);
    if (old) {
        CHECK(hx_index_stats_get(old, &st, &err) == 0 && !strcmp(st.model_hash, ""), "no hash recorded: '%s'",
              st.model_hash);
        hx_index_close(old);
    }
    old = NULL;
    CHECK(hx_index_open(&old, copy, HX_INDEX_WRITE, model, NULL, &err) == 0, "writer on the fixture: %s",
          err.message);
    if (old) {
        hx_update_report rep;
        const char *text = "# New\n\nA new note.\n";
        uint32_t id;
        CHECK(hx_index_add_bytes(old, "notes/new.md", text, strlen(text), NULL, 0, enc, NULL, NULL, &id, &rep,
                                 &err) == 0, "add: %s", err.message);
        hx_update_report_clear(&rep);
        CHECK(hx_index_stats_get(old, &st, &err) == 0 && !strcmp(st.model_hash, want),
              "its next commit records the hash: '%s'", st.model_hash);
        hx_index_close(old);
    }
    unlink(copy);
}

/* Times of read contexts. Goldens from Python's datetime (fromisoformat, then the difference from
 * 1970-01-01T00:00:00Z in microseconds x 1000); the unix-seconds ones by hand. */
static void test_times(void)
{
    static const struct {
        const char *in;
        int64_t ns;
    } good[] = {
        {"2026-01-31", 1769817600000000000},
        {"2026-01-31T12:00:05Z", 1769860805000000000},
        {"2026-01-31T14:00:05+02:00", 1769860805000000000},
        {"2026-01-31T14:00:05+0200", 1769860805000000000},
        {"2024-02-29T23:59:59.250Z", 1709251199250000000},
        {"1969-12-31T23:59:59Z", -1000000000},
        {"2000-03-01T00:00", 951868800000000000},
        {"1900-01-01T00:00:00-05:30", -2208969000000000000},
        {"1769860805", 1769860805000000000},
        {"1769860805.5", 1769860805500000000},
        {"0.000000001", 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        int64_t ns = 0;
        hx_error err = {0};
        CHECK(hx_time_parse(good[i].in, &ns, &err) == 0 && ns == good[i].ns, "time %s: %lld (%s)", good[i].in,
              (long long)ns, err.message);
    }
    static const char *const bad[] = {"", "yesterday", "20242137033", "9223372037", "2026-02-30", "2026-13-01", "2026-01-31T24:00", "2026-1-31",
                                      "12abc", "2026-01-31T12:00:05+25:00", "2026-01-31T12", "1769860805.", "-5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int64_t ns;
        hx_error err = {0};
        CHECK(hx_time_parse(bad[i], &ns, &err) == HX_EINVAL && strstr(err.message, "ISO-8601"), "not a time: '%s'", bad[i]);
    }
    char buf[40];
    hx_time_format(1709251199250000000, buf, sizeof buf);
    CHECK(!strcmp(buf, "2024-02-29T23:59:59.250Z"), "format: %s", buf);
    hx_time_format(-1, buf, sizeof buf);
    CHECK(!strcmp(buf, "1969-12-31T23:59:59.999Z"), "format before 1970: %s", buf);
}

/* A search's answer as plain values: chunk ids, exact score bits and texts. */
typedef struct {
    size_t n;
    uint32_t chunk[5];
    float score[5];
    char text[5][256];
} answer;

static void answer_of(hx_index *ix, const char *q, answer *a)
{
    hx_results r = {0};
    top(ix, q, HX_MODE_HYBRID, NULL, 0, &r);
    memset(a, 0, sizeof *a);
    for (a->n = 0; a->n < r.n && a->n < 5; a->n++) {
        a->chunk[a->n] = r.v[a->n].chunk_id;
        a->score[a->n] = r.v[a->n].score;
        snprintf(a->text[a->n], sizeof a->text[a->n], "%.*s", (int)r.v[a->n].text_len, r.v[a->n].text);
    }
    hx_results_free(&r);
}

/* hx_index_read_at: a reader pinned to a baseline answers as the baseline did, also after the
 * writer adds a document and compacts (the baseline's blobs are copied byte for byte, so chunk
 * ids and score bits agree); refresh returns to the head; the writer reads only the head. */
static void test_read_at(hx_index *ix)
{
    hx_error err = {0};
    hx_commit_info b1;
    hx_read_taken t;
    CHECK(hx_index_baseline(ix, "b1", &b1, &err) == 0 && !strcmp(b1.name, "b1"), "baseline: %s", err.message);
    CHECK(hx_index_baseline(ix, "no spaces", NULL, &err) == HX_EINVAL, "a bad name");
    hx_read_context at_b1 = {HX_READ_BASELINE, "b1", 0}, published = {HX_READ_PUBLISHED, NULL, 0};
    CHECK(hx_index_read_at(ix, &at_b1, &t, &err) == HX_EPERM, "a writer reads the head only");
    size_t docs_b1 = hx_index_doc_count(ix);
    const char body[] = "# Pit\n\nZanzibar cloves: pods and nodes of a spice tree.\n";
    uint32_t id;
    hx_update_report rep;
    CHECK(hx_index_add_bytes(ix, "pit/cloves.md", body, sizeof body - 1, NULL, 0, enc, NULL, NULL, &id, &rep, &err) == 0,
          "add: %s", err.message);
    hx_update_report_clear(&rep);
    hx_index *r = NULL;
    CHECK(hx_index_open(&r, db, HX_INDEX_READ, model, NULL, &err) == 0, "reader: %s", err.message);
    if (!r)
        return;
    answer head, before, after;
    answer_of(r, "pods and nodes", &head);
    CHECK(hx_index_doc_count(r) == docs_b1 + 1, "the head has the new document");
    CHECK(hx_index_read_at(r, &at_b1, &t, &err) == 0 && t.commit.generation == b1.generation &&
          t.selector == HX_READ_BASELINE && !strcmp(t.commit.name, "b1"), "read at b1: %s", err.message);
    hx_index_stats st;
    CHECK(hx_index_stats_get(r, &st, &err) == 0 && st.generation == b1.generation && st.committed_ns == b1.committed_ns,
          "stats say which commit the view shows");
    CHECK(hx_index_doc_count(r) == docs_b1, "b1 has one document fewer");
    answer_of(r, "pods and nodes", &before);
    CHECK(before.n && memcmp(&before, &head, sizeof head), "b1 answers otherwise than the head");
    CHECK(hx_index_read_at(r, &published, &t, &err) == HX_ENOTFOUND && strstr(err.message, "published") &&
          strstr(err.message, "b1"), "nothing published: %s", err.message);
    CHECK(hx_index_doc_count(r) == docs_b1 + 1, "a failed read leaves the view at the head");
    CHECK(hx_index_compact(ix, &err) == 0, "compact: %s", err.message);
    CHECK(hx_index_read_at(r, &at_b1, &t, &err) == 0 && t.commit.generation == b1.generation &&
          t.commit.committed_ns == b1.committed_ns, "b1 after compaction: %s", err.message);
    answer_of(r, "pods and nodes", &after);
    CHECK(!memcmp(&before, &after, sizeof before), "b1 answers the same chunk ids, scores and texts after compaction");
    CHECK(hx_index_verify(r, &err) == 0, "verify the compacted file: %s", err.message);
    CHECK(hx_index_refresh(r, &err) == 1 && hx_index_doc_count(r) == docs_b1 + 1, "refresh returns to the head");
    hx_index_close(r);
}

/* A doc of `sections` one-chunk sections whose words say `tag`. */
static void put_sections(const char *dir, const char *rel, const char *tag, int sections)
{
    char text[2048];
    size_t len = 0;
    for (int i = 0; i < sections; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "## %s part %d\n\nThe %s notes, part %d.\n\n", tag, i,
                                tag, i);
    check_put(dir, rel, text);
}

/* Cancels once `stop_after` chunks of the write are embedded; remembers the total it was told. */
typedef struct {
    size_t stop_after, total;
} parts_probe;

static int stop_after(void *ctx, size_t done, size_t total, const char *path)
{
    parts_probe *p = ctx;
    (void)path;
    p->total = total;
    return p->stop_after && done >= p->stop_after;
}

/* A long write commits in parts: canceled in its third part, the first two stay (with the removal
 * and nothing of a replacement due in a later part), the file verifies, and the next run embeds
 * only the rest; the result answers as an index built in one commit. */
static void test_parts(void)
{
    char dir[PATH_MAX + 16], pdb[PATH_MAX + 32], one_db[PATH_MAX + 32], cmd[4 * PATH_MAX];
    snprintf(dir, sizeof dir, "%s-parts", root);
    snprintf(pdb, sizeof pdb, "%s.hyx", dir);
    snprintf(one_db, sizeof one_db, "%s.one.hyx", dir);
    CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
    put_sections(dir, "gone.md", "vanishing", 2);
    put_sections(dir, "z-change.md", "original", 2);
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_update_report rep;
    const char *paths[] = {dir};
    CHECK(hx_index_open(&ix, pdb, HX_INDEX_WRITE | HX_INDEX_CREATE, model, dir, &err) == 0, "open: %s", err.message);
    if (!ix)
        return;
    hx_update_opts o = {.encoder = enc};
    CHECK(hx_index_update(ix, paths, 1, &o, &rep, &err) == 0, "first build: %s", err.message);
    hx_update_report_clear(&rep);
    hx_doc_info d, old_change;
    CHECK(hx_index_doc_by_path(ix, "z-change.md", &old_change) == 0, "z-change.md indexed");
    char old_sha[65];
    snprintf(old_sha, sizeof old_sha, "%s", old_change.sha256);
    for (int i = 0; i < 12; i++) {   /* 12 new documents of 4 chunks, sorted between gone.md and z-change.md */
        char rel[32], tag[32];
        snprintf(rel, sizeof rel, "new%02d.md", i);
        snprintf(tag, sizeof tag, "topic%02d", i);
        put_sections(dir, rel, tag, 4);
    }
    put_sections(dir, "z-change.md", "rewritten", 3);
    snprintf(cmd, sizeof cmd, "%s/gone.md", dir);
    CHECK(unlink(cmd) == 0, "remove gone.md");
    parts_probe p = {.stop_after = 17};   /* parts of 8 chunks: two documents each; stop in the third */
    o = (hx_update_opts){.encoder = enc, .commit_chunks = 8, .progress = stop_after, .progress_ctx = &p};
    int rc = hx_index_update(ix, paths, 1, &o, &rep, &err);
    CHECK(rc == HX_ECANCELED && rep.commits == 2 && rep.chunks_added == 16, "canceled in the third part: rc %d, "
          "%zu commits, %zu chunks", rc, rep.commits, rep.chunks_added);
    CHECK(strstr(err.message, "4 of 13") != NULL, "the message says what stayed: %s", err.message);
    hx_update_report_clear(&rep);
    CHECK(hx_index_verify(ix, &err) == 0, "verify after the canceled write: %s", err.message);
    CHECK(hx_index_doc_by_path(ix, "gone.md", &d) != 0, "the removal landed with the first part");
    for (int i = 0; i < 12; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "new%02d.md", i);
        int have = hx_index_doc_by_path(ix, rel, &d) == 0;
        CHECK(have == (i < 4), "%s %s after the cancel", rel, have ? "present" : "absent");
        CHECK(!have || d.n_chunks == 4, "%s is whole: %u chunks", rel, have ? d.n_chunks : 0);
    }
    CHECK(hx_index_doc_by_path(ix, "z-change.md", &d) == 0 && !strcmp(d.sha256, old_sha),
          "z-change.md keeps its committed version until its part commits");
    p = (parts_probe){0};
    CHECK(hx_index_update(ix, paths, 1, &o, &rep, &err) == 0, "the next run: %s", err.message);
    CHECK(p.total == 8 * 4 + 3 && rep.chunks_added == p.total && rep.unchanged == 4 && rep.added == 8 &&
          rep.updated == 1, "the next run embeds only the rest: %zu chunks of %zu, %zu unchanged, %zu added",
          rep.chunks_added, p.total, rep.unchanged, rep.added);
    hx_update_report_clear(&rep);
    CHECK(hx_index_verify(ix, &err) == 0, "verify: %s", err.message);
    CHECK(hx_index_doc_by_path(ix, "z-change.md", &d) == 0 && strcmp(d.sha256, old_sha) && d.n_chunks == 3,
          "z-change.md rewritten");
    hx_index *one = NULL;
    CHECK(hx_index_open(&one, one_db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, dir, &err) == 0, "open: %s",
          err.message);
    if (one) {
        o = (hx_update_opts){.encoder = enc};
        CHECK(hx_index_update(one, paths, 1, &o, &rep, &err) == 0 && rep.commits == 1, "one commit: %s",
              err.message);
        hx_update_report_clear(&rep);
        same_scores(ix, one, "topic07 notes");
        same_scores(ix, one, "rewritten part");
        hx_index_close(one);
    }
    hx_index_close(ix);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", dir, pdb, one_db);
    CHECK(system(cmd) == 0, "cleanup");
}

int main(void)
{
    hx_error err = {0};
    char tmpl[] = "/tmp/hxi_index_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    snprintf(db2, sizeof db2, "%s.fresh.hyx", root);
    if (hx_model_open(&model, WEIGHTS, &err) || hx_encoder_new(&enc, model, 1, &err)) {
        CHECK(0, "model: %s", err.message);
        return check_report("test_index");
    }
    test_times();
    write_corpus();
    hx_index *ix = open_writer(db);
    if (ix) {
        hx_update_report rep;
        update_all(ix, &rep, 0);
        CHECK(rep.added == 7 && rep.n_rejected == 0, "first build adds 7, got %zu", rep.added);
        hx_update_report_clear(&rep);
        CHECK(hx_index_verify(ix, &err) == 0, "verify: %s", err.message);
        hx_index *reader = NULL;
        CHECK(hx_index_open(&reader, db, HX_INDEX_READ, model, NULL, &err) == 0, "reader: %s", err.message);
        test_search(ix);
        if (reader) {
            test_incremental(ix, reader);
            hx_index_close(reader);
        }
        test_compact(ix);
        test_model_hash(ix);
        test_bytes_and_remove(ix);
        test_cancel(ix);
        test_read_at(ix);
        hx_index_close(ix);
    }
    test_parts();
    test_lock_and_damage();
    test_compact_fails_after_commit();
    test_other_analyzer();
    hx_encoder_free(enc);
    hx_model_close(model);
    char cmd[3 * PATH_MAX + 128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", root, db, db2);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_index");
}
