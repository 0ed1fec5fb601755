/* cmd_history.c: `hyrax history`, the conversation memory's sessions, or one session's turns
 * (README "Conversation memory"): its help text and run function. */
#include "cli.h"
#include "json.h"
#include "memory.h"
#include "present_memory.h"
#include "store.h"

#include <math.h>
#include <string.h>

/* === history === */

const char history_about[] =
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
        printf("  %lld %s, last %s\n", (long long)turns, plural((size_t)turns, "turn", "turns"),
               hx_json_str(hx_json_obj_get(e, "last_turn_at"), NULL));
    }
    hx_json_doc_free(doc);
    return 0;
}

static int print_history(const cli_args *a, const hx_memory *m, const char *tenant, const char *user)
{
    const char *session = a->n_operands ? a->operands[0] : NULL;
    hx_error err = {0};
    size_t seen = 0;   /* the session's turns the identity sees */
    for (size_t i = 0; session && m && i < hx_memory_count(m); i++)
        seen += hx_memory_visible(hx_memory_turn(m, i), tenant, user) && !strcmp(hx_memory_turn(m, i)->session, session);
    if (session && !seen) {   /* said on stderr; --json still prints the empty session */
        fputs("hyrax history: no session '", stderr);
        put_text(stderr, session, 200, false);
        fputs("' in the conversation memory ('hyrax history' lists them)\n", stderr);
        if (!opt_str(a, "--json"))
            return 1;
    }
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
        return rc || (session && !seen) ? 1 : 0;
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

int cmd_history(const cli_args *a)
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
