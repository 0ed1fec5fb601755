/* test_relevance.c: keyword relevance as users meet it through $HYRAX_BIN (./hyrax) on the small
 * KEP-like corpus in tests/data/relevance: a chunk's header (title and heading path) is a field of
 * its own, so a phrase matches only where a chunk's body holds it and a title neither adds to a
 * chunk's length nor makes a phrase match; snippets bold stemmed matches and never stop words; an
 * index whose keyword segments have the format before the header field (tests/data/bm25v1.hyx, made
 * by hyrax at commit 85c3c42 from tests/data/relevance) is refused to readers with a message to
 * reindex, and its first write rebuilds it. Spec: the Fields section of src/retrieve/bm25.h. */
#include "check.h"
#include "json.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];

/* `hyrax search --json` over db; the parsed document (caller frees) or NULL. */
static hxi_json_doc *search(const char *db, const char *mode, const char *query)
{
    char cmd[2 * PATH_MAX], *out;
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --mode %s -k 50 --group chunk --min-score 0 --json -- '%s'", db, mode, query);
    int rc = check_run(cmd, &out);
    hxi_json_doc *d = NULL;
    CHECK(rc == 0 && hxi_json_parse(&d, out, strlen(out), NULL, NULL) == 0, "search %s: %.200s", query, out);
    free(out);
    return d;
}

static const hxi_json_val *results(const hxi_json_doc *d)
{
    return d ? hxi_json_obj_get(hxi_json_doc_root(d), "results") : NULL;
}

static const char *field(const hxi_json_val *r, const char *key)
{
    const char *s = hxi_json_str(hxi_json_obj_get(r, key), NULL);
    return s ? s : "";
}

/* Does text hold the words of phrase in a row, ignoring case and runs of whitespace? */
static int holds_phrase(const char *text, const char *phrase)
{
    for (const char *t = text; *t; t++) {
        const char *a = t, *b = phrase;
        while (*a && *b) {
            if (isspace((unsigned char)*b) && isspace((unsigned char)*a)) {
                while (isspace((unsigned char)*a))
                    a++;
                while (isspace((unsigned char)*b))
                    b++;
            } else if (tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
                a++;
                b++;
            } else {
                break;
            }
        }
        if (!*b)
            return 1;
    }
    return 0;
}

/* Does s contain needle, ignoring ASCII case? */
static int has_ci(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++)
        if (strncasecmp(s, needle, n) == 0)
            return 1;
    return 0;
}

/* A phrase matches the body: of the KEP's four sections, only the one whose text says "graceful
 * node shutdown" and the title chunk (whose body is the heading line) match, although every chunk's
 * header starts with the title. */
static void test_phrase_in_body(const char *db)
{
    hxi_json_doc *d = search(db, "keyword", "\"graceful node shutdown\"");
    const hxi_json_val *rs = results(d);
    size_t n = hxi_json_len(rs), outside = 0, proposal = 0;
    for (size_t i = 0; i < n; i++) {
        const hxi_json_val *r = hxi_json_arr_get(rs, i);
        const char *text = field(r, "text");
        outside += !holds_phrase(text, "graceful node shutdown");
        proposal += strstr(text, "inhibitor lock") != NULL;
        if (!holds_phrase(text, "graceful node shutdown"))
            fprintf(stderr, "  phrase result without the phrase: %.80s\n", text);
    }
    CHECK(n == 2 && outside == 0 && proposal == 1,
          "\"graceful node shutdown\": %zu results, %zu without the phrase in their text", n, outside);
    hxi_json_doc_free(d);
    /* the words, not quoted, still find every chunk of the KEP through its header */
    d = search(db, "keyword", "graceful node shutdown");
    size_t kep = 0;
    rs = results(d);
    for (size_t i = 0; i < hxi_json_len(rs); i++)
        kep += strcmp(field(hxi_json_arr_get(rs, i), "path"), "graceful-node-shutdown.md") == 0;
    CHECK(kep == 5, "the unquoted words match all 5 chunks of the KEP through the header: %zu", kep);
    hxi_json_doc_free(d);
}

/* Snippets: "scheduling" bolds "scheduled"; stop words of a natural-language query are never bold,
 * although "do" and "from" score (Lucene's stop set lacks them). */
static void test_snippets(const char *db)
{
    hxi_json_doc *d = search(db, "keyword", "scheduling");
    const hxi_json_val *rs = results(d);
    size_t stemmed = 0;
    for (size_t i = 0; i < hxi_json_len(rs); i++)
        stemmed += has_ci(field(hxi_json_arr_get(rs, i), "snippet"), "**scheduled**");
    CHECK(stemmed >= 2, "\"scheduling\" bolds \"scheduled\" in %zu snippets", stemmed);
    hxi_json_doc_free(d);
    static const char *const stops[] = {"**the**", "**do**", "**from**", "**how**", "**they**", "**on**"};
    const char *modes[] = {"keyword", "hybrid"};
    for (int m = 0; m < 2; m++) {
        d = search(db, modes[m], "how do the pods get scheduled from the queue when they run on nodes");
        rs = results(d);
        size_t bold_stop = 0, bold = 0;
        for (size_t i = 0; i < hxi_json_len(rs); i++) {
            const char *sn = field(hxi_json_arr_get(rs, i), "snippet");
            bold += strstr(sn, "**") != NULL;
            for (size_t k = 0; k < sizeof stops / sizeof stops[0]; k++)
                if (has_ci(sn, stops[k])) {
                    bold_stop++;
                    fprintf(stderr, "  %s: stop word %s in: %.120s\n", modes[m], stops[k], sn);
                }
        }
        CHECK(bold > 0 && bold_stop == 0, "%s: %zu snippets with a bold stop word (%zu with bold)", modes[m],
              bold_stop, bold);
        hxi_json_doc_free(d);
    }
}

/* The title is a field, not body text: two chunks with bodies of the same length ("Notes" and a
 * sentence; not equal, or search drops one as a duplicate) and titles of different lengths score
 * the same for a word of the body (the title, in each chunk's header, does not lengthen it). */
static void test_title_not_in_length(void)
{
    char dir[PATH_MAX + 16], db[PATH_MAX + 32], cmd[3 * PATH_MAX], *out;
    snprintf(dir, sizeof dir, "%s/titles", root);
    snprintf(db, sizeof db, "%s/titles.hyx", root);
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    check_put(dir, "short.md", "# Zebras\n\n## Notes\n\nZebra stripes confuse flies near the water hole.\n");
    check_put(dir, "long.md", "# A long title with many words about savanna animals of every kind\n\n## Notes\n\n"
                              "Zebra stripes confuse flies near the mud hole.\n");
    check_put(dir, "other.md", "# Elsewhere\n\n## Notes\n\nLions sleep most of the day near the river.\n");
    snprintf(cmd, sizeof cmd, "cd '%s' && \"$HYRAX_BIN\" index --db '%s' . 2>&1", dir, db);
    CHECK(check_run(cmd, &out) == 0, "index the titles corpus: %s", out);
    free(out);
    hxi_json_doc *d = search(db, "keyword", "stripes");
    const hxi_json_val *rs = results(d);
    double s[2] = {0, 0};
    size_t n = 0;
    for (size_t i = 0; i < hxi_json_len(rs); i++) {
        const hxi_json_val *r = hxi_json_arr_get(rs, i);
        if (!strstr(field(r, "text"), "Zebra stripes"))   /* not the title chunks */
            continue;
        if (n < 2)
            hxi_json_num_double(hxi_json_obj_get(r, "score"), &s[n], NULL);
        n++;
    }
    CHECK(n == 2 && s[0] > 0 && s[0] == s[1], "equal bodies score alike whatever their titles: %zu hits, %.17g vs %.17g",
          n, s[0], s[1]);
    hxi_json_doc_free(d);
}

/* An index from before the header field: readers are told to reindex, a write rebuilds it. */
static void test_old_format(void)
{
    char copy[PATH_MAX + 32], cmd[3 * PATH_MAX], *out;
    snprintf(copy, sizeof copy, "%s/v1.hyx", root);
    CHECK(check_copy_file("tests/data/bm25v1.hyx", copy) == 0, "copy the format 1 fixture");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --mode keyword pods 2>&1", copy);
    CHECK(check_run(cmd, &out) != 0 && strstr(out, "reindex") && strstr(out, "format 1"),
          "a reader of a format 1 keyword index is told to reindex: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" rm --db '%s' node-lifecycle.md 2>&1", copy);
    CHECK(check_run(cmd, &out) == 0, "a write to the format 1 index: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" verify --db '%s' 2>&1", copy);
    CHECK(check_run(cmd, &out) == 0, "the rebuilt index verifies: %s", out);
    free(out);
    test_phrase_in_body(copy);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_relevance_XXXXXX", db[PATH_MAX + 16], cmd[3 * PATH_MAX], *out;
    char bin[PATH_MAX];
    setenv("HYRAX_BIN", "./hyrax", 0);
    CHECK(realpath(getenv("HYRAX_BIN"), bin) != NULL, "HYRAX_BIN resolves");
    setenv("HYRAX_BIN", bin, 1);   /* the indexes are made from inside their roots */
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s/r.hyx", root);
    snprintf(cmd, sizeof cmd, "cd tests/data/relevance && \"$HYRAX_BIN\" index --db '%s' . 2>&1", db);
    CHECK(check_run(cmd, &out) == 0, "index tests/data/relevance: %s", out);
    free(out);
    test_phrase_in_body(db);
    test_snippets(db);
    test_title_not_in_length();
    test_old_format();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_report("test_relevance");
}
