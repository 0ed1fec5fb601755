#!/usr/bin/env python3
"""convert_weights.py: turns a sentence-transformers model folder (all-MiniLM-L6-v2: BERT;
all-mpnet-base-v2: MPNet) into hyrax's weights file, and writes tiny synthetic weights files for
tests and fuzzing.
Owns the weights layout below; the container bytes are specified in src/base/hxfile.h (keep in step);
the reader is src/model/model.c. Plain Python + numpy, no torch. Output is deterministic byte for byte.

Usage:
  python tools/convert_weights.py MODEL_DIR weights/all-minilm-l6-v2.hxw
  python tools/convert_weights.py --model mpnet MODEL_DIR weights/all-mpnet-base-v2.hxw
  python tools/convert_weights.py --synthetic fuzz/corpus/weights

Weights layout (container kind 1 = model weights; all sections in this order):
  name       raw  model name, ASCII ("all-MiniLM-L6-v2")
  vocab      raw  vocab.txt verbatim (one token per line, id = line number)
  config     u32  [12] or [16]: vocab size, hidden (= the embedding's dimension), layers, heads,
                  ffn, max positions, type vocab, max_seq_len (256 MiniLM, 384 MPNet),
                  activation (1 = GELU erf), pooling (1 = mean), normalize (1 = L2),
                  architecture (0 = BERT, 1 = MPNet); [16] adds: position offset (the
                  position-embedding row of token 0: MPNet's padding_idx + 1 = 2), relative
                  attention buckets, relative max distance (MPNet: 32, 128), reserved 0.
                  A [12] config is a BERT file without relative attention (all-minilm-l6-v2.hxw).
  ln_eps     f32  [1]: LayerNorm epsilon (every LayerNorm of the model)
  tokenizer  raw  optional, three ASCII lines: tokenizer kind ("wordpiece-lower": BERT
                  normalisation with lower-casing and accent stripping, WordPiece "##"); the
                  tokens that open, close, stand for unknown words and pad ("<s> </s> [UNK]
                  <pad>"); the added tokens matched as literals in raw text. Absent: BERT's
                  "wordpiece-lower", "[CLS] [SEP] [UNK] [PAD]", "[PAD] [UNK] [CLS] [SEP] [MASK]".
  word_emb   f16  [vocab, hidden]
  pos_emb    f16  [max positions, hidden]
  type_emb   f16  [type vocab, hidden] (MPNet has none: one row of zeros)
  emb_ln_w, emb_ln_b                f32 [hidden]
  rel_bias   f32  [buckets, heads]: relative attention bias shared by every layer (MPNet only),
                  added to the attention scores as HF MPNetEncoder.compute_position_bias does
  per layer L (0-based), names "L<L>.<what>":
  qkv_w      f16  [3*hidden, hidden]  rows: query, then key, then value (nn.Linear [out, in])
  qkv_b      f32  [3*hidden]
  o_w f16 [hidden, hidden]; o_b f32 [hidden]; ln1_w, ln1_b f32 [hidden]
  ffn1_w f16 [ffn, hidden]; ffn1_b f32 [ffn]; ffn2_w f16 [hidden, ffn]; ffn2_b f32 [hidden]
  ln2_w, ln2_b f32 [hidden]
"""
import hashlib
import json
import os
import struct
import sys

import numpy as np

ARCH_BERT, ARCH_MPNET = 0, 1

# The models this converter accepts: their input files' SHA-256 (it refuses anything else; the
# same hashes are in weights/README.md), output name, architecture and sentence-transformers'
# max_seq_length.
MODELS = {
    "minilm": {
        "name": "all-MiniLM-L6-v2", "arch": ARCH_BERT, "max_seq": 256,
        "sha256": {
            "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
            "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        },
    },
    "mpnet": {
        "name": "all-mpnet-base-v2", "arch": ARCH_MPNET, "max_seq": 384,
        "sha256": {
            "model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
            "config.json": "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
            "vocab.txt": "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
            "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
            "sentence_bert_config.json":
                "cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667",
            "1_Pooling/config.json":
                "a37f83ada23e7887be6b88f4998927dbeac0038af301553c7cd5461413bf1a56",
        },
    },
}

# === Container (src/base/hxfile.h) ===

MAGIC = b"HYRAXF\r\n"
VERSION = 1
KIND_WEIGHTS = 1
ALIGN = 64
DT_RAW, DT_F32, DT_F16, DT_U32 = 0, 1, 2, 3


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc_table()


def crc32c(data, crc=0):
    """CRC32C (Castagnoli), reflected, as hxf_crc32c; crc32c(b"123456789") == 0xE3069283."""
    t = CRC_TABLE
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


class Writer:
    """Writes sections as hxf_writer does: 64-byte header placeholder, each section padded to a
    64-byte boundary, then the table, then the real header at offset 0."""

    def __init__(self):
        self.buf = bytearray(64)
        self.table = bytearray()
        self.names = set()

    def _pad(self):
        self.buf += bytes((-len(self.buf)) % ALIGN)

    def add(self, name, dtype, dims, data):
        assert 0 < len(name) <= 20 and name.isascii() and name not in self.names, name
        assert len(dims) <= 4
        self.names.add(name)
        self._pad()
        e = bytearray(64)
        e[0:len(name)] = name.encode("ascii")
        struct.pack_into("<II", e, 20, dtype, len(dims))
        for d, v in enumerate(dims):
            struct.pack_into("<I", e, 28 + 4 * d, v)
        struct.pack_into("<QQI", e, 44, len(self.buf), len(data), crc32c(data))
        self.table += e
        self.buf += data

    def add_f16(self, name, array):
        a = np.ascontiguousarray(array, dtype=np.float32).astype("<f2")
        self.add(name, DT_F16, list(a.shape), a.tobytes())

    def add_f32(self, name, array):
        a = np.ascontiguousarray(array, dtype="<f4")
        self.add(name, DT_F32, list(a.shape), a.tobytes())

    def finish(self):
        self._pad()
        table_off = len(self.buf)
        self.buf += self.table
        h = bytearray(64)
        h[0:8] = MAGIC
        struct.pack_into("<IIQII", h, 8, VERSION, KIND_WEIGHTS, table_off, len(self.table) // 64,
                         crc32c(self.table))
        struct.pack_into("<Q", h, 32, len(self.buf))
        struct.pack_into("<I", h, 60, crc32c(bytes(h[:60])))
        self.buf[0:64] = h
        return bytes(self.buf)


# === Model ===

# HF tensor names per architecture: embeddings, then per layer (prefix "encoder.layer.N.").
BERT_NAMES = {"qkv": "attention.self.%s", "qkv_parts": ("query", "key", "value"),
              "o": "attention.output.dense", "ln1": "attention.output.LayerNorm"}
MPNET_NAMES = {"qkv": "attention.attn.%s", "qkv_parts": ("q", "k", "v"),
               "o": "attention.attn.o", "ln1": "attention.LayerNorm"}


def write_model(name, vocab_bytes, cfg, eps, t, arch=ARCH_BERT, tokenizer=None):
    """cfg: dict of config ints; t: dict of HF tensor name -> float32 ndarray; tokenizer: the
    "tokenizer" section's text, or None (BERT's defaults)."""
    H, L = cfg["hidden"], cfg["layers"]
    nm = MPNET_NAMES if arch == ARCH_MPNET else BERT_NAMES
    w = Writer()
    w.add("name", DT_RAW, [], name.encode("ascii"))
    w.add("vocab", DT_RAW, [], vocab_bytes)
    conf = [cfg["vocab"], H, L, cfg["heads"], cfg["ffn"], cfg["max_pos"], cfg["type_vocab"],
            cfg["max_seq"], 1, 1, 1, arch]
    if arch == ARCH_MPNET:
        conf += [cfg["pos_offset"], cfg["rel_buckets"], cfg["rel_max_distance"], 0]
    w.add("config", DT_U32, [len(conf)], struct.pack("<%dI" % len(conf), *conf))
    w.add_f32("ln_eps", np.array([eps], dtype=np.float32))
    if tokenizer is not None:
        w.add("tokenizer", DT_RAW, [], tokenizer.encode("ascii"))
    w.add_f16("word_emb", t["embeddings.word_embeddings.weight"])
    w.add_f16("pos_emb", t["embeddings.position_embeddings.weight"])
    w.add_f16("type_emb", t.get("embeddings.token_type_embeddings.weight",
                                np.zeros((cfg["type_vocab"], H), dtype=np.float32)))
    w.add_f32("emb_ln_w", t["embeddings.LayerNorm.weight"])
    w.add_f32("emb_ln_b", t["embeddings.LayerNorm.bias"])
    if arch == ARCH_MPNET:
        w.add_f32("rel_bias", t["encoder.relative_attention_bias.weight"])
    for i in range(L):
        p = "encoder.layer.%d." % i
        s = p + nm["qkv"]
        w.add_f16("L%d.qkv_w" % i, np.concatenate(
            [t[s % part + ".weight"] for part in nm["qkv_parts"]], axis=0))
        w.add_f32("L%d.qkv_b" % i, np.concatenate(
            [t[s % part + ".bias"] for part in nm["qkv_parts"]], axis=0))
        w.add_f16("L%d.o_w" % i, t[p + nm["o"] + ".weight"])
        w.add_f32("L%d.o_b" % i, t[p + nm["o"] + ".bias"])
        w.add_f32("L%d.ln1_w" % i, t[p + nm["ln1"] + ".weight"])
        w.add_f32("L%d.ln1_b" % i, t[p + nm["ln1"] + ".bias"])
        w.add_f16("L%d.ffn1_w" % i, t[p + "intermediate.dense.weight"])
        w.add_f32("L%d.ffn1_b" % i, t[p + "intermediate.dense.bias"])
        w.add_f16("L%d.ffn2_w" % i, t[p + "output.dense.weight"])
        w.add_f32("L%d.ffn2_b" % i, t[p + "output.dense.bias"])
        w.add_f32("L%d.ln2_w" % i, t[p + "output.LayerNorm.weight"])
        w.add_f32("L%d.ln2_b" % i, t[p + "output.LayerNorm.bias"])
    return w.finish()


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack_from("<Q", raw, 0)
    header = json.loads(raw[8:8 + n])
    out = {}
    for key, v in header.items():
        if key == "__metadata__":
            continue
        begin, end = v["data_offsets"]
        if v["dtype"] != "F32":
            continue  # embeddings.position_ids (I64) is not a weight
        a = np.frombuffer(raw, dtype="<f4", count=(end - begin) // 4, offset=8 + n + begin)
        out[key] = a.reshape(v["shape"]).astype(np.float32)
    return out


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tokenizer_section(model_dir):
    """The "tokenizer" section's text from an HF tokenizer.json (RobertaProcessing, WordPiece)."""
    with open(os.path.join(model_dir, "tokenizer.json"), encoding="utf-8") as f:
        tj = json.load(f)
    norm, model, post = tj["normalizer"], tj["model"], tj["post_processor"]
    if (norm.get("type") != "BertNormalizer" or not norm.get("lowercase") or
            norm.get("strip_accents") not in (None, True) or model.get("type") != "WordPiece" or
            model.get("continuing_subword_prefix") != "##" or
            model.get("max_input_chars_per_word") != 100 or
            tj["pre_tokenizer"].get("type") != "BertPreTokenizer"):
        sys.exit("unsupported tokenizer.json: %s %s" % (norm, model.get("type")))
    roles = [post["cls"][0], post["sep"][0], model["unk_token"], tj["padding"]["pad_token"]]
    literals = [a["content"] for a in tj["added_tokens"]]
    return "wordpiece-lower\n%s\n%s\n" % (" ".join(roles), " ".join(literals))


def convert(model_dir, out_path, which="minilm"):
    spec = MODELS[which]
    for fname, want in spec["sha256"].items():
        got = sha256(os.path.join(model_dir, fname))
        if got != want:
            sys.exit("%s: SHA-256 %s, expected %s; refusing to convert" % (fname, got, want))
    with open(os.path.join(model_dir, "config.json")) as f:
        c = json.load(f)
    arch = spec["arch"]
    if c.get("hidden_act") != "gelu" or c.get("position_embedding_type", "absolute") != "absolute":
        sys.exit("unsupported config: %s" % c)
    cfg = {"vocab": c["vocab_size"], "hidden": c["hidden_size"], "layers": c["num_hidden_layers"],
           "heads": c["num_attention_heads"], "ffn": c["intermediate_size"],
           "max_pos": c["max_position_embeddings"], "type_vocab": c.get("type_vocab_size", 1),
           "max_seq": spec["max_seq"]}
    tokenizer = None
    if arch == ARCH_MPNET:
        if c.get("model_type") != "mpnet":
            sys.exit("unsupported config: %s" % c)
        cfg.update(pos_offset=c["pad_token_id"] + 1,
                   rel_buckets=c["relative_attention_num_buckets"], rel_max_distance=128)
        tokenizer = tokenizer_section(model_dir)
        with open(os.path.join(model_dir, "sentence_bert_config.json")) as f:
            if json.load(f)["max_seq_length"] != spec["max_seq"]:
                sys.exit("sentence_bert_config.json: max_seq_length is not %d" % spec["max_seq"])
    with open(os.path.join(model_dir, "vocab.txt"), "rb") as f:
        vocab = f.read()
    t = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    data = write_model(spec["name"], vocab, cfg, float(c["layer_norm_eps"]), t, arch, tokenizer)
    del t
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out_path)
    print("%s: %d bytes, sha256 %s" % (out_path, len(data), hashlib.sha256(data).hexdigest()))


# === Synthetic tiny models (fuzz seeds) ===

TINY_VOCAB = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "of", "and",
              "search", "engine", "hyrax", "##s", "##ing", ".", ",", "!", "?", "x"]


def tiny_model(seed, hidden=8, heads=2, layers=1, ffn=16, max_pos=16, max_seq=12):
    rng = np.random.default_rng(seed)
    V = len(TINY_VOCAB)
    cfg = {"vocab": V, "hidden": hidden, "layers": layers, "heads": heads, "ffn": ffn,
           "max_pos": max_pos, "type_vocab": 2, "max_seq": max_seq}
    r = lambda *shape: rng.standard_normal(shape).astype(np.float32) * 0.5
    t = {"embeddings.word_embeddings.weight": r(V, hidden),
         "embeddings.position_embeddings.weight": r(max_pos, hidden),
         "embeddings.token_type_embeddings.weight": r(2, hidden),
         "embeddings.LayerNorm.weight": 1 + r(hidden) * 0.1,
         "embeddings.LayerNorm.bias": r(hidden) * 0.1}
    for i in range(layers):
        p = "encoder.layer.%d." % i
        for n in ("query", "key", "value"):
            t[p + "attention.self.%s.weight" % n] = r(hidden, hidden)
            t[p + "attention.self.%s.bias" % n] = r(hidden)
        t[p + "attention.output.dense.weight"] = r(hidden, hidden)
        t[p + "attention.output.dense.bias"] = r(hidden)
        t[p + "intermediate.dense.weight"] = r(ffn, hidden)
        t[p + "intermediate.dense.bias"] = r(ffn)
        t[p + "output.dense.weight"] = r(hidden, ffn)
        t[p + "output.dense.bias"] = r(hidden)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            t[p + ln + ".weight"] = 1 + r(hidden) * 0.1
            t[p + ln + ".bias"] = r(hidden) * 0.1
    vocab = ("\n".join(TINY_VOCAB) + "\n").encode("ascii")
    return write_model("tiny-bert", vocab, cfg, 1e-12, t)


def tiny_mpnet(seed, hidden=8, heads=2, layers=2, ffn=16, max_pos=16, max_seq=12):
    """A tiny MPNet: relative attention bias (8 buckets, max distance 16), positions from 2, the
    tokenizer section with MPNet's roles."""
    rng = np.random.default_rng(seed)
    vocab_list = ["<s>", "<pad>", "</s>", "<unk>"] + TINY_VOCAB + ["<mask>"]
    V = len(vocab_list)
    cfg = {"vocab": V, "hidden": hidden, "layers": layers, "heads": heads, "ffn": ffn,
           "max_pos": max_pos, "type_vocab": 1, "max_seq": max_seq, "pos_offset": 2,
           "rel_buckets": 8, "rel_max_distance": 16}
    r = lambda *shape: rng.standard_normal(shape).astype(np.float32) * 0.5
    t = {"embeddings.word_embeddings.weight": r(V, hidden),
         "embeddings.position_embeddings.weight": r(max_pos, hidden),
         "embeddings.LayerNorm.weight": 1 + r(hidden) * 0.1,
         "embeddings.LayerNorm.bias": r(hidden) * 0.1,
         "encoder.relative_attention_bias.weight": r(8, heads)}
    for i in range(layers):
        p = "encoder.layer.%d." % i
        for n in ("q", "k", "v", "o"):
            t[p + "attention.attn.%s.weight" % n] = r(hidden, hidden)
            t[p + "attention.attn.%s.bias" % n] = r(hidden)
        t[p + "intermediate.dense.weight"] = r(ffn, hidden)
        t[p + "intermediate.dense.bias"] = r(ffn)
        t[p + "output.dense.weight"] = r(hidden, ffn)
        t[p + "output.dense.bias"] = r(hidden)
        for ln in ("attention.LayerNorm", "output.LayerNorm"):
            t[p + ln + ".weight"] = 1 + r(hidden) * 0.1
            t[p + ln + ".bias"] = r(hidden) * 0.1
    vocab = ("\n".join(vocab_list) + "\n").encode("ascii")
    tokenizer = "wordpiece-lower\n<s> </s> [UNK] <pad>\n<s> <pad> </s> <unk> [UNK] <mask>\n"
    return write_model("tiny-mpnet", vocab, cfg, 1e-5, t, ARCH_MPNET, tokenizer)


def synthetic(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    files = {
        "tiny_h8_l1.hxw": tiny_model(1),
        "tiny_h8_l2.hxw": tiny_model(2, layers=2),
        "tiny_h12_h3.hxw": tiny_model(3, hidden=12, heads=3, ffn=8, max_seq=16),
        "tiny_mpnet.hxw": tiny_mpnet(4),
    }
    base = files["tiny_h8_l1.hxw"]
    files["trunc_header.hxw"] = base[:40]
    files["trunc_half.hxw"] = base[:len(base) // 2]
    files["trunc_last.hxw"] = base[:-1]
    flipped = bytearray(base)
    flipped[200] ^= 0x04
    files["flip_data.hxw"] = bytes(flipped)
    for name, data in sorted(files.items()):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        print("%s/%s: %d bytes" % (out_dir, name, len(data)))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--synthetic":
        synthetic(sys.argv[2])
    elif len(sys.argv) == 3:
        convert(sys.argv[1], sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "--model" and sys.argv[2] in MODELS:
        convert(sys.argv[3], sys.argv[4], sys.argv[2])
    else:
        sys.exit(__doc__)
