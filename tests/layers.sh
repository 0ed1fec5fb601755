#!/bin/sh
# layers.sh: fails when a file under src/ includes a header from a higher layer. The layers, lowest
# first, are the folders of src/: base < model < store < retrieve < ingest < index < service < server
# < cli (a folder's subfolders, such as model/x86, belong to it). include/hyrax.h may be included anywhere. Run by `make test` from
# the repository root; prints one line per offending include and a closing tally.
rank() {
    case "$1" in
    src/base/*) echo 0 ;; src/model/*) echo 1 ;; src/store/*) echo 2 ;; src/retrieve/*) echo 3 ;;
    src/ingest/*) echo 4 ;; src/index/*) echo 5 ;; src/service/*) echo 6 ;; src/server/*) echo 7 ;;
    src/cli/*) echo 8 ;; *) echo 99 ;;
    esac
}
bad=0; n=0
for f in $(find src -name '*.[chS]' | sort); do
    from=$(rank "$f")
    if [ "$from" = 99 ]; then
        echo "layers: $f is not in a layer folder (base, model, store, retrieve, ingest, index, service, server, cli)"; bad=$((bad + 1)); continue
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
        fi
    done
done
echo "layers: $n includes checked, $bad out of place"
[ "$bad" = 0 ]
