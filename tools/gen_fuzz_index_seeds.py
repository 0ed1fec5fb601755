#!/usr/bin/env python3
"""Cuts seed inputs for fuzz/fuzz_index.c out of real index files.

Reads an index file (store layout in src/store/store.h, root layout in src/index/ix.h), takes
the newest commit's root, and writes the harness's input: dim, next_doc, next_chunk, the docs
blob length, the tombstone blob length, then the docs blob, the tombstone blob and each segment
(one seed per segment, the first seed also without any segment).

    python3 tools/gen_fuzz_index_seeds.py INDEX.hyx OUT_DIR
"""
import os
import struct
import sys


def newest_root(data):
    best = None
    for slot in (4096, 8192):
        magic, gen, _ts, rec_off, rec_len = struct.unpack_from("<8sQqQQ", data, slot)
        if magic == b"HXMETA01" and rec_off and (best is None or gen > best[0]):
            best = (gen, rec_off, rec_len)
    _gen, off, _len = best
    root_len = struct.unpack_from("<Q", data, off + 48)[0]
    return data[off + 128: off + 128 + root_len]


def blob(data, ref):
    off, length = struct.unpack_from("<QQ", ref)
    return data[off: off + length]


def main(path, out_dir):
    data = open(path, "rb").read()
    root = newest_root(data)
    pos = 8
    version, dim = struct.unpack_from("<II", root, pos)
    pos += 8
    for _ in range({1: 2, 2: 3}.get(version, 4)):   # model name, [keyword analyzer, [precision,]] root path
        n = struct.unpack_from("<I", root, pos)[0]
        pos += 4 + n
    next_doc, next_chunk = struct.unpack_from("<II", root, pos)
    pos += 8
    docs, tomb = blob(data, root[pos:pos + 20]), blob(data, root[pos + 20:pos + 40])
    pos += 40
    n_segs = struct.unpack_from("<I", root, pos)[0]
    segs = [blob(data, root[pos + 4 + 20 * i: pos + 24 + 20 * i]) for i in range(n_segs)]
    head = struct.pack("<IIIII", dim - 1, next_doc, next_chunk, len(docs), len(tomb)) + docs + tomb
    os.makedirs(out_dir, exist_ok=True)
    name = os.path.splitext(os.path.basename(path))[0]
    for i, seg in enumerate([b""] + segs):
        with open(os.path.join(out_dir, "%s-%d" % (name, i)), "wb") as fh:
            fh.write(head + seg)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
