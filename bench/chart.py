#!/usr/bin/env python3
"""chart.py: draws bench/chart.svg, the README's chart of hyrax against its peers, from the figures
committed in bench/RESULTS*.md (each measured with its peers in the same run; this script measures
nothing). Four panels of horizontal bars: embedding throughput (bench/embed.py), Cranfield nDCG@10
(bench/cranfield.py), PDF and HTML text extraction speed (bench/pdf_peers.py, bench/html_bench.py)
and HTTP queries/s (bench/http_bench.py). Standard library only; the SVG is plain text, a few KB.

    python3 bench/chart.py            # rewrites bench/chart.svg
    python3 bench/chart.py --check    # exits 1 if bench/chart.svg is not what the results give
"""
import os
import re
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))


def table(path, header):
    """The rows (lists of cells, markup dropped) of the first table in path whose header row starts
    with the given cells."""
    with open(os.path.join(BENCH, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    want = [h.strip() for h in header]
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[:len(want)] == want:
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip().replace("**", "") for c in row.strip().strip("|").split("|")])
            return rows
    sys.exit(f"chart.py: no table in {path} whose header starts with {want}")


def row(rows, label):
    for r in rows:
        if r[0].startswith(label):
            return r
    sys.exit(f"chart.py: no row {label!r}")


def num(text, after=""):
    """The first number in text after the string `after` (thousands commas allowed)."""
    m = re.search(re.escape(after) + r"[^0-9]*([0-9][0-9,]*\.?[0-9]*)", text)
    if not m:
        sys.exit(f"chart.py: no number after {after!r} in {text!r}")
    return float(m.group(1).replace(",", ""))


def panels():
    emb = row(table("RESULTS.md", ["", "hyrax", "onnxruntime", "hyrax-int8", "onnxruntime-int8"]),
              "256-token texts/s, 2 threads")
    cran = table("RESULTS-index.md", ["nDCG@10 (Recall@100), same run", "hyrax", "peer"])
    kw, hy = row(cran, "Cranfield keyword"), row(cran, "Cranfield hybrid")
    pdf = table("RESULTS-pdf.md", ["extractor", "seconds", "MB/s"])
    html = row(table("RESULTS-documents.md", ["measure", "hyrax", "reference"]), "extraction speed")
    w3m = row(table("RESULTS-documents.md", ["measure", "hyrax", "html.parser reference"]), "w3m speed")
    http = row(table("RESULTS-http.md", ["64 clients, 60 s, hybrid top 5, full KEP"]), "queries/s")
    return [
        ("Embedding: 256-token texts/s, 2 threads (Zen 5)", "", [
            ("hyrax int8", num(emb[3]), True), ("ONNX Runtime int8", num(emb[4]), False),
            ("hyrax fp32", num(emb[1]), True), ("ONNX Runtime fp32", num(emb[2]), False)]),
        ("Search quality: Cranfield nDCG@10", "", [
            ("hyrax hybrid", num(hy[1]), True),
            ("RRF of bm25s and ST", num(hy[2], "k 60:"), False),
            ("hyrax keyword", num(kw[1]), True), ("bm25s, stemmed", num(kw[2], "Snowball"), False)]),
        ("Text extraction, MB/s (PDF, HTML)", "", [
            ("hyrax PDF", num(row(pdf, "hyrax")[2]), True), ("mutool", num(row(pdf, "mutool")[2]), False),
            ("pdftotext", num(row(pdf, "pdftotext")[2]), False),
            ("hyrax HTML", num(html[1]), True), ("Python html.parser", num(html[2]), False),
            ("w3m", num(w3m[1]), False)]),
        ("HTTP: hybrid queries/s, 64 clients", "", [
            ("hyrax serve --http", num(http[1]), True), ("FastAPI + FAISS", num(http[2]), False)]),
    ]


def fmt(v):
    return f"{v:.4f}" if v < 1 else f"{v:,.1f}"


def svg(ps):
    W, PW, BAR, GAP, LABEL = 860, 410, 16, 6, 170
    out, y0, heights = [], 0, []
    for i in range(0, len(ps), 2):
        heights.append(max(40 + len(p[2]) * (BAR + GAP) for p in ps[i:i + 2]))
    H = sum(heights) + 10 * len(heights) + 20
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
               'font-family="sans-serif" font-size="12">')
    out.append(f'<rect width="{W}" height="{H}" fill="#fff"/>')
    for i, (title, _, bars) in enumerate(ps):
        x = 10 + (i % 2) * (PW + 20)
        y = 10 + sum(h + 10 for h in heights[:i // 2])
        out.append(f'<text x="{x}" y="{y + 14}" font-weight="bold">{title}</text>')
        top = max(v for _, v, _ in bars)
        for k, (name, v, ours) in enumerate(bars):
            by = y + 26 + k * (BAR + GAP)
            w = max(1, round((PW - LABEL - 60) * v / top))
            colour = "#d9622b" if ours else "#8a9bb0"
            out.append(f'<text x="{x + LABEL - 6}" y="{by + 12}" text-anchor="end">{name}</text>')
            out.append(f'<rect x="{x + LABEL}" y="{by}" width="{w}" height="{BAR}" fill="{colour}"/>')
            out.append(f'<text x="{x + LABEL + w + 4}" y="{by + 12}">{fmt(v)}</text>')
    out.append(f'<text x="10" y="{H - 8}" fill="#555">orange: hyrax; grey: peers measured in the same run '
               '(ST: sentence-transformers). Figures and methods: bench/RESULTS*.md</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    text = svg(panels())
    path = os.path.join(BENCH, "chart.svg")
    if "--check" in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            sys.exit(0 if f.read() == text else "chart.py: bench/chart.svg is not what the results give")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"bench/chart.svg: {len(text)} bytes")


if __name__ == "__main__":
    main()
