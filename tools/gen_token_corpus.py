#!/usr/bin/env python3
"""gen_token_corpus.py: writes tests/data/token_corpus.txt, the tokenizer parity corpus.

    python3 tools/gen_token_corpus.py [--shared ../shared] [--out tests/data/token_corpus.txt]

One test case per line ('\\n' only separates lines; every other character, controls included,
may appear literally inside a line). Real text comes from ../shared/corpora (KEP Markdown and
kep.yaml, Cranfield abstracts and queries), chosen by a fixed-seed RNG over a sorted file list;
multilingual, emoji, combining-mark, zero-width, control, special-token, long-word and per-code-
point lines are synthesised from that same RNG, so the output is the same on every run.
Then run tools/gen_golden_tokens.py to refresh tests/golden/tokens.txt.
"""
import argparse
import os
import random
import re
import unicodedata

SEED = 20261121

GREEK = ("Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο. Ο Σωκράτης είπε ότι "
         "ένα πράγμα ξέρω, ότι δεν ξέρω τίποτα. ΑΘΗΝΑ Θεσσαλονίκη ΟΔΥΣΣΕΥΣ ἀρετή ψυχή λόγος").split()
CYRILLIC = ("Съешь же ещё этих мягких французских булок да выпей чаю. Москва Санкт-Петербург "
            "ПРИВЕТ мир Україна їжак ґанок Ёлка Беларусь Њујорк ђак").split()
ARABIC = ("صِفْ خَلْقَ خَوْدٍ كَمِثْلِ الشَّمْسِ إِذْ بَزَغَتْ يَحْظَى الضَّجِيعُ بِهَا نَجْلَاءَ مِعْطَارِ "
          "مرحبا بالعالم القاهرة ٠١٢٣٤٥٦٧٨٩ كتاب، سؤال؟ فارسی گچپژ").split()
HINDI = ("ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले विष्णुवतार "
         "भगवान श्रीराम नमस्ते दुनिया हिन्दी। क्षत्रिय ०१२३४५६७८९ বাংলা ਪੰਜਾਬੀ தமிழ்").split()
CJK = ("我能吞下玻璃而不伤身体。 天地玄黄宇宙洪荒 日本語のテキスト、カタカナとひらがな。 "
       "東京都 한국어 문장입니다 서울특별시 漢字 𠀀𠀁 𪜀 豈更 ｶﾀｶﾅ ＡＢＣ１２３ 「引用」").split()
LATIN = ("Ça déjà vu naïve café résumé façade Ångström Øresund Straße ẞ Żółć gęślą jaźń "
         "Dvořák Ærøskøbing İstanbul ılık Ğ ş ñandú pingüino ÉCOLE Œuvre ǅ ǈ ﬁne ﬂow Ǆ "
         "Ĳssel Kelvin K Ω Å ŉ ǰ ΐ").split()
EMOJI = ["😀", "😂", "🥲", "👍", "👍🏻", "👍🏽", "👍🏿", "👨‍👩‍👧‍👦", "👩🏽‍💻", "🏳️‍🌈", "🏴‍☠️",
         "🇺🇸", "🇯🇵", "🇪🇺", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "❤️", "❤", "☺️", "1️⃣", "#️⃣", "🫠", "🫨", "🩷", "🪿", "🫎",
         "🐦‍🔥", "🍋‍🟩", "🧑‍🧑‍🧒", "🤌🏼", "🧔‍♀️", "⌚", "✅", "🚀", "©️", "™", "🆗", "🀄", "🃏", "🔟"]
COMBINING = [chr(c) for c in list(range(0x300, 0x370)) + list(range(0x1AB0, 0x1ABF)) +
             list(range(0x1DC0, 0x1E00)) + list(range(0x20D0, 0x20F1)) + [0x0903, 0x093E, 0x0BCD]]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u200f",
              "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
              "\u2069", "\u180e", "\u061c", "\U000e0001", "\U000e0041", "\ufe0f", "\ufe0e"]
CONTROLS = ([chr(c) for c in range(0, 32) if c != 10] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
            + ["\ufffd", "\ue000", "\uf8ff", "\U000f0000", "\U0010fffd", "\ufffe", "\uffff",
               "\U0001fffe", "\u2028", "\u2029", "\u00a0", "\u3000", "\u2007", "\u202f", "\u1680"])
SPECIAL = ["[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]", "[cls]", "[Mask]", "[MASK", "MASK]",
           "[[MASK]]", "[unused0]", "[unused99]", "[ CLS ]", "[SEP][SEP]", "x[CLS]y"]
CODE = [
    "int main(int argc, char **argv) { return argc > 1 ? atoi(argv[1]) : 0; }",
    "for (size_t i = 0; i < n; i++) sum += a[i] * b[i];  // dot product",
    "def tokenize(text: str) -> list[int]:\n",
    "    return [vocab.get(w, UNK_ID) for w in text.lower().split()]",
    "const x = await fetch(`https://api.example.com/v1/items?id=${id}&limit=10`);",
    "fn main() { let v: Vec<u32> = (0..10).map(|x| x * x).collect(); println!(\"{:?}\", v); }",
    "SELECT id, title FROM docs WHERE score >= 0.75 ORDER BY score DESC LIMIT 10;",
    "kubectl get pods -n kube-system -o jsonpath='{.items[*].metadata.name}'",
    "#include <stdio.h>",
    "if err != nil { return fmt.Errorf(\"open %s: %w\", path, err) }",
    "x = {'a': [1, 2, 3], \"b\": None, 'c': 1e-9, 'd': 0xFF, 'e': 0b1010}",
    "<div class=\"note\"><a href=\"/docs/#install\">Install &amp; run</a></div>",
    "$ make -j2 && ./hyrax tokenize < input.txt > out.jsonl 2>&1",
    "@@ -12,7 +12,9 @@ static int parse(const char *s, size_t n)",
    "git commit -m \"Fix off-by-one in hxi_utf8_next (closes #42)\"",
    "λx.λy.x ≠ λx.λy.y; ∀ε>0 ∃δ>0: |x−a|<δ ⇒ |f(x)−f(a)|<ε",
]


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


def kep_files(shared, suffix):
    out = []
    for root, _, files in os.walk(os.path.join(shared, "corpora/keps")):
        out += [os.path.join(root, f) for f in files if f.endswith(suffix)]
    return sorted(out)


def nonempty_lines(text):
    return [l for l in text.split("\n") if l.strip()]


def cranfield(shared):
    text = read(os.path.join(shared, "corpora/cranfield/cran.all.1400"))
    docs = []
    for rec in text.split(".I ")[1:]:
        m = re.search(r"\.W\n(.*)", rec, re.S)
        if m:
            docs.append(" ".join(m.group(1).split()))
    qtext = read(os.path.join(shared, "corpora/cranfield/cran.qry"))
    queries = [" ".join(q.split(".W", 1)[1].split()) for q in qtext.split(".I ")[1:]]
    return docs, queries


def rand_word(rng, alphabet, lo, hi):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def cp_lines(rng):
    """Lines of "x<c>x" items that exercise the Unicode tables code point by code point."""
    picks = []
    for cp in range(0x20, 0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        cat = unicodedata.category(c)
        interesting = (cat[0] in "PSZ" or cat in ("Cc", "Cf", "Mn", "Me", "Lu", "Lt")
                       or unicodedata.decomposition(c) and not unicodedata.decomposition(c).startswith("<")
                       or c.lower() != c)
        if 0xAC00 <= cp <= 0xD7A3 or 0x4E00 <= cp <= 0x9FFF or 0x20000 <= cp <= 0x3FFFF:
            interesting = rng.random() < 0.01
        elif cat == "Cn" or cat == "Co":
            interesting = rng.random() < 0.003
        elif not interesting:
            interesting = rng.random() < 0.05
        if interesting:
            picks.append(c)
    lines = []
    for i in range(0, len(picks), 48):
        lines.append(" ".join("x" + c + "x" if j % 2 else c for j, c in enumerate(picks[i:i + 48])))
    return lines


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--shared", default=os.path.join(here, "..", "shared"))
    ap.add_argument("--out", default=os.path.join(here, "tests/data/token_corpus.txt"))
    args = ap.parse_args()
    rng = random.Random(SEED)
    lines = []

    md = kep_files(args.shared, ".md")
    yml = kep_files(args.shared, ".yaml")
    md_lines = [l for f in rng.sample(md, 200) for l in nonempty_lines(read(f))]
    lines += rng.sample(md_lines, 1800)
    yml_lines = [l for f in rng.sample(yml, 150) for l in nonempty_lines(read(f))]
    lines += rng.sample(yml_lines, 700)
    code = [l for l in md_lines if l.startswith("    ") or re.search(r"[{};]$|^\s*(func|if|return|import|//|#)", l)]
    lines += rng.sample(code, min(300, len(code)))
    urls = sorted(set(re.findall(r"https?://[^\s)>\]]+", " ".join(md_lines))))
    lines += rng.sample(urls, min(200, len(urls)))
    # Paragraphs long enough to exceed 256 word pieces.
    for f in rng.sample(md, 80):
        ls = nonempty_lines(read(f))
        if len(ls) > 20:
            k = rng.randrange(len(ls) - 20)
            lines.append(" ".join(ls[k:k + 40])[:2400])
    docs, queries = cranfield(args.shared)
    lines += rng.sample(docs, 450)
    lines += queries
    lines += [" ".join(docs[i:i + 3]) for i in range(0, 90, 3)]

    lines += [l.rstrip("\n") for l in CODE]
    for _ in range(250):
        lines.append(" ".join(rng.choice([
            str(rng.randint(0, 10 ** rng.randint(1, 12))),
            "%.*f" % (rng.randint(0, 6), rng.uniform(-1e6, 1e6)),
            "%d,%03d,%03d" % (rng.randint(1, 999), rng.randint(0, 999), rng.randint(0, 999)),
            "%.3e" % rng.uniform(-1e-9, 1e9), "v%d.%d.%d" % (rng.randint(0, 3), rng.randint(0, 40), rng.randint(0, 9)),
            "%d.%d.%d.%d" % tuple(rng.randint(0, 255) for _ in range(4)), hex(rng.getrandbits(48)),
            "2026-%02d-%02dT%02d:%02d:00Z" % (rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)),
            "%d%%" % rng.randint(0, 100), "$%d.%02d" % (rng.randint(0, 9999), rng.randint(0, 99)),
            "½ ¾ ² ³ ⅷ ① ٣ ৭ ๕", "10⁻⁹ m²/s", "１２３４",
        ]) for _ in range(rng.randint(3, 12))))
    for _ in range(200):
        lines.append("https://%s.example.%s/%s?q=%s&page=%d#%s" % (
            rand_word(rng, "abcdefghijklmnopqrstuvwxyz", 3, 10), rng.choice(["com", "org", "io", "co.uk"]),
            "/".join(rand_word(rng, "abcdefghijklmnopqrstuvwxyz0123456789-_", 1, 12) for _ in range(rng.randint(1, 4))),
            rand_word(rng, "abcdefghijklmnopqrstuvwxyz+%20", 1, 20), rng.randint(1, 99), rand_word(rng, "abcxyz", 1, 8)))

    scripts = [GREEK, CYRILLIC, ARABIC, HINDI, CJK, LATIN]
    for s in scripts:
        for _ in range(150):
            lines.append(" ".join(rng.choice(s) for _ in range(rng.randint(1, 25))))
    for _ in range(250):
        lines.append(" ".join(rng.choice(rng.choice(scripts + [EMOJI, md_lines[:50]])) for _ in range(rng.randint(2, 20))))
    blocks = [(0x370, 0x3FF), (0x400, 0x52F), (0x600, 0x6FF), (0x900, 0x97F), (0x4E00, 0x9FFF),
              (0x3040, 0x30FF), (0xAC00, 0xD7A3), (0xC0, 0x24F), (0x1E00, 0x1EFF), (0x1F300, 0x1FAFF),
              (0x2000, 0x2BFF), (0xFF00, 0xFFEF), (0x20000, 0x2A6DF), (0x10000, 0x1000FF)]
    for _ in range(400):
        lo, hi = rng.choice(blocks)
        lines.append(" ".join(rand_word(rng, [chr(rng.randint(lo, hi)) for _ in range(30)], 1, 12)
                              for _ in range(rng.randint(1, 10))))
    for _ in range(250):
        lines.append("".join(rng.choice(EMOJI) + rng.choice(["", " ", "a", "\u200d", "\ufe0f", "."])
                             for _ in range(rng.randint(1, 15))))
    for _ in range(200):
        words = []
        for _ in range(rng.randint(1, 8)):
            base = rng.choice("aeiouAEIOUnNcCxyzαωиЯ한字1.")
            words.append(base + "".join(rng.choice(COMBINING) for _ in range(rng.randint(1, 6))))
        lines.append(" ".join(words))
    for _ in range(300):
        parts = []
        for _ in range(rng.randint(2, 12)):
            parts.append(rng.choice([rng.choice(LATIN), rng.choice(CYRILLIC), "word", "test123", "x"]))
            parts.append(rng.choice(ZERO_WIDTH + CONTROLS + [" ", "", "-"]))
        lines.append("".join(parts))
    for n in (99, 100, 101, 150, 300):
        for alpha in ("a", "é", "ab", "x\u0301", "한", "字", "1", "ǆ", "İ"):
            lines.append("start " + (alpha * n)[:n] + " end")
    for _ in range(100):
        n = rng.choice([rng.randint(90, 110), rng.randint(100, 400)])
        lines.append(rand_word(rng, "abcdefghijklmnopqrstuvwxyzéüñ", n, n) + " " +
                     rand_word(rng, "abcdefghij", 1, 200))
    for _ in range(80):
        lines.append(" ".join(rng.choice(SPECIAL + ["hello", "world", ".", ""]) for _ in range(rng.randint(1, 10)))
                     .replace(" ", rng.choice([" ", ""])))
    lines += ["", " ", "\t", "\r", "\x00", "\ufffd", "\u200b", "[CLS]", "a", ".", "...", "字",
              "a" * 101, "a" * 100, "\u0301", "\U0001F600", "x" * 5000]
    lines += cp_lines(rng)

    out = "\n".join(l.replace("\n", " ") for l in lines) + "\n"
    data = out.encode("utf-8")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(data)
    print("%d lines, %d bytes -> %s" % (len(lines), len(data), args.out))


if __name__ == "__main__":
    main()
