/* kiwi.h: Kiwi's item types (directive, script, knowledge) as document metadata. Owns where an
 * item's type comes from (its front matter's item_type, else Kiwi's folders .ai/directives,
 * .ai/scripts or .ai/tools, .ai/knowledge anywhere under the root) and what a script's metadata
 * header says. The directive row itself is directive.c's; README "Kiwi items" is the spec. */
#ifndef HX_KIWI_H
#define HX_KIWI_H

#include "doctype.h"

/* The item type of a file at root-relative path whose text is s[0..n): the value of its front
 * matter's item_type when that is one of the three, else its Kiwi folder's; NULL when neither
 * says. The string is static. */
const char *hxi_kiwi_item_type(const char *path, const char *s, size_t n);

/* After a type's describer: gives d the metadata item_type of its Kiwi folder when it has none
 * (front matter or the extractor gave one first), and a script its header's metadata (Kiwi's
 * module-level __version__, __tool_type__, __executor_id__, __category__, __tool_description__
 * string assignments, else a Python module docstring's first paragraph as description). */
int hxi_kiwi_describe(hxi_doc_source *d, hx_error *err);

#endif
