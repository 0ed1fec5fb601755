/* relpath.h: the one rule for a document name, a path relative to the indexed root, wherever it
 * comes from (CLI arguments, MCP tool arguments, walks, stored documents). Lexical only: it never
 * touches the file system; opening a name safely is hxi_fs_open_under (fsafe.h). */
#ifndef HX_RELPATH_H
#define HX_RELPATH_H

#include "hyrax.h"

#include <stddef.h>

/* The rule itself, hx_relpath_clean and HX_RELPATH_MAX, is public (hyrax.h "Document names"). */
#define HX_RELPATH_NAME_MAX 255  /* bytes of one component (NAME_MAX) */

#endif
