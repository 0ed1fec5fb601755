#!/bin/sh
# one_place.sh: rules that are written once (STYLE.md habit 14) and were once written twice. Each
# check names a pattern and the one file allowed to hold it; a second copy anywhere in its folders
# fails. Run by `make test` from the repository root; prints one line per copy and a closing tally.
bad=0
# once PATTERN HOME DESCRIPTION FOLDER...: lines matching PATTERN (grep BRE) stand in HOME only.
once() {
    pattern=$1; home=$2; what=$3; shift 3
    if ! grep -q -- "$pattern" "$home"; then
        echo "one_place: $home lacks $what"; bad=$((bad + 1))
    fi
    for f in $(grep -rl --include='*.[ch]' -- "$pattern" "$@" | grep -v -x -- "$home"); do
        grep -n -- "$pattern" "$f" | sed "s|^|one_place: $f:|; s|$| ($what belongs in $home)|"
        bad=$((bad + 1))
    done
}

once '^static.* read_queries(' bench/bench_util.h "the benchmarks' query-file reader" bench
once '^static.* die(const char \*what, const hx_error' bench/bench_util.h "the benchmarks' error exit" bench
once 'dup2([^,]*, 0)' tests/serve_client.h "starting hyrax serve with its stdin on a pipe" tests
once 'TYPE %s\|TYPE hyrax_\|%s_bucket' src/text/prom.c "the Prometheus text format (HELP/TYPE lines, histogram series)" src
once 'reason = hx_' src/ingest/ingest.c "appending a rejected document (hxi_rejected_add)" src/index
once 'hxi_json_val \*\(serve_\)\?request(server' tests/serve_client.h "sending a line to serve and parsing its answer" tests
once '"tenant", "public"' src/service/publish.c "the visibilities publish accepts" src

echo "one_place: $bad problems"
[ "$bad" = 0 ]
