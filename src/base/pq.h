/* pq.h: libpq (PostgreSQL's client library) loaded at run time with dlopen, so the hyrax binary
 * depends on libc and pthreads only and needs libpq only once a registry is named (issue 13).
 * Owns the library handle and the table of the PQ* functions hyrax calls, nothing else: SQL and
 * connections belong to src/service/registry.c. libpq's types are opaque here; the constants are the
 * values of libpq-fe.h, which are part of libpq's stable ABI (soname libpq.so.5). */
#ifndef HX_PQ_H
#define HX_PQ_H

#include "hyrax.h"

#include <stddef.h>

typedef struct hxi_pgconn hxi_pgconn;       /* libpq's PGconn */
typedef struct hxi_pgresult hxi_pgresult;   /* libpq's PGresult */

enum { HX_PQ_CONNECTION_OK = 0, HX_PQ_CONNECTION_BAD = 1 };         /* ConnStatusType */
enum { HX_PQ_POLLING_FAILED = 0, HX_PQ_POLLING_READING = 1,       /* PostgresPollingStatusType */
       HX_PQ_POLLING_WRITING = 2, HX_PQ_POLLING_OK = 3 };
enum { HX_PQ_COMMAND_OK = 1, HX_PQ_TUPLES_OK = 2 };                /* ExecStatusType */
enum { HX_PQ_DIAG_SQLSTATE = 'C' };                                /* PQresultErrorField */

/* The functions hyrax uses, with libpq's signatures. Only the asynchronous calls: every wait for
 * the server is hyrax's own poll(), so it can end at a deadline (registry.c). */
typedef struct hxi_pq {
    hxi_pgconn *(*connect_start_params)(const char *const *keywords, const char *const *values, int expand_dbname);
    int (*connect_poll)(hxi_pgconn *conn);
    int (*socket)(const hxi_pgconn *conn);
    int (*status)(const hxi_pgconn *conn);
    char *(*error_message)(const hxi_pgconn *conn);
    void (*finish)(hxi_pgconn *conn);
    int (*send_query)(hxi_pgconn *conn, const char *sql);
    int (*send_query_params)(hxi_pgconn *conn, const char *sql, int n_params, const unsigned *types,
                             const char *const *values, const int *lengths, const int *formats, int result_format);
    int (*consume_input)(hxi_pgconn *conn);
    int (*is_busy)(hxi_pgconn *conn);
    hxi_pgresult *(*get_result)(hxi_pgconn *conn);
    int (*result_status)(const hxi_pgresult *res);
    char *(*result_error_message)(const hxi_pgresult *res);
    char *(*result_error_field)(const hxi_pgresult *res, int field);
    void (*clear)(hxi_pgresult *res);
    int (*ntuples)(const hxi_pgresult *res);
    int (*nfields)(const hxi_pgresult *res);
    char *(*getvalue)(const hxi_pgresult *res, int row, int col);
    int (*getisnull)(const hxi_pgresult *res, int row, int col);
    int (*getlength)(const hxi_pgresult *res, int row, int col);
} hxi_pq;

/* The default library name, and the variable that overrides it with a file name or path. */
#define HX_PQ_LIBRARY "libpq.so.5"
#define HX_PQ_ENV "HYRAX_LIBPQ"

/* Loads libpq once per process ($HYRAX_LIBPQ, else libpq.so.5 from the loader's search path) and
 * sets *out to its function table, valid until the process ends. HX_ENOTFOUND naming the library
 * (and the loader's reason) when it cannot be loaded or lacks one of the functions; a failed load
 * is retried by the next call. Thread-safe. */
int hxi_pq_load(const hxi_pq **out, hx_error *err);

#endif
