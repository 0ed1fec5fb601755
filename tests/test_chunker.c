/* test_chunker.c: chunking invariants on real documents (KEP-style Markdown, YAML, code) and on
 * hostile ones: every chunk fits the model whole (counted by the model's tokenizer), bodies are
 * exact byte ranges of the document with the right line numbers, headings follow the Markdown
 * structure, consecutive chunks of a section overlap, every word of the document lands in some
 * chunk, and megabyte runs without spaces chunk in linear time. A document an extractor made of
 * units (doctype.h) is cut at every unit boundary, expected boundaries written by hand. The model
 * is not given a header whose words the body already begins with (expected cases by hand). */
#include "check.h"
#include "chunker.h"
#include "doctype.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

static const hxi_tokenizer *tok;

/* Checks the invariants every chunking must keep; returns the number of chunks. */
static size_t check_chunks(const char *what, const char *title, const char *type, const char *text,
                           int max_tokens, hxi_chunk **out)
{
    hxi_chunk *c = NULL;
    size_t n = 0, len = strlen(text);
    hx_error err = {0};
    hxi_chunk_opts o = {max_tokens, -1};
    CHECK(hxi_chunk_document(tok, title, type, text, len, &o, &c, &n, &err) == 0, "%s: %s", what, err.message);
    int limit = max_tokens ? max_tokens : HX_MAX_SEQ_TOKENS;
    uint8_t *covered = calloc(len + 1, 1);
    uint32_t *line_at = malloc(sizeof *line_at * (len + 1));   /* 1-based line of each byte */
    line_at[0] = 1;
    for (size_t b = 0; b < len; b++)
        line_at[b + 1] = line_at[b] + (text[b] == '\n');
    for (size_t i = 0; i < n; i++) {
        size_t tl = strlen(c[i].text);
        size_t counted = hxi_tokenize(tok, c[i].text, tl, NULL, NULL, 0) + 2;
        CHECK(counted <= (size_t)limit, "%s chunk %zu has %zu tokens > %d", what, i, counted, limit);
        CHECK(counted == c[i].n_tokens, "%s chunk %zu reports %u tokens, has %zu", what, i, c[i].n_tokens, counted);
        CHECK(c[i].index == i, "%s chunk index", what);
        CHECK(c[i].byte_start < c[i].byte_end && c[i].byte_end <= len, "%s chunk %zu range", what, i);
        size_t bl = c[i].byte_end - c[i].byte_start;
        CHECK(tl == c[i].body_offset + bl && !memcmp(c[i].text + c[i].body_offset, text + c[i].byte_start, bl),
              "%s chunk %zu body is the document's bytes", what, i);
        CHECK(!strncmp(c[i].text, title, strlen(title)) || strlen(c[i].text) < strlen(title),
              "%s chunk %zu header starts with the title", what, i);
        uint32_t line = line_at[c[i].byte_start];
        CHECK(c[i].line_start == line, "%s chunk %zu line_start %u, want %u", what, i, c[i].line_start, line);
        for (size_t b = c[i].byte_start; b < c[i].byte_end; b++)
            covered[b] = 1;
    }
    /* every non-space byte is in some chunk, except Markdown markup: the #s of a heading line
     * and the --- (or ...) lines that fence front matter */
    size_t missed = 0;
    for (size_t b = 0, line_start = 0, line_len = 0; b < len; b++) {
        if (b == 0 || text[b - 1] == '\n') {
            line_start = b;
            line_len = strcspn(text + line_start, "\r\n");
        }
        int md = !strcmp(type, "markdown");
        int markup = md && ((text[line_start] == '#' && text[b] == '#') ||
                            (line_len == 3 && (!strncmp(text + line_start, "---", 3) ||
                                               !strncmp(text + line_start, "...", 3))));
        if (!covered[b] && !markup && !strchr(" \t\r\n", text[b]))
            missed++;
    }
    CHECK(missed == 0, "%s: %zu bytes of content are in no chunk", what, missed);
    free(covered);
    free(line_at);
    if (out)
        *out = c;
    else
        hxi_chunks_free(c, n);
    return n;
}

static char *repeat(const char *unit, size_t times)
{
    size_t ul = strlen(unit);
    char *s = malloc(ul * times + 1);
    for (size_t i = 0; i < times; i++)
        memcpy(s + i * ul, unit, ul);
    s[ul * times] = 0;
    return s;
}

static void test_markdown(void)
{
    char *para = repeat("The scheduler assigns pods to nodes based on resource requests. ", 12);
    size_t cap = strlen(para) * 8 + 1024;
    char *doc = malloc(cap);
    snprintf(doc, cap,
             "# KEP-1: Scheduling\n\nIntro paragraph.\n\n## Summary\n\n%s\n\n%s\n\n### Details\n\n"
             "```go\n# not a heading\nfunc main() {}\n```\n\n## Motivation\n\nShort.\n",
             para, para);
    hxi_chunk *c;
    size_t n = check_chunks("markdown", "KEP-1: Scheduling", "markdown", doc, 0, &c);
    CHECK(n >= 4, "markdown gives several chunks, got %zu", n);
    int saw_summary = 0, saw_details = 0, overlap = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(c[i].heading, "KEP-1: Scheduling > Summary"))
            saw_summary++;
        if (!strcmp(c[i].heading, "KEP-1: Scheduling > Summary > Details")) {
            saw_details = 1;
            CHECK(strstr(c[i].text, "# not a heading") != NULL, "fenced code stays in its section");
            CHECK(!strncmp(c[i].text, "KEP-1: Scheduling > Summary > Details\n", 38),
                  "header is title + heading path without repeating the title: %.60s", c[i].text);
        }
        if (i && !strcmp(c[i].heading, c[i - 1].heading) && c[i].byte_start < c[i - 1].byte_end)
            overlap = 1;
    }
    CHECK(saw_summary >= 2, "the long Summary section is split (%d chunks)", saw_summary);
    CHECK(saw_details, "nested heading path recorded");
    CHECK(overlap, "consecutive chunks of one section overlap");
    hxi_chunks_free(c, n);
    free(doc);
    free(para);
}

static void test_other_types(void)
{
    const char *yaml = "title: Pod Security\nkep-number: 2579\nreviewers:\n  - alice\n  - bob\nstatus: implemented\n";
    hxi_chunk *c;
    size_t n = check_chunks("yaml", "Pod Security", "yaml", yaml, 0, &c);
    CHECK(n == 1 && strstr(c[0].text, "reviewers:\n  - alice"), "small YAML is one readable chunk");
    hxi_chunks_free(c, n);
    char *code = repeat("int add(int a, int b)\n{\n    return a + b;\n}\n\n", 40);
    n = check_chunks("code", "add.c", "code", code, 128, &c);
    CHECK(n > 1, "long code is split");
    for (size_t i = 0; i < n; i++)
        CHECK(!strncmp(code + c[i].byte_start, "int add", 7), "code chunks start at a blank-line boundary");
    hxi_chunks_free(c, n);
    free(code);
    check_chunks("text", "notes", "text", "One sentence. Two sentences!\n\nNew paragraph?", 0, NULL);
}

/* Where what the model embeds starts: after the header only when the body opens with the header's
 * words (white space runs alike, ending at a word's end); every case written by hand. */
static void test_embed_offset(void)
{
    static const struct {
        const char *title, *type, *text;
        int body_only;
    } cases[] = {
        {"experimental study of a wing .", "text", "experimental study of a wing .\n\nthe lift was measured .\n", 1},
        {"Two Square-Root Approximations", "text", "Two Square-Root\n  Approximations\n\nNewton's method.\n", 1},
        {"Tide tables", "markdown", "# Tide tables\n\nSpring tides follow the new moon.\n", 1},
        {"Foo", "text", "Foobar is a word.\n", 0},
        {"Sidecar Containers", "markdown", "# KEP-753: Sidecar Containers\n\nInit containers.\n", 0},
        {"Pod Security", "yaml", "title: Pod Security\nkep-number: 2579\n", 0},
        {"title: Pod Security", "yaml", "title: Pod Security\nkep-number: 2579\n", 1},
        {"wing study .", "text", "wing study\n\nthe lift was measured .\n", 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        hxi_chunk *c;
        size_t n = check_chunks(cases[k].title, cases[k].title, cases[k].type, cases[k].text, 0, &c);
        CHECK(n == 1 && c[0].embed_offset == (cases[k].body_only ? c[0].body_offset : 0),
              "'%s': embedded from %u (body at %u), want the %s", cases[k].title, n ? c[0].embed_offset : 0,
              n ? c[0].body_offset : 0, cases[k].body_only ? "body alone" : "header too");
        hxi_chunks_free(c, n);
    }
    /* a split document: its first chunk opens with the title, the others do not */
    char *para = repeat("The lift of the wing was measured at many angles of attack. ", 40);
    size_t cap = strlen(para) + 64;
    char *doc = malloc(cap);
    snprintf(doc, cap, "wing lift\n\n%s\n", para);
    hxi_chunk *c;
    size_t n = check_chunks("split", "wing lift", "text", doc, 128, &c);
    CHECK(n > 1, "a long text is split (%zu chunks)", n);
    for (size_t i = 0; i < n; i++)
        CHECK(c[i].embed_offset == (i ? 0 : c[i].body_offset), "split chunk %zu embedded from %u", i,
              c[i].embed_offset);
    hxi_chunks_free(c, n);
    free(doc);
    free(para);
}

/* Documents whose text used to land in no chunk at all: Markdown made only of headings, and
 * Markdown with nothing but front matter. check_chunks proves every byte is covered. */
static void test_no_text_lost(void)
{
    hxi_chunk *c;
    size_t n = check_chunks("headings only", "Alpha", "markdown", "# Alpha heading\n## Beta zebra\n### \n", 0, &c);
    CHECK(n >= 1 && strstr(c[n - 1].text, "zebra"), "headings are searchable text: %zu chunks", n);
    hxi_chunks_free(c, n);
    n = check_chunks("front matter only", "Quokka", "markdown", "---\ntitle: Quokka notes\ntags: wombat\n---\n", 0, &c);
    CHECK(n == 1 && strstr(c[0].text, "tags: wombat"), "front matter is searchable text: %zu chunks", n);
    hxi_chunks_free(c, n);
    n = check_chunks("front matter and body", "t", "markdown", "---\r\nsig: node\r\n...\r\n# H\r\n\r\nBody.\r\n", 0, NULL);
    CHECK(n >= 1, "front matter with CRLF and a body: %zu chunks", n);
    CHECK(check_chunks("yaml comments only", "t", "yaml", "# a note about narwhals\n", 0, NULL) == 1,
          "a YAML file of comments is one chunk");
}

static void test_hostile(void)
{
    CHECK(check_chunks("empty", "t", "markdown", "", 0, NULL) == 0, "empty document: no chunks");
    CHECK(check_chunks("blank", "t", "text", " \n\n \t\n", 0, NULL) == 0, "blank document: no chunks");
    char *punct = repeat("!", 5000);
    check_chunks("punctuation run", "t", "text", punct, 64, NULL);
    free(punct);
    char *word = repeat("abcdefghij", 30);   /* one 300-char word: [UNK] */
    check_chunks("long word", "t", "text", word, 0, NULL);
    free(word);
    char *cjk = repeat("\xE6\xBC\xA2\xE5\xAD\x97", 2000);   /* 4000 ideographs, no spaces */
    check_chunks("CJK run", "t", "text", cjk, 0, NULL);
    free(cjk);
    char *title = repeat("very long title ", 200);
    title[strlen(title) - 1] = 0;
    check_chunks("long title", title, "markdown", "# h\n\nbody text here.\n", 0, NULL);
    free(title);
    char *headings = repeat("# a\n## b\n### c\n#### d\n##### e\n###### f\ntext\n", 50);
    check_chunks("many headings", "t", "markdown", headings, 0, NULL);
    free(headings);
    hxi_chunk *c;
    size_t n;
    hx_error err;
    test_no_text_lost();
    hxi_chunk_opts bad = {8, 0};
    CHECK(hxi_chunk_document(tok, "t", "text", "x", 1, &bad, &c, &n, &err) == HX_EINVAL, "tiny budget refused");
}

/* Long runs without spaces or newlines: a 2 MB run of '!' used to take over 100 s (each cut
 * tokenized the whole rest of the run, and recursed once per part), CJK without spaces the same.
 * Each shape must now chunk in time linear in its length: alarm() turns a hang into a failure.
 * check_chunks proves every byte is covered and every chunk fits the budget. */
static void test_long_runs(void)
{
    static const struct {
        const char *what, *unit;
        size_t bytes;
        int max_tokens;
    } runs[] = {
        {"3 MB of punctuation", "!", 3u << 20, 0},
        {"punctuation, small budget", "!?", 1u << 20, 16},
        {"one word of letters", "abcdefghij", 1u << 20, 0},
        {"CJK without spaces", "\xE6\xBC\xA2\xE5\xAD\x97", 1u << 20, 0},
        {"one emoji repeated", "\xF0\x9F\x98\x80", 1u << 20, 0},
        {"one line with spaces", "lorem ipsum dolor! ", 1u << 20, 0},
        /* all-mpnet-base-v2's budget (hxi_chunk_opts_for: the model's max length), past MiniLM's 256 */
        {"one line with spaces, 384-token budget", "lorem ipsum dolor! ", 256u << 10, 384},
        /* words of more pieces than a 16-token budget, which are cut in half */
        {"words over the budget", "xqzjxqzjxqzjxqzjxqzjxqzjxqzjxqzjxqzjxqzjxqzjxqzjxqzjxqzj!", 64u << 10, 16},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        alarm(60);
        char *text = repeat(runs[i].unit, runs[i].bytes / strlen(runs[i].unit));
        CHECK(check_chunks(runs[i].what, "t", "text", text, runs[i].max_tokens, NULL) > 0, "%s: chunks", runs[i].what);
        free(text);
    }
    hxi_chunk *none = NULL;
    size_t n_none = 0;
    hx_error err = {0};
    hxi_chunk_opts too_long = {HX_MODEL_MAX_SEQ + 1, -1};
    CHECK(hxi_chunk_document(tok, "t", "text", "some text", 9, &too_long, &none, &n_none, &err) == HX_EINVAL && !none,
          "a budget past the longest model input is refused: %s", err.message);
    /* a 1 MB heading above 2000 sections was copied into every header and chunk below it */
    alarm(60);
    char *heading = repeat("long heading ", 80000), *sections = repeat("## part\n\nSome text.\n\n", 2000);
    size_t hl = strlen(heading), sl = strlen(sections);
    char *doc = malloc(2 + hl + 1 + sl + 1);
    memcpy(doc, "# ", 2);
    memcpy(doc + 2, heading, hl);
    doc[2 + hl] = '\n';
    memcpy(doc + 3 + hl, sections, sl + 1);
    hxi_chunk *c;
    size_t n = check_chunks("1 MB heading", "t", "markdown", doc, 0, &c);
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        longest = strlen(c[i].heading) > longest ? strlen(c[i].heading) : longest;
    CHECK(n > 2000 && longest < 1000, "%zu chunks, the longest heading path has %zu bytes", n, longest);
    hxi_chunks_free(c, n);
    free(doc);
    free(sections);
    free(heading);
    alarm(0);
}

/* An extractor-built document of four units (a preamble, then units with pairs, as a code file's
 * definitions): without units all of it fits one chunk; with them each unit is its own chunk,
 * even for a type whose row does not chunk by blocks ("text"), and a long unit splits by its
 * blocks' kind (VERBATIM at lines) without taking text of its neighbours. */
static void test_units(void)
{
    hxi_extract x;
    hx_error err = {0};
    CHECK(hxi_extract_init(&x, 4096, &err) == 0, "init");
    static const char gamma[] = "gamma line one\ngamma line two\ngamma line three\ngamma line four\n"
                                "gamma line five\ngamma line six\n";
    int rc = hxi_x_text(&x, "Preamble sentence one.", 22, &err);
    rc |= hxi_x_unit(&x, &err) | hxi_x_unit_meta(&x, "symbol", " alpha\n", 7, &err);
    rc |= hxi_x_unit_meta(&x, "empty", "  ", 2, &err);   /* empty after collapsing: skipped */
    rc |= hxi_x_block(&x, HX_BLOCK_VERBATIM, &err) | hxi_x_text(&x, "def alpha():\n    return 1\n", 26, &err);
    rc |= hxi_x_unit(&x, &err) | hxi_x_unit_meta(&x, "symbol", "beta", 4, &err);
    rc |= hxi_x_unit_meta(&x, "rel_serves", "alpha", 5, &err) | hxi_x_unit_meta(&x, "rel_serves", "gamma", 5, &err);
    rc |= hxi_x_text(&x, "Beta does this. Beta does that.", 31, &err);
    rc |= hxi_x_unit(&x, &err) | hxi_x_unit(&x, &err);   /* an empty unit: no chunk */
    rc |= hxi_x_unit_meta(&x, "symbol", "gamma", 5, &err);
    rc |= hxi_x_block(&x, HX_BLOCK_VERBATIM, &err) | hxi_x_text(&x, gamma, sizeof gamma - 1, &err);
    rc |= hxi_x_finish(&x, &err);
    CHECK(rc == 0, "build: %s", err.message);
    CHECK(x.n_units == 5 && x.units[1].n_meta == 1 && !strcmp(x.units[1].meta[0].value, "alpha") &&
              x.units[2].n_meta == 3 && !strcmp(x.units[2].meta[2].key, "rel_serves") && x.units[3].n_meta == 0,
          "unit pairs: %zu units", x.n_units);
    CHECK(x.n_blocks == 4 && x.blocks[0].unit == 0 && x.blocks[1].unit == 1 && x.blocks[2].unit == 2 &&
              x.blocks[3].unit == 4, "blocks' units");
    hxi_chunk *c;
    size_t n;
    hxi_chunk_opts o = {0, -1};
    CHECK(hxi_chunk_document(tok, "t", "text", x.text, x.len, &o, &c, &n, &err) == 0 && n == 1,
          "the same text without units is one chunk: %zu", n);
    hxi_chunks_free(c, n);

    hxi_doc_source d = {.title = "t", .type = "text", .dt = hxi_doctype_find("text", 4)};
    hxi_doc_take_extract(&d, &x);
    hxi_extract_clear(&x);
    CHECK(d.n_units == 5 && d.n_blocks == 4, "units and blocks move into the document");
    static const struct { const char *body; uint32_t unit; } want[] = {
        {"Preamble sentence one.", 0},
        {"def alpha():\n    return 1", 1},
        {"Beta does this. Beta does that.", 2},
        {"gamma line one\ngamma line two\ngamma line three\ngamma line four\ngamma line five\ngamma line six", 4},
    };
    CHECK(hxi_chunk_source(tok, &d, &o, &c, &n, &err) == 0, "%s", err.message);
    CHECK(n == 4, "one chunk per unit with text: %zu", n);
    for (size_t i = 0; i < n && i < 4; i++)
        CHECK(!strcmp(c[i].text + c[i].body_offset, want[i].body) && c[i].unit == want[i].unit,
              "chunk %zu: unit %u '%s'", i, c[i].unit, c[i].text + c[i].body_offset);
    hxi_chunks_free(c, n);

    o.max_tokens = 16;   /* "t\n" + two gamma lines fill the budget: gamma splits at lines */
    CHECK(hxi_chunk_source(tok, &d, &o, &c, &n, &err) == 0, "%s", err.message);
    size_t n_gamma = 0;
    for (size_t i = 0; i < n; i++) {
        const char *body = c[i].text + c[i].body_offset;
        CHECK(c[i].unit != 4 || (!strncmp(body, "gamma line", 10) && !strstr(body, "Beta")),
              "a gamma chunk holds gamma's lines only: '%s'", body);
        CHECK(c[i].unit == 4 || !strstr(body, "gamma"), "gamma's text in unit %u", c[i].unit);
        CHECK(c[i].unit != 2 || !strstr(body, "def alpha"), "beta's chunk holds alpha's text");
        n_gamma += c[i].unit == 4;
    }
    CHECK(n_gamma >= 2, "the long unit splits by its lines: %zu chunks", n_gamma);
    hxi_chunks_free(c, n);
    d.title = NULL;
    hxi_doc_source_clear(&d);
}

/* A unit named by an identifier (a code definition) has the identifier's words in its header,
 * split at '_', case changes and digits followed by letters; a heading with spaces, a unit under
 * the file's name alone and text outside units keep the plain header. Expected headers by hand. */
static void test_identifier_words(void)
{
    hxi_extract x;
    hx_error err = {0};
    CHECK(hxi_extract_init(&x, 4096, &err) == 0, "init");
    static const char *const names[] = {"rgb_to_hsv", "HTTPServer", "b32encode", "parseURLQuery", "plain",
                                        "Order Service", "operator>"};
    static const char *const want[] = {
        "m.py", "m.py", "m.py > rgb_to_hsv (rgb to hsv)", "m.py > HTTPServer (HTTP Server)",
        "m.py > b32encode (b32 encode)", "m.py > parseURLQuery (parse URL Query)", "m.py > plain",
        "m.py > Order Service", "m.py > operator>",
    };
    int rc = hxi_x_section(&x, 1, "m.py", 4, &err) | hxi_x_text(&x, "import os\n", 10, &err);
    rc |= hxi_x_unit(&x, &err) | hxi_x_text(&x, "X = 1\n", 6, &err);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        rc |= hxi_x_unit(&x, &err) | hxi_x_section(&x, 2, names[i], strlen(names[i]), &err);
        rc |= hxi_x_block(&x, HX_BLOCK_VERBATIM, &err) | hxi_x_text(&x, "body\n", 5, &err);
    }
    rc |= hxi_x_finish(&x, &err);
    CHECK(rc == 0, "build: %s", err.message);
    hxi_doc_source d = {.title = "m.py", .type = "code", .dt = hxi_doctype_find("py", 2)};
    hxi_doc_take_extract(&d, &x);
    hxi_extract_clear(&x);
    hxi_chunk *c;
    size_t n;
    hxi_chunk_opts o = {0, -1};
    CHECK(hxi_chunk_source(tok, &d, &o, &c, &n, &err) == 0, "%s", err.message);
    CHECK(n == sizeof want / sizeof *want, "one chunk per unit: %zu", n);
    for (size_t i = 0; i < n && i < sizeof want / sizeof *want; i++)
        CHECK(c[i].body_offset == strlen(want[i]) + 1 && !strncmp(c[i].text, want[i], strlen(want[i])),
              "chunk %zu header '%.*s', want '%s'", i, (int)c[i].body_offset - 1, c[i].text, want[i]);
    hxi_chunks_free(c, n);
    d.title = NULL;
    hxi_doc_source_clear(&d);
}

int main(void)
{
    hx_model *m = NULL;
    hx_error err = {0};
    if (hx_model_open(&m, WEIGHTS, &err)) {
        CHECK(0, "cannot open %s: %s", WEIGHTS, err.message);
        return check_report("test_chunker");
    }
    tok = hxi_model_tokenizer(m);
    test_markdown();
    test_other_types();
    test_embed_offset();
    test_hostile();
    test_long_runs();
    test_units();
    test_identifier_words();
    hx_model_close(m);
    return check_report("test_chunker");
}
