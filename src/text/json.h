/* json.h: the JSON reader (strict RFC 8259 into an immutable DOM) and writer (a growable buffer
 * that always holds one line of valid JSON) used by the MCP server and `--json` output.
 * Knows nothing of JSON-RPC (src/rpc.h) or MCP. Spec: RFC 8259, plus the choices listed below.
 *
 * Reader choices, each covered by a file in tests/json/:
 *   - Exactly one value with optional whitespace (space, tab, LF, CR) around it; any value may be
 *     the top level. No comments, trailing commas, NaN/Infinity, single quotes or byte-order mark
 *     (RFC 8259 section 8.1 lets a parser ignore a BOM; this one refuses it, HX_EPARSE).
 *   - Strings must be valid UTF-8 (no overlong forms, no encoded surrogates, nothing past
 *     U+10FFFF): HX_EUTF8 at the offending byte. Raw bytes below 0x20 are refused (HX_EPARSE).
 *   - \u escapes: a high surrogate must be followed by a \u low surrogate and the pair decodes to
 *     one code point; a lone surrogate escape (either half) is refused with HX_EUTF8, because it
 *     cannot be represented in the UTF-8 the DOM hands out. \u0000 is allowed: strings carry a
 *     length and are also NUL-terminated for convenience.
 *   - Duplicate member names in one object are refused (HX_EPARSE, offset of the second one), as
 *     I-JSON (RFC 7493) requires, so no two readers of a message can disagree on what it says.
 *   - Numbers keep their exact source text ("1.0", "-0", "1e400", 20-digit ids), so they can be
 *     written back byte for byte; conversion to int64 or double happens on request, range-checked.
 *   - Limits (hxi_json_limits): nesting depth (HX_EDEPTH), input bytes and value count (HX_ERANGE).
 * Errors carry the code, a message and the byte offset of the offending byte (the input length
 * for input that ends too early).
 *
 * Numbers are converted and formatted with strtod/snprintf, which follow LC_NUMERIC; hyrax never
 * changes it from "C". */
#ifndef HX_JSON_H
#define HX_JSON_H

#include "hyrax.h"

#include <stddef.h>
#include <stdint.h>

/* === Reader === */

enum {
    HX_JSON_NULL = 1,
    HX_JSON_BOOL,
    HX_JSON_NUMBER,
    HX_JSON_STRING,
    HX_JSON_ARRAY,
    HX_JSON_OBJECT,
};

#define HX_JSON_MAX_DEPTH 64                       /* default nesting limit of containers */
#define HX_JSON_MAX_BYTES ((size_t)64 << 20)       /* default input size limit */
#define HX_JSON_MAX_VALUES ((size_t)1 << 22)       /* default limit of values (keys included) */

/* Parser limits; a zero field takes the default above. max_depth counts open containers: with
 * 64, 64 nested arrays parse and 65 fail with HX_EDEPTH. */
typedef struct hxi_json_limits {
    int max_depth;
    size_t max_bytes;
    size_t max_values;
} hxi_json_limits;

/* One value inside a document. The layout is private to json.c; use the accessors. Values are
 * borrowed from their document until hxi_json_doc_free. */
typedef struct hxi_json_val hxi_json_val;

/* A parsed document: every value and string lives in memory owned by it. Caller frees with
 * hxi_json_doc_free (one call frees everything). Immutable, so it may be read from any thread. */
typedef struct hxi_json_doc hxi_json_doc;

/* Parses text[0..len) (need not be NUL-terminated; the text is copied, not kept). `lim` may be
 * NULL for the defaults. On failure *out is NULL and err holds code, offset and message. */
int hxi_json_parse(hxi_json_doc **out, const char *text, size_t len, const hxi_json_limits *lim,
                   hx_error *err);
void hxi_json_doc_free(hxi_json_doc *doc);
const hxi_json_val *hxi_json_doc_root(const hxi_json_doc *doc);  /* never NULL for a parsed doc */

int hxi_json_type_of(const hxi_json_val *v);   /* HX_JSON_*; 0 for NULL */
int64_t hxi_json_offset(const hxi_json_val *v);  /* byte offset of the value in the parsed text */

/* Elements of an array, members of an object, bytes of a string or number text; 0 otherwise. */
size_t hxi_json_len(const hxi_json_val *v);

/* String bytes (valid UTF-8, NUL-terminated, may contain \0 when the text had \u0000) and their
 * count in *len (may be NULL); NULL if v is not a string. Borrowed until hxi_json_doc_free. */
const char *hxi_json_str(const hxi_json_val *v, size_t *len);

/* Exact source text of a number ("1.0", "-0", "12345678901234567890"), NUL-terminated; NULL if
 * v is not a number. Borrowed until hxi_json_doc_free. */
const char *hxi_json_num_text(const hxi_json_val *v, size_t *len);

/* 1 for true, 0 for false, -1 if v is not a boolean. */
int hxi_json_bool(const hxi_json_val *v);

/* Number as int64: the exact integer for integer text; text with a fraction or exponent is
 * accepted when its value is a whole number below 2^63 in magnitude ("10.0", "1e3").
 * HX_EINVAL if v is not a number, HX_ERANGE if it is not a whole number or out of range. */
int hxi_json_num_int64(const hxi_json_val *v, int64_t *out, hx_error *err);

/* Number as the nearest double. HX_EINVAL if v is not a number, HX_ERANGE if its magnitude is
 * beyond DBL_MAX ("1e400"); underflow to zero or a subnormal is not an error. */
int hxi_json_num_double(const hxi_json_val *v, double *out, hx_error *err);

/* Member `key` (NUL-terminated, or key[0..key_len) with hxi_json_obj_getn) of an object; NULL if
 * v is not an object or has no such member. Linear in the number of members. */
const hxi_json_val *hxi_json_obj_get(const hxi_json_val *obj, const char *key);
const hxi_json_val *hxi_json_obj_getn(const hxi_json_val *obj, const char *key, size_t key_len);

/* Element i of an array, or NULL. Linear in i (use hxi_json_iter to walk every element). */
const hxi_json_val *hxi_json_arr_get(const hxi_json_val *arr, size_t i);

/* Iteration over an array or object, in document order:
 *     hxi_json_iter it; const hxi_json_val *k, *v;
 *     hxi_json_iter_init(&it, obj);
 *     while (hxi_json_iter_next(&it, &k, &v)) ...
 * For arrays *key is NULL; for objects it is the member name (a string value). Iterating a
 * scalar yields nothing. */
typedef struct hxi_json_iter {
    const hxi_json_val *next;  /* borrowed from the document */
    size_t left;
    int is_object;
} hxi_json_iter;
void hxi_json_iter_init(hxi_json_iter *it, const hxi_json_val *container);
int hxi_json_iter_next(hxi_json_iter *it, const hxi_json_val **key, const hxi_json_val **val);

/* Deep equality: same types, numbers with identical text, strings with identical bytes, arrays
 * element by element, objects member by member in the same order. 1 if equal, else 0. */
int hxi_json_equal(const hxi_json_val *a, const hxi_json_val *b);

/* === Writer === */

#define HX_JSON_WRITER_DEPTH 256  /* nesting the writer tracks; deeper is a sticky HX_EDEPTH */

/* A growable buffer that builds one JSON text. Commas and colons are placed automatically; the
 * output never contains a raw CR or LF, so one text is one line. Errors are sticky: the first
 * failure (HX_ENOMEM, HX_EINVAL for misuse, HX_EDEPTH) is kept in `status`, later calls do
 * nothing, and hxi_json_writer_finish reports it. Initialise with hxi_json_writer_init; `buf` is
 * owned by the writer: caller frees with hxi_json_writer_free, or takes it with
 * hxi_json_writer_take. buf is NUL-terminated whenever len > 0. */
typedef struct hxi_json_writer {
    char *buf;
    size_t len, cap;
    int status;       /* 0 or the first HX_E* error */
    int depth;        /* open containers */
    int comma;        /* the next value or key needs a comma first */
    int after_key;    /* a key was written; a value must follow */
    unsigned char stack[HX_JSON_WRITER_DEPTH];  /* 'a' or 'o' per open container */
} hxi_json_writer;

void hxi_json_writer_init(hxi_json_writer *w);
void hxi_json_writer_free(hxi_json_writer *w);
/* Empties the writer (keeps its memory) and clears its status. */
void hxi_json_writer_reset(hxi_json_writer *w);
/* 0 if the writer holds one complete value; else its sticky error, or HX_EINVAL for an unclosed
 * container or an empty writer. Fills err. */
int hxi_json_writer_finish(const hxi_json_writer *w, hx_error *err);
/* Hands over the buffer (NUL-terminated, *len bytes before the NUL) and empties the writer.
 * Caller frees the result with free(). NULL if the writer failed (its status stays set). */
char *hxi_json_writer_take(hxi_json_writer *w, size_t *len);

void hxi_json_write_null(hxi_json_writer *w);
void hxi_json_write_bool(hxi_json_writer *w, int b);
void hxi_json_write_int(hxi_json_writer *w, int64_t x);
void hxi_json_write_uint(hxi_json_writer *w, uint64_t x);
/* Shortest of %.15g/%.16g/%.17g that reads back as the same double. NaN and infinities have
 * no JSON form and are written as null. */
void hxi_json_write_double(hxi_json_writer *w, double x);
/* A string from s[0..len). Escapes ", \, control characters (\n \r \t \b \f or \u00XX), DEL,
 * C1 controls and U+2028/U+2029 (line separators to some readers); keeps other valid UTF-8 as
 * is; replaces each byte of invalid UTF-8 with U+FFFD, so the output is always valid. */
void hxi_json_write_str(hxi_json_writer *w, const char *s, size_t len);
void hxi_json_write_cstr(hxi_json_writer *w, const char *s);  /* NUL-terminated; NULL writes null */
/* Number given as text (e.g. an id echoed from a request); must match the RFC 8259 number
 * grammar exactly, else sticky HX_EINVAL. Written byte for byte. */
void hxi_json_write_number_text(hxi_json_writer *w, const char *s, size_t len);
/* One JSON value given as text: it is validated with hxi_json_parse (default limits) and copied
 * byte for byte, except that CR and LF (whitespace, as they cannot occur inside valid strings)
 * become spaces. Invalid text is a sticky HX_EINVAL. */
void hxi_json_write_json(hxi_json_writer *w, const char *text, size_t len);
/* A copy of a parsed value and everything under it (numbers keep their text). */
void hxi_json_write_val(hxi_json_writer *w, const hxi_json_val *v);

void hxi_json_write_arr_begin(hxi_json_writer *w);
void hxi_json_write_arr_end(hxi_json_writer *w);
void hxi_json_write_obj_begin(hxi_json_writer *w);
void hxi_json_write_obj_end(hxi_json_writer *w);
/* Member name inside an object; the next write is its value. */
void hxi_json_write_key(hxi_json_writer *w, const char *key);  /* NUL-terminated */
void hxi_json_write_keyn(hxi_json_writer *w, const char *key, size_t len);
/* A member: its name (NUL-terminated) and its value, as write_key then the write of that type. */
void hxi_json_kv_cstr(hxi_json_writer *w, const char *key, const char *s);
void hxi_json_kv_uint(hxi_json_writer *w, const char *key, uint64_t x);
void hxi_json_kv_int(hxi_json_writer *w, const char *key, int64_t x);
void hxi_json_kv_double(hxi_json_writer *w, const char *key, double x);
void hxi_json_kv_bool(hxi_json_writer *w, const char *key, int b);
/* A member whose value is the array of the strings of list, which a NULL ends. */
void hxi_json_kv_strings(hxi_json_writer *w, const char *key, const char *const *list);

/* === Layout === */

/* The JSON text s[0..len) as the writer makes it (no whitespace outside strings) laid out for a
 * person: one member or element a line, each level indented by one more `indent` ("  ", "\t"),
 * ": " after a key, empty containers as {} and [] -- the layout of JavaScript's
 * JSON.stringify(v, null, indent), so a file an editor or a client wrote that way reads back the
 * same. No newline at the end. Caller frees with free(); NULL when out of memory. */
char *hxi_json_pretty(const char *s, size_t len, const char *indent, size_t *out_len);

#endif
