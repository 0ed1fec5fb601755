/* yaml.h: the YAML subset hyrax reads metadata from (YAML files and Markdown front matter). Owns
 * turning that text into (key, scalar) pairs; knows nothing of documents or filters (a document
 * keeps the pairs: src/formats/document.c; filter.c gives them types). Spec: YAML 1.2 block style, reduced to what metadata
 * files use:
 *   - block mappings, nested by indentation; nested keys are flattened with '.' ("milestone.beta")
 *   - block lists ("- a") and flow lists ("[a, b]", also over several lines up to the line with
 *     its "]"): one pair per item, all under the list's key (a list of mappings gives "list.key"
 *     pairs); items that are lists themselves are skipped
 *   - plain, 'single-' and "double-quoted" scalars (\" \\ \/ \n \t \r escapes), "# comments"
 *   - null values ("", "~", "null") give no pair
 * Skipped, never expanded: block scalars (| and >, with their indented lines), anchors (the value
 * after "&name" is kept), aliases ("*name" gives no pair), tags, flow mappings, lines indented with
 * tabs, everything after a second "---" document marker. Limits: HX_YAML_MAX_DEPTH nested keys
 * (deeper lines are skipped), HX_YAML_KEY_MAX bytes of a flattened key (longer keys are skipped).
 * Hostile text never fails the parse: what is not understood is passed over, line by line, in
 * time linear in the input. */
#ifndef HX_YAML_H
#define HX_YAML_H

#include "hyrax.h"

#include <stdbool.h>
#include <stddef.h>

#define HX_YAML_MAX_DEPTH 8
#define HX_YAML_KEY_MAX 128
#define HX_YAML_VALUE_MAX 1024    /* a longer quoted scalar is cut (at a byte; ingest cuts again) */
#define HX_YAML_FLOW_MAX 4096     /* bytes of a flow list spread over lines; a longer one is skipped */

/* One pair: key[0..klen) is the flattened key, val[0..vlen) the scalar with quotes removed and
 * escapes decoded; quoted says it was quoted (so a string, even when it reads as a number).
 * Both are borrowed for the call. A non-zero return stops the parse and is returned. */
typedef int (*hxi_yaml_fn)(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted);

/* Calls fn for each pair of s[0..n), in document order. Returns 0 or fn's first non-zero return. */
int hxi_yaml_pairs(const char *s, size_t n, hxi_yaml_fn fn, void *ctx);

/* Markdown front matter: when s[0..n) opens with a "---" line, *yaml_at and *yaml_len get the YAML
 * between it and the closing "---" or "..." line, *body the offset past that line, and it returns
 * 1; 0 when the text has no front matter; -1 when it opens one that never closes. */
int hxi_yaml_front_matter(const char *s, size_t n, size_t *yaml_at, size_t *yaml_len, size_t *body);

/* What hxi_yaml_check accepts beyond hxi_yaml_pairs's leniency (the gate's YAML validator). */
#define HX_YAML_CHECK_MAX_ALIASES 16   /* "*name" references in one text (alias bombs) */
#define HX_YAML_CHECK_MAX_NEST 32      /* open flow brackets, and distinct block indentation levels */

/* Whether s[0..n) is YAML that parses, for the structure metadata uses: every quoted scalar and
 * flow collection closed (brackets matched), no tab in indentation, every alias naming an anchor
 * defined before it, and no more than the limits above (so an alias bomb, whose expansion grows
 * exponentially with its aliases, is refused before anything expands it; hyrax never expands
 * aliases anyway). Block scalars (| and >) are passed over. 0, or HX_EPARSE, HX_EDEPTH or
 * HX_ERANGE with the line in the message and the byte offset in err. Linear time, no allocation. */
int hxi_yaml_check(const char *s, size_t n, hx_error *err);

#endif
