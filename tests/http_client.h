/* http_client.h: the HTTP tests' fixture: a started `hyrax serve --http` on a temp root with three
 * indexed notes, raw-socket connections, requests written byte by byte, responses read back
 * (status, headers, dechunked body) and their JSON picked apart. Shared by test_http.c and
 * test_http_guard.c. */
#ifndef HX_HTTP_CLIENT_H
#define HX_HTTP_CLIENT_H

#include "check.h"
#include "http.h"
#include "json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* === A started server === */

typedef struct {
    pid_t pid;
    int port;
    int err_fd;
} http_srv;

/* Starts hyrax serve --http 127.0.0.1:0 (plus extra arguments) and reads the port it prints. */
static inline int srv_start(http_srv *s, const char *root, const char *db, const char *const *extra)
{
    int errp[2];
    if (pipe(errp))
        return -1;
    /* every tool served: the tests call them all */
    const char *argv[26] = {"hyrax", "serve", "--http", "127.0.0.1:0", "--db", db, "--root", root, "--threads", "1",
                            "--tools", "all"};
    int n = 12;
    for (int i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    s->pid = fork();
    if (s->pid == 0) {
        dup2(errp[1], 2);
        close(errp[0]);
        const char *bin = getenv("HYRAX_BIN") ? getenv("HYRAX_BIN") : "./hyrax";
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(errp[1]);
    s->err_fd = errp[0];
    char buf[512];
    size_t len = 0;
    s->port = 0;
    while (len < sizeof buf - 1) {
        struct pollfd p = {s->err_fd, POLLIN, 0};
        if (poll(&p, 1, 20000) <= 0)
            break;
        ssize_t r = read(s->err_fd, buf + len, sizeof buf - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
        buf[len] = 0;
        char *at = strstr(buf, "http://"), *nl = at ? strchr(at, '\n') : NULL;
        if (nl) {   /* "listening on http://ADDR:PORT" */
            *nl = 0;
            s->port = atoi(strrchr(at, ':') + 1);
            break;
        }
    }
    return s->port > 0 ? 0 : -1;
}

static inline int srv_stop(http_srv *s)
{
    int status = 0;
    kill(s->pid, SIGTERM);
    waitpid(s->pid, &status, 0);
    close(s->err_fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A connection to ip:port (IPv4). */
static inline int connect_ip(const char *ip, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, ip, &a.sin_addr);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct timeval tv = {60, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static inline int connect_to(int port)
{
    return connect_ip("127.0.0.1", port);
}

/* Sends s[0..n); -1 when the connection fails first (EPIPE, ECONNRESET). */
static inline int send_str(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static inline void send_cstr(int fd, const char *s)
{
    send_str(fd, s, strlen(s));
}

/* One response read from a connection: status, headers (raw), body (dechunked). */
typedef struct {
    int status;
    char head[4096];
    char *body;
    size_t body_len;
} response;

typedef struct {
    int fd;
    char buf[1 << 16];
    size_t len;
} reader;

static inline int fill(reader *r)
{
    if (r->len == sizeof r->buf)
        return -1;
    ssize_t n = recv(r->fd, r->buf + r->len, sizeof r->buf - r->len, 0);
    if (n <= 0)
        return -1;
    r->len += (size_t)n;
    return 0;
}

static inline void drop(reader *r, size_t n)
{
    memmove(r->buf, r->buf + n, r->len - n);
    r->len -= n;
}

/* Reads a line (without CR LF) into out; -1 at end of stream. */
static inline int read_line_r(reader *r, char *out, size_t cap)
{
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl) {
            size_t n = (size_t)(nl - r->buf);
            size_t k = n && r->buf[n - 1] == '\r' ? n - 1 : n;
            if (k >= cap)
                k = cap - 1;
            memcpy(out, r->buf, k);
            out[k] = 0;
            drop(r, n + 1);
            return 0;
        }
        if (fill(r))
            return -1;
    }
}

static inline int read_bytes(reader *r, char *out, size_t n)
{
    while (n) {   /* a body may be longer than the buffer: take it a bufferful at a time */
        if (!r->len && fill(r))
            return -1;
        size_t k = r->len < n ? r->len : n;
        memcpy(out, r->buf, k);
        drop(r, k);
        out += k;
        n -= k;
    }
    return 0;
}

/* The next response (the 100 Continue interim one too); status -1 when the stream ends first. */
static inline void read_response(reader *r, response *resp)
{
    memset(resp, 0, sizeof *resp);
    resp->status = -1;
    char line[8192];
    if (read_line_r(r, line, sizeof line) || sscanf(line, "HTTP/1.1 %d", &resp->status) != 1)
        return;
    size_t hl = 0;
    long clen = -1;
    bool chunked = false;
    while (!read_line_r(r, line, sizeof line) && line[0]) {
        hl += (size_t)snprintf(resp->head + hl, sizeof resp->head - hl, "%s\n", line);
        if (!strncasecmp(line, "Content-Length:", 15))
            clen = atol(line + 15);
        if (!strncasecmp(line, "Transfer-Encoding: chunked", 26))
            chunked = true;
        if (hl >= sizeof resp->head - 1)
            break;
    }
    if (resp->status == 100)
        return;
    if (chunked) {
        for (;;) {
            if (read_line_r(r, line, sizeof line))
                return;
            size_t n = strtoul(line, NULL, 16);
            if (!n) {
                read_line_r(r, line, sizeof line);
                break;
            }
            resp->body = realloc(resp->body, resp->body_len + n + 1);
            if (read_bytes(r, resp->body + resp->body_len, n))
                return;
            resp->body_len += n;
            read_line_r(r, line, sizeof line);
        }
    } else if (clen > 0) {
        resp->body = malloc((size_t)clen + 1);
        if (read_bytes(r, resp->body, (size_t)clen))
            return;
        resp->body_len = (size_t)clen;
    }
    if (!resp->body)
        resp->body = malloc(1);
    resp->body[resp->body_len] = 0;
}

/* One request on a fresh connection to ip:port; the response in *resp (caller frees resp->body). */
static inline void exchange_at(const char *ip, int port, const char *raw, response *resp)
{
    reader *r = calloc(1, sizeof *r);
    r->fd = connect_ip(ip, port);
    memset(resp, 0, sizeof *resp);
    resp->status = -1;
    if (r->fd >= 0) {
        send_str(r->fd, raw, strlen(raw));
        read_response(r, resp);
        close(r->fd);
    }
    free(r);
}

static inline void exchange(int port, const char *raw, response *resp)
{
    exchange_at("127.0.0.1", port, raw, resp);
}

/* POST path with a JSON body and extra header lines (each ending CR LF). */
static inline void post(int port, const char *path, const char *headers, const char *body, response *resp)
{
    size_t n = strlen(body) + strlen(headers) + 512;
    char *raw = malloc(n);
    snprintf(raw, n, "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n%sContent-Length: %zu\r\n\r\n%s",
             path, headers, strlen(body), body);
    exchange(port, raw, resp);
    free(raw);
}

static inline hxi_json_doc *json_of(const response *resp)
{
    hxi_json_doc *doc = NULL;
    if (!resp->body || hxi_json_parse(&doc, resp->body, resp->body_len, NULL, NULL))
        return NULL;
    return doc;
}

static inline const hxi_json_val *at(const hxi_json_doc *d, const char *path)
{
    const hxi_json_val *v = d ? hxi_json_doc_root(d) : NULL;
    char key[64];
    while (v && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        memcpy(key, path, n);
        key[n] = 0;
        v = (key[0] >= '0' && key[0] <= '9') ? hxi_json_arr_get(v, (size_t)atoi(key)) : hxi_json_obj_get(v, key);
        path += n + (dot != NULL);
    }
    return v;
}

static inline bool str_is(const hxi_json_val *v, const char *want)
{
    const char *s = hxi_json_str(v, NULL);
    return s && !strcmp(s, want);
}

static inline int64_t int_of(const hxi_json_val *v)
{
    int64_t x = -1;
    hxi_json_num_int64(v, &x, NULL);
    return x;
}

/* GET /health until it is answered 200, for at most 5 s: room the server makes after an answer or
 * a close comes a moment after the client sees them. */
static inline void health_until_ok(int port, response *resp)
{
    for (int tries = 0;; tries++) {
        exchange(port, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", resp);
        if (resp->status == 200 || tries == 50)
            return;
        free(resp->body);
        usleep(100000);
    }
}

/* A temp root holding three notes (zoo.md, pods.md, auth.md) and its index db (ROOT.hyx). */
static inline void http_fixture(char *root, char *db, size_t db_cap)
{
    char tmpl[] = "/tmp/hxi_http_XXXXXX", cmd[4 * PATH_MAX];
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, db_cap, "%s.hyx", root);
    check_put(root, "zoo.md", "# Zoo\n\nThe zebras graze beside the giraffes.\n");
    check_put(root, "pods.md", "---\ntitle: Pods\nowning-sig: sig-node\n---\n# Pods\n\nA pod runs containers, the "
                               "smallest deployable units of Kubernetes.\n");
    check_put(root, "auth.md", "---\nowning-sig: sig-auth\n---\n# Auth\n\nBearer tokens authenticate API requests.\n");
    snprintf(cmd, sizeof cmd, "%s index --db %s %s >/dev/null", getenv("HYRAX_BIN") ? getenv("HYRAX_BIN") : "./hyrax",
             db, root);
    CHECK(system(cmd) == 0, "index the fixture");
}

/* Removes the fixture's root and index. */
static inline void http_fixture_remove(const char *root)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", root, root);
    CHECK(system(cmd) == 0, "cleanup");
}

#endif
