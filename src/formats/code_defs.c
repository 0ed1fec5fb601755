/* code_defs.c: the definition finders of code.h over the lexer's tokens (code_lex.c), driven by a
 * language's row (code_lang.c): one for languages whose blocks are braces (C, C++, Go,
 * JavaScript/TypeScript, Rust, Java, shell), one for Python's indentation. A definition is a
 * statement header that a keyword (`fn`, `class`, `struct`, `function`), a parameter list
 * (`int main(void) {` in C, `name(args) {` in a class body), an assignment of a function
 * (`const f = () => {`) or a shell `name() {` makes one, followed by its body; definitions inside a
 * class-like body (class, struct, impl, trait, interface, module) are its members, anything
 * inside a function's body is part of it. Depths are capped (HXI_CODE_MAX_DEPTH definitions,
 * HXI_CODE_MAX_SCOPES braces); a header keeps its first HDR_MAX tokens. */
#include "code.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define HDR_MAX 64

/* === Definitions out === */

static int add_def(hxi_code_defs *out, const hxi_code_def *d, hx_error *err)
{
    if (out->n >= INT32_MAX || hx_grow((void **)&out->v, &out->cap, out->n + 1, sizeof *out->v, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory reading definitions");
    out->v[out->n++] = *d;
    return 0;
}

static bool holds_members(hxi_def_kind k)
{
    return k != HXI_DEF_FUNCTION && k != HXI_DEF_METHOD && k != HXI_DEF_TYPE && k != HXI_DEF_DECLARATION;
}

static bool word_in(const char *s, uint32_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && !memcmp(*words, s, n))
            return true;
    return false;
}

/* Words that start a statement that is never a definition. */
static const char *const control_words[] = {
    "if", "else", "for", "while", "do", "switch", "case", "try", "catch", "finally", "return", "throw",
    "sizeof", "new", "delete", "goto", "using", "static_assert", "_Static_assert", "synchronized", NULL,
};
/* Words before a parameter list that do not name a function. */
static const char *const not_names[] = {
    "__attribute__", "__attribute", "__declspec", "alignas", "_Alignas", "decltype", "noexcept", "throw",
    "requires", "__asm__", "asm", "sizeof", "typeof", "__typeof__", NULL,
};
static const char *const access_words[] = {"public", "private", "protected", "signals", "slots", NULL};

/* === Brace languages: headers === */

typedef struct {
    uint32_t start, end, line;
    uint8_t depth;                /* bracket depth outside the token */
    hxi_tok_kind kind;
} htok;

typedef struct {
    htok t[HDR_MAX];
    int n;
    int paren;
    uint32_t last_line;
} header;

typedef enum { S_FILE, S_TRANSPARENT, S_MEMBERS, S_BODY, S_OTHER } scope_type;

typedef struct {
    scope_type type;
    int32_t def;
    bool saved;                   /* saved[i] holds the header this brace interrupted */
} scope;

typedef struct {
    const hxi_code_lang *l;
    const char *s;
    hxi_code_defs *out;
    scope *sc;                    /* HXI_CODE_MAX_SCOPES */
    header *saved;                /* one per scope */
    int n_sc;
    uint32_t extra;               /* braces open past the cap */
    header h;                     /* the statement being read in the current scope */
    int32_t pending;              /* a typedef'd definition waiting for its name, or -1 */
} finder;

static bool is(const finder *f, const htok *t, const char *w)
{
    size_t k = strlen(w);
    return t->end - t->start == k && !memcmp(f->s + t->start, w, k);
}

static bool punct(const finder *f, const header *h, int i, char c)
{
    return i >= 0 && i < h->n && h->t[i].kind == HXI_TK_PUNCT && f->s[h->t[i].start] == c;
}

static bool ident(const header *h, int i)
{
    return i >= 0 && i < h->n && h->t[i].kind == HXI_TK_IDENT;
}

static bool in_words(const finder *f, const htok *t, const char *const *w)
{
    return t->kind == HXI_TK_IDENT && word_in(f->s + t->start, t->end - t->start, w);
}

/* A '>' that closes an angle bracket (not the end of an arrow `->`, `=>`). */
static bool closes_angle(const finder *f, const header *h, int i)
{
    return punct(f, h, i, '>') && !((punct(f, h, i - 1, '-') || punct(f, h, i - 1, '=')) && h->t[i - 1].end == h->t[i].start);
}

/* Index after the bracket group opening at i: '(', '[' or '<'. */
static int skip_group(const finder *f, const header *h, int i)
{
    char open = f->s[h->t[i].start], close = open == '(' ? ')' : open == '[' ? ']' : '>';
    int depth = 0;
    for (; i < h->n; i++) {
        if (punct(f, h, i, open))
            depth++;
        else if ((open == '<' ? closes_angle(f, h, i) : punct(f, h, i, close)) && --depth == 0)
            return i + 1;
    }
    return h->n;
}

/* Skips decorations before a definition: Rust #[attr], C++ [[attr]], Java and TypeScript @annotations. */
static int skip_decorations(const finder *f, const header *h, int i)
{
    for (;;) {
        if (punct(f, h, i, '#') && punct(f, h, i + 1, '['))
            i = skip_group(f, h, i + 1);
        else if (punct(f, h, i, '#') && punct(f, h, i + 1, '!') && punct(f, h, i + 2, '['))
            i = skip_group(f, h, i + 2);   /* Rust #![inner] */
        else if (punct(f, h, i, '[') && punct(f, h, i + 1, '['))
            i = skip_group(f, h, i);
        else if (punct(f, h, i, '@') && ident(h, i + 1) && !is(f, &h->t[i + 1], "interface")) {
            i += 2;
            while (punct(f, h, i, '.') && ident(h, i + 1))
                i += 2;
            if (punct(f, h, i, '('))
                i = skip_group(f, h, i);
        } else {
            return i;
        }
    }
}

typedef struct {
    hxi_def_kind kind;
    int name, name_end;           /* header token indexes of the name's first and last token; -1: none */
    int owner;                    /* header token index of the owner, -1: none */
    uint32_t first_line;
    bool typedef_name;            /* the name follows the body */
} cand;

/* The name after a keyword at k: the last identifier before the body, a base list or parameters. */
static int name_after(const finder *f, const header *h, int k)
{
    static const char *const stops[] = {"extends", "implements", "final", "where", "permits", "sealed", NULL};
    int name = -1;
    for (int i = k + 1; i < h->n && h->t[i].depth == 0; i++) {
        if (ident(h, i) && in_words(f, &h->t[i], stops))
            break;
        if (ident(h, i))
            name = i;
        else if (!(punct(f, h, i, ':') && punct(f, h, i + 1, ':')) && !(punct(f, h, i - 1, ':') && punct(f, h, i, ':')))
            break;
    }
    return name;
}

/* Rust `impl<T> Trait for &'a path::Type<T>`: the type's last path segment (Type), or for a type
 * that is no path (`[T]`, `()`) its text. */
static void impl_name(const finder *f, const header *h, int k, cand *c)
{
    int i = k + 1, angle = 0, type = i;
    if (punct(f, h, i, '<'))
        type = i = skip_group(f, h, i);
    int end;
    for (; i < h->n; i++) {
        if (punct(f, h, i, '<'))
            angle++;
        else if (closes_angle(f, h, i) && angle)
            angle--;
        else if (!angle && !h->t[i].depth && ident(h, i) && is(f, &h->t[i], "for"))
            type = i + 1;
        else if (!angle && !h->t[i].depth && ident(h, i) && is(f, &h->t[i], "where"))
            break;
    }
    end = i;
    while (type < end && (punct(f, h, type, '&') || (punct(f, h, type, '\'') && ident(h, type + 1)) ||
                          (ident(h, type) && (is(f, &h->t[type], "mut") || is(f, &h->t[type], "dyn") ||
                                              is(f, &h->t[type], "const")))))
        type += punct(f, h, type, '\'') ? 2 : 1;
    if (type >= end)
        return;
    c->name = c->name_end = type;
    if (ident(h, type))
        while (punct(f, h, c->name + 1, ':') && punct(f, h, c->name + 2, ':') && ident(h, c->name + 3))
            c->name = c->name_end = c->name + 3;
    else
        c->name_end = end - 1;
}

/* A function by its parameter list: the identifier before the first '(' outside brackets that
 * follows no assignment, before a trailing return or initializer list. */
static bool by_parens(const finder *f, const header *h, int i, cand *c)
{
    int name = -1, angle = 0;
    bool tmpl = false, op = false;
    for (int k = i; k < h->n; k++) {
        const htok *t = &h->t[k];
        if (t->depth != 0)
            continue;
        if (t->kind == HXI_TK_IDENT) {
            tmpl |= is(f, t, "template");
            op |= is(f, t, "operator");
            continue;
        }
        char ch = f->s[t->start];
        if (ch == '<' && (tmpl || angle))
            angle++;
        else if (ch == '>' && angle)
            tmpl = --angle > 0;
        else if (ch == '=' && !angle && !op)
            return false;
        else if (ch == ':' && name >= 0 && !punct(f, h, k + 1, ':') && !punct(f, h, k - 1, ':'))
            break;
        else if (ch == '-' && punct(f, h, k + 1, '>') && name >= 0)
            break;
        else if (ch == '(' && punct(f, h, k + 1, '*') && !angle) {   /* int (*name(args))(int) */
            for (int j = k + 1, e = skip_group(f, h, k); j + 1 < e; j++)
                if (ident(h, j) && punct(f, h, j + 1, '(')) {
                    name = j;
                    break;
                }
        } else if (ch == '(' && k > i && !angle) {
            int p = k - 1;
            if (ident(h, p) && !in_words(f, &h->t[p], not_names) && !in_words(f, &h->t[p], control_words)) {
                name = p;
            } else if (op) {
                while (p > i && !(ident(h, p) && is(f, &h->t[p], "operator")))
                    p--;
                if (ident(h, p) && is(f, &h->t[p], "operator"))
                    name = p;
            }
        }
    }
    if (name < 0)
        return false;
    c->name = name;
    c->name_end = name;
    if (is(f, &h->t[name], "operator"))
        while (c->name_end + 1 < h->n && !punct(f, h, c->name_end + 1, '('))
            c->name_end++;
    int q = name;
    if (punct(f, h, q - 1, '~'))
        c->name = --q;
    if (punct(f, h, q - 1, ':') && punct(f, h, q - 2, ':') && ident(h, q - 3))
        c->owner = q - 3;
    c->kind = HXI_DEF_FUNCTION;
    return true;
}

/* `const name = (...) => ...` or `= function`: the function's name. */
static bool by_assignment(const finder *f, const header *h, int i, bool members, cand *c)
{
    while (ident(h, i) && (is(f, &h->t[i], "export") || is(f, &h->t[i], "declare") || is(f, &h->t[i], "static") ||
                           is(f, &h->t[i], "public") || is(f, &h->t[i], "private") || is(f, &h->t[i], "readonly")))
        i++;
    bool decl = ident(h, i) && (is(f, &h->t[i], "const") || is(f, &h->t[i], "let") || is(f, &h->t[i], "var"));
    if (!decl && !members)
        return false;
    int name = i + decl, eq = -1;
    if (!ident(h, name))
        return false;
    for (int k = name + 1; k < h->n && h->t[k].depth == 0; k++)
        if (punct(f, h, k, '=') && !punct(f, h, k + 1, '=') && !punct(f, h, k + 1, '>')) {
            eq = k;
            break;
        }
    if (eq < 0)
        return false;
    bool fn = false;
    for (int k = eq + 1; k < h->n && !fn; k++)
        fn = h->t[k].depth == 0 && ((punct(f, h, k, '=') && punct(f, h, k + 1, '>')) ||
                                    (k <= eq + 2 && ident(h, k) && is(f, &h->t[k], "function")));
    if (!fn)
        return false;
    c->kind = HXI_DEF_FUNCTION;
    c->name = c->name_end = name;
    return true;
}

/* Reads the header in f->h as a definition: 1 a definition (in *c), 2 a transparent container
 * (namespace, extern "C"), 0 anything else. body: it ends at '{' (else at a statement's end). */
static int classify(const finder *f, bool members, bool body, cand *c)
{
    const header *h = &f->h;
    const hxi_code_lang *l = f->l;
    *c = (cand){.name = -1, .owner = -1};
    int i = skip_decorations(f, h, 0);
    if (i >= h->n)
        return 0;
    c->first_line = l->attrs_outside ? h->t[i].line : h->t[0].line;
    if (in_words(f, &h->t[i], control_words))
        return 0;
    if (l->c_like && is(f, &h->t[i], "extern") && i + 1 < h->n && h->t[i + 1].kind == HXI_TK_STRING)
        return body ? 2 : 0;
    bool parens = false, tdef = false, eq = false;
    int kw = -1, angle = 0;
    for (int k = i; k < h->n && !eq; k++) {
        if (h->t[k].depth)
            continue;
        if (ident(h, k) && is(f, &h->t[k], "template") && punct(f, h, k + 1, '<')) {
            k = skip_group(f, h, k + 1) - 1;   /* template <class T>: not a class */
            continue;
        }
        angle += kw >= 0 && punct(f, h, k, '<');
        angle -= angle && closes_angle(f, h, k);
        eq = !angle && punct(f, h, k, '=') && !punct(f, h, k + 1, '>');
        parens |= punct(f, h, k, '(');
        tdef |= ident(h, k) && is(f, &h->t[k], "typedef");
        for (const hxi_code_kw *w = l->kws; kw < 0 && w->word && h->t[k].kind == HXI_TK_IDENT; w++)
            if (is(f, &h->t[k], w->word)) {
                kw = k;
                c->kind = w->kind;
            }
    }
    for (int k = kw + 1; kw >= 0 && k < h->n; k++)
        parens |= punct(f, h, k, '(') && !h->t[k].depth;
    if (kw >= 0 && !eq && !(l->c_like && parens && !tdef)) {
        if (c->kind == HXI_DEF_NAMESPACE)
            return body ? 2 : 0;
        if (c->kind == HXI_DEF_FUNCTION && ident(h, kw) && is(f, &h->t[kw], "func") && punct(f, h, kw + 1, '(')) {
            int j = skip_group(f, h, kw + 1);   /* Go: func (r *T) Name( */
            for (int k = kw + 2; k < j; k++)
                if (ident(h, k) && h->t[k].depth == 1)
                    c->owner = k;
            c->name = ident(h, j) ? j : -1;
            c->kind = HXI_DEF_METHOD;
        } else if (c->kind == HXI_DEF_FUNCTION) {
            int k = kw + 1 + punct(f, h, kw + 1, '*');
            c->name = ident(h, k) ? k : -1;
        } else if (c->kind == HXI_DEF_IMPL) {
            impl_name(f, h, kw, c);
        } else if (ident(h, i) && is(f, &h->t[i], "type") && ident(h, i + 1) && i + 1 < kw) {   /* Go: type Name[T] struct */
            c->name = i + 1;
        } else {
            c->name = name_after(f, h, kw);
        }
        if (c->kind != HXI_DEF_IMPL)
            c->name_end = c->name;
        if (tdef && l->typedef_name) {
            c->typedef_name = true;
            return body ? 1 : 0;
        }
        if (!body && !(l->bodyless_struct && c->kind == HXI_DEF_STRUCT) &&
            !(l->bodyless_fn && (c->kind == HXI_DEF_FUNCTION || c->kind == HXI_DEF_METHOD)))
            return 0;
        return c->name >= 0;
    }
    if (l->assign_fn && by_assignment(f, h, i, members, c))
        return 1;
    if (!body && l->c_like && h->n > 2 && punct(f, h, h->n - 2, '=') && ident(h, h->n - 1) &&
        (is(f, &h->t[h->n - 1], "default") || is(f, &h->t[h->n - 1], "delete"))) {
        header fn = *h;   /* C++ `Type::~Type() = default;` defines it */
        fn.n -= 2;
        return (members && l->paren_members) || !members ? by_parens(f, &fn, i, c) : 0;
    }
    /* `int f(void);`: a return type before the name (not a macro's call), no typedef, initializer or
       pointer declarator (`int (*fp)(void);`) */
    if (!body && l->c_like && !members && !tdef && !eq && by_parens(f, h, i, c) && c->name > i && c->owner < 0 &&
        !punct(f, h, c->name_end + 2, '*')) {
        c->kind = HXI_DEF_DECLARATION;
        return 1;
    }
    if (!body)
        return 0;
    if (!l->c_like && !l->paren_members && !l->line_stmts)
        return 0;
    if (l->line_stmts)   /* shell: name ( ) { */
        return h->n == 3 && ident(h, 0) && punct(f, h, 1, '(') && punct(f, h, 2, ')') &&
               (c->kind = HXI_DEF_FUNCTION, c->name = c->name_end = 0, 1);
    if ((members && l->paren_members) || (!members && l->c_like))
        return by_parens(f, h, i, c);
    return 0;
}

/* === Brace languages: scopes === */

static void reset(finder *f)
{
    f->h.n = 0;
    f->h.paren = 0;
}

static int32_t enclosing_def(const finder *f)
{
    for (int i = f->n_sc - 1; i >= 0; i--)
        if (f->sc[i].def >= 0)
            return f->sc[i].def;
    return -1;
}

static int record(finder *f, const cand *c, uint32_t last_line, hx_error *err)
{
    const header *h = &f->h;
    int32_t parent = enclosing_def(f);
    uint8_t depth = parent >= 0 ? f->out->v[parent].depth + 1 : 1;
    hxi_code_def d = {.head_line = h->t[0].line, .first_line = c->first_line, .last_line = last_line,
                      .parent = parent, .depth = depth, .kind = c->kind};
    if (c->name >= 0) {
        d.name = h->t[c->name].start;
        d.name_len = h->t[c->name_end].end - d.name;
    }
    if (c->owner >= 0) {
        d.owner = h->t[c->owner].start;
        d.owner_len = h->t[c->owner].end - d.owner;
    }
    if (d.kind == HXI_DEF_FUNCTION && (c->owner >= 0 || (parent >= 0 && f->sc[f->n_sc - 1].type == S_MEMBERS &&
                                                         f->out->v[parent].kind != HXI_DEF_MODULE)))
        d.kind = HXI_DEF_METHOD;
    return add_def(f->out, &d, err);
}

static void push(finder *f, scope_type type, int32_t def, bool save)
{
    if (f->n_sc >= HXI_CODE_MAX_SCOPES) {
        f->extra++;
        reset(f);
        return;
    }
    f->sc[f->n_sc] = (scope){type, def, save};
    if (save)
        f->saved[f->n_sc] = f->h;
    f->n_sc++;
    reset(f);
}

static void pop(finder *f, const hxi_tok *t)
{
    if (f->extra) {
        f->extra--;
        return;
    }
    if (f->n_sc <= 1)
        return;   /* a stray '}' */
    scope e = f->sc[--f->n_sc];
    reset(f);
    if (e.def >= 0) {
        f->out->v[e.def].last_line = t->last_line;
        if (f->pending == -2 - e.def)
            f->pending = e.def;   /* the typedef's name comes next */
    }
    if (e.type == S_OTHER && e.saved)
        f->h = f->saved[f->n_sc];
}

/* A statement ended (';', a new line that starts one): a body-less definition, or a typedef's name. */
static int end_statement(finder *f, uint32_t line, bool members, hx_error *err)
{
    int rc = 0;
    cand c;
    if (f->pending >= 0) {
        hxi_code_def *d = &f->out->v[f->pending];
        for (int k = f->h.n - 1; k >= 0; k--)
            if (f->h.t[k].kind == HXI_TK_IDENT && f->h.t[k].depth == 0) {
                d->name = f->h.t[k].start;
                d->name_len = f->h.t[k].end - d->name;
                break;
            }
        d->last_line = line;
        f->pending = -1;
    } else if (f->h.n && classify(f, members, false, &c) == 1) {
        rc = record(f, &c, f->h.last_line, err);
    }
    reset(f);
    return rc;
}

static bool saves(const finder *f)
{
    if (f->h.paren)
        return true;
    for (int k = 0; k < f->h.n; k++)
        if (punct(f, &f->h, k, '=') && f->h.t[k].depth == 0)
            return true;
    return false;
}

/* '{' in a scope where definitions may stand. */
static int open_brace(finder *f, bool members, hx_error *err)
{
    cand c;
    int r = f->h.paren ? 0 : classify(f, members, true, &c);
    int32_t parent = enclosing_def(f);
    if (r == 1 && (c.name >= 0 || c.typedef_name) &&
        (parent < 0 || f->out->v[parent].depth < HXI_CODE_MAX_DEPTH) && f->n_sc < HXI_CODE_MAX_SCOPES) {
        int rc = record(f, &c, f->h.last_line, err);
        if (rc)
            return rc;
        int32_t def = (int32_t)f->out->n - 1;
        if (c.typedef_name)
            f->pending = -2 - def;
        push(f, holds_members(c.kind) ? S_MEMBERS : S_BODY, def, false);
    } else if (r == 2) {
        push(f, S_TRANSPARENT, -1, false);
    } else {
        push(f, S_OTHER, -1, saves(f));
    }
    return 0;
}

static void add_token(finder *f, const hxi_tok *t)
{
    header *h = &f->h;
    char c = t->kind == HXI_TK_PUNCT ? f->s[t->start] : 0;
    if (c == ')' || c == ']')
        h->paren -= h->paren > 0;
    if (h->n < HDR_MAX)
        h->t[h->n++] = (htok){t->start, t->end, t->line, (uint8_t)(h->paren > 255 ? 255 : h->paren), t->kind};
    if (c == '(' || c == '[')
        h->paren++;
    h->last_line = t->last_line;
}

/* Whether a line starting with t ends the statement before it where semicolons are optional:
 * t is a word that starts statements, or an operand follows an operand. */
static bool asi_break(const finder *f, const hxi_tok *t)
{
    if (t->kind == HXI_TK_IDENT && word_in(f->s + t->start, t->end - t->start, f->l->stmt_words))
        return true;
    const htok *last = &f->h.t[f->h.n - 1];
    char lc = f->s[last->start];
    return t->kind != HXI_TK_PUNCT && (last->kind != HXI_TK_PUNCT || lc == ')' || lc == ']');
}

int hxi_code_find_braces(const hxi_code_lang *l, const char *s, size_t n, uint8_t *marks, size_t n_marks,
                         hxi_code_defs *out, hx_error *err)
{
    finder f = {.l = l, .s = s, .out = out, .pending = -1};
    f.sc = hx_malloc(sizeof *f.sc * HXI_CODE_MAX_SCOPES);
    f.saved = hx_malloc(sizeof *f.saved * HXI_CODE_MAX_SCOPES);
    int rc = 0;
    if (!f.sc || !f.saved) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory reading definitions");
        goto out;
    }
    f.sc[f.n_sc++] = (scope){S_FILE, -1, false};
    hxi_lexer lx;
    hxi_lex_init(&lx, s, n, l->lex, marks, n_marks);
    hxi_tok t;
    while (!rc && hxi_lex_next(&lx, &t)) {
        scope_type top = f.extra ? S_OTHER : f.sc[f.n_sc - 1].type;
        bool allowed = top == S_FILE || top == S_TRANSPARENT || top == S_MEMBERS, members = top == S_MEMBERS;
        char c = t.kind == HXI_TK_PUNCT ? s[t.start] : 0;
        if (!allowed) {
            if (c == '{')
                push(&f, S_OTHER, -1, false);
            else if (c == '}')
                pop(&f, &t);
            continue;
        }
        if (t.kind == HXI_TK_PREPROC) {
            if (!f.h.paren)
                rc = end_statement(&f, t.line, members, err);
            continue;
        }
        if (t.bol && (!f.h.paren || l->line_stmts) && f.h.n && c != '{' && (l->line_stmts || (l->asi && asi_break(&f, &t))) &&
            (rc = end_statement(&f, f.h.last_line, members, err)))
            break;
        if (c == '{') {
            rc = open_brace(&f, members, err);
        } else if (c == '}') {
            pop(&f, &t);
        } else if (c == ';' && !f.h.paren) {
            rc = end_statement(&f, t.last_line, members, err);
        } else if (c == ':' && f.h.n == 1 && in_words(&f, &f.h.t[0], access_words)) {
            reset(&f);   /* public: */
        } else {
            add_token(&f, &t);
        }
    }
    if (!rc && f.h.n)
        rc = end_statement(&f, f.h.last_line, f.sc[f.n_sc - 1].type == S_MEMBERS, err);
    for (int i = f.n_sc - 1; i > 0; i--)   /* bodies never closed end at the last line */
        if (f.sc[i].def >= 0)
            out->v[f.sc[i].def].last_line = lx.line;
out:
    free(f.sc);
    free(f.saved);
    return rc;
}

/* === Indentation (Python) === */

/* Comment lines indented deeper than a body's `indent` right after it (from byte `from`, the end
 * of its last token on line `line`, to byte `to`, the next statement) are part of it: the line of
 * the last one, else `line`. */
static uint32_t comment_tail(const char *s, uint32_t from, uint32_t to, uint32_t line, uint32_t indent)
{
    uint32_t last = line;
    const char *p = from < to ? memchr(s + from, '\n', to - from) : NULL;
    while (p) {
        const char *q = ++p;
        uint32_t col = 0;
        line++;
        while (q < s + to && (*q == ' ' || *q == '\t')) {
            col = *q == '\t' ? (col / 8 + 1) * 8 : col + 1;
            q++;
        }
        if (q >= s + to || (*q == '#' && col <= indent) || (*q != '#' && *q != '\n' && *q != '\r'))
            break;
        if (*q == '#')
            last = line;
        p = memchr(q, '\n', (size_t)(s + to - q));
    }
    return last;
}

/* The contents of a string token (without prefix and quotes). */
static void string_contents(const char *s, const hxi_tok *t, uint32_t *at, uint32_t *len)
{
    uint32_t p = t->start;
    while (p < t->end && s[p] != '"' && s[p] != '\'')
        p++;
    uint32_t q = p < t->end ? 1 : 0;
    if (q && t->end - p >= 6 && s[p + 1] == s[p] && s[p + 2] == s[p])
        q = 3;
    uint32_t a = p + q, e = t->end >= a + q ? t->end - q : a;
    *at = a;
    *len = e > a ? e - a : 0;
}

int hxi_code_find_indent(const hxi_code_lang *l, const char *s, size_t n, uint8_t *marks, size_t n_marks,
                         hxi_code_defs *out, hx_error *err)
{
    struct {
        int32_t def;
        uint32_t indent;
    } st[HXI_CODE_MAX_DEPTH];
    int depth = 0, paren = 0, want = 0, rc = 0;   /* want: 2 after `async`, 1 after `def`/`class` */
    uint32_t deco = 0, prev_last = 0, prev_end = 0, line = 0, indent = 0;
    hxi_def_kind kind = HXI_DEF_NONE;
    bool first = true;
    hxi_lexer lx;
    hxi_lex_init(&lx, s, n, l->lex, marks, n_marks);
    hxi_tok t;
    while (!rc && hxi_lex_next(&lx, &t)) {
        const char *w = s + t.start;
        uint32_t wl = t.end - t.start;
        bool is_id = t.kind == HXI_TK_IDENT;
        if (t.bol && paren == 0) {
            for (; depth > 0 && t.col <= st[depth - 1].indent; depth--)
                out->v[st[depth - 1].def].last_line = comment_tail(s, prev_end, t.start, prev_last, st[depth - 1].indent);
            want = 0;
            if (t.kind == HXI_TK_PUNCT && *w == '@') {
                deco = deco ? deco : t.line;
            } else if (is_id && ((wl == 3 && !memcmp(w, "def", 3)) || (wl == 5 && !memcmp(w, "class", 5)) ||
                                 (wl == 5 && !memcmp(w, "async", 5)))) {
                want = *w == 'a' ? 2 : 1;
                kind = *w == 'c' ? HXI_DEF_CLASS : HXI_DEF_FUNCTION;
                line = deco ? deco : t.line;
                indent = t.col;
                deco = 0;
            } else {
                deco = 0;
            }
            if (first && t.kind == HXI_TK_STRING && t.col == 0)
                string_contents(s, &t, &out->doc, &out->doc_len);
            first = false;
        } else if (want == 2) {
            want = is_id && wl == 3 && !memcmp(w, "def", 3) ? 1 : 0;
        } else if (want == 1) {
            want = 0;
            int32_t parent = depth ? st[depth - 1].def : -1;
            bool allowed = !depth || (out->v[parent].kind == HXI_DEF_CLASS && depth < HXI_CODE_MAX_DEPTH);
            if (is_id && allowed) {
                hxi_code_def d = {.name = t.start, .name_len = wl, .head_line = line, .first_line = line,
                                  .last_line = t.last_line, .parent = parent, .depth = (uint8_t)(depth + 1),
                                  .kind = kind == HXI_DEF_FUNCTION && parent >= 0 ? HXI_DEF_METHOD : kind};
                if ((rc = add_def(out, &d, err)))
                    break;
                st[depth].def = (int32_t)out->n - 1;
                st[depth++].indent = indent;
            }
        }
        if (t.kind == HXI_TK_PUNCT && (*w == '(' || *w == '[' || *w == '{'))
            paren++;
        else if (t.kind == HXI_TK_PUNCT && (*w == ')' || *w == ']' || *w == '}'))
            paren -= paren > 0;
        prev_last = t.last_line;
        prev_end = t.end;
    }
    for (; depth > 0; depth--)
        out->v[st[depth - 1].def].last_line = comment_tail(s, prev_end, (uint32_t)n, prev_last, st[depth - 1].indent);
    return rc;
}

int hxi_code_definitions(const hxi_code_lang *l, const char *s, size_t n, uint8_t *marks, size_t n_marks,
                         hxi_code_defs *out, hx_error *err)
{
    memset(out, 0, sizeof *out);
    return l && l->find ? l->find(l, s, n, marks, n_marks, out, err) : 0;
}
