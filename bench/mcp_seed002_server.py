#!/usr/bin/env python3
"""mcp_seed002_server.py: the MCP peer of `hyrax serve` for bench/mcp_bench.py. An MCP server on
stdio, built with the official Python SDK's MCPServer (FastMCP in mcp 1.x), exposing one `search`
tool (query, top_k = 5, mode = hybrid|vector|keyword) over the seed 002 stack of
bench/seed002_stack.py, loaded at start from a store persisted by it (bench/ingest_bench.py leaves
one in WORK/seed002). Torch and faiss on one thread. Measures nothing itself.

    bench/.venv/bin/python bench/mcp_seed002_server.py STORE_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed002_stack  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402

store = seed002_stack.open_store(sys.argv[1], threads=1)
server = MCPServer("seed002-keps")


@server.tool()
def search(query: str, top_k: int = 5, mode: str = "hybrid") -> dict:
    """Search the KEP chunks: hybrid (FAISS + BM25 fused by RRF), vector or keyword."""
    if mode not in ("hybrid", "vector", "keyword") or top_k < 1:
        raise ValueError("bad mode or top_k")
    results = store.search(query, mode, top_k)
    return {"query": query, "mode": mode, "total_results": len(results),
            "results": [{"rank": i + 1, "score": r.score, "chunk_id": r.chunk_id, "path": r.metadata["file_path"],
                         "title": r.metadata["title"], "text": r.text} for i, r in enumerate(results)]}


if __name__ == "__main__":
    server.run("stdio")
