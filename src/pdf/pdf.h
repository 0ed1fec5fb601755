/* pdf.h: the PDF reader's internal interface, shared by its files: pdf_obj.c (the object syntax,
 * cross-reference tables and streams, object streams: ISO 32000-2 7.2-7.5), pdf_filter.c (stream
 * filters: 7.4), pdf_font.c (fonts, encodings, ToUnicode CMaps: 9.6-9.10), pdf_outline.c (the
 * outline as headings: 12.3.3) and pdf.c (the page tree, content streams, text layout, metadata and
 * the document-type row). Nothing outside src/pdf/pdf*.c includes it.
 *
 * Bounds (hostile files): objects nest at most PDF_MAX_DEPTH deep; resolving references nests at
 * most PDF_MAX_RESOLVE deep (a loop of references ends there with an error); every stream decodes
 * to at most PDF_MAX_STREAM bytes and a document to at most 8 MiB + 1100 times its size (a
 * decompression bomb stops there); the page tree is walked with a visited set; Form XObjects nest
 * at most PDF_MAX_FORMS deep; declared lengths and counts are checked against the file's size. */
#ifndef HX_PDF_H
#define HX_PDF_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PDF_MAX_DEPTH 64          /* nesting of arrays and dictionaries in one object */
#define PDF_MAX_RESOLVE 32        /* references resolved inside one another */
#define PDF_MAX_STREAM (256u << 20)   /* bytes one decoded stream may have */
#define PDF_MAX_FORMS 12          /* Form XObjects drawn inside one another */
#define PDF_MAX_OBJECTS (8u << 20)    /* object numbers a cross-reference may declare */

typedef enum { PDF_NULL, PDF_BOOL, PDF_INT, PDF_REAL, PDF_STR, PDF_NAME, PDF_ARRAY, PDF_DICT, PDF_REF,
               PDF_STREAM, PDF_KEYWORD } pdf_kind;

typedef struct pdf_obj pdf_obj;
typedef struct pdf_pair pdf_pair;

/* One value. Strings, names and keywords point into the arena (str is not NUL-terminated; names
 * are, without the slash and with #xx decoded); arrays and dictionaries own arena arrays. */
struct pdf_obj {
    pdf_kind kind;
    union {
        bool b;
        int64_t i;
        double r;
        struct { const uint8_t *p; size_t n; } s;    /* STR, NAME, KEYWORD */
        struct { pdf_obj *v; size_t n; } a;          /* ARRAY */
        struct { pdf_pair *kv; size_t n; } d;        /* DICT */
        struct { uint32_t num, gen; } ref;           /* REF */
        struct { pdf_obj *dict; size_t off, len; uint32_t num, gen; } st;   /* STREAM: raw bytes buf[off..off+len) */
    } u;
};
struct pdf_pair {
    const char *key;
    pdf_obj val;
};

/* A bump allocator: everything one document parses lives here until pdf_close. */
typedef struct pdf_chunk pdf_chunk;
typedef struct pdf_arena {
    pdf_chunk *head;
    size_t used;            /* bytes handed out in all, against `limit` */
    size_t limit;
} pdf_arena;

typedef struct pdf_xent {
    uint8_t type;           /* 0 free/unknown, 1 at offset, 2 in object stream */
    uint8_t busy;           /* being resolved: a reference loop when met again */
    uint32_t gen;
    uint64_t off;           /* type 1: file offset; type 2: the object stream's number */
    uint32_t idx;           /* type 2: index inside the object stream */
    pdf_obj *obj;           /* parsed value, cached (NULL: not yet) */
} pdf_xent;

typedef struct pdf_doc {
    const uint8_t *buf;
    size_t len;
    pdf_arena arena;
    pdf_arena scratch;      /* operands of the content operator being read */
    bool use_scratch;       /* pdf_alloc takes from scratch */
    pdf_xent *x;            /* by object number */
    size_t nx;
    uint64_t *offs;         /* the objects' file offsets, sorted (each object ends before the next) */
    size_t noffs;
    pdf_obj *trailer;       /* the newest trailer (a dictionary) */
    size_t budget;          /* decoded stream bytes still allowed for the whole document */
    int resolving;          /* references resolved inside one another now */
    hx_error *err;
    bool repaired;          /* the cross-reference was rebuilt by scanning */
    struct pdf_font *fonts; /* fonts loaded so far (a list in the arena) */
    uint8_t key[32];        /* encrypted (keylen > 0): the file key of the standard security handler */
    int keylen;
    bool aes;               /* AESV2 rather than RC4 */
    bool plain_streams, plain_strings;   /* a crypt filter of /Identity leaves them as they are */
    uint32_t encrypt_num;   /* the /Encrypt dictionary's object, whose strings are not encrypted */
} pdf_doc;

/* A lexer over bytes (a file, a content stream). */
typedef struct pdf_lex {
    const uint8_t *p, *end, *base;
    pdf_doc *doc;
} pdf_lex;

/* === pdf_obj.c === */
void *pdf_alloc(pdf_doc *d, size_t n);   /* zeroed; NULL with d->err set past the arena's limit */
/* Content-stream operands go to a scratch arena (d->use_scratch), emptied after each operator. */
void pdf_scratch_reset(pdf_doc *d);
/* Opens buf[0..len) (borrowed until pdf_close): finds and reads the cross-reference (or rebuilds
 * it by scanning), and the trailer. */
int pdf_open(pdf_doc *d, const uint8_t *buf, size_t len, hx_error *err);
void pdf_close(pdf_doc *d);
/* Parses one value at the lexer (references stay references); NULL with d->err set on error. On
 * a bare keyword returns a KEYWORD object (content stream operators). `eof` set when none is left. */
pdf_obj *pdf_parse(pdf_lex *lx, int depth, bool *eof);
void pdf_skip_ws(pdf_lex *lx);
int pdf_hexval(int c);   /* 0..15, or -1 for a byte that is no hex digit */
/* Follows references; NULL only on error (a missing object is the null object). */
pdf_obj *pdf_resolve(pdf_doc *d, pdf_obj *o);
/* The value of `key` in dictionary (or stream's dictionary) o, resolved; NULL when absent. */
pdf_obj *pdf_get(pdf_doc *d, pdf_obj *o, const char *key);
bool pdf_is_name(const pdf_obj *o, const char *name);
bool pdf_num(const pdf_obj *o, double *v);
/* Decodes a stream's filters into a buffer (caller frees); HX_ENOTFOUND when a filter is one
 * hyrax does not read (images: DCT, JPX, CCITT, JBIG2). */
int pdf_stream_data(pdf_doc *d, pdf_obj *stream, uint8_t **out, size_t *out_len);
/* A text string (UTF-16BE with its BOM, UTF-8 with its BOM, or PDFDocEncoding) as UTF-8 into
 * out[0..cap): returns the length written. */
size_t pdf_text_string(const uint8_t *s, size_t n, char *out, size_t cap);

/* === pdf_crypt.c === */
/* Reads the trailer's /Encrypt: 0 when the document opens with the empty user password (the key
 * set in d), else HX_EFORMAT with the reason (another handler, a user password, AES). */
int pdf_crypt_open(pdf_doc *d, pdf_obj *encrypt);
/* Decrypts s[0..n) in place for object num/gen; returns the plain length (RC4 keeps it, AES
 * drops the IV and the padding; 0 for AES data that is not whole blocks). */
size_t pdf_crypt(const pdf_doc *d, uint32_t num, uint32_t gen, uint8_t *s, size_t n);

/* === pdf_font.c === */
typedef struct pdf_font pdf_font;
/* The font of a font dictionary (cached in the arena by its object number when it has one). */
pdf_font *pdf_font_load(pdf_doc *d, pdf_obj *fontdict);
/* Reads one code from s[*i..n): its Unicode text (UTF-8 into u[0..16), *ulen bytes) and its width
 * in thousandths of text space; *is_space when it is the single-byte code 32 (word spacing). */
void pdf_font_next(const pdf_font *f, const uint8_t *s, size_t n, size_t *i, char u[16], size_t *ulen, double *w,
                   bool *is_space);
/* Unicode code point of a glyph name (Adobe Glyph List, uniXXXX, uXXXX[XX]); 0 when unknown. */
uint32_t pdf_glyph_unicode(const char *name);

/* === pdf_outline.c === */
typedef struct pdf_heading {
    const char *key;        /* the title's words as a comparison key (arena), klen bytes */
    size_t klen;
    const char *title;      /* the title as UTF-8 (arena), tlen bytes */
    size_t tlen;
    int level;              /* 1 for the outline's top items */
} pdf_heading;
typedef struct pdf_outline {
    pdf_heading *h;         /* in document order (arena) */
    size_t n;
    size_t next;            /* the first entry no line has matched yet */
} pdf_outline;
/* The catalog's outline into o (empty when there is none or it is damaged); 0 or the document's
 * error (the arena's limit). */
int pdf_outline_read(pdf_doc *d, pdf_obj *root, pdf_outline *o);
/* Whether the line at s (up to n bytes of a page's text) is one of the next outline entries: the
 * bytes its heading spans (it may wrap over a few lines, newline included) with *entry set to its
 * index, and the entries up to it passed (o->next moves past it); 0 when it is not. */
size_t pdf_outline_match(pdf_outline *o, const char *s, size_t n, size_t *entry);

#endif
