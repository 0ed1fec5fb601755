/* test_zip.c: src/base/zip.c against Python's zipfile. tests/golden/zip/ (made by
 * tools/gen_zip_fixtures.py from zipfile and Info-ZIP's zip) lists each entry as zipfile reads it
 * (size and SHA-256): stored, deflate, data descriptors, ZIP64, a comment, prepended data; and
 * hostile archives hyrax must refuse at open or at read, with a reason naming the problem. Also
 * the limits (entries, names, total size) and every cut of a valid archive. */
#include "check.h"

#include "sha256.h"
#include "zip.h"

#define DIR "tests/golden/zip/"

static void check_line(char *line)
{
    char kind[16], archive[64], entry[128] = "", word[64] = "", hex[65] = "";
    size_t size = 0;
    int f = sscanf(line, "%15s %63s", kind, archive);
    CHECK(f == 2, "manifest line %s", line);
    if (!strcmp(kind, "ok"))
        f = sscanf(line, "%*s %*s %127s %zu %64s", entry, &size, hex) == 3;
    else if (!strcmp(kind, "read_fail"))
        f = sscanf(line, "%*s %*s %127s %63s", entry, word) == 2;
    else
        f = sscanf(line, "%*s %*s %63s", word) == 1;
    CHECK(f, "manifest line %s", line);
    char path[128];
    snprintf(path, sizeof path, DIR "%s", archive);
    size_t n;
    char *data = check_read_file(path, &n);
    CHECK(data, "cannot read %s", path);
    if (!data)
        return;
    hxi_zip z;
    hx_error err = {0};
    int rc = hxi_zip_open(&z, data, n, NULL, &err);
    if (!strcmp(kind, "open_fail")) {
        CHECK(rc < 0 && strstr(err.message, word), "%s: opened (%s), want a refusal with \"%s\"", archive,
              err.message, word);
        free(data);
        return;
    }
    CHECK(rc == 0, "%s: %s", archive, err.message);
    const hxi_zip_entry *e = rc ? NULL : hxi_zip_find(&z, entry);
    CHECK(e, "%s: no entry %s", archive, entry);
    uint8_t *out = NULL;
    size_t len = 0;
    rc = e ? hxi_zip_read(&z, e, &out, &len, &err) : -1;
    if (!strcmp(kind, "ok")) {
        char got[65] = "";
        if (!rc)
            hxi_sha256_hex(out, len, got);
        CHECK(rc == 0 && len == size && !strcmp(got, hex) && out[len] == 0, "%s %s: %s (%zu bytes, want %zu)",
              archive, entry, err.message, len, size);
    } else {
        CHECK(rc < 0 && !out && strstr(err.message, word), "%s %s: read (%s), want a refusal with \"%s\"", archive,
              entry, err.message, word);
    }
    free(out);
    hxi_zip_close(&z);
    free(data);
}

static void limits(void)
{
    size_t n;
    char *data = check_read_file(DIR "mixed.zip", &n);
    CHECK(data, "mixed.zip");
    if (!data)
        return;
    hxi_zip z;
    hx_error err = {0};
    hxi_zip_limits lim = HX_ZIP_LIMITS_DEFAULT;
    lim.max_entries = 3;
    CHECK(hxi_zip_open(&z, data, n, &lim, &err) == HX_ERANGE && strstr(err.message, "entries"), "entry limit: %s",
          err.message);
    lim.max_entries = 4;
    lim.max_name = 10;
    CHECK(hxi_zip_open(&z, data, n, &lim, &err) == HX_ERANGE && strstr(err.message, "name"), "name limit: %s",
          err.message);
    lim.max_name = 1024;
    lim.max_total = 8000;   /* stored.md (6000) fits, deflated.md (3590) then does not */
    CHECK(hxi_zip_open(&z, data, n, &lim, &err) == 0, "%s", err.message);
    uint8_t *out;
    size_t len;
    CHECK(hxi_zip_read(&z, hxi_zip_find(&z, "stored.md"), &out, &len, &err) == 0, "%s", err.message);
    free(out);
    CHECK(hxi_zip_read(&z, hxi_zip_find(&z, "deflated.md"), &out, &len, &err) == HX_ERANGE && !out &&
              strstr(err.message, "in all"),
          "total limit: %s", err.message);
    CHECK(!hxi_zip_find(&z, "../stored.md") && !hxi_zip_find(&z, "STORED.MD"), "names match exactly");
    hxi_zip_close(&z);
    for (size_t cut = 0; cut < n; cut++) {   /* every cut opens cleanly or fails cleanly */
        int rc = hxi_zip_open(&z, data, cut, NULL, &err);
        CHECK(rc == 0 || (rc < 0 && err.message[0]), "cut at %zu", cut);
        for (size_t i = 0; !rc && i < z.count; i++)
            if (!hxi_zip_read(&z, &z.entries[i], &out, &len, &err))
                free(out);
        if (!rc)
            hxi_zip_close(&z);
    }
    free(data);
}

int main(void)
{
    CHECK(hxi_crc32(0, "123456789", 9) == 0xCBF43926u, "CRC-32 check value");
    size_t mlen;
    char *manifest = check_read_file(DIR "manifest.txt", &mlen);
    CHECK(manifest, "cannot read " DIR "manifest.txt");
    int lines = 0;
    char *save = NULL;
    for (char *line = manifest ? strtok_r(manifest, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        check_line(line);
        lines++;
    }
    CHECK(lines >= 25, "only %d manifest lines", lines);
    free(manifest);
    limits();
    return check_report("test_zip");
}
