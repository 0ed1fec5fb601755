/* mcp_args.c: the argument tables of the MCP tools turned into JSON Schemas and into checks, and
 * the getters tools read checked arguments with (spec in mcp_args.h). Knows no tool: the tables
 * are in src/mcp/mcp_tool_*.c and src/http/http_rest.c. */
#include "mcp_args.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The row whose type, bounds and default rule an argument: its own, or its alias target's. */
static const mcp_arg *rule_of(const mcp_arg *table, const mcp_arg *row)
{
    if (!row->alias_of)
        return row;
    for (const mcp_arg *r = table; r->name; r++)
        if (!strcmp(r->name, row->alias_of))
            return r;
    return row;
}

/* === Schema === */

/* brief: 0 writes every description; 1 an argument's first sentence, 2 none (its members'). */
static void schema_members(hxi_json_writer *w, const mcp_arg *table, const mcp_arg *extra, int brief);

static const char *const type_names[] = {"string", "integer", "number", "boolean", "array", "object", "object", "object"};

static void write_bound(hxi_json_writer *w, const mcp_arg *r, const char *key, double x)
{
    hxi_json_write_key(w, key);
    if (r->type == MCP_NUMBER)
        hxi_json_write_double(w, x);
    else
        hxi_json_write_int(w, (int64_t)x);
}

static void write_default(hxi_json_writer *w, const mcp_arg *r)
{
    if (r->type == MCP_STRING)
        hxi_json_write_cstr(w, r->def);
    else if (r->type == MCP_BOOLEAN)
        hxi_json_write_bool(w, !strcmp(r->def, "true"));
    else if (r->type == MCP_INTEGER)
        hxi_json_write_int(w, strtoll(r->def, NULL, 10));
    else
        hxi_json_write_double(w, strtod(r->def, NULL));
}

/* === Value schemas of MCP_FILTERS and MCP_METADATA members (`hyrax help filters` says the rules) === */

static const mcp_field scalar = {.type = MCP_JSON_STRING | MCP_JSON_NUMBER | MCP_JSON_BOOLEAN};
static const mcp_field bound = {.type = MCP_JSON_STRING | MCP_JSON_NUMBER | MCP_JSON_NULL};
static const char *const range_keys[] = {"from", "to", "gte", "gt", "lte", "lt"};

static void write_int_member(hxi_json_writer *w, const char *key, int64_t x)
{
    hxi_json_kv_int(w, key, x);
}

/* {"type":"object","description":...,"properties":{...},"additionalProperties":false}: a range. */
static void write_range_schema(hxi_json_writer *w)
{
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "type", "object");
    hxi_json_kv_cstr(w, "description", "a range: numbers or ISO-8601 dates");
    hxi_json_write_key(w, "properties");
    hxi_json_write_obj_begin(w);
    for (size_t i = 0; i < sizeof range_keys / sizeof *range_keys; i++) {
        hxi_json_write_key(w, range_keys[i]);
        mcp_output_schema(w, &bound);
    }
    hxi_json_write_key(w, "key");
    mcp_output_schema(w, &(const mcp_field){.type = MCP_JSON_STRING});
    hxi_json_write_obj_end(w);
    hxi_json_kv_bool(w, "additionalProperties", 0);
    hxi_json_write_obj_end(w);
}

/* A member's value: a scalar, a list of 1..max_items scalars (0: no bound) or, for filters, a range. */
static void write_value_schema(hxi_json_writer *w, int64_t max_items, bool range)
{
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "anyOf");
    hxi_json_write_arr_begin(w);
    mcp_output_schema(w, &scalar);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "type", "array");
    write_int_member(w, "minItems", 1);
    if (max_items)
        write_int_member(w, "maxItems", max_items);
    hxi_json_write_key(w, "items");
    mcp_output_schema(w, &scalar);
    hxi_json_write_obj_end(w);
    if (range)
        write_range_schema(w);
    hxi_json_write_arr_end(w);
    hxi_json_write_obj_end(w);
}

static void write_property(hxi_json_writer *w, const mcp_arg *table, const mcp_arg *row, int brief)
{
    int inner = brief ? 2 : 0;
    static const char *const bound_keys[][2] = {
        {"minLength", "maxLength"}, {"minimum", "maximum"}, {"minimum", "maximum"}, {NULL, NULL},
        {"minItems", "maxItems"}, {NULL, NULL}, {"minProperties", "maxProperties"}, {"minProperties", "maxProperties"}};
    const mcp_arg *r = rule_of(table, row);
    hxi_json_write_key(w, row->name);
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "type", type_names[r->type]);
    if (r->bounds & MCP_MIN && bound_keys[r->type][0])
        write_bound(w, r, bound_keys[r->type][0], r->min);
    if (r->bounds & MCP_MAX && bound_keys[r->type][1])
        write_bound(w, r, bound_keys[r->type][1], r->max);
    if (r->choices)
        hxi_json_kv_strings(w, "enum", r->choices);
    if (r->type == MCP_STRING_LIST) {
        hxi_json_write_key(w, "items");
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "type", "string");
        hxi_json_write_obj_end(w);
    } else if (r->type == MCP_OBJECT) {
        schema_members(w, r->props, NULL, inner);
    } else if (r->type == MCP_FILTERS) {
        if (r->props) {
            hxi_json_write_key(w, "properties");
            hxi_json_write_obj_begin(w);
            for (const mcp_arg *p = r->props; p->name; p++)
                if (!p->fixed)
                    write_property(w, r->props, p, inner);
            hxi_json_write_obj_end(w);
        }
        if (!brief) {   /* brief: the values' shapes are in the description */
            hxi_json_write_key(w, "additionalProperties");
            write_value_schema(w, 0, true);
        }
    } else if (r->type == MCP_METADATA) {
        hxi_json_write_key(w, "additionalProperties");
        write_value_schema(w, MCP_METADATA_LIST_MAX, false);
    }
    if (r->def) {
        hxi_json_write_key(w, "default");
        write_default(w, r);
    }
    if (row->description && brief < 2) {   /* brief: up to the end of the first sentence */
        const char *end = brief ? strstr(row->description, ". ") : NULL;
        hxi_json_write_key(w, "description");
        hxi_json_write_str(w, row->description, end ? (size_t)(end + 1 - row->description) : strlen(row->description));
    }
    hxi_json_write_obj_end(w);
}

/* "properties", "required" and "additionalProperties" of an object schema: the rows of table, then
 * those of extra (NULL: none). */
static void schema_members(hxi_json_writer *w, const mcp_arg *table, const mcp_arg *extra, int brief)
{
    const mcp_arg *tables[2] = {table, extra};
    hxi_json_write_key(w, "properties");
    hxi_json_write_obj_begin(w);
    for (int t = 0; t < 2 && tables[t]; t++)
        for (const mcp_arg *r = tables[t]; r->name; r++)
            if (!r->fixed && !(brief && r->alias_of))   /* brief: other names accepted, not listed */
                write_property(w, tables[t], r, brief);
    hxi_json_write_obj_end(w);
    bool any = false;
    for (int t = 0; t < 2 && tables[t]; t++)
        for (const mcp_arg *r = tables[t]; r->name; r++)
            any |= r->required && !r->fixed;
    if (any) {
        hxi_json_write_key(w, "required");
        hxi_json_write_arr_begin(w);
        for (int t = 0; t < 2 && tables[t]; t++)
            for (const mcp_arg *r = tables[t]; r->name; r++)
                if (r->required && !r->fixed)
                    hxi_json_write_cstr(w, r->name);
        hxi_json_write_arr_end(w);
    }
    hxi_json_kv_bool(w, "additionalProperties", 0);
}

void mcp_args_schema(hxi_json_writer *w, const mcp_arg *table, const mcp_arg *extra, bool brief)
{
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "type", "object");
    schema_members(w, table, extra, brief ? 1 : 0);
    hxi_json_write_obj_end(w);
}

/* === Checks === */

/* The filters of v (a JSON object, as the client sent it) added to fs by the library's one parser,
 * which takes them as JSON text (hyrax.h hx_filter_parse_json_text). */
static int filters_of(hx_filter_set *fs, const hxi_json_val *v, hx_error *err)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_val(&w, v);
    int rc = hxi_json_writer_finish(&w, err);
    if (!rc)
        rc = hx_filter_parse_json_text(fs, w.buf, w.len, err);
    hxi_json_writer_free(&w);
    return rc;
}

typedef struct {
    char *msg;
    size_t cap;
} failure;

static int fail(failure *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, f->cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* "a, b or c" of a NULL-terminated list into buf. */
static const char *list_words(const char *const *words, const char *last_sep, char *buf, size_t cap)
{
    buf[0] = 0;
    for (size_t i = 0; words[i]; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%s", i == 0 ? "" : words[i + 1] ? ", " : last_sep, words[i]);
    }
    return buf;
}

/* "from 1 to 50", "at least 0", "at most 32" of a row's bounds. */
static const char *bounds_words(const mcp_arg *r, char *buf, size_t cap)
{
    if ((r->bounds & (MCP_MIN | MCP_MAX)) == (MCP_MIN | MCP_MAX))
        snprintf(buf, cap, "from %.17g to %.17g", r->min, r->max);
    else if (r->bounds & MCP_MIN)
        snprintf(buf, cap, "at least %.17g", r->min);
    else
        snprintf(buf, cap, "at most %.17g", r->max);
    return buf;
}

static bool out_of_bounds(const mcp_arg *r, double x)
{
    return (r->bounds & MCP_MIN && x < r->min) || (r->bounds & MCP_MAX && x > r->max);
}

static int check_table(const mcp_arg *table, const hxi_json_val *args, const char *prefix, failure *f);

/* A row a client may give under `key` (kl bytes): not a fixed one. NULL when there is none. */
static const mcp_arg *row_given(const mcp_arg *table, const char *key, size_t kl)
{
    for (const mcp_arg *r = table; r && r->name; r++)
        if (!r->fixed && strlen(r->name) == kl && !memcmp(r->name, key, kl))
            return r;
    return NULL;
}

/* An object argument whose member count r bounds: -1 with the failure set when v is no object
 * (`example` completes "must be an object ...") or has too many members. */
static int check_members(const mcp_arg *r, const char *name, const hxi_json_val *v, const char *example, failure *f)
{
    char words[512];
    if (hxi_json_type_of(v) != HX_JSON_OBJECT)
        return fail(f, "argument '%s' must be an object %s", name, example);
    if (out_of_bounds(r, (double)hxi_json_len(v)))
        return fail(f, "argument '%s' has %zu members; it takes %s", name, hxi_json_len(v),
                    bounds_words(r, words, sizeof words));
    return 0;
}

/* One present argument named `name` (with prefix, for messages) against its rule r. */
static int check_value(const mcp_arg *r, const char *name, const hxi_json_val *v, failure *f)
{
    char words[512];
    size_t n;
    const char *s;
    double d;
    int64_t x;
    switch (r->type) {
    case MCP_STRING:
        if (!(s = hxi_json_str(v, &n)))
            return fail(f, "argument '%s' must be a string", name);
        if (strlen(s) != n)
            return fail(f, "argument '%s' must not contain U+0000", name);
        if (r->bounds & MCP_MIN && r->min >= 1 && n == 0)
            return fail(f, "argument '%s' is empty: give a value", name);
        if (out_of_bounds(r, (double)n))
            return fail(f, "argument '%s' is %zu bytes long; it must be %s", name, n,
                        bounds_words(r, words, sizeof words));
        if (r->choices) {
            bool ok = false;
            for (const char *const *c = r->choices; *c && !ok; c++)
                ok = !strcmp(*c, s);
            if (!ok)
                return fail(f, "argument '%s' must be %s, not '%.40s'", name,
                            list_words(r->choices, " or ", words, sizeof words), s);
        }
        return 0;
    case MCP_INTEGER:
        if (hxi_json_type_of(v) != HX_JSON_NUMBER || hxi_json_num_double(v, &d, NULL) || d != floor(d) ||
            hxi_json_num_int64(v, &x, NULL))
            return fail(f, "argument '%s' must be an integer %s", name, bounds_words(r, words, sizeof words));
        if (out_of_bounds(r, (double)x))
            return fail(f, "argument '%s' is %lld; it must be %s", name, (long long)x,
                        bounds_words(r, words, sizeof words));
        return 0;
    case MCP_NUMBER:
        if (hxi_json_type_of(v) != HX_JSON_NUMBER || hxi_json_num_double(v, &d, NULL) || !isfinite(d))
            return fail(f, "argument '%s' must be a finite number", name);
        if (out_of_bounds(r, d))
            return fail(f, "argument '%s' is %g; it must be %s", name, d, bounds_words(r, words, sizeof words));
        return 0;
    case MCP_BOOLEAN:
        if (hxi_json_type_of(v) != HX_JSON_BOOL)
            return fail(f, "argument '%s' must be true or false", name);
        return 0;
    case MCP_STRING_LIST:
        if (hxi_json_type_of(v) != HX_JSON_ARRAY || out_of_bounds(r, (double)hxi_json_len(v)))
            return fail(f, "argument '%s' must be an array of %s strings", name, bounds_words(r, words, sizeof words));
        for (size_t i = 0; i < hxi_json_len(v); i++) {
            s = hxi_json_str(hxi_json_arr_get(v, i), &n);
            if (!s || strlen(s) != n)
                return fail(f, "argument '%s' must hold strings only (without U+0000)", name);
        }
        return 0;
    case MCP_OBJECT:
        if (hxi_json_type_of(v) != HX_JSON_OBJECT)
            return fail(f, "argument '%s' must be an object", name);
        return check_table(r->props, v, name, f);
    case MCP_FILTERS: {
        if (check_members(r, name, v, "of filters such as {\"category\": \"guides\"}", f))
            return -1;
        hxi_json_iter it;
        const hxi_json_val *k, *val;
        hxi_json_iter_init(&it, v);
        while (hxi_json_iter_next(&it, &k, &val)) {   /* the keys a seed documents, by their rows */
            const char *key = hxi_json_str(k, &n);
            char member[256];
            if (strlen(key) != n)
                return fail(f, "argument '%s': a key must not contain U+0000", name);
            snprintf(member, sizeof member, "%s.%.*s", name, (int)(n > 40 ? 40 : n), key);
            const mcp_arg *row = row_given(r->props, key, n);
            if (row && check_value(rule_of(r->props, row), member, val, f))
                return -1;
        }
        hx_filter_set fs = {0};   /* what every filter means: the filter module's one parser */
        hx_error err = {0};
        int rc = filters_of(&fs, v, &err);
        hx_filter_set_free(&fs);
        return rc ? fail(f, "argument '%s': %s", name, err.message) : 0;
    }
    case MCP_METADATA: {
        if (check_members(r, name, v, "such as {\"status\": \"draft\", \"tags\": [\"a\", \"b\"]}", f))
            return -1;
        hxi_json_iter it;
        const hxi_json_val *k, *val;
        hxi_json_iter_init(&it, v);
        while (hxi_json_iter_next(&it, &k, &val)) {
            size_t kl;
            const char *key = hxi_json_str(k, &kl);
            bool list = hxi_json_type_of(val) == HX_JSON_ARRAY;
            size_t items = list ? hxi_json_len(val) : 1;
            if (strlen(key) != kl || !kl)
                return fail(f, "argument '%s': a key must be non-empty and must not contain U+0000", name);
            if (list && (items < 1 || items > MCP_METADATA_LIST_MAX))
                return fail(f, "argument '%s': list '%.40s' takes 1 to %d values", name, key, MCP_METADATA_LIST_MAX);
            for (size_t i = 0; i < items; i++) {
                const hxi_json_val *item = list ? hxi_json_arr_get(val, i) : val;
                int t = hxi_json_type_of(item);
                s = hxi_json_str(item, &n);
                if ((t != HX_JSON_STRING && t != HX_JSON_NUMBER && t != HX_JSON_BOOL) || (s && strlen(s) != n))
                    return fail(f, "argument '%s': '%.40s' must be a string, number or boolean, or a list of them",
                                name, key);
            }
        }
        return 0;
    }
    }
    return fail(f, "argument '%s' has a type this server does not know", name);
}

static int check_table(const mcp_arg *table, const hxi_json_val *args, const char *prefix, failure *f)
{
    char name[256], words[512];
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    hxi_json_iter_init(&it, args);
    while (hxi_json_iter_next(&it, &k, &v)) {
        size_t kl;
        const char *key = hxi_json_str(k, &kl);
        const mcp_arg *row = row_given(table, key, kl);
        int nl = (int)(kl > 40 ? 40 : kl);
        if (!row) {
            size_t used = 0;
            words[0] = 0;
            for (const mcp_arg *r = table; r->name && used < sizeof words; r++)
                if (!r->fixed)
                    used += (size_t)snprintf(words + used, sizeof words - used, "%s%s", used ? ", " : "", r->name);
            return prefix ? fail(f, "unknown argument '%s.%.*s'; %s takes: %s", prefix, nl, key, prefix, words)
                          : fail(f, "unknown argument '%.*s'; this tool takes: %s", nl, key, words);
        }
        snprintf(name, sizeof name, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", row->name);
        const mcp_arg *rule = rule_of(table, row);
        if (row != rule && hxi_json_obj_get(args, rule->name))
            return fail(f, "give '%s' or '%s', not both: they are the same argument", rule->name, name);
        if (check_value(rule, name, v, f))
            return -1;
    }
    char missing[512] = "";   /* every missing one is named, so one answer says all to add */
    size_t n_missing = 0, used = 0;
    for (const mcp_arg *r = table; r->name; r++) {
        bool given = hxi_json_obj_get(args, r->name) != NULL;
        for (const mcp_arg *a = table; a->name && !given && r->required; a++)
            given = a->alias_of && !strcmp(a->alias_of, r->name) && hxi_json_obj_get(args, a->name);
        if (r->required && !r->fixed && !given && used < sizeof missing) {
            int w = snprintf(missing + used, sizeof missing - used, "%s'%s%s%s'", n_missing ? ", " : "",
                             prefix ? prefix : "", prefix ? "." : "", r->name);
            used += w > 0 ? (size_t)w : 0;
            n_missing++;
        }
    }
    if (n_missing)
        return fail(f, "missing required argument%s %s", n_missing > 1 ? "s" : "", missing);
    return 0;
}

int mcp_args_validate(const mcp_arg *table, const hxi_json_val *args, hx_error *err)
{
    failure f = {err->message, sizeof err->message};
    if (hxi_json_type_of(args) == HX_JSON_OBJECT ? !check_table(table, args, NULL, &f)
                                                 : fail(&f, "the arguments must be an object") == 0)
        return 0;
    err->code = HX_EINVAL;
    err->offset = -1;
    return HX_EINVAL;
}

/* === Translation to a family tool === */

static const char *target_of(const mcp_arg *r)
{
    return r->as ? r->as : r->name;
}

/* Row r's value under key: fixed, given, or its default; nothing when it has none. */
static void write_translated(hxi_json_writer *w, const mcp_args *a, const mcp_arg *r, const char *key, size_t kl)
{
    const hxi_json_val *v = r->fixed ? NULL : mcp_arg_value(a, r->name);
    if (!r->fixed && !v && !r->def)
        return;
    hxi_json_write_keyn(w, key, kl);
    if (r->fixed)
        hxi_json_write_json(w, r->fixed, strlen(r->fixed));
    else if (v)
        hxi_json_write_val(w, v);
    else
        write_default(w, r);
}

void mcp_args_translate(const mcp_arg *table, const hxi_json_val *args, hxi_json_writer *w)
{
    mcp_args a = {table, args};
    hxi_json_write_obj_begin(w);
    for (const mcp_arg *r = table; r->name; r++)
        if (!r->alias_of && !strchr(target_of(r), '.'))
            write_translated(w, &a, r, target_of(r), strlen(target_of(r)));
    for (const mcp_arg *r = table; r->name; r++) {   /* "obj.key" rows: one object per obj */
        const char *t = target_of(r), *dot = strchr(t, '.');
        size_t pl = dot ? (size_t)(dot - t) : 0;
        bool first = dot && !r->alias_of;
        for (const mcp_arg *q = table; q != r && first; q++)
            first = q->alias_of || strncmp(target_of(q), t, pl + 1);
        if (!first)
            continue;
        hxi_json_write_keyn(w, t, pl);
        hxi_json_write_obj_begin(w);
        for (const mcp_arg *q = r; q->name; q++)
            if (!q->alias_of && !strncmp(target_of(q), t, pl + 1))
                write_translated(w, &a, q, target_of(q) + pl + 1, strlen(target_of(q) + pl + 1));
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_obj_end(w);
}

/* === Getters === */

static const mcp_arg *row_named(const mcp_arg *table, const char *name)
{
    for (const mcp_arg *r = table; r->name; r++)
        if (!strcmp(r->name, name))
            return r;
    return NULL;
}

const hxi_json_val *mcp_arg_value(const mcp_args *a, const char *name)
{
    const hxi_json_val *v = hxi_json_obj_get(a->args, name);
    for (const mcp_arg *r = a->table; r->name && !v; r++)
        if (r->alias_of && !strcmp(r->alias_of, name))
            v = hxi_json_obj_get(a->args, r->name);
    return v;
}

static const char *default_of(const mcp_args *a, const char *name)
{
    const mcp_arg *r = row_named(a->table, name);
    return r ? r->def : NULL;
}

const char *mcp_arg_str(const mcp_args *a, const char *name)
{
    const hxi_json_val *v = mcp_arg_value(a, name);
    return v ? hxi_json_str(v, NULL) : default_of(a, name);
}

int64_t mcp_arg_int(const mcp_args *a, const char *name)
{
    const hxi_json_val *v = mcp_arg_value(a, name);
    const char *def = default_of(a, name);
    int64_t x = 0;
    if (v)
        hxi_json_num_int64(v, &x, NULL);
    else if (def)
        x = strtoll(def, NULL, 10);
    return x;
}

double mcp_arg_num(const mcp_args *a, const char *name)
{
    const hxi_json_val *v = mcp_arg_value(a, name);
    const char *def = default_of(a, name);
    double d = NAN;
    if (v)
        hxi_json_num_double(v, &d, NULL);
    else if (def)
        d = strtod(def, NULL);
    return d;
}

bool mcp_arg_bool(const mcp_args *a, const char *name)
{
    const hxi_json_val *v = mcp_arg_value(a, name);
    const char *def = default_of(a, name);
    return v ? hxi_json_bool(v) == 1 : def && !strcmp(def, "true");
}

size_t mcp_arg_list(const mcp_args *a, const char *name, const char **out)
{
    const hxi_json_val *list = mcp_arg_value(a, name);
    size_t n = list ? hxi_json_len(list) : 0;
    for (size_t i = 0; i < n; i++)
        out[i] = hxi_json_str(hxi_json_arr_get(list, i), NULL);
    return n;
}

int mcp_arg_filters(const mcp_args *a, const char *name, hx_filter_set *fs, hx_error *err)
{
    const hxi_json_val *v = mcp_arg_value(a, name);
    return v ? filters_of(fs, v, err) : 0;
}

static const char *meta_text(const hxi_json_val *v)
{
    int t = hxi_json_type_of(v);
    return t == HX_JSON_STRING ? hxi_json_str(v, NULL)
           : t == HX_JSON_NUMBER ? hxi_json_num_text(v, NULL)
                                 : hxi_json_bool(v) ? "true" : "false";
}

size_t mcp_arg_metadata(const mcp_args *a, const char *name, hx_kv *out, size_t cap)
{
    hxi_json_iter it;
    const hxi_json_val *k, *v, *map = mcp_arg_value(a, name);
    size_t n = 0;
    if (!map)
        return 0;
    hxi_json_iter_init(&it, map);
    while (hxi_json_iter_next(&it, &k, &v)) {
        bool list = hxi_json_type_of(v) == HX_JSON_ARRAY;
        for (size_t i = 0; i < (list ? hxi_json_len(v) : 1) && n < cap; i++)
            out[n++] = (hx_kv){(char *)hxi_json_str(k, NULL), (char *)meta_text(list ? hxi_json_arr_get(v, i) : v)};
    }
    return n;
}

mcp_args mcp_arg_object(const mcp_args *a, const char *name)
{
    const mcp_arg *r = row_named(a->table, name);
    static const mcp_arg none[] = {{.name = NULL}};
    return (mcp_args){r && r->props ? r->props : none, mcp_arg_value(a, name)};
}
