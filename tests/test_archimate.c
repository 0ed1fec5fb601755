/* test_archimate.c: ArchiMate models (src/formats/archimate.c, README "ArchiMate models"). The
 * Archisurance model (tests/data/archimate, MIT, The Open Group): detected by its root and
 * namespace; one unit per element and nothing for views; every relationship the XML holds, counted
 * here by a plain scan of the file (not the reader), named in the units of both of its ends with
 * the verb of its direction; element questions written by reading the model
 * (tests/data/archimate_queries.txt) answered with the right element first, the share printed per
 * search mode and asserted in hybrid mode; filters by layer and element type; then the 2.1 format,
 * Archi's own files, a 3.1 model with a capability, and malformed input. */
#include "check.h"
#include "hyrax.h"
#include "ingest.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA "tests/data/archimate/"
#define MAX_ELEMENTS 256
#define MAX_RELATIONS 512

static char root[PATH_MAX], proj[PATH_MAX + 16], db[PATH_MAX + 32];

/* === A plain scan of the exchange format === */

typedef struct {
    char id[64], type[64], name[160];
} scan_elem;

typedef struct {
    char source[64], target[64], type[64];
} scan_rel;

/* The value of attribute `name="` in the tag starting at p, into out. */
static void scan_attr(const char *p, const char *name, char *out, size_t cap)
{
    const char *end = strchr(p, '>'), *a = strstr(p, name);
    out[0] = 0;
    if (!a || !end || a > end)
        return;
    a += strlen(name);
    size_t n = strcspn(a, "\"");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), a);
}

/* Text with the five predefined references decoded and white space runs as one space. */
static void plain(const char *s, size_t n, char *out, size_t cap)
{
    static const char *const refs[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&apos;", "'"}, {"&quot;", "\""}};
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap;) {
        bool done = false;
        for (size_t r = 0; r < 5 && !done; r++)
            if (!strncmp(s + i, refs[r][0], strlen(refs[r][0]))) {
                out[o++] = refs[r][1][0];
                i += strlen(refs[r][0]);
                done = true;
            }
        if (done)
            continue;
        if (isspace((unsigned char)s[i])) {
            if (o && out[o - 1] != ' ')
                out[o++] = ' ';
            i++;
            continue;
        }
        out[o++] = s[i++];
    }
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = 0;
}

/* Elements (with their first <name>) and relationships of an exchange format file, by strstr. */
static void scan(const char *xml, scan_elem *el, size_t *n_el, scan_rel *rel, size_t *n_rel)
{
    *n_el = *n_rel = 0;
    const char *elements = strstr(xml, "<elements>"), *end_el = strstr(xml, "</elements>");
    for (const char *p = elements; p && (p = strstr(p, "<element ")) && p < end_el && *n_el < MAX_ELEMENTS; p++) {
        scan_elem *e = &el[(*n_el)++];
        scan_attr(p, "identifier=\"", e->id, sizeof e->id);
        scan_attr(p, "xsi:type=\"", e->type, sizeof e->type);
        const char *close = strstr(p, "</element>"), *nm = strstr(p, "<name");
        e->name[0] = 0;
        if (nm && close && nm < close) {
            nm = strchr(nm, '>') + 1;
            plain(nm, (size_t)(strstr(nm, "</name>") - nm), e->name, sizeof e->name);
        }
    }
    const char *rels = strstr(xml, "<relationships>"), *end_rel = strstr(xml, "</relationships>");
    for (const char *p = rels; p && (p = strstr(p, "<relationship ")) && p < end_rel && *n_rel < MAX_RELATIONS; p++) {
        scan_rel *r = &rel[(*n_rel)++];
        scan_attr(p, "source=\"", r->source, sizeof r->source);
        scan_attr(p, "target=\"", r->target, sizeof r->target);
        scan_attr(p, "xsi:type=\"", r->type, sizeof r->type);
    }
}

static long scan_find(const scan_elem *el, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(el[i].id, id))
            return (long)i;
    return -1;
}

/* ArchiMate's relationship names as a reader says them from the source and from the target
 * (README "ArchiMate models"). */
static const char *verb(const char *type, bool from_source)
{
    static const char *const table[][3] = {
        {"Composition", "is composed of", "composes"}, {"Aggregation", "aggregates", "is aggregated by"},
        {"Assignment", "is assigned to", "has assigned"}, {"Realization", "realizes", "is realized by"},
        {"Serving", "serves", "is served by"}, {"Access", "accesses", "is accessed by"},
        {"Influence", "influences", "is influenced by"}, {"Triggering", "triggers", "is triggered by"},
        {"Flow", "flows to", "receives flow from"}, {"Specialization", "specializes", "is specialized by"},
        {"Association", "is associated with", "is associated with"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (!strcmp(table[i][0], type))
            return table[i][from_source ? 1 : 2];
    return NULL;
}

/* "ApplicationComponent" -> "Application Component". */
static void type_words(const char *t, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; t[i] && o + 2 < cap; i++) {
        if (i && isupper((unsigned char)t[i]) && islower((unsigned char)t[i - 1]))
            out[o++] = ' ';
        out[o++] = t[i];
    }
    out[o] = 0;
}

static size_t count(const char *hay, size_t n, const char *needle)
{
    size_t c = 0, k = strlen(needle);
    for (const char *p = hay; (p = memmem(p, n - (size_t)(p - hay), needle, k)); p += k)
        c++;
    return c;
}

/* === Extraction === */

static int load(const char *path, hxi_doc_source *d, hx_error *err)
{
    size_t len;
    char *bytes = check_read_file(path, &len);
    memset(err, 0, sizeof *err);
    int rc = bytes ? hxi_ingest_from_bytes(path, bytes, len, NULL, 0, d, err) : -1;
    free(bytes);
    return rc;
}

/* The text of the i-th unit's section: from its heading block to the next heading block. */
static const char *section(const hxi_doc_source *d, size_t i, size_t *len)
{
    size_t seen = 0, from = 0;
    for (size_t b = 0; b < d->n_blocks; b++) {
        if (d->blocks[b].kind != HX_BLOCK_HEADING)
            continue;
        if (seen == i + 1) {
            *len = d->blocks[b].start - from;
            return d->text + from;
        }
        if (seen++ == i)
            from = d->blocks[b].start;
    }
    *len = seen == i + 1 ? d->text_len - from : 0;
    return seen == i + 1 ? d->text + from : NULL;
}

static void test_archisurance_units(void)
{
    size_t len;
    char *xml = check_read_file(DATA "archisurance.xml", &len);
    static scan_elem el[MAX_ELEMENTS];
    static scan_rel rel[MAX_RELATIONS];
    size_t n_el = 0, n_rel = 0;
    if (xml)
        scan(xml, el, &n_el, rel, &n_rel);
    free(xml);
    CHECK(n_el == 120 && n_rel == 178, "the plain scan finds 120 elements and 178 relationships: %zu, %zu", n_el, n_rel);

    hxi_doc_source d;
    hx_error err;
    CHECK(load(DATA "archisurance.xml", &d, &err) == 0 && !strcmp(d.type, "archimate"), "archisurance: %s",
          err.message);
    CHECK(!strcmp(d.title, "Archisurance"), "the model's name is the title: %s", d.title);
    size_t headings = 0;
    for (size_t b = 0; b < d.n_blocks; b++)
        headings += d.blocks[b].kind == HX_BLOCK_HEADING;
    CHECK(headings == n_el, "one unit per element, none for views or relationships: %zu", headings);
    CHECK(!strstr(d.text, "id-"), "no raw identifier in the prose");

    size_t named = 0, expected = 0;
    for (size_t i = 0; i < n_el; i++) {
        size_t sl;
        const char *sec = section(&d, i, &sl);
        char head[256], words[96];
        type_words(el[i].type, words, sizeof words);
        snprintf(head, sizeof head, "%s (%s)\n", el[i].name, words);
        CHECK(sec && !strncmp(sec, head, strlen(head)), "unit %zu is %s", i, head);
        if (!sec)
            continue;
        size_t links = 0;
        for (size_t r = 0; r < n_rel; r++) {
            for (int side = 0; side < 2; side++) {
                const char *me = side ? rel[r].target : rel[r].source, *other = side ? rel[r].source : rel[r].target;
                if (strcmp(me, el[i].id))
                    continue;
                long o = scan_find(el, n_el, other);
                const char *v = verb(rel[r].type, side == 0);
                CHECK(o >= 0 && v, "relationship %zu resolves", r);
                if (o < 0 || !v)
                    continue;
                links++;
                char want[512];
                snprintf(want, sizeof want, "It %s %s (", v, el[o].name);
                size_t times = 0;   /* relationships of this verb and other name, from the scan */
                for (size_t q = 0; q < n_rel; q++)
                    for (int s2 = 0; s2 < 2; s2++) {
                        const char *me2 = s2 ? rel[q].target : rel[q].source, *ot2 = s2 ? rel[q].source : rel[q].target;
                        long o2 = scan_find(el, n_el, ot2);
                        times += !strcmp(me2, el[i].id) && o2 >= 0 && !strcmp(el[o2].name, el[o].name) &&
                                 verb(rel[q].type, s2 == 0) == v;
                    }
                expected++;
                bool ok = count(sec, sl, want) == times;
                named += ok;
                CHECK(ok, "%s names '%s' %zu times: %zu", el[i].name, want, times, count(sec, sl, want));
            }
        }
        CHECK(count(sec, sl, ". It ") == links, "%s has %zu relationship sentences: %zu", el[i].name, links,
              count(sec, sl, ". It "));
    }
    printf("archimate: %zu of %zu relationship ends named in their element's unit\n", named, expected);
    CHECK(expected == 2 * n_rel, "every relationship has two element ends: %zu", expected);
    hxi_doc_source_clear(&d);
}

static void test_detection(void)
{
    const char *model = "<?xml version=\"1.0\"?>\n<model xmlns=\"http://example.com/other\"><name>x</name></model>\n";
    const hxi_doctype *t = hxi_doctype_detect("m.xml", (const uint8_t *)model, strlen(model));
    CHECK(!strcmp(t->name, "xml"), "a <model> of another namespace is XML: %s", t->name);
    const char *v30 = "\xEF\xBB\xBF<model xmlns=\"http://www.opengroup.org/xsd/archimate/3.0/\"/>";
    t = hxi_doctype_detect("m.txt", (const uint8_t *)v30, strlen(v30));
    CHECK(!strcmp(t->name, "archimate"), "by content, after a BOM, whatever the name: %s", t->name);
    const char *prefixed = "<a:model xmlns:a=\"http://www.opengroup.org/xsd/archimate\"/>";
    t = hxi_doctype_detect("m.xml", (const uint8_t *)prefixed, strlen(prefixed));
    CHECK(!strcmp(t->name, "archimate"), "a prefixed 2.1 root: %s", t->name);
    const char *wrong_prefix = "<a:model xmlns:b=\"http://www.opengroup.org/xsd/archimate\"/>";
    t = hxi_doctype_detect("m.xml", (const uint8_t *)wrong_prefix, strlen(wrong_prefix));
    CHECK(strcmp(t->name, "archimate"), "the namespace must be the root's own: %s", t->name);
}

/* The 2.1 format: <label> names, property definitions by name, 2.1 type names mapped to 3.1. */
static void test_v21(void)
{
    hxi_doc_source d;
    hx_error err;
    CHECK(load(DATA "v21.xml", &d, &err) == 0 && !strcmp(d.type, "archimate"), "2.1: %s", err.message);
    if (!d.text)
        return;
    CHECK(strstr(d.text, "Order Service is an Application Component in the Application layer. It is served by "
                         "Order Database (Technology Service). It realizes Process Orders (Business Process)."),
          "UsedBy and Realisation read as serving and realization: %s", d.text);
    CHECK(strstr(d.text, "Properties: Owner=Team Red.") && strstr(d.text, "Description: Handles order processing & "
                                                                          "fulfilment."), "properties, documentation");
    CHECK(!strstr(d.text, "Orderdienst"), "the first language's name only");
    bool warned = false;
    for (size_t i = 0; i < d.n_meta; i++)
        warned |= !strcmp(d.meta[i].key, "warning") && strstr(d.meta[i].value, "left out 1 relationship");
    CHECK(warned, "a relationship to an undefined element is left out with a warning");
    hxi_doc_source_clear(&d);
}

/* Archi's own files: elements and relationships in folders, keyed properties, diagrams skipped. */
static void test_archi(void)
{
    hxi_doc_source d;
    hx_error err;
    CHECK(load(DATA "shop.archimate", &d, &err) == 0 && !strcmp(d.type, "archimate"), "Archi: %s", err.message);
    if (!d.text)
        return;
    CHECK(!strcmp(d.title, "Shop") && strstr(d.text, "A small web shop."), "name and purpose: %s", d.title);
    CHECK(strstr(d.text, "Order Service is an Application Component in the Application layer. It serves Storefront "
                         "UI (Application Component). It realizes Commerce (Capability). It accesses Order (Data "
                         "Object) for reading. It belongs to the Commerce capability."), "%s", d.text);
    CHECK(strstr(d.text, "Properties: Owner=Team Blue.") && !strstr(d.text, "Default View"),
          "keyed properties; the diagram is no unit");
    hxi_doc_source_clear(&d);
}

/* 3.1 with a prefixed namespace: capability, access and influence, junction, a relationship as an end. */
static void test_v31(void)
{
    hxi_doc_source d;
    hx_error err;
    CHECK(load(DATA "capability.xml", &d, &err) == 0 && !strcmp(d.type, "archimate"), "3.1: %s", err.message);
    if (!d.text)
        return;
    CHECK(strstr(d.text, "OrderService is an Application Component in the Application layer. It realizes Order "
                         "Management (Capability). It serves StorefrontUI (Application Component). It accesses "
                         "Order Record (Data Object) for reading and writing. It influences Fast Delivery (Goal) "
                         "with strength ++. It is aggregated by Warehouse (Location). It belongs to the Order "
                         "Management capability."), "%s", d.text);
    CHECK(strstr(d.text, "Properties: Owner=Team Red, Criticality=Tier 1.\n\nDescription: Handles order "
                         "processing and fulfillment."), "properties by definition name, then the documentation");
    CHECK(strstr(d.text, "Replatforming is a Work Package in the Implementation and Migration layer. It is "
                         "associated with the Serving relationship from OrderService (Application Component) to "
                         "StorefrontUI (Application Component)."), "a relationship as the other end");
    CHECK(strstr(d.text, "It triggers an unnamed Or Junction.") && strstr(d.text, "Warehouse is a Location. "),
          "unnamed elements; no layer for a location");
    CHECK(strstr(d.text, "StorefrontUI is an Application Component") && strstr(d.text, "It composes Order "
                                                                                       "Management (Capability). It belongs to the Order Management capability."),
          "a part of a capability belongs to it");
    hxi_doc_source_clear(&d);
}

static void test_malformed(void)
{
    size_t len;
    char *xml = check_read_file(DATA "archisurance.xml", &len);
    if (!xml)
        return;
    hxi_doc_source d;
    hx_error err = {0};
    int rc = hxi_ingest_from_bytes("cut.xml", xml, len / 2, NULL, 0, &d, &err);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "not well-formed"), "a cut model is refused: %d %s", rc,
          err.message);
    free(xml);
}

/* === Search === */

static hx_session *open_session(void)
{
    hx_session_config c = {.db = db, .root = proj, .no_user_tier = true, .registry = "", .threads = 1};
    hx_session *s = NULL;
    hx_error err = {0};
    CHECK(hx_session_open(&s, &c, &err) == 0, "open: %s", err.message);
    return s;
}

/* The share of the questions whose first result is the expected element's unit, in one mode. */
static double answered(hx_session *s, hx_search_mode mode, const char *mode_name)
{
    size_t len, asked = 0, right = 0;
    char *list = check_read_file("tests/data/archimate_queries.txt", &len);
    for (char *line = list ? strtok(list, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char *name = strchr(line, '|'), *type = name ? strchr(name + 1, '|') : NULL;
        if (!type)
            continue;
        *name = *type = 0;
        char question[256], want[320], words[96], tname[96];
        plain(line, strlen(line), question, sizeof question);
        plain(type + 1, strlen(type + 1), tname, sizeof tname);
        type_words(tname, words, sizeof words);
        char ename[160];
        plain(name + 1, strlen(name + 1), ename, sizeof ename);
        snprintf(want, sizeof want, "%s (%s)", ename, words);
        hx_session_query q;
        hx_session_query_init(&q, question);
        q.opts.mode = mode;
        q.opts.min_score = 0;
        q.opts.k = 5;
        q.opts.group = HX_GROUP_CHUNK;
        hx_session_answer a;
        hx_error err = {0};
        CHECK(hx_session_search(s, &q, &a, &err) == 0, "search %s: %s", question, err.message);
        bool ok = a.results.n && !strcmp(a.results.v[0].heading, want);
        if (!ok)
            printf("archimate %s: '%s' wants %s, first %s\n", mode_name, question, want,
                   a.results.n ? a.results.v[0].heading : "(none)");
        right += ok;
        asked++;
        hx_session_answer_free(&a);
    }
    free(list);
    CHECK(asked == 20, "20 questions: %zu", asked);
    double share = asked ? (double)right / (double)asked : 0;
    printf("archimate: %s mode answers %zu of %zu element questions with the right element first (%.0f %%)\n",
           mode_name, right, asked, 100 * share);
    return share;
}

static void test_search(void)
{
    size_t len;
    char *xml = check_read_file(DATA "archisurance.xml", &len);
    if (!xml || check_put_bytes(proj, "archisurance.xml", xml, len)) {
        free(xml);
        return;
    }
    free(xml);
    hx_session *s = open_session();
    if (!s)
        return;
    hx_session_write w;
    hx_error err = {0};
    CHECK(hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == 0 && w.report.added == 1,
          "index the model: %s", err.message);
    hx_session_write_clear(&w);
    answered(s, HX_MODE_KEYWORD, "keyword");
    answered(s, HX_MODE_VECTOR, "vector");
    CHECK(answered(s, HX_MODE_HYBRID, "hybrid") >= 0.9, "hybrid mode answers at least 90 %%");
    hx_session_close(s);
}

int main(void)
{
    char tmpl[] = "/tmp/hxi_archimate_XXXXXX";
    CHECK(mkdtemp(tmpl) && realpath(tmpl, root), "temp folder");
    snprintf(proj, sizeof proj, "%s/proj", root);
    snprintf(db, sizeof db, "%s/proj.hyx", root);
    CHECK(mkdir(proj, 0755) == 0, "folders");
    test_detection();
    test_archisurance_units();
    test_v21();
    test_archi();
    test_v31();
    test_malformed();
    test_search();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return check_report("archimate");
}
