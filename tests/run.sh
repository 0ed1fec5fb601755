#!/bin/sh
# Runs the test binaries and fuzz-corpus replays given by `make test`, from the repository root,
# and closes with the line "N passed, N failed" (one count per binary). Exit status 1 if any failed.
# With HX_EMU set (`make test EMU=...`, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu" for a
# cross-built tree) every binary runs under that emulator, and so does $HYRAX_BIN: it is replaced by
# a wrapper script, so the tests that start it (system, exec) need no emulator of their own. Float
# work runs ~100 times slower there, so the golden embeddings are checked on every 100th text (all
# four kinds of text, long ones included; test_encoder.c) unless HX_GOLDEN_STRIDE says otherwise,
# and HX_EMULATED is set.
build=$1; shift
# No user index of whoever runs the tests: `hyrax search` and `serve` read one beside the project
# (`hyrax help tiers`); the tests that want one name their own.
HYRAX_USER_DB=$build/no-user-index.hyx; export HYRAX_USER_DB
passed=0; failed=0; failures=""
if [ -n "$HX_EMU" ]; then
    bin=$(cd "$(dirname "$HYRAX_BIN")" && pwd)/$(basename "$HYRAX_BIN")
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$HX_EMU" "$bin" > "$build/hyrax-emu"
    chmod +x "$build/hyrax-emu"
    HYRAX_BIN=$build/hyrax-emu; export HYRAX_BIN
    HX_GOLDEN_STRIDE=${HX_GOLDEN_STRIDE:-100}; export HX_GOLDEN_STRIDE
    HX_EMULATED=1; export HX_EMULATED   # test_encoder_mpnet leaves the 110M-parameter model to native runs
fi
run_one() {
    name=$1
    case "$1" in *.sh) ;; *) set -- $HX_EMU "$@" ;; esac   # scripts run on the host
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures="$failures $name"; fi
}
fuzzing=0
for t in "$@"; do
    if [ "$t" = "--" ]; then fuzzing=1; continue; fi
    if [ $fuzzing = 1 ]; then
        name=$(basename "$t" _replay); name=${name#fuzz_}
        run_one "$t" "fuzz/corpus/$name"
    else
        run_one "$t"
    fi
done
[ -n "$failures" ] && echo "FAILED:$failures"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
