#!/usr/bin/env bash
# End-to-end check of `hyrax serve` with the official MCP inspector CLI
# (@modelcontextprotocol/inspector --cli): lists the tools, then calls every read tool and one
# write tool on a small corpus and checks each answer is a successful tool result.
#   tools/e2e/inspector_check.sh INSPECTOR_BIN [HYRAX]
# Run by .ci/run; ends with the line "N passed, N failed".
set -u
inspector=$1
hyrax=$(realpath "${2:-./hyrax}")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/docs"
printf '# Scheduler\n\nThe kube-scheduler assigns pods to nodes.\n' > "$root/docs/a.md"
printf '# Bread\n\nBake sourdough bread at home.\n' > "$root/docs/b.md"
"$hyrax" index --db "$root/.hyrax/index.hyx" "$root" > /dev/null || exit 1
passed=0; failed=0
# run NAME CHECK-JS INSPECTOR-ARGS...: CHECK-JS gets the parsed answer as `r`
run() {
    local name=$1 js=$2; shift 2
    local out
    out=$(timeout 120 "$inspector" --cli "$hyrax" serve ${TOOLS:---tools all} --db "$root/.hyrax/index.hyx" --root "$root" "$@" 2>/dev/null)
    if printf '%s' "$out" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s);process.exit(($js)?0:1)})"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: $name: ${out:0:300}" >&2
    fi
}
ok='!r.isError && r.structuredContent'
run tools/list 'r.tools.length === 23 && r.tools.every(t => t.inputSchema && t.outputSchema)' --method tools/list
TOOLS="--tools core" run core-list 'r.tools.length === 8 && JSON.stringify(r).length <= 12288' --method tools/list
run search "$ok && r.structuredContent.results[0].citation.path === 'docs/b.md'" \
    --method tools/call --tool-name search --tool-arg query=bread
run keyword "$ok && r.structuredContent.results.length === 1" \
    --method tools/call --tool-name search --tool-arg query=kube-scheduler --tool-arg mode=keyword
run get_context "$ok && r.structuredContent.context.length > 0" \
    --method tools/call --tool-name get_context --tool-arg query=pods
run full_text_search "$ok && r.structuredContent.results[0].citation.path === 'docs/b.md'" \
    --method tools/call --tool-name full_text_search --tool-arg query=bread
run find_similar "$ok" --method tools/call --tool-name find_similar --tool-arg text=baking
run list_documents "$ok && r.structuredContent.total === 2" --method tools/call --tool-name list_documents
run get_document "$ok && r.structuredContent.chunks.length === 1" \
    --method tools/call --tool-name get_document --tool-arg path=docs/a.md
run document_status "$ok && r.structuredContent.status === 'complete'" \
    --method tools/call --tool-name document_status --tool-arg path=docs/b.md
run index_health "$ok && r.structuredContent.documents === 2" --method tools/call --tool-name index_health
run reindex "$ok && r.structuredContent.unchanged === 2 && r.structuredContent.searchable" \
    --method tools/call --tool-name reindex
run bad-argument 'r.isError === true' --method tools/call --tool-name search --tool-arg query=x --tool-arg mode=magic

# The same server over HTTP (hyrax serve --http), through the inspector's Streamable HTTP transport.
log=$(mktemp)   # outside the root, which reindex reads
"$hyrax" serve --http 127.0.0.1:0 --tools all --db "$root/.hyrax/index.hyx" --root "$root" 2> "$log" &
http_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
url="http://$(sed -n 's/.*listening on http:\/\///p' "$log")/mcp"
run_http() {
    local name=$1 js=$2; shift 2
    local out
    out=$(timeout 120 "$inspector" --cli "$url" --transport http "$@" 2>/dev/null)
    if printf '%s' "$out" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s);process.exit(($js)?0:1)})"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: http $name: ${out:0:300}" >&2
    fi
}
run_http tools/list 'r.tools.length === 23' --method tools/list
run_http search "$ok && r.structuredContent.results[0].citation.path === 'docs/b.md'" \
    --method tools/call --tool-name search --tool-arg query=bread
run_http reindex "$ok && r.structuredContent.unchanged === 2" --method tools/call --tool-name reindex
run_http resources/list 'r.resources.length === 2 && r.resources[0].uri === "hyrax://doc/docs/a.md"' --method resources/list
kill "$http_pid"; wait "$http_pid" || { failed=$((failed + 1)); echo "FAIL: http server exit" >&2; }
rm -f "$log"
echo "mcp inspector e2e: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
