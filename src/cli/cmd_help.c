/* cmd_help.c: `hyrax help [COMMAND|TOPIC]`, `hyrax version` and the command list of `hyrax --help`,
 * made from the command table (main.c), the option table (options.c) and the help topics (help.c,
 * from src/cli/help/NAME.md). */
#include "cli.h"

#include <string.h>

/* === The command list === */

void cli_usage(FILE *f)
{
    size_t n;
    const cli_cmd *c = cli_commands(&n);
    fputs("usage: hyrax COMMAND [OPTIONS]\n\n", f);
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s %s", c[i].name, c[i].operands[0] == '<' ? "" : c[i].operands);
        fprintf(f, "  %-18s  %s\n", name, c[i].summary);
    }
    fputs("\nTopics of the manual ('hyrax help TOPIC'; as man pages: hyrax(1), hyrax-TOPIC(1)):\n", f);
    for (size_t i = 0; i < help_n_topics; i++)
        fprintf(f, "  %-18s  %s\n", help_topics[i].name, help_topics[i].summary);
    fputs("\nRun 'hyrax help COMMAND' or 'hyrax COMMAND --help' for the options of a command; -- ends\n"
          "the options. Without --db, the index is $" HX_DB_ENV ", else " DEFAULT_DB " in the current folder\n"
          "or the nearest folder above it. 'hyrax --version' prints the version.\n", f);
}

/* === help === */

const char help_about[] =
    "Without an operand: the commands and the topics of the manual. With COMMAND: its synopsis, what\n"
    "it does and its options, as 'hyrax COMMAND --help' prints them, then the topic of that name if\n"
    "there is one. With TOPIC: that topic ('hyrax help cli': how every command behaves). --man prints\n"
    "the same as a man page (what 'make install' installs under share/man/man1).\n";

/* "no command or topic 'x'" with the nearest of both, on stderr; exit status 2. */
static int unknown(const char *what)
{
    size_t n;
    const cli_cmd *all = cli_commands(&n);
    const char *names[128];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 128; i++)
        names[k++] = all[i].name;
    for (size_t i = 0; i < help_n_topics && k < 128; i++)
        names[k++] = help_topics[i].name;
    const char *near = suggest(what, names, k);
    fputs("hyrax help: no command or topic '", stderr);
    put_text(stderr, what, 200, false);
    if (near)
        fprintf(stderr, "' (did you mean '%s'?)\n", near);
    else
        fputs("'; 'hyrax help' lists them\n", stderr);
    return 2;
}

int cmd_help(const cli_args *a)
{
    const char *name = a->n_operands ? a->operands[0] : NULL;
    term_setup(a);
    if (opt_str(a, "--man")) {
        const help_topic *t = help_topic_find(name);
        if (!t && name && cli_command(name)) {
            fprintf(stderr, "hyrax help: the command '%s' has no topic of its own; hyrax(1) ('hyrax help --man') "
                            "holds its options\n", name);
            return 2;
        }
        if (!t)
            return unknown(name);
        help_put_man(stdout, t);
        return 0;
    }
    if (!name) {
        cli_usage(stdout);
        return 0;
    }
    const cli_cmd *c = cli_command(name);
    const help_topic *t = help_topic_find(name);
    if (!c && !t)
        return unknown(name);
    if (c)
        cli_cmd_help(c, stdout);
    if (c && t)
        fputc('\n', stdout);
    if (t)
        help_put_text(stdout, t);
    return 0;
}

/* === version === */

const char version_about[] = "Prints the version of hyrax (the library's, hx_version), as 'hyrax --version' does.\n";

int cmd_version(const cli_args *a)
{
    (void)a;
    printf("hyrax %s\n", hx_version());
    return 0;
}
