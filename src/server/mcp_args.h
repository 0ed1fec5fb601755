/* mcp_args.h: one declarative table per MCP tool for its arguments (STYLE.md 14). A table drives
 * both the tool's inputSchema in tools/list and the checks every call's arguments pass before the
 * tool runs (unknown argument, wrong type, out of bounds, not one of the choices, missing, an
 * argument given twice under two names), so the schema a client reads is the rule the server
 * applies. Tools then read values known to be well-formed, with defaults from the same table.
 * A table may also describe a tool that is another tool under other names (seed 003's
 * semantic_search is `search`): its rows say which argument of that family tool each fills (`as`,
 * also inside an object argument: "fusion.text_weight") and which values it always gives
 * (`fixed`); mcp_args_translate rewrites a call's arguments into the family tool's, whose own
 * table then checks them again, so one implementation serves both names.
 * Tables live beside their tools in src/mcp/mcp_tool_*.c (and REST's POST /search, src/http/
 * http_rest.c, checks its body with one); this file owns the machinery only. */
#ifndef HX_MCP_ARGS_H
#define HX_MCP_ARGS_H

#include "hyrax.h"
#include "json.h"
#include "mcp_output.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    MCP_STRING,        /* a string without U+0000; min/max bound its length in bytes */
    MCP_INTEGER,       /* a whole number; min/max bound it */
    MCP_NUMBER,        /* a finite number; min/max bound it */
    MCP_BOOLEAN,
    MCP_STRING_LIST,   /* an array of strings; max bounds its items */
    MCP_OBJECT,        /* an object whose members are the table `props` */
    /* Document filters: an object whose members are checked by `props` where named there (the keys
     * a seed documents) and, all of them, by the library's filter parser
     * (hyrax.h hx_filter_parse_json_text); max bounds its members. */
    MCP_FILTERS,
    MCP_METADATA,      /* an object of metadata: string, number or boolean values, or lists of them
                          (1..MCP_METADATA_LIST_MAX items); max bounds its members */
} mcp_arg_type;

#define MCP_METADATA_LIST_MAX 64

enum { MCP_MIN = 1, MCP_MAX = 2 };   /* which of min and max bound an argument */

typedef struct mcp_arg {
    const char *name;                /* NULL ends a table */
    mcp_arg_type type;
    bool required;
    unsigned bounds;                 /* MCP_MIN | MCP_MAX */
    double min, max;
    const char *const *choices;      /* MCP_STRING: the accepted values, NULL-terminated */
    const char *def;                 /* the default, as text ("5", "true", "hybrid"); NULL = none */
    const char *description;         /* NULL = none */
    const struct mcp_arg *props;     /* MCP_OBJECT: its members' table */
    /* Another name for the argument `alias_of` of the same table (seed 003's `limit` for
     * `top_k`): type, bounds, choices and default are that argument's; giving both is refused. */
    const char *alias_of;
    /* Tables of a tool with a family (mcp_state.h): the family's argument this row fills
     * ("top_k"; "fusion.text_weight" for a member of its object argument `fusion`); NULL = the
     * same name. */
    const char *as;
    /* The same: a value, as JSON text ("\"semantic\"", "true"), this tool always gives the family's
     * argument `as` (or `name`). Such a row is not in the inputSchema and a client cannot give it. */
    const char *fixed;
} mcp_arg;

/* Bounds for a table row: RANGE(1, 50), AT_LEAST(0), AT_MOST(32). */
#define RANGE(lo, hi) .bounds = MCP_MIN | MCP_MAX, .min = (lo), .max = (hi)
#define AT_LEAST(lo) .bounds = MCP_MIN, .min = (lo)
#define AT_MOST(hi) .bounds = MCP_MAX, .max = (hi)

/* The JSON Schema of a table and the rows of extra (NULL: none; the arguments every tool of a kind
 * takes, checked apart): {"type":"object","properties":{...},"required":[...],
 * "additionalProperties":false}. brief (tools/list's short form): each argument's description up to
 * the end of its first sentence, none for the members of an object argument, no other names
 * (alias_of rows, still accepted) and no shape for the values of filters. */
void mcp_args_schema(hxi_json_writer *w, const mcp_arg *table, const mcp_arg *extra, bool brief);

/* 0 when args (an object) passes every rule of the table; else HX_EINVAL with a sentence naming
 * the argument and what it must be in err. */
int mcp_args_validate(const mcp_arg *table, const hxi_json_val *args, hx_error *err);

/* The arguments of the family tool for args (which passed mcp_args_validate against table) as one
 * JSON object into w: each given argument, or its default where the row has one, under its `as`
 * name, and every `fixed` value. Members named "obj.key" are gathered into the object "obj". */
void mcp_args_translate(const mcp_arg *table, const hxi_json_val *args, hxi_json_writer *w);

/* Arguments that passed mcp_args_validate, read through their table. A getter is named by the
 * argument's own name and also finds it given under an alias; absent, it gives the table's
 * default (strings: NULL, numbers: NAN, integers and booleans: 0 when there is none). */
typedef struct {
    const mcp_arg *table;
    const hxi_json_val *args;
} mcp_args;

const hxi_json_val *mcp_arg_value(const mcp_args *a, const char *name);   /* NULL when absent */
const char *mcp_arg_str(const mcp_args *a, const char *name);            /* borrowed from args */
int64_t mcp_arg_int(const mcp_args *a, const char *name);
double mcp_arg_num(const mcp_args *a, const char *name);
bool mcp_arg_bool(const mcp_args *a, const char *name);
/* The items of a MCP_STRING_LIST into out (room for the table's max); the count. Strings borrowed
 * from args. */
size_t mcp_arg_list(const mcp_args *a, const char *name, const char **out);
/* The filters of a MCP_FILTERS argument added to fs (absent: none): 0, or HX_ENOMEM. */
int mcp_arg_filters(const mcp_args *a, const char *name, hx_filter_set *fs, hx_error *err);
/* The pairs of a MCP_METADATA argument into out (room for cap): a list gives one pair per item,
 * numbers their JSON text, booleans "true" / "false". The count; strings borrowed from args. */
size_t mcp_arg_metadata(const mcp_args *a, const char *name, hx_kv *out, size_t cap);
/* The arguments of a MCP_OBJECT member, read through its table. */
mcp_args mcp_arg_object(const mcp_args *a, const char *name);

#endif
