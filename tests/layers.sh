#!/bin/sh
# layers.sh: fails when a file under src/ includes a header from a higher layer. The layers, lowest
# first, are the folders of src/: base < model < store < retrieve < ingest < index < service < server
# < cli (a folder's subfolders, such as model/x86, belong to it). include/hyrax.h may be included anywhere. The
# surfaces (src/cli, src/server) are clients of the public API (STYLE.md habit 18): they include only
# hyrax.h, the headers of src/cli and src/server, and src/base/json.h (the JSON writer); the server's
# remaining internal includes are listed in `known` below, which may only shrink. Run by `make test`
# from the repository root; prints one line per offending include and a closing tally.
rank() {
    case "$1" in
    src/base/*) echo 0 ;; src/model/*) echo 1 ;; src/store/*) echo 2 ;; src/retrieve/*) echo 3 ;;
    src/ingest/*) echo 4 ;; src/index/*) echo 5 ;; src/service/*) echo 6 ;; src/server/*) echo 7 ;;
    src/cli/*) echo 8 ;; *) echo 99 ;;
    esac
}
# Surface files that still include an internal header ("FILE HEADER" lines): the server's, until it
# is an adapter of the session API like the command line. A new internal include fails; an entry
# whose include is gone is reported so the list shrinks.
known='
src/server/http.c alloc.h
src/server/http_server.c alloc.h
src/server/http_server.c platform.h
src/server/mcp.c alloc.h
src/server/mcp.c relpath.h
src/server/mcp.h memory.h
src/server/mcp_args.h filter.h
src/server/mcp_internal.h stats.h
src/server/mcp_jobs.c alloc.h
src/server/mcp_jobs.c relpath.h
src/server/mcp_resources.c alloc.h
src/server/mcp_resources.c fsafe.h
src/server/mcp_tool_admin.c alloc.h
src/server/mcp_tool_admin.c publish.h
src/server/mcp_tool_docs.c ingest.h
src/server/mcp_tool_search.c fusion.h
src/server/mcp_tools.c fsafe.h
src/server/mcp_tools.h registry.h
src/server/mcp_tools.h relpath.h
src/server/metrics.c alloc.h
src/server/metrics.c prom.h
src/server/present.h registry.h
src/server/rpc.c alloc.h
src/server/watch.c alloc.h
src/server/watch.c platform.h
src/server/watch.c relpath.h
src/server/watch.c store.h
src/server/watch.h stats.h
'
# 0 when surface file $1 may include header $2 (its path under src/).
surface_ok() {
    case "$2" in src/cli/*|src/server/*|src/base/json.h) return 0 ;; esac
    echo "$known" | grep -qxF "$1 $(basename "$2")"
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
        elif [ "$from" -ge 7 ] && ! surface_ok "$f" "$found"; then
            echo "layers: $f includes $found: a surface includes only hyrax.h, src/cli, src/server and src/base/json.h (add what it needs to hyrax.h)"
            bad=$((bad + 1))
        fi
    done
done
echo "$known" | while read -r f h; do
    [ -n "$f" ] && ! grep -Eq "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$h\"" "$f" 2>/dev/null &&
        echo "layers: note: $f no longer includes $h: remove the line from the known list"
done
echo "layers: $n includes checked, $bad out of place"
[ "$bad" = 0 ]
