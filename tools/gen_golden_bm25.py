#!/usr/bin/env python3
"""gen_golden_bm25.py: golden BM25 fixtures for tests/test_bm25.c from an independent
implementation (bm25s, method="lucene", float64), cross-checked against a plain-Python Lucene
BM25 written from the formula. Owns tests/data/bm25_cranfield.txt and tests/golden/bm25_*.

The corpus is stored already analyzed (lowercase ASCII [a-z0-9]+ words separated by single
spaces), which hyrax's analyzer maps to exactly the same terms, so the comparison does not depend
on tokenization. Run: bench/.venv/bin/python tools/gen_golden_bm25.py [path/to/cranfield]
"""
import math
import os
import re
import sys

import bm25s
import numpy as np

N_DOCS = 240
N_QUERIES = 50
TOP = 20
K1, B = 1.2, 0.75


def parse_cran(path, fields):
    recs, cur, field = [], None, None
    with open(path, encoding="latin-1") as f:
        for line in f:
            if line.startswith(".I "):
                cur = {"id": int(line.split()[1]), "text": []}
                recs.append(cur)
                field = None
            elif line[:2] in (".T", ".A", ".B", ".W") and line.strip() in (".T", ".A", ".B", ".W"):
                field = line.strip()
            elif cur is not None and field in fields:
                cur["text"].append(line)
    return recs


def words(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "shared", "corpora", "cranfield")
    docs = parse_cran(os.path.join(root, "cran.all.1400"), (".T", ".W"))[:N_DOCS]
    corpus = [(d["id"], words(" ".join(d["text"]))) for d in docs]
    qrecs = parse_cran(os.path.join(root, "cran.qry"), (".W",))[:N_QUERIES]
    queries = []
    for i, q in enumerate(qrecs):
        seen = []
        for w in words(" ".join(q["text"])):
            if w not in seen:
                seen.append(w)
        queries.append((i + 1, seen))

    # bm25s, Lucene variant, double precision.
    model = bm25s.BM25(method="lucene", k1=K1, b=B, dtype="float64")
    model.index([toks for _, toks in corpus], show_progress=False)
    ids = np.array([i for i, _ in corpus])

    # Plain Lucene BM25 (>= 8 form, exact lengths) for the cross-check.
    n = len(corpus)
    avgdl = sum(len(t) for _, t in corpus) / n
    df = {}
    for _, toks in corpus:
        for w in set(toks):
            df[w] = df.get(w, 0) + 1

    def plain(qtoks, toks):
        s = 0.0
        for w in qtoks:
            tf = toks.count(w)
            if tf:
                idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                s += idf * tf / (tf + K1 * (1 - B + B * len(toks) / avgdl))
        return s

    out = []
    worst = 0.0
    for qid, qtoks in queries:
        known = [w for w in qtoks if w in df]
        scores = model.get_scores(known) if known else np.zeros(n)
        order = sorted(range(n), key=lambda i: (-scores[i], ids[i]))
        for rank, i in enumerate(order[:TOP]):
            if scores[i] <= 0:
                break
            ref = plain(qtoks, corpus[i][1])
            worst = max(worst, abs(ref - scores[i]))
            out.append(f"{qid} {rank + 1} {ids[i]} {scores[i]:.9f}")
    if worst > 1e-6:
        sys.exit(f"bm25s and the plain formula differ by {worst}")

    os.makedirs(os.path.join(here, "tests/data"), exist_ok=True)
    with open(os.path.join(here, "tests/data/bm25_cranfield.txt"), "w") as f:
        for i, toks in corpus:
            f.write(f"{i}\t{' '.join(toks)}\n")
    with open(os.path.join(here, "tests/golden/bm25_queries.txt"), "w") as f:
        for qid, qtoks in queries:
            f.write(f"{qid}\t{' '.join(qtoks)}\n")
    with open(os.path.join(here, "tests/golden/bm25_top20.txt"), "w") as f:
        f.write(f"# bm25s {bm25s.__version__} method=lucene k1={K1} b={B}; qid rank doc score\n")
        f.write("\n".join(out) + "\n")
    print(f"{n} docs, {len(queries)} queries, {len(out)} golden rows, max |bm25s - plain| = {worst:.2e}")


if __name__ == "__main__":
    main()
