/* mcp_tool_memory.c: the conversation-memory tools of `hyrax serve` (seed 003 "Conversation Memory"):
 * record_turn (worker thread: it writes), get_session, search_history, list_sessions (main
 * thread), one argument table each: adapters over the connection's session (hyrax.h "Session:
 * conversation memory"), which stamps turns with the server's reader identity, reads back only
 * that identity's, and keeps storage, retention and search. */
#include "mcp_tools.h"
#include "present.h"
#include "present_memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A turn (hxi_present_turn). */
static const mcp_field turn_fields[] = {
    {"session_id", .type = MCP_JSON_STRING},
    {"turn_number", .type = MCP_JSON_INTEGER},
    {"turn_id", .type = MCP_JSON_INTEGER},
    {"user_message", .type = MCP_JSON_STRING},
    {"agent_response", .type = MCP_JSON_STRING},
    {"retrieved_docs", MCP_JSON_ARRAY, MCP_ITEMS(MCP_JSON_STRING)},
    {"search_method", .type = MCP_JSON_STRING | MCP_JSON_NULL},
    {"relevance_score", .type = MCP_JSON_NUMBER | MCP_JSON_NULL},
    {"created_at", .type = MCP_JSON_STRING},
    {.name = NULL},
};
#define TURN_SHAPE                                                                                            \
    MCP_JSON_OBJECT, .props = turn_fields,                                                                    \
        MCP_REQUIRED("session_id", "turn_number", "user_message", "agent_response", "created_at")
static const mcp_field turn_item = {NULL, TURN_SHAPE};

#define ARG_SESSION(req)                                                                                      \
    {"session_id", MCP_STRING, .required = (req), RANGE(1, HX_MEMORY_MAX_ID),                                 \
     .description = "The conversation's id, chosen by the client."}

/* === record_turn (worker thread) === */

const mcp_arg mcp_record_turn_args[] = {
    ARG_SESSION(true),
    {"user_message", MCP_STRING, .required = true, AT_MOST(HX_MEMORY_MAX_TEXT)},
    {"agent_response", MCP_STRING, AT_MOST(HX_MEMORY_MAX_TEXT), .def = ""},
    {"retrieved_docs", MCP_STRING_LIST, AT_MOST(HX_MEMORY_MAX_DOCS),
     .description = "Ids or paths of the documents retrieved for this turn."},
    {"search_method", MCP_STRING, .choices = hx_turn_methods},
    {"relevance_score", MCP_NUMBER, RANGE(0, 1)},
    {.name = NULL},
};

const mcp_field mcp_record_turn_out = {NULL, TURN_SHAPE};

int mcp_tool_record_turn(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_record_turn_args, args};
    const char *docs[HX_MEMORY_MAX_DOCS];
    hx_turn t = {0}, done;
    t.session = mcp_arg_str(&a, "session_id");
    t.user_message = mcp_arg_str(&a, "user_message");
    t.agent_response = mcp_arg_str(&a, "agent_response");
    t.search_method = mcp_arg_str(&a, "search_method");
    t.n_docs = mcp_arg_list(&a, "retrieved_docs", docs);
    t.docs = docs;
    t.relevance = mcp_arg_value(&a, "relevance_score") ? mcp_arg_num(&a, "relevance_score") : NAN;
    int rc = mcp_session_open(s, err);
    if (rc)
        return rc;
    if ((rc = hx_session_record_turn(s->ses, &t, &done, err))) {
        if (rc == HX_EBUSY)   /* another process records: the tools' code for it */
            return err->code = HX_EINVAL;
        if (strncmp(err->message, "conversation memory: ", 21)) {   /* the record itself failed */
            hx_error inner = *err;
            return mcp_error_wrap(err, &inner, "cannot record the turn: ");
        }
        return rc;
    }
    hxi_json_write_obj_begin(w);
    hxi_present_turn(w, &done);
    hxi_json_write_obj_end(w);
    return 0;
}

/* === get_session, list_sessions === */

const mcp_arg mcp_get_session_args[] = {
    ARG_SESSION(true),
    {.name = NULL},
};

static const mcp_field session_fields[] = {
    {"session_id", .type = MCP_JSON_STRING},
    {"turns", MCP_JSON_ARRAY, .items = &turn_item},
    {"total", .type = MCP_JSON_INTEGER},
    {.name = NULL},
};
const mcp_field mcp_get_session_out = {
    NULL, MCP_JSON_OBJECT, .props = session_fields, MCP_REQUIRED("session_id", "turns", "total")};

int mcp_tool_get_session(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_get_session_args, args};
    const char *session = mcp_arg_str(&a, "session_id");
    hx_turn_list l;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_get_session(s->ses, session, &l, err)))
        return rc;
    hxi_present_turns(w, session, &l);
    hx_turn_list_free(&l);
    return 0;
}

const mcp_arg mcp_list_sessions_args[] = {{.name = NULL}};

static const mcp_field session_row_fields[] = {
    {"session_id", .type = MCP_JSON_STRING},
    {"turns", .type = MCP_JSON_INTEGER},
    {"last_turn_at", .type = MCP_JSON_STRING},
    {.name = NULL},
};
static const mcp_field sessions_fields[] = {
    {"sessions", MCP_JSON_ARRAY, .items = &(const mcp_field){NULL, MCP_JSON_OBJECT, .props = session_row_fields}},
    {.name = NULL},
};
const mcp_field mcp_list_sessions_out = {NULL, MCP_JSON_OBJECT, .props = sessions_fields, MCP_REQUIRED("sessions")};

int mcp_tool_list_sessions(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    (void)args;
    hx_conversation_list l;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_list_sessions(s->ses, &l, err)))
        return rc;
    hxi_present_conversations(w, &l);
    hx_conversation_list_free(&l);
    return 0;
}

/* === search_history === */

const mcp_arg mcp_search_history_args[] = {
    {"query", MCP_STRING, .required = true, AT_LEAST(1)},
    {"mode", MCP_STRING, .choices = hx_mode_names, .def = "hybrid",
     .description = "hybrid fuses semantic (cosine of the turns' embeddings) and keyword (BM25 over the turns' "
                    "text) by RRF; semantic or keyword alone."},
    {"top_k", MCP_INTEGER, RANGE(1, HX_HISTORY_K_MAX), .def = "5"},
    ARG_SESSION(false),
    {.name = NULL},
};

static const mcp_field hit_fields[] = {
    {"score", .type = MCP_JSON_NUMBER},
    {"similarity", .type = MCP_JSON_NUMBER | MCP_JSON_NULL},
    {"keyword_score", .type = MCP_JSON_NUMBER | MCP_JSON_NULL},
    {.name = NULL},
};
static const mcp_field history_fields[] = {
    {"query", .type = MCP_JSON_STRING},
    {"mode", .type = MCP_JSON_STRING},
    {"results", MCP_JSON_ARRAY,   /* a turn and its scores */
     .items = &(const mcp_field){NULL, MCP_JSON_OBJECT, .props = hit_fields, .also = &turn_item}},
    {"total_results", .type = MCP_JSON_INTEGER},
    {.name = NULL},
};
const mcp_field mcp_search_history_out = {
    NULL, MCP_JSON_OBJECT, .props = history_fields, MCP_REQUIRED("query", "mode", "results", "total_results")};

static void write_score(hxi_json_writer *w, const char *key, float x)
{
    hxi_json_write_key(w, key);
    if (isnan(x))
        hxi_json_write_null(w);
    else
        hxi_json_write_double(w, x);
}

int mcp_tool_search_history(mcp_session *s, const hxi_json_val *args, hxi_json_writer *w, hx_error *err)
{
    mcp_args a = {mcp_search_history_args, args};
    hx_history_query q = {.query = mcp_arg_str(&a, "query"), .mode = HX_MODE_HYBRID,
                          .k = (uint32_t)mcp_arg_int(&a, "top_k"), .session_id = mcp_arg_str(&a, "session_id")};
    hx_mode_parse(mcp_arg_str(&a, "mode"), &q.mode);
    hx_turn_list l;
    int rc = mcp_session_open(s, err);
    if (rc || (rc = hx_session_search_history(s->ses, &q, &l, err)))
        return rc;
    hxi_json_write_obj_begin(w);
    hxi_json_kv_cstr(w, "query", q.query);
    hxi_json_kv_cstr(w, "mode", hx_mode_names[q.mode]);
    hxi_json_write_key(w, "results");
    hxi_json_write_arr_begin(w);
    for (size_t i = 0; i < l.n; i++) {
        hxi_json_write_obj_begin(w);
        hxi_present_turn(w, &l.turns[i]);
        write_score(w, "score", l.scores[i].score);
        write_score(w, "similarity", l.scores[i].similarity);
        write_score(w, "keyword_score", l.scores[i].keyword_score);
        hxi_json_write_obj_end(w);
    }
    hxi_json_write_arr_end(w);
    hxi_json_kv_uint(w, "total_results", l.n);
    hxi_json_write_obj_end(w);
    hx_turn_list_free(&l);
    return 0;
}
