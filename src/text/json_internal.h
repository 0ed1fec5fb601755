/* json_internal.h: what json.c (the reader) and json_write.c (the writer) share: the DOM's layout
 * (described at the top of json.c), the UTF-8 check and the number grammar. Not for other files. */
#ifndef HX_JSON_INTERNAL_H
#define HX_JSON_INTERNAL_H

#include <stddef.h>

struct hxi_json_val {
    int type;        /* HX_JSON_* */
    size_t n;        /* elements/members of a container, bytes of a string/number, 0/1 of a bool */
    size_t span;     /* values in the subtree, this one included (1 for scalars) */
    const char *s;   /* string or number text, NUL-terminated, in the document's arena */
    size_t off;      /* byte offset in the parsed text */
};

struct hxi_json_doc {
    hxi_json_val *vals;  /* owned; vals[0] is the root */
    size_t n_vals;
    char text[];        /* string arena */
};

/* Length (1..4) of the valid UTF-8 sequence at s[0..n), or 0 if it is invalid (json.c). */
size_t hxi_json_utf8_seq(const unsigned char *s, size_t n);
/* The RFC 8259 number at p[pos..len): NULL with *end past it, else an error message with the
 * offending byte at *bad (json.c). */
const char *hxi_json_number_scan(const char *p, size_t len, size_t pos, size_t *end, size_t *bad);

#endif
