/* gate.c: the validation gate and its policy file (spec in gate.h). Owns deciding whether a
 * decoded document may be embedded; must not touch the index (index_write.c acts on the verdict
 * and audit.c records it). */
#include "gate.h"
#include "alloc.h"
#include "fsafe.h"
#include "glob.h"
#include "doctype.h"
#include "sig.h"
#include "trust.h"
#include "unicode.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* === Policy === */

enum { REQ_TEXT, REQ_NUMBER, REQ_DATE, REQ_BOOL };
static const char *const req_type_names[] = {"text", "number", "date", "bool"};
enum { ENC_UTF8 = 1, ENC_UTF16 = 2, ENC_LATIN1 = 4 };

typedef struct deny_pat {
    char *text;                /* owned: as written, for messages */
    char *norm;                /* owned: normalized (see normalize), '*' kept */
} deny_pat;

typedef struct req_key {
    char *key;                 /* owned */
    int type;
} req_key;

/* One section's rules; "unset" fields leave the rule of earlier sections. */
typedef struct section {
    char *glob;                /* owned; NULL: the rules before the first section */
    uint64_t max_size;         /* 0: unset */
    unsigned types;            /* bit per row of the table of document types; 0: unset */
    unsigned encodings;        /* ENC_*; 0: unset */
    int signature;             /* -1 unset, 0 none, 1 required */
    char **signers;            /* owned; NULL: unset */
    size_t n_signers;
    char *tenant, *owner;      /* owned; NULL: unset */
    int visibility;            /* -1: unset */
    deny_pat *deny;            /* owned */
    size_t n_deny, cap_deny;
    req_key *req;              /* owned */
    size_t n_req, cap_req;
} section;

struct ix_policy {
    section *s;                /* owned */
    size_t n, cap;
};

static void section_free(section *s)
{
    free(s->glob);
    for (size_t i = 0; i < s->n_signers; i++)
        free(s->signers[i]);
    free(s->signers);
    free(s->tenant);
    free(s->owner);
    for (size_t i = 0; i < s->n_deny; i++) {
        free(s->deny[i].text);
        free(s->deny[i].norm);
    }
    free(s->deny);
    for (size_t i = 0; i < s->n_req; i++)
        free(s->req[i].key);
    free(s->req);
}

void ix_policy_free(ix_policy *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        section_free(&p->s[i]);
    free(p->s);
    free(p);
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Trims s[0..*n) in place of its pointer and length. */
static const char *trim(const char *s, size_t *n)
{
    while (*n && is_ws(*s))
        s++, (*n)--;
    while (*n && is_ws(s[*n - 1]))
        (*n)--;
    return s;
}

/* The next item of a comma- or space-separated list; false at the end. */
static bool next_item(const char **s, const char *end, const char **item, size_t *len)
{
    while (*s < end && (is_ws(**s) || **s == ','))
        (*s)++;
    if (*s == end)
        return false;
    *item = *s;
    while (*s < end && !is_ws(**s) && **s != ',')
        (*s)++;
    *len = (size_t)(*s - *item);
    return true;
}

static int lookup(const char *const *names, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && !strncasecmp(names[i], s, len))
            return (int)i;
    return -1;
}

/* The row number of a document type named s[0..len) (any case), or -1. */
static int type_index(const char *s, size_t len)
{
    for (size_t i = 0; i < hxi_doctype_count(); i++)
        if (strlen(hxi_doctype_at(i)->name) == len && !strncasecmp(hxi_doctype_at(i)->name, s, len))
            return (int)i;
    return -1;
}

/* Writes the normalized form of s[0..n) (see gate.h "Deny patterns") to out, which has room for
 * n + 1 bytes; returns its length. A run of white space becomes one space, or one '\n' when it
 * holds two newlines or more (a paragraph break). */
static size_t normalize(const char *s, size_t n, char *out)
{
    size_t o = 0, pos = 0;
    bool ws = false;
    int newlines = 0;
    while (pos < n) {
        unsigned char c = (unsigned char)s[pos];
        size_t at = pos;
        uint32_t cp = c;
        if (c < 0x80) {
            pos++;
            if (is_ws((char)c)) {
                ws = true;
                newlines += c == '\n';
                continue;
            }
            if (c >= 'A' && c <= 'Z')
                c = (unsigned char)(c + 32);
        } else {
            if (!hxi_utf8_next(s, n, &pos, &cp))
                pos = at + 1;
            if (cp == 0x200B || cp == 0x200C || cp == 0x200D || cp == 0x2060 || cp == 0xFEFF || cp == 0xAD)
                continue;
        }
        if (o && ws)
            out[o++] = newlines >= 2 ? '\n' : ' ';
        ws = false;
        newlines = 0;
        if (c < 0x80) {
            out[o++] = (char)c;
        } else {
            memcpy(out + o, s + at, pos - at);
            o += pos - at;
        }
    }
    out[o] = 0;
    return o;
}

static int add_deny(section *sec, const char *v, size_t n, const char *origin, size_t line, hx_error *err)
{
    if (!n || n > IX_DENY_MAX_BYTES)
        return hx_error_set(err, HX_EPARSE, -1, "%s:%zu: a deny pattern is 1 to %d bytes", origin, line,
                            IX_DENY_MAX_BYTES);
    size_t stars = 0;
    for (size_t i = 0; i < n; i++)
        stars += v[i] == '*';
    if (stars > IX_DENY_MAX_STARS)
        return hx_error_set(err, HX_EPARSE, -1, "%s:%zu: a deny pattern has at most %d '*'", origin, line,
                            IX_DENY_MAX_STARS);
    if (stars == n)
        return hx_error_set(err, HX_EPARSE, -1, "%s:%zu: a deny pattern of '*' alone would deny everything",
                            origin, line);
    int rc = hx_grow((void **)&sec->deny, &sec->cap_deny, sec->n_deny + 1, sizeof *sec->deny, err);
    if (rc)
        return rc;
    deny_pat *d = &sec->deny[sec->n_deny];
    d->text = hx_strndup(v, n);
    d->norm = hx_malloc(n + 1);
    if (!d->text || !d->norm) {
        free(d->text);
        free(d->norm);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    size_t len = normalize(v, n, d->norm), k = 0;
    for (size_t i = 0; i < len; i++) {   /* white space beside a '*' is part of what it matches */
        bool beside = d->norm[i] == ' ' && ((i + 1 < len && d->norm[i + 1] == '*') || (k && d->norm[k - 1] == '*'));
        if (!beside)
            d->norm[k++] = d->norm[i];
    }
    d->norm[k] = 0;
    sec->n_deny++;
    return 0;
}

static int add_require(section *sec, const char *v, size_t n, const char *origin, size_t line, hx_error *err)
{
    const char *item, *end = v + n;
    size_t len;
    while (next_item(&v, end, &item, &len)) {
        const char *colon = memchr(item, ':', len);
        size_t klen = colon ? (size_t)(colon - item) : len;
        int type = REQ_TEXT;
        if (colon && (type = lookup(req_type_names, 4, colon + 1, len - klen - 1)) < 0)
            return hx_error_set(err, HX_EPARSE, -1, "%s:%zu: '%.*s' is not a type (text, number, date, bool)",
                                origin, line, (int)(len - klen - 1), colon + 1);
        if (!klen || klen > 128)
            return hx_error_set(err, HX_EPARSE, -1, "%s:%zu: a required key is 1 to 128 bytes", origin, line);
        int rc = hx_grow((void **)&sec->req, &sec->cap_req, sec->n_req + 1, sizeof *sec->req, err);
        if (rc)
            return rc;
        if (!(sec->req[sec->n_req].key = hx_strndup(item, klen)))
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        sec->req[sec->n_req++].type = type;
    }
    return 0;
}

static int parse_size(const char *v, size_t n, uint64_t *out)
{
    uint64_t x = 0, mul = 1;
    size_t i = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        if (x > (UINT64_MAX - 9) / 10)
            return -1;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (i < n && (v[i] == 'K' || v[i] == 'k'))
        mul = 1024, i++;
    else if (i < n && (v[i] == 'M' || v[i] == 'm'))
        mul = 1024 * 1024, i++;
    if (!i || i != n || x == 0 || x > UINT64_MAX / mul)
        return -1;
    *out = x * mul;
    return 0;
}

/* One "key = value" line into sec. */
static int set_rule(section *sec, const char *k, size_t kn, const char *v, size_t vn, const char *origin,
                    size_t line, hx_error *err)
{
#define KEY(name) (kn == sizeof name - 1 && !memcmp(k, name, kn))
#define BAD(what) hx_error_set(err, HX_EPARSE, -1, "%s:%zu: %s", origin, line, what)
    const char *item, *end = v + vn;
    size_t len;
    if (KEY("deny"))
        return add_deny(sec, v, vn, origin, line, err);
    if (KEY("require"))
        return add_require(sec, v, vn, origin, line, err);
    if (KEY("max_size"))
        return parse_size(v, vn, &sec->max_size) ? BAD("max_size is a byte count such as 65536, 64K or 1M") : 0;
    if (KEY("types") || KEY("encodings")) {
        bool types = KEY("types");
        unsigned bits = 0;
        while (next_item(&v, end, &item, &len)) {
            int t = types ? type_index(item, len)
                          : lookup((const char *const[]){"utf-8", "utf-16", "latin-1"}, 3, item, len);
            if (t < 0 && types) {
                char names[256] = "";
                for (size_t i = 0; i < hxi_doctype_count(); i++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                             hxi_doctype_at(i)->name);
                return hx_error_set(err, HX_EPARSE, -1, "%s:%zu: types are %s", origin, line, names);
            }
            if (t < 0)
                return BAD("encodings are utf-8, utf-16, latin-1");
            bits |= 1u << t;
        }
        if (!bits)
            return BAD("an empty list");
        *(types ? &sec->types : &sec->encodings) = bits;
        return 0;
    }
    if (KEY("signature")) {
        if (vn == 8 && !strncasecmp(v, "required", 8))
            sec->signature = 1;
        else if (vn == 4 && !strncasecmp(v, "none", 4))
            sec->signature = 0;
        else
            return BAD("signature is required or none");
        return 0;
    }
    if (KEY("signers")) {
        for (size_t i = 0; i < sec->n_signers; i++)
            free(sec->signers[i]);
        free(sec->signers);
        sec->signers = NULL;
        sec->n_signers = 0;
        size_t cap = 0;
        while (next_item(&v, end, &item, &len)) {
            int rc = hx_grow((void **)&sec->signers, &cap, sec->n_signers + 1, sizeof *sec->signers, err);
            if (rc)
                return rc;
            if (!(sec->signers[sec->n_signers] = hx_strndup(item, len)))
                return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
            sec->n_signers++;
        }
        return sec->n_signers ? 0 : BAD("an empty list of signers");
    }
    if (KEY("visibility")) {
        int vis = lookup((const char *const[]){"public", "tenant", "private"}, 3, v, vn);
        if (vis < 0)
            return BAD("visibility is public, tenant or private");
        sec->visibility = vis;
        return 0;
    }
    if (KEY("tenant") || KEY("owner")) {
        char **slot = KEY("tenant") ? &sec->tenant : &sec->owner;
        if (!vn || vn > 128)
            return BAD("a tenant or owner is 1 to 128 bytes");
        free(*slot);
        return (*slot = hx_strndup(v, vn)) ? 0 : hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    return hx_error_set(err, HX_EPARSE, -1, "%s:%zu: unknown rule '%.*s' (max_size, types, encodings, require, "
                        "deny, signature, signers, tenant, owner, visibility)", origin, line, (int)(kn > 64 ? 64 : kn), k);
#undef KEY
#undef BAD
}

static int new_section(ix_policy *p, const char *glob, size_t n, hx_error *err)
{
    int rc = hx_grow((void **)&p->s, &p->cap, p->n + 1, sizeof *p->s, err);
    if (rc)
        return rc;
    section *s = &p->s[p->n];
    memset(s, 0, sizeof *s);
    s->signature = -1;
    s->visibility = -1;
    if (glob && !(s->glob = hx_strndup(glob, n)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    p->n++;
    return 0;
}

int ix_policy_parse(const char *text, size_t len, const char *origin, ix_policy **out, hx_error *err)
{
    *out = NULL;
    origin = origin ? origin : "policy";
    if (len > IX_POLICY_MAX_BYTES)
        return hx_error_set(err, HX_ERANGE, -1, "%s is %zu bytes, over the %d-byte limit", origin, len,
                            IX_POLICY_MAX_BYTES);
    ix_policy *p = hx_calloc(1, sizeof *p);
    if (!p)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    int rc = new_section(p, NULL, 0, err);
    size_t line = 0, rules = 0;
    for (size_t pos = 0; pos < len && !rc;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        const char *s = text + pos;
        pos += n + (nl != NULL);
        line++;
        if (n > IX_POLICY_MAX_LINE) {
            rc = hx_error_set(err, HX_EPARSE, -1, "%s:%zu: a line is at most %d bytes", origin, line,
                              IX_POLICY_MAX_LINE);
            break;
        }
        if (memchr(s, 0, n)) {
            rc = hx_error_set(err, HX_EPARSE, -1, "%s:%zu: a NUL byte", origin, line);
            break;
        }
        s = trim(s, &n);
        if (!n || s[0] == '#')
            continue;
        if (++rules > IX_POLICY_MAX_RULES) {
            rc = hx_error_set(err, HX_ERANGE, -1, "%s: more than %d rules", origin, IX_POLICY_MAX_RULES);
            break;
        }
        if (s[0] == '[') {
            size_t gn = n >= 2 ? n - 2 : 0;
            const char *g = trim(s + 1, &gn);
            char what[80];
            snprintf(what, sizeof what, "%.60s:%zu", origin, line);
            if (s[n - 1] != ']' || !gn)
                rc = hx_error_set(err, HX_EPARSE, -1, "%s:%zu: a section is [GLOB]", origin, line);
            else if (!(rc = new_section(p, g, gn, err)))
                rc = hxi_glob_check(p->s[p->n - 1].glob, what, err);
            continue;
        }
        const char *eq = memchr(s, '=', n);
        if (!eq) {
            rc = hx_error_set(err, HX_EPARSE, -1, "%s:%zu: expected 'key = value' or '[GLOB]'", origin, line);
            break;
        }
        size_t kn = (size_t)(eq - s), vn = n - kn - 1;
        const char *k = trim(s, &kn), *v = trim(eq + 1, &vn);
        if (!vn)
            rc = hx_error_set(err, HX_EPARSE, -1, "%s:%zu: '%.*s' has no value", origin, line, (int)(kn > 64 ? 64 : kn), k);
        else
            rc = set_rule(&p->s[p->n - 1], k, kn, v, vn, origin, line, err);
    }
    if (rc) {
        ix_policy_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* === The rules of one document === */

/* The policy's rules for a path, merged over the matching sections (borrowed from the policy). */
typedef struct rules {
    uint64_t max_size;
    unsigned types, encodings;
    int signature;
    char *const *signers;
    size_t n_signers;
    const char *tenant, *owner;
    int visibility;
} rules;

static void rules_for(const ix_policy *p, const char *path, rules *r)
{
    memset(r, 0, sizeof *r);
    r->visibility = -1;
    for (size_t i = 0; p && i < p->n; i++) {
        const section *s = &p->s[i];
        if (s->glob && !hxi_glob_match(s->glob, path))
            continue;
        r->max_size = s->max_size ? s->max_size : r->max_size;
        r->types = s->types ? s->types : r->types;
        r->encodings = s->encodings ? s->encodings : r->encodings;
        r->signature = s->signature >= 0 ? s->signature : r->signature;
        if (s->signers) {
            r->signers = s->signers;
            r->n_signers = s->n_signers;
        }
        r->tenant = s->tenant ? s->tenant : r->tenant;
        r->owner = s->owner ? s->owner : r->owner;
        r->visibility = s->visibility >= 0 ? s->visibility : r->visibility;
    }
}

/* === Gate === */

struct ix_gate {
    char *root;                /* owned */
    ix_policy *policy;         /* owned; NULL: no policy file */
    hx_trust *trust;           /* owned */
};

void ix_gate_free(ix_gate *g)
{
    if (!g)
        return;
    free(g->root);
    ix_policy_free(g->policy);
    hx_trust_free(g->trust);
    free(g);
}

int ix_gate_new(ix_gate **out, const char *root, ix_policy *policy, hx_trust *trust, hx_error *err)
{
    *out = NULL;
    ix_gate *g = hx_calloc(1, sizeof *g);
    if (!g || !(g->root = hx_strdup(root))) {
        free(g);
        ix_policy_free(policy);
        hx_trust_free(trust);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    g->policy = policy;
    g->trust = trust;
    *out = g;
    return 0;
}

int ix_gate_open(ix_gate **out, const char *root, hx_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    ix_policy *policy = NULL;
    hx_trust *trust = NULL;
    int rc = hxi_fs_read_under(root, IX_POLICY_FILE, IX_POLICY_MAX_BYTES, &text, &len, NULL, err);
    if (rc == HX_ENOTFOUND)
        rc = 0;
    else if (!rc)
        rc = ix_policy_parse(text, len, IX_POLICY_FILE, &policy, err);
    free(text);
    if (!rc && (rc = hx_trust_load(&trust, root, err)))
        ix_policy_free(policy);
    return rc ? rc : ix_gate_new(out, root, policy, trust, err);
}

bool ix_gate_has_policy(const ix_gate *g)
{
    return g->policy != NULL;
}

bool ix_gate_is_signature_file(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    static const char *const suffixes[] = {".minisig", ".sig", ".pub"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && !strcmp(base + n - k, suffixes[i]))
            return true;
    }
    return !strcmp(base, "allowed_signers");
}

static int reject(ix_verdict *v, const char *rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int reject(ix_verdict *v, const char *rule, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
    v->rule = rule;
    return 0;
}

/* The first code point of text that is a control the gate refuses; its byte offset, or -1. */
static int64_t find_control(const char *s, size_t n, uint32_t *what)
{
    for (size_t pos = 0; pos < n;) {
        unsigned char c = (unsigned char)s[pos];
        size_t at = pos;
        uint32_t cp = c;
        if (c < 0x80)
            pos++;
        else if (!hxi_utf8_next(s, n, &pos, &cp))
            pos = at + 1;   /* ingest's text is valid UTF-8; never trust that */
        bool bad = (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r' && cp != '\f') || cp == 0x7F ||
                   (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
        if (bad) {
            *what = cp;
            return (int64_t)at;
        }
    }
    return -1;
}

/* Bytes that are not UTF-8 but hold a valid multi-byte UTF-8 sequence: the offset of the first
 * invalid byte (malformed UTF-8), or -1 (plausibly Latin-1). */
static int64_t malformed_utf8(const uint8_t *raw, size_t n)
{
    bool multi = false;
    int64_t bad = -1;
    for (size_t pos = 0; pos < n;) {
        if (raw[pos] < 0x80) {
            pos++;
            continue;
        }
        size_t at = pos;
        uint32_t cp;
        if (hxi_utf8_next((const char *)raw, n, &pos, &cp)) {
            multi = true;
        } else {
            pos = at + 1;
            if (bad < 0)
                bad = (int64_t)at;
        }
        if (multi && bad >= 0)
            return bad;
    }
    return -1;
}

static const char *meta_value(const hxi_doc_source *d, const char *key)
{
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key))
            return d->meta[i].value;
    return NULL;
}

static size_t meta_count(const hxi_doc_source *d, const char *key)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_meta; i++)
        n += !strcmp(d->meta[i].key, key);
    return n;
}

static bool typed_ok(const char *v, int type)
{
    if (type == REQ_NUMBER) {
        char *end;
        errno = 0;
        strtod(v, &end);
        return *v && !*end && errno != ERANGE && !is_ws(*v);
    }
    if (type == REQ_BOOL)
        return !strcasecmp(v, "true") || !strcasecmp(v, "false") || !strcasecmp(v, "yes") || !strcasecmp(v, "no");
    if (type == REQ_DATE) {
        for (int i = 0; i < 10; i++) {
            bool dash = i == 4 || i == 7;
            if (dash ? v[i] != '-' : (v[i] < '0' || v[i] > '9'))
                return false;
        }
        int m = (v[5] - '0') * 10 + v[6] - '0', day = (v[8] - '0') * 10 + v[9] - '0';
        return m >= 1 && m <= 12 && day >= 1 && day <= 31 && (!v[10] || v[10] == 'T' || v[10] == ' ');
    }
    return *v != 0;
}

/* Whether a verified signer is one of the allowed names. */
static bool signer_allowed(const rules *r, const hx_sig_result *res)
{
    if (!r->n_signers)
        return true;
    for (size_t i = 0; i < r->n_signers; i++) {
        const char *want = r->signers[i];
        if (!strcmp(want, res->key_id) || !strcmp(want, res->signer))
            return true;
        size_t n = strlen(want);   /* one of SSH's comma-separated principals */
        for (const char *p = res->signer; (p = strstr(p, want)); p++)
            if ((p == res->signer || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
                return true;
    }
    return false;
}

static int check_signature(const ix_gate *g, const rules *r, const hxi_doc_source *d, const uint8_t *raw,
                           size_t raw_len, const char *sig, size_t sig_len, ix_verdict *v, hx_error *err)
{
    char *found = NULL;
    const char *which = "the signature argument";
    char name[PATH_MAX + 16];
    if (!sig) {
        for (int i = 0; hx_sig_suffix(i) && !found; i++) {
            snprintf(name, sizeof name, "%s%s", d->path, hx_sig_suffix(i));
            hx_error rerr = {0};
            int rc = hxi_fs_read_under(g->root, name, HX_SIG_MAX_FILE, &found, &sig_len, NULL, &rerr);
            if (rc == HX_ENOMEM)
                return hx_error_set(err, rc, -1, "%s", rerr.message);
            if (rc && rc != HX_ENOTFOUND)
                return reject(v, "signature", "%s cannot be read: %s", name, rerr.message);
            which = name;
        }
        if (!found)
            return reject(v, "signature", "unsigned: the policy requires a signature (%s.minisig or %s.sig) and "
                          "there is none", d->path, d->path);
        sig = found;
    }
    hx_sig_result res;
    hx_error serr = {0};
    int rc = hx_sig_verify(g->trust, raw, raw_len, sig, sig_len, &res, &serr);
    free(found);
    if (rc == HX_ENOMEM)
        return hx_error_set(err, rc, -1, "%s", serr.message);
    const char *who = res.signer[0] ? res.signer : res.key_id[0] ? res.key_id : "an unknown key";
    if (rc)
        return reject(v, "signature", "%s by %s does not verify: %s", which, who, res.reason[0] ? res.reason : serr.message);
    if (!signer_allowed(r, &res))
        return reject(v, "signature", "signed by %s (%s), who is not among the policy's signers for %s", who,
                      res.key_id, d->path);
    snprintf(v->signer, sizeof v->signer, "%s", res.format == HX_SIG_SSH ? res.signer : res.key_id);
    return 0;
}

/* Whether the normalized pattern occurs in the normalized text: its pieces between stars found
 * leftmost, in order, within one paragraph. Leftmost is enough: a later start of the first piece
 * leaves less room for the others in the same paragraph. */
static bool deny_match(const char *text, size_t n, const char *pat)
{
    const char *first_end = strchr(pat, '*');
    size_t first_len = first_end ? (size_t)(first_end - pat) : strlen(pat);
    const char *at = text, *end = text + n;
    while (at < end) {
        const char *hit = first_len ? memmem(at, (size_t)(end - at), pat, first_len) : at;
        if (!hit)
            return false;
        const char *para = memchr(hit, '\n', (size_t)(end - hit));
        const char *limit = para ? para : end, *p = hit + first_len, *q = first_end;
        bool ok = true;
        while (q && ok) {
            const char *seg = q + 1, *next = strchr(seg, '*');
            size_t len = next ? (size_t)(next - seg) : strlen(seg);
            const char *f = len ? memmem(p, (size_t)(limit - p), seg, len) : p;
            ok = f != NULL;
            if (ok)
                p = f + len;
            q = next;
        }
        if (ok)
            return true;
        at = para ? para + 1 : end;   /* the leftmost hit failed: no later hit in this paragraph can do better */
    }
    return false;
}

int ix_gate_check(const ix_gate *g, const hxi_doc_source *d, const uint8_t *raw, size_t raw_len, const char *sig,
                  size_t sig_len, ix_verdict *v, hx_error *err)
{
    memset(v, 0, sizeof *v);
    rules r;
    rules_for(g->policy, d->path, &r);
    if (r.max_size && raw_len > r.max_size)
        return reject(v, "size", "%zu bytes, over the policy's max_size of %llu", raw_len,
                      (unsigned long long)r.max_size);
    bool latin1 = !strcmp(d->encoding, "latin-1");
    unsigned enc = !strncmp(d->encoding, "utf-8", 5) ? ENC_UTF8 : !strncmp(d->encoding, "utf-16", 6) ? ENC_UTF16 : ENC_LATIN1;
    if (r.encodings && !(r.encodings & enc))
        return reject(v, "encoding", "%s is not among the policy's encodings%s", d->encoding,
                      latin1 ? " (the bytes are not valid UTF-8)" : "");
    int64_t at;
    if (latin1 && (at = malformed_utf8(raw, raw_len)) >= 0)
        return reject(v, "encoding", "malformed UTF-8 at byte %lld (the file holds UTF-8 sequences, so it is "
                      "not Latin-1 text)", (long long)at);
    uint32_t cp;
    if ((at = find_control(d->text, d->text_len, &cp)) >= 0)
        return reject(v, "control", "control character U+%04X at byte %lld of the text", (unsigned)cp, (long long)at);
    if (r.types) {
        int t = type_index(d->type, strlen(d->type));
        if (t < 0 || !(r.types >> t & 1))
            return reject(v, "type", "type %s is not among the policy's types for %s", d->type, d->path);
    }
    const char *rule = NULL;
    int rc = d->dt && d->dt->check ? d->dt->check(d, &rule, v->reason, sizeof v->reason, err) : 0;
    if (rc || rule) {
        v->rule = rule;
        return rc;
    }
    const section *all = g->policy ? g->policy->s : NULL;
    for (size_t i = 0; g->policy && i < g->policy->n; i++) {
        if (all[i].glob && !hxi_glob_match(all[i].glob, d->path))
            continue;
        for (size_t k = 0; k < all[i].n_req; k++) {
            const char *val = meta_value(d, all[i].req[k].key);
            if (!val)
                return reject(v, "metadata", "required metadata key '%s' is missing", all[i].req[k].key);
            if (all[i].req[k].type != REQ_TEXT && meta_count(d, all[i].req[k].key) > 1)
                return reject(v, "metadata", "metadata key '%s' is a list, not one %s", all[i].req[k].key,
                              req_type_names[all[i].req[k].type]);
            if (!typed_ok(val, all[i].req[k].type))
                return reject(v, "metadata", "metadata key '%s' is '%.100s', not a %s", all[i].req[k].key, val,
                              req_type_names[all[i].req[k].type]);
        }
    }
    char why[256];
    if (ix_trust_from_meta(d->meta, d->n_meta, &v->trust, why, sizeof why))
        return reject(v, "trust", "%s", why);
    static const char *const vis_names[] = {"public", "tenant", "private"};
    const char *own_vis = meta_value(d, "visibility");
    const char *keys[] = {"tenant", "owner", "visibility"};
    const char *own[] = {*v->trust.tenant ? v->trust.tenant : NULL, *v->trust.owner ? v->trust.owner : NULL, own_vis};
    const char *want[] = {r.tenant, r.owner, r.visibility >= 0 ? vis_names[r.visibility] : NULL};
    for (int k = 0; k < 3; k++)
        if (own[k] && want[k] && strcmp(own[k], want[k]))
            return reject(v, "trust", "its metadata says %s '%.100s' and the policy says '%s'", keys[k], own[k], want[k]);
    v->trust.tenant = r.tenant ? r.tenant : v->trust.tenant;
    v->trust.owner = r.owner ? r.owner : v->trust.owner;
    v->trust.visibility = r.visibility >= 0 ? (hx_visibility)r.visibility : v->trust.visibility;
    if (ix_trust_check(&v->trust, why, sizeof why))
        return reject(v, "trust", "%s (with the policy's rules for %s)", why, d->path);
    bool any_deny = false;
    for (size_t i = 0; g->policy && i < g->policy->n && !any_deny; i++)
        any_deny = all[i].n_deny && (!all[i].glob || hxi_glob_match(all[i].glob, d->path));
    /* The extracted text is what search shows; a text file as written is what a reader of it
     * also gets (MCP resources/read: a Markdown or HTML comment is left out of the text, not out
     * of the file): the deny patterns are matched in both, the file decoded as the extractors
     * decode it. A binary format's reader gets its extracted text alone. */
    char *source = NULL;
    size_t source_len = 0;
    const char *encoding;
    hx_error derr = {0};
    if (any_deny && !(d->dt && d->dt->binary) && hxi_doc_decode(raw, raw_len, &source, &source_len, &encoding, &derr)) {
        free(source);   /* not text after all (a NUL byte): the extracted text alone */
        source = NULL;
        if (derr.code == HX_ENOMEM)
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory checking deny patterns");
    }
    const struct { const char *s; size_t n; } seen[] = {{d->text, d->text_len}, {source, source ? source_len : 0}};
    for (int t = 0; any_deny && t < 2 && !v->rule && seen[t].s; t++) {
        char *norm = hx_malloc(seen[t].n + 1);
        if (!norm) {
            free(source);
            return hx_error_set(err, HX_ENOMEM, -1, "out of memory checking deny patterns");
        }
        size_t nn = normalize(seen[t].s, seen[t].n, norm);
        for (size_t i = 0; i < g->policy->n && !v->rule; i++) {
            if (all[i].glob && !hxi_glob_match(all[i].glob, d->path))
                continue;
            for (size_t k = 0; k < all[i].n_deny && !v->rule; k++)
                if (deny_match(norm, nn, all[i].deny[k].norm))
                    reject(v, "deny", "the %s matches the deny pattern \"%s\"", t ? "file as written" : "text",
                           all[i].deny[k].text);
        }
        free(norm);
    }
    free(source);
    if (v->rule)
        return 0;
    if (r.signature == 1)
        return check_signature(g, &r, d, raw, raw_len, sig, sig_len, v, err);
    if (sig)   /* offered though not required: it must verify all the same */
        return check_signature(g, &r, d, raw, raw_len, sig, sig_len, v, err);
    return 0;
}
