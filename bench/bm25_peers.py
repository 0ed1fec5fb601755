#!/usr/bin/env python3
"""bm25_peers.py: keyword-search peers for bench/bm25_bench.c on the same documents and queries:
bm25s, tantivy and SQLite FTS5, top-k (10), one thread, queries/s. Also writes the query file
(--make-queries: 200 KEP titles as lowercase [a-z0-9]+ words, so every engine sees the same
words) and, with --hyrax, runs bench/bm25_bench and prints ratios against it.

Every engine builds its index first; then the timed passes run round-robin (each repetition, each
engine in turn, the order rotated per repetition), so a slow spell of the machine hits all alike.
Each engine's fastest pass counts; the ratio lines also give the median of the per-repetition
ratios.

Usage: bench/.venv/bin/python bench/bm25_peers.py [--dir D] [--queries F] [--k 10] [--seconds 2]
       [--reps 5] [--make-queries] [--hyrax]
Output: a build line per engine, a line per engine with its fastest pass, then ratio lines.
"""
import argparse
import statistics
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

    return dict(engine="bm25s", version=bm25s.__version__, build_s=build), lambda: timed(run, qtoks, seconds)


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

    return (dict(engine="tantivy", version=importlib.metadata.version("tantivy"), build_s=build),
            lambda: timed(run, parsed, seconds))


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

    return (dict(engine="sqlite-fts5", version=sqlite3.sqlite_version, build_s=build),
            lambda: timed(run, exprs, seconds))


def bench_hyrax(here, a):
    """Starts bench/bm25_bench --stdin and waits for its build line; each pass asks it for one."""
    exe = os.path.join(here, "bm25_bench")
    if not os.path.exists(exe):
        sys.exit("bench/bm25_bench is missing: run `make bench/bm25_bench` first")
    p = subprocess.Popen([exe, a.dir, a.queries, str(a.k), str(a.seconds), "0", "--stdin"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        sys.exit(f"bm25_bench failed with status {p.wait()}")
    build = dict(x.split("=", 1) for x in line.split()[1:])

    def one_pass():
        p.stdin.write("maxscore\n")
        p.stdin.flush()
        r = dict(x.split("=", 1) for x in p.stdout.readline().split()[1:])
        return float(r["qps"]), float(r["cpu_qps"]), float(r["hits_per_query"])
    return dict(engine="hyrax", build_s=float(build["build_s"])), one_pass, p


def fmt(d):
    return " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in d.items())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/work/shared/corpora/keps")
    ap.add_argument("--queries", default=os.path.join(here, "bm25_queries.txt"))
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=2.0, help="length of one timed pass")
    ap.add_argument("--reps", type=int, default=5, help="timed passes per engine; the fastest counts")
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
    print(f"bm25_peers docs={len(texts)} queries={len(queries)} k={a.k} threads=1 reps={a.reps} "
          f"seconds={a.seconds}")
    engines, hyrax_proc = [], None
    if a.hyrax:
        info, one_pass, hyrax_proc = bench_hyrax(here, a)
        engines.append((info, one_pass))
    for fn in (bench_bm25s, bench_tantivy, bench_fts5):
        engines.append(fn(texts, queries, a.k, a.seconds))
    for info, _ in engines:
        print("bm25_build " + fmt(info))
    passes = {info["engine"]: [] for info, _ in engines}   # per engine, (qps, cpu_qps) by repetition
    hits = {}
    for rep in range(a.reps):
        for i in range(len(engines)):
            info, one_pass = engines[(i + rep) % len(engines)]
            qps, cpu_qps, hits[info["engine"]] = one_pass()
            passes[info["engine"]].append((qps, cpu_qps))
    if hyrax_proc:
        hyrax_proc.stdin.close()
        hyrax_proc.wait()
    for name, runs in passes.items():
        print("bm25_peers " + fmt(dict(engine=name, qps=max(r[0] for r in runs), cpu_qps=max(r[1] for r in runs),
                                       hits_per_query=hits[name])))
    if a.hyrax:
        base = passes["hyrax"]
        for name, runs in passes.items():
            if name == "hyrax":
                continue
            per_rep = [b[0] / r[0] for b, r in zip(base, runs)]
            print(f"bm25_ratio hyrax_over_{name} qps={max(b[0] for b in base) / max(r[0] for r in runs):.2f} "
                  f"cpu_qps={max(b[1] for b in base) / max(r[1] for r in runs):.2f} "
                  f"per_rep_median={statistics.median(per_rep):.2f} per_rep_min={min(per_rep):.2f} "
                  f"per_rep_max={max(per_rep):.2f}")

if __name__ == "__main__":
    main()
