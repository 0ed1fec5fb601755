/* present_memory.c: the JSON shapes of conversation memory, shared by the MCP tools (mcp_tool_memory.c)
 * and `hyrax history --json`: a turn's members and the session list. Spec: seed 003's
 * conversation_history columns, README "Conversation memory". */
#include "present_memory.h"

#include <math.h>

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
