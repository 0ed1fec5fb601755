/* present_memory.c: the JSON shapes of conversation memory, shared by the MCP tools (mcp_tool_memory.c)
 * and `hyrax history --json`: a turn's members and the session list. Spec: seed 003's
 * conversation_history columns, README "Conversation memory". */
#include "present_memory.h"


#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

void hx_present_turn(hx_json_writer *w, const hx_turn *t)
{
    char when[64];
    hx_json_write_key(w, "session_id");
    hx_json_write_cstr(w, t->session);
    hx_json_write_key(w, "turn_number");
    hx_json_write_uint(w, t->number);
    hx_json_write_key(w, "turn_id");
    hx_json_write_uint(w, t->id);
    hx_json_write_key(w, "user_message");
    hx_json_write_cstr(w, t->user_message);
    hx_json_write_key(w, "agent_response");
    hx_json_write_cstr(w, t->agent_response);
    hx_json_write_key(w, "retrieved_docs");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < t->n_docs; i++)
        hx_json_write_cstr(w, t->docs[i]);
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "search_method");
    if (*t->search_method)
        hx_json_write_cstr(w, t->search_method);
    else
        hx_json_write_null(w);
    hx_json_write_key(w, "relevance_score");
    if (isnan(t->relevance))
        hx_json_write_null(w);
    else
        hx_json_write_double(w, t->relevance);
    hx_time_format(t->at_ns, when, sizeof when);
    hx_json_write_key(w, "created_at");
    hx_json_write_cstr(w, when);
}

typedef struct {
    const hx_memory *m;
    size_t turn;
    size_t count;                    /* turns of its session (set on each session's newest) */
} turn_at;

/* By session, then oldest first. */
static int by_session(const void *pa, const void *pb)
{
    const turn_at *a = pa, *b = pb;
    int c = strcmp(hx_memory_turn(a->m, a->turn)->session, hx_memory_turn(b->m, b->turn)->session);
    return c ? c : a->turn < b->turn ? -1 : a->turn > b->turn;
}

/* By the session's newest turn, newest first (a holds the newest turn of each session). */
static int by_newest(const void *pa, const void *pb)
{
    const turn_at *a = pa, *b = pb;
    return a->turn > b->turn ? -1 : a->turn < b->turn;
}

int hx_present_sessions(hx_json_writer *w, const hx_memory *m, const char *tenant, const char *user)
{
    size_t n = m ? hx_memory_count(m) : 0, nv = 0, ng = 0;
    turn_at *v = hx_malloc(sizeof *v * (n ? n : 1));
    if (!v)
        return HX_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (hx_memory_visible(hx_memory_turn(m, i), tenant, user))
            v[nv++] = (turn_at){m, i, 0};
    qsort(v, nv, sizeof *v, by_session);
    size_t count = 0;
    for (size_t i = 0; i < nv; i++) {   /* v[ng] becomes each session's newest turn */
        count++;
        if (i + 1 == nv || strcmp(hx_memory_turn(m, v[i].turn)->session, hx_memory_turn(m, v[i + 1].turn)->session)) {
            v[ng++] = (turn_at){m, v[i].turn, count};
            count = 0;
        }
    }
    qsort(v, ng, sizeof *v, by_newest);
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "sessions");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < ng; i++) {
        const hx_turn *t = hx_memory_turn(m, v[i].turn);
        char when[64];
        hx_time_format(t->at_ns, when, sizeof when);
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "session_id");
        hx_json_write_cstr(w, t->session);
        hx_json_write_key(w, "turns");
        hx_json_write_uint(w, v[i].count);
        hx_json_write_key(w, "last_turn_at");
        hx_json_write_cstr(w, when);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    hx_json_write_obj_end(w);
    free(v);
    return 0;
}

void hx_present_session(hx_json_writer *w, const hx_memory *m, const char *session, const char *tenant,
                        const char *user)
{
    size_t total = 0;
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "session_id");
    hx_json_write_cstr(w, session);
    hx_json_write_key(w, "turns");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; m && i < hx_memory_count(m); i++) {
        const hx_turn *t = hx_memory_turn(m, i);
        if (!hx_memory_visible(t, tenant, user) || strcmp(t->session, session))
            continue;
        hx_json_write_obj_begin(w);
        hx_present_turn(w, t);
        hx_json_write_obj_end(w);
        total++;
    }
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "total");
    hx_json_write_uint(w, total);
    hx_json_write_obj_end(w);
}

void hx_present_conversations(hx_json_writer *w, const hx_conversation_list *l)
{
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "sessions");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        char when[64];
        hx_time_format(l->v[i].last_turn_ns, when, sizeof when);
        hx_json_write_obj_begin(w);
        hx_json_write_key(w, "session_id");
        hx_json_write_cstr(w, l->v[i].session_id);
        hx_json_write_key(w, "turns");
        hx_json_write_uint(w, l->v[i].turns);
        hx_json_write_key(w, "last_turn_at");
        hx_json_write_cstr(w, when);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    hx_json_write_obj_end(w);
}

void hx_present_turns(hx_json_writer *w, const char *session, const hx_turn_list *l)
{
    hx_json_write_obj_begin(w);
    hx_json_write_key(w, "session_id");
    hx_json_write_cstr(w, session);
    hx_json_write_key(w, "turns");
    hx_json_write_arr_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        hx_json_write_obj_begin(w);
        hx_present_turn(w, &l->turns[i]);
        hx_json_write_obj_end(w);
    }
    hx_json_write_arr_end(w);
    hx_json_write_key(w, "total");
    hx_json_write_uint(w, l->n);
    hx_json_write_obj_end(w);
}
