#!/usr/bin/env python3
"""Cross-validation of hybrid fusion over Cranfield and CACM: fit on one collection, test on the other.

Each collection is indexed once (bench/cranfield.py's document files), then every hybrid setting of
the grid below is run over all judged queries through one `hyrax serve` process (MCP over stdio,
the `search` tool with its fusion, rank_window and min_score arguments). For each direction the
setting with the best mean nDCG@10 on the training collection is chosen and reported on the other;
the default setting and the peers (bm25s with stop words + Snowball, sentence-transformers exact
cosine, their RRF with k 60, from bench/cranfield.py, in the same run when installed) are printed
beside it, so a rule is kept only when it holds on both.

    python3 bench/crossval.py [--hyrax ./hyrax] [--out bench/out] [--quick]

Grid: method rrf (k 20, 60, 100) and weighted, semantic weight 0.3 .. 0.7, rank_window 50, 100,
200, then the floor (min_score 0, 0.005, 0.02) of the chosen setting. --quick runs a smaller grid.
Writes bench/out/crossval.json. Needs only the standard library for hyrax's own columns.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cranfield  # noqa: E402  (the collections, judgements, metrics and peers)

DEFAULT = {"method": "rrf", "k": 60, "semantic_weight": 0.5, "rank_window": 100, "min_score": 0.005}


class Mcp:
    """A `hyrax serve` process spoken to over stdio, one JSON-RPC request at a time."""

    def __init__(self, hyrax, db):
        self.p = subprocess.Popen([hyrax, "serve", "--db", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "crossval", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def call(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def ranked_docs(mcp, query, s):
    """Document numbers hyrax ranks for query under setting s, best first (top 50 documents)."""
    args = {"query": query, "mode": "hybrid", "top_k": 50, "group_by": "document", "max_bytes": 1 << 20,
            "rank_window": s["rank_window"], "min_score": s["min_score"],
            "fusion": {"method": s["method"], "semantic_weight": s["semantic_weight"],
                       "text_weight": round(1 - s["semantic_weight"], 3)}}
    if s["method"] == "rrf":
        args["fusion"]["k"] = s["k"]
    res = mcp.call("tools/call", {"name": "search", "arguments": args})
    if res.get("isError"):
        raise RuntimeError(res["content"][0]["text"])
    return [int(os.path.basename(r["path"]).split(".")[0]) for r in res["structuredContent"]["results"]]


def grid(quick):
    weights = (0.4, 0.5, 0.6) if quick else (0.3, 0.4, 0.5, 0.6, 0.7)
    windows = (100,) if quick else (50, 100, 200)
    fusions = [("rrf", k) for k in ((60,) if quick else (20, 60, 100))] + [("weighted", 0)]
    for (method, k), w, win in itertools.product(fusions, weights, windows):
        yield {"method": method, "k": k, "semantic_weight": w, "rank_window": win, "min_score": 0.0}


def key(s):
    return "%s k=%d w=%.1f window=%d floor=%g" % (s["method"], s["k"], s["semantic_weight"], s["rank_window"],
                                                    s["min_score"])


class Collection:
    """One collection indexed, its judged queries, and nDCG@10 of any setting (memoised)."""

    def __init__(self, name, hyrax, out):
        here = os.path.dirname(os.path.abspath(__file__))
        self.name, spec = name, cranfield.COLLECTIONS[name]
        corpus = os.path.join(here, "..", "..", "shared", "corpora", name)
        self.docs_dir = os.path.join(out, name, "docs")
        cranfield.write_docs(corpus, self.docs_dir, spec)
        db = os.path.join(out, "crossval-%s.hyx" % name)
        if not os.path.exists(db):
            subprocess.run([hyrax, "index", "--db", db, self.docs_dir], check=True, stdout=subprocess.DEVNULL)
        qtext = cranfield.load_queries(corpus, spec)
        self.qrels = cranfield.load_qrels(corpus, spec)
        self.judged = [i for i in sorted(qtext) if i in self.qrels and qtext[i].strip()]
        self.qtext = qtext
        self.mcp = Mcp(hyrax, db)
        self.memo = {}

    def ndcg(self, s):
        k = key(s)
        if k not in self.memo:
            nd = [cranfield.ndcg_at(ranked_docs(self.mcp, self.qtext[i], s), self.qrels[i], 10) for i in self.judged]
            self.memo[k] = sum(nd) / len(nd)
        return self.memo[k]

    def peers(self):
        queries = [self.qtext[i] for i in self.judged]
        runs = cranfield.peer_runs(self.docs_dir, queries, 200)
        runs.update(cranfield.st_run(self.docs_dir, queries, 200))
        if "bm25s-stem" in runs and "st-exact" in runs:
            runs["rrf-peer"] = [cranfield.rrf(a, b) for a, b in zip(runs["bm25s-stem"], runs["st-exact"])]
        return {name: sum(cranfield.ndcg_at(r, self.qrels[i], 10) for r, i in zip(ranked, self.judged)) / len(self.judged)
                for name, ranked in runs.items()}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hyrax", default=os.path.join(here, "..", "hyrax"))
    ap.add_argument("--out", default=os.path.join(here, "out"))
    ap.add_argument("--quick", action="store_true", help="a smaller grid")
    args = ap.parse_args()
    cols = {n: Collection(n, args.hyrax, args.out) for n in ("cranfield", "cacm")}
    settings = list(grid(args.quick))
    for c in cols.values():
        for n, s in enumerate(settings):
            c.ndcg(s)
            print("\r%s: %d/%d settings" % (c.name, n + 1, len(settings)), end="", file=sys.stderr)
        print(file=sys.stderr)
    report = {"default": key(DEFAULT), "directions": [], "peers": {}}
    print("nDCG@10 of hybrid search; fit = best setting on the training collection")
    print("%-10s %-10s %-45s %8s %8s %8s" % ("train", "test", "chosen setting", "train", "test", "default"))
    for train, test in (("cranfield", "cacm"), ("cacm", "cranfield")):
        best = max(settings, key=lambda s: (cols[train].ndcg(s), -abs(s["semantic_weight"] - 0.5)))
        floors = [dict(best, min_score=f) for f in (0.0, 0.005, 0.02)]
        best = max(floors, key=lambda s: (cols[train].ndcg(s), s["min_score"]))
        row = {"train": train, "test": test, "setting": key(best), "train_ndcg": cols[train].ndcg(best),
               "test_ndcg": cols[test].ndcg(best), "default_test_ndcg": cols[test].ndcg(DEFAULT)}
        report["directions"].append(row)
        print("%-10s %-10s %-45s %8.4f %8.4f %8.4f" % (train, test, row["setting"], row["train_ndcg"],
                                                       row["test_ndcg"], row["default_test_ndcg"]))
    print("\nthe default (%s) and the peers, same run:" % key(DEFAULT))
    for name, c in cols.items():
        peers = c.peers()
        report["peers"][name] = peers
        print("%-10s default %.4f  %s" % (name, c.ndcg(DEFAULT),
                                          "  ".join("%s %.4f" % kv for kv in sorted(peers.items())) or "(no peers installed)"))
    print("\nevery setting (cranfield, cacm, min of the two), best min first:")
    rows = sorted(settings, key=lambda s: -min(cols["cranfield"].ndcg(s), cols["cacm"].ndcg(s)))
    for s in rows[:15]:
        a, b = cols["cranfield"].ndcg(s), cols["cacm"].ndcg(s)
        print("  %-45s %.4f %.4f %.4f" % (key(s), a, b, min(a, b)))
    report["settings"] = [{"setting": key(s), "cranfield": cols["cranfield"].ndcg(s), "cacm": cols["cacm"].ndcg(s)}
                          for s in settings]
    for c in cols.values():
        c.mcp.close()
    with open(os.path.join(args.out, "crossval.json"), "w") as fh:
        json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
