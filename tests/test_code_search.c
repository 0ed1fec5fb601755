/* test_code_search.c: code search by what a function does, on hyrax's own sources. Copies the
 * src/ files that tests/data/code_queries.txt names into a folder, indexes it with $HYRAX_BIN
 * (the code row: one chunk per definition), runs each src/ query as a hybrid search of chunks and
 * checks that the expected definition (its path and `symbol`) is in the top 3 for at least 80 %
 * of them. The queries and their answers were written by reading the code, not from hyrax's
 * output; bench/code_search.py runs the whole set on all of src/ and CPython's Lib/. */
#include "check.h"
#include "json.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#define QUERIES "tests/data/code_queries.txt"
#define MAX_Q 64

typedef struct {
    char query[256], file[128], name[96];
} query;

static size_t load(query *q)
{
    FILE *f = fopen(QUERIES, "r");
    CHECK(f != NULL, QUERIES);
    size_t n = 0;
    char line[512];
    while (f && n < MAX_Q && fgets(line, sizeof line, f))
        if (line[0] != '#' && sscanf(line, "%255[^\t]\t%127[^:]:%95[^\n]", q[n].query, q[n].file, q[n].name) == 3 &&
            !strncmp(q[n].file, "src/", 4))
            n++;
    if (f)
        fclose(f);
    return n;
}

/* Runs cmd and returns its standard output (caller frees), NULL when it fails. */
static char *output(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0, k;
    char *buf = malloc(cap);
    while (buf && (k = fread(buf + len, 1, cap - len - 1, p)) > 0)
        if ((len += k) + 1 >= cap && !(buf = realloc(buf, cap *= 2)))
            break;
    if (pclose(p) != 0 || !buf) {
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

/* Whether one of the first three results is q's definition. */
static bool found(const query *q, const char *json)
{
    hxi_json_doc *doc = NULL;
    hx_error err = {0};
    if (hxi_json_parse(&doc, json, strlen(json), NULL, &err))
        return false;
    const hxi_json_val *results = hxi_json_obj_get(hxi_json_doc_root(doc), "results");
    bool hit = false;
    for (size_t i = 0; i < 3 && !hit; i++) {
        const hxi_json_val *r = hxi_json_arr_get(results, i);
        size_t pl = 0, sl = 0;
        const char *path = hxi_json_str(hxi_json_obj_get(r, "path"), &pl);
        const char *sym = hxi_json_str(hxi_json_obj_get(hxi_json_obj_get(r, "metadata"), "symbol"), &sl);
        hit = path && sym && pl == strlen(q->file) && !memcmp(path, q->file, pl) && sl == strlen(q->name) &&
              !memcmp(sym, q->name, sl);
    }
    hxi_json_doc_free(doc);
    return hit;
}

int main(void)
{
    static query q[MAX_Q];
    size_t n = load(q);
    CHECK(n >= 15, "%zu src/ queries", n);
    char dir[] = "/tmp/hx_code_search_XXXXXX", cmd[1024], bin[PATH_MAX];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    CHECK(realpath(getenv("HYRAX_BIN"), bin) != NULL, "HYRAX_BIN resolves");   /* the commands run in dir */
    setenv("HYRAX_BIN", bin, 1);
    for (size_t i = 0; i < n; i++) {
        snprintf(cmd, sizeof cmd, "mkdir -p %s/$(dirname %s) && cp %s %s/%s", dir, q[i].file, q[i].file, dir, q[i].file);
        CHECK(system(cmd) == 0, "%s", cmd);
    }
    snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" index --db idx.hyx . >/dev/null 2>&1", dir);
    CHECK(system(cmd) == 0, "index the sources");
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(cmd, sizeof cmd, "cd %s && \"$HYRAX_BIN\" search --db idx.hyx --json --group chunk -k 3 -- '%s'", dir,
                 q[i].query);
        char *json = output(cmd);
        bool ok = json && found(&q[i], json);
        hits += ok;
        if (!ok)
            fprintf(stderr, "  not in the top 3: '%s' -> %s:%s\n", q[i].query, q[i].file, q[i].name);
        free(json);
    }
    printf("  code search: %zu of %zu src/ queries find their definition in the top 3\n", hits, n);
    CHECK(hits * 100 >= n * 80, "%zu of %zu queries in the top 3 (target 80 %%)", hits, n);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "clean up");
    return check_report("test_code_search");
}
