/* rpc.h: JSON-RPC 2.0 over lines (one message per line, as MCP's stdio transport): a bounded line
 * reader over a file descriptor, message classification, response writers that echo ids byte for
 * byte, and a dispatch/serve loop. Knows no method names (the MCP server sits on top); uses
 * src/json.h for all JSON. Spec: https://www.jsonrpc.org/specification and the MCP transport
 * (2025-06-18, "stdio"); the choices below are where those leave room.
 *
 *   - Batches (a top-level array) are answered with one -32600 Invalid Request, id null: MCP
 *     2025-06-18 removed JSON-RPC batching and hyrax speaks 2025-06-18 and later.
 *   - A request id must be a string or a number (MCP: "MUST NOT be null"). "id": null or an id of
 *     another type is -32600 with id null. Ids are echoed as their exact source text, so
 *     "\u0041", 12345678901234567890 and 1.50 come back unchanged.
 *   - "params", when present, must be an object or an array (-32600 otherwise). A method name
 *     with U+0000 in it is -32600 too, so C string compares of method names cannot be fooled.
 *     Members other than jsonrpc/id/method/params/result/error are ignored.
 *   - Invalid JSON is -32700 Parse error with id null; a line longer than the reader's limit is
 *     -32600 with id null (the server's loop, mcp.c), after the reader has skipped it.
 *   - Empty and whitespace-only lines are skipped; a trailing CR is dropped (CR LF tolerated);
 *     a last line without a newline is still a message. */
#ifndef HX_RPC_H
#define HX_RPC_H

#include "hyrax.h"
#include "json.h"

#include <stddef.h>

/* JSON-RPC 2.0 error codes. */
enum {
    HX_RPC_PARSE_ERROR = -32700,
    HX_RPC_INVALID_REQUEST = -32600,
    HX_RPC_METHOD_NOT_FOUND = -32601,
    HX_RPC_INVALID_PARAMS = -32602,
    HX_RPC_INTERNAL_ERROR = -32603,
};

#define HX_RPC_MAX_LINE ((size_t)16 << 20)  /* default longest message, newline excluded */

/* === Line reader === */

/* Reads lines from fd with at most max_line bytes each (newline excluded). Memory stays within
 * max_line + 1 bytes whatever the input. Initialise with hxi_rpc_reader_init; caller frees with
 * hxi_rpc_reader_free. The fd stays the caller's. */
typedef struct hxi_rpc_reader {
    int fd;
    size_t max_line;
    char *buf;           /* owned */
    size_t cap, start, len, scan;  /* unread bytes are buf[start..len); scan: searched so far */
    size_t skipped;      /* bytes dropped so far of an over-long line; 0 when not skipping */
    int eof;
} hxi_rpc_reader;

/* max_line 0 means HX_RPC_MAX_LINE. */
int hxi_rpc_reader_init(hxi_rpc_reader *r, int fd, size_t max_line, hx_error *err);
void hxi_rpc_reader_free(hxi_rpc_reader *r);

/* Next non-blank line, without its LF or CR LF, NUL-terminated. Returns 0 with *line and *len
 * set (borrowed until the next call); 0 with *line NULL at end of input; HX_ERANGE for a line
 * longer than max_line, which has been read to its end and dropped (the next call goes on after
 * it; err->offset holds its length); HX_EIO if read(2) fails. */
int hxi_rpc_reader_next(hxi_rpc_reader *r, const char **line, size_t *len, hx_error *err);

/* Writes buf[0..len) and a newline to fd, retrying short writes and EINTR. HX_EINVAL if buf
 * holds a newline (it would split the message), HX_EIO if write(2) fails (with SIGPIPE ignored
 * by main, a closed peer gives EPIPE here). With stop_fd >= 0 the write can be interrupted: it
 * polls fd for POLLOUT and stop_fd for POLLIN before each write of at most PIPE_BUF bytes (which
 * a pipe reported writable takes without blocking), and returns HX_ECANCELED, the line perhaps
 * half written, once stop_fd is readable; so a peer that stops reading cannot keep a stop
 * request waiting. stop_fd -1 writes with plain blocking writes. */
int hxi_rpc_write_line(int fd, int stop_fd, const char *buf, size_t len, hx_error *err);

/* === Messages === */

enum {
    HX_RPC_REQUEST = 1,   /* method + id: needs exactly one response */
    HX_RPC_NOTIFICATION,  /* method, no id: never answered */
    HX_RPC_RESPONSE,      /* result or error + id: a reply to a request we sent */
    HX_RPC_BATCH,         /* top-level array: answered with `code`/`message` (-32600) */
    HX_RPC_INVALID,       /* answered with `code`/`message` (-32700 or -32600), id_json as id */
};

/* One classified message. Every pointer is borrowed from the message until hxi_rpc_msg_free;
 * the message owns its document and id text and does not keep the input line. */
typedef struct hxi_rpc_msg {
    int kind;                   /* HX_RPC_REQUEST ... HX_RPC_INVALID */
    hxi_json_doc *doc;           /* owned; NULL when the line was not JSON */
    const char *method;         /* requests and notifications: NUL-terminated method name */
    size_t method_len;
    const hxi_json_val *params;  /* object or array, or NULL when absent */
    const hxi_json_val *id;      /* string or number for requests and responses; else NULL */
    char *id_json;              /* owned: exact source text of a valid id; NULL means null */
    size_t id_len;
    const hxi_json_val *result;  /* responses */
    const hxi_json_val *error;   /* responses: object with integer code and string message */
    int code;                   /* BATCH and INVALID: the JSON-RPC error to answer with */
    char message[256];          /* and its message, for a person */
} hxi_rpc_msg;

/* Classifies text[0..len). Returns 0 for every input, however malformed (see msg->kind), or
 * HX_ENOMEM. `lim` may be NULL for the JSON defaults. Caller frees with hxi_rpc_msg_free. */
int hxi_rpc_msg_parse(hxi_rpc_msg *msg, const char *text, size_t len, const hxi_json_limits *lim,
                      hx_error *err);
void hxi_rpc_msg_free(hxi_rpc_msg *msg);

/* === Responses ===
 * Each writer resets w first and leaves exactly one response object in it, no newline. `id` is
 * the exact JSON text of the id (a string or number, e.g. msg->id_json); NULL writes null. */

/* {"jsonrpc":"2.0","id":ID,"result":RESULT} with RESULT given as JSON text (validated, kept byte
 * for byte; see hxi_json_write_json). HX_EINVAL for an invalid id or result. */
int hxi_rpc_write_result(hxi_json_writer *w, const char *id, size_t id_len, const char *result,
                         size_t result_len, hx_error *err);

/* Same, with the result written by fn, which must write exactly one value into w and return 0.
 * If fn fails (non-zero return or a failed writer), w is left empty and the error is returned,
 * so the caller can answer with hxi_rpc_write_error instead. */
typedef int (*hxi_rpc_write_fn)(void *ctx, hxi_json_writer *w, hx_error *err);
int hxi_rpc_write_result_fn(hxi_json_writer *w, const char *id, size_t id_len, hxi_rpc_write_fn fn,
                            void *ctx, hx_error *err);

/* {"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MESSAGE,"data":DATA}}; `data` is JSON
 * text or NULL to leave it out. */
int hxi_rpc_write_error(hxi_json_writer *w, const char *id, size_t id_len, int code,
                        const char *message, const char *data, size_t data_len, hx_error *err);

/* === Dispatch === */

/* Called for every request, notification and response. For a request it writes the response
 * into `out` (empty on entry) with hxi_rpc_write_result* or hxi_rpc_write_error and msg->id_json,
 * and returns 0, or returns HX_RPC_DEFERRED when the answer will be sent later by other means (a
 * queued job); any other non-zero return or an incomplete response becomes -32603 Internal
 * error. Whatever it writes for a notification or a response is discarded. */
typedef int (*hxi_rpc_handler)(void *ctx, const hxi_rpc_msg *msg, hxi_json_writer *out);
#define HX_RPC_DEFERRED 1

/* Handles one line: classifies it, answers invalid messages and batches itself, and calls fn for
 * the rest. On return `out` holds the one-line reply (no newline), or is empty when none is due
 * (notifications, responses). Returns 0, or HX_ENOMEM when even an error reply cannot be built. */
int hxi_rpc_dispatch(const char *line, size_t len, const hxi_json_limits *lim, hxi_rpc_handler fn,
                     void *ctx, hxi_json_writer *out, hx_error *err);

#endif
