#!/bin/sh
# run.sh: what `make bench` runs. Checks bench/.venv, builds what the benchmarks need, then runs
# each benchmark in turn (the list below). Each prints JSON lines and a Markdown report.
# Setup and the meaning of each figure: bench/README.md.
set -eu
cd "$(dirname "$0")/.."

PY=bench/.venv/bin/python
if [ ! -x "$PY" ]; then
    echo "bench: no virtual environment at bench/.venv. Create it with:" >&2
    echo "  python3 -m venv bench/.venv && bench/.venv/bin/pip install -r bench/requirements.txt" >&2
    exit 1
fi

# C programs the benchmarks link against build/libhyrax.a.
make -s bench/embed_bench bench/chunks_bench bench/hnsw_bench bench/bm25_bench bench/query_bench bench/sig_bench \
    bench/html_extract

# Benchmarks, one line each (arguments after the script); add yours here.
for b in \
    "bench/embed.py" \
    "bench/cranfield.py" \
    "bench/bm25_peers.py --hyrax" \
    "bench/hnsw_peers.py gen" \
    "bench/hnsw_peers.py run --threads 2" \
    "bench/ingest_bench.py --limit 30 --work bench/out/index-30" \
    "bench/query_bench.py --work bench/out/index-30" \
    "bench/mcp_bench.py --work bench/out/index-30" \
    "bench/sig_peers.py" \
    "bench/conformance_peers.py" \
    "bench/html_bench.py" \
; do
    echo "== $b" >&2
    "$PY" $b
done
