/* glob.c: the glob matcher specified in glob.h. A recursive matcher with a memo of failed
 * (pattern, path) positions, so hostile patterns cost at most O(pattern x path) steps; patterns
 * and paths past HX_GLOB_MAX bytes never match. */
#include "glob.h"
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HX_GLOB_MAX 4096

typedef struct {
    const char *pat, *path;
    size_t plen, slen;
    uint8_t *failed;   /* (plen+1) x (slen+1) bits */
} glob_state;

/* Matches the class at pat[i] == '['; on success sets *next past ']'. Returns -1 when the '['
 * starts no class (no closing bracket): it is then a literal. */
static int match_class(const glob_state *g, size_t i, char c, size_t *next)
{
    size_t q = i + 1;
    int negate = q < g->plen && (g->pat[q] == '!' || g->pat[q] == '^'), hit = 0;
    q += (size_t)negate;
    size_t first = q;
    for (; q < g->plen && (g->pat[q] != ']' || q == first); q++) {
        if (q + 2 < g->plen && g->pat[q + 1] == '-' && g->pat[q + 2] != ']') {
            hit |= c >= g->pat[q] && c <= g->pat[q + 2];
            q += 2;
        } else {
            hit |= c == g->pat[q];
        }
    }
    if (q >= g->plen)
        return -1;
    *next = q + 1;
    return hit != negate;
}

static int match_at(glob_state *g, size_t i, size_t j)
{
    size_t bit = i * (g->slen + 1) + j;
    if (g->failed[bit / 8] & (1u << (bit % 8)))
        return 0;
    int ok = 0;
    if (i == g->plen) {
        ok = j == g->slen;
    } else if (g->pat[i] == '*' && i + 1 < g->plen && g->pat[i + 1] == '*') {
        size_t k = i;
        while (k < g->plen && g->pat[k] == '*')
            k++;
        int folders = k < g->plen && g->pat[k] == '/' && (i == 0 || g->pat[i - 1] == '/');
        if (folders) {
            /* zero or more whole folders, then the rest after the slash */
            ok = match_at(g, k + 1, j);
            for (size_t s = j; !ok && s < g->slen; s++)
                if (g->path[s] == '/')
                    ok = match_at(g, k + 1, s + 1);
        } else {
            for (size_t s = j; !ok && s <= g->slen; s++)
                ok = match_at(g, k, s);
        }
    } else if (g->pat[i] == '*') {
        for (size_t s = j; !ok; s++) {
            ok = match_at(g, i + 1, s);
            if (s == g->slen || g->path[s] == '/')
                break;
        }
    } else if (j < g->slen) {
        char c = g->path[j];
        size_t next;
        int r;
        if (g->pat[i] == '?')
            ok = c != '/' && match_at(g, i + 1, j + 1);
        else if (g->pat[i] == '[' && (r = match_class(g, i, c, &next)) >= 0)
            ok = r && c != '/' && match_at(g, next, j + 1);
        else if (g->pat[i] == '\\' && i + 1 < g->plen)
            ok = g->pat[i + 1] == c && match_at(g, i + 2, j + 1);
        else
            ok = g->pat[i] == c && match_at(g, i + 1, j + 1);
    }
    if (!ok)
        g->failed[bit / 8] |= (uint8_t)(1u << (bit % 8));
    return ok;
}

bool hx_glob_match(const char *pattern, const char *path)
{
    glob_state g = {pattern, path, strlen(pattern), strlen(path), NULL};
    if (g.plen > HX_GLOB_MAX || g.slen > HX_GLOB_MAX)
        return false;
    g.failed = hx_calloc(((g.plen + 1) * (g.slen + 1) + 7) / 8, 1);
    if (!g.failed)
        return false;
    int ok = match_at(&g, 0, 0);
    free(g.failed);
    return ok;
}
