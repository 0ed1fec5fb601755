#!/usr/bin/env python3
"""code_search.py: code search by what a function does, on hyrax's own src/ and CPython's Lib/.

Copies src/ (this checkout) and CPython's standard library (--lib, default /usr/lib/python3.11:
its top-level modules and the packages the queries name) under one root, indexes it with
`hyrax index`, runs every query of tests/data/code_queries.txt as a hybrid search
(`--group chunk -k 3`) and counts a query as found when one of the three chunks is the expected
definition's (its path, and its `symbol` metadata or the last name of its heading path). Prints one
JSON line per query and a summary per half (src/, Lib/) and overall; the target is 80 %.

    bench/code_search.py [--hyrax ./hyrax] [--lib /usr/lib/python3.11] [--keep DIR] [--named]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load_queries(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            query, target = line.rstrip("\n").split("\t")
            file, name = target.rsplit(":", 1)
            out.append((query, file, name))
    return out


def build_corpus(dest, lib, queries, named):
    libdest = os.path.join(dest, "Lib")
    if named:   # only the files the queries name
        for _, file, _ in queries:
            src = os.path.join(ROOT, file) if file.startswith("src/") else os.path.join(lib, file[4:])
            os.makedirs(os.path.dirname(os.path.join(dest, file)), exist_ok=True)
            shutil.copy(src, os.path.join(dest, file))
        return
    shutil.copytree(os.path.join(ROOT, "src"), os.path.join(dest, "src"))
    os.makedirs(libdest)
    for n in os.listdir(lib):
        if n.endswith(".py"):
            shutil.copy(os.path.join(lib, n), libdest)
    for _, file, _ in queries:   # packages the queries name (urllib/, ...)
        if file.startswith("Lib/") and "/" in file[4:]:
            pkg = file[4:].split("/")[0]
            if not os.path.exists(os.path.join(libdest, pkg)):
                shutil.copytree(os.path.join(lib, pkg), os.path.join(libdest, pkg),
                                ignore=shutil.ignore_patterns("__pycache__"))


def hit(result, file, name):
    if result.get("path") != file:
        return False
    meta = result.get("metadata") or {}
    sym = meta.get("symbol")
    syms = sym if isinstance(sym, list) else [sym]
    heading = result.get("heading") or ""
    return name in syms or heading.split(" > ")[-1] == name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hyrax", default=os.path.join(ROOT, "hyrax"))
    ap.add_argument("--lib", default="/usr/lib/python3.11")
    ap.add_argument("--queries", default=os.path.join(ROOT, "tests", "data", "code_queries.txt"))
    ap.add_argument("--keep", help="build the corpus and index here (reused when it exists)")
    ap.add_argument("--named", action="store_true",
                    help="index only the files the queries name (a smaller, easier corpus)")
    args = ap.parse_args()
    queries = load_queries(args.queries)
    work = os.path.abspath(args.keep or tempfile.mkdtemp(prefix="hx_code_search_"))
    db = os.path.join(work, "index.hyx")
    if not os.path.exists(db):
        build_corpus(work, args.lib, queries, args.named)
        t = time.time()
        subprocess.run([args.hyrax, "index", "--db", db, "src", "Lib"], cwd=work, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(json.dumps({"indexed_s": round(time.time() - t, 1)}), flush=True)
    found = {"src": [0, 0], "Lib": [0, 0]}
    for query, file, name in queries:
        res = subprocess.run([args.hyrax, "search", "--db", db, "--json", "--group", "chunk", "-k", "3",
                              "--mode", "hybrid", "--", query], cwd=work, capture_output=True, check=True)
        results = json.loads(res.stdout)["results"]
        ok = any(hit(r, file, name) for r in results[:3])
        half = file.split("/")[0]
        found[half][0] += ok
        found[half][1] += 1
        print(json.dumps({"query": query, "want": f"{file}:{name}", "top3": ok,
                          "got": [f"{r.get('path')}:{r.get('heading')}" for r in results[:3]]}), flush=True)
    total = [sum(v[0] for v in found.values()), sum(v[1] for v in found.values())]
    summary = {h: f"{v[0]}/{v[1]}" for h, v in found.items()}
    summary["all"] = f"{total[0]}/{total[1]} ({100.0 * total[0] / total[1]:.0f} %)"
    print(json.dumps({"top3_success": summary}))
    if not args.keep:
        shutil.rmtree(work)
    return 0 if total[0] * 100 >= 80 * total[1] else 1


if __name__ == "__main__":
    sys.exit(main())
