/* glob_ref.h: a reference glob matcher for tests/test_glob.c and fuzz/fuzz_glob.c, written from
 * the rules in src/base/glob.h alone and kept deliberately naive: it tries every way to split the
 * path (exponential time), so callers give it short inputs only. */
#ifndef HX_GLOB_REF_H
#define HX_GLOB_REF_H

#include <stdbool.h>
#include <string.h>

/* Whether the class starting at p ('[') admits byte c; returns the class's end (past ']'), or
 * NULL when nothing closes it. */
static const char *glob_ref_class(const char *p, unsigned char c, bool *in)
{
    const char *q = p + 1;
    bool negate = *q == '!' || *q == '^';
    if (negate)
        q++;
    const char *body = q;
    while (*q && (*q != ']' || q == body))   /* a ']' first in the class is a member */
        q++;
    if (!*q)
        return NULL;
    bool hit = false;
    for (const char *m = body; m < q; m++) {
        if (m + 2 < q && m[1] == '-') {   /* a range, unless the '-' is the class's last byte */
            hit |= c >= (unsigned char)m[0] && c <= (unsigned char)m[2];
            m += 2;
        } else {
            hit |= c == (unsigned char)*m;
        }
    }
    *in = c != '/' && hit != negate;
    return q + 1;
}

/* pat against path; start is the whole pattern (to see what precedes a `**`). */
static bool glob_ref_at(const char *start, const char *pat, const char *path)
{
    if (!*pat)
        return !*path;
    if (*pat == '*') {
        size_t run = strspn(pat, "*");
        const char *rest = pat + run;
        if (run == 1) {   /* any run of non-'/' bytes */
            for (const char *s = path;; s++) {
                if (glob_ref_at(start, rest, s))
                    return true;
                if (!*s || *s == '/')
                    return false;
            }
        }
        if (*rest == '/' && (pat == start || pat[-1] == '/')) {   /* "" or anything ending in '/' */
            if (glob_ref_at(start, rest + 1, path))
                return true;
            for (const char *s = path; *s; s++)
                if (*s == '/' && glob_ref_at(start, rest + 1, s + 1))
                    return true;
            return false;
        }
        for (const char *s = path;; s++) {   /* anything, slashes too */
            if (glob_ref_at(start, rest, s))
                return true;
            if (!*s)
                return false;
        }
    }
    if (!*path)
        return false;
    if (*pat == '?')
        return *path != '/' && glob_ref_at(start, pat + 1, path + 1);
    bool in;
    const char *end;
    if (*pat == '[' && (end = glob_ref_class(pat, (unsigned char)*path, &in)))
        return in && glob_ref_at(start, end, path + 1);
    if (*pat == '\\' && pat[1])
        return pat[1] == *path && glob_ref_at(start, pat + 2, path + 1);
    return *pat == *path && glob_ref_at(start, pat + 1, path + 1);
}

static bool glob_ref_match(const char *pat, const char *path)
{
    return glob_ref_at(pat, pat, path);
}

#endif
