/* test_units.c: chunks' unit metadata in the index (doctype.h "units"; chunk_meta.c). A document
 * built by hand through the extraction builder, with units and their pairs, is committed through
 * the writer; then: filters by a unit key return exactly the chunks of that unit (expectations
 * written by hand: unit pairs OR document metadata, filter by filter, all ANDed), results carry
 * the pairs (hx_result.chunk_meta) through a reopen and a compaction, the JSON presenter merges
 * them over the document's metadata (the unit's pair wins), the filter-key list holds the unit
 * keys, an index file written before units opens with none, and damaged unit sections are refused
 * at load. */
#include "check.h"
#include "hyrax.h"
#include "bytes.h"
#include "doctype.h"
#include "hxfile.h"
#include "ix.h"
#include "index_write.h"
#include "present.h"
#include "sha256.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WEIGHTS "weights/" HX_WEIGHTS_FILE

static hx_model *model;
static hx_encoder *enc;

/* One unit: its text and up to three pairs. */
typedef struct {
    const char *text;
    const char *kv[6];
} unit_spec;

/* Queues and commits a stored document `path` of type "text" made of units (the first without a
 * hxi_x_unit call: unit 0) and document pairs doc_kv (key, value, ..., NULL). */
static void add_doc(hx_index *ix, const char *path, const unit_spec *u, size_t n, const char *const *doc_kv)
{
    hxi_extract x;
    hx_error err = {0};
    int rc = hxi_extract_init(&x, 4096, &err);
    for (size_t i = 0; i < n && !rc; i++) {
        if (i)
            rc = hxi_x_unit(&x, &err);
        for (size_t k = 0; !rc && k < 6 && u[i].kv[k]; k += 2)
            rc = hxi_x_unit_meta(&x, u[i].kv[k], u[i].kv[k + 1], strlen(u[i].kv[k + 1]), &err);
        if (!rc)
            rc = hxi_x_text(&x, u[i].text, strlen(u[i].text), &err);
    }
    if (!rc)
        rc = hxi_x_finish(&x, &err);
    CHECK(rc == 0, "build %s: %s", path, err.message);
    hxi_doc_source d = {0};
    d.path = strdup(path);
    d.title = strdup("Units");
    d.dt = hxi_doctype_find("text", 4);
    d.type = d.dt->name;
    hxi_doc_take_extract(&d, &x);
    hxi_extract_clear(&x);
    d.size = d.text_len;
    d.mtime_ns = 1;
    hxi_sha256_hex(d.text, d.text_len, d.sha256);
    for (size_t k = 0; doc_kv && doc_kv[k]; k += 2)
        hxi_doc_meta_add(&d, 0, doc_kv[k], strlen(doc_kv[k]), doc_kv[k + 1], strlen(doc_kv[k + 1]), &err);
    change_set cs = {0};
    ix_verdict vd = {0};
    vd.trust = (hx_doc_trust){"", "", "", HX_VIS_PUBLIC};
    hx_update_report rep = {0};
    CHECK(ix_queue_doc(ix, &cs, &d, &vd, HX_DOC_STORED, NULL, &err) == 0 &&
              ix_commit_changes(ix, &cs, enc, 0, NULL, NULL, &rep, &err) == 0,
          "commit %s: %s", path, err.message);
    ix_change_set_free(&cs);
    hx_update_report_clear(&rep);
}

static const unit_spec code_units[] = {
    {"Module preamble about signatures and chunked transfer.", {NULL}},
    {"def verify_signature(key, msg): checks an ed25519 signature over the message.",
     {"symbol", "verify_signature", "kind", "function", NULL}},
    {"def parse_chunk_size(line): reads the hexadecimal size of an HTTP chunk.",
     {"symbol", "parse_chunk_size", "kind", "function", "lang", "cython"}},
    {"class Verifier: holds the public keys a signature is checked against.",
     {"symbol", "Verifier", "rel_serves", "verify_signature", "rel_serves", "parse_chunk_size"}},
};

/* The chunk bodies a vector search under the filters (command-line forms) returns, sorted by
 * their first letters, joined with '|'. */
static void search(hx_index *ix, const char *const *filters, size_t n, char *out, size_t cap)
{
    hx_filter_set fs = {0};
    hx_error err = {0};
    for (size_t i = 0; i < n; i++)
        CHECK(hx_filter_parse_arg(&fs, filters[i], &err) == 0, "filter %s: %s", filters[i], err.message);
    hx_search_opts o;
    hx_search_opts_default(&o);
    o.mode = HX_MODE_VECTOR;
    o.k = 50;
    o.filters = fs.v;
    o.n_filters = fs.n;
    hx_results r = {0};
    CHECK(hx_index_search(ix, enc, "signature", 9, &o, &r, &err) == 0, "search: %s", err.message);
    const char *got[64];
    size_t m = 0;
    for (size_t i = 0; i < r.n && m < 64; i++)
        got[m++] = r.v[i].text;
    for (size_t i = 1; i < m; i++)   /* insertion sort by body */
        for (size_t j = i; j > 0 && strcmp(got[j - 1], got[j]) > 0; j--) {
            const char *t = got[j];
            got[j] = got[j - 1];
            got[j - 1] = t;
        }
    out[0] = 0;
    for (size_t i = 0; i < m; i++)
        snprintf(out + strlen(out), cap - strlen(out), "%s%.12s", i ? "|" : "", got[i]);
    hx_results_free(&r);
    hx_filter_set_free(&fs);
}

static void check_filters(hx_index *ix, const char *when)
{
    static const struct {
        const char *f[2];
        size_t n;
        const char *want;
    } cases[] = {
        {{"symbol=verify_signature"}, 1, "def verify_s"},
        {{"symbol=Verifier"}, 1, "class Verifi"},
        {{"kind=function"}, 1, "Plain note o|def parse_ch|def verify_s"},   /* b.txt's document pair */
        {{"rel_serves=parse_chunk_size"}, 1, "class Verifi"},                /* a list's second value */
        {{"symbol=verify_signature", "lang=python"}, 2, "def verify_s"},      /* unit AND document */
        {{"symbol=parse_chunk_size", "lang=python"}, 2, "def parse_ch"},      /* by the document, though the unit says cython */
        {{"lang=cython"}, 1, "def parse_ch"},
        {{"lang=python"}, 1, "Module pream|class Verifi|def parse_ch|def verify_s"},
        {{"symbol=verify_signature", "lang=go"}, 2, ""},
        {{"symbol=verify_signature", "path=lib/b.txt"}, 2, ""},
        {{"symbol=nothing"}, 1, ""},
    };
    char got[512];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        search(ix, cases[i].f, cases[i].n, got, sizeof got);
        CHECK(!strcmp(got, cases[i].want), "%s: %s%s%s -> '%s', want '%s'", when, cases[i].f[0],
              cases[i].n > 1 ? " " : "", cases[i].n > 1 ? cases[i].f[1] : "", got, cases[i].want);
    }
    /* the pairs a result carries: chunk 2 of a.txt is parse_chunk_size's unit */
    const hx_doc_info *a = NULL;
    hx_doc_info info;
    for (size_t i = 0; i < hx_index_doc_count(ix); i++)
        if (!hx_index_doc_at(ix, i, &info) && !strcmp(info.path, "lib/a.txt")) {
            a = &info;
            break;
        }
    CHECK(a && a->n_chunks == 4, "%s: a.txt has a chunk per unit", when);
    if (!a)
        return;
    hx_result r;
    hx_error err = {0};
    CHECK(hx_index_chunk(ix, a->first_chunk + 2, &r, &err) == 0 && r.n_chunk_meta == 3 &&
              !strcmp(r.chunk_meta[0].key, "symbol") && !strcmp(r.chunk_meta[0].value, "parse_chunk_size") &&
              !strcmp(r.chunk_meta[2].key, "lang") && !strcmp(r.chunk_meta[2].value, "cython"),
          "%s: chunk pairs of parse_chunk_size: %zu", when, r.n_chunk_meta);
    CHECK(hx_index_chunk(ix, a->first_chunk, &r, &err) == 0 && r.n_chunk_meta == 0 && !r.chunk_meta,
          "%s: unit 0 has no pairs", when);
    hx_filter_set fs = {0};
    CHECK(hx_filter_parse_arg(&fs, "symbol=Verifier", &err) == 0, "parse");
    CHECK(hx_index_doc_matches(ix, a, fs.v, fs.n), "%s: a.txt matches by a chunk", when);
    hx_filter_set_free(&fs);
    const char *keys[8];
    size_t nk = hx_index_unit_keys(ix, keys, 8);
    CHECK(nk == 4 && !strcmp(keys[0], "symbol") && !strcmp(keys[1], "kind") && !strcmp(keys[2], "lang") &&
              !strcmp(keys[3], "rel_serves"), "%s: unit keys (%zu)", when, nk);
}

/* Results' "metadata": the chunk's pairs first, then the document's under other keys. */
static void test_present(void)
{
    hx_kv chunk[] = {{"symbol", "verify"}, {"lang", "cython"}, {"tags", "a"}, {"tags", "b"}};
    hx_kv doc[] = {{"lang", "python"}, {"title", "T"}, {"tags", "z"}, {"author", "x"}, {"author", "y"}};
    hxi_json_writer w;
    hxi_json_writer_init(&w);
    hxi_present_meta_merged(&w, chunk, 4, doc, 5);
    CHECK(w.buf && !strcmp(w.buf, "{\"symbol\":\"verify\",\"lang\":\"cython\",\"tags\":[\"a\",\"b\"],\"title\":\"T\","
                                   "\"author\":[\"x\",\"y\"]}"), "merged: %s", w.buf);
    hxi_json_writer_reset(&w);
    hxi_present_meta_merged(&w, NULL, 0, doc, 2);
    CHECK(w.buf && !strcmp(w.buf, "{\"lang\":\"python\",\"title\":\"T\"}"), "document only: %s", w.buf);
    hxi_json_writer_free(&w);
}

/* A segment image of n chunks with the given unit sections, loaded as view_load.c does. */
static int load_sections(uint32_t n, const uint32_t *off, const char *data, size_t len)
{
    hxf_writer w;
    hx_error err = {0};
    uint32_t le[8];
    for (uint32_t i = 0; i <= n; i++)
        hxf_put32((uint8_t *)&le[i], off[i]);
    const uint32_t d_off[4] = {n + 1, 0, 0, 0};
    hxf_writer_begin(&w, HXF_KIND_SEGMENT);
    hxf_writer_add(&w, "unit_off", HXF_U32, 1, d_off, le, sizeof *le * (n + 1), &err);
    hxf_writer_add(&w, "unit_meta", HXF_RAW, 0, NULL, data, len, &err);
    uint8_t *image;
    size_t image_len;
    if (hxf_writer_finish(&w, &image, &image_len, &err))
        return -1;
    ix_segment s = {0};
    s.n = n;
    int rc = hxf_parse(image, image_len, HXF_KIND_SEGMENT, &s.file, &err);
    if (!rc)
        rc = ix_unit_meta_load(&s, &err);
    size_t m = 0;
    if (!rc)
        ix_chunk_meta(&s, 1, &m);
    ix_unit_meta_free(&s);
    hxf_view_free(&s.file);
    free(image);
    return rc ? rc : (int)m;
}

static void test_damaged(void)
{
    static const char good[] = "k\0v\0k2\0v2\0";
    CHECK(load_sections(2, (const uint32_t[]){0, 4, 10}, good, 10) == 1, "good sections: chunk 1 has one pair");
    CHECK(load_sections(2, (const uint32_t[]){0, 0, 0}, good, 10) == 0, "empty ranges: no pairs");
    CHECK(load_sections(2, (const uint32_t[]){0, 3, 10}, good, 10) == HX_EFORMAT, "a range not ending a pair");
    CHECK(load_sections(2, (const uint32_t[]){0, 2, 10}, good, 10) == HX_EFORMAT, "a key without a value");
    CHECK(load_sections(2, (const uint32_t[]){4, 0, 10}, good, 10) == HX_EFORMAT, "offsets out of order");
    CHECK(load_sections(2, (const uint32_t[]){0, 4, 11}, good, 10) == HX_EFORMAT, "an offset past the data");
    CHECK(load_sections(1, (const uint32_t[]){0, 4}, "\0v\0\0", 4) == HX_EFORMAT, "an empty key");
}

int main(void)
{
    hx_error err = {0};
    if (hx_model_open(&model, WEIGHTS, &err) || hx_encoder_new(&enc, model, 1, &err)) {
        CHECK(0, "model: %s", err.message);
        return check_report("test_units");
    }
    char root[PATH_MAX], db[PATH_MAX + 16], tmpl[] = "/tmp/hxi_units_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(db, sizeof db, "%s.hyx", root);
    hx_index *ix = NULL;
    CHECK(hx_index_open(&ix, db, HX_INDEX_WRITE | HX_INDEX_CREATE, model, root, &err) == 0, "open: %s", err.message);
    if (ix) {
        add_doc(ix, "lib/a.txt", code_units, 4, (const char *const[]){"lang", "python", NULL});
        static const unit_spec plain[] = {{"Plain note on signatures, without units.", {NULL}}};
        add_doc(ix, "lib/b.txt", plain, 1, (const char *const[]){"kind", "function", NULL});
        check_filters(ix, "written");
        hx_index *r = NULL;
        CHECK(hx_index_open(&r, db, HX_INDEX_READ, model, NULL, &err) == 0, "reader: %s", err.message);
        if (r) {
            check_filters(r, "reopened");
            hx_index_close(r);
        }
        CHECK(hx_index_compact(ix, &err) == 0, "compact: %s", err.message);
        check_filters(ix, "compacted");
        CHECK(hx_index_verify(ix, &err) == 0, "verify: %s", err.message);
        hx_index_close(ix);
    }
    /* an index written before units: no pairs, no unit keys */
    char copy[PATH_MAX + 16];
    snprintf(copy, sizeof copy, "%s.v3.hyx", root);
    CHECK(check_copy_file("tests/data/hxdocs03.hyx", copy) == 0, "copy the fixture");
    hx_index *old = NULL;
    CHECK(hx_index_open(&old, copy, HX_INDEX_READ, model, NULL, &err) == 0, "open the fixture: %s", err.message);
    if (old) {
        hx_search_opts o;
        hx_search_opts_default(&o);
        o.mode = HX_MODE_VECTOR;
        hx_results res = {0};
        CHECK(hx_index_search(old, enc, "memory", 6, &o, &res, &err) == 0 && res.n > 0, "search the fixture: %s",
              err.message);
        for (size_t i = 0; i < res.n; i++)
            CHECK(res.v[i].n_chunk_meta == 0 && !res.v[i].chunk_meta, "fixture result %zu has no pairs", i);
        hx_results_free(&res);
        const char *keys[4];
        CHECK(hx_index_unit_keys(old, keys, 4) == 0, "the fixture has no unit keys");
        hx_index_close(old);
    }
    test_present();
    test_damaged();
    unlink(copy);
    unlink(db);
    rmdir(root);
    hx_encoder_free(enc);
    hx_model_close(model);
    return check_report("test_units");
}
