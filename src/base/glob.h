/* glob.h: path glob matching for --exclude and --filter path=GLOB. `*` and `?` stay within one
 * folder; `**` spans folders, and a `**` followed by a slash also matches zero folders (so
 * "docs/ ** /x.md" without the spaces matches docs/x.md); `[abc]`, `[a-z]`, `[!a]` are classes;
 * a backslash escapes. Matching is byte-wise on '/'-separated relative paths. */
#ifndef HX_GLOB_H
#define HX_GLOB_H

#include <stdbool.h>

bool hx_glob_match(const char *pattern, const char *path);

#endif
