/* fuzz_rpc.c: libFuzzer target for the JSON-RPC framing (src/rpc.c). The input is a byte stream
 * fed through a pipe to the line reader (the first byte picks the line limit, to reach the
 * over-long path), and every line goes through hxi_rpc_dispatch with a handler that answers with
 * results, errors and echoed params. Every reply must be one line of JSON with "jsonrpc":"2.0" and
 * the request's id text; notifications and responses get none. Corpus: fuzz/corpus/rpc/. */
#include "rpc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    int *kind = ctx;
    *kind = msg->kind;
    if (msg->kind != HX_RPC_REQUEST)
        return 0;
    switch (msg->method_len % 4) {
    case 0:
        return hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, echo_params,
                                       (void *)msg->params, NULL);
    case 1:
        return hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_METHOD_NOT_FOUND,
                                   msg->method, "[1,\"x\"]", 7, NULL);
    case 2:
        return hxi_rpc_write_result(out, msg->id_json, msg->id_len, msg->method, msg->method_len,
                                    NULL) == HX_EINVAL ? HX_EINVAL : 0;
    default:
        return HX_ERANGE;  /* a failing method becomes -32603 */
    }
}

static void check_reply(const hxi_json_writer *w, const hxi_rpc_msg *msg)
{
    hxi_json_doc *doc;
    if (memchr(w->buf, '\n', w->len) || hxi_json_parse(&doc, w->buf, w->len, NULL, NULL) != 0)
        abort();
    const hxi_json_val *root = hxi_json_doc_root(doc);
    size_t n;
    const char *v = hxi_json_str(hxi_json_obj_get(root, "jsonrpc"), &n);
    if (!v || n != 3 || memcmp(v, "2.0", 3) != 0)
        abort();
    const hxi_json_val *id = hxi_json_obj_get(root, "id");
    if (!id)
        abort();
    if (msg->id_json) {
        /* The reply's id text is the request's, byte for byte. */
        size_t off = (size_t)hxi_json_offset(id);
        if (off + msg->id_len > w->len || memcmp(w->buf + off, msg->id_json, msg->id_len) != 0)
            abort();
    }
    hxi_json_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t limits[4] = {16, 256, 4096, 0};
    if (size == 0)
        return 0;
    size_t max_line = limits[data[0] & 3];
    data++;
    size--;
    if (size > 60000)
        size = 60000;  /* stays within a pipe's buffer, so one write never blocks */
    int fds[2];
    if (pipe(fds) != 0)
        abort();
    if (size && write(fds[1], data, size) != (ssize_t)size)
        abort();
    close(fds[1]);

    hxi_rpc_reader r;
    hxi_json_writer w;
    if (hxi_rpc_reader_init(&r, fds[0], max_line, NULL) != 0)
        abort();
    hxi_json_writer_init(&w);
    size_t lines = 0;
    for (;;) {
        const char *line;
        size_t len;
        hx_error err = {0};
        int rc = hxi_rpc_reader_next(&r, &line, &len, &err);
        if (rc == HX_ERANGE) {
            if ((size_t)err.offset <= r.max_line)
                abort();
            continue;
        }
        if (rc != 0)
            abort();
        if (!line)
            break;
        if (len > r.max_line || strlen(line) > len || memchr(line, '\n', len) || ++lines > size)
            abort();
        hxi_rpc_msg msg;
        if (hxi_rpc_msg_parse(&msg, line, len, NULL, NULL) != 0)
            abort();
        int kind = 0;
        if (hxi_rpc_dispatch(line, len, NULL, handler, &kind, &w, NULL) != 0)
            abort();
        int want_reply = msg.kind == HX_RPC_REQUEST || msg.kind == HX_RPC_INVALID ||
                         msg.kind == HX_RPC_BATCH;
        if (want_reply != (w.len > 0))
            abort();
        if (w.len)
            check_reply(&w, &msg);
        hxi_rpc_msg_free(&msg);
    }
    hxi_json_writer_free(&w);
    hxi_rpc_reader_free(&r);
    close(fds[0]);
    return 0;
}
