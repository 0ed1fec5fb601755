"""hyrax against onnxruntime fp32 and int8 on a machine that has torch, transformers and onnxruntime
but neither the model package nor a network: the lent Sapphire Rapids device (16 cores, AMX). The
peer models are built there from hyrax's own weights file (bench/export_onnx.py --from-hxw, then
onnxruntime's quantize_dynamic(per_channel=True), as bench/embed.py does), so every engine embeds
the same fp16 weights; the engines and timing loops are bench/embed.py's.

Measures, for each thread count: 256-token texts/s (batches of 32, engines taking turns pass by
pass, median of --reps) and one short query's p50 (200 calls). Needs bench/out/texts-long.txt and
texts-short.txt from a bench/embed.py run, and bench/embed_bench built. Prints JSON lines and a
Markdown table.

Run: python3 bench/spr_peers.py [--threads 1,2,16] [--reps 3]
"""
import argparse
import json
import os
import pathlib
import platform
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import embed  # noqa: E402  (its engines, texts and timing loops)


class Ort(embed.OnnxRuntime):
    """embed.py's onnxruntime engine with the tokenizer built from the weights file."""

    def __init__(self, model, name, tokenizer):
        import numpy as np
        from tokenizers import Tokenizer
        self.model, self.name, self.np, self.sess = model, name, np, None
        self.tok = Tokenizer.from_file(str(tokenizer))
        self.tok.enable_truncation(256)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")


def build_peers(out):
    import subprocess
    onnx, onnx8, tok = out / "spr.onnx", out / "spr-int8.onnx", out / "spr-tokenizer.json"
    subprocess.run([sys.executable, str(embed.BENCH / "export_onnx.py"), "--from-hxw", str(embed.WEIGHTS),
                    "--tokenizer", str(tok), "--out", str(onnx)], check=True)
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(str(onnx), str(onnx8), per_channel=True, weight_type=QuantType.QInt8)
    return onnx, onnx8, tok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2,16")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import onnxruntime
    onnx, onnx8, tok = build_peers(embed.OUT)
    long_texts = (embed.OUT / "texts-long.txt").read_text().splitlines()
    short_texts = (embed.OUT / "texts-short.txt").read_text().splitlines()
    engines = [embed.Hyrax("fp32"), Ort(onnx, "onnxruntime", tok), embed.Hyrax("int8"),
               Ort(onnx8, "onnxruntime-int8", tok)]
    rows = {}
    for n in [int(t) for t in args.threads.split(",")]:
        for e in engines:
            e.set_threads(n)
        for name, (secs, _) in embed.throughput(engines, "long", long_texts, args.reps).items():
            rows[(name, n, "long")] = len(long_texts) / secs
        for e in engines:
            if isinstance(e, embed.Hyrax):
                p50 = e.latency(n)[0]
            else:
                p50 = embed.py_latency(e, short_texts)[0]
            rows[(e.name, n, "p50")] = p50
        for e in engines:
            if isinstance(e, embed.Hyrax):
                e.close()
    for (name, n, what), v in rows.items():
        print(json.dumps({"bench": "spr_peers", "engine": name, "threads": n,
                          "metric": "texts_per_s_long" if what == "long" else "latency_p50_ms", "value": v}))
    print(f"\n{platform.processor() or platform.machine()}, onnxruntime {onnxruntime.__version__}\n")
    print("| threads | figure | hyrax fp32 | ORT fp32 | hyrax int8 | ORT int8 | fp32 ratio | int8 ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for n in [int(t) for t in args.threads.split(",")]:
        for what, label in (("long", "256-token texts/s"), ("p50", "one short query p50 ms")):
            v = [rows[(e, n, what)] for e in ("hyrax", "onnxruntime", "hyrax-int8", "onnxruntime-int8")]
            r = (v[0] / v[1], v[2] / v[3]) if what == "long" else (v[1] / v[0], v[3] / v[2])
            print(f"| {n} | {label} | {v[0]:.2f} | {v[1]:.2f} | {v[2]:.2f} | {v[3]:.2f} | {r[0]:.2f}x | {r[1]:.2f}x |")


if __name__ == "__main__":
    main()
