#!/usr/bin/env python3
"""Word-level agreement of two extractions of the same PDF: recall and precision of hyrax's words
against the reference's (pdftotext), as multisets of white-space separated words, with the
ligatures U+FB00-FB06 spelled out on both sides (hyrax writes them as letters) and both sides in
Unicode NFC (hyrax writes an accent drawn over a letter as its combining mark, pdftotext composes).
Usage: bench/pdf_agree.py REFERENCE.txt HYRAX.txt  -> prints `recall precision ref_words`"""
import collections
import sys
import unicodedata

LIG = {0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB05: "st", 0xFB06: "st"}


def words(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return collections.Counter(unicodedata.normalize("NFC", f.read().translate(LIG)).split())


def agree(ref, got):
    common = sum((ref & got).values())
    r = common / sum(ref.values()) if ref else 1.0   # nothing to find: all of it found
    p = common / sum(got.values()) if got else 1.0
    return r, p


if __name__ == "__main__":
    ref, got = words(sys.argv[1]), words(sys.argv[2])
    r, p = agree(ref, got)
    print("%.4f %.4f %d" % (r, p, sum(ref.values())))
