"""wheel.py: the PyPI wheel of one architecture, laid out as ruff's wheels are: the static binary
as the wheel's script NAME.data/scripts/hyrax (pip and uv install it as the `hyrax` command), the
small hyrax_search package that finds and execs it (`python -m hyrax_search`, and the
`hyrax-search` command that `uvx hyrax-search` runs), METADATA with the MCP registry's mcp-name
marker in its description, the licences, and RECORD with every file's SHA-256. The format is the
wheel specification (PEP 427, binary distribution format) with core metadata 2.4.
"""
import base64
import hashlib
import os

import meta

PACKAGE_DIR = os.path.join(meta.HERE, "python", "hyrax_search")


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def _metadata(version):
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {meta.PYPI_NAME}",
        f"Version: {version}",
        f"Summary: {meta.SUMMARY}",
        f"License-Expression: {meta.LICENSE}",
    ]
    lines += [f"License-File: {name}" for name, _ in meta.LICENSE_FILES]
    lines += [
        "Requires-Python: >=3.8",
        "Classifier: Environment :: Console",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Topic :: Text Processing :: Indexing",
        "Keywords: search,bm25,embeddings,mcp,rag",
        f"Project-URL: Source, {meta.REPOSITORY}",
        "Description-Content-Type: text/markdown",
        "",
        meta.description(version),
    ]
    return "\n".join(lines).encode()


def build(version, arch, binary, out_dir):
    """Writes the wheel for arch (a key of meta.ARCHES) carrying binary; returns its path."""
    dist = meta.PYPI_NAME.replace("-", "_")
    tags = [f"py3-none-{plat}" for plat in meta.ARCHES[arch]["wheel"]]
    info = f"{dist}-{version}.dist-info"
    files = [(f"hyrax_search/{name}", meta.read(os.path.join(PACKAGE_DIR, name)), 0o644)
             for name in sorted(os.listdir(PACKAGE_DIR)) if name.endswith(".py")]
    files.append((f"{dist}-{version}.data/scripts/{meta.COMMAND}", meta.read(binary), 0o755))
    files.append((f"{info}/METADATA", _metadata(version), 0o644))
    wheel = ["Wheel-Version: 1.0", "Generator: hyrax tools/dist", "Root-Is-Purelib: false"]
    wheel += [f"Tag: {tag}" for tag in tags]
    files.append((f"{info}/WHEEL", ("\n".join(wheel) + "\n").encode(), 0o644))
    files.append((f"{info}/entry_points.txt",
                  f"[console_scripts]\n{meta.PYPI_NAME} = hyrax_search:main\n".encode(), 0o644))
    files += [(f"{info}/licenses/{name}", meta.read(path), 0o644) for name, path in meta.LICENSE_FILES]
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data, _ in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))
    # One compressed tag set per file name, as ruff's and the wheel spec's examples write it.
    platforms = ".".join(meta.ARCHES[arch]["wheel"])
    path = os.path.join(out_dir, f"{dist}-{version}-py3-none-{platforms}.whl")
    meta.zip_write(path, files)
    return path
