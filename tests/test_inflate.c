/* test_inflate.c: src/base/inflate.c against Python's zlib. tests/golden/inflate/ (made by
 * tools/gen_inflate_fixtures.py) holds streams zlib decodes (levels, strategies, windows, empty,
 * stored-only, 1-byte distances) with the length and SHA-256 of zlib's output, and corrupt
 * streams zlib refuses (bad codes, over-subscribed and incomplete trees, distances too far back,
 * truncation, bad Adler-32): each must give the same answer here. Also the output limit, partial
 * output and every cut of a valid stream. */
#include "check.h"

#include "inflate.h"
#include "sha256.h"

#define DIR "tests/golden/inflate/"

static void run_manifest(void)
{
    size_t mlen;
    char *manifest = check_read_file(DIR "manifest.txt", &mlen);
    CHECK(manifest, "cannot read " DIR "manifest.txt");
    if (!manifest)
        return;
    int cases = 0;
    for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64], kind[8], outcome[8], want_hex[65] = "";
        size_t want_len = 0;
        int f = sscanf(line, "%63s %7s %7s %zu %64s", name, kind, outcome, &want_len, want_hex);
        CHECK(f == 3 || f == 5, "manifest line %s", line);
        char path[128];
        snprintf(path, sizeof path, DIR "%s.in", name);
        size_t n;
        char *in = check_read_file(path, &n);
        CHECK(in, "cannot read %s", path);
        if (!in)
            continue;
        uint8_t *out = NULL;
        size_t out_len = 0, used = 0;
        hx_error err = {0};
        int flags = strcmp(kind, "zlib") ? HX_INFLATE_RAW : HX_INFLATE_ZLIB;
        int rc = hxi_inflate(in, n, flags, 1 << 20, 0, &out, &out_len, &used, &err);
        if (!strcmp(outcome, "ok")) {
            char hex[65] = "";
            if (!rc)
                hxi_sha256_hex(out, out_len, hex);
            CHECK(rc == 0, "%s: %s", name, err.message);
            CHECK(!rc && out && out_len == want_len && !strcmp(hex, want_hex), "%s: %zu bytes, want %zu", name,
                  out_len, want_len);
            CHECK(rc || used == n, "%s: used %zu of %zu input bytes", name, used, n);
        } else {
            CHECK(rc < 0 && !out && err.code == rc && err.message[0], "%s: accepted (zlib refuses it)", name);
            CHECK(err.offset >= 0 && (size_t)err.offset <= n, "%s: error offset %lld", name, (long long)err.offset);
        }
        free(out);
        free(in);
        cases++;
    }
    CHECK(cases >= 30, "only %d cases", cases);
    free(manifest);
}

static void limits_and_cuts(void)
{
    size_t n;
    char *in = check_read_file(DIR "text_level6.in", &n);
    CHECK(in, "text_level6.in");
    if (!in)
        return;
    uint8_t *out = NULL;
    size_t len = 0, full = 0;
    hx_error err = {0};
    CHECK(hxi_inflate(in, n, HX_INFLATE_ZLIB, SIZE_MAX, 0, &out, &full, NULL, &err) == 0, "%s", err.message);
    free(out);
    CHECK(hxi_inflate(in, n, HX_INFLATE_ZLIB, full, full, &out, &len, NULL, &err) == 0 && len == full,
          "a limit of exactly the output is enough");
    free(out);
    int rc = hxi_inflate(in, n, HX_INFLATE_ZLIB, full - 1, 0, &out, &len, NULL, &err);
    CHECK(rc == HX_ERANGE && !out && strstr(err.message, "limit"), "one byte over the limit: %d %s", rc, err.message);
    rc = hxi_inflate(in, n, HX_INFLATE_ZLIB | HX_INFLATE_PARTIAL, 1000, 0, &out, &len, NULL, &err);
    CHECK(rc == HX_ERANGE && out && len > 700 && len <= 1000, "partial output up to the limit: %d %zu", rc, len);
    free(out);
    for (size_t cut = 0; cut < n; cut += 1 + cut / 16) {
        out = NULL;
        rc = hxi_inflate(in, cut, HX_INFLATE_ZLIB, SIZE_MAX, 0, &out, &len, NULL, &err);
        CHECK(rc == HX_ETRUNCATED || rc == HX_EFORMAT, "cut at %zu of %zu: %d", cut, n, rc);
        CHECK(!out, "cut at %zu: output without HX_INFLATE_PARTIAL", cut);
    }
    /* A raw stream followed by other bytes: in_used stops at the stream's last byte. */
    char *raw = malloc(n + 5);
    memcpy(raw, in + 2, n - 6);
    memcpy(raw + n - 6, "trail", 5);
    size_t used = 0;
    CHECK(hxi_inflate(raw, n - 1, HX_INFLATE_RAW, SIZE_MAX, 0, &out, &len, &used, &err) == 0 && len == full &&
              used == n - 6,
          "raw stream with trailing bytes: used %zu of %zu", used, n - 6);
    free(out);
    free(raw);
    free(in);
}

int main(void)
{
    CHECK(hxi_adler32(1, "Wikipedia", 9) == 0x11E60398u, "Adler-32 of \"Wikipedia\"");
    CHECK(hxi_adler32(1, "", 0) == 1, "Adler-32 of nothing");
    run_manifest();
    limits_and_cuts();
    return check_report("test_inflate");
}
