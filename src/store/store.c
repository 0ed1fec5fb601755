/* store.c: the index file specified in store.h: creation, open and validation (damage versus a
 * crash), readers and refresh, verify, and the names of the files beside an index. The chain of
 * generations read back is store_chain.c's; the writer (append, commit, abort, compaction)
 * store_write.c's; the fault guard for maps of files changed underneath a reader src/base/fault.c's.
 * Must not interpret blob or root contents (the index layer owns them); never writes through a map.
 * Every offset and length read from the file is checked against the committed length first. */
#include "store_internal.h"
#include "alloc.h"
#include "bytes.h"
#include "crc32c.h"
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char header_magic[8] = {'H', 'Y', 'R', 'A', 'X', 'D', 'B', '\n'};
static const char slot_magic[8] = {'H', 'X', 'M', 'E', 'T', 'A', '0', '1'};
const char st_record_magic[8] = {'H', 'X', 'C', 'O', 'M', 'M', 'I', 'T'};

uint32_t st_blob_crc32c(const uint8_t *data, uint64_t len)
{
    return hxf_crc32c_threads(data, (size_t)len, hx_platform_cpus());
}

/* === Small helpers === */

int64_t st_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

uint64_t st_align_up(uint64_t x)
{
    return (x + HX_STORE_ALIGN - 1) & ~(uint64_t)(HX_STORE_ALIGN - 1);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
    size_t done = 0;
    while (done < len) {
        ssize_t k = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        done += (size_t)k;
    }
    *got = done;
    return 0;
}

int st_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t k = pwrite(fd, (const uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        done += (size_t)k;
    }
    return 0;
}

int st_sync_dir_of(const char *path, hx_error *err)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        return hx_error_set(err, HX_EINVAL, -1, "path too long: %s", path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return hx_error_set(err, HX_EIO, -1, "cannot open folder %s: %s", dir, strerror(errno));
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0)
        return hx_error_set(err, HX_EIO, -1, "cannot sync folder %s: %s", dir, strerror(e));
    return 0;
}

void hxi_store_ref_put(uint8_t out[HX_STORE_REF_SIZE], hxi_store_ref ref)
{
    hxf_put64(out, ref.offset);
    hxf_put64(out + 8, ref.length);
    hxf_put32(out + 16, ref.crc32c);
}

hxi_store_ref hxi_store_ref_get(const uint8_t in[HX_STORE_REF_SIZE])
{
    hxi_store_ref r = {hxf_le64(in), hxf_le64(in + 8), hxf_le32(in + 16)};
    return r;
}

/* === Encoding === */

static void header_encode(uint8_t b[HEADER_SIZE], int64_t created)
{
    memset(b, 0, HEADER_SIZE);
    memcpy(b, header_magic, 8);
    hxf_put32(b + 8, HX_STORE_VERSION);
    hxf_put32(b + 12, HX_STORE_PAGE);
    hxf_put32(b + 16, HX_STORE_ALIGN);
    hxf_put64(b + 24, (uint64_t)created);
    hxf_put32(b + 60, hxf_crc32c(0, b, 60));
}

void st_slot_encode(uint8_t b[SLOT_SIZE], const meta *m)
{
    memset(b, 0, SLOT_SIZE);
    memcpy(b, slot_magic, 8);
    hxf_put64(b + 8, m->gen);
    hxf_put64(b + 16, (uint64_t)m->ts);
    hxi_store_ref_put(b + 24, m->rec);
    hxf_put64(b + 48, m->committed);
    hxf_put32(b + 60, hxf_crc32c(0, b, 60));
}

/* === Decoding and validation === */

static int header_check(int fd, const char *path, int64_t *created, hx_error *err)
{
    uint8_t b[HEADER_SIZE];
    size_t got;
    if (pread_all(fd, b, sizeof b, 0, &got) != 0)
        return hx_error_set(err, HX_EIO, 0, "cannot read %s: %s", path, strerror(errno));
    if (got < sizeof b)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)got,
                            "%s is %zu bytes, shorter than the %d-byte header", path, got, HEADER_SIZE);
    if (memcmp(b, header_magic, 8) != 0)
        return hx_error_set(err, HX_EFORMAT, 0, "%s is not a hyrax index (bad magic)", path);
    uint32_t version = hxf_le32(b + 8);
    if (version != HX_STORE_VERSION)
        return hx_error_set(err, HX_EVERSION, 8,
                            "%s has index format version %u; this build reads version %u", path,
                            version, HX_STORE_VERSION);
    if (hxf_crc32c(0, b, 60) != hxf_le32(b + 60))
        return hx_error_set(err, HX_ECHECKSUM, 60, "%s: header fails its checksum", path);
    if (hxf_le32(b + 12) != HX_STORE_PAGE || hxf_le32(b + 16) != HX_STORE_ALIGN)
        return hx_error_set(err, HX_EFORMAT, 12, "%s: page size %u / alignment %u not supported",
                            path, hxf_le32(b + 12), hxf_le32(b + 16));
    if (hxf_le32(b + 20) || !all_zero(b + 32, 28))
        return hx_error_set(err, HX_EFORMAT, 20, "%s: reserved header bytes are not zero", path);
    *created = (int64_t)hxf_le64(b + 24);
    return 0;
}

/* Decodes slot bytes read at `off`; checks everything that needs no other part of the file. */
static int slot_decode(const uint8_t b[SLOT_SIZE], uint64_t off, uint64_t file_size, meta *m,
                       hx_error *err)
{
    if (memcmp(b, slot_magic, 8) != 0)
        return hx_error_set(err, HX_EFORMAT, (int64_t)off, "meta slot at %llu is empty or not a meta slot",
                            (unsigned long long)off);
    if (hxf_crc32c(0, b, 60) != hxf_le32(b + 60))
        return hx_error_set(err, HX_ECHECKSUM, (int64_t)off, "meta slot at %llu fails its checksum",
                            (unsigned long long)off);
    m->gen = hxf_le64(b + 8);
    m->ts = (int64_t)hxf_le64(b + 16);
    m->rec = hxi_store_ref_get(b + 24);
    m->committed = hxf_le64(b + 48);
    if (hxf_le32(b + 44) || hxf_le32(b + 56))
        return hx_error_set(err, HX_EFORMAT, (int64_t)off, "meta slot at %llu has reserved bytes set",
                            (unsigned long long)off);
    if (m->rec.offset == 0) {
        if (m->rec.length || m->rec.crc32c || m->committed != HX_STORE_DATA_START)
            return hx_error_set(err, HX_EFORMAT, (int64_t)off, "meta slot at %llu is inconsistent",
                                (unsigned long long)off);
    } else if (m->rec.offset < HX_STORE_DATA_START || m->rec.offset % HX_STORE_ALIGN ||
               m->rec.length < RECORD_HEAD || m->rec.offset > UINT64_MAX - m->rec.length ||
               m->rec.offset + m->rec.length != m->committed) {
        return hx_error_set(err, HX_EFORMAT, (int64_t)off,
                            "meta slot at %llu points at a misplaced commit record",
                            (unsigned long long)off);
    }
    if (m->committed > file_size)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)file_size,
                            "generation %llu needs %llu bytes but the file has %llu",
                            (unsigned long long)m->gen, (unsigned long long)m->committed,
                            (unsigned long long)file_size);
    if (m->committed > SIZE_MAX)
        return hx_error_set(err, HX_ERANGE, (int64_t)off, "file too large to map");
    return 0;
}

/* Parses the commit record `ref` of a map of `size` bytes; checks bounds, CRC and every field. */
static int record_parse(const uint8_t *map, uint64_t size, hxi_store_ref ref, record *r, hx_error *err)
{
    int64_t at = (int64_t)ref.offset;
    if (ref.offset < HX_STORE_DATA_START || ref.offset % HX_STORE_ALIGN || ref.length < RECORD_HEAD ||
        ref.offset > size || ref.length > size - ref.offset)
        return hx_error_set(err, HX_EFORMAT, at, "commit record at %llu (%llu bytes) lies outside the file",
                            (unsigned long long)ref.offset, (unsigned long long)ref.length);
    const uint8_t *p = map + ref.offset;
    if (hxf_crc32c(0, p, (size_t)ref.length) != ref.crc32c)
        return hx_error_set(err, HX_ECHECKSUM, at, "commit record at %llu fails its checksum",
                            (unsigned long long)ref.offset);
    if (memcmp(p, st_record_magic, 8) != 0)
        return hx_error_set(err, HX_EFORMAT, at, "no commit record at %llu (bad magic)",
                            (unsigned long long)ref.offset);
    r->self = ref;
    r->gen = hxf_le64(p + 8);
    r->ts = (int64_t)hxf_le64(p + 16);
    r->prev = hxi_store_ref_get(p + 24);
    r->n_blobs = hxf_le32(p + 44);
    r->root_len = hxf_le64(p + 48);
    unsigned name_len = p[56];
    if (!all_zero(p + 57, 7) || name_len > HX_STORE_NAME_MAX || r->root_len > MAX_ROOT ||
        r->n_blobs > MAX_BLOBS_PER_COMMIT)
        return hx_error_set(err, HX_EFORMAT, at, "commit record at %llu has bad fields",
                            (unsigned long long)ref.offset);
    uint64_t padded = (r->root_len + 7) & ~(uint64_t)7;
    if (RECORD_HEAD + padded + (uint64_t)r->n_blobs * TABLE_ENTRY != ref.length)
        return hx_error_set(err, HX_EFORMAT, at, "commit record at %llu has the wrong length",
                            (unsigned long long)ref.offset);
    if (!all_zero(p + RECORD_HEAD + r->root_len, (size_t)(padded - r->root_len)) ||
        !all_zero(p + 64 + name_len, HX_STORE_NAME_MAX - name_len) ||
        memchr(p + 64, 0, name_len) != NULL)
        return hx_error_set(err, HX_EFORMAT, at, "commit record at %llu has bad padding or name",
                            (unsigned long long)ref.offset);
    memcpy(r->name, p + 64, name_len);
    r->name[name_len] = 0;
    r->root = p + RECORD_HEAD;
    r->table = p + RECORD_HEAD + padded;
    if (r->prev.offset == 0) {
        if (r->prev.length || r->prev.crc32c)
            return hx_error_set(err, HX_EFORMAT, at, "commit record at %llu has a bad chain link",
                                (unsigned long long)ref.offset);
    } else if (r->prev.offset > ref.offset || r->prev.length > ref.offset - r->prev.offset ||
               r->gen == 0) {
        return hx_error_set(err, HX_EFORMAT, at, "commit record at %llu links forward in the file",
                            (unsigned long long)ref.offset);
    }
    return 0;
}

/* The commit before r in the chain: 1 and *prev filled, 0 at the first commit of the file. */
int st_chain_prev(const view *v, const record *r, record *prev, hx_error *err)
{
    if (r->prev.offset == 0)
        return 0;
    int rc = record_parse(v->map, v->m.committed, r->prev, prev, err);
    if (rc)
        return rc;
    if (prev->gen >= r->gen)   /* gaps where compaction dropped commits (store.h) */
        return hx_error_set(err, HX_EFORMAT, (int64_t)r->prev.offset,
                            "commit record at %llu has generation %llu, not below %llu",
                            (unsigned long long)r->prev.offset, (unsigned long long)prev->gen,
                            (unsigned long long)r->gen);
    return 1;
}

/* Maps the file for meta m and checks its record; fills v on success. */
int st_view_load(int fd, const meta *m, int slot, view *v, hx_error *err)
{
    void *map = mmap(NULL, (size_t)m->committed, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return hx_error_set(err, HX_EIO, -1, "cannot map %llu bytes: %s",
                            (unsigned long long)m->committed, strerror(errno));
    memset(v, 0, sizeof *v);
    v->map = map;
    v->m = *m;
    v->slot = slot;
    if (m->rec.offset) {
        int rc = record_parse(v->map, m->committed, m->rec, &v->r, err);
        if (rc == 0 && (v->r.gen != m->gen || v->r.ts != m->ts))
            rc = hx_error_set(err, HX_EFORMAT, (int64_t)m->rec.offset,
                              "commit record at %llu does not match its meta slot",
                              (unsigned long long)m->rec.offset);
        if (rc) {
            munmap(map, (size_t)m->committed);
            v->map = NULL;
            return rc;
        }
    }
    return 0;
}

void st_view_drop(view *v)
{
    if (v->map)
        munmap(v->map, (size_t)v->m.committed);
    v->map = NULL;
}

static bool meta_equal(const meta *a, const meta *b)
{
    return a->gen == b->gen && a->ts == b->ts && a->rec.offset == b->rec.offset &&
           a->rec.length == b->rec.length && a->rec.crc32c == b->rec.crc32c &&
           a->committed == b->committed;
}

static int check_table_entry(const view *v, const record *r, uint32_t i, uint64_t *low, hx_error *err);

/* Looks past the commit in `m` (the newest a valid slot proves) for the record of the next
 * commit (a higher generation: compaction may leave gaps): written and synced before its meta
 * slot, so when that slot is damaged the record still proves the commit, provided it chains to
 * m's record, every blob it lists lies between m's committed length and the record and passes
 * its checksum, and what survives of the damaged slot `bad` agrees with it (a slot that still has its magic must hold the record's CRC, or be
 * damaged in that field alone). Takes the last such record (an earlier match could be bytes
 * inside a blob). Returns 1 with *next filled, 0 when there is none. */
static int roll_forward(int fd, uint64_t size, const meta *m, const uint8_t bad[SLOT_SIZE], meta *next)
{
    if (size <= m->committed || size > SIZE_MAX || m->gen == UINT64_MAX)
        return 0;
    uint8_t *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return 0;
    view scan = {.map = map};
    int found = 0;
    for (uint64_t off = st_align_up(m->committed); off <= size && size - off >= RECORD_HEAD; off += HX_STORE_ALIGN) {
        const uint8_t *p = map + off;
        hxi_store_ref prev = hxi_store_ref_get(p + 24);
        if (memcmp(p, st_record_magic, 8) || hxf_le64(p + 8) <= m->gen || prev.offset != m->rec.offset ||
            prev.length != m->rec.length || prev.crc32c != m->rec.crc32c)
            continue;
        uint64_t root_len = hxf_le64(p + 48), n = hxf_le32(p + 44);
        if (root_len > MAX_ROOT || n > MAX_BLOBS_PER_COMMIT)
            continue;
        uint64_t len = RECORD_HEAD + ((root_len + 7) & ~(uint64_t)7) + n * TABLE_ENTRY;
        if (len > size - off)
            continue;
        hxi_store_ref ref = {off, len, hxf_crc32c(0, p, (size_t)len)};
        record r;
        if (record_parse(map, size, ref, &r, NULL) != 0)
            continue;
        if (!memcmp(bad, slot_magic, 8) && hxf_le32(bad + 40) != ref.crc32c) {
            uint8_t fixed[SLOT_SIZE];   /* only the CRC field itself damaged? */
            memcpy(fixed, bad, SLOT_SIZE);
            hxf_put32(fixed + 40, ref.crc32c);
            if (hxf_crc32c(0, fixed, 60) != hxf_le32(fixed + 60))
                continue;
        }
        uint64_t low = m->committed;
        uint32_t i = 0;
        while (i < r.n_blobs && check_table_entry(&scan, &r, i, &low, NULL) == 0)
            i++;
        if (i < r.n_blobs)
            continue;
        *next = (meta){r.gen, r.ts, ref, off + len};
        found = 1;
    }
    munmap(map, (size_t)size);
    return found;
}

/* Takes the newest commit of fd that can be proven into *v and says in *h what else was found.
 * When `cur` is given and that commit is the one cur already shows, returns 1 without keeping a
 * new map. */
static int open_newest(int fd, const char *path, const view *cur, view *v, health *h, hx_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return hx_error_set(err, HX_EIO, -1, "cannot stat %s: %s", path, strerror(errno));
    uint64_t size = (uint64_t)st.st_size;
    if (size < HX_STORE_DATA_START)
        return hx_error_set(err, HX_ETRUNCATED, (int64_t)size,
                            "%s is %llu bytes, shorter than its header and meta pages (%d)", path,
                            (unsigned long long)size, HX_STORE_DATA_START);
    memset(h, 0, sizeof *h);
    h->bad_slot = -1;
    h->file_size = size;
    meta m[2];
    int rc[2];
    bool empty[2], slot_bad[2];   /* slot_bad: the slot itself fails, not its record or length */
    uint8_t b[2][SLOT_SIZE];
    hx_error e[2];
    for (int i = 0; i < 2; i++) {
        size_t got;
        uint64_t off = (uint64_t)HX_STORE_PAGE * (uint64_t)(1 + i);
        if (pread_all(fd, b[i], SLOT_SIZE, off, &got) != 0)
            return hx_error_set(err, HX_EIO, (int64_t)off, "cannot read %s: %s", path, strerror(errno));
        empty[i] = got == SLOT_SIZE && all_zero(b[i], SLOT_SIZE);
        rc[i] = got < SLOT_SIZE ? hx_error_set(&e[i], HX_ETRUNCATED, (int64_t)off, "meta slot cut short")
                                : slot_decode(b[i], off, size, &m[i], &e[i]);
        slot_bad[i] = rc[i] != 0 && rc[i] != HX_ETRUNCATED;
    }
    int order[2] = {0, 1};
    if ((rc[0] == 0 && rc[1] == 0 && m[1].gen > m[0].gen) || (rc[0] != 0 && rc[1] == 0)) {
        order[0] = 1;
        order[1] = 0;
    }
    /* The other slot is sound when it decodes (it is older, or it would have been taken) or
     * when it was never written and the taken slot is a new file's empty store. */
    int first = order[0], other = 1 - first;
    if (cur && rc[first] == 0 && cur->slot == first && meta_equal(&cur->m, &m[first]) &&
        (rc[other] == 0 || (empty[other] && m[first].rec.offset == 0)))
        return 1;
    int taken = -1;
    for (int k = 0; k < 2 && taken < 0; k++) {
        int i = order[k];
        if (rc[i] == 0 && (rc[i] = st_view_load(fd, &m[i], i, v, &e[i])) == 0)
            taken = i;
    }
    if (taken < 0)
        return hx_error_set(err, rc[order[0]], e[order[0]].offset,
                            "%s has no valid commit: slot 0: %s; slot 1: %s", path, e[0].message, e[1].message);
    other = 1 - taken;
    if (rc[other] == 0 || (empty[other] && v->m.rec.offset == 0))
        goto done;
    h->damaged = true;
    h->bad_slot = other;
    h->truncated = rc[other] == HX_ETRUNCATED;
    meta next;
    view rv;
    if (slot_bad[other] && roll_forward(fd, size, &v->m, b[other], &next) &&
        st_view_load(fd, &next, other, &rv, NULL) == 0) {
        h->rolled = true;
        snprintf(h->note, sizeof h->note,
                 "meta slot %d is damaged (%s); generation %llu recovered from its commit record at byte %llu",
                 other, empty[other] ? "zeroed" : e[other].message, (unsigned long long)next.gen,
                 (unsigned long long)next.rec.offset);
        st_view_drop(v);
        *v = rv;
    } else {
        snprintf(h->note, sizeof h->note, "meta slot %d is damaged (%s); fell back to generation %llu (slot %d)%s",
                 other, empty[other] ? "zeroed" : e[other].message, (unsigned long long)v->m.gen, taken,
                 size > v->m.committed ? "; the bytes past it are unproven" : "");
    }
done:
    if (cur && cur->slot == v->slot && meta_equal(&cur->m, &v->m)) {
        st_view_drop(v);
        return 1;
    }
    return 0;
}

/* === Creation === */

/* Creates `path` holding the empty store of generation `gen0`, atomically: the bytes are written
 * and synced beside it, then linked into place (EEXIST: someone else created it, which is fine). */
int st_create_file(const char *path, uint64_t gen0, hx_error *err)
{
    char tmp[4200];
    int fd = -1, rc;
    uint8_t *buf = NULL;
    for (int attempt = 0; fd < 0; attempt++) {
        if (snprintf(tmp, sizeof tmp, "%s" HX_STORE_TMP_NEW "%ld-%lld", path, (long)getpid(),
                     (long long)st_now_ns()) >= (int)sizeof tmp)
            return hx_error_set(err, HX_EINVAL, -1, "path too long: %s", path);
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt > 100))
            return hx_error_set(err, HX_EIO, -1, "cannot create %s: %s", tmp, strerror(errno));
    }
    buf = hx_calloc(1, HX_STORE_DATA_START);
    if (!buf) {
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory");
        goto err;
    }
    int64_t t = st_now_ns();
    header_encode(buf, t);
    meta m = {gen0, t, {0, 0, 0}, HX_STORE_DATA_START};
    st_slot_encode(buf + HX_STORE_PAGE, &m);
    if (st_pwrite_all(fd, buf, HX_STORE_DATA_START, 0) != 0 || fsync(fd) != 0) {
        rc = hx_error_set(err, HX_EIO, -1, "cannot write %s: %s", tmp, strerror(errno));
        goto err;
    }
    /* link() fails when another process created the file first; on file systems without hard
     * links, rename() is the fallback (two creators racing there: the last one wins, and both
     * files hold the same empty store). */
    if (link(tmp, path) != 0 && errno != EEXIST &&
        ((errno != EPERM && errno != ENOTSUP) || rename(tmp, path) != 0)) {
        rc = hx_error_set(err, HX_EIO, -1, "cannot create %s: %s", path, strerror(errno));
        goto err;
    }
    free(buf);
    close(fd);
    unlink(tmp);
    return st_sync_dir_of(path, err);
err:
    free(buf);
    close(fd);
    unlink(tmp);
    return rc;
}

/* === Open and close === */

/* Opens `path` for reading (or reading and writing) without blocking and refuses anything but a
 * regular file: a FIFO or device given as the index would otherwise hang the caller. Returns the
 * descriptor, or a negative code with err set (HX_ENOTFOUND when missing). */
static int open_regular(const char *path, bool write, hx_error *err)
{
    int fd = open(path, (write ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return hx_error_set(err, errno == ENOENT ? HX_ENOTFOUND : HX_EIO, -1, "cannot open %s: %s", path,
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int rc = hx_error_set(err, HX_EFORMAT, -1, "%s is not a regular file, so it cannot be an index", path);
        close(fd);
        return rc;
    }
    return fd;  /* O_NONBLOCK means nothing for a regular file, so it stays set */
}

/* Opens the writer's descriptor: locks it and makes sure it is still the file at `path` (a
 * compaction may have renamed a new file over it between open and lock). */
static int open_locked(hxi_store *s, unsigned flags, hx_error *err)
{
    for (int attempt = 0; attempt < OPEN_RETRIES; attempt++) {
        hx_error oe;
        s->fd = open_regular(s->path, true, &oe);
        if (s->fd == HX_ENOTFOUND && (flags & HX_STORE_CREATE)) {
            int rc = st_create_file(s->path, 0, err);
            if (rc)
                return rc;
            continue;
        }
        if (s->fd < 0) {
            int rc = s->fd;
            s->fd = -1;
            if (err)
                *err = oe;
            return rc;
        }
        if (flock(s->fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(s->fd);
            s->fd = -1;
            if (e == EWOULDBLOCK)
                return hx_error_set(err, HX_EBUSY, -1,
                                    "%s is being written by another process (writer lock held)", s->path);
            return hx_error_set(err, HX_EIO, -1, "cannot lock %s: %s", s->path, strerror(e));
        }
        struct stat a, b;
        if (fstat(s->fd, &a) == 0 && stat(s->path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino)
            return 0;
        close(s->fd);
        s->fd = -1;
    }
    return hx_error_set(err, HX_EBUSY, -1, "%s keeps being replaced while opening it", s->path);
}

/* "<path>.compact.tmp" into a new string; caller frees. */
char *st_compact_tmp_path(const char *path)
{
    size_t n = strlen(path) + sizeof HX_STORE_TMP_COMPACT;
    char *tmp = hx_malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s" HX_STORE_TMP_COMPACT, path);
    return tmp;
}

/* The writer, having just taken the lock, settles what open found: leftovers of an unfinished
 * write past a sound commit are cut; a damaged slot is rewritten with the commit readers take
 * when nothing past that commit could be lost (it was rolled forward from its record, or the file
 * ends there); otherwise it refuses unless `recover` says to keep that commit and discard the
 * rest. A compaction file left by a killed compaction is removed: the lock proves none runs. */
static int writer_settle(hxi_store *s, bool recover, hx_error *err)
{
    health *h = &s->h;
    uint64_t end = s->v.m.committed;
    unsigned long long gen = (unsigned long long)s->v.m.gen;
    if (h->damaged && !h->rolled && (h->truncated || h->file_size > end) && !recover)
        return hx_error_set(err, h->truncated ? HX_ETRUNCATED : HX_ECHECKSUM, -1,
                            "%s; a write would destroy them: 'hyrax recover' keeps generation %llu and "
                            "discards them", h->note, gen);
    if (h->damaged) {
        uint8_t slot[SLOT_SIZE];
        st_slot_encode(slot, &s->v.m);
        if (st_pwrite_all(s->fd, slot, SLOT_SIZE, (uint64_t)HX_STORE_PAGE * (uint64_t)(1 + h->bad_slot)) != 0 ||
            hxi_platform_datasync(s->fd) != 0)
            return hx_error_set(err, HX_EIO, -1, "cannot repair the meta slot of %s: %s", s->path, strerror(errno));
        h->damaged = false;
    }
    if (h->file_size > end && ftruncate(s->fd, (off_t)end) != 0)
        return hx_error_set(err, HX_EIO, -1, "cannot truncate %s: %s", s->path, strerror(errno));
    char *tmp = st_compact_tmp_path(s->path);
    if (!tmp)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    unlink(tmp);  /* best effort: compact_begin tries again and reports a failure */
    free(tmp);
    return 0;
}

int hxi_store_open(hxi_store **out, const char *path, unsigned flags, hx_error *err)
{
    *out = NULL;
    if (!path || (flags & ~(unsigned)(HX_STORE_WRITE | HX_STORE_CREATE | HX_STORE_RECOVER)) ||
        ((flags & (HX_STORE_CREATE | HX_STORE_RECOVER)) && !(flags & HX_STORE_WRITE)))
        return hx_error_set(err, HX_EINVAL, -1, "bad arguments to hxi_store_open");
    int rc;
    hxi_store *s = hx_calloc(1, sizeof *s);
    if (!s || !(s->path = hx_strdup(path))) {
        free(s);
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory");
    }
    s->fd = -1;
    s->writer = (flags & HX_STORE_WRITE) != 0;
    if (s->writer) {
        rc = open_locked(s, flags, err);
        if (rc)
            goto err;
    } else if ((s->fd = open_regular(path, false, err)) < 0) {
        rc = s->fd;
        s->fd = -1;
        goto err;
    }
    struct stat st;
    if (fstat(s->fd, &st) != 0) {
        rc = hx_error_set(err, HX_EIO, -1, "cannot stat %s: %s", path, strerror(errno));
        goto err;
    }
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    if ((rc = header_check(s->fd, path, &s->created, err)) ||
        (rc = open_newest(s->fd, path, NULL, &s->v, &s->h, err)))
        goto err;
    s->pos = s->v.m.committed;  /* before settling: closing a refused writer must cut nothing */
    if (s->writer && (rc = writer_settle(s, flags & HX_STORE_RECOVER, err)))
        goto err;
    *out = s;
    return 0;
err:
    hxi_store_close(s);
    return rc;
}

void hxi_store_close(hxi_store *s)
{
    if (!s)
        return;
    if (s->writer && s->fd >= 0 && !s->fatal && s->pos != s->v.m.committed &&
        ftruncate(s->fd, (off_t)s->v.m.committed) != 0)
        s->fatal = true;  /* nothing to report to: the bytes are past the commit point anyway */
    st_view_drop(&s->v);
    if (s->fd >= 0)
        close(s->fd);
    if (s->compact_tmp)
        unlink(s->path);  /* never renamed into place: nothing refers to it */
    free(s->table);
    free(s->path);
    free(s);
}

/* === Reading === */

uint64_t hxi_store_generation(const hxi_store *s)
{
    return s->v.m.gen;
}

int64_t hxi_store_timestamp(const hxi_store *s)
{
    return s->v.m.rec.offset ? s->v.m.ts : 0;
}

const char *hxi_store_name(const hxi_store *s)
{
    return s->v.m.rec.offset ? s->v.r.name : "";
}

void hxi_store_root(const hxi_store *s, const uint8_t **root, size_t *len)
{
    *root = s->v.m.rec.offset ? s->v.r.root : s->v.map + HX_STORE_DATA_START;
    *len = s->v.m.rec.offset ? (size_t)s->v.r.root_len : 0;
}

int hxi_store_blob(hxi_store *s, hxi_store_ref ref, const uint8_t **data, hx_error *err)
{
    uint64_t size = s->v.m.committed;
    *data = NULL;
    if (ref.offset < HX_STORE_DATA_START || ref.offset % HX_STORE_ALIGN || ref.offset > size ||
        ref.length > size - ref.offset)
        return hx_error_set(err, HX_ERANGE, (int64_t)ref.offset,
                            "blob at %llu (%llu bytes) is not inside the committed file (%llu bytes)",
                            (unsigned long long)ref.offset, (unsigned long long)ref.length,
                            (unsigned long long)size);
    if (st_blob_crc32c(s->v.map + ref.offset, ref.length) != ref.crc32c)
        return hx_error_set(err, HX_ECHECKSUM, (int64_t)ref.offset, "blob at %llu fails its checksum",
                            (unsigned long long)ref.offset);
    *data = s->v.map + ref.offset;
    return 0;
}

/* Reads `fd` afresh as the file at the handle's path: header, newest commit, identity. */
static int reload(hxi_store *s, int fd, hx_error *err)
{
    struct stat st;
    int64_t created;
    view nv;
    health h;
    int rc = fstat(fd, &st) != 0 ? hx_error_set(err, HX_EIO, -1, "cannot stat %s: %s", s->path, strerror(errno))
                                 : header_check(fd, s->path, &created, err);
    if (rc == 0)
        rc = open_newest(fd, s->path, NULL, &nv, &h, err);
    if (rc)
        return rc;
    st_view_drop(&s->v);
    if (fd != s->fd)
        close(s->fd);
    s->fd = fd;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->created = created;
    s->v = nv;
    s->h = h;
    return 1;
}

int hxi_store_refresh(hxi_store *s, hx_error *err)
{
    if (s->writer)
        return 0;  /* the writer's own commits update its view as they happen */
    struct stat st;
    if (stat(s->path, &st) != 0)
        return hx_error_set(err, HX_EIO, -1, "cannot stat %s: %s", s->path, strerror(errno));
    if (st.st_dev != s->dev || st.st_ino != s->ino) {
        int fd = open_regular(s->path, false, err);
        if (fd < 0)
            return fd;
        int rc = reload(s, fd, err);
        if (rc < 0)
            close(fd);
        return rc;
    }
    /* The same file, overwritten in place (a backup restored with cp): a new creation time in
     * the header, or a file now shorter than the commit this handle maps. */
    uint8_t b[32];
    size_t got;
    if ((uint64_t)st.st_size < s->v.m.committed || pread_all(s->fd, b, sizeof b, 0, &got) != 0 ||
        got < sizeof b || (int64_t)hxf_le64(b + 24) != s->created)
        return reload(s, s->fd, err);
    view nv;
    health h;
    int rc = open_newest(s->fd, s->path, &s->v, &nv, &h, err);
    if (rc < 0)
        return rc;
    s->h = h;
    if (rc)
        return 0;
    st_view_drop(&s->v);
    s->v = nv;
    return 1;
}

/* Checks one blob-table entry of r against the space the transaction could have used. */
static int check_table_entry(const view *v, const record *r, uint32_t i, uint64_t *low, hx_error *err)
{
    const uint8_t *e = r->table + (size_t)i * TABLE_ENTRY;
    hxi_store_ref b = hxi_store_ref_get(e);
    if (hxf_le32(e + 20) || b.offset < *low || b.offset % HX_STORE_ALIGN ||
        b.offset > r->self.offset || b.length > r->self.offset - b.offset)
        return hx_error_set(err, HX_EFORMAT, (int64_t)b.offset,
                            "blob %u of generation %llu is misplaced (offset %llu, %llu bytes)", i,
                            (unsigned long long)r->gen, (unsigned long long)b.offset,
                            (unsigned long long)b.length);
    if (st_blob_crc32c(v->map + b.offset, b.length) != b.crc32c)
        return hx_error_set(err, HX_ECHECKSUM, (int64_t)b.offset,
                            "blob %u of generation %llu at offset %llu fails its checksum", i,
                            (unsigned long long)r->gen, (unsigned long long)b.offset);
    *low = b.offset + b.length;
    return 0;
}

const char *hxi_store_damage(const hxi_store *s)
{
    return s->h.note;
}

int hxi_store_verify(hxi_store *s, hx_error *err)
{
    if (s->h.damaged)
        return hx_error_set(err, s->h.truncated ? HX_ETRUNCATED : HX_ECHECKSUM,
                            (int64_t)HX_STORE_PAGE * (1 + s->h.bad_slot), "%s", s->h.note);
    if (!s->v.m.rec.offset)
        return 0;
    record r = s->v.r, prev;
    for (;;) {
        int more = st_chain_prev(&s->v, &r, &prev, err);
        if (more < 0)
            return more;
        uint64_t low = more ? prev.self.offset + prev.self.length : HX_STORE_DATA_START;
        for (uint32_t i = 0; i < r.n_blobs; i++) {
            int rc = check_table_entry(&s->v, &r, i, &low, err);
            if (rc)
                return rc;
        }
        if (!more)
            return 0;
        r = prev;
    }
}

/* === Files beside the store === */

/* The store's name without ".hyx": the stem files beside it share. */
static size_t stem_len(const char *name)
{
    size_t n = strlen(name);
    return n >= 4 && !strcmp(name + n - 4, ".hyx") ? n - 4 : n;
}

bool hxi_store_owns_name(const char *store_name, const char *name)
{
    size_t n = strlen(store_name);
    if (strncmp(name, store_name, n) != 0) {
        /* "<stem>.<kind>.hyx" beside it, or its temporary files */
        size_t st = stem_len(store_name);
        const char *kind = name + st, *end;
        if (strncmp(name, store_name, st) || kind[0] != '.' || !(end = strstr(kind + 1, ".hyx")) || end == kind + 1 ||
            memchr(kind + 1, '.', (size_t)(end - kind - 1)))
            return false;
        char own[HX_STORE_NAME_MAX * 4];
        snprintf(own, sizeof own, "%.*s", (int)(end + 4 - name), name);
        return strlen(own) == (size_t)(end + 4 - name) && hxi_store_owns_name(own, name);
    }
    const char *rest = name + n;
    return !*rest || !strncmp(rest, HX_STORE_TMP_NEW, strlen(HX_STORE_TMP_NEW)) ||
           !strncmp(rest, HX_STORE_TMP_COMPACT, strlen(HX_STORE_TMP_COMPACT));
}

int hxi_store_beside(const char *path, const char *kind, char *buf, size_t cap, hx_error *err)
{
    int w = snprintf(buf, cap, "%.*s.%s.hyx", (int)stem_len(path), path, kind);
    if (w < 0 || (size_t)w >= cap)
        return hx_error_set(err, HX_ERANGE, -1, "the %s file beside %s: path too long", kind, path);
    return 0;
}
