/* discover.c: which index file a command uses when neither --db nor $HYRAX_DB names one:
 * .hyrax/index.hyx in the starting folder or the nearest folder above it that has one, as git
 * finds .git (`hyrax help cli`). Looks at the file system only; opens nothing. */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char db_path[PATH_MAX + sizeof DEFAULT_DB + 1];   /* what db_find returns */

/* From folder `from` (NULL: the current folder) upward, the first FOLDER/.hyrax/index.hyx that
 * is a file; *found says whether one was. Found in the current folder itself, or none found, it
 * is DEFAULT_DB relative to the current folder (from NULL) or to `from`. Borrowed until the next
 * call. */
const char *db_find(const char *from, bool *found)
{
    char dir[PATH_MAX];
    struct stat st;
    *found = false;
    if (realpath(from ? from : ".", dir)) {
        for (int depth = 0;; depth++) {
            snprintf(db_path, sizeof db_path, "%s/%s", strcmp(dir, "/") ? dir : "", DEFAULT_DB);
            if (stat(db_path, &st) == 0 && S_ISREG(st.st_mode)) {
                *found = true;
                if (depth == 0 && !from)
                    break;
                return db_path;
            }
            char *slash = strrchr(dir, '/');
            if (!slash || !strcmp(dir, "/"))
                break;
            slash[slash == dir] = 0;   /* "/a" -> "/", "/a/b" -> "/a" */
        }
    }
    if (!from)
        return DEFAULT_DB;
    snprintf(db_path, sizeof db_path, "%s/%s", from, DEFAULT_DB);
    return db_path;
}
