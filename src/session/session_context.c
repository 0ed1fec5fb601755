/* session_context.c: hx_session_context (hyrax.h "Session: context for a question"), what get_context
 * answers: a search's chunks merged into passages (passage.h), each passage widened by its
 * neighbours in the same section when asked, and as many passages as fit the token budget
 * assembled under "[n]" headers. The search is session_search.c's; no JSON here. */
#include "session_internal.h"

#include "alloc.h"
#include "passage.h"
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hx_context_query_init(hx_context_query *q, const char *query)
{
    memset(q, 0, sizeof *q);
    hx_session_query_init(&q->search, query);
    q->search.opts.k = HX_CONTEXT_CANDIDATES;
    q->search.opts.group = HX_GROUP_CHUNK;
    q->search.opts.snippets = 0;
    q->max_tokens = HX_CONTEXT_TOKENS;
    q->max_passages = HX_CONTEXT_PASSAGES;
    q->neighbours = true;
}

void hx_context_free(hx_context *c)
{
    if (!c)
        return;
    hxi_passages *ps = c->keep;
    if (ps)
        hxi_passages_free(ps);
    free(ps);
    free(c->text);
    free(c->sources);
    hx_session_answer_free(&c->answer);
    memset(c, 0, sizeof *c);
}

/* === Neighbours === */

/* The reader that answered r: the project's or the user's; NULL for the registry's (whose chunks
 * have no neighbours to read). */
static hx_index *tier_reader(const hx_session *s, const hx_result *r)
{
    if (r->tier && !strcmp(r->tier, HX_TIER_USER))
        return s->user_ix;
    return !r->tier || !strcmp(r->tier, HX_TIER_PROJECT) ? s->project : NULL;
}

/* True when chunk id of the tier named `tier` is in a passage of ps already. */
static bool taken(const hxi_passages *ps, const char *tier, uint32_t id)
{
    for (size_t i = 0; i < ps->n; i++)
        for (size_t c = 0; ps->v[i].first->tier == tier && c < ps->v[i].n_chunks; c++)
            if (ps->v[i].chunk_ids[c] == id)
                return true;
    return false;
}

/* Widens passage p by the chunk before its first and the one after its last, when they are of its
 * document and section (the same heading) and in no passage yet. */
static int add_neighbours(hx_index *ix, hxi_passages *ps, hxi_passage *p, hx_error *err)
{
    hx_doc_info d;
    if (hx_index_doc_by_id(ix, p->first->doc_id, &d))
        return 0;
    uint32_t lo = p->chunk_ids[0], hi = lo;
    for (size_t c = 1; c < p->n_chunks; c++) {
        lo = p->chunk_ids[c] < lo ? p->chunk_ids[c] : lo;
        hi = p->chunk_ids[c] > hi ? p->chunk_ids[c] : hi;
    }
    const uint32_t edge[2] = {lo, hi}, next[2] = {lo - 1, hi + 1};
    for (int side = 0; side < 2; side++) {
        hx_result at, nb;
        bool inside = next[side] >= d.first_chunk && next[side] - d.first_chunk < d.n_chunks;
        if (!inside || taken(ps, p->first->tier, next[side]) || hx_index_chunk(ix, edge[side], &at, NULL) ||
            hx_index_chunk(ix, next[side], &nb, NULL) || strcmp(at.heading, nb.heading))
            continue;
        int rc = hxi_passage_extend(p, &nb, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* === Assembly === */

/* "[label] path (lines a-b) title > heading\n" ("pages a-b" for a paged document) into buf; the
 * title is left out when the heading path starts with it already. Its length. */
static size_t header(char *buf, size_t cap, size_t label, const hxi_passage *p)
{
    const char *title = p->first->title, *heading = p->first->heading;
    size_t tl = strlen(title);
    if (!strncmp(heading, title, tl) && (!heading[tl] || !strncmp(heading + tl, " > ", 3)))
        title = "";
    bool paged = p->first->unit && !strcmp(p->first->unit, "page");
    int n = snprintf(buf, cap, "[%zu] %s (%s %u-%u) %s%s%s\n", label, p->first->path, paged ? "pages" : "lines",
                     p->line_start, p->line_end, title, *title && *heading ? " > " : "", heading);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : strlen(buf);
}

/* The model whose tokenizer counts the budget: the one the search embedded with (any precision
 * tokenizes alike; a keyword search opens it here). */
static int counting_model(hx_session *s, const hx_session_answer *a, const hx_model **m, hx_error *err)
{
    bool user_first = a->n_tiers && !strcmp(a->tiers[0].name, HX_TIER_USER);
    return session_model(s, session_query_precision(s, user_first ? s->user_precision : s->project_precision), m,
                         err);
}

typedef struct {
    const hx_context_query *q;
    hx_context *out;
} context_call;

/* Passages in rank order, each widened when asked, while they fit the budget, up to max_passages; one
 * that does not fit is dropped and the next tried. Labels count the passages kept. */
static int context_run(hx_session *s, void *arg, hx_error *err)
{
    context_call *c = arg;
    hx_context *out = c->out;
    hxi_passages *ps = out->keep;
    const hx_model *m;
    int rc = hxi_passages_build(&out->answer.results, ps, err);
    if (!rc)
        rc = counting_model(s, &out->answer, &m, err);
    if (rc)
        return rc;
    if (ps->n && !(out->sources = hx_calloc(ps->n, sizeof *out->sources)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory assembling the context");
    hxi_buf text = {0};
    for (size_t i = 0; i < ps->n && out->n_sources < c->q->max_passages; i++) {
        hxi_passage *p = &ps->v[i];
        hx_index *ix = tier_reader(s, p->first);
        if (c->q->neighbours && ix && (rc = add_neighbours(ix, ps, p, err)))
            break;
        char head[600];
        size_t hl = header(head, sizeof head, out->n_sources + 1, p), tl = strlen(p->text);
        size_t n_tok = hx_model_count_tokens(m, head, hl) + hx_model_count_tokens(m, p->text, tl);
        if (out->tokens + n_tok > out->max_tokens) {   /* a lower-ranked passage that fits may still come */
            out->dropped++;
            continue;
        }
        if (text.len)
            hxi_buf_bytes(&text, "\n", 1);
        hxi_buf_bytes(&text, head, hl);
        hxi_buf_bytes(&text, p->text, tl);
        hxi_buf_bytes(&text, "\n", 1);
        out->tokens += n_tok;
        out->sources[out->n_sources] = (hx_context_source){
            out->n_sources + 1, p->first, p->line_start, p->line_end, p->relevance, n_tok, p->chunk_ids, p->n_ranked,
            p->n_chunks, hx_session_answer_generation(&out->answer, p->first), hl + tl + 1};
        out->n_sources++;
    }
    hxi_buf_bytes(&text, "", 1);   /* the NUL */
    if (!rc && text.failed)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory assembling the context");
    if (rc) {
        hxi_buf_free(&text);
        return rc;
    }
    out->text = (char *)text.data;
    out->len = text.len - 1;
    return 0;
}

int hx_session_context(hx_session *s, const hx_context_query *q, hx_context *out, hx_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!s || !q || !out)
        return hx_error_set(err, HX_EINVAL, -1, "hx_session_context needs a session, a query and an answer");
    uint32_t budget = q->max_tokens ? q->max_tokens : HX_CONTEXT_TOKENS;
    if (budget < HX_CONTEXT_TOKENS_MIN || budget > HX_CONTEXT_TOKENS_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "max_tokens must be %d to %d, not %u", HX_CONTEXT_TOKENS_MIN,
                            HX_CONTEXT_TOKENS_MAX, budget);
    if (q->max_passages > HX_CONTEXT_CANDIDATES)
        return hx_error_set(err, HX_EINVAL, -1, "max_passages must be 1 to %d, not %u", HX_CONTEXT_CANDIDATES,
                            q->max_passages);
    if (q->search.source == HX_SEARCH_REGISTRY)
        return hx_error_set(err, HX_EINVAL, -1, "a context is assembled from the project and user indexes; search "
                            "the registry alone with hx_session_search");
    hx_context_query cq = *q;
    cq.max_passages = q->max_passages ? q->max_passages : HX_CONTEXT_PASSAGES;
    cq.search.opts.k = q->search.opts.k ? q->search.opts.k : HX_CONTEXT_CANDIDATES;
    cq.search.opts.group = HX_GROUP_CHUNK;   /* passages are made of chunks */
    cq.search.opts.snippets = 0;
    out->max_tokens = budget;
    int rc = session_search(s, &cq.search, "get_context", &out->answer, err);
    if (!rc && !(out->keep = hx_calloc(1, sizeof(hxi_passages))))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    context_call c = {&cq, out};
    if (!rc)
        rc = session_guarded(s, context_run, &c, err);
    if (rc)
        hx_context_free(out);
    return rc;
}
