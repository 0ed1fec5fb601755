/* test_rpc.c: JSON-RPC 2.0 framing (src/rpc.c). Each standard error code for the input that
 * deserves it, ids echoed byte for byte (strings with escapes, big, negative and float-looking
 * numbers), no reply to notifications or responses, the exact shape of responses, and the line
 * reader over pipes: messages split across read() calls, over-long lines, CR LF, blank lines and
 * a last line without a newline; then reader, dispatch and writer end to end in a server's loop. */
#include "check.h"
#include "rpc.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* === A handler with a few methods === */

typedef struct calls {
    int notifications, responses;
} calls;

static int echo_params(void *ctx, hxi_json_writer *w, hx_error *err)
{
    (void)err;
    const hxi_json_val *params = ctx;
    if (params)
        hxi_json_write_val(w, params);
    else
        hxi_json_write_null(w);
    return 0;
}

static int handler(void *ctx, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    calls *c = ctx;
    if (msg->kind == HX_RPC_NOTIFICATION) {
        c->notifications++;
        hxi_json_write_cstr(out, "ignored");  /* must be discarded */
        return 0;
    }
    if (msg->kind == HX_RPC_RESPONSE) {
        c->responses++;
        return 0;
    }
    const char *id = msg->id_json;
    size_t idl = msg->id_len;
    if (strcmp(msg->method, "echo") == 0)
        return hxi_rpc_write_result_fn(out, id, idl, echo_params, (void *)msg->params, NULL);
    if (strcmp(msg->method, "ping") == 0)
        return hxi_rpc_write_result(out, id, idl, "{}", 2, NULL);
    if (strcmp(msg->method, "add") == 0) {
        int64_t a, b;
        if (hxi_json_num_int64(hxi_json_arr_get(msg->params, 0), &a, NULL) ||
            hxi_json_num_int64(hxi_json_arr_get(msg->params, 1), &b, NULL))
            return hxi_rpc_write_error(out, id, idl, HX_RPC_INVALID_PARAMS,
                                       "Invalid params: add takes two integers", NULL, 0, NULL);
        char sum[32];
        snprintf(sum, sizeof sum, "%lld", (long long)(a + b));
        return hxi_rpc_write_result(out, id, idl, sum, strlen(sum), NULL);
    }
    if (strcmp(msg->method, "fail") == 0)
        return HX_EIO;
    if (strcmp(msg->method, "silent") == 0)
        return 0;
    char text[300];
    snprintf(text, sizeof text, "Method not found: %s", msg->method);
    return hxi_rpc_write_error(out, id, idl, HX_RPC_METHOD_NOT_FOUND, text, NULL, 0, NULL);
}

/* Dispatches `line` and returns the reply (empty string for none); caller frees. */
static char *dispatch(const char *line, calls *c)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hx_error err = {0};
    int rc = hxi_rpc_dispatch(line, strlen(line), NULL, handler, c, &w, &err);
    CHECK(rc == 0, "dispatch '%s': %s", line, err.message);
    CHECK(w.len == 0 || !memchr(w.buf, '\n', w.len), "reply is one line");
    size_t n;
    char *out = hxi_json_writer_take(&w, &n);
    return out;
}

/* Checks that reply is a JSON-RPC error with `code` and the given id text (NULL: null). */
static void check_error_reply(const char *line, int code, const char *id)
{
    calls c = {0};
    char *reply = dispatch(line, &c);
    hxi_json_doc *doc = NULL;
    int rc = hxi_json_parse(&doc, reply, strlen(reply), NULL, NULL);
    CHECK(rc == 0, "'%s': reply '%s' is not JSON", line, reply);
    if (rc == 0) {
        const hxi_json_val *root = hxi_json_doc_root(doc);
        int64_t got = 0;
        const hxi_json_val *e = hxi_json_obj_get(root, "error");
        CHECK(hxi_json_num_int64(hxi_json_obj_get(e, "code"), &got, NULL) == 0 && got == code,
              "'%s': code %lld, want %d (%s)", line, (long long)got, code, reply);
        CHECK(hxi_json_type_of(hxi_json_obj_get(e, "message")) == HX_JSON_STRING, "'%s': message",
              line);
        CHECK(hxi_json_obj_get(root, "result") == NULL, "'%s': no result with an error", line);
        const hxi_json_val *idv = hxi_json_obj_get(root, "id");
        if (!id) {
            CHECK(hxi_json_type_of(idv) == HX_JSON_NULL, "'%s': id must be null: %s", line, reply);
        } else {
            size_t off = (size_t)hxi_json_offset(idv);
            CHECK(idv && strncmp(reply + off, id, strlen(id)) == 0, "'%s': id not echoed: %s",
                  line, reply);
        }
    }
    hxi_json_doc_free(doc);
    free(reply);
}

static void check_reply(const char *line, const char *want)
{
    calls c = {0};
    char *reply = dispatch(line, &c);
    CHECK(reply && strcmp(reply, want) == 0, "'%s'\n  replied %s\n  want    %s", line, reply, want);
    free(reply);
}

static void test_error_codes(void)
{
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", HX_RPC_PARSE_ERROR, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",}", HX_RPC_PARSE_ERROR,
                      NULL);
    check_error_reply("not json", HX_RPC_PARSE_ERROR, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
                      HX_RPC_PARSE_ERROR, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}",
                      HX_RPC_PARSE_ERROR, NULL);
    check_error_reply("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                      HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("[]", HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("42", HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("\"ping\"", HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("{\"foo\":\"bar\"}", HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", HX_RPC_INVALID_REQUEST,
                      "7");
    check_error_reply("{\"id\":7,\"method\":\"ping\"}", HX_RPC_INVALID_REQUEST, "7");
    check_error_reply("{\"jsonrpc\":2.0,\"id\":7,\"method\":\"ping\"}", HX_RPC_INVALID_REQUEST, "7");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":7}", HX_RPC_INVALID_REQUEST, "7");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":1}", HX_RPC_INVALID_REQUEST, "7");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"method\":1,\"params\":\"bar\"}",
                      HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                      HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", HX_RPC_INVALID_REQUEST,
                      NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}",
                      HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
                      HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":3}",
                      HX_RPC_INVALID_REQUEST, "8");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":null}",
                      HX_RPC_INVALID_REQUEST, "8");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":1,\"error\":{}}",
                      HX_RPC_INVALID_REQUEST, "9");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":\"x\",\"message\":\"m\"}}",
                      HX_RPC_INVALID_REQUEST, "9");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":1,\"message\":\"m\"}}",
                      HX_RPC_INVALID_REQUEST, NULL);
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\\u0000x\"}",
                      HX_RPC_INVALID_REQUEST, "7");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"nope\"}",
                      HX_RPC_METHOD_NOT_FOUND, "10");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"add\",\"params\":[1,\"2\"]}",
                      HX_RPC_INVALID_PARAMS, "11");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"fail\"}", HX_RPC_INTERNAL_ERROR,
                      "12");
    check_error_reply("{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"silent\"}",
                      HX_RPC_INTERNAL_ERROR, "13");

    char deep[300];
    snprintf(deep, sizeof deep, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":");
    size_t n = strlen(deep);
    memset(deep + n, '[', 70);
    memset(deep + n + 70, ']', 70);
    strcpy(deep + n + 140, "}");
    check_error_reply(deep, HX_RPC_PARSE_ERROR, NULL);
}

static void test_replies(void)
{
    check_reply("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
    check_reply("{\"method\":\"add\",\"params\":[2,3],\"id\":\"x\",\"jsonrpc\":\"2.0\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":5}");
    check_reply("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{\"a\":[1.0,\"\\u00e9\"]}}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"a\":[1.0,\"\xc3\xa9\"]}}");
    check_reply("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,\"message\":"
                "\"Method not found: nope\"}}");
    check_reply("{\"jsonrpc\":\"2.0\",\"method\":\"x\"",
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":"
                "\"Parse error: unexpected end of input, expected ',' or '}' at byte 29\"}}");

    /* Ids come back as their exact source text. */
    const char *ids[] = {"\"abc\"", "\"\\u0041\\/\\n\"", "12345678901234567890", "-5", "1.50",
                         "-0", "1E+2", "-1.5e-300", "0", "\"\"", "\"\xe2\x80\xa8\"",
                         "99999999999999999999999999999999999999"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        char line[256], want[256];
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", ids[i]);
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", ids[i]);
        check_reply(line, want);
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\": %s ,\"method\":\"ping\",\"params\":7}",
                 ids[i]);
        check_error_reply(line, HX_RPC_INVALID_REQUEST, ids[i]);
    }

    /* Notifications and responses get no reply, but reach the handler. */
    calls c = {0};
    const char *silent[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"fail\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"x\":1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"error\":{\"code\":-32000,\"message\":\"m\",\"data\":1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"m\"}}",
    };
    for (size_t i = 0; i < sizeof silent / sizeof *silent; i++) {
        char *reply = dispatch(silent[i], &c);
        CHECK(reply && reply[0] == '\0', "'%s' got a reply: %s", silent[i], reply);
        free(reply);
    }
    CHECK(c.notifications == 3 && c.responses == 3, "handler saw %d notifications, %d responses",
          c.notifications, c.responses);
}

static void test_parse_fields(void)
{
    hxi_rpc_msg m;
    hx_error err = {0};
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":\"r\\\"1\",\"method\":\"tools/call\","
                      "\"params\":{\"name\":\"search\"},\"extra\":true}";
    CHECK(hxi_rpc_msg_parse(&m, req, strlen(req), NULL, &err) == 0, "parse: %s", err.message);
    CHECK(m.kind == HX_RPC_REQUEST, "kind %d", m.kind);
    CHECK(m.method && m.method_len == 10 && strcmp(m.method, "tools/call") == 0, "method");
    CHECK(m.id_json && strcmp(m.id_json, "\"r\\\"1\"") == 0 && m.id_len == 6, "id text %s",
          m.id_json);
    size_t n;
    const char *idv = hxi_json_str(m.id, &n);
    CHECK(idv && n == 3 && memcmp(idv, "r\"1", 3) == 0, "id value");
    CHECK(hxi_json_type_of(hxi_json_obj_get(m.params, "name")) == HX_JSON_STRING, "params");
    hxi_rpc_msg_free(&m);

    const char *note = "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[]}";
    CHECK(hxi_rpc_msg_parse(&m, note, strlen(note), NULL, &err) == 0 &&
              m.kind == HX_RPC_NOTIFICATION && m.id == NULL && m.id_json == NULL &&
              hxi_json_type_of(m.params) == HX_JSON_ARRAY,
          "notification");
    hxi_rpc_msg_free(&m);

    const char *resp = "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-1,\"message\":\"m\"}}";
    CHECK(hxi_rpc_msg_parse(&m, resp, strlen(resp), NULL, &err) == 0 && m.kind == HX_RPC_RESPONSE &&
              m.error && !m.result && m.id_json && strcmp(m.id_json, "5") == 0,
          "response");
    hxi_rpc_msg_free(&m);

    CHECK(hxi_rpc_msg_parse(&m, "[1]", 3, NULL, &err) == 0 && m.kind == HX_RPC_BATCH &&
              m.code == HX_RPC_INVALID_REQUEST && strstr(m.message, "batch"),
          "batch: %s", m.message);
    hxi_rpc_msg_free(&m);
    CHECK(hxi_rpc_msg_parse(&m, "{", 1, NULL, &err) == 0 && m.kind == HX_RPC_INVALID &&
              m.code == HX_RPC_PARSE_ERROR && m.doc == NULL,
          "parse error");
    hxi_rpc_msg_free(&m);
}

static int write_bad(void *ctx, hxi_json_writer *w, hx_error *err)
{
    (void)ctx;
    (void)err;
    hxi_json_write_arr_begin(w);  /* left open */
    return 0;
}

static int write_fail(void *ctx, hxi_json_writer *w, hx_error *err)
{
    (void)ctx;
    hxi_json_write_int(w, 1);
    return hx_error_set(err, HX_ENOTFOUND, -1, "no such thing");
}

static void test_writers(void)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hx_error err = {0};
    CHECK(hxi_rpc_write_error(&w, "\"a\"", 3, HX_RPC_INVALID_PARAMS, "bad \"k\"\n", "{\"field\":\n\"k\"}",
                              14, &err) == 0 &&
              strcmp(w.buf, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32602,"
                            "\"message\":\"bad \\\"k\\\"\\n\",\"data\":{\"field\": \"k\"}}}") == 0,
          "error with data: %s", w.buf);
    CHECK(hxi_rpc_write_error(&w, NULL, 0, HX_RPC_INTERNAL_ERROR, NULL, NULL, 0, &err) == 0 &&
              strcmp(w.buf, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,"
                            "\"message\":\"\"}}") == 0,
          "error without message: %s", w.buf);
    CHECK(hxi_rpc_write_result(&w, "-7", 2, " [ true ] ", 10, &err) == 0 &&
              strcmp(w.buf, "{\"jsonrpc\":\"2.0\",\"id\":-7,\"result\":[ true ]}") == 0,
          "result: %s", w.buf);
    CHECK(hxi_rpc_write_result(&w, "1", 1, "[1,]", 4, &err) == HX_EINVAL && w.len == 0,
          "invalid result text refused");
    const char *bad_ids[] = {"null", "{}", "[1]", "true", "abc", "01", "\"x", "1 2", ""};
    for (size_t i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++)
        CHECK(hxi_rpc_write_result(&w, bad_ids[i], strlen(bad_ids[i]), "1", 1, &err) == HX_EINVAL &&
                  w.len == 0,
              "id '%s' refused", bad_ids[i]);
    CHECK(hxi_rpc_write_result_fn(&w, "5", 1, write_bad, NULL, &err) == HX_EINVAL && w.len == 0,
          "unclosed result refused");
    CHECK(hxi_rpc_write_result_fn(&w, "5", 1, write_fail, NULL, &err) == HX_ENOTFOUND && w.len == 0,
          "failing result writer");
    hxi_json_writer_free(&w);
}

/* === Line reader === */

typedef struct feed {
    int fd;
    const char *data;
    size_t len, step;
} feed;

/* Writes data in pieces of `step` bytes, so the reader sees it over many read() calls. */
static void *feeder(void *arg)
{
    feed *f = arg;
    for (size_t i = 0; i < f->len; i += f->step) {
        size_t n = f->len - i < f->step ? f->len - i : f->step;
        size_t done = 0;
        while (done < n) {
            ssize_t k = write(f->fd, f->data + i + done, n - done);
            if (k <= 0)
                break;
            done += (size_t)k;
        }
        if (f->step < 16)
            usleep(200);
    }
    close(f->fd);
    return NULL;
}

/* Reads every line of `data` (fed in pieces of `step`) with limit max_line; returns the lines
 * joined by '|' and over-long lines as "<TOO LONG n>". */
static void read_all(const char *data, size_t len, size_t step, size_t max_line, char *out,
                     size_t cap)
{
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    feed f = {fds[1], data, len, step};
    pthread_t t;
    pthread_create(&t, NULL, feeder, &f);
    hxi_rpc_reader r;
    hx_error err = {0};
    CHECK(hxi_rpc_reader_init(&r, fds[0], max_line, &err) == 0, "reader init");
    size_t o = 0;
    out[0] = '\0';
    for (int guard = 0; guard < 10000; guard++) {
        const char *line;
        size_t n;
        int rc = hxi_rpc_reader_next(&r, &line, &n, &err);
        CHECK(r.cap <= r.max_line + 1, "reader buffer %zu past the limit %zu", r.cap, r.max_line);
        if (rc == HX_ERANGE) {
            o += (size_t)snprintf(out + o, cap - o, "%s<TOO LONG %lld>", o ? "|" : "",
                                  (long long)err.offset);
            continue;
        }
        CHECK(rc == 0, "reader: %s", err.message);
        if (rc || !line)
            break;
        CHECK(strlen(line) == n, "line is NUL-terminated after %zu bytes", n);
        o += (size_t)snprintf(out + o, cap - o, "%s%s", o ? "|" : "", line);
        if (o >= cap)
            break;
    }
    pthread_join(t, NULL);
    hxi_rpc_reader_free(&r);
    close(fds[0]);
}

static void check_lines(const char *data, size_t step, size_t max_line, const char *want)
{
    char out[4096];
    read_all(data, strlen(data), step, max_line, out, sizeof out);
    CHECK(strcmp(out, want) == 0, "lines (step %zu, max %zu):\n  got  %s\n  want %s", step,
          max_line, out, want);
}

static void test_reader(void)
{
    const char *msgs = "{\"a\":1}\n{\"b\":2}\r\n\n   \r\n\t\n{\"c\":3}";
    for (size_t step = 1; step <= 64; step *= 4)
        check_lines(msgs, step, 0, "{\"a\":1}|{\"b\":2}|{\"c\":3}");
    check_lines("abc\nlast", 1, 0, "abc|last");
    check_lines("abc\r", 2, 0, "abc");
    check_lines("\n\n\n", 1, 0, "");
    check_lines("", 1, 0, "");
    /* Limit 8: exactly 8 bytes pass, 9 do not; the reader goes on after the long line. */
    check_lines("12345678\n123456789\nok\n", 1, 8, "12345678|<TOO LONG 9>|ok");
    check_lines("12345678\n123456789\nok\n", 100, 8, "12345678|<TOO LONG 9>|ok");
    check_lines("short\n0123456789abcdefghij0123456789\nnext", 3, 8,
                "short|<TOO LONG 30>|next");
    check_lines("x\n0123456789abcdefghij", 5, 8, "x|<TOO LONG 20>");

    /* A 1 MiB line against a 1000-byte limit: skipped with bounded memory. */
    size_t big = (size_t)1 << 20;
    char *data = malloc(big + 16);
    memset(data, 'x', big);
    memcpy(data + big, "\n{}\n", 5);
    char out[256];
    read_all(data, big + 4, 4096, 1000, out, sizeof out);
    CHECK(strcmp(out, "<TOO LONG 1048576>|{}") == 0, "1 MiB line: %s", out);
    free(data);

    hxi_rpc_reader r;
    CHECK(hxi_rpc_reader_init(&r, -1, 0, NULL) == HX_EINVAL, "bad fd refused");
}

static void test_write_line(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    hx_error err = {0};
    CHECK(hxi_rpc_write_line(fds[1], -1, "{\"a\":1}", 7, &err) == 0, "write: %s", err.message);
    CHECK(hxi_rpc_write_line(fds[1], -1, "a\nb", 3, &err) == HX_EINVAL, "newline refused");
    CHECK(hxi_rpc_write_line(fds[1], -1, "", 0, &err) == 0, "empty line");
    close(fds[1]);
    char buf[64];
    ssize_t n = read(fds[0], buf, sizeof buf);
    CHECK(n == 9 && memcmp(buf, "{\"a\":1}\n\n", 9) == 0, "written bytes");
    close(fds[0]);
    CHECK(hxi_rpc_write_line(-1, -1, "x", 1, &err) == HX_EIO, "bad fd");
}

typedef struct {
    int fd;
    size_t got;
    char last;
} drain_arg;

static void *drain(void *p)
{
    drain_arg *a = p;
    char buf[4096];
    ssize_t n;
    while ((n = read(a->fd, buf, sizeof buf)) > 0) {
        a->got += (size_t)n;
        a->last = buf[n - 1];
    }
    return NULL;
}

/* With a stop descriptor: long lines still go out whole to a reader, and a write into a pipe
 * nobody reads returns HX_ECANCELED once the stop descriptor fires instead of blocking. */
static void test_write_line_stop(void)
{
    int out[2], stop[2];
    CHECK(pipe(out) == 0 && pipe(stop) == 0, "pipes");
    hx_error err = {0};
    size_t big = 300000;
    char *line = malloc(big);
    memset(line, 'x', big);
    drain_arg a = {out[0], 0, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, drain, &a) == 0, "reader thread");
    CHECK(hxi_rpc_write_line(out[1], stop[0], line, big, &err) == 0, "long line with a stop fd: %s", err.message);
    close(out[1]);
    pthread_join(t, NULL);
    CHECK(a.got == big + 1 && a.last == '\n', "whole line and newline: %zu bytes", a.got);
    close(out[0]);

    CHECK(pipe(out) == 0, "pipe");
    int fl = fcntl(out[1], F_GETFL);
    fcntl(out[1], F_SETFL, fl | O_NONBLOCK);
    while (write(out[1], line, 4096) > 0)   /* fill the pipe */
        ;
    fcntl(out[1], F_SETFL, fl);
    CHECK(write(stop[1], "s", 1) == 1, "stop fired");
    CHECK(hxi_rpc_write_line(out[1], stop[0], line, 100, &err) == HX_ECANCELED, "full pipe + stop: cancelled");
    close(out[0]);
    close(out[1]);
    close(stop[0]);
    close(stop[1]);
    free(line);
}

/* A server's loop over the pieces (mcp.c runs its own, with a write queue and a stop): reads lines
 * from in_fd until end of input, dispatches each, writes each reply as one line to out_fd; an
 * over-long line gets -32600 with id null. 0 at end of input, or the HX_E* code of a failed read or
 * write. */
static int serve(int in_fd, int out_fd, size_t max_line, hxi_rpc_handler fn, void *ctx, hx_error *err)
{
    hxi_rpc_reader r;
    hxi_json_writer w;
    int rc = hxi_rpc_reader_init(&r, in_fd, max_line, err);
    if (rc)
        return rc;
    hxi_json_writer_init(&w);
    for (;;) {
        const char *line;
        size_t len;
        hx_error lerr = {0};
        rc = hxi_rpc_reader_next(&r, &line, &len, &lerr);
        if (rc == HX_ERANGE) {
            char text[300];
            snprintf(text, sizeof text, "Invalid Request: %s", lerr.message);
            rc = hxi_rpc_write_error(&w, NULL, 0, HX_RPC_INVALID_REQUEST, text, NULL, 0, err);
        } else if (rc) {
            hx_error_set(err, rc, lerr.offset, "%s", lerr.message);
            break;
        } else if (!line) {
            break;
        } else {
            rc = hxi_rpc_dispatch(line, len, NULL, fn, ctx, &w, err);
        }
        if (rc == 0 && w.len > 0)
            rc = hxi_rpc_write_line(out_fd, -1, w.buf, w.len, err);
        if (rc)
            break;
    }
    hxi_json_writer_free(&w);
    hxi_rpc_reader_free(&r);
    return rc;
}

static void test_serve(void)
{
    const char *input =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
        "\n"
        "{\"jsonrpc\":\"2.0\",\"id\":\"two\",\"method\":\"add\",\"params\":[40,2]}\r\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":[\"" /* over 200 bytes */
        "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890"
        "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890"
        "\"]}\n"
        "[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}]\n"
        "{oops\n"
        "{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890,\"method\":\"ping\"}";
    int in[2], out[2];
    CHECK(pipe(in) == 0 && pipe(out) == 0, "pipes");
    size_t len = strlen(input);
    CHECK(write(in[1], input, len) == (ssize_t)len, "feed");
    close(in[1]);
    calls c = {0};
    hx_error err = {0};
    CHECK(serve(in[0], out[1], 200, handler, &c, &err) == 0, "serve: %s", err.message);
    close(in[0]);
    close(out[1]);
    char buf[4096];
    size_t n = 0;
    for (ssize_t k; n < sizeof buf - 1 && (k = read(out[0], buf + n, sizeof buf - 1 - n)) > 0;)
        n += (size_t)k;
    buf[n] = '\0';
    close(out[0]);
    const char *want =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":\"two\",\"result\":42}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":"
        "\"Invalid Request: line of 236 bytes exceeds the limit of 200\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: "
        "batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send one message "
        "per line\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: "
        "expected a member name (string) at byte 1\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":12345678901234567890,\"result\":{}}\n";
    CHECK(strcmp(buf, want) == 0, "serve output:\n%s\nwant:\n%s", buf, want);
    CHECK(c.notifications == 1, "one notification");
}

int main(void)
{
    test_error_codes();
    test_replies();
    test_parse_fields();
    test_writers();
    test_reader();
    test_write_line();
    test_write_line_stop();
    test_serve();
    return check_report("test_rpc");
}
