/* yaml.h: the YAML subset hyrax reads metadata from (YAML files and Markdown front matter). Owns
 * turning that text into (key, scalar) pairs; knows nothing of documents or filters (ingest.c keeps
 * the pairs, filter.c gives them types). Spec: YAML 1.2 block style, reduced to what metadata
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
typedef int (*hx_yaml_fn)(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted);

/* Calls fn for each pair of s[0..n), in document order. Returns 0 or fn's first non-zero return. */
int hx_yaml_pairs(const char *s, size_t n, hx_yaml_fn fn, void *ctx);

#endif
