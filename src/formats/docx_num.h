/* docx_num.h: the list numbers of a DOCX (docx_num.c): numbering.xml read once, then the label
 * Word and LibreOffice draw before each numbered paragraph, in document order. */
#ifndef HX_DOCX_NUM_H
#define HX_DOCX_NUM_H

#include "office.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct hxi_docx_numbering hxi_docx_numbering;

/* Reads the numbering part `part` of the package; *out is the caller's (hxi_docx_numbering_free). */
int hxi_docx_numbering_read(hxi_zip *z, const char *part, hxi_docx_numbering **out, hx_error *err);
/* The label ("3.", "b)", "iv.", "2.1"; "" for a bullet or an unknown list) of the next paragraph
 * of list num_id at level ilvl (0-based) into buf (cap > 0, NUL-terminated, cut to fit), counting
 * it; its length. nb may be NULL (no numbering part: every label is ""). */
size_t hxi_docx_numbering_next(hxi_docx_numbering *nb, long num_id, int ilvl, char *buf, size_t cap);
void hxi_docx_numbering_free(hxi_docx_numbering *nb);

#endif
