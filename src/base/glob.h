/* glob.h: path glob matching for --exclude, --filter path=GLOB, policy sections and the audit log's
 * path. `*` and `?` stay within one folder; `**` spans folders, and a `**` that starts the pattern
 * or follows a slash and is followed by a slash also matches zero folders (so "docs/ ** /x.md"
 * without the spaces matches docs/x.md); `[abc]`, `[a-z]`, `[!a]` and `[^a]` are classes (a `]`
 * first in a class is a member; a `[` with no closing `]` is a literal) and never match '/'; a
 * backslash escapes the byte after it. Matching is byte-wise on '/'-separated relative paths.
 *
 * Cost: at most O(pattern x path) time and O(pattern) memory, whatever the pattern, no recursion.
 * Where a glob comes from a user, hxi_glob_check bounds it first (HX_GLOB_MAX_BYTES, _STARS). */
#ifndef HX_GLOB_H
#define HX_GLOB_H

#include "hyrax.h"

#include <stdbool.h>
#include <stdint.h>

#define HX_GLOB_MAX_BYTES 1024   /* the longest glob a user may give */
#define HX_GLOB_MAX_STARS 64     /* the most '*' bytes in one */

bool hxi_glob_match(const char *pattern, const char *path);

/* hxi_glob_match, also adding to *steps the work it did: one step per pattern state visited per
 * path byte, so a test can show the O(pattern x path) bound without timing anything. */
bool hxi_glob_match_steps(const char *pattern, const char *path, uint64_t *steps);

/* 0 when a user's glob is within the bounds above; else HX_EINVAL with a message naming the
 * limit. `what` names the glob's origin in the message ("filter 'path'", "--exclude"). */
int hxi_glob_check(const char *pattern, const char *what, hx_error *err);

#endif
