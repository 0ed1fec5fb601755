/* doctype_text.c: the rows of the types read as text (Markdown, whose extractor is markdown.c's,
 * YAML, JSON, XML, plain text; code is doctype_code.c's): their extractor (decode, drop harmless
 * controls), their describers (front matter, YAML pairs, first heading) and their gate rules (front matter closed, YAML, JSON and XML
 * well-formed). The table and the builder are doctype.c's; decoding is document.c's. */
#include "doctype.h"
#include "json.h"
#include "markdown.h"
#include "xml.h"
#include "yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DEPTH 64   /* the gate's nesting limit for JSON files */

/* === Extraction === */

/* The whole decoded text as one verbatim block, so lines and bytes stay where they were. */
static int extract_text(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    char *text;
    size_t n;
    int rc = hxi_doc_decode(raw, len, &text, &n, &x->encoding, err);
    if (rc)
        return rc;
    if (!(rc = hxi_x_block(x, HX_BLOCK_VERBATIM, err)))
        rc = hxi_x_text(x, text, n, err);
    free(text);
    return rc ? rc : hxi_x_finish(x, err);
}

/* === Describers === */

typedef struct {
    hxi_doc_source *d;
    size_t from;
    hx_error *err;
} yaml_sink;

static int yaml_pair(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted)
{
    yaml_sink *y = ctx;
    (void)quoted;
    return hxi_doc_meta_add(y->d, y->from, key, klen, val, vlen, y->err);
}

static int yaml_meta(hxi_doc_source *d, const char *s, size_t n, hx_error *err)
{
    yaml_sink y = {d, d->n_meta, err};
    return hxi_yaml_pairs(s, n, yaml_pair, &y);
}

/* First ATX heading ("# Title") outside fenced code, or NULL. */
static const char *first_heading(const char *s, size_t n, size_t *len)
{
    bool fenced = false;
    size_t pos = 0;
    while (pos < n) {
        const char *line = s + pos, *nl = memchr(line, '\n', n - pos);
        size_t l = nl ? (size_t)(nl - line) : n - pos;
        pos += l + (nl != NULL);
        if (l >= 3 && (!memcmp(line, "```", 3) || !memcmp(line, "~~~", 3))) {
            fenced = !fenced;
            continue;
        }
        if (fenced || !l || line[0] != '#')
            continue;
        size_t h = 0;
        while (h < l && line[h] == '#')
            h++;
        if (h > 6 || h >= l || line[h] != ' ')
            continue;
        size_t end = l;
        while (end > h && (line[end - 1] == '#' || line[end - 1] == ' ' || line[end - 1] == '\r'))
            end--;
        *len = end - h;
        return line + h;
    }
    return NULL;
}

/* Front matter pairs into metadata; the first heading of the body as title. */
static int describe_markdown(hxi_doc_source *d, hx_error *err)
{
    size_t at, len, body = 0, hlen;
    int rc;
    if (hxi_yaml_front_matter(d->text, d->text_len, &at, &len, &body) == 1 && (rc = yaml_meta(d, d->text + at, len, err)))
        return rc;
    const char *h = first_heading(d->text + body, d->text_len - body, &hlen);
    if (h)
        return hxi_doc_set_title(d, h, hlen, err);
    return hxi_doc_title_from_lines(d, body, false, err);
}

/* Every pair into metadata; the first line that is not a comment as title. */
static int describe_yaml(hxi_doc_source *d, hx_error *err)
{
    int rc = yaml_meta(d, d->text, d->text_len, err);
    return rc ? rc : hxi_doc_title_from_lines(d, 0, true, err);
}

/* === Gate rules === */

static int fail(const char **rule, const char *name, char *why, size_t why_len, const char *msg)
{
    *rule = name;
    snprintf(why, why_len, "%s", msg);
    return 0;
}

static int check_markdown(const hxi_doc_source *d, const char **rule, char *why, size_t why_len, hx_error *err)
{
    (void)err;
    size_t at, len, body;
    hx_error perr = {0};
    int fm = hxi_yaml_front_matter(d->text, d->text_len, &at, &len, &body);
    if (fm < 0)
        return fail(rule, "front-matter", why, why_len, "the front matter opened by the first line '---' is never closed");
    if (fm > 0 && hxi_yaml_check(d->text + at, len, &perr)) {
        *rule = "yaml";
        snprintf(why, why_len, "front matter: %s", perr.message);
    }
    return 0;
}

static int check_yaml(const hxi_doc_source *d, const char **rule, char *why, size_t why_len, hx_error *err)
{
    (void)err;
    hx_error perr = {0};
    return hxi_yaml_check(d->text, d->text_len, &perr) ? fail(rule, "yaml", why, why_len, perr.message) : 0;
}

static int check_json(const hxi_doc_source *d, const char **rule, char *why, size_t why_len, hx_error *err)
{
    hxi_json_doc *doc = NULL;
    hxi_json_limits lim = {.max_depth = JSON_DEPTH};
    hx_error perr = {0};
    int rc = hxi_json_parse(&doc, d->text, d->text_len, &lim, &perr);
    hxi_json_doc_free(doc);
    if (rc == HX_ENOMEM)
        return hx_error_set(err, rc, -1, "out of memory checking JSON");
    if (rc) {
        *rule = "json";
        snprintf(why, why_len, "JSON does not parse at byte %lld: %s", (long long)perr.offset, perr.message);
    }
    return 0;
}

static int check_xml(const hxi_doc_source *d, const char **rule, char *why, size_t why_len, hx_error *err)
{
    (void)err;
    hx_error perr = {0};
    return hxi_xml_check(d->text, d->text_len, &perr) ? fail(rule, "xml", why, why_len, perr.message) : 0;
}

/* === Rows === */

static const char *const md_exts[] = {"md", "markdown", "mdx", NULL};
static const char *const yaml_exts[] = {"yaml", "yml", NULL};
static const char *const json_exts[] = {"json", NULL};
static const char *const xml_exts[] = {"xml", "xsd", "xsl", "xslt", "svg", "rss", "atom", "plist", NULL};
const hxi_doctype hxi_doctype_markdown = {
    .name = "markdown", .exts = md_exts, .extract = hxi_markdown_extract, .describe = describe_markdown,
    .chunk = HX_CHUNK_MARKDOWN, .check = check_markdown,
};
const hxi_doctype hxi_doctype_yaml = {
    .name = "yaml", .exts = yaml_exts, .extract = extract_text, .describe = describe_yaml,
    .chunk = HX_CHUNK_YAML, .check = check_yaml,
};
const hxi_doctype hxi_doctype_json = {
    .name = "json", .exts = json_exts, .extract = extract_text, .chunk = HX_CHUNK_CODE, .check = check_json,
};
const hxi_doctype hxi_doctype_xml = {
    .name = "xml", .exts = xml_exts, .magic = {{0, 5, true, "<?xml"}}, .extract = extract_text,
    .chunk = HX_CHUNK_PROSE, .check = check_xml,
};
const hxi_doctype hxi_doctype_text = {
    .name = "text", .extract = extract_text, .chunk = HX_CHUNK_PROSE,
};
