/* options.c: the command line's one option table -- every option declared once, with the
 * commands that take it -- and what is made from it: the parser, `hyrax CMD --help`, the message
 * for an unknown option, and the option values the library parses (--precision, --tenant). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* === Options: one table for every command === */

#define WHOLE(a, b) .lo = (a), .hi = (b)

static const char *const sync_tiers[] = {HX_TIER_USER, NULL};   /* sync --to: the tiers above a project */
static const char *const color_names[] = {"auto", "always", "never", NULL};

static const cli_opt options[] = {
    {"--help", 'h', NULL, CMD_ALL, .help = "print this help"},
    {"--db", 0, "FILE", CMD_DB,
     .help = "index file (default $" HX_DB_ENV ", else " DEFAULT_DB " in the current folder\nor the nearest folder above it that has one)"},
    {"--model", 0, "NAME|FILE", CMD_MODEL,
     .help = "model by name (minilm, mpnet: 'hyrax models') or weights file (default\n$HYRAX_WEIGHTS, else weights/" HX_WEIGHTS_FILE " beside the executable\nor one folder above it); an index must be searched with the model it was built with"},
    {"--threads", 0, "N", CMD_EMBED | CMD_INDEX | CMD_SERVE | CMD_SYNC, .help = "embedding threads (default 0 = one per core)", WHOLE(0, 256)},
    {"--precision", 0, "P", CMD_EMBED,
     .help = "fp32 (default: sentence-transformers' vectors) or int8 (faster: 2.3x with\nAVX512-VNNI, "
             "1.3-1.4x on AVX2 alone, mpnet's finer int8 about 1.8x; cosine\n>= 0.995 to fp32's)"},
    {"--precision", 0, "P", CMD_INDEX,
     .help = "how a new index embeds: fp32 (default, sentence-transformers' vectors)\n"
             "or int8 (indexes 2.4x as fast with AVX512-VNNI, 1.3-1.4x on AVX2 alone;\n"
             "cosine >= 0.995 to fp32's). The index records it and search embeds\n"
             "queries the same way; an existing index keeps its own (changing it needs\na new index file)"},
    {"--reindex", 0, NULL, CMD_INDEX, .help = "re-chunk and re-embed every file under PATH"},
    {"--exclude", 0, "GLOB", CMD_INDEX,
     .help = "skip root-relative paths matching GLOB (repeatable; ** spans folders;\nat most 1,024 bytes and 64 '*')",
     .repeat = true},
    {"--max-size", 0, "BYTES", CMD_INDEX, .help = "reject files larger than this (default 16 MiB)", WHOLE(1, 1L << 40)},
    {"--folder-meta", 0, "NAME", CMD_INDEX,
     .help = "the other documents of a folder inherit the metadata of its file NAME\n(repeatable, first wins; own keys win "
     "over inherited ones). The index\nkeeps the list; a new one takes kep.yaml, README.md; '' turns it off",
     .repeat = true},
    {"--compact", 0, NULL, CMD_INDEX, .help = "rewrite the index into one segment afterwards"},
    {"--commit-every", 0, "CHUNKS", CMD_INDEX,
     .help = "commit after about CHUNKS embedded chunks, at a file boundary\n(default 8192): Ctrl-C keeps what was committed",
     WHOLE(1, 1 << 30)},
    {"--progress-every", 0, "SECONDS", CMD_INDEX | CMD_SYNC,
     .help = "when stderr is not a terminal: a progress line (chunks embedded)\nevery SECONDS (default 5; 0 = after every batch)",
     WHOLE(0, 86400)},
    {"--mode", 0, "M", CMD_SEARCH, .help = "hybrid (default: vector and keyword fused), vector (English only),\nor keyword (any language)", .choices = hx_mode_names},
    {"--top-k", 'k', "N", CMD_SEARCH, .help = "results to print (default 10, at most 1000)", WHOLE(1, 1000)},
    {"--group", 0, "G", CMD_SEARCH,
     .help = "document (default): one result per document, its best chunk, with its\nother matching chunks as `more`, and k "
     "counts documents; chunk: every\nmatching chunk on its own (the same document may come several times)",
     .choices = hx_group_names},
    {"--filter", 0, "KEY=VALUE", CMD_SEARCH,
     .help = "a metadata value (numbers compare as numbers); KEY=A,B any of them;\nKEY>=X, KEY>X, KEY<=X, KEY<X, KEY=X..Y a "
     "number or ISO-8601 date range\n(a date-only upper bound takes its whole day); repeatable (AND). Keys:\nmetadata "
     "(front matter, YAML, the folder's kep.yaml and README front\nmatter; _ and - alike; sig_name = owning-sig, kep_id = "
     "kep-number;\nitem_type = directive, script or knowledge for Kiwi's items) or\npath=GLOB (** spans folders), type, ext, "
     "dir, folder, indexed_at, mtime",
     .repeat = true},
    {"--min-score", 0, "X", CMD_SEARCH,
     .help = "drop results whose relevance (0..1 in every mode: the estimated\nprobability that the result is "
     "relevant; the score in keyword and vector\nmode) is below X (default " HX_STRINGIFY(HX_MIN_RELEVANCE) "; 0 keeps every candidate)"},
    {"--recency", 0, "KEY:DAYS", CMD_SEARCH,
     .help = "newer first: multiply each result's ranking by 0.5^(age / DAYS), the age\nfrom the ISO-8601 date in metadata "
     "KEY, or KEY mtime for the file's\n(a document without the key ages from its mtime)"},
    {"--fusion", 0, "F", CMD_SEARCH,
     .help = "how hybrid mode ranks: rrf (default: reciprocal rank fusion, k = 60, of\nthe rankings keyword and vector mode give; "
     "score is the fused score,\nrelevance beside it), relevance (score = relevance) or weighted (min-max\nnormalised scores); "
     "results are always in the order of the score they show", .choices = hx_fusion_names},
    {"--fusion-weights", 0, "V,T", CMD_SEARCH,
     .help = "weights of the vector and keyword sides, for every fusion (0.5,0.5);\neach finite and >= 0, not both 0"},
    {"--ef", 0, "N", CMD_SEARCH, .help = "HNSW search breadth (default 64)", WHOLE(1, 100000)},
    {"--rank-window", 0, "N", CMD_SEARCH,
     .help = "chunks each side (keyword, vector) ranks before fusion, grouping and the\ncut to -k (default "
     HX_STRINGIFY(HX_RANK_WINDOW) "; a larger -k widens it): any -k up to it gives the\nsame first results with the same scores",
     WHOLE(1, HX_RANK_WINDOW_MAX)},
    {"--as-of", 0, "TIME", CMD_SEARCH,
     .help = "search the index as it was at TIME: ISO-8601 (2026-01-31T12:00:00Z) or\nunix seconds; the commits kept are "
     "listed by 'hyrax baselines'"},
    {"--baseline", 0, "NAME", CMD_SEARCH,
     .help = "search the newest commit named NAME ('hyrax baseline NAME'; the name\npublished is what agents' read_context "
     "{selector: published} reads)"},
    {"--to", 0, "TIER", CMD_SYNC, .help = "the tier to copy to: user (required)", .choices = sync_tiers},
    {"--source", 0, "S", CMD_SEARCH,
     .help = "the tiers to search: all (default: the project index, the user index\nwhen it exists, the registry "
     "when one is named), project, user ('hyrax\nhelp tiers') or registry alone ('hyrax help registry')", .choices = hx_search_source_names},
    {"--json", 0, NULL, CMD_SEARCH,
     .help = "print one JSON object (query, mode, group, results, total_results,\nsearch_time_ms); a result's fields and "
     "its citation are those MCP's\nsearch answers with"},
    {"--json", 0, NULL, CMD_STATS, .help = "print one JSON object"},
    {"--tenant", 0, "T", CMD_READER | CMD_PUBLISH,
     .help = "read as tenant T ('hyrax help tenants'): public documents,\nT's tenant documents and, with "
     "--user, U's private ones of T; without\nit every document is read (the local user of a local index). In the\n"
     "registry: act as tenant T, a PostgreSQL role the login may SET ROLE to"},
    {"--user", 0, "U", CMD_READER | CMD_PUBLISH,
     .help = "the reader's user within --tenant T; in the registry a PostgreSQL role,\na member of T's, the login may SET ROLE to"},
    {"--json", 0, NULL, CMD_AUDIT, .help = "print one JSON object (entries: time, path, sha256, rule, reason; count)"},
    {"--limit", 0, "N", CMD_AUDIT, .help = "the newest N entries (default: all kept)", WHOLE(1, HX_AUDIT_MAX)},
    {"--since", 0, "TIME", CMD_AUDIT, .help = "entries at or after TIME: ISO-8601 (2026-01-31T12:00:00Z) or unix seconds"},
    {"--path", 0, "GLOB", CMD_AUDIT, .help = "entries of documents whose root-relative path matches GLOB"},
    {"--man", 0, NULL, CMD_HELP,
     .help = "print the topic as a man page (roff): hyrax(1) without TOPIC, else\nhyrax-TOPIC(1); 'man -l -' reads it"},
    {"--color", 0, "WHEN", CMD_SEARCH | CMD_LS | CMD_SHOW | CMD_HELP,
     .help = "auto (default: colour, bold matches and wrapping on a terminal unless\n$NO_COLOR is set), always or never",
     .choices = color_names},
    {"--long", 'l', NULL, CMD_LS, .help = "one line per document: chunks, size, indexed time, path, title"},
    {"--text", 0, NULL, CMD_SHOW, .help = "print the text of every chunk too"},
    {"--root", 0, "DIR", CMD_SERVE, .help = "the indexed folder: without --db or $HYRAX_DB the index is DIR/.hyrax/index.hyx "
                                           "(or the nearest above DIR), and a new index records DIR as its root "
                                           "(default: the current folder)"},
    {"--tools", 0, "SET", CMD_SERVE,
     .help = "the MCP tools listed and served: core (default: the eight above, short\nschemas), all (every tool, "
             "full schemas) or a comma list of names and those\ntwo words (core,add_document); a tool not listed is "
             "not served"},
    {"--read-only", 0, NULL, CMD_SERVE, .help = "refuse every write tool (add_document, delete_document, reindex,\ncreate_baseline, record_turn, publish)"},
    /* conversation memory (`hyrax help memory`) */
    {"--json", 0, NULL, CMD_HISTORY, .help = "print one JSON object (get_session's or list_sessions' shape)"},
    {"--watch", 0, NULL, CMD_SERVE,
     .help = "follow the indexed root (inotify) and reindex what changes, " HX_STRINGIFY(HX_WATCH_DEBOUNCE_MS) " ms\nafter the last change of a burst"},
    {"--watch-poll", 0, "MS", CMD_SERVE,
     .help = "with --watch: compare the tree every MS ms instead of inotify (network\nfile systems); "
     "inotify falls back to this by itself when unavailable", WHOLE(10, 3600000)},
    {"--memory-per-session", 0, "N", CMD_SERVE,
     .help = "conversation memory keeps the newest N turns of a session (default " HX_STRINGIFY(HX_MEMORY_PER_SESSION) ")",
     WHOLE(1, 1L << 30)},
    {"--memory-total", 0, "N", CMD_SERVE,
     .help = "conversation memory keeps the newest N turns of each identity (--tenant,\n--user; default "
     HX_STRINGIFY(HX_MEMORY_TOTAL) "): a turn never removes another identity's", WHOLE(1, 1L << 30)},
    {"--memory-identities", 0, "N", CMD_SERVE,
     .help = "conversation memory keeps the turns of at most N identities and refuses\na new one's (default "
     HX_STRINGIFY(HX_MEMORY_IDENTITIES) "): the file holds at most N x --memory-total turns",
     WHOLE(1, 1L << 20)},
    /* --- registry tier (issue 13) --- */
    {"--registry", 0, "URL", CMD_REGISTRY | CMD_PUBLISH | CMD_SEARCH | CMD_SERVE,
     .help = "the registry: a PostgreSQL URL or libpq 'key=value' string (default\n$" HX_REGISTRY_ENV
     ", else libpq's PG* variables and service file)"},
    {"--registry-timeout", 0, "MS", CMD_SEARCH | CMD_SERVE,
     .help = "wait at most MS for the registry to connect and answer, then answer\nwithout it (default "
     HX_STRINGIFY(HX_REGISTRY_TIMEOUT_MS) ")", WHOLE(1, 600000)},
    {"--registry-timeout", 0, "MS", CMD_REGISTRY | CMD_PUBLISH,
     .help = "wait at most MS for the connection to the registry (default "
     HX_STRINGIFY(HX_REGISTRY_CONNECT_TIMEOUT_MS) ")", WHOLE(1, 600000)},
    {"--root", 0, "DIR", CMD_PUBLISH, .help = "the folder paths are relative to in the registry (default: the current folder)"},
    {"--visibility", 0, "V", CMD_PUBLISH,
     .help = "tenant (default: the tenant's readers only), public (every tenant) or\nprivate (--user U only)",
     .choices = hx_publish_visibilities},
    {"--allow-unsigned", 0, NULL, CMD_PUBLISH,
     .help = "publish documents without a signature file too (default: each needs\nFILE.minisig or FILE.sig by a key of the trust store)"},
    {"--batch", 0, "N", CMD_PUBLISH, .help = "documents per transaction (default " HX_STRINGIFY(HX_PUBLISH_BATCH) ")",
     WHOLE(1, 100000)},
    /* --- end registry tier --- */
    /* serve --http (`hyrax help http`) */
    {"--http", 0, "HOST:PORT", CMD_SERVE,
     .help = "serve HTTP instead of stdio: REST (/search, /health, /stats), /metrics and\nMCP on /mcp, e.g. "
             "127.0.0.1:8000 (port 0 picks a free one)"},
    {"--token-file", 0, "FILE", CMD_SERVE,
     .help = "with --http: every request must carry Authorization: Bearer <the file's\nfirst line>; required "
             "to bind an address other than loopback"},
    {"--allow-host", 0, "NAME", CMD_SERVE,
     .help = "with --http: answer requests whose Host (and Origin) names NAME too;\nelse only localhost, 127.0.0.1, "
             "[::1] and the address connected to are\nanswered (421), against DNS rebinding (repeatable)",
     .repeat = true},
    {"--http-buffer", 0, "MB", CMD_SERVE,
     .help = "with --http: request bytes all connections may hold together, in MiB\n(default 256); a read past it is "
             "answered 503", WHOLE(1, 1048576)},
    /* install (`hyrax help mcp`, "Plugging into a client") */
    {"--db", 0, "FILE", CMD_INSTALL,
     .help = "the index the client's server serves (default $" HX_DB_ENV ", else " DEFAULT_DB "\nhere or in the nearest folder above)"},
    {"--model", 0, "NAME|FILE", CMD_INSTALL,
     .help = "the model the index was built with, when not the default ('hyrax models')"},
    {"--print", 0, NULL, CMD_INSTALL, .help = "print the server entry and the file it goes into; write nothing"},
    {"--list", 0, NULL, CMD_INSTALL, .help = "list the clients and the file each one's entry goes into here"},
    {"--weights", 0, "V,T", CMD_SEARCH, .renamed = "--fusion-weights V,T (--weights also meant the weights file)"},
    {"--weights", 0, "FILE", CMD_EMBED | CMD_SERVE,
     .renamed = "--model FILE (--weights also meant search's fusion weights)"},
};


const cli_opt *cli_options(size_t *n)
{
    *n = sizeof options / sizeof options[0];
    return options;
}

void args_free(cli_args *a)
{
    free(a->opt);
    free(a->val);
    free(a->operands);
}

/* The table entry of name[0..len) for the command, or NULL. */
static const cli_opt *opt_find(unsigned cmd, const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if ((options[i].cmds & cmd) && !strncmp(options[i].name, name, len) && !options[i].name[len])
            return &options[i];
    return NULL;
}

/* The entry a command's code asks for by name. A name the table does not give that command is a
 * bug in this file: it aborts rather than read nothing. */
static const cli_opt *opt_known(const cli_args *a, const char *name)
{
    const cli_opt *o = opt_find(a->cmd->bit, name, strlen(name));
    if (!o) {
        fprintf(stderr, "hyrax %s: internal error: option %s is not in the table\n", a->cmd->name, name);
        abort();
    }
    return o;
}

/* The value given last for option `name` ("" for a flag), or NULL when it was not given. */
const char *opt_str(const cli_args *a, const char *name)
{
    const cli_opt *o = opt_known(a, name);
    const char *v = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->opt[i] == o)
            v = a->val[i];
    return v;
}

/* A whole-number option's value (checked against its range by cli_parse), or def. */
long opt_long(const cli_args *a, const char *name, long def)
{
    const char *v = opt_str(a, name);
    return v ? strtol(v, NULL, 10) : def;
}

/* --db, else $HYRAX_DB, else the index file found from folder `from` (NULL: the current folder)
 * upward (db_find). */
const char *db_opt_from(const cli_args *a, const char *from)
{
    const char *db = opt_str(a, "--db"), *env = getenv(HX_DB_ENV);
    bool found;
    return db ? db : env && *env ? env : db_find(from, &found);
}

const char *db_opt(const cli_args *a)
{
    return db_opt_from(a, NULL);
}

/* The values of a repeatable option in order: start with *pos = 0; NULL after the last. */
const char *opt_next(const cli_args *a, const char *name, size_t *pos)
{
    const cli_opt *o = opt_known(a, name);
    while (*pos < a->n)
        if (a->opt[(*pos)++] == o)
            return a->val[*pos - 1];
    return NULL;
}

/* "--db FILE", "-k, --top-k N" or "--json" into buf; its length. */
static int opt_label(const cli_opt *o, char *buf, size_t cap)
{
    char shrt[8] = "";
    if (o->short_name)
        snprintf(shrt, sizeof shrt, "-%c, ", o->short_name);
    return snprintf(buf, cap, "%s%s%s%s", shrt, o->name, o->value ? " " : "", o->value ? o->value : "");
}

/* The synopsis, wrapped at 100 columns, then the about text and every listed option. */
void cli_cmd_help(const cli_cmd *c, FILE *f)
{
    char line[256], item[96];
    int indent = snprintf(line, sizeof line, "usage: hyrax %s", c->name), len = indent, width = 0;
    fputs(line, f);
    for (size_t i = 0; i <= sizeof options / sizeof options[0]; i++) {
        const cli_opt *o = i < sizeof options / sizeof options[0] ? &options[i] : NULL;
        if (o && (!(o->cmds & c->bit) || !o->help || !strcmp(o->name, "--help")))
            continue;
        int n = !o ? snprintf(item, sizeof item, "%s", c->operands)
                   : o->short_name ? snprintf(item, sizeof item, "[-%c%s%s]%s", o->short_name, o->value ? " " : "",
                                              o->value ? o->value : "", o->repeat ? "..." : "")
                                   : snprintf(item, sizeof item, "[%s%s%s]%s", o->name, o->value ? " " : "",
                                              o->value ? o->value : "", o->repeat ? "..." : "");
        if (!n)
            continue;
        if (len + 1 + n > 100) {
            fprintf(f, "\n%*s", indent, "");
            len = indent;
        }
        fprintf(f, " %s", item);
        len += 1 + n;
    }
    fprintf(f, "\n\n%s", c->about);
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if ((options[i].cmds & c->bit) && options[i].help && opt_label(&options[i], item, sizeof item) > width)
            width = opt_label(&options[i], item, sizeof item);
    fputc('\n', f);
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const cli_opt *o = &options[i];
        if (!(o->cmds & c->bit) || !o->help)
            continue;
        opt_label(o, item, sizeof item);
        fprintf(f, "  %-*s  ", width, item);
        for (const char *h = o->help; *h; h++)
            if (*h == '\n')
                fprintf(f, "\n  %*s  ", width, "");
            else
                fputc(*h, f);
        fputc('\n', f);
    }
}

/* "hyrax CMD: unknown option 'X' (did you mean --Y?); CMD takes --db, -k/--top-k, ..." on stderr. */
static void unknown_option(const cli_cmd *c, const char *arg)
{
    const char *names[sizeof options / sizeof options[0]], *eq = strchr(arg, '=');
    char word[72];
    size_t n = 0;
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if ((options[i].cmds & c->bit) && options[i].help)
            names[n++] = options[i].name;
    snprintf(word, sizeof word, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
    const char *near = suggest(word, names, n);
    fprintf(stderr, "hyrax %s: unknown option '", c->name);
    put_text(stderr, arg, 200, false);
    if (near)
        fprintf(stderr, "' (did you mean %s?)", near);
    fprintf(stderr, "%s; %s takes", near ? "" : "'", c->name);
    const char *sep = " ";
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if ((options[i].cmds & c->bit) && options[i].help) {
            fputs(sep, stderr);
            if (options[i].short_name)
                fprintf(stderr, "-%c/", options[i].short_name);
            fputs(options[i].name, stderr);
            sep = ", ";
        }
    fprintf(stderr, " ('hyrax %s --help' explains them; -- ends the options)\n", c->name);
}

/* Checks a value against its option's range or choices; prints the problem and returns 1 when bad. */
static int opt_check(const cli_cmd *c, const cli_opt *o, const char *v)
{
    if (o->lo < o->hi) {
        char *end;
        errno = 0;
        long x = strtol(v, &end, 10);
        if (errno || *end || end == v || x < o->lo || x > o->hi) {
            fprintf(stderr, "hyrax %s: %s wants a whole number from %ld to %ld, not '", c->name, o->name, o->lo, o->hi);
            put_text(stderr, v, 200, false);
            fputs("'\n", stderr);
            return 1;
        }
    }
    if (o->choices) {
        size_t n = 0;
        while (o->choices[n] && strcmp(o->choices[n], v))
            n++;
        if (o->choices[n])
            return 0;
        fprintf(stderr, "hyrax %s: %s is ", c->name, o->name);
        for (size_t i = 0; o->choices[i]; i++)
            fprintf(stderr, "%s%s", i == 0 ? "" : o->choices[i + 1] ? ", " : " or ", o->choices[i]);
        fputs(", not '", stderr);
        put_text(stderr, v, 200, false);
        const char *near = suggest(v, o->choices, n);
        fprintf(stderr, "'%s%s%s\n", near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return 1;
    }
    return 0;
}

/* Parses argv[1..] for command c: options anywhere ("--name VALUE", "--name=VALUE", "-k VALUE",
 * "-kVALUE", "-k=VALUE"),
 * "--" ends them, "-" and negative numbers are operands. -1 to go on with *a filled, else the exit
 * status: 0 after --help, 2 for bad usage (message on stderr), 1 out of memory. */
int cli_parse(const cli_cmd *c, int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = c;
    a->opt = hx_calloc((size_t)argc, sizeof *a->opt);
    a->val = hx_calloc((size_t)argc, sizeof *a->val);
    a->operands = hx_calloc((size_t)argc, sizeof *a->operands);
    if (!a->opt || !a->val || !a->operands) {
        fprintf(stderr, "hyrax %s: out of memory\n", c->name);
        return 1;
    }
    bool options_end = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (options_end || s[0] != '-' || !s[1] || (s[1] >= '0' && s[1] <= '9')) {   /* "-", "-5": operands */
            a->operands[a->n_operands++] = s;
            continue;
        }
        if (!strcmp(s, "--")) {
            options_end = true;
            continue;
        }
        const char *eq = s[1] == '-' ? strchr(s, '=') : NULL, *v = NULL;
        const cli_opt *o = s[1] == '-' ? opt_find(c->bit, s, eq ? (size_t)(eq - s) : strlen(s)) : NULL;
        for (size_t k = 0; s[1] != '-' && k < sizeof options / sizeof options[0]; k++)
            if ((options[k].cmds & c->bit) && options[k].short_name == s[1] && (!s[2] || options[k].value))
                o = &options[k];
        if (o && s[1] != '-' && s[2])   /* -k2, -k=2: the value follows the letter */
            eq = s[2] == '=' ? s + 2 : s + 1;
        if (!o) {
            unknown_option(c, s);
            return 2;
        }
        if (o->renamed) {
            fprintf(stderr, "hyrax %s: %s is no longer taken: use %s\n", c->name, o->name, o->renamed);
            return 2;
        }
        if (!strcmp(o->name, "--help")) {
            cli_cmd_help(c, stdout);
            return 0;
        }
        if (o->value && !eq && i + 1 >= argc) {
            fprintf(stderr, "hyrax %s: %s needs a value (%s)\n", c->name, o->name, o->value);
            return 2;
        }
        if (!o->value && eq) {
            fprintf(stderr, "hyrax %s: %s takes no value\n", c->name, o->name);
            return 2;
        }
        v = !o->value ? "" : eq ? eq + 1 : argv[++i];
        if (o->value && opt_check(c, o, v))
            return 2;
        a->opt[a->n] = o;
        a->val[a->n++] = v;
    }
    if (a->n_operands < (size_t)c->min_operands ||
        (c->max_operands >= 0 && a->n_operands > (size_t)c->max_operands)) {
        if (a->n_operands < (size_t)c->min_operands)   /* "PATH..." reads "at least one PATH" */
            fprintf(stderr, "hyrax %s: give at least one %.*s\n", c->name, (int)strcspn(c->operands, "."), c->operands);
        else {
            fprintf(stderr, "hyrax %s: unexpected argument '", c->name);
            put_text(stderr, a->operands[c->max_operands], 200, false);
            fputs("'\n", stderr);
        }
        cli_cmd_help(c, stderr);
        return 2;
    }
    return -1;
}

/* === Option values the library parses === */

/* The --precision value into *out (left as it is when not given); prints the problem and returns 1
 * when bad. The names are the library's (hx_precision_parse). */
int precision_opt(const cli_args *a, hx_precision *out)
{
    const char *s = opt_str(a, "--precision");
    hx_error err = {0};
    if (s && hx_precision_parse(s, out, &err)) {
        fprintf(stderr, "hyrax %s: --precision: %s\n", a->cmd->name, err.message);
        return 1;
    }
    return 0;
}

/* The identity of --tenant / --user into *id; *out = id, or NULL when neither was given. 0, or 2
 * after a message (a --user without --tenant, a bad name). */
int identity_opt(const cli_args *a, const char *cmd, hx_identity *id, const hx_identity **out)
{
    hx_error err = {0};
    *id = (hx_identity){opt_str(a, "--tenant"), opt_str(a, "--user")};
    *out = NULL;
    if (!id->tenant && !id->user)
        return 0;
    if (hx_identity_check(id, &err)) {
        fprintf(stderr, "hyrax %s: %s\n", cmd, err.message);
        return 2;
    }
    *out = id;
    return 0;
}
