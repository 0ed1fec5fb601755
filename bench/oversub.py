"""Single-query latency on a machine with more runnable threads than cores (issue 15).

One short text per call at 2 threads, hyrax (fp32, int8) against onnxruntime (fp32, int8) in the
same run, first on the machine as it is, then with --busy N extra processes spinning on the CPU the
whole time (a laptop compiling, a server's other tenants). A forward pass is some fifty short
thread-pool jobs; where each job waits for a worker the scheduler has not run, a query costs a time
slice per job. Engines take turns in rounds of --calls calls each; p50/p99 over all rounds.
Reuses bench/embed.py's engines and text sets (run embed.py once first: it writes bench/out/).

    bench/.venv/bin/python bench/oversub.py [--busy 6] [--threads 2] [--calls 40] [--rounds 3]
                                            [--embed-bench OTHER_BUILD/embed_bench]
"""
import argparse
import multiprocessing
import os
import statistics
import sys

import embed
from embed import OUT, Hyrax, OnnxRuntime, ONNX_INT8


def spin():
    while True:
        pass


def hyrax_round(h, threads, calls):
    r = h.run("latency", OUT / "texts-short.txt", threads, calls=calls, warmup=5)
    return r["p50_ms"], r["p99_ms"]


def ort_round(o, texts, calls):
    embed.LAT_CALLS, embed.LAT_WARMUP = calls, 5
    p50, p99, _, _ = embed.py_latency(o, texts)
    return p50, p99


def measure(engines, texts, threads, calls, rounds):
    """{engine: (median p50, max p99)} over rounds, engines interleaved round by round."""
    got = {name: [] for name, _ in engines}
    for _ in range(rounds):
        for name, f in engines:
            got[name].append(f())
    return {k: (statistics.median(p for p, _ in v), max(q for _, q in v)) for k, v in got.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--busy", type=int, default=6, help="spinning processes in the loaded phase")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--calls", type=int, default=40, help="calls per engine per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--embed-bench", help="another build's embed_bench (e.g. before a change)")
    args = ap.parse_args()
    if args.embed_bench:
        embed.EMBED_BENCH = args.embed_bench
    texts_file = OUT / "texts-short.txt"
    if not texts_file.exists():
        sys.exit(f"{texts_file} is missing: run bench/embed.py first")
    texts = texts_file.read_text(encoding="utf-8").splitlines()
    hy, hy8 = Hyrax(), Hyrax("int8")
    ort_, ort8 = OnnxRuntime(), OnnxRuntime(ONNX_INT8, "onnxruntime-int8")
    for o in (ort_, ort8):
        o.set_threads(args.threads)
    engines = [(hy.name, lambda: hyrax_round(hy, args.threads, args.calls)),
               (ort_.name, lambda: ort_round(ort_, texts, args.calls)),
               (hy8.name, lambda: hyrax_round(hy8, args.threads, args.calls)),
               (ort8.name, lambda: ort_round(ort8, texts, args.calls))]
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; {args.threads} threads per engine")
    phases = [("as it is", measure(engines, texts, args.threads, args.calls, args.rounds))]
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for s in spinners:
        s.start()
    try:
        phases.append((f"{args.busy} busy", measure(engines, texts, args.threads, args.calls, args.rounds)))
    finally:
        for s in spinners:
            s.terminate()
    print(f"\n| machine | {' | '.join(n for n, _ in engines)} | hyrax / ORT fp32 | hyrax-int8 / ORT int8 |")
    print("|---|" + "---:|" * (len(engines) + 2))
    for label, r in phases:
        cells = " | ".join(f"{r[n][0]:.2f} / {r[n][1]:.1f}" for n, _ in engines)
        fp = r[ort_.name][0] / r[hy.name][0]
        i8 = r[ort8.name][0] / r[hy8.name][0]
        print(f"| {label} | {cells} | {fp:.2f}x | {i8:.2f}x |")
    print("\ncells: p50 / p99 ms; ratios are p50s (> 1: hyrax faster)")


if __name__ == "__main__":
    main()
