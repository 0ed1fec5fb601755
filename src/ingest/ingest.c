/* ingest.c: walking, reading and describing documents (spec in ingest.h; decoding and the
 * document's own calls are src/formats/document.c's).
 * Owns walking the file system for indexing; every file is opened by hxi_fs_open_under (fsafe.h).
 * Must not chunk, embed or touch the index file. Every path it returns is relative to the root
 * and has been checked to resolve inside it. */
#include "ingest.h"
#include "alloc.h"
#include "fsafe.h"
#include "gate.h"
#include "glob.h"
#include "platform.h"
#include "sha256.h"
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* === File lists === */

void hxi_file_list_clear(hxi_file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    hxi_rejected_free(l->rejected, l->n_rejected);
    memset(l, 0, sizeof *l);
}

const char *hxi_file_list_real(const hxi_file_list *l, size_t i)
{
    return l->paths[i] + strlen(l->paths[i]) + 1;
}

/* Adds path with its real path stored after its NUL (hxi_file_list_real). */
static int list_push(hxi_file_list *l, const char *path, const char *real, hx_error *err)
{
    if (hx_grow((void **)&l->paths, &l->cap, l->n + 1, sizeof *l->paths, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory listing files");
    size_t pl = strlen(path) + 1, rl = strlen(real) + 1;
    if (!(l->paths[l->n] = hx_malloc(pl + rl)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory listing files");
    memcpy(l->paths[l->n], path, pl);
    memcpy(l->paths[l->n] + pl, real, rl);
    l->n++;
    return 0;
}

int hxi_rejected_add(hx_rejected **v, size_t *n, const char *path, const char *reason, bool named, hx_error *err)
{
    hx_rejected *grown = hx_realloc(*v, (*n + 1) * sizeof *grown);
    if (!grown)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    *v = grown;
    hx_rejected *r = &grown[*n];
    size_t len = (named ? strlen(path) + 2 : 0) + strlen(reason) + 1;
    r->path = hx_strdup(path);
    r->reason = hx_malloc(len);
    if (!r->path || !r->reason) {
        free(r->path);
        free(r->reason);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    snprintf(r->reason, len, "%s%s%s", named ? path : "", named ? ": " : "", reason);
    (*n)++;
    return 0;
}

void hxi_rejected_free(hx_rejected *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].path);
        free(v[i].reason);
    }
    free(v);
}

/* Records that path was left out, once, with the reason "<path>: <why>". */
static int list_reject(hxi_file_list *l, const char *path, const char *why, hx_error *err)
{
    for (size_t i = 0; i < l->n_rejected; i++)
        if (!strcmp(l->rejected[i].path, path))
            return 0;
    return hxi_rejected_add(&l->rejected, &l->n_rejected, path, why, true, err);
}

/* === Walk === */

/* Each entry is reached two ways: `abs`, the path the user sees (through any symlink the walk
 * followed inside the root), which names the document, and `real`, the same place with every
 * such symlink resolved, which is what is examined here and what hxi_ingest_load opens. */
typedef struct {
    const char *root;
    const char *const *excludes;
    size_t n_excludes;
    hxi_file_list *out;
    struct { dev_t dev; ino_t ino; } *seen;   /* folders entered, to cut symlink cycles */
    size_t n_seen, cap_seen;
    const char *db_name;        /* file name of the index file, or NULL; borrowed */
    struct stat db, db_dir;     /* the index file and its folder (st_nlink 0: not there) */
} walker;

static bool is_skipped_folder(const char *name)
{
    return !strcmp(name, ".git") || !strcmp(name, ".hg") || !strcmp(name, ".svn") ||
           !strcmp(name, ".hyrax");
}

static bool is_excluded(const walker *w, const char *rel)
{
    for (size_t i = 0; i < w->n_excludes; i++)
        if (hxi_glob_match(w->excludes[i], rel))
            return true;
    return false;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_nlink && b->st_nlink && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Notes the index file and its folder so the walk can skip them (compared by device and inode). */
static void note_index_file(walker *w, const char *index_file)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(index_file, '/');
    w->db_name = slash ? slash + 1 : index_file;
    size_t n = slash ? (size_t)(slash - index_file) : 0;
    if (n >= sizeof dir)
        return;
    memcpy(dir, index_file, n);
    dir[n] = 0;
    if (stat(index_file, &w->db) != 0)
        w->db.st_nlink = 0;
    if (stat(slash ? (n ? dir : "/") : ".", &w->db_dir) != 0)
        w->db_dir.st_nlink = 0;
}

static int mark_seen(walker *w, const struct stat *st, bool *already, hx_error *err)
{
    for (size_t i = 0; i < w->n_seen; i++)
        if (w->seen[i].dev == st->st_dev && w->seen[i].ino == st->st_ino) {
            *already = true;
            return 0;
        }
    *already = false;
    if (hx_grow((void **)&w->seen, &w->cap_seen, w->n_seen + 1, sizeof *w->seen, NULL))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory walking folders");
    w->seen[w->n_seen].dev = st->st_dev;
    w->seen[w->n_seen].ino = st->st_ino;
    w->n_seen++;
    return 0;
}

static int walk_path(walker *w, const char *abs, const char *real, int depth, hx_error *err);

/* Joins folder and name into out (PATH_MAX bytes); false when it does not fit. */
static bool join(char out[PATH_MAX], const char *folder, const char *name)
{
    int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(folder, "/") ? folder : "", name);
    return n >= 0 && n < PATH_MAX;
}

/* depth: the number of components of the folder's root-relative path. */
static int walk_folder(walker *w, const char *abs, const char *real, const struct stat *st, int depth,
                       hx_error *err)
{
    bool already;
    int rc = mark_seen(w, st, &already, err);
    if (rc || already)
        return rc;
    if (depth > HX_WALK_MAX_DEPTH) {
        char why[96];
        snprintf(why, sizeof why, "folder nested more than %d levels deep; nothing under it is indexed",
                 HX_WALK_MAX_DEPTH);
        return list_reject(w->out, hxi_fs_inside(w->root, abs), why, err);
    }
    int fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;   /* unreadable folders are skipped, as `find` would report and go on */
    }
    bool db_folder = w->db_name && same_file(st, &w->db_dir);
    struct dirent *e;
    char child[PATH_MAX], child_real[PATH_MAX];
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_skipped_folder(e->d_name))
            continue;
        if (db_folder && hxi_store_owns_name(w->db_name, e->d_name))
            continue;
        if (!join(child, abs, e->d_name) || !join(child_real, real, e->d_name)) {
            char why[64];
            snprintf(why, sizeof why, "path longer than %d bytes; not indexed", PATH_MAX - 1);
            const char *rel = hxi_fs_inside(w->root, abs);
            char shown[PATH_MAX];
            snprintf(shown, sizeof shown, "%s%s%.*s", rel, *rel ? "/" : "", 200, e->d_name);
            rc = list_reject(w->out, shown, why, err);
            continue;
        }
        rc = walk_path(w, child, child_real, depth + 1, err);
    }
    closedir(d);
    return rc;
}

/* abs: the path as seen (textually inside the root); real: the same place, symlink-free. */
static int walk_path(walker *w, const char *abs, const char *real, int depth, hx_error *err)
{
    struct stat st;
    if (lstat(real, &st) != 0)
        return 0;
    const char *rel = hxi_fs_inside(w->root, abs);
    if (!rel)
        return 0;
    if (*rel && is_excluded(w, rel))
        return 0;
    char resolved[PATH_MAX];
    if (S_ISLNK(st.st_mode)) {
        if (!realpath(real, resolved) || !hxi_fs_inside(w->root, resolved) || stat(resolved, &st) != 0)
            return 0;   /* dangling, or pointing out of the root: never followed */
        real = resolved;
    }
    if (S_ISDIR(st.st_mode))
        return walk_folder(w, abs, real, &st, depth, err);
    if (S_ISREG(st.st_mode) && *rel && !(w->db_name && same_file(&st, &w->db)) && !ix_gate_is_signature_file(rel))
        return list_push(w->out, rel, hxi_fs_inside(w->root, real), err);
    return 0;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int hxi_ingest_walk(const char *root, const char *const *targets, size_t n_targets,
                    const char *const *excludes, size_t n_excludes, const char *index_file,
                    hxi_file_list *out, hx_error *err)
{
    walker w = {.root = root, .excludes = excludes, .n_excludes = n_excludes, .out = out};
    int rc = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n_excludes; i++)
        if ((rc = hxi_glob_check(excludes[i], "exclude", err)))
            return rc;
    if (index_file)
        note_index_file(&w, index_file);
    for (size_t i = 0; i < n_targets && !rc; i++) {
        char abs[PATH_MAX], resolved[PATH_MAX];
        const char *name = targets[i];
        if (!*name ? snprintf(abs, sizeof abs, "%s", root) >= (int)sizeof abs : !join(abs, root, name)) {
            rc = hx_error_set(err, HX_ERANGE, -1, "path too long: %.200s", name);
            break;
        }
        if (!realpath(abs, resolved)) {
            rc = hx_error_set(err, errno == ENOENT ? HX_ENOTFOUND : HX_EIO, -1, "cannot resolve %.200s: %s",
                              *name ? name : root, strerror(errno));
            break;
        }
        if (!hxi_fs_inside(w.root, resolved)) {
            rc = hx_error_set(err, HX_EPERM, -1, "%.200s resolves outside the indexed root %.200s (symlink)", name,
                              root);
            break;
        }
        struct stat st;
        if (stat(resolved, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
            rc = list_reject(out, name, "not a regular file or folder (a FIFO, socket or device)", err);
            continue;   /* named by the user: say why nothing was indexed (the walk passes over these) */
        }
        int depth = *name ? 1 : 0;
        for (const char *p = name; *p; p++)
            depth += *p == '/';
        rc = walk_path(&w, abs, resolved, depth, err);
    }
    free(w.seen);
    if (rc) {
        hxi_file_list_clear(out);
        return rc;
    }
    if (out->n > 1)   /* paths is NULL when nothing was found */
        qsort(out->paths, out->n, sizeof *out->paths, compare_paths);
    size_t k = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (k && !strcmp(out->paths[k - 1], out->paths[i]))
            free(out->paths[i]);
        else
            out->paths[k++] = out->paths[i];
    }
    out->n = k;
    return 0;
}

/* === Describing === */

static const char *meta_get(const hxi_doc_source *d, const char *key)
{
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key))
            return d->meta[i].value;
    return NULL;
}

static uint64_t count_words(const char *s, size_t n)
{
    uint64_t words = 0;
    bool in = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        words += !space && !in;
        in = !space;
    }
    return words;
}

/* Metadata and title, in order of precedence: `extra` (tool arguments), the extractor's, the
 * type's describer (front matter); the title from metadata "title", else the extractor's or the
 * describer's, else the first non-blank line, else the file name. */
static int describe(hxi_doc_source *d, hxi_extract *x, const hx_kv *extra, size_t n_extra, hx_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < n_extra && !rc; i++)
        rc = hxi_doc_meta_add(d, 0, extra[i].key, strlen(extra[i].key), extra[i].value, strlen(extra[i].value), err);
    size_t from = d->n_meta;
    for (size_t i = 0; i < x->n_meta && !rc; i++)
        rc = hxi_doc_meta_add(d, from, x->meta[i].key, strlen(x->meta[i].key), x->meta[i].value,
                              strlen(x->meta[i].value), err);
    if (!rc && x->title)
        rc = hxi_doc_set_title(d, x->title, strlen(x->title), err);
    if (!rc && d->dt->describe)
        rc = d->dt->describe(d, err);
    char words[24];
    int wn = snprintf(words, sizeof words, "%llu", (unsigned long long)count_words(d->text, d->text_len));
    if (!rc)
        rc = hxi_doc_meta_add(d, d->n_meta, "word_count", 10, words, (size_t)wn, err);
    const char *t = meta_get(d, "title");
    if (!rc && t)
        rc = hxi_doc_set_title(d, t, strlen(t), err);
    if (!rc && !d->title)
        rc = hxi_doc_title_from_lines(d, 0, false, err);
    if (rc || d->title)
        return rc;
    const char *slash = strrchr(d->path, '/');
    const char *base = slash ? slash + 1 : d->path;
    return hxi_doc_set_title(d, base, strlen(base), err);
}

/* === Loading === */

static int fill_from_bytes(hxi_doc_source *d, const char *path, const uint8_t *raw, size_t len,
                           const hx_kv *extra, size_t n_extra, hx_error *err)
{
    memset(d, 0, sizeof *d);
    if (!(d->path = hx_strdup(path)))
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    d->size = len;
    d->dt = hxi_doctype_detect(path, raw, len);
    d->type = d->dt->name;
    hxi_sha256_hex(raw, len, d->sha256);
    hxi_extract x;
    int rc = hxi_extract_init(&x, len, err);
    if (rc) {
        hxi_doc_source_clear(d);
        return rc;
    }
    x.name = path;
    rc = d->dt->extract(raw, len, &x, err);
    if (!rc) {
        hxi_doc_take_extract(d, &x);
        d->unit = d->dt->unit;
        rc = describe(d, &x, extra, n_extra, err);
    }
    hxi_extract_clear(&x);
    if (rc)
        hxi_doc_source_clear(d);
    return rc;
}

int hxi_ingest_from_bytes(const char *name, const void *bytes, size_t len, const hx_kv *extra,
                          size_t n_extra, hxi_doc_source *doc, hx_error *err)
{
    return fill_from_bytes(doc, name, bytes, len, extra, n_extra, err);
}

int hxi_ingest_read(const char *root, const char *rel_path, const char *read_path, size_t max_bytes,
                    uint8_t **raw, size_t *len, int64_t *mtime_ns, hx_error *err)
{
    const char *from = read_path ? read_path : rel_path;
    char *buf;
    int rc = hxi_fs_read_under(root, from, max_bytes, &buf, len, mtime_ns, err);
    if (rc && err && strcmp(from, rel_path)) {   /* name the document, not the path it was read by */
        char reason[sizeof err->message];
        memcpy(reason, err->message, sizeof reason);
        hx_error_set(err, rc, err->offset, "%s: %s", rel_path, reason);
    }
    *raw = (uint8_t *)buf;
    return rc;
}

int hxi_ingest_load(const char *root, const char *rel_path, const char *read_path, size_t max_bytes,
                    hxi_doc_source *doc, hx_error *err)
{
    memset(doc, 0, sizeof *doc);
    uint8_t *raw;
    size_t len;
    int64_t mtime;
    int rc = hxi_ingest_read(root, rel_path, read_path, max_bytes, &raw, &len, &mtime, err);
    if (rc)
        return rc;
    rc = fill_from_bytes(doc, rel_path, raw, len, NULL, 0, err);
    free(raw);
    if (!rc) {
        doc->mtime_ns = mtime;
    } else if (err) {
        char reason[sizeof err->message];
        memcpy(reason, err->message, sizeof reason);
        hx_error_set(err, rc, err->offset, "%s: %s", rel_path, reason);
    }
    return rc;
}
