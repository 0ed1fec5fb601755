/* relpath.h: the one rule for a document name, a path relative to the indexed root, wherever it
 * comes from (CLI arguments, MCP tool arguments, walks, stored documents). Lexical only: it never
 * touches the file system; opening a name safely is hx_fs_open_under (fsafe.h). */
#ifndef HX_RELPATH_H
#define HX_RELPATH_H

#include "hyrax.h"

#include <stddef.h>

#define HX_RELPATH_MAX 4096   /* bytes of a clean name, its NUL included (PATH_MAX on Linux) */
#define HX_RELPATH_NAME_MAX 255  /* bytes of one component (NAME_MAX) */

/* Writes the canonical form of `in` into out (cap bytes): components joined by single '/', no
 * empty or "." components, no leading or trailing '/' ("./a//b/" -> "a/b"); "" names the root
 * itself ("", ".", "./"). Refused: an absolute path (HX_EPERM), a ".." component (HX_EPERM:
 * "a..b.md" is a legal name, "a/../b" is not), a result of
 * HX_RELPATH_MAX bytes or more or a component over HX_RELPATH_NAME_MAX (HX_ERANGE), a result
 * that does not fit in cap (HX_ERANGE). The message quotes at most 200 bytes of the name. */
int hx_relpath_clean(const char *in, char *out, size_t cap, hx_error *err);

#endif
