#!/usr/bin/env python3
"""KEP known-item queries: recall@5 of keyword, vector and hybrid search over a KEP index.

The golden set comes from the corpus itself, not from hyrax: every KEP folder's kep.yaml names
its `title` (a slug such as "doc-policies-for-third-party-content"); the query is that title with
its hyphens as spaces, and the relevant document is the README.md of the same folder. recall@5 is
the share of queries whose README is among the first five documents (`--group document`), with
no relevance floor (--min-score 0). For each floor of --floors it also prints what the floor keeps:
recall@5 counting only documents whose score (relevance 0..1) reaches it, the mean number of the
five kept, and how many results the off-topic query "chocolate cake recipe with strawberries"
keeps. Standard library only; drives the hyrax command line.

  bench/kep_golden.py --hyrax ./hyrax --db KEP.hyx --corpus ../shared/corpora/keps \
      [--weights 0.7,0.3 0.5,0.5] [--jobs 8] [--chunks] [--floors 0.02,0.5]
"""
import argparse
import concurrent.futures
import json
import pathlib
import re
import subprocess


def golden(corpus):
    """[(query, relevant README path relative to the corpus)] from every kep.yaml with a title."""
    out = []
    for y in sorted(corpus.rglob("kep.yaml")):
        readme = y.parent / "README.md"
        m = re.search(r"^title:\s*(.+?)\s*$", y.read_text(encoding="utf-8", errors="replace"), re.M)
        if not m or not readme.exists():
            continue
        title = m.group(1).strip("'\"")
        query = re.sub(r"[-_]+", " ", title).strip()
        if query:
            out.append((query, str(readme.relative_to(corpus))))
    return out


OFF_TOPIC = "chocolate cake recipe with strawberries"


def search(hyrax, db, query, mode, weights, chunks):
    """The first five documents of one search, [(path, score)]. `chunks`: for builds without
    --group, the first five distinct documents of a 50-chunk list (what such a build shows a user)."""
    cmd = [hyrax, "search", "--db", db, "--json", "--mode", mode, "--min-score", "0"]
    cmd += ["-k", "50"] if chunks else ["-k", "5", "--group", "document"]
    if weights:
        cmd += ["--weights", weights]
    r = subprocess.run(cmd + [query], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{cmd}: {r.stderr.strip()}")
    docs = []
    for x in json.loads(r.stdout)["results"]:
        if x["path"] not in [d for d, _ in docs]:
            docs.append((x["path"], x["score"]))
    return docs[:5]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hyrax", default="./hyrax")
    ap.add_argument("--db", required=True)
    ap.add_argument("--corpus", required=True, type=pathlib.Path,
                    help="the folder that was indexed (paths in the index are relative to it)")
    ap.add_argument("--weights", nargs="*", default=[], help="hybrid weights V,T to try")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--chunks", action="store_true",
                    help="the build has no --group: dedupe a chunk list instead")
    ap.add_argument("--floors", default="", help="comma-separated relevance floors to report, e.g. 0.02,0.5")
    args = ap.parse_args()

    gold = golden(args.corpus)
    runs = [("keyword", None), ("vector", None), ("hybrid", None)]
    runs += [("hybrid", w) for w in args.weights]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for mode, w in runs:
            tops = list(ex.map(lambda g: search(args.hyrax, args.db, g[0], mode, w, args.chunks), gold))
            hit = sum(rel in [d for d, _ in top] for (_, rel), top in zip(gold, tops))
            first = sum([d for d, _ in top[:1]] == [rel] for (_, rel), top in zip(gold, tops))
            label = mode + (f" {w}" if w else "")
            print(json.dumps({"run": label, "queries": len(gold),
                              "recall_at_5": round(hit / len(gold), 4),
                              "success_at_1": round(first / len(gold), 4)}), flush=True)
            off = search(args.hyrax, args.db, OFF_TOPIC, mode, w, args.chunks)
            for f in [float(x) for x in args.floors.split(",") if x]:
                kept = [[d for d, s in top if s >= f] for top in tops]
                print(json.dumps({"run": label, "floor": f,
                                  "recall_at_5": round(sum(rel in k for (_, rel), k in zip(gold, kept)) / len(gold), 4),
                                  "kept_per_query": round(sum(map(len, kept)) / len(gold), 2),
                                  "queries_keeping_none": sum(not k for k in kept),
                                  "off_topic_kept": sum(s >= f for _, s in off),
                                  "off_topic_best": round(max([s for _, s in off], default=0), 4)}), flush=True)


if __name__ == "__main__":
    main()
