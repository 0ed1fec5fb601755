/* serve_client.h: the tests' client for `hyrax serve` on pipes: start it, send lines, read answer
 * lines with a timeout, and pick values out of parsed answers. Shared by every test that talks to
 * serve over stdio; the binary comes from $HYRAX_BIN (./hyrax when unset). */
#ifndef HX_SERVE_CLIENT_H
#define HX_SERVE_CLIENT_H

#include "check.h"
#include "json.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct {
    pid_t pid;
    int in, out;          /* we write to in, read from out */
    char *buf;            /* unread output */
    size_t len, cap;
} server;

#define SERVE_MAX_ARGS 30

/* Starts `$HYRAX_BIN serve ARGS...` (args: at most SERVE_MAX_ARGS strings, then NULL; borrowed)
 * with its stdin and stdout on pipes, exactly those arguments; 0 or -1. */
static inline int start_serve_as_is(server *s, const char *const *args)
{
    const char *argv[SERVE_MAX_ARGS + 3] = {"hyrax", "serve"};
    int n = 0;
    for (; n < SERVE_MAX_ARGS && args[n]; n++)
        argv[2 + n] = args[n];
    if (args[n])
        return -1;
    argv[2 + n] = NULL;
    int to[2], from[2];
    if (pipe(to) || pipe(from))
        return -1;
    memset(s, 0, sizeof s[0]);
    s->pid = fork();
    if (s->pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[1]);
        close(from[0]);
        const char *bin = getenv("HYRAX_BIN") ? getenv("HYRAX_BIN") : "./hyrax";
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    s->in = to[1];
    s->out = from[0];
    return 0;
}

/* The same with `--tools all` first, as the tests call every tool, unless args name --tools. */
static inline int start_serve(server *s, const char *const *args)
{
    const char *all[SERVE_MAX_ARGS + 1] = {"--tools", "all"};
    int n = 0;
    for (; n < SERVE_MAX_ARGS && args[n]; n++)
        if (!strcmp(args[n], "--tools"))
            return start_serve_as_is(s, args);
    if (n > SERVE_MAX_ARGS - 2)
        return -1;
    for (int i = 0; i <= n; i++)
        all[2 + i] = args[i];
    return start_serve_as_is(s, all);
}

/* Starts `hyrax serve --db at_db --root at_root` (read-only, or with one thread); 0 or -1. */
static inline int start_in(server *s, const char *at_root, const char *at_db, int read_only)
{
    const char *args[] = {"--db", at_db, "--root", at_root, read_only ? "--read-only" : "--threads",
                          read_only ? NULL : "1", NULL};
    return start_serve(s, args);
}

static inline void send_raw(server *s, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(s->in, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        len -= (size_t)n;
    }
}

static inline void send_line(server *s, const char *line)
{
    send_raw(s, line, strlen(line));
    send_raw(s, "\n", 1);
}

/* Next output line (owned by the caller), or NULL after timeout_ms or at EOF. */
static inline char *read_line(server *s, int timeout_ms)
{
    for (;;) {
        char *nl = s->len ? memchr(s->buf, '\n', s->len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - s->buf);
            char *line = malloc(n + 1);
            memcpy(line, s->buf, n);
            line[n] = 0;
            memmove(s->buf, nl + 1, s->len - n - 1);
            s->len -= n + 1;
            return line;
        }
        struct pollfd p = {s->out, POLLIN, 0};
        if (poll(&p, 1, timeout_ms) <= 0)
            return NULL;
        if (s->cap - s->len < 65536) {
            s->cap = s->cap ? s->cap * 2 : 1 << 20;
            s->buf = realloc(s->buf, s->cap);
        }
        ssize_t n = read(s->out, s->buf + s->len, s->cap - s->len);
        if (n <= 0)
            return NULL;
        s->len += (size_t)n;
    }
}

/* The value at a dotted path of object keys ("structuredContent.status"), or NULL. */
static inline const hxi_json_val *get(const hxi_json_val *v, const char *path)
{
    char key[64];
    while (v && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        memcpy(key, path, n);
        key[n] = 0;
        v = hxi_json_obj_get(v, key);
        path += n + (dot != NULL);
    }
    return v;
}

/* Sends one request line and parses the answer (caller frees *doc); CHECKs that it is JSON. */
static inline const hxi_json_val *serve_request(server *s, hxi_json_doc **doc, const char *line)
{
    send_line(s, line);
    char *out = read_line(s, 60000);
    *doc = NULL;
    CHECK(out && hxi_json_parse(doc, out, strlen(out), NULL, NULL) == 0, "answer is JSON: %.200s", out ? out : "-");
    free(out);
    return *doc ? hxi_json_doc_root(*doc) : NULL;
}

/* Calls a tool (request ids from 100 up); returns its result, borrowed from *doc (the caller frees
 * it), and CHECKs that there is one. */
static inline const hxi_json_val *serve_tool(server *s, hxi_json_doc **doc, const char *name, const char *args)
{
    static int id = 100;
    size_t cap = strlen(args) + strlen(name) + 128;
    char *line = malloc(cap);
    snprintf(line, cap, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
             id++, name, args);
    const hxi_json_val *r = get(serve_request(s, doc, line), "result");
    free(line);
    CHECK(r != NULL, "%s: a result", name);
    return r;
}

#endif
