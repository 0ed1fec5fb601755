/* fsafe.h: the one confinement rule for user paths and the one way to open a user's file.
 * hx_fs_target turns what a user or client typed into a clean root-relative document name (the
 * name rule itself is relpath.h); hxi_fs_open_under opens such a name under the root without
 * following any symbolic link and accepts only a regular file. Knows nothing of documents or indexes. */
#ifndef HX_FSAFE_H
#define HX_FSAFE_H

#include "hyrax.h"

#include <stddef.h>
#include <sys/stat.h>

/* hx_fs_target, the confinement rule for what a user typed, is public (hyrax.h "Document names"). */

/* The part of `path` below `root` (both absolute and resolved): "" for the root itself, NULL
 * when path is not inside root ("/a/bc" is not inside "/a/b"). Borrowed from path. */
const char *hxi_fs_inside(const char *root, const char *path);

/* Opens root/name for reading, where name is a root-relative name (cleaned again here; "" is
 * refused). Each folder on the way is opened with openat(O_NOFOLLOW | O_DIRECTORY) and the file
 * with O_NOFOLLOW | O_NONBLOCK, so a component that is (or has just become) a symbolic link is
 * refused with HX_EPERM and never followed, and a FIFO can never block the caller. Only a regular
 * file is accepted: anything else (FIFO, socket, device, folder) fails with HX_EFORMAT before or
 * after the open. Missing: HX_ENOTFOUND; other errors: HX_EIO. On success *fd is open (caller
 * closes) and *st describes it. */
int hxi_fs_open_under(const char *root, const char *name, int *fd, struct stat *st, hx_error *err);

/* Reads the file hxi_fs_open_under opens into *buf (hx_malloc'd, NUL-terminated after *len bytes;
 * caller frees) and, when mtime_ns is not NULL, its modification time. A file over max bytes is
 * refused with HX_ERANGE ("NAME is N bytes, over the M-byte limit"); other errors as
 * hxi_fs_open_under's, HX_EIO for a failed read. The one way a user's file is read whole. */
int hxi_fs_read_under(const char *root, const char *name, size_t max, char **buf, size_t *len, int64_t *mtime_ns,
                      hx_error *err);

#endif
