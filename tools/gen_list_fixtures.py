#!/usr/bin/env python3
"""gen_list_fixtures.py: numbered lists in DOCX and ODT as the writers number them, for
tests/test_office.c (tests/golden/office/lists.*).

The text is real: the numbered plan of a Kubernetes Enhancement Proposal (714-break-test-tarball,
"Risks and Mitigations": items 1-3, item 3 with sub-items a-d), written four times in pandoc's
Markdown with the list markers that select Word's number formats (1. / a. / i. / A) / starting at
7 / bullets), so that numbering.xml holds decimal, lowerLetter, lowerRoman, upperLetter, a start
override and bullet levels.
  lists.docx       pandoc from that Markdown
  lists.lo.docx    LibreOffice's own DOCX of it (its numbering.xml is LibreOffice's)
  lists.odt        pandoc from that Markdown
  lists.lo.odt     LibreOffice's own ODT of it
References (NAME.ref.txt): LibreOffice's text export of each document (`--convert-to txt`), which
writes each paragraph on a line with its list number as the document draws it; NAME.pages.txt
the page count the document records, as tools/gen_office_fixtures.py writes it.

Usage: tools/gen_list_fixtures.py OUTDIR KEP_README
  tools/gen_list_fixtures.py tests/golden/office ../shared/corpora/keps/sig-testing/714-break-test-tarball/README.md
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_office_fixtures import recorded_pages, run, soffice  # noqa: E402


def plan(readme):
    """[(item, [sub-items])] of the numbered list under "Risks and Mitigations"."""
    text = open(readme, encoding="utf-8").read()
    section = text[text.index("### Risks and Mitigations"):text.index("### Test Plan")]
    items = []
    for line in section.splitlines():
        if m := re.match(r"^(\d+)\. (.*)", line):
            items.append([m.group(2), []])
        elif m := re.match(r"^   ([a-z])\. (.*)", line):
            items[-1][1].append(m.group(2))
        elif line.startswith("      ") and items and items[-1][1]:
            items[-1][1][-1] += " " + line.strip()
        elif line.startswith("   ") and items:
            items[-1][0] += " " + line.strip()
    return items


def markdown(items):
    def block(outer, inner, start=0):
        out = []
        for k, (item, subs) in enumerate(items):
            marker = outer(k + start)
            out.append(f"{marker} {item}")
            out += [" " * (len(marker) + 1) + f"{inner(j)} {s}" for j, s in enumerate(subs)]
        return "\n".join(out)
    letters = "abcdefghijklmnopqrstuvwxyz"
    roman = ["i.", "ii.", "iii.", "iv.", "v.", "vi."]
    parts = ["# Risks and Mitigations", "The plan, numbered:",
             block(lambda k: f"{k + 1}.", lambda j: f"{letters[j]}."),
             "The plan again, in roman numbers with bullets:",
             block(lambda k: roman[k], lambda j: "-"),
             "The plan again, in capital letters:",
             block(lambda k: f"{letters[k].upper()})", lambda j: f"{j + 1}."),
             "The plan again, from seven:",
             block(lambda k: f"{k + 7}.", lambda j: f"{letters[j]}.")]
    return "\n\n".join(parts) + "\n"


def main():
    out, readme = sys.argv[1], sys.argv[2]
    items = plan(readme)
    with tempfile.TemporaryDirectory() as tmp:
        md = os.path.join(tmp, "lists.md")
        open(md, "w", encoding="utf-8").write(markdown(items))
        for ext in ("docx", "odt"):
            run(["pandoc", "-f", "markdown", md, "-o", os.path.join(out, f"lists.{ext}")])
        shutil.copyfile(os.path.join(out, "lists.docx"), os.path.join(tmp, "lists.lo.docx"))
        os.makedirs(os.path.join(tmp, "lo"))
        soffice("docx:MS Word 2007 XML", [os.path.join(tmp, "lists.lo.docx")], os.path.join(tmp, "lo"))
        shutil.copyfile(os.path.join(tmp, "lo", "lists.lo.docx"), os.path.join(out, "lists.lo.docx"))
        shutil.copyfile(os.path.join(out, "lists.odt"), os.path.join(tmp, "lists.lo.odt"))
        soffice("odt:writer8", [os.path.join(tmp, "lists.lo.odt")], os.path.join(tmp, "lo"))
        shutil.copyfile(os.path.join(tmp, "lo", "lists.lo.odt"), os.path.join(out, "lists.lo.odt"))
        docs = [os.path.join(out, n) for n in ("lists.docx", "lists.lo.docx", "lists.odt", "lists.lo.odt")]
        txt = os.path.join(tmp, "txt")
        for d in docs:   # one run per document: the exports share a base name
            shutil.rmtree(txt, ignore_errors=True)
            os.makedirs(txt)
            soffice("txt:Text (encoded):UTF8", [d], txt)
            (name,) = os.listdir(txt)
            shutil.copyfile(os.path.join(txt, name), d + ".ref.txt")
            pages = recorded_pages(d)
            if pages:
                with open(d + ".pages.txt", "w") as f:
                    f.write(pages + "\n")


if __name__ == "__main__":
    main()
