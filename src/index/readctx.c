/* readctx.c: point-in-time reads: resolving a read context (head, published, a baseline, as_of)
 * to a commit of the chain and pointing a reader's view at it, naming baselines, the history of
 * kept commits, and the times read contexts take. Which commits compaction keeps is decided in
 * index_write.c "Compaction"; the chain itself is store.h's. Spec: `hyrax help baselines`,
 * seed 001 section 5.2. */
#include "alloc.h"
#include "filter.h"
#include "ix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const hx_read_selector_names[] = {"head", "published", "baseline_id", "as_of", NULL};

/* === Times === */

int hx_time_parse(const char *s, int64_t *ns, hx_error *err)
{
    size_t n = strspn(s, "0123456789");
    if (n && (s[n] == 0 || s[n] == '.') && n <= 11) {   /* unix seconds, a fraction of up to 9 digits */
        size_t f = s[n] == '.' ? strspn(s + n + 1, "0123456789") : 0;
        if (!s[n] || (f >= 1 && !s[n + 1 + f])) {
            int64_t frac = 0, scale = 100000000;
            for (size_t i = 0; i < f; i++, scale /= 10)
                frac += scale * (s[n + 1 + i] - '0');
            int64_t sec = strtoll(s, NULL, 10);
            if (sec < INT64_MAX / 1000000000) {   /* nanoseconds reach 2262 */
                *ns = sec * 1000000000 + frac;
                return 0;
            }
        }
    } else {   /* ISO-8601: the filter module's reader, the one date rule */
        bool day;
        if (hxi_meta_date(s, ns, &day))
            return 0;
    }
    return hx_error_set(err, HX_EINVAL, -1, "'%.64s' is not a time: give ISO-8601 (2026-01-31, 2026-01-31T12:00:05Z, "
                        "2026-01-31T14:00:05+02:00) or unix seconds", s);
}

void hx_time_format(int64_t ns, char *buf, size_t cap)
{
    int64_t sec = ns / 1000000000, rem = ns % 1000000000;
    if (rem < 0) {   /* before 1970: whole seconds round down */
        sec--;
        rem += 1000000000;
    }
    time_t t = (time_t)sec;
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(rem / 1000000));
}

/* === History === */

static void commit_of(const hxi_store_info *in, hx_commit_info *out)
{
    out->generation = in->generation;
    out->committed_ns = in->timestamp_ns;
    memcpy(out->name, in->name, sizeof out->name);
}

int hx_index_history(hx_index *ix, hx_commit_info **out, size_t *n, hx_error *err)
{
    hxi_store_info *h;
    *out = NULL;
    *n = 0;
    int rc = hxi_store_history(ix->store, &h, n, err);
    if (rc)
        return rc;
    hx_commit_info *c = hx_malloc(sizeof *c * (*n ? *n : 1));
    if (!c) {
        free(h);
        *n = 0;
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    for (size_t i = 0; i < *n; i++)
        commit_of(&h[i], &c[i]);
    free(h);
    *out = c;
    return 0;
}

/* Replaces err's message, which said what was not found, with that plus what the file keeps: the
 * oldest commit and the names a read can ask for. Keeps err's code. */
static int what_is_kept(hx_index *ix, const char *missing, hx_error *err)
{
    hx_commit_info *h;
    size_t n;
    hx_error herr = {0};
    if (hx_index_history(ix, &h, &n, &herr) || !n) {
        free(n ? h : NULL);
        return hx_error_set(err, HX_ENOTFOUND, -1, "%s", missing);
    }
    char when[40], names[512] = "";
    size_t used = 0;
    hx_time_format(h[n - 1].committed_ns, when, sizeof when);
    for (size_t i = 0; i < n; i++) {   /* newest of each name, newest first */
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(h[j].name, h[i].name);
        if (h[i].name[0] && !seen && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", h[i].name);
    }
    int rc = hx_error_set(err, HX_ENOTFOUND, -1, "%s; %s keeps generations %llu to %llu, the oldest committed %s; "
                          "baselines: %s", missing, ix->path, (unsigned long long)h[n - 1].generation,
                          (unsigned long long)h[0].generation, when, used ? names : "none");
    free(h);
    return rc;
}

/* === Reading at a commit === */

/* The commit ctx selects, into *c. */
static int resolve(hx_index *ix, const hx_read_context *ctx, hx_commit_info *c, hx_error *err)
{
    hxi_store_info info;
    char missing[256];
    int rc;
    switch (ctx ? ctx->selector : HX_READ_HEAD) {
    case HX_READ_HEAD:
        c->generation = hxi_store_generation(ix->store);
        c->committed_ns = hxi_store_timestamp(ix->store);
        snprintf(c->name, sizeof c->name, "%s", hxi_store_name(ix->store));
        return 0;
    case HX_READ_PUBLISHED:
    case HX_READ_BASELINE: {
        const char *name = ctx->selector == HX_READ_PUBLISHED ? HX_PUBLISHED : ctx->baseline_id;
        if (!name || !*name)
            return hx_error_set(err, HX_EINVAL, -1, "selector baseline_id needs a baseline_id (a baseline's name)");
        if ((rc = hxi_store_find_name(ix->store, name, &info, err)) != HX_ENOTFOUND)
            break;
        if (ctx->selector == HX_READ_PUBLISHED)
            snprintf(missing, sizeof missing, "nothing is published yet: no baseline is named '" HX_PUBLISHED
                     "' (name one with 'hyrax baseline " HX_PUBLISHED "' or the create_baseline tool)");
        else
            snprintf(missing, sizeof missing, "no baseline named '%.64s' is kept", name);
        return what_is_kept(ix, missing, err);
    }
    case HX_READ_AS_OF: {
        if ((rc = hxi_store_as_of(ix->store, ctx->as_of_ns, &info, err)) != HX_ENOTFOUND)
            break;
        char when[40];
        hx_time_format(ctx->as_of_ns, when, sizeof when);
        snprintf(missing, sizeof missing, "the index as of %s is not kept", when);
        return what_is_kept(ix, missing, err);
    }
    default:
        return hx_error_set(err, HX_EINVAL, -1, "unknown read selector %d", (int)ctx->selector);
    }
    if (rc == 0)
        commit_of(&info, c);
    return rc;
}

int hx_index_read_at(hx_index *ix, const hx_read_context *ctx, hx_read_taken *taken, hx_error *err)
{
    if (ix->writer && ctx && ctx->selector != HX_READ_HEAD)
        return hx_error_set(err, HX_EPERM, -1, "a writer reads only the head of the index");
    int rc = hxi_store_refresh(ix->store, err);
    if (rc < 0)
        return rc;
    bool moved = rc == 1;   /* the map changed: every pointer of the view is stale */
    hx_commit_info c = {0};
    int rrc = resolve(ix, ctx, &c, err);
    uint64_t pin = rrc == 0 && c.generation != hxi_store_generation(ix->store) ? c.generation : 0;
    if (moved || pin != ix->at.generation) {
        hx_error lerr = {0};
        ix_view_free(&ix->v);
        ix->at = pin ? c : (hx_commit_info){0};
        rc = ix_view_load(ix, &lerr);
        if (rc && pin) {   /* back to the head, so the handle stays usable */
            ix_view_free(&ix->v);
            ix->at = (hx_commit_info){0};
            hx_error ignored;
            ix_view_load(ix, &ignored);
        }
        if (rc && !rrc) {
            if (err)
                *err = lerr;
            return rc;
        }
    }
    if (rrc)
        return rrc;
    if (taken) {
        taken->selector = ctx ? ctx->selector : HX_READ_HEAD;
        taken->as_of_ns = ctx && ctx->selector == HX_READ_AS_OF ? ctx->as_of_ns : 0;
        taken->commit = c;
    }
    return 0;
}

/* === Naming baselines === */

int hx_index_baseline(hx_index *ix, const char *name, hx_commit_info *made, hx_error *err)
{
    if (!ix->writer)
        return hx_error_set(err, HX_EPERM, -1, "the index is open read-only");
    size_t n = strlen(name);
    bool ok = n >= 1 && n <= HX_BASELINE_NAME_MAX;
    for (size_t i = 0; i < n && ok; i++)
        ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
             (name[i] >= '0' && name[i] <= '9') || strchr("._:-", name[i]);
    if (!ok)
        return hx_error_set(err, HX_EINVAL, -1, "a baseline name is 1 to %d letters, digits, '.', '_', ':' or '-', "
                            "not '%.80s'", HX_BASELINE_NAME_MAX, name);
    const uint8_t *root;
    size_t len;
    hxi_store_root(ix->store, &root, &len);
    int rc = hxi_store_commit(ix->store, root, len, name, err);
    if (rc) {
        hx_error ignored;
        hxi_store_abort(ix->store, &ignored);
        return rc;
    }
    ix_view_free(&ix->v);   /* the commit remapped the file: the view's pointers are stale */
    if ((rc = ix_view_load(ix, err)))
        return rc;
    if (made) {
        made->generation = hxi_store_generation(ix->store);
        made->committed_ns = hxi_store_timestamp(ix->store);
        snprintf(made->name, sizeof made->name, "%s", name);
    }
    return 0;
}
