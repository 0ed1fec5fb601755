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
    hxi_yaml_fn fn;
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

int hxi_yaml_pairs(const char *s, size_t n, hxi_yaml_fn fn, void *ctx)
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

/* === Front matter and the structural check === */

int hxi_yaml_front_matter(const char *s, size_t n, size_t *yaml_at, size_t *yaml_len, size_t *body)
{
    if (n < 4 || memcmp(s, "---", 3) != 0 || (s[3] != '\n' && s[3] != '\r'))
        return 0;
    size_t start = s[3] == '\r' && n > 4 && s[4] == '\n' ? 5 : 4, pos = start;
    while (pos < n) {
        const char *nl = memchr(s + pos, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - (s + pos)) : n - pos;
        size_t trimmed = len && s[pos + len - 1] == '\r' ? len - 1 : len;
        if (trimmed == 3 && (!memcmp(s + pos, "---", 3) || !memcmp(s + pos, "...", 3))) {
            *yaml_at = start;
            *yaml_len = pos - start;
            *body = pos + len + (nl != NULL);
            return 1;
        }
        pos += len + (nl != NULL);
    }
    return -1;
}

static int check_fail(hx_error *err, int code, const char *s, size_t at, const char *why)
{
    size_t line = 1;
    for (size_t i = 0; i < at; i++)
        line += s[i] == '\n';
    return hx_error_set(err, code, (int64_t)at, "YAML does not parse at line %zu: %s", line, why);
}

static bool anchor_char(char c)
{
    return c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ',' && c != '[' && c != ']' && c != '{' &&
           c != '}';
}

int hxi_yaml_check(const char *s, size_t n, hx_error *err)
{
    char flow[HX_YAML_CHECK_MAX_NEST];     /* the open brackets */
    size_t indents[HX_YAML_CHECK_MAX_NEST];
    int depth = 0, levels = 0, aliases = 0;
    size_t block_indent = SIZE_MAX;        /* lines indented deeper belong to a block scalar */
    char quote = 0;
    size_t quote_at = 0;
    /* anchors are few: their names are kept as (offset, length) pairs to resolve aliases */
    size_t anchor_at[HX_YAML_CHECK_MAX_ALIASES * 4], anchor_len[HX_YAML_CHECK_MAX_ALIASES * 4];
    size_t n_anchors = 0;
    size_t i = 0;
    while (i < n) {
        /* start of a line */
        size_t indent = 0;
        while (i + indent < n && s[i + indent] == ' ')
            indent++;
        i += indent;
        if (quote || depth) {
            /* continuation of a multi-line quoted scalar or flow collection: no indentation rule */
        } else if (block_indent != SIZE_MAX) {
            if (i < n && s[i] != '\n' && s[i] != '\r' && indent <= block_indent)
                block_indent = SIZE_MAX;
            else {
                const char *nl = memchr(s + i, '\n', n - i);
                i = nl ? (size_t)(nl - s) + 1 : n;
                continue;
            }
        }
        if (!quote && !depth && i < n && s[i] == '\t')
            return check_fail(err, HX_EPARSE, s, i, "a tab in indentation");
        if (!quote && !depth && i < n && s[i] != '\n' && s[i] != '\r' && s[i] != '#') {
            while (levels > 0 && indents[levels - 1] > indent)
                levels--;
            if (!levels || indents[levels - 1] < indent) {
                if (levels == HX_YAML_CHECK_MAX_NEST)
                    return check_fail(err, HX_EDEPTH, s, i, "nested deeper than the limit");
                indents[levels++] = indent;
            }
        }
        bool value_start = true;           /* where a quote or an alias may begin */
        for (; i < n && s[i] != '\n'; i++) {
            char c = s[i];
            if (quote) {
                if (quote == '"' && c == '\\')
                    i++;
                else if (c == quote && quote == '\'' && i + 1 < n && s[i + 1] == '\'')
                    i++;
                else if (c == quote)
                    quote = 0, value_start = false;
                continue;
            }
            if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
                while (i < n && s[i] != '\n')
                    i++;
                break;
            }
            if (c == ' ' || c == '\t' || c == '\r')
                continue;
            if (value_start && (c == '"' || c == '\'')) {
                quote = c;
                quote_at = i;
                continue;
            }
            if (c == '[' || c == '{') {
                if (depth == HX_YAML_CHECK_MAX_NEST)
                    return check_fail(err, HX_EDEPTH, s, i, "flow collections nested deeper than the limit");
                flow[depth++] = c;
                value_start = true;
                continue;
            }
            if (c == ']' || c == '}') {
                if (!depth || flow[depth - 1] != (c == ']' ? '[' : '{'))
                    return check_fail(err, HX_EPARSE, s, i, "a closing bracket that matches no open one");
                depth--;
                value_start = false;
                continue;
            }
            if (value_start && (c == '&' || c == '*')) {
                size_t a = ++i;
                while (i < n && anchor_char(s[i]))
                    i++;
                size_t len = i - a;
                if (!len)
                    return check_fail(err, HX_EPARSE, s, a - 1, "an anchor or alias without a name");
                if (c == '&') {
                    if (n_anchors == sizeof anchor_at / sizeof *anchor_at)
                        return check_fail(err, HX_ERANGE, s, a - 1, "too many anchors");
                    anchor_at[n_anchors] = a;
                    anchor_len[n_anchors++] = len;
                } else {
                    bool known = false;
                    for (size_t k = 0; k < n_anchors && !known; k++)
                        known = anchor_len[k] == len && !memcmp(s + anchor_at[k], s + a, len);
                    if (!known)
                        return check_fail(err, HX_EPARSE, s, a - 1, "an alias to an anchor not defined before it");
                    if (++aliases > HX_YAML_CHECK_MAX_ALIASES)
                        return check_fail(err, HX_ERANGE, s, a - 1, "more aliases than the limit (an alias bomb?)");
                }
                i--;
                continue;
            }
            if ((c == '|' || c == '>') && value_start && !depth) {
                /* a block scalar header: the lines indented deeper than this one are its text */
                size_t j = i + 1;
                while (j < n && s[j] != '\n' && (s[j] == '-' || s[j] == '+' || (s[j] >= '1' && s[j] <= '9')))
                    j++;
                while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r'))
                    j++;
                if (j >= n || s[j] == '\n' || s[j] == '#') {
                    block_indent = indent;
                    i = j - 1;
                    value_start = false;
                    continue;
                }
            }
            value_start = c == ',' || ((c == ':' || c == '-' || c == '?') && (i + 1 >= n || s[i + 1] == ' ' ||
                                                                             s[i + 1] == '\n' || s[i + 1] == '\r'));
        }
        if (i < n)
            i++;   /* the '\n' */
    }
    if (quote)
        return check_fail(err, HX_EPARSE, s, quote_at, "a quoted scalar that is never closed");
    if (depth)
        return check_fail(err, HX_EPARSE, s, n, "a flow collection that is never closed");
    return 0;
}
