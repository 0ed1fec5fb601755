/* test_code.c: source code read by its definitions (src/formats/code.h, doctype_code.c). The
 * lexers' top-level definitions against tree-sitter's on real files (tests/data/code/NAME.defs,
 * made by tools/gen_code_goldens.py: at least 95 % per language with the same name, first and
 * last line); the code row's units (symbol, kind, heading path, doc comment), `lang` and title
 * on small sources whose expected values are read off the source; detection by extension and
 * `#!` line; and hostile input (unterminated strings and comments, deep nesting) in every
 * language read within bounds. */
#include "check.h"
#include "code.h"
#include "doctype.h"
#include "ingest.h"

#include <dirent.h>
#include <stdint.h>

#define DATA "tests/data/code"
#define MAX_LANGS 16

/* === Definitions against tree-sitter === */

typedef struct {
    unsigned total, found;
} tally;

/* The file's definitions at depth 1, compared with each line of its .defs (name, kind, first, last). */
static void compare_file(const char *name, tally *t)
{
    char path[512], dpath[512];
    snprintf(path, sizeof path, DATA "/%s", name);
    snprintf(dpath, sizeof dpath, DATA "/%s.defs", name);
    size_t len = 0, dlen = 0, n = 0;
    char *raw = check_read_file(path, &len), *golden = check_read_file(dpath, &dlen), *text = NULL;
    const char *enc;
    hx_error err = {0};
    CHECK(raw && golden, "%s and its .defs", name);
    if (!raw || !golden || hxi_doc_decode((const uint8_t *)raw, len, &text, &n, &enc, &err)) {
        free(raw);
        free(golden);
        return;
    }
    const hxi_code_lang *l = hxi_code_lang_of(name, text, n);
    size_t lines = 2;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    uint8_t *marks = calloc(lines, 1);
    hxi_code_defs defs = {0};
    CHECK(l && marks && hxi_code_definitions(l, text, n, marks, lines, &defs, &err) == 0, "%s: %s", name, err.message);
    size_t li = 0;
    while (l && hxi_code_lang_at(li) != l)
        li++;
    for (char *line = strtok(golden, "\n"); line && l; line = strtok(NULL, "\n")) {
        char gname[256], kind[32];
        unsigned first, last;
        if (line[0] == '#' || sscanf(line, "%255[^\t]\t%31[^\t]\t%u\t%u", gname, kind, &first, &last) != 4)
            continue;
        t[li].total++;
        bool found = false;
        for (size_t d = 0; d < defs.n && !found; d++) {
            const hxi_code_def *v = &defs.v[d];
            found = v->depth == 1 && v->first_line == first && v->last_line == last && v->name_len == strlen(gname) &&
                    !memcmp(text + v->name, gname, v->name_len);
        }
        t[li].found += found;
        if (!found)
            fprintf(stderr, "  %s: %s %s lines %u-%u not found\n", name, kind, gname, first, last);
    }
    free(defs.v);
    free(marks);
    free(text);
    free(raw);
    free(golden);
}

static void test_against_tree_sitter(void)
{
    tally t[MAX_LANGS] = {{0}};
    DIR *dir = opendir(DATA);
    CHECK(dir != NULL, DATA);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        size_t k = strlen(e->d_name);
        if (e->d_name[0] == '.' || (k > 5 && !strcmp(e->d_name + k - 5, ".defs")) || !strcmp(e->d_name, "SOURCES"))
            continue;
        compare_file(e->d_name, t);
    }
    if (dir)
        closedir(dir);
    for (size_t i = 0; hxi_code_lang_at(i); i++) {
        const char *lang = hxi_code_lang_at(i)->name;
        CHECK(t[i].total > 0, "%s: a fixture with definitions", lang);
        printf("  %-10s %3u of %3u top-level definitions as tree-sitter (%.1f %%)\n", lang, t[i].found, t[i].total,
               t[i].total ? 100.0 * t[i].found / t[i].total : 0.0);
        CHECK(t[i].found * 100 >= t[i].total * 95, "%s: %u of %u definitions agree with tree-sitter", lang, t[i].found,
              t[i].total);
    }
}

/* === Units === */

typedef struct {
    const char *symbol, *kind, *heading;
    unsigned first_line;     /* the unit's first source line (its doc comment's) */
} want_unit;

static const char *pair(const hx_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kv[i].key, key))
            return kv[i].value;
    return NULL;
}

/* Ingests `src` as `name` and finds each wanted unit by its symbol: kind, heading path of its
 * first block, and the first line of its first block. */
static void check_units(const char *name, const char *src, const char *lang, const char *title, const want_unit *w,
                        size_t n_want)
{
    hxi_doc_source d;
    hx_error err = {0};
    CHECK(hxi_ingest_from_bytes(name, src, strlen(src), NULL, 0, &d, &err) == 0, "%s: %s", name, err.message);
    if (err.code)
        return;
    CHECK(!strcmp(d.type, "code"), "%s: type %s", name, d.type);
    const char *got_lang = pair(d.meta, d.n_meta, "lang");
    CHECK(lang ? got_lang && !strcmp(got_lang, lang) : !got_lang, "%s: lang %s, want %s", name, got_lang, lang);
    CHECK(!strcmp(d.title, title), "%s: title '%s', want '%s'", name, d.title, title);
    for (size_t i = 0; i < n_want; i++) {
        bool found = false;
        for (size_t b = 0; b < d.n_blocks && !found; b++) {
            const hxi_unit *u = d.blocks[b].unit < d.n_units ? &d.units[d.blocks[b].unit] : NULL;
            const char *sym = u ? pair(u->meta, u->n_meta, "symbol") : NULL;
            if (!sym || strcmp(sym, w[i].symbol) || (b && d.blocks[b - 1].unit == d.blocks[b].unit))
                continue;
            found = true;
            const char *kind = pair(u->meta, u->n_meta, "kind"), *heading = d.headings[d.blocks[b].heading];
            CHECK(kind && !strcmp(kind, w[i].kind), "%s %s: kind %s, want %s", name, w[i].symbol, kind, w[i].kind);
            CHECK(!strcmp(heading, w[i].heading), "%s %s: heading '%s', want '%s'", name, w[i].symbol, heading,
                  w[i].heading);
            CHECK(d.blocks[b].src_first == w[i].first_line, "%s %s: starts on line %u, want %u", name, w[i].symbol,
                  d.blocks[b].src_first, w[i].first_line);
        }
        CHECK(found, "%s: a unit with symbol %s", name, w[i].symbol);
    }
    hxi_doc_source_clear(&d);
}

static void test_units(void)
{
    static const char py[] = "\"\"\"Upload helpers for the archive.\n\nLonger text.\"\"\"\nimport hashlib\n\n"
                             "# Hash of the bytes.\ndef compute_checksum(data):\n    return hashlib.sha256(data)\n\n\n"
                             "class UploadVerifier:\n    \"\"\"Checks uploads.\"\"\"\n\n    @staticmethod\n"
                             "    def verify(blob, digest):\n        s = '''\ndef fake():\n'''\n"
                             "        return compute_checksum(blob) == digest\n";
    static const want_unit py_units[] = {
        {"compute_checksum", "function", "upload.py > compute_checksum", 6},
        {"UploadVerifier", "class", "upload.py > UploadVerifier", 11},
        {"verify", "method", "upload.py > UploadVerifier > verify", 14},
    };
    check_units("pkg/upload.py", py, "python", "Upload helpers for the archive.", py_units, 3);

    static const char c[] = "#include <stdio.h>\n\n/* Adds two numbers. */\nstatic int\nadd(int a, int b)\n{\n"
                            "    return a + b; /* } */\n}\n\ntypedef struct {\n    int x;\n} point;\n\n"
                            "struct node { struct node *next; };\n";
    static const want_unit c_units[] = {
        {"add", "function", "add.c > add", 3},
        {"point", "struct", "add.c > point", 10},
        {"node", "struct", "add.c > node", 14},
    };
    check_units("add.c", c, "c", "add.c", c_units, 3);

    /* a header: each prototype is a unit of kind declaration with its doc comment; a typedef of a
       function pointer, a pointer to a function, a macro's call and a variable are not */
    static const char h[] = "#ifndef ADD_H\n#define ADD_H\n#include <stddef.h>\n\n/* Adds two numbers. */\n"
                            "int add(int a, int b);\n/* Sums n numbers. */\nHX_API long sum(const int *v,\n"
                            "                size_t n);\ntypedef int (*binop)(int, int);\nint (*pick)(int);\n"
                            "DECLARE_THING(add);\nextern int counter;\nstatic const int zero = add(0, 0);\n#endif\n";
    static const want_unit h_units[] = {
        {"add", "declaration", "add.h > add", 5},
        {"sum", "declaration", "add.h > sum", 7},
    };
    check_units("add.h", h, "c", "add.h", h_units, 2);
    hxi_doc_source hd;
    hx_error herr = {0};
    CHECK(hxi_ingest_from_bytes("add.h", h, strlen(h), NULL, 0, &hd, &herr) == 0, "add.h: %s", herr.message);
    size_t symbols = 0;
    for (size_t u = 0; u < hd.n_units; u++)
        symbols += pair(hd.units[u].meta, hd.units[u].n_meta, "symbol") != NULL;
    CHECK(symbols == 2, "add.h: the two prototypes only are units with a symbol: %zu", symbols);
    hxi_doc_source_clear(&hd);

    static const char go[] = "package srv\n\n// Server serves.\ntype Server struct {\n\taddr string\n}\n\n"
                             "// Handle answers one request.\nfunc (s *Server) Handle(r string) error {\n"
                             "\tx := `raw { string`\n\treturn nil\n}\n";
    static const want_unit go_units[] = {
        {"Server", "struct", "srv.go > Server", 3},
        {"Handle", "method", "srv.go > Server > Handle", 8},
    };
    check_units("srv.go", go, "go", "srv.go", go_units, 2);

    static const char rs[] = "/// A lazy value.\npub struct Lazy<T>(T);\n\n#[cfg(test)]\nimpl<T: Fn() -> u8> Lazy<T> {\n"
                             "    /// Makes one.\n    pub fn new(t: T) -> Lazy<T> {\n        let s = r#\"}\"#;\n"
                             "        Lazy(t)\n    }\n}\n";
    static const want_unit rs_units[] = {
        {"Lazy", "struct", "lazy.rs > Lazy", 1},
        {"new", "method", "lazy.rs > Lazy > new", 6},
    };
    check_units("lazy.rs", rs, "rust", "lazy.rs", rs_units, 2);

    static const char js[] = "const re = /[}{]/g\n\nexport const pick = (o, k) => {\n  return `${o[k]} }`\n}\n\n"
                             "class Range {\n  constructor (r) {\n    this.r = r\n  }\n\n  test (v) {\n    return v\n  }\n}\n";
    static const want_unit js_units[] = {
        {"pick", "function", "range.js > pick", 3},
        {"Range", "class", "range.js > Range", 7},
        {"test", "method", "range.js > Range > test", 12},
    };
    check_units("range.js", js, "javascript", "range.js", js_units, 3);

    static const char java[] = "package x;\n\n/** Greets. */\npublic class Hello {\n"
                               "    @Override\n    public String toString() {\n        return \"}\";\n    }\n}\n";
    static const want_unit java_units[] = {
        {"Hello", "class", "Hello.java > Hello", 3},
        {"toString", "method", "Hello.java > Hello > toString", 5},
    };
    check_units("Hello.java", java, "java", "Hello.java", java_units, 2);

    static const char sh[] = "#!/bin/sh\n# Builds.\nset -e\n\n# Prints usage.\nusage() {\n  cat <<EOF\n}\nEOF\n}\n\n"
                             "function main {\n  usage \"$@\"\n}\n";
    static const want_unit sh_units[] = {
        {"usage", "function", "build > usage", 5},
        {"main", "function", "build > main", 12},
    };
    check_units("tools/build", sh, "shell", "build", sh_units, 2);

    static const char cpp[] = "namespace hx {\ntemplate <typename T, typename U = int>\nclass Box : public Base {\n"
                              " public:\n  T get() const { return v; }\n};\n\nvoid Box::put(T v) {\n}\n}  // namespace hx\n";
    static const want_unit cpp_units[] = {
        {"Box", "class", "box.hpp > Box", 2},
        {"get", "method", "box.hpp > Box > get", 5},
        {"put", "method", "box.hpp > Box > put", 8},
    };
    check_units("box.hpp", cpp, "cpp", "box.hpp", cpp_units, 3);

    static const char ts[] = "export interface Shape<T = number> {\n  area(): T\n}\n\nexport function area(s: Shape): number {\n"
                             "  return s.area()\n}\n";
    static const want_unit ts_units[] = {
        {"Shape", "interface", "shape.ts > Shape", 1},
        {"area", "function", "shape.ts > area", 5},
    };
    check_units("shape.ts", ts, "typescript", "shape.ts", ts_units, 2);

    check_units("notes.kt", "fun main() {\n}\n", NULL, "notes.kt", NULL, 0);   /* no row: blank-line blocks */
}

/* A long definition is split at its blank lines, never joined with the next definition. */
static void test_long_definition(void)
{
    char *src = malloc(64 * 1024), *p = src;
    p += sprintf(p, "def long_one():\n");
    for (int i = 0; i < 400; i++)
        p += sprintf(p, "    value_%d = compute(%d)\n%s", i, i, i % 10 == 9 ? "\n" : "");
    p += sprintf(p, "\ndef short_one():\n    return 1\n");
    hxi_doc_source d;
    hx_error err = {0};
    CHECK(hxi_ingest_from_bytes("long.py", src, strlen(src), NULL, 0, &d, &err) == 0, "%s", err.message);
    size_t long_blocks = 0;
    uint32_t last_unit = 0;
    for (size_t b = 0; b < d.n_blocks; b++) {
        const char *sym = pair(d.units[d.blocks[b].unit].meta, d.units[d.blocks[b].unit].n_meta, "symbol");
        long_blocks += sym && !strcmp(sym, "long_one");
        CHECK(d.blocks[b].unit >= last_unit, "units in order");
        last_unit = d.blocks[b].unit;
    }
    CHECK(long_blocks == 40, "the long definition is 40 blocks (one per blank-line group): %zu", long_blocks);
    hxi_doc_source_clear(&d);
    free(src);
}

/* === Detection === */

static void test_detection(void)
{
    static const struct { const char *path, *content, *lang; } cases[] = {
        {"a.c", "", "c"}, {"a.H", "", "c"}, {"a.cc", "", "cpp"}, {"a.pyi", "", "python"}, {"a.go", "", "go"},
        {"a.mjs", "", "javascript"}, {"a.tsx", "", "typescript"}, {"a.rs", "", "rust"}, {"A.java", "", "java"},
        {"a.bash", "", "shell"}, {"bin/run", "#!/usr/bin/env python3.11\nprint(1)\n", "python"},
        {"run", "#!/bin/bash -e\n", "shell"}, {"run", "#! /usr/bin/env -S node --x\n", "javascript"},
        {"run", "#!/usr/bin/perl\n", NULL}, {"a.kt", "", NULL}, {"notes", "# not a shebang\n", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const hxi_code_lang *l = hxi_code_lang_of(cases[i].path, cases[i].content, strlen(cases[i].content));
        CHECK(cases[i].lang ? l && !strcmp(l->name, cases[i].lang) : !l, "%s: %s, want %s", cases[i].path,
              l ? l->name : "none", cases[i].lang ? cases[i].lang : "none");
    }
    const char *sh = "#!/bin/sh\necho hi\n";
    CHECK(!strcmp(hxi_doctype_detect("install.txt", (const uint8_t *)sh, strlen(sh))->name, "code"),
          "a #! line makes a file code whatever its name");
    const hxi_doctype *code = hxi_doctype_find("code", 4);
    for (size_t i = 0; hxi_code_lang_at(i); i++)   /* every language's extensions are the code row's */
        for (const char *const *e = hxi_code_lang_at(i)->exts; *e; e++) {
            bool listed = false;
            for (const char *const *f = code->exts; *f && !listed; f++)
                listed = !strcmp(*e, *f);
            CHECK(listed, ".%s (%s) is in the code row", *e, hxi_code_lang_at(i)->name);
        }
}

/* === Hostile input === */

static void test_hostile(void)
{
    static const char *const names[] = {"x.c", "x.cpp", "x.py", "x.go", "x.js", "x.ts", "x.rs", "x.java", "x.sh"};
    static const char *const tails[] = {
        "int f() { char *s = \"unterminated", "/* never closed {", "x = '''never closed", "s = `raw",
        "x = `template ${ a + `nested ${", "let s = r##\"raw", "#define X \\", "cat <<EOF\nbody {",
        "x = /[/ + '", "R\"delim(never", "'\\", "class A:\n  def", "impl<T: Fn() -> > X {", "func (",
    };
    size_t big = 200000;
    char *deep = malloc(big + 64);
    for (size_t k = 0; k < 4; k++) {
        const char *unit = k == 0 ? "{" : k == 1 ? "(" : k == 2 ? "class A { " : "def f():\n";
        size_t ul = strlen(unit), len = 0;
        while (len + ul <= big) {
            memcpy(deep + len, unit, ul);
            len += ul;
            if (k == 3) {   /* deeper each line */
                size_t ind = len / 16 % 4000;
                for (size_t s = 0; s < ind && len < big; s++)
                    deep[len++] = ' ';
            }
        }
        deep[len] = 0;
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            hxi_doc_source d;
            hx_error err = {0};
            int rc = hxi_ingest_from_bytes(names[i], deep, len, NULL, 0, &d, &err);
            CHECK(rc == 0 || err.message[0], "%s deep %zu: %d", names[i], k, rc);
            if (!rc)
                hxi_doc_source_clear(&d);
        }
    }
    free(deep);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        for (size_t t = 0; t < sizeof tails / sizeof *tails; t++) {
            char src[256];
            int n = snprintf(src, sizeof src, "int a;\n%s", tails[t]);
            hxi_doc_source d;
            hx_error err = {0};
            CHECK(hxi_ingest_from_bytes(names[i], src, (size_t)n, NULL, 0, &d, &err) == 0, "%s '%s': %s", names[i],
                  tails[t], err.message);
            if (!err.code) {
                CHECK(d.text_len <= (size_t)n * HX_INGEST_MAX_GROWTH, "%s: growth", names[i]);
                hxi_doc_source_clear(&d);
            }
        }
}

int main(void)
{
    test_against_tree_sitter();
    test_units();
    test_long_definition();
    test_detection();
    test_hostile();
    return check_report("test_code");
}
