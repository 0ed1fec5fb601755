#!/usr/bin/env python3
"""http_bench.py: load on `hyrax serve --http` and on seed 002's REST server
(bench/seed002_rest_server.py) over the same corpus: C clients concurrent keep-alive connections
(default 64) sending POST /search {query, search_type: hybrid, top_k: 5} with the queries of
bench/queries_keps.txt cycled, for D seconds each (default 60), one server after the other.

Per server: start to the first HTTP answer (GET /health, polled every 2 ms from the spawn) and to
the first search answered; then queries/s, p50/p99/mean latency, errors (non-200 or broken
connections), the server's RSS (/proc/PID/status VmRSS) after the first answer, at every tenth of
the load and at the end, and its CPU time (user + system) over the load, per query answered.
The client is asyncio with raw HTTP/1.1 over one connection per client, the same for both servers.

    /work/benchvenv/bin/python bench/http_bench.py --db WORK/keps.hyx --store WORK/seed002
        [--duration 60] [--clients 64] [--only hyrax|seed002] [--model-dir DIR]
Prints one JSON line per server, then a Markdown table with the hyrax/seed002 ratios.
"""
import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def raw_get(port, path):
    """One GET on a fresh connection; the status, or None when nothing answers yet."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            data = s.recv(64)
            return int(data.split()[1]) if data.startswith(b"HTTP/1.1") else None
    except OSError:
        return None


async def request(reader, writer, body):
    writer.write(b"POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    payload = await reader.readexactly(length)
    return status, payload


async def client(port, queries, start, deadline, lat, errors):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i = start
    while time.perf_counter() < deadline:
        body = json.dumps({"query": queries[i % len(queries)], "search_type": "hybrid", "top_k": 5}).encode()
        i += 1
        t0 = time.perf_counter()
        try:
            status, payload = await request(reader, writer, body)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            errors.append("connection")
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            continue
        if status != 200 or b'"results"' not in payload:
            errors.append(status)
            continue
        lat.append(time.perf_counter() - t0)
    writer.close()


async def rss_samples(pid, duration, out):
    """The server's RSS at each tenth of the load (is it flat once warm?)."""
    for _ in range(10):
        await asyncio.sleep(duration / 10)
        out.append(rss_kb(pid))


async def load(pid, port, queries, clients, duration):
    lat, errors, rss = [], [], []
    t0 = time.perf_counter()
    await asyncio.gather(rss_samples(pid, duration, rss),
                         *[client(port, queries, k * 7, t0 + duration, lat, errors) for k in range(clients)])
    return lat, errors, time.perf_counter() - t0, rss


def cpu_s(pid):
    """User + system CPU seconds of process pid so far (/proc/PID/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(name, cmd, port, queries, a):
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        while raw_get(port, "/health") != 200:
            if proc.poll() is not None:
                raise SystemExit(f"{name} exited with {proc.returncode}")
            time.sleep(0.002)
        first_http = time.perf_counter() - t0
        status, _ = asyncio.run(first_search(port, queries[0]))
        first_search_s = time.perf_counter() - t0
        rss0, cpu0 = rss_kb(proc.pid), cpu_s(proc.pid)
        lat, errors, wall, rss = asyncio.run(load(proc.pid, port, queries, a.clients, a.duration))
        rss1, cpu1 = rss_kb(proc.pid), cpu_s(proc.pid)
    finally:
        proc.terminate()
        proc.wait()
    lat.sort()
    n = len(lat)
    return {"server": name, "clients": a.clients, "duration_s": round(wall, 1), "queries": n,
            "qps": round(n / wall, 1), "errors": len(errors),
            "p50_ms": round(lat[n // 2] * 1e3, 2) if n else None,
            "p99_ms": round(lat[min(n - 1, n * 99 // 100)] * 1e3, 2) if n else None,
            "mean_ms": round(statistics.mean(lat) * 1e3, 2) if n else None,
            "start_to_first_http_ms": round(first_http * 1e3, 1), "start_to_first_search_ms": round(first_search_s * 1e3, 1),
            "first_search_status": status, "rss_start_kb": rss0, "rss_end_kb": rss1, "rss_every_tenth_kb": rss,
            "server_cpu_s": round(cpu1 - cpu0, 2), "cpu_ms_per_query": round((cpu1 - cpu0) * 1e3 / n, 2) if n else None}


async def first_search(port, query):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    out = await request(reader, writer, json.dumps({"query": query, "search_type": "hybrid", "top_k": 5}).encode())
    writer.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="hyrax index of the corpus")
    ap.add_argument("--store", help="seed 002 store of the same corpus (bench/seed002_stack.py)")
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--only", choices=["hyrax", "seed002"])
    ap.add_argument("--model-dir", help="seed 002's model folder when not bench/.venv's")
    a = ap.parse_args()
    with open(os.path.join(HERE, "queries_keps.txt")) as f:
        queries = [q.strip() for q in f if q.strip()]
    rows = []
    if a.only != "seed002":
        port = free_port()
        rows.append(run("hyrax", [os.path.join(ROOT, "hyrax"), "serve", "--http", f"127.0.0.1:{port}", "--db", a.db,
                                  "--read-only"], port, queries, a))
        print(json.dumps(rows[-1]), flush=True)
    if a.only != "hyrax" and a.store:
        port = free_port()
        cmd = [sys.executable, os.path.join(HERE, "seed002_rest_server.py"), a.store, str(port)]
        rows.append(run("seed002", cmd + ([a.model_dir] if a.model_dir else []), port, queries, a))
        print(json.dumps(rows[-1]), flush=True)
    if len(rows) == 2:
        h, s = rows
        print("\n| | hyrax | seed 002 (Starlette+pydantic, uvicorn) | ratio |\n|---|---|---|---|")
        for k, better in [("qps", "up"), ("p50_ms", "down"), ("p99_ms", "down"), ("errors", None),
                          ("cpu_ms_per_query", "down"),
                          ("start_to_first_http_ms", "down"), ("rss_start_kb", None), ("rss_end_kb", None)]:
            hv, sv = h[k], s[k]
            ratio = "" if not better or not hv or not sv else f"{hv / sv:.1f}x" if better == "up" else f"{sv / hv:.1f}x"
            print(f"| {k} | {hv} | {sv} | {ratio} |")


if __name__ == "__main__":
    main()
