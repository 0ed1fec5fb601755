#!/usr/bin/env python3
"""ingest_bench.py: full ingest of one folder by `hyrax index` and by the seed 002 Python pipeline
(bench/seed002_stack.py: read, chunk, embed, build FAISS + BM25, persist), same thread count.

Each engine runs as its own process under /usr/bin/time -v, one after the other, cold (new index):
wall time, CPU time (user + system), peak RSS, index size on disk, documents and chunks. The
seed's process start (Python imports, model load) is part of its ingest, as it is of hyrax's.

--limit N copies a deterministic subset into WORK/corpus: the sorted list of .md/.yaml files,
every k-th file (k = ceil(total / N)), first N, folder structure kept. --limit 0 uses the corpus
in place. The indexes stay in WORK (hyrax/index.hyx, seed002/) for bench/query_bench.py and
bench/mcp_bench.py.

    nice -n 10 bench/.venv/bin/python bench/ingest_bench.py [--corpus DIR] [--limit N]
        [--threads 2] [--work DIR] [--hyrax ./hyrax]
Prints one JSON line per engine, one ratio line (hyrax / seed002), then a Markdown table.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from seed002_stack import discover  # noqa: E402


def make_subset(corpus, limit, dest):
    files = discover(corpus)
    step = max(1, math.ceil(len(files) / limit))
    chosen = files[::step][:limit]
    shutil.rmtree(dest, ignore_errors=True)
    for f in chosen:
        out = os.path.join(dest, os.path.relpath(f, corpus))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(f, out)
    return len(chosen), step


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def timed(cmd, env):
    """Runs cmd under /usr/bin/time -v; returns (wall_s, cpu_s, peak_rss_kb, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("ingest_bench: %s failed (%d):\n%s" % (cmd[0], p.returncode, p.stderr[-3000:]))
    grab = lambda key: float(re.search(re.escape(key) + r":\s*([\d.]+)", p.stderr).group(1))
    cpu = grab("User time (seconds)") + grab("System time (seconds)")
    return wall, cpu, int(grab("Maximum resident set size (kbytes)")), p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="/work/shared/corpora/keps")
    ap.add_argument("--limit", type=int, default=0, help="files in the subset; 0 = the whole corpus")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=None, help="default /tmp/hyrax-bench-N")
    ap.add_argument("--hyrax", default=os.path.join(ROOT, "hyrax"))
    a = ap.parse_args()

    work = os.path.abspath(a.work or "/tmp/hyrax-bench-%s" % (a.limit or "full"))
    os.makedirs(work, exist_ok=True)
    if a.limit:
        corpus = os.path.join(work, "corpus")
        n_files, step = make_subset(a.corpus, a.limit, corpus)
        subset = "every %d-th of the sorted .md/.yaml files, %d files" % (step, n_files)
    else:
        corpus, n_files, subset = a.corpus, len(discover(a.corpus)), "full corpus"
    with open(os.path.join(work, "corpus.path"), "w") as f:
        f.write(os.path.abspath(corpus) + "\n")
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS=str(a.threads), TOKENIZERS_PARALLELISM="false")

    rows = {}
    hx_db = os.path.join(work, "hyrax", "index.hyx")
    shutil.rmtree(os.path.dirname(hx_db), ignore_errors=True)
    os.makedirs(os.path.dirname(hx_db))
    wall, cpu, rss, _ = timed([a.hyrax, "index", "--db", hx_db, "--threads", str(a.threads), corpus], env)
    st = json.loads(subprocess.run([a.hyrax, "stats", "--json", "--db", hx_db], capture_output=True, text=True).stdout)
    rows["hyrax"] = {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": rss / 1024, "disk_mb": dir_bytes(os.path.dirname(hx_db)) / 2**20,
                     "documents": st.get("documents"), "chunks": st.get("chunks")}

    store = os.path.join(work, "seed002")
    shutil.rmtree(store, ignore_errors=True)
    wall, cpu, rss, out = timed([sys.executable, os.path.join(HERE, "seed002_stack.py"), corpus, store,
                                 "--threads", str(a.threads)], env)
    stats = json.loads(out.strip().splitlines()[-1])
    rows["seed002"] = {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": rss / 1024, "disk_mb": dir_bytes(store) / 2**20,
                       "documents": stats["documents"], "chunks": stats["chunks"],
                       "phases_s": {k: round(v, 2) for k, v in stats.items() if k.endswith("_s")}}

    common = {"bench": "ingest", "files": n_files, "subset": subset, "threads": a.threads}
    for name, r in rows.items():
        print(json.dumps(dict(common, engine=name, **r)))
    ratio = {k: rows["hyrax"][k] / rows["seed002"][k] for k in ("wall_s", "cpu_s", "peak_rss_mb", "disk_mb")}
    print(json.dumps(dict(common, engine="ratio hyrax/seed002", **ratio)))

    print("\nIngest, %s (%s), %d threads\n" % (corpus, subset, a.threads))
    print("| engine | wall s | CPU s | peak RSS MiB | on disk MiB | documents | chunks |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r in rows.items():
        print("| %s | %.1f | %.1f | %.0f | %.2f | %s | %s |" % (name, r["wall_s"], r["cpu_s"], r["peak_rss_mb"],
                                                           r["disk_mb"], r["documents"], r["chunks"]))
    print("| hyrax/seed002 | %.3f | %.3f | %.3f | %.3f | | |" % tuple(ratio.values()))


if __name__ == "__main__":
    main()
