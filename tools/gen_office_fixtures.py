#!/usr/bin/env python3
"""gen_office_fixtures.py: office and e-book documents made from real text by pandoc and
LibreOffice, each with a reference text made by the same tools, for tests/test_office.c (a few
small ones, committed under tests/golden/office/) and bench/office_agreement.py (many).

For each of COUNT Kubernetes Enhancement Proposals (Markdown, the smallest first):
  NAME.docx, NAME.odt, NAME.epub, NAME.pptx   pandoc from the Markdown
  NAME.lo.docx, NAME.odp                       LibreOffice from pandoc's .odt and .pptx
  NAME.lo.odt                                  LibreOffice's own save of pandoc's .odt (its meta.xml
                                               records a page count)
and for each document that records a page count (docProps/app.xml's Pages, meta.xml's
meta:page-count), NAME.EXT.pages.txt: that count as Python's zipfile and ElementTree read it (the
writer's count: pandoc's DOCX template says 1 whatever the length, LibreOffice's own PDF export
of a file may have more pages than its meta.xml says).
and for each group of Cranfield abstracts a table (id, title, author, source, abstract) as
  NAME.xlsx, NAME.ods                          LibreOffice from a CSV
References (NAME.EXT.ref.txt): `pandoc -t plain` of the document (docx, odt, epub); LibreOffice's
text export of the document (lo.docx); `pandoc -t plain` of the Markdown the deck was made from
(pptx, odp: pandoc cannot read presentations); LibreOffice's CSV export of the spreadsheet
(xlsx, ods); LibreOffice's text export of the document (lo.odt).

Usage: tools/gen_office_fixtures.py OUTDIR COUNT [KEP folder] [Cranfield file]
  tests/golden/office: tools/gen_office_fixtures.py tests/golden/office 1
"""
import csv
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from xml.etree import ElementTree

NS = {"meta": "urn:oasis:names:tc:opendocument:xmlns:meta:1.0",
      "ep": "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"}


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, **kw)


def soffice(fmt, files, outdir):
    """One LibreOffice run converting every file (its start-up dominates)."""
    with tempfile.TemporaryDirectory() as profile:
        run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", fmt, "--outdir",
             outdir] + files, timeout=900)


def plain(path, fmt=None):
    args = ["pandoc", path, "-t", "plain", "--wrap=none"] + (["-f", fmt] if fmt else [])
    return run(args).stdout


def recorded_pages(path):
    """The page count a DOCX (docProps/app.xml Pages) or ODT (meta.xml meta:page-count) records, or None."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        if "docProps/app.xml" in names:
            node = ElementTree.fromstring(z.read("docProps/app.xml")).find("ep:Pages", NS)
            return node.text.strip() if node is not None and node.text else None
        if "meta.xml" in names:
            node = ElementTree.fromstring(z.read("meta.xml")).find(".//meta:document-statistic", NS)
            return node.get(f"{{{NS['meta']}}}page-count") if node is not None else None
    return None


def keps(folder, count):
    paths = [p for p in glob.glob(os.path.join(folder, "**", "README.md"), recursive=True)
             if 3000 <= os.path.getsize(p) <= 16000]
    paths.sort(key=lambda p: (os.path.getsize(p), p))
    step = max(1, len(paths) // max(count, 1))
    return paths[::step][:count]


def cranfield(path, groups, per_group=12):
    docs, cur, field = [], None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(".I "):
                cur = {"id": line.split()[1], "T": "", "A": "", "B": "", "W": ""}
                docs.append(cur)
            elif line[:2] in (".T", ".A", ".B", ".W"):
                field = line[1]
            elif cur is not None and field:
                cur[field] += line.strip() + " "
    return [docs[g * per_group:(g + 1) * per_group] for g in range(groups)]


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    out, count = sys.argv[1], int(sys.argv[2])
    kep_dir = sys.argv[3] if len(sys.argv) > 3 else "/work/shared/corpora/keps"
    cran = sys.argv[4] if len(sys.argv) > 4 else "/work/shared/corpora/cranfield/cran.all.1400"
    os.makedirs(out, exist_ok=True)
    odts, pptxs = [], []
    for i, md in enumerate(keps(kep_dir, count)):
        name = f"kep{i:02d}"
        base = os.path.join(out, name)
        src = plain(md, "gfm")
        for ext in ("docx", "odt", "epub", "pptx"):
            args = ["pandoc", "-f", "gfm", md, "-o", f"{base}.{ext}", "--resource-path", os.path.dirname(md)]
            if ext in ("epub", "docx"):
                args += ["--metadata", f"title={name}", "--metadata", "author=Kubernetes authors"]
            run(args)
            ref = src if ext == "pptx" else plain(f"{base}.{ext}")
            with open(f"{base}.{ext}.ref.txt", "wb") as f:
                f.write(ref)
        with open(f"{base}.odp.ref.txt", "wb") as f:
            f.write(src)
        odts.append(f"{base}.odt")
        pptxs.append(f"{base}.pptx")
    with tempfile.TemporaryDirectory() as tmp:
        soffice("docx:MS Word 2007 XML", odts, tmp)
        for p in odts:
            name = os.path.basename(p)[:-4]
            shutil.move(os.path.join(tmp, name + ".docx"), os.path.join(out, name + ".lo.docx"))
        soffice("txt:Text (encoded):UTF8", [os.path.join(out, os.path.basename(p)[:-4] + ".lo.docx") for p in odts],
                tmp)
        for p in odts:
            name = os.path.basename(p)[:-4]
            shutil.move(os.path.join(tmp, name + ".lo.txt"), os.path.join(out, name + ".lo.docx.ref.txt"))
        soffice("odt:writer8", odts, os.path.join(tmp, "lo"))
        for p in odts:
            name = os.path.basename(p)[:-4]
            lo = os.path.join(out, name + ".lo.odt")
            shutil.move(os.path.join(tmp, "lo", name + ".odt"), lo)
            soffice("txt:Text (encoded):UTF8", [lo], os.path.join(tmp, "lotxt"))
            shutil.move(os.path.join(tmp, "lotxt", name + ".lo.txt"), lo + ".ref.txt")

        soffice("odp", pptxs, out)
        csvs = []
        for g, docs in enumerate(cranfield(cran, max(1, count // 2))):
            path = os.path.join(tmp, f"cran{g:02d}.csv")
            with open(path, "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow(["id", "title", "author", "source", "abstract"])
                for d in docs:
                    w.writerow([d["id"], d["T"].strip(), d["A"].strip(), d["B"].strip(), d["W"].strip()[:400]])
            csvs.append(path)
        soffice("xlsx", csvs, out)
        soffice("ods", csvs, out)
        books = [os.path.join(out, os.path.basename(c)[:-4] + ext) for c in csvs for ext in (".xlsx", ".ods")]
        for b in books:
            os.makedirs(os.path.join(tmp, "csv"), exist_ok=True)
            soffice("csv:Text - txt - csv (StarCalc):44,34,76", [b], os.path.join(tmp, "csv"))
            stem = os.path.basename(b).rsplit(".", 1)[0]
            shutil.move(os.path.join(tmp, "csv", stem + ".csv"), b + ".ref.txt")
    for doc in sorted(glob.glob(os.path.join(out, "*.docx")) + glob.glob(os.path.join(out, "*.odt"))):
        pages = recorded_pages(doc)
        if pages:
            with open(doc + ".pages.txt", "w") as f:
                f.write(pages + "\n")
    print(f"{len(os.listdir(out))} files in {out}")


if __name__ == "__main__":
    main()
