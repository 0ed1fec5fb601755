/* xml.h: a well-formedness check for XML 1.0 documents (the gate's validator for directive-like
 * files). Owns only the question "is this well-formed, safely": it builds no tree and expands
 * nothing. Spec: XML 1.0 (5th ed.) section 2, reduced: one root element, matching tags, attribute
 * names unique per element and values quoted without '<', comments without "--", CDATA sections,
 * processing instructions, character references to valid code points, and the five predefined
 * entity references. A document type declaration is accepted only without an internal subset:
 * entity declarations (the "billion laughs" bomb and external entities) are refused, never
 * expanded, so any other named reference is undefined and refused. Limits: HX_XML_MAX_DEPTH open
 * elements, HX_XML_MAX_ATTRS attributes per element. Time linear in the input (attributes
 * quadratic in HX_XML_MAX_ATTRS at most); no allocation. */
#ifndef HX_XML_H
#define HX_XML_H

#include "hyrax.h"

#include <stddef.h>

#define HX_XML_MAX_DEPTH 256
#define HX_XML_MAX_ATTRS 64

/* 0 when s[0..n) is well-formed; else HX_EPARSE (HX_EDEPTH past the depth limit) with the reason
 * and byte offset in err. */
int hx_xml_check(const char *s, size_t n, hx_error *err);

#endif
