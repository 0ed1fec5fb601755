#!/bin/sh
# layers.sh: fails when a file under src/ includes a header from a higher layer, or from another
# folder of its own rank. The layers, lowest first, are the folders of src/:
#   base < crypto, text < model < store < vector, retrieve < ingest < index < service < server < cli
# (a folder's subfolders, such as model/x86, belong to it). include/hyrax.h may be included
# anywhere. Run by `make test` from the repository root; prints one line per offending include and
# a closing tally.
LAYERS="base:0 crypto:1 text:1 model:2 store:3 vector:4 retrieve:4 ingest:5 index:6 service:7 server:8 cli:9"
folder() { f=${1#src/}; echo "${f%%/*}"; }
rank() {
    for l in $LAYERS; do [ "${l%:*}" = "$(folder "$1")" ] && { echo "${l#*:}"; return; }; done
    echo 99
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
        elif [ "$to" = "$from" ] && [ "$(folder "$f")" != "$(folder "$found")" ]; then
            echo "layers: $f includes $found from another folder of its rank"; bad=$((bad + 1))
        fi
    done
done
echo "layers: $n includes checked, $bad out of place"
[ "$bad" = 0 ]
