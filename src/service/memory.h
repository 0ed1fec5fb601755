/* memory.h: conversation memory (seed 003 "Conversation Memory"): sessions of turns (user message,
 * agent response, retrieved document ids, search method, relevance, time), each turn stamped with
 * the recording identity (tenant, user) and its embedding, kept crash-safely in a file of its own
 * beside the index ("<index stem>.memory.hyx", hxi_memory_path) on store.h: the same commit
 * discipline (append, sync, meta slot) and the same one-writer lock. Owns the turn and root
 * layouts below; knows nothing of MCP. Searching is brute force (the retention limit bounds the
 * turns): cosine over the stored embeddings, BM25 over the turns' text, fused by RRF (fusion.h).
 *
 * Turn blob (one per turn, little-endian):
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXTURN01"
 *        8    8 turn id (1, 2, ... over the file's life; never reused)
 *       16    8 time recorded, unix nanoseconds
 *       24    4 turn number within its session (1, 2, ...)
 *       28    8 relevance, IEEE-754 binary64 bits (NaN: none given)
 *       36    4 d, number of retrieved document ids (<= HX_MEMORY_MAX_DOCS)
 *       40    4 dim, embedding dimension (the file's model's, or 0: no embedding)
 *       44    . six strings, each u32 length + bytes (no NUL): session, tenant, user,
 *               search_method, user_message, agent_response; then d strings (document ids);
 *               then dim binary32 values (the L2-normalised embedding)
 * Root of a commit:
 *        0    8 magic "HXMEMRT1"
 *        8    8 next turn id
 *       16    4 n, turns kept
 *       20    4 dim, the dimension of the model the turns' vectors come from; 0: none recorded (a
 *               file from before models were recorded: its turns' vectors say the dimension)
 *       24 20*n the turns' blob references (hxi_store_ref_put), oldest first
 *        .    . when dim > 0: the model's name, u32 length (1..HX_MEMORY_MODEL_MAX) + bytes
 * The file holds the vectors of one model: a turn or a query embedded by another is refused
 * (hxi_memory_check_model), and the first commit with a vector records its model.
 * Retention (`hyrax help memory`): recording a turn drops the oldest turns of its session
 * beyond per_session, then the oldest turns of its identity (tenant, user) beyond total; never a
 * turn of another identity. A turn of a new identity is refused (HX_ERANGE) while the file holds
 * turns of `identities` others, so the file keeps at most identities x total turns. A commit that
 * leaves the file more than three times (and 4 MiB) larger than its live turns compacts it. */
#ifndef HX_MEMORY_H
#define HX_MEMORY_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

#define HX_MEMORY_MODEL_MAX 63   /* bytes of the model name the root records */

/* The limits (HX_MEMORY_*), hx_turn and hx_memory_limits are hyrax.h's ("Conversation memory"). */

/* A handle on the memory file: a reader (HX_STORE_READ) or the one writer (HX_STORE_WRITE,
 * with HX_STORE_CREATE to create it). Holds every kept turn decoded in memory. One thread at a
 * time. Caller frees with hxi_memory_close. A missing file opened for reading gives HX_ENOTFOUND. */
typedef struct hxi_memory hxi_memory;
int hxi_memory_open(hxi_memory **out, const char *path, unsigned store_flags, hx_error *err);
void hxi_memory_close(hxi_memory *m);

/* The memory file of the index at db into buf: "<db minus .hyx>.memory.hyx". HX_ERANGE when it
 * does not fit. */
int hxi_memory_path(const char *db, char *buf, size_t cap, hx_error *err);

/* Turns kept, oldest first; *t borrowed until the next record or close. */
size_t hxi_memory_count(const hxi_memory *m);
const hx_turn *hxi_memory_turn(const hxi_memory *m, size_t i);

/* Records t (its session, identity, texts, docs, relevance and vec, `dim` floats of model `model`,
 * which must be the file's (hxi_memory_check_model); id, number and time are
 * assigned and written back into *out when non-NULL), applies the retention limits to t's session
 * and identity, commits. Returns once the turn is durable. HX_ERANGE, nothing written, when t's
 * identity is new and the file already holds turns of lim->identities. Writer handles only. */
int hxi_memory_record(hxi_memory *m, const hx_turn *t, const char *model, int dim, const hx_memory_limits *lim,
                      hx_turn *out, hx_error *err);

/* HX_EINVAL naming the file's model (and its --model alias) when the file holds the vectors of
 * another model than `model` of `dim` dimensions; 0 when they are its, or it holds none yet. */
int hxi_memory_check_model(const hxi_memory *m, const char *model, int dim, hx_error *err);

/* True when a turn belongs to the identity (tenant, user): both equal, "" matching "". */
int hxi_memory_visible(const hx_turn *t, const char *tenant, const char *user);

typedef struct hxi_memory_hit {
    size_t turn;                     /* index for hxi_memory_turn */
    float score;                     /* fused (hybrid) or the side's own score */
    float cosine, bm25;              /* NAN where that side did not rank it */
} hxi_memory_hit;

/* The k best turns visible to (tenant, user), of `session` only when non-NULL, for the query:
 * mode vector (cosine with qvec), keyword (BM25 of `query` over user message + agent response) or
 * hybrid (both fused by RRF). qvec (dim floats of `model`, the file's: else HX_EINVAL) and model may
 * be NULL in keyword mode. *hits (caller frees with free())
 * gets up to k hits, best first. */
int hxi_memory_search(const hxi_memory *m, hx_search_mode mode, const char *query, const float *qvec,
                      const char *model, int dim, const char *tenant, const char *user, const char *session, size_t k,
                      hxi_memory_hit **hits, size_t *n, hx_error *err);

#endif
