/* yaml.c: the metadata YAML subset (spec in yaml.h). Line by line with a stack of open keys; must
 * not allocate (every buffer is on the stack, sized by the limits in yaml.h), so hostile input
 * costs time linear in its length and nothing else. */
#include "yaml.h"

#include <string.h>

typedef struct {
    size_t indent;
    const char *key;
    size_t klen;
} ym_level;

typedef struct {
    ym_level st[HX_YAML_MAX_DEPTH];
    int depth;
    hx_yaml_fn fn;
    void *ctx;
    char key[HX_YAML_KEY_MAX + 1];
    char val[HX_YAML_VALUE_MAX];
    /* a flow list whose ']' comes on a later line: its lines gathered, joined by spaces */
    bool in_flow, flow_full;
    const char *flow_key;     /* into the input */
    size_t flow_klen, flow_len;
    char flow[HX_YAML_FLOW_MAX];
} ym;

/* The open keys plus leaf (may be empty) joined with '.' into p->key; 0 when it would be too long. */
static size_t build_key(ym *p, const char *leaf, size_t llen)
{
    size_t n = 0;
    for (int i = 0; i <= p->depth; i++) {
        const char *k = i < p->depth ? p->st[i].key : leaf;
        size_t kl = i < p->depth ? p->st[i].klen : llen;
        if (!kl)
            continue;
        if (n + (n > 0) + kl > HX_YAML_KEY_MAX)
            return 0;
        if (n)
            p->key[n++] = '.';
        memcpy(p->key + n, k, kl);
        n += kl;
    }
    return n;
}

static bool is_null(const char *s, size_t n)
{
    return n == 0 || (n == 1 && s[0] == '~') || (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) ||
                                                            !memcmp(s, "NULL", 4)));
}

/* A scalar at s[0..n): quoted (to its closing quote) or plain (to " #" or, with `flow`, to ',' or
 * ']'). Decoded into p->val[0..*vlen); *used gets the bytes consumed. False when it is not a
 * scalar (an unclosed quote). */
static bool scalar(ym *p, const char *s, size_t n, bool flow, size_t *used, size_t *vlen, bool *quoted)
{
    size_t o = 0, i;
    *quoted = n && (s[0] == '"' || s[0] == '\'');
    if (*quoted) {
        char q = s[0];
        for (i = 1; i < n; i++) {
            char c = s[i];
            if (q == '\'' && c == '\'') {
                if (i + 1 < n && s[i + 1] == '\'') {
                    i++;
                } else {
                    break;
                }
            } else if (q == '"' && c == '"') {
                break;
            } else if (q == '"' && c == '\\' && i + 1 < n) {
                char e = s[++i];
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
                if (e != 'n' && e != 't' && e != 'r' && e != '"' && e != '\\' && e != '/') {
                    if (o < sizeof p->val)
                        p->val[o++] = '\\';
                }
            }
            if (o < sizeof p->val)
                p->val[o++] = c;
        }
        if (i >= n)
            return false;
        *used = i + 1;
        *vlen = o;
        return true;
    }
    for (i = 0; i < n; i++) {
        if (flow && (s[i] == ',' || s[i] == ']'))
            break;
        if (s[i] == '#' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
            break;
    }
    *used = i;
    while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
        i--;
    if (i > sizeof p->val)
        i = sizeof p->val;
    memcpy(p->val, s, i);
    *vlen = i;
    return true;
}

static size_t skip_spaces(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

static int emit(ym *p, const char *leaf, size_t llen, const char *s, size_t n)
{
    size_t used, vlen, kl = build_key(p, leaf, llen);
    bool quoted;
    if (!kl || !scalar(p, s, n, false, &used, &vlen, &quoted))
        return 0;
    if (!quoted && is_null(p->val, vlen))
        return 0;
    return p->fn(p->ctx, p->key, kl, p->val, vlen, quoted);
}

/* "[a, 'b', c]" on one line: one pair per scalar item; nested lists and maps are skipped. */
static int emit_flow_list(ym *p, const char *leaf, size_t llen, const char *s, size_t n)
{
    size_t kl = build_key(p, leaf, llen), i = 1;
    if (!kl)
        return 0;
    while (i < n) {
        i = skip_spaces(s, n, i);
        if (i >= n || s[i] == ']' || s[i] == '[' || s[i] == '{')
            return 0;
        size_t used, vlen;
        bool quoted;
        if (!scalar(p, s + i, n - i, true, &used, &vlen, &quoted))
            return 0;
        i += used;
        if (quoted || !is_null(p->val, vlen)) {
            int rc = p->fn(p->ctx, p->key, kl, p->val, vlen, quoted);
            if (rc)
                return rc;
        }
        i = skip_spaces(s, n, i);
        if (i < n && s[i] == ',')
            i++;
        else
            return 0;
    }
    return 0;
}

/* Length of a mapping key at the start of s[0..n) ("key:" followed by a space or the end), with
 * *vstart at its value; 0 when s is not a key line. Quoted keys are not metadata keys here. */
static size_t key_at(const char *s, size_t n, size_t *vstart)
{
    if (!n || strchr("[]{}&*!|>%@`#'\"-?,", s[0]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '#' && i > 0 && s[i - 1] == ' ')
            return 0;
        if (s[i] == ':' && (i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\t')) {
            size_t k = i;
            while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
                k--;
            *vstart = skip_spaces(s, n, i + 1);
            return k;
        }
    }
    return 0;
}

/* A mapping line at indent (the stack already popped to its parent). *skip_from gets the indent
 * whose deeper lines are to be skipped (block scalar, too deep), or stays SIZE_MAX. 1 when s is
 * not a key line. */
static int key_line(ym *p, const char *s, size_t n, size_t indent, size_t *skip_from, int *rc)
{
    size_t v, kl = key_at(s, n, &v);
    *rc = 0;
    if (!kl)
        return 1;
    const char *val = s + v;
    size_t vn = n - v;
    while (vn && (val[0] == '&' || val[0] == '!')) {   /* anchor or tag: keep what follows */
        size_t t = 0;
        while (t < vn && val[t] != ' ')
            t++;
        t = skip_spaces(val, vn, t);
        val += t;
        vn -= t;
    }
    if (!vn || val[0] == '#') {   /* a parent: its children follow, indented */
        if (p->depth == HX_YAML_MAX_DEPTH) {
            *skip_from = indent;
            return 0;
        }
        p->st[p->depth++] = (ym_level){indent, s, kl};
        return 0;
    }
    if (val[0] == '|' || val[0] == '>') {
        *skip_from = indent;
        return 0;
    }
    if (val[0] == '*' || val[0] == '{')
        return 0;
    if (val[0] == '[' && !memchr(val, ']', vn)) {   /* continued on the next lines */
        p->in_flow = true;
        p->flow_full = vn > sizeof p->flow;
        p->flow_key = s;
        p->flow_klen = kl;
        p->flow_len = p->flow_full ? 0 : vn;
        memcpy(p->flow, val, p->flow_len);
        return 0;
    }
    *rc = val[0] == '[' ? emit_flow_list(p, s, kl, val, vn) : emit(p, s, kl, val, vn);
    return 0;
}

/* One more line of a flow list that began on an earlier line; emits it at its ']'. */
static int flow_line(ym *p, const char *line, size_t len)
{
    const char *end = memchr(line, ']', len);
    if (p->flow_len + 1 + len > sizeof p->flow)
        p->flow_full = true;
    if (!p->flow_full) {
        p->flow[p->flow_len++] = ' ';
        memcpy(p->flow + p->flow_len, line, len);
        p->flow_len += len;
    }
    if (!end)
        return 0;
    p->in_flow = false;
    return p->flow_full ? 0 : emit_flow_list(p, p->flow_key, p->flow_klen, p->flow, p->flow_len);
}

int hx_yaml_pairs(const char *s, size_t n, hx_yaml_fn fn, void *ctx)
{
    ym p = {.fn = fn, .ctx = ctx};
    size_t pos = 0, skip_from = SIZE_MAX;
    bool content = false;
    int rc = 0;
    while (pos < n && !rc) {
        const char *line = s + pos, *nl = memchr(line, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - line) : n - pos;
        pos += len + (nl != NULL);
        if (len && line[len - 1] == '\r')
            len--;
        if (p.in_flow) {
            rc = flow_line(&p, line, len);
            continue;
        }
        size_t indent = 0;
        while (indent < len && line[indent] == ' ')
            indent++;
        if (indent == len || line[indent] == '#')
            continue;
        if (skip_from != SIZE_MAX) {
            if (indent > skip_from)
                continue;
            skip_from = SIZE_MAX;
        }
        if (line[indent] == '\t')
            continue;
        const char *t = line + indent;
        size_t tn = len - indent;
        if (indent == 0 && tn >= 3 && (!memcmp(t, "---", 3) || !memcmp(t, "...", 3)) && (tn == 3 || t[3] == ' ')) {
            if (content)
                break;   /* a second document: only the first is metadata */
            continue;
        }
        content = true;
        if (t[0] == '-' && (tn == 1 || t[1] == ' ')) {
            while (p.depth > 0 && p.st[p.depth - 1].indent > indent)
                p.depth--;
            size_t c = skip_spaces(t, tn, 1);
            if (!p.depth || c == tn || t[c] == '-' || t[c] == '[' || t[c] == '{' || t[c] == '*')
                continue;
            if (key_line(&p, t + c, tn - c, indent + c, &skip_from, &rc) == 1)
                rc = emit(&p, "", 0, t + c, tn - c);
            continue;
        }
        while (p.depth > 0 && p.st[p.depth - 1].indent >= indent)
            p.depth--;
        key_line(&p, t, tn, indent, &skip_from, &rc);
    }
    return rc;
}
