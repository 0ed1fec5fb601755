/* filter.c: document filters: parsing (JSON and command line), typed values and matching of a
 * document and of a chunk by its unit's pairs (spec in filter.h). Reads hx_doc_info and pairs
 * only; never touches the index file. */
#include "filter.h"
#include "alloc.h"
#include "glob.h"
#include "relpath.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Typed values === */

bool hxi_meta_number(const char *s, double *out)
{
    size_t n = strlen(s);
    if (!n || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789+-.eE", s[i]))
            return false;
    char *end;
    double d = strtod(s, &end);
    if (*end || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool hxi_meta_time(const char *s, int64_t *secs, int32_t *frac_ns, bool *date_only)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h = 0, mi = 0, sec = 0;
    if (strlen(s) < 10 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
        return false;
    if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return false;
    const char *p = s + 10;
    int64_t frac = 0, zone = 0;
    *date_only = !*p;
    if (*p) {
        if ((*p != 'T' && *p != 't' && *p != ' ') || !digits(p + 1, 2, &h) || p[3] != ':' || !digits(p + 4, 2, &mi))
            return false;
        p += 6;
        if (*p == ':') {
            if (!digits(p + 1, 2, &sec))
                return false;
            p += 3;
            if (*p == '.') {
                int64_t scale = 100000000;
                p++;
                if (*p < '0' || *p > '9')
                    return false;
                for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
                    frac += scale * (*p - '0');
            }
        }
        if (h > 23 || mi > 59 || sec > 60)
            return false;
        if (*p == 'Z' || *p == 'z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int zh, zm;
            if (!digits(p + 1, 2, &zh))
                return false;
            const char *z = p + 3 + (p[3] == ':');   /* +hh:mm, or the basic form +hhmm */
            if (!digits(z, 2, &zm) || zh > 23 || zm > 59)
                return false;
            zone = (*p == '+' ? 1 : -1) * ((int64_t)zh * 3600 + zm * 60);
            p = z + 2;
        }
        if (*p)
            return false;
    }
    *secs = days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 + mi * 60 + sec - zone;
    *frac_ns = (int32_t)frac;
    return true;
}

bool hxi_meta_date(const char *s, int64_t *ns, bool *date_only)
{
    int64_t secs;
    int32_t frac;
    if (!hxi_meta_time(s, &secs, &frac, date_only))
        return false;
    if (secs >= INT64_MAX / 1000000000)   /* past 2262 or before 1677: the nearest instant kept */
        *ns = INT64_MAX;
    else if (secs <= INT64_MIN / 1000000000)
        *ns = INT64_MIN;
    else
        *ns = secs * 1000000000 + frac;
    return true;
}

/* === Keys === */

static bool key_eq(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a == '_' ? '-' : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b == '_' ? '-' : *b;
        if (x != y)
            return false;
        if (!x)
            return true;
    }
}

/* The metadata key a filter key also names (seed 002's aliases: a document with sig_name itself
 * matches too), compared with key_eq. */
static const char *resolve_key(const char *key)
{
    if (key_eq(key, "sig_name"))
        return "owning-sig";
    if (key_eq(key, "kep_id") || key_eq(key, "kep_number"))
        return "kep-number";
    return key;
}

bool hxi_meta_key_matches(const char *meta_key, const char *asked)
{
    return key_eq(meta_key, asked) || key_eq(meta_key, resolve_key(asked));   /* the key as written matches too */
}

bool hx_filter_key_matches(const char *key, const char *asked)
{
    return hxi_meta_key_matches(key, asked);
}

enum { K_META, K_PATH, K_TYPE, K_EXT, K_DIR, K_FOLDER, K_INDEXED_AT, K_MTIME };

const char *const hxi_filter_derived_keys[HX_FILTER_DERIVED + 1] = {"path", "type", "ext", "dir", "folder",
                                                                    "indexed_at", "mtime", NULL};

static int derived(const char *key)
{
    for (int i = 0; i < HX_FILTER_DERIVED; i++)
        if (key_eq(key, hxi_filter_derived_keys[i]))
            return i + 1;
    return K_META;
}

/* === Matching === */

static bool value_eq(const char *have, const char *want)
{
    double a, b;
    return !strcmp(have, want) || (hxi_meta_number(have, &a) && hxi_meta_number(want, &b) && a == b);
}

/* A value as a number (kind 1) or a date (kind 2: seconds since 1970 plus nanoseconds, exact in
 * every year 0000..9999); kind 0 = neither. */
typedef struct {
    int kind;
    double x;
    int64_t secs;
    int32_t ns;
} typed;

static typed typed_of(const char *s, bool *date_only)
{
    typed t = {0, 0, 0, 0};
    if (hxi_meta_time(s, &t.secs, &t.ns, date_only))
        t.kind = 2;
    else if (hxi_meta_number(s, &t.x))
        t.kind = 1;
    return t;
}

/* An instant in nanoseconds since 1970 (indexed_at, mtime) as a date. */
static typed typed_ns(int64_t ns)
{
    int64_t secs = ns / 1000000000, rem = ns % 1000000000;
    if (rem < 0)
        secs--, rem += 1000000000;
    return (typed){2, 0, secs, (int32_t)rem};
}

/* -1, 0 or 1 as a is before, at or after b; both of one kind. */
static int typed_cmp(const typed *a, const typed *b)
{
    if (a->kind == 1)
        return (a->x > b->x) - (a->x < b->x);
    if (a->secs != b->secs)
        return a->secs < b->secs ? -1 : 1;
    return (a->ns > b->ns) - (a->ns < b->ns);
}

/* A bound as a number or a date adjusted for whole days (filter.h). */
typedef struct {
    typed v;
    bool strict;
} bound;

static bound bound_of(const char *s, bool strict, bool upper)
{
    bound b = {{0, 0, 0, 0}, strict};
    bool day = false;
    if (!s)
        return b;
    b.v = typed_of(s, &day);
    if (b.v.kind == 2 && day && upper != strict) {   /* lte: to the end of the day; gt: from the next day */
        b.v.secs += 86400;
        b.strict = upper;
    }
    return b;
}

static bool in_range(const hx_filter *f, const typed *v)
{
    bound lo = bound_of(f->lo, f->lo_strict, false), hi = bound_of(f->hi, f->hi_strict, true);
    if ((f->lo && lo.v.kind != v->kind) || (f->hi && hi.v.kind != v->kind))
        return false;
    if (f->lo && typed_cmp(v, &lo.v) < (lo.strict ? 1 : 0))
        return false;
    if (f->hi && typed_cmp(v, &hi.v) > (hi.strict ? -1 : 0))
        return false;
    return true;
}

/* One document value against the filter. */
static bool value_matches(const hx_filter *f, const char *have)
{
    if (f->lo || f->hi) {
        bool day;
        typed v = typed_of(have, &day);
        return v.kind && in_range(f, &v);
    }
    if (f->value)
        return value_eq(have, f->value);
    for (size_t i = 0; i < f->n_any; i++)
        if (value_eq(have, f->any[i]))
            return true;
    return false;
}

/* A time key (indexed_at, mtime): ranges compare instants; equality and any-of take a date-only
 * value as its whole day. */
static bool time_matches(const hx_filter *f, int64_t t_ns)
{
    typed t = typed_ns(t_ns);
    if (f->lo || f->hi)
        return in_range(f, &t);
    size_t n = f->value ? 1 : f->n_any;
    for (size_t i = 0; i < n; i++) {
        const char *want = f->value ? f->value : f->any[i];
        hx_filter day = {f->key, NULL, NULL, 0, want, want, false, false};
        if (in_range(&day, &t))
            return true;
    }
    return false;
}

static bool path_matches(const hx_filter *f, const char *path)
{
    if (f->value)
        return hxi_glob_match(f->value, path);
    for (size_t i = 0; i < f->n_any; i++)
        if (hxi_glob_match(f->any[i], path))
            return true;
    return false;
}

/* The folder names of path, one at a time, into buf; false when none is left. */
static bool next_folder(const char **p, char *buf, size_t cap)
{
    const char *slash = strchr(*p, '/');
    if (!slash)
        return false;
    size_t n = (size_t)(slash - *p);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, *p, n);
    buf[n] = 0;
    *p = slash + 1;
    return true;
}

/* Whether one of the pairs has the filter's key and a matching value. */
static bool pairs_match(const hx_kv *kv, size_t n, const hx_filter *f)
{
    for (size_t k = 0; k < n; k++)
        if (hxi_meta_key_matches(kv[k].key, f->key) && value_matches(f, kv[k].value))
            return true;
    return false;
}

static bool filter_matches(const hx_doc_info *d, const hx_filter *f)
{
    const char *base = strrchr(d->path, '/');
    base = base ? base + 1 : d->path;
    char buf[HX_RELPATH_MAX];
    switch (derived(f->key)) {
    case K_PATH:
        return path_matches(f, d->path);
    case K_TYPE:
        return value_matches(f, d->type);
    case K_EXT: {
        const char *dot = strrchr(base, '.');
        size_t n = 0;
        for (const char *c = dot ? dot + 1 : ""; *c && n + 1 < sizeof buf; c++)
            buf[n++] = *c >= 'A' && *c <= 'Z' ? (char)(*c + 32) : *c;
        buf[n] = 0;
        return value_matches(f, buf);
    }
    case K_DIR: {
        size_t n = (size_t)(base - d->path);
        n = n ? n - 1 : 0;
        if (n >= sizeof buf)
            n = sizeof buf - 1;
        memcpy(buf, d->path, n);
        buf[n] = 0;
        return value_matches(f, buf);
    }
    case K_FOLDER:
        for (const char *p = d->path; next_folder(&p, buf, sizeof buf);)
            if (value_matches(f, buf))
                return true;
        return false;
    case K_INDEXED_AT:
        return time_matches(f, d->indexed_ns);
    case K_MTIME:
        return time_matches(f, d->mtime_ns);
    }
    return pairs_match(d->meta, d->n_meta, f);
}

bool hx_doc_matches(const hx_doc_info *d, const hx_filter *filters, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!filter_matches(d, &filters[i]))
            return false;
    return true;
}

bool hxi_chunk_matches(const hx_doc_info *d, const hx_kv *unit, size_t n_unit, const hx_filter *filters, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(derived(filters[i].key) == K_META && pairs_match(unit, n_unit, &filters[i])) &&
            !filter_matches(d, &filters[i]))
            return false;
    return true;
}

/* === Building sets === */

void hx_filter_set_free(hx_filter_set *fs)
{
    for (size_t i = 0; i < fs->n_owned; i++)
        free(fs->owned[i]);
    free(fs->owned);
    free(fs->v);
    memset(fs, 0, sizeof *fs);
}

static void *own(hx_filter_set *fs, void *p)
{
    if (!p || hx_grow((void **)&fs->owned, &fs->cap_owned, fs->n_owned + 1, sizeof *fs->owned, NULL)) {
        free(p);
        return NULL;
    }
    fs->owned[fs->n_owned++] = p;
    return p;
}

static const char *own_str(hx_filter_set *fs, const char *s, size_t n)
{
    return own(fs, hx_strndup(s, n));
}

/* The bytes of f's path globs (0 when f is no path filter). */
static size_t glob_bytes(const hx_filter *f)
{
    size_t n = 0;
    if (derived(f->key) != K_PATH || f->lo || f->hi)
        return 0;
    for (size_t i = 0; i < (f->value ? 1 : f->n_any); i++)
        n += strlen(f->value ? f->value : f->any[i]);
    return n;
}

/* A path filter's globs each within glob.h's bounds, and all of the set's together within
 * HX_FILTER_GLOB_BYTES: every document's path is matched against every one of them. */
static int check_globs(const hx_filter_set *fs, const hx_filter *f, hx_error *err)
{
    if (derived(f->key) != K_PATH || f->lo || f->hi)
        return 0;
    size_t total = glob_bytes(f);
    for (size_t i = 0; i < (f->value ? 1 : f->n_any); i++) {
        int rc = hxi_glob_check(f->value ? f->value : f->any[i], "filter 'path'", err);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < fs->n; i++)
        total += glob_bytes(&fs->v[i]);
    if (total > HX_FILTER_GLOB_BYTES)
        return hx_error_set(err, HX_EINVAL, -1, "filter 'path': %zu bytes of globs are over the %d-byte limit for "
                            "one search's path globs together", total, HX_FILTER_GLOB_BYTES);
    return 0;
}

/* Checks f and appends it (its strings already owned by fs). */
static int add(hx_filter_set *fs, const hx_filter *f, hx_error *err)
{
    const char *k = f->key;
    if (!*k)
        return hx_error_set(err, HX_EINVAL, -1, "a filter needs a key");
    if (fs->n == HX_FILTER_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "too many filters (at most %d)", HX_FILTER_MAX);
    int rc = check_globs(fs, f, err);
    if (rc)
        return rc;
    if (f->lo || f->hi) {
        int kd = derived(k);
        if (kd == K_PATH || kd == K_TYPE || kd == K_EXT || kd == K_DIR || kd == K_FOLDER)
            return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s' takes a value, not a range", k);
        bound lo = bound_of(f->lo, false, false), hi = bound_of(f->hi, false, true);
        const char *bad = f->lo && !lo.v.kind ? f->lo : f->hi && !hi.v.kind ? f->hi : NULL;
        if (bad)
            return hx_error_set(err, HX_EINVAL, -1,
                                "filter '%.64s': range bound '%.64s' is neither a number nor an ISO-8601 date "
                                "(YYYY-MM-DD[THH:MM[:SS][Z|+HH:MM]])", k, bad);
        if (f->lo && f->hi && lo.v.kind != hi.v.kind)
            return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s': both bounds must be numbers or both dates", k);
        if ((kd == K_INDEXED_AT || kd == K_MTIME) && lo.v.kind != 2 && hi.v.kind != 2)
            return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s' takes ISO-8601 dates (YYYY-MM-DD)", k);
    } else if (derived(k) == K_INDEXED_AT || derived(k) == K_MTIME) {
        for (size_t i = 0; i < (f->value ? 1 : f->n_any); i++) {
            int64_t ns;
            bool day;
            const char *v = f->value ? f->value : f->any[i];
            if (!hxi_meta_date(v, &ns, &day))
                return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s' takes ISO-8601 dates (YYYY-MM-DD), not '%.64s'",
                                    k, v);
        }
    }
    if (hx_grow((void **)&fs->v, &fs->cap, fs->n + 1, sizeof *fs->v, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    fs->v[fs->n++] = *f;
    return 0;
}

/* === JSON === */

/* A scalar condition value as owned text (string, number text, true/false); NULL with *bad set
 * when v is none of those, or ENOMEM (*bad false). */
static const char *json_scalar(hx_filter_set *fs, const hxi_json_val *v, bool *bad)
{
    size_t n;
    const char *s;
    *bad = false;
    switch (hxi_json_type_of(v)) {
    case HX_JSON_STRING:
        s = hxi_json_str(v, &n);
        if (strlen(s) != n)
            return *bad = true, NULL;
        return own_str(fs, s, n);
    case HX_JSON_NUMBER:
        s = hxi_json_num_text(v, &n);
        return own_str(fs, s, n);
    case HX_JSON_BOOL:
        s = hxi_json_bool(v) ? "true" : "false";
        return own_str(fs, s, strlen(s));
    }
    *bad = true;
    return NULL;
}

static int oom(hx_error *err)
{
    return hx_error_set(err, HX_ENOMEM, -1, "out of memory parsing filters");
}

/* {"from", "to", "gte", "gt", "lte", "lt"} (and "key" when date_range) into f. */
static int json_range(hx_filter_set *fs, const char *name, const hxi_json_val *obj, bool date_range, hx_filter *f,
                      hx_error *err)
{
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    hxi_json_iter_init(&it, obj);
    while (hxi_json_iter_next(&it, &k, &v)) {
        const char *m = hxi_json_str(k, NULL);
        bool bad;
        if (date_range && !strcmp(m, "key")) {
            size_t n;
            const char *s = hxi_json_str(v, &n);
            if (!s || !n || strlen(s) != n)
                return hx_error_set(err, HX_EINVAL, -1, "filter '%s': 'key' must name a date key", name);
            if (!(f->key = own_str(fs, s, n)))
                return oom(err);
            continue;
        }
        bool lower = !strcmp(m, "from") || !strcmp(m, "gte") || !strcmp(m, "gt");
        bool upper = !strcmp(m, "to") || !strcmp(m, "lte") || !strcmp(m, "lt");
        if (!lower && !upper)
            return hx_error_set(err, HX_EINVAL, -1,
                                "filter '%.64s': unknown member '%.40s'; a range takes from, to, gte, gt, lte, lt%s",
                                name, m, date_range ? " and key" : "");
        if (hxi_json_type_of(v) == HX_JSON_NULL)
            continue;   /* an open side, as seed 003's date_range may send it */
        const char **slot = lower ? &f->lo : &f->hi;
        if (*slot)
            return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s' has two %s bounds", name, lower ? "lower" : "upper");
        const char *s = json_scalar(fs, v, &bad);
        if (!s || hxi_json_type_of(v) == HX_JSON_BOOL)
            return bad || s ? hx_error_set(err, HX_EINVAL, -1, "filter '%.64s': '%.40s' must be a number or an ISO-8601 date",
                                           name, m)
                            : oom(err);
        *slot = s;
        if (lower)
            f->lo_strict = !strcmp(m, "gt");
        else
            f->hi_strict = !strcmp(m, "lt");
    }
    if (!f->lo && !f->hi)
        return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s': a range needs from/gte/gt or to/lte/lt", name);
    return 0;
}

static int json_one(hx_filter_set *fs, const char *name, size_t nlen, const hxi_json_val *v, hx_error *err)
{
    hx_filter f = {0};
    bool bad;
    if (strlen(name) != nlen || !nlen)
        return hx_error_set(err, HX_EINVAL, -1, "a filter key must be a non-empty string without U+0000");
    if (!(f.key = own_str(fs, name, nlen)))
        return oom(err);
    bool date_range = !strcmp(name, "date_range");
    if (date_range)
        f.key = "indexed_at";
    int type = hxi_json_type_of(v);
    if (date_range && type != HX_JSON_OBJECT)
        return hx_error_set(err, HX_EINVAL, -1, "filter 'date_range' must be an object {\"from\": ..., \"to\": ...}");
    if (type == HX_JSON_OBJECT) {
        int rc = json_range(fs, name, v, date_range, &f, err);
        return rc ? rc : add(fs, &f, err);
    }
    if (type == HX_JSON_ARRAY) {
        size_t n = hxi_json_len(v);
        if (!n || n > HX_FILTER_ANY_MAX)
            return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s': a list takes 1 to %d values, not %zu", name,
                                HX_FILTER_ANY_MAX, n);
        const char **any = own(fs, hx_calloc(n, sizeof *any));
        if (!any)
            return oom(err);
        hxi_json_iter it;
        const hxi_json_val *k, *item;
        hxi_json_iter_init(&it, v);
        for (size_t i = 0; hxi_json_iter_next(&it, &k, &item); i++)
            if (!(any[i] = json_scalar(fs, item, &bad)))
                return bad ? hx_error_set(err, HX_EINVAL, -1,
                                          "filter '%.64s': list items must be strings, numbers or booleans", name)
                           : oom(err);
        f.any = any;
        f.n_any = n;
        return add(fs, &f, err);
    }
    if (!(f.value = json_scalar(fs, v, &bad)))
        return bad ? hx_error_set(err, HX_EINVAL, -1,
                                  "filter '%.64s' must be a string, number, boolean, list or range object "
                                  "({\"from\": ..., \"to\": ...})", name)
                   : oom(err);
    return add(fs, &f, err);
}

int hxi_filter_parse_json(hx_filter_set *fs, const hxi_json_val *obj, hx_error *err)
{
    if (hxi_json_type_of(obj) != HX_JSON_OBJECT)
        return hx_error_set(err, HX_EINVAL, -1, "filters must be an object such as {\"owning-sig\": \"sig-auth\"}");
    size_t had = fs->n;
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    hxi_json_iter_init(&it, obj);
    while (hxi_json_iter_next(&it, &k, &v)) {
        size_t n;
        const char *name = hxi_json_str(k, &n);
        int rc = json_one(fs, name, n, v, err);
        if (rc) {
            fs->n = had;
            return rc;
        }
    }
    return 0;
}

int hx_filter_parse_json_text(hx_filter_set *fs, const char *json, size_t len, hx_error *err)
{
    hxi_json_doc *doc = NULL;
    int rc = hxi_json_parse(&doc, json, len, NULL, err);
    if (!rc)
        rc = hxi_filter_parse_json(fs, hxi_json_doc_root(doc), err);
    hxi_json_doc_free(doc);
    return rc;
}

/* === Command line === */

/* The comma-separated values of s (with "\," a literal comma) as an owned list in f. */
static int arg_list(hx_filter_set *fs, const char *s, hx_filter *f, hx_error *err)
{
    size_t n = 1, len = strlen(s);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && s[i + 1] == ',')
            i++;
        else if (s[i] == ',')
            n++;
    }
    if (n > HX_FILTER_ANY_MAX)
        return hx_error_set(err, HX_EINVAL, -1, "filter '%.64s': at most %d values", f->key, HX_FILTER_ANY_MAX);
    char *buf = own(fs, hx_malloc(len + 1));
    const char **any = own(fs, hx_calloc(n, sizeof *any));
    if (!buf || !any)
        return oom(err);
    size_t o = 0, k = 0;
    any[k++] = buf;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && s[i + 1] == ',') {
            buf[o++] = ',';
            i++;
        } else if (s[i] == ',') {
            buf[o++] = 0;
            any[k++] = buf + o;
        } else {
            buf[o++] = s[i];
        }
    }
    buf[o] = 0;
    if (n == 1)
        f->value = any[0];
    else
        f->any = any, f->n_any = n;
    return 0;
}

/* Whether VALUE of KEY=VALUE, with ".." at dots, is a range X..Y: a side given, each side given
 * a number or a date, both of one kind. Otherwise the text is a value ("Wait... what"). */
static bool is_range(const char *val, const char *dots)
{
    char lo[80];
    size_t n = (size_t)(dots - val);
    if (n >= sizeof lo || (!n && !dots[2]))
        return false;
    memcpy(lo, val, n);
    lo[n] = 0;
    bound a = bound_of(n ? lo : NULL, false, false), b = bound_of(dots[2] ? dots + 2 : NULL, false, true);
    return (!n || a.v.kind) && (!dots[2] || b.v.kind) && (!n || !dots[2] || a.v.kind == b.v.kind);
}

int hx_filter_parse_arg(hx_filter_set *fs, const char *text, hx_error *err)
{
    size_t k = strcspn(text, "=<>");
    if (!text[k] || k == 0)
        return hx_error_set(err, HX_EINVAL, -1,
                            "filter '%.64s' wants KEY=VALUE, KEY=A,B, KEY>=X, KEY<=X, KEY>X, KEY<X or KEY=X..Y", text);
    hx_filter f = {0};
    if (!(f.key = own_str(fs, text, k)))
        return oom(err);
    const char *op = text + k, *val = op + 1 + (op[0] != '=' && op[1] == '=');
    if (op[0] == '>' || op[0] == '<') {
        const char *v = own_str(fs, val, strlen(val));
        if (!v)
            return oom(err);
        bool strict = op[1] != '=';
        if (op[0] == '>')
            f.lo = v, f.lo_strict = strict;
        else
            f.hi = v, f.hi_strict = strict;
        return add(fs, &f, err);
    }
    const char *dots = strstr(val, "..");
    if (dots && derived(f.key) != K_PATH && is_range(val, dots)) {
        f.lo = dots > val ? own_str(fs, val, (size_t)(dots - val)) : NULL;
        f.hi = dots[2] ? own_str(fs, dots + 2, strlen(dots + 2)) : NULL;
        if ((dots > val && !f.lo) || (dots[2] && !f.hi))
            return oom(err);
        return add(fs, &f, err);
    }
    int rc = arg_list(fs, val, &f, err);
    return rc ? rc : add(fs, &f, err);
}
