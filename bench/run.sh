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
make -s bench/embed_bench

# Benchmarks, one line each; add yours here.
for b in \
    "bench/embed.py" \
; do
    echo "== $b" >&2
    "$PY" $b
done
