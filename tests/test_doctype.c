/* test_doctype.c: the table of document types (doctype.h): detection by content before name,
 * the table's invariants, the extraction builder's rules (harmless controls dropped with a
 * warning, characters that change what a reader sees kept for the gate, white space, blocks and
 * heading paths, titles, the growth bound, the warning cap), and that the gate, the policy's
 * `types` and the chunker read the same table. */
#include "check.h"
#include "doctype.h"
#include "gate.h"
#include "ingest.h"

#include <stdint.h>

static const char *detect(const char *path, const char *content)
{
    return hxi_doctype_detect(path, (const uint8_t *)content, strlen(content))->name;
}

static void test_detection(void)
{
    static const struct { const char *path, *content, *want; } cases[] = {
        {"a.md", "# Title\n", "markdown"},
        {"a.MD", "text\n", "markdown"},
        {"a.yml", "a: 1\n", "yaml"},
        {"a.json", "{}", "json"},
        {"a.svg", "<svg/>", "xml"},
        {"dir/Makefile", "all:\n", "code"},
        {"a.py", "print(1)\n", "code"},
        {"README", "plain\n", "text"},
        {"a.unknown", "plain\n", "text"},
        {"page.html", "just words\n", "html"},                                   /* by name */
        {"page.xhtml", "<?xml version=\"1.0\"?><html xmlns='x'/>", "html"},
        {"notes.txt", "<!DOCTYPE html><html><p>x</p></html>", "html"},             /* content wins */
        {"notes.md", "\xef\xbb\xbf  <!-- c -->\n<!doctype HTML>\n<p>x</p>", "html"},
        {"feed.xml", "<?xml version=\"1.0\"?>\n<!-- c --><html><body/></html>", "html"},
        {"feed.xml", "<?xml version=\"1.0\"?>\n<rss/>", "xml"},
        {"feed.txt", "\xef\xbb\xbf <?XML version=\"1.0\"?>\n<rss/>", "xml"},                   /* magic */
        {"a.md", "<htmlish>\n", "markdown"},                                      /* not an html tag */
        {"a.txt", "<html", "text"},                                               /* cut short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(!strcmp(detect(cases[i].path, cases[i].content), cases[i].want), "%s with '%.20s': %s, want %s",
              cases[i].path, cases[i].content, detect(cases[i].path, cases[i].content), cases[i].want);
}

static void test_table(void)
{
    size_t n = hxi_doctype_count();
    CHECK(n >= 7 && n <= 32, "%zu rows (the policy keeps a bit per row)", n);
    for (size_t i = 0; i < n; i++) {
        const hxi_doctype *t = hxi_doctype_at(i);
        CHECK(t->name && t->extract, "row %zu complete", i);
        CHECK(hxi_doctype_find(t->name, strlen(t->name)) == t, "%s found by name", t->name);
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(hxi_doctype_at(k)->name, t->name), "%s named once", t->name);
        for (const char *const *e = t->exts; e && *e; e++)
            for (size_t k = 0; k < n; k++)
                for (const char *const *f = hxi_doctype_at(k)->exts; k != i && f && *f; f++)
                    CHECK(strcmp(*e, *f), ".%s claimed by %s and %s", *e, t->name, hxi_doctype_at(k)->name);
    }
    CHECK(hxi_doctype_at(n) == NULL && hxi_doctype_find("pdfx", 4) == NULL, "out of the table");
    /* the policy's types come from the table: each row's name parses, others are refused naming them */
    for (size_t i = 0; i < n; i++) {
        char line[64];
        snprintf(line, sizeof line, "types = %s\n", hxi_doctype_at(i)->name);
        ix_policy *p = NULL;
        hx_error err = {0};
        CHECK(ix_policy_parse(line, strlen(line), "p", &p, &err) == 0, "%s: %s", line, err.message);
        ix_policy_free(p);
    }
    ix_policy *p = NULL;
    hx_error err = {0};
    CHECK(ix_policy_parse("types = nosuchtype\n", 19, "p", &p, &err) == HX_EPARSE && strstr(err.message, "html") &&
              strstr(err.message, "markdown"), "unknown type refused, naming the table's: %s", err.message);
}

static void test_builder(void)
{
    hxi_extract x;
    hx_error err = {0};
    CHECK(hxi_extract_init(&x, 100, &err) == 0, "init");
    static const char first[] = "  one \x01 two\t\n three \xe2\x80\xae";
    CHECK(hxi_x_words(&x, first, sizeof first - 1, &err) == 0, "words");
    CHECK(hxi_x_heading(&x, 2, " A\n h ", 6, &err) == 0, "heading");
    CHECK(hxi_x_text(&x, "\x7f  keep\n  this", 14, &err) == 0, "text");
    CHECK(hxi_x_heading(&x, 1, "Top", 3, &err) == 0 && hxi_x_heading(&x, 3, "Low", 3, &err) == 0, "headings");
    hxi_x_source(&x, 7, 9);
    CHECK(hxi_x_words(&x, "bad \xff byte", 10, &err) == 0, "invalid UTF-8");
    CHECK(hxi_x_block(&x, HX_BLOCK_VERBATIM, &err) == 0 && hxi_x_block(&x, HX_BLOCK_PROSE, &err) == 0, "empty blocks");
    CHECK(hxi_x_finish(&x, &err) == 0, "finish");
    const char *want = "one two three \xe2\x80\xae\n\nA h\n\n  keep\n  this\n\nTop\n\nLow\n\nbad \xef\xbf\xbd byte";
    CHECK(!strcmp(x.text, want) && x.len == strlen(want), "text '%s'", x.text);
    CHECK(x.n_blocks == 6, "%zu blocks", x.n_blocks);
    static const char *const heads[] = {"", "A h", "A h", "Top", "Top > Low", "Top > Low"};
    for (size_t i = 0; i < x.n_blocks && i < 6; i++)
        CHECK(!strcmp(x.headings[x.blocks[i].heading], heads[i]), "block %zu under '%s'", i,
              x.headings[x.blocks[i].heading]);
    CHECK(x.blocks[1].kind == HX_BLOCK_HEADING && x.blocks[2].kind == HX_BLOCK_PROSE, "kinds");
    CHECK(x.blocks[5].src_first == 7 && x.blocks[5].src_last == 9 && x.blocks[0].src_first == 0, "sources");
    CHECK(x.title && !strcmp(x.title, "Top"), "the first level-1 heading is the title: %s", x.title);
    CHECK(x.n_meta == 1 && !strcmp(x.meta[0].value, "dropped 2 control characters"), "one warning for drops");
    CHECK(hxi_x_title(&x, "Real  title", 11, &err) == 0 && !strcmp(x.title, "Real title"), "a title replaces a heading's");
    CHECK(hxi_x_title(&x, "Other", 5, &err) == 0 && !strcmp(x.title, "Real title"), "the first title wins");
    hxi_extract_clear(&x);

    CHECK(hxi_extract_init(&x, 1, &err) == 0, "init");
    char big[2048];
    memset(big, 'a', sizeof big);
    CHECK(hxi_x_text(&x, big, sizeof big, &err) == HX_ERANGE, "growth past the bound refused");
    hxi_extract_clear(&x);

    CHECK(hxi_extract_init(&x, 1, &err) == 0, "init");
    for (int i = 0; i < 20; i++)
        CHECK(hxi_x_warn(&x, &err, "w%d", i) == 0, "warn");
    CHECK(hxi_x_finish(&x, &err) == 0, "finish");
    CHECK(x.n_meta == HX_X_MAX_WARNINGS + 1 && !strcmp(x.meta[x.n_meta - 1].key, "warnings_not_shown") &&
              !strcmp(x.meta[x.n_meta - 1].value, "12"), "warnings capped, the rest counted");
    hxi_extract_clear(&x);
}

/* A text with one U+0019 (CACM document 2857) is indexed with the control dropped; a bidi
 * override is still refused by the gate; Markdown keeps its bytes and lines. */
static void test_controls_and_gate(void)
{
    ix_gate *g = NULL;
    hx_error err = {0};
    CHECK(ix_gate_new(&g, "/", NULL, NULL, &err) == 0, "gate: %s", err.message);
    static const char cacm[] = "Extraction of data\x19 from text\n";
    hxi_doc_source d;
    CHECK(hxi_ingest_from_bytes("cacm/2857.txt", cacm, sizeof cacm - 1, NULL, 0, &d, &err) == 0, "%s", err.message);
    CHECK(!strcmp(d.text, "Extraction of data from text\n"), "control dropped: '%s'", d.text);
    ix_verdict v;
    CHECK(ix_gate_check(g, &d, (const uint8_t *)cacm, sizeof cacm - 1, NULL, 0, &v, &err) == 0 && !v.rule,
          "passes the gate: %s", v.reason);
    hxi_doc_source_clear(&d);
    static const char bidi[] = "access \xe2\x80\xae level\n";
    CHECK(hxi_ingest_from_bytes("b.md", bidi, sizeof bidi - 1, NULL, 0, &d, &err) == 0, "%s", err.message);
    CHECK(ix_gate_check(g, &d, (const uint8_t *)bidi, sizeof bidi - 1, NULL, 0, &v, &err) == 0 && v.rule &&
              !strcmp(v.rule, "control"), "a bidi override is refused");
    hxi_doc_source_clear(&d);
    static const char md[] = "---\ntitle: Front\n---\n\n# Head\n\n  body  \n\n";
    CHECK(hxi_ingest_from_bytes("m.md", md, sizeof md - 1, NULL, 0, &d, &err) == 0, "%s", err.message);
    CHECK(d.text_len == sizeof md - 1 && !memcmp(d.text, md, d.text_len), "Markdown text kept byte for byte");
    CHECK(!strcmp(d.title, "Front") && d.n_blocks == 0 && d.dt->chunk == HX_CHUNK_MARKDOWN, "title %s", d.title);
    hxi_doc_source_clear(&d);
    static const char bad_json[] = "{\"a\": ";
    CHECK(hxi_ingest_from_bytes("x.json", bad_json, sizeof bad_json - 1, NULL, 0, &d, &err) == 0, "%s", err.message);
    CHECK(ix_gate_check(g, &d, (const uint8_t *)bad_json, sizeof bad_json - 1, NULL, 0, &v, &err) == 0 && v.rule &&
              !strcmp(v.rule, "json"), "the json row's rule runs");
    hxi_doc_source_clear(&d);
    ix_gate_free(g);
}

int main(void)
{
    test_detection();
    test_table();
    test_builder();
    test_controls_and_gate();
    return check_report("test_doctype");
}
