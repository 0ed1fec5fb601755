/* fuzz_glob.c: the glob matcher (src/base/glob.h) on any pattern and path. Input: the pattern, a
 * NUL byte, the path (without a NUL the path is the pattern's own bytes). Aborts when
 *   - the matcher takes more than 2 steps per (pattern byte + 1) x (path byte + 1), its bound;
 *   - on a short pattern and path it disagrees with the naive reference of tests/glob_ref.h;
 *   - the path, every byte escaped with a backslash, does not match the path itself;
 *   - hxi_glob_check takes a glob past its limits. */
#include "glob.h"
#include "../tests/glob_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INPUT_MAX 4096
#define REF_MAX 12   /* pattern and path bytes the exponential reference is given */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *pat, const char *path)
{
    fprintf(stderr, "fuzz_glob: %s\n  pattern '%.200s' (%zu bytes)\n  path    '%.200s' (%zu bytes)\n", what, pat,
            strlen(pat), path, strlen(path));
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char pat[INPUT_MAX + 1], path[INPUT_MAX + 1], escaped[2 * INPUT_MAX + 1];
    if (size > INPUT_MAX)
        size = INPUT_MAX;
    const uint8_t *nul = memchr(data, 0, size);
    size_t pl = nul ? (size_t)(nul - data) : size;
    memcpy(pat, data, pl);
    pat[pl] = 0;
    size_t sl = nul ? strnlen((const char *)nul + 1, size - pl - 1) : pl;
    memcpy(path, nul ? nul + 1 : data, sl);
    path[sl] = 0;

    uint64_t steps = 0;
    bool got = hxi_glob_match_steps(pat, path, &steps);
    if (steps > 2 * (uint64_t)(pl + 1) * (sl + 1))
        fail("more steps than the bound", pat, path);
    if (pl <= REF_MAX && sl <= REF_MAX && glob_ref_match(pat, path) != got)
        fail(got ? "matches where the reference does not" : "does not match where the reference does", pat, path);

    for (size_t i = 0; i < sl; i++) {
        escaped[2 * i] = '\\';
        escaped[2 * i + 1] = path[i];
    }
    escaped[2 * sl] = 0;
    if (!hxi_glob_match(escaped, path))
        fail("the escaped path does not match itself", escaped, path);

    hx_error err;
    size_t stars = 0;
    for (size_t i = 0; i < pl; i++)
        stars += pat[i] == '*';
    if (!hxi_glob_check(pat, "fuzz", &err) != (pl <= HX_GLOB_MAX_BYTES && stars <= HX_GLOB_MAX_STARS))
        fail("hxi_glob_check disagrees with the limits", pat, path);
    return 0;
}
