/* check.h: the one assertion macro of the plain-C tests. A failed CHECK prints where and why and
 * the test goes on; check_report() prints the tally and gives main() its exit status.
 * Tests run from the repository root (make test), so fixture paths are relative to it. */
#ifndef HX_CHECK_H
#define HX_CHECK_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int check_total, check_failed;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        check_total++;                                                                    \
        if (!(cond)) {                                                                    \
            check_failed++;                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

/* A whole fixture file as a NUL-terminated buffer (caller frees) and its length without the NUL;
 * NULL when it cannot be read. */
static inline char *check_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *buf = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = (size_t)n;
    }
    return buf;
}

/* Writes len bytes to dir/rel, making rel's folders under dir (dir itself must exist). A file that
 * cannot be written whole is a failed CHECK; returns 0 or -1. */
static inline int check_put_bytes(const char *dir, const char *rel, const void *data, size_t len)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    ok = f && fclose(f) == 0 && ok;
    CHECK(ok, "write %.200s", path);
    return ok ? 0 : -1;
}

/* check_put_bytes of a NUL-terminated text. */
static inline int check_put(const char *dir, const char *rel, const char *text)
{
    return check_put_bytes(dir, rel, text, strlen(text));
}

/* Runs a shell command; stdout goes to *out (caller frees), the exit status is returned (-1 when
 * it did not exit normally). */
static inline int check_run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    size_t n;
    while (p && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 4096)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = 0;
    int status = p ? pclose(p) : -1;
    *out = buf;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Copies a file byte for byte; 0 on success. */
static inline int check_copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out))
        rc = -1;
    return rc;
}

static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_total, check_failed);
    return check_failed ? 1 : 0;
}

#endif
