#!/usr/bin/env python3
"""code_agreement.py: how often hyrax's code lexers find tree-sitter's top-level definitions.

For every language it takes up to --per files from the folders given (real code on this machine:
CPython's Lib/, Go's src/, node_modules, ...), lists their top-level definitions with tree-sitter
(tools/gen_code_goldens.py) and with hyrax (tools/code_defs.c, built here against
build/libhyrax.a: run `make` first), and prints per language the share of tree-sitter's
definitions hyrax finds with the same name and the same first and last line, and with the same
name only. Files tree-sitter cannot parse without errors are skipped.

    build/venv/bin/python tools/code_agreement.py --per 300 /usr/lib/python3.11 /usr/local/go/src ...
    build/venv/bin/python tools/code_agreement.py -v FILE...     # the misses, file by file
"""
import argparse
import collections
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_code_goldens as ref  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
LANG = {"py": "python", "c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp",
        "go": "go", "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascript",
        "ts": "typescript", "mts": "typescript", "cts": "typescript", "hxx": "cpp",
        "tsx": "typescript", "rs": "rust", "java": "java", "sh": "shell", "bash": "shell"}


def build_probe():
    out = os.path.join(ROOT, "build", "code_defs")
    inc = [f"-I{os.path.join(ROOT, d)}" for d in ("include", "src/base", "src/unicode", "src/text", "src/formats")]
    subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-O2", *inc, "-o", out,
                    os.path.join(ROOT, "tools", "code_defs.c"), os.path.join(ROOT, "build", "libhyrax.a"),
                    "-lm", "-lpthread"], check=True)
    return out


def hyrax_defs(probe, files):
    got = collections.defaultdict(list)
    for i in range(0, len(files), 200):
        res = subprocess.run([probe, *files[i:i + 200]], capture_output=True, check=True)
        for line in res.stdout.decode("utf-8", "replace").splitlines():
            path, name, kind, first, last, depth = line.split("\t")
            if depth == "1":
                got[path].append((name, int(first), int(last)))
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--per", type=int, default=300, help="files per language")
    ap.add_argument("--max-bytes", type=int, default=400_000)
    ap.add_argument("-v", action="store_true", help="print each miss")
    args = ap.parse_args()
    by_lang = collections.defaultdict(list)
    for p in args.paths:
        walk = [(os.path.dirname(p), [], [os.path.basename(p)])] if os.path.isfile(p) else os.walk(p)
        for d, _, names in walk:
            for n in names:
                f = os.path.join(d, n)
                ext = ref.language_of(f)
                if ext and os.path.isfile(f) and os.path.getsize(f) <= args.max_bytes:
                    by_lang[LANG[ext]].append(f)
    rnd = random.Random(29)
    probe = build_probe()
    print("language\tfiles\tdefinitions\tname+span\tname only\thyrax extra")
    for lang in sorted(by_lang):
        files = sorted(by_lang[lang])
        rnd.shuffle(files)
        files = files[:args.per]
        golden = {}
        for f in files:
            try:
                d = ref.definitions(f)
            except (OSError, ValueError):
                d = None
            if d is not None:
                golden[f] = d
        got = hyrax_defs(probe, sorted(golden))
        total = span_ok = name_ok = extra = 0
        for f, defs in golden.items():
            mine = got.get(f, [])
            names = collections.Counter(n for n, _, _ in mine)
            spans = set(mine)
            for name, kind, first, last in defs:
                total += 1
                if (name, first, last) in spans:
                    span_ok += 1
                    name_ok += 1
                elif names[name]:
                    name_ok += 1
                    if args.v:
                        print(f"  span {f}: {name} {first}-{last}; hyrax "
                              f"{[(a, b) for n, a, b in mine if n == name]}")
                elif args.v:
                    print(f"  miss {f}: {kind} {name} {first}-{last}")
            extra += max(0, len(mine) - len(defs))
        pct = lambda k: f"{100.0 * k / total:.1f}%" if total else "-"  # noqa: E731
        print(f"{lang}\t{len(golden)}\t{total}\t{pct(span_ok)}\t{pct(name_ok)}\t{extra}")


if __name__ == "__main__":
    main()
