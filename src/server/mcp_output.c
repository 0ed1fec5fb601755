/* mcp_output.c: a tool's output description turned into its JSON Schema (spec in mcp_output.h).
 * Knows no tool: the descriptions are in src/mcp/mcp_tool_*.c. */
#include "mcp_output.h"

static const char *const type_names[] = {"string", "integer", "number", "boolean", "array", "object", "null"};
#define N_TYPES (sizeof type_names / sizeof *type_names)

static void write_type(hxi_json_writer *w, unsigned type)
{
    size_t n = 0;
    for (size_t i = 0; i < N_TYPES; i++)
        n += (type >> i) & 1;
    hxi_json_write_key(w, "type");
    if (n > 1)
        hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < N_TYPES; i++)
        if ((type >> i) & 1)
            hxi_json_write_cstr(w, type_names[i]);
    if (n > 1)
        hxi_json_write_arr_end(w);
}

static void write_shape(hxi_json_writer *w, const mcp_field *f)
{
    hxi_json_write_obj_begin(w);
    write_type(w, f->type);
    if (f->choices) {
        hxi_json_write_key(w, "enum");
        hxi_json_write_arr_begin(w);
        for (const char *const *c = f->choices; *c; c++)
            hxi_json_write_cstr(w, *c);
        if (f->type & MCP_JSON_NULL)
            hxi_json_write_null(w);
        hxi_json_write_arr_end(w);
    }
    if (f->description)
        hxi_json_kv_cstr(w, "description", f->description);
    if (f->items) {
        hxi_json_write_key(w, "items");
        mcp_output_schema(w, f->items);
    }
    if (f->props) {
        hxi_json_write_key(w, "properties");
        hxi_json_write_obj_begin(w);
        for (const mcp_field *p = f->props; p->name; p++) {
            hxi_json_write_key(w, p->name);
            mcp_output_schema(w, p);
        }
        hxi_json_write_obj_end(w);
    }
    if (f->required)
        hxi_json_kv_strings(w, "required", f->required);
    if (f->values) {
        hxi_json_write_key(w, "additionalProperties");
        mcp_output_schema(w, f->values);
    }
    hxi_json_write_obj_end(w);
}

void mcp_output_schema(hxi_json_writer *w, const mcp_field *f)
{
    if (!f->also) {
        write_shape(w, f);
        return;
    }
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "allOf");
    hxi_json_write_arr_begin(w);
    mcp_output_schema(w, f->also);
    write_shape(w, f);
    hxi_json_write_arr_end(w);
    hxi_json_write_obj_end(w);
}
