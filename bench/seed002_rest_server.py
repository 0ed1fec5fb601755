#!/usr/bin/env python3
"""seed002_rest_server.py: the REST peer of `hyrax serve --http` for bench/http_bench.py. Seed 002's
knowledge server (section 5: POST /search with a validated SearchRequest, GET /health) over the seed
002 stack of bench/seed002_stack.py, loaded at start from a store it persisted. Seed 002 writes it
with FastAPI; FastAPI is Starlette routing plus pydantic validation, and those two (the venv has no
fastapi package) serve it here the same way, under uvicorn with one worker, as the seed runs it.
Torch and faiss on one thread, as bench/mcp_seed002_server.py. Measures nothing itself.
    /work/benchvenv/bin/python bench/seed002_rest_server.py STORE_DIR PORT [MODEL_DIR]
"""
import os
import sys
import time
from typing import Dict, Literal, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed002_stack  # noqa: E402
import uvicorn  # noqa: E402
from pydantic import BaseModel, Field, ValidationError  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

if len(sys.argv) > 3:
    seed002_stack.MODEL_DIR = sys.argv[3]
store = seed002_stack.open_store(sys.argv[1], threads=1)


class SearchRequest(BaseModel):
    query: str
    search_type: Literal["vector", "keyword", "hybrid"] = "hybrid"
    top_k: int = Field(5, ge=1, le=50)
    min_score: float = Field(0.0, ge=0.0, le=1.0)
    filters: Optional[Dict[str, str]] = None


async def search(request):
    try:
        req = SearchRequest.model_validate(await request.json())
    except (ValidationError, ValueError) as e:
        return JSONResponse({"detail": str(e)}, status_code=422)
    t0 = time.time()
    results = [r for r in store.search(req.query, req.search_type, req.top_k) if r.score >= req.min_score]
    return JSONResponse({
        "results": [{"chunk_id": r.chunk_id, "kep_id": r.kep_id, "text": r.text, "score": r.score,
                     "metadata": r.metadata, "chunk_index": r.chunk_index} for r in results],
        "query": req.query, "search_type": req.search_type, "total_results": len(results),
        "search_time_ms": (time.time() - t0) * 1000})


async def health(request):
    return JSONResponse({"status": "healthy", "indexed_documents": len({c.kep_id for c in store.chunks}),
                         "indexed_chunks": len(store.chunks), "model_loaded": True})


app = Starlette(routes=[Route("/search", search, methods=["POST"]), Route("/health", health)])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
