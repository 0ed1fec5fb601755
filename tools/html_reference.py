#!/usr/bin/env python3
"""The reference HTML text extractor for hyrax's HTML goldens and benchmark: Python's html.parser
(the standard library's HTML5 tokenizer and html.unescape for character references) with the
extraction rules `hyrax help formats` states for HTML: script, style, template, nav and
noscript dropped with their content; title apart; h1-h6, p, li, table rows and the other block
elements on lines of their own; table cells separated by " | "; pre verbatim. The charset is
read as a browser would: BOM, then <meta charset> / http-equiv / XML declaration, else UTF-8
when the bytes decode, else windows-1252.

usage: html_reference.py FILE...        prints each file's text (title first) to stdout
       import: extract(bytes) -> (title, text)"""
import codecs
import html.parser
import re
import sys

DROPPED = {"template", "nav", "noscript"}
RAW = {"script", "style"}
BLOCKS = {
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "legend",
    "li", "main", "menu", "ol", "p", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
    "option", "head", "html", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "listing", "xmp",
}
CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_:.\-]+)", re.I)
XMLDECL = re.compile(rb"^<\?xml[^>]*?encoding\s*=\s*[\"']?\s*([A-Za-z0-9_:.\-]+)", re.I)
W1252 = {"windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "latin1",
         "latin-1", "l1", "ascii", "us-ascii", "iso-ir-100", "csisolatin1", "ansi_x3.4-1968", "cp819", "ibm819"}


def decode(raw):
    if raw.startswith(codecs.BOM_UTF8):
        return raw[3:].decode("utf-8", "replace")
    if raw.startswith(codecs.BOM_UTF16_LE) or raw.startswith(codecs.BOM_UTF16_BE):
        return raw.decode("utf-16", "replace")
    head = raw[:1024]
    m = XMLDECL.search(head) or CHARSET.search(head)
    label = m.group(1).decode("ascii").lower() if m else None
    if label in W1252:
        return raw.decode("cp1252", "replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8" if label else "cp1252", "replace")


class Extractor(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.title, self.skip, self.skip_name = [], [], 0, None
        self.raw, self.in_title, self.pre, self.cells = False, False, 0, 0

    def handle_starttag(self, tag, attrs):
        if self.skip:
            self.skip += tag == self.skip_name
            return
        if tag in DROPPED:
            self.skip, self.skip_name = 1, tag
            return
        if tag in RAW:
            self.raw = True
        elif tag == "title":
            self.in_title = True
        elif tag in ("td", "th"):
            if self.cells:
                self.out.append(" | ")
            self.cells += 1
        elif tag == "br":
            self.out.append("\n" if self.pre else " ")
        if tag == "tr":
            self.cells = 0
        if tag in ("pre", "listing", "xmp"):
            self.pre += 1
        if tag in BLOCKS:
            self.out.append("\n\n")

    def handle_startendtag(self, tag, attrs):
        if tag in DROPPED or tag in RAW or tag == "title":
            return
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if self.skip:
            self.skip -= tag == self.skip_name
            return
        if tag in RAW:
            self.raw = False
        elif tag == "title":
            self.in_title = False
        if tag in ("pre", "listing", "xmp") and self.pre:
            self.pre -= 1
        if tag in BLOCKS:
            self.out.append("\n\n")

    def handle_data(self, data):
        if self.skip or self.raw:
            return
        (self.title if self.in_title else self.out).append(data)


def extract(raw):
    p = Extractor()
    p.feed(decode(raw))
    p.close()
    return " ".join("".join(p.title).split()), "".join(p.out)


def main():
    for name in sys.argv[1:]:
        with open(name, "rb") as f:
            title, text = extract(f.read())
        sys.stdout.write(title + "\n\n" + text + "\n")


if __name__ == "__main__":
    main()
