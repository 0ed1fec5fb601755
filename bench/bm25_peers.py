#!/usr/bin/env python3
"""bm25_peers.py: keyword-search peers for bench/bm25_bench.c on the same documents and queries:
bm25s, tantivy and SQLite FTS5, top-k (10), one thread, queries/s. Also writes the query file
(--make-queries: 200 KEP titles as lowercase [a-z0-9]+ words, so every engine sees the same
words) and, with --hyrax, runs bench/bm25_bench and prints ratios against it.

Usage: bench/.venv/bin/python bench/bm25_peers.py [--dir D] [--queries F] [--k 10] [--seconds 3]
       [--make-queries] [--hyrax]      Output: one key=value line per engine, then ratio lines.
"""
import argparse
import importlib.metadata
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time


def find_docs(root):
    paths = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if not f.startswith(".") and (f.endswith(".md") or f.endswith(".yaml")):
                paths.append(os.path.join(d, f))
    return sorted(paths)


def words(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def make_queries(root, out, n=200):
    titles = []
    for p in find_docs(root):
        if os.path.basename(p) != "kep.yaml":
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("title:"):
                    w = words(line[len("title:"):])
                    if w and w != ["kep", "template"]:
                        titles.append(" ".join(dict.fromkeys(w)))
                    break
    titles = list(dict.fromkeys(titles))[:n]
    with open(out, "w") as f:
        f.write("\n".join(titles) + "\n")
    print(f"wrote {len(titles)} queries to {out}")


def timed(run, queries, seconds):
    """Runs every query repeatedly until `seconds` pass; returns (qps by wall time, qps by this
    process's CPU time, mean hits per query)."""
    runs, hits = 0, 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        for q in queries:
            hits += run(q)
        runs += 1
        el = time.perf_counter() - start
        if el >= seconds:
            n = runs * len(queries)
            return n / el, n / max(time.process_time() - cpu_start, 1e-9), hits / n


def bench_bm25s(texts, queries, k, seconds):
    import bm25s
    import numpy as np

    t0 = time.perf_counter()
    corpus = [words(t) for t in texts]
    model = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    model.index(corpus, show_progress=False)
    build = time.perf_counter() - t0
    qtoks = [q.split() for q in queries]
    vocab = model.vocab_dict

    def run(q):
        known = [w for w in q if w in vocab]
        if not known:
            return 0
        s = model.get_scores(known)
        top = np.argpartition(-s, k)[:k] if len(s) > k else np.arange(len(s))
        return int((s[top] > 0).sum())

    qps, cpu_qps, hits = timed(run, qtoks, seconds)
    return dict(engine="bm25s", version=bm25s.__version__, build_s=build, qps=qps, cpu_qps=cpu_qps,
                hits_per_query=hits)


def bench_tantivy(texts, queries, k, seconds):
    import tantivy

    t0 = time.perf_counter()
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("body", stored=False)
    sb.add_integer_field("id", stored=True)
    schema = sb.build()
    tmp = tempfile.mkdtemp(prefix="bm25_tantivy_")
    index = tantivy.Index(schema, path=tmp)
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for i, t in enumerate(texts):
        writer.add_document(tantivy.Document(body=t, id=i))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    build = time.perf_counter() - t0
    searcher = index.searcher()
    parsed = [index.parse_query(q, ["body"]) for q in queries]

    def run(q):
        return len(searcher.search(q, k).hits)

    qps, cpu_qps, hits = timed(run, parsed, seconds)
    return dict(engine="tantivy", version=importlib.metadata.version("tantivy"), build_s=build, qps=qps,
                cpu_qps=cpu_qps, hits_per_query=hits)


def bench_fts5(texts, queries, k, seconds):
    t0 = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    db.executemany("INSERT INTO docs(rowid, body) VALUES (?, ?)", ((i, t) for i, t in enumerate(texts)))
    db.commit()
    build = time.perf_counter() - t0
    exprs = [" OR ".join('"%s"' % w for w in q.split()) for q in queries]
    sql = "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?"

    def run(e):
        return len(db.execute(sql, (e, k)).fetchall())

    qps, cpu_qps, hits = timed(run, exprs, seconds)
    return dict(engine="sqlite-fts5", version=sqlite3.sqlite_version, build_s=build, qps=qps, cpu_qps=cpu_qps,
                hits_per_query=hits)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/work/shared/corpora/keps")
    ap.add_argument("--queries", default=os.path.join(here, "bm25_queries.txt"))
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--make-queries", action="store_true")
    ap.add_argument("--hyrax", action="store_true", help="also run bench/bm25_bench and print ratios")
    a = ap.parse_args()
    if a.make_queries:
        make_queries(a.dir, a.queries)
        return
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.OperationalError:
        sys.exit("this Python's sqlite3 lacks FTS5")
    texts = []
    for p in find_docs(a.dir):
        with open(p, encoding="utf-8", errors="replace") as f:
            texts.append(f.read())
    queries = [l.strip() for l in open(a.queries) if l.strip()]
    print(f"bm25_peers docs={len(texts)} queries={len(queries)} k={a.k} threads=1")
    results = []
    if a.hyrax:
        exe = os.path.join(here, "bm25_bench")
        out = subprocess.run([exe, a.dir, a.queries, str(a.k), str(a.seconds)], capture_output=True, text=True,
                             check=True).stdout
        sys.stdout.write(out)
        for line in out.splitlines():
            kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
            if kv.get("engine") == "hyrax" and kv.get("mode") == "maxscore":
                results.append(dict(engine="hyrax", qps=float(kv["qps"]), cpu_qps=float(kv["cpu_qps"])))
    for fn in (bench_bm25s, bench_tantivy, bench_fts5):
        r = fn(texts, queries, a.k, a.seconds)
        results.append(r)
        print("bm25_peers " + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()))
    if a.hyrax and results and results[0]["engine"] == "hyrax":
        base = results[0]
        for r in results[1:]:
            print(f"bm25_ratio hyrax_over_{r['engine']} qps={base['qps'] / r['qps']:.2f} "
                  f"cpu_qps={base['cpu_qps'] / r['cpu_qps']:.2f}")


if __name__ == "__main__":
    main()
