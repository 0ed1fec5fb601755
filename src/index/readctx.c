/* readctx.c: point-in-time reads: resolving a read context (head, published, a baseline, as_of)
 * to a commit of the chain and pointing a reader's view at it, naming baselines, the history of
 * kept commits, and the times read contexts take. Which commits compaction keeps is decided in
 * index_write.c "Compaction"; the chain itself is store.h's. Spec: README "Point-in-time reads",
 * seed 001 section 5.2. */
#include "alloc.h"
#include "index_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const hx_read_selector_names[] = {"head", "published", "baseline_id", "as_of", NULL};

/* === Times === */

/* n decimal digits at *p into *out; false when fewer are there. */
static bool digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return false;
        v = v * 10 + (**p - '0');
    }
    *out = v;
    return true;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Up to 9 digits of a fraction after '.', as nanoseconds; more digits are read and dropped. */
static bool fraction(const char **p, int64_t *ns)
{
    if (**p != '.')
        return true;
    (*p)++;
    if (**p < '0' || **p > '9')
        return false;
    int64_t scale = 100000000;
    for (; **p >= '0' && **p <= '9'; (*p)++, scale /= 10)
        *ns += scale ? (**p - '0') * scale : 0;
    return true;
}

int hx_time_parse(const char *s, int64_t *ns, hx_error *err)
{
    const char *p = s;
    int64_t frac = 0;
    size_t n = strspn(s, "0123456789");
    if (n && (s[n] == 0 || s[n] == '.') && n <= 11) {   /* unix seconds */
        int64_t sec = strtoll(s, NULL, 10);
        p = s + n;
        if (fraction(&p, &frac) && !*p) {
            *ns = sec * 1000000000 + frac;
            return 0;
        }
    } else {
        int y, mo, d, h = 0, mi = 0, sec = 0, zh = 0, zm = 0, sign = 0;
        bool ok = digits(&p, 4, &y) && *p++ == '-' && digits(&p, 2, &mo) && *p++ == '-' && digits(&p, 2, &d);
        if (ok && (*p == 'T' || *p == 't' || *p == ' ')) {
            p++;
            ok = digits(&p, 2, &h) && *p++ == ':' && digits(&p, 2, &mi);
            if (ok && *p == ':') {
                p++;
                ok = digits(&p, 2, &sec) && fraction(&p, &frac);
            }
            if (ok && (*p == 'Z' || *p == 'z')) {
                p++;
            } else if (ok && (*p == '+' || *p == '-')) {
                sign = *p++ == '-' ? -1 : 1;
                ok = digits(&p, 2, &zh) && (*p != ':' || p++) && digits(&p, 2, &zm) && zh < 24 && zm < 60;
            }
        }
        static const int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (ok && !*p && mo >= 1 && mo <= 12 && d >= 1 && d <= month_days[mo - 1] && h < 24 && mi < 60 &&
            sec < 61) {
            int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - sign * (zh * 3600 + zm * 60);
            *ns = t * 1000000000 + frac;
            return 0;
        }
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

static void commit_of(const hx_store_info *in, hx_commit_info *out)
{
    out->generation = in->generation;
    out->committed_ns = in->timestamp_ns;
    memcpy(out->name, in->name, sizeof out->name);
}

int hx_index_history(hx_index *ix, hx_commit_info **out, size_t *n, hx_error *err)
{
    hx_store_info *h;
    *out = NULL;
    *n = 0;
    int rc = hx_store_history(ix->store, &h, n, err);
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
    hx_store_info info;
    char missing[256];
    int rc;
    switch (ctx ? ctx->selector : HX_READ_HEAD) {
    case HX_READ_HEAD:
        c->generation = hx_store_generation(ix->store);
        c->committed_ns = hx_store_timestamp(ix->store);
        snprintf(c->name, sizeof c->name, "%s", hx_store_name(ix->store));
        return 0;
    case HX_READ_PUBLISHED:
    case HX_READ_BASELINE: {
        const char *name = ctx->selector == HX_READ_PUBLISHED ? HX_PUBLISHED : ctx->baseline_id;
        if (!name || !*name)
            return hx_error_set(err, HX_EINVAL, -1, "selector baseline_id needs a baseline_id (a baseline's name)");
        if ((rc = hx_store_find_name(ix->store, name, &info, err)) != HX_ENOTFOUND)
            break;
        if (ctx->selector == HX_READ_PUBLISHED)
            snprintf(missing, sizeof missing, "nothing is published yet: no baseline is named '" HX_PUBLISHED
                     "' (name one with 'hyrax baseline " HX_PUBLISHED "' or the create_baseline tool)");
        else
            snprintf(missing, sizeof missing, "no baseline named '%.64s' is kept", name);
        return what_is_kept(ix, missing, err);
    }
    case HX_READ_AS_OF: {
        if ((rc = hx_store_as_of(ix->store, ctx->as_of_ns, &info, err)) != HX_ENOTFOUND)
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
    int rc = hx_store_refresh(ix->store, err);
    if (rc < 0)
        return rc;
    bool moved = rc == 1;   /* the map changed: every pointer of the view is stale */
    hx_commit_info c = {0};
    int rrc = resolve(ix, ctx, &c, err);
    uint64_t pin = rrc == 0 && c.generation != hx_store_generation(ix->store) ? c.generation : 0;
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
    hx_store_root(ix->store, &root, &len);
    int rc = hx_store_commit(ix->store, root, len, name, err);
    if (rc) {
        hx_error ignored;
        hx_store_abort(ix->store, &ignored);
        return rc;
    }
    ix_view_free(&ix->v);   /* the commit remapped the file: the view's pointers are stale */
    if ((rc = ix_view_load(ix, err)))
        return rc;
    if (made) {
        made->generation = hx_store_generation(ix->store);
        made->committed_ns = hx_store_timestamp(ix->store);
        snprintf(made->name, sizeof made->name, "%s", name);
    }
    return 0;
}
