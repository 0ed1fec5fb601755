#!/bin/sh
# layers.sh: fails when a file under src/ includes a header from a higher layer, or from another
# folder of its own rank. The layers, lowest first, are the folders of src/:
#   base, unicode < crypto, text < model < store < vector, retrieve < formats < pdf < ingest < index < service < session
#   < server < mcp < http < cli
# (a folder's subfolders, such as model/x86, belong to it). include/hyrax.h may be included
# anywhere. The surfaces (server, mcp, http, cli) are clients of the public API (STYLE.md habit 18):
# they include only hyrax.h, the headers of the surface folders, and the text-format writers
# src/text/json.h (JSON), src/text/prom.h (the Prometheus text format) and src/text/toml.h (a
# TOML table set in a client's configuration by `hyrax install`). Run by `make test` from
# the repository root; prints one line per offending include and a closing tally.
LAYERS="base:0 unicode:0 crypto:1 text:1 model:2 store:3 vector:4 retrieve:4 formats:5 pdf:6 ingest:7 index:8 service:9
        session:10 server:11 mcp:12 http:13 cli:14"
SURFACE=11  # the rank of the first surface folder
folder() { f=${1#src/}; echo "${f%%/*}"; }
rank() {
    for l in $LAYERS; do [ "${l%:*}" = "$(folder "$1")" ] && { echo "${l#*:}"; return; }; done
    echo 99
}
# 0 when surface file $1 may include header $2 (its path under src/).
surface_ok() {
    case "$2" in src/cli/*|src/http/*|src/mcp/*|src/server/*|src/text/json.h|src/text/prom.h|src/text/toml.h) return 0 ;; esac
    return 1
}
bad=0; n=0
for f in $(find src -name '*.[chS]' | sort); do
    from=$(rank "$f")
    if [ "$from" = 99 ]; then
        echo "layers: $f is not in a layer folder ($(echo "$LAYERS" | sed 's/:[0-9]*//g'))"; bad=$((bad + 1)); continue
    fi
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        n=$((n + 1))
        [ "$h" = hyrax.h ] && continue
        found=$(find src -name "$(basename "$h")")
        if [ "$(echo "$found" | grep -c .)" != 1 ]; then
            echo "layers: $f includes \"$h\", which names no single header under src/"; bad=$((bad + 1)); continue
        fi
        to=$(rank "$found")
        if [ "$to" -gt "$from" ]; then
            echo "layers: $f includes $found from a higher layer"; bad=$((bad + 1))
        elif [ "$to" = "$from" ] && [ "$(folder "$f")" != "$(folder "$found")" ] && [ "$from" -lt "$SURFACE" ]; then
            echo "layers: $f includes $found from another folder of its rank"; bad=$((bad + 1))
        elif [ "$from" -ge "$SURFACE" ] && ! surface_ok "$f" "$found"; then
            echo "layers: $f includes $found: a surface includes only hyrax.h, the surface folders (server, mcp, http, cli), src/text/json.h, src/text/prom.h and src/text/toml.h (add what it needs to hyrax.h)"
            bad=$((bad + 1))
        fi
    done
done
echo "layers: $n includes checked, $bad out of place"
[ "$bad" = 0 ]
