/* store_internal.h: what store.c (open, validation, reading), store_chain.c (the chain of
 * generations read back) and store_write.c (the one writer: append, commit, abort, compaction)
 * share: the on-disk sizes of store.h's tables, the decoded forms of slots and records, the
 * handle, and the helpers they use.
 * Nothing outside src/store includes it. */
#ifndef HX_STORE_INTERNAL_H
#define HX_STORE_INTERNAL_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HEADER_SIZE 64
#define SLOT_SIZE 64
#define RECORD_HEAD 128
#define TABLE_ENTRY 24
#define MAX_ROOT ((uint64_t)1 << 40)       /* roots beyond 1 TiB are refused as corrupt */
#define MAX_BLOBS_PER_COMMIT (1u << 28)
#define OPEN_RETRIES 8                     /* path replaced between open and lock (compaction) */

/* A decoded meta slot. */
typedef struct meta {
    uint64_t gen;
    int64_t ts;
    hxi_store_ref rec;        /* offset 0: generation without a record (empty store) */
    uint64_t committed;
} meta;

/* A decoded commit record; pointers borrowed from the map it was parsed from. */
typedef struct record {
    hxi_store_ref self;
    uint64_t gen;
    int64_t ts;
    hxi_store_ref prev;       /* offset 0: none */
    uint32_t n_blobs;
    const uint8_t *root;
    uint64_t root_len;
    const uint8_t *table;    /* n_blobs entries of TABLE_ENTRY bytes */
    char name[HX_STORE_NAME_MAX + 1];
} record;

/* What a handle sees: one commit and a read-only map of the file up to its committed length. */
typedef struct view {
    uint8_t *map;            /* owned; munmap(map, m.committed) */
    meta m;
    int slot;                /* slot holding m */
    record r;                /* valid when m.rec.offset != 0 */
} view;

/* What open or refresh found beside the commit it took. A damaged slot is never mistaken for a
 * torn write: the slot is written only after its record is synced, so either the record proves
 * the commit (rolled forward) or something past the last provable commit may have been lost. */
typedef struct health {
    bool damaged;            /* a meta slot or the newest record is damaged, or the file is cut */
    bool truncated;          /* a slot's committed length exceeds the file */
    bool rolled;             /* the commit was recovered from its record (its slot is damaged) */
    int bad_slot;            /* the damaged slot, -1 when none */
    uint64_t file_size;
    char note[sizeof ((hx_error *)0)->message];   /* what is damaged and what was taken, or "" */
} health;

struct hxi_store {
    char *path;              /* owned */
    int fd;
    bool writer;
    bool compact_tmp;        /* a compaction file not yet renamed into place: close removes it */
    uint64_t compact_head;   /* compaction file: the generation its head commit gets */
    dev_t dev;
    ino_t ino;
    int64_t created;         /* header creation time: a file overwritten in place shows a new one */
    health h;
    view v;
    /* writer only */
    uint64_t pos;            /* end of the data appended so far (== v.m.committed when idle) */
    uint8_t *table;          /* owned: TABLE_ENTRY bytes per blob appended in this transaction */
    size_t n_blobs, cap_blobs;
    int error;               /* sticky error of the open transaction, 0 when none */
    bool fatal;              /* the meta write failed: its outcome is unknown, handle is spent */
    char error_msg[sizeof ((hx_error *)0)->message];
};

extern const char st_record_magic[8];

/* Checksum of a blob; large ones are split across the online cores (open reads every blob). */
uint32_t st_blob_crc32c(const uint8_t *data, uint64_t len);
int64_t st_now_ns(void);
uint64_t st_align_up(uint64_t x);               /* next multiple of HX_STORE_ALIGN */
int st_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);  /* 0 or -1 (errno) */
int st_sync_dir_of(const char *path, hx_error *err);
void st_slot_encode(uint8_t b[SLOT_SIZE], const meta *m);
/* Maps the file up to m's committed length and parses its record into v. */
int st_view_load(int fd, const meta *m, int slot, view *v, hx_error *err);
void st_view_drop(view *v);
/* The commit before r in the chain: 1 and *prev filled, 0 at the first commit of the file, or a
 * negative error (a damaged record). */
int st_chain_prev(const view *v, const record *r, record *prev, hx_error *err);
/* A new store file at path whose first generation is gen0. */
int st_create_file(const char *path, uint64_t gen0, hx_error *err);
/* The compaction file's path beside `path`; NULL when out of memory. */
char *st_compact_tmp_path(const char *path);

#endif
