/* publish.c: the pipeline of publish.h: walk, load, verify the signature, the gate, chunk, embed,
 * and hand batches to registry.c. Reads files only through ingest.h and fsafe.h (confined to the
 * root, no symlinks followed). */
#include "publish.h"

#include "alloc.h"
#include "chunker.h"
#include "fsafe.h"
#include "gate.h"
#include "ingest.h"
#include "json.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const hx_publish_visibilities[] = {"tenant", "public", "private", NULL};

/* One document of the batch being built, with what it owns. */
typedef struct {
    hxi_doc_source src;
    hxi_chunk *chunks;
    size_t n_chunks;
    char *metadata_json;
    char **unit_json;       /* per unit of src (n_units): its pairs as a JSON object, NULL: none */
    char signer[64];
    bool signed_;
} pub_doc;

static void pub_doc_clear(pub_doc *d)
{
    hxi_chunks_free(d->chunks, d->n_chunks);
    free(d->metadata_json);
    for (size_t i = 0; d->unit_json && i < d->src.n_units; i++)
        free(d->unit_json[i]);
    free(d->unit_json);
    hxi_doc_source_clear(&d->src);
    memset(d, 0, sizeof *d);
}

void hx_publish_report_clear(hx_publish_report *r)
{
    hxi_rejected_free(r->rejected, r->n_rejected);
    memset(r, 0, sizeof *r);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int reject(hx_publish_report *rep, const char *path, const char *reason, hx_error *err)
{
    return hxi_rejected_add(&rep->rejected, &rep->n_rejected, path, reason, false, err);
}

/* The detached signature of root/path (path.minisig, else path.sig) verified over the file's bytes.
 * 0 with the key id in d->signer; HX_ENOTFOUND when there is no signature file; another code with
 * the reason in err when it does not verify. */
static int check_signature(const hxi_publish_opts *o, pub_doc *d, hx_error *err)
{
    char *doc = NULL, *sig = NULL;
    size_t dlen, slen;
    char name[4200];
    int rc = HX_ENOTFOUND;
    for (int k = 0; rc == HX_ENOTFOUND && hx_sig_suffix(k); k++) {
        snprintf(name, sizeof name, "%s%s", d->src.path, hx_sig_suffix(k));
        rc = hxi_fs_read_under(o->root, name, HX_SIG_MAX_FILE, &sig, &slen, NULL, err);
    }
    if (rc == HX_ENOTFOUND)
        return hx_error_set(err, HX_ENOTFOUND, -1, "not signed (no %s.minisig or .sig)", d->src.path);
    if (rc || (rc = hxi_fs_read_under(o->root, d->src.path, HX_MAX_FILE_BYTES, &doc, &dlen, NULL, err)))
        goto out;
    hx_sig_result res;
    if (!(rc = hx_sig_verify(o->trust, doc, dlen, sig, slen, &res, err))) {
        snprintf(d->signer, sizeof d->signer, "%s", res.key_id);
        d->signed_ = true;
    }
out:
    free(doc);
    free(sig);
    return rc;
}

/* The validation gate (gate.h), as `hyrax index` applies it: every document passes here after its
 * signature and before it is embedded. 0 admits it; HX_EINVAL with the rule and reason refuses it. */
static int publish_gate(const hxi_publish_opts *o, const ix_gate *gate, const pub_doc *d, hx_error *err)
{
    char *raw = NULL;
    size_t len = 0;
    ix_verdict v = {0};
    int rc = hxi_fs_read_under(o->root, d->src.path, HX_MAX_FILE_BYTES, &raw, &len, NULL, err);
    if (!rc && !(rc = ix_gate_check(gate, &d->src, (const uint8_t *)raw, len, NULL, 0, &v, err)) && v.rule)
        rc = hx_error_set(err, HX_EINVAL, -1, "refused by the gate (%s): %s", v.rule, v.reason);
    free(raw);
    return rc;
}

/* Pairs m[0..n) as a JSON object into *out (caller frees): a key given once is a string, a key
 * given several times (a list) an array of its values in order. */
static int pairs_json(const hx_kv *m, size_t n, char **out, hx_error *err)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    for (size_t i = 0; i < n; i++) {
        const char *key = m[i].key;
        bool seen = false;
        size_t count = 0;
        for (size_t j = 0; j < n; j++)
            if (!strcmp(m[j].key, key)) {
                seen |= j < i;
                count++;
            }
        if (seen)
            continue;
        hxi_json_write_key(&w, key);
        if (count > 1)
            hxi_json_write_arr_begin(&w);
        for (size_t j = i; j < n; j++)
            if (!strcmp(m[j].key, key))
                hxi_json_write_cstr(&w, m[j].value);
        if (count > 1)
            hxi_json_write_arr_end(&w);
    }
    hxi_json_write_obj_end(&w);
    int rc = hxi_json_writer_finish(&w, err);
    if (!rc && !(*out = hxi_json_writer_take(&w, NULL)))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    hxi_json_writer_free(&w);
    return rc;
}

/* The document's metadata and each unit's pairs (those with any) as JSON objects. */
static int metadata_json(pub_doc *d, hx_error *err)
{
    int rc = pairs_json(d->src.meta, d->src.n_meta, &d->metadata_json, err);
    if (!rc && d->src.n_units && !(d->unit_json = hx_calloc(d->src.n_units, sizeof *d->unit_json)))
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    for (size_t i = 0; !rc && i < d->src.n_units; i++)
        if (d->src.units[i].n_meta)
            rc = pairs_json(d->src.units[i].meta, d->src.units[i].n_meta, &d->unit_json[i], err);
    return rc;
}

/* Embeds and stores one batch (docs[0..n)) with the removals, in one transaction. */
static int flush(hxi_registry *r, hx_encoder *enc, const hxi_publish_opts *o, pub_doc *docs, size_t n,
                 const char *const *removed, size_t n_removed, hx_publish_report *rep, hx_error *err)
{
    const hx_model *model = hx_encoder_model(enc);
    const size_t dim = (size_t)hx_model_dim(model);
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += docs[i].n_chunks;
    float *vecs = hx_calloc(hxi_mul_size(total ? total : 1, dim), sizeof(float));
    const char **texts = hx_calloc(total ? total : 1, sizeof *texts);
    size_t *lens = hx_calloc(total ? total : 1, sizeof *lens);
    hxi_registry_chunk *chunks = hx_calloc(total ? total : 1, sizeof *chunks);
    hxi_registry_doc *rd = hx_calloc(n ? n : 1, sizeof *rd);
    int rc = 0;
    if (!vecs || !texts || !lens || !chunks || !rd) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto out;
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        rd[i] = (hxi_registry_doc){docs[i].src.path, docs[i].src.title, docs[i].metadata_json, docs[i].src.sha256,
                                  docs[i].signed_ ? docs[i].signer : NULL,
                                  o->visibility ? o->visibility : "tenant", chunks + at, docs[i].n_chunks,
                                  docs[i].src.type};
        for (size_t c = 0; c < docs[i].n_chunks; c++, at++) {
            const hxi_chunk *ch = &docs[i].chunks[c];
            texts[at] = ch->text + ch->embed_offset;
            lens[at] = strlen(texts[at]);
            chunks[at] = (hxi_registry_chunk){ch->index,      ch->line_start, ch->line_end, ch->byte_start,
                                             ch->byte_end,   ch->heading,    ch->text,     vecs + at * dim,
                                             ch->unit < docs[i].src.n_units ? docs[i].unit_json[ch->unit] : NULL};
        }
    }
    double t0 = now_s();
    if (total && (rc = hx_encoder_embed(enc, texts, lens, total, vecs, err)))
        goto out;
    double t1 = now_s();
    rc = hxi_registry_put(r, hx_model_name(model), (int)dim, rd, n, removed, n_removed, err);
    rep->embed_s += t1 - t0;
    rep->store_s += now_s() - t1;
    if (!rc) {
        rep->published += n;
        rep->removed += n_removed;
        rep->chunks += total;
    }
out:
    free(vecs);
    free(texts);
    free(lens);
    free(chunks);
    free(rd);
    return rc;
}

/* Whether the registry path p lies at a target or under a target folder. */
static bool covered(const hxi_publish_opts *o, const char *p)
{
    for (size_t i = 0; i < o->n_targets; i++) {
        size_t l = strlen(o->targets[i]);
        if (!l || (!strncmp(p, o->targets[i], l) && (p[l] == 0 || p[l] == '/')))
            return true;
    }
    return false;
}

int hxi_publish(hxi_registry *r, hx_encoder *enc, const hx_model *model, const hxi_publish_opts *o,
                hx_publish_report *rep, hx_error *err)
{
    memset(rep, 0, sizeof *rep);
    int mrc = hxi_registry_check_model(r, hx_model_name(model), hx_model_dim(model), err);   /* before any work */
    if (mrc)
        return mrc;
    const hxi_chunk_opts co = hxi_chunk_opts_for(model);
    hxi_file_list files = {0};
    hxi_registry_known known = {0};
    size_t batch = o->batch ? o->batch : HX_PUBLISH_BATCH, n = 0;
    pub_doc *docs = hx_calloc(batch, sizeof *docs);
    const char **removed = NULL;
    size_t n_removed = 0;
    int rc = docs ? 0 : hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    ix_gate *gate = NULL;
    if (rc || (rc = ix_gate_open(&gate, o->root, err)) ||
        (rc = hxi_ingest_walk(o->root, o->targets, o->n_targets, NULL, 0, NULL, &files, err)) ||
        (rc = hxi_registry_list(r, &known, err)))
        goto out;
    for (size_t i = 0; i < files.n_rejected; i++)
        if ((rc = reject(rep, files.rejected[i].path, files.rejected[i].reason, err)))
            goto out;
    /* removed: the tenant's documents under the targets that the walk no longer finds */
    if (!(removed = hx_calloc(known.n ? known.n : 1, sizeof *removed))) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < known.n; i++) {
        bool found = false;
        for (size_t j = 0; j < files.n && !found; j++)
            found = !strcmp(files.paths[j], known.paths[i]);
        if (!found && covered(o, known.paths[i]))
            removed[n_removed++] = known.paths[i];
    }
    for (size_t i = 0; i < files.n; i++) {
        pub_doc *d = &docs[n];
        hx_error e = {0};
        int lr = hxi_ingest_load(o->root, files.paths[i], hxi_file_list_real(&files, i), HX_MAX_FILE_BYTES,
                                 &d->src, &e);
        long at = lr ? -1 : hxi_registry_known_find(&known, d->src.path);
        if (!lr && at >= 0 && !strcmp(known.hashes[at], d->src.sha256)) {
            rep->unchanged++;
            pub_doc_clear(d);
            continue;
        }
        if (!lr && (lr = check_signature(o, d, &e)) == HX_ENOTFOUND && o->allow_unsigned)
            lr = 0;
        if (!lr)
            lr = publish_gate(o, gate, d, &e);
        if (!lr)
            lr = hxi_chunk_source(hxi_model_tokenizer(model), &d->src, &co, &d->chunks, &d->n_chunks, &e);
        if (!lr)
            lr = metadata_json(d, &e);
        if (lr) {
            pub_doc_clear(d);
            if (lr == HX_ENOMEM) {
                rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
                goto out;
            }
            if ((rc = reject(rep, files.paths[i], e.message, err)))
                goto out;
            continue;
        }
        if (++n < batch)
            continue;
        if ((rc = flush(r, enc, o, docs, n, removed, n_removed, rep, err)))
            goto out;
        n_removed = 0;
        for (size_t j = 0; j < n; j++)
            pub_doc_clear(&docs[j]);
        n = 0;
        /* files 0..i are done: published in a committed batch, unchanged or rejected */
        if (o->progress && o->progress(o->progress_ctx, i + 1, files.n, files.paths[i])) {
            rc = hx_error_set(err, HX_ECANCELED, -1, "publish stopped after %zu of %zu files (the batches "
                              "committed so far stay)", i + 1, files.n);
            goto out;
        }
    }
    if ((n || n_removed) && (rc = flush(r, enc, o, docs, n, removed, n_removed, rep, err)))
        goto out;
    if (o->progress)
        o->progress(o->progress_ctx, files.n, files.n, NULL);
out:
    for (size_t j = 0; docs && j < batch; j++)
        pub_doc_clear(&docs[j]);
    free(docs);
    free(removed);
    ix_gate_free(gate);
    hxi_registry_known_free(&known);
    hxi_file_list_clear(&files);
    return rc;
}
