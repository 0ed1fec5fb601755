/* code_lex.c: the lexer core shared by every language hyrax reads by definitions (code.h): skips
 * strings, comments and preprocessor lines by the language's HXI_LX_* flags and yields
 * identifiers, punctuation (one byte each) and string tokens with their lines. Knows no language
 * by name and no definitions (code_defs.c). Hostile input: every step advances, an unterminated
 * string or comment ends at the end of the text (or of its line for single-line strings), nesting
 * is a counter or a capped stack. */
#include "code.h"

#include <string.h>

static bool ident_byte(const hxi_lexer *lx, unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' || c >= 0x80)
        return true;
    return (lx->flags & HXI_LX_SHELL) && (c == '-' || c == '.' || c == ':' || c == '/' || c == '+' || c == '%' ||
                                         c == ',' || c == '@');
}

static void mark(hxi_lexer *lx, uint32_t first, uint32_t last, uint8_t kind)
{
    for (uint32_t l = first; l <= last && l < lx->n_marks; l++)
        lx->marks[l] |= kind;
}

/* Moves past one byte, counting lines. */
static void step(hxi_lexer *lx)
{
    if (lx->s[lx->pos++] == '\n') {
        lx->line++;
        lx->line_start = lx->pos;
        lx->bol = true;
    }
}

static bool at(const hxi_lexer *lx, const char *w)
{
    size_t k = strlen(w);
    return lx->n - lx->pos >= k && !memcmp(lx->s + lx->pos, w, k);
}

/* Skips to the end of the line (not past its newline). */
static void to_eol(hxi_lexer *lx)
{
    const char *nl = memchr(lx->s + lx->pos, '\n', lx->n - lx->pos);
    lx->pos = nl ? (uint32_t)(nl - lx->s) : lx->n;
}

/* A block comment after its opener: to the matching closer (nested ones counted when the
 * language nests them). */
static void block_comment(hxi_lexer *lx)
{
    uint32_t depth = 1;
    while (lx->pos < lx->n && depth) {
        if (at(lx, "*/")) {
            depth--;
            lx->pos += 2;
        } else if ((lx->flags & HXI_LX_NESTED_COMMENT) && at(lx, "/*")) {
            depth++;
            lx->pos += 2;
        } else {
            step(lx);
        }
    }
}

/* A quoted string after its opening quote q: backslash escapes (unless raw); a newline ends a
 * single-line one. */
static void quoted(hxi_lexer *lx, char q, bool raw, bool multiline)
{
    while (lx->pos < lx->n) {
        char c = lx->s[lx->pos];
        if (c == q) {
            lx->pos++;
            return;
        }
        if (c == '\n' && !multiline)
            return;
        if (c == '\\' && !raw && lx->pos + 1 < lx->n)
            step(lx);
        step(lx);
    }
}

/* After an opening run of three quotes q: to the closing run. */
static void triple(hxi_lexer *lx, char q)
{
    while (lx->pos < lx->n) {
        if (lx->s[lx->pos] == q && lx->n - lx->pos >= 3 && lx->s[lx->pos + 1] == q && lx->s[lx->pos + 2] == q) {
            lx->pos += 3;
            return;
        }
        if (lx->s[lx->pos] == '\\' && lx->pos + 1 < lx->n)
            step(lx);
        step(lx);
    }
}

/* A template literal's text from the current position: to the closing backtick, or into a ${
 * (pushed, so the matching '}' resumes the text). */
static void template_text(hxi_lexer *lx)
{
    while (lx->pos < lx->n) {
        char c = lx->s[lx->pos];
        if (c == '`') {
            lx->pos++;
            return;
        }
        if (c == '$' && lx->pos + 1 < lx->n && lx->s[lx->pos + 1] == '{' && lx->n_tmpl < HXI_CODE_MAX_TEMPLATE) {
            lx->pos += 2;
            lx->tmpl[lx->n_tmpl++] = lx->braces++;
            return;
        }
        if (c == '\\' && lx->pos + 1 < lx->n)
            step(lx);
        step(lx);
    }
}

/* Rust r#"..."# after the 'r' (at the first '#' or '"'); false when it is not one. */
static bool rust_raw(hxi_lexer *lx)
{
    uint32_t p = lx->pos, hashes = 0;
    while (p < lx->n && lx->s[p] == '#' && hashes < 256) {
        p++;
        hashes++;
    }
    if (p >= lx->n || lx->s[p] != '"')
        return false;
    lx->pos = p + 1;
    while (lx->pos < lx->n) {
        if (lx->s[lx->pos] == '"') {
            uint32_t k = 0;
            while (k < hashes && lx->pos + 1 + k < lx->n && lx->s[lx->pos + 1 + k] == '#')
                k++;
            if (k == hashes) {
                lx->pos += 1 + hashes;
                return true;
            }
        }
        step(lx);
    }
    return true;
}

/* C++ R"delim(...)delim" at the '"'; false when it is not one. */
static bool cpp_raw(hxi_lexer *lx)
{
    uint32_t p = lx->pos + 1, d = p;
    while (p < lx->n && p - d < 16 && lx->s[p] != '(' && lx->s[p] != '"' && lx->s[p] != '\\' && lx->s[p] != ' ' &&
           lx->s[p] != ')' && lx->s[p] != '\n')
        p++;
    if (p >= lx->n || lx->s[p] != '(')
        return false;
    uint32_t dl = p - d;
    lx->pos = p + 1;
    while (lx->pos < lx->n) {
        if (lx->s[lx->pos] == ')' && lx->n - lx->pos > dl + 1 && !memcmp(lx->s + lx->pos + 1, lx->s + d, dl) &&
            lx->s[lx->pos + 1 + dl] == '"') {
            lx->pos += dl + 2;
            return true;
        }
        step(lx);
    }
    return true;
}

/* Shell: `<<WORD`, `<<-WORD`, `<<'WORD'` at the first '<': remembers the delimiter. */
static void heredoc_start(hxi_lexer *lx)
{
    uint32_t p = lx->pos + 2;
    bool tabs = p < lx->n && lx->s[p] == '-';
    p += tabs;
    while (p < lx->n && (lx->s[p] == ' ' || lx->s[p] == '\t'))
        p++;
    char q = p < lx->n && (lx->s[p] == '\'' || lx->s[p] == '"') ? lx->s[p] : 0;
    p += q != 0;
    uint32_t w = p;
    while (p < lx->n && p - w < 64 && (ident_byte(lx, (unsigned char)lx->s[p])))
        p++;
    if (p == w)
        return;
    lx->heredoc = w;
    lx->heredoc_len = p - w;
    lx->heredoc_tabs = tabs;
    lx->pos = p + (q && p < lx->n && lx->s[p] == q);
}

/* At a newline with a pending here-document: skips its lines through the delimiter line. */
static void heredoc_body(hxi_lexer *lx)
{
    uint32_t first = lx->line;
    while (lx->pos < lx->n) {
        uint32_t p = lx->pos;
        if (lx->heredoc_tabs)
            while (p < lx->n && lx->s[p] == '\t')
                p++;
        const char *nl = memchr(lx->s + p, '\n', lx->n - p);
        uint32_t e = nl ? (uint32_t)(nl - lx->s) : lx->n;
        bool end = e - p == lx->heredoc_len && !memcmp(lx->s + p, lx->s + lx->heredoc, lx->heredoc_len);
        lx->pos = e;
        if (nl && !end)
            step(lx);
        if (end || !nl)
            break;
    }
    mark(lx, first, lx->line, HXI_LINE_CODE);
    lx->heredoc_len = 0;
}

static bool regex_allowed(const hxi_lexer *lx)
{
    return (lx->flags & HXI_LX_REGEX) && !lx->operand;
}

/* A regular expression literal after its '/': to the closing '/' outside a class, not past the line. */
static void regex(hxi_lexer *lx)
{
    bool cls = false;
    while (lx->pos < lx->n && lx->s[lx->pos] != '\n') {
        char c = lx->s[lx->pos++];
        if (c == '\\' && lx->pos < lx->n && lx->s[lx->pos] != '\n')
            lx->pos++;
        else if (c == '[')
            cls = true;
        else if (c == ']')
            cls = false;
        else if (c == '/' && !cls)
            break;
    }
    while (lx->pos < lx->n && ident_byte(lx, (unsigned char)lx->s[lx->pos]))
        lx->pos++;
}

void hxi_lex_init(hxi_lexer *lx, const char *s, size_t n, unsigned flags, uint8_t *marks, size_t n_marks)
{
    memset(lx, 0, sizeof *lx);
    lx->s = s;
    lx->n = n >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)n;
    lx->line = 1;
    lx->flags = flags;
    lx->marks = marks;
    lx->n_marks = marks ? (uint32_t)(n_marks < UINT32_MAX ? n_marks : UINT32_MAX) : 0;
    lx->bol = true;
}

/* Words after which a '/' starts a regular expression, though they are identifiers. */
static bool keyword_before_operand(const char *s, size_t n)
{
    static const char *const words[] = {"return", "typeof", "case", "do", "else", "in", "of", "new",
                                        "delete", "void", "throw", "yield", "await", "instanceof", NULL};
    for (const char *const *w = words; *w; w++)
        if (strlen(*w) == n && !memcmp(*w, s, n))
            return true;
    return false;
}

/* Skips white space, comments and pending here-documents; true when a token starts at pos. */
static bool skip_trivia(hxi_lexer *lx)
{
    unsigned f = lx->flags;
    while (lx->pos < lx->n) {
        char c = lx->s[lx->pos];
        uint32_t first = lx->line;
        if (c == '\n' && lx->heredoc_len) {
            step(lx);
            heredoc_body(lx);
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n') {
            step(lx);
        } else if (c == '\\' && lx->pos + 1 < lx->n && (lx->s[lx->pos + 1] == '\n' || lx->s[lx->pos + 1] == '\r')) {
            lx->pos++;   /* a continued line: not a new line for statements */
            while (lx->pos < lx->n && lx->s[lx->pos] != '\n')
                lx->pos++;
            if (lx->pos < lx->n) {
                bool bol = lx->bol;
                step(lx);
                lx->bol = bol;
            }
        } else if ((f & HXI_LX_SLASH_COMMENT) && at(lx, "//")) {
            to_eol(lx);
            mark(lx, first, first, HXI_LINE_COMMENT);
        } else if ((f & HXI_LX_SLASH_COMMENT) && at(lx, "/*")) {
            lx->pos += 2;
            block_comment(lx);
            mark(lx, first, lx->line, HXI_LINE_COMMENT);
        } else if (c == '#' && (f & HXI_LX_HASH_COMMENT) &&
                   (!(f & HXI_LX_SHELL) || lx->pos == 0 || (lx->s[lx->pos - 1] && strchr(" \t\n;|&(){", lx->s[lx->pos - 1])))) {
            to_eol(lx);
            mark(lx, first, first, HXI_LINE_COMMENT);
        } else {
            return true;
        }
    }
    return false;
}

bool hxi_lex_next(hxi_lexer *lx, hxi_tok *t)
{
    unsigned f = lx->flags;
    if (!skip_trivia(lx))
        return false;
    uint32_t start = lx->pos, line = lx->line;
    t->start = start;
    t->line = line;
    t->bol = lx->bol;
    t->col = 0;
    if (lx->bol)
        for (uint32_t i = lx->line_start; i < start; i++)
            t->col = lx->s[i] == '\t' ? (t->col / 8 + 1) * 8 : t->col + 1;
    lx->bol = false;
    char c = lx->s[lx->pos];
    t->kind = HXI_TK_STRING;
    bool operand = true;
    if ((f & HXI_LX_PREPROC) && c == '#' && t->bol) {
        while (lx->pos < lx->n && lx->s[lx->pos] != '\n') {   /* to the end of the (continued) line */
            if (at(lx, "/*")) {
                lx->pos += 2;
                block_comment(lx);
            } else if (lx->s[lx->pos] == '\\' && lx->pos + 1 < lx->n && lx->s[lx->pos + 1] == '\n') {
                lx->pos++;
                step(lx);
            } else {
                lx->pos++;
            }
        }
        t->kind = HXI_TK_PREPROC;
    } else if (c == '"' || (c == '\'' && (f & (HXI_LX_SQ_STRING | HXI_LX_CHAR)) && !(f & HXI_LX_RUST))) {
        bool shell = f & HXI_LX_SHELL;
        if ((f & HXI_LX_TRIPLE) && lx->n - lx->pos >= 3 && lx->s[lx->pos + 1] == c && lx->s[lx->pos + 2] == c) {
            lx->pos += 3;
            triple(lx, c);
        } else {
            lx->pos++;
            quoted(lx, c, shell && c == '\'', shell || (f & HXI_LX_MULTILINE));
        }
    } else if (c == '\'' && (f & HXI_LX_RUST)) {
        /* a char literal ('x', '\n', b'x') or a lifetime ('a) */
        uint32_t p = lx->pos + 1, cp = p;
        if (p < lx->n && (unsigned char)lx->s[p] >= 0x80)
            while (cp + 1 < lx->n && ((unsigned char)lx->s[cp + 1] & 0xC0) == 0x80)
                cp++;
        if (p < lx->n && (lx->s[p] == '\\' || (cp + 1 < lx->n && lx->s[cp + 1] == '\''))) {
            lx->pos++;
            quoted(lx, '\'', false, false);
        } else {
            lx->pos++;
            t->kind = HXI_TK_PUNCT;
        }
    } else if (c == '`' && (f & HXI_LX_BACKTICK_RAW)) {
        lx->pos++;
        quoted(lx, '`', true, true);
    } else if (c == '`' && (f & HXI_LX_TEMPLATE)) {
        lx->pos++;
        template_text(lx);
    } else if (c == '`' && (f & HXI_LX_SHELL)) {
        lx->pos++;
        quoted(lx, '`', false, true);
    } else if (c == '$' && (f & HXI_LX_SHELL) && lx->pos + 1 < lx->n && lx->s[lx->pos + 1] == '\'') {
        lx->pos += 2;
        quoted(lx, '\'', false, true);
    } else if (c == '/' && regex_allowed(lx) && !at(lx, "//") && !at(lx, "/*")) {
        lx->pos++;
        regex(lx);
    } else if (c == '<' && (f & HXI_LX_SHELL) && at(lx, "<<") && !at(lx, "<<<")) {
        heredoc_start(lx);
        if (lx->pos == start)
            lx->pos++;
        t->kind = HXI_TK_PUNCT;
        operand = false;
    } else if (ident_byte(lx, (unsigned char)c)) {
        bool digit = c >= '0' && c <= '9';
        while (lx->pos < lx->n && (ident_byte(lx, (unsigned char)lx->s[lx->pos]) ||
                                   (digit && (f & HXI_LX_CHAR) && lx->s[lx->pos] == '\'' && lx->pos + 1 < lx->n &&
                                    ident_byte(lx, (unsigned char)lx->s[lx->pos + 1]))))
            lx->pos++;
        uint32_t len = lx->pos - start;
        char q = lx->pos < lx->n ? lx->s[lx->pos] : 0;
        bool prefix = len <= 2;
        for (uint32_t i = start; i < lx->pos && prefix; i++)
            prefix = strchr("rRbBuUfF", lx->s[i]) != NULL;
        if ((f & HXI_LX_PY_PREFIX) && prefix && (q == '"' || q == '\'')) {
            lx->pos++;
            if (lx->n - lx->pos >= 2 && lx->s[lx->pos] == q && lx->s[lx->pos + 1] == q) {
                lx->pos += 2;
                triple(lx, q);
            } else {
                quoted(lx, q, false, false);
            }
        } else if ((f & HXI_LX_RUST) && (q == '"' || q == '#') &&
                   ((len == 1 && lx->s[start] == 'r') || (len == 2 && !memcmp(lx->s + start, "br", 2))) && rust_raw(lx)) {
        } else if ((f & HXI_LX_RUST) && len == 1 && lx->s[start] == 'b' && (q == '"' || q == '\'')) {
            lx->pos++;
            quoted(lx, q, false, q == '"');
        } else if ((f & HXI_LX_CPP_RAW) && q == '"' && lx->s[lx->pos - 1] == 'R' && len <= 3 && cpp_raw(lx)) {
        } else {
            t->kind = HXI_TK_IDENT;
            operand = !keyword_before_operand(lx->s + start, len);
        }
    } else {
        lx->pos++;
        t->kind = HXI_TK_PUNCT;
        operand = c == ')' || c == ']' || c == '}';
        if (c == '{')
            lx->braces++;
        if (c == '}' && lx->n_tmpl && lx->braces && --lx->braces == lx->tmpl[lx->n_tmpl - 1]) {
            lx->n_tmpl--;             /* the end of a ${ }: the template's text goes on */
            template_text(lx);
            t->kind = HXI_TK_STRING;
            operand = true;
        } else if (c == '}' && !lx->n_tmpl && lx->braces) {
            lx->braces--;
        }
    }
    lx->operand = operand;
    t->end = lx->pos;
    t->last_line = lx->line;
    if (lx->marks)
        mark(lx, line, lx->line, HXI_LINE_CODE);
    return true;
}
