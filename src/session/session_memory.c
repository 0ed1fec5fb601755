/* session_memory.c: conversation memory through the session (hyrax.h "Session: conversation
 * memory"): record_turn, get_session, search_history and list_sessions. Every turn is stamped with
 * the session's identity and every read filtered by it, here only; the file is opened for one call
 * and closed after it (a list keeps its reader until freed). Storage, retention and search are
 * memory.c's; no JSON here. */
#include "session_internal.h"

#include "alloc.h"
#include "memory.h"
#include "store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const hx_turn_methods[] = {"semantic", "full_text", "hybrid", "vector", "keyword", "other", NULL};

/* The identity turns are stamped with and read back by: "" for none. */
static void identity(const hx_session *s, const char **tenant, const char **user)
{
    *tenant = s->has_identity ? s->tenant : "";
    *user = s->has_identity && s->user ? s->user : "";
}

/* Opens the memory file beside the project index; *m NULL (and 0) when reading one that does not
 * exist yet. */
static int open_memory(hx_session *s, hxi_memory **m, unsigned flags, hx_error *err)
{
    char path[4096];
    hx_error merr = {0};
    *m = NULL;
    int rc = hxi_memory_path(s->db, path, sizeof path, &merr);
    if (!rc)
        rc = hxi_memory_open(m, path, flags, &merr);
    if (rc == HX_ENOTFOUND && !(flags & HX_STORE_CREATE))
        return 0;
    if (rc == HX_EBUSY)
        return hx_error_set(err, rc, -1, "another process is recording to %s; try again", path);
    return rc ? hx_error_set(err, rc, merr.offset, "conversation memory: %s", merr.message) : 0;
}

/* Embeds text at the project index's precision (the configured one before there is an index), as
 * the queries of the index are; *model gets the model that embedded it. */
static int embed(hx_session *s, const char *text, size_t len, float *vec, const hx_model **model, hx_error *err)
{
    hx_precision p = s->new_precision, found;
    if (s->project)
        p = s->project_precision;
    else if (!hx_index_precision(s->db, &found, NULL))
        p = found;
    hx_encoder *enc;
    const hx_model *m;
    int rc = session_model(s, p, &m, err);
    *model = m;
    if (!rc)
        rc = session_encoder(s, p, &enc, err);
    return rc ? rc : hx_encoder_embed(enc, &text, &len, 1, vec, err);
}

/* === record_turn === */

static int check_turn(const hx_turn *t, hx_error *err)
{
    if (!t->session || !*t->session)
        return hx_error_set(err, HX_EINVAL, -1, "a turn needs its session id");
    if (!t->user_message)
        return hx_error_set(err, HX_EINVAL, -1, "a turn needs the user's message");
    if (t->n_docs && !t->docs)
        return hx_error_set(err, HX_EINVAL, -1, "n_docs is %zu and docs is NULL", t->n_docs);
    for (size_t i = 0; i < t->n_docs; i++)
        if (!t->docs[i])
            return hx_error_set(err, HX_EINVAL, -1, "retrieved document %zu is NULL", i);
    bool known = !t->search_method || !*t->search_method;
    for (size_t i = 0; !known && hx_turn_methods[i]; i++)
        known = !strcmp(t->search_method, hx_turn_methods[i]);
    if (!known)
        return hx_error_set(err, HX_EINVAL, -1, "unknown search method '%.64s' (semantic, full_text, hybrid, vector, "
                            "keyword or other)", t->search_method);
    if (!isnan(t->relevance) && !(t->relevance >= 0 && t->relevance <= 1))
        return hx_error_set(err, HX_ERANGE, -1, "relevance must be 0 to 1 (or NAN: none), not %g", t->relevance);
    return 0;
}

int hx_session_record_turn(hx_session *s, const hx_turn *t, hx_turn *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && t, __func__, "a session and a turn", err);
    if (rc)
        return rc;
    if (s->read_only)
        return hx_error_set(err, HX_EPERM, -1, "the session is read-only: it records no turns");
    rc = check_turn(t, err);
    if (rc)
        return rc;
    hx_turn in = *t;
    identity(s, &in.tenant, &in.user);
    in.agent_response = t->agent_response ? t->agent_response : "";
    in.search_method = t->search_method ? t->search_method : "";
    /* the embedding of the exchange: what a later question would be about */
    size_t lu = strlen(in.user_message), lr = strlen(in.agent_response);
    char *text = hx_malloc(lu + lr + 2);
    float vec[HX_EMBED_DIM_MAX];
    if (!text)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    memcpy(text, in.user_message, lu);
    text[lu] = '\n';
    memcpy(text + lu + 1, in.agent_response, lr + 1);
    const hx_model *model = NULL;
    rc = embed(s, text, lu + 1 + lr, vec, &model, err);
    free(text);
    if (rc)
        return rc;
    in.vec = vec;
    hxi_memory *m = NULL;
    hx_turn done;
    if ((rc = open_memory(s, &m, HX_STORE_WRITE | HX_STORE_CREATE, err)) ||
        (rc = hxi_memory_record(m, &in, hx_model_name(model), hx_model_dim(model), &s->memory_limits, &done, err))) {
        hxi_memory_close(m);
        return rc;
    }
    hxi_memory_close(m);
    if (out) {   /* done's strings lie in the closed handle; in's are the caller's and the session's */
        *out = in;
        out->id = done.id;
        out->number = done.number;
        out->at_ns = done.at_ns;
        out->vec = NULL;
    }
    return 0;
}

/* === get_session, search_history === */

void hx_turn_list_free(hx_turn_list *l)
{
    if (!l)
        return;
    free(l->turns);
    free(l->scores);
    hxi_memory_close(l->keep);
    memset(l, 0, sizeof *l);
}

typedef struct {
    const char *session_id;
    const hx_history_query *q;         /* search_history; NULL for get_session */
    hx_turn_list *out;
} turns_call;

/* The turns of one conversation visible to the session's identity, oldest first. */
static int session_turns(hxi_memory *m, const char *tenant, const char *user, turns_call *c, hx_error *err)
{
    size_t n = 0, count = hxi_memory_count(m);
    if (!(c->out->turns = hx_calloc(count ? count : 1, sizeof *c->out->turns)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const hx_turn *t = hxi_memory_turn(m, i);
        if (hxi_memory_visible(t, tenant, user) && !strcmp(t->session, c->session_id))
            c->out->turns[n++] = *t;
    }
    c->out->n = n;
    return 0;
}

/* The query's best turns visible to the session's identity, with their scores. */
static int history_turns(hx_session *s, hxi_memory *m, const char *tenant, const char *user, turns_call *c,
                         hx_error *err)
{
    const hx_history_query *q = c->q;
    float qvec[HX_EMBED_DIM_MAX];
    const hx_model *model = NULL;
    const bool vec = q->mode != HX_MODE_KEYWORD;
    int rc = vec ? embed(s, q->query, strlen(q->query), qvec, &model, err) : 0;
    hxi_memory_hit *hits = NULL;
    size_t n = 0;
    if (!rc)
        rc = hxi_memory_search(m, q->mode, q->query, vec ? qvec : NULL, vec ? hx_model_name(model) : NULL,
                               vec ? hx_model_dim(model) : 0, tenant, user,
                               q->session_id, q->k ? q->k : HX_HISTORY_K, &hits, &n, err);
    hx_turn_list *out = c->out;
    if (!rc && (!(out->turns = hx_calloc(n ? n : 1, sizeof *out->turns)) ||
                !(out->scores = hx_calloc(n ? n : 1, sizeof *out->scores))))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        out->turns[i] = *hxi_memory_turn(m, hits[i].turn);
        out->scores[i] = (hx_history_score){hits[i].score, hits[i].cosine, hits[i].bm25};
    }
    if (!rc)
        out->n = n;
    free(hits);
    return rc;
}

static int turns_run(hx_session *s, void *arg, hx_error *err)
{
    turns_call *c = arg;
    const char *tenant, *user;
    identity(s, &tenant, &user);
    hxi_memory *m;
    int rc = open_memory(s, &m, HX_STORE_READ, err);
    if (rc || !m)   /* no memory yet: no turns */
        return rc;
    c->out->keep = m;
    return c->q ? history_turns(s, m, tenant, user, c, err) : session_turns(m, tenant, user, c, err);
}

int hx_session_get_session(hx_session *s, const char *session_id, hx_turn_list *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && session_id && out, __func__, "a session, a session id and an answer",
                           err);
    if (rc)
        return rc;
    if (!*session_id)
        return hx_error_set(err, HX_EINVAL, -1, "the session id is empty");
    turns_call c = {session_id, NULL, out};
    rc = session_guarded(s, turns_run, &c, err);
    if (rc)
        hx_turn_list_free(out);
    return rc;
}

int hx_session_search_history(hx_session *s, const hx_history_query *q, hx_turn_list *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && q && out, __func__, "a session, a query and an answer", err);
    if (rc)
        return rc;
    if (!q->query || !*q->query)
        return hx_error_set(err, HX_EINVAL, -1, "the query is empty");
    if ((unsigned)q->mode > HX_MODE_KEYWORD)
        return hx_error_set(err, HX_EINVAL, -1, "mode must be hybrid, vector or keyword");
    if (q->k > HX_HISTORY_K_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "k must be at most %d, not %u", HX_HISTORY_K_MAX, q->k);
    if (q->session_id && !*q->session_id)
        return hx_error_set(err, HX_EINVAL, -1, "the session id is empty (NULL searches every session)");
    turns_call c = {q->session_id, q, out};
    rc = session_guarded(s, turns_run, &c, err);
    if (rc)
        hx_turn_list_free(out);
    return rc;
}

/* === list_sessions === */

void hx_conversation_list_free(hx_conversation_list *l)
{
    if (!l)
        return;
    free(l->v);
    hxi_memory_close(l->keep);
    memset(l, 0, sizeof *l);
}

/* Turns by conversation, then in the order they were recorded (ids only grow). */
static int by_conversation(const void *pa, const void *pb)
{
    const hx_turn *a = *(const hx_turn *const *)pa, *b = *(const hx_turn *const *)pb;
    int c = strcmp(a->session, b->session);
    return c ? c : a->id < b->id ? -1 : a->id > b->id;
}

/* A conversation with the id of its newest turn, which orders the list (ids only grow; clocks may
 * step back). */
typedef struct {
    hx_conversation c;
    uint64_t last_id;
} conversation_at;

static int by_newest(const void *pa, const void *pb)
{
    const conversation_at *a = pa, *b = pb;
    return a->last_id > b->last_id ? -1 : a->last_id < b->last_id;
}

static int sessions_run(hx_session *s, void *arg, hx_error *err)
{
    hx_conversation_list *out = arg;
    const char *tenant, *user;
    identity(s, &tenant, &user);
    hxi_memory *m;
    int rc = open_memory(s, &m, HX_STORE_READ, err);
    if (rc || !m)
        return rc;
    out->keep = m;
    size_t count = hxi_memory_count(m), nv = 0, nc = 0;
    const hx_turn **v = hx_malloc(sizeof *v * (count ? count : 1));
    conversation_at *cs = hx_malloc(sizeof *cs * (count ? count : 1));
    if (!v || !cs || !(out->v = hx_calloc(count ? count : 1, sizeof *out->v))) {
        free(v);
        free(cs);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    for (size_t i = 0; i < count; i++)
        if (hxi_memory_visible(hxi_memory_turn(m, i), tenant, user))
            v[nv++] = hxi_memory_turn(m, i);
    qsort(v, nv, sizeof *v, by_conversation);
    for (size_t i = 0; i < nv; i++) {
        if (!nc || strcmp(cs[nc - 1].c.session_id, v[i]->session))
            cs[nc++] = (conversation_at){{v[i]->session, 0, 0}, 0};
        cs[nc - 1].c.turns++;   /* the last turn seen is the newest: turns are in recording order */
        cs[nc - 1].c.last_turn_ns = v[i]->at_ns;
        cs[nc - 1].last_id = v[i]->id;
    }
    qsort(cs, nc, sizeof *cs, by_newest);
    for (size_t i = 0; i < nc; i++)
        out->v[i] = cs[i].c;
    out->n = nc;
    free(v);
    free(cs);
    return 0;
}

int hx_session_list_sessions(hx_session *s, hx_conversation_list *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && out, __func__, "a session and an answer", err);
    if (rc)
        return rc;
    rc = session_guarded(s, sessions_run, out, err);
    if (rc)
        hx_conversation_list_free(out);
    return rc;
}
