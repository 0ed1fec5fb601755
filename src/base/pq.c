/* pq.c: loads libpq with dlopen and resolves the PQ* functions of pq.h (issue 13). The handle is
 * kept for the life of the process (libpq has no state that needs unloading); nothing else here
 * touches PostgreSQL. */
#include "pq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t pq_lock = PTHREAD_MUTEX_INITIALIZER;
static hxi_pq pq_table;
static int pq_loaded;

/* Each function of hxi_pq by its libpq name and where its pointer goes. */
#define PQ_FN(field, name) {name, offsetof(hxi_pq, field)}
static const struct {
    const char *name;
    size_t offset;
} pq_functions[] = {
    PQ_FN(connect_start_params, "PQconnectStartParams"),
    PQ_FN(connect_poll, "PQconnectPoll"),
    PQ_FN(socket, "PQsocket"),
    PQ_FN(status, "PQstatus"),
    PQ_FN(error_message, "PQerrorMessage"),
    PQ_FN(finish, "PQfinish"),
    PQ_FN(send_query, "PQsendQuery"),
    PQ_FN(send_query_params, "PQsendQueryParams"),
    PQ_FN(consume_input, "PQconsumeInput"),
    PQ_FN(is_busy, "PQisBusy"),
    PQ_FN(get_result, "PQgetResult"),
    PQ_FN(result_status, "PQresultStatus"),
    PQ_FN(result_error_message, "PQresultErrorMessage"),
    PQ_FN(result_error_field, "PQresultErrorField"),
    PQ_FN(clear, "PQclear"),
    PQ_FN(ntuples, "PQntuples"),
    PQ_FN(nfields, "PQnfields"),
    PQ_FN(getvalue, "PQgetvalue"),
    PQ_FN(getisnull, "PQgetisnull"),
    PQ_FN(getlength, "PQgetlength"),
};

int hxi_pq_load(const hxi_pq **out, hx_error *err)
{
    int rc = 0;
    pthread_mutex_lock(&pq_lock);
    if (!pq_loaded) {
        const char *lib = getenv(HX_PQ_ENV);
        if (!lib || !*lib)
            lib = HX_PQ_LIBRARY;
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *why = dlerror();
            rc = hx_error_set(err, HX_ENOTFOUND, -1,
                              "the registry needs libpq (PostgreSQL's client library, Debian package libpq5) and "
                              "%s cannot be loaded: %s (set " HX_PQ_ENV " to its path)",
                              lib, why ? why : "unknown reason");
            goto out;
        }
        hxi_pq t;
        for (size_t i = 0; i < sizeof pq_functions / sizeof pq_functions[0]; i++) {
            void *f = dlsym(h, pq_functions[i].name);
            if (!f) {
                dlclose(h);
                rc = hx_error_set(err, HX_ENOTFOUND, -1, "%s has no function %s: not a libpq of version 10 or later",
                                  lib, pq_functions[i].name);
                goto out;
            }
            /* POSIX guarantees a data pointer from dlsym converts to a function pointer */
            memcpy((char *)&t + pq_functions[i].offset, &f, sizeof f);
        }
        pq_table = t;
        pq_loaded = 1;
    }
    *out = &pq_table;
out:
    pthread_mutex_unlock(&pq_lock);
    return rc;
}
