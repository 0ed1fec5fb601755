#!/usr/bin/env python3
"""Fits hyrax's relevance calibration (src/retrieve/fusion.h HX_CALIBRATION_*) on the Cranfield
judgements and prints the constants to paste there.

Every judged Cranfield query is run through `hyrax search --json --mode hybrid --group chunk -k 200
--min-score 0`; each returned chunk gives the two features relevance is made of: c = its cosine
with the query ("similarity", computed for every candidate) and x = its BM25 over the query's score
bound ("keyword_score" / "keyword_bound", 0 where the keyword side missed it). A chunk is relevant
when cranqrel judges its document 1..4 (unjudged = not relevant, as trec_eval does). Three logistic
regressions (Newton's method, plain numpy) give P(relevant):
  vector:  on the chunks the vector side found, from c
  keyword: on the chunks the keyword side found, from x
  hybrid:  on every fused chunk, from c and x together
It then prints a reliability table (predicted against observed, by bins) and how many results a
floor keeps per query, so the choice of HX_MIN_RELEVANCE can be checked.

    /work/benchvenv/bin/python bench/calibrate.py [--corpus ../shared/corpora/cranfield] [--hyrax ./hyrax]

Reuses bench/cranfield.py's corpus layout and index (bench/out/cranfield.hyx, made if missing).
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cranfield  # noqa: E402


def features(hyrax, db, query):
    out = subprocess.run([hyrax, "search", "--db", db, "--mode", "hybrid", "--group", "chunk", "-k", "200",
                          "--min-score", "0", "--json", "--", query], capture_output=True, text=True, check=True).stdout
    ans = json.loads(out)
    bound = ans["keyword_bound"]
    rows = []
    for r in ans["results"]:
        d = int(os.path.basename(r["path"]).split(".")[0])
        ks = r["keyword_score"]
        rows.append((d, r["similarity"], ks / bound if ks is not None and bound > 0 else 0.0,
                     r["vector_score"] is not None, ks is not None))
    return rows


def fit(X, y, iters=50, l2=1e-6):
    """Logistic regression with an intercept (last weight) by Newton's method."""
    X = np.hstack([X, np.ones((len(X), 1))])
    w = np.zeros(X.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-X @ w))
        g = X.T @ (p - y) + l2 * w
        H = (X * (p * (1 - p))[:, None]).T @ X + l2 * np.eye(len(w))
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w


def predict(w, X):
    return 1 / (1 + np.exp(-(np.hstack([X, np.ones((len(X), 1))]) @ w)))


def report(name, w, X, y, qid):
    p = predict(w, X)
    ll = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
    print("%s: %d chunks, %.4f relevant, log loss %.4f" % (name, len(y), y.mean(), ll))
    print("  %-11s %7s %9s %9s" % ("predicted", "chunks", "mean p", "observed"))
    for lo, hi in ((0, .05), (.05, .1), (.1, .2), (.2, .3), (.3, .5), (.5, .7), (.7, 1.01)):
        m = (p >= lo) & (p < hi)
        if m.any():
            print("  %4.2f..%4.2f %7d %9.4f %9.4f" % (lo, min(hi, 1), m.sum(), p[m].mean(), y[m].mean()))
    nq = len(set(qid))
    for floor in (0.05, 0.1, 0.2, 0.3, 0.5):
        m = p >= floor
        print("  floor %.2f keeps %6.2f chunks per query, %.4f of them relevant; %d of %d queries keep none" %
              (floor, m.sum() / nq, y[m].mean() if m.any() else 0, nq - len(set(qid[m])), nq))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.path.join(here, "..", "..", "shared", "corpora", "cranfield"))
    ap.add_argument("--hyrax", default=os.path.join(here, "..", "hyrax"))
    ap.add_argument("--out", default=os.path.join(here, "out"))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    docs_dir = os.path.join(args.out, "cranfield", "docs")
    db = os.path.join(args.out, "cranfield.hyx")
    cranfield.write_docs(args.corpus, docs_dir)
    if not os.path.exists(db):
        subprocess.run([args.hyrax, "index", "--db", db, docs_dir], check=True, stdout=sys.stderr)
    queries = [f.get("W", "") for _, f in cranfield.parse_blocks(os.path.join(args.corpus, "cran.qry"))]
    qrels = cranfield.load_qrels(args.corpus)
    judged = [i for i in range(1, len(queries) + 1) if i in qrels]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        runs = list(ex.map(lambda i: features(args.hyrax, db, queries[i - 1]), judged))
    rows = [(i, d, c, x, v, k, d in qrels[i]) for i, run in zip(judged, runs) for d, c, x, v, k in run]
    q = np.array([r[0] for r in rows])
    c = np.array([r[2] for r in rows], dtype=float)
    x = np.array([r[3] for r in rows], dtype=float)
    vs = np.array([r[4] for r in rows])
    ks = np.array([r[5] for r in rows])
    y = np.array([r[6] for r in rows], dtype=float)
    wv = fit(c[vs, None], y[vs])
    wk = fit(x[ks, None], y[ks])
    wh = fit(np.stack([c, x], 1), y)
    report("vector", wv, c[vs, None], y[vs], q[vs])
    report("keyword", wk, x[ks, None], y[ks], q[ks])
    report("hybrid", wh, np.stack([c, x], 1), y, q)
    print("\n/* fitted by bench/calibrate.py on Cranfield (%d judged queries, %d chunks) */" % (len(judged), len(y)))
    print("#define HX_CALIBRATION_VECTOR {%.4ff, 0, %.4ff}" % (wv[0], wv[1]))
    print("#define HX_CALIBRATION_KEYWORD {0, %.4ff, %.4ff}" % (wk[0], wk[1]))
    print("#define HX_CALIBRATION_HYBRID {%.4ff, %.4ff, %.4ff}" % (wh[0], wh[1], wh[2]))


if __name__ == "__main__":
    main()
