#!/usr/bin/env python3
"""gen_golden_stem.py: golden Snowball English (Porter2) stems for tests/test_stem.c, from the
reference stemmer (snowballstemmer on PyPI, generated from english.sbl; PyStemmer, the C build of
the same algorithm, is used to cross-check when it is installed). Owns tests/golden/stem_english.txt.

The vocabulary is the distinct lowercase words of the Cranfield collection and of every KEP README
(words without digits, cut to MAX_KEP_WORDS by a seeded sample), plus a few words that reach the rare branches of
the algorithm (exceptions, apostrophes, y handling). Output: one "word stem" pair per line.
Run: python3 tools/gen_golden_stem.py ../shared/corpora  (in a venv with snowballstemmer)
"""
import glob
import os
import random
import re
import sys

import snowballstemmer

MAX_KEP_WORDS = 8000
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "stem_english.txt")

# Words for the branches the corpora reach rarely or never.
EXTRA = """
andes atlas bias cosmos early gently howe idly news only singly skies skis sky ugly
dying lying tying inning outing canning herring earring proceed exceed succeed proceeded
succeeding generate generous communism communication arsenal emergency international later
university organization past pasted pastes yes youth sayyy yyyy ayy boy boys toy toyed
'tis cat's cats' o'neill it's don't ''s ski skiing news' a ab abs gas gaps ties cries tied
cafés naïvely résumés éated über überly ényed hopping hoping fizzed filing falling added egging ebbing odd luxuriate luxuriating
caresses ponies sses ss us bus cactus generically electrically fully usefully hopelessly
""".split()


def words(text):
    return re.findall(r"[^\W_]+", text.lower())


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join("..", "shared", "corpora")
    vocab = set()
    with open(os.path.join(root, "cranfield", "cran.all.1400"), encoding="latin-1") as f:
        vocab.update(words(f.read()))
    kep = set()
    for path in sorted(glob.glob(os.path.join(root, "keps", "**", "*.md"), recursive=True)):
        with open(path, encoding="utf-8", errors="replace") as f:
            kep.update(w for w in words(f.read()) if len(w.encode()) <= 64 and not re.search(r"\d", w))
    kep -= vocab
    kep = sorted(kep)
    random.Random(10).shuffle(kep)
    vocab.update(kep[:MAX_KEP_WORDS])
    vocab.update(EXTRA)
    vocab = sorted(vocab)

    stemmer = snowballstemmer.stemmer("english")
    stems = stemmer.stemWords(vocab)
    try:
        import Stemmer
        other = Stemmer.Stemmer("english").stemWords(vocab)
        diff = [(w, a, b) for w, a, b in zip(vocab, stems, other) if a != b]
        print(f"PyStemmer differs on {len(diff)} words: {diff[:10]}", file=sys.stderr)
    except ImportError:
        pass
    with open(OUT, "w", encoding="utf-8") as f:
        for w, s in zip(vocab, stems):
            f.write(f"{w} {s}\n")
    print(f"{len(vocab)} words -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
