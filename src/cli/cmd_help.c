/* cmd_help.c: `hyrax help [COMMAND]`, `hyrax version` and the command list of `hyrax --help`,
 * made from the command table (main.c) and the option table (options.c): their help texts and
 * run functions. */
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
    fputs("\nRun 'hyrax help COMMAND' or 'hyrax COMMAND --help' for the options of a command; -- ends\n"
          "the options. Without --db, the index is $" HX_DB_ENV ", else " DEFAULT_DB " in the current folder\n"
          "or the nearest folder above it. 'hyrax --version' prints the version.\n", f);
}

/* === help === */

const char help_about[] =
    "Without COMMAND: the commands and what each does. With COMMAND: its synopsis, what it does and\n"
    "its options, as 'hyrax COMMAND --help' prints them.\n";

int cmd_help(const cli_args *a)
{
    if (!a->n_operands) {
        cli_usage(stdout);
        return 0;
    }
    const cli_cmd *c = cli_command(a->operands[0]);
    if (c) {
        cli_cmd_help(c, stdout);
        return 0;
    }
    size_t n;
    const cli_cmd *all = cli_commands(&n);
    const char *names[64];
    for (size_t i = 0; i < n && i < 64; i++)
        names[i] = all[i].name;
    const char *near = suggest(a->operands[0], names, n < 64 ? n : 64);
    fputs("hyrax help: no command '", stderr);
    put_text(stderr, a->operands[0], 200, false);
    if (near)
        fprintf(stderr, "' (did you mean '%s'?)\n", near);
    else
        fputs("'; 'hyrax help' lists them\n", stderr);
    return 2;
}

/* === version === */

const char version_about[] = "Prints the version of hyrax (the library's, hx_version), as 'hyrax --version' does.\n";

int cmd_version(const cli_args *a)
{
    (void)a;
    printf("hyrax %s\n", hx_version());
    return 0;
}
