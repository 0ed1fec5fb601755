#!/usr/bin/env python3
"""gen_zip_fixtures.py: ZIP archives for tests/test_zip.c, made by Python's zipfile and Info-ZIP's
`zip`, committed under tests/golden/zip/ with manifest.txt:

  ok ARCHIVE ENTRY SIZE SHA256     an entry as Python's zipfile reads it (the reference)
  open_fail ARCHIVE WORD           hyrax must refuse to open the archive; WORD is in the reason
  read_fail ARCHIVE ENTRY WORD     hyrax opens the archive but refuses this entry

Valid archives cover stored and deflate entries, data descriptors (streamed writes), ZIP64 records
and extra fields, a comment, data prepended to the archive, and Info-ZIP's own output. Hostile ones
(a high-ratio bomb, overlapping entries, huge declared sizes, a bad CRC, encryption, an unknown
method, a cut archive) are built by patching valid archives.

Usage: tools/gen_zip_fixtures.py [KEP folder] (default /work/shared/corpora/keps)
"""
import hashlib
import io
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "golden", "zip")
manifest = []


def kep_files(folder, count):
    paths = []
    for root, _, files in os.walk(folder):
        paths += [os.path.join(root, f) for f in files if f.endswith(".md")]
    return sorted(paths)[:count]


def save(name, data, check=True):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    if check:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                body = z.read(info)
                manifest.append(f"ok {name} {info.filename} {len(body)} {hashlib.sha256(body).hexdigest()}")


class Unseekable(io.RawIOBase):
    """A write-only stream, so zipfile writes data descriptors."""

    def __init__(self):
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.buf += b
        return len(b)


def main():
    keps = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpora/keps"
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    texts = []
    for p in kep_files(keps, 4):
        with open(p, "rb") as f:
            texts.append(f.read()[:6000])

    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr(zipfile.ZipInfo("stored.md"), texts[0], zipfile.ZIP_STORED)
        z.writestr("deflated.md", texts[1], zipfile.ZIP_DEFLATED, compresslevel=9)
        z.writestr("dir/", b"")
        z.writestr("empty.txt", b"", zipfile.ZIP_DEFLATED)
        z.comment = b"a comment at the end of the archive"
    plain = b.getvalue()
    save("mixed.zip", plain)
    save("prepended.zip", b"#!/bin/sh\necho a self-extractor would run here\nexit 0\n" + plain)

    s = Unseekable()
    with zipfile.ZipFile(s, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("streamed1.md", texts[2])
        with z.open("streamed2.md", "w") as w:
            w.write(texts[3])
    save("descriptor.zip", bytes(s.buf))

    limit, count = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 64, 1   # every size, offset and count as ZIP64
    try:
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("a.md", texts[0])
            with z.open("b.md", "w", force_zip64=True) as w:
                w.write(texts[1])
            z.writestr("c.md", texts[2][:40])
        save("zip64.zip", b.getvalue())
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limit, count
    assert b"PK\x06\x06" in b.getvalue() and b"PK\x06\x07" in b.getvalue()

    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(texts[:3]):
            with open(os.path.join(tmp, f"kep{i}.md"), "wb") as f:
                f.write(t)
        subprocess.run(["zip", "-q", "-X", "-9", "infozip.zip", "kep0.md", "kep1.md"], cwd=tmp, check=True)
        subprocess.run(["zip", "-q", "-X", "-0", "infozip.zip", "kep2.md"], cwd=tmp, check=True)
        with open(os.path.join(tmp, "kep2.md"), "rb") as f:
            piped = subprocess.run(["zip", "-q", "-X", "-", "-"], input=f.read(), cwd=tmp, check=True,
                                   capture_output=True).stdout
        with open(os.path.join(tmp, "infozip.zip"), "rb") as f:
            save("infozip.zip", f.read())
        save("infozip_pipe.zip", piped)

    # Hostile archives.
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("zeros.bin", bytes(8 << 20), compresslevel=9)
    save("bomb_ratio.zip", b.getvalue(), check=False)
    manifest.append("read_fail bomb_ratio.zip zeros.bin expands")

    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        z.writestr("one.txt", b"first")
    one = b.getvalue()
    cd = one.index(b"PK\x01\x02")
    eocd = one.index(b"PK\x05\x06")
    entry = one[cd:eocd]
    tail = bytearray(one[eocd:])
    struct.pack_into("<HHII", tail, 8, 2, 2, 2 * len(entry), cd)
    save("overlap.zip", one[:cd] + entry + entry + bytes(tail), check=False)
    manifest.append("open_fail overlap.zip overlap")

    huge = bytearray(one)
    struct.pack_into("<I", huge, cd + 24, 0xFFFFFFF0)   # central usize
    struct.pack_into("<I", huge, 22, 0xFFFFFFF0)        # local usize
    save("huge_declared.zip", bytes(huge), check=False)
    manifest.append("read_fail huge_declared.zip one.txt declares")

    bad = bytearray(one)
    bad[30 + len("one.txt")] ^= 0x20
    save("bad_crc.zip", bytes(bad), check=False)
    manifest.append("read_fail bad_crc.zip one.txt CRC")

    enc = bytearray(one)
    enc[6] |= 1
    enc[cd + 8] |= 1
    save("encrypted.zip", bytes(enc), check=False)
    manifest.append("read_fail encrypted.zip one.txt encrypted")

    meth = bytearray(one)
    meth[8] = 12
    meth[cd + 10] = 12
    save("bzip2_method.zip", bytes(meth), check=False)
    manifest.append("read_fail bzip2_method.zip one.txt method")

    mismatch = bytearray(one)
    mismatch[30] = ord("t")
    save("local_mismatch.zip", bytes(mismatch), check=False)
    manifest.append("open_fail local_mismatch.zip local")

    save("cut.zip", plain[:len(plain) // 2], check=False)
    manifest.append("open_fail cut.zip ZIP")
    cd = plain.index(b"PK\x01\x02")
    save("cut_directory.zip", plain[:cd] + plain[cd + 10:], check=False)
    manifest.append("open_fail cut_directory.zip directory")

    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print(f"{len(manifest)} lines in {OUT}")


if __name__ == "__main__":
    main()
