#!/usr/bin/env python3
"""KEP known-item queries: recall@5 of keyword, vector and hybrid search over a KEP index.

The golden set comes from the corpus itself, not from hyrax: every KEP folder's kep.yaml names
its `title` (a slug such as "doc-policies-for-third-party-content"); the query is that title with
its hyphens as spaces, and the relevant document is the README.md of the same folder. recall@5 is
the share of queries whose README is among the first five documents (`--group document`), with
no relevance floor (--min-score 0). For each floor of --floors it also prints what the floor keeps:
recall@5 counting only documents whose score (relevance 0..1) reaches it, the mean number of the
five kept, and how many results the off-topic query "chocolate cake recipe with strawberries"
keeps. success_at_1 is the share whose README comes first. Last, for each run, the 10 queries
whose known item it ranks worst against the best other run on the same query (rank 6: not in the
first five). Standard library only; drives the hyrax command line.

  bench/kep_golden.py --hyrax ./hyrax --db KEP.hyx --corpus ../shared/corpora/keps \
      [--weights 0.7,0.3 0.5,0.5] [--jobs 8] [--chunks] [--floors 0.02,0.5]

`--subset DEST [FOLDER...]` instead writes the conformance suite's corpus (tests/data/conformance,
read by tests/test_conformance.c): for each KEP folder (as "sig-x/NNNN-name"; none given: the
folders already under DEST) its kep.yaml as it is and its README.md cut by `cut_readme`.
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


SUBSET_BYTES = 3000   # README text kept per KEP in the conformance subset


def cut_readme(text):
    """A KEP README reduced to what says what the KEP is: HTML comments (the KEP template's
    instructions, the same in every KEP) and the table of contents between them are dropped, so
    is the Release Signoff Checklist section; the text stops at the first `## Proposal` or
    `## Design Details` heading, then at the last blank line within SUBSET_BYTES bytes (UTF-8)."""
    text = re.sub(r"<!-- toc -->.*?<!-- /toc -->", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^## Release Signoff Checklist\n.*?(?=^## )", "", text, flags=re.S | re.M)
    m = re.search(r"^## (Proposal|Design Details)\b", text, re.M)
    if m:
        text = text[:m.start()]
    text = re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
    raw = text.encode("utf-8")
    if len(raw) > SUBSET_BYTES:
        head = raw[:SUBSET_BYTES].decode("utf-8", errors="ignore")
        cut = head.rfind("\n\n")
        text = (head[:cut] if cut > 0 else head).rstrip() + "\n"
    return text


def write_subset(corpus, dest, folders):
    """Writes each KEP folder's kep.yaml and cut README.md under dest; prints the bytes written."""
    folders = folders or sorted(str(y.parent.relative_to(dest)) for y in dest.rglob("kep.yaml"))
    total = 0
    for f in folders:
        out = dest / f
        out.mkdir(parents=True, exist_ok=True)
        yaml = (corpus / f / "kep.yaml").read_bytes()
        readme = cut_readme((corpus / f / "README.md").read_text(encoding="utf-8")).encode("utf-8")
        (out / "kep.yaml").write_bytes(yaml)
        (out / "README.md").write_bytes(readme)
        total += len(yaml) + len(readme)
    print(json.dumps({"subset": str(dest), "keps": len(folders), "bytes": total}))


OFF_TOPIC = "chocolate cake recipe with strawberries"


def search(hyrax, db, query, mode, weights, chunks):
    """The first five documents of one search, [(path, score)]. `chunks`: for builds without
    --group, the first five distinct documents of a 50-chunk list (what such a build shows a user)."""
    cmd = [hyrax, "search", "--db", db, "--json", "--mode", mode, "--min-score", "0"]
    cmd += ["-k", "50"] if chunks else ["-k", "5", "--group", "document"]
    if weights:
        cmd += ["--fusion-weights", weights]
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
    ap.add_argument("--db")
    ap.add_argument("--corpus", required=True, type=pathlib.Path,
                    help="the folder that was indexed (paths in the index are relative to it)")
    ap.add_argument("--weights", nargs="*", default=[], help="hybrid weights V,T to try")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--modes", default="keyword,vector,hybrid", help="comma-separated modes to run")
    ap.add_argument("--chunks", action="store_true",
                    help="the build has no --group: dedupe a chunk list instead")
    ap.add_argument("--subset", nargs="+", metavar=("DEST", "FOLDER"),
                    help="write the conformance subset to DEST instead of searching")
    ap.add_argument("--floors", default="", help="comma-separated relevance floors to report, e.g. 0.02,0.5")
    args = ap.parse_args()
    if args.subset:
        write_subset(args.corpus, pathlib.Path(args.subset[0]), args.subset[1:])
        return
    if not args.db:
        ap.error("--db is required")

    gold = golden(args.corpus)
    runs = [(m, None) for m in args.modes.split(",")]
    runs += [("hybrid", w) for w in args.weights]
    ranks = {}   # run label -> the known item's rank per query (6: not in the first five)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for mode, w in runs:
            tops = list(ex.map(lambda g: search(args.hyrax, args.db, g[0], mode, w, args.chunks), gold))
            hit = sum(rel in [d for d, _ in top] for (_, rel), top in zip(gold, tops))
            first = sum([d for d, _ in top[:1]] == [rel] for (_, rel), top in zip(gold, tops))
            label = mode + (f" {w}" if w else "")
            ranks[label] = [next((i + 1 for i, (d, _) in enumerate(top) if d == rel), 6)
                            for (_, rel), top in zip(gold, tops)]
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
    print_worst(gold, ranks)


def print_worst(gold, ranks):
    """For each run, the 10 queries whose known item it ranks worst (6: not in the first five),
    against the best other run on the same query: the peers here are hyrax's other modes."""
    for label, rk in ranks.items():
        others = [o for o in ranks if o != label]
        worst = sorted((i for i in range(len(gold)) if rk[i] > 1),
                       key=lambda i: (-(rk[i] - min([ranks[o][i] for o in others], default=rk[i])), -rk[i], i))[:10]
        for i in worst:
            best = min(others, key=lambda o: (ranks[o][i], o)) if others else None
            print(json.dumps({"worst": label, "query": gold[i][0], "expected": gold[i][1], "rank": rk[i],
                              "best_other": best, "best_other_rank": ranks[best][i] if best else None}), flush=True)


if __name__ == "__main__":
    main()
