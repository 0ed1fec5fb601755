/* test_fsafe.c: the confinement rule and the safe open (fsafe.h), and what the walk and the loader
 * do with them (ingest.h): targets inside and outside the root in both modes, symlinks and FIFOs
 * refused at read time (a FIFO without blocking), a document reached through a symlink inside
 * the root read through its real path, the index file and its temp files skipped, and a folder
 * deeper than the walk's limit reported, all on a tree built in /tmp. */
#include "check.h"
#include "fsafe.h"
#include "ingest.h"
#include "relpath.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX], outside[PATH_MAX];

static void link_at(const char *target, const char *rel)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    CHECK(symlink(target, path) == 0, "symlink %s", rel);
}

static void target_is(const char *in, int how, const char *want)
{
    char out[HX_RELPATH_MAX];
    hx_error err = {0};
    int rc = hx_fs_target(root, in, how, out, sizeof out, &err);
    CHECK(rc == 0 && !strcmp(out, want), "target %.80s (%s): rc %d '%s', want '%s' (%s)", in,
          how == HX_TARGET_CWD ? "cwd" : "name", rc, rc ? "" : out, want, err.message);
}

static void target_refused(const char *in, int how, int code)
{
    char out[HX_RELPATH_MAX];
    hx_error err = {0};
    int rc = hx_fs_target(root, in, how, out, sizeof out, &err);
    CHECK(rc == code && err.message[0], "target %.80s (%s): rc %d, want %d", in, how == HX_TARGET_CWD ? "cwd" : "name",
          rc, code);
}

static void test_target(void)
{
    char abs[2 * PATH_MAX], cwd[PATH_MAX];
    target_is("docs/a.md", HX_TARGET_NAME, "docs/a.md");
    target_is("./docs//a.md/", HX_TARGET_NAME, "docs/a.md");
    target_is(".", HX_TARGET_NAME, "");
    target_is("a..b.md", HX_TARGET_NAME, "a..b.md");
    target_refused("../x", HX_TARGET_NAME, HX_EPERM);
    target_refused("/etc/passwd", HX_TARGET_NAME, HX_EPERM);
    snprintf(abs, sizeof abs, "%s/docs/a.md", root);
    target_is(abs, HX_TARGET_NAME, "docs/a.md");          /* absolute inside the root */
    snprintf(abs, sizeof abs, "%s/docs/../docs/gone/x.md", root);
    target_is(abs, HX_TARGET_NAME, "docs/gone/x.md");     /* parent missing: lexical */
    snprintf(abs, sizeof abs, "%s/out_dir/secret.md", root);
    target_refused(abs, HX_TARGET_NAME, HX_EPERM);        /* through a symlinked folder leading out */
    snprintf(abs, sizeof abs, "%s/escape.md", root);
    target_is(abs, HX_TARGET_NAME, "escape.md");          /* the last component is not followed */
    snprintf(abs, sizeof abs, "%s-sibling/x.md", root);
    target_refused(abs, HX_TARGET_NAME, HX_EPERM);        /* a prefix of the root's name is not inside */

    const char *in = hxi_fs_inside("/a/b", "/a/b/c");
    CHECK(in && !strcmp(in, "c"), "inside: /a/b/c");
    in = hxi_fs_inside("/a/b", "/a/b");
    CHECK(in && !*in, "inside: the root itself");
    CHECK(!hxi_fs_inside("/a/b", "/a/bc") && !hxi_fs_inside("/a/b", "/a") && !hxi_fs_inside("/a/b", "/x/a/b"),
          "not inside: a sibling sharing the prefix, the parent, elsewhere");
    in = hxi_fs_inside("/", "/etc/x");
    CHECK(in && !strcmp(in, "etc/x"), "inside the root /");

    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    snprintf(abs, sizeof abs, "%s/docs", root);
    CHECK(chdir(abs) == 0, "chdir docs");
    target_is("a.md", HX_TARGET_CWD, "docs/a.md");
    target_is("./deleted.md", HX_TARGET_CWD, "docs/deleted.md");
    target_is("..", HX_TARGET_CWD, "");
    target_is(".", HX_TARGET_CWD, "docs");
    target_refused("../..", HX_TARGET_CWD, HX_EPERM);
    target_is("a.md", HX_TARGET_NAME, "a.md");            /* a name is relative to the root, not here */
    CHECK(chdir(cwd) == 0, "chdir back");

    char long_name[5000];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    for (size_t i = 100; i < sizeof long_name - 1; i += 101)
        long_name[i] = '/';
    target_refused(long_name, HX_TARGET_NAME, HX_ERANGE);
    target_refused(long_name, HX_TARGET_CWD, HX_ERANGE);
}

static void open_refused(const char *name, int code, const char *why)
{
    int fd = 123;
    struct stat st;
    hx_error err = {0};
    int rc = hxi_fs_open_under(root, name, &fd, &st, &err);
    CHECK(rc == code && fd == -1 && strstr(err.message, why), "open %s: rc %d fd %d, want %d '%s': %s", name, rc, fd,
          code, why, err.message);
}

static void test_open(void)
{
    int fd;
    struct stat st;
    hx_error err = {0};
    CHECK(hxi_fs_open_under(root, "./docs/a.md", &fd, &st, &err) == 0 && S_ISREG(st.st_mode) && fd >= 0, "open a.md: %s",
          err.message);
    if (fd >= 0) {
        char buf[8] = "";
        CHECK(read(fd, buf, 7) == 7 && !memcmp(buf, "# Alpha", 7), "read a.md");
        close(fd);
    }
    alarm(20);   /* a FIFO that is waited on would hang the test: fail it instead */
    open_refused("docs/pipe.md", HX_EFORMAT, "FIFO");
    open_refused("escape.md", HX_EPERM, "symbolic link");
    open_refused("docs/alias.md", HX_EPERM, "symbolic link");   /* inside the root, still not followed */
    open_refused("out_dir/secret.md", HX_EPERM, "symbolic link");
    open_refused("docs", HX_EFORMAT, "folder");
    open_refused("docs/none.md", HX_ENOTFOUND, "no such file");
    open_refused("docs/a.md/x", HX_ENOTFOUND, "no such file");
    open_refused("", HX_EINVAL, "root");
    open_refused("../x", HX_EPERM, "..");

    /* hxi_fs_read_under: the whole file, NUL-terminated, under the same rule, and a size limit */
    char *text = NULL;
    size_t len = 0;
    int64_t mtime = 0;
    CHECK(hxi_fs_read_under(root, "docs/a.md", 1000, &text, &len, &mtime, &err) == 0 && len == 15 && text &&
              !strcmp(text, "# Alpha\n\nText.\n") && mtime > 0,
          "read a.md whole: %s", err.message);
    free(text);
    CHECK(hxi_fs_read_under(root, "docs/a.md", 14, &text, &len, NULL, &err) == HX_ERANGE && !text &&
              strstr(err.message, "15 bytes, over the 14-byte limit"),
          "one byte over the limit is refused: %s", err.message);
    CHECK(hxi_fs_read_under(root, "escape.md", 1000, &text, &len, NULL, &err) == HX_EPERM && !text,
          "read through a symlink refused: %s", err.message);
    CHECK(hxi_fs_read_under(root, "docs/pipe.md", 1000, &text, &len, NULL, &err) == HX_EFORMAT && !text,
          "a FIFO is never read: %s", err.message);

    hxi_doc_source d;
    CHECK(hxi_ingest_load(root, "docs/pipe.md", NULL, 1000, &d, &err) == HX_EFORMAT, "load of a FIFO refused");
    CHECK(hxi_ingest_load(root, "escape.md", NULL, 1000, &d, &err) == HX_EPERM && strstr(err.message, "escape.md"),
          "load through a symlink refused: %s", err.message);
    CHECK(hxi_ingest_load(root, "docs/alias.md", "docs/a.md", 1000, &d, &err) == 0 && !strcmp(d.path, "docs/alias.md") &&
              !strcmp(d.title, "Alpha"),
          "load of a name through its real path: %s", err.message);
    hxi_doc_source_clear(&d);
    alarm(0);
}

static bool listed(const hxi_file_list *l, const char *path, const char *real)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->paths[i], path))
            return !strcmp(hxi_file_list_real(l, i), real);
    return false;
}

static void test_walk(void)
{
    hxi_file_list l;
    hx_error err = {0};
    char db[2 * PATH_MAX];
    snprintf(db, sizeof db, "%s/docs/idx.hyx", root);
    const char *all[] = {""}, *hidden[] = {"hidden"};   /* reached only through "linked" */
    CHECK(hxi_ingest_walk(root, all, 1, hidden, 1, db, &l, &err) == 0, "walk: %s", err.message);
    CHECK(listed(&l, "docs/a.md", "docs/a.md"), "a regular file is its own real path");
    CHECK(listed(&l, "docs/alias.md", "docs/a.md"), "a symlink inside the root: named as seen, read through its target");
    CHECK(listed(&l, "linked/b.md", "hidden/b.md"), "a symlinked folder inside the root: read through the real folder");
    for (size_t i = 0; i < l.n; i++) {
        CHECK(strncmp(l.paths[i], "docs/idx.hyx", 12) || !strcmp(l.paths[i], "docs/idx.hyx.bak"),
              "the index file and its temp files are skipped: %s", l.paths[i]);
        CHECK(strcmp(l.paths[i], "docs/pipe.md") && strncmp(l.paths[i], "out_dir", 7) && strcmp(l.paths[i], "escape.md"),
              "no FIFO, nothing outside the root: %s", l.paths[i]);
    }
    CHECK(listed(&l, "docs/idx.hyx.bak", "docs/idx.hyx.bak"), "a user's file that only starts like the index is kept");
    CHECK(listed(&l, "other/idx.hyx", "other/idx.hyx"), "a file of the same name in another folder is kept");
    char deep_folder[3 * 70] = "";
    for (int i = 0; i < HX_WALK_MAX_DEPTH + 1; i++)
        strcat(deep_folder, i ? "/d" : "d");
    bool found = false;
    for (size_t i = 0; i < l.n_rejected; i++)
        found |= !strcmp(l.rejected[i].path, deep_folder) && strstr(l.rejected[i].reason, "levels deep") != NULL;
    CHECK(found && l.n_rejected == 1, "the folder past the depth limit is rejected with a reason (%zu rejected)",
          l.n_rejected);
    char shallow[3 * 70 + 16];
    snprintf(shallow, sizeof shallow, "%.*s/f.md", (int)strlen(deep_folder) - 2, deep_folder);
    CHECK(listed(&l, shallow, shallow), "a file %d folders deep is still listed", HX_WALK_MAX_DEPTH);
    hxi_file_list_clear(&l);

    const char *out_dir[] = {"out_dir"};
    CHECK(hxi_ingest_walk(root, out_dir, 1, NULL, 0, NULL, &l, &err) == HX_EPERM, "a target resolving outside refused");
    const char *pipe[] = {"docs/pipe.md"};
    CHECK(hxi_ingest_walk(root, pipe, 1, NULL, 0, NULL, &l, &err) == 0 && l.n == 0 && l.n_rejected == 1 &&
              strstr(l.rejected[0].reason, "not a regular file"),
          "a FIFO named as the target is rejected with a reason");
    hxi_file_list_clear(&l);
    const char *linked[] = {"linked"};
    CHECK(hxi_ingest_walk(root, linked, 1, NULL, 0, NULL, &l, &err) == 0 && listed(&l, "linked/b.md", "hidden/b.md"),
          "a symlinked folder inside the root as the target: %s", err.message);
    hxi_file_list_clear(&l);
}

int main(void)
{
    char t1[] = "/tmp/hxi_fsafe_XXXXXX", t2[] = "/tmp/hxi_fsafe_out_XXXXXX", path[2 * PATH_MAX];
    CHECK(mkdtemp(t1) && realpath(t1, root) && mkdtemp(t2) && realpath(t2, outside), "temp folders");
    check_put(root, "docs/a.md", "# Alpha\n\nText.\n");
    check_put(root, "docs/idx.hyx", "index file");
    check_put(root, "docs/idx.hyx.compact.tmp", "compaction temp file");
    check_put(root, "docs/idx.hyx.new-12-34", "creation temp file");
    check_put(root, "docs/idx.hyx.bak", "a user's backup");
    check_put(root, "other/idx.hyx", "another file of the same name");
    check_put(outside, "secret.md", "# Secret\n");
    check_put(root, "hidden/b.md", "# Beta\n");
    char deep[3 * 70 + 16] = "";
    for (int i = 0; i < HX_WALK_MAX_DEPTH; i++)
        strcat(deep, "d/");
    strcat(deep, "f.md");
    check_put(root, deep, "at the limit");
    snprintf(deep + 2 * HX_WALK_MAX_DEPTH, sizeof deep - 2 * HX_WALK_MAX_DEPTH, "d/g.md");
    check_put(root, deep, "past the limit");
    snprintf(path, sizeof path, "%s/docs/pipe.md", root);
    CHECK(mkfifo(path, 0644) == 0, "mkfifo");
    snprintf(path, sizeof path, "%s/secret.md", outside);
    link_at(path, "escape.md");
    link_at(outside, "out_dir");
    link_at("a.md", "docs/alias.md");
    link_at("hidden", "linked");

    test_target();
    test_open();
    test_walk();
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_fsafe");
}
