/* test_glob.c: the glob rules of glob.h, case by case, plus hostile patterns that would take
 * exponential time in a naive backtracking matcher. */
#include "check.h"
#include "glob.h"

#include <string.h>

static const struct {
    const char *pattern, *path;
    int match;
} cases[] = {
    {"*.md", "README.md", 1},
    {"*.md", "docs/README.md", 0},
    {"**/*.md", "README.md", 1},
    {"**/*.md", "docs/a/README.md", 1},
    {"docs/**", "docs/a/b.md", 1},
    {"docs/**", "other/a.md", 0},
    {"docs/**/x.md", "docs/x.md", 1},
    {"docs/**/x.md", "docs/a/b/x.md", 1},
    {"docs/**/x.md", "docs/a/bx.md", 0},
    {"keps/sig-auth/**", "keps/sig-auth/1234-x/README.md", 1},
    {"keps/sig-a*/**", "keps/sig-auth/1/README.md", 1},
    {"keps/sig-a*/**", "keps/sig-node/1/README.md", 0},
    {"?.txt", "a.txt", 1},
    {"?.txt", "ab.txt", 0},
    {"a?b", "a/b", 0},
    {"[abc].c", "b.c", 1},
    {"[!abc].c", "b.c", 0},
    {"[a-z]1", "q1", 1},
    {"[a-z]1", "Q1", 0},
    {"[x", "[x", 1},
    {"\\*.md", "*.md", 1},
    {"\\*.md", "a.md", 0},
    {"*", "", 1},
    {"", "", 1},
    {"", "a", 0},
    {"a*b*c", "aXbYc", 1},
    {"a*b*c", "aXbY", 0},
    {"node_modules/**", "node_modules/x/y.js", 1},
    {"**/node_modules/**", "a/node_modules/x.js", 1},
    {"**", "anything/at/all", 1},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(hx_glob_match(cases[i].pattern, cases[i].path) == cases[i].match, "'%s' vs '%s' should %s",
              cases[i].pattern, cases[i].path, cases[i].match ? "match" : "not match");

    char pat[200], path[300];
    for (int i = 0; i < 99; i++)
        pat[2 * i] = 'a', pat[2 * i + 1] = '*';
    pat[198] = 'b', pat[199] = 0;
    memset(path, 'a', 299);
    path[299] = 0;
    CHECK(!hx_glob_match(pat, path), "a*a*...b against aaaa... finishes and fails");
    strcpy(pat, "**/**/**/**/**/**/**/**/**/**/z");
    memset(path, 0, sizeof path);
    for (int i = 0; i < 100; i++)
        path[2 * i] = 'q', path[2 * i + 1] = '/';
    CHECK(!hx_glob_match(pat, path), "nested ** against deep path finishes and fails");
    return check_report("test_glob");
}
