/* docx_num.c: the list numbers of a DOCX (ECMA-376 Part 1 section 17.9, numbering.xml), as Word
 * and LibreOffice draw them before a numbered paragraph: abstract numbering definitions (per level
 * its start, number format and level text such as "%1.%2."), numbering instances (w:num) that point
 * at one and may override a level's start, and one counter per level of each definition: the
 * instances of one definition continue one count, except that an instance's first paragraph at a
 * level whose start it overrides restarts it there (as Word and LibreOffice number them: LibreOffice
 * writes a list's first item with an instance that overrides, the rest with one that does not); a
 * paragraph at a level restarts every deeper level. Formats:
 * decimal, decimalZero, lowerLetter / upperLetter (a..z, aa..zz, ...), lowerRoman / upperRoman;
 * bullet and none give no label (a bullet is drawn, not text); any other format is read as
 * decimal. Bounded: at most MAX_DEFS definitions and MAX_NUMS instances are read. */
#include "docx_num.h"
#include "alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS 9
#define MAX_DEFS 1024
#define MAX_NUMS 4096
#define TEXT_MAX 32         /* bytes kept of a level's text */

typedef char fmt;   /* hxi_office_list_number's format: '1', '0', 'a', 'A', 'i', 'I'; 0 none */
#define F_DECIMAL '1'
#define F_NONE 0

typedef struct {
    int start;
    fmt format;
    char text[TEXT_MAX];
} level;

typedef struct {
    long id;
    level lvl[LEVELS];
    int count[LEVELS];      /* the level's last number; INT32_MIN: not counted yet */
} def;

typedef struct {
    long id, def_id;
    int start[LEVELS];      /* an override's start; INT32_MIN none */
    bool used[LEVELS];      /* a paragraph of this instance was counted at the level */
    def *d;                 /* resolved on first use */
    bool resolved;
} num;

struct hxi_docx_numbering {
    def *defs;
    size_t n_defs, cap_defs;
    num *nums;
    size_t n_nums, cap_nums;
    int ilvl;               /* the level element being read */
    bool in_num;            /* within a w:num (else within a w:abstractNum) */
    bool oom;
};

static bool is(const char *name, size_t len, const char *local)
{
    return hxi_office_is(name, len, local);
}

static long attr_long(const hxi_xml_attr *a, size_t n, const char *local, long def_value)
{
    char v[32], *end;
    if (!hxi_office_attr_str(a, n, local, v, sizeof v))
        return def_value;
    long x = strtol(v, &end, 10);
    return end == v || *end ? def_value : x;
}

static fmt format_of(const char *v)
{
    static const struct { const char *name; fmt f; } names[] = {
        {"decimalZero", '0'}, {"lowerLetter", 'a'}, {"upperLetter", 'A'}, {"lowerRoman", 'i'},
        {"upperRoman", 'I'},  {"bullet", F_NONE}, {"none", F_NONE},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(v, names[i].name))
            return names[i].f;
    return F_DECIMAL;
}

static int on_start(void *ctx, const char *name, size_t len, const hxi_xml_attr *a, size_t n)
{
    hxi_docx_numbering *nb = ctx;
    char v[TEXT_MAX];
    if (is(name, len, "abstractNum")) {
        nb->in_num = false;
        if (nb->n_defs == MAX_DEFS || hx_grow((void **)&nb->defs, &nb->cap_defs, nb->n_defs + 1, sizeof *nb->defs, NULL)) {
            nb->oom = nb->n_defs < MAX_DEFS;
            return 0;
        }
        def *d = &nb->defs[nb->n_defs++];
        memset(d, 0, sizeof *d);
        d->id = attr_long(a, n, "abstractNumId", -1);
        for (int l = 0; l < LEVELS; l++) {
            d->lvl[l].start = 1;
            d->lvl[l].format = F_DECIMAL;
            snprintf(d->lvl[l].text, TEXT_MAX, "%%%d.", l + 1);
            d->count[l] = INT32_MIN;
        }
        nb->ilvl = -1;
    } else if (is(name, len, "num")) {
        nb->in_num = true;
        nb->ilvl = -1;
        if (nb->n_nums == MAX_NUMS || hx_grow((void **)&nb->nums, &nb->cap_nums, nb->n_nums + 1, sizeof *nb->nums, NULL)) {
            nb->oom = nb->n_nums < MAX_NUMS;
            return 0;
        }
        num *u = &nb->nums[nb->n_nums++];
        memset(u, 0, sizeof *u);
        u->id = attr_long(a, n, "numId", -1);
        u->def_id = -1;
        for (int l = 0; l < LEVELS; l++)
            u->start[l] = INT32_MIN;
    } else if (is(name, len, "lvl") || is(name, len, "lvlOverride")) {
        long l = attr_long(a, n, "ilvl", -1);
        nb->ilvl = l >= 0 && l < LEVELS ? (int)l : -1;
    } else if (nb->in_num && nb->n_nums) {
        num *u = &nb->nums[nb->n_nums - 1];
        if (is(name, len, "abstractNumId"))
            u->def_id = attr_long(a, n, "val", -1);
        else if (is(name, len, "startOverride") && nb->ilvl >= 0)
            u->start[nb->ilvl] = (int)attr_long(a, n, "val", 1);
    } else if (!nb->in_num && nb->n_defs && nb->ilvl >= 0) {
        level *lv = &nb->defs[nb->n_defs - 1].lvl[nb->ilvl];
        if (is(name, len, "start"))
            lv->start = (int)attr_long(a, n, "val", 1);
        else if (is(name, len, "numFmt") && hxi_office_attr_str(a, n, "val", v, sizeof v))
            lv->format = format_of(v);
        else if (is(name, len, "lvlText") && !hxi_office_attr_str(a, n, "val", lv->text, sizeof lv->text))
            lv->text[0] = 0;
    }
    return 0;
}

static int on_end(void *ctx, const char *name, size_t len)
{
    hxi_docx_numbering *nb = ctx;
    if (is(name, len, "lvl") || is(name, len, "lvlOverride"))
        nb->ilvl = -1;
    return 0;
}

int hxi_docx_numbering_read(hxi_zip *z, const char *part, hxi_docx_numbering **out, hx_error *err)
{
    hxi_docx_numbering *nb = hx_calloc(1, sizeof *nb);
    if (!nb)
        return hx_error_set(err, HX_ENOMEM, -1, "out of memory for list numbering");
    hxi_xml_handler h = {nb, on_start, on_end, NULL};
    int rc = hxi_office_parse(z, part, &h, err);
    if (!rc && nb->oom)
        rc = hx_error_set(err, HX_ENOMEM, -1, "out of memory for list numbering");
    if (rc) {
        hxi_docx_numbering_free(nb);
        return rc;
    }
    *out = nb;
    return 0;
}

void hxi_docx_numbering_free(hxi_docx_numbering *nb)
{
    if (!nb)
        return;
    free(nb->defs);
    free(nb->nums);
    free(nb);
}

static num *find_num(hxi_docx_numbering *nb, long id)
{
    for (size_t i = 0; i < nb->n_nums; i++)
        if (nb->nums[i].id == id) {
            num *u = &nb->nums[i];
            for (size_t k = 0; !u->resolved && k < nb->n_defs; k++)
                if (nb->defs[k].id == u->def_id)
                    u->d = &nb->defs[k];
            u->resolved = true;
            return u->d ? u : NULL;
        }
    return NULL;
}

size_t hxi_docx_numbering_next(hxi_docx_numbering *nb, long num_id, int ilvl, char *buf, size_t cap)
{
    buf[0] = 0;
    num *u = nb && cap ? find_num(nb, num_id) : NULL;
    if (!u || ilvl < 0 || ilvl >= LEVELS)
        return 0;
    int *count = u->d->count;
    bool restart = u->start[ilvl] != INT32_MIN && !u->used[ilvl];
    u->used[ilvl] = true;
    count[ilvl] = restart ? u->start[ilvl]
                  : count[ilvl] == INT32_MIN || count[ilvl] == INT32_MAX ? u->d->lvl[ilvl].start : count[ilvl] + 1;
    for (int l = ilvl + 1; l < LEVELS; l++)
        count[l] = INT32_MIN;
    const level *lv = &u->d->lvl[ilvl];
    if (lv->format == F_NONE)
        return 0;
    size_t n = 0;
    for (const char *t = lv->text; *t && n + 1 < cap; t++) {
        if (t[0] == '%' && t[1] >= '1' && t[1] <= '9') {
            int l = t[1] - '1';
            int v = count[l] != INT32_MIN ? count[l] : u->start[l] != INT32_MIN ? u->start[l] : u->d->lvl[l].start;
            char one[24];
            hxi_office_list_number(v, u->d->lvl[l].format == F_NONE ? F_DECIMAL : u->d->lvl[l].format, one, sizeof one);
            n += (size_t)snprintf(buf + n, cap - n, "%s", one);
            n = n < cap ? n : cap - 1;
            t++;
        } else {
            buf[n++] = *t;
        }
    }
    buf[n] = 0;
    return n;
}
