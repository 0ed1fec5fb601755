/* code_lang.c: the table of languages hyrax reads by their definitions (code.h): one row each with
 * its name (the `lang` metadata), extensions, shebang interpreters, lexical syntax, definition
 * keywords and rules; and choosing a file's row by extension or `#!` line. Adding a language is a
 * row here (and a finder in code_defs.c only for a new kind of block structure). */
#include "code.h"

#include <string.h>
#include <strings.h>

static const char *const kind_names[] = {
    [HXI_DEF_NONE] = "", [HXI_DEF_FUNCTION] = "function", [HXI_DEF_METHOD] = "method", [HXI_DEF_CLASS] = "class",
    [HXI_DEF_STRUCT] = "struct", [HXI_DEF_UNION] = "union", [HXI_DEF_ENUM] = "enum", [HXI_DEF_INTERFACE] = "interface",
    [HXI_DEF_TRAIT] = "trait", [HXI_DEF_IMPL] = "impl", [HXI_DEF_MODULE] = "module", [HXI_DEF_TYPE] = "type",
    [HXI_DEF_RECORD] = "record", [HXI_DEF_NAMESPACE] = "namespace",
    [HXI_DEF_DECLARATION] = "declaration",
};

const char *hxi_def_kind_name(hxi_def_kind k)
{
    return (size_t)k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : "";
}

/* === Rows === */

static const char *const c_exts[] = {"c", "h", NULL};
static const char *const cpp_exts[] = {"cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", NULL};
static const char *const py_exts[] = {"py", "pyi", "pyw", NULL};
static const char *const py_interp[] = {"python", "python2", "python3", "pypy", "pypy3", NULL};
static const char *const go_exts[] = {"go", NULL};
static const char *const js_exts[] = {"js", "mjs", "cjs", "jsx", NULL};
static const char *const js_interp[] = {"node", "nodejs", NULL};
static const char *const ts_exts[] = {"ts", "mts", "cts", "tsx", NULL};
static const char *const rs_exts[] = {"rs", NULL};
static const char *const java_exts[] = {"java", NULL};
static const char *const sh_exts[] = {"sh", "bash", "zsh", "ksh", NULL};
static const char *const sh_interp[] = {"sh", "bash", "zsh", "ksh", "dash", "ash", NULL};

static const hxi_code_kw c_kws[] = {
    {"struct", HXI_DEF_STRUCT}, {"union", HXI_DEF_UNION}, {"enum", HXI_DEF_ENUM}, {NULL, 0},
};
static const hxi_code_kw cpp_kws[] = {
    {"class", HXI_DEF_CLASS}, {"struct", HXI_DEF_STRUCT}, {"union", HXI_DEF_UNION}, {"enum", HXI_DEF_ENUM},
    {"namespace", HXI_DEF_NAMESPACE}, {NULL, 0},
};
static const hxi_code_kw py_kws[] = {{"def", HXI_DEF_FUNCTION}, {"class", HXI_DEF_CLASS}, {NULL, 0}};
static const hxi_code_kw go_kws[] = {
    {"func", HXI_DEF_FUNCTION}, {"struct", HXI_DEF_STRUCT}, {"interface", HXI_DEF_INTERFACE}, {NULL, 0},
};
static const hxi_code_kw js_kws[] = {{"function", HXI_DEF_FUNCTION}, {"class", HXI_DEF_CLASS}, {NULL, 0}};
static const hxi_code_kw ts_kws[] = {
    {"function", HXI_DEF_FUNCTION}, {"class", HXI_DEF_CLASS}, {"interface", HXI_DEF_INTERFACE},
    {"enum", HXI_DEF_ENUM}, {"namespace", HXI_DEF_NAMESPACE}, {"module", HXI_DEF_NAMESPACE}, {NULL, 0},
};
static const hxi_code_kw rs_kws[] = {
    {"fn", HXI_DEF_FUNCTION}, {"struct", HXI_DEF_STRUCT}, {"enum", HXI_DEF_ENUM}, {"union", HXI_DEF_UNION},
    {"trait", HXI_DEF_TRAIT}, {"impl", HXI_DEF_IMPL}, {"mod", HXI_DEF_MODULE}, {NULL, 0},
};
static const hxi_code_kw java_kws[] = {
    {"class", HXI_DEF_CLASS}, {"interface", HXI_DEF_INTERFACE}, {"enum", HXI_DEF_ENUM}, {"record", HXI_DEF_RECORD},
    {NULL, 0},
};
static const hxi_code_kw sh_kws[] = {{"function", HXI_DEF_FUNCTION}, {NULL, 0}};

static const char *const js_stmt[] = {"function", "class", "const", "let", "var", "export", "async", "import",
                                      "interface", "enum", "type", "namespace", "declare", "abstract", "module", NULL};
static const char *const go_stmt[] = {"func", "type", "var", "const", "import", "package", NULL};

#define SLASH_C (HXI_LX_SLASH_COMMENT | HXI_LX_CHAR)
static const hxi_code_lang langs[] = {
    {.name = "c", .exts = c_exts, .lex = SLASH_C | HXI_LX_PREPROC, .kws = c_kws, .find = hxi_code_find_braces,
     .c_like = true, .paren_members = true, .typedef_name = true},
    {.name = "cpp", .exts = cpp_exts, .lex = SLASH_C | HXI_LX_PREPROC | HXI_LX_CPP_RAW, .kws = cpp_kws,
     .find = hxi_code_find_braces, .c_like = true, .paren_members = true, .typedef_name = true},
    {.name = "python", .exts = py_exts, .interpreters = py_interp,
     .lex = HXI_LX_HASH_COMMENT | HXI_LX_SQ_STRING | HXI_LX_TRIPLE | HXI_LX_PY_PREFIX, .kws = py_kws,
     .find = hxi_code_find_indent},
    {.name = "go", .exts = go_exts, .lex = SLASH_C | HXI_LX_BACKTICK_RAW, .kws = go_kws, .find = hxi_code_find_braces,
     .asi = true, .bodyless_fn = true, .stmt_words = go_stmt},
    {.name = "javascript", .exts = js_exts, .interpreters = js_interp,
     .lex = HXI_LX_SLASH_COMMENT | HXI_LX_SQ_STRING | HXI_LX_TEMPLATE | HXI_LX_REGEX, .kws = js_kws,
     .find = hxi_code_find_braces, .paren_members = true, .asi = true, .assign_fn = true, .stmt_words = js_stmt},
    {.name = "typescript", .exts = ts_exts, .lex = HXI_LX_SLASH_COMMENT | HXI_LX_SQ_STRING | HXI_LX_TEMPLATE | HXI_LX_REGEX,
     .kws = ts_kws, .find = hxi_code_find_braces, .paren_members = true, .asi = true, .assign_fn = true,
     .stmt_words = js_stmt},
    {.name = "rust", .exts = rs_exts, .lex = HXI_LX_SLASH_COMMENT | HXI_LX_NESTED_COMMENT | HXI_LX_RUST | HXI_LX_MULTILINE,
     .kws = rs_kws, .find = hxi_code_find_braces, .attrs_outside = true, .bodyless_struct = true},
    {.name = "java", .exts = java_exts, .lex = SLASH_C | HXI_LX_TRIPLE, .kws = java_kws, .find = hxi_code_find_braces,
     .paren_members = true},
    {.name = "shell", .exts = sh_exts, .interpreters = sh_interp, .lex = HXI_LX_HASH_COMMENT | HXI_LX_SHELL,
     .kws = sh_kws, .find = hxi_code_find_braces, .line_stmts = true},
};
#define N_LANGS (sizeof langs / sizeof *langs)

const hxi_code_lang *hxi_code_lang_at(size_t i)
{
    return i < N_LANGS ? &langs[i] : NULL;
}

/* === Choosing a row === */

/* The program a `#!` line runs (the word after `env` and its options), or NULL. */
static const char *shebang_program(const char *s, size_t n, size_t *len)
{
    if (n < 3 || s[0] != '#' || s[1] != '!')
        return NULL;
    const char *end = memchr(s, '\n', n < 256 ? n : 256);
    size_t e = end ? (size_t)(end - s) : (n < 256 ? n : 256), p = 2;
    for (int word = 0; word < 4; word++) {
        while (p < e && (s[p] == ' ' || s[p] == '\t'))
            p++;
        size_t w = p;
        while (p < e && s[p] != ' ' && s[p] != '\t' && s[p] != '\r')
            p++;
        if (p == w)
            return NULL;
        size_t b = p;
        while (b > w && s[b - 1] != '/')
            b--;
        if ((p - b == 3 && !memcmp(s + b, "env", 3)) || s[w] == '-')
            continue;
        *len = p - b;
        return s + b;
    }
    return NULL;
}

static const hxi_code_lang *by_interpreter(const char *s, size_t n)
{
    size_t len;
    const char *prog = shebang_program(s, n, &len);
    for (size_t i = 0; prog && i < N_LANGS; i++)
        for (const char *const *p = langs[i].interpreters; p && *p; p++) {
            size_t k = strlen(*p);   /* python3.11 is python3 */
            if (len >= k && !memcmp(prog, *p, k) && (len == k || prog[k] == '.' || (prog[k] >= '0' && prog[k] <= '9')))
                return &langs[i];
        }
    return NULL;
}

bool hxi_code_shebang(const uint8_t *raw, size_t n)
{
    return by_interpreter((const char *)raw, n) != NULL;
}

bool hxi_code_lang_declares(const char *lang)
{
    for (size_t i = 0; lang && i < N_LANGS; i++)
        if (!strcmp(langs[i].name, lang))
            return langs[i].c_like;
    return false;
}

const hxi_code_lang *hxi_code_lang_of(const char *name, const char *s, size_t n)
{
    const char *slash = name ? strrchr(name, '/') : NULL, *base = slash ? slash + 1 : name;
    const char *dot = base ? strrchr(base, '.') : NULL;
    for (size_t i = 0; dot && i < N_LANGS; i++)
        for (const char *const *e = langs[i].exts; *e; e++)
            if (!strcasecmp(dot + 1, *e))
                return &langs[i];
    return by_interpreter(s, n);
}
