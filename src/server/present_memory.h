/* present_memory.h: JSON of conversation memory for MCP and the command line (one shape in one
 * place). Spec: `hyrax help memory`. */
#ifndef HX_PRESENT_MEMORY_H
#define HX_PRESENT_MEMORY_H

#include "json.h"
#include "hyrax.h"

/* The members of one turn (session_id, turn_number, turn_id, user_message, agent_response,
 * retrieved_docs, search_method, relevance_score, created_at) into the open object of w. */
void hxi_present_turn(hxi_json_writer *w, const hx_turn *t);

/* The answers of a session (hyrax.h "Session: conversation memory"): {"sessions":[{session_id,
 * turns, last_turn_at}, ...]} of hx_session_list_sessions (newest first), and {"session_id",
 * "turns":[...], "total"} of hx_session_get_session's turns under session. */
void hxi_present_conversations(hxi_json_writer *w, const hx_conversation_list *l);
void hxi_present_turns(hxi_json_writer *w, const char *session, const hx_turn_list *l);

#endif
