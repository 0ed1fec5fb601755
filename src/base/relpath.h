/* relpath.h: the one rule for a document name, a path relative to the indexed root, wherever it
 * comes from (CLI arguments, MCP tool arguments, walks, stored documents). Lexical only: it never
 * touches the file system; opening a name safely is hxi_fs_open_under (fsafe.h). */
#ifndef HX_RELPATH_H
#define HX_RELPATH_H

#include "hyrax.h"

#include <stddef.h>

/* The rule itself, hx_relpath_clean and HX_RELPATH_MAX, is public (hyrax.h "Document names"). */
#define HX_RELPATH_NAME_MAX 255  /* bytes of one component (NAME_MAX) */

/* path's file name (after its last '/') without its extension (from its last '.', unless that
 * starts the name: ".profile" is all stem): returns the stem's length, and where the name starts
 * in *base (borrowed from path). */
size_t hxi_path_stem(const char *path, const char **base);

#endif
