/* tiers.c: searching several indexes as one (hyrax.h "Tiers"; `hyrax help tiers`; DESIGN.md "Tiers
 * and trust"): where the user index lives, one query vector for every tier, each tier's own
 * search (search.c and the registry's hxi_registry_search, untouched), and the merge of their
 * lists by score with the same content answered once by the nearer tier. Never opens,
 * positions or writes an index, never connects to the registry. */
#include "alloc.h"
#include "hyrax.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int hx_tier_user_path(char *buf, size_t cap, hx_error *err)
{
    const char *db = getenv(HX_USER_DB_ENV), *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (db && *db)
        n = snprintf(buf, cap, "%s", db);
    else if (xdg && *xdg)   /* XDG: a relative $XDG_DATA_HOME is invalid and is ignored */
        n = xdg[0] == '/' ? snprintf(buf, cap, "%s/hyrax/user.hyx", xdg) : -1;
    else
        n = -1;
    if (n < 0 && home && *home)
        n = snprintf(buf, cap, "%s/.local/share/hyrax/user.hyx", home);
    if (n < 0)
        return hx_error_set(err, HX_ENOTFOUND, -1, "no user index: set $" HX_USER_DB_ENV ", $XDG_DATA_HOME or $HOME");
    if ((size_t)n >= cap)
        return hx_error_set(err, HX_ERANGE, -1, "the user index path is longer than %zu bytes", cap - 1);
    return 0;
}

/* One entry of the merged list: the result of tier `tier` at list position `pos`. */
typedef struct {
    size_t tier, pos;
    float score;   /* the result's own score (hyrax.h hx_result.score) */
} merged_entry;

/* Whether a and b are the same content (hyrax.h hx_tiers_search). */
static bool same_content(const hx_result *a, const hx_result *b, hx_group group)
{
    if (strcmp(a->doc_sha256, b->doc_sha256))
        return false;
    return group == HX_GROUP_DOCUMENT || (a->byte_start == b->byte_start && a->byte_end == b->byte_end);
}

static int compare_entry(const void *pa, const void *pb)
{
    const merged_entry *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->tier != b->tier)
        return a->tier < b->tier ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Merges lists[0..n) (one per tier, nearest first, each sorted by score) into out by score, the
 * same content answered once by the nearer tier, and cut to k; moves each kept result (its
 * snippet and `more` with it) out of its list. Every tier searched with the same mode and options,
 * so their scores are on one scale: relevance by default, calibrated to be absolute. */
static int merge(const char *const *names, hx_results *lists, size_t n, const hx_search_opts *o, hx_results *out,
                 hx_error *err)
{
    size_t total = 0;
    for (size_t t = 0; t < n; t++)
        total += lists[t].n;
    merged_entry *e = hx_malloc(sizeof *e * (total ? total : 1));
    if (!e)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    size_t ne = 0;
    for (size_t t = 0; t < n; t++)
        for (size_t i = 0; i < lists[t].n; i++) {
            const hx_result *r = &lists[t].v[i];
            size_t j = 0;   /* quadratic, but over at most tiers x the rank window */
            while (j < ne && !(e[j].tier < t && same_content(&lists[e[j].tier].v[e[j].pos], r, o->group)))
                j++;
            if (j == ne)   /* else the nearer tier's entry answers for both */
                e[ne++] = (merged_entry){t, i, r->score};
        }
    qsort(e, ne, sizeof *e, compare_entry);
    uint32_t kk = o->k ? o->k : 10;
    size_t keep = ne < kk ? ne : kk;
    out->v = hx_calloc(keep ? keep : 1, sizeof *out->v);
    if (!out->v) {
        free(e);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    for (size_t i = 0; i < keep; i++) {
        hx_result *r = &lists[e[i].tier].v[e[i].pos];
        out->v[i] = *r;
        out->v[i].rank = (uint32_t)i + 1;
        out->v[i].tier = names[e[i].tier];
        r->snippet = NULL;   /* now owned by out */
        r->more = NULL;
        r->n_more = 0;
    }
    out->n = keep;
    free(e);
    return 0;
}

/* The registry's list as one tier's list (res.v copied, strings and metadata still owned by
 * reg->res); with HX_GROUP_DOCUMENT one entry per document (its best chunk), ranks renumbered, as
 * a local tier groups. *out: free its v only. */
static int registry_list(const hxi_registry_tier *reg, hx_group group, hx_results *out, hx_error *err)
{
    const hx_results *src = &reg->res.res;
    memset(out, 0, sizeof *out);
    out->v = hx_calloc(src->n ? src->n : 1, sizeof *out->v);
    if (!out->v)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; i < src->n; i++) {
        bool seen = false;
        for (size_t j = 0; group == HX_GROUP_DOCUMENT && j < out->n && !seen; j++)
            seen = !strcmp(out->v[j].doc_sha256, src->v[i].doc_sha256);
        if (seen)
            continue;
        hx_result *x = &out->v[out->n++];
        *x = src->v[i];
        x->rank = (uint32_t)out->n;
    }
    out->total_candidates = src->total_candidates;
    return 0;
}

int hxi_tiers_search_registry(const hx_tier *tiers, size_t n, hxi_registry_tier *reg, hx_encoder *enc,
                              const char *query, size_t len, const hx_search_opts *o, hx_results *out, hx_error *err)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(out, 0, sizeof *out);
    hx_search_opts def;
    if (!o) {
        hx_search_opts_default(&def);
        o = &def;
    }
    if (reg) {
        memset(&reg->res, 0, sizeof reg->res);
        if (!reg->r && !reg->why[0])
            snprintf(reg->why, sizeof reg->why, "no registry connection");
    }
    bool asks_registry = reg && reg->r && !reg->why[0];
    if (!n && !asks_registry)
        return hx_error_set(err, HX_EINVAL, -1, "no tier to search");
    float vec[HX_EMBED_DIM_MAX];
    bool want_vec = o->mode != HX_MODE_KEYWORD;
    if (want_vec && !enc)
        return hx_error_set(err, HX_EINVAL, -1, "vector and hybrid search need the embedding model");
    int rc = want_vec ? hx_encoder_embed(enc, &query, &len, 1, vec, err) : 0;   /* once, for every tier */
    hx_results *lists = rc ? NULL : hx_calloc(n + 1, sizeof *lists);
    const char **names = rc ? NULL : hx_calloc(n + 1, sizeof *names);
    if (!rc && (!lists || !names))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    /* several lists are fused whole, each the full rank window, then cut to k: a result's place and
       score never depend on k (hyrax.h HX_RANK_WINDOW); a single list is already what k cuts */
    hx_search_opts each = *o;
    uint32_t window = o->rank_window ? o->rank_window : HX_RANK_WINDOW, k = o->k ? o->k : 10;
    if (n + asks_registry > 1 && window > k)
        each.k = window;
    /* one after another on this thread: a thread per tier waited 20 to 40 ms for a core on a loaded
       machine (bench/tiers_bench), far more than a second tier's search costs */
    for (size_t t = 0; t < n && !rc; t++) {
        if ((rc = hx_index_search_embedded(tiers[t].ix, query, len, want_vec ? vec : NULL, &each, &lists[t], err)))
            break;
        names[t] = tiers[t].name;
        out->total_candidates += lists[t].total_candidates;
    }
    size_t nl = n;
    if (!rc && asks_registry) {
        /* the registry is the farthest tier; one that fails is reported, never the search's failure */
        hx_error rerr = {0};
        char *text = hx_strndup(query, len);
        if (!text) {
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        } else {
            hxi_registry_query q = {text, want_vec ? vec : NULL, o->mode, each.k, o->filters, o->n_filters,
                                   o->min_score, reg->as_of_ns, window, want_vec ? hx_model_name(hx_encoder_model(enc)) : NULL,
                                   want_vec ? hx_model_dim(hx_encoder_model(enc)) : 0};
            int sr = hxi_registry_search(reg->r, &q, &reg->res, &rerr);
            free(text);
            if (sr == HX_ENOMEM)
                rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
            else if (sr)
                snprintf(reg->why, sizeof reg->why, "%s", rerr.message);
            else if (!(rc = registry_list(reg, o->group, &lists[nl], err))) {
                names[nl] = HX_TIER_REGISTRY;
                out->total_candidates += lists[nl++].total_candidates;
            }
        }
    }
    out->group = o->group;
    out->keyword_bound = lists && !rc && n ? lists[0].keyword_bound : 0;
    if (!rc)
        rc = merge(names, lists, nl, o, out, err);
    for (size_t t = 0; lists && t < n; t++)
        hx_results_free(&lists[t]);
    if (lists && nl > n)
        free(lists[n].v);   /* the registry's entries own nothing: reg->res does */
    free(lists);
    free(names);
    if (rc) {
        hx_results_free(out);
        if (reg)
            hxi_registry_results_free(&reg->res);
        return rc;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->search_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    return 0;
}

int hx_tiers_search(const hx_tier *tiers, size_t n, hx_encoder *enc, const char *query, size_t len,
                    const hx_search_opts *o, hx_results *out, hx_error *err)
{
    return hxi_tiers_search_registry(tiers, n, NULL, enc, query, len, o, out, err);
}

int hx_tier_open(hx_index **out, const char *path, const hx_model *model, const hx_identity *id, char *why,
                 size_t cap, hx_error *err)
{
    hx_precision p;
    *out = NULL;
    why[0] = 0;
    int rc = hx_index_precision(path, &p, err);
    if (rc == HX_ENOTFOUND)
        return snprintf(why, cap, "no index at %s", path), 0;
    if (rc)
        return rc;
    if (model && p != hx_model_precision(model))
        return snprintf(why, cap, "%s holds %s vectors and this search embeds at %s", path, hx_precision_name(p),
                        hx_precision_name(hx_model_precision(model))), 0;
    if ((rc = hx_index_open(out, path, HX_INDEX_READ, model, NULL, err)) || !id)
        return rc;
    if ((rc = hx_index_set_identity(*out, id, err))) {
        hx_index_close(*out);
        *out = NULL;
    }
    return rc;
}

int hx_tier_read_at(hx_index *ix, const hx_read_context *ctx, hx_read_taken *taken, char *why, size_t cap,
                    hx_error *err)
{
    why[0] = 0;
    bool timed = ctx && ctx->selector == HX_READ_AS_OF;
    int rc = hx_index_read_at(ix, timed ? ctx : NULL, taken, err);
    if (rc == HX_ENOTFOUND && timed) {
        char when[40];
        hx_time_format(ctx->as_of_ns, when, sizeof when);
        snprintf(why, cap, "no commit at or before %s", when);
        return hx_index_read_at(ix, NULL, taken, err);   /* back at the head, not consulted */
    }
    return rc;
}
