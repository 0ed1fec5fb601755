#!/usr/bin/env python3
"""hnsw_peers.py: hyrax's HNSW (bench/hnsw_bench) against hnswlib and faiss-cpu HNSW on the same
vectors, the same M / efConstruction and the same build threads; queries on one thread. Once the
three graphs are built, the query passes run round-robin (repetition, ef, engine), --reps times
(5), and each engine's fastest pass per ef counts: load only ever slows a pass, and interleaving
lets a slow spell of this shared machine hit every engine alike.
Each engine builds one graph per --seeds value (1,2,3): recall at an ef is the mean over the seeds
(one graph's recall swings by about 0.005 with its random levels, enough to move the 0.95 point),
queries/s the best, build time the median.
Owns only its data folder (default /tmp/hyrax_hnsw_bench); needs bench/.venv (numpy, hnswlib, faiss-cpu).

  bench/.venv/bin/python bench/hnsw_peers.py gen [--n 100000] [--nq 1000]   # write the data set
  bench/.venv/bin/python bench/hnsw_peers.py gen --index FILE [--dir D]      # ... or real vectors
  bench/.venv/bin/python bench/hnsw_peers.py run [--threads 2] [--dir D]     # all three + ratios

The synthetic data set is a stand-in for MiniLM embeddings (384-d, L2-normalised): a mixture of
clusters, each spread along its own low-dimensional subspace, plus isotropic noise (as in
tests/test_hnsw.c). With --index, the base vectors are the real MiniLM chunk embeddings of a hyrax
index (bench/export_vectors) and the queries are up to nq of its document titles, drawn at random
and embedded by `hyrax embed`: short texts against passages, as users query. Files: base.f32
(n x dim float32), query.f32 (nq x dim), gt.u32 (nq x 100 exact inner-product neighbours, best
first). Output lines are `key=value`, one per measurement.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

GT_DEPTH = 100
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LINES = []  # every measurement line printed, for the summary


def exact_neighbours(base, query):
    gt = np.empty((len(query), GT_DEPTH), dtype=np.uint32)
    for s in range(0, len(query), 100):
        sims = query[s:s + 100] @ base.T
        top = np.argpartition(-sims, GT_DEPTH, axis=1)[:, :GT_DEPTH]
        order = np.argsort(-np.take_along_axis(sims, top, axis=1), axis=1, kind="stable")
        gt[s:s + 100] = np.take_along_axis(top, order, axis=1)
    return gt


def write_set(args, base, query, what):
    gt = exact_neighbours(base, query)
    os.makedirs(args.dir, exist_ok=True)
    base.tofile(os.path.join(args.dir, "base.f32"))
    query.tofile(os.path.join(args.dir, "query.f32"))
    gt.tofile(os.path.join(args.dir, "gt.u32"))
    nn1 = float(np.mean(np.sum(query * base[gt[:, 0]], axis=1)))
    print(f"gen {what} n={len(base)} nq={len(query)} dim={base.shape[1]} mean_nn1_cos={nn1:.3f} "
          f"dir={args.dir}")


def gen_from_index(args):
    exe = os.path.join(HERE, "export_vectors")
    if not os.path.exists(exe):
        sys.exit("bench/export_vectors is missing: run `make bench/export_vectors` first")
    os.makedirs(args.dir, exist_ok=True)
    vec_path, titles_path = os.path.join(args.dir, "all.f32"), os.path.join(args.dir, "titles.txt")
    subprocess.run([exe, args.index, vec_path, titles_path], check=True)
    base = np.fromfile(vec_path, dtype=np.float32).reshape(-1, args.dim)
    os.remove(vec_path)
    with open(titles_path, encoding="utf-8") as f:
        titles = sorted({t.strip() for t in f if t.strip()})
    rng = np.random.default_rng(args.seed)
    chosen = [titles[i] for i in rng.permutation(len(titles))[:args.nq]]
    p = subprocess.run([os.path.join(ROOT, "hyrax"), "embed", "--threads", "1"], check=True,
                       input="\n".join(chosen) + "\n", capture_output=True, text=True)
    query = np.array([json.loads(line) for line in p.stdout.splitlines()], dtype=np.float32)
    assert len(query) == len(chosen), "hyrax embed answered %d of %d titles" % (len(query), len(chosen))
    write_set(args, base, query, "index=" + os.path.basename(args.index))


def gen(args):
    if args.index:
        gen_from_index(args)
        return
    rng = np.random.default_rng(args.seed)
    d, c, sub = args.dim, args.clusters, args.subdim
    centers = rng.standard_normal((c, d)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    basis = rng.standard_normal((c, sub, d)).astype(np.float32)
    basis /= np.linalg.norm(basis, axis=2, keepdims=True)

    def sample(n):
        out = np.empty((n, d), dtype=np.float32)
        for s in range(0, n, 10000):
            m = min(10000, n - s)
            lab = rng.integers(0, c, m)
            coef = rng.standard_normal((m, sub)).astype(np.float32) * args.spread
            v = centers[lab] + args.noise * rng.standard_normal((m, d)).astype(np.float32)
            v += np.einsum("ms,msd->md", coef, basis[lab])
            out[s:s + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
        return out

    write_set(args, sample(args.n), sample(args.nq), f"synthetic clusters={c}")


def load(args):
    base = np.fromfile(os.path.join(args.dir, "base.f32"), dtype=np.float32).reshape(-1, args.dim)
    query = np.fromfile(os.path.join(args.dir, "query.f32"), dtype=np.float32).reshape(-1, args.dim)
    gt = np.fromfile(os.path.join(args.dir, "gt.u32"), dtype=np.uint32).reshape(-1, GT_DEPTH)
    return base, query, gt


def recall(labels, gt, k):
    hit = sum(len(set(labels[i, :k].tolist()) & set(gt[i, :k].tolist())) for i in range(len(gt)))
    return hit / (len(gt) * k)


def timed(run):
    """run()'s result, wall and CPU seconds."""
    t, c = time.perf_counter(), time.process_time()
    out = run()
    return out, time.perf_counter() - t, time.process_time() - c


def emit(**kv):
    line = " ".join(f"{k}={v}" for k, v in kv.items())
    print(line, flush=True)
    LINES.append(line)


def build_hnswlib(args, base, query, gt, seed):
    """Builds the graph, prints its line; returns pass(ef) -> (recall, qps, qps_cpu)."""
    import hnswlib
    n = len(base)
    idx = hnswlib.Index(space="ip", dim=args.dim)
    idx.init_index(max_elements=n, ef_construction=args.efc, M=args.M, random_seed=seed)
    idx.set_num_threads(args.threads)
    _, build, build_cpu = timed(lambda: idx.add_items(base, np.arange(n), num_threads=args.threads))
    with tempfile.NamedTemporaryFile(suffix=".hnsw") as f:
        idx.save_index(f.name)
        size = os.path.getsize(f.name)
    emit(engine="hnswlib", seed=seed, n=n, dim=args.dim, M=args.M, efc=args.efc, threads=args.threads,
         build_s=f"{build:.3f}", build_cpu_s=f"{build_cpu:.3f}", bytes_per_vec=f"{size / n:.1f}")
    idx.set_num_threads(1)

    def one_pass(ef):
        idx.set_ef(max(ef, args.k))
        labels, secs, cpu = timed(lambda: idx.knn_query(query, k=args.k, num_threads=1)[0])
        return recall(labels, gt, args.k), len(query) / secs, len(query) / cpu
    return one_pass


def build_faiss(args, base, query, gt, seed):
    import faiss
    n = len(base)
    faiss.omp_set_num_threads(args.threads)
    idx = faiss.IndexHNSWFlat(args.dim, args.M, faiss.METRIC_INNER_PRODUCT)
    idx.hnsw.efConstruction = args.efc
    idx.hnsw.rng = faiss.RandomGenerator(seed)   # draws the node levels
    _, build, build_cpu = timed(lambda: idx.add(base))
    size = len(faiss.serialize_index(idx))
    emit(engine="faiss", seed=seed, n=n, dim=args.dim, M=args.M, efc=args.efc, threads=args.threads,
         build_s=f"{build:.3f}", build_cpu_s=f"{build_cpu:.3f}", bytes_per_vec=f"{size / n:.1f}")
    faiss.omp_set_num_threads(1)

    def one_pass(ef):
        idx.hnsw.efSearch = max(ef, args.k)
        labels, secs, cpu = timed(lambda: idx.search(query, args.k)[1])
        return recall(labels, gt, args.k), len(query) / secs, len(query) / cpu
    return one_pass


def build_hyrax(args, seed):
    """Starts bench/hnsw_bench --stdin, waits for its build line; its passes answer one ef each."""
    exe = os.path.join(HERE, "hnsw_bench")
    if not os.path.exists(exe):
        sys.exit("bench/hnsw_bench is missing: run `make bench/hnsw_bench` first")
    cmd = [exe, "--dir", args.dir, "--dim", str(args.dim), "--M", str(args.M), "--efc",
           str(args.efc), "--threads", str(args.threads), "--k", str(args.k), "--seed", str(seed), "--stdin"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        sys.exit(f"hnsw_bench failed with status {p.wait()}")
    emit(**dict(kv.split("=", 1) for kv in line.split()), seed=seed)

    def one_pass(ef):
        if ef is None:   # done
            p.stdin.close()
            p.wait()
            return None
        p.stdin.write(f"{ef}\n")
        p.stdin.flush()
        r = dict(kv.split("=", 1) for kv in p.stdout.readline().split())
        return float(r["recall"]), float(r["qps"]), float(r["qps_cpu"])
    return one_pass


def run_interleaved(args, base, query, gt, seed, engines):
    """Builds each engine's graph (one at a time), then runs the query passes round-robin: for
    each repetition, each ef, each engine in turn, so a slow spell of the machine hits all alike.
    Prints each engine's fastest pass per ef."""
    passes = {}
    if "hyrax" in engines:
        passes["hyrax"] = build_hyrax(args, seed)
    if "hnswlib" in engines:
        passes["hnswlib"] = build_hnswlib(args, base, query, gt, seed)
    if "faiss" in engines:
        passes["faiss"] = build_faiss(args, base, query, gt, seed)
    best = {}
    for _ in range(args.reps):
        for ef in args.efs:
            for name, one_pass in passes.items():
                rec, qps, qps_cpu = one_pass(ef)
                old = best.get((name, ef), (rec, 0.0, 0.0))
                best[(name, ef)] = (rec, max(old[1], qps), max(old[2], qps_cpu))
    if "hyrax" in passes:
        passes["hyrax"](None)
    for name in passes:
        for ef in args.efs:
            rec, qps, qps_cpu = best[(name, ef)]
            emit(engine=name, seed=seed, ef=ef, recall=f"{rec:.4f}", qps=f"{qps:.1f}", qps_cpu=f"{qps_cpu:.1f}")


def parse(lines):
    """Per engine: median build times, bytes per vector, and the curve over the seeds: per ef,
    (ef, mean recall, best qps, best qps_cpu)."""
    rows = [dict(kv.split("=", 1) for kv in line.split()) for line in lines if "=" in line]
    out = {}
    for r in rows:
        e = out.setdefault(r["engine"], {"builds": [], "points": {}})
        if "build_s" in r:
            e["builds"].append((float(r["build_s"]), float(r["build_cpu_s"])))
            e["bytes_per_vec"] = float(r["bytes_per_vec"])
        else:
            e["points"].setdefault(int(r["ef"]), []).append(
                (float(r["recall"]), float(r["qps"]), float(r["qps_cpu"])))
    for e in out.values():
        e["build_s"] = statistics.median(b[0] for b in e["builds"])
        e["build_cpu_s"] = statistics.median(b[1] for b in e["builds"])
        e["curve"] = [(ef, statistics.mean(p[0] for p in pts), max(p[1] for p in pts),
                       max(p[2] for p in pts)) for ef, pts in sorted(e["points"].items())]
    return out


def qps_at(curve, target, col):
    """QPS (col 2: wall, 3: CPU) at the target recall, interpolated (log QPS linear in recall)
    between the two ef values around it, so the ef grid does not pick the winner; the smallest
    ef's QPS when even that reaches the target; None when no ef does."""
    rows = sorted(curve)
    for i, row in enumerate(rows):
        if row[1] < target:
            continue
        if i == 0 or rows[i - 1][1] >= row[1]:
            return row[col]
        lo = rows[i - 1]
        t = (target - lo[1]) / (row[1] - lo[1])
        return math.exp(math.log(lo[col]) + t * (math.log(row[col]) - math.log(lo[col])))
    return None


def summary(res):
    for target in (0.95, 0.99):
        for col, name in ((2, "qps"), (3, "qps_cpu")):
            vals = [f"{e}=" + (f"{v:.0f}" if (v := qps_at(r["curve"], target, col)) else "n/a")
                    for e, r in res.items()]
            print(f"{name}@{target} " + " ".join(vals), flush=True)
    hy = res.get("hyrax")
    for peer in ("hnswlib", "faiss"):
        if not hy or peer not in res:
            continue
        p = res[peer]
        parts = [f"peer={peer}", f"build_ratio={hy['build_s'] / p['build_s']:.2f}",
                 f"build_cpu_ratio={hy['build_cpu_s'] / p['build_cpu_s']:.2f}",
                 f"bytes_ratio={hy['bytes_per_vec'] / p['bytes_per_vec']:.2f}"]
        for target in (0.95, 0.99):
            for col, name in ((2, "qps"), (3, "qps_cpu")):
                a, b = qps_at(hy["curve"], target, col), qps_at(p["curve"], target, col)
                parts.append(f"{name}_ratio@{target}=" + (f"{a / b:.2f}" if a and b else "n/a"))
        print("ratio hyrax/" + " ".join(parts), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["gen", "run"])
    ap.add_argument("--dir", default="/tmp/hyrax_hnsw_bench")
    ap.add_argument("--index", help="gen: real vectors from this hyrax index (see above)")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--nq", type=int, default=1000)
    ap.add_argument("--clusters", type=int, default=256)
    ap.add_argument("--subdim", type=int, default=32)
    ap.add_argument("--spread", type=float, default=0.25)
    ap.add_argument("--noise", type=float, default=0.04)
    ap.add_argument("--seed", type=int, default=1, help="gen: the data set's seed")
    ap.add_argument("--seeds", default="1,2,3", help="run: one graph per seed and engine")
    ap.add_argument("--M", type=int, default=16)
    ap.add_argument("--efc", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--reps", type=int, default=5, help="passes over the queries per ef; the fastest counts")
    ap.add_argument("--ef", default="10,12,14,16,20,24,28,32,40,48,56,64,80,96,128,160,192,256")
    ap.add_argument("--engines", default="hyrax,hnswlib,faiss")
    args = ap.parse_args()
    args.efs = [int(x) for x in args.ef.split(",")]
    if args.cmd == "gen":
        gen(args)
        return
    base, query, gt = load(args)
    engines = args.engines.split(",")
    for seed in (int(x) for x in args.seeds.split(",")):
        run_interleaved(args, base, query, gt, seed, engines)
    res = parse(LINES)
    for name, e in res.items():
        print(f"curve engine={name} seeds={args.seeds} build_s={e['build_s']:.3f} "
              f"build_cpu_s={e['build_cpu_s']:.3f} " +
              " ".join(f"ef{ef}={r:.4f}/{q:.0f}" for ef, r, q, _ in e["curve"]), flush=True)
    summary(res)


if __name__ == "__main__":
    main()
