/* cmd_publish.c: `hyrax publish`, signed documents published to the registry (README
 * "Registry"): its help text and run function. */
#include "cli.h"
#include "alloc.h"
#include "fsafe.h"
#include "publish.h"
#include "registry.h"
#include "sig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char publish_about[] =
    "Publishes the files under each PATH to the registry: each is read and chunked as 'hyrax index'\n"
    "does, must carry a valid signature (FILE.minisig or FILE.sig by a key of .hyrax/trusted or\n"
    ".hyrax/allowed_signers under --root) unless --allow-unsigned, is embedded here, and is\n"
    "stored for the tenant in one transaction per batch. Unchanged documents (same content hash)\n"
    "are skipped; the tenant's documents under PATH that are gone are removed. Progress on stderr.\n";

static int publish_progress(void *ctx, size_t done, size_t total, const char *path)
{
    (void)ctx;
    if (interrupted)
        return 1;
    fprintf(stderr, "publish: %zu/%zu files", done, total);
    if (path)
        put_line(stderr, ", last ", path);
    else
        fputc('\n', stderr);
    return 0;
}

int cmd_publish(const cli_args *a)
{
    char root[4096];
    const char *root_arg = opt_str(a, "--root") ? opt_str(a, "--root") : ".";
    if (!realpath(root_arg, root)) {
        fprintf(stderr, "hyrax publish: --root %s: %s\n", root_arg, strerror(errno));
        return 2;
    }
    hx_error err = {0};
    int rc = 1;
    hx_registry *r = NULL;
    hx_trust *trust = NULL;
    hx_model *model = NULL;
    hx_encoder *enc = NULL;
    hx_publish_report rep = {0};
    char (*targets)[4096] = hx_calloc(a->n_operands, sizeof *targets);
    const char **tp = hx_calloc(a->n_operands, sizeof *tp);
    if (!targets || !tp) {
        fputs("hyrax publish: out of memory\n", stderr);
        goto done;
    }
    for (size_t i = 0; i < a->n_operands; i++) {
        if (hx_fs_target(root, a->operands[i], HX_TARGET_CWD, targets[i], sizeof targets[i], &err)) {
            put_line(stderr, "hyrax publish: ", err.message);
            rc = 2;
            goto done;
        }
        tp[i] = targets[i];
    }
    if (hx_trust_load(&trust, root, &err) || registry_open(a, 0, &r, &err)) {
        put_line(stderr, "hyrax publish: ", err.message);
        goto done;
    }
    if (open_encoder(a, 0, HX_PRECISION_FP32, &model, &enc))
        goto done;
    hx_publish_opts po = {root, tp, a->n_operands, trust, opt_str(a, "--allow-unsigned") != NULL,
                          opt_str(a, "--visibility"), (size_t)opt_long(a, "--batch", 0), publish_progress, NULL};
    catch_interrupts();
    int prc = hx_publish(r, enc, model, &po, &rep, &err);
    for (size_t i = 0; i < rep.n_rejected; i++) {
        put_text(stderr, rep.rejected[i].path, SIZE_MAX, false);
        put_line(stderr, ": rejected: ", rep.rejected[i].reason);
    }
    if (prc) {
        put_line(stderr, prc == HX_ECANCELED && interrupted ? "hyrax publish: interrupted: " : "hyrax publish: ",
                 err.message);
        rc = prc == HX_ECANCELED && interrupted ? 130 : 1;
        goto done;
    }
    printf("published %zu, unchanged %zu, removed %zu, rejected %zu; %zu chunks (embedding %.2f s, registry %.2f s)\n",
           rep.published, rep.unchanged, rep.removed, rep.n_rejected, rep.chunks, rep.embed_s, rep.store_s);
    rc = rep.n_rejected ? 1 : 0;
done:
    hx_publish_report_clear(&rep);
    hx_encoder_free(enc);
    hx_model_close(model);
    hx_registry_close(r);
    hx_trust_free(trust);
    free(targets);
    free(tp);
    return rc;
}
