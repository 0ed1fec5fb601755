#!/usr/bin/env python3
"""dist.py: builds every package of hyrax into one folder (`make dist` runs it; `hyrax
help build`, "Packages"): the static binary of each architecture, stripped, goes unchanged into PyPI wheels,
npm packages, .mcpb Claude Desktop extensions, Debian packages, release tarballs, and one OCI image
layout; then the Homebrew formula and server.json, which name those files by SHA-256. Every
package carries the model inside the binary: nothing is downloaded at install or run time.

Usage (the Makefile passes these):
  python3 tools/dist/dist.py --version V --out build/dist --stage DESTDIR \\
      --bin x86_64=hyrax-static --bin aarch64=build/arm64/hyrax-static
DESTDIR is a `make install DESTDIR=... PREFIX=/usr` tree: the completions and man pages come from
it. The x86_64 binary must run here (it lists the MCP tools for the .mcpb manifest).
Times in the packages are the last commit's (SOURCE_DATE_EPOCH), so a commit rebuilds the same bytes.
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brew  # noqa: E402
import deb  # noqa: E402
import mcpb  # noqa: E402
import meta  # noqa: E402
import npm  # noqa: E402
import oci  # noqa: E402
import server_json  # noqa: E402
import wheel  # noqa: E402


def _stripped(arch, binary, bin_dir):
    """A stripped copy of binary (the debug information is a tenth of its size) in bin_dir."""
    out = os.path.abspath(os.path.join(bin_dir, f"hyrax-linux-{arch}"))
    shutil.copyfile(binary, out)
    os.chmod(out, 0o755)
    subprocess.run([meta.ARCHES[arch]["strip"], "--strip-debug", out], check=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stage", required=True, help="a make install DESTDIR with PREFIX=/usr")
    ap.add_argument("--bin", action="append", required=True, metavar="ARCH=PATH")
    args = ap.parse_args()
    if "SOURCE_DATE_EPOCH" not in os.environ:
        stamp = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=meta.ROOT, capture_output=True, text=True)
        os.environ["SOURCE_DATE_EPOCH"] = stamp.stdout.strip() or "315532800"
    work = os.path.join(args.out, "work")
    for d in (work, os.path.join(args.out, "bin")):
        os.makedirs(d, exist_ok=True)
    binaries = {}
    for spec in args.bin:
        arch, _, path = spec.partition("=")
        if arch not in meta.ARCHES:
            sys.exit(f"dist.py: unknown architecture {arch!r}; known: {', '.join(meta.ARCHES)}")
        binaries[arch] = _stripped(arch, path, os.path.join(args.out, "bin"))

    v, out = args.version, args.out
    made = [wheel.build(v, arch, b, out) for arch, b in sorted(binaries.items())]
    made += npm.build(v, binaries, os.path.join(work, "npm"), out)
    tools = mcpb.tools(binaries["x86_64"])
    bundles = [mcpb.build(v, arch, b, tools, out) for arch, b in sorted(binaries.items())]
    made += bundles
    made += [deb.build(v, arch, b, args.stage, work, out) for arch, b in sorted(binaries.items())]
    made.append(oci.build(v, binaries, out))
    tarballs = {arch: brew.tarball(v, arch, b, args.stage, out) for arch, b in sorted(binaries.items())}
    made += list(tarballs.values())
    made.append(brew.formula(v, tarballs, out))
    made.append(server_json.build(v, bundles, out))
    shutil.rmtree(work)
    with open(os.path.join(out, "SHA256SUMS"), "w", encoding="utf-8") as f:
        for path in made:
            f.write(f"{meta.sha256_file(path)}  {os.path.relpath(path, out)}\n")
    for path in made:
        print(f"{os.path.getsize(path):>11,}  {path}")


if __name__ == "__main__":
    main()
