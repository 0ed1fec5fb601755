/* registry_schema.h: the registry's schema as SQL text (registry_schema.c); what it creates is
 * described at the top of registry.c, which runs it. */
#ifndef HX_REGISTRY_SCHEMA_H
#define HX_REGISTRY_SCHEMA_H
#include "registry.h"

/* Where a migration names the dimension of the vectors: hxi_registry_migrate writes the model's. */
#define HXI_REGISTRY_DIM_MARK "@DIM@"

/* The SQL that takes the schema from version v to v + 1 (0 <= v < HX_REGISTRY_SCHEMA_VERSION;
 * else NULL), HXI_REGISTRY_DIM_MARK where the model's dimension goes. Static. */
const char *hxi_registry_migration(int v);

#endif
