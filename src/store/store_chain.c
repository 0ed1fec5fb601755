/* store_chain.c: the commit chain of store.h read back, newest first: the history of commits,
 * the root of a generation, the newest commit at or before a time, and a named commit (a
 * baseline). Reads through the store's current view (store.c); writes nothing. Spec: store.h. */
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

/* Walks the chain newest first and stops at the first record for which `stop` says true. */
typedef bool (*chain_pred)(const record *r, void *arg);

static int chain_find(hxi_store *s, chain_pred stop, void *arg, record *found, hx_error *err)
{
    if (!s->v.m.rec.offset)
        return HX_ENOTFOUND;
    record r = s->v.r;
    for (;;) {
        if (stop(&r, arg)) {
            *found = r;
            return 0;
        }
        record prev;
        int more = st_chain_prev(&s->v, &r, &prev, err);
        if (more <= 0)
            return more < 0 ? more : HX_ENOTFOUND;
        r = prev;
    }
}

static bool stop_gen(const record *r, void *arg)
{
    return r->gen == *(const uint64_t *)arg;
}

typedef struct time_walk {
    int64_t time_ns;
    uint64_t newer;          /* generation of the last record passed, 0 before the first */
} time_walk;

static bool stop_time(const record *r, void *arg)
{
    time_walk *t = arg;
    if (r->ts <= t->time_ns)
        return true;
    t->newer = r->gen;
    return false;
}

static bool stop_name(const record *r, void *arg)
{
    return strcmp(r->name, *(const char **)arg) == 0;
}

static void info_of(const record *r, hxi_store_info *out)
{
    out->generation = r->gen;
    out->timestamp_ns = r->ts;
    memcpy(out->name, r->name, sizeof out->name);
    out->record = r->self;
}

int hxi_store_history(hxi_store *s, hxi_store_info **out, size_t *n, hx_error *err)
{
    *out = NULL;
    *n = 0;
    if (!s->v.m.rec.offset)
        return 0;
    size_t cap = 0, count = 0;
    hxi_store_info *list = NULL;
    record r = s->v.r;
    int rc;
    for (;;) {
        if (hx_grow((void **)&list, &cap, count + 1, sizeof *list, NULL)) {
            rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
            goto err;
        }
        info_of(&r, &list[count++]);
        record prev;
        rc = st_chain_prev(&s->v, &r, &prev, err);
        if (rc < 0)
            goto err;
        if (rc == 0)
            break;
        r = prev;
    }
    *out = list;
    *n = count;
    return 0;
err:
    free(list);
    return rc;
}

int hxi_store_root_at(hxi_store *s, uint64_t generation, const uint8_t **root, size_t *len,
                      hx_error *err)
{
    if (generation == s->v.m.gen) {
        hxi_store_root(s, root, len);
        return 0;
    }
    record r;
    int rc = chain_find(s, stop_gen, &generation, &r, err);
    if (rc == HX_ENOTFOUND)
        return hx_error_set(err, rc, -1, "generation %llu is not in the chain of %s (compacted away?)",
                            (unsigned long long)generation, s->path);
    if (rc)
        return rc;
    *root = r.root;
    *len = (size_t)r.root_len;
    return 0;
}

int hxi_store_as_of(hxi_store *s, int64_t time_ns, hxi_store_info *out, hx_error *err)
{
    record r;
    time_walk t = {time_ns, 0};
    int rc = chain_find(s, stop_time, &t, &r, err);
    if (rc == HX_ENOTFOUND)
        return hx_error_set(err, rc, -1, "%s has no commit at or before time %lld", s->path,
                            (long long)time_ns);
    /* A gap after r: compaction dropped commits between r and the next, and one of them may be
     * the newest at or before time_ns, so r would be an older state than asked for. */
    if (rc == 0 && t.newer && t.newer != r.gen + 1)
        return hx_error_set(err, HX_ENOTFOUND, -1, "%s no longer keeps the commits between generations %llu and "
                            "%llu (compacted), so its state at time %lld is unknown", s->path,
                            (unsigned long long)r.gen, (unsigned long long)t.newer, (long long)time_ns);
    if (rc == 0)
        info_of(&r, out);
    return rc;
}

int hxi_store_find_name(hxi_store *s, const char *name, hxi_store_info *out, hx_error *err)
{
    record r;
    int rc = chain_find(s, stop_name, &name, &r, err);
    if (rc == HX_ENOTFOUND)
        return hx_error_set(err, rc, -1, "%s has no commit named '%s'", s->path, name);
    if (rc == 0)
        info_of(&r, out);
    return rc;
}
