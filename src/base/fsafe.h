/* fsafe.h: the one confinement rule for user paths and the one way to open a user's file.
 * hx_fs_target turns what a user or client typed into a clean root-relative document name (the
 * name rule itself is relpath.h); hx_fs_open_under opens such a name under the root without
 * following any symbolic link and accepts only a regular file. Knows nothing of documents or indexes. */
#ifndef HX_FSAFE_H
#define HX_FSAFE_H

#include "hyrax.h"

#include <stddef.h>
#include <sys/stat.h>

/* How hx_fs_target reads a relative target. An absolute target is a path on disk either way. */
enum {
    HX_TARGET_NAME = 0,   /* relative to the indexed root: MCP arguments, the library API */
    HX_TARGET_CWD = 1     /* relative to the current folder: command-line arguments */
};

/* Writes the clean root-relative name of `target` into out (cap bytes; "" is the root itself).
 * A relative HX_TARGET_NAME goes through hx_relpath_clean and nothing else (no file system). A
 * path on disk (absolute, or relative with HX_TARGET_CWD) is made absolute, its parent folder is
 * resolved with realpath (the last component is not followed, so a symlink or a deleted file keeps
 * its own name), or lexically when the parent does not exist; it must then lie inside `root` (an
 * absolute, resolved folder path) or the call fails with HX_EPERM. Every message quotes at most
 * 200 bytes of the target. */
int hx_fs_target(const char *root, const char *target, int how, char *out, size_t cap, hx_error *err);

/* The part of `path` below `root` (both absolute and resolved): "" for the root itself, NULL
 * when path is not inside root ("/a/bc" is not inside "/a/b"). Borrowed from path. */
const char *hx_fs_inside(const char *root, const char *path);

/* Opens root/name for reading, where name is a root-relative name (cleaned again here; "" is
 * refused). Each folder on the way is opened with openat(O_NOFOLLOW | O_DIRECTORY) and the file
 * with O_NOFOLLOW | O_NONBLOCK, so a component that is (or has just become) a symbolic link is
 * refused with HX_EPERM and never followed, and a FIFO can never block the caller. Only a regular
 * file is accepted: anything else (FIFO, socket, device, folder) fails with HX_EFORMAT before or
 * after the open. Missing: HX_ENOTFOUND; other errors: HX_EIO. On success *fd is open (caller
 * closes) and *st describes it. */
int hx_fs_open_under(const char *root, const char *name, int *fd, struct stat *st, hx_error *err);

/* Reads the file hx_fs_open_under opens into *buf (hx_malloc'd, NUL-terminated after *len bytes;
 * caller frees) and, when mtime_ns is not NULL, its modification time. A file over max bytes is
 * refused with HX_ERANGE ("NAME is N bytes, over the M-byte limit"); other errors as
 * hx_fs_open_under's, HX_EIO for a failed read. The one way a user's file is read whole. */
int hx_fs_read_under(const char *root, const char *name, size_t max, char **buf, size_t *len, int64_t *mtime_ns,
                     hx_error *err);

#endif
