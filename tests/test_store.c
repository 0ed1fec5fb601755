/* test_store.c: tests of the index file (src/store.h): round trips, meta slots, generations, the
 * writer lock, refresh, verify, truncation and damage at every byte of the last transaction,
 * compaction, and the SIGKILL crash test (forked writers killed at random moments).
 * Touches only files in its own temporary folder. Spec: the layout comment in src/store.h. */
#include "check.h"
#include "store.h"
#include "bytes.h"
#include "crc32c.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[512];      /* tmpfs when the machine has one: most tests and crash trials */
static char disk_dir[512]; /* $TMPDIR or /tmp: crash trials where fdatasync really waits */

static void path_of(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
}

static int write_file(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(b, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void remove_dir(const char *d)
{
    DIR *dh = opendir(d);
    struct dirent *e;
    char p[1024];
    while (dh && (e = readdir(dh))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        unlink(p);
    }
    if (dh)
        closedir(dh);
    rmdir(d);
}

/* Opens a reader; returns its error code, *out NULL on failure. */
static int open_reader(const char *path, hxi_store **out, hx_error *err)
{
    return hxi_store_open(out, path, HX_STORE_READ, err);
}

/* === Deterministic content: what a writer of trial t puts in generation g === */

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint32_t blob_count(uint64_t t, uint64_t g)
{
    return 1 + (uint32_t)(mix(t * 7919 + g) % 3);
}

#define MAX_BLOB 40000    /* large enough that a kill often lands inside a write */
#define DAMAGE_TRIAL 1000 /* trials from here on use small blobs: the damage test walks every byte */

static size_t blob_size(uint64_t t, uint64_t g, uint32_t k)
{
    uint64_t h = mix(mix(t) ^ (g << 20) ^ k);
    return h % 8 == 0 ? 0 : (size_t)(h % (t >= DAMAGE_TRIAL ? 300 : MAX_BLOB));
}

static void blob_fill(uint64_t t, uint64_t g, uint32_t k, uint8_t *buf, size_t n)
{
    uint64_t x = mix(t ^ (g << 32) ^ ((uint64_t)k << 48));
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0)
            x = mix(x);
        buf[i] = (uint8_t)(x >> (8 * (i % 8)));
    }
}

static const char *gen_name(uint64_t g, char *buf)
{
    if (g % 3)
        return NULL;
    snprintf(buf, 32, "base-%llu", (unsigned long long)g);
    return buf;
}

/* Root of generation g: gen u64, entry count u32, then per blob of generations 1..g in order:
 * generation u64, index u32, ref (HX_STORE_REF_SIZE bytes). */
#define ENTRY 32

static uint64_t mono_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* Writes generations up to `upto` of trial t, continuing from whatever the file holds; reports
 * each committed generation on report_fd (when >= 0) as {generation, CLOCK_MONOTONIC us}. */
static int write_gens(const char *path, uint64_t t, uint64_t upto, int report_fd, hx_error *err)
{
    hxi_store *w = NULL;
    uint8_t *root = NULL, *blob = malloc(MAX_BLOB);
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, err);
    if (rc || !blob)
        goto done;
    const uint8_t *cur;
    size_t cur_len;
    hxi_store_root(w, &cur, &cur_len);
    size_t len = cur_len ? cur_len : 12;
    root = malloc(len + 4 * ENTRY * (upto + 1));
    if (!root) {
        rc = HX_ENOMEM;
        goto done;
    }
    if (cur_len)
        memcpy(root, cur, cur_len);
    else
        memset(root, 0, 12);
    for (uint64_t g = hxi_store_generation(w) + 1; g <= upto; g++) {
        uint32_t n = blob_count(t, g), total = hxf_le32(root + 8);
        for (uint32_t k = 0; k < n; k++) {
            size_t sz = blob_size(t, g, k);
            blob_fill(t, g, k, blob, sz);
            hxi_store_ref ref;
            rc = hxi_store_append(w, blob, sz, &ref, err);
            if (rc)
                goto done;
            uint8_t *e = root + len;
            hxf_put64(e, g);
            hxf_put32(e + 8, k);
            hxi_store_ref_put(e + 12, ref);
            len += ENTRY;
            total++;
        }
        hxf_put64(root, g);
        hxf_put32(root + 8, total);
        char nb[32];
        rc = hxi_store_commit(w, root, len, gen_name(g, nb), err);
        if (rc)
            goto done;
        uint64_t msg[2] = {g, mono_us()};
        if (report_fd >= 0 && write(report_fd, msg, sizeof msg) != (ssize_t)sizeof msg) {
            rc = HX_EIO;
            goto done;
        }
    }
done:
    hxi_store_close(w);
    free(root);
    free(blob);
    return rc;
}

/* Checks that root (of generation g, trial t) and every blob it names are exactly what
 * write_gens writes. Returns NULL or what differs. */
static const char *check_content(hxi_store *s, uint64_t t, uint64_t g, const uint8_t *root,
                                 size_t len, char *why)
{
    static uint8_t expect[MAX_BLOB];
    if (g == 0)
        return len == 0 ? NULL : "generation 0 has a root";
    if (len < 12 || hxf_le64(root) != g)
        return "root names another generation";
    uint32_t total = hxf_le32(root + 8), i = 0;
    if ((size_t)total * ENTRY != len - 12)
        return "root length";
    for (uint64_t j = 1; j <= g; j++) {
        for (uint32_t k = 0; k < blob_count(t, j); k++, i++) {
            if (i >= total)
                return "too few blobs";
            const uint8_t *e = root + 12 + (size_t)i * ENTRY;
            hxi_store_ref ref = hxi_store_ref_get(e + 12);
            size_t sz = blob_size(t, j, k);
            if (hxf_le64(e) != j || hxf_le32(e + 8) != k || ref.length != sz || ref.offset % 64)
                return "blob entry";
            const uint8_t *data;
            hx_error err;
            if (hxi_store_blob(s, ref, &data, &err) != 0) {
                snprintf(why, 300, "blob %llu/%u: %s", (unsigned long long)j, k, err.message);
                return why;
            }
            blob_fill(t, j, k, expect, sz);
            if (memcmp(data, expect, sz) != 0)
                return "blob bytes differ";
        }
    }
    return i == total ? NULL : "too many blobs";
}

/* Checks the current generation and every older one in the chain, names included. A file with
 * damage the handle reported (hxi_store_damage) must fail verify with exactly that report; the
 * callers say whether they expect damage. */
static const char *check_all(hxi_store *s, uint64_t t, char *why)
{
    uint64_t g = hxi_store_generation(s);
    hx_error err;
    int vrc = hxi_store_verify(s, &err);
    if (*hxi_store_damage(s) ? vrc == 0 || strcmp(err.message, hxi_store_damage(s)) : vrc != 0) {
        snprintf(why, 300, "verify: %s (damage: '%s')", vrc ? err.message : "ok", hxi_store_damage(s));
        return why;
    }
    hxi_store_info *h;
    size_t n;
    if (hxi_store_history(s, &h, &n, &err) != 0)
        return "history fails";
    const char *bad = n == g ? NULL : "history length";
    for (size_t i = 0; !bad && i < n; i++) {
        char nb[32];
        const char *name = gen_name(g - i, nb);
        const uint8_t *root;
        size_t len;
        if (h[i].generation != g - i || strcmp(h[i].name, name ? name : "") != 0)
            bad = "history entry";
        else if (hxi_store_root_at(s, g - i, &root, &len, &err) != 0)
            bad = "root_at fails";
        else
            bad = check_content(s, t, g - i, root, len, why);
    }
    free(h);
    return bad;
}

/* === Basic behaviour === */

static void test_round_trip(void)
{
    char path[600];
    path_of(path, sizeof path, "rt.hyx");
    hxi_store *w, *r;
    hx_error err;
    CHECK(open_reader(path, &r, &err) == HX_ENOTFOUND && !r, "missing file: %s", err.message);
    CHECK(hxi_store_open(&w, path, HX_STORE_CREATE, &err) == HX_EINVAL, "create without write");
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err);
    CHECK(rc == 0, "create: %s", err.message);
    if (rc)
        return;
    const uint8_t *root, *data;
    size_t len;
    hxi_store_root(w, &root, &len);
    CHECK(hxi_store_generation(w) == 0 && len == 0 && hxi_store_timestamp(w) == 0, "empty store");
    CHECK(hxi_store_verify(w, &err) == 0, "verify empty");
    uint8_t big[5000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 31 + 7);
    hxi_store_ref a, b, c;
    CHECK(hxi_store_append(w, "abc", 3, &a, &err) == 0, "append: %s", err.message);
    CHECK(hxi_store_append(w, NULL, 0, &b, &err) == 0, "append empty: %s", err.message);
    CHECK(hxi_store_append(w, big, sizeof big, &c, &err) == 0, "append big: %s", err.message);
    CHECK(a.offset % 64 == 0 && b.offset % 64 == 0 && c.offset % 64 == 0 && a.offset >= HX_STORE_DATA_START,
          "alignment");
    CHECK(hxi_store_blob(w, a, &data, &err) == HX_ERANGE, "uncommitted blob must not be readable");
    uint8_t refs[3 * HX_STORE_REF_SIZE];
    hxi_store_ref_put(refs, a);
    hxi_store_ref_put(refs + 20, b);
    hxi_store_ref_put(refs + 40, c);
    CHECK(hxi_store_commit(w, refs, sizeof refs, NULL, &err) == 0, "commit: %s", err.message);
    CHECK(hxi_store_generation(w) == 1 && hxi_store_timestamp(w) > 0, "generation 1");
    hxi_store_close(w);

    rc = open_reader(path, &r, &err);
    CHECK(rc == 0, "reopen: %s", err.message);
    if (rc)
        return;
    hxi_store_root(r, &root, &len);
    CHECK(len == sizeof refs && memcmp(root, refs, len) == 0, "root round trip");
    CHECK(((uintptr_t)root & 63) == 0, "root is 64-aligned in the map");
    hxi_store_ref ra = hxi_store_ref_get(root), rb = hxi_store_ref_get(root + 20), rcr = hxi_store_ref_get(root + 40);
    CHECK(hxi_store_blob(r, ra, &data, &err) == 0 && memcmp(data, "abc", 3) == 0, "blob a");
    CHECK(hxi_store_blob(r, rb, &data, &err) == 0, "empty blob");
    CHECK(hxi_store_blob(r, rcr, &data, &err) == 0 && memcmp(data, big, sizeof big) == 0, "blob c");
    hxi_store_ref bad = ra;
    bad.crc32c ^= 1;
    CHECK(hxi_store_blob(r, bad, &data, &err) == HX_ECHECKSUM && !data, "wrong crc in ref");
    bad = ra;
    bad.offset = UINT64_MAX - 63;
    CHECK(hxi_store_blob(r, bad, &data, &err) == HX_ERANGE, "ref past the end");
    bad = ra;
    bad.length = UINT64_MAX;
    CHECK(hxi_store_blob(r, bad, &data, &err) == HX_ERANGE, "huge length");
    CHECK(hxi_store_verify(r, &err) == 0, "verify: %s", err.message);
    CHECK(hxi_store_append(r, "x", 1, &a, &err) == HX_EPERM, "reader cannot append");
    CHECK(hxi_store_commit(r, NULL, 0, NULL, &err) == HX_EPERM, "reader cannot commit");
    hxi_store_close(r);
}

static void test_slots_and_chain(void)
{
    char path[600];
    path_of(path, sizeof path, "chain.hyx");
    hxi_store *w;
    hx_error err;
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err);
    CHECK(rc == 0, "create: %s", err.message);
    if (rc)
        return;
    int64_t ts[6] = {0};
    int prev_slot = 0;
    const char *names[6] = {NULL, "first", NULL, "v2", "", "v2"};
    for (int g = 1; g <= 5; g++) {
        char root[32];
        int n = snprintf(root, sizeof root, "root of %d", g);
        hxi_store_ref ref;
        CHECK(hxi_store_append(w, root, (size_t)n, &ref, &err) == 0, "append");
        CHECK(hxi_store_commit(w, root, (size_t)n, names[g], &err) == 0, "commit %d: %s", g, err.message);
        ts[g] = hxi_store_timestamp(w);
        /* Read the raw slots: generation g must sit in the slot generation g-1 did not. */
        size_t flen;
        uint8_t *f = (uint8_t *)check_read_file(path, &flen);
        CHECK(f && flen >= HX_STORE_DATA_START, "read raw");
        if (!f)
            break;
        uint64_t g0 = hxf_le64(f + HX_STORE_PAGE + 8), g1 = hxf_le64(f + 2 * HX_STORE_PAGE + 8);
        int slot = g0 == (uint64_t)g ? 0 : g1 == (uint64_t)g ? 1 : -1;
        CHECK(slot == 1 - prev_slot, "generation %d in slot %d after slot %d", g, slot, prev_slot);
        CHECK((slot == 0 ? g1 : g0) == (uint64_t)g - 1, "other slot keeps generation %d", g - 1);
        prev_slot = slot;
        free(f);
    }
    CHECK(!strcmp(hxi_store_name(w), "v2"), "current name");
    hxi_store_info *h;
    size_t n;
    CHECK(hxi_store_history(w, &h, &n, &err) == 0 && n == 5, "history: %s", err.message);
    for (size_t i = 0; i < n && n == 5; i++) {
        int g = 5 - (int)i;
        CHECK(h[i].generation == (uint64_t)g && h[i].timestamp_ns == ts[g], "history %d", g);
        CHECK(!strcmp(h[i].name, names[g] ? names[g] : ""), "name of %d", g);
    }
    free(h);
    for (int g = 1; g <= 5; g++) {
        const uint8_t *root;
        size_t len;
        char want[32];
        int wn = snprintf(want, sizeof want, "root of %d", g);
        CHECK(hxi_store_root_at(w, (uint64_t)g, &root, &len, &err) == 0 && len == (size_t)wn &&
              !memcmp(root, want, len), "root_at %d", g);
        hxi_store_info at;
        CHECK(hxi_store_as_of(w, ts[g], &at, &err) == 0 && at.generation >= (uint64_t)g && at.timestamp_ns <= ts[g],
              "as_of %d", g);
    }
    const uint8_t *root;
    size_t len;
    hxi_store_info at;
    CHECK(hxi_store_root_at(w, 9, &root, &len, &err) == HX_ENOTFOUND, "future generation");
    CHECK(hxi_store_as_of(w, ts[1] - 1, &at, &err) == HX_ENOTFOUND, "before the first commit");
    CHECK(hxi_store_as_of(w, INT64_MAX, &at, &err) == 0 && at.generation == 5, "as_of now");
    CHECK(hxi_store_find_name(w, "v2", &at, &err) == 0 && at.generation == 5 && at.timestamp_ns == ts[5],
          "newest named v2");
    CHECK(hxi_store_find_name(w, "first", &at, &err) == 0 && at.generation == 1 && !strcmp(at.name, "first"),
          "named first");
    CHECK(hxi_store_find_name(w, "nope", &at, &err) == HX_ENOTFOUND, "unknown name");
    char long_name[80];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[79] = 0;
    CHECK(hxi_store_commit(w, NULL, 0, long_name, &err) == HX_EINVAL, "name too long");

    /* Abort drops the transaction; leftovers of a crashed writer are cut at the next open. */
    hxi_store_ref ref;
    uint64_t committed = file_size(path);
    CHECK(hxi_store_append(w, "junk", 4, &ref, &err) == 0 && file_size(path) > committed, "append");
    CHECK(hxi_store_abort(w, &err) == 0 && file_size(path) == committed, "abort truncates");
    CHECK(hxi_store_commit(w, "after", 5, NULL, &err) == 0 && hxi_store_generation(w) == 6, "commit after abort");
    committed = file_size(path);
    CHECK(hxi_store_append(w, "junk", 4, &ref, &err) == 0, "append");
    hxi_store_close(w);
    CHECK(file_size(path) == committed, "close drops the open transaction");
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, "leftover", 8, (off_t)committed + 100) == 8, "write leftovers");
    close(fd);
    hxi_store *r;
    CHECK(open_reader(path, &r, &err) == 0 && hxi_store_generation(r) == 6, "reader ignores leftovers");
    hxi_store_close(r);
    CHECK(hxi_store_open(&w, path, HX_STORE_WRITE, &err) == 0, "writer: %s", err.message);
    CHECK(file_size(path) == committed, "writer open cuts leftovers");
    hxi_store_close(w);
}

static void test_lock_and_refresh(void)
{
    char path[600];
    path_of(path, sizeof path, "lock.hyx");
    hxi_store *w, *w2, *r;
    hx_error err;
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err);
    CHECK(rc == 0, "create: %s", err.message);
    if (rc)
        return;
    CHECK(hxi_store_commit(w, "one", 3, NULL, &err) == 0, "commit");
    CHECK(hxi_store_open(&w2, path, HX_STORE_WRITE, &err) == HX_EBUSY && !w2, "second writer here");
    CHECK(strstr(err.message, "another") != NULL, "clear message: %s", err.message);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        hxi_store *cw;
        hx_error cerr;
        int crc = hxi_store_open(&cw, path, HX_STORE_WRITE, &cerr);
        _exit(crc == HX_EBUSY ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "second writer in another process gets HX_EBUSY");

    CHECK(open_reader(path, &r, &err) == 0, "reader beside the writer: %s", err.message);
    if (!r) {
        hxi_store_close(w);
        return;
    }
    const uint8_t *root;
    size_t len;
    CHECK(hxi_store_refresh(r, &err) == 0, "nothing new");
    uint8_t big[100000];
    memset(big, 7, sizeof big);
    hxi_store_ref ref;
    CHECK(hxi_store_append(w, big, sizeof big, &ref, &err) == 0, "append");
    CHECK(hxi_store_refresh(r, &err) == 0 && hxi_store_generation(r) == 1, "uncommitted data is invisible");
    uint8_t enc[HX_STORE_REF_SIZE];
    hxi_store_ref_put(enc, ref);
    CHECK(hxi_store_commit(w, enc, sizeof enc, "two", &err) == 0, "commit two");
    CHECK(hxi_store_refresh(r, &err) == 1 && hxi_store_generation(r) == 2, "refresh sees generation 2");
    CHECK(!strcmp(hxi_store_name(r), "two"), "name after refresh");
    hxi_store_root(r, &root, &len);
    const uint8_t *data;
    CHECK(len == sizeof enc && hxi_store_blob(r, hxi_store_ref_get(root), &data, &err) == 0 &&
          data[99999] == 7, "grown file remapped: %s", err.message);
    CHECK(hxi_store_refresh(r, &err) == 0, "refresh again: nothing new");
    hxi_store_close(w);
    CHECK(hxi_store_open(&w, path, HX_STORE_WRITE, &err) == 0, "lock released on close: %s", err.message);
    hxi_store_close(w);
    hxi_store_close(r);
}

/* Write failures without a hook in the library: a child process lowers its file-size limit
 * (RLIMIT_FSIZE, with SIGXFSZ ignored) so that pwrite fails like a full disk. */
static void io_error_child(const char *path)
{
    hxi_store *w, *r;
    hx_error err;
    hxi_store_ref ref;
    static uint8_t big[1 << 16];
    signal(SIGXFSZ, SIG_IGN);
    if (hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err) != 0)
        _exit(2);
    CHECK(hxi_store_commit(w, "one", 3, NULL, &err) == 0, "first commit");
    struct rlimit lim = {(rlim_t)file_size(path) + 1000, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &lim);
    CHECK(hxi_store_append(w, big, sizeof big, &ref, &err) == HX_EIO, "append past the limit");
    CHECK(hxi_store_append(w, "x", 1, &ref, &err) == HX_EIO, "error is sticky: %s", err.message);
    CHECK(strstr(err.message, "earlier failure") != NULL, "says so: %s", err.message);
    CHECK(hxi_store_commit(w, "two", 3, NULL, &err) == HX_EIO, "commit refused after a failure");
    CHECK(hxi_store_abort(w, &err) == 0, "abort: %s", err.message);
    CHECK(hxi_store_append(w, "x", 1, &ref, &err) == 0, "append after abort");
    CHECK(hxi_store_commit(w, big, 2000, NULL, &err) == HX_EIO, "commit record past the limit");
    CHECK(open_reader(path, &r, &err) == 0 && hxi_store_generation(r) == 1, "failed commit invisible");
    hxi_store_close(r);
    CHECK(hxi_store_abort(w, &err) == 0, "abort again");
    CHECK(hxi_store_commit(w, "two", 3, "small", &err) == 0, "small commit fits: %s", err.message);
    hxi_store_close(w);
    CHECK(open_reader(path, &r, &err) == 0 && hxi_store_generation(r) == 2 &&
          hxi_store_verify(r, &err) == 0, "generation 2 after the errors");
    hxi_store_close(r);
    _exit(check_failed ? 1 : 0);
}

static void test_io_errors(void)
{
    char path[600];
    path_of(path, sizeof path, "ioerr.hyx");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        io_error_child(path);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "write-failure checks (in a child): status %d", status);
}

/* === Damage === */

/* Builds a file with three commits and returns the committed lengths after each. */
static int build_three(const char *path, uint64_t len[4], uint8_t **after2, size_t *after2_len)
{
    hx_error err;
    int rc = 0;
    len[0] = HX_STORE_DATA_START;
    for (uint64_t g = 1; g <= 3 && rc == 0; g++) {
        rc = write_gens(path, DAMAGE_TRIAL, g, -1, &err);
        len[g] = file_size(path);
        if (g == 2)
            *after2 = (uint8_t *)check_read_file(path, after2_len);
    }
    return rc;
}

static void test_damage(void)
{
    char path[600], copy[600];
    path_of(path, sizeof path, "dmg.hyx");
    path_of(copy, sizeof copy, "dmg-copy.hyx");
    uint64_t L[4];
    uint8_t *f2 = NULL;
    size_t f2_len = 0, flen;
    CHECK(build_three(path, L, &f2, &f2_len) == 0 && f2, "build");
    uint8_t *f = (uint8_t *)check_read_file(path, &flen);
    CHECK(f && flen == L[3], "read back");
    if (!f || !f2) {
        free(f);
        free(f2);
        return;
    }
    hxi_store *s;
    hx_error err;
    char why[300];

    /* Truncation at every length: the last commit fully inside, or a clean HX_ETRUNCATED. */
    CHECK(write_file(copy, f, flen) == 0, "copy");
    int fd = open(copy, O_RDWR);
    int bad_trunc = 0;
    for (uint64_t t = L[3] + 1; t-- > 0;) {
        if (ftruncate(fd, (off_t)t) != 0)
            break;
        int rc = open_reader(copy, &s, &err);
        uint64_t want = t >= L[3] ? 3 : t >= L[2] ? 2 : 0;
        /* cut inside generation 3: its slot's CRC holds, so that is damage, not a torn write */
        bool damage_named = want != 2 || (s && strstr(hxi_store_damage(s), "fell back to generation 2"));
        if (want ? rc != 0 || hxi_store_generation(s) != want || check_all(s, DAMAGE_TRIAL, why) || !damage_named
                 : rc != HX_ETRUNCATED || s) {
            if (bad_trunc++ < 5)
                CHECK(0, "truncated to %llu: rc %d gen %llu: %s", (unsigned long long)t, rc,
                      s ? (unsigned long long)hxi_store_generation(s) : 0ull, rc ? err.message : why);
        }
        hxi_store_close(s);
    }
    close(fd);
    CHECK(bad_trunc == 0, "%d truncation lengths misbehave", bad_trunc);

    /* The blobs of the last transaction, to know what each byte of it belongs to. */
    CHECK(open_reader(path, &s, &err) == 0, "open");
    hxi_store_info *h = NULL;
    size_t hn = 0;
    CHECK(s && hxi_store_history(s, &h, &hn, &err) == 0 && hn == 3, "history");
    const uint8_t *root;
    size_t root_len;
    hxi_store_root(s, &root, &root_len);
    uint64_t rec_off = h ? h[0].record.offset : 0;
    free(h);
    hxi_store_close(s);

    /* Every byte of the last transaction flipped: generation 2 when the record is hit, else
     * generation 3 whose verify names the damaged blob (or passes when it was padding). */
    int bad_flip = 0;
    for (uint64_t o = L[2]; o < L[3]; o++) {
        f[o] ^= 0x5A;
        write_file(copy, f, flen);
        f[o] ^= 0x5A;
        int rc = open_reader(copy, &s, &err);
        int64_t blob_at = -1;
        const uint8_t *rt = f + rec_off + 128;
        uint32_t total = hxf_le32(rt + 8);
        for (uint32_t i = 0; i < total; i++) {
            hxi_store_ref ref = hxi_store_ref_get(rt + 12 + (size_t)i * ENTRY + 12);
            if (o >= ref.offset && o < ref.offset + ref.length)
                blob_at = (int64_t)ref.offset;
        }
        bool ok;
        if (o >= rec_off)   /* the newest record is damaged: generation 2, and the damage reported */
            ok = rc == 0 && hxi_store_generation(s) == 2 && *hxi_store_damage(s) && !check_all(s, DAMAGE_TRIAL, why);
        else if (blob_at >= 0)
            ok = rc == 0 && hxi_store_generation(s) == 3 && hxi_store_verify(s, &err) == HX_ECHECKSUM &&
                 err.offset == blob_at;
        else
            ok = rc == 0 && hxi_store_generation(s) == 3 && !check_all(s, DAMAGE_TRIAL, why);
        if (!ok && bad_flip++ < 5)
            CHECK(0, "flip at %llu (record at %llu, blob %lld): rc %d", (unsigned long long)o,
                  (unsigned long long)rec_off, (long long)blob_at, rc);
        hxi_store_close(s);
    }
    CHECK(bad_flip == 0, "%d flipped bytes misbehave", bad_flip);

    /* The crash states of the last commit: its data cut anywhere while the meta slot still holds
     * generation 1 (open gives 2, and a writer cuts the rest and commits again), and the meta
     * write cut at every byte (a 64-byte write inside one sector is not torn by real disks, so a
     * cut slot is damage): while it decodes as generation 1 open gives 2; once it fails but
     * holds the CRC of the synced record of generation 3, that record proves the commit and open
     * rolls forward to 3; every failing slot is reported. */
    const uint64_t slot1 = 2 * HX_STORE_PAGE;
    int bad_state = 0;
    for (uint64_t t = L[2]; t <= L[3]; t++) {
        memcpy(f + slot1, f2 + slot1, 64);
        write_file(copy, f, t);
        int rc = open_reader(copy, &s, &err);
        if ((rc != 0 || hxi_store_generation(s) != 2 || *hxi_store_damage(s) || check_all(s, DAMAGE_TRIAL, why)) &&
            bad_state++ < 5)
            CHECK(0, "data cut at %llu before the meta write: rc %d", (unsigned long long)t, rc);
        hxi_store_close(s);
    }
    CHECK(write_gens(copy, DAMAGE_TRIAL, 3, -1, &err) == 0, "writer recovers: %s", err.message);
    CHECK(open_reader(copy, &s, &err) == 0 && hxi_store_generation(s) == 3 && !check_all(s, DAMAGE_TRIAL, why),
          "recommitted generation 3");
    hxi_store_close(s);
    uint8_t new_slot[64];
    size_t orig_len;
    uint8_t *orig = (uint8_t *)check_read_file(path, &orig_len);
    CHECK(orig && orig_len == flen, "reread");
    if (orig) {
        memcpy(f, orig, flen);
        free(orig);
    }
    memcpy(new_slot, f + slot1, 64);
    for (int p = 0; p <= 64; p++) {
        memcpy(f + slot1, f2 + slot1, 64);
        memcpy(f + slot1, new_slot, (size_t)p);
        write_file(copy, f, flen);
        /* a cut slot that holds the new record's CRC (bytes 40..43) vouches for it and is rolled
         * forward; one that holds the old record's cannot: generation 2 */
        bool old_slot = memcmp(f + slot1, f2 + slot1, 64) == 0, new_whole = memcmp(f + slot1, new_slot, 64) == 0;
        bool names_new = !memcmp(f + slot1 + 40, new_slot + 40, 4);
        uint64_t want = old_slot || !names_new ? 2 : 3;
        int rc = open_reader(copy, &s, &err);
        if ((rc != 0 || hxi_store_generation(s) != want || (*hxi_store_damage(s) != 0) != (!old_slot && !new_whole) ||
             check_all(s, DAMAGE_TRIAL, why)) && bad_state++ < 5)
            CHECK(0, "meta torn after %d bytes: rc %d", p, rc);
        hxi_store_close(s);
    }
    memcpy(f + slot1, new_slot, 64);
    CHECK(bad_state == 0, "%d crash states misbehave", bad_state);

    /* Damage to either meta slot loses nothing: the older slot (0, generation 2) is not needed,
     * and the newest (1, generation 3) is recovered from its record. Each is reported, and a
     * writer repairs the slot without cutting a byte. */
    int bad_meta = 0;
    for (int slot = 0; slot < 2; slot++) {
        uint64_t base = (uint64_t)HX_STORE_PAGE * (uint64_t)(1 + slot);
        for (uint64_t o = base; o < base + 64; o++) {
            f[o] ^= 0x01;
            write_file(copy, f, flen);
            f[o] ^= 0x01;
            int rc = open_reader(copy, &s, &err);
            if ((rc != 0 || hxi_store_generation(s) != 3 || !strstr(hxi_store_damage(s), slot ? "meta slot 1" : "meta slot 0") ||
                 check_all(s, DAMAGE_TRIAL, why)) && bad_meta++ < 5)
                CHECK(0, "meta slot %d byte %llu: rc %d", slot, (unsigned long long)(o - base), rc);
            hxi_store_close(s);
            hxi_store *w;
            rc = hxi_store_open(&w, copy, HX_STORE_WRITE, &err);
            hxi_store_close(w);
            rc = rc ? rc : open_reader(copy, &s, &err);
            if ((rc != 0 || hxi_store_generation(s) != 3 || *hxi_store_damage(s) || file_size(copy) != flen ||
                 check_all(s, DAMAGE_TRIAL, why)) && bad_meta++ < 5)
                CHECK(0, "meta slot %d byte %llu, after a writer: rc %d", slot, (unsigned long long)(o - base), rc);
            hxi_store_close(s);
        }
    }
    CHECK(bad_meta == 0, "%d meta damages misbehave", bad_meta);
    memset(f + HX_STORE_PAGE, 0, 64);
    memset(f + slot1, 0xFF, 64);
    write_file(copy, f, flen);
    CHECK(open_reader(copy, &s, &err) == HX_EFORMAT && !s, "both slots gone: %d", err.code);
    CHECK(strstr(err.message, "slot 0") && strstr(err.message, "slot 1"), "names both slots: %s", err.message);
    free(f);

    /* Header damage: bad magic, bad checksum, and an unknown version named in the message. */
    f = (uint8_t *)check_read_file(path, &flen);
    f[0] = 'X';
    write_file(copy, f, flen);
    CHECK(open_reader(copy, &s, &err) == HX_EFORMAT, "bad magic");
    f[0] = 'H';
    f[30] ^= 1;
    write_file(copy, f, flen);
    CHECK(open_reader(copy, &s, &err) == HX_ECHECKSUM, "header checksum");
    f[30] ^= 1;
    hxf_put32(f + 8, 7);
    hxf_put32(f + 60, hxf_crc32c(0, f, 60));
    write_file(copy, f, flen);
    CHECK(open_reader(copy, &s, &err) == HX_EVERSION && strstr(err.message, "version 7"),
          "version: %s", err.message);
    CHECK(hxi_store_open(&s, copy, HX_STORE_WRITE, &err) == HX_EVERSION, "writer refuses it too");
    write_file(copy, f, 0);
    CHECK(open_reader(copy, &s, &err) == HX_ETRUNCATED, "empty file");
    free(f);
    free(f2);
}

/* === Damage is not a torn write (issue 9, item 3) === */

/* Opens a writer; returns its code and closes it. */
static int writer_rc(const char *path, unsigned flags, hx_error *err)
{
    hxi_store *w = NULL;
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE | flags, err);
    hxi_store_close(w);
    return rc;
}

/* True when the file at path holds exactly len bytes equal to b. */
static bool same_bytes(const char *path, const uint8_t *b, size_t len)
{
    size_t n;
    uint8_t *now = (uint8_t *)check_read_file(path, &n);
    bool same = now && n == len && !memcmp(now, b, len);
    free(now);
    return same;
}

static void test_damage_is_not_a_crash(void)
{
    char path[600], copy[600], why[300];
    path_of(path, sizeof path, "notcrash.hyx");
    path_of(copy, sizeof copy, "notcrash-copy.hyx");
    uint64_t L[4];
    uint8_t *f2 = NULL, *f = NULL;
    size_t f2_len = 0, flen = 0;
    CHECK(build_three(path, L, &f2, &f2_len) == 0 && (f = (uint8_t *)check_read_file(path, &flen)), "build");
    if (!f)
        return;
    int newest = hxf_le64(f + 2 * HX_STORE_PAGE + 8) == 3 ? 1 : 0;
    uint64_t slot_at = (uint64_t)HX_STORE_PAGE * (uint64_t)(1 + newest);
    hxi_store *s = NULL;
    hx_error err;

    /* A flipped bit in the newest slot: its record is intact and synced, so nothing is lost. */
    f[slot_at + 20] ^= 0x10;
    write_file(copy, f, flen);
    CHECK(open_reader(copy, &s, &err) == 0 && hxi_store_generation(s) == 3, "readers keep generation 3");
    CHECK(s && hxi_store_verify(s, &err) == HX_ECHECKSUM && strstr(err.message, newest ? "meta slot 1" : "meta slot 0") &&
              strstr(err.message, "generation 3 recovered"),
          "verify names the damaged slot and the recovered generation: %s", err.message);
    hxi_store_close(s);
    CHECK(writer_rc(copy, 0, &err) == 0 && file_size(copy) == flen, "the writer repairs the slot, cutting nothing: %s",
          err.message);
    CHECK(open_reader(copy, &s, &err) == 0 && hxi_store_generation(s) == 3 && !*hxi_store_damage(s) &&
              !check_all(s, DAMAGE_TRIAL, why), "sound again at generation 3");
    hxi_store_close(s);
    CHECK(write_gens(copy, DAMAGE_TRIAL, 4, -1, &err) == 0, "and commits on top: %s", err.message);
    f[slot_at + 20] ^= 0x10;

    /* The newest slot and its record both damaged: generation 2 is all that can be proven, and
     * the bytes of generation 3 are not leftovers -- no writer may cut them unless asked. */
    uint64_t rec_off = hxf_le64(f + slot_at + 24);
    f[slot_at + 20] ^= 0x10;
    f[rec_off + 130] ^= 0x01;
    write_file(copy, f, flen);
    CHECK(open_reader(copy, &s, &err) == 0 && hxi_store_generation(s) == 2, "readers fall back to generation 2");
    CHECK(s && hxi_store_verify(s, &err) == HX_ECHECKSUM && strstr(err.message, "fell back to generation 2"),
          "verify fails and says so: %s", err.message);
    hxi_store_close(s);
    CHECK(writer_rc(copy, 0, &err) == HX_ECHECKSUM && strstr(err.message, "hyrax recover"), "writer refuses: %s",
          err.message);
    CHECK(same_bytes(copy, f, flen), "the refused writer changed no byte");
    CHECK(writer_rc(copy, HX_STORE_RECOVER, &err) == 0 && file_size(copy) == L[2], "recover keeps generation 2: %s",
          err.message);
    CHECK(open_reader(copy, &s, &err) == 0 && hxi_store_generation(s) == 2 && !*hxi_store_damage(s) &&
              !check_all(s, DAMAGE_TRIAL, why), "sound at generation 2 after recover");
    hxi_store_close(s);
    f[slot_at + 20] ^= 0x10;
    f[rec_off + 130] ^= 0x01;

    /* Truncation past the newest commit: its slot's CRC holds, so this is damage too. */
    write_file(copy, f, flen - 100);
    CHECK(open_reader(copy, &s, &err) == 0 && hxi_store_generation(s) == 2 && hxi_store_verify(s, &err) == HX_ETRUNCATED &&
              strstr(err.message, "generation 3 needs"), "truncated: %s", err.message);
    hxi_store_close(s);
    CHECK(writer_rc(copy, HX_STORE_CREATE, &err) == HX_ETRUNCATED && same_bytes(copy, f, flen - 100),
          "writer refuses a truncated file and leaves it: %s", err.message);

    /* A zeroed older slot with the file ending at the newest commit: nothing can be lost, the
     * writer rewrites the slot. */
    memset(f + (uint64_t)HX_STORE_PAGE * (uint64_t)(2 - newest), 0, 64);
    write_file(copy, f, flen);
    CHECK(open_reader(copy, &s, &err) == 0 && hxi_store_generation(s) == 3 && strstr(hxi_store_damage(s), "zeroed"),
          "zeroed slot reported: %s", s ? hxi_store_damage(s) : err.message);
    hxi_store_close(s);
    CHECK(writer_rc(copy, 0, &err) == 0 && open_reader(copy, &s, &err) == 0 && !*hxi_store_damage(s), "repaired");
    hxi_store_close(s);
    free(f);
    free(f2);
}

/* === Files that are not regular, or change underneath (issue 9, items 9 and 10) === */

static void test_not_a_regular_file(void)
{
    char path[600];
    path_of(path, sizeof path, "fifo.hyx");
    CHECK(mkfifo(path, 0600) == 0, "mkfifo");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {   /* a hang is a failure: the alarm kills the child */
        alarm(10);
        hxi_store *s;
        hx_error err;
        int r = open_reader(path, &s, &err), w = hxi_store_open(&s, path, HX_STORE_WRITE | HX_STORE_CREATE, &err);
        _exit(r == HX_EFORMAT && w == HX_EFORMAT && strstr(err.message, "not a regular file") ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a FIFO is refused at once, not waited on: status %d", status);
    unlink(path);
}

static void on_fault(int sig)
{
    hx_fault_jump();
    signal(sig, SIG_DFL);
}

/* Reads every blob of the current root under a guard: 0, 1 when it faulted, -1 on an error. */
static int read_guarded(hxi_store *s)
{
    hx_fault_guard g;
    if (!HX_FAULT_GUARD(g))
        return 1;
    const uint8_t *root, *data;
    size_t len;
    hx_error err;
    int rc = 0;
    hxi_store_root(s, &root, &len);
    for (size_t o = 12; o + ENTRY <= len && !rc; o += ENTRY)
        rc = hxi_store_blob(s, hxi_store_ref_get(root + o + 12), &data, &err) ? -1 : 0;
    hx_fault_leave(&g);
    return rc;
}

static void test_changed_underneath(void)
{
    char path[600], other[600];
    path_of(path, sizeof path, "under.hyx");
    path_of(other, sizeof other, "under-other.hyx");
    hx_error err;
    CHECK(write_gens(path, 21, 3, -1, &err) == 0 && write_gens(other, 22, 2, -1, &err) == 0, "build");
    size_t len, olen;
    uint8_t *bytes = (uint8_t *)check_read_file(path, &len), *obytes = (uint8_t *)check_read_file(other, &olen);
    hxi_store *r = NULL;
    CHECK(bytes && obytes && open_reader(path, &r, &err) == 0, "reader");
    if (!r || !bytes || !obytes) {
        free(bytes);
        free(obytes);
        hxi_store_close(r);
        return;
    }
    struct sigaction sa, old_bus;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old_bus);
    /* cp over the file in place: truncated to nothing, then being rewritten */
    int fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && read_guarded(r) == 1, "a read of the truncated map comes back to the guard");
    CHECK(read_guarded(r) == 1, "and again: the guard is reusable");
    char why[300];
    CHECK(hxi_store_refresh(r, &err) < 0, "refresh of a half-written file fails cleanly");
    CHECK(fd >= 0 && write(fd, obytes, olen) == (ssize_t)olen && close(fd) == 0, "rewrite with another file");
    CHECK(hxi_store_refresh(r, &err) == 1 && hxi_store_generation(r) == 2 && !check_all(r, 22, why),
          "refresh reads the overwritten file afresh: %s", err.message);
    CHECK(read_guarded(r) == 0, "reads work again");
    sigaction(SIGBUS, &old_bus, NULL);
    hxi_store_close(r);
    free(bytes);
    free(obytes);
}

/* An unfinished compaction leaves no file: closed without finishing, or killed (the next writer
 * removes what it left). */
static void test_compaction_leftovers(void)
{
    char path[600], tmp[700];
    path_of(path, sizeof path, "leftover.hyx");
    snprintf(tmp, sizeof tmp, "%s.compact.tmp", path);
    hx_error err;
    hxi_store *w = NULL, *c = NULL;
    CHECK(write_gens(path, 23, 2, -1, &err) == 0 && hxi_store_open(&w, path, HX_STORE_WRITE, &err) == 0, "build");
    CHECK(w && hxi_store_compact_begin(w, &c, &err) == 0 && file_size(tmp) > 0, "begin");
    hxi_store_close(c);
    CHECK(access(tmp, F_OK) != 0, "closing an unfinished compaction removes its file");
    hxi_store_close(w);
    CHECK(write_file(tmp, (const uint8_t *)"stale", 5) == 0, "stale file");
    CHECK(writer_rc(path, 0, &err) == 0 && access(tmp, F_OK) != 0, "the next writer removes a stale one");
}

/* === Compaction === */

static void test_compaction(void)
{
    char path[600];
    path_of(path, sizeof path, "compact.hyx");
    hx_error err;
    char why[300];
    CHECK(write_gens(path, 5, 4, -1, &err) == 0, "build: %s", err.message);
    hxi_store *w, *r, *c;
    CHECK(open_reader(path, &r, &err) == 0, "reader");
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE, &err);
    CHECK(rc == 0, "writer: %s", err.message);
    if (rc || !r)
        return;
    uint64_t before = file_size(path);
    /* Keep only the blobs of the newest generation, as an index dropping old segments would. */
    const uint8_t *root, *data;
    size_t len;
    hxi_store_root(w, &root, &len);
    CHECK(hxi_store_compact_begin(w, &c, &err) == 0, "begin: %s", err.message);
    uint8_t *nroot = malloc(len);
    size_t nlen = 12;
    memcpy(nroot, root, 12);
    uint32_t kept = 0;
    for (size_t o = 12; o + ENTRY <= len; o += ENTRY) {
        if (hxf_le64(root + o) != 4)
            continue;
        hxi_store_ref ref = hxi_store_ref_get(root + o + 12), nref;
        CHECK(hxi_store_blob(w, ref, &data, &err) == 0, "read live blob");
        CHECK(hxi_store_append(c, data, (size_t)ref.length, &nref, &err) == 0, "copy blob");
        memcpy(nroot + nlen, root + o, 12);
        hxi_store_ref_put(nroot + nlen + 12, nref);
        nlen += ENTRY;
        kept++;
    }
    hxf_put32(nroot + 8, kept);
    CHECK(hxi_store_compact_finish(&w, c, &err) == HX_EINVAL, "finish needs a commit");
    CHECK(hxi_store_commit(c, nroot, nlen, "compacted", &err) == 0, "commit compacted");
    CHECK(hxi_store_generation(c) == 5, "generation continues: %llu", (unsigned long long)hxi_store_generation(c));
    hxi_store *old = w;
    CHECK(hxi_store_compact_finish(&w, c, &err) == 0 && w == c && w != old, "finish: %s", err.message);
    CHECK(file_size(path) < before, "file shrank: %llu -> %llu", (unsigned long long)before,
          (unsigned long long)file_size(path));
    /* The old reader keeps its map of the old file, then moves to the new one. */
    CHECK(hxi_store_generation(r) == 4 && !check_all(r, 5, why), "old reader still works: %s", why);
    CHECK(hxi_store_refresh(r, &err) == 1 && hxi_store_generation(r) == 5, "refresh follows the rename");
    hxi_store_info *h;
    size_t hn;
    CHECK(hxi_store_history(r, &h, &hn, &err) == 0 && hn == 1 && !strcmp(h[0].name, "compacted"), "chain restarts");
    free(h);
    CHECK(hxi_store_root_at(r, 3, &root, &len, &err) == HX_ENOTFOUND, "older generations compacted away");
    CHECK(hxi_store_verify(r, &err) == 0, "verify compacted: %s", err.message);
    hxi_store_root(r, &root, &len);
    CHECK(len == nlen && !memcmp(root, nroot, len), "compacted root");
    for (size_t o = 12; o + ENTRY <= len; o += ENTRY)
        CHECK(hxi_store_blob(r, hxi_store_ref_get(root + o + 12), &data, &err) == 0, "compacted blob");
    CHECK(hxi_store_commit(w, "next", 4, NULL, &err) == 0 && hxi_store_generation(w) == 6, "write on");
    CHECK(hxi_store_refresh(r, &err) == 1 && hxi_store_generation(r) == 6, "reader sees it");
    free(nroot);
    hxi_store_close(w);
    hxi_store_close(r);
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.compact.tmp", path);
    CHECK(access(tmp, F_OK) != 0, "no temporary left");
}

/* Compaction that keeps older commits: copies go in oldest first with their own generation, time
 * and name, the chain then has gaps, and verify, as_of, names and roll-forward all work across
 * them. Facts checked by hand: commits 1..5 at increasing times, 2 named "keep", 4 unnamed; the
 * copies keep 2 and 4, so the state as of the time of 3 is gone (not 2's), and the head is 6 (one
 * above the old file). */
static void test_compaction_keeps(void)
{
    char path[600];
    path_of(path, sizeof path, "keep.hyx");
    hx_error err;
    hxi_store *w, *c, *r;
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, &err);
    CHECK(rc == 0, "create: %s", err.message);
    if (rc)
        return;
    int64_t ts[6] = {0};
    for (int g = 1; g <= 5; g++) {
        char blob[32];
        int n = snprintf(blob, sizeof blob, "blob of %d", g);
        hxi_store_ref ref;
        uint8_t root[HX_STORE_REF_SIZE];
        CHECK(hxi_store_append(w, blob, (size_t)n, &ref, &err) == 0, "append");
        hxi_store_ref_put(root, ref);
        CHECK(hxi_store_commit(w, root, sizeof root, g == 2 ? "keep" : NULL, &err) == 0, "commit %d", g);
        ts[g] = hxi_store_timestamp(w);
    }
    hxi_store_info *h;
    size_t n;
    CHECK(hxi_store_history(w, &h, &n, &err) == 0 && n == 5, "history");
    CHECK(hxi_store_compact_begin(w, &c, &err) == 0, "begin: %s", err.message);
    hxi_store_info wrong = h[0];   /* generation 5: the head of the compacted file is 6 */
    wrong.generation = 6;
    CHECK(hxi_store_commit_copy(c, NULL, 0, &wrong, &err) == HX_EINVAL, "a copy below the head only");
    for (int k = 3; k >= 0; k -= k == 3 ? 2 : 1) {   /* h[3], h[1], h[0]: generations 2, 4, 5 */
        const uint8_t *root, *data;
        size_t len;
        uint8_t copy[HX_STORE_REF_SIZE];
        hxi_store_ref ref;
        CHECK(hxi_store_root_at(w, h[k].generation, &root, &len, &err) == 0 && len == sizeof copy, "root");
        CHECK(hxi_store_blob(w, hxi_store_ref_get(root), &data, &err) == 0, "blob");
        CHECK(hxi_store_append(c, data, (size_t)hxi_store_ref_get(root).length, &ref, &err) == 0, "copy blob");
        hxi_store_ref_put(copy, ref);
        CHECK(hxi_store_commit_copy(c, copy, sizeof copy, &h[k], &err) == 0, "copy %llu: %s",
              (unsigned long long)h[k].generation, err.message);
    }
    CHECK(hxi_store_commit_copy(c, NULL, 0, &h[2], &err) == HX_EINVAL, "copies go oldest first");
    wrong.generation = 7;
    CHECK(hxi_store_commit_copy(c, NULL, 0, &wrong, &err) == HX_EINVAL, "nothing at or above the head");
    CHECK(hxi_store_compact_finish(&w, c, &err) == HX_EINVAL, "finish needs the head");
    CHECK(hxi_store_commit(c, "head", 4, NULL, &err) == 0 && hxi_store_generation(c) == 6, "head is 6");
    CHECK(hxi_store_compact_finish(&w, c, &err) == 0, "finish: %s", err.message);
    free(h);
    CHECK(open_reader(path, &r, &err) == 0, "reader: %s", err.message);
    if (r) {
        hxi_store_info at;
        CHECK(hxi_store_verify(r, &err) == 0, "verify across gaps: %s", err.message);
        CHECK(hxi_store_history(r, &h, &n, &err) == 0 && n == 4 && h[0].generation == 6 && h[1].generation == 5 &&
              h[2].generation == 4 && h[3].generation == 2 && h[3].timestamp_ns == ts[2] && h[2].timestamp_ns == ts[4],
              "kept 6, 5, 4, 2");
        free(h);
        CHECK(hxi_store_find_name(r, "keep", &at, &err) == 0 && at.generation == 2 && at.timestamp_ns == ts[2],
              "the name survives");
        CHECK(hxi_store_as_of(r, ts[3], &at, &err) == HX_ENOTFOUND, "as_of a dropped commit is not kept");
        CHECK(hxi_store_as_of(r, ts[2], &at, &err) == HX_ENOTFOUND, "nor the commit before a gap");
        CHECK(hxi_store_as_of(r, ts[4], &at, &err) == 0 && at.generation == 4, "as_of a kept commit");
        CHECK(hxi_store_as_of(r, INT64_MAX, &at, &err) == 0 && at.generation == 6, "as_of now: the head");
        CHECK(hxi_store_as_of(r, ts[1], &at, &err) == HX_ENOTFOUND, "older than what is kept");
        const uint8_t *root, *data;
        size_t len;
        CHECK(hxi_store_root_at(r, 4, &root, &len, &err) == 0 && len == HX_STORE_REF_SIZE &&
              hxi_store_blob(r, hxi_store_ref_get(root), &data, &err) == 0 && !memcmp(data, "blob of 4", 9),
              "generation 4 reads as before");
        hxi_store_close(r);
    }
    /* Compacted again keeping only "keep": the chain is 2 then the head, 7. */
    hxi_store_info keep;
    const uint8_t *root, *data;
    size_t len;
    uint8_t copy[HX_STORE_REF_SIZE];
    hxi_store_ref ref;
    CHECK(hxi_store_find_name(w, "keep", &keep, &err) == 0 && hxi_store_compact_begin(w, &c, &err) == 0 &&
          hxi_store_root_at(w, 2, &root, &len, &err) == 0 && hxi_store_blob(w, hxi_store_ref_get(root), &data, &err) == 0 &&
          hxi_store_append(c, data, (size_t)hxi_store_ref_get(root).length, &ref, &err) == 0, "second compaction");
    hxi_store_ref_put(copy, ref);
    CHECK(hxi_store_commit_copy(c, copy, sizeof copy, &keep, &err) == 0 && hxi_store_commit(c, "h7", 2, NULL, &err) == 0 &&
          hxi_store_generation(c) == 7 && hxi_store_compact_finish(&w, c, &err) == 0, "kept 2, head 7: %s", err.message);
    hxi_store_close(w);
    /* The slot of the head zeroed: its record, chained to generation 2's, proves it across the gap. */
    int fd = open(path, O_RDWR);
    uint8_t g0[8], g1[8], zero[64] = {0};
    CHECK(fd >= 0 && pread(fd, g0, 8, HX_STORE_PAGE + 8) == 8 && pread(fd, g1, 8, 2 * HX_STORE_PAGE + 8) == 8,
          "read slots");
    int head_slot = hxf_le64(g0) == 7 ? 0 : 1;
    CHECK(hxf_le64(head_slot ? g1 : g0) == 7 && hxf_le64(head_slot ? g0 : g1) == 2, "slots hold 7 and 2");
    CHECK(pwrite(fd, zero, sizeof zero, (off_t)HX_STORE_PAGE * (1 + head_slot)) == (ssize_t)sizeof zero, "zero slot");
    close(fd);
    CHECK(open_reader(path, &r, &err) == 0 && hxi_store_generation(r) == 7 && *hxi_store_damage(r),
          "rolled forward to 7 across the gap: %llu", r ? (unsigned long long)hxi_store_generation(r) : 0ULL);
    hxi_store_close(r);
}

/* === The crash test === */

#define TRIALS 240
#define GENS_PER_CHILD 8
#define DISK_EVERY 6  /* every 6th trial runs on the disk folder, where fdatasync takes time */

/* Forks a writer of trial t up to generation `upto`, kills it delay_us after it started (or lets
 * it finish when delay_us is UINT64_MAX) and returns the last generation it reported (-1: none);
 * *run_us is the time from its start to its last report. */
static int64_t run_child(const char *path, uint64_t t, uint64_t upto, uint64_t delay_us, int *status,
                         uint64_t *run_us)
{
    int fds[2];
    *run_us = 0;
    if (pipe(fds) != 0)
        return -2;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        hx_error err;
        uint64_t start[2] = {UINT64_MAX, mono_us()};
        if (write(fds[1], start, sizeof start) != (ssize_t)sizeof start)
            _exit(4);
        _exit(write_gens(path, t, upto, fds[1], &err) == 0 ? 0 : 3);
    }
    close(fds[1]);
    /* The delay counts from the child's own start, so fork's cost does not eat the window; the
     * parent sleeps rather than spins, which on a busy machine would starve the child. */
    uint64_t msg[2];
    if (read(fds[0], msg, sizeof msg) == (ssize_t)sizeof msg && delay_us != UINT64_MAX) {
        uint64_t at = msg[1] + delay_us;
        struct timespec d = {(time_t)(at / 1000000u), (long)(at % 1000000u) * 1000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL) == EINTR)
            ;
        kill(pid, SIGKILL);
    }
    uint64_t start = msg[1];
    waitpid(pid, status, 0);
    int64_t last = -1;
    while (read(fds[0], msg, sizeof msg) == (ssize_t)sizeof msg) {
        last = (int64_t)msg[0];
        *run_us = msg[1] - start;
    }
    close(fds[0]);
    return last;
}

/* The median time an undisturbed child takes in folder d, so kill times spread over a whole run. */
static uint64_t calibrate(const char *d)
{
    char path[600];
    snprintf(path, sizeof path, "%s/calibrate.hyx", d);
    uint64_t runs[3];
    for (int i = 0; i < 3; i++) {
        int status;
        int64_t last = run_child(path, 0, GENS_PER_CHILD, UINT64_MAX, &status, &runs[i]);
        CHECK(last == GENS_PER_CHILD && WIFEXITED(status) && WEXITSTATUS(status) == 0, "calibration run");
        unlink(path);
    }
    uint64_t lo = runs[0] < runs[1] ? runs[0] : runs[1], hi = runs[0] < runs[1] ? runs[1] : runs[0];
    return runs[2] < lo ? lo : runs[2] > hi ? hi : runs[2];
}

static void test_crash(void)
{
    char path[600], why[300];
    hx_error err;
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  /* sleeps of a few microseconds stay short */
    uint64_t window[2] = {calibrate(dir), calibrate(disk_dir)};
    int outcome[5] = {0}; /* no file, last reported, one after it, child finished, bad */
    int progress[2 * (GENS_PER_CHILD + 1)] = {0};  /* by commits reported, and whether one more landed */
    uint64_t seed = 0x5EED;
    for (uint64_t t = 1; t <= TRIALS; t++) {
        int on_disk = t % DISK_EVERY == 0;
        snprintf(path, sizeof path, "%s/crash-%llu.hyx", on_disk ? disk_dir : dir, (unsigned long long)t);
        uint64_t base = t % 3;  /* 0: build from nothing; 1, 2: incremental on an existing file */
        if (base && write_gens(path, t, base, -1, &err) != 0) {
            CHECK(0, "trial %llu: setup: %s", (unsigned long long)t, err.message);
            continue;
        }
        seed = mix(seed);
        uint64_t delay = seed % (window[on_disk] + window[on_disk] / 8 + 1), run_us;
        int status;
        int64_t rep = run_child(path, t, base + GENS_PER_CHILD, delay, &status, &run_us);
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            CHECK(0, "trial %llu: the child failed on its own", (unsigned long long)t);
        uint64_t lo = rep >= 0 ? (uint64_t)rep : base;
        hxi_store *s;
        int rc = open_reader(path, &s, &err);
        int kind;
        if (rc == HX_ENOTFOUND && base == 0 && rep < 0) {
            kind = 0;
        } else if (rc != 0) {
            CHECK(0, "trial %llu (delay %llu us): open: %s", (unsigned long long)t,
                  (unsigned long long)delay, err.message);
            kind = 4;
        } else {
            uint64_t g = hxi_store_generation(s);
            const char *bad = g == lo || g == lo + 1 ? check_all(s, t, why) : "generation out of range";
            CHECK(!bad, "trial %llu (delay %llu us, reported %lld): generation %llu: %s",
                  (unsigned long long)t, (unsigned long long)delay, (long long)rep,
                  (unsigned long long)g, bad);
            kind = bad ? 4 : WIFEXITED(status) ? 3 : g == lo ? 1 : 2;
            hxi_store_close(s);
            /* A new writer picks up after the crash and finishes the sequence. */
            if (!bad && t % 4 == 0) {
                rc = write_gens(path, t, base + GENS_PER_CHILD, -1, &err);
                CHECK(rc == 0, "trial %llu: resume: %s", (unsigned long long)t, err.message);
                if (rc == 0 && open_reader(path, &s, &err) == 0) {
                    bad = hxi_store_generation(s) == base + GENS_PER_CHILD ? check_all(s, t, why) : "resumed generation";
                    CHECK(!bad, "trial %llu: after resume: %s", (unsigned long long)t, bad);
                    hxi_store_close(s);
                }
            }
        }
        outcome[kind]++;
        if (kind != 0 && kind != 4)
            progress[(lo - base) * 2 + (kind == 2)]++;
        unlink(path);
    }
    printf("test_store: crash test: %d trials (runs of %llu us on tmpfs, %llu us on disk): %d killed "
           "before the file existed, %d at the last reported generation, %d one past it, %d finished, "
           "%d bad\n", TRIALS, (unsigned long long)window[0], (unsigned long long)window[1],
           outcome[0], outcome[1], outcome[2], outcome[3], outcome[4]);
    printf("test_store: crash test: trials by commits reported before the kill (+ one more landed):");
    for (int i = 0; i <= GENS_PER_CHILD; i++)
        printf(" %d:%d+%d", i, progress[2 * i], progress[2 * i + 1]);
    printf("\n");
}

int main(void)
{
    /* tmpfs makes fdatasync free, so the many crash trials stay fast and their kills land in
     * writes and syncs alike; a sixth of them run on the disk, where the syncs take real time. */
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    bool shm = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0;
    snprintf(disk_dir, sizeof disk_dir, "%s/hxi_store_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    snprintf(dir, sizeof dir, "%s/hxi_store_XXXXXX", shm ? "/dev/shm" : tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || !mkdtemp(disk_dir)) {
        CHECK(0, "mkdtemp: %s", strerror(errno));
        return check_report("test_store");
    }
    test_round_trip();
    test_slots_and_chain();
    test_lock_and_refresh();
    test_io_errors();
    test_damage();
    test_damage_is_not_a_crash();
    test_not_a_regular_file();
    test_changed_underneath();
    test_compaction_leftovers();
    test_compaction();
    test_compaction_keeps();
    test_crash();
    remove_dir(dir);
    remove_dir(disk_dir);
    return check_report("test_store");
}
