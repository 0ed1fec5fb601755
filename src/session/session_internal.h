/* session_internal.h: the state of an hx_session (hyrax.h "Session") shared by its files: session.c
 * (open, close, models, encoders, readers of the tiers, status), session_search.c (search,
 * similar), session_docs.c (get, list), session_context.c (context), session_write.c (add,
 * delete, reindex, baseline), session_memory.c (conversation memory) and session_registry.c
 * (the registry's connection, init, publish). Not part of the public API. */
#ifndef HX_SESSION_INTERNAL_H
#define HX_SESSION_INTERNAL_H

#include "hyrax.h"
#include "stats.h"

#define SESSION_WHY 320   /* bytes of a reason a tier is not consulted */

struct hx_session {
    char *db, *root, *user_db, *registry, *weights, *tenant, *user, *transport;   /* owned copies */
    hx_identity identity;          /* points at tenant and user */
    bool has_identity, no_user_tier, read_only;
    int registry_timeout_ms;       /* a query's wait for the registry */
    int connect_timeout_ms;        /* publish's wait to connect to it */
    int threads;
    hx_precision new_precision;    /* of a new index */
    char user_why[SESSION_WHY];    /* why there is no user tier, when user_db is NULL */
    const hx_model *shared;        /* borrowed model, or NULL */
    hx_model *models[2];           /* owned, by precision; opened when first needed */
    hx_encoder *encoders[2];       /* owned, one thread each: queries */
    hx_encoder *writer_enc;        /* owned, cfg threads: writes and publish */
    const hx_model *writer_model;  /* the model writer_enc was made with */
    hx_index *project, *user_ix;     /* owned readers; NULL until read (or after a fault) */
    hx_precision project_precision, user_precision;
    hx_read_taken project_taken, user_taken;
    hx_error project_open_err;       /* why the project reader last failed to open, in its own words */
    hx_stats *stats;               /* owned with a transport; NULL when not counted or not opened */
    hx_memory_limits memory_limits;   /* conversation memory's retention */
};

/* Connects to the session's registry as its identity's tenant and user (as_login, or no identity:
 * the login role itself), everything within timeout_ms (0: no limit) and connecting within
 * connect_timeout_ms (0: no limit but timeout_ms): hxi_registry_connect's answers. */
struct hxi_registry;
int session_registry_connect(hx_session *s, bool as_login, int timeout_ms, int connect_timeout_ms,
                             struct hxi_registry **r, hx_error *err);
/* The model at precision p (the shared one whatever p, when there is one) into *m. */
int session_model(hx_session *s, hx_precision p, const hx_model **m, hx_error *err);
/* The precision queries are embedded at when the index read holds vectors at p. */
hx_precision session_query_precision(const hx_session *s, hx_precision p);
/* A one-thread encoder at precision p (session_model's). */
int session_encoder(hx_session *s, hx_precision p, hx_encoder **enc, hx_error *err);
/* The encoder of writes (cfg threads) at precision p (session_model's, into *m). */
int session_writer_encoder(hx_session *s, hx_precision p, const hx_model **m, hx_encoder **enc, hx_error *err);
/* The project reader opened (or refreshed) and pointed at ctx (NULL: head). HX_ENOTFOUND when there
 * is no index, or no kept commit matches ctx (hx_index_read_at's message). */
int session_project(hx_session *s, const hx_read_context *ctx, hx_error *err);
/* The user reader opened (or refreshed) and pointed at ctx as hx_tier_read_at says; why[0] != 0
 * (and s->user possibly NULL) when the tier is not consulted. */
int session_user(hx_session *s, const hx_read_context *ctx, char *why, size_t cap, hx_error *err);
/* The entry of an hx_session_* call that answers in *out: the answer (size bytes) is cleared first,
 * so the caller may free it whatever the call returns, then a missing argument (given false) is
 * refused as "CALL needs NEEDS". 0 or HX_EINVAL. */
int session_enter(void *out, size_t size, bool given, const char *call, const char *needs, hx_error *err);
/* Runs fn under a fault guard: a fault closes the readers and gives HX_ECHANGED with HX_FAULT_MESSAGE. */
int session_guarded(hx_session *s, int (*fn)(hx_session *s, void *arg, hx_error *err), void *arg, hx_error *err);
/* hx_session_search after its NULL checks (out zeroed by the caller), its latency counted as op. */
int session_search(hx_session *s, const hx_session_query *q, const char *op, hx_session_answer *out, hx_error *err);
/* The session's statistics (opened on first use), or NULL when it counts nothing. */
hx_stats *session_stats(hx_session *s);
/* A document of ix (the project reader or writer) by id (path NULL) or by name (hx_fs_target against
 * the index root); the messages of hx_session_get. */
int session_doc(hx_index *ix, int64_t id, const char *path, hx_doc_info *d, hx_error *err);

#endif
