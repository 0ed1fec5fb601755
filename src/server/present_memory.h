/* present_memory.h: JSON of conversation memory for MCP and the command line (one shape in one
 * place). Spec: README "Conversation memory". */
#ifndef HX_PRESENT_MEMORY_H
#define HX_PRESENT_MEMORY_H

#include "json.h"
#include "memory.h"

/* The members of one turn (session_id, turn_number, turn_id, user_message, agent_response,
 * retrieved_docs, search_method, relevance_score, created_at) into the open object of w. */
void hx_present_turn(hx_json_writer *w, const hx_turn *t);

/* {"sessions":[{session_id, turns, last_turn_at}, ...]}, newest session first, of the turns
 * visible to (tenant, user); m may be NULL (no memory file yet). 0, or HX_ENOMEM (nothing written). */
int hx_present_sessions(hx_json_writer *w, const hx_memory *m, const char *tenant, const char *user);

/* The turns of one session visible to (tenant, user), in order:
 * {"session_id", "turns":[...], "total"}; m may be NULL. */
void hx_present_session(hx_json_writer *w, const hx_memory *m, const char *session, const char *tenant,
                        const char *user);

/* The same of a session's answers (hyrax.h "Session: conversation memory"): the conversations of
 * hx_session_list_sessions, and the turns of hx_session_get_session under session. */
void hx_present_conversations(hx_json_writer *w, const hx_conversation_list *l);
void hx_present_turns(hx_json_writer *w, const char *session, const hx_turn_list *l);

#endif
