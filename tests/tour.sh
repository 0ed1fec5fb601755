#!/usr/bin/env bash
# tour.sh: runs README.md's five-minute tour as a newcomer would, every command verbatim: the
# fenced block after the line <!-- tour -->, in bash with -e, in an empty home folder, with the
# built hyrax first on PATH (and curl for its HTTP step). Needs no network. Run by .ci/run after
# the build: `tests/tour.sh [HYRAX]` (default ./hyrax, beside weights/). Prints the tour's output
# and "tour: ok", or the failing command and exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(cd "$(dirname "${1:-./hyrax}")" && pwd)/$(basename "${1:-./hyrax}")
[ -x "$bin" ] || { echo "tour: no hyrax at $bin (run make first)"; exit 1; }
command -v curl > /dev/null || { echo "tour: the tour needs curl (Debian: curl)"; exit 1; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir "$home/bin"
ln -s "$bin" "$home/bin/hyrax"
awk '/^<!-- tour -->$/ { t = 1; next } t == 1 && /^```/ { t = 2; next } t == 2 && /^```/ { exit } t == 2' README.md \
    > "$home/tour.sh"
[ -s "$home/tour.sh" ] || { echo "tour: README.md has no fenced block after <!-- tour -->"; exit 1; }
echo "== the tour ($(grep -c . "$home/tour.sh") lines), HOME=$home"
# The weights are found beside the real executable, so the symlink needs no HYRAX_WEIGHTS.
out=$(cd "$home" && env -i HOME="$home" PATH="$home/bin:/usr/local/bin:/usr/bin:/bin" TERM=dumb \
      bash -e -x "$home/tour.sh" 2>&1) || { echo "$out"; echo "tour: failed"; exit 1; }
echo "$out"
case "$out" in *"pods.md"*) ;; *) echo "tour: the search found nothing"; exit 1 ;; esac
case "$out" in *'"results":[{'*) ;; *) echo "tour: the HTTP search answered no result"; exit 1 ;; esac
echo "tour: ok"
