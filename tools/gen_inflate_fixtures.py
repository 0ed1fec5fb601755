#!/usr/bin/env python3
"""gen_inflate_fixtures.py: DEFLATE / zlib test vectors for tests/test_inflate.c, made by Python's
zlib (the reference) and committed under tests/golden/inflate/.

Writes NAME.in (the compressed stream) and manifest.txt with one line per case:
`NAME raw|zlib ok LENGTH SHA256` (what zlib decodes: its length and SHA-256) or `NAME raw|zlib fail`. Valid streams cover levels,
strategies, window sizes, memory levels, empty input, stored-only data, a run of 1-byte distances,
and several concatenated blocks; corrupt streams are hand-built bit by bit and kept only when zlib
itself refuses them, so the expected outcome is zlib's.

Usage: tools/gen_inflate_fixtures.py [KEP folder] (default /work/shared/corpora/keps)
"""
import hashlib
import os
import random
import sys
import zlib

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "inflate")


class Bits:
    """An LSB-first bit writer, as DEFLATE packs its bits."""

    def __init__(self):
        self.acc, self.n, self.out = 0, 0, bytearray()

    def put(self, value, n):
        self.acc |= value << self.n
        self.n += n
        while self.n >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.n -= 8

    def huff(self, code, n):
        """A Huffman code: most significant bit first."""
        for k in range(n - 1, -1, -1):
            self.put((code >> k) & 1, 1)

    def bytes(self):
        return bytes(self.out) + (bytes([self.acc]) if self.n else b"")


def fixed_lit(b, sym):
    if sym < 144:
        b.huff(0x30 + sym, 8)
    elif sym < 256:
        b.huff(0x190 + sym - 144, 9)
    elif sym < 280:
        b.huff(sym - 256, 7)
    else:
        b.huff(0xC0 + sym - 280, 8)


def dynamic_header(b, nlit, ndist, clens, last=1):
    """A dynamic block header with the code-length code lengths clens (in RFC order, 19 values)."""
    b.put(last, 1)
    b.put(2, 2)
    b.put(nlit - 257, 5)
    b.put(ndist - 1, 5)
    b.put(len(clens) - 4, 4)
    for v in clens:
        b.put(v, 3)


def corrupt_cases():
    cases = {}
    b = Bits(); b.put(1, 1); b.put(3, 2)
    cases["bad_block_type"] = b.bytes()
    b = Bits(); b.put(1, 1); b.put(1, 2); fixed_lit(b, 257); b.huff(0, 5); fixed_lit(b, 256)
    cases["distance_too_far"] = b.bytes()
    b = Bits(); b.put(1, 1); b.put(1, 2); fixed_lit(b, ord("a")); fixed_lit(b, 257); b.huff(30, 5); fixed_lit(b, 256)
    cases["distance_code_30"] = b.bytes()
    b = Bits(); b.put(1, 1); b.put(1, 2); fixed_lit(b, 286); fixed_lit(b, 256)
    cases["length_code_286"] = b.bytes()
    b = Bits(); b.put(1, 1); b.put(0, 2); b.put(0, 5); b.out += bytes([5, 0, 0, 0]) + b"hello"
    cases["stored_bad_nlen"] = b.bytes()
    # Code-length code over-subscribed: three codes of length 1.
    b = Bits(); dynamic_header(b, 257, 1, [1, 1, 1, 0])
    cases["oversubscribed_clen"] = b.bytes() + bytes(8)
    # Code-length code incomplete: one code of length 2.
    b = Bits(); dynamic_header(b, 257, 1, [0, 0, 0, 2])
    cases["incomplete_clen"] = b.bytes() + bytes(8)
    # A repeat (16) as the very first code length. Code lengths: 16 -> length 1 (code 0), 0 -> 1.
    b = Bits(); dynamic_header(b, 257, 1, [1, 0, 0, 1]); b.huff(0, 1); b.put(0, 2)
    cases["repeat_first"] = b.bytes() + bytes(8)
    # Literal/length code over-subscribed: every one of 258 codes with length 1... via lengths 1 (code for 1 in
    # clen order is position 17), so the clen code: symbol 1 -> length 1, symbol 0 -> length 1.
    b = Bits()
    order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    cl = [0] * 19
    cl[order.index(0)] = 1
    cl[order.index(1)] = 1
    dynamic_header(b, 257, 1, cl)
    for _ in range(258):
        b.huff(1, 1)      # symbol 1 (canonical: 0 -> code 0, 1 -> code 1)
    cases["oversubscribed_lit"] = b.bytes() + bytes(8)
    # Literal/length code incomplete: 257 codes, all of length 8 except none... use lengths 8 for
    # 0..255 and 9 for 256 (incomplete: one 9-bit slot left).
    cl = [0] * 19
    cl[order.index(8)] = 1
    cl[order.index(9)] = 2
    cl[order.index(1)] = 2
    b = Bits(); dynamic_header(b, 257, 1, cl)
    for _ in range(256):
        b.huff(0, 1)      # 8
    b.huff(2, 2)          # 9 (codes: 8 -> 0, 1 -> 10, 9 -> 11)
    b.huff(2, 2)          # distance length 1
    cases["incomplete_lit"] = b.bytes() + bytes(8)
    # No end-of-block code: lengths 8 for 0..255, 0 for 256 (code 0 of the clen code is length 0).
    cl = [0] * 19
    cl[order.index(8)] = 1
    cl[order.index(0)] = 1
    b = Bits(); dynamic_header(b, 257, 1, cl)
    for _ in range(256):
        b.huff(1, 1)      # 8 (codes: 0 -> 0, 8 -> 1)
    b.huff(0, 1)          # 256: 0
    b.huff(0, 1)          # distance: 0
    cases["no_end_of_block"] = b.bytes() + bytes(8)
    return cases


def kep_text(folder, limit):
    paths = []
    for root, _, files in os.walk(folder):
        paths += [os.path.join(root, f) for f in files if f.endswith(".md")]
    text = b""
    for p in sorted(paths):
        with open(p, "rb") as f:
            text += f.read()
        if len(text) >= limit:
            break
    return text[:limit]


def main():
    keps = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpora/keps"
    os.makedirs(OUT, exist_ok=True)
    text = kep_text(keps, 40 * 1024)
    rnd = random.Random(28).randbytes(12 * 1024)
    manifest = []

    def valid(name, data, level=6, wbits=15, mem=8, strategy=zlib.Z_DEFAULT_STRATEGY, chunks=1):
        c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
        step = max(1, len(data) // chunks)
        comp = b""
        for i in range(0, len(data), step):
            comp += c.compress(data[i:i + step])
            if chunks > 1:
                comp += c.flush(zlib.Z_FULL_FLUSH)
        comp += c.flush()
        kind = "raw" if wbits < 0 else "zlib"
        assert zlib.decompress(comp, wbits) == data
        write(name, kind, comp, data)

    def write(name, kind, comp, data):
        with open(os.path.join(OUT, name + ".in"), "wb") as f:
            f.write(comp)
        if data is None:
            manifest.append(f"{name} {kind} fail")
        else:
            manifest.append(f"{name} {kind} ok {len(data)} {hashlib.sha256(data).hexdigest()}")

    valid("empty_zlib", b"")
    valid("empty_raw", b"", wbits=-15)
    for level in (0, 1, 6, 9):
        valid(f"text_level{level}", text, level=level)
    for name, st in (("filtered", zlib.Z_FILTERED), ("huffman_only", zlib.Z_HUFFMAN_ONLY), ("rle", zlib.Z_RLE),
                     ("fixed", zlib.Z_FIXED)):
        valid(f"text_{name}", text[:16384], strategy=st)
    for wbits in (9, 12):
        valid(f"text_window{wbits}", text[:16384], wbits=wbits)
        valid(f"text_raw_window{wbits}", text[:16384], wbits=-max(wbits, 10))
    valid("text_memlevel1", text[:16384], mem=1)
    valid("text_flushed_blocks", text[:16384], chunks=7)
    valid("random_level9", rnd, level=9)
    valid("random_stored", rnd[:3000], level=0, wbits=-15)
    valid("run_distance1", b"a" * 9000 + b"b" + b"\0" * 1000, strategy=zlib.Z_RLE)
    valid("one_byte", b"x", wbits=-15)

    full = zlib.compress(text[:8192], 9)
    bad_adler = bytearray(full); bad_adler[-1] ^= 1
    cases = {"truncated_zlib": (full[:len(full) // 2], "zlib"), "truncated_trailer": (full[:-2], "zlib"),
             "bad_adler": (bytes(bad_adler), "zlib"), "bad_header": (b"\x78\x9d" + full[2:], "zlib"),
             "preset_dictionary": (b"\x78\xbb" + bytes(4) + full[2:], "zlib"),
             "truncated_raw": (zlib.compress(text[:4096], 6)[2:40], "raw")}
    for name, data in corrupt_cases().items():
        cases[name] = (data, "raw")
    for name, (data, kind) in cases.items():
        try:
            zlib.decompress(data, 15 if kind == "zlib" else -15)
        except zlib.error:
            write(name, kind, data, None)
            continue
        raise SystemExit(f"{name}: zlib accepts this stream; it is no corrupt case")
    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"{len(manifest)} cases in {OUT}")


if __name__ == "__main__":
    main()
