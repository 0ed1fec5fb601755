/* present_memory.c: the JSON shapes of conversation memory, shared by the MCP tools (mcp_tool_memory.c)
 * and `hyrax history --json`: a turn's members and the session list. Spec: seed 003's
 * conversation_history columns, `hyrax help memory`. */
#include "present_memory.h"

#include <math.h>

void hxi_present_turn(hxi_json_writer *w, const hx_turn *t)
{
    char when[64];
    hxi_json_kv_cstr(w, "session_id", t->session);
    hxi_json_kv_uint(w, "turn_number", t->number);
    hxi_json_kv_uint(w, "turn_id", t->id);
    hxi_json_kv_cstr(w, "user_message", t->user_message);
    hxi_json_kv_cstr(w, "agent_response", t->agent_response);
    hxi_json_write_key(w, "retrieved_docs");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < t->n_docs; i++)
        hxi_json_write_cstr(w, t->docs[i]);
    hxi_json_write_arr_end(w);
    hxi_json_write_key(w, "search_method");
    if (*t->search_method)
        hxi_json_write_cstr(w, t->search_method);
    else
        hxi_json_write_null(w);
    hxi_json_write_key(w, "relevance_score");
    if (isnan(t->relevance))
        hxi_json_write_null(w);
    else
        hxi_json_write_double(w, t->relevance);
    hx_time_format(t->at_ns, when, sizeof when);
    hxi_json_kv_cstr(w, "created_at", when);
}

void hxi_present_conversations(hxi_json_writer *w, const hx_conversation_list *l)
{
    hxi_json_write_obj_begin(w);
    hxi_json_write_key(w, "sessions");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        char when[64];
        hx_time_format(l->v[i].last_turn_ns, when, sizeof when);
        hxi_json_write_obj_begin(w);
        hxi_json_kv_cstr(w, "session_id", l->v[i].session_id);
        hxi_json_kv_uint(w, "turns", l->v[i].turns);
        hxi_json_kv_cstr(w, "last_turn_at", when);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    hxi_json_write_obj_end(w);
}

void hxi_present_turns(hxi_json_writer *w, const char *session, const hx_turn_list *l)
{
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "session_id", session);
    hxi_json_write_key(w, "turns");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        hxi_json_write_obj_begin(w);
        hxi_present_turn(w, &l->turns[i]);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "total", l->n);
    hxi_json_write_obj_end(w);
}
