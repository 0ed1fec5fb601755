#!/usr/bin/env python3
"""Where hyrax's vector search loses nDCG@10 against sentence-transformers' exact cosine over whole
documents (bench/cranfield.py's st-exact), step by step, on one collection and one index that
bench/cranfield.py built (`--model mpnet` for all-mpnet-base-v2):

  st-exact        the peer: each document embedded once (truncated at the model's maximum length),
                  exact cosine; from cranfield.py's JSON of the same index (--json), not recomputed
  whole-exact     (--whole) hyrax's encoder (fp32) on each whole document, exact cosine: the peer
                  up to the encoder's difference (min cosine 0.99999 on the golden texts)
  split-docs-whole  the documents the index split into chunks embedded whole by hyrax's encoder,
                  the others by their one stored chunk, exact cosine: against whole-exact, what the
                  contextual header changes (a chunk embeds the document title, then its body,
                  which for these collections begins with the title again)
  chunks-exact    the index's stored chunk vectors (bench/export_vectors), exact cosine, a document
                  ranked by its best chunk: against split-docs-whole, what splitting long
                  documents into chunks of the model's budget changes
  chunks-exact-long-index  (--long-index IDX) the same with the split documents' chunk vectors from
                  IDX, an index of just those documents made another way (another chunk budget)
  hnsw            hyrax search --mode vector (the index's HNSW graph), from --json: what the
                  search changes (the approximate graph, and results of identical text collapsed)
  hnsw-ef         the same with --ef N (--ef): whether a wider search closes that

Queries are embedded by hyrax's encoder (bench/embed_bench embed, fp32, one text a line), as
`hyrax search` embeds them. Vectors of whole documents are cached under bench/out/gap/ (they are the
slow part: every document through the model). Prints one JSON line per figure, then a table.

    python3 bench/vector_gap.py --collection cranfield --index bench/out/cranfield-mpnet.hyx \
        --json bench/out/cranfield-mpnet.json --weights weights/all-mpnet-base-v2.hxw [--ef 800] [--threads 2] [--whole]
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cranfield  # noqa: E402  (collections, judgements, nDCG)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out", "gap")


def embed(texts, weights, threads, tag):
    """hyrax fp32 embeddings of texts (newlines become spaces: one text a line), cached by content."""
    lines = "".join(" ".join(t.split()) + "\n" for t in texts)
    key = hashlib.sha256((weights + lines).encode()).hexdigest()[:16]
    vec = os.path.join(OUT, "%s-%s.f32" % (tag, key))
    if not os.path.exists(vec):
        src = os.path.join(OUT, "%s-%s.txt" % (tag, key))
        with open(src, "w") as fh:
            fh.write(lines)
        subprocess.run([os.path.join(HERE, "embed_bench"), "embed", "--texts", src, "--out", vec + ".tmp",
                        "--threads", str(threads), "--weights", weights], check=True, stdout=subprocess.DEVNULL)
        os.replace(vec + ".tmp", vec)
    v = np.fromfile(vec, dtype=np.float32)
    return v.reshape(len(texts), -1)


def ranked_docs(sims, doc_of, k):
    """Documents by their best-scoring vector, best first, for each query row of sims."""
    out = []
    for row in sims:
        best = {}
        for j in np.argsort(-row, kind="stable"):
            d = doc_of[j]
            if d not in best:
                best[d] = row[j]
                if len(best) == k:
                    break
        out.append(list(best))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collection", default="cranfield", choices=sorted(cranfield.COLLECTIONS))
    ap.add_argument("--corpus", help="the collection's folder (default ../shared/corpora/COLLECTION)")
    ap.add_argument("--index", required=True, help="the index bench/cranfield.py built")
    ap.add_argument("--json", required=True, help="bench/cranfield.py's JSON of that index (st-exact, vector)")
    ap.add_argument("--weights", required=True, help="the index's model weights file")
    ap.add_argument("--hyrax", default=os.path.join(HERE, "..", "hyrax"))
    ap.add_argument("--model", default="mpnet", help="hyrax's name of the index's model (hyrax models)")
    ap.add_argument("--ef", type=int, default=0, help="also search the HNSW graph with this breadth")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--long-index", help="an index of just the split documents, chunked another way "
                    "(another chunk budget): their chunk vectors replace the stored ones")
    ap.add_argument("--whole", action="store_true", help="also embed every document whole (slow)")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    name, spec = args.collection, cranfield.COLLECTIONS[args.collection]
    corpus = args.corpus or os.path.join(HERE, "..", "..", "shared", "corpora", name)
    docs_dir = os.path.join(OUT, name, "docs")
    cranfield.write_docs(corpus, docs_dir, spec)
    qtext = cranfield.load_queries(corpus, spec)
    qrels = cranfield.load_qrels(corpus, spec)
    judged = [i for i in sorted(qtext) if i in qrels and qtext[i].strip()]
    ref = json.load(open(args.json))
    per_query = {m: {int(q): v for q, v in ref["ndcg@10_per_query"][m].items()} for m in ("st-exact", "vector")}
    scores = {"st-exact": per_query["st-exact"], "hnsw": per_query["vector"]}

    qv = embed([qtext[i] for i in judged], args.weights, args.threads, name + "-queries")

    def score(label, ranked):
        scores[label] = {q: cranfield.ndcg_at(r, qrels[q], 10) for q, r in zip(judged, ranked)}

    def exported(index, base):
        """An index's chunks, their stored vectors and each chunk's document number (export_vectors)."""
        subprocess.run([os.path.join(HERE, "export_vectors"), index, base + ".f32", base + "-titles.txt",
                        base + "-chunks.jsonl"], check=True, stdout=subprocess.DEVNULL)
        chunks = [json.loads(line) for line in open(base + "-chunks.jsonl")]
        vectors = np.fromfile(base + ".f32", dtype=np.float32).reshape(len(chunks), -1)
        return chunks, vectors, [int(c["path"].split(".")[0]) for c in chunks]

    chunks, cv, doc_of = exported(args.index, os.path.join(OUT, name + "-index"))
    score("chunks-exact", ranked_docs(qv @ cv.T, doc_of, 200))

    # The split documents embedded whole (truncated at the model's maximum length, as the peer
    # does), the others by their one stored chunk: what splitting long documents changes.
    names = sorted(os.listdir(docs_dir))
    by_doc = {}
    for d, v in zip(doc_of, cv):
        by_doc.setdefault(d, []).append(v)
    ids = sorted(by_doc)
    long_ids = [d for d in ids if len(by_doc[d]) > 1]
    lv = embed([open(os.path.join(docs_dir, "%04d.txt" % d)).read() for d in long_ids], args.weights,
               args.threads, name + "-split")
    whole = dict(zip(long_ids, lv))
    mixed = np.stack([whole[d] if d in whole else by_doc[d][0] for d in ids])
    score("split-docs-whole", ranked_docs(qv @ mixed.T, ids, 200))
    if args.long_index:   # the split documents as another index chunked them, the others as stored
        oc, ov, odoc = exported(args.long_index, os.path.join(OUT, name + "-long-index"))
        if sorted(set(odoc)) != long_ids:
            raise SystemExit("--long-index must hold exactly the %d split documents" % len(long_ids))
        keep = [j for j, d in enumerate(doc_of) if d not in whole]
        score("chunks-exact-long-index", ranked_docs(qv @ np.concatenate([cv[keep], ov]).T,
                                                     [doc_of[j] for j in keep] + odoc, 200))
        print("--long-index: %d chunks for the %d split documents (the index: %d)" % (
            len(oc), len(long_ids), sum(len(by_doc[d]) for d in long_ids)))
    if args.whole:
        texts = [open(os.path.join(docs_dir, n)).read() for n in names]
        dv = embed(texts, args.weights, args.threads, name + "-docs")
        score("whole-exact", ranked_docs(qv @ dv.T, [int(n.split(".")[0]) for n in names], 200))

    if args.ef:
        def search(q):
            out = subprocess.run([args.hyrax, "search", "--db", args.index, "--mode", "vector", "-k", "200",
                                  "--ef", str(args.ef), "--json", "--min-score", "0", "--model", args.model, "--",
                                  qtext[q]],
                                 capture_output=True, text=True, check=True).stdout
            seen = []
            for r in json.loads(out)["results"]:
                d = int(os.path.basename(r["path"]).split(".")[0])
                if d not in seen:
                    seen.append(d)
            return seen
        score("hnsw-ef%d" % args.ef, [search(q) for q in judged])

    print("%s: %d documents, %d chunks (%d documents split), %d judged queries" % (
        name, len(ids), len(chunks), len(long_ids), len(judged)))
    print("%-18s %9s %9s" % ("ranking", "nDCG@10", "vs peer"))
    peer = sum(scores["st-exact"][q] for q in judged) / len(judged)
    for label, s in scores.items():
        mean = sum(s[q] for q in judged) / len(judged)
        print(json.dumps({"bench": "vector_gap", "collection": name, "ranking": label, "ndcg@10": mean}),
              file=sys.stderr)
        print("%-18s %9.4f %+9.4f" % (label, mean, mean - peer))


if __name__ == "__main__":
    main()
