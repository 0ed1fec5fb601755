/* pack_cache.c: the packed-weights cache. Packing (model.c load_layers) converts every matrix of
 * the weights file for the kernel tables, which for all-mpnet-base-v2 means zeroing and writing
 * 340 MB of fp32 panels at each load; the block depends only on the weights (hx_model_hash), the
 * kernel tables, the precision and this build's packing, so the first load writes it to a cache
 * file and later loads map that file read-only instead. Must not pack (model.c) or run the forward
 * pass. README "Models" documents the folder and HYRAX_CACHE.
 *
 * Folder: $HYRAX_CACHE ("off": no cache), else $XDG_CACHE_HOME/hyrax, else $HOME/.cache/hyrax.
 * File: <first 16 hex digits of the model hash>-<kernel table>-<int8 table or fp32>.hxp:
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXPACK01"
 *        8    8 packed length in bytes, little-endian
 *       16   64 model hash (hx_model_hash, hex)
 *       80   32 float kernel table name, NUL-padded
 *      112   32 int8 kernel table name ("" at fp32), NUL-padded
 *      144   32 hyrax version (hx_version) and PACK_FORMAT, NUL-padded
 *      176    4 precision (hx_precision)
 *      180    4 CRC32C of the packed block
 *      184    4 CRC32C of bytes 0..184
 *      188 3908 zero
 *     4096    . the packed block (its layout: model.c load_layers)
 * A file whose header or block does not check out is ignored (and replaced by the next write); it
 * is written under a temporary name and renamed, so readers see whole files only.
 *
 * Stamp: reading the whole block for its CRC costs more than the rest of a load (340 MB at fp32),
 * so a load that has checked it records which file it checked in <file>.ok, and later loads of
 * that same file skip the block's CRC (the header is always compared):
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXPKOK01"
 *        8    8 device of the checked file (st_dev), little-endian
 *       16    8 inode (st_ino)
 *       24    8 size (st_size)
 *       32    8 modification time, ns
 *       40    8 status-change time (ctime), ns: any write, rename or chmod of the file moves it
 *       48    4 the block's CRC32C, as in the file's header
 *       52    4 CRC32C of bytes 0..52
 * A stamp serves only when all of these match the file now and the stamp itself was written after
 * the file's ctime (a change within the same clock tick as the check shows no new ctime: git's
 * "racily clean" rule), else the block is checked again and the stamp rewritten. */
#include "model.h"

#include "bytes.h"
#include "crc32c.h"
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD 4096
#define PACK_FORMAT "p1"   /* changes with the packing (layouts, smoothing, int8 recipes) */
#define CRC_THREADS 8
#define STAMP 56

/* The cache file of m into path: 0, or -1 when the cache is off or no folder is known. */
static int cache_path(const hx_model *m, char *path, size_t cap, char *dir, size_t dcap)
{
    const char *env = getenv("HYRAX_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (env && !strcmp(env, "off"))
        return -1;
    if (env && *env)
        n = snprintf(dir, dcap, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(dir, dcap, "%s/hyrax", xdg);
    else if (home && *home)
        n = snprintf(dir, dcap, "%s/.cache/hyrax", home);
    else
        return -1;
    if (n <= 0 || (size_t)n >= dcap)
        return -1;
    n = snprintf(path, cap, "%s/%.16s-%s-%s.hxp", dir, m->hash, m->kern->name, m->k8 ? m->k8->name : "fp32");
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The header m's block of len bytes with content CRC crc would have. */
static void header(const hx_model *m, size_t len, uint32_t crc, uint8_t h[HEAD])
{
    memset(h, 0, HEAD);
    memcpy(h, "HXPACK01", 8);
    hxf_put64(h + 8, len);
    memcpy(h + 16, m->hash, 64);
    snprintf((char *)h + 80, 32, "%s", m->kern->name);
    snprintf((char *)h + 112, 32, "%s", m->k8 ? m->k8->name : "");
    snprintf((char *)h + 144, 32, "%s %s", hx_version(), PACK_FORMAT);
    hxf_put32(h + 176, (uint32_t)m->precision);
    hxf_put32(h + 180, crc);
    hxf_put32(h + 184, hxf_crc32c(0, h, 184));
}

/* The stamp of the file st whose block has CRC crc. */
static void stamp_of(const struct stat *st, uint32_t crc, uint8_t s[STAMP])
{
    memcpy(s, "HXPKOK01", 8);
    hxf_put64(s + 8, (uint64_t)st->st_dev);
    hxf_put64(s + 16, (uint64_t)st->st_ino);
    hxf_put64(s + 24, (uint64_t)st->st_size);
    hxf_put64(s + 32, (uint64_t)hxi_platform_mtime_ns(st));
    hxf_put64(s + 40, (uint64_t)hxi_platform_ctime_ns(st));
    hxf_put32(s + 48, crc);
    hxf_put32(s + 52, hxf_crc32c(0, s, 52));
}

/* Whether <path>.ok stamps the file st (block CRC crc) as checked. */
static bool stamped(const char *path, const struct stat *st, uint32_t crc)
{
    char ok[PATH_MAX + 8];
    uint8_t want[STAMP], got[STAMP + 1];
    struct stat sst;
    snprintf(ok, sizeof ok, "%s.ok", path);
    int fd = open(ok, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool read_ok = !fstat(fd, &sst) && read(fd, got, sizeof got) == STAMP;
    close(fd);
    stamp_of(st, crc, want);
    return read_ok && !memcmp(got, want, STAMP) && hxi_platform_mtime_ns(&sst) > hxi_platform_ctime_ns(st);
}

/* Records in <path>.ok that the file st (block CRC crc) checked out; best effort, silent. */
static void stamp_write(const char *path, const struct stat *st, uint32_t crc)
{
    char ok[PATH_MAX + 8], tmp[PATH_MAX + 48];
    uint8_t s[STAMP];
    snprintf(ok, sizeof ok, "%s.ok", path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", ok, (long)getpid());
    stamp_of(st, crc, s);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    const bool wrote = write(fd, s, STAMP) == STAMP;
    if (close(fd) || !wrote || rename(tmp, ok))
        unlink(tmp);
}

int hxi_pack_cache_map(const hx_model *m, size_t len, uint8_t **packed, uint8_t **map, size_t *map_len)
{
    char path[PATH_MAX], dir[PATH_MAX];
    if (cache_path(m, path, sizeof path, dir, sizeof dir))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st, after;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) || (uint64_t)st.st_size != (uint64_t)HEAD + len) {
        close(fd);
        return -1;
    }
    /* Mapped at once: every page is needed by the first embedding, and mapping them here in one
     * call costs less than their faults one by one then (all-mpnet-base-v2 fp32, 440 MB: load +
     * first embedding median 128 ms against 176 ms, 10 fresh processes each in turn, load average
     * 20; bench/RESULTS-mpnet.md) */
    uint8_t *p = mmap(NULL, HEAD + len, PROT_READ, MAP_PRIVATE | hxi_platform_map_prefault(), fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return -1;
    }
    uint8_t want[HEAD];
    const uint32_t crc = hxf_le32(p + 180);
    header(m, len, crc, want);
    bool ok = !memcmp(p, want, HEAD);
    if (ok && !stamped(path, &st, crc)) {
        ok = hxf_crc32c_threads(p + HEAD, len, CRC_THREADS) == crc;
        if (ok && !fstat(fd, &after) && hxi_platform_ctime_ns(&after) == hxi_platform_ctime_ns(&st))
            stamp_write(path, &st, crc);   /* unchanged while it was read */
    }
    close(fd);
    if (!ok) {
        munmap(p, HEAD + len);
        return -1;
    }
    *packed = p + HEAD;
    *map = p;
    *map_len = HEAD + len;
    return 0;
}

void hxi_pack_cache_store(const hx_model *m, const uint8_t *packed, size_t len)
{
    char path[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 32];
    if (cache_path(m, path, sizeof path, dir, sizeof dir))
        return;
    char parent[PATH_MAX];   /* $HOME/.cache may not exist yet */
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        mkdir(parent, 0700);
    }
    if (mkdir(dir, 0700) && errno != EEXIST)
        return;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    uint8_t h[HEAD];
    header(m, len, hxf_crc32c_threads(packed, len, CRC_THREADS), h);
    bool ok = write(fd, h, HEAD) == HEAD;
    for (size_t at = 0; ok && at < len;) {
        ssize_t n = write(fd, packed + at, len - at > ((size_t)1 << 30) ? (size_t)1 << 30 : len - at);
        ok = n > 0;
        at += ok ? (size_t)n : 0;
    }
    ok = !close(fd) && ok;
    char stale[PATH_MAX + 8];   /* the old file's stamp: the new file is checked at its first map */
    snprintf(stale, sizeof stale, "%s.ok", path);
    unlink(stale);
    if (!ok || rename(tmp, path))
        unlink(tmp);
}
