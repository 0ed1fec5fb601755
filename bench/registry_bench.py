#!/usr/bin/env python3
"""Registry tier benchmark (issue 13): a PostgreSQL + pgvector registry holding N synthetic chunks
(384-d unit vectors in clusters, English-looking synthetic text), then in the same run:

  * hybrid query latency (p50/p90/p99) through hyrax (bench/registry_bench.c: hx_registry_search,
    one statement with the vector top 4k and keyword top 4k, fused by RRF in hyrax), and the same
    hybrid query written as plain SQL run by pgbench (PostgreSQL's own client, no hyrax);
  * recall@10 of the pgvector HNSW side against exact search (brute force in SQL, index off);
  * publish throughput (chunks/s into the registry) beside embedding throughput, from
    `hyrax publish` over a folder of real documents (--corpus, e.g. ../shared/corpora/keps).

The cluster is a throwaway one made by tests/pg_cluster.sh under build/ (or --url for an existing
registry whose owner may drop and load schema hyrax). Prints JSON lines, then a summary.

    python3 bench/registry_bench.py --chunks 100000 --queries 200 --corpus ../shared/corpora/keps
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


class Pg:
    def __init__(self, url, bindir):
        self.url, self.bindir = url, bindir

    def sql(self, *texts):
        """Runs each text as its own psql -c (its own transaction); the output of all."""
        cmd = [os.path.join(self.bindir, "psql"), "-X", "-Atq", "-v", "ON_ERROR_STOP=1", self.url]
        for t in texts:
            cmd += ["-c", t]
        return sh(cmd)


LOAD_SQL = [
    "DROP INDEX IF EXISTS hyrax.chunks_embedding",
    "DELETE FROM hyrax.documents WHERE path LIKE 'bench/%'",
    "INSERT INTO hyrax.documents (path, title, content_hash) SELECT 'bench/' || d || '.md', 'Synthetic ' || d, "
    "md5(d::text) FROM generate_series(0, {docs} - 1) d",
    "CREATE TABLE IF NOT EXISTS public.bench_q (id int PRIMARY KEY, v vector(384), t text)",
    "TRUNCATE public.bench_q",
]


def vec_text(v):
    return "[" + ",".join("%.6g" % x for x in v) + "]"


def load(a, pg):
    """Synthetic chunks: unit vectors drawn around `clusters` random centres (numpy, seeded), text of
    40 words from a 2,000-word vocabulary with a skewed (Zipf-like) frequency; streamed with COPY."""
    import numpy as np
    rng = np.random.default_rng(13)
    centres = rng.standard_normal((a.clusters, 384)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    words = lambda n: " ".join("w%d" % w for w in (2000 * rng.random(n) ** 3).astype(int))

    def unit_near(c):
        v = centres[c] + 0.06 * rng.standard_normal(384).astype(np.float32)
        return v / np.linalg.norm(v)

    pg.sql(*[q.format(docs=a.chunks // a.per_doc) for q in LOAD_SQL])
    first = int(pg.sql("SELECT min(id) FROM hyrax.documents WHERE path LIKE 'bench/%'").strip())
    tenant = pg.sql("SELECT current_user").strip()
    copy = subprocess.Popen([os.path.join(pg.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", pg.url, "-c",
                             "COPY hyrax.chunks (document_id, tenant, visibility, ord, text, embedding) FROM STDIN"],
                            stdin=subprocess.PIPE, text=True)
    for i in range(a.chunks):
        copy.stdin.write("%d\t%s\ttenant\t%d\t%s\t%s\n" % (first + i // a.per_doc, tenant, i % a.per_doc, words(40),
                                                           vec_text(unit_near(rng.integers(a.clusters)))))
    copy.stdin.close()
    if copy.wait():
        raise SystemExit("COPY failed")
    copy = subprocess.Popen([os.path.join(pg.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", pg.url, "-c",
                             "COPY public.bench_q (id, v, t) FROM STDIN"], stdin=subprocess.PIPE, text=True)
    for q in range(1, a.queries + 1):
        copy.stdin.write("%d\t%s\t%s\n" % (q, vec_text(unit_near(rng.integers(a.clusters))), words(2)))
    copy.stdin.close()
    if copy.wait():
        raise SystemExit("COPY failed")


INDEX_SQL = [
    "SET maintenance_work_mem = '2GB'; SET max_parallel_maintenance_workers = 1; "
    "CREATE INDEX chunks_embedding ON hyrax.chunks USING hnsw (embedding vector_ip_ops)",
    "VACUUM ANALYZE hyrax.chunks",
    "VACUUM ANALYZE hyrax.documents",
]

# The hybrid query as a person would write it in plain SQL: vector top 4k by the HNSW index,
# keyword top 4k by ts_rank_cd, joined to their documents; pgbench picks the query row.
PGBENCH_SQL = """\\set id random(1, {queries})
SET hnsw.ef_search = 100;
WITH q AS (SELECT v, websearch_to_tsquery('english', t) AS tq FROM public.bench_q WHERE id = :id),
v AS (SELECT c.id FROM hyrax.chunks c ORDER BY c.embedding <#> (SELECT v FROM q) LIMIT {limit}),
k AS (SELECT c.id FROM hyrax.chunks c, q WHERE c.tsv @@ q.tq ORDER BY ts_rank_cd(c.tsv, q.tq, 32) DESC LIMIT {limit})
SELECT c.id, d.path, d.title, c.heading_path, c.text, -(c.embedding <#> (SELECT v FROM q))
FROM (SELECT id FROM v UNION SELECT id FROM k) hit JOIN hyrax.chunks c ON c.id = hit.id
JOIN hyrax.documents d ON d.id = c.document_id;
"""


def percentiles(ms):
    s = sorted(ms)
    pick = lambda p: s[min(len(s) - 1, int(round(p * (len(s) - 1))))]
    return {"queries": len(s), "p50_ms": round(pick(0.5), 3), "p90_ms": round(pick(0.9), 3),
            "p99_ms": round(pick(0.99), 3), "max_ms": round(s[-1], 3), "mean_ms": round(statistics.mean(s), 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=100000)
    ap.add_argument("--per-doc", type=int, default=10)
    ap.add_argument("--clusters", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--url", help="an existing registry (default: a throwaway cluster under build/)")
    ap.add_argument("--pg-bin", help="PostgreSQL's bin folder for psql and pgbench (with --url)")
    ap.add_argument("--corpus", help="a folder of documents to time `hyrax publish` on")
    ap.add_argument("--keep", action="store_true", help="leave the throwaway cluster running")
    a = ap.parse_args()
    env = dict(os.environ)
    cluster = None
    if a.url:
        url, bindir = a.url, a.pg_bin
    else:
        cluster = os.path.join(ROOT, "build", "registry-bench")
        sh(["sh", "tests/pg_cluster.sh", "stop", cluster], cwd=ROOT)
        out = sh(["sh", "tests/pg_cluster.sh", "start", cluster], cwd=ROOT).split()
        url, env["HYRAX_LIBPQ"] = out[0], out[1]
        bindir = open(os.path.join(cluster, "bin")).read().strip()
    pg = Pg(url, bindir)
    try:
        run(a, pg, url, env)
    finally:
        if cluster and not a.keep:
            sh(["sh", "tests/pg_cluster.sh", "stop", cluster], cwd=ROOT)


def run(a, pg, url, env):
    hyrax = os.path.join(ROOT, "hyrax")
    sh([hyrax, "registry", "init", "--registry", url], env=env)
    version = pg.sql("SELECT extversion FROM pg_extension WHERE extname = 'vector'").strip()
    server = pg.sql("SHOW server_version").strip()
    t0 = time.time()
    load(a, pg)
    load_s = time.time() - t0
    t0 = time.time()
    pg.sql(*INDEX_SQL)
    index_s = time.time() - t0
    n = int(pg.sql("SELECT count(*) FROM hyrax.chunks").strip())
    print(json.dumps({"chunks": n, "load_s": round(load_s, 1), "hnsw_build_s": round(index_s, 1),
                      "postgresql": server, "pgvector": version, "cpu": cpu(), "load_avg": os.getloadavg()[0]}))

    # recall@10 of the HNSW side against brute force (the index switched off for the exact side)
    recalls = []
    for q in range(1, a.queries + 1):
        got = pg.sql("SET hnsw.ef_search = 100", "SELECT c.id FROM hyrax.chunks c ORDER BY c.embedding <#> "
                     "(SELECT v FROM public.bench_q WHERE id = %d) LIMIT %d" % (q, a.k)).split()
        exact = pg.sql("SET enable_indexscan = off", "SELECT c.id FROM hyrax.chunks c ORDER BY c.embedding <#> "
                       "(SELECT v FROM public.bench_q WHERE id = %d) LIMIT %d" % (q, a.k)).split()
        recalls.append(len(set(got) & set(exact)) / len(exact))
    print(json.dumps({"recall_at_10_hnsw_vs_exact": round(statistics.mean(recalls), 4), "queries": len(recalls),
                      "ef_search": 100}))

    # the same queries through hyrax and as plain SQL through pgbench, taking turns
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, "build")) as tmp:
        qfile = os.path.join(tmp, "queries.tsv")
        with open(qfile, "w") as f:
            f.write(pg.sql("SELECT v::text || E'\\t' || t FROM public.bench_q ORDER BY id"))
        script = os.path.join(tmp, "hybrid.sql")
        with open(script, "w") as f:
            f.write(PGBENCH_SQL.format(queries=a.queries, limit=4 * a.k))
        sh(["make", "-s", "bench/registry_bench"], cwd=ROOT)
        out = sh([os.path.join(HERE, "registry_bench"), url, qfile, str(a.k), "20", "embed"], env=env, cwd=ROOT)
        mine = {}
        for line in out.splitlines():
            print(line)
            row = json.loads(line)
            mine.setdefault("search", row)
        sh([os.path.join(pg.bindir, "pgbench"), "-n", "-f", script, "-t", "20", url], cwd=tmp)   # warm-up
        for old in os.listdir(tmp):
            if old.startswith("pgbench_log"):
                os.remove(os.path.join(tmp, old))
        sh([os.path.join(pg.bindir, "pgbench"), "-n", "-f", script, "-t", str(a.queries), "-l", url], cwd=tmp)
        ms = []
        for name in os.listdir(tmp):
            if name.startswith("pgbench_log"):
                for line in open(os.path.join(tmp, name)):
                    ms.append(int(line.split()[2]) / 1000.0)   # latency in microseconds
        peer = percentiles(ms)
        print(json.dumps(dict(engine="plain SQL via pgbench (libpq)", **peer)))
        print(json.dumps({"ratio_p99_hyrax_over_sql": round(mine["search"]["p99_ms"] / peer["p99_ms"], 3),
                          "ratio_p50_hyrax_over_sql": round(mine["search"]["p50_ms"] / peer["p50_ms"], 3),
                          "target_p99_ms": 500}))

    if a.corpus:
        publish(a, url, env)


def publish(a, url, env):
    hyrax = os.path.join(ROOT, "hyrax")
    root = os.path.abspath(a.corpus)
    t0 = time.time()
    out = subprocess.run([hyrax, "publish", "--registry", url, "--allow-unsigned", "--root", root, "."],
                         capture_output=True, text=True, env=env, cwd=root)
    wall = time.time() - t0
    m = re.search(r"published (\d+), unchanged (\d+).*?; (\d+) chunks \(embedding ([\d.]+) s, registry ([\d.]+) s\)",
                  out.stdout)
    if not m:
        print(json.dumps({"publish_error": out.stdout[-300:] + out.stderr[-300:]}))
        return
    docs, chunks, emb, reg = int(m.group(1)), int(m.group(3)), float(m.group(4)), float(m.group(5))
    print(json.dumps({"publish_documents": docs, "chunks": chunks, "wall_s": round(wall, 2),
                      "embedding_chunks_per_s": round(chunks / emb, 1) if emb else None,
                      "registry_chunks_per_s": round(chunks / reg, 1) if reg else None,
                      "embedding_s": emb, "registry_s": reg}))


def cpu():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip() + " x%d" % os.cpu_count()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    main()
