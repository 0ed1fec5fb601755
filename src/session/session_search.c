/* session_search.c: hx_session_search and hx_session_similar (hyrax.h "Session"), and the names of
 * modes, groupings and sources every surface takes: which tiers a
 * query reads and at which commit, the precision its vector is made at (the first tier's; a tier at
 * another precision is not consulted, nor the registry's fp32 under int8), the registry as the
 * farthest tier or alone, and what each tier reports. The searching itself is tiers.c's
 * (hxi_tiers_search_registry) and search.c's. */
#include "session_internal.h"

#include "alloc.h"
#include "fusion.h"
#include "registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What an answer keeps for its results to borrow: the registry's list and connection, and the
 * tiers' reasons. */
typedef struct answer_keep {
    hxi_registry_tier reg;              /* reg.r owned here; reg.res the registry's list */
    bool alone;                        /* source registry: results are reg.res.res itself */
    char why[2][SESSION_WHY];          /* the project's and the user's reasons */
} answer_keep;

void hx_session_answer_free(hx_session_answer *a)
{
    if (!a)
        return;
    answer_keep *k = a->keep;
    if (!k || !k->alone)
        hx_results_free(&a->results);
    if (k) {
        hxi_registry_results_free(&k->reg.res);
        hxi_registry_close(k->reg.r);
        free(k);
    }
    memset(a, 0, sizeof *a);
}

uint64_t hx_session_answer_generation(const hx_session_answer *a, const hx_result *r)
{
    for (size_t i = 0; r->tier && i < a->n_tiers; i++)
        if (a->tiers[i].searched && !strcmp(a->tiers[i].name, r->tier))
            return a->tiers[i].generation;
    return a->taken.commit.generation;
}

void hx_session_query_init(hx_session_query *q, const char *query)
{
    memset(q, 0, sizeof *q);
    q->query = query;
    hx_search_opts_default(&q->opts);
    q->opts.min_score = (float)HX_MIN_RELEVANCE;
    q->opts.group = HX_GROUP_DOCUMENT;
    q->opts.snippets = 1;
    q->source = HX_SEARCH_ALL;
    q->at.selector = HX_READ_HEAD;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* === Names === */

const char *const hx_mode_names[] = {"hybrid", "semantic", "keyword", "vector", "full_text", "text", NULL};
static const hx_search_mode mode_of_name[] = {HX_MODE_HYBRID, HX_MODE_VECTOR, HX_MODE_KEYWORD,
                                              HX_MODE_VECTOR, HX_MODE_KEYWORD, HX_MODE_KEYWORD};

int hx_mode_parse(const char *s, hx_search_mode *out)
{
    for (size_t i = 0; s && hx_mode_names[i]; i++)
        if (!strcmp(s, hx_mode_names[i]))
            return *out = mode_of_name[i], 0;
    return HX_EINVAL;
}

const char *const hx_group_names[] = {"chunk", "document", NULL};   /* indexed by hx_group */

int hx_group_parse(const char *s, hx_group *out)
{
    for (size_t i = 0; s && hx_group_names[i]; i++)
        if (!strcmp(s, hx_group_names[i]))
            return *out = (hx_group)i, 0;
    return HX_EINVAL;
}

const char *const hx_fusion_names[] = {"relevance", "rrf", "weighted", NULL};   /* indexed by hx_fusion_method */

int hx_fusion_parse(const char *s, int *out)
{
    for (size_t i = 0; s && hx_fusion_names[i]; i++)
        if (!strcmp(s, hx_fusion_names[i]))
            return *out = (int)i, 0;
    return HX_EINVAL;
}

const char *const hx_search_source_names[] = {"all", HX_TIER_PROJECT, HX_TIER_USER, HX_TIER_REGISTRY, NULL};

int hx_search_source_parse(const char *s, hx_search_source *out)
{
    for (size_t i = 0; s && hx_search_source_names[i]; i++)
        if (!strcmp(s, hx_search_source_names[i]))
            return *out = (hx_search_source)i, 0;
    return HX_EINVAL;
}

/* === Checks === */

static int check_opts(const hx_search_opts *o, hx_error *err)
{
    if (o->k > 100000)
        return hx_error_set(err, HX_EINVAL, -1, "k must be at most 100000, not %u", o->k);
    if ((unsigned)o->mode > HX_MODE_KEYWORD)
        return hx_error_set(err, HX_EINVAL, -1, "mode must be hybrid, vector or keyword");
    if ((unsigned)o->group > HX_GROUP_DOCUMENT)
        return hx_error_set(err, HX_EINVAL, -1, "group must be chunk or document");
    if (o->n_filters && !o->filters)
        return hx_error_set(err, HX_EINVAL, -1, "n_filters is %zu and filters is NULL", o->n_filters);
    if ((o->vector_weight != 0 || o->text_weight != 0) && hx_fusion_check_weights(o->vector_weight, o->text_weight, err))
        return HX_EINVAL;
    if (o->recency_key && !(o->recency_half_life_days > 0 && isfinite(o->recency_half_life_days)))
        return hx_error_set(err, HX_EINVAL, -1, "recency needs a half-life in days > 0");
    return 0;
}

static int check_context(const hx_read_context *at, hx_error *err)
{
    if ((unsigned)at->selector > HX_READ_AS_OF)
        return hx_error_set(err, HX_EINVAL, -1, "read context: unknown selector %d", (int)at->selector);
    if (at->selector == HX_READ_BASELINE && (!at->baseline_id || !*at->baseline_id))
        return hx_error_set(err, HX_EINVAL, -1, "read context: a baseline needs its name (baseline_id)");
    return 0;
}

/* === Search === */

typedef struct {
    const hx_session_query *q;
    hx_session_answer *out;
} search_call;

/* The registry tier of a query of source all into k->reg: connected within the query's budget as
 * the identity's tenant and user, or its why saying why not. */
static int open_registry(hx_session *s, bool embeds, hx_precision p, const hx_read_context *at, answer_keep *k,
                         hx_error *err)
{
    hxi_registry_tier *t = &k->reg;
    t->as_of_ns = at->selector == HX_READ_AS_OF ? at->as_of_ns : 0;   /* the registry has no baselines */
    if (embeds && p != HX_PRECISION_FP32)
        return snprintf(t->why, sizeof t->why, "the project index holds %s vectors and the registry fp32 ones",
                        hx_precision_name(p)), 0;
    hx_error cerr = {0};
    int rc = session_registry_connect(s, false, s->registry_timeout_ms, 0, &t->r, &cerr);
    if (rc == HX_ENOMEM || rc == HX_EINVAL)
        return hx_error_set(err, rc, -1, "%s", cerr.message);
    if (rc)
        snprintf(t->why, sizeof t->why, "%s", cerr.message);
    return 0;
}

/* Source registry alone: the query embedded at fp32 (the registry's vectors), the registry asked
 * within its budget; one that cannot answer is an answer saying so. */
static int search_registry_alone(hx_session *s, const hx_session_query *q, hx_session_answer *out, answer_keep *k,
                                 hx_error *err)
{
    const hx_search_opts *o = &q->opts;
    hx_tier_report *t = &out->tiers[out->n_tiers++];
    *t = (hx_tier_report){.name = HX_TIER_REGISTRY};
    k->alone = true;
    if (!s->registry) {
        t->reason = "no registry: name one (hx_session_config.registry or $" HX_REGISTRY_ENV ")";
        return 0;
    }
    float vec[HX_EMBED_DIM_MAX];
    bool embeds = o->mode != HX_MODE_KEYWORD;
    if (embeds && session_query_precision(s, HX_PRECISION_FP32) != HX_PRECISION_FP32) {
        snprintf(k->reg.why, sizeof k->reg.why, "the registry holds fp32 vectors and this session's model is %s",
                 hx_precision_name(session_query_precision(s, HX_PRECISION_FP32)));
        t->reason = k->reg.why;
        return 0;
    }
    hx_encoder *enc = NULL;
    size_t len = strlen(q->query);
    int rc = embeds ? session_encoder(s, HX_PRECISION_FP32, &enc, err) : 0;
    if (!rc && embeds)
        rc = hx_encoder_embed(enc, &q->query, &len, 1, vec, err);
    if (rc)
        return rc;
    const hx_model *m = embeds ? hx_encoder_model(enc) : NULL;
    hxi_registry_query rq = {q->query, embeds ? vec : NULL, o->mode, o->k ? o->k : 10, o->filters, o->n_filters,
                            o->min_score, q->at.selector == HX_READ_AS_OF ? q->at.as_of_ns : 0, o->rank_window,
                            m ? hx_model_name(m) : NULL, m ? hx_model_dim(m) : 0};
    hx_error rerr = {0};
    rc = session_registry_connect(s, false, s->registry_timeout_ms, 0, &k->reg.r, &rerr);
    if (!rc)
        rc = hxi_registry_search(k->reg.r, &rq, &k->reg.res, &rerr);
    if (rc == HX_ENOMEM || rc == HX_EINVAL)
        return hx_error_set(err, rc, -1, "%s", rerr.message);
    if (rc) {
        snprintf(k->reg.why, sizeof k->reg.why, "%s", rerr.message);
        t->reason = k->reg.why;
        return 0;
    }
    out->results = k->reg.res.res;
    out->registry = k->reg.res.extra;
    t->searched = true;
    t->results = out->results.n;
    return 0;
}

/* The project index's vectors come from the model it was built with (hx_index_stats.model): a
 * query embedded by another is refused, naming the model to use. */
static int check_model(hx_session *s, hx_precision p, hx_error *err)
{
    const hx_model *m;
    hx_index_stats st;
    int rc = session_model(s, p, &m, err);
    if (!rc)
        rc = hx_index_stats_get(s->project, &st, err);
    if (rc || !strcmp(st.model, hx_model_name(m)))
        return rc;
    const char *alias = hx_model_alias(st.model);
    return hx_error_set(err, HX_EINVAL, -1, "the index %s was built with model %s, not %s: search it with --model %s",
                        s->db, st.model, hx_model_name(m), alias ? alias : st.model);
}

static int search_run(hx_session *s, void *arg, hx_error *err)
{
    search_call *c = arg;
    const hx_session_query *q = c->q;
    hx_session_answer *out = c->out;
    answer_keep *k = out->keep;
    if (q->source == HX_SEARCH_REGISTRY)
        return search_registry_alone(s, q, out, k, err);
    bool embeds = q->opts.mode != HX_MODE_KEYWORD;
    hx_tier tiers[2];
    size_t nt = 0;
    hx_precision p = HX_PRECISION_FP32;   /* the query's: the first tier's */
    int rc;
    if (q->source != HX_SEARCH_USER) {
        if ((rc = session_project(s, &q->at, err)))
            return rc;
        p = s->project_precision;
        if (embeds && s->shared && hx_model_precision(s->shared) != p)
            return hx_error_set(err, HX_EINVAL, -1, "the index %s holds %s vectors and the model is %s", s->db,
                                hx_precision_name(p), hx_precision_name(hx_model_precision(s->shared)));
        if (embeds && (rc = check_model(s, p, err)))
            return rc;
        tiers[nt++] = (hx_tier){HX_TIER_PROJECT, s->project};
        out->tiers[out->n_tiers++] = (hx_tier_report){HX_TIER_PROJECT, s->db, true, NULL,
                                                      s->project_taken.commit.generation, 0};
        out->taken = s->project_taken;
    }
    if (q->source != HX_SEARCH_PROJECT) {
        char *why = k->why[1];
        if ((rc = session_user(s, &q->at, why, SESSION_WHY, err)))
            return rc;
        if (!why[0] && q->source == HX_SEARCH_USER)
            p = s->user_precision;
        if (!why[0] && embeds && s->user_precision != session_query_precision(s, p))
            snprintf(why, SESSION_WHY, "%s holds %s vectors and this search embeds at %s", s->user_db,
                     hx_precision_name(s->user_precision), hx_precision_name(session_query_precision(s, p)));
        if (!why[0])
            tiers[nt++] = (hx_tier){HX_TIER_USER, s->user_ix};
        out->tiers[out->n_tiers++] = (hx_tier_report){HX_TIER_USER, s->user_db, !why[0], why[0] ? why : NULL,
                                                      why[0] ? 0 : s->user_taken.commit.generation, 0};
        if (q->source == HX_SEARCH_USER && !why[0])
            out->taken = s->user_taken;
    }
    hxi_registry_tier *reg = NULL;
    if (q->source == HX_SEARCH_ALL && s->registry && *s->registry) {   /* named: libpq's defaults are asked alone */
        if ((rc = open_registry(s, embeds, session_query_precision(s, p), &q->at, k, err)))
            return rc;
        reg = &k->reg;
    }
    hx_encoder *enc = NULL;
    if (embeds && (nt || (reg && reg->r)) && (rc = session_encoder(s, p, &enc, err)))
        return rc;
    out->results.group = q->opts.group;
    if ((nt || (reg && reg->r)) &&
        (rc = hxi_tiers_search_registry(tiers, nt, reg, enc, q->query, strlen(q->query), &q->opts, &out->results, err)))
        return rc;
    if (reg)
        out->tiers[out->n_tiers++] = (hx_tier_report){HX_TIER_REGISTRY, NULL, !reg->why[0],
                                                      reg->why[0] ? reg->why : NULL, 0, 0};
    for (size_t i = 0; i < out->n_tiers; i++)
        for (size_t j = 0; out->tiers[i].searched && j < out->results.n; j++)
            out->tiers[i].results += out->results.v[j].tier && !strcmp(out->results.v[j].tier, out->tiers[i].name);
    return 0;
}

int session_search(hx_session *s, const hx_session_query *q, const char *op, hx_session_answer *out, hx_error *err)
{
    if (!q->query || !*q->query)
        return hx_error_set(err, HX_EINVAL, -1, "the query is empty");
    if ((unsigned)q->source > HX_SEARCH_REGISTRY)
        return hx_error_set(err, HX_EINVAL, -1, "source must be all, project, user or registry");
    int rc = check_opts(&q->opts, err);
    if (!rc)
        rc = check_context(&q->at, err);
    if (rc)
        return rc;
    bool named = q->at.selector == HX_READ_BASELINE || q->at.selector == HX_READ_PUBLISHED;
    if (named && q->source == HX_SEARCH_USER)
        return hx_error_set(err, HX_EINVAL, -1, "a baseline names a commit of the project index; with source user "
                            "give a time (as_of) or nothing");
    if (named && q->source == HX_SEARCH_REGISTRY)
        return hx_error_set(err, HX_EINVAL, -1, "the registry has no baselines; a time (as_of) reads what was "
                            "published by then");
    if (!(out->keep = hx_calloc(1, sizeof(answer_keep))))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    out->taken.selector = q->at.selector;
    double t0 = now_ms();
    search_call c = {q, out};
    rc = session_guarded(s, search_run, &c, err);
    if (rc) {
        hx_session_answer_free(out);
        return rc;
    }
    hx_stats *st = session_stats(s);
    if (st) {
        hx_stats_note_latency(st, op, s->transport, now_ms() - t0);
        hx_stats_note_query(st, q->query);
    }
    return 0;
}

int hx_session_search(hx_session *s, const hx_session_query *q, hx_session_answer *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && q && out, __func__, "a session, a query and an answer", err);
    if (rc)
        return rc;
    return session_search(s, q, "search", out, err);
}

/* === Similar === */

typedef struct {
    const hx_similar_query *q;
    hx_session_answer *out;
} similar_call;

static int similar_run(hx_session *s, void *arg, hx_error *err)
{
    similar_call *c = arg;
    const hx_similar_query *q = c->q;
    hx_search_opts o = q->opts;
    float vec[HX_EMBED_DIM_MAX];
    int rc = session_project(s, &q->at, err);
    if (rc)
        return rc;
    hx_error lerr = {0};
    if (q->text) {
        hx_encoder *enc;
        size_t len = strlen(q->text);
        if ((rc = session_encoder(s, s->project_precision, &enc, err)) ||
            (rc = hx_encoder_embed(enc, &q->text, &len, 1, vec, err)))
            return rc;
    } else if (q->chunk_id >= 0) {
        if (q->chunk_id > UINT32_MAX || hx_index_chunk_vector(s->project, (uint32_t)q->chunk_id, vec, &lerr))
            return hx_error_set(err, HX_ENOTFOUND, -1, "no chunk %lld in the index (chunk ids come from search results)",
                                (long long)q->chunk_id);
        o.exclude_chunk = (int32_t)q->chunk_id;
    } else {
        hx_doc_info d;
        if ((rc = session_doc(s->project, q->doc_id, q->path, &d, err)))
            return rc;
        if (hx_index_doc_vector(s->project, d.id, vec, &lerr))
            return hx_error_set(err, HX_ENOTFOUND, -1, "document %s has no text to compare", d.path);
        o.exclude_doc = (int32_t)d.id;
    }
    c->out->results.group = o.group;
    if ((rc = hx_index_search_vector(s->project, vec, &o, &c->out->results, err)))
        return rc;
    c->out->taken = s->project_taken;
    c->out->tiers[c->out->n_tiers++] = (hx_tier_report){HX_TIER_PROJECT, s->db, true, NULL,
                                                        s->project_taken.commit.generation, c->out->results.n};
    return 0;
}

int hx_session_similar(hx_session *s, const hx_similar_query *q, hx_session_answer *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && q && out, __func__, "a session, a query and an answer", err);
    if (rc)
        return rc;
    int given = (q->text != NULL) + (q->chunk_id >= 0) + (q->doc_id >= 0 || q->path != NULL);
    if (given != 1 || (q->doc_id >= 0 && q->path))
        return hx_error_set(err, HX_EINVAL, -1, "give exactly one of text, chunk_id, or a document (doc_id or path)");
    if (q->text && !*q->text)
        return hx_error_set(err, HX_EINVAL, -1, "the text is empty");
    rc = check_opts(&q->opts, err);
    if (!rc)
        rc = check_context(&q->at, err);
    if (rc)
        return rc;
    similar_call c = {q, out};
    if ((rc = session_guarded(s, similar_run, &c, err)))
        hx_session_answer_free(out);
    return rc;
}
