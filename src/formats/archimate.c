/* archimate.c: the "archimate" row: ArchiMate models (The Open Group's Model Exchange File Format,
 * versions 2.1 and 3.x, and Archi's own .archimate files) read as one unit per element, headed by
 * its layer and type ("Business layer > Business Process"), whose text is its contextual
 * description: its type and layer, each of its relationships in the direction it reads from the
 * element ("It serves Customer Data Access."), the capability it belongs to, its properties and
 * its documentation (`hyrax help formats`, "ArchiMate models").
 * Owns reading the format, the layer table (ArchiMate 3.1) and the verb table; XML syntax is
 * xml.c's, the builder doctype.c's. Relationships and views are not units of their own. Spec: The
 * Open Group, ArchiMate Model Exchange File Format 3.1 (C19C) and 2.1; ArchiMate 3.1 (C197) for
 * layers and relationship names. */
#include "doctype.h"
#include "alloc.h"
#include "sha256.h"
#include "wire.h"
#include "xml.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNIFF_BYTES 4096         /* "archimate" must appear this early for the root to be read */
#define VERSION_HEX 16           /* hex digits of a unit's text hash kept as its version_id */

/* === Vocabulary === */

enum { L_STRATEGY, L_BUSINESS, L_APPLICATION, L_TECHNOLOGY, L_PHYSICAL, L_MOTIVATION, L_MIGRATION, L_OTHER };

/* Layer metadata values and the words the description uses (NULL: "other" has no layer). */
static const struct {
    const char *key, *words;
} layers[] = {
    [L_STRATEGY] = {"strategy", "Strategy"},
    [L_BUSINESS] = {"business", "Business"},
    [L_APPLICATION] = {"application", "Application"},
    [L_TECHNOLOGY] = {"technology", "Technology"},
    [L_PHYSICAL] = {"physical", "Physical"},
    [L_MOTIVATION] = {"motivation", "Motivation"},
    [L_MIGRATION] = {"implementation_migration", "Implementation and Migration"},
    [L_OTHER] = {"other", NULL},
};

/* ArchiMate 3.1's element types by layer (its chapters 6-13 and 4.5); any other type is "other". */
static const struct {
    const char *type;
    int layer;
} layer_table[] = {
    {"Resource", L_STRATEGY}, {"Capability", L_STRATEGY}, {"ValueStream", L_STRATEGY},
    {"CourseOfAction", L_STRATEGY},
    {"BusinessActor", L_BUSINESS}, {"BusinessRole", L_BUSINESS}, {"BusinessCollaboration", L_BUSINESS},
    {"BusinessInterface", L_BUSINESS}, {"BusinessProcess", L_BUSINESS}, {"BusinessFunction", L_BUSINESS},
    {"BusinessInteraction", L_BUSINESS}, {"BusinessEvent", L_BUSINESS}, {"BusinessService", L_BUSINESS},
    {"BusinessObject", L_BUSINESS}, {"Contract", L_BUSINESS}, {"Representation", L_BUSINESS},
    {"Product", L_BUSINESS},
    {"ApplicationComponent", L_APPLICATION}, {"ApplicationCollaboration", L_APPLICATION},
    {"ApplicationInterface", L_APPLICATION}, {"ApplicationFunction", L_APPLICATION},
    {"ApplicationInteraction", L_APPLICATION}, {"ApplicationProcess", L_APPLICATION},
    {"ApplicationEvent", L_APPLICATION}, {"ApplicationService", L_APPLICATION}, {"DataObject", L_APPLICATION},
    {"Node", L_TECHNOLOGY}, {"Device", L_TECHNOLOGY}, {"SystemSoftware", L_TECHNOLOGY},
    {"TechnologyCollaboration", L_TECHNOLOGY}, {"TechnologyInterface", L_TECHNOLOGY}, {"Path", L_TECHNOLOGY},
    {"CommunicationNetwork", L_TECHNOLOGY}, {"TechnologyFunction", L_TECHNOLOGY},
    {"TechnologyProcess", L_TECHNOLOGY}, {"TechnologyInteraction", L_TECHNOLOGY},
    {"TechnologyEvent", L_TECHNOLOGY}, {"TechnologyService", L_TECHNOLOGY}, {"Artifact", L_TECHNOLOGY},
    {"Equipment", L_PHYSICAL}, {"Facility", L_PHYSICAL}, {"DistributionNetwork", L_PHYSICAL},
    {"Material", L_PHYSICAL},
    {"Stakeholder", L_MOTIVATION}, {"Driver", L_MOTIVATION}, {"Assessment", L_MOTIVATION},
    {"Goal", L_MOTIVATION}, {"Outcome", L_MOTIVATION}, {"Principle", L_MOTIVATION},
    {"Requirement", L_MOTIVATION}, {"Constraint", L_MOTIVATION}, {"Meaning", L_MOTIVATION},
    {"Value", L_MOTIVATION},
    {"WorkPackage", L_MIGRATION}, {"Deliverable", L_MIGRATION}, {"ImplementationEvent", L_MIGRATION},
    {"Plateau", L_MIGRATION}, {"Gap", L_MIGRATION},
};

/* Names of the 2.1 format (and of older Archi files) for what 3.x calls otherwise. */
static const struct {
    const char *from, *to;
} aliases[] = {
    {"UsedBy", "Serving"}, {"Realisation", "Realization"}, {"Specialisation", "Specialization"},
    {"InfrastructureService", "TechnologyService"}, {"InfrastructureInterface", "TechnologyInterface"},
    {"InfrastructureFunction", "TechnologyFunction"}, {"Network", "CommunicationNetwork"},
    {"CommunicationPath", "Path"},
};

/* Each relationship read from its source ("active") and from its target ("passive"). The phrase
 * is also the metadata key: rel_ + the phrase with '_' for spaces. The last row is for a type not
 * listed. */
static const struct {
    const char *type, *active, *passive;
} verbs[] = {
    {"Composition", "is composed of", "composes"},
    {"Aggregation", "aggregates", "is aggregated by"},
    {"Assignment", "is assigned to", "has assigned"},
    {"Realization", "realizes", "is realized by"},
    {"Serving", "serves", "is served by"},
    {"Access", "accesses", "is accessed by"},
    {"Influence", "influences", "is influenced by"},
    {"Triggering", "triggers", "is triggered by"},
    {"Flow", "flows to", "receives flow from"},
    {"Specialization", "specializes", "is specialized by"},
    {"Association", "is associated with", "is associated with"},
    {NULL, "is related to", "is related to"},
};
#define N_VERBS (sizeof verbs / sizeof *verbs)

/* The exchange format's accessType values (Archi's numbers 0-3 in the same order) in words. */
static const struct {
    const char *value, *words;
} access_words[] = {
    {"Write", "for writing"}, {"Read", "for reading"}, {"Access", NULL}, {"ReadWrite", "for reading and writing"},
};

/* === Names === */

static bool is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && !memcmp(s, word, n);
}

static bool has_suffix(const char *s, size_t n, const char *suffix, size_t *stem)
{
    size_t k = strlen(suffix);
    *stem = n >= k ? n - k : 0;
    return n > k && !memcmp(s + n - k, suffix, k);
}

/* The part of a qualified name after its prefix ("xsi:type" -> "type"). */
static const char *local_name(const char *s, size_t n, size_t *len)
{
    const char *colon = memchr(s, ':', n);
    *len = colon ? n - (size_t)(colon + 1 - s) : n;
    return colon ? colon + 1 : s;
}

/* === Detection === */

enum { FMT_NONE, FMT_EXCHANGE, FMT_ARCHI };

/* Whether the root start tag is an ArchiMate model: local name "model" in the exchange format's
 * namespace (any version) or in Archi's. */
static int root_format(const char *name, size_t len, const hxi_xml_attr *a, size_t na)
{
    size_t ll;
    const char *l = local_name(name, len, &ll);
    if (!is(l, ll, "model"))
        return FMT_NONE;
    size_t plen = ll == len ? 0 : len - ll - 1;
    for (size_t i = 0; i < na; i++) {
        bool decl = plen ? a[i].name_len == 6 + plen && !memcmp(a[i].name, "xmlns:", 6) &&
                               !memcmp(a[i].name + 6, name, plen)
                         : is(a[i].name, a[i].name_len, "xmlns");
        if (!decl)
            continue;
        static const char exchange[] = "http://www.opengroup.org/xsd/archimate", archi[] = "http://www.archimatetool.com/archimate";
        if (a[i].value_len >= sizeof exchange - 1 && !memcmp(a[i].value, exchange, sizeof exchange - 1))
            return FMT_EXCHANGE;
        if (is(a[i].value, a[i].value_len, archi))
            return FMT_ARCHI;
    }
    return FMT_NONE;
}

static int sniff_root(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t na)
{
    *(int *)ctx = root_format(name, len, a, na);
    return 1;   /* the root is all it needs: stop */
}

/* The format of a model whose text is s[0..n), FMT_NONE when it is none. */
static int model_format(const char *s, size_t n)
{
    if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
        s += 3;
        n -= 3;
    }
    if (!memmem(s, n < SNIFF_BYTES ? n : SNIFF_BYTES, "archimate", 9))
        return FMT_NONE;
    int fmt = FMT_NONE;
    hxi_xml_handler h = {.ctx = &fmt, .start = sniff_root};
    hx_error err = {0};
    hxi_xml_parse(s, n, &h, &err);
    return fmt;
}

static bool sniff(const uint8_t *raw, size_t len)
{
    return model_format((const char *)raw, len) != FMT_NONE;
}

/* === The model read === */

typedef struct {
    uint32_t off, len;          /* into reader.arena */
} span;

typedef struct concept {
    span id, type, name, doc;   /* type without prefix, 2.1 names mapped to 3.x */
    span source, target, access, modifier;   /* relationships only */
    uint32_t first_prop, n_props;
    uint32_t line_first, line_last;
    bool relation;
} concept;

typedef struct {
    span key, value;            /* key: a property definition's id, or the key itself (keyed) */
    bool keyed;
} prop;

typedef struct {
    span id, name;
} propdef;

/* What each open XML element is to the reader. */
enum { T_SKIP, T_ROOT, T_ELEMENTS, T_RELATIONS, T_FOLDER, T_CONCEPT, T_PROPS, T_PROP, T_DEFS, T_DEF, T_FIELD };
/* Which text a T_FIELD collects. */
enum { F_MODEL_NAME, F_MODEL_DOC, F_NAME, F_DOC, F_VALUE, F_DEF_NAME };

typedef struct reader {
    bool archi;                 /* Archi's own format (read from the root) */
    char *arena;                /* owned: every string read, decoded */
    size_t arena_len, arena_cap;
    concept *c;                 /* owned */
    size_t n_c, cap_c;
    prop *p;                    /* owned */
    size_t n_p, cap_p;
    propdef *d;                 /* owned */
    size_t n_d, cap_d;
    span model_name, model_doc;
    uint8_t tags[HX_XML_MAX_DEPTH + 1];
    int depth;
    int field;                  /* the T_FIELD open: its F_ kind */
    int field_at;               /* its depth; -1: none open */
    size_t field_from;          /* where its text starts in the arena */
    long cur, cur_prop, cur_def;   /* the concept, property, definition open; -1: none */
    uint32_t line;              /* the line of `line_at` */
    const char *line_at;
    hx_error *err;
} reader;

static int oom(hx_error *err)
{
    return hx_error_set(err, HX_ENOMEM, -1, "out of memory reading the ArchiMate model");
}

static const char *str(const reader *r, span v)
{
    return r->arena + v.off;
}

static int reserve(reader *r, size_t more)
{
    if (r->arena_len + more >= UINT32_MAX || hx_grow((void **)&r->arena, &r->arena_cap, r->arena_len + more, 1, NULL))
        return oom(r->err);
    return 0;
}

/* Appends s[0..n) to the arena, references decoded unless raw. */
static int put(reader *r, const char *s, size_t n, bool raw, span *out)
{
    int rc = reserve(r, n + 1);
    if (rc)
        return rc;
    size_t at = r->arena_len;
    r->arena_len += raw ? (memcpy(r->arena + at, s, n), n) : hxi_xml_decode(s, n, r->arena + at);
    if (out)
        *out = (span){(uint32_t)at, (uint32_t)(r->arena_len - at)};
    return 0;
}

static int put_str(reader *r, const char *s, span *out)
{
    return put(r, s, strlen(s), true, out);
}

/* The value of attribute `want` (its local name when `any_prefix`, else exactly) into *out. */
static int attr(reader *r, const hxi_xml_attr *a, size_t na, const char *want, bool any_prefix, span *out)
{
    for (size_t i = 0; i < na; i++) {
        size_t ll;
        const char *l = any_prefix ? local_name(a[i].name, a[i].name_len, &ll) : a[i].name;
        if (any_prefix && ll == a[i].name_len)
            continue;   /* xsi:type is prefixed; a plain `type` is something else */
        if (is(l, any_prefix ? ll : a[i].name_len, want))
            return put(r, a[i].value, a[i].value_len, false, out);
    }
    return 0;
}

/* Counts lines up to p (events come in document order). */
static uint32_t line_of(reader *r, const char *p)
{
    for (; r->line_at < p; r->line_at++)
        r->line += *r->line_at == '\n';
    return r->line;
}

/* Sets the concept's type from a raw xsi:type value: prefix dropped, an Archi relationship's
 * "Relationship" suffix dropped (it marks the concept as a relationship), 2.1 names mapped. */
static int set_type(reader *r, concept *c, span raw)
{
    size_t len;
    const char *t = local_name(str(r, raw), raw.len, &len), *to = NULL;
    size_t stem;
    if (r->archi && has_suffix(t, len, "Relationship", &stem)) {
        c->relation = true;
        len = stem;
    }
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases && !to; i++)
        if (is(t, len, aliases[i].from))
            to = aliases[i].to;
    if (to)
        return put_str(r, to, &c->type);
    c->type = (span){(uint32_t)(t - r->arena), (uint32_t)len};
    return 0;
}

/* Opens a concept: an exchange format <element> or <relationship>, or Archi's <element> of any kind
 * (a diagram is skipped: *tag T_SKIP). */
static int open_concept(reader *r, bool relation, const hxi_xml_attr *a, size_t na, uint8_t *tag)
{
    concept c = {.relation = relation, .line_first = r->line, .line_last = r->line};
    span type = {0};
    int rc = attr(r, a, na, "type", true, &type);
    if (!rc && r->archi && type.len) {
        size_t stem, len;
        const char *t = local_name(str(r, type), type.len, &len);
        if (has_suffix(t, len, "DiagramModel", &stem) || has_suffix(t, len, "SketchModel", &stem) ||
            has_suffix(t, len, "CanvasModel", &stem)) {
            *tag = T_SKIP;
            return 0;
        }
    }
    if (!rc && type.len)
        rc = set_type(r, &c, type);
    if (!rc)
        rc = attr(r, a, na, r->archi ? "id" : "identifier", false, &c.id);
    if (!rc && r->archi)
        rc = attr(r, a, na, "name", false, &c.name);
    if (!rc)
        rc = attr(r, a, na, "source", false, &c.source);
    if (!rc)
        rc = attr(r, a, na, "target", false, &c.target);
    if (!rc)
        rc = attr(r, a, na, "accessType", false, &c.access);
    if (!rc)
        rc = attr(r, a, na, "modifier", false, &c.modifier);
    if (rc)
        return rc;
    if (hx_grow((void **)&r->c, &r->cap_c, r->n_c + 1, sizeof *r->c, NULL))
        return oom(r->err);
    c.first_prop = (uint32_t)r->n_p;
    r->cur = (long)r->n_c;
    r->c[r->n_c++] = c;
    *tag = T_CONCEPT;
    return 0;
}

/* A property of the open concept: keyed (Archi's key="" value="") or by definition. */
static int add_prop(reader *r, const hxi_xml_attr *a, size_t na)
{
    prop p = {.keyed = r->archi};
    int rc = r->archi ? attr(r, a, na, "key", false, &p.key) : attr(r, a, na, "propertyDefinitionRef", false, &p.key);
    if (!rc && !r->archi && !p.key.len)
        rc = attr(r, a, na, "identifierref", false, &p.key);   /* 2.1 */
    if (!rc && r->archi)
        rc = attr(r, a, na, "value", false, &p.value);
    if (rc)
        return rc;
    if (hx_grow((void **)&r->p, &r->cap_p, r->n_p + 1, sizeof *r->p, NULL))
        return oom(r->err);
    r->cur_prop = (long)r->n_p;
    r->p[r->n_p++] = p;
    r->c[r->cur].n_props++;
    return 0;
}

static int add_def(reader *r, const hxi_xml_attr *a, size_t na)
{
    propdef d = {0};
    int rc = attr(r, a, na, "identifier", false, &d.id);
    if (!rc)
        rc = attr(r, a, na, "name", false, &d.name);   /* 2.1 */
    if (rc)
        return rc;
    if (hx_grow((void **)&r->d, &r->cap_d, r->n_d + 1, sizeof *r->d, NULL))
        return oom(r->err);
    r->cur_def = (long)r->n_d;
    r->d[r->n_d++] = d;
    return 0;
}

static uint8_t open_field(reader *r, int field)
{
    r->field = field;
    r->field_at = r->depth;
    r->field_from = r->arena_len;
    return T_FIELD;
}

/* The span a field fills, or NULL when there is none to fill (a second language's name). */
static span *field_target(reader *r)
{
    span *t = NULL;
    switch (r->field) {
    case F_MODEL_NAME: t = &r->model_name; break;
    case F_MODEL_DOC: t = &r->model_doc; break;
    case F_NAME: t = r->cur >= 0 ? &r->c[r->cur].name : NULL; break;
    case F_DOC: t = r->cur >= 0 ? &r->c[r->cur].doc : NULL; break;
    case F_VALUE: t = r->cur_prop >= 0 ? &r->p[r->cur_prop].value : NULL; break;
    case F_DEF_NAME: t = r->cur_def >= 0 ? &r->d[r->cur_def].name : NULL; break;
    }
    return t && !t->len ? t : NULL;
}

static int on_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t na)
{
    reader *r = ctx;
    if (r->depth > HX_XML_MAX_DEPTH)   /* xml.c refuses the element after this call */
        return hx_error_set(r->err, HX_EFORMAT, -1, "XML nests deeper than %d elements", HX_XML_MAX_DEPTH);
    line_of(r, name);
    if (!r->depth) {
        int fmt = root_format(name, len, a, na);
        if (fmt == FMT_NONE)
            return hx_error_set(r->err, HX_EFORMAT, -1, "not an ArchiMate model: the root element is not the "
                                "exchange format's or Archi's <model>");
        r->archi = fmt == FMT_ARCHI;
    }
    size_t ll;
    const char *l = local_name(name, len, &ll);
    uint8_t parent = r->depth ? r->tags[r->depth - 1] : T_SKIP, tag = r->depth ? T_SKIP : T_ROOT;
    bool named = is(l, ll, "name") || is(l, ll, "label");
    int rc = 0;
    switch (parent) {
    case T_ROOT:
        if (is(l, ll, "elements"))
            tag = T_ELEMENTS;
        else if (is(l, ll, "relationships"))
            tag = T_RELATIONS;
        else if (is(l, ll, "folder") && r->archi)
            tag = T_FOLDER;
        else if (is(l, ll, "propertyDefinitions") || is(l, ll, "propertydefs"))
            tag = T_DEFS;
        else if (named)
            tag = open_field(r, F_MODEL_NAME);
        else if (is(l, ll, "documentation") || is(l, ll, "purpose"))
            tag = open_field(r, F_MODEL_DOC);
        break;
    case T_FOLDER:
        if (is(l, ll, "folder"))
            tag = T_FOLDER;
        else if (is(l, ll, "element"))
            rc = open_concept(r, false, a, na, &tag);
        break;
    case T_ELEMENTS:
    case T_RELATIONS:
        if (is(l, ll, parent == T_ELEMENTS ? "element" : "relationship"))
            rc = open_concept(r, parent == T_RELATIONS, a, na, &tag);
        break;
    case T_CONCEPT:
        if (named)
            tag = open_field(r, F_NAME);
        else if (is(l, ll, "documentation"))
            tag = open_field(r, F_DOC);
        else if (is(l, ll, "properties"))
            tag = T_PROPS;
        else if (is(l, ll, "property") && r->archi)
            rc = add_prop(r, a, na);
        break;
    case T_PROPS:
        if (is(l, ll, "property") && (rc = add_prop(r, a, na)) == 0)
            tag = T_PROP;
        break;
    case T_PROP:
        if (is(l, ll, "value"))
            tag = open_field(r, F_VALUE);
        break;
    case T_DEFS:
        if ((is(l, ll, "propertyDefinition") || is(l, ll, "propertydef")) && (rc = add_def(r, a, na)) == 0)
            tag = T_DEF;
        break;
    case T_DEF:
        if (named)
            tag = open_field(r, F_DEF_NAME);
        break;
    }
    if (!rc && tag == T_ROOT && r->archi)
        rc = attr(r, a, na, "name", false, &r->model_name);
    r->tags[r->depth++] = tag;
    return rc;
}

static int on_end(void *ctx, const char *name, size_t len)
{
    reader *r = ctx;
    (void)len;
    uint8_t tag = r->tags[--r->depth];
    if (tag == T_CONCEPT) {
        r->c[r->cur].line_last = line_of(r, name);
        r->cur = -1;
    } else if (tag == T_PROP) {
        r->cur_prop = -1;
    } else if (tag == T_DEF) {
        r->cur_def = -1;
    } else if (tag == T_FIELD) {
        r->field_at = -1;
        span *t = field_target(r);
        if (t)
            *t = (span){(uint32_t)r->field_from, (uint32_t)(r->arena_len - r->field_from)};
        else
            r->arena_len = r->field_from;   /* nothing to fill: its text is dropped */
    }
    return 0;
}

static int on_text(void *ctx, const char *s, size_t len, int raw)
{
    reader *r = ctx;
    return r->field_at >= 0 ? put(r, s, len, raw, NULL) : 0;
}

static void reader_free(reader *r)
{
    free(r->arena);
    free(r->c);
    free(r->p);
    free(r->d);
}

/* === Resolution === */

typedef struct {
    const char *s;
    uint32_t len, idx;
} key;

static int key_cmp(const void *a, const void *b)
{
    const key *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The index of the entry with id s[0..len) in keys (sorted), or -1. */
static long find(const key *keys, size_t n, const char *s, uint32_t len)
{
    key want = {s, len, 0};
    const key *k = len && n ? bsearch(&want, keys, n, sizeof *keys, key_cmp) : NULL;
    return k ? (long)k->idx : -1;
}

/* One relationship as seen from one of its ends. */
typedef struct {
    uint32_t rel, other;        /* concept indexes */
    bool active;                /* the element is the source */
} link;

typedef struct model {
    reader r;
    key *ids, *defs;            /* owned, sorted */
    size_t n_ids;
    link *links;                /* owned: each element's links from first_link[e] */
    uint32_t *first_link;       /* owned: n_c + 1 offsets */
    size_t dangling;            /* relationships with an end the model does not define */
} model;

static void model_free(model *m)
{
    reader_free(&m->r);
    free(m->ids);
    free(m->defs);
    free(m->links);
    free(m->first_link);
}

static int build_keys(model *m, hx_error *err)
{
    reader *r = &m->r;
    m->ids = hx_malloc(hxi_mul_size(r->n_c + 1, sizeof *m->ids));
    m->defs = hx_malloc(hxi_mul_size(r->n_d + 1, sizeof *m->defs));
    if (!m->ids || !m->defs)
        return oom(err);
    for (size_t i = 0; i < r->n_c; i++)
        if (r->c[i].id.len)
            m->ids[m->n_ids++] = (key){str(r, r->c[i].id), r->c[i].id.len, (uint32_t)i};
    for (size_t i = 0; i < r->n_d; i++)
        m->defs[i] = (key){str(r, r->d[i].id), r->d[i].id.len, (uint32_t)i};
    qsort(m->ids, m->n_ids, sizeof *m->ids, key_cmp);
    qsort(m->defs, r->n_d, sizeof *m->defs, key_cmp);
    return 0;
}

/* Gives every element the links of the relationships that name it, in document order. */
static int build_links(model *m, hx_error *err)
{
    reader *r = &m->r;
    long *ends = hx_malloc(hxi_mul_size(2 * r->n_c + 1, sizeof *ends));
    m->first_link = hx_calloc(r->n_c + 1, sizeof *m->first_link);
    if (!ends || !m->first_link) {
        free(ends);
        return oom(err);
    }
    size_t total = 0;
    for (size_t i = 0; i < r->n_c; i++) {
        const concept *c = &r->c[i];
        ends[2 * i] = ends[2 * i + 1] = -1;
        if (!c->relation)
            continue;
        long s = find(m->ids, m->n_ids, str(r, c->source), c->source.len);
        long t = find(m->ids, m->n_ids, str(r, c->target), c->target.len);
        if (s < 0 || t < 0) {
            m->dangling++;
            continue;
        }
        ends[2 * i] = s;
        ends[2 * i + 1] = t;
        m->first_link[s] += !r->c[s].relation;
        m->first_link[t] += !r->c[t].relation;
        total += !r->c[s].relation + !r->c[t].relation;
    }
    for (size_t i = 0, sum = 0; i <= r->n_c; i++) {   /* counts -> offsets past each element's end */
        sum += i < r->n_c ? m->first_link[i] : 0;
        m->first_link[i] = (uint32_t)sum;
    }
    if (!(m->links = hx_malloc(hxi_mul_size(total + 1, sizeof *m->links)))) {
        free(ends);
        return oom(err);
    }
    for (size_t i = r->n_c; i-- > 0;) {   /* backwards, filling each element's range from its end */
        for (int side = 1; side >= 0 && ends[2 * i] >= 0; side--) {
            size_t e = (size_t)ends[2 * i + side];
            if (!r->c[e].relation)
                m->links[--m->first_link[e]] = (link){(uint32_t)i, (uint32_t)ends[2 * i + 1 - side], side == 0};
        }
    }
    free(ends);
    return 0;
}

/* === Writing the units === */

static size_t verb_row(const reader *r, const concept *rel)
{
    size_t v = 0;
    while (verbs[v].type && !is(str(r, rel->type), rel->type.len, verbs[v].type))
        v++;
    return v;
}

static int layer(const reader *r, const concept *c)
{
    for (size_t i = 0; i < sizeof layer_table / sizeof *layer_table; i++)
        if (is(str(r, c->type), c->type.len, layer_table[i].type))
            return layer_table[i].layer;
    return L_OTHER;
}

static void str_bytes(hxi_buf *b, const char *s)
{
    hxi_buf_bytes(b, s, strlen(s));
}

/* "ApplicationComponent" -> "Application Component" ("application component" when lower). */
static void type_words(hxi_buf *b, const reader *r, const concept *c, bool lower)
{
    const char *t = str(r, c->type);
    for (uint32_t i = 0; i < c->type.len; i++) {
        char ch = t[i];
        if (i && ch >= 'A' && ch <= 'Z' && t[i - 1] >= 'a' && t[i - 1] <= 'z')
            hxi_buf_bytes(b, " ", 1);
        if (lower && ch >= 'A' && ch <= 'Z')
            ch = (char)(ch + 32);
        hxi_buf_bytes(b, &ch, 1);
    }
    if (!c->type.len)
        hxi_buf_bytes(b, lower ? "element" : "Element", 7);
}

static void article(hxi_buf *b, const reader *r, const concept *c, bool capital)
{
    char first = c->type.len ? str(r, c->type)[0] : 'E';
    bool vowel = first && strchr("AEIOU", first);
    str_bytes(b, vowel ? (capital ? "An " : "an ") : (capital ? "A " : "a "));
}

/* A name as prose mentions it: cut at HX_LABEL_MAX bytes on a code point. */
static void name_words(hxi_buf *b, const reader *r, const concept *c)
{
    uint32_t n = c->name.len;
    const char *s = str(r, c->name);
    if (n > HX_LABEL_MAX) {
        n = HX_LABEL_MAX;
        while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    hxi_buf_bytes(b, s, n);
}

/* How prose names concept i: an element by its name and its type in lower case ("the Insurant
 * business role"; "an unnamed Or Junction" without a name), a relationship by its ends ("the
 * Serving relationship from A to B", whose ends are named by their names alone). The other end's
 * type in a relationship sentence is what a question about the element says of it ("which actor
 * plays the Insurant role?"): with it the element's relationships part answers that question in
 * keyword mode where the other end's own unit would (see element_unit for the figures). */
static void mention(hxi_buf *b, const model *m, uint32_t i, bool nested)
{
    const reader *r = &m->r;
    const concept *c = &r->c[i];
    if (c->relation) {
        str_bytes(b, nested ? "a " : "the ");
        type_words(b, r, c, false);
        str_bytes(b, " relationship");
        long s = find(m->ids, m->n_ids, str(r, c->source), c->source.len);
        long t = find(m->ids, m->n_ids, str(r, c->target), c->target.len);
        if (!nested && s >= 0 && t >= 0) {
            str_bytes(b, " from ");
            mention(b, m, (uint32_t)s, true);
            str_bytes(b, " to ");
            mention(b, m, (uint32_t)t, true);
        }
        return;
    }
    if (!c->name.len) {
        str_bytes(b, "an unnamed ");
        type_words(b, r, c, false);
        return;
    }
    if (!nested)
        str_bytes(b, "the ");
    name_words(b, r, c);
    if (!nested) {
        hxi_buf_bytes(b, " ", 1);
        type_words(b, r, c, true);
    }
}

/* "rel_" + the phrase, '_' for spaces. */
static void rel_key(char *out, size_t cap, const char *phrase)
{
    int n = snprintf(out, cap, "rel_%s", phrase);
    for (int i = 0; i < n && (size_t)i < cap; i++)
        out[i] = out[i] == ' ' ? '_' : out[i];
}

/* Whether link l makes its element belong to a capability: one it realizes, or one composed of it
 * or aggregating it. */
static bool belongs(const model *m, const link *l)
{
    const reader *r = &m->r;
    const concept *rel = &r->c[l->rel], *other = &r->c[l->other];
    if (!is(str(r, other->type), other->type.len, "Capability") || other->relation)
        return false;
    const char *t = str(r, rel->type);
    return l->active ? is(t, rel->type.len, "Realization")
                     : is(t, rel->type.len, "Composition") || is(t, rel->type.len, "Aggregation");
}

/* Writes the buffer as words into the open block and empties it. */
static int flush(hxi_extract *x, hxi_buf *b, hx_error *err)
{
    if (b->failed)
        return oom(err);
    int rc = b->len ? hxi_x_words(x, (const char *)b->data, b->len, err) : 0;
    b->len = 0;
    return rc;
}

static int unit_meta(hxi_extract *x, const char *k, const reader *r, span v, hx_error *err)
{
    return hxi_x_unit_meta(x, k, str(r, v), v.len, err);
}

/* The sentence of one link: "It serves Customer Data Access (Application Service) for reading." */
static int link_sentence(hxi_extract *x, hxi_buf *b, const model *m, const link *l, hx_error *err)
{
    const reader *r = &m->r;
    const concept *rel = &r->c[l->rel], *other = &r->c[l->other];
    size_t v = verb_row(r, rel);
    const char *phrase = l->active ? verbs[v].active : verbs[v].passive;
    str_bytes(b, " It ");
    str_bytes(b, phrase);
    hxi_buf_bytes(b, " ", 1);
    mention(b, m, l->other, false);
    if (!verbs[v].type) {
        str_bytes(b, " by a ");
        hxi_buf_bytes(b, str(r, rel->type), rel->type.len);
        str_bytes(b, " relationship");
    }
    for (size_t i = 0; rel->access.len && i < sizeof access_words / sizeof *access_words; i++) {
        char num[2] = {(char)('0' + i), 0};
        bool hit = is(str(r, rel->access), rel->access.len, r->archi ? num : access_words[i].value);
        if (hit && access_words[i].words) {
            hxi_buf_bytes(b, " ", 1);
            str_bytes(b, access_words[i].words);
        }
    }
    if (rel->modifier.len) {
        str_bytes(b, " with strength ");
        hxi_buf_bytes(b, str(r, rel->modifier), rel->modifier.len);
    }
    if (rel->name.len) {
        str_bytes(b, ", named \"");
        name_words(b, r, rel);
        str_bytes(b, "\"");
    }
    hxi_buf_bytes(b, ".", 1);
    int rc = flush(x, b, err);
    if (!rc && !other->relation) {
        char k[64];
        rel_key(k, sizeof k, phrase);
        rc = unit_meta(x, k, r, other->id, err);
    }
    return rc;
}

static int properties(hxi_extract *x, hxi_buf *b, const model *m, const concept *c, hx_error *err)
{
    const reader *r = &m->r;
    for (uint32_t i = 0; i < c->n_props; i++) {
        const prop *p = &r->p[c->first_prop + i];
        span k = p->key;
        if (!p->keyed) {
            long d = find(m->defs, r->n_d, str(r, p->key), p->key.len);
            k = d >= 0 ? r->d[d].name : (span){0};
        }
        str_bytes(b, b->len ? ", " : "Properties: ");
        if (k.len) {
            hxi_buf_bytes(b, str(r, k), k.len);
            hxi_buf_bytes(b, "=", 1);
        }
        hxi_buf_bytes(b, str(r, p->value), p->value.len);
    }
    if (b->len)
        hxi_buf_bytes(b, ".", 1);
    int rc = b->len ? hxi_x_block(x, HX_BLOCK_PROSE, err) : 0;
    return rc ? rc : flush(x, b, err);
}

/* Opens a section headed by the element's layer and type ("Business layer > Business Process"),
 * not its name. The heading is the chunk's header: keyword search weighs it as a field (BM25F) and
 * the vector embeds it with the text, so a question's type word ("which business process ...")
 * meets the element of that type, while the names a question gives, those of the element at the
 * other end, stay body text. */
static int element_section(hxi_extract *x, hxi_buf *b, const reader *r, const concept *c, int lay, hx_error *err)
{
    int rc = 0;
    if (layers[lay].words) {
        str_bytes(b, layers[lay].words);
        str_bytes(b, " layer");
        rc = b->failed ? oom(err) : hxi_x_section(x, 2, (const char *)b->data, b->len, err);
        b->len = 0;
    }
    type_words(b, r, c, false);
    if (!rc)
        rc = b->failed ? oom(err) : hxi_x_section(x, layers[lay].words ? 3 : 2, (const char *)b->data, b->len, err);
    b->len = 0;
    return rc;
}

/* "a Business Process in the Business layer" (capitalised: "A Business ..."). */
static void kind_words(hxi_buf *b, const reader *r, const concept *c, int lay, bool capital)
{
    article(b, r, c, capital);
    type_words(b, r, c, false);
    if (layers[lay].words) {
        str_bytes(b, " in the ");
        str_bytes(b, layers[lay].words);
        str_bytes(b, " layer");
    }
    hxi_buf_bytes(b, ".", 1);
}

/* The relationships part of an element's unit: its kind without its name ("A Business Actor in the
 * Business layer."), each link's sentence and the capabilities it belongs to, a section (so a chunk)
 * of its own under the same heading. Without the element's name: the vector of a text that holds a
 * name is drawn to it, so with one chunk per element a question that names X and asks for X's
 * neighbour of some type ("which business event starts the Formalise Request interaction?") found
 * X's chunk, which opens with X's name, before the neighbour's, which holds X's name once among its
 * relationships and its own name, which the question does not say (MiniLM cosines 0.73 and 0.61;
 * the neighbour's name alone against the question 0.27). */
static int relationships_part(hxi_extract *x, hxi_buf *b, const model *m, uint32_t e, int lay, hx_error *err)
{
    const reader *r = &m->r;
    const concept *c = &r->c[e];
    int rc = element_section(x, b, r, c, lay, err);
    if (!rc) {
        kind_words(b, r, c, lay, true);
        rc = flush(x, b, err);
    }
    for (uint32_t i = m->first_link[e]; !rc && i < m->first_link[e + 1]; i++)
        rc = link_sentence(x, b, m, &m->links[i], err);
    for (uint32_t i = m->first_link[e]; !rc && i < m->first_link[e + 1]; i++) {
        const concept *cap = &r->c[m->links[i].other];
        if (!belongs(m, &m->links[i]))
            continue;
        str_bytes(b, " It belongs to the ");
        name_words(b, r, cap);
        str_bytes(b, " capability.");
        if (!(rc = flush(x, b, err)))
            rc = unit_meta(x, "capability", r, cap->name, err);
    }
    return rc;
}

/* One element's unit in two sections, each a chunk of the unit: what it is (its name, type and
 * layer: "Client is a Business Actor in the Business layer.", its properties and documentation),
 * which a question naming the element finds, and its relationships (relationships_part), which a
 * question naming a neighbour and asking for an element of its type finds; then its metadata and
 * version. On Archisurance's element questions (tests/data/archimate_queries.txt, 20, and the
 * held-out tests/data/archimate_heldout.txt, 10; all-MiniLM-L6-v2; right element first in keyword /
 * vector / hybrid mode) one section naming the element first answered 16 / 7 / 10 and 7 / 1 / 3
 * (the vector side ranked the neighbour the question names first), these two 15 / 9 / 13 and
 * 7 / 4 / 6; an RRF of bm25s and MiniLM over the same texts (bench/archimate_peers.py) 9 and 2, then
 * 14 and 7. Each of the model's 106 distinct element names as a query finds its element first
 * 55 / 92 / 81 times with one section, 96 / 96 / 100 with two. The relationships part without
 * its kind sentence, or with "The business actor that ..." for "It", moves these by one or two
 * either way. */
static int element_unit(hxi_extract *x, const model *m, uint32_t e, hx_error *err)
{
    const reader *r = &m->r;
    const concept *c = &r->c[e];
    int lay = layer(r, c), rc = hxi_x_unit(x, err);
    hxi_buf b = {0};
    size_t from = x->len;
    hxi_x_source(x, c->line_first, c->line_last);
    if (!rc)
        rc = element_section(x, &b, r, c, lay, err);
    if (c->name.len)
        name_words(&b, r, c);
    else
        str_bytes(&b, "It");
    str_bytes(&b, " is ");
    kind_words(&b, r, c, lay, false);
    if (!rc)
        rc = flush(x, &b, err);
    if (!rc && is(str(r, c->type), c->type.len, "Capability"))
        rc = unit_meta(x, "capability", r, c->name, err);
    if (!rc)
        rc = properties(x, &b, m, c, err);
    if (!rc && c->doc.len && !(rc = hxi_x_block(x, HX_BLOCK_PROSE, err))) {
        str_bytes(&b, "Description: ");
        hxi_buf_bytes(&b, str(r, c->doc), c->doc.len);
        rc = flush(x, &b, err);
    }
    if (!rc && m->first_link[e] < m->first_link[e + 1])
        rc = relationships_part(x, &b, m, e, lay, err);
    hxi_buf_free(&b);
    if (!rc)
        rc = hxi_x_block(x, HX_BLOCK_PROSE, err);
    if (!rc)
        rc = unit_meta(x, "element_id", r, c->id, err);
    if (!rc)
        rc = unit_meta(x, "item_id", r, c->id, err);
    if (!rc)
        rc = unit_meta(x, "element_name", r, c->name, err);
    if (!rc)
        rc = unit_meta(x, "element_type", r, c->type, err);
    if (!rc)
        rc = hxi_x_unit_meta(x, "layer", layers[lay].key, strlen(layers[lay].key), err);
    if (!rc) {   /* the unit's text, as written, is its version */
        while (from < x->len && x->text[from] == '\n')
            from++;
        char hex[65];
        hxi_sha256_hex(x->text + from, x->len - from, hex);
        rc = hxi_x_unit_meta(x, "version_id", hex, VERSION_HEX, err);
    }
    return rc;
}

/* Unit 0: what the model is, its size and documentation. */
static int overview(hxi_extract *x, const model *m, size_t n_elements, hx_error *err)
{
    const reader *r = &m->r;
    char line[160];
    int n = snprintf(line, sizeof line, " is an ArchiMate model of %zu element%s and %zu relationship%s.", n_elements,
                     n_elements == 1 ? "" : "s", r->n_c - n_elements, r->n_c - n_elements == 1 ? "" : "s");
    int rc = 0;
    if (r->model_name.len)
        rc = hxi_x_words(x, str(r, r->model_name), r->model_name.len, err);
    else
        rc = hxi_x_words(x, "This", 4, err);
    if (!rc)
        rc = hxi_x_words(x, line, (size_t)n, err);
    if (!rc && r->model_doc.len && !(rc = hxi_x_words(x, " Description: ", 14, err)))
        rc = hxi_x_words(x, str(r, r->model_doc), r->model_doc.len, err);
    if (!rc && r->model_name.len && !(rc = hxi_x_title(x, str(r, r->model_name), r->model_name.len, err)))
        rc = hxi_x_meta(x, "model", str(r, r->model_name), r->model_name.len, err);
    if (!rc && r->model_doc.len)
        rc = hxi_x_meta(x, "description", str(r, r->model_doc), r->model_doc.len, err);
    return rc;
}

static int extract(const uint8_t *raw, size_t len, hxi_extract *x, hx_error *err)
{
    char *text;
    size_t n;
    int rc = hxi_doc_decode(raw, len, &text, &n, &x->encoding, err);
    if (rc)
        return rc;
    model m = {.r = {.line = 1, .line_at = text, .field_at = -1, .cur = -1, .cur_prop = -1, .cur_def = -1, .err = err}};
    rc = reserve(&m.r, 256);   /* the arena is never NULL: empty spans point into it */
    hxi_xml_handler h = {.ctx = &m.r, .start = on_start, .end = on_end, .text = on_text};
    hx_error perr = {0};
    if (!rc)
        rc = hxi_xml_parse(text, n, &h, &perr);
    if (rc == HX_EPARSE || rc == HX_EDEPTH) {
        rc = hx_error_set(err, HX_EFORMAT, perr.offset, "the ArchiMate model %s: %s",
                          rc == HX_EDEPTH ? "is beyond this reader's limits" : "is not well-formed XML", perr.message);
    } else if (rc && !err->code) {
        *err = perr;
    }
    if (!rc)
        rc = build_keys(&m, err);
    if (!rc)
        rc = build_links(&m, err);
    size_t n_elements = 0;
    for (size_t i = 0; i < m.r.n_c; i++)
        n_elements += !m.r.c[i].relation;
    if (!rc)
        rc = overview(x, &m, n_elements, err);
    for (size_t i = 0; !rc && i < m.r.n_c; i++)
        if (!m.r.c[i].relation)
            rc = element_unit(x, &m, (uint32_t)i, err);
    if (!rc && m.dangling)
        rc = hxi_x_warn(x, err, "left out %zu relationship%s naming an element the model does not define",
                        m.dangling, m.dangling == 1 ? "" : "s");
    model_free(&m);
    free(text);
    return rc ? rc : hxi_x_finish(x, err);
}

/* === The row === */

static const char *const exts[] = {"archimate", NULL};

const hxi_doctype hxi_doctype_archimate = {
    .name = "archimate", .exts = exts, .sniff = sniff, .extract = extract, .chunk = HX_CHUNK_BLOCKS,
};
