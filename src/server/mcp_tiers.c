/* mcp_tiers.c: the MCP query tools over tiers (README "Tiers"; hyrax.h hx_tiers_search): the
 * user index's reader beside the project's (mcp.c), the registry as the farthest tier of source
 * all (registry.h hx_tiers_search_registry), what the `source` argument (MCP_ARG_SOURCE) selects,
 * and the answer's "tiers". Main thread only; never writes an index. */
#include "mcp_internal.h"

#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The answer's "tiers" (hx_present_tiers). */
static const mcp_field tier_fields[] = {
    {"tier", .type = MCP_JSON_STRING},
    {"db", .type = MCP_JSON_STRING},
    {"searched", .type = MCP_JSON_BOOLEAN},
    {"consulted", .type = MCP_JSON_BOOLEAN},
    {"results", .type = MCP_JSON_INTEGER},
    {"generation", .type = MCP_JSON_INTEGER},
    {"reason", .type = MCP_JSON_STRING},
    {.name = NULL},
};
const mcp_field mcp_tier_item = {NULL, MCP_JSON_OBJECT, .props = tier_fields, MCP_REQUIRED("tier", "searched")};

/* Opens (or refreshes) the user index's reader and points it at ctx as hx_tier_read_at says;
 * s->user_why[0] != 0 when the tier is not consulted. 0, or an HX_E* code with err set. */
static int open_user(mcp_session *s, const hx_read_context *ctx, hx_error *err)
{
    hx_error e = {0};
    s->user_why[0] = 0;
    if (!s->cfg->user_db)
        return snprintf(s->user_why, sizeof s->user_why, "no user index: set $" HX_USER_DB_ENV ", $XDG_DATA_HOME or $HOME"),
               0;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!s->user_reader &&
            hx_tier_open(&s->user_reader, s->cfg->user_db, s->model, s->cfg->identity, s->user_why,
                         sizeof s->user_why, &e))
            break;
        if (!s->user_reader)   /* none there (yet), or at another precision: not consulted */
            return 0;
        if (!hx_tier_read_at(s->user_reader, ctx, &s->user_taken, s->user_why, sizeof s->user_why, &e))
            return 0;
        hx_index_close(s->user_reader);   /* replaced (compaction by a sync) or damaged: open afresh */
        s->user_reader = NULL;
    }
    return mcp_error_wrap(err, &e, "cannot read the user index %s: ", s->cfg->user_db);
}

void mcp_tiers_free(mcp_session *s)
{
    if (!s->registry)
        return;
    hx_registry_results_free(&s->registry->res);
    hx_registry_close(s->registry->r);
    free(s->registry);
    s->registry = NULL;
}

/* The registry tier for a query of source all, into s->registry (NULL when the server names no
 * registry): connected within the query's budget as the reader identity's tenant and user, or
 * its `why` saying why not. 0, or HX_ENOMEM with err set. */
static int open_registry(mcp_session *s, const hx_read_context *ctx, hx_error *err)
{
    const char *url = s->cfg->registry ? s->cfg->registry : getenv(HX_REGISTRY_ENV);
    if (!url || !*url)
        return 0;
    if (!(s->registry = hx_calloc(1, sizeof *s->registry)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    hx_registry_tier *t = s->registry;
    t->as_of_ns = ctx->selector == HX_READ_AS_OF ? ctx->as_of_ns : 0;   /* the registry has no baselines */
    if (s->model && hx_model_precision(s->model) != HX_PRECISION_FP32) {
        snprintf(t->why, sizeof t->why, "the project index holds %s vectors and the registry fp32 ones",
                 hx_precision_name(hx_model_precision(s->model)));
        return 0;
    }
    const hx_identity *id = s->cfg->identity;
    hx_registry_opts ro = {url, id ? id->tenant : NULL, id ? id->user : NULL,
                           s->cfg->registry_timeout_ms > 0 ? s->cfg->registry_timeout_ms : HX_REGISTRY_TIMEOUT_MS, 0};
    hx_error e = {0};
    if (hx_registry_connect(&t->r, &ro, &e)) {
        if (e.code == HX_ENOMEM)
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        snprintf(t->why, sizeof t->why, "%s", e.message);
    }
    return 0;
}

int mcp_tiers_query(mcp_session *s, const mcp_args *a, const char *query, const hx_search_opts *o, hx_results *res,
                    hx_error *err)
{
    mcp_tiers_free(s);
    hx_source source = HX_SOURCE_ALL;
    hx_source_parse(mcp_arg_str(a, "source"), &source);   /* the table checked the name */
    hx_read_context ctx;
    if (mcp_read_context(a, &ctx, err))
        return MCP_CODE(*err);
    if (source == HX_SOURCE_REGISTRY)   /* the search tools answer it before they get here (registry.h) */
        return hx_error_set(err, HX_EINVAL, -1, "source registry is searched by the search tools only");
    if (source == HX_SOURCE_USER && ctx.selector != HX_READ_HEAD && ctx.selector != HX_READ_AS_OF)
        return hx_error_set(err, HX_EINVAL, -1, "read_context: a baseline names a commit of the project index; with "
                                                "source "
                                                "user give as_of or nothing");
    hx_tier tiers[2];
    size_t nt = 0;
    s->n_tier_status = 0;
    if (source != HX_SOURCE_USER) {
        if (mcp_open_reader_for(s, a, err))
            return MCP_CODE(*err);
        tiers[nt++] = (hx_tier){HX_TIER_PROJECT, s->reader};
        s->tier_status[s->n_tier_status++] =
            (hx_tier_status){HX_TIER_PROJECT, s->cfg->db, NULL, s->read_taken.commit.generation};
    } else if (mcp_session_model(s, err)) {
        return MCP_CODE(*err);
    } else {
        hx_error e = {0};
        if (mcp_session_encoder(s, &e))
            return mcp_error_wrap(err, &e, "cannot start the encoder: ");
    }
    if (source != HX_SOURCE_PROJECT) {
        if (open_user(s, &ctx, err))
            return MCP_CODE(*err);
        if (!s->user_why[0])
            tiers[nt++] = (hx_tier){HX_TIER_USER, s->user_reader};
        s->tier_status[s->n_tier_status++] = (hx_tier_status){
            HX_TIER_USER, s->cfg->user_db ? s->cfg->user_db : "", s->user_why[0] ? s->user_why : NULL,
            s->user_taken.commit.generation};
    }
    if (source == HX_SOURCE_ALL && open_registry(s, &ctx, err))
        return MCP_CODE(*err);
    memset(res, 0, sizeof *res);
    res->group = o->group;
    hx_error e = {0};
    bool asks = s->registry && s->registry->r;
    if ((nt || asks) &&
        hx_tiers_search_registry(tiers, nt, s->registry, s->enc, query, strlen(query), o, res, &e))
        return mcp_error_wrap(err, &e, "search failed: ");
    if (s->registry)
        s->tier_status[s->n_tier_status++] =
            (hx_tier_status){HX_TIER_REGISTRY, NULL, s->registry->why[0] ? s->registry->why : NULL, 0};
    mcp_note_query(s, query);
    return 0;
}

hx_index *mcp_tier_reader(mcp_session *s, const hx_result *r)
{
    if (r->tier && !strcmp(r->tier, HX_TIER_REGISTRY))
        return NULL;
    return r->tier && !strcmp(r->tier, HX_TIER_USER) ? s->user_reader : s->reader;
}

uint64_t mcp_result_generation(const mcp_session *s, const hx_result *r)
{
    return hx_present_tier_generation(s->tier_status, s->n_tier_status, r, s->read_taken.commit.generation);
}

void mcp_write_tiers(hx_json_writer *w, const mcp_session *s, const hx_results *res)
{
    bool user_only = s->n_tier_status && !strcmp(s->tier_status[0].name, HX_TIER_USER);
    hx_present_read_context(w, user_only ? &s->user_taken : &s->read_taken);
    hx_present_tiers(w, s->tier_status, s->n_tier_status, res);
}

void mcp_write_answer_tiers(hx_json_writer *w, const mcp_session *s, const hx_session_answer *a)
{
    hx_tier_status t[3];
    for (size_t i = 0; i < a->n_tiers && i < 3; i++) {
        const hx_tier_report *r = &a->tiers[i];
        bool user = !strcmp(r->name, HX_TIER_USER), none = user && !s->cfg->user_db;
        t[i] = (hx_tier_status){r->name, r->db ? r->db : "",
                                none ? "no user index: set $" HX_USER_DB_ENV ", $XDG_DATA_HOME or $HOME" : r->reason,
                                r->generation};
    }
    hx_present_read_context(w, &a->taken);
    hx_present_tiers(w, t, a->n_tiers < 3 ? a->n_tiers : 3, &a->results);
}
