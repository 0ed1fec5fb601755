/* trust.c: a document's trust attributes from its own metadata (trust.h), and the visibility
 * rule (hyrax.h hx_doc_visible). Owns the meaning of the metadata keys tenant, visibility and
 * owner; knows nothing of storage (index_write.c calls it for every new or changed document,
 * view_load.c applies the rule to a handle's view) or of the gate's policy. */
#include "trust.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const vis_names[] = {"public", "tenant", "private"};   /* hx_visibility order */

__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return HX_EINVAL;
}

int ix_trust_name_check(const char *key, const char *value, char *why, size_t cap)
{
    size_t n = strlen(value);
    if (n == 0)
        return refuse(why, cap, "%s is empty", key);
    if (n > IX_TRUST_VALUE_MAX)
        return refuse(why, cap, "%s is longer than %d bytes", key, IX_TRUST_VALUE_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
            return refuse(why, cap, "%s holds a control character", key);
    return 0;
}

int ix_trust_check(const hx_doc_trust *t, char *why, size_t cap)
{
    if (t->visibility == HX_VIS_TENANT && !*t->tenant)
        return refuse(why, cap, "visibility tenant needs a tenant (metadata key 'tenant')");
    if (t->visibility == HX_VIS_PRIVATE && (!*t->owner || !*t->tenant))
        return refuse(why, cap, "visibility private needs an owner and a tenant (metadata keys 'owner' and "
                      "'tenant')");
    return 0;
}

int ix_trust_from_meta(const hx_kv *meta, size_t n, hx_doc_trust *out, char *why, size_t cap)
{
    static const char *const keys[3] = {"tenant", "visibility", "owner"};
    const char *values[3] = {NULL, NULL, NULL};
    *out = (hx_doc_trust){.tenant = "", .owner = "", .signer = "", .visibility = HX_VIS_PUBLIC};
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            if (strcasecmp(meta[i].key, keys[k]))
                continue;
            if (strcmp(meta[i].key, keys[k]))   /* "Visibility: private" must not read as public */
                return refuse(why, cap, "metadata key '%.40s' must be written '%s'", meta[i].key, keys[k]);
            if (values[k])
                return refuse(why, cap, "metadata key '%s' is given more than once", keys[k]);
            int rc = ix_trust_name_check(keys[k], meta[i].value, why, cap);
            if (rc)
                return rc;
            values[k] = meta[i].value;
        }
    }
    if (values[1]) {
        size_t v = 0;
        while (v < 3 && strcmp(values[1], vis_names[v]))
            v++;
        if (v == 3)
            return refuse(why, cap, "visibility '%.128s' is not public, tenant or private", values[1]);
        out->visibility = (hx_visibility)v;
    }
    out->tenant = values[0] ? values[0] : "";
    out->owner = values[2] ? values[2] : "";
    return ix_trust_check(out, why, cap);
}

int hx_identity_check(const hx_identity *id, hx_error *err)
{
    char why[200];
    if (!id || !id->tenant)
        return hx_error_set(err, HX_EINVAL, -1, "a reader identity needs a tenant (a user is a user of a tenant)");
    if (ix_trust_name_check("the tenant", id->tenant, why, sizeof why) ||
        (id->user && ix_trust_name_check("the user", id->user, why, sizeof why)))
        return hx_error_set(err, HX_EINVAL, -1, "%s", why);
    return 0;
}

bool hx_doc_visible(const hx_doc_info *d, const hx_identity *id)
{
    if (!id || d->trust.visibility == HX_VIS_PUBLIC)
        return true;
    bool same_tenant = *d->trust.tenant && id->tenant && !strcmp(d->trust.tenant, id->tenant);
    if (d->trust.visibility == HX_VIS_TENANT)
        return same_tenant;
    return same_tenant && d->trust.visibility == HX_VIS_PRIVATE && *d->trust.owner && id->user &&
           !strcmp(d->trust.owner, id->user);
}
