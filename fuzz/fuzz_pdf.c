/* fuzz_pdf.c: libFuzzer target for the PDF reader (src/pdf/pdf.c, pdf_obj.c, pdf_filter.c,
 * pdf_font.c). The first byte picks what the rest is: a whole PDF file (objects, cross-reference,
 * filters); a page's content stream (text operators, inline images, Form XObjects), wrapped here
 * in a small PDF with an outline (whose titles the stream's lines may spell as headings); or a
 * ToUnicode CMap of the Type0 font that a fixed content stream shows. Each
 * call must give 0 or a code with a message, text within the contract's bound, and never crash,
 * hang or read past the input. Seeds: tests/data/pdf/. Corpus: fuzz/corpus/pdf/. */
#include "doctype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A PDF of objects 1..n (bodies[i] for object i+1, `stream` its data or NULL) with a classic table. */
static size_t wrap(uint8_t *out, size_t cap, const char *const *bodies, const uint8_t *stream, size_t slen, int sobj, int n)
{
    size_t at = (size_t)snprintf((char *)out, cap, "%%PDF-1.7\n"), offs[16];
    for (int i = 0; i < n; i++) {
        offs[i] = at;
        at += (size_t)snprintf((char *)out + at, cap - at, "%d 0 obj\n%s", i + 1, bodies[i]);
        if (i + 1 == sobj) {
            at += (size_t)snprintf((char *)out + at, cap - at, "<< /Subtype /Form /Length %zu >>\nstream\n", slen);
            memcpy(out + at, stream, slen);
            at += slen;
            at += (size_t)snprintf((char *)out + at, cap - at, "\nendstream");
        }
        at += (size_t)snprintf((char *)out + at, cap - at, "\nendobj\n");
    }
    size_t xref = at;
    at += (size_t)snprintf((char *)out + at, cap - at, "xref\n0 %d\n0000000000 65535 f \n", n + 1);
    for (int i = 0; i < n; i++)
        at += (size_t)snprintf((char *)out + at, cap - at, "%010zu 00000 n \n", offs[i]);
    at += (size_t)snprintf((char *)out + at, cap - at, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%zu\n%%%%EOF\n",
                           n + 1, xref);
    return at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    const hxi_doctype *t = hxi_doctype_find("pdf", 3);
    if (!t)
        abort();
    size_t n = size - 1, cap = n + 2048;
    uint8_t *in = malloc(cap);
    if (!in)
        return 0;
    int mode = data[0] % 3;
    if (mode == 0) {
        memcpy(in, data + 1, n);
    } else {
        static const char content[] = "BT /F1 12 Tf 72 700 Td <00410042> Tj [<0043> -300 <00440045>] TJ ET";
        char shown[160];
        snprintf(shown, sizeof shown, "<< /Length %zu >>\nstream\n%s\nendstream", strlen(content), content);
        const char *bodies[] = {
            "<< /Type /Catalog /Pages 2 0 R /Outlines 7 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X 4 0 R >> >> "
            "/Contents 4 0 R >>",
            "",
            mode == 1 ? "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
                      : "<< /Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 6 0 R /DescendantFonts "
                        "[<< /Subtype /CIDFontType2 /W [65 [500 600] 67 69 400] >>] >>",
            "",
            "<< /First 8 0 R /Count 3 >>",
            "<< /Title (Intro) /First 9 0 R /Next 10 0 R >>",
            "<< /Title (1.1 Goals and non goals) >>",
            "<< /Title <FEFF0032002E00A0004D006F00720065> >>",
        };
        if (mode == 1)
            n = wrap(in, cap, bodies, data + 1, n, 4, 10);
        else {
            bodies[3] = shown;
            n = wrap(in, cap, bodies, data + 1, n, 6, 6);
        }
    }
    uint8_t *exact = malloc(n ? n : 1);   /* an exact-size buffer, so a read past the end is caught */
    if (!exact) {
        free(in);
        return 0;
    }
    memcpy(exact, in, n);
    free(in);
    hxi_extract x;
    hx_error err = {0};
    int rc = hxi_extract_init(&x, n, &err);
    if (!rc)
        rc = t->extract(exact, n, &x, &err);
    if (!rc)
        rc = hxi_x_finish(&x, &err);
    if (rc ? err.code != rc || !err.message[0] : x.len > x.limit || strlen(x.text) != x.len)
        abort();
    hxi_extract_clear(&x);
    free(exact);
    return 0;
}
