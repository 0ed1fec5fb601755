#!/bin/sh
# reuse_bench.sh: the cost of re-indexing after a folder is moved (git mv). Copies FOLDER (a folder
# of KEPs) into a fresh git repository, indexes it with BIN, moves the folder with git mv, indexes
# again, and prints each run's summary lines and wall time. Run it once per binary to compare
# (bench/RESULTS-reuse.md).
#   bench/reuse_bench.sh BIN FOLDER WORKDIR [THREADS]
set -eu
bin=$1 folder=$2 work=$3 threads=${4:-2}
rm -rf "$work"
mkdir -p "$work/root/keps"
cp -r "$folder" "$work/root/keps/"
name=$(basename "$folder")
(cd "$work/root" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm corpus)
run() {
    start=$(date +%s.%N)
    "$bin" index --db "$work/index.hyx" --threads "$threads" "$work/root" >"$work/out" 2>/dev/null
    end=$(date +%s.%N)
    grep -E '^(added|embedded)' "$work/out"
    echo "$1: $(echo "$end - $start" | bc) s wall"
}
run "first index"
(cd "$work/root" && git mv "keps/$name" "keps/$name-moved")
run "after git mv"
