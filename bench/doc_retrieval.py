#!/usr/bin/env python3
"""doc_retrieval.py: do converted documents answer as their Markdown originals do?

The conformance suite's KEP subset (tests/data/conformance/keps) is converted by pandoc into HTML
(`pandoc -f gfm -s`) and DOCX (`pandoc -f gfm`), and the DOCX into PDF by LibreOffice (no LaTeX
engine is needed; `--pdf-engine` names one when pandoc should make the PDF itself). Each format
gets its own tree holding only the converted README of every KEP folder; the Markdown tree holds
only the README.md, so the kep.yaml beside it cannot mask a difference. hyrax indexes each tree,
and every query of tests/data/conformance/queries.txt runs in keyword, vector and hybrid mode on
all four indexes (`hyrax search --json -k 20`, KEP folders ranked as in the conformance suite).

Prints one JSON line per format and mode: the share of queries whose top folder is the Markdown
index's top folder, the share of the suite's expectations met (as tests/test_conformance.c judges
them), and the queries that differ; with --results FILE it also rewrites that file's "Retrieval
across formats" section with the table. Nothing here is asserted.

  bench/doc_retrieval.py [--hyrax ./hyrax] [--out bench/out/doc_retrieval] [--pdf-engine ENGINE]
                         [--results bench/RESULTS-documents.md]
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from conformance_peers import DATA, folders_of, parse_queries  # noqa: E402

MODES = ("keyword", "vector", "hybrid")
FORMATS = ("md", "html", "docx", "pdf")
SECTION = "## Retrieval across formats"


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def tool_version(args):
    try:
        return run(args).stdout.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "missing"


def convert(keps, out, pdf_engine):
    """Trees out/FORMAT/FOLDER/README.EXT for every KEP folder; made once, kept between runs."""
    readmes = sorted(keps.rglob("README.md"))
    folders = [str(p.parent.relative_to(keps)) for p in readmes]
    for fmt in FORMATS:
        for folder, md in zip(folders, readmes):
            dst = out / fmt / folder / f"README.{fmt}"
            if dst.exists() or fmt == "pdf" and not pdf_engine:
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            if fmt == "md":
                shutil.copyfile(md, dst)
            else:
                args = ["pandoc", "-f", "gfm", str(md), "-o", str(dst), "--resource-path", str(md.parent)]
                run(args + (["-s"] if fmt == "html" else []) + ([f"--pdf-engine={pdf_engine}"] if fmt == "pdf" else []))
    missing = [f for f in folders if not (out / "pdf" / f / "README.pdf").exists()]
    if missing:   # LibreOffice from pandoc's DOCX, one run (its start-up dominates), flat names
        with tempfile.TemporaryDirectory() as tmp:
            flat = []
            for f in missing:
                flat.append(os.path.join(tmp, f.replace("/", "__") + ".docx"))
                shutil.copyfile(out / "docx" / f / "README.docx", flat[-1])
            run(["soffice", f"-env:UserInstallation=file://{tmp}/profile", "--headless", "--convert-to", "pdf",
                 "--outdir", tmp] + flat, timeout=1800)
            for f in missing:
                (out / "pdf" / f).mkdir(parents=True, exist_ok=True)
                shutil.move(os.path.join(tmp, f.replace("/", "__") + ".pdf"), out / "pdf" / f / "README.pdf")
    return folders


def ranked(hyrax, db, queries, mode):
    out = []
    for _, q, *_ in queries:
        r = run([hyrax, "search", "--db", db, "--mode", mode, "-k", "20", "--json", q])
        out.append(folders_of([x["path"] for x in json.loads(r.stdout)["results"]]))
    return out


def met(query, folders, mode):
    """Whether one query's expectation holds for this ranking (tests/test_conformance.c's rule)."""
    kind, _, ks, want, big_k = query
    if kind == "topic":
        return sum(f in want for f in folders[:big_k]) >= ks[mode]
    return want in folders[:ks[mode]]


def write_results(path, rows, meta):
    lines = [SECTION, "",
             f"`bench/doc_retrieval.py`: the conformance suite's {meta['queries']} queries (47 titles, "
             f"50 paraphrases, 8 topics) over its {meta['folders']} KEP READMEs, each tree holding one "
             "format only (the kep.yaml files left out). HTML and DOCX by "
             f"{meta['pandoc']} (`-f gfm`, HTML standalone), PDF by {meta['pdf_by']} from that DOCX. "
             "Same top: the query's first KEP folder is the Markdown index's first folder. Met: the "
             "suite's expectation for that query and mode holds (the Markdown tree without kep.yaml "
             "is itself below the suite's 100 %).", "",
             "| format | mode | same top | met | queries whose top differs |",
             "| --- | --- | --- | --- | --- |"]
    for r in rows:
        diff = ", ".join(r["differs"][:4]) + (f" (+{len(r['differs']) - 4})" if len(r["differs"]) > 4 else "")
        lines.append(f"| {r['format']} | {r['mode']} | {r['same_top']:.1%} | {r['met']:.1%} | {diff} |")
    worst = min((r for r in rows if r["format"] != "md"), key=lambda r: r["same_top"])
    totals = []
    for fmt in FORMATS[1:]:
        same = sum(r["same_top_n"] for r in rows if r["format"] == fmt)
        totals.append(f"{fmt} {same} of {len(MODES) * meta['queries']} ({same / (len(MODES) * meta['queries']):.1%})")
    lines += ["", f"Same top over the three modes: {', '.join(totals)}. Lowest: {worst['format']} {worst['mode']}, "
              f"{worst['same_top']:.1%} ({worst['same_top_n']} of {meta['queries']}). Markdown is read as its rendered "
              "page (link targets, code span backticks, emphasis, bullets, HTML comments left out), so what still "
              "differs is where chunks end (a list right after a paragraph is one Markdown paragraph but separate "
              "HTML and DOCX blocks), image alt text (kept by Markdown and DOCX, not by HTML) and the list numbers "
              "DOCX draws; queries whose first two folders are that close can swap.", ""]
    text = pathlib.Path(path).read_text(encoding="utf-8")
    start = text.find(SECTION)
    if start >= 0:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + (text[end + 1:] if end >= 0 else "")
    pathlib.Path(path).write_text(text.rstrip("\n") + "\n\n" + "\n".join(lines), encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hyrax", default=str(HERE.parent / "hyrax"))
    ap.add_argument("--out", default=str(HERE / "out" / "doc_retrieval"))
    ap.add_argument("--pdf-engine", default=None, help="pandoc's LaTeX engine for the PDF (default: LibreOffice)")
    ap.add_argument("--results", default=None, help="rewrite this file's retrieval section")
    args = ap.parse_args()
    out = pathlib.Path(args.out).resolve()
    queries = parse_queries(DATA / "queries.txt")
    folders = convert(DATA / "keps", out, args.pdf_engine)
    runs = {}
    for fmt in FORMATS:
        db = str(out / f"{fmt}.hyx")
        if os.path.exists(db):
            os.unlink(db)
        run([args.hyrax, "index", "--db", db, "."], cwd=out / fmt)
        runs[fmt] = {mode: ranked(args.hyrax, db, queries, mode) for mode in MODES}
    rows = []
    for fmt in FORMATS:
        for mode in MODES:
            mine, base = runs[fmt][mode], runs["md"][mode]
            same = [bool(a and b and a[0] == b[0]) for a, b in zip(mine, base)]
            row = {"format": fmt, "mode": mode, "same_top": sum(same) / len(queries), "same_top_n": sum(same),
                   "met": sum(met(q, r, mode) for q, r in zip(queries, mine)) / len(queries),
                   "differs": [f"{q[0]} \"{q[1][:40]}\": {(a or ['-'])[0]} not {(b or ['-'])[0]}"
                               for q, s, a, b in zip(queries, same, mine, base) if not s]}
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.results:
        pdf_by = (f"pandoc --pdf-engine={args.pdf_engine}" if args.pdf_engine
                  else tool_version(["soffice", "--version"]).split(" ", 2)[:2])
        meta = {"queries": len(queries), "folders": len(folders), "pandoc": tool_version(["pandoc", "--version"]),
                "pdf_by": pdf_by if isinstance(pdf_by, str) else " ".join(pdf_by)}
        for r in rows:   # the table names the differing queries briefly
            r["differs"] = [re.sub(r":.*", "", d) for d in r["differs"]]
        write_results(args.results, rows, meta)


if __name__ == "__main__":
    main()
