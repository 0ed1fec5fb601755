/* test_office.c: the DOCX, XLSX, PPTX, ODT, ODS, ODP and EPUB rows (src/formats/docx.c ...) against
 * pandoc and LibreOffice. tests/golden/office/ (tools/gen_office_fixtures.py) holds documents
 * those tools made from a KEP and from Cranfield abstracts, each with the tools' own text of it
 * (NAME.ref.txt); hyrax's text must agree word for word (recall and precision of the multiset of
 * lowercased words >= MIN_AGREEMENT). Also detection by content under a wrong name, heading paths,
 * pages, properties, and tests/golden/office/hostile/ (tools/gen_office_hostile.py): billion
 * laughs, bombs, amplification, deep nesting, invalid UTF-8, broken packages. */
#include "check.h"

#include "doctype.h"
#include "unicode.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>

#define GOLDEN "tests/golden/office/"
#define MIN_AGREEMENT 0.98

typedef struct {
    char **w;
    size_t n;
} words;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lowercased runs of letters, digits and marks (Python's \\w without '_'), sorted. */
static words split(const char *s)
{
    words r = {0};
    size_t cap = 0, n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t a = i, end = i;
        uint32_t cp;
        while (i < n) {
            size_t at = i;
            hxi_utf8_next(s, n, &i, &cp);
            if (!(hxi_unicode_class(cp) & (HX_UC_LETTER | HX_UC_NUMBER | HX_UC_MARK))) {
                if (at == a)
                    a = i;   /* leading separators */
                else
                    break;
            }
            end = i;
        }
        if (end <= a)
            continue;
        if (r.n == cap)
            r.w = realloc(r.w, (cap = cap ? 2 * cap : 256) * sizeof *r.w);
        char *w = strndup(s + a, end - a);
        for (char *p = w; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        r.w[r.n++] = w;
    }
    qsort(r.w, r.n, sizeof *r.w, cmp_str);
    return r;
}

static void words_free(words *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->w[i]);
    free(w->w);
}

/* Recall and precision of ours against ref over word multisets. */
static void agreement(const char *ours, const char *ref, double *recall, double *precision)
{
    words a = split(ours), b = split(ref);
    size_t common = 0;
    for (size_t i = 0, j = 0; i < a.n && j < b.n;) {
        int c = strcmp(a.w[i], b.w[j]);
        common += !c;
        i += c <= 0;
        j += c >= 0;
    }
    *recall = b.n ? (double)common / (double)b.n : 1;
    *precision = a.n ? (double)common / (double)a.n : 1;
    words_free(&a);
    words_free(&b);
}

static const char *meta(const hxi_extract *x, const char *key)
{
    for (size_t i = 0; i < x->n_meta; i++)
        if (!strcmp(x->meta[i].key, key))
            return x->meta[i].value;
    return NULL;
}

/* Extracts path as the table detects it under `as_name`. */
static int extract(const char *path, const char *as_name, hxi_extract *x, const char **type, hx_error *err)
{
    size_t n;
    char *raw = check_read_file(path, &n);
    CHECK(raw, "cannot read %s", path);
    if (!raw)
        return -1;
    const hxi_doctype *t = hxi_doctype_detect(as_name, (const uint8_t *)raw, n);
    *type = t->name;
    int rc = hxi_extract_init(x, n, err);
    if (!rc)
        rc = t->extract((const uint8_t *)raw, n, x, err);
    free(raw);
    return rc;
}

static void golden(const char *name)
{
    char path[512], ref_path[600];
    snprintf(path, sizeof path, GOLDEN "%s", name);
    snprintf(ref_path, sizeof ref_path, "%s.ref.txt", path);
    const char *ext = strrchr(name, '.') + 1, *type;
    hxi_extract x;
    hx_error err = {0};
    int rc = extract(path, "renamed.txt", &x, &type, &err);   /* content decides, not the name */
    CHECK(rc == 0, "%s: %s", name, err.message);
    CHECK(!strcmp(type, ext), "%s detected as %s", name, type);
    size_t rn;
    char *ref = check_read_file(ref_path, &rn);
    CHECK(ref, "cannot read %s", ref_path);
    if (!rc && ref) {
        double r, p;
        agreement(x.text, ref, &r, &p);
        CHECK(r >= MIN_AGREEMENT && p >= MIN_AGREEMENT, "%s: recall %.4f precision %.4f", name, r, p);
        size_t headed = 0, headings = 0, rows = 0;
        for (size_t i = 0; i < x.n_blocks; i++) {
            headings += x.blocks[i].kind == HX_BLOCK_HEADING;
            headed += x.blocks[i].kind == HX_BLOCK_PROSE && x.blocks[i].heading != 0;
            rows += memmem(x.text + x.blocks[i].start, x.blocks[i].end - x.blocks[i].start, " | ", 3) != NULL;
        }
        CHECK(headings > 0 && headed > 0, "%s: %zu headings, %zu blocks under one", name, headings, headed);
        bool sheet = !strcmp(ext, "xlsx") || !strcmp(ext, "ods");
        bool deck = !strcmp(ext, "pptx") || !strcmp(ext, "odp");
        CHECK(!sheet || (rows >= 10 && x.n_headings > 1 && !strcmp(x.headings[1], "cran00")),
              "%s: rows with cells %zu, first section %s", name, rows, x.n_headings > 1 ? x.headings[1] : "none");
        CHECK(strcmp(ext, "xlsx") || (x.n_blocks && x.blocks[x.n_blocks - 1].src_first == 13),
              "%s: the last row (13) is its block's line: %u", name, x.n_blocks ? x.blocks[x.n_blocks - 1].src_first : 0);
        const hxi_doctype *row = hxi_doctype_find(ext, strlen(ext));
        CHECK(row && (row->unit == HX_UNIT_PAGE) == deck, "%s: a deck's row counts pages, another's lines", name);
        CHECK(!deck || (meta(&x, "page_count") && atoi(meta(&x, "page_count")) > 1 &&
                        x.blocks[x.n_blocks - 1].src_first > 1),
              "%s: slides as pages", name);
        /* the page count the document records (NAME.pages.txt, read by Python's zipfile and
         * ElementTree); a word processor's document that records none has none */
        char pages_path[640];
        snprintf(pages_path, sizeof pages_path, "%s.pages.txt", path);
        size_t pn;
        char *pages = access(pages_path, R_OK) == 0 ? check_read_file(pages_path, &pn) : NULL;
        if (!deck)
            CHECK(pages ? meta(&x, "page_count") && atoi(meta(&x, "page_count")) == atoi(pages) : !meta(&x, "page_count"),
                  "%s: page_count %s, the document records %s", name, meta(&x, "page_count") ? meta(&x, "page_count") : "none",
                  pages ? pages : "none");
        free(pages);
        if (!strcmp(name, "kep00.docx") || !strcmp(name, "kep00.epub"))
            CHECK(x.title && !strcmp(x.title, "kep00") && meta(&x, "author") &&
                      !strcmp(meta(&x, "author"), "Kubernetes authors"),
                  "%s: title %s, author %s", name, x.title ? x.title : "-", meta(&x, "author") ? meta(&x, "author") : "-");
    }
    free(ref);
    hxi_extract_clear(&x);
}

/* The next line of s at *at without its leading white space, a UTF-8 BOM and a bullet glyph
 * LibreOffice draws (•, ◦, ▪ and a space), cut at its end; NULL at the end. Skips empty lines. */
static char *next_line(char *s, size_t *at)
{
    static const char *const drawn[] = {"\xef\xbb\xbf", "\xe2\x80\xa2 ", "\xe2\x97\xa6 ", "\xe2\x96\xaa "};
    while (s[*at]) {
        char *line = s + *at, *nl = strchr(line, '\n');
        *at += nl ? (size_t)(nl - line) + 1 : strlen(line);
        if (nl)
            *nl = 0;
        for (size_t k = 0; k < sizeof drawn / sizeof *drawn; k++) {
            while (*line == ' ' || *line == '\t' || *line == '\r')
                line++;
            if (!strncmp(line, drawn[k], strlen(drawn[k])))
                line += strlen(drawn[k]);
        }
        line[strcspn(line, "\r")] = 0;
        if (*line)
            return line;
    }
    return NULL;
}

/* Numbered lists (tools/gen_list_fixtures.py): every paragraph, list numbers included, reads as
 * LibreOffice's text export of the document writes it, line for line (bullets are drawn, not
 * text: the reference's are dropped). */
static void lists(const char *name)
{
    char path[512], ref_path[600];
    snprintf(path, sizeof path, GOLDEN "%s", name);
    snprintf(ref_path, sizeof ref_path, "%s.ref.txt", path);
    hxi_extract x;
    hx_error err = {0};
    const char *type;
    int rc = extract(path, name, &x, &type, &err);
    size_t rn, ours_at = 0, ref_at = 0, lines = 0, numbered = 0;
    char *ref = check_read_file(ref_path, &rn), *ours = rc ? NULL : strdup(x.text);
    CHECK(rc == 0 && ref && ours, "%s: %s", name, rc ? err.message : "cannot read the reference");
    while (ours && ref) {
        char *a = next_line(ours, &ours_at), *b = next_line(ref, &ref_at);
        if (!a && !b)
            break;
        bool same = a && b && !strcmp(a, b);
        CHECK(same, "%s line %zu: hyrax [%s], LibreOffice [%s]", name, lines + 1, a ? a : "(end)", b ? b : "(end)");
        if (!same)
            break;
        lines++;
        numbered += strspn(a, "0123456789abcdefghiABC") && strchr(".)", a[strspn(a, "0123456789abcdefghiABC")]);
    }
    CHECK(lines >= 25 && numbered >= 20, "%s: %zu lines, %zu numbered", name, lines, numbered);
    free(ours);
    free(ref);
    hxi_extract_clear(&x);
}

static void hostile(void)
{
    size_t mlen;
    char *manifest = check_read_file(GOLDEN "hostile/manifest.txt", &mlen);
    CHECK(manifest, "cannot read the hostile manifest");
    int cases = 0;
    char *save = NULL;
    for (char *line = manifest ? strtok_r(manifest, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char name[64], outcome[16], word[64];
        CHECK(sscanf(line, "%63s %15s %63s", name, outcome, word) == 3, "manifest line %s", line);
        char path[256];
        snprintf(path, sizeof path, GOLDEN "hostile/%s", name);
        hxi_extract x;
        hx_error err = {0};
        const char *type;
        int rc = extract(path, name, &x, &type, &err);
        if (!strcmp(outcome, "refuse"))
            CHECK(rc < 0 && strstr(err.message, word), "%s: %d %s (want a refusal with \"%s\")", name, rc, err.message,
                  word);
        else
            CHECK(rc == 0 && strstr(x.text, word), "%s: %d %s / text %s", name, rc, err.message, rc ? "" : x.text);
        hxi_extract_clear(&x);
        cases++;
    }
    CHECK(cases >= 8, "only %d hostile cases", cases);
    free(manifest);
}

/* Every cut of a package is refused with a reason or read; never a crash. */
static void cuts(void)
{
    size_t n;
    char *raw = check_read_file(GOLDEN "kep00.docx", &n);
    CHECK(raw, "kep00.docx");
    for (size_t cut = 0; raw && cut < n; cut += 41) {
        hxi_extract x;
        hx_error err = {0};
        int rc = hxi_extract_init(&x, cut, &err);
        if (!rc)
            rc = hxi_doctype_find("docx", 4)->extract((const uint8_t *)raw, cut, &x, &err);
        CHECK(rc == 0 || (rc < 0 && err.message[0]), "cut at %zu", cut);
        hxi_extract_clear(&x);
    }
    free(raw);
}

int main(void)
{
    DIR *d = opendir(GOLDEN);
    CHECK(d, "cannot open " GOLDEN);
    struct dirent *e;
    int docs = 0;
    while (d && (e = readdir(d))) {
        size_t k = strlen(e->d_name);
        if (e->d_name[0] == '.' || !strchr(e->d_name, '.') || (k > 4 && !strcmp(e->d_name + k - 4, ".txt")))
            continue;
        golden(e->d_name);
        docs++;
    }
    if (d)
        closedir(d);
    CHECK(docs >= 8, "only %d golden documents", docs);
    lists("lists.docx");
    lists("lists.lo.docx");
    lists("lists.odt");
    lists("lists.lo.odt");
    hostile();
    cuts();
    return check_report("test_office");
}
