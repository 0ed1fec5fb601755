/* test_json.c: the JSON reader and writer (src/json.c). Every file in tests/json/ is checked
 * against its name (y_ must parse, n_ must fail, i_ may do either but must not crash), and every
 * parsed file must write back and re-parse equal. Unit tests cover number text round trips and
 * conversions, escapes, writer escaping of every control character, invalid UTF-8 replacement,
 * writer misuse, limits, and the error code and byte offset of each kind of error. */
#include "check.h"
#include "json.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Writes the document back, checks it is one line and re-parses to an equal document. */
static void check_round_trip(const hxi_json_doc *doc, const char *name)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_val(&w, hxi_json_doc_root(doc));
    hx_error err = {0};
    CHECK(hxi_json_writer_finish(&w, &err) == 0, "%s: writer: %s", name, err.message);
    CHECK(w.len > 0 && !memchr(w.buf, '\n', w.len) && !memchr(w.buf, '\r', w.len),
          "%s: output is not one line", name);
    hxi_json_doc *back = NULL;
    int rc = hxi_json_parse(&back, w.buf, w.len, NULL, &err);
    CHECK(rc == 0, "%s: output does not parse: %s", name, err.message);
    if (rc == 0)
        CHECK(hxi_json_equal(hxi_json_doc_root(doc), hxi_json_doc_root(back)), "%s: round trip differs",
              name);
    hxi_json_doc_free(back);
    hxi_json_writer_free(&w);
}

static void test_files(void)
{
    DIR *d = opendir("tests/json");
    CHECK(d != NULL, "cannot open tests/json (run from the repository root)");
    if (!d)
        return;
    int files = 0, y = 0, n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        size_t nl = strlen(name);
        if (nl < 7 || name[1] != '_' || strcmp(name + nl - 5, ".json") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "tests/json/%s", name);
        size_t len;
        char *text = read_file(path, &len);
        CHECK(text != NULL, "cannot read %s", path);
        if (!text)
            continue;
        hxi_json_doc *doc = NULL;
        hx_error err = {0};
        int rc = hxi_json_parse(&doc, text, len, NULL, &err);
        files++;
        if (name[0] == 'y') {
            y++;
            CHECK(rc == 0, "%s must parse: %s (%s)", name, err.message, hx_strerror(rc));
        } else if (name[0] == 'n') {
            n++;
            CHECK(rc != 0, "%s must not parse", name);
            CHECK(rc == 0 || (err.code == rc && err.offset >= 0 && (size_t)err.offset <= len),
                  "%s: error offset %lld outside 0..%zu", name, (long long)err.offset, len);
        }
        CHECK((rc == 0) == (doc != NULL), "%s: doc and return code disagree", name);
        if (rc == 0)
            check_round_trip(doc, name);
        hxi_json_doc_free(doc);
        free(text);
    }
    closedir(d);
    CHECK(files >= 150 && y >= 50 && n >= 80, "only %d test files (%d y_, %d n_)", files, y, n);
}

static hxi_json_doc *parse_ok(const char *text)
{
    hxi_json_doc *doc = NULL;
    hx_error err = {0};
    int rc = hxi_json_parse(&doc, text, strlen(text), NULL, &err);
    CHECK(rc == 0, "parse '%s': %s", text, err.message);
    return doc;
}

/* Parses text (with explicit length, so NUL bytes count) expecting error `code` at `offset`. */
static void expect_error(const char *text, size_t len, int code, int64_t offset)
{
    hxi_json_doc *doc = NULL;
    hx_error err = {0};
    int rc = hxi_json_parse(&doc, text, len, NULL, &err);
    CHECK(rc == code && err.code == code, "'%.40s': code %d (%s), want %d", text, rc,
          err.message, code);
    CHECK(err.offset == offset, "'%.40s': offset %lld, want %lld (%s)", text,
          (long long)err.offset, (long long)offset, err.message);
    CHECK(doc == NULL, "'%.40s': doc set on error", text);
    hxi_json_doc_free(doc);
}
#define EXPECT_ERROR(lit, code, off) expect_error(lit, sizeof(lit) - 1, code, off)

static void test_error_offsets(void)
{
    EXPECT_ERROR("[1,]", HX_EPARSE, 3);
    EXPECT_ERROR("[1 2]", HX_EPARSE, 3);
    EXPECT_ERROR("{\"a\":1,\"a\":2}", HX_EPARSE, 7);
    EXPECT_ERROR("{\"a\":1,\"b\":{},\"c\":0,\"b\":3}", HX_EPARSE, 20);
    EXPECT_ERROR("\"ab\\x\"", HX_EPARSE, 3);
    EXPECT_ERROR("\"a\xff\"", HX_EUTF8, 2);
    EXPECT_ERROR("\"ab\xc0\xaf\"", HX_EUTF8, 3);
    EXPECT_ERROR("\"\xed\xa0\x80\"", HX_EUTF8, 1);
    EXPECT_ERROR("[\"x\\ud800\"]", HX_EUTF8, 3);
    EXPECT_ERROR("\"\\udc00\"", HX_EUTF8, 1);
    EXPECT_ERROR("\"a\nb\"", HX_EPARSE, 2);
    EXPECT_ERROR("[", HX_EPARSE, 1);
    EXPECT_ERROR("\"abc", HX_EPARSE, 4);
    EXPECT_ERROR("", HX_EPARSE, 0);
    EXPECT_ERROR("01", HX_EPARSE, 1);
    EXPECT_ERROR("-", HX_EPARSE, 1);
    EXPECT_ERROR("1.", HX_EPARSE, 2);
    EXPECT_ERROR("1e+", HX_EPARSE, 3);
    EXPECT_ERROR("\xef\xbb\xbf{}", HX_EPARSE, 0);
    EXPECT_ERROR("[1] x", HX_EPARSE, 4);
    EXPECT_ERROR("[1]\0", HX_EPARSE, 3);
    EXPECT_ERROR("{\"a\" 1}", HX_EPARSE, 5);
    EXPECT_ERROR("{\"a\":1,}", HX_EPARSE, 7);
    EXPECT_ERROR("[tru]", HX_EPARSE, 1);
    EXPECT_ERROR("[1}", HX_EPARSE, 2);

    char deep[200];
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    expect_error(deep, 130, HX_EDEPTH, 64);
    hxi_json_doc *doc = NULL;
    CHECK(hxi_json_parse(&doc, deep + 1, 128, NULL, NULL) == 0, "64 levels parse");
    hxi_json_doc_free(doc);
    hxi_json_limits lim = {.max_depth = 3};
    hx_error err = {0};
    CHECK(hxi_json_parse(&doc, "[[[1]]]", 7, &lim, &err) == 0, "depth 3 within limit 3");
    hxi_json_doc_free(doc);
    CHECK(hxi_json_parse(&doc, "[[{\"a\":[]}]]", 12, &lim, &err) == HX_EDEPTH && err.offset == 7,
          "depth 4 over limit 3: %s", err.message);
}

static void test_limits(void)
{
    hxi_json_doc *doc = NULL;
    hx_error err = {0};
    hxi_json_limits lim = {.max_values = 3};
    CHECK(hxi_json_parse(&doc, "[1,2]", 5, &lim, &err) == 0, "3 values within the limit");
    hxi_json_doc_free(doc);
    CHECK(hxi_json_parse(&doc, "[1,2,3]", 7, &lim, &err) == HX_ERANGE, "4 values over the limit");
    CHECK(hxi_json_parse(&doc, "{\"a\":1,\"b\":2}", 13, &lim, &err) == HX_ERANGE,
          "keys count as values");
    lim = (hxi_json_limits){.max_bytes = 4};
    CHECK(hxi_json_parse(&doc, "[1,2]", 5, &lim, &err) == HX_ERANGE, "5 bytes over a 4-byte limit");
    CHECK(hxi_json_parse(&doc, "[12]", 4, &lim, &err) == 0, "4 bytes within the limit");
    hxi_json_doc_free(doc);
    CHECK(hxi_json_parse(&doc, NULL, 1, NULL, &err) == HX_EINVAL, "NULL text");
}

static void check_number_echo(const char *text)
{
    hxi_json_doc *doc = parse_ok(text);
    if (!doc)
        return;
    size_t n;
    const char *t = hxi_json_num_text(hxi_json_doc_root(doc), &n);
    CHECK(t && n == strlen(text) && strcmp(t, text) == 0, "number text of %s is %s", text, t);
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_val(&w, hxi_json_doc_root(doc));
    CHECK(w.len == strlen(text) && memcmp(w.buf, text, w.len) == 0, "%s echoed as %s", text, w.buf);
    hxi_json_writer_reset(&w);
    hxi_json_write_number_text(&w, text, strlen(text));
    CHECK(w.status == 0 && strcmp(w.buf, text) == 0, "number text %s written as %s", text, w.buf);
    hxi_json_writer_free(&w);
    hxi_json_doc_free(doc);
}

static void check_int64(const char *text, int want_rc, int64_t want)
{
    hxi_json_doc *doc = parse_ok(text);
    if (!doc)
        return;
    int64_t x = 12345;
    hx_error err = {0};
    int rc = hxi_json_num_int64(hxi_json_doc_root(doc), &x, &err);
    CHECK(rc == want_rc, "int64 of %s: rc %d (%s), want %d", text, rc, err.message, want_rc);
    if (rc == 0 && want_rc == 0)
        CHECK(x == want, "int64 of %s is %lld, want %lld", text, (long long)x, (long long)want);
    hxi_json_doc_free(doc);
}

static void test_numbers(void)
{
    const char *echo[] = {"12345678901234567890", "1.0", "-0", "1E+2", "1e400", "-1.50e-007",
                          "0.000", "123456789012345678901234567890.5", "-9223372036854775809"};
    for (size_t i = 0; i < sizeof echo / sizeof *echo; i++)
        check_number_echo(echo[i]);

    check_int64("0", 0, 0);
    check_int64("-0", 0, 0);
    check_int64("42", 0, 42);
    check_int64("-42", 0, -42);
    check_int64("9223372036854775807", 0, INT64_MAX);
    check_int64("-9223372036854775808", 0, INT64_MIN);
    check_int64("9223372036854775808", HX_ERANGE, 0);
    check_int64("-9223372036854775809", HX_ERANGE, 0);
    check_int64("12345678901234567890", HX_ERANGE, 0);
    check_int64("1.0", 0, 1);
    check_int64("10.000", 0, 10);
    check_int64("1e3", 0, 1000);
    check_int64("1E+2", 0, 100);
    check_int64("2.5e1", 0, 25);
    check_int64("12345678901234567890e-1", 0, 1234567890123456789);
    check_int64("0.0e99999", 0, 0);
    check_int64("0.1", HX_ERANGE, 0);
    check_int64("1.5", HX_ERANGE, 0);
    check_int64("1e-1", HX_ERANGE, 0);
    check_int64("1e-400", HX_ERANGE, 0);
    check_int64("1e400", HX_ERANGE, 0);
    check_int64("1e19", HX_ERANGE, 0);
    check_int64("9.223372036854775807e18", 0, INT64_MAX);
    check_int64("1.00000000000000000000000000001", HX_ERANGE, 0);
    check_int64("100000000000000000000000000000e-29", 0, 1);

    hxi_json_doc *doc = parse_ok("[1.5, -0, 1e400, -1e400, 1e-400, 0.1, \"1\"]");
    if (doc) {
        const hxi_json_val *a = hxi_json_doc_root(doc);
        double d = 0;
        hx_error err = {0};
        CHECK(hxi_json_num_double(hxi_json_arr_get(a, 0), &d, &err) == 0 && d == 1.5, "1.5");
        CHECK(hxi_json_num_double(hxi_json_arr_get(a, 1), &d, &err) == 0 && d == 0 && signbit(d),
              "-0 is negative zero");
        CHECK(hxi_json_num_double(hxi_json_arr_get(a, 2), &d, &err) == HX_ERANGE, "1e400 overflows");
        CHECK(hxi_json_num_double(hxi_json_arr_get(a, 3), &d, &err) == HX_ERANGE, "-1e400 overflows");
        CHECK(hxi_json_num_double(hxi_json_arr_get(a, 4), &d, &err) == 0 && d == 0, "1e-400 is 0");
        CHECK(hxi_json_num_double(hxi_json_arr_get(a, 5), &d, &err) == 0 && d == 0.1, "0.1");
        CHECK(hxi_json_num_double(hxi_json_arr_get(a, 6), &d, &err) == HX_EINVAL, "string");
        CHECK(hxi_json_num_int64(hxi_json_arr_get(a, 6), NULL, &err) == HX_EINVAL, "string as int");
        hxi_json_doc_free(doc);
    }

    hxi_json_writer w;
    hxi_json_writer_init(&w);
    const char *bad[] = {"01", "-", "1.", ".5", "1e", "+1", "1 ", "", "NaN", "0x10", "1e+"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hxi_json_writer_reset(&w);
        hxi_json_write_number_text(&w, bad[i], strlen(bad[i]));
        CHECK(w.status == HX_EINVAL && w.len == 0, "number text '%s' accepted", bad[i]);
    }
    hxi_json_writer_free(&w);
}

static void check_double(double x, const char *want)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_double(&w, x);
    CHECK(w.status == 0 && w.buf && strcmp(w.buf, want) == 0, "double %.17g written as %s, want %s",
          x, w.buf ? w.buf : "(none)", want);
    hxi_json_writer_free(&w);
}

static void test_write_scalars(void)
{
    check_double(0.1, "0.1");
    check_double(1.0, "1");
    check_double(-0.0, "-0");
    check_double(1e300, "1e+300");
    check_double(5e-324, "4.94065645841247e-324");
    check_double(1.0 / 3.0, "0.3333333333333333");
    check_double(0.1 + 0.2, "0.30000000000000004");
    check_double(NAN, "null");
    check_double(INFINITY, "null");
    check_double(-INFINITY, "null");
    double samples[] = {3.14159, 1e21, 123456789.125, 2.2250738585072014e-308, 1.7976931348623157e308};
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        hxi_json_writer w;
        hxi_json_writer_init(&w);
        hxi_json_write_double(&w, samples[i]);
        hxi_json_doc *doc = parse_ok(w.buf);
        double d = 0;
        CHECK(doc && hxi_json_num_double(hxi_json_doc_root(doc), &d, NULL) == 0 && d == samples[i],
              "double %.17g does not round-trip via %s", samples[i], w.buf);
        hxi_json_doc_free(doc);
        hxi_json_writer_free(&w);
    }

    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_arr_begin(&w);
    hxi_json_write_int(&w, INT64_MIN);
    hxi_json_write_int(&w, INT64_MAX);
    hxi_json_write_uint(&w, UINT64_MAX);
    hxi_json_write_bool(&w, 1);
    hxi_json_write_bool(&w, 0);
    hxi_json_write_null(&w);
    hxi_json_write_cstr(&w, NULL);
    hxi_json_write_arr_begin(&w);
    hxi_json_write_arr_end(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_write_obj_end(&w);
    hxi_json_write_arr_end(&w);
    const char *want = "[-9223372036854775808,9223372036854775807,18446744073709551615,true,false,"
                       "null,null,[],{}]";
    CHECK(hxi_json_writer_finish(&w, NULL) == 0 && strcmp(w.buf, want) == 0, "scalars: %s", w.buf);
    size_t len;
    char *taken = hxi_json_writer_take(&w, &len);
    CHECK(taken && len == strlen(want) && w.buf == NULL && w.len == 0, "take");
    free(taken);
    hxi_json_writer_free(&w);
}

static void test_escapes(void)
{
    hxi_json_doc *doc = parse_ok("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\\u0000z\"");
    if (doc) {
        size_t n;
        const char *s = hxi_json_str(hxi_json_doc_root(doc), &n);
        const char want[] = "\"\\/\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\0z";
        CHECK(s && n == sizeof want - 1 && memcmp(s, want, n) == 0 && s[n] == '\0',
              "decoded escapes (%zu bytes)", n);
        check_round_trip(doc, "escapes");
        hxi_json_doc_free(doc);
    }

    /* Every control character comes out escaped, and reads back as itself. */
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    for (int c = 0; c < 0x20; c++) {
        char in = (char)c, want[16];
        const char *short_esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                              : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
        if (short_esc)
            snprintf(want, sizeof want, "\"%s\"", short_esc);
        else
            snprintf(want, sizeof want, "\"\\u%04x\"", c);
        hxi_json_writer_reset(&w);
        hxi_json_write_str(&w, &in, 1);
        CHECK(w.status == 0 && strcmp(w.buf, want) == 0, "control %#x written as %s", c, w.buf);
        hxi_json_doc *d = parse_ok(w.buf);
        size_t n;
        const char *s = d ? hxi_json_str(hxi_json_doc_root(d), &n) : NULL;
        CHECK(s && n == 1 && s[0] == in, "control %#x reads back", c);
        hxi_json_doc_free(d);
    }
    struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"a\"b\\c/", 6, "\"a\\\"b\\\\c/\""},
        {"\x7f", 1, "\"\\u007f\""},
        {"\xc2\x85", 2, "\"\\u0085\""},
        {"\xc2\xa0", 2, "\"\xc2\xa0\""},
        {"\xe2\x80\xa8|\xe2\x80\xa9", 7, "\"\\u2028|\\u2029\""},
        {"\xe2\x80\xaa", 3, "\"\xe2\x80\xaa\""},
        {"caf\xc3\xa9 \xf0\x9f\x98\x80", 10, "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""},
        {"a\xff" "b", 3, "\"a\xef\xbf\xbd" "b\""},
        {"\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\""},
        {"\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
        {"\xe2\x82", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\""},
        {"\xf4\x90\x80\x80", 4, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
        {"", 0, "\"\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hxi_json_writer_reset(&w);
        hxi_json_write_str(&w, cases[i].in, cases[i].len);
        CHECK(w.status == 0 && strcmp(w.buf, cases[i].want) == 0, "case %zu written as %s", i, w.buf);
    }

    /* All 256 byte values in one string: the output is valid JSON on one line. */
    char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (char)i;
    hxi_json_writer_reset(&w);
    hxi_json_write_str(&w, all, sizeof all);
    CHECK(w.status == 0 && !memchr(w.buf, '\n', w.len) && !memchr(w.buf, '\r', w.len),
          "all bytes: one line");
    hxi_json_doc *d = parse_ok(w.buf);
    size_t n;
    const char *s = d ? hxi_json_str(hxi_json_doc_root(d), &n) : NULL;
    CHECK(s && n == 128 + 128 * 3 && memcmp(s, all, 128) == 0, "all bytes read back (%zu)", n);
    hxi_json_doc_free(d);

    /* Keys are escaped the same way. */
    hxi_json_writer_reset(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_write_keyn(&w, "k\n\"", 3);
    hxi_json_write_int(&w, 1);
    hxi_json_write_key(&w, "x");
    hxi_json_write_cstr(&w, "y");
    hxi_json_write_obj_end(&w);
    CHECK(w.status == 0 && strcmp(w.buf, "{\"k\\n\\\"\":1,\"x\":\"y\"}") == 0, "keys: %s", w.buf);
    hxi_json_writer_free(&w);
}

static void test_writer_misuse(void)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    CHECK(hxi_json_writer_finish(&w, NULL) == HX_EINVAL, "empty writer is not complete");

    hxi_json_write_obj_begin(&w);
    hxi_json_write_int(&w, 1);
    CHECK(w.status == HX_EINVAL, "value without a key");
    hxi_json_write_null(&w);
    CHECK(w.status == HX_EINVAL && strcmp(w.buf, "{") == 0, "sticky: nothing written after failure");

    hxi_json_writer_reset(&w);
    hxi_json_write_key(&w, "a");
    CHECK(w.status == HX_EINVAL, "key outside an object");

    hxi_json_writer_reset(&w);
    hxi_json_write_arr_begin(&w);
    hxi_json_write_obj_end(&w);
    CHECK(w.status == HX_EINVAL, "mismatched end");

    hxi_json_writer_reset(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_write_key(&w, "a");
    hxi_json_write_key(&w, "b");
    CHECK(w.status == HX_EINVAL, "two keys in a row");

    hxi_json_writer_reset(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_write_key(&w, "a");
    hxi_json_write_obj_end(&w);
    CHECK(w.status == HX_EINVAL, "end after a key");

    hxi_json_writer_reset(&w);
    hxi_json_write_int(&w, 1);
    hxi_json_write_int(&w, 2);
    CHECK(w.status == HX_EINVAL, "two top-level values");

    hxi_json_writer_reset(&w);
    hxi_json_write_arr_begin(&w);
    CHECK(hxi_json_writer_finish(&w, NULL) == HX_EINVAL, "unclosed array");

    hxi_json_writer_reset(&w);
    for (int i = 0; i <= HX_JSON_WRITER_DEPTH; i++)
        hxi_json_write_arr_begin(&w);
    CHECK(w.status == HX_EDEPTH, "writer depth limit: %d", w.status);
    CHECK(hxi_json_writer_take(&w, NULL) == NULL, "take of a failed writer");

    hxi_json_writer_reset(&w);
    hxi_json_write_str(&w, NULL, 3);
    CHECK(w.status == HX_EINVAL, "NULL string with a length");
    hxi_json_writer_free(&w);
}

static void test_write_json(void)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    const char *pretty = "\r\n {\n  \"a\": [1,\r\n 2.50],\n  \"b\": \"x\\ny\"\n}\n\n";
    hxi_json_write_arr_begin(&w);
    hxi_json_write_json(&w, pretty, strlen(pretty));
    hxi_json_write_json(&w, "7", 1);
    hxi_json_write_arr_end(&w);
    CHECK(w.status == 0 && strcmp(w.buf, "[{   \"a\": [1,   2.50],   \"b\": \"x\\ny\" },7]") == 0,
          "embedded JSON: %s", w.buf);
    const char *bad[] = {"", "[1,]", "{\"a\":1} x", "\"\xff\"", "[\"a\nb\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hxi_json_writer_reset(&w);
        hxi_json_write_json(&w, bad[i], strlen(bad[i]));
        CHECK(w.status == HX_EINVAL && w.len == 0, "invalid JSON text %zu accepted", i);
    }
    hxi_json_writer_free(&w);
}

static void test_dom(void)
{
    hxi_json_doc *doc = parse_ok("{\"a\":[1,{\"x\":null},\"s\",true,false],\"b\\u0000c\":2,\"\":{},"
                                 "\"n\":-1.5e3}");
    if (!doc)
        return;
    const hxi_json_val *root = hxi_json_doc_root(doc);
    CHECK(hxi_json_type_of(root) == HX_JSON_OBJECT && hxi_json_len(root) == 4, "root object of 4");
    const hxi_json_val *a = hxi_json_obj_get(root, "a");
    CHECK(hxi_json_type_of(a) == HX_JSON_ARRAY && hxi_json_len(a) == 5, "a is an array of 5");
    CHECK(hxi_json_offset(a) == 5, "offset of a: %lld", (long long)hxi_json_offset(a));
    CHECK(hxi_json_type_of(hxi_json_obj_get(hxi_json_arr_get(a, 1), "x")) == HX_JSON_NULL, "a[1].x");
    CHECK(hxi_json_bool(hxi_json_arr_get(a, 3)) == 1 && hxi_json_bool(hxi_json_arr_get(a, 4)) == 0,
          "booleans");
    CHECK(hxi_json_bool(hxi_json_arr_get(a, 0)) == -1, "a number is not a boolean");
    CHECK(hxi_json_arr_get(a, 5) == NULL && hxi_json_arr_get(root, 0) == NULL, "out of range");
    size_t n;
    const char *s = hxi_json_str(hxi_json_arr_get(a, 2), &n);
    CHECK(s && n == 1 && s[0] == 's', "a[2]");
    CHECK(hxi_json_str(hxi_json_arr_get(a, 0), &n) == NULL, "a number is not a string");
    CHECK(hxi_json_obj_get(root, "b") == NULL, "key with NUL does not match its prefix");
    int64_t i = 0;
    CHECK(hxi_json_num_int64(hxi_json_obj_getn(root, "b\0c", 3), &i, NULL) == 0 && i == 2,
          "lookup of a key with NUL");
    CHECK(hxi_json_type_of(hxi_json_obj_get(root, "")) == HX_JSON_OBJECT, "empty key");
    CHECK(hxi_json_num_int64(hxi_json_obj_get(root, "n"), &i, NULL) == 0 && i == -1500, "n");
    CHECK(hxi_json_obj_get(root, "zz") == NULL && hxi_json_obj_get(a, "a") == NULL, "missing");
    CHECK(hxi_json_type_of(NULL) == 0 && hxi_json_len(NULL) == 0, "NULL value");

    const char *keys[] = {"a", "b", "", "n"};
    hxi_json_iter it;
    const hxi_json_val *k, *v;
    size_t count = 0;
    hxi_json_iter_init(&it, root);
    while (hxi_json_iter_next(&it, &k, &v)) {
        const char *ks = hxi_json_str(k, &n);
        CHECK(count < 4 && ks && strcmp(ks, keys[count]) == 0, "key %zu is %s", count, ks);
        CHECK(hxi_json_obj_getn(root, ks, n) == v, "iteration and lookup agree on %s", ks);
        count++;
    }
    CHECK(count == 4, "iterated %zu members", count);
    count = 0;
    hxi_json_iter_init(&it, a);
    while (hxi_json_iter_next(&it, &k, &v)) {
        CHECK(k == NULL && v == hxi_json_arr_get(a, count), "element %zu", count);
        count++;
    }
    CHECK(count == 5, "iterated %zu elements", count);
    hxi_json_iter_init(&it, hxi_json_arr_get(a, 0));
    CHECK(!hxi_json_iter_next(&it, &k, &v), "a scalar has nothing to iterate");

    hxi_json_doc *other = parse_ok("{\"a\":[1,{\"x\":null},\"s\",true,false],\"b\\u0000c\":2,"
                                   "\"\":{},\"n\":-1.5e3}");
    hxi_json_doc *diff = parse_ok("{\"a\":[1,{\"x\":null},\"s\",true,true],\"b\\u0000c\":2,"
                                  "\"\":{},\"n\":-1.5e3}");
    hxi_json_doc *num = parse_ok("{\"a\":[1.0,{\"x\":null},\"s\",true,false],\"b\\u0000c\":2,"
                                 "\"\":{},\"n\":-1.5e3}");
    CHECK(other && hxi_json_equal(root, hxi_json_doc_root(other)), "equal documents");
    CHECK(diff && !hxi_json_equal(root, hxi_json_doc_root(diff)), "different booleans");
    CHECK(num && !hxi_json_equal(root, hxi_json_doc_root(num)), "1 and 1.0 differ as text");
    hxi_json_doc_free(other);
    hxi_json_doc_free(diff);
    hxi_json_doc_free(num);

    /* A subtree copied into a writer. */
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    hxi_json_write_key(&w, "copy");
    hxi_json_write_val(&w, a);
    hxi_json_write_obj_end(&w);
    CHECK(w.status == 0 && strcmp(w.buf, "{\"copy\":[1,{\"x\":null},\"s\",true,false]}") == 0,
          "subtree: %s", w.buf);
    hxi_json_writer_free(&w);
    hxi_json_doc_free(doc);
}

/* Duplicate detection in large objects (sorted path) reports the first repeat in the text. */
static void test_duplicates(void)
{
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_json_write_obj_begin(&w);
    char key[16];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "k%d", 99 - i);
        hxi_json_write_key(&w, key);
        hxi_json_write_int(&w, i);
    }
    hxi_json_write_obj_end(&w);
    hxi_json_doc *doc = parse_ok(w.buf);
    CHECK(doc && hxi_json_len(hxi_json_doc_root(doc)) == 100, "100 distinct keys");
    hxi_json_doc_free(doc);
    /* Append "k5" then "k50": the first repeat in the text is "k5". */
    size_t at = w.len - 1;
    char text[2048];
    snprintf(text, sizeof text, "%.*s,\"k5\":0,\"k50\":0}", (int)at, w.buf);
    hx_error err = {0};
    CHECK(hxi_json_parse(&doc, text, strlen(text), NULL, &err) == HX_EPARSE &&
              err.offset == (int64_t)at + 1,
          "duplicate at %lld, want %zu: %s", (long long)err.offset, at + 1, err.message);
    hxi_json_writer_free(&w);
}

/* hxi_json_pretty: the layout JavaScript's JSON.stringify(JSON.parse(in), null, indent) gives
 * (each expected string printed by node v20): brackets, commas and colons inside strings untouched. */
static void test_pretty(void)
{
    static const struct {
        const char *in, *indent, *want;
    } cases[] = {
        {"{}", "  ", "{}"},
        {"[]", "  ", "[]"},
        {"1.0", "  ", "1.0"},
        {"{\"a\":[]}", "  ", "{\n  \"a\": []\n}"},
        {"{\"a\":{},\"b\":[1,{\"c\":null}]}", "  ", "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"c\": null\n    }\n  ]\n}"},
        {"{\"k,{[:\":\"v\\\"},]\\\\\"}", "\t", "{\n\t\"k,{[:\": \"v\\\"},]\\\\\"\n}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = 0;
        char *got = hxi_json_pretty(cases[i].in, strlen(cases[i].in), cases[i].indent, &n);
        CHECK(got && n == strlen(got) && !strcmp(got, cases[i].want), "pretty %s: %s", cases[i].in, got ? got : "NULL");
        free(got);
    }
}

int main(void)
{
    test_pretty();
    test_files();
    test_error_offsets();
    test_limits();
    test_numbers();
    test_write_scalars();
    test_escapes();
    test_writer_misuse();
    test_write_json();
    test_dom();
    test_duplicates();
    return check_report("test_json");
}
