/* test_cli_ux.c: the command line's habits, by running $HYRAX_BIN (./hyrax): version and help,
 * completion scripts made from the option table (checked by bash -n, zsh -n and fish -n where
 * installed, and by running bash's against every command's --help), the index found upward and
 * made at the indexed folder (the README's `cd /tmp && hyrax index ~/notes && hyrax serve --db
 * ~/notes/.hyrax/index.hyx`, run as written), `hyrax index` without PATH, -k2 / -k=2, colour
 * and markers, also lines by line, singular and plural, "did you mean", ls, show, stats, and
 * commands that find nothing exiting 1. */
#include "check.h"
#include "hyrax.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[PATH_MAX];   /* the temp folder: HOME, with notes/ in it */

/* Runs the printf-formatted shell command; its stdout (stderr too when it ends in 2>&1) in *out
 * (caller frees), the exit status returned. */
static int run(char **out, const char *fmt, ...)
{
    char cmd[4 * PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return check_run(cmd, out);
}

/* Whether a program is on $PATH. */
static bool have(const char *prog)
{
    char *out;
    int rc = run(&out, "command -v %s >/dev/null 2>&1", prog);
    free(out);
    return rc == 0;
}

/* === version, help === */

static void test_version_help(void)
{
    char want[64], *out;
    snprintf(want, sizeof want, "hyrax %s\n", hx_version());
    CHECK(run(&out, "\"$HYRAX_BIN\" version") == 0 && !strcmp(out, want), "version: %s", out);
    free(out);
    CHECK(run(&out, "\"$HYRAX_BIN\" --version") == 0 && !strcmp(out, want), "--version: %s", out);
    free(out);
    char *help, *cmd_help;
    CHECK(run(&help, "\"$HYRAX_BIN\" help") == 0 && strstr(help, "  search QUERY...") && strstr(help, "  ls [GLOB]") &&
              strstr(help, "  completion SHELL"), "help lists the commands: %s", help);
    free(help);
    CHECK(run(&help, "\"$HYRAX_BIN\" help search") == 0 && run(&cmd_help, "\"$HYRAX_BIN\" search --help") == 0 &&
              !strncmp(help, cmd_help, strlen(cmd_help)) && strstr(help, "usage: hyrax search") &&
              strstr(help + strlen(cmd_help), "\nhyrax help search: "),
          "help search is search --help, then the topic search: %s", help);
    free(help);
    free(cmd_help);
    CHECK(run(&out, "\"$HYRAX_BIN\" help serch 2>&1") == 2 && strstr(out, "did you mean 'search'"), "help serch: %s", out);
    free(out);
}

/* === completion === */

/* The option names `hyrax CMD --help` lists ("-k", "--top-k", ...), space-separated and sorted by
 * the shell, and the same words completed by the bash script for "hyrax CMD -". */
static void test_completion(void)
{
    char *out, *cmds;
    CHECK(run(&out, "\"$HYRAX_BIN\" completion bash | bash -n 2>&1") == 0 && !*out, "bash -n: %s", out);
    free(out);
    if (have("zsh")) {
        CHECK(run(&out, "\"$HYRAX_BIN\" completion zsh > %s/_hyrax && zsh -n %s/_hyrax 2>&1", dir, dir) == 0 && !*out,
              "zsh -n: %s", out);
        free(out);
        CHECK(run(&out, "cd %s && zsh -fc 'autoload -Uz compinit && compinit -u -d zcd && source ./_hyrax && "
                        "echo ${_comps[hyrax]}' 2>&1", dir) == 0 && !strcmp(out, "_hyrax\n"),
              "zsh: compdef _hyrax hyrax when sourced: %s", out);
        free(out);
    }
    if (have("fish")) {
        CHECK(run(&out, "\"$HYRAX_BIN\" completion fish | fish -n 2>&1") == 0 && !*out, "fish -n: %s", out);
        free(out);
        CHECK(run(&out, "\"$HYRAX_BIN\" completion fish > %s/h.fish && fish -c 'source %s/h.fish; "
                        "complete -C \"hyrax search --top\"; complete -C \"hyrax se\"' 2>&1", dir, dir) == 0 &&
                  !strncmp(out, "--top-k\t", 8) && strstr(out, "\nsearch\t") && strstr(out, "\nserve\t"),
              "fish completes options and commands: %s", out);
        free(out);
    }
    CHECK(run(&out, "\"$HYRAX_BIN\" completion tcsh 2>&1") == 2 && strstr(out, "bash, zsh or fish"), "tcsh: %s", out);
    free(out);
    /* every command of `hyrax help` is completed after "hyrax " */
    CHECK(run(&cmds, "\"$HYRAX_BIN\" help | sed -n '/^Topics/q; s/^  \\([a-z]*\\) .*/\\1/p' | sort | tr '\\n' ' '") == 0 &&
              strstr(cmds, "search ") && strstr(cmds, "version "), "commands: %s", cmds);
    CHECK(run(&out, "bash -c 'source <(\"$HYRAX_BIN\" completion bash); COMP_WORDS=(hyrax \"\"); COMP_CWORD=1; "
                    "_hyrax; printf \"%%s\\n\" \"${COMPREPLY[@]}\" | grep -v \"^-\" | sort | tr \"\\n\" \" \"'") == 0 &&
              !strcmp(out, cmds), "bash completes the commands: '%s' vs '%s'", out, cmds);
    free(out);
    /* each command's options: those its --help lists, no more, no fewer */
    for (char *c = cmds, *sp; (sp = strchr(c, ' ')); c = sp + 1) {
        *sp = 0;
        char *want, *got;
        run(&want, "\"$HYRAX_BIN\" %s --help | grep -o '^  \\(-[a-z], \\)\\?--[a-z0-9-]*' | tr -d ',' | tr ' ' '\\n' | "
                   "grep . | sort | tr '\\n' ' '", c);
        run(&got, "bash -c 'source <(\"$HYRAX_BIN\" completion bash); COMP_WORDS=(hyrax %s -); COMP_CWORD=2; _hyrax; "
                  "printf \"%%s\\n\" \"${COMPREPLY[@]}\" | sort | tr \"\\n\" \" \"'", c);
        CHECK(*want && !strcmp(want, got), "%s: bash completes '%s', --help lists '%s'", c, got, want);
        free(want);
        free(got);
    }
    free(cmds);
    CHECK(run(&out, "bash -c 'source <(\"$HYRAX_BIN\" completion bash); COMP_WORDS=(hyrax search --mode \"\"); "
                    "COMP_CWORD=3; _hyrax; echo \"${COMPREPLY[@]}\"'") == 0 && !strncmp(out, "hybrid ", 7) &&
              strstr(out, " vector") && strstr(out, " keyword"),
          "the values of --mode: %s", out);
    free(out);
}

/* === Where the index lives === */

/* The README's example as written, from /tmp with HOME = dir; then the index found from a
 * sub-folder, $HYRAX_DB and --db winning, `hyrax index` without PATH. */
static void test_discovery(void)
{
    char *out, hx[PATH_MAX + 32];
    struct stat st;
    check_put(dir, "notes/zebra.md", "---\nstatus: implemented\n---\n# Zebra\n\nThe zebra herd runs across the plain.\n\n"
                                     "## Stripes\n\nEvery zebra has its own stripes.\n\n## Lions\n\nLions hunt the zebra "
                                     "at the water hole.\n");
    check_put(dir, "notes/sub/quokka.md", "# Quokka\n\nThe quokka smiles at the camera.\n");
    CHECK(run(&out, "cd /tmp && HOME='%s' sh -c '\"$HYRAX_BIN\" index ~/notes' 2>&1", dir) == 0 &&
              strstr(out, "/notes/.hyrax/index.hyx: 2 documents, "), "index ~/notes from /tmp says where: %s", out);
    free(out);
    snprintf(hx, sizeof hx, "%s/notes/.hyrax/index.hyx", dir);
    CHECK(stat(hx, &st) == 0 && stat("/tmp/.hyrax", &st) != 0, "the index is at ~/notes/.hyrax, not /tmp/.hyrax");
    const char *mcp =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
        "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":"
        "{\"query\":\"quokka\",\"mode\":\"keyword\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"record_turn\",\"arguments\":"
        "{\"session_id\":\"chat-1\",\"user_message\":\"where?\",\"agent_response\":\"there\"}}}\n";
    char reqs[PATH_MAX + 16];
    snprintf(reqs, sizeof reqs, "%s/reqs.jsonl", dir);
    FILE *f = fopen(reqs, "w");
    CHECK(f && fputs(mcp, f) >= 0 && fclose(f) == 0, "requests written");
    CHECK(run(&out, "cd /tmp && HOME='%s' sh -c '\"$HYRAX_BIN\" serve --tools core,record_turn --db ~/notes/.hyrax/index.hyx' < %s 2>/dev/null",
              dir, reqs) == 0 && strstr(out, "sub/quokka.md") && !strstr(out, "there is no index"),
          "serve --db ~/notes/.hyrax/index.hyx answers from it: %.600s", out);
    free(out);
    CHECK(run(&out, "cd /tmp && HOME='%s' sh -c 'HYRAX_DB= \"$HYRAX_BIN\" serve --read-only --root ~/notes' < %s 2>/dev/null",
              dir, reqs) == 0 && strstr(out, "sub/quokka.md") && !strstr(out, "there is no index"),
          "serve --root ~/notes (no --db) answers from ~/notes/.hyrax/index.hyx: %.600s", out);
    free(out);
    CHECK(stat("/tmp/.hyrax", &st) != 0, "serve --root made no /tmp/.hyrax");

    CHECK(run(&out, "cd %s/notes/sub && \"$HYRAX_BIN\" search --mode keyword quokka", dir) == 0 &&
              strstr(out, "1. sub/quokka.md:"), "search from a sub-folder finds the index above: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes/sub && \"$HYRAX_BIN\" history", dir) == 0 && strstr(out, "chat-1  1 turn,"),
          "history: '1 turn': %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes/sub && \"$HYRAX_BIN\" history nosuch 2>&1", dir) == 1 && strstr(out, "no session 'nosuch'"),
          "history of an unknown session: %s", out);
    free(out);
    CHECK(run(&out, "cd /tmp && HYRAX_DB=%s \"$HYRAX_BIN\" stats", hx) == 0 && strstr(out, "documents   2"),
          "$HYRAX_DB names the index: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && HYRAX_DB=%s/nowhere.hyx \"$HYRAX_BIN\" stats 2>&1", dir, dir) == 1 &&
              strstr(out, "nowhere.hyx"), "$HYRAX_DB wins over the index found: %s", out);
    free(out);
    CHECK(run(&out, "cd /tmp && HYRAX_DB=%s/nowhere.hyx \"$HYRAX_BIN\" stats --db %s", dir, hx) == 0 &&
              strstr(out, "documents   2"), "--db wins over $HYRAX_DB: %s", out);
    free(out);

    check_put(dir, "notes/sub/quokka.md", "# Quokka\n\nThe quokka smiles at the camera, twice.\n");
    CHECK(run(&out, "cd %s/notes/sub && \"$HYRAX_BIN\" index 2>&1", dir) == 0 && strstr(out, "updated 1, unchanged 1"),
          "index without PATH re-indexes the recorded root: %s", out);
    free(out);
    CHECK(run(&out, "cd %s && \"$HYRAX_BIN\" index 2>&1", dir) == 1 && strstr(out, "give the PATH"),
          "index without PATH and no index: %s", out);
    free(out);
}

/* === Output === */

static void test_output(void)
{
    char *out;
    const char *at = "cd %s/notes && \"$HYRAX_BIN\" ";
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%ssearch --mode keyword --min-score 0 %%s zebra", at);
    for (int form = 0; form < 3; form++) {
        static const char *const k[] = {"-k1", "-k=1", "--top-k=1"};
        char c2[512];
        snprintf(c2, sizeof c2, cmd, dir, k[form]);
        CHECK(check_run(c2, &out) == 0 && strstr(out, "1. zebra.md:") && strstr(out, "\n1 result in "), "%s: %s",
              k[form], out);
        free(out);
    }
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" search --mode keyword -k 2>&1", dir) == 2, "-k alone: %s", out);
    free(out);
    /* piped: no markers, no escapes; --color=always: bold matches and a coloured path */
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" search --mode keyword zebra", dir) == 0 && strstr(out, "zebra") &&
              !strstr(out, "**") && !strchr(out, '\033'), "piped: plain text: %s", out);
    /* also lines by line number */
    const char *also = strstr(out, "also lines ");
    unsigned prev = 0, a, b;
    int n = 0, len;
    for (const char *p = also ? also + 11 : ""; sscanf(p, "%u-%u%n", &a, &b, &len) == 2; p += len + (p[len] == ',' ? 2 : 0)) {
        CHECK(a > prev, "also lines ascend: %s", also);
        prev = a;
        n++;
    }
    CHECK(n >= 1, "also lines: %s", out);
    free(out);
    /* chunks cut from one long line share its range: listed once, never the answer's own */
    enum { ONE_CAP = 40000 };   /* 600 sentences of at most 36 bytes, the heading, the newline */
    char *one = malloc(ONE_CAP);
    size_t used = (size_t)snprintf(one, ONE_CAP, "# Wombats\n\n");
    for (int i = 0; i < 600; i++)
        used += (size_t)snprintf(one + used, ONE_CAP - used, "The wombat digs burrow number %d. ", i);
    one[used++] = '\n';
    one[used] = 0;
    check_put(dir, "long/one.md", one);
    free(one);
    unsigned s0 = 0, e0 = 0;
    CHECK(run(&out, "cd %s/long && \"$HYRAX_BIN\" index . >/dev/null 2>&1 && \"$HYRAX_BIN\" search --mode keyword -k 1 wombat",
              dir) == 0 && sscanf(out, "1. one.md:%u-%u", &s0, &e0) == 2, "one long line: %s", out);
    also = strstr(out, "also lines ");
    n = 0;
    unsigned pa = 0, pb = 0;
    for (const char *p = also ? also + 11 : ""; sscanf(p, "%u-%u%n", &a, &b, &len) == 2; p += len + (p[len] == ',' ? 2 : 0)) {
        CHECK(!(a == s0 && b == e0) && !(a == pa && b == pb), "each range once, not the answer's own: %s", out);
        pa = a;
        pb = b;
        n++;
    }
    CHECK(n >= 1, "the long line's other chunks are listed: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && NO_COLOR=1 \"$HYRAX_BIN\" search --mode keyword --color=always zebra", dir) == 0 &&
              strstr(out, "\033[1;31mzebra\033[0m") && strstr(out, "\033[1;35mzebra.md\033[0m") && !strstr(out, "**"),
          "--color=always: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" search --mode keyword --color=sometimes zebra 2>&1", dir) == 2 &&
              strstr(out, "auto, always or never"), "--color=sometimes: %s", out);
    free(out);
    if (have("script")) {   /* a terminal 40 columns wide: colour and lines wrapped to it */
        CHECK(run(&out, "cd %s/notes && COLUMNS=40 script -qec 'stty cols 40; \"$HYRAX_BIN\" search --mode keyword "
                        "zebra lions' /dev/null", dir) == 0 && strstr(out, "\033[1;31m"), "a terminal: colour: %s", out);
        for (char *line = out, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
            int cols = 0;
            for (char *p = line; p < nl; p++)
                if (*p == '\033')
                    p = strchr(p, 'm');
                else
                    cols += (*p & 0xC0) != 0x80 && *p != '\r';
            CHECK(cols <= 40 || strstr(line, "score"), "wrapped to 40 columns: %.*s", (int)(nl - line), line);
        }
        free(out);
        CHECK(run(&out, "cd %s/notes && NO_COLOR=1 script -qec '\"$HYRAX_BIN\" search --mode keyword zebra' /dev/null",
                  dir) == 0 && !strchr(out, '\033') && !strstr(out, "**"), "NO_COLOR on a terminal: %s", out);
        free(out);
    }
}

/* === "Did you mean" === */

static void test_suggestions(void)
{
    char *out;
    CHECK(run(&out, "\"$HYRAX_BIN\" serch zebra 2>&1") == 2 && strstr(out, "unknown command 'serch'") &&
              strstr(out, "\tsearch\n"), "a misspelt command: %s", out);
    free(out);
    CHECK(run(&out, "\"$HYRAX_BIN\" xyzzy 2>&1") == 2 && strstr(out, "usage: hyrax"), "no command near: %s", out);
    free(out);
    CHECK(run(&out, "\"$HYRAX_BIN\" search --top-kk 3 zebra 2>&1") == 2 && strstr(out, "did you mean --top-k?"),
          "a misspelt option: %s", out);
    free(out);
    CHECK(run(&out, "\"$HYRAX_BIN\" search --mdoe=keyword zebra 2>&1") == 2 && strstr(out, "did you mean --mode?"),
          "a misspelt option with =: %s", out);
    free(out);
    CHECK(run(&out, "\"$HYRAX_BIN\" search --mode keywrod zebra 2>&1") == 2 && strstr(out, "(did you mean keyword?)"),
          "a misspelt value: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" search --filter stauts=implemented zebra 2>&1", dir) == 1 &&
              strstr(out, "no document has the key 'stauts' (did you mean 'status'?)"), "a misspelt filter key: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" search --mode keyword --filter status=implemented zebra", dir) == 0 &&
              strstr(out, "1. zebra.md:"), "the key spelt right: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" search --mode keyword --filter status=draft zebra 2>&1", dir) == 0 &&
              strstr(out, "0 results") && !strstr(out, "no document has"), "a known key, no match: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" search --mode keyword --filter ext=md zebra", dir) == 0 &&
              strstr(out, "1. zebra.md:"), "a derived key: %s", out);
    free(out);
}

/* === ls, show, stats, rm === */

static void test_documents(void)
{
    char *out;
    CHECK(run(&out, "cd %s/notes/sub && \"$HYRAX_BIN\" ls", dir) == 0 && !strcmp(out, "sub/quokka.md\nzebra.md\n"),
          "ls: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" ls 'sub/*'", dir) == 0 && !strcmp(out, "sub/quokka.md\n"), "ls GLOB: %s",
          out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" ls -l 'sub/*'", dir) == 0 && strstr(out, "1 chunk ") &&
              strstr(out, "sub/quokka.md  Quokka\n"), "ls -l: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" ls 'nope*' 2>&1", dir) == 1 && strstr(out, "no document matches 'nope*'"),
          "ls of nothing: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" show zebra.md", dir) == 0 && strstr(out, "title       Zebra\n") &&
              strstr(out, "metadata    status: implemented\n") && strstr(out, "citation    zebra.md:") &&
              strstr(out, "chunks      ") && strstr(out, "Zebra > Stripes"), "show: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" show --text sub/quokka.md", dir) == 0 && strstr(out, "    The quokka smiles"),
          "show --text: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" show nosuch.md 2>&1", dir) == 1 && strstr(out, "nosuch.md"),
          "show of nothing: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" stats", dir) == 0 && strstr(out, "model       all-MiniLM-L6-v2") &&
              strstr(out, "fp32 vectors") && strstr(out, "file size"), "stats: model, precision, size: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" stats --json", dir) == 0 && strstr(out, "\"precision\":\"fp32\""),
          "stats --json: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" rm sub/quokka.md", dir) == 0 && strstr(out, "removed 1 document (1 chunk)"),
          "rm: singular: %s", out);
    free(out);
    CHECK(run(&out, "cd %s/notes && \"$HYRAX_BIN\" rm sub 2>&1", dir) == 1 && strstr(out, "no document named sub"),
          "rm of nothing: %s", out);
    free(out);
}

/* === tokenize === */

/* `hyrax tokenize` cuts a long line at the model's longest input: 256 ids for the default model,
 * 12 for the tiny MPNet (fuzz/corpus/weights), 384 for all-mpnet-base-v2 when it is installed. */
static void test_tokenize(void)
{
    static const struct {
        const char *model;
        int ids;
    } cases[] = {{NULL, 256}, {"fuzz/corpus/weights/tiny_mpnet.hxw", 12}, {"weights/all-mpnet-base-v2.hxw", 384}};
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "cwd");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out, model[PATH_MAX + 64] = "";
        if (cases[i].model) {
            snprintf(model, sizeof model, "%s/%s", cwd, cases[i].model);
            if (access(model, R_OK) != 0) {
                printf("SKIP: tokenize with %s: absent\n", cases[i].model);
                continue;
            }
        }
        CHECK(run(&out, "yes 'the hyrax search engine' | head -n 500 | tr '\\n' ' ' | \"$HYRAX_BIN\" tokenize %s%s | "
                        "tr ',' '\\n' | wc -l", *model ? "--model " : "", model) == 0 && atoi(out) == cases[i].ids,
              "tokenize %s: %d ids, want %d", *model ? model : "(default)", atoi(out), cases[i].ids);
        free(out);
    }
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_cli_ux_XXXXXX", *out;
    setenv("HYRAX_BIN", "./hyrax", 0);   /* make test sets it; sanitizer builds have their own */
    char bin[PATH_MAX];                   /* the commands run in other folders */
    CHECK(realpath(getenv("HYRAX_BIN"), bin) != NULL, "HYRAX_BIN resolves");
    setenv("HYRAX_BIN", bin, 1);
    unsetenv("HYRAX_DB");
    CHECK(mkdtemp(tmpl) && realpath(tmpl, dir), "temp folder");
    test_version_help();
    test_completion();
    test_discovery();
    test_output();
    test_suggestions();
    test_documents();
    test_tokenize();
    CHECK(run(&out, "rm -rf '%s'", dir) == 0, "cleanup");
    free(out);
    return check_report("test_cli_ux");
}
