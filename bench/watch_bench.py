"""watch_bench.py: how fast `hyrax serve --watch` makes an edit searchable, against the peer a user
without a watcher has: running `hyrax index ROOT` again after the edit (a full incremental sync).

On the kep.yaml files of some KEP folders (../shared/corpora/keps) plus ten short notes, indexed
once (small, so it runs on a loaded laptop): N times, one note gets a new unique word; the watcher's time is from the write to the first MCP keyword search that finds the
word (client side, polled every 20 ms), with the watcher's own lag (file mtime -> commit) from
index_health; the peer's is the wall time of `hyrax index ROOT` after the same kind of edit. Then
a burst of 200 writes over 50 files: commits made. Both inotify and polling (--watch-poll 1000).
Prints one JSON object per measurement.

    python3 bench/watch_bench.py [--hyrax ./hyrax] [--keps ../shared/corpora/keps] [--n 10]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

FOLDERS = ["sig-cli", "sig-autoscaling", "sig-instrumentation"]


class Serve:
    def __init__(self, hyrax, db, root, extra):
        self.p = subprocess.Popen([hyrax, "serve", "--db", db, "--root", root] + extra, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})

    def request(self, method, params):
        self.id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}) + "\n")
        return json.loads(self.p.stdout.readline())["result"]

    def tool(self, name, args):
        return self.request("tools/call", {"name": name, "arguments": args})["structuredContent"]

    def found(self, word):
        r = self.tool("search", {"query": word, "mode": "keyword", "min_score": 0})
        return len(r["results"]) > 0

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def edit(root, rel, word):
    with open(os.path.join(root, rel), "a") as f:
        f.write(f"\n\nEdited: {word}\n")


def run_watch(args, db, root, files, extra, label):
    s = Serve(args.hyrax, db, root, extra)
    while s.tool("index_health", {})["watch"]["mode"] == "starting":
        time.sleep(0.05)
    while s.tool("index_health", {})["watch"]["batches"] < 1:   # the catch-up batch
        time.sleep(0.05)
    seen, lags = [], []
    for i in range(args.n):
        word = f"zqx{label}{i}w"
        t0 = time.monotonic()
        edit(root, files[(i * 7) % len(files)], word)
        while not s.found(word):
            time.sleep(0.02)
        seen.append((time.monotonic() - t0) * 1e3)
        lags.append(s.tool("index_health", {})["watch"]["last_batch"]["lag_ms"])
        time.sleep(0.1)
    c0 = s.tool("index_health", {})["watch"]["commits"]
    for i in range(200):
        with open(os.path.join(root, "burst", f"f{i % 50:03d}.md"), "w") as f:
            f.write(f"# Burst\n\nburstword round {i // 50} file {i % 50}\n")
    while len(s.tool("search", {"query": "burstword", "mode": "keyword", "min_score": 0, "top_k": 50})["results"]) < 50:
        time.sleep(0.05)
    time.sleep(1.5)
    commits = s.tool("index_health", {})["watch"]["commits"] - c0
    s.close()
    shutil.rmtree(os.path.join(root, "burst"))
    os.makedirs(os.path.join(root, "burst"))
    print(json.dumps({"bench": "watch", "mode": label, "edits": args.n, "searchable_p50_ms": round(statistics.median(seen), 1),
                      "searchable_max_ms": round(max(seen), 1), "watcher_lag_p50_ms": round(statistics.median(lags), 1),
                      "burst_writes": 200, "burst_commits": commits}))
    return statistics.median(seen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hyrax", default="./hyrax")
    ap.add_argument("--keps", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpora", "keps"))
    ap.add_argument("--n", type=int, default=10)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="hx_watch_bench_")
    try:
        root = os.path.join(tmp, "root")
        os.makedirs(os.path.join(root, "burst"))
        for f in FOLDERS:
            for d, _, ns in os.walk(os.path.join(args.keps, f)):
                for n in ns:
                    if n == "kep.yaml":
                        dst = os.path.join(root, os.path.relpath(d, args.keps))
                        os.makedirs(dst, exist_ok=True)
                        shutil.copy(os.path.join(d, n), dst)
        os.makedirs(os.path.join(root, "notes"))
        files = []
        for i in range(10):
            files.append(f"notes/note{i}.md")
            with open(os.path.join(root, files[-1]), "w") as f:
                f.write(f"# Note {i}\n\nA short note about cluster autoscaling, number {i}.\n")
        db = os.path.join(tmp, "index.hyx")
        t0 = time.monotonic()
        subprocess.run([args.hyrax, "index", "--db", db, root], check=True, stdout=subprocess.DEVNULL)
        n_files = sum(len(ns) for _, _, ns in os.walk(root))
        print(json.dumps({"bench": "index", "files": n_files, "seconds": round(time.monotonic() - t0, 2)}))
        # the peer: re-running the sync after an edit
        syncs = []
        for i in range(args.n):
            edit(root, files[(i * 7) % len(files)], f"zqxsync{i}w")
            t0 = time.monotonic()
            subprocess.run([args.hyrax, "index", "--db", db, root], check=True, stdout=subprocess.DEVNULL)
            syncs.append((time.monotonic() - t0) * 1e3)
        sync = statistics.median(syncs)
        print(json.dumps({"bench": "peer: hyrax index after each edit", "edits": args.n,
                          "searchable_p50_ms": round(sync, 1), "searchable_max_ms": round(max(syncs), 1)}))
        w = run_watch(args, db, root, files, ["--watch"], "inotify")
        p = run_watch(args, db, root, files, ["--watch-poll", "1000"], "poll")
        print(json.dumps({"bench": "ratio", "sync_over_inotify": round(sync / w, 2), "sync_over_poll": round(sync / p, 2)}))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
