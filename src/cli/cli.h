/* cli.h: what the files of the command line share (DESIGN.md "Command line"): the command bits and
 * rows, the option table's types and lookups (options.c), terminal-safe output and progress
 * (output.c), colour and wrapping (term.c), the openers (open.c), the index file found upward
 * (discover.c), the help topics (help.c), "did you mean" (suggest.c) and what main.c keeps for the
 * commands. Not part of the library. */
#ifndef HX_CLI_H
#define HX_CLI_H

#include "hyrax.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
    CMD_HELP = 1u << 17,
    CMD_VERSION = 1u << 18,
    CMD_COMPLETION = 1u << 19,
    CMD_LS = 1u << 20,
    CMD_SHOW = 1u << 21,
    CMD_MODELS = 1u << 22,
    CMD_INSTALL = 1u << 23,
    CMD_ALL = (1u << 24) - 1,
    CMD_DB = CMD_INDEX | CMD_SEARCH | CMD_STATS | CMD_VERIFY | CMD_RM | CMD_RECOVER | CMD_SERVE | CMD_BASELINE |
             CMD_BASELINES | CMD_COMPACT | CMD_AUDIT | CMD_SYNC | CMD_HISTORY | CMD_LS | CMD_SHOW,
    CMD_MODEL = CMD_TOKENIZE | CMD_EMBED | CMD_INDEX | CMD_SEARCH | CMD_SERVE | CMD_SYNC | CMD_PUBLISH | CMD_REGISTRY,
    CMD_READER = CMD_SEARCH | CMD_STATS | CMD_VERIFY | CMD_SERVE | CMD_HISTORY | CMD_LS | CMD_SHOW,   /* read documents: take an identity */
};

/* One option of one or more commands. The table in options.c is the only place an option is declared:
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

/* === Options (options.c) === */

void args_free(cli_args *a);
const char *opt_str(const cli_args *a, const char *name);
long opt_long(const cli_args *a, const char *name, long def);
const char *db_opt(const cli_args *a);
const char *db_opt_from(const cli_args *a, const char *from);
const char *opt_next(const cli_args *a, const char *name, size_t *pos);
int cli_parse(const cli_cmd *c, int argc, char **argv, cli_args *a);
int precision_opt(const cli_args *a, hx_precision *out);
int identity_opt(const cli_args *a, const char *cmd, hx_identity *id, const hx_identity **out);
const cli_opt *cli_options(size_t *n);
void cli_cmd_help(const cli_cmd *c, FILE *f);

/* === The commands (main.c), help and completion (cmd_help.c) === */

const cli_cmd *cli_commands(size_t *n);
const cli_cmd *cli_command(const char *name);
const char *cli_operand_choice(const cli_cmd *c, size_t i);
void cli_usage(FILE *f);

/* === Help topics (help.c; the text of src/cli/help/NAME.md, compiled in by topics.awk) === */

typedef struct {
    const char *name;                /* "search": the file's name */
    const char *page;                /* its man page: "hyrax-search", or "hyrax" for the main page */
    const char *summary;             /* its title line after "# PAGE: " */
    const char *text;                /* the whole Markdown file */
} help_topic;

extern const help_topic help_topics[];   /* by name */
extern const size_t help_n_topics;
const help_topic *help_topic_find(const char *name);   /* NULL: the main page's */
void help_put_text(FILE *f, const help_topic *t);
void help_put_man(FILE *f, const help_topic *t);

/* === The index file: --db, $HYRAX_DB, else found upward (discover.c) === */

#define HX_DB_ENV "HYRAX_DB"
const char *db_find(const char *from, bool *found);

/* === "Did you mean" (suggest.c) === */

const char *suggest(const char *word, const char *const *cands, size_t n);
int filter_keys_check(const char *cmd, hx_session *s, const hx_session_query *q);

/* === The terminal: colour, width, match markers (term.c) === */

void term_setup(const cli_args *a);
int term_width(void);
void term_style(FILE *f, const char *style);
bool term_colored(void);
void put_snippet(FILE *f, const char *snippet, int indent);
const char *plural(size_t n, const char *one, const char *many);

/* === Output (output.c) === */

/* The progress of index or sync on stderr (index_progress is its hx_progress_fn). */
typedef struct {
    int tty;
    size_t last_pct;           /* terminal: the percentage the bar shows */
    double every;              /* not a terminal: seconds between lines */
    double start, last;        /* now_seconds() at the start and at the last line */
    bool printed;              /* a line went out, so the end gets one too */
    const char *cmd;           /* the command a line names: "index", "sync" */
} progress_state;

void put_text(FILE *f, const char *s, size_t max, bool fold_lines);
void put_line(FILE *f, const char *prefix, const char *text);
/* "line L, column C" of byte offset off in text[0..len), into buf (a message about a file). */
void text_position(const char *text, size_t len, size_t off, char *buf, size_t cap);
int put_numbers(const int32_t *ids, const float *v, size_t n);
double now_seconds(void);
int index_progress(void *ctx, size_t done, size_t total, const char *path);

/* === Opening (open.c) === */

int make_db_folder(const char *cmd, const char *db);
int open_reader(hx_index **ix, const char *db, const hx_model *model, const hx_identity *id, hx_error *err);
int registry_session(const cli_args *a, const hx_identity *id, const char *root, hx_session **s, hx_error *err);
int read_session(const char *db, const hx_identity *id, hx_session **s, hx_error *err);
int command_session(const cli_args *a, const char *cmd, hx_session **s);

/* What a read command run under guarded() with its session reads: ls, show. */
typedef struct {
    const cli_args *a;
    hx_session *s;               /* borrowed: the command's read session */
} session_job;

int guarded_session(const cli_args *a, const char *cmd, int (*fn)(void *));

/* === Signals (main.c) === */

extern volatile sig_atomic_t interrupted;
void catch_interrupts(void);
void catch_stop_signals(int fd);
int guarded(const char *cmd, int (*fn)(void *), void *arg);

/* What a read command run under guarded() reads: stats, verify. */
typedef struct {
    const char *db;
    int json;
    const hx_identity *identity; /* the reader's, or NULL */
} db_job;

/* === Commands (cmd_*.c): help texts and run functions === */

extern const char models_about[];
int cmd_models(const cli_args *a);
extern const char tokenize_about[];
int cmd_tokenize(const cli_args *a);
extern const char embed_about[];
int cmd_embed(const cli_args *a);
extern const char index_about[];
int cmd_index(const cli_args *a);
extern const char search_about[];
int cmd_search(const cli_args *a);
extern const char stats_about[];
int cmd_stats(const cli_args *a);
extern const char verify_about[];
int cmd_verify(const cli_args *a);
extern const char rm_about[];
int cmd_rm(const cli_args *a);
extern const char baseline_about[];
int cmd_baseline(const cli_args *a);
extern const char baselines_about[];
int cmd_baselines(const cli_args *a);
extern const char compact_about[];
int cmd_compact(const cli_args *a);
extern const char audit_about[];
int cmd_audit(const cli_args *a);
extern const char recover_about[];
int cmd_recover(const cli_args *a);
extern const char history_about[];
int cmd_history(const cli_args *a);
extern const char serve_about[];
int cmd_serve(const cli_args *a);
extern const char sync_about[];
int cmd_sync(const cli_args *a);
extern const char registry_about[];
int cmd_registry(const cli_args *a);
extern const char publish_about[];
int cmd_publish(const cli_args *a);
extern const char help_about[];
int cmd_help(const cli_args *a);
extern const char version_about[];
int cmd_version(const cli_args *a);
extern const char completion_about[];
int cmd_completion(const cli_args *a);
extern const char ls_about[];
int cmd_ls(const cli_args *a);
extern const char show_about[];
int cmd_show(const cli_args *a);
extern const char install_about[];
int cmd_install(const cli_args *a);
const char *install_client(size_t i);

/* install_toml.c: the [mcp_servers.hyrax] table for the command line argv[0..n) (argv[0] the
 * executable), and the file text old[0..len) (NULL: none) with it replaced or appended: *out
 * (caller frees; NULL when the text has it already), 0, or 1 after a message naming path. */
void install_toml_table(FILE *f, const char *const *argv, size_t n);
int install_toml_merge(const char *path, const char *old, size_t len, const char *const *argv, size_t n, char **out,
                       size_t *out_len);

#endif
