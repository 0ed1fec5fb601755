/* main.c: the hyrax command line (DESIGN.md "Command line"). The only file that prints to
 * stdout, calls exit() or installs signal handlers; each command parses its flags and calls the
 * library. */
#include "hyrax.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: hyrax COMMAND [OPTIONS]\n"
    "\n"
    "  tokenize            stdin lines -> one JSON array of token ids per line\n"
    "  embed               stdin lines -> one JSON array of 384 floats per line\n"
    "\n"
    "Run 'hyrax COMMAND --help' for the options of a command.\n";

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    fprintf(stderr, "hyrax: unknown command '%s'\n%s", argv[1], usage);
    return 2;
}
