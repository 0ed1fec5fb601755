/* code.h: reading source code by its definitions, for the code row of the table of document
 * types (doctype_code.c). Three parts, one file each:
 *   code_lex.c   the lexer core: strings, comments, preprocessor lines and nesting of every
 *                language hyrax reads, driven by a language's HXI_LX_* flags; it yields
 *                identifiers, punctuation and strings with their lines, and marks each source line
 *                as code or comment (for doc comments)
 *   code_lang.c  the table of languages: name, extensions, shebang interpreters, lexer flags,
 *                definition keywords and rules (one row per language)
 *   code_defs.c  the two definition finders over the lexer's tokens: brace-delimited languages
 *                (C, C++, Go, JavaScript/TypeScript, Rust, Java, shell) and indentation (Python)
 * Every loop is bounded by the input: each token advances, nesting is capped (HXI_CODE_MAX_*),
 * an unterminated string or comment ends at the end of the input (or of its line where the
 * language's strings cannot span lines). `hyrax help formats` ("Source code") says what
 * becomes a chunk. */
#ifndef HX_CODE_H
#define HX_CODE_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HXI_CODE_MAX_DEPTH 4      /* definitions nested in definitions (class > class > method) */
#define HXI_CODE_MAX_SCOPES 256   /* braces tracked one by one; deeper ones are only counted */
#define HXI_CODE_MAX_TEMPLATE 16  /* JavaScript template literals nested through ${ } */

/* === Lexer === */

enum {                            /* a language's lexical syntax (hxi_code_lang.lex) */
    HXI_LX_HASH_COMMENT = 1 << 0,   /* '#' to the end of the line (shell: at a word's start) */
    HXI_LX_SLASH_COMMENT = 1 << 1,  /* // line and block comments */
    HXI_LX_NESTED_COMMENT = 1 << 2, /* block comments nest (Rust) */
    HXI_LX_PREPROC = 1 << 3,        /* '#' first on a line: a preprocessor line (C, C++) */
    HXI_LX_CHAR = 1 << 4,           /* '...' is a character literal; ' inside a number separates digits */
    HXI_LX_SQ_STRING = 1 << 5,      /* '...' is a string */
    HXI_LX_TRIPLE = 1 << 6,         /* """...""" (and ''' in Python) */
    HXI_LX_BACKTICK_RAW = 1 << 7,   /* `...` raw, multi-line (Go) */
    HXI_LX_TEMPLATE = 1 << 8,       /* `...${ expr }...` (JavaScript) */
    HXI_LX_RUST = 1 << 9,           /* r#"..."#, b'x', 'lifetimes */
    HXI_LX_CPP_RAW = 1 << 10,       /* R"delim(...)delim" */
    HXI_LX_PY_PREFIX = 1 << 11,     /* r"", b"", f"", rb"" ... */
    HXI_LX_SHELL = 1 << 12,         /* words with - . : /, raw '...', $'...', `...`, here-documents */
    HXI_LX_REGEX = 1 << 13,         /* /regex/ where an operand may stand (JavaScript) */
    HXI_LX_MULTILINE = 1 << 14,     /* "..." may span lines (Rust, shell) */
};

typedef enum { HXI_TK_IDENT, HXI_TK_PUNCT, HXI_TK_STRING, HXI_TK_PREPROC } hxi_tok_kind;

typedef struct {
    uint32_t start, end;          /* byte range in the text */
    uint32_t line, last_line;     /* 1-based lines of its first and last byte */
    uint32_t col;                 /* its column when it is the first on its line (tabs to 8) */
    hxi_tok_kind kind;
    bool bol;                     /* first token on its line */
} hxi_tok;

enum { HXI_LINE_CODE = 1, HXI_LINE_COMMENT = 2 };

typedef struct {
    const char *s;
    uint32_t n, pos, line;
    uint32_t line_start;          /* byte offset where the current line starts */
    unsigned flags;
    uint8_t *marks;               /* borrowed, one per line (index = line), HXI_LINE_* ORed; may be NULL */
    uint32_t n_marks;
    bool bol;                     /* no token yet on the current line */
    bool operand;                 /* the last token ends an operand (a '/' after it divides) */
    uint32_t braces;              /* '{' minus '}' seen (for template literals) */
    uint32_t tmpl[HXI_CODE_MAX_TEMPLATE];   /* braces at each open ${ */
    int n_tmpl;
    uint32_t heredoc, heredoc_len; /* a pending here-document's delimiter (shell), skipped at the line's end */
    bool heredoc_tabs;
} hxi_lexer;

/* Starts lexing s[0..n) (n < UINT32_MAX). marks (n_marks entries, borrowed) receives line kinds. */
void hxi_lex_init(hxi_lexer *lx, const char *s, size_t n, unsigned flags, uint8_t *marks, size_t n_marks);
/* The next token; false at the end of the text. */
bool hxi_lex_next(hxi_lexer *lx, hxi_tok *t);

/* === Definitions === */

typedef enum {
    HXI_DEF_NONE, HXI_DEF_FUNCTION, HXI_DEF_METHOD, HXI_DEF_CLASS, HXI_DEF_STRUCT, HXI_DEF_UNION,
    HXI_DEF_ENUM, HXI_DEF_INTERFACE, HXI_DEF_TRAIT, HXI_DEF_IMPL, HXI_DEF_MODULE, HXI_DEF_TYPE,
    HXI_DEF_RECORD, HXI_DEF_NAMESPACE, /* a namespace is transparent: what it holds is top-level */
    HXI_DEF_DECLARATION,           /* C/C++: a function's prototype without its body (`int f(void);`) */
} hxi_def_kind;

/* The metadata word of a kind ("function", "class", ...). */
const char *hxi_def_kind_name(hxi_def_kind k);

typedef struct {
    uint32_t name, name_len;      /* the name's byte range in the text */
    uint32_t owner, owner_len;    /* the type it is defined on outside its body (a Go method's
                                     receiver, C++ Type::name); owner_len 0: none */
    uint32_t head_line;           /* first line of its header (attributes and decorators included) */
    uint32_t first_line;          /* first line of the definition (what tree-sitter's node spans) */
    uint32_t last_line;
    int32_t parent;               /* index of the definition it is nested in, -1 when top-level */
    uint8_t depth;                /* 1 for top-level */
    hxi_def_kind kind;
} hxi_code_def;

typedef struct {
    hxi_code_def *v;              /* owned, in order of their first lines (parents before children) */
    size_t n, cap;
    uint32_t doc, doc_len;        /* the module docstring's contents (Python); doc_len 0: none */
} hxi_code_defs;

/* === Languages === */

typedef struct {
    const char *word;
    hxi_def_kind kind;
} hxi_code_kw;

struct hxi_code_lang;
typedef int (*hxi_code_find_fn)(const struct hxi_code_lang *l, const char *s, size_t n, uint8_t *marks,
                                size_t n_marks, hxi_code_defs *out, hx_error *err);

typedef struct hxi_code_lang {
    const char *name;             /* the `lang` metadata value */
    const char *const *exts;      /* extensions (lowercase, no dot), NULL-terminated */
    const char *const *interpreters;   /* shebang program names, NULL-terminated; may be NULL */
    unsigned lex;                 /* HXI_LX_* */
    const hxi_code_kw *kws;       /* definition keywords, ended by {NULL} */
    hxi_code_find_fn find;        /* NULL: no definitions (chunks at blank lines) */
    bool c_like;                  /* `type name(args) {` is a function at the top level */
    bool paren_members;           /* `name(args) {` in a class body is a method */
    bool asi;                     /* a line starting with a statement keyword starts a statement */
    bool assign_fn;               /* `const name = (...) => {` / `= function` define name */
    bool typedef_name;            /* `typedef struct {...} name;` names the struct after its body */
    bool attrs_outside;           /* `#[attr]` lines precede a definition but are not in its span */
    bool bodyless_struct;         /* `struct Name;` and `struct Name(T);` are definitions */
    bool bodyless_fn;             /* `func name(args) T` without a body is a definition (Go) */
    bool line_stmts;              /* every line starts a statement; `name() {` is a function (shell) */
    const char *const *stmt_words;   /* with asi: words that start a statement */
} hxi_code_lang;

/* The language of a file: by its name's extension, else a `#!` line's interpreter; NULL when
 * neither is known. name may be NULL. */
const hxi_code_lang *hxi_code_lang_of(const char *name, const char *s, size_t n);
/* Whether raw[0..n) starts with a `#!` line naming an interpreter of the table. */
bool hxi_code_shebang(const uint8_t *raw, size_t n);
/* Whether a document of language `lang` (a row's name, the `lang` metadata) can hold what a
 * declaration (HXI_DEF_DECLARATION) stands for: the C family, whose headers declare what its other
 * files define. */
bool hxi_code_lang_declares(const char *lang);
/* The table, for tests: the i-th language or NULL. */
const hxi_code_lang *hxi_code_lang_at(size_t i);

/* The finders a row names (code_defs.c). */
int hxi_code_find_braces(const hxi_code_lang *l, const char *s, size_t n, uint8_t *marks, size_t n_marks,
                         hxi_code_defs *out, hx_error *err);
int hxi_code_find_indent(const hxi_code_lang *l, const char *s, size_t n, uint8_t *marks, size_t n_marks,
                         hxi_code_defs *out, hx_error *err);

/* Definitions of s[0..n) in language l (marks as for the lexer: n_marks >= lines + 2). out is
 * owned by the caller: free out->v. */
int hxi_code_definitions(const hxi_code_lang *l, const char *s, size_t n, uint8_t *marks, size_t n_marks,
                         hxi_code_defs *out, hx_error *err);

#endif
