"""npm.py: the npm packages, the way esbuild ships: one package per platform (@hyrax-search/
linux-x64, linux-arm64) holding the static binary, with "os" and "cpu" so npm installs only the
one that fits, and the main package `hyrax` naming them all as optionalDependencies, with the
launcher bin/hyrax.js (npm/hyrax.js) as its `hyrax` command. No install scripts, no download.
`mcpName` in the main package is what the MCP registry checks. The tarballs are made by `npm pack`.
"""
import json
import os
import shutil
import subprocess

import meta


def _common(version):
    return {"version": version, "license": meta.LICENSE, "homepage": meta.REPOSITORY,
            "repository": {"type": "git", "url": f"git+{meta.REPOSITORY}.git"}}


def _write_tree(folder, package, files):
    """folder/package.json, the licences, README.md and files [(relative path, bytes, mode)]."""
    shutil.rmtree(folder, ignore_errors=True)
    for rel, data, mode in files + [(name, meta.read(path), 0o644) for name, path in meta.LICENSE_FILES]:
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
    with open(os.path.join(folder, "package.json"), "w", encoding="utf-8") as f:
        json.dump(package, f, indent=2)
        f.write("\n")


def _pack(folder, out_dir):
    """npm pack of folder into out_dir; the tarball's path."""
    res = subprocess.run(["npm", "pack", "--json", "--pack-destination", os.path.abspath(out_dir)],
                         cwd=folder, check=True, capture_output=True, text=True)
    return os.path.join(out_dir, json.loads(res.stdout)[0]["filename"])


def build(version, binaries, work_dir, out_dir):
    """binaries: {arch: path}. Packs the platform packages and the main one; their tarballs."""
    tarballs, platforms = [], {}
    for arch, binary in sorted(binaries.items()):
        name, cpu = meta.npm_platform_package(arch), meta.ARCHES[arch]["npm"]
        platforms[f"linux {cpu}"] = name
        package = {"name": name, **_common(version),
                   "description": f"The hyrax binary for Linux on {cpu} (installed by the hyrax package)",
                   "os": ["linux"], "cpu": [cpu], "preferUnplugged": True}
        readme = f"# {name}\n\nThe `hyrax` binary for Linux on {cpu}; install `{meta.NPM_NAME}`.\n"
        folder = os.path.join(work_dir, f"linux-{cpu}")
        _write_tree(folder, package, [("README.md", readme.encode(), 0o644),
                                      ("bin/hyrax", meta.read(binary), 0o755)])
        tarballs.append(_pack(folder, out_dir))
    with open(os.path.join(meta.HERE, "npm", "hyrax.js"), encoding="utf-8") as f:
        launcher = f.read().replace("{} /* @PLATFORMS@ */", json.dumps(platforms, sort_keys=True))
    package = {"name": meta.NPM_NAME, **_common(version), "description": meta.SUMMARY,
               "keywords": ["search", "bm25", "embeddings", "mcp", "rag"], "mcpName": meta.MCP_NAME,
               "bin": {meta.COMMAND: "bin/hyrax.js"}, "engines": {"node": ">=16"},
               "optionalDependencies": {name: version for name in sorted(platforms.values())}}
    folder = os.path.join(work_dir, "hyrax")
    _write_tree(folder, package, [("README.md", meta.description(version).encode(), 0o644),
                                  ("bin/hyrax.js", launcher.encode(), 0o755)])
    tarballs.append(_pack(folder, out_dir))
    return tarballs
