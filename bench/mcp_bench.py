#!/usr/bin/env python3
"""mcp_bench.py: MCP `search` round trips through the official Python SDK's stdio client
(mcp.client.stdio.stdio_client + ClientSession) against `hyrax serve --db WORK/hyrax/index.hyx`
and against bench/mcp_seed002_server.py serving WORK/seed002 (same corpus; both left by
bench/ingest_bench.py). Servers run one after the other.

Per server: time from process start to the first search answered (spawn + initialize + first
tools/call), then tools/call search with the queries of bench/queries_keps.txt cycled, top_k 5,
default (hybrid) mode, one call at a time: p50/p99/mean round trip, and the server process's RSS
(/proc/PID/status VmRSS) after the first answer, after 1,000 calls and at the end (growth %).
Start to first answer is also taken without the SDK (JSON-RPC lines over plain pipes: initialize,
initialized, tools/call; median of --raw-starts runs), which leaves out the client's own cost.
--peer-calls lowers the seed 002 server's count when it is too slow on a loaded machine; the
output says the count each server ran.

    nice -n 10 bench/.venv/bin/python bench/mcp_bench.py --work /tmp/hyrax-bench-30
        [--calls 10000] [--peer-calls 10000] [--only hyrax|seed002]
Prints one JSON line per server, then a Markdown table with hyrax/seed002 ratios.
"""
import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child_pid():
    """The one child process of this process (the server stdio_client spawned)."""
    me = os.getpid()
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                stat = open("/proc/%s/stat" % p).read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                return int(p)
    raise RuntimeError("server process not found")


def rss_mb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(q * len(v) + 0.999999) - 1))]


def raw_first_answer_ms(params, query):
    """Spawn to first search answer with hand-written JSON-RPC lines over pipes, no SDK."""
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "mcp_bench", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search",
                                                                             "arguments": {"query": query, "top_k": 5}}}]
    t0 = time.perf_counter()
    p = subprocess.Popen([params.command] + params.args, env=params.env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    p.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
    p.stdin.flush()
    for line in p.stdout:
        if json.loads(line).get("id") == 2:
            break
    ms = (time.perf_counter() - t0) * 1e3
    p.stdin.close()
    p.wait()
    return ms


async def bench(name, params, queries, calls):
    t0 = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            r = await session.call_tool("search", {"query": queries[0], "top_k": 5})
            first = (time.perf_counter() - t0) * 1e3
            if r.is_error:
                sys.exit("mcp_bench: %s: search failed: %s" % (name, r.content[0].text[:300]))
            pid = child_pid()
            rss = {"start": rss_mb(pid)}
            lat, errors = [], 0
            for i in range(calls):
                t = time.perf_counter()
                r = await session.call_tool("search", {"query": queries[i % len(queries)], "top_k": 5})
                lat.append((time.perf_counter() - t) * 1e3)
                errors += bool(r.is_error)
                if i + 1 == 1000:
                    rss["after_1000"] = rss_mb(pid)
            rss["end"] = rss_mb(pid)
    return {"bench": "mcp", "engine": name, "calls": calls, "errors": errors, "start_to_first_answer_ms": first,
            "p50_ms": pct(lat, .5), "p99_ms": pct(lat, .99), "mean_ms": statistics.mean(lat),
            "rss_start_mb": rss["start"], "rss_after_1000_mb": rss.get("after_1000"), "rss_end_mb": rss["end"],
            "rss_growth_pct": 100 * (rss["end"] - rss["start"]) / rss["start"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True)
    ap.add_argument("--calls", type=int, default=10000)
    ap.add_argument("--peer-calls", type=int, default=10000)
    ap.add_argument("--only", choices=["hyrax", "seed002"])
    ap.add_argument("--raw-starts", type=int, default=3)
    ap.add_argument("--hyrax", default=os.path.join(ROOT, "hyrax"))
    a = ap.parse_args()
    queries = [q for q in open(os.path.join(HERE, "queries_keps.txt")).read().splitlines() if q]
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    servers = {
        "hyrax": (StdioServerParameters(command=os.path.abspath(a.hyrax), env=env,
                                        args=["serve", "--db", os.path.join(os.path.abspath(a.work), "hyrax", "index.hyx")]),
                  a.calls),
        "seed002": (StdioServerParameters(command=sys.executable, env=env,
                                          args=[os.path.join(HERE, "mcp_seed002_server.py"), os.path.join(a.work, "seed002")]),
                    a.peer_calls),
    }
    rows = {}
    for name, (params, calls) in servers.items():
        if a.only in (None, name):
            rows[name] = asyncio.run(bench(name, params, queries, calls))
            rows[name]["raw_start_to_first_answer_ms"] = statistics.median(
                raw_first_answer_ms(params, queries[0]) for _ in range(a.raw_starts))
            print(json.dumps(rows[name]), flush=True)

    keys = [("start_to_first_answer_ms", "start to first answer ms (SDK client)", "<= 100 ms"),
            ("raw_start_to_first_answer_ms", "start to first answer ms (raw pipes, median)", ""), ("p50_ms", "round trip p50 ms", "<= 10 ms"),
            ("p99_ms", "round trip p99 ms", "<= 30 ms"), ("mean_ms", "round trip mean ms", ""),
            ("rss_start_mb", "server RSS at start MiB", ""), ("rss_after_1000_mb", "server RSS after 1,000 calls MiB", ""),
            ("rss_end_mb", "server RSS at end MiB", ""), ("rss_growth_pct", "RSS growth start to end %", "< 5 %"),
            ("calls", "calls", "")]
    print("\nMCP tools/call search, top_k 5, hybrid, official Python SDK stdio client, queries cycled\n")
    print("| measure | %s | hyrax/seed002 | target (hyrax) |" % " | ".join(rows))
    print("|---|%s---:|---|" % ("---:|" * len(rows)))
    for key, label, target in keys:
        vals = [rows[n][key] for n in rows]
        ratio = "%.4f" % (vals[0] / vals[1]) if len(vals) == 2 and vals[1] else ""
        print("| %s | %s | %s | %s |" % (label, " | ".join("%.2f" % v if v is not None else "-" for v in vals), ratio, target))


if __name__ == "__main__":
    main()
