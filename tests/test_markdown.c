/* test_markdown.c: the Markdown extractor (markdown.c): the text a reader of the rendered page
 * sees, line for line. Expected texts are written by hand from the Markdown source by CommonMark
 * 0.31's rules (the spec example numbers are cited where one is used) and GFM's strikethrough;
 * then a whole file through ingest (title, line numbers of chunks) and hostile inputs. */
#include "check.h"
#include "chunker.h"
#include "ingest.h"
#include "markdown.h"

#include <stdint.h>

static void expect(const char *md, const char *want)
{
    char *got = NULL;
    size_t n = 0;
    int rc = hxi_markdown_text(md, strlen(md), &got, &n);
    CHECK(rc == 0 && got && n == strlen(got) && !strcmp(got, want), "%s\n  got  [%s]\n  want [%s]", md,
          got ? got : "(null)", want);
    free(got);
}

static void test_inlines(void)
{
    expect("[link](/uri \"title\")\n", "link\n");                       /* 482 */
    expect("![foo](/url \"title\")\n", "foo\n");                        /* 572 */
    expect("[link](</my uri>)\n", "link\n");                           /* 489 */
    expect("[link](foo(and(bar)))\n", "link\n");                        /* 495 */
    expect("[link] (/uri)\n", "[link] (/uri)\n");                     /* 524 */
    expect("- [ ] a task, [x] done\n", "a task, [x] done\n");
    expect("Steps:\n* one\n  + [x] two\n3. three\n-not a bullet\n", "Steps:\none\n  two\n3. three\n-not a bullet\n");
    expect("[![CI](https://ci/badge.svg)](https://ci/job) ok\n", "CI ok\n");
    expect("see [the\nguide](http://x) now\n", "see the\nguide now\n");
    expect("[a](b \"one\ntwo\") c\n", "a\n c\n");
    expect("[text][ref] and [other][]\n\n[ref]: https://x \"T\"\n", "text and other\n\n\n");
    expect("`foo` and ``a ` b``\n", "foo and a ` b\n");                 /* 328, 330 */
    expect("`[a](b)` *c*\n", "[a](b) c\n");
    expect("`unclosed and [a](b)\n", "`unclosed and a\n");
    expect("*foo bar* **strong** ~~gone~~\n", "foo bar strong gone\n");   /* 350, 378 */
    expect("a * foo bar*\n", "a * foo bar*\n");                         /* 352 */
    expect("foo*bar*\n", "foobar\n");                                   /* 355 */
    expect("foo_bar_\n", "foo_bar_\n");                                 /* 366 */
    expect("snake_case_name and 2 * 3 * 4\n", "snake_case_name and 2 * 3 * 4\n");
    expect("* item *one*\n", "item one\n");
    expect("\\*not emphasized*\n", "*not emphasized*\n");             /* 14 */
    expect("<https://foo.bar/baz?q=1> <me@example.com>\n", "https://foo.bar/baz?q=1 me@example.com\n");   /* 594, 606 */
    expect("a <span class=\"x>\">b</span> c\n", "a b c\n");
    expect("a <container_name> b\n", "a <container_name> b\n");         /* 617: not a tag name */
    expect("x <!-- note --> y\n", "x  y\n");
    expect("# Add `gRPC` [probe](#probe)\n", "# Add gRPC probe\n");
}

static void test_blocks(void)
{
    expect("```\n[a](b) *c*\n```\n[a](b)\n", "```\n[a](b) *c*\n```\na\n");
    expect("  ~~~ sh\n  echo `x`\n  ~~~\n", "  ~~~ sh\n  echo `x`\n  ~~~\n");
    expect("---\ntitle: \"[a](b)\"\n---\n[x](y)\n", "---\ntitle: \"[a](b)\"\n---\nx\n");
    expect("<!--\nhidden [a](b)\n\nstill hidden\n-->\nafter\n", "\n\n\n\n\nafter\n");   /* 179 */
    expect("<!-- toc -->\n- [Summary](#summary)\n<!-- /toc -->\n", "\nSummary\n\n");
    expect("<!-- a --> shown\n", " shown\n");
    expect("<!-- never closed\n[a](b)\n", "\n\n");
    expect("[a]\n\n[a]: /url\n", "[a]\n\n\n");   /* a shortcut reference stays text */
    expect("Foo\n[bar]: /baz\n\n[bar]\n", "Foo\n[bar]: /baz\n\n[bar]\n");   /* 213: cannot interrupt a paragraph */
    expect("no newline at the end [a](b)", "no newline at the end a");
    expect("", "");
}

static void test_document(void)
{
    static const char md[] = "# Tune `CrashLoopBackoff`\n\n"
                             "## Summary\n\n"
                             "Restarts are slowed down ([ref](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/)).\n"
                             "<!--\nTemplate text nobody reads.\n-->\n"
                             "The **delay** is capped.\n";
    hxi_doc_source d = {0};
    hx_error err = {0};
    int rc = hxi_ingest_from_bytes("kep/README.md", md, sizeof md - 1, NULL, 0, &d, &err);
    CHECK(rc == 0, "ingest: %s", err.message);
    if (rc)
        return;
    CHECK(!strcmp(d.type, "markdown"), "type %s", d.type);
    CHECK(!strcmp(d.title, "Tune CrashLoopBackoff"), "title [%s]", d.title);
    CHECK(!strstr(d.text, "https://") && !strstr(d.text, "Template") && strstr(d.text, "The delay is capped."),
          "text [%s]", d.text);
    size_t lines = 0;
    for (const char *p = d.text; *p; p++)
        lines += *p == '\n';
    CHECK(lines == 9, "%zu lines, the file has 9", lines);
    hxi_doc_source_clear(&d);
}

static void test_hostile(void)
{
    size_t n = 1 << 20;
    char *s = malloc(n + 1);
    const char *pats[] = {"[", "![a](", "`` `", "*a ", "<a ", "<!--", "[a](b \"", "_\n"};
    for (size_t k = 0; s && k < sizeof pats / sizeof *pats; k++) {
        size_t pl = strlen(pats[k]);
        for (size_t i = 0; i < n; i++)
            s[i] = pats[k][i % pl];
        s[n] = 0;
        char *got = NULL;
        size_t len = 0;
        int rc = hxi_markdown_text(s, n, &got, &len);
        CHECK(rc == 0 && len <= n, "pattern %s: rc %d, %zu bytes", pats[k], rc, len);
        free(got);
    }
    free(s);
}

int main(void)
{
    test_inlines();
    test_blocks();
    test_document();
    test_hostile();
    return check_report("test_markdown");
}
