/* cmd_models.c: `hyrax models`, the models hyrax knows by name and where each is installed: its help
 * text and run function (the catalog is include/hyrax.h's hx_model_catalog). */
#include "cli.h"

/* === models === */

const char models_about[] =
    "Lists the models hyrax knows, for --model NAME: the name, dimension, what it is for and the\n"
    "weights file found for it ('built in' for the models linked into a static binary: the default,\n"
    "and mpnet with 'make static MODEL=mpnet'; '-' when not installed: 'make mpnet' fetches\n"
    "all-mpnet-base-v2). An index, a registry and conversation memory remember their model: use\n"
    "them with the same --model.\n";

int cmd_models(const cli_args *a)
{
    (void)a;
    for (size_t i = 0; i < hx_model_catalog_size(); i++) {
        hx_model_info info;
        if (hx_model_catalog(i, &info))
            continue;
        printf("%-7s %-18s %4d  %s\n        %s\n", info.alias, info.name, info.dim,
               info.built_in ? "built in" : info.path[0] ? info.path : "-", info.about);
    }
    if (fflush(stdout)) {
        fputs("hyrax models: writing stdout failed\n", stderr);
        return 1;
    }
    return 0;
}
