"""deb.py: the Debian package of one architecture, built with dpkg-deb: /usr/bin/hyrax (the static
binary, the model inside), and from `make install`'s tree (DESTDIR, PREFIX=/usr) everything it
puts under share/ for the command: the bash, zsh and fish completions and the man pages (zsh's
file moves to Debian's vendor-completions folder, man pages are gzipped as Debian policy asks),
the licences in /usr/share/doc/hyrax/copyright. The library, its header and its separate weights
file stay with `make install`: the binary needs neither.
"""
import hashlib
import os
import shutil
import subprocess

import meta

# make install's paths under share/ that Debian keeps elsewhere, and those the package leaves out.
MOVED = {"zsh/site-functions/": "zsh/vendor-completions/"}
LEFT_OUT = ("hyrax/",)


def _share_files(stage):
    """[(path under usr/share, bytes, mode)] of make install's tree at stage (the DESTDIR)."""
    share = os.path.join(stage, "usr", "share")
    out = []
    for folder, _, names in sorted(os.walk(share)):
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(folder, name), share)
            if rel.startswith(LEFT_OUT):
                continue
            data = meta.read(os.path.join(folder, name))
            for old, new in MOVED.items():
                rel = new + rel[len(old):] if rel.startswith(old) else rel
            if rel.startswith("man/"):
                rel, data = rel + ".gz", meta.gzip_bytes(data)
            out.append((rel, data, 0o644))
    return out


def build(version, arch, binary, stage, work_dir, out_dir):
    """Writes hyrax_VERSION_DEBARCH.deb; returns its path."""
    deb_arch = meta.ARCHES[arch]["deb"]
    copyright_text = b"".join(b"== %s ==\n\n" % name.encode() + meta.read(path) + b"\n"
                              for name, path in meta.LICENSE_FILES)
    files = [("usr/bin/hyrax", meta.read(binary), 0o755),
             ("usr/share/doc/hyrax/copyright", copyright_text, 0o644)]
    files += [("usr/share/" + rel, data, mode) for rel, data, mode in _share_files(stage)]
    root = os.path.join(work_dir, f"deb-{deb_arch}")
    shutil.rmtree(root, ignore_errors=True)
    for rel, data, mode in files:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
    size_kb = sum((len(data) + 1023) // 1024 for _, data, _ in files)
    summary = meta.SUMMARY
    control = "\n".join([
        f"Package: {meta.COMMAND}", f"Version: {version}", f"Architecture: {deb_arch}",
        f"Maintainer: {meta.MAINTAINER}", f"Installed-Size: {size_kb}", "Section: utils",
        "Priority: optional", f"Homepage: {meta.REPOSITORY}", f"Description: {summary}",
        " hyrax indexes a folder of documents (Markdown, code, HTML, PDF, Office, EPUB, ...)",
        " into one crash-safe file and searches it by keywords (BM25) and meaning (MiniLM",
        " embeddings), from the command line, as an MCP server for agents or over HTTP.",
        " The model is inside the binary: nothing is downloaded.", ""])
    md5sums = "".join(f"{hashlib.md5(data).hexdigest()}  {rel}\n" for rel, data, _ in files)
    os.makedirs(os.path.join(root, "DEBIAN"))
    for name, text in (("control", control), ("md5sums", md5sums)):
        with open(os.path.join(root, "DEBIAN", name), "w", encoding="utf-8") as f:
            f.write(text)
    path = os.path.join(out_dir, f"{meta.COMMAND}_{version}_{deb_arch}.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", root, path],
                   check=True, stdout=subprocess.DEVNULL)
    return path
