#!/usr/bin/env python3
"""Writes the HTML goldens tests/test_html.c compares hyrax's extractor with, all from the
reference extractor tools/html_reference.py (Python's html.parser) and Python's html.unescape:
  tests/data/html/NAME.html     real pages from Debian's python3.11-doc and postgresql-doc-15
                                (apt-get install them first), copied, plus two made here
                                (windows-1252 with entities, tables, pre; script and nav)
  tests/data/html/NAME.words    line 1 the title, then the text's words, one per line
  tests/data/html/refs.tsv      character references: input TAB html.unescape(input), for every
                                named reference whose value is printable, with and without ';',
                                and numeric edge cases
usage: python3 tools/gen_html_goldens.py"""
import html
import html.entities
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import html_reference  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "html")
PAGES = {
    "py_keyword": "/usr/share/doc/python3.11/html/library/keyword.html",
    "py_bisect": "/usr/share/doc/python3.11/html/library/bisect.html",
    "pg_droptable": "/usr/share/doc/postgresql-doc-15/html/sql-droptable.html",
    "pg_clusterdb": "/usr/share/doc/postgresql-doc-15/html/app-clusterdb.html",
    "pg_boolean": "/usr/share/doc/postgresql-doc-15/html/datatype-boolean.html",
}
MADE = {
    "w1252_tables": (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
        "<title>Caf\xe9 &amp; cr\xe8me</title></head><body>\n<h1>Prices \x93quoted\x94</h1>\n"
        "<p>Na\xefve text &eacute;t&eacute; &notit; &copy 2024 &#x20AC;5 &#128; &#0; &NotEqualTilde; &fjlig;</p>\n"
        "<table><tr><th>Item</th><th>Price</th></tr>\n<tr><td>Tea</td><td>3\xa0\x80</td></tr></table>\n"
        "<pre>\n  keep   these\n    spaces</pre>\n<ul><li>one<li>two</ul>\n</body></html>\n"
    ).encode("latin-1"),
    "dropped": (
        "<!DOCTYPE html><html lang=en><head><title>Deploy guide</title><style>p { color: red }</style>"
        "<script>var x = '<p>not text</p>';</script></head><body><nav><a href=/>Home</a><nav>inner</nav>"
        "<a>Docs</a></nav><header><h1>Deploy</h1></header><main><h2>Push</h2><p>Push to production "
        "with care.</p><!-- a comment <p>gone</p> --><template><p>template text</p></template>"
        "<noscript>enable scripts</noscript><h3>Roll back</h3><p>Revert the <b>last</b> commit.</p>"
        "</main><script>document.write('x')</script></body></html>\n"
    ).encode("utf-8"),
}
NUMERIC = ["&#65;", "&#x41;", "&#X41;", "&#65", "&#x41x", "&#0;", "&#x110000;", "&#xD800;", "&#128;",
           "&#x9F;", "&#", "&#x;", "&#;", "&amp", "&ampx", "&AMP", "&amp;amp;", "&unknown;",
           "&notit;", "&notin;", "&not", "&acE;", "&a", "&", "x&y", "&lt&gt", "&#0000065;"]


def printable(s):
    return all(c.isprintable() and not c.isspace() and not (0xFDD0 <= ord(c) <= 0xFDEF) and
               (ord(c) & 0xFFFE) != 0xFFFE for c in s)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, src in PAGES.items():
        shutil.copyfile(src, os.path.join(OUT, name + ".html"))
    for name, raw in MADE.items():
        with open(os.path.join(OUT, name + ".html"), "wb") as f:
            f.write(raw)
    for name in list(PAGES) + list(MADE):
        with open(os.path.join(OUT, name + ".html"), "rb") as f:
            title, text = html_reference.extract(f.read())
        with open(os.path.join(OUT, name + ".words"), "w", encoding="utf-8") as f:
            f.write(title + "\n" + "\n".join(text.split()) + "\n")
    with open(os.path.join(OUT, "refs.tsv"), "w", encoding="utf-8") as f:
        for name in sorted(html.entities.html5):
            for form in {name, name.rstrip(";")}:
                ref = "&" + form
                val = html.unescape(ref)
                if val != ref and printable(val):
                    f.write("%s\t%s\n" % (ref, val))
        for ref in NUMERIC:
            val = html.unescape(ref)
            if printable(val) or val == "":
                f.write("%s\t%s\n" % (ref, val))


if __name__ == "__main__":
    main()
