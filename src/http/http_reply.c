/* http_reply.c: the answers of `hyrax serve --http`: a reply's body (bytes, a finished JSON writer,
 * or the {"detail", "status"} error every route gives), its head and body written to the
 * non-blocking socket, and whether the server is stopping (what a streamed answer checks). Used by
 * the loop (http_server.c) and the routes (http_rest.c, http_mcp.c); reads no request. Spec:
 * `hyrax help http`. */
#include "http_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define WRITE_TIMEOUT_MS 10000   /* a client that reads nothing for this long loses its connection */

bool stopping(http_server *h)
{
    pthread_mutex_lock(&h->lock);
    bool stop = h->stopping;
    pthread_mutex_unlock(&h->lock);
    return stop;
}

/* Writes all of buf to the non-blocking fd, waiting at most WRITE_TIMEOUT_MS for room each time. */
int send_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {fd, POLLOUT, 0};
            if (poll(&p, 1, WRITE_TIMEOUT_MS) > 0 && !(p.revents & (POLLERR | POLLHUP)))
                continue;
        }
        return -1;
    }
    return 0;
}

int reply_put(reply *r, const char *data, size_t n)
{
    if (hx_grow((void **)&r->body, &r->cap, r->len + n + 1, 1, NULL))
        return HX_ENOMEM;
    memcpy(r->body + r->len, data, n);
    r->len += n;
    return 0;
}

/* The finished JSON of w as the reply's body. */
void reply_json(reply *r, int status, hxi_json_writer *w)
{
    r->status = status;
    r->type = "application/json";
    r->len = 0;
    if (hxi_json_writer_finish(w, NULL) || reply_put(r, w->buf, w->len)) {
        r->status = 500;
        r->len = 0;
        reply_put(r, "{\"detail\":\"out of memory\",\"status\":500}", 39);
    }
}

void reply_error(reply *r, int status, const char *detail)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_kv_cstr(&w, "detail", detail);
    hxi_json_kv_int(&w, "status", status);
    hxi_json_write_obj_end(&w);
    reply_json(r, status, &w);
    hxi_json_writer_free(&w);
}

/* Head and body of r on fd; -1 when the client is gone. */
int reply_send(int fd, const reply *r, bool keep_alive)
{
    char head[1024];
    size_t n = hxi_http_head(head, sizeof head, r->status, r->type, r->len, keep_alive, r->extra);
    if (!n)
        return -1;
    if (r->len < 16384) {   /* one send for head and a small body */
        char *both = hx_malloc(n + r->len);
        if (both) {
            memcpy(both, head, n);
            if (r->len)
                memcpy(both + n, r->body, r->len);
            int rc = send_all(fd, both, n + r->len);
            free(both);
            return rc;
        }
    }
    return send_all(fd, head, n) || (r->len && send_all(fd, r->body, r->len)) ? -1 : 0;
}
