#!/usr/bin/env python3
"""gate_bench.py: what the validation gate adds to a full ingest (issue 12 target: at most 5 %).

The corpus (default ../shared/corpora/keps) is copied to WORK/corpus (--limit N: a deterministic
subset, every k-th .md/.yaml file as bench/ingest_bench.py takes it), every file is signed with a
throwaway Ed25519 key by the real `ssh-keygen -Y sign -n hyrax` (FILE.sig), and the key is
trusted in WORK/corpus/.hyrax/allowed_signers. Then, in the same run, alternating, --reps times:

  plain  `hyrax index` of the corpus into a new index with no policy file (the built-in
         validators only: encoding, control characters, YAML, JSON, XML)
  gated  the same with .hyrax/policy: 12 deny patterns (literal and '*' forms) on every document,
         required metadata on the KEP files, and signature = required with a signers list, so
         every document's signature is verified before it is embedded
  regate `hyrax index` again over the gated index: nothing changes, so this is the gate alone
         (every file re-read, hashed, validated, deny-matched and signature-verified) with no
         embedding: an upper bound of the gate's cost inside the gated ingest

Prints one JSON line per run (wall and CPU seconds of the hyrax process), then the medians and
the ratios gated / plain (wall and CPU) and regate / gated (CPU: the gate's share of the gated
ingest, the figure that a loaded machine disturbs least).
    nice -n 10 python3 bench/gate_bench.py [--corpus DIR] [--limit N] [--reps 3] [--threads 2]
        [--work DIR] [--hyrax ./hyrax]
"""
import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

POLICY = """# gate_bench policy: deny patterns everywhere, metadata on KEP files, signatures on all
deny = ignore previous instructions
deny = ignore all previous instructions
deny = disregard * instructions
deny = exfiltrate * secrets
deny = you are now in * mode
deny = reveal your system prompt
deny = begin system override
deny = print your hidden * prompt
deny = act as * without restrictions
deny = do anything now
deny = jailbreak * mode enabled
deny = send your * credentials to
[**/kep.yaml]
require = title, status
[**]
signature = required
signers = bench@example.com
"""


def discover(corpus):
    out = []
    for d, _, fs in os.walk(corpus):
        for f in fs:
            if f.endswith((".md", ".yaml", ".yml")):
                out.append(os.path.join(d, f))
    return sorted(out)


def prepare(corpus, limit, work):
    files = discover(corpus)
    step = max(1, math.ceil(len(files) / limit)) if limit else 1
    chosen = files[::step][:limit] if limit else files
    dest = os.path.join(work, "corpus")
    shutil.rmtree(dest, ignore_errors=True)
    for f in chosen:
        out = os.path.join(dest, os.path.relpath(f, corpus))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(f, out)
    key = os.path.join(work, "bench_key")
    for p in (key, key + ".pub"):
        if os.path.exists(p):
            os.remove(p)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench@example.com", "-f", key], check=True)
    rel = [os.path.join(dest, os.path.relpath(f, corpus)) for f in chosen]
    for i in range(0, len(rel), 200):   # ssh-keygen signs many files per call
        subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "hyrax", "-f", key] + rel[i:i + 200], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.makedirs(os.path.join(dest, ".hyrax"), exist_ok=True)
    pub = open(key + ".pub").read().split()
    with open(os.path.join(dest, ".hyrax", "allowed_signers"), "w") as f:
        f.write('bench@example.com namespaces="hyrax" %s %s\n' % (pub[0], pub[1]))
    return dest, len(chosen), sum(os.path.getsize(f) for f in rel)


def run_index(hyrax, corpus, db, threads, fresh):
    if fresh and os.path.exists(db):
        os.remove(db)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([hyrax, "index", "--db", db, "--threads", str(threads), "."], cwd=corpus,
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("gate_bench: hyrax index failed:\n" + p.stderr[-3000:])
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, p.stdout.strip().splitlines()[0] if p.stdout else "", p.stderr.count("rejected")


def main():
    ap = argparse.ArgumentParser()
    shared = [os.path.join(ROOT, up, "shared", "corpora", "keps") for up in ("..", os.path.join("..", ".."))]
    ap.add_argument("--corpus", default=next((d for d in shared if os.path.isdir(d)), shared[0]))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(HERE, "out", "gate"))
    ap.add_argument("--hyrax", default=os.path.join(ROOT, "hyrax"))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    corpus, n_files, n_bytes = prepare(os.path.abspath(a.corpus), a.limit, a.work)
    if not n_files:
        sys.exit("gate_bench: no .md or .yaml files under " + a.corpus)
    policy = os.path.join(corpus, ".hyrax", "policy")
    db = os.path.join(a.work, "index.hyx")
    times = {"plain": [], "gated": [], "regate": []}
    cpus = {"plain": [], "gated": [], "regate": []}
    for rep in range(a.reps):
        for kind in ("plain", "gated"):
            if kind == "gated":
                with open(policy, "w") as f:
                    f.write(POLICY)
            elif os.path.exists(policy):
                os.remove(policy)
            runs = [(kind, True)] + ([("regate", False)] if kind == "gated" else [])
            for name, fresh in runs:
                wall, cpu, summary, rejected = run_index(a.hyrax, corpus, db, a.threads, fresh)
                times[name].append(wall)
                cpus[name].append(cpu)
                print(json.dumps({"run": name, "rep": rep, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                                  "rejected": rejected, "summary": summary}), flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    mcpu = {k: statistics.median(v) for k, v in cpus.items()}
    load = os.getloadavg()
    print(json.dumps({"files": n_files, "bytes": n_bytes, "threads": a.threads, "reps": a.reps,
                      "median_wall_s": {k: round(v, 3) for k, v in med.items()},
                      "median_cpu_s": {k: round(v, 3) for k, v in mcpu.items()},
                      "gated_over_plain_wall": round(med["gated"] / med["plain"], 4),
                      "gated_over_plain_cpu": round(mcpu["gated"] / mcpu["plain"], 4),
                      "gate_alone_over_gated_cpu": round(mcpu["regate"] / mcpu["gated"], 4),
                      "loadavg": [round(x, 2) for x in load]}))


if __name__ == "__main__":
    main()
