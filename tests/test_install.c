/* test_install.c: `hyrax install CLIENT`, by running $HYRAX_BIN with HOME (and XDG_CONFIG_HOME,
 * CODEX_HOME) in a temp folder: a fresh file, a merge into files with other servers and keys
 * (JSON laid out with spaces and with tabs, Codex's TOML with a table to replace and one to append
 * to), a second run changing nothing, the backup, --print, --list, malformed files refused and
 * left as they were, and no index refused. The expected files in tests/data/install/ are written
 * by hand from each client's documented format; @EXE@ and @DB@ stand for the paths of the run. */
#include "check.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA "tests/data/install/"

static char dir[256];         /* HOME (a short temp folder) */
static char exe[PATH_MAX];    /* $HYRAX_BIN, resolved */
static char db[PATH_MAX];     /* the index the runs find: dir/proj/.hyrax/index.hyx */

/* Runs hyrax with the arguments `args` from dir/proj/sub with HOME=dir and the variable `var`
 * (NAME, NULL for none) set to dir/sub; stdout and stderr into *out (caller frees); the exit
 * status. */
static int run_with(char **out, const char *var, const char *sub, const char *args)
{
    char cmd[4 * PATH_MAX], env[PATH_MAX + 64] = "";
    if (var)
        snprintf(env, sizeof env, "%s='%s/%s' ", var, dir, sub);
    snprintf(cmd, sizeof cmd, "cd '%s/proj/sub' && HOME='%s' %s\"$HYRAX_BIN\" 2>&1 %s", dir, dir, env, args);
    return check_run(cmd, out);
}

static int run(char **out, const char *args)
{
    return run_with(out, NULL, NULL, args);
}

/* The fixture DATA/name with @EXE@ and @DB@ replaced (caller frees). */
static char *expected(const char *name)
{
    char path[PATH_MAX];
    size_t len;
    snprintf(path, sizeof path, DATA "%s", name);
    char *t = check_read_file(path, &len);
    CHECK(t != NULL, "fixture %s", name);
    if (!t)
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        const char *mark = pass ? "@DB@" : "@EXE@", *with = pass ? db : exe;
        char *at;
        while ((at = strstr(t, mark))) {
            size_t n = strlen(t) + strlen(with) + 1;
            char *u = malloc(n);
            snprintf(u, n, "%.*s%s%s", (int)(at - t), t, with, at + strlen(mark));
            free(t);
            t = u;
        }
    }
    return t;
}

/* Whether file dir/rel holds exactly the fixture `name` (its placeholders filled). */
static bool holds(const char *rel, const char *name)
{
    char path[PATH_MAX];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *got = check_read_file(path, &len), *want = expected(name);
    bool same = got && want && !strcmp(got, want);
    if (!same)
        fprintf(stderr, "--- %s\n%s--- want (%s)\n%s---\n", path, got ? got : "(none)", name, want ? want : "");
    free(got);
    free(want);
    return same;
}

/* Copies fixture `name` to dir/rel. */
static void put_fixture(const char *name, const char *rel)
{
    char from[PATH_MAX], to[PATH_MAX], *out;
    snprintf(from, sizeof from, DATA "%s", name);
    snprintf(to, sizeof to, "%s/%s", dir, rel);
    char *slash = strrchr(to, '/');
    *slash = 0;
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", to);
    CHECK(check_run(cmd, &out) == 0, "mkdir %s", to);
    free(out);
    *slash = '/';
    CHECK(check_copy_file(from, to) == 0, "copy %s", name);
}

/* Files in dir/folder whose name starts with prefix. */
static int count(const char *folder, const char *prefix)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, folder);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return n;
}

/* === JSON clients === */

static void test_fresh(void)
{
    char *out;
    CHECK(run(&out, "install claude-code") == 0 && strstr(out, "created"), "claude-code: %s", out);
    free(out);
    CHECK(holds(".claude.json", "claude-code-fresh.json"), "a new ~/.claude.json holds the user-scope entry");
    struct stat st;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.claude.json", dir);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 077) == 0, "a new file is private to its user: %o", st.st_mode);
    CHECK(run(&out, "install claude-code") == 0 && strstr(out, "nothing to change"), "second run: %s", out);
    free(out);
    CHECK(count(".", ".claude.json") == 1, "no backup when nothing changes");
    CHECK(holds(".claude.json", "claude-code-fresh.json"), "unchanged");
    put_fixture("claude-code-env-before.json", ".claude.json");
    CHECK(run(&out, "install claude-code") == 0 && strstr(out, "updated"), "claude-code over an older entry: %s", out);
    free(out);
    CHECK(holds(".claude.json", "claude-code-env-after.json"),
          "the entry's env keeps the variables a user set (\"env\": {} is only a default), project scopes untouched");
    CHECK(run(&out, "install claude-code") == 0 && strstr(out, "nothing to change"), "then nothing to change: %s",
          out);
    free(out);
}

static void test_merge(void)
{
    char *out, bak[PATH_MAX];
    put_fixture("cursor-before.json", ".cursor/mcp.json");
    CHECK(run(&out, "install cursor") == 0 && strstr(out, "updated") && strstr(out, ".bak-"), "cursor: %s", out);
    free(out);
    CHECK(holds(".cursor/mcp.json", "cursor-after.json"),
          "merge: other servers and keys kept, hyrax's entry replaced, its other keys kept");
    CHECK(count(".cursor", "mcp.json.bak-") == 1, "one backup");
    DIR *d = NULL;
    snprintf(bak, sizeof bak, "%s/.cursor", dir);
    d = opendir(bak);
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, "mcp.json.bak-", 13))
            snprintf(bak, sizeof bak, ".cursor/%s", e->d_name);
    if (d)
        closedir(d);
    CHECK(holds(bak, "cursor-before.json"), "the backup is the file as it was");
    CHECK(run(&out, "install cursor") == 0 && strstr(out, "nothing to change"), "second run: %s", out);
    free(out);
    CHECK(count(".cursor", "mcp.json") == 2 && holds(".cursor/mcp.json", "cursor-after.json"), "idempotent");

    put_fixture("vscode-before.json", "xdg/Code/User/mcp.json");
    CHECK(run(&out, "install vscode") == 0, "vscode without XDG_CONFIG_HOME: %s", out);
    free(out);
    CHECK(count(".config/Code/User", "mcp.json") == 1, "~/.config/Code/User/mcp.json by default");
    CHECK(run_with(&out, "XDG_CONFIG_HOME", "xdg", "install --db ../.hyrax/index.hyx vscode") == 0, "vscode: %s", out);
    free(out);
    CHECK(holds("xdg/Code/User/mcp.json", "vscode-after.json"),
          "$XDG_CONFIG_HOME, the servers key, tab indentation and no final newline kept");

    put_fixture("gemini-before.json", ".gemini/settings.json");
    CHECK(run(&out, "install gemini --model mpnet") == 0, "gemini: %s", out);
    free(out);
    CHECK(holds(".gemini/settings.json", "gemini-after.json"), "mcpServers added after the other keys, with --model");
}

static void test_refusals(void)
{
    char *out;
    put_fixture("malformed.json", ".config/Claude/claude_desktop_config.json");
    CHECK(run(&out, "install claude-desktop") == 1 && strstr(out, "not valid JSON (line 4, column 3") &&
              strstr(out, "nothing was written"), "malformed JSON: %s", out);
    free(out);
    CHECK(holds(".config/Claude/claude_desktop_config.json", "malformed.json") &&
              count(".config/Claude", "claude_desktop_config.json") == 1, "left as it was, no backup");
    CHECK(run(&out, "install claude-desktop --print") == 1, "--print refuses it too: %s", out);
    free(out);
    put_fixture("codex-malformed.toml", "codex/config.toml");
    CHECK(run_with(&out, "CODEX_HOME", "codex", "install codex") == 1 && strstr(out, "(line 2, column 11: a string that does not end on its line)"),
          "malformed TOML: %s", out);
    free(out);
    CHECK(holds("codex/config.toml", "codex-malformed.toml"), "left as it was");
    put_fixture("codex-inline.toml", "codex/config.toml");
    CHECK(run_with(&out, "CODEX_HOME", "codex", "install codex") == 1 &&
              strstr(out, "already defines the hyrax server another way (line 3, column 1: [mcp_servers.hyrax] is defined as dotted keys or an inline table"),
          "an inline table for hyrax: %s", out);
    free(out);
    CHECK(run(&out, "install codx") == 2 && strstr(out, "did you mean codex?"), "did you mean: %s", out);
    free(out);
    CHECK(run(&out, "install") == 2 && strstr(out, "--list"), "no client: %s", out);
    free(out);
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "cd / && HOME='%s' \"$HYRAX_BIN\" install cursor 2>&1", dir);
    CHECK(check_run(cmd, &out) == 1 && strstr(out, "no index here or in a folder above") && strstr(out, "--db"),
          "no index found: %s", out);
    free(out);
}

/* === Codex (TOML) === */

static void test_toml(void)
{
    char *out;
    put_fixture("codex-before.toml", "codex/config.toml");
    CHECK(run_with(&out, "CODEX_HOME", "codex", "install codex") == 0, "codex: %s", out);
    free(out);
    CHECK(holds("codex/config.toml", "codex-after.toml"),
          "[mcp_servers.hyrax]'s command and args replaced, its other keys, its sub-table and every other line kept");
    CHECK(count("codex", "config.toml.bak-") == 1, "one backup");
    CHECK(run_with(&out, "CODEX_HOME", "codex", "install codex") == 0 && strstr(out, "nothing to change"),
          "second run: %s", out);
    free(out);
    CHECK(count("codex", "config.toml") == 2, "no second backup");
    put_fixture("codex-append-before.toml", ".codex/config.toml");
    CHECK(run(&out, "install codex") == 0, "codex append: %s", out);
    free(out);
    CHECK(holds(".codex/config.toml", "codex-append-after.toml"), "the table appended after a blank line");
}

/* === --print, --list === */

static void test_print_list(void)
{
    char *out, *want = expected("claude-code-fresh.json");
    CHECK(run(&out, "install claude-code --print 2>/dev/null") == 0 && want && !strcmp(out, want), "--print: %s", out);
    free(out);
    free(want);
    CHECK(run(&out, "install gemini --print") == 0 && strstr(out, "would create"), "--print: %s", out);
    free(out);
    CHECK(count(".", ".gemini") == 0, "--print writes nothing");
    CHECK(run(&out, "install codex --print 2>/dev/null") == 0 && !strncmp(out, "[mcp_servers.hyrax]\ncommand = \"", 31),
          "--print codex: %s", out);
    free(out);
    CHECK(run(&out, "install --list") == 0 && strstr(out, "claude-desktop") && strstr(out, "/.codex/config.toml") &&
              strstr(out, "/.gemini/settings.json"), "--list: %s", out);
    free(out);
    CHECK(run(&out, "completion bash | grep -c 'claude-code cl'") == 0, "bash completion offers the clients: %s", out);
    free(out);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_install_XXXXXX", *out, cmd[2 * PATH_MAX];
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(realpath(getenv("HYRAX_BIN"), exe) != NULL, "HYRAX_BIN resolves");
    setenv("HYRAX_BIN", exe, 1);
    unsetenv("HYRAX_DB");
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("CODEX_HOME");
    char real[PATH_MAX];
    CHECK(mkdtemp(tmpl) && realpath(tmpl, real) && strlen(real) < sizeof dir, "temp folder");
    snprintf(dir, sizeof dir, "%s", real);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/proj/sub' '%s/proj/.hyrax' && : > '%s/proj/.hyrax/index.hyx'", dir, dir, dir);
    CHECK(check_run(cmd, &out) == 0, "the project");
    free(out);
    snprintf(db, sizeof db, "%s/proj/.hyrax/index.hyx", dir);
    test_print_list();
    test_fresh();
    test_merge();
    test_refusals();
    test_toml();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(check_run(cmd, &out) == 0, "cleanup");
    free(out);
    return check_report("test_install");
}
