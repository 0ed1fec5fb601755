/* mcp_output.h: the shape of an MCP tool's structured result as data (STYLE.md 20): a table of
 * fields (name, JSON type, nullable, description, members, items) from which tools/list writes
 * the tool's outputSchema (mcp_output_schema), so no JSON Schema is escaped by hand and a shape
 * several tools share is described once. Tables live beside their tools in src/mcp/mcp_tool_*.c. */
#ifndef HX_MCP_OUTPUT_H
#define HX_MCP_OUTPUT_H

#include "json.h"

/* JSON types of a field, combined with |: MCP_JSON_STRING | MCP_JSON_NULL is ["string","null"]. */
enum {
    MCP_JSON_STRING = 1 << 0,
    MCP_JSON_INTEGER = 1 << 1,
    MCP_JSON_NUMBER = 1 << 2,
    MCP_JSON_BOOLEAN = 1 << 3,
    MCP_JSON_ARRAY = 1 << 4,
    MCP_JSON_OBJECT = 1 << 5,
    MCP_JSON_NULL = 1 << 6,
};

typedef struct mcp_field {
    const char *name;                 /* NULL ends a table; unused for a result or an array's items */
    unsigned type;                    /* MCP_OUT_* */
    const char *description;          /* NULL = none */
    const char *const *choices;       /* the values it takes ("enum"), NULL-terminated; with
                                         MCP_JSON_NULL, null as well */
    const struct mcp_field *items;    /* an array: the shape of its items; NULL = any */
    const struct mcp_field *props;    /* an object: its members' table */
    const char *const *required;      /* an object: the members always present, NULL-terminated */
    const struct mcp_field *values;   /* an object: the shape of each member not in props */
    const struct mcp_field *also;     /* another shape the value has too ("allOf") */
} mcp_field;

/* Row parts: MCP_CHOICES("ok", "empty"), MCP_REQUIRED("id", "path"), MCP_ITEMS(MCP_JSON_STRING). */
#define MCP_CHOICES(...) .choices = (const char *const[]){__VA_ARGS__, NULL}
#define MCP_REQUIRED(...) .required = (const char *const[]){__VA_ARGS__, NULL}
#define MCP_ITEMS(t) .items = &(const mcp_field){.type = (t)}

/* The JSON Schema of field f: {"type":..., "enum":[...], "description":..., "items":...,
 * "properties":{...}, "required":[...], "additionalProperties":...}, each key when the field has
 * it, or {"allOf":[also, f]}. */
void mcp_output_schema(hxi_json_writer *w, const mcp_field *f);

#endif
