/* test_ingest.c: the walker (skips, excludes, symlinks inside and outside the root, cycles) and
 * the loader (encodings, binary refusal, size cap, titles, front matter, YAML scalars) on a
 * folder tree built in /tmp. */
#include "check.h"
#include "ingest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];

static void sub(const char *rel)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    mkdir(path, 0755);
}

static const char *meta(const hxi_doc_source *d, const char *key)
{
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key))
            return d->meta[i].value;
    return NULL;
}

static void build_tree(char *outside)
{
    char tmpl[] = "/tmp/hxi_ingest_XXXXXX";
    CHECK(mkdtemp(tmpl) != NULL, "mkdtemp");
    CHECK(realpath(tmpl, root) != NULL, "realpath");
    char tmpl2[] = "/tmp/hxi_outside_XXXXXX";
    CHECK(mkdtemp(tmpl2) != NULL, "mkdtemp outside");
    strcpy(outside, tmpl2);
    sub("docs");
    sub("docs/deep");
    sub(".git");
    sub(".hyrax");
    sub("vendor");
    const char md[] = "---\ntitle: \"Front Title\"\nstatus: implementable # comment\nowners:\n  - a\n---\n# Heading\n\nBody.\n";
    check_put_bytes(root, "docs/a.md", md, sizeof md - 1);
    const char md2[] = "Intro line\n\n## KEP-42: Real Title ##\ntext\n";
    check_put_bytes(root, "docs/deep/b.md", md2, sizeof md2 - 1);
    const char yaml[] = "# comment\ntitle: Pod Security\nkep-number: 2579\nowning-sig: sig-auth\nreviewers:\n  - x\nempty:\nblock: |\n  text\n";
    check_put_bytes(root, "docs/kep.yaml", yaml, sizeof yaml - 1);
    const uint8_t utf16[] = {0xFF, 0xFE, 'h', 0, 'i', 0, 0x3D, 0xD8, 0x00, 0xDE, '\n', 0};  /* "hi😀\n" */
    check_put_bytes(root, "utf16.txt", utf16, sizeof utf16);
    const uint8_t latin1[] = {'c', 'a', 'f', 0xE9, '\n'};
    check_put_bytes(root, "latin1.txt", latin1, sizeof latin1);
    const uint8_t bom8[] = {0xEF, 0xBB, 0xBF, 'o', 'k', '\n'};
    check_put_bytes(root, "bom.txt", bom8, sizeof bom8);
    const uint8_t bin[] = {0x7F, 'E', 'L', 'F', 0, 0, 1, 2};
    check_put_bytes(root, "prog.bin", bin, sizeof bin);
    check_put_bytes(root, ".git/config", "x", 1);
    check_put_bytes(root, ".hyrax/index.hyx", "x", 1);
    check_put_bytes(root, "vendor/lib.c", "int x;\n", 7);
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/secret.md", outside);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# secret\n", f);
        fclose(f);
    }
    char link[2 * PATH_MAX];
    snprintf(link, sizeof link, "%s/escape.md", root);
    CHECK(symlink(path, link) == 0, "symlink out");
    snprintf(link, sizeof link, "%s/escape_dir", root);
    CHECK(symlink(outside, link) == 0, "symlink dir out");
    snprintf(link, sizeof link, "%s/docs/alias.md", root);
    CHECK(symlink("a.md", link) == 0, "symlink in");
    snprintf(link, sizeof link, "%s/docs/deep/loop", root);
    CHECK(symlink("..", link) == 0, "symlink cycle");
}

static int has(const hxi_file_list *l, const char *p)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->paths[i], p))
            return 1;
    return 0;
}

static void test_walk(void)
{
    hxi_file_list l;
    hx_error err = {0};
    const char *targets[] = {""};
    const char *excludes[] = {"vendor/**", "*.bin"};
    CHECK(hxi_ingest_walk(root, targets, 1, excludes, 2, NULL, &l, &err) == 0, "walk: %s", err.message);
    CHECK(has(&l, "docs/a.md") && has(&l, "docs/deep/b.md") && has(&l, "docs/kep.yaml"), "files found");
    CHECK(has(&l, "docs/alias.md"), "symlink inside the root followed");
    CHECK(!has(&l, "escape.md"), "symlink to a file outside the root not followed");
    for (size_t i = 0; i < l.n; i++) {
        CHECK(strncmp(l.paths[i], ".git", 4) && strncmp(l.paths[i], ".hyrax", 6), "skipped: %s", l.paths[i]);
        CHECK(strncmp(l.paths[i], "escape_dir", 10), "folder outside the root not entered: %s", l.paths[i]);
        CHECK(strncmp(l.paths[i], "vendor", 6) && !strstr(l.paths[i], ".bin"), "excluded: %s", l.paths[i]);
        CHECK(!strstr(l.paths[i], "loop/"), "cycle cut: %s", l.paths[i]);
        if (i)
            CHECK(strcmp(l.paths[i - 1], l.paths[i]) < 0, "sorted and unique");
    }
    hxi_file_list_clear(&l);
    const char *bad[] = {"escape_dir"};
    CHECK(hxi_ingest_walk(root, bad, 1, NULL, 0, NULL, &l, &err) == HX_EPERM, "target resolving outside the root refused");
    const char *missing[] = {"nonexistent/hyrax"};
    CHECK(hxi_ingest_walk(root, missing, 1, NULL, 0, NULL, &l, &err) == HX_ENOTFOUND, "missing target reported");
}

/* A NUL anywhere (not only in the first 8 KiB) makes a file binary, refused with the NUL's offset:
 * text after it would otherwise end every C string made from the text and never be searched. */
static void test_nul(void)
{
    enum { AT = 9000 };
    static uint8_t late[AT + 32];
    memset(late, 'a', sizeof late);
    late[AT] = 0;
    check_put_bytes(root, "late_nul.txt", late, sizeof late);
    hxi_doc_source d;
    hx_error err = {0};
    int rc = hxi_ingest_load(root, "late_nul.txt", NULL, HX_MAX_FILE_BYTES, &d, &err);
    CHECK(rc == HX_EFORMAT, "NUL past 8 KiB refused, not accepted and cut there (rc %d)", rc);
    if (!rc)
        hxi_doc_source_clear(&d);
    CHECK(err.offset == AT && strstr(err.message, "late_nul.txt") && strstr(err.message, "NUL at byte 9000"),
          "reason names the file and the offset: %s (offset %lld)", err.message, (long long)err.offset);
    const uint8_t utf16_nul[] = {0xFF, 0xFE, 'o', 0, 'k', 0, 0, 0, 'x', 0};   /* "ok", U+0000, "x" */
    char *text = NULL;
    size_t len;
    const char *enc;
    rc = hxi_doc_decode(utf16_nul, sizeof utf16_nul, &text, &len, &enc, &err);
    CHECK(rc == HX_EFORMAT && err.offset == 6, "U+0000 in UTF-16 refused at byte 6: rc %d", rc);
    if (!rc)
        free(text);
}

static void test_load(void)
{
    hxi_doc_source d;
    hx_error err = {0};
    CHECK(hxi_ingest_load(root, "docs/a.md", NULL, HX_MAX_FILE_BYTES, &d, &err) == 0, "load: %s", err.message);
    CHECK(!strcmp(d.title, "Front Title"), "front matter title: %s", d.title);
    CHECK(meta(&d, "status") && !strcmp(meta(&d, "status"), "implementable"), "scalar without comment");
    CHECK(meta(&d, "owners") && !strcmp(meta(&d, "owners"), "a"), "a block list in front matter is kept (yaml.h)");
    CHECK(!strcmp(d.type, "markdown") && !strcmp(d.encoding, "utf-8"), "type and encoding");
    CHECK(strlen(d.sha256) == 64 && d.size == d.text_len, "hash and size");
    hxi_doc_source_clear(&d);

    CHECK(hxi_ingest_load(root, "docs/deep/b.md", NULL, HX_MAX_FILE_BYTES, &d, &err) == 0, "load b");
    CHECK(!strcmp(d.title, "KEP-42: Real Title"), "first heading is the title: %s", d.title);
    hxi_doc_source_clear(&d);

    CHECK(hxi_ingest_load(root, "docs/kep.yaml", NULL, HX_MAX_FILE_BYTES, &d, &err) == 0, "load yaml");
    CHECK(!strcmp(d.title, "Pod Security") && !strcmp(d.type, "yaml"), "yaml title: %s", d.title);
    CHECK(meta(&d, "kep-number") && !strcmp(meta(&d, "kep-number"), "2579"), "yaml scalar");
    CHECK(meta(&d, "owning-sig") && !strcmp(meta(&d, "owning-sig"), "sig-auth"), "yaml scalar 2");
    CHECK(!meta(&d, "empty") && !meta(&d, "block") && meta(&d, "reviewers") && !strcmp(meta(&d, "reviewers"), "x"),
          "null and block scalars skipped, a block list kept");
    hxi_doc_source_clear(&d);

    CHECK(hxi_ingest_load(root, "utf16.txt", NULL, HX_MAX_FILE_BYTES, &d, &err) == 0, "load utf16");
    CHECK(!strcmp(d.encoding, "utf-16le") && !strcmp(d.text, "hi\xF0\x9F\x98\x80\n"), "utf-16 decoded");
    hxi_doc_source_clear(&d);
    CHECK(hxi_ingest_load(root, "latin1.txt", NULL, HX_MAX_FILE_BYTES, &d, &err) == 0, "load latin1");
    CHECK(!strcmp(d.encoding, "latin-1") && !strcmp(d.text, "caf\xC3\xA9\n"), "latin-1 decoded");
    hxi_doc_source_clear(&d);
    CHECK(hxi_ingest_load(root, "bom.txt", NULL, HX_MAX_FILE_BYTES, &d, &err) == 0, "load bom");
    CHECK(!strcmp(d.encoding, "utf-8-bom") && !strcmp(d.text, "ok\n") && !strcmp(d.title, "ok"), "BOM stripped");
    hxi_doc_source_clear(&d);

    CHECK(hxi_ingest_load(root, "prog.bin", NULL, HX_MAX_FILE_BYTES, &d, &err) == HX_EFORMAT, "binary refused");
    CHECK(strstr(err.message, "prog.bin") && strstr(err.message, "binary"), "message: %s", err.message);
    CHECK(hxi_ingest_load(root, "docs/a.md", NULL, 10, &d, &err) == HX_ERANGE, "size cap");
    CHECK(strstr(err.message, "limit") != NULL, "size message: %s", err.message);
    CHECK(hxi_ingest_load(root, "nope.md", NULL, 100, &d, &err) == HX_ENOTFOUND, "missing file");

    test_nul();

    hx_kv extra[] = {{"team", "storage"}};
    const char content[] = "# Added\nbody\n";
    CHECK(hxi_ingest_from_bytes("notes/x.md", content, sizeof content - 1, extra, 1, &d, &err) == 0, "from bytes");
    CHECK(!strcmp(d.title, "Added") && meta(&d, "team") && !strcmp(d.path, "notes/x.md"), "from-bytes document");
    hxi_doc_source_clear(&d);
}

int main(void)
{
    char outside[PATH_MAX];
    build_tree(outside);
    test_walk();
    test_load();
    char cmd[2 * PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_ingest");
}
