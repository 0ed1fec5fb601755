/* mcp_resources.c: the indexed documents as MCP resources, hyrax://doc/{path} with the path
 * percent-encoded (RFC 3986: unreserved bytes and '/' kept): resources/list (100 per page, an
 * opaque cursor), resources/templates/list and resources/read. A document's text is
 * hx_index_doc_text's: a file-backed one's file under the root as it is now (no symbolic link
 * followed), a stored one's chunks in order. Reads go through the session's reader like the query
 * tools. */
#include "mcp_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 100
#define URI_PREFIX "hyrax://doc/"
#define MAX_READ ((size_t)16 << 20)   /* a larger file is refused, as the line limit of stdio would */
#define MCP_ERR_RESOURCE_NOT_FOUND (-32002)

static void write_uri(hxi_json_writer *w, const char *path)
{
    size_t n = strlen(path), k = sizeof URI_PREFIX - 1;
    char *u = hx_malloc(k + 3 * n + 1);
    if (!u) {
        hxi_json_write_null(w);   /* the writer's answer fails its check; the caller reports it */
        return;
    }
    memcpy(u, URI_PREFIX, k);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c))
            u[k++] = (char)c;
        else
            k += (size_t)sprintf(u + k, "%%%02X", c);
    }
    u[k] = 0;
    hxi_json_write_cstr(w, u);
    free(u);
}

/* The path a hyrax://doc/ URI names into out; -1 when it is not one. */
static int uri_path(const char *uri, size_t len, char *out, size_t cap)
{
    size_t k = sizeof URI_PREFIX - 1, o = 0;
    if (len <= k || memcmp(uri, URI_PREFIX, k))
        return -1;
    for (size_t i = k; i < len; i++) {
        int c = (unsigned char)uri[i];
        if (c == '%') {
            unsigned v;
            if (i + 2 >= len || sscanf(uri + i + 1, "%2x", &v) != 1 || !v)
                return -1;
            c = (int)v;
            i += 2;
        } else if (!c) {
            return -1;
        }
        if (o + 1 >= cap)
            return -1;
        out[o++] = (char)c;
    }
    out[o] = 0;
    return 0;
}

static int write_list(void *ctx, hxi_json_writer *w, hx_error *err)
{
    mcp_session *s = ctx;
    (void)err;
    size_t n = hx_index_doc_count(s->reader), from = s->resource_from;
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "resources");
    hxi_json_write_arr_begin(w);
    for (size_t i = from; i < n && i < from + PAGE; i++) {
        hx_doc_info d;
        if (hx_index_doc_at(s->reader, i, &d))
            continue;
        hxi_json_write_obj_begin(w);
        hxi_json_write_key(w, "uri");
        write_uri(w, d.path);
        hxi_json_kv_cstr(w, "name", d.path);
        if (d.title && *d.title)
            hxi_json_kv_cstr(w, "title", d.title);
        hxi_json_kv_cstr(w, "mimeType", d.type && !strcmp(d.type, "markdown") ? "text/markdown" : "text/plain");
        hxi_json_kv_uint(w, "size", d.size);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    if (from + PAGE < n) {
        char cursor[32];
        snprintf(cursor, sizeof cursor, "p%zu", from + PAGE);
        hxi_json_kv_cstr(w, "nextCursor", cursor);
    }
    mcp_write_result_tail(w, s->modern, 0);
    hxi_json_write_obj_end(w);
    return 0;
}

int mcp_resources_list(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    hx_error err = {0};
    const char *cursor = hxi_json_str(hxi_json_obj_get(msg->params, "cursor"), NULL);
    char *end = NULL;
    s->resource_from = 0;
    if (cursor && (cursor[0] != 'p' || (s->resource_from = strtoul(cursor + 1, &end, 10), *end || end == cursor + 1)))
        return hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                                   "cursor: give back the nextCursor of the previous page", NULL, 0, NULL);
    if (mcp_session_reader(s, &err))
        return hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR, err.message, NULL, 0, NULL);
    return hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_list, s, NULL);
}

static int write_templates(void *ctx, hxi_json_writer *w, hx_error *err)
{
    (void)err;
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "resourceTemplates");
    hxi_json_write_json(w, "[{\"uriTemplate\":\"" URI_PREFIX "{path}\",\"name\":\"document\",\"title\":\"An indexed "
                          "document\",\"description\":\"A document of the index by its root-relative path "
                          "(percent-encoded), as resources/list names it.\"}]",
                       strlen("[{\"uriTemplate\":\"" URI_PREFIX "{path}\",\"name\":\"document\",\"title\":\"An indexed "
                              "document\",\"description\":\"A document of the index by its root-relative path "
                              "(percent-encoded), as resources/list names it.\"}]"));
    mcp_write_result_tail(w, ((const mcp_session *)ctx)->modern, 0);
    hxi_json_write_obj_end(w);
    return 0;
}

int mcp_resource_templates(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    return hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_templates, s, NULL);
}

typedef struct {
    mcp_session *s;
    const char *uri;
    size_t uri_len;
    const char *text;
    size_t len;
    const char *mime;
} read_out;

static int write_read(void *ctx, hxi_json_writer *w, hx_error *err)
{
    const read_out *o = ctx;
    (void)err;
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "contents");
    hxi_json_write_arr_begin(w);
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "uri");
    hxi_json_write_str(w, o->uri, o->uri_len);
    hxi_json_kv_cstr(w, "mimeType", o->mime);
    hxi_json_write_key(w, "text");
    hxi_json_write_str(w, o->text ? o->text : "", o->len);
    hxi_json_write_obj_end(w);
    hxi_json_write_arr_end(w);
    mcp_write_result_tail(w, o->s->modern, 0);
    hxi_json_write_obj_end(w);
    return 0;
}

int mcp_resources_read(mcp_session *s, const hxi_rpc_msg *msg, hxi_json_writer *out)
{
    size_t ulen;
    const char *uri = hxi_json_str(hxi_json_obj_get(msg->params, "uri"), &ulen);
    char path[4096];
    hx_error err = {0};
    hx_doc_info d;
    if (!uri || uri_path(uri, ulen, path, sizeof path))
        return hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INVALID_PARAMS,
                                   "resources/read needs params.uri, a " URI_PREFIX "{path} URI from resources/list",
                                   NULL, 0, NULL);
    if (mcp_session_reader(s, &err))
        return hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR, err.message, NULL, 0, NULL);
    if (hx_index_doc_by_path(s->reader, path, &d)) {
        hxi_json_writer data;
        hxi_json_writer_init(&data);
        hxi_json_write_obj_begin(&data);
        hxi_json_write_key(&data, "uri");
        hxi_json_write_str(&data, uri, ulen);
        hxi_json_write_obj_end(&data);
        int rc = hxi_rpc_write_error(out, msg->id_json, msg->id_len, MCP_ERR_RESOURCE_NOT_FOUND,
                                     "Resource not found: no indexed document has this path", data.buf, data.len, NULL);
        hxi_json_writer_free(&data);
        return rc;
    }
    read_out o = {s, uri, ulen, NULL, 0, d.type && !strcmp(d.type, "markdown") ? "text/markdown" : "text/plain"};
    char *text;
    if (hx_index_doc_text(s->reader, &d, MAX_READ, &text, &o.len, &err))
        return hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR, err.message, NULL, 0, NULL);
    o.text = text;
    int rc = hxi_rpc_write_result_fn(out, msg->id_json, msg->id_len, write_read, &o, NULL);
    if (rc)   /* not UTF-8, most likely: the writer refuses such a string */
        rc = hxi_rpc_write_error(out, msg->id_json, msg->id_len, HX_RPC_INTERNAL_ERROR,
                                 "the document's file is not UTF-8 text any more", NULL, 0, NULL);
    free(text);
    return rc;
}
