#!/usr/bin/env python3
"""PDF text extraction against poppler's pdftotext and MuPDF's `mutool draw -F txt`, same run, same
files: every PDF under /usr/share/doc (Debian documentation packages: texlive-latex-base-doc,
ghostscript-doc, valgrind, bzip2 ...; .pdf.gz are unpacked into build/pdf-bench/). Speed is MB/s
of input over the sum of best-of-3 times, one thread: hyrax in process (bench/doc_extract_bench,
the extraction alone), the peers as processes (their start included, a few ms a file). Agreement:
word recall and precision of hyrax against pdftotext (bench/pdf_agree.py), distribution and the
worst 10. Writes bench/RESULTS-pdf.md and prints it.
Usage: make bench/doc_extract_bench && bench/pdf_peers.py [MAX_FILES]"""
import glob
import gzip
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdf_agree import agree, words  # noqa: E402

CACHE = "build/pdf-bench"
# What the worst files hold, read by hand: why their words differ from pdftotext's.
NOTES = {
    "texlive-doc_pdftex_tests_06-pkmap_prepatch.pdf": "3 words, 2 of them U+000E, a control character hyrax drops",
    "texlive-doc_dvipdfm_transistor.pdf": "circuit labels with subscripts (Ra, vi): pdftotext joins them, hyrax "
                                          "splits",
    "texlive-doc_latex_carlisle_ltxtable.pdf": "a table of single letters set close: pdftotext joins runs (bbbbbbb)",
    "texlive-doc_latex_graphics_rotex.pdf": "text rotated at many angles: pdftotext splits it into pieces (Sa, ve), "
                                            "hyrax reads Save, whale",
    "texlive-doc_latex_amsmath_subeqn.pdf": "display math: pdftotext joins A=B, hyrax spaces the operators",
    "texlive-doc_latex_amsmath_testmath.pdf": "display math (accents, sub- and superscripts)",
    "texlive-doc_latex_amscls_thmtest.pdf": "math: subscripts and primes",
    "zlib1g-dev_crc-doc.1.0.pdf": "math: single italic letters, subscripts",
    "texlive-doc_pdftex_samplepdftex_tmp.pdf": "39 words of drawing labels with subscripts (2r2, 7l76l)",
    "texlive-doc_fonts_amsfonts_cmmib57.pdf": "leader dots: pdftotext joins some runs (.............), hyrax "
                                              "spaces each dot",
}
MAX_BYTES = 40 << 20


def corpus(limit):
    os.makedirs(CACHE, exist_ok=True)
    files = []
    for path in sorted(glob.glob("/usr/share/doc/**/*.pdf", recursive=True) +
                       glob.glob("/usr/share/doc/**/*.pdf.gz", recursive=True)):
        name = path.replace("/usr/share/doc/", "").replace("/", "_")
        if path.endswith(".gz"):
            name = name[:-3]
            dst = os.path.join(CACHE, name)
            if not os.path.exists(dst):
                with gzip.open(path) as src, open(dst, "wb") as out:
                    shutil.copyfileobj(src, out)
        else:
            dst = os.path.join(CACHE, name)
            if not os.path.exists(dst):
                shutil.copy(path, dst)
        with open(dst, "rb") as f:
            if not f.read(1024).count(b"%PDF-"):
                continue
        if os.path.getsize(dst) <= MAX_BYTES:
            files.append(dst)
    return files[:limit]


def best_of(cmd, runs=3):
    best = 1e30
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best, r.returncode


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 10 ** 9
    files = corpus(limit)
    out = os.path.join(CACHE, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    rows = {}
    res = subprocess.run(["bench/doc_extract_bench", out] + files, capture_output=True, text=True, check=True)
    for line in res.stdout.splitlines():
        name, typ, size, secs, status = line.split(" ", 4)
        rows[name] = {"bytes": int(size), "hyrax": float(secs), "status": status}
    tot = {"hyrax": 0.0, "pdftotext": 0.0, "mutool": 0.0}
    nbytes, scores = 0, []
    common = ref_words = got_words = 0   # over all files: the corpus' recall and precision
    for f in files:
        name = os.path.basename(f)
        ref = os.path.join(out, name + ".ref")
        tp, rc = best_of(["pdftotext", "-enc", "UTF-8", f, ref])
        tm, _ = best_of(["mutool", "draw", "-q", "-F", "txt", "-o", os.path.join(out, name + ".mu"), f])
        if rc != 0 or not os.path.exists(ref):
            continue   # the reference could not read it: no agreement to measure
        row = rows[name]
        nbytes += row["bytes"]
        tot["hyrax"] += row["hyrax"]
        tot["pdftotext"] += tp
        tot["mutool"] += tm
        if row["status"] != "ok":
            scores.append((0.0, 0.0, name, row["status"]))
            continue
        rw, gw = words(ref), words(os.path.join(out, name + ".txt"))
        r, p = agree(rw, gw)
        scores.append((r, p, name, ""))
        common += sum((rw & gw).values())
        ref_words += sum(rw.values())
        got_words += sum(gw.values())
    scores.sort(key=lambda s: min(s[0], s[1]))
    n = len(scores)

    def pct(q):
        return min(scores[min(n - 1, int(q * n))][:2]) if n else 0

    mb = nbytes / 1e6
    lines = ["# PDF text extraction: hyrax against pdftotext and mutool", "",
             "Generated by `bench/pdf_peers.py` (same run, same files, one thread). %d PDFs from Debian "
             "documentation packages under /usr/share/doc, %.1f MB in all." % (n, mb), "",
             "| extractor | seconds | MB/s |", "| --- | --- | --- |"]
    for k in ("hyrax", "pdftotext", "mutool"):
        lines.append("| %s | %.2f | %.1f |" % (k, tot[k], mb / tot[k] if tot[k] else 0))
    lines += ["", "hyrax is timed in process (extraction only); pdftotext (`-enc UTF-8`) and `mutool draw -F txt` "
              "as processes, best of 3 each.", "",
              "Word agreement with pdftotext (min of recall and precision per file): "
              "worst %.4f, 10th percentile %.4f, median %.4f; files >= 0.98: %d of %d. Over all %d words of "
              "the references: recall %.4f, precision %.4f." %
              (pct(0), pct(0.1), pct(0.5), sum(1 for s in scores if min(s[:2]) >= 0.98), n, ref_words,
               common / ref_words if ref_words else 0, common / got_words if got_words else 0), "",
              "| worst 10 | recall | precision | note |", "| --- | --- | --- | --- |"]
    for r, p, name, note in scores[:10]:
        lines.append("| %s | %.4f | %.4f | %s |" % (name, r, p, note or NOTES.get(name, "")))
    text = "\n".join(lines) + "\n"
    with open("bench/RESULTS-pdf.md", "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
