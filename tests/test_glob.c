/* test_glob.c: the glob rules of glob.h, case by case, plus hostile patterns that would take
 * exponential time in a naive backtracking matcher; the O(pattern x path) bound shown by counting
 * the matcher's steps on hostile shapes up to 4,000 bytes; thousands of random short pairs
 * against the naive reference matcher of glob_ref.h; the limits on users' globs. */
#include "check.h"
#include "filter.h"
#include "gate.h"
#include "glob.h"
#include "glob_ref.h"
#include "ingest.h"

#include <stdint.h>
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

/* More rules of glob.h, each worked out by hand from its text. */
static const struct {
    const char *pattern, *path;
    int match;
} more[] = {
    {"[^abc].c", "d.c", 1},
    {"[^abc].c", "a.c", 0},
    {"[]a]x", "]x", 1},
    {"[!]a]x", "]x", 0},
    {"[!]a]x", "bx", 1},
    {"[a-]", "-", 1},
    {"[a-]", "b", 0},
    {"[!a]", "/", 0},
    {"[/]", "/", 0},
    {"a[]", "a[]", 1},
    {"\\", "\\", 1},
    {"a\\", "a\\", 1},
    {"\\/**/x", "/x", 1},
    {"a**b", "a/x/b", 1},
    {"a**/b", "ab", 0},
    {"a**/b", "a/b", 1},
    {"a**/b", "ax/y/b", 1},
    {"**/b", "b", 1},
    {"**/b", "xb", 0},
    {"**/", "a/", 1},
    {"**/", "", 1},
    {"a/**/**/b", "a/b", 1},
    {"a/**/**/b", "a/x/y/b", 1},
    {"***/x", "q/r/x", 1},
    {"\\***", "*x/y", 1},
    {"*/", "ab/", 1},
    {"*", "a/b", 0},
    {"?", "", 0},
    {"a?", "a", 0},
    {"a/*", "a/", 1},
};

/* A pattern of `reps` copies of unit and then tail, and a path of `len` copies of fill; both in
 * the caller's buffers of cap bytes. */
static void hostile(char *pat, char *path, size_t cap, const char *unit, size_t reps, const char *tail,
                    const char *fill, size_t len)
{
    pat[0] = 0;
    for (size_t i = 0; i < reps && strlen(pat) + strlen(unit) + strlen(tail) < cap; i++)
        strcat(pat, unit);
    strcat(pat, tail);
    size_t fl = strlen(fill);
    for (size_t i = 0; i < len && i < cap - 1; i++)
        path[i] = fill[i % fl];
    path[len < cap - 1 ? len : cap - 1] = 0;
}

/* Every hostile shape costs at most 2 steps per (pattern state, path byte): one to move on the
 * byte and one to follow the moves without a byte (glob.c), and a state per pattern byte at most. */
static void test_step_bound(void)
{
    static const struct {
        const char *unit, *tail, *fill;
    } shapes[] = {
        {"*a", "b", "a"},
        {"**a", "b", "a"},
        {"**/a", "/b", "a/"},
        {"**/", "z", "q/"},
        {"*[ab]", "c", "ab"},
        {"*?", "/b", "aaa/"},
        {"a*/", "b", "a/"},
        {"**", "b", "a/"},
    };
    static const size_t sizes[] = {1000, 2000, 4000};
    enum { CAP = 4100 };
    static char pat[CAP], path[CAP];
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
            size_t n = sizes[k];
            hostile(pat, path, CAP, shapes[i].unit, n / strlen(shapes[i].unit), shapes[i].tail, shapes[i].fill, n);
            size_t pl = strlen(pat), sl = strlen(path);
            uint64_t steps = 0, bound = 2 * (uint64_t)(pl + 1) * (sl + 1);
            bool got = hxi_glob_match_steps(pat, path, &steps);
            CHECK(!got, "shape '%s...%s' (%zu bytes) against '%s...' (%zu bytes) does not match", shapes[i].unit,
                  shapes[i].tail, pl, shapes[i].fill, sl);
            CHECK(steps > 0 && steps <= bound, "shape '%s...%s' (%zu bytes) against %zu bytes: %llu steps, bound %llu",
                  shapes[i].unit, shapes[i].tail, pl, sl, (unsigned long long)steps, (unsigned long long)bound);
        }
    /* and a long path matches where it should: no length past which nothing matches */
    hostile(pat, path, CAP, "**/", 1, "*.md", "abcd/", 4000);
    memcpy(path + 3995, "x.md", 5);
    CHECK(hxi_glob_match(pat, path), "**/*.md matches a 4,000-byte path ending in x.md");
    static char longer[10001];
    memset(longer, 'a', 10000);
    CHECK(hxi_glob_match("**", longer) && hxi_glob_match("a*a", longer) && !hxi_glob_match("*b", longer),
          "a 10,000-byte folder name is matched like a short one");
}

/* Random short pairs over the bytes the rules care about, against the naive reference. */
static void test_against_reference(void)
{
    static const char pat_bytes[] = "ab/*?[]!^-\\";
    static const char path_bytes[] = "ab/-]!\\*";
    uint32_t seed = 12345;
    int mismatches = 0;
    for (int t = 0; t < 200000; t++) {
        char pat[12], path[12];
        seed = seed * 1664525u + 1013904223u;
        size_t pl = (seed >> 8) % 11, sl = (seed >> 16) % 11;
        for (size_t i = 0; i < pl; i++) {
            seed = seed * 1664525u + 1013904223u;
            pat[i] = pat_bytes[(seed >> 16) % (sizeof pat_bytes - 1)];
        }
        for (size_t i = 0; i < sl; i++) {
            seed = seed * 1664525u + 1013904223u;
            path[i] = path_bytes[(seed >> 16) % (sizeof path_bytes - 1)];
        }
        pat[pl] = path[sl] = 0;
        bool want = glob_ref_match(pat, path), got = hxi_glob_match(pat, path);
        if (want != got && mismatches++ < 10)
            CHECK(0, "'%s' vs '%s': the reference says %d, hxi_glob_match %d", pat, path, want, got);
    }
    CHECK(mismatches == 0, "%d random pairs disagree with the reference", mismatches);
}

static void test_limits(void)
{
    hx_error err;
    static char pat[HX_GLOB_MAX_BYTES + 2];
    memset(pat, 'a', HX_GLOB_MAX_BYTES);
    CHECK(hxi_glob_check(pat, "--exclude", &err) == 0, "a glob of the longest length is taken");
    pat[HX_GLOB_MAX_BYTES] = 'a';
    CHECK(hxi_glob_check(pat, "--exclude", &err) == HX_EINVAL && strstr(err.message, "1024") &&
          strstr(err.message, "--exclude"), "one byte more is refused, naming the limit: %s", err.message);
    memset(pat, 0, sizeof pat);
    for (int i = 0; i < HX_GLOB_MAX_STARS; i++)
        strcat(pat, "*a");
    CHECK(hxi_glob_check(pat, "filter 'path'", &err) == 0, "a glob with the most stars is taken");
    strcat(pat, "*");
    CHECK(hxi_glob_check(pat, "filter 'path'", &err) == HX_EINVAL && strstr(err.message, "64"),
          "one star more is refused, naming the limit: %s", err.message);
}

/* Where a user's glob arrives, one past the limit is refused with the limit named, before any
 * matching: filters (JSON and --filter, lists too, and a search's globs together), excludes, a
 * policy's sections and the audit log's path. */
static void test_arrivals(void)
{
    hx_error err;
    static char big[HX_GLOB_MAX_BYTES + 2], arg[HX_GLOB_MAX_BYTES + 64];
    memset(big, 'a', HX_GLOB_MAX_BYTES + 1);
    hx_filter_set fs = {0};
    snprintf(arg, sizeof arg, "path=%s", big);
    CHECK(hx_filter_parse_arg(&fs, arg, &err) == HX_EINVAL && strstr(err.message, "filter 'path'") &&
          strstr(err.message, "1024"), "--filter path= with a 1,025-byte glob: %s", err.message);
    snprintf(arg, sizeof arg, "path=a,%s", big);
    CHECK(hx_filter_parse_arg(&fs, arg, &err) == HX_EINVAL, "a list with one glob too long is refused");
    strcpy(arg, "PATH=");
    for (int i = 0; i <= HX_GLOB_MAX_STARS; i++)
        strcat(arg, "*a");
    CHECK(hx_filter_parse_arg(&fs, arg, &err) == HX_EINVAL && strstr(err.message, "64"), "65 stars are refused: %s",
          err.message);
    CHECK(fs.n == 0, "nothing refused was added");
    big[HX_GLOB_MAX_BYTES] = 0;
    snprintf(arg, sizeof arg, "path=%s", big);
    for (int i = 0; i < 4; i++)
        CHECK(hx_filter_parse_arg(&fs, arg, &err) == 0, "a 1,024-byte glob is taken (%d)", i);
    CHECK(hx_filter_parse_arg(&fs, "path=x", &err) == HX_EINVAL && strstr(err.message, "4096"),
          "past 4,096 bytes of path globs in one search: %s", err.message);
    CHECK(hx_filter_parse_arg(&fs, "type=markdown", &err) == 0, "other filters still go in");
    hx_filter_set_free(&fs);

    hx_filter_set js = {0};
    snprintf(arg, sizeof arg, "{\"path\": [\"docs/**\", \"%sa\"]}", big);   /* the second one 1,025 bytes */
    hxi_json_doc *doc = NULL;
    if (hxi_json_parse(&doc, arg, strlen(arg), NULL, &err) == 0) {
        CHECK(hxi_filter_parse_json(&js, hxi_json_doc_root(doc), &err) == HX_EINVAL && strstr(err.message, "1024"),
              "JSON filters: a 1,025-byte glob in a list: %s", err.message);
        hxi_json_doc_free(doc);
    } else {
        CHECK(0, "the JSON filter parses: %s", err.message);
    }
    hx_filter_set_free(&js);

    const char *ex[] = {"*.tmp", big};
    big[HX_GLOB_MAX_BYTES] = 'a';
    hxi_file_list files;
    CHECK(hxi_ingest_walk("/nonexistent-root", NULL, 0, ex, 2, NULL, &files, &err) == HX_EINVAL &&
          strstr(err.message, "exclude") && strstr(err.message, "1024"), "an exclude too long: %s", err.message);

    char policy[HX_GLOB_MAX_BYTES + 64];
    int pn = snprintf(policy, sizeof policy, "max_size = 1M\n[%s]\ndeny = x\n", big);
    ix_policy *p = NULL;
    CHECK(ix_policy_parse(policy, (size_t)pn, "policy", &p, &err) == HX_EINVAL && !p &&
          strstr(err.message, "policy:2") && strstr(err.message, "1024"), "a policy section too long: %s", err.message);

    hx_audit_list l = {0};
    CHECK(hx_audit_list_select(&l, 0, big, 0, &err) == HX_EINVAL && strstr(err.message, "1024"),
          "audit: a path glob too long: %s", err.message);
    CHECK(hx_audit_list_select(&l, 0, "**", 0, &err) == 0, "audit: a short glob is taken");
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(hxi_glob_match(cases[i].pattern, cases[i].path) == cases[i].match, "'%s' vs '%s' should %s",
              cases[i].pattern, cases[i].path, cases[i].match ? "match" : "not match");

    char pat[200], path[300];
    for (int i = 0; i < 99; i++)
        pat[2 * i] = 'a', pat[2 * i + 1] = '*';
    pat[198] = 'b', pat[199] = 0;
    memset(path, 'a', 299);
    path[299] = 0;
    CHECK(!hxi_glob_match(pat, path), "a*a*...b against aaaa... finishes and fails");
    strcpy(pat, "**/**/**/**/**/**/**/**/**/**/z");
    memset(path, 0, sizeof path);
    for (int i = 0; i < 100; i++)
        path[2 * i] = 'q', path[2 * i + 1] = '/';
    CHECK(!hxi_glob_match(pat, path), "nested ** against deep path finishes and fails");

    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        CHECK(hxi_glob_match(more[i].pattern, more[i].path) == more[i].match, "'%s' vs '%s' should %s",
              more[i].pattern, more[i].path, more[i].match ? "match" : "not match");
        CHECK(glob_ref_match(more[i].pattern, more[i].path) == more[i].match, "the reference: '%s' vs '%s'",
              more[i].pattern, more[i].path);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(glob_ref_match(cases[i].pattern, cases[i].path) == cases[i].match, "the reference: '%s' vs '%s'",
              cases[i].pattern, cases[i].path);
    test_step_bound();
    test_against_reference();
    test_limits();
    test_arrivals();
    return check_report("test_glob");
}
