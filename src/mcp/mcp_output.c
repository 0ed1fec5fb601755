/* mcp_output.c: a tool's output description turned into its JSON Schema (spec in mcp_output.h).
 * Knows no tool: the descriptions are in mcp_tool_*.c. */
#include "mcp_output.h"

static const char *const type_names[] = {"string", "integer", "number", "boolean", "array", "object", "null"};
#define N_TYPES (sizeof type_names / sizeof *type_names)

static void write_type(hx_json_writer *w, unsigned type)
{
    size_t n = 0;
    for (size_t i = 0; i < N_TYPES; i++)
        n += (type >> i) & 1;
    hx_json_write_key(w, "type");
    if (n > 1)
        hx_json_write_arr_begin(w);
    for (size_t i = 0; i < N_TYPES; i++)
        if ((type >> i) & 1)
            hx_json_write_cstr(w, type_names[i]);
    if (n > 1)
        hx_json_write_arr_end(w);
}

static void write_shape(hx_json_writer *w, const mcp_field *f)
{
    hx_json_write_obj_begin(w);
    write_type(w, f->type);
    if (f->choices) {
        hx_json_write_key(w, "enum");
        hx_json_write_arr_begin(w);
        for (const char *const *c = f->choices; *c; c++)
            hx_json_write_cstr(w, *c);
        if (f->type & MCP_JSON_NULL)
            hx_json_write_null(w);
        hx_json_write_arr_end(w);
    }
    if (f->description) {
        hx_json_write_key(w, "description");
        hx_json_write_cstr(w, f->description);
    }
    if (f->items) {
        hx_json_write_key(w, "items");
        mcp_output_schema(w, f->items);
    }
    if (f->props) {
        hx_json_write_key(w, "properties");
        hx_json_write_obj_begin(w);
        for (const mcp_field *p = f->props; p->name; p++) {
            hx_json_write_key(w, p->name);
            mcp_output_schema(w, p);
        }
        hx_json_write_obj_end(w);
    }
    if (f->required) {
        hx_json_write_key(w, "required");
        hx_json_write_arr_begin(w);
        for (const char *const *r = f->required; *r; r++)
            hx_json_write_cstr(w, *r);
        hx_json_write_arr_end(w);
    }
    if (f->values) {
        hx_json_write_key(w, "additionalProperties");
        mcp_output_schema(w, f->values);
    }
    hx_json_write_obj_end(w);
}

void mcp_output_schema(hx_json_writer *w, const mcp_field *f)
{
    if (!f->also) {
        write_shape(w, f);
        return;
    }
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "allOf");
    hx_json_write_arr_begin(w);
    mcp_output_schema(w, f->also);
    write_shape(w, f);
    hx_json_write_arr_end(w);
    hx_json_write_obj_end(w);
}
