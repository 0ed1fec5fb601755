/* cmd_registry.c: `hyrax registry init`, the registry's schema created or migrated (`hyrax help
 * registry`): its help text and run function. */
#include "cli.h"

#include <string.h>

const char registry_about[] =
    "Creates the registry's schema in a PostgreSQL database with pgvector (schema hyrax: tables\n"
    "documents, chunks, audit, meta; HNSW and GIN indexes; row-level security per tenant), or\n"
    "migrates an older one. Run it once as the role that is to own the tables. The registry holds\n"
    "the vectors of one model, the one init is run with (--model; default all-MiniLM-L6-v2): its\n"
    "chunks' column is vector(N), N that model's dimension, and publishing or searching with\n"
    "another model is refused naming it. A registry made before models were recorded takes the\n"
    "model init names when its dimension matches, or when it holds no chunk yet.\n";

int cmd_registry(const cli_args *a)
{
    if (strcmp(a->operands[0], "init")) {
        fputs("hyrax registry: the action is init\n", stderr);
        return 2;
    }
    hx_session *s = NULL;
    hx_error err = {0};
    int before = 0;
    if (registry_session(a, NULL, NULL, &s, &err) || hx_session_registry_init(s, &before, &err)) {
        put_line(stderr, "hyrax registry init: ", err.message);
        hx_session_close(s);
        return 1;
    }
    hx_session_close(s);
    if (before == HX_REGISTRY_SCHEMA_VERSION)
        printf("registry schema is at version %d\n", before);
    else
        printf("registry schema %s version %d (was %d)\n", before ? "migrated to" : "created at",
               HX_REGISTRY_SCHEMA_VERSION, before);
    return 0;
}
