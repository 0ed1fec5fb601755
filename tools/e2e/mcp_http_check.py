#!/usr/bin/env python3
"""End-to-end check of `hyrax serve --http` with the official MCP Python SDK's Streamable HTTP
client (mcp.Client on a URL, which is mcp.client.streamable_http.streamable_http_client).

Builds a small corpus, indexes it, starts `./hyrax serve --http 127.0.0.1:0` and connects three
times: mode "legacy" (the initialize handshake, 2025-11-25, as Claude Desktop speaks), mode "auto"
(server/discover, then 2026-07-28 per-request envelopes) and mode "2026-07-28" pinned. Each time it
lists the tools (every stdio tool must be there), calls search and checks the citation, lists the
documents as resources and reads one (its text must be the file's), and runs a reindex with a
progress callback, and cancels an add_document it gives up on. Then seed 002's REST routes are
called with plain urllib.

    python3 tools/e2e/mcp_http_check.py [--hyrax ./hyrax]

Run by .ci/run beside mcp_sdk_check.py; not part of make test. Ends with "N passed, N failed".
"""
import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

import anyio
from mcp import Client

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mcp_sdk_check import TOOLS  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


DOCS = {
    "docs/scheduler.md": "# Scheduler\n\nThe kube-scheduler assigns pods to nodes by resource requests.\n",
    "docs/storage notes.md": "---\nowning-sig: sig-storage\n---\n# Volumes\n\nPersistent volumes keep data across restarts.\n",
}

# about 120 chunks: seconds to embed
BIG = "# Quokkabig\n\n" + "".join(f"Paragraph {i} of the quokkabig notes: the island's marsupials forage at dusk, rest "
                                   f"in the shade by day, and number {i * 37 % 1000} in the survey of year {1900 + i % 120}."
                                   "\n\n" for i in range(1600))   # seconds of embedding on any CPU: the cancel lands first


async def session(url, mode, root):
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    async with Client(url, mode=mode) as c:
        want = "2025-11-25" if mode == "legacy" else "2026-07-28"
        check(c.protocol_version == want, f"{mode}: protocol {c.protocol_version}, want {want}")
        names = [t.name for t in (await c.list_tools()).tools]
        check(set(TOOLS) <= set(names), f"{mode}: tools/list lacks {set(TOOLS) - set(names)}")
        r = await c.call_tool("search", {"query": "which component assigns pods to nodes", "top_k": 1})
        sc = r.structured_content or {}
        check(not r.is_error and sc.get("results") and sc["results"][0]["citation"]["path"] == "docs/scheduler.md",
              f"{mode}: search finds the scheduler note: {json.dumps(sc)[:300]}")
        res = (await c.list_resources()).resources
        uris = sorted(str(x.uri) for x in res)
        check(uris == ["hyrax://doc/docs/scheduler.md", "hyrax://doc/docs/storage%20notes.md"], f"{mode}: resources {uris}")
        got = await c.read_resource("hyrax://doc/docs/storage%20notes.md")
        check(got.contents and got.contents[0].text == DOCS["docs/storage notes.md"], f"{mode}: resource text")
        tmpl = (await c.list_resource_templates()).resource_templates
        check(tmpl and tmpl[0].uri_template == "hyrax://doc/{path}", f"{mode}: resource template")
        r = await c.call_tool("reindex", {"force": True}, progress_callback=on_progress)
        check(not r.is_error and (r.structured_content or {}).get("updated", 0) >= 1, f"{mode}: reindex {r}")
        check(progress and progress[-1][0] == progress[-1][1], f"{mode}: progress reported: {progress}")
        # A call the client gives up on is cancelled: the SDK sends notifications/cancelled with the
        # session's Mcp-Session-Id (legacy) or closes the request's stream (2026-07-28). The next write
        # waits behind it, so a cancellation that did nothing would have committed the document by then.
        with anyio.move_on_after(1.0):
            await c.call_tool("add_document", {"name": f"big-{mode}.md", "content": BIG})
        r = await c.call_tool("reindex", {})
        check(not r.is_error, f"{mode}: a write after the cancelled one: {r}")
        r = await c.call_tool("search", {"query": "quokkabig", "mode": "keyword"})
        paths = [x["path"] for x in (r.structured_content or {}).get("results", [])]
        check(not r.is_error and f"big-{mode}.md" not in paths, f"{mode}: nothing of the cancelled add_document: {paths}")


def rest(base):
    def call(method, path, body=None):
        req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    st, h = call("GET", "/health")
    check(st == 200 and h["status"] == "healthy" and h["indexed_documents"] == 2, f"/health {h}")
    st, s = call("POST", "/search", {"query": "persistent volumes", "search_type": "hybrid", "top_k": 2,
                                     "filters": {"sig_name": "sig-storage"}})
    check(st == 200 and s["total_results"] >= 1 and s["results"][0]["path"] == "docs/storage notes.md" and
          isinstance(s["results"][0]["chunk_id"], int) and s["results"][0]["snippet"], f"/search {s}")
    st, g = call("GET", "/search?q=persistent+volumes&k=2&mode=hybrid")
    check(st == 200 and g["results"][0]["path"] == "docs/storage notes.md" and g["mode"] == "hybrid",
          f"GET /search?q= {g}")
    st, e = call("POST", "/search", {"search_type": "hybrid"})
    check(st == 400 and "query" in e["detail"], f"/search without query: {st} {e}")
    st, s = call("GET", "/stats")
    check(st == 200 and s["total_keps"] == 2 and s["embedding_dimension"] == 384, f"/stats {s}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hyrax", default="./hyrax")
    a = ap.parse_args()
    hyrax = os.path.abspath(a.hyrax)
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "root")
        for rel, text in DOCS.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        db = os.path.join(tmp, "i.hyx")
        subprocess.run([hyrax, "index", "--db", db, root], check=True, stdout=subprocess.DEVNULL)
        srv = subprocess.Popen([hyrax, "serve", "--http", "127.0.0.1:0", "--tools", "all", "--db", db, "--root", root],
                               stderr=subprocess.PIPE, text=True)
        try:
            line = srv.stderr.readline()
            port = int(line.rsplit(":", 1)[1])
            for mode in ("legacy", "auto", "2026-07-28"):
                asyncio.run(session(f"http://127.0.0.1:{port}/mcp", mode, root))
            rest(f"http://127.0.0.1:{port}")
        finally:
            srv.terminate()
            check(srv.wait(timeout=30) == 0, "clean exit on SIGTERM")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
