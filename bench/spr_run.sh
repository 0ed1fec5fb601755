#!/bin/sh
# bench/spr_run.sh: the checks and figures of issue 15 that need the lent Sapphire Rapids device
# (16 cores, AVX512-VNNI, AVX-VNNI, AMX-INT8), in one call: build, the int8 tables against the
# scalar reference (AVX-VNNI and AMX run nowhere else), the int8 gate on the golden texts with the
# table this CPU selects, each table's gemm (bench/gemm_bench), then hyrax against onnxruntime
# built from the same weights (bench/spr_peers.py), then AMX against HYRAX_AMX=0 (hyrax alone: at 16
# threads the peers' spinning threads would share the cores). Logs go to $OUT
# (the device tool's folder) or /tmp. Needs bench/out/texts-{long,short}.txt from bench/embed.py.
set -u
out=${OUT:-/tmp}
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | sed 's/Flags:.*\(avx512_vnni\|amx\).*/Flags: (has avx512_vnni, amx)/' |
    tee "$out/cpu.txt"
make -j16 hyrax build/tests/test_kernels build/tests/test_encoder bench/embed_bench bench/gemm_bench \
    >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
export HYRAX_WEIGHTS="$PWD/weights/all-minilm-l6-v2.hxw"
build/tests/test_kernels >"$out/test_kernels.log" 2>&1; echo "test_kernels rc=$?"
grep -E "gemm_i8|int8|checks" "$out/test_kernels.log"
build/tests/test_encoder >"$out/test_encoder.log" 2>&1; echo "test_encoder rc=$?"
grep -E "int8|checks" "$out/test_encoder.log"
bench/gemm_bench 12 256 >"$out/gemm_bench.log" 2>&1
grep -E "clock|peak|gemm_i8|bound" "$out/gemm_bench.log" | grep -v scalar
python3 bench/spr_peers.py --threads 1,2,16 --reps 3 >"$out/spr_peers.log" 2>&1; echo "spr_peers rc=$?"
grep -A20 "^| threads" "$out/spr_peers.log"
for r in 1 2; do   # AMX and HYRAX_AMX=0 alternately, hyrax alone
  for t in 1 2 16; do
    for amx in 1 0; do
      tp=$(HYRAX_AMX=$amx bench/embed_bench throughput --texts bench/out/texts-long.txt --threads $t \
           --batch 32 --precision int8 | grep -o '"texts_per_s":[0-9.]*')
      lat=$(HYRAX_AMX=$amx bench/embed_bench latency --texts bench/out/texts-short.txt --threads $t \
            --precision int8 | grep -o '"p50_ms":[0-9.]*')
      echo "round $r threads $t HYRAX_AMX=$amx $tp $lat"
    done
  done
done | tee "$out/amx.log"
