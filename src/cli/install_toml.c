/* install_toml.c: the TOML form of `hyrax install` (Codex's config.toml): the [mcp_servers.hyrax]
 * table replaced, or appended, in the file's text with every other line left byte for byte. A line
 * scanner that knows TOML's strings, multi-line strings, arrays, inline tables and comments finds
 * the tables and keys; it checks what it reads (an unclosed string, array or header is refused
 * with its line and column) but is not a full TOML parser. Spec: TOML 1.0, README "Plug into an
 * AI client". */
#include "cli.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

#define TABLE "mcp_servers.hyrax"

/* The table: its header and the two keys hyrax writes, each string as a TOML basic string (the
 * JSON writer's escapes are TOML's too: \" \\ \b \t \n \f \r \uXXXX). */
void install_toml_table(FILE *f, const char *const *argv, size_t n)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    fputs("[" TABLE "]\ncommand = ", f);
    for (size_t i = 0; i < n; i++) {
        hxi_json_writer_reset(&w);
        hxi_json_write_cstr(&w, argv[i]);
        fprintf(f, "%s%s", i == 1 ? "\nargs = [" : i > 1 ? ", " : "", w.buf);
    }
    fputs(n > 1 ? "]\n" : "\nargs = []\n", f);
    hxi_json_writer_free(&w);
}

/* === The scanner === */

typedef struct {
    const char *text;
    size_t len;
    size_t i;          /* the next byte */
    char ml;           /* inside a multi-line string: '"' or '\''; else 0 */
    int depth;         /* arrays and inline tables open */
    size_t open_at;    /* where the open string, array or table began */
    const char *bad;   /* what is wrong, NULL while all is well */
} scan;

/* The end of the line at s->i (the '\n', or len). */
static size_t line_end(const scan *s)
{
    const char *nl = memchr(s->text + s->i, '\n', s->len - s->i);
    return nl ? (size_t)(nl - s->text) : s->len;
}

/* Reads a value's bytes up to the end of the line (a comment ends it early), following strings
 * and brackets; what is still open carries over to the next line. */
static void scan_value(scan *s)
{
    size_t end = line_end(s);
    const char *t = s->text;
    while (s->i < end && !s->bad) {
        char c = t[s->i];
        if (s->ml) {   /* to the closing triple quote; a basic one has escapes */
            if (c == '\\' && s->ml == '"')
                s->i++;
            else if (c == s->ml && s->i + 2 < s->len && t[s->i + 1] == c && t[s->i + 2] == c) {
                s->ml = 0;
                s->i += 2;
                while (s->i + 1 < end && t[s->i + 1] == c)   /* up to two quotes of content before it */
                    s->i++;
            }
            s->i++;
            continue;
        }
        if (c == '#')
            break;
        if (c == '"' || c == '\'') {
            s->open_at = s->i;
            if (s->i + 2 < end && t[s->i + 1] == c && t[s->i + 2] == c) {
                s->ml = c;
                s->i += 3;
                continue;
            }
            for (s->i++; s->i < end && t[s->i] != c; s->i++)
                if (c == '"' && t[s->i] == '\\')
                    s->i++;
            if (s->i >= end)
                s->bad = "a string that does not end on its line";
        } else if (c == '[' || c == '{') {
            if (!s->depth++)
                s->open_at = s->i;
        } else if ((c == ']' || c == '}') && --s->depth < 0) {
            s->open_at = s->i;
            s->bad = "a closing bracket that nothing opened";
        }
        s->i++;
    }
    s->i = end < s->len ? end + 1 : end;
}

/* A dotted key at s->i (bare or quoted parts, spaces around the dots) as its parts joined by '.'
 * into out, ending at `stop` (']' for a header, '=' for a key); false when it is not one. */
static bool read_key(scan *s, char stop, char *out, size_t cap)
{
    size_t o = 0, end = line_end(s);
    const char *t = s->text;
    for (;;) {
        while (s->i < end && (t[s->i] == ' ' || t[s->i] == '\t'))
            s->i++;
        if (s->i >= end)
            return false;
        char q = t[s->i];
        size_t from = s->i;
        if (q == '"' || q == '\'') {
            for (s->i++; s->i < end && t[s->i] != q; s->i++)
                if (q == '"' && t[s->i] == '\\')
                    s->i++;
            if (s->i >= end)
                return false;
            from++;
        } else {
            while (s->i < end && (strchr("_-", t[s->i]) || (t[s->i] >= '0' && t[s->i] <= '9') ||
                                  ((t[s->i] | 32) >= 'a' && (t[s->i] | 32) <= 'z')))
                s->i++;
            if (s->i == from)
                return false;
        }
        size_t n = s->i - from;
        if (o + n + 2 > cap)
            return false;
        memcpy(out + o, t + from, n);
        o += n;
        out[o] = 0;
        s->i += q == '"' || q == '\'';
        while (s->i < end && (t[s->i] == ' ' || t[s->i] == '\t'))
            s->i++;
        if (s->i < end && t[s->i] == stop)
            return true;
        if (s->i >= end || t[s->i] != '.')
            return false;
        out[o++] = '.';
        s->i++;
    }
}

/* Whether dotted key k is p or under p ("a.b" is under "a"). */
static bool under(const char *k, const char *p)
{
    size_t n = strlen(p);
    return !strncmp(k, p, n) && (!k[n] || k[n] == '.');
}

/* === The merge === */

int install_toml_merge(const char *path, const char *old, size_t len, const char *const *argv, size_t argc, char **out,
                       size_t *out_len)
{
    scan s = {.text = old ? old : "", .len = len};
    char table[256] = "", key[256], where[64];
    size_t mine = SIZE_MAX, mine_end = 0;   /* our table: its header line's start, and its section's end */
    bool in_mine = false, dropping = false;
    size_t *drop = NULL, n_drop = 0;        /* line spans [from, to) of command and args inside it */
    char other[520] = "";                   /* the hyrax server in another form: its key */
    size_t other_at = 0;
    while (s.i < s.len && !s.bad) {
        size_t start = s.i;
        if (s.ml || s.depth) {   /* a value that goes on */
            scan_value(&s);
            if (dropping)
                drop[2 * n_drop - 1] = s.i;
            continue;
        }
        dropping = false;
        while (s.i < s.len && (old[s.i] == ' ' || old[s.i] == '\t' || old[s.i] == '\r'))
            s.i++;
        if (s.i >= s.len || old[s.i] == '\n' || old[s.i] == '#') {
            s.i = line_end(&s) < s.len ? line_end(&s) + 1 : s.len;
            continue;
        }
        if (old[s.i] == '[') {
            bool array = s.i + 1 < s.len && old[++s.i] == '[';
            s.i += array;
            if (!read_key(&s, ']', table, sizeof table) || (array && (s.i + 1 >= s.len || old[s.i + 1] != ']'))) {
                s.open_at = start;
                s.bad = "a table header that does not close with ]";
                break;
            }
            s.i += 1 + array;
            if (in_mine)
                mine_end = start;
            in_mine = !array && !strcmp(table, TABLE);
            if (in_mine && mine != SIZE_MAX) {
                s.open_at = start;
                s.bad = "[" TABLE "] defined twice";
                break;
            }
            if (in_mine)
                mine = start;
            else if (array && !strcmp(table, TABLE) && !*other)
                snprintf(other, sizeof other, "[[" TABLE "]]"), other_at = start;
            scan_value(&s);   /* the comment after it, if any */
            continue;
        }
        size_t key_at = s.i;
        if (!read_key(&s, '=', key, sizeof key)) {
            s.open_at = key_at;
            s.bad = "a line that is neither a [table] nor key = value";
            break;
        }
        char full[520];
        snprintf(full, sizeof full, "%s%s%s", table, *table ? "." : "", key);
        if (in_mine && (under(key, "command") || under(key, "args"))) {
            size_t *grown = realloc(drop, (n_drop + 1) * 2 * sizeof *drop);
            if (!grown) {
                free(drop);
                fputs("hyrax install: out of memory\n", stderr);
                return 1;
            }
            drop = grown;
            drop[2 * n_drop] = start;
            n_drop++;
            dropping = true;
        } else if (!in_mine && !under(table, TABLE) && under(full, TABLE) && !*other) {
            snprintf(other, sizeof other, "%s", full), other_at = key_at;   /* mcp_servers.hyrax = {...} */
        }
        s.i++;
        scan_value(&s);
        if (dropping)
            drop[2 * n_drop - 1] = s.i;
    }
    if (!s.bad && (s.ml || s.depth))
        s.bad = s.ml ? "a multi-line string that does not end" : "an array or inline table that does not close";
    if (in_mine)
        mine_end = s.len;
    int rc = 0;
    *out = NULL;
    if (s.bad || *other) {
        install_position(s.text, s.len, s.bad ? s.open_at : other_at, where, sizeof where);
        if (s.bad)
            fprintf(stderr, "hyrax install: %s is not TOML hyrax can edit (%s: %s); nothing was written: fix it "
                            "and run this again\n", path, where, s.bad);
        else
            fprintf(stderr, "hyrax install: %s already defines the hyrax server as %s (%s); nothing was written: "
                            "remove it, or edit it by hand\n", path, other, where);
        rc = 1;
    } else {
        char *text = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&text, &n);
        if (f && mine != SIZE_MAX) {   /* before it, our table, the rest of its section, after it */
            fwrite(old, 1, mine, f);
            install_toml_table(f, argv, argc);
            size_t from = line_end(&(scan){.text = old, .len = len, .i = mine});
            from = from < len ? from + 1 : len;
            for (size_t d = 0; d <= n_drop; d++) {
                size_t to = d < n_drop ? drop[2 * d] : mine_end;
                fwrite(old + from, 1, to - from, f);
                from = d < n_drop ? drop[2 * d + 1] : to;
            }
            fwrite(old + mine_end, 1, len - mine_end, f);
        } else if (f) {   /* appended after a blank line */
            fwrite(old, 1, len, f);
            if (len && old[len - 1] != '\n')
                fputc('\n', f);
            if (len && (len < 2 || old[len - 1] != '\n' || old[len - 2] != '\n'))
                fputc('\n', f);
            install_toml_table(f, argv, argc);
        }
        if (!f || fclose(f)) {
            fputs("hyrax install: out of memory\n", stderr);
            rc = 1;
        } else if (n == len && !memcmp(text, old ? old : "", len)) {
            free(text);   /* already so: nothing changes */
        } else {
            *out = text;
            *out_len = n;
            text = NULL;
        }
        if (rc)
            free(text);
    }
    free(drop);
    return rc;
}
