/* test_pdf.c: the PDF row (src/pdf/pdf.c, pdf_obj.c, pdf_filter.c, pdf_font.c) against
 * poppler's pdftotext. tests/data/pdf/ (tools/gen_pdf_fixtures.sh) holds pages of real PDFs from
 * Debian's documentation (pdfTeX, Apache FOP), a KEP made into a PDF by LibreOffice, and two
 * synthetic files (xref stream, object stream, incremental update, LZW/ASCII85/RunLength/ASCIIHex,
 * Type0 with ToUnicode; a broken cross-reference; RC4-, AES-128- and AES-256-encrypted copies), each with pdftotext's text (NAME.txt): hyrax's
 * words must agree (recall and precision of the multiset of white-space separated words >=
 * MIN_AGREEMENT). Heading paths against the document outline as MuPDF prints it (NAME.outline,
 * `mutool show NAME.pdf outline`). Also pages as sources, metadata, and hostile files built here
 * (deep nesting, reference loops, page-tree and outline loops, huge lengths and counts,
 * self-drawing forms) and a decompression bomb (tests/data/pdf/hostile/). */
#include "check.h"

#include "doctype.h"

#include <dirent.h>
#include <stdbool.h>

#define DATA "tests/data/pdf/"
#define MIN_AGREEMENT 0.98

typedef struct {
    char **w;
    size_t n;
} words;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static words split(const char *s)
{
    words r = {0};
    size_t cap = 0;
    for (const char *p = s; *p;) {
        while (*p && strchr(" \t\r\n\f", *p))
            p++;
        const char *a = p;
        while (*p && !strchr(" \t\r\n\f", *p))
            p++;
        if (p == a)
            continue;
        if (r.n == cap)
            r.w = realloc(r.w, (cap = cap ? 2 * cap : 256) * sizeof *r.w);
        r.w[r.n++] = strndup(a, (size_t)(p - a));
    }
    qsort(r.w, r.n, sizeof *r.w, cmp_str);
    return r;
}

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
    for (size_t i = 0; i < a.n; i++)
        free(a.w[i]);
    for (size_t i = 0; i < b.n; i++)
        free(b.w[i]);
    free(a.w);
    free(b.w);
}

static const char *meta(const hxi_extract *x, const char *key)
{
    for (size_t i = 0; i < x->n_meta; i++)
        if (!strcmp(x->meta[i].key, key))
            return x->meta[i].value;
    return NULL;
}

/* Extracts raw[0..n) as the table detects it under `name`. */
static int extract_buf(const char *name, const uint8_t *raw, size_t n, hxi_extract *x, hx_error *err)
{
    const hxi_doctype *t = hxi_doctype_detect(name, raw, n);
    CHECK(!strcmp(t->name, "pdf"), "%s detected as %s", name, t->name);
    int rc = hxi_extract_init(x, n, err);
    if (!rc)
        rc = t->extract(raw, n, x, err);
    if (!rc)
        rc = hxi_x_finish(x, err);
    return rc;
}

static int extract_file(const char *path, hxi_extract *x, hx_error *err)
{
    size_t n;
    char *raw = check_read_file(path, &n);
    CHECK(raw, "cannot read %s", path);
    if (!raw)
        return -1;
    int rc = extract_buf("renamed.txt", (const uint8_t *)raw, n, x, err);   /* content wins over the name */
    free(raw);
    return rc;
}

static void goldens(void)
{
    DIR *dir = opendir(DATA);
    CHECK(dir, "cannot open " DATA);
    if (!dir)
        return;
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".pdf"))
            continue;
        char path[512], ref_path[512];
        snprintf(path, sizeof path, DATA "%s", e->d_name);
        snprintf(ref_path, sizeof ref_path, DATA "%.*s.txt", (int)(l - 4), e->d_name);
        size_t rl;
        char *ref = check_read_file(ref_path, &rl);
        CHECK(ref, "no reference text %s", ref_path);
        hxi_extract x;
        hx_error err = {0};
        int rc = extract_file(path, &x, &err);
        CHECK(rc == 0, "%s: %s", path, err.message);
        if (!rc && ref) {
            double r, p;
            agreement(x.text, ref, &r, &p);
            printf("pdf %-24s recall %.4f precision %.4f\n", e->d_name, r, p);
            CHECK(r >= MIN_AGREEMENT && p >= MIN_AGREEMENT, "%s: recall %.4f precision %.4f", path, r, p);
            CHECK(hxi_doctype_find("pdf", 3)->unit == HX_UNIT_PAGE && meta(&x, "page_count"), "%s: pages", path);
            for (size_t b = 0; b < x.n_blocks; b++)
                CHECK(x.blocks[b].src_first >= 1 && x.blocks[b].src_first == x.blocks[b].src_last &&
                          (b == 0 || x.blocks[b].src_first >= x.blocks[b - 1].src_first),
                      "%s: block %zu is one page, in page order", path, b);
            seen++;
        }
        hxi_extract_clear(&x);
        free(ref);
    }
    closedir(dir);
    CHECK(seen >= 9, "%d fixtures", seen);
}

static void details(void)
{
    hxi_extract x;
    hx_error err = {0};
    int rc = extract_file(DATA "synthetic.pdf", &x, &err);
    CHECK(rc == 0, "synthetic: %s", err.message);
    if (!rc) {
        CHECK(x.title && !strcmp(x.title, "Synthetic \xc3\x9c" "n\xc3\xaf" "code"), "UTF-16 title: %s", x.title);
        CHECK(meta(&x, "author") && !strcmp(meta(&x, "author"), "A. Writer"), "author");
        CHECK(meta(&x, "date") && !strcmp(meta(&x, "date"), "2024-01-31T12:00:00"), "date: %s", meta(&x, "date"));
        CHECK(!strcmp(meta(&x, "page_count"), "2"), "page_count %s", meta(&x, "page_count"));
        CHECK(x.n_blocks == 2 && x.blocks[1].src_first == 2, "one block per page");
        CHECK(strstr(x.text, "Hello world, caf\xc3\xa9 \xe2\x82\xac costs10"), "kerning, Differences: %s", x.text);
        CHECK(strstr(x.text, "Unij\ncofi"), "Type0 ToUnicode, ligature spelled out");
        CHECK(strstr(x.text, "came with the update"), "the incremental update wins");
        CHECK(!meta(&x, "warning"), "no warning: %s", meta(&x, "warning"));
    }
    hxi_extract_clear(&x);
    rc = extract_file(DATA "broken.pdf", &x, &err);
    CHECK(rc == 0 && meta(&x, "warning") && strstr(meta(&x, "warning"), "rebuilt"), "broken: %s", err.message);
    CHECK(rc == 0 && strstr(x.text, "Hello world"), "a wrong /Length is found by `endstream`");
    hxi_extract_clear(&x);
    rc = extract_file(DATA "encrypted-rc4-128.pdf", &x, &err);
    CHECK(rc == 0 && x.title && !strncmp(x.title, "Synthetic", 9) && strstr(x.text, "Hello world"),
          "RC4 with the empty password: %s", err.message);
    hxi_extract_clear(&x);
    rc = extract_file(DATA "hostile/encrypted-password.pdf", &x, &err);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "needs a password"), "password: %s", err.message);
    hxi_extract_clear(&x);
    rc = extract_file(DATA "encrypted-aes-128.pdf", &x, &err);
    CHECK(rc == 0 && x.title && !strncmp(x.title, "Synthetic", 9) && strstr(x.text, "came with the update"),
          "AES-128 with the empty password: %s", err.message);
    hxi_extract_clear(&x);
    rc = extract_file(DATA "encrypted-aes-256.pdf", &x, &err);
    CHECK(rc == 0 && x.title && !strncmp(x.title, "Synthetic", 9) && strstr(x.text, "came with the update"),
          "AES-256 (R 6) with the empty password: %s", err.message);
    hxi_extract_clear(&x);
    rc = extract_file(DATA "hostile/bomb.pdf", &x, &err);
    CHECK(rc == HX_ERANGE && strstr(err.message, "inflates to more than"), "bomb: %d %s", rc, err.message);
    hxi_extract_clear(&x);
}

/* s's ASCII letters and digits, lowercased, and its " > " separators as '>', into out: heading
 * paths compared by their words (an outline spells a space as U+00A0 where the page has U+0020). */
static void path_key(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 1 < cap; s++)
        if ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || *s == '>')
            out[o++] = *s;
        else if (*s >= 'A' && *s <= 'Z')
            out[o++] = (char)(*s | 0x20);
    out[o] = 0;
}

/* The heading paths of every fixture with an outline are the outline's entries, in its order: each
 * line of MuPDF's `mutool show outline` is [-+|], one tab per level, "title", a tab, the target. */
static void outlines(void)
{
    static const char *const names[] = {"kep-libreoffice", "valgrind-manual"};
    for (size_t f = 0; f < sizeof names / sizeof *names; f++) {
        char path[256], want[HX_X_MAX_DEPTH][256], key[1024], got[1024];
        size_t len, n = 0, depth = 0;
        snprintf(path, sizeof path, DATA "%s.outline", names[f]);
        char *ref = check_read_file(path, &len);
        CHECK(ref, "no outline %s", path);
        snprintf(path, sizeof path, DATA "%s.pdf", names[f]);
        hxi_extract x;
        hx_error err = {0};
        int rc = extract_file(path, &x, &err);
        CHECK(rc == 0, "%s: %s", path, err.message);
        for (char *line = ref, *next; !rc && ref && line && *line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = 0;
            size_t level = strspn(line + 1, "\t");
            char *q = strchr(line, '"'), *e = q ? strstr(q + 1, "\"\t") : NULL;
            if (!e || level < 1 || level > HX_X_MAX_DEPTH)
                continue;
            snprintf(want[level - 1], sizeof want[0], "%.*s", (int)(e - q - 1), q + 1);
            depth = level;
            size_t at = 0;
            for (size_t l = 0; l < depth; l++)
                at += (size_t)snprintf(path + at, sizeof path - at, "%s%s", l ? " > " : "", want[l]);
            path_key(path, key, sizeof key);
            n++;
            path_key(n < x.n_headings ? x.headings[n] : "", got, sizeof got);
            CHECK(!strcmp(key, got), "%s: heading %zu is %s, the outline says %s", names[f], n,
                  n < x.n_headings ? x.headings[n] : "(none)", path);
        }
        CHECK(n >= 4 && x.n_headings == n + 1, "%s: %zu headings, the outline has %zu", names[f], x.n_headings - 1, n);
        hxi_extract_clear(&x);
        free(ref);
    }
}

/* A PDF of objects 1..n with a correct classic cross-reference table. */
static size_t make_pdf(char *out, size_t cap, const char *const *bodies, int n, const char *trailer)
{
    size_t at = (size_t)snprintf(out, cap, "%%PDF-1.4\n"), offs[16];
    for (int i = 0; i < n; i++) {
        offs[i] = at;
        at += (size_t)snprintf(out + at, cap - at, "%d 0 obj\n%s\nendobj\n", i + 1, bodies[i]);
    }
    size_t xref = at;
    at += (size_t)snprintf(out + at, cap - at, "xref\n0 %d\n0000000000 65535 f \n", n + 1);
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf(out + at, cap - at, "%010zu 00000 n \n", offs[i]);
    at += (size_t)snprintf(out + at, cap - at, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%zu\n%%%%EOF\n", n + 1,
                           trailer, xref);
    return at;
}

#define CATALOG "<< /Type /Catalog /Pages 2 0 R >>"
#define FONT "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
#define PAGE "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> /Contents 4 0 R >>"

static int run(const char *const *bodies, int n, hxi_extract *x, hx_error *err)
{
    static char buf[1 << 16];
    size_t len = make_pdf(buf, sizeof buf, bodies, n, "");
    return extract_buf("h.pdf", (const uint8_t *)buf, len, x, err);
}

static void hostile(void)
{
    static char deep[2048];
    memset(deep, '[', 300);
    memset(deep + 300, ']', 300);
    deep[600] = 0;
    hxi_extract x;
    hx_error err = {0};
    const char *nested[] = {CATALOG, deep};
    int rc = run(nested, 2, &x, &err);
    CHECK(rc == HX_EDEPTH && strstr(err.message, "nest deeper"), "deep nesting: %d %s", rc, err.message);
    hxi_extract_clear(&x);

    const char *loop[] = {CATALOG, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", PAGE,
                          "<< /Length 4 0 R >>\nstream\nBT /F1 12 Tf (x) Tj ET\nendstream", FONT};
    rc = run(loop, 5, &x, &err);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "reference loop at object 4"), "length loop: %d %s", rc, err.message);
    hxi_extract_clear(&x);

    const char *tree[] = {CATALOG, "<< /Type /Pages /Kids [2 0 R 3 0 R 3 0 R] /Count 99999999 >>", PAGE,
                          "<< /Length 999999999999 >>\nstream\nBT /F1 12 Tf (Tree) Tj ET\nendstream", FONT,
                          "<< /Subtype /Form /Length 9 >>\nstream\n/X Do /X Do\nendstream"};
    rc = run(tree, 6, &x, &err);
    CHECK(rc == 0, "tree loop, huge length and count: %s", err.message);
    CHECK(rc == 0 && !strcmp(x.text, "Tree") && !strcmp(meta(&x, "page_count"), "1"), "read once: %s", x.text);
    hxi_extract_clear(&x);

    const char *forms[] = {CATALOG, "<< /Type /Pages /Kids [3 0 R] >>", PAGE,
                           "<< /Length 33 >>\nstream\nBT /F1 12 Tf (A) Tj ET /X Do /X Do\nendstream", FONT,
                           "<< /Subtype /Form /Length 33 >>\nstream\n/X Do /X Do BT /F1 9 Tf (b) Tj ET\nendstream"};
    rc = run(forms, 6, &x, &err);   /* a form drawing itself twice: depth-bounded, operator-bounded */
    CHECK(rc == 0 && !strncmp(x.text, "A", 1), "self-drawing form: %d %s", rc, err.message);
    hxi_extract_clear(&x);

    /* an outline whose items name themselves as /Next and /First: read once, then the walk ends */
    const char *olo[] = {"<< /Type /Catalog /Pages 2 0 R /Outlines 7 0 R >>", "<< /Type /Pages /Kids [3 0 R] >>", PAGE,
                         "<< /Length 63 >>\nstream\nBT /F1 12 Tf 0 -20 Td (Intro) Tj 0 -20 Td (Text here.) Tj ET\nendstream",
                         FONT, "<< /Subtype /Form /Length 0 >>\nstream\n\nendstream", "<< /First 8 0 R /Last 8 0 R >>",
                         "<< /Title (Intro) /Parent 7 0 R /Next 8 0 R /First 8 0 R >>"};
    rc = run(olo, 8, &x, &err);
    CHECK(rc == 0 && x.n_headings == 2 && !strcmp(x.headings[1], "Intro"), "outline loop: %d %s %zu", rc, err.message,
          x.n_headings);
    hxi_extract_clear(&x);

    static const char *const bad[] = {"%PDF-1.4\n", "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n",
                                      "%PDF-1.4\nxref\n0 99999999999\ntrailer << /Root 1 0 R >>\nstartxref\n9\n%%EOF"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = extract_buf("bad.pdf", (const uint8_t *)bad[i], strlen(bad[i]), &x, &err);
        CHECK(rc == HX_EFORMAT && err.message[0], "bad %zu: %d %s", i, rc, err.message);
        hxi_extract_clear(&x);
    }
    const char *enc_pdf[] = {CATALOG, "<< /Type /Pages /Kids [] >>", "<< /Filter /Standard /V 4 /R 4 >>"};
    static char buf[4096];
    size_t len = make_pdf(buf, sizeof buf, enc_pdf, 3, "/Encrypt 3 0 R");
    rc = extract_buf("enc.pdf", (const uint8_t *)buf, len, &x, &err);
    CHECK(rc == HX_EFORMAT && strstr(err.message, "encrypted"), "encrypted: %d %s", rc, err.message);
    hxi_extract_clear(&x);
}

/* A CID font's /W as `c [w1 w2 ...]` lists of more codes than the array has items: every code keeps
 * its width (the 1000 default for the later ones ran words into each other). Codes 0x5A 0x5B show
 * "ab" at 0.25 em each, so two words 0.3 em apart read "ab ab". */
static void cid_widths(void)
{
    static char font[2048], cmap[512];
    size_t at = (size_t)snprintf(font, sizeof font, "<< /Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 7 0 R "
                                                    "/DescendantFonts [<< /Subtype /CIDFontType2 /W [0 [");
    for (int i = 0; i < 100; i++)
        at += (size_t)snprintf(font + at, sizeof font - at, "250 ");
    snprintf(font + at, sizeof font - at, "]] >>] >>");
    static const char map[] = "begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <005A> "
                              "<005B> <0061> endbfrange endcmap";
    snprintf(cmap, sizeof cmap, "<< /Length %zu >>\nstream\n%s\nendstream", sizeof map - 1, map);
    const char *bodies[] = {CATALOG, "<< /Type /Pages /Kids [3 0 R] >>", PAGE,
                            "<< /Length 76 >>\nstream\nBT /F1 10 Tf 1 0 0 1 100 700 Tm <005A005B> Tj 1 0 0 1 108 700 Tm "
                            "<005A005B> Tj ET\nendstream",
                            font, "<< /Subtype /Form /Length 0 >>\nstream\n\nendstream", cmap};
    hxi_extract x;
    hx_error err = {0};
    int rc = run(bodies, 7, &x, &err);
    CHECK(rc == 0 && !strcmp(x.text, "ab ab"), "CID widths past the array's item count: %d %s '%s'", rc, err.message,
          rc ? "" : x.text);
    hxi_extract_clear(&x);
}

/* Layouts of one Helvetica line (StandardEncoding; a, b, c are 5.56 wide at 10 pt, S c h 6.67, 5,
 * 5.56), expected as read by hand:
 *   - an accent drawn as a glyph of its own over a letter, before it (TeX's \\"o) or after it, is
 *     the letter's combining mark: "Scho\u0308pf", one word, as pdftotext's "Schöpf" in NFC
 *     (0xC8 is dieresis);
 *   - a space is measured from a glyph's own width, without Tc: with 5 units of character spacing
 *     that a TJ offset takes back between a and b, b and c stand 5 units apart, a space. */
static void layouts(void)
{
    static const struct { const char *stream, *want; } cases[] = {
        {"BT /F1 10 Tf 1 0 0 1 100 700 Tm (Sch\\310) Tj 1 0 0 1 117.23 700 Tm (opf) Tj ET", "Scho\xcc\x88pf"},
        {"BT /F1 10 Tf 1 0 0 1 100 700 Tm (Scho) Tj 1 0 0 1 118 700 Tm (\\310) Tj 1 0 0 1 122.79 700 Tm (pf) Tj ET",
         "Scho\xcc\x88pf"},
        {"BT /F1 10 Tf 1 0 0 1 100 700 Tm 5 Tc [(a) 500 (bc)] TJ ET", "ab c"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char content[256];
        snprintf(content, sizeof content, "<< /Length %zu >>\nstream\n%s\nendstream", strlen(cases[i].stream),
                 cases[i].stream);
        const char *bodies[] = {CATALOG, "<< /Type /Pages /Kids [3 0 R] >>", PAGE, content, FONT,
                                "<< /Subtype /Form /Length 0 >>\nstream\n\nendstream"};
        hxi_extract x;
        hx_error err = {0};
        int rc = run(bodies, 6, &x, &err);
        CHECK(rc == 0 && !strcmp(x.text, cases[i].want), "layout %zu: %d %s '%s', want '%s'", i, rc, err.message,
              rc ? "" : x.text, cases[i].want);
        hxi_extract_clear(&x);
    }
}

/* XMP dc:title and dc:creator stand in for a missing information dictionary. */
static void xmp(void)
{
    static const char xml[] = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><rdf:Description>"
                               "<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">Fish &amp; Chips</rdf:li></rdf:Alt></dc:title>"
                               "<dc:creator><rdf:Seq><rdf:li>Ann Author</rdf:li></rdf:Seq></dc:creator>"
                               "</rdf:Description></rdf:RDF></x:xmpmeta>";
    char stream[1024];
    snprintf(stream, sizeof stream, "<< /Type /Metadata /Subtype /XML /Length %zu >>\nstream\n%s\nendstream",
             strlen(xml), xml);
    const char *bodies[] = {"<< /Type /Catalog /Pages 2 0 R /Metadata 3 0 R >>", "<< /Type /Pages /Kids [] >>", stream};
    hxi_extract x;
    hx_error err = {0};
    int rc = run(bodies, 3, &x, &err);
    CHECK(rc == 0 && x.title && !strcmp(x.title, "Fish & Chips"), "XMP title: %s %s", err.message, x.title);
    CHECK(rc == 0 && meta(&x, "author") && !strcmp(meta(&x, "author"), "Ann Author"), "XMP creator");
    hxi_extract_clear(&x);
}

int main(void)
{
    goldens();
    outlines();
    details();
    hostile();
    cid_widths();
    layouts();
    xmp();
    return check_report("pdf");
}
