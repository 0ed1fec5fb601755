/* zip.h: a reader of ZIP archives held in memory (PKWARE APPNOTE 6.3.10: end of central directory,
 * ZIP64 end record and extra field, central directory, local headers, data descriptors; methods
 * 0 stored and 8 deflate through inflate.h). Owns only finding and decompressing entries: entry
 * names are strings for comparison, never used as file paths, and nothing is written anywhere.
 *
 * Checks at open: the central directory lies inside the archive; every entry's local header is
 * there, names the same file and method, and (without a data descriptor) the same CRC and sizes;
 * entries' data do not overlap (the overlapping-entries bomb); names are NUL-free and at most
 * limits.max_name bytes; at most limits.max_entries entries. Encrypted entries and other methods
 * open but refuse to be read, with the reason. Reading an entry checks its declared size against
 * limits.max_entry, the bytes read by this handle against limits.max_total, the ratio of
 * uncompressed to compressed size against limits.max_ratio (entries past 1 MiB), and its CRC-32.
 * Every refusal is HX_EFORMAT or HX_ERANGE (inflate.h's codes for a corrupt deflate stream) with
 * the reason and the archive offset. */
#ifndef HX_ZIP_H
#define HX_ZIP_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hxi_zip_limits {
    size_t max_entries;        /* entries in the central directory */
    size_t max_name;           /* bytes of an entry name */
    uint64_t max_entry;        /* uncompressed bytes of one entry */
    uint64_t max_total;        /* uncompressed bytes read through one handle, all entries */
    uint32_t max_ratio;        /* uncompressed / compressed size, for entries past 1 MiB */
} hxi_zip_limits;

/* 10,000 entries, 1 KiB names, 64 MiB an entry, 256 MiB in all, a ratio of 200 (deflate reaches
 * 1032 at most; real documents stay under 100). */
#define HX_ZIP_LIMITS_DEFAULT {10000, 1024, 64u << 20, 256u << 20, 200}

typedef struct hxi_zip_entry {
    const char *name;          /* NUL-terminated, owned by the hxi_zip */
    size_t name_len;
    uint64_t csize, usize;     /* compressed and uncompressed sizes (central directory) */
    uint64_t header_at;        /* offset of the entry's local header in the archive */
    uint64_t data_at;          /* offset of the entry's data in the archive */
    uint32_t crc;
    uint16_t method, flags;
} hxi_zip_entry;

typedef struct hxi_zip {
    const uint8_t *data;       /* the archive; borrowed, must outlive the handle */
    size_t size;
    hxi_zip_entry *entries;     /* owned; in central directory order */
    size_t count;
    char *names;               /* owned: every name, NUL-terminated */
    hxi_zip_limits limits;
    uint64_t total;            /* uncompressed bytes read so far */
} hxi_zip;

/* Opens the archive data[0..size) (borrowed) under `limits` (NULL: the defaults). On failure z
 * holds nothing to free. */
int hxi_zip_open(hxi_zip *z, const void *data, size_t size, const hxi_zip_limits *limits, hx_error *err);
/* Frees what z owns (not the archive). */
void hxi_zip_close(hxi_zip *z);
/* The entry named `name` exactly (first of duplicates), or NULL. */
const hxi_zip_entry *hxi_zip_find(const hxi_zip *z, const char *name);
/* Decompresses entry e into a buffer it allocates (caller frees; NUL-terminated past *len, so XML
 * can be read as a string). */
int hxi_zip_read(hxi_zip *z, const hxi_zip_entry *e, uint8_t **out, size_t *len, hx_error *err);
/* CRC-32 (ISO 3309, as ZIP and gzip use it) of p[0..len) continuing from `crc` (start with 0). */
uint32_t hxi_crc32(uint32_t crc, const void *p, size_t len);

#endif
