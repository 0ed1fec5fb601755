/* cmd_search.c: `hyrax search`: the project index, the user index and the registry searched as
 * one (README "Tiers", "Registry"), or one of them alone; results as text or as MCP's search JSON.
 * Its help text and run function; its options are rows of options.c. */
#include "cli.h"
#include "alloc.h"
#include "filter.h"
#include "fusion.h"
#include "present.h"
#include "registry.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* === search === */

const char search_about[] =
    "Searches the index and prints the best documents (or chunks), best first. The words of QUERY\n"
    "are joined by spaces. Keyword syntax: \"exact phrase\", -exclude, +require, prefix*; put a\n"
    "query word that starts with - after -- (hyrax search -- pods -windows).\n";

static int print_results_text(const hx_results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const hx_result *x = &r->v[i];
        size_t tl = strlen(x->title);
        bool heading_has_title = !strncmp(x->heading, x->title, tl) && (!x->heading[tl] || x->heading[tl] == ' ');
        const char *title = heading_has_title ? "" : x->title;
        printf("%u. ", x->rank);
        put_text(stdout, x->path, SIZE_MAX, false);
        printf(":%u-%u  (score %.4f%s%s)\n   ", x->line_start, x->line_end, (double)x->score, x->tier ? ", " : "",
               x->tier ? x->tier : "");
        put_text(stdout, title, SIZE_MAX, false);
        fputs(*title && *x->heading ? " > " : "", stdout);
        put_text(stdout, x->heading, SIZE_MAX, false);
        fputs("\n   ", stdout);
        if (*x->signer) {
            fputs("signed by ", stdout);
            put_text(stdout, x->signer, SIZE_MAX, false);
            fputs("\n   ", stdout);
        }
        put_text(stdout, x->snippet ? x->snippet : "", SIZE_MAX, true);
        putchar('\n');
        for (size_t m = 0; m < x->n_more; m++)
            printf("%s%u-%u%s", m ? ", " : "   also lines ", x->more[m].line_start, x->more[m].line_end,
                   m + 1 == x->n_more ? "\n" : "");
    }
    printf("%zu results in %.1f ms\n", r->n, r->search_ms);
    return 0;
}

/* The answer of --json: w finished and printed as one line, then freed. 0, or 1 after the message. */
static int print_json(hx_json_writer *w)
{
    hx_error err = {0};
    int rc = hx_json_writer_finish(w, &err);
    if (rc) {
        put_line(stderr, "hyrax search: ", err.message);
    } else {
        fwrite(w->buf, 1, w->len, stdout);
        putchar('\n');
    }
    hx_json_writer_free(w);
    return rc ? 1 : 0;
}

typedef struct {
    const char *db;
    hx_model *model;       /* borrowed; NULL for keyword mode */
    hx_encoder *enc;       /* borrowed */
    const char *query;
    size_t qlen;
    const hx_search_opts *o;
    const hx_read_context *at;   /* the commit to read */
    int json;
    const hx_identity *identity; /* the reader's, or NULL */
    hx_source source;      /* the tiers to read (README "Tiers") */
    const char *user_db;   /* the user index file, or NULL when none can be named ... */
    const char *user_why;  /* ... and then why */
    hx_registry_tier *reg; /* the registry tier (README "Registry"), or NULL when none is named */
} search_job;

/* Opens the tiers j->source names -- the project index, then the user index when there is one
 * (hx_tier_open, hx_tier_read_at say when it is not consulted) -- into tiers and their status into
 * st; *taken gets the first tier's commit. 0, or 1 after the message. */
static int open_tiers(const search_job *j, hx_index **ix, hx_tier *tiers, size_t *nt, hx_tier_status *st, size_t *ns,
                      hx_read_taken *taken, char *why, size_t cap)
{
    hx_error err = {0};
    hx_read_taken user_taken = {0};
    if (j->source != HX_SOURCE_USER) {
        if (open_reader(&ix[0], j->db, j->model, j->identity, &err) ||
            hx_index_read_at(ix[0], j->at, taken, &err))
            goto fail;
        tiers[(*nt)++] = (hx_tier){HX_TIER_PROJECT, ix[0]};
        st[(*ns)++] = (hx_tier_status){HX_TIER_PROJECT, j->db, NULL, taken->commit.generation};
    }
    if (j->source == HX_SOURCE_PROJECT)
        return 0;
    snprintf(why, cap, "%s", j->user_db ? "" : j->user_why);
    if (j->user_db && (hx_tier_open(&ix[1], j->user_db, j->model, j->identity, why, cap, &err) ||
                       (ix[1] && hx_tier_read_at(ix[1], j->at, &user_taken, why, cap, &err))))
        goto fail;
    if (!why[0]) {
        tiers[(*nt)++] = (hx_tier){HX_TIER_USER, ix[1]};
        if (*nt == 1)
            *taken = user_taken;
    }
    st[(*ns)++] = (hx_tier_status){HX_TIER_USER, j->user_db ? j->user_db : "", why[0] ? why : NULL,
                                   user_taken.commit.generation};
    return 0;
fail:
    fprintf(stderr, "hyrax search: %s\n", err.message);
    return 1;
}

/* Opens the tiers, searches them as one and prints; the exit status. Runs under guarded(). */
static int run_search(void *arg)
{
    const search_job *j = arg;
    hx_index *ix[2] = {NULL, NULL};
    hx_tier tiers[2];
    hx_tier_status st[3];
    size_t nt = 0, ns = 0;
    char why[600];
    hx_results res = {0};
    hx_error err = {0};
    hx_read_taken taken = {0};
    int rc = 1;
    if (open_tiers(j, ix, tiers, &nt, st, &ns, &taken, why, sizeof why))
        goto done;
    res.group = j->o->group;
    bool asks = j->reg && j->reg->r;
    if ((nt || asks) && hx_tiers_search_registry(tiers, nt, j->reg, j->enc, j->query, j->qlen, j->o, &res, &err)) {
        fprintf(stderr, "hyrax search: %s\n", err.message);
        goto done;
    }
    if (j->reg) {
        st[ns++] = (hx_tier_status){HX_TIER_REGISTRY, NULL, j->reg->why[0] ? j->reg->why : NULL, 0};
        if (j->reg->why[0])
            put_line(stderr, "hyrax search: warning: registry not consulted: ", j->reg->why);
    }
    if (j->json) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_present_search_tiers(&w, j->query, j->o->mode, &res, &taken, st, ns);
        if (print_json(&w))
            goto done;
    } else {
        if (nt && taken.selector != HX_READ_HEAD) {
            char when[40];
            hx_time_format(taken.commit.committed_ns, when, sizeof when);
            printf("as of generation %llu%s%s, committed %s\n", (unsigned long long)taken.commit.generation,
                   taken.commit.name[0] ? ", baseline " : "", taken.commit.name, when);
        }
        if (j->source == HX_SOURCE_USER && st[0].absent)   /* asked for it alone: say why it answers nothing */
            put_line(stdout, "user tier not consulted: ", st[0].absent);
        print_results_text(&res);
    }
    rc = fflush(stdout) ? 1 : 0;
    hx_stats *stats = NULL;   /* counted in the lasting statistics; never fails the search */
    if (!hx_stats_open(&stats, j->db, j->identity, 0, NULL)) {
        hx_stats_note_latency(stats, "search", "cli", res.search_ms);
        hx_stats_note_query(stats, j->query);
    }
    hx_stats_close(stats);
done:
    hx_results_free(&res);
    hx_index_close(ix[0]);
    hx_index_close(ix[1]);
    return rc;
}

typedef struct {
    const char *db;
    hx_precision precision;
} precision_job;

/* The index's precision into j->precision; the exit status (1 with a message when there is no
 * index; any other failure is left to the open that follows). Runs under guarded(). */
static int read_precision(void *arg)
{
    precision_job *j = arg;
    hx_error err = {0};
    if (hx_index_precision(j->db, &j->precision, &err) == HX_ENOTFOUND) {
        fprintf(stderr, "hyrax search: %s\n", err.message);
        return 1;
    }
    return 0;
}

/* --fusion-weights V,T into o; prints the problem and returns 1 when bad (hx_fusion_check_weights
 * is the rule, shared with MCP). */
static int fusion_weights_opt(const cli_args *a, hx_search_opts *o)
{
    const char *v = opt_str(a, "--fusion-weights");
    char *comma, *end;
    hx_error werr = {0};
    if (!v)
        return 0;
    o->vector_weight = strtof(v, &comma);
    if (comma == v || *comma != ',' || (o->text_weight = strtof(comma + 1, &end), end == comma + 1 || *end)) {
        fprintf(stderr, "hyrax search: --fusion-weights wants V,T (two numbers), not '%s'\n", v);
        return 1;
    }
    if (hx_fusion_check_weights(o->vector_weight, o->text_weight, &werr)) {
        fprintf(stderr, "hyrax search: --fusion-weights %s: %s\n", v, werr.message);
        return 1;
    }
    return 0;
}


/* `hyrax search --source registry`: embeds the query, asks the registry within --registry-timeout
 * and prints its results. An unreachable or slow registry is not an error: the answer says it was
 * not consulted (JSON "registry": {"consulted": false, "reason"}) and has no results. */
static int search_registry(const cli_args *a, const char *query, const hx_search_opts *o, int64_t as_of_ns)
{
    hx_error err = {0};
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_registry *r = NULL;
    hx_registry_results res = {0};
    float vec[HX_EMBED_DIM];
    int rc = 1, consulted = 0;
    if (o->mode != HX_MODE_KEYWORD) {
        size_t len = strlen(query);
        if (open_encoder(a, 1, HX_PRECISION_FP32, &model, &enc))
            return 1;
        if (hx_encoder_embed(enc, &query, &len, 1, vec, &err)) {
            put_line(stderr, "hyrax search: ", err.message);
            goto done;
        }
    }
    hx_registry_query q = {query, o->mode != HX_MODE_KEYWORD ? vec : NULL, o->mode, o->k, o->filters, o->n_filters,
                           o->min_score, as_of_ns};
    int timeout = (int)opt_long(a, "--registry-timeout", HX_REGISTRY_TIMEOUT_MS);
    int src = registry_open(a, timeout, &r, &err);
    if (!src)
        src = hx_registry_search(r, &q, &res, &err);
    if (src == HX_ENOMEM || src == HX_EINVAL) {
        put_line(stderr, "hyrax search: ", err.message);
        goto done;
    }
    consulted = src == 0;
    if (!consulted)
        put_line(stderr, "hyrax search: warning: registry not consulted: ", err.message);
    if (opt_str(a, "--json")) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_present_registry_search(&w, query, o->mode, &res, consulted ? NULL : err.message);
        if (print_json(&w))
            goto done;
    } else {
        print_results_text(&res.res);
    }
    rc = fflush(stdout) ? 1 : 0;
done:
    hx_registry_results_free(&res);
    hx_registry_close(r);
    hx_encoder_free(enc);
    hx_model_close(model);
    return rc;
}

int cmd_search(const cli_args *a)
{
    const char *db = db_opt(a), *v;
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.snippets = 1;
    o.group = HX_GROUP_DOCUMENT;
    o.min_score = (float)HX_MIN_RELEVANCE;
    hx_filter_set filters = {0};
    char *query = NULL, *recency_key = NULL;   /* KEY of --recency KEY:DAYS, owned */
    size_t qlen = 0, pos = 0;
    int rc = 2;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_identity id;
    const hx_identity *identity;
    if (identity_opt(a, "search", &id, &identity))
        goto done;
    if ((v = opt_str(a, "--mode")))
        hx_mode_parse(v, &o.mode);   /* the table checked the name */
    if ((v = opt_str(a, "--group")))
        hx_group_parse(v, &o.group);
    o.fusion = opt_str(a, "--fusion") && !strcmp(opt_str(a, "--fusion"), "weighted");
    o.k = (uint32_t)opt_long(a, "--top-k", o.k);
    o.ef = (uint32_t)opt_long(a, "--ef", o.ef);
    while ((v = opt_next(a, "--filter", &pos))) {
        hx_error ferr = {0};
        if (hx_filter_parse_arg(&filters, v, &ferr)) {
            fprintf(stderr, "hyrax search: --filter: %s\n", ferr.message);
            rc = ferr.code == HX_ENOMEM ? 1 : 2;
            goto done;
        }
    }
    if ((v = opt_str(a, "--min-score"))) {
        char *end;
        o.min_score = strtof(v, &end);
        if (*end || end == v || isnan(o.min_score)) {
            fprintf(stderr, "hyrax search: --min-score wants a number, not '%s'\n", v);
            goto done;
        }
    }
    if (fusion_weights_opt(a, &o))
        goto done;
    if ((v = opt_str(a, "--recency"))) {
        const char *colon = strrchr(v, ':');
        char *end;
        double days = colon ? strtod(colon + 1, &end) : NAN;
        if (!colon || colon == v || end == colon + 1 || *end || !(days > 0 && isfinite(days))) {
            fprintf(stderr, "hyrax search: --recency wants KEY:DAYS (a half-life in days > 0), not '%s'\n", v);
            goto done;
        }
        if (!(recency_key = hx_strdup(v))) {
            rc = 1;
            goto done;
        }
        recency_key[colon - v] = 0;
        o.recency_key = recency_key;
        o.recency_half_life_days = days;
    }
    hx_read_context at = {HX_READ_HEAD, NULL, 0};
    if (opt_str(a, "--as-of") && opt_str(a, "--baseline")) {
        fputs("hyrax search: give one of --as-of TIME and --baseline NAME\n", stderr);
        goto done;
    }
    if ((v = opt_str(a, "--baseline"))) {
        at.selector = HX_READ_BASELINE;
        at.baseline_id = v;
    }
    if ((v = opt_str(a, "--as-of"))) {
        hx_error terr = {0};
        at.selector = HX_READ_AS_OF;
        if (hx_time_parse(v, &at.as_of_ns, &terr)) {
            fprintf(stderr, "hyrax search: --as-of: %s\n", terr.message);
            goto done;
        }
    }
    for (size_t i = 0; i < a->n_operands; i++) {   /* the words of the query, joined by spaces */
        size_t l = strlen(a->operands[i]);
        char *q = hx_realloc(query, qlen + l + 2);
        if (!q) {
            rc = 1;
            goto done;
        }
        query = q;
        if (qlen)
            query[qlen++] = ' ';
        memcpy(query + qlen, a->operands[i], l + 1);
        qlen += l;
    }
    o.filters = filters.v;
    o.n_filters = filters.n;
    hx_source source = HX_SOURCE_ALL;
    if ((v = opt_str(a, "--source")))
        hx_source_parse(v, &source);   /* the table checked the name */
    if (source == HX_SOURCE_REGISTRY) {
        if (at.selector == HX_READ_BASELINE) {
            fputs("hyrax search: the registry has no baselines; --as-of TIME reads what was published by then\n", stderr);
            goto done;
        }
        rc = search_registry(a, query, &o, at.selector == HX_READ_AS_OF ? at.as_of_ns : 0);
        goto done;
    }
    if (source == HX_SOURCE_USER && at.selector == HX_READ_BASELINE) {
        fputs("hyrax search: --baseline names a commit of the project index; with --source user give --as-of\n", stderr);
        goto done;
    }
    char user_db[4096];
    hx_error uerr = {0};
    bool has_user_db = hx_tier_user_path(user_db, sizeof user_db, &uerr) == 0;
    rc = 1;
    /* queries are embedded as the index's vectors were: the project's, or the user index's alone */
    precision_job pj = {source == HX_SOURCE_USER ? (has_user_db ? user_db : NULL) : db, HX_PRECISION_FP32};
    bool embeds = o.mode != HX_MODE_KEYWORD && pj.db;
    if (embeds && source == HX_SOURCE_USER && hx_index_precision(pj.db, &pj.precision, &uerr) == HX_ENOTFOUND)
        embeds = false;   /* no user index: nothing to search, which the answer says */
    else if (embeds && guarded("search", read_precision, &pj))
        goto done;
    if (embeds && open_encoder(a, 1, pj.precision, &model, &enc))
        goto done;
    /* the registry, when one is named, is the farthest tier of source all (README "Registry") */
    const char *reg_url = opt_str(a, "--registry") ? opt_str(a, "--registry") : getenv(HX_REGISTRY_ENV);
    hx_registry_tier reg = {.as_of_ns = at.selector == HX_READ_AS_OF ? at.as_of_ns : 0};
    bool with_registry = source == HX_SOURCE_ALL && reg_url && *reg_url;
    if (with_registry && embeds && pj.precision != HX_PRECISION_FP32) {
        snprintf(reg.why, sizeof reg.why, "the project index holds %s vectors and the registry fp32 ones",
                 hx_precision_name(pj.precision));
    } else if (with_registry) {
        hx_error rerr = {0};
        if (registry_open(a, (int)opt_long(a, "--registry-timeout", HX_REGISTRY_TIMEOUT_MS), &reg.r, &rerr)) {
            if (rerr.code == HX_ENOMEM || rerr.code == HX_EINVAL) {
                put_line(stderr, "hyrax search: ", rerr.message);
                goto done;
            }
            snprintf(reg.why, sizeof reg.why, "%s", rerr.message);
        }
    }
    search_job job = {db,         model,   enc,    query, qlen, &o, &at, opt_str(a, "--json") != NULL, identity, source,
                      has_user_db ? user_db : NULL, uerr.message, with_registry ? &reg : NULL};
    rc = guarded("search", run_search, &job);
    hx_registry_results_free(&reg.res);
    hx_registry_close(reg.r);
done:
    hx_encoder_free(enc);
    hx_model_close(model);
    hx_filter_set_free(&filters);
    free(query);
    free(recency_key);
    return rc;
}
