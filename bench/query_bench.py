#!/usr/bin/env python3
"""query_bench.py: query latency of hyrax and of the seed 002 stack over one index of the same
corpus (the WORK folder bench/ingest_bench.py leaves: WORK/hyrax/index.hyx and WORK/seed002/).

hyrax: bench/query_bench (C, public API, one thread): model + index open, first query answered,
then every query once per mode (hybrid, vector, keyword), k = 10, query embedding included; and
`hyrax search --json` from process start to answer (median of --spawns runs). seed 002: the same
in-process (torch and faiss on one thread): model load, store load (FAISS index, JSON metadata,
BM25 pickle) and first query, then per mode embed query + FAISS + BM25 get_scores + RRF (k = 60 over
4 x k); and a fresh Python process from start to first answer. Each measured pass follows 20
untimed warm-up queries. Latency is wall time; cpu_* is the thread's CPU time (steadier on a
loaded machine).

Queries: bench/queries_keps.txt, made once (--make-queries) from the full corpus: the kep.yaml
titles and the distinct '##'/'###' headings of the README.md files, sorted paths, 100 of each
taken at a fixed stride, keyword-syntax characters (" * +, leading -) removed.

    make bench/query_bench
    nice -n 10 bench/.venv/bin/python bench/query_bench.py --work /tmp/hyrax-bench-30 [--k 10]
        [--spawns 5] [--make-queries] [--corpus DIR] [--hyrax ./hyrax] [--bin bench/query_bench]
Prints JSON lines, then a Markdown table with hyrax/seed002 ratios.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
QUERIES = os.path.join(HERE, "queries_keps.txt")


def clean(s):
    s = re.sub(r'["*+`]', " ", s)
    s = re.sub(r"(^|\s)-+", r"\1", s)
    return " ".join(s.split())


def make_queries(corpus, out, n=200):
    from seed002_stack import discover
    titles, headings = [], []
    for p in discover(corpus):
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if p.endswith("kep.yaml"):
            m = re.search(r"^title:\s*(.+)$", text, re.M)
            if m and "template" not in m.group(1).lower():
                titles.append(clean(m.group(1).strip().strip("'\"")))
        elif p.endswith("README.md"):
            headings += [clean(h) for h in re.findall(r"^#{2,3} +(.+)$", text, re.M)]
    pick = lambda xs, m: xs[::max(1, len(xs) // m)][:m]
    titles = list(dict.fromkeys(t for t in titles if t))
    headings = [h for h in dict.fromkeys(headings) if h and h not in titles]
    qs = pick(titles, n // 2)
    qs += pick(headings, n - len(qs))
    with open(out, "w") as f:
        f.write("\n".join(qs) + "\n")
    print("wrote %d queries to %s" % (len(qs), out), file=sys.stderr)


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(q * len(v) + 0.999999) - 1))]


def cpu_ms():
    return time.clock_gettime(time.CLOCK_THREAD_CPUTIME_ID) * 1e3


def seed_open_and_query(store_dir, queries, k):
    import seed002_stack
    import faiss
    faiss.omp_set_num_threads(1)
    t0 = time.perf_counter()
    store = seed002_stack.HybridStore(seed002_stack.load_model(1))
    t1 = time.perf_counter()
    store.load(store_dir)
    t2 = time.perf_counter()
    store.search(queries[0], "hybrid", k)
    t3 = time.perf_counter()
    rows = [{"bench": "open", "engine": "seed002", "model_load_ms": (t1 - t0) * 1e3, "store_load_ms": (t2 - t1) * 1e3,
             "first_query_ms": (t3 - t2) * 1e3, "open_to_first_answer_ms": (t3 - t0) * 1e3}]
    for mode in ("hybrid", "vector", "keyword"):
        for q in queries[:20]:
            store.search(q, mode, k)
        wall, cpu, hits = [], [], 0
        for q in queries:
            c, w = cpu_ms(), time.perf_counter()
            hits += len(store.search(q, mode, k))
            wall.append((time.perf_counter() - w) * 1e3)
            cpu.append(cpu_ms() - c)
        rows.append({"bench": "query", "engine": "seed002", "mode": mode, "queries": len(queries), "k": k,
                     "p50_ms": pct(wall, .5), "p99_ms": pct(wall, .99), "mean_ms": statistics.mean(wall),
                     "cpu_p50_ms": pct(cpu, .5), "cpu_p99_ms": pct(cpu, .99), "hits_per_query": hits / len(queries)})
    return rows


def spawn_ms(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("query_bench: %s failed: %s" % (cmd[:3], p.stderr[-2000:]))
    return (time.perf_counter() - t0) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="folder left by bench/ingest_bench.py")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--spawns", type=int, default=5)
    ap.add_argument("--make-queries", action="store_true")
    ap.add_argument("--corpus", default="/work/shared/corpora/keps", help="source of the queries")
    ap.add_argument("--hyrax", default=os.path.join(ROOT, "hyrax"))
    ap.add_argument("--bin", default=os.path.join(HERE, "query_bench"), help="the C side (make bench/query_bench)")
    a = ap.parse_args()
    if a.make_queries or not os.path.exists(QUERIES):
        make_queries(a.corpus, QUERIES)
    queries = [q for q in open(QUERIES).read().splitlines() if q]
    db, store = os.path.join(a.work, "hyrax", "index.hyx"), os.path.join(a.work, "seed002")
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")

    rows = []
    out = subprocess.run([a.bin, db, QUERIES, str(a.k)], env=env,
                         capture_output=True, text=True, check=True).stdout
    rows += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    spawns = [spawn_ms([a.hyrax, "search", "--db", db, "--json", "-k", str(a.k), q], env)
              for q in queries[:a.spawns]]
    rows.append({"bench": "process_to_first_answer", "engine": "hyrax", "command": "hyrax search --json",
                 "runs": len(spawns), "median_ms": statistics.median(spawns), "min_ms": min(spawns)})
    seed_cmd = [sys.executable, "-c", "import sys; sys.path.insert(0, %r); import seed002_stack as s; "
                "print(len(s.open_store(sys.argv[1]).search(sys.argv[2], 'hybrid', %d)))" % (HERE, a.k), store]
    spawns = [spawn_ms(seed_cmd + [q], env) for q in queries[:max(1, a.spawns // 2)]]
    rows.append({"bench": "process_to_first_answer", "engine": "seed002", "command": "python: import, load store, search",
                 "runs": len(spawns), "median_ms": statistics.median(spawns), "min_ms": min(spawns)})
    rows += seed_open_and_query(store, queries, a.k)
    for r in rows:
        print(json.dumps(r))

    get = lambda bench, engine, mode=None: next(r for r in rows if r["bench"] == bench and r["engine"] == engine
                                                and r.get("mode") == mode)
    print("\nQueries: %d from %s, k = %d, one thread, index %s\n" % (len(queries), os.path.relpath(QUERIES, ROOT), a.k, a.work))
    print("| measure | hyrax | seed002 | hyrax/seed002 | target (hyrax) |")
    print("|---|---:|---:|---:|---|")
    line = lambda name, h, s, t="": print("| %s | %.3f | %.3f | %.4f | %s |" % (name, h, s, h / s, t))
    ho, so = get("open", "hyrax"), get("open", "seed002")
    line("model load ms (seed: torch + sentence-transformers imports and model)", ho["model_open_ms"], so["model_load_ms"])
    line("index open ms (seed: FAISS + JSON + BM25 pickle)", ho["index_open_ms"], so["store_load_ms"], "<= 20 ms")
    line("first query after open ms", ho["first_query_ms"], so["first_query_ms"])
    line("open + first query answered ms", ho["open_to_first_answer_ms"], so["open_to_first_answer_ms"])
    hp, sp = get("process_to_first_answer", "hyrax"), get("process_to_first_answer", "seed002")
    line("process start to first answer ms (median)", hp["median_ms"], sp["median_ms"])
    targets = {"hybrid": "p50 <= 5 ms", "keyword": "p50 <= 1 ms", "vector": ""}
    for mode in ("hybrid", "vector", "keyword"):
        h, s = get("query", "hyrax", mode), get("query", "seed002", mode)
        for key in ("p50_ms", "p99_ms", "cpu_p50_ms", "cpu_p99_ms"):
            line("%s %s" % (mode, key), h[key], s[key], targets[mode] if key == "p50_ms" else "")


if __name__ == "__main__":
    main()
