#!/bin/sh
# tiers_bench.sh: one tier against two on the KEP corpus (`hyrax help tiers`; issue 12's target: two
# tiers at most 1.3x one tier's query time). Builds, once, under bench/out/tiers: the project index
# of every KEP and a user index of a sizeable subset (sig-node, about a fifth of the chunks; the
# same files, so the same content hashes as a sync would give), both at --precision int8 (the
# faster embedding leaves the search a larger share of the query time), then runs
# bench/tiers_bench over bench/queries_keps.txt. usage: bench/tiers_bench.sh [KEPS] [ROUNDS] [SUBSET]
# (SUBSET: the folder under KEPS the user index holds; default sig-node).
set -eu
cd "$(dirname "$0")/.."
keps=${1:-../shared/corpora/keps}
rounds=${2:-3}
subset=${3:-sig-node}
out=bench/out/tiers
mkdir -p "$out"
make -s hyrax bench/tiers_bench
[ -f "$out/project.hyx" ] || ./hyrax index --precision int8 --db "$out/project.hyx" "$keps" >&2
[ -f "$out/user.hyx" ] || ./hyrax index --precision int8 --db "$out/user.hyx" "$keps/$subset" >&2
bench/tiers_bench "$out/project.hyx" "$out/user.hyx" bench/queries_keps.txt "$rounds"
