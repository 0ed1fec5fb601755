/* session_context.c: hx_session_context (hyrax.h "Session: context for a question"), what get_context
 * answers: a search's chunks merged into passages (passage.h), each passage widened by its
 * neighbours in the same section when asked, and as many passages as fit the token budget
 * assembled under "[n]" headers; then, when asked, the items those passages' rel_<verb> pairs name
 * (`hyrax help filters`, "Relationships"), each under a header saying the relationship. The search is
 * session_search.c's; no JSON here. */
#include "session_internal.h"

#include "alloc.h"
#include "doctype.h"
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
    q->relationships = true;
}

/* One item added by relationships: its chunks (as the index gives them) and their passage. */
typedef struct related {
    hx_results chunks;
    hxi_passages ps;
    char relation[64];         /* the relationship in words */
} related;

/* What a context owns besides its text and sources (hx_context.keep). */
typedef struct context_keep {
    hxi_passages ps;           /* the search's passages */
    related **rel;             /* n_rel items added by relationships */
    size_t n_rel;
} context_keep;

void hx_context_free(hx_context *c)
{
    if (!c)
        return;
    context_keep *k = c->keep;
    if (k) {
        hxi_passages_free(&k->ps);
        for (size_t i = 0; i < k->n_rel; i++) {
            hxi_passages_free(&k->rel[i]->ps);
            hx_results_free(&k->rel[i]->chunks);
            free(k->rel[i]);
        }
        free(k->rel);
    }
    free(k);
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

/* Whether two chunks of a document are text of the same unit (a model's element): the same pairs. */
static bool same_unit(const hx_result *a, const hx_result *b)
{
    if (a->n_chunk_meta != b->n_chunk_meta)
        return false;
    for (size_t i = 0; i < a->n_chunk_meta; i++)
        if (strcmp(a->chunk_meta[i].key, b->chunk_meta[i].key) || strcmp(a->chunk_meta[i].value, b->chunk_meta[i].value))
            return false;
    return true;
}

/* Widens passage p by the chunk before its first and the one after its last, when they are of its
 * document and section (the same heading and unit) and in no passage yet. */
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
            hx_index_chunk(ix, next[side], &nb, NULL) || strcmp(at.heading, nb.heading) || !same_unit(&at, &nb))
            continue;
        int rc = hxi_passage_extend(p, &nb, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* === Assembly === */

/* "[label] path (lines a-b) title > heading\n" ("pages a-b" for a paged document) into buf; the
 * title is left out when the heading path starts with it already. An item added by relationships
 * says how first: "[label] is served by [2]: ...". Its length. */
static size_t header(char *buf, size_t cap, size_t label, const hxi_passage *p, const hx_context_source *rel)
{
    const char *title = p->first->title, *heading = p->first->heading;
    size_t tl = strlen(title);
    if (!strncmp(heading, title, tl) && (!heading[tl] || !strncmp(heading + tl, " > ", 3)))
        title = "";
    bool paged = p->first->unit && !strcmp(p->first->unit, "page");
    char how[96] = "";
    if (rel)
        snprintf(how, sizeof how, "%s [%zu]: ", rel->relation, rel->related_to);
    int n = snprintf(buf, cap, "[%zu] %s%s (%s %u-%u) %s%s%s\n", label, how, p->first->path, paged ? "pages" : "lines",
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
    const hx_model *m;
    hxi_buf text;
} context_call;

/* Adds passage p under its header when it fits the budget (else counts it dropped); rel: how an
 * item added by relationships is related (its relation and related_to), NULL for a found passage.
 * True when added. */
static bool append(context_call *c, hxi_passage *p, const hx_context_source *rel)
{
    hx_context *out = c->out;
    char head[700];
    size_t hl = header(head, sizeof head, out->n_sources + 1, p, rel), tl = strlen(p->text);
    size_t n_tok = hx_model_count_tokens(c->m, head, hl) + hx_model_count_tokens(c->m, p->text, tl);
    if (out->tokens + n_tok > out->max_tokens) {   /* a later passage that fits may still come */
        out->dropped++;
        return false;
    }
    if (c->text.len)
        hxi_buf_bytes(&c->text, "\n", 1);
    hxi_buf_bytes(&c->text, head, hl);
    hxi_buf_bytes(&c->text, p->text, tl);
    hxi_buf_bytes(&c->text, "\n", 1);
    out->tokens += n_tok;
    out->sources[out->n_sources] = (hx_context_source){
        out->n_sources + 1, p->first, p->line_start, p->line_end, p->relevance, n_tok, p->chunk_ids, p->n_ranked,
        p->n_chunks, hx_session_answer_generation(&out->answer, p->first), hl + tl + 1, rel ? rel->relation : NULL,
        rel ? rel->related_to : 0};
    out->n_sources++;
    return true;
}

/* === Relationships === */

/* Where an item_id points: the chunks [first, first + n) of a document. */
typedef struct {
    const char *id;            /* borrowed from the index view */
    uint32_t doc, first, n;
} item_at;

/* The items one index holds, read as they are asked for: the units of the documents looked into,
 * then (once) every document that has an item_id of its own; sorted by item_id. */
typedef struct {
    hx_index *ix;
    item_at *v;
    size_t n, cap;
    uint32_t *docs_read;       /* documents whose units are in v */
    size_t n_docs_read, cap_docs_read;
    bool documents_read;
} item_table;

static int item_put(item_table *t, const char *id, uint32_t doc, uint32_t chunk, uint32_t n, hx_error *err)
{
    item_at *last = t->n ? &t->v[t->n - 1] : NULL;
    if (last && n == 1 && last->doc == doc && last->first + last->n == chunk && !strcmp(last->id, id)) {
        last->n++;   /* a unit of several chunks */
        return 0;
    }
    if (hx_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory following relationships");
    t->v[t->n++] = (item_at){id, doc, chunk, n};
    return 0;
}

static int item_cmp(const void *a, const void *b)
{
    const item_at *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->doc > y->doc) - (x->doc < y->doc);
}

/* Lists the units of document d (its chunks with an item_id pair), once. */
static int read_units(item_table *t, const hx_doc_info *d, hx_error *err)
{
    for (size_t i = 0; i < t->n_docs_read; i++)
        if (t->docs_read[i] == d->id)
            return 0;
    if (hx_grow((void **)&t->docs_read, &t->cap_docs_read, t->n_docs_read + 1, sizeof *t->docs_read, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory following relationships");
    t->docs_read[t->n_docs_read++] = d->id;
    int rc = 0;
    for (uint32_t c = d->first_chunk; !rc && c - d->first_chunk < d->n_chunks; c++) {
        hx_result r;
        const char *id = hx_index_chunk(t->ix, c, &r, NULL) ? NULL : hxi_kv_get(r.chunk_meta, r.n_chunk_meta, "item_id");
        if (id)
            rc = item_put(t, id, d->id, c, 1, err);
    }
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, item_cmp);
    return rc;
}

/* Lists every document whose own metadata has an item_id, once. */
static int read_documents(item_table *t, hx_error *err)
{
    if (t->documents_read)
        return 0;
    t->documents_read = true;
    int rc = 0;
    for (size_t i = 0; !rc && i < hx_index_doc_count(t->ix); i++) {
        hx_doc_info d;
        const char *id = hx_index_doc_at(t->ix, i, &d) ? NULL : hxi_kv_get(d.meta, d.n_meta, "item_id");
        if (id && d.n_chunks)
            rc = item_put(t, id, d.id, d.first_chunk, d.n_chunks, err);
    }
    if (t->n)
        qsort(t->v, t->n, sizeof *t->v, item_cmp);
    return rc;
}

/* The item `id`: a unit of document `doc` first, else any listed; NULL when the index has none. */
static const item_at *item_find(const item_table *t, const char *id, uint32_t doc)
{
    size_t lo = 0, hi = t->n;   /* the first entry not below id */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(t->v[mid].id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const item_at *any = lo < t->n && !strcmp(t->v[lo].id, id) ? &t->v[lo] : NULL;
    for (size_t i = lo; any && i < t->n && !strcmp(t->v[i].id, id); i++)
        if (t->v[i].doc == doc)
            return &t->v[i];
    return any;
}

/* True when a chunk of item `at` is in one of the context's sources already. */
static bool in_context(const hx_context *out, const char *tier, const item_at *at)
{
    for (size_t i = 0; i < out->n_sources; i++)
        for (size_t c = 0; out->sources[i].first->tier == tier && c < out->sources[i].n_chunks; c++)
            if (out->sources[i].chunk_ids[c] - at->first < at->n)
                return true;
    return false;
}

/* Adds item `at` of index t->ix (tier `tier`) as a passage related to source `from` by `key`
 * ("rel_is_served_by"). */
static int add_item(context_call *c, item_table *t, const char *tier, const item_at *at, const char *key,
                    size_t from, hx_error *err)
{
    context_keep *k = c->out->keep;
    related *r = hx_calloc(1, sizeof *r);
    related **grown = r ? hx_realloc(k->rel, (k->n_rel + 1) * sizeof *k->rel) : NULL;
    if (!grown) {
        free(r);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory following relationships");
    }
    k->rel = grown;
    k->rel[k->n_rel++] = r;
    uint32_t n = at->n < HX_GROUP_MORE_MAX ? at->n : HX_GROUP_MORE_MAX;   /* a long item: its start */
    if (!(r->chunks.v = hx_calloc(n, sizeof *r->chunks.v)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory following relationships");
    for (uint32_t i = 0; i < n; i++) {
        if (hx_index_chunk(t->ix, at->first + i, &r->chunks.v[r->chunks.n], NULL))
            continue;
        r->chunks.v[r->chunks.n++].tier = tier;
    }
    int rc = hxi_passages_build(&r->chunks, &r->ps, err);
    if (rc || !r->ps.n)
        return rc;
    size_t w = 0;
    for (const char *p = key + 4; *p && w + 1 < sizeof r->relation; p++)
        r->relation[w++] = *p == '_' ? ' ' : *p;
    hx_context_source how = {.relation = r->relation, .related_to = from};
    r->ps.v[0].relevance = 0;   /* found by a relationship, not by the question */
    append(c, &r->ps.v[0], &how);
    return 0;
}

/* Adds the items the rel_ pairs of source i's chunks (and of its document) name. */
static int follow(hx_session *s, context_call *c, size_t i, item_table *tables, hx_error *err)
{
    hx_context *out = c->out;
    const hx_context_source src = out->sources[i];
    hx_index *ix = tier_reader(s, src.first);
    if (!ix)
        return 0;
    item_table *t = &tables[ix == s->project ? 0 : 1];
    t->ix = ix;
    hx_doc_info d;
    if (hx_index_doc_by_id(ix, src.first->doc_id, &d))
        return 0;
    int rc = 0;
    for (size_t ch = 0; !rc && ch <= src.n_chunks; ch++) {   /* each chunk's pairs, then the document's */
        hx_result r = {0};
        if (ch < src.n_chunks && hx_index_chunk(ix, src.chunk_ids[ch], &r, NULL))
            continue;
        const hx_kv *kv = ch < src.n_chunks ? r.chunk_meta : d.meta;
        size_t n = ch < src.n_chunks ? r.n_chunk_meta : d.n_meta;
        for (size_t p = 0; !rc && p < n && ((context_keep *)out->keep)->n_rel < HX_CONTEXT_RELATED; p++) {
            if (strncmp(kv[p].key, "rel_", 4) || !kv[p].key[4])
                continue;
            const item_at *at = (rc = read_units(t, &d, err)) ? NULL : item_find(t, kv[p].value, d.id);
            if (!rc && !at && !(rc = read_documents(t, err)))
                at = item_find(t, kv[p].value, d.id);
            if (!rc && at && !in_context(out, src.first->tier, at))
                rc = add_item(c, t, src.first->tier, at, kv[p].key, src.label, err);
        }
    }
    return rc;
}

static int add_related(hx_session *s, context_call *c, hx_error *err)
{
    item_table tables[2] = {{0}};   /* the project's index, the user's */
    int rc = 0;
    for (size_t i = 0, found = c->out->n_sources; !rc && i < found; i++)
        rc = follow(s, c, i, tables, err);
    for (int i = 0; i < 2; i++) {
        free(tables[i].v);
        free(tables[i].docs_read);
    }
    return rc;
}

/* Passages in rank order, each widened when asked, while they fit the budget, up to max_passages; one
 * that does not fit is dropped and the next tried. Labels count the passages kept. Then the items
 * their relationships name, when asked. */
static int context_run(hx_session *s, void *arg, hx_error *err)
{
    context_call *c = arg;
    hx_context *out = c->out;
    hxi_passages *ps = &((context_keep *)out->keep)->ps;
    int rc = hxi_passages_build(&out->answer.results, ps, err);
    if (!rc)
        rc = counting_model(s, &out->answer, &c->m, err);
    if (rc)
        return rc;
    size_t room = ps->n + (c->q->relationships ? HX_CONTEXT_RELATED : 0);
    if (room && !(out->sources = hx_calloc(room, sizeof *out->sources)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory assembling the context");
    for (size_t i = 0; i < ps->n && out->n_sources < c->q->max_passages; i++) {
        hxi_passage *p = &ps->v[i];
        hx_index *ix = tier_reader(s, p->first);
        if (c->q->neighbours && ix && (rc = add_neighbours(ix, ps, p, err)))
            break;
        append(c, p, NULL);
    }
    if (!rc && c->q->relationships)
        rc = add_related(s, c, err);
    hxi_buf_bytes(&c->text, "", 1);   /* the NUL */
    if (!rc && c->text.failed)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory assembling the context");
    if (rc) {
        hxi_buf_free(&c->text);
        return rc;
    }
    out->text = (char *)c->text.data;
    out->len = c->text.len - 1;
    return 0;
}

int hx_session_context(hx_session *s, const hx_context_query *q, hx_context *out, hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && q && out, __func__, "a session, a query and an answer", err);
    if (rc)
        return rc;
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
    rc = session_search(s, &cq.search, "get_context", &out->answer, err);
    if (!rc && !(out->keep = hx_calloc(1, sizeof(context_keep))))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    context_call c = {.q = &cq, .out = out};
    if (!rc)
        rc = session_guarded(s, context_run, &c, err);
    if (rc)
        hx_context_free(out);
    return rc;
}
