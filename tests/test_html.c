/* test_html.c: the HTML extractor (html.c) against the reference. Real pages from Debian's
 * python3.11-doc and postgresql-doc-15 plus two made pages, with the words and title
 * tools/html_reference.py (Python's html.parser) extracts (tests/data/html/NAME.words, written
 * by tools/gen_html_goldens.py); every character reference against html.unescape (refs.tsv);
 * then charsets, dropped elements, heading paths, blocks, source lines, metadata and chunks. */
#include "check.h"
#include "chunker.h"
#include "ingest.h"
#include "model.h"

#include <stdint.h>

#define DATA "tests/data/html/"

static const char *meta(const hxi_doc_source *d, const char *key)
{
    for (size_t i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key))
            return d->meta[i].value;
    return NULL;
}

static int load(const char *name, const void *bytes, size_t len, hxi_doc_source *d, hx_error *err)
{
    memset(err, 0, sizeof *err);
    return hxi_ingest_from_bytes(name, bytes, len, NULL, 0, d, err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits s at white space into a sorted array of words (pointers into s, which it cuts). */
static char **words(char *s, size_t *n)
{
    size_t cap = 16;
    char **v = malloc(cap * sizeof *v);
    *n = 0;
    for (char *tok = strtok(s, " \t\n\r\f\v"); tok && v; tok = strtok(NULL, " \t\n\r\f\v")) {
        if (*n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        if (v)
            v[(*n)++] = tok;
    }
    if (v)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

/* Words in common, as multisets: both arrays sorted. */
static size_t common(char **a, size_t na, char **b, size_t nb)
{
    size_t i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        int k = strcmp(a[i], b[j]);
        c += k == 0;
        i += k <= 0;
        j += k >= 0;
    }
    return c;
}

static void test_goldens(void)
{
    static const char *const pages[] = {"py_keyword", "py_bisect", "pg_droptable", "pg_clusterdb", "pg_boolean",
                                        "w1252_tables", "dropped"};
    for (size_t p = 0; p < sizeof pages / sizeof *pages; p++) {
        char path[256];
        size_t hl = 0, wl = 0;
        snprintf(path, sizeof path, DATA "%s.html", pages[p]);
        char *html = check_read_file(path, &hl);
        snprintf(path, sizeof path, DATA "%s.words", pages[p]);
        char *want = check_read_file(path, &wl);
        CHECK(html && want, "fixture %s", pages[p]);
        if (!html || !want)
            continue;
        hxi_doc_source d;
        hx_error err;
        snprintf(path, sizeof path, "%s.html", pages[p]);
        CHECK(load(path, html, hl, &d, &err) == 0, "%s: %s", pages[p], err.message);
        CHECK(!strcmp(d.type, "html"), "%s is html, not %s", pages[p], d.type);
        char *nl = strchr(want, '\n');
        *nl = 0;
        CHECK(!strcmp(d.title, want), "%s: title '%s', reference '%s'", pages[p], d.title, want);
        size_t nw, nh;
        char *text = strdup(d.text);
        char **ref = words(nl + 1, &nw), **hyp = words(text, &nh);
        size_t c = common(ref, nw, hyp, nh);
        double recall = nw ? (double)c / (double)nw : 1, precision = nh ? (double)c / (double)nh : 1;
        CHECK(nw > 0 || !strcmp(pages[p], "none"), "%s: the reference has words", pages[p]);
        CHECK(recall >= 0.99 && precision >= 0.99, "%s: word recall %.4f, precision %.4f (%zu reference words, %zu ours)",
              pages[p], recall, precision, nw, nh);
        printf("test_html: %-13s %5zu words, recall %.4f, precision %.4f\n", pages[p], nw, recall, precision);
        char wc[24];
        snprintf(wc, sizeof wc, "%zu", nh);
        CHECK(meta(&d, "word_count") && !strcmp(meta(&d, "word_count"), wc), "%s: word_count %s, want %s", pages[p],
              meta(&d, "word_count"), wc);
        free(ref);
        free(hyp);
        free(text);
        hxi_doc_source_clear(&d);
        free(html);
        free(want);
    }
}

/* Every named reference (with and without ';') and numeric edge cases against html.unescape. */
static void test_refs(void)
{
    size_t len;
    char *tsv = check_read_file(DATA "refs.tsv", &len);
    CHECK(tsv != NULL, "refs.tsv");
    size_t n = 0, bad = 0;
    for (char *line = tsv, *next; tsv && *line; line = next) {
        char *end = strchr(line, '\n');
        *end = 0;
        next = end + 1;
        char *tab = strchr(line, '\t');
        *tab = 0;
        char html[256];
        int hl = snprintf(html, sizeof html, "<p>%s</p>", line);
        hxi_doc_source d;
        hx_error err;
        if (load("r.html", html, (size_t)hl, &d, &err) != 0) {
            CHECK(0, "%s: %s", line, err.message);
            continue;
        }
        n++;
        if (strcmp(d.text, tab + 1) && bad++ < 10)
            CHECK(0, "%s decodes to '%s', html.unescape gives '%s'", line, d.text, tab + 1);
        hxi_doc_source_clear(&d);
    }
    CHECK(n > 2300 && !bad, "%zu references, %zu differ", n, bad);
    free(tsv);
}

static void test_charsets(void)
{
    hxi_doc_source d;
    hx_error err;
    static const char sjis[] = "<html><head><meta charset=\"shift_jis\"></head><body>\x82\xa0</body></html>";
    CHECK(load("j.html", sjis, sizeof sjis - 1, &d, &err) == HX_EFORMAT && strstr(err.message, "shift_jis"),
          "shift_jis refused with its name: %s", err.message);
    static const char xml_decl[] = "<?xml version=\"1.0\" encoding=\"EUC-JP\"?><html><body>x</body></html>";
    CHECK(load("j.xhtml", xml_decl, sizeof xml_decl - 1, &d, &err) == HX_EFORMAT && strstr(err.message, "EUC-JP"),
          "an XML declaration's encoding is read: %s", err.message);
    static const char undeclared[] = "<html><body><p>caf\xe9 \x93q\x94</p></body></html>";
    CHECK(load("u.html", undeclared, sizeof undeclared - 1, &d, &err) == 0, "%s", err.message);
    CHECK(!strcmp(d.text, "caf\xc3\xa9 \xe2\x80\x9cq\xe2\x80\x9d") && !strcmp(d.encoding, "windows-1252"),
          "undeclared non-UTF-8 bytes read as windows-1252: '%s' (%s)", d.text, d.encoding);
    CHECK(meta(&d, "warning") && strstr(meta(&d, "warning"), "windows-1252"), "and a warning says so");
    hxi_doc_source_clear(&d);
    static const char bom[] = "\xef\xbb\xbf<p>caf\xc3\xa9</p>";
    CHECK(load("b.html", bom, sizeof bom - 1, &d, &err) == 0 && !strcmp(d.text, "caf\xc3\xa9") &&
              !strcmp(d.encoding, "utf-8-bom"), "a UTF-8 BOM wins");
    hxi_doc_source_clear(&d);
    static const unsigned char u16[] = {0xFF, 0xFE, '<', 0, 'p', 0, '>', 0, 0xE9, 0, '<', 0, '/', 0, 'p', 0, '>', 0};
    CHECK(load("w.html", u16, sizeof u16, &d, &err) == 0 && !strcmp(d.text, "\xc3\xa9") &&
              !strcmp(d.encoding, "utf-16le"), "UTF-16 with BOM: '%s'", d.text);
    hxi_doc_source_clear(&d);
    static const char nul[] = "<html><p>a\0b</p></html>";
    CHECK(load("n.html", nul, sizeof nul - 1, &d, &err) == HX_EFORMAT && strstr(err.message, "NUL at byte 10"),
          "a NUL byte is binary: %s", err.message);
}

static void test_structure(void)
{
    static const char page[] =
        "<!DOCTYPE html>\n<html lang=\"de\"><head><title>T</title>\n"
        "<meta name=\"Author\" content=\"Ada &amp; Bob\"><meta name=keywords content=\"a, b ,c\">\n"
        "</head><body>\n<h1>Top</h1>\n<p>one.\n two</p>\n<h2>Sub</h2><p>three</p>\n"
        "<h3>Deep</h3><p>four</p><h2>Next</h2><pre>\n  x  y\n</pre><p>bell\x07 five</p>\n</body></html>\n";
    hxi_doc_source d;
    hx_error err;
    CHECK(load("s.html", page, sizeof page - 1, &d, &err) == 0, "%s", err.message);
    CHECK(!strcmp(d.title, "T"), "title from <title>, not h1: %s", d.title);

    CHECK(meta(&d, "author") && !strcmp(meta(&d, "author"), "Ada & Bob"), "author %s", meta(&d, "author"));
    CHECK(meta(&d, "language") && !strcmp(meta(&d, "language"), "de"), "language");
    size_t kw = 0;
    for (size_t i = 0; i < d.n_meta; i++)
        kw += !strcmp(d.meta[i].key, "keywords");
    CHECK(kw == 3, "keywords one entry each: %zu", kw);
    CHECK(meta(&d, "warning") && !strcmp(meta(&d, "warning"), "dropped 1 control character"), "warning %s",
          meta(&d, "warning"));
    static const struct { const char *text, *heading; uint32_t line; int kind; } want[] = {
        {"Top", "Top", 5, HX_BLOCK_HEADING},          {"one. two", "Top", 6, HX_BLOCK_PROSE},
        {"Sub", "Top > Sub", 8, HX_BLOCK_HEADING},    {"three", "Top > Sub", 8, HX_BLOCK_PROSE},
        {"Deep", "Top > Sub > Deep", 9, HX_BLOCK_HEADING}, {"four", "Top > Sub > Deep", 9, HX_BLOCK_PROSE},
        {"Next", "Top > Next", 9, HX_BLOCK_HEADING},  {"  x  y\n", "Top > Next", 10, HX_BLOCK_VERBATIM},
        {"bell five", "Top > Next", 11, HX_BLOCK_PROSE},
    };
    CHECK(d.n_blocks == sizeof want / sizeof *want, "%zu blocks", d.n_blocks);
    for (size_t i = 0; i < d.n_blocks && i < sizeof want / sizeof *want; i++) {
        const hxi_block *b = &d.blocks[i];
        CHECK(b->end - b->start == strlen(want[i].text) && !memcmp(d.text + b->start, want[i].text, b->end - b->start),
              "block %zu: '%.*s', want '%s'", i, (int)(b->end - b->start), d.text + b->start, want[i].text);
        CHECK(!strcmp(d.headings[b->heading], want[i].heading), "block %zu heading '%s', want '%s'", i,
              d.headings[b->heading], want[i].heading);
        CHECK(b->src_first == want[i].line && (int)b->kind == want[i].kind, "block %zu: line %u kind %d", i,
              b->src_first, b->kind);
    }
    CHECK(!strstr(d.text, "\n\n\n"), "blocks are separated by one blank line");
    hx_model *m = NULL;
    hx_error merr = {0};
    CHECK(hx_model_open(&m, "weights/" HX_WEIGHTS_FILE, &merr) == 0, "model: %s", merr.message);
    if (m) {   /* chunks: heading paths and source lines */
        hxi_chunk *c;
        size_t n;
        hxi_chunk_opts o = {.max_tokens = 16};
        CHECK(hxi_chunk_source(hxi_model_tokenizer(m), &d, &o, &c, &n, &err) == 0, "%s", err.message);
        for (size_t i = 0; i < n; i++) {
            CHECK(!strstr(c[i].text + c[i].body_offset, "Sub") || !strstr(c[i].text + c[i].body_offset, "Next"),
                  "no chunk runs across a heading: %s", c[i].text);
            if (strstr(c[i].text + c[i].body_offset, "four"))
                CHECK(!strcmp(c[i].heading, "Top > Sub > Deep") && c[i].line_start == 9,
                      "chunk of 'four': heading %s, line %u", c[i].heading, c[i].line_start);
            if (strstr(c[i].text + c[i].body_offset, "x  y"))
                CHECK(c[i].line_start <= 10 && c[i].line_end >= 10 && c[i].line_end <= 11,
                      "pre chunk: source lines %u-%u, not the text's", c[i].line_start, c[i].line_end);
        }
        hxi_chunks_free(c, n);
        hx_model_close(m);
    }
    hxi_doc_source_clear(&d);
    /* pandoc's standalone HTML without a title says <title>README</title> for README.md: the
     * file's own name is no title, the first h1 is */
    static const char named[] = "<html><head><title>README</title></head><body><h1>Node swap</h1><p>x</p></body></html>";
    CHECK(load("docs/README.html", named, sizeof named - 1, &d, &err) == 0 && !strcmp(d.title, "Node swap"),
          "a <title> repeating the file's name gives way to h1: %s", d.title);
    hxi_doc_source_clear(&d);
    CHECK(load("docs/readme.HTML", named, sizeof named - 1, &d, &err) == 0 && !strcmp(d.title, "Node swap"),
          "the name compared without case and extension: %s", d.title);
    hxi_doc_source_clear(&d);
    CHECK(load("docs/notes.html", named, sizeof named - 1, &d, &err) == 0 && !strcmp(d.title, "README"),
          "another file's name is a title: %s", d.title);
    hxi_doc_source_clear(&d);
}

/* Hostile shapes finish, bounded, without tags leaking into the text. */
static void test_hostile(void)
{
    size_t n = 1 << 20;
    char *s = malloc(n + 1);
    static const char *const unit[] = {"<div>", "<nav>", "&", "<!--", "<script>", "<a b='", "<h1>", "&#x"};
    for (size_t u = 0; s && u < sizeof unit / sizeof *unit; u++) {
        size_t k = strlen(unit[u]), i = 0;
        while (i + k <= n) {
            memcpy(s + i, unit[u], k);
            i += k;
        }
        memset(s + i, 'x', n - i);
        hxi_doc_source d;
        hx_error err;
        int rc = load("h.html", s, n, &d, &err);
        CHECK(rc == 0, "%s x %zu: %s", unit[u], n / k, err.message);
        if (!rc) {
            CHECK(d.text_len <= 4 * n, "text bounded");
            hxi_doc_source_clear(&d);
        }
    }
    free(s);
}

int main(void)
{
    test_goldens();
    test_refs();
    test_charsets();
    test_structure();
    test_hostile();
    return check_report("test_html");
}
