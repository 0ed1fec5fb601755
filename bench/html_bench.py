#!/usr/bin/env python3
"""HTML text extraction: hyrax (bench/html_extract, the extractor `hyrax index` uses) against the
reference (tools/html_reference.py: Python's html.parser) on real pages from Debian's
python3.11-doc and postgresql-doc-15, in the same run. Reports word-level recall and precision
(multiset of words, each side's text split at white space; titles compared apart) per page, their
distribution and the worst pages, and the speed of both (MB/s of input, one thread, extraction
only, CPU time of one thread: the machine may be shared). Also reports the agreement with
`w3m -dump` (a mainstream text browser, when installed) as a second, independent reference. Writes the table into bench/RESULTS-documents.md (section "HTML") unless --no-write.

usage: bench/html_bench.py [--pages N] [--no-write]   (needs: make bench/html_extract;
       apt-get install python3.11-doc postgresql-doc-15)"""
import argparse
import collections
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import html_reference  # noqa: E402

SOURCES = ["/usr/share/doc/python3.11/html", "/usr/share/doc/postgresql-doc-15/html"]
RESULTS = os.path.join(HERE, "RESULTS-documents.md")


def pages(n):
    found = []
    for root in SOURCES:
        for d, _, files in sorted(os.walk(root)):
            found += [os.path.join(d, f) for f in sorted(files) if f.endswith(".html")]
    step = max(1, len(found) // n)
    return found[::step][:n]


def agreement(ref, hyp):
    r, h = collections.Counter(ref.split()), collections.Counter(hyp.split())
    common = sum((r & h).values())
    return (common / sum(r.values()) if r else 1.0), (common / sum(h.values()) if h else 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=600)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    files = pages(args.pages)
    raws = [open(f, "rb").read() for f in files]
    total = sum(len(r) for r in raws)
    t0 = time.process_time()
    refs = [html_reference.extract(r) for r in raws]
    ref_s = time.process_time() - t0
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([os.path.join(HERE, "html_extract"), out] + files, capture_output=True, text=True)
        if run.returncode:
            sys.exit("html_extract failed: " + run.stderr)
        stats = dict(kv.split("=") for kv in run.stderr.strip().splitlines()[-1].split())
        hyp = []
        for i in range(len(files)):
            t = open(os.path.join(out, "%d.txt" % i), encoding="utf-8").read()
            title, _, text = t.partition("\n\n")
            hyp.append((title, text))
    hx_s = float(stats["seconds"])
    w3m, w3m_s = None, None
    if shutil.which("w3m"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w3m = [subprocess.run(["w3m", "-dump", "-T", "text/html", "-cols", "10000", f], capture_output=True).stdout
               .decode("utf-8", "replace") for f in files]
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        w3m_s = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    rows = []
    for f, (rt, rx), (ht, hx) in zip(files, refs, hyp):
        rec, prec = agreement(rx, hx)
        rows.append((min(rec, prec), rec, prec, rt == ht, f))
    recs = sorted(r[1] for r in rows)
    precs = sorted(r[2] for r in rows)
    q = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
    ref_words = sum(len(r[1].split()) for r in refs)
    hyp_words = sum(len(h[1].split()) for h in hyp)
    common = sum(sum((collections.Counter(r[1].split()) & collections.Counter(h[1].split())).values())
                 for r, h in zip(refs, hyp))
    lines = [
        "## HTML",
        "",
        "`bench/html_bench.py --pages %d`: %d pages (every %d-th of Debian's python3.11-doc and "
        "postgresql-doc-15 HTML), %.1f MB. Reference: tools/html_reference.py (Python %s html.parser) "
        "with the same extraction rules. Word-level agreement: multiset of white-space separated words "
        "of the text (titles compared apart)." % (args.pages, len(files), max(1, len(pages(10**6)) // args.pages),
                                                  total / 1e6, sys.version.split()[0]),
        "",
        "| measure | hyrax | reference |",
        "| --- | --- | --- |",
        "| recall over all words | %.4f | 1 |" % (common / ref_words),
        "| precision over all words | %.4f | 1 |" % (common / hyp_words),
        "| per-page recall: min / p10 / median | %.4f / %.4f / %.4f | |" % (recs[0], q(recs, .1), q(recs, .5)),
        "| per-page precision: min / p10 / median | %.4f / %.4f / %.4f | |" % (precs[0], q(precs, .1), q(precs, .5)),
        "| pages with recall and precision >= 0.99 | %d of %d | |" % (sum(r[0] >= .99 for r in rows), len(rows)),
        "| same title | %d of %d | |" % (sum(r[3] for r in rows), len(rows)),
        "| extraction speed, one thread, CPU time | %.1f MB/s | %.1f MB/s |" % (total / 1e6 / hx_s, total / 1e6 / ref_s),
        "| pages refused | %s | 0 |" % stats["failed"],
        "",
    ]
    if w3m:
        def pooled(a, b):
            c = sum(sum((collections.Counter(x.split()) & collections.Counter(y.split())).values()) for x, y in zip(a, b))
            return c / sum(len(x.split()) for x in a), c / sum(len(y.split()) for y in b)
        hr, hp = pooled(w3m, [h[1] for h in hyp])
        rr, rp = pooled(w3m, [r[1] for r in refs])
        lines += [
            "Against `w3m -dump` (w3m %s; it renders nav, link and form text hyrax and the reference drop, "
            "so neither reaches 1):" % subprocess.run(["w3m", "-version"], capture_output=True, text=True).stdout.split()[2].rstrip(","),
            "",
            "| measure | hyrax | html.parser reference |",
            "| --- | --- | --- |",
            "| recall of w3m's words | %.4f | %.4f |" % (hr, rr),
            "| precision against w3m's words | %.4f | %.4f |" % (hp, rp),
            "| w3m speed (process CPU time, one page per process) | %.1f MB/s | |" % (total / 1e6 / w3m_s),
            "",
        ]
    lines += [
        "Worst pages (min of recall and precision):",
        "",
    ]
    for r in sorted(rows)[:10]:
        lines.append("- %.4f (recall %.4f, precision %.4f) %s" % (r[0], r[1], r[2], r[4]))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.no_write:
        return
    head = "# Document extraction benchmarks\n\nRegenerated by the scripts named in each section; history lives in git.\n\n"
    old = open(RESULTS).read() if os.path.exists(RESULTS) else head
    start = old.find("## HTML")
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = old.find("\n## ", start + 1)
        new = old[:start] + text + (old[end + 1:] if end >= 0 else "")
    open(RESULTS, "w").write(new)


if __name__ == "__main__":
    main()
