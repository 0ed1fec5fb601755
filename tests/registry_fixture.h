/* registry_fixture.h: the registry tests' fixture: a throwaway PostgreSQL + pgvector cluster under
 * build/ made by tests/pg_cluster.sh (it says where PostgreSQL comes from), its connection URL,
 * psql and socket folder, shell commands with their output, and plain SQL as a role. Without a
 * cluster a test prints why and passes, except under CI=true, where that is a failure. Shared by
 * test_registry.c and test_registry_tenants.c, one cluster per test binary. */
#ifndef HX_REGISTRY_FIXTURE_H
#define HX_REGISTRY_FIXTURE_H

#include "check.h"
#include "hyrax.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char url[512], psql[PATH_MAX], dir[256], sockdir[256];
static hx_model_info mini;   /* all-MiniLM-L6-v2, the default model (hx_model_catalog) */

/* Runs a shell command made from fmt; output (stdout and stderr together) into *out. */
static inline int sh(char **out, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd - 16, fmt, ap);
    va_end(ap);
    CHECK(n > 0 && (size_t)n < sizeof cmd - 16, "command fits");
    char full[8192 + 16];
    snprintf(full, sizeof full, "{ %s; } 2>&1", cmd);
    return check_run(full, out);
}

/* One value from plain SQL as `user` (NULL: the superuser hyrax), trimmed; caller frees. */
static inline char *sql_as(const char *user, const char *sql)
{
    char *out;
    sh(&out, "'%s' -X -Atq 'postgresql://%s@/postgres?host=%s' -c \"%s\"", psql, user ? user : "hyrax", sockdir, sql);
    out[strcspn(out, "\n")] = 0;
    return out;
}

static inline int sql_is(const char *user, const char *sql, const char *want)
{
    char *got = sql_as(user, sql);
    int ok = !strcmp(got, want);
    if (!ok)
        fprintf(stderr, "  %s -> '%s', want '%s'\n", sql, got, want);
    free(got);
    return ok;
}

/* Starts a cluster in build/NAME.PID and fills url, psql, sockdir, dir and mini; HYRAX_LIBPQ names
 * the cluster's own libpq (the machine may have none) and HYRAX_BIN becomes absolute. 0, or the
 * exit status main() returns when there is no cluster (it said why). */
static inline int registry_cluster_start(const char *name, int *skip)
{
    char *out;
    *skip = 0;
    snprintf(dir, sizeof dir, "build/%s.%d", name, (int)getpid());
    int rc = sh(&out, "sh tests/pg_cluster.sh start %s", dir);
    if (rc != 0) {
        int ci = getenv("CI") && !strcmp(getenv("CI"), "true");
        printf("test_%s: %s: %s", name, ci ? "FAILED (CI=true needs PostgreSQL)" : "SKIPPED", out);
        free(out);
        *skip = 1;
        return ci ? 1 : 0;
    }
    char lib[PATH_MAX] = "", bin[PATH_MAX - 16], path[PATH_MAX + 32];
    sscanf(out, "%511s %4095s", url, lib);
    free(out);
    snprintf(path, sizeof path, "%s/bin", dir);
    char *b = check_read_file(path, &(size_t){0});
    snprintf(bin, sizeof bin, "%.*s", b ? (int)strcspn(b, "\n") : 0, b ? b : "");
    free(b);
    snprintf(psql, sizeof psql, "%s/psql", bin);
    snprintf(sockdir, sizeof sockdir, "%s", strstr(url, "host=") ? strstr(url, "host=") + 5 : "");
    setenv("HYRAX_LIBPQ", lib, 1);   /* the cluster's own libpq: the machine may have none */
    char abs[PATH_MAX];
    CHECK(realpath(getenv("HYRAX_BIN"), abs) != NULL, "HYRAX_BIN resolves");
    setenv("HYRAX_BIN", abs, 1);
    hx_model_catalog(0, &mini);
    return 0;
}

/* Stops the cluster and removes its folder. */
static inline void registry_cluster_stop(void)
{
    char *out;
    sh(&out, "sh tests/pg_cluster.sh stop %s", dir);
    free(out);
}

#endif
