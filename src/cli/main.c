/* main.c: the hyrax command line (DESIGN.md "Command line"): the command table, dispatch and the
 * signal handlers (SIGBUS/SIGSEGV around index reads, Ctrl-C during writes). The only file that
 * installs a signal handler; each command's file (cmd_*.c) returns its exit status to main. */
#include "cli.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

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
int guarded(const char *cmd, int (*fn)(void *), void *arg)
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

/* === Ctrl-C and SIGTERM === */

/* handler for SIGINT and SIGTERM, with sa_flags `flags`. */
static void catch_int_term(void (*handler)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Ctrl-C (SIGINT) or SIGTERM during index, sync and publish: the write stops after the batch at
 * hand, keeping what it committed (hx_update_opts.commit_chunks); a second signal ends the process. */
volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

void catch_interrupts(void)
{
    catch_int_term(on_interrupt, SA_RESETHAND);
}

static int stop_fd = -1;   /* serve: the write end of the pipe the server watches */

/* SIGTERM / SIGINT: tell the server through a pipe (write(2) is async-signal-safe). */
static void on_stop_signal(int sig)
{
    (void)sig;
    char b = 1;
    ssize_t n = write(stop_fd, &b, 1);
    (void)n;
}

/* serve: from now on SIGTERM and SIGINT write a byte to fd, and the server stops when it reads it. */
void catch_stop_signals(int fd)
{
    stop_fd = fd;
    catch_int_term(on_stop_signal, 0);
    signal(SIGPIPE, SIG_IGN);   /* a client that goes away gives EPIPE, not death */
}

/* === Commands === */

static const cli_cmd commands[] = {
    {"tokenize", CMD_TOKENIZE, "< LINES", 0, 0, "stdin lines -> one JSON array of token ids per line", tokenize_about,
     cmd_tokenize},
    {"embed", CMD_EMBED, "< LINES", 0, 0, "stdin lines -> one JSON array of floats (the model's dimension) per line",
     embed_about, cmd_embed},
    {"models", CMD_MODELS, "", 0, 0, "the models hyrax knows (--model NAME) and where they are installed", models_about,
     cmd_models},
    {"index", CMD_INDEX, "[PATH...]", 0, -1, "index files and folders (incremental); no PATH: the recorded root again",
     index_about, cmd_index},
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
    {"ls", CMD_LS, "[GLOB]", 0, 1, "list the indexed documents (whose path matches GLOB)", ls_about, cmd_ls},
    {"show", CMD_SHOW, "PATH", 1, 1, "one document: its metadata, chunks and citation", show_about, cmd_show},
    {"help", CMD_HELP, "[NAME]", 0, 1, "this list, a command's options, or a topic of the manual", help_about,
     cmd_help},
    {"version", CMD_VERSION, "", 0, 0, "print the version", version_about, cmd_version},
    {"completion", CMD_COMPLETION, "SHELL", 1, 1, "a completion script for bash, zsh or fish", completion_about,
     cmd_completion},
    {"install", CMD_INSTALL, "CLIENT", 0, 1, "add hyrax to an AI client's MCP servers (Claude, Cursor, VS Code, ...)",
     install_about, cmd_install},
};

const cli_cmd *cli_commands(size_t *n)
{
    *n = sizeof commands / sizeof commands[0];
    return commands;
}

/* The commands whose first operand is one of a set: the i-th value (NULL past the last). */
static const struct {
    unsigned bit;
    const char *(*choice)(size_t i);
} operand_choices[] = {
    {CMD_INSTALL, install_client},
};

/* The i-th value command c's first operand takes, NULL past the last or when it takes any:
 * what completion offers there. */
const char *cli_operand_choice(const cli_cmd *c, size_t i)
{
    for (size_t k = 0; k < sizeof operand_choices / sizeof operand_choices[0]; k++)
        if (operand_choices[k].bit == c->bit)
            return operand_choices[k].choice(i);
    return NULL;
}

/* The command called name, or NULL. */
const cli_cmd *cli_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
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
        cli_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--version"))
        return cmd_version(NULL);
    const cli_cmd *c = cli_command(argv[1]);
    if (c) {
        cli_args a;
        int rc = cli_parse(c, argc - 1, argv + 1, &a);
        if (rc < 0)
            rc = c->run(&a);
        args_free(&a);
        return rc;
    }
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    const char *near = suggest(argv[1], names, sizeof commands / sizeof commands[0]);
    fprintf(stderr, "hyrax: unknown command '");
    put_text(stderr, argv[1], 200, false);
    if (near) {   /* git's way: the suggestion alone, not the whole list */
        fprintf(stderr, "'\n\nThe most similar command is\n\t%s\n", near);
        return 2;
    }
    fputs("'\n", stderr);
    cli_usage(stderr);
    return 2;
}
