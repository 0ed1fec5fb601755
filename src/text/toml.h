/* toml.h: one table of a TOML document edited as text (`hyrax install`'s Codex config.toml): a
 * line scanner that follows TOML 1.0's strings, multi-line strings, arrays, inline tables and
 * comments finds the tables and keys, so some keys of one table are replaced, or the table
 * appended, with every other byte of the text kept. It checks what it reads (an unclosed string,
 * array or table header, a line that is neither a header nor key = value) but is not a full TOML
 * parser: values are not decoded, duplicate keys elsewhere are not looked for. Linear in the input;
 * never reads past it. Knows nothing of MCP or of any client. */
#ifndef HX_TOML_H
#define HX_TOML_H

#include "hyrax.h"

#include <stddef.h>

/* text[0..len) (NULL with len 0: no file yet) with table `name` (dotted bare keys,
 * "mcp_servers.hyrax") holding `lines` ("key = value\n" lines, its new first keys) in place of
 * its keys named in `keys` (NULL-terminated; a key under one, "args.x", goes too); its other
 * keys, comments and sub-tables stay after them. A table not in the text is appended after a
 * blank line. The header is written [name]. *out: caller frees; NULL when the text is so already.
 * 0; HX_EPARSE with err->offset at what the scanner cannot follow; HX_EFORMAT with err->offset at
 * a definition of the table in another form (an inline table, dotted keys, an array of tables, a
 * second [name]); HX_ENOMEM. */
int hxi_toml_set_table(const char *text, size_t len, const char *name, const char *const *keys, const char *lines,
                       char **out, size_t *out_len, hx_error *err);

#endif
