#!/usr/bin/env python3
"""Registry tier benchmark (issue 13): a PostgreSQL + pgvector registry holding N synthetic chunks,
then in the same run:

  * latency (p50/p90/p99) of hybrid, vector-only and keyword-only queries through hyrax
    (bench/registry_bench.c: hxi_registry_search, RRF in hyrax) and, beside each, the same statement
    hyrax sends (search_sql, read out of src/service/registry.c) run as plain SQL by pgbench,
    PostgreSQL's own client, with the same parameters;
  * recall@10 of the pgvector HNSW side against exact search (brute force over every vector, in
    numpy while loading; cross-checked against PostgreSQL's exact scan on a few queries);
  * what the keyword candidate bound costs: the keyword side's top 40 with the bound against
    ranking every matching row;
  * searches as tenant roles (row-level security applies: one reading every chunk, one reading
    none) beside the owner's, before (--baseline-rev: that revision's statement, on the schema
    as found) and after `hyrax registry init` migrates the schema, with the scans of each index;
  * publish throughput (chunks/s into the registry) beside embedding throughput, from
    `hyrax publish` over a folder of real documents (--corpus, e.g. ../shared/corpora/keps).

Synthetic data (seeded): 384-d unit vectors drawn around --clusters random centres; chunk text of
--words-min..--words-max words (uniform) drawn from a 50,000-word pseudo-English vocabulary with a
Zipf distribution (P(rank r) proportional to 1 / r^--zipf-s); queries carry a vector drawn the same
way and 2-4 distinct words from the same distribution. The vocabulary's words have distinct English
stems and none is a stop word, so each word is one lexeme of to_tsvector('english').

Loading: binary COPY into tables created by `hyrax registry init`, in transactions of --batch rows,
with the chunks' indexes and foreign key dropped first and rebuilt after the load (GIN, btree,
HNSW with maintenance_work_mem 5GB and 2 parallel maintenance workers). The tables stay LOGGED.

The cluster is a throwaway one made by tests/pg_cluster.sh under build/registry-bench. Phases:
    --phase load      start the cluster, load and index; leaves it running
    --phase measure   use the running cluster (loaded by --phase load with the same options)
    --phase recall    only the HNSW recall, at each --ef
    --phase publish   only time `hyrax publish` of --corpus into the running cluster
    --phase tenant    only the searches as a tenant role (row-level security), before
                      (--baseline-rev) and after migrating the schema
    --phase all       both, then stop it (default; --keep leaves it running)
    --phase stop      stop it and delete it
Prints JSON lines (progress on stderr), then a summary.

    nice -n 5 python3 bench/registry_bench.py --chunks 1000000 --phase load
    python3 bench/registry_bench.py --chunks 1000000 --phase measure --corpus ../shared/corpora/keps
"""
import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLUSTER = os.path.join(ROOT, "build", "registry-bench")
DIM = 384
SEED = 13


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def log(msg):
    print(time.strftime("%H:%M:%S ") + msg, file=sys.stderr, flush=True)


class Pg:
    def __init__(self, url, bindir):
        self.url, self.bindir = url, bindir

    def sql(self, *texts):
        """Runs each text as its own psql -c (its own transaction); the output of all."""
        cmd = [os.path.join(self.bindir, "psql"), "-X", "-Atq", "-v", "ON_ERROR_STOP=1", self.url]
        for t in texts:
            cmd += ["-c", t]
        return sh(cmd)

    def copy_in(self, table_cols, data):
        p = subprocess.run([os.path.join(self.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", self.url, "-c",
                            "COPY %s FROM STDIN" % table_cols], input=data, capture_output=True)
        if p.returncode:
            raise SystemExit("COPY %s failed: %s" % (table_cols, p.stderr.decode()[-500:]))


def as_server(cmd):
    """Runs a server program as the user the cluster runs as (pg_cluster.sh: nobody under root)."""
    return sh(["runuser", "-u", "nobody", "--"] + cmd if os.getuid() == 0 else cmd)


def attach():
    """The running cluster under build/registry-bench: (Pg, libpq path)."""
    bindir = open(os.path.join(CLUSTER, "bin")).read().strip()
    sock = open(os.path.join(CLUSTER, "socket_dir")).read().strip()
    lib = sh([os.path.join(bindir, "pg_config"), "--libdir"]).strip()
    return Pg("postgresql://hyrax@/postgres?host=" + sock, bindir), os.path.join(lib, "libpq.so.5")


def start_cluster():
    sh(["sh", "tests/pg_cluster.sh", "stop", CLUSTER], cwd=ROOT)
    sh(["sh", "tests/pg_cluster.sh", "start", CLUSTER], cwd=ROOT)
    pg, _ = attach()
    # room for the data in shared buffers and for the load's WAL between checkpoints (restart)
    pg.sql("ALTER SYSTEM SET shared_buffers = '3GB'", "ALTER SYSTEM SET max_wal_size = '16GB'",
           "ALTER SYSTEM SET checkpoint_timeout = '30min'", "ALTER SYSTEM SET effective_cache_size = '12GB'")
    as_server([os.path.join(pg.bindir, "pg_ctl"), "-D", os.path.join(CLUSTER, "data"), "-w", "-m", "fast",
               "-l", os.path.join(CLUSTER, "data", "server.log"), "restart"])
    return attach()


# === Synthetic data ===

def vocabulary(pg, n):
    """n pseudo-English words (2-4 consonant-vowel syllables, some with a closing consonant) with
    distinct English stems, none a stop word; the server's to_tsvector decides both."""
    import numpy as np
    rng = np.random.default_rng(SEED)
    cons, vows = "bdfgklmnprstvz", "aeiou"
    seen, cand = set(), []
    while len(cand) < int(n * 1.3):
        syl = rng.integers(2, 5)
        w = "".join(cons[rng.integers(len(cons))] + vows[rng.integers(len(vows))] for _ in range(syl))
        if rng.random() < 0.3:
            w += cons[rng.integers(len(cons))]
        if w not in seen:
            seen.add(w)
            cand.append(w)
    pg.sql("DROP TABLE IF EXISTS public.bench_cand", "CREATE TABLE public.bench_cand (i int, w text)")
    pg.copy_in("public.bench_cand (i, w)", "".join("%d\t%s\n" % (i, w) for i, w in enumerate(cand)).encode())
    # the first candidate of each stem, in candidate order, and only single-lexeme words
    out = pg.sql("SELECT w FROM (SELECT i, w, row_number() OVER (PARTITION BY lex ORDER BY i) AS r "
                 "FROM (SELECT i, w, strip(to_tsvector('english', w))::text AS lex FROM public.bench_cand) s "
                 "WHERE lex ~ '^''[a-z]+''$') t WHERE r = 1 ORDER BY i LIMIT %d" % n).split()
    pg.sql("DROP TABLE public.bench_cand")
    if len(out) < n:
        raise SystemExit("vocabulary: only %d words with distinct stems" % len(out))
    return out


class Gen:
    """The seeded generator of chunks and queries (the same stream for the same options)."""

    def __init__(self, a, vocab):
        import numpy as np
        self.np, self.a, self.vocab = np, a, np.array(vocab, dtype=object)
        self.rng = np.random.default_rng(SEED + 1)
        self.centres = self.rng.standard_normal((a.clusters, DIM)).astype(np.float32)
        self.centres /= np.linalg.norm(self.centres, axis=1, keepdims=True)
        w = 1.0 / np.arange(1, len(vocab) + 1, dtype=np.float64) ** a.zipf_s
        self.cdf = np.cumsum(w / w.sum())

    def vectors(self, n):
        np = self.np
        v = self.centres[self.rng.integers(self.a.clusters, size=n)]
        v = v + 0.06 * self.rng.standard_normal((n, DIM)).astype(np.float32)
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    def ranks(self, n):
        return self.np.minimum(self.np.searchsorted(self.cdf, self.rng.random(n)), len(self.cdf) - 1)

    def texts(self, n):
        lens = self.rng.integers(self.a.words_min, self.a.words_max + 1, size=n)
        words = self.vocab[self.ranks(int(lens.sum()))]
        out, at = [], 0
        for ln in lens:
            out.append(" ".join(words[at:at + ln]))
            at += ln
        return out

    def query_words(self):
        k = int(self.rng.integers(2, 5))
        got = []
        while len(got) < k:
            r = int(self.ranks(1)[0])
            if r not in got:
                got.append(r)
        return got


def binary_rows(first_id, per_doc, first_doc, tenant, texts, vecs):
    """PostgreSQL binary COPY rows for hyrax.chunks (id, document_id, tenant, visibility, ord, text,
    embedding); pgvector's binary vector is int16 dim, int16 unused, dim big-endian float4."""
    ten = tenant.encode()
    vis = b"tenant"
    vb = vecs.astype(">f4").tobytes()
    head = struct.pack(">hh", DIM, 0)
    vlen = 4 + 4 * DIM
    rows = []
    for i, t in enumerate(texts):
        cid = first_id + i
        tb = t.encode()
        rows.append(struct.pack(">hiqiqi", 7, 8, cid, 8, first_doc + (cid - 1) // per_doc, len(ten)) + ten +
                    struct.pack(">i", len(vis)) + vis + struct.pack(">iii", 4, (cid - 1) % per_doc, len(tb)) + tb +
                    struct.pack(">i", vlen) + head + vb[i * 4 * DIM:(i + 1) * 4 * DIM])
    return b"".join(rows)


COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
COPY_TRAILER = struct.pack(">h", -1)

# The chunks' secondary indexes and foreign key as `hyrax registry init` makes them, rebuilt after
# the load (each as its own statement, timed).
DROP_SQL = ["ALTER TABLE hyrax.chunks DROP CONSTRAINT IF EXISTS chunks_document_id_fkey",
            "DROP INDEX IF EXISTS hyrax.chunks_embedding", "DROP INDEX IF EXISTS hyrax.chunks_tsv",
            "DROP INDEX IF EXISTS hyrax.chunks_document"]
BUILD_SQL = [
    ("gin_tsv", "CREATE INDEX chunks_tsv ON hyrax.chunks USING gin (tsv)"),
    ("btree_document", "CREATE INDEX chunks_document ON hyrax.chunks (document_id)"),
    ("foreign_key", "ALTER TABLE hyrax.chunks ADD CONSTRAINT chunks_document_id_fkey FOREIGN KEY (document_id) "
                    "REFERENCES hyrax.documents (id) ON DELETE CASCADE"),
    ("hnsw", "CREATE INDEX chunks_embedding ON hyrax.chunks USING hnsw (embedding vector_ip_ops)"),
    ("vacuum_analyze", "VACUUM ANALYZE hyrax.chunks", "VACUUM ANALYZE hyrax.documents"),
]
MAINT = ["SET maintenance_work_mem = '5GB'", "SET max_parallel_maintenance_workers = 2"]


def load(a, pg):
    """Loads the documents, the chunks and the queries; writes the exact top k of every query
    (brute force over all vectors, numpy) to build/registry-bench/exact.json. Returns figures."""
    import numpy as np
    t0 = time.time()
    vocab = vocabulary(pg, a.vocab)
    gen = Gen(a, vocab)
    docs = (a.chunks + a.per_doc - 1) // a.per_doc
    tenant = pg.sql("SELECT current_user").strip()
    pg.sql(*DROP_SQL)
    pg.sql("TRUNCATE hyrax.chunks, hyrax.documents RESTART IDENTITY CASCADE",
           "INSERT INTO hyrax.documents (path, title, content_hash, tenant) SELECT 'bench/' || d || '.md', "
           "'Synthetic ' || d, md5(d::text), current_user FROM generate_series(0, %d - 1) d" % docs)
    first_doc = int(pg.sql("SELECT min(id) FROM hyrax.documents").strip())
    # queries first, so that the exact search can run over the chunks as they are made
    qvecs = gen.vectors(a.queries)
    qwords = [gen.query_words() for _ in range(a.queries)]
    qtext = [" ".join(vocab[r] for r in ws) for ws in qwords]
    pg.sql("DROP TABLE IF EXISTS public.bench_q", "CREATE TABLE public.bench_q (id int PRIMARY KEY, v vector(384), "
           "t text, ranks text)")
    pg.copy_in("public.bench_q (id, v, t, ranks)", "".join(
        "%d\t[%s]\t%s\t%s\n" % (i + 1, ",".join(repr(float(x)) for x in qvecs[i]), qtext[i],
                               ",".join(str(r + 1) for r in qwords[i])) for i in range(a.queries)).encode())
    best_s = np.full((a.queries, a.k), -np.inf, dtype=np.float32)
    best_i = np.zeros((a.queries, a.k), dtype=np.int64)
    copy_s = gen_s = 0.0
    done = 0
    while done < a.chunks:
        n = min(a.batch, a.chunks - done)
        copy = subprocess.Popen([os.path.join(pg.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", pg.url, "-c",
                                 "COPY hyrax.chunks (id, document_id, tenant, visibility, ord, text, embedding) "
                                 "FROM STDIN (FORMAT binary)"], stdin=subprocess.PIPE)
        t1 = time.time()
        copy.stdin.write(COPY_HEADER)
        for at in range(done, done + n, 10000):
            m = min(10000, done + n - at)
            t2 = time.time()
            vecs = gen.vectors(m)
            s = qvecs @ vecs.T                               # queries x m inner products
            alls = np.concatenate([best_s, s], axis=1)
            alli = np.concatenate([best_i, np.broadcast_to(np.arange(at + 1, at + m + 1), (a.queries, m))], axis=1)
            top = np.argpartition(-alls, a.k - 1, axis=1)[:, :a.k]
            best_s, best_i = np.take_along_axis(alls, top, 1), np.take_along_axis(alli, top, 1)
            rows = binary_rows(at + 1, a.per_doc, first_doc, tenant, gen.texts(m), vecs)
            gen_s += time.time() - t2
            copy.stdin.write(rows)
        copy.stdin.write(COPY_TRAILER)
        copy.stdin.close()
        if copy.wait():
            raise SystemExit("COPY failed")
        copy_s += time.time() - t1
        done += n
        log("load: %d / %d chunks in %d transactions (generating %.0f s of the %.0f s)" % (
            done, a.chunks, (done + a.batch - 1) // a.batch, gen_s, copy_s))
    pg.sql("SELECT setval('hyrax.chunks_id_seq', %d)" % a.chunks)
    order = np.argsort(-best_s, axis=1)
    exact = np.take_along_axis(best_i, order, 1).tolist()
    with open(os.path.join(CLUSTER, "exact.json"), "w") as f:
        json.dump({"options": options_key(a), "exact": exact}, f)
    load_s = time.time() - t0
    figures = {"chunks": a.chunks, "documents": docs, "load_s": round(load_s, 1), "generate_s": round(gen_s, 1),
               "copy_s": round(copy_s, 1), "copy_transactions": (a.chunks + a.batch - 1) // a.batch}
    for name, *stmts in BUILD_SQL:
        t1 = time.time()
        out = subprocess.run([os.path.join(pg.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", pg.url] +
                             [x for q in MAINT + stmts for x in ("-c", q)], capture_output=True, text=True)
        if out.returncode:
            raise SystemExit("%s failed: %s" % (name, out.stderr[-500:]))
        figures[name + "_s"] = round(time.time() - t1, 1)
        if out.stderr.strip():
            figures[name + "_notice"] = out.stderr.strip()[-300:]
        log("index: %s %.0f s" % (name, time.time() - t1))
    pg.sql("CREATE TABLE IF NOT EXISTS public.bench_meta (k text PRIMARY KEY, v text)",
           "DELETE FROM public.bench_meta",
           "INSERT INTO public.bench_meta VALUES ('options', '%s'), ('load', '%s')" % (
               options_key(a), json.dumps(figures)))
    return figures


def options_key(a):
    return "chunks=%d vocab=%d zipf=%g words=%d-%d clusters=%d queries=%d k=%d" % (
        a.chunks, a.vocab, a.zipf_s, a.words_min, a.words_max, a.clusters, a.queries, a.k)


# === Measuring ===

def percentiles(ms, unit="_ms"):
    s = sorted(ms)
    pick = lambda p: s[min(len(s) - 1, int(round(p * (len(s) - 1))))]
    return {"queries": len(s), "p50" + unit: round(pick(0.5), 3), "p90" + unit: round(pick(0.9), 3),
            "p99" + unit: round(pick(0.99), 3), "max" + unit: round(s[-1], 3), "mean" + unit: round(statistics.mean(s), 3)}


def main():
    global CLUSTER
    ap = argparse.ArgumentParser()
    ap.add_argument("--phase", choices=["load", "measure", "recall", "publish", "tenant", "all", "stop"],
                    default="all")
    ap.add_argument("--chunks", type=int, default=100000)
    ap.add_argument("--per-doc", type=int, default=10)
    ap.add_argument("--clusters", type=int, default=1000)
    ap.add_argument("--vocab", type=int, default=50000)
    ap.add_argument("--zipf-s", type=float, default=1.0)
    ap.add_argument("--words-min", type=int, default=40)
    ap.add_argument("--words-max", type=int, default=120)
    ap.add_argument("--batch", type=int, default=250000, help="chunks per COPY transaction")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--warm", type=int, default=20, help="untimed queries before each timed run")
    ap.add_argument("--rounds", type=int, default=1, help="timed runs of each mode, hyrax and SQL in turn")
    ap.add_argument("--corpus", help="a folder of documents to time `hyrax publish` on")
    ap.add_argument("--corpus-limit", type=int, default=0, help="publish only N files of it, spread over it")
    ap.add_argument("--keep", action="store_true", help="leave the cluster running after --phase all")
    ap.add_argument("--ef", type=int, nargs="+", default=[40, 100, 200, 400], help="ef_search values for --phase recall")
    ap.add_argument("--tenant-queries", type=int, default=10, help="queries timed as a tenant role")
    ap.add_argument("--slow-queries", type=int, default=50,
                    help="queries for the slow checks: the baseline statement, ranking every keyword match")
    ap.add_argument("--baseline-rev", help="also time (plain SQL) the statement of this git revision")
    ap.add_argument("--cluster", default=CLUSTER, help="the cluster's folder (default build/registry-bench)")
    a = ap.parse_args()
    CLUSTER = os.path.abspath(a.cluster)
    if a.phase == "stop":
        sh(["sh", "tests/pg_cluster.sh", "stop", CLUSTER], cwd=ROOT)
        return
    env = dict(os.environ)
    if a.phase in ("load", "all"):
        pg, env["HYRAX_LIBPQ"] = start_cluster()
        sh([os.path.join(ROOT, "hyrax"), "registry", "init", "--registry", pg.url], env=env)
        print(json.dumps(dict(phase="load", options=options_key(a), cpu=cpu(), load_avg=os.getloadavg()[0],
                              **load(a, pg))), flush=True)
    else:
        pg, env["HYRAX_LIBPQ"] = attach()
        got = pg.sql("SELECT v FROM public.bench_meta WHERE k = 'options'").strip()
        if got != options_key(a):
            raise SystemExit("the cluster holds %r, not %r: run --phase load" % (got, options_key(a)))
    try:
        if a.phase == "recall":
            exact = json.load(open(os.path.join(CLUSTER, "exact.json")))["exact"]
            queries = [dict(zip(("id", "v"), line.split("|"))) for line in
                       pg.sql("SELECT id, v::text FROM public.bench_q ORDER BY id").splitlines()]
            print(json.dumps(recall(a, pg, queries, exact, a.ef, False)), flush=True)
        if a.phase == "publish":
            publish(a, pg, env)
        if a.phase == "tenant":
            sh(["make", "-s", "bench/registry_bench"], cwd=ROOT)
            tenant(a, pg, env, [dict(zip(("id", "v", "t"), line.split("|"))) for line in
                                pg.sql("SELECT id, v::text, t FROM public.bench_q ORDER BY id").splitlines()])
        if a.phase in ("measure", "all"):
            measure(a, pg, env)
    finally:
        if a.phase == "all" and not a.keep:
            sh(["sh", "tests/pg_cluster.sh", "stop", CLUSTER], cwd=ROOT)


def search_sql(rev=None):
    """The text of search_sql in src/service/registry.c: the statement hyrax sends (with rev: the one
    that git revision sent)."""
    read = lambda name: (sh(["git", "show", "%s:src/index/%s" % (rev, name)], cwd=ROOT) if rev else
                         open(os.path.join(ROOT, "src", "index", name)).read())
    src = read("registry.c")
    defs = dict(re.findall(r"#define (\w+) (\S+)", src + read("registry.h")))
    src = re.sub(r"HX_STRINGIFY\((\w+)\)", lambda m: '"%s"' % defs[m.group(1)], src)
    m = re.search(r'static const char search_sql\[\] =((?:\s*"(?:[^"\\]|\\.)*")+);', src)
    if not m:
        raise SystemExit("search_sql not found in src/service/registry.c")
    text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
    return re.sub(r"\\(.)", lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), text)


# What hyrax binds for each mode (registry.c hxi_registry_search): $1 the vector, $2 the text, $3
# 4 x k candidates, $4 no filters, $5 whether the keyword side runs, $6 no read time.
# pgbench's simple protocol writes the variables into the text (its extended protocol would take
# the ":MI" and ":SS" inside the statement's to_char format for variables too), so the vector and
# the text go in as quoted literals: both are plain ASCII without quotes (digits; a-z words).
MODES = {"hybrid": ("':qv'", "true"), "vector": ("':qv'", "false"), "keyword": ("NULL", "true")}


def pgbench_script(mode, k, rev=None):
    vec, kw = MODES[mode]
    params = {"1": vec, "2": "':qt'", "3": str(4 * k), "4": "NULL", "5": kw, "6": "NULL"}
    body = re.sub(r"\$(\d+)", lambda m: params[m.group(1)], search_sql(rev))
    # the query row in file order (the sequence is reset before each run), then the statement
    return ("SELECT v::text AS qv, t AS qt FROM public.bench_q WHERE id = (SELECT nextval('public.bench_seq')) "
            "\\gset\n" + body + ";\n")


# The session settings hyrax's connection asks for (registry.c hxi_registry_connect), for pgbench's.
HYRAX_OPTIONS = ("-c search_path=hyrax,public -c client_min_messages=error -c hnsw.iterative_scan=relaxed_order "
                 "-c hnsw.ef_search=100")


def pgbench(pg, tmp, script, n, warm, role=None):
    """Runs script n times in one connection after `warm` runs (as `role`: SET ROLE by the
    startup options, as hyrax --tenant does); latencies in ms, in run order."""
    path = os.path.join(tmp, "script.sql")
    with open(path, "w") as f:
        f.write(script)
    ms = []
    for runs, keep in ((warm, False), (n, True)):
        pg.sql("SELECT setval('public.bench_seq', 1, false)")
        for old in os.listdir(tmp):
            if old.startswith("pgbench_log"):
                os.remove(os.path.join(tmp, old))
        sh([os.path.join(pg.bindir, "pgbench"), "-n", "-M", "simple", "-f", path, "-t", str(runs), "-l", pg.url],
           cwd=tmp, env=dict(os.environ, PGOPTIONS=HYRAX_OPTIONS + (" -c role=" + role if role else "")))
        if keep:
            for name in os.listdir(tmp):
                if name.startswith("pgbench_log"):
                    ms += [int(line.split()[2]) / 1000.0 for line in open(os.path.join(tmp, name))]
    return ms


def recall(a, pg, queries, exact, efs=(100, 40), check_exact=True):
    """recall@k of the HNSW side (hyrax's ef_search and pgvector's default) against the exact top k
    from the load, and the mean inner product of the k found over that of the exact k (1.0: as
    near as the exact answer); the exact side cross-checked with PostgreSQL's own exact scan on 3
    queries."""
    out = {}
    top = lambda v: ("SELECT string_agg(id::text, ',') || ' ' || sum(-d) FROM (SELECT c.id, c.embedding <#> "
                     "'%s'::vector AS d FROM hyrax.chunks c ORDER BY c.embedding <#> '%s'::vector LIMIT %d) s"
                     % (v, v, a.k))
    best = pg.sql(*["SELECT sum(-(embedding <#> '%s'::vector)) FROM hyrax.chunks WHERE id IN (%s)" % (
        q["v"], ",".join(map(str, e))) for q, e in zip(queries, exact)]).split()
    for ef in efs:
        t0 = time.time()
        got = [line.split() for line in pg.sql("SET hnsw.ef_search = %d" % ef, *[top(q["v"]) for q in queries])
               .splitlines()]
        r = [len(set(map(int, g[0].split(","))) & set(e)) / a.k for g, e in zip(got, exact)]
        out["recall_at_%d_ef%d" % (a.k, ef)] = round(statistics.mean(r), 4)
        out["min_recall_ef%d" % ef] = min(r)
        out["queries_below_0.5_ef%d" % ef] = sum(x < 0.5 for x in r)
        out["similarity_ratio_ef%d" % ef] = round(statistics.mean(float(g[1]) / float(b) for g, b in zip(got, best)), 4)
        out["ms_per_query_ef%d" % ef] = round(1000 * (time.time() - t0) / len(queries), 1)
    if check_exact:
        t0 = time.time()
        got = pg.sql("SET enable_indexscan = off", *[top(q["v"]) for q in queries[:3]]).splitlines()
        out["exact_sql_agrees"] = [sorted(map(int, g.split()[0].split(","))) == sorted(e) for g, e in zip(got, exact)]
        out["exact_sql_s_per_query"] = round((time.time() - t0) / 3, 1)
    out["queries"] = len(queries)
    return out


def keyword_bound(a, pg, queries):
    """Per query: the rows matching the keyword side's tsquery and the overlap of its top k as
    hyrax asks (search_sql's keyword side) with the top k by ts_rank_cd over every matching row."""
    full = ("SELECT string_agg(id::text, ',') || ' ' || max(n) FROM (SELECT c.id, count(*) OVER () AS n "
            "FROM hyrax.chunks c, websearch_to_tsquery('english', '%s') q WHERE c.tsv @@ q "
            "ORDER BY ts_rank_cd(c.tsv, q, 32) DESC, c.id LIMIT %d) s")
    rows = pg.sql(*[full % (q["t"], a.k) for q in queries]).splitlines()
    res = []
    for line in rows:
        ids, _, n = line.rpartition(" ")
        res.append((set(map(int, ids.split(","))) if ids else set(), int(n or 0)))
    return res


def measure(a, pg, env):
    exact = json.load(open(os.path.join(CLUSTER, "exact.json")))["exact"]
    queries = [dict(zip(("id", "v", "t", "ranks"), line.split("|"))) for line in
               pg.sql("SELECT id, v::text, t, ranks FROM public.bench_q ORDER BY id").splitlines()]
    print(json.dumps(dict(phase="measure", postgresql=pg.sql("SHOW server_version").strip(),
                          pgvector=pg.sql("SELECT extversion FROM pg_extension WHERE extname = 'vector'").strip(),
                          load=json.loads(pg.sql("SELECT v FROM public.bench_meta WHERE k = 'load'")),
                          cpu=cpu(), load_avg=os.getloadavg())), flush=True)
    print(json.dumps(recall(a, pg, queries, exact)), flush=True)
    pg.sql("CREATE SEQUENCE IF NOT EXISTS public.bench_seq")
    sh(["make", "-s", "bench/registry_bench"], cwd=ROOT)
    lat = {}
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, "build")) as tmp:
        qfile = os.path.join(tmp, "queries.tsv")
        with open(qfile, "w") as f:
            f.write("".join(q["v"] + "\t" + q["t"] + "\n" for q in queries))
        lookup = pgbench(pg, tmp, "SELECT v::text AS qv, t AS qt FROM public.bench_q WHERE id = "
                                  "(SELECT nextval('public.bench_seq')) \\gset\n", len(queries), a.warm)
        print(json.dumps(dict(engine="pgbench, the query-row lookup alone", **percentiles(lookup))), flush=True)
        for rnd in range(a.rounds):
            for mode in MODES:
                out = sh([os.path.join(HERE, "registry_bench"), pg.url, qfile, str(a.k), str(a.warm), mode], env=env,
                         cwd=ROOT)
                mine = json.loads(out.splitlines()[0])
                peer = pgbench(pg, tmp, pgbench_script(mode, a.k), len(queries), a.warm)
                lat.setdefault(mode, []).append((mine["ms"], peer))
                print(json.dumps(dict(engine="hyrax hxi_registry_search", mode=mode, round=rnd + 1,
                                      **percentiles(mine["ms"]))), flush=True)
                print(json.dumps(dict(engine="plain SQL via pgbench (same statement)", mode=mode, round=rnd + 1,
                                      **percentiles(peer))), flush=True)
                print(json.dumps({"mode": mode, "round": rnd + 1,
                                  "ratio_p50_hyrax_over_sql": round(percentiles(mine["ms"])["p50_ms"] /
                                                                    percentiles(peer)["p50_ms"], 3),
                                  "ratio_p99_hyrax_over_sql": round(percentiles(mine["ms"])["p99_ms"] /
                                                                    percentiles(peer)["p99_ms"], 3),
                                  "target_p99_ms": 500}), flush=True)
        if a.baseline_rev:   # the statement as an older hyrax sent it, plain SQL only
            for mode in ("keyword", "hybrid"):
                peer = pgbench(pg, tmp, pgbench_script(mode, a.k, a.baseline_rev), a.slow_queries, a.warm)
                print(json.dumps(dict(engine="plain SQL via pgbench (statement of %s)" % a.baseline_rev, mode=mode,
                                      **percentiles(peer))), flush=True)
        out = sh([os.path.join(HERE, "registry_bench"), pg.url, qfile, str(a.k), "0", "vector", "embed"], env=env,
                 cwd=ROOT)
        emb = json.loads(out.splitlines()[1])
        print(json.dumps(dict(engine=emb["engine"], **percentiles(emb["ms"]))), flush=True)
    tenant(a, pg, env, queries)
    # the keyword side by how many rows match, and what the candidate bound costs in quality
    queries = queries[:a.slow_queries]
    kb = keyword_bound(a, pg, queries)
    kw_params = lambda q: {"1": "NULL", "2": "'%s'" % q["t"], "3": str(4 * a.k), "4": "NULL", "5": "true", "6": "NULL"}
    tops = pg.sql(*["SELECT string_agg(id::text, ',') FROM (SELECT id FROM (%s) s (id, doc, vr, kr) "
                    "WHERE kr IS NOT NULL ORDER BY kr LIMIT %d) t" % (
                        re.sub(r"\$(\d+)", lambda m: kw_params(q)[m.group(1)], search_sql()), a.k)
                    for q in queries]).splitlines()
    overlaps = []
    for line, (full, n) in zip(tops, kb):
        got = set(map(int, line.split(","))) if line.strip() else set()
        if full:
            overlaps.append(len(got & full) / len(full))
    kw = lat["keyword"][0][0]
    classes = [("< 1k", 0, 1000), ("1k-10k", 1000, 10000), ("10k-100k", 10000, 100000), (">= 100k", 100000, 1 << 62)]
    by = {}
    for name, lo, hi in classes:
        ms = [t for t, (_, n) in zip(kw, kb) if lo <= n < hi]
        if ms:
            by[name] = dict(percentiles(ms))
    print(json.dumps({"keyword_matching_rows": percentiles([n for _, n in kb], ""),
                      "keyword_overlap_at_%d_with_unbounded" % a.k: round(statistics.mean(overlaps), 4) if overlaps else None,
                      "keyword_queries_with_matches": len(overlaps),
                      "hyrax_keyword_latency_by_matching_rows": by}), flush=True)
    if a.corpus:
        publish(a, pg, env)


# The readers timed by tenant(): the registry's owner (row-level security does not apply), a
# tenant role that reads every chunk (NOINHERIT member of the loaded rows' tenant: the policies
# and hyrax.candidates apply, the owner's privileges do not), and one that reads none.
READERS = (("owner", None), ("tenant reading all rows", "bench_many"), ("tenant reading no rows", "bench_tenant"))


def chunk_scans(pg):
    """The scans of hyrax.chunks so far: by the HNSW index, the GIN index, the btree indexes on
    tenant and visibility (schema version 3), and sequential (the server counts a session's scans
    when it ends: read after the sessions that scanned have ended)."""
    time.sleep(1.0)
    out = pg.sql("SELECT concat_ws(' ', (SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = "
                 "'chunks_embedding'), (SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'chunks_tsv'), "
                 "(SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes WHERE indexrelname IN "
                 "('chunks_tenant', 'chunks_visibility')), (SELECT seq_scan FROM pg_stat_user_tables "
                 "WHERE relid = 'hyrax.chunks'::regclass))").split()
    return [int(x) for x in out]


def schema_version(pg):
    return int(pg.sql("SELECT value FROM hyrax.meta WHERE key = 'schema_version'").strip())


def tenant(a, pg, env, queries):
    """The first --tenant-queries queries as each of READERS, each mode: with --baseline-rev first
    the statement of that revision as plain SQL (pgbench, SET ROLE by its startup options) on the
    schema as found; then `hyrax registry init` (migrating the schema to this build's version),
    and hyrax (hxi_registry_search) and the statement it sends (pgbench) as each reader, with the
    HNSW and GIN index scans per query as the server counted them."""
    data_tenant = pg.sql("SELECT tenant FROM hyrax.chunks LIMIT 1").strip()
    pg.sql("DO $$BEGIN CREATE ROLE bench_tenant; EXCEPTION WHEN duplicate_object THEN NULL; END$$",
           "DO $$BEGIN CREATE ROLE bench_many NOINHERIT; EXCEPTION WHEN duplicate_object THEN NULL; END$$",
           'GRANT "%s" TO bench_many' % data_tenant.replace('"', '""'),
           "CREATE SEQUENCE IF NOT EXISTS public.bench_seq",
           "GRANT SELECT ON public.bench_q TO PUBLIC", "GRANT USAGE ON SEQUENCE public.bench_seq TO PUBLIC")
    readable = {name: int(pg.sql(*(["SET ROLE " + role] if role else []), "SELECT count(*) FROM hyrax.chunks").split()[-1])
                for name, role in READERS}
    n, warm = a.tenant_queries, 2
    print(json.dumps({"tenant_readers": readable, "queries": n}), flush=True)
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, "build")) as tmp:
        qfile = os.path.join(tmp, "queries.tsv")
        with open(qfile, "w") as f:
            f.write("".join(q["v"] + "\t" + q["t"] + "\n" for q in queries))
        if a.baseline_rev:
            version = schema_version(pg)
            for name, role in READERS:
                for mode in MODES:
                    ms = pgbench(pg, tmp, pgbench_script(mode, a.k, a.baseline_rev), n, warm, role)
                    print(json.dumps(dict(engine="plain SQL via pgbench (statement of %s, schema version %d)" % (
                        a.baseline_rev, version), reader=name, mode=mode, **percentiles(ms))), flush=True)
        out = sh([os.path.join(ROOT, "hyrax"), "registry", "init", "--registry", pg.url], env=env)
        print(json.dumps({"registry_init": out.strip()}), flush=True)
        for name, role in READERS:
            for mode in MODES:
                before = chunk_scans(pg)
                out = sh([os.path.join(HERE, "registry_bench"), pg.url, qfile, str(a.k), str(warm), mode,
                          "queries=%d" % n] + (["tenant=" + role] if role else []), env=env, cwd=ROOT)
                per_query = {"%s_scans_per_query" % kind: round((y - x) / (n + warm), 2) for kind, x, y in
                             zip(("hnsw", "gin", "btree", "sequential"), before, chunk_scans(pg))}
                mine = json.loads(out.splitlines()[0])["ms"]
                peer = pgbench(pg, tmp, pgbench_script(mode, a.k), n, warm, role)
                print(json.dumps(dict(engine="hyrax hxi_registry_search", reader=name, mode=mode, **percentiles(mine),
                                      **per_query)), flush=True)
                print(json.dumps(dict(engine="plain SQL via pgbench (same statement)", reader=name, mode=mode,
                                      **percentiles(peer))), flush=True)


def publish(a, pg, env):
    """`hyrax publish --allow-unsigned --tenant bench_pub` over --corpus-limit files of --corpus
    (every n-th in path order, copied under build/): a tenant of its own, set up as README says,
    since publish removes the tenant's documents that are not in the folder; what an earlier run
    published is deleted first."""
    import shutil
    src = os.path.abspath(a.corpus)
    files = sorted(os.path.relpath(os.path.join(d, f), src) for d, _, fs in os.walk(src) for f in fs)
    if a.corpus_limit and a.corpus_limit < len(files):   # every n-th file, spread over the corpus
        files = files[::len(files) // a.corpus_limit][:a.corpus_limit]
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, "build")) as root:
        for f in files:
            os.makedirs(os.path.join(root, os.path.dirname(f)), exist_ok=True)
            shutil.copyfile(os.path.join(src, f), os.path.join(root, f))
        pg.sql("DO $$BEGIN CREATE ROLE bench_pub; EXCEPTION WHEN duplicate_object THEN NULL; END$$",
               "GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA hyrax TO bench_pub",
               "GRANT USAGE ON ALL SEQUENCES IN SCHEMA hyrax TO bench_pub",
               "DELETE FROM hyrax.documents WHERE tenant = 'bench_pub'")
        t0, c0 = time.time(), os.times()
        out = subprocess.run([os.path.join(ROOT, "hyrax"), "publish", "--registry", pg.url, "--tenant", "bench_pub",
                              "--allow-unsigned",
                              "--root", root, "."], capture_output=True, text=True, env=env, cwd=root)
        wall, c1 = time.time() - t0, os.times()
    m = re.search(r"published (\d+), unchanged (\d+).*?; (\d+) chunks \(embedding ([\d.]+) s, registry ([\d.]+) s\)",
                  out.stdout)
    if not m:
        print(json.dumps({"publish_error": out.stdout[-300:] + out.stderr[-300:]}))
        return
    docs, chunks, emb, reg = int(m.group(1)), int(m.group(3)), float(m.group(4)), float(m.group(5))
    print(json.dumps({"publish_files": len(files), "published_documents": docs, "chunks": chunks,
                      "wall_s": round(wall, 2), "hyrax_cpu_s": round(c1.children_user + c1.children_system -
                                                                     c0.children_user - c0.children_system, 1),
                      "embedding_s": emb, "registry_s": reg,
                      "embedding_chunks_per_s": round(chunks / emb, 1) if emb else None,
                      "registry_chunks_per_s": round(chunks / reg, 1) if reg else None,
                      "ratio_registry_over_embedding": round(emb / reg, 1) if reg else None,
                      "load_avg": os.getloadavg()[0]}), flush=True)


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
