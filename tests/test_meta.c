/* test_meta.c: typed metadata, filters and folder inheritance (filter.h, yaml.h, folder_meta.c).
 * Units: the YAML subset on a KEP's kep.yaml, on 8 real kep.yaml files against PyYAML's pairs
 * (tools/gen_golden_yaml.py) and on hostile text, ISO-8601 dates against Python's
 * datetime, numbers, filter parsing (JSON and command line, and the errors a person gets), and
 * matching on documents built by hand. End to end through $HYRAX_BIN on tests/data/keps (three
 * KEP folders, each a kep.yaml and a README.md without its own metadata): seed 002's
 * {"sig_name": "sig-auth"} and --filter owning-sig=sig-auth find the README chunks; any-of lists,
 * number and date ranges, date_range on a key and on indexed_at; filters applied inside the
 * search (k = 1 still gives one result when the best chunk is filtered out); a changed kep.yaml
 * changes its folder's documents and a removed one takes its metadata away; --folder-meta sets
 * which files a folder passes on, kept by the index; a stored document named kep.yaml passes
 * nothing on; add_document's typed metadata; bad filters refused with a message; a version 2 document table still read. Expected
 * sets are stated from the fixture by hand. */
#include "check.h"
#include "filter.h"
#include "serve_client.h"
#include "yaml.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[PATH_MAX], db[PATH_MAX + 32];

/* === YAML === */

typedef struct {
    char text[4096];   /* "key=value|key=value|..." */
} pairs;

static int add_pair(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted)
{
    pairs *p = ctx;
    size_t used = strlen(p->text);
    snprintf(p->text + used, sizeof p->text - used, "%.*s=%.*s%s|", (int)klen, key, (int)vlen, val,
             quoted ? "'" : "");
    return 0;
}

static const char *yaml(const char *text)
{
    static pairs p;
    p.text[0] = 0;
    CHECK(hxi_yaml_pairs(text, strlen(text), add_pair, &p) == 0, "yaml parses");
    return p.text;
}

static void test_yaml(void)
{
    size_t len;
    char *kep = check_read_file("tests/data/keps/sig-auth/1205-bound-service-account-tokens/kep.yaml", &len);
    CHECK(kep != NULL, "fixture kep.yaml");
    const char *got = yaml(kep ? kep : "");
    const char *want = "title=Bound Service Account Tokens|kep-number=1205|authors=@mikedanese'|owning-sig=sig-auth|"
                       "participating-sigs=sig-api-machinery|participating-sigs=sig-node|status=implemented|"
                       "creation-date=2018-10-10|last-updated=2021-03-22|latest-milestone=v1.22'|stage=stable|"
                       "milestone.beta=v1.21'|milestone.stable=v1.22'|";
    CHECK(!strcmp(got, want), "kep.yaml: block lists, quotes, nested keys:\n got  %s\n want %s", got, want);
    free(kep);

    got = yaml("authors: [\"@a\", b , 'c''d']\nempty: []\nsigs: [x, [nested], y]\nstatus: done # comment\n");
    CHECK(!strcmp(got, "authors=@a'|authors=b|authors=c'd'|sigs=x|status=done|"), "flow lists, comments: %s", got);
    got = yaml("gates:\n  - name: A\n    components:\n      - api\n  - name: B\nnext: 1\n");
    CHECK(!strcmp(got, "gates.name=A|gates.components=api|gates.name=B|next=1|"), "list of mappings: %s", got);
    got = yaml("a: &anchor 1\nb: *anchor\nc: |\n  d: hidden\n  e: hidden\nf: >-\n  folded\ng: ~\nh: null\ni: \"x\\\"y\\\\z\"\n");
    CHECK(!strcmp(got, "a=1|i=x\"y\\z'|"), "anchors kept, aliases and block scalars skipped, nulls dropped: %s", got);
    got = yaml("---\na: 1\n---\nb: 2\n");
    CHECK(!strcmp(got, "a=1|"), "only the first document: %s", got);
    got = yaml("a:\n\tb: 1\nc: \"unclosed\nd: 'ok'\n- stray\n:\n[x]: 1\n");
    CHECK(!strcmp(got, "d=ok'|"), "tabs, unclosed quotes, stray items and odd keys passed over: %s", got);
    char deep[2048] = "";
    for (int i = 0; i < 12; i++) {
        size_t used = strlen(deep);
        snprintf(deep + used, sizeof deep - used, "%*sk%d:\n", 2 * i, "", i);
    }
    strcat(deep, "                        v: deep\nok: 1\n");
    got = yaml(deep);
    CHECK(!strcmp(got, "ok=1|"), "keys nested deeper than %d are skipped: %s", HX_YAML_MAX_DEPTH, got);
}

typedef struct {
    char *buf;
    size_t len, cap;
} text_sink;

static int add_line(void *ctx, const char *key, size_t klen, const char *val, size_t vlen, bool quoted)
{
    text_sink *t = ctx;
    (void)quoted;
    size_t need = t->len + klen + vlen + 3;
    if (need > t->cap) {
        t->cap = need * 2;
        t->buf = realloc(t->buf, t->cap);
    }
    t->len += (size_t)snprintf(t->buf + t->len, t->cap - t->len, "%.*s\t%.*s\n", (int)klen, key, (int)vlen, val);
    return 0;
}

/* Real kep.yaml files (tests/data/kep_yaml/) against PyYAML's pairs (tools/gen_golden_yaml.py). */
static void test_yaml_golden(void)
{
    size_t glen;
    char *golden = check_read_file("tests/golden/kep_yaml.txt", &glen);
    CHECK(golden != NULL, "tests/golden/kep_yaml.txt");
    if (!golden)
        return;
    size_t files = 0;
    for (char *line = golden; *line;) {
        char *tab = strchr(line, '\t');
        if (!tab)
            break;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(tab - line), line);
        /* the golden block of this file: its lines, "KEY\tVALUE\n" each */
        text_sink want = {0}, got = {0};
        size_t nlen = strlen(name);
        while (*line && !strncmp(line, name, nlen) && line[nlen] == '\t') {
            char *end = strchr(line, '\n');
            size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
            want.buf = realloc(want.buf, want.len + n + 1);
            memcpy(want.buf + want.len, line + nlen + 1, n - nlen - 1);
            want.len += n - nlen - 1;
            want.buf[want.len] = 0;
            line += n;
        }
        char path[512];
        size_t len;
        snprintf(path, sizeof path, "tests/data/kep_yaml/%s", name);
        char *text = check_read_file(path, &len);
        CHECK(text && hxi_yaml_pairs(text, len, add_line, &got) == 0, "%s parses", name);
        CHECK(got.buf && want.buf && !strcmp(got.buf, want.buf), "%s: the pairs PyYAML gives:\n got:\n%s\n want:\n%s", name,
              got.buf ? got.buf : "", want.buf ? want.buf : "");
        free(text);
        free(got.buf);
        free(want.buf);
        files++;
    }
    CHECK(files == 8, "8 real kep.yaml files compared: %zu", files);
    free(golden);
}

/* === Dates and numbers === */

static void test_types(void)
{
    /* instants checked with Python: datetime(...).timestamp() */
    static const struct {
        const char *text;
        int64_t seconds;
        bool day;
    } ok[] = {
        {"1970-01-01", 0, true},
        {"2021-01-01", 1609459200, true},
        {"2021-01-01T00:00:00Z", 1609459200, false},
        {"2000-02-29T12:00:00+02:00", 951818400, false},
        {"1969-12-31T23:59:59Z", -1, false},
        {"2021-01-01 00:00", 1609459200, false},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t ns = 0;
        bool day = !ok[i].day;
        CHECK(hxi_meta_date(ok[i].text, &ns, &day) && ns == ok[i].seconds * 1000000000LL && day == ok[i].day,
              "date %s = %lld s (got %lld ns, day %d)", ok[i].text, (long long)ok[i].seconds, (long long)ns, day);
    }
    int64_t ns;
    bool day;
    CHECK(hxi_meta_date("2024-06-30T23:59:59.5-05:30", &ns, &day) && ns == 1719811799500000000LL,
          "fraction and negative offset (Python: 1719811799.5)");
    CHECK(hxi_meta_date("9999-12-31", &ns, &day) && ns == INT64_MAX && hxi_meta_date("0001-01-01T00:00Z", &ns, &day) &&
              ns == INT64_MIN,
          "dates beyond int64 nanoseconds saturate (UBSan found the overflow)");
    int64_t secs;
    int32_t frac;
    CHECK(hxi_meta_time("9999-12-31T23:59:59.999999999Z", &secs, &frac, &day) && secs == 253402300799LL &&
              frac == 999999999 && hxi_meta_time("0001-01-01", &secs, &frac, &day) && secs == -62135596800LL &&
              frac == 0 && day,
          "hxi_meta_time is exact in any year (Python: 253402300799, -62135596800)");
    static const char *const bad[] = {"2021-02-29", "2021-13-01", "2021-1-1", "2021-01-01T25:00", "2021-01-01x",
                                      "2021-01-01T10:00+5", "v1.22", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(!hxi_meta_date(bad[i], &ns, &day), "'%s' is not a date", bad[i]);
    double x;
    CHECK(hxi_meta_number("0034", &x) && x == 34, "0034 is 34");
    CHECK(hxi_meta_number("-1.5e3", &x) && x == -1500, "-1.5e3");
    CHECK(!hxi_meta_number("0x10", &x) && !hxi_meta_number("inf", &x) && !hxi_meta_number("1.2.3", &x) &&
              !hxi_meta_number("v1", &x) && !hxi_meta_number("", &x),
          "hex, inf, 1.2.3, v1 and empty are not numbers");
}

/* === Filters on hand-made documents === */

static const hx_kv kep_meta[] = {
    {"owning-sig", "sig-auth"}, {"participating-sigs", "sig-node"}, {"participating-sigs", "sig-apps"},
    {"kep-number", "1205"},     {"creation-date", "2018-10-10"},   {"latest-milestone", "v1.22"},
};

static hx_doc_info kep_doc(void)
{
    hx_doc_info d = {.path = "keps/sig-auth/1205-tokens/README.md", .type = "markdown", .title = "t",
                     .meta = kep_meta, .n_meta = sizeof kep_meta / sizeof kep_meta[0],
                     .indexed_ns = 1609459200LL * 1000000000LL + 3600LL * 1000000000LL,   /* 2021-01-01 01:00Z */
                     .mtime_ns = 0};
    return d;
}

/* Whether the document passes the JSON filters (which must parse). */
static bool json_matches(const char *json)
{
    hxi_json_doc *doc = NULL;
    hx_filter_set fs = {0};
    hx_error err = {0};
    bool ok = hxi_json_parse(&doc, json, strlen(json), NULL, NULL) == 0 &&
              hxi_filter_parse_json(&fs, hxi_json_doc_root(doc), &err) == 0;
    CHECK(ok, "filters parse: %s (%s)", json, err.message);
    hx_doc_info d = kep_doc();
    bool m = ok && hx_doc_matches(&d, fs.v, fs.n);
    hx_filter_set_free(&fs);
    hxi_json_doc_free(doc);
    return m;
}

static bool arg_matches(const char *arg)
{
    hx_filter_set fs = {0};
    hx_error err = {0};
    bool ok = hx_filter_parse_arg(&fs, arg, &err) == 0;
    CHECK(ok, "--filter %s parses (%s)", arg, err.message);
    hx_doc_info d = kep_doc();
    bool m = ok && hx_doc_matches(&d, fs.v, fs.n);
    hx_filter_set_free(&fs);
    return m;
}

/* The years Y of five documents with `published: Y-01-16` (Y = 1200, 1605, 1700, 2300, 3000: all but
 * 1700 beyond int64 nanoseconds) that pass --filter arg, as "1200,1605,...". */
static const char *years_matching(const char *arg)
{
    static const char *const years[] = {"1200", "1605", "1700", "2300", "3000"};
    static char got[64];
    hx_filter_set fs = {0};
    hx_error err = {0};
    CHECK(hx_filter_parse_arg(&fs, arg, &err) == 0, "--filter %s parses (%s)", arg, err.message);
    got[0] = 0;
    for (size_t i = 0; i < sizeof years / sizeof years[0]; i++) {
        char key[] = "published", date[16];
        snprintf(date, sizeof date, "%s-01-16", years[i]);
        hx_kv kv = {key, date};
        hx_doc_info d = {.path = "p.md", .type = "markdown", .title = "t", .meta = &kv, .n_meta = 1};
        if (hx_doc_matches(&d, fs.v, fs.n))
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", got[0] ? "," : "", years[i]);
    }
    hx_filter_set_free(&fs);
    return got;
}

/* The message of a JSON filter that must be refused ("" when it was accepted). */
static const char *json_refused(const char *json)
{
    static char msg[256];
    hxi_json_doc *doc = NULL;
    hx_filter_set fs = {0};
    hx_error err = {0};
    msg[0] = 0;
    if (hxi_json_parse(&doc, json, strlen(json), NULL, NULL) == 0 &&
        hxi_filter_parse_json(&fs, hxi_json_doc_root(doc), &err) == HX_EINVAL)
        snprintf(msg, sizeof msg, "%s", err.message);
    hx_filter_set_free(&fs);
    hxi_json_doc_free(doc);
    return msg;
}

static void test_matching(void)
{
    CHECK(json_matches("{\"owning-sig\":\"sig-auth\"}") && !json_matches("{\"owning-sig\":\"sig-node\"}"), "equality");
    CHECK(json_matches("{\"sig_name\":\"sig-auth\"}") && json_matches("{\"OWNING_SIG\":\"sig-auth\"}"),
          "sig_name is owning-sig; _ and - alike, case ignored");
    {   /* an alias never hides the key as written: seed 002's documents carry sig_name itself */
        static const hx_kv own[] = {{"sig_name", "sig-api-machinery"}};
        hx_doc_info d = {.path = "keps/crd.md", .type = "markdown", .title = "t", .meta = own, .n_meta = 1};
        hx_filter_set fs = {0};
        hx_error err = {0};
        CHECK(hx_filter_parse_arg(&fs, "sig_name=sig-api-machinery", &err) == 0 && hx_doc_matches(&d, fs.v, fs.n),
              "a document's own sig_name matches the sig_name filter");
        hx_filter_set_free(&fs);
    }
    CHECK(json_matches("{\"kep_number\":\"1205\"}") && json_matches("{\"kep_id\":1205}") &&
              json_matches("{\"kep-number\":\"01205\"}"),
          "kep_number and kep_id name kep-number; numbers compare as numbers");
    CHECK(json_matches("{\"participating-sigs\":\"sig-apps\"}"), "a document list matches when any item does");
    CHECK(json_matches("{\"participating-sigs\":[\"sig-cli\",\"sig-node\"]}") &&
              !json_matches("{\"participating-sigs\":[\"sig-cli\",\"sig-auth\"]}"),
          "any of a list against a document list");
    CHECK(json_matches("{\"kep-number\":{\"gte\":1205,\"lt\":1206}}") && !json_matches("{\"kep-number\":{\"gt\":1205}}") &&
              json_matches("{\"kep-number\":{\"from\":\"1000\"}}"),
          "number ranges");
    CHECK(json_matches("{\"creation-date\":{\"from\":\"2018-10-10\",\"to\":\"2018-10-10\"}}") &&
              !json_matches("{\"creation-date\":{\"lt\":\"2018-10-10\"}}") &&
              !json_matches("{\"creation-date\":{\"gt\":\"2018-10-10\"}}") &&
              json_matches("{\"creation-date\":{\"gt\":\"2018-10-09T23:59:59Z\"}}"),
          "date ranges: a date-only bound is its whole day");
    CHECK(json_matches("{\"creation-date\":{\"from\":\"0001-01-01\",\"to\":\"9999-12-31\"}}"),
          "an open-ended range written with far dates");
    CHECK(!json_matches("{\"latest-milestone\":{\"gte\":1}}") && !json_matches("{\"creation-date\":{\"gte\":1}}"),
          "a range takes values of its own kind only");
    CHECK(json_matches("{\"date_range\":{\"from\":\"2021-01-01\",\"to\":\"2021-01-01\"}}") &&
              !json_matches("{\"date_range\":{\"to\":\"2020-12-31\"}}") &&
              json_matches("{\"date_range\":{\"key\":\"creation-date\",\"from\":\"2018-01-01\",\"to\":null}}"),
          "date_range: indexed_at by default, any date key with key");
    CHECK(json_matches("{\"indexed_at\":\"2021-01-01\"}") && !json_matches("{\"mtime\":\"2021-01-01\"}") &&
              json_matches("{\"mtime\":\"1970-01-01\"}"),
          "equality on indexed_at / mtime is the day");
    CHECK(json_matches("{\"path\":\"keps/**/README.md\",\"type\":\"markdown\",\"ext\":\"md\"}") &&
              json_matches("{\"dir\":\"keps/sig-auth/1205-tokens\"}") && json_matches("{\"folder\":\"sig-auth\"}") &&
              json_matches("{\"folder\":[\"x\",\"1205-tokens\"]}") && !json_matches("{\"folder\":\"README.md\"}"),
          "derived keys path, type, ext, dir, folder");
    CHECK(json_matches("{\"doc_filter_like\":[\"a\"],\"owning-sig\":\"sig-auth\"}") == false, "filters are ANDed");

    CHECK(arg_matches("owning-sig=sig-auth") && arg_matches("sig_name=sig-node,sig-auth") &&
              !arg_matches("owning-sig=sig-node"),
          "--filter equality and any-of");
    CHECK(arg_matches("kep-number>=1205") && !arg_matches("kep-number>1205") && arg_matches("kep-number<1300") &&
              arg_matches("kep-number=1000..2000") && arg_matches("kep-number=..1205") && !arg_matches("kep-number=1206.."),
          "--filter number ranges");
    CHECK(arg_matches("creation-date>=2018-10-10") && arg_matches("creation-date<=2018-10-10") &&
              !arg_matches("creation-date<2018-10-10") && arg_matches("creation-date=2018-01-01..2018-12-31"),
          "--filter date ranges");
    static const struct {
        const char *arg, *want;
    } far[] = {   /* worked out by hand from the five dates */
        {"published>=1650-01-01", "1700,2300,3000"},
        {"published<=1600-01-01", "1200"},
        {"published>2262-04-12", "2300,3000"},   /* gt a date-only bound: from 2262-04-13 */
        {"published<1700-01-16", "1200,1605"},   /* lt: before that day's midnight */
        {"published=1605-01-16..2300-01-16", "1605,1700,2300"},
        {"published>=1605-01-16T00:00:00.000000001Z", "1700,2300,3000"},
        {"published<=3000-01-15T23:59:59.999999999Z", "1200,1605,1700,2300"},
        {"published>1200-01-15T23:00-05:00", "1605,1700,2300,3000"},   /* 1200-01-16T04:00Z */
    };
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++)
        CHECK(!strcmp(years_matching(far[i].arg), far[i].want), "--filter %s: years %s, want %s", far[i].arg,
              years_matching(far[i].arg), far[i].want);
    CHECK(!arg_matches("latest-milestone=v1..22") && arg_matches("latest-milestone=v1.22"),
          "--filter: a value with .. that is not a range is a value");
    hx_filter_set fs = {0};
    hx_error err = {0};
    CHECK(hx_filter_parse_arg(&fs, "title=a\\,b,c", &err) == 0 && fs.n == 1 && fs.v[0].n_any == 2 &&
              !strcmp(fs.v[0].any[0], "a,b") && !strcmp(fs.v[0].any[1], "c"),
          "--filter: \\, is a literal comma");
    hx_filter_set_free(&fs);

    static const char *const bad_args[] = {"owning-sig", "=x", "kep-number>=abc", "path>=a", "indexed_at=yesterday"};
    for (size_t i = 0; i < sizeof bad_args / sizeof bad_args[0]; i++) {
        hx_filter_set b = {0};
        CHECK(hx_filter_parse_arg(&b, bad_args[i], &err) == HX_EINVAL, "--filter %s refused", bad_args[i]);
        hx_filter_set_free(&b);
    }
    CHECK(strstr(json_refused("{\"status\":null}"), "'status' must be a string"), "null refused: %s",
          json_refused("{\"status\":null}"));
    CHECK(strstr(json_refused("{\"tags\":[]}"), "1 to 256 values"), "empty list refused");
    CHECK(strstr(json_refused("{\"tags\":[[\"a\"]]}"), "list items must be"), "nested list refused");
    CHECK(strstr(json_refused("{\"n\":{\"between\":1}}"), "unknown member 'between'"), "unknown range member refused");
    CHECK(strstr(json_refused("{\"n\":{\"from\":\"abc\"}}"), "neither a number nor an ISO-8601 date"), "bad bound");
    CHECK(strstr(json_refused("{\"n\":{\"from\":1,\"to\":\"2020-01-01\"}}"), "must be numbers or both dates"),
          "mixed bounds refused");
    CHECK(strstr(json_refused("{\"n\":{\"from\":1,\"gte\":2}}"), "two lower bounds"), "two lower bounds refused");
    CHECK(strstr(json_refused("{\"n\":{}}"), "a range needs"), "empty range refused");
    CHECK(strstr(json_refused("{\"date_range\":\"2020\"}"), "'date_range' must be an object"), "date_range string refused");
    CHECK(strstr(json_refused("{\"path\":{\"from\":\"a\"}}"), "takes a value, not a range"), "range on path refused");
    CHECK(strstr(json_refused("{\"mtime\":{\"from\":5}}"), "ISO-8601 dates"), "number range on mtime refused");
    CHECK(strstr(json_refused("[1]"), "filters must be an object"), "a non-object refused");
}

/* === End to end === */

static int hyrax(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int hyrax(char **out, const char *fmt, ...)
{
    char args[4096], cmd[4096 + PATH_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && \"$HYRAX_BIN\" %s 2>&1", root, args);
    return check_run(cmd, out);
}

static const char *text_of(const hxi_json_val *r)
{
    const char *t = hxi_json_str(get(hxi_json_arr_get(get(r, "content"), 0), "text"), NULL);
    return t ? t : "";
}

/* The distinct document paths a search answers with, sorted and '|'-joined into out; or the error
 * message prefixed with "ERROR ". No relevance floor (min_score 0): these cases test which
 * documents the filters let through, not how relevant they are. */
static const char *search_paths(server *s, const char *mode, int k, const char *query, const char *filters)
{
    static char out[4096];
    char args[4096];
    hxi_json_doc *d;
    snprintf(args, sizeof args, "{\"query\":\"%s\",\"mode\":\"%s\",\"top_k\":%d,\"group_by\":\"document\",\"min_score\":0,\"filters\":%s}",
             query, mode, k, filters);
    const hxi_json_val *r = serve_tool(s, &d, "search", args);
    if (hxi_json_bool(get(r, "isError")) == 1) {
        snprintf(out, sizeof out, "ERROR %s", text_of(r));
        hxi_json_doc_free(d);
        return out;
    }
    const hxi_json_val *res = get(r, "structuredContent.results");
    const char *paths[64];
    size_t n = 0;
    for (size_t i = 0; res && i < hxi_json_len(res) && n < 64; i++)
        paths[n++] = hxi_json_str(get(hxi_json_arr_get(res, i), "citation.path"), NULL);
    for (size_t i = 1; i < n; i++)   /* insertion sort: a handful of paths */
        for (size_t j = i; j > 0 && strcmp(paths[j - 1], paths[j]) > 0; j--) {
            const char *t = paths[j];
            paths[j] = paths[j - 1];
            paths[j - 1] = t;
        }
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(out);
        snprintf(out + used, sizeof out - used, "%s%s", i ? "|" : "", paths[i]);
    }
    hxi_json_doc_free(d);
    return out;
}

#define AUTH "sig-auth/1205-bound-service-account-tokens/"
#define NODE "sig-node/2570-memory-qos/"
#define APPS "sig-apps/34-daemonset-updates/"

static void test_search(server *s)
{
    const char *modes[] = {"keyword", "semantic", "hybrid"};
    for (int m = 0; m < 3; m++) {
        const char *got = search_paths(s, modes[m], 50, "service account tokens", "{\"sig_name\":\"sig-auth\"}");
        CHECK(!strcmp(got, AUTH "README.md|" AUTH "kep.yaml"), "%s: seed 002 sig_name finds the KEP's README: %s",
              modes[m], got);
    }
    const char *got = search_paths(s, "hybrid", 50, "kubernetes", "{\"participating-sigs\":[\"sig-auth\",\"sig-api-machinery\"]}");
    CHECK(!strcmp(got, APPS "README.md|" APPS "kep.yaml|" AUTH "README.md|" AUTH "kep.yaml"), "any of a list: %s", got);
    got = search_paths(s, "semantic", 50, "kubernetes", "{\"kep-number\":{\"gte\":1000,\"lt\":2000}}");
    CHECK(!strcmp(got, AUTH "README.md|" AUTH "kep.yaml"), "number range: %s", got);
    got = search_paths(s, "semantic", 50, "kubernetes", "{\"creation-date\":{\"to\":\"2018-10-10\"}}");
    CHECK(!strcmp(got, APPS "README.md|" APPS "kep.yaml|" AUTH "README.md|" AUTH "kep.yaml"),
          "date range, to takes its whole day: %s", got);
    got = search_paths(s, "semantic", 50, "kubernetes",
                       "{\"date_range\":{\"key\":\"creation-date\",\"from\":\"2019-01-01\",\"to\":\"2021-12-31\"}}");
    CHECK(!strcmp(got, NODE "README.md|" NODE "kep.yaml|" NODE "test-plan.md"), "seed 003 date_range on a key: %s", got);
    got = search_paths(s, "semantic", 50, "kubernetes", "{\"date_range\":{\"to\":\"2000-01-01\"}}");
    CHECK(!strcmp(got, ""), "date_range on indexed_at: nothing indexed before 2000: %s", got);
    char today[64], f[128];
    time_t now = time(NULL) - 86400;
    strftime(today, sizeof today, "%Y-%m-%d", gmtime(&now));
    snprintf(f, sizeof f, "{\"date_range\":{\"from\":\"%s\"},\"ext\":\"md\"}", today);
    got = search_paths(s, "keyword", 50, "kep", f);
    CHECK(!strcmp(got, APPS "README.md|" AUTH "README.md|" NODE "README.md"), "indexed since yesterday, ext md: %s",
          got);
    /* the best chunk for this query is the DaemonSet README; with k = 1 the filter must still give
     * one result, the only draft document, which a post-filter of the top 1 would lose */
    got = search_paths(s, "semantic", 1, "DaemonSet rolling update node by node", "{\"status\":\"draft\"}");
    CHECK(!strcmp(got, NODE "test-plan.md"), "filters inside the search, k = 1: %s", got);
    got = search_paths(s, "keyword", 50, "memory", "{\"status\":\"draft\",\"tags\":\"cgroups\"}");
    CHECK(!strcmp(got, NODE "test-plan.md"), "own front matter wins over kep.yaml: %s", got);
    got = search_paths(s, "keyword", 50, "memory", "{\"status\":null}");
    CHECK(!strncmp(got, "ERROR ", 6) && strstr(got, "filters"), "bad filter is a tool error: %s", got);
    got = search_paths(s, "keyword", 50, "memory", "{\"kep-number\":{\"from\":\"soon\"}}");
    CHECK(strstr(got, "neither a number nor an ISO-8601 date") != NULL, "bad bound is a tool error: %s", got);

    hxi_json_doc *d;
    const hxi_json_val *r = serve_tool(s, &d, "add_document",
                                "{\"content\":\"# Rota\\n\\nThe on-call rota for the storage team.\",\"name\":\"notes/rota.md\","
                                "\"metadata\":{\"tags\":[\"oncall\",\"storage\"],\"priority\":3,\"due\":\"2024-05-01\",\"public\":false}}");
    CHECK(hxi_json_bool(get(r, "isError")) != 1, "add_document with typed metadata: %s", text_of(r));
    hxi_json_doc_free(d);
    got = search_paths(s, "keyword", 50, "rota",
                       "{\"tags\":\"storage\",\"priority\":{\"gte\":2},\"due\":{\"from\":\"2024-01-01\"},\"public\":false}");
    CHECK(!strcmp(got, "notes/rota.md"), "typed tool metadata filters: %s", got);
    r = serve_tool(s, &d, "list_documents", "{\"filters\":{\"tags\":[\"oncall\"]}}");
    const hxi_json_val *docs = get(r, "structuredContent.documents");
    const hxi_json_val *tags = get(hxi_json_arr_get(docs, 0), "metadata.tags");
    CHECK(hxi_json_len(docs) == 1 && hxi_json_type_of(tags) == HX_JSON_ARRAY && hxi_json_len(tags) == 2 &&
              !strcmp(hxi_json_str(hxi_json_arr_get(tags, 1), NULL), "storage"),
          "list_documents filters; a list shows as an array: %s", text_of(r));
    hxi_json_doc_free(d);
    r = serve_tool(s, &d, "add_document", "{\"content\":\"x\",\"name\":\"notes/x.md\",\"metadata\":{\"tags\":[{\"a\":1}]}}");
    CHECK(hxi_json_bool(get(r, "isError")) == 1 && strstr(text_of(r), "string, number or boolean"),
          "metadata of objects refused: %s", text_of(r));
    hxi_json_doc_free(d);
}

static void test_cli(void)
{
    char *out;
    int rc = hyrax(&out, "search --db '%s' --mode keyword --json --filter owning-sig=sig-auth 'service account tokens'", db);
    CHECK(rc == 0 && strstr(out, "\"path\":\"" AUTH "README.md\"") && !strstr(out, "\"path\":\"sig-node") &&
              !strstr(out, "\"path\":\"sig-apps"),
          "--filter owning-sig=sig-auth finds the README: %s", out);
    free(out);
    rc = hyrax(&out, "search --db '%s' --mode keyword --json --filter 'creation-date<2018-01-01' --filter folder=sig-apps "
                     "'rolling update'", db);
    CHECK(rc == 0 && strstr(out, "\"path\":\"" APPS "README.md\"") && !strstr(out, "\"path\":\"sig-auth"), "--filter date < and folder: %s",
          out);
    free(out);
    rc = hyrax(&out, "search --db '%s' --mode keyword --filter 'kep-number>=abc' daemonset", db);
    CHECK(rc != 0 && strstr(out, "neither a number nor an ISO-8601 date"), "--filter bad bound refused: %s", out);
    free(out);
}

/* A changed kep.yaml changes its folder's documents; a removed one takes its metadata away. */
static void test_inheritance_update(server *s)
{
    char *out;
    const char *got = search_paths(s, "keyword", 50, "memory", "{\"status\":\"implemented\",\"folder\":\"sig-node\"}");
    CHECK(!strcmp(got, ""), "before: sig-node's KEP is not implemented: %s", got);
    check_put(root, NODE "kep.yaml",
              "title: Support Memory QoS with cgroups v2\nkep-number: 2570\nowning-sig: sig-node\nstatus: implemented\n");
    CHECK(hyrax(&out, "index --db '%s' .", db) == 0, "reindex after the kep.yaml change: %s", out);
    free(out);
    got = search_paths(s, "keyword", 50, "memory", "{\"status\":\"implemented\",\"folder\":\"sig-node\"}");
    CHECK(!strcmp(got, NODE "README.md|" NODE "kep.yaml"), "after: README follows the changed kep.yaml: %s", got);
    got = search_paths(s, "keyword", 50, "memory", "{\"status\":\"draft\"}");
    CHECK(!strcmp(got, NODE "test-plan.md"), "after: its own status still wins: %s", got);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/" NODE "kep.yaml", root);
    CHECK(unlink(path) == 0, "remove kep.yaml");
    CHECK(hyrax(&out, "index --db '%s' .", db) == 0, "reindex after removing kep.yaml: %s", out);
    free(out);
    got = search_paths(s, "keyword", 50, "memory", "{\"owning-sig\":\"sig-node\"}");
    CHECK(!strcmp(got, ""), "without kep.yaml nothing inherits sig-node: %s", got);

    /* the list of folder metadata files is the index's, set by --folder-meta */
    check_put(root, NODE "meta.yaml", "team: node-memory\n");
    CHECK(hyrax(&out, "index --db '%s' --folder-meta meta.yaml --folder-meta kep.yaml .", db) == 0,
          "--folder-meta meta.yaml kep.yaml: %s", out);
    free(out);
    got = search_paths(s, "keyword", 50, "memory", "{\"team\":\"node-memory\"}");
    CHECK(!strcmp(got, NODE "README.md|" NODE "meta.yaml|" NODE "test-plan.md"), "meta.yaml inherited: %s", got);
    got = search_paths(s, "keyword", 50, "rolling update", "{\"reviewers\":\"kow3ns\"}");
    CHECK(!strcmp(got, APPS "README.md"), "README front matter no longer inherited: %s", got);
    CHECK(hyrax(&out, "index --db '%s' --compact --folder-meta kep.yaml .", db) == 0, "a list change alone: %s", out);
    free(out);
    got = search_paths(s, "keyword", 50, "memory", "{\"team\":\"node-memory\"}");
    CHECK(!strcmp(got, NODE "meta.yaml"), "a changed list commits with no file changed: %s", got);
    CHECK(hyrax(&out, "index --db '%s' .", db) == 0, "a plain index keeps the list: %s", out);
    free(out);
    got = search_paths(s, "keyword", 50, "service account tokens", "{\"sig_name\":\"sig-auth\",\"team\":[\"x\"]}");
    CHECK(!strcmp(got, ""), "and-ed with a missing key: nothing: %s", got);
    got = search_paths(s, "keyword", 50, "memory", "{\"team\":\"node-memory\"}");
    CHECK(!strcmp(got, NODE "meta.yaml"), "the list survives compaction and a plain index: %s", got);
    CHECK(hyrax(&out, "index --db '%s' --folder-meta a/b .", db) != 0 && strstr(out, "not a file name"),
          "--folder-meta with a '/' refused: %s", out);
    free(out);
}

/* Only files pass folder metadata on: a stored document named kep.yaml (add_document, no file
 * behind it) gives its folder's files nothing, while a kep.yaml file does. */
static void test_stored_not_folder_meta(server *s)
{
    char *out;
    check_put(root, "misc/plan.md", "# Plan\n\nThe rollout plan for the widget.\n");
    check_put(root, "real/plan.md", "# Plan\n\nThe rollout plan for the gadget.\n");
    check_put(root, "real/kep.yaml", "owning-sig: sig-real\n");
    CHECK(hyrax(&out, "index --db '%s' .", db) == 0, "index misc/ and real/: %s", out);
    free(out);
    hxi_json_doc *d;
    const hxi_json_val *r = serve_tool(s, &d, "add_document", "{\"name\":\"misc/kep.yaml\",\"content\":\"owning-sig: sig-evil\\n\"}");
    CHECK(hxi_json_bool(get(r, "isError")) != 1, "add_document misc/kep.yaml: %s", text_of(r));
    hxi_json_doc_free(d);
    const char *got = search_paths(s, "semantic", 50, "rollout plan", "{\"owning-sig\":\"sig-evil\"}");
    CHECK(!strcmp(got, "misc/kep.yaml"), "a stored kep.yaml passes nothing on: %s", got);
    got = search_paths(s, "semantic", 50, "rollout plan", "{\"owning-sig\":\"sig-real\"}");
    CHECK(!strcmp(got, "real/kep.yaml|real/plan.md"), "a kep.yaml file passes its keys on: %s", got);
}

static void test_end_to_end(void)
{
    char cmd[3 * PATH_MAX], *out;
    char tmpl[] = "/tmp/hxi_meta_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    snprintf(cmd, sizeof cmd, "cp -R tests/data/keps/. '%s'", root);
    CHECK(system(cmd) == 0, "copy the fixture");
    CHECK(hyrax(&out, "index --db '%s' .", db) == 0, "index the fixture: %s", out);
    free(out);
    test_cli();
    server s;
    if (start_in(&s, root, db, 0) == 0) {
        hxi_json_doc *d;
        CHECK(get(serve_request(&s, &d, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                                  "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"),
                  "result") != NULL,
              "initialize");
        hxi_json_doc_free(d);
        send_line(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        test_search(&s);
        test_inheritance_update(&s);
        test_stored_not_folder_meta(&s);
        close(s.in);
        int status = 0;
        waitpid(s.pid, &status, 0);
        close(s.out);
        free(s.buf);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server exits cleanly");
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", root, root);
    CHECK(system(cmd) == 0, "cleanup");
}

/* An index whose document table is version 2 (tests/data/hxdocs02.hyx, made by hyrax at commit
 * dc42768 from one notes/glacier.md with front matter "status: implementable" and "tags: [a, b]")
 * reads as before: its metadata filters, and its flow list stays the text the old parser kept
 * until the file is indexed again. */
static void test_v2_fixture(void)
{
    char copy[PATH_MAX + 32], cmd[3 * PATH_MAX], *out;
    snprintf(copy, sizeof copy, "%s.v2.hyx", root);
    snprintf(cmd, sizeof cmd, "cp tests/data/hxdocs02.hyx '%s'", copy);
    CHECK(system(cmd) == 0, "copy the version 2 fixture");
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" search --db '%s' --mode keyword --json --filter status=implementable glacier",
             copy);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"path\":\"notes/glacier.md\"") &&
              strstr(out, "\"tags\":\"[a, b]\""),
          "a version 2 document table reads as before: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "\"$HYRAX_BIN\" stats --db '%s' --json", copy);
    CHECK(check_run(cmd, &out) == 0 && strstr(out, "\"writer\":\"\""),
          "a commit made before 0.2.0 names no writer: %s", out);
    free(out);
    unlink(copy);
}

int main(void)
{
    setenv("HYRAX_BIN", "./hyrax", 0);
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "cwd");
    char bin[PATH_MAX * 2];
    if (getenv("HYRAX_BIN")[0] != '/') {   /* the CLI runs in the temporary root */
        snprintf(bin, sizeof bin, "%s/%s", cwd, getenv("HYRAX_BIN"));
        setenv("HYRAX_BIN", bin, 1);
    }
    test_yaml();
    test_yaml_golden();
    test_types();
    test_matching();
    test_end_to_end();
    test_v2_fixture();
    return check_report("test_meta");
}
