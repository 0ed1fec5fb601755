/* catalog.c: the models hyrax knows by name (one row each in `models` below) and the places their
 * weights files are looked for; resolves `--model NAME|FILE` to a file or the weights linked into
 * the binary. Must not read a weights file (model.c). Spec: include/hyrax.h "Models by name". */
#include "model.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "platform.h"

/* Weights linked into the binary by `make static` (src/model/weights_blob.S: the default model's
 * always, mpnet's with MODEL=mpnet); NULL when not linked in. */
extern const uint8_t hxi_weights_minilm[] __attribute__((weak));
extern const uint8_t hxi_weights_minilm_end[] __attribute__((weak));
extern const uint8_t hxi_weights_mpnet[] __attribute__((weak));
extern const uint8_t hxi_weights_mpnet_end[] __attribute__((weak));

/* One row per model: add a model here (and to tools/get_model.py, which fetches it, and to
 * weights_blob.S and the Makefile's static target, which link it in). The first row is the
 * default, always built in by `make static`. */
static const struct {
    const char *alias, *name, *file, *about;
    int dim;
    const uint8_t *blob, *blob_end;   /* linked in by `make static`, or NULL */
} models[] = {
    {"minilm", "all-MiniLM-L6-v2", HX_WEIGHTS_FILE, "default: fast, 384 dimensions, 256 tokens", 384,
     hxi_weights_minilm, hxi_weights_minilm_end},
    {"mpnet", "all-mpnet-base-v2", "all-mpnet-base-v2.hxw",
     "better quality for large registries: about 5x the compute, 768 dimensions, 384 tokens; make mpnet", 768,
     hxi_weights_mpnet, hxi_weights_mpnet_end},
};
#define N_MODELS (sizeof models / sizeof *models)

/* Whether row i's weights are linked into the binary. */
static int built_in(size_t i)
{
    return models[i].blob && models[i].blob_end > models[i].blob;
}

static int try_path(char *buf, size_t cap, const char *dir, const char *sub, const char *file)
{
    int n = snprintf(buf, cap, "%s%s%s", dir, sub, file);
    return n > 0 && (size_t)n < cap && access(buf, R_OK) == 0;
}

/* The weights file `file` in the places hyrax.h lists for hx_model_find: 1 and its path in buf,
 * else 0. */
static int find_file(const char *file, char *buf, size_t cap)
{
    const char *env = getenv("HYRAX_WEIGHTS");
    if (env && *env) {   /* its folder holds the other models too */
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", env);
        char *slash = strrchr(dir, '/');
        if (slash) {
            slash[1] = 0;
            if (try_path(buf, cap, dir, "", file))
                return 1;
        }
    }
    char exe[PATH_MAX];
    if (hx_platform_exe_path(exe, sizeof exe) == 0) {
        char *slash = strrchr(exe, '/');
        if (slash) {
            slash[1] = 0;
            if (try_path(buf, cap, exe, "weights/", file) || try_path(buf, cap, exe, "../weights/", file) ||
                try_path(buf, cap, exe, "../share/hyrax/", file))
                return 1;
        }
    }
    char lib[PATH_MAX];   /* an installed libhyrax.so: PREFIX/lib/libhyrax.so.N, weights in PREFIX/share/hyrax */
    if (hxi_platform_lib_path(lib, sizeof lib) == 0) {
        char *slash = strrchr(lib, '/');
        slash[1] = 0;
        if (try_path(buf, cap, lib, "../share/hyrax/", file))
            return 1;
    }
    return try_path(buf, cap, "/usr/local/share/hyrax/", "", file) || try_path(buf, cap, "/usr/share/hyrax/", "", file);
}

int hx_model_default_path(char *buf, size_t cap, hx_error *err)
{
    if (!buf || cap == 0)
        return hx_error_set(err, HX_EINVAL, -1, "no buffer for the weights path");
    const char *env = getenv("HYRAX_WEIGHTS");
    if (env && *env) {
        if (strlen(env) >= cap)
            return hx_error_set(err, HX_ERANGE, -1, "HYRAX_WEIGHTS is longer than %zu bytes", cap - 1);
        strcpy(buf, env);
        return 0;
    }
    if (find_file(HX_WEIGHTS_FILE, buf, cap))
        return 0;
    buf[0] = 0;
    return hx_error_set(err, HX_ENOTFOUND, -1, "cannot find %s: set HYRAX_WEIGHTS, or put it in "
                        "weights/ beside the hyrax executable or in /usr/local/share/hyrax/",
                        HX_WEIGHTS_FILE);
}

/* Row of the catalog that s names (alias or name, any case), or -1. */
static int row_of(const char *s)
{
    for (size_t i = 0; s && i < N_MODELS; i++)
        if (!strcasecmp(s, models[i].alias) || !strcasecmp(s, models[i].name))
            return (int)i;
    return -1;
}

size_t hx_model_catalog_size(void)
{
    return N_MODELS;
}

int hx_model_catalog(size_t i, hx_model_info *out)
{
    if (i >= N_MODELS || !out)
        return HX_EINVAL;
    memset(out, 0, sizeof *out);
    out->alias = models[i].alias;
    out->name = models[i].name;
    out->file = models[i].file;
    out->about = models[i].about;
    out->dim = models[i].dim;
    out->built_in = built_in(i);
    if (i == 0) {
        if (hx_model_default_path(out->path, sizeof out->path, NULL))
            out->path[0] = 0;
    } else if (!find_file(models[i].file, out->path, sizeof out->path)) {
        out->path[0] = 0;
    }
    return 0;
}

int hx_model_find(const char *name_or_file, char *buf, size_t cap, hx_error *err)
{
    const uint8_t *blob;
    size_t len;
    if (!buf || cap == 0)
        return hx_error_set(err, HX_EINVAL, -1, "no buffer for the weights path");
    int rc = hxi_model_locate(name_or_file, buf, cap, &blob, &len, err);
    if (!rc && blob)
        snprintf(buf, cap, "(built in)");
    return rc;
}

int hxi_model_locate(const char *name_or_file, char *path, size_t cap, const uint8_t **blob, size_t *blob_len,
                     hx_error *err)
{
    *blob = NULL;
    *blob_len = 0;
    path[0] = 0;
    const int row = row_of(name_or_file), is_default = !name_or_file || row == 0;
    const char *env = getenv("HYRAX_WEIGHTS");
    if (row >= 0 && !is_default && built_in((size_t)row)) {
        *blob = models[row].blob;
        *blob_len = (size_t)(models[row].blob_end - models[row].blob);
        return 0;
    }
    if (is_default && (!env || !*env) && built_in(0)) {
        *blob = models[0].blob;
        *blob_len = (size_t)(models[0].blob_end - models[0].blob);
        return 0;
    }
    if (is_default)
        return hx_model_default_path(path, cap, err);
    if (row < 0) {
        if (strlen(name_or_file) >= cap)
            return hx_error_set(err, HX_ERANGE, -1, "weights path is longer than %zu bytes", cap - 1);
        strcpy(path, name_or_file);
        return 0;
    }
    if (find_file(models[row].file, path, cap))
        return 0;
    return hx_error_set(err, HX_ENOTFOUND, -1, "model %s (%s) is not installed: no %s beside $HYRAX_WEIGHTS, "
                        "in weights/ beside the hyrax executable or in /usr/local/share/hyrax/ (make %s "
                        "fetches it)", models[row].alias, models[row].name, models[row].file, models[row].alias);
}

const char *hx_model_alias(const char *name)
{
    const int row = row_of(name);
    return row < 0 ? NULL : models[row].alias;
}
