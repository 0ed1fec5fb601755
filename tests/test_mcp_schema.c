/* test_mcp_schema.c: `hyrax serve`'s tool schemas and protocol versions, each on a server of its
 * own: every property of every tool's inputSchema called with a valid value, a wrong type and
 * out-of-bounds values, and an argument it does not list refused; and protocol 2026-07-28
 * (stateless requests, server/discover, unknown versions, progress, documents as resources).
 * The fixture is mcp_client.h. */
#include "mcp_client.h"

/* A value valid for a property schema, as JSON text: the first choice, the largest allowed
 * integer (so a doc_id names no document), the smallest allowed number, an empty object or list. */
static void valid_value(const hxi_json_val *prop, char *buf, size_t cap)
{
    const char *type = hxi_json_str(get(prop, "type"), NULL);
    const hxi_json_val *choices = get(prop, "enum"), *lo = get(prop, "minimum"), *hi = get(prop, "maximum");
    size_t n;
    const char *t;
    if (!strcmp(type, "string"))
        snprintf(buf, cap, "\"%s\"", choices ? hxi_json_str(hxi_json_arr_get(choices, 0), NULL) : "zz");
    else if ((t = hxi_json_num_text(hi ? hi : lo, &n)) && strcmp(type, "boolean"))
        snprintf(buf, cap, "%.*s", (int)n, t);
    else if (!strcmp(type, "integer") || !strcmp(type, "number"))
        snprintf(buf, cap, "1");
    else if (!strcmp(type, "boolean"))
        snprintf(buf, cap, "true");
    else
        snprintf(buf, cap, !strcmp(type, "array") ? "[]" : "{}");
}

/* A value of another type than the property's, as JSON text. */
static const char *wrong_type(const hxi_json_val *prop)
{
    const char *type = hxi_json_str(get(prop, "type"), NULL);
    return !strcmp(type, "string") ? "5" : !strcmp(type, "integer") || !strcmp(type, "number") ? "\"5\"" : !strcmp(type, "boolean") ? "\"yes\"" : "5";
}

/* Values just outside the property's bounds and choices, as JSON texts; how many. */
static int out_of_bounds(const hxi_json_val *prop, char out[4][4096])
{
    int n = 0;
    int64_t x;
    double d;
    const char *type = hxi_json_str(get(prop, "type"), NULL);
    bool integer = !strcmp(type, "integer");
    if (!hxi_json_num_double(get(prop, "minimum"), &d, NULL)) {
        if (integer && !hxi_json_num_int64(get(prop, "minimum"), &x, NULL))
            snprintf(out[n++], 4096, "%lld", (long long)x - 1);
        else
            snprintf(out[n++], 4096, "%.17g", d - 1);
    }
    if (!hxi_json_num_double(get(prop, "maximum"), &d, NULL)) {
        if (integer && !hxi_json_num_int64(get(prop, "maximum"), &x, NULL))
            snprintf(out[n++], 4096, "%lld", (long long)x + 1);
        else
            snprintf(out[n++], 4096, "%.17g", d + 1);
    }
    if (!hxi_json_num_int64(get(prop, "minLength"), &x, NULL) && x == 1)
        snprintf(out[n++], 4096, "\"\"");
    if (get(prop, "enum"))
        snprintf(out[n++], 4096, "\"not-one-of-them\"");
    if (!hxi_json_num_int64(get(prop, "maxItems"), &x, NULL) || !hxi_json_num_int64(get(prop, "maxProperties"), &x, NULL)) {
        bool list = !strcmp(type, "array");
        size_t len = (size_t)snprintf(out[n], 4096, "%s", list ? "[" : "{");
        for (int64_t i = 0; i <= x && len < 4000; i++)
            len += (size_t)(list ? snprintf(out[n] + len, 4096 - len, "%s\"z\"", i ? "," : "")
                                 : snprintf(out[n] + len, 4096 - len, "%s\"k%lld\":\"v\"", i ? "," : "", (long long)i));
        snprintf(out[n] + len, 4096 - len, "%s", list ? "]" : "}");
        n++;
    }
    return n;
}

/* Calls tool `name` with its required arguments and `extra` ("" or "\"key\":value"). */
static const hxi_json_val *call_with(server *s, hxi_json_doc **d, const char *name, const char *base, const char *extra)
{
    static int id = 5000;
    char args[20000];
    snprintf(args, sizeof args, "{%s%s%s}", base, *base && *extra ? "," : "", extra);
    return tool(s, d, id++, name, args);
}

/* One property of a tool's inputSchema (under `outer` when it is a member of an object argument):
 * a valid value is accepted, values outside its bounds or choices and of another type refused
 * with a message that names it. */
static void check_property(server *s, const char *tool_name, const char *base, const char *outer, const char *key,
                           const hxi_json_val *prop)
{
    char value[4096], extra[8192], bad[4][4096];
    hxi_json_doc *d;
    valid_value(prop, value, sizeof value);
    const char *fmt = outer ? "\"%s\":{\"%s\":%s}" : "\"%s%s\":%s";
    snprintf(extra, sizeof extra, fmt, outer ? outer : "", key, value);
    const hxi_json_val *r = call_with(s, &d, tool_name, base, extra);
    char named[128];   /* the checks name an argument they refuse so */
    snprintf(named, sizeof named, "argument '%s%s%s'", outer ? outer : "", outer ? "." : "", key);
    CHECK(r && !strstr(fault_text(r), "unknown argument") && !strstr(fault_text(r), named),
          "%s: %s = %s is accepted by the checks: %s", tool_name, key, value, fault_text(r));
    hxi_json_doc_free(d);
    int n = out_of_bounds(prop, bad);
    snprintf(bad[n++], 4096, "%s", wrong_type(prop));
    for (int i = 0; i < n; i++) {
        snprintf(extra, sizeof extra, fmt, outer ? outer : "", key, bad[i]);
        r = call_with(s, &d, tool_name, base, extra);
        CHECK(r && is_error(r) && strstr(fault_text(r), key), "%s: %s = %.60s is refused, naming it: %s", tool_name, key,
              bad[i], fault_text(r));
        hxi_json_doc_free(d);
    }
}

/* The inputSchema of every tool and the checks the server applies agree: every property it lists
 * is accepted, its bounds, choices and type enforced, every required one required, and an
 * argument it does not list refused. On a server of its own over a one-file root, since valid
 * values reach the write tools too (a reindex of that root is quick, also under sanitizers). */
static void test_schema_agrees(void)
{
    char tmpl[] = "/tmp/hxi_mcp_schema_XXXXXX", sroot[PATH_MAX], sdb[PATH_MAX + 16], cmd[3 * PATH_MAX];
    CHECK(mkdtemp(tmpl) && realpath(tmpl, sroot), "temp folder");
    snprintf(sdb, sizeof sdb, "%s.hyx", sroot);
    check_put(sroot, "a.md", "# A\n\nOne small note about zebras.\n");
    server srv, *s = &srv;
    if (start_in(s, sroot, sdb, 0))
        return;
    initialize(s);
    hxi_json_doc *list;
    CHECK(!is_error(tool(s, &list, 4998, "reindex", "{}")), "the one file indexed");   /* reads find an index */
    hxi_json_doc_free(list);
    list = call(s, "{\"jsonrpc\":\"2.0\",\"id\":4999,\"method\":\"tools/list\"}", 60000);
    const hxi_json_val *tools = list ? get(hxi_json_doc_root(list), "result.tools") : NULL;
    CHECK(tools && hxi_json_len(tools) >= 10, "tools listed");
    for (size_t t = 0; tools && t < hxi_json_len(tools); t++) {
        const hxi_json_val *tl = hxi_json_arr_get(tools, t), *props = get(tl, "inputSchema.properties");
        const hxi_json_val *required = get(tl, "inputSchema.required");
        const char *name = hxi_json_str(get(tl, "name"), NULL);
        char base[8192] = "", value[4096];
        CHECK(hxi_json_type_of(get(tl, "inputSchema.additionalProperties")) == HX_JSON_BOOL &&
                  !hxi_json_bool(get(tl, "inputSchema.additionalProperties")),
              "%s: additionalProperties false", name);
        for (size_t i = 0; i < hxi_json_len(required); i++) {
            const char *key = hxi_json_str(hxi_json_arr_get(required, i), NULL);
            valid_value(hxi_json_obj_get(props, key), value, sizeof value);
            snprintf(base + strlen(base), sizeof base - strlen(base), "%s\"%s\":%s", i ? "," : "", key, value);
        }
        hxi_json_doc *d;
        const hxi_json_val *r = call_with(s, &d, name, base, "\"no_such_argument\":1");
        CHECK(r && is_error(r) && strstr(fault_text(r), "unknown argument"), "%s: an unlisted argument is refused: %s",
              name, fault_text(r));
        hxi_json_doc_free(d);
        for (size_t i = 0; i < hxi_json_len(required); i++) {
            const char *key = hxi_json_str(hxi_json_arr_get(required, i), NULL);
            r = call_with(s, &d, name, "", "");
            CHECK(r && is_error(r) && strstr(fault_text(r), key), "%s: %s is required: %s", name, key, fault_text(r));
            hxi_json_doc_free(d);
        }
        hxi_json_iter it;
        const hxi_json_val *k, *prop;
        hxi_json_iter_init(&it, props);
        while (hxi_json_iter_next(&it, &k, &prop)) {
            const char *key = hxi_json_str(k, NULL);
            if (hxi_json_obj_get(prop, "properties")) {   /* an object argument: each member alike */
                hxi_json_iter mi;
                const hxi_json_val *mk, *mprop;
                char extra[256];
                /* closed objects refuse an unlisted member; filter objects take any key, with a
                 * value additionalProperties allows (a nested object is not one) */
                bool closed = hxi_json_type_of(get(prop, "additionalProperties")) == HX_JSON_BOOL;
                snprintf(extra, sizeof extra, "\"%s\":{\"no_such_argument\":%s}", key, closed ? "1" : "{\"x\":{}}");
                r = call_with(s, &d, name, base, extra);
                CHECK(r && is_error(r) && strstr(fault_text(r), closed ? "unknown argument" : "no_such_argument"),
                      "%s: %s: an unlisted member is refused: %s", name, key, fault_text(r));
                hxi_json_doc_free(d);
                hxi_json_iter_init(&mi, hxi_json_obj_get(prop, "properties"));
                while (hxi_json_iter_next(&mi, &mk, &mprop))
                    check_property(s, name, base, key, hxi_json_str(mk, NULL), mprop);
            }
            if (!hxi_json_obj_get(required ? props : NULL, key) || !strstr(base, key))
                check_property(s, name, base, NULL, key, prop);
        }
    }
    hxi_json_doc_free(list);
    int status = stop(s, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "schema server: clean exit (status %d)", status);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", sroot, sroot);
    CHECK(system(cmd) == 0, "cleanup");
}
/* === Protocol 2026-07-28 (issue 14) ===
 * Stateless requests: no initialize, params._meta names the version and the client's capabilities,
 * results carry resultType; server/discover; an unknown version refused with -32022 and the list
 * served; progress notifications for a write that asks for them; documents as resources. */
#define META26 "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* v is a string equal to want (false for a missing value, so a failed answer fails a CHECK). */
static bool str_is(const hxi_json_val *v, const char *want)
{
    const char *got = hxi_json_str(v, NULL);
    return got && !strcmp(got, want);
}

static void test_protocol_2026(void)
{
    char tmpl[] = "/tmp/hxi_mcp_2026_XXXXXX", r26[PATH_MAX], db26[PATH_MAX + 16], cmd[4 * PATH_MAX];
    CHECK(mkdtemp(tmpl) && realpath(tmpl, r26), "temp folder");
    snprintf(db26, sizeof db26, "%s.hyx", r26);
    const char *text = "# Otters\n\nSea otters hold hands while they sleep.\n";
    check_put(r26, "a b.md", text);
    check_put(r26, "c.md", "# Beavers\n\nBeavers build dams.\n");
    server srv, *s = &srv;
    if (start_in(s, r26, db26, 0))
        return;
    hxi_json_doc *d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" META26 "}}", 60000);
    const hxi_json_val *r = d ? hxi_json_doc_root(d) : NULL;
    CHECK(r && str_is(hxi_json_arr_get(get(r, "result.supportedVersions"), 0), "2026-07-28") &&
              str_is(get(r, "result.resultType"), "complete") && get(r, "result.capabilities.tools"),
          "server/discover before any initialize");
    hxi_json_doc_free(d);

    /* a write in 2026-07-28, with a progress token: notifications first, then the result */
    send_line(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"reindex\",\"arguments\":{},"
                 "\"_meta\":{\"progressToken\":77,\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                 "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    int notes = 0;
    int64_t last = -1, total = -1;
    for (;;) {
        char *line = read_line(s, 120000);
        if (!line)
            break;
        hxi_json_doc *m = NULL;
        hxi_json_parse(&m, line, strlen(line), NULL, NULL);
        free(line);
        const hxi_json_val *root26 = m ? hxi_json_doc_root(m) : NULL;
        const char *method = hxi_json_str(get(root26, "method"), NULL);
        if (method && !strcmp(method, "notifications/progress")) {
            int64_t tok = 0;
            hxi_json_num_int64(get(root26, "params.progressToken"), &tok, NULL);
            hxi_json_num_int64(get(root26, "params.progress"), &last, NULL);
            hxi_json_num_int64(get(root26, "params.total"), &total, NULL);
            CHECK(tok == 77, "the request's token");
            notes++;
            hxi_json_doc_free(m);
            continue;
        }
        CHECK(root26 && hxi_json_bool(get(root26, "result.isError")) == 0 &&
                  str_is(get(root26, "result.resultType"), "complete"),
              "reindex answered in 2026-07-28");
        hxi_json_doc_free(m);
        break;
    }
    CHECK(notes >= 1 && last == total && total >= 1, "progress notifications, the last one complete (%d, %lld/%lld)",
          notes, (long long)last, (long long)total);

    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{" META26 "}}", 60000);
    r = d ? hxi_json_doc_root(d) : NULL;
    CHECK(r && hxi_json_len(get(r, "result.tools")) >= 10 && str_is(get(r, "result.resultType"), "complete"),
          "tools/list without initialize");
    hxi_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                "\"2099-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}", 60000);
    r = d ? hxi_json_doc_root(d) : NULL;
    int64_t code = 0;
    hxi_json_num_int64(get(r, "error.code"), &code, NULL);
    CHECK(code == -32022 && str_is(hxi_json_arr_get(get(r, "error.data.supported"), 0), "2026-07-28") &&
              str_is(get(r, "error.data.requested"), "2099-01-01"),
          "unknown version: -32022 with the supported list, got %lld", (long long)code);
    hxi_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                "\"2026-07-28\"}}}", 60000);
    code = 0;
    hxi_json_num_int64(get(d ? hxi_json_doc_root(d) : NULL, "error.code"), &code, NULL);
    CHECK(code == -32602, "no clientCapabilities: -32602, got %lld", (long long)code);
    hxi_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}", 60000);
    code = 0;
    hxi_json_num_int64(get(d ? hxi_json_doc_root(d) : NULL, "error.code"), &code, NULL);
    CHECK(code == -32000, "without _meta and without initialize: still -32000, got %lld", (long long)code);
    hxi_json_doc_free(d);

    /* resources: the two documents, paths percent-encoded; a read gives the file's bytes */
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/list\",\"params\":{" META26 "}}", 60000);
    r = d ? hxi_json_doc_root(d) : NULL;
    const hxi_json_val *list = get(r, "result.resources");
    CHECK(hxi_json_len(list) == 2 && str_is(get(hxi_json_arr_get(list, 0), "uri"), "hyrax://doc/a%20b.md") &&
              str_is(get(hxi_json_arr_get(list, 1), "uri"), "hyrax://doc/c.md") && !get(r, "result.nextCursor"),
          "resources/list");
    hxi_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"resources/read\",\"params\":{\"uri\":\"hyrax://doc/a%20b.md\"," META26 "}}", 60000);
    r = d ? hxi_json_doc_root(d) : NULL;
    const char *got = hxi_json_str(get(hxi_json_arr_get(get(r, "result.contents"), 0), "text"), NULL);
    CHECK(got && !strcmp(got, text), "resources/read gives the file: %s", got ? got : "-");
    hxi_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\",\"params\":{\"uri\":\"hyrax://doc/nope.md\"," META26 "}}", 60000);
    code = 0;
    hxi_json_num_int64(get(d ? hxi_json_doc_root(d) : NULL, "error.code"), &code, NULL);
    CHECK(code == -32002, "unknown resource: -32002, got %lld", (long long)code);
    hxi_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/read\",\"params\":{\"uri\":\"hyrax://doc/..%2F..%2Fetc%2Fpasswd\"," META26 "}}", 60000);
    r = d ? hxi_json_doc_root(d) : NULL;
    CHECK(r && get(r, "error") && !get(r, "result"), "a path outside the index is not read");
    hxi_json_doc_free(d);
    d = call(s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/templates/list\",\"params\":{" META26 "}}", 60000);
    r = d ? hxi_json_doc_root(d) : NULL;
    CHECK(str_is(get(hxi_json_arr_get(get(r, "result.resourceTemplates"), 0), "uriTemplate"), "hyrax://doc/{path}"),
          "resources/templates/list");
    hxi_json_doc_free(d);

    /* list_documents pages with a cursor: two documents, one per page (now after initialize) */
    initialize(s);
    r = tool(s, &d, 12, "list_documents", "{\"limit\":1}");
    const char *next = hxi_json_str(get(r, "structuredContent.next_cursor"), NULL);
    CHECK(next && str_is(get(hxi_json_arr_get(get(r, "structuredContent.documents"), 0), "path"), "a b.md"),
          "first page and a cursor");
    char args[128];
    snprintf(args, sizeof args, "{\"limit\":1,\"cursor\":\"%s\"}", next ? next : "");
    hxi_json_doc_free(d);
    r = tool(s, &d, 13, "list_documents", args);
    CHECK(r && !is_error(r) && hxi_json_type_of(get(r, "structuredContent.next_cursor")) == HX_JSON_NULL &&
              str_is(get(hxi_json_arr_get(get(r, "structuredContent.documents"), 0), "path"), "c.md"),
          "second page, the last");
    hxi_json_doc_free(d);
    r = tool(s, &d, 14, "list_documents", "{\"cursor\":\"o1\",\"offset\":0}");
    CHECK(r && is_error(r), "cursor with offset is refused");
    hxi_json_doc_free(d);
    stop(s, 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", r26, r26);
    CHECK(system(cmd) == 0, "cleanup");
}


int main(void)
{
    test_schema_agrees();
    test_protocol_2026();
    return check_report("test_mcp_schema");
}
