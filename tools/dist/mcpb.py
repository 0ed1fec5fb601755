"""mcpb.py: the Claude Desktop extension (MCP Bundle, .mcpb: a zip with manifest.json, manifest
version 0.3, spec: github.com/modelcontextprotocol/mcpb MANIFEST.md) of one architecture: a
"binary" server, server/hyrax, run as `hyrax serve` on the folder the user picks (user_config
"folder", a directory), with the index in that folder's .hyrax/. The tools listed in the manifest
are the ones the binary's own tools/list answers, so they cannot drift from it.
"""
import json
import subprocess
import tempfile

import meta

FOLDER = "${user_config.folder}"


def tools(binary):
    """[{name, description}] of `hyrax serve`'s default tools/list, each description cut to its
    first sentence. binary must run on this machine."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "tools/dist", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    with tempfile.TemporaryDirectory() as empty:
        res = subprocess.run([binary, "serve", "--read-only"], cwd=empty, capture_output=True, text=True,
                             input="".join(json.dumps(m) + "\n" for m in lines), timeout=60, check=True)
    answer = next(json.loads(l) for l in res.stdout.splitlines() if json.loads(l).get("id") == 2)
    return [{"name": t["name"], "description": t["description"].split(". ")[0].rstrip(".") + "."}
            for t in answer["result"]["tools"]]


def manifest(version, tool_list):
    return {
        "manifest_version": "0.3",
        "name": meta.COMMAND,
        "display_name": "hyrax local search",
        "version": version,
        "description": meta.SUMMARY,
        "long_description": meta.description(version),
        "author": {"name": meta.AUTHOR, "url": meta.REPOSITORY},
        "repository": {"type": "git", "url": meta.REPOSITORY},
        "homepage": meta.REPOSITORY,
        "support": f"{meta.REPOSITORY}/issues",
        "license": meta.LICENSE,
        "keywords": ["search", "bm25", "embeddings", "offline"],
        "server": {
            "type": "binary",
            "entry_point": "server/hyrax",
            "mcp_config": {
                "command": "${__dirname}/server/hyrax",
                "args": ["serve", "--root", FOLDER, "--db", f"{FOLDER}/.hyrax/index.hyx"],
                "env": {},
            },
        },
        "user_config": {
            "folder": {
                "type": "directory",
                "title": "Folder to search",
                "description": "The folder hyrax indexes and searches (its index is kept in the "
                               "folder's .hyrax/; ask Claude to reindex after changes)",
                "required": True,
            },
        },
        "tools": tool_list,
        "compatibility": {"platforms": ["linux"]},
    }


def build(version, arch, binary, tool_list, out_dir):
    """Writes hyrax-VERSION-linux-CPU.mcpb carrying binary; returns its path."""
    body = json.dumps(manifest(version, tool_list), indent=2) + "\n"
    members = [("manifest.json", body.encode(), 0o644), ("server/hyrax", meta.read(binary), 0o755)]
    members += [(name, meta.read(path), 0o644) for name, path in meta.LICENSE_FILES]
    path = f"{out_dir}/{meta.COMMAND}-{version}-linux-{meta.ARCHES[arch]['npm']}.mcpb"
    meta.zip_write(path, members)
    return path
