"""server_json.py: server.json for the official MCP registry (schema 2025-12-11, registry docs
"package types"): the server's name, description, version and repository, and its packages: PyPI
(run with uvx), npm (npx), the OCI image (docker, the folder mounted at /data) and each .mcpb
with its SHA-256 and release address. The registry checks each package's ownership marker:
mcp-name in the wheel's description, mcpName in the npm package, the image's
io.modelcontextprotocol.server.name label; all come from meta.MCP_NAME.
"""
import json
import os

import meta

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"


def _folder_input(description):
    return {"description": description, "format": "filepath", "isRequired": True}


def _serve_args():
    """`serve --root FOLDER --db FOLDER/.hyrax/index.hyx`, FOLDER asked of the user once."""
    folder = {"folder": _folder_input("The folder to index and search")}
    return [{"type": "positional", "value": "serve"},
            {"type": "named", "name": "--root", "value": "{folder}", "variables": folder},
            {"type": "named", "name": "--db", "value": "{folder}/.hyrax/index.hyx", "variables": folder}]


def build(version, mcpb_paths, out_dir):
    """mcpb_paths: the .mcpb files. Writes out_dir/server.json; returns its path."""
    stdio = {"type": "stdio"}
    packages = [
        {"registryType": "pypi", "identifier": meta.PYPI_NAME, "version": version, "runtimeHint": "uvx",
         "transport": stdio, "packageArguments": _serve_args()},
        {"registryType": "npm", "identifier": meta.NPM_NAME, "version": version, "runtimeHint": "npx",
         "transport": stdio, "packageArguments": _serve_args()},
        {"registryType": "oci", "identifier": f"{meta.OCI_IMAGE}:{version}", "runtimeHint": "docker",
         "transport": stdio,
         "runtimeArguments": [{"type": "named", "name": "-v", "value": "{folder}:/data",
                               "variables": {"folder": _folder_input("The folder to index and search, "
                                                                     "mounted at /data")}}]},
    ]
    packages += [{"registryType": "mcpb", "identifier": meta.release_url(version, os.path.basename(p)),
                  "fileSha256": meta.sha256_file(p), "transport": stdio}
                 for p in sorted(mcpb_paths)]
    server = {"$schema": SCHEMA, "name": meta.MCP_NAME, "title": meta.COMMAND,
              "description": meta.SUMMARY, "version": version,
              "repository": {"url": meta.REPOSITORY, "source": "github"},
              "websiteUrl": meta.REPOSITORY, "packages": packages}
    path = os.path.join(out_dir, "server.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(server, f, indent=2)
        f.write("\n")
    return path
