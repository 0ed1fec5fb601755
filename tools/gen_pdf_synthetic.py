#!/usr/bin/env python3
"""Writes two small PDFs that exercise what the Debian documentation PDFs do not: synthetic.pdf
(an xref stream with a PNG predictor, an object stream, an incremental update along /Prev, content
streams as an array with LZW+ASCII85, RunLength and ASCIIHex filters, a Form XObject, a Type0
Identity-H font with a ToUnicode CMap (bfchar, bfrange with a string and with an array), a
WinAnsi font with /Differences, TJ kerning, the ' operator, a UTF-16 title) and broken.pdf (the
same objects with a classic table whose offsets are wrong, and a wrong /Length, so a reader must rebuild the cross-reference).
Also hostile/bomb.pdf, a decompression bomb. The expected text is not made here: tools/gen_pdf_fixtures.sh runs pdftotext on both.
Usage: tools/gen_pdf_synthetic.py OUTDIR"""
import base64
import os
import sys
import zlib


def lzw(data):
    table = {bytes([i]): i for i in range(256)}
    nxt, width, out, bits, nbits = 258, 9, bytearray(), 0, 0

    def emit(code):
        nonlocal bits, nbits
        bits = bits << width | code
        nbits += width
        while nbits >= 8:
            out.append(bits >> (nbits - 8) & 255)
            nbits -= 8

    emit(256)
    w = b""
    for c in data:
        wc = w + bytes([c])
        if wc in table:
            w = wc
            continue
        emit(table[w])
        table[wc] = nxt
        nxt += 1
        if nxt + 1 > (1 << width) and width < 12:   # early change
            width += 1
        w = bytes([c])
    if w:
        emit(table[w])
    emit(257)
    if nbits:
        out.append(bits << (8 - nbits) & 255)
    return bytes(out)


def runlength(data):
    out = bytearray()
    for i in range(0, len(data), 100):
        chunk = data[i:i + 100]
        out.append(len(chunk) - 1)
        out += chunk
    return bytes(out + b"\x80")


def stream(d, data):
    return b"<<" + d + b" /Length %d>>\nstream\n" % len(data) + data + b"\nendstream"


page1 = (b"BT /F1 12 Tf 72 720 Td [(Hel) 20 (lo) -600 (world,) -250 (caf\\351 \\200 costs) 300 (10)] TJ "
         b"0 -16 Td 14 TL (Second line with a ligature: \\201ne.) Tj "
         b"(Third line by the quote operator.) ' ET "
         b"q 1 0 0 1 72 600 cm /Fm1 Do Q")
form = b"BT /F1 10 Tf 0 0 Td (Text inside a form XObject.) Tj ET"
page2a = b"BT /F2 11 Tf 72 720 Td <0001000200030004> Tj 0 -14 Td <000500060007> Tj ET\n"
page2b = b"BT /F1 12 Tf 72 680 Td (Run length and hex filters work.) Tj ET"
cmap = b"""/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0001> <0055> <0002> <006E> endbfchar
2 beginbfrange <0003> <0004> <0069> <0005> <0007> [<0063> <006F> <FB01>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end"""

title = "Synthetic \u00dcn\u00efcode".encode("utf-16-be")
objs = {
    1: b"<< /Type /Catalog /Pages 2 0 R >>",
    2: b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
    3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 7 0 R "
       b"/Resources << /Font << /F1 5 0 R >> /XObject << /Fm1 11 0 R >> >> >>",
    4: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [8 0 R 9 0 R] >>",
    5: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
       b"/Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [128 /Euro /fi] >> >>",
    6: b"<< /Type /Font /Subtype /Type0 /BaseFont /Sans /Encoding /Identity-H /ToUnicode 10 0 R "
       b"/DescendantFonts [12 0 R] >>",
    12: b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Sans /CIDSystemInfo << /Registry (Adobe) "
        b"/Ordering (Identity) /Supplement 0 >> /DW 600 /W [1 [700 550] 3 7 500] >>",
    13: b"<< /Title <FEFF" + title.hex().upper().encode() + b"> /Author (A. Writer) /CreationDate (D:20240131120000Z) >>",
}
in_stm = [1, 2, 3, 4, 5, 6, 12, 13]
streams = {
    7: stream(b"/Filter /FlateDecode", zlib.compress(page1)),
    8: stream(b"/Filter [/ASCII85Decode /LZWDecode]", base64.a85encode(lzw(page2a)) + b"~>"),
    9: stream(b"/Filter [/ASCIIHexDecode /RunLengthDecode]", runlength(page2b).hex().encode() + b">"),
    10: stream(b"", cmap),
    11: stream(b"/Type /XObject /Subtype /Form /BBox [0 0 300 50] /Resources << /Font << /F1 5 0 R >> >>", form),
}

out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
offsets = {}
for n in sorted(streams):
    offsets[n] = len(out)
    out += b"%d 0 obj\n" % n + streams[n] + b"\nendobj\n"
head = b" ".join(b"%d %d" % (n, 0) for n in in_stm)   # offsets filled below
body, rel = b"", []
for n in in_stm:
    rel.append(len(body))
    body += objs[n] + b"\n"
head = b" ".join(b"%d %d" % (n, r) for n, r in zip(in_stm, rel)) + b"\n"
stm_num = 14
offsets[stm_num] = len(out)
out += b"%d 0 obj\n" % stm_num + stream(b"/Type /ObjStm /N %d /First %d /Filter /FlateDecode" % (len(in_stm), len(head)),
                                        zlib.compress(head + body)) + b"\nendobj\n"


def xref_stream(num, entries, size, extra, prev_rows=None):
    rows = bytearray()
    prev = bytes(4)
    raw = []
    for e in entries:
        raw.append(bytes(e))
    for r in raw:   # PNG Up predictor, 4 columns
        rows += b"\x02" + bytes((a - b) & 255 for a, b in zip(r, prev))
        prev = r
    data = zlib.compress(bytes(rows))
    return stream(b"/Type /XRef /Size %d /W [1 2 1] %s /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >>"
                  % (size, extra), data)


def ent(type_, a, b):
    return [type_, a >> 8 & 255, a & 255, b]


entries = [ent(0, 0, 255)]
for n in range(1, 16):
    if n in in_stm:
        entries.append(ent(2, stm_num, in_stm.index(n)))
    elif n in offsets:
        entries.append(ent(1, offsets[n], 0))
    else:
        entries.append(ent(0, 0, 0))
xref1 = len(out)
entries[15] = ent(1, xref1, 0)
out += b"15 0 obj\n" + xref_stream(15, entries, 16, b"/Root 1 0 R /Info 13 0 R") + b"\nendobj\n"
out += b"startxref\n%d\n%%%%EOF\n" % xref1
# the incremental update: page 2's second stream is replaced
new9 = b"BT /F1 12 Tf 72 680 Td (Run length and hex filters work; this line came with the update.) Tj ET"
off9 = len(out)
out += b"9 0 obj\n" + stream(b"/Filter [/ASCIIHexDecode /RunLengthDecode]", runlength(new9).hex().encode() + b">") + b"\nendobj\n"
xref2 = len(out)
upd = [ent(1, off9, 0), ent(1, xref2, 0)]
out += (b"16 0 obj\n" + xref_stream(16, upd, 17, b"/Index [9 1 16 1] /Root 1 0 R /Info 13 0 R /Prev %d" % xref1)
        + b"\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref2)
d = sys.argv[1]
with open(os.path.join(d, "synthetic.pdf"), "wb") as f:
    f.write(out)
# broken.pdf: every object plain, a classic table whose offsets are all wrong, and a wrong /Length
plain = bytearray(b"%PDF-1.4\n")
for n in sorted(list(objs) + list(streams)):
    body = streams[n] if n in streams else objs[n]
    if n == 7:
        body = body.replace(b"/Length %d" % len(zlib.compress(page1)), b"/Length %d" % (len(zlib.compress(page1)) + 40))
    plain += b"%d 0 obj\n" % n + body + b"\nendobj\n"
xref = len(plain)
plain += b"xref\n0 14\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % (7 + 3 * n) for n in range(1, 14))
plain += b"trailer\n<< /Size 14 /Root 1 0 R /Info 13 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
with open(os.path.join(d, "broken.pdf"), "wb") as f:
    f.write(plain)
# hostile/bomb.pdf: a page whose content is Flate over Flate over 64 MiB of spaces (a few KiB in all)
inner = zlib.compress(b" " * (64 << 20), 9)
bomb_stream = stream(b"/Filter [/FlateDecode /FlateDecode]", zlib.compress(inner, 9))
bomb = bytearray(b"%PDF-1.4\n")
bodies = {1: objs[1], 2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
          3: b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", 4: bomb_stream}
offs = []
for n in sorted(bodies):
    offs.append(len(bomb))
    bomb += b"%d 0 obj\n" % n + bodies[n] + b"\nendobj\n"
xref = len(bomb)
bomb += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offs)
bomb += b"trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
os.makedirs(os.path.join(d, "hostile"), exist_ok=True)
with open(os.path.join(d, "hostile", "bomb.pdf"), "wb") as f:
    f.write(bomb)
