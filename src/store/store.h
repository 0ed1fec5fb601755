/* store.h: the index file: one crash-safe, append-only, memory-mapped file with a single commit
 * point, generations, a chain of commits, one writer and many readers, and compaction by rewrite.
 * Owns the file layout below and nothing inside blobs or roots (the index layer owns those).
 * Spec: ../shared/DESIGN.md "One file format for weights and indexes"; the layout is specified here.
 *
 * All integers are little-endian and encoded byte by byte; no struct is ever written raw. The
 * file is only written through its descriptor (pwrite), never through a map. CRC32C is hxf_crc32c.
 *
 * Page 0, header, 64 bytes at offset 0 (rest of the page zero), written once at creation:
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HYRAXDB\n"
 *        8    4 format version, currently 1; other versions are refused by name
 *       12    4 page size, 4096: meta slot i lies at page (1 + i), data starts at page 3
 *       16    4 blob alignment, 64
 *       20    4 reserved, zero
 *       24    8 creation time, unix nanoseconds
 *       32   28 reserved, zero
 *       60    4 CRC32C of bytes 0..59
 *
 * Pages 1 and 2, meta slots 0 and 1, 64 bytes each at offsets 4096 and 8192 (one page each, so a
 * torn write of one slot cannot touch the other). A commit writes the slot not holding the current
 * generation; open takes the valid slot with the higher generation. A slot is valid when its CRC
 * matches, its committed length fits in the file and its commit record lies inside that length
 * and passes its CRC. Slot 1 of a new file is all zeros until the first commit.
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXMETA01"
 *        8    8 generation (the empty store of a new file has generation 0 and no record)
 *       16    8 commit time, unix nanoseconds
 *       24    8 offset of the commit record (0 when the generation has none)
 *       32    8 length of the commit record
 *       40    4 CRC32C of the commit record
 *       44    4 reserved, zero
 *       48    8 committed file length (bytes past it are leftovers of an unfinished write)
 *       56    4 reserved, zero
 *       60    4 CRC32C of bytes 0..59
 *
 * From offset 12288 on: blobs, each starting on a 64-byte boundary, zero (or hole) padding between.
 * A blob has no header; it is named by a reference {offset, length, CRC32C} (hxi_store_ref, encoded
 * in HX_STORE_REF_SIZE bytes by hxi_store_ref_put). A commit appends one more blob, its record:
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HXCOMMIT"
 *        8    8 generation
 *       16    8 commit time, unix nanoseconds
 *       24    8 offset of the previous commit record (0 = none: first commit of this file)
 *       32    8 length of the previous commit record
 *       40    4 CRC32C of the previous commit record
 *       44    4 blob count n: blobs appended by this commit's transaction
 *       48    8 root length r (caller's bytes, opaque to the store)
 *       56    1 name length, 0..HX_STORE_NAME_MAX (0 = unnamed)
 *       57    7 reserved, zero
 *       64   64 name bytes, zero-padded (named baselines)
 *      128    r root bytes, then zeros up to a multiple of 8
 *   128+R  24*n blob table: offset u64, length u64, CRC32C u32, reserved u32 zero
 * The record is exactly 128 + R + 24 n bytes (R = r rounded up to 8). The previous-record links
 * form the chain (generations strictly decreasing, offsets strictly decreasing); the blob tables
 * of the chain list every blob in the file, which is what hxi_store_verify walks. Commits made
 * through a file's writer number by one; a compacted file starts with the commits compaction
 * kept, copied oldest first with their own generation, time and name (hxi_store_commit_copy), so
 * its chain has gaps where commits were dropped, then its head, one above the old file's.
 *
 * Writes: append blobs (pwrite), append the record, sync its data (hxi_platform_datasync), write the
 * meta slot, sync again.
 * A crash at any byte leaves the previous commit intact. Compaction writes a fresh file
 * "<path>.compact.tmp" and renames it over the old one. Which commits it keeps is the caller's
 * choice (the index layer: index_write.c "Compaction").
 *
 * Damage versus a crash. The slot is written only after its record is synced, so:
 *   - both slots valid: bytes past the newer one's committed length are leftovers of an unfinished
 *     write (a record there was never acknowledged); a writer opening the file cuts them;
 *   - a slot whose CRC holds but whose committed length exceeds the file: the file was truncated
 *     (damage, never a torn write);
 *   - a slot that fails (bad CRC or magic, zeroed after a commit, or naming a record that fails):
 *     damage. When a complete record of the next generation lies past the other slot's committed
 *     length, chains to that slot's record (offset, length, CRC) and every blob of its table lies
 *     between the two and passes its CRC, that record proves the commit: open rolls forward to it.
 * Readers take the newest provable commit and report the damage (hxi_store_damage; verify fails).
 * A writer rewrites the damaged slot with that commit when nothing past it can be lost (rolled
 * forward, or the file ends at it) -- readers already show that commit, so the writer must build
 * on it -- and otherwise refuses (HX_ECHECKSUM / HX_ETRUNCATED) unless opened with
 * HX_STORE_RECOVER, which keeps that commit and discards the bytes past it. */
#ifndef HX_STORE_H
#define HX_STORE_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HX_STORE_VERSION 1
#define HX_STORE_PAGE 4096
#define HX_STORE_ALIGN 64
#define HX_STORE_DATA_START (3 * HX_STORE_PAGE)
#define HX_STORE_NAME_MAX 64
#define HX_STORE_REF_SIZE 20  /* encoded hxi_store_ref: offset u64, length u64, CRC32C u32 */

enum {
    HX_STORE_READ = 0,    /* reader: maps the file read-only, takes no lock */
    HX_STORE_WRITE = 1,   /* the one writer: exclusive flock, HX_EBUSY when another holds it */
    HX_STORE_CREATE = 2,  /* with HX_STORE_WRITE: create the file (generation 0) if missing */
    HX_STORE_RECOVER = 4, /* with HX_STORE_WRITE: on a damaged file keep the newest provable
                             commit and discard what lies past it (see "Damage" above) */
};

/* A blob in the file. */
typedef struct hxi_store_ref {
    uint64_t offset;
    uint64_t length;
    uint32_t crc32c;
} hxi_store_ref;

/* One entry of the chain of commits. */
typedef struct hxi_store_info {
    uint64_t generation;
    int64_t timestamp_ns;                 /* unix nanoseconds */
    char name[HX_STORE_NAME_MAX + 1];     /* NUL-terminated, "" when unnamed */
    hxi_store_ref record;                  /* where the commit record lies */
} hxi_store_info;

/* A handle on one index file: a reader or the writer. Not thread-safe: one thread at a time per
 * handle (open one reader per thread). Caller frees with hxi_store_close. */
typedef struct hxi_store hxi_store;

/* Opens `path` with HX_STORE_* flags and takes the newest provable commit (see "Damage" above).
 * Anything but a regular file is refused with HX_EFORMAT, without blocking (a FIFO). A writer
 * discards leftovers past the committed length, removes a stale "<path>.compact.tmp", and refuses
 * a damaged file it cannot settle without losing bytes unless HX_STORE_RECOVER is given. Corrupt
 * files fail with HX_EFORMAT, HX_EVERSION, HX_ECHECKSUM or HX_ETRUNCATED and a message naming the
 * offset. A missing file without HX_STORE_CREATE gives HX_ENOTFOUND. Creation is atomic (written
 * beside the path, then linked into place), so a crash while creating leaves no file or an empty
 * store, plus at worst a stray "<path>.new-*" file. */
int hxi_store_open(hxi_store **out, const char *path, unsigned flags, hx_error *err);
void hxi_store_close(hxi_store *s);  /* NULL is fine; an open transaction is aborted */

/* The current commit. 0 / 0 / "" for the empty store of a new file. */
uint64_t hxi_store_generation(const hxi_store *s);
int64_t hxi_store_timestamp(const hxi_store *s);
const char *hxi_store_name(const hxi_store *s);  /* borrowed until the next refresh/commit/close */

/* Root bytes of the current commit (len 0 for generation 0). *root points into the map: borrowed
 * until the next hxi_store_refresh, hxi_store_commit or hxi_store_close on this handle. Root bytes
 * start on a 64-byte boundary of the file. */
void hxi_store_root(const hxi_store *s, const uint8_t **root, size_t *len);

/* Checks that `ref` lies inside the committed part of the file and that its checksum matches
 * (every call computes the checksum: call once per blob and keep the pointer), then points *data
 * at its bytes in the map, borrowed like hxi_store_root. */
int hxi_store_blob(hxi_store *s, hxi_store_ref ref, const uint8_t **data, hx_error *err);

/* What open (or the last refresh) found damaged and which commit it took instead, or "" when the
 * file was sound; for a writer, what it repaired. Borrowed until the next refresh or close. */
const char *hxi_store_damage(const hxi_store *s);

/* Picks up commits made since open or the last refresh: re-reads the meta slots, follows a file
 * renamed over the path (compaction), reads afresh a file overwritten in place (new creation time
 * in the header, or shorter than the mapped commit) and remaps when the file grew. Returns 1 when the handle now
 * sees a different commit (all borrowed pointers are then invalid), 0 when nothing changed (they
 * stay valid), or a negative code (the handle keeps its previous view). A writer's view is always
 * current, so for a writer it returns 0. */
int hxi_store_refresh(hxi_store *s, hx_error *err);

/* Fails with the damage open found (hxi_store_damage) while the file still holds it; then walks
 * the chain from the current commit: checks every commit record and the checksum of every blob
 * each one lists. Reports the first failure with its file offset in err->offset. */
int hxi_store_verify(hxi_store *s, hx_error *err);

/* === Generations === */

/* The chain, newest first, from the current commit back to the first commit of this file (the
 * empty generation 0 is not listed). Caller frees *out with free(). */
int hxi_store_history(hxi_store *s, hxi_store_info **out, size_t *n, hx_error *err);

/* Root bytes of an older (or the current) generation still in the chain; HX_ENOTFOUND when it was
 * compacted away or never existed. Borrowed like hxi_store_root. */
int hxi_store_root_at(hxi_store *s, uint64_t generation, const uint8_t **root, size_t *len,
                      hx_error *err);

/* as_of: the newest commit committed at or before `time_ns` (unix nanoseconds), into *out;
 * HX_ENOTFOUND when the chain holds none that old, or when compaction dropped commits right after
 * the one found (one of them may have been the newest at that time). */
int hxi_store_as_of(hxi_store *s, int64_t time_ns, hxi_store_info *out, hx_error *err);

/* Named baselines: the newest commit of the chain with this name, into *out. */
int hxi_store_find_name(hxi_store *s, const char *name, hxi_store_info *out, hx_error *err);

/* === Writing (HX_STORE_WRITE handles only) === */

/* Appends len bytes (copied; any len, 0 included) on a 64-byte boundary and fills *ref. The blob
 * becomes readable once committed. Errors are sticky until hxi_store_abort. */
int hxi_store_append(hxi_store *w, const void *data, size_t len, hxi_store_ref *ref, hx_error *err);

/* Commits the transaction: root (len bytes, copied; may be NULL when len is 0) and an optional
 * name (NULL or "" = unnamed, at most HX_STORE_NAME_MAX bytes, no NUL). Generation + 1. Once it
 * returns 0 the commit is durable. On error nothing new is visible; call hxi_store_abort. */
int hxi_store_commit(hxi_store *w, const void *root, size_t len, const char *name, hx_error *err);

/* Drops everything appended since the last commit and clears a sticky error. Fails (and the
 * handle stays unusable for writing: close and reopen) when the I/O error came from the meta
 * write itself, whose outcome is unknown. */
int hxi_store_abort(hxi_store *w, hx_error *err);

/* Compaction, step 1: creates a writer *out on "<path>.compact.tmp" (a stale one is removed),
 * empty. The caller may first copy older commits it keeps (hxi_store_commit_copy), then appends
 * what is still live (reading it through w) and commits the head with hxi_store_commit, which
 * gets generation hxi_store_generation(w) + 1. Caller owns *out; closing it without a successful
 * hxi_store_compact_finish removes the file. */
int hxi_store_compact_begin(hxi_store *w, hxi_store **out, hx_error *err);

/* Compaction, step 1b: commits the blobs appended to c since its last commit with `root` (len
 * bytes, copied) as a copy of an older commit `as` of the old file: its generation, time and name.
 * Copies go oldest first, each above c's last generation and below the head; anything else is
 * HX_EINVAL. */
int hxi_store_commit_copy(hxi_store *c, const void *root, size_t len, const hxi_store_info *as, hx_error *err);

/* Step 2: c must have committed its head. Syncs c's file, renames it over w's path and syncs the folder.
 * On success *w is closed and replaced by c, which is now the writer of the path; readers that
 * still map the old file keep working and move to the new one on refresh. On failure both stay
 * open and unchanged (the caller still owns c). Failure is only possible before the rename: the
 * folder sync after it is best effort, since a power loss that undid the rename would bring back
 * the old file, which holds the same content one generation earlier. */
int hxi_store_compact_finish(hxi_store **w, hxi_store *c, hx_error *err);

/* === Files beside the store === */

/* Suffixes of the temporary files the store writes beside "<path>": "<path>" HX_STORE_TMP_NEW
 * "<pid>-<ns>" while creating a file, "<path>" HX_STORE_TMP_COMPACT while compacting (and that
 * file's own HX_STORE_TMP_NEW while it is created). */
#define HX_STORE_TMP_NEW ".new-"
#define HX_STORE_TMP_COMPACT ".compact.tmp"

/* True when `name`, a file name in the store's folder, is the store whose file name is
 * `store_name`, one of its temporary files, or a file beside it (hxi_store_beside) or one of
 * theirs: a walk of the folder skips these. */
bool hxi_store_owns_name(const char *store_name, const char *name);

/* The file beside the store at `path` that holds `kind` (conversation memory, statistics):
 * "<path minus .hyx>.<kind>.hyx", e.g. ".hyrax/index.memory.hyx". HX_ERANGE when it does not fit. */
int hxi_store_beside(const char *path, const char *kind, char *buf, size_t cap, hx_error *err);

/* === References inside roots === */

void hxi_store_ref_put(uint8_t out[HX_STORE_REF_SIZE], hxi_store_ref ref);
hxi_store_ref hxi_store_ref_get(const uint8_t in[HX_STORE_REF_SIZE]);

#endif
