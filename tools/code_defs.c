/* code_defs.c: prints the definitions hyrax's code lexers find in each file named on the command
 * line, one per line: path, name, kind, first line, last line, depth (tab-separated). A probe for
 * tools/code_agreement.py (compared with tree-sitter's), built by it against build/libhyrax.a. */
#include "code.h"
#include "doctype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        if (!fp)
            continue;
        fseek(fp, 0, SEEK_END);
        long len = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        char *raw = malloc((size_t)len + 1);
        if (!raw || fread(raw, 1, (size_t)len, fp) != (size_t)len) {
            fclose(fp);
            free(raw);
            continue;
        }
        fclose(fp);
        char *text;
        size_t n, lines = 2;
        const char *enc;
        hx_error err = {0};
        if (hxi_doc_decode((const uint8_t *)raw, (size_t)len, &text, &n, &enc, &err) == 0) {
            for (size_t k = 0; k < n; k++)
                lines += text[k] == '\n';
            uint8_t *marks = calloc(lines, 1);
            hxi_code_defs defs;
            const hxi_code_lang *l = hxi_code_lang_of(argv[i], text, n);
            if (marks && hxi_code_definitions(l, text, n, marks, lines, &defs, &err) == 0)
                for (size_t d = 0; d < defs.n; d++) {
                    printf("%s\t", argv[i]);
                    for (uint32_t k = 0; k < defs.v[d].name_len; k++) {   /* white space as one space */
                        char c = text[defs.v[d].name + k];
                        bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
                        if (!ws || (k + 1 < defs.v[d].name_len && !strchr(" \t\n\r", text[defs.v[d].name + k + 1])))
                            putchar(ws ? ' ' : c);
                    }
                    printf("\t%s\t%u\t%u\t%u\n", hxi_def_kind_name(defs.v[d].kind), defs.v[d].first_line,
                           defs.v[d].last_line, defs.v[d].depth);
                }
            free(defs.v);
            free(marks);
            free(text);
        }
        free(raw);
    }
    return 0;
}
