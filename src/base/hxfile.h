/* hxfile.h: the hyrax container format, used as is by the weights file and as the segment format
 * of index files. Owns layout and validation; knows nothing of what sections mean. Checksums are
 * crc32c.h's and integers are read with bytes.h.
 * The Python converter (tools/convert_weights.py) writes the same bytes; keep the two in step.
 *
 * All integers little-endian. Sections start on 64-byte boundaries so tensors, vectors and
 * postings can be used straight from a read-only map. A file is never written through its map.
 *
 * Header, 64 bytes at offset 0:
 *   OFFSET SIZE DESCRIPTION
 *        0    8 magic "HYRAXF\r\n" (the CR LF catches text-mode transfers)
 *        8    4 format version, currently 1; other versions are refused by name
 *       12    4 file kind: 1 = model weights, 2 = index segment
 *       16    8 offset of the section table (64-aligned, after the last section)
 *       24    4 section count, at most HXF_MAX_SECTIONS
 *       28    4 CRC32C of the whole section table
 *       32    8 total file size in bytes (a shorter file is truncated)
 *       40   20 reserved, zero
 *       60    4 CRC32C of header bytes 0..59
 *
 * Section table entry, 64 bytes each:
 *   OFFSET SIZE DESCRIPTION
 *        0   20 name, ASCII, NUL-padded, unique within the file
 *       20    4 dtype: 0 raw bytes, 1 f32, 2 f16, 3 u32, 4 i32, 5 u64, 6 u8
 *       24    4 rank, 0..4 (0 for raw bytes)
 *       28   16 dims[4], u32 each; unused dims are 0; product * dtype size == length
 *       44    8 offset of the section data (64-aligned, >= 64)
 *       52    8 length of the section data in bytes
 *       60    4 CRC32C of the section data
 */
#ifndef HX_HXFILE_H
#define HX_HXFILE_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HXF_MAGIC "HYRAXF\r\n"
#define HXF_VERSION 1
#define HXF_KIND_WEIGHTS 1
#define HXF_KIND_SEGMENT 2
#define HXF_HEADER_SIZE 64
#define HXF_ENTRY_SIZE 64
#define HXF_ALIGN 64
#define HXF_NAME_MAX 20
#define HXF_MAX_SECTIONS 4096

enum hxf_dtype { HXF_RAW = 0, HXF_F32 = 1, HXF_F16 = 2, HXF_U32 = 3, HXF_I32 = 4, HXF_U64 = 5, HXF_U8 = 6 };

typedef struct hxf_section {
    char name[HXF_NAME_MAX + 1];  /* NUL-terminated copy */
    uint32_t dtype;
    uint32_t rank;
    uint32_t dims[4];
    const uint8_t *data;          /* borrowed from the view's buffer */
    uint64_t length;
    uint32_t crc;                 /* the CRC32C its table entry states */
} hxf_section;

/* A validated file in memory. Sections point into `base`, which the view borrows. */
typedef struct hxf_view {
    const uint8_t *base;
    size_t size;
    uint32_t kind;
    uint32_t n_sections;
    hxf_section *sections;        /* owned; free with hxf_view_free */
} hxf_view;

/* Validates header, table, bounds, alignment, shapes and every section checksum of the buffer
 * [base, base+size) and fills `out`. `expect_kind` 0 accepts any kind. */
int hxf_parse(const uint8_t *base, size_t size, uint32_t expect_kind, hxf_view *out, hx_error *err);
/* Same checks, except the per-section checksums: for an image whose bytes were just checksummed
 * as a whole (an index segment read through hxi_store_blob), where they would be read twice. */
int hxf_parse_verified(const uint8_t *base, size_t size, uint32_t expect_kind, hxf_view *out, hx_error *err);
/* HX_ECHECKSUM when section s of a view from hxf_parse_verified fails its checksum: for a reader
 * that checks only the sections it reads (the model, whose packed-weights cache stands in for
 * most of its file). */
int hxf_section_check(const hxf_section *s, hx_error *err);
void hxf_view_free(hxf_view *v);

/* Section by name, or NULL. */
const hxf_section *hxf_find(const hxf_view *v, const char *name);

/* Like hxf_find, but fails with a message unless the section has this dtype, rank and dims
 * (a dims entry of 0 in `dims` matches any size). */
int hxf_expect(const hxf_view *v, const char *name, uint32_t dtype, uint32_t rank,
               const uint32_t dims[4], const hxf_section **out, hx_error *err);

/* Read-only map of a whole file. */
typedef struct hxf_map {
    void *addr;
    size_t size;
} hxf_map;
int hxf_map_open(hxf_map *m, const char *path, hx_error *err);
void hxf_map_close(hxf_map *m);

/* In-memory writer: sections are appended to a growing buffer as they come; finish writes the
 * table and the header and hands the whole file image to the caller. Errors are sticky. */
typedef struct hxf_writer {
    uint8_t *data;                /* owned until finish */
    size_t len, cap;
    uint32_t kind;
    uint32_t n_sections, cap_sections;
    uint8_t *table;               /* owned, HXF_ENTRY_SIZE * cap_sections bytes */
    int error;
} hxf_writer;
void hxf_writer_begin(hxf_writer *w, uint32_t kind);
int hxf_writer_add(hxf_writer *w, const char *name, uint32_t dtype, uint32_t rank,
                   const uint32_t dims[4], const void *data, uint64_t length, hx_error *err);
/* On success *out (caller frees with free()) holds the file image of *len bytes. The writer's
 * memory is released whatever happens. */
int hxf_writer_finish(hxf_writer *w, uint8_t **out, size_t *len, hx_error *err);

#endif
