#!/usr/bin/env bash
# tests/dist.sh: the packages of `make dist`, installed from clean places and run offline: the
# wheel into an empty venv (pip) and through uvx, the npm tarballs into an empty folder (npm
# install) and through npx, the .deb with dpkg into an empty root, the OCI image unpacked by umoci
# and run in its own root file system, the .mcpb checked by the official mcpb CLI and run as its
# manifest says. Each installed copy indexes a note, searches it, and answers an MCP initialize and
# a search (JSON-RPC on stdio). Also: every package carries the same binary, byte for byte, and the
# MCP registry's name and file hashes agree across server.json and the packages. Prints the time
# from install to first answer for pip, uvx and npx.
#   tests/dist.sh            (make dist first; DIST_BUILT=1 uses build/dist as it is)
# Needs node/npm, python3 with venv, dpkg, umoci, unshare; fetches the mcpb CLI (npm) and uv (PyPI)
# into build/dist-tools. Run by .ci/run; ends with the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dist=$repo/build/dist
tools=$repo/build/dist-tools
MCPB_VERSION=2.1.2
UV_VERSION=0.13.8

[ -n "${DIST_BUILT:-}" ] || make -j2 dist >/dev/null || exit 1
version=$(sed -n 's/^#define HX_VERSION_STRING "\(.*\)"/\1/p' include/hyrax.h)
mcp_name=$(sed -n 's/^MCP_NAME = "\([^"]*\)".*/\1/p' tools/dist/meta.py)
mkdir -p "$tools"
[ -x "$tools/node_modules/.bin/mcpb" ] ||
    npm install -q --no-audit --no-fund --prefix "$tools" "@anthropic-ai/mcpb@$MCPB_VERSION" >/dev/null || exit 1
[ -x "$tools/venv/bin/uvx" ] || { python3 -m venv "$tools/venv" && "$tools/venv/bin/pip" install -q "uv==$UV_VERSION"; } || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
now() { date +%s.%N; }
secs() { awk "BEGIN { printf \"%.1f\", $2 - $1 }"; }

# A folder with one note: what every installed copy indexes and searches.
note_folder() {
    mkdir -p "$1"
    printf '# Pods\n\nThe kube-scheduler places pods on nodes.\n' > "$1/pods.md"
    printf '# Bread\n\nBake sourdough bread at home.\n' > "$1/bread.md"
}

# cli_check NAME FOLDER CMD...: `CMD index FOLDER` then `CMD search` from FOLDER finds pods.md.
cli_check() {
    local name=$1 folder=$2; shift 2
    local out
    out=$( (cd "$folder" && "$@" index . >/dev/null && "$@" search -k 1 --json "where do pods get placed") 2>&1)
    case "$out" in *'"path":"pods.md"'*) ok ;; *) fail "$name: index + search: ${out:0:300}" ;; esac
}

# mcp_check NAME REINDEX CMD...: CMD (an MCP server on stdio) answers initialize, then (REINDEX=1)
# the reindex tool, then a search whose first citation is pods.md; each request waits for the
# answer to the one before, as a client does.
mcp_check() {
    local name=$1 reindex=$2; shift 2
    local log=$tmp/mcp-$name.log line
    coproc MCP { timeout 120 "$@" 2>"$log.err"; }
    # ask ID JSON: sends JSON, reads lines up to the answer with that id into $line.
    ask() {
        echo "$2" >&"${MCP[1]}"
        while IFS= read -r line <&"${MCP[0]}"; do
            echo "$line" >> "$log"
            case "$line" in *"\"id\":$1,"*) return 0 ;; esac
        done
        return 1
    }
    if ! ask 1 '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"dist.sh","version":"1"}}}' ||
       [[ $line != *'"serverInfo":{"name":"hyrax"'* ]]; then
        fail "$name: MCP initialize: $(head -c 300 "$log.err") ${line:0:300}"
    else
        echo '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&"${MCP[1]}"
        if [ "$reindex" = 1 ] && ! ask 2 '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"reindex","arguments":{}}}'; then
            fail "$name: MCP reindex: ${line:0:300}"
        elif ! ask 3 '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"where do pods get placed","top_k":1}}}'; then
            fail "$name: MCP search: no answer: $(head -c 300 "$log.err")"
        else
            case "$line" in
                *'"isError":true'*) fail "$name: MCP search: ${line:0:300}" ;;
                *'\"path\":\"pods.md\"'*) ok ;;
                *) fail "$name: MCP search found no pods.md: ${line:0:300}" ;;
            esac
        fi
    fi
    [ -z "${MCP[1]:-}" ] || exec {MCP[1]}>&-
    wait "$MCP_PID" 2>/dev/null
}

# same_binary NAME ARCH FILE: FILE is the stripped binary make dist built for ARCH.
same_binary() {
    if cmp -s "$3" "$dist/bin/hyrax-linux-$2"; then ok; else fail "$1: not the $2 binary of make dist"; fi
}

one() { local f; f=$(ls "$dist"/$1 2>/dev/null | head -1); [ -n "$f" ] || fail "make dist made no $1"; echo "$f"; }
whl_x64=$(one 'hyrax_search-*x86_64*.whl'); whl_arm=$(one 'hyrax_search-*aarch64*.whl')
npm_main=$(one "hyrax-$version.tgz"); npm_x64=$(one 'hyrax-search-linux-x64-*.tgz'); npm_arm=$(one 'hyrax-search-linux-arm64-*.tgz')
mcpb_x64=$(one '*-linux-x64.mcpb'); mcpb_arm=$(one '*-linux-arm64.mcpb')
deb_x64=$(one '*_amd64.deb'); deb_arm=$(one '*_arm64.deb')
tar_x64=$(one '*-linux-x86_64.tar.gz'); tar_arm=$(one '*-linux-aarch64.tar.gz')
oci_tar=$(one '*-oci.tar')

echo "== the same binary in every package; the ARM64 one runs under qemu"
x=$tmp/x; mkdir -p "$x"
for arch in x86_64 aarch64; do
    if [ $arch = x86_64 ]; then whl=$whl_x64 npmt=$npm_x64 mcpb=$mcpb_x64 deb=$deb_x64 tgz=$tar_x64
    else whl=$whl_arm npmt=$npm_arm mcpb=$mcpb_arm deb=$deb_arm tgz=$tar_arm; fi
    unzip -p "$whl" "*.data/scripts/hyrax" > "$x/w"; same_binary wheel $arch "$x/w"
    tar xzOf "$npmt" package/bin/hyrax > "$x/n"; same_binary npm $arch "$x/n"
    unzip -p "$mcpb" server/hyrax > "$x/m"; same_binary mcpb $arch "$x/m"
    dpkg-deb --fsys-tarfile "$deb" | tar xO ./usr/bin/hyrax > "$x/d"; same_binary deb $arch "$x/d"
    tar xzOf "$tgz" --wildcards '*/hyrax' > "$x/t"; same_binary tarball $arch "$x/t"
done
arm_version=$(qemu-aarch64 "$dist/bin/hyrax-linux-aarch64" --version 2>&1)
[ "$arm_version" = "hyrax $version" ] && ok || fail "arm64 binary under qemu: $arm_version"

echo "== wheel: RECORD, tags, mcp-name"
python3 - "$whl_x64" "$whl_arm" "$mcp_name" <<'EOF' && ok || fail "wheel metadata"
import base64, hashlib, sys, zipfile
for path in sys.argv[1:3]:
    z = zipfile.ZipFile(path)
    names = set(z.namelist())
    record = [l.split(",") for l in z.read(next(n for n in names if n.endswith("/RECORD"))).decode().splitlines()]
    assert {r[0] for r in record} == names, "RECORD does not list exactly the wheel's files"
    for name, digest, size in record:
        if digest:
            data = z.read(name)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == want and int(size) == len(data), f"RECORD is wrong for {name}"
    meta = z.read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert f"mcp-name: {sys.argv[3]}" in meta, "no mcp-name marker in METADATA"
    wheel = z.read(next(n for n in names if n.endswith("/WHEEL"))).decode()
    tags = [l[5:] for l in wheel.splitlines() if l.startswith("Tag: ")]
    platforms = [t.split("-")[2] for t in tags if t.startswith("py3-none-manylinux")]
    assert len(platforms) == len(tags) and path.endswith("-py3-none-" + ".".join(platforms) + ".whl"), tags
    assert z.getinfo(next(n for n in names if n.endswith(".data/scripts/hyrax"))).external_attr >> 16 & 0o111
EOF

echo "== pip: the wheel into an empty venv, offline"
t0=$(now)
python3 -m venv "$tmp/venv" && t1=$(now) &&
    "$tmp/venv/bin/pip" install -q --no-index --no-cache-dir "$whl_x64" && t2=$(now) || fail "pip install"
note_folder "$tmp/pip-notes"
cli_check pip "$tmp/pip-notes" "$tmp/venv/bin/hyrax"; t3=$(now)
echo "pip: install-to-first-answer $(secs "$t0" "$t3") s (venv $(secs "$t0" "$t1") s, pip install $(secs "$t1" "$t2") s, index + search $(secs "$t2" "$t3") s)"
mcp_check pip 0 "$tmp/venv/bin/hyrax" serve --root "$tmp/pip-notes" --db "$tmp/pip-notes/.hyrax/index.hyx"
mcp_check "pip hyrax-search" 0 "$tmp/venv/bin/hyrax-search" serve --root "$tmp/pip-notes" --db "$tmp/pip-notes/.hyrax/index.hyx"
[ "$("$tmp/venv/bin/python" -m hyrax_search --version)" = "hyrax $version" ] && ok || fail "python -m hyrax_search"

echo "== uvx: the wheel, offline, empty uv cache"
export UV_CACHE_DIR=$tmp/uv/cache UV_TOOL_DIR=$tmp/uv/tools
note_folder "$tmp/uv-notes"
t0=$(now)
cli_check uvx "$tmp/uv-notes" "$tools/venv/bin/uvx" --offline --from "$whl_x64" hyrax; t1=$(now)
echo "uvx: install-to-first-answer $(secs "$t0" "$t1") s"
mcp_check "uvx hyrax-search" 0 "$tools/venv/bin/uvx" --offline --from "$whl_x64" hyrax-search serve \
    --root "$tmp/uv-notes" --db "$tmp/uv-notes/.hyrax/index.hyx"
unset UV_CACHE_DIR UV_TOOL_DIR

echo "== npm: the main and this machine's tarballs into an empty folder, offline; npx from them, empty npm cache"
export npm_config_cache=$tmp/npm-cache
t0=$(now)
(mkdir "$tmp/npm" && cd "$tmp/npm" && npm install -q --offline --no-audit --no-fund "$npm_main" "$npm_x64" >/dev/null) &&
    t1=$(now) || fail "npm install"
note_folder "$tmp/npm-notes"
cli_check npm "$tmp/npm-notes" "$tmp/npm/node_modules/.bin/hyrax"; t2=$(now)
echo "npm: install-to-first-answer $(secs "$t0" "$t2") s (npm install $(secs "$t0" "$t1") s, index + search $(secs "$t1" "$t2") s)"
[ ! -e "$tmp/npm/node_modules/@hyrax-search/linux-arm64" ] && ok || fail "npm installed the arm64 package on x64"
node -e 'const p=require(process.argv[1]);process.exit(p.scripts?1:0)' "$tmp/npm/node_modules/hyrax/package.json" &&
    ok || fail "the npm package has scripts"
mcp_check npm 0 "$tmp/npm/node_modules/.bin/hyrax" serve --root "$tmp/npm-notes" --db "$tmp/npm-notes/.hyrax/index.hyx"
note_folder "$tmp/npx-notes"
t0=$(now)
cli_check npx "$tmp/npx-notes" npx -y --offline --package "$npm_main" --package "$npm_x64" -- hyrax; t1=$(now)
echo "npx: install-to-first-answer $(secs "$t0" "$t1") s"
mcp_check npx 0 npx -y --offline --package "$npm_main" --package "$npm_x64" -- hyrax serve \
    --root "$tmp/npx-notes" --db "$tmp/npx-notes/.hyrax/index.hyx"
[ "$(node -p 'require(process.argv[1]).mcpName' "$tmp/npm/node_modules/hyrax/package.json")" = "$mcp_name" ] &&
    ok || fail "npm mcpName"
unset npm_config_cache

echo "== deb: dpkg into an empty root"
root=$tmp/debroot
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" && touch "$root/var/lib/dpkg/status"
force=(); [ "$(id -u)" = 0 ] || force=(--force-not-root)
if dpkg --root="$root" --log=/dev/null "${force[@]}" -i "$deb_x64" >/dev/null; then ok; else fail "dpkg -i"; fi
note_folder "$tmp/deb-notes"
cli_check deb "$tmp/deb-notes" "$root/usr/bin/hyrax"
mcp_check deb 0 "$root/usr/bin/hyrax" serve --root "$tmp/deb-notes" --db "$tmp/deb-notes/.hyrax/index.hyx"
for c in usr/share/bash-completion/completions/hyrax usr/share/zsh/vendor-completions/_hyrax \
         usr/share/fish/vendor_completions.d/hyrax.fish usr/share/doc/hyrax/copyright; do
    [ -s "$root/$c" ] && ok || fail "deb: no $c"
done
# Every man page make install writes is in the package, gzipped.
make -s install DESTDIR="$tmp/stage" PREFIX=/usr >/dev/null
for page in $(cd "$tmp/stage/usr/share" && find man -type f 2>/dev/null); do
    [ -s "$root/usr/share/$page.gz" ] && ok || fail "deb: no $page.gz"
done

echo "== OCI image: umoci unpacks each architecture; the amd64 one runs as its config says"
mkdir "$tmp/oci" && tar xf "$oci_tar" -C "$tmp/oci"
for arch in amd64 arm64; do
    if umoci unpack --rootless --image "$tmp/oci:$version-$arch" "$tmp/bundle-$arch" >/dev/null 2>&1; then ok
    else fail "umoci unpack $version-$arch"; continue; fi
    same_binary oci "$([ $arch = amd64 ] && echo x86_64 || echo aarch64)" "$tmp/bundle-$arch/rootfs/hyrax"
done
proc=$(node -e 'const c=require(process.argv[1]);console.log(JSON.stringify([c.process.args,c.process.cwd,
    c.annotations["io.modelcontextprotocol.server.name"]]))' "$tmp/bundle-amd64/config.json")
[ "$proc" = "[[\"/hyrax\",\"serve\"],\"/data\",\"$mcp_name\"]" ] && ok || fail "OCI config: $proc"
if [ "$(id -u)" = 0 ]; then
    # The image's root file system as / and /data as the folder, as `docker run -v FOLDER:/data` gives.
    note_folder "$tmp/bundle-amd64/rootfs/data"
    mcp_check oci 1 unshare --root="$tmp/bundle-amd64/rootfs" --wd=/data /hyrax serve
else
    echo "oci: not root, the image is not run"
fi

echo "== mcpb: the official CLI validates the bundle; it runs as its manifest says"
mcpb=$tools/node_modules/.bin/mcpb
for b in "$mcpb_x64" "$mcpb_arm"; do
    rm -rf "$tmp/mcpb" && "$mcpb" unpack "$b" "$tmp/mcpb" >/dev/null && "$mcpb" validate "$tmp/mcpb/manifest.json" >/dev/null &&
        "$mcpb" info "$b" | grep -q "$(basename "$b")" && ok || fail "mcpb validate/info $(basename "$b")"
done
rm -rf "$tmp/mcpb" && "$mcpb" unpack "$mcpb_x64" "$tmp/mcpb" >/dev/null
note_folder "$tmp/mcpb-notes"
# What Claude Desktop runs: mcp_config with ${__dirname} and ${user_config.folder} replaced.
mapfile -t argv < <(node -e '
    const m = require(process.argv[1]), c = m.server.mcp_config;
    const sub = (s) => s.replaceAll("${__dirname}", process.argv[2]).replaceAll("${user_config.folder}", process.argv[3]);
    if (m.manifest_version !== "0.3" || m.server.type !== "binary" || m.user_config.folder.type !== "directory") process.exit(1);
    for (const a of [c.command, ...c.args]) console.log(sub(a));' "$tmp/mcpb/manifest.json" "$tmp/mcpb" "$tmp/mcpb-notes")
[ ${#argv[@]} -gt 1 ] && ok || fail "mcpb manifest: not a 0.3 binary server with a folder"
mcp_check mcpb 1 "${argv[@]}"

echo "== server.json, the Homebrew formula and SHA256SUMS name what make dist built"
node - "$dist/server.json" "$mcp_name" "$version" "$dist" <<'EOF' && ok || fail "server.json"
const fs = require("fs"), crypto = require("crypto"), path = require("path");
const [file, name, version, dist] = process.argv.slice(2);
const s = JSON.parse(fs.readFileSync(file, "utf8"));
const fail = (m) => { console.error(m); process.exit(1); };
if (!s.$schema.includes("/schemas/2025-12-11/") || s.name !== name || s.version !== version) fail("name/version/schema");
if (s.description.length > 100) fail("description over 100 characters");
const types = s.packages.map((p) => p.registryType).sort().join(",");
if (types !== "mcpb,mcpb,npm,oci,pypi") fail("packages: " + types);
for (const p of s.packages) {
    if (p.transport.type !== "stdio") fail("transport");
    if (p.registryType === "mcpb") {
        const f = path.join(dist, path.basename(p.identifier));
        const h = crypto.createHash("sha256").update(fs.readFileSync(f)).digest("hex");
        if (h !== p.fileSha256 || !p.identifier.includes("mcp")) fail("mcpb hash or address: " + p.identifier);
    } else if (p.registryType === "oci" ? !p.identifier.endsWith(":" + version) : p.version !== version) fail("version: " + p.identifier);
}
EOF
for t in "$tar_x64" "$tar_arm"; do
    grep -q "sha256 \"$(sha256sum "$t" | cut -d' ' -f1)\"" "$dist/Formula/hyrax.rb" &&
        grep -q "/v$version/$(basename "$t")\"" "$dist/Formula/hyrax.rb" && ok || fail "formula: $(basename "$t")"
done
if command -v ruby >/dev/null; then ruby -c "$dist/Formula/hyrax.rb" >/dev/null && ok || fail "formula: ruby -c"; fi
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) && ok || fail "SHA256SUMS"

echo "== sizes"
(cd "$dist" && ls -l --block-size=1 *.whl *.tgz *.mcpb *.deb *.tar *.tar.gz | awk '{ printf "%12s  %s\n", $5, $9 }')
echo "packages: $passed passed, $failed failed"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
