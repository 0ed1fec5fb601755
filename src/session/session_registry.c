/* session_registry.c: the session's registry (hyrax.h "Session: the registry"): how it connects
 * (session_registry_connect, for searches too), hx_session_registry_init, and hx_session_publish:
 * what `hyrax publish` and the MCP publish tool do, once: the root and the paths checked
 * (hx_fs_target, the one confinement rule), the trust store, the registry connection as the
 * session's tenant and user, and the fp32 encoder of the registry's vectors. The pipeline itself is
 * publish.c's, the registry's SQL registry.c's. */
#include "session_internal.h"

#include "alloc.h"
#include "fsafe.h"
#include "publish.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* === Connecting === */

int session_registry_connect(hx_session *s, bool as_login, int timeout_ms, int connect_timeout_ms, hxi_registry **r,
                             hx_error *err)
{
    bool tenant = s->has_identity && !as_login;
    hxi_registry_opts ro = {s->registry, tenant ? s->tenant : NULL, tenant ? s->user : NULL, timeout_ms,
                           connect_timeout_ms};
    return hxi_registry_connect(r, &ro, err);
}

int hx_session_registry_init(hx_session *s, int *before, hx_error *err)
{
    if (before)
        *before = 0;
    if (!s)
        return hx_error_set(err, HX_EINVAL, -1, "hx_session_registry_init needs a session");
    if (s->read_only)
        return hx_error_set(err, HX_EPERM, -1, "the session is read-only: it changes no registry");
    if (!s->registry)
        return hx_error_set(err, HX_EINVAL, -1, "no registry: name one (hx_session_config.registry or $"
                            HX_REGISTRY_ENV ")");
    hxi_registry *r = NULL;
    const hx_model *m = NULL;   /* the publisher's: its dimension sizes a new registry's vectors */
    int was = 0, rc = session_model(s, HX_PRECISION_FP32, &m, err);
    if (!rc)
        rc = session_registry_connect(s, true, 0, s->connect_timeout_ms, &r, err);
    if (!rc)
        rc = hxi_registry_migrate(r, HX_REGISTRY_SCHEMA_VERSION, hx_model_name(m), hx_model_dim(m), &was, err);
    hxi_registry_close(r);
    if (!rc && before)
        *before = was;
    return rc;
}

/* === Publishing === */

typedef struct {
    char path[4096];
} root_buf;

/* The folder the paths are under: the session's root, else the project index's. */
static int publish_root(hx_session *s, void *arg, hx_error *err)
{
    root_buf *root = arg;
    const char *from = s->root;
    if (!from) {
        hx_error perr = {0};
        int rc = session_project(s, NULL, &perr);
        if (rc == HX_ENOTFOUND)
            return hx_error_set(err, HX_EINVAL, -1, "publish reads files under a root: name one "
                                "(hx_session_config.root) or open the session on an index (%s has none)", s->db);
        if (rc)
            return hx_error_set(err, rc, perr.offset, "%s", perr.message);
        from = hx_index_root(s->project);
    }
    if ((size_t)snprintf(root->path, sizeof root->path, "%s", from) >= sizeof root->path)
        return hx_error_set(err, HX_ERANGE, -1, "the root %.200s... is too long", from);
    return 0;
}

static int check_request(const hx_session *s, const hx_publish_request *p, hx_error *err)
{
    if (s->read_only)
        return hx_error_set(err, HX_EPERM, -1, "the session is read-only: it publishes nothing");
    if (!s->registry)
        return hx_error_set(err, HX_EINVAL, -1, "no registry: name one (hx_session_config.registry or $"
                            HX_REGISTRY_ENV ")");
    if (p->n_paths && !p->paths)
        return hx_error_set(err, HX_EINVAL, -1, "n_paths is %zu and paths is NULL", p->n_paths);
    for (size_t i = 0; i < p->n_paths; i++)
        if (!p->paths[i])
            return hx_error_set(err, HX_EINVAL, -1, "path %zu is NULL", i);
    bool known = !p->visibility;
    for (size_t i = 0; !known && hx_publish_visibilities[i]; i++)
        known = !strcmp(p->visibility, hx_publish_visibilities[i]);
    if (!known)
        return hx_error_set(err, HX_EINVAL, -1, "unknown visibility '%.64s' (tenant, public or private)",
                            p->visibility);
    return 0;
}

int hx_session_publish(hx_session *s, const hx_publish_request *p, const hx_write_opts *wo, hx_publish_report *out,
                       hx_error *err)
{
    int rc = session_enter(out, sizeof *out, s && p && out, __func__, "a session, a request and a report", err);
    if (rc)
        return rc;
    rc = check_request(s, p, err);
    if (rc)
        return rc;
    root_buf rb;
    if ((rc = session_guarded(s, publish_root, &rb, err)))
        return rc;
    const char *root = rb.path;
    size_t n = p->n_paths ? p->n_paths : 1;
    char (*names)[4096] = hx_calloc(n, sizeof *names);
    const char **targets = hx_calloc(n, sizeof *targets);
    if (!names || !targets)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    bool cwd = wo && wo->cwd_paths;
    for (size_t i = 0; !rc && i < p->n_paths; i++) {
        hx_error ferr = {0};
        if ((rc = hx_fs_target(root, p->paths[i], cwd ? HX_TARGET_CWD : HX_TARGET_NAME, names[i], sizeof names[i],
                               &ferr))) {
            hx_error_set(err, rc, -1, cwd ? "%s" : "paths: %s", ferr.message);
            out->path_error = i + 1;
        }
        targets[i] = names[i];
    }
    if (!rc && !p->n_paths)
        targets[0] = "";   /* no path: the whole root */
    const hx_model *m = NULL;
    hx_encoder *enc = NULL;
    if (!rc && !(rc = session_writer_encoder(s, HX_PRECISION_FP32, &m, &enc, err)) &&
        hx_model_precision(m) != HX_PRECISION_FP32)
        rc = hx_error_set(err, HX_EINVAL, -1, "the registry holds fp32 vectors and this session's model is %s",
                          hx_precision_name(hx_model_precision(m)));
    hx_trust *trust = NULL;
    hxi_registry *r = NULL;
    if (!rc && !(rc = hx_trust_load(&trust, root, err)))
        rc = session_registry_connect(s, false, 0, s->connect_timeout_ms, &r, err);
    hxi_publish_opts po = {root, targets, n, trust, p->allow_unsigned, p->visibility, p->batch,
                          wo ? wo->progress : NULL, wo ? wo->progress_ctx : NULL};
    if (!rc)
        rc = hxi_publish(r, enc, m, &po, out, err);
    hxi_registry_close(r);
    hx_trust_free(trust);
    free(names);
    free(targets);
    return rc;
}
