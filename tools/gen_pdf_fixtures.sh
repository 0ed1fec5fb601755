#!/bin/sh
# gen_pdf_fixtures.sh: makes tests/data/pdf/: a few pages of real PDFs from Debian documentation
# packages (bzip2's manual, pdfTeX; valgrind's manual, Apache FOP) cut out with MuPDF's
# `mutool merge`, a KEP made into a PDF by pandoc and LibreOffice, the synthetic files of
# tools/gen_pdf_synthetic.py and RC4/AES-encrypted copies of one made by `mutool clean -E`; next to each NAME.pdf, NAME.txt: the reference text, poppler's
# `pdftotext` (default reading-order mode) with the ligatures U+FB00-FB06 spelled out, as hyrax
# writes them; for the fixtures with a document outline, NAME.outline: MuPDF's `mutool show NAME.pdf
# outline` (the heading paths test_pdf.c expects). Needs: bzip2 and valgrind (their /usr/share/doc PDFs), mupdf-tools,
# poppler-utils, pandoc, libreoffice-writer, python3.
set -eu
out=tests/data/pdf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
zcat /usr/share/doc/bzip2/manual.pdf.gz > "$tmp/bzip2.pdf"
zcat /usr/share/doc/valgrind/valgrind_manual.pdf.gz > "$tmp/valgrind.pdf"
mutool merge -o "$out/bzip2-manual.pdf" "$tmp/bzip2.pdf" 5-6
mutool merge -o "$out/valgrind-manual.pdf" "$tmp/valgrind.pdf" 30-31
kep=${KEP:-/work/shared/corpora/keps/sig-architecture/1333-conformance-without-beta/README.md}
head -c 5000 "$kep" > "$tmp/kep.md"
pandoc "$tmp/kep.md" -o "$tmp/kep-libreoffice.odt"
soffice --headless --convert-to pdf --outdir "$out" "$tmp/kep-libreoffice.odt" > /dev/null
python3 tools/gen_pdf_synthetic.py "$out"
# encrypted with the standard security handler by MuPDF: RC4, AES-128 and AES-256 with the empty
# user password (read), and a user password (refused, in hostile/)
mutool clean -E rc4-40 -O owner "$out/synthetic.pdf" "$out/encrypted-rc4-40.pdf"
mutool clean -E rc4-128 -O owner "$out/synthetic.pdf" "$out/encrypted-rc4-128.pdf"
mutool clean -E aes-128 -O owner "$out/synthetic.pdf" "$out/encrypted-aes-128.pdf"
mutool clean -E aes-256 -O owner "$out/synthetic.pdf" "$out/encrypted-aes-256.pdf"
mutool clean -E aes-256 -U secret -O owner "$out/synthetic.pdf" "$out/hostile/encrypted-password.pdf"
for f in "$out"/*.pdf; do
    pdftotext -enc UTF-8 "$f" - | python3 -c 'import sys
lig = {0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB05: "st", 0xFB06: "st"}
sys.stdout.write(sys.stdin.read().translate(lig))' > "${f%.pdf}.txt"
done
for f in kep-libreoffice valgrind-manual; do
    mutool show "$out/$f.pdf" outline > "$out/$f.outline"
done
ls -l "$out"
