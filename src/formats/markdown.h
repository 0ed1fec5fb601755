/* markdown.h: the Markdown row's extractor (markdown.c): the text a reader of the rendered page
 * sees, line for line. */
#ifndef HX_MARKDOWN_H
#define HX_MARKDOWN_H

#include "doctype.h"

#include <stddef.h>
#include <stdint.h>

/* The text of Markdown s[0..n) as rendered, without the markup a reader does not see (link
 * targets, code span backticks, emphasis delimiters, raw HTML; markdown.c lists the rules), with
 * every line break kept. *out (NUL-terminated, at most n bytes) is the caller's to free. 0 or
 * HX_ENOMEM. */
int hxi_markdown_text(const char *s, size_t n, char **out, size_t *out_len);
/* The row's extractor: decoded text through hxi_markdown_text as one verbatim block. */
int hxi_markdown_extract(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err);

#endif
