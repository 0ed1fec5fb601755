/* cmd_publish.c: `hyrax publish`, signed documents published to the registry (`hyrax help
 * registry`): its help text and run function. */
#include "cli.h"

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
    hx_identity id;
    const hx_identity *identity;
    if (identity_opt(a, "publish", &id, &identity))
        return 2;
    hx_error err = {0};
    hx_session *s = NULL;
    hx_publish_report rep = {0};
    hx_publish_request p = {a->operands, a->n_operands, opt_str(a, "--visibility"), opt_str(a, "--allow-unsigned") != NULL,
                            (size_t)opt_long(a, "--batch", 0)};
    hx_write_opts wo = {publish_progress, NULL, true};
    int rc = registry_session(a, identity, root, &s, &err);
    if (!rc) {
        catch_interrupts();
        rc = hx_session_publish(s, &p, &wo, &rep, &err);
    }
    for (size_t i = 0; i < rep.n_rejected; i++) {
        put_text(stderr, rep.rejected[i].path, SIZE_MAX, false);
        put_line(stderr, ": rejected: ", rep.rejected[i].reason);
    }
    if (rc) {
        bool stopped = rc == HX_ECANCELED && interrupted;
        put_line(stderr, stopped ? "hyrax publish: interrupted: " : "hyrax publish: ", err.message);
        rc = stopped ? 130 : rep.path_error ? 2 : 1;
    } else {
        printf("published %zu, unchanged %zu, removed %zu, rejected %zu; %zu chunks (embedding %.2f s, registry %.2f s)\n",
               rep.published, rep.unchanged, rep.removed, rep.n_rejected, rep.chunks, rep.embed_s, rep.store_s);
        rc = rep.n_rejected ? 1 : 0;
    }
    hx_publish_report_clear(&rep);
    hx_session_close(s);
    return rc;
}
