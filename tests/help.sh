#!/bin/sh
# help.sh: the manual (src/cli/help/TOPIC.md) and the README, as users meet them. Every topic
# renders with `hyrax help TOPIC` and as a man page with `hyrax help --man TOPIC`, which groff and
# man read without a warning (skipped, saying so, where they are not installed); a command's name
# gives its options then its topic; an unknown name is refused with the nearest; no user-facing
# text names the project's internal history; the README stays a front door (at most 200 lines,
# its tour block marked, every topic it names exists) and its chart stays small. Run by
# `make test` from the repository root with $HYRAX_BIN; prints one line per failure and a tally.
bin=${HYRAX_BIN:-./hyrax}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0; n=0
fail() { echo "help: $*"; bad=$((bad + 1)); }
groff_ok=$(command -v groff >/dev/null && echo x | groff -man -Tutf8 -z 2>/dev/null && echo 1)
man_ok=$(command -v man >/dev/null && echo 1)
[ -n "$groff_ok" ] || echo "help: groff is not installed: man pages not checked with groff (Debian: groff-base)"
[ -n "$man_ok" ] || echo "help: man is not installed: man pages not checked with man -l (Debian: man-db)"

# check_page NAME FILE: the man page FILE renders without warnings.
check_page() {
    [ -s "$2" ] || { fail "$1: empty man page"; return; }
    if [ -n "$groff_ok" ]; then
        groff -man -Tutf8 -ww -z "$2" > "$tmp/groff.err" 2>&1
        [ -s "$tmp/groff.err" ] && fail "$1: groff -man -ww warns: $(head -3 "$tmp/groff.err")"
    fi
    if [ -n "$man_ok" ]; then
        MANWIDTH=80 man --warnings -l "$2" > "$tmp/man.out" 2> "$tmp/man.err" ||
            fail "$1: man -l fails: $(head -3 "$tmp/man.err")"
        [ -s "$tmp/man.err" ] && fail "$1: man --warnings -l warns: $(head -3 "$tmp/man.err")"
        grep -q "^NAME" "$tmp/man.out" || fail "$1: man -l shows no NAME section"
    fi
}

topics=""
for md in src/cli/help/*.md; do
    t=$(basename "$md" .md); topics="$topics $t"; n=$((n + 1))
    "$bin" help "$t" > "$tmp/text" 2> "$tmp/err" || fail "$t: 'hyrax help $t' fails: $(cat "$tmp/err")"
    heading=$(sed -n 's/^## //p' "$md" | head -1 | tr 'a-z' 'A-Z')
    grep -q "^$heading\$" "$tmp/text" || fail "$t: 'hyrax help $t' does not show its first heading ($heading)"
    "$bin" help --man "$t" > "$tmp/$t.1" 2> "$tmp/err" || fail "$t: 'hyrax help --man $t' fails: $(cat "$tmp/err")"
    check_page "$t" "$tmp/$t.1"
    "$bin" help "$t" | grep -q "^hyrax help $t: " || fail "$t: no title line"
done
[ "$n" -ge 10 ] || fail "only $n topics under src/cli/help"
"$bin" help --man > "$tmp/hyrax.1" || fail "'hyrax help --man' fails"
check_page hyrax "$tmp/hyrax.1"
grep -q '^\.TH HYRAX 1' "$tmp/hyrax.1" || fail "'hyrax help --man' is not hyrax(1)"
grep -q 'usage: hyrax index' "$tmp/hyrax.1" || fail "hyrax(1) lacks the commands' options"
grep -q 'hyrax\\-search' "$tmp/hyrax.1" || fail "hyrax(1) does not name hyrax-search(1)"

# A command's name: its options first, then the topic of that name.
"$bin" help search > "$tmp/search" || fail "'hyrax help search' fails"
grep -q '^usage: hyrax search' "$tmp/search" && grep -q '^hyrax help search: ' "$tmp/search" ||
    fail "'hyrax help search' lacks the command's usage or the topic"
"$bin" help index | grep -q -- '--reindex' || fail "'hyrax help index' lacks the command's options"
"$bin" help --man search | grep -q '^\.SH SYNOPSIS' || fail "hyrax-search(1) lacks the command's synopsis"
"$bin" help | grep -q '^  formats ' || fail "'hyrax help' does not list the topics"
if command -v bash > /dev/null; then
    got=$(bash -c 'source <("$0" completion bash); COMP_WORDS=(hyrax help fo); COMP_CWORD=2; _hyrax; echo "${COMPREPLY[@]}"' "$bin")
    [ "$got" = formats ] || fail "bash does not complete 'hyrax help fo' to formats: '$got'"
fi

# Unknown names are refused with the nearest command or topic.
"$bin" help fromats > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "did you mean 'formats'" "$tmp/err" || fail "'hyrax help fromats': exit $rc, $(cat "$tmp/err")"
"$bin" help --man nosuchtopic > /dev/null 2>&1 && fail "'hyrax help --man nosuchtopic' succeeds"

# No internal history in what users read.
for f in README.md src/cli/help/*.md; do
    grep -n -i -E 'seed [0-9]|seeds?'"'"' |issue [0-9]|issues? [0-9]+|round [0-9]' "$f" |
        sed "s|^|help: $f:|; s|$| (internal history: name the standard or client)|" > "$tmp/hist"
    [ -s "$tmp/hist" ] && { cat "$tmp/hist"; bad=$((bad + 1)); }
done

# The README is a front door.
lines=$(wc -l < README.md)
[ "$lines" -le 200 ] || fail "README.md has $lines lines (at most 200: details go to src/cli/help)"
grep -q '^<!-- tour -->$' README.md || fail "README.md has no <!-- tour --> block"
grep -q '^<!-- mcp-name: io\.github\.[A-Za-z0-9-]*/hyrax -->$' README.md || fail "README.md lacks the mcp-name marker"
grep -E -q '^ *make( |$)' README.md || fail "README.md shows no make command"
for t in $(sed -n 's/^|.*| `\([a-z]*\)` |$/\1/p' README.md); do
    case " $topics " in *" $t "*) ;; *) fail "README.md names the topic '$t', which does not exist" ;; esac
done
svg=$(wc -c < bench/chart.svg)
[ "$svg" -le 20480 ] || fail "bench/chart.svg is $svg bytes (at most 20 KB)"

echo "help: $n topics, $bad failures"
[ $bad = 0 ]
