/* main.c: the hyrax command line (DESIGN.md "Command line"). The only file that prints to
 * stdout, calls exit() or installs signal handlers; each command parses its flags and calls the
 * library. */
#include "fsafe.h"
#include "alloc.h"
#include "filter.h"
#include "hyrax.h"
#include "ingest.h"
#include "fusion.h"
#include "http_server.h"
#include "mcp.h"
#include "present.h"
#include "present_memory.h"
#include "publish.h"
#include "registry.h"
#include "relpath.h"
#include "sig.h"
#include "stats.h"
#include "store.h"
#include "watch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* === Printing text from files and users === */

/* Writes at most max bytes of s to f with control characters escaped, so a file name, title or
 * message can never start a new output line or drive the terminal: bytes below 0x20, DEL and the
 * C1 controls (UTF-8 C2 80..C2 9F) become \n, \r, \t or \xHH, and a backslash is doubled so the
 * output reads back unambiguously. With fold_lines (snippets of document text) a line break
 * becomes a space, and tabs and backslashes stay as they are. The one way the command line
 * prints paths and the messages that quote them. */
static void put_text(FILE *f, const char *s, size_t max, bool fold_lines)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < max && p[i]; i++) {
        unsigned c = p[i];
        if (fold_lines && (c == '\n' || c == '\r' || c == '\t'))
            fputc(c == '\t' ? '\t' : ' ', f);
        else if (c == '\n' || c == '\r' || c == '\t')
            fprintf(f, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20 || c == 0x7F)
            fprintf(f, "\\x%02x", c);
        else if (c == 0xC2 && i + 1 < max && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F)
            fprintf(f, "\\xc2\\x%02x", p[++i]);
        else if (c == '\\' && !fold_lines)
            fputs("\\\\", f);
        else
            fputc((int)c, f);
    }
}

/* prefix, then text escaped by put_text, then a newline. */
static void put_line(FILE *f, const char *prefix, const char *text)
{
    fputs(prefix, f);
    put_text(f, text, SIZE_MAX, false);
    fputc('\n', f);
}

/* === Options: one table for every command === */

#define DEFAULT_DB ".hyrax/index.hyx"

/* The commands, as bits: an option names the commands that take it. */
enum {
    CMD_TOKENIZE = 1u << 0,
    CMD_EMBED = 1u << 1,
    CMD_INDEX = 1u << 2,
    CMD_SEARCH = 1u << 3,
    CMD_STATS = 1u << 4,
    CMD_VERIFY = 1u << 5,
    CMD_RM = 1u << 6,
    CMD_RECOVER = 1u << 7,
    CMD_SERVE = 1u << 8,
    CMD_BASELINE = 1u << 9,
    CMD_BASELINES = 1u << 10,
    CMD_COMPACT = 1u << 11,
    CMD_AUDIT = 1u << 12,
    CMD_SYNC = 1u << 13,
    CMD_REGISTRY = 1u << 14,   /* registry tier (issue 13): registry, publish */
    CMD_PUBLISH = 1u << 15,
    CMD_HISTORY = 1u << 16,
    CMD_ALL = (1u << 17) - 1,
    CMD_DB = CMD_INDEX | CMD_SEARCH | CMD_STATS | CMD_VERIFY | CMD_RM | CMD_RECOVER | CMD_SERVE | CMD_BASELINE |
             CMD_BASELINES | CMD_COMPACT | CMD_AUDIT | CMD_SYNC | CMD_HISTORY,
    CMD_MODEL = CMD_TOKENIZE | CMD_EMBED | CMD_INDEX | CMD_SEARCH | CMD_SERVE | CMD_SYNC | CMD_PUBLISH,
    CMD_READER = CMD_SEARCH | CMD_STATS | CMD_VERIFY | CMD_SERVE | CMD_HISTORY,   /* read documents: take an identity */
};

/* One option of one or more commands. The table below is the only place an option is declared:
 * it drives parsing, the checks of whole-number and enumerated values, `hyrax CMD --help` and the
 * message for an unknown option. A command reads what was given with opt_str / opt_long /
 * opt_next by the option's long name. */
typedef struct {
    const char *name;                /* "--db" */
    char short_name;                 /* 'k' for -k; 0 for none */
    const char *value;               /* what the value is called in help ("FILE"); NULL: a flag */
    unsigned cmds;                   /* CMD_* bits of the commands that take it */
    const char *help;                /* '\n' starts a continuation line; NULL: not listed */
    long lo, hi;                     /* lo < hi: the value is a whole number in [lo, hi] */
    const char *const *choices;      /* non-NULL: the value is one of these (NULL-terminated) */
    bool repeat;                     /* every value is kept (opt_next); else the last one counts */
    const char *renamed;             /* an old spelling: refused with "use <renamed>" */
} cli_opt;

#define WHOLE(a, b) .lo = (a), .hi = (b)

static const char *const fusion_names[] = {"rrf", "weighted", NULL};
static const char *const sync_tiers[] = {HX_TIER_USER, NULL};   /* sync --to: the tiers above a project */

static const cli_opt options[] = {
    {"--help", 'h', NULL, CMD_ALL, .help = "print this help"},
    {"--db", 0, "FILE", CMD_DB, .help = "index file (default " DEFAULT_DB ")"},
    {"--model", 0, "FILE", CMD_MODEL,
     .help = "weights file (default $HYRAX_WEIGHTS, else weights/" HX_WEIGHTS_FILE "\nbeside the executable or one folder above it)"},
    {"--threads", 0, "N", CMD_EMBED | CMD_INDEX | CMD_SERVE | CMD_SYNC, .help = "embedding threads (default 0 = one per core)", WHOLE(0, 256)},
    {"--precision", 0, "P", CMD_EMBED,
     .help = "fp32 (default: sentence-transformers' vectors) or int8 (faster: 2.3x with\nAVX512-VNNI, "
             "1.3-1.4x on AVX2 alone; cosine >= 0.995 to fp32's)"},
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
    {"--mode", 0, "M", CMD_SEARCH, .help = "hybrid (default: vector and keyword fused), vector, or keyword", .choices = hx_mode_names},
    {"--top-k", 'k', "N", CMD_SEARCH, .help = "results to print (default 10, at most 1000)", WHOLE(1, 1000)},
    {"--group", 0, "G", CMD_SEARCH,
     .help = "document (default): one result per document, its best chunk, with its\nother matching chunks as `more`, and k "
     "counts documents; chunk: every\nmatching chunk on its own (the same document may come several times)",
     .choices = hx_group_names},
    {"--filter", 0, "KEY=VALUE", CMD_SEARCH,
     .help = "a metadata value (numbers compare as numbers); KEY=A,B any of them;\nKEY>=X, KEY>X, KEY<=X, KEY<X, KEY=X..Y a "
     "number or ISO-8601 date range\n(a date-only upper bound takes its whole day); repeatable (AND). Keys:\nmetadata "
     "(front matter, YAML, the folder's kep.yaml and README front\nmatter; _ and - alike; sig_name = owning-sig, kep_id = "
     "kep-number) or\npath=GLOB (** spans folders), type, ext, dir, folder, indexed_at, mtime",
     .repeat = true},
    {"--min-score", 0, "X", CMD_SEARCH,
     .help = "drop results whose relevance (the score, 0..1 in every mode: the\nestimated probability that the result is "
     "relevant) is below X\n(default " HX_STRINGIFY(HX_MIN_RELEVANCE) "; 0 keeps every candidate)"},
    {"--recency", 0, "KEY:DAYS", CMD_SEARCH,
     .help = "newer first: multiply each result's ranking by 0.5^(age / DAYS), the age\nfrom the ISO-8601 date in metadata "
     "KEY, or KEY mtime for the file's\n(a document without the key ages from its mtime)"},
    {"--fusion", 0, "F", CMD_SEARCH, .help = "rrf (default, k = 60) or weighted (min-max normalised scores)", .choices = fusion_names},
    {"--fusion-weights", 0, "V,T", CMD_SEARCH,
     .help = "weights of the vector and keyword sides, for either fusion (0.5,0.5);\neach finite and >= 0, not both 0"},
    {"--ef", 0, "N", CMD_SEARCH, .help = "HNSW search breadth (default 64)", WHOLE(1, 100000)},
    {"--as-of", 0, "TIME", CMD_SEARCH,
     .help = "search the index as it was at TIME: ISO-8601 (2026-01-31T12:00:00Z) or\nunix seconds; the commits kept are "
     "listed by 'hyrax baselines'"},
    {"--baseline", 0, "NAME", CMD_SEARCH,
     .help = "search the newest commit named NAME ('hyrax baseline NAME'; the name\npublished is what agents' read_context "
     "{selector: published} reads)"},
    {"--to", 0, "TIER", CMD_SYNC, .help = "the tier to copy to: user (required)", .choices = sync_tiers},
    {"--source", 0, "S", CMD_SEARCH,
     .help = "the tiers to search: all (default: the project index, the user index\nwhen it exists, the registry "
     "when one is named), project, user (README\n\"Tiers\") or registry alone (README \"Registry\")", .choices = hx_source_names},
    {"--json", 0, NULL, CMD_SEARCH,
     .help = "print one JSON object (query, mode, group, results, total_results,\nsearch_time_ms); a result's fields and "
     "its citation are those MCP's\nsearch answers with"},
    {"--json", 0, NULL, CMD_STATS, .help = "print one JSON object"},
    {"--tenant", 0, "T", CMD_READER | CMD_PUBLISH,
     .help = "read as tenant T (README \"Tenants and visibility\"): public documents,\nT's tenant documents and, with "
     "--user, U's private ones of T; without\nit every document is read (the local user of a local index). In the\n"
     "registry: act as tenant T, a PostgreSQL role the login may SET ROLE to"},
    {"--user", 0, "U", CMD_READER | CMD_PUBLISH,
     .help = "the reader's user within --tenant T; in the registry a PostgreSQL role,\na member of T's, the login may SET ROLE to"},
    {"--json", 0, NULL, CMD_AUDIT, .help = "print one JSON object (entries: time, path, sha256, rule, reason; count)"},
    {"--limit", 0, "N", CMD_AUDIT, .help = "the newest N entries (default: all kept)", WHOLE(1, HX_AUDIT_MAX)},
    {"--since", 0, "TIME", CMD_AUDIT, .help = "entries at or after TIME: ISO-8601 (2026-01-31T12:00:00Z) or unix seconds"},
    {"--path", 0, "GLOB", CMD_AUDIT, .help = "entries of documents whose root-relative path matches GLOB"},
    {"--root", 0, "DIR", CMD_SERVE, .help = "indexed root when the index does not exist yet (default: the current folder)"},
    {"--read-only", 0, NULL, CMD_SERVE, .help = "refuse every write tool (add_document, delete_document, reindex,\ncreate_baseline, record_turn, publish)"},
    /* conversation memory (README "Conversation memory") */
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
    /* serve --http (README "HTTP server") */
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
    {"--weights", 0, "V,T", CMD_SEARCH, .renamed = "--fusion-weights V,T (--weights also meant the weights file)"},
    {"--weights", 0, "FILE", CMD_EMBED | CMD_SERVE,
     .renamed = "--model FILE (--weights also meant search's fusion weights)"},
};

/* One command: how it is shown and what runs it. */
typedef struct cli_args cli_args;
typedef struct {
    const char *name;
    unsigned bit;                    /* CMD_* */
    const char *operands;            /* what follows the options in the synopsis ("PATH..."; "" none) */
    int min_operands, max_operands;  /* max -1: any number */
    const char *summary;             /* its line in `hyrax --help` */
    const char *about;               /* the text of `hyrax CMD --help` between synopsis and options */
    int (*run)(const cli_args *a);   /* the exit status */
} cli_cmd;

/* What one command line gave: the options in order and the other arguments. Arrays owned (free
 * with args_free); the strings are borrowed from argv. */
struct cli_args {
    const cli_cmd *cmd;
    const cli_opt **opt;             /* n options given, in order */
    const char **val;                /* the value of each ("" for a flag) */
    size_t n;
    const char **operands;
    size_t n_operands;
};

static void args_free(cli_args *a)
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
static const char *opt_str(const cli_args *a, const char *name)
{
    const cli_opt *o = opt_known(a, name);
    const char *v = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->opt[i] == o)
            v = a->val[i];
    return v;
}

/* A whole-number option's value (checked against its range by cli_parse), or def. */
static long opt_long(const cli_args *a, const char *name, long def)
{
    const char *v = opt_str(a, name);
    return v ? strtol(v, NULL, 10) : def;
}

/* --db, else the default index file. */
static const char *db_opt(const cli_args *a)
{
    const char *db = opt_str(a, "--db");
    return db ? db : DEFAULT_DB;
}

/* The values of a repeatable option in order: start with *pos = 0; NULL after the last. */
static const char *opt_next(const cli_args *a, const char *name, size_t *pos)
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
static void cmd_help(const cli_cmd *c, FILE *f)
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

/* "hyrax CMD: unknown option 'X'; CMD takes --db, -k/--top-k, ..." on stderr. */
static void unknown_option(const cli_cmd *c, const char *arg)
{
    fprintf(stderr, "hyrax %s: unknown option '", c->name);
    put_text(stderr, arg, 200, false);
    fprintf(stderr, "'; %s takes", c->name);
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
        fputs("'\n", stderr);
        return 1;
    }
    return 0;
}

/* Parses argv[1..] for command c: options anywhere ("--name VALUE", "--name=VALUE", "-k VALUE"),
 * "--" ends them, "-" and negative numbers are operands. -1 to go on with *a filled, else the exit
 * status: 0 after --help, 2 for bad usage (message on stderr), 1 out of memory. */
static int cli_parse(const cli_cmd *c, int argc, char **argv, cli_args *a)
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
        for (size_t k = 0; s[1] != '-' && !s[2] && k < sizeof options / sizeof options[0]; k++)
            if ((options[k].cmds & c->bit) && options[k].short_name == s[1])
                o = &options[k];
        if (!o) {
            unknown_option(c, s);
            return 2;
        }
        if (o->renamed) {
            fprintf(stderr, "hyrax %s: %s is no longer taken: use %s\n", c->name, o->name, o->renamed);
            return 2;
        }
        if (!strcmp(o->name, "--help")) {
            cmd_help(c, stdout);
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
        cmd_help(c, stderr);
        return 2;
    }
    return -1;
}

/* === tokenize === */

static const char tokenize_about[] =
    "Reads UTF-8 text from stdin, one input per line (any length), and prints for each line one\n"
    "JSON array of all-MiniLM-L6-v2 token ids: [CLS] word pieces [SEP], truncated to 256 ids as\n"
    "the model sees them. Invalid UTF-8 bytes are ignored.\n";

/* Prints ids as one JSON array line; returns 0 or -1 on a write error. */
static int tokenize_print(const int32_t *ids, size_t n)
{
    char buf[HX_MAX_SEQ_TOKENS * 12 + 4];
    size_t w = 0;
    buf[w++] = '[';
    for (size_t i = 0; i < n; i++)
        w += (size_t)snprintf(buf + w, sizeof buf - w, i ? ",%d" : "%d", (int)ids[i]);
    buf[w++] = ']';
    buf[w++] = '\n';
    return fwrite(buf, 1, w, stdout) == w ? 0 : -1;
}

static int cmd_tokenize(const cli_args *a)
{
    hx_error err = {0};
    hx_model *model = NULL;
    hx_model_opts mo = {opt_str(a, "--model"), HX_PRECISION_FP32};
    if (hx_model_open_opts(&model, &mo, &err)) {
        fprintf(stderr, "hyrax tokenize: %s\n", err.message);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    int32_t ids[HX_MAX_SEQ_TOKENS];
    while (rc == 0 && (len = getline(&line, &cap, stdin)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            len--;
        size_t n = hx_model_input_ids(model, line, (size_t)len, ids, HX_MAX_SEQ_TOKENS);
        rc = tokenize_print(ids, n);
    }
    free(line);
    hx_model_close(model);
    if (rc || fflush(stdout) || ferror(stdin)) {
        fprintf(stderr, "hyrax tokenize: %s failed\n", ferror(stdin) ? "reading stdin" : "writing stdout");
        return 1;
    }
    return 0;
}

/* === embed === */

#define EMBED_BATCH 64          /* lines per forward pass */
#define EMBED_READ (1 << 20)    /* bytes asked of each read(2) */

/* The --precision value into *out (left as it is when not given); prints the problem and returns 1
 * when bad. The names are the library's (hx_precision_parse). */
static int precision_opt(const cli_args *a, hx_precision *out)
{
    const char *s = opt_str(a, "--precision");
    hx_error err = {0};
    if (s && hx_precision_parse(s, out, &err)) {
        fprintf(stderr, "hyrax %s: --precision: %s\n", a->cmd->name, err.message);
        return 1;
    }
    return 0;
}

static const char embed_about[] =
    "Reads UTF-8 text from stdin, one input per line, and prints for each line one JSON array of\n"
    "384 floats: the L2-normalised all-MiniLM-L6-v2 embedding (inputs past 256 word pieces are\n"
    "truncated, as sentence-transformers does). Lines are embedded in batches of up to 64 as they\n"
    "arrive, and each batch is printed as soon as it is done.\n";

/* Prints one vector as a JSON array line; returns 0 or -1 on a write error. */
static int embed_print(const float *v, int dim)
{
    char buf[HX_EMBED_DIM * 18 + 4];
    size_t w = 0;
    buf[w++] = '[';
    for (int i = 0; i < dim && i < HX_EMBED_DIM; i++)
        w += (size_t)snprintf(buf + w, sizeof buf - w, i ? ",%.9g" : "%.9g", (double)v[i]);
    buf[w++] = ']';
    buf[w++] = '\n';
    return fwrite(buf, 1, w, stdout) == w ? 0 : -1;
}

/* Embeds and prints n lines, then flushes stdout so output streams batch by batch. */
static int embed_batch(hx_encoder *enc, const char **texts, const size_t *lens, size_t n, float *out,
                       int dim)
{
    hx_error err = {0};
    if (n == 0)
        return 0;
    if (hx_encoder_embed(enc, texts, lens, n, out, &err)) {
        fprintf(stderr, "hyrax embed: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        if (embed_print(out + i * (size_t)dim, dim))
            return -1;
    return fflush(stdout) ? -1 : 0;
}

static int cmd_embed(const cli_args *a)
{
    int threads = (int)opt_long(a, "--threads", 0), rc;
    hx_precision precision = HX_PRECISION_FP32;
    if (precision_opt(a, &precision))
        return 2;
    hx_error err = {0};
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_model_opts mo = {opt_str(a, "--model"), precision};
    if (hx_model_open_opts(&model, &mo, &err) ||
        hx_encoder_new(&enc, model, threads, &err)) {
        fprintf(stderr, "hyrax embed: %s\n", err.message);
        hx_model_close(model);
        return 1;
    }
    const int dim = hx_model_dim(model);
    float *out = hx_malloc((size_t)EMBED_BATCH * (size_t)dim * sizeof *out);
    size_t cap = 2 * EMBED_READ, len = 0;
    char *buf = hx_malloc(cap);
    const char *texts[EMBED_BATCH];
    size_t lens[EMBED_BATCH];
    int eof = 0;
    rc = out && buf ? 0 : 1;
    if (rc)
        fputs("hyrax embed: out of memory\n", stderr);
    while (!rc && !eof) {
        if (cap - len < EMBED_READ) {   /* a line longer than the buffer: grow it */
            char *grown = cap <= ((size_t)1 << 40) ? hx_realloc(buf, cap * 2) : NULL;
            if (!grown) {
                fputs("hyrax embed: out of memory for a long line\n", stderr);
                rc = 1;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        ssize_t k = read(0, buf + len, EMBED_READ);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            fprintf(stderr, "hyrax embed: reading stdin: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        eof = k == 0;
        len += (size_t)k;
        /* Every complete line (and at end of input a last unterminated one) goes out now. */
        size_t start = 0, n = 0;
        for (size_t i = 0; i < len && !rc; i++) {
            if (buf[i] != '\n' && !(eof && i + 1 == len))
                continue;
            size_t end = buf[i] == '\n' ? i : i + 1;
            texts[n] = buf + start;
            lens[n++] = end - start;
            start = i + 1;
            if (n == EMBED_BATCH) {
                rc = embed_batch(enc, texts, lens, n, out, dim);
                n = 0;
            }
        }
        if (!rc)
            rc = embed_batch(enc, texts, lens, n, out, dim);
        memmove(buf, buf + start, len - start);
        len -= start;
    }
    if (rc < 0)
        fprintf(stderr, "hyrax embed: writing stdout: %s\n", strerror(errno));
    free(buf);
    free(out);
    hx_encoder_free(enc);
    hx_model_close(model);
    return rc ? 1 : 0;
}

/* === Reading an index that changes underneath (hyrax.h) === */

static struct sigaction fault_before[2];   /* SIGBUS, SIGSEGV actions before ours */

/* SIGBUS / SIGSEGV: back to the guard around the read that faulted. Outside a guard the action
 * from before is put back and the returning fault meets it (death, or a sanitizer's report). */
static void on_fault(int sig)
{
    hx_fault_jump();
    sigaction(sig, &fault_before[sig == SIGSEGV], NULL);
}

/* Runs fn(arg) -- which opens an index, reads it and prints -- so that an index file truncated or
 * overwritten meanwhile gives exit status 1 and a message instead of death by a signal. What fn
 * had open is abandoned: the process is about to exit. */
static int guarded(const char *cmd, int (*fn)(void *), void *arg)
{
    hx_fault_guard g;
    if (!HX_FAULT_GUARD(g)) {
        fflush(stdout);
        fprintf(stderr, "hyrax %s: %s; run it again\n", cmd, HX_FAULT_MESSAGE);
        return 1;
    }
    int rc = fn(arg);
    hx_fault_leave(&g);
    return rc;
}

/* === Index commands: the model === */

/* Opens the model (--model, else found as for embed) at `precision` and an encoder. */
static int open_encoder(const cli_args *a, int threads, hx_precision precision, hx_model **model, hx_encoder **enc)
{
    hx_error err = {0};
    hx_model_opts mo = {opt_str(a, "--model"), precision};
    *model = NULL;
    *enc = NULL;
    if (hx_model_open_opts(model, &mo, &err) ||
        hx_encoder_new(enc, *model, threads, &err)) {
        fprintf(stderr, "hyrax %s: %s\n", a->cmd->name, err.message);
        hx_model_close(*model);
        *model = NULL;
        return 1;
    }
    return 0;
}

/* === index === */

static const char index_about[] =
    "Indexes the files under each PATH into one index file, or brings it up to date: new files are\n"
    "added, changed ones re-embedded, unchanged ones skipped (content hash), and indexed files\n"
    "under PATH that are gone are removed. Prints what it added, updated, skipped and removed.\n"
    "Stored documents (add_document with content) are kept as they are, --reindex included.\n"
    "Files removed with 'hyrax rm' or delete_document stay out unless PATH names that file.\n"
    "The first run records the indexed root: the PATH when it is a single folder, else the current\n"
    "folder; later runs take paths inside it. The first run refuses a PATH that does not exist or\n"
    "lies outside that root, and then creates nothing.\n"
    "Progress goes to stderr: a bar on a terminal, else a line every few seconds.\n"
    "A long run commits every 8,192 chunks or so, at a file boundary: Ctrl-C keeps what was\n"
    "committed (exit 130), and running the same command again embeds only the rest.\n";

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct {
    int tty;
    size_t last_pct;           /* terminal: the percentage the bar shows */
    double every;              /* not a terminal: seconds between lines */
    double start, last;        /* now_seconds() at the start and at the last line */
    bool printed;              /* a line went out, so the end gets one too */
    const char *cmd;           /* the command a line names: "index", "sync" */
} progress_state;

/* One line a log can keep: chunks embedded of all, the rate, the document at hand. */
static void progress_line(progress_state *p, size_t done, size_t total, const char *path, double now)
{
    double secs = now - p->start;
    fprintf(stderr, "hyrax %s: embedded %zu/%zu chunks (%zu%%) in %.1f s, %.0f chunks/s", p->cmd, done, total,
            done * 100 / total, secs, secs > 0 ? (double)done / secs : 0.0);
    if (path) {
        fputs(", at ", stderr);
        put_text(stderr, path, 200, false);
    }
    fputc('\n', stderr);
    p->last = now;
    p->printed = true;
}

/* Ctrl-C (SIGINT) or SIGTERM during index and sync: the write stops after the batch at hand,
 * keeping what it committed (hx_update_opts.commit_chunks); a second signal ends the process. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void catch_interrupts(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int index_progress(void *ctx, size_t done, size_t total, const char *path)
{
    progress_state *p = ctx;
    if (interrupted)
        return 1;
    if (!total)
        return 0;
    if (!p->tty) {
        double now = now_seconds();
        if (path ? now - p->last >= p->every : p->printed)   /* path NULL: all embedded, before the commit */
            progress_line(p, done, total, path, now);
        return 0;
    }
    if (!path)   /* the call before the commit: nothing new to draw */
        return 0;
    size_t pct = done * 100 / total;
    if (pct == p->last_pct && done != total)
        return 0;
    p->last_pct = pct;
    int bar = (int)(pct * 30 / 100);
    fprintf(stderr, "\r[%-30.*s] %3zu%% %zu/%zu chunks ", bar, "==============================", pct, done, total);
    put_text(stderr, path, 40, false);
    fputs("\033[K", stderr);
    if (done == total)
        fputc('\n', stderr);
    return 0;
}

/* Makes the folder that will hold the index file. */
static int make_db_folder(const char *cmd, const char *db)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", db);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "hyrax %s: cannot create %s: %s\n", cmd, dir, strerror(errno));
        return 1;
    }
    return 0;
}

/* For the first run (no index yet): every PATH must exist and lie inside the root about to be
 * recorded, checked before anything is created; 0, or 1 after the message. */
static int check_first_paths(const char *root, const char *const *paths, size_t n)
{
    char name[HX_RELPATH_MAX];
    struct stat st;
    hx_error err = {0};
    for (size_t i = 0; i < n; i++) {
        if (lstat(paths[i], &st) != 0) {
            fputs("hyrax index: ", stderr);
            put_text(stderr, paths[i], SIZE_MAX, false);
            fprintf(stderr, ": %s; no index created\n", strerror(errno));
            return 1;
        }
        if (hx_fs_target(root, paths[i], HX_TARGET_CWD, name, sizeof name, &err)) {
            fputs("hyrax index: ", stderr);
            put_text(stderr, err.message, SIZE_MAX, false);
            fputs("; no index created (the first run records the indexed root: the PATH when it is a single "
                  "folder, else the current folder)\n", stderr);
            return 1;
        }
    }
    return 0;
}

static int cmd_index(const cli_args *a)
{
    const char *db = db_opt(a);
    const char **excludes = hx_calloc(a->n + 1, sizeof *excludes);
    const char **folder_meta = hx_calloc(a->n + 1, sizeof *folder_meta);   /* --folder-meta NAMEs */
    const char **paths = hx_calloc(a->n_operands, sizeof *paths);
    size_t n_ex = 0, n_fm = 0, n_paths = a->n_operands, pos = 0;
    int threads = (int)opt_long(a, "--threads", 0), rc = 1;
    hx_precision precision = HX_PRECISION_FP32, recorded;
    const char *precision_flag = opt_str(a, "--precision");
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *ix = NULL;
    hx_update_report rep = {0};
    hx_error err = {0};
    char (*names)[HX_RELPATH_MAX] = NULL;
    if (!excludes || !folder_meta || !paths) {
        fputs("hyrax index: out of memory\n", stderr);
        goto done;
    }
    if (precision_opt(a, &precision)) {
        rc = 2;
        goto done;
    }
    while ((excludes[n_ex] = opt_next(a, "--exclude", &pos)))
        n_ex++;
    const char *fm;
    for (pos = 0; (fm = opt_next(a, "--folder-meta", &pos));)
        if (*fm)   /* '' alone: no folder passes metadata on */
            folder_meta[n_fm++] = fm;
    memcpy(paths, a->operands, n_paths * sizeof *paths);
    char root[4096];
    struct stat st;
    const char *root_src = n_paths == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode) ? paths[0] : ".";
    if (!realpath(root_src, root)) {
        fprintf(stderr, "hyrax index: cannot resolve %s: %s\n", root_src, strerror(errno));
        goto done;
    }
    int found = hx_index_precision(db, &recorded, &err);
    if (found == HX_ENOTFOUND && check_first_paths(root, paths, n_paths))
        goto done;
    if (found == 0) {   /* an existing index keeps its precision */
        if (precision_flag && recorded != precision) {
            fputs("hyrax index: ", stderr);
            put_text(stderr, db, SIZE_MAX, false);
            fprintf(stderr, " holds %s vectors; --precision %s needs a new index: reindex into another "
                    "--db file (or remove this one first)\n", hx_precision_name(recorded), precision_flag);
            goto done;
        }
        precision = recorded;
    }
    if (make_db_folder("index", db) || open_encoder(a, threads, precision, &model, &enc))
        goto done;
    if (hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err)) {
        fprintf(stderr, "hyrax index: %s\n", err.message);
        goto done;
    }
    if (!(names = hx_calloc(n_paths, sizeof *names))) {
        fprintf(stderr, "hyrax index: out of memory\n");
        goto done;
    }
    for (size_t i = 0; i < n_paths; i++) {
        if (hx_fs_target(hx_index_root(ix), paths[i], HX_TARGET_CWD, names[i], sizeof names[i], &err)) {
            put_line(stderr, "hyrax index: ", err.message);
            goto done;
        }
        paths[i] = names[i];
    }
    progress_state prog = {isatty(2), (size_t)-1, (double)opt_long(a, "--progress-every", 5), now_seconds(), 0, false,
                           "index"};
    prog.last = prog.start;
    hx_update_opts o = {.excludes = excludes, .n_excludes = n_ex, .max_file_bytes = (size_t)opt_long(a, "--max-size", 0),
                        .reindex = opt_str(a, "--reindex") != NULL, .encoder = enc, .progress = index_progress,
                        .progress_ctx = &prog, .folder_meta = opt_str(a, "--folder-meta") ? folder_meta : NULL,
                        .n_folder_meta = n_fm, .commit_chunks = (size_t)opt_long(a, "--commit-every", 0)};
    catch_interrupts();
    int update_rc = hx_index_update(ix, paths, n_paths, &o, &rep, &err);
    hx_stats *counted = NULL;   /* the lasting statistics; never fails the command */
    if (!hx_stats_open(&counted, db, NULL, 0, NULL))
        hx_stats_note_update(counted, update_rc ? NULL : &rep, update_rc ? err.message : NULL, 0);
    hx_stats_close(counted);
    if (update_rc == HX_ECANCELED && interrupted) {
        if (prog.tty)
            fputc('\n', stderr);   /* past the progress bar */
        put_line(stderr, "hyrax index: interrupted: ", err.message);
        rc = 130;
        goto done;
    }
    if (update_rc) {
        put_line(stderr, "hyrax index: ", err.message);
        goto done;
    }
    for (size_t i = 0; i < rep.n_rejected; i++)
        put_line(stderr, "hyrax index: rejected ", rep.rejected[i].reason);
    if (rep.warning[0])
        put_line(stderr, "hyrax index: warning: ", rep.warning);
    if (opt_str(a, "--compact") && hx_index_compact(ix, &err)) {
        fprintf(stderr, "hyrax index: compaction failed: %s\n", err.message);
        goto done;
    }
    hx_index_stats stats;
    if (hx_index_stats_get(ix, &stats, &err)) {
        fprintf(stderr, "hyrax index: %s\n", err.message);
        goto done;
    }
    printf("added %zu, updated %zu, unchanged %zu, removed %zu, rejected %zu (+%zu/-%zu chunks) in %.2f s\n",
           rep.added, rep.updated, rep.unchanged, rep.removed, rep.n_rejected, rep.chunks_added,
           rep.chunks_removed, rep.seconds);
    if (rep.kept_out)
        printf("%zu files deleted by request stay out (index one by its own name to bring it back)\n",
               rep.kept_out);
    put_text(stdout, db, SIZE_MAX, false);
    printf(": %llu documents, %llu chunks, generation %llu, root ", (unsigned long long)stats.documents,
           (unsigned long long)stats.live_chunks, (unsigned long long)stats.generation);
    put_text(stdout, hx_index_root(ix), SIZE_MAX, false);
    putchar('\n');
    rc = 0;
done:
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    hx_encoder_free(enc);
    hx_model_close(model);
    free(excludes);
    free(paths);
    free(folder_meta);
    free(names);
    return rc;
}

/* === search === */

/* === Reader identity === */

/* The identity of --tenant / --user into *id; *out = id, or NULL when neither was given. 0, or 2
 * after a message (a --user without --tenant, a bad name). */
static int identity_opt(const cli_args *a, const char *cmd, hx_identity *id, const hx_identity **out)
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

/* hx_index_open for reading with the command's identity (NULL: none) applied: the one way the
 * read commands open an index. */
static int open_reader(hx_index **ix, const char *db, const hx_model *model, const hx_identity *id, hx_error *err)
{
    int rc = hx_index_open(ix, db, HX_INDEX_READ, model, NULL, err);
    return rc || !id ? rc : hx_index_set_identity(*ix, id, err);
}

static const char search_about[] =
    "Searches the index and prints the best documents (or chunks), best first. The words of QUERY\n"
    "are joined by spaces. Keyword syntax: \"exact phrase\", -exclude, +require, prefix*; put a\n"
    "query word that starts with - after -- (hyrax search -- pods -windows).\n";

static int print_results_text(const hx_results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const hx_result *x = &r->v[i];
        size_t tl = strlen(x->title);
        bool heading_has_title = !strncmp(x->heading, x->title, tl) && (!x->heading[tl] || x->heading[tl] == ' ');
        const char *title = heading_has_title ? "" : x->title;
        printf("%u. ", x->rank);
        put_text(stdout, x->path, SIZE_MAX, false);
        printf(":%u-%u  (score %.4f%s%s)\n   ", x->line_start, x->line_end, (double)x->score, x->tier ? ", " : "",
               x->tier ? x->tier : "");
        put_text(stdout, title, SIZE_MAX, false);
        fputs(*title && *x->heading ? " > " : "", stdout);
        put_text(stdout, x->heading, SIZE_MAX, false);
        fputs("\n   ", stdout);
        if (*x->signer) {
            fputs("signed by ", stdout);
            put_text(stdout, x->signer, SIZE_MAX, false);
            fputs("\n   ", stdout);
        }
        put_text(stdout, x->snippet ? x->snippet : "", SIZE_MAX, true);
        putchar('\n');
        for (size_t m = 0; m < x->n_more; m++)
            printf("%s%u-%u%s", m ? ", " : "   also lines ", x->more[m].line_start, x->more[m].line_end,
                   m + 1 == x->n_more ? "\n" : "");
    }
    printf("%zu results in %.1f ms\n", r->n, r->search_ms);
    return 0;
}

typedef struct {
    const char *db;
    hx_model *model;       /* borrowed; NULL for keyword mode */
    hx_encoder *enc;       /* borrowed */
    const char *query;
    size_t qlen;
    const hx_search_opts *o;
    const hx_read_context *at;   /* the commit to read */
    int json;
    const hx_identity *identity; /* the reader's, or NULL */
    hx_source source;      /* the tiers to read (README "Tiers") */
    const char *user_db;   /* the user index file, or NULL when none can be named ... */
    const char *user_why;  /* ... and then why */
    hx_registry_tier *reg; /* the registry tier (README "Registry"), or NULL when none is named */
} search_job;

/* Opens the tiers j->source names -- the project index, then the user index when there is one
 * (hx_tier_open, hx_tier_read_at say when it is not consulted) -- into tiers and their status into
 * st; *taken gets the first tier's commit. 0, or 1 after the message. */
static int open_tiers(const search_job *j, hx_index **ix, hx_tier *tiers, size_t *nt, hx_tier_status *st, size_t *ns,
                      hx_read_taken *taken, char *why, size_t cap)
{
    hx_error err = {0};
    hx_read_taken user_taken = {0};
    if (j->source != HX_SOURCE_USER) {
        if (open_reader(&ix[0], j->db, j->model, j->identity, &err) ||
            hx_index_read_at(ix[0], j->at, taken, &err))
            goto fail;
        tiers[(*nt)++] = (hx_tier){HX_TIER_PROJECT, ix[0]};
        st[(*ns)++] = (hx_tier_status){HX_TIER_PROJECT, j->db, NULL, taken->commit.generation};
    }
    if (j->source == HX_SOURCE_PROJECT)
        return 0;
    snprintf(why, cap, "%s", j->user_db ? "" : j->user_why);
    if (j->user_db && (hx_tier_open(&ix[1], j->user_db, j->model, j->identity, why, cap, &err) ||
                       (ix[1] && hx_tier_read_at(ix[1], j->at, &user_taken, why, cap, &err))))
        goto fail;
    if (!why[0]) {
        tiers[(*nt)++] = (hx_tier){HX_TIER_USER, ix[1]};
        if (*nt == 1)
            *taken = user_taken;
    }
    st[(*ns)++] = (hx_tier_status){HX_TIER_USER, j->user_db ? j->user_db : "", why[0] ? why : NULL,
                                   user_taken.commit.generation};
    return 0;
fail:
    fprintf(stderr, "hyrax search: %s\n", err.message);
    return 1;
}

/* Opens the tiers, searches them as one and prints; the exit status. Runs under guarded(). */
static int run_search(void *arg)
{
    const search_job *j = arg;
    hx_index *ix[2] = {NULL, NULL};
    hx_tier tiers[2];
    hx_tier_status st[3];
    size_t nt = 0, ns = 0;
    char why[600];
    hx_results res = {0};
    hx_error err = {0};
    hx_read_taken taken = {0};
    int rc = 1;
    if (open_tiers(j, ix, tiers, &nt, st, &ns, &taken, why, sizeof why))
        goto done;
    res.group = j->o->group;
    bool asks = j->reg && j->reg->r;
    if ((nt || asks) && hx_tiers_search_registry(tiers, nt, j->reg, j->enc, j->query, j->qlen, j->o, &res, &err)) {
        fprintf(stderr, "hyrax search: %s\n", err.message);
        goto done;
    }
    if (j->reg) {
        st[ns++] = (hx_tier_status){HX_TIER_REGISTRY, NULL, j->reg->why[0] ? j->reg->why : NULL, 0};
        if (j->reg->why[0])
            put_line(stderr, "hyrax search: warning: registry not consulted: ", j->reg->why);
    }
    if (j->json) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_present_search_tiers(&w, j->query, j->o->mode, &res, &taken, st, ns);
        if (hx_json_writer_finish(&w, &err)) {
            fprintf(stderr, "hyrax search: %s\n", err.message);
            hx_json_writer_free(&w);
            goto done;
        }
        fwrite(w.buf, 1, w.len, stdout);
        putchar('\n');
        hx_json_writer_free(&w);
    } else {
        if (nt && taken.selector != HX_READ_HEAD) {
            char when[40];
            hx_time_format(taken.commit.committed_ns, when, sizeof when);
            printf("as of generation %llu%s%s, committed %s\n", (unsigned long long)taken.commit.generation,
                   taken.commit.name[0] ? ", baseline " : "", taken.commit.name, when);
        }
        if (j->source == HX_SOURCE_USER && st[0].absent)   /* asked for it alone: say why it answers nothing */
            put_line(stdout, "user tier not consulted: ", st[0].absent);
        print_results_text(&res);
    }
    rc = fflush(stdout) ? 1 : 0;
    hx_stats *stats = NULL;   /* counted in the lasting statistics; never fails the search */
    if (!hx_stats_open(&stats, j->db, j->identity, 0, NULL)) {
        hx_stats_note_latency(stats, "search", "cli", res.search_ms);
        hx_stats_note_query(stats, j->query);
    }
    hx_stats_close(stats);
done:
    hx_results_free(&res);
    hx_index_close(ix[0]);
    hx_index_close(ix[1]);
    return rc;
}

typedef struct {
    const char *db;
    hx_precision precision;
} precision_job;

/* The index's precision into j->precision; the exit status (1 with a message when there is no
 * index; any other failure is left to the open that follows). Runs under guarded(). */
static int read_precision(void *arg)
{
    precision_job *j = arg;
    hx_error err = {0};
    if (hx_index_precision(j->db, &j->precision, &err) == HX_ENOTFOUND) {
        fprintf(stderr, "hyrax search: %s\n", err.message);
        return 1;
    }
    return 0;
}

/* --fusion-weights V,T into o; prints the problem and returns 1 when bad (hx_fusion_check_weights
 * is the rule, shared with MCP). */
static int fusion_weights_opt(const cli_args *a, hx_search_opts *o)
{
    const char *v = opt_str(a, "--fusion-weights");
    char *comma, *end;
    hx_error werr = {0};
    if (!v)
        return 0;
    o->vector_weight = strtof(v, &comma);
    if (comma == v || *comma != ',' || (o->text_weight = strtof(comma + 1, &end), end == comma + 1 || *end)) {
        fprintf(stderr, "hyrax search: --fusion-weights wants V,T (two numbers), not '%s'\n", v);
        return 1;
    }
    if (hx_fusion_check_weights(o->vector_weight, o->text_weight, &werr)) {
        fprintf(stderr, "hyrax search: --fusion-weights %s: %s\n", v, werr.message);
        return 1;
    }
    return 0;
}

static int search_registry(const cli_args *a, const char *query, const hx_search_opts *o, int64_t as_of_ns);
static int registry_open(const cli_args *a, int timeout_ms, hx_registry **r, hx_error *err);

static int cmd_search(const cli_args *a)
{
    const char *db = db_opt(a), *v;
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.snippets = 1;
    o.group = HX_GROUP_DOCUMENT;
    o.min_score = (float)HX_MIN_RELEVANCE;
    hx_filter_set filters = {0};
    char *query = NULL, *recency_key = NULL;   /* KEY of --recency KEY:DAYS, owned */
    size_t qlen = 0, pos = 0;
    int rc = 2;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_identity id;
    const hx_identity *identity;
    if (identity_opt(a, "search", &id, &identity))
        goto done;
    if ((v = opt_str(a, "--mode")))
        hx_mode_parse(v, &o.mode);   /* the table checked the name */
    if ((v = opt_str(a, "--group")))
        hx_group_parse(v, &o.group);
    o.fusion = opt_str(a, "--fusion") && !strcmp(opt_str(a, "--fusion"), "weighted");
    o.k = (uint32_t)opt_long(a, "--top-k", o.k);
    o.ef = (uint32_t)opt_long(a, "--ef", o.ef);
    while ((v = opt_next(a, "--filter", &pos))) {
        hx_error ferr = {0};
        if (hx_filter_parse_arg(&filters, v, &ferr)) {
            fprintf(stderr, "hyrax search: --filter: %s\n", ferr.message);
            rc = ferr.code == HX_ENOMEM ? 1 : 2;
            goto done;
        }
    }
    if ((v = opt_str(a, "--min-score"))) {
        char *end;
        o.min_score = strtof(v, &end);
        if (*end || end == v || isnan(o.min_score)) {
            fprintf(stderr, "hyrax search: --min-score wants a number, not '%s'\n", v);
            goto done;
        }
    }
    if (fusion_weights_opt(a, &o))
        goto done;
    if ((v = opt_str(a, "--recency"))) {
        const char *colon = strrchr(v, ':');
        char *end;
        double days = colon ? strtod(colon + 1, &end) : NAN;
        if (!colon || colon == v || end == colon + 1 || *end || !(days > 0 && isfinite(days))) {
            fprintf(stderr, "hyrax search: --recency wants KEY:DAYS (a half-life in days > 0), not '%s'\n", v);
            goto done;
        }
        if (!(recency_key = hx_strdup(v))) {
            rc = 1;
            goto done;
        }
        recency_key[colon - v] = 0;
        o.recency_key = recency_key;
        o.recency_half_life_days = days;
    }
    hx_read_context at = {HX_READ_HEAD, NULL, 0};
    if (opt_str(a, "--as-of") && opt_str(a, "--baseline")) {
        fputs("hyrax search: give one of --as-of TIME and --baseline NAME\n", stderr);
        goto done;
    }
    if ((v = opt_str(a, "--baseline"))) {
        at.selector = HX_READ_BASELINE;
        at.baseline_id = v;
    }
    if ((v = opt_str(a, "--as-of"))) {
        hx_error terr = {0};
        at.selector = HX_READ_AS_OF;
        if (hx_time_parse(v, &at.as_of_ns, &terr)) {
            fprintf(stderr, "hyrax search: --as-of: %s\n", terr.message);
            goto done;
        }
    }
    for (size_t i = 0; i < a->n_operands; i++) {   /* the words of the query, joined by spaces */
        size_t l = strlen(a->operands[i]);
        char *q = hx_realloc(query, qlen + l + 2);
        if (!q) {
            rc = 1;
            goto done;
        }
        query = q;
        if (qlen)
            query[qlen++] = ' ';
        memcpy(query + qlen, a->operands[i], l + 1);
        qlen += l;
    }
    o.filters = filters.v;
    o.n_filters = filters.n;
    hx_source source = HX_SOURCE_ALL;
    if ((v = opt_str(a, "--source")))
        hx_source_parse(v, &source);   /* the table checked the name */
    if (source == HX_SOURCE_REGISTRY) {
        if (at.selector == HX_READ_BASELINE) {
            fputs("hyrax search: the registry has no baselines; --as-of TIME reads what was published by then\n", stderr);
            goto done;
        }
        rc = search_registry(a, query, &o, at.selector == HX_READ_AS_OF ? at.as_of_ns : 0);
        goto done;
    }
    if (source == HX_SOURCE_USER && at.selector == HX_READ_BASELINE) {
        fputs("hyrax search: --baseline names a commit of the project index; with --source user give --as-of\n", stderr);
        goto done;
    }
    char user_db[4096];
    hx_error uerr = {0};
    bool has_user_db = hx_tier_user_path(user_db, sizeof user_db, &uerr) == 0;
    rc = 1;
    /* queries are embedded as the index's vectors were: the project's, or the user index's alone */
    precision_job pj = {source == HX_SOURCE_USER ? (has_user_db ? user_db : NULL) : db, HX_PRECISION_FP32};
    bool embeds = o.mode != HX_MODE_KEYWORD && pj.db;
    if (embeds && source == HX_SOURCE_USER && hx_index_precision(pj.db, &pj.precision, &uerr) == HX_ENOTFOUND)
        embeds = false;   /* no user index: nothing to search, which the answer says */
    else if (embeds && guarded("search", read_precision, &pj))
        goto done;
    if (embeds && open_encoder(a, 1, pj.precision, &model, &enc))
        goto done;
    /* the registry, when one is named, is the farthest tier of source all (README "Registry") */
    const char *reg_url = opt_str(a, "--registry") ? opt_str(a, "--registry") : getenv(HX_REGISTRY_ENV);
    hx_registry_tier reg = {.as_of_ns = at.selector == HX_READ_AS_OF ? at.as_of_ns : 0};
    bool with_registry = source == HX_SOURCE_ALL && reg_url && *reg_url;
    if (with_registry && embeds && pj.precision != HX_PRECISION_FP32) {
        snprintf(reg.why, sizeof reg.why, "the project index holds %s vectors and the registry fp32 ones",
                 hx_precision_name(pj.precision));
    } else if (with_registry) {
        hx_error rerr = {0};
        if (registry_open(a, (int)opt_long(a, "--registry-timeout", HX_REGISTRY_TIMEOUT_MS), &reg.r, &rerr)) {
            if (rerr.code == HX_ENOMEM || rerr.code == HX_EINVAL) {
                put_line(stderr, "hyrax search: ", rerr.message);
                goto done;
            }
            snprintf(reg.why, sizeof reg.why, "%s", rerr.message);
        }
    }
    search_job job = {db,         model,   enc,    query, qlen, &o, &at, opt_str(a, "--json") != NULL, identity, source,
                      has_user_db ? user_db : NULL, uerr.message, with_registry ? &reg : NULL};
    rc = guarded("search", run_search, &job);
    hx_registry_results_free(&reg.res);
    hx_registry_close(reg.r);
done:
    hx_encoder_free(enc);
    hx_model_close(model);
    hx_filter_set_free(&filters);
    free(query);
    free(recency_key);
    return rc;
}

/* === stats, verify, rm === */

static const char stats_about[] =
    "Prints counts, sizes, the last commit and the model, and what every process did with the index\n"
    "(kept beside it, across restarts): latency per tool, hot queries of the last day, updates, rejected\n"
    "files and index lag. With --tenant, the hot queries are that identity's own and the last update's\n"
    "error is left out; without it, every identity's queries are shown.\n";

typedef struct {
    const char *db;
    int json;
    const hx_identity *identity; /* the reader's, or NULL */
} db_job;

/* The lasting statistics (hx_stats_write_json's members in one object) as text lines. */
static void print_activity(const hx_json_writer *act)
{
    hx_json_doc *doc = NULL;
    if (hx_json_parse(&doc, act->buf, act->len, NULL, NULL))
        return;
    const hx_json_val *r = hx_json_doc_root(doc), *lat = hx_json_obj_get(r, "latency"), *k, *v;
    hx_json_iter it;
    hx_json_iter_init(&it, lat);
    while (hx_json_iter_next(&it, &k, &v)) {
        double calls = 0, p50 = 0, p95 = 0;
        hx_json_num_double(hx_json_obj_get(v, "calls"), &calls, NULL);
        hx_json_num_double(hx_json_obj_get(v, "p50_ms"), &p50, NULL);
        hx_json_num_double(hx_json_obj_get(v, "p95_ms"), &p95, NULL);
        printf("latency     %s: %.0f calls, p50 %.1f ms, p95 %.1f ms\n", hx_json_str(k, NULL), calls, p50, p95);
    }
    const hx_json_val *top = hx_json_obj_get(r, "top_queries");
    for (size_t i = 0; i < hx_json_len(top); i++) {
        double n = 0;
        hx_json_num_double(hx_json_obj_get(hx_json_arr_get(top, i), "count"), &n, NULL);
        fputs(i ? "            " : "hot queries ", stdout);
        put_text(stdout, hx_json_str(hx_json_obj_get(hx_json_arr_get(top, i), "query"), NULL), 120, true);
        printf(" (%.0f)\n", n);
    }
    const hx_json_val *ix = hx_json_obj_get(r, "index");
    double u[6] = {0}, lag_n = 0, lag50 = 0, lag95 = 0;
    const char *keys[] = {"updates", "files_added", "files_updated", "files_removed", "files_rejected", "update_failures"};
    for (int i = 0; i < 6; i++)
        hx_json_num_double(hx_json_obj_get(ix, keys[i]), &u[i], NULL);
    const hx_json_val *lag = hx_json_obj_get(ix, "lag");
    hx_json_num_double(hx_json_obj_get(lag, "count"), &lag_n, NULL);
    hx_json_num_double(hx_json_obj_get(lag, "p50_ms"), &lag50, NULL);
    hx_json_num_double(hx_json_obj_get(lag, "p95_ms"), &lag95, NULL);
    printf("updates     %.0f: %.0f files added, %.0f updated, %.0f removed, %.0f rejected; %.0f failed\n", u[0], u[1],
           u[2], u[3], u[4], u[5]);
    if (lag_n)
        printf("index lag   p50 %.0f ms, p95 %.0f ms (%.0f updates measured)\n", lag50, lag95, lag_n);
    const char *last_error = hx_json_str(hx_json_obj_get(ix, "last_error"), NULL);
    if (last_error)
        put_line(stdout, "last error  ", last_error);
    hx_json_doc_free(doc);
}


/* Opens the index and prints its statistics; the exit status. Runs under guarded(). */
static int run_stats(void *arg)
{
    const db_job *j = arg;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    if (open_reader(&ix, j->db, NULL, j->identity, &err) || hx_index_stats_get(ix, &st, &err)) {
        fprintf(stderr, "hyrax stats: %s\n", err.message);
        hx_index_close(ix);
        return 1;
    }
    if (*hx_index_damage(ix))
        fprintf(stderr, "hyrax stats: warning: %s: %s (see 'hyrax verify')\n", j->db, hx_index_damage(ix));
    hx_json_writer act;   /* the lasting statistics (stats.h) */
    hx_json_writer_init(&act);
    hx_json_write_obj_begin(&act);
    int act_rc = hx_stats_write_json(NULL, j->db, j->identity, &act, &err);
    hx_json_write_obj_end(&act);
    if (act_rc)
        fprintf(stderr, "hyrax stats: warning: %s\n", err.message);
    if (j->json) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_json_write_obj_begin(&w);
        hx_present_stats_members(&w, &st, hx_index_root(ix));
        hx_json_write_key(&w, "activity");
        if (act_rc)
            hx_json_write_null(&w);
        else
            hx_json_write_json(&w, act.buf, act.len);
        hx_json_write_obj_end(&w);
        if (!hx_json_writer_finish(&w, &err))
            printf("%s\n", w.buf);
        hx_json_writer_free(&w);
    } else {
        time_t t = (time_t)(st.committed_ns / 1000000000);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
        fputs("index       ", stdout);
        put_text(stdout, j->db, SIZE_MAX, false);
        fputs("\nroot        ", stdout);
        put_text(stdout, hx_index_root(ix), SIZE_MAX, false);
        printf("\ndocuments   %llu\nchunks      %llu (%llu stored, %llu deleted)\n"
               "tokens      %llu\nsegments    %llu\nfile size   %.1f MiB\ngeneration  %llu, committed %s\n"
               "model       %s (%d dimensions)\n",
               (unsigned long long)st.documents, (unsigned long long)st.live_chunks,
               (unsigned long long)st.chunks, (unsigned long long)st.tombstones, (unsigned long long)st.tokens,
               (unsigned long long)st.segments, (double)st.file_bytes / 1048576.0,
               (unsigned long long)st.generation, when, st.model, st.dim);
        if (!act_rc)
            print_activity(&act);
    }
    hx_json_writer_free(&act);
    hx_index_close(ix);
    return 0;
}

static int cmd_stats(const cli_args *a)
{
    hx_identity id;
    db_job job = {db_opt(a), opt_str(a, "--json") != NULL, NULL};
    return identity_opt(a, "stats", &id, &job.identity) ? 2 : guarded("stats", run_stats, &job);
}

static const char verify_about[] =
    "Without FILE: checks every checksum and table of the index; exit 1 on damage.\n"
    "With FILEs: checks each file's detached signature, FILE.minisig (minisign) or FILE.sig\n"
    "(ssh-keygen -Y sign -n hyrax), against the keys trusted in the current folder's project:\n"
    ".hyrax/trusted/*.pub (minisign public keys) and .hyrax/allowed_signers (OpenSSH). Prints the\n"
    "signer of each; exit 1 when any file is unsigned or its signature is refused (reason on stderr).\n";

/* Opens the index and checks it; the exit status. Runs under guarded(). */
static int run_verify(void *arg)
{
    const db_job *j = arg;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    if (open_reader(&ix, j->db, NULL, j->identity, &err) || hx_index_verify(ix, &err) ||
        hx_index_stats_get(ix, &st, &err)) {
        if (err.offset >= 0)
            fprintf(stderr, "hyrax verify: %s: %s (at byte %lld)\n", j->db, err.message, (long long)err.offset);
        else
            fprintf(stderr, "hyrax verify: %s: %s\n", j->db, err.message);
        hx_index_close(ix);
        return 1;
    }
    put_text(stdout, j->db, SIZE_MAX, false);
    printf(": ok, generation %llu, %llu documents, %llu chunks, every checksum verified\n",
           (unsigned long long)st.generation, (unsigned long long)st.documents,
           (unsigned long long)st.live_chunks);
    hx_index_close(ix);
    return 0;
}

/* Reads the regular file at path, at most max bytes (caller frees); NULL with errno set on failure:
 * EINVAL for anything but a regular file (a FIFO or a device is never waited on), EFBIG past max. */
static char *read_whole(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e = 0;
    struct stat st;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max)
        e = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
    else if (!(buf = hx_malloc(cap = (size_t)st.st_size + 1)))   /* + 1: a file that grew reads as too large */
        e = ENOMEM;
    while (!e && n < cap) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got == 0)
            break;
        if (got < 0 && errno != EINTR)
            e = errno;
        n += got > 0 ? (size_t)got : 0;
    }
    close(fd);
    if (!e && n > max)
        e = EFBIG;
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    *len = n;
    return buf;
}

/* Why read_whole failed, in words. */
static const char *read_error(int e)
{
    return e == EINVAL ? "not a regular file" : e == EFBIG ? "too large" : strerror(e);
}

/* `hyrax verify FILE...`: each file's signature against the project's trust store (sig.h).
 * Documents up to the indexing limit and signature files up to HX_SIG_MAX_FILE are read. */
static int verify_signatures(const char *const *files, size_t n)
{
    hx_trust *t = NULL;
    hx_error err = {0};
    if (hx_trust_load(&t, ".", &err)) {
        fprintf(stderr, "hyrax verify: trust store: %s\n", err.message);
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        size_t dlen = 0, slen = 0;
        char *doc = read_whole(files[i], HX_INGEST_DEFAULT_MAX_BYTES, &dlen), *sig = NULL, sig_path[4200] = "";
        int doc_errno = errno, sig_errno = ENOENT;
        for (int k = 0; doc && !sig && sig_errno == ENOENT && hx_sig_suffix(k); k++) {
            snprintf(sig_path, sizeof sig_path, "%s%s", files[i], hx_sig_suffix(k));
            sig = read_whole(sig_path, HX_SIG_MAX_FILE, &slen);
            sig_errno = sig ? 0 : errno;
        }
        hx_sig_result r;
        int rc = !doc || !sig ? -1 : hx_sig_verify(t, doc, dlen, sig, slen, &r, &err);
        if (rc == 0) {
            put_text(stdout, files[i], SIZE_MAX, false);
            printf(": ok, signed by ");
            put_text(stdout, r.signer, SIZE_MAX, false);
            printf(" (%s, key %s", hx_sig_format_name(r.format), r.key_id);
            if (r.comment[0]) {
                printf(", \"");
                put_text(stdout, r.comment, SIZE_MAX, false);
                putchar('"');
            }
            printf(")\n");
        } else {
            bad = 1;
            put_text(stderr, files[i], SIZE_MAX, false);
            if (!doc) {
                fprintf(stderr, ": cannot read: %s\n", read_error(doc_errno));
            } else if (!sig && sig_errno == ENOENT) {
                fputs(": not signed (no ", stderr);
                put_text(stderr, files[i], SIZE_MAX, false);
                fputs(".minisig or .sig)\n", stderr);
            } else if (!sig) {
                fputs(": cannot read its signature ", stderr);
                put_text(stderr, sig_path, SIZE_MAX, false);
                fprintf(stderr, ": %s\n", read_error(sig_errno));
            } else {
                fprintf(stderr, ": rejected: ");
                put_text(stderr, r.reason, SIZE_MAX, false);
                fputc('\n', stderr);
            }
        }
        free(doc);
        free(sig);
    }
    hx_trust_free(t);
    return bad;
}

static int cmd_verify(const cli_args *a)
{
    hx_identity id;
    db_job job = {db_opt(a), 0, NULL};
    if (identity_opt(a, "verify", &id, &job.identity))
        return 2;
    return a->n_operands ? verify_signatures(a->operands, a->n_operands) : guarded("verify", run_verify, &job);
}

/* === Audit log === */

static const char audit_about[] =
    "Lists the documents the validation gate refused to index, oldest first: when, path, content\n"
    "hash, rule and reason (README \"Validation gate and policy\"). The log is kept in the index\n"
    "file with the commit that rejected each document, survives compaction, and holds the newest\n"
    "10,000 entries.\n";

typedef struct {
    const char *db, *glob;
    int64_t since_ns;
    size_t limit;
    bool json;
} audit_job;

static int run_audit(void *arg)
{
    const audit_job *j = arg;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_audit_list l = {0};
    if (hx_index_open(&ix, j->db, HX_INDEX_READ, NULL, NULL, &err) || hx_index_audit(ix, &l, &err) ||
        hx_audit_list_select(&l, j->since_ns, j->glob, j->limit, &err)) {
        put_line(stderr, "hyrax audit: ", err.message);
        hx_audit_list_free(&l);
        hx_index_close(ix);
        return 1;
    }
    if (j->json) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_present_audit(&w, &l);
        if (!hx_json_writer_finish(&w, &err))
            printf("%s\n", w.buf);
        hx_json_writer_free(&w);
    } else {
        char when[40];
        for (size_t i = 0; i < l.n; i++) {
            const hx_audit_entry *e = &l.entries[i];
            hx_time_format(e->time_ns, when, sizeof when);
            printf("%s  %-12s ", when, e->rule);
            put_text(stdout, e->path, SIZE_MAX, false);
            printf("  %.12s\n    ", e->sha256[0] ? e->sha256 : "(not read)");
            put_text(stdout, e->reason, SIZE_MAX, false);
            fputc('\n', stdout);
        }
        printf("%zu entr%s\n", l.n, l.n == 1 ? "y" : "ies");
    }
    hx_audit_list_free(&l);
    hx_index_close(ix);
    return 0;
}

static int cmd_audit(const cli_args *a)
{
    audit_job job = {db_opt(a), opt_str(a, "--path"), 0, (size_t)opt_long(a, "--limit", 0), opt_str(a, "--json") != NULL};
    const char *since = opt_str(a, "--since");
    hx_error err = {0};
    if (since && hx_time_parse(since, &job.since_ns, &err)) {
        put_line(stderr, "hyrax audit: --since: ", err.message);
        return 2;
    }
    return guarded("audit", run_audit, &job);
}

static const char recover_about[] =
    "Makes a damaged index writable again. Readers already use the newest commit that can be proven\n"
    "(a commit whose meta slot is damaged is recovered from its commit record); writers refuse a\n"
    "file whose damage they cannot settle without destroying bytes past that commit. recover keeps\n"
    "that commit, rewrites the damaged meta slot and discards the bytes past it. A sound file is\n"
    "left as it is.\n";

static int cmd_recover(const cli_args *a)
{
    const char *db = db_opt(a);
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    if (hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_RECOVER, NULL, NULL, &err) ||
        hx_index_stats_get(ix, &st, &err)) {
        fprintf(stderr, "hyrax recover: %s: %s\n", db, err.message);
        hx_index_close(ix);
        return 1;
    }
    if (*hx_index_damage(ix))
        printf("%s: found: %s\n%s: recovered: generation %llu, %llu documents\n", db, hx_index_damage(ix), db,
               (unsigned long long)st.generation, (unsigned long long)st.documents);
    else
        printf("%s: sound, nothing to recover (generation %llu, %llu documents)\n", db,
               (unsigned long long)st.generation, (unsigned long long)st.documents);
    hx_index_close(ix);
    return 0;
}

static const char rm_about[] =
    "Removes documents from the index: a PATH that names a document removes exactly it, a folder\n"
    "removes every document under it; a PATH that names nothing (or the root) is an error and\n"
    "nothing is removed. PATH is relative to the indexed root, or a path on disk inside it. The\n"
    "files themselves are not touched, and 'hyrax index' leaves removed files out until a file is\n"
    "indexed again by its own name ('hyrax index docs/a.md'). Stored documents (add_document with\n"
    "content) are gone for good.\n";

static int cmd_rm(const cli_args *a)
{
    const char *db = db_opt(a);
    size_t n = a->n_operands;
    const char **paths = hx_calloc(n, sizeof *paths);
    char (*rel)[HX_RELPATH_MAX] = hx_calloc(n, sizeof *rel);
    int rc = 1;
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_update_report rep = {0};
    if (!paths || !rel) {
        fputs("hyrax rm: out of memory\n", stderr);
        goto done;
    }
    memcpy(paths, a->operands, n * sizeof *paths);
    if (hx_index_open(&ix, db, HX_INDEX_WRITE, NULL, NULL, &err)) {
        fprintf(stderr, "hyrax rm: %s\n", err.message);
        goto done;
    }
    const char *root = hx_index_root(ix);
    for (size_t i = 0; i < n; i++) {
        /* a path on disk (relative to the current folder) when one exists there inside the root,
         * else a root-relative name */
        struct stat st;
        int how = paths[i][0] == '/' || lstat(paths[i], &st) == 0 ? HX_TARGET_CWD : HX_TARGET_NAME;
        int trc = hx_fs_target(root, paths[i], how, rel[i], sizeof rel[i], &err);
        if (trc == HX_EPERM && how == HX_TARGET_CWD && paths[i][0] != '/')
            trc = hx_fs_target(root, paths[i], HX_TARGET_NAME, rel[i], sizeof rel[i], &err);
        if (!trc && !rel[i][0])
            trc = hx_error_set(&err, HX_EINVAL, -1, "'%.200s' names the indexed root, not a document", paths[i]);
        if (trc) {
            put_line(stderr, "hyrax rm: ", err.message);
            goto done;
        }
        paths[i] = rel[i];
    }
    if (hx_index_remove(ix, paths, n, HX_REMOVE_FOLDERS, &rep, &err)) {
        fprintf(stderr, "hyrax rm: %s\n", err.message);
        goto done;
    }
    printf("removed %zu documents (%zu chunks)\n", rep.removed, rep.chunks_removed);
    if (rep.warning[0])
        fprintf(stderr, "hyrax rm: warning: %s\n", rep.warning);
    rc = 0;
done:
    hx_update_report_clear(&rep);
    hx_index_close(ix);
    free(paths);
    free(rel);
    return rc;
}

/* === baseline, baselines, compact === */

#define TEXT_OF_(x) #x
#define TEXT_OF(x) TEXT_OF_(x)   /* a number macro as a string literal, for help texts */

static const char baseline_about[] =
    "Names the current state of the index NAME (a commit; nothing is copied), so 'hyrax search\n"
    "--baseline NAME' and MCP read_context {selector: baseline_id, baseline_id: NAME} read it later,\n"
    "also after compaction. Naming again moves the name to the current state. NAME is 1 to 64\n"
    "letters, digits, '.', '_', ':' or '-'; the name published is what read_context\n"
    "{selector: published} reads.\n";

static int cmd_baseline(const cli_args *a)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_commit_info made;
    int rc = 1;
    if (hx_index_open(&ix, db_opt(a), HX_INDEX_WRITE, NULL, NULL, &err) ||
        hx_index_baseline(ix, a->operands[0], &made, &err)) {
        put_line(stderr, "hyrax baseline: ", err.message);
    } else {
        char when[40];
        hx_time_format(made.committed_ns, when, sizeof when);
        printf("baseline %s = generation %llu, committed %s\n", made.name, (unsigned long long)made.generation,
               when);
        rc = 0;
    }
    hx_index_close(ix);
    return rc;
}

static const char baselines_about[] =
    "Lists the baselines (the newest commit of each name, newest first) and the commits the index\n"
    "keeps, which 'hyrax search --as-of TIME' can read.\n";

static int cmd_baselines(const cli_args *a)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_commit_info *h = NULL;
    size_t n = 0;
    char when[40];
    if (hx_index_open(&ix, db_opt(a), HX_INDEX_READ, NULL, NULL, &err) || hx_index_history(ix, &h, &n, &err) || !n) {
        put_line(stderr, "hyrax baselines: ", n ? err.message : "the index has no commits");
        hx_index_close(ix);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        bool newest = h[i].name[0] != 0;
        for (size_t j = 0; j < i && newest; j++)
            newest = strcmp(h[j].name, h[i].name) != 0;
        if (!newest)
            continue;
        hx_time_format(h[i].committed_ns, when, sizeof when);
        printf("%-24s generation %llu, committed %s\n", h[i].name, (unsigned long long)h[i].generation, when);
    }
    hx_time_format(h[n - 1].committed_ns, when, sizeof when);
    printf("kept: %zu commits, generations %llu to %llu, the oldest committed %s\n", n,
           (unsigned long long)h[n - 1].generation, (unsigned long long)h[0].generation, when);
    free(h);
    hx_index_close(ix);
    return 0;
}

static const char compact_about[] =
    "Rewrites the index into one segment without deleted chunks. Keeps every baseline (the newest\n"
    "commit of each name) and the last " TEXT_OF(HX_KEEP_COMMITS) " commits, so searches of them answer as before.\n";

static int cmd_compact(const cli_args *a)
{
    hx_index *ix = NULL;
    hx_error err = {0};
    hx_index_stats st;
    int rc = 1;
    if (hx_index_open(&ix, db_opt(a), HX_INDEX_WRITE, NULL, NULL, &err) || hx_index_compact(ix, &err) ||
        hx_index_stats_get(ix, &st, &err)) {
        put_line(stderr, "hyrax compact: ", err.message);
    } else {
        printf("compacted: generation %llu, %llu documents, %.1f MiB\n", (unsigned long long)st.generation,
               (unsigned long long)st.documents, (double)st.file_bytes / 1048576.0);
        rc = 0;
    }
    hx_index_close(ix);
    return rc;
}

/* === serve === */

static const char serve_about[] =
    "Runs a Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one message per line; logs\n"
    "on stderr), or with --http HOST:PORT an HTTP/1.1 server: REST (/search, /health, /stats),\n"
    "/metrics and MCP Streamable HTTP on /mcp. Tools: search, get_context, find_similar,\n"
    "list_documents, get_document, document_status, add_document, delete_document, reindex,\n"
    "index_health, create_baseline, audit_log, publish, the conversation memory's record_turn,\n"
    "get_session, search_history and list_sessions, and the seeds' names for the search tools.\n"
    "--tenant T [--user U] fixes the reader identity for the server's life; --watch follows the root.\n";

static int stop_pipe[2] = {-1, -1};

/* SIGTERM / SIGINT: tell the server through a pipe (write(2) is async-signal-safe). */
static void on_stop_signal(int sig)
{
    (void)sig;
    char b = 1;
    ssize_t n = write(stop_pipe[1], &b, 1);
    (void)n;
}

/* serve --http: the address bound, once, on stderr (port 0 picked one). */
static void on_listen(void *ctx, const char *addr)
{
    (void)ctx;
    fprintf(stderr, "hyrax serve: listening on http://%s\n", addr);
}

/* The bearer token: the first line of path, without its line end; 0 or 1 after a message. */
static int read_token(const char *path, char *tok, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f || !fgets(tok, (int)cap, f)) {
        fprintf(stderr, "hyrax serve: cannot read --token-file %s: %s\n", path, f ? "it is empty" : strerror(errno));
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    tok[strcspn(tok, "\r\n")] = 0;
    if (strlen(tok) < 16) {
        fprintf(stderr, "hyrax serve: the token in %s is shorter than 16 characters\n", path);
        return 1;
    }
    return 0;
}

static int cmd_serve(const cli_args *a)
{
    hx_mcp_config cfg = {.db = db_opt(a), .weights = opt_str(a, "--model"), .read_only = opt_str(a, "--read-only") != NULL,
                         .threads = (int)opt_long(a, "--threads", 0), .stop_fd = -1};
    hx_identity id;
    if (identity_opt(a, "serve", &id, &cfg.identity))
        return 2;
    cfg.memory_limits.per_session = (uint32_t)opt_long(a, "--memory-per-session", 0);
    cfg.memory_limits.total = (uint32_t)opt_long(a, "--memory-total", 0);
    cfg.memory_limits.identities = (uint32_t)opt_long(a, "--memory-identities", 0);
    cfg.watch = opt_str(a, "--watch") != NULL || opt_str(a, "--watch-poll") != NULL;
    cfg.watch_poll_ms = (int)opt_long(a, "--watch-poll", 0);
    const char *root_arg = opt_str(a, "--root") ? opt_str(a, "--root") : ".";
    char root[4096];
    if (!realpath(root_arg, root)) {
        fprintf(stderr, "hyrax serve: cannot resolve --root %s: %s\n", root_arg, strerror(errno));
        return 1;
    }
    cfg.root = root;
    char user_db[4096];   /* the user tier, searched with the project (README "Tiers") */
    cfg.user_db = hx_tier_user_path(user_db, sizeof user_db, NULL) == 0 ? user_db : NULL;
    cfg.registry = opt_str(a, "--registry");
    cfg.registry_timeout_ms = (int)opt_long(a, "--registry-timeout", 0);
    if (!cfg.read_only && make_db_folder("serve", cfg.db))
        return 1;
    if (pipe(stop_pipe) != 0) {
        fprintf(stderr, "hyrax serve: pipe: %s\n", strerror(errno));
        return 1;
    }
    cfg.stop_fd = stop_pipe[0];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);   /* a client that goes away gives EPIPE, not death */
    hx_error err = {0};
    char token[512];
    hx_http_config http = {.listen = opt_str(a, "--http"), .on_listen = on_listen,
                           .max_buffered = (size_t)opt_long(a, "--http-buffer", 0) << 20};
    const char **allow = hx_calloc(a->n + 1, sizeof *allow);   /* borrowed from argv */
    for (size_t pos = 0; allow && (allow[http.n_allow_hosts] = opt_next(a, "--allow-host", &pos));)
        http.n_allow_hosts++;
    http.allow_hosts = allow;
    int rc = 0;
    if (!allow) {
        fprintf(stderr, "hyrax serve: out of memory\n");
        rc = -1;
    } else if ((opt_str(a, "--token-file") || http.n_allow_hosts) && !http.listen) {
        fprintf(stderr, "hyrax serve: %s goes with --http\n", http.n_allow_hosts ? "--allow-host" : "--token-file");
        rc = -1;
    } else if (opt_str(a, "--token-file") && read_token(opt_str(a, "--token-file"), token, sizeof token)) {
        rc = -1;
    } else {
        http.token = opt_str(a, "--token-file") ? token : NULL;
        rc = http.listen ? hx_http_serve(&cfg, &http, &err) : hx_mcp_serve(0, 1, &cfg, &err);
        if (rc)
            fprintf(stderr, "hyrax serve: %s\n", err.message);
    }
    free(allow);
    close(stop_pipe[0]);
    close(stop_pipe[1]);
    return rc ? 1 : 0;
}

/* === sync (README "Tiers") === */

static const char sync_about[] =
    "Copies documents of the project index up to the user index: each file under PATH that the\n"
    "project index (--db) holds is read again from disk, checked as 'hyrax index' checks a file, and\n"
    "stored in the user index as <project folder name>/<path>, with the metadata origin_root,\n"
    "origin_path and origin_sha256. A document the user index holds with the same bytes is left\n"
    "as it is. The user index is $HYRAX_USER_DB, else $XDG_DATA_HOME/hyrax/user.hyx, else\n"
    "~/.local/share/hyrax/user.hyx; the first sync creates it (its root is its folder; it holds\n"
    "stored documents only). 'hyrax search' reads it with the project index.\n";

/* Makes the folders on the way to the file `path` (mkdir -p of its folder); 0, or 1 after the message. */
static int make_parents(const char *cmd, const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "hyrax %s: cannot create %s: %s\n", cmd, dir, strerror(errno));
            return 1;
        }
        *p = '/';
    }
    return 0;
}

static int cmd_sync(const cli_args *a)
{
    const char *db = db_opt(a);
    char user_db[4096], user_root[4096];
    char (*names)[HX_RELPATH_MAX] = hx_calloc(a->n_operands, sizeof *names);
    const char **paths = hx_calloc(a->n_operands, sizeof *paths);
    hx_precision precision, theirs;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_index *proj = NULL, *user = NULL;
    hx_update_report rep = {0};
    hx_error err = {0};
    int rc = 1;
    if (!names || !paths) {
        fputs("hyrax sync: out of memory\n", stderr);
        goto done;
    }
    if (!opt_str(a, "--to")) {
        fputs("hyrax sync: give --to user (the tier to copy to)\n", stderr);
        rc = 2;
        goto done;
    }
    if (hx_tier_user_path(user_db, sizeof user_db, &err) || hx_index_precision(db, &precision, &err))
        goto fail;
    int found = hx_index_precision(user_db, &theirs, &err);
    if (found && found != HX_ENOTFOUND)
        goto fail;
    if (!found && theirs != precision) {
        fprintf(stderr, "hyrax sync: the user index %s holds %s vectors and the project index %s: one query vector "
                "serves both, so their precisions must match\n", user_db, hx_precision_name(theirs),
                hx_precision_name(precision));
        goto done;
    }
    if (open_encoder(a, (int)opt_long(a, "--threads", 0), precision, &model, &enc))
        goto done;
    if (hx_index_open(&proj, db, HX_INDEX_READ, model, NULL, &err))
        goto fail;
    for (size_t i = 0; i < a->n_operands; i++) {
        if (hx_fs_target(hx_index_root(proj), a->operands[i], HX_TARGET_CWD, names[i], sizeof names[i], &err))
            goto fail;
        paths[i] = names[i];
    }
    char *slash = strrchr(user_db, '/');
    snprintf(user_root, sizeof user_root, "%.*s", slash ? (int)(slash - user_db) : 1, slash ? user_db : ".");
    if (make_parents("sync", user_db))
        goto done;
    char resolved[4096];
    if (!realpath(*user_root ? user_root : "/", resolved)) {
        fprintf(stderr, "hyrax sync: cannot resolve %s: %s\n", user_root, strerror(errno));
        goto done;
    }
    if (hx_index_open(&user, user_db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, resolved, &err))
        goto fail;
    progress_state prog = {isatty(2), (size_t)-1, (double)opt_long(a, "--progress-every", 5), now_seconds(), 0, false,
                           "sync"};
    prog.last = prog.start;
    catch_interrupts();
    int sync_rc = hx_tier_sync(proj, user, paths, a->n_operands, enc, index_progress, &prog, &rep, &err);
    if (sync_rc == HX_ECANCELED && interrupted) {
        put_line(stderr, "hyrax sync: interrupted: ", err.message);
        rc = 130;
        goto done;
    }
    if (sync_rc)
        goto fail;
    for (size_t i = 0; i < rep.n_rejected; i++)
        put_line(stderr, "hyrax sync: rejected ", rep.rejected[i].reason);
    if (rep.warning[0])
        put_line(stderr, "hyrax sync: warning: ", rep.warning);
    hx_index_stats st;
    if (hx_index_stats_get(user, &st, &err))
        goto fail;
    printf("added %zu, updated %zu, unchanged %zu, rejected %zu (+%zu/-%zu chunks) in %.2f s\n", rep.added, rep.updated,
           rep.unchanged, rep.n_rejected, rep.chunks_added, rep.chunks_removed, now_seconds() - prog.start);
    put_text(stdout, user_db, SIZE_MAX, false);
    printf(": %llu documents, %llu chunks, generation %llu (user tier)\n", (unsigned long long)st.documents,
           (unsigned long long)st.live_chunks, (unsigned long long)st.generation);
    rc = 0;
    goto done;
fail:
    put_line(stderr, "hyrax sync: ", err.message);
done:
    hx_update_report_clear(&rep);
    hx_index_close(user);
    hx_index_close(proj);
    hx_encoder_free(enc);
    hx_model_close(model);
    free(names);
    free(paths);
    return rc;
}

/* === history === */

static const char history_about[] =
    "Without SESSION: the sessions of the conversation memory (record_turn over MCP), newest first.\n"
    "With SESSION: its turns in order. Only the turns recorded by the identity given with --tenant and\n"
    "--user are shown (none given: the turns recorded without one).\n";

/* The session list as text, from the one grouping hx_present_sessions makes. */
static int print_sessions(const hx_json_writer *w)
{
    hx_json_doc *doc = NULL;
    hx_error err = {0};
    if (hx_json_parse(&doc, w->buf, w->len, NULL, &err)) {
        fprintf(stderr, "hyrax history: %s\n", err.message);
        return 1;
    }
    const hx_json_val *list = hx_json_obj_get(hx_json_doc_root(doc), "sessions");
    for (size_t i = 0; i < hx_json_len(list); i++) {
        const hx_json_val *e = hx_json_arr_get(list, i);
        int64_t turns = 0;
        hx_json_num_int64(hx_json_obj_get(e, "turns"), &turns, NULL);
        put_text(stdout, hx_json_str(hx_json_obj_get(e, "session_id"), NULL), 200, false);
        printf("  %lld turns, last %s\n", (long long)turns, hx_json_str(hx_json_obj_get(e, "last_turn_at"), NULL));
    }
    hx_json_doc_free(doc);
    return 0;
}

static int print_history(const cli_args *a, const hx_memory *m, const char *tenant, const char *user)
{
    const char *session = a->n_operands ? a->operands[0] : NULL;
    hx_error err = {0};
    if (opt_str(a, "--json") || !session) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        int rc = 0;
        if (session)
            hx_present_session(&w, m, session, tenant, user);
        else
            rc = hx_present_sessions(&w, m, tenant, user);
        if (!rc && !(rc = hx_json_writer_finish(&w, &err)))
            rc = opt_str(a, "--json") ? (printf("%s\n", w.buf), 0) : print_sessions(&w);
        else
            fprintf(stderr, "hyrax history: %s\n", err.message[0] ? err.message : hx_strerror(rc));
        hx_json_writer_free(&w);
        return rc ? 1 : 0;
    }
    for (size_t i = 0; m && i < hx_memory_count(m); i++) {
        const hx_turn *t = hx_memory_turn(m, i);
        if (!hx_memory_visible(t, tenant, user) || strcmp(t->session, session))
            continue;
        char when[64];
        hx_time_format(t->at_ns, when, sizeof when);
        printf("#%u  %s", t->number, when);
        if (*t->search_method)
            printf("  %s", t->search_method);
        if (!isnan(t->relevance))
            printf("  relevance %.3f", t->relevance);
        putchar('\n');
        put_line(stdout, "user:  ", t->user_message);
        put_line(stdout, "agent: ", t->agent_response);
        for (size_t d = 0; d < t->n_docs; d++)
            put_line(stdout, "doc:   ", t->docs[d]);
    }
    return 0;
}

static int cmd_history(const cli_args *a)
{
    char path[4096];
    hx_error err = {0};
    hx_memory *m = NULL;
    const char *tenant = opt_str(a, "--tenant") ? opt_str(a, "--tenant") : "";
    const char *user = opt_str(a, "--user") ? opt_str(a, "--user") : "";
    int rc = hx_memory_path(db_opt(a), path, sizeof path, &err);
    if (!rc)
        rc = hx_memory_open(&m, path, HX_STORE_READ, &err);
    if (rc && rc != HX_ENOTFOUND) {
        fprintf(stderr, "hyrax history: %s\n", err.message);
        return 1;
    }
    rc = print_history(a, m, tenant, user);
    hx_memory_close(m);
    return rc;
}

/* === Dispatch === */

/* === registry tier (issue 13): registry init, publish, search --source registry === */

static const char registry_about[] =
    "Creates the registry's schema in a PostgreSQL database with pgvector (schema hyrax: tables\n"
    "documents, chunks, audit, meta; HNSW and GIN indexes; row-level security per tenant), or\n"
    "migrates an older one. Run it once as the role that is to own the tables.\n";

static const char publish_about[] =
    "Publishes the files under each PATH to the registry: each is read and chunked as 'hyrax index'\n"
    "does, must carry a valid signature (FILE.minisig or FILE.sig by a key of .hyrax/trusted or\n"
    ".hyrax/allowed_signers under --root) unless --allow-unsigned, is embedded here, and is\n"
    "stored for the tenant in one transaction per batch. Unchanged documents (same content hash)\n"
    "are skipped; the tenant's documents under PATH that are gone are removed. Progress on stderr.\n";

/* Connects to the registry the options name (as --tenant, for the commands that take it). */
static int registry_open(const cli_args *a, int timeout_ms, hx_registry **r, hx_error *err)
{
    bool admin = a->cmd->bit == CMD_REGISTRY;
    hx_registry_opts ro = {opt_str(a, "--registry"), admin ? NULL : opt_str(a, "--tenant"),
                           admin ? NULL : opt_str(a, "--user"), timeout_ms,
                           (int)opt_long(a, "--registry-timeout", HX_REGISTRY_CONNECT_TIMEOUT_MS)};
    if (a->cmd->bit == CMD_SEARCH)   /* a search's timeout is its whole budget */
        ro.connect_timeout_ms = 0;
    return hx_registry_connect(r, &ro, err);
}

static int cmd_registry(const cli_args *a)
{
    if (strcmp(a->operands[0], "init")) {
        fputs("hyrax registry: the action is init\n", stderr);
        return 2;
    }
    hx_registry *r = NULL;
    hx_error err = {0};
    int before = 0;
    if (registry_open(a, 0, &r, &err) || hx_registry_migrate(r, HX_REGISTRY_SCHEMA_VERSION, &before, &err)) {
        put_line(stderr, "hyrax registry init: ", err.message);
        hx_registry_close(r);
        return 1;
    }
    hx_registry_close(r);
    if (before == HX_REGISTRY_SCHEMA_VERSION)
        printf("registry schema is at version %d\n", before);
    else
        printf("registry schema %s version %d (was %d)\n", before ? "migrated to" : "created at",
               HX_REGISTRY_SCHEMA_VERSION, before);
    return 0;
}

static int publish_progress(void *ctx, size_t done, size_t total, const char *path)
{
    (void)ctx;
    if (interrupted)
        return 1;
    fprintf(stderr, "publish: %zu/%zu files", done, total);
    if (path)
        put_line(stderr, ", last ", path);
    else
        fputc('\n', stderr);
    return 0;
}

static int cmd_publish(const cli_args *a)
{
    char root[4096];
    const char *root_arg = opt_str(a, "--root") ? opt_str(a, "--root") : ".";
    if (!realpath(root_arg, root)) {
        fprintf(stderr, "hyrax publish: --root %s: %s\n", root_arg, strerror(errno));
        return 2;
    }
    hx_error err = {0};
    int rc = 1;
    hx_registry *r = NULL;
    hx_trust *trust = NULL;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_publish_report rep = {0};
    char (*targets)[4096] = hx_calloc(a->n_operands, sizeof *targets);
    const char **tp = hx_calloc(a->n_operands, sizeof *tp);
    if (!targets || !tp) {
        fputs("hyrax publish: out of memory\n", stderr);
        goto done;
    }
    for (size_t i = 0; i < a->n_operands; i++) {
        if (hx_fs_target(root, a->operands[i], HX_TARGET_CWD, targets[i], sizeof targets[i], &err)) {
            put_line(stderr, "hyrax publish: ", err.message);
            rc = 2;
            goto done;
        }
        tp[i] = targets[i];
    }
    if (hx_trust_load(&trust, root, &err) || registry_open(a, 0, &r, &err)) {
        put_line(stderr, "hyrax publish: ", err.message);
        goto done;
    }
    if (open_encoder(a, 0, HX_PRECISION_FP32, &model, &enc))
        goto done;
    hx_publish_opts po = {root, tp, a->n_operands, trust, opt_str(a, "--allow-unsigned") != NULL,
                          opt_str(a, "--visibility"), (size_t)opt_long(a, "--batch", 0), publish_progress, NULL};
    catch_interrupts();
    int prc = hx_publish(r, enc, model, &po, &rep, &err);
    for (size_t i = 0; i < rep.n_rejected; i++) {
        put_text(stderr, rep.rejected[i].path, SIZE_MAX, false);
        put_line(stderr, ": rejected: ", rep.rejected[i].reason);
    }
    if (prc) {
        put_line(stderr, prc == HX_ECANCELED && interrupted ? "hyrax publish: interrupted: " : "hyrax publish: ",
                 err.message);
        rc = prc == HX_ECANCELED && interrupted ? 130 : 1;
        goto done;
    }
    printf("published %zu, unchanged %zu, removed %zu, rejected %zu; %zu chunks (embedding %.2f s, registry %.2f s)\n",
           rep.published, rep.unchanged, rep.removed, rep.n_rejected, rep.chunks, rep.embed_s, rep.store_s);
    rc = rep.n_rejected ? 1 : 0;
done:
    hx_publish_report_clear(&rep);
    hx_encoder_free(enc);
    hx_model_close(model);
    hx_registry_close(r);
    hx_trust_free(trust);
    free(targets);
    free(tp);
    return rc;
}

/* `hyrax search --source registry`: embeds the query, asks the registry within --registry-timeout
 * and prints its results. An unreachable or slow registry is not an error: the answer says it was
 * not consulted (JSON "registry": {"consulted": false, "reason"}) and has no results. */
static int search_registry(const cli_args *a, const char *query, const hx_search_opts *o, int64_t as_of_ns)
{
    hx_error err = {0};
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_registry *r = NULL;
    hx_registry_results res = {0};
    float vec[HX_EMBED_DIM];
    int rc = 1, consulted = 0;
    if (o->mode != HX_MODE_KEYWORD) {
        size_t len = strlen(query);
        if (open_encoder(a, 1, HX_PRECISION_FP32, &model, &enc))
            return 1;
        if (hx_encoder_embed(enc, &query, &len, 1, vec, &err)) {
            put_line(stderr, "hyrax search: ", err.message);
            goto done;
        }
    }
    hx_registry_query q = {query, o->mode != HX_MODE_KEYWORD ? vec : NULL, o->mode, o->k, o->filters, o->n_filters,
                           o->min_score, as_of_ns};
    int timeout = (int)opt_long(a, "--registry-timeout", HX_REGISTRY_TIMEOUT_MS);
    int src = registry_open(a, timeout, &r, &err);
    if (!src)
        src = hx_registry_search(r, &q, &res, &err);
    if (src == HX_ENOMEM || src == HX_EINVAL) {
        put_line(stderr, "hyrax search: ", err.message);
        goto done;
    }
    consulted = src == 0;
    if (!consulted)
        put_line(stderr, "hyrax search: warning: registry not consulted: ", err.message);
    if (opt_str(a, "--json")) {
        hx_json_writer w;
        hx_json_writer_init(&w);
        hx_present_registry_search(&w, query, o->mode, &res, consulted ? NULL : err.message);
        if (hx_json_writer_finish(&w, &err)) {
            put_line(stderr, "hyrax search: ", err.message);
            hx_json_writer_free(&w);
            goto done;
        }
        fwrite(w.buf, 1, w.len, stdout);
        putchar('\n');
        hx_json_writer_free(&w);
    } else {
        print_results_text(&res.res);
    }
    rc = fflush(stdout) ? 1 : 0;
done:
    hx_registry_results_free(&res);
    hx_registry_close(r);
    hx_encoder_free(enc);
    hx_model_close(model);
    return rc;
}

/* === end registry tier === */

static const cli_cmd commands[] = {
    {"tokenize", CMD_TOKENIZE, "< LINES", 0, 0, "stdin lines -> one JSON array of token ids per line", tokenize_about,
     cmd_tokenize},
    {"embed", CMD_EMBED, "< LINES", 0, 0, "stdin lines -> one JSON array of 384 floats per line", embed_about, cmd_embed},
    {"index", CMD_INDEX, "PATH...", 1, -1, "index files and folders (incremental) into " DEFAULT_DB, index_about,
     cmd_index},
    {"search", CMD_SEARCH, "QUERY...", 1, -1, "hybrid, vector or keyword search over the index", search_about,
     cmd_search},
    {"stats", CMD_STATS, "", 0, 0, "counts, sizes, last commit and model of the index", stats_about, cmd_stats},
    {"verify", CMD_VERIFY, "[FILE...]", 0, -1, "check every checksum of the index, or the signatures of files",
     verify_about, cmd_verify},
    {"rm", CMD_RM, "PATH...", 1, -1, "remove documents from the index", rm_about, cmd_rm},
    {"baseline", CMD_BASELINE, "NAME", 1, 1, "name the current state of the index (search it with --baseline NAME)",
     baseline_about, cmd_baseline},
    {"baselines", CMD_BASELINES, "", 0, 0, "list the baselines and the commits the index keeps", baselines_about,
     cmd_baselines},
    {"compact", CMD_COMPACT, "", 0, 0, "rewrite the index into one segment, keeping baselines and recent commits",
     compact_about, cmd_compact},
    {"audit", CMD_AUDIT, "", 0, 0, "list the documents the validation gate rejected", audit_about, cmd_audit},
    {"recover", CMD_RECOVER, "", 0, 0, "make a damaged index writable again, keeping its newest provable commit",
     recover_about, cmd_recover},
    {"history", CMD_HISTORY, "[SESSION]", 0, 1, "the conversation memory: sessions, or one session's turns",
     history_about, cmd_history},
    {"serve", CMD_SERVE, "", 0, 0, "MCP server (JSON-RPC 2.0 over stdio) for AI agents", serve_about, cmd_serve},
    {"sync", CMD_SYNC, "PATH...", 1, -1, "copy project documents up to the user index (--to user)", sync_about,
     cmd_sync},
    {"registry", CMD_REGISTRY, "init", 1, 1, "create or migrate the registry's schema (PostgreSQL + pgvector)",
     registry_about, cmd_registry},
    {"publish", CMD_PUBLISH, "PATH...", 1, -1, "publish signed documents to the registry", publish_about, cmd_publish},
};

static void usage(FILE *f)
{
    fputs("usage: hyrax COMMAND [OPTIONS]\n\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s %s", commands[i].name, commands[i].operands[0] == '<' ? "" : commands[i].operands);
        fprintf(f, "  %-18s  %s\n", name, commands[i].summary);
    }
    fputs("\nRun 'hyrax COMMAND --help' for the options of a command; -- ends the options.\n"
          "'hyrax --version' prints the version.\n", f);
}

int main(int argc, char **argv)
{
    struct sigaction fault;
    memset(&fault, 0, sizeof fault);
    fault.sa_handler = on_fault;
    sigemptyset(&fault.sa_mask);
    sigaction(SIGBUS, &fault, &fault_before[0]);
    sigaction(SIGSEGV, &fault, &fault_before[1]);
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
        printf("hyrax %s\n", hx_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            cli_args a;
            int rc = cli_parse(&commands[i], argc - 1, argv + 1, &a);
            if (rc < 0)
                rc = commands[i].run(&a);
            args_free(&a);
            return rc;
        }
    fprintf(stderr, "hyrax: unknown command '");
    put_text(stderr, argv[1], 200, false);
    fputs("'\n", stderr);
    usage(stderr);
    return 2;
}
