#!/usr/bin/env python3
"""inflate_peers.py: decompression speed of hyrax's inflate (bench/inflate_bench) against Python's
zlib (the C zlib it links) and pigz -dz, on the same zlib streams in the same run: the KEP corpus
(text, levels 1, 6 and 9) and Cranfield (level 6). MB/s of decompressed output, best of 5 for the
in-process decoders; pigz includes its process start (one run of the whole file).

Usage: bench/inflate_peers.py [KEP folder] [Cranfield file]; prints a Markdown table.
"""
import glob
import os
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    keps = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpora/keps"
    cran = sys.argv[2] if len(sys.argv) > 2 else "/work/shared/corpora/cranfield/cran.all.1400"
    text = b"".join(open(p, "rb").read() for p in sorted(glob.glob(os.path.join(keps, "**", "*.md"), recursive=True)))
    sets = [("keps-l1", text, 1), ("keps-l6", text, 6), ("keps-l9", text, 9), ("cranfield-l6", open(cran, "rb").read(), 6)]
    subprocess.run(["make", "-s", "bench/inflate_bench"], cwd=os.path.dirname(HERE), check=True)
    rows = ["| stream | MB out | hyrax MB/s | Python zlib MB/s | pigz -dz MB/s |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, data, level in sets:
            comp = zlib.compress(data, level)
            path = os.path.join(tmp, name + ".zz")
            with open(path, "wb") as f:
                f.write(comp)
            out = subprocess.run([os.path.join(HERE, "inflate_bench"), path], check=True, capture_output=True,
                                 text=True).stdout.split()
            assert int(out[1]) == len(data)
            hx = len(data) / float(out[2]) / 1e6
            best = 1e9
            for _ in range(5):
                t0 = time.perf_counter()
                zlib.decompress(comp)
                best = min(best, time.perf_counter() - t0)
            t0 = time.perf_counter()
            res = subprocess.run(["pigz", "-dz", "-c", path], check=True, capture_output=True).stdout
            pg = time.perf_counter() - t0
            assert res == data
            rows.append(f"| {name} | {len(data) / 1e6:.1f} | {hx:.0f} | {len(data) / best / 1e6:.0f} | "
                        f"{len(data) / pg / 1e6:.0f} |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
