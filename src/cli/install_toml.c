/* install_toml.c: the TOML form of `hyrax install` (Codex's config.toml): the [mcp_servers.hyrax]
 * table's command and args, written as TOML, and set in the file's text by hxi_toml_set_table
 * (src/text/toml.h), every other line left byte for byte; its refusals in the command's words.
 * Spec: `hyrax help mcp`, "Plugging into a client". */
#include "cli.h"
#include "json.h"
#include "toml.h"

#include <stdlib.h>
#include <string.h>

#define TABLE "mcp_servers.hyrax"

/* The table's keys for the command line argv[0..n): command and args, each string a TOML basic
 * string (the JSON writer's escapes are TOML's too: \" \\ \b \t \n \f \r \uXXXX). */
static void put_keys(FILE *f, const char *const *argv, size_t n)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    fputs("command = ", f);
    for (size_t i = 0; i < n; i++) {
        hxi_json_writer_reset(&w);
        hxi_json_write_cstr(&w, argv[i]);
        fprintf(f, "%s%s", i == 1 ? "\nargs = [" : i > 1 ? ", " : "", w.buf);
    }
    fputs(n > 1 ? "]\n" : "\nargs = []\n", f);
    hxi_json_writer_free(&w);
}

void install_toml_table(FILE *f, const char *const *argv, size_t n)
{
    fputs("[" TABLE "]\n", f);
    put_keys(f, argv, n);
}

int install_toml_merge(const char *path, const char *old, size_t len, const char *const *argv, size_t argc, char **out,
                       size_t *out_len)
{
    static const char *const replaced[] = {"command", "args", NULL};
    char *keys = NULL, where[64];
    size_t keys_len = 0;
    FILE *f = open_memstream(&keys, &keys_len);
    if (f)
        put_keys(f, argv, argc);
    if (!f || fclose(f)) {
        fputs("hyrax install: out of memory\n", stderr);
        return 1;
    }
    hx_error err = {0};
    int rc = hxi_toml_set_table(old, len, TABLE, replaced, keys, out, out_len, &err);
    free(keys);
    if (!rc)
        return 0;
    text_position(old, len, err.offset < 0 ? 0 : (size_t)err.offset, where, sizeof where);
    if (rc == HX_EPARSE)
        fprintf(stderr, "hyrax install: %s is not TOML hyrax can edit (%s: %s); nothing was written: fix it and run "
                        "this again\n", path, where, err.message);
    else if (rc == HX_EFORMAT)
        fprintf(stderr, "hyrax install: %s already defines the hyrax server another way (%s: %s); nothing was "
                        "written: remove that, or edit it by hand\n", path, where, err.message);
    else
        fprintf(stderr, "hyrax install: %s\n", err.message);
    return 1;
}
