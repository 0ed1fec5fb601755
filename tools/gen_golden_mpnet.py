#!/usr/bin/env python3
"""gen_golden_mpnet.py: writes the golden fixtures of tests/test_encoder_mpnet.c from the reference
implementation (sentence-transformers + HF tokenizers + HF transformers' MPNet), never from hyrax's
own output. Owns tests/golden/mpnet_*; reads tests/golden/embed_texts.txt (the MiniLM golden
texts) and the model folder that tools/get_model.py unpacks.

Run (a few minutes), after `make mpnet`:
  HF_HUB_OFFLINE=1 nice bench/.venv/bin/python tools/gen_golden_mpnet.py

Texts: every MiniLM edge case, every 3rd other golden text (short, medium and long: the long
ones pass 384 word pieces, so truncation is covered), and a few texts with MPNet's own added
tokens. Files (little-endian, layouts as tools/gen_golden_embeddings.py's embed_*):
  mpnet_texts.txt    one text per line, UTF-8
  mpnet_ids.bin      u32 count, then per text: u32 n, n x u32 token ids (<s> ... </s>, at most 384)
  mpnet_vectors.f32  u32 count, u32 dim (768), then count x dim f32: the normalised embeddings
  mpnet_buckets.txt  one line per relative position d = key - query from -383 to 383:
                     "d bucket", from HF MPNetEncoder.relative_position_bucket
  mpnet_meta.txt     versions of the reference libraries, model file hash, counts
"""
import hashlib
import importlib.metadata as md
import os
import struct

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden")
MODEL_DIR = os.path.join(ROOT, "build", "models", "src", "all-mpnet-base-v2")
MAX_SEQ = 384
N_EDGE = 20   # the first 20 lines of embed_texts.txt are gen_golden_embeddings.py's EDGE_CASES

EXTRA = [
    "<s> opens and </s> closes, <pad> pads, <mask> masks and [UNK] is unknown",
    "glued<s>to</s>words<mask>here[UNK]there",
    "<unk> in lower case, [CLS] and [SEP] are plain text for MPNet",
]


def main():
    import torch
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer
    from transformers.models.mpnet.modeling_mpnet import MPNetEncoder

    with open(os.path.join(GOLDEN, "embed_texts.txt"), encoding="utf-8") as f:
        base = f.read().split("\n")[:-1]
    texts = base[:N_EDGE] + base[N_EDGE::3] + EXTRA

    tok = Tokenizer.from_file(os.path.join(MODEL_DIR, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_SEQ)
    ids = [tok.encode(t).ids for t in texts]

    model = SentenceTransformer(MODEL_DIR, device="cpu")
    assert model.max_seq_length == MAX_SEQ
    for i, t in enumerate(texts):
        enc = model.tokenize([t])
        n = int(enc["attention_mask"].sum())
        assert enc["input_ids"][0][:n].tolist() == ids[i], (t, ids[i])
    vecs = model.encode(texts, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)
    vecs = np.asarray(vecs, dtype="<f4")
    assert vecs.shape == (len(texts), 768)

    rel = torch.arange(-(MAX_SEQ - 1), MAX_SEQ)
    buckets = MPNetEncoder.relative_position_bucket(rel, num_buckets=32).tolist()

    with open(os.path.join(GOLDEN, "mpnet_texts.txt"), "w", encoding="utf-8", newline="\n") as f:
        for t in texts:
            assert "\n" not in t and "\r" not in t
            f.write(t + "\n")
    with open(os.path.join(GOLDEN, "mpnet_ids.bin"), "wb") as f:
        f.write(struct.pack("<I", len(ids)))
        for row in ids:
            f.write(struct.pack("<I%dI" % len(row), len(row), *row))
    with open(os.path.join(GOLDEN, "mpnet_vectors.f32"), "wb") as f:
        f.write(struct.pack("<II", *vecs.shape))
        f.write(vecs.tobytes())
    with open(os.path.join(GOLDEN, "mpnet_buckets.txt"), "w") as f:
        for d, b in zip(rel.tolist(), buckets):
            f.write("%d %d\n" % (d, b))
    h = hashlib.sha256()
    with open(os.path.join(MODEL_DIR, "model.safetensors"), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    lens = [len(r) for r in ids]
    with open(os.path.join(GOLDEN, "mpnet_meta.txt"), "w") as f:
        f.write("generator: tools/gen_golden_mpnet.py\n")
        for pkg in ("sentence-transformers", "transformers", "torch", "tokenizers", "numpy"):
            f.write("%s: %s\n" % (pkg, md.version(pkg)))
        f.write("model.safetensors sha256: %s\n" % h.hexdigest())
        f.write("texts: %d (MiniLM edge cases %d, every 3rd other MiniLM golden text, extra %d)\n"
                % (len(texts), N_EDGE, len(EXTRA)))
        f.write("tokens: min %d, max %d, total %d, at cap %d\n"
                % (min(lens), max(lens), sum(lens), sum(1 for n in lens if n == MAX_SEQ)))
    print(open(os.path.join(GOLDEN, "mpnet_meta.txt")).read())


if __name__ == "__main__":
    main()
