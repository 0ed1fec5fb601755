/* cmd_history.c: `hyrax history`, the conversation memory's sessions, or one session's turns
 * (`hyrax help memory`): its help text and run function. */
#include "cli.h"
#include "json.h"
#include "present_memory.h"

#include <math.h>
#include <string.h>

/* === history === */

const char history_about[] =
    "Without SESSION: the sessions of the conversation memory (record_turn over MCP), newest first.\n"
    "With SESSION: its turns in order. Only the turns recorded by the identity given with --tenant and\n"
    "--user are shown (none given: the turns recorded without one).\n";

/* w finished and printed as one line, then freed; 0, or 1 after the message. */
static int print_json(hxi_json_writer *w)
{
    hx_error err = {0};
    int rc = hxi_json_writer_finish(w, &err);
    if (rc)
        fprintf(stderr, "hyrax history: %s\n", err.message);
    else
        printf("%s\n", w->buf);
    hxi_json_writer_free(w);
    return rc ? 1 : 0;
}

/* The conversations as text lines, or as JSON with --json; the exit status. */
static int print_sessions(const cli_args *a, hx_session *s)
{
    hx_conversation_list l = {0};
    hx_error err = {0};
    if (hx_session_list_sessions(s, &l, &err)) {
        fprintf(stderr, "hyrax history: %s\n", err.message);
        return 1;
    }
    int rc = 0;
    if (opt_str(a, "--json")) {
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_present_conversations(&w, &l);
        rc = print_json(&w);
    }
    for (size_t i = 0; !opt_str(a, "--json") && i < l.n; i++) {
        char when[64];
        hx_time_format(l.v[i].last_turn_ns, when, sizeof when);
        put_text(stdout, l.v[i].session_id, 200, false);
        printf("  %zu %s, last %s\n", l.v[i].turns, plural(l.v[i].turns, "turn", "turns"), when);
    }
    hx_conversation_list_free(&l);
    return rc;
}

/* The turns of one conversation as text, or as JSON with --json; the exit status. */
static int print_turns(const cli_args *a, hx_session *s, const char *session)
{
    hx_turn_list l = {0};
    hx_error err = {0};
    if (hx_session_get_session(s, session, &l, &err)) {
        fprintf(stderr, "hyrax history: %s\n", err.message);
        return 1;
    }
    int rc = 0;
    if (!l.n) {   /* said on stderr; --json still prints the empty session */
        fputs("hyrax history: no session '", stderr);
        put_text(stderr, session, 200, false);
        fputs("' in the conversation memory ('hyrax history' lists them)\n", stderr);
        rc = 1;
    }
    if (opt_str(a, "--json")) {
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_present_turns(&w, session, &l);
        rc = print_json(&w) || rc;
    }
    for (size_t i = 0; !opt_str(a, "--json") && i < l.n; i++) {
        const hx_turn *t = &l.turns[i];
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
    hx_turn_list_free(&l);
    return rc;
}

int cmd_history(const cli_args *a)
{
    hx_session *s = NULL;
    int rc = command_session(a, "history", &s);
    if (rc)
        return rc;
    rc = a->n_operands ? print_turns(a, s, a->operands[0]) : print_sessions(a, s);
    hx_session_close(s);
    return rc;
}
