/* test_relpath.c: the one rule for document names (relpath.h), case by case. */
#include "check.h"
#include "relpath.h"

#include <string.h>

static void clean_is(const char *in, const char *want)
{
    char out[HX_RELPATH_MAX];
    hx_error err = {0};
    int rc = hx_relpath_clean(in, out, sizeof out, &err);
    CHECK(rc == 0, "%s: %s", in, err.message);
    if (!rc)
        CHECK(!strcmp(out, want), "%s -> %s, want %s", in, out, want);
}

/* hxi_path_stem: the file name without its extension; the expected stems are Python's
 * os.path.splitext(os.path.basename(path))[0]. */
static void stem_is(const char *path, const char *want)
{
    const char *base;
    size_t n = hxi_path_stem(path, &base);
    CHECK(n == strlen(want) && !strncmp(base, want, n), "%s: stem %.*s, want %s", path, (int)n, base, want);
}

static void refused(const char *in, int code)
{
    char out[HX_RELPATH_MAX];
    hx_error err = {0};
    CHECK(hx_relpath_clean(in, out, sizeof out, &err) == code, "%.40s: want %d", in, code);
    CHECK(err.message[0] != 0, "no message");
}

int main(void)
{
    clean_is("docs/a.md", "docs/a.md");
    clean_is("./x.md", "x.md");
    clean_is("././x.md", "x.md");
    clean_is("docs/", "docs");
    clean_is("docs//a.md", "docs/a.md");
    clean_is("docs/./a.md", "docs/a.md");
    clean_is(".", "");
    clean_is("./", "");
    clean_is("", "");
    clean_is("a..b.md", "a..b.md");
    clean_is("..a/b..", "..a/b..");
    clean_is(".hidden", ".hidden");
    clean_is("line\nbreak.md", "line\nbreak.md");
    refused("/etc/passwd", HX_EPERM);
    refused("../x", HX_EPERM);
    refused("docs/../../x", HX_EPERM);
    refused("docs/..", HX_EPERM);
    char long_name[5000];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    refused(long_name, HX_ERANGE);           /* one component over NAME_MAX */
    for (size_t i = 100; i < sizeof long_name - 1; i += 101)
        long_name[i] = '/';
    refused(long_name, HX_ERANGE);           /* over PATH_MAX in all */
    char small[4];
    hx_error err = {0};
    CHECK(hx_relpath_clean("abcd", small, sizeof small, &err) == HX_ERANGE, "abcd fits in 4");
    CHECK(hx_relpath_clean("abc", small, sizeof small, &err) == 0 && !strcmp(small, "abc"), "abc in 4");
    stem_is("docs/README.md", "README");
    stem_is("src/ed25519.c", "ed25519");
    stem_is("a.tar.gz", "a.tar");
    stem_is("Makefile", "Makefile");
    stem_is("dir.d/file", "file");
    stem_is("dir/.profile", ".profile");
    stem_is("dir/", "");
    return check_report("test_relpath");
}
