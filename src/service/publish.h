/* publish.h: `hyrax publish` (issue 13): files under a root -> the project's ingest and chunker ->
 * signature check against the trust store -> the validation gate's call site -> local embedding
 * -> the registry (registry.h), one transaction per batch of documents. Owns the walk-to-registry
 * pipeline only; SQL is registry.c's, signatures sig.c's. */
#ifndef HX_PUBLISH_H
#define HX_PUBLISH_H

#include "hyrax.h"
#include "registry.h"
#include "sig.h"

#include <stdbool.h>
#include <stddef.h>

/* HX_PUBLISH_BATCH, hx_publish_visibilities and hx_publish_report are hyrax.h's ("Session:
 * publishing to the registry"). */

typedef struct hxi_publish_opts {
    const char *root;                  /* absolute, resolved folder the paths are relative to */
    const char *const *targets;        /* root-relative files and folders ("" = the root) */
    size_t n_targets;
    const hx_trust *trust;             /* the trust store signatures are checked against */
    bool allow_unsigned;               /* false (the default): a document needs a valid signature */
    const char *visibility;            /* one of hx_publish_visibilities; NULL: "tenant" */
    size_t batch;                      /* documents per transaction; 0 = HX_PUBLISH_BATCH */
    hx_progress_fn progress;           /* after each committed batch (files done -- published,
                                          unchanged or rejected --, files in all, last path) and
                                          once at the end (all, all, NULL); non-zero stops before
                                          the next batch (HX_ECANCELED; committed batches stay) */
    void *progress_ctx;
} hxi_publish_opts;

/* Publishes the files under the targets to r for the acting tenant: a document whose content hash
 * the registry already has costs nothing; a changed one is replaced; a document the tenant has in
 * the registry under a target folder (or at a target) that no longer exists is removed. Files that
 * fail to load, lack a valid signature or are refused by the gate go to rep->rejected and are
 * left as they are in the registry. Each batch commits on its own, so a stopped run leaves every
 * document either at its old or at its new version. */
int hxi_publish(hxi_registry *r, hx_encoder *enc, const hx_model *model, const hxi_publish_opts *o,
                hx_publish_report *rep, hx_error *err);

#endif
