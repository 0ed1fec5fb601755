/* cmd_search.c: `hyrax search`: the project index, the user index and the registry searched as
 * one (`hyrax help tiers`, "Registry"), or one of them alone; results as text or as MCP's search JSON.
 * Its help text and run function; its options are rows of options.c. */
#include "cli.h"
#include "json.h"
#include "present.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* === search === */

const char search_about[] =
    "Searches the index and prints the best documents (or chunks), best first. The words of QUERY\n"
    "are joined by spaces. Keyword syntax: \"exact phrase\", -exclude, +require, prefix*; put a\n"
    "query word that starts with - after -- (hyrax search -- pods -windows).\n";

/* Orders a result's other chunks by line (qsort). */
static int by_line(const void *a, const void *b)
{
    const hx_result *x = a, *y = b;
    return x->line_start != y->line_start ? (x->line_start > y->line_start) - (x->line_start < y->line_start)
                                          : (x->line_end > y->line_end) - (x->line_end < y->line_end);
}

/* The results as text: colour, bold matches and wrapping as term.c decides. */
static int print_results_text(const hx_results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const hx_result *x = &r->v[i];
        size_t tl = strlen(x->title);
        bool heading_has_title = !strncmp(x->heading, x->title, tl) && (!x->heading[tl] || x->heading[tl] == ' ');
        const char *title = heading_has_title ? "" : x->title;
        printf("%u. ", x->rank);
        term_style(stdout, "1;35");
        put_text(stdout, x->path, SIZE_MAX, false);
        term_style(stdout, NULL);
        bool paged = x->unit && !strcmp(x->unit, "page");   /* a PDF's numbers are its pages */
        printf("%s%u-%u  (score %.4f", paged ? ": page " : ":", x->line_start, x->line_end, (double)x->score);
        if (x->score != x->relevance)
            printf(", relevance %.4f", (double)x->relevance);
        printf("%s%s", x->tier ? ", " : "", x->tier ? x->tier : "");
        if (hxi_present_item_type(x)) {   /* a Kiwi item: directive, script or knowledge */
            fputs(", ", stdout);
            put_text(stdout, hxi_present_item_type(x), SIZE_MAX, false);
        }
        fputs(")\n   ", stdout);
        put_text(stdout, title, SIZE_MAX, false);
        fputs(*title && *x->heading ? " > " : "", stdout);
        put_text(stdout, x->heading, SIZE_MAX, false);
        fputs("\n   ", stdout);
        if (*x->signer) {
            fputs("signed by ", stdout);
            put_text(stdout, x->signer, SIZE_MAX, false);
            fputs("\n   ", stdout);
        }
        put_snippet(stdout, x->snippet ? x->snippet : "", 3);
        putchar('\n');
        if (x->n_more)   /* the answer is printed once: its order is ours */
            qsort(x->more, x->n_more, sizeof *x->more, by_line);
        /* Each range once: chunks cut from the same lines (a long line, a split definition) and
         * the answer's own range are not repeated. */
        uint32_t last_start = x->line_start, last_end = x->line_end;
        size_t shown = 0;
        for (size_t m = 0; m < x->n_more; m++) {
            const hx_result *o = &x->more[m];
            if ((o->line_start == last_start && o->line_end == last_end) ||
                (o->line_start == x->line_start && o->line_end == x->line_end))
                continue;
            printf("%s%u-%u", shown++ ? ", " : paged ? "   also pages " : "   also lines ", o->line_start, o->line_end);
            last_start = o->line_start;
            last_end = o->line_end;
        }
        if (shown)
            putchar('\n');
    }
    printf("%zu %s in %.1f ms\n", r->n, plural(r->n, "result", "results"), r->search_ms);
    return 0;
}

/* The answer of --json: w finished and printed as one line, then freed. 0, or 1 after the message. */
static int print_json(hxi_json_writer *w)
{
    hx_error err = {0};
    int rc = hxi_json_writer_finish(w, &err);
    if (rc) {
        put_line(stderr, "hyrax search: ", err.message);
    } else {
        fwrite(w->buf, 1, w->len, stdout);
        putchar('\n');
    }
    hxi_json_writer_free(w);
    return rc ? 1 : 0;
}

typedef struct {
    hx_session *s;
    const char *db;
    const hx_session_query *q;
    int json;
} search_job;

/* `hyrax search --source registry`: the registry asked within --registry-timeout (the query
 * embedded at fp32). An unreachable or slow registry is not an error: the answer says it was not
 * consulted (JSON "registry": {"consulted": false, "reason"}) and has no results. */
static int print_registry(const search_job *j, const hx_session_answer *ans)
{
    const char *why = ans->tiers[0].reason;
    if (why)
        put_line(stderr, "hyrax search: warning: registry not consulted: ", why);
    if (j->json) {
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_present_registry_search(&w, j->q->query, j->q->opts.mode, &ans->results, ans->registry, why);
        if (print_json(&w))
            return 1;
    } else {
        print_results_text(&ans->results);
    }
    return fflush(stdout) ? 1 : 0;
}

/* Searches the tiers j->q names through the session and prints; the exit status. Runs under
 * guarded(): the answer's strings are read from the index files while printing. */
static int run_search(void *arg)
{
    const search_job *j = arg;
    hx_session_answer ans;
    hx_error err = {0};
    hxi_tier_status st[3];
    hx_precision p;
    bool project = j->q->source == HX_SEARCH_ALL || j->q->source == HX_SEARCH_PROJECT;
    if (project && hx_index_precision(j->db, &p, &err) == HX_ENOTFOUND) {
        fprintf(stderr, "hyrax search: %s\n", err.message);   /* the command line's words for no index */
        return 1;
    }
    if (hx_session_search(j->s, j->q, &ans, &err)) {
        if (err.code == HX_ECHANGED)
            fprintf(stderr, "hyrax search: %s; run it again\n", HX_FAULT_MESSAGE);   /* as guarded() says it */
        else
            fprintf(stderr, "hyrax search: %s\n", err.message);
        return 1;
    }
    if (j->q->source == HX_SEARCH_REGISTRY) {
        int rrc = print_registry(j, &ans);
        hx_session_answer_free(&ans);
        return rrc;
    }
    if (!ans.results.n && filter_keys_check("search", j->s, j->q)) {   /* a misspelt key, not an empty answer */
        hx_session_answer_free(&ans);
        return 1;
    }
    size_t ns = hxi_present_answer_tiers(&ans, st), nt = 0;
    for (size_t i = 0; i < ns; i++)
        nt += ans.tiers[i].searched && strcmp(st[i].name, HX_TIER_REGISTRY);
    hx_read_taken taken = {0};   /* the first local tier's commit; none read: the head */
    if (nt)
        taken = ans.taken;
    if (ns && !strcmp(st[ns - 1].name, HX_TIER_REGISTRY) && st[ns - 1].absent)
        put_line(stderr, "hyrax search: warning: registry not consulted: ", st[ns - 1].absent);
    int rc = 1;
    if (j->json) {
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_present_search_tiers(&w, j->q->query, j->q->opts.mode, &ans.results, &taken, st, ns);
        if (print_json(&w))
            goto done;
    } else {
        if (nt && taken.selector != HX_READ_HEAD) {
            char when[40];
            hx_time_format(taken.commit.committed_ns, when, sizeof when);
            printf("as of generation %llu%s%s, committed %s\n", (unsigned long long)taken.commit.generation,
                   taken.commit.name[0] ? ", baseline " : "", taken.commit.name, when);
        }
        if (j->q->source == HX_SEARCH_USER && st[0].absent)   /* asked for it alone: say why it answers nothing */
            put_line(stdout, "user tier not consulted: ", st[0].absent);
        print_results_text(&ans.results);
    }
    rc = fflush(stdout) ? 1 : 0;
done:
    hx_session_answer_free(&ans);
    return rc;
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


int cmd_search(const cli_args *a)
{
    const char *db = db_opt(a), *v;
    hx_session_query q;   /* what search starts from, then the options */
    hx_session_query_init(&q, NULL);
    hx_search_opts *o = &q.opts;
    hx_filter_set filters = {0};
    char *query = NULL, *recency_key = NULL;   /* KEY of --recency KEY:DAYS, owned */
    size_t qlen = 0, pos = 0;
    int rc = 2;
    hx_identity id;
    const hx_identity *identity;
    if (identity_opt(a, "search", &id, &identity))
        goto done;
    term_setup(a);
    if ((v = opt_str(a, "--mode")))
        hx_mode_parse(v, &o->mode);   /* the table checked the name */
    if ((v = opt_str(a, "--group")))
        hx_group_parse(v, &o->group);
    if ((v = opt_str(a, "--fusion")))
        hx_fusion_parse(v, &o->fusion);   /* the table checked the name */
    o->k = (uint32_t)opt_long(a, "--top-k", o->k);
    o->ef = (uint32_t)opt_long(a, "--ef", o->ef);
    o->rank_window = (uint32_t)opt_long(a, "--rank-window", o->rank_window);
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
        o->min_score = strtof(v, &end);
        if (*end || end == v || isnan(o->min_score)) {
            fprintf(stderr, "hyrax search: --min-score wants a number, not '%s'\n", v);
            goto done;
        }
    }
    if (fusion_weights_opt(a, o))
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
        o->recency_key = recency_key;
        o->recency_half_life_days = days;
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
        char *grown = hx_realloc(query, qlen + l + 2);
        if (!grown) {
            rc = 1;
            goto done;
        }
        query = grown;
        if (qlen)
            query[qlen++] = ' ';
        memcpy(query + qlen, a->operands[i], l + 1);
        qlen += l;
    }
    o->filters = filters.v;
    o->n_filters = filters.n;
    hx_search_source source = HX_SEARCH_ALL;
    if ((v = opt_str(a, "--source")))
        hx_search_source_parse(v, &source);   /* the table checked the name */
    if (source == HX_SEARCH_REGISTRY && at.selector == HX_READ_BASELINE) {
        fputs("hyrax search: the registry has no baselines; --as-of TIME reads what was published by then\n", stderr);
        goto done;
    }
    if (source == HX_SEARCH_USER && at.selector == HX_READ_BASELINE) {
        fputs("hyrax search: --baseline names a commit of the project index; with --source user give --as-of\n", stderr);
        goto done;
    }
    /* the session embeds the query as the first tier's vectors were and counts it (`hyrax help tiers`);
     * the registry alone is found as publish finds it, by libpq's defaults too */
    hx_session_config cfg = {.db = db, .registry = opt_str(a, "--registry"),
                             .registry_defaults = source == HX_SEARCH_REGISTRY,
                             .registry_timeout_ms = (int)opt_long(a, "--registry-timeout", 0), .identity = identity,
                             .weights = opt_str(a, "--model"), .read_only = true,
                             .stats_transport = source == HX_SEARCH_REGISTRY ? NULL : "cli"};
    hx_session *s = NULL;
    hx_error serr = {0};
    rc = 1;
    if (hx_session_open(&s, &cfg, &serr)) {
        put_line(stderr, "hyrax search: ", serr.message);
        goto done;
    }
    q.query = query;
    q.source = source;
    q.at = at;
    search_job job = {s, db, &q, opt_str(a, "--json") != NULL};
    rc = guarded("search", run_search, &job);
    hx_session_close(s);
done:
    hx_filter_set_free(&filters);
    free(query);
    free(recency_key);
    return rc;
}
