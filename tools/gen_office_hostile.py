#!/usr/bin/env python3
"""gen_office_hostile.py: hostile office packages for tests/test_office.c, written with Python's
zipfile under tests/golden/office/hostile/, and manifest.txt: `FILE refuse WORD` (the extractor
must refuse with WORD in its reason) or `FILE accept WORD` (it must read the file and its text
must contain WORD). Billion laughs, a high-ratio entry, a shared string referenced past the text
bound, nesting past the XML depth limit, invalid UTF-8, a file that is no ZIP archive, a package
without its main part, and a DRM-encrypted EPUB.

Usage: tools/gen_office_hostile.py
"""
import io
import os
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "office", "hostile")
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
RELS = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'officeDocument" Target="{}"/></Relationships>')


def docx(body, raw=None):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_rels/.rels", RELS.format("word/document.xml"))
        z.writestr("word/document.xml", raw if raw is not None else
                   f'<?xml version="1.0"?><w:document {W}><w:body>{body}</w:body></w:document>')
    return b.getvalue()


def para(text):
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = []

    def put(name, data, outcome, word):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        cases.append(f"{name} {outcome} {word}")

    laughs = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">'
              ']>' f'<w:document {W}><w:body>' + para("&lol2;") + "</w:body></w:document>")
    put("laughs.docx", docx(None, laughs), "refuse", "entity")
    put("bomb.docx", docx(para("x" + " " * (40 << 20) + "y")), "refuse", "expands")
    put("deep.docx", docx("<w:p>" * 300 + "</w:p>" * 300), "refuse", "deeper")
    put("bad_utf8.docx", docx(None, (f'<?xml version="1.0"?><w:document {W}><w:body>').encode() +
                              b"<w:p><w:r><w:t>caf\xff\xfe ok</w:t></w:r></w:p></w:body></w:document>"),
        "accept", "\ufffd")
    put("not_zip.docx", b"PK\x03\x04 this is not really an archive" * 10, "refuse", "ZIP")
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("_rels/.rels", RELS.format("word/document.xml"))
    put("no_main_part.docx", b.getvalue(), "refuse", "part")
    b = io.BytesIO()
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    rns = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_rels/.rels", RELS.format("xl/workbook.xml"))
        z.writestr("xl/workbook.xml", f'<workbook {ns} {rns}><sheets><sheet name="S" sheetId="1" r:id="rId1"/>'
                   "</sheets></workbook>")
        z.writestr("xl/_rels/workbook.xml.rels", RELS.replace("officeDocument\"", "worksheet\"").format(
            "worksheets/sheet1.xml").replace("</Relationships>", '<Relationship Id="rId2" Type="http://schemas.'
                                             'openxmlformats.org/officeDocument/2006/relationships/sharedStrings" '
                                             'Target="sharedStrings.xml"/></Relationships>'))
        z.writestr("xl/sharedStrings.xml", f'<sst {ns}><si><t>{"amplified " * 1000}</t></si></sst>')
        rows = "".join(f'<row r="{i}"><c r="A{i}" t="s"><v>0</v></c></row>' for i in range(1, 3001))
        z.writestr("xl/worksheets/sheet1.xml", f"<worksheet {ns}><sheetData>{rows}</sheetData></worksheet>")
    put("amplified.xlsx", b.getvalue(), "refuse", "grows")
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", "<container><rootfiles><rootfile full-path=\"a.opf\"/></rootfiles>"
                   "</container>")
        z.writestr("META-INF/encryption.xml", "<encryption/>")
    put("drm.epub", b.getvalue(), "refuse", "encrypted")
    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")
    print(f"{len(cases)} cases in {OUT}")


if __name__ == "__main__":
    main()
