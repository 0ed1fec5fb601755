"""meta.py: what every package of `make dist` says about hyrax (names, licence, addresses, the
architectures and each packaging system's word for them) and the file writers they share
(reproducible zip and tar members, SHA-256). The one place a name or an address is written;
the builders (wheel.py, npm.py, mcpb.py, deb.py, oci.py, brew.py, server_json.py) read it.
"""
import gzip
import hashlib
import io
import os
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))

COMMAND = "hyrax"
MCP_NAME = "io.github.hyrax-search/hyrax"        # the MCP registry's name for the server
PYPI_NAME = "hyrax-search"                       # "hyrax" on PyPI is another project
NPM_NAME = "hyrax"                               # the launcher package
NPM_SCOPE = "@hyrax-search"                      # the per-platform binary packages
REPOSITORY = "https://github.com/hyrax-search/hyrax"
OCI_IMAGE = "ghcr.io/hyrax-search/hyrax"
AUTHOR = "hyrax developers"
MAINTAINER = f"{AUTHOR} <hyrax-search@users.noreply.github.com>"
LICENSE = "Apache-2.0"                           # the code; the weights' licence is also Apache-2.0
SUMMARY = "Local hybrid search (BM25 + embeddings) and MCP server, offline, in one binary"
assert len(SUMMARY) <= 80   # Homebrew's limit for desc; the MCP registry's is 100
DESCRIPTION_FILE = os.path.join(HERE, "PACKAGE.md")


def release_url(version, filename):
    """Where a release asset is published (the Homebrew formula, server.json's mcpb entries)."""
    return f"{REPOSITORY}/releases/download/v{version}/{filename}"


# Each architecture `make dist` builds for, in each packaging system's words.
ARCHES = {
    "x86_64": {"wheel": ["manylinux_2_17_x86_64", "manylinux2014_x86_64"], "npm": "x64",
               "deb": "amd64", "oci": "amd64", "strip": "strip"},
    "aarch64": {"wheel": ["manylinux_2_17_aarch64", "manylinux2014_aarch64"], "npm": "arm64",
                "deb": "arm64", "oci": "arm64", "strip": "aarch64-linux-gnu-strip"},
}


def npm_platform_package(arch):
    return f"{NPM_SCOPE}/linux-{ARCHES[arch]['npm']}"


# The licence files every package carries: (name in the package, file in the repository). The
# binary holds the model weights, which keep their own licence.
LICENSE_FILES = [("LICENSE", os.path.join(ROOT, "LICENSE")),
                 ("weights-LICENSE", os.path.join(ROOT, "weights", "LICENSE"))]


def description(version):
    """The long description (PyPI, npm, the .mcpb), with the registry's mcp-name marker."""
    with open(DESCRIPTION_FILE, encoding="utf-8") as f:
        text = f.read()
    for key, value in (("VERSION", version), ("MCP_NAME", MCP_NAME), ("REPOSITORY", REPOSITORY),
                       ("PYPI_NAME", PYPI_NAME), ("NPM_NAME", NPM_NAME)):
        text = text.replace(f"@{key}@", value)
    return text


def sha256_bytes(data):
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()   # Python 3.11


def read(path):
    with open(path, "rb") as f:
        return f.read()


def mtime():
    """The time stamped on every member: SOURCE_DATE_EPOCH (set by dist.py), for byte-identical
    rebuilds of one commit."""
    return int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))


def zip_write(path, members):
    """A zip of members [(name, bytes, mode)], in that order, deflated, with fixed times."""
    stamp = time.gmtime(max(mtime(), 315532800))[:6]   # zip cannot say before 1980
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name, stamp)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3   # Unix, so the mode is read
            z.writestr(info, data, compresslevel=6)


def tar_bytes(members, gz=True):
    """A tar (gzip-compressed unless gz is False) of members [(name, bytes or None, mode)]; None
    makes a folder. Owner root, fixed times: the same input gives the same bytes."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data, mode in members:
            info = tarfile.TarInfo(name)
            info.mode, info.mtime, info.uid, info.gid, info.uname, info.gname = mode, mtime(), 0, 0, "root", "root"
            if data is None:
                info.type = tarfile.DIRTYPE
                t.addfile(info)
            else:
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
    if not gz:
        return raw.getvalue()
    return gzip_bytes(raw.getvalue())


def gzip_bytes(data):
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=mtime(), filename="") as g:
        g.write(data)
    return out.getvalue()
