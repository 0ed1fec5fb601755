/* test_archimate.c: ArchiMate models (src/formats/archimate.c, `hyrax help formats`). The
 * Archisurance model (tests/data/archimate, MIT, The Open Group): detected by its root and
 * namespace; one unit per element and nothing for views; every relationship the XML holds, counted
 * here by a plain scan of the file (not the reader), named in the units of both of its ends with
 * the verb of its direction; element questions written by reading the model
 * (tests/data/archimate_queries.txt, and the held-out archimate_heldout.txt) answered with the right
 * element first and in the first 3, the shares printed per
 * search mode and asserted in hybrid mode; filters by layer and element type; then the 2.1 format,
 * Archi's own files, a 3.1 model with a capability, and malformed input. */
#include "check.h"
#include "hyrax.h"
#include "ingest.h"
#include "serve_client.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
 * (`hyrax help formats`). */
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

static size_t count(const char *hay, size_t n, const char *needle)
{
    size_t c = 0, k = strlen(needle);
    for (const char *p = hay; (p = memmem(p, n - (size_t)(p - hay), needle, k)); p += k)
        c++;
    return c;
}

/* Sentences of hay[0..n) that start with `start` and go on with the end of a name: ".", ",", " for
 * " (an access's kind) or " with " (an influence's strength). */
static size_t sentences(const char *hay, size_t n, const char *start)
{
    size_t c = 0, k = strlen(start);
    for (const char *p = hay; (p = memmem(p, n - (size_t)(p - hay), start, k)); p += k) {
        const char *e = p + k;
        c += *e == '.' || *e == ',' || !strncmp(e, " for ", 5) || !strncmp(e, " with ", 6);
    }
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

/* The text of unit u (its blocks, from the first's start to the last's end), or with last_part only
 * the blocks under the last heading it has (an element's relationships part, a chunk of its own),
 * into *len. */
static const char *unit_part(const hxi_doc_source *d, size_t u, bool last_part, size_t *len)
{
    uint32_t last = UINT32_MAX;
    for (size_t b = 0; last_part && b < d->n_blocks; b++)
        last = d->blocks[b].unit == u ? d->blocks[b].heading : last;
    const char *from = NULL;
    *len = 0;
    for (size_t b = 0; b < d->n_blocks; b++) {
        if (d->blocks[b].unit != u || (last_part && d->blocks[b].heading != last))
            continue;
        from = from ? from : d->text + d->blocks[b].start;
        *len = (size_t)(d->text + d->blocks[b].end - from);
    }
    return from;
}

/* "BusinessRole" -> "business role". */
static void type_lower(const char *t, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = t; *p && n + 2 < cap; p++) {
        if (p > t && *p >= 'A' && *p <= 'Z' && p[-1] >= 'a' && p[-1] <= 'z')
            out[n++] = ' ';
        out[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    }
    out[n] = 0;
}

static const char *unit_meta(const hxi_doc_source *d, size_t u, const char *key)
{
    for (size_t i = 0; u < d->n_units && i < d->units[u].n_meta; i++)
        if (!strcmp(d->units[u].meta[i].key, key))
            return d->units[u].meta[i].value;
    return NULL;
}

/* The layers of the types Archisurance uses, as ArchiMate 3.1 places them. */
static const char *layer_of(const char *type)
{
    static const char *const motivation[] = {"Principle", "Value", "Goal", "Driver", NULL};
    static const char *const technology[] = {"Device", "Node", "SystemSoftware", "CommunicationNetwork",
                                             "TechnologyService", NULL};
    for (size_t i = 0; motivation[i]; i++)
        if (!strcmp(type, motivation[i]))
            return "motivation";
    for (size_t i = 0; technology[i]; i++)
        if (!strcmp(type, technology[i]))
            return "technology";
    if (!strncmp(type, "Application", 11) || !strcmp(type, "DataObject"))
        return "application";
    return !strncmp(type, "Business", 8) || !strcmp(type, "Contract") || !strcmp(type, "Representation")
               ? "business" : "?";
}

/* An element renamed changes its own version_id and its neighbours' (whose units name it), no other. */
static void test_versions(void)
{
    size_t len;
    char *xml = check_read_file(DATA "archisurance.xml", &len);
    static scan_elem el[MAX_ELEMENTS];
    static scan_rel rel[MAX_RELATIONS];
    size_t n_el = 0, n_rel = 0;
    if (!xml)
        return;
    scan(xml, el, &n_el, rel, &n_rel);
    hxi_doc_source a, b;
    hx_error err = {0};
    CHECK(hxi_ingest_from_bytes("a.xml", xml, len, NULL, 0, &a, &err) == 0, "before: %s", err.message);
    char *at = strstr(xml, ">Bank System</name>");   /* id-1813's name */
    CHECK(at != NULL, "Bank System's name");
    if (at)
        memcpy(at + 1, "Bank Gatewy", 11);
    CHECK(hxi_ingest_from_bytes("b.xml", xml, len, NULL, 0, &b, &err) == 0, "after: %s", err.message);
    long bank = scan_find(el, n_el, "id-1813");
    size_t changed = 0, expected_changed = 0;
    for (size_t i = 0; bank >= 0 && i < n_el; i++) {
        bool near = i == (size_t)bank;
        for (size_t r = 0; r < n_rel; r++)
            near |= (!strcmp(rel[r].source, el[i].id) && !strcmp(rel[r].target, "id-1813")) ||
                    (!strcmp(rel[r].target, el[i].id) && !strcmp(rel[r].source, "id-1813"));
        const char *va = unit_meta(&a, i + 1, "version_id"), *vb = unit_meta(&b, i + 1, "version_id");
        bool differs = !va || !vb || strcmp(va, vb);
        CHECK(differs == near, "%s's version_id %s", el[i].name, near ? "changes" : "stays");
        changed += differs;
        expected_changed += near;
    }
    CHECK(expected_changed == 3 && changed == 3, "Bank System and its two neighbours change: %zu", changed);
    hxi_doc_source_clear(&a);
    hxi_doc_source_clear(&b);
    free(xml);
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
    CHECK(d.n_units == n_el + 1, "one unit per element after the model's, none for views or relationships: %zu",
          d.n_units);
    CHECK(!strstr(d.text, "id-"), "no raw identifier in the prose");

    size_t named = 0, expected = 0;
    for (size_t i = 0; i < n_el; i++) {
        size_t sl;
        const char *sec = unit_part(&d, i + 1, false, &sl), *id = unit_meta(&d, i + 1, "element_id");
        const char *name = unit_meta(&d, i + 1, "element_name"), *type = unit_meta(&d, i + 1, "element_type");
        CHECK(sec && id && !strcmp(id, el[i].id) && name && !strcmp(name, el[i].name) && type &&
              !strcmp(type, el[i].type), "unit %zu is %s %s", i + 1, el[i].id, el[i].name);
        if (!sec)
            continue;
        char heading[160];   /* "Business layer > Business Process": its layer and its type, not its name */
        const char *lay = layer_of(el[i].type);
        size_t hn = (size_t)snprintf(heading, sizeof heading, "%c%s layer > ", lay[0] - 32, lay + 1);
        for (const char *t = el[i].type; *t && hn + 2 < sizeof heading; t++) {
            if (t > el[i].type && *t >= 'A' && *t <= 'Z' && t[-1] >= 'a' && t[-1] <= 'z')
                heading[hn++] = ' ';
            heading[hn++] = *t;
        }
        heading[hn] = 0;
        for (size_t b = 0; b < d.n_blocks; b++)
            if (d.blocks[b].unit == i + 1) {
                CHECK(!strcmp(d.headings[d.blocks[b].heading], heading), "%s's heading is '%s': '%s'", el[i].name,
                      heading, d.headings[d.blocks[b].heading]);
                break;
            }
        size_t links = 0, pl;
        const char *part = unit_part(&d, i + 1, true, &pl);   /* every relationship in one part, one chunk */
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
                char want[512], words[96];
                type_lower(el[o].type, words, sizeof words);
                snprintf(want, sizeof want, "It %s the %s %s", v, el[o].name, words);
                size_t times = 0;   /* relationships of this verb and other name, from the scan */
                for (size_t q = 0; q < n_rel; q++)
                    for (int s2 = 0; s2 < 2; s2++) {
                        const char *me2 = s2 ? rel[q].target : rel[q].source, *ot2 = s2 ? rel[q].source : rel[q].target;
                        long o2 = scan_find(el, n_el, ot2);
                        times += !strcmp(me2, el[i].id) && o2 >= 0 && !strcmp(el[o2].name, el[o].name) &&
                                 verb(rel[q].type, s2 == 0) == v;
                    }
                expected++;
                bool ok = sentences(part, pl, want) == times;
                named += ok;
                CHECK(ok, "%s names '%s' %zu times: %zu", el[i].name, want, times, sentences(part, pl, want));
            }
        }
        CHECK(count(sec, sl, ". It ") == links && (!links || count(part, pl, ". It ") == links),
              "%s has %zu relationship sentences, all in its relationships part: %zu", el[i].name, links,
              count(sec, sl, ". It "));
        CHECK(!strncmp(sec, el[i].name, strlen(el[i].name)) && (!links || !strncmp(part, "A ", 2) || !strncmp(part, "An ", 3)),
              "%s's unit opens with its name, its relationships part with its kind: %.40s", el[i].name, part);
        size_t rels = 0;
        for (size_t k = 0; k < d.units[i + 1].n_meta; k++)
            rels += !strncmp(d.units[i + 1].meta[k].key, "rel_", 4);
        const char *item = unit_meta(&d, i + 1, "item_id"), *layer = unit_meta(&d, i + 1, "layer");
        const char *version = unit_meta(&d, i + 1, "version_id");
        CHECK(rels == links && item && !strcmp(item, el[i].id) && layer && !strcmp(layer, layer_of(el[i].type)) &&
              version && strlen(version) == 16 && strspn(version, "0123456789abcdef") == 16,
              "%s: %zu rel_ pairs, item_id, layer %s, version_id", el[i].name, rels, layer ? layer : "-");
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
    CHECK(strstr(d.text, "Order Service is an Application Component in the Application layer.") &&
              strstr(d.text, "An Application Component in the Application layer. It is served by the Order Database "
                             "technology service. It realizes the Process Orders business process."),
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
    CHECK(strstr(d.text, "An Application Component in the Application layer. It serves the Storefront UI application "
                         "component. It realizes the Commerce capability. It accesses the Order data object for "
                         "reading. It belongs to the Commerce capability."), "%s", d.text);
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
    CHECK(strstr(d.text, "An Application Component in the Application layer. It realizes the Order Management "
                         "capability. It serves the StorefrontUI application component. It accesses the Order Record "
                         "data object for reading and writing. It influences the Fast Delivery goal with strength ++. "
                         "It is aggregated by the Warehouse location. It belongs to the Order Management capability."),
          "%s", d.text);
    CHECK(strstr(d.text, "OrderService is an Application Component in the Application layer.\n\nProperties: "
                         "Owner=Team Red, Criticality=Tier 1.\n\nDescription: Handles order processing and "
                         "fulfillment."), "properties by definition name, then the documentation");
    CHECK(strstr(d.text, "A Work Package in the Implementation and Migration layer. It is associated with the Serving "
                         "relationship from OrderService to StorefrontUI."), "a relationship as the other end");
    CHECK(strstr(d.text, "It triggers an unnamed Or Junction.") && strstr(d.text, "It is an Or Junction.") &&
              strstr(d.text, "Warehouse is a Location.\n\nA Location. "),
          "unnamed elements; no layer for a location");
    CHECK(strstr(d.text, "StorefrontUI is an Application Component") && strstr(d.text, "It composes the Order "
                                                                                       "Management capability. It belongs to the Order Management capability."),
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
    const char *other = "<catalog><book/></catalog>\n";   /* no XML declaration: typed by its name */
    rc = hxi_ingest_from_bytes("books.archimate", other, strlen(other), NULL, 0, &d, &err);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "not an ArchiMate model"), "a .archimate of another XML: %s",
          err.message);
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

static const char *result_meta(const hx_result *r, const char *key)
{
    for (size_t i = 0; i < r->n_chunk_meta; i++)
        if (!strcmp(r->chunk_meta[i].key, key))
            return r->chunk_meta[i].value;
    return NULL;
}

/* The share of the questions of file `set` (question | name | type | relationships) whose first
 * result is the expected element's unit, in one mode; *in3 the share with it in the first 3. */
static double answered(hx_session *s, const char *set, size_t want, hx_search_mode mode, const char *mode_name,
                       double *in3)
{
    size_t len, asked = 0, right = 0, top3 = 0, names = 0;
    char *list = check_read_file(set, &len);
    for (char *line = list ? strtok(list, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char *name = strchr(line, '|'), *type = name ? strchr(name + 1, '|') : NULL;
        char *why = type ? strchr(type + 1, '|') : NULL;
        if (!why)
            continue;
        *name = *type = *why = 0;
        char question[256], tname[96], ename[160];
        plain(line, strlen(line), question, sizeof question);
        plain(type + 1, strlen(type + 1), tname, sizeof tname);
        plain(name + 1, strlen(name + 1), ename, sizeof ename);
        hx_session_query q;
        hx_session_query_init(&q, question);
        q.opts.mode = mode;
        q.opts.min_score = 0;
        q.opts.k = 5;
        q.opts.group = HX_GROUP_CHUNK;
        hx_session_answer a;
        hx_error err = {0};
        CHECK(hx_session_search(s, &q, &a, &err) == 0, "search %s: %s", question, err.message);
        for (size_t i = 0; i < a.results.n && i < 3; i++) {
            const char *n3 = result_meta(&a.results.v[i], "element_name"), *t3 = result_meta(&a.results.v[i], "element_type");
            if (n3 && t3 && !strcmp(n3, ename) && !strcmp(t3, tname)) {
                top3++;
                break;
            }
        }
        const char *got = a.results.n ? result_meta(&a.results.v[0], "element_name") : NULL;
        const char *got_type = a.results.n ? result_meta(&a.results.v[0], "element_type") : NULL;
        bool ok = got && got_type && !strcmp(got, ename) && !strcmp(got_type, tname);
        if (ok || (a.results.n && memmem(a.results.v[0].text, a.results.v[0].text_len, ename, strlen(ename))))
            names++;   /* the first chunk is the answer's or names it ("It is realized by the BIBIT Server ...") */
        if (!ok)
            printf("archimate %s %s: '%s' wants %s (%s), first %s (%s)\n", set + 11, mode_name, question, ename, tname,
                   got ? got : "-", got_type ? got_type : "-");
        right += ok;
        asked++;
        hx_session_answer_free(&a);
    }
    free(list);
    CHECK(asked == want, "%zu questions in %s: %zu", want, set, asked);
    double share = asked ? (double)right / (double)asked : 0;
    *in3 = asked ? (double)top3 / (double)asked : 0;
    printf("archimate: %s: %s mode answers %zu of %zu element questions with the right element first (%.0f %%), "
           "in the first 3 %zu, named by the first chunk %zu\n", set + 11, mode_name, right, asked, 100 * share, top3,
           names);
    return share;
}

/* A search filtered by `filter` answers only chunks whose unit has key = value, and some. */
static void filtered(hx_session *s, const char *filter, const char *key, const char *value)
{
    hx_filter_set fs = {0};
    hx_error err = {0};
    CHECK(hx_filter_parse_arg(&fs, filter, &err) == 0, "%s: %s", filter, err.message);
    hx_session_query q;
    hx_session_query_init(&q, "claim data insurance customer");
    q.opts.min_score = 0;
    q.opts.k = 50;
    q.opts.group = HX_GROUP_CHUNK;
    q.opts.filters = fs.v;
    q.opts.n_filters = fs.n;
    hx_session_answer a;
    CHECK(hx_session_search(s, &q, &a, &err) == 0, "search with %s: %s", filter, err.message);
    size_t right = 0;
    for (size_t i = 0; i < a.results.n; i++) {
        const char *v = result_meta(&a.results.v[i], key);
        right += v && !strcmp(v, value);
    }
    CHECK(a.results.n > 0 && right == a.results.n, "%s: %zu of %zu results", filter, right, a.results.n);
    hx_session_answer_free(&a);
    hx_filter_set_free(&fs);
}

/* get_context follows the first passage's relationships: BIBIT Server realizes Bank System and is
 * associated with LAN (the XML's relationships id-1892 and id-dd9c00de). */
static void related_context(hx_session *s)
{
    hx_context_query q;
    hx_context_query_init(&q, "BIBIT Server device");
    q.search.opts.mode = HX_MODE_KEYWORD;
    q.search.opts.min_score = 0;
    q.max_passages = 1;
    q.neighbours = false;
    hx_context c;
    hx_error err = {0};
    CHECK(hx_session_context(s, &q, &c, &err) == 0 && c.n_sources == 3, "BIBIT Server and two related: %s %zu",
          err.message, c.n_sources);
    if (c.n_sources == 3) {
        const char *first = result_meta(c.sources[0].first, "element_name");
        const char *one = result_meta(c.sources[1].first, "element_name");
        const char *two = result_meta(c.sources[2].first, "element_name");
        CHECK(first && !strcmp(first, "BIBIT Server") && !c.sources[0].relation, "the passage found: %s",
              first ? first : "-");
        CHECK(one && !strcmp(one, "Bank System") && c.sources[1].relation &&
              !strcmp(c.sources[1].relation, "realizes") && c.sources[1].related_to == 1 &&
              c.sources[1].label == 2, "realizes: %s", one ? one : "-");
        CHECK(two && !strcmp(two, "LAN") && c.sources[2].relation &&
              !strcmp(c.sources[2].relation, "is associated with") && c.sources[2].related_to == 1,
              "is associated with: %s", two ? two : "-");
        CHECK(strstr(c.text, "\n[2] realizes [1]: archisurance.xml (lines ") &&
              strstr(c.text, "Bank System is an Application Component") && c.tokens <= c.max_tokens,
              "labelled in the text: %s", c.text);
    }
    hx_context_free(&c);
    q.relationships = false;
    CHECK(hx_session_context(s, &q, &c, &err) == 0 && c.n_sources == 1, "without relationships: %zu", c.n_sources);
    hx_context_free(&c);
    q.neighbours = true;   /* the elements before and after are other units: no neighbours of its section */
    CHECK(hx_session_context(s, &q, &c, &err) == 0 && c.n_sources == 1 && c.sources[0].n_chunks == 1,
          "neighbours stay within the element: %zu chunks", c.n_sources ? c.sources[0].n_chunks : 0);
    hx_context_free(&c);
    q.neighbours = false;
    q.relationships = true;
    q.max_tokens = HX_CONTEXT_TOKENS_MIN;
    CHECK(hx_session_context(s, &q, &c, &err) == 0 && c.tokens <= HX_CONTEXT_TOKENS_MIN && c.dropped > 0,
          "within a small budget: %zu tokens, %zu dropped", c.tokens, c.dropped);
    hx_context_free(&c);
}

/* The model edited (Bank System renamed): only the units whose text changed are embedded again, its
 * own and its two neighbours' (the plain scan's count, test_versions); the others' vectors are reused. */
static void reembedded(hx_session *s)
{
    size_t len;
    char *xml = check_read_file(DATA "archisurance.xml", &len), *at = xml ? strstr(xml, ">Bank System</name>") : NULL;
    if (!at) {
        free(xml);
        return;
    }
    memcpy(at + 1, "Bank Gatewy", 11);
    check_put_bytes(proj, "archisurance.xml", xml, len);
    free(xml);
    hx_session_doc doc;
    hx_error err = {0};
    CHECK(hx_session_get(s, -1, "archisurance.xml", NULL, false, &doc, &err) == 0 && doc.info.n_chunks == 224,
          "the model's chunk, one per element and one per element's relationships (103 of the 120 have some): %u",
          doc.info.n_chunks);
    hx_session_doc_free(&doc);
    hx_session_write w;
    CHECK(hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == 0 && w.report.updated == 1 &&
          w.report.chunks_embedded == 3 && w.report.chunks_reused == w.report.chunks_added - 3,
          "3 chunks embedded again: %zu of %zu (%zu reused)", w.report.chunks_embedded, w.report.chunks_added,
          w.report.chunks_reused);
    printf("archimate: the edited model embeds %zu of its %zu chunks again, reuses %zu\n", w.report.chunks_embedded,
           w.report.chunks_added, w.report.chunks_reused);
    hx_session_write_clear(&w);
}

/* The same through MCP: get_context's sources say how an added item is related; a search filtered by
 * layer answers only that layer's elements, with their metadata. */
static void over_mcp(void)
{
    server srv;
    if (start_in(&srv, proj, db, 1)) {
        CHECK(0, "serve");
        return;
    }
    hxi_json_doc *d = NULL;
    send_line(&srv, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    free(read_line(&srv, 60000));
    send_line(&srv, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    const hxi_json_val *r = serve_tool(&srv, &d, "get_context", "{\"query\":\"BIBIT Server device\",\"mode\":\"keyword\","
                                                               "\"max_passages\":1,\"min_score\":0}");
    const hxi_json_val *src = hxi_json_arr_get(get(r, "structuredContent.sources"), 1);
    const char *how = hxi_json_str(get(src, "relationship"), NULL);
    int64_t to = 0;
    CHECK(how && !strcmp(how, "realizes") && !hxi_json_num_int64(get(src, "related_to"), &to, NULL) && to == 1,
          "get_context's second source realizes the first: %s", how ? how : "-");
    hxi_json_doc_free(d);
    r = serve_tool(&srv, &d, "search", "{\"query\":\"claim\",\"filters\":{\"layer\":\"application\"},"
                                       "\"group_by\":\"chunk\",\"min_score\":0}");
    size_t n = 0, right = 0, cited = 0;
    for (const hxi_json_val *v; (v = hxi_json_arr_get(get(r, "structuredContent.results"), n)); n++) {
        const char *layer = hxi_json_str(get(v, "metadata.layer"), NULL);
        const char *id = hxi_json_str(get(v, "citation.item_id"), NULL), *ver = hxi_json_str(get(v, "citation.version_id"), NULL);
        const char *meta_id = hxi_json_str(get(v, "metadata.element_id"), NULL);
        const char *meta_ver = hxi_json_str(get(v, "metadata.version_id"), NULL);
        right += layer && !strcmp(layer, "application");
        cited += id && ver && meta_id && meta_ver && !strcmp(id, meta_id) && !strcmp(ver, meta_ver);
    }
    CHECK(n > 0 && right == n, "MCP search by layer: %zu of %zu application", right, n);
    CHECK(cited == n, "each citation names the element and its version_id: %zu of %zu", cited, n);
    hxi_json_doc_free(d);
    close(srv.in);
    waitpid(srv.pid, NULL, 0);
    close(srv.out);
    free(srv.buf);
}

/* Items of other documents: a document's own item_id, named by another document's rel_ pair. */
static void test_document_items(void)
{
    char dir[PATH_MAX + 16], dbk[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/kiwi", root);
    snprintf(dbk, sizeof dbk, "%s/kiwi.hyx", root);
    CHECK(mkdir(dir, 0755) == 0, "kiwi folder");
    check_put(dir, "deploy.md", "---\nitem_id: deploy_app\n---\n# Deploy\n\nShips the application to the servers.\n");
    check_put(dir, "release.md", "---\nitem_id: release\nrel_requires: deploy_app\n---\n# Release\n\n"
                                 "Tags a version of the zebra service and publishes its notes.\n");
    hx_session_config cfg = {.db = dbk, .root = dir, .no_user_tier = true, .registry = "", .threads = 1};
    hx_session *s = NULL;
    hx_error err = {0};
    hx_session_write w;
    CHECK(hx_session_open(&s, &cfg, &err) == 0 && hx_session_reindex(s, &(hx_reindex_opts){0}, NULL, &w, &err) == 0,
          "index: %s", err.message);
    if (!s)
        return;
    hx_session_write_clear(&w);
    hx_context_query q;
    hx_context_query_init(&q, "zebra");
    q.search.opts.mode = HX_MODE_KEYWORD;
    q.search.opts.min_score = 0;
    hx_context c;
    CHECK(hx_session_context(s, &q, &c, &err) == 0 && c.n_sources == 2 && !strcmp(c.sources[1].first->path, "deploy.md") &&
          c.sources[1].relation && !strcmp(c.sources[1].relation, "requires"), "the required document follows: %s",
          c.text ? c.text : err.message);
    hx_context_free(&c);
    hx_session_close(s);
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
    /* The questions name the element at the other end of the relationship asked about, whose own unit
     * then ranks high too (it names the answer as well: "It is realized by the BIBIT Server device.").
     * Floors: what all-MiniLM-L6-v2 reaches, right element first and in the first 3, per set and mode
     * (with one section per element, its name first: 80 / 35 / 50 % and 70 / 10 / 30 % first). */
    static const struct {
        const char *set;
        size_t n;
        hx_search_mode mode;
        const char *name;
        double first, top3;
    } floors[] = {
        {"tests/data/archimate_queries.txt", 20, HX_MODE_KEYWORD, "keyword", 0.75, 0.95},
        {"tests/data/archimate_queries.txt", 20, HX_MODE_VECTOR, "vector", 0.45, 0.9},
        {"tests/data/archimate_queries.txt", 20, HX_MODE_HYBRID, "hybrid", 0.65, 0.95},
        {"tests/data/archimate_heldout.txt", 10, HX_MODE_KEYWORD, "keyword", 0.7, 1},
        {"tests/data/archimate_heldout.txt", 10, HX_MODE_VECTOR, "vector", 0.4, 0.9},
        {"tests/data/archimate_heldout.txt", 10, HX_MODE_HYBRID, "hybrid", 0.6, 0.9},
    };
    for (size_t i = 0; i < sizeof floors / sizeof *floors; i++) {
        double in3, first = answered(s, floors[i].set, floors[i].n, floors[i].mode, floors[i].name, &in3);
        CHECK(first >= floors[i].first && in3 >= floors[i].top3, "%s, %s mode: %.0f %% first (floor %.0f %%), %.0f %% "
              "in the first 3 (floor %.0f %%)", floors[i].set, floors[i].name, 100 * first, 100 * floors[i].first,
              100 * in3, 100 * floors[i].top3);
    }
    filtered(s, "layer=application", "layer", "application");
    filtered(s, "element_type=Device", "element_type", "Device");
    related_context(s);
    reembedded(s);
    hx_session_close(s);
    over_mcp();
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
    test_versions();
    test_search();
    test_document_items();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return check_report("archimate");
}
