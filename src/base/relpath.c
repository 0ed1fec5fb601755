/* relpath.c: canonical root-relative document names (relpath.h). Pure string work; no file
 * system access, no allocation. */
#include "relpath.h"

#include <string.h>

int hx_relpath_clean(const char *in, char *out, size_t cap, hx_error *err)
{
    if (cap == 0)
        return hx_error_set(err, HX_ERANGE, -1, "no room for a path");
    if (in[0] == '/')
        return hx_error_set(err, HX_EPERM, 0, "'%.200s' is absolute; give a path relative to the indexed root",
                            in);
    size_t o = 0;
    for (const char *p = in; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return hx_error_set(err, HX_EPERM, (int64_t)(p - in),
                                "'%.200s' leaves the indexed root ('..' is not allowed)", in);
        if (n > HX_RELPATH_NAME_MAX)
            return hx_error_set(err, HX_ERANGE, (int64_t)(p - in),
                                "'%.200s...' has a component longer than %d bytes", in, HX_RELPATH_NAME_MAX);
        if (n && !(n == 1 && p[0] == '.')) {
            size_t need = o + (o > 0) + n + 1;
            if (need > HX_RELPATH_MAX || need > cap)
                return hx_error_set(err, HX_ERANGE, -1, "'%.200s...' is longer than %zu bytes", in,
                                    (cap < HX_RELPATH_MAX ? cap : HX_RELPATH_MAX) - 1);
            if (o)
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p += n + (e != NULL);
    }
    out[o] = 0;
    return 0;
}

size_t hxi_path_stem(const char *path, const char **base)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path, *dot = strrchr(name, '.');
    *base = name;
    return dot && dot > name ? (size_t)(dot - name) : strlen(name);
}
