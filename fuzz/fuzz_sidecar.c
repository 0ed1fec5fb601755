/* fuzz_sidecar.c: libFuzzer target for the files beside an index (src/service/memory.h,
 * src/service/stats.h): the first byte picks what the rest becomes in a fresh store file -- a
 * statistics root (0), a conversation-memory root (1), or one turn blob under a valid memory
 * root (2) -- which is then read whole (every turn, both searches; the JSON and Prometheus views)
 * and written to (a turn recorded, counts flushed into it). Must never crash; a malformed root or
 * turn is an error. Corpus: fuzz/corpus/sidecar/. */
#include "bytes.h"
#include "memory.h"
#include "present.h"
#include "stats.h"
#include "store.h"
#include "wire.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A store at path whose one commit has `root`, and when `blob` is given, that blob too, listed by
 * a memory root. */
static int make(const char *path, const uint8_t *root, size_t len, int blob)
{
    hxi_store *w = NULL;
    hxi_store_ref ref;
    unlink(path);
    int rc = hxi_store_open(&w, path, HX_STORE_WRITE | HX_STORE_CREATE, NULL);
    if (!rc && blob) {
        uint8_t r[24 + HX_STORE_REF_SIZE] = "HXMEMRT1";
        rc = hxi_store_append(w, root, len, &ref, NULL);
        hxf_put64(r + 8, 2);
        hxf_put32(r + 16, 1);
        hxf_put32(r + 20, 0);
        hxi_store_ref_put(r + 24, ref);
        if (!rc)
            rc = hxi_store_commit(w, r, sizeof r, NULL, NULL);
    } else if (!rc) {
        rc = hxi_store_commit(w, root, len, NULL, NULL);
    }
    hxi_store_close(w);
    return rc;
}

static void memory(const char *path)
{
    hxi_memory *m = NULL;
    float q[4] = {1};
    if (hxi_memory_open(&m, path, HX_STORE_READ, NULL) == 0) {
        size_t sum = 0;
        for (size_t i = 0; i < hxi_memory_count(m); i++) {
            const hx_turn *t = hxi_memory_turn(m, i);
            sum += strlen(t->session) + strlen(t->user_message) + strlen(t->agent_response) + t->n_docs;
            for (size_t d = 0; d < t->n_docs; d++)
                sum += strlen(t->docs[d]);
        }
        hxi_memory_hit *hits = NULL;
        size_t n = 0;
        if (hxi_memory_search(m, HX_MODE_HYBRID, "fuzz query", q, "fuzz-model", 4, "", "", NULL, 5, &hits, &n, NULL) == 0)
            free(hits);
        if (sum == SIZE_MAX)
            abort();
    }
    hxi_memory_close(m);
    if (hxi_memory_open(&m, path, HX_STORE_WRITE, NULL) == 0) {
        hx_turn t = {0};
        t.session = "s";
        t.user_message = "one more";
        t.relevance = NAN;
        hx_memory_limits lim = {.per_session = 2, .total = 3, .identities = 2};
        t.vec = q;
        hxi_memory_record(m, &t, "fuzz-model", 4, &lim, NULL, NULL);
    }
    hxi_memory_close(m);
}

static void stats(const char *db)
{
    const hx_identity acme = {"acme", "ann"};
    for (int as = 0; as < 2; as++) {   /* the unscoped reader, then an identity */
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_json_write_obj_begin(&w);
        hx_activity act;
        if (!hx_stats_activity(NULL, db, as ? &acme : NULL, &act, NULL))
            hxi_present_activity(&w, &act);
        hx_activity_free(&act);
        hxi_json_write_obj_end(&w);
        hxi_json_writer_free(&w);
        hxi_buf b = {0};
        hxi_stats_prometheus(NULL, db, as ? &acme : NULL, &b, NULL);
        hxi_buf_free(&b);
    }
    for (int as = 0; as < 2; as++) {
        hx_stats *s = NULL;
        if (hx_stats_open(&s, db, as ? &acme : NULL, 0, NULL) == 0) {
            hx_stats_note_latency(s, "search", "cli", 1);
            hx_stats_note_query(s, "fuzz");
        }
        hx_stats_close(s);   /* flushes into the fuzzed file: its counts are decoded and merged */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    char db[64], path[96];
    snprintf(db, sizeof db, "/tmp/hxi_fuzz_sidecar_%d.hyx", (int)getpid());
    int kind = data[0] % 3;
    if (kind == 0)
        hxi_stats_path(db, path, sizeof path, NULL);
    else
        hxi_memory_path(db, path, sizeof path, NULL);
    if (make(path, data + 1, size - 1, kind == 2) == 0) {
        if (kind == 0)
            stats(db);
        else
            memory(path);
    }
    unlink(path);
    return 0;
}
