/* rpc.c: JSON-RPC 2.0 framing over lines: the bounded line reader, message classification,
 * response writers, dispatch and the serve loop. Must not know MCP or any method name, and
 * never prints: replies go through hxi_json_writer and hxi_rpc_write_line. Spec: src/rpc.h. */
#include "rpc.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* === Line reader === */

#define READ_CHUNK ((size_t)64 << 10)

int hxi_rpc_reader_init(hxi_rpc_reader *r, int fd, size_t max_line, hx_error *err)
{
    memset(r, 0, sizeof *r);
    if (max_line == 0)
        max_line = HX_RPC_MAX_LINE;
    if (fd < 0 || max_line > SIZE_MAX / 4)
        return hx_error_set(err, HX_EINVAL, -1, "bad line reader arguments");
    r->fd = fd;
    r->max_line = max_line;
    /* cap <= max_line + 1 bytes are read into; one more byte always holds the NUL. */
    r->cap = max_line + 1 < READ_CHUNK ? max_line + 1 : READ_CHUNK;
    r->buf = hx_malloc(r->cap + 1);
    if (!r->buf)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    return 0;
}

void hxi_rpc_reader_free(hxi_rpc_reader *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

static int too_long(hxi_rpc_reader *r, size_t n, hx_error *err)
{
    r->skipped = 0;
    return hx_error_set(err, HX_ERANGE, (int64_t)n, "line of %zu bytes exceeds the limit of %zu",
                        n, r->max_line);
}

/* Hands out buf[s..end) as a line (end indexes the LF or the end of data); 1 if it is blank. */
static int take_line(hxi_rpc_reader *r, size_t s, size_t end, const char **line, size_t *len)
{
    size_t n = end - s;
    if (n > 0 && r->buf[end - 1] == '\r')
        n--;
    r->buf[s + n] = '\0';
    *line = r->buf + s;
    *len = n;
    return is_blank(*line, n);
}

int hxi_rpc_reader_next(hxi_rpc_reader *r, const char **line, size_t *len, hx_error *err)
{
    *line = NULL;
    *len = 0;
    if (!r->buf)
        return hx_error_set(err, HX_EINVAL, -1, "line reader not initialised");
    for (;;) {
        char *nl = memchr(r->buf + r->scan, '\n', r->len - r->scan);
        if (nl) {
            size_t s = r->start, end = (size_t)(nl - r->buf);
            r->start = r->scan = end + 1;
            if (r->skipped || end - s > r->max_line)
                return too_long(r, r->skipped + (end - s), err);
            if (take_line(r, s, end, line, len))
                continue;
            return 0;
        }
        r->scan = r->len;
        if (r->skipped || r->len - r->start > r->max_line) {
            r->skipped += r->len - r->start;
            r->start = r->len = r->scan = 0;
        }
        if (r->eof) {
            if (r->skipped)
                return too_long(r, r->skipped, err);
            if (r->len > r->start) {
                size_t s = r->start;
                r->start = r->scan = r->len;
                if (take_line(r, s, r->len, line, len))
                    continue;
                return 0;
            }
            *line = NULL;
            *len = 0;
            return 0;
        }
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->len - r->start);
            r->len -= r->start;
            r->scan -= r->start;
            r->start = 0;
        }
        if (r->len == r->cap) {
            /* Here len <= max_line, so cap < max_line + 1 and may grow. */
            size_t cap = r->cap * 2 < r->max_line + 1 ? r->cap * 2 : r->max_line + 1;
            char *b = hx_realloc(r->buf, cap + 1);
            if (!b)
                return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
            r->buf = b;
            r->cap = cap;
        }
        ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return hx_error_set(err, HX_EIO, -1, "read: %s", strerror(errno));
        }
        if (n == 0)
            r->eof = 1;
        r->len += (size_t)n;
    }
}

/* Waits until fd takes bytes or stop_fd fires: 0, HX_ECANCELED, or HX_EIO. */
static int wait_writable(int fd, int stop_fd, hx_error *err)
{
    struct pollfd p[2] = {{fd, POLLOUT, 0}, {stop_fd, POLLIN, 0}};
    for (;;) {
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return hx_error_set(err, HX_EIO, -1, "poll: %s", strerror(errno));
        if (p[1].revents)
            return hx_error_set(err, HX_ECANCELED, -1, "stopped while the reader was not taking output");
        if (p[0].revents)
            return 0;   /* writable, or an error the write itself will report */
    }
}

int hxi_rpc_write_line(int fd, int stop_fd, const char *buf, size_t len, hx_error *err)
{
    if ((!buf && len) || (len && memchr(buf, '\n', len)))
        return hx_error_set(err, HX_EINVAL, -1, "a message line must not contain a newline");
    struct iovec iov[2] = {{(void *)buf, len}, {"\n", 1}};
    int i = len ? 0 : 1;
    while (i < 2) {
        struct iovec part[2] = {iov[i], iov[1]};
        int parts = 2 - i;
        if (stop_fd >= 0) {
            int rc = wait_writable(fd, stop_fd, err);
            if (rc)
                return rc;
            /* At most PIPE_BUF bytes: after POLLOUT a pipe takes them without blocking. */
            if (part[0].iov_len >= PIPE_BUF) {
                part[0].iov_len = PIPE_BUF;
                parts = 1;
            }
        }
        ssize_t n = writev(fd, part, parts);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return hx_error_set(err, HX_EIO, -1, "write: %s", strerror(errno));
        }
        size_t done = (size_t)n;
        while (i < 2 && done >= iov[i].iov_len) {
            done -= iov[i].iov_len;
            i++;
        }
        if (i < 2) {
            iov[i].iov_base = (char *)iov[i].iov_base + done;
            iov[i].iov_len -= done;
        }
    }
    return 0;
}

/* === Messages === */

static int invalid(hxi_rpc_msg *msg, int code, const char *message)
{
    msg->kind = HX_RPC_INVALID;
    msg->code = code;
    snprintf(msg->message, sizeof msg->message, "%s", message);
    return 0;
}

static int is_id(const hxi_json_val *v)
{
    int t = hxi_json_type_of(v);
    return t == HX_JSON_STRING || t == HX_JSON_NUMBER;
}

/* Copies the exact source text of a string or number id. */
static int copy_id(hxi_rpc_msg *msg, const hxi_json_val *id, const char *text, hx_error *err)
{
    size_t s = (size_t)hxi_json_offset(id), e;
    if (hxi_json_type_of(id) == HX_JSON_NUMBER) {
        e = s + hxi_json_len(id);
    } else {
        /* The string was validated by the parser: its end is the first unescaped quote. */
        e = s + 1;
        while (text[e] != '"')
            e += text[e] == '\\' ? 2 : 1;
        e++;
    }
    msg->id_json = hx_malloc(e - s + 1);
    if (!msg->id_json)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    memcpy(msg->id_json, text + s, e - s);
    msg->id_json[e - s] = '\0';
    msg->id_len = e - s;
    msg->id = id;
    return 0;
}

static int classify_response(hxi_rpc_msg *msg, const hxi_json_val *root)
{
    const hxi_json_val *result = hxi_json_obj_get(root, "result");
    const hxi_json_val *error = hxi_json_obj_get(root, "error");
    const hxi_json_val *id = hxi_json_obj_get(root, "id");
    if (!id || (!is_id(id) && hxi_json_type_of(id) != HX_JSON_NULL))
        return invalid(msg, HX_RPC_INVALID_REQUEST, "Invalid Request: a response needs an id");
    if (result && error)
        return invalid(msg, HX_RPC_INVALID_REQUEST,
                       "Invalid Request: a response has either result or error, not both");
    if (error) {
        int64_t code;
        if (hxi_json_type_of(error) != HX_JSON_OBJECT ||
            hxi_json_num_int64(hxi_json_obj_get(error, "code"), &code, NULL) != 0 ||
            hxi_json_type_of(hxi_json_obj_get(error, "message")) != HX_JSON_STRING)
            return invalid(msg, HX_RPC_INVALID_REQUEST,
                           "Invalid Request: error must be an object with an integer code and a "
                           "string message");
    }
    msg->kind = HX_RPC_RESPONSE;
    msg->result = result;
    msg->error = error;
    return 0;
}

int hxi_rpc_msg_parse(hxi_rpc_msg *msg, const char *text, size_t len, const hxi_json_limits *lim,
                      hx_error *err)
{
    memset(msg, 0, sizeof *msg);
    hx_error jerr = {0};
    int rc = hxi_json_parse(&msg->doc, text, len, lim, &jerr);
    if (rc == HX_ENOMEM)
        return hx_error_set(err, rc, jerr.offset, "%s", jerr.message);
    if (rc) {
        invalid(msg, HX_RPC_PARSE_ERROR, "");
        snprintf(msg->message, sizeof msg->message, "Parse error: %.230s", jerr.message);
        return 0;
    }
    const hxi_json_val *root = hxi_json_doc_root(msg->doc);
    if (hxi_json_type_of(root) == HX_JSON_ARRAY) {
        msg->kind = HX_RPC_BATCH;
        msg->code = HX_RPC_INVALID_REQUEST;
        snprintf(msg->message, sizeof msg->message, "%s",
                 "Invalid Request: batches are not supported (MCP 2025-06-18 removed JSON-RPC "
                 "batching); send one message per line");
        return 0;
    }
    if (hxi_json_type_of(root) != HX_JSON_OBJECT)
        return invalid(msg, HX_RPC_INVALID_REQUEST, "Invalid Request: a message must be an object");
    const hxi_json_val *id = hxi_json_obj_get(root, "id");
    if (is_id(id) && (rc = copy_id(msg, id, text, err))) {
        hxi_rpc_msg_free(msg);
        return rc;
    }
    size_t vlen;
    const char *version = hxi_json_str(hxi_json_obj_get(root, "jsonrpc"), &vlen);
    if (!version || vlen != 3 || memcmp(version, "2.0", 3) != 0)
        return invalid(msg, HX_RPC_INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
    const hxi_json_val *method = hxi_json_obj_get(root, "method");
    if (!method) {
        if (hxi_json_obj_get(root, "result") || hxi_json_obj_get(root, "error"))
            return classify_response(msg, root);
        return invalid(msg, HX_RPC_INVALID_REQUEST, "Invalid Request: \"method\" is missing");
    }
    msg->method = hxi_json_str(method, &msg->method_len);
    if (!msg->method)
        return invalid(msg, HX_RPC_INVALID_REQUEST, "Invalid Request: \"method\" must be a string");
    if (memchr(msg->method, '\0', msg->method_len))
        return invalid(msg, HX_RPC_INVALID_REQUEST,
                       "Invalid Request: \"method\" must not contain U+0000");
    if (id && !is_id(id))
        return invalid(msg, HX_RPC_INVALID_REQUEST,
                       "Invalid Request: \"id\" must be a string or a number");
    const hxi_json_val *params = hxi_json_obj_get(root, "params");
    int pt = hxi_json_type_of(params);
    if (params && pt != HX_JSON_OBJECT && pt != HX_JSON_ARRAY)
        return invalid(msg, HX_RPC_INVALID_REQUEST,
                       "Invalid Request: \"params\" must be an object or an array");
    msg->params = params;
    msg->kind = id ? HX_RPC_REQUEST : HX_RPC_NOTIFICATION;
    return 0;
}

void hxi_rpc_msg_free(hxi_rpc_msg *msg)
{
    if (msg) {
        hxi_json_doc_free(msg->doc);
        free(msg->id_json);
        memset(msg, 0, sizeof *msg);
    }
}

/* === Responses === */

/* Resets w and writes {"jsonrpc":"2.0","id":ID, leaving the object open. */
static int begin_response(hxi_json_writer *w, const char *id, size_t id_len, hx_error *err)
{
    hxi_json_writer_reset(w);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "jsonrpc", "2.0");
    hxi_json_write_key(w, "id");
    if (!id) {
        hxi_json_write_null(w);
    } else if (id_len > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))) {
        hxi_json_write_json(w, id, id_len);
    } else {
        hxi_json_writer_reset(w);
        return hx_error_set(err, HX_EINVAL, -1, "an id must be a JSON string or number");
    }
    if (w->status) {
        int code = w->status;
        hxi_json_writer_reset(w);
        return hx_error_set(err, code == HX_ENOMEM ? HX_ENOMEM : HX_EINVAL, -1,
                            "cannot write the id: %s", hx_strerror(code));
    }
    return 0;
}

static int end_response(hxi_json_writer *w, hx_error *err)
{
    hxi_json_write_obj_end(w);
    int rc = hxi_json_writer_finish(w, err);
    if (rc)
        hxi_json_writer_reset(w);
    return rc;
}

int hxi_rpc_write_result(hxi_json_writer *w, const char *id, size_t id_len, const char *result,
                         size_t result_len, hx_error *err)
{
    int rc = begin_response(w, id, id_len, err);
    if (rc)
        return rc;
    hxi_json_write_key(w, "result");
    hxi_json_write_json(w, result, result_len);
    return end_response(w, err);
}

int hxi_rpc_write_result_fn(hxi_json_writer *w, const char *id, size_t id_len, hxi_rpc_write_fn fn,
                            void *ctx, hx_error *err)
{
    int rc = begin_response(w, id, id_len, err);
    if (rc)
        return rc;
    hxi_json_write_key(w, "result");
    size_t before = w->len;
    rc = fn(ctx, w, err);
    if (rc == 0 && (w->status || w->depth != 1 || w->after_key || w->len == before))
        rc = hx_error_set(err, w->status ? w->status : HX_EINVAL, -1,
                          "result writer did not write exactly one value");
    if (rc) {
        hxi_json_writer_reset(w);
        return rc;
    }
    return end_response(w, err);
}

int hxi_rpc_write_error(hxi_json_writer *w, const char *id, size_t id_len, int code,
                        const char *message, const char *data, size_t data_len, hx_error *err)
{
    int rc = begin_response(w, id, id_len, err);
    if (rc)
        return rc;
    hxi_json_write_key(w, "error");
    hxi_json_write_obj_begin(w);
    hxi_json_kv_int(w, "code", code);
    hxi_json_kv_cstr(w, "message", message ? message : "");
    if (data) {
        hxi_json_write_key(w, "data");
        hxi_json_write_json(w, data, data_len);
    }
    hxi_json_write_obj_end(w);
    return end_response(w, err);
}

/* === Dispatch === */

int hxi_rpc_dispatch(const char *line, size_t len, const hxi_json_limits *lim, hxi_rpc_handler fn,
                     void *ctx, hxi_json_writer *out, hx_error *err)
{
    hxi_rpc_msg msg;
    char text[128];
    if (!fn || !out || (!line && len))
        return hx_error_set(err, HX_EINVAL, -1, "hxi_rpc_dispatch: NULL argument");
    hxi_json_writer_reset(out);
    int rc = hxi_rpc_msg_parse(&msg, line, len, lim, err);
    if (rc)
        return hxi_rpc_write_error(out, NULL, 0, HX_RPC_INTERNAL_ERROR,
                                   "Internal error: out of memory", NULL, 0, err) ? rc : 0;
    switch (msg.kind) {
    case HX_RPC_INVALID:
    case HX_RPC_BATCH:
        rc = hxi_rpc_write_error(out, msg.id_json, msg.id_len, msg.code, msg.message, NULL, 0, err);
        break;
    case HX_RPC_REQUEST:
        rc = fn(ctx, &msg, out);
        if (rc == HX_RPC_DEFERRED) {
            hxi_json_writer_reset(out);
            rc = 0;
            break;
        }
        if (rc == 0 && hxi_json_writer_finish(out, NULL) == 0)
            break;
        snprintf(text, sizeof text, "Internal error: %s",
                 rc ? hx_strerror(rc) : "the method wrote no complete reply");
        rc = hxi_rpc_write_error(out, msg.id_json, msg.id_len, HX_RPC_INTERNAL_ERROR, text, NULL, 0,
                                 err);
        break;
    default:
        fn(ctx, &msg, out);
        hxi_json_writer_reset(out);
        rc = 0;
        break;
    }
    hxi_rpc_msg_free(&msg);
    return rc;
}
