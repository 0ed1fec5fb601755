/* fsafe.c: confining user paths to the indexed root and opening user files without following
 * symbolic links (spec in fsafe.h). Must not read file contents or know about documents; the
 * name rule itself lives in relpath.c. */
#include "fsafe.h"
#include "alloc.h"
#include "platform.h"
#include "relpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* === Targets === */

/* Lexical absolute form of the absolute path abs ("." dropped, ".." pops a component) into out
 * (PATH_MAX bytes). Used only when the path's parent does not exist, so no symlink can be meant. */
static void lexical(const char *abs, char out[PATH_MAX])
{
    size_t o = 0;
    for (const char *p = abs; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if (n && !(n == 1 && p[0] == '.')) {
            out[o++] = '/';   /* fits: the result is never longer than abs */
            memcpy(out + o, p, n);
            o += n;
        }
        p += n + (e != NULL);
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = 0;
}

/* The absolute path abs with its parent folder resolved (realpath), into resolved (PATH_MAX). */
static int resolve(char *abs, const char *target, char resolved[PATH_MAX], hx_error *err)
{
    size_t n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/')
        abs[--n] = 0;
    char *slash = strrchr(abs, '/');
    const char *last = slash + 1;
    bool dots = !*last || !strcmp(last, ".") || !strcmp(last, "..");
    char parent[PATH_MAX];
    if (dots) {
        if (realpath(abs, resolved))
            return 0;
    } else {
        *slash = 0;
        const char *dir = slash == abs ? "/" : abs;
        char *ok = realpath(dir, parent);
        *slash = '/';
        if (ok) {
            size_t pl = strcmp(parent, "/") ? strlen(parent) : 0, ll = strlen(last);
            if (pl + 1 + ll >= PATH_MAX)
                return hx_error_set(err, HX_ERANGE, -1, "'%.200s' is longer than %d bytes", target, PATH_MAX - 1);
            memcpy(resolved, parent, pl);
            resolved[pl] = '/';
            memcpy(resolved + pl + 1, last, ll + 1);
            return 0;
        }
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return hx_error_set(err, HX_EIO, -1, "cannot resolve '%.200s': %s", target, strerror(errno));
    lexical(abs, resolved);
    return 0;
}

const char *hxi_fs_inside(const char *root, const char *path)
{
    size_t rl = strlen(root);
    if (rl == 1 && root[0] == '/')
        return path[0] == '/' ? path + 1 : NULL;
    if (strncmp(path, root, rl) != 0 || (path[rl] != 0 && path[rl] != '/'))
        return NULL;
    return path + rl + (path[rl] == '/');
}

int hx_fs_target(const char *root, const char *target, int how, char *out, size_t cap, hx_error *err)
{
    if (target[0] != '/' && how == HX_TARGET_NAME)
        return hx_relpath_clean(target, out, cap, err);
    char abs[PATH_MAX], resolved[PATH_MAX];
    size_t tl = strlen(target), cl = 0;
    if (target[0] != '/') {
        if (!getcwd(abs, sizeof abs))
            return hx_error_set(err, HX_EIO, -1, "cannot read the current folder: %s", strerror(errno));
        cl = strlen(abs);
        abs[cl++] = '/';
    }
    if (cl + tl >= sizeof abs)
        return hx_error_set(err, HX_ERANGE, -1, "'%.200s...' is longer than %zu bytes", target, sizeof abs - 1);
    memcpy(abs + cl, target, tl + 1);
    int rc = resolve(abs, target, resolved, err);
    if (rc)
        return rc;
    const char *rel = hxi_fs_inside(root, resolved);
    if (!rel)
        return hx_error_set(err, HX_EPERM, -1, "'%.200s' is outside the indexed root %.200s", target, root);
    return hx_relpath_clean(rel, out, cap, err);
}

/* === Opening === */

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISLNK(m) ? "a symbolic link" : "a special file";
}

/* The error for `path` (clean, borrowed), whose last component `comp` in folder `dir` could not
 * be opened (as a folder when is_folder) with errno e. */
static int open_error(int dir, const char *comp, const char *path, bool is_folder, int e, hx_error *err)
{
    struct stat st;
    if ((e == ELOOP || e == ENOTDIR || e == ENXIO) && fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode))
            return hx_error_set(err, HX_EPERM, -1, "%.200s: a symbolic link; files are read only through real folders under the root",
                                path);
        if (is_folder)
            return hx_error_set(err, HX_ENOTFOUND, -1, "%.200s: no such file (%s, not a folder)", path, kind_of(st.st_mode));
        return hx_error_set(err, HX_EFORMAT, -1, "%.200s: %s, not a regular file", path, kind_of(st.st_mode));
    }
    if (e == ENOENT || e == ENOTDIR)
        return hx_error_set(err, HX_ENOTFOUND, -1, "%.200s: no such file", path);
    return hx_error_set(err, HX_EIO, -1, "%.200s: cannot open: %s", path, strerror(e));
}

int hxi_fs_open_under(const char *root, const char *name, int *fd, struct stat *st, hx_error *err)
{
    char clean[HX_RELPATH_MAX];
    *fd = -1;
    int rc = hx_relpath_clean(name, clean, sizeof clean, err);
    if (rc)
        return rc;
    if (!*clean)
        return hx_error_set(err, HX_EINVAL, -1, "'%.200s' names the indexed root, not a file", name);
    int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return hx_error_set(err, errno == ENOENT ? HX_ENOTFOUND : HX_EIO, -1, "cannot open the indexed root %.200s: %s",
                            root, strerror(errno));
    char *comp = clean;
    for (char *slash; (slash = strchr(comp, '/')); comp = slash + 1) {
        *slash = 0;
        int next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            rc = open_error(dir, comp, clean, true, errno, err);   /* clean ends at this folder here */
            close(dir);
            return rc;
        }
        *slash = '/';
        close(dir);
        dir = next;
    }
    struct stat pre;
    if (fstatat(dir, comp, &pre, AT_SYMLINK_NOFOLLOW) != 0)
        rc = open_error(dir, comp, clean, false, errno, err);
    else if (!S_ISREG(pre.st_mode))
        rc = open_error(dir, comp, clean, false, S_ISLNK(pre.st_mode) ? ELOOP : ENXIO, err);
    else if ((*fd = openat(dir, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
        rc = open_error(dir, comp, clean, false, errno, err);   /* swapped for a symlink since fstatat */
    else if (fstat(*fd, st) != 0)
        rc = hx_error_set(err, HX_EIO, -1, "%.200s: cannot stat: %s", clean, strerror(errno));
    else if (!S_ISREG(st->st_mode))   /* swapped for a FIFO or a device since fstatat */
        rc = hx_error_set(err, HX_EFORMAT, -1, "%.200s: %s, not a regular file", clean, kind_of(st->st_mode));
    if (rc && *fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    close(dir);
    return rc;
}

int hxi_fs_read_under(const char *root, const char *name, size_t max, char **buf, size_t *len, int64_t *mtime_ns,
                      hx_error *err)
{
    int fd;
    struct stat st;
    *buf = NULL;
    *len = 0;
    int rc = hxi_fs_open_under(root, name, &fd, &st, err);
    if (rc)
        return rc;
    if ((uint64_t)st.st_size > max) {
        close(fd);
        return hx_error_set(err, HX_ERANGE, -1, "%s is %lld bytes, over the %zu-byte limit", name,
                            (long long)st.st_size, max);
    }
    size_t n = (size_t)st.st_size, got = 0;
    char *b = hx_malloc(n + 1);
    if (!b) {
        close(fd);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory reading %s", name);
    }
    while (got < n) {   /* a file that shrank while read gives what it still has */
        ssize_t k = read(fd, b + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            free(b);
            return hx_error_set(err, HX_EIO, -1, "cannot read %s: %s", name, strerror(e));
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    b[got] = 0;
    *buf = b;
    *len = got;
    if (mtime_ns)
        *mtime_ns = hxi_platform_mtime_ns(&st);
    return 0;
}
